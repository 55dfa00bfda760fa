#include "emit/code_writer.h"

#include "core/result.h"

namespace ixa::emit {

void CodeWriter::Line(std::string_view text) {
  if (!text.empty()) {
    text_.append(static_cast<size_t>(level_ * indent_width_), ' ');
    text_.append(text);
  }
  text_.push_back('\n');
}

void CodeWriter::Lines(std::string_view text) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    Line(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

void CodeWriter::Open(std::string_view header) {
  Line(header);
  ++level_;
}

void CodeWriter::Close(std::string_view footer) {
  Dedent();
  Line(footer);
}

void CodeWriter::Dedent() {
  IXA_CHECK_MSG(level_ > 0, "CodeWriter: Close/Dedent without Open");
  --level_;
}

}  // namespace ixa::emit
