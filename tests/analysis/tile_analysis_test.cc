// Symbolic tiles of every instruction (analysis/uses/tile_analysis.h),
// checked by brute force: for every op kind with a map, at many tile sizes,
// every block's tile is compared element by element with what the
// instruction's map reads there (tile_test_util.h).
#include "analysis/uses/tile_analysis.h"

#include <functional>

#include "analysis/uses/tile_constraints.h"
#include "tests/analysis/tile_test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

constexpr const char* kAdd = R"(
  add {
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
)";

std::string Module(const std::string& body, const std::string& comps = "") {
  return "HloModule m\n" + comps + "ENTRY e {\n" + body + "\n}";
}

struct Case {
  std::string hlo;
  FusionTilingOptions options;
  // Instructions expected without a tile (the rest must have one).
  std::vector<std::string> untiled = {};
};

// Every output tile-size combination of CandidateSizes, every instruction,
// every tile: exact at every block. Returns the analysis.
FusionTiling CheckFusion(const Case& c) {
  static ExprContext* ctx = new ExprContext;  // outlives the tiles
  auto module = ParseOrDie(c.hlo);
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto tiling = AnalyzeFusionTiling(*region, c.options, ctx);
  INFO(c.hlo);
  INFO((tiling.ok() ? "" : tiling.error().ToString()));
  REQUIRE(tiling.ok());
  for (const TiledInstruction& ti : tiling->instructions) {
    INFO("instruction " << ti.name << " " << ti.unknown);
    const bool expect_untiled = std::find(c.untiled.begin(), c.untiled.end(),
                                          ti.name) != c.untiled.end();
    bool has_tiles = ti.unknown.empty() && !ti.tiles.empty();
    for (const InstructionTile& t : ti.tiles) {
      INFO(t.unsupported);
      has_tiles = has_tiles && t.tile.has_value();
    }
    CHECK(has_tiles != expect_untiled);
  }
  std::vector<std::vector<int64_t>> axes;
  for (const TileSpaceDim& d : tiling->space) {
    if (d.kind == TileSpaceKind::kOutput) {
      const int64_t sigma = c.options.output_strides.empty()
                                ? 1
                                : c.options.output_strides[d.dim];
      axes.push_back(CandidateSizes((d.extent + sigma - 1) / sigma));
    }
  }
  std::vector<int64_t> counts;
  for (const auto& a : axes) counts.push_back(a.size());
  ExactnessCount count;
  int tiles = 0;
  ForEachInBox(counts, [&](const std::vector<int64_t>& at) {
    std::vector<int64_t> out;
    for (size_t k = 0; k < at.size(); ++k) out.push_back(axes[k][at[k]]);
    const std::vector<int64_t> sizes = tiling->Sizes(out);
    for (const TiledInstruction& ti : tiling->instructions) {
      if (!ti.unknown.empty() || ti.instr->shape.IsTuple()) continue;
      INFO("instruction " << ti.name);
      for (const InstructionTile& t : ti.tiles) {
        if (!t.tile) continue;
        CheckTileExact(t.map, *t.tile, sizes, ti.instr->shape.dims, &count,
                       c.options.output_strides);
        ++tiles;
      }
    }
  });
  CHECK(tiles > 0);
  CHECK(count.blocks > 0);
  return std::move(tiling).value();
}

const InstructionTile& OnlyTile(const FusionTiling& tiling,
                                const std::string& name) {
  const TiledInstruction* ti = tiling.Find(name);
  INFO(name);
  REQUIRE(ti != nullptr);
  REQUIRE(ti->tiles.size() == 1);
  REQUIRE(ti->tiles[0].tile.has_value());
  return ti->tiles[0];
}

TEST_CASE("tiles of every instruction: elementwise, broadcast, transpose",
          "[tile][tile_analysis]") {
  CheckFusion({Module(R"(
    p0 = f32[6,4] parameter(0)
    p1 = f32[6,4] parameter(1)
    a = f32[6,4] add(p0, p1)
    m = f32[6,4] multiply(a, p0)
    c = pred[6,4] compare(m, p1), direction=LT
    s = f32[6,4] select(c, m, a)
    ROOT r = s32[6,4] convert(s))")});
  CheckFusion({Module(R"(
    p0 = f32[4] parameter(0)
    ROOT b = f32[3,4,2] broadcast(p0), dimensions={1})")});
  CheckFusion({Module(R"(
    p0 = f32[2,3,4] parameter(0)
    ROOT t = f32[4,2,3] transpose(p0), dimensions={2,0,1})")});
  CheckFusion({Module(R"(
    p0 = f32[6,4] parameter(0)
    ROOT r = f32[6,4] reverse(p0), dimensions={0,1})")});
  CheckFusion({Module(R"(
    p0 = f32[3,4] parameter(0)
    i = f32[3,4] iota(), iota_dimension=1
    c = f32[] constant(2)
    b = f32[3,4] broadcast(c), dimensions={}
    a = f32[3,4] add(p0, i)
    ROOT m = f32[3,4] multiply(a, b))")});
}

TEST_CASE("tiles of every instruction: reshapes and bitcasts",
          "[tile][tile_analysis]") {
  CheckFusion({Module(R"(
    p0 = f32[2,3,4] parameter(0)
    ROOT r = f32[24] reshape(p0))")});
  CheckFusion({Module(R"(
    p0 = f32[24] parameter(0)
    ROOT r = f32[2,3,4] reshape(p0))")});
  // Neither a split nor a collapse: a floordiv of a sum (XLA refuses too).
  CheckFusion({Module(R"(
    p0 = f32[2,12] parameter(0)
    ROOT r = f32[4,6] reshape(p0))"),
               {},
               {"p0"}});
  CheckFusion({Module(R"(
    p0 = f32[4,6]{0,1} parameter(0)
    ROOT b = f32[6,4]{1,0} bitcast(p0))")});
  CheckFusion({Module(R"(
    p0 = f32[3,2] parameter(0)
    ROOT b = u8[3,2,4] bitcast-convert(p0))")});
  CheckFusion({Module(R"(
    p0 = s16[5,2] parameter(0)
    ROOT b = s32[5] bitcast-convert(p0))")});
  // A floordiv alone (the mod went to a broadcast): a block of 4 rows of
  // the [48] output reads 1 or 2 rows of p0, so 4 is refused.
  FusionTiling t = CheckFusion({Module(R"(
    p0 = f32[8] parameter(0)
    b = f32[8,6] broadcast(p0), dimensions={0}
    ROOT r = f32[48] reshape(b))")});
  const SymbolicTile& p0 = *OnlyTile(t, "p0").tile;
  for (auto [size, ok] : {std::pair{4, false}, {3, true}, {12, true}}) {
    std::vector<int64_t> sizes = {size};
    auto c = EvaluateTile(p0, sizes);
    REQUIRE(c.ok());
    CHECK(c->satisfied == ok);
  }
}

TEST_CASE("tiles of every instruction: slice, pad, concatenate",
          "[tile][tile_analysis]") {
  CheckFusion({Module(R"(
    p0 = f32[10,8] parameter(0)
    ROOT s = f32[4,3] slice(p0), slice={[1:9:2], [0:8:3]})")});
  // Interior padding: a constraint picks the elements read, so the tile is
  // a superset. After a low padding of 1 the floordiv's blocks are not
  // aligned: no tile.
  CheckFusion({Module(R"(
    p0 = f32[4,3] parameter(0)
    c = f32[] constant(0)
    ROOT p = f32[10,5] pad(p0, c), padding=1_2_1x0_2_0)"),
               {},
               {"p0"}});
  FusionTiling pad = CheckFusion({Module(R"(
    p0 = f32[4,3] parameter(0)
    c = f32[] constant(0)
    ROOT p = f32[9,5] pad(p0, c), padding=0_2_1x0_2_0)")});
  CHECK(OnlyTile(pad, "p0").tile->superset);
  CHECK(OnlyTile(pad, "p0").tile->xla_would_refuse != "");
  // A pad outside a GEMM fusion: no tiling, as in XLA (the tiles stay
  // listed, marked superset).
  CHECK(pad.no_tiling.find("pad outside a GEMM") != std::string::npos);
  FusionTiling concat = CheckFusion({Module(R"(
    p0 = f32[2,3] parameter(0)
    p1 = f32[2,5] parameter(1)
    ROOT c = f32[2,8] concatenate(p0, p1), dimensions={1})")});
  CHECK(OnlyTile(concat, "p1").tile->superset);
  CHECK(OnlyTile(concat, "p1").tile->xla_would_refuse == "");
  CHECK_FALSE(OnlyTile(concat, "c").tile->superset);
}

TEST_CASE("tiles of every instruction: reductions and windows",
          "[tile][tile_analysis]") {
  const std::string reduce = Module(R"(
    p0 = f32[6,8] parameter(0)
    c = f32[] constant(0)
    ROOT r = f32[6] reduce(p0, c), dimensions={1}, to_apply=add)",
                                    kAdd);
  FusionTiling whole = CheckFusion({reduce});
  CHECK(whole.space.size() == 1);
  CHECK(PrintTileExprs(*OnlyTile(whole, "p0").tile, 1) ==
        std::vector<std::string>{"d0", "8"});
  for (int64_t r : {1, 3, 4, 8, 9}) {
    Case tiled{reduce};
    tiled.options.reduction_sizes[""] = {r};
    FusionTiling t = CheckFusion(tiled);
    REQUIRE(t.space.size() == 2);
    CHECK(t.space[1].kind == TileSpaceKind::kReduction);
    CHECK(t.space[1].instruction == "r");
    CHECK(PrintTileExprs(*OnlyTile(t, "p0").tile, 1) ==
          std::vector<std::string>{"d0", "d1"});
  }
  CheckFusion({Module(R"(
    p0 = f32[7,5] parameter(0)
    p1 = f32[] parameter(1)
    ROOT r = f32[4,3] reduce-window(p0, p1), window={size=2x3 stride=2x1 pad=1_1x0_0}, to_apply=add)",
                      kAdd)});
  // A variadic reduce's tuple, read through get-tuple-element.
  CheckFusion({Module(R"(
    p0 = f32[3,4] parameter(0)
    p1 = f32[3,4] parameter(1)
    i0 = f32[] constant(0)
    i1 = f32[] constant(1)
    r = (f32[3], f32[3]) reduce(p0, p1, i0, i1), dimensions={1}, to_apply=add2
    g = f32[3] get-tuple-element(r), index=1
    ROOT n = f32[3] negate(g))",
                      R"(
  add2 {
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    c = f32[] parameter(2)
    d = f32[] parameter(3)
    x = f32[] add(a, c)
    y = f32[] add(b, d)
    ROOT t = (f32[], f32[]) tuple(x, y)
  }
)")});
  CheckFusion({Module(R"(
    p0 = f32[3,4] parameter(0)
    ROOT s = f32[3,4] sort(p0), dimensions={1}, to_apply=lt)",
                      R"(
  lt {
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT r = pred[] compare(a, b), direction=LT
  }
)")});
}

TEST_CASE("tiles of every instruction: dots and convolutions",
          "[tile][tile_analysis]") {
  const std::string dot = Module(R"(
    p0 = f32[2,3,4] parameter(0)
    p1 = f32[2,4,5] parameter(1)
    ROOT d = f32[2,3,5] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1})");
  CheckFusion({dot});
  for (int64_t k : {1, 2, 3, 4}) {
    Case tiled{dot};
    tiled.options.contraction_sizes["d"] = {k};
    FusionTiling t = CheckFusion(tiled);
    REQUIRE(t.space.size() == 4);
    CHECK(t.space[3].kind == TileSpaceKind::kContraction);
    CHECK(PrintTileExprs(*OnlyTile(t, "p0").tile, 1) ==
          std::vector<std::string>{"d0", "d1", "d3"});
    CHECK(PrintTileExprs(*OnlyTile(t, "p1").tile, 1) ==
          std::vector<std::string>{"d0", "d3", "d2"});
  }
  const std::string scaled = Module(R"(
    p0 = s32[3,4] parameter(0)
    p1 = s32[4,2] parameter(1)
    p2 = s32[3,2] parameter(2)
    p3 = s32[2,2] parameter(3)
    ROOT d = s32[3,2] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1},
      rhs_contracting_dims={0})");
  CheckFusion({scaled});
  // contraction_sizes tile a scaled-dot's K like a dot's: the operands
  // and their scales read one tile of K (the scales its blocks of 2).
  for (int64_t k : {1, 2, 4}) {
    Case tiled{scaled};
    tiled.options.contraction_sizes["d"] = {k};
    FusionTiling t = CheckFusion(tiled);
    REQUIRE(t.space.size() == 3);
    CHECK(t.space[2].kind == TileSpaceKind::kContraction);
    CHECK(PrintTileExprs(*OnlyTile(t, "p0").tile, 1) ==
          std::vector<std::string>{"d0", "d2"});
    CHECK(PrintTileExprs(*OnlyTile(t, "p1").tile, 1) ==
          std::vector<std::string>{"d2", "d1"});
  }
  CheckFusion({Module(R"(
    p0 = s32[2,5,5,2] parameter(0)
    p1 = s32[2,3,2,3] parameter(1)
    ROOT r = s32[2,3,3,3] convolution(p0, p1), window={size=2x3 stride=2x1 pad=1_0x0_0},
      dim_labels=b01f_01io->bf01)")});
}

TEST_CASE("tiles of every instruction: runtime offsets",
          "[tile][tile_analysis]") {
  CheckFusion({Module(R"(
    p0 = f32[6,5] parameter(0)
    o0 = s32[] parameter(1)
    o1 = s32[] parameter(2)
    ROOT d = f32[2,3] dynamic-slice(p0, o0, o1), dynamic_slice_sizes={2,3})")});
  CheckFusion({Module(R"(
    p0 = f32[6,5] parameter(0)
    u = f32[2,3] parameter(1)
    o0 = s32[] parameter(2)
    o1 = s32[] parameter(3)
    ROOT d = f32[6,5] dynamic-update-slice(p0, u, o0, o1))")});
  CheckFusion({Module(R"(
    operand = f32[9,8,6] parameter(0)
    indices = s32[5,2] parameter(1)
    ROOT r = f32[5,3,4,2] gather(operand, indices), offset_dims={1,2,3},
      collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1,
      slice_sizes={3,4,2})")});
}

TEST_CASE("tiles of every instruction: a softmax", "[tile][tile_analysis]") {
  const std::string softmax = Module(R"(
    p = f32[4,12] parameter(0)
    ninf = f32[] constant(-inf)
    m = f32[4] reduce(p, ninf), dimensions={1}, to_apply=max
    mb = f32[4,12] broadcast(m), dimensions={0}
    x = f32[4,12] subtract(p, mb)
    e = f32[4,12] exponential(x)
    z = f32[] constant(0)
    s = f32[4] reduce(e, z), dimensions={1}, to_apply=add
    sb = f32[4,12] broadcast(s), dimensions={0}
    ROOT d = f32[4,12] divide(e, sb))",
                                     std::string(kAdd) + kMax);
  FusionTiling t = CheckFusion({softmax});
  CHECK(t.no_tiling == "");
  CHECK(t.constraints.empty());
  // p: the row tile and the whole row (the reductions read it all).
  REQUIRE(t.Find("p")->tiles.size() == 2);
  CHECK(PrintTileExprs(*t.Find("p")->tiles[1].tile, 1) ==
        std::vector<std::string>{"d0", "12"});
  // With the reduced dims tiled: one tile dim per reduce.
  Case tiled{softmax};
  tiled.options.reduction_sizes[""] = {4};
  FusionTiling r = CheckFusion(tiled);
  REQUIRE(r.space.size() == 4);
  CHECK(r.space[2].instruction == "s");
  CHECK(r.space[3].instruction == "m");
}

TEST_CASE("tiles of every instruction: a transpose-reshape chain and strides",
          "[tile][tile_analysis]") {
  const std::string chain = Module(R"(
    p = f32[4,6] parameter(0)
    t = f32[6,4] transpose(p), dimensions={1,0}
    r = f32[24] reshape(t)
    ROOT s = f32[2,3,4] reshape(r))");
  FusionTiling t = CheckFusion({chain});
  CHECK(t.no_tiling == "");
  // Every other element of d1: (d0 * 3 + d1 * 2) is no collapse.
  Case strided{chain, {}, {"p", "t", "r"}};
  strided.options.output_strides = {1, 2, 1};
  CheckFusion(strided);
  strided = Case{chain};
  strided.options.output_strides = {2, 1, 2};
  CheckFusion(strided);
}

TEST_CASE("tiles of every instruction: a nested fusion",
          "[tile][tile_analysis]") {
  FusionTiling t = CheckFusion({R"(
    HloModule m
    inner {
      a = f32[4,6] parameter(0)
      b = f32[4,6] parameter(1)
      t = f32[6,4] transpose(a), dimensions={1,0}
      u = f32[6,4] transpose(b), dimensions={1,0}
      ROOT m = f32[6,4] multiply(t, u)
    }
    outer {
      p0 = f32[4,6] parameter(0)
      p1 = f32[4,6] parameter(1)
      n = f32[4,6] negate(p1)
      f = f32[6,4] fusion(p0, n), kind=kLoop, calls=inner
      ROOT r = f32[24] reshape(f)
    }
    ENTRY e {
      x = f32[4,6] parameter(0)
      y = f32[4,6] parameter(1)
      ROOT o = f32[24] fusion(x, y), kind=kLoop, calls=outer
    })"});
  for (const char* name : {"f/t", "f/u", "f/m", "f/a", "f/b", "f", "n"}) {
    INFO(name);
    CHECK(t.Find(name) != nullptr);
  }
  // The nested parameter and the outer operand it stands for share a tile.
  CHECK(OnlyTile(t, "f/b").tile->tile_map == OnlyTile(t, "n").tile->tile_map);
}

TEST_CASE("tile: size-1 dims inside a collapse leave the tile exact",
          "[tile][tile_analysis]") {
  // (1, 2, 1, 1) of a [4,2,4,4] view of [128] reads 2 elements 16 apart:
  // XLA's constraint (a partial minor dim forces size 1 on every major
  // one) refuses it.
  FusionTiling t = CheckFusion({Module(R"(
    p0 = f32[128] parameter(0)
    ROOT r = f32[4,2,4,4] reshape(p0))")});
  const SymbolicTile& p0 = *OnlyTile(t, "p0").tile;
  std::vector<int64_t> sizes = {1, 2, 1, 1};
  auto c = EvaluateTile(p0, sizes);
  REQUIRE(c.ok());
  CHECK(c->satisfied);
  CHECK_FALSE(c->xla_satisfied);
  CHECK(c->sizes == std::vector<int64_t>{2});
  CHECK(c->strides == std::vector<int64_t>{16});
  // Two partial dims apart never form one progression.
  sizes = {2, 1, 1, 2};
  c = EvaluateTile(p0, sizes);
  REQUIRE(c.ok());
  CHECK_FALSE(c->satisfied);
}

TEST_CASE("tile: a reverse inside a collapse", "[tile][tile_analysis]") {
  FusionTiling t = CheckFusion({Module(R"(
    p0 = f32[12] parameter(0)
    v = f32[12] reverse(p0), dimensions={0}
    ROOT r = f32[3,4] reshape(v))")});
  const SymbolicTile& p0 = *OnlyTile(t, "p0").tile;
  CHECK(p0.xla_would_refuse.find("negative stride") != std::string::npos);
  std::vector<int64_t> sizes = {2, 4};
  auto c = EvaluateTile(p0, sizes);
  REQUIRE(c.ok());
  CHECK(c->satisfied);
  CHECK(*c->offsets == std::vector<int64_t>{11});
  CHECK(c->strides == std::vector<int64_t>{-1});
  // Opposite signs: only one side may move.
  FusionTiling mixed = CheckFusion({Module(R"(
    p0 = f32[12] parameter(0)
    r = f32[3,4] reshape(p0)
    ROOT v = f32[3,4] reverse(r), dimensions={1})")});
  const SymbolicTile& q = *OnlyTile(mixed, "p0").tile;
  for (auto [a, b, ok] :
       {std::tuple{1, 4, true}, {3, 1, true}, {2, 2, false}, {3, 4, false}}) {
    std::vector<int64_t> s = {a, b};
    auto e = EvaluateTile(q, s);
    REQUIRE(e.ok());
    CHECK(e->satisfied == ok);
  }
}

TEST_CASE("tile: sizes above a dim tile it whole", "[tile][tile_analysis]") {
  FusionTiling t = CheckFusion({Module(R"(
    p0 = f32[48] parameter(0)
    ROOT r = f32[8,6] reshape(p0))")});
  const SymbolicTile& p0 = *OnlyTile(t, "p0").tile;
  std::vector<int64_t> sizes = {16, 8};
  CHECK_FALSE(EvaluateTile(p0, sizes).ok());
  auto c = EvaluateTile(p0, sizes, /*clamp_oversized=*/true);
  REQUIRE(c.ok());
  CHECK(c->satisfied);
  CHECK(c->sizes == std::vector<int64_t>{48});
  auto offsets = TileOffsetsMap(p0, sizes);
  REQUIRE(offsets.ok());
  CHECK(NoSpace(PrintIndexingMap(*offsets)) ==
        NoSpace("(b0, b1) -> (0), domain: b0 in [0, 0], b1 in [0, 0]"));
}

// As XLA gives it, a tile size above its dim is kept (the overhang is
// masked): a reshape f32[20] -> f32[4,5] tiled [1, 8] reads parameter
// tiles of 8 at offsets b * 5; the clipped extent is EvaluateTile's.
TEST_CASE("tile: a size above its dim is kept as requested",
          "[tile][tile_analysis]") {
  FusionTiling t = CheckFusion({Module(R"(
    p0 = f32[20] parameter(0)
    ROOT r = f32[4,5] reshape(p0))")});
  const SymbolicTile& p0 = *OnlyTile(t, "p0").tile;
  std::vector<int64_t> sizes = {1, 8};
  auto requested = EvaluateTileAsRequested(p0, sizes);
  REQUIRE(requested.ok());
  CHECK(requested->sizes == std::vector<int64_t>{8});
  CHECK(requested->strides == std::vector<int64_t>{1});
  auto clipped = EvaluateTile(p0, sizes, /*clamp_oversized=*/true);
  REQUIRE(clipped.ok());
  CHECK(clipped->sizes == std::vector<int64_t>{5});
  auto offsets = TileOffsetsMap(p0, sizes);
  REQUIRE(offsets.ok());
  CHECK(NoSpace(PrintIndexingMap(*offsets)) ==
        NoSpace("(b0, b1) -> (b0 * 5), domain: b0 in [0, 3], b1 in [0, 0]"));
}

// Where XLA's tiling bails out, the tiling says so (xla_would_refuse)
// while this analysis still answers.
TEST_CASE("tile: XLA's refusals are flagged", "[tile][tile_analysis]") {
  auto refusal = [](const std::string& hlo) {
    static ExprContext* ctx = new ExprContext;
    auto module = ParseOrDie(hlo);
    auto region = ResolveFusion(*module, "");
    REQUIRE(region.ok());
    auto tiling = AnalyzeFusionTiling(*region, {}, ctx);
    REQUIRE(tiling.ok());
    // ixa answers too, except for a pad outside a GEMM fusion, whose
    // operand's tile would be a superset: it refuses like XLA.
    const bool pad = hlo.find(" pad(") != std::string::npos;
    CHECK(tiling->no_tiling.empty() != pad);
    if (pad) CHECK(tiling->no_tiling == tiling->xla_would_refuse);
    return tiling->xla_would_refuse;
  };
  // A reverse: a negative stride.
  CHECK(refusal(Module(R"(
    p0 = f32[16] parameter(0)
    ROOT r = f32[16] reverse(p0), dimensions={0})"))
            .find("negative stride") != std::string::npos);
  // A pad outside a GEMM fusion.
  CHECK(refusal(Module(R"(
    p0 = f32[6] parameter(0)
    z = f32[] constant(0)
    ROOT r = f32[8] pad(p0, z), padding=1_1)"))
            .find("pad outside a GEMM") != std::string::npos);
  // A multi-output fusion whose outputs differ in shape.
  CHECK(refusal(R"(
    HloModule m
    f {
      p0 = f32[4,6] parameter(0)
      e = f32[4,6] exponential(p0)
      t = f32[6,4] transpose(p0), dimensions={1,0}
      ROOT r = (f32[4,6], f32[6,4]) tuple(e, t)
    }
    ENTRY e {
      a = f32[4,6] parameter(0)
      ROOT r = (f32[4,6], f32[6,4]) fusion(a), kind=kLoop, calls=f
    })")
            .find("multi-output") != std::string::npos);
  // A root that is a fusion.
  CHECK(refusal(R"(
    HloModule m
    g {
      q = f32[8] parameter(0)
      ROOT n = f32[8] negate(q)
    }
    f {
      p0 = f32[8] parameter(0)
      ROOT r = f32[8] fusion(p0), kind=kLoop, calls=g
    }
    ENTRY e {
      a = f32[8] parameter(0)
      ROOT r = f32[8] fusion(a), kind=kLoop, calls=f
    })")
            .find("is a fusion") != std::string::npos);
  // Plain elementwise work: no refusal.
  CHECK(refusal(Module(R"(
    p0 = f32[8] parameter(0)
    ROOT r = f32[8] exponential(p0))"))
            .empty());
  // A concatenate: XLA's constraint that the tile divides every operand
  // along the concatenated dim (2 and 6: tile sizes 1 and 2).
  static ExprContext* ctx = new ExprContext;
  auto module = ParseOrDie(Module(R"(
    a = f32[4,2] parameter(0)
    b = f32[4,6] parameter(1)
    ROOT c = f32[4,8] concatenate(a, b), dimensions={1})"));
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto tiling = AnalyzeFusionTiling(*region, {}, ctx);
  REQUIRE(tiling.ok());
  for (int64_t size : {1, 2, 3, 4, 8}) {
    const std::vector<int64_t> sizes = {4, size};
    CHECK(ClausesHold(tiling->xla_constraints, sizes) == (size <= 2));
    // ixa refuses the same sizes: a block across both operands would give
    // each a superset tile.
    CHECK(ClausesHold(tiling->constraints, sizes) == (size <= 2));
  }
}

// Where the concatenate's clause holds, every block lies in one operand:
// that operand's tile is exact there and the other's names only elements
// outside it. Brute force over every block at every size, each operand's
// tile checked as exact under the fusion's constraints.
TEST_CASE("tile: a concatenate's operand tiles are exact where ixa tiles",
          "[tile][tile_analysis]") {
  static ExprContext* ctx = new ExprContext;
  for (const char* body : {R"(
    a = f32[4,2] parameter(0)
    b = f32[4,6] parameter(1)
    ROOT c = f32[4,8] concatenate(a, b), dimensions={1})",
                           R"(
    a = f32[6,3] parameter(0)
    b = f32[3,3] parameter(1)
    e = f32[9,3] parameter(2)
    ROOT c = f32[18,3] concatenate(a, b, e), dimensions={0})"}) {
    auto module = ParseOrDie(Module(body));
    auto region = ResolveFusion(*module, "");
    REQUIRE(region.ok());
    auto tiling = AnalyzeFusionTiling(*region, {}, ctx);
    REQUIRE(tiling.ok());
    CHECK(tiling->no_tiling.empty());
    ExactnessCount count;
    for (const TiledInstruction& ti : tiling->instructions) {
      if (ti.parameter < 0) continue;
      SymbolicTile exact = *OnlyTile(*tiling, ti.name).tile;
      CHECK(exact.superset);
      exact.superset = false;
      for (const TileClause& c : tiling->constraints) {
        exact.constraints.push_back(c);
      }
      const std::vector<int64_t> extents = tiling->extents();
      std::vector<int64_t> counts;
      for (int64_t e : extents) counts.push_back(e + 1);
      ForEachInBox(counts, [&](const std::vector<int64_t>& at) {
        std::vector<int64_t> sizes;
        for (int64_t v : at) sizes.push_back(v + 1);
        CheckTileExact(OnlyTile(*tiling, ti.name).map, exact, sizes,
                       ti.instr->shape.dims, &count);
      });
    }
    CHECK(count.blocks > 0);
    CHECK(count.unsatisfied > 0);
  }
}

TEST_CASE("tile constraints: the disjunctive form equals the clauses",
          "[tile][tile_constraints]") {
  // The constraints of a collapse of four dims, compared at every size.
  ExprContext ctx;
  auto map = ParseIndexingMap(
      "(d0, d1, d2, d3) -> (d0 * 24 + d1 * 12 + d2 * 3 + d3, d2 floordiv 2), "
      "domain: d0 in [0, 2], d1 in [0, 1], d2 in [0, 3], d3 in [0, 2]",
      &ctx);
  REQUIRE(map.ok());
  auto tile = SymbolicTileFromIndexingMap(*map);
  REQUIRE(tile.ok());
  REQUIRE(tile->constraints.size() > 1);
  auto dnf = ToDisjunctiveForm(tile->constraints);
  REQUIRE(dnf.ok());
  int holding = 0;
  ForEachInBox({3, 2, 4, 3}, [&](const std::vector<int64_t>& at) {
    std::vector<int64_t> sizes;
    for (int64_t x : at) sizes.push_back(x + 1);
    const bool cnf = ClausesHold(tile->constraints, sizes);
    INFO(::Catch::Detail::stringify(sizes));
    CHECK(cnf == (FirstHoldingConjunction(*dnf, sizes) >= 0));
    holding += cnf;
  });
  CHECK(holding > 0);
  // No conjunction implies another.
  for (size_t i = 0; i < dnf->size(); ++i) {
    for (size_t j = 0; j < dnf->size(); ++j) {
      if (i == j) continue;
      bool implied = true;
      for (const TileAtom& a : (*dnf)[j]) {
        bool found = false;
        for (const TileAtom& b : (*dnf)[i]) {
          found |= b.expr == a.expr && a.interval.Contains(b.interval);
        }
        implied &= found;
      }
      CHECK_FALSE(implied);
    }
  }
}

TEST_CASE("tile constraints: satisfiability", "[tile][tile_constraints]") {
  ExprContext ctx;
  Expr d0 = ctx.Dim(0), d1 = ctx.Dim(1);
  std::vector<int64_t> extents = {100, 100};
  // d0 in [2, 2] and d0 in [3, 3]: never.
  std::vector<TileClause> never = {{{d0, Interval::Point(2)}},
                                   {{d0, Interval::Point(3)}}};
  TileSatisfiability s = DecideTileSatisfiability(never, extents, &ctx);
  REQUIRE(s.satisfiable.has_value());
  CHECK_FALSE(*s.satisfiable);
  // d0 + d1 in [77, 77] and d0 mod 7 in [0, 0] with d0 > 1: 7, 70.
  std::vector<TileClause> some = {{{d0 + d1, Interval::Point(77)}},
                                  {{d0 % 7, Interval::Point(0)}},
                                  {{d0, Interval{2, 100}}}};
  s = DecideTileSatisfiability(some, extents, &ctx);
  REQUIRE(s.satisfiable.has_value());
  CHECK(*s.satisfiable);
  CHECK(ClausesHold(some, s.witness));
}

TEST_CASE("tile: input to output", "[tile][tile_analysis]") {
  // Forward maps through a reduce and a transpose: the output tile a
  // parameter tile writes, exact at every block.
  ExprContext ctx;
  auto module = ParseOrDie(Module(R"(
    p0 = f32[6,8] parameter(0)
    t = f32[8,6] transpose(p0), dimensions={1,0}
    c = f32[] constant(0)
    ROOT r = f32[8] reduce(t, c), dimensions={1}, to_apply=add)",
                                  kAdd));
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto outputs = ComputeFusionInputToOutputIndexingPartial(*region, 0, &ctx);
  REQUIRE(outputs.ok());
  REQUIRE(outputs->size() == 1);
  ExactnessCount count;
  for (const IndexingMap& m : (*outputs)[0].maps) {
    TileExtraction options;
    std::vector<int64_t> extents = {6, 8};
    options.extents = extents;
    auto tile = SymbolicTileFromIndexingMap(m, options);
    REQUIRE(tile.ok());
    for (int64_t a : CandidateSizes(6)) {
      for (int64_t b : CandidateSizes(8)) {
        CheckTileExact(m, *tile, {a, b}, {8}, &count);
      }
    }
  }
  CHECK(count.blocks > 0);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing

namespace ixa::testing {
namespace IXA_UNITY_ID {

TEST_CASE("valid tilings: exactly the candidates whose tiles all hold",
          "[tile][tile_analysis]") {
  ExprContext ctx;
  auto module = ParseOrDie(Module(R"(
    p0 = f32[48,2] parameter(0)
    r = f32[8,6,2] reshape(p0)
    ROOT e = f32[8,6,2] exponential(r))"));
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto tiling = AnalyzeFusionTiling(*region, {}, &ctx);
  REQUIRE(tiling.ok());
  const auto axes = PowerOfTwoCandidates(*tiling, {});
  CHECK(axes ==
        std::vector<std::vector<int64_t>>{{1, 2, 4, 8}, {1, 2, 4, 8}, {1, 2}});
  auto valid = EnumerateValidTilings(*tiling, axes, {}, 1000);
  REQUIRE(valid.ok());
  CHECK(valid->tried == 32);
  REQUIRE(valid->count == static_cast<int64_t>(valid->tilings.size()));
  std::set<std::vector<int64_t>> listed;
  for (const ValidTiling& t : valid->tilings) listed.insert(t.sizes);
  // A tiling is listed iff p0's rows d0 * 6 + d1 form one progression:
  // the second dim fully tiled (size 8 covers the 6), or one of the two
  // of size 1.
  ForEachInBox({4, 4, 2}, [&](const std::vector<int64_t>& at) {
    std::vector<int64_t> sizes = {axes[0][at[0]], axes[1][at[1]],
                                  axes[2][at[2]]};
    const bool expect = sizes[0] == 1 || sizes[1] == 1 || sizes[1] == 8;
    INFO(::Catch::Detail::stringify(sizes));
    CHECK(listed.count(sizes) == (expect ? 1u : 0u));
  });
  auto few = EnumerateValidTilings(*tiling, axes, {}, 2);
  REQUIRE(few.ok());
  CHECK(few->tilings.size() == 2);
  CHECK(few->count == valid->count);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
