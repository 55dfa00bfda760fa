#include "analysis/hlo/opcodes.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "core/result.h"

namespace ixa::hlo {
namespace {

struct Spelling {
  std::string_view name;
  Opcode opcode;
};

constexpr size_t kAliasCount = 0
#define IXA_HLO_OPCODE(enumerator, name, elementwise, properties)
#define IXA_HLO_OPCODE_ALIAS(name, enumerator) +1
#include "analysis/hlo/opcode_list.def"
    ;

// Every accepted spelling, sorted, so that a lookup is a binary search and
// the suggestion for a misspelling is the same whatever the list's order.
constexpr auto kSpellings = [] {
  std::array<Spelling, kOpcodeCount + kAliasCount> s = {{
#define IXA_HLO_OPCODE(enumerator, name, elementwise, properties) \
  {name, Opcode::enumerator},
#define IXA_HLO_OPCODE_ALIAS(name, enumerator) {name, Opcode::enumerator},
#include "analysis/hlo/opcode_list.def"
  }};
  std::sort(s.begin(), s.end(), [](const Spelling& a, const Spelling& b) {
    return a.name < b.name;
  });
  return s;
}();

constexpr bool SpellingsAreUnique() {
  for (size_t i = 1; i < kSpellings.size(); ++i) {
    if (kSpellings[i - 1].name == kSpellings[i].name) return false;
  }
  return true;
}
static_assert(SpellingsAreUnique(), "opcode_list.def names a spelling twice");

constexpr bool TableIsInNameOrder() {
  for (size_t i = 1; i < kOpcodeCount; ++i) {
    if (!(kOpcodeTable[i - 1].name < kOpcodeTable[i].name)) return false;
  }
  return true;
}
static_assert(TableIsInNameOrder(),
              "opcode_list.def keeps its opcodes in byte order of the name");

constexpr auto kSpellingNames = [] {
  std::array<std::string_view, kSpellings.size()> names{};
  for (size_t i = 0; i < names.size(); ++i) names[i] = kSpellings[i].name;
  return names;
}();

// Optimal string alignment distance: Levenshtein plus the swap of two
// neighbouring characters ("exponentail"), case ignored; stops counting
// at `limit` + 1.
int EditDistance(std::string_view a, std::string_view b, int limit) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (std::abs(n - m) > limit) return limit + 1;
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  };
  // Three rows of the dynamic programming table: i - 2, i - 1 and i.
  std::vector<int> before(m + 1), previous(m + 1), current(m + 1);
  for (int j = 0; j <= m; ++j) previous[j] = j;
  for (int i = 1; i <= n; ++i) {
    current[0] = i;
    int row_min = current[0];
    for (int j = 1; j <= m; ++j) {
      int cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      current[j] = std::min(
          {previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) &&
          same(a[i - 2], b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
      row_min = std::min(row_min, current[j]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

}  // namespace

std::optional<Opcode> ParseOpcode(std::string_view name) {
  auto it = std::lower_bound(
      kSpellings.begin(), kSpellings.end(), name,
      [](const Spelling& s, std::string_view n) { return s.name < n; });
  if (it == kSpellings.end() || it->name != name) return std::nullopt;
  return it->opcode;
}

std::optional<WrittenOpcode> ParseWrittenOpcode(std::string_view name) {
  if (std::optional<Opcode> op = ParseOpcode(name)) {
    return WrittenOpcode{*op, std::nullopt};
  }
  static constexpr std::pair<std::string_view, Opcode> kSuffixes[] = {
      {"-start", Opcode::kAsyncStart},
      {"-update", Opcode::kAsyncUpdate},
      {"-done", Opcode::kAsyncDone}};
  for (const auto& [suffix, async] : kSuffixes) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      if (std::optional<Opcode> wrapped =
              ParseOpcode(name.substr(0, name.size() - suffix.size()))) {
        return WrittenOpcode{async, *wrapped};
      }
    }
  }
  return std::nullopt;
}

const std::string& WrittenOpcodeName(Opcode op,
                                     std::optional<Opcode> async_wrapped) {
  // Built once: every name, plain and with each async suffix.
  static const auto* const kNames = [] {
    auto* names = new std::array<std::array<std::string, 4>, kOpcodeCount>;
    for (size_t i = 0; i < kOpcodeCount; ++i) {
      const std::string name(kOpcodeTable[i].name);
      (*names)[i] = {name, name + "-start", name + "-update", name + "-done"};
    }
    return names;
  }();
  if (!async_wrapped) return (*kNames)[static_cast<size_t>(op)][0];
  IXA_CHECK(op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate ||
            op == Opcode::kAsyncDone);
  const int form = op == Opcode::kAsyncStart    ? 1
                   : op == Opcode::kAsyncUpdate ? 2
                                                : 3;
  return (*kNames)[static_cast<size_t>(*async_wrapped)][form];
}

std::span<const std::string_view> KnownOpcodes() { return kSpellingNames; }

bool IsKnownOpcode(std::string_view name) {
  return ParseWrittenOpcode(name).has_value();
}

std::optional<std::string_view> ClosestOpcode(std::string_view name) {
  // About one edit in four characters still reads as a misspelling
  // ("multipy", "reduce_window", "get-tuple-elemnt"); more is another word.
  const int limit = std::max<int>(1, static_cast<int>(name.size()) / 4);
  std::optional<std::string_view> best;
  int best_distance = limit + 1;
  for (std::string_view opcode : kSpellingNames) {
    int d = EditDistance(name, opcode, limit);
    if (d < best_distance) {
      best_distance = d;
      best = opcode;
    }
  }
  return best;
}

std::string UnknownOpcodeMessage(std::string_view name) {
  std::string message = "unknown opcode " + QuoteForMessage(name);
  if (std::optional<std::string_view> close = ClosestOpcode(name)) {
    message += "; did you mean '" + std::string(*close) + "'?";
  }
  return message;
}

}  // namespace ixa::hlo
