// Device descriptions as data (docs/protocol.md "Devices") and the warp-access
// model of docs/hw-reference.md §5: 32-byte sectors, 128-byte lines and
// shared-memory banks, per device.
#ifndef IXA_HW_DEVICE_H_
#define IXA_HW_DEVICE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa::hw {

// One measured GEMM of a device's calibration table: `types` is the type
// pair's key (analysis/uses/gemm_cost.h: "bf16", "f16", "tf32", "tf32x3",
// "f32", "fp8", "f64", "s8"), batch x [m, k] . [k, n] its shape, tflops
// the throughput measured (2 b m n k flops over the time of one call).
struct GemmTableEntry {
  std::string types;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  double tflops = 0;
  bool operator==(const GemmTableEntry&) const = default;
};

struct Device {
  std::string name;
  std::string vendor;
  int64_t warp_size = 32;     // threads per warp / wavefront / vector lanes
  int64_t sector_bytes = 32;  // global-memory transaction granularity
  int64_t line_bytes = 128;   // cache line
  int64_t smem_banks = 32;    // 0: no banked scratchpad modelled
  int64_t bank_bytes = 4;
  int64_t smem_bytes_per_sm = 0;
  double dram_gbps = 0;  // DRAM bandwidth, GB/s
  double peak_tflops_fp32 = 0;
  double peak_tflops_bf16 = 0;  // dense matrix units
  int64_t sm_count = 0;         // SMs / CUs / TensorCores / AI cores
  std::string notes;            // what is approximate, and why
  // The launch model of XLA:GPU's emitters (docs/xla-reference.md §(h)
  // h.5-h.8, h.12). warp_size above is XLA's threads_per_warp and
  // smem_bytes_per_sm its shared memory per core; sm_count its core count.
  // Zero where a device has no such model (TPU, Ascend): plans then fail
  // with invalid_argument.
  int64_t threads_per_block_limit = 1024;
  int64_t threads_per_core = 2048;  // XLA's threads_per_core_limit
  std::array<int64_t, 3> block_dim_limit = {2147483647, 65535, 65535};
  int64_t shared_memory_per_block = 48 * 1024;
  int64_t shared_memory_per_block_optin = 0;
  double clock_ghz = 0;
  int64_t l2_bytes = 0;
  int64_t fpus_per_core = 0;
  // XLA's fusion cost model (docs/cost-model.md). The compute capability
  // picks the op-profile table (op_profile overrides the key) and, with the
  // toolkit version the kernels are compiled with, the Blackwell unroll
  // rule. The last three are constants XLA assumes for every NVIDIA GPU:
  // a 2 KiB L1 per SM, 64-byte DRAM-to-L2 transactions (two 32-byte
  // sectors) and 32 bytes per clock per block.
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  std::string toolkit_version;  // e.g. "12.8.0"; empty: unknown
  std::string op_profile;       // e.g. "sm_90"; empty: from the capability
  int64_t l1_bytes_per_core = 2048;
  int64_t dram_to_l2_transaction_bytes = 64;
  int64_t memory_transactions_per_clock = 32;
  // The GEMM model of the ixa cost model (analysis/uses/gemm_cost.h,
  // docs/cost-model.md "GEMMs"): dense matrix-unit peaks per type besides
  // peak_tflops_bf16 (f16 runs at the bf16 rate), TFLOP/s (TOP/s for
  // int8); 0 where the device has no such unit (f32 then runs on the CUDA
  // cores at peak_tflops_fp32, fp8 at the bf16 rate, f64 at the FP64
  // ratio of peak_tflops_fp32). gemm_efficiency is the share of the peak
  // a large GEMM's main loop sustains (mostly the clock it holds under a
  // full tensor load); gemm_latency_us the fixed time of one GEMM kernel
  // (ramp-up, the first tiles' loads, the drain); 0 takes the defaults
  // 0.85 and 3 us. gemm_table, when given, replaces the model's
  // efficiency by measured throughput.
  double tensor_tflops_tf32 = 0;
  double tensor_tflops_fp8 = 0;
  double tensor_tflops_int8 = 0;
  double tensor_tflops_fp64 = 0;
  double gemm_efficiency = 0;
  double gemm_latency_us = 0;
  std::vector<GemmTableEntry> gemm_table;
  // True when the launch-model fields above describe a GPU (threads, cores,
  // shared memory per block all positive).
  bool HasLaunchModel() const {
    return warp_size > 0 && threads_per_block_limit > 0 &&
           threads_per_core > 0 && sm_count > 0 && shared_memory_per_block > 0;
  }
};

std::span<const Device> BuiltinDevices();
std::optional<Device> FindDevice(std::string_view name);

enum class MemorySpace { kGlobal, kShared };

struct WarpAccess {
  int64_t lanes = 0;               // active lanes
  int64_t accesses = 0;            // (lane, symbols) points
  int64_t sectors = 0;             // distinct sector_bytes blocks touched
  int64_t lines = 0;               // distinct line_bytes blocks touched
  int64_t useful_bytes = 0;        // distinct bytes touched
  double efficiency = 0;           // useful_bytes / (sectors * sector_bytes)
  int64_t bank_conflict_ways = 0;  // shared: max distinct words on a bank
  int64_t phases = 1;              // shared: wide accesses split the warp
};

// `map`: (lane)[symbols] -> element offset. Active lanes are the map's lane
// domain intersected with [0, warp_size); every symbol value in its bounds
// is an access of the same request (e.g. a vector index), and the map's
// constraints mask lanes off. Each access touches element_bytes bytes at
// offset * element_bytes. Shared memory: bank = word mod banks, a word
// counted once per bank (broadcast); accesses wider than a bank word are
// served in phases of banks*bank_bytes/element_bytes lanes, and the degree
// is the worst phase's.
Result<WarpAccess> AnalyzeWarpAccess(const IndexingMap& map,
                                     int64_t element_bytes,
                                     const Device& device, MemorySpace memory);

}  // namespace ixa::hw

#endif  // IXA_HW_DEVICE_H_
