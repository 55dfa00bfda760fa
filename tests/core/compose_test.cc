// ComposeIndexingMaps against brute force on random small maps.
#include <catch2/catch.hpp>

#include "core/enumerate.h"
#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ForEachBoxPoint;
using testing::MustParse;

std::vector<int64_t> Slice(const std::vector<int64_t>& v, size_t from,
                           size_t n) {
  return std::vector<int64_t>(v.begin() + from, v.begin() + from + n);
}

// Checks second ∘ first pointwise. Composed symbols are
// [range(second), range(first), rt(second), rt(first)].
void CheckComposition(const IndexingMap& first, const IndexingMap& second,
                      const IndexingMap& composed) {
  INFO("first:    " << PrintIndexingMap(first));
  INFO("second:   " << PrintIndexingMap(second));
  INFO("composed: " << PrintIndexingMap(composed));
  const size_t r1 = first.num_range_vars(), t1 = first.num_rt_vars();
  const size_t r2 = second.num_range_vars(), t2 = second.num_rt_vars();
  REQUIRE(composed.num_dims() == first.num_dims());
  REQUIRE(composed.num_range_vars() == static_cast<int>(r1 + r2));
  REQUIRE(composed.num_rt_vars() == static_cast<int>(t1 + t2));
  REQUIRE(composed.num_results() == second.num_results());
  // Enumerate first's box times all symbol boxes (not the composed map's
  // own box, which may have been tightened).
  std::vector<Interval> box;
  for (const Variable& v : first.dims()) box.push_back(v.bounds);
  for (const Variable& v : second.range_vars()) box.push_back(v.bounds);
  for (const Variable& v : first.range_vars()) box.push_back(v.bounds);
  for (const Variable& v : second.rt_vars()) box.push_back(v.bounds);
  for (const Variable& v : first.rt_vars()) box.push_back(v.bounds);
  int64_t in_domain_points = 0;
  ForEachBoxPoint(
      box, first.num_dims(),
      [&](const std::vector<int64_t>& d, const std::vector<int64_t>& s) {
        std::vector<int64_t> s1 = Slice(s, r2, r1), s2 = Slice(s, 0, r2);
        std::vector<int64_t> rt1 = Slice(s, r2 + r1 + t2, t1);
        std::vector<int64_t> rt2 = Slice(s, r2 + r1, t2);
        s1.insert(s1.end(), rt1.begin(), rt1.end());
        s2.insert(s2.end(), rt2.begin(), rt2.end());
        INFO("dims " << ::Catch::Detail::stringify(d) << " symbols "
                     << ::Catch::Detail::stringify(s));
        bool want = first.InDomain(d, s1).value();
        std::vector<int64_t> x;
        if (want) {
          x = first.Evaluate(d, s1).value();
          want = second.InDomain(x, s2).value();
        }
        auto got = composed.InDomain(d, s);
        REQUIRE(got.ok());
        CHECK(*got == want);
        if (!want || !*got) return;
        ++in_domain_points;
        auto expected = second.Evaluate(x, s2);
        auto actual = composed.Evaluate(d, s);
        REQUIRE(expected.ok());
        REQUIRE(actual.ok());
        CHECK(*actual == *expected);
      });
  if (in_domain_points == 0) {
    // An empty composition must not claim points.
    auto empty = IsEmptyByEnumeration(composed);
    REQUIRE(empty.ok());
    CHECK(*empty);
  }
}

TEST_CASE("composition equals evaluate-then-evaluate on random maps",
          "[compose][random]") {
  testing::RandomMaps gen(1234);
  int non_empty = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    ExprContext ctx;
    int nd1 = static_cast<int>(gen.Uniform(1, 2));
    int nres = static_cast<int>(gen.Uniform(1, 2));
    IndexingMap first =
        gen.RandomMap(&ctx, nd1, gen.Uniform(0, 1), gen.Uniform(0, 1), nres, 2,
                      /*semi_affine=*/gen.Coin(20));
    IndexingMap second =
        gen.RandomMap(&ctx, nres, gen.Uniform(0, 1), gen.Uniform(0, 1),
                      gen.Uniform(0, 2), 2, /*semi_affine=*/gen.Coin(20));
    // Unbounded dims of `second` are allowed (no constraint is added).
    if (gen.Coin(20) && !second.IsKnownEmpty()) {
      second.mutable_dims()[0].bounds = Interval::Full();
    }
    auto composed = ComposeIndexingMaps(first, second);
    REQUIRE(composed.ok());
    if (first.IsKnownEmpty() || second.IsKnownEmpty()) {
      CHECK(composed->IsKnownEmpty());
      continue;
    }
    CheckComposition(first, second, *composed);
    non_empty += composed->IsKnownEmpty() ? 0 : 1;
  }
  CHECK(non_empty > 500);  // the generator must not make only empty maps
}

TEST_CASE("composition with min / max equals evaluate-then-evaluate",
          "[compose][random][minmax]") {
  testing::RandomMaps gen(1414);
  gen.set_min_max(true);
  int non_empty = 0, with_min_max = 0;
  for (int iter = 0; iter < 1000; ++iter) {
    ExprContext ctx;
    int nd1 = static_cast<int>(gen.Uniform(1, 2));
    int nres = static_cast<int>(gen.Uniform(1, 2));
    IndexingMap first =
        gen.RandomMap(&ctx, nd1, gen.Uniform(0, 1), gen.Uniform(0, 1), nres, 2);
    IndexingMap second = gen.RandomMap(&ctx, nres, gen.Uniform(0, 1),
                                       gen.Uniform(0, 1), gen.Uniform(1, 2), 2);
    auto composed = ComposeIndexingMaps(first, second);
    REQUIRE(composed.ok());
    if (first.IsKnownEmpty() || second.IsKnownEmpty()) continue;
    CheckComposition(first, second, *composed);
    non_empty += composed->IsKnownEmpty() ? 0 : 1;
    for (Expr r : composed->results()) with_min_max += CountMinMax(r) > 0;
  }
  CHECK(non_empty > 300);
  CHECK(with_min_max > 300);
}

TEST_CASE("composition of documented maps", "[compose]") {
  ExprContext ctx;
  // Collapse then expand is the identity on [0, 3] x [0, 7].
  IndexingMap collapse = MustParse(
      "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]", &ctx);
  IndexingMap expand = MustParse(
      "(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]", &ctx);
  auto id = ComposeIndexingMaps(collapse, expand);
  REQUIRE(id.ok());
  CheckComposition(collapse, expand, *id);
  IndexingMap identity = MustParse(
      "(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 7]", &ctx);
  auto eq = EquivalentByEnumeration(*id, identity);
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);

  // Slice o->i composed with a reduce: symbols of the second come first.
  IndexingMap reduce = MustParse(
      "(d0)[s0] -> (s0, d0), domain: d0 in [0, 2], s0 in [0, 4]", &ctx);
  IndexingMap slice = MustParse(
      "(d0, d1)[s0] -> (d0 + 5, d1 * 2 + s0), domain: d0 in [0, 4], "
      "d1 in [0, 2], s0 in [0, 1]",
      &ctx);
  auto rs = ComposeIndexingMaps(reduce, slice);
  REQUIRE(rs.ok());
  CHECK(rs->num_range_vars() == 2);
  CheckComposition(reduce, slice, *rs);
  std::vector<int64_t> d = {1},
                       s = {1, 3};  // s0 of slice = 1, s0 of reduce = 3
  CHECK(rs->Evaluate(d, s).value() == std::vector<int64_t>{8, 3});

  // Runtime variables: [range(second), range(first), rt(second), rt(first)].
  IndexingMap f = MustParse(
      "(d0)[s0]{rt0} -> (d0 + s0 + rt0), domain: d0 in [0, 3], s0 in [0, 1], "
      "rt0 in [0, 2]",
      &ctx);
  IndexingMap g = MustParse(
      "(d0)[s0]{rt0} -> (d0 * 10 + s0 * 100 + rt0 * 1000), domain: "
      "d0 in [0, 5], s0 in [0, 1], rt0 in [0, 1]",
      &ctx);
  auto fg = ComposeIndexingMaps(f, g);
  REQUIRE(fg.ok());
  CheckComposition(f, g, *fg);
  std::vector<int64_t> p = {1}, q = {1, 0, 1, 2};  // s(g), s(f), rt(g), rt(f)
  CHECK(fg->Evaluate(p, q).value() == std::vector<int64_t>{1130});
}

TEST_CASE("composition errors and empty maps", "[compose]") {
  ExprContext ctx;
  IndexingMap a = MustParse("(d0) -> (d0, d0), domain: d0 in [0, 3]", &ctx);
  IndexingMap b = MustParse("(d0) -> (d0), domain: d0 in [0, 3]", &ctx);
  auto bad = ComposeIndexingMaps(a, b);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);

  ExprContext other;
  IndexingMap c = MustParse("(d0) -> (d0), domain: d0 in [0, 3]", &other);
  auto cross = ComposeIndexingMaps(b, c);
  REQUIRE_FALSE(cross.ok());
  CHECK(cross.error().code == ErrorCode::kInvalidArgument);

  IndexingMap empty = MustParse("(d0) -> (d0), domain: d0 in [3, 0]", &ctx);
  auto e1 = ComposeIndexingMaps(empty, b);
  REQUIRE(e1.ok());
  CHECK(e1->IsKnownEmpty());
  CHECK(e1->num_dims() == 1);
  auto e2 = ComposeIndexingMaps(b, empty);
  REQUIRE(e2.ok());
  CHECK(e2->IsKnownEmpty());

  // Disjoint ranges: the composition has no point (not necessarily known).
  IndexingMap low = MustParse("(d0) -> (d0), domain: d0 in [0, 3]", &ctx);
  IndexingMap high = MustParse("(d0) -> (d0), domain: d0 in [10, 13]", &ctx);
  auto disjoint = ComposeIndexingMaps(low, high);
  REQUIRE(disjoint.ok());
  CHECK(IsEmptyByEnumeration(*disjoint).value());
}

TEST_CASE("a divisor that composition turns into 0 is an error", "[compose]") {
  ExprContext ctx;
  IndexingMap zero = MustParse("(d0) -> (0), domain: d0 in [0, 3]", &ctx);
  // In a result and in a constraint: both go through the same substitution.
  for (const char* text :
       {"(d0) -> (d0 + 100 mod d0), domain: d0 in [0, 9]",
        "(d0) -> (d0), domain: d0 in [0, 9], 7 floordiv d0 in [0, 7]"}) {
    IndexingMap second = MustParse(text, &ctx);
    auto composed = ComposeIndexingMaps(zero, second);
    INFO(text);
    REQUIRE_FALSE(composed.ok());
    CHECK(composed.error().message.find("divisor") != std::string::npos);
  }
  // A divisor that stays non-zero composes.
  IndexingMap two = MustParse("(d0) -> (2), domain: d0 in [0, 3]", &ctx);
  IndexingMap second =
      MustParse("(d0) -> (100 mod d0), domain: d0 in [0, 9]", &ctx);
  auto composed = ComposeIndexingMaps(two, second);
  REQUIRE(composed.ok());
  CheckComposition(two, second, *composed);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
