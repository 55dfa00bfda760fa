// Rules for sums (spec/xla-reference.md §(c) E15-E17, E24).
//
// Canonicalization (E2 distribution, E17 sorting and merging like terms) is
// not a rule here: the rewriter flattens every +/* tree into a LinearSum,
// which makes `a + b` and `b + a` the same sum. The rules below pair a
// floordiv term with a mod term (or with the terms of its own dividend)
// through the identity
//   y = c * (y floordiv c) + y mod c                     (c != 0).
// Both match the partner term through the *simplified* form of
// `y floordiv c`, so towers like ((L floordiv 16) mod 3) * 16 pair with
// L floordiv 48 however the tower was written, which is what makes chains
// of linearize/delinearize (reshapes) cancel.
//
// Termination: each rule removes at least one div/mod node from the sum and
// adds at most the ones already inside y.
#include "simplifier/rule_util.h"

namespace ixa::simp {

namespace {

// True if every term of `part` appears in `sum` with exactly scale times its
// coefficient.
bool ContainsScaled(const LinearSum& sum, const LinearSum& part,
                    int64_t scale) {
  if (part.terms.empty()) return false;
  for (const Term& t : part.terms) {
    auto want = CheckedMul(t.coeff, scale);
    if (!want || sum.CoeffOf(t.expr) != *want) return false;
  }
  return true;
}

// sum.recombine_div_mod (E15, E24):
//   k * (y mod b) + (k*b) * Q  ->  k * y     where Q = simplify(y floordiv b)
// since k*y = k*(b*(y floordiv b) + y mod b). Q may itself be a sum (then all
// of its terms must be present with k*b times their coefficient; its
// constant is absorbed by the sum's constant). Covers
// `(x mod c)*k + (x floordiv c)*(c*k)` -> `x*k` in any operand order.
bool RecombineDivMod(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  for (const Term& m : sum->terms) {
    if (!IsOpByPositiveConstant(m.expr, ExprKind::kMod)) continue;
    Expr y = m.expr.lhs();
    int64_t b = m.expr.rhs().constant();
    auto kb = CheckedMul(m.coeff, b);
    if (!kb || m.coeff == kInt64Min) continue;
    Expr q = rw.Simplify(rw.ctx()->FloorDiv(y, m.expr.rhs()));
    auto ql = ToLinear(q);
    if (!ql || !ContainsScaled(*sum, *ql, *kb)) continue;
    LinearSum out = *sum;
    Expr mod_term = m.expr;
    int64_t k = m.coeff;
    if (!AddScaled(*ql, -*kb, &out)) continue;
    out.terms.push_back({mod_term, -k});
    if (!AddScaled(y, k, &out)) continue;
    *sum = std::move(out);
    return true;
  }
  return false;
}

// sum.mod_from_div (E16): prefer mod over a negative floordiv term.
//   b*y - (b*c) * (y floordiv c)  ->  b * (y mod c)
// since y - c*(y floordiv c) = y mod c. Two ways to find y:
//  (A) y is the floordiv's own dividend: the sum contains b*y term by term
//      (`s0 + s1*32 - (s0 floordiv 32)*32` -> `s0 mod 32 + s1*32`);
//  (B) y is another term U of the sum with simplify(U floordiv c) equal to
//      the floordiv term (`(L floordiv 16) - (L floordiv 48)*3` ->
//      `(L floordiv 16) mod 3`).
bool ModFromDiv(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  for (const Term& t : sum->terms) {
    if (!IsOpByPositiveConstant(t.expr, ExprKind::kFloorDiv)) continue;
    int64_t a = t.coeff;
    int64_t c = t.expr.rhs().constant();
    if (a == kInt64Min) continue;  // keeps the negations below exact
    // (A)
    if (a % c == 0) {
      int64_t b = -(a / c);
      Expr y = t.expr.lhs();
      auto yl = ToLinear(y);
      if (yl && ContainsScaled(*sum, *yl, b)) {
        LinearSum out = *sum;
        Expr mod = rw.Simplify(rw.ctx()->Mod(y, t.expr.rhs()));
        if (AddScaled(*yl, -b, &out) && AddScaled(mod, b, &out)) {
          out.terms.push_back({t.expr, -a});
          *sum = std::move(out);
          return true;
        }
      }
    }
    // (B)
    for (const Term& u : sum->terms) {
      if (u.expr == t.expr || u.coeff == 0 || a % u.coeff != 0) continue;
      if (u.expr.kind() != ExprKind::kFloorDiv) continue;
      int64_t ratio = -(a / u.coeff);
      if (ratio <= 1) continue;
      Expr ratio_expr = rw.Const(ratio);
      if (rw.Simplify(rw.ctx()->FloorDiv(u.expr, ratio_expr)) != t.expr) {
        continue;
      }
      LinearSum out = *sum;
      Expr mod = rw.Simplify(rw.ctx()->Mod(u.expr, ratio_expr));
      if (!AddScaled(mod, u.coeff, &out)) continue;
      out.terms.push_back({u.expr, -u.coeff});
      out.terms.push_back({t.expr, -a});
      *sum = std::move(out);
      return true;
    }
  }
  return false;
}

// sum.affine_in_one_variable: the div/mod terms of a sum that mention only
// the variable x (and nothing else), taken together with x's own term, are
// probed at every value of x (at most kMaxAffineProbe values); if their sum
// is affine in x it replaces them. Exhaustive, hence exact. This catches
// towers that pieces of the sum simplified separately (so the pairing rules
// no longer see them), e.g. `(L floordiv 8) * 8 + ((L floordiv 4) mod 2) * 4
// + L mod 4` after `L mod 4` became affine. Termination: removes at least
// two div/mod terms (single terms were already tried on their own).
bool AffineInOneVariable(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    Expr x = SoleVariable(sum->terms[i].expr);
    if (!x || CountDivMod(sum->terms[i].expr) == 0) continue;
    // Group: every term whose only variable is x.
    LinearSum group;
    int div_terms = 0;
    for (const Term& t : sum->terms) {
      if (SoleVariable(t.expr) != x) continue;
      group.terms.push_back(t);
      div_terms += CountDivMod(t.expr) > 0;
    }
    if (div_terms < 2) continue;
    Expr partial = BuildSum(rw.ctx(), group);
    auto fit = AffineFit(partial, x, rw.FactsOf(x).range, kMaxAffineProbe);
    if (!fit) continue;
    LinearSum out;
    out.constant = sum->constant;
    for (const Term& t : sum->terms) {
      if (SoleVariable(t.expr) != x) out.terms.push_back(t);
    }
    auto k = CheckedAdd(out.constant, fit->offset);
    if (!k) continue;
    out.constant = *k;
    if (fit->slope != 0) out.terms.push_back({x, fit->slope});
    *sum = std::move(out);
    return true;
  }
  return false;
}

constexpr SumRule kSumRules[] = {
    {"sum.recombine_div_mod", &RecombineDivMod},
    {"sum.mod_from_div", &ModFromDiv},
    {"sum.affine_in_one_variable", &AffineInOneVariable},
};

}  // namespace

std::span<const SumRule> SumRules() { return kSumRules; }

}  // namespace ixa::simp
