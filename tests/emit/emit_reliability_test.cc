// Reliability regression tests for code generation: fusions
// the HLO reader accepts on which the fuzz_hlo target (tests/fuzz) made
// `emit` crash, each held exactly. Any error is fine; a crash is not.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

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

// A chain of reshapes (each between different factorings of 5040) with an
// elementwise op after each: every reshape's index results all read the
// previous op's results, and flattening composed the load index by walking
// that shared index tree without memo, so the work doubled with each
// reshape (18 reshapes: 70 s). Composed once per node, 40 reshapes emit at
// once, and the composed index simplifies to the thread's linear index.
TEST_CASE("emit: a long chain of reshapes composes its index once per node",
          "[reliability][emit]") {
  const std::vector<std::string> shapes = {"f32[6,20,42]",  "f32[5040]",
                                           "f32[7,720]",    "f32[2,3,4,5,6,7]",
                                           "f32[12,30,14]", "f32[35,144]"};
  std::string text =
      "HloModule m\nENTRY e {\n  x0 = f32[2,3,4,5,6,7] parameter(0)\n";
  std::string prev = "x0";
  for (int i = 1; i <= 40; ++i) {
    const std::string& s = shapes[i % shapes.size()];
    std::string r = "r" + std::to_string(i), n = "n" + std::to_string(i);
    text += "  " + r + " = " + s + " reshape(" + prev + ")\n";
    text += "  " + n + " = " + s + " negate(" + r + ")\n";
    prev = n;
  }
  text += "  ROOT out = f32[5040] reshape(" + prev + ")\n}";
  for (const auto& r : EmitAllTargets(text)) {
    INFO((r.ok() ? "" : r.error().ToString()));
    REQUIRE(r.ok());
    CHECK(r->code.find("720") == std::string::npos);
  }
  // The stages before flattening print each computed index once (bound to
  // a variable): written out as one expression per load they doubled with
  // each reshape (18 reshapes: 580 MB of text).
  auto module = hlo::ParseHloModule(text);
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = emit::Target::kCpp;
  options.stages = true;
  auto staged =
      emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  REQUIRE(staged.ok());
  REQUIRE(!staged->stages.empty());
  for (const emit::EmittedStage& stage : staged->stages) {
    INFO(stage.name);
    CHECK(stage.code.size() < 100000);
  }
}

// An instruction group (the `instructions` of a request) with as many
// inputs as its computation has parameters passed the whole-computation
// check: the group {ab} reads `neg`, and the emitter walked through it to
// the parameter (invalid_argument "parameter 'x' is not a fusion input");
// the group {neg, ab, t} was emitted as if it were the computation. Both
// are unsupported, the whole computation is emitted.
TEST_CASE("emit: an instruction group is not a whole computation",
          "[reliability][emit]") {
  auto module = hlo::ParseHloModule(R"(HloModule m
ENTRY e {
  x = f32[8,16] parameter(0)
  neg = f32[8,16] negate(x)
  ab = f32[8,16] abs(neg)
  t = f32[16,8] transpose(ab), dimensions={1,0}
  e2 = f32[8,16] exponential(neg)
  ROOT out = (f32[16,8], f32[8,16]) tuple(t, e2)
})");
  REQUIRE(module.ok());
  const hlo::Computation& entry = *(*module)->entry();
  for (const std::vector<std::string>& group :
       std::vector<std::vector<std::string>>{{"ab"}, {"neg", "ab", "t"}}) {
    auto region = RegionOfInstructions(entry, group);
    REQUIRE(region.ok());
    ExprContext ctx;
    auto r = emit::EmitFusion(*region, *hw::FindDevice("h100"), {}, &ctx);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kUnsupported);
  }
  ExprContext ctx;
  CHECK(emit::EmitFusion(RegionOfComputation(entry), *hw::FindDevice("h100"),
                         {}, &ctx)
            .ok());
}

// The in-place dynamic-update-slice kernel read one offset operand per dim
// (operand 2 + j): the legacy form has one offset vector, so it read past
// the operand list (ASan: a garbage Instruction*). Element j of the vector
// is the offset of dim j.
TEST_CASE("emit: an in-place DUS whose offsets are one vector",
          "[reliability][emit]") {
  const std::string text = R"(HloModule legacy_dus
ENTRY main {
  cache = f32[4,64,16] parameter(0)
  update = f32[2,1,8] parameter(1)
  pos = s32[3] parameter(2)
  ROOT updated = f32[4,64,16] dynamic-update-slice(cache, update, pos)
})";
  for (const auto& r : EmitAllTargets(text)) {
    INFO((r.ok() ? "" : r.error().ToString()));
    REQUIRE(r.ok());
    CHECK(r->plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice);
  }
  auto cpp = EmitAllTargets(text)[0];
  REQUIRE(cpp.ok());
  for (const char* element : {"[0]", "[1]", "[2]"}) {
    INFO(cpp->code);
    CHECK(cpp->code.find(std::string("b2") + element) != std::string::npos);
  }
}

// A get-tuple-element of a tuple instruction emitted the whole tuple at the
// element's index: the other element, of another rank, was loaded at it
// (invalid_argument "a layout map of the wrong rank", corpus
// tuple_gte_shapeless.hlo). The element is the tuple's operand.
TEST_CASE("emit: an element of a tuple of differently shaped arrays",
          "[reliability][emit]") {
  const std::string text = R"(HloModule tuples
ENTRY main {
  a = f32[16,8] parameter(0)
  b = s32[16] parameter(1)
  t = tuple(a, b)
  a2 = get-tuple-element(t), index=0
  b2 = get-tuple-element(t), index=1
  tr = transpose(a2), dimensions={1,0}
  c = f32[16] convert(b2)
  ROOT out = tuple(tr, c)
})";
  for (const auto& r : EmitAllTargets(text)) {
    INFO((r.ok() ? "" : r.error().ToString()));
    CHECK(r.ok());
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
