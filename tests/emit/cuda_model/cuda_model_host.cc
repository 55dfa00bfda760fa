// The host API of the CPU model of CUDA (include/cuda_runtime.h), for
// whole programs: device memory is a pool of the model's own (allocations
// 256-byte aligned with unallocated bytes between them, filled with 0xff
// when allocated: NaN as floats), copies check their direction against
// it, launches run the grid at once with each argument's allocation as its
// buffer, and a failed kernel is a sticky error, as an unspecified launch
// failure is under CUDA. Host code of the program (compiled with the
// instrumentation, cuda_model.h) that touches device memory without the
// API is reported, as are copies between overlapping ranges and launches
// with arguments outside device memory.
//
// Compiled without instrumentation with the model (cuda_model.cc).
#include <sys/mman.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <string>

// Last: its macros (__shared__, threadIdx, ...) are for kernel text.
#include "include/cuda_runtime.h"

namespace ixa_cuda_model {
namespace {

constexpr size_t kPoolBytes = size_t{1} << 32;  // address space only
constexpr size_t kDeviceAlignment = 256;
constexpr size_t kAllocationGap = 256;
constexpr unsigned char kFreshByte = 0xff;

char* g_pool = nullptr;
std::map<size_t, size_t> g_allocations;  // offset in the pool -> bytes

// The program's state.
bool g_checking_host = false;  // between program start and stop
bool g_in_api = false;         // the model's own code runs
Order g_order = Order::kForward;
uint64_t g_seed = 1;
uint64_t g_launches = 0;
cudaError_t g_last_error = cudaSuccess;
bool g_failed = false;        // a kernel failed: every call fails
std::string g_first_problem;  // what the test reports
std::string g_last_message;   // detail of g_last_error

class ApiCall {  // the accesses of the API's own code are not the host's
 public:
  ApiCall() : saved_(g_in_api) { g_in_api = true; }
  ~ApiCall() { g_in_api = saved_; }

 private:
  bool saved_;
};

void Problem(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Problem(const char* format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  g_last_message = text;
  if (g_first_problem.empty()) g_first_problem = text;
}

cudaError_t Fail(cudaError_t error) {
  g_last_error = error;
  return error;
}

bool Pool() {
  if (g_pool) return true;
  void* p = mmap(nullptr, kPoolBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  g_pool = static_cast<char*>(p);
  return true;
}

bool InPool(const void* p) {
  const char* c = static_cast<const char*>(p);
  return g_pool && c >= g_pool && c < g_pool + kPoolBytes;
}

// The allocation holding byte `p`, or g_allocations.end().
std::map<size_t, size_t>::const_iterator AllocationAt(const void* p) {
  if (!InPool(p)) return g_allocations.end();
  const size_t at = static_cast<size_t>(static_cast<const char*>(p) - g_pool);
  auto it = g_allocations.upper_bound(at);
  if (it == g_allocations.begin()) return g_allocations.end();
  --it;
  return at < it->first + it->second ? it : g_allocations.end();
}

// Whether [p, p + bytes) lies in one allocation; else reports why, naming
// `what` ("the destination of cudaMemcpy", ...).
bool DeviceRange(const void* p, size_t bytes, const char* what) {
  auto it = AllocationAt(p);
  if (it == g_allocations.end()) {
    Problem("%s (%p) is not device memory", what, p);
    return false;
  }
  const size_t at = static_cast<size_t>(static_cast<const char*>(p) - g_pool);
  if (at + bytes > it->first + it->second) {
    Problem(
        "%s: %zu bytes from byte %zu of a %zu-byte allocation run past "
        "its end",
        what, bytes, at - it->first, it->second);
    return false;
  }
  return true;
}

bool HostRange(const void* p, size_t bytes, const char* what) {
  const char* c = static_cast<const char*>(p);
  if (g_pool && c < g_pool + kPoolBytes && c + bytes > g_pool) {
    Problem("%s (%p) is device memory", what, p);
    return false;
  }
  return true;
}

const char* ErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer:
      return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection:
      return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}

cudaError_t Copy(void* destination, const void* source, size_t bytes,
                 cudaMemcpyKind kind) {
  if (g_failed) return cudaErrorLaunchFailure;
  if (bytes == 0) return cudaSuccess;
  bool ok = true;
  switch (kind) {
    case cudaMemcpyHostToDevice:
      ok = HostRange(source, bytes, "the source of a host-to-device copy") &&
           DeviceRange(destination, bytes,
                       "the destination of a host-to-device copy");
      break;
    case cudaMemcpyDeviceToHost:
      ok = DeviceRange(source, bytes, "the source of a device-to-host copy") &&
           HostRange(destination, bytes,
                     "the destination of a device-to-host copy");
      break;
    case cudaMemcpyDeviceToDevice:
      ok =
          DeviceRange(source, bytes, "the source of a device-to-device copy") &&
          DeviceRange(destination, bytes,
                      "the destination of a device-to-device copy");
      break;
    case cudaMemcpyHostToHost:
      ok = HostRange(source, bytes, "the source of a host-to-host copy") &&
           HostRange(destination, bytes,
                     "the destination of a host-to-host copy");
      break;
    case cudaMemcpyDefault:
      break;
    default:
      Problem("cudaMemcpy with the kind %d", static_cast<int>(kind));
      return Fail(cudaErrorInvalidMemcpyDirection);
  }
  if (!ok) return Fail(cudaErrorInvalidValue);
  const char* d = static_cast<const char*>(destination);
  const char* s = static_cast<const char*>(source);
  if (d < s + bytes && s < d + bytes) {
    Problem(
        "cudaMemcpy of %zu bytes between overlapping ranges (%td bytes "
        "apart), which CUDA leaves undefined",
        bytes, d - s);
    return Fail(cudaErrorInvalidValue);
  }
  std::memcpy(destination, source, bytes);
  return cudaSuccess;
}

cudaError_t Set(void* pointer, int value, size_t bytes) {
  if (g_failed) return cudaErrorLaunchFailure;
  if (bytes == 0) return cudaSuccess;
  if (!DeviceRange(pointer, bytes, "the memory of cudaMemset")) {
    return Fail(cudaErrorInvalidValue);
  }
  std::memset(pointer, value, bytes);
  return cudaSuccess;
}

}  // namespace

// Called by the instrumentation hooks (cuda_model.cc) for accesses outside
// kernels.
void OnHostAccess(const void* address, size_t bytes, bool write) {
  if (!g_checking_host || g_in_api || !InPool(address)) return;
  ApiCall api;
  Problem("host code %s %zu bytes of device memory at %p without cudaMemcpy",
          write ? "writes" : "reads", bytes, address);
}

bool PrepareHostLaunch(const char* kernel, const dim3& grid, const dim3& block,
                       size_t shared_bytes, void* const* arguments,
                       size_t count, LaunchConfig* config,
                       BufferRange* ranges) {
  ApiCall api;
  ++g_launches;
  if (g_failed) return false;
  if (shared_bytes != 0) {
    Problem(
        "launch of %s asks for %zu bytes of dynamic shared memory, which "
        "the model does not provide",
        kernel, shared_bytes);
    Fail(cudaErrorInvalidConfiguration);
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    ranges[i] = BufferRange{};
    if (arguments[i] == nullptr) continue;
    auto it = AllocationAt(arguments[i]);
    if (it == g_allocations.end()) {
      Problem("launch of %s: argument %zu (%p) is not device memory", kernel, i,
              arguments[i]);
      Fail(cudaErrorInvalidValue);
      return false;
    }
    ranges[i] = BufferRange{g_pool + it->first, it->second};
  }
  config->grid[0] = grid.x;
  config->grid[1] = grid.y;
  config->grid[2] = grid.z;
  config->block[0] = block.x;
  config->block[1] = block.y;
  config->block[2] = block.z;
  config->order = g_order;
  config->seed = g_seed + g_launches;
  config->buffers = ranges;
  config->num_buffers = count;
  config->arena_begin = g_pool;
  config->arena_end = g_pool + kPoolBytes;
  g_in_api = true;  // RunGrid's own accesses; FinishHostLaunch ends it
  return true;
}

void FinishHostLaunch(const char* kernel, const char* error) {
  g_in_api = false;
  if (error == nullptr) return;
  ApiCall api;
  Problem("launch %llu (%s): %s", static_cast<unsigned long long>(g_launches),
          kernel, error);
  g_failed = true;
  Fail(cudaErrorLaunchFailure);
}

}  // namespace ixa_cuda_model

using namespace ixa_cuda_model;  // NOLINT: the definitions of the C API

extern "C" {

cudaError_t cudaMalloc(void** pointer, size_t bytes) {
  ApiCall api;
  if (pointer == nullptr) return Fail(cudaErrorInvalidValue);
  *pointer = nullptr;
  if (g_failed) return cudaErrorLaunchFailure;
  if (bytes == 0) return cudaSuccess;
  if (!Pool()) return Fail(cudaErrorMemoryAllocation);
  // First fit, with unallocated bytes before and after every allocation.
  size_t at = kDeviceAlignment;
  for (const auto& [offset, size] : g_allocations) {
    if (at + bytes + kAllocationGap <= offset) break;
    at = (offset + size + kAllocationGap + kDeviceAlignment - 1) /
         kDeviceAlignment * kDeviceAlignment;
  }
  if (at + bytes > kPoolBytes) return Fail(cudaErrorMemoryAllocation);
  g_allocations[at] = bytes;
  std::memset(g_pool + at, kFreshByte, bytes);
  *pointer = g_pool + at;
  return cudaSuccess;
}

cudaError_t cudaFree(void* pointer) {
  ApiCall api;
  if (g_failed) return cudaErrorLaunchFailure;
  if (pointer == nullptr) return cudaSuccess;
  auto it = AllocationAt(pointer);
  if (it == g_allocations.end() || g_pool + it->first != pointer) {
    Problem("cudaFree(%p), which no cudaMalloc returned", pointer);
    return Fail(cudaErrorInvalidDevicePointer);
  }
  g_allocations.erase(it);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* destination, const void* source, size_t bytes,
                       cudaMemcpyKind kind) {
  ApiCall api;
  return Copy(destination, source, bytes, kind);
}

cudaError_t cudaMemcpyAsync(void* destination, const void* source, size_t bytes,
                            cudaMemcpyKind kind, cudaStream_t) {
  ApiCall api;
  return Copy(destination, source, bytes, kind);
}

cudaError_t cudaMemset(void* pointer, int value, size_t bytes) {
  ApiCall api;
  return Set(pointer, value, bytes);
}

cudaError_t cudaMemsetAsync(void* pointer, int value, size_t bytes,
                            cudaStream_t) {
  ApiCall api;
  return Set(pointer, value, bytes);
}

cudaError_t cudaGetLastError() {
  const cudaError_t e = g_failed ? cudaErrorLaunchFailure : g_last_error;
  g_last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  return g_failed ? cudaErrorLaunchFailure : g_last_error;
}

cudaError_t cudaDeviceSynchronize() {
  return g_failed ? cudaErrorLaunchFailure : cudaSuccess;
}

const char* cudaGetErrorString(cudaError_t error) {
  ApiCall api;
  static std::string text;
  text = ErrorName(error);
  if (error != cudaSuccess && !g_last_message.empty()) {
    text += " (the model: " + g_last_message + ")";
  }
  return text.c_str();
}

const char* cudaGetErrorName(cudaError_t error) { return ErrorName(error); }

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  if (stream == nullptr) return Fail(cudaErrorInvalidValue);
  *stream = nullptr;  // the one stream: everything runs in program order
  return g_failed ? cudaErrorLaunchFailure : cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t) {
  return g_failed ? cudaErrorLaunchFailure : cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return g_failed ? cudaErrorLaunchFailure : cudaSuccess;
}

// ---- For the test driver (tests/emit/cuda_model_driver.h) ----

// Starts checking a program's host code: launches run in `order` with
// seeds from `seed`; the errors of an earlier program are forgotten.
void ixa_cuda_model_program_start(int order, uint64_t seed) {
  g_order = static_cast<Order>(order);
  g_seed = seed;
  g_launches = 0;
  g_last_error = cudaSuccess;
  g_failed = false;
  g_first_problem.clear();
  g_last_message.clear();
  g_checking_host = true;
}

void ixa_cuda_model_program_stop() { g_checking_host = false; }

// The program's first problem (a failed kernel, a bad copy, a host access
// to device memory, ...), or nullptr.
const char* ixa_cuda_model_program_problem() {
  return g_first_problem.empty() ? nullptr : g_first_problem.c_str();
}

size_t ixa_cuda_model_live_allocations() { return g_allocations.size(); }

}  // extern "C"
