// Parses, composes, decides and prints maps, and indexes an HLO module,
// through the installed headers and libraries (the parts that use Boost
// inside the libraries included: exact decisions and the HLO reader).
#include <ixa/analysis/hlo/module.h>
#include <ixa/analysis/indexing/indexing.h>
#include <ixa/core/enumerate.h>
#include <ixa/core/indexing_map.h>
#include <ixa/core/text.h>
#include <ixa/simplifier/decide.h>

#include <cstdio>
#include <string>

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
  if (text != "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]")
    return 1;

  // The exact decision procedure: no multiple of both 7 and 11 in [1, 50].
  auto coprime = ixa::ParseIndexingMap(
      "(d0) -> (d0), domain: d0 in [1, 50], d0 mod 7 in [0, 0], "
      "d0 mod 11 in [0, 0]",
      &ctx);
  if (!coprime.ok()) return 1;
  auto empty = ixa::IsEmpty(*coprime);
  if (!empty.ok() || !*empty) {
    std::fprintf(stderr, "the decision procedure missed an empty domain\n");
    return 1;
  }

  // The HLO reader and the per-op maps.
  auto module = ixa::hlo::ParseHloModule(
      "p0 = f32[10, 20, 50] parameter(0)\n"
      "ROOT slice = f32[5, 3, 25] slice(f32[10, 20, 50] p0), "
      "slice={[5:10:1], [3:20:7], [0:50:2]}\n");
  if (!module.ok()) {
    std::fprintf(stderr, "HLO parse failed\n");
    return 1;
  }
  auto indexing = ixa::ComputeOutputToInputIndexing(*(*module)->entry()->root(),
                                                    /*output_id=*/0, &ctx);
  if (!indexing.ok() || indexing->indexing_maps.size() != 1 ||
      indexing->indexing_maps[0].size() != 1) {
    std::fprintf(stderr, "slice indexing failed\n");
    return 1;
  }
  std::string slice_map =
      ixa::PrintIndexingMap(*indexing->indexing_maps[0].begin());
  std::printf("%s\n", slice_map.c_str());
  return slice_map ==
                 "(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2), domain: "
                 "d0 in [0, 4], d1 in [0, 2], d2 in [0, 24]"
             ? 0
             : 1;
}
