// Compiling and running generated code in the tests (docs/emitters.md §3):
// the `cpp` target through g++ into one shared object per batch (kernels
// wrapped in namespaces, translation units compiled in parallel), run in a
// forked child on buffers in shared memory so that a crashing kernel fails
// the test instead of killing it; `mlir` through mlir-opt-14 (verify) and
// mlir-cpu-runner-14 (host: true modules, run from a generated main); `cuda`
// through nvcc when it is installed.
#ifndef IXA_TESTS_EMIT_EMIT_DRIVER_H_
#define IXA_TESTS_EMIT_EMIT_DRIVER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hlo/shape.h"
#include "core/result.h"

namespace ixa::emit_test {

// A scratch directory removed on destruction (kept when IXA_KEEP_TMP is
// set, for debugging).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};
// Runs shell commands, at most `parallel` at a time.
std::vector<CommandResult> RunCommands(const std::vector<std::string>& commands,
                                       int parallel = 2);

// True when the sanitizer pass runs (IXA_SANITIZED=1): heavy checks shrink.
bool Sanitized();

// In the sanitizer pass, of the cases a test generates code for, every
// kSanitizedStride-th is compiled and run: the code is emitted for all of
// them (ixa's code is what the sanitizers check), and the generated code
// is the same as in the Release pass, which runs every case.
inline constexpr int kSanitizedStride = 8;

// The C++ compiler the generated code is built with (IXA_TEST_CXX, else
// the one that built the tests).
std::string Compiler();
// The first `n` lines of a tool's output.
std::string FirstLines(const std::string& text, int n = 40);

// Buffers for a kernel run in a forked child: in memory shared with the
// child, each between two guard zones; an in-place output (aliases[i] >=
// 0) is passed buffer aliases[i]'s memory.
class GuardedBuffers {
 public:
  GuardedBuffers(const std::vector<std::vector<uint8_t>>& buffers,
                 const std::vector<int>& aliases);
  ~GuardedBuffers();
  GuardedBuffers(const GuardedBuffers&) = delete;
  GuardedBuffers& operator=(const GuardedBuffers&) = delete;
  bool ok() const { return base_ != nullptr; }
  // Per buffer, where the kernel finds it.
  const std::vector<void*>& pointers() const { return pointers_; }
  const std::vector<size_t>& sizes() const { return sizes_; }
  // The whole region, guard zones included.
  const uint8_t* begin() const { return base_; }
  const uint8_t* end() const { return base_ + total_; }
  // Copies the buffers back; an error names a write into a guard zone.
  std::string CopyOut(std::vector<std::vector<uint8_t>>* buffers,
                      const std::string& name) const;

 private:
  static constexpr size_t kGuard = 256;
  static constexpr uint8_t kGuardByte = 0xCD;
  size_t AliasOf(size_t i) const {
    return i < aliases_.size() && aliases_[i] >= 0 ? aliases_[i] : i;
  }
  std::vector<int> aliases_;
  std::vector<size_t> offsets_, sizes_;
  std::vector<void*> pointers_;
  uint8_t* base_ = nullptr;
  size_t total_ = 0;
};

// Links `objects` (then `extra_args`: more objects, libraries) into the
// shared object `so` and loads it into *handle.
Status LinkAndOpen(const std::string& so,
                   const std::vector<std::string>& objects,
                   const std::string& extra_args, void** handle);

// Empty when a forked child exited normally; else names the crash.
std::string ChildFailure(const std::string& name, int status);

// A kernel to compile: its extern "C" entry name and its translation unit.
struct CppKernel {
  std::string name;
  std::string code;
};

class CppBatch {
 public:
  // Compiles all kernels into one shared object and loads it. Kernels are
  // split over `units` translation units compiled in parallel.
  Status Build(const std::vector<CppKernel>& kernels, int units = 2);
  // Only compiles (g++ -c) every kernel unit. With `syntax_only`, g++
  // checks the units (parse, types, template instantiation) without
  // generating code: what the stage checks ask, at a third of the cost.
  static Status CompileOnly(const std::vector<CppKernel>& kernels,
                            int units = 2, bool syntax_only = false);

  // Runs `name` on the buffers (inputs filled, outputs pre-filled with a
  // pattern by the caller) in a forked child; buffers come back updated.
  // Errors name a crash (signal) or a write outside the buffers.
  // aliases[i] >= 0: buffer i is passed in buffer aliases[i]'s memory (an
  // in-place output); its bytes come back from there.
  Status Run(const std::string& name,
             std::vector<std::vector<uint8_t>>* buffers,
             const std::vector<int>& aliases = {}) const;
  ~CppBatch();

 private:
  TempDir dir_;
  void* handle_ = nullptr;
};

// Batch sources: the kernels' #include lines hoisted to the top, each
// kernel's code in its own namespace.
std::vector<std::string> BatchSources(const std::vector<CppKernel>& kernels,
                                      int units);

// mlir-opt-14 / mlir-cpu-runner-14 / nvcc, when found (nvcc never with
// IXA_NO_NVCC=1).
std::optional<std::string> FindTool(
    const std::string& name, const std::vector<std::string>& extra_dirs = {});
std::optional<std::string> FindNvcc();

// Verifies MLIR modules with mlir-opt-14 (in parallel); per module, empty
// on success or the tool's diagnostics.
std::vector<std::string> VerifyMlir(const std::vector<std::string>& modules);

// Runs a host-mode module: `kernel` takes one 1-D memref per buffer (the
// physical elements, f16/bf16 as i16, pred as i8). Inputs are given as
// bytes; outputs come back as bytes. The module is lowered with the pass
// list of docs/emitters.md §3.
struct MlirBuffer {
  hlo::Shape shape;            // with layout
  std::vector<uint8_t> bytes;  // physical bytes (inputs; outputs: out)
  bool is_output = false;
  // An output that starts with `bytes` (an in-place output) instead of
  // the fill pattern.
  bool initialized = false;
};
Status RunMlirHost(const std::string& module, const std::string& kernel,
                   std::vector<MlirBuffer>* buffers);

// How nvcc runs: each of its processes within a memory bound (ulimit -v)
// and the whole compile within a time bound, so that code that makes the
// compiler grow without end fails the test instead of the machine.
struct NvccOptions {
  std::string arch = "sm_90";
  int seconds = 60;
  int64_t memory_kb = 2 * 1024 * 1024;
  bool ptx = false;  // -ptx instead of -c
  // -cubin instead of -c: the device side only (the front end, cicc and
  // ptxas, where the time and memory go and where spills show), without
  // the host compile of the kernels' launch stubs, which costs about a
  // second per run and checks no code of ours.
  bool device_only = false;
  // -Xptxas -v: ptxas reports each kernel's registers and spills.
  bool ptxas_verbose = false;
  // CompileCuda: a kernel that spills to local memory (ptxas reports
  // nonzero spill stores or loads) fails its unit. Implies ptxas_verbose.
  bool no_spills = false;
};

// Compiles CUDA units with `nvcc -std=c++17 -arch=ARCH -c` (in parallel);
// per unit, empty on success or the diagnostics (a bound that was hit
// named first).
std::vector<std::string> CompileCuda(const std::string& nvcc,
                                     const std::vector<std::string>& units,
                                     const NvccOptions& options = {});
// One unit to PTX (nvcc -ptx): the PTX text.
Result<std::string> CudaToPtx(const std::string& nvcc, const std::string& unit,
                              NvccOptions options = {});

// What ptxas reports of one kernel (nvcc -cubin -Xptxas -v).
struct PtxasUsage {
  int registers = -1;
  int64_t spill_store_bytes = -1;
  int64_t spill_load_bytes = -1;
  int64_t stack_bytes = -1;
};
// Compiles the units (in parallel) with ptxas reporting; per unit, the
// usage of its (one) kernel, or the diagnostics.
std::vector<Result<PtxasUsage>> PtxasUsageOf(
    const std::string& nvcc, const std::vector<std::string>& units,
    NvccOptions options = {});

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_DRIVER_H_
