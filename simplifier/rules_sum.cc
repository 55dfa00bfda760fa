// Rules for sums (docs/xla-reference.md §(c) E15-E17, E24).
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
// Termination: each rule here removes at least one div/mod node from the
// sum and adds at most the ones already inside y; the rules of
// rules_sum_merge.cc (listed in the same table) give their own argument.
#include <array>

#include "simplifier/rule_util.h"
#include "simplifier/rules_sum_extra.h"

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

// The congruent case of sum.recombine_div_mod: a term (kb) * (y' floordiv b)
// whose dividend differs from the mod's dividend y by b times an integer
// affine form (every coefficient and the constant of y' - y divisible by b).
// Then y' mod b = y mod b and
//   k * (y mod b) + (k*b) * (y' floordiv b) = k * y'.
// `((X + 3444) floordiv 5) * 5 + (X + 4) mod 5` -> `X + 3444`. On success
// *out is the rewritten sum.
bool RecombineCongruent(const LinearSum& sum, const Term& m, int64_t kb,
                        LinearSum* out) {
  Expr b = m.expr.rhs();
  auto yl = ToLinear(m.expr.lhs());
  if (!yl) return false;
  for (const Term& t : sum.terms) {
    if (t.coeff != kb || kb == kInt64Min ||
        t.expr.kind() != ExprKind::kFloorDiv || t.expr.rhs() != b ||
        t.expr.lhs() == m.expr.lhs()) {
      continue;
    }
    auto diff = ToLinear(t.expr.lhs());
    if (!diff || !AddScaled(*yl, -1, &*diff) || !Normalize(&*diff)) continue;
    int64_t d = b.constant();
    bool congruent = diff->constant % d == 0;
    for (const Term& u : diff->terms) congruent &= u.coeff % d == 0;
    if (!congruent) continue;
    LinearSum next = sum;
    next.terms.push_back({m.expr, -m.coeff});
    next.terms.push_back({t.expr, -t.coeff});
    if (!AddScaled(t.expr.lhs(), m.coeff, &next)) return false;
    *out = std::move(next);
    return true;
  }
  return false;
}

// sum.recombine_div_mod (E15, E24):
//   k * (y mod b) + (k*b) * Q  ->  k * y     where Q = simplify(y floordiv b)
// since k*y = k*(b*(y floordiv b) + y mod b). Q may itself be a sum (then all
// of its terms must be present with k*b times their coefficient; its
// constant is absorbed by the sum's constant). Covers
// `(x mod c)*k + (x floordiv c)*(c*k)` -> `x*k` in any operand order. The
// floordiv partner may also have a congruent dividend (RecombineCongruent).
bool RecombineDivMod(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  for (const Term& m : sum->terms) {
    if (!IsOpByPositiveConstant(m.expr, ExprKind::kMod)) continue;
    Expr y = m.expr.lhs();
    int64_t b = m.expr.rhs().constant();
    auto kb = CheckedMul(m.coeff, b);
    // Both are negated below.
    if (!kb || *kb == kInt64Min || m.coeff == kInt64Min) continue;
    Expr q = rw.Simplify(rw.ctx()->FloorDiv(y, m.expr.rhs()));
    auto ql = ToLinear(q);
    if (ql && ContainsScaled(*sum, *ql, *kb)) {
      LinearSum out = *sum;
      Expr mod_term = m.expr;
      int64_t k = m.coeff;
      if (AddScaled(*ql, -*kb, &out) && AddScaled(y, k, &out)) {
        out.terms.push_back({mod_term, -k});
        *sum = std::move(out);
        return true;
      }
    }
    LinearSum out;
    if (RecombineCongruent(*sum, m, *kb, &out)) {
      *sum = std::move(out);
      return true;
    }
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
      if (u.expr == t.expr || u.coeff == 0 || u.coeff == kInt64Min ||
          a % u.coeff != 0) {
        continue;
      }
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
    std::optional<Expr> sole = SoleVariable(sum->terms[i].expr);
    if (!sole || CountDivMod(sum->terms[i].expr) == 0) continue;
    const Expr x = *sole;
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

// sum.affine_on_box: the div/mod terms of a sum, grouped into components
// that share variables, are fitted as a whole on their variables' box
// (Rewriter::AffineOnBox: every point checked, hence exact). A component
// that is affine there is replaced by its affine form. This is the
// catch-all for towers whose pieces cancel only together, e.g.
// `((X + 3444) floordiv 5) * 5 + (X + 4) mod 5` over a small box.
// Single div/mod terms were already tried as nodes (div.affine_on_box), so
// a component needs two terms, a non-div term (a semi-affine product) or a
// coefficient other than +-1 (on a variable restricted by a constraint,
// `((d0 - 1) floordiv 2) * 2` is `d0 - 1` for odd d0, while the floordiv
// alone has slope 1/2).
// Termination: removes at least one div/mod term and adds none.
bool AffineOnBox(Rewriter& rw, LinearSum* sum) {
  constexpr size_t kMaxDivTerms = 8;
  auto needs_own_try = [](const Term& t) {
    return t.expr.kind() == ExprKind::kMul || (t.coeff != 1 && t.coeff != -1);
  };
  // div_terms[k]: index of the k-th term with a div/mod node, vars[k] its
  // variables (count -1: too many to fit).
  std::array<size_t, kMaxDivTerms> div_terms{};
  std::array<std::array<Expr, kMaxBoxVariables>, kMaxDivTerms> vars;
  std::array<int, kMaxDivTerms> var_count{};
  size_t n = 0;
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Expr t = sum->terms[i].expr;
    if (t.IsVariable() || CountDivMod(t) == 0) continue;
    if (n == kMaxDivTerms) return false;
    div_terms[n++] = i;
  }
  // Fast exit: a single plain div/mod term was already tried as a node.
  if (n == 0 || (n == 1 && !needs_own_try(sum->terms[div_terms[0]]))) {
    return false;
  }
  for (size_t k = 0; k < n; ++k) {
    if (!CollectVariables(sum->terms[div_terms[k]].expr, vars[k],
                          &var_count[k])) {
      var_count[k] = -1;
    }
  }
  // component[k]: the component of div_terms[k]; merge while any two
  // components share a variable (few terms: quadratic is fine).
  std::array<size_t, kMaxDivTerms> component{};
  for (size_t k = 0; k < n; ++k) component[k] = k;
  auto shares = [&](size_t a, size_t b) {
    for (int i = 0; i < var_count[a]; ++i) {
      for (int j = 0; j < var_count[b]; ++j) {
        if (vars[a][i] == vars[b][j]) return true;
      }
    }
    return false;
  };
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = a + 1; b < n; ++b) {
        if (component[a] != component[b] && shares(a, b)) {
          size_t from = component[b], to = component[a];
          for (size_t k = 0; k < n; ++k) {
            if (component[k] == from) component[k] = to;
          }
          merged = true;
        }
      }
    }
  }
  for (size_t root = 0; root < n; ++root) {
    LinearSum part;
    bool fittable = true;
    for (size_t k = 0; k < n; ++k) {
      if (component[k] != root) continue;
      part.terms.push_back(sum->terms[div_terms[k]]);
      fittable &= var_count[k] >= 0;
    }
    if (part.terms.empty() || !fittable) continue;
    bool lone = part.terms.size() == 1;
    if (lone && !needs_own_try(part.terms[0])) continue;
    // A lone scaled div/mod term can only become affine through a
    // constraint-filtered value list (see Rewriter::AffineOnBox).
    bool needs_list = lone && part.terms[0].expr.kind() != ExprKind::kMul;
    auto fit = rw.AffineOnBox(BuildSum(rw.ctx(), part), needs_list);
    if (!fit) continue;
    LinearSum out;
    out.constant = sum->constant;
    for (size_t i = 0; i < sum->terms.size(); ++i) {
      bool in_part = false;
      for (size_t k = 0; k < n; ++k) {
        in_part |= component[k] == root && div_terms[k] == i;
      }
      if (!in_part) out.terms.push_back(sum->terms[i]);
    }
    if (!AddScaled(*fit, 1, &out)) continue;
    *sum = std::move(out);
    return true;
  }
  return false;
}

constexpr SumRule kSumRules[] = {
    {"sum.recombine_div_mod", &RecombineDivMod},
    {"sum.mod_from_div", &ModFromDiv},
    {"sum.affine_in_one_variable", &AffineInOneVariable},
    {"sum.merge_floordiv", &MergeFloorDiv, kNeedsFloorDiv},
    {"sum.floordiv_difference", &FloorDivDifference, kNeedsFloorDiv},
    {"sum.mod_from_div_partial", &ModFromDivPartial, kNeedsFloorDiv},
    {"sum.round_down", &RoundDown, kNeedsMod},
    {"sum.recombine_variable_divisor", &RecombineVariableDivisor,
     kNeedsProduct},
    {"sum.merge_mod_tower", &MergeModTower, kNeedsTwoMods},
    {"sum.minmax_pair", &MinMaxPair, kNeedsMinMax},
    {"sum.minmax_difference", &MinMaxDifference, kNeedsMinMax},
    {"sum.product_min_max", &ProductMinMax, kNeedsProduct},
    {"sum.push_into_minmax", &PushIntoMinMax, kNeedsMinMax},
    {"sum.factor", &Factor, kNeedsProduct},
    {"sum.affine_on_box", &AffineOnBox},
};

}  // namespace

std::span<const SumRule> SumRules() { return kSumRules; }

}  // namespace ixa::simp
