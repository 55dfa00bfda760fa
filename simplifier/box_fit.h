// Exhaustive affine fitting over small boxes of variable values, used by the
// catch-all rules div.affine_on_box and sum.affine_on_box and by
// constraint.single_variable_values.
//
// A box is a product of per-variable value lists. Equality with an affine
// form at every point of a box that contains the domain implies equality on
// the domain, so a fit that checks every point is exact (no algebra to get
// wrong); the cost is bounded by the box size and a per-caller budget.
#ifndef IXA_SIMPLIFIER_BOX_FIT_H_
#define IXA_SIMPLIFIER_BOX_FIT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/expr.h"
#include "core/interval.h"
#include "simplifier/linear.h"

namespace ixa::simp {

// Boxes with more points than this are not enumerated.
inline constexpr int64_t kMaxBoxPoints = 4096;
// Nor boxes over more variables than this.
inline constexpr int kMaxBoxVariables = 12;

// The values one variable takes: every integer of [lo, hi], or the sorted
// list `values` when it is not null.
struct BoxAxis {
  Expr var;
  int64_t lo = 0;
  int64_t hi = -1;
  const std::vector<int64_t>* values = nullptr;

  // Saturates at INT64_MAX (a finite range can hold more than 2^63 values).
  int64_t size() const {
    if (values) return static_cast<int64_t>(values->size());
    __int128 n = static_cast<__int128>(hi) - lo + 1;
    return n > INT64_MAX ? INT64_MAX : static_cast<int64_t>(n);
  }
  int64_t at(int64_t i) const { return values ? (*values)[i] : lo + i; }
};

// Collects the distinct variables e mentions into vars[0..*count) (in order
// of first appearance; *count is the number already there, which are kept).
// Returns false when there are more than vars.size().
bool CollectVariables(Expr e, std::span<Expr> vars, int* count);

// If e equals sum_i c_i * var_i + offset at every point of the box (the
// product of `axes`, which must cover every variable of e), returns that
// form (normalized). At most kMaxBoxVariables axes. Candidate coefficients come
// from the base point and one step along each axis; the corners are checked
// next (non-affine nodes usually fail there), then every point, stopping at the
// first mismatch. Each evaluation takes one unit of *budget; running out fails
// the fit.
std::optional<LinearSum> FitAffineOnBox(Expr e, std::span<const BoxAxis> axes,
                                        int64_t* budget);

// Makes FitAffineOnBox remember its genuine failures (not those for lack of
// budget) in ctx until ctx dies, and answer a repeated fit from that record:
// a fit depends on the expression and the box only. AllowedValues then
// records its answers the same way. Worth it where one
// context is simplified again and again over the same subexpressions (the
// steps of a composition chain, simplifier/compose.cc); a one-shot
// simplification would pay for the record and never use it.
void RememberFailedFits(ExprContext* ctx);

// The values v in [range] (finite, at most kMaxBoxPoints of them) at which
// every constraint `exprs[i] in intervals[i]` holds, where each expression
// mentions only `var`. nullopt if the range is too large or an evaluation
// fails.
std::optional<std::vector<int64_t>> AllowedValues(
    Expr var, const Interval& range, std::span<const Expr> exprs,
    std::span<const Interval> intervals);

}  // namespace ixa::simp

#endif  // IXA_SIMPLIFIER_BOX_FIT_H_
