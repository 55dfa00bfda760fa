// Whole modules compiled into one program each (emit/program, docs/compile.md)
// and run: the programs of a batch are compiled into one shared object
// (each in its own namespace, with its own entry point), run on random
// inputs and compared with the reference interpreter; one program is built
// as an executable and run end to end on .npy files.
#include <dlfcn.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "analysis/uses/fusion_plan.h"
#include "emit/program/program.h"
#include "hw/device.h"
#include "tests/emit/emit_compile_modules.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_interpreter.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

using ProgramEntry = int (*)(const void* const*, void* const*);

Result<std::string> CompileText(const std::string& hlo,
                                const std::string& entry,
                                emit::Target target = emit::Target::kCpp,
                                bool fuse = false) {
  IXA_ASSIGN_OR_RETURN(auto module, hlo::ParseHloModule(hlo));
  emit::CompileOptions options;
  options.target = target;
  options.entry_name = entry;
  ExprContext ctx;
  if (fuse) {
    FusionPlanOptions plan_options;
    plan_options.model = CostModel::kXla;
    IXA_ASSIGN_OR_RETURN(
        FusionPlanResult plan,
        PlanFusions(*module, *hw::FindDevice("h100"), plan_options, &ctx));
    IXA_ASSIGN_OR_RETURN(module, hlo::ParseHloModule(plan.module_text));
  }
  IXA_ASSIGN_OR_RETURN(
      emit::ProgramResult program,
      emit::CompileModule(*module, *hw::FindDevice("h100"), options, &ctx));
  return program.code;
}

std::vector<hlo::Shape> Leaves(const hlo::Shape& s) {
  if (!s.IsTuple()) return {s};
  std::vector<hlo::Shape> out;
  for (const hlo::Shape& e : s.tuple_elements) {
    for (const hlo::Shape& l : Leaves(e)) out.push_back(l);
  }
  return out;
}

std::vector<Literal> LeafLiterals(const Literal& l) {
  if (!l.is_tuple()) return {l};
  std::vector<Literal> out;
  for (const Literal& e : l.tuple) {
    for (const Literal& x : LeafLiterals(e)) out.push_back(x);
  }
  return out;
}

// Runs every case's program from one shared object; per case, "" or what
// went wrong.
std::vector<std::string> RunPrograms(const std::vector<ProgramCase>& cases,
                                     uint64_t seed) {
  std::vector<std::string> errors(cases.size());
  std::vector<CppKernel> programs;
  std::vector<int> program_of(cases.size(), -1);
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string entry = "program_" + std::to_string(i);
    Result<std::string> code =
        CompileText(cases[i].hlo, entry, emit::Target::kCpp, cases[i].fuse);
    if (!code.ok()) {
      errors[i] = "compile: " + code.error().message;
      continue;
    }
    program_of[i] = static_cast<int>(programs.size());
    programs.push_back({entry, *code});
  }
  if (programs.empty()) return errors;
  TempDir dir;
  std::vector<std::string> sources = BatchSources(programs, 2);
  std::vector<std::string> commands;
  std::string objects;
  for (size_t u = 0; u < sources.size(); ++u) {
    std::string src =
        dir.Write("program" + std::to_string(u) + ".cc", sources[u]);
    commands.push_back(Compiler() +
                       " -std=c++17 -O1 -fPIC -DIXA_NO_MAIN -w -c " + src +
                       " -o " + src + ".o");
    objects += " " + src + ".o";
  }
  for (const CommandResult& r : RunCommands(commands)) {
    if (r.exit_code != 0) {
      for (std::string& e : errors) {
        if (e.empty())
          e = "g++ rejected the programs:\n" + FirstLines(r.output);
      }
      return errors;
    }
  }
  const std::string so = dir.path() + "/programs.so";
  CommandResult link =
      RunCommands({Compiler() + " -shared -o " + so + objects})[0];
  if (link.exit_code != 0) {
    for (std::string& e : errors) {
      if (e.empty()) e = "link failed:\n" + FirstLines(link.output);
    }
    return errors;
  }
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle != nullptr);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (program_of[i] < 0) continue;
    auto module = hlo::ParseHloModule(cases[i].hlo);
    const hlo::Computation& entry = *(*module)->entry();
    auto run = reinterpret_cast<ProgramEntry>(
        dlsym(handle, programs[program_of[i]].name.c_str()));
    if (run == nullptr) {
      errors[i] = "no entry point";
      continue;
    }
    RandomSpec spec;
    spec.float_range = 1.0;
    spec.int_lo = -1;
    spec.int_hi = 3;
    std::vector<Literal> args;
    std::vector<std::vector<uint8_t>> inputs;
    std::vector<const void*> params;
    for (int64_t p = 0; p < entry.parameter_count(); ++p) {
      const hlo::Shape& s = entry.parameter(p)->shape;
      args.push_back(RandomLiteral(s, rng, spec));
      inputs.push_back(ToPhysical(args.back(), s));
    }
    for (auto& b : inputs) params.push_back(b.data());
    const std::vector<hlo::Shape> result_shapes = Leaves(entry.root()->shape);
    std::vector<std::vector<uint8_t>> outputs;
    std::vector<void*> results;
    for (const hlo::Shape& s : result_shapes) {
      outputs.emplace_back(ComputePhysicalLayout(s).bytes() + 64, 0xAB);
    }
    for (auto& b : outputs) results.push_back(b.data());
    const int rc = run(params.data(), results.data());
    if (rc != 0) {
      errors[i] = "the program returned " + std::to_string(rc);
      continue;
    }
    Result<Literal> expected = Interpret(entry, args);
    if (!expected.ok()) {
      errors[i] = "interpreter: " + expected.error().message;
      continue;
    }
    std::vector<Literal> want = LeafLiterals(*expected);
    Tolerance tol;
    tol.rel = cases[i].rel;
    tol.abs = cases[i].abs;
    for (size_t k = 0; k < want.size(); ++k) {
      outputs[k].resize(ComputePhysicalLayout(result_shapes[k]).bytes());
      Literal got = FromPhysical(outputs[k], result_shapes[k]);
      std::string diff = CompareLiterals(want[k], got, tol);
      if (!diff.empty()) {
        errors[i] += "result " + std::to_string(k) + ": " + diff + "\n";
      }
    }
  }
  dlclose(handle);
  return errors;
}

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
      CHECK(k.emitter == "loop");
      generated +=
          k.instruction == "d" || k.instruction == "c" || k.instruction == "zz";
    }
    CHECK(generated == 3);
    if (target == emit::Target::kCuda) {
      CHECK(program->code.find("ixap_launch(") != std::string::npos);
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
  for (size_t i = 0; i < cases.size(); ++i) {
    Result<std::string> code = CompileText(cases[i].hlo, "ixa_run",
                                           emit::Target::kCuda, cases[i].fuse);
    INFO(cases[i].label);
    REQUIRE(code.ok());
    const std::string src =
        dir.Write("program" + std::to_string(i) + ".cu", *code);
    commands.push_back(*nvcc + " -std=c++17 -arch=sm_80 -Werror all-warnings " +
                       src + " -o " + src + ".bin");
    labels.push_back(cases[i].label);
  }
  std::vector<CommandResult> results = RunCommands(commands);
  for (size_t i = 0; i < results.size(); ++i) {
    INFO(labels[i] << ":\n" << FirstLines(results[i].output));
    CHECK(results[i].exit_code == 0);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
