// Regression tests of issue 12 (reliability) for the analysis: inputs the
// libFuzzer targets (tests/fuzz) found, each held exactly.
#include <memory>
#include <string>
#include <vector>

#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace {

// Parses text held in a buffer of exactly its size (no NUL after it), the
// way the fuzzer passes its input, so that ASan sees any read past the end.
Result<std::unique_ptr<hlo::Module>> ParseExact(const std::string& text) {
  auto buffer = std::make_unique<char[]>(text.size());
  std::copy(text.begin(), text.end(), buffer.get());
  return hlo::ParseHloModule(std::string_view(buffer.get(), text.size()));
}

// fuzz_hlo: a module ending right after `parameter(` read one byte past the
// end of the text (Cursor::ExpectInt looked for a '+' at the end).
TEST_CASE("HLO text that ends where an integer is expected",
          "[reliability][hlo]") {
  const std::string text = "HloModule m\nENTRY e {\n p0 = f32[8] parameter(";
  auto m = ParseExact(text);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::kParseError);
  CHECK(m.error().line == 3);
  // Every prefix of a well-formed module, each in an exact buffer.
  const std::string module =
      "HloModule m\nENTRY e {\n p0 = f32[8] parameter(0)\n"
      " ROOT s = f32[4] slice(p0), slice={[+1:+5:+1]}\n}";
  for (size_t n = 0; n <= module.size(); ++n) {
    auto r = ParseExact(module.substr(0, n));
    if (!r.ok()) CHECK(r.error().code == ErrorCode::kParseError);
  }
}

}  // namespace
}  // namespace ixa::testing
