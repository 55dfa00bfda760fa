// Whole modules compiled into one program each (emit/program) and run on
// random inputs against the reference interpreter: the programs of a batch
// in one shared object (each in its own namespace, with its own entry
// point), each run in a forked child. Shared by the program tests.
#ifndef IXA_TESTS_EMIT_EMIT_PROGRAMS_H_
#define IXA_TESTS_EMIT_EMIT_PROGRAMS_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "core/result.h"
#include "emit/program/program.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_compile_modules.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {

// What CheckProgram answers when the interpreter refused the module, or
// did not run it (too large).
inline constexpr char kInterpreterRefused[] = "interpreter: ";
inline constexpr char kTooLargeToInterpret[] = "too large for the interpreter";

// The program of a module's text, as the compile op makes it: the
// one-device rewrite, then (per the flags) XLA's pre-fusion passes and
// fusion_plan, then emit::CompileModule.
Result<std::string> CompileText(const std::string& hlo,
                                const std::string& entry,
                                emit::Target target = emit::Target::kCpp,
                                bool fuse = false, bool prefusion = false);

// The array leaves of a shape / literal, in order.
std::vector<hlo::Shape> Leaves(const hlo::Shape& s);
std::vector<Literal> LeafLiterals(const Literal& l);

// Runs every case's program, compiled for `target` into one shared object
// (cuda: run in the CPU model of CUDA, its launches in `order`), on random
// inputs (a tuple parameter as one buffer per leaf) and compares with the
// interpreter (a module whose interpreter work exceeds `work_limit` only
// runs); per case, "" or what went wrong. `compile_errors` (when given):
// per case, the code of compile's error, if it did not compile.
std::vector<std::string> RunPrograms(
    const std::vector<ProgramCase>& cases, uint64_t seed,
    emit::Target target = emit::Target::kCpp,
    ThreadOrder order = ThreadOrder::kForward,
    std::vector<std::optional<ErrorCode>>* compile_errors = nullptr,
    double work_limit = std::numeric_limits<double>::infinity());

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_PROGRAMS_H_
