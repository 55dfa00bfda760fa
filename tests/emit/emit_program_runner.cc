// Running whole-module programs in the tests (emit/program,
// docs/compile.md): compiled as the compile op does, the programs of a
// batch built into one shared object (cpp) or run in the CPU model of CUDA
// (cuda), run on random inputs and compared with the reference interpreter.
#include "tests/emit/emit_program_runner.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

#include "analysis/prefusion/prefusion.h"
#include "analysis/uses/fusion_plan.h"
#include "emit/program/program.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_interpreter.h"

namespace ixa::emit_test {
// Named: RunPrograms below uses it, and a unity batch must not merge it
// with another file's helpers.
namespace program_runner_detail {

using ProgramEntry = int (*)(const void* const*, void* const*);

// Roughly the interpreter's work for a module (a few us per unit): every
// instruction's output elements, times the products per element of a dot
// or convolution (its rhs elements over the rhs's largest dim).
double InterpreterWork(const hlo::Module& module) {
  double work = 0;
  for (const auto& c : module.computations()) {
    for (const auto& in : c->instructions()) {
      double out = 0;
      for (const hlo::Shape& s : Leaves(in->shape)) {
        if (s.IsArray()) out += static_cast<double>(s.ElementCount());
      }
      double per_element = 1;
      if ((in->opcode == hlo::Opcode::kDot ||
           in->opcode == hlo::Opcode::kConvolution) &&
          in->operand_count() >= 2 && in->operand(1)->shape.IsArray()) {
        const hlo::Shape& rhs = in->operand(1)->shape;
        int64_t largest = 1;
        for (int64_t d : rhs.dims) largest = std::max(largest, d);
        per_element = static_cast<double>(rhs.ElementCount()) / largest;
      }
      work += out * per_element;
    }
  }
  return work;
}

// One case's program on random inputs against the interpreter: "" or what
// went wrong.
using ProgramRunner = std::function<Result<std::vector<std::vector<uint8_t>>>(
    const std::vector<std::vector<uint8_t>>& params,
    const std::vector<size_t>& result_bytes)>;
std::string CheckProgram(const ProgramCase& c, const ProgramRunner& run,
                         std::mt19937_64& rng, double work_limit) {
  auto module = hlo::ParseHloModule(c.hlo);
  if (!module.ok()) return "parse: " + module.error().message;
  const hlo::Computation& entry = *(*module)->entry();
  RandomSpec spec;
  spec.float_range = 1.0;
  spec.int_lo = -1;
  spec.int_hi = 3;
  std::vector<Literal> args;
  std::vector<std::vector<uint8_t>> inputs;
  for (int64_t p = 0; p < entry.parameter_count(); ++p) {
    const hlo::Shape& s = entry.parameter(p)->shape;
    args.push_back(RandomLiteral(s, rng, spec));
    // A tuple parameter: one buffer per array leaf, in order.
    const std::vector<hlo::Shape> leaf_shapes = Leaves(s);
    const std::vector<Literal> leaf_values = LeafLiterals(args.back());
    for (size_t k = 0; k < leaf_shapes.size(); ++k) {
      inputs.push_back(ToPhysical(leaf_values[k], leaf_shapes[k]));
    }
  }
  const std::vector<hlo::Shape> result_shapes = Leaves(entry.root()->shape);
  std::vector<size_t> result_bytes;
  for (const hlo::Shape& s : result_shapes) {
    result_bytes.push_back(
        s.IsArray() ? static_cast<size_t>(ComputePhysicalLayout(s).bytes())
                    : 0);
  }
  Result<std::vector<std::vector<uint8_t>>> outputs = run(inputs, result_bytes);
  if (!outputs.ok()) return outputs.error().message;
  if (InterpreterWork(**module) > work_limit) return kTooLargeToInterpret;
  Result<Literal> expected = Error::Unsupported("");
  try {
    expected = Interpret(entry, args);
  } catch (const std::exception& e) {  // a form it does not know
    return kInterpreterRefused + std::string("throws ") + e.what();
  }
  if (!expected.ok()) return kInterpreterRefused + expected.error().message;
  std::vector<Literal> want = LeafLiterals(*expected);
  Tolerance tol;
  tol.rel = c.rel;
  tol.abs = c.abs;
  std::string errors;
  for (size_t k = 0; k < want.size(); ++k) {
    if (!result_shapes[k].IsArray()) continue;  // a token
    Literal got = FromPhysical((*outputs)[k], result_shapes[k]);
    std::string diff = CompareLiterals(want[k], got, tol);
    if (!diff.empty()) {
      errors += "result " + std::to_string(k) + ": " + diff + "\n";
    }
  }
  return errors;
}

}  // namespace program_runner_detail

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

Status CppPrograms::Build(const std::vector<CppKernel>& programs) {
  std::vector<std::string> sources = BatchSources(programs, 2);
  std::vector<std::string> commands;
  std::string objects;
  for (size_t u = 0; u < sources.size(); ++u) {
    std::string src =
        dir_.Write("program" + std::to_string(u) + ".cc", sources[u]);
    commands.push_back(Compiler() +
                       " -std=c++17 -O1 -fPIC -DIXA_NO_MAIN -w -c " + src +
                       " -o " + src + ".o");
    objects += " " + src + ".o";
  }
  for (const CommandResult& r : RunCommands(commands)) {
    if (r.exit_code != 0) {
      return Error::Invalid("g++ rejected the programs:\n" +
                            FirstLines(r.output));
    }
  }
  const std::string so = dir_.path() + "/programs.so";
  CommandResult link =
      RunCommands({Compiler() + " -shared -o " + so + objects})[0];
  if (link.exit_code != 0) {
    return Error::Invalid("link failed:\n" + FirstLines(link.output));
  }
  handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) return Error::Invalid("dlopen failed");
  return Status();
}
Result<std::vector<std::vector<uint8_t>>> CppPrograms::Run(
    const std::string& entry, const std::vector<std::vector<uint8_t>>& params,
    const std::vector<size_t>& result_bytes) const {
  auto run = reinterpret_cast<program_runner_detail::ProgramEntry>(
      dlsym(handle_, entry.c_str()));
  if (run == nullptr) return Error::Invalid("no entry point");
  // Past each result, bytes the program must leave alone.
  constexpr size_t kPast = 64;
  size_t total = 0;
  for (size_t bytes : result_bytes) total += bytes + kPast;
  void* shared =
      mmap(nullptr, std::max<size_t>(total, 1), PROT_READ | PROT_WRITE,
           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return Error::Invalid("mmap failed");
  uint8_t* memory = static_cast<uint8_t*>(shared);
  std::memset(memory, 0xAB, total);
  std::vector<void*> results;
  for (size_t k = 0, at = 0; k < result_bytes.size(); ++k) {
    results.push_back(memory + at);
    at += result_bytes[k] + kPast;
  }
  std::vector<const void*> param_ptrs;
  for (const auto& b : params) param_ptrs.push_back(b.data());
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
    _exit(run(param_ptrs.data(), results.data()) == 0 ? 0 : 3);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::string error = WIFEXITED(status) && WEXITSTATUS(status) == 3
                          ? "the program returned nonzero"
                          : ChildFailure(entry, status);
  std::vector<std::vector<uint8_t>> outputs;
  for (size_t k = 0; k < result_bytes.size() && error.empty(); ++k) {
    const uint8_t* at = static_cast<const uint8_t*>(results[k]);
    for (size_t i = 0; i < kPast; ++i) {
      if (at[result_bytes[k] + i] != 0xAB) {
        error = "the program writes past result " + std::to_string(k);
      }
    }
    outputs.emplace_back(at, at + result_bytes[k]);
  }
  munmap(shared, std::max<size_t>(total, 1));
  if (!error.empty()) return Error::Invalid(error);
  return outputs;
}

CppPrograms::~CppPrograms() {
  if (handle_) dlclose(handle_);
}

Result<std::string> CompileText(const std::string& hlo,
                                const std::string& entry, emit::Target target,
                                bool fuse, bool prefusion) {
  IXA_ASSIGN_OR_RETURN(auto module, hlo::ParseHloModule(hlo));
  emit::CompileOptions options;
  options.target = target;
  options.entry_name = entry;
  ExprContext ctx;
  // As the compile op: the one-device rewrite first, whatever follows.
  IXA_ASSIGN_OR_RETURN(PrefusionResult one_device, RunOneDevice(*module));
  if (one_device.module) module = std::move(one_device.module);
  if (prefusion) {
    IXA_ASSIGN_OR_RETURN(
        PrefusionResult prefused,
        fuse ? RunPrefusion(*module) : RunCompileLowering(*module));
    if (prefused.module) module = std::move(prefused.module);
  }
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

// Runs every case's program, compiled for `target` into one shared object
// (cuda: run in the CPU model of CUDA, its launches in `order`), on random
// inputs and compares with the interpreter (a module whose interpreter
// work exceeds `work_limit` only runs); per case, "" or what went wrong.
// `compile_errors` (when given): per case, the code of compile's error, if
// it did not compile.
std::vector<std::string> RunPrograms(
    const std::vector<ProgramCase>& cases, uint64_t seed, emit::Target target,
    ThreadOrder order, std::vector<std::optional<ErrorCode>>* compile_errors,
    double work_limit) {
  using namespace program_runner_detail;  // NOLINT: this file's helpers
  std::vector<std::string> errors(cases.size());
  if (compile_errors) compile_errors->assign(cases.size(), std::nullopt);
  std::vector<CppKernel> programs;
  std::vector<int> program_of(cases.size(), -1);
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string entry = "program_" + std::to_string(i);
    Result<std::string> code = CompileText(cases[i].hlo, entry, target,
                                           cases[i].fuse, cases[i].prefusion);
    if (!code.ok()) {
      errors[i] = "compile: " + code.error().message;
      if (compile_errors) (*compile_errors)[i] = code.error().code;
      continue;
    }
    if (Sanitized() && i % kSanitizedStride != 0) continue;
    program_of[i] = static_cast<int>(programs.size());
    programs.push_back({entry, *code});
  }
  if (programs.empty()) return errors;
  CppPrograms cpp;
  CudaModelPrograms cuda;
  Status built = target == emit::Target::kCuda ? cuda.Build(programs)
                                               : cpp.Build(programs);
  if (!built.ok()) {
    for (std::string& e : errors) {
      if (e.empty()) e = built.error().message;
    }
    return errors;
  }
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (program_of[i] < 0) continue;
    const std::string& name = programs[program_of[i]].name;
    ProgramRunner run = [&](const std::vector<std::vector<uint8_t>>& params,
                            const std::vector<size_t>& result_bytes) {
      return target == emit::Target::kCuda
                 ? cuda.Run(name, params, result_bytes, order, seed + i)
                 : cpp.Run(name, params, result_bytes);
    };
    try {
      errors[i] = CheckProgram(cases[i], run, rng, work_limit);
    } catch (const std::exception& e) {
      errors[i] = std::string("the test's own code throws: ") + e.what();
    }
  }
  return errors;
}

}  // namespace ixa::emit_test
