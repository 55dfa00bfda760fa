// At least 100 generated fusions across every emitter kind, each planned
// by the real planner, emitted for every target and checked: the cpp
// kernel run against the interpreter, the MLIR verified (a subset run on
// the host), the CUDA compiled when nvcc is installed.
#include <catch2/catch.hpp>
#include <map>

#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace {

Planner RealPlanner() {
  return [](const FusionRegion& r, ExprContext* ctx) {
    return ComputeEmitterPlan(r, *hw::FindDevice("h100"), ctx);
  };
}

TEST_CASE("random fusions of every kind run like the interpreter") {
  const int per_kind = Sanitized() ? 1 : 12;
  std::vector<CheckCase> cases;
  for (TargetKind kind : AllTargetKinds()) {
    for (int seed = 0; seed < per_kind; ++seed) {
      GeneratedFusion f = GenerateFusion(kind, seed);
      CheckCase c = FromGenerated(
          f, std::string(TargetKindName(kind)) + "_" + std::to_string(seed));
      c.run_mlir = seed % 4 == 1;
      cases.push_back(c);
    }
  }
  CheckOptions options;
  options.planner = RealPlanner();
  CheckSummary s = CheckFusions(cases, options);
  std::map<std::string, int> kinds;
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
    ++kinds[c.emitter];
  }
  for (const auto& [k, n] : kinds) WARN(k << ": " << n);
  if (!s.nvcc_found) WARN("nvcc not found: CUDA compilation skipped");
}

}  // namespace
}  // namespace ixa::emit_test
