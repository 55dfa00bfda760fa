// More rules for sums: floordiv/mod pairs that merge (rules_sum.cc has
// the div/mod recombination), variable divisors, min/max terms and common
// factors of products. The identities are the ones in rules_sum.cc's
// header plus, for D > 0 and any integers X, R,
//   (X + R) floordiv D = X floordiv D + (X mod D + R) floordiv D    (*)
// (write X = D*(X floordiv D) + X mod D).
//
// Termination: sum.merge_floordiv, sum.floordiv_difference,
// sum.merge_mod_tower, sum.recombine_variable_divisor, sum.minmax_pair,
// sum.minmax_difference and sum.product_min_max remove a div/mod or min/max
// node, or merge two terms into one; sum.round_down removes the terms of
// Y (and turns Y mod M into Y floordiv M: the rules that turn a floordiv
// term back into a mod term, sum.mod_from_div and
// sum.mod_from_div_partial, need terms of Y in the sum, and none is left);
// sum.mod_from_div_partial replaces a floordiv term by a mod term (no sum rule
// turns a mod term back into a floordiv term without removing terms);
// sum.push_into_minmax and sum.factor make the sum's tree strictly smaller. No
// rule distributes a product over a sum (the rewriter keeps a semi-affine
// product as one term), so factoring does not cycle.
#include <algorithm>
#include <utility>

#include "simplifier/rule_util.h"
#include "simplifier/rules_sum_extra.h"

namespace ixa::simp {

namespace {

uint32_t MergedSumSize(ExprContext* ctx, const LinearSum& sum) {
  return BuildSum(ctx, sum).tree_size();
}

// The sum without terms i and j (j may be -1: none).
LinearSum SumWithout(const LinearSum& sum, size_t i, int j = -1) {
  LinearSum out;
  out.constant = sum.constant;
  for (size_t k = 0; k < sum.terms.size(); ++k) {
    if (k != i && static_cast<int>(k) != j) out.terms.push_back(sum.terms[k]);
  }
  return out;
}

bool IsMinOrMax(Expr e) {
  return e.kind() == ExprKind::kMin || e.kind() == ExprKind::kMax;
}

}  // namespace

// sum.mod_from_div_partial: sum.mod_from_div when the sum holds only part
// P of the floordiv's dividend y = P + Q (b*P with b = -a/c for the term
// a * (y floordiv c)):
//   b*P + a*(y floordiv c) = b*y - b*Q - (b*c)*(y floordiv c)
//                          = b*(y mod c) - b*Q.
// Applied when the result is no larger: `d0 - ((d0 + d1) floordiv 7) * 7`
// -> `(d0 + d1) mod 7 - d1`.
bool ModFromDivPartial(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  uint32_t before = 0;
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term t = sum->terms[i];
    if (t.expr.kind() != ExprKind::kFloorDiv ||
        !IsOpByPositiveConstant(t.expr, ExprKind::kFloorDiv)) {
      continue;
    }
    const int64_t c = t.expr.rhs().constant();
    if (t.coeff == kInt64Min || t.coeff % c != 0) continue;
    const int64_t b = -(t.coeff / c);
    if (t.expr.lhs().kind() != ExprKind::kAdd) continue;
    auto y = ToLinear(t.expr.lhs());
    if (!y || y->terms.size() < 2) continue;
    // P: the terms of y present with b times their coefficient.
    LinearSum part, rest;
    rest.constant = y->constant;
    for (const Term& u : y->terms) {
      auto want = CheckedMul(u.coeff, b);
      if (want && sum->CoeffOf(u.expr) == *want) {
        part.terms.push_back(u);
      } else {
        rest.terms.push_back(u);
      }
    }
    if (part.terms.empty() || rest.terms.empty()) continue;
    if (before == 0) before = MergedSumSize(rw.ctx(), *sum);
    LinearSum out = SumWithout(*sum, i);
    // The size test uses the mod node as written (simplifying it only
    // makes it smaller): nothing is simplified speculatively here.
    Expr mod = rw.ctx()->Mod(t.expr.lhs(), t.expr.rhs());
    if (!AddScaled(part, -b, &out) || !AddScaled(rest, -b, &out) ||
        !AddScaled(mod, b, &out)) {
      continue;
    }
    if (!Normalize(&out)) continue;
    if (MergedSumSize(rw.ctx(), out) > before) continue;
    LinearSum simplified;
    simplified.constant = out.constant;
    bool ok = true;
    for (const Term& u : out.terms) {
      ok = ok && AddScaled(u.expr == mod ? rw.Simplify(mod) : u.expr, u.coeff,
                           &simplified);
    }
    if (!ok || !Normalize(&simplified)) continue;
    out = std::move(simplified);
    *sum = std::move(out);
    return true;
  }
  return false;
}

// sum.merge_floordiv: by (*), k*((X mod D + R) floordiv D) + k*Q = k*((X +
// R) floordiv D), where Q = simplify(X floordiv D) is in the sum with k
// times its coefficients: `(d0 mod 4 + 9) floordiv 4 + d0 floordiv 4` ->
// `(d0 + 9) floordiv 4`.
bool MergeFloorDiv(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term t = sum->terms[i];
    if (t.expr.kind() != ExprKind::kFloorDiv ||
        !IsOpByPositiveConstant(t.expr, ExprKind::kFloorDiv)) {
      continue;
    }
    const Expr d = t.expr.rhs();
    // A summand `X mod D` of the dividend's (left-nested) sum, before the
    // dividend is read as a linear sum.
    bool has_mod = false;
    for (Expr e = t.expr.lhs(); !has_mod && e.kind() == ExprKind::kAdd;
         e = e.lhs()) {
      has_mod =
          e.rhs().kind() == ExprKind::kMod || e.lhs().kind() == ExprKind::kMod;
    }
    if (!has_mod) continue;
    auto dividend = ToLinear(t.expr.lhs());
    if (!dividend) continue;
    for (const Term& u : dividend->terms) {
      if (u.coeff != 1 || u.expr.kind() != ExprKind::kMod ||
          u.expr.rhs() != d) {
        continue;
      }
      const Expr x = u.expr.lhs();
      Expr q = rw.Simplify(rw.ctx()->FloorDiv(x, d));
      auto ql = ToLinear(q);
      if (!ql || !HasScaledPart(*sum, *ql, t.coeff)) continue;
      // X + R: the dividend with X mod D replaced by X.
      LinearSum merged = *dividend;
      merged.terms.push_back({u.expr, -1});
      LinearSum out = SumWithout(*sum, i);
      if (!AddScaled(x, 1, &merged) || !Normalize(&merged) ||
          !AddScaled(*ql, -t.coeff, &out)) {
        continue;
      }
      Expr floor = rw.ctx()->FloorDiv(BuildSum(rw.ctx(), merged), d);
      if (!AddScaled(floor, t.coeff, &out) || !Normalize(&out)) continue;
      *sum = std::move(out);
      return true;
    }
  }
  return false;
}

// sum.round_down: Y - Y mod M = M * (Y floordiv M) for M > 0 (the
// definition of mod), so
//   k*Y - k*(Y mod M) + Z = (k*M) * (Y floordiv M) + Z,
// which is always smaller (Y's terms go; the mod node becomes the
// floordiv node): `d0 - d0 mod 3` -> `(d0 floordiv 3) * 3`, as TVM writes
// a value rounded down. FindRoundedPart finds the part (every term of Y
// with k times its coefficient).
bool RoundDown(Rewriter& rw, LinearSum* sum) {
  auto part = FindRoundedPart(*sum, 1);
  if (!part) return false;
  LinearSum out = std::move(part->rest);
  if (!AddScaled(rw.Simplify(rw.ctx()->FloorDiv(part->y, part->m)),
                 part->factor, &out) ||
      !Normalize(&out)) {
    return false;
  }
  *sum = std::move(out);
  return true;
}

// sum.floordiv_difference: by (*) with F = X + R,
//   k*(F floordiv D) - k*(X floordiv D) = k*((X mod D + R) floordiv D),
// applied when the result is smaller: `(d0 + 3) floordiv 4 - d0 floordiv 4`
// -> `(d0 mod 4 + 3) floordiv 4`, and `(d0 + 5) floordiv 3 - (d0 + 2)
// floordiv 3` -> `1` once the new floordiv simplifies.
bool FloorDivDifference(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  uint32_t before = 0;
  // The sum with terms i (F floordiv D) and j (X floordiv D) merged, and
  // its size; nullopt when they do not pair or the result is no smaller.
  auto merge = [&](size_t i,
                   size_t j) -> std::optional<std::pair<LinearSum, uint32_t>> {
    const Term f = sum->terms[i];
    const Term x = sum->terms[j];
    if (i == j || x.coeff == kInt64Min || f.coeff != -x.coeff ||
        x.expr.kind() != ExprKind::kFloorDiv || x.expr.rhs() != f.expr.rhs()) {
      return std::nullopt;
    }
    auto fl = ToLinear(f.expr.lhs());
    auto xl = ToLinear(x.expr.lhs());
    if (!fl || !xl) return std::nullopt;
    LinearSum r = *fl;
    if (!AddScaled(*xl, -1, &r) || !Normalize(&r)) return std::nullopt;
    // Cheap filter: R must be smaller than what it replaces.
    if (r.terms.size() > xl->terms.size() ||
        r.terms.size() > fl->terms.size()) {
      return std::nullopt;
    }
    ExprContext* ctx = rw.ctx();
    LinearSum inner = r;
    if (!AddScaled(ctx->Mod(x.expr.lhs(), x.expr.rhs()), 1, &inner) ||
        !Normalize(&inner)) {
      return std::nullopt;
    }
    Expr merged =
        rw.Simplify(ctx->FloorDiv(BuildSum(ctx, inner), f.expr.rhs()));
    LinearSum out = SumWithout(*sum, i, static_cast<int>(j));
    if (!AddScaled(merged, f.coeff, &out) || !Normalize(&out)) {
      return std::nullopt;
    }
    if (before == 0) before = MergedSumSize(ctx, *sum);
    uint32_t size = MergedSumSize(ctx, out);
    if (size >= before) return std::nullopt;
    return std::make_pair(std::move(out), size);
  };
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term f = sum->terms[i];
    if (f.expr.kind() != ExprKind::kFloorDiv ||
        !IsOpByPositiveConstant(f.expr, ExprKind::kFloorDiv)) {
      continue;
    }
    for (size_t j = 0; j < sum->terms.size(); ++j) {
      auto found = merge(i, j);
      if (!found) continue;
      // The pair read the other way round gives another form; the
      // smaller wins (`(x + 1) floordiv 2 - x floordiv 2` is `x mod 2`
      // read one way, `-((x + 1) mod 2) + 1` the other).
      auto reverse = merge(j, i);
      *sum =
          std::move(reverse && reverse->second < found->second ? reverse->first
                                                               : found->first);
      return true;
    }
  }
  return false;
}

// sum.recombine_variable_divisor: for a divisor n whose sign is fixed on
// its range (SignFixed: n = 0 has no value), y = n*(y floordiv n) +
// y mod n, so
//   k*((y floordiv n) * n) + k*(y mod n)  ->  k*y, and
//   k*y - k*((y floordiv n) * n)          ->  k*(y mod n).
// `(d0 floordiv s0) * s0 + d0 mod s0` -> `d0`.
bool RecombineVariableDivisor(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term p = sum->terms[i];
    if (p.expr.kind() != ExprKind::kMul) continue;
    // The product's floordiv factor and the other factor n.
    Expr div = p.expr.lhs(), n = p.expr.rhs();
    if (div.kind() != ExprKind::kFloorDiv || div.rhs() != n) std::swap(div, n);
    if (div.kind() != ExprKind::kFloorDiv || div.rhs() != n) continue;
    if (n.IsConstant() || !SignFixed(rw.FactsOf(n).range)) continue;
    const Expr y = div.lhs();
    ExprContext* ctx = rw.ctx();
    const Expr mod = ctx->Mod(y, n);
    LinearSum out = SumWithout(*sum, i);
    if (sum->CoeffOf(mod) == p.coeff) {
      out.terms.push_back({mod, -p.coeff});
      if (!AddScaled(y, p.coeff, &out) || !Normalize(&out)) continue;
      *sum = std::move(out);
      return true;
    }
    auto yl = ToLinear(y);
    auto k = CheckedNeg(p.coeff);
    if (!yl || !k || !HasScaledPart(*sum, *yl, *k)) continue;
    if (!AddScaled(*yl, -*k, &out)) continue;
    // y's constant was part of the sum's constant: it stays in y mod n.
    if (!AddScaled(rw.Simplify(mod), *k, &out) || !Normalize(&out)) continue;
    *sum = std::move(out);
    return true;
  }
  return false;
}

// sum.minmax_pair: min(a, b) + max(a, b) = a + b (one of them is a, the
// other b), with the same coefficient k on both.
bool MinMaxPair(Rewriter&, LinearSum* sum) {
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term m = sum->terms[i];
    if (m.expr.kind() != ExprKind::kMin) continue;
    for (size_t j = 0; j < sum->terms.size(); ++j) {
      const Term x = sum->terms[j];
      if (x.expr.kind() != ExprKind::kMax || x.coeff != m.coeff) continue;
      Expr a = m.expr.lhs(), b = m.expr.rhs();
      bool same = (x.expr.lhs() == a && x.expr.rhs() == b) ||
                  (x.expr.lhs() == b && x.expr.rhs() == a);
      if (!same) continue;
      LinearSum out = SumWithout(*sum, i, static_cast<int>(j));
      if (!AddScaled(a, m.coeff, &out) || !AddScaled(b, m.coeff, &out)) {
        continue;
      }
      *sum = std::move(out);
      return true;
    }
  }
  return false;
}

// sum.merge_mod_tower: y mod (b*M) = b * ((y floordiv b) mod M) + y mod b
// (b, M > 0; write y = b*M*q + b*u + v with 0 <= u < M, 0 <= v < b), so
//   k*(y mod b) + (k*b)*(Q mod M) -> k*(y mod (b*M))
// where Q is the node y floordiv b: `d0 mod 4 + ((d0 floordiv 4) mod 4) *
// 4` -> `d0 mod 16` for every integer d0.
bool MergeModTower(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term low = sum->terms[i];
    if (!IsOpByPositiveConstant(low.expr, ExprKind::kMod)) continue;
    const Expr y = low.expr.lhs();
    const int64_t b = low.expr.rhs().constant();
    auto kb = CheckedMul(low.coeff, b);
    if (!kb) continue;
    for (size_t j = 0; j < sum->terms.size(); ++j) {
      const Term high = sum->terms[j];
      if (j == i || high.coeff != *kb ||
          !IsOpByPositiveConstant(high.expr, ExprKind::kMod)) {
        continue;
      }
      // The tower as floordiv.of_mod writes it: (y floordiv b) mod M.
      const Expr q = high.expr.lhs();
      if (q.kind() != ExprKind::kFloorDiv || q.lhs() != y ||
          q.rhs() != low.expr.rhs()) {
        continue;
      }
      auto bm = CheckedMul(b, high.expr.rhs().constant());
      if (!bm) continue;
      LinearSum out = SumWithout(*sum, i, static_cast<int>(j));
      Expr merged = rw.ctx()->Mod(y, rw.Const(*bm));
      if (!AddScaled(merged, low.coeff, &out)) continue;
      *sum = std::move(out);
      return true;
    }
  }
  return false;
}

// sum.minmax_difference: k*M1 - k*M2 = k*c when M1 and M2 are min / max of
// the same kind whose operands pair up as o1 = o2 + c with one constant c
// (min(a + c, b + c) = min(a, b) + c): `min(d0 + 10, d1 + 1) - min(d0, d1
// - 9)` -> `10`.
bool MinMaxDifference(Rewriter&, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term a = sum->terms[i];
    if (!IsMinOrMax(a.expr) || a.coeff == kInt64Min) continue;
    for (size_t j = 0; j < sum->terms.size(); ++j) {
      const Term b = sum->terms[j];
      if (j == i || b.expr.kind() != a.expr.kind() || b.coeff != -a.coeff) {
        continue;
      }
      // Binary nodes: pair lhs with lhs or with rhs.
      std::optional<int64_t> shift;
      for (int swap = 0; swap < 2 && !shift; ++swap) {
        Expr b0 = swap ? b.expr.rhs() : b.expr.lhs();
        Expr b1 = swap ? b.expr.lhs() : b.expr.rhs();
        auto d0 = ToLinear(a.expr.lhs());
        auto d1 = ToLinear(a.expr.rhs());
        if (!d0 || !d1 || !AddScaled(b0, -1, &*d0) || !Normalize(&*d0) ||
            !AddScaled(b1, -1, &*d1) || !Normalize(&*d1)) {
          continue;
        }
        if (d0->IsConstant() && d1->IsConstant() &&
            d0->constant == d1->constant) {
          shift = d0->constant;
        }
      }
      if (!shift) continue;
      auto delta = CheckedMul(a.coeff, *shift);
      if (!delta) continue;
      LinearSum out = SumWithout(*sum, i, static_cast<int>(j));
      auto k = CheckedAdd(out.constant, *delta);
      if (!k) continue;
      out.constant = *k;
      *sum = std::move(out);
      return true;
    }
  }
  return false;
}

namespace {

// Whether minmax.common_part would move the pushed part (a term, or a
// constant) straight out of the pushed operands again: then pushing
// gains nothing, and simplifying the pushed min / max would come back
// here.
bool SharedAfterPush(const std::vector<LinearSum>& forms,
                     const LinearSum& part) {
  if (part.terms.empty()) {
    // The constant common to every non-constant operand.
    std::optional<int64_t> common;
    for (const LinearSum& f : forms) {
      if (f.IsConstant()) continue;
      if (common && *common != f.constant) return false;
      common = f.constant;
    }
    return common && *common != 0;
  }
  const Expr e = part.terms[0].expr;
  const int64_t first = forms[0].CoeffOf(e);
  if (first == 0) return false;
  for (const LinearSum& f : forms) {
    if (f.CoeffOf(e) != first) return false;
  }
  return true;
}

}  // namespace

// sum.push_into_minmax: c*M + L = c*(M + c*L) for c = +-1, and
// min(a, b) + L = min(a + L, b + L) (likewise max), so a term L (a term of
// the sum, or its constant) moves into every operand of a min / max term.
// Applied when the sum gets strictly smaller: `min(d0, d1 - d2) + d2` ->
// `min(d0 + d2, d1)`, `min(d0 + 2, d1 + 3) - 2` -> `min(d0, d1 + 1)`,
// `max(0, 1 - d0 * 4) + d0 * 4` -> `max(d0 * 4, 1)`.
bool PushIntoMinMax(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() + (sum->constant != 0) < 2) return false;
  uint32_t before = 0;
  ExprContext* ctx = rw.ctx();
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term t = sum->terms[i];
    if (!IsMinOrMax(t.expr) || (t.coeff != 1 && t.coeff != -1)) continue;
    const int64_t c = t.coeff;
    std::vector<Expr> ops, stack = {t.expr};
    while (!stack.empty()) {
      Expr top = stack.back();
      stack.pop_back();
      if (top.kind() == t.expr.kind()) {
        stack.push_back(top.rhs());
        stack.push_back(top.lhs());
      } else {
        ops.push_back(top);
      }
    }
    // Candidates: the constant (index -1), then every other term.
    for (int j = -1; j < static_cast<int>(sum->terms.size()); ++j) {
      if (j == static_cast<int>(i)) continue;
      LinearSum part;
      if (j < 0) {
        if (sum->constant == 0) continue;
        part.constant = sum->constant;
      } else {
        part.terms.push_back(sum->terms[j]);
      }
      std::vector<LinearSum> forms;
      for (Expr o : ops) {
        auto f = ToLinear(o);
        if (!f || !AddScaled(part, c, &*f) || !Normalize(&*f)) break;
        forms.push_back(std::move(*f));
      }
      if (forms.size() != ops.size() || SharedAfterPush(forms, part)) continue;
      Expr pushed;
      for (const LinearSum& f : forms) {
        Expr x = BuildSum(ctx, f);
        pushed = pushed ? ctx->Binary(t.expr.kind(), pushed, x) : x;
      }
      pushed = rw.Simplify(pushed);
      LinearSum out = j < 0 ? SumWithout(*sum, i) : SumWithout(*sum, i, j);
      if (j < 0) out.constant = 0;
      if (!AddScaled(pushed, c, &out) || !Normalize(&out)) continue;
      if (before == 0) before = MergedSumSize(ctx, *sum);
      if (MergedSumSize(ctx, out) >= before) continue;
      *sum = std::move(out);
      return true;
    }
  }
  return false;
}

namespace {

// The factors of a term: a semi-affine product's two operands, else the
// term itself (times 1).
int ProductFactors(Expr e, Expr out[2]) {
  if (e.kind() == ExprKind::kMul) {
    out[0] = e.lhs();
    out[1] = e.rhs();
    return 2;
  }
  out[0] = e;
  return 1;
}

}  // namespace

// sum.factor: k1*(f*a) + k2*(f*b) = f*(k1*a + k2*b) for a factor f shared
// by two terms, at least one of them a product (a term f itself is f*1).
// Applied when the sum gets strictly smaller: `d0 * s0 + d0 * 10` ->
// `d0 * (s0 + 10)`; `d0 * s0 + d0` stays (same size).
bool Factor(Rewriter& rw, LinearSum* sum) {
  if (sum->terms.size() < 2) return false;
  uint32_t before = 0;
  ExprContext* ctx = rw.ctx();
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term a = sum->terms[i];
    if (a.expr.kind() != ExprKind::kMul) continue;
    Expr fa[2];
    ProductFactors(a.expr, fa);
    for (size_t j = 0; j < sum->terms.size(); ++j) {
      if (j == i) continue;
      const Term b = sum->terms[j];
      Expr fb[2];
      int nb = ProductFactors(b.expr, fb);
      for (int x = 0; x < 2; ++x) {
        for (int y = 0; y < nb; ++y) {
          if (fa[x] != fb[y]) continue;
          LinearSum cofactor;
          Expr rest_b = nb == 2 ? fb[1 - y] : ctx->Constant(1);
          if (!AddScaled(fa[1 - x], a.coeff, &cofactor) ||
              !AddScaled(rest_b, b.coeff, &cofactor) || !Normalize(&cofactor)) {
            continue;
          }
          Expr product = rw.Simplify(
              ctx->Mul(fa[x], rw.Simplify(BuildSum(ctx, cofactor))));
          LinearSum out = SumWithout(*sum, i, static_cast<int>(j));
          if (!AddScaled(product, 1, &out) || !Normalize(&out)) continue;
          if (before == 0) before = MergedSumSize(ctx, *sum);
          if (MergedSumSize(ctx, out) >= before) continue;
          *sum = std::move(out);
          return true;
        }
      }
    }
  }
  return false;
}

// sum.product_min_max: min(a, b) * max(a, b) = a * b (one factor is a, the
// other b).
bool ProductMinMax(Rewriter& rw, LinearSum* sum) {
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    const Term t = sum->terms[i];
    if (t.expr.kind() != ExprKind::kMul) continue;
    Expr p = t.expr.lhs(), q = t.expr.rhs();
    if (p.kind() == ExprKind::kMax) std::swap(p, q);
    if (p.kind() != ExprKind::kMin || q.kind() != ExprKind::kMax) continue;
    bool same = (p.lhs() == q.lhs() && p.rhs() == q.rhs()) ||
                (p.lhs() == q.rhs() && p.rhs() == q.lhs());
    if (!same) continue;
    LinearSum out = SumWithout(*sum, i);
    Expr product = rw.Simplify(rw.ctx()->Mul(p.lhs(), p.rhs()));
    if (!AddScaled(product, t.coeff, &out)) continue;
    *sum = std::move(out);
    return true;
  }
  return false;
}

}  // namespace ixa::simp
