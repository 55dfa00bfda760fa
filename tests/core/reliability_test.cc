// Reliability regression tests for core: transformations
// exact at the int64 limits, compose's size budget, the deadline.
#include <catch2/catch.hpp>
#include <string>

#include "core/budget.h"
#include "core/enumerate.h"
#include "core/int_math.h"
#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::MustParse;

const std::string kMin = std::to_string(kInt64Min);
const std::string kMax = std::to_string(kInt64Max);

// RescaleSymbols once removed the constraint but left s0 unbounded, so
// the domain grew. s0 = 2^62 * s0' with s0 in the int64 range gives s0' in
// [-2, 1].
TEST_CASE("rescale_symbols at the int64 limits is exact", "[reliability]") {
  ExprContext ctx;
  IndexingMap m =
      MustParse("()[s0] -> (s0), domain: s0 in [" + kMin + ", " + kMax +
                    "], s0 mod 4611686018427387904 in [0, 0]",
                &ctx);
  CHECK(m.RescaleSymbols());
  CHECK(PrintIndexingMap(m) ==
        "()[s0] -> (s0 * 4611686018427387904), domain: s0 in [-2, 1]");

  // A remainder: s0 = 3 * s0' + 1 over the whole int64 range.
  IndexingMap r = MustParse("()[s0] -> (s0), domain: s0 in [" + kMin + ", " +
                                kMax + "], s0 mod 3 in [1, 1]",
                            &ctx);
  CHECK(r.RescaleSymbols());
  CHECK(PrintIndexingMap(r) ==
        "()[s0] -> (s0 * 3 + 1), domain: s0 in [-3074457345618258603, "
        "3074457345618258602]");
  // The new ends map onto the smallest and largest original values that
  // satisfy the constraint (both int64 limits are 1 mod 3): the domain
  // neither grew nor shrank.
  std::vector<int64_t> lo{r.range_vars()[0].bounds.lower};
  std::vector<int64_t> hi{r.range_vars()[0].bounds.upper};
  CHECK(r.Evaluate({}, lo).value()[0] == kInt64Min);
  CHECK(r.Evaluate({}, hi).value()[0] == kInt64Max);

  // Near the ends with an offset bound.
  IndexingMap n = MustParse("()[s0] -> (s0), domain: s0 in [" + kMin +
                                ", -9223372036854775800], s0 mod 5 in [4, 4]",
                            &ctx);
  CHECK(n.RescaleSymbols());
  const Interval b = n.range_vars()[0].bounds;
  for (int64_t v = b.lower; v <= b.upper; ++v) {
    std::vector<int64_t> point{v};
    int64_t s = n.Evaluate({}, point).value()[0];
    CHECK(*Mod(s, 5) == 4);
    CHECK(s <= -9223372036854775800);
  }
  // Both original values (INT64_MIN + 2 and + 7, the ones that are 4 mod 5)
  // are still reachable.
  CHECK(b.Size() == 2);
}

// RangeOverBounds used to saturate: [0, 2^62] * 4 + (-5) gave an upper end
// of INT64_MAX - 5, which compose took for a real bound and so dropped the
// constraint that d0 * 4 - 5 lie in second's domain.
TEST_CASE("RangeOverBounds does not trust saturated ends", "[reliability]") {
  ExprContext ctx;
  IndexingMap first = MustParse(
      "(d0) -> (d0 * 4 - 5), domain: d0 in [0, 4611686018427387904]", &ctx);
  CHECK(RangeOverBounds(first.results()[0], first).upper == kInt64Max);
  IndexingMap second = MustParse(
      "(d0) -> (d0), domain: d0 in [-5, " + std::to_string(kInt64Max - 5) + "]",
      &ctx);
  auto composed = ComposeIndexingMaps(first, second);
  REQUIRE(composed.ok());
  INFO(PrintIndexingMap(*composed));
  // d0 = 2^62 maps past second's domain: it must not be in the domain.
  auto in = composed->InDomain(std::vector<int64_t>{4611686018427387904}, {});
  CHECK_FALSE((in.ok() && *in));
  CHECK(composed->constraints().size() == 1);
  // An exact bound that holds everywhere is still skipped.
  IndexingMap small =
      MustParse("(d0) -> (d0 * 4 - 5), domain: d0 in [0, 10]", &ctx);
  IndexingMap wide = MustParse("(d0) -> (d0), domain: d0 in [-5, 35]", &ctx);
  CHECK(ComposeIndexingMaps(small, wide)->constraints().empty());
}

// fuzz_map_simplify: composing made a divisor of the second map the
// constant 0, which aborted (an IXA_CHECK in the expression builder).
TEST_CASE("compose that divides by zero everywhere is an error",
          "[reliability]") {
  ExprContext ctx;
  IndexingMap first = MustParse("(d0) -> (0), domain: d0 in [0, 9]", &ctx);
  IndexingMap second = MustParse(
      "(d0) -> (100 mod d0, d0 floordiv (d0 * 2)), domain: d0 in "
      "[0, 9]",
      &ctx);
  auto composed = ComposeIndexingMaps(first, second);
  REQUIRE_FALSE(composed.ok());
  CHECK(composed.error().code == ErrorCode::kInvalidArgument);
  // In a constraint too.
  IndexingMap constrained = MustParse(
      "(d0) -> (d0), domain: d0 in [0, 9], 7 ceildiv d0 in [0, 3]", &ctx);
  CHECK(ComposeIndexingMaps(first, constrained).error().code ==
        ErrorCode::kInvalidArgument);
  // The exact input the fuzzer found (composed with itself), when the
  // parser still reads it.
  auto found = ParseIndexingMap(
      "(d0, d1, d2) -> ((100d0 + 10d1 +-d2) floorDiv 10*0, ((100 mod d0 + "
      "05d1 + d2) mod 100) floordiv 10, 2 mod 10), domain: 00 in [0, 9], d1 "
      "in [0, 9], d2 in [0, 9]",
      &ctx);
  if (found.ok()) {
    auto self = ComposeIndexingMaps(*found, *found);
    CHECK((self.ok() || self.error().code == ErrorCode::kInvalidArgument));
  }
}

TEST_CASE("TreeSize counts shared nodes once per use", "[reliability]") {
  ExprContext ctx;
  Expr x = ctx.Dim(0);
  for (int i = 0; i < 100; ++i) x = ctx.Add(x.FloorDiv(2), x % 3);
  // 100 levels of doubling: a tree of about 2^100 nodes, 301 distinct.
  CHECK(TreeSize(std::vector<Expr>{x}, 1000) == 1001);
  CHECK(TreeSize(std::vector<Expr>{x}, kInt64Max) == kInt64Max);
  Expr small = ctx.Add(ctx.Dim(0), ctx.Dim(1));
  CHECK(TreeSize(std::vector<Expr>{small, small}, 100) == 6);
}

// Long compose chains, core side: composing without simplifying between steps
// grows the written-out expressions exponentially; compose answers
// limit_exceeded at kMaxComposedTreeNodes instead of building (and later
// printing) them.
TEST_CASE("compose has a size budget", "[reliability]") {
  ExprContext ctx;
  IndexingMap step = MustParse(
      "(d0, d1) -> (d0 floordiv 2 + d1 mod 3, d0 mod 5 + d1 floordiv 7), "
      "domain: d0 in [0, 1000], d1 in [0, 1000]",
      &ctx);
  IndexingMap acc = step;
  bool hit = false;
  for (int i = 0; i < 64 && !hit; ++i) {
    auto next = ComposeIndexingMaps(acc, step);
    if (!next.ok()) {
      CHECK(next.error().code == ErrorCode::kLimitExceeded);
      CHECK(next.error().message.find("compose") != std::string::npos);
      hit = true;
      break;
    }
    acc = std::move(next).value();
    std::vector<Expr> all = acc.results();
    for (const Constraint& c : acc.constraints()) all.push_back(c.expr);
    CHECK(TreeSize(all, kMaxComposedTreeNodes) <= kMaxComposedTreeNodes);
  }
  CHECK(hit);
}

TEST_CASE("deadline scopes", "[reliability]") {
  CHECK_FALSE(DeadlineExpired("test"));  // no scope: never
  CHECK(DeadlineExpiredIn() == nullptr);
  {
    DeadlineScope outer(1);
    // Spin (bounded) until the clock passes the deadline.
    bool expired = false;
    for (int64_t i = 0; i < (int64_t{1} << 40) && !expired; ++i) {
      expired = DeadlineExpired("spin");
    }
    CHECK(expired);
    CHECK(std::string(DeadlineExpiredIn()) == "spin");
    CHECK(DeadlineExpired("later"));  // sticky; the first name is kept
    Error e = DeadlineError();
    CHECK(e.code == ErrorCode::kLimitExceeded);
    CHECK(e.message == "time budget of 1 ms ran out in spin");
    {
      DeadlineScope inner(100000);  // cannot extend an expired deadline
      CHECK(DeadlineExpired("inner"));
    }
  }
  CHECK_FALSE(DeadlineExpired("after"));
  CHECK(DeadlineExpiredIn() == nullptr);
  {
    DeadlineScope none(0);  // no deadline
    for (int i = 0; i < 1000; ++i) CHECK_FALSE(DeadlineExpired("none"));
  }
}

// StackNearlyExhausted lets recursion stop before the end of the stack:
// frames of 4 KiB each until it answers true, which must happen long
// before the recursion would have run off an 8 MiB stack (a crash).
int RecurseUntilStackLow(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  if (StackNearlyExhausted() || depth >= 1'000'000) return depth;
  int deepest = RecurseUntilStackLow(depth + 1);
  frame[1] = 0;  // a use after the call: the frame stays (no tail call)
  return deepest;
}

TEST_CASE("StackNearlyExhausted answers before the stack ends",
          "[reliability]") {
  CHECK_FALSE(StackNearlyExhausted());
  int depth = RecurseUntilStackLow(0);
#if defined(__linux__)
  CHECK(depth < 1'000'000);  // it answered true
  CHECK(depth > 16);         // not at the top of the stack
#endif
  CHECK_FALSE(StackNearlyExhausted());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
