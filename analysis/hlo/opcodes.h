// The opcodes the HLO reader accepts: XLA's complete opcode list (the
// HLO_OPCODE_LIST of xla/hlo/ir/hlo_opcode.h, as of 2026, "scan" and
// "scaled-dot" included), plus the two older spellings the project's
// emitters and analyses still read. Any other name is a parse error with a
// suggestion, so that a misspelled opcode cannot read fine and then answer
// with nonsense (an elementwise op of no cost, an unknown map).
#ifndef IXA_ANALYSIS_HLO_OPCODES_H_
#define IXA_ANALYSIS_HLO_OPCODES_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ixa::hlo {

// Every known opcode, sorted (byte order).
std::span<const std::string_view> KnownOpcodes();

// A known opcode, or XLA's async form of one: `<op>-start`, `<op>-update`,
// `<op>-done` (`custom-call-start`, `all-to-all-done`, ...), which XLA's
// printer writes for async-start/-update/-done wrapping <op>. A binary
// search: a few string comparisons.
bool IsKnownOpcode(std::string_view name);

// The known opcode nearest `name` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours, case ignored), when it is close
// enough to be a misspelling of it; nullopt when nothing is close.
std::optional<std::string_view> ClosestOpcode(std::string_view name);

// "unknown opcode 'exponentail'; did you mean 'exponential'?", or without
// the suggestion when nothing is close.
std::string UnknownOpcodeMessage(std::string_view name);

}  // namespace ixa::hlo

#endif  // IXA_ANALYSIS_HLO_OPCODES_H_
