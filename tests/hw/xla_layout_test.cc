// XLA tiled layouts: every worked example of docs/layouts.md §1 and
// docs/hw-reference.md §1.8, plus brute-force injectivity / inverse /
// padding checks on small shapes.
#include "hw/xla_layout.h"

#include <catch2/catch.hpp>
#include <set>

#include "core/enumerate.h"
#include "core/text.h"

namespace ixa::hw {
namespace IXA_UNITY_ID {

XlaShape Shape(const std::string& text) {
  auto s = ParseXlaShape(text);
  INFO(text << ": " << (s.ok() ? "" : s.error().ToString()));
  REQUIRE(s.ok());
  return *s;
}

int64_t Offset(const XlaShape& shape, std::vector<int64_t> index) {
  auto o = PhysicalOffset(shape, index);
  REQUIRE(o.ok());
  return *o;
}

int64_t MapOffset(const IndexingMap& map, std::vector<int64_t> index) {
  auto r = map.Evaluate(index, {});
  REQUIRE(r.ok());
  return (*r)[0];
}

// The doc's formula, written independently of the library: one level,
// linear_index_with_tile(e, d, t) = lin(e fd t; ceil(d/t)) * prod(t) + lin(e
// mod t; t).
int64_t LinearIndexWithTile(std::vector<int64_t> e, std::vector<int64_t> d,
                            std::vector<int64_t> t) {
  int64_t grid = 0, within = 0, tile_size = 1;
  for (size_t i = 0; i < e.size(); ++i) {
    grid = grid * ((d[i] + t[i] - 1) / t[i]) + e[i] / t[i];
    within = within * t[i] + e[i] % t[i];
    tile_size *= t[i];
  }
  return grid * tile_size + within;
}

// Brute force over every logical index and every offset: the map is
// injective, agrees with the numeric form, the inverse inverts it, and
// padding is exactly the complement of the image.
void CheckBijectionOntoImage(const std::string& text) {
  INFO(text);
  XlaShape shape = Shape(text);
  ExprContext ctx;
  auto info = AnalyzeTiledLayout(shape, &ctx);
  REQUIRE(info.ok());
  auto inverse = InverseTiledLayoutMap(shape, &ctx);
  REQUIRE(inverse.ok());
  std::vector<int> owner(info->physical_elements, -1);
  int count = 0;
  auto r = ForEachDomainPoint(info->map, 1 << 20, [&](const Point& p) {
    int64_t o = MapOffset(info->map, p.dims);
    REQUIRE(o == Offset(shape, p.dims));
    REQUIRE(o >= 0);
    REQUIRE(o < info->physical_elements);
    REQUIRE(owner[o] == -1);  // injective
    owner[o] = count++;
    auto back = LogicalIndexAt(shape, o);
    REQUIRE(back.ok());
    REQUIRE(back->has_value());
    REQUIRE(**back == p.dims);
    auto sym = inverse->Evaluate(std::vector<int64_t>{o}, {});
    REQUIRE(sym.ok());
    REQUIRE(*sym == p.dims);
    return true;
  });
  REQUIRE(r.ok());
  for (int64_t o = 0; o < info->physical_elements; ++o) {
    auto back = LogicalIndexAt(shape, o);
    REQUIRE(back.ok());
    REQUIRE(back->has_value() == (owner[o] != -1));
    auto in = inverse->InDomain(std::vector<int64_t>{o}, {});
    REQUIRE(in.ok());
    REQUIRE(*in == (owner[o] != -1));  // padding predicate is exact
  }
}

TEST_CASE("xla: parse and print round trip", "[hw][xla]") {
  for (const char* text : {"f32[3,5]{1,0:T(2,2)}", "bf16[4,8]{1,0:T(2,4)(2,1)}",
                           "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
                           "s4[64,128]{1,0:T(64,128)(8,1)E(4)}",
                           "s4[8,32768,1,256]{3,1,0,2:T(64,128)(8,1)E(4)S(1)}",
                           "f32[5]{0:T(8,128)L(100)}", "f32[]{}", "f32[3,5]",
                           "u8[2,3]{0,1:T(2)#(u32)*(u16)E(8)S(2)}"}) {
    XlaShape s = Shape(text);
    CHECK(PrintXlaShape(s) == text);
  }
  CHECK(PrintXlaShape(Shape("F32[3, 5]{1,0:T(2,2)}")) ==
        "f32[3,5]{1,0:T(2,2)}");
  CHECK(ParseXlaShape("f33[3]").error().code == ErrorCode::kParseError);
  CHECK(ParseXlaShape("f32[3,5]{1,1}").error().code ==
        ErrorCode::kInvalidArgument);
  CHECK(ParseXlaShape("f32[3,5]{1,0:T(2,*)}").error().code ==
        ErrorCode::kInvalidArgument);
  CHECK(ParseXlaShape("f32[3,5]{1,0:T(0,2)}").error().code ==
        ErrorCode::kInvalidArgument);
  auto bad = ParseXlaShape("f32[3,5]{1,0:Q(2)}");
  REQUIRE(!bad.ok());
  CHECK(bad.error().column > 0);
}

TEST_CASE("xla: F32[3,5] T(2,2), the doc example", "[hw][xla]") {
  XlaShape s = Shape("f32[3,5]{1,0:T(2,2)}");
  CHECK(Offset(s, {2, 3}) == 17);
  CHECK(LinearIndexWithTile({2, 3}, {3, 5}, {2, 2}) == 17);
  const std::vector<std::vector<int64_t>> table = {
      {0, 1, 4, 5, 8}, {2, 3, 6, 7, 10}, {12, 13, 16, 17, 20}};
  ExprContext ctx;
  auto info = AnalyzeTiledLayout(s, &ctx);
  REQUIRE(info.ok());
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t c = 0; c < 5; ++c) {
      CHECK(Offset(s, {r, c}) == table[r][c]);
      CHECK(MapOffset(info->map, {r, c}) == table[r][c]);
    }
  }
  CHECK(info->physical_shape == std::vector<int64_t>{2, 3, 2, 2});
  CHECK(info->physical_elements == 24);
  CHECK(info->bytes == 96);
  std::set<int64_t> padding;
  for (int64_t o = 0; o < 24; ++o) {
    auto l = LogicalIndexAt(s, o);
    REQUIRE(l.ok());
    if (!l->has_value()) padding.insert(o);
  }
  // 24 slots hold 15 elements, so 9 are padding. docs/hw-reference.md §1.8
  // lists only eight (it omits 9 = tile (0,2), position (0,1), i.e. column 5).
  CHECK(padding == std::set<int64_t>{9, 11, 14, 15, 18, 19, 21, 22, 23});
  CHECK(!LogicalIndexAt(s, 24).ok());
}

TEST_CASE("xla: repeated tiling 4x8 (2,4)(2,1), Figure 2", "[hw][xla]") {
  XlaShape s = Shape("bf16[4,8]{1,0:T(2,4)(2,1)}");
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 8; ++c) {
      CHECK(Offset(s, {r, c}) ==
            ((r / 2) * 2 + c / 4) * 8 + (c % 4) * 2 + r % 2);
    }
  }
  CHECK(Offset(s, {1, 5}) == 11);
  CHECK(Offset(s, {0, 7}) == 14);
  CHECK(Offset(s, {3, 1}) == 19);
  ExprContext ctx;
  auto info = AnalyzeTiledLayout(s, &ctx);
  REQUIRE(info.ok());
  CHECK(info->physical_shape == std::vector<int64_t>{2, 2, 1, 4, 2, 1});
}

TEST_CASE("xla: 8x8 (2,4)(2,1,1,1) tiles across tiles", "[hw][xla]") {
  XlaShape s = Shape("f32[8,8]{1,0:T(2,4)(2,1,1,1)}");
  CHECK(Offset(s, {6, 5}) == 51);
  CheckBijectionOntoImage("f32[8,8]{1,0:T(2,4)(2,1,1,1)}");
}

TEST_CASE("xla: combined dimensions", "[hw][xla]") {
  XlaShape s = Shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  CHECK(Offset(s, {1, 3, 5, 7, 9}) == 9484);
  ExprContext ctx;
  auto info = AnalyzeTiledLayout(s, &ctx);
  REQUIRE(info.ok());
  CHECK(info->physical_shape == std::vector<int64_t>{56, 37, 2, 3});
  CHECK(info->physical_elements == 12432);
  CHECK(MapOffset(info->map, {1, 3, 5, 7, 9}) == 9484);
  auto back = LogicalIndexAt(s, 9484);
  REQUIRE(back.ok());
  CHECK(**back == std::vector<int64_t>{1, 3, 5, 7, 9});
}

TEST_CASE("xla: column-major F32[3,5]{0,1:T(2,2)}", "[hw][xla]") {
  CHECK(Offset(Shape("f32[3,5]{0,1:T(2,2)}"), {2, 3}) == 14);
}

TEST_CASE("xla: TPU packed tilings", "[hw][xla]") {
  XlaShape bf16 = Shape("bf16[16,256]{1,0:T(8,128)(2,1)}");
  for (int64_t d0 : {0, 1, 2, 7, 9, 15}) {
    for (int64_t d1 : {0, 1, 127, 128, 130, 255}) {
      CHECK(Offset(bf16, {d0, d1}) == ((d0 / 8) * 2 + d1 / 128) * 1024 +
                                          ((d0 % 8) / 2) * 256 +
                                          (d1 % 128) * 2 + d0 % 2);
    }
  }
  CHECK(Offset(bf16, {1, 0}) == 1);
  CHECK(Offset(bf16, {0, 1}) == 2);
  CHECK(Offset(bf16, {2, 0}) == 256);
  CHECK(Offset(bf16, {9, 130}) == 3077);
  XlaShape s8 = Shape("s8[40,130]{1,0:T(32,128)(4,1)}");
  for (int64_t r = 0; r < 4; ++r) CHECK(Offset(s8, {r, 0}) == r);
  CHECK(Offset(s8, {4, 0}) == 512);
  CHECK(Offset(s8, {37, 129}) == 12805);
}

TEST_CASE("xla: byte sizes", "[hw][xla]") {
  ExprContext ctx;
  auto bytes = [&](const std::string& t) {
    auto info = AnalyzeTiledLayout(Shape(t), &ctx);
    REQUIRE(info.ok());
    return info->bytes;
  };
  CHECK(bytes("f32[5]{0:T(8,128)}") == 4096);
  CHECK(bytes("f32[2,3]{1,0:T(8,128)}") == 4096);
  CHECK(bytes("f32[2,3]") == 24);
  CHECK(bytes("f32[1,128]{1,0:T(2,128)}") == 1024);
  CHECK(bytes("f32[1,128]{1,0:T(8,128)}") == 4096);
  CHECK(bytes("bf16[3,300]{1,0:T(8,128)(2,1)}") == 6144);
  CHECK(bytes("s4[8,32768,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}") == 33554432);
  CHECK(bytes("pred[40,100]{1,0:T(32,128)(32,1)E(1)}") == 1024);
  // XLA packs sub-byte types only with E(n); without it, one per byte.
  CHECK(bytes("s4[3]") == 3);
  CHECK(bytes("s4[3]{0:E(4)}") == 2);  // packed: 12 bits -> 2 bytes
  CHECK(bytes("u4[3,8]{1,0:T(2,8)}") == 32);
  CHECK(bytes("s2[5]{0:T(4)}") == 8);
  CHECK(bytes("f32[5]{0:L(8)}") == 32);
  auto info = AnalyzeTiledLayout(Shape("f32[5]{0:L(8)}"), &ctx);
  REQUIRE(info.ok());
  CHECK(info->physical_elements == 8);
  CHECK(info->tiled_elements == 5);
}

TEST_CASE("xla: sub-byte positions", "[hw][xla]") {
  // XLA's order: the first element of a byte in its low bits.
  CHECK(SubBytePosition(0, 4).shift == 0);
  CHECK(SubBytePosition(1, 4).shift == 4);
  CHECK(SubBytePosition(3, 4).byte == 1);
  CHECK(SubBytePosition(5, 2).shift == 2);
  CHECK(SubBytePosition(7, 1).shift == 7);
  CHECK(SubBytePosition(9, 1).byte == 1);
  CHECK(SubBytePosition(9, 1).shift == 1);
  // XLA's earlier order, still expressible.
  CHECK(SubBytePosition(0, 4, NibbleOrder::kHighFirst).shift == 4);
  CHECK(SubBytePosition(1, 4, NibbleOrder::kHighFirst).shift == 0);
  CHECK(SubBytePosition(5, 2, NibbleOrder::kHighFirst).shift == 4);
}

TEST_CASE("xla: brute force on small shapes", "[hw][xla]") {
  for (const char* text :
       {"f32[3,5]{1,0:T(2,2)}", "f32[3,5]{0,1:T(2,2)}",
        "bf16[4,8]{1,0:T(2,4)(2,1)}", "bf16[5,9]{1,0:T(2,4)(2,1)}",
        "f32[3,4,5]{2,1,0:T(2,3)}", "f32[3,4,5]{0,2,1:T(2,2,2)}",
        "f32[2,3,4,5]{3,2,1,0:T(*,2,*,3)}", "f32[3,7]{1,0:T(4)}",
        "f32[5]{0:T(2,4)}", "f32[5]{0:T(4)(2)}", "f32[6,5]{1,0:T(4,4)(2,1)(2)}",
        "f32[7]{0:T(3)L(5)}", "f32[4,6]{1,0:T(*,4)}",
        "s4[9,17]{1,0:T(8,8)(8,1)E(4)}", "f32[0,3]{1,0:T(2,2)}", "f32[]"}) {
    CheckBijectionOntoImage(text);
  }
}

TEST_CASE("xla: symbolic maps print", "[hw][xla]") {
  ExprContext ctx;
  auto info = AnalyzeTiledLayout(Shape("f32[3,5]{1,0:T(2,2)}"), &ctx);
  REQUIRE(info.ok());
  std::string text = PrintIndexingMap(info->map);
  CHECK(text.find("floordiv 2") != std::string::npos);
  CHECK(text.find("d0 in [0, 2]") != std::string::npos);
  auto inverse = InverseTiledLayoutMap(Shape("f32[3,5]{1,0:T(2,2)}"), &ctx);
  REQUIRE(inverse.ok());
  CHECK(!inverse->constraints().empty());
}

TEST_CASE("xla: TPU default tilings as data", "[hw][xla]") {
  auto check = [](const std::string& in, const std::string& out) {
    auto s = WithTpuDefaultLayout(Shape(in));
    REQUIRE(s.ok());
    CHECK(PrintXlaShape(*s) == out);
  };
  check("f32[16,256]", "f32[16,256]{1,0:T(8,128)}");
  check("f32[2,256]", "f32[2,256]{1,0:T(2,128)}");
  check("bf16[16,256]", "bf16[16,256]{1,0:T(8,128)(2,1)}");
  check("bf16[4096]", "bf16[4096]{0:T(1024)(128)(2,1)}");
  check("s8[64,128]", "s8[64,128]{1,0:T(8,128)(4,1)}");
  check("s4[64,128]", "s4[64,128]{1,0:T(8,128)(8,1)E(4)}");
  CHECK(TpuTilings().size() >= 10);
}

// fuzz_hlo: a shape without elements whose other dims multiply past int64
// (f64[40940,0,3340,940340,...]) passed the size check (the product is 0)
// and its row-major strides overflowed (UBSan). They saturate; the map has
// no point.
TEST_CASE("tiled layout of a shape without elements and huge dims",
          "[hw][xla_layout]") {
  ExprContext ctx;
  XlaShape shape = Shape("f64[40940,0,3340,940340,940,3340,940340,940,4]");
  auto info = AnalyzeTiledLayout(shape, &ctx);
  REQUIRE(info.ok());
  CHECK(info->physical_elements == 0);
  CHECK(info->map.IsKnownEmpty());
  // The inverse has no offset to start from (its strides would divide by
  // 0: a CHECK abort), small shapes with a 0 dim included.
  for (const char* text : {"f64[40940,0,3340,940340,940,3340,940340,940,4]",
                           "f32[2,0,3]", "f32[8,0]{1,0:T(8,128)}"}) {
    INFO(text);
    auto inverse = InverseTiledLayoutMap(Shape(text), &ctx);
    REQUIRE(inverse.ok());
    CHECK(inverse->IsKnownEmpty());
  }
}

// 3e17 f32 elements: their bytes (1.2e18) fit in int64, their bits
// (9.6e18) do not; the message says which size overflowed.
TEST_CASE("tiled layout whose bit size overflows names the bits",
          "[hw][xla_layout]") {
  ExprContext ctx;
  auto info = AnalyzeTiledLayout(Shape("f32[300000000,1000000000]"), &ctx);
  REQUIRE(!info.ok());
  CHECK(info.error().message.find("size in bits") != std::string::npos);
  CHECK(info.error().message.find("byte") == std::string::npos);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
