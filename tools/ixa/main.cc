// ixa: the command-line front end.
//
//   ixa query [--syntax affine|symbolic] [--budget-ms N] [FILE|-]
//                        JSON Lines requests in, one response line each out
//   ixa version          prints the version
//   ixa devices          lists the built-in device descriptions
//   ixa draw ...         renders a layout to SVG
//   ixa --help
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "core/budget.h"
#include "core/expr.h"
#include "tools/ixa/commands.h"
#include "tools/ixa/emit_ops.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitSomeFailed = 1;
constexpr int kExitUsage = 64;
constexpr int kExitNoInput = 66;
constexpr int kExitInternal = 70;

const char kUsage[] =
    "usage: ixa <command> [args]\n"
    "\n"
    "commands:\n"
    "  query [--syntax affine|symbolic] [--budget-ms N] [FILE|-]\n"
    "                   answer JSON Lines requests (spec/cli.md) from FILE or\n"
    "                   standard input, one response line per request;\n"
    "                   --syntax: how maps print (affine: `floordiv`, the\n"
    "                   default; symbolic: XLA's `/` form), unless a request\n"
    "                   says otherwise in its `syntax` field; --budget-ms: a\n"
    "                   request that runs longer than N ms answers\n"
    "                   limit_exceeded (default: no time budget)\n"
    "  devices          list the built-in device descriptions\n"
    "  draw ...         render a layout to SVG (ixa draw --help)\n"
    "  emit ...         print generated code for a fusion or a PTO\n"
    "                   conversion (ixa emit --help)\n"
    "  version          print the version\n"
    "  --help           print this help\n"
    "\n"
    "exit codes of query: 0 all requests ok, 1 some request failed,\n"
    "64 usage error, 66 FILE cannot be read, 70 internal failure\n";

Json ErrorJson(const Error& e) {
  Json err{{"code", ErrorCodeName(e.code)}, {"message", e.message}};
  if (e.line > 0) {
    err["line"] = e.line;
    err["column"] = e.column;
  }
  return err;
}

std::string Dump(const nlohmann::ordered_json& j) {
  // Replace invalid UTF-8 (echoed user text) instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class QueryServer {
 public:
  // budget_ms > 0: the wall-time budget of each request (core/budget.h).
  explicit QueryServer(TextSyntax default_syntax = TextSyntax::kAffine,
                       int64_t budget_ms = 0)
      : default_syntax_(default_syntax), budget_ms_(budget_ms) {
    RegisterAlgebraOps(ops_);
    RegisterHloOps(ops_);
    RegisterLayoutOps(ops_);
    RegisterUseOps(ops_);
    RegisterPlanOps(ops_);
    RegisterEmitOps(ops_);
  }

  // Answers one line: writes the response line and its newline to `out`.
  void Answer(const std::string& line, std::ostream& out) {
    nlohmann::ordered_json response;
    Json request;
    try {
      request = Json::parse(line);
    } catch (const std::exception& e) {
      response["id"] = nullptr;
      response["ok"] = false;
      std::string what = e.what();
      response["error"] = ErrorJson(
          Error{ErrorCode::kInternal, "the line is not JSON: " + what, 0, 0});
      response["error"]["code"] = "bad_json";
      ++failures_;
      out << Dump(response) << '\n';
      return;
    }
    response["id"] = request.is_object() && request.contains("id")
                         ? request.at("id")
                         : Json(nullptr);
    Result<Json> result = Error::BadRequest("internal: unset");
    try {
      DeadlineScope deadline(budget_ms_);
      result = Dispatch(request);
      // Work cut short by the deadline is never a complete answer.
      if (DeadlineExpiredIn()) result = DeadlineError();
    } catch (const std::exception& e) {
      result = Error{ErrorCode::kInternal, e.what(), 0, 0};
    } catch (...) {
      result = Error{ErrorCode::kInternal, "unknown exception", 0, 0};
    }
    request = Json();  // the request can be as large as the answer
    if (result.ok() && result->is_object() && !result->contains("id") &&
        !result->contains("ok")) {
      // id and ok, then the op's fields streamed one by one: the same line
      // as copying them into `response` and dumping it, without a second
      // copy of an answer that can hold hundreds of thousands of maps, or
      // the whole line in memory.
      response["ok"] = true;
      std::string head = Dump(response);
      head.pop_back();  // its closing brace
      out << head;
      for (const auto& [key, value] : result->items()) {
        out << ',' << Dump(nlohmann::ordered_json(key)) << ':';
        nlohmann::detail::serializer<Json> serializer(
            nlohmann::detail::output_adapter<char>(out), ' ',
            nlohmann::json::error_handler_t::replace);
        serializer.dump(value, false, false, 0);
      }
      out << "}\n";
      return;
    }
    if (result.ok()) {
      response["ok"] = true;
      for (auto& [key, value] : result->items()) response[key] = value;
    } else {
      response["ok"] = false;
      response["error"] = ErrorJson(result.error());
      ++failures_;
      if (result.error().code == ErrorCode::kInternal) internal_ = true;
    }
    out << Dump(response) << '\n';
  }

  int ExitCode() const {
    if (internal_) return kExitInternal;
    return failures_ > 0 ? kExitSomeFailed : kExitOk;
  }

 private:
  Result<Json> Dispatch(const Json& request) {
    if (!request.is_object()) {
      return Error::BadRequest("a request must be a JSON object");
    }
    IXA_ASSIGN_OR_RETURN(std::string op, GetString(request, "op"));
    auto it = ops_.find(op);
    if (it == ops_.end()) {
      return Error::BadRequest("unknown op '" + op + "'");
    }
    // Every map of this response prints in the request's syntax.
    IXA_ASSIGN_OR_RETURN(TextSyntax syntax,
                         GetSyntax(request, default_syntax_));
    SetResponseSyntax(syntax);
    // And every other expression string of it (traces, tile expressions,
    // messages): the printer's default for this request.
    ScopedTextSyntax printed_as(syntax);
    ExprContext ctx;  // one context per request
    return it->second(request, ctx);
  }

  TextSyntax default_syntax_;
  OpTable ops_;
  int64_t budget_ms_ = 0;
  int failures_ = 0;
  bool internal_ = false;
};

int RunQuery(int argc, char** argv) {
  const char* path = nullptr;
  TextSyntax syntax = TextSyntax::kAffine;
  int64_t budget_ms = 0;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    // `--flag value` or `--flag=value`; false (usage error) when absent.
    auto flag_value = [&](const char* flag, std::string* value) {
      std::string eq = std::string(flag) + "=";
      if (arg.rfind(eq, 0) == 0) {
        *value = arg.substr(eq.size());
        return true;
      }
      if (i + 1 == argc) return false;
      *value = argv[++i];
      return true;
    };
    std::string value;
    if (arg == "--syntax" || arg.rfind("--syntax=", 0) == 0) {
      if (!flag_value("--syntax", &value)) {
        std::cerr << "ixa query: --syntax needs a value\n" << kUsage;
        return kExitUsage;
      }
      auto s = TextSyntaxFromName(value);
      if (!s) {
        std::cerr << "ixa query: --syntax must be affine or symbolic, not '"
                  << value << "'\n";
        return kExitUsage;
      }
      syntax = *s;
      continue;
    }
    if (arg == "--budget-ms" || arg.rfind("--budget-ms=", 0) == 0) {
      char* end = nullptr;
      long long v = 0;
      bool ok = flag_value("--budget-ms", &value);
      if (ok) v = std::strtoll(value.c_str(), &end, 10);
      if (!ok || value.empty() || *end != '\0' || v <= 0) {
        std::cerr << "ixa query: --budget-ms takes a positive number of "
                     "milliseconds\n"
                  << kUsage;
        return kExitUsage;
      }
      budget_ms = v;
      continue;
    }
    if (path != nullptr) {
      std::cerr << "ixa query: expected at most one FILE argument\n" << kUsage;
      return kExitUsage;
    }
    path = argv[i];
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != nullptr && std::strcmp(path, "-") != 0) {
    std::error_code ec;
    bool is_dir = std::filesystem::is_directory(path, ec);
    if (!is_dir) file.open(path, std::ios::binary);
    if (is_dir || !file) {
      std::cerr << "ixa query: cannot read '" << path << "'\n";
      return kExitNoInput;
    }
    in = &file;
  }
  std::ios::sync_with_stdio(false);
  QueryServer server(syntax, budget_ms);
  std::string line;
  while (std::getline(*in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    server.Answer(line, std::cout);
  }
  std::cout.flush();
  return server.ExitCode();
}

}  // namespace

std::string AnswerRequestLine(const std::string& line) {
  static QueryServer* server = new QueryServer();  // never destroyed
  std::ostringstream out;
  server->Answer(line, out);
  std::string response = std::move(out).str();
  response.pop_back();  // the newline
  return response;
}

}  // namespace ixa::cli

// The request fuzzer (tests/fuzz) links these files without main().
#ifndef IXA_CLI_NO_MAIN
int main(int argc, char** argv) {
  using namespace ixa::cli;
  if (argc < 2) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  std::string cmd = argv[1];
  try {
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
      std::cout << kUsage;
      return kExitOk;
    }
    if (cmd == "version" || cmd == "--version") {
      std::cout << "ixa " << IXA_VERSION << "\n";
      return kExitOk;
    }
    if (cmd == "query") return RunQuery(argc, argv);
    if (cmd == "devices") return ixa::cli::RunDevicesCommand(argc, argv);
    if (cmd == "draw") return ixa::cli::RunDrawCommand(argc, argv);
    if (cmd == "emit") return ixa::cli::RunEmitCommand(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ixa: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  std::cerr << "ixa: unknown command '" << cmd << "'\n" << kUsage;
  return kExitUsage;
}
#endif  // IXA_CLI_NO_MAIN
