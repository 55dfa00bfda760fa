#include "core/result.h"

#include <algorithm>
#include <stdexcept>

namespace ixa {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadRequest:
      return "bad_request";
    case ErrorCode::kParseError:
      return "parse_error";
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kLimitExceeded:
      return "limit_exceeded";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

namespace {
// The length of the UTF-8 prefix of `text` of at most `limit` bytes that
// ends at a character boundary.
size_t Utf8PrefixLength(std::string_view text, size_t limit) {
  if (text.size() <= limit) return text.size();
  while (limit > 0 && (static_cast<unsigned char>(text[limit]) & 0xc0) == 0x80)
    --limit;
  return limit;
}
}  // namespace

std::string QuoteForMessage(std::string_view text) {
  if (text.size() <= kMaxQuotedChars) {
    std::string out = "'";
    out.append(text);
    return out += "'";
  }
  size_t cut = Utf8PrefixLength(text, kMaxQuotedChars - 3);
  std::string out = "'";
  out.append(text.substr(0, cut));
  out += "...' (";
  out += std::to_string(text.size());
  return out += " bytes)";
}

std::string ClipMessage(std::string_view message) {
  std::string out;
  out.reserve(std::min(message.size(), kMaxMessageBytes));
  size_t pos = 0;
  while (pos < message.size() && out.size() < kMaxMessageBytes) {
    size_t space = message.find_first_of(" \n\t", pos);
    if (space == std::string_view::npos) space = message.size();
    std::string_view run = message.substr(pos, space - pos);
    if (run.size() > kMaxQuotedChars) {
      // Keep the run's closing punctuation (a quote, a comma, a colon).
      size_t tail = 0;
      while (tail < 3 && tail < run.size() &&
             std::string_view("'\")]},:;.").find(run[run.size() - 1 - tail]) !=
                 std::string_view::npos) {
        ++tail;
      }
      out.append(run.substr(0, Utf8PrefixLength(run, kMaxQuotedChars - 6)));
      out += "...";
      out.append(run.substr(run.size() - tail));
    } else {
      out.append(run);
    }
    if (space < message.size()) out += message[space];
    pos = space + 1;
  }
  if (pos < message.size() || out.size() > kMaxMessageBytes) {
    out.resize(Utf8PrefixLength(out, kMaxMessageBytes - 20));
    out += " ... (message cut)";
  }
  return out;
}

std::string Error::ToString() const {
  std::string s = std::string(ErrorCodeName(code)) + ": " + message;
  if (line > 0) {
    s += " (line " + std::to_string(line) + ", column " +
         std::to_string(column) + ")";
  }
  return s;
}

// Thrown, not aborted: the CLI catches it per request and answers
// "internal", so one broken invariant never takes a whole batch down.
void CheckFailed(const char* file, int line, const char* cond,
                 const std::string& message) {
  std::string what = std::string("check failed at ") + file + ":" +
                     std::to_string(line) + ": " + cond;
  if (!message.empty()) what += " (" + message + ")";
  throw std::logic_error(what);
}

}  // namespace ixa
