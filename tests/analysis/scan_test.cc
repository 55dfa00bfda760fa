// The scan op's maps (analysis/indexing/scan.cc): the reading documented
// there, and input -> output as the exact inverse of output -> input,
// checked point by point. As XLA gives it, every output reads the inits
// at its lane over the whole output (the carry every step is handed
// descends from them); a scan run step by step confirms which outputs
// depend on the init: all of them.
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
  // Every step's carry descends from the init.
  ExpectText(OnlyMap(step->indexing_maps[1]),
             "(d0, d1) -> (d1), domain: d0 in [0, 7], d1 in [0, 15]");
  auto carry = ComputeOutputToInputIndexing(Root(*m), 1, &ctx);
  REQUIRE(carry.ok());
  ExpectText(OnlyMap(carry->indexing_maps[0]),
             "(d0) -> (7, d0), domain: d0 in [0, 15]");
  // The final carry descends from the init too.
  ExpectText(OnlyMap(carry->indexing_maps[1]),
             "(d0) -> (d0), domain: d0 in [0, 15]");

  // Input to output: the init reaches every step of its lane.
  auto init = ComputeInputToOutputIndexing(Root(*m), 1, &ctx);
  REQUIRE(init.ok());
  ExpectText(OnlyMap(init->indexing_maps[0]),
             "(d0)[s0] -> (s0, d0), domain: d0 in [0, 15], s0 in [0, 7]");
  ExpectText(OnlyMap(init->indexing_maps[1]),
             "(d0) -> (d0), domain: d0 in [0, 15]");
}

// XLA's rank-1 case: output 0 reads the input at its own index and the
// (scalar) init over the whole output domain.
TEST_CASE("scan: rank 1, the init over the whole output", "[analysis][scan]") {
  auto m = ParseOrDie(
      Module(" xs = f32[10] parameter(0)\n init = f32[] parameter(1)\n"
             " ROOT scan = (f32[10], f32[]) scan(xs, init), dimensions={0},"
             " to_apply=step"));
  ExprContext ctx;
  auto step = ComputeOutputToInputIndexing(Root(*m), 0, &ctx);
  REQUIRE(step.ok());
  ExpectText(OnlyMap(step->indexing_maps[0]),
             "(d0) -> (d0), domain: d0 in [0, 9]");
  ExpectText(OnlyMap(step->indexing_maps[1]),
             "(d0) -> (), domain: d0 in [0, 9]");
}

// A scan run step by step on symbolic values: each value is the set of
// operand elements it was computed from (kStep's body: the new carry and
// the step's output are carry + x). Every output element depends on its
// lane's init, through the carry: the init maps name exactly the init
// elements the run reaches, and the input maps name an input element the
// run reaches (the one the step reads).
TEST_CASE("scan: run step by step, every output depends on the init",
          "[analysis][scan]") {
  for (const char* reverse : {"", ", is_reverse=true"}) {
    INFO("reverse: " << reverse);
    auto m = ParseOrDie(
        Module(std::string(" xs = f32[5,3] parameter(0)\n"
                           " init = f32[3] parameter(1)\n"
                           " ROOT scan = (f32[5,3], f32[3]) scan(xs, init),"
                           " dimensions={0}, to_apply=step") +
               reverse));
    const bool rev = std::string(reverse).size() > 0;
    // (operand, index) pairs a value was computed from.
    using Deps = std::set<std::pair<int, std::vector<int64_t>>>;
    std::vector<std::vector<Deps>> outputs(5, std::vector<Deps>(3));
    std::vector<Deps> final_carry(3);
    for (int64_t lane = 0; lane < 3; ++lane) {
      Deps carry = {{1, {lane}}};
      for (int64_t n = 0; n < 5; ++n) {
        const int64_t i = rev ? 4 - n : n;
        carry.insert({0, {i, lane}});
        outputs[i][lane] = carry;
      }
      final_carry[lane] = carry;
    }
    auto inits_of = [](const Deps& deps) {
      Deps inits;
      for (const auto& d : deps) {
        if (d.first == 1) inits.insert(d);
      }
      return inits;
    };
    ExprContext ctx;
    auto step = ComputeOutputToInputIndexing(Root(*m), 0, &ctx);
    auto last = ComputeOutputToInputIndexing(Root(*m), 1, &ctx);
    REQUIRE(step.ok());
    REQUIRE(last.ok());
    const IndexingMap to_input = OnlyMap(step->indexing_maps[0]);
    const IndexingMap to_init = OnlyMap(step->indexing_maps[1]);
    // The operand element a map names at output element `o`.
    auto at = [](const IndexingMap& m, std::vector<int64_t> o) {
      REQUIRE(*m.InDomain(o, {}));
      auto v = m.Evaluate(o, {});
      REQUIRE(v.ok());
      return *v;
    };
    for (int64_t i = 0; i < 5; ++i) {
      for (int64_t lane = 0; lane < 3; ++lane) {
        const Deps init_read = {{1, at(to_init, {i, lane})}};
        CHECK(inits_of(outputs[i][lane]) == init_read);
        CHECK(outputs[i][lane].count({0, at(to_input, {i, lane})}) == 1);
      }
    }
    const IndexingMap carry_to_input = OnlyMap(last->indexing_maps[0]);
    const IndexingMap carry_to_init = OnlyMap(last->indexing_maps[1]);
    for (int64_t lane = 0; lane < 3; ++lane) {
      const Deps init_read = {{1, at(carry_to_init, {lane})}};
      CHECK(inits_of(final_carry[lane]) == init_read);
      CHECK(final_carry[lane].count({0, at(carry_to_input, {lane})}) == 1);
    }
  }
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
  // Every step reads the inits at its lane (the carry descends from them).
  for (int k : {2, 3}) {
    ExpectText(OnlyMap(step->indexing_maps[k]),
               "(d0, d1, d2) -> (d0, d2), domain: d0 in [0, 2], "
               "d1 in [0, 4], d2 in [0, 3]");
  }
  auto carry = ComputeOutputToInputIndexing(Root(*m), 2, &ctx);
  REQUIRE(carry.ok());
  // Reverse: the last step is index 0.
  ExpectText(OnlyMap(carry->indexing_maps[1]),
             "(d0, d1) -> (d0, 0, d1), domain: d0 in [0, 2], d1 in [0, 3]");
  for (int k : {2, 3}) {
    ExpectText(OnlyMap(carry->indexing_maps[k]),
               "(d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 3]");
  }
  auto init = ComputeInputToOutputIndexing(Root(*m), 3, &ctx);
  REQUIRE(init.ok());
  ExpectText(OnlyMap(init->indexing_maps[0]),
             "(d0, d1)[s0] -> (d0, s0, d1), domain: d0 in [0, 2], "
             "d1 in [0, 3], s0 in [0, 4]");
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
      // Every output reads every operand (the inits through the carry).
      CHECK_FALSE(forward.empty());
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
             "(d0, d1) -> (d1), domain: d0 in [0, 7], d1 in [0, 15]");
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
