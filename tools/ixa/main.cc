// ixa: the command-line front end.
//
//   ixa query [--syntax affine|symbolic] [--budget-ms N] [--jobs N]
//             [FILE|-]
//                        JSON Lines requests in, one response line each out
//   ixa version          prints the version
//   ixa help [OP]        the protocol, from the table of op_docs.h
//   ixa devices          lists the built-in device descriptions
//   ixa draw ...         renders a layout to SVG
//   ixa report FILE.hlo  an HTML page about a whole module
//   ixa rules [--json]   lists the simplifier's rules and their obligations
//   ixa --help
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "core/budget.h"
#include "core/expr.h"
#include "tools/ixa/command_line.h"
#include "tools/ixa/commands.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/emit_ops.h"
#include "tools/ixa/fast_json.h"
#include "tools/ixa/fast_ops.h"
#include "tools/ixa/op_docs.h"
#include "tools/ixa/parallel_query.h"
#include "tools/ixa/protocol.h"
#include "tools/ixa/query_server.h"
#include "tools/ixa/report.h"

namespace ixa::cli {
namespace {

const char kVersionUsage[] =
    "usage: ixa version\n"
    "\n"
    "Prints the version of ixa (also ixa --version).\n"
    "\n"
    "exit codes:\n"
    "  0   the version was printed\n"
    "  64  usage error: an argument\n";

const char kUsage[] =
    "usage: ixa <command> [args]\n"
    "\n"
    "commands:\n"
    "  query [--syntax affine|symbolic] [--budget-ms N] [--jobs N]\n"
    "        [--devices FILE] [FILE|-]\n"
    "                   answer JSON Lines requests from FILE or standard\n"
    "                   input, one response line per request (ixa query\n"
    "                   --help)\n"
    "  help [OP|COMMAND|--markdown]\n"
    "                   the protocol: every op, or one op's request and\n"
    "                   response fields, or a command's help (ixa help\n"
    "                   query); --markdown writes docs/protocol.md\n"
    "  devices          list the built-in device descriptions (ixa devices\n"
    "                   --help)\n"
    "  draw ...         render a layout to SVG (ixa draw --help)\n"
    "  report FILE.hlo  one HTML page about a whole module: kernels, times,\n"
    "                   roofline, graph and findings (ixa report --help)\n"
    "  emit ...         print generated code for a fusion or a PTO\n"
    "                   conversion (ixa emit --help)\n"
    "  compile ...      print one program for a whole module (ixa compile\n"
    "                   --help)\n"
    "  rules [--json]   list the simplifier's rules, each with the\n"
    "                   equations it must satisfy (ixa rules --help)\n"
    "  version          print the version\n"
    "  --help           print this help\n"
    "\n"
    "exit codes: 0 ok; 1 a request or the input failed; 64 usage error;\n"
    "66 an input file cannot be read; 70 internal failure; 73 an output\n"
    "file cannot be written. Each command's --help says which it uses.\n";

// `ixa help [OP|COMMAND|--markdown]`.
int RunHelp(int argc, char** argv) {
  if (argc < 3 || std::strcmp(argv[2], "--help") == 0 ||
      std::strcmp(argv[2], "-h") == 0) {
    std::cout << QueryHelpText();
    return kExitOk;
  }
  if (argc > 3) {
    std::cerr << "ixa help: expected one OP, COMMAND or --markdown\n" << kUsage;
    return kExitUsage;
  }
  std::string what = argv[2];
  if (what == "--markdown") {
    std::cout << ProtocolMarkdown(AnswerRequestLine);
    return kExitOk;
  }
  if (const OpDoc* op = FindOpDoc(what)) {
    std::cout << OpHelpText(*op);
    return kExitOk;
  }
  // A command's help: `ixa help query` is `ixa query --help` (an op of
  // the same name, emit, wins: `ixa emit --help` is the command's).
  if (what == "query") {
    std::cout << QueryHelpText();
    return kExitOk;
  }
  if (what == "version") {
    std::cout << kVersionUsage;
    return kExitOk;
  }
  for (auto [command, run] : {std::pair{"devices", &RunDevicesCommand},
                              {"draw", &RunDrawCommand},
                              {"report", &RunReportCommand},
                              {"compile", &RunCompileCommand},
                              {"rules", &RunRulesCommand}}) {
    if (what == command) {
      char help[] = "--help";
      char* help_argv[] = {argv[0], argv[2], help, nullptr};
      return run(3, help_argv);
    }
  }
  std::vector<std::string> names;
  for (const OpDoc& op : OpDocs()) names.emplace_back(op.name);
  std::cerr << "ixa help: unknown op or command '" << what << "'";
  std::string suggestion = SuggestName(what, names);
  if (!suggestion.empty())
    std::cerr << " (did you mean '" << suggestion << "'?)";
  std::cerr << "; `ixa help` lists the ops\n";
  return kExitUsage;
}

int RunQuery(int argc, char** argv) {
  const char* path = nullptr;
  TextSyntax syntax = TextSyntax::kAffine;
  int64_t budget_ms = 0;
  int jobs = 1;
  std::optional<std::string> devices_path;
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
    if (arg == "--help" || arg == "-h") {
      std::cout << QueryHelpText();
      return kExitOk;
    }
    if (arg == "--syntax" || arg.rfind("--syntax=", 0) == 0) {
      if (!flag_value("--syntax", &value)) {
        std::cerr << "ixa query: --syntax needs a value: affine or symbolic "
                     "(ixa query --help)\n";
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
                     "milliseconds, not '"
                  << value << "' (ixa query --help)\n";
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
                     "256, not '"
                  << value << "' (ixa query --help)\n";
        return kExitUsage;
      }
      jobs = static_cast<int>(v);
      continue;
    }
    if (arg == "--devices" || arg.rfind("--devices=", 0) == 0) {
      if (!flag_value("--devices", &value)) {
        std::cerr << "ixa query: --devices needs a FILE (ixa query --help)\n";
        return kExitUsage;
      }
      devices_path = value;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "ixa query: unknown flag '" << arg
                << "' (ixa query --help lists them)\n";
      return kExitUsage;
    }
    if (path != nullptr) {
      std::cerr << "ixa query: expected at most one FILE argument, got '"
                << path << "' and '" << argv[i] << "' (ixa query --help)\n";
      return kExitUsage;
    }
    path = argv[i];
  }
  if (devices_path) {
    int exit_code = kExitOk;
    if (!LoadDevicesFlag("query", *devices_path, &exit_code)) return exit_code;
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != nullptr && std::strcmp(path, "-") != 0) {
    std::string reason = UnreadableReason(path);
    if (reason.empty()) {
      file.open(path, std::ios::binary);
      if (!file) reason = std::strerror(errno != 0 ? errno : EIO);
    }
    if (!reason.empty()) {
      std::cerr << path
                << ": error: ixa query cannot read this file: " << reason
                << "\n";
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
             [&servers](int worker, size_t number, std::string_view line,
                        std::string* out) {
               servers[worker].Answer(line, out, number);
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
    if (cmd == "--help" || cmd == "-h") {
      std::cout << kUsage;
      return kExitOk;
    }
    if (cmd == "help") return RunHelp(argc, argv);
    if (cmd == "version" || cmd == "--version") {
      if (argc > 2) {
        std::string arg = argv[2];
        if (arg == "--help" || arg == "-h") {
          std::cout << kVersionUsage;
          return kExitOk;
        }
        std::cerr << "ixa version: unexpected argument '" << arg << "'\n"
                  << kVersionUsage;
        return kExitUsage;
      }
      std::cout << "ixa " << IXA_VERSION << "\n";
      return kExitOk;
    }
    if (cmd == "query") return RunQuery(argc, argv);
    if (cmd == "devices") return ixa::cli::RunDevicesCommand(argc, argv);
    if (cmd == "draw") return ixa::cli::RunDrawCommand(argc, argv);
    if (cmd == "rules") return ixa::cli::RunRulesCommand(argc, argv);
    if (cmd == "emit") return ixa::cli::RunEmitCommand(argc, argv);
    if (cmd == "report") return ixa::cli::RunReportCommand(argc, argv);
    if (cmd == "compile") return ixa::cli::RunCompileCommand(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ixa: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  std::cerr << "ixa: unknown command '" << cmd << "'\n" << kUsage;
  return kExitUsage;
}
