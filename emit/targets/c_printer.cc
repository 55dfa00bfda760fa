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
#include <map>
#include <set>
#include <sstream>
#include <variant>

#include "emit/targets/c_printer_internal.h"

namespace ixa::emit {
namespace c_printer {
namespace {

// `(x == 0)` as a condition reads `if ((x == 0))`, which clang's
// -Wparentheses-equality rejects under -Werror: one pair of parentheses
// around the whole expression goes.
std::string WithoutOuterParentheses(const std::string& e) {
  if (e.size() < 2 || e.front() != '(' || e.back() != ')') return e;
  int depth = 0;
  for (size_t i = 0; i + 1 < e.size(); ++i) {
    if (e[i] == '(') ++depth;
    if (e[i] == ')') --depth;
    if (depth == 0) return e;  // the first '(' closes before the end
  }
  return e.substr(1, e.size() - 2);
}

}  // namespace

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

std::string CPrinter::HardwareAtomic(ir::AtomicOp op, Type t,
                                     const std::string& element,
                                     const std::string& value) {
  // CUDA's atomics take int, unsigned int, unsigned long long (add) and
  // long long (max / min): the 64-bit integer types are cast to them
  // (int64_t is `long` here). Adds wrap, so s64 adds as unsigned.
  auto call = [&](const std::string& fn, const std::string& as) {
    if (as.empty()) return fn + "(&" + element + ", " + value + ")";
    return fn + "(reinterpret_cast<" + as + "*>(&" + element +
           "), static_cast<" + as + ">(" + value + "))";
  };
  switch (op) {
    case ir::AtomicOp::kCombiner:
      return "";
    case ir::AtomicOp::kAdd:
      switch (t) {
        case Type::kF32:
        case Type::kF64:
        case Type::kS32:
        case Type::kU32:
          return call("atomicAdd", "");
        case Type::kS64:
        case Type::kU64:
          return call("atomicAdd", "unsigned long long");
        // The 16-bit adds (sm_70 f16, sm_80 bf16) round the exact sum
        // once, as the f32 add rounded to the type does (f32 holds the
        // sum of two halves to within double-rounding safety).
        case Type::kF16:
          return Helper("ixa_atomic_add_f16") + "(&" + element + ", " + value +
                 ")";
        case Type::kBF16:
          return Helper("ixa_atomic_add_bf16") + "(&" + element + ", " + value +
                 ")";
        default:
          return "";
      }
    case ir::AtomicOp::kMax:
    case ir::AtomicOp::kMin: {
      const std::string fn =
          op == ir::AtomicOp::kMax ? "atomicMax" : "atomicMin";
      switch (t) {
        case Type::kS32:
        case Type::kU32:
          return call(fn, "");
        case Type::kS64:
          return call(fn, "long long");
        case Type::kU64:
          return call(fn, "unsigned long long");
        default:
          return "";  // float max / min propagate NaN: no hardware op
      }
    }
  }
  return "";
}

Status CPrinter::PrintBlock(const Block& block, CodeWriter& w) {
  for (const Stmt& s : block) IXA_RETURN_IF_ERROR(PrintStmt(s, w));
  return Status();
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
      return Status();
    }
    case StmtKind::kDeclare: {
      IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.value));
      if (thread_locals_.count(s.name)) {
        w.Line(s.name + "[tid] = " + v + ";");
      } else {
        w.Line(DeclType(s.value) + " " + s.name + " = " + v + ";");
      }
      return Status();
    }
    case StmtKind::kAssign: {
      // A lane insert into the same vector is an element store.
      const Val& v = s.value;
      if (v->kind == NodeKind::kInsert &&
          v->operands[0]->kind == NodeKind::kVar &&
          v->operands[0]->name == s.name) {
        IXA_ASSIGN_OR_RETURN(std::string lane, Expr(v->operands[1]));
        IXA_ASSIGN_OR_RETURN(std::string x, Stored(v->type, v->operands[2]));
        w.Line(VarRef(s.name) + ".v[" + lane + "] = " + x + ";");
        return Status();
      }
      IXA_ASSIGN_OR_RETURN(std::string x, Expr(v));
      w.Line(VarRef(s.name) + " = " + x + ";");
      return Status();
    }
    case StmtKind::kStore: {
      const Buffer& b = module_.buffers[s.buffer];
      if (s.width == 1) {
        IXA_ASSIGN_OR_RETURN(std::string a, Access(b, s.indices, s.flat));
        IXA_ASSIGN_OR_RETURN(std::string x, Stored(s.type, s.value));
        w.Line(a + " = " + x + ";");
        return Status();
      }
      IXA_ASSIGN_OR_RETURN(std::string x, Expr(s.value));
      IXA_ASSIGN_OR_RETURN(std::string off, Expr(s.indices[0]));
      Use("ixa_vstore");
      std::string base = b.name;
      if (b.shape.rank() >= 2 && b.space != BufferSpace::kGlobal) {
        base = "reinterpret_cast<" + StorageType(b.type) + "*>(" + b.name + ")";
      }
      w.Line("ixa_vstore(" + base + " + " + off + ", " + x + ");");
      return Status();
    }
    case StmtKind::kFor:
      w.Open("for (" + CType(Type::kIndex) + " " + s.name + " = " +
             std::to_string(s.lo) + "; " + s.name + " < " +
             std::to_string(s.hi) + "; ++" + s.name + ") {");
      IXA_RETURN_IF_ERROR(PrintBlock(s.body, w));
      w.Close("}");
      return Status();
    case StmtKind::kIf: {
      IXA_ASSIGN_OR_RETURN(std::string c, Expr(s.value));
      w.Open("if (" + WithoutOuterParentheses(c) + ") {");
      IXA_RETURN_IF_ERROR(PrintBlock(s.body, w));
      if (!s.else_body.empty()) {
        w.Close("} else {");
        w.Indent();
        IXA_RETURN_IF_ERROR(PrintBlock(s.else_body, w));
      }
      w.Close("}");
      return Status();
    }
    case StmtKind::kBarrier:
      if (!cuda_)
        return Error::Invalid("emit: a barrier inside a nested block");
      w.Line("__syncthreads();");
      return Status();
    case StmtKind::kShuffle:
      return PrintShuffle(s, w);
    case StmtKind::kCall:
      return PrintCall(s, w);
    case StmtKind::kReturn: {
      if (s.args.size() == 1) {
        IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.args[0]));
        w.Line("return " + v + ";");
        return Status();
      }
      for (size_t i = 0; i < s.args.size(); ++i) {
        IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.args[i]));
        w.Line("*ret" + std::to_string(i) + " = " + v + ";");
      }
      w.Line("return;");
      return Status();
    }
    case StmtKind::kAtomic:
      return PrintAtomic(s, w);
    case StmtKind::kComment:
      w.Line("// " + s.text);
      return Status();
  }
  return Error::Unsupported("emit: unknown IR statement");
}

// A __shfl_down_sync of the value (complex values part by part).
Status CPrinter::PrintShuffle(const Stmt& s, CodeWriter& w) {
  if (!cuda_) return Error::Invalid("emit: a shuffle inside a nested block");
  IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.value));
  // The value travels in a type __shfl_down_sync is overloaded for
  // that holds it exactly: f16 and bf16 compute in float and travel
  // as float; narrow integers and pred widen to int.
  const std::string ct = CType(s.type);
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
  // of the kernel, outside every branch): the mask names them all
  // (those the block has). __activemask() would name the lanes that
  // happen to be converged, which CUDA does not promise to be all of
  // them.
  const std::string shape =
      ", " + std::to_string(s.offset) + ", " + std::to_string(s.lanes) + ")";
  if (ir::IsComplex(s.type)) {  // the parts travel one by one
    w.Line("const " + ct + " " + s.name + "_from = " + v + ";");
    w.Line("const " + ct + " " + s.name + " = " + ct + "{__shfl_down_sync(" +
           shuffle_mask_ + ", " + s.name + "_from.re" + shape +
           ", __shfl_down_sync(" + shuffle_mask_ + ", " + s.name + "_from.im" +
           shape + "};");
    return Status();
  }
  w.Line("const " + ct + " " + s.name + " = static_cast<" + ct +
         ">(__shfl_down_sync(" + shuffle_mask_ + ", static_cast<" + carrier +
         ">(" + v + "), " + std::to_string(s.offset) + ", " +
         std::to_string(s.lanes) + "));");
  return Status();
}

// A call of an IR function: one result is returned, several are written
// through pointers.
Status CPrinter::PrintCall(const Stmt& s, CodeWriter& w) {
  std::string args;
  const ir::Function* f = module_.FindFunction(s.name);
  IXA_CHECK_MSG(f != nullptr, s.name);
  if (calls_ != nullptr) calls_->insert(s.name);
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
      w.Line("const " + CType(s.result_types[0]) + " " + s.results[0] + " = " +
             s.name + "(" + args + ");");
    }
    return Status();
  }
  for (size_t i = 0; i < s.results.size(); ++i) {
    if (!thread_locals_.count(s.results[i])) {
      w.Line(CType(s.result_types[i]) + " " + s.results[i] + ";");
    }
    args += (args.empty() ? "&" : ", &") + VarRef(s.results[i]);
  }
  w.Line(s.name + "(" + args + ");");
  return Status();
}

// An atomic update: a plain read-modify-write when threads run one after
// another, else the hardware atomic or ixa_atomic_update's CAS loop.
Status CPrinter::PrintAtomic(const Stmt& s, CodeWriter& w) {
  const Buffer& b = module_.buffers[s.buffer];
  IXA_ASSIGN_OR_RETURN(std::string v, Expr(s.value));
  IXA_ASSIGN_OR_RETURN(std::string a, Access(b, s.indices, s.flat));
  std::string st = StorageType(s.type);
  if (!cuda_) {
    if (calls_ != nullptr) calls_->insert(s.name);
    // Threads run one after another: a plain read-modify-write is the
    // deterministic simulation of the atomic update.
    w.Line(a + " = " +
           ToStorage(s.type,
                     s.name + "(" + FromStorage(s.type, a) + ", " + v + ")") +
           ";");
    return Status();
  }
  std::string value = Fresh("upd");
  if (std::string hw = HardwareAtomic(s.atomic_op, s.type, a, value);
      !hw.empty()) {
    // The combiner is the hardware's read-modify-write; its result
    // unused, nvcc emits a reduction (red.global.*).
    w.Line("const " + CType(s.type) + " " + value + " = " + v + ";");
    w.Line(hw + ";");
    return Status();
  }
  Use("ixa_atomic_update");
  if (calls_ != nullptr) calls_->insert(s.name);
  w.Line("const " + CType(s.type) + " " + value + " = " + v + ";");
  w.Line("ixa_atomic_update(&" + a + ", [&](" + st + " old) -> " + st +
         " { return " +
         ToStorage(s.type, s.name + "(" + FromStorage(s.type, "old") + ", " +
                               value + ")") +
         "; });");
  return Status();
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
    params += (params.empty() ? "" : ", ") + CType(p.type) + " " + p.name;
  }
  std::string ret = "void";
  if (f.results.size() == 1) {
    ret = CType(f.results[0]);
  } else {
    for (size_t i = 0; i < f.results.size(); ++i) {
      params += (params.empty() ? "" : ", ") + CType(f.results[i]) + "* ret" +
                std::to_string(i);
    }
  }
  w.Open(Qualifier() + " " + ret + " " + f.name + "(" + params + ") {");
  IXA_RETURN_IF_ERROR(PrintBlock(f.body, w));
  w.Close("}");
  return Status();
}

namespace {
// The lanes of the caller's warp that a block of `launch` threads has.
std::string ShuffleMask(const ir::Launch& launch) {
  const int64_t threads = launch.threads_per_block();
  const int64_t partial = threads % 32;
  if (partial == 0) return "0xffffffffu";
  char last[16];
  std::snprintf(last, sizeof last, "0x%08xu",
                static_cast<unsigned>((uint64_t{1} << partial) - 1));
  if (threads < 32) return last;
  const std::string full = std::to_string(threads - partial);
  const std::string linear =
      launch.threads[1] * launch.threads[2] == 1
          ? "threadIdx.x"
          : "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
            "threadIdx.z))";
  return "(" + linear + " < " + full + "u ? 0xffffffffu : " + last + ")";
}
}  // namespace

Status CPrinter::PrintCudaKernel(const ir::Kernel& k, CodeWriter& w) {
  shuffle_mask_ = ShuffleMask(k.launch);
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
  // The block size, and at least one block per multiprocessor: ptxas then
  // bounds registers by the block size alone (255 at 128 threads). With
  // the block size only, it saved registers across calls into CUDA's
  // math library (f64 pow) by spilling to local memory.
  w.Open("extern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(k.launch.threads_per_block()) + ", 1) " + k.name + "(" +
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
  // The body is printed first: it says which grid ids it reads, and only
  // those are declared.
  CodeWriter body;
  grid_ids_printed_ = {};
  IXA_RETURN_IF_ERROR(PrintBlock(k.body, body));
  static const char* kIds[] = {"th_x = threadIdx.x", "th_y = threadIdx.y",
                               "th_z = threadIdx.z", "bl_x = blockIdx.x",
                               "bl_y = blockIdx.y",  "bl_z = blockIdx.z"};
  for (int i = 0; i < 6; ++i) {
    if (grid_ids_printed_[i]) {
      w.Line("const " + CType(Type::kIndex) + " " + kIds[i] + ";");
    }
  }
  for (const Buffer& b : module_.buffers) {
    if (b.space != BufferSpace::kShared) continue;
    std::string dims;
    for (int64_t d : b.shape.dims) dims += "[" + std::to_string(d) + "]";
    // 16-byte aligned: vector accesses of up to 16 bytes may use the tile.
    w.Line("__shared__ __attribute__((aligned(16))) " + StorageType(b.type) +
           " " + b.name + dims + ";");
  }
  w.Lines(body.text());
  w.Close("}");
  return Status();
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
    w.Line("static thread_local " + CType(x.type) + " " + x.name + "[" +
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
        names.push_back({s.name, CType(s.type)});
      } else if (s.kind == StmtKind::kCall) {
        for (size_t i = 0; i < s.results.size(); ++i) {
          names.push_back({s.results[i], CType(s.result_types[i])});
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
      // Some phases (a shuffle's exchange) read it, others not.
      w.Line("[[maybe_unused]] const int64_t tid = (th_z * " +
             std::to_string(T[1]) + " + th_y) * " + std::to_string(T[0]) +
             " + th_x;");
    }
    for (const PhaseItem& item : phases[p]) {
      if (const auto* line = std::get_if<std::string>(&item)) {
        w.Line(*line);
      } else {
        IXA_RETURN_IF_ERROR(PrintStmt(*std::get<const Stmt*>(item), w));
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
  return Status();
}

Text CPrinter::Print() {
  // Print the body first: it decides which helpers are needed.
  CodeWriter body;
  for (const Buffer& b : module_.buffers) {
    if (b.space != BufferSpace::kConstant) continue;
    std::string init;
    const bool complex = ir::IsComplex(b.type);
    size_t n = complex               ? b.float_data.size() / 2
               : ir::IsFloat(b.type) ? b.float_data.size()
                                     : b.int_data.size();
    for (size_t i = 0; i < n; ++i) {
      std::string v;
      if (complex) {
        const Type part = ir::ComponentType(b.type);
        v = "{" + FloatLiteral(b.float_data[2 * i], part, cuda_) + ", " +
            FloatLiteral(b.float_data[2 * i + 1], part, cuda_) + "}";
      } else if (b.type == Type::kBF16 || b.type == Type::kF16) {
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
  // Each function on its own, noting the functions it calls; then the
  // kernel. Only the functions the kernel reaches are kept: a combiner the
  // hardware's atomic replaces is never called, and an unused function is
  // nvcc's warning #177-D. (Printed in the usual order all the same: the
  // fresh names and the helpers' order stay as they were.)
  std::vector<std::string> function_texts;
  std::map<std::string, std::set<std::string>> callees;
  for (const ir::Function& f : module_.functions) {
    CodeWriter text;
    calls_ = &callees[f.name];
    IXA_RETURN_IF_ERROR(PrintFunction(f, text));
    text.Line("");
    function_texts.push_back(text.Take());
  }
  std::set<std::string> reached;
  CodeWriter kernel;
  calls_ = &reached;
  if (module_.kernel) {
    if (cuda_) {
      IXA_RETURN_IF_ERROR(PrintCudaKernel(*module_.kernel, kernel));
    } else {
      IXA_RETURN_IF_ERROR(PrintSimulatedKernel(*module_.kernel, kernel));
    }
  }
  calls_ = nullptr;
  for (std::vector<std::string> todo(reached.begin(), reached.end());
       !todo.empty();) {
    const std::string name = todo.back();
    todo.pop_back();
    for (const std::string& callee : callees[name]) {
      if (reached.insert(callee).second) todo.push_back(callee);
    }
  }
  for (size_t i = 0; i < module_.functions.size(); ++i) {
    if (!module_.kernel || reached.count(module_.functions[i].name)) {
      body.Lines(function_texts[i]);
    }
  }
  body.Lines(kernel.text());
  CodeWriter out;
  std::stringstream header(options_.header);
  std::string line;
  while (std::getline(header, line)) out.Line("// " + line);
  out.Line("#include <cmath>");
  out.Line("#include <cstdint>");
  out.Line("#include <cstring>");
  std::string code = body.Take();
  // Complex values, even only moved, need the structs.
  if (ir::UsesComplex(module_)) Use("ixa_complex");
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

}  // namespace c_printer

Result<std::string> PrintC(const ir::Module& module,
                           const PrintOptions& options) {
  c_printer::CPrinter printer(module, options);
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
  if (options.target == Target::kMlir) {
    if (ir::UsesComplex(module)) {
      return Error::Unsupported(
          "emit: the mlir target does not generate complex values (c64, "
          "c128); the cpp and cuda targets do");
    }
    return PrintMlir(module, options);
  }
  return PrintC(module, options);
}

}  // namespace ixa::emit