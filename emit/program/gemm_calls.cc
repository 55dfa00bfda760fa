// A cuBLAS GEMM or forward cuDNN convolution custom call as the fusion
// computation of its kernel: the dot or convolution it stands for, then
// its scales, C or side input, bias and activation as the plain ops they
// are, so that the fusion emitters generate the call like any dot or
// convolution with fused consumers (docs/compile.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "analysis/hlo/custom_calls.h"
#include "analysis/hlo/printer.h"
#include "analysis/hlo/verifier.h"
#include "emit/program/program_internal.h"

namespace ixa::emit::program_internal {
namespace {

using hlo::ElementType;
using hlo::Instruction;
using hlo::Shape;

Error GemmRefused(const Instruction& in, const std::string& why) {
  return Error::Unsupported("custom-call " + hlo::CustomCallTarget(in) + " " +
                            in.name + ": " + why);
}

std::string BraceList(const std::vector<int64_t>& dims) {
  std::string out = "{";
  for (size_t k = 0; k < dims.size(); ++k) {
    out += (k ? "," : "") + std::to_string(dims[k]);
  }
  return out + "}";
}

// The type the epilogue computes in: 16-bit floats widen to f32 (cuBLAS
// computes them in f32 and rounds D once); other types compute as stored.
ElementType GemmComputeType(ElementType result) {
  return result == ElementType::kF16 || result == ElementType::kBF16
             ? ElementType::kF32
             : result;
}

// A scalar constant of type `t` holding `v` as the call computes with it
// (f32 and narrower: rounded to float, as cuBLAS takes alpha and beta in
// its f32 compute type), or nullopt where `t` cannot (a fraction in an
// integer type).
std::optional<std::string> GemmScalarConstant(double v, ElementType t) {
  char text[64];
  if (t == ElementType::kF64) {
    std::snprintf(text, sizeof text, "%.17g", v);
  } else if (hlo::IsStandardFloat(t)) {
    std::snprintf(text, sizeof text, "%.9g",
                  static_cast<double>(static_cast<float>(v)));
  } else if (hlo::IsIntegral(t) && t != ElementType::kPred &&
             v == std::floor(v) && std::fabs(v) < 9e15) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(v));
  } else {
    return std::nullopt;
  }
  return std::string(hlo::ElementTypeName(t)) + "[] constant(" + text + ")";
}

// Appends the lines of a computation body, each value named after its
// role and a counter.
class GemmBodyWriter {
 public:
  explicit GemmBodyWriter(std::string shape) : shape_(std::move(shape)) {}
  // `shape op(args), attrs`; returns the new value's name.
  std::string Add(const std::string& shape, const std::string& op,
                  const std::string& args, const std::string& attrs = "") {
    const std::string name = "ixap_g" + std::to_string(count_++);
    text_ += "  " + name + " = " + shape + " " + op + "(" + args + ")" +
             (attrs.empty() ? "" : ", " + attrs) + "\n";
    return name;
  }
  // The scalar constant broadcast to the computing shape.
  std::string Splat(const std::string& constant) {
    const std::string name = "ixap_g" + std::to_string(count_++);
    text_ += "  " + name + " = " + constant + "\n";
    return Add(shape_, "broadcast", name, "dimensions={}");
  }
  std::string Binary(const std::string& op, const std::string& a,
                     const std::string& b) {
    return Add(shape_, op, a + ", " + b);
  }
  std::string text() const { return text_; }
  // The body with its last value as the root `ixap_root`, converted to
  // `result` when the body computes in another type.
  std::string WithRoot(const std::string& value, const Shape& result,
                       ElementType computing) const {
    if (computing != result.type) {
      return text_ + "  ROOT ixap_root = " + result.ToString(true) +
             " convert(" + value + ")\n";
    }
    const std::string line = "  " + value + " = ";
    const size_t at = text_.rfind(line);
    return text_.substr(0, at) +
           "  ROOT ixap_root = " + text_.substr(at + line.size());
  }

 private:
  std::string shape_;  // the computing shape (D's dims and layout)
  std::string text_;
  int count_ = 0;
};

// The call's shapes must be those of the dot or convolution it stands for
// (`op`): the reader checks dots and convolutions, not custom calls, and a
// kernel body that does not read back would be an internal error.
Status CheckPlainOp(const Instruction& in, const Instruction& op) {
  if (Status valid = hlo::VerifyInstruction(op); !valid.ok()) {
    return Error::Invalid("custom-call " + hlo::CustomCallTarget(in) + " " +
                          in.name + ": " + valid.error().message);
  }
  return Status();
}

// The kernel parameter (`ixap_pK`) holding operand `operand` of `in`
// (`operands`: the call's distinct operands in order).
std::string ParamName(const Instruction& in,
                      const std::vector<const Instruction*>& operands,
                      int operand) {
  const auto at =
      std::find(operands.begin(), operands.end(), in.operand(operand));
  return "ixap_p" + std::to_string(at - operands.begin());
}

// Operand `operand` of `in` in type `t`: its parameter, converted where
// its type is another.
std::string Widened(GemmBodyWriter* body, const Instruction& in,
                    const std::vector<const Instruction*>& operands,
                    int operand, ElementType t) {
  const Shape& os = in.operand(operand)->shape;
  if (os.type == t) return ParamName(in, operands, operand);
  Shape converted = os;
  converted.type = t;
  return body->Add(converted.ToString(true), "convert",
                   ParamName(in, operands, operand));
}

}  // namespace

Result<std::string> GemmCallKernelBody(
    const Instruction& in, const std::vector<const Instruction*>& operands) {
  std::optional<hlo::GemmCallSemantics> semantics =
      hlo::GemmCallSemanticsOf(in);
  if (!semantics) return GemmRefused(in, "not a cuBLAS GEMM call");
  const hlo::GemmCallSemantics& s = *semantics;
  if (!s.unsupported.empty()) return GemmRefused(in, s.unsupported);
  std::unique_ptr<Instruction> dot = hlo::LibraryCallAsOp(in);
  if (dot == nullptr) return GemmRefused(in, "no dot_dimension_numbers");
  IXA_RETURN_IF_ERROR(CheckPlainOp(in, *dot));
  if (in.shape.IsTuple()) {
    for (size_t k = 1; k < in.shape.tuple_elements.size(); ++k) {
      if (!in.shape.tuple_elements[k].IsArray()) {
        return GemmRefused(in, "a result tuple past (result, workspace)");
      }
    }
  }
  auto param = [&](int operand) { return ParamName(in, operands, operand); };
  const Shape& result = dot->shape;
  const hlo::DotDimensionNumbers& dn = dot->dot;
  const std::string dot_dims =
      "lhs_batch_dims=" + BraceList(dn.lhs_batch) +
      ", lhs_contracting_dims=" + BraceList(dn.lhs_contracting) +
      ", rhs_batch_dims=" + BraceList(dn.rhs_batch) +
      ", rhs_contracting_dims=" + BraceList(dn.rhs_contracting);
  const std::string operands_text = param(0) + ", " + param(1);
  const bool plain = s.alpha == 1 && s.c_operand < 0 && s.bias_operand < 0 &&
                     s.activation == hlo::GemmCallSemantics::Activation::kNone;
  if (plain) {
    // The call is its dot: the same kernel as a dot outside a fusion.
    return "  ROOT ixap_root = " + result.ToString(true) + " dot(" +
           operands_text + "), " + dot_dims + "\n";
  }
  Shape computing = result;
  computing.type = GemmComputeType(result.type);
  const ElementType t = computing.type;
  const std::string shape = computing.ToString(true);
  if (!hlo::IsStandardFloat(t) &&
      !(hlo::IsIntegral(t) && t != ElementType::kPred &&
        s.activation == hlo::GemmCallSemantics::Activation::kNone)) {
    return GemmRefused(in, std::string("alpha, beta or an epilogue on ") +
                               hlo::ElementTypeName(result.type) + " results");
  }
  auto constant = [&](double v) -> Result<std::string> {
    std::optional<std::string> c = GemmScalarConstant(v, t);
    if (!c) {
      return GemmRefused(in, "the scalar " + std::to_string(v) + " in " +
                                 hlo::ElementTypeName(t));
    }
    return *c;
  };
  GemmBodyWriter body(shape);
  std::string value = body.Add(shape, "dot", operands_text, dot_dims);
  if (s.alpha != 1) {
    IXA_ASSIGN_OR_RETURN(std::string alpha, constant(s.alpha));
    value = body.Binary("multiply", value, body.Splat(alpha));
  }
  auto widened = [&](int operand) {
    return Widened(&body, in, operands, operand, t);
  };
  if (s.c_operand >= 0) {
    std::string c = widened(s.c_operand);
    if (s.beta != 1) {
      IXA_ASSIGN_OR_RETURN(std::string beta, constant(s.beta));
      c = body.Binary("multiply", c, body.Splat(beta));
    }
    value = body.Binary("add", value, c);
  }
  if (s.bias_operand >= 0) {
    const std::string bias =
        body.Add(shape, "broadcast", widened(s.bias_operand),
                 "dimensions={" + std::to_string(result.rank() - 1) + "}");
    value = body.Binary("add", value, bias);
  }
  using Activation = hlo::GemmCallSemantics::Activation;
  const std::string pre_activation = value;
  if (s.activation == Activation::kRelu) {
    IXA_ASSIGN_OR_RETURN(std::string zero, constant(0));
    value = body.Binary("maximum", value, body.Splat(zero));
  } else if (s.activation == Activation::kGelu) {
    // cuBLASLt's GELU, the tanh form: x/2 (1 + tanh(sqrt(2/pi) (x +
    // 0.044715 x^3))).
    IXA_ASSIGN_OR_RETURN(std::string cubic, constant(0.044715f));
    IXA_ASSIGN_OR_RETURN(std::string scale, constant(0.7978845608028654f));
    IXA_ASSIGN_OR_RETURN(std::string half, constant(0.5));
    IXA_ASSIGN_OR_RETURN(std::string one, constant(1));
    const std::string x = value;
    const std::string x3 =
        body.Binary("multiply", body.Binary("multiply", x, x), x);
    const std::string inner =
        body.Binary("add", x, body.Binary("multiply", x3, body.Splat(cubic)));
    const std::string th = body.Add(
        shape, "tanh", body.Binary("multiply", inner, body.Splat(scale)));
    value =
        body.Binary("multiply", body.Binary("multiply", x, body.Splat(half)),
                    body.Binary("add", th, body.Splat(one)));
  } else if (s.activation == Activation::kSilu) {
    value = body.Binary("multiply", value, body.Add(shape, "logistic", value));
  }
  if (s.aux) {
    // The values before the activation are the second output.
    const Shape& aux = in.shape.tuple_elements[1];
    auto narrowed = [&](const std::string& v, const Shape& to) {
      if (to == computing) return v;
      return body.Add(to.ToString(true), to.type == t ? "copy" : "convert", v);
    };
    const std::string d = narrowed(value, result);
    const std::string a = narrowed(pre_activation, aux);
    return body.text() + "  ROOT ixap_root = (" + result.ToString(true) + ", " +
           aux.ToString(true) + ") tuple(" + d + ", " + a + ")\n";
  }
  return body.WithRoot(value, result, t);
}

Result<std::string> ConvCallKernelBody(
    const Instruction& in, const std::vector<const Instruction*>& operands) {
  std::optional<hlo::ConvCallSemantics> semantics =
      hlo::ConvCallSemanticsOf(in);
  if (!semantics) return GemmRefused(in, "not a forward cuDNN convolution");
  const hlo::ConvCallSemantics& s = *semantics;
  if (!s.unsupported.empty()) return GemmRefused(in, s.unsupported);
  std::unique_ptr<Instruction> conv = hlo::ConvCallAsConvolution(in);
  if (conv == nullptr) return GemmRefused(in, "no dim_labels");
  IXA_RETURN_IF_ERROR(CheckPlainOp(in, *conv));
  auto param = [&](int operand) { return ParamName(in, operands, operand); };
  hlo::PrintNaming naming = hlo::SanitizedNaming();
  naming.instruction = [&](const Instruction* i) {
    for (int k = 0; k < in.operand_count(); ++k) {
      if (in.operand(k) == i) return param(k);
    }
    return hlo::SanitizeHloName(i->name);
  };
  const Shape result = conv->shape;
  using Activation = hlo::ConvCallSemantics::Activation;
  const bool plain = s.conv_result_scale == 1 && s.bias_operand < 0 &&
                     s.side_input_operand < 0 &&
                     s.activation == Activation::kNone;
  if (plain) {
    return "  " + hlo::PrintInstruction(*conv, "ixap_root", naming, true) +
           "\n";
  }
  const ElementType t = GemmComputeType(result.type);
  if (!hlo::IsStandardFloat(t)) {
    return GemmRefused(in, std::string("a fused epilogue on ") +
                               hlo::ElementTypeName(result.type) + " results");
  }
  Shape computing = result;
  computing.type = t;
  conv->shape = computing;
  const std::string shape = computing.ToString(true);
  auto constant = [&](double v) -> std::string {
    return *GemmScalarConstant(v, t);  // t is a float type
  };
  GemmBodyWriter body(shape);
  std::string value =
      body.Add(shape, "convolution", param(0) + ", " + param(1), [&] {
        // The convolution's attributes as the HLO printer writes them.
        const std::string line =
            hlo::PrintInstruction(*conv, "ixap_conv", naming, false);
        const size_t close = line.find("), ");
        return close == std::string::npos ? std::string()
                                          : line.substr(close + 3);
      }());
  auto widened = [&](int operand) {
    return Widened(&body, in, operands, operand, t);
  };
  if (s.conv_result_scale != 1) {
    value = body.Binary("multiply", value,
                        body.Splat(constant(s.conv_result_scale)));
  }
  if (s.side_input_operand >= 0 && s.side_input_scale != 0) {
    std::string side = widened(s.side_input_operand);
    if (s.side_input_scale != 1) {
      side = body.Binary("multiply", side,
                         body.Splat(constant(s.side_input_scale)));
    }
    value = body.Binary("add", value, side);
  }
  if (s.bias_operand >= 0) {
    const std::string bias = body.Add(
        shape, "broadcast", widened(s.bias_operand),
        "dimensions={" + std::to_string(in.conv->output_feature) + "}");
    value = body.Binary("add", value, bias);
  }
  Shape predicate = computing;
  predicate.type = ElementType::kPred;
  auto positive_or = [&](const std::string& x, const std::string& otherwise) {
    const std::string positive =
        body.Add(predicate.ToString(true), "compare",
                 x + ", " + body.Splat(constant(0)), "direction=GT");
    return body.Add(shape, "select", positive + ", " + x + ", " + otherwise);
  };
  switch (s.activation) {
    case Activation::kNone:
      break;
    case Activation::kRelu:
      value = body.Binary("maximum", value, body.Splat(constant(0)));
      break;
    case Activation::kRelu6:
      value = body.Binary(
          "minimum", body.Binary("maximum", value, body.Splat(constant(0))),
          body.Splat(constant(6)));
      break;
    case Activation::kElu:
      value =
          positive_or(value, body.Add(shape, "exponential-minus-one", value));
      break;
    case Activation::kLeakyRelu:
      value = positive_or(value,
                          body.Binary("multiply", value,
                                      body.Splat(constant(s.leakyrelu_alpha))));
      break;
    case Activation::kSigmoid:
      value = body.Add(shape, "logistic", value);
      break;
    case Activation::kTanh:
      value = body.Add(shape, "tanh", value);
      break;
    case Activation::kGeluExact: {
      // x/2 (1 + erf(x / sqrt(2))).
      const std::string erf =
          body.Add(shape, "erf",
                   body.Binary("multiply", value,
                               body.Splat(constant(0.70710678118654752))));
      value = body.Binary(
          "multiply", body.Binary("multiply", value, body.Splat(constant(0.5))),
          body.Binary("add", erf, body.Splat(constant(1))));
      break;
    }
  }
  return body.WithRoot(value, result, t);
}

}  // namespace ixa::emit::program_internal
