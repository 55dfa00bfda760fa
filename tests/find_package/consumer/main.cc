// Parses, composes and prints maps through the installed headers.
#include <cstdio>
#include <string>

#include "core/enumerate.h"
#include "core/indexing_map.h"
#include "core/text.h"

int main() {
  ixa::ExprContext ctx;
  auto collapse = ixa::ParseIndexingMap(
      "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]", &ctx);
  auto expand = ixa::ParseIndexingMap(
      "(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]", &ctx);
  if (!collapse.ok() || !expand.ok()) {
    std::fprintf(stderr, "parse failed\n");
    return 1;
  }
  auto composed = ixa::ComposeIndexingMaps(*collapse, *expand);
  if (!composed.ok()) return 1;
  auto identity = ixa::ParseIndexingMap(
      "(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 7]", &ctx);
  auto eq = ixa::EquivalentByEnumeration(*composed, *identity);
  if (!eq.ok() || !eq->equivalent) {
    std::fprintf(stderr, "composition is not the identity\n");
    return 1;
  }
  std::string text = ixa::PrintIndexingMap(*collapse);
  std::printf("%s\n", text.c_str());
  return text == "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], "
                 "d1 in [0, 7]"
             ? 0
             : 1;
}
