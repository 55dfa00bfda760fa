// Running the `cuda` target's kernels in the CPU execution model of CUDA
// (tests/emit/cuda_model): the kernel text is compiled as host C++ with
// the model's header force-included and ThreadSanitizer's instrumentation
// (whose hooks the model defines), linked with the model into one shared
// object per batch, and each kernel runs in a forked child on buffers in
// shared memory between guard zones, with the launch the emit response
// reports. The model's errors (races, shuffles outside their mask,
// barriers not every thread reaches, accesses outside the buffers) fail
// the run.
#ifndef IXA_TESTS_EMIT_CUDA_MODEL_DRIVER_H_
#define IXA_TESTS_EMIT_CUDA_MODEL_DRIVER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "core/result.h"
#include "tests/emit/emit_driver.h"

namespace ixa::emit_test {

// The orders in which the model runs a block's threads (and the blocks).
enum class ThreadOrder { kForward = 0, kReverse = 1, kRandom = 2 };
const char* ThreadOrderName(ThreadOrder order);
inline constexpr ThreadOrder kThreadOrders[] = {
    ThreadOrder::kForward, ThreadOrder::kReverse, ThreadOrder::kRandom};

// The entry CudaModelBatch::Build adds after each kernel's text (for a
// text holding several kernels, the others' entries).
std::string CudaModelEntry(const std::string& kernel);

class CudaModelBatch {
 public:
  // Compiles the kernels (each `extern "C" __global__` kernel `name` of
  // the `cuda` target) in `units` translation units and loads them.
  Status Build(const std::vector<CppKernel>& kernels, int units = 2);
  // Only compiles; for finding the kernel a failed batch stumbled on.
  static Status CompileOnly(const std::vector<CppKernel>& kernels,
                            int units = 1);

  // Runs kernel `name` with `launch` (threads and blocks) on the buffers
  // (one per kernel argument; an output pre-filled by the caller), as
  // CppBatch::Run does. Errors: the model's first error, a crash, a write
  // outside the buffers.
  Status Run(const std::string& name, const LaunchDimensions& launch,
             ThreadOrder order, uint64_t seed,
             std::vector<std::vector<uint8_t>>* buffers,
             const std::vector<int>& aliases = {}) const;
  ~CudaModelBatch();

 private:
  TempDir dir_;
  void* handle_ = nullptr;
};

// Whole programs of the `cuda` target (emit/program, docs/compile.md) in
// the model, with its host API (cuda_model/include/cuda_runtime.h).
// `program` with every launch `k<<<grid, block[, shared[, stream]]>>>(`
// written as `IXA_CUDA_MODEL_LAUNCH(k, grid, block...)(`, the one CUDA
// syntax C++ cannot read; Invalid for a `<<<` without its `>>>`.
Result<std::string> CudaModelLaunches(const std::string& program);

class CudaModelPrograms {
 public:
  // Compiles the programs (CppKernel::name: the program's extern "C"
  // entry, compiled with -DIXA_NO_MAIN) and loads them with the model.
  Status Build(const std::vector<CppKernel>& programs, int units = 2);
  // Runs entry `name` in a forked child: the parameters are copied into
  // device memory (cudaMalloc, cudaMemcpy), the results come back, one
  // per leaf of `result_bytes`. Errors: a nonzero return, the model's
  // first problem (a kernel's error, a copy outside an allocation, host
  // code touching device memory), a device allocation the program does
  // not free, a crash.
  Result<std::vector<std::vector<uint8_t>>> Run(
      const std::string& name, const std::vector<std::vector<uint8_t>>& params,
      const std::vector<size_t>& result_bytes, ThreadOrder order,
      uint64_t seed) const;
  ~CudaModelPrograms();

 private:
  TempDir dir_;
  void* handle_ = nullptr;
};

// The model's own objects, compiled once per process; an error when the
// compiler or Boost.Context is missing.
Result<std::vector<std::string>> CudaModelObjects();

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_CUDA_MODEL_DRIVER_H_
