// The cases of XLA's symbolic_tile_test.cc: the tile of each operand read
// by an output tile at the origin, with XLA's expected offset, size and
// stride maps (written over XLA's s<k>, the output tile sizes). A tile is
// compared as the set of elements it reads along each dim, at every tile
// size its constraints allow: ixa may state a tile with the opposite stride
// direction (a reverse reads offset 178, stride -1 where XLA writes
// offset 179 - s0, stride 1) or a size-1 dim's stride differently. The
// tile must also hold no more div/mod nodes than XLA's.
#include <set>

#include "analysis/uses/tiles.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

struct Expected {
  std::vector<std::string> offsets, sizes, strides;
};

std::vector<std::set<int64_t>> Elements(const std::vector<int64_t>& offsets,
                                        const std::vector<int64_t>& sizes,
                                        const std::vector<int64_t>& strides) {
  std::vector<std::set<int64_t>> out(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    for (int64_t k = 0; k < sizes[i]; ++k) {
      out[i].insert(offsets[i] + k * strides[i]);
    }
  }
  return out;
}

// Every tile size up to 12 per dim, and the ends and middle of larger
// ranges; runtime variables at their ends.
std::vector<Point> SamplePoints(const IndexingMap& m) {
  std::vector<std::vector<int64_t>> axes;
  auto axis = [](const Interval& b) {
    std::vector<int64_t> v;
    if (b.upper - b.lower < 12) {
      for (int64_t x = b.lower; x <= b.upper; ++x) v.push_back(x);
    } else {
      v = {b.lower,     b.lower + 1, b.lower + 5, (b.lower + b.upper) / 2,
           b.upper - 1, b.upper};
    }
    return v;
  };
  for (const Variable& d : m.dims()) axes.push_back(axis(d.bounds));
  for (int k = 0; k < m.num_symbols(); ++k) {
    const Interval& b = m.symbol(k).bounds;
    axes.push_back({b.lower, b.upper});
  }
  std::vector<Point> out(1);
  for (size_t a = 0; a < axes.size(); ++a) {
    std::vector<Point> next;
    for (const Point& p : out) {
      for (int64_t x : axes[a]) {
        Point q = p;
        (static_cast<int>(a) < m.num_dims() ? q.dims : q.symbols).push_back(x);
        next.push_back(std::move(q));
      }
    }
    out = std::move(next);
  }
  return out;
}

// Tiles of `hlo`'s root fusion (or entry) operands; `expected` per tile in
// order (std::nullopt: XLA has no tile for it).
void CheckTiles(const std::string& hlo,
                const std::vector<std::optional<Expected>>& expected) {
  ExprContext ctx;
  auto module = ParseOrDie(hlo);
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto tiles = ComputeParameterTiles(*region, 0, {}, &ctx);
  INFO((tiles.ok() ? "" : tiles.error().ToString()));
  REQUIRE(tiles.ok());
  REQUIRE(tiles->size() == expected.size());
  for (size_t t = 0; t < expected.size(); ++t) {
    const OperandTile& got = (*tiles)[t];
    INFO("operand tile " << t << " of map " << PrintIndexingMap(got.map));
    if (!expected[t]) {
      CHECK_FALSE(got.tile.has_value());
      continue;
    }
    INFO((got.tile ? "" : got.unsupported));
    REQUIRE(got.tile.has_value());
    const SymbolicTile& tile = *got.tile;
    INFO("tile " << PrintIndexingMap(tile.tile_map));
    std::vector<std::string> size_names, rt_names;
    for (int k = 0; k < tile.tile_map.num_dims(); ++k) {
      size_names.push_back("s" + std::to_string(k));
    }
    for (int k = 0; k < tile.tile_map.num_rt_vars(); ++k) {
      rt_names.push_back("rt" + std::to_string(k));
    }
    auto parse = [&](const std::vector<std::string>& texts) {
      std::vector<Expr> out;
      for (const std::string& text : texts) {
        auto e = ParseExpr(text, &ctx, size_names, rt_names);
        INFO(text);
        REQUIRE(e.ok());
        out.push_back(*e);
      }
      return out;
    };
    const std::vector<Expr> offsets = parse(expected[t]->offsets);
    const std::vector<Expr> sizes = parse(expected[t]->sizes);
    const std::vector<Expr> strides = parse(expected[t]->strides);
    REQUIRE(static_cast<int>(offsets.size()) == tile.rank);
    // At least as simple as XLA's tile.
    int ours = 0, theirs = 0;
    for (Expr e : tile.tile_map.results()) ours += CountDivMod(e);
    for (const auto* list : {&offsets, &sizes, &strides}) {
      for (Expr e : *list) theirs += CountDivMod(e);
    }
    CHECK(ours <= theirs);
    int compared = 0;
    for (const Point& p : SamplePoints(tile.tile_map)) {
      auto concrete = EvaluateTile(tile, p.dims);
      REQUIRE(concrete.ok());
      // XLA's formulas hold where its constraints do; ixa's hold at more
      // sizes (a collapse with size-1 dims between) and fewer (a floordiv
      // of an unaligned block).
      if (!concrete->satisfied || !concrete->xla_satisfied) continue;
      std::vector<int64_t> o, s, st, go;
      for (int i = 0; i < tile.rank; ++i) {
        o.push_back(*Evaluate(offsets[i], p.dims, p.symbols));
        s.push_back(*Evaluate(sizes[i], p.dims, p.symbols));
        st.push_back(*Evaluate(strides[i], p.dims, p.symbols));
        go.push_back(*Evaluate(tile.offset(i), p.dims, p.symbols));
      }
      INFO("tile sizes " << ::Catch::Detail::stringify(p.dims)
                         << ", runtime values "
                         << ::Catch::Detail::stringify(p.symbols));
      CHECK(Elements(go, concrete->sizes, concrete->strides) ==
            Elements(o, s, st));
      ++compared;
    }
    CHECK(compared > 0);
  }
}

std::string Entry(const std::string& body, const std::string& comps = "") {
  return "HloModule m\n" + comps + "ENTRY e {\n" + body + "\n}";
}

TEST_CASE("XLA symbolic_tile_test", "[xla][tile]") {
  SECTION("CanPropagateTileFromDotOutputToInputs") {
    CheckTiles(
        Entry(R"(
      p0 = f32[11, 17, 19] parameter(0)
      p1 = f32[11, 19, 23] parameter(1)
      ROOT dot = f32[11, 17, 23] dot(p0, p1),
        lhs_batch_dims={0}, rhs_batch_dims={0},
        lhs_contracting_dims={2}, rhs_contracting_dims={1})"),
        {Expected{{"0", "0", "0"}, {"s0", "s1", "19"}, {"1", "1", "1"}},
         Expected{{"0", "0", "0"}, {"s0", "19", "s2"}, {"1", "1", "1"}}});
  }
  SECTION("CanPropagateTileThroughTrivialReshape") {
    CheckTiles(
        Entry(R"(
      p0 = f32[11, 17, 19] parameter(0)
      ROOT reshape = f32[1, 11, 17, 19] reshape(p0))"),
        {Expected{{"0", "0", "0"}, {"s1", "s2", "s3"}, {"1", "1", "1"}}});
  }
  SECTION("CanPropagateTileThroughNonTrivialMergeReshapeFromOutputToInput") {
    CheckTiles(Entry(R"(
      p0 = f32[1,8,6,4]{3,2,1,0} parameter(0)
      ROOT bitcast = f32[48,4]{1,0} bitcast(p0))"),
               {Expected{{"0", "0", "0", "0"},
                         {"1", "(s0 + 5) floordiv 6",
                          "s0 - ((s0 - 1) floordiv 6) * 6", "s1"},
                         {"0", "1", "1", "1"}}});
  }
  SECTION("CanPropagateTileThroughNonTrivialSplitReshapeFromOutputToInput") {
    CheckTiles(Entry(R"(
      p0 = f32[192,4]{1,0} parameter(0)
      ROOT bitcast = f32[4,8,6,4]{3,2,1,0} bitcast(p0))"),
               {Expected{{"0", "0"},
                         {"(s0 - 1) * 48 + (s1 - 1) * 6 + s2", "s3"},
                         {"((-s2 + 7) floordiv 6) * (((-s1 + 9) floordiv 8) * "
                          "((-((-s0 + 5) floordiv 4) + 1) * 48) + "
                          "(-((-s1 + 9) floordiv 8) + 1) * 6) - ((-s2 + 7) "
                          "floordiv 6) + 1",
                          "1"}}});
  }
  SECTION("FailsToPropagateTileThroughNonTrivialReshape") {
    CheckTiles(Entry(R"(
      p0 = f32[12, 4, 19] parameter(0)
      ROOT reshape = f32[4, 12, 19] reshape(p0))"),
               {std::nullopt});
  }
  SECTION("CanPropagateTileThroughElementwiseOp") {
    const Expected e{{"0"}, {"s0"}, {"1"}};
    CheckTiles(Entry(R"(
      p0 = f32[150] parameter(0)
      p1 = f32[150] parameter(1)
      ROOT add = f32[150] add(p0, p1))"),
               {e, e});
  }
  SECTION("CanPropagateTileFromBroadcastOutputToInput") {
    CheckTiles(Entry(R"(
      p0 = f32[150] parameter(0)
      ROOT broadcast = f32[157,150] broadcast(p0), dimensions={1})"),
               {Expected{{"0"}, {"s1"}, {"1"}}});
  }
  SECTION("CanPropagateTileFromReduceOutputToInput") {
    CheckTiles(Entry(R"(
      p0 = f32[125,150] parameter(0)
      c0 = f32[] constant(-inf)
      ROOT reduce = f32[150] reduce(p0, c0), dimensions={0}, to_apply=max)",
                     kMax),
               {Expected{{"0", "0"}, {"125", "s0"}, {"1", "1"}}});
  }
  SECTION("CanPropagateTileThroughReverse") {
    CheckTiles(Entry(R"(
      p0 = f32[179] parameter(0)
      ROOT reverse = f32[179] reverse(p0), dimensions={0})"),
               {Expected{{"-s0 + 179"}, {"s0"}, {"1"}}});
  }
  SECTION("CanPropagateTileFromSliceOutputToInput") {
    CheckTiles(Entry(R"(
      p0 = f32[120,142] parameter(0)
      ROOT slice = f32[10,21] slice(p0), slice={[40:60:2], [20:104:4]})"),
               {Expected{{"40", "20"}, {"s0", "s1"}, {"2", "4"}}});
  }
  SECTION("CanPropagateTileFromTransposeOutputToInput") {
    CheckTiles(Entry(R"(
      p0 = f32[179,150] parameter(0)
      ROOT transpose = f32[150,179] transpose(p0), dimensions={1,0})"),
               {Expected{{"0", "0"}, {"s1", "s0"}, {"1", "1"}}});
  }
  SECTION("CanPropagateTileFromConcatenate") {
    CheckTiles(
        Entry(R"(
      p0 = f32[2,5,7] parameter(0)
      p1 = f32[2,11,7] parameter(1)
      p2 = f32[2,17,7] parameter(2)
      ROOT concat = f32[2,33,7] concatenate(p0, p1, p2), dimensions={1})"),
        {Expected{{"0", "0", "0"}, {"s0", "s1", "s2"}, {"1", "1", "1"}},
         Expected{{"0", "-5", "0"}, {"s0", "s1", "s2"}, {"1", "1", "1"}},
         Expected{{"0", "-16", "0"}, {"s0", "s1", "s2"}, {"1", "1", "1"}}});
  }
  SECTION("CanPropagateTileFromPadOpToInput") {
    CheckTiles(Entry(R"(
      p0 = f32[4, 4] parameter(0)
      p1 = f32[] parameter(1)
      ROOT pad = f32[8, 8] pad(p0, p1), padding=2_2_0x1_3_0)"),
               {Expected{{"-2", "-1"}, {"s0", "s1"}, {"1", "1"}},
                Expected{{}, {}, {}}});
  }
  SECTION("CanPropagateTileFromDynamicSlice") {
    // XLA folds the offset of the dim where operand and slice agree (rt1
    // in [0, 0]) to 0.
    CheckTiles(
        Entry(R"(
      src = s8[2,2,258] parameter(0)
      of1 = s32[] parameter(1)
      of2 = s32[] parameter(2)
      of3 = s32[] parameter(3)
      ROOT ds = s8[1,2,32] dynamic-slice(s8[2,2,258] src, s32[] of1,
        s32[] of2, s32[] of3), dynamic_slice_sizes={1, 2, 32})"),
        {Expected{{"rt0", "0", "rt2"}, {"1", "s1", "s2"}, {"0", "1", "1"}},
         Expected{{}, {}, {}}, Expected{{}, {}, {}}, Expected{{}, {}, {}}});
  }
  SECTION("CanPropagateTileFromDynamicUpdateSlice") {
    CheckTiles(Entry(R"(
      src = s8[21,31] parameter(0)
      upd = s8[7,8] parameter(1)
      of1 = s32[] parameter(2)
      of2 = s32[] parameter(3)
      ROOT dus = s8[21,31] dynamic-update-slice(s8[21,31] src, s8[7,8] upd,
        s32[] of1, s32[] of2))"),
               {Expected{{"0", "0"}, {"s0", "s1"}, {"1", "1"}},
                Expected{{"-rt0", "-rt1"}, {"s0", "s1"}, {"1", "1"}},
                Expected{{}, {}, {}}, Expected{{}, {}, {}}});
  }
  SECTION("CanPropagateTileFromGather") {
    CheckTiles(
        Entry(R"(
      operand = f32[33,76,70] parameter(0)
      indices = s32[1806,2] parameter(1)
      ROOT r = f32[1806,7,8,4] gather(operand, indices), offset_dims={1,2,3},
        collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1,
        slice_sizes={7,8,4})"),
        {Expected{{"rt0", "rt1", "0"}, {"s1", "s2", "s3"}, {"1", "1", "1"}},
         Expected{{"0", "0"}, {"s0", "2"}, {"1", "1"}}});
  }
  SECTION("CanPropagateTileThroughSplitReshapeOfReverse") {
    CheckTiles(R"(
      HloModule m
      f {
        p0 = f32[1,8,6,4]{3,2,1,0} parameter(0)
        reverse = f32[1,8,6,4]{3,2,1,0} reverse(p0), dimensions={1,2}
        ROOT bitcast = f32[48,4]{1,0} bitcast(reverse)
      }
      ENTRY e {
        p0 = f32[1,8,6,4] parameter(0)
        ROOT fusion = f32[48,4] fusion(p0), kind=kLoop, calls=f
      })",
               {Expected{{"0", "-((s0 + 5) floordiv 6) + 8",
                          "-(s0 - ((s0 - 1) floordiv 6) * 6) + 6", "0"},
                         {"1", "(s0 + 5) floordiv 6",
                          "s0 - ((s0 - 1) floordiv 6) * 6", "s1"},
                         {"0", "1", "1", "1"}}});
  }
  SECTION("FailsGracefullyAtPropagatingTileThroughSliceOfSplitReshape") {
    for (const char* slice : {"[18:43:5], [0:4:2]", "[20:45:5], [0:4:2]"}) {
      CheckTiles(std::string(R"(
        HloModule m
        f {
          p0 = f32[1,8,6,4]{3,2,1,0} parameter(0)
          bitcast = f32[48,4]{1,0} bitcast(p0)
          ROOT slice = f32[5,2]{1,0} slice(bitcast), slice={)") +
                     slice + R"(}
        }
        ENTRY e {
          p0 = f32[1,8,6,4] parameter(0)
          ROOT fusion = f32[5,2] fusion(p0), kind=kLoop, calls=f
        })",
                 {std::nullopt});
    }
  }
  SECTION("CanCombineCompatibleConstraints") {
    CheckTiles(
        Entry(R"(
      p0 = f32[1,8,6,4,8]{4,3,2,1,0} parameter(0)
      ROOT bitcast = f32[48,32]{1,0} bitcast(p0))"),
        {Expected{{"0", "0", "0", "0", "0"},
                  {"1", "(s0 + 5) floordiv 6", "s0 - ((s0 - 1) floordiv 6) * 6",
                   "(s1 + 7) floordiv 8", "s1 - ((s1 - 1) floordiv 8) * 8"},
                  {"0", "1", "1", "1", "1"}}});
  }
  // XLA: `d1 + s0` (a window of 2) has size s1 + 1 and stride 1.
  SECTION("CanDeriveTileWhenTheIndexingMapHasSymbolsInASum") {
    CheckTiles(Entry(R"(
      p0 = f32[1,3] parameter(0)
      c0 = f32[] constant(0)
      ROOT rw = f32[1,2] reduce-window(p0, c0), window={size=1x2},
        to_apply=max)",
                     kMax),
               {Expected{{"0", "0"}, {"s0", "s1 + 1"}, {"1", "1"}}});
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
