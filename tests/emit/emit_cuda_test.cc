// Defects of the `cuda` target that only running it shows, each with the
// fusions that showed it, run in the CPU model of CUDA against the
// interpreter (and, like every test fusion, as `cpp` and `mlir`).
#include <catch2/catch.hpp>

#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace {

CheckCase Case(std::string label, std::string hlo, bool reassociates = false) {
  CheckCase c;
  c.label = std::move(label);
  c.hlo = std::move(hlo);
  c.reassociates = reassociates;
  return c;
}

std::string Reducer(const std::string& type, const std::string& op) {
  return "red { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT r = " + type + "[] " + op + "(a, b) }\n";
}

// The cases through the harness with the CUDA model on; every one must
// pass. Returns the `cuda` code of each.
std::vector<std::string> RunInCudaModel(const std::vector<CheckCase>& cases) {
  CheckOptions options;
  options.planner = [](const FusionRegion& r, ExprContext* ctx) {
    return ComputeEmitterPlan(r, *hw::FindDevice("h100"), ctx);
  };
  options.run_cuda = true;
  CheckSummary s = CheckFusions(cases, options);
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
  CHECK(s.cuda_runs == static_cast<int>(cases.size()));
  std::vector<std::string> code;
  for (const CheckCase& c : cases) {
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    emit::EmitOptions eo;
    eo.target = emit::Target::kCuda;
    auto emitted = emit::EmitFusion(*region, *hw::FindDevice("h100"), eo, &ctx);
    REQUIRE(emitted.ok());
    code.push_back(emitted->code);
  }
  return code;
}

TEST_CASE("cuda: loop, transpose, concatenate and slices run in the model",
          "[.][emit_cuda]") {
  RunInCudaModel(
      {Case("loop_1d",
            "p = f32[1001] parameter(0)\nROOT r = f32[1001] sine(p)"),
       Case("transpose_2d_u8",
            "p = u8[33,130] parameter(0)\n"
            "ROOT t = u8[130,33] transpose(p), dimensions={1,0}"),
       Case("concatenate",
            "a = f32[5,7] parameter(0)\nb = f32[5,13] parameter(1)\n"
            "ROOT k = f32[5,20] concatenate(a, b), dimensions={1}"),
       Case("input_slices",
            "p = f32[9,40] parameter(0)\ne = f32[9,40] exponential(p)\n"
            "a = f32[4,40] slice(e), slice={[0:4], [0:40]}\n"
            "b = f32[5,33] slice(e), slice={[4:9], [7:40]}\n"
            "ROOT t = (f32[4,40], f32[5,33]) tuple(a, b)")});
}

}  // namespace
}  // namespace ixa::emit_test
