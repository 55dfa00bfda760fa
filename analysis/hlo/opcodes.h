// hlo::Opcode: the opcodes the HLO reader accepts, one enumerator each,
// with one table of their names and properties, both generated from the one
// list in analysis/hlo/opcode_list.def. Any other name is a parse error with
// a suggestion, so that a misspelled opcode cannot read fine and then answer
// with nonsense (an elementwise op of no cost, an unknown map).
//
// Code asks an instruction's opcode by enumerator (`in.opcode ==
// Opcode::kDot`) or by property (IsElementwiseOpcode, IsDataMovement, ...),
// never by spelling; text (the printer, messages, JSON) takes OpcodeName.
#ifndef IXA_ANALYSIS_HLO_OPCODES_H_
#define IXA_ANALYSIS_HLO_OPCODES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ixa::hlo {

enum class Opcode : uint8_t {
#define IXA_HLO_OPCODE(enumerator, name, elementwise, properties) enumerator,
#include "analysis/hlo/opcode_list.def"
};

inline constexpr size_t kOpcodeCount = 0
#define IXA_HLO_OPCODE(enumerator, name, elementwise, properties) +1
#include "analysis/hlo/opcode_list.def"
    ;

// How an opcode is elementwise: not at all, or on how many operands.
enum class Elementwise : uint8_t { kNo, kUnary, kBinary, kTernary, kVariadic };

// The property bits of opcode_list.def (documented there).
namespace opcode_property {
inline constexpr uint8_t kNoProperty = 0;
inline constexpr uint8_t kComplexEmit = 1 << 0;
inline constexpr uint8_t kDataMovement = 1 << 1;
inline constexpr uint8_t kIndexTransform = 1 << 2;
inline constexpr uint8_t kAsyncHalf = 1 << 3;
}  // namespace opcode_property

struct OpcodeInfo {
  std::string_view name;
  Elementwise elementwise;
  uint8_t properties;  // opcode_property bits
};

// The table, indexed by the enumerator.
inline constexpr std::array<OpcodeInfo, kOpcodeCount> kOpcodeTable = [] {
  using namespace opcode_property;  // NOLINT: the list's short names
  using enum Elementwise;
  return std::array<OpcodeInfo, kOpcodeCount>{{
#define IXA_HLO_OPCODE(enumerator, name, elementwise, properties) \
  {name, elementwise, properties},
#include "analysis/hlo/opcode_list.def"
  }};
}();

constexpr const OpcodeInfo& GetOpcodeInfo(Opcode op) {
  return kOpcodeTable[static_cast<size_t>(op)];
}

// XLA's spelling: "add", "reduce-window", "count-leading-zeros", ...
constexpr std::string_view OpcodeName(Opcode op) {
  return GetOpcodeInfo(op).name;
}

// True for ops whose output element i depends only on element i of each
// operand (add, select, convert, map, ...).
constexpr bool IsElementwiseOpcode(Opcode op) {
  return GetOpcodeInfo(op).elementwise != Elementwise::kNo;
}

// The operand count of an elementwise opcode (XLA's), or 0 where it varies
// (map) or the opcode is not elementwise.
constexpr int ElementwiseOperandCount(Opcode op) {
  switch (GetOpcodeInfo(op).elementwise) {
    case Elementwise::kUnary:
      return 1;
    case Elementwise::kBinary:
      return 2;
    case Elementwise::kTernary:
      return 3;
    default:
      return 0;
  }
}

// True when `op` is one of `ops`: a short list of opcodes named in place.
constexpr bool OpcodeIn(Opcode op, std::initializer_list<Opcode> ops) {
  for (Opcode o : ops) {
    if (o == op) return true;
  }
  return false;
}

constexpr bool HasOpcodeProperty(Opcode op, uint8_t property) {
  return (GetOpcodeInfo(op).properties & property) != 0;
}
// The elemental emitter generates it on complex values.
constexpr bool IsComplexEmittable(Opcode op) {
  return HasOpcodeProperty(op, opcode_property::kComplexEmit);
}
// Makes or moves elements without arithmetic.
constexpr bool IsDataMovement(Opcode op) {
  return HasOpcodeProperty(op, opcode_property::kDataMovement);
}
// Reads its data operand at its output-to-input map (broadcast, slice, ...).
constexpr bool IsIndexTransform(Opcode op) {
  return HasOpcodeProperty(op, opcode_property::kIndexTransform);
}
// A -start / -update / -done half of asynchronous work.
constexpr bool IsAsyncHalf(Opcode op) {
  return HasOpcodeProperty(op, opcode_property::kAsyncHalf);
}

// The opcode named `name` (XLA's spelling or an older alias such as
// "clz"), or nullopt.
std::optional<Opcode> ParseOpcode(std::string_view name);

// An opcode as written: a known one, or XLA's async form of one:
// `<op>-start`, `<op>-update`, `<op>-done` (`custom-call-start`,
// `all-to-all-done`, ...), which XLA's printer writes for
// async-start/-update/-done wrapping <op>: kAsyncStart, kAsyncUpdate or
// kAsyncDone with `async_wrapped` set to <op>.
struct WrittenOpcode {
  Opcode opcode;
  std::optional<Opcode> async_wrapped;
};
std::optional<WrittenOpcode> ParseWrittenOpcode(std::string_view name);

// The spelling of `op` as a string, for text built with `+`; with
// `async_wrapped`, the async form (`custom-call-start` for kAsyncStart
// wrapping kCustomCall), where `op` must be kAsyncStart, kAsyncUpdate or
// kAsyncDone.
const std::string& WrittenOpcodeName(
    Opcode op, std::optional<Opcode> async_wrapped = std::nullopt);

// Every accepted spelling (the names and the aliases), sorted (byte order).
std::span<const std::string_view> KnownOpcodes();

// True when ParseWrittenOpcode reads `name`. A binary search: a few string
// comparisons.
bool IsKnownOpcode(std::string_view name);

// The known spelling nearest `name` by edit distance (insertions,
// deletions, substitutions and swaps of neighbours, case ignored), when it
// is close enough to be a misspelling of it; nullopt when nothing is close.
std::optional<std::string_view> ClosestOpcode(std::string_view name);

// "unknown opcode 'exponentail'; did you mean 'exponential'?", or without
// the suggestion when nothing is close.
std::string UnknownOpcodeMessage(std::string_view name);

}  // namespace ixa::hlo

#endif  // IXA_ANALYSIS_HLO_OPCODES_H_
