// The scan op's maps (analysis/indexing/scan.cc): the reading documented
// there, and input -> output as the exact inverse of output -> input,
// checked point by point. The inits are read by the first step alone: a
// per-step output element reads them only at that step, a final carry only
// when there is at most one step.
#include <set>

#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

const char kStep[] =
    "HloModule m\n"
    "step {\n c = f32[] parameter(0)\n x = f32[] parameter(1)\n"
    " y = f32[] parameter(2)\n s = f32[] add(c, x)\n"
    " ROOT t = (f32[], f32[]) tuple(s, s)\n}\n";

std::string Module(const std::string& entry) {
  return std::string(kStep) + "ENTRY e {\n" + entry + "\n}";
}

const hlo::Instruction& Root(const hlo::Module& m) {
  return *m.entry()->root();
}

IndexingMap OnlyMap(const IndexingMapSet& set) {
  REQUIRE(set.size() == 1);
  return set.maps()[0];
}

TEST_CASE("scan: output-to-input maps", "[analysis][scan]") {
  auto m = ParseOrDie(
      Module(" xs = f32[8,16] parameter(0)\n init = f32[16] parameter(1)\n"
             " ROOT scan = (f32[8,16], f32[16]) scan(xs, init), dimensions={0},"
             " to_apply=step"));
  ExprContext ctx;
  auto step = ComputeOutputToInputIndexing(Root(*m), 0, &ctx);
  REQUIRE(step.ok());
  REQUIRE(step->indexing_maps.size() == 2);
  ExpectText(OnlyMap(step->indexing_maps[0]),
             "(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]");
  // Step 0 alone reads the init; later steps read the carry step - 1 wrote.
  ExpectText(OnlyMap(step->indexing_maps[1]),
             "(d0, d1) -> (d1), domain: d0 in [0, 0], d1 in [0, 15]");
  auto carry = ComputeOutputToInputIndexing(Root(*m), 1, &ctx);
  REQUIRE(carry.ok());
  ExpectText(OnlyMap(carry->indexing_maps[0]),
             "(d0) -> (7, d0), domain: d0 in [0, 15]");
  // The final carry is written by step 7 from step 6's carry: no init.
  CHECK(OnlyMap(carry->indexing_maps[1]).IsKnownEmpty());

  // Input to output: the init reaches the lane's first step.
  auto init = ComputeInputToOutputIndexing(Root(*m), 1, &ctx);
  REQUIRE(init.ok());
  ExpectText(OnlyMap(init->indexing_maps[0]),
             "(d0) -> (0, d0), domain: d0 in [0, 15]");
  CHECK(OnlyMap(init->indexing_maps[1]).IsKnownEmpty());
}

TEST_CASE("scan: with one step the final carry reads the init",
          "[analysis][scan]") {
  for (const char* reverse : {"", ", is_reverse=true"}) {
    INFO("reverse: " << reverse);
    auto m = ParseOrDie(
        Module(std::string(" xs = f32[1,4] parameter(0)\n"
                           " init = f32[4] parameter(1)\n"
                           " ROOT scan = (f32[1,4], f32[4]) scan(xs, init),"
                           " dimensions={0}, to_apply=step") +
               reverse));
    ExprContext ctx;
    auto step = ComputeOutputToInputIndexing(Root(*m), 0, &ctx);
    REQUIRE(step.ok());
    ExpectText(OnlyMap(step->indexing_maps[1]),
               "(d0, d1) -> (d1), domain: d0 in [0, 0], d1 in [0, 3]");
    auto carry = ComputeOutputToInputIndexing(Root(*m), 1, &ctx);
    REQUIRE(carry.ok());
    ExpectText(OnlyMap(carry->indexing_maps[1]),
               "(d0) -> (d0), domain: d0 in [0, 3]");
  }
}

TEST_CASE("scan: a middle dimension, reverse, two inputs, two carries",
          "[analysis][scan]") {
  auto m = ParseOrDie(
      Module(" a = f32[3,5,4] parameter(0)\n b = s32[3,5,4] parameter(1)\n"
             " c0 = f32[3,4] parameter(2)\n c1 = f32[3,4] parameter(3)\n"
             " ROOT scan = (f32[3,5,4], f32[3,4], f32[3,4]) scan(a, b, c0, c1),"
             " dimensions={1}, to_apply=step, is_reverse=true"));
  ExprContext ctx;
  auto step = ComputeOutputToInputIndexing(Root(*m), 0, &ctx);
  REQUIRE(step.ok());
  REQUIRE(step->indexing_maps.size() == 4);
  for (int k : {0, 1}) {
    ExpectText(OnlyMap(step->indexing_maps[k]),
               "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 2], "
               "d1 in [0, 4], d2 in [0, 3]");
  }
  // Reverse: the first step is index 4, the one reading the inits.
  for (int k : {2, 3}) {
    ExpectText(OnlyMap(step->indexing_maps[k]),
               "(d0, d1, d2) -> (d0, d2), domain: d0 in [0, 2], "
               "d1 in [4, 4], d2 in [0, 3]");
  }
  auto carry = ComputeOutputToInputIndexing(Root(*m), 2, &ctx);
  REQUIRE(carry.ok());
  // Reverse: the last step is index 0.
  ExpectText(OnlyMap(carry->indexing_maps[1]),
             "(d0, d1) -> (d0, 0, d1), domain: d0 in [0, 2], d1 in [0, 3]");
  for (int k : {2, 3}) CHECK(OnlyMap(carry->indexing_maps[k]).IsKnownEmpty());
  auto init = ComputeInputToOutputIndexing(Root(*m), 3, &ctx);
  REQUIRE(init.ok());
  ExpectText(OnlyMap(init->indexing_maps[0]),
             "(d0, d1) -> (d0, 4, d1), domain: d0 in [0, 2], d1 in [0, 3]");
}

// For every operand and output: x is read by output element o (out -> in)
// iff o is reached from x (in -> out), at every point of both boxes.
void CheckInverse(const std::string& text) {
  INFO(text);
  auto m = ParseOrDie(text);
  const hlo::Instruction& scan = Root(*m);
  for (int j = 0; j < OutputCount(scan); ++j) {
    for (int k = 0; k < scan.operand_count(); ++k) {
      ExprContext ctx;
      auto out_to_in = ComputeOutputToInputIndexing(scan, j, &ctx);
      auto in_to_out = ComputeInputToOutputIndexing(scan, k, &ctx);
      REQUIRE(out_to_in.ok());
      REQUIRE(in_to_out.ok());
      using Pair = std::pair<std::vector<int64_t>, std::vector<int64_t>>;
      std::set<Pair> forward, backward;
      for (const IndexingMap& f : out_to_in->indexing_maps[k]) {
        auto done = ForEachDomainPoint(f, 1 << 16, [&](const Point& p) {
          forward.insert({p.dims, *f.Evaluate(p.dims, p.symbols)});
          return true;
        });
        REQUIRE(done.ok());
      }
      for (const IndexingMap& g : in_to_out->indexing_maps[j]) {
        auto done = ForEachDomainPoint(g, 1 << 16, [&](const Point& p) {
          backward.insert({*g.Evaluate(p.dims, p.symbols), p.dims});
          return true;
        });
        REQUIRE(done.ok());
      }
      INFO("output " << j << ", operand " << k);
      CHECK(forward == backward);
      // Every output reads every operand but a final carry the inits, after
      // more than one step.
      const int64_t steps = scan.operand(0)->shape.dims[scan.dimensions[0]];
      const bool final_carry =
          OutputDims(scan, j) != scan.operand(0)->shape.dims;
      const bool init =
          scan.operand(k)->shape.dims != scan.operand(0)->shape.dims;
      CHECK(forward.empty() == (final_carry && init && steps > 1));
    }
  }
}

TEST_CASE("scan: input-to-output is the exact inverse", "[analysis][scan]") {
  CheckInverse(
      Module(" xs = f32[8,16] parameter(0)\n init = f32[16] parameter(1)\n"
             " ROOT scan = (f32[8,16], f32[16]) scan(xs, init), dimensions={0},"
             " to_apply=step"));
  CheckInverse(Module(
      " a = f32[3,5,4] parameter(0)\n b = s32[3,5,4] parameter(1)\n"
      " c0 = f32[3,4] parameter(2)\n c1 = f32[3,4] parameter(3)\n"
      " ROOT scan = (f32[3,5,4], f32[3,4], f32[3,5,4], f32[3,4])"
      " scan(a, b, c0, c1), dimensions={1}, to_apply=step, is_reverse=true"));
  CheckInverse(
      Module(" xs = f32[6,2] parameter(0)\n init = f32[6] parameter(1)\n"
             " ROOT scan = (f32[6,2], f32[6]) scan(xs, init), dimensions={1},"
             " to_apply=step"));
  CheckInverse(
      Module(" xs = f32[1,3] parameter(0)\n init = f32[3] parameter(1)\n"
             " ROOT scan = (f32[1,3], f32[3]) scan(xs, init), dimensions={0},"
             " to_apply=step, is_reverse=true"));
  // Rank 1: the carry is a scalar.
  CheckInverse(Module(
      " xs = f32[10] parameter(0)\n init = f32[] constant(0)\n"
      " ROOT scan = f32[10] scan(xs, init), dimensions={0}, to_apply=step"));
}

TEST_CASE("scan: through a fusion", "[analysis][scan]") {
  auto m = ParseOrDie(
      std::string(kStep) +
      "fused {\n p0 = f32[8,16] parameter(0)\n p1 = f32[16] parameter(1)\n"
      " t = f32[16,8] transpose(p0), dimensions={1,0}\n"
      " b = f32[8,16] transpose(t), dimensions={1,0}\n"
      " s = (f32[8,16], f32[16]) scan(b, p1), dimensions={0}, to_apply=step\n"
      " ROOT g = f32[8,16] get-tuple-element(s), index=0\n}\n"
      "ENTRY e {\n a = f32[8,16] parameter(0)\n i = f32[16] parameter(1)\n"
      " ROOT f = f32[8,16] fusion(a, i), kind=kLoop, calls=fused\n}");
  ExprContext ctx;
  auto r = ComputeOutputToInputIndexing(Root(*m), 0, &ctx);
  INFO((r.ok() ? std::string() : r.error().ToString()));
  REQUIRE(r.ok());
  ExpectText(OnlyMap(r->indexing_maps[0]),
             "(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]");
  ExpectText(OnlyMap(r->indexing_maps[1]),
             "(d0, d1) -> (d1), domain: d0 in [0, 0], d1 in [0, 15]");
}

TEST_CASE("scan: bad instructions are invalid_argument", "[analysis][scan]") {
  const char* kBad[] = {
      // No scanned dimension, two, or one out of range.
      " xs = f32[8] parameter(0)\n init = f32[] parameter(1)\n"
      " ROOT s = f32[8] scan(xs, init), to_apply=step",
      " xs = f32[8,2] parameter(0)\n init = f32[] parameter(1)\n"
      " ROOT s = f32[8,2] scan(xs, init), dimensions={0,1}, to_apply=step",
      " xs = f32[8] parameter(0)\n init = f32[] parameter(1)\n"
      " ROOT s = f32[8] scan(xs, init), dimensions={1}, to_apply=step",
      // A carry of the wrong shape; an input after a carry.
      " xs = f32[8,2] parameter(0)\n init = f32[8] parameter(1)\n"
      " ROOT s = f32[8,2] scan(xs, init), dimensions={0}, to_apply=step",
      " xs = f32[8,2] parameter(0)\n init = f32[2] parameter(1)\n"
      " ROOT s = f32[8,2] scan(xs, init, xs), dimensions={0}, to_apply=step",
      // An output of neither shape; a bad is_reverse.
      " xs = f32[8,2] parameter(0)\n init = f32[2] parameter(1)\n"
      " ROOT s = f32[2,8] scan(xs, init), dimensions={0}, to_apply=step",
      " xs = f32[8] parameter(0)\n init = f32[] parameter(1)\n"
      " ROOT s = f32[8] scan(xs, init), dimensions={0}, to_apply=step,"
      " is_reverse=maybe",
  };
  for (const char* entry : kBad) {
    INFO(entry);
    auto m = ParseOrDie(Module(entry));
    ExprContext ctx;
    auto r = ComputeOutputToInputIndexing(Root(*m), 0, &ctx);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK(r.error().message.find("(scan)") != std::string::npos);
    auto back = ComputeInputToOutputIndexing(Root(*m), 0, &ctx);
    REQUIRE_FALSE(back.ok());
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
