#include "tools/ixa/command_line.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools/ixa/query_server.h"

namespace ixa::cli {

std::string CommandLine::Get(std::string_view flag) const {
  auto it = values.find(flag);
  return it == values.end() ? std::string() : it->second;
}

bool CommandLine::On(std::string_view flag) const {
  return Get(flag) == "true";
}

int UsageError(std::string_view command, std::string_view message,
               std::string_view usage) {
  std::cerr << "ixa " << command << ": " << ClipMessage(message) << "\n"
            << usage;
  return kExitUsage;
}

std::optional<CommandLine> ReadCommandLine(std::string_view command, int argc,
                                           char** argv,
                                           std::span<const FlagSpec> flags,
                                           std::string_view usage) {
  CommandLine line;
  bool only_operands = false;
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (only_operands || arg == "-" || arg.empty() || arg[0] != '-') {
      line.operands.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_operands = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      line.help = true;
      return line;
    }
    // `--flag=value` (long names only: `-o=x` would be a file "=x").
    std::string_view name = arg;
    std::optional<std::string_view> attached;
    if (size_t eq = arg.find('='); arg.starts_with("--") && eq != arg.npos) {
      name = arg.substr(0, eq);
      attached = arg.substr(eq + 1);
    }
    const FlagSpec* known = nullptr;
    for (const FlagSpec& f : flags) {
      if (name == f.name || (!f.short_name.empty() && name == f.short_name)) {
        known = &f;
      }
    }
    if (!known) {
      UsageError(command, "unknown flag '" + std::string(name) + "'", usage);
      return std::nullopt;
    }
    std::string flag(known->name);
    if (!known->takes_value) {
      std::string_view value = attached.value_or("true");
      if (value != "true" && value != "false") {
        UsageError(command,
                   flag + " is a switch: give it alone, or as " + flag +
                       "=true or " + flag + "=false; got '" +
                       std::string(value) + "'",
                   usage);
        return std::nullopt;
      }
      line.values[flag] = std::string(value);
      continue;
    }
    if (attached) {
      line.values[flag] = std::string(*attached);
    } else if (i + 1 < argc) {
      line.values[flag] = argv[++i];
    } else {
      UsageError(command, std::string(name) + " needs a value", usage);
      return std::nullopt;
    }
  }
  return line;
}

std::optional<int64_t> ParseIntValue(std::string_view text, int64_t low,
                                     int64_t high) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < low ||
      value > high) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::vector<int64_t>> ParseIntListValue(std::string_view text) {
  std::vector<int64_t> out;
  while (true) {
    size_t comma = text.find(',');
    std::optional<int64_t> v =
        ParseIntValue(text.substr(0, comma), INT64_MIN, INT64_MAX);
    if (!v) return std::nullopt;
    out.push_back(*v);
    if (comma == text.npos) return out;
    text.remove_prefix(comma + 1);
  }
}

std::string CompilerStyleError(std::string_view source, const Error& error) {
  std::string out(source);
  // Appended piece by piece: `":" + std::to_string(n)` draws a false
  // -Wstringop-overflow from GCC 12.
  if (error.line > 0) {
    out += ':';
    out += std::to_string(error.line);
    if (error.column > 0) {
      out += ':';
      out += std::to_string(error.column);
    }
  }
  return out + ": error: " + ClipMessage(error.message);
}

std::string UnreadableReason(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return std::strerror(EISDIR);
  errno = 0;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return std::strerror(errno != 0 ? errno : ENOENT);
  std::fclose(file);
  return std::string();
}

bool ReadInput(const std::string& path, std::string* text,
               std::string* reason) {
  std::stringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
  } else {
    *reason = UnreadableReason(path);
    if (!reason->empty()) return false;
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      *reason = std::strerror(errno != 0 ? errno : EIO);
      return false;
    }
    buffer << file.rdbuf();
    if (file.bad()) {
      *reason = std::strerror(errno != 0 ? errno : EIO);
      return false;
    }
  }
  *text = std::move(buffer).str();
  return true;
}

bool WriteOutput(std::string_view command, const std::string& path,
                 std::string_view text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "ixa " << command << ": cannot write standard output\n";
      return false;
    }
    return true;
  }
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "ixa " << command << ": cannot write '" << path << "'";
    if (errno != 0) std::cerr << ": " << std::strerror(errno);
    std::cerr << "\n";
    return false;
  }
  return true;
}

}  // namespace ixa::cli
