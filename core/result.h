// Result<T>: a value or an Error describing bad input (G11a).
//
// Broken invariants use IXA_CHECK instead; "don't know" answers use
// std::optional or the map's KNOWN EMPTY state. Only the CLI turns errors
// into protocol responses.
#ifndef IXA_CORE_RESULT_H_
#define IXA_CORE_RESULT_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ixa {

// Error codes shared with the CLI protocol (docs/protocol.md).
enum class ErrorCode {
  kBadRequest,  // protocol: missing or ill-typed field, unknown op
  kParseError,
  kInvalidArgument,
  kUnsupported,
  kLimitExceeded,
  kInternal,
};

const char* ErrorCodeName(ErrorCode code);

// The most characters of a user's text an error message quotes: a message
// names what is wrong, it does not echo a 5 MB input back.
inline constexpr size_t kMaxQuotedChars = 80;

// `text` in single quotes for an error message; text longer than
// kMaxQuotedChars is cut (at a UTF-8 character boundary) and ends
// "...' (N bytes)".
std::string QuoteForMessage(std::string_view text);

// A message as ixa hands it out (the query protocol, the commands'
// errors, the Python module): every run of more than kMaxQuotedChars bytes
// without a space (a user's token, quoted where the error was raised) cut
// to kMaxQuotedChars, and the whole at most kMaxMessageBytes. A last guard:
// the error paths quote with QuoteForMessage already.
inline constexpr size_t kMaxMessageBytes = 4096;
std::string ClipMessage(std::string_view message);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  int line = 0;    // 1-based; 0 when the error has no text position.
  int column = 0;  // 1-based; 0 when the error has no text position.

  static Error Parse(std::string message, int line, int column) {
    return Error{ErrorCode::kParseError, std::move(message), line, column};
  }
  static Error Invalid(std::string message) {
    return Error{ErrorCode::kInvalidArgument, std::move(message), 0, 0};
  }
  static Error Unsupported(std::string message) {
    return Error{ErrorCode::kUnsupported, std::move(message), 0, 0};
  }
  static Error BadRequest(std::string message) {
    return Error{ErrorCode::kBadRequest, std::move(message), 0, 0};
  }
  static Error Limit(std::string message) {
    return Error{ErrorCode::kLimitExceeded, std::move(message), 0, 0};
  }
  std::string ToString() const;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}  // NOLINT

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<0>(data_); }
  T& value() & { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const { return std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

// The outcome of a step that produces no value: ok, or the Error saying
// why the input is bad (Result<T> is for steps that produce a T). A
// Result<bool> is an answer, never a status.
class [[nodiscard]] Status {
 public:
  Status() = default;                                // ok
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit
  template <typename T>
  Status(const Result<T>& result) {  // NOLINT: implicit, keeps the error
    if (!result.ok()) error_ = result.error();
  }

  bool ok() const { return !error_.has_value(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

// Internal invariant violation: prints context and aborts. Never used for
// anything user input can trigger.
[[noreturn]] void CheckFailed(const char* file, int line, const char* cond,
                              const std::string& message);

}  // namespace ixa

#define IXA_CHECK(cond)                                             \
  do {                                                              \
    if (!(cond)) ::ixa::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)
#define IXA_CHECK_MSG(cond, msg)                                       \
  do {                                                                 \
    if (!(cond)) ::ixa::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

// Returns the error of a Status- or Result-returning expression from a
// function that returns a Status or a Result.
#define IXA_RETURN_IF_ERROR(expr)                      \
  do {                                                 \
    const ::ixa::Status ixa_status_ = (expr);          \
    if (!ixa_status_.ok()) return ixa_status_.error(); \
  } while (0)

// Propagates an error from a Result-returning expression.
#define IXA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.error();              \
  lhs = std::move(tmp).value()
#define IXA_CONCAT_INNER(a, b) a##b
#define IXA_CONCAT(a, b) IXA_CONCAT_INNER(a, b)
#define IXA_ASSIGN_OR_RETURN(lhs, expr) \
  IXA_ASSIGN_OR_RETURN_IMPL(IXA_CONCAT(_ixa_result_, __LINE__), lhs, expr)

#endif  // IXA_CORE_RESULT_H_
