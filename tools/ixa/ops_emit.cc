// The `emit` op's dispatcher and the `ixa emit` command.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>

#include "analysis/hlo/module.h"
#include "emit/pto/pto_codegen.h"
#include "hw/device.h"
#include "hw/dtype.h"
#include "hw/pto.h"
#include "tools/ixa/command_line.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/emit_ops.h"
#include "tools/ixa/query_server.h"

namespace ixa::cli {
namespace {

Result<Json> Emit(const Json& request, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::string target, GetString(request, "target"));
  if (target == "pto") return EmitPtoRequest(request, ctx);
  if (target == "cpp" || target == "cuda" || target == "mlir") {
    return EmitFusionRequest(request, ctx);
  }
  return Error::BadRequest(
      "field 'target' must be one of cpp, cuda, mlir, "
      "pto; got '" +
      target + "'");
}

const char kEmitUsage[] =
    "usage: ixa emit --target cpp|cuda|mlir [--fusion NAME] [--device D]\n"
    "                [--devices FILE] [--kernel NAME] [--stages] [--host]\n"
    "                [-o FILE] FILE.hlo\n"
    "       ixa emit --target pto --arch a2a3|a5 --conversion C --dtype T\n"
    "                --shape N,C,H,W [--order d_major|c1_major]\n"
    "                [--kernel NAME] [-o FILE]\n"
    "\n"
    "Prints the code that the `emit` request of `ixa query` generates,\n"
    "without the JSON wrapping (docs/protocol.md).\n"
    "\n"
    "flags (each one also as --flag=value; the switches --stages and --host\n"
    "also as --stages=true or --stages=false):\n"
    "  --target T         cpp, cuda or mlir: a kernel for a fusion of\n"
    "                     FILE.hlo; pto: a layout conversion kernel for\n"
    "                     Ascend (no FILE). Required.\n"
    "  --fusion NAME      the fusion computation to emit (default: the\n"
    "                     entry's root fusion, else the entry computation)\n"
    "  --device D         a GPU, see `ixa devices` (default h100)\n"
    "  --devices FILE     adds the devices of a JSON table (docs/protocol.md\n"
    "                     \"Devices\") to those --device may name\n"
    "  --kernel NAME      the kernel's name, a C identifier (default: from\n"
    "                     --fusion, else the entry's root instruction, so\n"
    "                     that each fusion's kernel has its own name; or\n"
    "                     the conversion's)\n"
    "  --stages           cpp, cuda, mlir: print the code after every\n"
    "                     lowering step, each under a `// ---- stage: NAME`\n"
    "                     line\n"
    "  --host             mlir only: grid ids as loops, to run on the CPU\n"
    "  --arch A           pto: a2a3 or a5\n"
    "  --conversion C     pto: one of transpose_2d, nd_to_nz, nz_to_nd,\n"
    "                     nchw_to_nc1hwc0, nc1hwc0_to_nchw,\n"
    "                     nc1hwc0_to_fractal_z, ncdhw_to_fractal_z_3d\n"
    "  --dtype T          pto: the element type (f16, f32, s8, ...)\n"
    "  --shape D,D,..     pto: the source shape, comma-separated sizes\n"
    "  --order O          pto: d_major (default) or c1_major\n"
    "  -o, --output FILE  write the code to FILE ('-': standard output, the\n"
    "                     default)\n"
    "  -h, --help         print this help\n"
    "  FILE.hlo           the HLO module, as text; '-' reads standard input\n"
    "\n"
    "Errors in FILE.hlo print as FILE:LINE:COL: error: MESSAGE (<stdin> for\n"
    "standard input; without LINE:COL when the error has no place).\n"
    "\n"
    "exit codes:\n"
    "  0   the code was printed\n"
    "  1   FILE.hlo is not valid HLO, or its fusion (or the pto conversion)\n"
    "      cannot be emitted, or the --devices table is not valid\n"
    "  64  usage error: unknown flag, missing or bad flag value, a flag of\n"
    "      the other kind of target, FILE missing or extra\n"
    "  66  FILE.hlo or the --devices table cannot be read\n"
    "  70  internal error\n"
    "  73  the output cannot be written\n";

constexpr FlagSpec kEmitFlags[] = {
    {"--target"},          {"--fusion"}, {"--device"},
    {"--devices"},         {"--kernel"}, {"--stages", "", false},
    {"--host", "", false}, {"--arch"},   {"--conversion"},
    {"--dtype"},           {"--shape"},  {"--order"},
    {"--output", "-o"},
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The request of the command line's flags; a usage error names the flag.
Result<Json> RequestOfFlags(const CommandLine& line) {
  auto bad = [](const std::string& message) {
    return Error::BadRequest(message);
  };
  if (!line.Has("--target")) return bad("--target is required");
  const std::string target = line.Get("--target");
  const bool pto = target == "pto";
  if (!pto && target != "cpp" && target != "cuda" && target != "mlir") {
    return bad("--target must be cpp, cuda, mlir or pto; got '" + target + "'");
  }
  Json request = {{"op", "emit"}, {"target", target}};
  for (const char* flag :
       {"--arch", "--conversion", "--dtype", "--shape", "--order"}) {
    if (!pto && line.Has(flag)) {
      return bad(std::string(flag) + " applies to --target pto only");
    }
  }
  for (const char* flag : {"--fusion", "--device", "--stages", "--host"}) {
    if (pto && line.Has(flag)) {
      return bad(std::string(flag) + " does not apply to --target pto");
    }
  }
  if (line.On("--host") && target != "mlir") {
    return bad("--host applies to --target mlir only");
  }
  if (line.Has("--fusion")) request["fusion"] = line.Get("--fusion");
  if (line.Has("--device")) {
    // The devices with a GPU launch model: the emitters plan for one.
    std::vector<std::string> gpus;
    for (const hw::Device& d : UserDevices()) {
      if (d.HasLaunchModel()) gpus.push_back(d.name);
    }
    for (const hw::Device& d : hw::BuiltinDevices()) {
      if (d.HasLaunchModel()) gpus.push_back(d.name);
    }
    std::string device = line.Get("--device");
    std::optional<hw::Device> known = FindKnownDevice(device);
    if (!known || !known->HasLaunchModel()) {
      return bad("--device must be a known GPU (" + Join(gpus) + "); got '" +
                 device + "'" +
                 (known ? ", which has no GPU launch model" : ""));
    }
    request["device"] = device;
  }
  if (line.Has("--kernel")) {
    std::string kernel = line.Get("--kernel");
    if (!IsCIdentifier(kernel)) {
      return bad("--kernel must be a C identifier; got '" + kernel + "'");
    }
    request["kernel"] = kernel;
  }
  if (line.On("--stages")) request["stages"] = true;
  if (line.On("--host")) request["host"] = true;
  if (!pto) return request;
  for (const char* flag : {"--arch", "--conversion", "--dtype", "--shape"}) {
    if (!line.Has(flag)) {
      return bad(std::string(flag) + " is required with --target pto");
    }
  }
  std::string arch = line.Get("--arch");
  if (!hw::pto::ParseArch(arch)) {
    return bad("--arch must be a2a3 or a5; got '" + arch + "'");
  }
  std::string conversion = line.Get("--conversion");
  const auto& conversions = emit::pto::PtoConversions();
  if (std::find(conversions.begin(), conversions.end(), conversion) ==
      conversions.end()) {
    return bad("--conversion must be one of " + Join(conversions) + "; got '" +
               conversion + "'");
  }
  std::string dtype = line.Get("--dtype");
  if (!hw::FindDType(dtype)) {
    return bad("--dtype must be one of " + hw::KnownDTypeNames() + "; got '" +
               dtype + "'");
  }
  std::optional<std::vector<int64_t>> shape =
      ParseIntListValue(line.Get("--shape"));
  if (!shape) {
    return bad("--shape takes comma-separated integers; got '" +
               line.Get("--shape") + "'");
  }
  if (line.Has("--order")) {
    std::string order = line.Get("--order");
    if (order != "d_major" && order != "c1_major") {
      return bad("--order must be d_major or c1_major; got '" + order + "'");
    }
    request["order"] = order;
  }
  request["arch"] = arch;
  request["conversion"] = conversion;
  request["dtype"] = dtype;
  request["shape"] = *shape;
  return request;
}

// 1 for an input that cannot be emitted, 70 for a failure of ixa itself.
int FailureExitCode(const Error& e) {
  return e.code == ErrorCode::kInternal ? kExitInternal : kExitSomeFailed;
}

}  // namespace

void RegisterEmitOps(OpTable& table) { table["emit"] = Emit; }

int RunEmitCommand(int argc, char** argv) {
  std::optional<CommandLine> line =
      ReadCommandLine("emit", argc, argv, kEmitFlags, kEmitUsage);
  if (!line) return kExitUsage;
  if (line->help) {
    std::cout << kEmitUsage;
    return kExitOk;
  }
  if (line->Has("--devices")) {
    int exit_code = kExitOk;
    if (!LoadDevicesFlag("emit", line->Get("--devices"), &exit_code)) {
      return exit_code;
    }
  }
  Result<Json> request = RequestOfFlags(*line);
  if (!request.ok()) {
    return UsageError("emit", request.error().message, kEmitUsage);
  }
  const bool pto = request->at("target") == "pto";
  if (line->operands.size() > (pto ? 0u : 1u)) {
    return UsageError(
        "emit",
        pto ? "--target pto reads no FILE; got '" + line->operands[0] + "'"
            : "more than one input file",
        kEmitUsage);
  }
  // What an error is about: the HLO file, or the flags of a pto request.
  std::string source = "ixa emit";
  std::unique_ptr<hlo::Module> module;
  if (!pto) {
    if (line->operands.empty()) {
      return UsageError("emit", "an HLO file is required", kEmitUsage);
    }
    const std::string& input = line->operands[0];
    std::string text;
    std::string reason;
    if (!ReadInput(input, &text, &reason)) {
      std::cerr << "ixa emit: cannot read '" << input << "': " << reason
                << "\n";
      return kExitNoInput;
    }
    source = input == "-" ? "<stdin>" : input;
    Result<std::unique_ptr<hlo::Module>> parsed = hlo::ParseHloModule(text);
    if (!parsed.ok()) {
      std::cerr << CompilerStyleError(source, parsed.error()) << "\n";
      return FailureExitCode(parsed.error());
    }
    module = std::move(parsed).value();
  }
  ExprContext ctx;
  Result<Json> result = pto ? EmitPtoRequest(*request, ctx)
                            : EmitFusionOfModule(*request, *module, ctx);
  if (!result.ok()) {
    std::cerr << CompilerStyleError(source, result.error()) << "\n";
    return FailureExitCode(result.error());
  }
  std::string code;
  if (result->contains("stages")) {
    for (const Json& stage : result->at("stages")) {
      code += "// ---- stage: " + stage.at("name").get<std::string>() + "\n";
      code += stage.at("code").get<std::string>();
      if (!code.empty() && code.back() != '\n') code += '\n';
    }
  } else {
    code = result->at("code").get<std::string>();
  }
  if (!WriteOutput("emit", line->Get("--output"), code)) {
    return kExitCannotCreate;
  }
  return kExitOk;
}

}  // namespace ixa::cli
