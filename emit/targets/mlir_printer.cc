// The MLIR 14 printer of the kernel IR (spec/emitters.md §3): upstream
// dialects only (builtin, std, arith, math, scf, memref, affine, gpu,
// vector) in MLIR 14 syntax. Every index is an `affine.apply` of its
// indexing map, and domain checks compare `affine.apply`s of the map's
// constraint expressions.
//
// Device form: a gpu.module holding the functions and a gpu.func kernel
// with workgroup memory, gpu.barrier and gpu.shuffle. Host form (`host`):
// plain functions; the grid ids are scf.for loops and the kernel body is
// split into phases at barriers and shuffles, as the cpp target does, so
// that the module lowers with the pass list of §3 and runs under
// mlir-cpu-runner-14. Transcendental functions that MLIR 14 cannot lower
// become calls to the C library (expf, tanhf, ...).
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <sstream>

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

// The MLIR type a value of `t` is computed in.
std::string ComputeType(Type t) {
  switch (t) {
    case Type::kPred:
      return "i1";
    case Type::kS8:
    case Type::kU8:
      return "i8";
    case Type::kS16:
    case Type::kU16:
      return "i16";
    case Type::kS32:
    case Type::kU32:
      return "i32";
    case Type::kS64:
    case Type::kU64:
      return "i64";
    case Type::kF16:
    case Type::kBF16:
    case Type::kF32:
      return "f32";
    case Type::kF64:
      return "f64";
    case Type::kIndex:
      return "index";
  }
  return "?";
}

// The MLIR element type a buffer stores (f16 / bf16 as bits, pred as i8).
std::string StorageType(Type t) {
  switch (t) {
    case Type::kPred:
      return "i8";
    case Type::kF16:
    case Type::kBF16:
      return "i16";
    default:
      return ComputeType(t);
  }
}

std::string Hex(uint64_t bits, int digits) {
  std::ostringstream out;
  out << "0x" << std::uppercase << std::hex;
  out.width(digits);
  out.fill('0');
  out << bits;
  return out.str();
}

// Float constants print as bit patterns (exact).
std::string FloatConst(double v, Type t) {
  if (t == Type::kF64) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return Hex(bits, 16);
  }
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return Hex(bits, 8);
}

// The affine expression in MLIR syntax (dims d<i>, symbols s<i>).
Text AffineText(ixa::Expr e) {
  switch (e.kind()) {
    case ExprKind::kConstant:
      return std::to_string(e.constant());
    case ExprKind::kDim:
      return "d" + std::to_string(e.position());
    case ExprKind::kSymbol:
      return "s" + std::to_string(e.position());
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kFloorDiv:
    case ExprKind::kCeilDiv:
    case ExprKind::kMod: {
      IXA_ASSIGN_OR_RETURN(std::string a, AffineText(e.lhs()));
      IXA_ASSIGN_OR_RETURN(std::string b, AffineText(e.rhs()));
      const char* op = e.kind() == ExprKind::kAdd        ? " + "
                       : e.kind() == ExprKind::kMul      ? " * "
                       : e.kind() == ExprKind::kFloorDiv ? " floordiv "
                       : e.kind() == ExprKind::kCeilDiv  ? " ceildiv "
                                                         : " mod ";
      return "(" + a + op + b + ")";
    }
    default:
      return Error::Unsupported(
          "emit: the MLIR printer has no form for an indexing expression kind");
  }
}

std::string HelperText(const std::string& name, const std::string& func);

// A statement of a simulated phase: an IR statement, or a shuffle's two
// halves (write the exchange / read the partner).
struct PhaseItem {
  const Stmt* stmt = nullptr;
  const Stmt* shuffle_write = nullptr;
  const Stmt* shuffle_read = nullptr;
};

class MlirPrinter {
 public:
  MlirPrinter(const ir::Module& m, const PrintOptions& o)
      : module_(m), host_(o.host), options_(o) {}
  Text Print();

 private:
  // Values: emits ops into the current writer, returns the SSA name.
  Text Value(const Val& v);
  Text ValueUncached(const Val& v);
  Text OpValue(const Node& n, const std::vector<std::string>& x);
  Text ApplyExpr(ixa::Expr e, const Node& apply);
  Text InDomainValue(const Node& n);
  std::string Constant(Type t, int64_t v);
  std::string ConstantFloat(Type t, double v);
  std::string Emit(const std::string& rhs) {
    std::string name = "%" + std::to_string(counter_++);
    w_->Line(name + " = " + rhs);
    return name;
  }
  std::string RoundTo(Type t, const std::string& x);
  std::string FromStorage(Type t, const std::string& x);
  std::string ToStorage(Type t, const std::string& x);
  std::string Call(const std::string& fn, const std::vector<std::string>& args,
                   const std::vector<std::string>& types,
                   const std::string& ret);
  std::string InlineHelper(const std::string& name,
                           const std::vector<std::string>& args);
  Result<std::vector<std::string>> InlineFunction(
      const std::string& name, const std::vector<std::string>& args);
  // A libm call (host) or math op (device) for a unary/binary function.
  std::string MathOp(const std::string& math_op, const std::string& libm,
                     bool host_lowers, Type t,
                     const std::vector<std::string>& x);
  std::string MemrefType(const Buffer& b) const;
  std::string VectorType(Type t, int width) const {
    return "vector<" + std::to_string(width) + "x" + StorageType(t) + ">";
  }
  std::string IndexList(const std::vector<std::string>& idx) const;
  Text Indices(const std::vector<Val>& idx, const Buffer& b, bool flat);
  void NeedHelper(const std::string& name);
  std::string BufferRef(int buffer) const;

  Status PrintBlock(const Block& block);
  Status PrintStmt(const Stmt& s);
  // Host form of vector statements: lanes one by one through a slot.
  Status PrintHostVectorStmt(const Stmt& s);
  void CollectVectorSlots(const Block& body);
  Status PrintFunction(const ir::Function& f);
  Status PrintDeviceKernel(const ir::Kernel& k);
  Status PrintHostKernel(const ir::Kernel& k);
  std::string FuncKeyword() const { return host_ ? "func" : "builtin.func"; }
  // Mutable variable slots (allocated at function entry).
  std::string Slot(const std::string& name) const { return "%slot_" + name; }
  void BindLet(const std::string& name, const std::string& ssa) {
    scopes_.back()[name] = ssa;
  }
  std::optional<std::string> Lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return std::nullopt;
  }

  const ir::Module& module_;
  bool host_;
  PrintOptions options_;
  CodeWriter* w_ = nullptr;
  int counter_ = 0;
  std::vector<std::map<std::string, std::string>> scopes_;
  std::map<const Node*, std::string> memo_;  // within one statement
  // Mutable variables of the function being printed: name -> type.
  std::map<std::string, std::string> slots_;
  std::set<std::string> thread_locals_;              // host multi-phase kernels
  std::map<std::string, std::string> vector_slots_;  // host: name -> NxT
  // Inside a generic_atomic_rmw: calls are printed inline.
  bool inline_calls_ = false;
  std::string inline_error_;
  std::vector<std::string>* capture_return_ = nullptr;
  std::map<std::string, std::string> thread_local_types_;
  std::set<std::string> helpers_;                   // helper functions needed
  std::map<std::string, std::string> externs_;      // libm name -> signature
  std::map<std::string, std::string> buffer_args_;  // buffer name -> ssa
};

std::string MlirPrinter::MemrefType(const Buffer& b) const {
  std::string dims;
  if (module_.flattened) {
    int64_t n = b.physical_elements;
    if (n == 0) {
      n = 1;
      for (int64_t d : b.shape.dims) n *= d;
    }
    dims = std::to_string(std::max<int64_t>(n, 1)) + "x";
  } else {
    for (int64_t d : b.shape.dims) dims += std::to_string(d) + "x";
  }
  std::string space = (b.space == BufferSpace::kShared && !host_) ? ", 3" : "";
  return "memref<" + dims + StorageType(b.type) + space + ">";
}

std::string MlirPrinter::BufferRef(int buffer) const {
  const Buffer& b = module_.buffers[buffer];
  if (b.space == BufferSpace::kConstant) {
    auto f = buffer_args_.find(b.name);
    if (f != buffer_args_.end()) return f->second;
    return "%" + b.name;
  }
  auto f = buffer_args_.find(b.name);
  return f != buffer_args_.end() ? f->second : "%" + b.name;
}

// Constants are made once per scope (and reused in the scopes inside).
std::string MlirPrinter::Constant(Type t, int64_t v) {
  std::string key = "#c" + ComputeType(t) + ":" + std::to_string(v);
  if (auto found = Lookup(key)) return *found;
  std::string ssa =
      t == Type::kPred
          ? Emit(std::string("arith.constant ") + (v ? "true" : "false"))
          : Emit("arith.constant " + std::to_string(v) + " : " +
                 ComputeType(t));
  if (!scopes_.empty()) BindLet(key, ssa);
  return ssa;
}

std::string MlirPrinter::ConstantFloat(Type t, double v) {
  std::string key = "#f" + ComputeType(t) + ":" + FloatConst(v, t);
  if (auto found = Lookup(key)) return *found;
  std::string ssa =
      Emit("arith.constant " + FloatConst(v, t) + " : " + ComputeType(t));
  if (!scopes_.empty()) BindLet(key, ssa);
  return ssa;
}

std::string MlirPrinter::Call(const std::string& fn,
                              const std::vector<std::string>& args,
                              const std::vector<std::string>& types,
                              const std::string& ret) {
  if (inline_calls_) {
    if (fn.rfind("ixa_", 0) == 0) return InlineHelper(fn, args);
    inline_error_ = "emit: '" + fn +
                    "' cannot be called inside an atomic update (MLIR wants "
                    "its body free of side effects)";
  }
  std::string a, t;
  for (size_t i = 0; i < args.size(); ++i) {
    a += (i ? ", " : "") + args[i];
    t += (i ? ", " : "") + types[i];
  }
  return Emit("call @" + fn + "(" + a + ") : (" + t + ") -> " + ret);
}

// The helper's body printed in place, its values renamed apart (inside a
// generic_atomic_rmw, whose body must not call functions).
std::string MlirPrinter::InlineHelper(const std::string& name,
                                      const std::vector<std::string>& args) {
  std::string text = HelperText(name, "func");
  std::stringstream in(text);
  std::string header, line;
  std::getline(in, header);
  // Parameter names from `func @name(%a: f32, %b: f32) -> f32 {`.
  std::map<std::string, std::string> rename;
  size_t at = header.find('(');
  for (size_t k = 0; k < args.size(); ++k) {
    size_t p = header.find('%', at);
    size_t e = header.find(':', p);
    rename[header.substr(p + 1, e - p - 1)] = args[k];
    at = e;
  }
  const std::string prefix = "%h" + std::to_string(counter_++) + "_";
  auto renamed = [&](const std::string& l) {
    std::string out;
    for (size_t i = 0; i < l.size();) {
      if (l[i] != '%') {
        out += l[i++];
        continue;
      }
      size_t j = i + 1;
      while (j < l.size() &&
             (std::isalnum(static_cast<unsigned char>(l[j])) || l[j] == '_'))
        ++j;
      std::string id = l.substr(i + 1, j - i - 1);
      auto f = rename.find(id);
      out += f != rename.end() ? f->second : prefix + id;
      i = j;
    }
    return out;
  };
  std::string result;
  while (std::getline(in, line)) {
    size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || line == "}") continue;
    std::string body = line.substr(first);
    if (body.rfind("return ", 0) == 0) {
      result = renamed(body.substr(7, body.find(' ', 7) - 7));
      continue;
    }
    // Keep the helper's own nesting (scf.for regions).
    w_->Line(std::string(first - 2, ' ') + renamed(body));
  }
  return result;
}

// A module function's body printed in place with its parameters bound to
// `args`; its return values come back.
Result<std::vector<std::string>> MlirPrinter::InlineFunction(
    const std::string& name, const std::vector<std::string>& args) {
  const ir::Function* f = module_.FindFunction(name);
  IXA_CHECK_MSG(f != nullptr, name);
  bool declares = false;
  ir::ForEachStmt(f->body, [&](const Stmt& st) {
    declares = declares || st.kind == StmtKind::kDeclare;
  });
  if (declares || f->reads_buffers) {
    return Error::Unsupported("emit: '" + name +
                              "' cannot be inlined into an atomic update");
  }
  std::vector<std::string> ret;
  std::vector<std::string>* saved = capture_return_;
  capture_return_ = &ret;
  scopes_.emplace_back();
  for (size_t i = 0; i < f->params.size(); ++i)
    BindLet(f->params[i].name, args[i]);
  auto saved_memo = memo_;
  Status st = PrintBlock(f->body);
  memo_ = saved_memo;
  scopes_.pop_back();
  capture_return_ = saved;
  if (!st.ok()) return st.error();
  return ret;
}

void MlirPrinter::NeedHelper(const std::string& name) { helpers_.insert(name); }

std::string MlirPrinter::RoundTo(Type t, const std::string& x) {
  if (t == Type::kBF16) {
    NeedHelper("ixa_round_bf16");
    return Call("ixa_round_bf16", {x}, {"f32"}, "f32");
  }
  if (t == Type::kF16) {
    std::string h = Emit("arith.truncf " + x + " : f32 to f16");
    return Emit("arith.extf " + h + " : f16 to f32");
  }
  return x;
}

std::string MlirPrinter::FromStorage(Type t, const std::string& x) {
  if (t == Type::kBF16) {
    NeedHelper("ixa_bf16_to_f32");
    return Call("ixa_bf16_to_f32", {x}, {"i16"}, "f32");
  }
  if (t == Type::kF16) {
    std::string h = Emit("arith.bitcast " + x + " : i16 to f16");
    return Emit("arith.extf " + h + " : f16 to f32");
  }
  if (t == Type::kPred) {
    std::string z = Constant(Type::kS8, 0);
    return Emit("arith.cmpi ne, " + x + ", " + z + " : i8");
  }
  return x;
}

std::string MlirPrinter::ToStorage(Type t, const std::string& x) {
  if (t == Type::kBF16) {
    NeedHelper("ixa_f32_to_bf16");
    return Call("ixa_f32_to_bf16", {x}, {"f32"}, "i16");
  }
  if (t == Type::kF16) {
    std::string h = Emit("arith.truncf " + x + " : f32 to f16");
    return Emit("arith.bitcast " + h + " : f16 to i16");
  }
  if (t == Type::kPred) return Emit("arith.extui " + x + " : i1 to i8");
  return x;
}

std::string MlirPrinter::MathOp(const std::string& math_op,
                                const std::string& libm, bool host_lowers,
                                Type t, const std::vector<std::string>& x) {
  std::string ct = ComputeType(t);
  bool use_call = host_ ? !host_lowers : math_op.empty();
  if (!use_call) {
    std::string args;
    for (size_t i = 0; i < x.size(); ++i) args += (i ? ", " : "") + x[i];
    return Emit(math_op + " " + args + " : " + ct);
  }
  std::string fn = t == Type::kF64 ? libm : libm + "f";
  std::string sig = "(" + ct + (x.size() > 1 ? ", " + ct : "") + ") -> " + ct;
  externs_[fn] = sig;
  std::vector<std::string> types(x.size(), ct);
  return Call(fn, x, types, ct);
}

Text MlirPrinter::ApplyExpr(ixa::Expr e, const Node& apply) {
  const IndexingMap& map = *apply.map;
  // The map printed over the variables the expression uses, renumbered
  // (the others are neither printed nor evaluated: they may be out of
  // scope here, e.g. a hoisted check's loop variable).
  std::vector<bool> used_dims, used_syms;
  CollectVariables(e, &used_dims, &used_syms);
  used_dims.resize(map.num_dims());
  used_syms.resize(map.num_symbols());
  ExprContext* ctx = map.context();
  std::vector<Expr> dim_repl, sym_repl;
  std::string dims, syms, dvals, svals;
  int nd = 0, ns = 0;
  for (int i = 0; i < map.num_dims(); ++i) {
    dim_repl.push_back(ctx->Dim(used_dims[i] ? nd : 0));
    if (!used_dims[i]) continue;
    IXA_ASSIGN_OR_RETURN(std::string v, Value(apply.operands[i]));
    dims += (nd ? ", d" : "d") + std::to_string(nd);
    dvals += (nd ? ", " : "") + v;
    ++nd;
  }
  for (int i = 0; i < map.num_symbols(); ++i) {
    sym_repl.push_back(ctx->Symbol(used_syms[i] ? ns : 0));
    if (!used_syms[i]) continue;
    IXA_ASSIGN_OR_RETURN(std::string v,
                         Value(apply.operands[map.num_dims() + i]));
    syms += (ns ? ", s" : "s") + std::to_string(ns);
    svals += (ns ? ", " : "") + v;
    ++ns;
  }
  IXA_ASSIGN_OR_RETURN(std::string body,
                       AffineText(Substitute(e, dim_repl, sym_repl)));
  std::string text = "affine.apply affine_map<(" + dims + ")";
  if (!syms.empty()) text += "[" + syms + "]";
  text += " -> (" + body + ")>(" + dvals + ")";
  if (!syms.empty()) text += "[" + svals + "]";
  return Emit(text);
}

Text MlirPrinter::InDomainValue(const Node& n) {
  const IndexingMap& map = *n.map;
  if (map.IsKnownEmpty()) return Constant(Type::kPred, 0);
  std::vector<std::string> conds;
  auto bound = [&](const std::string& x, Interval range, Interval b) {
    if (b.lower > range.lower && b.lower != kInt64Min) {
      std::string c = Constant(Type::kIndex, b.lower);
      conds.push_back(Emit("arith.cmpi sge, " + x + ", " + c + " : index"));
    }
    if (b.upper < range.upper && b.upper != kInt64Max) {
      std::string c = Constant(Type::kIndex, b.upper);
      conds.push_back(Emit("arith.cmpi sle, " + x + ", " + c + " : index"));
    }
  };
  std::vector<Interval> dims, syms;
  for (int i = 0; i < map.num_dims() + map.num_symbols(); ++i) {
    Interval b = i < map.num_dims() ? map.dims()[i].bounds
                                    : map.symbol(i - map.num_dims()).bounds;
    Interval r = ir::RangeOf(n.operands[i]);
    (i < map.num_dims() ? dims : syms).push_back(r.Intersect(b));
    if (b.Contains(r)) continue;
    IXA_ASSIGN_OR_RETURN(std::string x, Value(n.operands[i]));
    bound(x, r, b);
  }
  for (const Constraint& c : map.constraints()) {
    Interval r = ir::ExprRange(c.expr, dims, syms);
    if (c.interval.Contains(r)) continue;
    IXA_ASSIGN_OR_RETURN(std::string x, ApplyExpr(c.expr, n));
    bound(x, r, c.interval);
  }
  if (conds.empty()) return Constant(Type::kPred, 1);
  std::string acc = conds[0];
  for (size_t i = 1; i < conds.size(); ++i) {
    acc = Emit("arith.andi " + acc + ", " + conds[i] + " : i1");
  }
  return acc;
}

std::string MlirPrinter::IndexList(const std::vector<std::string>& idx) const {
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + idx[i];
  return "[" + s + "]";
}

Text MlirPrinter::Indices(const std::vector<Val>& idx, const Buffer& b,
                          bool flat) {
  std::vector<std::string> out;
  for (const Val& v : idx) {
    IXA_ASSIGN_OR_RETURN(std::string s, Value(v));
    out.push_back(s);
  }
  if (flat && !module_.flattened && b.shape.rank() != 1) {
    return Error::Unsupported("emit: a flat access before the flatten stage");
  }
  return IndexList(out);
}

Text MlirPrinter::Value(const Val& v) {
  auto f = memo_.find(v.get());
  if (f != memo_.end()) return f->second;
  IXA_ASSIGN_OR_RETURN(std::string s, ValueUncached(v));
  memo_[v.get()] = s;
  return s;
}

Text MlirPrinter::ValueUncached(const Val& v) {
  const Node& n = *v;
  switch (n.kind) {
    case NodeKind::kConst:
      if (n.width > 1) {  // a zero vector
        std::string st = StorageType(n.type);
        return Emit(std::string("arith.constant dense<") +
                    (st[0] == 'f' ? "0.0" : "0") +
                    "> : " + VectorType(n.type, n.width));
      }
      if (ir::IsFloat(n.type)) return ConstantFloat(n.type, n.float_value);
      return Constant(n.type, n.int_value);
    case NodeKind::kVar: {
      if (thread_locals_.count(n.name)) {
        auto tid = Lookup("tid");
        IXA_CHECK(tid.has_value());
        return Emit("memref.load %tl_" + n.name + "[" + *tid + "] : memref<" +
                    thread_local_types_[n.name] + ">");
      }
      if (n.is_mutable || slots_.count(n.name)) {
        return Emit("memref.load " + Slot(n.name) + "[] : memref<" +
                    slots_[n.name] + ">");
      }
      auto found = Lookup(n.name);
      if (!found) {
        return Error::Invalid(
            "emit: the MLIR printer met an undefined value '" + n.name + "'");
      }
      return *found;
    }
    case NodeKind::kApply:
      return ApplyExpr(n.map->results()[n.result], n);
    case NodeKind::kInDomain:
      return InDomainValue(n);
    case NodeKind::kLoad: {
      const Buffer& b = module_.buffers[n.buffer];
      IXA_ASSIGN_OR_RETURN(std::string idx, Indices(n.operands, b, n.flat));
      if (n.width > 1) {
        return Emit("vector.load " + BufferRef(n.buffer) + idx + " : " +
                    MemrefType(b) + ", " + VectorType(n.type, n.width));
      }
      std::string raw = Emit("memref.load " + BufferRef(n.buffer) + idx +
                             " : " + MemrefType(b));
      return FromStorage(n.type, raw);
    }
    case NodeKind::kOp: {
      std::vector<std::string> x;
      for (const Val& o : n.operands) {
        IXA_ASSIGN_OR_RETURN(std::string s, Value(o));
        x.push_back(s);
      }
      return OpValue(n, x);
    }
    case NodeKind::kExtract: {
      if (host_) {
        // Host form: a vector lives in a small buffer (the pass list of
        // §3 does not lower the vector dialect).
        const Node& vec = *n.operands[0];
        if (vec.kind != NodeKind::kVar || !vector_slots_.count(vec.name)) {
          return Error::Unsupported(
              "emit: a vector value the host form cannot hold");
        }
        IXA_ASSIGN_OR_RETURN(std::string lane, Value(n.operands[1]));
        std::string raw = Emit("memref.load " + Slot(vec.name) + "[" + lane +
                               "] : memref<" + vector_slots_[vec.name] + ">");
        return FromStorage(n.type, raw);
      }
      IXA_ASSIGN_OR_RETURN(std::string vec, Value(n.operands[0]));
      IXA_ASSIGN_OR_RETURN(std::string lane, Value(n.operands[1]));
      std::string l32 = Emit("arith.index_cast " + lane + " : index to i32");
      std::string raw =
          Emit("vector.extractelement " + vec + "[" + l32 +
               " : i32] : " + VectorType(n.type, n.operands[0]->width));
      return FromStorage(n.type, raw);
    }
    case NodeKind::kInsert: {
      IXA_ASSIGN_OR_RETURN(std::string vec, Value(n.operands[0]));
      IXA_ASSIGN_OR_RETURN(std::string lane, Value(n.operands[1]));
      IXA_ASSIGN_OR_RETURN(std::string x, Value(n.operands[2]));
      std::string l32 = Emit("arith.index_cast " + lane + " : index to i32");
      std::string stored = ToStorage(n.type, x);
      return Emit("vector.insertelement " + stored + ", " + vec + "[" + l32 +
                  " : i32] : " + VectorType(n.type, n.width));
    }
  }
  return Error::Unsupported("emit: unknown IR node");
}

Text MlirPrinter::OpValue(const Node& n, const std::vector<std::string>& xs) {
  const std::vector<std::string>& x = xs;
  const Type t = n.type;
  const std::string ct = ComputeType(t);
  const bool fl = ir::IsFloat(t);
  const bool sgn = ir::IsSignedInt(t);
  auto bin = [&](const std::string& op) {
    return Emit(op + " " + x[0] + ", " + x[1] + " : " + ct);
  };
  auto helper = [&](const std::string& base, Type type) {
    std::string name = base + "_" + ir::TypeName(type);
    NeedHelper(name);
    std::vector<std::string> types(x.size(), ComputeType(type));
    return Call(name, x, types, ComputeType(t));
  };
  switch (n.op) {
    case OpCode::kAbs:
      if (fl) return Emit("math.abs " + x[0] + " : " + ct);
      if (ir::IsUnsignedInt(t)) return x[0];
      return helper("ixa_iabs", t);
    case OpCode::kNeg:
      if (fl) return Emit("arith.negf " + x[0] + " : " + ct);
      {
        std::string z = Constant(t, 0);
        return Emit("arith.subi " + z + ", " + x[0] + " : " + ct);
      }
    case OpCode::kNot:
      if (t == Type::kPred) {
        std::string one = Constant(Type::kPred, 1);
        return Emit("arith.xori " + x[0] + ", " + one + " : i1");
      }
      {
        std::string ones = Constant(t, -1);
        return Emit("arith.xori " + x[0] + ", " + ones + " : " + ct);
      }
    case OpCode::kSign:
      if (fl) return helper("ixa_fsign", t);
      if (ir::IsUnsignedInt(t)) {
        std::string z = Constant(t, 0);
        std::string ne = Emit("arith.cmpi ne, " + x[0] + ", " + z + " : " + ct);
        return Emit("arith.extui " + ne + " : i1 to " + ct);
      }
      return helper("ixa_isign", t);
    case OpCode::kExp:
      return RoundTo(t, MathOp("math.exp", "exp", false, t, x));
    case OpCode::kExpm1:
      return RoundTo(t, MathOp("math.expm1", "expm1", false, t, x));
    case OpCode::kLog:
      return RoundTo(t, MathOp("math.log", "log", false, t, x));
    case OpCode::kLog1p:
      return RoundTo(t, MathOp("math.log1p", "log1p", false, t, x));
    case OpCode::kSqrt:
      return RoundTo(t, MathOp("math.sqrt", "sqrt", true, t, x));
    case OpCode::kRsqrt: {
      std::string s = MathOp("math.sqrt", "sqrt", true, t, x);
      std::string one = ConstantFloat(t, 1.0);
      return RoundTo(t, Emit("arith.divf " + one + ", " + s + " : " + ct));
    }
    case OpCode::kCbrt:
      return RoundTo(t, MathOp("", "cbrt", false, t, x));
    case OpCode::kTanh:
      return RoundTo(t, MathOp("math.tanh", "tanh", false, t, x));
    case OpCode::kLogistic: {
      std::string neg = Emit("arith.negf " + x[0] + " : " + ct);
      std::string e = MathOp("math.exp", "exp", false, t, {neg});
      std::string one = ConstantFloat(t, 1.0);
      std::string d = Emit("arith.addf " + one + ", " + e + " : " + ct);
      return RoundTo(t, Emit("arith.divf " + one + ", " + d + " : " + ct));
    }
    case OpCode::kSin:
      return RoundTo(t, MathOp("math.sin", "sin", false, t, x));
    case OpCode::kCos:
      return RoundTo(t, MathOp("math.cos", "cos", false, t, x));
    case OpCode::kTan:
      return RoundTo(t, MathOp("", "tan", false, t, x));
    case OpCode::kErf:
      return RoundTo(t, MathOp("math.erf", "erf", false, t, x));
    case OpCode::kFloor:
      return MathOp("math.floor", "floor", true, t, x);
    case OpCode::kCeil:
      return MathOp("math.ceil", "ceil", true, t, x);
    case OpCode::kRoundAfz:
      return MathOp("", "round", false, t, x);
    case OpCode::kRoundEven:
      return MathOp("", "nearbyint", false, t, x);
    case OpCode::kIsFinite: {
      std::string a =
          Emit("math.abs " + x[0] + " : " + ComputeType(n.operand_type));
      std::string inf = ConstantFloat(n.operand_type, 1.0 / 0.0);
      return Emit("arith.cmpf one, " + a + ", " + inf + " : " +
                  ComputeType(n.operand_type));
    }
    case OpCode::kPopcnt:
      return Emit("math.ctpop " + x[0] + " : " + ct);
    case OpCode::kClz:
      return Emit("math.ctlz " + x[0] + " : " + ct);
    case OpCode::kAdd:
      if (t == Type::kPred) return bin("arith.ori");
      return fl ? RoundTo(t, bin("arith.addf")) : bin("arith.addi");
    case OpCode::kSub:
      return fl ? RoundTo(t, bin("arith.subf")) : bin("arith.subi");
    case OpCode::kMul:
      if (t == Type::kPred) return bin("arith.andi");
      return fl ? RoundTo(t, bin("arith.mulf")) : bin("arith.muli");
    case OpCode::kDiv:
      if (fl) return RoundTo(t, bin("arith.divf"));
      return helper("ixa_idiv", t);
    case OpCode::kRem:
      if (fl) return RoundTo(t, bin("arith.remf"));
      return helper("ixa_irem", t);
    case OpCode::kMax:
      if (fl) return helper("ixa_fmax", t);
      {
        std::string c =
            Emit(std::string("arith.cmpi ") + (sgn ? "sgt" : "ugt") + ", " +
                 x[0] + ", " + x[1] + " : " + ct);
        return Emit("select " + c + ", " + x[0] + ", " + x[1] + " : " + ct);
      }
    case OpCode::kMin:
      if (fl) return helper("ixa_fmin", t);
      {
        std::string c =
            Emit(std::string("arith.cmpi ") + (sgn ? "slt" : "ult") + ", " +
                 x[0] + ", " + x[1] + " : " + ct);
        return Emit("select " + c + ", " + x[0] + ", " + x[1] + " : " + ct);
      }
    case OpCode::kPow:
      if (fl) return RoundTo(t, MathOp("math.powf", "pow", false, t, x));
      return helper("ixa_ipow", t);
    case OpCode::kAtan2:
      return RoundTo(t, MathOp("math.atan2", "atan2", false, t, x));
    case OpCode::kAnd:
      return bin("arith.andi");
    case OpCode::kOr:
      return bin("arith.ori");
    case OpCode::kXor:
      return bin("arith.xori");
    case OpCode::kShl:
      return helper("ixa_shl", t);
    case OpCode::kShrL:
      return helper("ixa_shr_logical", t);
    case OpCode::kShrA:
      return helper("ixa_shr_arith", t);
    case OpCode::kEq:
    case OpCode::kNe:
    case OpCode::kLt:
    case OpCode::kLe:
    case OpCode::kGt:
    case OpCode::kGe: {
      Type ot = n.operand_type;
      std::string oct = ComputeType(ot);
      static const char* kF[] = {"oeq", "une", "olt", "ole", "ogt", "oge"};
      static const char* kS[] = {"eq", "ne", "slt", "sle", "sgt", "sge"};
      static const char* kU[] = {"eq", "ne", "ult", "ule", "ugt", "uge"};
      int k = static_cast<int>(n.op) - static_cast<int>(OpCode::kEq);
      if (ir::IsFloat(ot)) {
        return Emit(std::string("arith.cmpf ") + kF[k] + ", " + x[0] + ", " +
                    x[1] + " : " + oct);
      }
      const char* pred =
          ir::IsSignedInt(ot) || ot == Type::kIndex ? kS[k] : kU[k];
      return Emit(std::string("arith.cmpi ") + pred + ", " + x[0] + ", " +
                  x[1] + " : " + oct);
    }
    case OpCode::kSelect:
      return Emit("select " + x[0] + ", " + x[1] + ", " + x[2] + " : " + ct);
    case OpCode::kClamp:
      if (fl) {
        NeedHelper(std::string("ixa_fmax_") + ir::TypeName(t));
        NeedHelper(std::string("ixa_fmin_") + ir::TypeName(t));
        std::string m = Call(std::string("ixa_fmax_") + ir::TypeName(t),
                             {x[1], x[0]}, {ct, ct}, ct);
        return Call(std::string("ixa_fmin_") + ir::TypeName(t), {m, x[2]},
                    {ct, ct}, ct);
      } else {
        const char* lt = sgn ? "slt" : "ult";
        const char* gt = sgn ? "sgt" : "ugt";
        std::string c1 = Emit(std::string("arith.cmpi ") + lt + ", " + x[1] +
                              ", " + x[0] + " : " + ct);
        std::string m =
            Emit("select " + c1 + ", " + x[0] + ", " + x[1] + " : " + ct);
        std::string c2 = Emit(std::string("arith.cmpi ") + gt + ", " + m +
                              ", " + x[2] + " : " + ct);
        return Emit("select " + c2 + ", " + x[2] + ", " + m + " : " + ct);
      }
    case OpCode::kConvert: {
      Type from = n.operand_type;
      std::vector<std::string> x = xs;
      if (from == Type::kIndex) {  // iota: the index as a signed 64-bit int
        x[0] = Emit("arith.index_cast " + x[0] + " : index to i64");
        from = Type::kS64;
      }
      const std::string fct = ComputeType(from);
      if (from == t) return x[0];
      if (t == Type::kPred) {
        if (ir::IsFloat(from)) {
          std::string z = ConstantFloat(from, 0.0);
          return Emit("arith.cmpf une, " + x[0] + ", " + z + " : " + fct);
        }
        std::string z = Constant(from, 0);
        return Emit("arith.cmpi ne, " + x[0] + ", " + z + " : " + fct);
      }
      if (!ir::IsFloat(from)) {
        bool from_signed = ir::IsSignedInt(from);
        if (!fl) {
          int fb = ir::TypeBits(from == Type::kPred ? Type::kPred : from);
          if (from == Type::kPred) fb = 1;
          int tb = ir::TypeBits(t);
          if (fb == tb) return x[0];
          if (fb > tb)
            return Emit("arith.trunci " + x[0] + " : " + fct + " to " + ct);
          return Emit(
              std::string(from_signed ? "arith.extsi " : "arith.extui ") +
              x[0] + " : " + fct + " to " + ct);
        }
        std::string wide = t == Type::kF64 ? "f64" : "f32";
        std::string f =
            Emit(std::string(from_signed ? "arith.sitofp " : "arith.uitofp ") +
                 x[0] + " : " + fct + " to " + wide);
        return RoundTo(t, f);
      }
      if (!fl) {
        NeedHelper(std::string("ixa_f2i_") + ir::TypeName(from) + "_" +
                   ir::TypeName(t));
        return Call(std::string("ixa_f2i_") + ir::TypeName(from) + "_" +
                        ir::TypeName(t),
                    {x[0]}, {fct}, ct);
      }
      if (t == Type::kF64) return Emit("arith.extf " + x[0] + " : f32 to f64");
      std::string f = from == Type::kF64
                          ? Emit("arith.truncf " + x[0] + " : f64 to f32")
                          : x[0];
      return RoundTo(t, f);
    }
    case OpCode::kBitcastConvert: {
      const Type from = n.operand_type;
      std::string s = ToStorage(from, x[0]);
      std::string fs = StorageType(from), ts = StorageType(t);
      std::string b =
          fs == ts ? s : Emit("arith.bitcast " + s + " : " + fs + " to " + ts);
      return FromStorage(t, b);
    }
    case OpCode::kToIndex: {
      const Type from = n.operand_type;
      if (ir::IsUnsignedInt(from) && ir::TypeBits(from) < 64) {
        std::string w =
            Emit("arith.extui " + x[0] + " : " + ComputeType(from) + " to i64");
        return Emit("arith.index_cast " + w + " : i64 to index");
      }
      return Emit("arith.index_cast " + x[0] + " : " + ComputeType(from) +
                  " to index");
    }
    case OpCode::kClampIndex: {
      std::string c1 =
          Emit("arith.cmpi slt, " + x[0] + ", " + x[1] + " : index");
      std::string m =
          Emit("select " + c1 + ", " + x[1] + ", " + x[0] + " : index");
      std::string c2 = Emit("arith.cmpi sgt, " + m + ", " + x[2] + " : index");
      return Emit("select " + c2 + ", " + x[2] + ", " + m + " : index");
    }
  }
  return Error::Unsupported("emit: the MLIR printer has no form for op '" +
                            std::string(ir::OpCodeName(n.op)) + "'");
}

// The helper functions' text, by name (`base_type` or `base_from_to`).
std::string HelperText(const std::string& name, const std::string& func) {
  auto type_of = [](const std::string& n) {
    static const std::pair<const char*, Type> kTypes[] = {
        {"pred", Type::kPred}, {"s8", Type::kS8},     {"s16", Type::kS16},
        {"s32", Type::kS32},   {"s64", Type::kS64},   {"u8", Type::kU8},
        {"u16", Type::kU16},   {"u32", Type::kU32},   {"u64", Type::kU64},
        {"f16", Type::kF16},   {"bf16", Type::kBF16}, {"f32", Type::kF32},
        {"f64", Type::kF64}};
    for (const auto& [k, t] : kTypes) {
      if (n == k) return t;
    }
    return Type::kIndex;
  };
  std::ostringstream o;
  if (name == "ixa_bf16_to_f32") {
    o << func << " @ixa_bf16_to_f32(%h: i16) -> f32 {\n"
      << "  %w = arith.extui %h : i16 to i32\n"
      << "  %c16 = arith.constant 16 : i32\n"
      << "  %s = arith.shli %w, %c16 : i32\n"
      << "  %f = arith.bitcast %s : i32 to f32\n"
      << "  return %f : f32\n}\n";
    return o.str();
  }
  if (name == "ixa_f32_to_bf16") {
    // Round to nearest even on the dropped 16 bits; NaN stays quiet.
    o << func << " @ixa_f32_to_bf16(%f: f32) -> i16 {\n"
      << "  %u = arith.bitcast %f : f32 to i32\n"
      << "  %c16 = arith.constant 16 : i32\n"
      << "  %one = arith.constant 1 : i32\n"
      << "  %bias = arith.constant 32767 : i32\n"
      << "  %quiet = arith.constant 64 : i32\n"
      << "  %hi = arith.shrui %u, %c16 : i32\n"
      << "  %lsb = arith.andi %hi, %one : i32\n"
      << "  %add = arith.addi %bias, %lsb : i32\n"
      << "  %w = arith.extui %u : i32 to i64\n"
      << "  %add64 = arith.extui %add : i32 to i64\n"
      << "  %sum = arith.addi %w, %add64 : i64\n"
      << "  %c16w = arith.constant 16 : i64\n"
      << "  %sh = arith.shrui %sum, %c16w : i64\n"
      << "  %t = arith.trunci %sh : i64 to i16\n"
      << "  %nanbits = arith.ori %hi, %quiet : i32\n"
      << "  %nt = arith.trunci %nanbits : i32 to i16\n"
      << "  %isnan = arith.cmpf uno, %f, %f : f32\n"
      << "  %r = select %isnan, %nt, %t : i16\n"
      << "  return %r : i16\n}\n";
    return o.str();
  }
  if (name == "ixa_round_bf16") {
    // f32 -> bf16 bits -> f32 without calls (it is inlined into atomics):
    // round to nearest even on the 16 dropped bits, keep NaN quiet.
    o << func << " @ixa_round_bf16(%f: f32) -> f32 {\n"
      << "  %u = arith.bitcast %f : f32 to i32\n"
      << "  %c16 = arith.constant 16 : i32\n"
      << "  %one = arith.constant 1 : i32\n"
      << "  %bias = arith.constant 32767 : i32\n"
      << "  %quiet = arith.constant 4194304 : i32\n"
      << "  %mask = arith.constant -65536 : i32\n"
      << "  %hi = arith.shrui %u, %c16 : i32\n"
      << "  %lsb = arith.andi %hi, %one : i32\n"
      << "  %add = arith.addi %bias, %lsb : i32\n"
      << "  %sum = arith.addi %u, %add : i32\n"
      << "  %t = arith.andi %sum, %mask : i32\n"
      << "  %nanbits = arith.ori %u, %quiet : i32\n"
      << "  %nt = arith.andi %nanbits, %mask : i32\n"
      << "  %isnan = arith.cmpf uno, %f, %f : f32\n"
      << "  %bits = select %isnan, %nt, %t : i32\n"
      << "  %r = arith.bitcast %bits : i32 to f32\n"
      << "  return %r : f32\n}\n";
    return o.str();
  }
  size_t us = name.rfind('_');
  std::string base = name.substr(0, us), tn = name.substr(us + 1);
  Type t = type_of(tn);
  if (base.rfind("ixa_f2i_", 0) == 0) {
    Type from = type_of(base.substr(8));
    std::string fct = ComputeType(from), ct = ComputeType(t);
    int bits = ir::TypeBits(t);
    bool sgn = ir::IsSignedInt(t);
    double lim = std::ldexp(1.0, sgn ? bits - 1 : bits);
    o << func << " @" << name << "(%v: " << fct << ") -> " << ct << " {\n"
      << "  %zf = arith.constant " << FloatConst(0.0, from) << " : " << fct
      << "\n"
      << "  %hi = arith.constant " << FloatConst(lim, from) << " : " << fct
      << "\n"
      << "  %lo = arith.constant " << FloatConst(sgn ? -lim : 0.0, from)
      << " : " << fct << "\n"
      << "  %nan = arith.cmpf uno, %v, %v : " << fct << "\n"
      << "  %ge = arith.cmpf oge, %v, %hi : " << fct << "\n"
      << "  %lt = arith.cmpf " << (sgn ? "olt" : "ole") << ", %v, %lo : " << fct
      << "\n"
      << "  %b1 = arith.ori %nan, %ge : i1\n"
      << "  %bad = arith.ori %b1, %lt : i1\n"
      << "  %safe = select %bad, %zf, %v : " << fct << "\n"
      << "  %i = " << (sgn ? "arith.fptosi" : "arith.fptoui")
      << " %safe : " << fct << " to " << ct << "\n"
      << "  %max = arith.constant " << (sgn ? "-1" : "-1") << " : " << ct
      << "\n";
    if (sgn) {
      o << "  %one = arith.constant 1 : " << ct << "\n"
        << "  %smax = arith.shrui %max, %one : " << ct << "\n"
        << "  %smin = arith.xori %smax, %max : " << ct << "\n"
        << "  %r1 = select %ge, %smax, %i : " << ct << "\n"
        << "  %r2 = select %lt, %smin, %r1 : " << ct << "\n";
    } else {
      o << "  %zero = arith.constant 0 : " << ct << "\n"
        << "  %r1 = select %ge, %max, %i : " << ct << "\n"
        << "  %r2 = select %lt, %zero, %r1 : " << ct << "\n";
    }
    o << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %r = select %nan, %z, %r2 : " << ct << "\n"
      << "  return %r : " << ct << "\n}\n";
    return o.str();
  }
  std::string ct = ComputeType(t);
  int bits = ir::TypeBits(t);
  bool sgn = ir::IsSignedInt(t);
  auto head = [&](int args) {
    o << func << " @" << name << "(%a: " << ct;
    if (args > 1) o << ", %b: " << ct;
    o << ") -> " << ct << " {\n";
  };
  auto ret = [&](const std::string& v) {
    o << "  return " << v << " : " << ct << "\n}\n";
    return o.str();
  };
  if (base == "ixa_iabs") {
    head(1);
    o << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %n = arith.subi %z, %a : " << ct << "\n"
      << "  %lt = arith.cmpi slt, %a, %z : " << ct << "\n"
      << "  %r = select %lt, %n, %a : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_isign") {
    head(1);
    o << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %p = arith.constant 1 : " << ct << "\n"
      << "  %m = arith.constant -1 : " << ct << "\n"
      << "  %gt = arith.cmpi sgt, %a, %z : " << ct << "\n"
      << "  %lt = arith.cmpi slt, %a, %z : " << ct << "\n"
      << "  %s1 = select %gt, %p, %z : " << ct << "\n"
      << "  %r = select %lt, %m, %s1 : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_fsign") {
    head(1);
    o << "  %z = arith.constant " << FloatConst(0, t) << " : " << ct << "\n"
      << "  %p = arith.constant " << FloatConst(1, t) << " : " << ct << "\n"
      << "  %m = arith.constant " << FloatConst(-1, t) << " : " << ct << "\n"
      << "  %nan = arith.cmpf uno, %a, %a : " << ct << "\n"
      << "  %gt = arith.cmpf ogt, %a, %z : " << ct << "\n"
      << "  %lt = arith.cmpf olt, %a, %z : " << ct << "\n"
      << "  %s1 = select %lt, %m, %a : " << ct << "\n"
      << "  %s2 = select %gt, %p, %s1 : " << ct << "\n"
      << "  %r = select %nan, %a, %s2 : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_fmax" || base == "ixa_fmin") {
    head(2);
    o << "  %c = arith.cmpf " << (base == "ixa_fmax" ? "ogt" : "olt")
      << ", %a, %b : " << ct << "\n"
      << "  %m = select %c, %a, %b : " << ct << "\n"
      << "  %nb = arith.cmpf uno, %b, %b : " << ct << "\n"
      << "  %m2 = select %nb, %b, %m : " << ct << "\n"
      << "  %na = arith.cmpf uno, %a, %a : " << ct << "\n"
      << "  %r = select %na, %a, %m2 : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_idiv" || base == "ixa_irem") {
    // A divisor that cannot trap, then XLA's results for the special cases.
    head(2);
    bool div = base == "ixa_idiv";
    o << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %one = arith.constant 1 : " << ct << "\n"
      << "  %m1 = arith.constant -1 : " << ct << "\n"
      << "  %bz = arith.cmpi eq, %b, %z : " << ct << "\n";
    if (sgn) {
      o << "  %sh = arith.constant " << bits - 1 << " : " << ct << "\n"
        << "  %min = arith.shli %one, %sh : " << ct << "\n"
        << "  %amin = arith.cmpi eq, %a, %min : " << ct << "\n"
        << "  %bm1 = arith.cmpi eq, %b, %m1 : " << ct << "\n"
        << "  %ovf = arith.andi %amin, %bm1 : i1\n"
        << "  %bad = arith.ori %bz, %ovf : i1\n"
        << "  %safe = select %bad, %one, %b : " << ct << "\n"
        << "  %q = " << (div ? "arith.divsi" : "arith.remsi")
        << " %a, %safe : " << ct << "\n"
        << "  %r1 = select %ovf, " << (div ? "%a" : "%z") << ", %q : " << ct
        << "\n";
    } else {
      o << "  %safe = select %bz, %one, %b : " << ct << "\n"
        << "  %r1 = " << (div ? "arith.divui" : "arith.remui")
        << " %a, %safe : " << ct << "\n";
    }
    o << "  %r = select %bz, " << (div ? "%m1" : "%a") << ", %r1 : " << ct
      << "\n";
    return ret("%r");
  }
  if (base == "ixa_shl" || base == "ixa_shr_logical" ||
      base == "ixa_shr_arith") {
    head(2);
    o << "  %n = arith.constant " << bits << " : " << ct << "\n"
      << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %ok = arith.cmpi ult, %b, %n : " << ct << "\n";
    if (base == "ixa_shr_arith") {
      o << "  %top = arith.constant " << bits - 1 << " : " << ct << "\n"
        << "  %safe = select %ok, %b, %top : " << ct << "\n"
        << "  %r = arith.shrsi %a, %safe : " << ct << "\n";
      return ret("%r");
    }
    o << "  %safe = select %ok, %b, %z : " << ct << "\n"
      << "  %s = " << (base == "ixa_shl" ? "arith.shli" : "arith.shrui")
      << " %a, %safe : " << ct << "\n"
      << "  %r = select %ok, %s, %z : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_ipow") {
    head(2);
    o << "  %c0 = arith.constant 0 : index\n"
      << "  %cn = arith.constant " << bits << " : index\n"
      << "  %c1 = arith.constant 1 : index\n"
      << "  %one = arith.constant 1 : " << ct << "\n"
      << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %l:3 = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %one, "
         "%base = %a, %e = %b) -> ("
      << ct << ", " << ct << ", " << ct << ") {\n"
      << "    %bit = arith.andi %e, %one : " << ct << "\n"
      << "    %odd = arith.cmpi ne, %bit, %z : " << ct << "\n"
      << "    %m = arith.muli %acc, %base : " << ct << "\n"
      << "    %acc2 = select %odd, %m, %acc : " << ct << "\n"
      << "    %base2 = arith.muli %base, %base : " << ct << "\n"
      << "    %e2 = arith.shrui %e, %one : " << ct << "\n"
      << "    scf.yield %acc2, %base2, %e2 : " << ct << ", " << ct << ", " << ct
      << "\n"
      << "  }\n";
    if (!sgn) return ret("%l#0");
    o << "  %m1 = arith.constant -1 : " << ct << "\n"
      << "  %neg = arith.cmpi slt, %b, %z : " << ct << "\n"
      << "  %is1 = arith.cmpi eq, %a, %one : " << ct << "\n"
      << "  %ism1 = arith.cmpi eq, %a, %m1 : " << ct << "\n"
      << "  %bb = arith.andi %b, %one : " << ct << "\n"
      << "  %bodd = arith.cmpi ne, %bb, %z : " << ct << "\n"
      << "  %pm = select %bodd, %m1, %one : " << ct << "\n"
      << "  %v1 = select %ism1, %pm, %z : " << ct << "\n"
      << "  %v2 = select %is1, %one, %v1 : " << ct << "\n"
      << "  %r = select %neg, %v2, %l#0 : " << ct << "\n";
    return ret("%r");
  }
  IXA_CHECK_MSG(false, "unknown MLIR helper " + name);
  return "";
}

Status MlirPrinter::PrintBlock(const Block& block) {
  scopes_.emplace_back();
  for (const Stmt& s : block) {
    memo_.clear();
    Status st = PrintStmt(s);
    if (!st.ok()) {
      scopes_.pop_back();
      return st;
    }
  }
  memo_.clear();
  scopes_.pop_back();
  return true;
}

Status MlirPrinter::PrintStmt(const Stmt& s) {
  auto store_local = [&](const std::string& name, const std::string& v) {
    if (thread_locals_.count(name)) {
      w_->Line("memref.store " + v + ", %tl_" + name + "[" + *Lookup("tid") +
               "] : memref<" + thread_local_types_[name] + ">");
    } else {
      w_->Line("memref.store " + v + ", " + Slot(name) + "[] : memref<" +
               slots_[name] + ">");
    }
  };
  switch (s.kind) {
    case StmtKind::kLet:
    case StmtKind::kDeclare:
    case StmtKind::kAssign:
    case StmtKind::kStore:
      if (host_ && (s.value->width > 1 || s.width > 1))
        return PrintHostVectorStmt(s);
      break;
    default:
      break;
  }
  switch (s.kind) {
    case StmtKind::kLet: {
      IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
      if (thread_locals_.count(s.name)) {
        store_local(s.name, v);
      } else {
        BindLet(s.name, v);
      }
      return true;
    }
    case StmtKind::kDeclare:
    case StmtKind::kAssign: {
      IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
      store_local(s.name, v);
      return true;
    }
    case StmtKind::kStore: {
      const Buffer& b = module_.buffers[s.buffer];
      IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
      IXA_ASSIGN_OR_RETURN(std::string idx, Indices(s.indices, b, s.flat));
      if (s.width > 1) {
        w_->Line("vector.store " + v + ", " + BufferRef(s.buffer) + idx +
                 " : " + MemrefType(b) + ", " + VectorType(s.type, s.width));
        return true;
      }
      std::string stored = ToStorage(s.type, v);
      w_->Line("memref.store " + stored + ", " + BufferRef(s.buffer) + idx +
               " : " + MemrefType(b));
      return true;
    }
    case StmtKind::kFor: {
      std::string lo = Constant(Type::kIndex, s.lo);
      std::string hi = Constant(Type::kIndex, s.hi);
      std::string one = Constant(Type::kIndex, 1);
      std::string var = "%" + s.name + "_" + std::to_string(counter_++);
      w_->Open("scf.for " + var + " = " + lo + " to " + hi + " step " + one +
               " {");
      scopes_.emplace_back();
      BindLet(s.name, var);
      Status st = PrintBlock(s.body);
      scopes_.pop_back();
      if (!st.ok()) return st;
      w_->Close("}");
      return true;
    }
    case StmtKind::kIf: {
      IXA_ASSIGN_OR_RETURN(std::string c, Value(s.value));
      w_->Open("scf.if " + c + " {");
      IXA_EMIT_TRY(PrintBlock(s.body));
      if (!s.else_body.empty()) {
        w_->Close("} else {");
        w_->Indent();
        IXA_EMIT_TRY(PrintBlock(s.else_body));
      }
      w_->Close("}");
      return true;
    }
    case StmtKind::kBarrier:
      if (host_) return Error::Invalid("emit: a barrier inside a nested block");
      w_->Line("gpu.barrier");
      return true;
    case StmtKind::kShuffle: {
      if (host_) return Error::Invalid("emit: a shuffle inside a nested block");
      IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
      std::string off =
          Emit("arith.constant " + std::to_string(s.offset) + " : i32");
      std::string width =
          Emit("arith.constant " + std::to_string(s.lanes) + " : i32");
      std::string ct = ComputeType(s.type);
      auto shuffle = [&](const std::string& x, const std::string& type) {
        std::string r = "%shfl" + std::to_string(counter_++);
        w_->Line(r + ", " + r + "_valid = gpu.shuffle down " + x + ", " + off +
                 ", " + width + " : " + type);
        return r;
      };
      std::string result;
      if (ct == "f32" || ct == "i32") {
        result = shuffle(v, ct);
      } else if (ct == "i64" || ct == "f64") {
        std::string bits =
            ct == "f64" ? Emit("arith.bitcast " + v + " : f64 to i64") : v;
        std::string lo = Emit("arith.trunci " + bits + " : i64 to i32");
        std::string c32 = Emit("arith.constant 32 : i64");
        std::string hi64 = Emit("arith.shrui " + bits + ", " + c32 + " : i64");
        std::string hi = Emit("arith.trunci " + hi64 + " : i64 to i32");
        std::string slo = shuffle(lo, "i32"), shi = shuffle(hi, "i32");
        std::string wlo = Emit("arith.extui " + slo + " : i32 to i64");
        std::string whi = Emit("arith.extui " + shi + " : i32 to i64");
        std::string up = Emit("arith.shli " + whi + ", " + c32 + " : i64");
        std::string both = Emit("arith.ori " + up + ", " + wlo + " : i64");
        result = ct == "f64" ? Emit("arith.bitcast " + both + " : i64 to f64")
                             : both;
      } else {
        std::string wide = Emit("arith.extui " + v + " : " + ct + " to i32");
        std::string r = shuffle(wide, "i32");
        result = Emit("arith.trunci " + r + " : i32 to " + ct);
      }
      BindLet(s.name, result);
      return true;
    }
    case StmtKind::kCall: {
      const ir::Function* f = module_.FindFunction(s.name);
      IXA_CHECK_MSG(f != nullptr, s.name);
      if (inline_calls_) {
        std::vector<std::string> args;
        for (const Val& a : s.args) {
          IXA_ASSIGN_OR_RETURN(std::string v, Value(a));
          args.push_back(v);
        }
        IXA_ASSIGN_OR_RETURN(std::vector<std::string> r,
                             InlineFunction(s.name, args));
        for (size_t i = 0; i < s.results.size(); ++i)
          BindLet(s.results[i], r[i]);
        return true;
      }
      std::vector<std::string> args, types;
      if (f->reads_buffers) {
        for (int b : module_.InputBuffers()) {
          args.push_back(BufferRef(b));
          types.push_back(MemrefType(module_.buffers[b]));
        }
      }
      for (const Val& a : s.args) {
        IXA_ASSIGN_OR_RETURN(std::string v, Value(a));
        args.push_back(v);
        types.push_back(a->width > 1 ? VectorType(a->type, a->width)
                                     : ComputeType(a->type));
      }
      std::string ret;
      for (size_t i = 0; i < s.result_types.size(); ++i) {
        ret += (i ? ", " : "") + ComputeType(s.result_types[i]);
      }
      if (s.result_types.size() != 1) ret = "(" + ret + ")";
      std::string a, t;
      for (size_t i = 0; i < args.size(); ++i) {
        a += (i ? ", " : "") + args[i];
        t += (i ? ", " : "") + types[i];
      }
      std::string r = "%" + std::to_string(counter_++);
      std::string lhs =
          s.results.size() > 1 ? r + ":" + std::to_string(s.results.size()) : r;
      w_->Line(lhs + " = call @" + s.name + "(" + a + ") : (" + t + ") -> " +
               ret);
      for (size_t i = 0; i < s.results.size(); ++i) {
        std::string v = s.results.size() > 1 ? r + "#" + std::to_string(i) : r;
        if (thread_locals_.count(s.results[i])) {
          store_local(s.results[i], v);
        } else {
          BindLet(s.results[i], v);
        }
      }
      return true;
    }
    case StmtKind::kReturn: {
      if (capture_return_) {
        for (const Val& a : s.args) {
          IXA_ASSIGN_OR_RETURN(std::string v, Value(a));
          capture_return_->push_back(v);
        }
        return true;
      }
      std::string vals, types;
      for (size_t i = 0; i < s.args.size(); ++i) {
        IXA_ASSIGN_OR_RETURN(std::string v, Value(s.args[i]));
        vals += (i ? ", " : "") + v;
        types += (i ? ", " : "") + ComputeType(s.args[i]->type);
      }
      w_->Line("return " + vals + (vals.empty() ? "" : " : " + types));
      return true;
    }
    case StmtKind::kAtomic: {
      const Buffer& b = module_.buffers[s.buffer];
      IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
      IXA_ASSIGN_OR_RETURN(std::string idx, Indices(s.indices, b, s.flat));
      std::string ct = ComputeType(s.type), st = StorageType(s.type);
      if (host_) {
        // Threads run one after another: read-modify-write.
        std::string raw = Emit("memref.load " + BufferRef(s.buffer) + idx +
                               " : " + MemrefType(b));
        std::string old = FromStorage(s.type, raw);
        std::string n = Call(s.name, {old, v}, {ct, ct}, ct);
        w_->Line("memref.store " + ToStorage(s.type, n) + ", " +
                 BufferRef(s.buffer) + idx + " : " + MemrefType(b));
        return true;
      }
      std::string r = "%rmw" + std::to_string(counter_++);
      w_->Open(r + " = memref.generic_atomic_rmw " + BufferRef(s.buffer) + idx +
               " : " + MemrefType(b) + " {");
      w_->Line("^bb0(" + r + "_old: " + st + "):");
      scopes_.emplace_back();  // values of the region stay in it
      inline_calls_ = true;
      inline_error_.clear();
      std::string old = FromStorage(s.type, r + "_old");
      auto n = InlineFunction(s.name, {old, v});
      std::string stored = n.ok() ? ToStorage(s.type, (*n)[0]) : "";
      inline_calls_ = false;
      scopes_.pop_back();
      if (!n.ok()) return n.error();
      if (!inline_error_.empty()) return Error::Unsupported(inline_error_);
      w_->Line("memref.atomic_yield " + stored + " : " + st);
      w_->Close("}");
      return true;
    }
    case StmtKind::kComment:
      w_->Line("// " + s.text);
      return true;
  }
  return Error::Unsupported("emit: unknown IR statement");
}

void MlirPrinter::CollectVectorSlots(const Block& body) {
  vector_slots_.clear();
  if (!host_) return;
  ir::ForEachStmt(body, [&](const Stmt& s) {
    if ((s.kind == StmtKind::kLet || s.kind == StmtKind::kDeclare) &&
        s.value->width > 1) {
      vector_slots_[s.name] =
          std::to_string(s.value->width) + "x" + StorageType(s.value->type);
    }
  });
}

Status MlirPrinter::PrintHostVectorStmt(const Stmt& s) {
  auto lane_offset = [&](const std::string& base, int k) {
    return Emit("affine.apply affine_map<(d0) -> (d0 + " + std::to_string(k) +
                ")>(" + base + ")");
  };
  switch (s.kind) {
    case StmtKind::kLet: {
      // name = vector load of `width` elements from a buffer.
      const Node& load = *s.value;
      if (load.kind != NodeKind::kLoad || !load.flat) {
        return Error::Unsupported(
            "emit: a vector value the host form cannot hold");
      }
      const Buffer& b = module_.buffers[load.buffer];
      IXA_ASSIGN_OR_RETURN(std::string off, Value(load.operands[0]));
      for (int k = 0; k < load.width; ++k) {
        std::string at = lane_offset(off, k);
        std::string v = Emit("memref.load " + BufferRef(load.buffer) + "[" +
                             at + "] : " + MemrefType(b));
        std::string lane = Constant(Type::kIndex, k);
        w_->Line("memref.store " + v + ", " + Slot(s.name) + "[" + lane +
                 "] : memref<" + vector_slots_[s.name] + ">");
      }
      return true;
    }
    case StmtKind::kDeclare: {
      // A zero vector.
      std::string st = StorageType(s.value->type);
      std::string zero = st[0] == 'f'
                             ? Emit("arith.constant " +
                                    FloatConst(0, s.value->type) + " : " + st)
                             : Emit("arith.constant 0 : " + st);
      for (int k = 0; k < s.value->width; ++k) {
        std::string lane = Constant(Type::kIndex, k);
        w_->Line("memref.store " + zero + ", " + Slot(s.name) + "[" + lane +
                 "] : memref<" + vector_slots_[s.name] + ">");
      }
      return true;
    }
    case StmtKind::kAssign: {
      // name = insert(name, lane, x): one element of the slot.
      const Node& ins = *s.value;
      if (ins.kind != NodeKind::kInsert ||
          ins.operands[0]->kind != NodeKind::kVar ||
          ins.operands[0]->name != s.name) {
        return Error::Unsupported(
            "emit: a vector value the host form cannot hold");
      }
      IXA_ASSIGN_OR_RETURN(std::string lane, Value(ins.operands[1]));
      IXA_ASSIGN_OR_RETURN(std::string x, Value(ins.operands[2]));
      std::string stored = ToStorage(ins.type, x);
      w_->Line("memref.store " + stored + ", " + Slot(s.name) + "[" + lane +
               "] : memref<" + vector_slots_[s.name] + ">");
      return true;
    }
    case StmtKind::kStore: {
      const Node& vec = *s.value;
      if (vec.kind != NodeKind::kVar || !vector_slots_.count(vec.name)) {
        return Error::Unsupported(
            "emit: a vector value the host form cannot hold");
      }
      const Buffer& b = module_.buffers[s.buffer];
      IXA_ASSIGN_OR_RETURN(std::string off, Value(s.indices[0]));
      for (int k = 0; k < s.width; ++k) {
        std::string lane = Constant(Type::kIndex, k);
        std::string v = Emit("memref.load " + Slot(vec.name) + "[" + lane +
                             "] : memref<" + vector_slots_[vec.name] + ">");
        std::string at = lane_offset(off, k);
        w_->Line("memref.store " + v + ", " + BufferRef(s.buffer) + "[" + at +
                 "] : " + MemrefType(b));
      }
      return true;
    }
    default:
      return Error::Unsupported(
          "emit: a vector statement the host form cannot print");
  }
}

Status MlirPrinter::PrintFunction(const ir::Function& f) {
  CodeWriter body;
  CodeWriter* outer = w_;
  w_ = &body;
  body.Indent();
  slots_.clear();
  buffer_args_.clear();
  scopes_.assign(1, {});
  std::string params;
  if (f.reads_buffers) {
    for (int b : module_.InputBuffers()) {
      const Buffer& buf = module_.buffers[b];
      params +=
          (params.empty() ? "%" : ", %") + buf.name + ": " + MemrefType(buf);
    }
  }
  for (const ir::Param& p : f.params) {
    params +=
        (params.empty() ? "%" : ", %") + p.name + ": " + ComputeType(p.type);
    BindLet(p.name, "%" + p.name);
  }
  ir::ForEachStmt(f.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kDeclare) {
      slots_[s.name] = s.value->width > 1
                           ? VectorType(s.value->type, s.value->width)
                           : ComputeType(s.type);
    }
  });
  for (size_t i = 0; i < module_.buffers.size(); ++i) {
    const Buffer& b = module_.buffers[i];
    if (b.space != BufferSpace::kConstant) continue;
    std::string ref = "%" + b.name + "_" + std::to_string(counter_++);
    body.Line(ref + " = memref.get_global @" + b.name + " : " + MemrefType(b));
    buffer_args_[b.name] = ref;
  }
  CollectVectorSlots(f.body);
  for (const auto& [name, type] : vector_slots_) slots_.erase(name);
  for (const auto& [name, type] : slots_) {
    body.Line(Slot(name) + " = memref.alloca() : memref<" + type + ">");
  }
  for (const auto& [name, type] : vector_slots_) {
    body.Line(Slot(name) + " = memref.alloca() : memref<" + type + ">");
  }
  Status st = PrintBlock(f.body);
  w_ = outer;
  if (!st.ok()) return st;
  std::string ret;
  for (size_t i = 0; i < f.results.size(); ++i) {
    ret += (i ? ", " : "") + ComputeType(f.results[i]);
  }
  if (f.results.size() > 1) ret = "(" + ret + ")";
  w_->Line(FuncKeyword() + " @" + f.name + "(" + params + ")" +
           (ret.empty() ? "" : " -> " + ret) + " {");
  std::string text = body.Take();
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) w_->Line(line);
  w_->Line("}");
  return true;
}

Status MlirPrinter::PrintDeviceKernel(const ir::Kernel& k) {
  CodeWriter body;
  CodeWriter* outer = w_;
  w_ = &body;
  body.Indent();
  slots_.clear();
  buffer_args_.clear();
  scopes_.assign(1, {});
  std::string params, workgroup;
  for (int b : module_.ArgumentBuffers()) {
    const Buffer& buf = module_.buffers[b];
    params +=
        (params.empty() ? "%" : ", %") + buf.name + ": " + MemrefType(buf);
  }
  for (const Buffer& b : module_.buffers) {
    if (b.space != BufferSpace::kShared) continue;
    workgroup +=
        (workgroup.empty() ? "%" : ", %") + b.name + " : " + MemrefType(b);
  }
  static const char* kIds[] = {"th_x", "th_y", "th_z", "bl_x", "bl_y", "bl_z"};
  for (int i = 0; i < 6; ++i) {
    std::string dim = std::string(1, "xyz"[i % 3]);
    body.Line(std::string("%") + kIds[i] + " = gpu." +
              (i < 3 ? "thread_id " : "block_id ") + dim);
    BindLet(kIds[i], std::string("%") + kIds[i]);
  }
  for (const Buffer& b : module_.buffers) {
    if (b.space != BufferSpace::kConstant) continue;
    std::string ref = "%" + b.name + "_" + std::to_string(counter_++);
    body.Line(ref + " = memref.get_global @" + b.name + " : " + MemrefType(b));
    buffer_args_[b.name] = ref;
  }
  ir::ForEachStmt(k.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kDeclare) {
      slots_[s.name] = s.value->width > 1
                           ? VectorType(s.value->type, s.value->width)
                           : ComputeType(s.type);
    }
  });
  CollectVectorSlots(k.body);
  for (const auto& [name, type] : vector_slots_) slots_.erase(name);
  for (const auto& [name, type] : slots_) {
    body.Line(Slot(name) + " = memref.alloca() : memref<" + type + ">");
  }
  for (const auto& [name, type] : vector_slots_) {
    body.Line(Slot(name) + " = memref.alloca() : memref<" + type + ">");
  }
  Status st = PrintBlock(k.body);
  w_ = outer;
  if (!st.ok()) return st;
  w_->Line("gpu.func @" + k.name + "(" + params + ")" +
           (workgroup.empty() ? "" : " workgroup(" + workgroup + ")") +
           " kernel {");
  std::string text = body.Take();
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) w_->Line(line);
  w_->Line("  gpu.return");
  w_->Line("}");
  return true;
}

// Host form: the grid as scf.for loops; the body split into phases at
// barriers and shuffles; values living across phases in per-thread
// buffers.
Status MlirPrinter::PrintHostKernel(const ir::Kernel& k) {
  CodeWriter body;
  CodeWriter* outer = w_;
  w_ = &body;
  body.Indent();
  slots_.clear();
  buffer_args_.clear();
  scopes_.assign(1, {});
  const int64_t tpb = k.launch.threads_per_block();
  bool multi = false;
  for (const Stmt& s : k.body) {
    if (s.kind == StmtKind::kBarrier || s.kind == StmtKind::kShuffle)
      multi = true;
  }
  std::string params;
  for (int b : module_.ArgumentBuffers()) {
    const Buffer& buf = module_.buffers[b];
    params +=
        (params.empty() ? "%" : ", %") + buf.name + ": " + MemrefType(buf);
  }
  std::vector<std::string> deallocs;
  for (const Buffer& b : module_.buffers) {
    if (b.space == BufferSpace::kShared) {
      body.Line("%" + b.name + " = memref.alloc() : " + MemrefType(b));
      deallocs.push_back("memref.dealloc %" + b.name + " : " + MemrefType(b));
    }
    if (b.space == BufferSpace::kConstant) {
      std::string ref = "%" + b.name + "_" + std::to_string(counter_++);
      body.Line(ref + " = memref.get_global @" + b.name + " : " +
                MemrefType(b));
      buffer_args_[b.name] = ref;
    }
  }
  std::vector<std::vector<PhaseItem>> phases(1);
  if (multi) {
    auto add_tl = [&](const std::string& name, const std::string& type) {
      if (thread_locals_.count(name)) return;
      thread_locals_.insert(name);
      std::string t = std::to_string(tpb) + "x" + type;
      thread_local_types_[name] = t;
      body.Line("%tl_" + name + " = memref.alloc() : memref<" + t + ">");
      deallocs.push_back("memref.dealloc %tl_" + name + " : memref<" + t + ">");
    };
    for (const Stmt& s : k.body) {
      if (s.kind == StmtKind::kLet || s.kind == StmtKind::kDeclare) {
        add_tl(s.name, s.value->width > 1
                           ? VectorType(s.value->type, s.value->width)
                           : ComputeType(s.value->type));
      } else if (s.kind == StmtKind::kShuffle) {
        add_tl(s.name, ComputeType(s.type));
        add_tl("xch_" + s.name, ComputeType(s.type));
      } else if (s.kind == StmtKind::kCall) {
        for (size_t i = 0; i < s.results.size(); ++i) {
          add_tl(s.results[i], ComputeType(s.result_types[i]));
        }
      }
    }
  }
  for (const Stmt& s : k.body) {
    if (s.kind == StmtKind::kBarrier) {
      phases.emplace_back();
    } else if (s.kind == StmtKind::kShuffle) {
      phases.back().push_back({nullptr, &s, nullptr});
      phases.emplace_back();
      phases.back().push_back({nullptr, nullptr, &s});
    } else {
      phases.back().push_back({&s, nullptr, nullptr});
    }
  }
  // Mutable variables not kept per thread: one slot each.
  ir::ForEachStmt(k.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kDeclare && !thread_locals_.count(s.name)) {
      slots_[s.name] = s.value->width > 1
                           ? VectorType(s.value->type, s.value->width)
                           : ComputeType(s.type);
    }
  });
  CollectVectorSlots(k.body);
  for (const auto& [name, type] : vector_slots_) slots_.erase(name);
  for (const auto& [name, type] : slots_) {
    body.Line(Slot(name) + " = memref.alloca() : memref<" + type + ">");
  }
  for (const auto& [name, type] : vector_slots_) {
    body.Line(Slot(name) + " = memref.alloca() : memref<" + type + ">");
  }
  const auto& T = k.launch.threads;
  const auto& B = k.launch.blocks;
  std::string c0 = Constant(Type::kIndex, 0), c1 = Constant(Type::kIndex, 1);
  std::string bounds[6];
  for (int i = 0; i < 3; ++i) {
    bounds[i] = Constant(Type::kIndex, T[i]);
    bounds[3 + i] = Constant(Type::kIndex, B[i]);
  }
  static const char* kBl[] = {"bl_z", "bl_y", "bl_x"};
  static const char* kTh[] = {"th_z", "th_y", "th_x"};
  for (int i = 0; i < 3; ++i) {
    body.Open("scf.for %" + std::string(kBl[i]) + " = " + c0 + " to " +
              bounds[3 + 2 - i] + " step " + c1 + " {");
    BindLet(kBl[i], std::string("%") + kBl[i]);
  }
  for (size_t p = 0; p < phases.size(); ++p) {
    if (phases.size() > 1) body.Line("// phase " + std::to_string(p));
    for (int i = 0; i < 3; ++i) {
      body.Open("scf.for %" + std::string(kTh[i]) + " = " + c0 + " to " +
                bounds[2 - i] + " step " + c1 + " {");
      BindLet(kTh[i], std::string("%") + kTh[i]);
    }
    scopes_.emplace_back();
    if (multi) {
      std::string tid =
          Emit("affine.apply affine_map<(d0, d1, d2) -> ((d2 * " +
               std::to_string(T[1]) + " + d1) * " + std::to_string(T[0]) +
               " + d0)>(%th_x, %th_y, %th_z)");
      BindLet("tid", tid);
    }
    for (const PhaseItem& item : phases[p]) {
      memo_.clear();
      if (item.stmt) {
        Status st = PrintStmt(*item.stmt);
        if (!st.ok()) return st;
      } else if (item.shuffle_write) {
        const Stmt& s = *item.shuffle_write;
        IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
        body.Line("memref.store " + v + ", %tl_xch_" + s.name + "[" +
                  *Lookup("tid") + "] : memref<" +
                  thread_local_types_["xch_" + s.name] + ">");
      } else {
        // name = (lane % lanes) + offset < lanes ? xch[tid + offset] : xch[tid]
        const Stmt& s = *item.shuffle_read;
        std::string tid = *Lookup("tid");
        // partner = tid + offset, or tid when the lane would leave its
        // group of `lanes`: offset * (1 - ((lane mod lanes) + offset)
        // floordiv lanes), the quotient being 0 or 1.
        std::string off = std::to_string(s.offset),
                    lanes = std::to_string(s.lanes);
        std::string partner =
            Emit("affine.apply affine_map<(d0) -> (d0 + " + off +
                 " - ((((d0 mod 32) mod " + lanes + ") + " + off +
                 ") floordiv " + lanes + ") * " + off + ")>(" + tid + ")");
        std::string mt = "memref<" + thread_local_types_["xch_" + s.name] + ">";
        std::string v =
            Emit("memref.load %tl_xch_" + s.name + "[" + partner + "] : " + mt);
        body.Line("memref.store " + v + ", %tl_" + s.name + "[" + tid +
                  "] : memref<" + thread_local_types_[s.name] + ">");
      }
    }
    scopes_.pop_back();
    for (int i = 0; i < 3; ++i) body.Close("}");
  }
  for (int i = 0; i < 3; ++i) body.Close("}");
  for (const std::string& d : deallocs) body.Line(d);
  body.Line("return");
  w_ = outer;
  w_->Line("func @" + k.name + "(" + params + ") {");
  std::string text = body.Take();
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) w_->Line(line);
  w_->Line("}");
  return true;
}

// Dense literal of a constant buffer (nested for N-d shapes).
std::string DenseLiteral(const Buffer& b, bool flat) {
  std::vector<int64_t> dims = b.shape.dims;
  size_t n = ir::IsFloat(b.type) ? b.float_data.size() : b.int_data.size();
  if (flat || dims.empty())
    dims = {static_cast<int64_t>(std::max<size_t>(n, 1))};
  auto elem = [&](size_t i) -> std::string {
    if (i >= n) return "0";
    if (b.type == Type::kBF16 || b.type == Type::kF16) {
      return std::to_string(
          static_cast<int16_t>(ir::EncodeHalf(b.type, b.float_data[i])));
    }
    if (ir::IsFloat(b.type)) return FloatConst(b.float_data[i], b.type);
    if (b.type == Type::kPred) return b.int_data[i] ? "1" : "0";
    return std::to_string(b.int_data[i]);
  };
  std::function<std::string(size_t, size_t&)> rec = [&](size_t d, size_t& at) {
    std::string s = "[";
    for (int64_t i = 0; i < dims[d]; ++i) {
      s += (i ? ", " : "");
      s += d + 1 == dims.size() ? elem(at++) : rec(d + 1, at);
    }
    return s + "]";
  };
  size_t at = 0;
  return "dense<" + rec(0, at) + ">";
}

Text MlirPrinter::Print() {
  CodeWriter body;
  w_ = &body;
  if (!host_) body.Indent();
  for (const ir::Function& f : module_.functions) {
    IXA_EMIT_TRY(PrintFunction(f));
  }
  if (module_.kernel) {
    if (host_) {
      IXA_EMIT_TRY(PrintHostKernel(*module_.kernel));
    } else {
      IXA_EMIT_TRY(PrintDeviceKernel(*module_.kernel));
    }
  }
  CodeWriter out;
  std::stringstream header(options_.header);
  std::string line;
  while (std::getline(header, line)) out.Line("// " + line);
  std::string name =
      module_.kernel ? module_.kernel->name : std::string("fusion");
  if (!host_) out.Open("gpu.module @" + name + "_module {");
  for (const Buffer& b : module_.buffers) {
    if (b.space != BufferSpace::kConstant) continue;
    out.Line("memref.global \"private\" constant @" + b.name + " : " +
             MemrefType(b) + " = " + DenseLiteral(b, module_.flattened));
  }
  for (const auto& [fn, sig] : externs_) {
    out.Line(FuncKeyword() + " private @" + fn + sig);
  }
  // Helpers and the helpers they call.
  std::set<std::string> all = helpers_;
  for (const std::string& h : all) {
    std::stringstream text(HelperText(h, FuncKeyword()));
    while (std::getline(text, line)) out.Line(line);
  }
  std::string result = out.Take();
  result += body.Take();
  if (!host_) result += "}\n";
  return result;
}

}  // namespace

Result<std::string> PrintMlir(const ir::Module& module,
                              const PrintOptions& options) {
  MlirPrinter printer(module, options);
  return printer.Print();
}

}  // namespace ixa::emit
