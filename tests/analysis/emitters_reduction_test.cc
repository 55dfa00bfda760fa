// The reduction plans (docs/xla-reference.md §(h) h.3, h.8): the worked
// numbers of h.11 on rtx_a6000 and h100, the reduction dims and kind rules,
// groups, shared memory, and a brute-force check of row, multi-row and
// column maps: every input element read once, every output written once
// (by the thread with t_r = 0), and each input read by a thread of the
// block (and the warp, or the transposed column) that writes its output.
#include <catch2/catch.hpp>

#include "analysis/uses/kernel_graph.h"
#include "tests/analysis/emitters_test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

std::string Reduce(const std::string& type, const std::string& in,
                   const std::string& out, const std::string& dims,
                   const std::string& input_expr = "") {
  std::string body = input_expr.empty()
                         ? "  p0 = " + type + in + " parameter(0)\n"
                         : input_expr;
  return "add { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT s = " + type + "[] add(a, b) }\n" +
         "ENTRY e {\n" + body + "  z = " + type + "[] constant(0)\n" +
         "  ROOT r = " + type + out + " reduce(p0, z), dimensions={" + dims +
         "}, to_apply=add\n}";
}

void CheckRowNumbers(const EmitterPlan& plan, int64_t tr, int64_t tk, int64_t v,
                     int64_t tile, int64_t blocks) {
  REQUIRE(plan.reduction);
  CHECK(plan.reduction->threads_reduced == tr);
  CHECK(plan.reduction->threads_kept == tk);
  CHECK(plan.launch.vector_size == v);
  CHECK(plan.reduction->tile == tile);
  CHECK(plan.launch.blocks == std::array<int64_t, 3>{blocks, 1, 1});
  CHECK(plan.launch.threads == std::array<int64_t, 3>{tr * tk, 1, 1});
}

TEST_CASE("reduction plan: h.11 worked numbers", "[emitters][reduction]") {
  for (const char* device : {"rtx_a6000", "h100"}) {
    INFO(device);
    // Row f32[100,64,512] over {2}: D = [1, 6400, 512].
    Planned p = Plan(Reduce("f32", "[100,64,512]", "[100,64]", "2"), device);
    REQUIRE(p.plan.kind == EmitterKind::kReduction);
    CHECK(*p.plan.reduction_kind == ReductionKind::kRow);
    CHECK(p.plan.reduction->dims == std::array<int64_t, 3>{1, 6400, 512});
    CheckRowNumbers(p.plan, 32, 8, 2, 8, 800);
    CHECK(p.plan.launch.shared_memory_bytes == 0);
    CHECK(p.plan.shared_tiles.empty());
    // Writers: th_x mod 32 = 0.
    ExpectSameMap(*p.plan.roots[0].output_map,
                  "(th_x, th_y, th_z, bl_x, bl_y, bl_z) -> (bl_x floordiv 8, "
                  "th_x floordiv 32 + (bl_x mod 8) * 8), domain: th_x in [0, "
                  "255], th_y in [0, 0], th_z in [0, 0], bl_x in [0, 799], "
                  "bl_y in [0, 0], bl_z in [0, 0], th_x mod 32 in [0, 0]",
                  p.ctx.get());
    // Row f64[100,128]: v = 1, tile 4, 13 blocks.
    p = Plan(Reduce("f64", "[100,128]", "[100]", "1"), device);
    CheckRowNumbers(p.plan, 32, 8, 1, 4, 13);
    // Multi-row pred[76800,16] from f32 compares: v = 4 (the v = 1 grid
    // has 4800 blocks > cores), Tr = 4, Tk = 64, 1200 blocks.
    p = Plan(R"(
      or { a = pred[] parameter(0)  b = pred[] parameter(1)
           ROOT s = pred[] or(a, b) }
      ENTRY e {
        p0 = f32[76800,16] parameter(0)
        p1 = f32[76800,16] parameter(1)
        c = pred[76800,16] compare(p0, p1), direction=GT
        z = pred[] constant(false)
        ROOT r = pred[76800] reduce(c, z), dimensions={1}, to_apply=or
      })",
             device);
    CHECK(*p.plan.reduction_kind == ReductionKind::kMultiRow);
    CheckRowNumbers(p.plan, 4, 64, 4, 1, 1200);
    // Column f32[13,1051,321] over {1}: v = 1, s0 in [0, 32], 143 blocks,
    // a 32 x 33 f32 tile.
    p = Plan(Reduce("f32", "[13,1051,321]", "[13,321]", "1"), device);
    CHECK(*p.plan.reduction_kind == ReductionKind::kColumn);
    CHECK(p.plan.reduction->dims == std::array<int64_t, 3>{13, 1051, 321});
    CHECK(p.plan.launch.vector_size == 1);
    CHECK(p.plan.launch.blocks == std::array<int64_t, 3>{143, 1, 1});
    CHECK(p.plan.launch.threads == std::array<int64_t, 3>{1024, 1, 1});
    CHECK(SymbolNamed(*p.plan.roots[0].hero_operand_maps[0], "s0").bounds ==
          Interval{0, 32});
    REQUIRE(p.plan.shared_tiles.size() == 1);
    // XLA's padded scratch; ixa's layout takes no more (an XOR swizzle).
    CHECK(p.plan.shared_tiles[0].xla_dims == std::vector<int64_t>{32, 33});
    CHECK(p.plan.launch.shared_memory_bytes == 32 * 32 * 4);
    // The init value has no map (XLA has none).
    CHECK_FALSE(p.plan.roots[0].hero_operand_maps[1]);
  }
}

TEST_CASE("reduction plan: dims, kinds and what stays with the loop",
          "[emitters][reduction]") {
  struct Case {
    std::string in, out, dims;
    bool reduction;
    std::array<int64_t, 3> d;
    ReductionKind kind;
  };
  const Case kCases[] = {
      // everything reduced: row [1, 1, N]
      {"[4,64]", "[]", "0,1", true, {1, 1, 256}, ReductionKind::kRow},
      // kept in the middle: batched row [maj, mid, min]
      {"[3,4,64]", "[4]", "0,2", true, {3, 4, 64}, ReductionKind::kRow},
      // reduced major dims: column [1, maj, mid]
      {"[64,40]", "[40]", "0", true, {1, 64, 40}, ReductionKind::kColumn},
      // reduced middle: column [maj, mid, min]
      {"[5,64,40]", "[5,40]", "1", true, {5, 64, 40}, ReductionKind::kColumn},
      // small rows fitting a warp: multi-row
      {"[50,8]", "[50]", "1", true, {1, 50, 8}, ReductionKind::kMultiRow},
      // row of 24: neither >= 32 nor a divisor of 32: elemental (loop)
      {"[50,24]", "[50]", "1", false, {}, ReductionKind::kRow},
      // short columns: elemental (loop)
      {"[16,40]", "[40]", "0", false, {}, ReductionKind::kRow},
      // non-adjacent kept and reduced dims: loop
      {"[4,64,4,64]", "[4,4]", "1,3", false, {}, ReductionKind::kRow},
  };
  for (const Case& c : kCases) {
    INFO(c.in << " over {" << c.dims << "}");
    Planned p = Plan(Reduce("f32", c.in, c.out, c.dims));
    if (!c.reduction) {
      CHECK(p.plan.kind == EmitterKind::kLoop);
      continue;
    }
    REQUIRE(p.plan.kind == EmitterKind::kReduction);
    CHECK(p.plan.reduction->dims == c.d);
    CHECK(*p.plan.reduction_kind == c.kind);
  }
  // The layout decides adjacency and order: f32[64,6]{0,1} over {0} is a
  // row reduction [1, 6, 64].
  Planned p = Plan(Reduce("f32", "[64,6]{0,1}", "[6]", "0"));
  REQUIRE(p.plan.kind == EmitterKind::kReduction);
  CHECK(p.plan.reduction->dims == std::array<int64_t, 3>{1, 6, 64});
  CHECK(*p.plan.reduction_kind == ReductionKind::kRow);
}

TEST_CASE("reduction plan: a reduce that is not race-free",
          "[emitters][reduction]") {
  // Row [16, 64, 1024]: D0 = 16 > 8. As the root it is the hero: XLA
  // CHECK-fails, ixa answers unsupported.
  auto module = ParseOrDie(Reduce("f32", "[16,64,1024]", "[64]", "0,2"));
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  auto plan = ComputeEmitterPlan(*region, *hw::FindDevice("h100"), &ctx);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().code == ErrorCode::kUnsupported);
  // Behind a convert it is no real hero: the loop emitter takes it.
  Planned p = Plan(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p0 = f32[16,64,1024] parameter(0)
      z = f32[] constant(0)
      r = f32[64] reduce(p0, z), dimensions={0,2}, to_apply=add
      ROOT c = f16[64] convert(r)
    })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
}

TEST_CASE("reduction plan: shared memory and vector sizes",
          "[emitters][reduction]") {
  // R = 4096: Tr = 256, 8 warps per row: a [1, 8] f32 scratch.
  Planned p = Plan(Reduce("f32", "[10,4096]", "[10]", "1"));
  CHECK(p.plan.reduction->threads_reduced == 256);
  CHECK(p.plan.reduction->threads_kept == 1);
  REQUIRE(p.plan.shared_tiles.size() == 1);
  CHECK(p.plan.shared_tiles[0].dims == std::vector<int64_t>{1, 8});
  // R = 16384: Tr = 1024, 32 warps: XLA pads to 33; the one row is read in
  // one wavefront, so ixa's scratch is 32 wide.
  p = Plan(Reduce("f32", "[10,16384]", "[10]", "1"));
  CHECK(p.plan.shared_tiles[0].xla_dims == std::vector<int64_t>{1, 33});
  CHECK(p.plan.shared_tiles[0].dims == std::vector<int64_t>{1, 32});
  // Column f32 with K2 = 64: v = 2, XLA's scratch [32, 65].
  p = Plan(Reduce("f32", "[40,64]", "[64]", "0"));
  CHECK(p.plan.launch.vector_size == 2);
  CHECK(p.plan.shared_tiles[0].xla_dims == std::vector<int64_t>{32, 65});
  // f16 rows of 2048: 4t = 512 <= R, R mod 4 = 0: v = 4.
  p = Plan(Reduce("f16", "[10,2048]", "[10]", "1"));
  CHECK(p.plan.launch.vector_size == 4);
  // f16 rows of 100: Tr = 32, 4t > R: v = 2.
  p = Plan(Reduce("f16", "[10,100]", "[10]", "1"));
  CHECK(p.plan.launch.vector_size == 2);
  // Odd rows never vectorise.
  p = Plan(Reduce("f16", "[10,2047]", "[10]", "1"));
  CHECK(p.plan.launch.vector_size == 1);
}

TEST_CASE("reduction plan: groups", "[emitters][reduction]") {
  // Two reductions of disjoint inputs: two groups, bl_y = group.
  Planned p = Plan(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p0 = f32[8,64] parameter(0)
      p1 = f32[8,64] parameter(1)
      z = f32[] constant(0)
      r0 = f32[8] reduce(p0, z), dimensions={1}, to_apply=add
      r1 = f32[8] reduce(p1, z), dimensions={1}, to_apply=add
      ROOT t = (f32[8], f32[8]) tuple(r0, r1)
    })");
  REQUIRE(p.plan.kind == EmitterKind::kReduction);
  REQUIRE(p.plan.reduction->groups.size() == 2);
  CHECK(p.plan.launch.blocks[1] == 2);
  CHECK(p.plan.roots[0].group == 0);
  CHECK(p.plan.roots[1].group == 1);
  CHECK(p.plan.roots[1].output_map->dims()[4].bounds == Interval{1, 1});
  CHECK(p.plan.parameters[1].maps[0].dims()[4].bounds == Interval{1, 1});
  // Reading one parameter joins them; a side output joins the group of
  // the reduction it shares an input with.
  p = Plan(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p0 = f32[8,64] parameter(0)
      z = f32[] constant(0)
      e = f32[8,64] exponential(p0)
      r0 = f32[8] reduce(p0, z), dimensions={1}, to_apply=add
      r1 = f32[8] reduce(e, z), dimensions={1}, to_apply=add
      ROOT t = (f32[8], f32[8], f32[8,64]) tuple(r0, r1, e)
    })");
  REQUIRE(p.plan.kind == EmitterKind::kReduction);
  CHECK(p.plan.reduction->groups.size() == 1);
  CHECK(p.plan.launch.blocks[1] == 1);
  // The side output is written where the input is read.
  CHECK(p.plan.roots[2].hero->name == "e");
  CHECK(*p.plan.roots[2].output_map == *p.plan.roots[1].hero_operand_maps[0]);
}

// Brute force of one real-hero root (see the file comment).
void CheckReductionRoot(const Planned& p, const RootPlan& r) {
  ExprContext* ctx = p.ctx.get();
  const ReductionDescription& d = *p.plan.reduction;
  const hlo::Instruction* hero = r.hero;
  CheckWritesEachOnce(*r.output_map, OutputDims(*hero, 0));
  std::map<Index, Point> writer;
  ForEachPoint(*r.output_map,
               [&](const Point& pt, const Index& out) { writer[out] = pt; });
  const int inputs = hero->operand_count() / 2;
  for (int j = 0; j < inputs; ++j) {
    INFO("operand " << j);
    const IndexingMap& in = *r.hero_operand_maps[j];
    CheckWritesEachOnce(in, hero->operand(j)->shape.dims);
    auto to_out = ComputeInputToOutputIndexing(*hero, j, ctx);
    REQUIRE(to_out.ok());
    const IndexingMap& reduce_map = to_out->indexing_maps[0].maps()[0];
    ForEachPoint(in, [&](const Point& pt, const Index& a) {
      Index o = *reduce_map.Evaluate(a, {});
      const Point& w = writer.at(o);
      INFO("input " << ::Catch::Detail::stringify(a) << " output "
                    << ::Catch::Detail::stringify(o));
      REQUIRE(pt.dims[3] == w.dims[3]);  // same block
      REQUIRE(pt.dims[4] == w.dims[4]);  // same group
      if (d.kind == ReductionKind::kColumn) {
        // Read by lane t1 of a warp, finished by warp t0 = t1 after the
        // shared-memory transpose, at the same vector lane.
        REQUIRE(pt.dims[0] % 32 == w.dims[0] / 32);
        REQUIRE(pt.symbols[1] == w.symbols[0]);
      } else {
        REQUIRE(pt.dims[0] / d.threads_reduced ==
                w.dims[0] / d.threads_reduced);
      }
    });
  }
}

TEST_CASE("reduction plan: brute force", "[emitters][reduction]") {
  const std::string kFusions[] = {
      Reduce("f32", "[6,100]", "[6]", "1"),       // row, v = 2
      Reduce("f32", "[3,4,64]", "[4]", "0,2"),    // batched row
      Reduce("f32", "[64,6]{0,1}", "[6]", "0"),   // row through layout
      Reduce("f16", "[5,96]", "[5]", "1"),        // row, v = 2 (4t > R)
      Reduce("f32", "[50,8]", "[50]", "1"),       // multi-row
      Reduce("s8", "[200,4]", "[200]", "1"),      // multi-row, v = 4
      Reduce("f32", "[40,33]", "[33]", "0"),      // column, v = 1
      Reduce("f32", "[2,40,64]", "[2,64]", "1"),  // column, v = 2
      Reduce("f32", "[4,64]", "[]", "0,1"),       // everything
      // variadic: two inputs, two inits
      R"(
      mm { a = f32[] parameter(0)  b = s32[] parameter(1)
           c = f32[] parameter(2)  d = s32[] parameter(3)
           m = f32[] maximum(a, c)  i = s32[] maximum(b, d)
           ROOT t = (f32[], s32[]) tuple(m, i) }
      ENTRY e {
        p0 = f32[4,64] parameter(0)
        p1 = s32[4,64] parameter(1)
        z = f32[] constant(0)
        y = s32[] constant(0)
        ROOT r = (f32[4], s32[4]) reduce(p0, p1, z, y), dimensions={1},
          to_apply=mm
      })",
  };
  for (const std::string& hlo : kFusions) {
    INFO(hlo);
    for (const hw::Device& device : {*hw::FindDevice("h100"), TinyGpu()}) {
      INFO(device.name);
      Planned p = PlanOn(hlo, device);
      REQUIRE(p.plan.kind == EmitterKind::kReduction);
      CheckReductionRoot(p, p.plan.roots[0]);
    }
  }
  CHECK(PlanOn(kFusions[5], TinyGpu()).plan.launch.vector_size == 4);
  CHECK(PlanOn(kFusions[7], TinyGpu()).plan.launch.vector_size == 2);
}

TEST_CASE("reduction plan: side outputs and parameters, brute force",
          "[emitters][reduction]") {
  Planned p = Plan(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p0 = f32[6,64] parameter(0)
      p1 = f32[6,64] parameter(1)
      m = f32[6,64] multiply(p0, p1)
      z = f32[] constant(0)
      r = f32[6] reduce(m, z), dimensions={1}, to_apply=add
      c = f16[6] convert(r)
      ROOT t = (f16[6], f32[6,64]) tuple(c, m)
    })");
  REQUIRE(p.plan.kind == EmitterKind::kReduction);
  const RootPlan& c = p.plan.roots[0];
  CHECK(c.hero->name == "r");
  CheckReductionRoot(p, c);
  const RootPlan& m = p.plan.roots[1];
  CHECK(m.hero->name == "m");
  CheckWritesEachOnce(*m.output_map, {6, 64});
  // Both parameters are read once per element, where m is read.
  for (int i = 0; i < 2; ++i) {
    const ParameterPlan& pp = p.plan.parameters[i];
    REQUIRE(pp.maps.size() == 1);
    CHECK(pp.maps[0] == *c.hero_operand_maps[0]);
    CheckWritesEachOnce(pp.maps[0], {6, 64});
  }
}

// A producer fusion holding a row reduction and a consumer fusion holding
// the rest of its epilogue: the pair, asked as one fusion, is a reduction
// whichever of the two holds the epilogue's instructions.
TEST_CASE("reduction plan: a producer/consumer pair split around the epilogue",
          "[emitters][reduction]") {
  const std::string reducer =
      "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b) }\n";
  const std::string entry =
      "ENTRY e {\n a = f32[128,1024] parameter(0)\n"
      " prod = f32[128] fusion(a), kind=kInput, calls=fp\n"
      " ROOT cons = f32[128] fusion(prod), kind=kLoop, calls=fc\n}";
  const std::string reduce =
      " p = f32[128,1024] parameter(0)\n z = f32[] constant(0)\n";
  struct Split {
    const char* what;
    std::string producer, consumer;
  };
  const Split splits[] = {
      {"epilogue in the consumer",
       "fp {\n" + reduce +
           " ROOT r = f32[128] reduce(p, z), dimensions={1}, to_apply=add\n}\n",
       "fc {\n q = f32[128] parameter(0)\n n = f32[128] negate(q)\n"
       " ROOT e = f32[128] exponential(n)\n}\n"},
      {"epilogue in both",
       "fp {\n" + reduce +
           " r = f32[128] reduce(p, z), dimensions={1}, to_apply=add\n"
           " ROOT n = f32[128] negate(r)\n}\n",
       "fc {\n q = f32[128] parameter(0)\n"
       " ROOT e = f32[128] exponential(q)\n}\n"},
      {"epilogue in the producer",
       "fp {\n" + reduce +
           " r = f32[128] reduce(p, z), dimensions={1}, to_apply=add\n"
           " n = f32[128] negate(r)\n ROOT e = f32[128] exponential(n)\n}\n",
       "fc {\n q = f32[128] parameter(0)\n"
       " ROOT c = f32[128] copy(q)\n}\n"},
  };
  for (const Split& split : splits) {
    INFO(split.what);
    auto module = ParseOrDie("HloModule m\n" + reducer + split.producer +
                             split.consumer + entry);
    auto group = RegionOfEntryInstructions(*module, {"prod", "cons"});
    REQUIRE(group.ok());
    REQUIRE(group->flat != nullptr);
    CHECK(group->region.root->name == "cons");
    REQUIRE(group->region.parameters.size() == 1);
    CHECK(group->region.parameters[0]->name == "a");
    ExprContext ctx;
    auto plan = ComputeEmitterPlan(group->region, *hw::FindDevice("h100"),
                                   PlanOptions{}, &ctx);
    REQUIRE(plan.ok());
    CHECK(plan->kind == EmitterKind::kReduction);
    CHECK(*plan->reduction_kind == ReductionKind::kRow);
  }
  // Without a listed fusion nothing is inlined.
  auto plain = ParseOrDie(
      "HloModule m\nENTRY e {\n a = f32[8] parameter(0)\n"
      " n = f32[8] negate(a)\n ROOT x = f32[8] exponential(n)\n}");
  auto group = RegionOfEntryInstructions(*plain, {"n", "x"});
  REQUIRE(group.ok());
  CHECK(group->flat == nullptr);
  CHECK(group->region.members.size() == 2);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
