#include "simplifier/rewriter.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "core/budget.h"
#include "core/text.h"
#include "simplifier/rule_util.h"

namespace ixa::simp {

// A linear sum with 128-bit coefficients (FlattenWide).
struct WideSum {
  std::vector<std::pair<Expr, __int128>> terms;
  __int128 constant = 0;
};

namespace {

bool IsModByMultipleOf(Expr e, int64_t d) {
  return e.kind() == ExprKind::kMod && e.rhs().IsConstant() &&
         e.rhs().constant() > d && e.rhs().constant() % d == 0;
}

bool WideMul(__int128 a, __int128 b, __int128* out) {
  return !__builtin_mul_overflow(a, b, out);
}

bool WideAdd(__int128 a, __int128 b, __int128* out) {
  return !__builtin_add_overflow(a, b, out);
}

// AddScaled (linear.h) in 128 bits: looks through +, products by constants
// and constants.
bool AddScaledWide(Expr e, __int128 scale, WideSum* sum) {
  switch (e.kind()) {
    case ExprKind::kConstant: {
      __int128 v;
      return WideMul(e.constant(), scale, &v) &&
             WideAdd(sum->constant, v, &sum->constant);
    }
    case ExprKind::kAdd:
      return AddScaledWide(e.lhs(), scale, sum) &&
             AddScaledWide(e.rhs(), scale, sum);
    case ExprKind::kMul: {
      __int128 s;
      if (e.rhs().IsConstant()) {
        return WideMul(scale, e.rhs().constant(), &s) &&
               AddScaledWide(e.lhs(), s, sum);
      }
      if (e.lhs().IsConstant()) {
        return WideMul(scale, e.lhs().constant(), &s) &&
               AddScaledWide(e.rhs(), s, sum);
      }
      break;
    }
    default:
      break;
  }
  if (scale != 0) sum->terms.push_back({e, scale});
  return true;
}

bool FitsInt64(__int128 v) { return v >= kInt64Min && v <= kInt64Max; }

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
    : map_(map),
      ctx_(map.context()),
      filter_(filter),
      trace_(trace),
      box_budget_(kMaxBoxEvaluations) {
  if (use_constraints) {
    for (const Constraint& c : map.constraints()) {
      if (Interval* known = constraint_ranges_.Find(c.expr.node())) {
        *known = known->Intersect(c.interval);
      } else {
        constraint_ranges_.Put(c.expr.node(), c.interval);
      }
      if (std::optional<Expr> x = SoleVariable(c.expr)) {
        variable_constraints_.push_back({*x, c.expr, c.interval});
      }
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
    case ExprKind::kMin:
    case ExprKind::kMax: {
      // The value is one of the operands: the hull of the pointwise min /
      // max (core's Interval::Min/Max keep the unbounded markers: a side
      // is unbounded only if the operands let it be), and the alignment
      // both operands share.
      const Facts a = FactsOf(e.lhs());
      const Facts b = FactsOf(e.rhs());
      f.range = e.kind() == ExprKind::kMin ? a.range.Min(b.range)
                                           : a.range.Max(b.range);
      f.align = AlignUnion(a.align, b.align);
      break;
    }
  }
  if (!constraint_ranges_.empty()) {
    if (const Interval* known = constraint_ranges_.Find(e.node())) {
      f.range = f.range.Intersect(*known);
    }
    // A canonical sum with a constant is (rest + k): a constraint on `rest`
    // bounds it too.
    if (e.kind() == ExprKind::kAdd && e.rhs().IsConstant()) {
      if (const Interval* known = constraint_ranges_.Find(e.lhs().node())) {
        f.range = f.range.Intersect(
            RangeAdd(*known, Interval::Point(e.rhs().constant())));
      }
    }
  }
  return Trim(f);
}

Facts Rewriter::FactsOfSum(const LinearSum& sum) {
  Facts f{Interval::Point(sum.constant), Alignment::Exact(sum.constant)};
  for (const Term& t : sum.terms) {
    const Facts tf = FactsOf(t.expr);
    f.range = AddScaledRange(f.range, tf.range, t.coeff);
    f.align = AlignAdd(f.align, AlignScale(tf.align, t.coeff));
  }
  return Trim(f);
}

Expr Rewriter::Simplify(Expr e) {
  if (e.IsConstant()) return e;
  if (const Expr* known = memo_.Find(e.node())) return *known;
  if (depth_ >= kMaxRewriteDepth || DeadlineExpired("simplify")) {
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
    case ExprKind::kFloorDiv:
    case ExprKind::kCeilDiv:
    case ExprKind::kMod:
      return SimplifyDiv(e);
    case ExprKind::kMin:
    case ExprKind::kMax:
      return SimplifyMinMax(e);
  }
  return e;
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

// Flatten and Normalize in 128 bits: the partial sums of `3 + INT64_MAX
// - 5`, or the scaled coefficient of `-(d0 * INT64_MIN + d0)`, overflow
// int64 although the sum's normal form (`INT64_MAX - 2`, `d0 * INT64_MAX`)
// fits. False when 128 bits overflow (out is then unspecified).
bool Rewriter::FlattenWide(Expr e, WideSum* out) {
  WideSum wide;
  // The leaves are simplified as Flatten does (memoized: the int64 attempt
  // already did most of them).
  std::vector<std::pair<Expr, __int128>> stack = {{e, 1}};
  while (!stack.empty()) {
    auto [x, s] = stack.back();
    stack.pop_back();
    if (x.kind() == ExprKind::kAdd) {
      stack.push_back({x.rhs(), s});
      stack.push_back({x.lhs(), s});
      continue;
    }
    __int128 scaled;
    if (x.kind() == ExprKind::kMul && x.rhs().IsConstant()) {
      if (!WideMul(s, x.rhs().constant(), &scaled)) return false;
      stack.push_back({x.lhs(), scaled});
      continue;
    }
    if (x.kind() == ExprKind::kMul) {
      Expr a = Simplify(x.lhs());
      Expr b = Simplify(x.rhs());
      if (b.IsConstant() || a.IsConstant()) {
        if (b.IsConstant()) std::swap(a, b);  // a: the constant factor
        if (!WideMul(s, a.constant(), &scaled) ||
            !AddScaledWide(b, scaled, &wide)) {
          return false;
        }
        continue;
      }
      if (CompareExprs(b, a) < 0) std::swap(a, b);
      Expr product = (a == x.lhs() && b == x.rhs()) ? x : ctx_->Mul(a, b);
      if (!AddScaledWide(product, s, &wide)) return false;
      continue;
    }
    if (!AddScaledWide(Simplify(x), s, &wide)) return false;
  }
  // Normalize: sort, merge equal terms, drop zeros.
  std::sort(wide.terms.begin(), wide.terms.end(),
            [](const auto& a, const auto& b) {
              return CompareExprs(a.first, b.first) < 0;
            });
  out->terms.clear();
  for (size_t i = 0; i < wide.terms.size();) {
    Expr x = wide.terms[i].first;
    __int128 c = wide.terms[i].second;
    size_t j = i + 1;
    for (; j < wide.terms.size() && wide.terms[j].first == x; ++j) {
      if (!WideAdd(c, wide.terms[j].second, &c)) return false;
    }
    if (c != 0) out->terms.push_back({x, c});
    i = j;
  }
  out->constant = wide.constant;
  return true;
}

namespace {

// Splits v into int64 chunks: the int64 limit towards v as often as needed,
// then the rest (none when 0). Nullopt past a few chunks.
bool SplitWide(__int128 v, SmallVector<int64_t, 4>* chunks) {
  const __int128 limit = v > 0 ? kInt64Max : kInt64Min;
  if (!FitsInt64(v) && v / limit > 3) return false;
  while (!FitsInt64(v)) {
    chunks->push_back(static_cast<int64_t>(limit));
    v -= limit;
  }
  if (v != 0) chunks->push_back(static_cast<int64_t>(v));
  return true;
}

// The smallest f >= 2 (among the first few candidates) that divides c
// with c / f an int64: then c * x is written (x * f) * (c / f).
std::optional<int64_t> SplitFactor(__int128 c) {
  // Unsigned: c may be the smallest __int128, whose negation overflows.
  const unsigned __int128 magnitude =
      c < 0 ? -static_cast<unsigned __int128>(c) : c;
  __int128 f = static_cast<__int128>(magnitude / kInt64Max);
  if (f < 2) f = 2;
  for (int tries = 0; tries < 4096 && f <= kInt64Max; ++tries, ++f) {
    if (c % f != 0) continue;
    if (FitsInt64(c / f)) return static_cast<int64_t>(f);
  }
  return std::nullopt;
}

// The canonical form of a sum whose normal form does not fit int64 (a
// coefficient or the constant): the terms in order, a coefficient past
// int64 as two factors, `(x * 2) * 9223372036854775807`, or else (for a
// term without div/mod nodes, which may be written twice) in chunks
// (SplitWide), `d0 * 9223372036854775807 + d0`, or past a few chunks
// `(d0 * q) * 9223372036854775807 + d0 * r`; then the constant in
// chunks, `... + 9223372036854775807 + 1038`, or past a few chunks as
// `... + 9223372036854775807 * q + r`. Whatever way the sum was written,
// it simplifies to this one tree, so the simplifier stays idempotent on
// it. Nullopt when there is no such form.
std::optional<Expr> BuildWideSum(ExprContext* ctx, const WideSum& sum) {
  Expr acc;
  auto add = [&](Expr t) { acc = acc ? ctx->Add(acc, t) : t; };
  SmallVector<int64_t, 4> chunks;
  for (const auto& [x, c] : sum.terms) {
    if (FitsInt64(c)) {
      add(ctx->Mul(x, ctx->Constant(static_cast<int64_t>(c))));
      continue;
    }
    if (auto f = SplitFactor(c)) {
      add(ctx->Mul(ctx->Mul(x, ctx->Constant(*f)),
                   ctx->Constant(static_cast<int64_t>(c / *f))));
      continue;
    }
    if (CountDivMod(x) > 0) return std::nullopt;
    chunks.clear();
    if (SplitWide(c, &chunks)) {
      for (int64_t k : chunks) add(ctx->Mul(x, ctx->Constant(k)));
      continue;
    }
    // Past a few chunks: (x * q) * limit + x * r.
    const __int128 limit = c > 0 ? kInt64Max : kInt64Min;
    const __int128 q = c / limit, r = c % limit;
    if (!FitsInt64(q)) return std::nullopt;
    add(ctx->Mul(ctx->Mul(x, ctx->Constant(static_cast<int64_t>(q))),
                 ctx->Constant(static_cast<int64_t>(limit))));
    if (r != 0) add(ctx->Mul(x, ctx->Constant(static_cast<int64_t>(r))));
  }
  chunks.clear();
  if (SplitWide(sum.constant, &chunks)) {
    for (int64_t k : chunks) add(ctx->Constant(k));
  } else {
    // Too many chunks: limit * q + r, the product left unfolded (it
    // overflows), `... + 9223372036854775807 * 5 + 16777216`.
    const __int128 limit = sum.constant > 0 ? kInt64Max : kInt64Min;
    const __int128 q = sum.constant / limit, r = sum.constant % limit;
    if (!FitsInt64(q)) return std::nullopt;
    add(ctx->Mul(ctx->Constant(static_cast<int64_t>(limit)),
                 ctx->Constant(static_cast<int64_t>(q))));
    if (r != 0) add(ctx->Constant(static_cast<int64_t>(r)));
  }
  return acc ? acc : ctx->Constant(0);
}

// The int64 LinearSum of a normalized wide sum, if everything fits.
bool NarrowSum(const WideSum& wide, LinearSum* out) {
  out->terms.clear();
  for (const auto& [x, c] : wide.terms) {
    if (!FitsInt64(c)) return false;
    out->terms.push_back({x, static_cast<int64_t>(c)});
  }
  if (!FitsInt64(wide.constant)) return false;
  out->constant = static_cast<int64_t>(wide.constant);
  return true;
}

}  // namespace

Expr Rewriter::SimplifySum(Expr e) {
  LinearSum acc;
  if (!Flatten(e, 1, &acc) || !Normalize(&acc)) {
    // An int64 overflow on the way; 128 bits may still give a normal form
    // that fits (rare: this path is off the common one).
    WideSum wide;
    const bool flat = FlattenWide(e, &wide);
    if (!flat || !NarrowSum(wide, &acc)) {
      // The normal form does not fit int64: no sum rule applies (they
      // read int64 coefficients); build its canonical form.
      if (flat) {
        if (auto built = BuildWideSum(ctx_, wide)) return *built;
      }
      // None (or past 128 bits): keep the shape, simplify the children,
      // and simplify the result again if they changed (the new node may
      // now flatten), so that the answer is its own simplified form.
      Expr a = Simplify(e.lhs()), b = Simplify(e.rhs());
      if (a == e.lhs() && b == e.rhs()) return e;
      return Simplify(ctx_->Binary(e.kind(), a, b));
    }
  }
  // Sum rules until none applies (rules_sum*.cc say why each ends).
  // Every sum rule needs a term that is not a bare variable: a div/mod,
  // min/max or product term; most sums have none.
  auto has_rule_term = [&acc] {
    for (const Term& t : acc.terms) {
      if (!t.expr.IsVariable()) return true;
    }
    return false;
  };
  for (int iteration = 0; iteration < 16 && has_rule_term(); ++iteration) {
    if (stats_.rule_firings >= kMaxRuleFirings) {
      stats_.budget_exhausted = true;
      break;
    }
    bool fired = false;
    // Sum rules change the sum only when they fire, so one copy per round
    // serves them all.
    LinearSum before = acc;
    unsigned present = 0;
    int mods = 0;
    for (const Term& t : acc.terms) {
      switch (t.expr.kind()) {
        case ExprKind::kFloorDiv:
          present |= kNeedsFloorDiv;
          break;
        case ExprKind::kMod:
          present |= kNeedsMod;
          if (++mods >= 2) present |= kNeedsTwoMods;
          break;
        case ExprKind::kMin:
        case ExprKind::kMax:
          present |= kNeedsMinMax;
          break;
        case ExprKind::kMul:
          present |= kNeedsProduct;
          break;
        default:
          break;
      }
    }
    for (const SumRule& rule : SumRules()) {
      if ((rule.needs & present) != rule.needs || !Allowed(rule.id)) continue;
      if (rule.apply(*this, &acc)) {
        if (!Normalize(&acc)) {
          acc = before;  // copy: later rules of this round may need it
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
    std::optional<Expr> r = rule.apply(*this, in);
    if (!r || *r == node) continue;
    IXA_CHECK_MSG(*r, std::string(rule.id) + " answered a null expression");
    Record(rule.id, node, *r);
    return Simplify(*r);
  }
  if (Allowed("div.affine_in_one_variable")) {
    if (std::optional<Expr> r = AffineInOneVariable(node)) {
      Record("div.affine_in_one_variable", node, *r);
      return Simplify(*r);
    }
  }
  // div.affine_on_box: the node equals an affine form at every point of its
  // variables' box (checked at all of them, see AffineOnBox), so it is that
  // form on the domain, which lies inside the box. Generalizes
  // div.affine_in_one_variable to several variables and to the values the
  // single-variable constraints allow (`((d0 + d2 * 10 + 12) floordiv 9)`
  // with d0 in [0, 1], d2 in [0, 2] -> `d2 + 1`). Termination: the output
  // has no div/mod node.
  //
  // Skipped when the dividend is a sum of distinct variables over whole
  // intervals, divided by a constant D: if such a node is affine, X - D*f
  // (resp. X mod D) is an affine form with values in [0, D - 1], so each of
  // its coefficients is c_i - D*a_i with |.| < D, the floor or ceiling
  // remainder of c_i, and the interval range of a sum of distinct variables
  // is exact; {floordiv,mod}.reduce_coefficients (and one_period,
  // split_multiples) have then already found the form (ceildiv through
  // ceildiv.via_floordiv). This keeps the catch-all off the common nodes.
  if (Allowed("div.affine_on_box") && !CoveredByReduceCoefficients(in)) {
    if (auto fit = AffineOnBox(node)) {
      Expr r = BuildSum(ctx_, *fit);
      Record("div.affine_on_box", node, r);
      return Simplify(r);
    }
  }
  return node;
}

Expr BuildMinMax(ExprContext* ctx, const MinMaxList& list) {
  Expr acc;
  for (Expr x : list.operands) acc = acc ? ctx->Binary(list.kind, acc, x) : x;
  if (!acc) acc = ctx->Constant(0);  // never: a list keeps one operand
  if (list.scale != 1) acc = ctx->Mul(acc, ctx->Constant(list.scale));
  if (list.offset.terms.empty() && list.offset.constant == 0) return acc;
  return ctx->Add(acc, BuildSum(ctx, list.offset));
}

// min / max: the whole nest of e's kind is read as one list (like a sum is
// read as one LinearSum: not a rule), its operands are simplified, then the
// list rules (rules_minmax.cc) run until none applies. Each rule removes
// operands, moves a common part out, or puts the list into its canonical
// shape (operands that simplified into nests spliced in, sorted), so the
// loop ends; the iteration cap is a backstop. A moved-out part makes the
// result a sum, which is simplified as one.
//
// Reading the nest whole keeps the result a fixpoint: its inner nodes
// (min(min(a, b), c) holds min(a, b)) are never simplified on their own
// when the outer node is, where a rule could see less (a common part of a
// and b that c does not share).
Expr Rewriter::SimplifyMinMax(Expr e) {
  MinMaxList list{e.kind(), {}, {}};
  std::vector<Expr> stack = {e};
  while (!stack.empty()) {
    Expr x = stack.back();
    stack.pop_back();
    if (x.kind() == e.kind()) {
      stack.push_back(x.rhs());
      stack.push_back(x.lhs());
    } else {
      list.operands.push_back(Simplify(x));
    }
  }
  for (int iteration = 0; iteration < 32 && list.operands.size() > 1;
       ++iteration) {
    if (stats_.rule_firings >= kMaxRuleFirings) {
      stats_.budget_exhausted = true;
      break;
    }
    bool fired = false;
    for (const MinMaxRule& rule : MinMaxRules()) {
      if (!Allowed(rule.id)) continue;
      MinMaxList before = list;
      if (rule.apply(*this, &list)) {
        Record(rule.id, BuildMinMax(ctx_, before), BuildMinMax(ctx_, list));
        fired = true;
        break;
      }
    }
    if (!fired) break;
  }
  Expr out = BuildMinMax(ctx_, list);
  bool moved_out = !list.offset.terms.empty() || list.offset.constant != 0 ||
                   list.scale != 1;
  return moved_out ? Simplify(out) : out;
}

bool Rewriter::CoveredByReduceCoefficients(const DivOperands& in) const {
  // FindPeriodSplit tries every remainder choice for up to 6 terms.
  if (!in.d || *in.d <= 1 || in.sum.terms.size() > 6) return false;
  for (const Term& t : in.sum.terms) {
    if (!t.expr.IsVariable()) return false;
    for (const VariableConstraint& c : variable_constraints_) {
      if (c.var == t.expr) return false;
    }
  }
  return true;
}

bool Rewriter::AxisOf(Expr var, BoxAxis* axis) {
  const Interval range = FactsOf(var).range;
  if (!IsFinite(range)) return false;
  *axis = BoxAxis{var, range.lower, range.upper, nullptr};
  if (variable_constraints_.empty()) return true;
  auto it = allowed_values_.find(var.node());
  if (it == allowed_values_.end()) {
    std::vector<Expr> exprs;
    std::vector<Interval> intervals;
    for (const VariableConstraint& c : variable_constraints_) {
      if (c.var != var) continue;
      exprs.push_back(c.expr);
      intervals.push_back(c.interval);
    }
    std::optional<std::vector<int64_t>> values;
    if (!exprs.empty()) values = AllowedValues(var, range, exprs, intervals);
    it = allowed_values_.emplace(var.node(), std::move(values)).first;
  }
  if (it->second) axis->values = &*it->second;
  return true;
}

std::optional<LinearSum> Rewriter::AffineOnBox(Expr e, bool needs_value_list) {
  if (box_budget_ <= 0 || e.IsConstant()) return std::nullopt;
  if (needs_value_list && variable_constraints_.empty()) return std::nullopt;
  if (std::find(box_failures_.begin(), box_failures_.end(), e.node()) !=
      box_failures_.end()) {
    return std::nullopt;
  }
  std::array<Expr, kMaxBoxVariables> vars;
  std::array<BoxAxis, kMaxBoxVariables> axes;
  int n = 0;
  bool ok = CollectVariables(e, vars, &n);
  int64_t points = 1;
  bool sparse = false;
  for (int i = 0; i < n && ok; ++i) {
    ok = AxisOf(vars[i], &axes[i]) && axes[i].size() > 0 &&
         axes[i].size() <= kMaxBoxPoints / points;
    if (ok) points *= axes[i].size();
    sparse |= axes[i].values != nullptr;
  }
  if (ok && needs_value_list && !sparse) return std::nullopt;
  std::optional<LinearSum> fit;
  if (ok) {
    std::span<const BoxAxis> box(axes.data(), static_cast<size_t>(n));
    fit = FitAffineOnBox(e, box, &box_budget_);
  }
  if (!fit) box_failures_.push_back(e.node());
  return fit;
}

// div.affine_in_one_variable: a div/mod node that mentions one variable x
// with at most kMaxAffineProbe values is checked at every value of x; if the
// values form an arithmetic progression f(x) = f(lo) + s*(x - lo), the node
// is replaced by that affine form. Exhaustive, hence sound; it catches what
// the algebraic rules cannot, e.g. `(d0 + 1) mod 2` -> `-d0 + 1` for d0 in
// [0, 1]. Termination: removes every div/mod node of the subtree.
std::optional<Expr> Rewriter::AffineInOneVariable(Expr node) {
  std::optional<Expr> x = SoleVariable(node);
  if (!x) return std::nullopt;
  auto fit = AffineFit(node, *x, FactsOf(*x).range, kMaxAffineProbe);
  if (!fit) return std::nullopt;
  return ctx_->Add(ctx_->Mul(*x, ctx_->Constant(fit->slope)),
                   ctx_->Constant(fit->offset));
}

}  // namespace ixa::simp
