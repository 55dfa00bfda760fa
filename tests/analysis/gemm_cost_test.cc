// The GEMM model of the ixa cost model (analysis/uses/gemm_cost.h): its
// terms worked out by hand on the H100 (132 SMs, bf16 989 TFLOP/s dense,
// 3352.32 GB/s, 50 MiB L2, 1.98 GHz, gemm_efficiency 0.88, latency
// 2.5 us), the library's tile pick, monotonicity, the type pairs, the
// implicit GEMM of a convolution, and a measured gemm_table.
#include "analysis/uses/gemm_cost.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/hlo/custom_calls.h"
#include "analysis/uses/fusion_cost.h"
#include "hw/device_fields.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

GemmProblem Square(int64_t size, GemmTypes types, int64_t bytes,
                   int64_t batch = 1) {
  GemmProblem p;
  p.batch = batch;
  p.m = p.n = p.k = size;
  p.types = types;
  p.lhs_bytes = p.rhs_bytes = p.out_bytes = bytes;
  p.source = "dot";
  return p;
}

const hw::Device& H100() {
  static const hw::Device d = *hw::FindDevice("h100");
  return d;
}

// The GEMM problem of the root of `hlo`'s entry computation.
GemmProblem ProblemOfRoot(const std::string& hlo) {
  auto module = ParseOrDie(hlo);
  auto p = GemmProblemOf(*module->entry()->root());
  REQUIRE(p.has_value());
  return *p;
}

TEST_CASE("gemm: the terms of a 4096^3 bf16 GEMM on h100", "[uses][gemm]") {
  const GemmProblem p = Square(4096, GemmTypes::kBf16, 2);
  const GemmEstimate e = EstimateGemmTile(p, H100(), {128, 256, 64}, 1);
  // One SM does 989e6 / 2 / 132 = 3746212.1 MACs per us. A k-step of
  // 128x256x64 is 2097152 MACs plus 16 * (128 + 256) * 64 = 393216 of
  // operand overhead: 2490368 / 3746212.1 / 0.88 = 0.755424 us.
  CHECK(e.step_us == Approx(0.755424).epsilon(1e-5));
  // 32 x 16 = 512 tiles over 132 SMs: 4 waves of 4096 / 64 = 64 steps.
  CHECK(e.tiles == 512);
  CHECK(e.waves == 4);
  CHECK(e.k_steps == 64);
  CHECK(e.mainloop_us == Approx(256 * 0.755424).epsilon(1e-5));
  // Per wave, 2 steps of fill and a tile's epilogue: 128 * 256 * 2 bytes
  // at 64 B x 1.98 GHz = 65536 / 126720 = 0.51717 us. Latency 2.5 us.
  CHECK(e.fill_us == Approx(4 * 2 * 0.755424).epsilon(1e-5));
  CHECK(e.epilogue_us == Approx(4 * 0.517172).epsilon(1e-5));
  CHECK(e.compute_us ==
        Approx(2.5 + 264 * 0.755424 + 4 * 0.517172).epsilon(1e-5));  // 204.0
  // A + B = 64 MiB exceed the 50 MiB L2: each wave of 132 tiles (12 rows
  // x 11 columns of tiles) reads its panels afresh, 4096 * (12 * 128 * 2
  // + 11 * 256 * 2) = 35651584 bytes, 4 waves = 142606336 > 64 MiB; plus
  // the 32 MiB result. L2: 512 tiles * 4096 * (128 * 2 + 256 * 2 / 2)
  // (the right panel multicast to a 2-CTA cluster) = 1073741824 bytes
  // at 2 x 3352.32 GB/s = 160.15 us, more than DRAM's 52.55 us.
  CHECK(e.dram_bytes == Approx(142606336.0 + 33554432.0));
  CHECK(e.l2_bytes == Approx(1073741824.0));
  CHECK(e.memory_us == Approx(2.5 + 1073741824.0 / 6704640).epsilon(1e-6));
  CHECK(e.bound == "compute");
  CHECK(e.time_us == Approx(e.compute_us));
  // The library's pick is this tile (256x128 ties, 128x128 needs 8
  // waves of cheaper but less efficient steps): ~674 TFLOP/s, 68% of
  // the peak, what cuBLAS reaches on an H100 SXM.
  const GemmEstimate pick = EstimateGemm(p, H100());
  CHECK(pick.tile.m == 128);
  CHECK(pick.tile.n == 256);
  CHECK(pick.split_k == 1);
  CHECK(pick.Tflops(p) == Approx(673.7).epsilon(0.002));
  const auto notes = GemmNotes(p, pick);
  REQUIRE(notes.size() == 3);
  CHECK(notes[1].find("tile 128x256x64: 512 tiles in 4 wave(s)") !=
        std::string::npos);
  CHECK(notes[2].find("GEMM bound: compute") != std::string::npos);
}

TEST_CASE("gemm: Blackwell's 2-SM tile", "[uses][gemm]") {
  const hw::Device b200 = *hw::FindDevice("b200");
  const GemmProblem p = Square(4096, GemmTypes::kFp8, 1);
  const GemmEstimate e = EstimateGemmTile(p, b200, {256, 256, 128, 2}, 1);
  // One SM of 148 does 4500e6 / 2 / 148 = 15202702.7 fp8 MACs per us
  // (7601351.4 at the 16-bit rate). Each SM of a pair computes 128 of
  // the 256 rows and loads half the 512 operand rows: (128 * 256 * 128)
  // / 15202702.7 + 16 * 256 * 128 / 7601351.4 = 0.275893 + 0.068973,
  // over 0.82 = 0.420568 us a step.
  CHECK(e.step_us == Approx(0.420568).epsilon(1e-5));
  // 16 x 16 = 256 tiles on 512 SMs' worth: 4 waves of 148 SMs.
  CHECK(e.tiles == 256);
  CHECK(e.waves == 4);
  CHECK(e.k_steps == 32);
  // The library's pick for a large fp8 GEMM on B200 is the pair tile.
  const GemmEstimate pick = EstimateGemm(p, b200);
  CHECK(pick.tile.sms == 2);
  CHECK(GemmNotes(p, pick)[1].find("256x256x128 over 2 SMs") !=
        std::string::npos);
  // Hopper has no such tile.
  for (const GemmTileShape& t : GemmTileCandidates(H100(), GemmTypes::kFp8)) {
    CHECK(t.sms == 1);
  }
}

TEST_CASE("gemm: the batched 16x512x64 . 16x64x512 bf16 example",
          "[uses][gemm]") {
  GemmProblem p = ProblemOfRoot(R"(
    ENTRY e {
      a = bf16[16,512,64] parameter(0)
      b = bf16[16,64,512] parameter(1)
      ROOT d = bf16[16,512,512] dot(a, b), lhs_batch_dims={0},
          lhs_contracting_dims={2}, rhs_batch_dims={0},
          rhs_contracting_dims={1}
    })");
  CHECK(p.batch == 16);
  CHECK(p.m == 512);
  CHECK(p.n == 512);
  CHECK(p.k == 64);
  CHECK(p.types == GemmTypes::kBf16);
  const GemmEstimate e = EstimateGemm(p, H100());
  // 2 * 16 * 512^3 / 8 = 536870912 flops, one k-step per tile. The
  // operands are 1 MiB each, the result 8 MiB: 10485760 bytes at
  // 3352.32 GB/s = 3.1279 us, plus the 2.5 us latency = 5.6279 us. The
  // tensor path of the first candidate is shorter (128x256: 128 tiles,
  // 1 wave, 1 + 2 steps of 0.7554 + 0.517 + 2.5 = 5.28 us): memory bound,
  // and the first candidate, 128x256, is kept. (64x64: 1024 tiles, 8
  // waves of one step of (262144 + 131072) / 3746212.1 / 0.88 = 0.119277
  // us, each with 2 steps of fill and a 0.0647 us epilogue: 5.88 us.)
  CHECK(e.bound == "memory");
  CHECK(e.time_us == Approx(2.5 + 10485760.0 / 3352320).epsilon(1e-6));
  CHECK(e.tile.m == 128);
  CHECK(e.waves == 1);
  CHECK(e.Tflops(p) == Approx(536870912.0 / 5.62794 / 1e6).epsilon(1e-4));
  const GemmEstimate small = EstimateGemmTile(p, H100(), {64, 64, 64}, 1);
  CHECK(small.compute_us ==
        Approx(2.5 + 24 * 0.119277 + 8 * 64 * 64 * 2 / 126720.0).epsilon(1e-4));
}

TEST_CASE("gemm: more k, more time; small GEMMs are latency bound",
          "[uses][gemm]") {
  for (const char* name : {"h100", "b200", "a100_40", "rtx_a6000"}) {
    const hw::Device d = *hw::FindDevice(name);
    for (GemmTypes t : {GemmTypes::kBf16, GemmTypes::kTf32, GemmTypes::kFp8,
                        GemmTypes::kF32, GemmTypes::kF64}) {
      INFO(name << " " << GemmTypesName(t));
      double last = 0;
      for (int64_t k = 256; k <= 8192; k *= 2) {
        GemmProblem p = Square(1024, t, 2);
        p.k = k;
        const double time = EstimateGemm(p, d).time_us;
        CHECK(time > last);
        last = time;
      }
      // More batches or rows take longer too.
      GemmProblem small = Square(1024, t, 2), large = Square(1024, t, 2, 4);
      CHECK(EstimateGemm(large, d).time_us > EstimateGemm(small, d).time_us);
    }
  }
  // The largest shapes HLO allows (9e18 elements a tensor): a time,
  // finite and positive.
  GemmProblem huge = ProblemOfRoot(R"(
    ENTRY e {
      a = bf16[3000000000,3000000000] parameter(0)
      b = bf16[3000000000,3000000000] parameter(1)
      ROOT d = bf16[3000000000,3000000000] dot(a, b),
          lhs_contracting_dims={1}, rhs_contracting_dims={0}
    })");
  const GemmEstimate big = EstimateGemm(huge, H100());
  CHECK(std::isfinite(big.time_us));
  CHECK(big.time_us > 1e9);
  // 256^3 in bf16: 4 tiles of one step; the fixed 2.5 us dominate.
  const GemmEstimate tiny =
      EstimateGemm(Square(256, GemmTypes::kBf16, 2), H100());
  CHECK(tiny.bound == "latency");
  CHECK(tiny.time_us > 2.5);
  CHECK(tiny.time_us < 4);
}

TEST_CASE("gemm: type pairs run at their own rates", "[uses][gemm]") {
  for (const char* name : {"h100", "b200"}) {
    const hw::Device d = *hw::FindDevice(name);
    INFO(name);
    auto tflops = [&](GemmTypes t, int64_t bytes) {
      GemmProblem p = Square(4096, t, bytes);
      return EstimateGemm(p, d).Tflops(p);
    };
    const double bf16 = tflops(GemmTypes::kBf16, 2);
    const double fp8 = tflops(GemmTypes::kFp8, 1);
    const double tf32 = tflops(GemmTypes::kTf32, 4);
    const double f32 = tflops(GemmTypes::kF32, 4);
    // fp8 doubles the 16-bit rate but keeps less of it (the operand
    // overhead per element does not halve): between 1.5x and 2x.
    CHECK(fp8 / bf16 > 1.5);
    CHECK(fp8 / bf16 < 2);
    // TF32 is half the 16-bit rate and keeps more of it.
    CHECK(tf32 / bf16 > 0.5);
    CHECK(tf32 / bf16 < 0.6);
    // Full f32 (precision HIGHEST) runs on the CUDA cores.
    CHECK(f32 < d.peak_tflops_fp32);
    CHECK(f32 > 0.6 * d.peak_tflops_fp32);
    // f16 is bf16's rate.
    CHECK(tflops(GemmTypes::kF16, 2) == Approx(bf16));
    // Large bf16 GEMMs: 58-68% of the peak (cuBLAS reaches 60-80%).
    CHECK(bf16 / d.peak_tflops_bf16 > 0.55);
    CHECK(bf16 / d.peak_tflops_bf16 < 0.8);
  }
  // A TF32 operand that is not K-major (the [k, n] row-major right side
  // of a plain dot) keeps Hopper off wgmma: 65% of the peak's MAC rate.
  {
    GemmProblem nn = Square(4096, GemmTypes::kTf32, 4);
    nn.rhs_k_major = false;
    const GemmProblem tn = Square(4096, GemmTypes::kTf32, 4);
    const GemmEstimate slow = EstimateGemmTile(nn, H100(), {128, 256, 32}, 1);
    const GemmEstimate fast = EstimateGemmTile(tn, H100(), {128, 256, 32}, 1);
    // MMA part 128 * 256 * 32 / 1873863.6 = 0.559581 us, overhead
    // 16 * 384 * 32 / 3746212.1 = 0.052482 us; over 0.88.
    CHECK(fast.step_us == Approx((0.559581 + 0.052482) / 0.88).epsilon(1e-5));
    CHECK(slow.step_us ==
          Approx((0.559581 / 0.65 + 0.052482) / 0.88).epsilon(1e-5));
    // bf16 has the transpose flag: no such cost.
    GemmProblem bf16 = Square(4096, GemmTypes::kBf16, 2);
    bf16.rhs_k_major = false;
    CHECK(EstimateGemm(bf16, H100()).time_us ==
          Approx(
              EstimateGemm(Square(4096, GemmTypes::kBf16, 2), H100()).time_us));
  }
  // An A100 has no fp8 units: fp8 runs at the bf16 rate there.
  const hw::Device a100 = *hw::FindDevice("a100_40");
  CHECK(GemmPeakTflops(a100, GemmTypes::kFp8) == 312);
  bool matrix = true;
  CHECK(GemmPeakTflops(*hw::FindDevice("rtx_a6000"), GemmTypes::kF64,
                       &matrix) == Approx(38.7 / 64));
  CHECK_FALSE(matrix);
}

TEST_CASE("gemm: the type pair of a dot follows its precision",
          "[uses][gemm]") {
  const std::string f32 = R"(
    ENTRY e {
      a = f32[256,512] parameter(0)
      b = f32[512,128] parameter(1)
      ROOT d = f32[256,128] dot(a, b), lhs_contracting_dims={1},
          rhs_contracting_dims={0}PRECISION
    })";
  auto with = [&](const std::string& precision) {
    std::string text = f32;
    text.replace(text.find("PRECISION"), 9, precision);
    return ProblemOfRoot(text).types;
  };
  CHECK(with("") == GemmTypes::kTf32);
  CHECK(with(", operand_precision={highest,highest}") == GemmTypes::kF32);
  CHECK(with(", algorithm=dot_tf32_tf32_f32_x3") == GemmTypes::kTf32x3);
  GemmProblem fp8 = ProblemOfRoot(R"(
    ENTRY e {
      a = f8e4m3fn[256,512] parameter(0)
      b = f8e5m2[512,128] parameter(1)
      ROOT d = bf16[256,128] dot(a, b), lhs_contracting_dims={1},
          rhs_contracting_dims={0}
    })");
  CHECK(fp8.types == GemmTypes::kFp8);
  // [m, k] row-major is K-major, [k, n] row-major is not.
  CHECK(fp8.lhs_k_major);
  CHECK_FALSE(fp8.rhs_k_major);
  CHECK(fp8.lhs_bytes == 1);
  CHECK(fp8.out_bytes == 2);
  // A cuBLAS call: its dot, with the call's precision config.
  GemmProblem call = ProblemOfRoot(R"(
    ENTRY e {
      a = f32[256,512] parameter(0)
      b = f32[512,128] parameter(1)
      ROOT g = (f32[256,128], s8[4194304]) custom-call(a, b),
          custom_call_target="__cublas$gemm",
          backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"precision_config":{"operand_precision":["HIGHEST","HIGHEST"]}}}
    })");
  CHECK(call.m == 256);
  CHECK(call.n == 128);
  CHECK(call.k == 512);
  CHECK(call.types == GemmTypes::kF32);
  CHECK(call.source.find("__cublas$gemm") != std::string::npos);
}

TEST_CASE("gemm: a convolution is an implicit GEMM", "[uses][gemm]") {
  // M = batch x output spatial = 8 * 32 * 32 = 8192, N = 128 output
  // features, K = 64 input features x a 3x3 window = 576.
  GemmProblem p = ProblemOfRoot(R"(
    ENTRY e {
      x = bf16[8,32,32,64] parameter(0)
      w = bf16[3,3,64,128] parameter(1)
      ROOT c = bf16[8,32,32,128] convolution(x, w),
          window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
    })");
  CHECK(p.batch == 1);
  CHECK(p.m == 8192);
  CHECK(p.n == 128);
  CHECK(p.k == 576);
  CHECK(p.source == "convolution as an implicit GEMM");
  // Two feature groups: two GEMMs of 64 outputs over 32 x 9 = 288.
  GemmProblem g = ProblemOfRoot(R"(
    ENTRY e {
      x = bf16[8,32,32,64] parameter(0)
      w = bf16[3,3,32,128] parameter(1)
      ROOT c = bf16[8,32,32,128] convolution(x, w),
          window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f,
          feature_group_count=2
    })");
  CHECK(g.batch == 2);
  CHECK(g.n == 64);
  CHECK(g.k == 288);
  CHECK(g.m == 8192);
  // A forward cuDNN call computes the same implicit GEMM.
  GemmProblem call = ProblemOfRoot(R"(
    ENTRY e {
      x = bf16[8,32,32,64] parameter(0)
      w = bf16[3,3,64,128] parameter(1)
      ROOT c = (bf16[8,32,32,128], u8[0]) custom-call(x, w),
          window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f,
          custom_call_target="__cudnn$convForward"
    })");
  CHECK(call.m == 8192);
  CHECK(call.n == 128);
  CHECK(call.k == 576);
  CHECK(call.source == "__cudnn$convForward (convolution as an implicit GEMM)");
  // Its time: 8192 x 128 x 576 at bf16 on H100 through the model.
  const GemmEstimate e = EstimateGemm(call, H100());
  CHECK(e.time_us > 2.5);
  CHECK(e.Tflops(call) < 989);
}

TEST_CASE("gemm: a measured gemm_table replaces the efficiency estimate",
          "[uses][gemm]") {
  hw::Device d = H100();
  d.gemm_table = {{"bf16", 1, 1024, 1024, 1024, 500},
                  {"bf16", 1, 2048, 2048, 2048, 650},
                  {"fp8", 1, 1024, 1024, 1024, 900}};
  GemmProblem p = Square(1024, GemmTypes::kBf16, 2);
  GemmEstimate e = EstimateGemm(p, d);
  // The very shape: 2 * 1024^3 flops at 500 TFLOP/s = 4.295 us.
  REQUIRE(e.table_tflops.has_value());
  CHECK(*e.table_tflops == 500);
  CHECK(e.table_rows == 1);
  CHECK(e.bound == "measured");
  CHECK(e.time_us == Approx(2147483648.0 / 500e6));
  // The model's own time is kept beside it.
  CHECK(e.model_time_us == Approx(EstimateGemm(p, H100()).time_us));
  // Halfway in log2 (1448 is 2^10.5): both rows at the same distance,
  // their mean. (The fp8 row is another type pair.)
  GemmProblem mid = Square(1448, GemmTypes::kBf16, 2);
  int rows = 0;
  auto t = InterpolateGemmTable(d, mid, &rows);
  REQUIRE(t.has_value());
  CHECK(rows == 2);
  CHECK(*t == Approx(575).epsilon(0.01));
  // Nearer the larger row, nearer its throughput.
  GemmProblem near_large = Square(1900, GemmTypes::kBf16, 2);
  CHECK(*InterpolateGemmTable(d, near_large) > 600);
  // No tf32 rows: the model answers.
  GemmProblem tf32 = Square(1024, GemmTypes::kTf32, 4);
  CHECK_FALSE(InterpolateGemmTable(d, tf32).has_value());
  CHECK_FALSE(EstimateGemm(tf32, d).table_tflops.has_value());
  CHECK(EstimateGemm(tf32, d).bound != "measured");
  // Every type pair the model names is a key a table may use.
  for (GemmTypes t :
       {GemmTypes::kBf16, GemmTypes::kF16, GemmTypes::kTf32, GemmTypes::kTf32x3,
        GemmTypes::kF32, GemmTypes::kFp8, GemmTypes::kF64, GemmTypes::kS8}) {
    const auto keys = hw::GemmTypeKeys();
    CHECK(std::find(keys.begin(), keys.end(), GemmTypesName(t)) != keys.end());
  }
}

FusionCost IxaCost(const std::string& hlo, const hw::Device& device) {
  auto module = ParseOrDie(hlo);
  ExprContext ctx;
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto cost = EstimateFusionCost(*region, device, CostOptions(), &ctx);
  INFO((cost.ok() ? "" : cost.error().ToString()));
  REQUIRE(cost.ok());
  return *cost;
}

bool HasNote(const FusionCost& cost, const std::string& text) {
  for (const std::string& n : cost.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("gemm: fusion_cost of dots, library calls and Triton fusions",
          "[uses][gemm]") {
  const std::string dot = R"(
    ENTRY e {
      a = bf16[1024,1024] parameter(0)
      b = bf16[1024,1024] parameter(1)
      ROOT d = bf16[1024,1024] dot(a, b), lhs_contracting_dims={1},
          rhs_contracting_dims={0}
    })";
  const FusionCost lone = IxaCost(dot, H100());
  GemmProblem p = Square(1024, GemmTypes::kBf16, 2);
  const GemmEstimate e = EstimateGemm(p, H100());
  CHECK(lone.exec_us == Approx(e.time_us));
  CHECK(lone.time_us == lone.exec_us);
  CHECK(HasNote(lone, "GEMM tile "));
  CHECK(HasNote(lone, "GEMM bound: "));
  // The same dot through cuBLAS costs the same.
  const FusionCost call = IxaCost(R"(
    ENTRY e {
      a = bf16[1024,1024] parameter(0)
      b = bf16[1024,1024] parameter(1)
      ROOT g = (bf16[1024,1024], s8[1048576]) custom-call(a, b),
          custom_call_target="__cublas$gemm",
          backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
    })",
                                  H100());
  CHECK(call.exec_us == Approx(e.time_us));
  // A cuBLASLt call with a bias + GELU epilogue and its auxiliary output:
  // the bias read (2 KiB), the 2 MiB aux output written and the epilogue's
  // work per element on top.
  const FusionCost lt = IxaCost(R"(
    ENTRY e {
      a = bf16[1024,1024] parameter(0)
      b = bf16[1024,1024] parameter(1)
      bias = bf16[1024] parameter(2)
      ROOT g = (bf16[1024,1024], bf16[1024,1024], s8[1048576]) custom-call(a, b, bias),
          custom_call_target="__cublas$lt$matmul",
          backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"BIAS_GELU_AUX"}}
    })",
                                H100());
  CHECK(lt.exec_us > e.time_us);
  CHECK(HasNote(lt, "cuBLASLt epilogue BIAS_GELU_AUX"));
  CHECK(HasNote(lt, "auxiliary output of 2.097e+06 bytes"));
  {
    auto module = ParseOrDie(R"(
      ENTRY e {
        a = bf16[64,64] parameter(0)
        b = bf16[64,64] parameter(1)
        ROOT g = (bf16[64,64], s8[16]) custom-call(a, b),
            custom_call_target="__cublas$lt$matmul",
            backend_config={"gemm_backend_config":{"epilogue":"RELU"}}
      })");
    const GemmEpilogue relu =
        LibraryGemmEpilogue(*module->entry()->root(), H100());
    CHECK(relu.name == "RELU");
    CHECK(relu.slots_per_element == 1);
    CHECK_FALSE(relu.aux);
  }
  // A Triton GEMM fusion: an f8 -> bf16 convert on the left operand (a
  // prologue, re-done for each of the 1024 / TN columns of tiles) and a
  // bias add (an epilogue) cost on top of the GEMM, and the bias is read.
  const FusionCost triton = IxaCost(R"(
    gemm {
      a = f8e4m3fn[1024,1024] parameter(0)
      b = bf16[1024,1024] parameter(1)
      bias = bf16[1024,1024] parameter(2)
      ca = bf16[1024,1024] convert(a)
      d = bf16[1024,1024] dot(ca, b), lhs_contracting_dims={1},
          rhs_contracting_dims={0}
      ROOT r = bf16[1024,1024] add(d, bias)
    }
    ENTRY e {
      a = f8e4m3fn[1024,1024] parameter(0)
      b = bf16[1024,1024] parameter(1)
      bias = bf16[1024,1024] parameter(2)
      ROOT f = bf16[1024,1024] fusion(a, b, bias), kind=kCustom, calls=gemm,
          backend_config={"fusion_backend_config":{"kind":"__triton_gemm"}}
    })",
                                    H100());
  CHECK(triton.exec_us > e.time_us);
  CHECK(HasNote(triton, "the fused prologue and epilogue"));
  CHECK(HasNote(triton, "GEMM tile "));
  // The xla model stays XLA's: no GEMM notes.
  auto module = ParseOrDie(dot);
  ExprContext ctx;
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  CostOptions xla;
  xla.model = CostModel::kXla;
  auto x = EstimateFusionCost(*region, H100(), xla, &ctx);
  REQUIRE(x.ok());
  CHECK_FALSE(HasNote(*x, "GEMM"));
}

// What a GEMM call computes around its dot (analysis/hlo/custom_calls.h):
// alpha and beta with C as operand 2, the bias after it, the activation
// and the auxiliary output from the epilogue, and what it cannot say.
TEST_CASE("gemm: a GEMM call's semantics from its backend config",
          "[uses][gemm]") {
  auto semantics = [](const std::string& operands, const std::string& result,
                      const std::string& config,
                      const std::string& target = "__cublas$lt$matmul") {
    auto module = ParseOrDie(
        "ENTRY e {\n  a = f32[4,6] parameter(0)\n  b = f32[6,3] "
        "parameter(1)\n  c = f32[4,3] parameter(2)\n  v = f32[3] "
        "parameter(3)\n  ROOT g = " +
        result + " custom-call(" + operands + "), custom_call_target=\"" +
        target +
        "\", backend_config={\"gemm_backend_config\":{\"dot_dimension_"
        "numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_"
        "contracting_dimensions\":[\"0\"]}," +
        config + "}}\n}\n");
    return *hlo::GemmCallSemanticsOf(*module->entry()->root());
  };
  using Activation = hlo::GemmCallSemantics::Activation;
  const std::string plain_result = "(f32[4,3], s8[16])";
  auto plain = semantics("a, b", plain_result, R"("epilogue":"DEFAULT")");
  CHECK(plain.unsupported.empty());
  CHECK(plain.alpha == 1);
  CHECK(plain.c_operand == -1);
  CHECK(plain.bias_operand == -1);
  auto scaled =
      semantics("a, b, c, v", plain_result,
                R"("alpha_real":0.5,"beta":2,"epilogue":"BIAS_GELU")");
  CHECK(scaled.unsupported.empty());
  CHECK(scaled.alpha == 0.5);
  CHECK(scaled.beta == 2);
  CHECK(scaled.c_operand == 2);
  CHECK(scaled.bias_operand == 3);
  CHECK(scaled.activation == Activation::kGelu);
  CHECK_FALSE(scaled.aux);
  auto aux = semantics("a, b", "(f32[4,3], f32[4,3], s8[16])",
                       R"("epilogue":"GELU_AUX")");
  CHECK(aux.unsupported.empty());
  CHECK(aux.aux);
  CHECK(semantics("a, b, v", plain_result, R"("epilogue":"BIAS_SILU")")
            .activation == Activation::kSilu);
  CHECK(semantics("a, b", plain_result, R"("epilogue":"RELU")").activation ==
        Activation::kRelu);
  // Beyond plain ops: an operand beta does not ask for, a bias that is not
  // a vector along the last dim, an unknown epilogue, f8 scales.
  CHECK_FALSE(
      semantics("a, b, c", plain_result, R"("beta":0)").unsupported.empty());
  CHECK_FALSE(semantics("a, b, c", plain_result, R"("epilogue":"BIAS")")
                  .unsupported.empty());
  CHECK(semantics("a, b", plain_result, R"("epilogue":"RELU_AUX")")
            .unsupported.find("RELU_AUX") != std::string::npos);
  CHECK(semantics("a, b", plain_result, "", "__cublas$lt$matmul$f8")
            .unsupported == "f8 scale operands");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
