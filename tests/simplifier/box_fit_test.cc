// FitAffineOnBox and its record of failures (RememberFailedFits), which
// composition chains use to skip fits that already failed.
#include "simplifier/box_fit.h"

#include <catch2/catch.hpp>

namespace ixa::simp {
namespace IXA_UNITY_ID {

TEST_CASE("box fit: affine and non-affine expressions") {
  ExprContext ctx;
  Expr d0 = ctx.Dim(0), d1 = ctx.Dim(1);
  BoxAxis axes[] = {{d0, 0, 3}, {d1, 0, 1}};
  int64_t budget = 1000;
  // (d0 * 2 + d1) floordiv 2 = d0 on the box.
  auto fit =
      FitAffineOnBox(ctx.FloorDiv(d0 * 2 + d1, ctx.Constant(2)), axes, &budget);
  REQUIRE(fit.has_value());
  CHECK(fit->CoeffOf(d0) == 1);
  CHECK(fit->CoeffOf(d1) == 0);
  CHECK(fit->constant == 0);
  CHECK_FALSE(FitAffineOnBox(ctx.FloorDiv(d0, ctx.Constant(2)), axes, &budget)
                  .has_value());
}

TEST_CASE("box fit: a remembered failure is answered without evaluating") {
  ExprContext ctx;
  Expr d0 = ctx.Dim(0);
  Expr e = ctx.FloorDiv(d0, ctx.Constant(2));
  BoxAxis wide[] = {{d0, 0, 7}};
  int64_t budget = 1000;
  // Without the record, every fit pays its evaluations.
  REQUIRE_FALSE(FitAffineOnBox(e, wide, &budget).has_value());
  const int64_t cost = 1000 - budget;
  REQUIRE(cost > 0);
  REQUIRE_FALSE(FitAffineOnBox(e, wide, &budget).has_value());
  CHECK(1000 - budget == 2 * cost);

  RememberFailedFits(&ctx);
  budget = 1000;
  REQUIRE_FALSE(FitAffineOnBox(e, wide, &budget).has_value());
  CHECK(1000 - budget == cost);
  REQUIRE_FALSE(FitAffineOnBox(e, wide, &budget).has_value());
  CHECK(1000 - budget == cost);  // answered from the record

  // Another box is another question: d0 floordiv 2 is d0 - 1 on [1, 2].
  BoxAxis narrow[] = {{d0, 1, 2}};
  auto fit = FitAffineOnBox(e, narrow, &budget);
  REQUIRE(fit.has_value());
  CHECK(fit->CoeffOf(d0) == 1);
  CHECK(fit->constant == -1);
  // And so is the same interval restricted to listed values: d0 in {1, 2}.
  std::vector<int64_t> values = {1, 2};
  BoxAxis listed[] = {{d0, 0, 7, &values}};
  CHECK(FitAffineOnBox(e, listed, &budget).has_value());
}

TEST_CASE("box fit: a failure for lack of budget is not remembered") {
  ExprContext ctx;
  RememberFailedFits(&ctx);
  Expr d0 = ctx.Dim(0), d1 = ctx.Dim(1);
  // ((d0 + d1 * 4) floordiv 4) = d1 on the box: 32 evaluations to prove.
  Expr e = ctx.FloorDiv(d0 + d1 * 4, ctx.Constant(4));
  BoxAxis axes[] = {{d0, 0, 3}, {d1, 0, 7}};
  int64_t budget = 5;
  REQUIRE_FALSE(FitAffineOnBox(e, axes, &budget).has_value());
  budget = 1000;
  auto fit = FitAffineOnBox(e, axes, &budget);
  REQUIRE(fit.has_value());
  CHECK(fit->CoeffOf(d1) == 1);
  CHECK(fit->CoeffOf(d0) == 0);
}

TEST_CASE("box fit: recorded allowed values answer only the same question") {
  for (bool remember : {false, true}) {
    ExprContext ctx;
    if (remember) RememberFailedFits(&ctx);
    Expr d0 = ctx.Dim(0), d1 = ctx.Dim(1);
    Expr mod3 = ctx.Mod(d0, ctx.Constant(3));
    Expr mod2 = ctx.Mod(d0, ctx.Constant(2));
    Interval zero{0, 0}, one{1, 1};
    using Values = std::vector<int64_t>;
    for (int pass = 0; pass < 2; ++pass) {  // the second pass asks again
      INFO("remember " << remember << ", pass " << pass);
      CHECK(AllowedValues(d0, {0, 9}, {&mod3, 1}, {&zero, 1}) ==
            Values{0, 3, 6, 9});
      CHECK(AllowedValues(d0, {0, 9}, {&mod3, 1}, {&one, 1}) ==
            Values{1, 4, 7});
      CHECK(AllowedValues(d0, {0, 5}, {&mod3, 1}, {&zero, 1}) == Values{0, 3});
      CHECK(AllowedValues(d0, {0, 9}, {&mod2, 1}, {&zero, 1}) ==
            Values{0, 2, 4, 6, 8});
      Expr both[] = {mod3, mod2};
      Interval both_in[] = {zero, zero};
      CHECK(AllowedValues(d0, {0, 9}, both, both_in) == Values{0, 6});
      Expr d1_mod3 = ctx.Mod(d1, ctx.Constant(3));
      CHECK(AllowedValues(d1, {0, 9}, {&d1_mod3, 1}, {&one, 1}) ==
            Values{1, 4, 7});
    }
  }
}

// A constraint whose value overflows int64 at some of the variable's values
// is evaluated exactly there (saturated: a value past int64 meets only an
// interval end at the limit). AllowedValues used to give up, so whether
// `d0 * INT64_MAX in [-34, -10]` emptied the map depended on whether an
// earlier constraint had already rejected the overflowing values
// (difftest: simplify was not idempotent).
TEST_CASE("box fit: allowed values past int64 are decided") {
  ExprContext ctx;
  Expr d0 = ctx.Dim(0), s1 = ctx.Symbol(1);
  Expr big = ctx.Mul(d0, ctx.Constant(kInt64Max));
  Expr sum = ctx.Add(d0, ctx.Mod(d0, ctx.Constant(15)));
  using Values = std::vector<int64_t>;
  for (bool swap : {false, true}) {
    Expr exprs[] = {swap ? sum : big, swap ? big : sum};
    Interval in[] = {swap ? Interval{0, 0} : Interval{-34, -10},
                     swap ? Interval{-34, -10} : Interval{0, 0}};
    CHECK(AllowedValues(d0, {-6, 4}, exprs, in) == Values{});
  }
  Interval nonnegative{0, kInt64Max};
  CHECK(AllowedValues(d0, {-2, 3}, {&big, 1}, {&nonnegative, 1}) ==
        Values{0, 1, 2, 3});
  Interval bounded{0, kInt64Max - 1};
  CHECK(AllowedValues(d0, {-2, 3}, {&big, 1}, {&bounded, 1}) == Values{0});
  // A symbol, and a zero divisor still answers "unknown".
  Expr sym_big = ctx.Mul(s1, ctx.Constant(kInt64Max));
  CHECK(AllowedValues(s1, {-2, 3}, {&sym_big, 1}, {&nonnegative, 1}) ==
        Values{0, 1, 2, 3});
  Expr div = ctx.FloorDiv(ctx.Constant(5), d0);
  Interval any = Interval::Full();
  CHECK_FALSE(AllowedValues(d0, {-2, 3}, {&div, 1}, {&any, 1}).has_value());
}

TEST_CASE("box fit: large trees (walked) and small (compiled) fit alike") {
  // The same affine function written as a small tree and as one past the
  // compiled program's size (a long sum of d0 floordiv 1 terms), and a
  // non-affine one both ways; also a tree with a variable outside the box.
  ExprContext ctx;
  Expr d0 = ctx.Dim(0), d1 = ctx.Dim(1), d2 = ctx.Dim(2);
  BoxAxis axes[] = {{d0, 0, 5}, {d1, 0, 3}};
  Expr small = ctx.FloorDiv(d0 * 4 + d1, ctx.Constant(4)) * 3 + d1;
  Expr large = small;
  for (int i = 0; i < 40; ++i) {  // + d0 mod 6 - d0 (0 on the box) ...
    large = large + ctx.Mod(d0, ctx.Constant(6)) + d0 * -1;
  }
  REQUIRE(large.node()->tree_size > 128);
  for (Expr e : {small, large}) {
    int64_t budget = 1000;
    auto fit = FitAffineOnBox(e, axes, &budget);
    REQUIRE(fit.has_value());
    CHECK(fit->CoeffOf(d0) == 3);
    CHECK(fit->CoeffOf(d1) == 1);
    CHECK(fit->constant == 0);
    Expr bent = e + ctx.FloorDiv(d0, ctx.Constant(2));
    budget = 1000;
    CHECK_FALSE(FitAffineOnBox(bent, axes, &budget).has_value());
  }
  int64_t budget = 1000;
  CHECK_FALSE(FitAffineOnBox(d0 + d2, axes, &budget).has_value());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::simp
