// Small helpers shared by the rule files.
#ifndef IXA_SIMPLIFIER_RULE_UTIL_H_
#define IXA_SIMPLIFIER_RULE_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "simplifier/linear.h"
#include "simplifier/rewriter.h"

namespace ixa::simp {

// sum = divisor * quotient + rest, where quotient collects the terms whose
// coefficient is a multiple of the divisor (divided by it) and rest the
// other terms plus the whole constant.
struct DivisorSplit {
  LinearSum quotient;
  LinearSum rest;
};
DivisorSplit SplitByDivisor(const LinearSum& sum, int64_t divisor);

// For kind floordiv or ceildiv by d > 1 (the constant `divisor`):
//   (d*Q + R) op d = Q + (R op d)      (Q an integer)
// and a constant of R that d divides moves out too. Returns the rewritten
// form, or nullopt when there is nothing to move (Q empty, no such constant).
std::optional<Expr> MoveMultiplesOut(Rewriter& rw, DivisorSplit split,
                                     int64_t d, Expr divisor, ExprKind kind);

// For a constant divisor D < -1 (not INT64_MIN), with kind floordiv,
// ceildiv or mod:
//   a floordiv D = (-a) floordiv (-D),   a ceildiv D = (-a) ceildiv (-D),
//   a mod D = -((-a) mod (-D))
// (a / D = (-a) / (-D) exactly, and a mod D = a - D * floor(a / D) =
// -((-a) - (-D) * floor((-a) / (-D)))). Returns that form simplified when
// it has fewer div/mod nodes than in.node, else nullopt: `(d0 * 6) floordiv
// -2` is `d0 * -3`, while `(s0 floordiv 2) floordiv -7` stays.
std::optional<Expr> ViaPositiveDivisor(Rewriter& rw, const DivOperands& in,
                                       ExprKind kind);

// A split of sum = h * high + low for a factor h > 1 of the divisor, where h
// divides every coefficient of `high` and low's range lies in one period
// [m*h, m*h + h - 1] (so floor(low / h) == m everywhere). `high` already
// includes m, and `low` has m*h subtracted, so low is in [0, h - 1].
struct GcdSplit {
  int64_t h;
  LinearSum high;
  LinearSum low;
};
// Tries the factors gcd(coeff_i, divisor) from the largest down.
std::optional<GcdSplit> FindGcdSplit(Rewriter& rw, const LinearSum& sum,
                                     int64_t divisor);

// A split of sum = D * quotient + rest where each coefficient c_i is
// written D*q_i + r_i with r_i its floor remainder (in [0, D - 1]) or its
// ceiling remainder (r_i - D), the constant stays in rest, and rest's range
// lies in one period [m*D, m*D + D - 1]. Then
//   sum floordiv D = quotient + m,   sum mod D = rest - m*D.
// Tries every choice of remainders when at most 6 terms have two (else
// all-floor and all-nearest). `quotient` already includes
// m and `rest` has m*D subtracted. nullopt if no choice works.
struct PeriodSplit {
  LinearSum quotient;
  LinearSum rest;
};
std::optional<PeriodSplit> FindPeriodSplit(Rewriter& rw, const LinearSum& sum,
                                           int64_t divisor);

// True if every term of `part` (at least one) appears in `sum` with
// exactly scale times its coefficient.
bool HasScaledPart(const LinearSum& sum, const LinearSum& part, int64_t scale);

// A part k*Y - k*(Y mod M) = (k*M) * (Y floordiv M) of a sum (a term
// `Y mod M` with M > 0 and coefficient -k, and every term of Y with k times
// its coefficient), where the divisor d divides k*M. `rest` is the sum
// without that part; factor = k*M / d.
struct RoundedPart {
  Expr y;
  Expr m;  // the constant M
  int64_t factor;
  LinearSum rest;
};
std::optional<RoundedPart> FindRoundedPart(const LinearSum& sum, int64_t d);

// For a divisor n that is not a constant, whose range does not hold values
// of both signs (n = 0, where a division has no value, may be an end):
// the dividend as n*quotient + rest, where quotient collects the terms
// that are n or a product with n as a factor. nullopt if there is none.
struct VariableDivisorSplit {
  LinearSum quotient;
  LinearSum rest;
};
std::optional<VariableDivisorSplit> SplitByVariableDivisor(
    const DivOperands& in);

// Whether the divisor's range does not hold values of both signs and is
// not just 0.
bool SignFixed(const Interval& range);

// Returns s * k + c, or nullopt on overflow.
std::optional<LinearSum> Scaled(const LinearSum& s, int64_t k, int64_t c = 0);

// The single term of a sum that is exactly `1 * term + 0`, else nullopt.
std::optional<Expr> SoleTerm(const LinearSum& sum);

// Is e `x <kind> c` with a constant c > 0?
bool IsOpByPositiveConstant(Expr e, ExprKind kind);

// The single variable e mentions, or nullopt if it mentions none or
// several.
std::optional<Expr> SoleVariable(Expr e);

// If e (mentioning only the variable x) takes the values slope*x + offset
// at every x in range (at most max_points values, all probed), returns
// them. Exhaustive, hence exact.
struct AffineForm {
  int64_t slope;
  int64_t offset;
};
std::optional<AffineForm> AffineFit(Expr e, Expr x, const Interval& range,
                                    int64_t max_points);

}  // namespace ixa::simp

#endif  // IXA_SIMPLIFIER_RULE_UTIL_H_
