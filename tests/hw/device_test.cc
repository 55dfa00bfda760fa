// The warp-access model: docs/hw-reference.md §5's worked numbers (gpu-01..11).
#include "hw/device.h"

#include <catch2/catch.hpp>

#include "core/text.h"

namespace ixa::hw {
namespace IXA_UNITY_ID {

WarpAccess Run(const std::string& map_text, int64_t bytes,
               MemorySpace mem = MemorySpace::kGlobal,
               const char* device = "h100") {
  ExprContext ctx;
  auto map = ParseIndexingMap(map_text, &ctx);
  INFO(map_text);
  REQUIRE(map.ok());
  auto r = AnalyzeWarpAccess(*map, bytes, *FindDevice(device), mem);
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("warp: global coalescing", "[hw][warp]") {
  WarpAccess a = Run("(d0) -> (d0), domain: d0 in [0, 31]", 4);
  CHECK(a.sectors == 4);
  CHECK(a.lines == 1);
  CHECK(a.useful_bytes == 128);
  CHECK(a.efficiency == 1.0);
  a = Run("(d0) -> (d0 * 2), domain: d0 in [0, 31]", 4);
  CHECK(a.sectors == 8);
  CHECK(a.lines == 2);
  CHECK(a.efficiency == 0.5);
  a = Run("(d0) -> (d0 * 32), domain: d0 in [0, 31]", 4);
  CHECK(a.sectors == 32);
  CHECK(a.lines == 32);
  a = Run("(d0) -> (d0 + 1), domain: d0 in [0, 31]", 4);
  CHECK(a.sectors == 5);
  CHECK(a.lines == 2);
  a = Run("(d0) -> (d0), domain: d0 in [0, 31]", 2);
  CHECK(a.sectors == 2);
  CHECK(a.lines == 1);
  a = Run("(d0) -> (d0), domain: d0 in [0, 31]", 16);
  CHECK(a.sectors == 16);
  CHECK(a.lines == 4);
  // Unbounded lanes take the warp; a symbol is a vector index per lane.
  a = Run("(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 63], s0 in [0, 3]", 4);
  CHECK(a.lanes == 32);
  CHECK(a.accesses == 128);
  CHECK(a.sectors == 16);
  // Constraints mask lanes off.
  a = Run("(d0) -> (d0), domain: d0 in [0, 31], d0 mod 2 in [0, 0]", 4);
  CHECK(a.lanes == 16);
  CHECK(a.sectors == 4);
}

TEST_CASE("warp: shared-memory banks", "[hw][warp]") {
  auto ways = [](const std::string& m, int64_t bytes = 4,
                 const char* dev = "h100") {
    return Run(m, bytes, MemorySpace::kShared, dev).bank_conflict_ways;
  };
  CHECK(ways("(d0) -> (d0), domain: d0 in [0, 31]") == 1);
  CHECK(ways("(d0) -> (d0 * 32), domain: d0 in [0, 31]") == 32);
  CHECK(ways("(d0) -> (d0 * 33), domain: d0 in [0, 31]") == 1);
  CHECK(ways("(d0) -> (d0 * 2), domain: d0 in [0, 31]") == 2);
  CHECK(ways("(d0) -> (d0 * 6), domain: d0 in [0, 31]") == 2);
  CHECK(ways("(d0) -> (0), domain: d0 in [0, 31]") == 1);  // broadcast
  // 64-bit accesses: two phases of 16 lanes, conflict-free when contiguous.
  WarpAccess w =
      Run("(d0) -> (d0), domain: d0 in [0, 31]", 8, MemorySpace::kShared);
  CHECK(w.phases == 2);
  CHECK(w.bank_conflict_ways == 1);
  // wave64: 32 banks serve a 64-lane b32 access in two phases of 32 lanes;
  // gfx950's 64 banks serve it in one. Stride 32 words hits banks {0, 32}
  // there (32 words each) and bank 0 per phase here: 32-way both ways.
  CHECK(Run("(d0) -> (d0), domain: d0 in [0, 63]", 4, MemorySpace::kShared,
            "mi300")
            .phases == 2);
  CHECK(Run("(d0) -> (d0), domain: d0 in [0, 63]", 4, MemorySpace::kShared,
            "mi355x")
            .phases == 1);
  CHECK(ways("(d0) -> (d0 * 32), domain: d0 in [0, 63]", 4, "mi355x") == 32);
  CHECK(ways("(d0) -> (d0 * 32), domain: d0 in [0, 63]", 4, "mi300") == 32);
  // Stride 48 words: 64 banks see {0, 48, 32, 16} (16 each); 32 banks per
  // phase see {0, 16} (16 each).
  CHECK(ways("(d0) -> (d0 * 48), domain: d0 in [0, 63]", 4, "mi355x") == 16);
  CHECK(ways("(d0) -> (d0 * 48), domain: d0 in [0, 63]", 4, "mi300") == 16);
  // An element that straddles two bank words touches both (found by the
  // differential test): 3-byte lanes at bytes 9*d0 + 12; lane 14 covers
  // bytes 138..140, words 34 and 35, and word 35 shares bank 3 with lane
  // 0's word 3: 2-way (1 when only the first word counted).
  CHECK(ways("(d0) -> (d0 * 3 + 4), domain: d0 in [0, 15]", 3) == 2);
  // Below 0, words are floored: lane 0's bytes -3..-1 are word -1 (bank 31),
  // which lane 1's word 31 (bytes 126..128) also hits.
  CHECK(ways("(d0) -> (d0 * 43 - 1), domain: d0 in [0, 1]", 3) == 2);
}

TEST_CASE("warp: devices", "[hw][warp]") {
  for (const char* name :
       {"h100", "a100", "rtx_a6000", "mi300", "tpu_v5e", "ascend_a2"}) {
    auto d = FindDevice(name);
    REQUIRE(d.has_value());
    CHECK(d->dram_gbps > 0);
    CHECK(d->sm_count > 0);
  }
  CHECK(!FindDevice("nope"));
  CHECK(FindDevice("mi300")->warp_size == 64);
  ExprContext ctx;
  auto map = ParseIndexingMap("(d0) -> (d0), domain: d0 in [0, 31]", &ctx);
  REQUIRE(map.ok());
  CHECK(
      !AnalyzeWarpAccess(*map, 4, *FindDevice("tpu_v5e"), MemorySpace::kShared)
           .ok());
}

// Work is per access, not per byte: 32 x 100001 accesses of 1 KiB took
// minutes and a gigabyte (a set of every byte); byte addresses that
// overflow int64 are invalid_argument, not wrapped.
TEST_CASE("warp: large and overflowing requests", "[hw][warp]") {
  WarpAccess a =
      Run("(d0)[s0] -> (s0 * 1000), domain: d0 in [0, 31], s0 in [0, 100000]",
          1024);
  CHECK(a.useful_bytes == 100001 * 1024);
  CHECK(a.sectors == 100001 * 32);
  CHECK(a.lines == 100001 * 8);
  CHECK(Run("(d0)[s0] -> (s0 * 1000), domain: d0 in [0, 31], s0 in "
            "[0, 100000]",
            1024, MemorySpace::kShared)
            .bank_conflict_ways == 100001 * 8);  // 256 words each
  ExprContext ctx;
  auto map = ParseIndexingMap(
      "(d0) -> (d0 * 4611686018427387904), domain: d0 in [0, 31]", &ctx);
  REQUIRE(map.ok());
  auto r =
      AnalyzeWarpAccess(*map, 4, *FindDevice("h100"), MemorySpace::kGlobal);
  REQUIRE(!r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
