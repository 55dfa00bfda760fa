// Comparisons of the shapes in TVM's rewrite-simplify tests (its cmp
// family), decided exactly (simplifier/decide.h): each comparison holds at
// every point of its domain, or at none, and ixa must prove which: the
// domain with the comparison's negation (or the comparison) added as a
// constraint is empty. Many need modular reasoning (`x * 4 + 6 != 0` for
// every integer) or products of ranges. The expected answer is checked by
// brute force on the tried points. Variables are the dims x, y, z;
// unbounded unless the case bounds them.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/text.h"
#include "simplifier/decide.h"
#include "simplifier/simplify.h"

namespace ixa {
namespace IXA_UNITY_ID {

struct CompareCase {
  const char* domain;  // "" when every variable is any integer
  const char* lhs;
  const char* op;  // <, <=, ==, !=, >=, >
  int64_t rhs;
  bool always;  // true: holds everywhere; false: nowhere
};

constexpr CompareCase kCompareCases[] = {
    // Modular facts for every integer.
    {"", "x * 4 + 6", "!=", 0, true},
    {"", "x * 4 + 6", "==", 0, false},
    {"", "x * 2", "!=", 5, true},
    {"", "x * 2 + y * 4", "!=", 3, true},
    {"", "x * 6 + y * 9", "==", 2, false},
    {"", "(x * 4 + 6) mod 4", "==", 2, true},
    {"", "(x * 6) mod 4", "!=", 1, true},
    {"", "(x * 2 + 1) mod 2", "==", 1, true},
    {"", "x * 4 + 6 - y * 4", "==", 0, false},
    {"", "(x * 8 + 3) floordiv 4 - x * 2", "==", 0, true},
    // Remainders and quotients.
    {"", "(x mod 8) * 2", "<", 17, true},
    {"", "(x mod 8) * 2", ">", 14, false},
    {"", "x mod 8", ">=", 0, true},
    {"", "(x floordiv 8) * 8 - x", "<=", 0, true},
    {"", "(x floordiv 8) * 8 - x", ">", 0, false},
    {"", "x - (x floordiv 8) * 8", "<", 8, true},
    {"", "((x + 3) floordiv 4) * 4 - x", ">=", 0, true},
    {"", "(x floordiv 4) * 4 + x mod 4 - x", "==", 0, true},
    {"x in [0, 15]", "x floordiv 4", "<", 4, true},
    {"x in [0, 15]", "x mod 16 - x", "==", 0, true},
    {"x in [0, 1000]", "x mod 2 + x floordiv 2", "<=", 1000, true},
    // min / max.
    {"", "min(x, y) - max(x, y)", "<=", 0, true},
    {"", "min(x, 5)", "<=", 5, true},
    {"", "max(x, 5)", "<", 5, false},
    {"", "min(x, y) - x", ">", 0, false},
    {"", "max(x + 2, y) - x", ">=", 2, true},
    // Products of ranges.
    {"x in [0, 10], y in [0, 10]", "x * y", "<=", 100, true},
    {"x in [1, 10], y in [2, 5]", "x * y", ">=", 2, true},
    {"x in [-3, 3], y in [0, 4]", "x * y", ">=", -12, true},
    {"x in [-3, 3], y in [0, 4]", "x * y", ">", 12, false},
    {"x in [-5, 5]", "x * x", ">=", 0, true},
    {"x in [2, 1000], y in [2, 1000]", "x * y", "==", 101, false},
    // Linear facts.
    {"", "x - (x + 1)", "<", 0, true},
    {"", "x + y - (y + x + 1)", "==", -1, true},
    {"x in [0, 7], y in [0, 7]", "x * 8 + y", "<", 64, true},
    {"x in [0, 7], y in [0, 7]", "x * 8 + y", "==", 64, false},
};

// The intervals (int64 ends are "no bound") where `e op c` holds, and
// those where it fails.
std::vector<Interval> Where(const std::string& op, int64_t c, bool holds) {
  const Interval below{kInt64Min, c - 1}, at{c, c}, above{c + 1, kInt64Max};
  std::vector<Interval> yes, no;
  if (op == "<") yes = {below}, no = {at, above};
  if (op == "<=") yes = {below, at}, no = {above};
  if (op == "==") yes = {at}, no = {below, above};
  if (op == "!=") yes = {below, above}, no = {at};
  if (op == ">=") yes = {at, above}, no = {below};
  if (op == ">") yes = {above}, no = {below, at};
  return holds ? yes : no;
}

bool Holds(const std::string& op, int64_t v, int64_t c) {
  return op == "<"    ? v < c
         : op == "<=" ? v <= c
         : op == "==" ? v == c
         : op == "!=" ? v != c
         : op == ">=" ? v >= c
                      : v > c;
}

TEST_CASE("tvm comparisons: decided exactly", "[decide][tvm]") {
  int decided = 0, by_simplifier = 0;
  for (const CompareCase& c : kCompareCases) {
    ExprContext ctx;
    std::string text = std::string("(x, y, z) -> (") + c.lhs + ")";
    if (*c.domain) text += std::string(", domain: ") + c.domain;
    auto base = ParseIndexingMap(text, &ctx);
    INFO(c.lhs << " " << c.op << " " << c.rhs << " over " << c.domain);
    REQUIRE(base.ok());
    Expr e = base->results()[0];
    // The expectation, by brute force on [-20, 20] per unbounded variable
    // (bounded ones: their range, clipped to 41 values).
    int64_t lo[3], hi[3];
    for (int i = 0; i < 3; ++i) {
      const Interval& b = base->dims()[i].bounds;
      lo[i] = b.lower == kInt64Min ? -20 : b.lower;
      hi[i] = b.upper == kInt64Max ? 20 : std::min(b.upper, lo[i] + 40);
    }
    for (int64_t x = lo[0]; x <= hi[0]; ++x) {
      for (int64_t y = lo[1]; y <= hi[1]; ++y) {
        for (int64_t z = lo[2]; z <= hi[2]; ++z) {
          std::vector<int64_t> point = {x, y, z};
          auto v = base->Evaluate(point, {});
          REQUIRE(v.ok());
          INFO("x, y, z = " << x << ", " << y << ", " << z);
          REQUIRE(Holds(c.op, (*v)[0], c.rhs) == c.always);
        }
      }
    }
    // Decided: the comparison's failing side (always) or holding side
    // (never) is empty, piece by piece.
    bool proven = true, simplified_empty = true;
    for (const Interval& piece : Where(c.op, c.rhs, !c.always)) {
      IndexingMap m = *base;
      m.AddConstraint(e, piece);
      auto empty = IsEmpty(m);
      proven &= empty.ok() && *empty;
      IndexingMap s = m;
      Simplify(&s);
      simplified_empty &= s.IsKnownEmpty();
    }
    CHECK(proven);
    decided += proven;
    by_simplifier += simplified_empty;
  }
  INFO(decided << " of " << std::size(kCompareCases)
               << " decided exactly; the simplifier alone empties "
               << by_simplifier);
  CHECK(decided == static_cast<int>(std::size(kCompareCases)));
  WARN("comparisons decided: " << decided << " of " << std::size(kCompareCases)
                               << " (the simplifier alone: " << by_simplifier
                               << ")");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
