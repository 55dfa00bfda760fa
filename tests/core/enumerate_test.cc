// Brute-force decisions: ForEachDomainPoint, IsEmptyByEnumeration,
// EquivalentByEnumeration (incl. counterexamples and the size limit).
#include "core/enumerate.h"

#include <catch2/catch.hpp>

#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::MustParse;

TEST_CASE("IsEmptyByEnumeration", "[enumerate]") {
  ExprContext ctx;
  auto empty = [&](const char* text) {
    INFO(text);
    auto r = IsEmptyByEnumeration(MustParse(text, &ctx));
    REQUIRE(r.ok());
    return *r;
  };
  // xla-reference §(a): not detected by IsKnownEmpty, found by enumeration.
  CHECK(
      empty("(d0) -> (d0), domain: d0 in [1, 50], d0 mod 7 in [0, 0], "
            "d0 mod 11 in [0, 0]"));
  CHECK_FALSE(
      empty("(d0) -> (d0), domain: d0 in [0, 50], d0 mod 7 in [0, 0], "
            "d0 mod 11 in [0, 0]"));
  CHECK_FALSE(
      empty("(d0) -> (d0), domain: d0 in [0, 100], d0 mod 7 in [0, 0], "
            "d0 mod 11 in [0, 0], d0 in [1, 100]"));
  CHECK(
      empty("(d0) -> (d0), domain: d0 in [0, 100], d0 mod 8 + 5 in [50, 54]"));
  CHECK(empty("(d0) -> (d0), domain: d0 in [10, 0]"));
  CHECK(empty("KNOWN EMPTY"));
  CHECK_FALSE(empty("() -> ()"));
  CHECK_FALSE(empty("()[s0] -> (s0), domain: s0 in [3, 3]"));
  CHECK(
      empty("(d0, d1) -> (d0), domain: d0 in [0, 3], d1 in [0, 3], "
            "d0 + d1 in [7, 9]"));
}

TEST_CASE("ForEachDomainPoint visits exactly the domain", "[enumerate]") {
  ExprContext ctx;
  IndexingMap m = MustParse(
      "(d0)[s0] -> (d0), domain: d0 in [0, 5], s0 in [-1, 1], "
      "d0 + s0 in [2, 3]",
      &ctx);
  std::vector<std::pair<int64_t, int64_t>> seen;
  auto r = ForEachDomainPoint(m, 1000, [&](const Point& p) {
    seen.push_back({p.dims[0], p.symbols[0]});
    return true;
  });
  REQUIRE(r.ok());
  CHECK(*r);
  const std::vector<std::pair<int64_t, int64_t>> want = {
      {1, 1}, {2, 0}, {2, 1}, {3, -1}, {3, 0}, {4, -1}};
  CHECK(seen == want);
  // Early stop.
  int count = 0;
  r = ForEachDomainPoint(m, 1000, [&](const Point&) { return ++count < 2; });
  REQUIRE(r.ok());
  CHECK_FALSE(*r);
  CHECK(count == 2);
}

TEST_CASE("EquivalentByEnumeration", "[enumerate]") {
  ExprContext ctx;
  auto equiv = [&](const char* a, const char* b) {
    INFO(a << "  vs  " << b);
    auto r = EquivalentByEnumeration(MustParse(a, &ctx), MustParse(b, &ctx));
    REQUIRE(r.ok());
    return *r;
  };
  // The simplifier examples of docs/indexing.md §5 are equivalent to their
  // results.
  CHECK(equiv("(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: "
              "d0 in [0, 6], d1 in [0, 14]",
              "(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]")
            .equivalent);
  CHECK(equiv("(d0, d1, d2) -> ((100d0 + 10d1 + d2) floordiv 100, "
              "((100d0 + 10d1 + d2) mod 100) floordiv 10, d2 mod 10), domain: "
              "d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
              "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], "
              "d1 in [0, 9], d2 in [0, 9]")
            .equivalent);
  CHECK(
      equiv("(d0, d1, d2) -> ((16d0 + 4d1 + d2) floordiv 8, "
            "(16d0 + 4d1 + d2) mod 8), domain: d0 in [0, 9], d1 in [0, 9], "
            "d2 in [0, 9]",
            "(d0, d1, d2) -> (2d0 + (4d1 + d2) floordiv 8, (4d1 + d2) mod 8), "
            "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]")
          .equivalent);
  CHECK(equiv("(d0, d1) -> (-((-11d0 - d1 + 109) floordiv 11) + 9), domain: "
              "d0 in [0, 9], d1 in [0, 10]",
              "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 10]")
            .equivalent);
  // XLA's document's literal reading is not the identity (docs/indexing.md §5
  // note).
  Equivalence seed = equiv(
      "(d0, d1) -> (-(-11d0 - d1 + 109) floordiv 11 + 9), domain: "
      "d0 in [0, 9], d1 in [0, 10]",
      "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 10]");
  CHECK_FALSE(seed.equivalent);

  // Counterexample: the first differing point in lexicographic order.
  Equivalence mod4 = equiv("(d0) -> (d0 mod 4), domain: d0 in [0, 9]",
                           "(d0) -> (d0), domain: d0 in [0, 9]");
  CHECK_FALSE(mod4.equivalent);
  REQUIRE(mod4.counterexample.has_value());
  CHECK(mod4.counterexample->dims == std::vector<int64_t>{4});
  // Different domains with equal values.
  Equivalence dom = equiv("(d0) -> (d0), domain: d0 in [0, 9]",
                          "(d0) -> (d0), domain: d0 in [0, 10]");
  CHECK_FALSE(dom.equivalent);
  REQUIRE(dom.counterexample.has_value());
  CHECK(dom.counterexample->dims == std::vector<int64_t>{10});
  // A constraint that removes a point.
  Equivalence odd =
      equiv("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]",
            "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1], "
            "d0 + s0 in [0, 3]");
  CHECK_FALSE(odd.equivalent);
  REQUIRE(odd.counterexample.has_value());
  CHECK(odd.counterexample->dims == std::vector<int64_t>{3});
  CHECK(odd.counterexample->symbols == std::vector<int64_t>{1});
  // Known-empty against an empty domain, and against a non-empty one.
  CHECK(equiv("(d0) -> (d0), domain: d0 in [3, 0]",
              "(d0) -> (d0), domain: d0 in [0, 5], d0 mod 7 in [6, 6]")
            .equivalent);
  CHECK_FALSE(equiv("(d0) -> (d0), domain: d0 in [3, 0]",
                    "(d0) -> (d0), domain: d0 in [0, 5]")
                  .equivalent);
  // Different constraint sets, same domain.
  CHECK(equiv("(d0) -> (d0), domain: d0 in [0, 9], d0 mod 2 in [0, 0]",
              "(d0) -> ((d0 floordiv 2) * 2), domain: d0 in [0, 9], "
              "d0 mod 2 in [0, 0], d0 floordiv 2 in [0, 4]")
            .equivalent);
}

TEST_CASE("enumeration refuses domains that are too large", "[enumerate]") {
  ExprContext ctx;
  IndexingMap big =
      MustParse("(d0) -> (d0), domain: d0 in [0, 100000000]", &ctx);
  auto e = IsEmptyByEnumeration(big);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().code == ErrorCode::kLimitExceeded);
  auto q = EquivalentByEnumeration(big, big);
  REQUIRE_FALSE(q.ok());
  CHECK(q.error().code == ErrorCode::kLimitExceeded);
  // Unbounded variables.
  IndexingMap unbounded = MustParse("(d0) -> (d0 floordiv 2)", &ctx);
  e = IsEmptyByEnumeration(unbounded);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().code == ErrorCode::kLimitExceeded);
  // The product overflows int64.
  IndexingMap huge = MustParse(
      "(d0, d1, d2) -> (d0), domain: d0 in [0, 4000000000], "
      "d1 in [0, 4000000000], d2 in [0, 4000000000]",
      &ctx);
  e = IsEmptyByEnumeration(huge);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().code == ErrorCode::kLimitExceeded);
  // An explicit small limit.
  IndexingMap ten = MustParse("(d0) -> (d0), domain: d0 in [0, 9]", &ctx);
  CHECK(IsEmptyByEnumeration(ten, 10).ok());
  e = IsEmptyByEnumeration(ten, 9);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().code == ErrorCode::kLimitExceeded);
}

TEST_CASE("EquivalentByEnumeration rejects maps over different variables",
          "[enumerate]") {
  ExprContext ctx;
  auto r = EquivalentByEnumeration(
      MustParse("(d0) -> (d0), domain: d0 in [0, 3]", &ctx),
      MustParse("(d0, d1) -> (d0), domain: d0 in [0, 3], d1 in [0, 0]", &ctx));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
  r = EquivalentByEnumeration(
      MustParse("(d0) -> (d0), domain: d0 in [0, 3]", &ctx),
      MustParse("(d0) -> (d0, d0), domain: d0 in [0, 3]", &ctx));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("enumeration reports evaluation errors", "[enumerate]") {
  ExprContext ctx;
  // A semi-affine constraint that divides by zero at s0 = 0.
  IndexingMap m = MustParse(
      "(d0)[s0] -> (d0), domain: d0 in [0, 3], s0 in [0, 2], "
      "d0 floordiv s0 in [0, 1]",
      &ctx);
  auto r = IsEmptyByEnumeration(m);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
