// The check every code generator test runs (docs/emitters.md §3): emit a
// fusion for every target, compile the `cpp` code with g++ and run it on
// random inputs against the reference interpreter (bit-exact for data
// movement, integers and comparisons; a tolerance for floats where the
// kernel may reassociate), run the `cuda` code the same way in the CPU
// model of CUDA (tests/emit/cuda_model) with the launch the emitter
// reports, its threads in several orders that must agree, verify the
// `mlir` code with mlir-opt-14 (and run the host form under
// mlir-cpu-runner-14 for chosen cases), compile the `cuda` code with nvcc
// when it is installed (with no_spills, no kernel may spill to local
// memory), and check that every stage is valid for its target. Output
// padding must be written as zero.
#ifndef IXA_TESTS_EMIT_EMIT_HARNESS_H_
#define IXA_TESTS_EMIT_EMIT_HARNESS_H_

#include <functional>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_random_fusions.h"

namespace ixa::emit_test {

struct CheckCase {
  std::string label;
  std::string hlo;
  std::vector<ParameterSpec> parameters;  // optional, per parameter
  bool reassociates = false;
  uint64_t seed = 1;
  bool run_mlir = false;  // also run the host-mode MLIR
  // The emitter kind the plan must choose ("" = any).
  std::string expect_emitter;
};

using Planner =
    std::function<Result<EmitterPlan>(const FusionRegion&, ExprContext*)>;
// The planner the tests use: the real one for an H100.
Planner H100Planner();

struct CheckOptions {
  Planner planner;  // required: how each fusion is planned
  bool run_cpp = true;
  bool run_cuda = true;  // in the CPU model of CUDA
  bool verify_mlir = true;
  bool compile_cuda = true;
  bool no_spills = true;      // nvcc: a kernel that spills fails its case
  bool check_stages = false;  // cpp stages compile, mlir stages verify
};

struct CaseReport {
  std::string label;
  std::string emitter;  // the plan's kind ("" when emission failed)
  std::string error;    // empty when every check passed
};

// Under the sanitizer pass (IXA_SANITIZED=1) every case is still planned
// and emitted for every target, but only every kSanitizedStride-th one
// (emit_driver.h) is compiled, run and verified (the generated code is not
// what the sanitizers check, and the tools are slow there).

struct CheckSummary {
  std::vector<CaseReport> cases;
  bool nvcc_found = false;
  int cpp_runs = 0, cuda_runs = 0, mlir_verified = 0, mlir_runs = 0,
      cuda_compiled = 0;
  int stages_checked = 0;
};

CheckSummary CheckFusions(const std::vector<CheckCase>& cases,
                          const CheckOptions& options = {});

CheckCase FromGenerated(const GeneratedFusion& f, const std::string& label);

// A case made ready to run elsewhere (tools/gpu_check.sh runs the `cuda`
// code on a GPU): its code and launch, the buffers a run starts from, and
// the judge of the buffers after it, with the tolerances above.
struct PortableCase {
  std::string label;
  std::string emitter;
  std::string kernel;  // the `cuda` kernel's name
  std::string cuda_code;
  LaunchDimensions launch;
  std::vector<std::vector<uint8_t>> buffers;  // inputs, then outputs
  std::vector<int> aliases;                   // per buffer, as the response's
  size_t inputs = 0;
  std::string error;  // emission or interpretation failed
  // "" when the buffers after a run hold what the interpreter computes.
  std::function<std::string(const std::vector<std::vector<uint8_t>>&)> check;
};

std::vector<PortableCase> PrepareCases(const std::vector<CheckCase>& cases,
                                       const CheckOptions& options);

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_HARNESS_H_
