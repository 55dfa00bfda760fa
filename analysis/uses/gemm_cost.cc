#include "analysis/uses/gemm_cost.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "analysis/hlo/custom_calls.h"
#include "core/int_math.h"
#include "hw/throughput.h"

namespace ixa {
namespace {

// Defaults of the device fields gemm_efficiency and gemm_latency_us.
constexpr double kDefaultGemmEfficiency = 0.85;
constexpr double kDefaultGemmLatencyUs = 3;
// The cost of moving one operand element of a k-step through shared
// memory (the TMA / ldmatrix issue, barriers, address arithmetic), in
// MACs of the SM's 16-bit rate: a 128x128 bf16 tile spends 20% of a step
// on it, a 128x256 one 16%, a 64x64 one 33%. It does not shrink with
// narrower types, so fp8 (twice the MACs per element) keeps less of its
// peak than bf16, and TF32 (half) more.
constexpr double kOverheadMacsPerElement = 16;
// Hopper's and Blackwell's TF32 MMAs (wgmma, tcgen05) read only K-major
// operands from shared memory (PTX ISA: the transpose flags are for f16 and
// bf16). With an operand stored the other way a library runs an
// Ampere-style mma.sync kernel, which issues at about 65% of the wgmma
// peak on an H100 (what FlashAttention-2 against -3 and mma.sync GEMMs
// reach). (fp8 and int8 have the same limit, but cuBLASLt takes them
// K-major only: the caller transposes them beforehand, in a kernel of its
// own.)
constexpr double kMmaSyncShareOfPeak = 0.65;
// Pipeline fill and drain, per wave: the k-steps before a tile's first
// MMA has its operands (stages - 1 loads in flight) and after its last.
constexpr double kFillSteps = 2;
// One SM stores its epilogue tile (one per wave) at half a 128-byte line
// per clock.
constexpr double kEpilogueBytesPerClock = 64;
// L2 serves the tiles' operand panels at twice the DRAM bandwidth (XLA
// assumes 2.5; an H100's L2 is two partitions and a GEMM's panels live
// in both: read microbenchmarks reach 5.5-7 TB/s, 2x is 6.7).
constexpr double kGemmL2Speedup = 2;
// A split-K GEMM reduces its f32 partial tiles in a second kernel.
constexpr double kSplitKReduceUs = 1;
constexpr int64_t kSplitKFactors[] = {2, 4, 8, 16};
// Rows of a gemm_table the interpolation draws on.
constexpr size_t kTableNeighbours = 8;

bool IsFp8(hlo::ElementType t) {
  switch (t) {
    case hlo::ElementType::kF8E3M4:
    case hlo::ElementType::kF8E4M3:
    case hlo::ElementType::kF8E4M3FN:
    case hlo::ElementType::kF8E4M3FNUZ:
    case hlo::ElementType::kF8E4M3B11FNUZ:
    case hlo::ElementType::kF8E5M2:
    case hlo::ElementType::kF8E5M2FNUZ:
    case hlo::ElementType::kF4E2M1FN:
      return true;
    default:
      return false;
  }
}

bool IsInt8OrNarrower(hlo::ElementType t) {
  return t == hlo::ElementType::kS8 || t == hlo::ElementType::kU8 ||
         t == hlo::ElementType::kS4 || t == hlo::ElementType::kU4 ||
         t == hlo::ElementType::kS2 || t == hlo::ElementType::kU2;
}

std::string LowerCaseText(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

// The precision an f32 dot runs at, from the dot's operand_precision and
// algorithm attributes or the cuBLAS call's backend config.
GemmTypes F32Path(const hlo::Instruction& instr) {
  const std::string text = LowerCaseText(
      instr.Attribute("operand_precision") + " " +
      instr.Attribute("algorithm") + " " + instr.Attribute("backend_config"));
  if (text.find("tf32_tf32_f32_x3") != std::string::npos) {
    return GemmTypes::kTf32x3;
  }
  if (text.find("highest") != std::string::npos ||
      text.find("f32_f32_f32") != std::string::npos) {
    return GemmTypes::kF32;
  }
  return GemmTypes::kTf32;
}

std::optional<GemmTypes> TypePair(const hlo::Instruction& precision_source,
                                  hlo::ElementType lhs, hlo::ElementType rhs) {
  auto either = [&](hlo::ElementType t) { return lhs == t || rhs == t; };
  if (IsFp8(lhs) && IsFp8(rhs)) return GemmTypes::kFp8;
  if (either(hlo::ElementType::kF64) || either(hlo::ElementType::kC128)) {
    return GemmTypes::kF64;
  }
  if (either(hlo::ElementType::kF32) || either(hlo::ElementType::kC64)) {
    return F32Path(precision_source);
  }
  if (either(hlo::ElementType::kBF16)) return GemmTypes::kBf16;
  if (either(hlo::ElementType::kF16)) return GemmTypes::kF16;
  if (IsInt8OrNarrower(lhs) && IsInt8OrNarrower(rhs)) return GemmTypes::kS8;
  if (IsFp8(lhs) || IsFp8(rhs)) return GemmTypes::kBf16;
  // Other integers: CUDA-core multiply-adds.
  return GemmTypes::kF32;
}

int64_t GemmElementBytes(hlo::ElementType t) {
  return std::max<int64_t>(1, hlo::ElementBits(t) / 8);
}

int64_t GemmDimProduct(const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& which) {
  int64_t p = 1;
  for (int64_t d : which) p = SaturatingMul(p, dims[d]);
  return p;
}

std::optional<GemmProblem> DotProblem(const hlo::Instruction& dot,
                                      const hlo::Instruction& precision) {
  if (dot.operand_count() < 2) return std::nullopt;
  const hlo::Shape &lhs = dot.operand(0)->shape, &rhs = dot.operand(1)->shape;
  if (!lhs.IsArray() || !rhs.IsArray() || !dot.shape.IsArray()) {
    return std::nullopt;
  }
  for (const auto* dims : {&dot.dot.lhs_batch, &dot.dot.lhs_contracting}) {
    for (int64_t d : *dims) {
      if (d < 0 || d >= lhs.rank()) return std::nullopt;
    }
  }
  GemmProblem p;
  p.batch = GemmDimProduct(lhs.dims, dot.dot.lhs_batch);
  p.k = GemmDimProduct(lhs.dims, dot.dot.lhs_contracting);
  if (p.batch <= 0 || p.k <= 0 || lhs.ElementCount() <= 0 ||
      rhs.ElementCount() <= 0) {
    return std::nullopt;
  }
  const int64_t batch_k = SaturatingMul(p.batch, p.k);
  p.m = lhs.ElementCount() / batch_k;
  p.n = rhs.ElementCount() / batch_k;
  if (p.m <= 0 || p.n <= 0) return std::nullopt;
  auto types = TypePair(precision, lhs.type, rhs.type);
  if (!types) return std::nullopt;
  p.types = *types;
  p.lhs_bytes = GemmElementBytes(lhs.type);
  p.rhs_bytes = GemmElementBytes(rhs.type);
  p.out_bytes = GemmElementBytes(dot.shape.type);
  auto k_major = [](const hlo::Shape& s, const std::vector<int64_t>& k) {
    const std::vector<int64_t> order = s.MinorToMajor();
    return order.empty() || std::find(k.begin(), k.end(), order[0]) != k.end();
  };
  p.lhs_k_major = k_major(lhs, dot.dot.lhs_contracting);
  p.rhs_k_major = k_major(rhs, dot.dot.rhs_contracting);
  if (lhs.type == hlo::ElementType::kC64 ||
      lhs.type == hlo::ElementType::kC128) {
    p.complex_factor = 4;
  }
  p.source = "dot";
  return p;
}

std::optional<GemmProblem> ConvolutionProblem(
    const hlo::Instruction& conv, const hlo::Instruction& precision) {
  if (!conv.conv || conv.operand_count() < 2) return std::nullopt;
  const hlo::Shape &input = conv.operand(0)->shape,
                   &kernel = conv.operand(1)->shape, &out = conv.shape;
  if (!input.IsArray() || !kernel.IsArray() || !out.IsArray()) {
    return std::nullopt;
  }
  const hlo::ConvDimensionNumbers& dn = *conv.conv;
  auto in_range = [](int64_t d, const hlo::Shape& s) {
    return d >= 0 && d < s.rank();
  };
  if (!in_range(dn.kernel_input_feature, kernel) ||
      !in_range(dn.kernel_output_feature, kernel) ||
      !in_range(dn.output_batch, out)) {
    return std::nullopt;
  }
  const int64_t groups =
      SaturatingMul(std::max<int64_t>(1, conv.feature_group_count),
                    std::max<int64_t>(1, conv.batch_group_count));
  GemmProblem p;
  p.batch = groups;
  p.m = out.dims[dn.output_batch];
  for (int64_t d : dn.output_spatial) {
    if (!in_range(d, out)) return std::nullopt;
    p.m = SaturatingMul(p.m, out.dims[d]);
  }
  p.n = kernel.dims[dn.kernel_output_feature] / groups;
  p.k = kernel.dims[dn.kernel_input_feature];
  for (int64_t d : dn.kernel_spatial) {
    if (!in_range(d, kernel)) return std::nullopt;
    p.k = SaturatingMul(p.k, kernel.dims[d]);
  }
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return std::nullopt;
  auto types = TypePair(precision, input.type, kernel.type);
  if (!types) return std::nullopt;
  p.types = *types;
  p.lhs_bytes = GemmElementBytes(input.type);
  p.rhs_bytes = GemmElementBytes(kernel.type);
  p.out_bytes = GemmElementBytes(out.type);
  p.source = "convolution as an implicit GEMM";
  return p;
}

std::string FormatGemmNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// Positive a and b; no overflow near INT64_MAX.
int64_t GemmCeilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

}  // namespace

const char* GemmTypesName(GemmTypes types) {
  switch (types) {
    case GemmTypes::kBf16:
      return "bf16";
    case GemmTypes::kF16:
      return "f16";
    case GemmTypes::kTf32:
      return "tf32";
    case GemmTypes::kTf32x3:
      return "tf32x3";
    case GemmTypes::kF32:
      return "f32";
    case GemmTypes::kFp8:
      return "fp8";
    case GemmTypes::kF64:
      return "f64";
    case GemmTypes::kS8:
      return "s8";
  }
  return "bf16";
}

std::optional<GemmProblem> GemmProblemOf(const hlo::Instruction& instr) {
  if (instr.opcode == hlo::Opcode::kDot) return DotProblem(instr, instr);
  if (instr.opcode == hlo::Opcode::kConvolution)
    return ConvolutionProblem(instr, instr);
  if (instr.opcode != hlo::Opcode::kCustomCall) return std::nullopt;
  const hlo::LibraryCallKind kind = hlo::GetLibraryCallKind(instr);
  if (kind != hlo::LibraryCallKind::kCublasGemm &&
      kind != hlo::LibraryCallKind::kCudnnConvForward) {
    return std::nullopt;
  }
  std::unique_ptr<hlo::Instruction> op = hlo::LibraryCallAsOp(instr);
  if (!op) return std::nullopt;
  std::optional<GemmProblem> p = op->opcode == hlo::Opcode::kDot
                                     ? DotProblem(*op, instr)
                                     : ConvolutionProblem(*op, instr);
  if (p) p->source = hlo::CustomCallTarget(instr) + " (" + p->source + ")";
  return p;
}

double GemmPeakTflops(const hw::Device& device, GemmTypes types,
                      bool* on_matrix_units) {
  bool matrix = true;
  double peak = 0;
  auto cuda_cores = [&](double ratio) {
    matrix = false;
    return device.peak_tflops_fp32 / ratio;
  };
  switch (types) {
    case GemmTypes::kBf16:
    case GemmTypes::kF16:
      peak =
          device.peak_tflops_bf16 > 0 ? device.peak_tflops_bf16 : cuda_cores(1);
      break;
    case GemmTypes::kTf32:
      peak = device.tensor_tflops_tf32 > 0 ? device.tensor_tflops_tf32
                                           : cuda_cores(1);
      break;
    case GemmTypes::kTf32x3:
      peak = device.tensor_tflops_tf32 > 0 ? device.tensor_tflops_tf32 / 3
                                           : cuda_cores(1);
      break;
    case GemmTypes::kF32:
      peak = cuda_cores(1);
      break;
    case GemmTypes::kFp8:
      peak = device.tensor_tflops_fp8 > 0  ? device.tensor_tflops_fp8
             : device.peak_tflops_bf16 > 0 ? device.peak_tflops_bf16
                                           : cuda_cores(1);
      break;
    case GemmTypes::kF64:
      peak = device.tensor_tflops_fp64 > 0 ? device.tensor_tflops_fp64
                                           : cuda_cores(hw::Fp64Ratio(device));
      break;
    case GemmTypes::kS8:
      peak = device.tensor_tflops_int8 > 0 ? device.tensor_tflops_int8
                                           : cuda_cores(1);
      break;
  }
  if (on_matrix_units) *on_matrix_units = matrix;
  return peak;
}

std::vector<GemmTileShape> GemmTileCandidates(const hw::Device& device,
                                              GemmTypes types) {
  bool matrix = true;
  GemmPeakTflops(device, types, &matrix);
  if (!matrix) return {{128, 128, 8}, {128, 64, 8}, {64, 64, 8}, {32, 32, 8}};
  int64_t element_bytes = 2;
  switch (types) {
    case GemmTypes::kFp8:
    case GemmTypes::kS8:
      element_bytes =
          device.tensor_tflops_fp8 > 0 || types == GemmTypes::kS8 ? 1 : 2;
      break;
    case GemmTypes::kTf32:
    case GemmTypes::kTf32x3:
      element_bytes = 4;
      break;
    case GemmTypes::kF64:
      element_bytes = 8;
      break;
    default:
      break;
  }
  // Hopper and Blackwell (and CDNA) stage 128 bytes of K per row through
  // TMA; Ampere's cp.async pipelines 64.
  const bool wide =
      device.compute_capability_major >= 9 || device.vendor != "nvidia";
  const int64_t tk = std::max<int64_t>(4, (wide ? 128 : 64) / element_bytes);
  std::vector<GemmTileShape> out;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{128, 256},
                      {256, 128},
                      {128, 128},
                      {128, 64},
                      {64, 128},
                      {64, 64}}) {
    out.push_back({m, n, tk});
  }
  if (device.vendor == "nvidia" && device.compute_capability_major >= 10) {
    out.push_back({256, 256, tk, 2});
  }
  return out;
}

GemmEstimate EstimateGemmTile(const GemmProblem& p, const hw::Device& device,
                              GemmTileShape tile, int64_t split_k,
                              double extra_bytes) {
  GemmEstimate e;
  e.tile = tile;
  e.split_k = split_k;
  const int64_t sms = std::max<int64_t>(1, device.sm_count);
  const double clock = device.clock_ghz > 0 ? device.clock_ghz : 1.5;
  const double efficiency = device.gemm_efficiency > 0 ? device.gemm_efficiency
                                                       : kDefaultGemmEfficiency;
  e.latency_us = device.gemm_latency_us > 0 ? device.gemm_latency_us
                                            : kDefaultGemmLatencyUs;
  e.peak_tflops = GemmPeakTflops(device, p.types);
  const double rate16 =
      device.peak_tflops_bf16 > 0 ? device.peak_tflops_bf16 : e.peak_tflops;
  // MACs per microsecond of one SM.
  const double macs =
      std::max(e.peak_tflops, 1e-9) * 1e6 / 2 / static_cast<double>(sms);
  const double macs16 =
      std::max(rate16, 1e-9) * 1e6 / 2 / static_cast<double>(sms);
  const int64_t tiles_m = GemmCeilDiv(p.m, tile.m),
                tiles_n = GemmCeilDiv(p.n, tile.n);
  e.tiles = SaturatingMul(
      SaturatingMul(SaturatingMul(p.batch, tiles_m), tiles_n), split_k);
  const int64_t span = std::max<int64_t>(1, tile.sms);
  e.waves = GemmCeilDiv(SaturatingMul(e.tiles, span), sms);
  const int64_t k_per_split = GemmCeilDiv(p.k, split_k);
  e.k_steps = GemmCeilDiv(k_per_split, tile.k);
  const double tm = static_cast<double>(tile.m),
               tn = static_cast<double>(tile.n),
               tk = static_cast<double>(tile.k);
  // One SM's share of a tile: its rows, and the operand rows it loads (an
  // SM pair splits A's rows and B's columns between its two SMs).
  const double share = static_cast<double>(span);
  const bool k_major_only =
      device.vendor == "nvidia" && device.compute_capability_major >= 9 &&
      (p.types == GemmTypes::kTf32 || p.types == GemmTypes::kTf32x3);
  const double mma_share = k_major_only && !(p.lhs_k_major && p.rhs_k_major)
                               ? kMmaSyncShareOfPeak
                               : 1;
  e.step_us = (tm / share * tn * tk / (macs * mma_share) +
               kOverheadMacsPerElement * (tm + tn) / share * tk / macs16) /
              efficiency * p.complex_factor;
  e.mainloop_us =
      static_cast<double>(e.waves) * static_cast<double>(e.k_steps) * e.step_us;
  const double waves = static_cast<double>(e.waves);
  e.fill_us = waves * kFillSteps * e.step_us;
  e.epilogue_us = waves * tm / share * tn * static_cast<double>(p.out_bytes) /
                  (kEpilogueBytesPerClock * clock * 1e3);
  const double bandwidth = std::max(device.dram_gbps, 1e-9) * 1e3;  // B/us
  const double l2_bandwidth = kGemmL2Speedup * bandwidth;
  if (split_k > 1) {
    // f32 partial tiles written and read back, from L2 when they fit.
    const double workspace =
        static_cast<double>(split_k) * static_cast<double>(p.batch) *
        static_cast<double>(p.m) * static_cast<double>(p.n) * 4;
    const bool fits = workspace <= static_cast<double>(device.l2_bytes);
    e.split_k_us =
        kSplitKReduceUs + 2 * workspace / (fits ? l2_bandwidth : bandwidth);
  }
  e.compute_us =
      e.latency_us + e.mainloop_us + e.fill_us + e.epilogue_us + e.split_k_us;
  // Operand traffic. Every tile streams its A and B panels through L2;
  // DRAM sees each operand once when both fit in L2 together, else each
  // wave's panels afresh (a wave covers a near-square block of tiles).
  const double b = static_cast<double>(p.batch), m = static_cast<double>(p.m),
               n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  const double a_bytes = b * m * k * static_cast<double>(p.lhs_bytes);
  const double b_bytes = b * k * n * static_cast<double>(p.rhs_bytes);
  const double c_bytes = b * m * n * static_cast<double>(p.out_bytes);
  const double panel_k = static_cast<double>(k_per_split);
  // Hopper and Blackwell GEMMs run 2-CTA clusters that multicast the
  // right-hand panel to both CTAs (TMA multicast): half its L2 reads.
  const double multicast =
      device.vendor == "nvidia" && device.compute_capability_major >= 9 ? 2 : 1;
  e.l2_bytes = static_cast<double>(e.tiles) * panel_k *
               (std::min(tm, m) * static_cast<double>(p.lhs_bytes) +
                std::min(tn, n) * static_cast<double>(p.rhs_bytes) / multicast);
  double reads = a_bytes + b_bytes;
  if (reads > static_cast<double>(device.l2_bytes)) {
    const int64_t per_wave =
        std::min(e.tiles, std::max<int64_t>(1, sms / span));
    const int64_t rows = std::min<int64_t>(
        tiles_m, static_cast<int64_t>(
                     std::ceil(std::sqrt(static_cast<double>(per_wave)))));
    const int64_t cols =
        std::min<int64_t>(tiles_n, GemmCeilDiv(per_wave, rows));
    const double panels =
        k * (static_cast<double>(rows) * tm * static_cast<double>(p.lhs_bytes) +
             static_cast<double>(cols) * tn * static_cast<double>(p.rhs_bytes));
    reads = std::max(reads, static_cast<double>(e.waves) * panels);
  }
  e.dram_bytes = reads + c_bytes + extra_bytes;
  e.memory_us = e.latency_us +
                std::max(e.dram_bytes / bandwidth, e.l2_bytes / l2_bandwidth);
  e.time_us = std::max(e.compute_us, e.memory_us);
  if (e.memory_us > e.compute_us) {
    e.bound = "memory";
  } else if (e.compute_us - e.mainloop_us > e.mainloop_us) {
    e.bound = "latency";
  } else {
    e.bound = "compute";
  }
  return e;
}

std::optional<double> InterpolateGemmTable(const hw::Device& device,
                                           const GemmProblem& p, int* rows) {
  const std::string key = GemmTypesName(p.types);
  std::vector<std::pair<double, double>> near;  // (distance^2, tflops)
  auto lg = [](int64_t v) {
    return std::log2(static_cast<double>(std::max<int64_t>(1, v)));
  };
  for (const hw::GemmTableEntry& r : device.gemm_table) {
    if (r.types != key || !(r.tflops > 0)) continue;
    const double d[] = {lg(r.batch) - lg(p.batch), lg(r.m) - lg(p.m),
                        lg(r.n) - lg(p.n), lg(r.k) - lg(p.k)};
    near.emplace_back(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3],
                      r.tflops);
  }
  if (rows) *rows = 0;
  if (near.empty()) return std::nullopt;
  std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  if (near.size() > kTableNeighbours) near.resize(kTableNeighbours);
  // A row of the very shape: the mean of those rows.
  double exact = 0;
  int exact_rows = 0;
  for (const auto& [d2, tflops] : near) {
    if (d2 < 1e-12) {
      exact += tflops;
      ++exact_rows;
    }
  }
  if (exact_rows > 0) {
    if (rows) *rows = exact_rows;
    return exact / exact_rows;
  }
  double weights = 0, sum = 0;
  for (const auto& [d2, tflops] : near) {
    weights += 1 / d2;
    sum += tflops / d2;
  }
  if (rows) *rows = static_cast<int>(near.size());
  return sum / weights;
}

GemmEstimate EstimateGemm(const GemmProblem& p, const hw::Device& device,
                          double extra_bytes) {
  const int64_t sms = std::max<int64_t>(1, device.sm_count);
  std::optional<GemmEstimate> best;
  for (const GemmTileShape& tile : GemmTileCandidates(device, p.types)) {
    auto consider = [&](int64_t split) {
      GemmEstimate e = EstimateGemmTile(p, device, tile, split, extra_bytes);
      if (!best || e.time_us < best->time_us) best = e;
    };
    consider(1);
    // Split-K where the output tiles leave SMs idle and each split keeps
    // at least four k-steps.
    const int64_t output_tiles =
        SaturatingMul(SaturatingMul(p.batch, GemmCeilDiv(p.m, tile.m)),
                      GemmCeilDiv(p.n, tile.n));
    for (int64_t split : kSplitKFactors) {
      if (SaturatingMul(output_tiles, std::max<int64_t>(1, tile.sms)) >= sms ||
          GemmCeilDiv(p.k, tile.k) < 4 * split) {
        break;
      }
      consider(split);
    }
  }
  GemmEstimate e = *best;
  int rows = 0;
  if (std::optional<double> tflops = InterpolateGemmTable(device, p, &rows)) {
    e.table_tflops = *tflops;
    e.table_rows = rows;
    e.model_time_us = e.time_us;
    e.time_us = p.Flops() / (*tflops * 1e6);
    e.bound = "measured";
  }
  return e;
}

GemmEpilogue LibraryGemmEpilogue(const hlo::Instruction& instr,
                                 const hw::Device& device) {
  GemmEpilogue out;
  if (hlo::GetLibraryCallKind(instr) != hlo::LibraryCallKind::kCublasGemm) {
    return out;
  }
  const std::string config = instr.Attribute("backend_config");
  // "epilogue":"BIAS" (or with escaped quotes in the string form).
  const size_t key = config.find("epilogue");
  if (key == std::string::npos) return out;
  // The value: the next quoted word after the colon.
  size_t start = config.find(':', key);
  if (start == std::string::npos) return out;
  start = config.find_first_not_of(" :\\\"", start);
  if (start == std::string::npos) return out;
  size_t end = start;
  while (end < config.size() &&
         (std::isalnum(static_cast<unsigned char>(config[end])) ||
          config[end] == '_')) {
    ++end;
  }
  const std::string name = config.substr(start, end - start);
  if (name.empty() || name == "DEFAULT") return out;
  out.name = name;
  auto has = [&](std::string_view part) {
    return name.find(part) != std::string::npos;
  };
  if (has("BIAS")) out.slots_per_element += 1;
  if (has("RELU")) out.slots_per_element += 1;
  if (has("GELU"))
    out.slots_per_element += hw::IssueSlots(device, "tanh", "f32") + 6;
  if (has("SILU")) {
    out.slots_per_element += hw::IssueSlots(device, "logistic", "f32") + 1;
  }
  out.aux = has("AUX");
  return out;
}

std::vector<std::string> GemmNotes(const GemmProblem& p,
                                   const GemmEstimate& e) {
  std::vector<std::string> notes;
  notes.push_back("GEMM: " + p.source + " of batch " + std::to_string(p.batch) +
                  ", m " + std::to_string(p.m) + ", n " + std::to_string(p.n) +
                  ", k " + std::to_string(p.k) + " in " +
                  GemmTypesName(p.types) + " at a peak of " +
                  FormatGemmNumber(e.peak_tflops) + " TFLOP/s");
  notes.push_back(
      "GEMM tile " + std::to_string(e.tile.m) + "x" + std::to_string(e.tile.n) +
      "x" + std::to_string(e.tile.k) +
      (e.tile.sms > 1 ? " over " + std::to_string(e.tile.sms) + " SMs" : "") +
      (e.split_k > 1 ? ", split-K " + std::to_string(e.split_k) : "") + ": " +
      std::to_string(e.tiles) + " tiles in " + std::to_string(e.waves) +
      " wave(s), " + std::to_string(e.k_steps) + " k-steps of " +
      FormatGemmNumber(e.step_us) + " us");
  notes.push_back(
      "GEMM bound: " + e.bound + "; compute " + FormatGemmNumber(e.compute_us) +
      " us (main loop " + FormatGemmNumber(e.mainloop_us) + ", fill " +
      FormatGemmNumber(e.fill_us) + ", epilogue " +
      FormatGemmNumber(e.epilogue_us) +
      (e.split_k > 1 ? ", split-K reduction " + FormatGemmNumber(e.split_k_us)
                     : "") +
      ", latency " + FormatGemmNumber(e.latency_us) + "), memory " +
      FormatGemmNumber(e.memory_us) + " us (" + FormatGemmNumber(e.dram_bytes) +
      " DRAM bytes, " + FormatGemmNumber(e.l2_bytes) + " L2 bytes); " +
      FormatGemmNumber(e.Tflops(p)) + " TFLOP/s");
  if (e.table_tflops) {
    notes.push_back("GEMM throughput from the device's gemm_table: " +
                    FormatGemmNumber(*e.table_tflops) + " TFLOP/s from " +
                    std::to_string(e.table_rows) + " row(s) (the model: " +
                    FormatGemmNumber(e.model_time_us) + " us)");
  }
  return notes;
}

}  // namespace ixa
