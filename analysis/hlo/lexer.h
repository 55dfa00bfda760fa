// A character cursor for the HLO text reader: tracks line and column so
// that every error names where it happened and what was expected.
// Internal to analysis/hlo.
#ifndef IXA_ANALYSIS_HLO_LEXER_H_
#define IXA_ANALYSIS_HLO_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ixa::hlo {

struct Position {
  size_t offset = 0;
  int line = 1;
  int column = 1;
};

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  // Re-bases positions so that errors inside a sub-string (an attribute
  // value parsed later) point into the original text.
  Cursor(std::string_view text, Position origin)
      : text_(text), pos_{0, origin.line, origin.column} {}

  // Skips blanks, newlines and comments (`/*index=5*/`, `// ...`, `# ...`).
  void SkipSpace();
  bool AtEnd() {
    SkipSpace();
    return pos_.offset >= text_.size();
  }
  // Next non-blank character, or '\0' at the end.
  char Peek() {
    SkipSpace();
    return pos_.offset < text_.size() ? text_[pos_.offset] : '\0';
  }
  char PeekRaw() const {
    return pos_.offset < text_.size() ? text_[pos_.offset] : '\0';
  }
  bool Consume(char c);
  // Consumes the next character as is (no blank skipping); '\0' at the end.
  char Next() {
    char c = PeekRaw();
    Advance();
    return c;
  }
  bool ConsumeString(std::string_view s);  // exact characters, after blanks
  // A word (identifier) equal to w followed by a non-name character.
  bool ConsumeWord(std::string_view w);
  Result<char> Expect(char c, std::string_view what = {});

  // Names: letters, digits, '_', '.', '-', and a leading '%'. The '%' is
  // dropped. Empty when none.
  std::string_view Name();
  Result<std::string_view> ExpectName(std::string_view what);
  Result<int64_t> ExpectInt(std::string_view what);
  // A comma-separated list of ints in braces `{1,2}` (possibly empty).
  Result<std::vector<int64_t>> IntList(std::string_view what);

  // The raw text of one attribute value: everything up to a ',' or blank at
  // bracket depth 0 (strings and nested brackets are kept whole).
  Result<std::string_view> RawValue(std::string_view what);
  // The raw text between balanced parentheses, the '(' already consumed;
  // consumes the ')'.
  Result<std::string_view> RawUntilClose(char open, char close);

  Position position() {
    SkipSpace();
    return pos_;
  }
  Position raw_position() const { return pos_; }
  void Reset(Position p) { pos_ = p; }
  std::string_view text() const { return text_; }

  // "expected <what>, found <the next token>" at the current position.
  Error Fail(std::string_view what);
  static Error FailAt(Position p, std::string message) {
    return Error::Parse(std::move(message), p.line, p.column);
  }

 private:
  void Advance();
  std::string_view text_;
  Position pos_;
};

bool IsNameChar(char c);

}  // namespace ixa::hlo

// Returns the error of a Result-valued expression, dropping the value.
#define IXA_HLO_TRY(expr)                        \
  do {                                           \
    auto _ixa_try = (expr);                      \
    if (!_ixa_try.ok()) return _ixa_try.error(); \
  } while (0)

#endif  // IXA_ANALYSIS_HLO_LEXER_H_
