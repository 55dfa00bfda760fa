// Operand utilization and symbolic tiles (analysis/uses): exact counts
// against brute force, and XLA-style tile examples.
#include <catch2/catch.hpp>
#include <set>

#include "analysis/uses/tiles.h"
#include "analysis/uses/utilization.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

// Brute force: every domain point of every map, into a set.
int64_t BruteForceElementsRead(const std::vector<IndexingMap>& maps) {
  std::set<std::vector<int64_t>> seen;
  for (const IndexingMap& raw : maps) {
    IndexingMap m = FixRuntimeVars(raw, /*midpoint=*/false);
    auto r = ForEachDomainPoint(m, 1 << 24, [&](const Point& p) {
      auto v = m.Evaluate(p.dims, p.symbols);
      REQUIRE(v.ok());
      seen.insert(*v);
      return true;
    });
    REQUIRE(r.ok());
  }
  return static_cast<int64_t>(seen.size());
}

int64_t BruteForceReads(const std::vector<IndexingMap>& maps) {
  int64_t n = 0;
  for (const IndexingMap& raw : maps) {
    IndexingMap m = FixRuntimeVars(raw, false);
    REQUIRE(ForEachDomainPoint(m, 1 << 24, [&](const Point&) {
              ++n;
              return true;
            }).ok());
  }
  return n;
}

struct Expected {
  int64_t total, read, reads;
};

// Checks the utilization of every parameter against brute force, with the
// default budgets and with a tiny enumeration limit that forces the
// product / injective methods.
std::vector<OperandUtilization> Check(const std::string& hlo,
                                      const std::vector<Expected>& want) {
  auto module = ParseOrDie(hlo);
  ExprContext ctx;
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto maps = AllParameterMaps(*region, &ctx);
  REQUIRE(maps.ok());
  auto got = ComputeUtilization(*region, &ctx);
  INFO((got.ok() ? "" : got.error().ToString()));
  REQUIRE(got.ok());
  REQUIRE(got->size() == want.size());
  UtilizationOptions tiny;
  tiny.enumeration_limit = 64;
  auto smart = ComputeUtilization(*region, &ctx, tiny);
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("parameter " << i);
    CHECK((*got)[i].elements_total == want[i].total);
    CHECK((*got)[i].elements_read == want[i].read);
    CHECK((*got)[i].reads == want[i].reads);
    CHECK((*got)[i].elements_read == BruteForceElementsRead((*maps)[i]));
    CHECK((*got)[i].reads == BruteForceReads((*maps)[i]));
    if (smart.ok()) {
      INFO("method " << (*smart)[i].method);
      CHECK((*smart)[i].elements_read == want[i].read);
    }
  }
  return *got;
}

TEST_CASE("utilization: slice reads part of its operand", "[uses]") {
  auto u = Check(R"(
    HloModule m
    ENTRY e {
      p0 = f32[10,20] parameter(0)
      ROOT s = f32[5,10] slice(p0), slice={[0:10:2],[5:15]}
    })",
                 {{200, 50, 50}});
  CHECK(u[0].utilization == 0.25);
}

TEST_CASE("utilization: broadcast reads each element many times", "[uses]") {
  auto u = Check(R"(
    HloModule m
    ENTRY e {
      p0 = f32[20] parameter(0)
      ROOT b = f32[10,20,30] broadcast(p0), dimensions={1}
    })",
                 {{20, 20, 6000}});
  CHECK(u[0].utilization == 1.0);
}

TEST_CASE("utilization: transpose + add reads each element twice", "[uses]") {
  Check(R"(
    HloModule m
    ENTRY e {
      p0 = f32[6,6] parameter(0)
      t = f32[6,6] transpose(p0), dimensions={1,0}
      ROOT a = f32[6,6] add(p0, t)
    })",
        {{36, 36, 72}});
}

TEST_CASE("utilization: overlapping slices are counted once", "[uses]") {
  Check(R"(
    HloModule m
    ENTRY e {
      p0 = f32[30,8] parameter(0)
      a = f32[10,8] slice(p0), slice={[0:10],[0:8]}
      b = f32[10,8] slice(p0), slice={[5:15],[0:8]}
      c = f32[10,8] slice(p0), slice={[0:30:3],[0:8]}
      ab = f32[10,8] add(a, b)
      ROOT r = f32[10,8] add(ab, c)
    })",
        // Rows 0..14, plus 15, 18, 21, 24, 27 from the strided slice.
        {{240, 8 * 20, 240}});
}

TEST_CASE("utilization: pad reads its operand once, the value many times",
          "[uses]") {
  Check(R"(
    HloModule m
    ENTRY e {
      p0 = f32[4,4] parameter(0)
      c = f32[] parameter(1)
      ROOT p = f32[13,8] pad(p0, c), padding=1_2_2x0_4
    })",
        // As in XLA, the padding value's map covers the whole output.
        {{16, 16, 16}, {1, 1, 13 * 8}});
}

TEST_CASE("utilization: reduce reads everything, init once per output",
          "[uses]") {
  Check(R"(
    HloModule m
    add {
      a = f32[] parameter(0)
      b = f32[] parameter(1)
      ROOT s = f32[] add(a, b)
    }
    ENTRY e {
      p0 = f32[10,20] parameter(0)
      c = f32[] parameter(1)
      ROOT r = f32[10] reduce(p0, c), dimensions={1}, to_apply=add
    })",
        {{200, 200, 200}, {1, 1, 10}});
}

TEST_CASE("utilization: large fusions use the exact smart methods", "[uses]") {
  ExprContext ctx;
  auto run = [&](const std::string& hlo) {
    auto module = ParseOrDie(hlo);
    auto region = ResolveFusion(*module, "");
    REQUIRE(region.ok());
    auto u = ComputeUtilization(*region, &ctx);
    INFO((u.ok() ? "" : u.error().ToString()));
    REQUIRE(u.ok());
    return (*u)[0];
  };
  OperandUtilization u = run(R"(
    ENTRY e {
      p0 = f32[4096,4096] parameter(0)
      t = f32[4096,4096] transpose(p0), dimensions={1,0}
      ROOT a = f32[4096,4096] add(p0, t)
    })");
  CHECK(u.elements_read == 4096 * 4096);
  CHECK(u.reads == 2 * 4096 * 4096);
  CHECK(u.method == "product");
  u = run(R"(
    ENTRY e {
      p0 = f32[8192,8192] parameter(0)
      ROOT s = f32[4096,8192] slice(p0), slice={[1:8192:2],[0:8192]}
    })");
  CHECK(u.elements_read == 4096 * 8192);
  CHECK(u.utilization == 0.5);
  u = run(R"(
    ENTRY e {
      p0 = f32[4096,4096] parameter(0)
      ROOT r = f32[64,262144] reshape(p0)
    })");
  CHECK(u.elements_read == 4096 * 4096);
  CHECK(u.method == "injective");
}

TEST_CASE("utilization: dynamic-slice depends on the runtime offsets",
          "[uses]") {
  auto u = Check(R"(
    HloModule m
    ENTRY e {
      p0 = f32[100,100] parameter(0)
      i = s32[] parameter(1)
      j = s32[] parameter(2)
      ROOT d = f32[10,10] dynamic-slice(p0, i, j), dynamic_slice_sizes={10,10}
    })",
                 {{10000, 100, 100}, {1, 1, 100}, {1, 1, 100}});
  CHECK(u[0].depends_on_runtime);
}

TEST_CASE("image counting: injectivity is decided exactly", "[uses]") {
  ExprContext ctx;
  auto map = [&](const char* text) {
    auto m = ParseIndexingMap(text, &ctx);
    REQUIRE(m.ok());
    return *m;
  };
  CHECK(
      *IsInjective(map("(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], "
                       "d1 in [0, 7]")));
  CHECK_FALSE(
      *IsInjective(map("(d0, d1) -> (d0 * 4 + d1), domain: d0 in "
                       "[0, 3], d1 in [0, 7]")));
  CHECK_FALSE(
      *IsInjective(map("(d0) -> (d0 floordiv 2), domain: d0 in "
                       "[0, 9]")));
  // Overlapping rows: 4 rows of 8 at stride 4 cover [0, 19].
  std::vector<IndexingMap> maps = {
      map("(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 3], d1 in [0, 7]")};
  std::vector<int64_t> dims = {100};
  auto c = CountImageUnion(maps, dims);
  REQUIRE(c.ok());
  CHECK(c->count == 20);
}

// ---------------------------------------------------------------- tiles

SymbolicTile TileOf(const std::string& hlo, std::vector<int64_t> strides = {}) {
  auto module = ParseOrDie(hlo);
  static ExprContext* ctx = new ExprContext;  // outlives the tiles
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto tiles = ComputeParameterTiles(*region, 0, strides, ctx);
  REQUIRE(tiles.ok());
  REQUIRE(!tiles->empty());
  INFO((*tiles)[0].unsupported);
  REQUIRE((*tiles)[0].tile);
  return *(*tiles)[0].tile;
}

void CheckTile(const SymbolicTile& t, std::vector<std::string> offsets,
               std::vector<std::string> sizes, std::vector<std::string> strides,
               std::vector<std::string> constraints = {}) {
  INFO(PrintIndexingMap(t.tile_map));
  CHECK(PrintTileExprs(t, 0) == offsets);
  CHECK(PrintTileExprs(t, 1) == sizes);
  CHECK(PrintTileExprs(t, 2) == strides);
  CHECK(PrintTileConstraints(t) == constraints);
}

TEST_CASE("tile: transpose swaps the sizes", "[uses][tile]") {
  CheckTile(TileOf(R"(
    ENTRY e {
      p0 = f32[16,32] parameter(0)
      ROOT t = f32[32,16] transpose(p0), dimensions={1,0}
    })"),
            {"0", "0"}, {"d1", "d0"}, {"1", "1"});
}

TEST_CASE("tile: reshape splits with a divisibility constraint",
          "[uses][tile]") {
  SymbolicTile t = TileOf(R"(
    ENTRY e {
      p0 = f32[4,8] parameter(0)
      ROOT r = f32[32] reshape(p0)
    })");
  CHECK(PrintTileConstraints(t) ==
        std::vector<std::string>{"d0 mod 8 in [0, 0] || 8 mod d0 in [0, 0]"});
  std::vector<int64_t> s16 = {16};
  auto c = EvaluateTile(t, s16);
  REQUIRE(c.ok());
  CHECK(c->sizes == std::vector<int64_t>{2, 8});
  CHECK(c->satisfied);
  std::vector<int64_t> s4 = {4};
  c = EvaluateTile(t, s4);
  CHECK(c->sizes == std::vector<int64_t>{1, 4});
  CHECK(c->satisfied);
  std::vector<int64_t> s12 = {12};
  c = EvaluateTile(t, s12);
  CHECK_FALSE(c->satisfied);
}

TEST_CASE("tile: collapse combines strides", "[uses][tile]") {
  SymbolicTile t = TileOf(R"(
    ENTRY e {
      p0 = f32[32] parameter(0)
      ROOT r = f32[4,8] reshape(p0)
    })");
  CHECK(PrintTileExprs(t, 1) == std::vector<std::string>{"d0 * d1"});
  // A partial minor dim leaves the major one at size 1, unless the minor
  // one is size 1 itself (then the tile walks the major one, stride 8).
  CHECK(
      PrintTileConstraints(t) ==
      std::vector<std::string>{"d1 in [1, 1] || d0 in [1, 1] || d1 in [8, 8]"});
  CHECK(t.xla_constraints.size() == 1);
  // Stride: 1 unless the minor size is 1, then 8; 0 for a 1x1 tile.
  for (auto [a, b, stride] :
       {std::tuple{2, 8, 1}, {2, 1, 8}, {1, 1, 0}, {1, 3, 1}}) {
    std::vector<int64_t> sizes = {a, b};
    auto c = EvaluateTile(t, sizes);
    REQUIRE(c.ok());
    CHECK(c->strides[0] == stride);
  }
}

TEST_CASE("tile: broadcast, slice, reduce, reverse", "[uses][tile]") {
  CheckTile(TileOf(R"(
    ENTRY e {
      p0 = f32[20] parameter(0)
      ROOT b = f32[10,20,30] broadcast(p0), dimensions={1}
    })"),
            {"0"}, {"d1"}, {"1"});
  CheckTile(TileOf(R"(
    ENTRY e {
      p0 = f32[10,20] parameter(0)
      ROOT s = f32[5,10] slice(p0), slice={[0:10:2],[5:15]}
    })"),
            {"0", "5"}, {"d0", "d1"}, {"2", "1"});
  CheckTile(TileOf(R"(
    add {
      a = f32[] parameter(0)
      b = f32[] parameter(1)
      ROOT s = f32[] add(a, b)
    }
    ENTRY e {
      p0 = f32[100,200] parameter(0)
      c = f32[] constant(0)
      ROOT r = f32[100] reduce(p0, c), dimensions={1}, to_apply=add
    })"),
            {"0", "0"}, {"d0", "200"}, {"1", "1"});
  // A strided output tile of a reverse walks the input backwards.
  CheckTile(TileOf(R"(
    ENTRY e {
      p0 = f32[100] parameter(0)
      ROOT r = f32[100] reverse(p0), dimensions={0}
    })",
                   {2}),
            {"99"}, {"d0"}, {"-2"});
}

// Sizes for which XLA's constraints fail but the tile is exact, checked
// element by element at every block in tile_analysis_test.cc.
TEST_CASE("tile: size-1 dims between partial ones in a collapse",
          "[uses][tile]") {
  SymbolicTile t = TileOf(R"(
    ENTRY e {
      p0 = f32[128] parameter(0)
      ROOT r = f32[4,2,4,4] reshape(p0)
    })");
  std::vector<int64_t> sizes = {1, 2, 1, 1};
  auto c = EvaluateTile(t, sizes);
  REQUIRE(c.ok());
  CHECK(c->satisfied);
  CHECK_FALSE(c->xla_satisfied);
  CHECK(c->strides == std::vector<int64_t>{16});
}

TEST_CASE("tile: a reverse inside a collapse walks backwards", "[uses][tile]") {
  SymbolicTile t = TileOf(R"(
    ENTRY e {
      p0 = f32[12] parameter(0)
      v = f32[12] reverse(p0), dimensions={0}
      ROOT r = f32[3,4] reshape(v)
    })");
  CHECK_FALSE(t.xla_would_refuse.empty());
  std::vector<int64_t> sizes = {2, 4};
  auto c = EvaluateTile(t, sizes);
  REQUIRE(c.ok());
  CHECK(c->satisfied);
  CHECK(*c->offsets == std::vector<int64_t>{11});
  CHECK(c->sizes == std::vector<int64_t>{8});
  CHECK(c->strides == std::vector<int64_t>{-1});
}

TEST_CASE("tile: a size above its dim covers the dim", "[uses][tile]") {
  SymbolicTile t = TileOf(R"(
    ENTRY e {
      p0 = f32[48] parameter(0)
      ROOT r = f32[8,6] reshape(p0)
    })");
  std::vector<int64_t> sizes = {16, 64};
  CHECK(EvaluateTile(t, sizes).error().code == ErrorCode::kInvalidArgument);
  auto c = EvaluateTile(t, sizes, /*clamp_oversized=*/true);
  REQUIRE(c.ok());
  CHECK(c->satisfied);
  CHECK(c->sizes == std::vector<int64_t>{48});
}

TEST_CASE("tile: maps with constraints are not tiles", "[uses][tile]") {
  auto module = ParseOrDie(R"(
    ENTRY e {
      p0 = f32[4,4] parameter(0)
      c = f32[] constant(0)
      ROOT p = f32[13,8] pad(p0, c), padding=1_2_2x0_4
    })");
  ExprContext ctx;
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto tiles = ComputeParameterTiles(*region, 0, {}, &ctx);
  REQUIRE(tiles.ok());
  REQUIRE(tiles->size() >= 1);
  CHECK_FALSE((*tiles)[0].tile);
  CHECK((*tiles)[0].unsupported.find("constraints") != std::string::npos);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
