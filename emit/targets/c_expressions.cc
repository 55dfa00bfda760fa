// Expression printing of the C++ and CUDA printers: literals, types,
// indexing-map applications, domain checks and scalar operations.
#include <cmath>
#include <limits>
#include <sstream>

#include "emit/targets/c_printer_internal.h"

namespace ixa::emit::c_printer {

// The C type a value of `t` is computed in.
std::string ComputeType(Type t) {
  switch (t) {
    case Type::kPred:
      return "bool";
    case Type::kS8:
      return "int8_t";
    case Type::kS16:
      return "int16_t";
    case Type::kS32:
      return "int32_t";
    case Type::kS64:
      return "int64_t";
    case Type::kU8:
      return "uint8_t";
    case Type::kU16:
      return "uint16_t";
    case Type::kU32:
      return "uint32_t";
    case Type::kU64:
      return "uint64_t";
    case Type::kF16:
    case Type::kBF16:
    case Type::kF32:
      return "float";
    case Type::kF64:
      return "double";
    case Type::kIndex:
      return "int64_t";
    case Type::kC64:  // the structs of the ixa_complex helper
      return "ixa_c64";
    case Type::kC128:
      return "ixa_c128";
    default:  // sub-byte and f8 types are legalized before printing
      break;
  }
  return "?";
}

// The C type a buffer element is stored as.
std::string StorageType(Type t) {
  switch (t) {
    case Type::kPred:
      return "uint8_t";
    case Type::kF16:
    case Type::kBF16:
      return "uint16_t";
    default:
      return ComputeType(t);
  }
}

// Unsigned arithmetic type wide enough to avoid int promotion overflow.
std::string UnsignedWide(Type t) {
  return ir::TypeBits(t) == 64 ? "uint64_t" : "uint32_t";
}

std::string FloatLiteral(double v, Type t, bool cuda) {
  bool f64 = t == Type::kF64;
  if (v != v) {
    // XLA's `nan` is the positive quiet NaN (0.0f / 0.0f is negative on
    // x86); it matters to total-order comparisons and bitcasts. nvcc
    // calls no host constexpr from device code, and keeps 0 / 0 as a
    // division whose NaN is the GPU's canonical 0x7fffffff; it folds
    // __builtin_nan (in initialisers too) to the quiet NaN's bits.
    if (cuda) {
      return std::string(std::signbit(v) ? "(-" : "(") +
             (f64 ? "__builtin_nan(\"\"))" : "__builtin_nanf(\"\"))");
    }
    return std::string(std::signbit(v) ? "(-" : "(") + "std::numeric_limits<" +
           (f64 ? "double" : "float") + ">::quiet_NaN())";
  }
  if (v > 1.7976931348623157e308) return f64 ? "(1.0 / 0.0)" : "(1.0f / 0.0f)";
  if (v < -1.7976931348623157e308)
    return f64 ? "(-1.0 / 0.0)" : "(-1.0f / 0.0f)";
  std::ostringstream out;
  out.precision(17);
  out << v;
  std::string s = out.str();
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (!f64) s += "f";
  return "(" + s + ")";
}

bool FitsIndex32(Type t) {
  return ir::TypeBits(t) < 32 || t == Type::kS32 || t == Type::kPred;
}

std::string IntLiteral(int64_t v, Type t) {
  if (t == Type::kPred) return v ? "true" : "false";
  if (t == Type::kU64) {
    return "uint64_t(" + std::to_string(static_cast<uint64_t>(v)) + "ULL)";
  }
  if (v == INT64_MIN) return "int64_t(-9223372036854775807LL - 1)";
  if (t == Type::kIndex) {
    return v >= 0 && v < 1000000 ? std::to_string(v)
                                 : "int64_t(" + std::to_string(v) + "LL)";
  }
  if (t == Type::kS64) return "int64_t(" + std::to_string(v) + "LL)";
  if (t == Type::kU32) return std::to_string(static_cast<uint32_t>(v)) + "u";
  if (t == Type::kS32) {
    return v == INT32_MIN ? "int32_t(-2147483647 - 1)"
                          : "int32_t(" + std::to_string(v) + ")";
  }
  return ComputeType(t) + "(" + std::to_string(v) + ")";
}

Text CPrinter::AffineExpr(ixa::Expr e, const Node& apply) {
  const IndexingMap& map = *apply.map;
  switch (e.kind()) {
    case ExprKind::kConstant:
      return Lit(e.constant(), Type::kIndex);
    case ExprKind::kDim:
      return Expr(apply.operands[e.position()]);
    case ExprKind::kSymbol:
      return Expr(apply.operands[map.num_dims() + e.position()]);
    case ExprKind::kAdd: {
      IXA_ASSIGN_OR_RETURN(std::string a, AffineExpr(e.lhs(), apply));
      ixa::Expr r = e.rhs();
      // a + b * (-c) prints as a - b * c.
      if (r.kind() == ExprKind::kMul && r.rhs().IsConstant() &&
          r.rhs().constant() < 0 && r.rhs().constant() != INT64_MIN) {
        IXA_ASSIGN_OR_RETURN(std::string b, AffineExpr(r.lhs(), apply));
        int64_t c = -r.rhs().constant();
        return "(" + a + " - " +
               (c == 1 ? b : b + " * " + Lit(c, Type::kIndex)) + ")";
      }
      if (r.IsConstant() && r.constant() < 0 && r.constant() != INT64_MIN) {
        return "(" + a + " - " + Lit(-r.constant(), Type::kIndex) + ")";
      }
      IXA_ASSIGN_OR_RETURN(std::string b, AffineExpr(r, apply));
      return "(" + a + " + " + b + ")";
    }
    case ExprKind::kMul: {
      IXA_ASSIGN_OR_RETURN(std::string a, AffineExpr(e.lhs(), apply));
      IXA_ASSIGN_OR_RETURN(std::string b, AffineExpr(e.rhs(), apply));
      return "(" + a + " * " + b + ")";
    }
    case ExprKind::kFloorDiv:
    case ExprKind::kCeilDiv:
    case ExprKind::kMod: {
      IXA_ASSIGN_OR_RETURN(std::string a, AffineExpr(e.lhs(), apply));
      IXA_ASSIGN_OR_RETURN(std::string b, AffineExpr(e.rhs(), apply));
      // Plain C division where the numerator is provably non-negative and
      // the divisor a positive constant.
      std::vector<Interval> dims, syms;
      for (int i = 0; i < map.num_dims(); ++i) {
        dims.push_back(
            ir::RangeOf(apply.operands[i]).Intersect(map.dims()[i].bounds));
      }
      for (int i = 0; i < map.num_symbols(); ++i) {
        syms.push_back(ir::RangeOf(apply.operands[map.num_dims() + i])
                           .Intersect(map.symbol(i).bounds));
      }
      bool plain = e.rhs().IsConstant() && e.rhs().constant() > 0 &&
                   ir::ExprRange(e.lhs(), dims, syms).lower >= 0;
      // 32-bit indices divide as unsigned: the compiler does not know that
      // an int numerator is non-negative, and would correct the signed
      // quotient's rounding with three more instructions per division.
      const bool as_unsigned = plain && index32_;
      if (e.kind() == ExprKind::kFloorDiv) {
        if (as_unsigned) return "int(unsigned(" + a + ") / " + b + "u)";
        return plain ? "(" + a + " / " + b + ")"
                     : Helper("ixa_floordiv") + "(" + a + ", " + b + ")";
      }
      if (e.kind() == ExprKind::kMod) {
        if (as_unsigned) return "int(unsigned(" + a + ") % " + b + "u)";
        return plain ? "(" + a + " % " + b + ")"
                     : Helper("ixa_mod") + "(" + a + ", " + b + ")";
      }
      return Helper("ixa_ceildiv") + "(" + a + ", " + b + ")";
    }
    case ExprKind::kMin:
    case ExprKind::kMax: {
      IXA_ASSIGN_OR_RETURN(std::string a, AffineExpr(e.lhs(), apply));
      IXA_ASSIGN_OR_RETURN(std::string b, AffineExpr(e.rhs(), apply));
      return Helper(e.kind() == ExprKind::kMin ? "ixa_imin" : "ixa_imax") +
             "(" + a + ", " + b + ")";
    }
    default:
      return Error::Unsupported(
          "emit: the C printer has no form for an indexing expression kind");
  }
}

Text CPrinter::InDomainExpr(const Node& n) {
  const IndexingMap& map = *n.map;
  if (map.IsKnownEmpty()) return std::string("false");
  std::vector<std::string> conds;
  auto bound = [&](const std::string& x, Interval range, Interval b) {
    if (b.lower > range.lower && b.lower != kInt64Min) {
      conds.push_back(Lit(b.lower, Type::kIndex) + " <= " + x);
    }
    if (b.upper < range.upper && b.upper != kInt64Max) {
      conds.push_back(x + " <= " + Lit(b.upper, Type::kIndex));
    }
  };
  std::vector<Interval> dims, syms;
  for (int i = 0; i < map.num_dims() + map.num_symbols(); ++i) {
    Interval b = i < map.num_dims() ? map.dims()[i].bounds
                                    : map.symbol(i - map.num_dims()).bounds;
    Interval r = ir::RangeOf(n.operands[i]);
    (i < map.num_dims() ? dims : syms).push_back(r.Intersect(b));
    if (b.Contains(r)) continue;
    IXA_ASSIGN_OR_RETURN(std::string x, Expr(n.operands[i]));
    bound(x, r, b);
  }
  for (const Constraint& c : map.constraints()) {
    Interval r = ir::ExprRange(c.expr, dims, syms);
    if (c.interval.Contains(r)) continue;
    IXA_ASSIGN_OR_RETURN(std::string x, AffineExpr(c.expr, n));
    bound(x, r, c.interval);
  }
  if (conds.empty()) return std::string("true");
  std::string s = "(";
  for (size_t i = 0; i < conds.size(); ++i) {
    s += (i ? " && " : "") + conds[i];
  }
  return s + ")";
}

Text CPrinter::Stored(Type t, const Val& v) {
  if ((t == Type::kBF16 || t == Type::kF16) && v->type == t && v->width == 1) {
    if (v->kind == NodeKind::kLoad) {
      return Access(module_.buffers[v->buffer], v->operands, v->flat);
    }
    if (v->kind == NodeKind::kExtract) {
      IXA_ASSIGN_OR_RETURN(std::string vec, Expr(v->operands[0]));
      IXA_ASSIGN_OR_RETURN(std::string lane, Expr(v->operands[1]));
      return vec + ".v[" + lane + "]";
    }
  }
  IXA_ASSIGN_OR_RETURN(std::string x, Expr(v));
  return ToStorage(t, x);
}

Text CPrinter::Expr(const Val& v) {
  const Node& n = *v;
  switch (n.kind) {
    case NodeKind::kConst:
      if (n.width > 1) return VectorType(n.type, n.width) + "{}";  // zeros
      if (ir::IsFloat(n.type))
        return FloatLiteral(n.float_value, n.type, cuda_);
      return Lit(n.int_value, n.type);
    case NodeKind::kVar:
      if (n.var_kind != ir::VarKind::kLocal) {
        grid_ids_printed_[static_cast<int>(n.var_kind) -
                          static_cast<int>(ir::VarKind::kThreadX)] = true;
      }
      if (cuda_ || n.var_kind == ir::VarKind::kLocal) return VarRef(n.name);
      return n.name;
    case NodeKind::kApply:
      return AffineExpr(n.map->results()[n.result], n);
    case NodeKind::kInDomain:
      return InDomainExpr(n);
    case NodeKind::kLoad: {
      const Buffer& b = module_.buffers[n.buffer];
      if (n.width > 1) {
        IXA_ASSIGN_OR_RETURN(std::string off, Expr(n.operands[0]));
        Use("ixa_vload");
        std::string base = b.name;
        if (b.shape.rank() >= 2 && b.space != BufferSpace::kGlobal) {
          base = "reinterpret_cast<const " + StorageType(b.type) + "*>(" +
                 b.name + ")";
        }
        return "ixa_vload<" + StorageType(n.type) + ", " +
               std::to_string(n.width) + ">(" + base + " + " + off + ")";
      }
      IXA_ASSIGN_OR_RETURN(std::string a, Access(b, n.operands, n.flat));
      return FromStorage(n.type, a);
    }
    case NodeKind::kOp:
      return OpExpr(n);
    case NodeKind::kExtract: {
      IXA_ASSIGN_OR_RETURN(std::string vec, Expr(n.operands[0]));
      IXA_ASSIGN_OR_RETURN(std::string lane, Expr(n.operands[1]));
      return FromStorage(n.type, vec + ".v[" + lane + "]");
    }
    case NodeKind::kInsert: {
      IXA_ASSIGN_OR_RETURN(std::string vec, Expr(n.operands[0]));
      IXA_ASSIGN_OR_RETURN(std::string lane, Expr(n.operands[1]));
      IXA_ASSIGN_OR_RETURN(std::string stored, Stored(n.type, n.operands[2]));
      return Helper("ixa_vinsert") + "(" + vec + ", " + lane + ", " + stored +
             ")";
    }
  }
  return Error::Unsupported("emit: unknown IR node");
}

namespace {

// The error for an op the C printer cannot print (also the answer of a
// family's member for an op outside its family, which OpExpr never sends).
Error NoCFormForOp(const Node& n) {
  return Error::Unsupported("emit: the C printer has no form for op '" +
                            std::string(ir::OpCodeName(n.op)) + "'");
}

std::string StaticCast(const std::string& type, const std::string& e) {
  return "static_cast<" + type + ">(" + e + ")";
}

}  // namespace

Text CPrinter::OpExpr(const Node& n) {
  std::vector<std::string> x;
  for (const Val& o : n.operands) {
    IXA_ASSIGN_OR_RETURN(std::string s, Expr(o));
    x.push_back(s);
  }
  const Type t = n.type;
  if (ir::IsComplex(t) || ir::IsComplex(n.operand_type) ||
      n.op == OpCode::kReal || n.op == OpCode::kImag ||
      n.op == OpCode::kComplex) {
    return ComplexOpExpr(n, x);
  }
  switch (ir::FamilyOf(n.op)) {
    case ir::OpFamily::kComplexParts:  // ComplexOpExpr, above
    case ir::OpFamily::kOther:
      break;
    case ir::OpFamily::kSign:
      return SignOpExpr(n, x);
    case ir::OpFamily::kMathFunction:
      return MathFunctionExpr(n, x);
    case ir::OpFamily::kArithmetic:
      return ArithmeticExpr(n, x);
    case ir::OpFamily::kBitOp:
      return BitOpExpr(n, x);
    case ir::OpFamily::kComparisonOrSelect:
      return ComparisonOrSelectExpr(n, x);
    case ir::OpFamily::kConversion:
      return ConversionExpr(n, x);
    case ir::OpFamily::kIndex:
      return IndexOpExpr(n, x);
  }
  return NoCFormForOp(n);
}

Text CPrinter::SignOpExpr(const Node& n, const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = CType(t);
  const bool fl = ir::IsFloat(t);
  switch (n.op) {
    case OpCode::kAbs:
      if (fl) return Math("fabs") + "(" + x[0] + ")";
      if (ir::IsUnsignedInt(t)) return x[0];
      return Helper("ixa_iabs") + "(" + x[0] + ")";
    case OpCode::kNeg:
      if (fl) return "(-" + x[0] + ")";
      return StaticCast(ct, UnsignedWide(t) + "(0) - static_cast<" +
                                UnsignedWide(t) + ">(" + x[0] + ")");
    case OpCode::kSign:
      if (fl) return Helper("ixa_fsign") + "(" + x[0] + ")";
      if (ir::IsUnsignedInt(t)) return StaticCast(ct, x[0] + " != 0");
      return Helper("ixa_isign") + "(" + x[0] + ")";
    case OpCode::kIsFinite:
      return Math("isfinite") + "(" + x[0] + ")";
    default:
      break;
  }
  return NoCFormForOp(n);
}

Text CPrinter::MathFunctionExpr(const Node& n,
                                const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string one = t == Type::kF64 ? "1.0" : "1.0f";
  auto math1 = [&](const std::string& fn) {
    return RoundTo(t, Math(fn) + "(" + x[0] + ")");
  };
  switch (n.op) {
    case OpCode::kExp:
      return math1("exp");
    case OpCode::kExpm1:
      return math1("expm1");
    case OpCode::kLog:
      return math1("log");
    case OpCode::kLog1p:
      return math1("log1p");
    case OpCode::kSqrt:
      return math1("sqrt");
    case OpCode::kRsqrt:
      return RoundTo(t, "(" + one + " / " + Math("sqrt") + "(" + x[0] + "))");
    case OpCode::kCbrt:
      return math1("cbrt");
    case OpCode::kTanh:
      return math1("tanh");
    case OpCode::kLogistic:
      return RoundTo(t, "(" + one + " / (" + one + " + " + Math("exp") + "(-" +
                            x[0] + ")))");
    case OpCode::kSin:
      return math1("sin");
    case OpCode::kCos:
      return math1("cos");
    case OpCode::kTan:
      return math1("tan");
    case OpCode::kErf:
      return math1("erf");
    case OpCode::kAcos:
      return math1("acos");
    case OpCode::kAcosh:
      return math1("acosh");
    case OpCode::kAsin:
      return math1("asin");
    case OpCode::kAsinh:
      return math1("asinh");
    case OpCode::kAtan:
      return math1("atan");
    case OpCode::kAtanh:
      return math1("atanh");
    case OpCode::kCosh:
      return math1("cosh");
    case OpCode::kSinh:
      return math1("sinh");
    case OpCode::kAtan2:
      return RoundTo(t, Math("atan2") + "(" + x[0] + ", " + x[1] + ")");
    case OpCode::kFloor:
      return math1("floor");
    case OpCode::kCeil:
      return math1("ceil");
    case OpCode::kRoundAfz:
      return math1("round");
    case OpCode::kRoundEven:
      return math1("nearbyint");
    default:
      break;
  }
  return NoCFormForOp(n);
}

Text CPrinter::ArithmeticExpr(const Node& n,
                              const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = CType(t);
  const bool fl = ir::IsFloat(t);
  auto wrap = [&](const std::string& op) {  // integer wrap-around
    std::string u = UnsignedWide(t);
    return StaticCast(ct, "static_cast<" + u + ">(" + x[0] + ") " + op +
                              " static_cast<" + u + ">(" + x[1] + ")");
  };
  switch (n.op) {
    case OpCode::kAdd:
      if (t == Type::kPred) return "(" + x[0] + " || " + x[1] + ")";
      if (fl) return RoundTo(t, "(" + x[0] + " + " + x[1] + ")");
      return wrap("+");
    case OpCode::kSub:
      if (fl) return RoundTo(t, "(" + x[0] + " - " + x[1] + ")");
      return wrap("-");
    case OpCode::kMul:
      if (t == Type::kPred) return "(" + x[0] + " && " + x[1] + ")";
      if (fl) return RoundTo(t, "(" + x[0] + " * " + x[1] + ")");
      return wrap("*");
    case OpCode::kDiv:
      if (fl) return RoundTo(t, "(" + x[0] + " / " + x[1] + ")");
      return Helper("ixa_idiv") + "(" + x[0] + ", " + x[1] + ")";
    case OpCode::kRem:
      if (fl) return RoundTo(t, Math("fmod") + "(" + x[0] + ", " + x[1] + ")");
      return Helper("ixa_irem") + "(" + x[0] + ", " + x[1] + ")";
    case OpCode::kMax:
      if (fl) return Helper("ixa_fmax") + "(" + x[0] + ", " + x[1] + ")";
      return "(" + x[0] + " > " + x[1] + " ? " + x[0] + " : " + x[1] + ")";
    case OpCode::kMin:
      if (fl) return Helper("ixa_fmin") + "(" + x[0] + ", " + x[1] + ")";
      return "(" + x[0] + " < " + x[1] + " ? " + x[0] + " : " + x[1] + ")";
    case OpCode::kPow:
      if (fl) {
        return RoundTo(t, Helper("ixa_fpow") + "(" + x[0] + ", " + x[1] + ")");
      }
      return Helper("ixa_ipow") + "(" + x[0] + ", " + x[1] + ")";
    default:
      break;
  }
  return NoCFormForOp(n);
}

Text CPrinter::BitOpExpr(const Node& n, const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = CType(t);
  switch (n.op) {
    case OpCode::kNot:
      if (t == Type::kPred) return "(!" + x[0] + ")";
      return StaticCast(ct, "~" + x[0]);
    case OpCode::kPopcnt:
      return Helper("ixa_popcnt") + "(" + x[0] + ")";
    case OpCode::kClz:
      return Helper("ixa_clz") + "(" + x[0] + ")";
    case OpCode::kAnd:
      if (t == Type::kPred) return "(" + x[0] + " && " + x[1] + ")";
      return StaticCast(ct, x[0] + " & " + x[1]);
    case OpCode::kOr:
      if (t == Type::kPred) return "(" + x[0] + " || " + x[1] + ")";
      return StaticCast(ct, x[0] + " | " + x[1]);
    case OpCode::kXor:
      if (t == Type::kPred) return "(" + x[0] + " != " + x[1] + ")";
      return StaticCast(ct, x[0] + " ^ " + x[1]);
    case OpCode::kShl:
      return Helper("ixa_shl") + "(" + x[0] + ", " + x[1] + ")";
    case OpCode::kShrL:
      return Helper("ixa_shr_logical") + "(" + x[0] + ", " + x[1] + ")";
    case OpCode::kShrA:
      return Helper("ixa_shr_arith") + "(" + x[0] + ", " + x[1] + ")";
    default:
      break;
  }
  return NoCFormForOp(n);
}

Text CPrinter::ComparisonOrSelectExpr(const Node& n,
                                      const std::vector<std::string>& x) {
  switch (n.op) {
    case OpCode::kEq:
      return "(" + x[0] + " == " + x[1] + ")";
    case OpCode::kNe:
      return "(" + x[0] + " != " + x[1] + ")";
    case OpCode::kLt:
      return "(" + x[0] + " < " + x[1] + ")";
    case OpCode::kLe:
      return "(" + x[0] + " <= " + x[1] + ")";
    case OpCode::kGt:
      return "(" + x[0] + " > " + x[1] + ")";
    case OpCode::kGe:
      return "(" + x[0] + " >= " + x[1] + ")";
    case OpCode::kSelect:
      return "(" + x[0] + " ? " + x[1] + " : " + x[2] + ")";
    case OpCode::kClamp:
      if (ir::IsFloat(n.type)) {
        return Helper("ixa_fmin") + "(" + Helper("ixa_fmax") + "(" + x[1] +
               ", " + x[0] + "), " + x[2] + ")";
      }
      return Helper("ixa_iclamp") + "(" + x[0] + ", " + x[1] + ", " + x[2] +
             ")";
    default:
      break;
  }
  return NoCFormForOp(n);
}

Text CPrinter::ConversionExpr(const Node& n,
                              const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = CType(t);
  const bool fl = ir::IsFloat(t);
  switch (n.op) {
    case OpCode::kConvert: {
      const Type from = n.operand_type;
      if (from == t) return x[0];
      if (t == Type::kPred) return "(" + x[0] + " != 0)";
      if (from == Type::kPred) {
        return fl ? "(" + x[0] + " ? " + FloatLiteral(1, t, cuda_) + " : " +
                        FloatLiteral(0, t, cuda_) + ")"
                  : StaticCast(ct, x[0]);
      }
      if (!ir::IsFloat(from)) {
        if (!fl) return StaticCast(ct, x[0]);
        if (t == Type::kF64) return "static_cast<double>(" + x[0] + ")";
        return RoundTo(t, "static_cast<float>(" + x[0] + ")");
      }
      if (!fl) {
        return Helper("ixa_f2i") + "<" + ct + ">(" + x[0] + ")";
      }
      if (t == Type::kF64) return "static_cast<double>(" + x[0] + ")";
      return RoundTo(t, "static_cast<float>(" + x[0] + ")");
    }
    case OpCode::kBitcastConvert: {
      const Type from = n.operand_type;
      std::string bits = Helper("ixa_bits") + "<" + StorageType(t) + ">(" +
                         "static_cast<" + StorageType(from) + ">(" +
                         ToStorage(from, x[0]) + "))";
      return FromStorage(t, bits);
    }
    default:
      break;
  }
  return NoCFormForOp(n);
}

Text CPrinter::IndexOpExpr(const Node& n, const std::vector<std::string>& x) {
  switch (n.op) {
    case OpCode::kToIndex:
      // 32-bit indices: a value of a type that fits converts to int; a
      // wider one stays 64-bit (only a clamp takes it, computed in 64 bits).
      if (index32_ && FitsIndex32(n.operand_type)) {
        return "static_cast<int>(" + x[0] + ")";
      }
      if (n.operand_type == Type::kU64) {  // saturates (unsigned index)
        return "static_cast<int64_t>(" + x[0] +
               " > uint64_t(9223372036854775807ULL) ? "
               "uint64_t(9223372036854775807ULL) : " +
               x[0] + ")";
      }
      return "static_cast<int64_t>(" + x[0] + ")";
    case OpCode::kClampIndex: {
      std::string clamp = Helper("ixa_clamp_index") + "(" + x[0] + ", " + x[1] +
                          ", " + x[2] + ")";
      return index32_ ? "static_cast<int>(" + clamp + ")" : clamp;
    }
    default:
      break;
  }
  return NoCFormForOp(n);
}

// Complex values are the ixa_complex helper's structs (ixa_c64, ixa_c128:
// `re`, `im`); its functions compute XLA's complex ops on them.
Text CPrinter::ComplexOpExpr(const Node& n, const std::vector<std::string>& x) {
  const Type t = n.type;
  const Type from = n.operand_type;
  Use("ixa_complex");
  auto call = [&](const char* fn) {
    std::string args;
    for (const std::string& a : x) args += (args.empty() ? "" : ", ") + a;
    return std::string(fn) + "(" + args + ")";
  };
  switch (n.op) {
    case OpCode::kReal:
      if (ir::IsComplex(from)) return "(" + x[0] + ").re";
      return x[0];
    case OpCode::kImag:
      if (ir::IsComplex(from)) return "(" + x[0] + ").im";
      return FloatLiteral(0, t, cuda_);
    case OpCode::kComplex:
      return CType(t) + "{" + x[0] + ", " + x[1] + "}";
    case OpCode::kSelect:
      return "(" + x[0] + " ? " + x[1] + " : " + x[2] + ")";
    case OpCode::kEq:
      return call("ixa_cx_eq");
    case OpCode::kNe:
      return "(!" + call("ixa_cx_eq") + ")";
    case OpCode::kAdd:
      return call("ixa_cx_add");
    case OpCode::kSub:
      return call("ixa_cx_sub");
    case OpCode::kMul:
      return call("ixa_cx_mul");
    case OpCode::kDiv:
      return call("ixa_cx_div");
    case OpCode::kNeg:
      return call("ixa_cx_neg");
    case OpCode::kAbs:
      return call("ixa_cx_abs");
    case OpCode::kExp:
      return call("ixa_cx_exp");
    case OpCode::kLog:
      return call("ixa_cx_log");
    case OpCode::kSqrt:
      return call("ixa_cx_sqrt");
    case OpCode::kRsqrt:
      return call("ixa_cx_rsqrt");
    case OpCode::kSign:
      return call("ixa_cx_sign");
    case OpCode::kSin:
      return call("ixa_cx_sin");
    case OpCode::kCos:
      return call("ixa_cx_cos");
    case OpCode::kTanh:
      return call("ixa_cx_tanh");
    case OpCode::kExpm1:
      return call("ixa_cx_expm1");
    case OpCode::kLog1p:
      return call("ixa_cx_log1p");
    case OpCode::kPow:
      return call("ixa_cx_pow");
    case OpCode::kConvert: {
      if (ir::IsComplex(from)) {
        const std::string part = CType(ir::ComponentType(t));
        return CType(t) + "{static_cast<" + part + ">((" + x[0] +
               ").re), static_cast<" + part + ">((" + x[0] + ").im)}";
      }
      if (!ir::IsComplex(t)) break;
      const Type part = ir::ComponentType(t);
      std::string re = from == Type::kPred
                           ? "(" + x[0] + " ? " + FloatLiteral(1, part, cuda_) +
                                 " : " + FloatLiteral(0, part, cuda_) + ")"
                           : "static_cast<" + CType(part) + ">(" + x[0] + ")";
      return CType(t) + "{" + re + ", " + FloatLiteral(0, part, cuda_) + "}";
    }
    default:
      break;
  }
  // An index read from a complex tensor (a scatter's, a dynamic
  // update's) lands here too: name the complex type.
  return Error::Unsupported(std::string("emit: the C printer has no form for "
                                        "op '") +
                            ir::OpCodeName(n.op) + "' on " +
                            ir::TypeName(ir::IsComplex(from) ? from : t));
}

}  // namespace ixa::emit::c_printer
