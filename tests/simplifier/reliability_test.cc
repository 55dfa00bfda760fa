// Reliability regression tests for the simplifier: no
// signed overflow at the int64 limits (each input below made UBSan report
// one; the sanitizer pass of tools/test.sh runs them with
// -fno-sanitize-recover, so they fail there if it comes back), compose of
// long chains, and the deadline.
#include <pthread.h>

#include <catch2/catch.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/budget.h"
#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/compose.h"
#include "simplifier/decide.h"
#include "simplifier/simplify.h"
#include "tests/simplifier/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

// Simplifies; where the domain can be enumerated the result must equal
// the original at every point, else it must at least print and re-parse.
void SimplifyAndCheck(const std::string& text) {
  INFO(text);
  ExprContext ctx;
  IndexingMap original = ParseOrDie(text, &ctx);
  IndexingMap m = original;
  Simplify(&m);
  std::string printed = PrintIndexingMap(m);
  INFO("simplified: " << printed);
  ExprContext fresh;
  CHECK(ParseIndexingMap(printed, &fresh).ok());
  auto self = EquivalentByEnumeration(original, original, 1 << 12);
  if (!self.ok()) return;
  auto eq = EquivalentByEnumeration(original, m, 1 << 12);
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);
}

// Overflows found in the rules, and what the audit of the rules found next
// to them.
TEST_CASE("no signed overflow in the simplifier at the int64 limits",
          "[reliability]") {
  // rule_util.cc FindPeriodSplit: `2 * low` with low = 2^63 - 3.
  SimplifyAndCheck(
      "(d0) -> ((d0 * -2) mod 9223372036854775807), domain: d0 in [0, 4]");
  // FindPeriodSplit: the width of a finite range past int64.
  SimplifyAndCheck(
      "(d0, d1) -> ((d0 * 3 + d1) floordiv 2), domain: d0 in "
      "[-9223372036854775807, 9223372036854775806], d1 in [0, 1]");
  SimplifyAndCheck(
      "(d0, d1) -> ((d0 * d1) floordiv 2), domain: d0 in "
      "[-9223372036854775807, 9223372036854775806], d1 in [0, 1]");
  // rules_sum.cc sum.recombine_div_mod: -(k*b) with k*b = INT64_MIN.
  SimplifyAndCheck(
      "(d0) -> ((d0 mod 2) * -4611686018427387904 + (d0 floordiv 2) * "
      "-9223372036854775808)");
  // constraints.cc constraint.negate: -INT64_MIN as a finite end.
  SimplifyAndCheck(
      "(d0) -> (d0), domain: d0 in [0, 10], -d0 in [-9223372036854775808, "
      "-9223372036854775808]");
  SimplifyAndCheck(
      "(d0, d1) -> (d0 + d1), domain: d0 in [-9223372036854775808, "
      "9223372036854775807], d1 in [0, 5], d1 - d0 in "
      "[-9223372036854775808, -9223372036854775808]");
  // constraints.cc constraint.propagate_bounds: INT64_MIN ceildiv -1.
  SimplifyAndCheck(
      "(d0, d1) -> (d0 + d1), domain: d0 in [0, 5], d1 in "
      "[-9223372036854775808, 9223372036854775807], d0 - d1 in "
      "[-9223372036854775808, -9223372036854775808]");
  // box_fit.h BoxAxis::size of a finite range with more than 2^63 values.
  SimplifyAndCheck(
      "(d0, d1) -> ((d0 * d1) mod 3), domain: d0 in "
      "[-9223372036854775807, 9223372036854775806], d1 in [0, 1]");
}

// ---- compose of long chains ----

std::string Vars(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? ", d" : "d") + std::to_string(i);
  return s;
}

std::string Domain(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", d" : "d") + std::to_string(i) + " in [0, " +
         std::to_string(shape[i] - 1) + "]";
  }
  return s;
}

// An index of `shape` -> the index of the same element after a transpose.
std::string TransposeMap(const std::vector<int64_t>& shape,
                         const std::vector<int>& perm) {
  std::string results;
  for (size_t i = 0; i < perm.size(); ++i) {
    results += (i ? ", d" : "d") + std::to_string(perm[i]);
  }
  return "(" + Vars(shape.size()) + ") -> (" + results +
         "), domain: " + Domain(shape);
}

// An index of `from` -> the index of the same (row-major) element in `to`.
std::string ReshapeMap(const std::vector<int64_t>& from,
                       const std::vector<int64_t>& to) {
  std::string linear;
  int64_t stride = 1;
  for (int i = static_cast<int>(from.size()) - 1; i >= 0; --i) {
    std::string term = "d" + std::to_string(i);
    if (stride != 1) term += " * " + std::to_string(stride);
    linear = linear.empty() ? term : term + " + " + linear;
    stride *= from[i];
  }
  std::vector<std::string> results(to.size());
  stride = 1;
  for (int j = static_cast<int>(to.size()) - 1; j >= 0; --j) {
    std::string e = "(" + linear + ")";
    if (stride != 1) e += " floordiv " + std::to_string(stride);
    if (j != 0) e = "(" + e + ") mod " + std::to_string(to[j]);
    results[j] = e;
    stride *= to[j];
  }
  std::string joined;
  for (size_t j = 0; j < results.size(); ++j) {
    joined += (j ? ", " : "") + results[j];
  }
  return "(" + Vars(from.size()) + ") -> (" + joined +
         "), domain: " + Domain(from);
}

// A chain of `n` ordinary rank-8 maps, in cycles of four: transpose pairs
// of dims, merge the pairs (rank 4), transpose, split them back (rank 8).
// With `mixed_radix`, every other map is instead a reshape to a shuffled
// shape, whose composition is genuinely irregular.
std::vector<std::string> Chain(int n, bool mixed_radix, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> shape = {2, 3, 4, 2, 3, 2, 4, 5};
  std::vector<int64_t> split_shape;
  std::vector<std::string> maps;
  while (static_cast<int>(maps.size()) < n) {
    int step = static_cast<int>(maps.size()) % 4;
    if (mixed_radix) {
      if (step % 2 == 0) {
        std::vector<int> perm(shape.size());
        for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), rng);
        maps.push_back(TransposeMap(shape, perm));
        std::vector<int64_t> next;
        for (int p : perm) next.push_back(shape[p]);
        shape = next;
      } else {
        std::vector<int64_t> next = shape;
        std::shuffle(next.begin(), next.end(), rng);
        maps.push_back(ReshapeMap(shape, next));
        shape = next;
      }
      continue;
    }
    if (step == 0) {
      std::vector<int> pairs = {0, 1, 2, 3};
      std::shuffle(pairs.begin(), pairs.end(), rng);
      std::vector<int> perm;
      for (int p : pairs) perm.insert(perm.end(), {2 * p, 2 * p + 1});
      maps.push_back(TransposeMap(shape, perm));
      std::vector<int64_t> next;
      for (int p : perm) next.push_back(shape[p]);
      shape = next;
    } else if (step == 1) {
      std::vector<int64_t> merged;
      for (int j = 0; j < 4; ++j)
        merged.push_back(shape[2 * j] * shape[2 * j + 1]);
      maps.push_back(ReshapeMap(shape, merged));
      split_shape = shape;
      shape = merged;
    } else if (step == 2) {
      std::vector<int> perm = {0, 1, 2, 3};
      std::shuffle(perm.begin(), perm.end(), rng);
      maps.push_back(TransposeMap(shape, perm));
      std::vector<int64_t> next, split;
      for (int p : perm) {
        next.push_back(shape[p]);
        split.insert(split.end(), {split_shape[2 * p], split_shape[2 * p + 1]});
      }
      shape = next;
      split_shape = split;
    } else {
      maps.push_back(ReshapeMap(shape, split_shape));
      shape = split_shape;
    }
  }
  return maps;
}

// The chain applied map by map at random points of the first map's domain
// must give the composed map's results.
void CheckChainAtRandomPoints(const std::vector<IndexingMap>& maps,
                              const IndexingMap& composed, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 200; ++k) {
    std::vector<int64_t> point;
    for (const Variable& v : maps[0].dims()) {
      point.push_back(std::uniform_int_distribution<int64_t>(
          v.bounds.lower, v.bounds.upper)(rng));
    }
    std::vector<int64_t> x = point;
    for (const IndexingMap& m : maps) {
      REQUIRE(m.InDomain(x, {}).value());
      x = m.Evaluate(x, {}).value();
    }
    INFO(PrintIndexingMap(composed));
    REQUIRE(composed.InDomain(point, {}).value());
    CHECK(composed.Evaluate(point, {}).value() == x);
  }
}

TEST_CASE("compose of 64 reshape/transpose maps", "[reliability]") {
  ExprContext ctx;
  std::vector<IndexingMap> maps;
  for (const std::string& text : Chain(64, /*mixed_radix=*/false, 7)) {
    maps.push_back(ParseOrDie(text, &ctx));
  }
  auto composed = ComposeChain(maps);
  REQUIRE(composed.ok());
  // Simplified step by step, the chain stays a permutation of dims.
  for (Expr r : composed->results()) CHECK(r.IsDim());
  CHECK(composed->constraints().empty());
  CheckChainAtRandomPoints(maps, *composed, 1);
  // The same through the text a client would send.
  CHECK(PrintIndexingMap(*composed).find("floordiv") == std::string::npos);
}

TEST_CASE("compose of an irregular chain answers or refuses", "[reliability]") {
  for (int n : {8, 16, 32, 64}) {
    INFO("chain of " << n);
    ExprContext ctx;
    std::vector<IndexingMap> maps;
    for (const std::string& text : Chain(n, /*mixed_radix=*/true, 3)) {
      maps.push_back(ParseOrDie(text, &ctx));
    }
    auto composed = ComposeChain(maps);
    if (composed.ok()) {
      CheckChainAtRandomPoints(maps, *composed, n);
    } else {
      // The size budget, never a hang or a wrong map.
      CHECK(composed.error().code == ErrorCode::kLimitExceeded);
      CHECK(n > 8);
    }
  }
}

TEST_CASE("an expired deadline stops simplify and decide soundly",
          "[reliability]") {
  ExprContext ctx;
  const std::string text =
      "(d0, d1) -> ((d0 * 8 + d1) floordiv 8, (d0 * 8 + d1) mod 8), "
      "domain: d0 in [0, 3], d1 in [0, 7]";
  IndexingMap original = ParseOrDie(text, &ctx);
  IndexingMap second = ParseOrDie(
      "(d0, d1) -> (d1, d0), domain: d0 in [0, 7], d1 in [0, 3]", &ctx);
  IndexingMap m = original;
  {
    DeadlineScope deadline(1);
    while (!DeadlineExpired("test")) {
    }
    SimplifyResult r = Simplify(&m);
    CHECK(r.budget_exhausted);
    auto eq = EquivalentByEnumeration(original, m);  // polls it too
    REQUIRE_FALSE(eq.ok());
    CHECK(eq.error().code == ErrorCode::kLimitExceeded);
    auto empty = IsEmpty(original);
    REQUIRE_FALSE(empty.ok());
    CHECK(empty.error().code == ErrorCode::kLimitExceeded);
    CHECK(empty.error().message.find("time budget") != std::string::npos);
    auto composed = ComposeSimplified(original, second);
    REQUIRE_FALSE(composed.ok());
    CHECK(composed.error().code == ErrorCode::kLimitExceeded);
  }
  // Whatever simplify did before it stopped is still an equal map.
  auto eq = EquivalentByEnumeration(original, m);
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);
  CHECK(ComposeSimplified(original, second).ok());
}

// A chain of variables makes the solver recurse once per eliminated
// variable, each level with its systems on the stack. With a budget large
// enough to get deep, the answer is the answer where the stack suffices,
// and limit_exceeded, not a stack overflow, where it does not: on a thread
// whose stack is only 64 KiB more than the reserve the recursion keeps
// free (core/budget.h), 150 levels cannot fit in any build.
Result<bool> IsEmptyOnStack(const IndexingMap& map,
                            const DecideOptions& options, size_t stack_bytes) {
  struct Call {
    const IndexingMap* map;
    const DecideOptions* options;
    std::optional<Result<bool>> result;
  } call{&map, &options, std::nullopt};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        c->result = IsEmpty(*c->map, *c->options);
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  REQUIRE(rc == 0);
  pthread_join(thread, nullptr);
  REQUIRE(call.result.has_value());
  return *call.result;
}

TEST_CASE("a deep variable chain ends as limit_exceeded on a small stack",
          "[reliability]") {
  ExprContext ctx;
  std::string dims, domain, constraints;
  constexpr int kVars = 150;
  for (int i = 0; i < kVars; ++i) {
    if (i) {
      dims += ", ";
      domain += ", ";
    }
    dims += "d" + std::to_string(i);
    domain += "d" + std::to_string(i) + " in [0, 1000000]";
    if (i + 1 < kVars) {
      constraints += ", d" + std::to_string(i + 1) + " * 3 - d" +
                     std::to_string(i) + " * 2 in [1, 7]";
    }
  }
  auto map = ParseIndexingMap(
      "(" + dims + ") -> (d0), domain: " + domain + constraints, &ctx);
  REQUIRE(map.ok());
  DecideOptions options;
  options.budget = int64_t{1} << 40;
  // Every d_i = 1 is a point.
  Result<bool> roomy = IsEmptyOnStack(*map, options, size_t{64} << 20);
  REQUIRE(roomy.ok());
  CHECK_FALSE(*roomy);
  Result<bool> tight = IsEmptyOnStack(
      *map, options, static_cast<size_t>(kStackReserveBytes) + (64 << 10));
  REQUIRE_FALSE(tight.ok());
  CHECK(tight.error().code == ErrorCode::kLimitExceeded);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
