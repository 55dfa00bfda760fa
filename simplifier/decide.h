// Exact decisions over a map's domain, for any domain size (no enumeration):
// floordiv/mod are lifted into fresh integer variables with linear
// constraints and the resulting Presburger problem is decided. Each call has
// a budget; on exhaustion it answers limit_exceeded, never a wrong answer.
//
// Method (simplifier/decide/): lift.h turns each distinct floordiv / mod /
// ceildiv by a constant into a variable with two linear rows, and each
// min / max into a variable with two relaxation rows plus a disjunction of
// two one-row cases (split lazily, only where a witness of the relaxation
// breaks it, each split charged to the budget); omega.h
// decides integer feasibility exactly (Pugh's Omega test: equalities by
// substitution and mod-hat, inequalities by exact / dark / real shadows,
// grey-shadow splinters or value enumeration, whichever is fewer cases) and
// returns a witness point. Numbers are checked int64 with a cpp_int rerun
// on overflow. Variable bounds at the int64 limits are treated as
// unbounded first; a witness outside int64 makes the query rerun with them
// as real bounds.
//
// A product of two non-constant factors whose ranges over the variable
// box are finite (is_empty, find_point and bounds) is lifted into a
// variable with McCormick's envelope of those ranges, split lazily like
// min / max where a witness breaks it (the envelope is exact once a
// factor is a point), so `d0 * d1 in [-5, -1]` over [0, 1000]^2 is decided
// without enumeration. Other semi-affine maps (a variable divisor, an
// unbounded factor, equivalence) and problems that exhaust the budget
// fall back to enumeration when the box has at most min(4 * budget, 2^22)
// points; otherwise unsupported (naming the expression) or
// limit_exceeded. bounds also intersects an inexact answer with the
// interval of a constraint on the same expression.
#ifndef IXA_SIMPLIFIER_DECIDE_H_
#define IXA_SIMPLIFIER_DECIDE_H_

#include <cstdint>
#include <optional>

#include "core/enumerate.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

struct DecideOptions {
  // Abstract work units per call (roughly: solver calls plus rows built).
  // The int64 attempt and a cpp_int rerun after overflow each get the
  // whole budget.
  int64_t budget = 200000;
};

// A point of the domain (dims and symbols), or nullopt when it is empty.
Result<std::optional<Point>> FindPoint(const IndexingMap& map,
                                       const DecideOptions& options = {});

// True iff no point satisfies the bounds and constraints.
Result<bool> IsEmpty(const IndexingMap& map, const DecideOptions& options = {});

// Same domain and same results on it; a counterexample when not.
Result<Equivalence> Equivalent(const IndexingMap& a, const IndexingMap& b,
                               const DecideOptions& options = {});

struct ExprBounds {
  Interval interval;   // empty when the domain is empty
  bool exact = false;  // false: a sound over-approximation
};

// Bounds of e (over the map's variables) on the map's domain: the exact
// minimum and maximum (binary search on e <= mid with witnesses) when
// proven; else (budget, semi-affine on a large box, extremes past int64,
// which saturate) a sound over-approximation with exact = false.
Result<ExprBounds> BoundsOf(const IndexingMap& map, Expr e,
                            const DecideOptions& options = {});

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_DECIDE_H_
