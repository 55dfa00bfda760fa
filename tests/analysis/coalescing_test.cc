// Coalescing and fusion cost through the emitter plans
// (analysis/uses/coalescing, fusion_cost): XLA's coalescing test cases,
// exact sector counts against a direct simulation of one warp's addresses
// (tiled layouts included), the tiled variant's numbers, and the cost
// model's parts.
#include "analysis/uses/coalescing.h"

#include <catch2/catch.hpp>
#include <set>

#include "analysis/hlo/module.h"
#include "analysis/uses/fusion_cost.h"
#include "analysis/uses/ixa_cost_model.h"
#include "core/enumerate.h"
#include "core/text.h"
#include "hw/xla_layout.h"
#include "tests/analysis/emitters_test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

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

TEST_CASE("coalescing: transposes read through the tile are coalesced",
          "[hw][coalescing]") {
  Run r = Analyze(R"(
    ENTRY e {
      p0 = f32[64,48] parameter(0)
      ROOT t = f32[48,64] transpose(p0), dimensions={1,0}
    })");
  CHECK(r.analysis.emitter == EmitterKind::kTranspose);
  const OperandCoalescing& o = r.analysis.operands[0];
  CHECK(o.coalesced);
  // A warp loads 32 consecutive floats of one tile row.
  CHECK(o.transactions_per_warp_request == 4);
  CHECK(o.efficiency == 1.0);
  // Too small for the tiled transpose: with the loop emitter, lanes
  // 0..31 read 4 floats of each of 8 rows: 8 sectors for 128 useful
  // bytes.
  r = Analyze(R"(
    ENTRY e {
      p0 = f32[8,512] parameter(0)
      ROOT t = f32[512,8] transpose(p0), dimensions={1,0}
    })");
  CHECK(r.analysis.emitter == EmitterKind::kLoop);
  CHECK_FALSE(r.analysis.operands[0].coalesced);
  CHECK(r.analysis.operands[0].transactions_per_warp_request == 8);
  CHECK(r.analysis.operands[0].efficiency == 0.5);
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

// A tile larger than a dim (a power-of-two tile over a ragged dim) is
// masked: the kernel computes only the output elements inside the array, so
// the tile reads what its part inside the output reads, and nothing past
// an operand's end.
TEST_CASE("coalescing: a tile overhanging the output is masked",
          "[hw][coalescing]") {
  CoalescingOptions opts;
  // 32 x 1024 over bf16[30,1000]: the whole array, 60000 contiguous bytes,
  // 938 transactions of 64 bytes (the last one partly used).
  opts.tile_sizes = {32, 1024};
  Run r = Analyze(R"(
    ENTRY e {
      p0 = bf16[30,1000] parameter(0)
      ROOT n = bf16[30,1000] negate(p0)
    })",
                  opts);
  REQUIRE(r.analysis.unknown.empty());
  REQUIRE(r.analysis.operands.size() == 1);
  const OperandCoalescing& o = r.analysis.operands[0];
  CHECK(o.bytes_useful == 60000);
  CHECK(o.transactions_per_warp_request == 938);
  CHECK(o.bytes_requested == 938 * 64);
  CHECK(o.bandwidth_utilization == Approx(60000.0 / 60032.0));

  // One output column of a transpose, 64 rows over 32: p0's row 0, 32
  // floats = 128 bytes in 2 transactions, none of row 1.
  opts.tile_sizes = {64, 1};
  const char* kTranspose = R"(
    ENTRY e {
      p0 = f32[16,32] parameter(0)
      ROOT t = f32[32,16] transpose(p0), dimensions={1,0}
    })";
  r = Analyze(kTranspose, opts);
  REQUIRE(r.analysis.operands.size() == 1);
  const OperandCoalescing t = r.analysis.operands[0];
  CHECK(t.bytes_useful == 128);
  CHECK(t.transactions_per_warp_request == 2);
  CHECK(t.bandwidth_utilization == 1.0);
  CHECK(t.coalesced);

  // 8 x 8 over f32[4,20]: 4 rows of 8 floats. XLA's heuristic takes the
  // 32 contiguous bytes of a row over a 64-byte transaction (0.5); the
  // exact count is 5 transactions (the last row straddles two) for 128
  // useful bytes (0.4).
  opts.tile_sizes = {8, 8};
  r = Analyze(R"(
    ENTRY e {
      p0 = f32[4,20] parameter(0)
      ROOT n = f32[4,20] negate(p0)
    })",
              opts);
  REQUIRE(r.analysis.operands.size() == 1);
  CHECK(r.analysis.operands[0].bandwidth_utilization == 0.5);
  CHECK(r.analysis.operands[0].bytes_useful == 128);
  CHECK(r.analysis.operands[0].transactions_per_warp_request == 5);
  CHECK(r.analysis.operands[0].efficiency == 0.4);

  // Every overhang answers as the tile clipped to the output.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>
      kClipped = {{{64, 1}, {32, 1}},
                  {{33, 17}, {32, 16}},
                  {{1, 1000}, {1, 16}},
                  {{5, 16}, {5, 16}}};
  for (const auto& [tile, clipped] : kClipped) {
    INFO("tile " << tile[0] << "x" << tile[1]);
    opts.tile_sizes = tile;
    Run big = Analyze(kTranspose, opts);
    opts.tile_sizes = clipped;
    Run exact = Analyze(kTranspose, opts);
    const OperandCoalescing& a = big.analysis.operands[0];
    const OperandCoalescing& b = exact.analysis.operands[0];
    CHECK(a.bytes_useful == b.bytes_useful);
    CHECK(a.transactions_per_warp_request == b.transactions_per_warp_request);
    CHECK(a.bandwidth_utilization == b.bandwidth_utilization);
    CHECK(a.coalesced == b.coalesced);
  }
}

// XLA's coalescing_analysis_test cases (the MLIR emitters' verdicts).
TEST_CASE("coalescing: XLA's test cases", "[hw][coalescing]") {
  struct Case {
    const char* name;
    const char* hlo;
    std::vector<bool> coalesced;
  };
  const char* kAdd = R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) })";
  const std::string add = kAdd;
  const Case kCases[] = {
      {"IdentityLayout",
       R"(ENTRY e {
         p0 = f32[100,200]{1,0} parameter(0)
         p1 = f32[100,200]{1,0} parameter(1)
         ROOT a = f32[100,200]{1,0} add(p0, p1) })",
       {true, true}},
      {"RhsTransposedLayout",
       R"(ENTRY e {
         p0 = f32[100,200]{1,0} parameter(0)
         p1 = f32[100,200]{0,1} parameter(1)
         ROOT a = f32[100,200]{1,0} add(p0, p1) })",
       {true, false}},
      {"OutputTransposedLayout",
       R"(ENTRY e {
         p0 = f32[100,200]{1,0} parameter(0)
         p1 = f32[100,200]{1,0} parameter(1)
         ROOT a = f32[100,200]{0,1} add(p0, p1) })",
       {false, false}},
      {"OutputAndLhsTransposedLayout",
       R"(ENTRY e {
         p0 = f32[100,200]{1,0} parameter(0)
         p1 = f32[100,200]{0,1} parameter(1)
         ROOT a = f32[100,200]{0,1} add(p0, p1) })",
       {false, true}},
      // The case the loop-only analysis got wrong: the tiled transpose
      // reads its input through the shared tile.
      {"Transpose",
       R"(ENTRY e {
         p0 = f32[1,6400,32] parameter(0)
         ROOT t = f32[1,32,6400] transpose(p0), dimensions={0,2,1} })",
       {true}},
      {"TransposeOnlyOuterDims",
       R"(ENTRY e {
         p0 = f32[100,32,64] parameter(0)
         ROOT t = f32[32,100,64] transpose(p0), dimensions={1,0,2} })",
       {true}},
      {"RowReduction", nullptr, {true}},
      {"MultiRowReduction", nullptr, {true}},
      {"ColumnReduction", nullptr, {true}},
      {"DynamicSlice",
       R"(ENTRY e {
         p0 = s32[2,2,258] parameter(0)
         p1 = s32[] parameter(1)
         p2 = s32[] parameter(2)
         p3 = s32[] parameter(3)
         ROOT d = s32[1,2,32] dynamic-slice(p0, p1, p2, p3),
           dynamic_slice_sizes={1,2,32} })",
       {true, true, true, true}},
      {"Param",
       R"(ENTRY e {
         p0 = u32[48,2,1280] parameter(0)
         p1 = u32[48,1,1280] parameter(1)
         p2 = u32[48,1,1280] parameter(2)
         c = u32[48,2,1280] concatenate(p1, p2), dimensions={1}
         ROOT s = u32[48,2,1280] shift-right-logical(c, p0) })",
       {true, true, true}},
  };
  const std::string reductions[] = {
      add + R"(
      ENTRY e { p0 = f32[100,64,512] parameter(0)  z = f32[] constant(0)
        ROOT r = f32[100,64] reduce(p0, z), dimensions={2}, to_apply=add })",
      add + R"(
      ENTRY e { p0 = f32[100,64,4] parameter(0)  z = f32[] constant(0)
        ROOT r = f32[100,64] reduce(p0, z), dimensions={2}, to_apply=add })",
      add + R"(
      ENTRY e { p0 = f32[100,64,32] parameter(0)  z = f32[] constant(0)
        ROOT r = f32[100,32] reduce(p0, z), dimensions={1}, to_apply=add })",
  };
  int next_reduction = 0;
  for (const Case& c : kCases) {
    INFO(c.name);
    std::string hlo = c.hlo ? c.hlo : reductions[next_reduction++];
    Run r = Analyze(hlo);
    std::vector<bool> got;
    for (const OperandCoalescing& o : r.analysis.operands) {
      got.push_back(o.coalesced);
    }
    CHECK(r.analysis.unknown.empty());
    CHECK(got == c.coalesced);
  }
  // Variadic reduces: through the loop emitter (uncoalesced columns) and
  // through the reduction emitter.
  const char* kMinMax = R"(
    mm { a = s32[] parameter(0)  b = s32[] parameter(1)
         c = s32[] parameter(2)  d = s32[] parameter(3)
         x = s32[] minimum(a, c)  y = s32[] maximum(b, d)
         ROOT t = (s32[], s32[]) tuple(x, y) })";
  Run r = Analyze(std::string(kMinMax) + R"(
    ENTRY e {
      p0 = s32[2,3,4] parameter(0)
      p1 = s32[2,3,4] parameter(1)
      z = s32[] constant(0)
      ROOT r = (s32[2,4], s32[2,4]) reduce(p0, p1, z, z), dimensions={1},
        to_apply=mm })");
  CHECK(r.analysis.emitter == EmitterKind::kLoop);
  CHECK_FALSE(r.analysis.operands[0].coalesced);
  CHECK_FALSE(r.analysis.operands[1].coalesced);
  r = Analyze(std::string(kMinMax) + R"(
    ENTRY e {
      p0 = s32[32,40] parameter(0)
      p1 = s32[32,40] parameter(1)
      z = s32[] constant(0)
      ROOT r = (s32[32], s32[32]) reduce(p0, p1, z, z), dimensions={1},
        to_apply=mm })");
  CHECK(r.analysis.emitter == EmitterKind::kReduction);
  CHECK(r.analysis.operands[0].coalesced);
  CHECK(r.analysis.operands[1].coalesced);
}

// The sectors one warp request touches, simulated directly: the warp's
// threads and the innermost symbol enumerated on the plan's map, each
// logical index placed by hw::PhysicalOffset (the numeric layout
// function, not the composed map).
int64_t SimulatedSectors(const IndexingMap& map, const hlo::Shape& shape,
                         const LaunchDimensions& launch,
                         const hw::Device& device) {
  auto xla = hw::ParseXlaShape(shape.ToString(/*with_layout=*/true));
  REQUIRE(xla.ok());
  const int64_t bytes = std::max(1, hlo::ElementBits(shape.type) / 8);
  std::set<int64_t> sectors;
  const int64_t lanes = std::min(device.warp_size, launch.threads_per_block());
  const int nr = map.num_range_vars();
  REQUIRE(map.num_rt_vars() == 0);
  const Interval inner =
      nr > 0 ? map.range_vars().back().bounds : Interval::Point(0);
  for (int64_t lane = 0; lane < lanes; ++lane) {
    std::vector<int64_t> dims = {
        lane % launch.threads[0],
        (lane / launch.threads[0]) % launch.threads[1],
        lane / (launch.threads[0] * launch.threads[1])};
    for (int i = 3; i < 6; ++i) dims.push_back(map.dims()[i].bounds.lower);
    for (int64_t s = inner.lower; s <= inner.upper; ++s) {
      std::vector<int64_t> syms;
      for (int j = 0; j + 1 < nr; ++j) {
        syms.push_back(map.range_vars()[j].bounds.lower);
      }
      if (nr > 0) syms.push_back(s);
      if (!*map.InDomain(dims, syms)) continue;
      auto index = map.Evaluate(dims, syms);
      REQUIRE(index.ok());
      auto offset = hw::PhysicalOffset(*xla, *index);
      REQUIRE(offset.ok());
      for (int64_t b = *offset * bytes; b < (*offset + 1) * bytes; ++b) {
        sectors.insert(b / device.sector_bytes);
      }
    }
  }
  return static_cast<int64_t>(sectors.size());
}

TEST_CASE("coalescing: sector counts match a direct warp simulation",
          "[hw][coalescing]") {
  const char* kAdd = R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) })";
  const std::string fusions[] = {
      // loop, row-major and T(8,128) / T(2,2) tiled operands
      R"(ENTRY e {
        p0 = f32[64,256]{1,0:T(8,128)} parameter(0)
        p1 = f32[64,256]{1,0:T(2,2)} parameter(1)
        p2 = f32[64,256] parameter(2)
        a = f32[64,256] add(p0, p1)
        ROOT m = f32[64,256] multiply(a, p2) })",
      // loop reading a column layout and a T(2,2) tiling of it
      R"(ENTRY e {
        p0 = f32[40,24]{0,1} parameter(0)
        p1 = f32[40,24]{0,1:T(2,2)} parameter(1)
        ROOT a = f32[40,24] add(p0, p1) })",
      // tiled transposes, 021 and 210, one input T(8,128)
      R"(ENTRY e {
        p0 = f32[2,48,64]{2,1,0:T(8,128)} parameter(0)
        ROOT t = f32[2,64,48] transpose(p0), dimensions={0,2,1} })",
      R"(ENTRY e {
        p0 = f16[40,3,64]{2,1,0:T(2,2)} parameter(0)
        ROOT t = f16[64,3,40] transpose(p0), dimensions={2,1,0} })",
      // row and column reductions, one through T(2,2)
      std::string(kAdd) + R"(
      ENTRY e { p0 = f32[6,200]{1,0:T(2,2)} parameter(0)  z = f32[] constant(0)
        ROOT r = f32[6] reduce(p0, z), dimensions={1}, to_apply=add })",
      std::string(kAdd) + R"(
      ENTRY e { p0 = f32[3,40,64] parameter(0)  z = f32[] constant(0)
        ROOT r = f32[3,64] reduce(p0, z), dimensions={1}, to_apply=add })",
      std::string(kAdd) + R"(
      ENTRY e { p0 = f32[3,40,64]{2,1,0:T(8,128)} parameter(0)
        z = f32[] constant(0)
        ROOT r = f32[3,64] reduce(p0, z), dimensions={1}, to_apply=add })",
  };
  for (const std::string& hlo : fusions) {
    INFO(hlo);
    for (const char* name : {"h100", "rtx_a6000"}) {
      INFO(name);
      const hw::Device device = *hw::FindDevice(name);
      testing::Planned p = testing::Plan(hlo, name);
      for (size_t i = 0; i < p.region.parameters.size(); ++i) {
        const hlo::Shape& shape = p.region.parameters[i]->shape;
        for (const IndexingMap& m : p.plan.parameters[i].maps) {
          if (m.num_results() == 0) continue;
          auto reads = AnalyzeReads({&m, 1}, shape, p.plan.launch, device);
          REQUIRE(reads.ok());
          CHECK(reads->transactions_per_warp_request ==
                SimulatedSectors(m, shape, p.plan.launch, device));
        }
      }
    }
  }
  // A T(2,2) layout read in row order: lanes 0..31 of one row touch 16
  // tiles of 2x2 floats, the first 8 bytes of each 16: 8 sectors for 128
  // useful bytes of 256.
  Run r = Analyze(R"(ENTRY e {
    p0 = f32[8,32]{1,0:T(2,2)} parameter(0)
    ROOT n = f32[8,32] negate(p0) })");
  CHECK(r.analysis.operands[0].transactions_per_warp_request == 8);
  CHECK(r.analysis.operands[0].efficiency == 0.5);
}

TEST_CASE("coalescing: unknown operands do not fail the request",
          "[hw][coalescing]") {
  Run r = Analyze(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p0 = f32[100,10,20] parameter(0)
      p1 = s32[42,1] parameter(1)
      p2 = f32[42,10,20] parameter(2)
      ROOT s = f32[100,10,20] scatter(p0, p1, p2), update_window_dims={1,2},
        inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
        index_vector_dim=1, to_apply=add
    })");
  CHECK(r.analysis.emitter == EmitterKind::kScatter);
  REQUIRE(r.analysis.unknown.size() == 1);
  CHECK(r.analysis.unknown[0].name == "p0");
  CHECK(r.analysis.operands.size() == 2);
  // An op without indexing maps: its operands are unknown, the rest answered.
  r = Analyze(R"(
    ENTRY e {
      p0 = f32[64] parameter(0)
      p1 = f32[64] parameter(1)
      c = f32[64] custom-call(p0), custom_call_target="foo"
      ROOT a = f32[64] add(c, p1)
    })");
  REQUIRE(r.analysis.unknown.size() == 1);
  CHECK(r.analysis.unknown[0].name == "p0");
  REQUIRE(r.analysis.operands.size() == 1);
  CHECK(r.analysis.operands[0].name == "p1");
  CHECK(r.analysis.operands[0].coalesced);
}

const hw::Device& H100() {
  static const hw::Device d = *hw::FindDevice("h100");
  return d;
}

FusionCost Cost(const std::string& hlo, const hw::Device& device = H100()) {
  auto module = hlo::ParseHloModule(hlo);
  REQUIRE(module.ok());
  ExprContext ctx;
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  auto cost = EstimateFusionCost(*region, device, &ctx);
  INFO((cost.ok() ? "" : cost.error().ToString()));
  REQUIRE(cost.ok());
  return *cost;
}

TEST_CASE("fusion cost: roofline parts through the plan", "[hw][cost]") {
  const hw::Device& h100 = H100();
  // A transpose fusion: both inputs coalesced (p1 through the tile).
  FusionCost cost = Cost(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      t = f32[1024,1024] transpose(p1), dimensions={1,0}
      x = f32[1024,1024] exponential(t)
      ROOT a = f32[1024,1024] add(p0, x)
    })");
  CHECK(cost.emitter == EmitterKind::kTranspose);
  const int64_t mb4 = 4 << 20;
  CHECK(cost.bytes_read == 2 * mb4);
  CHECK(cost.bytes_written == mb4);
  CHECK(cost.flops == 2 * (1 << 20));
  CHECK(cost.bytes_moved == Approx(2.0 * mb4));
  CHECK(cost.memory_us == Approx((3.0 * mb4) / (h100.dram_gbps * 1e3)));
  CHECK(cost.time_us == cost.memory_us);
  // 1024 blocks of 128 threads: 16 resident per core, one wave.
  CHECK(cost.blocks_per_core == 16);
  CHECK(cost.waves == 1);
  // Loop-emitter transposes still pay for the stride.
  cost = Cost(R"(
    ENTRY e {
      p1 = f32[1024,1024]{0,1} parameter(0)
      ROOT n = f32[1024,1024] negate(p1)
    })");
  CHECK(cost.emitter == EmitterKind::kLoop);
  CHECK(cost.bytes_moved > cost.bytes_read);

  cost = Cost(R"(
    ENTRY e {
      p0 = bf16[512,256] parameter(0)
      p1 = bf16[256,1024] parameter(1)
      ROOT d = f32[512,1024] dot(p0, p1), lhs_contracting_dims={1},
                                          rhs_contracting_dims={0}
    })");
  CHECK(cost.flops == int64_t{2} * 512 * 1024 * 256);
  // A lone dot runs as a library GEMM (analysis/uses/gemm_cost.h), not at
  // the matrix peak: 64x64 tiles of 64 k (8 x 16 = 128 tiles, one wave),
  // 4 k-steps of (64 * 64 * 64 + 16 * 128 * 64) / (989e6 / 2 / 132) /
  // 0.88 = 0.119277 us, 2 more of fill, a 64x64 f32 tile stored at 64 B
  // per clock (16384 / 126720 = 0.129293 us) and the 2.5 us latency.
  CHECK(cost.compute_us == Approx(2.5 + 6 * 0.119277 + 0.129293).epsilon(1e-5));
  CHECK(cost.compute_us >
        2.0 * 512 * 1024 * 256 / (h100.peak_tflops_bf16 * 1e6));
  // A small launch leaves cores idle: 1 block of 64 threads on 132 cores
  // of 128 fpus.
  cost = Cost(R"(
    ENTRY e {
      p0 = f32[64] parameter(0)
      ROOT x = f32[64] exponential(p0)
    })");
  CHECK(cost.active_fraction == Approx(1.0 / 132 * 64 / 128));
  // 64 exps of 10 issue slots each, on 64 lanes of one SM at 1.98 GHz.
  CHECK(cost.compute_us == Approx(640 / (64 * 1.98e3)));
}

TEST_CASE("fusion cost: bytes follow what the plan reads and writes",
          "[hw][cost]") {
  // In-place DUS: the big operand is neither read nor rewritten.
  FusionCost cost = Cost(R"(
    ENTRY e {
      p0 = f32[1000,100] parameter(0)
      p1 = f32[10,100] parameter(1)
      i = s32[] parameter(2)
      z = s32[] constant(0)
      ROOT d = f32[1000,100] dynamic-update-slice(p0, p1, i, z)
    })");
  CHECK(cost.emitter == EmitterKind::kInPlaceDynamicUpdateSlice);
  CHECK(cost.bytes_read == 1000 * 4 + 4);
  CHECK(cost.bytes_written == 1000 * 4);
  CHECK(cost.utilization[0].elements_read == 0);
  // A row reduction reads its input once and writes the rows.
  cost = Cost(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p0 = f32[100,200] parameter(0)
      z = f32[] constant(0)
      ROOT r = f32[100] reduce(p0, z), dimensions={1}, to_apply=add
    })");
  CHECK(cost.emitter == EmitterKind::kReduction);
  CHECK(cost.bytes_read == 100 * 200 * 4);
  CHECK(cost.bytes_written == 100 * 4);
  CHECK(cost.utilization[0].reads == 100 * 200);
}

// The plan's coverage maps count what its thread maps read: the images of
// the two agree wherever both can be enumerated.
TEST_CASE("fusion cost: coverage counts equal the thread maps' images",
          "[hw][cost]") {
  const char* kFusions[] = {
      R"(ENTRY e {
        p0 = f32[32,48] parameter(0)
        p1 = f32[48,32] parameter(1)
        t = f32[48,32] transpose(p0), dimensions={1,0}
        ROOT a = f32[48,32] add(t, p1) })",
      R"(
      add { a = f32[] parameter(0)  b = f32[] parameter(1)
            ROOT s = f32[] add(a, b) }
      ENTRY e {
        p0 = f32[6,64] parameter(0)
        p1 = f32[64] parameter(1)
        b = f32[6,64] broadcast(p1), dimensions={1}
        m = f32[6,64] multiply(p0, b)
        z = f32[] constant(0)
        ROOT r = f32[6] reduce(m, z), dimensions={1}, to_apply=add })",
      R"(ENTRY e {
        p0 = f32[20] parameter(0)
        p1 = f32[10] parameter(1)
        c = f32[30] concatenate(p0, p1), dimensions={0}
        ROOT s = f32[12] slice(c), slice={[5:29:2]} })",
  };
  for (const char* hlo : kFusions) {
    INFO(hlo);
    testing::Planned p = testing::Plan(hlo);
    for (size_t i = 0; i < p.region.parameters.size(); ++i) {
      const ParameterPlan& pp = p.plan.parameters[i];
      std::set<testing::Index> image;
      for (const IndexingMap& m : pp.maps) {
        testing::ForEachPoint(m, [&](const Point&, const testing::Index& in) {
          image.insert(in);
        });
      }
      OperandUtilization u = UtilizationOfCoverage(
          pp.coverage_maps, p.region.parameters[i]->shape);
      CHECK(u.elements_read == static_cast<int64_t>(image.size()));
    }
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
