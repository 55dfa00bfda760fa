// The map-level cases of XLA's indexing_map_test.cc (RemoveUnused*,
// ConvertSymbolsToDimensions, RescaleSymbols*, Composition_*, KnownEmpty_*,
// Evaluation) and XLA's interval_test.cc, with the outputs XLA expects.
// Maps are compared by their image over the domain (dims and results: a
// rescaled symbol is a new parameterization of the same points), plus a
// simplicity check: no more div/mod nodes, constraints or variables than
// XLA's expected map.
#include <catch2/catch.hpp>
#include <limits>
#include <set>

#include "core/enumerate.h"
#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::MustParse;

// Larger boxes are compared as printed maps.
constexpr int64_t kImageLimit = 200000;

std::set<std::vector<int64_t>> Image(const IndexingMap& m) {
  std::set<std::vector<int64_t>> out;
  if (m.IsKnownEmpty()) return out;
  auto r = ForEachDomainPoint(m, 1 << 22, [&](const Point& p) {
    std::vector<int64_t> key = p.dims;
    std::vector<int64_t> v = m.Evaluate(p.dims, p.symbols).value();
    key.insert(key.end(), v.begin(), v.end());
    out.insert(std::move(key));
    return true;
  });
  REQUIRE(r.ok());
  return out;
}

int DivModNodes(const IndexingMap& m) {
  int n = 0;
  for (Expr r : m.results()) n += CountDivMod(r);
  for (const Constraint& c : m.constraints()) n += CountDivMod(c.expr);
  return n;
}

struct Case {
  const char* name;
  const char* input;
  const char* expected;
};

// `got` against XLA's expectation: same dims, same image, no more
// symbols, constraints or div/mod nodes.
void ExpectLike(const IndexingMap& got, const char* expected,
                ExprContext* ctx) {
  const IndexingMap want = MustParse(expected, ctx);
  INFO("got:      " << PrintIndexingMap(got));
  INFO("expected: " << expected);
  REQUIRE(got.num_dims() == want.num_dims());
  CHECK(got.num_symbols() <= want.num_symbols());
  CHECK(got.constraints().size() <= want.constraints().size());
  CHECK(DivModNodes(got) <= DivModNodes(want));
  if (got.BoxSize() > kImageLimit || want.BoxSize() > kImageLimit) {
    CHECK(PrintIndexingMap(got) == PrintIndexingMap(want));
  } else {
    CHECK(Image(got) == Image(want));
  }
}

void CheckRewrite(const Case& c, bool (*rewrite)(IndexingMap&)) {
  INFO(c.name << ": " << c.input);
  ExprContext ctx;
  IndexingMap m = MustParse(c.input, &ctx);
  std::optional<std::set<std::vector<int64_t>>> before;
  if (m.BoxSize() <= kImageLimit) before = Image(m);
  rewrite(m);
  ExpectLike(m, c.expected, &ctx);
  if (before) CHECK(Image(m) == *before);
}

bool RemoveSyms(IndexingMap& m) { return m.RemoveUnusedSymbols(); }
bool RemoveVars(IndexingMap& m) { return m.RemoveUnusedVars(); }
bool Rescale(IndexingMap& m) { return m.RescaleSymbols(); }

TEST_CASE("XLA indexing_map_test: RemoveUnused*", "[rewrite][xla]") {
  const Case vars[] = {
      {"RemoveUnusedDimensions_ConstraintUsesDim",
       "(d0, d1)[s0, s1] -> (d1, s0, s1), domain: d0 in [0, 49], "
       "d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], d0 + s0 in [1, 100], "
       "s0 mod 3 in [0, 0]",
       "(d0, d1)[s0, s1] -> (d1, s0, s1), domain: d0 in [0, 49], "
       "d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], d0 + s0 in [1, 100], "
       "s0 mod 3 in [0, 0]"},
      {"RemoveUnusedDimensions_ConstraintUsesOnlyUnusedDim",
       "(d0, d1)[s0, s1] -> (s0, d1, s1), domain: d0 in [0, 49], "
       "d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], d0 mod 3 in [0, 0]",
       "(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 59], s0 in [0, 69], "
       "s1 in [0, 19]"},
      {"RemoveUnusedVars_ConstraintsWithManyDims",
       "(d0, d1, d2, d3, d4)[s0, s1, s2] -> (s0 * 4 + d1 + d3 - 42), domain: "
       "d0 in [0, 0], d1 in [0, 1], d2 in [0, 2], d3 in [0, 3], d4 in [0, 4], "
       "s0 in [0, 5], s1 in [0, 6], s2 in [0, 7], d1 + s0 * 4 + d3 in [24, "
       "459], s0 mod 3 in [0, 0]",
       "(d0, d1)[s0] -> (s0 * 4 + d0 + d1 - 42), domain: d0 in [0, 1], "
       "d1 in [0, 3], s0 in [0, 5], d0 + s0 * 4 + d1 in [24, 459], "
       "s0 mod 3 in [0, 0]"},
  };
  for (const Case& c : vars) CheckRewrite(c, RemoveVars);
  const Case syms[] = {
      {"RemoveUnusedSymbols_ConstraintUsesSymbol",
       "(d0, d1)[s0, s1] -> (d1, d0, s1), domain: d0 in [0, 49], "
       "d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], s0 + s1 in [1, 100], "
       "s0 mod 3 in [0, 0]",
       "(d0, d1)[s0, s1] -> (d1, d0, s1), domain: d0 in [0, 49], "
       "d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], s0 + s1 in [1, 100], "
       "s0 mod 3 in [0, 0]"},
      {"RemoveUnusedSymbols_ConstraintUsesOnlyUnusedSymbols",
       "(d0, d1)[s0, s1] -> (d1, d0, s1), domain: d0 in [0, 49], "
       "d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], s0 mod 3 in [0, 0]",
       "(d0, d1)[s0] -> (d1, d0, s0), domain: d0 in [0, 49], d1 in [0, 59], "
       "s0 in [0, 19]"},
      {"RemoveUnusedSymbols_ConstraintsWithManySymbols",
       "(d0)[s0, s1, s2, s3, s4] -> (d0 * 4 + s1 + s3 - 42), domain: "
       "d0 in [0, 31], s0 in [0, 0], s1 in [0, 1], s2 in [0, 2], "
       "s3 in [0, 3], s4 in [0, 4], d0 * 4 + s1 + s3 in [24, 459]",
       "(d0)[s0, s1] -> (d0 * 4 + s0 + s1 - 42), domain: d0 in [0, 31], "
       "s0 in [0, 1], s1 in [0, 3], d0 * 4 + s0 + s1 in [24, 459]"},
      {"RemoveUnusedSymbols_ConstraintsWithRTVars",
       "(d0)[s0, s1, s2]{rt0, rt1} -> (d0 * 4 + s1 + rt0 - 42), domain: "
       "d0 in [0, 31], s0 in [0, 0], s1 in [0, 1], s2 in [0, 2], "
       "rt0 in [0, 3], rt1 in [0, 4], d0 * 4 + s1 + rt0 in [24, 459]",
       "(d0)[s0]{rt0} -> (d0 * 4 + s0 + rt0 - 42), domain: d0 in [0, 31], "
       "s0 in [0, 1], rt0 in [0, 3], d0 * 4 + s0 + rt0 in [24, 459]"},
  };
  for (const Case& c : syms) CheckRewrite(c, RemoveSyms);
}

TEST_CASE("XLA indexing_map_test: RescaleSymbols", "[rewrite][xla]") {
  const Case cases[] = {
      // The substitution s0 -> 6 * s0 folds `(s0 * 6) floordiv 6` to s0,
      // as MLIR's expression builders do in XLA.
      {"RescaleSymbols_Simple",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0 floordiv 6), domain: "
       "d0 in [0, 3], s0 in [0, 6], s1 in [0, 1], s2 in [0, 5], "
       "s0 mod 6 in [0, 0]",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 3], "
       "s0 in [0, 1], s1 in [0, 1], s2 in [0, 5]"},
      {"RescaleSymbols_WithShift",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 3], "
       "s0 in [0, 41], s1 in [0, 1], s2 in [0, 5], s0 mod 6 in [3, 3]",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0 * 6 + 3), domain: d0 in [0, 3], "
       "s0 in [0, 6], s1 in [0, 1], s2 in [0, 5]"},
      // Both mod constraints are merged first (s0 mod 6).
      {"RescaleSymbols_TwoModConstraints",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0 floordiv 6), domain: "
       "d0 in [0, 3], s0 in [0, 7], s1 in [0, 1], s2 in [0, 5], "
       "s0 mod 2 in [0, 0], s0 mod 3 in [0, 0]",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 3], "
       "s0 in [0, 1], s1 in [0, 1], s2 in [0, 5]"},
      {"RescaleSymbols_RescaledSymbolInOtherNonModConstraint",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 3], "
       "s0 in [0, 9], s1 in [0, 1], s2 in [0, 5], s0 * s2 in [0, 28], "
       "s0 mod 6 in [3, 3]",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0 * 6 + 3), domain: d0 in [0, 3], "
       "s0 in [0, 1], s1 in [0, 1], s2 in [0, 5], (s0 * 6 + 3) * s2 in [0, "
       "28]"},
      // XLA keeps one of the two as a constraint; s0 = 3 (mod 6) and
      // s0 = 5 (mod 7) is s0 = 33 (mod 42): no constraint is left.
      {"RescaleSymbols_TwoModConstraintsForTheSameSymbolWhichCannotBeMerged",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 3], "
       "s0 in [0, 99], s1 in [0, 1], s2 in [0, 5], s0 mod 6 in [3, 3], "
       "s0 mod 7 in [5, 5]",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0 * 6 + 3), domain: d0 in [0, 3], "
       "s0 in [0, 16], s1 in [0, 1], s2 in [0, 5], (s0 * 6 + 3) mod 7 in "
       "[5, 5]"},
      {"RescaleSymbolsKeepsHashmapConsistent",
       "(d0)[s0, s1, s2] -> (s2, d0, s0, s0 floordiv 6), domain: "
       "d0 in [0, 3], s0 in [0, 6], s1 in [0, 1], s2 in [0, 5], "
       "s0 mod 6 in [0, 0], d0 * s0 in [0, 3]",
       "(d0)[s0, s1, s2] -> (s2, d0, s0 * 6, s0), domain: d0 in [0, 3], "
       "s0 in [0, 1], s1 in [0, 1], s2 in [0, 5], d0 * s0 * 6 in [0, 3]"},
  };
  for (const Case& c : cases) CheckRewrite(c, Rescale);

  // Incompatible remainders: no point is left.
  ExprContext ctx;
  IndexingMap m = MustParse(
      "()[s0] -> (s0), domain: s0 in [0, 99], s0 mod 4 in [1, 1], "
      "s0 mod 6 in [2, 2]",
      &ctx);
  CHECK(m.RescaleSymbols());
  CHECK(m.IsKnownEmpty());
}

TEST_CASE("XLA indexing_map_test: ConvertSymbolsToDimensions",
          "[rewrite][xla]") {
  ExprContext ctx;
  IndexingMap m = MustParse(
      "(d0)[s0, s1]{rt0, rt1} -> (d0 * 4 + s0 + s1 * 2 + rt0 + rt1 * 3), "
      "domain: d0 in [0, 31], s0 in [0, 0], s1 in [0, 1], rt0 in [0, 3], "
      "rt1 in [0, 4], d0 * 4 + s0 + rt0 * 2 in [24, 459]",
      &ctx);
  ExpectLike(m.ConvertSymbolsToDims(),
             "(d0, d1, d2, d3, d4) -> (d0 * 4 + d1 + d2 * 2 + d3 + d4 * 3), "
             "domain: d0 in [0, 31], d1 in [0, 0], d2 in [0, 1], "
             "d3 in [0, 3], d4 in [0, 4], d0 * 4 + d1 + d3 * 2 in [24, 459]",
             &ctx);
}

TEST_CASE("XLA indexing_map_test: composition and evaluation",
          "[compose][xla]") {
  ExprContext ctx;
  struct Compose {
    const char* name;
    const char* first;  // applied first (XLA's `consumer`)
    const char* second;
    const char* expected;
  };
  const Compose cases[] = {
      {"Composition_Permutation",
       "(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 3]",
       "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 3], "
       "d1 in [0, 3], s0 in [0, 1], s1 in [0, 1]",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 3], "
       "s0 in [0, 1], s1 in [0, 1], s2 in [0, 3]"},
      {"Composition_RestrictedInterval",
       "(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 7]",
       "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 4], "
       "d1 in [0, 5], s0 in [0, 6], s1 in [0, 1]",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 4], "
       "s0 in [0, 6], s1 in [0, 1], s2 in [0, 5]"},
      // Not simplified: XLA's expected composition before Simplify.
      {"Composition_ProducerAndConsumerHaveConstraints",
       "(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 7], "
       "d0 + s0 in [0, 20], s0 mod 4 in [0, 0]",
       "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 49], "
       "d1 in [0, 59], s0 in [0, 69], s1 in [0, 19], d0 mod 8 in [0, 0], "
       "s0 mod 3 in [1, 1]",
       "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 9], "
       "s0 in [0, 69], s1 in [0, 19], s2 in [0, 7], d0 + s2 in [0, 20], "
       "d0 mod 8 in [0, 0], s0 mod 3 in [1, 1], s2 mod 4 in [0, 0]"},
      // Runtime variables: the second map's, then the first's.
      {"Composition_OnlyRTVars",
       "(d0, d1){rt0} -> (d0 + rt0 * 2, d1), domain: d0 in [0, 24], "
       "d1 in [0, 15], rt0 in [0, 25]",
       "(d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1 * 4), domain: "
       "d0 in [0, 24], d1 in [0, 15], rt0 in [0, 2], rt1 in [0, 1]",
       "(d0, d1){rt0, rt1, rt2} -> (d0 + rt2 * 2 + rt0, d1 + rt1 * 4), "
       "domain: d0 in [0, 24], d1 in [0, 15], rt0 in [0, 2], rt1 in [0, 1], "
       "rt2 in [0, 25], d0 + rt2 * 2 in [0, 24]"},
  };
  for (const Compose& c : cases) {
    INFO(c.name);
    auto got = ComposeIndexingMaps(MustParse(c.first, &ctx),
                                   MustParse(c.second, &ctx));
    REQUIRE(got.ok());
    const IndexingMap want = MustParse(c.expected, &ctx);
    INFO("got: " << PrintIndexingMap(*got));
    REQUIRE(got->num_symbols() == want.num_symbols());
    auto eq = EquivalentByEnumeration(*got, want);
    REQUIRE(eq.ok());
    CHECK(eq->equivalent);
  }
  // KnownEmpty_Composition, both ways.
  IndexingMap map = MustParse("(d0) -> (d0), domain: d0 in [0, 49]", &ctx);
  IndexingMap empty = MustParse("(d0) -> (0), domain: d0 in [0, -1]", &ctx);
  CHECK(ComposeIndexingMaps(map, empty)->IsKnownEmpty());
  CHECK(ComposeIndexingMaps(empty, map)->IsKnownEmpty());

  // Evaluation, and XLA's affine_map_evaluator_test.
  IndexingMap perm = MustParse(
      "(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 3], "
      "d1 in [0, 3], s0 in [0, 1], s1 in [0, 1]",
      &ctx);
  const std::vector<int64_t> dims = {1, 2}, syms = {3, 4};
  CHECK(*perm.Evaluate(dims, syms) == std::vector<int64_t>{2, 1, 4, 3});
  IndexingMap eval = MustParse(
      "(d0, d1)[s0, s1] -> (d0 + d1 floordiv 8, s0 + s1 mod 16)", &ctx);
  CHECK(*eval.Evaluate(dims, syms) == std::vector<int64_t>{1, 7});
}

TEST_CASE("XLA interval_test: arithmetic", "[interval][xla]") {
  const int64_t kMax = kInt64Max, kMin = kInt64Min;
  const Interval any{kMin, kMax}, positive{0, kMax}, negative{kMin, 0};
  const Interval a{12, 64}, b{-100, 120}, c{100, kMax - 80};
  CHECK(a + b == Interval{-88, 184});
  CHECK(positive + negative == any);
  CHECK(any + any == any);
  CHECK(b + any == any);
  CHECK(c + any == any);
  CHECK(c + positive == Interval{100, kMax});
  CHECK(c + negative == Interval{kMin, kMax - 80});
  CHECK(a + c == Interval{112, kMax - 16});
  CHECK(b + c == Interval{0, kMax});
  const Interval pos{10, 100}, neg{-10, -1}, small{-5, 6}, large{-20, 1000};
  CHECK(pos * neg == Interval{-1000, -10});
  CHECK(pos * small == Interval{-500, 600});
  CHECK(pos * large == Interval{-2000, 100000});
  CHECK(neg * small == Interval{-60, 50});
  CHECK(neg * large == Interval{-10000, 200});
  CHECK(small * large == Interval{-5000, 6000});
  const Interval bit33{42, std::numeric_limits<uint32_t>::max()};
  CHECK(bit33 * bit33 == Interval{42 * 42, kMax});
  CHECK(any * any == any);
  CHECK(any * Interval{-1, -1} == any);
  // XLA's MultiplicationSaturating expects [-INT64_MAX, -42] here; ixa
  // reads INT64_MAX as +infinity (interval_test.cc "interval limits are
  // infinities"), so the product is [-infinity, -42]: one value wider, and
  // sound either way.
  CHECK(Interval{42, kMax} * Interval{-1, -1} == Interval{kMin, -42});
  CHECK(Interval{-kMax, -42} * Interval{-1, -1} == Interval{42, kMax});
  // Comparisons (PointComparisons, RangeComparisons).
  using O = std::optional<bool>;
  const Interval i{12, 64};
  CHECK(i.Gt(Interval{-10, 11}) == O(true));
  CHECK(i.Gt(Interval{-10, 12}) == std::nullopt);
  CHECK(i.Gt(Interval{64, 100}) == O(false));
  CHECK(i.Lt(Interval{65, 100}) == O(true));
  CHECK(i.Lt(Interval{64, 100}) == std::nullopt);
  CHECK(i.Lt(Interval{-10, 12}) == O(false));
  CHECK(i.Eq(i) == std::nullopt);
  CHECK(i.Eq(Interval{65, 100}) == O(false));
  CHECK(i.Eq(Interval{0, 11}) == O(false));
  CHECK(i.Ne(Interval{11, 11}) == O(true));
  CHECK(i.Ge(Interval{12, 12}) == O(true));
  CHECK(i.Ge(Interval{64, 64}) == std::nullopt);
  CHECK(i.Le(Interval{63, 63}) == std::nullopt);
  CHECK(i.Le(Interval{64, 64}) == O(true));
  CHECK(Interval{15, 15}.Eq(Interval{15, 15}) == O(true));
  CHECK(Interval{15, 15}.Ne(Interval{16, 16}) == O(true));
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
