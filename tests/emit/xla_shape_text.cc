#include "tests/emit/xla_shape_text.h"

#include <cctype>
#include <regex>

#include "analysis/hlo/shape.h"

namespace ixa::emit_test {
namespace {

// XLA's element type names (primitive_util's lower-case names).
const char* const kXlaTypeNames =
    "pred|s1|s2|s4|s8|s16|s32|s64|u1|u2|u4|u8|u16|u32|u64|f16|bf16|f32|f64|"
    "c64|c128|f4e2m1fn|f6e2m3fn|f6e3m2fn|f8e3m4|f8e4m3|f8e4m3fn|f8e4m3fnuz|"
    "f8e4m3b11fnuz|f8e5m2|f8e5m2fnuz|f8e8m0fnu|token|opaque";

const std::regex& ArrayGrammar() {
  static const std::regex grammar = [] {
    const std::string dim = R"re((?:\d+|<=\d+|\?))re";
    const std::string tile = R"re(\((?:\d+|\*)(?:,(?:\d+|\*))*\))re";
    const std::string attrs = R"re((?:D\([^()]*\))?)re"  // dim level types
                              R"re((?:T(?:)re" +
                              tile +
                              R"re()+)?)re"           // tiles
                              R"re((?:L\(\d+\))?)re"  // tail padding alignment
                              R"re((?:#\([a-z0-9]+\))?)re"   // index type
                              R"re((?:\*\([a-z0-9]+\))?)re"  // pointer type
                              R"re((?:E\(\d+\))?)re"  // element size in bits
                              R"re((?:S\(\d+\))?)re"  // memory space
                              R"re((?:(?:SC\([^()]*\))+)?)re"  // split configs
                              R"re((?:P\([^{}]*\))?)re"        // physical shape
                              R"re((?:M\(\d+\))?)re";  // dynamic shape metadata
    // The attributes after ':' are not empty.
    const std::string layout =
        R"re(\{(?:\d+(?:,\d+)*)?(?::(?=[A-Z#*]))re" + attrs + R"re()?\})re";
    return std::regex("(?:" + std::string(kXlaTypeNames) + R"re()\[(?:)re" +
                      dim + "(?:," + dim + R"re()*)?\](?:)re" + layout + ")?");
  }();
  return grammar;
}

// The top-level elements of a tuple's text (between its parentheses).
std::vector<std::string_view> TupleElements(std::string_view inner) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < inner.size(); ++i) {
    const char c = inner[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(inner.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(inner.substr(start));
  return out;
}

int CountCommasBetween(std::string_view text, char open, char close) {
  const size_t a = text.find(open), b = text.find(close);
  if (a == std::string_view::npos || b == std::string_view::npos) return -1;
  std::string_view inner = text.substr(a + 1, b - a - 1);
  if (inner.empty()) return 0;
  int n = 1;
  for (char c : inner) n += c == ',';
  return n;
}

bool OnlyAttributesIxaKeeps(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return true;
  for (char c : text.substr(colon + 1)) {
    if (std::isupper(static_cast<unsigned char>(c)) && c != 'T' && c != 'E') {
      return false;
    }
    if (c == '#') return false;
    if (c == '*' && text.find("*(") != std::string_view::npos) return false;
  }
  return true;
}

}  // namespace

std::string XlaShapeGrammarError(std::string_view text) {
  if (!text.empty() && text.front() == '(') {
    if (text.back() != ')') return "a tuple shape not closed by ')'";
    std::string_view inner = text.substr(1, text.size() - 2);
    if (inner.empty()) return "";
    for (std::string_view e : TupleElements(inner)) {
      if (!e.empty() && e.front() == ' ') e.remove_prefix(1);
      std::string error = XlaShapeGrammarError(e);
      if (!error.empty()) return error;
    }
    return "";
  }
  const std::string s(text);
  if (!std::regex_match(s, ArrayGrammar())) {
    return "'" + s + "' is not an array shape in XLA's grammar";
  }
  // One layout number per dimension.
  const size_t brace = s.find('{');
  if (brace != std::string::npos) {
    const int rank = CountCommasBetween(s, '[', ']');
    std::string numbers = s.substr(brace);
    numbers = numbers.substr(0, numbers.find_first_of(":}")) + "}";
    if (CountCommasBetween(numbers, '{', '}') != rank) {
      return "'" + s + "': the layout does not name each of its " +
             std::to_string(rank) + " dimensions once";
    }
  }
  return "";
}

std::string ShapeRoundTripError(std::string_view text) {
  std::string error = XlaShapeGrammarError(text);
  if (!error.empty()) return error;
  auto parsed = hlo::ParseShape(text);
  if (!parsed.ok()) {
    return "ixa does not read '" + std::string(text) +
           "': " + parsed.error().ToString();
  }
  const std::string printed = parsed->ToString(/*with_layout=*/true);
  const bool has_layout = text.find('{') != std::string_view::npos;
  if (has_layout && OnlyAttributesIxaKeeps(text) && printed != text) {
    return "ixa reads '" + std::string(text) + "' and prints it as '" +
           printed + "'";
  }
  auto again = hlo::ParseShape(printed);
  if (!again.ok() || !(*again == *parsed)) {
    return "ixa prints '" + std::string(text) + "' as '" + printed +
           "', which does not read back as the same shape";
  }
  return XlaShapeGrammarError(printed);
}

std::vector<std::string> ShapesWithLayoutIn(std::string_view text) {
  static const std::regex candidate(
      "(?:^|[^A-Za-z0-9_])((?:" + std::string(kXlaTypeNames) +
      R"re()\[[^\]\s"]*\]\{[^{}\s"]*\}))re");
  std::vector<std::string> out;
  const std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), candidate);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

}  // namespace ixa::emit_test
