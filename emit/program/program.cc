// CompileModule (docs/compile.md): one host function per computation the
// entry runs (the entry, while conditions and bodies, conditional branches,
// called computations), each with its own arena laid out by liveness; the
// kernels of the per-fusion pipeline in namespaces of their own.
#include "emit/program/program.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/custom_calls.h"
#include "analysis/hlo/printer.h"
#include "emit/pipeline.h"
#include "emit/program/program_internal.h"

namespace ixa::emit {
namespace {

using hlo::Computation;
using hlo::Instruction;
using hlo::Shape;
using namespace program_internal;  // NOLINT: the host ops

constexpr int64_t kArenaAlignment = 64;

// A value's leaf: an argument of the host function or an arena buffer.
struct LeafRef {
  bool argument = false;
  int index = 0;
};

struct ArenaBuffer {
  ProgramBuffer info;
  int64_t size = 0;  // bytes rounded up to the alignment
};

class ProgramBuilder {
 public:
  ProgramBuilder(const hlo::Module& module, const hw::Device& device,
                 const CompileOptions& options, ExprContext* ctx)
      : module_(module), device_(device), options_(options), ctx_(ctx) {}

  Result<ProgramResult> Build();

 private:
  struct Function {
    std::vector<ArenaBuffer> buffers;
    std::map<const Instruction*, std::vector<LeafRef>> values;
    std::vector<std::function<std::string()>> statements;
    const Computation* computation = nullptr;
    std::vector<const Computation*> callees;
  };

  bool cuda() const { return options_.target == Target::kCuda; }
  std::string UniqueName(const std::string& base);
  std::string FunctionName(const Computation* c);
  Status CompileComputation(const Computation& comp);
  Status AddInstruction(Function& f, const Instruction& in, int pos);
  Result<std::vector<LeafRef>> NewLeaves(Function& f, const Instruction& in,
                                         int pos, const Shape& shape,
                                         const std::vector<int64_t>& min_bytes);
  Status AddKernel(Function& f, const Instruction& in, int pos,
                   const FusionRegion& region,
                   const std::vector<const Instruction*>& inputs,
                   const std::string& cache_key);
  // `refusal`: why the op is not a generated kernel ("" for sorts).
  Status AddHostOp(Function& f, const Instruction& in, int pos,
                   const std::string& refusal);
  Status AddOneInstructionKernel(Function& f, const Instruction& in, int pos);
  Status AddControlFlow(Function& f, const Instruction& in, int pos);
  Status AddCall(Function& f, const Instruction& in, int pos,
                 const Computation& callee);
  std::string Ptr(const Function& f, const LeafRef& r) const;
  std::string PtrList(const Function& f, const std::vector<LeafRef>& r) const;
  std::string Copy(const std::string& dst, const std::string& src,
                   int64_t bytes) const;
  void Layout(Function& f);
  int64_t LeafBytes(const Function& f, const LeafRef& r) const;

  const hlo::Module& module_;
  const hw::Device& device_;
  const CompileOptions& options_;
  ExprContext* ctx_;
  std::set<std::string> names_;
  std::map<const Computation*, std::string> function_names_;
  std::map<const Computation*, std::unique_ptr<Function>> functions_;
  std::vector<const Computation*> function_order_;  // callees first
  std::set<const Computation*> in_progress_;
  std::vector<std::string> includes_;
  std::string kernels_code_;
  std::string host_ops_code_;
  ProgramResult result_;
  // Argument leaf sizes per computation (for copies of parameters).
  std::map<const Computation*, std::vector<int64_t>> argument_bytes_;
  std::map<const Computation*, int64_t> arena_bytes_;
  // The instructions outside fusions that become kernels, each as the
  // fusion computation of a module of its own (the emitters lower whole
  // computations): its name there.
  // `roots` and the computations they run through while, conditional and
  // call; a module of their kernel computations (the entry's, and then
  // one per fusion the emitters refuse as one kernel and whose
  // computation runs instruction by instruction).
  Status PrepareKernelModule(const std::vector<const Computation*>& roots);
  std::vector<std::unique_ptr<hlo::Module>> kernel_modules_;
  // The kernel computation of an instruction, and its text (the kernel
  // cache's key).
  std::map<const Instruction*, std::pair<const Computation*, std::string>>
      kernel_computation_;
  // Instructions without a kernel computation, and why (a GEMM call's
  // feature that plain ops do not say).
  std::map<const Instruction*, std::string> kernel_refusal_;
  // Kernels generated once per distinct computation text (repeated layers
  // share them), by that text.
  struct CachedKernel {
    std::string kernel;  // namespace::name
    std::string emitter;
    LaunchDimensions launch;
    std::vector<EmittedBuffer> buffers;
    // Per input buffer, its region parameter (by position: the same
    // kernel serves regions whose parameters have other names).
    std::vector<int> parameter_of_input;
  };
  std::map<std::string, CachedKernel> kernel_cache_;
};

std::string ProgramBuilder::UniqueName(const std::string& base) {
  std::string name = IdentifierOfName(base);
  if (!CheckKernelName(name).ok() || name.rfind("ixa", 0) == 0) {
    name = "fusion_" + (name.rfind('_', 0) == 0 ? name.substr(1) : name);
  }
  std::string out = name;
  for (int k = 1; !names_.insert(out).second; ++k) {
    out = name + "_" + std::to_string(k);
  }
  return out;
}

std::string ProgramBuilder::FunctionName(const Computation* c) {
  auto it = function_names_.find(c);
  if (it != function_names_.end()) return it->second;
  std::string name = "ixap_comp_" + IdentifierOfName(c->name()) + "_" +
                     std::to_string(function_names_.size());
  function_names_[c] = name;
  return name;
}

std::string ProgramBuilder::Ptr(const Function& f, const LeafRef& r) const {
  if (r.argument) return "in[" + std::to_string(r.index) + "]";
  return "(void*)(arena + " + std::to_string(f.buffers[r.index].info.offset) +
         ")";
}

std::string ProgramBuilder::PtrList(const Function& f,
                                    const std::vector<LeafRef>& refs) const {
  std::string out;
  for (const LeafRef& r : refs) out += (out.empty() ? "" : ", ") + Ptr(f, r);
  return out.empty() ? "nullptr" : out;
}

int64_t ProgramBuilder::LeafBytes(const Function& f, const LeafRef& r) const {
  if (r.argument) return argument_bytes_.at(f.computation).at(r.index);
  return f.buffers[r.index].info.bytes;
}

std::string ProgramBuilder::Copy(const std::string& dst, const std::string& src,
                                 int64_t bytes) const {
  return "ixap_copy(" + dst + ", " + src + ", " + std::to_string(bytes) +
         ");\n";
}

Result<std::vector<LeafRef>> ProgramBuilder::NewLeaves(
    Function& f, const Instruction& in, int pos, const Shape& shape,
    const std::vector<int64_t>& min_bytes) {
  std::vector<LeafRef> refs;
  std::vector<const Shape*> leaves = LeavesOf(shape);
  for (size_t k = 0; k < leaves.size(); ++k) {
    IXA_ASSIGN_OR_RETURN(int64_t bytes, ShapeBytes(*leaves[k], ctx_));
    if (k < min_bytes.size()) bytes = std::max(bytes, min_bytes[k]);
    ArenaBuffer b;
    b.info.computation = f.computation->name();
    b.info.instruction = in.name;
    b.info.output = static_cast<int>(k);
    b.info.shape = leaves[k]->ToString(true);
    b.info.bytes = bytes;
    b.info.defined = b.info.last_use = pos;
    // A token takes no memory; an array at least one alignment unit.
    b.size = leaves[k]->IsArray()
                 ? std::max<int64_t>(kArenaAlignment,
                                     (bytes + kArenaAlignment - 1) /
                                         kArenaAlignment * kArenaAlignment)
                 : 0;
    refs.push_back({false, static_cast<int>(f.buffers.size())});
    f.buffers.push_back(std::move(b));
  }
  return refs;
}

Status ProgramBuilder::AddKernel(Function& f, const Instruction& in, int pos,
                                 const FusionRegion& region,
                                 const std::vector<const Instruction*>& inputs,
                                 const std::string& cache_key) {
  auto cached = kernel_cache_.find(cache_key);
  if (cached == kernel_cache_.end()) {
    EmitOptions emit;
    emit.target = options_.target;
    emit.kernel_name = UniqueName(in.name);
    emit.shared_memory_limit = options_.shared_memory_limit;
    emit.tf32 = options_.tf32;
    Result<EmitResult> emitted = EmitFusion(region, device_, emit, ctx_);
    if (!emitted.ok()) {
      // The name stays free for what runs instead (a host loop).
      names_.erase(emit.kernel_name);
      Error e = emitted.error();
      e.message = "instruction '" + in.name + "' (" + OpcodeName(in) +
                  "): " + e.message;
      return e;
    }
    const EmitResult& r = *emitted;
    // The kernel text: its includes hoisted, its names in a namespace, its
    // entry a C++ function there.
    const std::string ns = "ixap_k" + std::to_string(kernel_cache_.size());
    std::stringstream text(r.code);
    std::string line, body;
    while (std::getline(text, line)) {
      if (line.rfind("#include", 0) == 0) {
        if (std::find(includes_.begin(), includes_.end(), line) ==
            includes_.end()) {
          includes_.push_back(line);
        }
        continue;
      }
      for (size_t at; (at = line.find("extern \"C\" ")) != std::string::npos;) {
        line.erase(at, 11);
      }
      body += line + "\n";
    }
    kernels_code_ +=
        "namespace " + ns + " {\n" + body + "}  // namespace " + ns + "\n\n";
    std::vector<int> parameter_of_input;
    for (const EmittedBuffer& b : r.buffers) {
      if (b.is_output) continue;
      int found = -1;
      for (size_t i = 0; i < region.parameters.size(); ++i) {
        if (region.parameters[i]->name == b.name) found = static_cast<int>(i);
      }
      if (found < 0) {
        return Error{ErrorCode::kInternal,
                     "compile: kernel " + emit.kernel_name +
                         " reads an unknown buffer '" + b.name + "'",
                     0, 0};
      }
      parameter_of_input.push_back(found);
    }
    cached = kernel_cache_
                 .insert({cache_key,
                          {ns + "::" + emit.kernel_name, r.emitter,
                           r.plan.launch, r.buffers, parameter_of_input}})
                 .first;
  }
  const CachedKernel& r = cached->second;
  result_.kernels.push_back(
      {r.kernel, in.name, f.computation->name(), r.emitter, ""});
  std::vector<int64_t> out_bytes;
  for (const EmittedBuffer& b : r.buffers) {
    if (b.is_output) out_bytes.push_back(b.allocation_bytes);
  }
  // A GEMM call's kernel writes its result (and an _AUX epilogue's second
  // output); the rest of its tuple (the workspace, cuBLAS's scratch) is
  // allocated after it and left alone.
  const bool gemm = IsKernelLibraryCall(in);
  const Shape written = gemm ? GemmCallWrittenShape(in) : in.shape;
  IXA_ASSIGN_OR_RETURN(std::vector<LeafRef> outs,
                       NewLeaves(f, in, pos, written, out_bytes));
  if (outs.size() != out_bytes.size()) {
    return Error{ErrorCode::kInternal,
                 "compile: kernel " + r.kernel + " has " +
                     std::to_string(out_bytes.size()) + " outputs for " +
                     std::to_string(outs.size()) + " leaves",
                 0, 0};
  }
  f.values[&in] = outs;
  for (size_t k = outs.size(); gemm && k < in.shape.tuple_elements.size();
       ++k) {
    IXA_ASSIGN_OR_RETURN(std::vector<LeafRef> workspace,
                         NewLeaves(f, in, pos, in.shape.tuple_elements[k], {}));
    for (const LeafRef& w : workspace) {
      f.buffers[w.index].info.output = static_cast<int>(k);
      f.values[&in].push_back(w);
    }
  }
  const LaunchDimensions launch = r.launch;
  const std::string kernel = r.kernel;
  Function* fp = &f;
  std::vector<LeafRef> in_refs;
  for (int p : r.parameter_of_input) {
    in_refs.push_back(f.values.at(inputs.at(p)).at(0));
  }
  std::vector<EmittedBuffer> buffers = r.buffers;
  f.statements.push_back([this, fp, in_refs, outs, buffers, launch, kernel]() {
    std::string s;
    std::vector<std::string> ptrs;
    size_t input = 0, output = 0;
    for (const EmittedBuffer& b : buffers) {
      if (!b.is_output) {
        ptrs.push_back(Ptr(*fp, in_refs[input++]));
      } else {
        ptrs.push_back(Ptr(*fp, outs[output++]));
      }
    }
    // An in-place output starts as a copy of its input, whose memory the
    // kernel is given for both.
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i].aliases < 0) continue;
      const int a = buffers[i].aliases;
      s += "  " + Copy(ptrs[i], ptrs[a], buffers[a].allocation_bytes);
      ptrs[a] = ptrs[i];
    }
    std::string list;
    for (const std::string& p : ptrs) list += (list.empty() ? "" : ", ") + p;
    if (list.empty()) list = "nullptr";
    if (cuda()) {
      auto dim = [](const std::array<int64_t, 3>& d) {
        return "dim3(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) +
               ", " + std::to_string(d[2]) + ")";
      };
      s += "  { void* b[] = {" + list + "}; if (int e = ixap_launch(" + kernel +
           ", " + dim(launch.blocks) + ", " + dim(launch.threads) + ", b, \"" +
           kernel + "\")) return e; }\n";
    } else {
      s += "  { void* b[] = {" + list + "}; " + kernel + "(b); }\n";
    }
    return s;
  });
  return Status();
}

Status ProgramBuilder::AddHostOp(Function& f, const Instruction& in, int pos,
                                 const std::string& refusal) {
  const std::string name = "ixap_" + UniqueName(in.name);
  IXA_ASSIGN_OR_RETURN(std::string code,
                       HostOpFunction(in, name, options_.target));
  host_ops_code_ += code + "\n";
  IXA_ASSIGN_OR_RETURN(std::vector<LeafRef> outs,
                       NewLeaves(f, in, pos, in.shape, {}));
  f.values[&in] = outs;
  std::string kind =
      in.opcode == hlo::Opcode::kCustomCall ? "dot" : OpcodeName(in);
  result_.kernels.push_back(
      {name, in.name, f.computation->name(), kind, refusal});
  std::vector<LeafRef> args;
  for (const Instruction* o : in.operands) {
    const auto& v = f.values.at(o);
    args.insert(args.end(), v.begin(), v.end());
  }
  args.insert(args.end(), outs.begin(), outs.end());
  Function* fp = &f;
  f.statements.push_back([this, fp, args, name]() {
    return "  { void* b[] = {" + PtrList(*fp, args) + "}; if (int e = " + name +
           "(b)) return e; }\n";
  });
  return Status();
}

const Computation* CalledByAttribute(const Instruction& in,
                                     const std::string& attribute) {
  std::string name = in.Attribute(attribute);
  if (!name.empty() && name[0] == '%') name = name.substr(1);
  for (const Computation* c : in.called_computations) {
    if (c->name() == name) return c;
  }
  return nullptr;
}

// A host function call of `callee` on the operands' leaves into new
// buffers: a `call`, or a fusion run instruction by instruction.
Status ProgramBuilder::AddCall(Function& f, const Instruction& in, int pos,
                               const Computation& callee) {
  IXA_RETURN_IF_ERROR(CompileComputation(callee));
  f.callees.push_back(&callee);
  IXA_ASSIGN_OR_RETURN(std::vector<LeafRef> outs,
                       NewLeaves(f, in, pos, in.shape, {}));
  f.values[&in] = outs;
  std::vector<LeafRef> args;
  for (const Instruction* o : in.operands) {
    const auto& v = f.values.at(o);
    args.insert(args.end(), v.begin(), v.end());
  }
  const std::string name = FunctionName(&callee);
  Function* fp = &f;
  f.statements.push_back([this, fp, args, outs, name]() {
    return "  { void* a[] = {" + PtrList(*fp, args) + "}; void* r[] = {" +
           PtrList(*fp, outs) + "}; if (int e = " + name +
           "(a, r)) return e; }\n";
  });
  return Status();
}

Status ProgramBuilder::AddControlFlow(Function& f, const Instruction& in,
                                      int pos) {
  if (in.opcode == hlo::Opcode::kCall) {
    if (in.called() == nullptr) {
      return Error::Invalid("compile: call '" + in.name + "' calls nothing");
    }
    return AddCall(f, in, pos, *in.called());
  }
  for (const Computation* c : in.called_computations) {
    IXA_RETURN_IF_ERROR(CompileComputation(*c));
    f.callees.push_back(c);
  }
  IXA_ASSIGN_OR_RETURN(std::vector<LeafRef> outs,
                       NewLeaves(f, in, pos, in.shape, {}));
  f.values[&in] = outs;
  Function* fp = &f;
  if (in.opcode == hlo::Opcode::kWhile) {
    const Computation* cond = CalledByAttribute(in, "condition");
    const Computation* body = CalledByAttribute(in, "body");
    if (cond == nullptr || body == nullptr || in.operand_count() != 1) {
      return Error::Invalid("compile: while '" + in.name +
                            "' needs condition=, body= and one operand");
    }
    // Scratch for the body's results and the condition's answer, live
    // only during the loop.
    IXA_ASSIGN_OR_RETURN(std::vector<LeafRef> next,
                         NewLeaves(f, in, pos, in.shape, {}));
    IXA_ASSIGN_OR_RETURN(
        std::vector<LeafRef> pred,
        NewLeaves(f, in, pos, Shape::Array(hlo::ElementType::kPred, {}), {}));
    const std::vector<LeafRef> init = f.values.at(in.operand(0));
    const std::string cond_fn = FunctionName(cond),
                      body_fn = FunctionName(body);
    f.statements.push_back(
        [this, fp, init, outs, next, pred, cond_fn, body_fn]() {
          std::string s = "  {\n";
          for (size_t k = 0; k < outs.size(); ++k) {
            s += "    " + Copy(Ptr(*fp, outs[k]), Ptr(*fp, init[k]),
                               LeafBytes(*fp, outs[k]));
          }
          s += "    void* state[] = {" + PtrList(*fp, outs) + "};\n";
          s += "    void* next[] = {" + PtrList(*fp, next) + "};\n";
          s += "    void* pred[] = {" + Ptr(*fp, pred[0]) + "};\n";
          s += "    for (;;) {\n";
          s += "      if (int e = " + cond_fn + "(state, pred)) return e;\n";
          s += "      if (!ixap_read_pred(pred[0])) break;\n";
          s += "      if (int e = " + body_fn + "(state, next)) return e;\n";
          for (size_t k = 0; k < outs.size(); ++k) {
            s += "      " + Copy("state[" + std::to_string(k) + "]",
                                 "next[" + std::to_string(k) + "]",
                                 LeafBytes(*fp, outs[k]));
          }
          s += "    }\n  }\n";
          return s;
        });
    return Status();
  }
  // conditional: a pred (true, false) or an s32 index (branches, the last
  // one for an index out of range).
  std::vector<const Computation*> branches;
  const bool by_pred = in.operand(0)->shape.type == hlo::ElementType::kPred;
  if (by_pred) {
    branches = {CalledByAttribute(in, "true_computation"),
                CalledByAttribute(in, "false_computation")};
  } else {
    branches = in.called_computations;
  }
  if (branches.empty() ||
      std::count(branches.begin(), branches.end(), nullptr) > 0 ||
      in.operand_count() != static_cast<int>(branches.size()) + 1) {
    return Error::Invalid("compile: conditional '" + in.name +
                          "': its branches do not match its operands");
  }
  std::vector<std::vector<LeafRef>> args;
  std::vector<std::string> fns;
  for (size_t b = 0; b < branches.size(); ++b) {
    args.push_back(f.values.at(in.operand(static_cast<int>(b) + 1)));
    fns.push_back(FunctionName(branches[b]));
  }
  const LeafRef selector = f.values.at(in.operand(0)).at(0);
  f.statements.push_back([this, fp, args, fns, outs, selector, by_pred]() {
    std::string s = "  {\n    void* r[] = {" + PtrList(*fp, outs) + "};\n";
    const std::string p = Ptr(*fp, selector);
    const int n = static_cast<int>(fns.size());
    if (by_pred) {
      s += "    const int64_t branch = ixap_read_pred(" + p + ") ? 0 : 1;\n";
    } else {
      s += "    int64_t branch = ixap_read_s32(" + p + ");\n";
      s += "    if (branch < 0 || branch >= " + std::to_string(n) +
           ") branch = " + std::to_string(n - 1) + ";\n";
    }
    s += "    switch (branch) {\n";
    for (int b = 0; b < n; ++b) {
      s += "      case " + std::to_string(b) + ": { void* a[] = {" +
           PtrList(*fp, args[b]) + "}; if (int e = " + fns[b] +
           "(a, r)) return e; break; }\n";
    }
    s += "    }\n  }\n";
    return s;
  });
  return Status();
}

Status ProgramBuilder::PrepareKernelModule(
    const std::vector<const Computation*>& roots) {
  // The computations the host runs: the roots and, through while,
  // conditional and call, the computations they run.
  std::vector<const Computation*> host = roots;
  std::set<const Computation*> seen(roots.begin(), roots.end());
  for (size_t i = 0; i < host.size(); ++i) {
    for (const auto& in : host[i]->instructions()) {
      if (in->opcode != hlo::Opcode::kWhile &&
          in->opcode != hlo::Opcode::kConditional &&
          in->opcode != hlo::Opcode::kCall) {
        continue;
      }
      for (const Computation* c : in->called_computations) {
        if (seen.insert(c).second) host.push_back(c);
      }
    }
  }
  const hlo::PrintNaming naming = hlo::SanitizedNaming();
  std::string text = "HloModule ixap_kernels\n";
  for (const auto& c : module_.computations()) {
    if (c.get() == module_.entry()) continue;
    text += hlo::PrintComputation(*c, naming, false) + "\n";
  }
  std::map<std::string, std::string> kernel_names;  // by text
  std::map<const Instruction*,
           std::map<std::string, std::string>::const_iterator>
      kernel_text;
  for (const Computation* c : host) {
    for (const Instruction* in : c->post_order()) {
      if (NeedsNoKernel(*in)) continue;
      const std::vector<const Instruction*> operands = UniqueOperands(*in);
      std::string body;
      for (size_t k = 0; k < operands.size(); ++k) {
        body += "  ixap_p" + std::to_string(k) + " = " +
                operands[k]->shape.ToString(true) + " parameter(" +
                std::to_string(k) + ")\n";
      }
      if (IsKernelLibraryCall(*in)) {
        // The call's dot and epilogue as plain ops; what they cannot say
        // runs as the host loop, the reason kept for `kernels`.
        Result<std::string> gemm = hlo::ConvCallSemanticsOf(*in)
                                       ? ConvCallKernelBody(*in, operands)
                                       : GemmCallKernelBody(*in, operands);
        if (!gemm.ok()) {
          if (gemm.error().code != ErrorCode::kUnsupported) return gemm.error();
          kernel_refusal_[in] = gemm.error().message;
          continue;
        }
        body += *gemm + "}\n";
      } else {
        hlo::PrintNaming local = naming;
        local.instruction = [&](const Instruction* i) {
          auto at = std::find(operands.begin(), operands.end(), i);
          if (at != operands.end()) {
            return "ixap_p" + std::to_string(at - operands.begin());
          }
          return hlo::SanitizeHloName(i->name);
        };
        body += "  " + hlo::PrintInstruction(*in, "ixap_root", local, true) +
                "\n}\n";
      }
      // Instructions that read the same are one kernel computation.
      auto [at, added] = kernel_names.insert(
          {body, "ixap_kernel_" + std::to_string(kernel_names.size())});
      if (added) text += at->second + " {\n" + body;
      kernel_text[in] = at;
    }
  }
  text += "ENTRY ixap_entry {\n  ROOT ixap_zero = s32[] constant(0)\n}\n";
  Result<std::unique_ptr<hlo::Module>> parsed = hlo::ParseHloModule(text);
  if (!parsed.ok()) {
    return Error{ErrorCode::kInternal,
                 "compile: the one-instruction kernels do not read back: " +
                     parsed.error().message,
                 0, 0};
  }
  for (const auto& [in, at] : kernel_text) {
    const Computation* comp = (*parsed)->FindComputation(at->second);
    if (comp == nullptr) {
      return Error{ErrorCode::kInternal,
                   "compile: no kernel computation for '" + in->name + "'", 0,
                   0};
    }
    kernel_computation_[in] = {comp, "one " + at->first};
  }
  kernel_modules_.push_back(std::move(parsed).value());
  return Status();
}

Status ProgramBuilder::AddInstruction(Function& f, const Instruction& in,
                                      int pos) {
  const hlo::Opcode op = in.opcode;
  if (op == hlo::Opcode::kParameter) {
    int first = 0;
    const Computation& c = *f.computation;
    for (int64_t p = 0; p < in.parameter_number; ++p) {
      first += static_cast<int>(LeavesOf(c.parameter(p)->shape).size());
    }
    std::vector<LeafRef> refs;
    for (size_t k = 0; k < LeavesOf(in.shape).size(); ++k) {
      refs.push_back({true, first + static_cast<int>(k)});
    }
    f.values[&in] = refs;
    return Status();
  }
  if (op == hlo::Opcode::kTuple) {
    std::vector<LeafRef> refs;
    for (const Instruction* o : in.operands) {
      const auto& v = f.values.at(o);
      refs.insert(refs.end(), v.begin(), v.end());
    }
    f.values[&in] = refs;
    return Status();
  }
  if (op == hlo::Opcode::kGetTupleElement) {
    const Shape& t = in.operand(0)->shape;
    size_t first = 0;
    for (int64_t k = 0; k < in.tuple_index; ++k) {
      first += LeavesOf(t.tuple_elements[k]).size();
    }
    const auto& v = f.values.at(in.operand(0));
    f.values[&in] = std::vector<LeafRef>(
        v.begin() + first, v.begin() + first + LeavesOf(in.shape).size());
    return Status();
  }
  if (op ==
      hlo::Opcode::kAfterAll) {  // a token orders effects and holds no bytes
    IXA_ASSIGN_OR_RETURN(f.values[&in], NewLeaves(f, in, pos, in.shape, {}));
    return Status();
  }
  if (op == hlo::Opcode::kOptimizationBarrier) {
    f.values[&in] = f.values.at(in.operand(0));
    return Status();
  }
  if (op == hlo::Opcode::kBitcast || op == hlo::Opcode::kReshape) {
    IXA_ASSIGN_OR_RETURN(int64_t bytes, ShapeBytes(in.shape, ctx_));
    IXA_ASSIGN_OR_RETURN(int64_t operand_bytes,
                         ShapeBytes(in.operand(0)->shape, ctx_));
    if (AliasesOperand(in, bytes, operand_bytes)) {
      f.values[&in] = f.values.at(in.operand(0));
      return Status();
    }
  }
  if (op == hlo::Opcode::kWhile || op == hlo::Opcode::kConditional ||
      op == hlo::Opcode::kCall) {
    return AddControlFlow(f, in, pos);
  }
  if (IsHostFallbackOp(in) || IsKernelLibraryCall(in)) {
    // A dot, convolution or GEMM call is a kernel of the per-fusion
    // pipeline (the loop emitter over its output, computing it
    // elementally, or the GEMM emitter); what the emitters refuse runs as
    // the host loop, the refusal its reason.
    auto refused = kernel_refusal_.find(&in);
    std::string refusal;
    if (refused != kernel_refusal_.end()) {
      refusal = refused->second;
    } else {
      Status kernel = AddOneInstructionKernel(f, in, pos);
      if (kernel.ok() || kernel.error().code != ErrorCode::kUnsupported) {
        return kernel;
      }
      refusal = kernel.error().message;
    }
    Status host = AddHostOp(f, in, pos, refusal);
    if (host.ok()) return host;
    Error e = host.error();
    e.message += " (and no kernel: " + refusal + ")";
    return e;
  }
  if (op == hlo::Opcode::kSort || IsLinalgHostOp(in) ||
      (op == hlo::Opcode::kCustomCall && hlo::IsLibraryCall(in))) {
    return AddHostOp(f, in, pos, "");
  }
  for (const Instruction* o : in.operands) {
    if (!o->shape.IsArray()) {
      return Error::Unsupported("compile: instruction '" + in.name + "' (" +
                                OpcodeName(in) +
                                ") has a tuple or token operand");
    }
  }
  if (op == hlo::Opcode::kFusion) {
    if (in.called() == nullptr) {
      return Error::Invalid("compile: fusion '" + in.name + "' calls nothing");
    }
    FusionRegion region = RegionOfComputation(*in.called());
    std::vector<const Instruction*> inputs;
    for (const Instruction* p : region.parameters) {
      if (p->parameter_number < 0 ||
          p->parameter_number >= in.operand_count()) {
        return Error::Invalid("compile: fusion '" + in.name +
                              "' has fewer operands than parameters");
      }
      inputs.push_back(in.operand(static_cast<int>(p->parameter_number)));
    }
    // The fused computation's text without its name: equal texts are the
    // same kernel.
    // Instructions named by position, so that repeated layers match.
    std::map<const Instruction*, size_t> position;
    for (const Instruction* i : in.called()->post_order()) {
      position.insert({i, position.size()});
    }
    hlo::PrintNaming naming = hlo::SanitizedNaming();
    naming.instruction = [&](const Instruction* i) {
      auto at = position.find(i);
      return at == position.end() ? hlo::SanitizeHloName(i->name)
                                  : "i" + std::to_string(at->second);
    };
    std::string key = hlo::PrintComputation(*in.called(), naming, false);
    key = "fusion " + key.substr(std::min(key.find('{'), key.size()));
    Status kernel = AddKernel(f, in, pos, region, inputs, key);
    if (kernel.ok() || kernel.error().code != ErrorCode::kUnsupported) {
      return kernel;
    }
    // The emitters do not generate the fusion as one kernel (a GEMM or
    // convolution fusion, an op they refuse fused): its computation runs
    // as a called one, which is what a fusion means, each instruction a
    // kernel or host op of its own.
    IXA_RETURN_IF_ERROR(PrepareKernelModule({in.called()}));
    return AddCall(f, in, pos, *in.called());
  }
  return AddOneInstructionKernel(f, in, pos);
}

// Any other instruction: a kernel of its own, the fusion computation of
// PrepareKernelModule.
Status ProgramBuilder::AddOneInstructionKernel(Function& f,
                                               const Instruction& in, int pos) {
  auto it = kernel_computation_.find(&in);
  if (it == kernel_computation_.end()) {
    return Error{ErrorCode::kInternal,
                 "compile: no kernel computation for '" + in.name + "'", 0, 0};
  }
  return AddKernel(f, in, pos, RegionOfComputation(*it->second.first),
                   UniqueOperands(in), it->second.second);
}

// Offsets by liveness: a buffer lives from its instruction to its last
// use (an instruction reading any value holding it, the root's to the
// end); at each instruction the dead ones are freed first, then the new
// ones take the lowest gap that fits.
void ProgramBuilder::Layout(Function& f) {
  const auto& order = f.computation->post_order();
  std::map<const Instruction*, int> position;
  for (size_t i = 0; i < order.size(); ++i) {
    position[order[i]] = static_cast<int>(i);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Instruction* o : order[i]->operands) {
      auto it = f.values.find(o);
      if (it == f.values.end()) continue;
      for (const LeafRef& r : it->second) {
        if (r.argument) continue;
        int& last = f.buffers[r.index].info.last_use;
        last = std::max(last, static_cast<int>(i));
      }
    }
  }
  for (const LeafRef& r : f.values.at(f.computation->root())) {
    if (!r.argument) {
      f.buffers[r.index].info.last_use = static_cast<int>(order.size());
    }
  }
  std::vector<int> by_definition(f.buffers.size());
  for (size_t b = 0; b < f.buffers.size(); ++b) {
    by_definition[b] = static_cast<int>(b);
  }
  std::stable_sort(
      by_definition.begin(), by_definition.end(), [&](int a, int b) {
        return f.buffers[a].info.defined < f.buffers[b].info.defined;
      });
  std::map<int64_t, int> live;  // offset -> buffer
  int64_t peak = 0;
  for (int b : by_definition) {
    ArenaBuffer& buf = f.buffers[b];
    if (buf.size == 0) continue;  // a token: offset 0, nothing to place
    for (auto it = live.begin(); it != live.end();) {
      if (f.buffers[it->second].info.last_use < buf.info.defined) {
        it = live.erase(it);
      } else {
        ++it;
      }
    }
    int64_t offset = 0;
    for (const auto& [at, other] : live) {
      if (at - offset >= buf.size) break;
      offset = std::max(offset, at + f.buffers[other].size);
    }
    buf.info.offset = offset;
    live[offset] = b;
    peak = std::max(peak, offset + buf.size);
  }
  arena_bytes_[f.computation] = peak;
}

Status ProgramBuilder::CompileComputation(const Computation& comp) {
  if (functions_.count(&comp)) return Status();
  if (!in_progress_.insert(&comp).second) {
    return Error::Invalid("compile: computation '" + comp.name() +
                          "' calls itself");
  }
  auto fn = std::make_unique<Function>();
  Function& f = *fn;
  f.computation = &comp;
  std::vector<int64_t> arg_bytes;
  for (int64_t p = 0; p < comp.parameter_count(); ++p) {
    if (comp.parameter(p) == nullptr) {
      return Error::Invalid("compile: computation '" + comp.name() +
                            "' lacks parameter " + std::to_string(p));
    }
    for (const Shape* s : LeavesOf(comp.parameter(p)->shape)) {
      IXA_ASSIGN_OR_RETURN(int64_t bytes, ShapeBytes(*s, ctx_));
      arg_bytes.push_back(bytes);
    }
  }
  argument_bytes_[&comp] = arg_bytes;
  const auto& order = comp.post_order();
  for (size_t i = 0; i < order.size(); ++i) {
    IXA_RETURN_IF_ERROR(AddInstruction(f, *order[i], static_cast<int>(i)));
  }
  Layout(f);
  in_progress_.erase(&comp);
  FunctionName(&comp);
  function_order_.push_back(&comp);
  functions_[&comp] = std::move(fn);
  return Status();
}

Result<ProgramResult> ProgramBuilder::Build() {
  const Computation* entry = module_.entry();
  if (entry == nullptr)
    return Error::Invalid("compile: the module has no entry");
  if (options_.entry_name.empty() ||
      IdentifierOfName(options_.entry_name) != options_.entry_name) {
    return Error::Invalid(
        "compile: the entry name must be a C identifier; got '" +
        options_.entry_name + "'");
  }
  if (options_.target == Target::kMlir) {
    return Error::Unsupported("compile: target mlir (cpp and cuda compile)");
  }
  std::vector<Shape> parameters, results;
  for (int64_t p = 0; p < entry->parameter_count(); ++p) {
    const Instruction* param = entry->parameter(p);
    if (param == nullptr) {
      return Error::Invalid("compile: the entry lacks parameter " +
                            std::to_string(p));
    }
    // A tuple parameter: one `params` entry per array leaf, in order (the
    // computation's arguments are its leaves already).
    std::vector<std::pair<std::vector<int64_t>, const Shape*>> leaves;
    std::function<void(const Shape&, std::vector<int64_t>&)> walk =
        [&](const Shape& s, std::vector<int64_t>& index) {
          if (!s.IsTuple()) {
            leaves.emplace_back(index, &s);
            return;
          }
          for (size_t k = 0; k < s.tuple_elements.size(); ++k) {
            index.push_back(static_cast<int64_t>(k));
            walk(s.tuple_elements[k], index);
            index.pop_back();
          }
        };
    std::vector<int64_t> index;
    walk(param->shape, index);
    for (const auto& [at, leaf] : leaves) {
      if (!leaf->IsArray()) {
        return Error::Unsupported("compile: entry parameter " +
                                  std::to_string(p) + " ('" + param->name +
                                  "') holds a " + leaf->ToString() +
                                  "; the entry takes arrays");
      }
      parameters.push_back(*leaf);
      result_.parameters.push_back({p, at, leaf->ToString(true)});
    }
  }
  for (const Shape* s : LeavesOf(entry->root()->shape)) results.push_back(*s);
  IXA_RETURN_IF_ERROR(PrepareKernelModule({entry}));
  IXA_RETURN_IF_ERROR(CompileComputation(*entry));

  std::string code = "// ixa compile: module " + module_.name() + ", target " +
                     TargetName(options_.target) +
                     " (docs/compile.md).\n// Entry: extern \"C\" int " +
                     options_.entry_name +
                     "(const void* const* params, void* const* results)\n";
  std::vector<std::string> includes = {
      "#include <algorithm>", "#include <cmath>",   "#include <cstdint>",
      "#include <cstdio>",    "#include <cstdlib>", "#include <cstring>",
      "#include <string>",    "#include <utility>", "#include <vector>"};
  for (const std::string& i : includes_) {
    if (std::find(includes.begin(), includes.end(), i) == includes.end()) {
      includes.push_back(i);
    }
  }
  if (cuda()) includes.push_back("#include <cuda_runtime.h>");
  for (const std::string& i : includes) code += i + "\n";
  const std::string prelude =
      HostPrelude(options_.target) + RuntimePrelude(options_.target);
  std::string body = kernels_code_ + host_ops_code_;
  for (const Computation* c : function_order_) {
    body += "static int " + FunctionName(c) +
            "(void* const* in, void* const* out);\n";
  }
  body += "\n";
  std::map<const Computation*, int64_t> peak;
  for (const Computation* c : function_order_) {
    Function& f = *functions_.at(c);
    const int64_t bytes = arena_bytes_.at(c);
    int64_t callee_peak = 0;
    for (const Computation* callee : f.callees) {
      callee_peak = std::max(callee_peak, peak.at(callee));
    }
    peak[c] = bytes + callee_peak;
    body += "// computation " + c->name() + ": arena of " +
            std::to_string(bytes) + " bytes\n";
    body += "static int " + FunctionName(c) +
            "(void* const* in, void* const* out) {\n";
    body += "  (void)in;\n  char* arena = (char*)ixap_alloc(" +
            std::to_string(bytes) + ");\n";
    if (bytes > 0) body += "  if (arena == nullptr) return 1;\n";
    body += "  const int rc = [&]() -> int {\n";
    for (const auto& statement : f.statements) body += statement();
    const std::vector<LeafRef>& root = f.values.at(c->root());
    for (size_t k = 0; k < root.size(); ++k) {
      body += "  " + Copy("out[" + std::to_string(k) + "]", Ptr(f, root[k]),
                          LeafBytes(f, root[k]));
    }
    body += "  return 0;\n  }();\n  ixap_free(arena);\n  return rc;\n}\n\n";
    for (const ArenaBuffer& b : f.buffers) {
      result_.buffers.push_back(b.info);
      result_.total_bytes += b.info.bytes;
    }
  }
  body += "extern \"C\" int " + options_.entry_name +
          "(const void* const* params, void* const* results) {\n"
          "  return " +
          FunctionName(entry) +
          "(const_cast<void* const*>(params), results);\n}\n";
  IXA_ASSIGN_OR_RETURN(
      std::string main_code,
      NpyMain(parameters, results, options_.entry_name, options_.target));
  body += "\n" + main_code;
  code += "\n" + UsedHelpers(prelude, body) + "\n" + body;
  result_.code = std::move(code);
  result_.peak_bytes = peak.at(entry);
  return std::move(result_);
}

}  // namespace

Result<ProgramResult> CompileModule(const hlo::Module& module,
                                    const hw::Device& device,
                                    const CompileOptions& options,
                                    ExprContext* ctx) {
  ProgramBuilder builder(module, device, options, ctx);
  return builder.Build();
}

}  // namespace ixa::emit
