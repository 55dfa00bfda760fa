// Whole modules for the program tests (emit_compile_test.cc): hand-written
// ones (a transformer block, a convolution block, control flow, sorts,
// GEMM custom calls, layouts) and random ones with control flow.
#ifndef IXA_TESTS_EMIT_EMIT_COMPILE_MODULES_H_
#define IXA_TESTS_EMIT_EMIT_COMPILE_MODULES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace ixa::emit_test {

struct ProgramCase {
  std::string label;
  std::string hlo;
  double rel = 1e-5, abs = 1e-5;  // float tolerance
  // Fused by fusion_plan first (the compile op's default for a module
  // without fusions), else compiled as read.
  bool fuse = false;
  // XLA's pre-fusion pipeline first, as the compile op runs it (all of it
  // before fusing; its expanders and scatter normalization alone when
  // compiled as read).
  bool prefusion = false;
};

std::vector<ProgramCase> HandWrittenPrograms();
// `count` random modules mixing elementwise chains, reductions, dots,
// while loops, calls (one inside a branch) and conditionals on a pred or
// an s32 index (deterministic in `seed`).
std::vector<ProgramCase> RandomPrograms(int count, uint64_t seed);

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_COMPILE_MODULES_H_
