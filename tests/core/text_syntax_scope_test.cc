// ScopedTextSyntax: the syntax PrintExpr / PrintIndexingMap use when their
// caller names none (the CLI's per-request `syntax`).
#include <catch2/catch.hpp>

#include "core/text.h"

namespace ixa {
namespace IXA_UNITY_ID {

TEST_CASE("ScopedTextSyntax sets the printer's default", "[text]") {
  ExprContext ctx;
  auto map = ParseIndexingMap(
      "(d0, d1) -> (d0 floordiv 4 + d1, d1 mod 3), domain: d0 in [0, 9], "
      "d1 in [0, 9], d0 floordiv 2 in [0, 3]",
      &ctx);
  REQUIRE(map.ok());
  const Expr e = map->results()[0];
  const std::string affine_map =
      "(d0, d1) -> (d0 floordiv 4 + d1, d1 mod 3), domain: d0 in [0, 9], d1 "
      "in [0, 9], d0 floordiv 2 in [0, 3]";
  const std::string symbolic_map =
      "(d0, d1) -> (d0 / 4 + d1, d1 mod 3), domain: d0 in [0, 9], d1 in [0, "
      "9], d0 / 2 in [0, 3]";
  CHECK(DefaultTextSyntax() == TextSyntax::kAffine);
  CHECK(PrintIndexingMap(*map) == affine_map);
  CHECK(PrintExpr(e, *map) == "d0 floordiv 4 + d1");
  {
    ScopedTextSyntax symbolic(TextSyntax::kSymbolic);
    CHECK(DefaultTextSyntax() == TextSyntax::kSymbolic);
    CHECK(PrintIndexingMap(*map) == symbolic_map);
    CHECK(PrintExpr(e, *map) == "d0 / 4 + d1");
    CHECK(PrintExpr(e) == "d0 / 4 + d1");
    // A caller that names a syntax gets it.
    CHECK(PrintIndexingMap(*map, TextSyntax::kAffine) == affine_map);
    {
      ScopedTextSyntax affine(TextSyntax::kAffine);
      CHECK(PrintExpr(e, *map) == "d0 floordiv 4 + d1");
    }
    CHECK(PrintExpr(e, *map) == "d0 / 4 + d1");
  }
  CHECK(DefaultTextSyntax() == TextSyntax::kAffine);
  CHECK(PrintIndexingMap(*map) == affine_map);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
