// Rules for `a mod b` (docs/xla-reference.md §(c) E3-E8, E19-E22).
//
// Notation: a = sum_i c_i * t_i + k in canonical form, D the constant
// divisor. mod(a, D) = a - D * floor(a / D) (core/int_math.h). Rules need
// D > 0 except mod.by_one and mod.negative_divisor (which uses -D only when
// that removes a div/mod node); other negative divisors are left alone. E3
// (mod 0) does not apply: a zero constant divisor is invalid input.
//
// Termination: mod.in_range, mod.of_mod, mod.reduce_coefficients,
// mod.negative_divisor and mod.semi_affine_in_range remove a mod node;
// mod.drop_multiples removes terms or shrinks the constant into [0, D - 1];
// mod.gcd_split divides the divisor by h > 1; mod.coefficient_remainder
// makes a coefficient strictly smaller in magnitude (none grows back: no
// rule adds multiples of the divisor to a mod's dividend);
// mod.rounded_dividend and mod.variable_divisor_multiples remove terms
// from the dividend.
#include "simplifier/rule_util.h"

namespace ixa::simp {

namespace {

// mod.by_one: x mod 1 = x mod -1 = 0.
std::optional<Expr> ModByOne(Rewriter& rw, const DivOperands& in) {
  if (in.d == 1 || in.d == -1) return rw.Const(0);
  return std::nullopt;
}

// mod.in_range (E4): if range(a) lies in [m*D, m*D + D - 1], then
// floor(a / D) = m and a mod D = a - m*D (`x mod 42` -> `x - 42` for x in
// [53, 71]; m = 0 gives `x mod c` -> `x`).
std::optional<Expr> InRange(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 0) return std::nullopt;
  auto m = OnePeriod(in.dividend_facts.range, *in.d);
  if (!m) return std::nullopt;
  auto shift = CheckedMul(*m, *in.d);
  if (!shift) return std::nullopt;
  auto shifted = Scaled(in.sum, 1, 0);
  if (!shifted) return std::nullopt;
  auto k = CheckedSub(shifted->constant, *shift);
  if (!k) return std::nullopt;
  shifted->constant = *k;
  return BuildSum(rw.ctx(), *shifted);
}

// mod.drop_multiples (E6, E22): (D*Q + R) mod D = R mod D for integer Q, and
// the constant reduces modulo D: (R' + k) mod D = (R' + (k - D*t)) mod D for
// any integer t. We take t = trunc(k / D), so |k| < D keeps its sign: a
// constraint written `(d1 - 3) mod 7` stays as XLA prints it rather than
// turning into `(d1 + 4) mod 7`, and the constant still only shrinks.
std::optional<Expr> DropMultiples(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  int64_t d = *in.d;
  DivisorSplit split = SplitByDivisor(in.sum, d);
  int64_t k = split.rest.constant % d;  // truncated: same sign, |k| < d
  if (split.quotient.terms.empty() && k == split.rest.constant)
    return std::nullopt;
  split.rest.constant = k;
  return rw.ctx()->Mod(BuildSum(rw.ctx(), split.rest), in.divisor);
}

// mod.of_mod (E21, generalized): a term c * (x mod A) with D | c*A can be
// replaced by c * x inside `mod D`, since
//   c * (x mod A) = c*x - (c*A) * floor(x / A) == c*x   (mod D).
// `(x mod 12) mod 4` -> `x mod 4`, `(x mod 4) * 2 mod 8` -> `(x * 2) mod 8`.
std::optional<Expr> ModOfMod(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  LinearSum out;
  out.constant = in.sum.constant;
  bool changed = false;
  for (const Term& t : in.sum.terms) {
    if (IsOpByPositiveConstant(t.expr, ExprKind::kMod)) {
      auto period = CheckedMul(t.coeff, t.expr.rhs().constant());
      if (period && *period % *in.d == 0) {
        if (!AddScaled(t.expr.lhs(), t.coeff, &out)) return std::nullopt;
        changed = true;
        continue;
      }
    }
    out.terms.push_back(t);
  }
  if (!changed || !Normalize(&out)) return std::nullopt;
  return rw.ctx()->Mod(BuildSum(rw.ctx(), out), in.divisor);
}

// mod.gcd_split (E5, E7, E8): a = h*H + L with h > 1 dividing D and the
// coefficients of H, and L in [0, h - 1] (see FindGcdSplit). With D = h*D':
//   (h*H + L) mod (h*D') = h * (H mod D') + L
// because h*H + L = h*D'*floor(H / D') + h*(H mod D') + L and
// 0 <= h*(H mod D') + L <= h*(D' - 1) + h - 1 < D.
// `(d0 * 12 + d1) mod 24` with d1 in [0, 11] -> `(d0 mod 2) * 12 + d1`.
std::optional<Expr> ModGcdSplitRule(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  auto split = FindGcdSplit(rw, in.sum, *in.d);
  if (!split) return std::nullopt;
  int64_t reduced = *in.d / split->h;
  Expr high = BuildSum(rw.ctx(), split->high);
  Expr low = BuildSum(rw.ctx(), split->low);
  Expr high_mod =
      reduced == 1 ? rw.Const(0) : rw.ctx()->Mod(high, rw.Const(reduced));
  return rw.ctx()->Add(rw.ctx()->Mul(high_mod, rw.Const(split->h)), low);
}

// mod.reduce_coefficients: as floordiv.reduce_coefficients, a = D*Q + R
// with R = sum r_i t_i + k in one period [m*D, m*D + D - 1], where r_i is
// the floor or ceiling remainder of c_i. Then
//   a mod D = a - D*floor(a / D) = D*Q + R - D*(Q + m) = R - m*D.
// `(d0 * 25 + d1) mod 24` with d0 in [0, 3], d1 in [0, 19] -> `d0 + d1`
// (25 = 24 + 1, d0 + d1 in [0, 22]). Fires only when the mod disappears.
std::optional<Expr> ModReduceCoefficients(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  auto split = FindPeriodSplit(rw, in.sum, *in.d);
  if (!split) return std::nullopt;
  return BuildSum(rw.ctx(), split->rest);
}

// mod.semi_affine_in_range: a non-constant divisor b with b >= lo > 0
// everywhere and 0 <= a < lo: a mod b = a.
std::optional<Expr> ModSemiAffineInRange(Rewriter&, const DivOperands& in) {
  if (in.d) return std::nullopt;
  const Interval& b = in.divisor_facts.range;
  const Interval& a = in.dividend_facts.range;
  if (!IsFinite(a) || b.lower <= 0 || b.lower == kInt64Max) return std::nullopt;
  if (a.lower >= 0 && a.upper < b.lower) return in.dividend;
  return std::nullopt;
}

// mod.negative_divisor: a divisor D < -1 becomes -D > 1 (see
// ViaPositiveDivisor), applied only when that removes a div/mod node.
std::optional<Expr> ModNegativeDivisor(Rewriter& rw, const DivOperands& in) {
  return ViaPositiveDivisor(rw, in, ExprKind::kMod);
}

// mod.coefficient_remainder: (c*t + R) mod D = ((c - q*D)*t + R) mod D for
// any integer q (the difference q*D*t is a multiple of D). A coefficient
// with |c| >= D becomes its truncated remainder c % D (same sign, as
// mod.drop_multiples does with the constant), so it only shrinks:
// `(d0 * 3) mod 2` -> `d0 mod 2`, `(d0 * 12) mod 8` ->(mod.gcd_split)
// `((d0 * 3) mod 2) * 4` -> `(d0 mod 2) * 4`, for every integer d0.
// Applied only to a dividend without finite bounds.
std::optional<Expr> ModCoefficientRemainder(Rewriter& rw,
                                            const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  // On a bounded dividend the range rules and box fits do better, and the
  // rewrite would only make the dividend differ from the one of a
  // floordiv partner (which sum.recombine_div_mod pairs on).
  if (IsFinite(in.dividend_facts.range)) return std::nullopt;
  const int64_t d = *in.d;
  LinearSum out = in.sum;
  bool changed = false;
  for (Term& t : out.terms) {
    // Only where the term gets smaller (coefficient +-1): a remainder
    // that is still a multiplier would only make the dividend differ from
    // the one of a floordiv partner (`(x * 128) mod 30` stays).
    if ((t.coeff >= d || t.coeff <= -d) &&
        (t.coeff % d == 1 || t.coeff % d == -1)) {
      t.coeff %= d;
      changed = true;
    }
  }
  if (!changed || !Normalize(&out)) return std::nullopt;
  return rw.ctx()->Mod(BuildSum(rw.ctx(), out), in.divisor);
}

// mod.rounded_dividend: with k*Y - k*(Y mod M) = (k*M) * (Y floordiv M) in
// the dividend and D | k*M, that part is a multiple of D and drops:
//   (k*Y - k*(Y mod M) + R) mod D = R mod D.
// `(d0 - d0 mod 12 + d1) mod 4` -> `d1 mod 4` for every integer d0.
std::optional<Expr> ModRoundedDividend(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  auto split = FindRoundedPart(in.sum, *in.d);
  if (!split) return std::nullopt;
  return rw.ctx()->Mod(BuildSum(rw.ctx(), split->rest), in.divisor);
}

// mod.variable_divisor_multiples: for a divisor n that is not a constant
// and whose sign is fixed on its range (n = 0, where the input has no
// value, may be an end), (n*Q + R) mod n = R mod n, since n*Q is a
// multiple of n. Q collects the terms n and (x * n):
// `(d0 * s0 + d1) mod s0` -> `d1 mod s0`, `(d0 * s0) mod s0` -> `0`.
std::optional<Expr> ModVariableDivisorMultiples(Rewriter& rw,
                                                const DivOperands& in) {
  auto split = SplitByVariableDivisor(in);
  if (!split) return std::nullopt;
  if (split->rest.IsConstant() && split->rest.constant == 0) {
    return rw.Const(0);
  }
  return rw.ctx()->Mod(BuildSum(rw.ctx(), split->rest), in.divisor);
}

constexpr DivRule kModRules[] = {
    {"mod.by_one", &ModByOne},
    {"mod.in_range", &InRange},
    {"mod.drop_multiples", &DropMultiples},
    {"mod.of_mod", &ModOfMod},
    {"mod.gcd_split", &ModGcdSplitRule},
    {"mod.reduce_coefficients", &ModReduceCoefficients},
    {"mod.semi_affine_in_range", &ModSemiAffineInRange},
    {"mod.coefficient_remainder", &ModCoefficientRemainder},
    {"mod.rounded_dividend", &ModRoundedDividend},
    {"mod.variable_divisor_multiples", &ModVariableDivisorMultiples},
    {"mod.negative_divisor", &ModNegativeDivisor},
};

}  // namespace

std::span<const DivRule> ModRules() { return kModRules; }

}  // namespace ixa::simp
