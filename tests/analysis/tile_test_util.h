// The brute-force oracle of the tile tests: a tile is checked at every
// block of the tile space against the map it comes from, element by
// element.
#ifndef IXA_TESTS_ANALYSIS_TILE_TEST_UTIL_H_
#define IXA_TESTS_ANALYSIS_TILE_TEST_UTIL_H_

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "analysis/uses/tile_analysis.h"
#include "analysis/uses/tiles.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {

using Element = std::vector<int64_t>;

// Calls f on every point of the box [0, sizes).
template <typename F>
void ForEachInBox(const std::vector<int64_t>& sizes, F f) {
  for (int64_t s : sizes) {
    if (s <= 0) return;
  }
  std::vector<int64_t> at(sizes.size(), 0);
  while (true) {
    f(at);
    size_t k = 0;
    while (k < sizes.size() && ++at[k] == sizes[k]) at[k++] = 0;
    if (k == sizes.size()) return;
  }
}

// Every combination of each runtime variable at its two ends.
inline std::vector<std::vector<int64_t>> RuntimeValueSets(
    const IndexingMap& map) {
  std::vector<std::vector<int64_t>> out = {{}};
  for (const Variable& v : map.rt_vars()) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : out) {
      for (int64_t x : {v.bounds.lower, v.bounds.upper}) {
        auto p = prefix;
        p.push_back(x);
        next.push_back(p);
        if (v.bounds.lower == v.bounds.upper) break;
      }
    }
    out = std::move(next);
  }
  return out;
}

struct ExactnessCount {
  int blocks = 0;  // blocks compared
  int unsatisfied = 0;
};

// At `sizes` (one per tile-space dim; above an extent covers it whole):
// at every block, the elements of the tile that lie in `bounds` (the
// instruction's dims) are exactly those the map reads there; with
// `superset`, at least those; at a block overhanging the tile space, the
// tile covers what is read. `strides` are the output tile's (default 1).
// Sizes the constraints reject are skipped (counted).
inline void CheckTileExact(const IndexingMap& map, const SymbolicTile& tile,
                           const std::vector<int64_t>& sizes,
                           const std::vector<int64_t>& bounds,
                           ExactnessCount* count,
                           const std::vector<int64_t>& strides = {}) {
  INFO("map " << PrintIndexingMap(map));
  INFO("tile " << PrintIndexingMap(tile.tile_map));
  INFO("sizes " << ::Catch::Detail::stringify(sizes));
  auto concrete = EvaluateTile(tile, sizes, /*clamp_oversized=*/true);
  REQUIRE(concrete.ok());
  if (!concrete->satisfied) {
    ++count->unsatisfied;
    return;
  }
  const std::vector<int64_t> clamped = ClampTileSizes(tile, sizes);
  auto offsets = TileOffsetsMap(tile, sizes);
  INFO((offsets.ok() ? PrintIndexingMap(*offsets) : offsets.error().message));
  REQUIRE(offsets.ok());
  const int nd = map.num_dims(), nr = map.num_range_vars();
  std::vector<int64_t> blocks, range_box;
  for (int k = 0; k < nd; ++k) {
    blocks.push_back((tile.extents[k] + clamped[k] - 1) / clamped[k]);
  }
  for (int j = 0; j < nr; ++j) {
    const Interval& b = map.range_vars()[j].bounds;
    REQUIRE(b.lower == 0);
    range_box.push_back(b.upper + 1);
  }
  const std::vector<std::vector<int64_t>> rt_sets = RuntimeValueSets(map);
  ForEachInBox(blocks, [&](const std::vector<int64_t>& b) {
    bool full = true;
    for (int k = 0; k < nd; ++k) {
      full = full && (b[k] + 1) * clamped[k] <= tile.extents[k];
    }
    for (const std::vector<int64_t>& rt : rt_sets) {
      std::set<Element> read, named;
      ForEachInBox(clamped, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> x(nd);
        for (int k = 0; k < nd; ++k) {
          const int64_t scaled = b[k] * clamped[k] + i[k];
          if (scaled >= tile.extents[k]) return;
          x[k] =
              scaled * (k < static_cast<int>(strides.size()) ? strides[k] : 1);
        }
        ForEachInBox(range_box, [&](const std::vector<int64_t>& s) {
          std::vector<int64_t> syms = s;
          syms.insert(syms.end(), rt.begin(), rt.end());
          if (!*map.InDomain(x, syms)) return;
          // A map may name elements outside the instruction (a
          // dynamic-update-slice's update at a clamped offset): nothing
          // reads those.
          Element e = *map.Evaluate(x, syms);
          for (size_t r = 0; r < e.size(); ++r) {
            if (e[r] < 0 || e[r] >= bounds[r]) return;
          }
          read.insert(std::move(e));
        });
      });
      auto origin = offsets->Evaluate(b, rt);
      REQUIRE(origin.ok());
      ForEachInBox(concrete->sizes, [&](const std::vector<int64_t>& j) {
        Element e(j.size());
        for (size_t r = 0; r < j.size(); ++r) {
          e[r] = (*origin)[r] + j[r] * concrete->strides[r];
          if (e[r] < 0 || e[r] >= bounds[r]) return;
        }
        named.insert(e);
      });
      if (concrete->sizes.empty()) named.insert(Element{});
      INFO("block " << ::Catch::Detail::stringify(b) << " runtime values "
                    << ::Catch::Detail::stringify(rt));
      if (full && !tile.superset) {
        CHECK(named == read);
      } else {
        CHECK(std::includes(named.begin(), named.end(), read.begin(),
                            read.end()));
      }
    }
    ++count->blocks;
  });
}

// Candidate tile sizes of a dim of extent n: small ones, halves, the
// extent and one above it.
inline std::vector<int64_t> CandidateSizes(int64_t n) {
  std::vector<int64_t> v = {1, 2, 3, 4, n / 2, n, n + 1};
  std::vector<int64_t> out;
  for (int64_t x : v) {
    if (x >= 1 && std::find(out.begin(), out.end(), x) == out.end()) {
      out.push_back(x);
    }
  }
  return out;
}

}  // namespace ixa::testing

#endif  // IXA_TESTS_ANALYSIS_TILE_TEST_UTIL_H_
