#include "tests/emit/emit_harness.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/hlo/printer.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_interpreter.h"
#include "tests/emit/xla_shape_text.h"

namespace ixa::emit_test {
namespace {

// Compiler runs per batch of kernels: one for a few kernels, two (one per
// core) from 32 on. Each run has a fixed cost that a second unit pays
// again (nvcc's host pass about 1 s, g++ about 0.3 s), and ctest runs two
// test processes at once anyway.
int BatchUnits(size_t kernels) { return kernels >= 32 ? 2 : 1; }

// The bytes of an allocation past its shape's (where the target asks for
// more, emit/pipeline.h): a pattern the kernel must leave as it is.
constexpr uint8_t kAllocationPadByte = 0x5A;

struct Prepared {
  const CheckCase* c = nullptr;
  std::unique_ptr<hlo::Module> module;
  FusionRegion region;
  std::string kernel;
  emit::EmitResult cpp, cuda, mlir, mlir_host;
  std::vector<Literal> inputs;
  std::vector<Literal> expected;  // per output leaf
  std::vector<hlo::Shape> input_shapes, output_shapes;
  std::vector<int> aliases;  // per buffer
  std::string error;
  std::string emitter;
};

Tolerance ToleranceFor(ElementType t, bool reassociates) {
  Tolerance tol;
  if (IsComplex(t)) {
    // Each part is compared alone: a part that cancels (a product's real
    // part, a - b) is off by the rounding of the larger terms.
    const bool c64 = t == ElementType::kC64;
    tol.rel = c64 ? 1e-5 : 1e-12;
    tol.abs = c64 ? 1e-4 : 1e-12;
    if (reassociates) tol.rel *= 10;
    return tol;
  }
  if (!IsFloat(t)) return tol;
  if (IsF4(t)) {
    // Every result rounds to one of 16 values from the f32 the kernel
    // computes, which the interpreter computes too: exact, but for a
    // reduction's order of roundings (a step is half the value).
    tol.rel = reassociates ? 0.5 : 0;
    tol.abs = reassociates ? 1.0 : 0;
    return tol;
  }
  if (IsF8(t)) {
    // A result rounds to one code; the f32 value before rounding may
    // differ by an ulp (math functions), or by the order of a reduction's
    // roundings: a step of the type (f8e8m0fnu: a factor of 2), more for
    // reductions.
    const double step =
        t == ElementType::kF8E8M0FNU                                   ? 1.0
        : (t == ElementType::kF8E5M2 || t == ElementType::kF8E5M2FNUZ) ? 0.25
        : t == ElementType::kF8E3M4                                    ? 0.0625
                                                                       : 0.125;
    tol.rel = reassociates ? 4 * step : step;
    tol.abs = reassociates ? 1.0 : 1e-30;
    return tol;
  }
  if (reassociates) {
    switch (t) {
      case ElementType::kBF16:
        tol.rel = 5e-2;
        tol.abs = 2.0;
        break;
      case ElementType::kF16:
        tol.rel = 2e-2;
        tol.abs = 0.5;
        break;
      default:
        tol.rel = 1e-4;
        tol.abs = 1e-3;
        break;
    }
    return tol;
  }
  // The kernels compute as the interpreter does; transcendental functions
  // may still differ by a few ulp.
  switch (t) {
    case ElementType::kBF16:
      tol.rel = 1e-2;
      break;
    case ElementType::kF16:
      tol.rel = 2e-3;
      break;
    case ElementType::kF32:
      tol.rel = 1e-5;
      break;
    default:
      tol.rel = 1e-12;
      break;
  }
  tol.abs = 1e-30;
  return tol;
}

std::vector<Literal> OutputLeaves(const Literal& root) {
  if (!root.is_tuple()) return {root};
  std::vector<Literal> out;
  for (const Literal& e : root.tuple) {
    auto sub = OutputLeaves(e);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

void OutputShapes(const hlo::Shape& s, std::vector<hlo::Shape>* out) {
  if (!s.IsTuple()) {
    out->push_back(s);
    return;
  }
  for (const hlo::Shape& e : s.tuple_elements) OutputShapes(e, out);
}

// Bytes of the physical buffer that hold no element must be zero.
std::string CheckPadding(const std::vector<uint8_t>& bytes,
                         const hlo::Shape& s) {
  PhysicalLayout layout = ComputePhysicalLayout(s);
  std::vector<bool> element(layout.elements, false);
  for (int64_t o : layout.offset_of) element[o] = true;
  for (int64_t o = 0; o < layout.elements; ++o) {
    if (element[o]) continue;
    if (layout.packed()) {
      if ((bytes[layout.packed_byte(o)] >> layout.packed_shift(o)) &
          ((1 << layout.element_bits) - 1)) {
        return "padding element at offset " + std::to_string(o) +
               " is not zero";
      }
      continue;
    }
    for (int64_t b = 0; b < layout.element_bytes; ++b) {
      if (bytes[o * layout.element_bytes + b] != 0) {
        return "padding element at offset " + std::to_string(o) +
               " is not zero";
      }
    }
  }
  return "";
}

// The launch the emit result reports (what the code does) is the plan's,
// which thread_indexing reports: threads, blocks, vector width and shared
// memory.
std::string LaunchMismatch(const LaunchDimensions& plan,
                           const LaunchDimensions& emitted) {
  auto text = [](const LaunchDimensions& l) {
    std::ostringstream o;
    o << "threads (" << l.threads[0] << ", " << l.threads[1] << ", "
      << l.threads[2] << "), blocks (" << l.blocks[0] << ", " << l.blocks[1]
      << ", " << l.blocks[2] << "), vector_size " << l.vector_size
      << ", shared memory " << l.shared_memory_bytes;
    return o.str();
  };
  if (text(plan) == text(emitted)) return "";
  return "the plan's launch is " + text(plan) + "; the code's is " +
         text(emitted);
}

// Each target's buffers: one per fusion parameter and output, each
// allocation at least the shape's bytes (this file's own count); the
// targets that update in place (cpp, mlir's host form) ask for no more.
std::string AllocationError(const Prepared& p) {
  std::vector<hlo::Shape> shapes = p.input_shapes;
  shapes.insert(shapes.end(), p.output_shapes.begin(), p.output_shapes.end());
  const std::pair<const emit::EmitResult*, const char*> kTargets[] = {
      {&p.cpp, "cpp"},
      {&p.cuda, "cuda"},
      {&p.mlir, "mlir"},
      {&p.mlir_host, "mlir host"}};
  for (const auto& [result, name] : kTargets) {
    if (result->code.empty()) continue;
    if (result->buffers.size() != shapes.size()) {
      return std::string(name) + ": " + std::to_string(result->buffers.size()) +
             " buffers for " + std::to_string(shapes.size()) +
             " parameters and outputs";
    }
    const bool in_place = result == &p.cpp || result == &p.mlir_host;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const int64_t bytes = ComputePhysicalLayout(shapes[k]).bytes();
      const int64_t asked = result->buffers[k].allocation_bytes;
      if (asked < bytes || (in_place && asked != bytes)) {
        return std::string(name) + ": buffer " + std::to_string(k) +
               " asks for " + std::to_string(asked) + " bytes; its shape " +
               shapes[k].ToString(true) + " holds " + std::to_string(bytes);
      }
    }
  }
  return "";
}

void Prepare(Prepared& p, size_t i, const CheckOptions& options,
             ExprContext* ctx) {
  const CheckCase& c = *p.c;
  auto module = hlo::ParseHloModule(c.hlo);
  if (!module.ok()) {
    p.error = "HLO: " + module.error().ToString();
    return;
  }
  p.module = std::move(module).value();
  auto region = ResolveFusion(*p.module, "");
  if (!region.ok()) {
    p.error = "region: " + region.error().ToString();
    return;
  }
  p.region = *region;
  auto plan = options.planner(p.region, ctx);
  if (!plan.ok()) {
    p.error = "plan: " + plan.error().ToString();
    return;
  }
  p.emitter = EmitterKindName(plan->kind);
  if (!c.expect_emitter.empty() && c.expect_emitter != p.emitter) {
    p.error = "the plan chose " + p.emitter + ", expected " + c.expect_emitter;
    return;
  }
  p.kernel = "k" + std::to_string(i);
  emit::EmitOptions eo;
  eo.kernel_name = p.kernel;
  eo.stages = options.check_stages;
  auto emit = [&](emit::Target t, bool host, emit::EmitResult* out) {
    eo.target = t;
    eo.host = host;
    auto r = emit::EmitFusionWithPlan(p.region, *plan, eo, ctx);
    if (!r.ok()) {
      p.error = std::string("emit ") + emit::TargetName(t) + ": " +
                r.error().ToString();
      return false;
    }
    *out = std::move(r).value();
    return true;
  };
  if (!emit(emit::Target::kCpp, false, &p.cpp)) return;
  // Every shape ixa prints is XLA's text and reads back as itself: the
  // buffers a caller allocates from, and the fusion as the printer prints
  // it.
  for (const emit::EmittedBuffer& b : p.cpp.buffers) {
    if (std::string bad = ShapeRoundTripError(b.shape); !bad.empty()) {
      p.error = "buffer " + std::to_string(b.index) + ": " + bad;
      return;
    }
  }
  for (const std::string& shape : ShapesWithLayoutIn(hlo::PrintComputation(
           *p.region.computation, hlo::SanitizedNaming(), false))) {
    if (std::string bad = ShapeRoundTripError(shape); !bad.empty()) {
      p.error = "printed fusion: " + bad;
      return;
    }
  }
  // IXA_EMIT_DUMP=<label> prints the generated code (for debugging).
  const char* dump = std::getenv("IXA_EMIT_DUMP");
  bool dumping = dump && c.label == dump;
  if (dumping) {
    for (const auto& st : p.cpp.stages) {
      std::cerr << "// ==== cpp stage " << st.name << "\n" << st.code;
    }
    std::cerr << "// ==== cpp\n" << p.cpp.code;
  }
  if (options.verify_mlir && !emit(emit::Target::kMlir, false, &p.mlir)) return;
  if (c.run_mlir && !emit(emit::Target::kMlir, true, &p.mlir_host)) return;
  if (options.compile_cuda && !emit(emit::Target::kCuda, false, &p.cuda))
    return;
  if (dumping) {
    std::cerr << "// ==== mlir\n"
              << p.mlir.code << "// ==== mlir host\n"
              << p.mlir_host.code << "// ==== cuda\n"
              << p.cuda.code;
  }
  // The GEMM emitter's cuda kernel (docs/emitters.md "GEMM fusions")
  // launches a grid of its own; the plan's launch is the other targets'.
  const bool cuda_gemm = p.cuda.code.find("emitter gemm") != std::string::npos;
  std::string mismatch = LaunchMismatch(
      plan->launch, options.compile_cuda && !cuda_gemm ? p.cuda.plan.launch
                                                       : p.cpp.plan.launch);
  if (!mismatch.empty()) {
    p.error = mismatch;
    return;
  }
  const hlo::Computation& comp = *p.region.computation;
  for (int64_t k = 0; k < comp.parameter_count(); ++k) {
    p.input_shapes.push_back(comp.parameter(k)->shape);
  }
  OutputShapes(p.region.root->shape, &p.output_shapes);
  for (const emit::EmittedBuffer& b : p.cpp.buffers)
    p.aliases.push_back(b.aliases);
  p.error = AllocationError(p);
}

// Inputs and the interpreter's outputs, for a case that will run.
void Expected(Prepared& p) {
  if (!p.error.empty()) return;
  GeneratedFusion g;
  g.parameters = p.c->parameters;
  p.inputs = GenerateInputs(g, p.input_shapes, p.c->seed);
  FeedReducerIdentities(*p.region.computation, &p.inputs);
  auto expected = Interpret(*p.region.computation, p.inputs);
  if (!expected.ok()) {
    p.error = "interpreter: " + expected.error().ToString();
    return;
  }
  p.expected = OutputLeaves(*expected);
}

std::string CompareOutputs(const Prepared& p,
                           const std::vector<std::vector<uint8_t>>& buffers,
                           const std::string& what) {
  const size_t n_in = p.input_shapes.size();
  for (size_t j = 0; j < p.output_shapes.size(); ++j) {
    const hlo::Shape& s = p.output_shapes[j];
    const std::vector<uint8_t>& bytes = buffers[n_in + j];
    Literal got = FromPhysical(bytes, s);
    std::string diff = CompareLiterals(p.expected[j], got,
                                       ToleranceFor(s.type, p.c->reassociates));
    if (!diff.empty()) {
      return what + " output " + std::to_string(j) + ": " + diff;
    }
    // The allocation's bytes past the shape's stay as they were.
    for (size_t b = ComputePhysicalLayout(s).bytes(); b < bytes.size(); ++b) {
      if (bytes[b] != kAllocationPadByte) {
        return what + " output " + std::to_string(j) + ": byte " +
               std::to_string(b) + ", past the shape's bytes, changed";
      }
    }
    if (p.aliases.size() > n_in + j && p.aliases[n_in + j] >= 0) continue;
    std::string pad = CheckPadding(bytes, s);
    if (!pad.empty()) return what + " output " + std::to_string(j) + ": " + pad;
  }
  return "";
}

// Buffers for a run of `target`'s code: inputs encoded, outputs pre-filled
// with a pattern (in-place outputs start as the input they alias), each
// as long as the allocation the target asks for (the bytes past the
// shape's hold kAllocationPadByte).
std::vector<std::vector<uint8_t>> RunBuffers(const Prepared& p,
                                             const emit::EmitResult& target) {
  std::vector<std::vector<uint8_t>> buffers;
  auto allocate = [&](std::vector<uint8_t> bytes) {
    const size_t k = buffers.size();
    if (k < target.buffers.size()) {
      bytes.resize(
          std::max<size_t>(bytes.size(), target.buffers[k].allocation_bytes),
          kAllocationPadByte);
    }
    buffers.push_back(std::move(bytes));
  };
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    allocate(ToPhysical(p.inputs[k], p.input_shapes[k]));
  }
  for (size_t j = 0; j < p.output_shapes.size(); ++j) {
    size_t at = buffers.size();
    int alias = at < p.aliases.size() ? p.aliases[at] : -1;
    if (alias >= 0) {
      allocate(buffers[alias]);
    } else {
      allocate(std::vector<uint8_t>(
          ComputePhysicalLayout(p.output_shapes[j]).bytes(), 0xAB));
    }
  }
  return buffers;
}

// The kernel's __launch_bounds__ must admit the reported block (a GPU
// refuses the launch otherwise).
std::string LaunchBoundsError(const std::string& code,
                              const LaunchDimensions& launch) {
  const std::string key = "__launch_bounds__(";
  size_t at = code.find(key);
  if (at == std::string::npos) return "";
  int64_t bound = std::atoll(code.c_str() + at + key.size());
  if (bound >= launch.threads_per_block()) return "";
  return "__launch_bounds__(" + std::to_string(bound) + ") below the " +
         std::to_string(launch.threads_per_block()) +
         " threads per block the launch reports";
}

// The launch's vector_size is the widest vector the code loads or stores
// (ixa_vec<T, N> with a number N; 1 when there is none).
std::string VectorSizeError(const std::string& code,
                            const LaunchDimensions& launch) {
  int64_t widest = 1;
  const std::string key = "ixa_vec<";
  for (size_t at = code.find(key); at != std::string::npos;
       at = code.find(key, at + 1)) {
    size_t comma = code.find(',', at), close = code.find('>', at);
    if (comma == std::string::npos || close == std::string::npos ||
        comma > close) {
      continue;
    }
    std::string n = code.substr(comma + 1, close - comma - 1);
    n.erase(0, n.find_first_not_of(' '));
    if (n.empty() || !std::isdigit(static_cast<unsigned char>(n[0]))) continue;
    widest = std::max<int64_t>(widest, std::atoll(n.c_str()));
  }
  if (widest == launch.vector_size) return "";
  return "the launch reports vector_size " +
         std::to_string(launch.vector_size) +
         "; the code's widest vector access is " + std::to_string(widest) +
         " elements";
}

// Arguments that share memory (an in-place output and its input) must not
// be __restrict__ (the model runs them as one array; a GPU may not).
std::string RestrictAliasError(const std::string& code,
                               const std::vector<int>& aliases) {
  size_t at = code.find("__global__");
  size_t open = code.find('(', code.find(')', at) + 1);
  size_t close = code.find(')', open);
  if (at == std::string::npos || open == std::string::npos ||
      close == std::string::npos) {
    return "";
  }
  std::vector<std::string> params;
  std::stringstream list(code.substr(open + 1, close - open - 1));
  for (std::string p; std::getline(list, p, ',');) params.push_back(p);
  auto restricted = [&](size_t i) {
    return i < params.size() &&
           params[i].find("__restrict__") != std::string::npos;
  };
  for (size_t i = 0; i < aliases.size(); ++i) {
    if (aliases[i] < 0) continue;
    if (restricted(i) || restricted(static_cast<size_t>(aliases[i]))) {
      return "arguments " + std::to_string(aliases[i]) + " and " +
             std::to_string(i) + " share memory but are declared __restrict__";
    }
  }
  return "";
}

// The `cuda` code in the CPU model of CUDA: with the reported launch, in
// every thread order; each order's outputs match the interpreter and the
// forward order's bytes (the threads of a kernel that reassociates still
// combine in a fixed tree; only atomics could vary, and then within the
// tolerance).
void RunCudaModel(std::vector<Prepared>& prepared, CheckSummary* summary) {
  std::vector<CppKernel> kernels;
  std::vector<size_t> owners;
  for (size_t i = 0; i < prepared.size(); ++i) {
    const Prepared& p = prepared[i];
    if (!p.error.empty() || p.cuda.code.empty()) continue;
    kernels.push_back({p.kernel, p.cuda.code});
    owners.push_back(i);
  }
  if (kernels.empty()) return;
  CudaModelBatch batch;
  auto built = batch.Build(kernels, BatchUnits(kernels.size()));
  if (!built.ok()) {
    // Find the kernels the host compiler rejects, then build the others.
    std::vector<CppKernel> good;
    std::vector<size_t> good_owners;
    for (size_t k = 0; k < kernels.size(); ++k) {
      auto one = CudaModelBatch::CompileOnly({kernels[k]});
      if (one.ok()) {
        good.push_back(kernels[k]);
        good_owners.push_back(owners[k]);
      } else {
        prepared[owners[k]].error =
            "cuda model compile: " + one.error().message;
      }
    }
    kernels = good;
    owners = good_owners;
    built = kernels.empty() ? Status()
                            : batch.Build(kernels, BatchUnits(kernels.size()));
  }
  for (size_t k = 0; k < owners.size(); ++k) {
    Prepared& p = prepared[owners[k]];
    if (!built.ok()) {
      p.error = "cuda model build: " + built.error().message;
      continue;
    }
    const LaunchDimensions& launch = p.cuda.plan.launch;
    std::string bounds = LaunchBoundsError(p.cuda.code, launch);
    if (bounds.empty()) bounds = RestrictAliasError(p.cuda.code, p.aliases);
    if (bounds.empty()) bounds = VectorSizeError(p.cuda.code, launch);
    if (!bounds.empty()) {
      p.error = "cuda: " + bounds;
      continue;
    }
    std::vector<std::vector<uint8_t>> first;
    for (ThreadOrder order : kThreadOrders) {
      std::string what = std::string("cuda (") + ThreadOrderName(order) + ")";
      std::vector<std::vector<uint8_t>> buffers = RunBuffers(p, p.cuda);
      auto ran =
          batch.Run(p.kernel, launch, order, p.c->seed, &buffers, p.aliases);
      if (!ran.ok()) {
        p.error = what + ": " + ran.error().message;
        break;
      }
      p.error = CompareOutputs(p, buffers, what);
      if (!p.error.empty()) break;
      if (order == ThreadOrder::kForward) {
        first = buffers;
      } else if (buffers != first && !p.c->reassociates) {
        p.error = what + ": the outputs differ from the forward order's";
        break;
      }
    }
    if (p.error.empty()) ++summary->cuda_runs;
  }
}

}  // namespace

Planner H100Planner() {
  return [](const FusionRegion& r, ExprContext* ctx) {
    return ComputeEmitterPlan(r, *hw::FindDevice("h100"), ctx);
  };
}

std::vector<PortableCase> PrepareCases(const std::vector<CheckCase>& cases,
                                       const CheckOptions& options) {
  CheckOptions o = options;
  o.verify_mlir = false;
  o.compile_cuda = true;  // the `cuda` code is what runs
  auto ctx = std::make_shared<ExprContext>();
  std::vector<PortableCase> out;
  for (size_t i = 0; i < cases.size(); ++i) {
    auto p = std::make_shared<Prepared>();
    p->c = &cases[i];
    Prepare(*p, i, o, ctx.get());
    Expected(*p);
    PortableCase pc;
    pc.label = cases[i].label;
    pc.emitter = p->emitter;
    pc.error = p->error;
    if (pc.error.empty()) {
      pc.kernel = p->kernel;
      pc.cuda_code = p->cuda.code;
      pc.launch = p->cuda.plan.launch;
      pc.buffers = RunBuffers(*p, p->cuda);
      pc.aliases = p->aliases;
      pc.inputs = p->input_shapes.size();
      // The context owns the maps the prepared case's plan points into.
      pc.check = [p, ctx](const std::vector<std::vector<uint8_t>>& buffers) {
        return CompareOutputs(*p, buffers, "gpu");
      };
    }
    out.push_back(std::move(pc));
  }
  return out;
}

CheckCase FromGenerated(const GeneratedFusion& f, const std::string& label) {
  CheckCase c;
  c.label = label;
  c.hlo = f.hlo;
  c.parameters = f.parameters;
  c.reassociates = f.reassociates;
  c.seed = f.seed + 1000;
  return c;
}

CheckSummary CheckFusions(const std::vector<CheckCase>& cases,
                          const CheckOptions& options) {
  CheckSummary summary;
  ExprContext ctx;
  std::vector<Prepared> prepared(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    prepared[i].c = &cases[i];
    Prepare(prepared[i], i, options, &ctx);
  }
  // Sanitizer pass: emission above ran for all; tools for a subset.
  std::vector<bool> skip(cases.size(), false);
  if (Sanitized()) {
    for (size_t i = 0; i < cases.size(); ++i) {
      skip[i] = i % kSanitizedStride != 0;
      if (skip[i] && prepared[i].error.empty()) {
        prepared[i].cpp.code.clear();
        prepared[i].cpp.stages.clear();
        prepared[i].mlir.code.clear();
        prepared[i].mlir.stages.clear();
        prepared[i].mlir_host.code.clear();
        prepared[i].cuda.code.clear();
      }
    }
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!skip[i]) Expected(prepared[i]);
  }
  // cpp: one shared object for the batch.
  if (options.run_cpp) {
    std::vector<CppKernel> kernels;
    std::vector<size_t> owners;
    for (size_t i = 0; i < prepared.size(); ++i) {
      if (!prepared[i].error.empty() || prepared[i].cpp.code.empty()) continue;
      kernels.push_back({prepared[i].kernel, prepared[i].cpp.code});
      owners.push_back(i);
    }
    CppBatch batch;
    auto built = kernels.empty()
                     ? Status()
                     : batch.Build(kernels, BatchUnits(kernels.size()));
    if (!built.ok()) {
      // Find the kernels g++ rejects, then build the others.
      std::vector<CppKernel> good;
      std::vector<size_t> good_owners;
      for (size_t k = 0; k < kernels.size(); ++k) {
        auto one = CppBatch::CompileOnly({kernels[k]}, 1);
        if (one.ok()) {
          good.push_back(kernels[k]);
          good_owners.push_back(owners[k]);
        } else {
          prepared[owners[k]].error = "cpp compile: " + one.error().message;
        }
      }
      kernels = good;
      owners = good_owners;
      built = kernels.empty()
                  ? Status()
                  : batch.Build(kernels, BatchUnits(kernels.size()));
    }
    for (size_t k = 0; k < owners.size(); ++k) {
      Prepared& p = prepared[owners[k]];
      if (!built.ok()) {
        p.error = "cpp build: " + built.error().message;
        continue;
      }
      std::vector<std::vector<uint8_t>> buffers = RunBuffers(p, p.cpp);
      auto ran = batch.Run(p.kernel, &buffers, p.aliases);
      if (!ran.ok()) {
        p.error = "cpp run: " + ran.error().message;
        continue;
      }
      p.error = CompareOutputs(p, buffers, "cpp");
      ++summary.cpp_runs;
    }
  }
  if (options.run_cuda) RunCudaModel(prepared, &summary);
  if (options.verify_mlir) {
    std::vector<std::string> modules;
    std::vector<std::pair<size_t, std::string>> owners;
    for (size_t i = 0; i < prepared.size(); ++i) {
      const Prepared& p = prepared[i];
      if (!p.error.empty() && p.cpp.code.empty()) continue;
      if (p.mlir.code.empty()) continue;
      modules.push_back(p.mlir.code);
      owners.push_back({i, "mlir"});
      if (!p.mlir_host.code.empty()) {
        modules.push_back(p.mlir_host.code);
        owners.push_back({i, "mlir host"});
      }
      for (const emit::EmittedStage& s : p.mlir.stages) {
        modules.push_back(s.code);
        owners.push_back({i, "mlir stage " + s.name});
      }
    }
    std::vector<std::string> errors = VerifyMlir(modules);
    for (size_t k = 0; k < errors.size(); ++k) {
      Prepared& p = prepared[owners[k].first];
      if (!errors[k].empty() && p.error.empty()) {
        p.error = owners[k].second + " does not verify:\n" + errors[k];
      }
      if (errors[k].empty()) ++summary.mlir_verified;
    }
  }
  for (Prepared& p : prepared) {
    if (!p.error.empty() || p.mlir_host.code.empty()) continue;
    std::vector<std::vector<uint8_t>> raw = RunBuffers(p, p.mlir_host);
    std::vector<MlirBuffer> buffers;
    for (size_t k = 0; k < raw.size(); ++k) {
      bool out = k >= p.input_shapes.size();
      hlo::Shape s =
          out ? p.output_shapes[k - p.input_shapes.size()] : p.input_shapes[k];
      bool in_place = p.aliases.size() > k && p.aliases[k] >= 0;
      // In-place outputs: the host harness has no aliasing; the output
      // starts as a copy of the input it stands for.
      buffers.push_back({s, raw[k], out, in_place});
    }
    auto ran = RunMlirHost(p.mlir_host.code, p.kernel, &buffers);
    if (!ran.ok()) {
      p.error = "mlir host run: " + ran.error().message;
      continue;
    }
    std::vector<std::vector<uint8_t>> after;
    for (const MlirBuffer& b : buffers) after.push_back(b.bytes);
    p.error = CompareOutputs(p, after, "mlir host");
    ++summary.mlir_runs;
  }
  auto nvcc = FindNvcc();
  summary.nvcc_found = nvcc.has_value();
  // The sanitizers check the emitters, not nvcc: the CUDA text is the
  // same as in the Release pass, which compiles every kernel.
  if (options.compile_cuda && nvcc && !Sanitized()) {
    std::vector<CppKernel> units;
    std::vector<size_t> owners;
    for (size_t i = 0; i < prepared.size(); ++i) {
      const Prepared& p = prepared[i];
      if (p.cuda.code.empty()) continue;
      units.push_back({p.kernel, p.cuda.code});
      owners.push_back(i);
    }
    if (!units.empty()) {
      std::vector<std::string> sources =
          BatchSources(units, BatchUnits(units.size()));
      // The bounds of one fusion (60 s, 2 GB per process) for each kernel
      // of a unit, in time.
      NvccOptions bounded;
      bounded.seconds *= static_cast<int>((units.size() + sources.size() - 1) /
                                          sources.size());
      // No kernel may spill to local memory (ptxas -v).
      bounded.no_spills = options.no_spills;
      // The device side of every kernel; the host side of `nvcc -c` (the
      // launch stubs) is compiled by the nvcc tests' worked examples and
      // many-output fusions.
      bounded.device_only = true;
      std::vector<std::string> errors = CompileCuda(*nvcc, sources, bounded);
      for (size_t u = 0; u < errors.size(); ++u) {
        if (errors[u].empty()) continue;
        // Find which kernel failed: compile them alone.
        for (size_t k = 0; k < units.size(); ++k) {
          if (static_cast<int>(k * sources.size() / units.size()) !=
              static_cast<int>(u))
            continue;
          NvccOptions alone;
          alone.no_spills = options.no_spills;
          alone.device_only = true;
          auto single = CompileCuda(*nvcc, {units[k].code}, alone);
          Prepared& p = prepared[owners[k]];
          if (!single[0].empty() && p.error.empty())
            p.error = "nvcc: " + single[0];
        }
      }
      summary.cuda_compiled = static_cast<int>(units.size());
    }
  }
  if (options.check_stages) {
    std::vector<CppKernel> stage_units;
    std::vector<size_t> owners;
    for (size_t i = 0; i < prepared.size(); ++i) {
      const Prepared& p = prepared[i];
      for (const emit::EmittedStage& s : p.cpp.stages) {
        std::string name = p.kernel + "_" + s.name;
        std::string code = s.code;
        // Stages print the same kernel name: rename per stage.
        for (size_t at = 0;
             (at = code.find(" " + p.kernel + "(", at)) != std::string::npos;) {
          code.replace(at + 1, p.kernel.size(), name);
          at += name.size();
        }
        stage_units.push_back({name, code});
        owners.push_back(i);
      }
    }
    if (!stage_units.empty()) {
      auto ok =
          CppBatch::CompileOnly(stage_units, BatchUnits(stage_units.size()),
                                /*syntax_only=*/true);
      if (!ok.ok()) {
        for (size_t k = 0; k < stage_units.size(); ++k) {
          auto one =
              CppBatch::CompileOnly({stage_units[k]}, 1, /*syntax_only=*/true);
          Prepared& p = prepared[owners[k]];
          if (!one.ok() && p.error.empty()) {
            p.error =
                "cpp stage " + stage_units[k].name + ": " + one.error().message;
          }
        }
      }
      summary.stages_checked = static_cast<int>(stage_units.size());
    }
  }
  for (const Prepared& p : prepared) {
    summary.cases.push_back({p.c->label, p.emitter, p.error});
  }
  return summary;
}

}  // namespace ixa::emit_test
