// The hot ops of `ixa query` answered without nlohmann::json:
// parse, simplify (without explain), compose and is_empty, from a
// FlatRequest (fast_json.h), their responses written directly. They share
// their algebra with the JSON handlers (ops_algebra.cc, algebra_core.h);
// tests/cli/check_fast_path.py checks that both answer byte for byte alike.
#ifndef IXA_TOOLS_IXA_FAST_OPS_H_
#define IXA_TOOLS_IXA_FAST_OPS_H_

#include <string>

#include "core/expr.h"
#include "core/result.h"
#include "core/text.h"
#include "tools/ixa/fast_json.h"

namespace ixa::cli {

// True when `request` is a well-formed request of a hot op with an id that
// is absent or not a list and a valid `syntax` if any. Anything else
// (including every request the handlers would answer bad_request) is left
// to the general path.
bool IsFastOp(const FlatRequest& request);

// A response is written in three parts straight into the output text: the
// start `{"id":<id>,"ok":true,`, the fields (AnswerFastOp) and the end
// `}` and newline. When the op fails the caller cuts the text back to
// where the response started and writes AppendFastErrorResponse instead.
void AppendFastResponseStart(const FlatRequest& request, std::string* out);
void AppendFastResponseEnd(std::string* out);
void AppendFastErrorResponse(const FlatRequest& request, const Error& error,
                             std::string* out);

// Answers a request for which IsFastOp holds, its maps printed in its
// `syntax` or else `batch_syntax` (as the general path's Dispatch):
// appends the response's fields after "ok": true as JSON text (e.g.
// `"changed":true,"map":"..."`) to *out, or returns the op's error (and
// may have appended part of the fields).
Status AnswerFastOp(const FlatRequest& request, TextSyntax batch_syntax,
                    ExprContext& ctx, std::string* out);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_FAST_OPS_H_
