// Exact decisions over a map's domain, for any domain size (issue 3):
// floordiv/mod are lifted into fresh integer variables with linear
// constraints and the resulting Presburger problem is decided. Each call has
// a budget; on exhaustion it answers limit_exceeded, never a wrong answer.
#ifndef IXA_SIMPLIFIER_DECIDE_H_
#define IXA_SIMPLIFIER_DECIDE_H_

#include <cstdint>

#include "core/enumerate.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

struct DecideOptions {
  int64_t budget = 200000;  // abstract work units
};

// True iff no point satisfies the bounds and constraints.
Result<bool> IsEmpty(const IndexingMap& map, const DecideOptions& options = {});

// Same domain and same results on it; a counterexample when not.
Result<Equivalence> Equivalent(const IndexingMap& a, const IndexingMap& b,
                               const DecideOptions& options = {});

struct ExprBounds {
  Interval interval;   // empty when the domain is empty
  bool exact = false;  // false: a sound over-approximation
};

// Bounds of e (over the map's variables) on the map's domain.
Result<ExprBounds> BoundsOf(const IndexingMap& map, Expr e,
                            const DecideOptions& options = {});

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_DECIDE_H_
