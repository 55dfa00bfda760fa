// Rules for `a floordiv b` (docs/xla-reference.md §(c) E10-E14, E19-E23).
//
// Notation: a = sum_i c_i * t_i + k is the dividend in canonical form, D the
// constant divisor. Unless a rule says otherwise it needs D > 0: negative
// divisors are left alone (XLA's `(s0 floordiv 2) floordiv -7` must stay),
// except for the identities x floordiv 1 = x and x floordiv -1 = -x, and
// floordiv.negative_divisor, which uses -D when that removes a div/mod node
// (MLIR's `(d0 * 6) floordiv -2` = `d0 * -3`).
//
// Termination: every rule below either removes a div/mod node (one_period,
// reduce_coefficients, ...), or keeps the div/mod count and makes the
// dividend strictly smaller (fewer terms, or a constant moved out), except
// floordiv.of_mod, which only moves a mod node outwards; no rule moves it
// back in. floordiv.rounded_dividend turns a mod term of the dividend into
// a floordiv moved out of it, floordiv.of_rounded and
// floordiv.of_mod_of_div remove a div/mod node, and
// floordiv.variable_divisor_multiples moves terms out of the dividend.
// floordiv.of_mod_of_div moves a mod node inwards only where
// floordiv.of_mod cannot move it out again (D does not divide M).
#include "simplifier/rule_util.h"

namespace ixa::simp {

namespace {

// floordiv.by_one: x floordiv 1 = x; x floordiv -1 = -x (exact: -x is an
// integer).
std::optional<Expr> FloorDivByOne(Rewriter& rw, const DivOperands& in) {
  if (in.d == 1) return in.dividend;
  if (in.d == -1) return rw.ctx()->Neg(in.dividend);
  return std::nullopt;
}

// floordiv.one_period: if range(a) lies in [m*D, m*D + D - 1] then
// floor(a / D) = m at every point.
std::optional<Expr> FloorDivOnePeriodRule(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 0) return std::nullopt;
  auto m = OnePeriod(in.dividend_facts.range, *in.d);
  if (!m) return std::nullopt;
  return rw.Const(*m);
}

// floordiv.split_multiples (E11, E22, E23): with a = D*Q + R, where Q
// collects the terms whose coefficient D divides,
//   floor((D*Q + R) / D) = Q + floor(R / D)        (Q is an integer).
// When R lies in one period [m*D, m*D + D - 1] this is Q + m (the
// "delinearize" step: the low part never carries). Otherwise the rule fires
// only if Q is non-empty, or R's constant is a non-zero multiple of D
// (moved out too: floor((R' + q*D) / D) = floor(R' / D) + q).
std::optional<Expr> FloorDivSplitMultiples(Rewriter& rw,
                                           const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  int64_t d = *in.d;
  DivisorSplit split = SplitByDivisor(in.sum, d);
  if (auto m = OnePeriod(rw.FactsOfSum(split.rest).range, d)) {
    if (split.rest.terms.empty() && split.quotient.terms.empty())
      return std::nullopt;
    auto q = CheckedAdd(split.quotient.constant, *m);
    if (!q) return std::nullopt;
    split.quotient.constant = *q;
    return BuildSum(rw.ctx(), split.quotient);
  }
  return MoveMultiplesOut(rw, std::move(split), d, in.divisor,
                          ExprKind::kFloorDiv);
}

// floordiv.gcd_split (E12, E13, E20): a = h*H + L with h = gcd of some
// coefficients and D, h > 1, and L in [0, h - 1] (FindGcdSplit moves the
// carry m of L's period into H). Then with D = h*D':
//   floor((h*H + L) / (h*D')) = floor((H + L/h) / D') = floor(H / D')
// because H is an integer and 0 <= L/h < 1.
std::optional<Expr> FloorDivGcdSplitRule(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  auto split = FindGcdSplit(rw, in.sum, *in.d);
  if (!split) return std::nullopt;
  int64_t reduced = *in.d / split->h;
  Expr high = BuildSum(rw.ctx(), split->high);
  if (reduced == 1) return high;
  return rw.ctx()->FloorDiv(high, rw.Const(reduced));
}

// floordiv.reduce_coefficients: write each coefficient c_i = D*q_i + r_i
// with r_i its floor or ceiling remainder, so a = D*Q + R with
// Q = sum q_i t_i and R = sum r_i t_i + k. If R lies in one period
// [m*D, m*D + D - 1] then
//   floor(a / D) = Q + floor(R / D) = Q + m          (Q is an integer).
// `(d0 + d2 * 10 + 12) floordiv 9` with d0 in [0, 1], d2 in [0, 2]: 10 =
// 9 + 1 and d0 + d2 + 12 in [12, 15], so it is d2 + 1. Generalizes
// split_multiples' one-period case to coefficients D does not divide.
// Fires only when the floordiv disappears.
std::optional<Expr> FloorDivReduceCoefficients(Rewriter& rw,
                                               const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  auto split = FindPeriodSplit(rw, in.sum, *in.d);
  if (!split) return std::nullopt;
  return BuildSum(rw.ctx(), split->quotient);
}

// floordiv.nested (E10, E14): if exactly one term is `y floordiv c` (c > 0)
// with coefficient 1, and R is the rest (an integer), then
//   floor((floor(y / c) + R) / D) = floor(floor((y + R*c) / c) / D)
//                                 = floor((y + R*c) / (c*D))   (c, D > 0).
// With two such terms folding both would be wrong: (a0/3 + a1/3)/6 is not
// (a0 + a1)/18 (XLA's counterexample), so the rule requires exactly one.
std::optional<Expr> Nested(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  int inner_index = -1;
  for (size_t i = 0; i < in.sum.terms.size(); ++i) {
    const Term& t = in.sum.terms[i];
    if (t.coeff == 1 && IsOpByPositiveConstant(t.expr, ExprKind::kFloorDiv)) {
      if (inner_index >= 0) return std::nullopt;  // two candidates
      inner_index = static_cast<int>(i);
    }
  }
  if (inner_index < 0) return std::nullopt;
  Expr inner = in.sum.terms[inner_index].expr;
  int64_t c = inner.rhs().constant();
  auto cd = CheckedMul(c, *in.d);
  if (!cd) return std::nullopt;
  LinearSum rest = in.sum;
  rest.terms.erase(rest.terms.begin() + inner_index);
  auto scaled = Scaled(rest, c);
  if (!scaled) return std::nullopt;
  if (!AddScaled(inner.lhs(), 1, &*scaled) || !Normalize(&*scaled)) {
    return std::nullopt;
  }
  return rw.ctx()->FloorDiv(BuildSum(rw.ctx(), *scaled), rw.Const(*cd));
}

// floordiv.of_mod (E9): (x mod (D*b)) floordiv D = (x floordiv D) mod b for
// D, b > 0. Write x = D*b*q + D*u + v with 0 <= u < b, 0 <= v < D: both
// sides are u. Canonical towers are `(x floordiv a) mod b`.
std::optional<Expr> FloorDivOfMod(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  std::optional<Expr> sole = SoleTerm(in.sum);
  if (!sole || !IsOpByPositiveConstant(*sole, ExprKind::kMod)) {
    return std::nullopt;
  }
  const Expr term = *sole;
  int64_t m = term.rhs().constant();
  if (m % *in.d != 0 || m == *in.d) return std::nullopt;
  Expr x = term.lhs();
  return rw.ctx()->Mod(rw.ctx()->FloorDiv(x, in.divisor), rw.Const(m / *in.d));
}

// floordiv.semi_affine_in_range: a non-constant divisor b with b >= lo > 0
// everywhere, and 0 <= a < lo: floor(a / b) = 0.
std::optional<Expr> FloorDivSemiAffineInRange(Rewriter& rw,
                                              const DivOperands& in) {
  if (in.d) return std::nullopt;
  const Interval& b = in.divisor_facts.range;
  const Interval& a = in.dividend_facts.range;
  if (!IsFinite(a) || b.lower <= 0 || b.lower == kInt64Max) return std::nullopt;
  if (a.lower >= 0 && a.upper < b.lower) return rw.Const(0);
  return std::nullopt;
}

// floordiv.negative_divisor: a divisor D < -1 becomes -D > 1 (see
// ViaPositiveDivisor), applied only when that removes a div/mod node.
std::optional<Expr> FloorDivNegativeDivisor(Rewriter& rw,
                                            const DivOperands& in) {
  return ViaPositiveDivisor(rw, in, ExprKind::kFloorDiv);
}

// floordiv.rounded_dividend: with k*Y - k*(Y mod M) = (k*M) * (Y floordiv M)
// in the dividend and D | k*M (M > 0),
//   (k*Y - k*(Y mod M) + R) floordiv D = (k*M/D) * (Y floordiv M)
//                                         + R floordiv D
// (the first part is an integer multiple of D).
// `(d0 - d0 mod 12) floordiv 12` -> `d0 floordiv 12` for every integer d0.
std::optional<Expr> FloorDivRoundedDividend(Rewriter& rw,
                                            const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  auto split = FindRoundedPart(in.sum, *in.d);
  if (!split) return std::nullopt;
  ExprContext* ctx = rw.ctx();
  Expr quotient =
      ctx->Mul(ctx->FloorDiv(split->y, split->m), rw.Const(split->factor));
  return ctx->Add(quotient,
                  ctx->FloorDiv(BuildSum(ctx, split->rest), in.divisor));
}

// floordiv.of_rounded: a dividend c*(X floordiv c) + R with c > 0, c | D
// and c dividing every coefficient and the constant of R:
//   c*(X floordiv c) + R = c*((X + R) floordiv c)          (R/c integer)
// and floor(c*floor(Z / c) / D) = floor(Z / D) for c | D (write Z = D*q + s
// with 0 <= s < D: c*floor(Z / c) = D*q + c*floor(s / c), and
// 0 <= c*floor(s / c) <= s < D). So the whole is (X + R) floordiv D:
// `((d0 floordiv 4) * 4) floordiv 12` -> `d0 floordiv 12`.
std::optional<Expr> FloorDivOfRounded(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  const int64_t d = *in.d;
  int index = -1;
  for (size_t i = 0; i < in.sum.terms.size(); ++i) {
    const Term& t = in.sum.terms[i];
    if (t.expr.kind() == ExprKind::kFloorDiv && t.coeff > 1 &&
        IsOpByPositiveConstant(t.expr, ExprKind::kFloorDiv) &&
        t.expr.rhs().constant() == t.coeff && t.coeff > 1 && d % t.coeff == 0) {
      index = static_cast<int>(i);
      break;
    }
  }
  if (index < 0) return std::nullopt;
  const Term round = in.sum.terms[index];
  const int64_t c = round.coeff;
  LinearSum rest = in.sum;
  rest.terms.erase(rest.terms.begin() + index);
  if (rest.constant % c != 0) return std::nullopt;
  for (const Term& t : rest.terms) {
    if (t.coeff % c != 0) return std::nullopt;
  }
  if (!AddScaled(round.expr.lhs(), 1, &rest) || !Normalize(&rest)) {
    return std::nullopt;
  }
  return rw.ctx()->FloorDiv(BuildSum(rw.ctx(), rest), in.divisor);
}

// floordiv.of_mod_of_div: ((Y floordiv c) mod M) floordiv D =
// (Y mod (c*M)) floordiv (c*D) for c, M, D > 0, because
// (Y floordiv c) mod M = (Y mod (c*M)) floordiv c (floordiv.of_mod read
// backwards) and floor(floor(Z / c) / D) = floor(Z / (c*D)). Fires only
// when D does not divide M (else floordiv.of_mod applies and gives the
// canonical tower): `((d0 floordiv 4) mod 8) floordiv 3` ->
// `(d0 mod 32) floordiv 12`.
std::optional<Expr> FloorDivOfModOfDiv(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1 || in.sum.terms.size() != 1 ||
      in.sum.terms[0].expr.kind() != ExprKind::kMod) {
    return std::nullopt;
  }
  std::optional<Expr> sole = SoleTerm(in.sum);
  if (!sole || !IsOpByPositiveConstant(*sole, ExprKind::kMod)) {
    return std::nullopt;
  }
  const int64_t m = sole->rhs().constant();
  Expr inner = sole->lhs();
  if (m % *in.d == 0 || !IsOpByPositiveConstant(inner, ExprKind::kFloorDiv)) {
    return std::nullopt;
  }
  const int64_t c = inner.rhs().constant();
  auto cm = CheckedMul(c, m);
  auto cd = CheckedMul(c, *in.d);
  if (!cm || !cd) return std::nullopt;
  ExprContext* ctx = rw.ctx();
  return ctx->FloorDiv(ctx->Mod(inner.lhs(), rw.Const(*cm)), rw.Const(*cd));
}

// floordiv.variable_divisor_multiples: for a divisor n that is not a
// constant and whose sign is fixed on its range (n = 0, where the input
// has no value, may be an end), (n*Q + R) floordiv n = Q + R floordiv n
// (Q an integer). Q collects the terms n and (x * n):
// `(d0 * s0) floordiv s0` -> `d0`, `(s0 + d1) floordiv s0` ->
// `d1 floordiv s0 + 1`.
std::optional<Expr> FloorDivVariableDivisorMultiples(Rewriter& rw,
                                                     const DivOperands& in) {
  auto split = SplitByVariableDivisor(in);
  if (!split) return std::nullopt;
  Expr quotient = BuildSum(rw.ctx(), split->quotient);
  if (split->rest.IsConstant() && split->rest.constant == 0) return quotient;
  return rw.ctx()->Add(
      quotient,
      rw.ctx()->FloorDiv(BuildSum(rw.ctx(), split->rest), in.divisor));
}

constexpr DivRule kFloorDivRules[] = {
    {"floordiv.by_one", &FloorDivByOne},
    {"floordiv.one_period", &FloorDivOnePeriodRule},
    {"floordiv.split_multiples", &FloorDivSplitMultiples},
    {"floordiv.gcd_split", &FloorDivGcdSplitRule},
    {"floordiv.reduce_coefficients", &FloorDivReduceCoefficients},
    {"floordiv.nested", &Nested},
    {"floordiv.of_mod", &FloorDivOfMod},
    {"floordiv.semi_affine_in_range", &FloorDivSemiAffineInRange},
    {"floordiv.negative_divisor", &FloorDivNegativeDivisor},
    {"floordiv.rounded_dividend", &FloorDivRoundedDividend},
    {"floordiv.of_rounded", &FloorDivOfRounded},
    {"floordiv.of_mod_of_div", &FloorDivOfModOfDiv},
    {"floordiv.variable_divisor_multiples", &FloorDivVariableDivisorMultiples},
};

}  // namespace

std::span<const DivRule> FloorDivRules() { return kFloorDivRules; }

}  // namespace ixa::simp
