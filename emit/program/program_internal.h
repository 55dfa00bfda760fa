// The program generator's host code (emit/program/program.h): the element
// types the host ops read and write, the generated dot, convolution and
// sort functions, and the .npy `main`.
#ifndef IXA_EMIT_PROGRAM_PROGRAM_INTERNAL_H_
#define IXA_EMIT_PROGRAM_PROGRAM_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/hlo/module.h"
#include "emit/targets/targets.h"

namespace ixa::emit::program_internal {

// The array leaves of a shape, tuples flattened in order.
std::vector<const hlo::Shape*> LeavesOf(const hlo::Shape& s);
// A C identifier for an HLO name (runs of other characters one '_').
std::string IdentifierOfName(std::string_view name);
// A shape's bytes in memory (its physical layout, padding and packing).
Result<int64_t> ShapeBytes(const hlo::Shape& s, ExprContext* ctx);
// The instruction's operands, each once, in order of first use.
std::vector<const hlo::Instruction*> UniqueOperands(const hlo::Instruction& in);
// A cuBLAS GEMM custom call (__cublas$gemm, __cublas$lt$matmul[$f8]) or
// a forward cuDNN convolution call: a library call generated as a kernel
// from the plain ops it stands for.
bool IsKernelLibraryCall(const hlo::Instruction& in);
// What a GEMM call's kernel writes: its result, and for an _AUX epilogue
// the tuple of its result and its auxiliary output (the rest of the
// call's tuple is cuBLAS's workspace).
hlo::Shape GemmCallWrittenShape(const hlo::Instruction& in);
// Ops generated as kernels where the emitters can, else as host loops
// (host_ops.cc): dot and convolution.
bool IsHostFallbackOp(const hlo::Instruction& in);
// Instructions handled without a kernel of their own (aliases, control
// flow, sorts, fft / cholesky / triangular-solve, library calls other
// than GEMMs).
bool NeedsNoKernel(const hlo::Instruction& in);
// Whether a reshape or bitcast of `bytes` may share its operand's memory
// (`operand_bytes`).
bool AliasesOperand(const hlo::Instruction& in, int64_t bytes,
                    int64_t operand_bytes);

// How host code holds an element type: its C storage type, and the
// expressions that widen a stored value to the type it computes in
// (double for floats, int64_t / uint64_t for integers) and narrow a
// computed value back (f16 / bf16 rounded to nearest even).
struct HostType {
  hlo::ElementType type = hlo::ElementType::kInvalid;
  std::string storage;
  std::string compute;
  std::string Load(const std::string& stored) const;
  std::string Store(const std::string& computed) const;
};
// Unsupported, naming `op` and the type, for types host code does not
// compute on (sub-byte, f8, complex, ...).
Result<HostType> HostTypeOf(hlo::ElementType type, const std::string& op);

// Per logical dim, the stride in elements of a dense layout (tiles and
// packed elements are Unsupported, naming `op`).
Result<std::vector<int64_t>> DenseStrides(const hlo::Shape& shape,
                                          const std::string& op);

// Generated-code helpers of the host ops (host_ops.cc). Lines that set
// `prefix0 .. prefixR-1` to the logical row-major index of `linear` over
// `dims`:
std::string Delinearize(const std::string& linear,
                        const std::vector<int64_t>& dims,
                        const std::string& prefix);
// "0 + index_k * stride_k ..." over (index expression, stride) pairs.
std::string Offset(const std::vector<std::pair<std::string, int64_t>>& terms);
// A host function `static int NAME(void* const* b)` around `body`, which
// computes item `o` of `count` from the named pointers (b[i] cast to
// args[i].type). cpp: a loop; cuda: a grid-stride kernel (one thread per
// item) and its launcher, which checks the launch.
struct PointerArg {
  std::string name, type;  // "lhs", "const float*"
};
std::string ElementLoopFunction(const std::string& name,
                                const std::vector<PointerArg>& args,
                                int64_t count, const std::string& body,
                                Target target);

// fft, cholesky and triangular-solve (linalg_ops.cc): host functions as
// HostOpFunction makes them, on f32 / f64 / c64 / c128.
bool IsLinalgHostOp(const hlo::Instruction& in);
Result<std::string> LinalgOpFunction(const hlo::Instruction& in,
                                     const std::string& name, Target target);

// Helpers every program's host code uses (the f16 / bf16 conversions;
// for cuda, the launch check).
std::string HostPrelude(Target target);

// A host function `static int NAME(void* const* b)` computing `in` (b:
// its operands, then its outputs): a dot (or a GEMM custom call as its
// dot), a convolution, a sort, an fft, a cholesky or a triangular-solve.
// For cuda, dot, convolution and fft launch a generated kernel over the
// output elements, cholesky and triangular-solve one thread per batch
// problem, and check the launch; a sort copies its operands to the host,
// sorts there and copies back.
Result<std::string> HostOpFunction(const hlo::Instruction& in,
                                   const std::string& name, Target target);

// The instructions of the kernel computation of a cuBLAS GEMM call after
// its parameters (`ixap_pK` for `operands`, the call's distinct operands
// in order), up to `ROOT ixap_root`: its dot, then
// alpha, beta times C, the bias and the activation as plain ops, computed
// in f32 for 16-bit results and rounded once. Unsupported, naming the
// feature, where the call does more (gemm_calls.cc).
Result<std::string> GemmCallKernelBody(
    const hlo::Instruction& in,
    const std::vector<const hlo::Instruction*>& operands);
// The same for a forward cuDNN convolution call (__cudnn$convForward,
// __cudnn$convBiasActivationForward): its convolution, then the result
// scale, the scaled side input, the bias along the output features and
// the activation (hlo::ConvCallSemantics).
Result<std::string> ConvCallKernelBody(
    const hlo::Instruction& in,
    const std::vector<const hlo::Instruction*>& operands);

// The host runtime: ixap_alloc, ixap_free, ixap_copy, ixap_read_pred,
// ixap_read_s32 and (cuda) ixap_launch, for `target`.
std::string RuntimePrelude(Target target);
// The helpers of `prelude` (top-level definitions, each ending with a
// line that starts at column 0 and ends with '}') that `body` uses,
// directly or through other helpers, in their order: an unused static
// function is a warning (under nvcc's -Werror all-warnings, an error).
std::string UsedHelpers(const std::string& prelude, const std::string& body);

// The .npy `main` calling `entry` (the cpp target).
Result<std::string> NpyMain(const std::vector<hlo::Shape>& parameters,
                            const std::vector<hlo::Shape>& results,
                            const std::string& entry, Target target);

}  // namespace ixa::emit::program_internal

#endif  // IXA_EMIT_PROGRAM_PROGRAM_INTERNAL_H_
