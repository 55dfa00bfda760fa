// The pre-fusion pipeline's reduce rewrites in real floating point: the
// input module and the rewritten one evaluated by the code generator
// tests' interpreter (which rounds every f32 operation) on random inputs.
// A split reduction adds its terms in another order. Recursive summation
// of n terms errs by at most (n - 1) * eps * sum |x_i| (eps = 2^-24 for
// f32, Higham's bound, which covers any order of the additions), so two
// orders differ by at most twice that; maximum reassociates exactly.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "analysis/hlo/printer.h"
#include "analysis/prefusion/prefusion.h"
#include "tests/emit/emit_interpreter.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

constexpr char kPrefusionReducers[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";

// `entry` reduces the exponential of parameter 0 (positive terms, so that
// sum |x_i| is the exact sum itself) over `terms` elements per result.
void CheckSplitReduction(const std::string& entry, int64_t terms, bool exact) {
  const std::string text = std::string("HloModule m\n") + kPrefusionReducers +
                           "ENTRY e {\n" + entry + "}\n";
  INFO(text);
  auto module = hlo::ParseHloModule(text);
  REQUIRE(module.ok());
  auto result = RunPrefusion(**module);
  INFO((result.ok() ? std::string() : result.error().ToString()));
  REQUIRE(result.ok());
  REQUIRE(result->module);
  bool tree = false;
  for (const PrefusionRewrite& w : result->rewrites) {
    tree |= w.pass == "TreeReductionRewriter";
  }
  CHECK(tree);
  const std::string rewritten = hlo::PrintModule(*result->module);
  INFO(rewritten);
  auto reread = hlo::ParseHloModule(rewritten);
  REQUIRE(reread.ok());
  std::mt19937_64 rng(2026);
  RandomSpec spec;
  spec.float_range = 1.0;
  const hlo::Computation& before = *(*module)->entry();
  std::vector<Literal> args;
  for (int64_t i = 0; i < before.parameter_count(); ++i) {
    args.push_back(RandomLiteral(before.parameter(i)->shape, rng, spec));
  }
  FeedReducerIdentities(before, &args);
  auto want = Interpret(before, args);
  auto got = Interpret(*(*reread)->entry(), args);
  REQUIRE(want.ok());
  REQUIRE(got.ok());
  REQUIRE(want->size() == got->size());
  const double eps = std::ldexp(1.0, -24);
  for (int64_t i = 0; i < want->size(); ++i) {
    const double a = want->AsDouble(i), b = got->AsDouble(i);
    INFO("element " << i << ": " << a << " against " << b);
    if (exact) {
      CHECK(a == b);
    } else {
      // The terms are positive: sum |x_i| is the sum, within 1%.
      CHECK(std::abs(a - b) <= 2.0 * (terms - 1) * eps * std::abs(a) * 1.01);
    }
  }
}

TEST_CASE("emit prefusion: split float reductions within reassociation",
          "[emit_prefusion]") {
  // A row of 20000 (125 x 160), a row of 70001 (a prime, padded), a
  // column of 5000 and a batch of 9 rows, summed; the maximum exactly.
  CheckSplitReduction(
      "  p = f32[3,20000] parameter(0)\n  z = f32[] constant(0)\n"
      "  e = f32[3,20000] exponential(p)\n"
      "  ROOT r = f32[3] reduce(e, z), dimensions={1}, to_apply=add\n",
      20000, false);
  CheckSplitReduction(
      "  p = f32[2,70001] parameter(0)\n  z = f32[] constant(0)\n"
      "  e = f32[2,70001] exponential(p)\n"
      "  ROOT r = f32[2] reduce(e, z), dimensions={1}, to_apply=add\n",
      70001, false);
  CheckSplitReduction(
      "  p = f32[5000,3] parameter(0)\n  z = f32[] constant(0)\n"
      "  e = f32[5000,3] exponential(p)\n"
      "  ROOT r = f32[3] reduce(e, z), dimensions={0}, to_apply=add\n",
      5000, false);
  CheckSplitReduction(
      "  p = f32[9,4,40] parameter(0)\n  z = f32[] constant(0)\n"
      "  e = f32[9,4,40] exponential(p)\n"
      "  ROOT r = f32[4] reduce(e, z), dimensions={0,2}, to_apply=add\n",
      360, false);
  CheckSplitReduction(
      "  p = f32[2,30000] parameter(0)\n  z = f32[] constant(-inf)\n"
      "  ROOT r = f32[2] reduce(p, z), dimensions={1}, to_apply=max\n",
      30000, true);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
