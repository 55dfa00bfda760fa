// Linear layouts: the cases of Triton's LinearLayout unit tests (literal
// bases for the constructors, products, compose, invert,
// invert-and-compose, divisions, reshape/transpose, contiguity,
// sub-layouts, free variables), each with its literal expectation.
#include "hw/linear_layout.h"

#include <catch2/catch.hpp>

#include "tests/hw/linear_layout_testing.h"

namespace ixa::hw {
namespace IXA_UNITY_ID {

using namespace ixa::hw::testing;  // NOLINT: the literal helpers
using DV = LinearLayout::DimValues;

TEST_CASE("linear layout: empty", "[hw][linear_layout]") {
  LinearLayout l = LinearLayout::Empty();
  CHECK(l.ins().empty());
  CHECK(l.InDimNames().empty());
  CHECK(l.OutDimNames().empty());
  CHECK(l.TotalInDimSize() == 1);
  CHECK(PrintLinearLayout(l) == "{} -> {}");
}

TEST_CASE("linear layout: identity1D", "[hw][linear_layout]") {
  LinearLayout l = Id1(32, "testIns", "testOuts");
  CHECK(l == Ll({{"testIns", {{1}, {2}, {4}, {8}, {16}}}}, {"testOuts"}));
  CHECK(l.InDimNames() == std::vector<std::string>{"testIns"});
  CHECK(l.OutDimNames() == std::vector<std::string>{"testOuts"});
  CHECK(*l.InDimSizeLog2("testIns") == 5);
  CHECK(*l.OutDimSizeLog2("testOuts") == 5);
  CHECK(l.IsInvertible());
}

TEST_CASE("linear layout: identity1D of size 1", "[hw][linear_layout]") {
  LinearLayout l = Id1(1, "testIns", "testOuts");
  CHECK(l == Ll({{"testIns", {}}}, {"testOuts"}));
  CHECK(*l.InDimSizeLog2("testIns") == 0);
  CHECK(*l.OutDimSizeLog2("testOuts") == 0);
  CHECK(Id1(0, "a", "b") == LinearLayout::Empty());
}

TEST_CASE("linear layout: zeros1D and strided1D", "[hw][linear_layout]") {
  CHECK(Zeros1(32, "ins", "outs") ==
        Ll({{"ins", {{0}, {0}, {0}, {0}, {0}}}}, {"outs"}));
  CHECK(Zeros1(4, "ins", "outs", 8) ==
        LlSized({{"ins", {{0}, {0}}}}, {{"outs", 8}}));
  CHECK(Strided1(4, 4, "in", "out") ==
        LlSized({{"in", {{4}, {8}}}}, {{"out", 16}}));
  CHECK(Strided1(8, 1, "in", "out") == Id1(8, "in", "out"));
  CHECK(!Strided1(4, 4, "in", "out").IsSurjective());
  CHECK(Strided1(4, 4, "in", "out").IsInjective());
}

TEST_CASE("linear layout: bad input is an error", "[hw][linear_layout]") {
  CHECK(!LinearLayout::Identity1D(6, "in", "out").ok());
  CHECK(!LinearLayout::Strided1D(4, 3, "in", "out").ok());
  CHECK(!LinearLayout::Zeros1D(4, "in", "out", 3).ok());
  // A basis outside its output dim, a basis of the wrong length.
  CHECK(!LinearLayout::Create({{"in", {{8}}}}, {{"out", 8}}, false).ok());
  CHECK(!LinearLayout::Create({{"in", {{1, 2}}}}, {{"out", 8}}, false).ok());
  CHECK(!LinearLayout::Create({{"in", {{-1}}}}, {{"out", 8}}, false).ok());
  // Duplicate dims, not surjective where required.
  CHECK(
      !LinearLayout::Create({{"in", {}}, {"in", {}}}, {{"o", 1}}, false).ok());
  CHECK(!LinearLayout::Create({{"in", {{2}}}}, {{"o", 4}}, true).ok());
  auto e = LinearLayout::Create({{"in", {{1}, {1}}}}, {{"o", 4}}, true);
  REQUIRE(!e.ok());
  CHECK(e.error().message.find("not surjective") != std::string::npos);
  // Unknown dims.
  LinearLayout l = Id1(4, "in", "out");
  CHECK(!l.InDimSize("nope").ok());
  CHECK(!l.Apply({{"nope", 1}}).ok());
  CHECK(!l.Apply({{"in", 4}}).ok());  // outside the dim
  CHECK(!l.Sublayout({"in"}, {"x"}).ok());
  CHECK(!l.TransposeIns({"in", "in"}).ok());
  CHECK(!l.ReshapeIns({{"a", 2}}).ok());  // size mismatch
  CHECK(!l.ReshapeIns({{"a", 3}}).ok());  // not a power of two
  CHECK(!Zeros1(4, "in", "out").Invert().ok());
  CHECK(!Id1(4, "in", "out").Compose(Id1(2, "out", "x")).ok());
  CHECK(!Id1(4, "in", "out").Compose(Id1(8, "other", "x")).ok());
}

TEST_CASE("linear layout: multiply identity", "[hw][linear_layout]") {
  LinearLayout prod = Id1(16, "in", "out") * Id1(32, "in", "out");
  CHECK(prod ==
        Ll({{"in", {{1}, {2}, {4}, {8}, {16}, {32}, {64}, {128}, {256}}}},
           {"out"}));
  CHECK(prod.InDimNames() == std::vector<std::string>{"in"});
  CHECK(prod.OutDimNames() == std::vector<std::string>{"out"});
}

TEST_CASE("linear layout: multiply disjoint", "[hw][linear_layout]") {
  LinearLayout prod = Id1(32, "in1", "out1") * Id1(16, "in2", "out2");
  CHECK(prod == Ll({{"in1", {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}}},
                    {"in2", {{0, 1}, {0, 2}, {0, 4}, {0, 8}}}},
                   {"out1", "out2"}));
  CHECK(prod.InDimNames() == std::vector<std::string>{"in1", "in2"});
  CHECK(prod.OutDimNames() == std::vector<std::string>{"out1", "out2"});
}

TEST_CASE("linear layout: multiply by empty and zeros", "[hw][linear_layout]") {
  CHECK(LinearLayout::Empty() * Id1(32, "in", "out") == Id1(32, "in", "out"));
  CHECK(Id1(32, "in", "out") * LinearLayout::Empty() == Id1(32, "in", "out"));
  CHECK(Id1(8, "in", "out") * Zeros1(16, "in", "out") ==
        Ll({{"in", {{1}, {2}, {4}, {0}, {0}, {0}, {0}}}}, {"out"}));
  CHECK(Zeros1(16, "in", "out1") * Ll({{"in", {}}}, {"out2"}) ==
        Ll({{"in", {{0, 0}, {0, 0}, {0, 0}, {0, 0}}}}, {"out1", "out2"}));
  CHECK(Id1(0, "in", "out") * Zeros1(4, "in", "out") ==
        Ll({{"in", {{0}, {0}}}}, {"out"}));
  LinearLayout prod = LinearLayout::Empty();
  prod = prod * Id1(32, "in", "out");
  CHECK(prod == Id1(32, "in", "out"));
}

TEST_CASE("linear layout: multiply overlapping", "[hw][linear_layout]") {
  CHECK(
      Id1(4, "in", "out1") * Id1(8, "in", "out2") ==
      Ll({{"in", {{1, 0}, {2, 0}, {0, 1}, {0, 2}, {0, 4}}}}, {"out1", "out2"}));
  // Dims the two share must be in the same order.
  LinearLayout ab = Id1(2, "a", "o") * Id1(2, "b", "o");
  LinearLayout ba = Id1(2, "b", "o") * Id1(2, "a", "o");
  CHECK(!Product(ab, ba).ok());
  CHECK(Product(ab, ab).ok());
}

TEST_CASE("linear layout: out dim sizes", "[hw][linear_layout]") {
  LinearLayout l =
      Ll({{"in0", {{0}, {0}, {0}}}, {"in1", {{1}, {2}}}}, {"dim0"});
  CHECK(*l.OutDimSizeLog2("dim0") == 2);
  CHECK(l.TotalInDimSizeLog2() == 5);
  CHECK(Ll({{"in", {{1}, {4}, {8}}}, {"in2", {{3}}}}, {"out"})
            .TotalOutDimSize() == 16);
}

TEST_CASE("linear layout: transpose outs", "[hw][linear_layout]") {
  LinearLayout l = *(Id1(32, "in1", "out1") * Id1(16, "in2", "out2"))
                        .TransposeOuts({"out2", "out1"});
  CHECK(l.OutDimNames() == std::vector<std::string>{"out2", "out1"});
  CHECK(l == Ll({{"in1", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}}},
                 {"in2", {{1, 0}, {2, 0}, {4, 0}, {8, 0}}}},
                {"out2", "out1"}));
  LinearLayout degenerate = *(Id1(32, "in1", "out1") * Id1(1, "in2", "out2"))
                                 .TransposeOuts({"out2", "out1"});
  CHECK(degenerate ==
        Ll({{"in1", {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}}}, {"in2", {}}},
           {"out2", "out1"}));
}

TEST_CASE("linear layout: transpose ins", "[hw][linear_layout]") {
  LinearLayout l = *(Id1(32, "in1", "out1") * Id1(16, "in2", "out2"))
                        .TransposeIns({"in2", "in1"});
  CHECK(l.InDimNames() == std::vector<std::string>{"in2", "in1"});
  CHECK(l == Ll({{"in2", {{0, 1}, {0, 2}, {0, 4}, {0, 8}}},
                 {"in1", {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}}}},
                {"out1", "out2"}));
}

TEST_CASE("linear layout: apply", "[hw][linear_layout]") {
  LinearLayout l =
      LlSized({{"in1", {{4, 2}, {2, 1}, {1, 0}}}, {"in2", {{1, 2}, {2, 1}}}},
              {{"out1", 8}, {"out2", 4}});
  CHECK(*l.Apply({{"in1", 0}, {"in2", 0}}) == DV{{"out1", 0}, {"out2", 0}});
  CHECK(*l.Apply({{"in2", 0}, {"in1", 1}}) == DV{{"out1", 4}, {"out2", 2}});
  CHECK(*l.Apply({{"in2", 1}, {"in1", 0}}) == DV{{"out1", 1}, {"out2", 2}});
  CHECK(*l.Apply({{"in2", 3}, {"in1", 7}}) == DV{{"out1", 4}, {"out2", 0}});
  CHECK(!l.Apply({{"in1", 0}}).ok());  // in2 missing
  // The header's swizzle: L(t, w) = (t, w ^ t).
  LinearLayout sw = Ll({{"lane", {{1, 1}, {2, 2}}}, {"warp", {{0, 1}, {0, 2}}}},
                       {"dim0", "dim1"});
  CHECK(*sw.ApplyOrdered({3, 3}) == std::vector<int64_t>{3, 0});
  CHECK(*sw.ApplyOrdered({1, 2}) == std::vector<int64_t>{1, 3});
}

TEST_CASE("linear layout: construct a large layout", "[hw][linear_layout]") {
  LinearLayout::InDim in{"in", {}};
  for (int i = 0; i < 25; ++i) in.bases.push_back({int64_t{1} << i});
  LinearLayout l = Ll({in}, {"out"});
  CHECK(l.IsInvertible());
  CHECK(*l.OutDimSize("out") == (1 << 25));
}

TEST_CASE("linear layout: compose", "[hw][linear_layout]") {
  LinearLayout l1 = Ll({{"in1", {{1, 1}, {0, 1}}}, {"in2", {{1, 0}, {1, 2}}}},
                       {"out1", "out2"});
  LinearLayout l2 = Ll({{"out1", {{2, 2}, {1, 0}}}, {"out2", {{1, 1}, {2, 1}}}},
                       {"out3", "out4"});
  LinearLayout c = *l1.Compose(l2);
  CHECK(c == LlSized({{"in1", {{3, 3}, {1, 1}}}, {"in2", {{2, 2}, {0, 3}}}},
                     {{"out3", 4}, {"out4", 4}}));
  CHECK(!c.IsSurjective());
}

TEST_CASE("linear layout: compose 4D", "[hw][linear_layout]") {
  LinearLayout l1 =
      Ll({{"in0", {{1, 0, 0, 0}, {2, 0, 0, 0}}},
          {"in1", {{4, 0, 0, 0}, {8, 0, 0, 0}, {16, 0, 0, 0}, {32, 0, 0, 0}}},
          {"in2", {{0, 0, 1, 0}, {0, 0, 0, 1}, {0, 0, 0, 2}}},
          {"in3", {}}},
         {"out3", "out0", "out1", "out2"});
  LinearLayout l2 = Ll({{"out3",
                         {{1, 0, 0, 0},
                          {2, 0, 0, 0},
                          {0, 0, 0, 0},
                          {0, 0, 0, 0},
                          {0, 0, 0, 0},
                          {0, 0, 0, 0}}},
                        {"out0", {}},
                        {"out1", {{0, 0, 1, 0}}},
                        {"out2", {{0, 0, 0, 1}, {0, 0, 0, 2}}}},
                       {"out3", "out2", "out1", "out0"});
  CHECK(*l1.Compose(l2) ==
        LlSized(
            {{"in0", {{1, 0, 0, 0}, {2, 0, 0, 0}}},
             {"in1", {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}},
             {"in2", {{0, 0, 1, 0}, {0, 0, 0, 1}, {0, 0, 0, 2}}},
             {"in3", {}}},
            {{"out3", 4}, {"out2", 1}, {"out1", 2}, {"out0", 4}}));
}

TEST_CASE("linear layout: reshape ins", "[hw][linear_layout]") {
  LinearLayout l = Ll({{"in1", {{1}, {4}, {8}}}, {"in2", {{2}}}}, {"out"});
  CHECK(*l.ReshapeIns({{"in3", 2}, {"in4", 8}}) ==
        Ll({{"in3", {{1}}}, {"in4", {{4}, {8}, {2}}}}, {"out"}));
  LinearLayout deg_in = Ll({{"in1", {{1}, {4}, {2}}}, {"in2", {}}}, {"out"});
  CHECK(*deg_in.ReshapeIns({{"in3", 4}, {"in4", 2}}) ==
        Ll({{"in3", {{1}, {4}}}, {"in4", {{2}}}}, {"out"}));
  LinearLayout deg_out = Ll({{"in1", {{1}, {4}}}, {"in2", {{2}}}}, {"out"});
  CHECK(*deg_out.ReshapeIns({{"in3", 8}, {"in4", 1}}) ==
        Ll({{"in3", {{1}, {4}, {2}}}, {"in4", {}}}, {"out"}));
  CHECK(*deg_out.ReshapeIns({{"in3", 1}, {"in4", 8}}) ==
        Ll({{"in3", {}}, {"in4", {{1}, {4}, {2}}}}, {"out"}));
}

TEST_CASE("linear layout: flatten ins", "[hw][linear_layout]") {
  CHECK(Ll({{"in1", {{1}, {4}, {8}}}, {"in2", {{2}}}}, {"out"}).FlattenIns() ==
        Ll({{"in1", {{1}, {4}, {8}, {2}}}}, {"out"}));
  CHECK(Ll({{"in1", {}}}, {"out"}).FlattenIns() == Ll({{"in1", {}}}, {"out"}));
  CHECK(Ll({{"in1", {}}}, {}).FlattenIns() == Ll({{"in1", {}}}, {}));
  CHECK(Ll({}, {"out"}).FlattenIns() == Ll({}, {"out"}));
  CHECK(Ll({}, {}).FlattenIns() == Ll({}, {}));
}

TEST_CASE("linear layout: reshape outs", "[hw][linear_layout]") {
  LinearLayout l = Ll({{"in1", {{1}, {4}, {8}}}, {"in2", {{3}}}}, {"out"});
  CHECK(l.TotalOutDimSize() == 16);
  CHECK(*l.ReshapeOuts({{"out2", 2}, {"out3", 8}}) ==
        Ll({{"in1", {{1, 0}, {0, 2}, {0, 4}}}, {"in2", {{1, 1}}}},
           {"out2", "out3"}));
  LinearLayout deg_in = Ll({{"in1", {{1}, {4}, {2}}}, {"in2", {}}}, {"out"});
  CHECK(*deg_in.ReshapeOuts({{"out1", 4}, {"out2", 2}}) ==
        Ll({{"in1", {{1, 0}, {0, 1}, {2, 0}}}, {"in2", {}}}, {"out1", "out2"}));
  LinearLayout deg_out = Ll({{"in1", {{1}, {4}}}, {"in2", {{2}}}}, {"out"});
  CHECK(*deg_out.ReshapeOuts({{"out1", 8}, {"out2", 1}}) ==
        Ll({{"in1", {{1, 0}, {4, 0}}}, {"in2", {{2, 0}}}}, {"out1", "out2"}));
}

TEST_CASE("linear layout: flatten outs", "[hw][linear_layout]") {
  LinearLayout l =
      LlSized({{"in1", {{1, 0}, {4, 1}, {8, 4}}}, {"in2", {{3, 2}}}},
              {{"out1", 16}, {"out2", 8}});
  CHECK(l.FlattenOuts() == LlSized({{"in1", {{1}, {4 + 16}, {8 + 4 * 16}}},
                                    {"in2", {{3 + 2 * 16}}}},
                                   {{"out1", 16 * 8}}));
  CHECK(Ll({{"in1", {}}}, {"out"}).FlattenOuts() == Ll({{"in1", {}}}, {"out"}));
  CHECK(Ll({{"in1", {}}}, {}).FlattenOuts() == Ll({{"in1", {}}}, {}));
  CHECK(Ll({}, {"out"}).FlattenOuts() == Ll({}, {"out"}));
  CHECK(Ll({}, {}).FlattenOuts() == Ll({}, {}));
}

TEST_CASE("linear layout: invert and compose", "[hw][linear_layout]") {
  SECTION("simple") {
    LinearLayout l1 = Ll({{"in1", {{2}, {1}, {4}}}}, {"out"});
    LinearLayout l2 = Ll({{"in2", {{4}, {1}, {2}}}}, {"out"});
    LinearLayout c = *l1.InvertAndCompose(l2);
    CHECK(c == Ll({{"in1", {{4}, {2}, {1}}}}, {"in2"}));
    CHECK(*c.Compose(l2) == l1);
  }
  SECTION("non-injective") {
    LinearLayout l1 = Ll({{"in1", {{2}, {1}, {4}}}}, {"out"});
    LinearLayout l2 = Ll({{"in2", {{0}, {2}, {1}, {4}}}}, {"out"});
    LinearLayout c = *l1.InvertAndCompose(l2);
    CHECK(c == LlSized({{"in1", {{2}, {4}, {8}}}}, {{"in2", 16}}));
    CHECK(!c.IsSurjective());
    CHECK(*c.Compose(l2) == l1);
  }
  SECTION("smaller result") {
    LinearLayout l1 = Ll({{"in1", {{1}, {2}, {4}}}}, {"out"});
    LinearLayout l2 = Ll({{"in2", {{4}, {1}, {2}, {8}}}}, {"out"});
    LinearLayout c = *l1.InvertAndCompose(l2);
    CHECK(c == LlSized({{"in1", {{2}, {4}, {1}}}}, {{"in2", 16}}));
    CHECK(c.Compose(l2)->EqualIgnoringOutDimSizes(l1));
    CHECK(*c.Compose(l2) != l1);
  }
  SECTION("broadcast in dim") {
    LinearLayout l1 = Ll({{"in1", {{2}, {1}, {4}}}, {"in2", {{0}}}}, {"out"});
    LinearLayout l2 = Ll({{"in", {{4}, {1}, {2}}}}, {"out"});
    LinearLayout c = *l1.InvertAndCompose(l2);
    CHECK(c ==
          LlSized({{"in1", {{4}, {2}, {1}}}, {"in2", {{0}}}}, {{"in", 8}}));
    CHECK(*c.Compose(l2) == l1);
  }
  SECTION("broadcast at the beginning of the second") {
    LinearLayout l1 = Ll({{"in", {{1}, {2}, {4}}}}, {"out"});
    LinearLayout l2 = Ll({{"in", {{0}, {4}, {1}, {2}}}}, {"out"});
    LinearLayout c = *l1.InvertAndCompose(l2);
    CHECK(c == LlSized({{"in", {{4}, {8}, {2}}}}, {{"in", 16}}));
    CHECK(*c.Compose(l2) == l1);
  }
  SECTION("broadcast at the end of the second") {
    LinearLayout l1 = Ll({{"in1", {{1}, {2}, {4}}}}, {"out"});
    LinearLayout l2 = Ll({{"in2", {{4}, {1}, {2}, {0}}}}, {"out"});
    LinearLayout c = *l1.InvertAndCompose(l2);
    CHECK(c == LlSized({{"in1", {{2}, {4}, {1}}}}, {{"in2", 16}}));
    CHECK(c.Compose(l2)->EqualIgnoringOutDimSizes(l1));
  }
  SECTION("broadcast at both ends of the second") {
    LinearLayout l1 = Ll({{"in", {{1}, {2}, {4}}}}, {"out"});
    LinearLayout l2 = Ll({{"in", {{0}, {4}, {1}, {2}, {0}}}}, {"out"});
    LinearLayout c = *l1.InvertAndCompose(l2);
    CHECK(c == LlSized({{"in", {{4}, {8}, {2}}}}, {{"in", 32}}));
    CHECK(*c.Compose(l2) == l1);
  }
  SECTION("multi-dim") {
    LinearLayout l1 =
        Ll({{"in1", {{1, 0}, {0, 1}, {2, 0}, {3, 2}}}, {"in2", {{2, 2}}}},
           {"out1", "out2"});
    LinearLayout l2 = Ll({{"in3", {{0, 1}, {1, 0}, {0, 0}, {0, 2}, {2, 1}}}},
                         {"out2", "out1"});
    LinearLayout c1 = *l1.InvertAndCompose(l2);
    CHECK(*c1.Compose(l2) == *l1.TransposeOuts(l2.OutDimNames()));
    LinearLayout c2 = *l2.InvertAndCompose(l1);
    CHECK(*c2.Compose(l1) == *l2.TransposeOuts(l1.OutDimNames()));
  }
  SECTION("broadcast dims") {
    LinearLayout l1 = Ll({{"in1", {{1}, {2}, {4}}}, {"in2", {{0}}}}, {"out"});
    LinearLayout l2 = Ll({{"in3", {{1}, {2}, {4}}}, {"in4", {{0}}}}, {"out"});
    LinearLayout c = *l1.InvertAndCompose(l2);
    CHECK(c == LlSized({{"in1", {{1, 0}, {2, 0}, {4, 0}}}, {"in2", {{0, 0}}}},
                       {{"in3", 8}, {"in4", 2}}));
    CHECK(*c.Compose(l2) == *l1.TransposeOuts(l2.OutDimNames()));
  }
  SECTION("broadcast dims 2") {
    LinearLayout a = Ll({{"in1", {{1}, {2}}}, {"in2", {{0}}}}, {"out"});
    LinearLayout b = Ll({{"in3", {{2}, {1}}}, {"in4", {{0}}}}, {"out"});
    LinearLayout c = *a.InvertAndCompose(b);
    CHECK(c == LlSized({{"in1", {{2, 0}, {1, 0}}}, {"in2", {{0, 0}}}},
                       {{"in3", 4}, {"in4", 2}}));
    CHECK(*c.Compose(b) == *a.TransposeOuts(b.OutDimNames()));
  }
  SECTION("not in the image") {
    LinearLayout l1 = Ll({{"in", {{1}, {2}}}}, {"out"});
    LinearLayout l2 = LlSized({{"in", {{1}, {0}}}}, {{"out", 4}});
    CHECK(!l1.InvertAndCompose(l2).ok());
  }
}

TEST_CASE("linear layout: invert and compose with an identity in dim",
          "[hw][linear_layout]") {
  std::vector<std::string> outs;
  for (int i = 0; i < 9; ++i) outs.push_back("dim" + std::to_string(i));
  auto unit = [](int k) {
    std::vector<int64_t> b(9, 0);
    if (k >= 0) b[k] = 1;
    return b;
  };
  LinearLayout::InDim reg{"register", {}}, lane{"lane", {}}, warp{"warp", {}};
  for (int k = 1; k <= 8; ++k) reg.bases.push_back(unit(k));
  for (int i = 0; i < 5; ++i) lane.bases.push_back(unit(-1));
  warp.bases = {unit(0), unit(-1)};
  LinearLayout src = Ll({reg, lane, warp, {"block", {}}}, outs);
  LinearLayout::InDim reg2{"register", {}}, lane2{"lane", {}};
  for (int i = 0; i < 8; ++i) reg2.bases.push_back(unit(-1));
  for (int k = 1; k <= 5; ++k) lane2.bases.push_back(unit(k));
  LinearLayout::InDim warp2{"warp", {unit(0), unit(6)}};
  LinearLayout::InDim block2{"block", {unit(7), unit(8)}};
  LinearLayout dst = Ll({reg2, lane2, warp2, block2}, outs);
  LinearLayout cvt = *dst.InvertAndCompose(src);
  for (int64_t r : {0, 3, 200}) {
    for (int64_t l : {0, 5, 31}) {
      for (int64_t w : {0, 2, 3}) {
        DV k = {{"register", r}, {"lane", l}, {"warp", w}, {"block", 3}};
        auto via = cvt.Apply(k);
        REQUIRE(via.ok());
        CHECK(*dst.Apply(k) == *src.Apply(*via));
      }
    }
  }
}

TEST_CASE("linear layout: invert", "[hw][linear_layout]") {
  // The inverse of [1, 3, 6] is [1, 3, 7].
  LinearLayout l = Ll({{"in", {{1}, {3}, {6}}}}, {"out"});
  CHECK(*l.Invert() == Ll({{"out", {{1}, {3}, {7}}}}, {"in"}));
  // A transpose of 4x4 bits is its own inverse.
  LinearLayout t = Ll({{"in", {{4}, {8}, {1}, {2}}}}, {"out"});
  std::vector<int64_t> values;
  for (int64_t i = 0; i < 16; ++i) values.push_back((*t.ApplyOrdered({i}))[0]);
  CHECK(values == std::vector<int64_t>{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14,
                                       3, 7, 11, 15});
  CHECK(*(*t.Invert()).ReshapeIns({{"in", 16}})->ReshapeOuts({{"out", 16}}) ==
        *t.TransposeIns({"in"}));
  LinearLayout tt = *t.Compose(
      *Ll({{"out", {{4}, {8}, {1}, {2}}}}, {"x"}).ReshapeOuts({{"x", 16}}));
  CHECK(tt == Ll({{"in", {{1}, {2}, {4}, {8}}}}, {"x"}));
  // Two dims: the header's swizzle (t, w ^ t) inverts to (t, w ^ t).
  LinearLayout sw = Ll({{"lane", {{1, 1}, {2, 2}}}, {"warp", {{0, 1}, {0, 2}}}},
                       {"dim0", "dim1"});
  LinearLayout inv = *sw.Invert();
  CHECK(inv == LlSized({{"dim0", {{1, 1}, {2, 2}}}, {"dim1", {{0, 1}, {0, 2}}}},
                       {{"lane", 4}, {"warp", 4}}));
  CHECK(*sw.Compose(inv) == Id1(4, "lane", "lane") * Id1(4, "warp", "warp"));
  // Not square, not surjective: no inverse.
  CHECK(!Ll({{"in", {{1}, {2}, {0}}}}, {"out"}).Invert().ok());
  CHECK(!Strided1(4, 2, "in", "out").Invert().ok());
}

TEST_CASE("linear layout: pseudo-inverse", "[hw][linear_layout]") {
  LinearLayout l = Ll({{"in", {{0}, {2}, {1}, {4}}}}, {"out"});
  LinearLayout p = *l.PseudoInvert();
  CHECK(p == LlSized({{"out", {{4}, {2}, {8}}}}, {{"in", 16}}));
  CHECK(*p.Compose(l) == Id1(8, "out", "out"));
}

TEST_CASE("linear layout: num consecutive in out", "[hw][linear_layout]") {
  CHECK(Id1(1, "in", "out").NumConsecutiveInOut() == 1);
  CHECK(Id1(4, "in", "out").NumConsecutiveInOut() == 4);
  CHECK((Id1(4, "in1", "out") * Id1(8, "in2", "out")).NumConsecutiveInOut() ==
        4);
  CHECK((Id1(4, "in", "out1") * Id1(8, "in", "out2")).NumConsecutiveInOut() ==
        4);
  CHECK(
      (Zeros1(4, "in", "out1") * Id1(4, "in", "out2")).NumConsecutiveInOut() ==
      1);
  CHECK(Ll({{"in", {{1}, {1}}}}, {"out"}).NumConsecutiveInOut() == 1);
  CHECK(Ll({{"in", {{2}, {1}}}}, {"out"}).NumConsecutiveInOut() == 1);
  CHECK(Ll({{"in", {{1}, {2}, {4}, {1}}}}, {"out"}).NumConsecutiveInOut() == 1);
  CHECK(Ll({{"in", {{1}, {2}, {4}, {2}}}}, {"out"}).NumConsecutiveInOut() == 2);
  CHECK(Ll({{"in", {{1}, {2}, {4}, {8}}}}, {"out"}).NumConsecutiveInOut() ==
        16);
  CHECK(
      Ll({{"in", {{1}, {4}}}, {"in2", {{2}}}}, {"out"}).NumConsecutiveInOut() ==
      2);
  CHECK(Ll({{"in", {{1}, {2}, {8}}}, {"in2", {{4}}}}, {"out"})
            .NumConsecutiveInOut() == 4);
  CHECK(Ll({{"in", {{1}, {2}, {16}}}, {"in2", {{4}, {8}}}}, {"out"})
            .NumConsecutiveInOut() == 4);
  CHECK(LinearLayout::Empty().NumConsecutiveInOut() == 1);
}

TEST_CASE("linear layout: sublayouts", "[hw][linear_layout]") {
  LinearLayout l1 = Ll({{"in1", {{1, 0}, {0, 1}, {2, 0}}}, {"in2", {{0, 1}}}},
                       {"out1", "out2"});
  CHECK(*l1.Sublayout({"in1", "in2"}, {"out1"}) ==
        Ll({{"in1", {{1}, {0}, {2}}}, {"in2", {{0}}}}, {"out1"}));
  CHECK(*l1.Sublayout({"in2", "in1"}, {"out1"}) ==
        Ll({{"in1", {{1}, {0}, {2}}}, {"in2", {{0}}}}, {"out1"}));
  CHECK(*l1.Sublayout({"in2", "in1"}, {"out2", "out1"}) == l1);
  CHECK(*l1.Sublayout({"in1"}, {"out1"}) ==
        Ll({{"in1", {{1}, {0}, {2}}}}, {"out1"}));
  CHECK(*l1.Sublayout({}, {}) == Ll({}, {}));
  CHECK(*l1.Sublayout({"in1"}, {}) == Ll({{"in1", {{}, {}, {}}}}, {}));
  CHECK(*l1.Sublayout({}, {"out1"}) == LlSized({}, {{"out1", 4}}));
}

TEST_CASE("linear layout: sublayout is zero / identity",
          "[hw][linear_layout]") {
  CHECK(!*Id1(4, "in", "out").SublayoutIsZero({"in"}, {"out"}));
  CHECK(*Zeros1(4, "in", "out").SublayoutIsZero({"in"}, {"out"}));
  LinearLayout l1 =
      Ll({{"in1", {{0, 1}, {0, 2}}}, {"in2", {{1, 1}}}}, {"out1", "out2"});
  CHECK(*l1.SublayoutIsZero({"in1"}, {"out1"}));
  CHECK(!*l1.SublayoutIsZero({"in1"}, {"out2"}));
  CHECK(!*l1.SublayoutIsZero({"in2"}, {"out1"}));
  CHECK(!*l1.SublayoutIsZero({"in2"}, {"out2"}));
  CHECK(*Id1(4, "in", "out").SublayoutIsIdentity({"in"}, {"out"}));
  CHECK(!*Zeros1(4, "in", "out").SublayoutIsIdentity({"in"}, {"out"}));
  CHECK(*l1.SublayoutIsIdentity({"in1"}, {"out2"}));
  CHECK(*l1.SublayoutIsIdentity({"in2"}, {"out1"}));
  CHECK(!*l1.SublayoutIsIdentity({"in1"}, {"out1"}));
  CHECK(*l1.SublayoutIsIdentity({}, {"out1"}));
}

TEST_CASE("linear layout: free variable masks", "[hw][linear_layout]") {
  CHECK(Id1(4, "in", "out").FreeVariableMasks() == DV{{"in", 0}});
  CHECK(Zeros1(16, "in", "out").FreeVariableMasks() == DV{{"in", 0b1111}});
  CHECK((Id1(2, "in", "out") * Zeros1(4, "in", "out") * Id1(4, "in", "out") *
         Zeros1(2, "in", "out"))
            .FreeVariableMasks() == DV{{"in", 0b100110}});
  CHECK((Id1(2, "in0", "out") * Zeros1(4, "in1", "out") * Id1(4, "in2", "out") *
         Zeros1(2, "in3", "out"))
            .FreeVariableMasks() ==
        DV{{"in0", 0}, {"in1", 0b11}, {"in2", 0}, {"in3", 1}});
  CHECK(Ll({{"in", {{1}, {2}, {1}}}}, {"out"}).FreeVariableMasks() ==
        DV{{"in", 0b100}});
  CHECK(Ll({{"in", {{1}, {2}, {3}}}}, {"out"}).FreeVariableMasks() ==
        DV{{"in", 0b100}});
  CHECK(Ll({{"in1", {{1}, {2}}}, {"in2", {{3}, {4}}}}, {"out"})
            .FreeVariableMasks() == DV{{"in1", 0}, {"in2", 0b1}});
}

TEST_CASE("linear layout: injective and surjective", "[hw][linear_layout]") {
  CHECK(Id1(8, "in", "out").IsInjective());
  CHECK(Id1(8, "in", "out").IsSurjective());
  CHECK(!Zeros1(8, "in", "out").IsInjective());
  CHECK(Zeros1(8, "in", "out").IsSurjective());  // onto a size-1 output
  LinearLayout dup = Ll({{"in", {{1}, {2}, {1}}}}, {"out"});
  CHECK(!dup.IsInjective());
  CHECK(dup.IsSurjective());
  CHECK(!dup.IsInvertible());
  CHECK(dup.Rank() == 2);
}

TEST_CASE("linear layout: divide left", "[hw][linear_layout]") {
  SECTION("basic") {
    auto q = DivideLeft(Id1(8, "in", "out"), Id1(4, "in", "out"));
    REQUIRE(q);
    CHECK(*q == Id1(2, "in", "out"));
    CHECK(Id1(4, "in", "out") * *q == Id1(8, "in", "out"));
  }
  SECTION("zeros") {
    auto q = DivideLeft(Zeros1(8, "in", "out"), Zeros1(4, "in", "out"));
    REQUIRE(q);
    CHECK(*q == Zeros1(2, "in", "out"));
  }
  SECTION("trivial divisor") {
    LinearLayout a = Id1(8, "in", "out") * Id1(4, "in2", "out2");
    auto q = DivideLeft(a, Id1(1, "in", "out"));
    REQUIRE(q);
    CHECK(*q == a);
    auto e = DivideLeft(a, LinearLayout::Empty());
    REQUIRE(e);
    CHECK(*e == a);
  }
  SECTION("a whole dim") {
    LinearLayout a = Id1(4, "in1", "out1") * Id1(8, "in2", "out2");
    auto q = DivideLeft(a, Id1(4, "in1", "out1"));
    REQUIRE(q);
    CHECK(*q == LlSized({{"in1", {}}, {"in2", {{0, 1}, {0, 2}, {0, 4}}}},
                        {{"out1", 1}, {"out2", 8}}, true));
    CHECK(Id1(4, "in1", "out1") * *q == a);
  }
  SECTION("2D") {
    LinearLayout a = Id1(4, "in", "out1") * Id1(4, "in", "out2") *
                     Id1(2, "in", "out1") * Zeros1(2, "in", "out2");
    LinearLayout b = Id1(4, "in", "out1") * Id1(4, "in", "out2");
    auto q = DivideLeft(a, b);
    REQUIRE(q);
    CHECK(*q == LlSized({{"in", {{1, 0}, {0, 0}}}}, {{"out1", 2}, {"out2", 1}},
                        true));
    CHECK(b * *q == a);
  }
  SECTION("not divisible") {
    CHECK(!DivideLeft(Id1(8, "in", "out"), Zeros1(2, "in", "out")));
    CHECK(!DivideLeft(Id1(4, "in", "out"), Id1(8, "in", "out")));
    CHECK(!DivideLeft(Ll({{"in", {{2}, {1}}}}, {"out"}), Id1(2, "in", "out")));
    CHECK(!DivideLeft(Id1(4, "in", "out"), Id1(2, "x", "out")));
  }
  SECTION("swizzled quotient") {
    LinearLayout b = Id1(4, "in", "out");
    LinearLayout c = Ll({{"in", {{1}, {3}}}}, {"out"});
    auto q = DivideLeft(b * c, b);
    REQUIRE(q);
    CHECK(*q == c);
  }
}

TEST_CASE("linear layout: divide right", "[hw][linear_layout]") {
  CHECK(*DivideRight(Id1(8, "in", "out"), Id1(4, "in", "out")) ==
        Id1(2, "in", "out"));
  CHECK(*DivideRight(Id1(8, "in", "out"), Id1(8, "in", "out")) ==
        Ll({{"in", {}}}, {"out"}));
  CHECK(*DivideLeft(Id1(8, "in", "out"), Id1(8, "in", "out")) ==
        Ll({{"in", {}}}, {"out"}));
  auto q = DivideRight(Id1(8, "in", "out"), Id1(2, "in", "out"));
  REQUIRE(q);
  CHECK(*q == Id1(4, "in", "out"));
  LinearLayout c = Ll({{"in", {{2}, {1}}}}, {"out"});
  LinearLayout b = Zeros1(2, "in", "out") * Id1(2, "warp", "out");
  auto q2 = DivideRight(c * b, b);
  REQUIRE(q2);
  CHECK(*q2 == LlSized({{"in", {{2}, {1}}}, {"warp", {}}}, {{"out", 4}}, true));
  CHECK(!DivideRight(Ll({{"in", {{2}, {1}}}}, {"out"}), Id1(2, "in", "out")));
}

TEST_CASE("linear layout: concat, resize, zero bases", "[hw][linear_layout]") {
  LinearLayout a = Id1(4, "in1", "out");
  LinearLayout b = Ll({{"in2", {{2}, {1}}}}, {"out"});
  CHECK(*a.ConcatIns(b) ==
        LlSized({{"in1", {{1}, {2}}}, {"in2", {{2}, {1}}}}, {{"out", 4}}));
  CHECK(!a.ConcatIns(Id1(8, "in2", "out")).ok());
  LinearLayout c = Ll({{"in1", {{2}, {1}}}}, {"out2"});
  CHECK(*a.ConcatOuts(c) ==
        LlSized({{"in1", {{1, 2}, {2, 1}}}}, {{"out", 4}, {"out2", 4}}));
  CHECK(*a.ResizeInDim("in1", 16) ==
        LlSized({{"in1", {{1}, {2}, {0}, {0}}}}, {{"out", 4}}));
  CHECK(*a.ResizeOutDim("out", 16) ==
        LlSized({{"in1", {{1}, {2}}}}, {{"out", 16}}));
  CHECK(!a.ResizeOutDim("out", 2).ok());
  CHECK(*Ll({{"in", {{0}, {1}, {0}, {2}}}}, {"out"})
             .RemoveZeroBasesAlongDim("in") == Id1(4, "in", "out"));
  CHECK(!a.RemoveZeroBasesAlongDim("x").ok());
}

TEST_CASE("linear layout: column actions", "[hw][linear_layout]") {
  LinearLayout l =
      Ll({{"register", {{1, 0}, {2, 0}, {0, 1}}}, {"lane", {{0, 2}, {4, 0}}}},
         {"dim0", "dim1"});
  CHECK(*l.ApplyColumnAction("register", {2, 0, 1}) ==
        Ll({{"register", {{0, 1}, {1, 0}, {2, 0}}}, {"lane", {{0, 2}, {4, 0}}}},
           {"dim0", "dim1"}));
  CHECK(*l.ApplyColumnAction("lane", {1}) ==
        LlSized({{"register", {{1, 0}, {2, 0}, {0, 1}}}, {"lane", {{4, 0}}}},
                {{"dim0", 8}, {"dim1", 4}}));
  CHECK(*l.ApplyColumnAction("register", {0, 1, 2}) == l);
  CHECK(!l.ApplyColumnAction("register", {0, 0}).ok());
  CHECK(!l.ApplyColumnAction("register", {3}).ok());
  CHECK(!l.ApplyColumnAction("block", {}).ok());
}

TEST_CASE("linear layout: quotient", "[hw][linear_layout]") {
  LinearLayout l = Id1(4, "register", "dim0") * Id1(2, "block", "block");
  CHECK(l.IsTrivialOver({"block"}));
  auto q = l.Quotient({"block"});
  REQUIRE(q);
  CHECK(*q == Id1(4, "register", "dim0"));
  LinearLayout mixed = Ll({{"register", {{1, 0}, {0, 1}}}, {"block", {{0, 1}}}},
                          {"dim0", "block"});
  CHECK(!mixed.IsTrivialOver({"block"}));
  CHECK(!mixed.Quotient({"block"}));
  SECTION("one dimension") {
    LinearLayout one = LlSized({{"dim1", {{1, 0}}}, {"dim2", {{0, 0}}}},
                               {{"dim1", 2}, {"dim2", 1}});
    auto q1 = one.Quotient({"dim1"});
    REQUIRE(q1);
    CHECK(*q1 == Zeros1(2, "dim2", "dim2"));
    CHECK(!q1->Quotient({"dim2"}));  // dim2 is zero, not the identity
  }
  SECTION("several dimensions") {
    LinearLayout two =
        Ll({{"dim1", {{1, 0}, {2, 0}}}, {"dim2", {{0, 1}, {0, 2}}}},
           {"dim1", "dim2"});
    CHECK(two.Quotient({"dim1", "dim2"}));
  }
  SECTION("multiple trivial dimensions") {
    LinearLayout three = Ll({{"dim1", {{1, 0, 2}, {2, 0, 1}}},
                             {"dim2", {{0, 1, 0}, {0, 2, 0}}},
                             {"dim3", {{0, 0, 1}, {0, 0, 2}}}},
                            {"dim1", "dim2", "dim3"});
    CHECK(three.Quotient({"dim2"}));
    LinearLayout tangled = Ll({{"dim1", {{1, 0, 2}, {2, 0, 1}}},
                               {"dim2", {{0, 1, 0}, {0, 2, 0}}},
                               {"dim3", {{0, 1, 1}, {0, 0, 2}}}},
                              {"dim1", "dim2", "dim3"});
    CHECK(!tangled.Quotient({"dim2"}));
  }
  SECTION("empty layout") { CHECK(!LinearLayout::Empty().Quotient({"dim1"})); }
  SECTION("identity over several dimensions") {
    LinearLayout id = Id1(8, "dim1", "dim1") * Id1(2, "dim2", "dim2") *
                      Id1(4, "dim3", "dim3");
    auto q13 = id.Quotient({"dim1", "dim3"});
    REQUIRE(q13);
    CHECK(q13->Quotient({"dim2"}));
  }
}

TEST_CASE("linear layout: Triton's toString", "[hw][linear_layout]") {
  CHECK(TritonString(LinearLayout::Empty()) == "\n(empty layout)");
  CHECK(TritonString(LlSized({}, {{"out", 4}})) ==
        "\n(empty layout with out-dims [out (size 4)])");
  CHECK(TritonString(Id1(4, "in", "out")) ==
        "\n - in=1 -> (1)\n   in=2 -> (2)\nwhere out dims are: [out (size "
        "4)]");
  CHECK(TritonString(LlSized({{"lane", {{1, 1}, {2, 2}}}, {"block", {}}},
                             {{"dim0", 4}, {"dim1", 4}})) ==
        "\n - lane=1 -> (1, 1)\n   lane=2 -> (2, 2)\n - block is a size 1 "
        "dimension\nwhere out dims are: [dim0 (size 4), dim1 (size 4)]");
}

TEST_CASE("linear layout: equality checks out dim sizes",
          "[hw][linear_layout]") {
  LinearLayout a = LlSized({{"in", {{1}}}}, {{"out", 2}});
  LinearLayout b = LlSized({{"in", {{1}}}}, {{"out", 4}});
  CHECK(a != b);
  CHECK(a.EqualIgnoringOutDimSizes(b));
  CHECK(Ll({{"in1", {}}, {"in2", {}}}, {}) !=
        Ll({{"in2", {}}, {"in1", {}}}, {}));
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
