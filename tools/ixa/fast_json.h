// The query server's cheap JSON path: requests are small flat
// objects and responses a handful of fields, where nlohmann's lexer, trees
// and serializer cost more than the algebra. What is here reads and writes
// exactly what nlohmann reads and writes, byte for byte, or declines:
//   - FlatRequest reads the subset of JSON that requests use, in one pass
//     without allocating (views into the line); anything else (nesting,
//     non-ASCII bytes, \u escapes, floats, long integers, duplicate keys,
//     invalid JSON) is left to nlohmann::json::parse, which also words the
//     bad_json errors.
//   - AppendJson / ResponseLine print like
//     `dump(-1, ' ', false, error_handler_t::replace)`, handing the values
//     they do not format themselves (floats, non-ASCII strings) to
//     nlohmann.
// Why not simdjson: a request is ~200 bytes, where its per-document setup
// (a padded copy, parser state) would remain and the general path would
// still need nlohmann trees; this reader is one pass with no dependency,
// and it declines whatever nlohmann would type or word differently.
// IXA_QUERY_FAST_JSON=0 in the environment turns the fast path off (for the
// byte-for-byte comparison of tests/cli/check_fast_path.py).
#ifndef IXA_TOOLS_IXA_FAST_JSON_H_
#define IXA_TOOLS_IXA_FAST_JSON_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

// False when IXA_QUERY_FAST_JSON=0 (read once).
bool FastJsonEnabled();

// One value of a flat request.
struct FlatValue {
  enum class Kind : uint8_t { kString, kInteger, kTrue, kFalse, kNull, kList };
  Kind kind = Kind::kNull;
  bool escaped = false;    // kString: the JSON text had escapes
  bool negative = false;   // kInteger: written with '-' (nlohmann's
                           // number_integer, else number_unsigned)
  std::string_view raw;    // the value's JSON text
  std::string_view text;   // kString: the decoded string
  uint64_t magnitude = 0;  // kInteger: the absolute value (< 10^18)
  uint32_t first_item = 0, num_items = 0;  // kList: its items
};

// A request line that is a JSON object of ASCII strings (escapes
// \" \\ \/ \b \f \n \r \t), integers of at most 18 digits, true, false,
// null, or flat lists of those, with distinct escape-free keys. One
// instance is reused line after line (its buffers keep their capacity).
class FlatRequest {
 public:
  // False (and the request is unspecified) for anything outside the subset
  // or when the fast path is off. The values' views point into the
  // request's own copy of `line`, valid until the next Read.
  bool Read(std::string_view line);

  // Inline: the callers' keys are literals, so the comparison compiles to
  // a length check and a fixed-size compare.
  const FlatValue* Find(std::string_view key) const {
    for (const auto& field : fields_) {
      if (field.first == key) return &field.second;
    }
    return nullptr;
  }
  size_t num_fields() const { return fields_.size(); }
  std::span<const FlatValue> Items(const FlatValue& list) const {
    return {items_.data() + list.first_item, list.num_items};
  }
  // The request as nlohmann::json::parse reads it.
  Json ToJson() const;

 private:
  bool ReadValue(FlatValue* out, bool allow_list);
  bool ReadString(FlatValue* out);
  // Out of line: escapes are rare, and the usual string's scan stays small.
  [[gnu::noinline]] bool ReadEscapedString(FlatValue* out);
  bool ReadInteger(FlatValue* out);
  [[gnu::always_inline]] void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      ++pos_;
    }
  }
  bool Take(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // text_[start, start + n), within text_ (no bounds check: the reader
  // has checked).
  std::string_view View(size_t start, size_t n) const {
    return {text_.data() + start, n};
  }

  static constexpr size_t kPadding = 16;
  std::string padded_;     // the line and kPadding bytes
  std::string_view text_;  // the line, in padded_
  size_t pos_ = 0;
  std::vector<std::pair<std::string_view, FlatValue>> fields_;
  std::vector<FlatValue> items_;
  std::string decoded_;  // escaped strings; reserved to the line's size
};

// Appends v as nlohmann's dump(-1, ' ', false, replace) prints it.
void AppendJson(const Json& v, std::string* out);
// The same for a string value (quoted and escaped).
void AppendJsonString(std::string_view s, std::string* out);
// The same for text already appended to *out after an opening quote: the
// text is out[start..], the quote out[start - 1]. When the text needs no
// escapes (the maps the server prints, as a rule) this only closes the
// quote, saving a copy of the text.
void QuoteAppendedText(size_t start, std::string* out);
// The same for a value read by FlatRequest (a scalar; lists too).
void AppendFlatValue(const FlatRequest& request, const FlatValue& v,
                     std::string* out);

// The error object of a response: {"code", "message"[, "line",
// "column"]}.
Json ErrorJson(const Error& e);

// The response line (no newline) for a request with this id: {"id", "ok":
// true, result's fields...} or {"id", "ok": false, "error": ...}, as the
// server has always built it with nlohmann::ordered_json.
std::string ResponseLine(const Json& id, const Result<Json>& result);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_FAST_JSON_H_
