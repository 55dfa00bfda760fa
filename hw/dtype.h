// Element types by their XLA names (docs/protocol.md, "Conventions for the
// layout ops"), with their storage width in bits. Layout code works in bits so
// that sub-byte types (s4, u4, E(n) overrides) pack exactly.
#ifndef IXA_HW_DTYPE_H_
#define IXA_HW_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ixa::hw {

struct DType {
  std::string name;  // canonical lower-case XLA name, e.g. "bf16"
  int bits = 0;      // storage width; pred is 8 (one byte) unless E(1)
  bool is_float = false;
};

// Looks up an XLA element type name, case-insensitively ("F32" and "f32").
std::optional<DType> FindDType(std::string_view name);

// Bytes per element for whole-byte types; nullopt for sub-byte types.
std::optional<int> ByteSize(const DType& t);

// Comma-separated list of the known names (for error messages).
std::string KnownDTypeNames();

}  // namespace ixa::hw

#endif  // IXA_HW_DTYPE_H_
