// Regression tests of issue 12 (reliability) for code generation: fusions
// the HLO reader accepts on which the fuzz_hlo target (tests/fuzz) made
// `emit` crash, each held exactly. Any error is fine; a crash is not.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"

namespace ixa::emit_test {
namespace {

// Plans and emits the default fusion of `text` in every target.
std::vector<Result<emit::EmitResult>> EmitAllTargets(const std::string& text) {
  auto module = hlo::ParseHloModule(text);
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  std::vector<Result<emit::EmitResult>> out;
  for (emit::Target target :
       {emit::Target::kCpp, emit::Target::kCuda, emit::Target::kMlir}) {
    ExprContext ctx;
    emit::EmitOptions options;
    options.target = target;
    out.push_back(
        emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx));
  }
  return out;
}

// fuzz_hlo: a reduce-window whose to_apply is misspelled (the reader keeps
// unknown attributes, and indexing needs no reducer) made the lowering call
// a method on the missing computation.
TEST_CASE("emit: a reduce-window without to_apply", "[reliability][emit]") {
  const std::string text =
      "\n    p0 = s32[9,5] parameter(0)\n    p1 = s32[] parameter(1)\n"
      "    ROOT r = s32[3,3] reduce-window(p0, p1), window={size=3x1 "
      "stride=3x2 pad=1_1x0_1 rhs_dilate=2x1}, vo_apply=add";
  for (const auto& r : EmitAllTargets(text)) {
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK(r.error().message.find("to_apply") != std::string::npos);
  }
}

// stress (tools/stress.py): emitting a chain of 100,000 negates recursed once
// per instruction and overflowed the stack; past 2,000 it is
// limit_exceeded. 2,500 is enough to hold it (and fast under ASan).
TEST_CASE("emit: a chain of instructions deeper than the emitter's budget",
          "[reliability][emit]") {
  std::string text = "HloModule m\nENTRY e {\n  p0 = f32[4,8] parameter(0)\n";
  std::string prev = "p0";
  for (int i = 0; i < 2500; ++i) {
    std::string name = "n" + std::to_string(i);
    text += "  " + name + " = f32[4,8] negate(" + prev + ")\n";
    prev = name;
  }
  text += "  ROOT r = f32[4,8] negate(" + prev + ")\n}";
  for (const auto& r : EmitAllTargets(text)) {
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kLimitExceeded);
    CHECK(r.error().message.find("chain") != std::string::npos);
  }
}

}  // namespace
}  // namespace ixa::emit_test
