// Running whole-module programs in the tests (emit/program,
// docs/compile.md): each case compiled as the compile op does, the cpp
// programs of a batch built into one shared object and run in forked
// children, the cuda ones run in the CPU model of CUDA
// (tests/emit/cuda_model), on random inputs, and compared with the
// reference interpreter (emit_interpreter.h).
#ifndef IXA_TESTS_EMIT_EMIT_PROGRAM_RUNNER_H_
#define IXA_TESTS_EMIT_EMIT_PROGRAM_RUNNER_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "core/result.h"
#include "emit/targets/targets.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_compile_modules.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {

// The cpp programs, compiled into one shared object and called in this
// process: each run in a forked child, its results checked for writes
// past their end.
class CppPrograms {
 public:
  // Compiles the programs (CppKernel::name: the program's extern "C"
  // entry, compiled with -DIXA_NO_MAIN) and loads them.
  Status Build(const std::vector<CppKernel>& programs);
  // Runs entry `entry` in a forked child (a crash or a program that never
  // ends fails the run, not the test) on the parameters' buffers; the
  // results (one per leaf, of `result_bytes` each) come back through
  // shared memory.
  Result<std::vector<std::vector<uint8_t>>> Run(
      const std::string& entry, const std::vector<std::vector<uint8_t>>& params,
      const std::vector<size_t>& result_bytes) const;
  ~CppPrograms();

 private:
  TempDir dir_;
  void* handle_ = nullptr;
};

// A shape's array leaves, tuples flattened in order; a literal's likewise.
std::vector<hlo::Shape> Leaves(const hlo::Shape& s);
std::vector<Literal> LeafLiterals(const Literal& l);

// The program of `hlo` for `target` with entry point `entry`: the
// one-device rewrite first (RunOneDevice, as the compile op), then XLA's
// pre-fusion pipeline first where `prefusion` (all of it when fusing, the
// lowering every compile needs otherwise: RunCompileLowering), fused by
// fusion_plan where `fuse`.
Result<std::string> CompileText(const std::string& hlo,
                                const std::string& entry,
                                emit::Target target = emit::Target::kCpp,
                                bool fuse = false, bool prefusion = false);

// What RunPrograms answers for a case the interpreter does not compute
// (the prefix of the message), or one it was not asked to (too large).
inline constexpr char kInterpreterRefused[] = "interpreter: ";
inline constexpr char kTooLargeToInterpret[] = "too large for the interpreter";

// Runs every case's program, compiled for `target` into one shared object
// (cuda: run in the CPU model of CUDA, its launches in `order`), on random
// inputs (floats and each part of a complex value uniform in [-1, 1],
// integers in [-1, 3]) and compares with the interpreter within the case's
// tolerance (a module whose interpreter work exceeds `work_limit` only
// runs); per case, "" or what went wrong. In the sanitizer pass every case
// is compiled but only every kSanitizedStride-th one runs (the others
// answer "" unless compile failed). `compile_errors` (when given):
// per case, the code of compile's error, if it did not compile.
std::vector<std::string> RunPrograms(
    const std::vector<ProgramCase>& cases, uint64_t seed,
    emit::Target target = emit::Target::kCpp,
    ThreadOrder order = ThreadOrder::kForward,
    std::vector<std::optional<ErrorCode>>* compile_errors = nullptr,
    double work_limit = std::numeric_limits<double>::infinity());

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_PROGRAM_RUNNER_H_
