#include "emit/pipeline.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_set>

#include "emit/emitters/emitters.h"
#include "emit/emitters/gemm.h"
#include "emit/lower/lowering.h"
#include "emit/passes/passes.h"
#include "emit/reduce_init_notes.h"

namespace ixa::emit {

namespace {

// Identifiers a kernel may not be named: keywords of C, C++ and CUDA, the
// names CUDA declares, the standard types and functions the generated code
// uses (the kernel is extern "C": a C function of the same name clashes).
const std::set<std::string>& ForbiddenKernelNames() {
  static const std::set<std::string> kNames = {
      // C++20 keywords and alternative tokens (C's are among them).
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "const", "consteval",
      "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
      "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "restrict", "return", "short", "signed",
      "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
      "template", "this", "thread_local", "throw", "true", "try", "typedef",
      "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "wchar_t", "while", "xor", "xor_eq", "_Bool", "_Complex",
      "_Imaginary",
      // The program's entry, the standard namespace.
      "main", "std",
      // CUDA's built-in variables and types.
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
      "uint3", "int2", "int4", "float2", "float4", "half", "nv_bfloat16",
      // Functions CUDA declares that the code may call.
      "atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax",
      "atomicInc", "atomicDec", "atomicCAS", "atomicAnd", "atomicOr",
      "atomicXor",
      // The fixed-width types and the C functions the code uses.
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
      "uint32_t", "uint64_t", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
      "memcpy", "memmove", "memset", "abs", "fabs", "exp", "expm1", "log",
      "log1p", "sqrt", "rsqrt", "cbrt", "tanh", "sin", "cos", "tan", "erf",
      "floor", "ceil", "round", "nearbyint", "rint", "trunc", "isfinite",
      "isnan", "isinf", "fmod", "atan2", "pow", "fmin", "fmax", "min", "max",
      // The names the printers give: the grid ids, the simulated grid's
      // thread id and argument array.
      "th_x", "th_y", "th_z", "bl_x", "bl_y", "bl_z", "tid", "buffers"};
  return kNames;
}

}  // namespace

Status CheckKernelName(const std::string& name) {
  auto refuse = [&](const std::string& why) -> Status {
    return Error::Invalid("emit: the kernel cannot be named '" + name +
                          "': " + why);
  };
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
    return refuse("not an identifier");
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return refuse("not an identifier");
    }
  }
  if (name.find("__") != std::string::npos ||
      (name[0] == '_' && name.size() > 1 &&
       std::isupper(static_cast<unsigned char>(name[1])))) {
    return refuse(
        "a reserved identifier (C++ keeps names with '__' and "
        "'_' followed by a capital letter)");
  }
  if (name.rfind("ixa_", 0) == 0) {
    return refuse("the prefix of the runtime helpers");
  }
  if (name.size() > 1 && name[0] == 'b' &&
      name.find_first_not_of("0123456789", 1) == std::string::npos) {
    return refuse("the name of a buffer argument");
  }
  if (ForbiddenKernelNames().count(name)) {
    return refuse("a keyword, or a name the generated code declares or uses");
  }
  return Status();
}

Result<std::vector<LoweredStage>> LowerFusion(const FusionRegion& region,
                                              const EmitterPlan& plan,
                                              const EmitOptions& options,
                                              ExprContext* ctx) {
  if (plan.launch.shared_memory_bytes > options.shared_memory_limit) {
    return Error::Invalid(
        "emit: the plan needs " +
        std::to_string(plan.launch.shared_memory_bytes) +
        " bytes of shared memory per block; the device allows " +
        std::to_string(options.shared_memory_limit));
  }
  IXA_RETURN_IF_ERROR(CheckKernelName(options.kernel_name));
  LoweringContext lc(region, plan, ctx);
  lc.ReserveName(options.kernel_name);
  IXA_RETURN_IF_ERROR(lc.Init());
  ir::Kernel kernel;
  kernel.name = options.kernel_name;
  IXA_RETURN_IF_ERROR(BuildKernel(lc, &kernel));
  ir::Module module = lc.module();
  for (const ir::Buffer& b : module.buffers) {
    if (b.space == ir::BufferSpace::kShared) {
      module.shared_memory_bytes +=
          b.shape.ElementCount() * ir::StorageBytes(b.type);
    }
  }
  if (module.shared_memory_bytes > options.shared_memory_limit) {
    return Error::Invalid(
        "emit: the kernel needs " + std::to_string(module.shared_memory_bytes) +
        " bytes of shared memory per block; the device allows " +
        std::to_string(options.shared_memory_limit));
  }
  std::vector<LoweredStage> stages;
  stages.push_back({"partitioned", module});
  module.kernel = std::move(kernel);
  stages.push_back({"loops", module});
  IXA_RETURN_IF_ERROR(InlineSingleUseFunctions(&module));
  stages.push_back({"inlined", module});
  IXA_RETURN_IF_ERROR(FlattenBuffers(&module, ctx));
  stages.push_back({"flattened", module});
  IXA_RETURN_IF_ERROR(VectorizeLoops(&module, plan.launch.vector_size, ctx));
  stages.push_back({"vectorized", module});
  IXA_RETURN_IF_ERROR(UnrollVectorLoops(&module));
  stages.push_back({"unrolled", module});
  IXA_RETURN_IF_ERROR(Cleanup(&module, ctx));
  stages.push_back({"final", std::move(module)});
  // Every stage as the printers see it: narrow types legalized.
  for (LoweredStage& s : stages)
    IXA_RETURN_IF_ERROR(LegalizeTypes(&s.module, ctx));
  return stages;
}

namespace {

std::string Header(const FusionRegion& region, const EmitterPlan& plan,
                   const ir::Module& module, const std::string& stage,
                   const EmitOptions& options) {
  std::ostringstream h;
  h << "Generated by ixa emit (target " << TargetName(options.target)
    << (options.host ? ", host" : "") << ", stage " << stage << ")\n";
  h << "fusion " << region.computation->name() << ", emitter "
    << EmitterKindName(plan.kind);
  if (plan.reduction_kind)
    h << " (" << ReductionKindName(*plan.reduction_kind) << ")";
  h << "\nlaunch: threads (" << plan.launch.threads[0] << ", "
    << plan.launch.threads[1] << ", " << plan.launch.threads[2] << "), blocks ("
    << plan.launch.blocks[0] << ", " << plan.launch.blocks[1] << ", "
    << plan.launch.blocks[2] << "), shared memory "
    << module.shared_memory_bytes << " bytes\n";
  for (const ir::Buffer& b : module.buffers) {
    if (b.space != ir::BufferSpace::kGlobal) continue;
    h << b.name << ": " << (b.is_output ? "output " : "input ")
      << b.shape.ToString(true);
    if (b.aliases >= 0)
      h << " (in place: the memory of " << module.buffers[b.aliases].name
        << ")";
    h << "\n";
  }
  return h.str();
}

// The widest vector the module loads, stores or holds (1: none).
int64_t VectorWidth(const ir::Module& module) {
  int64_t width = 1;
  // Values share subtrees: each node is visited once.
  std::unordered_set<const ir::Node*> seen;
  std::function<void(const ir::Val&)> node = [&](const ir::Val& v) {
    if (!v || !seen.insert(v.get()).second) return;
    // Any vector value: a vector load, or the lanes of whole bytes of a
    // packed sub-byte buffer, which the code reads and writes bytewise.
    width = std::max<int64_t>(width, v->width);
    for (const ir::Val& o : v->operands) node(o);
  };
  auto visit = [&](const ir::Block& block) {
    ir::ForEachStmt(block, [&](const ir::Stmt& s) {
      if (s.kind == ir::StmtKind::kStore) {
        width = std::max<int64_t>(width, s.width);
      }
      node(s.value);
      for (const ir::Val& v : s.indices) node(v);
      for (const ir::Val& v : s.args) node(v);
    });
  };
  for (const ir::Function& f : module.functions) visit(f.body);
  if (module.kernel) visit(module.kernel->body);
  return width;
}

// Per buffer of `module`, the bytes to allocate: the buffer's own bytes,
// rounded up to what the target's narrow atomics touch. CUDA has no 1-byte
// compare-and-swap: a 1-byte atomic update runs on its aligned 16-bit
// halfword, which for the last byte of an odd-sized buffer reaches one
// byte past its end. LLVM's NVPTX backend (the mlir target's GPU form)
// widens atomics narrower than 32 bits to their aligned 32-bit word. The
// cpp target and mlir's host form update in place.
std::vector<int64_t> AllocationBytes(const ir::Module& module,
                                     const EmitOptions& options) {
  std::vector<int64_t> bytes;
  for (const ir::Buffer& b : module.buffers) {
    bytes.push_back(b.physical_elements * ir::StorageBytes(b.type));
  }
  int64_t atomic_unit = 1;  // the bytes the narrowest atomic covers
  int narrow_below = 0;     // atomics narrower than this many bytes widen
  if (options.target == Target::kCuda) {
    atomic_unit = 2;
    narrow_below = 2;
  } else if (options.target == Target::kMlir && !options.host) {
    atomic_unit = 4;
    narrow_below = 4;
  }
  if (narrow_below == 0) return bytes;
  std::vector<bool> widened(module.buffers.size(), false);
  auto visit = [&](const ir::Block& block) {
    ir::ForEachStmt(block, [&](const ir::Stmt& s) {
      if (s.kind == ir::StmtKind::kAtomic &&
          ir::StorageBytes(s.type) < narrow_below) {
        widened[s.buffer] = true;
      }
    });
  };
  for (const ir::Function& f : module.functions) visit(f.body);
  if (module.kernel) visit(module.kernel->body);
  for (size_t i = 0; i < module.buffers.size(); ++i) {
    if (!widened[i]) continue;
    // An in-place output's memory is its input's allocation.
    const int memory = module.buffers[i].aliases >= 0
                           ? module.buffers[i].aliases
                           : static_cast<int>(i);
    for (size_t j : {i, static_cast<size_t>(memory)}) {
      bytes[j] = (bytes[j] + atomic_unit - 1) / atomic_unit * atomic_unit;
    }
  }
  return bytes;
}

}  // namespace

Result<EmitResult> EmitFusionWithPlan(const FusionRegion& region,
                                      const EmitterPlan& plan,
                                      const EmitOptions& options,
                                      ExprContext* ctx) {
  // A matmul dot on the cuda target: the tiled GEMM kernel (emitters/
  // gemm.h); what it does not take goes the elemental way.
  if (options.target == Target::kCuda) {
    if (std::optional<GemmSpec> gemm =
            FindGemm(region, options.tf32, nullptr)) {
      Result<EmitResult> r = EmitGemmFusion(region, *gemm, plan, options, ctx);
      if (r.ok() || r.error().code != ErrorCode::kUnsupported) return r;
    }
  }
  IXA_ASSIGN_OR_RETURN(std::vector<LoweredStage> stages,
                       LowerFusion(region, plan, options, ctx));
  EmitResult result;
  result.kernel = options.kernel_name;
  result.plan = plan;
  result.emitter = EmitterKindName(plan.kind);
  result.notes = ReduceInitNotes(region, plan);
  PrintOptions print;
  print.target = options.target;
  print.host = options.host;
  for (const LoweredStage& s : stages) {
    bool last = &s == &stages.back();
    if (!options.stages && !last) continue;
    print.header = Header(region, plan, s.module, s.name, options);
    IXA_ASSIGN_OR_RETURN(std::string code, PrintModule(s.module, print));
    if (options.stages) result.stages.push_back({s.name, code});
    if (last) result.code = code;
  }
  const ir::Module& final_module = stages.back().module;
  // The launch reports what the code does: the vector width it loads and
  // stores with and the shared memory it declares. The planner predicts
  // both (thread_indexing reports the plan); the emit tests check that
  // they agree for every test fusion.
  result.plan.launch.vector_size = VectorWidth(final_module);
  result.plan.launch.shared_memory_bytes = final_module.shared_memory_bytes;
  const std::vector<int64_t> allocation =
      AllocationBytes(final_module, options);
  int index = 0;
  for (size_t i = 0; i < final_module.buffers.size(); ++i) {
    const ir::Buffer& b = final_module.buffers[i];
    if (b.space != ir::BufferSpace::kGlobal) continue;
    EmittedBuffer e;
    e.index = index++;
    e.allocation_bytes = allocation[i];
    e.is_output = b.is_output;
    e.shape = b.shape.ToStringWithLayout();
    if (b.is_output) {
      e.name = region.root->shape.IsTuple()
                   ? region.root->name + "." + std::to_string(b.hlo_output)
                   : region.root->name;
    } else {
      e.name = region.parameters[b.hlo_parameter]->name;
    }
    e.aliases = b.aliases;
    result.buffers.push_back(std::move(e));
  }
  return result;
}

}  // namespace ixa::emit
