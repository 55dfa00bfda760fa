#include "hw/dtype.h"

#include <array>
#include <cctype>

namespace ixa::hw {

namespace {

struct Entry {
  const char* name;
  int bits;
  bool is_float;
};

// The XLA PrimitiveType names the layout ops accept.
constexpr std::array<Entry, 22> kTypes = {{
    {"pred", 8, false},    {"s2", 2, false},      {"u2", 2, false},
    {"s4", 4, false},      {"u4", 4, false},      {"s8", 8, false},
    {"u8", 8, false},      {"s16", 16, false},    {"u16", 16, false},
    {"s32", 32, false},    {"u32", 32, false},    {"s64", 64, false},
    {"u64", 64, false},    {"f8e4m3fn", 8, true}, {"f8e5m2", 8, true},
    {"f16", 16, true},     {"bf16", 16, true},    {"f32", 32, true},
    {"f64", 64, true},     {"c64", 64, true},     {"c128", 128, true},
    {"f4e2m1fn", 4, true},
}};

}  // namespace

std::optional<DType> FindDType(std::string_view name) {
  std::string lower;
  for (char c : name) {
    lower.push_back(
        static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (const Entry& e : kTypes) {
    if (lower == e.name) return DType{e.name, e.bits, e.is_float};
  }
  return std::nullopt;
}

std::optional<int> ByteSize(const DType& t) {
  if (t.bits % 8 != 0) return std::nullopt;
  return t.bits / 8;
}

std::string KnownDTypeNames() {
  std::string out;
  for (const Entry& e : kTypes) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

}  // namespace ixa::hw
