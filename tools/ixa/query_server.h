// The server behind `ixa query`: answers one JSON Lines request line at a
// time, keeping the failure count that decides the exit code. One server
// per worker thread (each answers with its own expression contexts).
#ifndef IXA_TOOLS_IXA_QUERY_SERVER_H_
#define IXA_TOOLS_IXA_QUERY_SERVER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/text.h"
#include "tools/ixa/fast_json.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

constexpr int kExitOk = 0;
constexpr int kExitSomeFailed = 1;
constexpr int kExitUsage = 64;
constexpr int kExitNoInput = 66;
constexpr int kExitInternal = 70;
constexpr int kExitCannotCreate = 73;

class QueryServer {
 public:
  // budget_ms > 0: the wall-time budget of each request (core/budget.h).
  explicit QueryServer(TextSyntax default_syntax = TextSyntax::kAffine,
                       int64_t budget_ms = 0)
      : default_syntax_(default_syntax), budget_ms_(budget_ms) {}

  // Appends the response line to the request `line`, and its newline, to
  // `*out`. `number` is the line's 1-based number in the batch (0: not
  // known), which a bad_json error reports as its `line`.
  void Answer(std::string_view line, std::string* out, size_t number = 0);

  int ExitCode() const {
    if (internal_) return kExitInternal;
    return failures_ > 0 ? kExitSomeFailed : kExitOk;
  }

 private:
  Result<Json> Dispatch(const Json& request);
  // Runs an op within the request's time budget; an exception becomes an
  // internal error.
  template <typename Answering>
  auto Guarded(Answering answering) -> decltype(answering());
  void Count(const Status& outcome) {
    if (!outcome.ok()) {
      ++failures_;
      if (outcome.error().code == ErrorCode::kInternal) internal_ = true;
    }
  }

  TextSyntax default_syntax_;
  OpTable ops_;
  FlatRequest flat_;  // reused line after line
  int64_t budget_ms_ = 0;
  int failures_ = 0;
  bool internal_ = false;
};

// One request line answered by a long-lived server, exactly as `ixa query`
// answers it (no time budget); the response line without its newline.
std::string AnswerRequestLine(const std::string& line);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_QUERY_SERVER_H_
