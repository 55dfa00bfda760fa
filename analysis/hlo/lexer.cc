#include "analysis/hlo/lexer.h"

#include <cctype>
#include <charconv>
#include <vector>

namespace ixa::hlo {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '-' || c == '$';
}

void Cursor::Advance() {
  if (pos_.offset >= text_.size()) return;
  if (text_[pos_.offset] == '\n') {
    ++pos_.line;
    pos_.column = 1;
  } else {
    ++pos_.column;
  }
  ++pos_.offset;
}

void Cursor::SkipSpace() {
  while (pos_.offset < text_.size()) {
    char c = text_[pos_.offset];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      Advance();
    } else if (c == '/' && pos_.offset + 1 < text_.size() &&
               text_[pos_.offset + 1] == '*') {
      Advance();
      Advance();
      while (pos_.offset < text_.size() &&
             !(text_[pos_.offset] == '*' && pos_.offset + 1 < text_.size() &&
               text_[pos_.offset + 1] == '/')) {
        Advance();
      }
      Advance();
      Advance();
    } else if ((c == '/' && pos_.offset + 1 < text_.size() &&
                text_[pos_.offset + 1] == '/') ||
               (c == '#' && pos_.column == 1)) {
      while (pos_.offset < text_.size() && text_[pos_.offset] != '\n') {
        Advance();
      }
    } else {
      break;
    }
  }
}

bool Cursor::Consume(char c) {
  if (Peek() != c) return false;
  Advance();
  return true;
}

bool Cursor::ConsumeString(std::string_view s) {
  SkipSpace();
  if (text_.substr(pos_.offset, s.size()) != s) return false;
  for (size_t i = 0; i < s.size(); ++i) Advance();
  return true;
}

bool Cursor::ConsumeWord(std::string_view w) {
  SkipSpace();
  if (text_.substr(pos_.offset, w.size()) != w) return false;
  size_t end = pos_.offset + w.size();
  if (end < text_.size() && IsNameChar(text_[end])) return false;
  for (size_t i = 0; i < w.size(); ++i) Advance();
  return true;
}

Result<char> Cursor::Expect(char c, std::string_view what) {
  if (Consume(c)) return c;
  std::string desc = "'" + std::string(1, c) + "'";
  if (!what.empty()) desc += " " + std::string(what);
  return Fail(desc);
}

std::string_view Cursor::Name() {
  SkipSpace();
  size_t start = pos_.offset;
  if (PeekRaw() == '%') {
    Advance();
    start = pos_.offset;
  }
  while (pos_.offset < text_.size() && IsNameChar(text_[pos_.offset])) {
    Advance();
  }
  return text_.substr(start, pos_.offset - start);
}

Result<std::string_view> Cursor::ExpectName(std::string_view what) {
  Position p = position();
  std::string_view n = Name();
  if (n.empty()) {
    Reset(p);
    return Fail(what);
  }
  return n;
}

Result<int64_t> Cursor::ExpectInt(std::string_view what) {
  SkipSpace();
  size_t start = pos_.offset;
  size_t end = start;
  if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
  while (end < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[end]))) {
    ++end;
  }
  int64_t v = 0;
  const char* first =
      text_.data() + start + (end > start && text_[start] == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(first, text_.data() + end, v);
  if (ec != std::errc() || ptr != text_.data() + end || end == start) {
    if (ec == std::errc::result_out_of_range) {
      return FailAt(pos_, "integer out of range for " + std::string(what));
    }
    return Fail(what);
  }
  while (pos_.offset < end) Advance();
  return v;
}

Result<std::vector<int64_t>> Cursor::IntList(std::string_view what) {
  std::vector<int64_t> out;
  if (!Consume('{')) return Fail("'{' starting " + std::string(what));
  if (Consume('}')) return out;
  while (true) {
    IXA_ASSIGN_OR_RETURN(int64_t v,
                         ExpectInt("an integer in " + std::string(what)));
    out.push_back(v);
    if (Consume('}')) return out;
    if (!Consume(',')) return Fail("',' or '}' in " + std::string(what));
  }
}

Result<std::string_view> Cursor::RawValue(std::string_view what) {
  SkipSpace();
  size_t start = pos_.offset;
  std::vector<char> stack;
  while (pos_.offset < text_.size()) {
    char c = text_[pos_.offset];
    if (stack.empty() && (c == ',' || c == ' ' || c == '\t' || c == '\n' ||
                          c == '\r' || c == ')' || c == '}' || c == ']')) {
      break;
    }
    if (c == '"') {
      Advance();
      while (pos_.offset < text_.size() && text_[pos_.offset] != '"') {
        if (text_[pos_.offset] == '\\') Advance();
        Advance();
      }
      if (pos_.offset >= text_.size()) return Fail("closing '\"'");
      Advance();
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      stack.push_back(c == '{' ? '}' : c == '(' ? ')' : ']');
    } else if (!stack.empty() && c == stack.back()) {
      stack.pop_back();
    } else if (c == '}' || c == ')' || c == ']') {
      return Fail("balanced brackets in " + std::string(what));
    }
    Advance();
  }
  if (!stack.empty()) {
    return Fail("'" + std::string(1, stack.back()) + "' closing " +
                std::string(what));
  }
  if (pos_.offset == start) return Fail(what);
  return text_.substr(start, pos_.offset - start);
}

Result<std::string_view> Cursor::RawUntilClose(char open, char close) {
  size_t start = pos_.offset;
  int depth = 1;
  while (pos_.offset < text_.size()) {
    char c = text_[pos_.offset];
    if (c == '"') {
      Advance();
      while (pos_.offset < text_.size() && text_[pos_.offset] != '"') {
        Advance();
      }
    } else if (c == open) {
      ++depth;
    } else if (c == close && --depth == 0) {
      std::string_view raw = text_.substr(start, pos_.offset - start);
      Advance();
      return raw;
    }
    Advance();
  }
  return Fail("'" + std::string(1, close) + "'");
}

Error Cursor::Fail(std::string_view what) {
  SkipSpace();
  std::string found;
  if (pos_.offset >= text_.size()) {
    found = "end of input";
  } else {
    size_t end = pos_.offset;
    while (end < text_.size() && IsNameChar(text_[end]) &&
           end - pos_.offset < 24) {
      ++end;
    }
    if (end == pos_.offset) end = pos_.offset + 1;
    found =
        "'" + std::string(text_.substr(pos_.offset, end - pos_.offset)) + "'";
  }
  return Error::Parse("expected " + std::string(what) + ", found " + found,
                      pos_.line, pos_.column);
}

}  // namespace ixa::hlo
