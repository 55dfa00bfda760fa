// The MLIR printer's statements, functions and kernels (device form:
// gpu.module / gpu.func; host form: the grid as loops and phases).
#include "emit/targets/mlir_printer.h"

namespace ixa::emit::mlir_detail {

namespace {

// The memref.atomic_rmw kind doing `op` on elements of `t`, or "" where
// there is none (16-bit floats are stored as i16 bits, small integers
// have no hardware atomic, float max / min propagate NaN).
std::string AtomicRmwKind(ir::AtomicOp op, Type t) {
  const bool is_signed = t == Type::kS32 || t == Type::kS64;
  const bool is_unsigned = t == Type::kU32 || t == Type::kU64;
  switch (op) {
    case ir::AtomicOp::kCombiner:
      return "";
    case ir::AtomicOp::kAdd:
      if (t == Type::kF32 || t == Type::kF64) return "addf";
      return is_signed || is_unsigned ? "addi" : "";
    case ir::AtomicOp::kMax:
      return is_signed ? "maxs" : is_unsigned ? "maxu" : "";
    case ir::AtomicOp::kMin:
      return is_signed ? "mins" : is_unsigned ? "minu" : "";
  }
  return "";
}

}  // namespace

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
  return Status();
}

void MlirPrinter::StoreLocal(const std::string& name, const std::string& v) {
  if (thread_locals_.count(name)) {
    w_->Line("memref.store " + v + ", %tl_" + name + "[" + *Lookup("tid") +
             "] : memref<" + thread_local_types_[name] + ">");
  } else {
    w_->Line("memref.store " + v + ", " + Slot(name) + "[] : memref<" +
             slots_[name] + ">");
  }
}

Status MlirPrinter::PrintStmt(const Stmt& s) {
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
        StoreLocal(s.name, v);
      } else {
        BindLet(s.name, v);
      }
      return Status();
    }
    case StmtKind::kDeclare:
    case StmtKind::kAssign: {
      IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
      StoreLocal(s.name, v);
      return Status();
    }
    case StmtKind::kStore: {
      const Buffer& b = module_.buffers[s.buffer];
      IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
      IXA_ASSIGN_OR_RETURN(std::string idx, Indices(s.indices, b, s.flat));
      if (s.width > 1) {
        w_->Line("vector.store " + v + ", " + BufferRef(s.buffer) + idx +
                 " : " + MemrefType(b) + ", " + VectorType(s.type, s.width));
        return Status();
      }
      std::string stored = ToStorage(s.type, v);
      w_->Line("memref.store " + stored + ", " + BufferRef(s.buffer) + idx +
               " : " + MemrefType(b));
      return Status();
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
      return Status();
    }
    case StmtKind::kIf: {
      IXA_ASSIGN_OR_RETURN(std::string c, Value(s.value));
      w_->Open("scf.if " + c + " {");
      IXA_RETURN_IF_ERROR(PrintBlock(s.body));
      if (!s.else_body.empty()) {
        w_->Close("} else {");
        w_->Indent();
        IXA_RETURN_IF_ERROR(PrintBlock(s.else_body));
      }
      w_->Close("}");
      return Status();
    }
    case StmtKind::kBarrier:
      if (host_) return Error::Invalid("emit: a barrier inside a nested block");
      w_->Line("gpu.barrier");
      return Status();
    case StmtKind::kShuffle:
      return PrintShuffle(s);
    case StmtKind::kCall:
      return PrintCall(s);
    case StmtKind::kReturn: {
      if (capture_return_) {
        for (const Val& a : s.args) {
          IXA_ASSIGN_OR_RETURN(std::string v, Value(a));
          capture_return_->push_back(v);
        }
        return Status();
      }
      std::string vals, types;
      for (size_t i = 0; i < s.args.size(); ++i) {
        IXA_ASSIGN_OR_RETURN(std::string v, Value(s.args[i]));
        vals += (i ? ", " : "") + v;
        types += (i ? ", " : "") + ComputeType(s.args[i]->type);
      }
      w_->Line("return " + vals + (vals.empty() ? "" : " : " + types));
      return Status();
    }
    case StmtKind::kAtomic:
      return PrintAtomic(s);
    case StmtKind::kComment:
      w_->Line("// " + s.text);
      return Status();
  }
  return Error::Unsupported("emit: unknown IR statement");
}

// A gpu.shuffle down of a value of any width: 64-bit values travel as two
// 32-bit halves, narrower ones widened to i32.
Status MlirPrinter::PrintShuffle(const Stmt& s) {
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
    result =
        ct == "f64" ? Emit("arith.bitcast " + both + " : i64 to f64") : both;
  } else {
    std::string wide = Emit("arith.extui " + v + " : " + ct + " to i32");
    std::string r = shuffle(wide, "i32");
    result = Emit("arith.trunci " + r + " : i32 to " + ct);
  }
  BindLet(s.name, result);
  return Status();
}

// A call of an IR function (inlined inside a generic_atomic_rmw region).
Status MlirPrinter::PrintCall(const Stmt& s) {
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
    for (size_t i = 0; i < s.results.size(); ++i) BindLet(s.results[i], r[i]);
    return Status();
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
  w_->Line(lhs + " = call @" + s.name + "(" + a + ") : (" + t + ") -> " + ret);
  for (size_t i = 0; i < s.results.size(); ++i) {
    std::string v = s.results.size() > 1 ? r + "#" + std::to_string(i) : r;
    if (thread_locals_.count(s.results[i])) {
      StoreLocal(s.results[i], v);
    } else {
      BindLet(s.results[i], v);
    }
  }
  return Status();
}

// An atomic update: a read-modify-write on the host, the hardware's
// memref.atomic_rmw where it has the combiner, else a
// memref.generic_atomic_rmw region with the combiner inlined.
Status MlirPrinter::PrintAtomic(const Stmt& s) {
  const Buffer& b = module_.buffers[s.buffer];
  IXA_ASSIGN_OR_RETURN(std::string v, Value(s.value));
  IXA_ASSIGN_OR_RETURN(std::string idx, Indices(s.indices, b, s.flat));
  std::string ct = ComputeType(s.type), st = StorageType(s.type);
  if (host_) {
    // Threads run one after another: read-modify-write.
    std::string raw = Emit("memref.load " + BufferRef(s.buffer) + idx + " : " +
                           MemrefType(b));
    std::string old = FromStorage(s.type, raw);
    std::string n = Call(s.name, {old, v}, {ct, ct}, ct);
    w_->Line("memref.store " + ToStorage(s.type, n) + ", " +
             BufferRef(s.buffer) + idx + " : " + MemrefType(b));
    return Status();
  }
  std::string r = "%rmw" + std::to_string(counter_++);
  if (std::string kind = AtomicRmwKind(s.atomic_op, s.type); !kind.empty()) {
    // The combiner is one of memref.atomic_rmw's kinds (the hardware's
    // read-modify-write on the GPU).
    w_->Line(r + " = memref.atomic_rmw " + kind + " " + v + ", " +
             BufferRef(s.buffer) + idx + " : (" + st + ", " + MemrefType(b) +
             ") -> " + st);
    return Status();
  }
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
  return Status();
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

void MlirPrinter::ZeroSlot(const std::string& name, Type type, int width) {
  std::string st = StorageType(type);
  std::string zero =
      st[0] == 'f' ? Emit("arith.constant " + FloatConst(0, type) + " : " + st)
                   : Emit("arith.constant 0 : " + st);
  for (int k = 0; k < width; ++k) {
    w_->Line("memref.store " + zero + ", " + Slot(name) + "[" +
             Constant(Type::kIndex, k) + "] : memref<" + vector_slots_[name] +
             ">");
  }
}

Status MlirPrinter::PrintHostVectorStmt(const Stmt& s) {
  auto lane_offset = [&](const std::string& base, int k) {
    return Emit("affine.apply affine_map<(d0) -> (d0 + " + std::to_string(k) +
                ")>(" + base + ")");
  };
  switch (s.kind) {
    case StmtKind::kLet: {
      // name = lanes inserted into a zero vector (the elements of whole
      // packed bytes), or a vector load of `width` elements from a buffer.
      if (s.value->kind == NodeKind::kInsert) {
        std::vector<const Node*> inserts;
        const Node* at = s.value.get();
        for (; at->kind == NodeKind::kInsert; at = at->operands[0].get()) {
          inserts.push_back(at);
        }
        if (at->kind != NodeKind::kConst) {
          return Error::Unsupported(
              "emit: a vector value the host form cannot hold");
        }
        ZeroSlot(s.name, s.value->type, s.value->width);
        for (auto it = inserts.rbegin(); it != inserts.rend(); ++it) {
          IXA_ASSIGN_OR_RETURN(std::string lane, Value((*it)->operands[1]));
          IXA_ASSIGN_OR_RETURN(std::string x, Value((*it)->operands[2]));
          w_->Line("memref.store " + ToStorage((*it)->type, x) + ", " +
                   Slot(s.name) + "[" + lane + "] : memref<" +
                   vector_slots_[s.name] + ">");
        }
        return Status();
      }
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
      return Status();
    }
    case StmtKind::kDeclare:
      ZeroSlot(s.name, s.value->type, s.value->width);  // a zero vector
      return Status();
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
      return Status();
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
      return Status();
    }
    default:
      return Error::Unsupported(
          "emit: a vector statement the host form cannot print");
  }
}

CodeWriter* MlirPrinter::BeginBody(CodeWriter* body) {
  CodeWriter* outer = w_;
  w_ = body;
  body->Indent();
  slots_.clear();
  buffer_args_.clear();
  scopes_.assign(1, {});
  return outer;
}

void MlirPrinter::DeclareSlots(CodeWriter& body, const Block& block,
                               const std::set<std::string>* skip) {
  ir::ForEachStmt(block, [&](const Stmt& s) {
    if (s.kind == StmtKind::kDeclare && !(skip && skip->count(s.name))) {
      slots_[s.name] = s.value->width > 1
                           ? VectorType(s.value->type, s.value->width)
                           : ComputeType(s.type);
    }
  });
  CollectVectorSlots(block);
  for (const auto& [name, type] : vector_slots_) slots_.erase(name);
  for (const auto& [name, type] : slots_) {
    body.Line(Slot(name) + " = memref.alloca() : memref<" + type + ">");
  }
  for (const auto& [name, type] : vector_slots_) {
    body.Line(Slot(name) + " = memref.alloca() : memref<" + type + ">");
  }
}

Status MlirPrinter::PrintFunction(const ir::Function& f) {
  CodeWriter body;
  CodeWriter* outer = BeginBody(&body);
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
  for (size_t i = 0; i < module_.buffers.size(); ++i) {
    const Buffer& b = module_.buffers[i];
    if (b.space != BufferSpace::kConstant) continue;
    std::string ref = "%" + b.name + "_" + std::to_string(counter_++);
    body.Line(ref + " = memref.get_global @" + b.name + " : " + MemrefType(b));
    buffer_args_[b.name] = ref;
  }
  DeclareSlots(body, f.body, /*skip=*/nullptr);
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
  w_->Lines(body.Take());
  w_->Line("}");
  return Status();
}

Status MlirPrinter::PrintDeviceKernel(const ir::Kernel& k) {
  CodeWriter body;
  CodeWriter* outer = BeginBody(&body);
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
  DeclareSlots(body, k.body, /*skip=*/nullptr);
  Status st = PrintBlock(k.body);
  w_ = outer;
  if (!st.ok()) return st;
  w_->Line("gpu.func @" + k.name + "(" + params + ")" +
           (workgroup.empty() ? "" : " workgroup(" + workgroup + ")") +
           " kernel {");
  w_->Lines(body.Take());
  w_->Line("  gpu.return");
  w_->Line("}");
  return Status();
}

// Host form: the grid as scf.for loops; the body split into phases at
// barriers and shuffles; values living across phases in per-thread
// buffers.
Status MlirPrinter::PrintHostKernel(const ir::Kernel& k) {
  CodeWriter body;
  CodeWriter* outer = BeginBody(&body);
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
  DeclareSlots(body, k.body, &thread_locals_);
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
  w_->Lines(body.Take());
  w_->Line("}");
  return Status();
}

// Dense literal of a constant buffer (nested for N-d shapes).
Text MlirPrinter::Print() {
  CodeWriter body;
  w_ = &body;
  if (!host_) body.Indent();
  for (const ir::Function& f : module_.functions) {
    IXA_RETURN_IF_ERROR(PrintFunction(f));
  }
  if (module_.kernel) {
    if (host_) {
      IXA_RETURN_IF_ERROR(PrintHostKernel(*module_.kernel));
    } else {
      IXA_RETURN_IF_ERROR(PrintDeviceKernel(*module_.kernel));
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

}  // namespace ixa::emit::mlir_detail

namespace ixa::emit {

Result<std::string> PrintMlir(const ir::Module& module,
                              const PrintOptions& options) {
  mlir_detail::MlirPrinter printer(module, options);
  return printer.Print();
}

}  // namespace ixa::emit
