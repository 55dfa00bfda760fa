#include "core/result.h"

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
