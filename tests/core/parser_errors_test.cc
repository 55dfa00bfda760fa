// Bad inputs for the map parser: each gets the right error code (with line
// and column for parse errors) and nothing crashes.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

struct BadInput {
  std::string text;
  ErrorCode code;
  int line = 0;    // 0: not checked
  int column = 0;  // 0: not checked
};

std::string Repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * n);
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<BadInput> BadInputs() {
  const ErrorCode P = ErrorCode::kParseError;
  const ErrorCode I = ErrorCode::kInvalidArgument;
  std::vector<BadInput> v = {
      // Empty and blank input.
      {"", P, 1, 1},
      {"   \n\t ", P, 2, 3},
      // Unbalanced parentheses and brackets.
      {"(d0", P, 1, 4},
      {"(d0) -> (d0", P, 1, 12},
      {"(d0) -> ((d0)", P, 1, 14},
      {"(d0) -> (d0))", P, 1, 13},
      {"(d0) -> d0", P, 1, 9},
      {"(d0)[s0 -> (d0)", P},
      {"(d0){rt0 -> (d0)", P},
      {"(d0) -> (d0), domain: d0 in [0, 9", P},
      {"(d0) -> (d0), domain: d0 in 0, 9]", P},
      // Unknown and duplicate variables.
      {"(d0) -> (d1)", P, 1, 10},
      {"(d0)[s0] -> (s1)", P, 1, 14},
      {"(d0) -> (2d1)", P, 1, 11},
      {"(d0) -> (d0)\n, domain:\n d0 in [0, 9],\n d1 in [0, 3]", P, 4, 2},
      {"(d0, d0) -> (d0)", I},
      {"(d0)[d0] -> (d0)", I},
      {"(d0)[s0]{s0} -> (d0)", I},
      // Keywords as names, bad names.
      {"(domain) -> (domain)", P},
      {"(d0, mod) -> (d0)", P},
      {"(1) -> (1)", P, 1, 2},
      {"(d0,) -> (d0)", P, 1, 5},
      {"(, d0) -> (d0)", P, 1, 2},
      // Zero divisors.
      {"(d0) -> (d0 floordiv 0)", I},
      {"(d0) -> (d0 mod 0)", I},
      {"(d0) -> (d0 ceildiv 0)", I},
      {"(d0) -> (d0 / 0)", I},
      {"(d0) -> (d0 % 0)", I},
      {"(d0) -> (d0 floordiv (3 - 3))", I},
      {"(d0) -> (d0), domain: d0 in [0, 9], d0 mod 0 in [0, 0]", I},
      // Constants past int64.
      {"(d0) -> (d0 * 99999999999999999999)", P, 1, 15},
      {"(d0) -> (9223372036854775808)", P, 1, 10},
      {"(d0) -> (-9223372036854775809)", P},
      {"(d0) -> (d0), domain: d0 in [0, 9223372036854775808]", P},
      {"(d0) -> (d0), domain: d0 in [-9223372036854775809, 0]", P},
      // Malformed operators and lists.
      {"(d0) -> (d0 +)", P, 1, 14},
      {"(d0) -> (* d0)", P, 1, 10},
      {"(d0) -> (d0 floordiv)", P},
      {"(d0) -> (d0 mod mod)", P},
      {"(d0) -> (d0 d0)", P, 1, 13},
      {"(d0) (d0)", P, 1, 6},
      {"(d0) - > (d0)", P},
      {"(d0) -> (d0 in [0, 1])", P},
      // Malformed domains.
      {"(d0) -> (d0), domain: d0 in [0 9]", P},
      {"(d0) -> (d0), domain: d0 [0, 9]", P},
      {"(d0) -> (d0), domain d0 in [0, 9]", P},
      {"(d0) -> (d0), d0 in [0, 9]", P},
      {"(d0) -> (d0), domain:", P},
      {"(d0) -> (d0), domain: d0 in [0, 9],", P},
      {"(d0) -> (d0), domain: d0 in [a, 9]", P},
      {"(d0) -> (d0), domain: d0 in [--1, 9]", P},
      {"(d0) -> (d0), domain: d0 in [0, 9], is_simplified: maybe", P},
      {"(d0) -> (d0), domain: KNOWN", P},
      // KNOWN EMPTY variants.
      {"KNOWN", P},
      {"KNOWN EMPTY garbage", P},
      {"KNOWN  FULL", P},
      // Binary garbage and control bytes.
      {std::string("\x01\x02\xff\xfe", 4), P, 1, 1},
      {std::string("(d0) -> (d0 \xff)", 14), P, 1, 13},
      {std::string("(d0) -> (d0\0)", 13), P, 1, 12},
      {"(d0) -> (d0)\x1b[31m", P},
      // Deep nesting: refused, not a stack overflow.
      {Repeat("(", 100000) + "d0" + Repeat(")", 100000), P},
      {"(d0) -> (" + Repeat("(", 100000) + "d0" + Repeat(")", 100000) + ")", P},
      {"(d0) -> (" + Repeat("-", 100000) + "d0)", P},
      {"(d0) -> (" + Repeat("-(", 50000) + "d0" + Repeat(")", 50000) + ")", P},
      // A long line of garbage.
      {"(d0) -> (" + Repeat("d0 ", 1 << 18) + ")", P},
  };
  return v;
}

TEST_CASE("bad parser inputs get the right error", "[parser][errors]") {
  std::vector<BadInput> inputs = BadInputs();
  REQUIRE(inputs.size() >= 40);
  for (const BadInput& bad : inputs) {
    INFO("input: " << (bad.text.size() > 200 ? bad.text.substr(0, 200) + "..."
                                             : bad.text));
    ExprContext ctx;
    auto m = ParseIndexingMap(bad.text, &ctx);
    REQUIRE_FALSE(m.ok());
    INFO("error: " << m.error().ToString());
    CHECK(m.error().code == bad.code);
    CHECK_FALSE(m.error().message.empty());
    if (bad.code == ErrorCode::kParseError) {
      CHECK(m.error().line >= 1);
      CHECK(m.error().column >= 1);
    }
    if (bad.line > 0) {
      CHECK(m.error().line == bad.line);
      CHECK(m.error().column == bad.column);
    }
  }
}

TEST_CASE("parse errors say what was expected", "[parser][errors]") {
  ExprContext ctx;
  auto m = ParseIndexingMap("(d0) -> (d1)", &ctx);
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(m.error().message, Catch::Contains("d1"));
  m = ParseIndexingMap("(d0, d1) -> (d0", &ctx);
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(m.error().message, Catch::Contains("')'"));
}

TEST_CASE("ParseExpr errors", "[parser][errors]") {
  ExprContext ctx;
  const std::vector<std::string> dims = {"d0", "d1"}, syms = {"s0"};
  CHECK(ParseExpr("d0 + s0 * 2", &ctx, dims, syms).ok());
  CHECK(ParseExpr("16d0 + d1", &ctx, dims, syms).ok());
  for (const char* bad : {"", "d2", "s1", "d0 +", "(d0", "d0)", "d0 d1",
                          "d0 in [0, 1]", "d0 floordiv"}) {
    INFO(bad);
    auto e = ParseExpr(bad, &ctx, dims, syms);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().code == ErrorCode::kParseError);
  }
  auto z = ParseExpr("d0 mod 0", &ctx, dims, syms);
  REQUIRE_FALSE(z.ok());
  CHECK(z.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("valid inputs near the error cases", "[parser]") {
  ExprContext ctx;
  for (const char* ok : {
           "(d0) -> (d0), domain: d0 in [10, 0]",  // empty, not an error
           "(d0) -> (d0 * 0)",                     // multiplying by 0 is fine
           "(d0) -> (0 floordiv (d0 + 1))",
           "(d0) -> (-9223372036854775808)",
           "(d0) -> (d0), domain: d0 in [-9223372036854775808, 0]",
           "(d0) -> (d0 - -5)",
           "  (d0)   ->   ( d0 )  ",
           "(d0) -> (d0),\r\ndomain:\r\nd0 in [0, 9]",
           "(_x) -> (_x)",
       }) {
    INFO(ok);
    auto m = ParseIndexingMap(ok, &ctx);
    CHECK(m.ok());
    if (!m.ok()) WARN(m.error().ToString());
  }
}

TEST_CASE("random byte strings never crash the parser", "[parser][random]") {
  std::mt19937_64 rng(5);
  const std::string alphabet =
      "()[]{},:-+*/% \n0123456789dsrt_xinmodflorcelKNOWEMPTY";
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s;
    int len = static_cast<int>(rng() % 40);
    for (int i = 0; i < len; ++i) {
      s += (rng() % 8 == 0) ? static_cast<char>(rng() % 256)
                            : alphabet[rng() % alphabet.size()];
    }
    if (rng() % 2) s = "(d0, d1)[s0] -> (" + s;
    ExprContext ctx;
    auto m = ParseIndexingMap(s, &ctx);
    if (m.ok()) {
      // Whatever parses must round-trip.
      if (m->IsKnownEmpty()) continue;
      std::string printed = PrintIndexingMap(*m);
      auto again = ParseIndexingMap(printed, &ctx);
      INFO(s << " -> " << printed);
      REQUIRE(again.ok());
      CHECK(*again == *m);
    } else {
      CHECK((m.error().code == ErrorCode::kParseError ||
             m.error().code == ErrorCode::kInvalidArgument));
    }
  }
}

// Long flat chains build trees as deep as the input is long. Parsing may
// refuse them, but whatever it accepts must print and evaluate without
// exhausting the stack (the parser caps tree depth).
TEST_CASE("very deep operator chains", "[deep]") {
  for (const std::string op : {" * 2", " floordiv 2", " + d0", " mod 7"}) {
    std::string text = "(d0) -> (d0" + Repeat(op, 200000) + ")";
    INFO("chain of" << op);
    ExprContext ctx;
    auto m = ParseIndexingMap(text, &ctx);
    if (!m.ok()) {
      CHECK(m.error().code == ErrorCode::kParseError);
      continue;
    }
    CHECK(PrintIndexingMap(*m).size() > 0);
    std::vector<int64_t> d = {1}, none;
    (void)m->Evaluate(d, none);
    (void)m->ConvertSymbolsToDims();
  }
}

// A 5 MB name in a bad map: the message quotes its first characters and
// says how long it was, not the whole name.
TEST_CASE("parse errors quote at most kMaxQuotedChars of the text",
          "[parser][errors]") {
  ExprContext ctx;
  const std::string name(5'000'000, 'a');
  for (const std::string& text :
       {"(d0) -> (" + name + ")", "(d0) -> (d0 + " + name + " * 2)",
        "(d0) -> (d0), domain: " + name + " in [0, 3]"}) {
    auto map = ParseIndexingMap(text, &ctx);
    REQUIRE(!map.ok());
    INFO(map.error().message.substr(0, 300));
    CHECK(map.error().message.size() < 200);
    CHECK(map.error().message.find("(5000000 bytes)") != std::string::npos);
  }
}

TEST_CASE("QuoteForMessage and ClipMessage cut long text", "[parser][errors]") {
  CHECK(QuoteForMessage("abc") == "'abc'");
  const std::string long_text(100, 'x');
  const std::string quoted = QuoteForMessage(long_text);
  CHECK(quoted == "'" + std::string(77, 'x') + "...' (100 bytes)");
  // A cut never splits a UTF-8 character: "é" is two bytes.
  std::string accents;
  for (int i = 0; i < 60; ++i) accents += "\xc3\xa9";
  const std::string cut = QuoteForMessage(accents);
  CHECK(cut.substr(1, cut.find("...") - 1).size() % 2 == 0);
  // A run without spaces longer than the limit keeps its closing quote.
  const std::string message = "unknown op '" + long_text + "'; try again";
  const std::string clipped = ClipMessage(message);
  CHECK(clipped.size() < 120);
  CHECK(clipped.find("...'; try again") != std::string::npos);
  CHECK(ClipMessage("short message") == "short message");
  CHECK(ClipMessage(std::string(10000, ' ')).size() <= kMaxMessageBytes);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
