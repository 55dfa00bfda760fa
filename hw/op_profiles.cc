#include "hw/op_profiles.h"

#include "hw/device.h"

namespace ixa::hw {
namespace {

// XLA's measured tables (hlo_op_profiles_data.h), reduced to the entries its
// fusion cost model reads. sm_90 holds every floating and integer entry
// that is not the default; sm_80, sm_86 and sm_100 hold their f32 entries.
// sm_80 is sparse in XLA itself (42 entries: f32 exponential is absent, so
// it costs the default, while f32 log costs 259).
constexpr OpProfileEntry kSm90[] = {
    {"add", "f16", 7},
    {"add", "f32", 7},
    {"add", "f64", 15},
    {"add", "c64", 7},
    {"add", "c128", 15},
    {"subtract", "f16", 7},
    {"subtract", "f32", 7},
    {"subtract", "f64", 15},
    {"subtract", "c64", 7},
    {"subtract", "c128", 15},
    {"multiply", "f16", 7},
    {"multiply", "f32", 3},
    {"multiply", "f64", 15},
    {"multiply", "c64", 79},
    {"multiply", "c128", 39},
    {"divide", "f16", 43},
    {"divide", "f32", 19},
    {"divide", "f64", 526},
    {"divide", "c64", 498},
    {"divide", "c128", 2280},
    {"exponential", "f16", 102},
    {"exponential", "f32", 79},
    {"exponential", "f64", 376},
    {"exponential", "c64", 641},
    {"exponential", "c128", 1342},
    {"exponential-minus-one", "f16", 217},
    {"exponential-minus-one", "f32", 190},
    {"exponential-minus-one", "f64", 712},
    {"exponential-minus-one", "c64", 2055},
    {"exponential-minus-one", "c128", 1275},
    {"log", "f16", 182},
    {"log", "f32", 166},
    {"log", "f64", 815},
    {"log", "c64", 756},
    {"log", "c128", 2455},
    {"log-plus-one", "f16", 245},
    {"log-plus-one", "f32", 229},
    {"log-plus-one", "f64", 1259},
    {"log-plus-one", "c64", 633},
    {"log-plus-one", "c128", 2403},
    {"tanh", "f16", 502},
    {"tanh", "f32", 467},
    {"tanh", "f64", 431},
    {"tanh", "c64", 2379},
    {"tanh", "c128", 4613},
    {"power", "f16", 526},
    {"power", "f32", 510},
    {"power", "f64", 2205},
    {"power", "c64", 5532},
    {"power", "c128", 8363},
    {"rsqrt", "f16", 95},
    {"rsqrt", "f32", 75},
    {"rsqrt", "f64", 277},
    {"rsqrt", "c64", 3148},
    {"rsqrt", "c128", 5500},
    {"sqrt", "f16", 95},
    {"sqrt", "f32", 75},
    {"sqrt", "f64", 332},
    {"sqrt", "c64", 4344},
    {"sqrt", "c128", 6636},
    {"sine", "f16", 993},
    {"sine", "f32", 958},
    {"sine", "f64", 554},
    {"sine", "c64", 2324},
    {"sine", "c128", 1999},
    {"cosine", "f16", 997},
    {"cosine", "f32", 978},
    {"cosine", "f64", 558},
    {"cosine", "c64", 2415},
    {"cosine", "c128", 1750},
    {"atan2", "f16", 451},
    {"atan2", "f32", 431},
    {"atan2", "f64", 930},
    {"atan2", "c64", 6462},
    {"atan2", "c128", 13131},
    {"cbrt", "f16", 201},
    {"cbrt", "f32", 178},
    {"cbrt", "f64", 586},
    {"divide", "s8", 356},
    {"divide", "s16", 364},
    {"divide", "s32", 297},
    {"divide", "s64", 685},
    {"divide", "u8", 300},
    {"divide", "u16", 304},
    {"divide", "u32", 122},
    {"divide", "u64", 629},
    {"multiply", "s8", 7},
    {"multiply", "s16", 7},
    {"multiply", "s32", 3},
    {"multiply", "s64", 11},
    {"multiply", "u8", 7},
    {"multiply", "u16", 7},
    {"multiply", "u32", 3},
    {"multiply", "u64", 11},
    {"power", "s8", 122},
    {"power", "s16", 122},
    {"power", "s32", 71},
    {"power", "s64", 253},
    {"power", "u8", 122},
    {"power", "u16", 126},
    {"power", "u32", 71},
    {"power", "u64", 253},
};
constexpr OpProfileEntry kSm80[] = {
    {"log", "f32", 259},
    {"tanh", "f32", 504},
    {"power", "f32", 1221},
};
constexpr OpProfileEntry kSm86[] = {
    {"exponential", "f32", 86}, {"exponential-minus-one", "f32", 381},
    {"log", "f32", 244},        {"log-plus-one", "f32", 262},
    {"tanh", "f32", 190},       {"logistic", "f32", 176},
    {"rsqrt", "f32", 75},       {"sqrt", "f32", 75},
    {"power", "f32", 925},      {"sine", "f32", 662},
    {"cosine", "f32", 662},     {"atan2", "f32", 486},
    {"cbrt", "f32", 867},
};
constexpr OpProfileEntry kSm100[] = {
    {"add", "f32", 7},
    {"multiply", "f32", 7},
    {"divide", "f32", 23},
    {"exponential", "f32", 82},
    {"exponential-minus-one", "f32", 196},
    {"log", "f32", 165},
    {"log-plus-one", "f32", 200},
    {"tanh", "f32", 137},
    {"logistic", "f32", 176},
    {"erf", "f32", 161},
    {"rsqrt", "f32", 74},
    {"sqrt", "f32", 74},
    {"power", "f32", 463},
    {"sine", "f32", 990},
    {"cosine", "f32", 1002},
    {"atan2", "f32", 373},
    {"cbrt", "f32", 180},
};

struct Table {
  std::string_view key;
  std::span<const OpProfileEntry> entries;
};

constexpr Table kTables[] = {
    {"sm_80", kSm80}, {"sm_86", kSm86}, {"sm_90", kSm90}, {"sm_100", kSm100}};
constexpr std::string_view kKeys[] = {"sm_80", "sm_86", "sm_90", "sm_100"};

}  // namespace

std::span<const OpProfileEntry> OpProfileTable(std::string_view key) {
  for (const Table& t : kTables) {
    if (t.key == key) return t.entries;
  }
  return {};
}

std::span<const std::string_view> OpProfileKeys() { return kKeys; }

std::string OpProfileKeyFor(const Device& device) {
  if (!device.op_profile.empty() && !OpProfileTable(device.op_profile).empty())
    return device.op_profile;
  if (device.compute_capability_major > 0) {
    std::string key = "sm_" + std::to_string(device.compute_capability_major) +
                      std::to_string(device.compute_capability_minor);
    if (!OpProfileTable(key).empty()) return key;
  }
  return "sm_86";
}

std::optional<int64_t> FindOpProfile(std::string_view key,
                                     std::string_view opcode,
                                     std::string_view type) {
  for (const OpProfileEntry& e : OpProfileTable(key)) {
    if (e.opcode == opcode && e.type == type) return e.cycles;
  }
  return std::nullopt;
}

int64_t OpProfileFlops(const Device& device, std::string_view opcode,
                       std::string_view type) {
  return FindOpProfile(OpProfileKeyFor(device), opcode, type)
      .value_or(kDefaultOpProfileFlops);
}

}  // namespace ixa::hw
