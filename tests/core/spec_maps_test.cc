// Round trip of every map written in docs/*.md and in the XLA design
// documents they restate:
// parse -> print -> parse gives the same map, and printing is stable.
// Maps that the documents write informally (domain in prose, results
// without parentheses) are written here in the real text form.
#include <catch2/catch.hpp>

#include "core/enumerate.h"
#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::MustParse;

struct SpecMap {
  const char* where;
  const char* text;
};

const SpecMap kSpecMaps[] = {
    // docs/indexing.md §2 (multi-line, commas).
    {"docs/indexing.md §2",
     "(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2),\n"
     "domain:\n"
     "d0 in [0, 9],\n"
     "d1 in [0, 19],\n"
     "s0 in [0, 3],\n"
     "d0 + s0 in [0, 10]"},
    // §3 elementwise.
    {"elementwise",
     "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]"},
    // Broadcast.
    {"broadcast o->i",
     "(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, "
     "29]"},
    {"broadcast i->o",
     "(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 19], s0 in [0, 9], "
     "s1 in [0, 29]"},
    // DynamicSlice, XLA's document's one-item-per-line form (no commas; the
    // `hlo:`
    // annotation lines are prose and dropped).
    {"dynamic-slice (one item per line)",
     "(d0, d1, d2)[s0, s1, s2] -> (d0 + s0, d1 + s1, d2 + s2)\n"
     "domain:\n"
     "d0 in [0, 0]\n"
     "d1 in [0, 1]\n"
     "d2 in [0, 31]\n"
     "s0 in [0, 1]\n"
     "s1 in [0, 0]\n"
     "s2 in [0, 226]"},
    {"dynamic-slice, rt vars",
     "(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2), domain: "
     "d0 in [0, 0], d1 in [0, 1], d2 in [0, 31], rt0 in [0, 1], rt1 in [0, 0], "
     "rt2 in [0, 226]"},
    {"dynamic-slice offsets (one item per line)",
     "(d0, d1, d2)  -> ()\ndomain:\nd0 in [0, 0]\nd1 in [0, 1]\nd2 in [0, 31]"},
    // DynamicUpdateSlice.
    {"dus src", "(d0, d1) -> (d0, d1), domain: d0 in [0, 19], d1 in [0, 29]"},
    {"dus upd",
     "(d0, d1)[s0, s1]  -> (d0 - s0, d1 - s1)\ndomain:\nd0 in [0, 19]\n"
     "d1 in [0, 29]\ns0 in [0, 15]\ns1 in [0, 20]"},
    {"dus offsets", "(d0, d1)  -> (), domain: d0 in [0, 19], d1 in [0, 29]"},
    // Gather.
    {"gather operand",
     "(d0, d1, d2, d3)[s0, s1] -> (d1 + s0, d2 + s1, d3),\ndomain:\n"
     "d0 in [0, 1805],\nd1 in [0, 6],\nd2 in [0, 7],\nd3 in [0, 3],\n"
     "s0 in [0, 26],\ns1 in [0, 68]"},
    {"gather rt map 0", "(d0, d1, d2, d3) -> (d0, 0)"},
    {"gather rt map 1", "(d0, d1, d2, d3) -> (d0, 1)"},
    {"gather indices",
     "  (d0, d1, d2, d3)[s0] -> (d0, s0)\n  domain:\n  d0 in [0, 1805]\n"
     "  d1 in [0, 6]\n  d2 in [0, 7]\n  d3 in [0, 3]\n  s0 in [0, 1]"},
    // Transpose, reverse.
    {"transpose o->i",
     "(d0, d1, d2, d3) -> (d0, d3, d1, d2), domain: d0 in [0, 2], "
     "d1 in [0, 5], d2 in [0, 127], d3 in [0, 12287]"},
    {"transpose i->o",
     "(d0, d1, d2, d3) -> (d0, d2, d3, d1), domain: d0 in [0, 2], "
     "d1 in [0, 12287], d2 in [0, 5], d3 in [0, 127]"},
    {"reverse",
     "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3), domain: d0 in [0, 0], "
     "d1 in [0, 16], d2 in [0, 8], d3 in [0, 8]"},
    // Reduce.
    {"reduce o->i",
     "(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]"},
    {"reduce o->init", "(d0) -> (), domain: d0 in [0, 9]"},
    {"reduce i->o", "(d0, d1) -> (d1), domain: d0 in [0, 255], d1 in [0, 9]"},
    {"reduce init->o", "()[s0] -> (s0), domain: s0 in [0, 9]"},
    // Slice.
    {"slice o->i",
     "(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2), domain: d0 in [0, 4], "
     "d1 in [0, 2], d2 in [0, 24]"},
    {"slice i->o",
     "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2)\ndomain:\n"
     "d0 in [5, 9]\nd1 in [3, 17]\nd2 in [0, 48]\n(d1 - 3) mod 7 in [0, 0]\n"
     "d2 mod 2 in [0, 0]"},
    // Reshape.
    {"collapse o->i",
     "(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]"},
    {"collapse i->o",
     "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"},
    {"general reshape o->i",
     "(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, d2 + (d1 mod 2) * 4), domain: "
     "d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]"},
    {"general reshape i->o",
     "(d0, d1) -> (d0 floordiv 2, d1 floordiv 4 + (d0 mod 2) * 2, d1 mod 4), "
     "domain: d0 in [0, 3], d1 in [0, 7]"},
    {"reshape 3d o->i",
     "(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2), domain: "
     "d0 in [0, 31], d1 in [0, 2], d2 in [0, 3]"},
    {"reshape 3d i->o",
     "(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4), domain: "
     "d0 in [0, 3], d1 in [0, 7], d2 in [0, 11]"},
    // Concatenate.
    {"concat o->i1",
     "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in [0, 4], "
     "d2 in [0, 6]"},
    {"concat o->i2",
     "(d0, d1, d2) -> (d0, d1 - 5, d2), domain: d0 in [0, 1], d1 in [5, 15], "
     "d2 in [0, 6]"},
    {"concat o->i3",
     "(d0, d1, d2) -> (d0, d1 - 16, d2), domain: d0 in [0, 1], "
     "d1 in [16, 32], d2 in [0, 6]"},
    {"concat i2->o",
     "(d0, d1, d2) -> (d0, d1 + 5, d2), domain: d0 in [0, 1], d1 in [0, 10], "
     "d2 in [0, 6]"},
    {"concat i3->o",
     "(d0, d1, d2) -> (d0, d1 + 16, d2), domain: d0 in [0, 1], "
     "d1 in [0, 16], d2 in [0, 6]"},
    // Dot.
    {"dot o->i1",
     "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 3], d1 in [0, 127], "
     "d2 in [0, 63], s0 in [0, 255]"},
    {"dot o->i2",
     "(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, 127], "
     "d2 in [0, 63], s0 in [0, 255]"},
    {"dot i1->o",
     "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 3], d1 in [0, 127], "
     "d2 in [0, 255], s0 in [0, 63]"},
    {"dot i2->o",
     "(d0, d1, d2)[s0] -> (d0, s0, d1), domain: d0 in [0, 3], d1 in [0, 255], "
     "d2 in [0, 63], s0 in [0, 127]"},
    // Pad, reduce-window.
    {"pad o->i",
     "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4), domain: d0 in [1, 7], "
     "d1 in [4, 7], (d0 - 1) mod 2 in [0, 0]"},
    {"pad o->init", "(d0, d1) -> (), domain: d0 in [0, 11], d1 in [0, 15]"},
    {"reduce-window",
     "(d0, d1)[s0] -> (d0, d1 + s0), domain: d0 in [0, 1023], d1 in [0, 2], "
     "s0 in [0, 511]"},
    // §4 fusion.
    {"fusion transpose",
     "(d0, d1) -> (d1, d0), domain: d0 in [0, 999], "
     "d1 in [0, 999]"},
    {"fusion dedup",
     "(d0, d1, d2) -> (d2, d0, d1), domain: d0 in [0, 9], "
     "d1 in [0, 49], d2 in [0, 19]"},
    {"softmax",
     "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], d1 in [0, 64], "
     "d2 in [0, 124], s0 in [0, 124]"},
    {"reshapes cancel", "(d0, d1, d2) -> (d0, d1, d2)"},
    // §5 simplifier inputs and outputs (16d0 shorthand, floorDiv keyword).
    {"simplify 1",
     "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], "
     "d1 in [0, 14]"},
    {"simplify 2",
     "(d0, d1, d2) -> ((100d0 + 10d1 + d2) floorDiv 100, ((100d0 + 10d1 + d2) "
     "mod 100) floordiv 10, d2 mod 10), domain: d0 in [0, 9], d1 in [0, 9], "
     "d2 in [0, 9]"},
    {"simplify 3",
     "(d0, d1, d2) -> ((16d0 + 4d1 + d2) floordiv 8, (16d0 + 4d1 + d2) mod 8), "
     "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]"},
    {"simplify 3 result",
     "(d0, d1, d2) -> (2d0 + (4d1 + d2) floordiv 8,(4d1 + d2) mod 8)"},
    {"simplify 4",
     "(d0, d1) -> (-((-11d0 - d1 + 109) floordiv 11) + 9), domain: "
     "d0 in [0, 9], d1 in [0, 10]"},
    {"simplify 4 (seed)",
     "(d0, d1) -> (-(-11d0 - d1 + 109) floordiv 11 + 9), domain: "
     "d0 in [0, 9], d1 in [0, 10]"},
    // XLA's indexing analysis document: affine map, prose domains.
    {"xla doc affine map", "(d0)[s0, s1] -> (s0 + 5, d0 * 2, s1 * 3 + 50)"},
    {"xla doc (i, j, k)",
     "(i, j, k) -> (j), domain: i in [0, 10], j in [0, 20], k in [0, 30]"},
    {"xla doc reduce r0 r1",
     "(d0, d1)[r0, r1] -> (r0, d0, d1, r1), domain: d0 in [0, 3], "
     "d1 in [0, 7], r0 in [0, 1], r1 in [0, 15]"},
    // Emitters (docs/emitters.md): named variables.
    {"gelu loop map",
     "(th_x, bl_x)[vector_index] -> (\n"
     "   bl_x floordiv 4096,\n"
     "   (bl_x floordiv 8) mod 512,\n"
     "   (bl_x mod 8) * 512 + th_x * 4 + vector_index),\n"
     "domain: th_x in [0, 127], bl_x in [0, 24575], vector_index in [0, 3]"},
    {"flattened map",
     "(th_x, bl_x, vector_index) -> (th_x * 4 + bl_x * 512 + vector_index),"
     "domain: th_x in [0, 127], bl_x in [0, 24575], vector_index in [0, 3]"},
    {"emitters transpose [20,40]", "(d0, d1) -> (d1)"},
    {"grid dims",
     "(th_x, th_y, th_z, bl_x, bl_y, bl_z)[s0] -> (bl_x * 128 + th_x, s0), "
     "domain: th_x in [0, 127], th_y in [0, 0], th_z in [0, 0], "
     "bl_x in [0, 959], bl_y in [0, 0], bl_z in [0, 0], s0 in [0, 7]"},
    // docs/xla-reference.md.
    {"coalescing warp map",
     "(d0) -> (d0, 0, 0, 0, 0, 0), domain: d0 in [0, 31]"},
    {"mod 7 and mod 11",
     "(d0) -> (d0), domain: d0 in [0, 50], d0 mod 7 in [0, 0], "
     "d0 mod 11 in [0, 0]"},
    {"mod + 5 constraint",
     "(d0) -> (d0), domain: d0 in [0, 100], d0 mod 8 + 5 in [50, 54]"},
    {"b/459357586",
     "(d0)[s0, s1] -> (d0), domain: d0 in [0, 99], s0 in [0, 1], s1 in [0, 2], "
     "d0 * 6 + s0 * 3 + s1 in [0, 598]"},
    {"E4 mod 42", "(d0) -> (d0 mod 42), domain: d0 in [53, 71]"},
    {"E4 mod 5", "(d0) -> (d0 mod 5), domain: d0 in [-5, -1]"},
    {"E10 negative divisor",
     "()[s0] -> ((s0 floordiv 2) floordiv -7), domain: s0 in [-100, 100]"},
    {"custom names",
     "(d0)[range, to_convert_0] -> (d0 + range * to_convert_0)"},
    {"rt braces",
     "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 5]"},
    {"range and rt",
     "(d0)[s0]{rt0, rt1} -> (d0 + s0, rt0 - rt1), domain: d0 in [0, 9], "
     "s0 in [0, 3], rt0 in [0, 1], rt1 in [-2, 2], s0 + rt1 in [0, 3]"},
    // Semi-affine.
    {"semi-affine floordiv", "()[s0, s1] -> (s0 floordiv s1)"},
    {"semi-affine all ops",
     "(d0)[s0] -> (d0 * s0, d0 mod s0, d0 ceildiv s0, d0 floordiv (s0 + 1)), "
     "domain: d0 in [0, 9], s0 in [1, 4]"},
    // No domain, empty lists.
    {"no domain", "(d0, d1) -> (d0 floordiv 2)"},
    {"empty map", "() -> ()"},
    {"no results", "(d0) -> ()"},
    // XLA HEAD syntax and history.
    {"HEAD slash and keywords",
     "(d0) -> (d0 / 4, d0 floorDiv 2, d0 ceilDiv 3, d0 % 5), domain: "
     "d0 in [0, 3]"},
    {"is_simplified field",
     "(d0) -> (d0), domain: d0 in [0, 3], is_simplified: false"},
    // XLA HEAD: min / max, in both syntaxes.
    {"HEAD min max",
     "(d0, d1)[s0] -> (min(d0, 5), max(d1, s0)), domain: d0 in [0, 9], "
     "d1 in [0, 9], s0 in [0, 9]"},
    {"HEAD min of a sum",
     "(d0, d1) -> (min(128, d0 * 32 + d1 / 64 + 1)), domain: d0 in [0, 3], "
     "d1 in [0, 2047]"},
    {"min max nested, negated, in constraints",
     "(d0, d1) -> (-min(d0, d1 - 1) * 2, max(min(d0, 3), d1) floordiv 2, "
     "d0 - max(d1, 0)), domain: d0 in [0, 9], d1 in [0, 9], "
     "min(d0, d1) + max(d0, d1) in [2, 12]"},
    // Printer corner cases.
    {"negation forms",
     "(d0) -> (d0 * -3, -(d0 * 3), -d0 - 5, 5 - d0, (d0 * 2) * 3, d0 - -3, "
     "-(-d0), d0 - (d0 - 1), -(d0 + 1) * 2, -d0 * 3)"},
    {"sum grouping", "(d0, d1, d2) -> (d0 + (d1 + d2), (d0 + d1) + d2)"},
    {"int64 extremes",
     "(d0) -> (d0 + 9223372036854775807, d0 - 9223372036854775807, "
     "-9223372036854775808, d0 * -9223372036854775808, d0 + "
     "-9223372036854775808),"
     " domain: d0 in [-9223372036854775808, 9223372036854775807]"},
    {"negative bounds",
     "(d0)[s0] -> (d0 floordiv -3, s0 mod -4, d0 ceildiv -2), domain: "
     "d0 in [-10, -1], s0 in [-9223372036854775808, 0]"},
};

const SpecMap kKnownEmptyMaps[] = {
    {"KNOWN EMPTY", "KNOWN EMPTY"},
    {"domain: KNOWN EMPTY", "(d0) -> (d0), domain: KNOWN EMPTY"},
    {"0 in [10, 15]", "(d0) -> (d0), domain: d0 in [0, 9], 0 in [10, 15]"},
    {"inverted interval", "(d0) -> (d0), domain: d0 in [10, 0]"},
    {"inverted constraint",
     "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [3, 2]"},
    {"intersected to empty",
     "(d0) -> (d0), domain: d0 in [0, 9], d0 in [20, 30]"},
};

TEST_CASE("every documented map round-trips through print and parse",
          "[text]") {
  for (const SpecMap& sm : kSpecMaps) {
    INFO(sm.where << ": " << sm.text);
    ExprContext ctx;
    IndexingMap m = MustParse(sm.text, &ctx);
    CHECK_FALSE(m.IsKnownEmpty());
    std::string printed = PrintIndexingMap(m);
    INFO("printed: " << printed);
    IndexingMap again = MustParse(printed, &ctx);
    CHECK(again == m);
    CHECK(DimNames(again) == DimNames(m));
    CHECK(SymbolNames(again) == SymbolNames(m));
    CHECK(PrintIndexingMap(again) == printed);
    // In a fresh context the text is the same too (no address dependence).
    ExprContext other;
    CHECK(PrintIndexingMap(MustParse(sm.text, &other)) == printed);
  }
}

// The map that the symbolic print of m reads back as (ToSymbolicOrder on
// every expression), compared part by part.
void CheckIsSymbolicOrderOf(const IndexingMap& again, const IndexingMap& m) {
  REQUIRE(again.num_results() == m.num_results());
  for (int i = 0; i < m.num_results(); ++i) {
    CHECK(again.results()[i] == ToSymbolicOrder(m.results()[i]));
  }
  CHECK(again.dims().size() == m.dims().size());
  for (int i = 0; i < m.num_dims(); ++i) {
    CHECK(again.dims()[i].bounds == m.dims()[i].bounds);
  }
  for (int i = 0; i < m.num_symbols(); ++i) {
    CHECK(again.symbol(i).bounds == m.symbol(i).bounds);
  }
  REQUIRE(again.constraints().size() == m.constraints().size());
  for (const Constraint& c : m.constraints()) {
    bool found = false;
    for (const Constraint& d : again.constraints()) {
      found |= d.expr == ToSymbolicOrder(c.expr) && d.interval == c.interval;
    }
    CHECK(found);
  }
}

// Both syntaxes for every documented map: the symbolic print parses
// back to the map with its sums in SymbolicExpr order, prints the same
// again, uses `/` and never `floordiv`, and equals the map in value; the
// affine print of what it read is the canonical affine text of that map.
TEST_CASE("every documented map round-trips in the symbolic syntax", "[text]") {
  for (const SpecMap& sm : kSpecMaps) {
    INFO(sm.where << ": " << sm.text);
    ExprContext ctx;
    IndexingMap m = MustParse(sm.text, &ctx);
    std::string symbolic = PrintIndexingMap(m, TextSyntax::kSymbolic);
    INFO("symbolic: " << symbolic);
    CHECK(symbolic.find("floordiv") == std::string::npos);
    IndexingMap again = MustParse(symbolic, &ctx);
    CheckIsSymbolicOrderOf(again, m);
    CHECK(PrintIndexingMap(again, TextSyntax::kSymbolic) == symbolic);
    CHECK(DimNames(again) == DimNames(m));
    CHECK(SymbolNames(again) == SymbolNames(m));
    // Affine print of the re-read map: parses to it exactly.
    std::string affine = PrintIndexingMap(again);
    CHECK(MustParse(affine, &ctx) == again);
    // Same values wherever the domain is small enough to enumerate.
    auto eq = EquivalentByEnumeration(m, again, 1 << 16);
    if (eq.ok()) CHECK(eq->equivalent);
    // No address dependence.
    ExprContext other;
    CHECK(PrintIndexingMap(MustParse(sm.text, &other), TextSyntax::kSymbolic) ==
          symbolic);
  }
}

TEST_CASE("canonical print in the symbolic syntax", "[text]") {
  const std::pair<const char*, const char*> kCanonical[] = {
      // XLA HEAD prints exactly this.
      {"(d0, d1) -> (min(128, d0 * 32 + d1 floordiv 64 + 1)), domain: "
       "d0 in [0, 3], d1 in [0, 2047]",
       "(d0, d1) -> (min(128, d0 * 32 + d1 / 64 + 1)), domain: d0 in [0, 3], "
       "d1 in [0, 2047]"},
      // Summands in type order: products, mod, floordiv, ceildiv, max, min,
      // variables (dims, then symbols), the constant.
      {"(d0, d1)[s0] -> (s0 + 3 + d0 + d1 ceildiv 2 + max(d0, 1) + d1 mod 4 "
       "+ d1 floordiv 8 + min(d0, 2) + d0 * 4 + (d0 + d1))",
       "(d0, d1)[s0] -> (d0 * 4 + d1 mod 4 + d1 / 8 + d1 ceildiv 2 + "
       "max(d0, 1) + min(d0, 2) + d0 + d0 + d1 + s0 + 3)"},
      // Subtraction and negation keep the affine sign conventions.
      {"(d0, d1) -> (d0 - d1, -d0 + 16, 5 - d1 * 3)",
       "(d0, d1) -> (-d1 + d0, -d0 + 16, d1 * -3 + 5)"},
      // Nested sums are ordered too.
      {"(d0, d1) -> ((5 + d1 + d0 * 2) floordiv 3)",
       "(d0, d1) -> ((d0 * 2 + d1 + 5) / 3)"},
      {"(d0) -> (d0 floordiv -3, (d0 floordiv 2) floordiv 4)",
       "(d0) -> (d0 / -3, (d0 / 2) / 4)"},
  };
  for (const auto& [in, want] : kCanonical) {
    INFO(in);
    ExprContext ctx;
    CHECK(PrintIndexingMap(MustParse(in, &ctx), TextSyntax::kSymbolic) == want);
  }
}

TEST_CASE("known-empty maps print KNOWN EMPTY and stay empty", "[text]") {
  for (const SpecMap& sm : kKnownEmptyMaps) {
    INFO(sm.where << ": " << sm.text);
    ExprContext ctx;
    IndexingMap m = MustParse(sm.text, &ctx);
    CHECK(m.IsKnownEmpty());
    CHECK(PrintIndexingMap(m) == "KNOWN EMPTY");
    IndexingMap again = MustParse(PrintIndexingMap(m), &ctx);
    CHECK(again.IsKnownEmpty());
    CHECK(PrintIndexingMap(again) == "KNOWN EMPTY");
  }
}

// Exact canonical forms the documents fix (docs/indexing.md §2,
// docs/xla-reference.md §(b)).
TEST_CASE("canonical print of documented maps", "[text]") {
  const std::pair<const char*, const char*> kCanonical[] = {
      {"(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2),\ndomain:\nd0 in [0, 9],\n"
       "d1 in [0, 19],\ns0 in [0, 3],\nd0 + s0 in [0, 10]",
       "(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2), domain: d0 in [0, 9], "
       "d1 in [0, 19], s0 in [0, 3], d0 + s0 in [0, 10]"},
      {"(d0, d1, d2) -> ((16d0 + 4d1 + d2) floordiv 8)",
       "(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8)"},
      {"(d0) -> (-2d0, -d0, d0 - 5, d0 - d0 * 3)",
       "(d0) -> (d0 * -2, -d0, d0 - 5, d0 - d0 * 3)"},
      {"(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3)",
       "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3)"},
      {"(d0) -> ((d0 floordiv 8) * 8, (d0 * 128) mod 715)",
       "(d0) -> ((d0 floordiv 8) * 8, (d0 * 128) mod 715)"},
      {"(d0) -> (d0), domain: d0 in [0, 9], d0 mod 3 in [0, 0], "
       "d0 mod 2 in [1, 1]",
       "(d0) -> (d0), domain: d0 in [0, 9], d0 mod 2 in [1, 1], "
       "d0 mod 3 in [0, 0]"},
      {"(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 5]",
       "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 5]"},
      {"() -> ()", "() -> ()"},
      {"()[s0] -> (s0)", "()[s0] -> (s0)"},
      // A partially bounded map prints the full domain.
      {"(d0, d1) -> (d0), domain: d0 in [0, 3]",
       "(d0, d1) -> (d0), domain: d0 in [0, 3], "
       "d1 in [-9223372036854775808, 9223372036854775807]"},
  };
  for (const auto& [in, want] : kCanonical) {
    INFO(in);
    ExprContext ctx;
    CHECK(PrintIndexingMap(MustParse(in, &ctx)) == want);
  }
}

TEST_CASE("constraint order does not change the printed map", "[text]") {
  ExprContext ctx;
  IndexingMap a = MustParse(
      "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], "
      "d0 + d1 in [0, 5], d0 mod 2 in [0, 0], d1 floordiv 2 in [1, 3]",
      &ctx);
  IndexingMap b = MustParse(
      "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], "
      "d1 floordiv 2 in [1, 3], d0 mod 2 in [0, 0], d0 + d1 in [0, 5]",
      &ctx);
  CHECK(a == b);
  CHECK(PrintIndexingMap(a) == PrintIndexingMap(b));
}

TEST_CASE("names do not affect equality", "[text]") {
  ExprContext ctx;
  IndexingMap a = MustParse(
      "(th_x, bl_x)[v] -> (th_x + bl_x * 4 + v), domain: th_x in [0, 3], "
      "bl_x in [0, 1], v in [0, 1]",
      &ctx);
  IndexingMap b = MustParse(
      "(d0, d1)[s0] -> (d0 + d1 * 4 + s0), domain: d0 in [0, 3], "
      "d1 in [0, 1], s0 in [0, 1]",
      &ctx);
  CHECK(a == b);
  CHECK(PrintIndexingMap(a) != PrintIndexingMap(b));
  CHECK(DimNames(a) == std::vector<std::string>{"th_x", "bl_x"});
}

// Random trees built directly (not through the parser) must print to text
// that parses back to the same tree.
TEST_CASE("random expression trees round-trip", "[text][random]") {
  testing::RandomMaps gen(20260811);
  for (int iter = 0; iter < 4000; ++iter) {
    if (iter == 3000) gen.set_min_max(true);
    ExprContext ctx;
    int nd = static_cast<int>(gen.Uniform(0, 3));
    int nr = static_cast<int>(gen.Uniform(0, 2));
    int nt = static_cast<int>(gen.Uniform(0, 1));
    IndexingMap m = gen.RandomMap(&ctx, nd, nr, nt, 2, 2, /*semi_affine=*/true);
    if (m.IsKnownEmpty()) continue;
    // Extra shapes the generator rarely makes: negated products, nested
    // sums on the right, negative and extreme constants.
    if (nd > 0 && gen.Coin(30)) {
      Expr d = ctx.Dim(0);
      Expr odd[] = {
          ctx.Neg(ctx.Mul(d, ctx.Constant(3))),
          ctx.Add(d, ctx.Add(d, ctx.Constant(-2))),
          ctx.Add(d, ctx.Neg(ctx.Add(d, ctx.Constant(1)))),
          ctx.Mul(ctx.Neg(d), ctx.Constant(-5)),
          ctx.Add(d, ctx.Constant(kInt64Min)),
          ctx.Add(d, ctx.Mul(d, ctx.Constant(kInt64Min))),
          ctx.FloorDiv(ctx.Constant(-7), ctx.Add(d, ctx.Constant(20))),
          ctx.Mod(ctx.Neg(d), ctx.Constant(-3))};
      m.mutable_results()[0] = odd[gen.Uniform(0, 7)];
    }
    std::string printed = PrintIndexingMap(m);
    INFO(printed);
    auto again = ParseIndexingMap(printed, &ctx);
    REQUIRE(again.ok());
    CHECK(*again == m);
    CHECK(PrintIndexingMap(*again) == printed);
    std::string symbolic = PrintIndexingMap(m, TextSyntax::kSymbolic);
    INFO(symbolic);
    auto sym = ParseIndexingMap(symbolic, &ctx);
    REQUIRE(sym.ok());
    CheckIsSymbolicOrderOf(*sym, m);
    CHECK(PrintIndexingMap(*sym, TextSyntax::kSymbolic) == symbolic);
    auto eq = EquivalentByEnumeration(m, *sym);
    if (eq.ok()) CHECK(eq->equivalent);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
