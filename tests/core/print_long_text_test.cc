// The printer collects its text in a buffer on the stack and appends it to
// the string when the buffer is full (printer.cc, TextWriter). Maps whose
// text is many times that buffer must print exactly: names longer than it
// (written straight through), names that fill it, many short pieces, and
// sorted constraints printed apart first.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::MustParse;

TEST_CASE("maps with long names print exactly", "[print]") {
  ExprContext ctx;
  // Longer than the buffer, about as long, shorter.
  const std::string a(2000, 'a'), b(1000, 'b'), c(600, 'c'), r(1500, 'r');
  const std::string header =
      "(" + a + ", " + b + ")[" + c + "]{" + r + "} -> (";
  const std::string domain = "), domain: " + a + " in [0, 9], " + b +
                             " in [0, 99], " + c + " in [-5, 123456789012], " +
                             r + " in [-9223372036854775808, 7], ";
  // Constraints given out of order: the print sorts them by their text.
  IndexingMap m =
      MustParse(header + a + " + " + b + " * 2, " + c + " floordiv 3, " + r +
                    " mod 4" + domain + b + " mod 3 in [1, 1], " + a + " - " +
                    r + " in [0, 100], " + a + " + " + c + " in [0, 50]",
                &ctx);
  const std::string affine = header + a + " + " + b + " * 2, " + c +
                             " floordiv 3, " + r + " mod 4" + domain + a +
                             " + " + c + " in [0, 50], " + a + " - " + r +
                             " in [0, 100], " + b + " mod 3 in [1, 1]";
  CHECK(PrintIndexingMap(m, TextSyntax::kAffine) == affine);
  // Products before variables; `-r` sorts first.
  const std::string symbolic = header + b + " * 2 + " + a + ", " + c +
                               " / 3, " + r + " mod 4" + domain + "-" + r +
                               " + " + a + " in [0, 100], " + a + " + " + c +
                               " in [0, 50], " + b + " mod 3 in [1, 1]";
  CHECK(PrintIndexingMap(m, TextSyntax::kSymbolic) == symbolic);

  // Appended after what the string holds.
  std::string out = "map: ";
  AppendIndexingMap(m, TextSyntax::kAffine, out);
  CHECK(out == "map: " + affine);

  // One constraint prints in place, without the sorting.
  m = MustParse("(" + a + ")[" + c + "] -> (" + c + "), domain: " + a +
                    " in [0, 9], " + c + " in [0, 9], " + a + " + " + c +
                    " in [0, 50]",
                &ctx);
  CHECK(PrintIndexingMap(m) ==
        "(" + a + ")[" + c + "] -> (" + c + "), domain: " + a + " in [0, 9], " +
            c + " in [0, 9], " + a + " + " + c + " in [0, 50]");

  // Expressions over name lists.
  Expr e = ctx.Add(ctx.Symbol(0), ctx.Mul(ctx.Dim(0), ctx.Constant(-3)));
  CHECK(PrintExpr(e, {a}, {c}, TextSyntax::kAffine) == c + " - " + a + " * 3");
  CHECK(PrintExpr(e, {a}, {c}, TextSyntax::kSymbolic) == a + " * -3 + " + c);
}

TEST_CASE("maps of many short pieces print exactly", "[print]") {
  ExprContext ctx;
  std::string results;
  for (int k = 1; k <= 400; ++k) {
    if (k > 1) results += ", ";
    results += "d0 + " + std::to_string(k);
  }
  const std::string text = "(d0, d1) -> (" + results + ")";
  IndexingMap m = MustParse(text, &ctx);
  CHECK(PrintIndexingMap(m, TextSyntax::kAffine) == text);
  CHECK(PrintIndexingMap(m, TextSyntax::kSymbolic) == text);
  std::string out = "map: ";
  AppendIndexingMap(m, TextSyntax::kAffine, out);
  CHECK(out == "map: " + text);

  // More constraint text than fits the buffer, sorted by it.
  std::string given;
  std::vector<std::string> constraints;
  for (int k = 2; k <= 120; ++k) {
    std::string c = "d0 + d1 * " + std::to_string(k) + " in [0, 1000]";
    given += ", " + c;
    constraints.push_back(c);
  }
  std::sort(constraints.begin(), constraints.end());
  std::string sorted;
  for (const std::string& c : constraints) sorted += ", " + c;
  const std::string bounds = ", domain: d0 in [0, 9], d1 in [0, 9]";
  m = MustParse("(d0, d1) -> (d0)" + bounds + given, &ctx);
  CHECK(PrintIndexingMap(m, TextSyntax::kAffine) ==
        "(d0, d1) -> (d0)" + bounds + sorted);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
