#include "simplifier/rewriter.h"

#include <algorithm>
#include <cstring>

#include "core/text.h"
#include "simplifier/rule_util.h"

namespace ixa::simp {

namespace {

bool IsModByMultipleOf(Expr e, int64_t d) {
  return e.kind() == ExprKind::kMod && e.rhs().IsConstant() &&
         e.rhs().constant() > d && e.rhs().constant() % d == 0;
}

}  // namespace

bool RuleFilter::Enabled(const char* id) const {
  if (only.empty()) return true;
  for (const std::string& s : only) {
    if (s == id) return true;
  }
  return false;
}

Rewriter::Rewriter(const IndexingMap& map, bool use_constraints,
                   const RuleFilter* filter, std::vector<TraceStep>* trace)
    : map_(map), ctx_(map.context()), filter_(filter), trace_(trace) {
  if (use_constraints) {
    for (const Constraint& c : map.constraints()) {
      auto [it, inserted] =
          constraint_ranges_.emplace(c.expr.node(), c.interval);
      if (!inserted) it->second = it->second.Intersect(c.interval);
    }
  }
}

void Rewriter::Record(const char* rule, Expr before, Expr after) {
  ++stats_.rule_firings;
  if (!trace_) return;
  trace_->push_back({rule, PrintExpr(before, map_), PrintExpr(after, map_)});
}

Facts Rewriter::FactsOf(Expr e) {
  if (e.IsConstant()) {
    return {Interval::Point(e.constant()), Alignment::Exact(e.constant())};
  }
  if (const Facts* f = facts_.Find(e.node())) return *f;
  Facts f = ComputeFacts(e);
  facts_.Put(e.node(), f);
  return f;
}

Facts Rewriter::ComputeFacts(Expr e) {
  Facts f;
  switch (e.kind()) {
    case ExprKind::kConstant:
      return {Interval::Point(e.constant()), Alignment::Exact(e.constant())};
    case ExprKind::kDim:
      f.range = e.position() < map_.num_dims()
                    ? map_.dims()[e.position()].bounds
                    : Interval::Full();
      break;
    case ExprKind::kSymbol:
      f.range = e.position() < map_.num_symbols()
                    ? map_.symbol(static_cast<int>(e.position())).bounds
                    : Interval::Full();
      break;
    case ExprKind::kAdd: {
      const Facts a = FactsOf(e.lhs());
      const Facts b = FactsOf(e.rhs());
      f.range = RangeAdd(a.range, b.range);
      f.align = AlignAdd(a.align, b.align);
      break;
    }
    case ExprKind::kMul: {
      const Facts a = FactsOf(e.lhs());
      const Facts b = FactsOf(e.rhs());
      if (auto c = b.PointValue()) {
        f.range = RangeScale(a.range, *c);
        f.align = AlignScale(a.align, *c);
      } else if (auto c = a.PointValue()) {
        f.range = RangeScale(b.range, *c);
        f.align = AlignScale(b.align, *c);
      } else {
        f.range = RangeMul(a.range, b.range);
      }
      break;
    }
    case ExprKind::kFloorDiv:
    case ExprKind::kCeilDiv:
    case ExprKind::kMod: {
      const Facts a = FactsOf(e.lhs());
      const Facts b = FactsOf(e.rhs());
      auto d = b.PointValue();
      if (e.kind() == ExprKind::kFloorDiv) {
        f.range = RangeFloorDiv(a.range, b.range);
        if (d) f.align = AlignFloorDiv(a.align, *d);
      } else if (e.kind() == ExprKind::kCeilDiv) {
        f.range = RangeCeilDiv(a.range, b.range);
      } else {
        f.range = RangeMod(a.range, b.range);
        if (d) f.align = AlignMod(a.align, *d);
      }
      break;
    }
  }
  if (!constraint_ranges_.empty()) {
    auto it = constraint_ranges_.find(e.node());
    if (it != constraint_ranges_.end()) {
      f.range = f.range.Intersect(it->second);
    }
    // A canonical sum with a constant is (rest + k): a constraint on `rest`
    // bounds it too.
    if (e.kind() == ExprKind::kAdd && e.rhs().IsConstant()) {
      auto jt = constraint_ranges_.find(e.lhs().node());
      if (jt != constraint_ranges_.end()) {
        f.range = f.range.Intersect(
            RangeAdd(jt->second, Interval::Point(e.rhs().constant())));
      }
    }
  }
  return Trim(f);
}

Facts Rewriter::FactsOfSum(const LinearSum& sum) {
  Facts f{Interval::Point(sum.constant), Alignment::Exact(sum.constant)};
  for (const Term& t : sum.terms) {
    const Facts tf = FactsOf(t.expr);
    f.range = RangeAdd(f.range, RangeScale(tf.range, t.coeff));
    f.align = AlignAdd(f.align, AlignScale(tf.align, t.coeff));
  }
  return Trim(f);
}

Expr Rewriter::Simplify(Expr e) {
  if (e.IsConstant()) return e;
  if (const Expr* known = memo_.Find(e.node())) return *known;
  if (depth_ >= kMaxRewriteDepth) {
    stats_.budget_exhausted = true;
    return e;
  }
  ++depth_;
  Expr out = FoldPoint(SimplifyUncached(e));
  --depth_;
  memo_.Put(e.node(), out);
  if (out != e && !memo_.Find(out.node())) memo_.Put(out.node(), out);
  return out;
}

// E1: a subexpression with a point range becomes that constant. In preserve
// mode a bare variable is kept (XLA's op maps keep `d0` with
// `d0 in [0, 0]`; its bound still says the value).
Expr Rewriter::FoldPoint(Expr e) {
  if (e.IsConstant()) return e;
  if (preserve_point_variables_ && e.IsVariable()) return e;
  if (auto v = FactsOf(e).PointValue()) {
    if (Allowed("range.point")) {
      Expr c = ctx_->Constant(*v);
      Record("range.point", e, c);
      return c;
    }
  }
  return e;
}

Expr Rewriter::SimplifyUncached(Expr e) {
  switch (e.kind()) {
    case ExprKind::kConstant:
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      return e;
    case ExprKind::kAdd:
    case ExprKind::kMul:
      return SimplifySum(e);
    default:
      return SimplifyDiv(e);
  }
}

// Adds scale * e to acc, simplifying the leaves of e's +/* tree. Sums are
// flattened without simplifying their partial sums (which would only create
// garbage nodes). Returns false on overflow.
bool Rewriter::Flatten(Expr e, int64_t scale, LinearSum* acc) {
  if (e.kind() == ExprKind::kAdd) {
    return Flatten(e.lhs(), scale, acc) && Flatten(e.rhs(), scale, acc);
  }
  if (e.kind() == ExprKind::kMul) {
    if (e.rhs().IsConstant()) {
      auto s = CheckedMul(scale, e.rhs().constant());
      return s && Flatten(e.lhs(), *s, acc);
    }
    Expr a = Simplify(e.lhs());
    Expr b = Simplify(e.rhs());
    if (b.IsConstant()) {
      auto s = CheckedMul(scale, b.constant());
      return s && AddScaled(a, *s, acc);
    }
    if (a.IsConstant()) {
      auto s = CheckedMul(scale, a.constant());
      return s && AddScaled(b, *s, acc);
    }
    // Semi-affine product: a term of its own, operands in structural order.
    if (CompareExprs(b, a) < 0) std::swap(a, b);
    Expr product = (a == e.lhs() && b == e.rhs()) ? e : ctx_->Mul(a, b);
    return AddScaled(product, scale, acc);
  }
  return AddScaled(Simplify(e), scale, acc);
}

Expr Rewriter::SimplifySum(Expr e) {
  LinearSum acc;
  if (!Flatten(e, 1, &acc) || !Normalize(&acc)) {
    // Overflow while flattening: keep the shape, simplify the children.
    Expr a = Simplify(e.lhs()), b = Simplify(e.rhs());
    return (a == e.lhs() && b == e.rhs()) ? e : ctx_->Binary(e.kind(), a, b);
  }
  // Sum rules until none applies; each one removes a div/mod node.
  for (int iteration = 0; iteration < 16; ++iteration) {
    if (stats_.rule_firings >= kMaxRuleFirings) {
      stats_.budget_exhausted = true;
      break;
    }
    bool fired = false;
    for (const SumRule& rule : SumRules()) {
      if (!Allowed(rule.id)) continue;
      LinearSum before = acc;
      if (rule.apply(*this, &acc)) {
        if (!Normalize(&acc)) {
          acc = std::move(before);
          continue;
        }
        Record(rule.id, BuildSum(ctx_, before), BuildSum(ctx_, acc));
        fired = true;
        break;
      }
    }
    if (!fired) break;
  }
  return BuildSum(ctx_, acc);
}

Expr Rewriter::SimplifyDiv(Expr e) {
  // floordiv.of_mod runs before the children are simplified: simplifying
  // `x mod (D*b)` first (e.g. by mod.gcd_split) would hide the tower shape
  // `(x floordiv D) mod b` that sum.recombine_div_mod pairs on.
  if (e.kind() == ExprKind::kFloorDiv && e.rhs().IsConstant() &&
      e.rhs().constant() > 1 &&
      IsModByMultipleOf(e.lhs(), e.rhs().constant()) &&
      Allowed("floordiv.of_mod")) {
    Expr x = e.lhs().lhs();
    int64_t b = e.lhs().rhs().constant() / e.rhs().constant();
    Expr r = ctx_->Mod(ctx_->FloorDiv(x, e.rhs()), ctx_->Constant(b));
    Record("floordiv.of_mod", e, r);
    return Simplify(r);
  }
  Expr a = Simplify(e.lhs());
  Expr b = Simplify(e.rhs());
  // A divisor that simplifies to 0 only happens when every point of the
  // domain divides by zero; keep the original divisor rather than build an
  // invalid node.
  if (b.IsConstant(0)) b = e.rhs();
  Expr node = (a == e.lhs() && b == e.rhs()) ? e : ctx_->Binary(e.kind(), a, b);
  if (node.IsConstant()) return node;
  if (stats_.rule_firings >= kMaxRuleFirings) {
    stats_.budget_exhausted = true;
    return node;
  }
  auto sum = ToLinear(a);
  if (!sum) return node;
  const Facts bf = FactsOf(b);
  DivOperands in{node, a, b, *sum, FactsOf(a), bf, std::nullopt};
  if (b.IsConstant()) in.d = b.constant();
  std::span<const DivRule> rules =
      e.kind() == ExprKind::kFloorDiv  ? FloorDivRules()
      : e.kind() == ExprKind::kCeilDiv ? CeilDivRules()
                                       : ModRules();
  for (const DivRule& rule : rules) {
    if (!Allowed(rule.id)) continue;
    Expr r = rule.apply(*this, in);
    if (!r || r == node) continue;
    Record(rule.id, node, r);
    return Simplify(r);
  }
  if (Allowed("div.affine_in_one_variable")) {
    if (Expr r = AffineInOneVariable(node)) {
      Record("div.affine_in_one_variable", node, r);
      return Simplify(r);
    }
  }
  return node;
}

// div.affine_in_one_variable: a div/mod node that mentions one variable x
// with at most kMaxAffineProbe values is checked at every value of x; if the
// values form an arithmetic progression f(x) = f(lo) + s*(x - lo), the node
// is replaced by that affine form. Exhaustive, hence sound; it catches what
// the algebraic rules cannot, e.g. `(d0 + 1) mod 2` -> `-d0 + 1` for d0 in
// [0, 1]. Termination: removes every div/mod node of the subtree.
Expr Rewriter::AffineInOneVariable(Expr node) {
  Expr x = SoleVariable(node);
  if (!x) return Expr();
  auto fit = AffineFit(node, x, FactsOf(x).range, kMaxAffineProbe);
  if (!fit) return Expr();
  return ctx_->Add(ctx_->Mul(x, ctx_->Constant(fit->slope)),
                   ctx_->Constant(fit->offset));
}

}  // namespace ixa::simp
