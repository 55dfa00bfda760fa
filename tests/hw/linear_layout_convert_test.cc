// Linear layouts against ixa's other forms: CuTe's Swizzle<B,M,S> tables,
// CuTe layouts, indexing maps (both ways, checked at every point), the text
// form, and swizzled maps going through compose, evaluate, equivalence and
// the warp-access analysis like any other map.
#include "hw/linear_layout_convert.h"

#include <catch2/catch.hpp>
#include <random>

#include "core/enumerate.h"
#include "core/text.h"
#include "hw/device.h"
#include "simplifier/decide.h"
#include "tests/hw/linear_layout_testing.h"

namespace ixa::hw {
namespace IXA_UNITY_ID {

using namespace ixa::hw::testing;  // NOLINT: the literal helpers
using cute::Swizzle;

IndexingMap MapOf(const std::string& text, ExprContext* ctx) {
  auto m = ParseIndexingMap(text, ctx);
  INFO(text);
  REQUIRE(m.ok());
  return *m;
}

cute::Layout Cute(const std::string& text) {
  auto l = cute::ParseLayout(text);
  REQUIRE(l.ok());
  return *l;
}

// The swizzle as a table three ways: CuTe's formula, the linear layout,
// the ixa map.
std::vector<int64_t> SwizzleTable(Swizzle s, int bits) {
  std::vector<int64_t> formula, layout, map;
  LinearLayout l = Must(SwizzleLinearLayout(s, bits));
  ExprContext ctx;
  auto m = SwizzleMap(s, bits, &ctx);
  REQUIRE(m.ok());
  for (int64_t o = 0; o < (int64_t{1} << bits); ++o) {
    formula.push_back(cute::ApplySwizzle(s, o));
    layout.push_back((*l.ApplyOrdered({o}))[0]);
    map.push_back((*m->Evaluate(std::vector<int64_t>{o}, {}))[0]);
  }
  CHECK(layout == formula);
  CHECK(map == formula);
  return formula;
}

TEST_CASE("swizzle: CuTe's tables", "[hw][linear_layout][swizzle]") {
  CHECK(SwizzleTable({1, 0, 1}, 2) == std::vector<int64_t>{0, 1, 3, 2});
  CHECK(SwizzleTable({2, 0, 2}, 4) == std::vector<int64_t>{0, 1, 2, 3, 5, 4, 7,
                                                           6, 10, 11, 8, 9, 15,
                                                           14, 13, 12});
  CHECK(SwizzleTable({1, 1, 2}, 4) == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6,
                                                           7, 10, 11, 8, 9, 14,
                                                           15, 12, 13});
  CHECK(SwizzleTable({2, 1, -2}, 5) ==
        std::vector<int64_t>{0,  1,  10, 11, 20, 21, 30, 31, 8,  9, 2,
                             3,  28, 29, 22, 23, 16, 17, 26, 27, 4, 5,
                             14, 15, 24, 25, 18, 19, 12, 13, 6,  7});
  CHECK(SwizzleTable({3, 0, 3}, 6) ==
        std::vector<int64_t>{0,  1,  2,  3,  4,  5,  6,  7,  9,  8,  11, 10, 13,
                             12, 15, 14, 18, 19, 16, 17, 22, 23, 20, 21, 27, 26,
                             25, 24, 31, 30, 29, 28, 36, 37, 38, 39, 32, 33, 34,
                             35, 45, 44, 47, 46, 41, 40, 43, 42, 54, 55, 52, 53,
                             50, 51, 48, 49, 63, 62, 61, 60, 59, 58, 57, 56});
  // Hopper's 128-byte mode, Swizzle<3,4,3>, and the 64-byte one.
  std::vector<int64_t> t343 = SwizzleTable({3, 4, 3}, 10);
  CHECK(t343[16] == 16);
  CHECK(t343[128] == 144);
  CHECK(t343[144] == 128);
  CHECK(t343[256] == 288);
  CHECK(t343[1008] == 896);
  CHECK(t343[1023] == 911);
  std::vector<int64_t> t243 = SwizzleTable({2, 4, 3}, 9);
  CHECK(t243[128] == 144);
  CHECK(t243[384] == 432);
  CHECK(t243[511] == 463);
  // Swizzle<3,3,3> on fp16 rows of 64: row r's chunk 0 lands at r * 72.
  for (int64_t r = 0; r < 8; ++r)
    CHECK(cute::ApplySwizzle({3, 3, 3}, r * 64) == r * 72);
}

TEST_CASE("swizzle: as a linear layout", "[hw][linear_layout][swizzle]") {
  LinearLayout s = Must(SwizzleLinearLayout({2, 0, 2}));
  CHECK(s == Ll({{"offset", {{1}, {2}, {5}, {10}}}}, {"offset"}));
  CHECK(PrintLinearLayout(Must(SwizzleLinearLayout({3, 4, 3}))) ==
        "{offset: [[1], [2], [4], [8], [16], [32], [64], [144], [288], [576]]} "
        "-> {offset: 1024}");
  CHECK(PrintLinearLayout(Must(SwizzleLinearLayout({2, 1, -2}))) ==
        "{offset: [[1], [10], [20], [8], [16]]} -> {offset: 32}");
  // An involution: its own inverse, and composed with itself the identity.
  for (Swizzle sw : {Swizzle{1, 0, 1}, Swizzle{3, 4, 3}, Swizzle{2, 1, -2},
                     Swizzle{3, 3, 4}, Swizzle{5, 0, 5}}) {
    LinearLayout l = Must(SwizzleLinearLayout(sw, 12));
    CHECK(l.IsInvertible());
    CHECK(Must(l.Invert()) == l);
    CHECK(Must(l.Compose(l)) == Id1(4096, "offset", "offset"));
  }
  // A wider domain keeps the bits above the swizzle.
  CHECK(Must(SwizzleLinearLayout({1, 0, 1}, 3)) ==
        Ll({{"offset", {{1}, {3}, {4}}}}, {"offset"}));
  CHECK(!SwizzleLinearLayout({3, 3, 2}).ok());     // |S| < B
  CHECK(!SwizzleLinearLayout({3, 4, 3}, 5).ok());  // too few bits
  CHECK(!SwizzleLinearLayout({-1, 0, 1}).ok());
}

TEST_CASE("cute layouts as linear layouts", "[hw][linear_layout][cute]") {
  LinearLayout l = Must(LinearLayoutFromCute(Cute("(2,(2,2)):(4,(2,1))"), {}));
  CHECK(l == Ll({{"index", {{4}, {2}, {1}}}}, {"offset"}));
  CHECK(*l.Invert() ==
        *l.ReshapeIns({{"offset", 8}})->ReshapeOuts({{"index", 8}}));
  auto overlap = LinearLayoutFromCute(Cute("(2,2):(1,1)"), {});
  REQUIRE(!overlap.ok());
  CHECK(overlap.error().message.find("not linear over GF(2)") !=
        std::string::npos);
  CHECK(!LinearLayoutFromCute(Cute("(3,2):(1,3)"), {}).ok());
  CHECK(!LinearLayoutFromCute(Cute("(4,2):(3,1)"), {}).ok());
  // Stride 3 of size 2 is linear (one basis, 3).
  CHECK(Must(LinearLayoutFromCute(Cute("(2,4):(3,4)"), {})) ==
        LlSized({{"index", {{3}, {4}, {8}}}}, {{"offset", 16}}));
  LinearLayout by_mode =
      Must(LinearLayoutFromCute(Cute("(4,8):(8,1)"), {}, /*by_mode=*/true));
  CHECK(by_mode ==
        Ll({{"mode0", {{8}, {16}}}, {"mode1", {{1}, {2}, {4}}}}, {"offset"}));
  auto back = LinearLayoutToCute(by_mode);
  REQUIRE(back.ok());
  CHECK(cute::PrintLayout(*back) == "(4,8):(8,1)");
  CHECK(cute::PrintLayout(*LinearLayoutToCute(l)) == "(2,2,2):(4,2,1)");
  // Broadcast modes are zero bases.
  LinearLayout bcast = Must(LinearLayoutFromCute(Cute("(4,2):(1,0)"), {}));
  CHECK(bcast == LlSized({{"index", {{1}, {2}, {0}}}}, {{"offset", 4}}, true));
  CHECK(bcast.FreeVariableMasks() == LinearLayout::DimValues{{"index", 4}});
  // A swizzled layout is the swizzle composed after the layout ...
  cute::Layout rows = Cute("(8,64):(64,1)");
  Swizzle s333{3, 3, 3};
  LinearLayout swizzled = Must(LinearLayoutFromCute(rows, s333));
  std::vector<int64_t> values = cute::Values(rows, s333);
  for (int64_t i = 0; i < 512; ++i)
    REQUIRE((*swizzled.ApplyOrdered({i}))[0] == values[i]);
  // ... which CuTe cannot write as Shape:Stride.
  CHECK(!LinearLayoutToCute(swizzled).ok());
  CHECK(!LinearLayoutToCute(Id1(4, "a", "x") * Id1(4, "a", "y")).ok());
  // Offsets from 2^62 on are past every layout's limit: refused.
  auto huge = LinearLayoutFromCute(Cute("2:4611686018427387904"), {});
  REQUIRE(!huge.ok());
  CHECK(huge.error().code == ErrorCode::kLimitExceeded);
}

TEST_CASE("swizzled CuTe layouts compose and invert as linear layouts",
          "[hw][linear_layout][cute]") {
  const std::vector<std::string> layouts = {
      "(8,8):(8,1)",   "(8,8):(1,8)",          "(4,(2,4)):(8,(1,2))",
      "(16,4):(4,1)",  "((2,4),8):((1,16),2)", "(32,32):(32,1)",
      "(8,64):(64,1)", "(4,4,4):(16,1,4)"};
  const std::vector<Swizzle> swizzles = {{1, 0, 1}, {2, 0, 3}, {2, 1, -2},
                                         {3, 3, 3}, {3, 4, 3}, {2, 4, 3},
                                         {1, 4, 3}, {5, 0, 5}, {3, 0, -3}};
  int checked = 0;
  for (const std::string& text : layouts) {
    cute::Layout layout = Cute(text);
    for (const Swizzle& s : swizzles) {
      INFO(text << " with Swizzle<" << s.b << "," << s.m << "," << s.s << ">");
      LinearLayout l = Must(LinearLayoutFromCute(layout, s));
      std::vector<int64_t> values = cute::Values(layout, s);
      for (int64_t i = 0; i < cute::Size(layout); ++i)
        REQUIRE((*l.ApplyOrdered({i}))[0] == values[i]);
      // A swizzled compact layout is a bijection onto its offsets: the
      // inverse takes each offset back to its index.
      if (cute::Cosize(layout) == cute::Size(layout) &&
          l.TotalOutDimSize() == cute::Size(layout)) {
        LinearLayout inv = Must(l.Invert());
        for (int64_t i = 0; i < cute::Size(layout); ++i)
          REQUIRE((*inv.ApplyOrdered({values[i]}))[0] == i);
        ++checked;
      }
      // Composition after a tile access (every other index): the layouts'
      // composition is the functions'.
      LinearLayout every_other = Must(
          LinearLayout::Strided1D(cute::Size(layout) / 2, 2, "i", "index"));
      LinearLayout composed = Must(every_other.Compose(l));
      for (int64_t i = 0; i < cute::Size(layout) / 2; ++i)
        REQUIRE((*composed.ApplyOrdered({i}))[0] == values[2 * i]);
    }
  }
  CHECK(checked > 30);
}

TEST_CASE("maps as linear layouts", "[hw][linear_layout][map]") {
  ExprContext ctx;
  // Row-major 8x4 and a tiled layout: proved from their bit fields.
  LinearLayout rm = Must(LinearLayoutFromMap(MapOf(
      "(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 7], d1 in [0, 3]", &ctx)));
  CHECK(rm == Ll({{"d0", {{4}, {8}, {16}}}, {"d1", {{1}, {2}}}}, {"dim0"}));
  LinearLayout tiled = Must(LinearLayoutFromMap(
      MapOf("(i, j) -> ((i floordiv 2) * 16 + (j floordiv 4) * 8 + "
            "(i mod 2) * 4 + j mod 4, j floordiv 4), domain: i in [0, 3], j "
            "in [0, 7]",
            &ctx),
      {"offset", "tile"}));
  CHECK(tiled ==
        LlSized({{"i", {{4, 0}, {16, 0}}}, {"j", {{1, 0}, {2, 0}, {8, 1}}}},
                {{"offset", 32}, {"tile", 2}}));
  // Range variables are input dims too.
  LinearLayout sym = Must(LinearLayoutFromMap(MapOf(
      "(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 3], s0 in [0, 1]", &ctx)));
  CHECK(sym == Ll({{"d0", {{2}, {4}}}, {"s0", {{1}}}}, {"dim0"}));
  // Not linear: refused, saying why.
  auto carry = LinearLayoutFromMap(
      MapOf("(d0) -> (d0 * 3), domain: d0 in [0, 3]", &ctx));
  REQUIRE(!carry.ok());
  CHECK(carry.error().message.find("not linear over GF(2)") !=
        std::string::npos);
  CHECK(!LinearLayoutFromMap(MapOf("(d0) -> (d0), domain: d0 in [0, 5]", &ctx))
             .ok());
  CHECK(!LinearLayoutFromMap(
             MapOf("(d0) -> (d0 + 1), domain: d0 in [0, 3]", &ctx))
             .ok());
  CHECK(!LinearLayoutFromMap(
             MapOf("(d0) -> (d0), domain: d0 in [0, 3], d0 mod 2 in [0, 0]",
                   &ctx))
             .ok());
  // Padded rows (XLA's 32x33): exact in ixa, not linear over GF(2).
  CHECK(!LinearLayoutFromMap(
             MapOf("(d0, d1) -> (d0 * 33 + d1), domain: d0 in [0, 31], d1 in "
                   "[0, 31]",
                   &ctx))
             .ok());
  // Too large to check point by point and not a sum of bit fields.
  auto big = LinearLayoutFromMap(
      MapOf("(d0, d1) -> ((d0 + d1) mod 2), domain: d0 in [0, 2047], d1 in [0, "
            "2047]",
            &ctx));
  REQUIRE(!big.ok());
  CHECK(big.error().code == ErrorCode::kUnsupported);
}

TEST_CASE("linear layouts as maps", "[hw][linear_layout][map]") {
  ExprContext ctx;
  LinearLayout sw = Ll({{"lane", {{1, 1}, {2, 2}}}, {"warp", {{0, 1}, {0, 2}}}},
                       {"dim0", "dim1"});
  auto m = LinearLayoutToMap(sw, &ctx);
  REQUIRE(m.ok());
  CHECK(PrintIndexingMap(*m) ==
        "(lane, warp) -> (lane, (lane + warp) mod 2 + ((lane floordiv 2 + warp "
        "floordiv 2) mod 2) * 2), domain: lane in [0, 3], warp in [0, 3]");
  auto id = LinearLayoutToMap(Id1(16, "d0", "x") * Id1(4, "d1", "y"), &ctx);
  REQUIRE(id.ok());
  CHECK(PrintIndexingMap(*id) ==
        "(d0, d1) -> (d0, d1), domain: d0 in [0, 15], d1 in [0, 3]");
  auto strided = LinearLayoutToMap(Strided1(8, 4, "i", "o"), &ctx);
  CHECK(PrintIndexingMap(*strided) == "(i) -> (i * 4), domain: i in [0, 7]");
  auto transposed =
      LinearLayoutToMap(Ll({{"i", {{4}, {8}, {1}, {2}}}}, {"o"}), &ctx);
  CHECK(PrintIndexingMap(*transposed) ==
        "(i) -> (i floordiv 4 + (i mod 4) * 4), domain: i in [0, 15]");
}

// A random layout: `ins` input dims of up to 4 bits, `outs` output dims of
// up to 4 bits, each basis random within its output.
LinearLayout RandomLayout(std::mt19937* rng, int ins, int outs) {
  std::vector<LinearLayout::Dim> out_dims;
  for (int k = 0; k < outs; ++k)
    out_dims.push_back({"o" + std::to_string(k), int64_t{1} << ((*rng)() % 5)});
  std::vector<LinearLayout::InDim> in_dims;
  for (int d = 0; d < ins; ++d) {
    LinearLayout::InDim in{"i" + std::to_string(d), {}};
    int bits = static_cast<int>((*rng)() % 5);
    for (int b = 0; b < bits; ++b) {
      std::vector<int64_t> basis;
      for (const auto& o : out_dims)
        basis.push_back(static_cast<int64_t>((*rng)() % o.size));
      in.bases.push_back(basis);
    }
    in_dims.push_back(std::move(in));
  }
  return LlSized(std::move(in_dims), std::move(out_dims));
}

TEST_CASE("linear layouts and maps agree at every point",
          "[hw][linear_layout][map]") {
  std::mt19937 rng(20260607);
  for (int trial = 0; trial < 60; ++trial) {
    LinearLayout l = RandomLayout(&rng, 1 + trial % 3, 1 + trial % 2);
    INFO(PrintLinearLayout(l));
    ExprContext ctx;
    auto m = LinearLayoutToMap(l, &ctx);
    REQUIRE(m.ok());
    auto r = ForEachDomainPoint(*m, 1 << 14, [&](const Point& p) {
      auto want = l.ApplyOrdered(p.dims);
      auto got = m->Evaluate(p.dims, {});
      REQUIRE(want.ok());
      REQUIRE(got.ok());
      REQUIRE(*got == *want);
      return true;
    });
    REQUIRE(r.ok());
    // And back: the same bases (output sizes are the smallest that hold
    // the image).
    auto back = LinearLayoutFromMap(*m, l.OutDimNames());
    REQUIRE(back.ok());
    CHECK(back->EqualIgnoringOutDimSizes(l));
    // The text form round-trips.
    CHECK(Must(ParseLinearLayout(PrintLinearLayout(l))) == l);
  }
}

TEST_CASE("swizzled maps are ordinary maps", "[hw][linear_layout][map]") {
  ExprContext ctx;
  cute::Layout rows = Cute("(8,64):(64,1)");
  Swizzle s{3, 3, 3};
  auto swizzled = cute::LayoutMap(rows, s, &ctx);
  REQUIRE(swizzled.ok());
  // The map (XOR as floordiv/mod bit terms) is the same function as the
  // linear layout, which reads it back exactly.
  LinearLayout from_map = Must(LinearLayoutFromMap(*swizzled, {"offset"}));
  LinearLayout from_cute = Must(LinearLayoutFromCute(rows, s, true));
  CHECK(*from_map.ReshapeIns({{"mode0", 8}, {"mode1", 64}}) == from_cute);
  // Compose: the swizzle after a transposing access (element (c, r) of a
  // 64x8 tile), against the layouts' composition.
  IndexingMap transpose =
      MapOf("(c, r) -> (r, c), domain: c in [0, 63], r in [0, 7]", &ctx);
  auto composed = ComposeIndexingMaps(transpose, *swizzled);
  REQUIRE(composed.ok());
  LinearLayout t =
      Ll({{"c", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 32}}},
          {"r", {{1, 0}, {2, 0}, {4, 0}}}},
         {"mode0", "mode1"});
  LinearLayout expected = Must(t.Compose(from_cute));
  auto r = ForEachDomainPoint(*composed, 1 << 10, [&](const Point& p) {
    REQUIRE((*composed->Evaluate(p.dims, {}))[0] ==
            (*expected.ApplyOrdered(p.dims))[0]);
    return true;
  });
  REQUIRE(r.ok());
  // Equivalence: decided exactly against the layout's own map.
  auto own = LinearLayoutToMap(from_cute, &ctx);
  REQUIRE(own.ok());
  auto eq = Equivalent(*own, *swizzled);
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);
  // Bank conflicts of a column read (lane = row, fp16): the swizzle spreads
  // the 8 rows over 8 different banks; unswizzled they share one.
  auto device = FindDevice("h100");
  REQUIRE(device);
  IndexingMap column = MapOf(
      "(lane)[k] -> (lane, k), domain: lane in [0, 7], k in [0, 0]", &ctx);
  auto plain = cute::LayoutMap(rows, std::nullopt, &ctx);
  REQUIRE(plain.ok());
  auto before = AnalyzeWarpAccess(*ComposeIndexingMaps(column, *plain), 2,
                                  *device, MemorySpace::kShared);
  auto after = AnalyzeWarpAccess(*ComposeIndexingMaps(column, *swizzled), 2,
                                 *device, MemorySpace::kShared);
  REQUIRE(before.ok());
  REQUIRE(after.ok());
  CHECK(before->bank_conflict_ways == 8);
  CHECK(after->bank_conflict_ways == 1);
  // Coalescing: a warp reading row 3 (32 fp16) touches the same two 32-byte
  // sectors with or without the swizzle, which permutes 16-byte chunks
  // within the row.
  IndexingMap row = MapOf(
      "(lane)[k] -> (3, lane), domain: lane in [0, 31], k in [0, 0]", &ctx);
  auto row_plain = AnalyzeWarpAccess(*ComposeIndexingMaps(row, *plain), 2,
                                     *device, MemorySpace::kGlobal);
  auto row_swizzled = AnalyzeWarpAccess(*ComposeIndexingMaps(row, *swizzled), 2,
                                        *device, MemorySpace::kGlobal);
  REQUIRE(row_plain.ok());
  REQUIRE(row_swizzled.ok());
  CHECK(row_plain->sectors == 2);
  CHECK(row_swizzled->sectors == 2);
  CHECK(row_swizzled->efficiency == 1.0);
}

TEST_CASE("linear layout text form", "[hw][linear_layout][text]") {
  LinearLayout l = Text(
      "{register: [[0, 1], [0, 2]], lane: [[1, 0], [2, 0]]} -> "
      "{dim0: 4, dim1: 4}");
  CHECK(l == Ll({{"register", {{0, 1}, {0, 2}}}, {"lane", {{1, 0}, {2, 0}}}},
                {"dim0", "dim1"}));
  CHECK(PrintLinearLayout(l) ==
        "{register: [[0, 1], [0, 2]], lane: [[1, 0], [2, 0]]} -> {dim0: 4, "
        "dim1: 4}");
  // Inferred sizes; bare integers for one output; spacing and lines free.
  CHECK(Text("{in: [1, 2, 4]} -> [out]") == Id1(8, "in", "out"));
  CHECK(Text("{\n  in1: [[1], [4]],\n  in2: []\n} -> {out: 8}") ==
        LlSized({{"in1", {{1}, {4}}}, {"in2", {}}}, {{"out", 8}}));
  CHECK(Text("{} -> {}") == LinearLayout::Empty());
  CHECK(Text("{in: [[], []]} -> {}") == Ll({{"in", {{}, {}}}}, {}));
  CHECK(Text("{\"a b\": [1]} -> {\"x\\\"y\": 2}") ==
        LlSized({{"a b", {{1}}}}, {{"x\"y", 2}}));
  CHECK(PrintLinearLayout(Text("{\"a b\": [1]} -> {x: 2}")) ==
        "{\"a b\": [[1]]} -> {x: 2}");
  // Errors carry line and column.
  auto e = ParseLinearLayout("{in: [1, 2]}\n  => {out: 4}");
  REQUIRE(!e.ok());
  CHECK(e.error().code == ErrorCode::kParseError);
  CHECK(e.error().line == 2);
  CHECK(e.error().column == 3);
  auto f = ParseLinearLayout("{in: [1, x]} -> {out: 4}");
  REQUIRE(!f.ok());
  CHECK(f.error().line == 1);
  CHECK(f.error().column == 10);
  auto g = ParseLinearLayout("{in: [1, 2]} -> {a: 2, b: 2}");
  REQUIRE(!g.ok());
  CHECK(g.error().message.find("exactly one output dim") != std::string::npos);
  // Semantic errors are invalid_argument.
  auto h = ParseLinearLayout("{in: [1, 2]} -> {out: 3}");
  REQUIRE(!h.ok());
  CHECK(h.error().code == ErrorCode::kInvalidArgument);
  CHECK(!ParseLinearLayout("{in: [2]} -> [out]").ok());  // not surjective
  CHECK(!ParseLinearLayout("{in: [1]} -> {out: 2} trailing").ok());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
