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
#include "tools/ixa/query_server.h"

namespace ixa::cli {
namespace {

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
}  // namespace ixa::cli

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
