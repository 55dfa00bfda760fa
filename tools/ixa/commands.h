// Subcommands of `ixa` besides `query` and `emit`, implemented in
// layout_commands.cc and rules_command.cc.
#ifndef IXA_TOOLS_IXA_COMMANDS_H_
#define IXA_TOOLS_IXA_COMMANDS_H_

namespace ixa::cli {

// `ixa devices [--json]`: the built-in device descriptions, as a table or
// as JSON Lines (one object per device). argv[1] is "devices". Exit codes:
// 0 ok, 64 usage, 73 standard output cannot be written.
int RunDevicesCommand(int argc, char** argv);

// `ixa draw`: renders a layout to SVG (`ixa draw --help` lists the flags).
// argv[1] is "draw". Exit codes: 0 ok, 1 invalid layout, 64 usage,
// 73 when the output cannot be written.
int RunDrawCommand(int argc, char** argv);

// `ixa rules [--json]`: the simplifier's rule ids, each with its
// obligations (simplifier/rule_obligations.h), as text or as JSON Lines
// (one object per rule). argv[1] is "rules". Exit codes: 0 ok, 64 usage,
// 73 standard output cannot be written.
int RunRulesCommand(int argc, char** argv);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_COMMANDS_H_
