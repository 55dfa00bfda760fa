// Catch2 expectations shared by the emit tests.
#ifndef IXA_TESTS_EMIT_EMIT_EXPECTATIONS_H_
#define IXA_TESTS_EMIT_EMIT_EXPECTATIONS_H_

#include <catch2/catch.hpp>
#include <vector>

#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {

// Every case passes every check (MLIR verified and run on the host where
// `mlir` is set) and, outside the sanitizer pass (which runs only some),
// every one ran in C++, in the CUDA model and, with `mlir`, under
// mlir-cpu-runner.
inline void ExpectEveryCaseRuns(std::vector<CheckCase> cases, bool mlir) {
  for (CheckCase& c : cases) c.run_mlir = mlir;
  CheckOptions options;
  options.planner = H100Planner();
  options.verify_mlir = mlir;
  CheckSummary s = CheckFusions(cases, options);
  REQUIRE(s.cases.size() == cases.size());
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
  if (!Sanitized()) {
    CHECK(s.cpp_runs == static_cast<int>(cases.size()));
    CHECK(s.cuda_runs == static_cast<int>(cases.size()));
    if (mlir) CHECK(s.mlir_runs == static_cast<int>(cases.size()));
  }
}

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_EXPECTATIONS_H_
