// The CPU execution model of CUDA (tests/emit/cuda_model) on hand-written
// kernels: it computes what CUDA computes in every thread order, and it
// reports what CUDA leaves undefined (planted races, shuffles outside
// their mask, barriers not every thread reaches, accesses outside the
// buffers). All kernels are compiled once, as one batch.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>

#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

using Bytes = std::vector<uint8_t>;

const char* const kKernels = R"(
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// A row sum of 64 floats per block: a shared tile, a barrier, shuffles.
extern "C" __global__ void __launch_bounds__(64)
block_sum(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[64];
  __shared__ float partial[2];
  const unsigned t = threadIdx.x;
  tile[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  float v = tile[63 - t];
  for (int offset = 16; offset >= 1; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset, 32);
  }
  if (t % 32 == 0) partial[t / 32] = v;
  __syncthreads();
  if (t == 0) out[blockIdx.x] = partial[0] + partial[1];
}

// The same warp sum with the partial truncated to an integer on the way.
extern "C" __global__ void __launch_bounds__(32)
int_shuffle_sum(const float* __restrict__ in, float* __restrict__ out) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset >= 1; offset /= 2) {
    v += static_cast<float>(
        __shfl_down_sync(0xffffffffu, static_cast<int>(v), offset, 32));
  }
  if (threadIdx.x == 0) out[0] = v;
}
extern "C" __global__ void __launch_bounds__(32)
float_shuffle_sum(const float* __restrict__ in, float* __restrict__ out) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset >= 1; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset, 32);
  }
  if (threadIdx.x == 0) out[0] = v;
}

// Every thread writes element 0: a race.
extern "C" __global__ void race(const float* __restrict__ in,
                                float* __restrict__ out) {
  out[0] = in[threadIdx.x];
}

// Threads read what their neighbour wrote to shared memory, no barrier.
extern "C" __global__ void shared_no_barrier(const float* __restrict__ in,
                                             float* __restrict__ out) {
  __shared__ float tile[32];
  tile[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 32];
}

// A thread reads a shared element no thread wrote.
extern "C" __global__ void shared_unwritten(const float* __restrict__ in,
                                            float* __restrict__ out) {
  __shared__ float tile[33];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x + 1];
}

// Half of the block skips the barrier.
extern "C" __global__ void divergent_barrier(const float* __restrict__ in,
                                             float* __restrict__ out) {
  if (threadIdx.x < 16) __syncthreads();
  out[threadIdx.x] = in[threadIdx.x];
}

// The mask names lanes 0-15; lane 0 reads lane 16.
extern "C" __global__ void shuffle_outside_mask(const float* __restrict__ in,
                                                float* __restrict__ out) {
  float v = in[threadIdx.x];
  if (threadIdx.x < 16) v = __shfl_down_sync(0x0000ffffu, v, 16, 32);
  out[threadIdx.x] = v;
}

// Lane 31 of the full mask never arrives.
extern "C" __global__ void shuffle_missing_lane(const float* __restrict__ in,
                                                float* __restrict__ out) {
  float v = in[threadIdx.x];
  if (threadIdx.x != 31) v = __shfl_down_sync(0xffffffffu, v, 1, 32);
  out[threadIdx.x] = v;
}

// __activemask() promises no convergence: the shuffle may read a lane
// outside it.
extern "C" __global__ void shuffle_active_mask(const float* __restrict__ in,
                                               float* __restrict__ out) {
  float v = __shfl_down_sync(__activemask(), in[threadIdx.x], 1, 32);
  out[threadIdx.x] = v;
}

// One element past the output.
extern "C" __global__ void out_of_bounds(const float* __restrict__ in,
                                         float* __restrict__ out) {
  out[threadIdx.x + 1] = in[threadIdx.x];
}

// One element read past the input.
extern "C" __global__ void reads_past_end(const float* __restrict__ in,
                                         float* __restrict__ out) {
  out[threadIdx.x] = in[threadIdx.x + 1];
}

// An 8-byte read of the input's last 4 bytes and the 4 after them.
extern "C" __global__ void reads_across_end(const float* __restrict__ in,
                                            float* __restrict__ out) {
  uint64_t both;
  __builtin_memcpy(&both, in + 31, 8);
  out[threadIdx.x] = static_cast<float>(both & 1);
}

// A 32-bit compare-and-swap on the word holding the last byte of a
// 6-byte buffer: 2 of its bytes lie past the allocation (CUDA allocates
// in larger units; compute-sanitizer and the model go by the bytes asked
// for).
extern "C" __global__ void atomic_word_past_end(const int* __restrict__ in,
                                                uint8_t* __restrict__ out) {
  unsigned int* word = reinterpret_cast<unsigned int*>(out + 4);
  atomicCAS(word, 0u, static_cast<unsigned int>(in[0]));
}

// A 16-bit compare-and-swap on bytes 4-5 of a 6-byte buffer: inside.
extern "C" __global__ void atomic_half_at_end(const int* __restrict__ in,
                                              uint8_t* __restrict__ out) {
  unsigned short* half = reinterpret_cast<unsigned short*>(out + 4);
  atomicCAS(half, (unsigned short)0, static_cast<unsigned short>(in[0]));
}

// A vector of 4 halves loaded from an address aligned to 2 bytes only.
struct alignas(8) Vec4 {
  uint16_t v[4];
};
extern "C" __global__ void misaligned_vector(const uint16_t* __restrict__ in,
                                             uint16_t* __restrict__ out) {
  Vec4 x = *reinterpret_cast<const Vec4*>(in + threadIdx.x * 4 + 1);
  *reinterpret_cast<Vec4*>(out + threadIdx.x * 4) = x;
}

// Writing through the input pointer.
extern "C" __global__ void writes_input(const float* __restrict__ in,
                                        float* __restrict__ out) {
  const_cast<float*>(in)[threadIdx.x] = 1.0f;
  out[threadIdx.x] = 2.0f;
}

// Atomics: every thread of every block adds into one counter, the
// maximum of the inputs, and a CAS loop on 16-bit elements.
extern "C" __global__ void atomics(const int* __restrict__ in,
                                   int* __restrict__ out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  atomicAdd(&out[0], 1);
  atomicMax(&out[1], v);
  unsigned short* half = reinterpret_cast<unsigned short*>(&out[2]);
  unsigned short old = *half, assumed;
  do {
    assumed = old;
    old = atomicCAS(half, assumed, static_cast<unsigned short>(assumed + 2));
  } while (old != assumed);
}

// A plain write to an element another thread updates atomically.
extern "C" __global__ void atomic_then_plain(const int* __restrict__ in,
                                             int* __restrict__ out) {
  if (threadIdx.x == 0) atomicAdd(&out[0], in[0]);
  if (threadIdx.x == 1) out[0] = in[1];
}

// Ballot and shuffles by index and xor.
extern "C" __global__ void __launch_bounds__(32)
warp_votes(const int* __restrict__ in, unsigned* __restrict__ out) {
  const int v = in[threadIdx.x];
  out[threadIdx.x] = __ballot_sync(0xffffffffu, v > 0);
  out[32 + threadIdx.x] = __shfl_sync(0xffffffffu, v, 31 - threadIdx.x, 32);
  out[64 + threadIdx.x] = __shfl_xor_sync(0xffffffffu, v, 1, 32);
  out[96 + threadIdx.x] = __shfl_up_sync(0xffffffffu, v, 2, 8);
}

// The 16-bit conversions: per thread, one f16 and one bf16 pattern to
// float, and one float to both.
extern "C" __global__ void __launch_bounds__(256)
conversions(const uint16_t* __restrict__ bits, const float* __restrict__ f,
            float* __restrict__ from_half, float* __restrict__ from_bf16,
            uint16_t* __restrict__ to_half, uint16_t* __restrict__ to_bf16) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  from_half[i] = __half2float(__ushort_as_half(bits[i]));
  from_bf16[i] = __bfloat162float(__ushort_as_bfloat16(bits[i]));
  to_half[i] = __half_as_ushort(__float2half_rn(f[i]));
  to_bf16[i] = __bfloat16_as_ushort(__float2bfloat16_rn(f[i]));
}
)";

const std::vector<std::string> kNames = {"block_sum",
                                         "int_shuffle_sum",
                                         "float_shuffle_sum",
                                         "race",
                                         "shared_no_barrier",
                                         "shared_unwritten",
                                         "divergent_barrier",
                                         "shuffle_outside_mask",
                                         "shuffle_missing_lane",
                                         "shuffle_active_mask",
                                         "out_of_bounds",
                                         "reads_past_end",
                                         "reads_across_end",
                                         "atomic_word_past_end",
                                         "atomic_half_at_end",
                                         "misaligned_vector",
                                         "writes_input",
                                         "atomics",
                                         "atomic_then_plain",
                                         "warp_votes",
                                         "conversions"};

// The batch, built once for all test cases: one text holding every
// kernel and the entries of all but the first (Build adds that one).
const CudaModelBatch& Batch() {
  static CudaModelBatch* batch = [] {
    auto* b = new CudaModelBatch();
    std::string text = kKernels;
    for (size_t i = 1; i < kNames.size(); ++i)
      text += CudaModelEntry(kNames[i]);
    auto built = b->Build({{kNames[0], text}}, 1);
    INFO((built.ok() ? "" : built.error().message));
    REQUIRE(built.ok());
    return b;
  }();
  return *batch;
}

template <typename T>
Bytes Of(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> As(const Bytes& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// Runs a kernel of 1 input and 1 output (floats) on one block.
Status RunFloats(const std::string& name, int64_t threads,
                 std::vector<float> in, std::vector<float>* out,
                 ThreadOrder order = ThreadOrder::kForward) {
  std::vector<Bytes> buffers = {Of(in), Bytes(out->size() * 4, 0)};
  LaunchDimensions launch;
  launch.threads = {threads, 1, 1};
  auto ran = Batch().Run(name, launch, order, 7, &buffers);
  *out = As<float>(buffers[1]);
  return ran;
}

std::string ErrorOf(const Status& r) {
  return r.ok() ? std::string() : r.error().message;
}

TEST_CASE("cuda model: a block reduction runs alike in every order",
          "[cuda_model]") {
  std::vector<float> in(64 * 3);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 0.25f * (i % 17) - 1.0f;
  std::vector<float> expected(3, 0.0f);
  for (size_t i = 0; i < in.size(); ++i) expected[i / 64] += in[i];
  std::vector<Bytes> first;
  for (ThreadOrder order : kThreadOrders) {
    INFO(ThreadOrderName(order));
    std::vector<Bytes> buffers = {Of(in), Bytes(12, 0xAB)};
    LaunchDimensions launch;
    launch.threads = {64, 1, 1};
    launch.blocks = {3, 1, 1};
    auto ran = Batch().Run("block_sum", launch, order, 3, &buffers);
    INFO(ErrorOf(ran));
    REQUIRE(ran.ok());
    std::vector<float> got = As<float>(buffers[1]);
    for (int b = 0; b < 3; ++b) CHECK(got[b] == Approx(expected[b]));
    if (first.empty()) first = buffers;
    CHECK(buffers == first);
  }
}

TEST_CASE("cuda model: an int shuffle of a float gives a wrong sum",
          "[cuda_model]") {
  // Fractions: the truncated partials lose them.
  std::vector<float> in(32);
  double exact = 0;
  for (int i = 0; i < 32; ++i) {
    in[i] = 0.3f + 0.01f * i;
    exact += in[i];
  }
  Literal expected;
  expected.type = ElementType::kF32;
  expected.dims = {1};
  expected.floats = {exact};
  // The reductions' tolerance of the harness (f32, reassociating).
  Tolerance tol;
  tol.rel = 1e-4;
  tol.abs = 1e-3;
  auto compare = [&](const std::string& kernel) {
    std::vector<float> out(1);
    auto ran = RunFloats(kernel, 32, in, &out);
    INFO(ErrorOf(ran));
    REQUIRE(ran.ok());
    Literal got = expected;
    got.floats = {out[0]};
    return CompareLiterals(expected, got, tol);
  };
  CHECK(compare("float_shuffle_sum") == "");
  CHECK(compare("int_shuffle_sum") != "");
}

TEST_CASE("cuda model: reports what CUDA leaves undefined", "[cuda_model]") {
  struct Planted {
    std::string kernel;
    // Parts of the model's message, one of which it holds (the first
    // thread to meet the fault depends on the order).
    std::vector<std::string> errors;
  };
  const std::vector<Planted> planted = {
      {"race", {"writes buffer 1 byte 0, which block (0, 0, 0) thread"}},
      // A thread that runs first reads its neighbour's element unwritten.
      {"shared_no_barrier",
       {"with no barrier between", "which no thread of the block wrote"}},
      {"shared_unwritten", {"which no thread of the block wrote"}},
      {"divergent_barrier", {"barrier not reached by every thread"}},
      {"shuffle_outside_mask", {"reads lane 16, which is not in the mask"}},
      {"shuffle_missing_lane",
       {"lane 31 of warp 0 does not arrive at __shfl_down_sync"}},
      {"shuffle_active_mask", {"which is not in the mask"}},
      {"out_of_bounds",
       {"writes 4 bytes outside every buffer (0 bytes past the end of "
        "buffer 1)"}},
      {"writes_input", {"a pointer to const"}},
      {"reads_past_end",
       {"reads 4 bytes outside every buffer (0 bytes past the end of "
        "buffer 0)"}},
      {"reads_across_end", {"reads 8 bytes across the end of a buffer"}},
  };
  for (const Planted& p : planted) {
    for (ThreadOrder order : kThreadOrders) {
      INFO(p.kernel << " (" << ThreadOrderName(order) << ")");
      std::vector<float> out(32);
      std::vector<float> in(32, 1.0f);
      std::string error = ErrorOf(RunFloats(p.kernel, 32, in, &out, order));
      INFO(error);
      bool found = false;
      for (const std::string& e : p.errors) {
        found = found || error.find(e) != std::string::npos;
      }
      CHECK(found);
    }
  }
  // Atomics go by the allocation's exact bytes: a 4-byte one reaching 2
  // bytes past a 6-byte buffer fails, a 2-byte one ending at its end runs.
  for (const char* kernel : {"atomic_word_past_end", "atomic_half_at_end"}) {
    INFO(kernel);
    std::vector<Bytes> buffers = {Of(std::vector<int>{0x0201}), Bytes(6, 0)};
    LaunchDimensions one;
    std::string error =
        ErrorOf(Batch().Run(kernel, one, ThreadOrder::kForward, 1, &buffers));
    if (std::string(kernel) == "atomic_half_at_end") {
      CHECK(error == "");
      CHECK(buffers[1] == Bytes{0, 0, 0, 0, 1, 2});
    } else {
      CHECK(error.find("4-byte atomic access across the end of buffer 1") !=
            std::string::npos);
      CHECK(error.find("2 bytes past it") != std::string::npos);
    }
  }
  // A misaligned vector access (the compiler's alignment is the type's).
  std::vector<Bytes> buffers = {Bytes(32 * 8 + 8, 1), Bytes(32 * 8, 0)};
  LaunchDimensions launch;
  launch.threads = {32, 1, 1};
  std::string error = ErrorOf(Batch().Run("misaligned_vector", launch,
                                          ThreadOrder::kForward, 1, &buffers));
  CHECK(error.find("misaligned 8-byte access") != std::string::npos);
}

TEST_CASE("cuda model: atomics and warp votes", "[cuda_model]") {
  std::vector<int> in(4 * 64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 37 % 101);
  for (ThreadOrder order : kThreadOrders) {
    INFO(ThreadOrderName(order));
    std::vector<Bytes> buffers = {Of(in), Bytes(12, 0)};
    LaunchDimensions launch;
    launch.threads = {64, 1, 1};
    launch.blocks = {4, 1, 1};
    auto ran = Batch().Run("atomics", launch, order, 11, &buffers);
    INFO(ErrorOf(ran));
    REQUIRE(ran.ok());
    std::vector<int> got = As<int>(buffers[1]);
    CHECK(got[0] == 256);
    CHECK(got[1] == 100);
    CHECK((got[2] & 0xffff) == 512);
  }
  std::vector<Bytes> buffers = {Of(std::vector<int>{5, 6}), Bytes(4, 0)};
  LaunchDimensions two;
  two.threads = {2, 1, 1};
  std::string error = ErrorOf(Batch().Run("atomic_then_plain", two,
                                          ThreadOrder::kForward, 1, &buffers));
  CHECK(error.find("wrote atomically with no barrier between") !=
        std::string::npos);

  std::vector<int> votes(32);
  for (int i = 0; i < 32; ++i) votes[i] = (i % 3 == 0) ? i + 1 : -i;
  buffers = {Of(votes), Bytes(4 * 128, 0)};
  LaunchDimensions warp;
  warp.threads = {32, 1, 1};
  auto ran = Batch().Run("warp_votes", warp, ThreadOrder::kRandom, 5, &buffers);
  INFO(ErrorOf(ran));
  REQUIRE(ran.ok());
  std::vector<uint32_t> got = As<uint32_t>(buffers[1]);
  uint32_t ballot = 0;
  for (int i = 0; i < 32; ++i) ballot |= (votes[i] > 0 ? 1u : 0u) << i;
  for (int i = 0; i < 32; ++i) {
    INFO("lane " << i);
    CHECK(got[i] == ballot);
    CHECK(static_cast<int>(got[32 + i]) == votes[31 - i]);
    CHECK(static_cast<int>(got[64 + i]) == votes[i ^ 1]);
    CHECK(static_cast<int>(got[96 + i]) ==
          (i % 8 >= 2 ? votes[i - 2] : votes[i]));
  }
}

TEST_CASE("cuda model: 16-bit conversions round to nearest even",
          "[cuda_model]") {
  // Every 16-bit pattern widens; floats near every half and bf16 value
  // (and ties between neighbours) narrow.
  const int n = 65536;
  std::vector<uint16_t> bits(n);
  std::vector<float> f(n);
  std::mt19937 rng(3);
  for (int i = 0; i < n; ++i) {
    bits[i] = static_cast<uint16_t>(i);
    float base = (i % 2) ? HalfToFloat(static_cast<uint16_t>(i))
                         : BF16ToFloat(static_cast<uint16_t>(i));
    uint32_t u;
    std::memcpy(&u, &base, 4);
    u += static_cast<uint32_t>(rng() % 0x20000) - 0x10000;
    std::memcpy(&f[i], &u, 4);
  }
  std::vector<Bytes> buffers = {Of(bits),     Of(f),        Bytes(4 * n),
                                Bytes(4 * n), Bytes(2 * n), Bytes(2 * n)};
  LaunchDimensions launch;
  launch.threads = {256, 1, 1};
  launch.blocks = {n / 256, 1, 1};
  auto ran =
      Batch().Run("conversions", launch, ThreadOrder::kForward, 1, &buffers);
  INFO(ErrorOf(ran));
  REQUIRE(ran.ok());
  std::vector<float> from_half = As<float>(buffers[2]);
  std::vector<float> from_bf16 = As<float>(buffers[3]);
  std::vector<uint16_t> to_half = As<uint16_t>(buffers[4]);
  std::vector<uint16_t> to_bf16 = As<uint16_t>(buffers[5]);
  int wrong = 0;
  for (int i = 0; i < n && wrong < 10; ++i) {
    float h = HalfToFloat(bits[i]), b = BF16ToFloat(bits[i]);
    bool ok = (std::isnan(h) ? std::isnan(from_half[i]) : from_half[i] == h) &&
              (std::isnan(b) ? std::isnan(from_bf16[i]) : from_bf16[i] == b);
    // A NaN narrows to the canonical NaN, as the hardware conversions.
    uint16_t eh = std::isnan(f[i]) ? 0x7fff : FloatToHalf(f[i]);
    uint16_t eb = std::isnan(f[i]) ? 0x7fff : FloatToBF16(f[i]);
    ok = ok && to_half[i] == eh && to_bf16[i] == eb;
    if (!ok) {
      ++wrong;
      UNSCOPED_INFO("pattern " << i << ": f " << f[i] << " half " << to_half[i]
                               << " (expected " << eh << ") bf16 " << to_bf16[i]
                               << " (expected " << eb << ")");
    }
  }
  CHECK(wrong == 0);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
