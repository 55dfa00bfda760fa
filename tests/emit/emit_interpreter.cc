#include "tests/emit/emit_interpreter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "analysis/hlo/custom_calls.h"
#include "tests/emit/emit_interpreter_scalar.h"

namespace ixa::emit_test {
namespace {

using hlo::Computation;
using hlo::Instruction;

using namespace interpreter_detail;  // NOLINT: the element ops

class Interpreter {
 public:
  Result<Literal> Run(const Computation& comp,
                      const std::vector<Literal>& args);

 private:
  Result<Literal> Eval(const Instruction& in,
                       const std::unordered_map<const Instruction*, Literal>& v,
                       const std::vector<Literal>& args);
  Result<Scalar> ElementwiseAt(const Instruction& in,
                               const std::vector<Scalar>& operands);
  // Applies a scalar computation (reducer, map, scatter combiner).
  Result<std::vector<Scalar>> CallScalar(const Computation& comp,
                                         const std::vector<Scalar>& args);
};

Result<Scalar> Interpreter::ElementwiseAt(const Instruction& in,
                                          const std::vector<Scalar>& x) {
  const hlo::Opcode op = in.opcode;
  if (op == hlo::Opcode::kCompare) return Compare(in, x[0], x[1]);
  if (op == hlo::Opcode::kSelect) return x[0].i ? x[1] : x[2];
  if (op == hlo::Opcode::kClamp) {
    // Complex numbers have no order to clamp by.
    if (IsComplex(x[1].type)) return UnsupportedOn(in, x[1].type);
    // clamp(lo, x, hi) = min(max(x, lo), hi).
    if (IsFloat(x[1].type)) {
      return MakeFloat(x[1].type, FMin(FMax(x[1].f, x[0].f), x[2].f));
    }
    bool is_signed = IsSigned(x[1].type);
    auto less = [&](const Scalar& p, const Scalar& q) {
      return is_signed ? p.s() < q.s() : p.i < q.i;
    };
    Scalar r = less(x[1], x[0]) ? x[0] : x[1];
    return less(x[2], r) ? x[2] : r;
  }
  if (op == hlo::Opcode::kConvert) return Convert(in, x[0], in.shape.type);
  if (op == hlo::Opcode::kReducePrecision) return ReducePrecision(in, x[0]);
  if (op == hlo::Opcode::kBitcastConvert)
    return BitcastConvert(in, x[0], in.shape.type);
  if (op == hlo::Opcode::kMap) {
    IXA_ASSIGN_OR_RETURN(std::vector<Scalar> r, CallScalar(*in.called(), x));
    return r[0];
  }
  if (x.size() == 1) return Unary(in, x[0]);
  if (x.size() == 2) return Binary(in, x[0], x[1]);
  return Unsupported(in);
}

Result<std::vector<Scalar>> Interpreter::CallScalar(
    const Computation& comp, const std::vector<Scalar>& args) {
  std::unordered_map<const Instruction*, std::vector<Scalar>> v;
  for (const Instruction* in : comp.post_order()) {
    std::vector<Scalar> out;
    if (in->opcode == hlo::Opcode::kParameter) {
      if (in->parameter_number >= static_cast<int64_t>(args.size())) {
        return Error::Invalid("interpreter: missing scalar argument");
      }
      out.push_back(args[in->parameter_number]);
    } else if (in->opcode == hlo::Opcode::kTuple) {
      for (const Instruction* o : in->operands) out.push_back(v.at(o)[0]);
    } else if (in->opcode == hlo::Opcode::kGetTupleElement) {
      out.push_back(v.at(in->operand(0)).at(in->tuple_index));
    } else if (in->opcode == hlo::Opcode::kConstant || !in->shape.IsScalar() ||
               !hlo::IsElementwiseOpcode(in->opcode)) {
      // Fall back to array evaluation for anything not scalar-elementwise.
      std::vector<Literal> lits;
      for (const Scalar& s : args) {
        Literal l = Literal::Make(s.type, {});
        Set(&l, 0, s);
        lits.push_back(l);
      }
      std::unordered_map<const Instruction*, Literal> values;
      for (const auto& [k, s] : v) {
        if (s.size() != 1) continue;
        Literal l = Literal::Make(s[0].type, {});
        Set(&l, 0, s[0]);
        values[k] = l;
      }
      IXA_ASSIGN_OR_RETURN(Literal lit, Eval(*in, values, lits));
      if (lit.is_tuple() || lit.size() != 1) {
        return Unsupported(*in, "non-scalar value in a scalar computation");
      }
      out.push_back(Get(lit, 0));
    } else {
      std::vector<Scalar> ops;
      for (const Instruction* o : in->operands) ops.push_back(v.at(o)[0]);
      IXA_ASSIGN_OR_RETURN(Scalar s, ElementwiseAt(*in, ops));
      out.push_back(s);
    }
    v[in] = std::move(out);
  }
  return v.at(comp.root());
}

// A float in a constant: a number, inf, -inf or nan.
double ParseFloatToken(const std::string& s) {
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "nan" || s == "-nan")
    return std::numeric_limits<double>::quiet_NaN();
  return std::stod(s);
}

// The numbers of a constant literal in order, braces and commas ignored.
// A complex element is a parenthesized pair "(1, -2.5)", giving its two
// numbers in order; `pairs` counts them so that a bare number (or a pair
// of one or three) in a complex literal, or a pair in a real one, is an
// error rather than values shifted by one.
struct ConstantTokens {
  std::vector<std::string> numbers;
  int64_t pairs = 0;
  bool well_formed = true;
};

ConstantTokens TokenizeConstant(const std::string& text, bool is_complex) {
  ConstantTokens out;
  std::string cur;
  bool in_pair = false;
  size_t pair_start = 0;
  for (char c : text + " ") {
    const bool separator = c == '{' || c == '}' || c == ',' || c == '(' ||
                           c == ')' ||
                           std::isspace(static_cast<unsigned char>(c));
    if (!separator) {
      cur += c;
      continue;
    }
    if (!cur.empty()) {
      if (is_complex && !in_pair) out.well_formed = false;
      out.numbers.push_back(cur);
      cur.clear();
    }
    if (c == '(') {
      if (!is_complex || in_pair) out.well_formed = false;
      in_pair = true;
      pair_start = out.numbers.size();
    } else if (c == ')') {
      if (!in_pair || out.numbers.size() - pair_start != 2) {
        out.well_formed = false;
      }
      in_pair = false;
      ++out.pairs;
    }
  }
  if (in_pair) out.well_formed = false;
  return out;
}

// Parses the numbers of a constant literal in order (braces ignored).
// The elements of a tuple literal `(e0, e1, ...)`: the text between the
// outer parentheses cut where a comma stands outside every bracket.
std::optional<std::vector<std::string>> TupleLiteralElements(
    const std::string& text) {
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    return std::nullopt;
  }
  std::vector<std::string> elements(1);
  int nesting = 0;
  for (size_t i = open + 1; i < close; ++i) {
    const char c = text[i];
    nesting += (c == '(' || c == '{') - (c == ')' || c == '}');
    if (c == ',' && nesting == 0) {
      elements.emplace_back();
    } else {
      elements.back() += c;
    }
  }
  if (elements.size() == 1 &&
      elements[0].find_first_not_of(' ') == std::string::npos) {
    elements.clear();  // `()`
  }
  return elements;
}

Result<Literal> ConstantOf(const Instruction& in, const hlo::Shape& shape,
                           const std::string& text);

Result<Literal> ConstantLiteral(const Instruction& in) {
  return ConstantOf(in, in.shape, in.literal);
}

Result<Literal> ConstantOf(const Instruction& in, const hlo::Shape& shape,
                           const std::string& text) {
  if (shape.IsTuple()) {
    std::optional<std::vector<std::string>> parts = TupleLiteralElements(text);
    if (!parts || parts->size() != shape.tuple_elements.size()) {
      return Unsupported(in, "tuple literal '" + text + "'");
    }
    Literal t;
    t.type = ElementType::kTuple;
    for (size_t k = 0; k < parts->size(); ++k) {
      IXA_ASSIGN_OR_RETURN(
          Literal e, ConstantOf(in, shape.tuple_elements[k], (*parts)[k]));
      t.tuple.push_back(std::move(e));
    }
    return t;
  }
  Literal lit = Literal::Make(shape.type, shape.dims);
  const bool is_complex = IsComplex(lit.type);
  ConstantTokens parsed = TokenizeConstant(text, is_complex);
  const std::vector<std::string>& tokens = parsed.numbers;
  if (!parsed.well_formed) {
    return Unsupported(in, std::string("malformed ") +
                               hlo::ElementTypeName(lit.type) + " literal '" +
                               in.literal + "'");
  }
  const int64_t values =
      is_complex ? parsed.pairs : static_cast<int64_t>(tokens.size());
  if (values != lit.size()) {
    return Unsupported(in, "literal with " + std::to_string(values) +
                               " values for " + std::to_string(lit.size()) +
                               " elements");
  }
  // A malformed number is the literal's fault: an error, not an exception
  // escaping the test.
  try {
    for (size_t k = 0; k < tokens.size(); ++k) {
      const std::string& s = tokens[k];
      if (IsFloat(lit.type) || is_complex) {
        // A complex literal's floats are its parts in order (re, im, ...).
        lit.floats[k] = RoundToType(ParseFloatToken(s), lit.type);
      } else if (s == "true" || s == "false") {
        lit.ints[k] = s == "true";
      } else if (IsUnsigned(lit.type)) {
        lit.ints[k] = WrapToType(std::stoull(s), lit.type);
      } else {
        lit.ints[k] =
            WrapToType(static_cast<uint64_t>(std::stoll(s)), lit.type);
      }
    }
  } catch (const std::exception&) {
    return Unsupported(in, "unreadable literal '" + in.literal + "'");
  }
  return lit;
}

// Logical index of `shape` -> offset in its (untiled) physical order.
int64_t PhysicalLinear(const hlo::Shape& shape,
                       const std::vector<int64_t>& index) {
  std::vector<int64_t> m2m = shape.MinorToMajor();
  int64_t linear = 0;
  for (size_t k = m2m.size(); k-- > 0;) {
    linear = linear * shape.dims[m2m[k]] + index[m2m[k]];
  }
  return linear;
}

std::vector<int64_t> LogicalOfPhysical(const hlo::Shape& shape,
                                       int64_t linear) {
  std::vector<int64_t> m2m = shape.MinorToMajor();
  std::vector<int64_t> index(shape.rank());
  for (size_t k = 0; k < m2m.size(); ++k) {
    int64_t d = shape.dims[m2m[k]];
    index[m2m[k]] = linear % d;
    linear /= d;
  }
  return index;
}

bool HasTiles(const hlo::Shape& s) {
  return s.layout && !s.layout->tiles.empty();
}

Result<Literal> Interpreter::Eval(
    const Instruction& in,
    const std::unordered_map<const Instruction*, Literal>& v,
    const std::vector<Literal>& args) {
  const hlo::Opcode op = in.opcode;
  auto operand = [&](int k) -> const Literal& { return v.at(in.operand(k)); };
  const hlo::Shape& shape = in.shape;
  if (op == hlo::Opcode::kParameter) {
    if (in.parameter_number >= static_cast<int64_t>(args.size())) {
      return Error::Invalid("interpreter: missing argument " +
                            std::to_string(in.parameter_number));
    }
    return args[in.parameter_number];
  }
  if (op == hlo::Opcode::kConstant) return ConstantLiteral(in);
  if (op == hlo::Opcode::kTuple) {
    Literal t;
    t.type = ElementType::kTuple;
    for (int k = 0; k < in.operand_count(); ++k) t.tuple.push_back(operand(k));
    return t;
  }
  if (op == hlo::Opcode::kGetTupleElement)
    return operand(0).tuple.at(in.tuple_index);
  {
    std::vector<const Literal*> ops;
    for (int k = 0; k < in.operand_count(); ++k) ops.push_back(&operand(k));
    auto call = [this](const Computation& c, const std::vector<Literal>& a) {
      return Run(c, a);
    };
    if (std::optional<Result<Literal>> r = EvalAcrossDevices(in, ops, call)) {
      return std::move(*r);
    }
  }
  if (op == hlo::Opcode::kFusion || op == hlo::Opcode::kCall) {
    std::vector<Literal> call_args;
    for (int k = 0; k < in.operand_count(); ++k)
      call_args.push_back(operand(k));
    return Run(*in.called(), call_args);
  }
  if (op == hlo::Opcode::kWhile) {
    // condition= and body= by name (attribute order is the text's).
    const Computation* cond = nullptr;
    const Computation* body = nullptr;
    for (const Computation* c : in.called_computations) {
      auto named = [&](const char* attribute) {
        const std::string v = in.Attribute(attribute);
        return v == c->name() || v == "%" + c->name();
      };
      if (named("condition")) cond = c;
      if (named("body")) body = c;
    }
    if (cond == nullptr || body == nullptr) return Unsupported(in, "while");
    Literal state = operand(0);
    for (int64_t trip = 0;; ++trip) {
      if (trip > (int64_t{1} << 24)) return Unsupported(in, "endless while");
      IXA_ASSIGN_OR_RETURN(Literal go, Run(*cond, {state}));
      if (go.AsInt(0) == 0) break;
      IXA_ASSIGN_OR_RETURN(state, Run(*body, {state}));
    }
    return state;
  }
  if (op == hlo::Opcode::kConditional) {
    const Literal& selector = operand(0);
    const Computation* branch = nullptr;
    int64_t index = 0;
    if (selector.type == ElementType::kPred) {
      const std::string want = in.Attribute(
          selector.AsInt(0) != 0 ? "true_computation" : "false_computation");
      for (const Computation* c : in.called_computations) {
        if (want == c->name() || want == "%" + c->name()) branch = c;
      }
      index = selector.AsInt(0) != 0 ? 0 : 1;
    } else {
      const int64_t n = static_cast<int64_t>(in.called_computations.size());
      index = selector.AsInt(0);
      if (index < 0 || index >= n) index = n - 1;
      branch = in.called_computations.at(index);
    }
    if (branch == nullptr) return Unsupported(in, "conditional branches");
    return Run(*branch, {operand(static_cast<int>(index) + 1)});
  }
  if (op == hlo::Opcode::kDot) {
    return EvalDot(in, in.dot, shape, operand(0), operand(1));
  }
  if (op == hlo::Opcode::kRaggedDot || op == hlo::Opcode::kScaledDot) {
    std::vector<Literal> operands;
    for (int k = 0; k < in.operand_count(); ++k) operands.push_back(operand(k));
    std::optional<Result<Literal>> r = EvalDotVariant(in, operands);
    if (r) return std::move(*r);
  }
  if (op == hlo::Opcode::kConvolution) {
    return EvalConvolution(in, operand(0), operand(1));
  }
  if (std::optional<hlo::ConvCallSemantics> conv =
          hlo::ConvCallSemanticsOf(in)) {
    if (!conv->unsupported.empty()) return Unsupported(in, conv->unsupported);
    std::vector<Literal> operands;
    for (int k = 0; k < in.operand_count(); ++k) operands.push_back(operand(k));
    const hlo::Shape& result =
        shape.IsTuple() ? shape.tuple_elements[0] : shape;
    IXA_ASSIGN_OR_RETURN(Literal value,
                         EvalConvCall(in, *conv, result, operands));
    if (!shape.IsTuple()) return value;
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple.push_back(std::move(value));
    for (size_t k = 1; k < shape.tuple_elements.size(); ++k) {
      const hlo::Shape& w = shape.tuple_elements[k];
      t.tuple.push_back(Literal::Make(w.type, w.dims));
    }
    return t;
  }
  if (op == hlo::Opcode::kFft) return EvalFft(in, operand(0), shape);
  if (op == hlo::Opcode::kCholesky) return EvalCholesky(in, operand(0));
  if (op == hlo::Opcode::kTriangularSolve) {
    return EvalTriangularSolve(in, operand(0), operand(1));
  }
  if (op == hlo::Opcode::kCustomCall &&
      hlo::GetLibraryCallKind(in) == hlo::LibraryCallKind::kCublasGemm) {
    std::optional<hlo::DotDimensionNumbers> dims = hlo::GemmDotDimensions(in);
    if (!dims) return Unsupported(in, "a GEMM without dimension numbers");
    const hlo::Shape& result =
        shape.IsTuple() ? shape.tuple_elements[0] : shape;
    std::optional<hlo::GemmCallSemantics> gemm = hlo::GemmCallSemanticsOf(in);
    if (!gemm->unsupported.empty()) return Unsupported(in, gemm->unsupported);
    std::vector<Literal> operands;
    for (int k = 0; k < in.operand_count(); ++k) operands.push_back(operand(k));
    const hlo::Shape* aux_shape =
        gemm->aux ? &shape.tuple_elements.at(1) : nullptr;
    Literal aux;
    IXA_ASSIGN_OR_RETURN(
        Literal product,
        EvalGemmCall(in, *dims, *gemm, result, operands, aux_shape, &aux));
    if (!shape.IsTuple()) return product;
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple.push_back(std::move(product));
    if (gemm->aux) t.tuple.push_back(std::move(aux));
    for (size_t k = t.tuple.size(); k < shape.tuple_elements.size(); ++k) {
      const hlo::Shape& w = shape.tuple_elements[k];
      t.tuple.push_back(Literal::Make(w.type, w.dims));
    }
    return t;
  }
  if (op == hlo::Opcode::kSort) {
    std::vector<Literal> operands;
    for (int k = 0; k < in.operand_count(); ++k) operands.push_back(operand(k));
    auto less = [&](const std::vector<Scalar>& args) -> Result<bool> {
      IXA_ASSIGN_OR_RETURN(std::vector<Scalar> r,
                           CallScalar(*in.called(), args));
      return r.at(0).i != 0;
    };
    IXA_ASSIGN_OR_RETURN(std::vector<Literal> sorted,
                         EvalSort(in, operands, less));
    if (!shape.IsTuple()) return sorted.at(0);
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple = std::move(sorted);
    return t;
  }
  if (op == hlo::Opcode::kCustomCall ||
      hlo::OpcodeIn(
          op,
          {hlo::Opcode::kBatchNormTraining, hlo::Opcode::kBatchNormInference,
           hlo::Opcode::kBatchNormGrad, hlo::Opcode::kTopK,
           hlo::Opcode::kStochasticConvert, hlo::Opcode::kSelectAndScatter})) {
    std::vector<Literal> operands;
    for (int k = 0; k < in.operand_count(); ++k) operands.push_back(operand(k));
    std::optional<Result<Literal>> expanded = EvalExpandedOp(
        in, operands,
        [&](const Computation& c, const std::vector<Scalar>& scalars) {
          return CallScalar(c, scalars);
        });
    if (expanded) return std::move(*expanded);
  }
  if (!shape.IsArray()) {
    if (op == hlo::Opcode::kReduce || op == hlo::Opcode::kReduceWindow ||
        op == hlo::Opcode::kScatter) {
      // Variadic forms are handled below.
    } else {
      return Unsupported(in, "tuple-shaped");
    }
  }
  if (op == hlo::Opcode::kBitcastConvert &&
      Bits(shape.type) != Bits(in.operand(0)->shape.type)) {
    return BitcastConvertWidths(in, operand(0), shape);
  }
  if (hlo::IsElementwiseOpcode(op)) {
    Literal out = Literal::Make(shape.type, shape.dims);
    std::vector<Scalar> x(in.operand_count());
    for (int64_t k = 0; k < out.size(); ++k) {
      for (int j = 0; j < in.operand_count(); ++j) {
        const Literal& o = operand(j);
        x[j] = Get(o, o.size() == 1 && out.size() != 1 ? 0 : k);
      }
      IXA_ASSIGN_OR_RETURN(Scalar s, ElementwiseAt(in, x));
      Set(&out, k, s);
    }
    return out;
  }
  Literal out;
  if (shape.IsArray()) out = Literal::Make(shape.type, shape.dims);
  const int64_t n = out.size();
  if (op == hlo::Opcode::kIota) {
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < n; ++k) {
      DelinearizeInto(k, shape.dims, &idx);
      int64_t value = idx[in.iota_dimension];
      if (IsFloat(shape.type)) {
        out.floats[k] = RoundToType(static_cast<double>(value), shape.type);
      } else if (IsComplex(shape.type)) {
        // The index is the real part (rounded to the component type).
        Set(&out, k, MakeComplex(shape.type, static_cast<double>(value)));
      } else {
        out.ints[k] = WrapToType(static_cast<uint64_t>(value), shape.type);
      }
    }
    return out;
  }
  if (op == hlo::Opcode::kBroadcast) {
    const Literal& a = operand(0);
    std::vector<int64_t> idx, src;
    for (int64_t k = 0; k < n; ++k) {
      DelinearizeInto(k, shape.dims, &idx);
      src.clear();
      for (int64_t d : in.dimensions) src.push_back(idx[d]);
      Set(&out, k, Get(a, Linearize(src, a.dims)));
    }
    return out;
  }
  if (op == hlo::Opcode::kTranspose) {
    const Literal& a = operand(0);
    std::vector<int64_t> idx, src(a.dims.size());
    for (int64_t k = 0; k < n; ++k) {
      DelinearizeInto(k, shape.dims, &idx);
      for (size_t d = 0; d < idx.size(); ++d) src[in.dimensions[d]] = idx[d];
      Set(&out, k, Get(a, Linearize(src, a.dims)));
    }
    return out;
  }
  if (op == hlo::Opcode::kReshape) {
    const Literal& a = operand(0);
    for (int64_t k = 0; k < n; ++k) Set(&out, k, Get(a, k));
    return out;
  }
  if (op == hlo::Opcode::kBitcast) {
    // The same physical element, read through both layouts.
    const hlo::Shape& src_shape = in.operand(0)->shape;
    if (HasTiles(shape) || HasTiles(src_shape)) {
      return Unsupported(in, "tiled bitcast");
    }
    const Literal& a = operand(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t phys = PhysicalLinear(shape, Delinearize(k, shape.dims));
      std::vector<int64_t> src = LogicalOfPhysical(src_shape, phys);
      Scalar element = Get(a, Linearize(src, a.dims));
      if (src_shape.type != shape.type) {
        // A same-width type change reinterprets each element's bits.
        IXA_ASSIGN_OR_RETURN(element, BitcastConvert(in, element, shape.type));
      }
      Set(&out, k, element);
    }
    return out;
  }
  if (op == hlo::Opcode::kSlice) {
    const Literal& a = operand(0);
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < n; ++k) {
      DelinearizeInto(k, shape.dims, &idx);
      for (size_t d = 0; d < idx.size(); ++d) {
        idx[d] = in.slice[d].start + idx[d] * in.slice[d].stride;
      }
      Set(&out, k, Get(a, Linearize(idx, a.dims)));
    }
    return out;
  }
  if (op == hlo::Opcode::kReverse) {
    const Literal& a = operand(0);
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < n; ++k) {
      DelinearizeInto(k, shape.dims, &idx);
      for (int64_t d : in.dimensions) idx[d] = shape.dims[d] - 1 - idx[d];
      Set(&out, k, Get(a, Linearize(idx, a.dims)));
    }
    return out;
  }
  if (op == hlo::Opcode::kPad) {
    const Literal& a = operand(0);
    Scalar pad = Get(operand(1), 0);
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < n; ++k) {
      DelinearizeInto(k, shape.dims, &idx);
      bool inside = true;
      for (size_t d = 0; d < idx.size() && inside; ++d) {
        int64_t x = idx[d] - in.padding[d].low;
        int64_t step = in.padding[d].interior + 1;
        if (x < 0 || x % step != 0 || x / step >= a.dims[d]) {
          inside = false;
        } else {
          idx[d] = x / step;
        }
      }
      Set(&out, k, inside ? Get(a, Linearize(idx, a.dims)) : pad);
    }
    return out;
  }
  if (op == hlo::Opcode::kConcatenate) {
    int64_t dim = in.dimensions.at(0);
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < n; ++k) {
      DelinearizeInto(k, shape.dims, &idx);
      for (int j = 0; j < in.operand_count(); ++j) {
        const Literal& a = operand(j);
        if (idx[dim] < a.dims[dim]) {
          Set(&out, k, Get(a, Linearize(idx, a.dims)));
          break;
        }
        idx[dim] -= a.dims[dim];
      }
    }
    return out;
  }
  if ((op == hlo::Opcode::kDynamicSlice ||
       op == hlo::Opcode::kDynamicUpdateSlice) &&
      in.operand_count() != (op == hlo::Opcode::kDynamicSlice ? 1 : 2) +
                                in.operand(0)->shape.rank()) {
    // The old form with one index vector operand.
    return Error::Unsupported("interpreter: " + hlo::OpcodeName(in) +
                              " with an index vector operand");
  }
  if (op == hlo::Opcode::kDynamicSlice) {
    const Literal& a = operand(0);
    std::vector<int64_t> start(a.dims.size());
    for (size_t d = 0; d < start.size(); ++d) {
      int64_t s = operand(1 + d).AsInt(0);
      if (IsUnsigned(operand(1 + d).type))
        s = static_cast<int64_t>(operand(1 + d).ints[0]);
      start[d] = std::clamp<int64_t>(s, 0, a.dims[d] - shape.dims[d]);
    }
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < n; ++k) {
      DelinearizeInto(k, shape.dims, &idx);
      for (size_t d = 0; d < idx.size(); ++d) idx[d] += start[d];
      Set(&out, k, Get(a, Linearize(idx, a.dims)));
    }
    return out;
  }
  if (op == hlo::Opcode::kDynamicUpdateSlice) {
    out = operand(0);
    const Literal& u = operand(1);
    std::vector<int64_t> start(shape.dims.size());
    for (size_t d = 0; d < start.size(); ++d) {
      start[d] = std::clamp<int64_t>(operand(2 + d).AsInt(0), 0,
                                     shape.dims[d] - u.dims[d]);
    }
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < u.size(); ++k) {
      DelinearizeInto(k, u.dims, &idx);
      for (size_t d = 0; d < idx.size(); ++d) idx[d] += start[d];
      Set(&out, Linearize(idx, shape.dims), Get(u, k));
    }
    return out;
  }
  if (op == hlo::Opcode::kReduce) {
    const int count = in.operand_count() / 2;
    const Literal& a0 = operand(0);
    std::vector<bool> reduced(a0.dims.size(), false);
    for (int64_t d : in.dimensions) reduced[d] = true;
    std::vector<int64_t> kept_dims, red_dims;
    for (size_t d = 0; d < a0.dims.size(); ++d) {
      (reduced[d] ? red_dims : kept_dims).push_back(a0.dims[d]);
    }
    int64_t kept_n = 1, red_n = 1;
    for (int64_t d : kept_dims) kept_n *= d;
    for (int64_t d : red_dims) red_n *= d;
    std::vector<Literal> outs;
    for (int j = 0; j < count; ++j) {
      outs.push_back(Literal::Make(operand(j).type, kept_dims));
    }
    std::vector<int64_t> full(a0.dims.size()), kidx, ridx;
    for (int64_t k = 0; k < kept_n; ++k) {
      std::vector<Scalar> acc;
      for (int j = 0; j < count; ++j) acc.push_back(Get(operand(count + j), 0));
      DelinearizeInto(k, kept_dims, &kidx);
      for (int64_t r = 0; r < red_n; ++r) {
        DelinearizeInto(r, red_dims, &ridx);
        size_t ki = 0, ri = 0;
        for (size_t d = 0; d < full.size(); ++d) {
          full[d] = reduced[d] ? ridx[ri++] : kidx[ki++];
        }
        std::vector<Scalar> call = acc;
        for (int j = 0; j < count; ++j) {
          call.push_back(Get(operand(j), Linearize(full, a0.dims)));
        }
        IXA_ASSIGN_OR_RETURN(acc, CallScalar(*in.called(), call));
      }
      for (int j = 0; j < count; ++j) Set(&outs[j], k, acc[j]);
    }
    if (count == 1 && !shape.IsTuple()) return outs[0];
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple = std::move(outs);
    return t;
  }
  if (op == hlo::Opcode::kReduceWindow) {
    const int count = in.operand_count() / 2;
    const Literal& a0 = operand(0);
    const std::vector<int64_t>& odims =
        shape.IsTuple() ? shape.tuple_elements[0].dims : shape.dims;
    int64_t out_n = 1, win_n = 1;
    for (int64_t d : odims) out_n *= d;
    std::vector<int64_t> wdims;
    for (const hlo::WindowDim& w : in.window) {
      wdims.push_back(w.size);
      win_n *= w.size;
    }
    std::vector<Literal> outs;
    for (int j = 0; j < count; ++j) {
      outs.push_back(Literal::Make(operand(j).type, odims));
    }
    for (int64_t k = 0; k < out_n; ++k) {
      std::vector<int64_t> oidx = Delinearize(k, odims);
      std::vector<Scalar> acc;
      for (int j = 0; j < count; ++j) acc.push_back(Get(operand(count + j), 0));
      for (int64_t w = 0; w < win_n; ++w) {
        std::vector<int64_t> widx = Delinearize(w, wdims);
        std::vector<int64_t> src(odims.size());
        bool inside = true;
        for (size_t d = 0; d < odims.size() && inside; ++d) {
          const hlo::WindowDim& wd = in.window[d];
          int64_t wpos = wd.reversal ? wd.size - 1 - widx[d] : widx[d];
          int64_t x =
              oidx[d] * wd.stride + wpos * wd.window_dilation - wd.pad_low;
          if (x < 0 || x % wd.base_dilation != 0 ||
              x / wd.base_dilation >= a0.dims[d]) {
            inside = false;
          } else {
            src[d] = x / wd.base_dilation;
          }
        }
        if (!inside) continue;
        std::vector<Scalar> call = acc;
        for (int j = 0; j < count; ++j) {
          call.push_back(Get(operand(j), Linearize(src, a0.dims)));
        }
        IXA_ASSIGN_OR_RETURN(acc, CallScalar(*in.called(), call));
      }
      for (int j = 0; j < count; ++j) Set(&outs[j], k, acc[j]);
    }
    if (count == 1 && !shape.IsTuple()) return outs[0];
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple = std::move(outs);
    return t;
  }
  if (op == hlo::Opcode::kGather) {
    const hlo::GatherDimensionNumbers& g = in.gather;
    const Literal& a = operand(0);
    const Literal& indices = operand(1);
    const int64_t ivd = g.index_vector_dim;
    std::vector<bool> is_offset(shape.dims.size(), false);
    for (int64_t d : g.offset_dims) is_offset[d] = true;
    std::vector<int64_t> window_operand_dims;  // operand dims with offsets
    for (size_t d = 0; d < a.dims.size(); ++d) {
      if (std::find(g.collapsed_slice_dims.begin(),
                    g.collapsed_slice_dims.end(),
                    static_cast<int64_t>(d)) == g.collapsed_slice_dims.end() &&
          std::find(g.operand_batching_dims.begin(),
                    g.operand_batching_dims.end(),
                    static_cast<int64_t>(d)) == g.operand_batching_dims.end()) {
        window_operand_dims.push_back(d);
      }
    }
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> oidx = Delinearize(k, shape.dims);
      std::vector<int64_t> batch, offsets;
      for (size_t d = 0; d < oidx.size(); ++d) {
        (is_offset[d] ? offsets : batch).push_back(oidx[d]);
      }
      std::vector<int64_t> start(a.dims.size(), 0);
      for (size_t s = 0; s < g.start_index_map.size(); ++s) {
        std::vector<int64_t> iidx = batch;
        if (ivd < static_cast<int64_t>(indices.dims.size())) {
          iidx.insert(iidx.begin() + ivd, static_cast<int64_t>(s));
        }
        int64_t d = g.start_index_map[s];
        start[d] =
            std::clamp<int64_t>(indices.AsInt(Linearize(iidx, indices.dims)), 0,
                                a.dims[d] - in.slice_sizes[d]);
      }
      // A batching dim starts at the position along its indices dim.
      for (size_t m = 0; m < g.operand_batching_dims.size(); ++m) {
        const int64_t d = g.start_indices_batching_dims[m];
        start[g.operand_batching_dims[m]] = batch[d - (ivd < d ? 1 : 0)];
      }
      std::vector<int64_t> src = start;
      for (size_t w = 0; w < window_operand_dims.size(); ++w) {
        src[window_operand_dims[w]] += offsets[w];
      }
      Set(&out, k, Get(a, Linearize(src, a.dims)));
    }
    return out;
  }
  if (op == hlo::Opcode::kScatter) {
    const int count = (in.operand_count() - 1) / 2;
    std::vector<int64_t> update_window_dims =
        ParseIntList(in.Attribute("update_window_dims"));
    std::vector<int64_t> inserted =
        ParseIntList(in.Attribute("inserted_window_dims"));
    std::vector<int64_t> to_operand =
        ParseIntList(in.Attribute("scatter_dims_to_operand_dims"));
    int64_t ivd = ParseIntList(in.Attribute("index_vector_dim")).at(0);
    const hlo::ScatterDimensionNumbers dn = in.ScatterDims();
    std::vector<Literal> outs;
    for (int j = 0; j < count; ++j) outs.push_back(operand(j));
    const Literal& indices = operand(count);
    const Literal& u0 = operand(count + 1);
    std::vector<bool> is_window(u0.dims.size(), false);
    for (int64_t d : update_window_dims) is_window[d] = true;
    std::vector<int64_t> window_operand_dims;
    for (size_t d = 0; d < outs[0].dims.size(); ++d) {
      if (std::find(inserted.begin(), inserted.end(),
                    static_cast<int64_t>(d)) == inserted.end() &&
          std::find(dn.input_batching_dims.begin(),
                    dn.input_batching_dims.end(),
                    static_cast<int64_t>(d)) == dn.input_batching_dims.end()) {
        window_operand_dims.push_back(d);
      }
    }
    // Window size per operand dim (1 for inserted dims).
    std::vector<int64_t> window_size(outs[0].dims.size(), 1);
    for (size_t w = 0; w < window_operand_dims.size(); ++w) {
      window_size[window_operand_dims[w]] = u0.dims[update_window_dims[w]];
    }
    for (int64_t k = 0; k < u0.size(); ++k) {
      std::vector<int64_t> uidx = Delinearize(k, u0.dims);
      std::vector<int64_t> scatter, window;
      for (size_t d = 0; d < uidx.size(); ++d) {
        (is_window[d] ? window : scatter).push_back(uidx[d]);
      }
      std::vector<int64_t> start(outs[0].dims.size(), 0);
      for (size_t s = 0; s < to_operand.size(); ++s) {
        std::vector<int64_t> iidx = scatter;
        if (ivd < static_cast<int64_t>(indices.dims.size())) {
          iidx.insert(iidx.begin() + ivd, static_cast<int64_t>(s));
        }
        start[to_operand[s]] = indices.AsInt(Linearize(iidx, indices.dims));
      }
      // A batching dim starts at the position along its indices dim.
      for (size_t m = 0; m < dn.input_batching_dims.size(); ++m) {
        const int64_t d = dn.scatter_indices_batching_dims[m];
        start[dn.input_batching_dims[m]] = scatter[d - (ivd < d ? 1 : 0)];
      }
      // The whole window must fit, else the update is skipped (as XLA's
      // GPU scatter emitter does).
      bool fits = true;
      for (size_t d = 0; d < start.size(); ++d) {
        if (start[d] < 0 || start[d] > outs[0].dims[d] - window_size[d]) {
          fits = false;
        }
      }
      if (!fits) continue;
      std::vector<int64_t> dst = start;
      for (size_t w = 0; w < window_operand_dims.size(); ++w) {
        dst[window_operand_dims[w]] += window[w];
      }
      int64_t at = Linearize(dst, outs[0].dims);
      std::vector<Scalar> call;
      for (int j = 0; j < count; ++j) call.push_back(Get(outs[j], at));
      for (int j = 0; j < count; ++j)
        call.push_back(Get(operand(count + 1 + j), k));
      IXA_ASSIGN_OR_RETURN(std::vector<Scalar> r,
                           CallScalar(*in.called(), call));
      for (int j = 0; j < count; ++j) Set(&outs[j], at, r[j]);
    }
    if (count == 1 && !shape.IsTuple()) return outs[0];
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple = std::move(outs);
    return t;
  }
  return Unsupported(in);
}

Result<Literal> Interpreter::Run(const Computation& comp,
                                 const std::vector<Literal>& args) {
  std::unordered_map<const Instruction*, Literal> values;
  for (const Instruction* in : comp.post_order()) {
    IXA_ASSIGN_OR_RETURN(Literal lit, Eval(*in, values, args));
    values[in] = std::move(lit);
  }
  return values.at(comp.root());
}

}  // namespace

Result<Literal> Interpret(const hlo::Computation& computation,
                          const std::vector<Literal>& arguments) {
  if (static_cast<int64_t>(arguments.size()) != computation.parameter_count()) {
    return Error::Invalid(
        "interpreter: " + std::to_string(arguments.size()) + " arguments for " +
        std::to_string(computation.parameter_count()) + " parameters");
  }
  Interpreter interpreter;
  return interpreter.Run(computation, arguments);
}

}  // namespace ixa::emit_test
