// Prints instructions and computations back in XLA's text form, as the
// module reader accepts them: `name = shape opcode(operands), attr=value`.
// Attributes are printed from their raw text (sorted by name), so anything
// the reader kept prints again. Names the reader made up for nested
// operands (`add@3:7`) or implicit get-tuple-elements (`p#1`) are not
// names the reader accepts: SanitizeHloName maps them to ones it does.
#ifndef IXA_ANALYSIS_HLO_PRINTER_H_
#define IXA_ANALYSIS_HLO_PRINTER_H_

#include <functional>
#include <string>
#include <string_view>

#include "analysis/hlo/module.h"

namespace ixa::hlo {

// `name` with every character the reader does not accept in a name
// replaced by '_' (and "_" for an empty name).
std::string SanitizeHloName(std::string_view name);

struct PrintNaming {
  // The printed name of an instruction (its own operands included).
  std::function<std::string(const Instruction*)> instruction;
  // The printed name of a called computation.
  std::function<std::string(const Computation*)> computation;
};

// One instruction line, without indentation or newline. `name` is the
// printed name of `instr` itself.
std::string PrintInstruction(const Instruction& instr, const std::string& name,
                             const PrintNaming& naming, bool is_root);

// Default naming: SanitizeHloName of the instruction's and computation's
// own names.
PrintNaming SanitizedNaming();

// A whole computation (`name {` ... `}`, with `ENTRY` when `entry`), its
// instructions in post order.
std::string PrintComputation(const Computation& computation,
                             const PrintNaming& naming, bool entry);

// `HloModule name`, with the header attributes a module's meaning
// depends on (`replica_count=`, `num_partitions=`) where not 1.
std::string ModuleHeader(const Module& module);

// A whole module: its header, the other computations in the order
// read, then the entry.
std::string PrintModule(const Module& module);

}  // namespace ixa::hlo

#endif  // IXA_ANALYSIS_HLO_PRINTER_H_
