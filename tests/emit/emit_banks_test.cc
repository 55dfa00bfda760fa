// Shared tiles and banks (docs/emitters.md "Shared tiles and banks"): every
// shared tile of the transposes and reductions the emit tests run is
// conflict-free in each access, or its report says why not; no tile takes
// more shared memory than XLA's padded one; a 32 x 32 tile of 4-byte
// elements drops XLA's 33rd column for an XOR swizzle with as few
// wavefronts, and the code indexes it through the swizzle. The swizzled
// tiles run right in the kinds tests ([emit_kinds], [emit_layouts],
// [emit_cuda]), which compare every kernel with the reference interpreter.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/emitters/shared_tiles.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/bank_conflicts.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

struct BankCase {
  std::string label;
  std::string hlo;
  bool small_gpu = false;  // a 4-SM H100, so that transposes vectorize
};

std::string AddReducer(const std::string& type) {
  return "red { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT r = " + type + "[] add(a, b) }\n";
}

// The transposes and reductions of the emit tests (emit_kinds_test.cc,
// emit_nvcc_test.cc) that stage through shared memory.
std::vector<BankCase> BankCases() {
  std::vector<BankCase> c = {
      {"transpose_021_f16",
       "p = f16[2,64,66] parameter(0)\n"
       "ROOT t = f16[2,66,64] transpose(p), dimensions={0,2,1}"},
      {"transpose_210",
       "p = f32[17,5,33] parameter(0)\nn = f32[17,5,33] negate(p)\n"
       "ROOT t = f32[33,5,17] transpose(n), dimensions={2,1,0}"},
      {"transpose_2d_u8",
       "p = u8[33,130] parameter(0)\n"
       "ROOT t = u8[130,33] transpose(p), dimensions={1,0}"},
      {"transpose_side_output",
       "p = f32[40,50] parameter(0)\ne = f32[40,50] exponential(p)\n"
       "t = f32[50,40] transpose(e), dimensions={1,0}\n"
       "q = f32[50,40] parameter(1)\na = f32[50,40] add(t, q)\n"
       "s = f32[40,50] negate(e)\n"
       "ROOT r = (f32[50,40], f32[40,50]) tuple(a, s)"},
      {"transpose_102_f32",
       "p = f32[37,45,2] parameter(0)\n"
       "ROOT t = f32[45,37,2] transpose(p), dimensions={1,0,2}"},
      {"transpose_102_s8",
       "p = s8[40,35,8] parameter(0)\n"
       "ROOT t = s8[35,40,8] transpose(p), dimensions={1,0,2}"},
      {"transpose_0213",
       "p = f32[3,20,41,2] parameter(0)\n"
       "ROOT t = f32[3,41,20,2] transpose(p), dimensions={0,2,1,3}"},
      {"transpose_1302",
       "p = f32[5,3,34,40] parameter(0)\n"
       "ROOT t = f32[3,40,5,34] transpose(p), dimensions={1,3,0,2}"},
      {"transpose_1302_side_output",
       "p = f16[4,3,17,33] parameter(0)\ne = f16[4,3,17,33] negate(p)\n"
       "t = f16[3,33,4,17] transpose(e), dimensions={1,3,0,2}\n"
       "ROOT r = (f16[3,33,4,17], f16[4,3,17,33]) tuple(t, e)"},
      {"transpose_021_s8_odd",
       "p = s8[3,37,45] parameter(0)\n"
       "ROOT t = s8[3,45,37] transpose(p), dimensions={0,2,1}"},
      {"transpose_021_bf16_odd",
       "p = bf16[2,35,67] parameter(0)\n"
       "ROOT t = bf16[2,67,35] transpose(p), dimensions={0,2,1}"},
      {"transpose_0213_s8",
       "p = s8[4,300,200,4] parameter(0)\n"
       "ROOT t = s8[4,200,300,4] transpose(p), dimensions={0,2,1,3}"},
      {"transpose_021_f64",
       "p = f64[4,96,64] parameter(0)\n"
       "ROOT t = f64[4,64,96] transpose(p), dimensions={0,2,1}"},
      {"transpose_021_f16_vectors",
       "p = f16[16,256,130] parameter(0)\n"
       "ROOT t = f16[16,130,256] transpose(p), dimensions={0,2,1}",
       true},
      {"transpose_021_u8_vectors",
       "p = u8[8,256,260] parameter(0)\nn = u8[8,256,260] not(p)\n"
       "ROOT t = u8[8,260,256] transpose(n), dimensions={0,2,1}",
       true},
      {"row_reduction",
       AddReducer("f32") +
           "ENTRY e { p = f32[7,1000] parameter(0)\n"
           "c = f32[] constant(0)\n"
           "ROOT r = f32[7] reduce(p, c), dimensions={1}, to_apply=red }"},
      {"row_reduction_32_warps",
       AddReducer("f32") +
           "ENTRY e { p = f32[2,16384] parameter(0)\n"
           "c = f32[] constant(0)\n"
           "ROOT r = f32[2] reduce(p, c), dimensions={1}, to_apply=red }"},
  };
  for (const char* type : {"f32", "f16", "f64"}) {
    const std::string t = type;
    c.push_back({"column_reduction_" + t,
                 AddReducer(t) + "ENTRY e { p = " + t +
                     "[64,1024,1024] parameter(0)\nc = " + t +
                     "[] constant(0)\nROOT r = " + t +
                     "[64,1024] reduce(p, c), dimensions={1}, to_apply=red }"});
    c.push_back({"column_reduction_narrow_" + t,
                 AddReducer(t) + "ENTRY e { p = " + t +
                     "[33,40] parameter(0)\nc = " + t +
                     "[] constant(0)\nROOT r = " + t +
                     "[40] reduce(p, c), dimensions={0}, to_apply=red }"});
  }
  return c;
}

EmitterPlan PlanOf(const BankCase& c, ExprContext* ctx) {
  auto module = hlo::ParseHloModule(c.hlo);
  INFO((module.ok() ? "" : module.error().ToString()));
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  hw::Device device = *hw::FindDevice("h100");
  if (c.small_gpu) device.sm_count = 4;
  auto plan = ComputeEmitterPlan(*region, device, ctx);
  INFO((plan.ok() ? "" : plan.error().ToString()));
  REQUIRE(plan.ok());
  return *plan;
}

TEST_CASE("shared tiles: every access is conflict-free or says why",
          "[emit_banks]") {
  for (const BankCase& c : BankCases()) {
    INFO(c.label);
    ExprContext ctx;
    EmitterPlan plan = PlanOf(c, &ctx);
    REQUIRE(!plan.shared_tiles.empty());
    int64_t xla_bytes = 0;
    for (const SharedTile& tile : plan.shared_tiles) {
      SharedTile xla = tile;
      xla.dims = tile.xla_dims;
      INFO(hw::DescribeTileLayout(tile.layout) << ": " << tile.layout_reason);
      // Never more memory than XLA's padded tile.
      CHECK(tile.bytes() <= xla.bytes());
      xla_bytes += xla.bytes();
      CHECK(!tile.layout_reason.empty());
      REQUIRE(tile.accesses.size() == 2);
      CHECK(tile.accesses[0].write);
      CHECK(!tile.accesses[1].write);
      for (const SharedTileAccess& a : tile.accesses) {
        INFO((a.write ? "write: " : "read: ") << a.reason);
        CHECK(a.instances > 0);
        CHECK(a.wavefronts_ideal >= 1);
        CHECK(a.wavefronts_worst >= a.wavefronts_ideal);
        CHECK(a.wavefronts_avg >= a.wavefronts_ideal);
        CHECK(a.wavefronts_avg <= a.wavefronts_worst);
        CHECK(a.bytes_per_lane ==
              a.vector_width * std::max(1, hlo::ElementBits(tile.type) / 8));
        if (a.conflict_free) {
          CHECK(a.wavefronts_worst == a.wavefronts_ideal);
          CHECK(a.reason.find("conflict-free") == 0);
        } else {
          // The reason names a conflicting bank and its lanes.
          CHECK(a.reason.find("not conflict-free") == 0);
          CHECK(a.reason.find("bank") != std::string::npos);
        }
      }
    }
    CHECK(plan.launch.shared_memory_bytes <= xla_bytes);
  }
}

// The 32 x 32 tiles of 4-byte elements and the column reduction's scratch
// of one f32 per lane: an XOR swizzle is conflict-free in both accesses, as
// XLA's padding is, without the 33rd column.
TEST_CASE("shared tiles: 4-byte tiles swizzle without the 33rd column",
          "[emit_banks]") {
  for (const char* label : {"transpose_210", "transpose_side_output",
                            "column_reduction_narrow_f32", "transpose_1302"}) {
    INFO(label);
    BankCase c;
    for (const BankCase& b : BankCases()) {
      if (b.label == label) c = b;
    }
    REQUIRE(!c.hlo.empty());
    ExprContext ctx;
    EmitterPlan plan = PlanOf(c, &ctx);
    REQUIRE(plan.shared_tiles.size() >= 1);
    const SharedTile& tile = plan.shared_tiles[0];
    INFO(tile.layout_reason);
    CHECK(tile.layout.kind == hw::TileLayoutKind::kXor);
    CHECK(tile.flat);
    CHECK(tile.dims.size() == 1);
    CHECK(tile.dims[0] == 1024);
    CHECK(tile.bytes() == 4096);
    CHECK(plan.launch.shared_memory_bytes == 4096);
    for (const SharedTileAccess& a : tile.accesses) {
      INFO(a.reason);
      CHECK(a.conflict_free);
    }
    // The code indexes the tile through the swizzle: an xor, and a tile of
    // 1024 elements.
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    emit::EmitOptions options;
    options.target = emit::Target::kCuda;
    auto emitted =
        emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
    INFO((emitted.ok() ? "" : emitted.error().ToString()));
    REQUIRE(emitted.ok());
    CHECK(emitted->code.find(" ^ ") != std::string::npos);
    CHECK(emitted->code.find("[1024]") != std::string::npos);
    CHECK(emitted->code.find("[33]") == std::string::npos);
  }
}

// XLA's padding stays where the layouts cannot be compared: on a device
// without a model of its banks every tile keeps XLA's dims and says why. (On
// the H100 no tile of the list above keeps it: for a row of one bank cycle
// a rotation by one spreads a column as the padding does, in no extra
// memory, and an XOR swizzle does as well with cheaper arithmetic.) A row
// reduction of 32 warps reads its one row of partials in one wavefront:
// its scratch needs no 33rd column either.
TEST_CASE("shared tiles: XLA's padding stays where banks are not modelled",
          "[emit_banks]") {
  hw::Device unbanked = *hw::FindDevice("h100");
  unbanked.smem_banks = 0;
  for (const BankCase& c : BankCases()) {
    if (c.small_gpu) continue;
    INFO(c.label);
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    auto plan = ComputeEmitterPlan(*region, unbanked, &ctx);
    REQUIRE(plan.ok());
    for (const SharedTile& tile : plan->shared_tiles) {
      INFO(tile.layout_reason);
      CHECK(tile.dims == tile.xla_dims);
      CHECK(!tile.flat);
      CHECK(tile.accesses.empty());
      CHECK(tile.layout_reason.find("(XLA's)") != std::string::npos);
      CHECK(tile.layout_reason.find("bank") != std::string::npos);
    }
  }
  BankCase row32;
  for (const BankCase& c : BankCases()) {
    if (c.label == "row_reduction_32_warps") row32 = c;
  }
  ExprContext ctx;
  EmitterPlan plan = PlanOf(row32, &ctx);
  REQUIRE(plan.shared_tiles.size() == 1);
  const SharedTile& tile = plan.shared_tiles[0];
  CHECK(tile.xla_dims == std::vector<int64_t>{1, 33});
  CHECK(tile.dims == std::vector<int64_t>{1, 32});
  CHECK(tile.layout.kind == hw::TileLayoutKind::kRowMajor);
  for (const SharedTileAccess& a : tile.accesses) CHECK(a.conflict_free);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
