// Reliability regression tests for the analysis: inputs the
// libFuzzer targets (tests/fuzz) found, each held exactly.
#include <memory>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "hw/device.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

// Parses text held in a buffer of exactly its size (no NUL after it), the
// way the fuzzer passes its input, so that ASan sees any read past the end.
Result<std::unique_ptr<hlo::Module>> ParseExact(const std::string& text) {
  auto buffer = std::make_unique<char[]>(text.size());
  std::copy(text.begin(), text.end(), buffer.get());
  return hlo::ParseHloModule(std::string_view(buffer.get(), text.size()));
}

// fuzz_hlo: a module ending right after `parameter(` read one byte past the
// end of the text (Cursor::ExpectInt looked for a '+' at the end).
TEST_CASE("HLO text that ends where an integer is expected",
          "[reliability][hlo]") {
  const std::string text = "HloModule m\nENTRY e {\n p0 = f32[8] parameter(";
  auto m = ParseExact(text);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::kParseError);
  CHECK(m.error().line == 3);
  // Every prefix of a well-formed module, each in an exact buffer.
  const std::string module =
      "HloModule m\nENTRY e {\n p0 = f32[8] parameter(0)\n"
      " ROOT s = f32[4] slice(p0), slice={[+1:+5:+1]}\n}";
  for (size_t n = 0; n <= module.size(); ++n) {
    auto r = ParseExact(module.substr(0, n));
    if (!r.ok()) CHECK(r.error().code == ErrorCode::kParseError);
  }
}

// fuzz_hlo (a 10-minute run): a bitcast without operands to a layout with
// a minor-to-major that makes the verifier's tiled check read operand 0
// before the operand count was checked (UBSan: null reference).
TEST_CASE("bitcast without operands", "[reliability][hlo]") {
  const std::string text =
      "\n    p0 = f32[16, 17, 3] parameter(0)\n    ROOT fitcast = f32[51, 16] "
      "{0, 1} bitcast()";
  auto m = ParseExact(text);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message.find("operand") != std::string::npos);
  // A tiled layout goes through the same check.
  auto tiled = ParseExact(
      "HloModule m\nENTRY e {\n p0 = f32[8,128] parameter(0)\n"
      " ROOT b = f32[8,128]{1,0:T(8,128)} bitcast()\n}");
  REQUIRE_FALSE(tiled.ok());
}

// fuzz_hlo: the verifier skipped every op with a `?` dim, so a dynamic-slice
// of a `?`-sized offset vector without dynamic_slice_sizes (misspelled) was
// accepted and its indexing read past the empty sizes. Ops whose indexing
// takes `?` dims are now verified with `?` matching any size.
TEST_CASE("HLO ops with unbounded dims are verified", "[reliability][hlo]") {
  const std::string text =
      "\n    p0 = f32[5,6] parameter(0)\n    o0 = s32[?] parameter(1)\n"
      "    o1 = s32[] parameter(2)\n    ROOT r = f32[2,3] dynamic-slice(p0, "
      "o0, o1), dynamic_slice_sires={2,3}";
  auto m = ParseExact(text);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::kParseError);
  CHECK(m.error().line == 5);
  // Attributes that do not fit the rank, with `?` dims.
  for (const char* bad :
       {"p = f32[?,6] parameter(0)\nROOT r = f32[6] transpose(p), "
        "dimensions={1,0}",
        "p = f32[?] parameter(0)\nROOT r = f32[?,4] broadcast(p), "
        "dimensions={2}",
        "p = f32[?,4] parameter(0)\nROOT r = f32[?,3] slice(p), "
        "slice={[0:2]}",
        "p = f32[?,4] parameter(0)\nROOT r = f32[?,4] reverse(p), "
        "dimensions={2}",
        "p = f32[?,4] parameter(0)\nq = f32[?,5] parameter(1)\n"
        "ROOT r = f32[?,4] add(p, q)",
        "p = f32[?,4] parameter(0)\nq = f32[4,?] parameter(1)\n"
        "ROOT r = f32[?,?] dot(p, q), lhs_contracting_dims={2}, "
        "rhs_contracting_dims={0}",
        // CI's fuzz_hlo: a concatenate of operands of another rank was
        // accepted with a `?` dim and its emitter plan read dims[d] past
        // the operand's rank.
        "p = f32[?] parameter(0)\nq = f32[4,3] parameter(1)\n"
        "ROOT r = f32[?,3] concatenate(p, q), dimensions={1}",
        "p = f32[?,2] parameter(0)\nq = f32[4,3] parameter(1)\n"
        "ROOT r = f32[?,3] concatenate(p, q), dimensions={0}"}) {
    INFO(bad);
    auto r = ParseExact(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kParseError);
  }
  // `?` still matches any size.
  for (const char* good :
       {"p0 = f32[?,6] parameter(0)\no0 = s32[] parameter(1)\n"
        "ROOT r = f32[2,3] dynamic-slice(p0, o0, o0), "
        "dynamic_slice_sizes={2,3}",
        "p = f32[?,6] parameter(0)\nROOT r = f32[6,?] transpose(p), "
        "dimensions={1,0}",
        "p = f32[?] parameter(0)\nROOT r = f32[?,4] broadcast(p), "
        "dimensions={0}",
        "p = f32[?,4] parameter(0)\nq = f32[4,?] parameter(1)\n"
        "ROOT r = f32[?,?] dot(p, q), lhs_contracting_dims={1}, "
        "rhs_contracting_dims={0}",
        "p = f32[?,3] parameter(0)\nq = f32[4,3] parameter(1)\n"
        "ROOT r = f32[?,3] concatenate(p, q), dimensions={0}"}) {
    INFO(good);
    auto r = ParseExact(good);
    CHECK(r.ok());
  }
  // No kernel is planned over a `?` dim: it has no size to launch over.
  auto concat = ParseExact(
      "p = f32[?,3] parameter(0)\nq = f32[4,3] parameter(1)\n"
      "ROOT r = f32[?,3] concatenate(p, q), dimensions={0}");
  REQUIRE(concat.ok());
  FusionRegion region = RegionOfComputation(*(*concat)->entry());
  ExprContext ctx;
  for (const hw::Device& device : hw::BuiltinDevices()) {
    if (!device.HasLaunchModel()) continue;
    auto plan = ComputeEmitterPlan(region, device, &ctx);
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error().code == ErrorCode::kUnsupported);
  }
}

// fuzz_hlo (10 minutes): `select()` without operands was accepted (the
// elementwise check compares each operand's shape, and there were none), and
// the C printer read its operands by position (UBSan: a null reference).
// Elementwise ops take XLA's operand count.
TEST_CASE("elementwise ops with the wrong operand count",
          "[reliability][hlo]") {
  for (const char* bad :
       {"ROOT m0 = f32[2,3] select()",
        "p = f32[2,3] parameter(0)\nROOT a = f32[2,3] add(p)",
        "p = f32[2,3] parameter(0)\nROOT n = f32[2,3] negate(p, p)",
        "p = pred[2,3] parameter(0)\nq = f32[2,3] parameter(1)\n"
        "ROOT s = f32[2,3] select(p, q)",
        "p = f32[2,3] parameter(0)\nROOT c = f32[2,3] clamp(p, p)"}) {
    INFO(bad);
    auto r = ParseExact(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kParseError);
    CHECK(r.error().message.find("operands") != std::string::npos);
  }
  auto good = ParseExact(
      "p = pred[2,3] parameter(0)\nq = f32[2,3] parameter(1)\n"
      "ROOT s = f32[2,3] select(p, q, q)");
  CHECK(good.ok());
}

// fuzz_hlo (15 minutes): a transpose with a tuple shape was accepted (the
// verifier let every tuple-shaped instruction through before its array
// checks) and its map was built against the tuple's rank: `() -> (d1, d0)`.
// Ops of arrays only now check their shapes first; a copy may copy a tuple.
TEST_CASE("array ops with a tuple shape", "[reliability][hlo]") {
  for (const char* bad :
       {"p1 = f32[4,8] parameter(0)\n"
        "ROOT t = (f32[2], s32[]) transpose(p1), dimensions={1,0}",
        "p1 = f32[4,8] parameter(0)\nROOT n = (f32[4,8]) negate(p1)",
        "p1 = (f32[4,8]) parameter(0)\nROOT n = f32[4,8] negate(p1)",
        "p1 = (f32[4,8]) parameter(0)\nROOT c = (f32[4,9]) copy(p1)"}) {
    INFO(bad);
    auto r = ParseExact(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kParseError);
  }
  auto copy = ParseExact(
      "p1 = (f32[4,8], s32[]) parameter(0)\n"
      "ROOT c = (f32[4,8], s32[]) copy(p1)");
  REQUIRE(copy.ok());
  ExprContext ctx;
  const hlo::Instruction* root = (*copy)->entry()->root();
  for (int out = 0; out < OutputCount(*root); ++out) {
    auto maps = ComputeOutputToInputIndexing(*root, out, &ctx);
    if (maps.ok()) {
      for (const IndexingMapSet& set : maps->indexing_maps) {
        for (const IndexingMap& m : set) {
          CHECK(ParseIndexingMap(PrintIndexingMap(m), &ctx).ok());
        }
      }
    }
  }
}

// fuzz_hlo (15 minutes): input_to_output indexing of a strided slice whose
// output dim is `?` counted the grid from the output size (UBSan: 5 +
// (INT64_MAX - 1) * 3). The grid ends where the slice's limit says.
TEST_CASE("input_to_output indexing of a slice to a `?` dim",
          "[reliability][hlo]") {
  auto m = ParseExact(
      "p0 = f32[30,8] parameter(0)\n"
      "ROOT c = f32[10,?] slice(p0), slice={[0:30:3],[5:8]}");
  REQUIRE(m.ok());
  ExprContext ctx;
  auto i2o = ComputeInputToOutputIndexing(*(*m)->entry()->root(), 0, &ctx);
  REQUIRE(i2o.ok());
  REQUIRE(i2o->indexing_maps[0].size() == 1);
  ExpectText(*i2o->indexing_maps[0].begin(),
             "(d0, d1) -> (d0 floordiv 3, d1 - 5), domain: d0 in [0, 27], "
             "d1 in [5, 7], d0 mod 3 in [0, 0]");
}

// A reverse along a `?` dim reads n - 1 - d of a size n it does not know:
// it was mapped as if n were INT64_MAX. No map (unknown) along such a dim;
// the other dims keep theirs.
TEST_CASE("reverse along a `?` dim", "[reliability][hlo]") {
  ExprContext ctx;
  auto along = ParseExact(
      "p = f32[?,4] parameter(0)\n"
      "ROOT r = f32[?,4] reverse(p), dimensions={0}");
  REQUIRE(along.ok());
  const hlo::Instruction& r = *(*along)->entry()->root();
  auto o2i = ComputeOutputToInputIndexing(r, 0, &ctx);
  REQUIRE_FALSE(o2i.ok());
  CHECK(o2i.error().code == ErrorCode::kUnsupported);
  CHECK_FALSE(ComputeInputToOutputIndexing(r, 0, &ctx).ok());
  auto across = ParseExact(
      "p = f32[?,4] parameter(0)\n"
      "ROOT r = f32[?,4] reverse(p), dimensions={1}");
  REQUIRE(across.ok());
  auto maps =
      ComputeOutputToInputIndexing(*(*across)->entry()->root(), 0, &ctx);
  REQUIRE(maps.ok());
  ExpectText(*maps->indexing_maps[0].begin(),
             "(d0, d1) -> (d0, -d1 + 3), domain: d0 in [0, "
             "9223372036854775806], d1 in [0, 3]");
}

// fuzz_hlo: input_to_output fusion indexing from an empty tuple parameter
// (`()`, no outputs) read the first output of it. Nothing reaches the root
// from a parameter without elements. (The finding's opcode was a mutant,
// `pnt`, which no longer reads; custom-call has no map either.)
TEST_CASE("fusion input_to_output indexing from an empty tuple parameter",
          "[reliability][hlo]") {
  const std::string text =
      "\n    p0 = () parameter(0)f2 = s32[] custom-call(p0), index=1";
  auto m = ParseExact(text);
  REQUIRE(m.ok());
  const hlo::Computation& entry = *(*m)->entry();
  FusionRegion region = RegionOfComputation(entry);
  REQUIRE(region.parameters.size() == 1);
  ExprContext ctx;
  auto forward = ComputeFusionInputToOutputIndexing(region, 0, &ctx);
  REQUIRE(forward.ok());
  REQUIRE(forward->size() == 1);
  CHECK((*forward)[0].empty());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
