// The MLIR 14 printer of the kernel IR (docs/emitters.md §3): upstream
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
#include "emit/targets/mlir_printer.h"

namespace ixa::emit::mlir_detail {

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
    default:  // sub-byte and f8 types are legalized before printing
      break;
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
  if (CountMinMax(e) > 0) {
    // Affine maps have no min / max: a min or max at the top is a compare
    // and select of its sides; below the top, each outermost min / max
    // becomes a value of its own, read by the map as an extra dim.
    ExprContext* ctx = map.context();
    if (IsMinMaxKind(e.kind())) {
      IXA_ASSIGN_OR_RETURN(std::string a, ApplyExpr(e.lhs(), apply));
      IXA_ASSIGN_OR_RETURN(std::string b, ApplyExpr(e.rhs(), apply));
      std::string c = Emit(std::string("arith.cmpi ") +
                           (e.kind() == ExprKind::kMin ? "slt" : "sgt") + ", " +
                           a + ", " + b + " : index");
      return Emit("select " + c + ", " + a + ", " + b + " : index");
    }
    std::vector<Expr> parts;
    std::function<void(Expr)> collect = [&](Expr x) {
      if (IsMinMaxKind(x.kind())) {
        parts.push_back(x);
      } else if (x.IsBinary()) {
        collect(x.lhs());
        collect(x.rhs());
      }
    };
    collect(e);
    auto extended = std::make_shared<Node>(apply);
    std::vector<Variable> dims = map.dims();
    for (Expr part : parts) {
      IXA_ASSIGN_OR_RETURN(std::string v, ApplyExpr(part, apply));
      std::string name = "#mm" + std::to_string(counter_++);
      BindLet(name, v);
      extended->operands.insert(extended->operands.begin() + dims.size(),
                                ir::Var(name, Type::kIndex));
      dims.push_back(Variable{});
    }
    std::function<Expr(Expr)> rebuild = [&](Expr x) -> Expr {
      for (size_t i = 0; i < parts.size(); ++i) {
        if (x == parts[i]) return ctx->Dim(map.num_dims() + i);
      }
      if (!x.IsBinary()) return x;
      return ctx->Binary(x.kind(), rebuild(x.lhs()), rebuild(x.rhs()));
    };
    Expr flat = rebuild(e);
    extended->map = std::make_shared<const IndexingMap>(
        IndexingMap(ctx, dims, map.range_vars(), map.rt_vars(), {flat}));
    extended->result = 0;
    return ApplyExpr(flat, *extended);
  }
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

namespace {

// The error for an op the MLIR printer cannot print (also the answer of a
// family's helper for an op outside its family, which OpValue never sends).
Error NoFormForOp(const Node& n) {
  return Error::Unsupported("emit: the MLIR printer has no form for op '" +
                            std::string(ir::OpCodeName(n.op)) + "'");
}

}  // namespace

std::string MlirPrinter::BinaryOp(const std::string& op,
                                  const std::vector<std::string>& x, Type t) {
  return Emit(op + " " + x[0] + ", " + x[1] + " : " + ComputeType(t));
}

std::string MlirPrinter::HelperCall(const std::string& base, Type t,
                                    const std::vector<std::string>& x) {
  std::string name = base + "_" + ir::TypeName(t);
  NeedHelper(name);
  std::vector<std::string> types(x.size(), ComputeType(t));
  return Call(name, x, types, ComputeType(t));
}

Text MlirPrinter::OpValue(const Node& n, const std::vector<std::string>& x) {
  switch (ir::FamilyOf(n.op)) {
    case ir::OpFamily::kComplexParts:  // PrintModule refuses complex values
                                       // first
    case ir::OpFamily::kOther:
      break;
    case ir::OpFamily::kSign:
      return SignOpValue(n, x);
    case ir::OpFamily::kMathFunction:
      return MathFunctionValue(n, x);
    case ir::OpFamily::kArithmetic:
      return ArithmeticValue(n, x);
    case ir::OpFamily::kBitOp:
      return BitOpValue(n, x);
    case ir::OpFamily::kComparisonOrSelect:
      return ComparisonOrSelectValue(n, x);
    case ir::OpFamily::kConversion:
      return ConversionValue(n, x);
    case ir::OpFamily::kIndex:
      return IndexOpValue(n, x);
  }
  return NoFormForOp(n);
}

Text MlirPrinter::SignOpValue(const Node& n,
                              const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = ComputeType(t);
  const bool fl = ir::IsFloat(t);
  switch (n.op) {
    case OpCode::kAbs:
      if (fl) return Emit("math.abs " + x[0] + " : " + ct);
      if (ir::IsUnsignedInt(t)) return x[0];
      return HelperCall("ixa_iabs", t, x);
    case OpCode::kNeg:
      if (fl) return Emit("arith.negf " + x[0] + " : " + ct);
      {
        std::string z = Constant(t, 0);
        return Emit("arith.subi " + z + ", " + x[0] + " : " + ct);
      }
    case OpCode::kSign:
      if (fl) return HelperCall("ixa_fsign", t, x);
      if (ir::IsUnsignedInt(t)) {
        std::string z = Constant(t, 0);
        std::string ne = Emit("arith.cmpi ne, " + x[0] + ", " + z + " : " + ct);
        return Emit("arith.extui " + ne + " : i1 to " + ct);
      }
      return HelperCall("ixa_isign", t, x);
    case OpCode::kIsFinite: {
      std::string a =
          Emit("math.abs " + x[0] + " : " + ComputeType(n.operand_type));
      std::string inf = ConstantFloat(n.operand_type, 1.0 / 0.0);
      return Emit("arith.cmpf one, " + a + ", " + inf + " : " +
                  ComputeType(n.operand_type));
    }
    default:
      break;
  }
  return NoFormForOp(n);
}

Text MlirPrinter::MathFunctionValue(const Node& n,
                                    const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = ComputeType(t);
  switch (n.op) {
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
    // MLIR 14's math dialect has atan but none of the others: libm calls
    // (host: also atan, which the host pass list does not lower).
    case OpCode::kAcos:
      return RoundTo(t, MathOp("", "acos", false, t, x));
    case OpCode::kAcosh:
      return RoundTo(t, MathOp("", "acosh", false, t, x));
    case OpCode::kAsin:
      return RoundTo(t, MathOp("", "asin", false, t, x));
    case OpCode::kAsinh:
      return RoundTo(t, MathOp("", "asinh", false, t, x));
    case OpCode::kAtan:
      return RoundTo(t, MathOp("math.atan", "atan", false, t, x));
    case OpCode::kAtanh:
      return RoundTo(t, MathOp("", "atanh", false, t, x));
    case OpCode::kCosh:
      return RoundTo(t, MathOp("", "cosh", false, t, x));
    case OpCode::kSinh:
      return RoundTo(t, MathOp("", "sinh", false, t, x));
    case OpCode::kAtan2:
      return RoundTo(t, MathOp("math.atan2", "atan2", false, t, x));
    case OpCode::kFloor:
      return MathOp("math.floor", "floor", true, t, x);
    case OpCode::kCeil:
      return MathOp("math.ceil", "ceil", true, t, x);
    case OpCode::kRoundAfz:
      return MathOp("", "round", false, t, x);
    case OpCode::kRoundEven:
      return MathOp("", "nearbyint", false, t, x);
    default:
      break;
  }
  return NoFormForOp(n);
}

Text MlirPrinter::ArithmeticValue(const Node& n,
                                  const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = ComputeType(t);
  const bool fl = ir::IsFloat(t);
  const bool sgn = ir::IsSignedInt(t);
  switch (n.op) {
    case OpCode::kAdd:
      if (t == Type::kPred) return BinaryOp("arith.ori", x, t);
      return fl ? RoundTo(t, BinaryOp("arith.addf", x, t))
                : BinaryOp("arith.addi", x, t);
    case OpCode::kSub:
      return fl ? RoundTo(t, BinaryOp("arith.subf", x, t))
                : BinaryOp("arith.subi", x, t);
    case OpCode::kMul:
      if (t == Type::kPred) return BinaryOp("arith.andi", x, t);
      return fl ? RoundTo(t, BinaryOp("arith.mulf", x, t))
                : BinaryOp("arith.muli", x, t);
    case OpCode::kDiv:
      if (fl) return RoundTo(t, BinaryOp("arith.divf", x, t));
      return HelperCall("ixa_idiv", t, x);
    case OpCode::kRem:
      if (fl) return RoundTo(t, BinaryOp("arith.remf", x, t));
      return HelperCall("ixa_irem", t, x);
    case OpCode::kMax:
      if (fl) return HelperCall("ixa_fmax", t, x);
      {
        std::string c =
            Emit(std::string("arith.cmpi ") + (sgn ? "sgt" : "ugt") + ", " +
                 x[0] + ", " + x[1] + " : " + ct);
        return Emit("select " + c + ", " + x[0] + ", " + x[1] + " : " + ct);
      }
    case OpCode::kMin:
      if (fl) return HelperCall("ixa_fmin", t, x);
      {
        std::string c =
            Emit(std::string("arith.cmpi ") + (sgn ? "slt" : "ult") + ", " +
                 x[0] + ", " + x[1] + " : " + ct);
        return Emit("select " + c + ", " + x[0] + ", " + x[1] + " : " + ct);
      }
    case OpCode::kPow:
      if (fl) {
        // x^0 = 1 and 1^y = 1 whatever the other operand (XLA; the host
        // libm answers a quiet NaN for a signalling one).
        std::string p = MathOp("math.powf", "pow", false, t, x);
        std::string zero =
            Emit("arith.constant " + FloatConst(0, t) + " : " + ct);
        std::string one =
            Emit("arith.constant " + FloatConst(1, t) + " : " + ct);
        std::string b0 =
            Emit("arith.cmpf oeq, " + x[1] + ", " + zero + " : " + ct);
        std::string a1 =
            Emit("arith.cmpf oeq, " + x[0] + ", " + one + " : " + ct);
        std::string either = Emit("arith.ori " + b0 + ", " + a1 + " : i1");
        return RoundTo(
            t, Emit("select " + either + ", " + one + ", " + p + " : " + ct));
      }
      return HelperCall("ixa_ipow", t, x);
    default:
      break;
  }
  return NoFormForOp(n);
}

Text MlirPrinter::BitOpValue(const Node& n, const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = ComputeType(t);
  switch (n.op) {
    case OpCode::kNot:
      if (t == Type::kPred) {
        std::string one = Constant(Type::kPred, 1);
        return Emit("arith.xori " + x[0] + ", " + one + " : i1");
      }
      {
        std::string ones = Constant(t, -1);
        return Emit("arith.xori " + x[0] + ", " + ones + " : " + ct);
      }
    case OpCode::kPopcnt:
      return Emit("math.ctpop " + x[0] + " : " + ct);
    case OpCode::kClz:
      return Emit("math.ctlz " + x[0] + " : " + ct);
    case OpCode::kAnd:
      return BinaryOp("arith.andi", x, t);
    case OpCode::kOr:
      return BinaryOp("arith.ori", x, t);
    case OpCode::kXor:
      return BinaryOp("arith.xori", x, t);
    case OpCode::kShl:
      return HelperCall("ixa_shl", t, x);
    case OpCode::kShrL:
      return HelperCall("ixa_shr_logical", t, x);
    case OpCode::kShrA:
      return HelperCall("ixa_shr_arith", t, x);
    default:
      break;
  }
  return NoFormForOp(n);
}

Text MlirPrinter::ComparisonOrSelectValue(const Node& n,
                                          const std::vector<std::string>& x) {
  const Type t = n.type;
  const std::string ct = ComputeType(t);
  const bool sgn = ir::IsSignedInt(t);
  switch (n.op) {
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
      if (ir::IsFloat(t)) {
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
    default:
      break;
  }
  return NoFormForOp(n);
}

Text MlirPrinter::ConversionValue(const Node& n,
                                  const std::vector<std::string>& xs) {
  const Type t = n.type;
  const std::string ct = ComputeType(t);
  const bool fl = ir::IsFloat(t);
  switch (n.op) {
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
      std::string s = ToStorage(from, xs[0]);
      std::string fs = StorageType(from), ts = StorageType(t);
      std::string b =
          fs == ts ? s : Emit("arith.bitcast " + s + " : " + fs + " to " + ts);
      return FromStorage(t, b);
    }
    default:
      break;
  }
  return NoFormForOp(n);
}

Text MlirPrinter::IndexOpValue(const Node& n,
                               const std::vector<std::string>& x) {
  switch (n.op) {
    case OpCode::kToIndex: {
      const Type from = n.operand_type;
      if (ir::IsUnsignedInt(from) && ir::TypeBits(from) < 64) {
        std::string w =
            Emit("arith.extui " + x[0] + " : " + ComputeType(from) + " to i64");
        return Emit("arith.index_cast " + w + " : i64 to index");
      }
      if (from == Type::kU64) {  // saturates at the int64 maximum
        std::string zero = Emit("arith.constant 0 : i64");
        std::string big =
            Emit("arith.cmpi slt, " + x[0] + ", " + zero + " : i64");
        std::string max = Emit("arith.constant 9223372036854775807 : i64");
        std::string s =
            Emit("select " + big + ", " + max + ", " + x[0] + " : i64");
        return Emit("arith.index_cast " + s + " : i64 to index");
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
    default:
      break;
  }
  return NoFormForOp(n);
}

// The helper functions' text, by name (`base_type` or `base_from_to`).
}  // namespace ixa::emit::mlir_detail
