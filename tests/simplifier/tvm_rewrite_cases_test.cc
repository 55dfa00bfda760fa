// The rewrite families of TVM's arithmetic simplifier (its
// rewrite-simplify tests: add, sub, mul, floordiv, floormod, min, max,
// merges), as cases of the same shapes written for ixa: each input must
// simplify to an expression with no more nodes than TVM's expected answer
// and equal to the input at every point (brute force over the variables'
// ranges; an unbounded variable is tried on [-13, 13]). The expected
// answer is itself checked against the input, so a wrong expectation
// fails too. Variables are the dims x, y, z and n; a case's domain bounds
// some of them as TVM's tests do with `analyzer.update`, the others are
// any integer.
#include <catch2/catch.hpp>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "core/text.h"
#include "simplifier/simplify.h"

namespace ixa {
namespace IXA_UNITY_ID {

struct RewriteCase {
  const char* domain;  // "" when every variable is any integer
  const char* input;
  const char* expected;  // TVM's answer for this shape
};

// Unbounded ("" domain) unless a case says otherwise.
constexpr const char* kAny = "";

constexpr RewriteCase kRewriteCases[] = {
    // add
    {kAny, "x + (y - x)", "y"},
    {kAny, "x - (y + 1) + (y + 1)", "x"},
    {kAny, "(x - 10) + (5 + y)", "x + y - 5"},
    {kAny, "(x + 10) + (13 + z)", "x + z + 23"},
    {kAny, "min(x, y - z) + z", "min(x + z, y)"},
    {kAny, "min(x - z, y) + z", "min(x, y + z)"},
    {kAny, "max(x, y - 10) + 10", "max(x + 10, y)"},
    {kAny, "max(x - 11, y) + 11", "max(x, y + 11)"},
    {kAny, "max(x, y * 2) + min(x, y * 2)", "x + y * 2"},
    {kAny, "min(x, y * 2) + max(x, y * 2)", "x + y * 2"},
    {kAny, "max(x, y + 2) - 2", "max(x - 2, y)"},
    {kAny, "min(x, y + 2) - 2", "min(x - 2, y)"},
    {kAny, "min(x + 2, y + 3) - 2", "min(x, y + 1)"},
    {kAny, "max(0, 1 - x * 4) + x * 4", "max(x * 4, 1)"},
    {kAny, "max(2 - x * 4, 0) + x * 4", "max(x * 4, 2)"},
    {kAny, "min(0, 1 - x * 4) + x * 4", "min(x * 4, 1)"},
    {kAny, "min(2 - x * 4, 0) + x * 4", "min(x * 4, 2)"},
    {kAny, "x * y + x * 10", "x * (y + 10)"},
    {kAny, "y * x + x * 10", "x * (y + 10)"},
    {kAny, "z * 2 + min(x, y - z * 2)", "min(x + z * 2, y)"},
    {kAny, "y * x + x", "x * (y + 1)"},
    {kAny, "x + y * x", "x * (y + 1)"},
    {kAny, "(x floordiv 2) * 2 + x mod 2", "x"},
    {kAny, "x mod 2 + (x floordiv 2) * 2", "x"},
    {kAny, "((x + 3) floordiv 4) * 4 + (x + 3) mod 4", "x + 3"},
    {kAny, "(x floordiv 8) * 16 + (x mod 8) * 2", "x * 2"},
    {kAny, "x mod 4 + ((x floordiv 4) mod 8) * 4", "x mod 32"},
    {kAny, "(x mod 4 + y) floordiv 4 + x floordiv 4", "(x + y) floordiv 4"},
    // sub
    {kAny, "x + y - y", "x"},
    {kAny, "x + y - x", "y"},
    {kAny, "x - (y + x)", "0 - y"},
    {kAny, "x - (x + y)", "0 - y"},
    {kAny, "min(x, y) - x", "min(0, y - x)"},
    {kAny, "min(x, y) - y", "min(x - y, 0)"},
    {kAny, "max(x, y) - x", "max(0, y - x)"},
    {kAny, "max(x, y) - y", "max(x - y, 0)"},
    {kAny, "x - min(x, y)", "max(0, x - y)"},
    {kAny, "y - min(x, y)", "max(y - x, 0)"},
    {kAny, "x - max(x, y)", "min(0, x - y)"},
    {kAny, "y - max(x, y)", "min(y - x, 0)"},
    {kAny, "min(x + y, z) - x", "min(y, z - x)"},
    {kAny, "min(y + x, z) - x", "min(y, z - x)"},
    {kAny, "max(x + y, z) - x", "max(y, z - x)"},
    {kAny, "max(z, x + y) - x", "max(z - x, y)"},
    {kAny, "x - min(x + y, z)", "max(0 - y, x - z)"},
    {kAny, "x - max(x + y, z)", "min(0 - y, x - z)"},
    {kAny, "min(x, y) - min(y, x)", "0"},
    {kAny, "max(x, y) - max(y, x)", "0"},
    {kAny, "min(x, y) - min(x + 10, y + 10)", "-10"},
    {kAny, "min(x + 10, y + 1) - min(x, y - 9)", "10"},
    {kAny, "max(x + 10, y + 1) - max(x, y - 9)", "10"},
    {kAny, "x * y - x * z", "x * (y - z)"},
    {kAny, "y * x - x * z", "x * (y - z)"},
    {kAny, "x * y - x", "x * (y - 1)"},
    {kAny, "x - (x floordiv 3) * 3", "x mod 3"},
    {kAny, "(x + 5) floordiv 3 - (x + 2) floordiv 3", "1"},
    {kAny, "(x + 1) floordiv 2 - x floordiv 2", "x mod 2"},
    {kAny, "x - x mod 3", "(x floordiv 3) * 3"},
    {kAny, "(x + y) - (x floordiv 4) * 4", "x mod 4 + y"},
    {kAny, "x floordiv 4 - (x floordiv 8) * 2", "(x floordiv 4) mod 2"},
    {kAny, "x * 2 - (x floordiv 8) * 16", "(x mod 8) * 2"},
    // mul
    {kAny, "(x + 2) * 3", "x * 3 + 6"},
    {kAny, "(x * 2) * 3", "x * 6"},
    {kAny, "min(x, y) * max(x, y)", "x * y"},
    {kAny, "max(x, y) * min(x, y)", "x * y"},
    {kAny, "(x - y) * -2", "(y - x) * 2"},
    {kAny, "(x floordiv 2) * 6 + (x mod 2) * 3", "x * 3"},
    // floordiv
    {kAny, "(x floordiv 2) floordiv 3", "x floordiv 6"},
    {kAny, "(x floordiv 2 + 1) floordiv 3", "(x + 2) floordiv 6"},
    {kAny, "(x * 2) floordiv 4", "x floordiv 2"},
    {kAny, "(x * 4) floordiv 2", "x * 2"},
    {kAny, "(x * 4 + y) floordiv 2", "x * 2 + y floordiv 2"},
    {kAny, "(y + x * 4) floordiv 2", "y floordiv 2 + x * 2"},
    {kAny, "(x * 6 + y + 2) floordiv 2", "x * 3 + y floordiv 2 + 1"},
    {kAny, "(x * 6 - y + (y + 3)) floordiv 2", "x * 3 + 1"},
    {kAny, "(x * 8 + 7) floordiv 16", "x floordiv 2"},
    {kAny, "(x * 4 + 2) floordiv 8", "x floordiv 2"},
    {kAny, "(x * 12) floordiv 8", "(x * 3) floordiv 2"},
    {kAny, "(x + 4) floordiv 4", "x floordiv 4 + 1"},
    {kAny, "(x - 8) floordiv 4", "x floordiv 4 - 2"},
    {kAny, "(x mod 16) floordiv 4", "(x floordiv 4) mod 4"},
    {kAny, "((x floordiv 4) mod 8) floordiv 2", "(x floordiv 8) mod 4"},
    {kAny, "(x * 2 - x) floordiv 1", "x"},
    {"x in [0, 15]", "x floordiv 16", "0"},
    {"x in [16, 31]", "x floordiv 16", "1"},
    {"x in [0, 999], y in [0, 7]", "(x * 8 + y) floordiv 8", "x"},
    {"x in [0, 999], y in [0, 7]", "(x * 8 + y) floordiv 16", "x floordiv 2"},
    {"x in [0, 999], y in [0, 3], z in [0, 3]",
     "(x * 16 + y * 4 + z) floordiv 4", "x * 4 + y"},
    {"x in [0, 999], y in [0, 15]", "(x * 360 + y) floordiv 16",
     "x * 22 + (x * 8 + y) floordiv 16"},
    {"x in [0, 999], y in [0, 999]", "(x * 6 + y) floordiv 3",
     "x * 2 + y floordiv 3"},
    {"x in [-4, -1]", "x floordiv 4", "-1"},
    {"x in [0, 7], y in [0, 3]", "(x * 4 + y) floordiv 4 - x", "0"},
    {"n in [1, 100]", "(x * n) floordiv n", "x"},
    {"n in [1, 100]", "(x * n + y) floordiv n", "x + y floordiv n"},
    {"n in [1, 100]", "(n + y) floordiv n", "y floordiv n + 1"},
    {"n in [8, 16], x in [0, 7]", "x floordiv n", "0"},
    // floordiv into min / max
    {kAny, "min(x * 6, y) floordiv 2", "min(x * 3, y floordiv 2)"},
    {kAny, "max(x * 6, y) floordiv 2", "max(x * 3, y floordiv 2)"},
    {kAny, "min(y, x * 6) floordiv 2", "min(y floordiv 2, x * 3)"},
    // floormod
    {kAny, "(x * 10) mod 2", "0"},
    {kAny, "(x * 10 + y) mod 2", "y mod 2"},
    {kAny, "(x + 10) mod 2", "x mod 2"},
    {kAny, "(x + y * 10) mod 2", "x mod 2"},
    {kAny, "(x * 10 + 1 + y * 2 + 2) mod 2", "1"},
    {kAny, "(x * -10) mod 2", "0"},
    {kAny, "(x - 10) mod 2", "x mod 2"},
    {kAny, "(x * 12) mod 8", "(x mod 2) * 4"},
    {kAny, "(x * 6) mod 4", "(x mod 2) * 2"},
    {kAny, "(x * 4 + 2) mod 8", "(x mod 2) * 4 + 2"},
    {kAny, "(x * 3) mod 2", "x mod 2"},
    {kAny, "(x mod 8) mod 4", "x mod 4"},
    {kAny, "(x mod 4) mod 8", "x mod 4"},
    {kAny, "((x floordiv 4) * 4 + x mod 4) mod 8", "x mod 8"},
    {kAny, "(x mod 12 + y) mod 4", "(x + y) mod 4"},
    {kAny, "((x mod 4) * 2) mod 8", "(x * 2) mod 8"},
    {kAny, "(x - x mod 12 + y) mod 4", "y mod 4"},
    {kAny, "(x * 2 + 1) mod 2", "1"},
    {"x in [0, 15]", "x mod 16", "x"},
    {"x in [16, 31]", "x mod 16", "x - 16"},
    {"x in [0, 999], y in [0, 7]", "(x * 8 + y) mod 8", "y"},
    {"x in [0, 999], y in [0, 7]", "(x * 8 + y) mod 16", "(x mod 2) * 8 + y"},
    {"x in [0, 999], y in [0, 3], z in [0, 3]", "(x * 16 + y * 4 + z) mod 4",
     "z"},
    {"x in [0, 3], y in [0, 19]", "(x * 25 + y) mod 24", "x + y"},
    {"n in [1, 100]", "(x * n + y) mod n", "y mod n"},
    {"n in [1, 100]", "(x * n) mod n", "0"},
    {"n in [8, 16], x in [0, 7]", "x mod n", "x"},
    // variable positive divisors
    {"n in [1, 100]", "(x floordiv n) * n + x mod n", "x"},
    {"n in [1, 100]", "x mod n + (x floordiv n) * n", "x"},
    {"n in [1, 100]", "x - (x floordiv n) * n", "x mod n"},
    // min
    {kAny, "min(min(x, y), x)", "min(x, y)"},
    {kAny, "min(min(x, y), y)", "min(x, y)"},
    {kAny, "min(x, min(x, y))", "min(x, y)"},
    {kAny, "min(y, min(x, y))", "min(x, y)"},
    {kAny, "min(min(x, y), min(x, z))", "min(min(x, y), z)"},
    {kAny, "min(max(x, y), x)", "x"},
    {kAny, "min(max(x, y), y)", "y"},
    {kAny, "min(max(x, y), min(x, y))", "min(x, y)"},
    {kAny, "min(max(x, y), max(x, z))", "max(min(y, z), x)"},
    {kAny, "min(max(x, y), max(z, x))", "max(min(y, z), x)"},
    {kAny, "min(y + 1, y + 10)", "y + 1"},
    {kAny, "min(x + 10, x + 5)", "x + 5"},
    {kAny, "min(x - 5, x)", "x - 5"},
    {kAny, "min(x + y + 10, x + y + 5)", "x + y + 5"},
    {kAny, "min(min(x, 11), 10)", "min(x, 10)"},
    {kAny, "min(max(x, 11), 10)", "10"},
    {kAny, "min(x + 10, y + 10)", "min(x, y) + 10"},
    {kAny, "min(x + y, x + z)", "min(y, z) + x"},
    {kAny, "min(y + x, z + x)", "min(y, z) + x"},
    {kAny, "min(x * 2, y * 2)", "min(x, y) * 2"},
    {kAny, "min(x * -2, y * -2)", "max(x, y) * -2"},
    {kAny, "min(x * 3 + 9, y * 3)", "min(x + 3, y) * 3"},
    {kAny, "min(x * 4, 12)", "min(x, 3) * 4"},
    {kAny, "min(x floordiv 4, y floordiv 4)", "min(x, y) floordiv 4"},
    {kAny, "min((x floordiv 8) * 8, x)", "(x floordiv 8) * 8"},
    {kAny, "min(x, ((x + 7) floordiv 8) * 8)", "x"},
    {kAny, "min(x, (x floordiv 8) * 8)", "(x floordiv 8) * 8"},
    {kAny, "min(x + 3, 7)", "min(x, 4) + 3"},
    {kAny, "min(3 - x, 2)", "3 - max(x, 1)"},
    {"x in [0, 9]", "min(x, 10)", "x"},
    {"x in [0, 9], y in [10, 20]", "min(x, y)", "x"},
    // max
    {kAny, "max(max(x, y), x)", "max(x, y)"},
    {kAny, "max(max(x, y), y)", "max(x, y)"},
    {kAny, "max(x, max(x, y))", "max(x, y)"},
    {kAny, "max(min(x, y), x)", "x"},
    {kAny, "max(min(x, y), y)", "y"},
    {kAny, "max(min(x, y), max(x, y))", "max(x, y)"},
    {kAny, "max(min(x, y), min(x, z))", "min(max(y, z), x)"},
    {kAny, "max(min(x, y), min(z, x))", "min(max(y, z), x)"},
    {kAny, "max(y + 1, y + 10)", "y + 10"},
    {kAny, "max(x - 5, x)", "x"},
    {kAny, "max(max(x, 11), 10)", "max(x, 11)"},
    {kAny, "max(min(x, 9), 10)", "10"},
    {kAny, "max(x + 10, y + 10)", "max(x, y) + 10"},
    {kAny, "max(x + y, x + z)", "max(y, z) + x"},
    {kAny, "max(x * 2, y * 2)", "max(x, y) * 2"},
    {kAny, "max(x * -2, y * -2)", "min(x, y) * -2"},
    {kAny, "max(x * 3, 9)", "max(x, 3) * 3"},
    {kAny, "max(x floordiv 4, y floordiv 4)", "max(x, y) floordiv 4"},
    {kAny, "max((x floordiv 8) * 8, x)", "x"},
    {kAny, "max(x, ((x + 7) floordiv 8) * 8)", "((x + 7) floordiv 8) * 8"},
    {kAny, "max(x - 2, 7)", "max(x, 9) - 2"},
    {kAny, "max(x floordiv 4 + 1, y floordiv 4 + 1)",
     "max(x, y) floordiv 4 + 1"},
    {"x in [0, 9]", "max(x, 10)", "10"},
    {"x in [0, 9], y in [10, 20]", "max(x, y)", "y"},
    // factoring common factors
    {kAny, "x * y + x * z", "x * (y + z)"},
    {kAny, "x * y * 2 + x * 4", "x * (y * 2 + 4)"},
    {kAny, "x * y + x * z - x * y", "x * z"},
};

struct Variables {
  // Per variable x, y, z, n: the values tried.
  std::vector<std::vector<int64_t>> values;
};

// Whether the case's text names the variable (x, y, z or n).
bool CaseNames(const RewriteCase& c, const char* name) {
  const std::regex word(std::string("\\b") + name + "\\b");
  for (const char* text : {c.domain, c.input, c.expected}) {
    if (std::regex_search(text, word)) return true;
  }
  return false;
}

// The values of each variable to try: its whole range when small, else
// both ends and a spread between; [-13, 13] when unbounded. A variable the
// case does not name takes one value of its range: no answer depends on it
// (a simplified map uses no variable its input does not).
Variables ValuesToTry(const RewriteCase& c, const IndexingMap& map) {
  static constexpr const char* kNames[] = {"x", "y", "z", "n"};
  Variables v;
  for (size_t d = 0; d < map.dims().size(); ++d) {
    const Variable& var = map.dims()[d];
    std::vector<int64_t> vals;
    const Interval& b = var.bounds;
    int64_t lo = b.lower == kInt64Min ? -13 : b.lower;
    int64_t hi = b.upper == kInt64Max ? 13 : b.upper;
    if (d < std::size(kNames) && !CaseNames(c, kNames[d])) {
      vals.push_back(lo);
    } else if (hi - lo <= 26) {
      for (int64_t i = lo; i <= hi; ++i) vals.push_back(i);
    } else {
      for (int64_t i = 0; i < 9; ++i) {
        vals.push_back(lo + i);
        vals.push_back(hi - i);
        vals.push_back(lo + (hi - lo) * i / 9 + 5);
      }
    }
    v.values.push_back(std::move(vals));
  }
  return v;
}

// Whether the two maps' first results agree at every tried point (of the
// domain of `domain_map`); `where` gets the first point that differs.
bool EqualAtPoints(const RewriteCase& c, const IndexingMap& domain_map,
                   const IndexingMap& a, const IndexingMap& b,
                   std::string* where) {
  Variables v = ValuesToTry(c, domain_map);
  std::vector<size_t> at(v.values.size(), 0);
  std::vector<int64_t> point(v.values.size());
  while (true) {
    for (size_t i = 0; i < at.size(); ++i) point[i] = v.values[i][at[i]];
    auto in = domain_map.InDomain(point, {});
    if (in.ok() && *in) {
      auto ra = a.Evaluate(point, {});
      auto rb = b.Evaluate(point, {});
      if (!ra.ok() || !rb.ok() || (*ra)[0] != (*rb)[0]) {
        *where = "x, y, z, n = " + std::to_string(point[0]) + ", " +
                 std::to_string(point[1]) + ", " + std::to_string(point[2]) +
                 ", " + std::to_string(point[3]);
        return false;
      }
    }
    size_t i = 0;
    while (i < at.size() && ++at[i] == v.values[i].size()) at[i++] = 0;
    if (i == at.size()) return true;
  }
}

std::string MapText(const RewriteCase& c, const char* result) {
  std::string text = std::string("(x, y, z, n) -> (") + result + ")";
  if (*c.domain) text += std::string(", domain: ") + c.domain;
  return text;
}

TEST_CASE("tvm rewrite families: as simple as TVM and equal",
          "[simplify][tvm]") {
  int simple = 0;
  std::vector<std::string> not_simple;
  for (const RewriteCase& c : kRewriteCases) {
    ExprContext ctx;
    auto input = ParseIndexingMap(MapText(c, c.input), &ctx);
    auto expected = ParseIndexingMap(MapText(c, c.expected), &ctx);
    INFO("input: " << c.input << "  expected: " << c.expected
                   << "  domain: " << c.domain);
    REQUIRE(input.ok());
    REQUIRE(expected.ok());
    std::string where;
    // The expectation is right...
    CHECK(EqualAtPoints(c, *input, *input, *expected, &where));
    INFO(where);
    IndexingMap got = *input;
    Simplify(&got);
    INFO("got: " << PrintExpr(got.results()[0], got));
    // ... and so is ixa's answer ...
    CHECK(EqualAtPoints(c, *input, *input, got, &where));
    INFO(where);
    // ... and it is as simple.
    if (got.results()[0].tree_size() <= expected->results()[0].tree_size()) {
      ++simple;
    } else {
      not_simple.push_back(std::string(c.input) + "  ->  " +
                           PrintExpr(got.results()[0], got) +
                           "   (TVM: " + c.expected + ")");
    }
  }
  std::string report;
  for (const std::string& s : not_simple) report += "\n  " + s;
  INFO(simple << " of " << std::size(kRewriteCases)
              << " as simple as TVM; not:" << report);
  CHECK(not_simple.empty());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
