#include "hw/device.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/enumerate.h"
#include "core/int_math.h"

namespace ixa::hw {

std::span<const Device> BuiltinDevices() {
  // Public spec-sheet numbers (SXM / OAM parts; dense, no sparsity). The
  // launch and cost-model fields of the NVIDIA parts (cores, FPUs, clock,
  // DRAM bandwidth, L2, shared memory, compute capability, toolkit) are
  // those of XLA's device descriptions (docs/cost-model.md "Devices"). The
  // AMD parts take XLA's ROCm overrides: 32 KiB L1, 128-byte transactions,
  // 16 per clock (the MI300's, assumed for the MI355X too).
  //
  // The GEMM fields (docs/cost-model.md "GEMMs"). Matrix peaks are the
  // vendors' dense (no sparsity) spec-sheet rates: H100 SXM tf32 494.7,
  // fp8 and int8 1978.9, fp64 66.9 (NVIDIA H100 datasheet); A100 tf32 156,
  // int8 624, fp64 19.5, no fp8 (A100 datasheet); B200 tf32 1100, fp8 and
  // int8 4500, fp64 40 (HGX B200 datasheet: half its sparse figures);
  // RTX A6000 tf32 77.4, int8 309.7, no fp8, fp64 only on the CUDA cores
  // (1/64 of f32); MI300X tf32 653.7, fp8 and int8 2614.9, fp64 163.4;
  // MI355X fp8 and int8 5033, fp64 78.6, no tf32 (AMD datasheets).
  // gemm_efficiency is the share of the peak a long main loop sustains,
  // mostly the clock held under a full tensor load: H100 SXM ~1.75 of
  // 1.98 GHz at 700 W (0.88), B200 ~0.82 at 1000 W, A100 near its 1.41
  // GHz boost (0.95), the 300 W RTX A6000 0.8. With the model's operand
  // overhead (a 128x256 tile keeps 84% of a step on the MMAs in bf16)
  // they give 68% of the peak for a 4096^3 bf16 GEMM on H100, 58% on
  // B200, 74% on A100: about what published cuBLAS runs reach. gemm_latency_us
  // is the fixed time of a GEMM kernel (a first DRAM load ~1 us, the grid's
  // ramp and drain): 2.5 us on Hopper / Blackwell (TMA, one load per stage), 3
  // us on Ampere. These are estimates, not measurements:
  // tools/calibrate_gemm.sh measures a gemm_table on a real device.
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
       .fpus_per_core = 128,
       .compute_capability_major = 9,
       .toolkit_version = "12.8.0",
       .tensor_tflops_tf32 = 494.7,
       .tensor_tflops_fp8 = 1978.9,
       .tensor_tflops_int8 = 1978.9,
       .tensor_tflops_fp64 = 66.9,
       .gemm_efficiency = 0.88,
       .gemm_latency_us = 2.5},
      {.name = "a100",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 164 * 1024,
       .dram_gbps = 2039.04,
       .peak_tflops_fp32 = 19.5,
       .peak_tflops_bf16 = 312,
       .sm_count = 108,
       .notes = "A100 SXM4 80GB (the same as a100_80)",
       .threads_per_block_limit = 1024,
       .threads_per_core = 2048,
       .shared_memory_per_block = 48 * 1024,
       .shared_memory_per_block_optin = 163 * 1024,
       .clock_ghz = 1.41,
       .l2_bytes = 40 * 1024 * 1024,
       .fpus_per_core = 64,
       .compute_capability_major = 8,
       .tensor_tflops_tf32 = 156,
       .tensor_tflops_int8 = 624,
       .tensor_tflops_fp64 = 19.5,
       .gemm_efficiency = 0.95,
       .gemm_latency_us = 3},
      {.name = "a100_80",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 164 * 1024,
       .dram_gbps = 2039.04,
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
       .fpus_per_core = 64,
       .compute_capability_major = 8,
       .tensor_tflops_tf32 = 156,
       .tensor_tflops_int8 = 624,
       .tensor_tflops_fp64 = 19.5,
       .gemm_efficiency = 0.95,
       .gemm_latency_us = 3},
      {.name = "a100_40",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 164 * 1024,
       .dram_gbps = 1555.2,
       .peak_tflops_fp32 = 19.5,
       .peak_tflops_bf16 = 312,
       .sm_count = 108,
       .notes = "A100 SXM4 40GB",
       .threads_per_block_limit = 1024,
       .threads_per_core = 2048,
       .shared_memory_per_block = 48 * 1024,
       .shared_memory_per_block_optin = 163 * 1024,
       .clock_ghz = 1.41,
       .l2_bytes = 40 * 1024 * 1024,
       .fpus_per_core = 64,
       .compute_capability_major = 8,
       .toolkit_version = "12.8.0",
       .tensor_tflops_tf32 = 156,
       .tensor_tflops_int8 = 624,
       .tensor_tflops_fp64 = 19.5,
       .gemm_efficiency = 0.95,
       .gemm_latency_us = 3},
      {.name = "b200",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 228 * 1024,
       .dram_gbps = 7672.32,
       .peak_tflops_fp32 = 80,
       .peak_tflops_bf16 = 2250,
       .sm_count = 148,
       .notes = "B200; peak rates approximate",
       .threads_per_block_limit = 1024,
       .threads_per_core = 2048,
       .shared_memory_per_block = 48 * 1024,
       .shared_memory_per_block_optin = 227 * 1024,
       .clock_ghz = 1.965,
       .l2_bytes = 132644864,
       .fpus_per_core = 128,
       .compute_capability_major = 10,
       .toolkit_version = "12.8.0",
       .tensor_tflops_tf32 = 1100,
       .tensor_tflops_fp8 = 4500,
       .tensor_tflops_int8 = 4500,
       .tensor_tflops_fp64 = 40,
       .gemm_efficiency = 0.82,
       .gemm_latency_us = 2.5},
      {.name = "rtx_a6000",
       .vendor = "nvidia",
       .smem_bytes_per_sm = 100 * 1024,
       .dram_gbps = 768.096,
       .peak_tflops_fp32 = 38.7,
       .peak_tflops_bf16 = 154.8,
       .sm_count = 84,
       .notes = "RTX A6000 (GA102); launch model and clock as XLA's a6000 "
                "device description (1.8 GHz)",
       .threads_per_block_limit = 1024,
       .threads_per_core = 1536,
       .shared_memory_per_block = 48 * 1024,
       .shared_memory_per_block_optin = 99 * 1024,
       .clock_ghz = 1.8,
       .l2_bytes = 6 * 1024 * 1024,
       .fpus_per_core = 128,
       .compute_capability_major = 8,
       .compute_capability_minor = 6,
       .tensor_tflops_tf32 = 77.4,
       .tensor_tflops_int8 = 309.7,
       .gemm_efficiency = 0.8,
       .gemm_latency_us = 3},
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
       .fpus_per_core = 64,
       .l1_bytes_per_core = 32 * 1024,
       .dram_to_l2_transaction_bytes = 128,
       .memory_transactions_per_clock = 16,
       .tensor_tflops_tf32 = 653.7,
       .tensor_tflops_fp8 = 2614.9,
       .tensor_tflops_int8 = 2614.9,
       .tensor_tflops_fp64 = 163.4},
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
       .fpus_per_core = 128,
       .l1_bytes_per_core = 32 * 1024,
       .dram_to_l2_transaction_bytes = 128,
       .memory_transactions_per_clock = 16,
       .tensor_tflops_fp8 = 5033,
       .tensor_tflops_int8 = 5033,
       .tensor_tflops_fp64 = 78.6},
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

namespace {

struct Range {
  int64_t lo, hi;  // inclusive
};

// The sorted union of inclusive ranges (adjacent ones merged).
std::vector<Range> Union(std::vector<Range> v) {
  std::sort(v.begin(), v.end(),
            [](const Range& a, const Range& b) { return a.lo < b.lo; });
  std::vector<Range> out;
  for (const Range& r : v) {
    if (!out.empty() && r.lo <= out.back().hi + 1) {
      out.back().hi = std::max(out.back().hi, r.hi);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// Distinct floor(b / block) over a sorted union of byte ranges.
int64_t CountBlocks(const std::vector<Range>& bytes, int64_t block) {
  int64_t count = 0;
  std::optional<int64_t> last;
  for (const Range& r : bytes) {
    int64_t a = *FloorDiv(r.lo, block), b = *FloorDiv(r.hi, block);
    if (last && a <= *last) a = *last + 1;
    if (b >= a) count += b - a + 1;
    if (!last || b > *last) last = b;
  }
  return count;
}

// The most distinct words on one bank (bank = word mod banks) over word
// ranges: each range puts n / banks words on every bank and one more on
// n mod banks consecutive banks from its first word's; a sweep over those
// bank intervals finds the fullest bank. A word read twice counts once.
int64_t MaxWordsPerBank(std::vector<Range> words, int64_t banks) {
  int64_t full = 0;
  std::map<int64_t, int64_t> delta;
  for (const Range& r : Union(std::move(words))) {
    const int64_t n = r.hi - r.lo + 1;
    full += n / banks;
    const int64_t rem = n % banks;
    if (rem == 0) continue;
    const int64_t a = *Mod(r.lo, banks), b = a + rem;
    ++delta[a];
    if (b <= banks) {
      --delta[b];
    } else {
      --delta[banks];
      ++delta[0];
      --delta[b - banks];
    }
  }
  int64_t best = 0, cur = 0;
  for (const auto& [bank, d] : delta) {
    cur += d;
    best = std::max(best, cur);
  }
  return full + best;
}

}  // namespace

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
  // Bytes and bank words as inclusive ranges, one per access, counted on
  // their unions: the work is per access, not per byte (a 1 KiB element
  // times 2^22 accesses must not build a set of 2^32 bytes).
  std::vector<Range> bytes;
  std::map<int64_t, std::vector<Range>> words_by_phase;
  std::set<int64_t> active;
  const int64_t lanes_per_phase = std::max<int64_t>(
      1, device.smem_banks * device.bank_bytes /
             std::max(element_bytes, std::max<int64_t>(device.bank_bytes, 1)));
  Error failure;
  bool failed = false;
  auto r = ForEachDomainPoint(lanes, int64_t{1} << 22, [&](const Point& p) {
    auto v = lanes.Evaluate(p.dims, p.symbols);
    auto start = v.ok() ? CheckedMul((*v)[0], element_bytes) : std::nullopt;
    auto last = start ? CheckedAdd(*start, element_bytes - 1) : std::nullopt;
    if (!v.ok() || !last) {
      failure =
          v.ok() ? Error::Invalid("byte address of offset " +
                                  std::to_string((*v)[0]) + " overflows int64")
                 : v.error();
      failed = true;
      return false;
    }
    active.insert(p.dims[0]);
    ++out.accesses;
    bytes.push_back({*start, *last});
    if (memory == MemorySpace::kShared) {
      // Every bank word the access overlaps (an element need not be
      // word-aligned: 3-byte elements straddle words), floored below 0.
      words_by_phase[p.dims[0] / lanes_per_phase].push_back(
          {*FloorDiv(*start, device.bank_bytes),
           *FloorDiv(*last, device.bank_bytes)});
    }
    return true;
  });
  if (!r.ok()) return r.error();
  if (failed) return failure;
  bytes = Union(std::move(bytes));
  out.lanes = static_cast<int64_t>(active.size());
  out.sectors = CountBlocks(bytes, device.sector_bytes);
  out.lines = CountBlocks(bytes, device.line_bytes);
  for (const Range& b : bytes) out.useful_bytes += b.hi - b.lo + 1;
  out.efficiency =
      out.sectors ? static_cast<double>(out.useful_bytes) /
                        (static_cast<double>(out.sectors) * device.sector_bytes)
                  : 0;
  if (memory == MemorySpace::kShared) {
    out.phases = (device.warp_size + lanes_per_phase - 1) / lanes_per_phase;
    for (auto& [phase, words] : words_by_phase) {
      out.bank_conflict_ways =
          std::max(out.bank_conflict_ways,
                   MaxWordsPerBank(std::move(words), device.smem_banks));
    }
  }
  return out;
}

}  // namespace ixa::hw
