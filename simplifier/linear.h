// The canonical sum form: sum_i coeff_i * term_i + constant, with terms that
// are neither sums, constants nor products by a constant. Sorting the terms
// by structure (core's CompareExprs: dims by position, then symbols, then
// composite terms) makes commuted variants identical, so no rule needs a
// commuted twin (Halide writes those out by hand, which multiplies its rules).
#ifndef IXA_SIMPLIFIER_LINEAR_H_
#define IXA_SIMPLIFIER_LINEAR_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "core/expr.h"
#include "core/small_vector.h"

namespace ixa::simp {

struct Term {
  Expr expr;
  int64_t coeff;
};

struct LinearSum {
  // Inline room for the handful of terms most sums have: building and
  // copying a sum allocates nothing.
  SmallVector<Term, 8> terms;
  int64_t constant = 0;

  // Coefficient of `e` (0 when absent).
  int64_t CoeffOf(Expr e) const;
  bool IsConstant() const { return terms.empty(); }
};

// Adds scale * e to sum, looking through +, products by constants and
// constants. Returns false (leaving sum unspecified) on int64 overflow.
bool AddScaled(Expr e, int64_t scale, LinearSum* sum);
// Same for a whole linear sum.
bool AddScaled(const LinearSum& s, int64_t scale, LinearSum* sum);

// Decomposes e; std::nullopt on overflow.
std::optional<LinearSum> ToLinear(Expr e);

// Sorts terms, merges equal terms and drops zero coefficients. Returns false
// on overflow.
bool Normalize(LinearSum* sum);

// Builds the expression `t0 * c0 + t1 * c1 + ... + constant` (left-nested,
// constant last). The sum must be normalized.
Expr BuildSum(ExprContext* ctx, const LinearSum& sum);

// gcd of all coefficients (0 for no terms).
int64_t CoeffGcd(const LinearSum& sum);

}  // namespace ixa::simp

#endif  // IXA_SIMPLIFIER_LINEAR_H_
