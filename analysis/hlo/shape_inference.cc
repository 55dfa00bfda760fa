// Shapes of instructions written without one, by XLA's shape rules
// (xla/service/shape_inference.cc): the reader accepts `t = tuple(a, b)`,
// `g = get-tuple-element(t), index=0`, `d = dot(x, y), ...` the way XLA's
// parser does. The inferred shape has no layout (XLA's default one).
#include <algorithm>

#include "analysis/hlo/verifier.h"

namespace ixa::hlo {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

Error Cannot(const Instruction& in, const std::string& why) {
  return Error::Invalid("cannot infer the shape of " + OpcodeName(in) + ": " +
                        why);
}

Result<const Shape*> ArrayOperand(const Instruction& in, int i) {
  if (i >= in.operand_count()) {
    return Cannot(in,
                  "it needs at least " + std::to_string(i + 1) + " operands");
  }
  const Shape& s = in.operand(i)->shape;
  if (!s.IsArray()) {
    return Cannot(in, "operand '" + in.operand(i)->name +
                          "' is not an array but " + s.ToString());
  }
  return &s;
}

// The shape of output `i` of a variadic op: one array, or a tuple of them.
Shape Variadic(std::vector<Shape> outputs) {
  if (outputs.size() == 1) return outputs[0];
  Shape t;
  t.type = ElementType::kTuple;
  t.tuple_elements = std::move(outputs);
  return t;
}

// The root shape of the first called computation.
Result<Shape> CalleeRoot(const Instruction& in) {
  if (!in.called()) {
    return Cannot(in,
                  "its computation is not defined before it (write the "
                  "shape, or define the computation first)");
  }
  return in.called()->root()->shape;
}

// XLA's WindowedOutputSize, with checked arithmetic (nullopt on overflow).
std::optional<int64_t> WindowedSize(int64_t n, const WindowDim& w) {
  int64_t dilated, padded, window;
  if (n == 0) {
    dilated = 0;
  } else if (__builtin_mul_overflow(n - 1, w.base_dilation, &dilated) ||
             __builtin_add_overflow(dilated, 1, &dilated)) {
    return std::nullopt;
  }
  if (__builtin_add_overflow(dilated, w.pad_low, &padded) ||
      __builtin_add_overflow(padded, w.pad_high, &padded) ||
      __builtin_mul_overflow(w.size - 1, w.window_dilation, &window) ||
      __builtin_add_overflow(window, 1, &window)) {
    return std::nullopt;
  }
  if (padded < window) return 0;
  return (padded - window) / w.stride + 1;
}

Result<Shape> InferReduce(const Instruction& in) {
  const int n = in.operand_count();
  if (n == 0 || n % 2 != 0) {
    return Cannot(in, "it takes inputs then as many init values");
  }
  const int k = n / 2;
  IXA_ASSIGN_OR_RETURN(const Shape* in0, ArrayOperand(in, 0));
  std::vector<int64_t> dims;
  if (in.opcode == Opcode::kReduce) {
    for (int i = 0; i < in0->rank(); ++i) {
      if (!Contains(in.dimensions, i)) dims.push_back(in0->dims[i]);
    }
  } else {
    if (static_cast<int>(in.window.size()) != in0->rank()) {
      return Cannot(
          in, "window needs one entry per dimension of " + in0->ToString());
    }
    for (int i = 0; i < in0->rank(); ++i) {
      std::optional<int64_t> size = WindowedSize(in0->dims[i], in.window[i]);
      if (!size) return Cannot(in, "the window size overflows");
      dims.push_back(*size);
    }
  }
  std::vector<Shape> outputs;
  for (int i = 0; i < k; ++i) {
    outputs.push_back(Shape::Array(in.operand(k + i)->shape.type, dims));
  }
  return Variadic(std::move(outputs));
}

Result<Shape> InferDot(const Instruction& in) {
  IXA_ASSIGN_OR_RETURN(const Shape* lhs, ArrayOperand(in, 0));
  IXA_ASSIGN_OR_RETURN(const Shape* rhs, ArrayOperand(in, 1));
  const DotDimensionNumbers& dn = in.dot;
  std::vector<int64_t> dims;
  for (int64_t b : dn.lhs_batch) {
    if (b < 0 || b >= lhs->rank()) return Cannot(in, "bad lhs_batch_dims");
    dims.push_back(lhs->dims[b]);
  }
  for (int i = 0; i < lhs->rank(); ++i) {
    if (!Contains(dn.lhs_batch, i) && !Contains(dn.lhs_contracting, i) &&
        !Contains(in.ragged.lhs_ragged, i)) {
      dims.push_back(lhs->dims[i]);
    }
  }
  for (int i = 0; i < rhs->rank(); ++i) {
    if (!Contains(dn.rhs_batch, i) && !Contains(dn.rhs_contracting, i) &&
        !Contains(in.ragged.rhs_group, i)) {
      dims.push_back(rhs->dims[i]);
    }
  }
  return Shape::Array(lhs->type, dims);
}

Result<Shape> InferPad(const Instruction& in) {
  IXA_ASSIGN_OR_RETURN(const Shape* src, ArrayOperand(in, 0));
  if (in.padding.size() != src->dims.size()) {
    return Cannot(in, "padding needs one entry per dimension");
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < src->dims.size(); ++i) {
    const PadDim& p = in.padding[i];
    int64_t n = src->dims[i], interior = 0, total;
    if ((n > 0 && __builtin_mul_overflow(n - 1, p.interior, &interior)) ||
        __builtin_add_overflow(n, interior, &total) ||
        __builtin_add_overflow(total, p.low, &total) ||
        __builtin_add_overflow(total, p.high, &total) || total < 0) {
      return Cannot(in, "padding gives a negative or overflowing size");
    }
    dims.push_back(total);
  }
  return Shape::Array(src->type, dims);
}

Result<Shape> InferConcatenate(const Instruction& in) {
  IXA_ASSIGN_OR_RETURN(const Shape* first, ArrayOperand(in, 0));
  if (in.dimensions.size() != 1 || in.dimensions[0] < 0 ||
      in.dimensions[0] >= first->rank()) {
    return Cannot(in, "it needs dimensions={d} within the operands' rank");
  }
  const int64_t d = in.dimensions[0];
  std::vector<int64_t> dims = first->dims;
  dims[d] = 0;
  for (int i = 0; i < in.operand_count(); ++i) {
    IXA_ASSIGN_OR_RETURN(const Shape* s, ArrayOperand(in, i));
    if (s->rank() != first->rank() ||
        __builtin_add_overflow(dims[d], s->dims[d], &dims[d])) {
      return Cannot(in, "the operands do not fit together");
    }
  }
  return Shape::Array(first->type, dims);
}

}  // namespace

Result<Shape> InferShape(const Instruction& in) {
  const Opcode op = in.opcode;
  if (op == Opcode::kTuple) {
    Shape t;
    t.type = ElementType::kTuple;
    for (const Instruction* o : in.operands)
      t.tuple_elements.push_back(o->shape);
    return t;
  }
  if (op == Opcode::kAfterAll) {
    Shape token;
    token.type = ElementType::kToken;
    return token;
  }
  if (op == Opcode::kCall || op == Opcode::kFusion ||
      op == Opcode::kConditional) {
    return CalleeRoot(in);
  }
  if (in.operands.empty()) {
    return Cannot(in, "it has no operands to infer it from");
  }
  const Shape& first = in.operand(0)->shape;
  if (op == Opcode::kGetTupleElement) {
    if (!first.IsTuple() || in.tuple_index < 0 ||
        in.tuple_index >= static_cast<int64_t>(first.tuple_elements.size())) {
      return Cannot(in, "index=" + std::to_string(in.tuple_index) +
                            " is not an element of " + first.ToString());
    }
    return first.tuple_elements[in.tuple_index];
  }
  if (op == Opcode::kCollectivePermute && in.operand_count() > 1) {
    // In place (slice_sizes): the output buffer, operand 1. Combined: one
    // output per operand.
    if (in.HasAttribute("slice_sizes")) return in.operand(1)->shape;
    Shape tuple;
    tuple.type = ElementType::kTuple;
    for (const Instruction* o : in.operands) {
      tuple.tuple_elements.push_back(o->shape);
    }
    return tuple;
  }
  if (op == Opcode::kWhile || op == Opcode::kAddDependency ||
      op == Opcode::kOptimizationBarrier || op == Opcode::kCollectivePermute) {
    return first;
  }
  if (op == Opcode::kGetDimensionSize)
    return Shape::Array(ElementType::kS32, {});
  if (op == Opcode::kReduce || op == Opcode::kReduceWindow)
    return InferReduce(in);
  if (op == Opcode::kDot) return InferDot(in);
  if (op == Opcode::kPad) return InferPad(in);
  if (op == Opcode::kConcatenate) return InferConcatenate(in);
  IXA_ASSIGN_OR_RETURN(const Shape* array, ArrayOperand(in, 0));
  if (op == Opcode::kTranspose) {
    const std::vector<int64_t>& p = in.dimensions;
    std::vector<int64_t> dims;
    for (int64_t d : p) {
      if (d < 0 || d >= array->rank() || p.size() != array->dims.size()) {
        return Cannot(in, "dimensions do not permute " + array->ToString());
      }
      dims.push_back(array->dims[d]);
    }
    return Shape::Array(array->type, dims);
  }
  if (op == Opcode::kSlice) {
    if (in.slice.size() != array->dims.size()) {
      return Cannot(in, "slice needs one [start:limit:stride] per dimension");
    }
    std::vector<int64_t> dims;
    for (const SliceDim& s : in.slice) {
      if (s.stride <= 0 || s.limit < s.start) {
        return Cannot(in, "a slice dimension is empty or has a bad stride");
      }
      dims.push_back((s.limit - s.start - 1) / s.stride + 1);
    }
    return Shape::Array(array->type, dims);
  }
  if (op == Opcode::kDynamicSlice) {
    return Shape::Array(array->type, in.dynamic_slice_sizes);
  }
  if (op == Opcode::kAllReduce || op == Opcode::kSort) {
    std::vector<Shape> outputs;
    for (const Instruction* o : in.operands) outputs.push_back(o->shape);
    return Variadic(std::move(outputs));
  }
  if (op == Opcode::kMap) {
    IXA_ASSIGN_OR_RETURN(Shape root, CalleeRoot(in));
    return Shape::Array(root.type, array->dims);
  }
  if (op == Opcode::kDynamicUpdateSlice || op == Opcode::kCopy ||
      op == Opcode::kReverse || op == Opcode::kReducePrecision ||
      op == Opcode::kClamp || op == Opcode::kScatter) {
    Shape s = op == Opcode::kClamp
                  ? in.operand(std::min(1, in.operand_count() - 1))->shape
                  : first;
    s.layout.reset();
    return s;
  }
  if (IsElementwiseOpcode(op) && op != Opcode::kConvert &&
      op != Opcode::kBitcastConvert && op != Opcode::kStochasticConvert) {
    // The widest operand decides (select's predicate may be a scalar).
    const Shape* widest = &first;
    for (const Instruction* o : in.operands) {
      if (o->shape.rank() > widest->rank()) widest = &o->shape;
    }
    Shape s = *widest;
    s.layout.reset();
    if (op == Opcode::kSelect && in.operand_count() == 3) {
      s.type = in.operand(1)->shape.type;
    }
    if (op == Opcode::kCompare || op == Opcode::kIsFinite)
      s.type = ElementType::kPred;
    return s;
  }
  return Cannot(in, "XLA needs the shape written for this op");
}

}  // namespace ixa::hlo
