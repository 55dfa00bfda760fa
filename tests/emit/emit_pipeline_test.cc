// The lowering pipeline on hand-written fusions with a fixed loop plan:
// every stage for every target, compiled, verified and run.
#include <catch2/catch.hpp>

#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_fixture_plans.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

void Expect(const CheckSummary& s) {
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
}

TEST_CASE("pipeline: elementwise chains with a fixed loop plan",
          "[.][emit_pipeline]") {
  std::vector<CheckCase> cases;
  cases.push_back(
      {"add_exp",
       "p = f32[7,13] parameter(0)\nq = f32[7,13] parameter(1)\n"
       "e = f32[7,13] exponential(p)\nROOT r = f32[7,13] add(e, q)"});
  cases.push_back(
      {"bf16_tanh",
       "p = bf16[5,9] parameter(0)\nt = bf16[5,9] tanh(p)\n"
       "m = bf16[5,9] multiply(t, p)\nROOT r = bf16[5,9] convert(m)"});
  cases.push_back(
      {"int_ops",
       "p = s32[33] parameter(0)\nq = s32[33] parameter(1)\n"
       "d = s32[33] divide(p, q)\nr2 = s32[33] remainder(p, q)\n"
       "s = s32[33] shift-left(d, q)\nROOT r = s32[33] xor(s, r2)"});
  cases.push_back(
      {"transpose_pad_slice",
       "p = f32[5,6] parameter(0)\nt = f32[6,5] transpose(p), "
       "dimensions={1,0}\n"
       "z = f32[] constant(-1.5)\nd = f32[9,8] pad(t, z), padding=1_2x0_-1_1\n"
       "ROOT r = f32[4,8] slice(d), slice={[2:6], [0:8]}"});
  CheckOptions options;
  options.planner = [](const FusionRegion& r, ExprContext* ctx) {
    return FixtureLoopPlan(r, ctx);
  };
  options.check_stages = true;
  for (CheckCase& c : cases) c.run_mlir = true;
  CheckSummary s = CheckFusions(cases, options);
  Expect(s);
  const int runs =
      Sanitized() ? static_cast<int>((cases.size() + kSanitizedStride - 1) /
                                     kSanitizedStride)
                  : static_cast<int>(cases.size());
  CHECK(s.cpp_runs == runs);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

TEST_CASE("pipeline: random loop fusions with a fixed loop plan",
          "[.][emit_pipeline]") {
  std::vector<CheckCase> cases;
  const int n = Sanitized() ? 4 : 40;
  for (int seed = 0; seed < n; ++seed) {
    GeneratedFusion f = GenerateFusion(TargetKind::kLoop, seed);
    CheckCase c = FromGenerated(f, "fixture_loop_" + std::to_string(seed));
    c.run_mlir = seed % 4 == 0;
    cases.push_back(c);
  }
  CheckOptions options;
  options.planner = [](const FusionRegion& r, ExprContext* ctx) {
    return FixtureLoopPlan(r, ctx, 128, 4);
  };
  CheckSummary s = CheckFusions(cases, options);
  Expect(s);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

// The loop-like emitters whose plans come from fixtures (h.6 maps).
TEST_CASE(
    "pipeline: concatenate, in-place DUS, scatter, input slices with fixture "
    "plans",
    "[.][emit_fixture_kinds]") {
  struct Kind {
    TargetKind kind;
    Planner planner;
  };
  std::vector<Kind> kinds = {
      {TargetKind::kConcatenate,
       [](const FusionRegion& r, ExprContext* c) {
         return FixtureConcatenatePlan(r, c);
       }},
      {TargetKind::kInPlaceDus,
       [](const FusionRegion& r, ExprContext* c) {
         return FixtureInPlaceDusPlan(r, c);
       }},
      {TargetKind::kScatter,
       [](const FusionRegion& r, ExprContext* c) {
         return FixtureScatterPlan(r, c);
       }},
      {TargetKind::kInputSlices,
       [](const FusionRegion& r, ExprContext* c) {
         return FixtureInputSlicesPlan(r, c);
       }},
  };
  const int n = Sanitized() ? 2 : 4;
  for (const Kind& k : kinds) {
    std::vector<CheckCase> cases;
    for (int seed = 0; seed < n; ++seed) {
      GeneratedFusion f = GenerateFusion(k.kind, seed);
      CheckCase c =
          FromGenerated(f, std::string("fixture_") + TargetKindName(k.kind) +
                               "_" + std::to_string(seed));
      c.run_mlir = seed % 3 == 0;
      cases.push_back(c);
    }
    CheckOptions options;
    options.planner = k.planner;
    Expect(CheckFusions(cases, options));
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
