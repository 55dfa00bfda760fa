// The `compile` op and `ixa compile` (docs/compile.md): a whole module as
// one program for one device (RunOneDevice first). A module without fusions in
// its entry is first rewritten by XLA's pre-fusion pipeline (`prefusion`, on by
// default) and fused by fusion_plan (`fuse`, on by default); if the planned
// module cannot be compiled, the module is compiled as read, one kernel per
// instruction (its scatters still brought to XLA's simplified form unless
// `prefusion` is false), and the response says so.
#include <chrono>
#include <iostream>

#include "analysis/prefusion/prefusion.h"
#include "analysis/uses/fusion_plan.h"
#include "emit/program/program.h"
#include "tools/ixa/command_line.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/emit_ops.h"
#include "tools/ixa/hlo_request.h"
#include "tools/ixa/query_server.h"

namespace ixa::cli {
namespace {

bool EntryHasFusions(const hlo::Module& module) {
  for (const auto& in : module.entry()->instructions()) {
    if (in->opcode == hlo::Opcode::kFusion) return true;
  }
  return false;
}

Json ProgramJson(const emit::ProgramResult& program) {
  Json kernels = Json::array();
  for (const emit::ProgramKernel& k : program.kernels) {
    Json kernel = {{"name", k.name},
                   {"instruction", k.instruction},
                   {"computation", k.computation},
                   {"emitter", k.emitter}};
    if (!k.refusal.empty()) kernel["refusal"] = k.refusal;
    kernels.push_back(std::move(kernel));
  }
  Json buffers = Json::array();
  for (const emit::ProgramBuffer& b : program.buffers) {
    buffers.push_back({{"computation", b.computation},
                       {"instruction", b.instruction},
                       {"output", b.output},
                       {"shape", b.shape},
                       {"bytes", b.bytes},
                       {"offset", b.offset},
                       {"defined", b.defined},
                       {"last_use", b.last_use}});
  }
  Json parameters = Json::array();
  for (const emit::ProgramParameter& p : program.parameters) {
    parameters.push_back(
        {{"parameter", p.parameter}, {"index", p.index}, {"shape", p.shape}});
  }
  return {{"code", program.code},
          {"parameters", std::move(parameters)},
          {"kernels", std::move(kernels)},
          {"peak_bytes", program.peak_bytes},
          {"total_bytes", program.total_bytes},
          {"buffers", std::move(buffers)}};
}

// What the one-device rewrite made of the module, when it changed it.
void AddOneDeviceRewrites(const PrefusionResult& one_device, Json* response) {
  if (one_device.rewrites.empty()) return;
  Json rewrites = Json::array();
  for (const PrefusionRewrite& r : one_device.rewrites) {
    rewrites.push_back({{"instruction", r.instruction}, {"what", r.what}});
  }
  (*response)["one_device"] = std::move(rewrites);
}

Result<Json> CompileOfModule(const Json& request, const hlo::Module& input,
                             ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::string target, GetString(request, "target"));
  emit::CompileOptions options;
  if (target == "cpp") {
    options.target = emit::Target::kCpp;
  } else if (target == "cuda") {
    options.target = emit::Target::kCuda;
  } else {
    return Error::BadRequest("field 'target' must be cpp or cuda; got '" +
                             target + "'");
  }
  IXA_ASSIGN_OR_RETURN(std::string entry, GetOptionalString(request, "entry"));
  if (!entry.empty()) {
    if (!IsCIdentifier(entry)) {
      return Error::Invalid("field 'entry' must be a C identifier; got '" +
                            entry + "'");
    }
    options.entry_name = entry;
  }
  if (Has(request, "fuse") && !request.at("fuse").is_boolean()) {
    return Error::BadRequest("field 'fuse' must be a boolean");
  }
  const bool fuse = request.value("fuse", true);
  IXA_ASSIGN_OR_RETURN(options.tf32, GetBool(request, "tf32", false));
  if (options.tf32 && options.target != emit::Target::kCuda) {
    return Error::Invalid("'tf32' applies to target cuda only");
  }
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(request));
  if (device.shared_memory_per_block > 0) {
    options.shared_memory_limit = device.shared_memory_per_block;
  }
  // A program runs on one device: async pairs, collectives and sharding
  // annotations first take their one-device meaning, whatever follows.
  IXA_ASSIGN_OR_RETURN(PrefusionResult one_device, RunOneDevice(input));
  const hlo::Module& module = one_device.Output(input);
  std::string fusion = "as_read";
  std::string note;
  IXA_ASSIGN_OR_RETURN(bool prefuse, GetBool(request, "prefusion", true));
  if (fuse && module.entry() != nullptr && !EntryHasFusions(module)) {
    // As fusion_plan answers it: XLA's pre-fusion pipeline first (long
    // reductions split, dots as library GEMM calls), then the plan.
    std::optional<PrefusionResult> prefused;
    if (prefuse) {
      IXA_ASSIGN_OR_RETURN(PrefusionResult result, RunPrefusion(module));
      prefused = std::move(result);
    }
    const hlo::Module& to_plan = prefused ? prefused->Output(module) : module;
    FusionPlanOptions plan_options;
    plan_options.model = CostModel::kXla;
    Result<FusionPlanResult> plan =
        PlanFusions(to_plan, device, plan_options, &ctx);
    if (plan.ok()) {
      Result<std::unique_ptr<hlo::Module>> fused =
          hlo::ParseHloModule(plan->module_text);
      if (fused.ok()) {
        Result<emit::ProgramResult> program =
            emit::CompileModule(**fused, device, options, &ctx);
        if (program.ok()) {
          Json response = ProgramJson(*program);
          response["fusion"] = "fusion_plan";
          AddOneDeviceRewrites(one_device, &response);
          return response;
        }
        note = "the planned module did not compile (" +
               program.error().message + "); compiled as read";
      } else {
        note = "the planned module did not read back (" +
               fused.error().message + "); compiled as read";
      }
    } else {
      note =
          "fusion_plan failed (" + plan.error().message + "); compiled as read";
    }
  }
  // As read, but with the lowering XLA does before its emitters whatever
  // the fusions: its expanders (batch norms, topk, stochastic converts,
  // select-and-scatters are never emitted as written) and its scatter
  // normalization (the scatter emitter takes simplified scatters only).
  std::optional<PrefusionResult> normalized;
  if (prefuse) {
    IXA_ASSIGN_OR_RETURN(PrefusionResult result, RunCompileLowering(module));
    normalized = std::move(result);
  }
  IXA_ASSIGN_OR_RETURN(
      emit::ProgramResult program,
      emit::CompileModule(normalized ? normalized->Output(module) : module,
                          device, options, &ctx));
  Json response = ProgramJson(program);
  response["fusion"] = fusion;
  AddOneDeviceRewrites(one_device, &response);
  if (!note.empty()) response["note"] = note;
  return response;
}

Result<Json> Compile(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(auto module, GetModule(request));
  return CompileOfModule(request, *module, ctx);
}

const char kCompileUsage[] =
    "usage: ixa compile --target cpp|cuda [--device D] [--devices FILE]\n"
    "                   [--entry NAME] [--no-fuse] [--tf32] [-o FILE] "
    "FILE.hlo\n"
    "\n"
    "Prints the program that the `compile` request of `ixa query` makes of\n"
    "a whole module: every kernel, the host code between them and the entry\n"
    "point `extern \"C\" int ixa_run(const void* const* params, void* const*\n"
    "results)`; with --target cpp also a main reading the parameters from\n"
    ".npy files (docs/compile.md).\n"
    "\n"
    "flags (each one also as --flag=value):\n"
    "  --target T         cpp or cuda. Required.\n"
    "  --device D         a GPU, see `ixa devices` (default h100)\n"
    "  --devices FILE     adds the devices of a JSON table (docs/protocol.md\n"
    "                     \"Devices\") to those --device may name\n"
    "  --entry NAME       the entry point's name (default ixa_run)\n"
    "  --no-fuse          compile a module without fusions as read (one\n"
    "                     kernel per instruction) instead of fusing it with\n"
    "                     fusion_plan first\n"
    "  --tf32             cuda: f32 dots on TF32 tensor cores (as cuBLAS at\n"
    "                     XLA's default precision; off: exact f32)\n"
    "  -o, --output FILE  write the code to FILE ('-': standard output, the\n"
    "                     default)\n"
    "  -h, --help         print this help\n"
    "  FILE.hlo           the HLO module, as text; '-' reads standard input\n"
    "\n"
    "exit codes:\n"
    "  0   the code was printed\n"
    "  1   FILE.hlo is not valid HLO, or it cannot be compiled\n"
    "  64  usage error\n"
    "  66  FILE.hlo or the --devices table cannot be read\n"
    "  70  internal error\n"
    "  73  the output cannot be written\n";

constexpr FlagSpec kCompileFlags[] = {
    {"--target"},
    {"--device"},
    {"--devices"},
    {"--entry"},
    {"--no-fuse", "", false},
    {"--tf32", "", false},
    {"--output", "-o"},
};

}  // namespace

void RegisterCompileOps(OpTable& table) { table["compile"] = Compile; }

int RunCompileCommand(int argc, char** argv) {
  std::optional<CommandLine> line =
      ReadCommandLine("compile", argc, argv, kCompileFlags, kCompileUsage);
  if (!line) return kExitUsage;
  if (line->help) {
    std::cout << kCompileUsage;
    return kExitOk;
  }
  if (line->Has("--devices")) {
    int exit_code = kExitOk;
    if (!LoadDevicesFlag("compile", line->Get("--devices"), &exit_code)) {
      return exit_code;
    }
  }
  if (!line->Has("--target")) {
    return UsageError("compile", "--target is required", kCompileUsage);
  }
  const std::string target = line->Get("--target");
  if (target != "cpp" && target != "cuda") {
    return UsageError("compile",
                      "--target must be cpp or cuda; got '" + target + "'",
                      kCompileUsage);
  }
  if (line->operands.size() != 1) {
    return UsageError("compile",
                      line->operands.empty() ? "an HLO file is required"
                                             : "more than one input file",
                      kCompileUsage);
  }
  Json request = {{"op", "compile"}, {"target", target}};
  if (line->Has("--device")) request["device"] = line->Get("--device");
  if (line->Has("--entry")) {
    if (!IsCIdentifier(line->Get("--entry"))) {
      return UsageError(
          "compile",
          "--entry must be a C identifier; got '" + line->Get("--entry") + "'",
          kCompileUsage);
    }
    request["entry"] = line->Get("--entry");
  }
  if (line->On("--no-fuse")) request["fuse"] = false;
  if (line->On("--tf32")) request["tf32"] = true;
  const std::string& input = line->operands[0];
  std::string text, reason;
  if (!ReadInput(input, &text, &reason)) {
    std::cerr << "ixa compile: cannot read '" << input << "': " << reason
              << "\n";
    return kExitNoInput;
  }
  const std::string source = input == "-" ? "<stdin>" : input;
  Result<std::unique_ptr<hlo::Module>> parsed = hlo::ParseHloModule(text);
  auto failure = [](const Error& e) {
    return e.code == ErrorCode::kInternal ? kExitInternal : kExitSomeFailed;
  };
  if (!parsed.ok()) {
    std::cerr << CompilerStyleError(source, parsed.error()) << "\n";
    return failure(parsed.error());
  }
  ExprContext ctx;
  Result<Json> result = CompileOfModule(request, **parsed, ctx);
  if (!result.ok()) {
    std::cerr << CompilerStyleError(source, result.error()) << "\n";
    return failure(result.error());
  }
  if (result->contains("note")) {
    std::cerr << "ixa compile: " << result->at("note").get<std::string>()
              << "\n";
  }
  if (!WriteOutput("compile", line->Get("--output"),
                   result->at("code").get<std::string>())) {
    return kExitCannotCreate;
  }
  return kExitOk;
}

}  // namespace ixa::cli
