#include "hw/device.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/enumerate.h"
#include "core/int_math.h"

namespace ixa::hw {

std::span<const Device> BuiltinDevices() {
  // Public spec-sheet numbers (SXM / OAM parts; dense, no sparsity).
  // Public spec-sheet numbers (SXM / OAM parts; dense, no sparsity). The
  // launch-model fields of h100 and rtx_a6000 are spec/xla-reference.md
  // §(h) h.12 (XLA's H100 SXM description and its RTX A6000 test device).
  static const Device kDevices[] = {
      {.name = "h100",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 228 * 1024,
       .dram_gbps = 3352.32,
       .peak_tflops_fp32 = 67,
       .peak_tflops_bf16 = 989,
       .sm_count = 132,
       .notes = "H100 SXM5 80GB",
       .threads_per_block_limit = 1024,
       .threads_per_core = 2048,
       .shared_memory_per_block = 48 * 1024,
       .shared_memory_per_block_optin = 227 * 1024,
       .clock_ghz = 1.98,
       .l2_bytes = 50 * 1024 * 1024,
       .fpus_per_core = 128},
      {.name = "a100",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 164 * 1024,
       .dram_gbps = 2039,
       .peak_tflops_fp32 = 19.5,
       .peak_tflops_bf16 = 312,
       .sm_count = 108,
       .notes = "A100 SXM4 80GB",
       .threads_per_block_limit = 1024,
       .threads_per_core = 2048,
       .shared_memory_per_block = 48 * 1024,
       .shared_memory_per_block_optin = 163 * 1024,
       .clock_ghz = 1.41,
       .l2_bytes = 40 * 1024 * 1024,
       .fpus_per_core = 64},
      {.name = "b200",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 228 * 1024,
       .dram_gbps = 8000,
       .peak_tflops_fp32 = 80,
       .peak_tflops_bf16 = 2250,
       .sm_count = 148,
       .notes = "B200; figures approximate",
       .threads_per_block_limit = 1024,
       .threads_per_core = 2048,
       .shared_memory_per_block = 48 * 1024,
       .shared_memory_per_block_optin = 227 * 1024,
       .clock_ghz = 1.965,
       .l2_bytes = 126 * 1024 * 1024,
       .fpus_per_core = 128},
      {.name = "rtx_a6000",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 100 * 1024,
       .dram_gbps = 768.096,
       .peak_tflops_fp32 = 38.7,
       .peak_tflops_bf16 = 154.8,
       .sm_count = 84,
       .notes = "RTX A6000 (GA102); launch model = XLA's RTXA6000DeviceInfo "
                "test device (clock 1.41 GHz there, 1.8 GHz boost)",
       .threads_per_block_limit = 1024,
       .threads_per_core = 1536,
       .shared_memory_per_block = 48 * 1024,
       .shared_memory_per_block_optin = 99 * 1024,
       .clock_ghz = 1.41,
       .l2_bytes = 6 * 1024 * 1024,
       .fpus_per_core = 128},
      {.name = "mi300",
       .vendor = "amd",
       .warp_size = 64,
       .sector_bytes = 64,
       .smem_bytes_per_sm = 64 * 1024,
       .dram_gbps = 5300,
       .peak_tflops_fp32 = 81.7,
       .peak_tflops_bf16 = 1307,
       .sm_count = 304,
       .notes = "MI300X (CDNA3, gfx942): wave64, LDS 32 banks x 4 B; 64-B "
                "request granularity modelled as the sector; L2 summed over "
                "the 8 XCDs",
       .threads_per_block_limit = 1024,
       .threads_per_core = 2048,
       .shared_memory_per_block = 64 * 1024,
       .shared_memory_per_block_optin = 64 * 1024,
       .clock_ghz = 2.1,
       .l2_bytes = 32 * 1024 * 1024,
       .fpus_per_core = 64},
      {.name = "mi355x",
       .vendor = "amd",
       .warp_size = 64,
       .sector_bytes = 64,
       .smem_banks = 64,
       .smem_bytes_per_sm = 160 * 1024,
       .dram_gbps = 8000,
       .peak_tflops_fp32 = 157,
       .peak_tflops_bf16 = 2500,
       .sm_count = 256,
       .notes = "MI355X (CDNA4, gfx950): LDS has 64 banks; figures approximate",
       .threads_per_block_limit = 1024,
       .threads_per_core = 2048,
       .shared_memory_per_block = 160 * 1024,
       .shared_memory_per_block_optin = 160 * 1024,
       .clock_ghz = 2.4,
       .l2_bytes = 32 * 1024 * 1024,
       .fpus_per_core = 128},
      {.name = "tpu_v5e",
       .vendor = "google",
       .warp_size = 128,
       .sector_bytes = 512,
       .line_bytes = 4096,
       .smem_banks = 0,
       .smem_bytes_per_sm = 0,
       .dram_gbps = 819,
       .peak_tflops_fp32 = 0,
       .peak_tflops_bf16 = 197,
       .sm_count = 1,
       .notes = "TPU v5e: 128 vector lanes; a 'sector' is one 128x4 B sublane "
                "row and a 'line' one (8,128) f32 tile; no banked shared "
                "memory; no GPU launch model",
       .threads_per_block_limit = 0,
       .threads_per_core = 0,
       .block_dim_limit = {0, 0, 0},
       .shared_memory_per_block = 0},
      {.name = "ascend_a2",
       .vendor = "huawei",
       .warp_size = 64,
       .sector_bytes = 32,
       .line_bytes = 256,
       .smem_banks = 0,
       .smem_bytes_per_sm = 192 * 1024,
       .dram_gbps = 1600,
       .peak_tflops_fp32 = 0,
       .peak_tflops_bf16 = 313,
       .sm_count = 24,
       .notes = "Ascend 910B (A2): 32-B blocks, 256-B vector repeats, 192 KiB "
                "unified buffer per AI core; UB banks not modelled; no GPU "
                "launch model",
       .threads_per_block_limit = 0,
       .threads_per_core = 0,
       .block_dim_limit = {0, 0, 0},
       .shared_memory_per_block = 0},
  };
  return kDevices;
}

std::optional<Device> FindDevice(std::string_view name) {
  for (const Device& d : BuiltinDevices()) {
    if (d.name == name) return d;
  }
  return std::nullopt;
}

Result<WarpAccess> AnalyzeWarpAccess(const IndexingMap& map,
                                     int64_t element_bytes,
                                     const Device& device, MemorySpace memory) {
  if (map.num_dims() != 1)
    return Error::Invalid(
        "the access map must have exactly one dim (the lane id)");
  if (map.num_results() != 1)
    return Error::Invalid(
        "the access map must have exactly one result (the element offset)");
  if (element_bytes < 1) return Error::Invalid("element_bytes must be >= 1");
  if (device.warp_size < 1 || device.sector_bytes < 1 ||
      device.line_bytes < 1) {
    return Error::Invalid(
        "device needs positive warp_size, sector_bytes and line_bytes");
  }
  if (memory == MemorySpace::kShared &&
      (device.smem_banks < 1 || device.bank_bytes < 1)) {
    return Error::Invalid("device " + device.name +
                          " has no banked shared memory model");
  }
  IndexingMap lanes = map;
  Interval& lane = lanes.mutable_dims()[0].bounds;
  lane = lane.Intersect(Interval{0, device.warp_size - 1});
  WarpAccess out;
  std::set<int64_t> bytes, sectors, lines, active;
  std::map<int64_t, std::vector<int64_t>> words_by_lane;  // lane -> word ids
  Error failure;
  bool failed = false;
  auto r = ForEachDomainPoint(lanes, int64_t{1} << 22, [&](const Point& p) {
    auto v = lanes.Evaluate(p.dims, p.symbols);
    if (!v.ok()) {
      failure = v.error();
      failed = true;
      return false;
    }
    const int64_t start = (*v)[0] * element_bytes;
    active.insert(p.dims[0]);
    ++out.accesses;
    for (int64_t b = start; b < start + element_bytes; ++b) {
      bytes.insert(b);
      sectors.insert(b >= 0 ? b / device.sector_bytes
                            : -((-b - 1) / device.sector_bytes) - 1);
      lines.insert(b >= 0 ? b / device.line_bytes
                          : -((-b - 1) / device.line_bytes) - 1);
    }
    if (memory == MemorySpace::kShared) {
      // Every bank word the access overlaps (an element need not be
      // word-aligned: 3-byte elements straddle words), floored below 0.
      const int64_t first = *FloorDiv(start, device.bank_bytes);
      const int64_t last =
          *FloorDiv(start + element_bytes - 1, device.bank_bytes);
      for (int64_t w = first; w <= last; ++w)
        words_by_lane[p.dims[0]].push_back(w);
    }
    return true;
  });
  if (!r.ok()) return r.error();
  if (failed) return failure;
  out.lanes = static_cast<int64_t>(active.size());
  out.sectors = static_cast<int64_t>(sectors.size());
  out.lines = static_cast<int64_t>(lines.size());
  out.useful_bytes = static_cast<int64_t>(bytes.size());
  out.efficiency = out.sectors ? static_cast<double>(out.useful_bytes) /
                                     (out.sectors * device.sector_bytes)
                               : 0;
  if (memory == MemorySpace::kShared) {
    const int64_t row_bytes = device.smem_banks * device.bank_bytes;
    const int64_t lanes_per_phase = std::max<int64_t>(
        1, row_bytes / std::max(element_bytes, device.bank_bytes));
    out.phases = (device.warp_size + lanes_per_phase - 1) / lanes_per_phase;
    for (int64_t phase = 0; phase < out.phases; ++phase) {
      std::map<int64_t, std::set<int64_t>> bank_words;
      for (const auto& [l, words] : words_by_lane) {
        if (l / lanes_per_phase != phase) continue;
        for (int64_t w : words) {
          int64_t bank =
              ((w % device.smem_banks) + device.smem_banks) % device.smem_banks;
          bank_words[bank].insert(w);
        }
      }
      for (const auto& [bank, words] : bank_words) {
        out.bank_conflict_ways = std::max<int64_t>(
            out.bank_conflict_ways, static_cast<int64_t>(words.size()));
      }
    }
  }
  return out;
}

}  // namespace ixa::hw
