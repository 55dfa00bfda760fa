#include "simplifier/linear.h"

#include <algorithm>

#include "core/int_math.h"

namespace ixa::simp {

int64_t LinearSum::CoeffOf(Expr e) const {
  for (const Term& t : terms) {
    if (t.expr == e) return t.coeff;
  }
  return 0;
}

bool AddScaled(Expr e, int64_t scale, LinearSum* sum) {
  switch (e.kind()) {
    case ExprKind::kConstant: {
      auto v = CheckedMul(e.constant(), scale);
      if (!v) return false;
      auto s = CheckedAdd(sum->constant, *v);
      if (!s) return false;
      sum->constant = *s;
      return true;
    }
    case ExprKind::kAdd:
      return AddScaled(e.lhs(), scale, sum) && AddScaled(e.rhs(), scale, sum);
    case ExprKind::kMul:
      if (e.rhs().IsConstant()) {
        auto s = CheckedMul(scale, e.rhs().constant());
        return s && AddScaled(e.lhs(), *s, sum);
      }
      if (e.lhs().IsConstant()) {
        auto s = CheckedMul(scale, e.lhs().constant());
        return s && AddScaled(e.rhs(), *s, sum);
      }
      break;
    default:
      break;
  }
  if (scale != 0) sum->terms.push_back({e, scale});
  return true;
}

bool AddScaled(const LinearSum& s, int64_t scale, LinearSum* sum) {
  for (const Term& t : s.terms) {
    auto c = CheckedMul(t.coeff, scale);
    if (!c) return false;
    if (*c != 0) sum->terms.push_back({t.expr, *c});
  }
  auto k = CheckedMul(s.constant, scale);
  if (!k) return false;
  auto total = CheckedAdd(sum->constant, *k);
  if (!total) return false;
  sum->constant = *total;
  return true;
}

std::optional<LinearSum> ToLinear(Expr e) {
  LinearSum s;
  if (!AddScaled(e, 1, &s) || !Normalize(&s)) return std::nullopt;
  return s;
}

bool Normalize(LinearSum* sum) {
  auto& terms = sum->terms;
  if (terms.size() > 1) {
    std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
      return CompareExprs(a.expr, b.expr) < 0;
    });
  }
  size_t out = 0;
  for (size_t i = 0; i < terms.size();) {
    Expr e = terms[i].expr;
    int64_t c = terms[i].coeff;
    size_t j = i + 1;
    for (; j < terms.size() && terms[j].expr == e; ++j) {
      auto s = CheckedAdd(c, terms[j].coeff);
      if (!s) return false;
      c = *s;
    }
    if (c != 0) terms[out++] = {e, c};
    i = j;
  }
  terms.resize(out);
  return true;
}

Expr BuildSum(ExprContext* ctx, const LinearSum& sum) {
  Expr acc;
  for (const Term& t : sum.terms) {
    Expr scaled = ctx->Mul(t.expr, ctx->Constant(t.coeff));
    acc = acc ? ctx->Add(acc, scaled) : scaled;
  }
  if (!acc) return ctx->Constant(sum.constant);
  if (sum.constant != 0) acc = ctx->Add(acc, ctx->Constant(sum.constant));
  return acc;
}

int64_t CoeffGcd(const LinearSum& sum) {
  int64_t g = 0;
  for (const Term& t : sum.terms) g = Gcd(g, t.coeff);
  return g;
}

}  // namespace ixa::simp
