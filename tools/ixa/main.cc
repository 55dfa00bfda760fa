// ixa: the command-line front end.
//
//   ixa query [--syntax affine|symbolic] [--budget-ms N] [--jobs N]
//             [FILE|-]
//                        JSON Lines requests in, one response line each out
//   ixa version          prints the version
//   ixa devices          lists the built-in device descriptions
//   ixa draw ...         renders a layout to SVG
//   ixa --help
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "core/budget.h"
#include "core/expr.h"
#include "tools/ixa/commands.h"
#include "tools/ixa/emit_ops.h"
#include "tools/ixa/fast_json.h"
#include "tools/ixa/fast_ops.h"
#include "tools/ixa/parallel_query.h"
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
    "  query [--syntax affine|symbolic] [--budget-ms N] [--jobs N] [FILE|-]\n"
    "                   answer JSON Lines requests (spec/cli.md) from FILE or\n"
    "                   standard input, one response line per request;\n"
    "                   --syntax: how maps print (affine: `floordiv`, the\n"
    "                   default; symbolic: XLA's `/` form), unless a request\n"
    "                   says otherwise in its `syntax` field; --budget-ms: a\n"
    "                   request that runs longer than N ms answers\n"
    "                   limit_exceeded (default: no time budget); --jobs N:\n"
    "                   answer on N threads (responses still in request\n"
    "                   order)\n"
    "  devices          list the built-in device descriptions\n"
    "  draw ...         render a layout to SVG (ixa draw --help)\n"
    "  emit ...         print generated code for a fusion or a PTO\n"
    "                   conversion (ixa emit --help)\n"
    "  version          print the version\n"
    "  --help           print this help\n"
    "\n"
    "exit codes of query: 0 all requests ok, 1 some request failed,\n"
    "64 usage error, 66 FILE cannot be read, 70 internal failure\n";

std::string Dump(const nlohmann::ordered_json& j) {
  // Replace invalid UTF-8 (echoed user text) instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class QueryServer {
 public:
  // budget_ms > 0: the wall-time budget of each request (core/budget.h).
  explicit QueryServer(TextSyntax default_syntax = TextSyntax::kAffine,
                       int64_t budget_ms = 0)
      : default_syntax_(default_syntax), budget_ms_(budget_ms) {}

  // Answers one line; returns the response line.
  // Appends the response line to the request `line` and its newline.
  void Answer(std::string_view line, std::string* out) {
    Json request;
    if (flat_.Read(line)) {
      if (IsFastOp(flat_)) {
        // Written in place; cut back if the op fails (fast_ops.h).
        const size_t start = out->size();
        AppendFastResponseStart(flat_, out);
        Result<bool> answered = Guarded([&] {
          ExprContext ctx;  // one context per request
          return AnswerFastOp(flat_, default_syntax_, ctx, out);
        });
        Count(answered);
        if (answered.ok()) {
          AppendFastResponseEnd(out);
        } else {
          out->resize(start);
          AppendFastErrorResponse(flat_, answered.error(), out);
        }
        return;
      }
      request = flat_.ToJson();
    } else {
      try {
        request = Json::parse(line);
      } catch (const std::exception& e) {
        nlohmann::ordered_json response;
        response["id"] = nullptr;
        response["ok"] = false;
        std::string what = e.what();
        response["error"] = ErrorJson(
            Error{ErrorCode::kInternal, "the line is not JSON: " + what, 0, 0});
        response["error"]["code"] = "bad_json";
        ++failures_;
        out->append(Dump(response));
        out->push_back('\n');
        return;
      }
    }
    Json id = request.is_object() && request.contains("id") ? request.at("id")
                                                            : Json(nullptr);
    Result<Json> result = Guarded([&] { return Dispatch(request); });
    request = Json();  // the request can be as large as the answer
    Count(result);
    out->append(ResponseLine(id, result));
    out->push_back('\n');
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
    // Built at the first request that needs it: a batch of hot ops (the
    // fast path) never does, and a process starts sooner without it.
    if (ops_.empty()) {
      RegisterAlgebraOps(ops_);
      RegisterHloOps(ops_);
      RegisterLayoutOps(ops_);
      RegisterUseOps(ops_);
      RegisterPlanOps(ops_);
      RegisterEmitOps(ops_);
    }
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

  // Runs an op within the request's time budget; an exception becomes an
  // internal error.
  template <typename Answering>
  auto Guarded(Answering answering) -> decltype(answering()) {
    decltype(answering()) result = Error::BadRequest("internal: unset");
    try {
      DeadlineScope deadline(budget_ms_);
      result = answering();
      // Work cut short by the deadline is never a complete answer.
      if (DeadlineExpiredIn()) result = DeadlineError();
    } catch (const std::exception& e) {
      result = Error{ErrorCode::kInternal, e.what(), 0, 0};
    } catch (...) {
      result = Error{ErrorCode::kInternal, "unknown exception", 0, 0};
    }
    return result;
  }

  template <typename T>
  void Count(const Result<T>& result) {
    if (!result.ok()) {
      ++failures_;
      if (result.error().code == ErrorCode::kInternal) internal_ = true;
    }
  }

  TextSyntax default_syntax_;
  OpTable ops_;
  FlatRequest flat_;  // reused line after line
  int64_t budget_ms_ = 0;
  int failures_ = 0;
  bool internal_ = false;
};

int RunQuery(int argc, char** argv) {
  const char* path = nullptr;
  TextSyntax syntax = TextSyntax::kAffine;
  int64_t budget_ms = 0;
  int jobs = 1;
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
    if (arg == "--jobs" || arg.rfind("--jobs=", 0) == 0) {
      char* end = nullptr;
      long v = 0;
      bool ok = flag_value("--jobs", &value);
      if (ok) v = std::strtol(value.c_str(), &end, 10);
      if (!ok || value.empty() || *end != '\0' || v < 1 || v > 256) {
        std::cerr << "ixa query: --jobs takes a number of threads from 1 to "
                     "256\n"
                  << kUsage;
        return kExitUsage;
      }
      jobs = static_cast<int>(v);
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
  // One server per worker thread: each answers with its own contexts.
  std::vector<QueryServer> servers;
  servers.reserve(jobs);
  for (int w = 0; w < jobs; ++w) servers.emplace_back(syntax, budget_ms);
  ServeLines(*in, std::cout, jobs,
             [&servers](int worker, std::string_view line, std::string* out) {
               servers[worker].Answer(line, out);
             });
  int exit_code = kExitOk;
  for (const QueryServer& server : servers) {
    exit_code = std::max(exit_code, server.ExitCode());
  }
  return exit_code;
}

}  // namespace

std::string AnswerRequestLine(const std::string& line) {
  static QueryServer* server = new QueryServer();  // never destroyed
  std::string response;
  server->Answer(line, &response);
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
