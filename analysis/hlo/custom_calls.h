// Library calls XLA:GPU makes through custom calls: cuBLAS GEMMs and cuDNN
// convolutions. What they compute is known from the call target and the
// backend config, so their reads, flops and real output can be counted
// like those of the dot or convolution they stand for. Their result tuple
// is (result, workspace): the workspace is scratch memory, not an output
// anyone reads.
#ifndef IXA_ANALYSIS_HLO_CUSTOM_CALLS_H_
#define IXA_ANALYSIS_HLO_CUSTOM_CALLS_H_

#include <memory>
#include <optional>
#include <string>

#include "analysis/hlo/module.h"

namespace ixa::hlo {

enum class LibraryCallKind {
  kNone,
  kCublasGemm,        // __cublas$gemm, __cublas$lt$matmul[$f8]
  kCudnnConvForward,  // __cudnn$convForward
  kCudnnOther,        // other __cudnn$ targets (backward passes, graphs)
};

// The custom call's target without quotes ("" for other instructions).
std::string CustomCallTarget(const Instruction& instr);

LibraryCallKind GetLibraryCallKind(const Instruction& instr);
// The cuDNN convolutions XLA:GPU calls: __cudnn$convForward,
// $convForwardGraph, $convBackwardInput, $convBackwardFilter and
// $convBiasActivationForward (XLA's IsCustomCallToDnnConvolution).
bool IsCudnnConvolution(const Instruction& instr);
inline bool IsLibraryCall(const Instruction& instr) {
  return GetLibraryCallKind(instr) != LibraryCallKind::kNone;
}

// The call's real output: element 0 of a tuple result (the rest is
// workspace), else the whole shape.
const Shape& LibraryCallResultShape(const Instruction& instr);

// A GEMM's dot dimension numbers, read from the backend config's
// `dot_dimension_numbers` (XLA's GemmBackendConfig), or nullopt when the
// config does not give them.
std::optional<DotDimensionNumbers> GemmDotDimensions(const Instruction& instr);

// The plain op a library call computes, as a stand-alone instruction:
// a `dot` of operands 0 and 1 for a GEMM, a `convolution` for a forward
// cuDNN convolution (its window, dim_labels and group counts), with the
// call's name and its result shape. Its operands point at the call's
// operands 0 and 1. nullptr when the call's semantics are not known well
// enough (no dimension numbers, fewer than two operands, another cuDNN
// target).
std::unique_ptr<Instruction> LibraryCallAsOp(const Instruction& instr);

// What a cuBLAS GEMM call computes around its dot (XLA's
// GemmBackendConfig): D = activation(alpha * A.B + beta * C + bias), in
// the call's compute type, then rounded to D's type. C is operand 2 when
// beta is not 0 (XLA aliases it with the output); the bias, a vector
// along D's last dim, follows when the epilogue has BIAS. GELU_AUX and
// BIAS_GELU_AUX also write the values before the activation as the
// result tuple's element 1 (the workspace follows). `unsupported` names
// what the call does beyond this (another _AUX epilogue, the f8 scales, a
// complex alpha, an unknown epilogue, operands that do not match).
struct GemmCallSemantics {
  enum class Activation { kNone, kRelu, kGelu, kSilu };
  double alpha = 1, alpha_imag = 0, beta = 0;
  int c_operand = -1, bias_operand = -1;
  Activation activation = Activation::kNone;
  bool aux = false;      // the pre-activation values are result element 1
  std::string epilogue;  // as the config writes it; "" for DEFAULT
  std::string unsupported;
};
// nullopt for an instruction that is not a cuBLAS GEMM call.
std::optional<GemmCallSemantics> GemmCallSemanticsOf(const Instruction& instr);

// What a forward cuDNN convolution call computes (XLA's
// CudnnConvBackendConfig): __cudnn$convForward is its convolution of
// operands 0 and 1; __cudnn$convBiasActivationForward is
// activation(conv_result_scale * conv + side_input_scale * side_input +
// bias), the bias (operand 2) a vector along the result's feature dim, the
// side input (operand 3, when there is one) of the result's shape,
// computed in f32 for 16-bit results and rounded once. `unsupported` names
// what the call does beyond this (an activation without a plain-op form,
// operands that do not match, no dimension numbers).
struct ConvCallSemantics {
  enum class Activation {
    kNone,
    kRelu,
    kRelu6,
    kElu,
    kLeakyRelu,
    kSigmoid,
    kTanh,
    kGeluExact
  };
  double conv_result_scale = 1, side_input_scale = 0, leakyrelu_alpha = 0;
  int bias_operand = -1, side_input_operand = -1;
  Activation activation = Activation::kNone;
  std::string unsupported;
};
// nullopt for an instruction that is not a forward cuDNN convolution call
// (__cudnn$convForward, __cudnn$convBiasActivationForward).
std::optional<ConvCallSemantics> ConvCallSemanticsOf(const Instruction& instr);
// The convolution of operands 0 and 1 a forward cuDNN convolution call
// computes (its window, dim_labels and group counts), with the call's name
// and its result shape; nullptr for other instructions or a call without
// dim_labels.
std::unique_ptr<Instruction> ConvCallAsConvolution(const Instruction& instr);

// A custom call's own estimate (`cost_estimate_json` in its backend
// config): flops and bytes accessed when given.
struct CustomCallCostEstimate {
  std::optional<int64_t> flops;
  std::optional<int64_t> bytes_accessed;
};
CustomCallCostEstimate GetCustomCallCostEstimate(const Instruction& instr);

}  // namespace ixa::hlo

#endif  // IXA_ANALYSIS_HLO_CUSTOM_CALLS_H_
