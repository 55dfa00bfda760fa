// Maps whose print did not read back as the same map (findings of the
// independent differential tester, tests/difftest): parse(print(m)) must be
// m, and print(parse(print(m))) the same text, in both syntaxes.
#include <catch2/catch.hpp>
#include <string>

#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::MustParse;

// The print of m reads back as m (the symbolic syntax sorts the summands,
// so there as the same map up to their order) and prints the same again.
void CheckRoundTrip(const IndexingMap& m) {
  for (TextSyntax syntax : {TextSyntax::kAffine, TextSyntax::kSymbolic}) {
    std::string text = PrintIndexingMap(m, syntax);
    INFO(text);
    auto back = ParseIndexingMap(text, m.context());
    if (!back.ok()) INFO(back.error().ToString());
    REQUIRE(back.ok());
    if (syntax == TextSyntax::kAffine) CHECK(*back == m);
    CHECK(back->IsKnownEmpty() == m.IsKnownEmpty());
    CHECK(back->constraints().size() == m.constraints().size());
    CHECK(PrintIndexingMap(*back, syntax) == text);
  }
}

TEST_CASE("printed variable names are distinct", "[print]") {
  ExprContext ctx;
  // Composition keeps custom names and renumbers default ones: dim `s0` of
  // the first map met the second map's symbol s0.
  auto c = ComposeIndexingMaps(MustParse("(a, s0) -> (a)", &ctx),
                               MustParse("(d0)[s0] -> (d0 + s0)", &ctx));
  REQUIRE(c.ok());
  CheckRoundTrip(*c);
  // The custom name keeps its spelling, the default one yields.
  CHECK(PrintIndexingMap(*c) == "(a, s0)[s0_1] -> (a + s0_1)");
  // Two custom names.
  c = ComposeIndexingMaps(MustParse("(a)[x] -> (a + x)", &ctx),
                          MustParse("(b)[x] -> (b * 2 + x)", &ctx));
  REQUIRE(c.ok());
  CheckRoundTrip(*c);
  CHECK(PrintIndexingMap(*c) == "(a)[x, x_1] -> ((a + x_1) * 2 + x)");
  // A runtime variable named like a dim.
  c = ComposeIndexingMaps(MustParse("(d0, d1, d2, d3) -> (0)", &ctx),
                          MustParse("(d0){d3} -> (d0 + d3)", &ctx));
  REQUIRE(c.ok());
  CheckRoundTrip(*c);
  // Removing a symbol renumbers the rest: s1 became s0, the dim's name.
  IndexingMap m = MustParse("(s0)[x, s1] -> (s1)", &ctx);
  CHECK(m.RemoveUnusedSymbols());
  CheckRoundTrip(m);
  CHECK(PrintIndexingMap(m) == "(s0)[s0_1] -> (s0_1)");
  // `_1` taken already: the next free suffix.
  m = MustParse("(s0, s0_1)[x, s1] -> (s1 + s0_1)", &ctx);
  CHECK(m.RemoveUnusedSymbols());
  CheckRoundTrip(m);
  CHECK(PrintIndexingMap(m) == "(s0, s0_1)[s0_2] -> (s0_2 + s0_1)");
  // Converting symbols appends dims with default names.
  m = MustParse("(d1)[s0] -> (d1 + s0)", &ctx);
  CheckRoundTrip(m.ConvertSymbolsToDims());
}

TEST_CASE("sums of constants that overflowed print back the same", "[print]") {
  ExprContext ctx;
  // 3 + (2^63 - 2) overflows, so construction keeps the sum; the symbolic
  // printer used to sort its summands, which then folded into one constant
  // (and the domain read back as KNOWN EMPTY).
  CheckRoundTrip(MustParse(
      "() -> (), domain: -(3 + 9223372036854775806 - 9223371920890658842) "
      "in [-115964117003, -115964117001]",
      &ctx));
  CheckRoundTrip(MustParse(
      "(d0) -> (3 + 9223372036854775806 + 5, d0 + 9223372036854775807 + 2)",
      &ctx));
  // A product of two constants (2^63 does not fit) was printed as a
  // subtraction, `a - -2 * 4611686018427387904`, which reads back as
  // a + -(-2^63), another tree.
  IndexingMap m = MustParse(
      "() -> (9223372036854775807 * 2 + -2 * -4611686018427387904)", &ctx);
  CheckRoundTrip(m);
  CHECK(PrintIndexingMap(m) ==
        "() -> (9223372036854775807 * 2 + -2 * -4611686018427387904)");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
