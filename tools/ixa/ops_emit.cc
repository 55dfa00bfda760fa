// The `emit` op's dispatcher and the `ixa emit` command (spec/cli.md).
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tools/ixa/emit_ops.h"

namespace ixa::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 64;
constexpr int kExitNoInput = 66;
constexpr int kExitCannotWrite = 73;

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
    "                [--kernel NAME] [--stages] [--host] [-o FILE] FILE.hlo\n"
    "       ixa emit --target pto --arch a2a3|a5 --conversion C --dtype T\n"
    "                --shape N,C,H,W [--order d_major|c1_major]\n"
    "                [--kernel NAME] [-o FILE]\n"
    "\n"
    "Prints the generated code of the `emit` query op without the JSON\n"
    "wrapping (spec/cli.md); with --stages, the code after every lowering\n"
    "step, each under a `// ---- stage: NAME` line.\n";

// "2,3,4" -> [2,3,4]; false when malformed.
bool ParseIntList(const std::string& text, Json* out) {
  *out = Json::array();
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) return false;
    size_t used = 0;
    try {
      long long v = std::stoll(item, &used);
      if (used != item.size()) return false;
      out->push_back(v);
    } catch (const std::exception&) {
      return false;
    }
  }
  return !out->empty();
}

}  // namespace

void RegisterEmitOps(OpTable& table) { table["emit"] = Emit; }

int RunEmitCommand(int argc, char** argv) {
  Json request = Json::object();
  std::string input, output;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* field) -> bool {
      if (i + 1 >= argc) {
        std::cerr << "ixa emit: " << arg << " needs a value\n" << kEmitUsage;
        return false;
      }
      request[field] = argv[++i];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kEmitUsage;
      return kExitOk;
    } else if (arg == "--target") {
      if (!value("target")) return kExitUsage;
    } else if (arg == "--fusion") {
      if (!value("fusion")) return kExitUsage;
    } else if (arg == "--device") {
      if (!value("device")) return kExitUsage;
    } else if (arg == "--kernel") {
      if (!value("kernel")) return kExitUsage;
    } else if (arg == "--arch") {
      if (!value("arch")) return kExitUsage;
    } else if (arg == "--conversion") {
      if (!value("conversion")) return kExitUsage;
    } else if (arg == "--dtype") {
      if (!value("dtype")) return kExitUsage;
    } else if (arg == "--order") {
      if (!value("order")) return kExitUsage;
    } else if (arg == "--shape") {
      if (!value("shape")) return kExitUsage;
      Json dims;
      if (!ParseIntList(request["shape"].get<std::string>(), &dims)) {
        std::cerr << "ixa emit: --shape takes comma-separated integers\n";
        return kExitUsage;
      }
      request["shape"] = dims;
    } else if (arg == "--stages") {
      request["stages"] = true;
    } else if (arg == "--host") {
      request["host"] = true;
    } else if (arg == "-o") {
      if (i + 1 >= argc) {
        std::cerr << "ixa emit: -o needs a file\n" << kEmitUsage;
        return kExitUsage;
      }
      output = argv[++i];
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      std::cerr << "ixa emit: unknown flag '" << arg << "'\n" << kEmitUsage;
      return kExitUsage;
    } else if (input.empty()) {
      input = arg;
    } else {
      std::cerr << "ixa emit: more than one input file\n" << kEmitUsage;
      return kExitUsage;
    }
  }
  if (!request.contains("target")) {
    std::cerr << "ixa emit: --target is required\n" << kEmitUsage;
    return kExitUsage;
  }
  if (request["target"] != "pto") {
    if (input.empty()) {
      std::cerr << "ixa emit: an HLO file is required\n" << kEmitUsage;
      return kExitUsage;
    }
    std::stringstream text;
    if (input == "-") {
      text << std::cin.rdbuf();
    } else {
      std::ifstream file(input, std::ios::binary);
      if (!file) {
        std::cerr << "ixa emit: cannot read '" << input << "'\n";
        return kExitNoInput;
      }
      text << file.rdbuf();
    }
    request["hlo"] = text.str();
  }

  ExprContext ctx;
  Result<Json> result = Emit(request, ctx);
  if (!result.ok()) {
    const Error& e = result.error();
    std::cerr << "ixa emit: " << ErrorCodeName(e.code) << ": " << e.message;
    if (e.line > 0)
      std::cerr << " (line " << e.line << ", column " << e.column << ")";
    std::cerr << "\n";
    return kExitFailed;
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
  if (output.empty()) {
    std::cout << code;
    return kExitOk;
  }
  std::ofstream out(output, std::ios::binary);
  out << code;
  if (!out) {
    std::cerr << "ixa emit: cannot write '" << output << "'\n";
    return kExitCannotWrite;
  }
  return kExitOk;
}

}  // namespace ixa::cli
