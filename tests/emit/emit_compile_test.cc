// Whole modules compiled into one program each (emit/program, docs/compile.md)
// and run: the programs of a batch are compiled into one shared object
// (each in its own namespace, with its own entry point), run on random
// inputs and compared with the reference interpreter; one program is built
// as an executable and run end to end on .npy files.
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>

#include "analysis/prefusion/prefusion.h"
#include "analysis/uses/fusion_plan.h"
#include "emit/program/program.h"
#include "hw/device.h"
#include "tests/analysis/scatter_cases.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_compile_modules.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_interpreter.h"
#include "tests/emit/emit_literal.h"
#include "tests/emit/emit_program_runner.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

// Corpus modules that compile (the corpus test).
constexpr int kCorpusCompiled = 91;

// A minimal .npy (format 1.0) writer and reader for the end-to-end test.
void WriteNpy(const std::string& path, const std::string& descr,
              const std::vector<int64_t>& dims, const void* data,
              size_t bytes) {
  std::string shape = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    shape += std::to_string(dims[i]) + (dims.size() == 1 ? "," : "");
    if (i + 1 < dims.size()) shape += ", ";
  }
  shape += ")";
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 255)
      << char(header.size() >> 8) << header;
  out.write(static_cast<const char*>(data),
            static_cast<std::streamsize>(bytes));
}

// The header and the data of a .npy file.
std::pair<std::string, std::string> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  if (all.size() < 10) return {"", ""};
  const size_t len = static_cast<unsigned char>(all[8]) |
                     (static_cast<unsigned char>(all[9]) << 8);
  return {all.substr(10, len), all.substr(10 + len)};
}

int Run(const std::string& command, std::string* output) {
  CommandResult r = RunCommands({command})[0];
  if (output) *output = r.output;
  return r.exit_code;
}

TEST_CASE(
    "compile: hand-written modules run as programs and match the "
    "interpreter",
    "[.][emit_compile]") {
  std::vector<ProgramCase> cases = HandWrittenPrograms();
  std::vector<ProgramCase> random = RandomPrograms(8, 7);
  cases.insert(cases.end(), random.begin(), random.end());
  std::vector<std::string> errors = RunPrograms(cases, 11);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label << ":\n" << errors[i]);
    CHECK(errors[i].empty());
  }
}

// The cuda programs of the same modules, host code and kernels, run on the
// CPU in the tests' model of CUDA (tests/emit/cuda_model): every launch,
// copy and allocation goes through the model's host API, which reports a
// kernel's races and out-of-bounds accesses, copies outside allocations,
// host code touching device memory and leaked allocations.
TEST_CASE("compile: cuda programs run in the CPU model of CUDA",
          "[.][emit_compile_cuda]") {
  std::vector<ProgramCase> cases = HandWrittenPrograms();
  std::vector<ProgramCase> random = RandomPrograms(8, 7);
  cases.insert(cases.end(), random.begin(), random.end());
  std::vector<std::string> errors =
      RunPrograms(cases, 11, emit::Target::kCuda, ThreadOrder::kForward);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label << ":\n" << errors[i]);
    CHECK(errors[i].empty());
  }
  // The hand-written ones again with blocks and threads in random order
  // (a race that the forward order hides shows there).
  cases.resize(HandWrittenPrograms().size());
  errors = RunPrograms(cases, 12, emit::Target::kCuda, ThreadOrder::kRandom);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label << " (random order):\n" << errors[i]);
    CHECK(errors[i].empty());
  }
}

// Every HLO module of the repository's corpora (the HLO reader's corpus,
// the emit tests' data, the examples) compiled as the compile op does
// (XLA's pre-fusion pipeline, then, for modules without fusions,
// fusion_plan): each compiles or is
// unsupported (never an internal error or a crash), and what compiles
// runs and matches the interpreter wherever the interpreter computes it.
TEST_CASE("compile: the corpus modules compile or are unsupported and match",
          "[.][emit_compile_corpus]") {
  std::vector<std::string> files;
  for (const char* dir :
       {"/tests/analysis/hlo_corpus", "/tests/emit/data", "/tools/examples"}) {
    for (const auto& entry : std::filesystem::directory_iterator(
             std::string(IXA_SOURCE_DIR) + dir)) {
      if (entry.path().extension() == ".hlo") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<ProgramCase> cases;
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    auto module = hlo::ParseHloModule(text.str());
    if (!module.ok()) continue;  // the reader's error cases
    bool fused = false;
    for (const auto& in : (*module)->entry()->instructions()) {
      fused = fused || in->opcode == hlo::Opcode::kFusion;
    }
    // 16-bit floats round after every step of a reduction, whose order
    // the program and the interpreter choose differently (a tree against
    // a sequence): sums of a hundred bf16 values differ in their last
    // bits.
    const bool half = text.str().find("f16[") != std::string::npos;
    cases.push_back({std::filesystem::path(file).filename().string(),
                     text.str(), half ? 3e-2 : 1e-3, half ? 0.25 : 1e-3, !fused,
                     /*prefusion=*/true});
  }
  // Modules past a few seconds of the interpreter's time only run. In the
  // sanitizer pass RunPrograms compiles every module (the code under test
  // there) and runs one in kSanitizedStride, interpreted up to a tenth of
  // that time: the test's own inputs, layouts and interpreter are most of
  // its time there, and the Release pass runs and checks them all.
  std::vector<std::optional<ErrorCode>> compile_errors;
  std::vector<std::string> errors =
      RunPrograms(cases, 5, emit::Target::kCpp, ThreadOrder::kForward,
                  &compile_errors, Sanitized() ? 2e6 : 2e7);
  int compiled = 0, matched = 0, unsupported = 0, unchecked = 0, large = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label << ":\n" << errors[i]);
    if (compile_errors[i]) {
      // Not a program (a tuple entry parameter) or beyond what compiles.
      CHECK((*compile_errors[i] == ErrorCode::kUnsupported ||
             *compile_errors[i] == ErrorCode::kInvalidArgument));
      ++unsupported;
      continue;
    }
    ++compiled;
    if (errors[i].rfind(kInterpreterRefused, 0) == 0) {
      ++unchecked;
      continue;
    }
    if (errors[i] == kTooLargeToInterpret) {
      ++large;
      continue;
    }
    CHECK(errors[i].empty());
    matched += errors[i].empty();
  }
  std::cout << "compile corpus: " << cases.size() << " modules, " << compiled
            << " compiled (" << matched << " match the interpreter, "
            << unchecked << " beyond it, " << large
            << " only run: too large for it), " << unsupported
            << " unsupported\n";
  // What compiles today: fewer is a regression.
  CHECK(compiled >= kCorpusCompiled);
}

// The scatters XLA normalizes before fusion (tests/analysis/
// scatter_cases.h: batching dims, index vectors not last, several scatter
// dims, windows not trailing, inserted window dims, scalar indices; add,
// max and assign), compiled as the compile op does, fused or as read, to
// cpp and to cuda (run in the CPU model of CUDA, threads in forward and in
// random order), match the interpreter on the modules as written.
TEST_CASE("compile: normalized scatters run as programs", "[.][emit_compile]") {
  std::vector<ProgramCase> cases;
  for (const testing::ScatterCase& c : testing::ScatterNormalizationCases()) {
    for (bool fuse : {true, false}) {
      ProgramCase p;
      p.label = c.label + (fuse ? " (fused)" : " (as read)");
      p.hlo = c.hlo;
      p.fuse = fuse;
      p.prefusion = true;
      cases.push_back(p);
    }
  }
  struct Run {
    emit::Target target;
    ThreadOrder order;
  };
  for (const Run& run : {Run{emit::Target::kCpp, ThreadOrder::kForward},
                         Run{emit::Target::kCuda, ThreadOrder::kForward},
                         Run{emit::Target::kCuda, ThreadOrder::kRandom}}) {
    std::vector<std::string> errors =
        RunPrograms(cases, 23, run.target, run.order);
    for (size_t i = 0; i < cases.size(); ++i) {
      INFO(emit::TargetName(run.target) << " " << cases[i].label << ":\n"
                                        << errors[i]);
      CHECK(errors[i].empty());
    }
  }
}

TEST_CASE("compile: a program runs end to end on .npy files",
          "[.][emit_compile]") {
  const std::string hlo = R"(HloModule npy
ENTRY e {
  a = f32[2,3] parameter(0)
  b = s32[3] parameter(1)
  c = f32[3] convert(b)
  cb = f32[2,3] broadcast(c), dimensions={1}
  s = f32[2,3] add(a, cb)
  t = f32[3,2]{0,1} transpose(s), dimensions={1,0}
  ROOT r = (f32[2,3], f32[3,2]{0,1}, s32[3]) tuple(s, t, b)
}
)";
  Result<std::string> code = CompileText(hlo, "ixa_run");
  REQUIRE(code.ok());
  TempDir dir;
  const std::string src = dir.Write("prog.cc", *code);
  const std::string prog = dir.path() + "/prog";
  std::string output;
  REQUIRE(Run(Compiler() + " -std=c++17 -O1 -w " + src + " -o " + prog,
              &output) == 0);
  const float a[6] = {1, 2, 3, 4, 5, 6};
  const int32_t b[3] = {10, -20, 30};
  WriteNpy(dir.path() + "/a.npy", "<f4", {2, 3}, a, sizeof a);
  WriteNpy(dir.path() + "/b.npy", "<i4", {3}, b, sizeof b);
  REQUIRE(Run(prog + " " + dir.path() + "/a.npy " + dir.path() + "/b.npy -o " +
                  dir.path(),
              &output) == 0);
  auto [h0, d0] = ReadNpy(dir.path() + "/result0.npy");
  CHECK(h0.find("'descr': '<f4'") != std::string::npos);
  CHECK(h0.find("'shape': (2, 3)") != std::string::npos);
  REQUIRE(d0.size() == 6 * sizeof(float));
  float s[6];
  std::memcpy(s, d0.data(), sizeof s);
  CHECK(s[0] == 11);
  CHECK(s[1] == -18);
  CHECK(s[5] == 36);
  // The transposed result in numpy's C order, whatever its layout.
  auto [h1, d1] = ReadNpy(dir.path() + "/result1.npy");
  CHECK(h1.find("'shape': (3, 2)") != std::string::npos);
  REQUIRE(d1.size() == 6 * sizeof(float));
  float t[6];
  std::memcpy(t, d1.data(), sizeof t);
  CHECK(t[0] == 11);
  CHECK(t[1] == 14);
  CHECK(t[2] == -18);
  auto [h2, d2] = ReadNpy(dir.path() + "/result2.npy");
  CHECK(h2.find("'descr': '<i4'") != std::string::npos);
  CHECK(std::memcmp(d2.data(), b, sizeof b) == 0);

  // A wrong dtype, shape or count: a message on stderr, exit 65.
  const int64_t b64[3] = {b[0], b[1], b[2]};
  WriteNpy(dir.path() + "/b64.npy", "<i8", {3}, b64, sizeof b64);
  CHECK(Run(prog + " " + dir.path() + "/a.npy " + dir.path() + "/b64.npy",
            &output) == 65);
  CHECK(output.find("dtype '<i8'") != std::string::npos);
  WriteNpy(dir.path() + "/b2.npy", "<i4", {1, 3}, b, sizeof b);
  CHECK(Run(prog + " " + dir.path() + "/a.npy " + dir.path() + "/b2.npy",
            &output) == 65);
  CHECK(output.find("shape (1, 3)") != std::string::npos);
  CHECK(Run(prog + " " + dir.path() + "/a.npy", &output) == 65);
  CHECK(output.find("takes 2 parameter") != std::string::npos);
}

// A tuple-shaped entry parameter: one .npy file per array leaf, in order.
TEST_CASE("compile: a tuple parameter reads one .npy file per leaf",
          "[.][emit_compile]") {
  const std::string hlo = R"(HloModule tuple_npy
ENTRY e {
  p = (f32[3], (s32[2], f32[3])) parameter(0)
  q = f32[3] parameter(1)
  a = f32[3] get-tuple-element(p), index=0
  inner = (s32[2], f32[3]) get-tuple-element(p), index=1
  b = f32[3] get-tuple-element(inner), index=1
  s = f32[3] add(a, b)
  ROOT m = f32[3] multiply(s, q)
}
)";
  Result<std::string> code = CompileText(hlo, "ixa_run");
  REQUIRE(code.ok());
  TempDir dir;
  const std::string src = dir.Write("prog.cc", *code);
  const std::string prog = dir.path() + "/prog";
  std::string output;
  REQUIRE(Run(Compiler() + " -std=c++17 -O1 -w " + src + " -o " + prog,
              &output) == 0);
  const float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, q[3] = {2, 3, 4};
  const int32_t i[2] = {7, 8};
  WriteNpy(dir.path() + "/a.npy", "<f4", {3}, a, sizeof a);
  WriteNpy(dir.path() + "/i.npy", "<i4", {2}, i, sizeof i);
  WriteNpy(dir.path() + "/b.npy", "<f4", {3}, b, sizeof b);
  WriteNpy(dir.path() + "/q.npy", "<f4", {3}, q, sizeof q);
  const std::string d = dir.path();
  REQUIRE(Run(prog + " " + d + "/a.npy " + d + "/i.npy " + d + "/b.npy " + d +
                  "/q.npy -o " + d,
              &output) == 0);
  auto [h0, d0] = ReadNpy(d + "/result0.npy");
  REQUIRE(d0.size() == 3 * sizeof(float));
  float m[3];
  std::memcpy(m, d0.data(), sizeof m);
  CHECK(m[0] == 22);
  CHECK(m[1] == 66);
  CHECK(m[2] == 132);
  // Three leaves and a parameter: four files.
  CHECK(Run(prog + " " + d + "/a.npy " + d + "/q.npy", &output) == 65);
  CHECK(output.find("takes 4 parameter") != std::string::npos);
}

// A cuDNN convolution call whose shapes are not its convolution's (the
// reader checks convolutions, not custom calls) is invalid, naming the
// call and the mismatch, never an internal error; its bias and activation
// forms compile (the hand-written conv_calls module).
TEST_CASE("compile: a cuDNN convolution call of the wrong shape is invalid",
          "[emit_compile_errors]") {
  Result<std::string> code = CompileText(R"(HloModule bad
ENTRY main {
  x = f32[2,3,6,5] parameter(0)
  w = f32[4,3,3,3] parameter(1)
  cc = (f32[2,4,7,5], u8[0]) custom-call(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, custom_call_target="__cudnn$convForward"
  ROOT r = f32[2,4,7,5] get-tuple-element(cc), index=0
}
)",
                                         "ixa_run");
  REQUIRE_FALSE(code.ok());
  CHECK(code.error().code == ErrorCode::kInvalidArgument);
  CHECK(code.error().message.find("__cudnn$convForward cc") !=
        std::string::npos);
}

TEST_CASE("compile: a cuBLAS GEMM call of the wrong shape is invalid",
          "[emit_compile_errors]") {
  Result<std::string> code = CompileText(R"(HloModule bad
ENTRY main {
  a = f32[4,6] parameter(0)
  b = f32[7,5] parameter(1)
  g = (f32[4,5], s8[0]) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
  ROOT r = f32[4,5] get-tuple-element(g), index=0
}
)",
                                         "ixa_run");
  REQUIRE_FALSE(code.ok());
  CHECK(code.error().code == ErrorCode::kInvalidArgument);
  CHECK(code.error().message.find("__cublas$gemm g") != std::string::npos);
}

// A dot the emitters refuse (an f6 type) falls back to the host loop,
// which refuses it too: unsupported, naming the dot and the type.
TEST_CASE("compile: what cannot be generated is unsupported, naming it",
          "[emit_compile_errors]") {
  Result<std::string> code = CompileText(R"(HloModule u
ENTRY e {
  a = f6e2m3fn[2,3] parameter(0)
  b = f6e2m3fn[3,2] parameter(1)
  ROOT d = f6e2m3fn[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                                         "ixa_run");
  REQUIRE_FALSE(code.ok());
  CHECK(code.error().code == ErrorCode::kUnsupported);
  CHECK(code.error().message.find("dot d") != std::string::npos);
  CHECK(code.error().message.find("f6e2m3fn") != std::string::npos);
}

// Dots and convolutions outside fusions are kernels of the per-fusion
// pipeline (the loop emitter), for cpp and for cuda, complex ones too;
// none is a host loop.
TEST_CASE("compile: dots and convolutions are generated kernels",
          "[emit_compile_errors]") {
  const std::string hlo = R"(HloModule k
ENTRY e {
  a = f32[4,6] parameter(0)
  b = f32[6,3] parameter(1)
  x = f32[1,5,5,2] parameter(2)
  k = f32[3,3,2,2] parameter(3)
  z = c64[2,3] parameter(4)
  d = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[1,5,5,2] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  zz = c64[2,2] dot(z, z), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT t = (f32[4,3], f32[1,5,5,2], c64[2,2]) tuple(d, c, zz)
}
)";
  for (emit::Target target : {emit::Target::kCpp, emit::Target::kCuda}) {
    INFO(emit::TargetName(target));
    auto module = hlo::ParseHloModule(hlo);
    REQUIRE(module.ok());
    emit::CompileOptions options;
    options.target = target;
    ExprContext ctx;
    auto program =
        emit::CompileModule(**module, *hw::FindDevice("h100"), options, &ctx);
    REQUIRE(program.ok());
    int generated = 0;
    for (const emit::ProgramKernel& k : program->kernels) {
      INFO(k.instruction << ": " << k.emitter);
      // The f32 dot takes the tiled GEMM emitter on cuda; the rest are
      // elemental loops.
      const bool gemm = target == emit::Target::kCuda && k.instruction == "d";
      CHECK(k.emitter == (gemm ? "gemm" : "loop"));
      generated +=
          k.instruction == "d" || k.instruction == "c" || k.instruction == "zz";
    }
    CHECK(generated == 3);
    if (target == emit::Target::kCuda) {
      CHECK(program->code.find("ixap_launch(") != std::string::npos);
    }
  }
}

// cuBLAS GEMM calls are generated kernels too (their dot, alpha, beta, bias
// and activation as plain ops), for cpp and for cuda; the workspace is a
// buffer of its own. What plain ops do not say (the f8 call's scales) is
// unsupported, the host loop refusing it as well, naming why.
TEST_CASE("compile: GEMM custom calls are generated kernels",
          "[emit_compile_errors]") {
  const std::string config =
      R"({"gemm_backend_config":{"alpha_real":0.5,"beta":1,)"
      R"("dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)"
      R"("rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],)"
      R"("rhs_batch_dimensions":[]},"epilogue":"EPILOGUE"}})";
  auto module_text = [&](const std::string& epilogue,
                         const std::string& result) {
    std::string c = config;
    c.replace(c.find("EPILOGUE"), 8, epilogue);
    return "HloModule g\nENTRY e {\n  a = f32[4,6] parameter(0)\n"
           "  b = f32[6,3] parameter(1)\n  c = f32[4,3] parameter(2)\n"
           "  bias = f32[3] parameter(3)\n"
           "  g = " +
           result +
           " custom-call(a, b, c, bias), "
           "custom_call_target=\"__cublas$lt$matmul\", backend_config=" +
           c +
           ", output_to_operand_aliasing={{0}: (2, {})}\n"
           "  ROOT g0 = f32[4,3] get-tuple-element(g), index=0\n}\n";
  };
  for (emit::Target target : {emit::Target::kCpp, emit::Target::kCuda}) {
    INFO(emit::TargetName(target));
    emit::CompileOptions options;
    options.target = target;
    ExprContext ctx;
    auto module =
        hlo::ParseHloModule(module_text("BIAS_GELU", "(f32[4,3], s8[32])"));
    REQUIRE(module.ok());
    auto program =
        emit::CompileModule(**module, *hw::FindDevice("h100"), options, &ctx);
    REQUIRE(program.ok());
    REQUIRE(program->kernels.size() == 1);
    CHECK(program->kernels[0].instruction == "g");
    // f32 on cuda takes the tiled GEMM emitter (its FMA path); cpp the
    // elemental dot of the loop emitter.
    CHECK(program->kernels[0].emitter ==
          (target == emit::Target::kCuda ? "gemm" : "loop"));
    CHECK(program->kernels[0].refusal.empty());
    bool workspace = false;
    for (const emit::ProgramBuffer& b : program->buffers) {
      workspace = workspace || (b.instruction == "g" && b.output == 1 &&
                                b.shape == "s8[32]");
    }
    CHECK(workspace);

    std::string f8 = module_text("DEFAULT", "(f32[4,3], s8[32])");
    f8.replace(f8.find("lt$matmul"), 9, "lt$matmul$f8");
    auto scaled = hlo::ParseHloModule(f8);
    REQUIRE(scaled.ok());
    auto refused =
        emit::CompileModule(**scaled, *hw::FindDevice("h100"), options, &ctx);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::kUnsupported);
    CHECK(refused.error().message.find("f8 scale operands") !=
          std::string::npos);

    // Every call of the programs' GEMM-call module is a kernel, none a
    // host loop.
    for (const ProgramCase& c : HandWrittenPrograms()) {
      if (c.label != "gemm_calls") continue;
      auto calls = hlo::ParseHloModule(c.hlo);
      REQUIRE(calls.ok());
      auto compiled =
          emit::CompileModule(**calls, *hw::FindDevice("h100"), options, &ctx);
      REQUIRE(compiled.ok());
      int kernels = 0;
      for (const emit::ProgramKernel& k : compiled->kernels) {
        INFO(k.instruction << ": " << k.emitter << " " << k.refusal);
        CHECK(k.emitter != "dot");
        ++kernels;
      }
      CHECK(kernels == 17);
    }
  }
}

// The cuda programs of the same modules compile with nvcc (no GPU here:
// compiled, not run).
TEST_CASE("compile: cuda programs compile with nvcc",
          "[.][emit_compile_nvcc]") {
  std::optional<std::string> nvcc = FindNvcc();
  if (!nvcc) {
    // CTest's SKIP_RETURN_CODE for this test: nothing is checked.
    std::cout << "nvcc not found (PATH, /usr/local/cuda/bin, /opt/cuda/bin): "
                 "the cuda programs are not compiled\n";
    std::exit(77);
  }
  std::vector<ProgramCase> cases = HandWrittenPrograms();
  TempDir dir;
  std::vector<std::string> commands;
  std::vector<std::string> labels;
  // The first program whole, its main included, into an executable; all
  // of them (entries of their own, without main) in two units compiled to
  // objects: nvcc's fixed cost per run was most of this test's time.
  std::vector<CppKernel> programs;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string entry = "program_" + std::to_string(i);
    Result<std::string> code =
        CompileText(cases[i].hlo, entry, emit::Target::kCuda, cases[i].fuse);
    INFO(cases[i].label);
    REQUIRE(code.ok());
    programs.push_back({entry, *code});
    if (i == 0) {
      const std::string src = dir.Write("whole.cu", *code);
      commands.push_back(*nvcc +
                         " -std=c++17 -arch=sm_80 -Werror all-warnings " + src +
                         " -o " + src + ".bin");
      labels.push_back(cases[i].label + " (whole, with main)");
    }
  }
  const std::vector<std::string> units = BatchSources(programs, 2);
  for (size_t u = 0; u < units.size(); ++u) {
    const std::string src =
        dir.Write("programs" + std::to_string(u) + ".cu", units[u]);
    commands.push_back(*nvcc +
                       " -std=c++17 -arch=sm_80 -Werror all-warnings "
                       "-DIXA_NO_MAIN -c " +
                       src + " -o " + src + ".o");
    labels.push_back("unit " + std::to_string(u) + " of the programs");
  }
  std::vector<CommandResult> results = RunCommands(commands);
  for (size_t i = 0; i < results.size(); ++i) {
    INFO(labels[i] << ":\n" << FirstLines(results[i].output));
    CHECK(results[i].exit_code == 0);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
