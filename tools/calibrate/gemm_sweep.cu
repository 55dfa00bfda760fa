// Times cuBLASLt GEMMs over a shape sweep and prints one line per shape:
//
//   <type pair> <batch> <m> <n> <k> <TFLOP/s>
//
// where the type pair is a gemm_table key of the ixa cost model (bf16,
// f16, tf32, f32, fp8) and the throughput is 2 b m n k flops over the
// mean time of one call (cudaEvent-timed, after warm-up calls), so it
// includes each kernel's own latency the way a model run sees it.
// tools/calibrate_gemm.sh turns the lines into a device's gemm_table.
//
//   gemm_sweep [--quick] [--types bf16,tf32,...]
//
// Operands are [b, m, k] row-major times [b, k, n] row-major, i.e. in
// cuBLAS's column-major terms D^T = B^T A^T; fp8 (e4m3 x e4m3, bf16
// result) needs the "TN" layout, so every pair is run as TN: A^T stored
// k-major. Shapes the library has no algorithm for are skipped with a
// line on stderr.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(call)                                  \
  do {                                                    \
    cudaError_t status_ = (call);                         \
    if (status_ != cudaSuccess) {                         \
      std::fprintf(stderr, "gemm_sweep: %s: %s\n", #call, \
                   cudaGetErrorString(status_));          \
      std::exit(1);                                       \
    }                                                     \
  } while (0)

struct TypePair {
  const char* key;
  cudaDataType_t ab, cd;
  cublasComputeType_t compute;
  size_t ab_bytes, cd_bytes;
};

const TypePair kPairs[] = {
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2},
    {"f16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4},
    {"f32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4},
    {"fp8", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2},
};

// Mean microseconds of one call, or a negative value when cuBLASLt has
// no algorithm for the shape.
double TimeGemm(cublasLtHandle_t lt, const TypePair& t, int b, int m, int n,
                int k, void* a, void* bm, void* d, void* workspace,
                size_t workspace_bytes, cudaStream_t stream) {
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, t.compute, CUDA_R_32F);
  cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                 sizeof trans_a);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                 sizeof trans_b);
  // Column-major: A is k x m (transposed to m x k), B k x n, D m x n.
  cublasLtMatrixLayout_t la, lb, ld;
  cublasLtMatrixLayoutCreate(&la, t.ab, k, m, k);
  cublasLtMatrixLayoutCreate(&lb, t.ab, k, n, k);
  cublasLtMatrixLayoutCreate(&ld, t.cd, m, n, m);
  const int64_t stride_a = int64_t{k} * m, stride_b = int64_t{k} * n,
                stride_d = int64_t{m} * n;
  for (auto [layout, stride] :
       {std::pair{la, stride_a}, {lb, stride_b}, {ld, stride_d}}) {
    cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                     &b, sizeof b);
    cublasLtMatrixLayoutSetAttribute(
        layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
        sizeof stride);
  }
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
      sizeof workspace_bytes);
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  double us = -1;
  if (cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1,
                                     &heuristic,
                                     &found) == CUBLAS_STATUS_SUCCESS &&
      found > 0) {
    const float alpha = 1, beta = 0;
    auto call = [&] {
      return cublasLtMatmul(lt, op, &alpha, a, la, bm, lb, &beta, d, ld, d, ld,
                            &heuristic.algo, workspace, workspace_bytes,
                            stream);
    };
    // Four warm-up calls, one timed to size the loop, then as many
    // calls as fill ~20 ms (5 to 2000) timed together.
    if (call() == CUBLAS_STATUS_SUCCESS) {
      for (int i = 0; i < 3; ++i) call();
      cudaEvent_t start, stop;
      CHECK_CUDA(cudaEventCreate(&start));
      CHECK_CUDA(cudaEventCreate(&stop));
      CHECK_CUDA(cudaEventRecord(start, stream));
      call();
      CHECK_CUDA(cudaEventRecord(stop, stream));
      CHECK_CUDA(cudaEventSynchronize(stop));
      float one_ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&one_ms, start, stop));
      int iters = static_cast<int>(20.0 / std::max(one_ms, 0.001f));
      iters = std::min(std::max(iters, 5), 2000);
      CHECK_CUDA(cudaEventRecord(start, stream));
      for (int i = 0; i < iters; ++i) call();
      CHECK_CUDA(cudaEventRecord(stop, stream));
      CHECK_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      us = 1e3 * ms / iters;
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
    }
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string types = "bf16,f16,tf32,f32,fp8";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--types") == 0 && i + 1 < argc) {
      types = argv[++i];
    } else {
      std::fprintf(stderr, "usage: gemm_sweep [--quick] [--types a,b]\n");
      return 2;
    }
  }
  const std::vector<int> sizes =
      quick ? std::vector<int>{256, 1024, 4096}
            : std::vector<int>{256, 512, 1024, 2048, 4096};
  const std::vector<int> batches =
      quick ? std::vector<int>{1, 4} : std::vector<int>{1, 2, 4};
  const size_t max_elems = size_t{4} * 4096 * 4096;
  void *a, *b, *d, *workspace;
  const size_t workspace_bytes = size_t{64} << 20;
  CHECK_CUDA(cudaMalloc(&a, max_elems * 4));
  CHECK_CUDA(cudaMalloc(&b, max_elems * 4));
  CHECK_CUDA(cudaMalloc(&d, max_elems * 4));
  CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
  // Small values of every type: zero bytes are a valid operand in each.
  CHECK_CUDA(cudaMemset(a, 0x11, max_elems * 4));
  CHECK_CUDA(cudaMemset(b, 0x11, max_elems * 4));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "gemm_sweep: cublasLtCreate failed\n");
    return 1;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::fprintf(stderr, "gemm_sweep: %s (sm_%d%d, %d SMs)\n", prop.name,
               prop.major, prop.minor, prop.multiProcessorCount);
  for (const TypePair& t : kPairs) {
    if (("," + types + ",").find(std::string(",") + t.key + ",") ==
        std::string::npos) {
      continue;
    }
    for (int bt : batches) {
      for (int m : sizes) {
        for (int n : sizes) {
          for (int k : sizes) {
            const double us = TimeGemm(lt, t, bt, m, n, k, a, b, d, workspace,
                                       workspace_bytes, stream);
            if (us <= 0) {
              std::fprintf(stderr,
                           "gemm_sweep: no %s algorithm for %d x %d "
                           "x %d x %d\n",
                           t.key, bt, m, n, k);
              continue;
            }
            std::printf("%s %d %d %d %d %.3f\n", t.key, bt, m, n, k,
                        2.0 * bt * m * n * k / (us * 1e6));
            std::fflush(stdout);
          }
        }
      }
    }
  }
  cublasLtDestroy(lt);
  return 0;
}
