// ChainComposer (simplifier/compose.h): the one-pass chain equals the maps
// composed step by step (ComposeIndexingMaps, unsimplified) at every point
// of the domain, and its errors name the map being composed in.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/compose.h"
#include "tests/simplifier/fuzz_lib.h"
#include "tests/simplifier/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

int64_t Pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A map reading `prev`'s results: its dim bounds are the results' ranges,
// sometimes narrowed (the composition must then keep a constraint), 0-1
// range symbols, and reshape/slice/transpose-like results with floordiv,
// mod and symbols, sometimes a constraint.
IndexingMap NextMap(std::mt19937_64& rng, const IndexingMap& prev) {
  ExprContext* ctx = prev.context();
  std::vector<Variable> dims;
  for (Expr r : prev.results()) {
    Interval b = RangeOverBounds(r, prev);
    if (b.lower <= -100 || b.upper >= 100) b = Interval{-8, 8};
    if (b.upper > b.lower && Pick(rng, 0, 4) == 0) b.upper -= 1;
    if (b.upper > b.lower && Pick(rng, 0, 6) == 0) b.lower += 1;
    dims.push_back({b, ""});
  }
  std::vector<Variable> syms;
  if (Pick(rng, 0, 2) == 0) syms.push_back({Interval{0, Pick(rng, 1, 2)}, ""});
  const int n = static_cast<int>(dims.size());
  auto dim = [&] { return ctx->Dim(Pick(rng, 0, n - 1)); };
  auto c = [&](int64_t lo, int64_t hi) {
    return ctx->Constant(Pick(rng, lo, hi));
  };
  std::vector<Expr> results;
  const int count = static_cast<int>(Pick(rng, 1, 3));
  for (int i = 0; i < count; ++i) {
    Expr e;
    switch (Pick(rng, 0, 5)) {
      case 0:
        e = dim();
        break;
      case 1:
        e = ctx->FloorDiv(dim(), c(2, 4));
        break;
      case 2:
        e = ctx->Mod(dim(), c(2, 4));
        break;
      case 3:
        e = ctx->Add(ctx->Mul(dim(), c(-3, 3)), ctx->Add(dim(), c(-4, 4)));
        break;
      case 4:
        e = ctx->FloorDiv(ctx->Add(ctx->Mul(dim(), c(2, 4)), dim()), c(2, 5));
        break;
      default:
        e = dim();
        if (!syms.empty()) e = ctx->Add(e, ctx->Mul(ctx->Symbol(0), c(1, 3)));
        break;
    }
    results.push_back(e);
  }
  std::vector<Constraint> constraints;
  if (Pick(rng, 0, 3) == 0) {
    constraints.push_back({ctx->Mod(dim(), c(2, 3)), Interval{0, 0}});
  }
  return IndexingMap(ctx, std::move(dims), std::move(syms), {},
                     std::move(results), std::move(constraints));
}

TEST_CASE("a composed chain equals the step-by-step composition", "[compose]") {
  std::mt19937_64 rng(20261123);
  int checked = 0, constrained = 0;
  for (int k = 0; k < 300; ++k) {
    ExprContext ctx;
    std::vector<IndexingMap> maps = {fuzz::RandomMap(rng, &ctx)};
    if (maps[0].IsKnownEmpty() || maps[0].num_results() == 0) continue;
    const int length = static_cast<int>(Pick(rng, 2, 5));
    while (static_cast<int>(maps.size()) < length) {
      maps.push_back(NextMap(rng, maps.back()));
    }
    IndexingMap reference = maps[0];
    for (size_t i = 1; i < maps.size(); ++i) {
      reference = ComposeIndexingMaps(reference, maps[i]).value();
    }
    auto chained = ComposeChain(maps);
    REQUIRE(chained.ok());
    INFO("reference: " << PrintIndexingMap(reference));
    INFO("chained:   " << PrintIndexingMap(*chained));
    auto eq = EquivalentByEnumeration(reference, *chained);
    if (!eq.ok()) continue;  // past the enumeration limit
    ++checked;
    constrained += !reference.constraints().empty();
    CHECK(eq->equivalent);
  }
  CHECK(checked >= 150);
  CHECK(constrained >= 50);
}

TEST_CASE("a chain with runtime variables composes step by step", "[compose]") {
  ExprContext ctx;
  std::vector<IndexingMap> maps = {
      ParseOrDie("(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 3], "
                 "d1 in [0, 3]",
                 &ctx),
      ParseOrDie("(d0){rt0} -> (d0 floordiv 2 + rt0), domain: d0 in [0, 15], "
                 "rt0 in [0, 1]",
                 &ctx),
      ParseOrDie("(d0)[s0] -> (d0 mod 3, s0), domain: d0 in [0, 8], "
                 "s0 in [0, 1]",
                 &ctx)};
  auto step1 = ComposeIndexingMaps(maps[0], maps[1]).value();
  auto reference = ComposeIndexingMaps(step1, maps[2]).value();
  auto chained = ComposeChain(maps);
  REQUIRE(chained.ok());
  CHECK(chained->num_rt_vars() == 1);
  auto eq = EquivalentByEnumeration(reference, *chained);
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);
}

TEST_CASE("chain errors name the map composed in", "[compose]") {
  ExprContext ctx;
  ChainComposer chain;
  REQUIRE(chain.Add(ParseOrDie("(d0) -> (d0, 0), domain: d0 in [0, 3]", &ctx))
              .ok());
  // One dim where two results come: refused at Add.
  auto bad = chain.Add(ParseOrDie("(d0) -> (d0), domain: d0 in [0, 3]", &ctx));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad.error().message.find("2 results") != std::string::npos);

  ChainComposer zero;
  REQUIRE(
      zero.Add(ParseOrDie("(d0) -> (d0, 0), domain: d0 in [0, 3]", &ctx)).ok());
  REQUIRE(zero.Add(ParseOrDie("(d0, d1) -> (d0, d1), domain: d0 in [0, 3], "
                              "d1 in [0, 0]",
                              &ctx))
              .ok());
  // d1 is the constant 0 here: `7 mod d1` would divide by 0.
  REQUIRE(zero.Add(ParseOrDie("(d0, d1) -> (d0 mod d1), domain: "
                              "d0 in [0, 3], d1 in [0, 0]",
                              &ctx))
              .ok());
  auto composed = zero.Finish();
  REQUIRE_FALSE(composed.ok());
  CHECK(composed.error().code == ErrorCode::kInvalidArgument);
  CHECK(zero.failed_item() == 2);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
