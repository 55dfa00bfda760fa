// cuda_runtime.h of the CPU model of CUDA (cuda_model.h, force-included):
// the host API a whole `compile --target cuda` program calls, defined by
// cuda_model_host.cc. Device memory is a pool of the model's own, so that
// a kernel touching memory no argument points into, and host code
// touching device memory without cudaMemcpy, are reported instead of
// giving some answer.
//
// A launch `k<<<grid, block, shared, stream>>>(args)` is not C++: the test
// driver writes it as IXA_CUDA_MODEL_LAUNCH(k, grid, block, shared,
// stream)(args) before compiling the program (tests/emit/
// cuda_model_driver.h), which runs the grid when the call returns, as a
// launch followed by cudaDeviceSynchronize would.
#ifndef IXA_TESTS_EMIT_CUDA_MODEL_INCLUDE_CUDA_RUNTIME_H_
#define IXA_TESTS_EMIT_CUDA_MODEL_INCLUDE_CUDA_RUNTIME_H_

#include "../cuda_model.h"

// The values of CUDA's enumerators, so that code printing or comparing
// them sees what it would under the real runtime.
enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorLaunchFailure = 719,
};
using cudaError = cudaError_t;

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

struct CUstream_st;
using cudaStream_t = CUstream_st*;

extern "C" {
cudaError_t cudaMalloc(void** pointer, size_t bytes);
cudaError_t cudaFree(void* pointer);
cudaError_t cudaMemcpy(void* destination, const void* source, size_t bytes,
                       cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* destination, const void* source, size_t bytes,
                            cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset(void* pointer, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* pointer, int value, size_t bytes,
                            cudaStream_t stream);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaDeviceSynchronize();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
}  // extern "C"

// cuda_runtime.h's typed overload.
template <typename T>
cudaError_t cudaMalloc(T** pointer, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
}

namespace ixa_cuda_model {

// Checks a launch from host code and prepares its configuration: each
// argument's buffer is the device allocation it points into. False (the
// launch's error recorded) when the launch cannot run.
bool PrepareHostLaunch(const char* kernel, const dim3& grid, const dim3& block,
                       size_t shared_bytes, void* const* arguments,
                       size_t count, LaunchConfig* config, BufferRange* ranges);
// Records the launch's outcome (nullptr or the model's first error).
void FinishHostLaunch(const char* kernel, const char* error);

template <typename... P>
struct HostLaunch {
  void (*kernel)(P...);
  const char* name;
  dim3 grid, block;
  size_t shared_bytes;
  void operator()(P... args) const {
    void* arguments[sizeof...(P) + 1] = {
        const_cast<void*>(static_cast<const void*>(args))..., nullptr};
    BufferRange ranges[sizeof...(P) + 1];
    LaunchConfig config;
    if (!PrepareHostLaunch(name, grid, block, shared_bytes, arguments,
                           sizeof...(P), &config, ranges)) {
      return;
    }
    FinishHostLaunch(name, Launch(kernel, arguments, config));
  }
};

template <typename... P>
HostLaunch<P...> MakeHostLaunch(void (*kernel)(P...), const char* name,
                                dim3 grid, dim3 block, size_t shared_bytes = 0,
                                cudaStream_t stream = nullptr) {
  (void)stream;  // one stream: launches run in program order
  return HostLaunch<P...>{kernel, name, grid, block, shared_bytes};
}

}  // namespace ixa_cuda_model

#define IXA_CUDA_MODEL_LAUNCH(kernel, ...) \
  ::ixa_cuda_model::MakeHostLaunch(kernel, #kernel, __VA_ARGS__)

#endif  // IXA_TESTS_EMIT_CUDA_MODEL_INCLUDE_CUDA_RUNTIME_H_
