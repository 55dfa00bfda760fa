// The GEMM emitter of the cuda target (emit/emitters/gemm.h): dot fusions
// of every dimension order, batch dims, ragged edges, fused producers and
// epilogues, bf16 / f16 on tensor cores (WMMA, emulated by the CPU model's
// mma.h) and f32 / f64 / s8 with FMA, run in the CPU model of CUDA in
// several thread orders against the reference interpreter.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_interpreter.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

// One dot fusion: [batch..., m, k] . [batch..., k, n] with the operands'
// dims in the order the flags say.
struct GemmShape {
  std::string label;
  std::string in_type = "bf16", out_type = "f32";
  std::vector<int64_t> batch;
  int64_t m = 1, n = 1, k = 1;
  bool lhs_k_major = false;  // lhs [.., k, m]
  bool rhs_n_major = false;  // rhs [.., n, k]
  bool batch_inner = false;  // lhs [m, batch..., k]: batch dims mid-operand
  std::string lhs_layout;    // e.g. "{0,1}" (default: row-major)
  bool convert_prologue = false;  // lhs read as f32, converted to in_type
  // 0: the dot is the root; 1: + bias[n], maximum(0); 2: tanh, to bf16.
  int epilogue = 0;
  std::string out_layout;  // the root's layout (default: row-major)
};

std::string DimsText(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) {
    s += (i ? "," : "") + std::to_string(d[i]);
  }
  return s;
}

std::string ListText(const std::vector<int64_t>& d) {
  return "{" + DimsText(d) + "}";
}

std::string GemmHlo(const GemmShape& g) {
  const int64_t nb = static_cast<int64_t>(g.batch.size());
  std::vector<int64_t> lhs, rhs, lhs_batch, rhs_batch, out;
  int64_t lhs_k = 0, rhs_k = 0;
  if (g.batch_inner) {
    lhs.push_back(g.m);
    for (int64_t b : g.batch) {
      lhs_batch.push_back(static_cast<int64_t>(lhs.size()));
      lhs.push_back(b);
    }
    lhs_k = static_cast<int64_t>(lhs.size());
    lhs.push_back(g.k);
  } else {
    for (int64_t b : g.batch) {
      lhs_batch.push_back(static_cast<int64_t>(lhs.size()));
      lhs.push_back(b);
    }
    if (g.lhs_k_major) {
      lhs_k = nb;
      lhs.push_back(g.k);
      lhs.push_back(g.m);
    } else {
      lhs.push_back(g.m);
      lhs_k = nb + 1;
      lhs.push_back(g.k);
    }
  }
  for (int64_t b : g.batch) {
    rhs_batch.push_back(static_cast<int64_t>(rhs.size()));
    rhs.push_back(b);
  }
  if (g.rhs_n_major) {
    rhs.push_back(g.n);
    rhs_k = nb + 1;
    rhs.push_back(g.k);
  } else {
    rhs_k = nb;
    rhs.push_back(g.k);
    rhs.push_back(g.n);
  }
  out = g.batch;
  out.push_back(g.m);
  out.push_back(g.n);
  std::ostringstream h;
  const std::string lhs_type = g.convert_prologue ? "f32" : g.in_type;
  h << "p0 = " << lhs_type << "[" << DimsText(lhs) << "]" << g.lhs_layout
    << " parameter(0)\n";
  h << "p1 = " << g.in_type << "[" << DimsText(rhs) << "] parameter(1)\n";
  std::string a = "p0";
  if (g.convert_prologue) {
    h << "a = " << g.in_type << "[" << DimsText(lhs) << "] convert(p0)\n";
    a = "a";
  }
  std::string lhs_contracting = std::to_string(lhs_k);
  std::string rhs_contracting = std::to_string(rhs_k);
  const std::string dot_shape = g.out_type + "[" + DimsText(out) + "]";
  const bool dot_root = g.epilogue == 0;
  h << (dot_root ? "ROOT " : "") << "d = " << dot_shape
    << (dot_root ? g.out_layout : "") << " dot(" << a << ", p1)";
  if (nb > 0) {
    h << ", lhs_batch_dims=" << ListText(lhs_batch)
      << ", rhs_batch_dims=" << ListText(rhs_batch);
  }
  h << ", lhs_contracting_dims={" << lhs_contracting
    << "}, rhs_contracting_dims={" << rhs_contracting << "}\n";
  const int64_t rank = static_cast<int64_t>(out.size());
  if (g.epilogue == 1) {
    h << "p2 = " << g.out_type << "[" << g.n << "] parameter(2)\n";
    h << "bb = " << dot_shape << " broadcast(p2), dimensions={" << rank - 1
      << "}\n";
    h << "s = " << dot_shape << " add(d, bb)\n";
    h << "z = " << g.out_type << "[] constant(0)\n";
    h << "zb = " << dot_shape << " broadcast(z), dimensions={}\n";
    h << "ROOT r = " << dot_shape << g.out_layout << " maximum(s, zb)\n";
  } else if (g.epilogue == 2) {
    h << "t = " << dot_shape << " tanh(d)\n";
    h << "ROOT r = bf16[" << DimsText(out) << "]" << g.out_layout
      << " convert(t)\n";
  }
  return h.str();
}

// Two contracting dims: lhs [m, k1, k2] . rhs [k1, k2, n].
std::string SplitKHlo(const std::string& type, int64_t m, int64_t k1,
                      int64_t k2, int64_t n) {
  std::ostringstream h;
  h << "p0 = " << type << "[" << m << "," << k1 << "," << k2
    << "] parameter(0)\n"
    << "p1 = " << type << "[" << k1 << "," << k2 << "," << n
    << "] parameter(1)\n"
    << "ROOT d = f32[" << m << "," << n << "] dot(p0, p1), "
    << "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}\n";
  return h.str();
}

Tolerance GemmTolerance(hlo::ElementType t) {
  Tolerance tol;
  switch (t) {
    case hlo::ElementType::kBF16:
      tol.rel = 2e-2;
      tol.abs = 2e-2;
      break;
    case hlo::ElementType::kF16:
      tol.rel = 4e-3;
      tol.abs = 4e-3;
      break;
    case hlo::ElementType::kF32:
      tol.rel = 1e-4;
      tol.abs = 1e-3;
      break;
    case hlo::ElementType::kF64:
      tol.rel = 1e-12;
      tol.abs = 1e-12;
      break;
    default:
      break;  // integers: exact
  }
  return tol;
}

struct GemmRun {
  std::string label, hlo, code, kernel;
  std::unique_ptr<hlo::Module> module;
  FusionRegion region;
  emit::EmitResult emitted;
  std::vector<Literal> inputs;
  Literal expected;
  Literal exact;  // tf32: the answer in exact f32
};

// f32 rounded to TF32 as cvt.rna.tf32.f32 does (to nearest, ties away
// from zero; 10 mantissa bits), written here apart from the model's.
double RoundToTf32(double v) {
  const float f = static_cast<float>(v);
  if (!std::isfinite(f)) return f;
  if (f == 0) return f;
  // One TF32 ulp (subnormals: that of the smallest normal binade).
  const double scale = std::ldexp(1.0, std::max(std::ilogb(f), -126) - 10);
  const double q = std::fabs(f) / scale;
  const double rounded = std::floor(q + 0.5) * scale;
  return std::copysign(rounded, f);
}

// Emits every case for the cuda target (it must be the GEMM emitter's
// kernel), runs each in the model in every thread order and compares the
// output with the interpreter's. With `tf32` (EmitOptions::tf32; cases
// whose dot reads the parameters as they are), the interpreter's answer is
// that of the inputs rounded to TF32, and the kernel's must differ from
// the exact f32 one somewhere.
void RunGemms(const std::vector<std::pair<std::string, std::string>>& cases,
              const std::string& must_contain = "", bool tf32 = false) {
  std::vector<GemmRun> runs(cases.size());
  std::vector<CppKernel> kernels;
  ExprContext ctx;
  for (size_t i = 0; i < cases.size(); ++i) {
    GemmRun& r = runs[i];
    r.label = cases[i].first;
    r.hlo = cases[i].second;
    INFO(r.label << "\n" << r.hlo);
    auto module = hlo::ParseHloModule(r.hlo);
    REQUIRE(module.ok());
    r.module = std::move(module).value();
    auto region = ResolveFusion(*r.module, "");
    REQUIRE(region.ok());
    r.region = *region;
    emit::EmitOptions eo;
    eo.target = emit::Target::kCuda;
    r.kernel = "gemm" + std::to_string(i);
    eo.kernel_name = r.kernel;
    eo.tf32 = tf32;
    auto emitted =
        emit::EmitFusion(r.region, *hw::FindDevice("h100"), eo, &ctx);
    INFO((emitted.ok() ? "" : emitted.error().ToString()));
    REQUIRE(emitted.ok());
    r.emitted = std::move(emitted).value();
    // IXA_EMIT_DUMP=<label> prints the code (for debugging).
    if (const char* dump = std::getenv("IXA_EMIT_DUMP");
        dump && r.label == dump) {
      std::cerr << r.emitted.code;
    }
    CHECK(r.emitted.code.find("emitter gemm") != std::string::npos);
    if (!must_contain.empty()) {
      CHECK(r.emitted.code.find(must_contain) != std::string::npos);
    }
    std::mt19937_64 rng(1000 + i);
    const hlo::Computation& comp = *r.region.computation;
    for (int64_t k = 0; k < comp.parameter_count(); ++k) {
      RandomSpec spec;
      spec.int_lo = -9;
      spec.int_hi = 9;
      spec.float_range = 2.0;
      r.inputs.push_back(RandomLiteral(comp.parameter(k)->shape, rng, spec));
    }
    std::vector<Literal> reference_inputs = r.inputs;
    if (tf32) {
      for (Literal& l : reference_inputs) {
        for (double& v : l.floats) v = RoundToTf32(v);
      }
      auto exact = Interpret(comp, r.inputs);
      REQUIRE(exact.ok());
      r.exact = *exact;
    }
    auto expected = Interpret(comp, reference_inputs);
    INFO((expected.ok() ? "" : expected.error().ToString()));
    REQUIRE(expected.ok());
    r.expected = *expected;
    kernels.push_back({r.kernel, r.emitted.code});
  }
  CudaModelBatch batch;
  auto built = batch.Build(kernels, 2);
  INFO((built.ok() ? "" : built.error().ToString()));
  REQUIRE(built.ok());
  for (GemmRun& r : runs) {
    INFO(r.label << "\n" << r.hlo);
    const hlo::Computation& comp = *r.region.computation;
    const hlo::Shape& out_shape = r.region.root->shape;
    for (ThreadOrder order : kThreadOrders) {
      INFO(ThreadOrderName(order));
      std::vector<std::vector<uint8_t>> buffers;
      for (int64_t k = 0; k < comp.parameter_count(); ++k) {
        buffers.push_back(ToPhysical(r.inputs[k], comp.parameter(k)->shape));
      }
      buffers.emplace_back(ComputePhysicalLayout(out_shape).bytes(), 0xcd);
      auto ran = batch.Run(r.kernel, r.emitted.plan.launch, order, 7, &buffers);
      INFO((ran.ok() ? "" : ran.error().ToString()));
      REQUIRE(ran.ok());
      Literal got = FromPhysical(buffers.back(), out_shape);
      CHECK(CompareLiterals(r.expected, got, GemmTolerance(out_shape.type)) ==
            "");
      if (tf32) {
        Tolerance tight;
        tight.rel = 1e-6;
        tight.abs = 1e-6;
        CHECK(CompareLiterals(r.exact, got, tight) != "");
      }
    }
  }
}

TEST_CASE("gemm: bf16 and f16 dots run on tensor cores in the model",
          "[.][emit_gemm]") {
  std::vector<std::pair<std::string, std::string>> cases;
  auto add = [&](const GemmShape& g) {
    cases.push_back({g.label, GemmHlo(g)});
  };
  GemmShape g;
  g.label = "bf16_ragged";
  g.m = 70;
  g.n = 45;
  g.k = 33;
  add(g);
  g = {};
  g.label = "bf16_batch_bias_relu";
  g.batch = {3};
  g.m = 40;
  g.n = 70;
  g.k = 50;
  g.epilogue = 1;
  add(g);
  g = {};
  g.label = "f16_transposed_f16_out";
  g.in_type = "f16";
  g.out_type = "f16";
  g.m = 37;
  g.n = 66;
  g.k = 80;
  g.lhs_k_major = true;
  g.rhs_n_major = true;
  add(g);
  g = {};
  g.label = "bf16_convert_prologue_tanh_epilogue";
  g.m = 64;
  g.n = 64;
  g.k = 64;
  g.convert_prologue = true;
  g.epilogue = 2;
  add(g);
  g = {};
  g.label = "bf16_tall_batch_inner";
  g.batch = {2};
  g.m = 130;
  g.n = 20;
  g.k = 45;
  g.batch_inner = true;
  add(g);
  g = {};
  g.label = "bf16_bf16_out_two_batch_dims_out_layout";
  g.out_type = "bf16";
  g.batch = {2, 2};
  g.m = 17;
  g.n = 24;
  g.k = 40;
  g.out_layout = "{2,3,0,1}";
  add(g);
  g = {};
  g.label = "bf16_column_major_lhs";
  g.m = 48;
  g.n = 31;
  g.k = 70;
  g.lhs_layout = "{0,1}";
  add(g);
  cases.push_back(
      {"bf16_two_contracting_dims", SplitKHlo("bf16", 21, 5, 7, 30)});
  // Random shapes, ragged in every dim.
  std::mt19937_64 rng(42);
  for (int i = 0; i < 3; ++i) {
    g = {};
    g.label = "bf16_random_" + std::to_string(i);
    g.m = 1 + static_cast<int64_t>(rng() % 150);
    g.n = 1 + static_cast<int64_t>(rng() % 100);
    g.k = 1 + static_cast<int64_t>(rng() % 90);
    if (rng() % 2) g.batch = {1 + static_cast<int64_t>(rng() % 3)};
    g.lhs_k_major = rng() % 2;
    g.rhs_n_major = rng() % 2;
    g.epilogue = static_cast<int>(rng() % 3);
    add(g);
  }
  RunGemms(cases, "nvcuda::wmma::mma_sync");
}

TEST_CASE("gemm: f32 f64 and integer dots run with FMA in the model",
          "[.][emit_gemm]") {
  std::vector<std::pair<std::string, std::string>> cases;
  auto add = [&](const GemmShape& g) {
    cases.push_back({g.label, GemmHlo(g)});
  };
  GemmShape g;
  g.label = "f32_batch_bias_relu";
  g.in_type = "f32";
  g.batch = {2};
  g.m = 33;
  g.n = 65;
  g.k = 17;
  g.epilogue = 1;
  add(g);
  g = {};
  g.label = "f64_transposed";
  g.in_type = "f64";
  g.out_type = "f64";
  g.m = 20;
  g.n = 70;
  g.k = 30;
  g.lhs_k_major = true;
  g.rhs_n_major = true;
  add(g);
  g = {};
  g.label = "s32_dot";
  g.in_type = "s32";
  g.out_type = "s32";
  g.m = 37;
  g.n = 41;
  g.k = 29;
  g.epilogue = 1;
  add(g);
  g = {};
  g.label = "s8_wraps";
  g.in_type = "s8";
  g.out_type = "s8";
  g.m = 9;
  g.n = 70;
  g.k = 40;
  add(g);
  RunGemms(cases, "Acc acc[4][4]");
}

// EmitOptions::tf32: f32 dots on TF32 tensor cores (WMMA 16x16x8, each
// operand element rounded to TF32 in the kernel; the model reads only a
// TF32 operand's top 19 bits, so a kernel that did not round would be off
// by the truncation, far past the f32 tolerance).
TEST_CASE("gemm: f32 dots on TF32 tensor cores in the model",
          "[.][emit_gemm]") {
  std::vector<std::pair<std::string, std::string>> cases;
  auto add = [&](const GemmShape& g) {
    cases.push_back({g.label, GemmHlo(g)});
  };
  GemmShape g;
  g.label = "tf32_ragged_bias_relu";
  g.in_type = "f32";
  g.batch = {2};
  g.m = 70;
  g.n = 45;
  g.k = 37;
  g.epilogue = 1;
  add(g);
  g = {};
  g.label = "tf32_transposed_tall";
  g.in_type = "f32";
  g.m = 130;
  g.n = 66;
  g.k = 80;
  g.lhs_k_major = true;
  g.rhs_n_major = true;
  add(g);
  g = {};
  g.label = "tf32_column_major_lhs_tanh";
  g.in_type = "f32";
  g.m = 48;
  g.n = 31;
  g.k = 9;
  g.lhs_layout = "{0,1}";
  g.epilogue = 2;
  add(g);
  RunGemms(cases, "precision::tf32", /*tf32=*/true);
}

// What the GEMM emitter does not take goes the elemental way (which may
// refuse it): a transpose after the dot, two dots, complex operands, and
// every target but cuda.
TEST_CASE("gemm: other dot fusions and targets are not the GEMM emitter's",
          "[.][emit_gemm]") {
  const std::string dot =
      "p0 = bf16[40,30] parameter(0)\np1 = bf16[30,20] parameter(1)\n"
      "d = f32[40,20] dot(p0, p1), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"transposed_epilogue",
       dot + "ROOT t = f32[20,40] transpose(d), dimensions={1,0}\n"},
      {"two_dots", dot +
                       "p2 = f32[20,10] parameter(2)\n"
                       "ROOT e = f32[40,10] dot(d, p2), "
                       "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"},
      {"c64",
       "p0 = c64[8,4] parameter(0)\np1 = c64[4,8] parameter(1)\n"
       "ROOT d = c64[8,8] dot(p0, p1), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}\n"}};
  ExprContext ctx;
  for (const auto& [label, hlo] : cases) {
    INFO(label);
    auto module = hlo::ParseHloModule(hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    emit::EmitOptions eo;
    eo.target = emit::Target::kCuda;
    auto r = emit::EmitFusion(*region, *hw::FindDevice("h100"), eo, &ctx);
    CHECK((!r.ok() || r->code.find("emitter gemm") == std::string::npos));
  }
  auto module = hlo::ParseHloModule(dot + "ROOT n = f32[40,20] negate(d)\n");
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  for (emit::Target t : {emit::Target::kCpp, emit::Target::kMlir}) {
    emit::EmitOptions eo;
    eo.target = t;
    auto r = emit::EmitFusion(*region, *hw::FindDevice("h100"), eo, &ctx);
    CHECK((!r.ok() || r->code.find("emitter gemm") == std::string::npos));
  }
}

// tools/gpu_check.sh's GEMM step: the bf16 kernel of a batched matmul
// (the dot is the root: the same product cuBLAS computes) and its launch,
// for tools/gpu/gemm_vs_cublas.cu, in $IXA_GPU_CHECK_DIR/gemm.
TEST_CASE("gpu check: the bf16 GEMM kernel for the cuBLAS comparison",
          "[.][gpu_gemm_export]") {
  const char* dir = std::getenv("IXA_GPU_CHECK_DIR");
  if (!dir || !*dir) {
    std::cout << "IXA_GPU_CHECK_DIR is not set: tools/gpu_check.sh sets it\n";
    std::exit(2);
  }
  GemmShape g;
  g.batch = {4};
  g.m = g.n = g.k = 1024;
  auto module = hlo::ParseHloModule(GemmHlo(g));
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions eo;
  eo.target = emit::Target::kCuda;
  eo.kernel_name = "gemm_bench";
  auto emitted = emit::EmitFusion(*region, *hw::FindDevice("h100"), eo, &ctx);
  REQUIRE(emitted.ok());
  REQUIRE(emitted->code.find("emitter gemm (tensor cores") !=
          std::string::npos);
  const std::string out = std::string(dir) + "/gemm";
  REQUIRE(std::system(("mkdir -p '" + out + "'").c_str()) == 0);
  std::ofstream(out + "/gemm_kernel.cu") << emitted->code;
  const LaunchDimensions& l = emitted->plan.launch;
  std::ofstream(out + "/gemm_params.h")
      << "#define IXA_GEMM_KERNEL gemm_bench\n"
      << "constexpr int kGemmBatch = " << g.batch[0] << ", kGemmM = " << g.m
      << ", kGemmN = " << g.n << ", kGemmK = " << g.k << ";\n"
      << "constexpr unsigned kGridX = " << l.blocks[0]
      << ", kGridY = " << l.blocks[1] << ", kGridZ = " << l.blocks[2]
      << ", kBlockThreads = " << l.threads[0] << ";\n";
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
