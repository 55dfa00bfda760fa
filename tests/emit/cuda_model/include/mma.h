// mma.h of the CPU model of CUDA: nvcuda::wmma's warp matrix functions for
// the 16x16x16 shape and, with precision::tf32, the 16x16x8 one (CUDA C++
// Programming Guide, "Warp Matrix Functions"). A fragment's element layout
// is opaque in CUDA; in this model lane l holds the l-th run of
// num_elements consecutive elements of the fragment's matrix taken
// row-major (matrix_a: m x k, matrix_b: k x n, accumulator: m x n), so
// that code which assumes any layout of its own computes the wrong answer
// here. Every call is warp-collective as CUDA requires: the whole warp
// must arrive (a __syncwarp of all 32 lanes, which the model checks).
// mma_sync exchanges the lanes' fragments through per-warp storage the
// model keeps outside the instrumented memory, multiplies exactly (16-bit
// and TF32 products are exact in f32) and rounds each sum of k products
// plus the accumulator once to f32. A TF32 operand is read as the
// hardware reads it: its top 19 bits (the low 13 mantissa bits dropped),
// so a kernel that forgets __float_to_tf32 truncates, as on a GPU.
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

namespace precision {
struct tf32 {};
}  // namespace precision

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
  static_assert(M == 16 && N == 16 && (K == 16 || K == 8),
                "the CUDA model has the 16x16x16 and 16x16x8 WMMA shapes");
  static_assert(K == 16 || std::is_same<T, precision::tf32>::value ||
                    std::is_same<Use, accumulator>::value,
                "16x16x8 fragments are TF32 ones");
  // The matrix the fragment holds, rows x cols.
  static constexpr int rows = std::is_same<Use, matrix_b>::value ? K : M;
  static constexpr int cols = std::is_same<Use, matrix_a>::value ? K : N;
  static constexpr int num_elements = rows * cols / 32;
  using element_type =
      typename std::conditional<std::is_same<T, precision::tf32>::value, float,
                                T>::type;
  element_type x[num_elements];
};

// Rounds to TF32 (10 mantissa bits) to nearest, ties away from zero
// (cvt.rna.tf32.f32); the low 13 bits of the result are zero.
inline float __float_to_tf32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  if ((bits & 0x7f800000u) == 0x7f800000u) return v;  // inf and NaN
  bits = (bits + 0x1000u) & ~0x1fffu;
  std::memcpy(&v, &bits, 4);
  return v;
}

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

// What the tensor cores read of a TF32 operand: its top 19 bits.
inline float Tf32Bits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits &= ~0x1fffu;
  std::memcpy(&v, &bits, 4);
  return v;
}

// The lanes' fragments of one warp, as floats: A 16 x k and B k x 16
// (row-major, `per_lane` elements per lane), C and D 16 x 16 (8 per lane).
__attribute__((noinline, no_sanitize("thread"))) inline void Multiply(
    int warp, int lane, int k_size, const float* a, const float* b,
    const float* c8, float* d8) {
  static float exchange[32][2][256];
  const int per_lane = 16 * k_size / 32;
  for (int i = 0; i < per_lane; ++i) {
    exchange[warp][0][lane * per_lane + i] = a[i];
    exchange[warp][1][lane * per_lane + i] = b[i];
  }
  __syncwarp();
  for (int i = 0; i < 8; ++i) {
    const int e = lane * 8 + i, row = e / 16, col = e % 16;
    double sum = c8[i];
    for (int k = 0; k < k_size; ++k) {
      sum += static_cast<double>(exchange[warp][0][row * k_size + k]) *
             exchange[warp][1][k * 16 + col];
    }
    d8[i] = static_cast<float>(sum);
  }
  // No lane writes the exchange again before every lane has read it.
  __syncwarp();
}

}  // namespace model

template <typename Use, int K, typename T, typename Layout>
inline void load_matrix_sync(
    fragment<Use, 16, 16, K, T, Layout>& f,
    const typename fragment<Use, 16, 16, K, T, Layout>::element_type* p,
    unsigned ldm) {
  static_assert(!std::is_same<Use, accumulator>::value,
                "an accumulator load takes a layout_t");
  using Fragment = fragment<Use, 16, 16, K, T, Layout>;
  model::CheckMemory(p, ldm,
                     "wmma::load_matrix_sync: misaligned pointer or "
                     "stride");
  __syncwarp();
  const int lane = model::Lane();
  for (int i = 0; i < Fragment::num_elements; ++i) {
    const int e = lane * Fragment::num_elements + i;
    const int row = e / Fragment::cols, col = e % Fragment::cols;
    f.x[i] = std::is_same<Layout, row_major>::value ? p[row * ldm + col]
                                                    : p[col * ldm + row];
  }
}

template <int K, typename T>
inline void fill_fragment(fragment<accumulator, 16, 16, K, T>& f, T v) {
  for (int i = 0; i < 8; ++i) f.x[i] = v;
}

template <int K, typename T, typename LA, typename LB>
inline void mma_sync(fragment<accumulator, 16, 16, K, float>& d,
                     const fragment<matrix_a, 16, 16, K, T, LA>& a,
                     const fragment<matrix_b, 16, 16, K, T, LB>& b,
                     const fragment<accumulator, 16, 16, K, float>& c) {
  constexpr bool kTf32 = std::is_same<T, precision::tf32>::value;
  constexpr int kPerLane = 16 * K / 32;
  float a_lane[kPerLane], b_lane[kPerLane], c8[8], d8[8];
  for (int i = 0; i < kPerLane; ++i) {
    a_lane[i] = model::Value(a.x[i]);
    b_lane[i] = model::Value(b.x[i]);
    if (kTf32) {
      a_lane[i] = model::Tf32Bits(a_lane[i]);
      b_lane[i] = model::Tf32Bits(b_lane[i]);
    }
  }
  for (int i = 0; i < 8; ++i) c8[i] = c.x[i];
  model::Multiply(model::Warp(), model::Lane(), K, a_lane, b_lane, c8, d8);
  for (int i = 0; i < 8; ++i) d.x[i] = d8[i];
}

template <int K>
inline void store_matrix_sync(float* p,
                              const fragment<accumulator, 16, 16, K, float>& f,
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
