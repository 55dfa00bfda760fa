// The tiled transpose plan (docs/xla-reference.md §(h) h.4, h.7): the
// worked numbers of h.11 on rtx_a6000 and h100, the normalisation, and a
// brute-force check that every block reads exactly the input its outputs
// need (through the shared tile) and every element moves once.
#include <catch2/catch.hpp>

#include "analysis/emitters/internal.h"
#include "tests/analysis/emitters_test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

// XLA's padded tile (its dims and bytes), and ixa's layout of it in no more
// memory (docs/emitters.md §6c), which the launch counts.
void CheckTile(const EmitterPlan& plan, std::vector<int64_t> xla_dims,
               int64_t xla_bytes) {
  REQUIRE(plan.shared_tiles.size() == 1);
  const SharedTile& tile = plan.shared_tiles[0];
  CHECK(tile.xla_dims == xla_dims);
  SharedTile xla = tile;
  xla.dims = tile.xla_dims;
  CHECK(xla.bytes() == xla_bytes);
  CHECK(tile.bytes() <= xla_bytes);
  CHECK(plan.launch.shared_memory_bytes == tile.bytes());
}

const char kF16[] = R"(
  ENTRY e {
    p0 = f16[8192,64,64] parameter(0)
    ROOT t = f16[8192,64,64] transpose(p0), dimensions={0,2,1}
  })";

TEST_CASE("transpose plan: h.11 f16[8192,64,64] by {0,2,1}",
          "[emitters][transpose]") {
  for (const char* device : {"rtx_a6000", "h100"}) {
    INFO(device);
    Planned p = Plan(kF16, device);
    REQUIRE(p.plan.kind == EmitterKind::kTranspose);
    REQUIRE(p.plan.transpose);
    CHECK(p.plan.transpose->permutation == std::vector<int64_t>{0, 2, 1});
    CHECK(p.plan.transpose->dims == std::vector<int64_t>{8192, 64, 64});
    // v = 2: 32768 * 128 >= 4 * cores * threads per core, 2112 * 4 <= 48K.
    CHECK(p.plan.launch.vector_size == 2);
    CHECK(p.plan.launch.threads == std::array<int64_t, 3>{128, 1, 1});
    CHECK(p.plan.launch.blocks == std::array<int64_t, 3>{8192, 1, 1});
    CheckTile(p.plan, {1, 64, 65}, 8320);
    const RootPlan& r = p.plan.roots[0];
    CHECK(SymbolNamed(*r.output_map, "s0").bounds == Interval{0, 15});
    CHECK(SymbolNamed(*r.output_map, "s1").bounds == Interval{0, 1});
    ExpectSameMap(*r.hero_operand_maps[0],
                  "(th_x, th_y, th_z, bl_x, bl_y, bl_z)[s0, s1] -> (bl_x, s0 * "
                  "4 + th_x floordiv 32, (th_x mod 32) * 2 + s1), domain: th_x "
                  "in [0, 127], th_y in [0, 0], th_z in [0, 0], bl_x in [0, "
                  "8191], bl_y in [0, 0], bl_z in [0, 0], s0 in [0, 15], s1 in "
                  "[0, 1]",
                  p.ctx.get());
  }
}

TEST_CASE("transpose plan: h.11 f32[20,160,170] by {2,1,0} behind exp/abs",
          "[emitters][transpose]") {
  for (const char* device : {"rtx_a6000", "h100"}) {
    INFO(device);
    Planned p = Plan(R"(
      ENTRY e {
        p0 = f32[20,160,170] parameter(0)
        e = f32[20,160,170] exponential(p0)
        t = f32[170,160,20] transpose(e), dimensions={2,1,0}
        ROOT a = f32[170,160,20] abs(t)
      })",
                     device);
    REQUIRE(p.plan.kind == EmitterKind::kTranspose);
    CHECK(p.plan.transpose->permutation == std::vector<int64_t>{2, 1, 0});
    CHECK(p.plan.transpose->input_dims == std::vector<int64_t>{20, 160, 170});
    CHECK(p.plan.launch.vector_size == 1);
    CHECK(p.plan.launch.blocks == std::array<int64_t, 3>{960, 1, 1});
    CheckTile(p.plan, {32, 1, 33}, 32 * 33 * 4);
    const RootPlan& r = p.plan.roots[0];
    CHECK(r.hero->name == "t");
    // The loop runs s0 over [0, 7] (the input map's bound tightens to
    // [0, 4] from its constraint: dim 0 has only 20 rows).
    CHECK(SymbolNamed(*r.output_map, "s0").bounds == Interval{0, 7});
    // p0 is read through the hero's operand (exp), at the input tile.
    REQUIRE(p.plan.parameters[0].maps.size() == 1);
    CHECK(p.plan.parameters[0].maps[0] == *r.hero_operand_maps[0]);
  }
}

TEST_CASE("transpose plan: h.11 u8[256,256,256] by {0,2,1}",
          "[emitters][transpose]") {
  const char* hlo = R"(
    ENTRY e {
      p0 = u8[256,256,256] parameter(0)
      ROOT t = u8[256,256,256] transpose(p0), dimensions={0,2,1}
    })";
  Planned a6000 = Plan(hlo, "rtx_a6000");
  // v = 4: 16384 * 128 >= 16 * 129024.
  CHECK(a6000.plan.launch.vector_size == 4);
  CheckTile(a6000.plan, {1, 128, 129}, 128 * 129);
  CHECK(a6000.plan.launch.blocks == std::array<int64_t, 3>{1024, 1, 1});
  // On h100 16 * 270336 threads' worth is too much work to ask: v = 2.
  Planned h100 = Plan(hlo, "h100");
  CHECK(h100.plan.launch.vector_size == 2);
  CheckTile(h100.plan, {1, 64, 65}, 64 * 65);
  CHECK(h100.plan.launch.blocks == std::array<int64_t, 3>{4096, 1, 1});
}

std::optional<TransposeDescription> Describe(const std::string& hlo) {
  Planned p = Plan(hlo);
  return p.plan.transpose;
}

TEST_CASE("transpose plan: normalisation (h.4)", "[emitters][transpose]") {
  // [32,48,64] by {2,0,1}: runs (32*48)(64) -> 021 with dims [1,64,1536].
  auto d = Describe(R"(ENTRY e {
    p0 = f32[32,48,64] parameter(0)
    ROOT t = f32[64,32,48] transpose(p0), dimensions={2,0,1} })");
  REQUIRE(d);
  CHECK(d->dims == std::vector<int64_t>{1, 64, 1536});
  CHECK(d->permutation == std::vector<int64_t>{0, 2, 1});
  // Size-1 dims are dropped before the runs are cut.
  d = Describe(R"(ENTRY e {
    p0 = f32[1,32,1,48] parameter(0)
    ROOT t = f32[48,1,32,1] transpose(p0), dimensions={3,2,1,0} })");
  REQUIRE(d);
  CHECK(d->dims == std::vector<int64_t>{1, 48, 32});
  // A copy changing the layout is the physical form.
  d = Describe(R"(ENTRY e {
    p0 = f32[64,48]{1,0} parameter(0)
    ROOT c = f32[64,48]{0,1} copy(p0) })");
  REQUIRE(d);
  CHECK(d->dims == std::vector<int64_t>{1, 48, 64});
  // 102 with a most-minor dim of more than 8 bytes needs no tile (its
  // reads and writes are contiguous runs): the loop emitter.
  Planned p = Plan(R"(ENTRY e {
    p0 = f32[64,64,64] parameter(0)
    ROOT t = f32[64,64,64] transpose(p0), dimensions={1,0,2} })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
  // With a kept minor of 8 bytes it is tiled (the generalized form, not
  // XLA's at the pinned revision): 32 x 32 x 2 tiles padded to 32 x 33 x 2.
  p = Plan(R"(ENTRY e {
    p0 = f32[40,70,2] parameter(0)
    ROOT t = f32[70,40,2] transpose(p0), dimensions={1,0,2} })");
  REQUIRE(p.plan.kind == EmitterKind::kTranspose);
  REQUIRE(p.plan.transpose);
  CHECK(p.plan.transpose->generalized);
  CHECK(p.plan.transpose->kept_minor);
  CHECK(p.plan.transpose->input_dims == std::vector<int64_t>{40, 70, 2});
  CHECK(p.plan.transpose->permutation == std::vector<int64_t>{1, 0, 2});
  CHECK(p.plan.transpose->block_sizes == std::vector<int64_t>{32, 32, 2});
  CHECK(p.plan.transpose->block_counts == std::vector<int64_t>{2, 3, 1});
  REQUIRE(p.plan.shared_tiles.size() == 1);
  CHECK(p.plan.shared_tiles[0].xla_dims == std::vector<int64_t>{32, 33, 2});
  CHECK(p.plan.launch.shared_memory_bytes <= 32 * 33 * 2 * 4);
  CHECK(p.plan.launch.blocks[0] == 6);
  // The kept minor is one vector of 2 (8 bytes) per thread.
  CHECK(p.plan.launch.vector_size == 2);
  // 1302: four runs; the input's minor dim (40) against the output's
  // (34).
  p = Plan(R"(ENTRY e {
    p0 = f32[5,3,34,40] parameter(0)
    ROOT t = f32[3,40,5,34] transpose(p0), dimensions={1,3,0,2} })");
  REQUIRE(p.plan.kind == EmitterKind::kTranspose);
  CHECK(p.plan.transpose->generalized);
  CHECK_FALSE(p.plan.transpose->kept_minor);
  CHECK(p.plan.transpose->dims == std::vector<int64_t>{3, 40, 5, 34});
  CHECK(p.plan.transpose->block_sizes == std::vector<int64_t>{1, 1, 32, 32});
  CHECK(p.plan.shared_tiles[0].xla_dims == std::vector<int64_t>{1, 1, 32, 33});
  // Sub-byte types and small tiled dims stay with the loop emitter.
  p = Plan(R"(ENTRY e {
    p0 = f32[5,3,4,40] parameter(0)
    ROOT t = f32[3,40,5,4] transpose(p0), dimensions={1,3,0,2} })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
  // Both swapped dims >= 8 with product >= 8192, or both >= 16.
  p = Plan(R"(ENTRY e {
    p0 = f32[8,1024] parameter(0)
    ROOT t = f32[1024,8] transpose(p0), dimensions={1,0} })");
  CHECK(p.plan.kind == EmitterKind::kTranspose);
  p = Plan(R"(ENTRY e {
    p0 = f32[8,512] parameter(0)
    ROOT t = f32[512,8] transpose(p0), dimensions={1,0} })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
  // An unbounded dim (`?`, INT64_MAX in the shape) saturates the run
  // sizes and the size test instead of overflowing (UBSan: 8 * INT64_MAX).
  // (The plan itself is limit_exceeded: no launch covers such a shape.)
  for (const char* text : {R"(ENTRY e {
    p0 = f32[<=8,?,4] parameter(0)
    ROOT t = f32[?,<=8,4] transpose(p0), dimensions={1,0,2} })",
                           R"(ENTRY e {
    p0 = f32[<=8,?] parameter(0)
    ROOT t = f32[?,<=8] transpose(p0), dimensions={1,0} })"}) {
    auto m = ParseOrDie(text);
    const hlo::Instruction* t = m->entry()->root();
    auto unbounded = emitters::TiledTransposeDescription(*t, *t);
    if (unbounded) CHECK(unbounded->permutation.size() == 3);
    // Nor is a reshape of such a shape taken for a bitcast (its unit
    // offsets overflowed: INT64_MAX * 784).
    CHECK_FALSE(emitters::ReshapeIsBitcast(t->operand(0)->shape, t->shape));
  }
  // f32 transposed then converted to s8 stays with the loop emitter.
  p = Plan(R"(ENTRY e {
    p0 = f32[64,64] parameter(0)
    t = f32[64,64] transpose(p0), dimensions={1,0}
    ROOT c = s8[64,64] convert(t) })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
}

// Every element of the transpose operand is read once and every output
// element written once; each block reads exactly what its outputs need.
void CheckTransposeBlocks(const Planned& p, const RootPlan& r) {
  ExprContext* ctx = p.ctx.get();
  const hlo::Instruction* hero = r.hero;
  CheckWritesEachOnce(*r.output_map, hero->shape.dims);
  CheckWritesEachOnce(*r.hero_operand_maps[0], hero->operand(0)->shape.dims);
  auto own = ComputeOutputToInputIndexing(*hero, 0, ctx);
  REQUIRE(own.ok());
  auto rel = ReadRelation(own->indexing_maps[0].maps());
  std::map<int64_t, std::set<Index>> need, read;
  ForEachPoint(*r.output_map, [&](const Point& pt, const Index& out) {
    const auto& ins = rel.at(out);
    need[pt.dims[3]].insert(ins.begin(), ins.end());
  });
  ForEachPoint(*r.hero_operand_maps[0], [&](const Point& pt, const Index& in) {
    read[pt.dims[3]].insert(in);
  });
  CHECK(read == need);
}

TEST_CASE("transpose plan: brute force", "[emitters][transpose]") {
  const char* kFusions[] = {
      // 021 with a partial tile
      R"(ENTRY e {
        p0 = f32[2,16,40] parameter(0)
        ROOT t = f32[2,40,16] transpose(p0), dimensions={0,2,1} })",
      // 210
      R"(ENTRY e {
        p0 = f32[16,3,20] parameter(0)
        ROOT t = f32[20,3,16] transpose(p0), dimensions={2,1,0} })",
      // a layout-changing copy, f16 (vectorised on the tiny device)
      R"(ENTRY e {
        p0 = f16[32,64]{1,0} parameter(0)
        ROOT c = f16[32,64]{0,1} copy(p0) })",
      // u8, vectorised by 4 on the tiny device
      R"(ENTRY e {
        p0 = u8[128,128] parameter(0)
        ROOT t = u8[128,128] transpose(p0), dimensions={1,0} })",
      // generalized: 102 with a kept minor, 1302, 0213 of s8
      R"(ENTRY e {
        p0 = f32[37,45,2] parameter(0)
        ROOT t = f32[45,37,2] transpose(p0), dimensions={1,0,2} })",
      R"(ENTRY e {
        p0 = f32[3,2,34,40] parameter(0)
        ROOT t = f32[2,40,3,34] transpose(p0), dimensions={1,3,0,2} })",
      R"(ENTRY e {
        p0 = s8[2,20,41,4] parameter(0)
        ROOT t = s8[2,41,20,4] transpose(p0), dimensions={0,2,1,3} })",
  };
  for (const char* hlo : kFusions) {
    INFO(hlo);
    for (const hw::Device& device :
         {*hw::FindDevice("h100"), *hw::FindDevice("rtx_a6000"), TinyGpu()}) {
      INFO(device.name);
      Planned p = PlanOn(hlo, device);
      REQUIRE(p.plan.kind == EmitterKind::kTranspose);
      CheckTransposeBlocks(p, p.plan.roots[0]);
    }
  }
  CHECK(PlanOn(kFusions[2], TinyGpu()).plan.launch.vector_size == 2);
  CHECK(PlanOn(kFusions[3], TinyGpu()).plan.launch.vector_size == 4);
}

TEST_CASE("transpose plan: side outputs and epilogue operands",
          "[emitters][transpose]") {
  Planned p = Plan(R"(
    ENTRY e {
      p0 = f32[32,48] parameter(0)
      p1 = f32[48,32] parameter(1)
      t = f32[48,32] transpose(p0), dimensions={1,0}
      a = f32[48,32] add(t, p1)
      x = f32[32,48] exponential(p0)
      ROOT r = (f32[48,32], f32[32,48]) tuple(a, x)
    })");
  REQUIRE(p.plan.kind == EmitterKind::kTranspose);
  const RootPlan& a = p.plan.roots[0];
  const RootPlan& x = p.plan.roots[1];
  CHECK(a.hero->name == "t");
  CheckTransposeBlocks(p, a);
  // The side output is written where the tile is read.
  CHECK(x.hero->name == "x");
  CHECK(*x.output_map == *a.hero_operand_maps[0]);
  CheckWritesEachOnce(*x.output_map, {32, 48});
  // p1 is read by the epilogue at the element the thread writes.
  const ParameterPlan& p1 = p.plan.parameters[1];
  REQUIRE(p1.maps.size() == 1);
  CHECK(p1.maps[0] == *a.output_map);
  // p0 through the tile and through the side output: the same map.
  CHECK(p.plan.parameters[0].maps.size() == 1);
  // Two described roots share one tile per distinct hero.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[32,48] parameter(0)
      t = f32[48,32] transpose(p0), dimensions={1,0}
      n = f32[48,32] negate(t)
      ROOT r = (f32[48,32], f32[48,32]) tuple(t, n)
    })");
  REQUIRE(p.plan.kind == EmitterKind::kTranspose);
  CHECK(p.plan.shared_tiles.size() == 1);
  // Transposes of different shapes are inconsistent: loop.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[32,48] parameter(0)
      p1 = f32[64,32] parameter(1)
      t = f32[48,32] transpose(p0), dimensions={1,0}
      u = f32[32,64] transpose(p1), dimensions={1,0}
      ROOT r = (f32[48,32], f32[32,64]) tuple(t, u)
    })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
