// The loop emitter plan (docs/xla-reference.md §(h) h.5, h.6): the worked
// numbers of h.11 on rtx_a6000 and the same fusions on h100, the loop
// configuration rules, and brute-force checks of the thread maps.
#include <catch2/catch.hpp>

#include "tests/analysis/emitters_test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

// The unrolled elements of these contiguous, aligned fusions are one
// vector (LoopLikeVectorSize) unless vector_size says otherwise.
void CheckLaunch(const LaunchDimensions& l, std::array<int64_t, 3> threads,
                 std::array<int64_t, 3> blocks, int64_t unroll,
                 int64_t vector_size = -1) {
  CHECK(l.threads == threads);
  CHECK(l.blocks == blocks);
  CHECK(l.unroll == unroll);
  CHECK(l.vector_size == (vector_size < 0 ? unroll : vector_size));
  CHECK(l.shared_memory_bytes == 0);
}

const char kNegate[] = R"(
  ENTRY e {
    p0 = f32[100,200,300] parameter(0)
    ROOT n = f32[100,200,300] negate(p0)
  })";

TEST_CASE("loop plan: h.11 negate f32[100,200,300] on rtx_a6000",
          "[emitters][loop]") {
  Planned p = Plan(kNegate, "rtx_a6000");
  CHECK(p.plan.kind == EmitterKind::kLoop);
  // N = 6e6 >= 84 * 1536: u = 4 and few waves; 1.5e6 threads' worth of
  // work gives 256 x 5860, capped to 128 threads x 84 * 12 blocks.
  CheckLaunch(p.plan.launch, {128, 1, 1}, {1008, 1, 1}, 4);
  REQUIRE(p.plan.loop_config);
  CHECK(p.plan.loop_config->few_waves);
  CHECK_FALSE(p.plan.loop_config->row_vectorized);
  const IndexingMap& out = *p.plan.roots[0].output_map;
  CHECK(SymbolNamed(out, "chunk_id").bounds == Interval{0, 11});
  CHECK(SymbolNamed(out, "unroll_id").bounds == Interval{0, 3});
  ExpectText(out,
             "(th_x, th_y, th_z, bl_x, bl_y, bl_z)[chunk_id, unroll_id] -> "
             "((th_x + bl_x * 128 + chunk_id * 129024) floordiv 15000, "
             "((th_x + bl_x * 128 + chunk_id * 129024) floordiv 75) mod 200, "
             "unroll_id + ((th_x + bl_x * 128 + chunk_id * 129024) mod 75) * "
             "4), domain: th_x in [0, 127], th_y in [0, 0], th_z in [0, 0], "
             "bl_x in [0, 1007], bl_y in [0, 0], bl_z in [0, 0], chunk_id in "
             "[0, 11], unroll_id in [0, 3], th_x + bl_x * 128 + chunk_id * "
             "129024 in [0, 1499999]");
  // The parameter is read where the output is written.
  REQUIRE(p.plan.parameters.size() == 1);
  REQUIRE(p.plan.parameters[0].maps.size() == 1);
  CHECK(p.plan.parameters[0].maps[0] == out);
  CHECK(p.plan.roots[0].hero_operand_maps[0] == out);
}

TEST_CASE("loop plan: negate f32[100,200,300] on h100", "[emitters][loop]") {
  Planned p = Plan(kNegate, "h100");
  // 6e6 >= 132 * 2048; the cap is 132 * (2048 / 128) = 2112 blocks.
  CheckLaunch(p.plan.launch, {128, 1, 1}, {2112, 1, 1}, 4);
  const IndexingMap& out = *p.plan.roots[0].output_map;
  // ceil(6e6 / (128 * 2112 * 4)) = 6 chunks.
  CHECK(SymbolNamed(out, "chunk_id").bounds == Interval{0, 5});
  CHECK(SymbolNamed(out, "unroll_id").bounds == Interval{0, 3});
}

const char kBroadcast[] = R"(
  ENTRY e {
    p0 = f32[20] parameter(0)
    ROOT b = f32[10,20,30] broadcast(p0), dimensions={1}
  })";

TEST_CASE("loop plan: h.11 broadcast f32[20] -> [10,20,30]",
          "[emitters][loop]") {
  for (const char* device : {"rtx_a6000", "h100"}) {
    INFO(device);
    Planned p = Plan(kBroadcast, device);
    // u = 1, no flags: 128 threads, ceil(6000 / 128) = 47 blocks.
    CheckLaunch(p.plan.launch, {128, 1, 1}, {47, 1, 1}, 1);
    CHECK_FALSE(p.plan.loop_config->few_waves);
    CHECK_FALSE(p.plan.loop_config->row_vectorized);
    const IndexingMap& out = *p.plan.roots[0].output_map;
    CHECK(SymbolNamed(out, "chunk_id").bounds == Interval{0, 0});
    CHECK(SymbolNamed(out, "unroll_id").bounds == Interval{0, 0});
    ExpectText(p.plan.parameters[0].maps[0],
               "(th_x, th_y, th_z, bl_x, bl_y, bl_z)[chunk_id, unroll_id] -> "
               "(((th_x + bl_x * 128) floordiv 30) mod 20), domain: th_x in "
               "[0, 127], th_y in [0, 0], th_z in [0, 0], bl_x in [0, 46], "
               "bl_y in [0, 0], bl_z in [0, 0], chunk_id in [0, 0], "
               "unroll_id in [0, 0], th_x + bl_x * 128 in [0, 5999]");
  }
}

TEST_CASE("loop plan: row vectorisation uses a row of threads per block",
          "[emitters][loop]") {
  Planned p = Plan(R"(
    ENTRY e {
      p0 = f32[1000,100] parameter(0)
      p1 = f32[100] parameter(1)
      b = f32[1000,100] broadcast(p1), dimensions={1}
      ROOT a = f32[1000,100] add(p0, b)
    })",
                   "rtx_a6000");
  REQUIRE(p.plan.loop_config);
  CHECK(p.plan.loop_config->row_vectorized);
  CHECK(p.plan.loop_config->few_waves);
  // tpr = 100 < 128: T_y = ceil(128 / 100) = 2; blocks = 1e5 / 200.
  CheckLaunch(p.plan.launch, {100, 2, 1}, {500, 1, 1}, 1);
  ExpectText(p.plan.parameters[1].maps[0],
             "(th_x, th_y, th_z, bl_x, bl_y, bl_z)[chunk_id, unroll_id] -> "
             "(th_x), domain: th_x in [0, 99], th_y in [0, 1], th_z in [0, "
             "0], bl_x in [0, 499], bl_y in [0, 0], bl_z in [0, 0], chunk_id "
             "in [0, 0], unroll_id in [0, 0]");
  // A row of 256 elements keeps XLA's old path: no row vectorisation, and
  // the flags are cleared together.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[1000,256] parameter(0)
      p1 = f32[256] parameter(1)
      b = f32[1000,256] broadcast(p1), dimensions={1}
      ROOT a = f32[1000,256] add(p0, b)
    })",
           "rtx_a6000");
  CHECK_FALSE(p.plan.loop_config->row_vectorized);
  CHECK_FALSE(p.plan.loop_config->few_waves);
  // 256000 >= 129024 elements: u = 4, then 128 threads x 500 blocks.
  CheckLaunch(p.plan.launch, {128, 1, 1}, {500, 1, 1}, 4);
}

TEST_CASE("loop plan: unroll factor rules", "[emitters][loop]") {
  // N divisible by 2 but not 4, and large enough.
  Planned p = Plan(R"(
    ENTRY e {
      p0 = f32[2,150001] parameter(0)
      ROOT n = f32[2,150001] exponential(p0)
    })",
                   "rtx_a6000");
  CHECK(p.plan.launch.unroll == 2);
  // A vectorisation blocker (sine) keeps u = 1.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[1000,1000] parameter(0)
      ROOT s = f32[1000,1000] sine(p0)
    })",
           "rtx_a6000");
  CHECK(p.plan.launch.unroll == 1);
  // Sub-byte outputs: u >= ceil(8 / 4).
  p = Plan(R"(
    ENTRY e {
      p0 = s8[100] parameter(0)
      ROOT c = s4[100] convert(p0)
    })",
           "rtx_a6000");
  CHECK(p.plan.kind == EmitterKind::kLoop);
  CHECK(p.plan.launch.unroll == 2);
  CheckLaunch(p.plan.launch, {50, 1, 1}, {1, 1, 1}, 2);
  CheckWritesEachOnce(*p.plan.roots[0].output_map, {100});
  // One element: one thread, one block.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[] parameter(0)
      ROOT n = f32[] negate(p0)
    })");
  CheckLaunch(p.plan.launch, {1, 1, 1}, {1, 1, 1}, 1);
  CheckWritesEachOnce(*p.plan.roots[0].output_map, {});
}

TEST_CASE("loop plan: brute force on small fusions", "[emitters][loop]") {
  const char* kFusions[] = {
      // elementwise with a layout
      R"(ENTRY e {
        p0 = f32[6,10]{0,1} parameter(0)
        p1 = f32[6,10] parameter(1)
        ROOT a = f32[6,10]{0,1} add(p0, p1)
      })",
      // broadcast, slice, pad, reverse
      R"(ENTRY e {
        p0 = f32[12] parameter(0)
        s = f32[5] slice(p0), slice={[2:12:2]}
        b = f32[4,5] broadcast(s), dimensions={1}
        r = f32[4,5] reverse(b), dimensions={0,1}
        z = f32[] constant(0)
        ROOT q = f32[6,8] pad(r, z), padding=1_1x1_2
      })",
      // a small transpose (not tiled) and a reshape
      R"(ENTRY e {
        p0 = f32[4,6] parameter(0)
        t = f32[6,4] transpose(p0), dimensions={1,0}
        ROOT r = f32[3,8] reshape(t)
      })",
      // a concatenate with five operands (not the concatenate emitter)
      R"(ENTRY e {
        p0 = f32[2,3] parameter(0)
        p1 = f32[2,1] parameter(1)
        ROOT c = f32[2,11] concatenate(p0, p1, p0, p1, p0), dimensions={1}
      })",
      // a reduction the emitter leaves to the loop (column 8 x 4)
      R"(
      add { a = f32[] parameter(0)  b = f32[] parameter(1)
            ROOT s = f32[] add(a, b) }
      ENTRY e {
        p0 = f32[8,4] parameter(0)
        z = f32[] constant(0)
        ROOT r = f32[4] reduce(p0, z), dimensions={0}, to_apply=add
      })",
      // two outputs of one shape
      R"(ENTRY e {
        p0 = f32[5,7] parameter(0)
        e = f32[5,7] exponential(p0)
        ROOT t = (f32[5,7], f32[5,7]) tuple(e, p0)
      })",
  };
  for (const char* hlo : kFusions) {
    INFO(hlo);
    for (const char* device : {"h100", "rtx_a6000"}) {
      Planned p = Plan(hlo, device);
      CHECK(p.plan.kind == EmitterKind::kLoop);
      CheckLoopLikePlan(p);
      CheckParametersFollowOutputs(p);
    }
  }
}

TEST_CASE("loop plan: a forced launch overrides h.5", "[emitters][loop]") {
  PlanOptions options;
  options.force_loop = true;
  LaunchDimensions launch;
  launch.threads = {16, 1, 1};
  launch.blocks = {2, 1, 1};
  launch.unroll = 2;
  options.loop_launch = launch;
  Planned p = Plan(R"(
    ENTRY e {
      p0 = f32[10,13] parameter(0)
      ROOT n = f32[10,13] negate(p0)
    })",
                   "h100", options);
  CheckLaunch(p.plan.launch, {16, 1, 1}, {2, 1, 1}, 2);
  // 130 elements over 32 threads of 2: 3 chunks, each element once.
  CHECK(SymbolNamed(*p.plan.roots[0].output_map, "chunk_id").bounds ==
        Interval{0, 2});
  CheckLoopLikePlan(p);
  CheckParametersFollowOutputs(p);
}

TEST_CASE("devices: the launch model of h.12", "[emitters][loop]") {
  const hw::Device a6000 = *hw::FindDevice("rtx_a6000");
  CHECK(a6000.sm_count == 84);
  CHECK(a6000.threads_per_core == 1536);
  CHECK(a6000.sm_count * a6000.threads_per_core == 129024);
  CHECK(a6000.threads_per_block_limit == 1024);
  CHECK(a6000.warp_size == 32);
  CHECK(a6000.block_dim_limit ==
        std::array<int64_t, 3>{2147483647, 65535, 65535});
  CHECK(a6000.shared_memory_per_block == 48 * 1024);
  CHECK(a6000.shared_memory_per_block_optin == 99 * 1024);
  CHECK(a6000.smem_bytes_per_sm == 100 * 1024);
  CHECK(a6000.clock_ghz == 1.8);
  CHECK(a6000.dram_gbps == 768.096);
  CHECK(a6000.l2_bytes == 6 * 1024 * 1024);
  CHECK(a6000.fpus_per_core == 128);
  const hw::Device h100 = *hw::FindDevice("h100");
  CHECK(h100.sm_count * h100.threads_per_core == 270336);
  CHECK(h100.shared_memory_per_block == 48 * 1024);
  CHECK(h100.shared_memory_per_block_optin == 227 * 1024);
  CHECK(h100.smem_bytes_per_sm == 228 * 1024);
  CHECK(h100.clock_ghz == 1.98);
  CHECK(h100.dram_gbps == 3352.32);
  CHECK(h100.l2_bytes == 50 * 1024 * 1024);
  CHECK(h100.fpus_per_core == 128);
  CHECK_FALSE(hw::FindDevice("tpu_v5e")->HasLaunchModel());
}

TEST_CASE("loop plan: devices without a launch model are refused",
          "[emitters][loop]") {
  auto module = ParseOrDie(kNegate);
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  auto plan = ComputeEmitterPlan(*region, *hw::FindDevice("tpu_v5e"), &ctx);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().code == ErrorCode::kInvalidArgument);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
