// CuTe layout algebra: docs/hw-reference.md §4.3's worked examples, and
// brute-force checks that the algebra keeps CuTe's defining identities.
#include "hw/cute.h"

#include <catch2/catch.hpp>
#include <set>

#include "core/enumerate.h"

namespace ixa::hw::cute {
namespace IXA_UNITY_ID {

Layout L(const std::string& text) {
  auto l = ParseLayout(text);
  INFO(text);
  REQUIRE(l.ok());
  return *l;
}

Tiler Tl(const std::string& text) {
  auto t = ParseTiler(text);
  INFO(text);
  REQUIRE(t.ok());
  return *t;
}

std::string P(const Result<Layout>& r) {
  INFO((r.ok() ? "" : r.error().message));
  REQUIRE(r.ok());
  return PrintLayout(*r);
}

TEST_CASE("cute: layouts as functions", "[hw][cute]") {
  Layout l = L("(2,(2,2)):(4,(2,1))");
  CHECK(PrintLayout(l) == "(2,(2,2)):(4,(2,1))");
  CHECK(Values(l) == std::vector<int64_t>{0, 4, 2, 6, 1, 5, 3, 7});
  ExprContext ctx;
  auto map = LayoutMap(l, std::nullopt, &ctx);
  REQUIRE(map.ok());
  auto v = map->Evaluate(std::vector<int64_t>{1, 2}, {});
  REQUIRE(v.ok());
  CHECK((*v)[0] == 5);
  CHECK(Size(l) == 8);
  CHECK(Cosize(l) == 8);
  CHECK(PrintLayout(L("(4,2)")) == "(4,2):(1,4)");
  CHECK(!ParseLayout("(2,2):(1)").ok());
  CHECK(!ParseLayout("(2,2):(1,2").ok());
}

TEST_CASE("cute: coalesce", "[hw][cute]") {
  CHECK(PrintLayout(Coalesce(L("(2,(1,6)):(1,(6,2))"))) == "12:1");
  CHECK(PrintLayout(CoalesceByMode(L("(2,(1,6)):(1,(6,2))"))) == "(2,6):(1,2)");
}

TEST_CASE("cute: composition", "[hw][cute]") {
  auto r = Compose(L("(6,2):(8,2)"), L("(4,3):(3,1)"));
  CHECK(P(r) == "((2,2),3):((24,2),8)");
  CHECK(Values(*r) ==
        std::vector<int64_t>{0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42});
  CHECK(P(Compose(L("20:2"), L("(5,4):(4,1)"))) == "(5,4):(8,2)");
  CHECK(P(Compose(L("(10,2):(16,4)"), L("(5,4):(1,5)"))) ==
        "(5,(2,2)):(16,(80,4))");
  CHECK(P(Compose(L("(12,(4,8)):(59,(13,1))"), Tl("<3:4,8:2>"))) ==
        "(3,(2,4)):(236,(26,1))");
  CHECK(P(Compose(L("(12,(4,8)):(59,(13,1))"), Tl("(3,8)"))) ==
        "(3,(4,2)):(59,(13,1))");
  auto bad = Compose(L("(6,2):(1,7)"), L("4:1"));
  REQUIRE(!bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad.error().message.find("mode 0") != std::string::npos);
  CHECK(P(Compose(L("(4,2):(1,4)"), L("(2,3):(0,1)"))) == "(2,3):(0,1)");
}

TEST_CASE("cute: complement", "[hw][cute]") {
  CHECK(P(Complement(L("4:1"), 24)) == "6:4");
  CHECK(P(Complement(L("6:4"), 24)) == "4:1");
  CHECK(P(Complement(L("(4,6):(1,4)"), 24)) == "1:0");
  CHECK(P(Complement(L("4:2"), 24)) == "(2,3):(1,8)");
  CHECK(P(Complement(L("(2,4):(1,6)"), 24)) == "3:2");
  CHECK(P(Complement(L("(2,2):(1,6)"), 24)) == "(3,2):(2,12)");
  CHECK(!Complement(L("(2,2):(1,1)"), 8).ok());
}

TEST_CASE("cute: divide and product", "[hw][cute]") {
  CHECK(P(LogicalDivide(L("(4,2,3):(2,1,8)"), Tl("4:2"))) ==
        "((2,2),(2,3)):((4,1),(2,8))");
  auto d = LogicalDivide(L("(9,(4,8)):(59,(13,1))"), Tl("<3:3,(2,4):(1,8)>"));
  CHECK(P(d) == "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  auto z = ZippedDivide(L("(9,(4,8)):(59,(13,1))"), Tl("<3:3,(2,4):(1,8)>"));
  REQUIRE(z.ok());
  CHECK(PrintLayout(z->Mode(0)) == "(3,(2,4)):(177,(13,2))");
  CHECK(Size(z->Mode(0).Mode(0)) == 3);
  CHECK(Size(z->Mode(0).Mode(1)) == 8);
  CHECK(Size(z->Mode(1).Mode(0)) == 3);
  CHECK(Size(z->Mode(1).Mode(1)) == 4);
  // layout<0>(zipped_divide(a, b)) == composition(a, b)
  CHECK(P(Compose(L("(9,(4,8)):(59,(13,1))"), Tl("<3:3,(2,4):(1,8)>"))) ==
        PrintLayout(z->Mode(0)));
  CHECK(P(LogicalProduct(L("(2,2):(4,1)"), L("6:1"))) ==
        "((2,2),(2,3)):((4,1),(2,8))");
  auto blocked = BlockedProduct(L("(2,5):(5,1)"), L("(3,4):(1,3)"));
  CHECK(P(blocked) == "(6,(5,4)):(5,(1,30))");
  auto raked = RakedProduct(L("(2,5):(5,1)"), L("(3,4):(1,3)"));
  CHECK(P(raked) == "((3,2),(4,5)):((10,5),(30,1))");
  ExprContext ctx;
  auto bm = LayoutMap(*blocked, std::nullopt, &ctx);
  auto rm = LayoutMap(*raked, std::nullopt, &ctx);
  REQUIRE(bm.ok());
  REQUIRE(rm.ok());
  std::vector<int64_t> row_b, row_r;
  for (int64_t c = 0; c < 7; ++c) {
    row_b.push_back((*bm->Evaluate(std::vector<int64_t>{0, c}, {}))[0]);
    row_r.push_back((*rm->Evaluate(std::vector<int64_t>{0, c}, {}))[0]);
  }
  CHECK(row_b == std::vector<int64_t>{0, 1, 2, 3, 4, 30, 31});
  CHECK(row_r == std::vector<int64_t>{0, 30, 60, 90, 1, 31, 61});
}

TEST_CASE("cute: swizzle", "[hw][cute]") {
  Swizzle sw{3, 3, 3};
  Layout l = L("(8,64):(64,1)");
  for (int64_t r = 0; r < 8; ++r) {
    CHECK(ApplySwizzle(sw, r * 64) == r * 72);
    CHECK((ApplySwizzle(sw, r * 64) * 2 / 4) % 32 ==
          4 * r);  // fp16: banks 0,4,..,28
    for (int64_t k = 0; k < 8; ++k)
      CHECK(ApplySwizzle(sw, r * 64 + k * 8) / 8 % 8 == (k ^ r));
  }
  Swizzle col{5, 0, 5};
  std::set<int64_t> banks;
  for (int64_t r = 0; r < 32; ++r) banks.insert(ApplySwizzle(col, r * 32) % 32);
  CHECK(banks.size() == 32);
  CHECK(!ValidateSwizzle(Swizzle{3, 3, 2}).ok());
  // The map's bit terms agree with the XOR everywhere.
  ExprContext ctx;
  for (Swizzle s : {Swizzle{3, 3, 3}, Swizzle{2, 1, -3}, Swizzle{1, 0, 4}}) {
    auto map = LayoutMap(l, s, &ctx);
    REQUIRE(map.ok());
    std::set<int64_t> seen;
    auto r = ForEachDomainPoint(*map, 1 << 20, [&](const Point& p) {
      int64_t o = p.dims[0] * 64 + p.dims[1];
      auto v = map->Evaluate(p.dims, {});
      REQUIRE(v.ok());
      REQUIRE((*v)[0] == ApplySwizzle(s, o));
      seen.insert((*v)[0]);
      return true;
    });
    REQUIRE(r.ok());
    CHECK(seen.size() == 512);  // a swizzle is a bijection
  }
}

TEST_CASE("cute: non-divisible tiling with masks", "[hw][cute]") {
  Layout a = L("(10,7):(1,10)");
  // CuTe divides anyway: the last tiles reach past the layout (its last
  // mode extends); DivideOverhang says where.
  CHECK(P(LogicalDivide(a, Tl("(4,3)"))) == "((4,3),(3,3)):((1,4),(10,30))");
  std::vector<Overhang> over = DivideOverhang(a, Tl("(4,3)"));
  REQUIRE(over.size() == 2);
  CHECK(over[0].mode == "0");
  CHECK(over[0].size == 10);
  CHECK(over[0].covered == 12);
  CHECK(over[1].mode == "1");
  CHECK(over[1].covered == 9);
  CHECK(DivideOverhang(a, Tl("(5,7)")).empty());
  ExprContext ctx;
  auto m = DivideWithMask(a, {4, 3}, &ctx);
  REQUIRE(m.ok());
  std::set<int64_t> seen;
  auto r = ForEachDomainPoint(*m, 1 << 20, [&](const Point& p) {
    auto v = m->Evaluate(p.dims, {});
    REQUIRE(v.ok());
    REQUIRE(seen.insert((*v)[0]).second);
    return true;
  });
  REQUIRE(r.ok());
  CHECK(seen.size() == 70);  // every element once, the tail masked off
  CHECK(*seen.rbegin() == 69);
}

// Found by the differential test against pycute (tests/cli/hw_conformance.py).
TEST_CASE("cute: agrees with pycute", "[hw][cute]") {
  // A size-1 B keeps the stride CuTe computes, and is checked like others.
  CHECK(P(Compose(L("(4,6):(1,6)"), L("1:1"))) == "1:6");
  CHECK(P(LogicalProduct(L("(4,3):(1,32)"), L("1:3"))) ==
        "((4,3),1):((1,32),12)");
  CHECK(!Compose(L("(4,(8,3)):(2,(4,3))"), L("1:3")).ok());
  // A shape tiler is by mode at every level; a layout tiles a mode whole.
  CHECK(P(Compose(L("(12,(4,8)):(59,(13,1))"), Tl("(3,(2,4))"))) ==
        "(3,(2,4)):(59,(13,1))");
  CHECK(P(Compose(L("(12,(4,8)):(59,(13,1))"), Tl("<3:1,(2,4):(1,2)>"))) ==
        "(3,(2,(2,2))):(59,(13,(26,1)))");
  CHECK(P(LogicalDivide(L("(8,(4,6)):(24,(1,4))"), Tl("(2,(2,3))"))) ==
        "((2,4),((2,2),(3,2))):((24,48),((1,2),(4,12)))");
  CHECK(!Compose(L("(3,(3,1),2):(1,(3,18),9)"), Tl("(1,(3,1,2),8)")).ok());
  // Non-divisible divides are CuTe's, not refusals.
  CHECK(P(LogicalDivide(L("6:1"), Tl("<4:1>"))) == "(4,2):(1,4)");
  // Rank-1 products: the complement part is taken whole.
  CHECK(P(BlockedProduct(L("3:2"), L("4:1"))) == "(3,2,2):(2,1,6)");
  CHECK(P(RakedProduct(L("3:2"), L("4:1"))) == "(2,2,3):(1,6,2)");
  CHECK(P(BlockedProduct(L("3:1"), L("4:1"))) == "12:1");
  // Tiled / flat forms keep a one-mode tile part whole.
  CHECK(P(FlatDivide(L("6:1"), Tl("<(2,6):(6,1)>"))) == "((2,6),1):((6,1),0)");
  CHECK(P(TiledProduct(L("4:1"), Tl("<(2,8):(8,1)>"))) ==
        "(4,(2,8)):(1,(32,4))");
  CHECK(P(TiledDivide(L("(9,(4,8)):(59,(13,1))"), Tl("<3:3,(2,4):(1,8)>"))) ==
        "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  CHECK(P(RightInverse(L("(4,2):(2,1)"))) == "(2,4):(4,1)");
  CHECK(P(RightInverse(L("(2,4):(0,1)"))) == "4:2");  // C++; pycute 1:0
  CHECK(P(LeftInverse(L("(4,2):(1,16)"))) == "(4,4,2):(1,8,4)");
}

TEST_CASE("cute: sizes and offsets stay within int64", "[hw][cute]") {
  // Sizes 2^64 wrapped to 0 (and "values": []), 10^24 to garbage.
  for (const char* text :
       {"(4294967296,4294967296):(1,4294967296)",
        "(1000000,1000000,1000000,1000000):(1,1000000,1000000000000,1)",
        "(4611686018427387905)", "(2,2):(4611686018427387904,1)"}) {
    INFO(text);
    auto l = ParseLayout(text);
    REQUIRE(!l.ok());
    CHECK(l.error().code == ErrorCode::kInvalidArgument);
  }
  // Algebra results that would overflow are refused, not wrapped.
  auto p = LogicalProduct(L("(65536,65536):(65536,1)"),
                          L("(65536,65536):(1,65536)"));
  REQUIRE(!p.ok());
  CHECK(p.error().code == ErrorCode::kInvalidArgument);
  auto c = Compose(L("2:2305843009213693952"), L("2:4"));
  REQUIRE(!c.ok());
  CHECK(c.error().code == ErrorCode::kInvalidArgument);
  auto n = Complement(L("8:-1"), 8);
  REQUIRE(!n.ok());
  CHECK(n.error().code == ErrorCode::kUnsupported);
}

// Identities: composition is function composition, complements are
// disjoint and cover, divide keeps the function, products are injective.
TEST_CASE("cute: brute force identities", "[hw][cute]") {
  std::vector<std::string> as = {"(4,2,3):(2,1,8)", "(6,2):(8,2)",
                                 "(2,(2,2)):(4,(2,1))", "24:1", "(3,8):(8,1)"};
  std::vector<std::string> bs = {
      "4:2", "(2,3):(1,4)", "(2,2):(1,4)", "3:1", "(2,3):(3,1)", "6:4", "2:12"};
  int composed = 0;
  for (const auto& as_text : as) {
    Layout a = L(as_text);
    for (const auto& bs_text : bs) {
      Layout b = L(bs_text);
      auto c = Compose(a, b);
      if (c.ok()) {
        ++composed;
        REQUIRE(Size(*c) == Size(b));
        for (int64_t i = 0; i < Size(b); ++i) {
          INFO(as_text << " o " << bs_text << " at " << i);
          REQUIRE(Evaluate(*c, i) == Evaluate(a, Evaluate(b, i)));
        }
      }
      auto comp = Complement(b, Size(a));
      if (!comp.ok()) continue;
      std::set<int64_t> image;
      for (int64_t i = 0; i < Size(b); ++i) image.insert(Evaluate(b, i));
      for (int64_t i = 1; i < Size(*comp); ++i)
        CHECK(!image.count(Evaluate(*comp, i)));
      auto prod = LogicalProduct(b, L("3:1"));
      if (!prod.ok()) continue;  // e.g. (2,2):(1,4): 3 does not divide 2
      std::set<int64_t> values;
      for (int64_t i = 0; i < Size(*prod); ++i)
        values.insert(Evaluate(*prod, i));
      CHECK(static_cast<int64_t>(values.size()) == Size(*prod));
    }
    auto d = LogicalDivide(a, Tl("2:1"));
    if (!d.ok()) continue;  // (3,8):(8,1): stride 2 splits neither 3 nor 8
    std::vector<int64_t> before = Values(a), after = Values(*d);
    CHECK(std::multiset<int64_t>(before.begin(), before.end()) ==
          std::multiset<int64_t>(after.begin(), after.end()));
  }
  CHECK(composed > 20);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw::cute
