// Constraint simplification (docs/xla-reference.md §(c) C1-C9,
// docs/indexing.md §5).
#ifndef IXA_SIMPLIFIER_CONSTRAINTS_H_
#define IXA_SIMPLIFIER_CONSTRAINTS_H_

#include <span>
#include <vector>

#include "core/indexing_map.h"
#include "simplifier/rewriter.h"

namespace ixa::simp {

// One constraint being normalized: `expr in interval`. Interval ends at the
// int64 limits mean "no bound on that side".
struct ConstraintState {
  Expr expr;
  Interval interval;
};

// A rule rewrites the constraint into an equivalent one (same set of
// points); returns true if it changed it.
using ConstraintRuleFn = bool (*)(Rewriter& rw, ConstraintState* c);
struct ConstraintRule {
  const char* id;
  ConstraintRuleFn apply;
};
std::span<const ConstraintRule> ConstraintRules();

// Simplifies every constraint, drops the ones that always hold, folds bare
// variables into bounds, merges mod constraints and detects infeasibility
// (the map becomes KNOWN EMPTY). Returns true if the map changed.
bool SimplifyConstraints(IndexingMap* map, const RuleFilter* filter,
                         std::vector<TraceStep>* trace, bool* budget_exhausted);

}  // namespace ixa::simp

#endif  // IXA_SIMPLIFIER_CONSTRAINTS_H_
