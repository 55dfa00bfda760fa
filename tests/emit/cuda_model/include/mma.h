// mma.h of the CPU model of CUDA: nvcuda::wmma's warp matrix functions for
// the 16x16x16 shape (CUDA C++ Programming Guide, "Warp Matrix
// Functions"). A fragment's element layout is opaque in CUDA; in this
// model lane l holds elements 8 l .. 8 l + 7 of the fragment's 16 x 16
// matrix taken row-major (matrix_a: m x k, matrix_b: k x n, accumulator:
// m x n), so that code which assumes any layout of its own computes the
// wrong answer here. Every call is warp-collective as CUDA requires: the
// whole warp must arrive (a __syncwarp of all 32 lanes, which the model
// checks). mma_sync exchanges the lanes' fragments through per-warp
// storage the model keeps outside the instrumented memory, multiplies
// exactly (16-bit products are exact in f32) and rounds each sum of 16
// products plus the accumulator once to f32.
#ifndef IXA_TESTS_EMIT_CUDA_MODEL_MMA_H_
#define IXA_TESTS_EMIT_CUDA_MODEL_MMA_H_

#include "../cuda_model.h"

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
  static_assert(M == 16 && N == 16 && K == 16,
                "the CUDA model has the 16x16x16 WMMA shape only");
  static constexpr int num_elements = 8;
  T x[8];
};

namespace model {

inline int Lane() {
  const unsigned linear =
      (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  return static_cast<int>(linear % 32);
}
inline int Warp() {
  const unsigned linear =
      (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  return static_cast<int>(linear / 32);
}
inline float Value(__nv_bfloat16 v) { return __bfloat162float(v); }
inline float Value(__half v) { return __half2float(v); }
inline float Value(float v) { return v; }

// CUDA's rules for the pointer and stride of a load or store: 256-bit
// aligned, the stride a multiple of 16 bytes.
template <typename T>
inline void CheckMemory(const T* p, unsigned ldm, const char* what) {
  if (reinterpret_cast<uintptr_t>(p) % 32 != 0) {
    ::ixa_cuda_model::ReportMisuse(what);
  }
  if ((ldm * sizeof(T)) % 16 != 0) ::ixa_cuda_model::ReportMisuse(what);
}

// The lanes' fragments of one warp, as floats: [warp][a or b][256].
__attribute__((noinline, no_sanitize("thread"))) inline void Multiply(
    int warp, int lane, const float* a8, const float* b8, const float* c8,
    float* d8) {
  static float exchange[32][2][256];
  for (int i = 0; i < 8; ++i) {
    exchange[warp][0][lane * 8 + i] = a8[i];
    exchange[warp][1][lane * 8 + i] = b8[i];
  }
  __syncwarp();
  for (int i = 0; i < 8; ++i) {
    const int e = lane * 8 + i, row = e / 16, col = e % 16;
    double sum = c8[i];
    for (int k = 0; k < 16; ++k) {
      sum += static_cast<double>(exchange[warp][0][row * 16 + k]) *
             exchange[warp][1][k * 16 + col];
    }
    d8[i] = static_cast<float>(sum);
  }
  // No lane writes the exchange again before every lane has read it.
  __syncwarp();
}

}  // namespace model

template <typename Use, typename T, typename Layout>
inline void load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout>& f,
                             const T* p, unsigned ldm) {
  static_assert(!std::is_same<Use, accumulator>::value,
                "an accumulator load takes a layout_t");
  model::CheckMemory(p, ldm,
                     "wmma::load_matrix_sync: misaligned pointer or "
                     "stride");
  __syncwarp();
  const int lane = model::Lane();
  for (int i = 0; i < 8; ++i) {
    const int e = lane * 8 + i, row = e / 16, col = e % 16;
    f.x[i] = std::is_same<Layout, row_major>::value ? p[row * ldm + col]
                                                    : p[col * ldm + row];
  }
}

template <typename T>
inline void fill_fragment(fragment<accumulator, 16, 16, 16, T>& f, T v) {
  for (int i = 0; i < 8; ++i) f.x[i] = v;
}

template <typename T, typename LA, typename LB>
inline void mma_sync(fragment<accumulator, 16, 16, 16, float>& d,
                     const fragment<matrix_a, 16, 16, 16, T, LA>& a,
                     const fragment<matrix_b, 16, 16, 16, T, LB>& b,
                     const fragment<accumulator, 16, 16, 16, float>& c) {
  float a8[8], b8[8], c8[8], d8[8];
  for (int i = 0; i < 8; ++i) {
    a8[i] = model::Value(a.x[i]);
    b8[i] = model::Value(b.x[i]);
    c8[i] = c.x[i];
  }
  model::Multiply(model::Warp(), model::Lane(), a8, b8, c8, d8);
  for (int i = 0; i < 8; ++i) d.x[i] = d8[i];
}

inline void store_matrix_sync(float* p,
                              const fragment<accumulator, 16, 16, 16, float>& f,
                              unsigned ldm, layout_t layout) {
  model::CheckMemory(p, ldm,
                     "wmma::store_matrix_sync: misaligned pointer or "
                     "stride");
  __syncwarp();
  const int lane = model::Lane();
  for (int i = 0; i < 8; ++i) {
    const int e = lane * 8 + i, row = e / 16, col = e % 16;
    if (layout == mem_row_major) {
      p[row * ldm + col] = f.x[i];
    } else {
      p[col * ldm + row] = f.x[i];
    }
  }
}

}  // namespace wmma
}  // namespace nvcuda

#endif  // IXA_TESTS_EMIT_CUDA_MODEL_MMA_H_
