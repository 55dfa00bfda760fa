// SVG drawings: well-formed XML, and the numbers they show are the layout's.
// The hidden "[.figures]" case regenerates docs/figures/ (run
// `test_hw "[.figures]"`).
#include "hw/svg.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

namespace ixa::hw {
namespace IXA_UNITY_ID {

// A small XML well-formedness check: every tag closes in order, attribute
// values are quoted, and only known entities appear.
bool WellFormed(const std::string& xml, std::string* why) {
  std::vector<std::string> stack;
  size_t i = 0;
  if (xml.rfind("<?xml", 0) == 0) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    size_t lt = xml.find('<', i);
    std::string text =
        xml.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    for (size_t a = text.find('&'); a != std::string::npos;
         a = text.find('&', a + 1)) {
      if (text.compare(a, 4, "&lt;") && text.compare(a, 4, "&gt;") &&
          text.compare(a, 5, "&amp;") && text.compare(a, 6, "&quot;")) {
        *why = "bare '&'";
        return false;
      }
    }
    if (lt == std::string::npos) break;
    size_t gt = xml.find('>', lt);
    if (gt == std::string::npos) {
      *why = "unterminated tag";
      return false;
    }
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) {
      *why = "unbalanced quotes in <" + tag + ">";
      return false;
    }
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) {
        *why = "mismatched </" + tag.substr(1) + ">";
        return false;
      }
      stack.pop_back();
    } else if (tag.back() != '/') {
      stack.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    i = gt + 1;
  }
  if (!stack.empty()) *why = "unclosed <" + stack.back() + ">";
  return stack.empty();
}

// data-index -> the cell's label.
std::map<std::string, std::string> Cells(const std::string& svg) {
  std::map<std::string, std::string> out;
  const std::string key = "class=\"cell\" data-index=\"";
  for (size_t p = svg.find(key); p != std::string::npos;
       p = svg.find(key, p + 1)) {
    size_t s = p + key.size();
    std::string index = svg.substr(s, svg.find('"', s) - s);
    size_t end = svg.find("</g>", s);
    size_t t = svg.find("<text", s);
    std::string label;
    if (t != std::string::npos && t < end) {
      size_t open = svg.find('>', t) + 1;
      label = svg.substr(open, svg.find("</text>", open) - open);
    }
    out[index] = label;
  }
  return out;
}

XlaShape Shape(const char* text) {
  auto s = ParseXlaShape(text);
  REQUIRE(s.ok());
  return *s;
}

NestedLayout Seed() {
  auto l = MakeNestedLayout({2, 1}, {2, 4}, {1, 1}, {16, 4}, {1, 4}, {1, 0},
                            {1, 16});
  REQUIRE(l.ok());
  return *l;
}

TEST_CASE("svg: tiled layout shows offsets and padding", "[hw][svg]") {
  std::string svg = DrawTiledLayoutSvg(Shape("f32[3,5]{1,0:T(2,2)}"));
  std::string why;
  INFO(why);
  REQUIRE(WellFormed(svg, &why));
  auto cells = Cells(svg);
  CHECK(cells.at("2,3") == "17");
  CHECK(cells.at("0,4") == "8");
  CHECK(cells.at("1,1") == "3");
  // Buffer slots: real slots name their logical index, padding is hatched.
  CHECK(cells.at("m17") == "2,3");
  for (const char* pad :
       {"m9", "m11", "m14", "m15", "m18", "m19", "m21", "m22", "m23"}) {
    CHECK(cells.at(pad).empty());
  }
  CHECK(svg.find("url(#pad)") != std::string::npos);
  std::string fig2 = DrawTiledLayoutSvg(Shape("bf16[4,8]{1,0:T(2,4)(2,1)}"));
  REQUIRE(WellFormed(fig2, &why));
  CHECK(Cells(fig2).at("1,5") == "11");
  CHECK(fig2.find("#d62728") != std::string::npos);  // red 2x1 boxes
  std::string title =
      DrawTiledLayoutSvg(Shape("f32[2]"), SvgOptions{0, false, "a<b & c"});
  REQUIRE(WellFormed(title, &why));
  CHECK(title.find("a&lt;b &amp; c") != std::string::npos);
  std::string bad = DrawTiledLayoutSvg(
      XlaShape{*FindDType("f32"), {3}, XlaLayout{{0, 1}, {}, 1, "", "", 0, 0}});
  REQUIRE(WellFormed(bad, &why));
  CHECK(bad.find("error") != std::string::npos);
}

TEST_CASE("svg: nested layout shows owning lanes", "[hw][svg]") {
  NestedLayout l = Seed();
  std::string svg = DrawNestedLayoutSvg(l);
  std::string why;
  INFO(why);
  REQUIRE(WellFormed(svg, &why));
  auto cells = Cells(svg);
  CHECK(cells.size() == 64 * 64);
  CHECK(cells.at("40,13") == "56");
  CHECK(cells.at("33,4") == "17");
  std::string four = DrawNestedLayoutSvg(l, NestedIds{0, 4});
  CHECK(Cells(four).at("40,13") == "56+1");  // held by subgroups 1 and 3
  auto gap =
      MakeNestedLayout({1, 1}, {1, 1}, {1, 1}, {4, 8}, {1, 1}, {0, 0}, {1, 16});
  REQUIRE(gap.ok());
  std::string holes = DrawNestedLayoutSvg(*gap, NestedIds{64, 0});
  REQUIRE(WellFormed(holes, &why));
  CHECK(Cells(holes).at("2,5").empty());  // nobody holds it
  CHECK(Cells(holes).at("2,1") == "18+3");
}

TEST_CASE("svg: write docs/figures", "[.figures]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(__FILE__).parent_path().parent_path().parent_path() /
                 "docs" / "figures";
  fs::create_directories(dir);
  auto write = [&](const char* name, const std::string& svg) {
    std::ofstream(dir / name) << svg;
  };
  write("tiled-layout-figure1.svg",
        DrawTiledLayoutSvg(Shape("f32[3,5]{1,0:T(2,2)}")));
  write("tiled-layout-figure2.svg",
        DrawTiledLayoutSvg(Shape("bf16[4,8]{1,0:T(2,4)(2,1)}")));
  write(
      "nested-layout-iree-seed.svg",
      DrawNestedLayoutSvg(Seed(), {},
                          SvgOptions{0, true,
                                     "vector<64x64xf16>: subgroup [2,1] batch "
                                     "[2,4] outer [1,1] thread [16,4] "
                                     "element [1,4], strides [1,0] / [1,16]"}));
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
