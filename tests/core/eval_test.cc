// Integer semantics (docs/indexing.md §1): floordiv / ceildiv / mod signs,
// INT64_MIN, overflow detection, and core/int_math.h against core/bigint.h.
#include <catch2/catch.hpp>
#include <random>

#include "core/bigint.h"
#include "core/int_math.h"
#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::MustParse;
constexpr int64_t kMin = kInt64Min;
constexpr int64_t kMax = kInt64Max;

TEST_CASE("floordiv, ceildiv and mod follow docs/indexing.md §1", "[eval]") {
  CHECK(FloorDiv(-7, 2) == -4);
  CHECK(Mod(-7, 2) == 1);
  CHECK(CeilDiv(-7, 2) == -3);
  CHECK(FloorDiv(7, -2) == -4);
  CHECK(Mod(7, -2) == -1);
  CHECK(CeilDiv(7, -2) == -3);
  CHECK(FloorDiv(-7, -2) == 3);
  CHECK(Mod(-7, -2) == -1);
  CHECK(CeilDiv(-7, -2) == 4);
  CHECK(FloorDiv(6, -2) == -3);
  CHECK(Mod(6, -2) == 0);
  CHECK_FALSE(FloorDiv(1, 0).has_value());
  CHECK_FALSE(CeilDiv(1, 0).has_value());
  CHECK_FALSE(Mod(1, 0).has_value());
  // INT64_MIN.
  CHECK_FALSE(FloorDiv(kMin, -1).has_value());
  CHECK_FALSE(CeilDiv(kMin, -1).has_value());
  CHECK(Mod(kMin, -1) == 0);
  CHECK(FloorDiv(kMin, 1) == kMin);
  CHECK(FloorDiv(kMin, 2) == kMin / 2);
  CHECK(Mod(kMin, kMax) == kMax - 1);
  CHECK(FloorDiv(kMin, kMax) == -2);
  CHECK(Mod(kMax, kMin) == -1);
  CHECK(FloorDiv(kMax, kMin) == -1);
  CHECK(Mod(kMin, kMin) == 0);
  CHECK_FALSE(CheckedNeg(kMin).has_value());
  CHECK_FALSE(CheckedAdd(kMax, 1).has_value());
  CHECK_FALSE(CheckedSub(kMin, 1).has_value());
  CHECK_FALSE(CheckedMul(kMin, -1).has_value());
  CHECK(Gcd(kMin, 0) == kMax);  // |INT64_MIN| saturates
  CHECK(Gcd(-12, 18) == 6);
  CHECK(Gcd(0, 0) == 0);
  CHECK(Lcm(4, 6) == 12);
  CHECK(Lcm(-4, 6) == 12);
  CHECK_FALSE(Lcm(kMax, kMax - 1).has_value());
}

TEST_CASE("int_math agrees with BigInt on random values", "[eval][random]") {
  std::mt19937_64 rng(42);
  const int64_t special[] = {0,
                             1,
                             -1,
                             2,
                             -2,
                             3,
                             -3,
                             7,
                             -7,
                             kMax,
                             kMin,
                             kMax - 1,
                             kMin + 1,
                             1 << 30,
                             -(1 << 30),
                             int64_t{1} << 32,
                             -(int64_t{1} << 32)};
  auto pick = [&]() -> int64_t {
    switch (rng() % 4) {
      case 0:
        return special[rng() % std::size(special)];
      case 1:
        return static_cast<int64_t>(rng() % 41) - 20;
      case 2:
        return static_cast<int64_t>(rng() >> (rng() % 63));
      default:
        return static_cast<int64_t>(rng());
    }
  };
  for (int iter = 0; iter < 200000; ++iter) {
    int64_t a = pick(), b = pick();
    BigInt ba(a), bb(b);
    auto check = [&](const char* op, std::optional<int64_t> got, BigInt want) {
      INFO(op << "(" << a << ", " << b << ") exact " << want.ToString());
      std::optional<int64_t> fits = want.ToInt64();
      REQUIRE(got.has_value() == fits.has_value());
      if (got) REQUIRE(*got == *fits);
    };
    check("add", CheckedAdd(a, b), ba + bb);
    check("sub", CheckedSub(a, b), ba - bb);
    check("mul", CheckedMul(a, b), ba * bb);
    check("neg", CheckedNeg(a), -ba);
    if (b != 0) {
      check("floordiv", FloorDiv(a, b), ba.FloorDiv(bb));
      check("ceildiv", CeilDiv(a, b), ba.CeilDiv(bb));
      check("mod", Mod(a, b), ba.Mod(bb));
      // The identity a = (a floordiv b) * b + a mod b.
      REQUIRE(ba.FloorDiv(bb) * bb + ba.Mod(bb) == ba);
    }
    // Saturating forms clamp the exact value.
    BigInt sum = ba + bb, prod = ba * bb;
    int64_t sat_sum = sum.ToInt64().value_or(sum < BigInt(0) ? kMin : kMax);
    int64_t sat_prod = prod.ToInt64().value_or(prod < BigInt(0) ? kMin : kMax);
    REQUIRE(SaturatingAdd(a, b) == sat_sum);
    REQUIRE(SaturatingMul(a, b) == sat_prod);
  }
}

TEST_CASE("BigInt parses and prints", "[eval]") {
  auto big = BigInt::FromString("-170141183460469231731687303715884105728");
  REQUIRE(big.has_value());
  CHECK(big->ToString() == "-170141183460469231731687303715884105728");
  CHECK_FALSE(big->ToInt64().has_value());
  CHECK(BigInt::FromString("9223372036854775807")->ToInt64() == kMax);
  CHECK_FALSE(BigInt::FromString("").has_value());
  CHECK_FALSE(BigInt::FromString("-").has_value());
  CHECK_FALSE(BigInt::FromString("12a").has_value());
}

// Evaluates the single-result map `text` at the given point.
Result<std::vector<int64_t>> Eval(const std::string& text,
                                  std::vector<int64_t> dims,
                                  std::vector<int64_t> syms = {}) {
  ExprContext ctx;
  IndexingMap m = MustParse(text, &ctx);
  return m.Evaluate(dims, syms);
}

int64_t EvalOne(const std::string& text, std::vector<int64_t> dims,
                std::vector<int64_t> syms = {}) {
  auto r = Eval(text, dims, syms);
  INFO(text);
  if (!r.ok()) FAIL(r.error().ToString());
  REQUIRE(r->size() == 1);
  return (*r)[0];
}

TEST_CASE("map evaluation semantics", "[eval]") {
  CHECK(EvalOne("(d0) -> (d0 floordiv 2)", {-7}) == -4);
  CHECK(EvalOne("(d0) -> (d0 mod 2)", {-7}) == 1);
  CHECK(EvalOne("(d0) -> (d0 ceildiv 2)", {-7}) == -3);
  CHECK(EvalOne("(d0) -> (d0 floordiv -2)", {7}) == -4);
  CHECK(EvalOne("(d0) -> (d0 mod -2)", {7}) == -1);
  CHECK(EvalOne("(d0) -> (d0 / 2)", {-7}) == -4);
  CHECK(EvalOne("(d0) -> (d0 % -2)", {7}) == -1);
  CHECK(EvalOne("()[s0] -> ((s0 floordiv 2) floordiv -7)", {}, {-29}) == 2);
  CHECK(EvalOne("(d0, d1) -> (-((-11d0 - d1 + 109) floordiv 11) + 9)",
                {3, 4}) == 3);
  // Semi-affine.
  CHECK(EvalOne("()[s0, s1] -> (s0 floordiv s1)", {}, {7, -2}) == -4);
  CHECK(EvalOne("()[s0, s1] -> (s0 mod s1)", {}, {-7, 2}) == 1);
  CHECK(EvalOne("()[s0, s1] -> (s0 * s1)", {}, {-7, 3}) == -21);
  // Constants fold with the same semantics.
  CHECK(EvalOne("() -> (-7 floordiv 2)", {}) == -4);
  CHECK(EvalOne("() -> (7 mod -2)", {}) == -1);
  CHECK(EvalOne("() -> (-7 ceildiv 2)", {}) == -3);
}

TEST_CASE("INT64_MIN and overflow in evaluation", "[eval]") {
  CHECK(EvalOne("(d0) -> (d0)", {kMin}) == kMin);
  CHECK(EvalOne("(d0) -> (d0 mod -1)", {kMin}) == 0);
  CHECK(EvalOne("(d0) -> (d0 floordiv 2)", {kMin}) == kMin / 2);
  CHECK(EvalOne("(d0) -> (d0 mod 3)", {kMin}) == 1);
  CHECK(EvalOne("() -> (-9223372036854775808)", {}) == kMin);
  // Overflow of the final value is an error, never a wrapped value.
  for (auto [text, point] : std::vector<std::pair<std::string, int64_t>>{
           {"(d0) -> (d0 + 1)", kMax},
           {"(d0) -> (d0 - 1)", kMin},
           {"(d0) -> (d0 * 2)", kMax},
           {"(d0) -> (-d0)", kMin},
           {"(d0) -> (d0 floordiv -1)", kMin},
           {"(d0) -> (d0 ceildiv -1)", kMin},
           {"(d0) -> (d0 * d0)", int64_t{1} << 32},
       }) {
    INFO(text << " at " << point);
    auto r = Eval(text, {point});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
  }
  // Intermediate overflow with an in-range final value is exact.
  CHECK(EvalOne("(d0) -> ((d0 * 2) floordiv 4)", {kMax}) ==
        (int64_t{1} << 62) - 1);
  CHECK(EvalOne("(d0) -> (d0 + 1 - 1)", {kMax}) == kMax);
  CHECK(EvalOne("(d0) -> ((d0 * 4) mod 3)", {kMax}) == 1);
  CHECK(EvalOne("(d0) -> (d0 * 3 - d0 * 2)", {kMin}) == kMin);
  CHECK(EvalOne("(d0) -> ((d0 - 1) ceildiv 2)", {kMin}) == kMin / 2);
  CHECK(EvalOne("(d0) -> (-d0 mod 5)", {kMin}) == 3);  // 2^63 mod 5 = 3
  CHECK(EvalOne("(d0) -> ((d0 * d0) floordiv d0)", {int64_t{1} << 40}) ==
        int64_t{1} << 40);
}

TEST_CASE("evaluation errors", "[eval]") {
  auto r = Eval("()[s0, s1] -> (s0 floordiv s1)", {}, {7, 0});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
  r = Eval("()[s0, s1] -> (s0 mod s1)", {}, {7, 0});
  REQUIRE_FALSE(r.ok());
  // Division by zero inside an otherwise overflowing expression.
  r = Eval("(d0)[s0] -> ((d0 * 4) floordiv s0)", {kMax}, {0});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
  // Wrong number of dims or symbols.
  r = Eval("(d0, d1) -> (d0)", {1});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
  r = Eval("(d0)[s0] -> (d0)", {1}, {1, 2});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
}

// expr.h documents "an out-of-range position" as an Evaluate error.
TEST_CASE("Evaluate of an expression with too few values is an error",
          "[eval]") {
  ExprContext ctx;
  auto e = ParseExpr("d0 + d1 * s1", &ctx, {"d0", "d1"}, {"s0", "s1"});
  REQUIRE(e.ok());
  std::vector<int64_t> one_dim = {5}, one_sym = {1};
  auto r = Evaluate(*e, one_dim, one_sym);
  CHECK_FALSE(r.ok());
}

TEST_CASE("InDomain", "[eval]") {
  ExprContext ctx;
  IndexingMap m = MustParse(
      "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3], "
      "d0 + s0 in [0, 10], d0 mod 2 in [0, 0]",
      &ctx);
  auto in = [&](int64_t d, int64_t s) {
    std::vector<int64_t> dims = {d}, syms = {s};
    return m.InDomain(dims, syms).value();
  };
  CHECK(in(0, 0));
  CHECK(in(8, 2));
  CHECK_FALSE(in(8, 3));   // d0 + s0 = 11
  CHECK_FALSE(in(1, 0));   // odd
  CHECK_FALSE(in(10, 0));  // d0 out of bounds
  CHECK_FALSE(in(0, -1));  // s0 out of bounds
  std::vector<int64_t> two = {1, 2}, none;
  CHECK_FALSE(m.InDomain(two, none).ok());
  IndexingMap empty = MustParse("(d0) -> (d0), domain: d0 in [5, 4]", &ctx);
  std::vector<int64_t> d = {5};
  CHECK_FALSE(empty.InDomain(d, none).value());
}

// A constraint value past int64 still has an answer (difftest): an interval
// end at an int64 limit is the unbounded sentinel, which such a value
// meets; a finite end it passes. It used to be an evaluation error, so
// `evaluate` refused points whose in_domain is defined.
TEST_CASE("InDomain with constraint values past int64", "[eval]") {
  ExprContext ctx;
  auto in = [&](const std::string& text, std::vector<int64_t> dims) {
    IndexingMap m = MustParse(text, &ctx);
    std::vector<int64_t> none;
    auto r = m.InDomain(dims, none);
    INFO(text);
    REQUIRE(r.ok());
    return *r;
  };
  // d0 * 2^62 at d0 = 5 is 5 * 2^62.
  CHECK(
      in("(d0) -> (), domain: d0 * 4611686018427387904 in "
         "[-9223372036854775808, 9223372036854775807]",
         {5}));
  CHECK(
      in("(d0) -> (), domain: d0 * 4611686018427387904 in "
         "[0, 9223372036854775807]",
         {5}));
  CHECK_FALSE(
      in("(d0) -> (), domain: d0 * 4611686018427387904 in "
         "[0, 9223372036854775806]",
         {5}));
  CHECK_FALSE(
      in("(d0) -> (), domain: d0 * 4611686018427387904 in "
         "[-9223372036854775808, 0]",
         {5}));
  // Below INT64_MIN: only a lower sentinel lets it in.
  CHECK(
      in("(d0) -> (), domain: -2 * d0 in "
         "[-9223372036854775808, -9223372036854775808]",
         {kMax}));
  CHECK_FALSE(
      in("(d0) -> (), domain: -2 * d0 in "
         "[-9223372036854775807, 9223372036854775807]",
         {kMax}));
  // A zero divisor is still an error.
  IndexingMap m =
      MustParse("(d0) -> (), domain: 5 floordiv d0 in [0, 1]", &ctx);
  std::vector<int64_t> zero = {0}, none;
  CHECK_FALSE(m.InDomain(zero, none).ok());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
