// Sum rules defined in rules_sum_merge.cc, listed in rules_sum.cc's table
// (internal to the simplifier).
#ifndef IXA_SIMPLIFIER_RULES_SUM_EXTRA_H_
#define IXA_SIMPLIFIER_RULES_SUM_EXTRA_H_

#include "simplifier/linear.h"
#include "simplifier/rewriter.h"

namespace ixa::simp {

bool ModFromDivPartial(Rewriter& rw, LinearSum* sum);
bool MergeFloorDiv(Rewriter& rw, LinearSum* sum);
bool FloorDivDifference(Rewriter& rw, LinearSum* sum);
bool RoundDown(Rewriter& rw, LinearSum* sum);
bool RecombineVariableDivisor(Rewriter& rw, LinearSum* sum);
bool MinMaxPair(Rewriter& rw, LinearSum* sum);
bool MergeModTower(Rewriter& rw, LinearSum* sum);
bool MinMaxDifference(Rewriter& rw, LinearSum* sum);
bool PushIntoMinMax(Rewriter& rw, LinearSum* sum);
bool Factor(Rewriter& rw, LinearSum* sum);
bool ProductMinMax(Rewriter& rw, LinearSum* sum);

}  // namespace ixa::simp

#endif  // IXA_SIMPLIFIER_RULES_SUM_EXTRA_H_
