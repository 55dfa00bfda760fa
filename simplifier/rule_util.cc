#include "simplifier/rule_util.h"

#include <algorithm>
#include <array>

#include "simplifier/box_fit.h"

namespace ixa::simp {

DivisorSplit SplitByDivisor(const LinearSum& sum, int64_t divisor) {
  DivisorSplit out;
  for (const Term& t : sum.terms) {
    if (t.coeff % divisor == 0) {
      out.quotient.terms.push_back({t.expr, t.coeff / divisor});
    } else {
      out.rest.terms.push_back(t);
    }
  }
  out.rest.constant = sum.constant;
  return out;
}

std::optional<GcdSplit> FindGcdSplit(Rewriter& rw, const LinearSum& sum,
                                     int64_t divisor) {
  if (divisor <= 1) return std::nullopt;
  // Candidate factors, largest first; few terms, so a small vector.
  std::vector<int64_t> factors;
  for (const Term& t : sum.terms) {
    int64_t h = Gcd(t.coeff, divisor);
    if (h > 1 && h != kInt64Max &&
        std::find(factors.begin(), factors.end(), h) == factors.end()) {
      factors.push_back(h);
    }
  }
  std::sort(factors.rbegin(), factors.rend());
  for (int64_t h : factors) {
    GcdSplit split{h, {}, {}};
    for (const Term& t : sum.terms) {
      if (t.coeff % h == 0) {
        split.high.terms.push_back({t.expr, t.coeff / h});
      } else {
        split.low.terms.push_back(t);
      }
    }
    split.low.constant = sum.constant;
    auto m = OnePeriod(rw.FactsOfSum(split.low).range, h);
    if (!m) continue;
    auto shift = CheckedMul(*m, h);
    if (!shift) continue;
    auto low_constant = CheckedSub(split.low.constant, *shift);
    auto high_constant = CheckedAdd(split.high.constant, *m);
    if (!low_constant || !high_constant) continue;
    split.low.constant = *low_constant;
    split.high.constant = *high_constant;
    return split;
  }
  return std::nullopt;
}

std::optional<PeriodSplit> FindPeriodSplit(Rewriter& rw, const LinearSum& sum,
                                           int64_t divisor) {
  constexpr size_t kMaxTerms = 8;
  const size_t n = sum.terms.size();
  if (divisor <= 1 || n == 0 || n > kMaxTerms) return std::nullopt;
  // Floor remainders and range widths; the width of rest's range is
  // sum_i |r_i| * width_i whatever the constant, and one period needs it to
  // be at most D - 1. Nearest remainders give the least width: if even that
  // is too wide, no choice works (the common case, so test it first).
  std::array<int64_t, kMaxTerms> low{}, width{};
  std::array<Interval, kMaxTerms> ranges;
  std::array<size_t, kMaxTerms> two_way{};
  size_t k = 0;
  __int128 min_width = 0;
  for (size_t i = 0; i < n; ++i) {
    low[i] = *Mod(sum.terms[i].coeff, divisor);
    if (low[i] == 0) continue;
    two_way[k++] = i;
    ranges[i] = rw.FactsOf(sum.terms[i].expr).range;
    if (!IsFinite(ranges[i])) return std::nullopt;
    // Finite, may be huge: a width past int64 is far wider than any period.
    auto w = CheckedSub(ranges[i].upper, ranges[i].lower);
    if (!w || *w < 0) return std::nullopt;
    width[i] = *w;
    min_width +=
        static_cast<__int128>(std::min(low[i], divisor - low[i])) * width[i];
    if (min_width >= divisor) return std::nullopt;
  }
  if (k == 0) return std::nullopt;  // floordiv.split_multiples
  // Choice bit j set: term two_way[j] takes its ceiling remainder low - D.
  const uint32_t choices = k <= 6 ? (1u << k) : 0;
  uint32_t nearest = 0;
  for (size_t j = 0; j < k; ++j) {
    // low > D - low, i.e. 2 * low > D without overflow (D may be huge).
    if (low[two_way[j]] > divisor - low[two_way[j]]) nearest |= 1u << j;
  }
  for (uint32_t c = 0; c < std::max<uint32_t>(choices, 2); ++c) {
    uint32_t choice = choices ? c : (c == 0 ? nearest : 0);
    // rest = sum_j r_j t_j + constant; skip the choice that keeps every
    // coefficient (floordiv.one_period and mod.in_range cover it).
    bool reduces = false;
    __int128 w = 0;
    Interval range = Interval::Point(sum.constant);
    std::array<int64_t, kMaxTerms> r{};
    for (size_t j = 0; j < k; ++j) {
      size_t i = two_way[j];
      r[i] = choice & (1u << j) ? low[i] - divisor : low[i];
      reduces |= r[i] != sum.terms[i].coeff;
      w += static_cast<__int128>(r[i] < 0 ? -r[i] : r[i]) * width[i];
    }
    if (w >= divisor) continue;
    // Terms with a zero remainder go entirely to the quotient.
    for (size_t i = 0; i < n; ++i) reduces |= low[i] == 0;
    if (!reduces) continue;
    for (size_t j = 0; j < k; ++j) {
      size_t i = two_way[j];
      range = RangeAdd(range, RangeScale(ranges[i], r[i]));
    }
    auto m = OnePeriod(range, divisor);
    if (!m) continue;
    auto shift = CheckedMul(*m, divisor);
    auto rest_constant =
        shift ? CheckedSub(sum.constant, *shift) : std::nullopt;
    if (!rest_constant) continue;
    PeriodSplit split;
    split.quotient.constant = *m;
    split.rest.constant = *rest_constant;
    bool ok = true;
    for (size_t i = 0; i < n && ok; ++i) {
      auto q = CheckedSub(sum.terms[i].coeff, r[i]);
      ok = q.has_value();
      if (!ok) break;
      if (*q != 0) {
        split.quotient.terms.push_back({sum.terms[i].expr, *q / divisor});
      }
      if (r[i] != 0) split.rest.terms.push_back({sum.terms[i].expr, r[i]});
    }
    if (!ok) continue;
    return split;
  }
  return std::nullopt;
}

std::optional<LinearSum> Scaled(const LinearSum& s, int64_t k, int64_t c) {
  LinearSum out;
  out.constant = c;
  if (!AddScaled(s, k, &out)) return std::nullopt;
  return out;
}

std::optional<Expr> SoleTerm(const LinearSum& sum) {
  if (sum.terms.size() == 1 && sum.terms[0].coeff == 1 && sum.constant == 0) {
    return sum.terms[0].expr;
  }
  return std::nullopt;
}

bool IsOpByPositiveConstant(Expr e, ExprKind kind) {
  return e.kind() == kind && e.rhs().IsConstant() && e.rhs().constant() > 0;
}

namespace {

std::optional<Expr> SoleVariableByWalking(Expr e) {
  if (e.IsVariable()) return e;
  if (!e.IsBinary()) return std::nullopt;
  std::optional<Expr> a = SoleVariableByWalking(e.lhs());
  std::optional<Expr> b = SoleVariableByWalking(e.rhs());
  if (!a) return e.lhs().IsConstant() ? b : std::nullopt;
  if (!b) return e.rhs().IsConstant() ? a : std::nullopt;
  return *a == *b ? a : std::nullopt;
}

}  // namespace

// The node records the answer of the walk above (ExprNode::sole_variable,
// computed from its children when it is built); the walk remains for
// positions too large to encode there.
std::optional<Expr> SoleVariable(Expr e) {
  uint32_t s = e.node()->sole_variable;
  if (s == 0) return std::nullopt;
  if (s == ExprNode::kSoleUnknown) return SoleVariableByWalking(e);
  int64_t position = static_cast<int64_t>(s & ~ExprNode::kSoleSymbolBit) - 1;
  return (s & ExprNode::kSoleSymbolBit) ? e.context()->Symbol(position)
                                        : e.context()->Dim(position);
}

std::optional<Expr> ViaPositiveDivisor(Rewriter& rw, const DivOperands& in,
                                       ExprKind kind) {
  if (!in.d || *in.d >= -1 || *in.d == kInt64Min) return std::nullopt;
  auto negated = Scaled(in.sum, -1);
  if (!negated) return std::nullopt;
  ExprContext* ctx = rw.ctx();
  Expr positive =
      rw.Simplify(ctx->Binary(kind, BuildSum(ctx, *negated), rw.Const(-*in.d)));
  if (kind == ExprKind::kMod) positive = rw.Simplify(ctx->Neg(positive));
  if (CountDivMod(positive) < CountDivMod(in.node)) return positive;
  return std::nullopt;
}

std::optional<Expr> MoveMultiplesOut(Rewriter& rw, DivisorSplit split,
                                     int64_t d, Expr divisor, ExprKind kind) {
  int64_t k = split.rest.constant;
  bool move_constant = k != 0 && k % d == 0;
  if (split.quotient.terms.empty() && !move_constant) return std::nullopt;
  if (move_constant) {
    split.quotient.constant = k / d;
    split.rest.constant = 0;
  }
  Expr low = BuildSum(rw.ctx(), split.rest);
  return rw.ctx()->Add(BuildSum(rw.ctx(), split.quotient),
                       rw.ctx()->Binary(kind, low, divisor));
}

std::optional<AffineForm> AffineFit(Expr e, Expr x, const Interval& range,
                                    int64_t max_points) {
  if (!IsFinite(range) || range.IsPoint() || range.Size() > max_points) {
    return std::nullopt;
  }
  // The one-axis case of the box fit: every point is checked.
  BoxAxis axis{x, range.lower, range.upper};
  int64_t budget = 2 * range.Size() + 8;
  auto fit = FitAffineOnBox(e, std::span<const BoxAxis>(&axis, 1), &budget);
  if (!fit) return std::nullopt;
  return AffineForm{fit->CoeffOf(x), fit->constant};
}

bool HasScaledPart(const LinearSum& sum, const LinearSum& part, int64_t scale) {
  if (part.terms.empty()) return false;
  for (const Term& t : part.terms) {
    auto want = CheckedMul(t.coeff, scale);
    if (!want || sum.CoeffOf(t.expr) != *want) return false;
  }
  return true;
}

std::optional<RoundedPart> FindRoundedPart(const LinearSum& sum, int64_t d) {
  if (sum.terms.size() < 2) return std::nullopt;
  for (const Term& t : sum.terms) {
    if (t.expr.kind() != ExprKind::kMod ||
        !IsOpByPositiveConstant(t.expr, ExprKind::kMod)) {
      continue;
    }
    auto k = CheckedNeg(t.coeff);
    if (!k) continue;
    const int64_t m = t.expr.rhs().constant();
    auto km = CheckedMul(*k, m);
    if (!km || *km % d != 0) continue;
    auto y = ToLinear(t.expr.lhs());
    if (!y || !HasScaledPart(sum, *y, *k)) continue;
    LinearSum rest = sum;
    if (!AddScaled(*y, -*k, &rest)) continue;
    rest.terms.push_back({t.expr, *k});
    if (!Normalize(&rest)) continue;
    return RoundedPart{t.expr.lhs(), t.expr.rhs(), *km / d, std::move(rest)};
  }
  return std::nullopt;
}

bool SignFixed(const Interval& range) {
  if (!range.IsFeasible()) return false;
  if (range.lower == 0 && range.upper == 0) return false;
  return range.lower >= 0 || range.upper <= 0;
}

std::optional<VariableDivisorSplit> SplitByVariableDivisor(
    const DivOperands& in) {
  if (in.d || !SignFixed(in.divisor_facts.range)) return std::nullopt;
  const Expr n = in.divisor;
  VariableDivisorSplit out;
  out.rest.constant = in.sum.constant;
  bool found = false;
  for (const Term& t : in.sum.terms) {
    if (t.expr == n) {
      auto k = CheckedAdd(out.quotient.constant, t.coeff);
      if (!k) return std::nullopt;
      out.quotient.constant = *k;
      found = true;
    } else if (t.expr.kind() == ExprKind::kMul &&
               (t.expr.lhs() == n || t.expr.rhs() == n)) {
      Expr other = t.expr.lhs() == n ? t.expr.rhs() : t.expr.lhs();
      if (!AddScaled(other, t.coeff, &out.quotient)) return std::nullopt;
      found = true;
    } else {
      out.rest.terms.push_back(t);
    }
  }
  if (!found || !Normalize(&out.quotient)) return std::nullopt;
  return out;
}

}  // namespace ixa::simp
