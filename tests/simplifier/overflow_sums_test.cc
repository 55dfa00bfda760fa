// Sums whose int64 partial sums overflow (findings of the independent
// differential tester, tests/difftest): the simplifier folds them when the
// normal form fits, gives one canonical tree when it does not, and is
// idempotent on both, in both text syntaxes.
#include <catch2/catch.hpp>
#include <string>

#include "core/text.h"
#include "simplifier/simplify.h"
#include "tests/simplifier/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

// Simplifies `text`, checks that simplifying the print again (in both
// syntaxes) changes nothing, and returns the affine print.
std::string SimplifyTwice(const std::string& text) {
  INFO(text);
  ExprContext ctx;
  IndexingMap m = ParseOrDie(text, &ctx);
  Simplify(&m);
  for (TextSyntax syntax : {TextSyntax::kAffine, TextSyntax::kSymbolic}) {
    std::string once = PrintIndexingMap(m, syntax);
    IndexingMap again = ParseOrDie(once, &ctx);
    SimplifyResult r = Simplify(&again);
    INFO(once);
    CHECK(PrintIndexingMap(again, syntax) == once);
    CHECK_FALSE(r.budget_exhausted);
  }
  return PrintIndexingMap(m);
}

TEST_CASE("sums that overflow on the way are folded", "[simplify]") {
  // -(INT64_MIN * d0 + d0) = d0 * INT64_MAX: scaling the inner sum by -1
  // term by term overflows on INT64_MIN.
  CHECK(SimplifyTwice("(d0) -> (-(-9223372036854775808 * d0 + d0))") ==
        "(d0) -> (d0 * 9223372036854775807)");
  // 2^62 + 2^62 overflows before the -1 arrives.
  CHECK(SimplifyTwice("(d0, d1, d2) -> (d0 + (d2 + (d1 - 1))), domain: "
                      "d0 in [4611686018427387904, 4611686018427387904], "
                      "d2 in [4611686018427387904, 4611686018427387904]") ==
        "(d0, d1, d2) -> (d1 + 9223372036854775807), domain: "
        "d0 in [4611686018427387904, 4611686018427387904], "
        "d1 in [-9223372036854775808, 9223372036854775807], "
        "d2 in [4611686018427387904, 4611686018427387904]");
  // A constant constraint, once folded, is judged: here it never holds.
  CHECK(SimplifyTwice("() -> (), domain: -(3 + 9223372036854775806 - "
                      "9223371920890658842) in [-115964117003, "
                      "-115964117001]") == "KNOWN EMPTY");
}

TEST_CASE("constraints past int64 empty the map in any order", "[simplify]") {
  CHECK(SimplifyTwice("(d0) -> (), domain: d0 in [-6, 4], (d0 + d0 mod 15) "
                      "ceildiv 1 in [0, 0], d0 * 9223372036854775807 in "
                      "[-34, -10]") == "KNOWN EMPTY");
  CHECK(SimplifyTwice("(d0) -> (), domain: d0 in [-6, 4], "
                      "d0 * 9223372036854775807 in [-34, -10], "
                      "d0 + d0 mod 15 in [0, 0]") == "KNOWN EMPTY");
}

TEST_CASE("sums past int64 have one canonical form", "[simplify]") {
  // The constant is 2^63 + 1037: its chunks, whatever the input order.
  const char* expected =
      "(d0, d1) -> (d0 + 9223372036854775807 + 1038), domain: "
      "d0 in [-9223372036854775808, 9223372036854775807], d1 in [519, 519]";
  CHECK(SimplifyTwice("(d0, d1) -> (d1 + (d1 + d0 + 9223372036854775807)), "
                      "domain: d1 in [519, 519]") == expected);
  CHECK(SimplifyTwice("(d0, d1) -> (d0 + 1038 + 9223372036854775807), "
                      "domain: d1 in [519, 519]") == expected);
  // Past a few chunks: limit * q + r (5 * 2^63 + 10 here).
  CHECK(SimplifyTwice("(d0, d1) -> (-9223372036854775808 * d1 + d0 + 5), "
                      "domain: d1 in [-5, -5]") ==
        "(d0, d1) -> (d0 + 9223372036854775807 * 5 + 10), domain: "
        "d0 in [-9223372036854775808, 9223372036854775807], d1 in [-5, -5]");
  // A constraint over such a sum is judged the same however it was
  // written (difftest: the symbolic print's order dropped it, the
  // original's did not).
  CHECK(SimplifyTwice("(d0, d1)[s0]{rt0} -> (), domain: -1 * s0 + "
                      "(16777216 + (-9223372036854775808 * d1 + 8d0 + "
                      "(rt0 * 2))) in [9223372036854775807, "
                      "9223372036854775807], d0 in [0, 1000000], "
                      "s0 in [0, 1000000], d1 in [-5, -5], rt0 in [18, 118]") ==
        "(d0, d1)[s0]{rt0} -> (), domain: d0 in [0, 1000000], "
        "d1 in [-5, -5], s0 in [0, 1000000], rt0 in [18, 118]");
  // A coefficient past int64: -d0 + 2 * d0 + INT64_MAX * d0 = 2^63 * d0,
  // written as two factors.
  CHECK(SimplifyTwice("(d0) -> (-d0 + (d0 * 9223372036854775807 + d0 * 2))") ==
        "(d0) -> ((d0 * 2) * 4611686018427387904)");
  CHECK(SimplifyTwice("(d0) -> (), domain: -d0 + d0 * 2 + "
                      "d0 * 9223372036854775807 in "
                      "[-9223372036854775808, -9223372036854775808]") ==
        "(d0) -> (), domain: d0 in [-9223372036854775808, "
        "9223372036854775807], (d0 * 2) * 4611686018427387904 in "
        "[-9223372036854775808, -9223372036854775808]");
  // 3 * INT64_MAX + 2 = 311 * 88971434439113593.
  CHECK(SimplifyTwice("(d0) -> (d0 * 9223372036854775807 + d0 * "
                      "9223372036854775807 + d0 * 9223372036854775807 + "
                      "d0 * 2)") == "(d0) -> ((d0 * 311) * 88971434439113593)");
  // A prime coefficient (2^63 + 29) is written in chunks of a variable,
  // however the input splits it.
  CHECK(SimplifyTwice("(d0) -> (d0 * 30 + d0 * 9223372036854775807)") ==
        "(d0) -> (d0 * 9223372036854775807 + d0 * 30)");
  CHECK(SimplifyTwice("(d0) -> (d0 * 4611686018427387904 + "
                      "(d0 * 4611686018427387904 + d0 * 29))") ==
        "(d0) -> (d0 * 9223372036854775807 + d0 * 30)");
  // A coefficient of about 2^124 with no small factor: (x * q) * limit +
  // x * r (difftest: kept its shape, not idempotent).
  CHECK(SimplifyTwice("(d0, d1) -> ((d0 + d1) + 9223372036854775806 * "
                      "(d0 + -2305843009213693952 * d1))") ==
        "(d0, d1) -> (d0 * 9223372036854775807 + (d1 * "
        "2305843009213693951) * -9223372036854775808 - d1 * "
        "4611686018427387903)");
  // A coefficient of exactly -2^127, the smallest 128-bit value (fuzz: its
  // magnitude was taken by signed negation): no int64 split exists, so the
  // sum keeps its shape and stays idempotent.
  CHECK(SimplifyTwice("(d0, d1) -> (((d0 * 4611686018427387904) * "
                      "-9223372036854775808) * 4 + d1)") ==
        "(d0, d1) -> (((d0 * 4611686018427387904) * -9223372036854775808) * "
        "4 + d1)");
  // Never by writing a div/mod node twice: mod.gcd_split doubles the
  // coefficient of a mod past int64 (difftest: one mod became two).
  ExprContext ctx;
  IndexingMap m = ParseOrDie(
      "()[s0] -> (9223372036854775807 * ((3074457345618258602 * s0) mod 6))",
      &ctx);
  Simplify(&m);
  CHECK(CountDivMod(m.results()[0]) == 1);
  CHECK(SimplifyTwice(PrintIndexingMap(m)) == PrintIndexingMap(m));
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
