// Complex element types (c64, c128) in the C++ and CUDA targets: fusions
// of every op generated on complex values run in C++ and in the CUDA model
// and match the reference interpreter (reductions too: their shuffles move
// both parts; scatters of c64 combine in an 8-byte compare-and-swap);
// nvcc compiles their CUDA; what is not generated (scatters of c128 whose
// indices may meet, the transcendental functions past exp, log, sqrt,
// sin, cos, tanh and power, order comparisons, the MLIR target) answers
// `unsupported`, naming the op and the type.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_complex_cases.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_expectations.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

TEST_CASE("complex: every generated op runs in C++ and CUDA",
          "[.][emit_semantics]") {
  // The MLIR target refuses complex values.
  ExpectEveryCaseRuns(ComplexOpCases(), /*mlir=*/false);
}

TEST_CASE("complex: reductions shuffle both parts", "[.][emit_semantics]") {
  ExpectEveryCaseRuns(ComplexReductionCases(), /*mlir=*/false);
}

TEST_CASE("complex: scatters combine c64 atomically, c128 when unique",
          "[.][emit_semantics]") {
  ExpectEveryCaseRuns(ComplexScatterCases(), /*mlir=*/false);
}

TEST_CASE("complex: what is not generated names the op and the type",
          "[emit]") {
  struct Refused {
    std::string hlo, needle;
  };
  const Refused kRefused[] = {
      {"p = c64[4] parameter(0)\nROOT r = c64[4] cbrt(p)\n", "'cbrt' on c64"},
      {"p = c128[4] parameter(0)\nq = c128[4] parameter(1)\n"
       "ROOT r = c128[4] maximum(p, q)\n",
       "'maximum' on c128"},
      {"p = c64[4] parameter(0)\nq = c64[4] parameter(1)\n"
       "ROOT r = pred[4] compare(p, q), direction=LT\n",
       "'compare' on c64"},
      {"p = c64[4] parameter(0)\nq = c64[4] parameter(1)\n"
       "ROOT r = pred[4] compare(p, q), direction=EQ, type=TOTALORDER\n",
       "'compare' on c64"},
      // Complex indices (not HLO, but read): refused, not printed.
      {"p = c64[8] parameter(0)\ni = c64[] parameter(1)\n"
       "ROOT d = c64[2] dynamic-slice(p, i), dynamic_slice_sizes={2}\n",
       "a non-integer runtime index"},
      {"add { a = c64[] parameter(0)\nb = c64[] parameter(1)\n"
       "ROOT s = c64[] add(a, b) }\n"
       "ENTRY e { p = c64[8] parameter(0)\ni = c64[2,1] parameter(1)\n"
       "u = c64[2] parameter(2)\n"
       "ROOT r = c64[8] scatter(p, i, u), update_window_dims={}, "
       "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
       "index_vector_dim=1, to_apply=add }\n",
       "c64"},  // cpp, cuda: "'to_index' on c64"; mlir: the types
      {"add { a = c128[] parameter(0)\nb = c128[] parameter(1)\n"
       "ROOT s = c128[] add(a, b) }\n"
       "ENTRY e { p = c128[8] parameter(0)\ni = s32[2,1] parameter(1)\n"
       "u = c128[2] parameter(2)\n"
       "ROOT r = c128[8] scatter(p, i, u), update_window_dims={}, "
       "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
       "index_vector_dim=1, to_apply=add }\n",
       "'scatter' on c128"},
  };
  for (const Refused& r : kRefused) {
    INFO(r.hlo);
    auto module = hlo::ParseHloModule(r.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    for (emit::Target target :
         {emit::Target::kCpp, emit::Target::kCuda, emit::Target::kMlir}) {
      ExprContext ctx;
      emit::EmitOptions options;
      options.target = target;
      auto out =
          emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
      REQUIRE(!out.ok());
      CHECK(out.error().code == ErrorCode::kUnsupported);
      INFO(out.error().message);
      CHECK(out.error().message.find(r.needle) != std::string::npos);
    }
  }
  // The MLIR target prints no complex value, even one only moved.
  auto module = hlo::ParseHloModule(
      "p = c64[4] parameter(0)\nROOT r = c64[4] negate(p)\n");
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = emit::Target::kMlir;
  auto out = emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  REQUIRE(!out.ok());
  CHECK(out.error().code == ErrorCode::kUnsupported);
  CHECK(out.error().message.find("c64") != std::string::npos);
  options.target = emit::Target::kCuda;
  CHECK(emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx).ok());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
