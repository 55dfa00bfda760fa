// Coalescing and fusion cost (hw/coalescing, hw/fusion_cost): the
// situations of XLA's coalescing tests, and the tiled variant's numbers.
#include "analysis/uses/coalescing.h"

#include <catch2/catch.hpp>
#include <set>

#include "analysis/hlo/module.h"
#include "analysis/uses/fusion_cost.h"
#include "core/enumerate.h"
#include "core/text.h"

namespace ixa {
namespace {

struct Run {
  std::unique_ptr<hlo::Module> module;
  CoalescingAnalysis analysis;
};

Run Analyze(const std::string& hlo, CoalescingOptions options = {},
            const char* device = "h100") {
  auto module = hlo::ParseHloModule(hlo);
  INFO((module.ok() ? "" : module.error().ToString()));
  REQUIRE(module.ok());
  ExprContext ctx;
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  auto a = AnalyzeCoalescing(*region, *hw::FindDevice(device), options, &ctx);
  INFO((a.ok() ? "" : a.error().ToString()));
  REQUIRE(a.ok());
  return Run{std::move(module).value(), *a};
}

TEST_CASE("coalescing: launch of the loop emitter", "[hw][coalescing]") {
  const hw::Device h100 = *hw::FindDevice("h100");
  LaunchConfig l = DefaultLoopLaunch(1000, h100);
  CHECK(l.threads_per_block == 128);
  CHECK(l.blocks == 8);
  CHECK(l.unroll == 1);
  l = DefaultLoopLaunch(100, h100);
  CHECK(l.threads_per_block == 100);
  CHECK(l.blocks == 1);
  // 132 SMs * 2048 threads: enough work to unroll by gcd(N, 4).
  l = DefaultLoopLaunch(1 << 20, h100);
  CHECK(l.unroll == 4);
  CHECK(l.blocks == (1 << 20) / 4 / 128);
  l = DefaultLoopLaunch((1 << 20) + 2, h100);
  CHECK(l.unroll == 2);
  // Wave64 devices use 256 threads.
  CHECK(
      DefaultLoopLaunch(1 << 12, *hw::FindDevice("mi300")).threads_per_block ==
      256);
}

TEST_CASE("coalescing: thread map of the loop emitter", "[hw][coalescing]") {
  ExprContext ctx;
  hlo::Shape s = hlo::Shape::Array(hlo::ElementType::kF32, {100, 32});
  auto m = LoopThreadToOutputMap(s, {128, 25, 1}, &ctx);
  REQUIRE(m.ok());
  // Every output element is written exactly once.
  std::set<std::vector<int64_t>> seen;
  int64_t points = 0;
  REQUIRE(ForEachDomainPoint(*m, 1 << 20, [&](const Point& p) {
            seen.insert(*m->Evaluate(p.dims, p.symbols));
            ++points;
            return true;
          }).ok());
  CHECK(points == 3200);
  CHECK(seen.size() == 3200);
}

TEST_CASE("coalescing: elementwise f32 row-major is coalesced",
          "[hw][coalescing]") {
  Run r = Analyze(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      ROOT a = f32[1024,1024] add(p0, p1)
    })");
  REQUIRE(r.analysis.operands.size() == 2);
  for (const OperandCoalescing& o : r.analysis.operands) {
    CHECK(o.coalesced);
    // 32 lanes x 4 unrolled f32 = 512 contiguous bytes = 16 sectors.
    CHECK(o.transactions_per_warp_request == 16);
    CHECK(o.bytes_useful == 512);
    CHECK(o.efficiency == 1.0);
  }
}

TEST_CASE("coalescing: transposing the minor dim is not coalesced",
          "[hw][coalescing]") {
  Run r = Analyze(R"(
    ENTRY e {
      p0 = f32[64,48] parameter(0)
      ROOT t = f32[48,64] transpose(p0), dimensions={1,0}
    })");
  const OperandCoalescing& o = r.analysis.operands[0];
  CHECK_FALSE(o.coalesced);
  // Every lane reads its own row: 32 sectors for 128 useful bytes.
  CHECK(o.transactions_per_warp_request == 32);
  CHECK(o.efficiency == 0.125);
  // Transposing major dims only keeps the minor dim contiguous.
  r = Analyze(R"(
    ENTRY e {
      p0 = f32[8,16,64] parameter(0)
      ROOT t = f32[16,8,64] transpose(p0), dimensions={1,0,2}
    })");
  CHECK(r.analysis.operands[0].coalesced);
}

TEST_CASE("coalescing: broadcasts of a scalar or a row are coalesced",
          "[hw][coalescing]") {
  Run r = Analyze(R"(
    ENTRY e {
      p0 = f32[1024] parameter(0)
      p1 = f32[] parameter(1)
      b = f32[512,1024] broadcast(p0), dimensions={1}
      s = f32[512,1024] broadcast(p1), dimensions={}
      ROOT a = f32[512,1024] add(b, s)
    })");
  CHECK(r.analysis.operands[0].coalesced);
  CHECK(r.analysis.operands[0].efficiency == 1.0);
  CHECK(r.analysis.operands[1].coalesced);
  CHECK(r.analysis.operands[1].transactions_per_warp_request == 1);
  // A column broadcast: the whole warp reads one element.
  r = Analyze(R"(
    ENTRY e {
      p0 = f32[512] parameter(0)
      ROOT b = f32[512,1024] broadcast(p0), dimensions={0}
    })");
  CHECK(r.analysis.operands[0].coalesced);
  CHECK(r.analysis.operands[0].transactions_per_warp_request == 1);
}

TEST_CASE("coalescing: a stride-2 slice wastes half", "[hw][coalescing]") {
  Run r = Analyze(R"(
    ENTRY e {
      p0 = f32[8192] parameter(0)
      ROOT s = f32[4096] slice(p0), slice={[0:8192:2]}
    })");
  const OperandCoalescing& o = r.analysis.operands[0];
  CHECK_FALSE(o.coalesced);
  CHECK(o.transactions_per_warp_request == 8);
  CHECK(o.efficiency == 0.5);
}

TEST_CASE("coalescing: reading a column layout in row order",
          "[hw][coalescing]") {
  // The operand's minor dim is 0: consecutive lanes stride by 64 elements.
  Run r = Analyze(R"(
    ENTRY e {
      p0 = f32[64,64]{0,1} parameter(0)
      ROOT n = f32[64,64]{1,0} negate(p0)
    })");
  CHECK_FALSE(r.analysis.operands[0].coalesced);
  CHECK(r.analysis.operands[0].efficiency == 0.125);
}

TEST_CASE("coalescing: the tiled variant", "[hw][coalescing]") {
  CoalescingOptions opts;
  opts.tile_sizes = {16, 64};
  Run r = Analyze(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      t = f32[1024,1024] transpose(p1), dimensions={1,0}
      ROOT a = f32[1024,1024] add(p0, t)
    })",
                  opts);
  const OperandCoalescing& a = r.analysis.operands[0];
  const OperandCoalescing& b = r.analysis.operands[1];
  // p0: 16 rows of 256 contiguous bytes; p1: 64 rows of 64 bytes. Both
  // are whole 64-byte DRAM-to-L2 transactions.
  CHECK(a.bandwidth_utilization == 1.0);
  CHECK(a.transactions_per_warp_request == 64);
  CHECK(b.bandwidth_utilization == 1.0);
  CHECK(b.transactions_per_warp_request == 64);
  // 8 columns of the transposed operand: 32 contiguous bytes per 64.
  opts.tile_sizes = {8, 16};
  r = Analyze(R"(
    ENTRY e {
      p1 = f32[1024,1024] parameter(0)
      ROOT t = f32[1024,1024] transpose(p1), dimensions={1,0}
    })",
              opts);
  CHECK(r.analysis.operands[0].bandwidth_utilization == 0.5);
  CHECK(r.analysis.operands[0].efficiency == 0.5);
  CHECK_FALSE(r.analysis.operands[0].coalesced);
  // A tile spanning whole rows is one contiguous block: 3 * 1000 * 2 bytes
  // = 6000, rounded up to 6016.
  opts.tile_sizes = {3, 1000};
  r = Analyze(R"(
    ENTRY e {
      p0 = bf16[30,1000] parameter(0)
      ROOT n = bf16[30,1000] negate(p0)
    })",
              opts);
  CHECK(r.analysis.operands[0].bandwidth_utilization ==
        Approx(6000.0 / 6016.0));
}

TEST_CASE("fusion cost: roofline parts", "[hw][cost]") {
  auto module = hlo::ParseHloModule(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      t = f32[1024,1024] transpose(p1), dimensions={1,0}
      x = f32[1024,1024] exponential(t)
      ROOT a = f32[1024,1024] add(p0, x)
    })");
  REQUIRE(module.ok());
  ExprContext ctx;
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  const hw::Device h100 = *hw::FindDevice("h100");
  auto cost = EstimateFusionCost(*region, h100, &ctx);
  REQUIRE(cost.ok());
  const int64_t mb4 = 4 << 20;
  CHECK(cost->bytes_read == 2 * mb4);
  CHECK(cost->bytes_written == mb4);
  CHECK(cost->flops == 2 * (1 << 20));
  // p1 is read uncoalesced at 1/8 efficiency: 8x its bytes move.
  CHECK(cost->bytes_moved == Approx(mb4 + 8.0 * mb4));
  CHECK(cost->memory_us == Approx((10.0 * mb4) / (h100.dram_gbps * 1e3)));
  CHECK(cost->time_us == cost->memory_us);

  module = hlo::ParseHloModule(R"(
    ENTRY e {
      p0 = bf16[512,256] parameter(0)
      p1 = bf16[256,1024] parameter(1)
      ROOT d = f32[512,1024] dot(p0, p1), lhs_contracting_dims={1},
                                          rhs_contracting_dims={0}
    })");
  REQUIRE(module.ok());
  region = ResolveFusion(**module, "");
  cost = EstimateFusionCost(*region, h100, &ctx);
  REQUIRE(cost.ok());
  CHECK(cost->flops == int64_t{2} * 512 * 1024 * 256);
  CHECK(cost->compute_us ==
        Approx(2.0 * 512 * 1024 * 256 / (h100.peak_tflops_bf16 * 1e6)));
}

}  // namespace
}  // namespace ixa
