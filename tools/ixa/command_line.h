// Flags of the `ixa` subcommands (emit, draw, devices), read the same way
// everywhere: `--flag value` and `--flag=value` alike, `-h`/`--help` prints
// the command's usage, and every usage error is one line naming the flag,
// then the usage, with exit code 64. Errors in an input print as compilers
// print them: `FILE:LINE:COL: error: MESSAGE`.
#ifndef IXA_TOOLS_IXA_COMMAND_LINE_H_
#define IXA_TOOLS_IXA_COMMAND_LINE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ixa::cli {

struct FlagSpec {
  std::string_view name;        // "--target"
  std::string_view short_name;  // "-o", or empty
  // false: a switch, given alone (`--stages`) or as `--stages=true|false`.
  bool takes_value = true;
};

struct CommandLine {
  bool help = false;  // -h or --help: print the usage, nothing else
  // The value of each flag given, by its long name (the last one counts);
  // a switch given reads "true" or "false".
  std::map<std::string, std::string, std::less<>> values;
  std::vector<std::string> operands;  // the rest: FILE, "-", after "--"

  bool Has(std::string_view flag) const { return values.count(flag) > 0; }
  // The flag's value; empty when absent.
  std::string Get(std::string_view flag) const;
  // A switch: given alone or as `=true`.
  bool On(std::string_view flag) const;
};

// Reads argv[2..] (argv[1] names the command). On a usage error, prints it
// (UsageError) and returns nullopt; the caller exits with kExitUsage.
std::optional<CommandLine> ReadCommandLine(std::string_view command, int argc,
                                           char** argv,
                                           std::span<const FlagSpec> flags,
                                           std::string_view usage);

// Prints "ixa COMMAND: MESSAGE" and then the usage to standard error;
// returns kExitUsage.
int UsageError(std::string_view command, std::string_view message,
               std::string_view usage);

// A decimal integer in [low, high], the whole text; nullopt otherwise.
std::optional<int64_t> ParseIntValue(std::string_view text, int64_t low,
                                     int64_t high);
// "2,3,4": one or more comma-separated integers; nullopt otherwise.
std::optional<std::vector<int64_t>> ParseIntListValue(std::string_view text);

// "SOURCE:LINE:COL: error: MESSAGE", without ":LINE:COL" when the error has
// no position in the text. SOURCE is the file as given, `<stdin>`, or
// `<--flag>` for text given on the command line.
std::string CompilerStyleError(std::string_view source, const Error& error);

// The whole file `path`, or standard input for "-"; false when it cannot
// be read (a directory cannot), with the operating system's reason
// (strerror) in *reason.
bool ReadInput(const std::string& path, std::string* text, std::string* reason);

// The operating system's reason why `path` cannot be opened for reading
// (strerror of errno; "Is a directory" for a directory), or empty when it
// can.
std::string UnreadableReason(const std::string& path);

// Writes `text` to the file `path`, or to standard output when `path` is
// empty or "-"; false (after an "ixa COMMAND: cannot write ..." line) when
// it cannot be written.
bool WriteOutput(std::string_view command, const std::string& path,
                 std::string_view text);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_COMMAND_LINE_H_
