#include "tools/ixa/query_server.h"

#include <exception>

#include "core/budget.h"
#include "core/expr.h"
#include "tools/ixa/emit_ops.h"
#include "tools/ixa/fast_ops.h"

namespace ixa::cli {
namespace {

std::string Dump(const nlohmann::ordered_json& j) {
  // Replace invalid UTF-8 (echoed user text) instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void QueryServer::Answer(std::string_view line, std::string* out) {
  Json request;
  if (flat_.Read(line)) {
    if (IsFastOp(flat_)) {
      // Written in place; cut back if the op fails (fast_ops.h).
      const size_t start = out->size();
      AppendFastResponseStart(flat_, out);
      Result<bool> answered = Guarded([&] {
        ExprContext ctx;  // one context per request
        return AnswerFastOp(flat_, default_syntax_, ctx, out);
      });
      Count(answered);
      if (answered.ok()) {
        AppendFastResponseEnd(out);
      } else {
        out->resize(start);
        AppendFastErrorResponse(flat_, answered.error(), out);
      }
      return;
    }
    request = flat_.ToJson();
  } else {
    try {
      request = Json::parse(line);
    } catch (const std::exception& e) {
      nlohmann::ordered_json response;
      response["id"] = nullptr;
      response["ok"] = false;
      std::string what = e.what();
      response["error"] = ErrorJson(
          Error{ErrorCode::kInternal, "the line is not JSON: " + what, 0, 0});
      response["error"]["code"] = "bad_json";
      ++failures_;
      out->append(Dump(response));
      out->push_back('\n');
      return;
    }
  }
  Json id = request.is_object() && request.contains("id") ? request.at("id")
                                                          : Json(nullptr);
  Result<Json> result = Guarded([&] { return Dispatch(request); });
  request = Json();  // the request can be as large as the answer
  Count(result);
  out->append(ResponseLine(id, result));
  out->push_back('\n');
}

Result<Json> QueryServer::Dispatch(const Json& request) {
  if (!request.is_object()) {
    return Error::BadRequest("a request must be a JSON object");
  }
  IXA_ASSIGN_OR_RETURN(std::string op, GetString(request, "op"));
  // Built at the first request that needs it: a batch of hot ops (the
  // fast path) never does, and a process starts sooner without it.
  if (ops_.empty()) {
    RegisterAlgebraOps(ops_);
    RegisterHloOps(ops_);
    RegisterLayoutOps(ops_);
    RegisterUseOps(ops_);
    RegisterPlanOps(ops_);
    RegisterEmitOps(ops_);
  }
  auto it = ops_.find(op);
  if (it == ops_.end()) {
    return Error::BadRequest("unknown op '" + op + "'");
  }
  // Every map of this response prints in the request's syntax.
  IXA_ASSIGN_OR_RETURN(TextSyntax syntax, GetSyntax(request, default_syntax_));
  SetResponseSyntax(syntax);
  // And every other expression string of it (traces, tile expressions,
  // messages): the printer's default for this request.
  ScopedTextSyntax printed_as(syntax);
  ExprContext ctx;  // one context per request
  return it->second(request, ctx);
}

template <typename Answering>
auto QueryServer::Guarded(Answering answering) -> decltype(answering()) {
  decltype(answering()) result = Error::BadRequest("internal: unset");
  try {
    DeadlineScope deadline(budget_ms_);
    result = answering();
    // Work cut short by the deadline is never a complete answer.
    if (DeadlineExpiredIn()) result = DeadlineError();
  } catch (const std::exception& e) {
    result = Error{ErrorCode::kInternal, e.what(), 0, 0};
  } catch (...) {
    result = Error{ErrorCode::kInternal, "unknown exception", 0, 0};
  }
  return result;
}

std::string AnswerRequestLine(const std::string& line) {
  static QueryServer* server = new QueryServer();  // never destroyed
  std::string response;
  server->Answer(line, &response);
  response.pop_back();  // the newline
  return response;
}

}  // namespace ixa::cli
