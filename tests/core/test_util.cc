#include "tests/core/test_util.h"

#include <catch2/catch.hpp>

namespace ixa::testing {

IndexingMap MustParse(const std::string& text, ExprContext* ctx) {
  auto m = ParseIndexingMap(text, ctx);
  INFO("parsing: " << text);
  if (!m.ok()) FAIL("parse failed: " << m.error().ToString());
  return std::move(m).value();
}

void ForEachBoxPoint(
    const std::vector<Interval>& bounds, size_t num_dims,
    const std::function<void(const std::vector<int64_t>&,
                             const std::vector<int64_t>&)>& f) {
  for (const Interval& b : bounds) {
    if (b.IsEmpty()) return;
    REQUIRE(b.Size() <= 64);  // the tests keep boxes small
  }
  std::vector<int64_t> p(bounds.size());
  for (size_t i = 0; i < bounds.size(); ++i) p[i] = bounds[i].lower;
  while (true) {
    std::vector<int64_t> dims(p.begin(), p.begin() + num_dims);
    std::vector<int64_t> syms(p.begin() + num_dims, p.end());
    f(dims, syms);
    size_t i = bounds.size();
    while (true) {
      if (i == 0) return;
      --i;
      if (p[i] < bounds[i].upper) {
        ++p[i];
        break;
      }
      p[i] = bounds[i].lower;
    }
  }
}

std::vector<Interval> BoxOf(const IndexingMap& map) {
  std::vector<Interval> b;
  for (const Variable& v : map.dims()) b.push_back(v.bounds);
  for (int i = 0; i < map.num_symbols(); ++i) b.push_back(map.symbol(i).bounds);
  return b;
}

Expr RandomMaps::RandomExpr(ExprContext* ctx, int num_dims, int num_symbols,
                            int depth, bool semi_affine) {
  auto leaf = [&]() -> Expr {
    int64_t pick = Uniform(0, 9);
    if (pick < 2 || num_dims + num_symbols == 0) {
      return ctx->Constant(Uniform(-3, 5));
    }
    int64_t v = Uniform(0, num_dims + num_symbols - 1);
    return v < num_dims ? ctx->Dim(v) : ctx->Symbol(v - num_dims);
  };
  if (depth <= 0 || Coin(25)) return leaf();
  Expr a = RandomExpr(ctx, num_dims, num_symbols, depth - 1, semi_affine);
  auto nonzero = [&]() {
    int64_t c = Uniform(-4, 4);
    return c == 0 ? int64_t{3} : c;
  };
  if (min_max_ && Coin(25)) {
    Expr b = RandomExpr(ctx, num_dims, num_symbols, depth - 1, semi_affine);
    return Coin(50) ? ctx->Min(a, b) : ctx->Max(a, b);
  }
  switch (Uniform(0, 6)) {
    case 0:
    case 1:
      return ctx->Add(
          a, RandomExpr(ctx, num_dims, num_symbols, depth - 1, semi_affine));
    case 2:
      if (semi_affine && Coin(40)) return ctx->Mul(a, leaf());
      return ctx->Mul(a, ctx->Constant(Uniform(-3, 3)));
    case 3:
      return ctx->FloorDiv(a, ctx->Constant(nonzero()));
    case 4:
      return ctx->CeilDiv(a, ctx->Constant(nonzero()));
    case 5:
      return ctx->Mod(a, ctx->Constant(nonzero()));
    default:
      return ctx->Sub(
          a, RandomExpr(ctx, num_dims, num_symbols, depth - 1, semi_affine));
  }
}

Interval RandomMaps::SmallInterval() {
  int64_t lo = Uniform(-4, 3);
  return Interval{lo, lo + Uniform(0, 4)};
}

IndexingMap RandomMaps::RandomMap(ExprContext* ctx, int num_dims, int num_range,
                                  int num_rt, int num_results,
                                  int max_constraints, bool semi_affine) {
  std::vector<Variable> dims(num_dims), ranges(num_range), rts(num_rt);
  for (auto* vars : {&dims, &ranges, &rts}) {
    for (Variable& v : *vars) v.bounds = SmallInterval();
  }
  const int ns = num_range + num_rt;
  std::vector<Expr> results;
  for (int i = 0; i < num_results; ++i) {
    results.push_back(RandomExpr(ctx, num_dims, ns, 3, semi_affine));
  }
  std::vector<Constraint> constraints;
  int n = static_cast<int>(Uniform(0, max_constraints));
  for (int i = 0; i < n; ++i) {
    Expr e = RandomExpr(ctx, num_dims, ns, 2, semi_affine);
    int64_t lo = Uniform(-6, 4);
    constraints.push_back({e, Interval{lo, lo + Uniform(0, 8)}});
  }
  return IndexingMap(ctx, std::move(dims), std::move(ranges), std::move(rts),
                     std::move(results), std::move(constraints));
}

}  // namespace ixa::testing
