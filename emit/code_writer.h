// CodeWriter: the text sink every code generator prints through — lines
// with the current indentation, blocks that open and close with it, so
// generated code is indented consistently whatever the target.
#ifndef IXA_EMIT_CODE_WRITER_H_
#define IXA_EMIT_CODE_WRITER_H_

#include <string>
#include <string_view>
#include <utility>

namespace ixa::emit {

class CodeWriter {
 public:
  explicit CodeWriter(int indent_width = 2) : indent_width_(indent_width) {}

  // One line at the current indentation (an empty line stays empty).
  void Line(std::string_view text);
  // Each line of `text` (split at newlines) as Line does.
  void Lines(std::string_view text);
  // `header` then one more level of indentation, e.g. Open("for (...) {").
  void Open(std::string_view header);
  // One level less, then `footer`, e.g. Close("}").
  void Close(std::string_view footer);
  void Indent() { ++level_; }
  void Dedent();

  const std::string& text() const { return text_; }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
  int level_ = 0;
  int indent_width_;
};

}  // namespace ixa::emit

#endif  // IXA_EMIT_CODE_WRITER_H_
