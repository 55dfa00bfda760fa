// The counts of XLA's GPU fusion cost model (`"model": "xla"`,
// docs/cost-model.md "XLA's model"): per kernel, the flops, the bytes read
// per operand and the bytes written, as XLA's GpuHloCostAnalysis counts
// them, rule for rule. The times built on them are xla_performance_model.h.
//
// A kernel is a plain instruction (each op its own rules: a slice reads its
// output's size, a dynamic-update-slice writes its update, ...) or a fusion
// (utilization propagation, below). Fusions are FusionRegions: a fused
// computation (parameters are its parameter instructions) or a group of
// instructions of one computation (parameters are the outside operands).
//
// Utilization propagation, from the root to the parameters: the root has
// utilization 1 and is its own "elementwise use root". An elementwise op,
// a tuple, a get-tuple-element or a bitcast that keeps the dims passes its
// set of use roots to its operands; any other op X makes each operand k a
// new root and adds u(X) * OperandUtilization(X, k) to that root's weight,
// rounded up to whole elements (ceil(w * n) / n). u(Y) is the summed weight
// of Y's distinct roots: two elementwise paths to one root count once, two
// non-elementwise users add up. Values are 32-bit floats, as in XLA.
#ifndef IXA_ANALYSIS_USES_XLA_COST_ANALYSIS_H_
#define IXA_ANALYSIS_USES_XLA_COST_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "hw/device.h"

namespace ixa {

// XLA's shape size: dense bytes of an array (sub-byte types packed, rounded
// up to whole bytes), 8 bytes per element of a tuple (its pointer table),
// 0 for a token.
int64_t XlaShapeSize(const hlo::Shape& shape);

// Bytes of one element as XLA's coalescing waste factor counts them:
// ByteSizeOfPrimitiveType (sub-byte types 1), tuples and tokens 4.
int64_t XlaElementBytesForCoalescing(const hlo::Shape& shape);

// XLA's operand utilization of one op: 1, except slice, dynamic-slice and
// gather operand 0 (output elements / operand elements),
// dynamic-update-slice operand 0 ((output - update) / output, or 0 when
// `in_place`), broadcast (output / operand elements), reduce-window
// inputs (output * window / input) and reduce init values (output
// elements: that many scalar reads).
float XlaOperandUtilization(const hlo::Instruction& instr, int operand,
                            bool in_place = false);

// XLA's HloCostAnalysis::GetConvolutionFlops of a convolution or of a
// cuDNN convolution call (its window, dim_labels and group counts over
// operands 0 and 1 and `result`): 2 * (input features / feature groups) *
// output features * (batch / batch groups) * the valid (kernel, output)
// position pairs of every spatial dim. Both cost models count a cuDNN
// convolution call so, whichever its target.
double XlaConvolutionFlops(const hlo::Instruction& conv,
                           const hlo::Shape& result);

// The flops XLA charges one plain instruction (HloCostAnalysis and its GPU
// override): elementwise ops elements * op profile (hw/op_profiles.h),
// reduce (in - out) * reducer, reduce-window (window - 1) * out * reducer,
// map elements * computation, dot 2 * out * K, convolution XLA's
// GetConvolutionFlops (valid kernel taps per spatial dim, feature and
// batch groups),
// sort n * ceil(log2 n), concatenate 6 per element (400 when it joins
// along a non-leading dim an operand 0 whose extent there is not a
// multiple of 32), cuBLAS and cuDNN calls their dot / convolution,
// custom calls their cost_estimate_json, data movement 0. Another custom
// call is unknown: `unknown` (optional) receives why and 0 is returned.
double XlaInstructionFlops(const hlo::Instruction& instr,
                           const hw::Device& device,
                           std::string* unknown = nullptr);

struct XlaCostAnalysis {
  bool is_fusion = false;
  const hlo::Instruction* root = nullptr;
  // The kernel's inputs: a fusion's parameters (FusionRegion::parameters),
  // or a plain op's operand slots (a value used twice appears twice).
  std::vector<const hlo::Instruction*> operands;
  std::vector<float> operand_utilization;  // per entry of `operands`
  std::vector<int64_t> operand_bytes;      // bytes accessed, per entry
  float flops = 0;
  // Non-empty when XLA's counts are undefined (a custom call without a
  // known cost: XLA reports -1): why.
  std::string unknown;
  int64_t bytes_written = 0;
  // Times the kernel's code is emitted (the priority fusion's IR-size
  // limit): a plain op 1; a fusion the sum over its instructions.
  float ir_size = 1;

  // Fusions only: per instruction of the region (members and parameters),
  // its utilization, times emitted and elementwise use roots, and per use
  // root its weight.
  std::unordered_map<const hlo::Instruction*, float> utilization;
  std::unordered_map<const hlo::Instruction*, float> times_emitted;
  std::unordered_map<const hlo::Instruction*,
                     std::vector<const hlo::Instruction*>>
      use_roots;
  std::unordered_map<const hlo::Instruction*, float> root_utilization;

  // The first entry of `operands` that is `operand`, or -1.
  int OperandIndex(const hlo::Instruction* operand) const;
  // Summed utilization of every entry that is `operand` (0 when none).
  float UtilizationOf(const hlo::Instruction* operand) const;
  // Bytes of the first entry that is `operand` (0 when none).
  int64_t BytesOf(const hlo::Instruction* operand) const;
  // XLA's CommonElementwiseUtilization: the summed weight of the use
  // roots `a` and `b` share (fusions only; 0 otherwise).
  float CommonElementwiseUtilization(const hlo::Instruction* a,
                                     const hlo::Instruction* b) const;
  // Times the parameter `operand` is emitted (IR size of a fused
  // parameter); 1 for a plain op.
  float TimesEmitted(const hlo::Instruction* operand) const;
};

// GpuHloCostAnalysis of one kernel. For a plain op the region holds just
// that op (its parameters are its operands).
XlaCostAnalysis AnalyzeXlaCost(const FusionRegion& region, bool is_fusion,
                               const hw::Device& device);

// A bitcast XLA's fusion treats as one: it keeps the element bit width. A
// bitcast between widths (s8[3,5,2] -> s16[3,5]) is an ordinary op that
// does not fuse, as a producer or as a user.
bool XlaIsFusibleBitcast(const hlo::Instruction& instr);

// True for the ops XLA's IsElementwise accepts (and so passes use roots
// through): elementwise opcodes.
bool XlaIsElementwise(const hlo::Instruction& instr);

// The dynamic-update-slices written in place: the root, or operands of the
// root tuple, that are dynamic-update-slices.
bool XlaIsInPlaceDus(const FusionRegion& region, const hlo::Instruction& instr);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_XLA_COST_ANALYSIS_H_
