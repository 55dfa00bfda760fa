// `emit` with targets "cpp", "cuda" and "mlir" (docs/protocol.md, op
// `emit`): plans the fusion, lowers it through the emitter's stages
// (emit/pipeline.h) and prints the target's code.
#include <cctype>

#include "emit/pipeline.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/emit_ops.h"
#include "tools/ixa/hlo_request.h"
#include "tools/ixa/plan_json.h"

namespace ixa::cli {
namespace {

// `name` made a C identifier: other characters become '_', runs of '_'
// (reserved in C++ as "__") one.
std::string IdentifierOf(std::string_view name) {
  std::string out;
  for (char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  std::string squeezed;
  for (char c : out) {
    if (c == '_' && !squeezed.empty() && squeezed.back() == '_') continue;
    squeezed += c;
  }
  return squeezed;
}

// The default kernel name: after the fusion the request names, else after
// the instruction the kernel computes (the entry's root: the root fusion,
// or the root of the entry computation; a group's root), made a C
// identifier. Kernels of one module get distinct names (they link into one
// program): where another entry instruction's name reads the same as an
// identifier ("f.1" and "f_1"), the instruction's position is appended. A
// name no kernel may have (a fusion called `main`, `int` or `exp`, a
// runtime helper's) gets the prefix `fusion_`.
std::string KernelName(const Json& request, const hlo::Module& module,
                       const FusionRegion& region) {
  std::string name = request.value("fusion", std::string());
  if (name.empty()) {
    const bool group = Has(request, "instructions");
    const hlo::Instruction* root =
        group ? region.root
              : (module.entry() ? module.entry()->root() : nullptr);
    name = root != nullptr ? root->name : std::string("fusion");
  }
  std::string out = IdentifierOf(name);
  if (module.entry() != nullptr) {
    bool clash = false;
    int position = -1, index = 0;
    for (const auto& instr : module.entry()->instructions()) {
      if (instr->name == name) {
        position = index;
      } else if (IdentifierOf(instr->name) == out) {
        clash = true;
      }
      ++index;
    }
    if (clash && position >= 0) out += "_" + std::to_string(position);
  }
  if (out.empty()) out = "fusion";
  if (!emit::CheckKernelName(out).ok()) {
    out = "fusion_" + (out.rfind('_', 0) == 0 ? out.substr(1) : out);
  }
  return out;
}

// The target and the switches of the request, checked before the module
// is read.
Result<emit::EmitOptions> GetEmitOptions(const Json& request) {
  IXA_ASSIGN_OR_RETURN(std::string target, GetString(request, "target"));
  emit::EmitOptions options;
  options.target = target == "cpp"    ? emit::Target::kCpp
                   : target == "cuda" ? emit::Target::kCuda
                                      : emit::Target::kMlir;
  for (const char* flag : {"stages", "host", "tf32"}) {
    if (Has(request, flag) && !request.at(flag).is_boolean()) {
      return Error::BadRequest(std::string("field '") + flag +
                               "' must be a boolean");
    }
  }
  options.stages = request.value("stages", false);
  options.host = request.value("host", false);
  if (options.host && options.target != emit::Target::kMlir) {
    return Error::Invalid("'host' applies to target mlir only");
  }
  options.tf32 = request.value("tf32", false);
  if (options.tf32 && options.target != emit::Target::kCuda) {
    return Error::Invalid("'tf32' applies to target cuda only");
  }
  return options;
}

Result<Json> EmitFusion(const Json& request, emit::EmitOptions options,
                        const hlo::Module& module, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(FlatRegion flat_region, GetRegion(request, module));
  const FusionRegion& region = flat_region.region;
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  IXA_ASSIGN_OR_RETURN(std::string kernel,
                       GetOptionalString(request, "kernel"));
  if (kernel.empty()) kernel = KernelName(request, module, region);
  if (!IsCIdentifier(kernel)) {
    return Error::Invalid("field 'kernel' must be a C identifier; got '" +
                          kernel + "'");
  }
  if (auto usable = emit::CheckKernelName(kernel); !usable.ok()) {
    return Error::Invalid("field 'kernel': " + usable.error().message);
  }
  options.kernel_name = kernel;
  if (device.shared_memory_per_block > 0) {
    options.shared_memory_limit = device.shared_memory_per_block;
  }
  IXA_ASSIGN_OR_RETURN(emit::EmitResult result,
                       emit::EmitFusion(region, device, options, &ctx));
  Json response = Json::object();
  response["code"] = result.code;
  response["kernel"] = result.kernel;
  response["emitter"] = EmitterKindName(result.plan.kind);
  response["kernel_emitter"] = result.emitter;
  if (result.plan.reduction_kind) {
    response["reduction_kind"] = ReductionKindName(*result.plan.reduction_kind);
  }
  response["launch"] = LaunchDimensionsJson(result.plan.launch);
  Json buffers = Json::array();
  for (const emit::EmittedBuffer& b : result.buffers) {
    Json entry = {{"index", b.index},
                  {"role", b.is_output ? "output" : "input"},
                  {"name", b.name},
                  {"shape", b.shape},
                  {"allocation_bytes", b.allocation_bytes}};
    if (b.aliases >= 0) entry["aliases"] = b.aliases;
    buffers.push_back(std::move(entry));
  }
  response["buffers"] = std::move(buffers);
  if (!result.plan.shared_tiles.empty()) {
    Json tiles = Json::array();
    for (const SharedTile& t : result.plan.shared_tiles) {
      tiles.push_back(SharedTileJson(t));
    }
    response["shared_tiles"] = std::move(tiles);
    response["shared_accesses"] = SharedAccessesJson(result.plan);
  }
  if (!result.notes.empty()) response["notes"] = result.notes;
  if (options.stages) {
    Json stages = Json::array();
    for (const emit::EmittedStage& s : result.stages) {
      stages.push_back({{"name", s.name}, {"code", s.code}});
    }
    response["stages"] = std::move(stages);
  }
  return response;
}

}  // namespace

bool IsCIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

Result<Json> EmitFusionRequest(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(emit::EmitOptions options, GetEmitOptions(request));
  IXA_ASSIGN_OR_RETURN(auto module, GetModule(request));
  return EmitFusion(request, std::move(options), *module, ctx);
}

Result<Json> EmitFusionOfModule(const Json& request, const hlo::Module& module,
                                ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(emit::EmitOptions options, GetEmitOptions(request));
  return EmitFusion(request, std::move(options), module, ctx);
}

}  // namespace ixa::cli
