// Every emitter kind on chosen shapes (including ones that do not divide
// the tile or vector sizes), the two worked examples of docs/emitters.md
// (GELU, exp-transpose-abs), tiled TPU layouts in and out, and the error
// cases of §3 — each emitted for every target, compiled, run against the
// interpreter (cpp, cuda in the CPU model of CUDA, and MLIR on the host
// for some), verified (MLIR) and compiled by nvcc when it is installed.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_fixture_plans.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

void Expect(const CheckSummary& s) {
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
  if (!s.nvcc_found) WARN("nvcc not found: the CUDA code was not compiled");
}

CheckCase Case(std::string label, std::string hlo, std::string emitter,
               bool run_mlir = false) {
  CheckCase c;
  c.label = std::move(label);
  c.hlo = std::move(hlo);
  c.expect_emitter = std::move(emitter);
  c.run_mlir = run_mlir;
  return c;
}

std::string Reducer(const std::string& type, const std::string& op) {
  return "red { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT r = " + type + "[] " + op + "(a, b) }\n";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("worked example: GELU (loop emitter, vectorized and unrolled)",
          "[.][emit_examples]") {
  // The full shape: plan and printed code.
  std::string full =
      ReadFile(std::string(IXA_SOURCE_DIR) + "/tests/emit/data/gelu.hlo");
  REQUIRE(!full.empty());
  auto module = hlo::ParseHloModule(full);
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = emit::Target::kCpp;
  options.stages = true;
  auto cpp = emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  REQUIRE(cpp.ok());
  CHECK(cpp->plan.kind == EmitterKind::kLoop);
  CHECK(cpp->plan.launch.threads[0] == 128);
  CHECK(cpp->plan.launch.unroll == 4);
  // The launch reports what the code does: vectors of 4 (the plan's 4
  // unrolled elements, vectorized).
  CHECK(cpp->plan.launch.vector_size == 4);
  REQUIRE(cpp->stages.size() == 7);
  // Step 1: loops with bounds checks; 3: flat offsets; 4-5: a vector of 4
  // bf16 loaded and stored once, the vector loop unrolled.
  CHECK(cpp->stages[1].code.find("for (int64_t unroll_id") !=
        std::string::npos);
  CHECK(cpp->stages[4].code.find("ixa_vload<uint16_t, 4>") !=
        std::string::npos);
  CHECK(cpp->stages[4].code.find("for (int64_t unroll_id") !=
        std::string::npos);
  CHECK(cpp->stages[5].code.find("for (int64_t unroll_id") ==
        std::string::npos);
  CHECK(cpp->code.find("ixa_vstore(b1 + ") != std::string::npos);
  options.target = emit::Target::kMlir;
  options.stages = false;
  auto mlir = emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  REQUIRE(mlir.ok());
  CHECK(mlir->code.find("vector.load") != std::string::npos);
  CHECK(mlir->code.find("affine.apply affine_map<") != std::string::npos);
  CHECK(VerifyMlir({mlir->code})[0] == "");
  // A smaller GELU runs against the interpreter.
  std::string small = full;
  for (size_t at; (at = small.find("6,512,4096")) != std::string::npos;) {
    small.replace(at, 10, "3,40,512");
  }
  CheckOptions check;
  check.planner = H100Planner();
  check.check_stages = true;
  Expect(CheckFusions({Case("gelu_small", small, "loop", true)}, check));
}

// thread_indexing reports emit::PlanForEmit's plan; the emit response's
// launch (what the code does: threads, blocks, widest vector access,
// shared memory) must be that plan's, in every target. The harness checks
// the same for every fusion it runs (CheckFusions); here the worked
// fusions of tests/emit/data at full size and an in-place update the
// emitter must plan as a loop (its output cannot share the parameter's
// memory).
TEST_CASE("thread_indexing's launch is the emitted code's launch",
          "[.][emit_kinds]") {
  std::vector<std::pair<std::string, std::string>> fusions;
  for (const char* file : {"gelu.hlo", "x_tanh.hlo"}) {
    fusions.push_back({file, ReadFile(std::string(IXA_SOURCE_DIR) +
                                      "/tests/emit/data/" + file)});
  }
  fusions.push_back({"dus_bitcast_root",
                     "ENTRY e {\n p0 = f32[100,20] parameter(0)\n"
                     " i = s32[] parameter(1)\n z = s32[] constant(0)\n"
                     " s = f32[10,20] dynamic-slice(p0, i, z), "
                     "dynamic_slice_sizes={10,20}\n"
                     " n = f32[10,20] negate(s)\n"
                     " d = f32[100,20] dynamic-update-slice(p0, n, i, z)\n"
                     " ROOT b = f32[2000] bitcast(d)\n}\n"});
  fusions.push_back({"concatenate_vectors",
                     "ENTRY e {\n a = f32[512,1024] parameter(0)\n"
                     " b = f32[512,512] parameter(1)\n"
                     " ROOT k = f32[512,1536] concatenate(a, b), "
                     "dimensions={1}\n}\n"});
  for (const auto& [label, hlo] : fusions) {
    INFO(label);
    auto module = hlo::ParseHloModule(hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    const hw::Device device = *hw::FindDevice("h100");
    auto plan = emit::PlanForEmit(*region, device, &ctx);
    REQUIRE(plan.ok());
    for (emit::Target target :
         {emit::Target::kCpp, emit::Target::kCuda, emit::Target::kMlir}) {
      INFO(emit::TargetName(target));
      emit::EmitOptions options;
      options.target = target;
      auto emitted = emit::EmitFusion(*region, device, options, &ctx);
      REQUIRE(emitted.ok());
      const LaunchDimensions& a = plan->launch;
      const LaunchDimensions& b = emitted->plan.launch;
      CHECK(EmitterKindName(emitted->plan.kind) ==
            std::string(EmitterKindName(plan->kind)));
      CHECK(a.threads == b.threads);
      CHECK(a.blocks == b.blocks);
      CHECK(a.vector_size == b.vector_size);
      CHECK(a.shared_memory_bytes == b.shared_memory_bytes);
    }
  }
}

TEST_CASE("worked example: exp, transpose, abs (transpose emitter)",
          "[.][emit_examples]") {
  std::string hlo =
      "p = f32[20,160,170] parameter(0)\n"
      "e = f32[20,160,170] exponential(p)\n"
      "t = f32[170,160,20] transpose(e), dimensions={2,1,0}\n"
      "ROOT a = f32[170,160,20] abs(t)\n";
  auto module = hlo::ParseHloModule(hlo);
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = emit::Target::kCuda;
  auto cuda = emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  REQUIRE(cuda.ok());
  CHECK(cuda->plan.kind == EmitterKind::kTranspose);
  CHECK(cuda->plan.launch.blocks[0] == 960);
  CHECK(cuda->plan.launch.threads[0] == 128);
  // XLA's 32 x 1 x 33 tile as 1024 elements through an XOR swizzle
  // (docs/emitters.md §6c).
  CHECK(cuda->code.find(
            "__shared__ __attribute__((aligned(16))) float tile0[1024];") !=
        std::string::npos);
  CHECK(cuda->code.find("__syncthreads();") != std::string::npos);
  CheckOptions check;
  check.planner = H100Planner();
  check.check_stages = true;
  Expect(
      CheckFusions({Case("exp_transpose_abs", hlo, "transpose", true)}, check));
}

TEST_CASE("every planned emitter kind on shapes that do not divide the tiles",
          "[.][emit_kinds]") {
  std::vector<CheckCase> cases;
  // Loop.
  cases.push_back(Case("loop_1d",
                       "p = f32[1001] parameter(0)\nROOT r = f32[1001] sine(p)",
                       "loop"));
  cases.push_back(
      Case("loop_s8",
           "p = s8[7,9,11] parameter(0)\nq = s8[7,9,11] parameter(1)\n"
           "ROOT r = s8[7,9,11] multiply(p, q)",
           "loop", true));
  cases.push_back(Case("loop_broadcast_multi_output",
                       "p = f32[33] parameter(0)\nq = f32[5,33] parameter(1)\n"
                       "b = f32[5,33] broadcast(p), dimensions={1}\n"
                       "a = f32[5,33] add(b, q)\nc = s32[5,33] convert(a)\n"
                       "ROOT t = (f32[5,33], s32[5,33]) tuple(a, c)",
                       "loop"));
  // Transpose: 021 with f16 vectors, 210, 2-D u8, a side output.
  cases.push_back(Case("transpose_021_f16",
                       "p = f16[2,64,66] parameter(0)\n"
                       "ROOT t = f16[2,66,64] transpose(p), dimensions={0,2,1}",
                       "transpose", true));
  cases.push_back(
      Case("transpose_210",
           "p = f32[17,5,33] parameter(0)\nn = f32[17,5,33] negate(p)\n"
           "ROOT t = f32[33,5,17] transpose(n), dimensions={2,1,0}",
           "transpose"));
  cases.push_back(Case("transpose_2d_u8",
                       "p = u8[33,130] parameter(0)\n"
                       "ROOT t = u8[130,33] transpose(p), dimensions={1,0}",
                       "transpose", true));
  cases.push_back(
      Case("transpose_side_output",
           "p = f32[40,50] parameter(0)\ne = f32[40,50] exponential(p)\n"
           "t = f32[50,40] transpose(e), dimensions={1,0}\n"
           "q = f32[50,40] parameter(1)\na = f32[50,40] add(t, q)\n"
           "s = f32[40,50] negate(e)\n"
           "ROOT r = (f32[50,40], f32[40,50]) tuple(a, s)",
           "transpose"));
  cases.push_back(Case("transpose_physical_copy",
                       "p = f32[48,36]{1,0} parameter(0)\n"
                       "ROOT c = f32[48,36]{0,1} copy(p)",
                       "transpose", true));
  // Generalized transposes (docs/emitters.md §6a): 102 and 0213 with a
  // small kept minor dim carried whole in the tile, 1302 (4 runs), an s8
  // 102 with a kept minor of 8 bytes; sizes that do not divide the tile.
  cases.push_back(Case("transpose_102_f32",
                       "p = f32[37,45,2] parameter(0)\n"
                       "ROOT t = f32[45,37,2] transpose(p), dimensions={1,0,2}",
                       "transpose", true));
  cases.push_back(Case("transpose_102_bf16_epilogue",
                       "p = bf16[33,70,3] parameter(0)\n"
                       "t = bf16[70,33,3] transpose(p), dimensions={1,0,2}\n"
                       "ROOT n = bf16[70,33,3] negate(t)",
                       "transpose", true));
  cases.push_back(Case("transpose_102_s8",
                       "p = s8[40,35,8] parameter(0)\n"
                       "ROOT t = s8[35,40,8] transpose(p), dimensions={1,0,2}",
                       "transpose"));
  cases.push_back(
      Case("transpose_0213",
           "p = f32[3,20,41,2] parameter(0)\n"
           "ROOT t = f32[3,41,20,2] transpose(p), dimensions={0,2,1,3}",
           "transpose", true));
  cases.push_back(
      Case("transpose_1302",
           "p = f32[5,3,34,40] parameter(0)\n"
           "ROOT t = f32[3,40,5,34] transpose(p), dimensions={1,3,0,2}",
           "transpose", true));
  cases.push_back(
      Case("transpose_1302_side_output",
           "p = f16[4,3,17,33] parameter(0)\ne = f16[4,3,17,33] negate(p)\n"
           "t = f16[3,33,4,17] transpose(e), dimensions={1,3,0,2}\n"
           "ROOT r = (f16[3,33,4,17], f16[4,3,17,33]) tuple(t, e)",
           "transpose"));
  // Small types: 021 of s8, bf16 and pred with sizes the tile does not
  // divide.
  cases.push_back(Case("transpose_021_s8_odd",
                       "p = s8[3,37,45] parameter(0)\n"
                       "ROOT t = s8[3,45,37] transpose(p), dimensions={0,2,1}",
                       "transpose", true));
  cases.push_back(
      Case("transpose_021_bf16_odd",
           "p = bf16[2,35,67] parameter(0)\n"
           "ROOT t = bf16[2,67,35] transpose(p), dimensions={0,2,1}",
           "transpose", true));
  cases.push_back(Case("transpose_2d_pred_odd",
                       "p = pred[33,129] parameter(0)\n"
                       "ROOT t = pred[129,33] transpose(p), dimensions={1,0}",
                       "transpose"));
  // Reductions: row (one warp, several warps), multi-row, column (vector
  // lanes), variadic, epilogue, side output, two heroes.
  std::string add_f32 = Reducer("f32", "add");
  cases.push_back(Case(
      "row_reduction",
      add_f32 + "ENTRY e { p = f32[7,1000] parameter(0)\n"
                "c = f32[] constant(0)\n"
                "ROOT r = f32[7] reduce(p, c), dimensions={1}, to_apply=red }",
      "reduction", true));
  cases.push_back(Case(
      "row_reduction_major_minor",
      Reducer("bf16", "maximum") +
          "ENTRY e { p = bf16[3,5,257] parameter(0)\n"
          "c = bf16[] constant(-inf)\n"
          "ROOT r = bf16[5] reduce(p, c), dimensions={0,2}, to_apply=red }",
      "reduction"));
  cases.push_back(
      Case("multi_row_reduction",
           Reducer("s32", "add") +
               "ENTRY e { p = s32[300,8] parameter(0)\nc = s32[] constant(0)\n"
               "ROOT r = s32[300] reduce(p, c), dimensions={1}, to_apply=red }",
           "reduction", true));
  cases.push_back(Case(
      "column_reduction",
      add_f32 + "ENTRY e { p = f32[100,65] parameter(0)\n"
                "c = f32[] constant(0)\n"
                "ROOT r = f32[65] reduce(p, c), dimensions={0}, to_apply=red }",
      "reduction", true));
  cases.push_back(Case(
      "column_reduction_f16_vectors",
      Reducer("f16", "add") +
          "ENTRY e { p = f16[3,300,130] parameter(0)\nc = f16[] constant(0)\n"
          "ROOT r = f16[3,130] reduce(p, c), dimensions={1}, to_apply=red }",
      "reduction", true));
  cases.push_back(Case(
      "column_reduction_f16_v4",
      Reducer("f16", "add") +
          "ENTRY e { p = f16[5,70,256] parameter(0)\nc = f16[] constant(0)\n"
          "ROOT r = f16[5,256] reduce(p, c), dimensions={1}, to_apply=red }",
      "reduction", true));
  cases.push_back(Case(
      "column_reduction_s8_v4_epilogue",
      Reducer("s32", "add") +
          "ENTRY e { p = s8[40,128] parameter(0)\nx = s32[40,128] convert(p)\n"
          "c = s32[] constant(0)\n"
          "r = s32[128] reduce(x, c), dimensions={0}, to_apply=red\n"
          "ROOT n = s32[128] negate(r) }",
      "reduction", true));
  cases.push_back(
      Case("variadic_argmax",
           "argmax { a = f32[] parameter(0)\n ai = s32[] parameter(1)\n"
           " b = f32[] parameter(2)\n bi = s32[] parameter(3)\n"
           " gt = pred[] compare(a, b), direction=GT\n"
           " v = f32[] select(gt, a, b)\n i = s32[] select(gt, ai, bi)\n"
           " ROOT r = (f32[], s32[]) tuple(v, i) }\n"
           "ENTRY e { p = f32[9,700] parameter(0)\n"
           "io = s32[9,700] iota(), iota_dimension=1\n"
           "c = f32[] constant(-inf)\nz = s32[] constant(0)\n"
           "ROOT r = (f32[9], s32[9]) reduce(p, io, c, z), dimensions={1}, "
           "to_apply=argmax }",
           "reduction", true));
  cases.push_back(
      Case("reduction_epilogue_and_side_output",
           add_f32 + "ENTRY e { p = f32[12,333] parameter(0)\n"
                     "x = f32[12,333] multiply(p, p)\nc = f32[] constant(0)\n"
                     "r = f32[12] reduce(x, c), dimensions={1}, to_apply=red\n"
                     "s = f32[12] sqrt(r)\nn = f32[12,333] negate(x)\n"
                     "ROOT t = (f32[12], f32[12,333]) tuple(s, n) }",
           "reduction"));
  cases.push_back(
      Case("reduction_two_groups",
           add_f32 + "ENTRY e { p = f32[6,400] parameter(0)\n"
                     "q = f32[6,400] parameter(1)\nc = f32[] constant(0)\n"
                     "r = f32[6] reduce(p, c), dimensions={1}, to_apply=red\n"
                     "e = f32[6,400] exponential(q)\n"
                     "s = f32[6] reduce(e, c), dimensions={1}, to_apply=red\n"
                     "ROOT t = (f32[6], f32[6]) tuple(r, s) }",
           "reduction", true));
  // Concatenate (an epilogue on it), in-place dynamic-update-slice (the
  // output is the operand's memory), scatter (out-of-bounds updates
  // skipped, duplicates combined), input slices.
  cases.push_back(Case("concatenate_epilogue",
                       "a = f32[5,7] parameter(0)\nb = f32[5,13] parameter(1)\n"
                       "c = f32[5,2] parameter(2)\n"
                       "k = f32[5,22] concatenate(a, b, c), dimensions={1}\n"
                       "ROOT n = f32[5,22] negate(k)",
                       "concatenate", true));
  cases.push_back(
      Case("in_place_dus",
           "p = s32[33,17] parameter(0)\nu = s32[5,9] parameter(1)\n"
           "i = s32[] parameter(2)\nj = s32[] parameter(3)\n"
           "m = s32[5,9] multiply(u, u)\n"
           "ROOT d = s32[33,17] dynamic-update-slice(p, m, i, j)",
           "in_place_dynamic_update_slice", true));
  {
    CheckCase sc =
        Case("scatter_add",
             Reducer("f32", "add") +
                 "ENTRY e { p = f32[20,6] parameter(0)\n"
                 "i = s32[30,1] parameter(1)\nu = f32[30,6] parameter(2)\n"
                 "ROOT s = f32[20,6] scatter(p, i, u), update_window_dims={1}, "
                 "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                 "index_vector_dim=1, to_apply=red }",
             "scatter", true);
    sc.parameters.resize(3);
    sc.parameters[1].random.int_lo = -2;  // some updates fall outside
    sc.parameters[1].random.int_hi = 22;
    cases.push_back(sc);
  }
  cases.push_back(
      Case("input_slices",
           "p = f32[9,40] parameter(0)\ne = f32[9,40] exponential(p)\n"
           "a = f32[4,40] slice(e), slice={[0:4], [0:40]}\n"
           "b = f32[5,33] slice(e), slice={[4:9], [7:40]}\n"
           "ROOT t = (f32[4,40], f32[5,33]) tuple(a, b)",
           "input_slices"));
  for (CheckCase& c : cases) {
    if (c.expect_emitter == "reduction" || c.label == "scatter_add") {
      c.reassociates = true;
    }
  }
  CheckOptions check;
  check.planner = H100Planner();
  check.check_stages = true;  // every stage compiles / verifies
  Expect(CheckFusions(cases, check));
}

TEST_CASE("kernel names: keywords, main and the code's own names refused",
          "[emit]") {
  for (const char* bad :
       {"main",       "int",     "float",    "and",      "threadIdx",
        "__global__", "_Kernel", "a__b",     "ixa_bits", "ixa_fmax",
        "exp",        "memcpy",  "uint16_t", "std",      "b0",
        "b12",        "th_x",    "",         "9lives",   "a-b"}) {
    INFO(bad);
    CHECK(!emit::CheckKernelName(bad).ok());
  }
  for (const char* good : {"fusion", "fusion_main", "k0", "b", "bx", "gelu"}) {
    INFO(good);
    CHECK(emit::CheckKernelName(good).ok());
  }
  auto module = hlo::ParseHloModule(
      "ENTRY e { p = f32[6,6] parameter(0)\n"
      "e1 = f32[6,6] exponential(p)\n"
      "t = f32[6,6] transpose(e1), dimensions={1,0}\n"
      "ROOT r = f32[6,6] add(t, e1) }");
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.kernel_name = "main";
  CHECK(
      !emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx).ok());
  // A kernel named as a function the lowering would create (e1, read at
  // two indices, is a subgraph function): the function takes another
  // name, and the unit compiles.
  std::vector<CppKernel> units;
  for (emit::Target target : {emit::Target::kCpp, emit::Target::kCuda}) {
    options.target = target;
    options.kernel_name = "fused_e1_0";
    auto emitted =
        emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
    REQUIRE(emitted.ok());
    CHECK(emitted->code.find("fused_e1_1") != std::string::npos);
    units.push_back({"fused_e1_0", emitted->code});
  }
  auto cpp = CppBatch::CompileOnly({units[0]});
  INFO((cpp.ok() ? "" : cpp.error().message));
  CHECK(cpp.ok());
  auto cuda = CudaModelBatch::CompileOnly({units[1]});
  INFO((cuda.ok() ? "" : cuda.error().message));
  CHECK(cuda.ok());
}

TEST_CASE(
    "edge cases: scalars, empty shapes, roots that are parameters or tuples",
    "[.][emit_layouts]") {
  std::vector<CheckCase> cases = {
      Case("scalar", "p = f32[] parameter(0)\nROOT r = f32[] negate(p)", "loop",
           true),
      Case("empty", "p = f32[0,5] parameter(0)\nROOT r = f32[0,5] negate(p)",
           "loop"),
      Case("parameter_root", "ROOT p = f32[4] parameter(0)", "loop"),
      Case("constant_root", "ROOT c = s32[3] constant({1, 2, 3})", "loop",
           true),
      Case("iota_root", "ROOT i = f32[4,3] iota(), iota_dimension=1", "loop"),
      Case("nested_tuple_root",
           "p = f32[4] parameter(0)\nn = f32[4] negate(p)\n"
           "t = (f32[4], f32[4]) tuple(p, n)\n"
           "ROOT r = ((f32[4], f32[4]), f32[4]) tuple(t, n)",
           "loop"),
      Case("bitcast_with_layouts",
           "p = f32[4,6]{0,1} parameter(0)\nROOT b = f32[6,4]{1,0} bitcast(p)",
           "loop"),
      Case("pred_io",
           "p = pred[7] parameter(0)\nq = pred[7] parameter(1)\n"
           "ROOT r = pred[7] xor(p, q)",
           "loop", true),
      Case("reduce_to_scalar",
           Reducer("f32", "add") +
               "ENTRY e { p = f32[1000] parameter(0)\n"
               "c = f32[] constant(0)\n"
               "ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply=red }",
           "reduction", true),
  };
  cases.back().reassociates = true;
  CheckOptions check;
  check.planner = H100Planner();
  Expect(CheckFusions(cases, check));
}

TEST_CASE("vectorized transposes (a small GPU, so that vectors pay)",
          "[.][emit_layouts]") {
  // h.7 vectorizes when the grid has work for v^2 waves: on a 4-SM copy of
  // the H100 that happens at test sizes.
  hw::Device small = *hw::FindDevice("h100");
  small.sm_count = 4;
  CheckOptions check;
  check.planner = [small](const FusionRegion& r, ExprContext* ctx) {
    return ComputeEmitterPlan(r, small, ctx);
  };
  std::vector<CheckCase> cases;
  cases.push_back(
      Case("transpose_021_f16_vectors",
           "p = f16[16,256,130] parameter(0)\n"
           "ROOT t = f16[16,130,256] transpose(p), dimensions={0,2,1}",
           "transpose"));
  cases.push_back(
      Case("transpose_021_u8_vectors",
           "p = u8[8,256,260] parameter(0)\nn = u8[8,256,260] not(p)\n"
           "ROOT t = u8[8,260,256] transpose(n), dimensions={0,2,1}",
           "transpose", true));
  CheckSummary s = CheckFusions(cases, check);
  Expect(s);
  // The plans did vectorize.
  for (const CheckCase& c : cases) {
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    auto plan = ComputeEmitterPlan(*region, small, &ctx);
    REQUIRE(plan.ok());
    INFO(c.label);
    CHECK(plan->launch.vector_size > 1);
  }
}

TEST_CASE("tiled TPU layouts in and out (pack, unpack, tiled compute)",
          "[.][emit_layouts]") {
  std::vector<CheckCase> cases;
  cases.push_back(Case("pack_T22",
                       "p = f32[3,5]{1,0} parameter(0)\n"
                       "ROOT c = f32[3,5]{1,0:T(2,2)} copy(p)",
                       "", true));
  cases.push_back(Case("unpack_T22",
                       "p = f32[3,5]{1,0:T(2,2)} parameter(0)\n"
                       "ROOT c = f32[3,5]{1,0} copy(p)",
                       "", true));
  cases.push_back(Case("tiled_T8_128",
                       "p = f32[20,300]{1,0:T(8,128)} parameter(0)\n"
                       "e = f32[20,300]{1,0:T(8,128)} exponential(p)\n"
                       "ROOT c = f32[20,300]{1,0:T(8,128)} negate(e)",
                       ""));
  cases.push_back(Case("bf16_T8_128_2_1_in_out",
                       "p = bf16[17,260]{1,0:T(8,128)(2,1)} parameter(0)\n"
                       "q = bf16[17,260]{1,0} parameter(1)\n"
                       "a = bf16[17,260]{1,0:T(8,128)(2,1)} add(p, q)\n"
                       "ROOT c = bf16[17,260]{1,0:T(8,128)(2,1)} tanh(a)",
                       "", true));
  cases.push_back(
      Case("transpose_into_tiled",
           "p = f32[40,300]{1,0} parameter(0)\n"
           "ROOT t = f32[300,40]{1,0:T(8,128)} transpose(p), dimensions={1,0}",
           ""));
  cases.push_back(Case("column_major_tiled",
                       "p = f32[9,13]{0,1:T(2,2)} parameter(0)\n"
                       "ROOT c = f32[9,13]{1,0:T(4,4)} copy(p)",
                       ""));
  CheckOptions check;
  check.planner = H100Planner();
  check.check_stages = true;
  Expect(CheckFusions(cases, check));
}

TEST_CASE(
    "errors: unsupported ops are named, too much shared memory is refused") {
  ExprContext ctx;
  auto emit = [&](const std::string& hlo, const hw::Device& device) {
    auto module = hlo::ParseHloModule(hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    emit::EmitOptions options;
    options.shared_memory_limit = device.shared_memory_per_block;
    return emit::EmitFusion(*region, device, options, &ctx);
  };
  hw::Device h100 = *hw::FindDevice("h100");
  auto sort = emit(
      "lt { a = f32[] parameter(0)\nb = f32[] parameter(1)\n"
      "ROOT c = pred[] compare(a, b), direction=LT }\n"
      "ENTRY e { p = f32[8] parameter(0)\n"
      "ROOT s = f32[8] sort(p), dimensions={0}, to_apply=lt }",
      h100);
  REQUIRE_FALSE(sort.ok());
  CHECK(sort.error().code == ErrorCode::kUnsupported);
  CHECK(sort.error().message.find("'sort'") != std::string::npos);
  auto cc = emit(
      "a = f32[4] parameter(0)\n"
      "ROOT c = f32[4] custom-call(a), custom_call_target=\"foo\"",
      h100);
  REQUIRE_FALSE(cc.ok());
  CHECK(cc.error().code == ErrorCode::kUnsupported);
  CHECK(cc.error().message.find("custom-call") != std::string::npos);
  auto c64 = emit("a = c64[4] parameter(0)\nROOT n = c64[4] logistic(a)", h100);
  REQUIRE_FALSE(c64.ok());
  CHECK(c64.error().code == ErrorCode::kUnsupported);
  // The transpose example's tile (4096 bytes, swizzled) on a device with
  // 4000 bytes per block.
  hw::Device small = h100;
  small.shared_memory_per_block = 4000;
  auto smem = emit(
      "p = f32[20,160,170] parameter(0)\n"
      "ROOT t = f32[170,160,20] transpose(p), dimensions={2,1,0}",
      small);
  REQUIRE_FALSE(smem.ok());
  CHECK(smem.error().code == ErrorCode::kInvalidArgument);
  CHECK(smem.error().message.find("shared memory") != std::string::npos);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
