// Whole programs of the `cpp` target (emit/program, docs/compile.md)
// compiled into one shared object and called in this process: each run in
// a forked child, its results checked for writes past their end.
#ifndef IXA_TESTS_EMIT_EMIT_PROGRAM_RUNNER_H_
#define IXA_TESTS_EMIT_EMIT_PROGRAM_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "tests/emit/emit_driver.h"

namespace ixa::emit_test {

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

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_PROGRAM_RUNNER_H_
