// Times the GEMM emitter's bf16 kernel against cuBLAS on one batched
// problem (tools/gpu_check.sh builds and runs it). test_emit
// "[gpu_gemm_export]" writes the kernel (gemm_kernel.cu: the `cuda`
// target's text for bf16[B,M,K] . bf16[B,K,N] -> f32[B,M,N], all
// row-major) and its launch (gemm_params.h) into the folder nvcc is given
// with -I. With -DIXA_HAVE_CUBLAS=1 (and -lcublas) the same product runs
// through cublasGemmStridedBatchedEx (bf16 in, f32 compute and out), the
// outputs are compared and the time ratio printed; without it only the
// kernel's time is.
//
//   run [REPS]
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gemm_kernel.cu"
#include "gemm_params.h"
#if IXA_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#define CHECK_CUDA(x)                                              \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

namespace {

uint16_t ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float TeraFlops(double ms) {
  return static_cast<float>(2.0 * kGemmBatch * kGemmM * kGemmN * kGemmK /
                            (ms * 1e-3) / 1e12);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  const size_t a_elems = size_t{kGemmBatch} * kGemmM * kGemmK;
  const size_t b_elems = size_t{kGemmBatch} * kGemmK * kGemmN;
  const size_t c_elems = size_t{kGemmBatch} * kGemmM * kGemmN;
  std::vector<uint16_t> a(a_elems), b(b_elems);
  uint32_t state = 12345;
  auto next = [&]() {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  };
  for (auto& x : a) x = ToBf16(next());
  for (auto& x : b) x = ToBf16(next());
  uint16_t *da, *db;
  float *dc, *dref;
  CHECK_CUDA(cudaMalloc(&da, a_elems * 2));
  CHECK_CUDA(cudaMalloc(&db, b_elems * 2));
  CHECK_CUDA(cudaMalloc(&dc, c_elems * 4));
  CHECK_CUDA(cudaMalloc(&dref, c_elems * 4));
  CHECK_CUDA(cudaMemcpy(da, a.data(), a_elems * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b.data(), b_elems * 2, cudaMemcpyHostToDevice));
  const dim3 grid(kGridX, kGridY, kGridZ), block(kBlockThreads);
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  IXA_GEMM_KERNEL<<<grid, block>>>(da, db, dc);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaEventRecord(start));
  for (int i = 0; i < reps; ++i) IXA_GEMM_KERNEL<<<grid, block>>>(da, db, dc);
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ixa_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ixa_ms, start, stop));
  ixa_ms /= reps;
  std::printf("gemm bf16 %dx%dx%dx%d: ixa %.3f ms (%.1f TFLOP/s)\n", kGemmBatch,
              kGemmM, kGemmN, kGemmK, ixa_ms, TeraFlops(ixa_ms));
#if IXA_HAVE_CUBLAS
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  const float alpha = 1, beta = 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  auto gemm = [&]() {
    return cublasGemmStridedBatchedEx(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, kGemmN, kGemmM, kGemmK, &alpha, db,
        CUDA_R_16BF, kGemmN, static_cast<long long>(kGemmK) * kGemmN, da,
        CUDA_R_16BF, kGemmK, static_cast<long long>(kGemmM) * kGemmK, &beta,
        dref, CUDA_R_32F, kGemmN, static_cast<long long>(kGemmM) * kGemmN,
        kGemmBatch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  if (gemm() != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasGemmStridedBatchedEx failed\n");
    return 1;
  }
  CHECK_CUDA(cudaEventRecord(start));
  for (int i = 0; i < reps; ++i) gemm();
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float cublas_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&cublas_ms, start, stop));
  cublas_ms /= reps;
  std::vector<float> c(c_elems), ref(c_elems);
  CHECK_CUDA(cudaMemcpy(c.data(), dc, c_elems * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(ref.data(), dref, c_elems * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (size_t i = 0; i < c_elems; ++i) {
    worst =
        std::fmax(worst, std::fabs(c[i] - ref[i]) / (1e-3 + std::fabs(ref[i])));
  }
  std::printf(
      "gemm bf16: cuBLAS %.3f ms (%.1f TFLOP/s); ixa / cuBLAS time %.2f; "
      "largest relative difference %.2e\n",
      cublas_ms, TeraFlops(cublas_ms), ixa_ms / cublas_ms, worst);
  cublasDestroy(handle);
  if (worst > 1e-2) {
    std::fprintf(stderr, "gemm bf16: the outputs differ from cuBLAS's\n");
    return 1;
  }
#else
  std::printf("gemm bf16: cuBLAS not available, no ratio\n");
#endif
  return 0;
}
