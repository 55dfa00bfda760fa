// Rules for `a ceildiv b` (docs/xla-reference.md §(c) E24).
//
// ceil(a / D) = floor((a + D - 1) / D) for D > 0. The floordiv form is used
// only when it ends up with fewer div/mod nodes, so ceildiv prints as
// ceildiv unless it disappears or shrinks.
//
// Termination: ceildiv.one_period, ceildiv.via_floordiv and
// ceildiv.negative_divisor remove a div/mod node; ceildiv.split_multiples
// moves terms out of the dividend.
#include "simplifier/rule_util.h"

namespace ixa::simp {

namespace {

// ceildiv.by_one: x ceildiv 1 = x; x ceildiv -1 = -x.
std::optional<Expr> CeilDivByOne(Rewriter& rw, const DivOperands& in) {
  if (in.d == 1) return in.dividend;
  if (in.d == -1) return rw.ctx()->Neg(in.dividend);
  return std::nullopt;
}

// ceildiv.one_period: if range(a) lies in [(m-1)*D + 1, m*D] then
// ceil(a / D) = m; equivalently range(a + D - 1) lies in one period of D.
std::optional<Expr> CeilDivOnePeriodRule(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 0) return std::nullopt;
  Interval shifted =
      RangeAdd(in.dividend_facts.range, Interval::Point(*in.d - 1));
  auto m = OnePeriod(shifted, *in.d);
  if (!m) return std::nullopt;
  return rw.Const(*m);
}

// ceildiv.split_multiples: with a = D*Q + R (Q: terms whose coefficient D
// divides, plus a constant multiple of D),
//   ceil((D*Q + R) / D) = Q + ceil(R / D)          (Q is an integer).
std::optional<Expr> CeilDivSplitMultiples(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  int64_t d = *in.d;
  DivisorSplit split = SplitByDivisor(in.sum, d);
  return MoveMultiplesOut(rw, std::move(split), d, in.divisor,
                          ExprKind::kCeilDiv);
}

// ceildiv.via_floordiv (E24): ceil(a / D) = floor((a + D - 1) / D) for
// D > 0 (write a = D*q - r with 0 <= r < D: both sides are q). Applied only
// when the simplified floordiv form has fewer div/mod nodes.
std::optional<Expr> ViaFloorDiv(Rewriter& rw, const DivOperands& in) {
  if (!in.d || *in.d <= 1) return std::nullopt;
  auto shifted = Scaled(in.sum, 1, 0);
  if (!shifted) return std::nullopt;
  auto k = CheckedAdd(shifted->constant, *in.d - 1);
  if (!k) return std::nullopt;
  shifted->constant = *k;
  Expr as_floor =
      rw.Simplify(rw.ctx()->FloorDiv(BuildSum(rw.ctx(), *shifted), in.divisor));
  if (CountDivMod(as_floor) < CountDivMod(in.node)) return as_floor;
  return std::nullopt;
}

// ceildiv.negative_divisor: a divisor D < -1 becomes -D > 1 (see
// ViaPositiveDivisor), applied only when that removes a div/mod node.
std::optional<Expr> CeilDivNegativeDivisor(Rewriter& rw,
                                           const DivOperands& in) {
  return ViaPositiveDivisor(rw, in, ExprKind::kCeilDiv);
}

constexpr DivRule kCeilDivRules[] = {
    {"ceildiv.by_one", &CeilDivByOne},
    {"ceildiv.one_period", &CeilDivOnePeriodRule},
    {"ceildiv.via_floordiv", &ViaFloorDiv},
    {"ceildiv.split_multiples", &CeilDivSplitMultiples},
    {"ceildiv.negative_divisor", &CeilDivNegativeDivisor},
};

}  // namespace

std::span<const DivRule> CeilDivRules() { return kCeilDivRules; }

}  // namespace ixa::simp
