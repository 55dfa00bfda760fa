// The GEMM model of the ixa cost model (docs/cost-model.md "GEMMs"): the
// time of a batched [b, m, k] . [b, k, n] matrix product as a library
// (cuBLAS, cuBLASLt, a Triton GEMM, cuDNN's implicit GEMM) runs it, from
// the matrix-unit rate of its type pair, the CTA tile the library would
// pick, tile and wave quantization over the SMs, the K loop's pipeline
// fill and the tile epilogue, operand traffic through L2, split-K and a
// fixed kernel latency; or, when the device carries a measured
// `gemm_table` for the type pair, from that table.
//
// Per candidate tile TM x TN (K step TK, split-K s):
//   tiles    = b * ceil(m / TM) * ceil(n / TN) * s
//   waves    = ceil(tiles / SMs)         (one CTA per SM at a time)
//   k_steps  = ceil(ceil(k / s) / TK)
//   step_us  = (TM TN TK / R + 16 (TM + TN) TK / R16) / e
//              R: the SM's MAC rate for the type pair, R16 its 16-bit
//              rate, e the device's gemm_efficiency
//   compute  = latency + waves * ((k_steps + 2) * step_us
//              + TM TN out_bytes / (64 B * clock)) + split-K reduction
//   memory   = latency + max(DRAM bytes / DRAM bandwidth,
//                            L2 bytes / (2 * DRAM bandwidth))
//   time     = max(compute, memory)
// and the library's pick is the candidate of least time.
#ifndef IXA_ANALYSIS_USES_GEMM_COST_H_
#define IXA_ANALYSIS_USES_GEMM_COST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "hw/device.h"

namespace ixa {

// The matrix-unit path a type pair runs on (names are the gemm_table
// keys, hw::GemmTypeKeys): bf16 and f16 on the 16-bit tensor cores; f32
// at XLA's default precision on TF32; f32 with the 3-pass TF32 algorithm
// (dot_tf32_tf32_f32_x3) at a third of it; f32 at precision HIGHEST (or
// the dot_f32_f32_f32 algorithm) on the CUDA cores; fp8 pairs (e4m3,
// e5m2, either order); f64; s8 (int8 tensor cores).
enum class GemmTypes { kBf16, kF16, kTf32, kTf32x3, kF32, kFp8, kF64, kS8 };
const char* GemmTypesName(GemmTypes types);

struct GemmProblem {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  GemmTypes types = GemmTypes::kBf16;
  int64_t lhs_bytes = 2, rhs_bytes = 2, out_bytes = 2;  // per element
  // Whether each operand's contracting dim is its most minor one in
  // memory ([m, k] row-major is; [k, n] row-major is not).
  bool lhs_k_major = true, rhs_k_major = true;
  // Complex types do 4 real MACs per complex one.
  double complex_factor = 1;
  // What the problem came from, for the notes ("dot", "convolution as an
  // implicit GEMM", ...).
  std::string source;
  double Flops() const {
    return 2.0 * complex_factor * static_cast<double>(batch) *
           static_cast<double>(m) * static_cast<double>(n) *
           static_cast<double>(k);
  }
};

// The GEMM a dot, a convolution (as an implicit GEMM: M = batch x output
// spatial, N = output features, K = input features x window, per
// feature / batch group; groups are the batch), a cuBLAS custom call or a
// forward cuDNN convolution call computes; nullopt for anything else (or
// a dot without a usable shape).
std::optional<GemmProblem> GemmProblemOf(const hlo::Instruction& instr);

// The dense matrix peak (TFLOP/s) of the type pair on `device`, with the
// fallbacks of hw::Device's GEMM fields; and whether it runs on matrix
// units at all (false: the CUDA cores).
double GemmPeakTflops(const hw::Device& device, GemmTypes types,
                      bool* on_matrix_units = nullptr);

struct GemmTileShape {
  int64_t m = 0, n = 0, k = 0;
  // The SMs one tile spans: 2 for Blackwell's 2-SM MMA (each SM computes
  // m / 2 rows and loads half the B panel, which both read).
  int64_t sms = 1;
};
// The CTA tiles a library picks from on `device` for the type pair:
// Hopper and Blackwell (capability >= 9; AMD alike) 128x256, 256x128,
// 128x128, 128x64, 64x128, 64x64 with TK = 128 bytes of K, and on
// Blackwell a 256x256 tile over an SM pair; Ampere and older the same
// without it, TK = 64 bytes; the CUDA-core path 128x128, 128x64, 64x64
// and 32x32 with TK = 8.
std::vector<GemmTileShape> GemmTileCandidates(const hw::Device& device,
                                              GemmTypes types);

struct GemmEstimate {
  GemmTileShape tile;
  int64_t split_k = 1;
  int64_t tiles = 0, waves = 0, k_steps = 0;
  double peak_tflops = 0;  // the type pair's matrix (or CUDA-core) peak
  double step_us = 0, mainloop_us = 0, fill_us = 0, epilogue_us = 0;
  double split_k_us = 0, latency_us = 0;
  double dram_bytes = 0, l2_bytes = 0;
  double compute_us = 0, memory_us = 0, time_us = 0;
  std::string bound;  // "compute", "memory", "latency", "measured"
  // Set when the device's gemm_table answered: the interpolated
  // throughput and how many rows it drew on. time_us is then the table's;
  // compute_us, memory_us and the terms stay the model's, and
  // model_time_us its time.
  std::optional<double> table_tflops;
  double model_time_us = 0;
  int table_rows = 0;
  double Tflops(const GemmProblem& p) const {
    return time_us > 0 ? p.Flops() / (time_us * 1e6) : 0;
  }
};

// The estimate of one candidate (tile, split-K), with `extra_bytes` read
// or written besides the operands and the result (an epilogue's bias,
// auxiliary outputs).
GemmEstimate EstimateGemmTile(const GemmProblem& problem,
                              const hw::Device& device, GemmTileShape tile,
                              int64_t split_k, double extra_bytes = 0);

// The library's pick (the least time over the candidates and split-K
// 1, 2, 4, 8, 16 where the output tiles leave SMs idle), then the
// gemm_table's throughput in place of the model's when the device has
// rows of the type pair. `extra_bytes` as above.
GemmEstimate EstimateGemm(const GemmProblem& problem, const hw::Device& device,
                          double extra_bytes = 0);

// The throughput a gemm_table gives the problem: the inverse-square-
// distance mean of its (up to 8) nearest rows of the type pair, distances
// in log2 of (batch, m, n, k); a row of the same shape is taken as is.
// nullopt when the table has no row of the type pair. `rows` gets how
// many rows it drew on.
std::optional<double> InterpolateGemmTable(const hw::Device& device,
                                           const GemmProblem& problem,
                                           int* rows = nullptr);

// The epilogue a cuBLASLt call fuses (`"epilogue"` in its backend config:
// BIAS, RELU, GELU, SILU and their combinations, _AUX for an auxiliary
// output of the pre-activation values): issue slots per output element
// (a bias add or a relu 1, GELU's tanh form the tanh plus 6, SILU the
// logistic plus 1) and whether it writes the auxiliary output. None for
// other instructions or the DEFAULT epilogue.
struct GemmEpilogue {
  std::string name;  // as the config writes it; empty: none
  double slots_per_element = 0;
  bool aux = false;
};
GemmEpilogue LibraryGemmEpilogue(const hlo::Instruction& instr,
                                 const hw::Device& device);

// The notes of an estimate: the tile, waves and bound.
std::vector<std::string> GemmNotes(const GemmProblem& problem,
                                   const GemmEstimate& estimate);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_GEMM_COST_H_
