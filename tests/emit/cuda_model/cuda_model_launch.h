// The launch of the CPU execution model of CUDA (cuda_model.h), shared by
// the kernels' side and the test driver that starts them.
#ifndef IXA_TESTS_EMIT_CUDA_MODEL_CUDA_MODEL_LAUNCH_H_
#define IXA_TESTS_EMIT_CUDA_MODEL_CUDA_MODEL_LAUNCH_H_

#include <cstddef>
#include <cstdint>

namespace ixa_cuda_model {

enum class Order : int {
  kForward = 0,  // blocks and threads in increasing order
  kReverse = 1,  // both in decreasing order
  kRandom = 2,   // blocks shuffled; each step runs a random ready thread
};

struct BufferRange {
  void* data = nullptr;
  size_t bytes = 0;
};

struct LaunchConfig {
  unsigned int grid[3] = {1, 1, 1};
  unsigned int block[3] = {1, 1, 1};
  Order order = Order::kForward;
  uint64_t seed = 1;
  // The kernel's arguments, in order (an in-place output repeats its
  // input's memory).
  const BufferRange* buffers = nullptr;
  size_t num_buffers = 0;
  // The memory around the buffers: an access inside it but outside every
  // buffer is out of bounds (the driver leaves guard zones there).
  const char* arena_begin = nullptr;
  const char* arena_end = nullptr;
};

// Every kernel of a batch gets an entry `NAME_cuda_model_launch` of this
// type; it returns nullptr or the launch's first error.
using LaunchEntry = const char* (*)(void* const* buffers,
                                    const LaunchConfig* config);

}  // namespace ixa_cuda_model

#endif  // IXA_TESTS_EMIT_CUDA_MODEL_CUDA_MODEL_LAUNCH_H_
