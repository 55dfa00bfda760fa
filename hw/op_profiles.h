// XLA:GPU's per-device op profiles as data: the cost, in flop equivalents
// per element, that XLA's fusion cost model charges an elementwise op of a
// given element type (docs/cost-model.md "Op profiles").
//
// An entry is the latency of one op in a dependent chain of one thread,
// measured in 1 ns steps and scaled by 2 * clock (so about 3.96 units per
// ns on an H100). Tables are keyed "sm_XY" by compute capability; a device
// without a table uses sm_86's. An op or type missing from a table costs
// kDefaultOpProfileFlops. Only the entries XLA's model reads are kept
// (opcode, element type, clock cycles).
#ifndef IXA_HW_OP_PROFILES_H_
#define IXA_HW_OP_PROFILES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ixa::hw {

struct Device;

// XLA's kDefaultFlopsPerElement: "at least a few clock cycles".
inline constexpr int64_t kDefaultOpProfileFlops = 3;

struct OpProfileEntry {
  std::string_view opcode;  // HLO opcode, e.g. "exponential"
  std::string_view type;    // HLO element type name, e.g. "f32"
  int64_t cycles;
};

// The table of one key ("sm_90"), or an empty span when there is none.
std::span<const OpProfileEntry> OpProfileTable(std::string_view key);

// Keys that have a table, in order.
std::span<const std::string_view> OpProfileKeys();

// The key a device's profile is looked up under: its `op_profile` field,
// else "sm_" + compute capability; "sm_86" (XLA's default) when neither
// names a table.
std::string OpProfileKeyFor(const Device& device);

// The entry for (opcode, type) in `key`'s table, or nullopt.
std::optional<int64_t> FindOpProfile(std::string_view key,
                                     std::string_view opcode,
                                     std::string_view type);

// The flops XLA charges one element of `opcode` producing `type` on
// `device`: the profile entry, else kDefaultOpProfileFlops.
int64_t OpProfileFlops(const Device& device, std::string_view opcode,
                       std::string_view type);

}  // namespace ixa::hw

#endif  // IXA_HW_OP_PROFILES_H_
