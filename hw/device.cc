#include "hw/device.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/enumerate.h"

namespace ixa::hw {

std::span<const Device> BuiltinDevices() {
  // Public spec-sheet numbers (SXM / OAM parts; dense, no sparsity).
  static const Device kDevices[] = {
      {"h100", "nvidia", 32, 32, 128, 32, 4, 228 * 1024, 3350, 67, 989, 132,
       "H100 SXM5 80GB"},
      {"a100", "nvidia", 32, 32, 128, 32, 4, 164 * 1024, 2039, 19.5, 312, 108,
       "A100 SXM4 80GB"},
      {"b200", "nvidia", 32, 32, 128, 32, 4, 228 * 1024, 8000, 80, 2250, 148,
       "B200; figures approximate"},
      {"rtx_a6000", "nvidia", 32, 32, 128, 32, 4, 100 * 1024, 768, 38.7, 154.8,
       84, "RTX A6000 (GA102)"},
      {"mi300", "amd", 64, 64, 128, 32, 4, 64 * 1024, 5300, 81.7, 1307, 304,
       "MI300X (CDNA3, gfx942): wave64, LDS 32 banks x 4 B; 64-B request "
       "granularity modelled as the sector"},
      {"mi355x", "amd", 64, 64, 128, 64, 4, 160 * 1024, 8000, 157, 2500, 256,
       "MI355X (CDNA4, gfx950): LDS has 64 banks; figures approximate"},
      {"tpu_v5e", "google", 128, 512, 4096, 0, 4, 0, 819, 0, 197, 1,
       "TPU v5e: 128 vector lanes; a 'sector' is one 128x4 B sublane row and a "
       "'line' one (8,128) f32 tile; no banked shared memory"},
      {"ascend_a2", "huawei", 64, 32, 256, 0, 4, 192 * 1024, 1600, 0, 313, 24,
       "Ascend 910B (A2): 32-B blocks, 256-B vector repeats, 192 KiB unified "
       "buffer per AI core; UB banks not modelled"},
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
      for (int64_t b = start; b < start + element_bytes;
           b += device.bank_bytes) {
        words_by_lane[p.dims[0]].push_back(b / device.bank_bytes);
      }
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
