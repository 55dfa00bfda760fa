// Every shape ixa prints is XLA's text and reads back as itself: shapes of
// every element type and layout kind printed by ixa, and every shape with
// a layout in the docs, the README and the CLI's expected answers (the
// emit harness checks the buffers and the printed fusion of every emit
// test fusion the same way: emit_harness.cc).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/hlo/shape.h"
#include "tests/emit/xla_shape_text.h"

#ifndef IXA_SOURCE_DIR
#define IXA_SOURCE_DIR "."
#endif

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("XLA's shape grammar, checked on its own", "[shape_text]") {
  for (const char* good :
       {"f32[3,5]", "f32[3,5]{1,0}", "f32[]", "f32[]{}", "s4[64,64]{1,0:E(4)}",
        "s4[64,64]{1,0:T(8,128)E(4)}", "bf16[4,8]{1,0:T(2,4)(2,1)}",
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
        "s4[8,32768,1,256]{3,1,0,2:T(64,128)(8,1)E(4)S(1)}", "f32[<=4,?]{1,0}",
        "(f32[3]{0}, s4[2]{0:E(4)})", "()", "f32[5]{0:L(8)}"}) {
    INFO(good);
    CHECK(XlaShapeGrammarError(good) == "");
  }
  for (const char* bad : {"s4[64,64]{1,0E(4)}", "s2[1001]{0E(2)}", "f32[3]{0:}",
                          "f32[3,5]{0}", "f32[3]{0:E(4)T(2)}", "F32[3]",
                          "f32[3]{0:T()}", "f32[3,5]{1,0", "(f32[3]{0E(4)})"}) {
    INFO(bad);
    CHECK(XlaShapeGrammarError(bad) != "");
  }
  CHECK(ShapesWithLayoutIn("x = s4[64,64]{1,0:E(4)} p, \"f32[2]{0}\", d0[3]{x}")
            .size() == 2);
}

TEST_CASE("every shape ixa prints reads back as itself", "[shape_text]") {
  const char* kTypes[] = {
      "pred",   "s1",        "u1",       "s2",      "u2",   "s4",
      "u4",     "s8",        "u16",      "s32",     "u64",  "f16",
      "bf16",   "f32",       "f64",      "c64",     "c128", "f8e4m3fn",
      "f8e5m2", "f8e8m0fnu", "f4e2m1fn", "f6e2m3fn"};
  const char* kLayouts[] = {"",
                            "{1,0}",
                            "{0,1}",
                            "{1,0:T(8,128)}",
                            "{1,0:T(8,128)(2,1)}",
                            "{1,0:E(4)}",
                            "{0,1:E(2)}",
                            "{1,0:T(8,128)(2,1)E(4)}",
                            "{1,0:T(*,2)}",
                            "{1,0:E(1)}",
                            "{1,0:E(8)}"};
  int checked = 0;
  for (const char* type : kTypes) {
    for (const char* layout : kLayouts) {
      for (const char* dims : {"[64,64]", "[<=3,5]"}) {
        const std::string text = std::string(type) + dims + layout;
        auto shape = hlo::ParseShape(text);
        INFO(text);
        REQUIRE(shape.ok());
        const std::string printed = shape->ToString(/*with_layout=*/true);
        CHECK(printed == text);
        CHECK(ShapeRoundTripError(printed) == "");
        ++checked;
      }
    }
  }
  // Built, not read: a packed shape with no tiles, and a tuple of them.
  hlo::Shape s = hlo::Shape::Array(hlo::ElementType::kS4, {64, 64});
  s.layout = hlo::Layout{{1, 0}, {}, 4};
  CHECK(s.ToString(true) == "s4[64,64]{1,0:E(4)}");
  hlo::Shape t;
  t.type = hlo::ElementType::kTuple;
  t.tuple_elements = {s, hlo::Shape::Array(hlo::ElementType::kF32, {2})};
  CHECK(ShapeRoundTripError(t.ToString(true)) == "");
  CHECK(checked > 400);
}

TEST_CASE("every shape in the docs and the CLI's answers is XLA's text",
          "[shape_text]") {
  namespace fs = std::filesystem;
  const fs::path root = IXA_SOURCE_DIR;
  std::vector<fs::path> files = {root / "README.md"};
  for (const char* dir : {"docs", "tests/cli"}) {
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".md" || ext == ".jsonl") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  int shapes = 0;
  for (const fs::path& file : files) {
    for (const std::string& shape : ShapesWithLayoutIn(ReadFile(file))) {
      INFO(file.string() << ": " << shape);
      CHECK(ShapeRoundTripError(shape) == "");
      ++shapes;
    }
  }
  // The files do hold shapes (the scan found them).
  CHECK(shapes > 50);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
