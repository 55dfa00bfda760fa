// libFuzzer target fuzz_map_simplify: map text -> parse -> simplify, and on
// small domains the simplified map must equal the original at every point
// (brute-force enumeration). Also: the simplified map prints to text
// that parses again, and simplifying the same text in a fresh context gives
// the same text (the text form round-trips). The other algebra operations run
// too, for crashes and UB: rescale_symbols, remove_unused_*,
// convert_symbols_to_dims (each checked against enumeration where that is
// exact), is_empty, and composition with itself.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/compose.h"
#include "simplifier/decide.h"
#include "simplifier/simplify.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ixa::IndexingMap;

// Largest domain box checked point by point.
constexpr int64_t kEnumerationLimit = 1 << 12;

std::string Point(const ixa::Point& p) {
  std::ostringstream s;
  s << "dims (";
  for (int64_t v : p.dims) s << v << " ";
  s << ") symbols (";
  for (int64_t v : p.symbols) s << v << " ";
  s << ")";
  return s.str();
}

// The original evaluates at every domain point (no overflow), so a
// transformed map must too and agree with it.
void CheckEqual(const char* what, const IndexingMap& original,
                const IndexingMap& transformed) {
  auto eq =
      ixa::EquivalentByEnumeration(original, transformed, kEnumerationLimit);
  std::string detail = ixa::PrintIndexingMap(original) + "\n" +
                       ixa::PrintIndexingMap(transformed);
  if (!eq.ok()) {
    ixa::fuzz::Fail(std::string(what) + ": evaluation failed after it",
                    detail + "\n" + eq.error().ToString());
  }
  if (!eq->equivalent) {
    ixa::fuzz::Fail(std::string(what) + " changed the map",
                    detail + "\nat " + Point(*eq->counterexample));
  }
}

// The set of (dims, results) over the domain, or nullopt when it cannot be
// enumerated. Transformations that renumber or rescale symbols keep it.
std::optional<std::set<std::vector<int64_t>>> Image(const IndexingMap& map) {
  std::set<std::vector<int64_t>> image;
  bool ok = true;
  auto r =
      ixa::ForEachDomainPoint(map, kEnumerationLimit, [&](const ixa::Point& p) {
        auto values = map.Evaluate(p.dims, p.symbols);
        if (!values.ok()) {
          ok = false;
          return false;
        }
        std::vector<int64_t> row = p.dims;
        row.insert(row.end(), values->begin(), values->end());
        image.insert(std::move(row));
        return true;
      });
  if (!r.ok() || !ok) return std::nullopt;
  return image;
}

void CheckSameImage(const char* what, const IndexingMap& original,
                    const IndexingMap& transformed) {
  auto before = Image(original);
  if (!before) return;
  auto after = Image(transformed);
  std::string detail = ixa::PrintIndexingMap(original) + "\n" +
                       ixa::PrintIndexingMap(transformed);
  if (!after) {
    ixa::fuzz::Fail(std::string(what) + ": cannot enumerate after it", detail);
  }
  if (*before != *after) {
    ixa::fuzz::Fail(std::string(what) + " changed the map", detail);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ixa::ExprContext ctx;
  auto parsed = ixa::ParseIndexingMap(text, &ctx);
  if (!parsed.ok()) return 0;
  const IndexingMap original = *parsed;
  {
    // A map whose own print does not read back is fuzz_map_roundtrip's
    // finding (the printer and parser), not the simplifier's.
    ixa::ExprContext fresh;
    if (!ixa::ParseIndexingMap(ixa::PrintIndexingMap(original), &fresh).ok()) {
      return 0;
    }
  }
  // Comparable when the box is small and the original evaluates everywhere.
  auto self =
      ixa::EquivalentByEnumeration(original, original, kEnumerationLimit);
  const bool comparable = self.ok();

  IndexingMap simplified = original;
  ixa::Simplify(&simplified);
  std::string printed = ixa::PrintIndexingMap(simplified);
  if (comparable) CheckEqual("simplify", original, simplified);
  {
    ixa::ExprContext fresh;
    auto reread = ixa::ParseIndexingMap(printed, &fresh);
    if (!reread.ok()) {
      ixa::fuzz::Fail("the simplified map does not parse",
                      printed + "\n" + reread.error().ToString());
    }
    auto again = ixa::ParseIndexingMap(ixa::PrintIndexingMap(original), &fresh);
    if (again.ok()) {
      ixa::Simplify(&*again);
      if (ixa::PrintIndexingMap(*again) != printed) {
        ixa::fuzz::Fail("simplify is not deterministic",
                        printed + "\n" + ixa::PrintIndexingMap(*again));
      }
    }
  }

  // M1, M2: symbols renumbered or rescaled, same dims -> results relation.
  IndexingMap rescaled = original;
  rescaled.RescaleSymbols();
  if (comparable) CheckSameImage("rescale_symbols", original, rescaled);
  IndexingMap unused = original;
  unused.RemoveUnusedSymbols();
  if (comparable) CheckSameImage("remove_unused_symbols", original, unused);
  IndexingMap unused_vars = original;
  unused_vars.RemoveUnusedVars();
  IndexingMap as_dims = original.ConvertSymbolsToDims();
  (void)ixa::PrintIndexingMap(as_dims);

  // Exact decisions (budgeted) and self-composition, for crashes.
  ixa::DecideOptions options;
  options.budget = 4000;  // keeps every input fast (the corpus replay in CI)
  auto empty = ixa::IsEmpty(original, options);
  if (comparable && empty.ok()) {
    auto brute = ixa::IsEmptyByEnumeration(original, kEnumerationLimit);
    if (brute.ok() && *brute != *empty) {
      ixa::fuzz::Fail("is_empty disagrees with enumeration",
                      ixa::PrintIndexingMap(original));
    }
  }
  if (original.num_results() == original.num_dims()) {
    auto composed = ixa::ComposeSimplified(original, original);
    if (composed.ok()) (void)ixa::PrintIndexingMap(*composed);
  }
  return 0;
}
