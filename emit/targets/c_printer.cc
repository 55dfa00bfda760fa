// The C++ (`cpp`) and CUDA (`cuda`) printers of the kernel IR.
//
// cpp: one self-contained C++17 unit with `extern "C" void KERNEL(void*
// const* buffers)`. The grid is simulated: loops over blocks, and inside a
// block the kernel body is split into phases at its barriers and warp
// shuffles, each phase a loop over the block's threads (docs/emitters.md
// §3); values that live across phases become per-thread arrays, shuffles
// go through an exchange array.
//
// cuda: `extern "C" __global__ void KERNEL(T0* b0, ...)` with __shared__
// tiles, __syncthreads() and __shfl_down_sync.
#include <cmath>
#include <set>
#include <sstream>
#include <variant>

#include "emit/code_writer.h"
#include "emit/targets/targets.h"

namespace ixa::emit {
namespace {

using ir::Block;
using ir::Buffer;
using ir::BufferSpace;
using ir::Node;
using ir::NodeKind;
using ir::OpCode;
using ir::Stmt;
using ir::StmtKind;
using ir::Type;
using ir::Val;

using Text = Result<std::string>;
using Status = Result<bool>;

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

// A statement of a simulated phase: an IR statement or a line of text.
using PhaseItem = std::variant<const Stmt*, std::string>;

class CPrinter {
 public:
  CPrinter(const ir::Module& m, const PrintOptions& o)
      : module_(m), cuda_(o.target == Target::kCuda), options_(o) {}

  Text Print();

 private:
  Text Expr(const Val& v);
  Text AffineExpr(ixa::Expr e, const Node& apply);
  Text OpExpr(const Node& n);
  Text InDomainExpr(const Node& n);
  std::string Helper(const std::string& name) {
    Use(name);
    return name;
  }
  void Use(const std::string& name);
  std::string Math(const std::string& fn) const {
    return cuda_ ? fn : "std::" + fn;
  }
  std::string Qualifier() const {
    return cuda_ ? "static __device__ __forceinline__" : "static inline";
  }
  // f16 and bf16 compute in f32, rounded to the type after each op; CUDA
  // rounds with the hardware conversions, C++ with integer routines.
  std::string RoundTo(Type t, const std::string& x) {
    if (t == Type::kBF16) {
      return Helper(cuda_ ? "ixa_cuda_round_bf16" : "ixa_round_bf16") + "(" +
             x + ")";
    }
    if (t == Type::kF16) {
      return Helper(cuda_ ? "ixa_cuda_round_f16" : "ixa_round_f16") + "(" + x +
             ")";
    }
    return x;
  }
  std::string FromStorage(Type t, const std::string& x) {
    if (t == Type::kBF16) return Helper("ixa_bf16_to_f32") + "(" + x + ")";
    if (t == Type::kF16) {
      return Helper(cuda_ ? "ixa_cuda_f16_to_f32" : "ixa_f16_to_f32") + "(" +
             x + ")";
    }
    if (t == Type::kPred) return "(" + x + " != 0)";
    return x;
  }
  std::string ToStorage(Type t, const std::string& x) {
    if (t == Type::kBF16) {
      return Helper(cuda_ ? "ixa_cuda_f32_to_bf16" : "ixa_f32_to_bf16") + "(" +
             x + ")";
    }
    if (t == Type::kF16) {
      return Helper(cuda_ ? "ixa_cuda_f32_to_f16" : "ixa_f32_to_f16") + "(" +
             x + ")";
    }
    if (t == Type::kPred) return "static_cast<uint8_t>(" + x + ")";
    return x;
  }
  std::string VectorType(Type t, int width) {
    Use("ixa_vec");
    return "ixa_vec<" + StorageType(t) + ", " + std::to_string(width) + ">";
  }
  std::string DeclType(const Val& v) {
    return v->width > 1 ? VectorType(v->type, v->width) : ComputeType(v->type);
  }
  Text Access(const Buffer& b, const std::vector<Val>& idx, bool flat);

  Status PrintBlock(const Block& block, CodeWriter& w);
  Status PrintStmt(const Stmt& s, CodeWriter& w);
  Status PrintFunction(const ir::Function& f, CodeWriter& w);
  Status PrintCudaKernel(const ir::Kernel& k, CodeWriter& w);
  Status PrintSimulatedKernel(const ir::Kernel& k, CodeWriter& w);
  std::string PointerDecl(const Buffer& b, bool is_const,
                          const std::string& name) const;
  std::string ArrayDims(const Buffer& b) const;
  std::string VarRef(const std::string& name) const {
    return thread_locals_.count(name) ? name + "[tid]" : name;
  }
  std::string Fresh(const std::string& stem) {
    return stem + std::to_string(counter_++);
  }

  const ir::Module& module_;
  bool cuda_;
  PrintOptions options_;
  std::set<std::string> used_helpers_;
  std::vector<std::string> helper_order_;
  std::set<std::string> thread_locals_;  // cpp multi-phase kernels
  int counter_ = 0;
};

void CPrinter::Use(const std::string& name) {
  if (used_helpers_.count(name)) return;
  const CHelper* h = FindCHelper(name);
  IXA_CHECK_MSG(h != nullptr, name);
  std::stringstream deps(h->deps);
  std::string d;
  while (deps >> d) Use(d);
  used_helpers_.insert(name);
  helper_order_.push_back(name);
}

std::string CPrinter::ArrayDims(const Buffer& b) const {
  std::string s;
  for (size_t i = 1; i < b.shape.dims.size(); ++i) {
    s += "[" + std::to_string(b.shape.dims[i]) + "]";
  }
  return s;
}

// Before flattening, buffers of rank >= 2 are pointers to N-d arrays so
// that accesses read `b[i][j][k]`; after, every buffer is a flat pointer.
std::string CPrinter::PointerDecl(const Buffer& b, bool is_const,
                                  const std::string& name) const {
  std::string st = (is_const ? "const " : "") + StorageType(b.type);
  if (module_.flattened || b.shape.rank() <= 1) return st + "* " + name;
  return st + " (*" + name + ")" + ArrayDims(b);
}

Text CPrinter::Access(const Buffer& b, const std::vector<Val>& idx, bool flat) {
  std::string s = b.name;
  if (flat && !module_.flattened && b.shape.rank() >= 2) {
    s = "reinterpret_cast<" +
        std::string(b.is_output || b.space == BufferSpace::kShared ? ""
                                                                   : "const ") +
        StorageType(b.type) + "*>(" + b.name + ")";
  }
  if (flat && module_.flattened && b.space == BufferSpace::kShared &&
      b.shape.rank() >= 2) {
    s = "reinterpret_cast<" + StorageType(b.type) + "*>(" + b.name + ")";
  }
  if (flat && module_.flattened && b.space == BufferSpace::kConstant &&
      b.shape.rank() >= 2) {
    s = "reinterpret_cast<const " + StorageType(b.type) + "*>(" + b.name + ")";
  }
  if (!flat && b.shape.rank() == 0) return s + "[0]";
  for (const Val& i : idx) {
    IXA_ASSIGN_OR_RETURN(std::string e, Expr(i));
    s += "[" + e + "]";
  }
  return s;
}

Text CPrinter::AffineExpr(ixa::Expr e, const Node& apply) {
  const IndexingMap& map = *apply.map;
  switch (e.kind()) {
    case ExprKind::kConstant:
      return IntLiteral(e.constant(), Type::kIndex);
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
               (c == 1 ? b : b + " * " + IntLiteral(c, Type::kIndex)) + ")";
      }
      if (r.IsConstant() && r.constant() < 0 && r.constant() != INT64_MIN) {
        return "(" + a + " - " + IntLiteral(-r.constant(), Type::kIndex) + ")";
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
      if (e.kind() == ExprKind::kFloorDiv) {
        return plain ? "(" + a + " / " + b + ")"
                     : Helper("ixa_floordiv") + "(" + a + ", " + b + ")";
      }
      if (e.kind() == ExprKind::kMod) {
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
      conds.push_back(IntLiteral(b.lower, Type::kIndex) + " <= " + x);
    }
    if (b.upper < range.upper && b.upper != kInt64Max) {
      conds.push_back(x + " <= " + IntLiteral(b.upper, Type::kIndex));
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

Text CPrinter::Expr(const Val& v) {
  const Node& n = *v;
  switch (n.kind) {
    case NodeKind::kConst:
      if (n.width > 1) return VectorType(n.type, n.width) + "{}";  // zeros
      if (ir::IsFloat(n.type))
        return FloatLiteral(n.float_value, n.type, cuda_);
      return IntLiteral(n.int_value, n.type);
    case NodeKind::kVar:
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
      IXA_ASSIGN_OR_RETURN(std::string x, Expr(n.operands[2]));
      return Helper("ixa_vinsert") + "(" + vec + ", " + lane + ", " +
             ToStorage(n.type, x) + ")";
    }
  }
  return Error::Unsupported("emit: unknown IR node");
}

Text CPrinter::OpExpr(const Node& n) {
  std::vector<std::string> x;
  for (const Val& o : n.operands) {
    IXA_ASSIGN_OR_RETURN(std::string s, Expr(o));
    x.push_back(s);
  }
  const Type t = n.type;
  const std::string ct = ComputeType(t);
  const bool fl = ir::IsFloat(t);
  const std::string one = t == Type::kF64 ? "1.0" : "1.0f";
  auto cast = [&](const std::string& e) {
    return "static_cast<" + ct + ">(" + e + ")";
  };
  auto wrap = [&](const std::string& op) {  // integer wrap-around
    std::string u = UnsignedWide(t);
    return cast("static_cast<" + u + ">(" + x[0] + ") " + op + " static_cast<" +
                u + ">(" + x[1] + ")");
  };
  auto math1 = [&](const std::string& fn) {
    return RoundTo(t, Math(fn) + "(" + x[0] + ")");
  };
  switch (n.op) {
    case OpCode::kAbs:
      if (fl) return Math("fabs") + "(" + x[0] + ")";
      if (ir::IsUnsignedInt(t)) return x[0];
      return Helper("ixa_iabs") + "(" + x[0] + ")";
    case OpCode::kNeg:
      if (fl) return "(-" + x[0] + ")";
      return cast(UnsignedWide(t) + "(0) - static_cast<" + UnsignedWide(t) +
                  ">(" + x[0] + ")");
    case OpCode::kNot:
      if (t == Type::kPred) return "(!" + x[0] + ")";
      return cast("~" + x[0]);
    case OpCode::kSign:
      if (fl) return Helper("ixa_fsign") + "(" + x[0] + ")";
      if (ir::IsUnsignedInt(t)) return cast(x[0] + " != 0");
      return Helper("ixa_isign") + "(" + x[0] + ")";
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
    case OpCode::kFloor:
      return math1("floor");
    case OpCode::kCeil:
      return math1("ceil");
    case OpCode::kRoundAfz:
      return math1("round");
    case OpCode::kRoundEven:
      return math1("nearbyint");
    case OpCode::kIsFinite:
      return Math("isfinite") + "(" + x[0] + ")";
    case OpCode::kPopcnt:
      return Helper("ixa_popcnt") + "(" + x[0] + ")";
    case OpCode::kClz:
      return Helper("ixa_clz") + "(" + x[0] + ")";
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
    case OpCode::kAtan2:
      return RoundTo(t, Math("atan2") + "(" + x[0] + ", " + x[1] + ")");
    case OpCode::kAnd:
      if (t == Type::kPred) return "(" + x[0] + " && " + x[1] + ")";
      return cast(x[0] + " & " + x[1]);
    case OpCode::kOr:
      if (t == Type::kPred) return "(" + x[0] + " || " + x[1] + ")";
      return cast(x[0] + " | " + x[1]);
    case OpCode::kXor:
      if (t == Type::kPred) return "(" + x[0] + " != " + x[1] + ")";
      return cast(x[0] + " ^ " + x[1]);
    case OpCode::kShl:
      return Helper("ixa_shl") + "(" + x[0] + ", " + x[1] + ")";
    case OpCode::kShrL:
      return Helper("ixa_shr_logical") + "(" + x[0] + ", " + x[1] + ")";
    case OpCode::kShrA:
      return Helper("ixa_shr_arith") + "(" + x[0] + ", " + x[1] + ")";
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
      if (fl) {
        return Helper("ixa_fmin") + "(" + Helper("ixa_fmax") + "(" + x[1] +
               ", " + x[0] + "), " + x[2] + ")";
      }
      return Helper("ixa_iclamp") + "(" + x[0] + ", " + x[1] + ", " + x[2] +
             ")";
    case OpCode::kConvert: {
      const Type from = n.operand_type;
      if (from == t) return x[0];
      if (t == Type::kPred) return "(" + x[0] + " != 0)";
      if (from == Type::kPred) {
        return fl ? "(" + x[0] + " ? " + FloatLiteral(1, t, cuda_) + " : " +
                        FloatLiteral(0, t, cuda_) + ")"
                  : cast(x[0]);
      }
      if (!ir::IsFloat(from)) {
        if (!fl) return cast(x[0]);
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
    case OpCode::kToIndex:
      if (n.operand_type == Type::kU64) {  // saturates (unsigned index)
        return "static_cast<int64_t>(" + x[0] +
               " > uint64_t(9223372036854775807ULL) ? "
               "uint64_t(9223372036854775807ULL) : " +
               x[0] + ")";
      }
      return "static_cast<int64_t>(" + x[0] + ")";
    case OpCode::kClampIndex:
      return Helper("ixa_clamp_index") + "(" + x[0] + ", " + x[1] + ", " +
             x[2] + ")";
  }
  return Error::Unsupported("emit: the C printer has no form for op '" +
                            std::string(ir::OpCodeName(n.op)) + "'");
}

Status CPrinter::PrintBlock(const Block& block, CodeWriter& w) {
  for (const Stmt& s : block) IXA_EMIT_TRY(PrintStmt(s, w));
  return true;
}

Status CPrinter::PrintStmt(const Stmt& s, CodeWriter& w) {
  switch (s.kind) {
    case StmtKind::kLet: {
      IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.value));
      if (thread_locals_.count(s.name)) {
        w.Line(s.name + "[tid] = " + v + ";");
      } else {
        w.Line("const " + DeclType(s.value) + " " + s.name + " = " + v + ";");
      }
      return true;
    }
    case StmtKind::kDeclare: {
      IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.value));
      if (thread_locals_.count(s.name)) {
        w.Line(s.name + "[tid] = " + v + ";");
      } else {
        w.Line(DeclType(s.value) + " " + s.name + " = " + v + ";");
      }
      return true;
    }
    case StmtKind::kAssign: {
      // A lane insert into the same vector is an element store.
      const Val& v = s.value;
      if (v->kind == NodeKind::kInsert &&
          v->operands[0]->kind == NodeKind::kVar &&
          v->operands[0]->name == s.name) {
        IXA_ASSIGN_OR_RETURN(std::string lane, Expr(v->operands[1]));
        IXA_ASSIGN_OR_RETURN(std::string x, Expr(v->operands[2]));
        w.Line(VarRef(s.name) + ".v[" + lane + "] = " + ToStorage(v->type, x) +
               ";");
        return true;
      }
      IXA_ASSIGN_OR_RETURN(std::string x, Expr(v));
      w.Line(VarRef(s.name) + " = " + x + ";");
      return true;
    }
    case StmtKind::kStore: {
      const Buffer& b = module_.buffers[s.buffer];
      IXA_ASSIGN_OR_RETURN(std::string x, Expr(s.value));
      if (s.width > 1) {
        IXA_ASSIGN_OR_RETURN(std::string off, Expr(s.indices[0]));
        Use("ixa_vstore");
        std::string base = b.name;
        if (b.shape.rank() >= 2 && b.space != BufferSpace::kGlobal) {
          base =
              "reinterpret_cast<" + StorageType(b.type) + "*>(" + b.name + ")";
        }
        w.Line("ixa_vstore(" + base + " + " + off + ", " + x + ");");
        return true;
      }
      IXA_ASSIGN_OR_RETURN(std::string a, Access(b, s.indices, s.flat));
      w.Line(a + " = " + ToStorage(s.type, x) + ";");
      return true;
    }
    case StmtKind::kFor:
      w.Open("for (int64_t " + s.name + " = " + std::to_string(s.lo) + "; " +
             s.name + " < " + std::to_string(s.hi) + "; ++" + s.name + ") {");
      IXA_EMIT_TRY(PrintBlock(s.body, w));
      w.Close("}");
      return true;
    case StmtKind::kIf: {
      IXA_ASSIGN_OR_RETURN(std::string c, Expr(s.value));
      w.Open("if (" + c + ") {");
      IXA_EMIT_TRY(PrintBlock(s.body, w));
      if (!s.else_body.empty()) {
        w.Close("} else {");
        w.Indent();
        IXA_EMIT_TRY(PrintBlock(s.else_body, w));
      }
      w.Close("}");
      return true;
    }
    case StmtKind::kBarrier:
      if (!cuda_)
        return Error::Invalid("emit: a barrier inside a nested block");
      w.Line("__syncthreads();");
      return true;
    case StmtKind::kShuffle: {
      if (!cuda_)
        return Error::Invalid("emit: a shuffle inside a nested block");
      IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.value));
      // The value travels in a type __shfl_down_sync is overloaded for
      // that holds it exactly: f16 and bf16 compute in float and travel
      // as float; narrow integers and pred widen to int.
      const std::string ct = ComputeType(s.type);
      std::string carrier = ct;
      if (ct == "int64_t") {
        carrier = "long long";
      } else if (ct == "uint64_t") {
        carrier = "unsigned long long";
      } else if (ct == "uint32_t") {
        carrier = "unsigned int";
      } else if (ct != "float" && ct != "double") {
        carrier = "int";
      }
      // Every lane of the warp runs the shuffle (it sits at the top level
      // of the kernel, outside every branch): the mask names them all.
      // __activemask() would name the lanes that happen to be converged,
      // which CUDA does not promise to be all of them.
      w.Line("const " + ct + " " + s.name + " = static_cast<" + ct +
             ">(__shfl_down_sync(0xffffffffu, static_cast<" + carrier + ">(" +
             v + "), " + std::to_string(s.offset) + ", " +
             std::to_string(s.lanes) + "));");
      return true;
    }
    case StmtKind::kCall: {
      std::string args;
      const ir::Function* f = module_.FindFunction(s.name);
      IXA_CHECK_MSG(f != nullptr, s.name);
      if (f->reads_buffers) {
        for (int b : module_.InputBuffers()) {
          args += (args.empty() ? "" : ", ") + module_.buffers[b].name;
        }
      }
      for (const Val& a : s.args) {
        IXA_ASSIGN_OR_RETURN(std::string e, Expr(a));
        args += (args.empty() ? "" : ", ") + e;
      }
      if (s.results.size() == 1) {
        if (thread_locals_.count(s.results[0])) {
          w.Line(s.results[0] + "[tid] = " + s.name + "(" + args + ");");
        } else {
          w.Line("const " + ComputeType(s.result_types[0]) + " " +
                 s.results[0] + " = " + s.name + "(" + args + ");");
        }
        return true;
      }
      for (size_t i = 0; i < s.results.size(); ++i) {
        if (!thread_locals_.count(s.results[i])) {
          w.Line(ComputeType(s.result_types[i]) + " " + s.results[i] + ";");
        }
        args += (args.empty() ? "&" : ", &") + VarRef(s.results[i]);
      }
      w.Line(s.name + "(" + args + ");");
      return true;
    }
    case StmtKind::kReturn: {
      if (s.args.size() == 1) {
        IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.args[0]));
        w.Line("return " + v + ";");
        return true;
      }
      for (size_t i = 0; i < s.args.size(); ++i) {
        IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.args[i]));
        w.Line("*ret" + std::to_string(i) + " = " + v + ";");
      }
      w.Line("return;");
      return true;
    }
    case StmtKind::kAtomic: {
      const Buffer& b = module_.buffers[s.buffer];
      IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.value));
      IXA_ASSIGN_OR_RETURN(std::string a, Access(b, s.indices, s.flat));
      std::string st = StorageType(s.type);
      if (!cuda_) {
        // Threads run one after another: a plain read-modify-write is the
        // deterministic simulation of the atomic update.
        w.Line(a + " = " +
               ToStorage(s.type, s.name + "(" + FromStorage(s.type, a) + ", " +
                                     v + ")") +
               ";");
        return true;
      }
      Use("ixa_atomic_update");
      std::string value = Fresh("upd");
      w.Line("const " + ComputeType(s.type) + " " + value + " = " + v + ";");
      w.Line("ixa_atomic_update(&" + a + ", [&](" + st + " old) -> " + st +
             " { return " +
             ToStorage(s.type, s.name + "(" + FromStorage(s.type, "old") +
                                   ", " + value + ")") +
             "; });");
      return true;
    }
    case StmtKind::kComment:
      w.Line("// " + s.text);
      return true;
  }
  return Error::Unsupported("emit: unknown IR statement");
}

Status CPrinter::PrintFunction(const ir::Function& f, CodeWriter& w) {
  std::string params;
  if (f.reads_buffers) {
    for (int b : module_.InputBuffers()) {
      const Buffer& buf = module_.buffers[b];
      params += (params.empty() ? "" : ", ") + PointerDecl(buf, true, buf.name);
    }
  }
  for (const ir::Param& p : f.params) {
    params += (params.empty() ? "" : ", ") + ComputeType(p.type) + " " + p.name;
  }
  std::string ret = "void";
  if (f.results.size() == 1) {
    ret = ComputeType(f.results[0]);
  } else {
    for (size_t i = 0; i < f.results.size(); ++i) {
      params += (params.empty() ? "" : ", ") + ComputeType(f.results[i]) +
                "* ret" + std::to_string(i);
    }
  }
  w.Open(Qualifier() + " " + ret + " " + f.name + "(" + params + ") {");
  IXA_EMIT_TRY(PrintBlock(f.body, w));
  w.Close("}");
  return true;
}

Status CPrinter::PrintCudaKernel(const ir::Kernel& k, CodeWriter& w) {
  // An in-place output and the input whose memory it is are one array:
  // neither pointer may be __restrict__ (the compiler could read the input
  // through the read-only cache while the output is written).
  std::set<int> shared_memory;
  for (int b : module_.ArgumentBuffers()) {
    if (module_.buffers[b].aliases >= 0) {
      shared_memory.insert(b);
      shared_memory.insert(module_.buffers[b].aliases);
    }
  }
  std::string params;
  for (int b : module_.ArgumentBuffers()) {
    const Buffer& buf = module_.buffers[b];
    params += (params.empty() ? "" : ", ") +
              std::string(buf.is_output ? "" : "const ") +
              StorageType(buf.type) +
              (shared_memory.count(b) ? "* " : "* __restrict__ ") + buf.name +
              (module_.flattened ? "" : "_ptr");
  }
  w.Open("extern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(k.launch.threads_per_block()) + ") " + k.name + "(" +
         params + ") {");
  if (!module_.flattened) {
    for (int b : module_.ArgumentBuffers()) {
      const Buffer& buf = module_.buffers[b];
      std::string decl = PointerDecl(buf, !buf.is_output, buf.name);
      std::string type = decl.substr(0, decl.find(buf.name)) +
                         decl.substr(decl.find(buf.name) + buf.name.size());
      w.Line(decl + " = reinterpret_cast<" + type + ">(" + buf.name + "_ptr);");
    }
  }
  static const char* kIds[] = {"th_x = threadIdx.x", "th_y = threadIdx.y",
                               "th_z = threadIdx.z", "bl_x = blockIdx.x",
                               "bl_y = blockIdx.y",  "bl_z = blockIdx.z"};
  for (const char* id : kIds) w.Line(std::string("const int64_t ") + id + ";");
  for (const Buffer& b : module_.buffers) {
    if (b.space != BufferSpace::kShared) continue;
    std::string dims;
    for (int64_t d : b.shape.dims) dims += "[" + std::to_string(d) + "]";
    w.Line("__shared__ " + StorageType(b.type) + " " + b.name + dims + ";");
  }
  IXA_EMIT_TRY(PrintBlock(k.body, w));
  w.Close("}");
  return true;
}

// The simulated grid: blocks in order; in each block the phases of the
// body, each run by every thread before the next starts.
Status CPrinter::PrintSimulatedKernel(const ir::Kernel& k, CodeWriter& w) {
  // Split the top level into phases.
  std::vector<std::vector<PhaseItem>> phases(1);
  struct Exchange {
    std::string name;
    Type type;
  };
  std::vector<Exchange> exchanges;
  bool multi = false;
  for (const Stmt& s : k.body) {
    if (s.kind == StmtKind::kBarrier || s.kind == StmtKind::kShuffle)
      multi = true;
  }
  if (multi) {
    for (const Stmt& s : k.body) {
      if (s.kind == StmtKind::kLet || s.kind == StmtKind::kDeclare ||
          s.kind == StmtKind::kShuffle) {
        thread_locals_.insert(s.name);
      }
      if (s.kind == StmtKind::kCall) {
        for (const std::string& r : s.results) thread_locals_.insert(r);
      }
    }
  }
  for (const Stmt& s : k.body) {
    if (s.kind == StmtKind::kBarrier) {
      phases.emplace_back();
    } else if (s.kind == StmtKind::kShuffle) {
      std::string xch = "xch_" + s.name;
      exchanges.push_back({xch, s.type});
      IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.value));
      phases.back().push_back(xch + "[tid] = " + v + ";");
      phases.emplace_back();
      std::string off = std::to_string(s.offset),
                  lanes = std::to_string(s.lanes);
      phases.back().push_back(s.name + "[tid] = (tid % 32) % " + lanes + " + " +
                              off + " < " + lanes + " ? " + xch + "[tid + " +
                              off + "] : " + xch + "[tid];");
    } else {
      phases.back().push_back(&s);
    }
  }
  w.Open("extern \"C\" void " + k.name + "(void* const* buffers) {");
  int arg = 0;
  for (int b : module_.ArgumentBuffers()) {
    const Buffer& buf = module_.buffers[b];
    std::string decl = PointerDecl(buf, !buf.is_output, buf.name);
    std::string type = decl.substr(0, decl.find(buf.name)) +
                       decl.substr(decl.find(buf.name) + buf.name.size());
    while (!type.empty() && type.back() == ' ') type.pop_back();
    w.Line(decl + " = static_cast<" + type + ">(buffers[" +
           std::to_string(arg++) + "]);");
  }
  // An in-place output (the updated operand's memory): a caller that
  // passes it its own memory gets the operand's elements copied there
  // first, so the kernel computes the whole output either way.
  for (int b : module_.ArgumentBuffers()) {
    const Buffer& out = module_.buffers[b];
    if (!out.is_output || out.aliases < 0) continue;
    const Buffer& in = module_.buffers[out.aliases];
    int64_t elements = out.physical_elements > 0 ? out.physical_elements
                                                 : out.shape.ElementCount();
    w.Open("if (static_cast<const void*>(" + out.name +
           ") != static_cast<const void*>(" + in.name + ")) {");
    w.Line("memcpy(" + out.name + ", " + in.name + ", " +
           std::to_string(elements * ir::StorageBytes(out.type)) + ");");
    w.Close("}");
  }
  const int64_t tpb = k.launch.threads_per_block();
  for (const Buffer& b : module_.buffers) {
    if (b.space != BufferSpace::kShared) continue;
    std::string dims;
    for (int64_t d : b.shape.dims) dims += "[" + std::to_string(d) + "]";
    w.Line("static thread_local " + StorageType(b.type) + " " + b.name + dims +
           ";  // shared memory of the running block");
  }
  for (const Exchange& x : exchanges) {
    w.Line("static thread_local " + ComputeType(x.type) + " " + x.name + "[" +
           std::to_string(tpb) + "];  // warp shuffle exchange");
  }
  if (multi) {
    // Per-thread values that live across phases.
    std::set<std::string> declared;
    for (const Stmt& s : k.body) {
      std::vector<std::pair<std::string, std::string>> names;
      if (s.kind == StmtKind::kLet || s.kind == StmtKind::kDeclare) {
        names.push_back({s.name, DeclType(s.value)});
      } else if (s.kind == StmtKind::kShuffle) {
        names.push_back({s.name, ComputeType(s.type)});
      } else if (s.kind == StmtKind::kCall) {
        for (size_t i = 0; i < s.results.size(); ++i) {
          names.push_back({s.results[i], ComputeType(s.result_types[i])});
        }
      }
      for (const auto& [name, type] : names) {
        if (!declared.insert(name).second) continue;
        w.Line("static thread_local " + type + " " + name + "[" +
               std::to_string(tpb) + "];  // per thread");
      }
    }
  }
  const auto& T = k.launch.threads;
  const auto& B = k.launch.blocks;
  w.Open("for (int64_t bl_z = 0; bl_z < " + std::to_string(B[2]) +
         "; ++bl_z) {");
  w.Open("for (int64_t bl_y = 0; bl_y < " + std::to_string(B[1]) +
         "; ++bl_y) {");
  w.Open("for (int64_t bl_x = 0; bl_x < " + std::to_string(B[0]) +
         "; ++bl_x) {");
  for (size_t p = 0; p < phases.size(); ++p) {
    if (phases.size() > 1) w.Line("// phase " + std::to_string(p));
    w.Open("for (int64_t th_z = 0; th_z < " + std::to_string(T[2]) +
           "; ++th_z) {");
    w.Open("for (int64_t th_y = 0; th_y < " + std::to_string(T[1]) +
           "; ++th_y) {");
    w.Open("for (int64_t th_x = 0; th_x < " + std::to_string(T[0]) +
           "; ++th_x) {");
    if (multi) {
      w.Line("const int64_t tid = (th_z * " + std::to_string(T[1]) +
             " + th_y) * " + std::to_string(T[0]) + " + th_x;");
    }
    for (const PhaseItem& item : phases[p]) {
      if (const auto* line = std::get_if<std::string>(&item)) {
        w.Line(*line);
      } else {
        IXA_EMIT_TRY(PrintStmt(*std::get<const Stmt*>(item), w));
      }
    }
    w.Close("}");
    w.Close("}");
    w.Close("}");
  }
  w.Close("}");
  w.Close("}");
  w.Close("}");
  w.Close("}");
  return true;
}

Text CPrinter::Print() {
  // Print the body first: it decides which helpers are needed.
  CodeWriter body;
  for (const Buffer& b : module_.buffers) {
    if (b.space != BufferSpace::kConstant) continue;
    std::string init;
    size_t n = ir::IsFloat(b.type) ? b.float_data.size() : b.int_data.size();
    for (size_t i = 0; i < n; ++i) {
      std::string v;
      if (b.type == Type::kBF16 || b.type == Type::kF16) {
        v = std::to_string(ir::EncodeHalf(b.type, b.float_data[i]));
      } else if (ir::IsFloat(b.type)) {
        v = FloatLiteral(b.float_data[i], b.type, cuda_);
      } else {
        v = IntLiteral(b.int_data[i], b.type);
      }
      if (b.type == Type::kPred) v = b.int_data[i] ? "1" : "0";
      init += (i ? ", " : "") + v;
    }
    std::string dims;
    if (module_.flattened || b.shape.rank() == 0) {
      dims = "[" + std::to_string(std::max<size_t>(n, 1)) + "]";
    } else {
      for (int64_t d : b.shape.dims) dims += "[" + std::to_string(d) + "]";
    }
    std::string qual = cuda_ ? "static __device__ const " : "static const ";
    body.Line(qual + StorageType(b.type) + " " + b.name + dims + " = {" + init +
              "};");
  }
  for (const ir::Function& f : module_.functions) {
    IXA_EMIT_TRY(PrintFunction(f, body));
    body.Line("");
  }
  if (module_.kernel) {
    if (cuda_) {
      IXA_EMIT_TRY(PrintCudaKernel(*module_.kernel, body));
    } else {
      IXA_EMIT_TRY(PrintSimulatedKernel(*module_.kernel, body));
    }
  }
  CodeWriter out;
  std::stringstream header(options_.header);
  std::string line;
  while (std::getline(header, line)) out.Line("// " + line);
  out.Line("#include <cmath>");
  out.Line("#include <cstdint>");
  out.Line("#include <cstring>");
  std::string code = body.Take();
  if (code.find("std::numeric_limits") != std::string::npos) {
    out.Line("#include <limits>");  // NaN constants
  }
  out.Line("#include <type_traits>");
  std::set<std::string> headers;
  for (const std::string& h : helper_order_) {
    std::string include = FindCHelper(h)->include;
    if (!include.empty() && headers.insert(include).second) {
      out.Line("#include " + include);
    }
  }
  out.Line("");
  std::string text = out.Take();
  for (const std::string& h : helper_order_) {
    std::string code = FindCHelper(h)->code;
    for (size_t at; (at = code.find("IXA_FN")) != std::string::npos;) {
      code.replace(at, 6, Qualifier());
    }
    text += code + "\n";
  }
  return text + code;
}

}  // namespace

Result<std::string> PrintC(const ir::Module& module,
                           const PrintOptions& options) {
  CPrinter printer(module, options);
  return printer.Print();
}

const char* TargetName(Target target) {
  switch (target) {
    case Target::kCpp:
      return "cpp";
    case Target::kCuda:
      return "cuda";
    case Target::kMlir:
      return "mlir";
  }
  return "?";
}

Result<std::string> PrintModule(const ir::Module& module,
                                const PrintOptions& options) {
  if (options.target == Target::kMlir) return PrintMlir(module, options);
  return PrintC(module, options);
}

}  // namespace ixa::emit
