// A CPU execution model of CUDA, for the tests only: the `cuda` target's
// text compiles as host C++ with this header force-included (-include) and
// runs every block of the grid, the threads of a block as cooperatively
// scheduled fibers. What CUDA leaves undefined is reported as an error
// instead of giving some answer: a shuffle that reads a lane outside its
// mask or a mask lane that never arrives, a barrier that not every thread
// of the block reaches, two threads writing one element without atomics, a
// read of an element another thread wrote with no barrier between, a read
// of shared memory no thread wrote, an access outside the buffers.
//
// Memory accesses are seen through the compiler's ThreadSanitizer
// instrumentation (-fsanitize=thread at compile time only): the units call
// __tsan_read4 / __tsan_write8 / ... before every access, and this model
// defines those functions instead of linking the sanitizer's runtime. The
// kernel text is compiled unchanged.
//
// Nothing here is shared with the emitters: the half-precision conversions,
// the intrinsics and the scheduling are written from CUDA's documentation.
#ifndef IXA_TESTS_EMIT_CUDA_MODEL_CUDA_MODEL_H_
#define IXA_TESTS_EMIT_CUDA_MODEL_CUDA_MODEL_H_

// math.h (not only cmath): CUDA declares the float overloads of the math
// functions (exp(float), tanh(float), ...) in the global namespace, and
// libstdc++'s math.h brings std's overloads there.
#include <math.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "cuda_model_launch.h"

// CUDA's built-in vector types that the grid ids use.
struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
};

namespace ixa_cuda_model {

// Runs `body(context)` as every thread of the grid. Returns nullptr, or
// the first error (text owned by the model, valid until the next launch).
// `const_args[i]`: argument i is a pointer to const.
const char* RunGrid(const LaunchConfig& config, size_t num_args,
                    const bool* const_args, void (*body)(void*), void* context);
// An access by code outside any kernel (the host code of a whole program,
// cuda_model_host.cc): reported when it touches device memory.
void OnHostAccess(const void* address, size_t bytes, bool write);

template <typename... P>
struct KernelCall {
  void (*kernel)(P...);
  void* const* buffers;
  template <size_t... I>
  void Call(std::index_sequence<I...>) const {
    kernel(static_cast<P>(buffers[I])...);
  }
  static void Run(void* self) {
    static_cast<const KernelCall*>(self)->Call(std::index_sequence_for<P...>{});
  }
};

// Launches a kernel whose parameters are all pointers, one per buffer.
template <typename... P>
const char* Launch(void (*kernel)(P...), void* const* buffers,
                   const LaunchConfig& config) {
  static_assert((std::is_pointer<P>::value && ...),
                "kernel parameters are buffer pointers");
  const bool is_const[sizeof...(P) + 1] = {
      std::is_const<typename std::remove_pointer<P>::type>::value..., false};
  KernelCall<P...> call{kernel, buffers};
  return RunGrid(config, sizeof...(P), is_const, &KernelCall<P...>::Run, &call);
}

// ---- What a running thread sees ----

const uint3& ThreadIdx();
const uint3& BlockIdx();
const dim3& BlockDim();
const dim3& GridDim();

void SyncThreads();
enum class Collective : int {
  kShflIndex,
  kShflUp,
  kShflDown,
  kShflXor,
  kBallot,
  kAny,
  kAll,
  kSyncWarp,
};
// Every lane of `mask` (the caller's included) arrives before any lane
// leaves; `value` (bytes) is exchanged, `result` receives the answer.
void WarpCollective(Collective kind, unsigned int mask, const void* value,
                    void* result, size_t bytes, int argument, int width);
unsigned int ActiveMask();
// Fails the run with `message` (misuse of an API the model emulates, such
// as WMMA's alignment rules); the running thread goes on.
void ReportMisuse(const char* message);
// Atomics: the whole read-modify-write runs without a switch to another
// thread; these record it as an atomic access (not a plain one).
void AtomicLoad(const void* address, void* value, size_t bytes);
void AtomicStore(void* address, const void* old_value, const void* new_value,
                 size_t bytes);

template <typename T, typename F>
T AtomicUpdate(T* address, F update) {
  T old;
  AtomicLoad(address, &old, sizeof(T));
  T next = update(old);
  AtomicStore(address, &old, &next, sizeof(T));
  return old;
}

template <typename T>
T Shuffle(Collective kind, unsigned int mask, T value, int argument,
          int width) {
  T result;
  WarpCollective(kind, mask, &value, &result, sizeof(T), argument, width);
  return result;
}

// Round to nearest even, computed on the value (double arithmetic) rather
// than on the bits: `quantum` is the spacing of the target format at the
// value's binade.
inline double RoundToFormat(double a, int mantissa_bits, int min_exponent) {
  // a > 0 and finite. frexp: a = m * 2^e with m in [0.5, 1).
  int e;
  std::frexp(a, &e);
  int exponent = e - 1;  // a in [2^exponent, 2^(exponent + 1))
  if (exponent < min_exponent) exponent = min_exponent;  // subnormal
  double quantum = std::ldexp(1.0, exponent - mantissa_bits);
  return std::nearbyint(a / quantum) * quantum;
}

}  // namespace ixa_cuda_model

// ---- CUDA's function and variable qualifiers ----

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __restrict__
// Shared memory: one copy for the block that runs (blocks run one after
// another), placed in its own section so that the model tells shared
// accesses from others.
#define __shared__ __attribute__((section("ixa_cuda_shared"))) static

#define threadIdx (::ixa_cuda_model::ThreadIdx())
#define blockIdx (::ixa_cuda_model::BlockIdx())
#define blockDim (::ixa_cuda_model::BlockDim())
#define gridDim (::ixa_cuda_model::GridDim())
constexpr int warpSize = 32;

// The compiler must not move memory accesses across a barrier or a warp
// collective (shared arrays are statics whose address never escapes).
#define IXA_CUDA_MODEL_FENCE() asm volatile("" ::: "memory")

inline void __syncthreads() {
  IXA_CUDA_MODEL_FENCE();
  ::ixa_cuda_model::SyncThreads();
  IXA_CUDA_MODEL_FENCE();
}
inline void __syncwarp(unsigned int mask = 0xffffffffu) {
  IXA_CUDA_MODEL_FENCE();
  ::ixa_cuda_model::WarpCollective(::ixa_cuda_model::Collective::kSyncWarp,
                                   mask, nullptr, nullptr, 0, 0, 32);
  IXA_CUDA_MODEL_FENCE();
}
inline void __threadfence() { IXA_CUDA_MODEL_FENCE(); }
inline void __threadfence_block() { IXA_CUDA_MODEL_FENCE(); }
inline unsigned int __activemask() { return ::ixa_cuda_model::ActiveMask(); }

inline unsigned int __ballot_sync(unsigned int mask, int predicate) {
  int p = predicate != 0;
  return ::ixa_cuda_model::Shuffle<unsigned int>(
      ::ixa_cuda_model::Collective::kBallot, mask, static_cast<unsigned>(p), 0,
      32);
}
inline int __any_sync(unsigned int mask, int predicate) {
  return static_cast<int>(::ixa_cuda_model::Shuffle<unsigned int>(
      ::ixa_cuda_model::Collective::kAny, mask, predicate != 0, 0, 32));
}
inline int __all_sync(unsigned int mask, int predicate) {
  return static_cast<int>(::ixa_cuda_model::Shuffle<unsigned int>(
      ::ixa_cuda_model::Collective::kAll, mask, predicate != 0, 0, 32));
}

// The shuffles, overloaded for exactly the types CUDA overloads them for
// (so that an argument converts as it would under nvcc: a float passed
// as int is truncated there and here).
#define IXA_CUDA_MODEL_SHUFFLES(T)                                             \
  inline T __shfl_sync(unsigned int mask, T var, int src_lane,                 \
                       int width = 32) {                                       \
    return ::ixa_cuda_model::Shuffle<T>(                                       \
        ::ixa_cuda_model::Collective::kShflIndex, mask, var, src_lane, width); \
  }                                                                            \
  inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta,        \
                          int width = 32) {                                    \
    return ::ixa_cuda_model::Shuffle<T>(::ixa_cuda_model::Collective::kShflUp, \
                                        mask, var, static_cast<int>(delta),    \
                                        width);                                \
  }                                                                            \
  inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta,      \
                            int width = 32) {                                  \
    return ::ixa_cuda_model::Shuffle<T>(                                       \
        ::ixa_cuda_model::Collective::kShflDown, mask, var,                    \
        static_cast<int>(delta), width);                                       \
  }                                                                            \
  inline T __shfl_xor_sync(unsigned int mask, T var, int lane_mask,            \
                           int width = 32) {                                   \
    return ::ixa_cuda_model::Shuffle<T>(                                       \
        ::ixa_cuda_model::Collective::kShflXor, mask, var, lane_mask, width);  \
  }
IXA_CUDA_MODEL_SHUFFLES(int)
IXA_CUDA_MODEL_SHUFFLES(unsigned int)
IXA_CUDA_MODEL_SHUFFLES(long)
IXA_CUDA_MODEL_SHUFFLES(unsigned long)
IXA_CUDA_MODEL_SHUFFLES(long long)
IXA_CUDA_MODEL_SHUFFLES(unsigned long long)
IXA_CUDA_MODEL_SHUFFLES(float)
IXA_CUDA_MODEL_SHUFFLES(double)

// ---- Atomics (the types CUDA provides them for) ----

#define IXA_CUDA_MODEL_ATOMIC(NAME, T, EXPR)                                 \
  inline T NAME(T* address, T val) {                                         \
    return ::ixa_cuda_model::AtomicUpdate(address,                           \
                                          [&](T old) -> T { return EXPR; }); \
  }
#define IXA_CUDA_MODEL_INTEGER_ATOMICS(T)                                 \
  IXA_CUDA_MODEL_ATOMIC(atomicAdd, T, static_cast<T>(old + val))          \
  IXA_CUDA_MODEL_ATOMIC(atomicExch, T, val)                               \
  IXA_CUDA_MODEL_ATOMIC(atomicMin, T, (val < old ? val : old))            \
  IXA_CUDA_MODEL_ATOMIC(atomicMax, T, (val > old ? val : old))            \
  IXA_CUDA_MODEL_ATOMIC(atomicAnd, T, static_cast<T>(old & val))          \
  IXA_CUDA_MODEL_ATOMIC(atomicOr, T, static_cast<T>(old | val))           \
  IXA_CUDA_MODEL_ATOMIC(atomicXor, T, static_cast<T>(old ^ val))          \
  inline T atomicCAS(T* address, T compare, T val) {                      \
    return ::ixa_cuda_model::AtomicUpdate(                                \
        address, [&](T old) -> T { return old == compare ? val : old; }); \
  }
IXA_CUDA_MODEL_INTEGER_ATOMICS(int)
IXA_CUDA_MODEL_INTEGER_ATOMICS(unsigned int)
IXA_CUDA_MODEL_INTEGER_ATOMICS(unsigned long long)
IXA_CUDA_MODEL_ATOMIC(atomicSub, int,
                      static_cast<int>(static_cast<unsigned>(old) -
                                       static_cast<unsigned>(val)))
IXA_CUDA_MODEL_ATOMIC(atomicSub, unsigned int, old - val)
IXA_CUDA_MODEL_ATOMIC(atomicMin, long long, (val < old ? val : old))
IXA_CUDA_MODEL_ATOMIC(atomicMax, long long, (val > old ? val : old))
IXA_CUDA_MODEL_ATOMIC(atomicAdd, float, old + val)
IXA_CUDA_MODEL_ATOMIC(atomicAdd, double, old + val)
IXA_CUDA_MODEL_ATOMIC(atomicExch, float, val)
inline unsigned short atomicCAS(unsigned short* address, unsigned short compare,
                                unsigned short val) {
  return ::ixa_cuda_model::AtomicUpdate(
      address, [&](unsigned short old) -> unsigned short {
        return old == compare ? val : old;
      });
}
inline unsigned int atomicInc(unsigned int* address, unsigned int val) {
  return ::ixa_cuda_model::AtomicUpdate(
      address, [&](unsigned int old) { return old >= val ? 0u : old + 1; });
}
inline unsigned int atomicDec(unsigned int* address, unsigned int val) {
  return ::ixa_cuda_model::AtomicUpdate(address, [&](unsigned int old) {
    return (old == 0 || old > val) ? val : old - 1;
  });
}

// ---- Integer intrinsics ----

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x));
}
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __float_as_int(float x) {
  int i;
  std::memcpy(&i, &x, 4);
  return i;
}
inline float __int_as_float(int i) {
  float x;
  std::memcpy(&x, &i, 4);
  return x;
}
inline unsigned int __float_as_uint(float x) {
  unsigned int i;
  std::memcpy(&i, &x, 4);
  return i;
}
inline float __uint_as_float(unsigned int i) {
  float x;
  std::memcpy(&x, &i, 4);
  return x;
}
inline long long __double_as_longlong(double x) {
  long long i;
  std::memcpy(&i, &x, 8);
  return i;
}
inline double __longlong_as_double(long long i) {
  double x;
  std::memcpy(&x, &i, 8);
  return x;
}

// ---- cuda_fp16.h and cuda_bf16.h ----
// Conversions to the 16-bit formats round to nearest even and give the
// canonical NaN (0x7fff) for a NaN, as the hardware conversions do
// (cvt.rn.f16.f32, cvt.rn.bf16.f32). Widening keeps every number; what it
// does with a NaN's payload CUDA does not document, so here a NaN widens
// to the canonical NaN: code that must keep a NaN's bits keeps them itself.

struct __half {
  unsigned short __x;
};
struct __nv_bfloat16 {
  unsigned short __x;
};
using half = __half;
using nv_bfloat16 = __nv_bfloat16;

inline __half __ushort_as_half(unsigned short bits) { return __half{bits}; }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __short_as_half(short bits) {
  return __half{static_cast<unsigned short>(bits)};
}
inline short __half_as_short(__half h) { return static_cast<short>(h.__x); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short bits) {
  return __nv_bfloat16{bits};
}
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline __nv_bfloat16 __short_as_bfloat16(short bits) {
  return __nv_bfloat16{static_cast<unsigned short>(bits)};
}
inline short __bfloat16_as_short(__nv_bfloat16 h) {
  return static_cast<short>(h.__x);
}

inline __half __float2half_rn(float f) {
  if (std::isnan(f)) return __half{0x7fff};
  unsigned short sign = std::signbit(f) ? 0x8000 : 0;
  double a = std::fabs(static_cast<double>(f));
  if (a == 0) return __half{sign};
  // Largest half 65504; halfway to the next binade (65520) rounds to even,
  // which is up: infinity.
  if (a >= 65520.0 || std::isinf(a)) {
    return __half{static_cast<unsigned short>(sign | 0x7c00)};
  }
  double r = ::ixa_cuda_model::RoundToFormat(a, 10, -14);
  if (r < std::ldexp(1.0, -14)) {  // subnormal: r = q * 2^-24
    return __half{static_cast<unsigned short>(
        sign | static_cast<unsigned short>(std::ldexp(r, 24)))};
  }
  int e;
  double m = std::frexp(r, &e);  // r = m * 2^e, m in [0.5, 1)
  unsigned int exponent = static_cast<unsigned int>(e - 1 + 15);
  unsigned int mantissa =
      static_cast<unsigned int>(std::ldexp(m, 11)) - 1024;  // 10 bits
  return __half{
      static_cast<unsigned short>(sign | (exponent << 10) | mantissa)};
}
inline __half __float2half(float f) { return __float2half_rn(f); }
inline float __half2float(__half h) {
  unsigned int sign = h.__x >> 15, exponent = (h.__x >> 10) & 0x1f,
               mantissa = h.__x & 0x3ff;
  double v;
  if (exponent == 31) {
    if (mantissa != 0) return __uint_as_float(0x7fffffffu);
    v = std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);
  } else {
    v = std::ldexp(static_cast<double>(1024 + mantissa),
                   static_cast<int>(exponent) - 25);
  }
  return static_cast<float>(sign ? -v : v);
}

inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  if (std::isnan(f)) return __nv_bfloat16{0x7fff};
  double a = std::fabs(static_cast<double>(f));
  float r = f;
  if (a != 0 && !std::isinf(a)) {
    // bf16 keeps f32's exponent range (and its subnormals, quantum 2^-133)
    // with 7 mantissa bits; a rounded value of 2^128 overflows to infinity.
    double q = ::ixa_cuda_model::RoundToFormat(a, 7, -126);
    if (q >= std::ldexp(1.0, 128)) q = std::numeric_limits<double>::infinity();
    r = static_cast<float>(std::signbit(f) ? -q : q);
  }
  return __nv_bfloat16{static_cast<unsigned short>(__float_as_uint(r) >> 16)};
}
inline __nv_bfloat16 __float2bfloat16(float f) {
  return __float2bfloat16_rn(f);
}
inline float __bfloat162float(__nv_bfloat16 h) {
  if ((h.__x & 0x7fff) > 0x7f80) return __uint_as_float(0x7fffffffu);
  return __uint_as_float(static_cast<unsigned int>(h.__x) << 16);
}

IXA_CUDA_MODEL_SHUFFLES(__half)
IXA_CUDA_MODEL_SHUFFLES(__nv_bfloat16)

// The 16-bit atomic adds (sm_70 f16, sm_80 bf16) round the exact sum once;
// the f32 sum rounded to the format is that (f32 has more than twice the
// formats' precision plus two bits, so the double rounding is harmless).
IXA_CUDA_MODEL_ATOMIC(atomicAdd, __half,
                      __float2half_rn(__half2float(old) + __half2float(val)))
IXA_CUDA_MODEL_ATOMIC(atomicAdd, __nv_bfloat16,
                      __float2bfloat16_rn(__bfloat162float(old) +
                                          __bfloat162float(val)))

// The emitted code takes the device path of its helpers.
#define __CUDACC__ 1
#define __CUDA_ARCH__ 800

#endif  // IXA_TESTS_EMIT_CUDA_MODEL_CUDA_MODEL_H_
