// The reference interpreter's dot, convolution and sort (emit_interpreter.h),
// written from XLA's operation semantics; shares no code with emit/.
// Products accumulate in double (floats, and the parts of complex numbers)
// or wrap in 64 bits (integers) and round once to the result type; a pred
// result is the or of the products' ands.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <numeric>

#include "tests/emit/emit_interpreter_scalar.h"

namespace ixa::emit_test::interpreter_detail {
namespace {

bool ContainsDim(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::complex<double> AsComplex(const Literal& lit, int64_t k) {
  if (IsComplex(lit.type)) return Get(lit, k).c();
  return lit.AsDouble(k);
}

// Adds a * b to the accumulator of a result of type `out`: floats in
// double, integers wrapping in 64 bits, complex numbers in
// std::complex<double> (a real operand is its value plus 0i), pred as
// the or of ands.
struct ProductSum {
  ElementType out;
  double f = 0;
  uint64_t i = 0;
  std::complex<double> c = 0;
  void Add(const Literal& a, int64_t ka, const Literal& b, int64_t kb) {
    if (IsComplex(out)) {
      c += AsComplex(a, ka) * AsComplex(b, kb);
    } else if (out == ElementType::kPred) {
      i |= (a.AsInt(ka) != 0 && b.AsInt(kb) != 0) ? 1 : 0;
    } else if (IsFloat(out)) {
      f += a.AsDouble(ka) * b.AsDouble(kb);
    } else {
      i += static_cast<uint64_t>(a.AsInt(ka)) *
           static_cast<uint64_t>(b.AsInt(kb));
    }
  }
  void Store(Literal* lit, int64_t k) const {
    if (IsComplex(out)) {
      Set(lit, k, MakeComplex(out, c));
    } else if (IsFloat(out)) {
      lit->floats[k] = RoundToType(f, out);
    } else {
      lit->ints[k] = WrapToType(i, out);
    }
  }
};

// The element types a dot or convolution result may have here.
bool ProductType(ElementType t) {
  return IsFloat(t) || IsSigned(t) || IsUnsigned(t) || IsComplex(t) ||
         t == ElementType::kPred;
}

}  // namespace

std::vector<int64_t> DotFreeDims(int64_t rank,
                                 const std::vector<int64_t>& batch,
                                 const std::vector<int64_t>& contracting,
                                 int64_t skip) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!ContainsDim(batch, d) && !ContainsDim(contracting, d) && d != skip) {
      free.push_back(d);
    }
  }
  return free;
}

void SetDotOperandIndices(const std::vector<int64_t>& idx,
                          const hlo::DotDimensionNumbers& dn,
                          const std::vector<int64_t>& lhs_free,
                          const std::vector<int64_t>& rhs_free, size_t* pos,
                          std::vector<int64_t>* li, std::vector<int64_t>* ri) {
  for (size_t b = 0; b < dn.lhs_batch.size(); ++b, ++*pos) {
    (*li)[dn.lhs_batch[b]] = idx[*pos];
    (*ri)[dn.rhs_batch[b]] = idx[*pos];
  }
  for (int64_t d : lhs_free) (*li)[d] = idx[(*pos)++];
  for (int64_t d : rhs_free) (*ri)[d] = idx[(*pos)++];
}

void SetContractingIndices(const std::vector<int64_t>& ci,
                           const hlo::DotDimensionNumbers& dn,
                           std::vector<int64_t>* li, std::vector<int64_t>* ri) {
  for (size_t j = 0; j < ci.size(); ++j) {
    (*li)[dn.lhs_contracting[j]] = ci[j];
    (*ri)[dn.rhs_contracting[j]] = ci[j];
  }
}

Result<Literal> EvalDot(const hlo::Instruction& in,
                        const hlo::DotDimensionNumbers& dn,
                        const hlo::Shape& out_shape, const Literal& lhs,
                        const Literal& rhs) {
  const ElementType t = out_shape.type;
  if (!ProductType(t)) {
    return UnsupportedOn(in, t);
  }
  Literal out = Literal::Make(t, out_shape.dims);
  const std::vector<int64_t> lhs_free =
      DotFreeDims(lhs.dims.size(), dn.lhs_batch, dn.lhs_contracting);
  const std::vector<int64_t> rhs_free =
      DotFreeDims(rhs.dims.size(), dn.rhs_batch, dn.rhs_contracting);
  std::vector<int64_t> contract_dims;
  for (int64_t d : dn.lhs_contracting) contract_dims.push_back(lhs.dims[d]);
  int64_t contract_count = 1;
  for (int64_t d : contract_dims) contract_count *= d;
  for (int64_t k = 0; k < out.size(); ++k) {
    const std::vector<int64_t> idx = Delinearize(k, out.dims);
    std::vector<int64_t> li(lhs.dims.size()), ri(rhs.dims.size());
    size_t pos = 0;
    SetDotOperandIndices(idx, dn, lhs_free, rhs_free, &pos, &li, &ri);
    ProductSum acc{t};
    std::vector<int64_t> ci;
    for (int64_t c = 0; c < contract_count; ++c) {
      DelinearizeInto(c, contract_dims, &ci);
      SetContractingIndices(ci, dn, &li, &ri);
      acc.Add(lhs, Linearize(li, lhs.dims), rhs, Linearize(ri, rhs.dims));
    }
    acc.Store(&out, k);
  }
  return out;
}

Result<Literal> EvalGemmCall(const hlo::Instruction& in,
                             const hlo::DotDimensionNumbers& dims,
                             const hlo::GemmCallSemantics& gemm,
                             const hlo::Shape& out_shape,
                             const std::vector<Literal>& operands,
                             const hlo::Shape* aux_shape, Literal* aux) {
  using Activation = hlo::GemmCallSemantics::Activation;
  if (gemm.alpha == 1 && gemm.c_operand < 0 && gemm.bias_operand < 0 &&
      gemm.activation == Activation::kNone) {
    return EvalDot(in, dims, out_shape, operands.at(0), operands.at(1));
  }
  const ElementType t = out_shape.type;
  const bool real = IsFloat(t);
  if (!real && !(IsSigned(t) || IsUnsigned(t))) return UnsupportedOn(in, t);
  if (!real && gemm.activation != Activation::kNone) {
    return Unsupported(in, "an activation on integers");
  }
  // The product unrounded (floats in f64), then the epilogue, rounded once.
  hlo::Shape wide = out_shape;
  if (real) wide.type = ElementType::kF64;
  IXA_ASSIGN_OR_RETURN(Literal product,
                       EvalDot(in, dims, wide, operands.at(0), operands.at(1)));
  Literal out = Literal::Make(t, out_shape.dims);
  if (gemm.aux) {
    if (aux_shape == nullptr || !IsFloat(aux_shape->type)) {
      return Unsupported(in, "an auxiliary output that is not a float array");
    }
    *aux = Literal::Make(aux_shape->type, aux_shape->dims);
  }
  const int64_t columns = out.dims.empty() ? 1 : out.dims.back();
  for (int64_t k = 0; k < out.size(); ++k) {
    if (!real) {
      int64_t v = static_cast<int64_t>(gemm.alpha) * product.AsInt(k);
      if (gemm.c_operand >= 0) {
        v += static_cast<int64_t>(gemm.beta) *
             operands.at(gemm.c_operand).AsInt(k);
      }
      if (gemm.bias_operand >= 0) {
        v += operands.at(gemm.bias_operand).AsInt(k % columns);
      }
      out.ints[k] = WrapToType(static_cast<uint64_t>(v), t);
      continue;
    }
    double v = gemm.alpha * product.AsDouble(k);
    if (gemm.c_operand >= 0) {
      v += gemm.beta * operands.at(gemm.c_operand).AsDouble(k);
    }
    if (gemm.bias_operand >= 0) {
      v += operands.at(gemm.bias_operand).AsDouble(k % columns);
    }
    if (gemm.aux) aux->floats[k] = RoundToType(v, aux->type);
    switch (gemm.activation) {
      case Activation::kNone:
        break;
      case Activation::kRelu:
        v = std::max(v, 0.0);
        break;
      case Activation::kGelu:  // cuBLASLt's tanh form
        v = 0.5 * v *
            (1 + std::tanh(std::sqrt(2 / std::numbers::pi) *
                           (v + 0.044715 * v * v * v)));
        break;
      case Activation::kSilu:
        v = v / (1 + std::exp(-v));
        break;
    }
    out.floats[k] = RoundToType(v, t);
  }
  return out;
}

Result<Literal> EvalConvCall(const hlo::Instruction& in,
                             const hlo::ConvCallSemantics& conv,
                             const hlo::Shape& out_shape,
                             const std::vector<Literal>& operands) {
  const ElementType t = out_shape.type;
  if (!IsFloat(t)) return UnsupportedOn(in, t);
  if (in.conv == nullptr) return Unsupported(in, "no dim_labels");
  // The convolution alone, of the result's dims, in f64.
  hlo::Instruction plain;
  plain.name = in.name;
  plain.opcode = hlo::Opcode::kConvolution;
  plain.shape = out_shape;
  plain.shape.type = ElementType::kF64;
  plain.window = in.window;
  plain.conv = std::make_unique<const hlo::ConvDimensionNumbers>(*in.conv);
  plain.feature_group_count = in.feature_group_count;
  plain.batch_group_count = in.batch_group_count;
  IXA_ASSIGN_OR_RETURN(Literal product,
                       EvalConvolution(plain, operands.at(0), operands.at(1)));
  Literal out = Literal::Make(t, out_shape.dims);
  const int64_t feature_dim = in.conv->output_feature;
  int64_t feature_stride = 1;
  for (int64_t d = feature_dim + 1; d < out_shape.rank(); ++d) {
    feature_stride *= out_shape.dims[d];
  }
  using Activation = hlo::ConvCallSemantics::Activation;
  for (int64_t k = 0; k < out.size(); ++k) {
    double v = conv.conv_result_scale * product.AsDouble(k);
    if (conv.side_input_operand >= 0) {
      v += conv.side_input_scale *
           operands.at(conv.side_input_operand).AsDouble(k);
    }
    if (conv.bias_operand >= 0) {
      const int64_t feature = k / feature_stride % out_shape.dims[feature_dim];
      v += operands.at(conv.bias_operand).AsDouble(feature);
    }
    switch (conv.activation) {
      case Activation::kNone:
        break;
      case Activation::kRelu:
        v = std::max(v, 0.0);
        break;
      case Activation::kRelu6:
        v = std::min(std::max(v, 0.0), 6.0);
        break;
      case Activation::kElu:
        v = v > 0 ? v : std::expm1(v);
        break;
      case Activation::kLeakyRelu:
        v = v > 0 ? v : conv.leakyrelu_alpha * v;
        break;
      case Activation::kSigmoid:
        v = 1 / (1 + std::exp(-v));
        break;
      case Activation::kTanh:
        v = std::tanh(v);
        break;
      case Activation::kGeluExact:
        v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
        break;
    }
    out.floats[k] = RoundToType(v, t);
  }
  return out;
}

Result<Literal> EvalConvolution(const hlo::Instruction& in,
                                const Literal& input, const Literal& kernel) {
  const ElementType t = in.shape.type;
  if (!ProductType(t)) {
    return UnsupportedOn(in, t);
  }
  if (in.conv == nullptr) return Unsupported(in, "no dim_labels");
  const hlo::ConvDimensionNumbers& c = *in.conv;
  Literal out = Literal::Make(t, in.shape.dims);
  const size_t spatial = c.input_spatial.size();
  const int64_t out_features = out.dims[c.output_feature];
  const int64_t group_features = kernel.dims[c.kernel_input_feature];
  const int64_t feature_group_size = out_features / in.feature_group_count;
  const int64_t batch_group_size = out_features / in.batch_group_count;
  const int64_t out_batch = out.dims[c.output_batch];
  for (int64_t k = 0; k < out.size(); ++k) {
    const std::vector<int64_t> oi = Delinearize(k, out.dims);
    const int64_t of = oi[c.output_feature];
    // The output feature's groups: which input features it reads (feature
    // groups) and which slice of the input batch (batch groups).
    const int64_t fgroup = of / feature_group_size;
    const int64_t bgroup = of / batch_group_size;
    ProductSum acc{t};
    std::vector<int64_t> ki, ii(input.dims.size());
    // Every kernel element that this output element meets.
    for (int64_t kk = 0; kk < kernel.size(); ++kk) {
      DelinearizeInto(kk, kernel.dims, &ki);
      if (ki[c.kernel_output_feature] != of) continue;
      std::fill(ii.begin(), ii.end(), 0);
      ii[c.input_batch] = bgroup * out_batch + oi[c.output_batch];
      ii[c.input_feature] =
          fgroup * group_features + ki[c.kernel_input_feature];
      bool inside = true;
      for (size_t s = 0; s < spatial && inside; ++s) {
        hlo::WindowDim w;
        if (s < in.window.size()) w = in.window[s];
        const int64_t size = kernel.dims[c.kernel_spatial[s]];
        const int64_t kpos = ki[c.kernel_spatial[s]];
        // The window position whose kernel element this is.
        const int64_t wpos = w.reversal ? size - 1 - kpos : kpos;
        const int64_t dilated = oi[c.output_spatial[s]] * w.stride - w.pad_low +
                                wpos * w.window_dilation;
        if (dilated < 0 || dilated % w.base_dilation != 0) {
          inside = false;
          break;
        }
        const int64_t pos = dilated / w.base_dilation;
        if (pos >= input.dims[c.input_spatial[s]]) inside = false;
        ii[c.input_spatial[s]] = pos;
      }
      if (!inside) continue;
      acc.Add(input, Linearize(ii, input.dims), kernel, kk);
    }
    acc.Store(&out, k);
  }
  return out;
}

Result<std::vector<Literal>> EvalSort(
    const hlo::Instruction& in, const std::vector<Literal>& operands,
    const std::function<Result<bool>(const std::vector<Scalar>&)>& less) {
  if (in.dimensions.size() != 1) return Unsupported(in, "sort dimension");
  const int64_t dim = in.dimensions[0];
  std::vector<Literal> outs = operands;
  const std::vector<int64_t>& dims = operands[0].dims;
  const int64_t n = dims[dim];
  std::vector<int64_t> outer = dims;
  outer[dim] = 1;
  int64_t segments = 1;
  for (int64_t d : outer) segments *= d;
  Error failure = Error::Invalid("");
  bool failed = false;
  for (int64_t s = 0; s < segments; ++s) {
    std::vector<int64_t> base = Delinearize(s, outer);
    auto at = [&](int64_t j) {
      std::vector<int64_t> idx = base;
      idx[dim] = j;
      return Linearize(idx, dims);
    };
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      std::vector<Scalar> args;
      for (const Literal& o : operands) {
        args.push_back(Get(o, at(a)));
        args.push_back(Get(o, at(b)));
      }
      Result<bool> r = less(args);
      if (!r.ok()) {
        failed = true;
        failure = r.error();
        return false;
      }
      return *r;
    });
    if (failed) return failure;
    for (size_t o = 0; o < operands.size(); ++o) {
      for (int64_t j = 0; j < n; ++j) {
        Set(&outs[o], at(j), Get(operands[o], at(order[j])));
      }
    }
  }
  return outs;
}

}  // namespace ixa::emit_test::interpreter_detail
