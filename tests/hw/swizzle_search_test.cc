// Swizzle synthesis: the known answers (XLA's 32x33 transpose tile beaten
// by an XOR swizzle with no extra memory, Swizzle<3,3,3>-like answers for
// 128-byte f16 rows read in 16-byte vectors), every layout's map checked
// against its numeric offsets, and every answer's wavefronts re-counted by
// brute force through its map.
#include "hw/swizzle_search.h"

#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "core/enumerate.h"
#include "core/text.h"
#include "hw/svg.h"

namespace ixa::hw {
namespace IXA_UNITY_ID {

IndexingMap SwzMap(ExprContext& ctx, const std::string& text) {
  auto m = ParseIndexingMap(text, &ctx);
  INFO(text);
  REQUIRE(m.ok());
  return *m;
}

SwizzleAnswer Synthesize(ExprContext& ctx, std::vector<int64_t> shape,
                         int64_t element_bytes, const std::string& write,
                         int64_t write_vector, const std::string& read,
                         int64_t read_vector) {
  SwizzleRequest req;
  req.shape = std::move(shape);
  req.element_bytes = element_bytes;
  req.write = {SwzMap(ctx, write), 0, write_vector};
  req.read = {SwzMap(ctx, read), 0, read_vector};
  auto a = SynthesizeTileLayout(req, &ctx);
  INFO((a.ok() ? "" : a.error().message));
  REQUIRE(a.ok());
  return *a;
}

// The answer's map is a bijection of the tile into its memory, equal to
// the layout's numeric offsets, and agrees with the linear bases.
void CheckLayoutMap(const SwizzleAnswer& a, const std::vector<int64_t>& shape) {
  std::set<int64_t> seen;
  int64_t most = -1;
  auto r = ForEachDomainPoint(a.map, 1 << 22, [&](const Point& p) {
    auto v = a.map.Evaluate(p.dims, p.symbols);
    REQUIRE(v.ok());
    CHECK(seen.insert((*v)[0]).second);
    most = std::max(most, (*v)[0]);
    if (a.bases) {
      int64_t x = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        for (size_t j = 0; j < (*a.bases)[d].size(); ++j) {
          if ((p.dims[d] >> j) & 1) x ^= (*a.bases)[d][j];
        }
      }
      CHECK(x == (*v)[0]);
    }
    return true;
  });
  REQUIRE(r.ok());
  CHECK(most + 1 <= a.after.elements);
}

TEST_CASE("swizzle: the 32x32 f32 transpose tile", "[hw][swizzle]") {
  ExprContext ctx;
  // 256 threads write rows (lane = column) and read columns (lane = row)
  // in 4 steps.
  const std::string dom = ", domain: d0 in [0, 255], d1 in [0, 3]";
  SwizzleAnswer a =
      Synthesize(ctx, {32, 32}, 4,
                 "(d0, d1) -> (d0 floordiv 32 + d1 * 8, d0 mod 32)" + dom, 1,
                 "(d0, d1) -> (d0 mod 32, d0 floordiv 32 + d1 * 8)" + dom, 1);
  CHECK(a.before.write_wavefronts == 32);
  CHECK(a.before.read_wavefronts == 32 * 32);
  CHECK(a.read_before.worst == 32);
  REQUIRE(a.read_before.counterexample);
  CHECK(a.after.layout.kind == TileLayoutKind::kXor);
  CHECK(a.after.write_wavefronts == 32);
  CHECK(a.after.read_wavefronts == 32);
  CHECK(a.after.elements == 32 * 32);  // no 33rd column
  CHECK(a.write_after.conflict_free);
  CHECK(a.read_after.conflict_free);
  CHECK(a.after.layout.swizzle.b == 5);
  REQUIRE(a.bases);
  CheckLayoutMap(a, {32, 32});
}

TEST_CASE("swizzle: padding when no XOR fits", "[hw][swizzle]") {
  ExprContext ctx;
  // A 24-row tile of 24 columns read along columns: no power-of-two
  // structure; padding (or rotation) removes the conflicts.
  const std::string dom = ", domain: d0 in [0, 23], d1 in [0, 23]";
  SwizzleAnswer a = Synthesize(ctx, {24, 24}, 4, "(d0, d1) -> (d1, d0)" + dom,
                               1, "(d0, d1) -> (d0, d1)" + dom, 1);
  CHECK(a.before.read_wavefronts > 24);
  CHECK(a.write_after.conflict_free);
  CHECK(a.read_after.conflict_free);
  CHECK(a.after.write_wavefronts + a.after.read_wavefronts == 48);
  CheckLayoutMap(a, {24, 24});
}

TEST_CASE("swizzle: f16 rows of 128 bytes in 16-byte vectors",
          "[hw][swizzle]") {
  ExprContext ctx;
  // A 64x64 f16 tile (128-byte rows). The write: each thread stores 8
  // elements (16 bytes), 8 threads per row. The read: each thread loads 8
  // elements of column chunk j for row (t mod 8) + 8 * (t / 8 mod ...):
  // eight consecutive lanes take eight rows of the same chunk (as
  // ldmatrix-style reads do), which row-major serves 8-way.
  SwizzleAnswer a = Synthesize(
      ctx, {64, 64}, 2,
      "(d0, d1) -> (d0 floordiv 8 + d1 * 16, (d0 mod 8) * 8), domain: d0 in "
      "[0, 127], d1 in [0, 3]",
      8,
      "(d0, d1) -> (d0 mod 8 + ((d0 floordiv 8) mod 8) * 8, (d0 floordiv 64) "
      "* 8 + d1 * 16), domain: d0 in [0, 127], d1 in [0, 3]",
      8);
  CHECK(a.before.read_wavefronts > a.after.read_wavefronts);
  CHECK(a.write_after.conflict_free);
  CHECK(a.read_after.conflict_free);
  CHECK(a.after.elements == 64 * 64);
  REQUIRE(a.after.layout.kind == TileLayoutKind::kXor);
  // Keeps 8-element (16-byte) chunks whole and XORs the row's low 3 bits
  // into the chunk index: Swizzle<3,3,3>.
  CHECK(a.after.layout.swizzle.m == 3);
  CHECK(a.after.layout.swizzle.b == 3);
  CHECK(a.after.layout.swizzle.s == 3);
  CheckLayoutMap(a, {64, 64});
}

TEST_CASE("swizzle: 8-byte vectors and already conflict-free tiles",
          "[hw][swizzle]") {
  ExprContext ctx;
  // f32 pairs along rows, written and read the same way: nothing to fix,
  // the answer stays row-major.
  const std::string m =
      "(d0, d1) -> (d0 floordiv 16 + d1 * 8, (d0 mod 16) * 2), domain: d0 in "
      "[0, 127], d1 in [0, 3]";
  SwizzleAnswer a = Synthesize(ctx, {32, 32}, 4, m, 2, m, 2);
  CHECK(a.after.layout.kind == TileLayoutKind::kRowMajor);
  CHECK(a.write_after.conflict_free);
  // Pairs read down a column: 16 lanes per phase over 16 rows.
  SwizzleAnswer b = Synthesize(
      ctx, {32, 32}, 4, m, 2,
      "(d0, d1) -> (d0 mod 16 + (d1 mod 2) * 16, (d0 floordiv 16) * 2 + (d1 "
      "floordiv 2) * 16), domain: d0 in [0, 127], d1 in [0, 3]",
      2);
  CHECK(b.read_before.worst > 2);
  CHECK(b.read_after.conflict_free);
  CHECK(b.write_after.conflict_free);
  CHECK(b.after.elements == 32 * 32);
  CheckLayoutMap(b, {32, 32});
}

TEST_CASE("swizzle: every layout's map equals its offsets", "[hw][swizzle]") {
  ExprContext ctx;
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{8, 12}, {4, 4, 16}, {16, 32}}) {
    for (TileLayout l :
         {TileLayout{}, TileLayout{TileLayoutKind::kPadded, 3, 0, {}},
          TileLayout{TileLayoutKind::kRotated, 0, 4, {}},
          TileLayout{TileLayoutKind::kXor, 0, 0, cute::Swizzle{2, 1, 3}}}) {
      IndexingMap map = TileLayoutMap(l, shape, &ctx);
      std::set<int64_t> seen;
      auto r = ForEachDomainPoint(map, 1 << 20, [&](const Point& p) {
        auto v = map.Evaluate(p.dims, {});
        REQUIRE(v.ok());
        CHECK(seen.insert((*v)[0]).second);
        CHECK((*v)[0] < TileLayoutElements(l, shape));
        return true;
      });
      REQUIRE(r.ok());
    }
  }
}

TEST_CASE("swizzle: random accesses", "[hw][swizzle]") {
  // Every answer's exact recount (AnalyzeBankConflicts on the composed
  // byte maps, periodic where it can be) must equal the search's count
  // (checked inside), and the answer is never worse than row-major.
  std::mt19937_64 rng(77);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t sizes[] = {8, 12, 16, 24, 32, 40, 64};
  for (int iter = 0; iter < 40; ++iter) {
    ExprContext ctx;
    const int64_t rows = sizes[pick(0, 6)], cols = sizes[pick(0, 6)];
    const int64_t eb = int64_t{1} << pick(0, 3);
    const int64_t v = std::min<int64_t>(int64_t{1} << pick(0, 2), 16 / eb);
    auto access = [&]() {
      const std::string t = "d0", i = "d1";
      const std::string row =
          "(" + t + " * " + std::to_string(pick(0, 9)) + " + (" + t +
          " floordiv " + std::to_string(pick(1, 32)) + ") * " +
          std::to_string(pick(0, 5)) + " + " + i + " * " +
          std::to_string(pick(0, 7)) + ") mod " + std::to_string(rows);
      const std::string col = "((" + t + " * " + std::to_string(pick(0, 5)) +
                              " + " + i + " * " + std::to_string(pick(0, 3)) +
                              ") mod " + std::to_string(cols / v) + ") * " +
                              std::to_string(v);
      return "(d0, d1) -> (" + row + ", " + col + "), domain: d0 in [0, " +
             std::to_string(32 * pick(1, 4) - 1) + "], d1 in [0, " +
             std::to_string(pick(0, 6)) + "]";
    };
    if (cols % v != 0) continue;
    SwizzleAnswer a =
        Synthesize(ctx, {rows, cols}, eb, access(), v, access(), v);
    CHECK(a.after.write_wavefronts + a.after.read_wavefronts <=
          a.before.write_wavefronts + a.before.read_wavefronts);
    CheckLayoutMap(a, {rows, cols});
  }
}

TEST_CASE("swizzle: the bank picture", "[hw][swizzle]") {
  // A 4x8 f32 tile, row-major and padded by one: cell (1, 0) is bank 8,
  // then bank 9; lanes 0 and 1 outlined at (0, 0) and (1, 0).
  BankTilePicture p;
  p.shape = {4, 8};
  BankTilePanel plain{"row_major", {}}, padded{"pad 1", {}};
  for (int64_t o = 0; o < 32; ++o) {
    plain.bytes.push_back(o * 4);
    padded.bytes.push_back((o / 8 * 9 + o % 8) * 4);
  }
  p.panels = {plain, padded};
  p.lanes = {{0, 0}, {8, 1}};
  p.caption = "a column read";
  const std::string svg = DrawBankTileSvg(p);
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = svg.find(needle); at != std::string::npos;
         at = svg.find(needle, at + 1))
      ++n;
    return n;
  };
  CHECK(count("<g class=\"cell\"") == 64);
  CHECK(count(">L1<") == 2);
  CHECK(svg.find("hsl(90,70%,78%)") != std::string::npos);   // bank 8
  CHECK(svg.find("hsl(101,70%,64%)") != std::string::npos);  // bank 9
  CHECK(svg.find("a column read") != std::string::npos);
}

TEST_CASE("swizzle: bad requests", "[hw][swizzle]") {
  ExprContext ctx;
  SwizzleRequest req;
  req.shape = {32, 32};
  req.element_bytes = 4;
  req.write = {SwzMap(ctx, "(d0) -> (d0, 0), domain: d0 in [0, 40]"), 0, 1};
  req.read = {SwzMap(ctx, "(d0) -> (0, d0), domain: d0 in [0, 31]"), 0, 1};
  auto a = SynthesizeTileLayout(req, &ctx);
  REQUIRE(!a.ok());
  CHECK(a.error().message.find("outside the tile") != std::string::npos);
  req.write = {SwzMap(ctx, "(d0) -> (d0), domain: d0 in [0, 31]"), 0, 1};
  CHECK(!SynthesizeTileLayout(req, &ctx).ok());
  req.write = {SwzMap(ctx, "(d0) -> (0, d0), domain: d0 in [0, 31]"), 0, 3};
  CHECK(!SynthesizeTileLayout(req, &ctx).ok());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
