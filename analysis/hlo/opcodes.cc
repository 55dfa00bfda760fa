#include "analysis/hlo/opcodes.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <vector>

namespace ixa::hlo {
namespace {

// Sorted, so that a lookup is a binary search; the static_assert below
// keeps it sorted. Besides XLA's long-standing opcodes, the inverse and
// hyperbolic trigonometric ops (acos ... sinh) that XLA's newer HLO and
// its emitter tests use: they read, index as elementwise ops, and the code
// generators answer unsupported where they cannot emit them.
constexpr std::array<std::string_view, 135> kOpcodes = {
    "abs",
    "acos",
    "acosh",
    "add",
    "add-dependency",
    "after-all",
    "all-gather",
    "all-gather-done",
    "all-gather-start",
    "all-reduce",
    "all-reduce-done",
    "all-reduce-start",
    "all-to-all",
    "and",
    "asin",
    "asinh",
    "async-done",
    "async-start",
    "async-update",
    "atan",
    "atan2",
    "atanh",
    "batch-norm-grad",
    "batch-norm-inference",
    "batch-norm-training",
    "bitcast",
    "bitcast-convert",
    "broadcast",
    "call",
    "cbrt",
    "ceil",
    "cholesky",
    "clamp",
    "clz",  // the project's older spelling of count-leading-zeros
    "collective-broadcast",
    "collective-permute",
    "collective-permute-done",
    "collective-permute-start",
    "compare",
    "complex",
    "concatenate",
    "conditional",
    "constant",
    "convert",
    "convolution",
    "copy",
    "copy-done",
    "copy-start",
    "cosh",
    "cosine",
    "count-leading-zeros",
    "custom-call",
    "divide",
    "domain",
    "dot",
    "dynamic-reshape",
    "dynamic-slice",
    "dynamic-update-slice",
    "erf",
    "exponential",
    "exponential-minus-one",
    "fft",
    "floor",
    "fusion",
    "gather",
    "get-dimension-size",
    "get-tuple-element",
    "imag",
    "infeed",
    "iota",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "map",
    "maximum",
    "minimum",
    "multiply",
    "negate",
    "not",
    "opt-barrier",
    "optimization-barrier",  // the project's older spelling of opt-barrier
    "or",
    "outfeed",
    "pad",
    "parameter",
    "partition-id",
    "popcnt",
    "power",
    "ragged-all-to-all",
    "ragged-dot",
    "real",
    "recv",
    "recv-done",
    "reduce",
    "reduce-precision",
    "reduce-scatter",
    "reduce-window",
    "remainder",
    "replica-id",
    "reshape",
    "reverse",
    "rng",
    "rng-bit-generator",
    "rng-get-and-update-state",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "scaled-dot",  // XLA HEAD
    "scan",        // XLA HEAD
    "scatter",
    "select",
    "select-and-scatter",
    "send",
    "send-done",
    "set-dimension-size",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "sign",
    "sine",
    "sinh",
    "slice",
    "sort",
    "sqrt",
    "stochastic-convert",
    "subtract",
    "tan",
    "tanh",
    "topk",
    "transpose",
    "triangular-solve",
    "tuple",
    "while",
    "xor",
};
static_assert(std::is_sorted(kOpcodes.begin(), kOpcodes.end()),
              "kOpcodes must stay sorted: IsKnownOpcode searches it");

bool InTable(std::string_view name) {
  return std::binary_search(kOpcodes.begin(), kOpcodes.end(), name);
}

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

std::span<const std::string_view> KnownOpcodes() { return kOpcodes; }

bool IsKnownOpcode(std::string_view name) {
  if (InTable(name)) return true;
  for (std::string_view suffix : {"-start", "-update", "-done"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix) &&
        InTable(name.substr(0, name.size() - suffix.size()))) {
      return true;
    }
  }
  return false;
}

std::optional<std::string_view> ClosestOpcode(std::string_view name) {
  // About one edit in four characters still reads as a misspelling
  // ("multipy", "reduce_window", "get-tuple-elemnt"); more is another word.
  const int limit = std::max<int>(1, static_cast<int>(name.size()) / 4);
  std::optional<std::string_view> best;
  int best_distance = limit + 1;
  for (std::string_view opcode : kOpcodes) {
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
