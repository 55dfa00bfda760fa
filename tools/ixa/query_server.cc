#include "tools/ixa/query_server.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <set>
#include <vector>

#include "core/budget.h"
#include "core/expr.h"
#include "tools/ixa/emit_ops.h"
#include "tools/ixa/fast_ops.h"
#include "tools/ixa/op_docs.h"

namespace ixa::cli {
namespace {

std::string Dump(const nlohmann::ordered_json& j) {
  // Replace invalid UTF-8 (echoed user text) instead of throwing.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string LineOfBatch(size_t number) {
  return number > 0 ? "line " + std::to_string(number) + " of the batch"
                    : std::string("the request line");
}

Error BadJsonAt(std::string message, size_t number, size_t column) {
  return Error{ErrorCode::kBadRequest, std::move(message),
               static_cast<int>(std::min<size_t>(number, INT32_MAX)),
               static_cast<int>(std::min<size_t>(column, INT32_MAX))};
}

// A line that the JSON reader refused, said in the protocol's words: where
// (the line's number in the batch and the byte at which the reader
// stopped, 1-based) and what it expected, without the library's prefix.
Error NotJsonError(std::string_view line, size_t number,
                   const nlohmann::json::parse_error& e) {
  std::string where = LineOfBatch(number);
  size_t byte = std::min<size_t>(e.byte, line.size() + 1);
  if (byte == 0) byte = 1;
  // "[json.exception.parse_error.101] parse error at line 1, column 20:
  // syntax error while parsing object separator - unexpected string
  // literal; expected ':'" -> "while reading the object separator: ...".
  std::string what = e.what();
  size_t detail = what.find(": ");
  what = detail == std::string::npos ? std::string() : what.substr(detail + 2);
  const std::string kSyntax = "syntax error while parsing ";
  if (what.rfind(kSyntax, 0) == 0) {
    what = "while reading the " + what.substr(kSyntax.size());
    size_t dash = what.find(" - ");
    if (dash != std::string::npos) what.replace(dash, 3, ": ");
  }
  // "...; last read: 'TOKEN'": the token can be a whole 5 MB string.
  const std::string kLastRead = "last read: '";
  if (size_t at = what.find(kLastRead); at != std::string::npos) {
    size_t end = what.rfind('\'');
    if (end > at + kLastRead.size()) {
      const size_t first = at + kLastRead.size();
      what.replace(
          at + kLastRead.size() - 1, end - first + 2,
          QuoteForMessage(std::string_view(what).substr(first, end - first)));
    }
  }
  std::string message = where + " is not JSON (the reader stopped at column " +
                        std::to_string(byte) + ")";
  if (!what.empty()) message += ": " + what;
  return BadJsonAt(message, number, byte);
}

// JSON text never holds a raw NUL byte (inside a string it is written
// \u0000), and nlohmann's reader takes one for the end of the input:
// name it before the reader words it as "unexpected end of input".
std::optional<Error> NulByteError(std::string_view line, size_t number) {
  size_t at = line.find('\0');
  if (at == std::string_view::npos) return std::nullopt;
  return BadJsonAt(LineOfBatch(number) + " is not JSON: a NUL byte at column " +
                       std::to_string(at + 1) +
                       " (JSON text cannot contain one; inside a string "
                       "write \\u0000)",
                   number, at + 1);
}

// Reads the line as JSON, refusing an object that gives a key twice (the
// reader would keep the last: a request must not mean two things). Throws
// nlohmann's parse_error as Json::parse does; the duplicate key, if any,
// in *duplicate.
Json ParseRequestJson(std::string_view line, std::string* duplicate) {
  std::vector<std::set<std::string>> open_objects;
  return Json::parse(line, [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        open_objects.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!open_objects.empty()) open_objects.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!open_objects.empty() &&
            !open_objects.back().insert(parsed.get<std::string>()).second &&
            duplicate->empty()) {
          *duplicate = parsed.get<std::string>();
        }
        break;
      default:
        break;
    }
    return true;
  });
}

Error UnknownOpError(const std::string& op) {
  std::vector<std::string> names;
  for (const OpDoc& doc : OpDocs()) names.emplace_back(doc.name);
  std::string message = "unknown op " + QuoteForMessage(op);
  std::string suggestion = SuggestName(op, names);
  if (!suggestion.empty()) message += " (did you mean '" + suggestion + "'?)";
  message += "; the ops, closest first: ";
  std::vector<std::string> ranked = ClosestNames(op, names);
  for (size_t k = 0; k < ranked.size(); ++k) {
    message += (k > 0 ? ", " : "") + ranked[k];
  }
  return Error::BadRequest(message);
}

std::string Quoted(const std::vector<std::string>& names) {
  std::string out;
  for (size_t k = 0; k < names.size(); ++k) {
    out += (k > 0 ? ", '" : "'") + names[k] + "'";
  }
  return out;
}

// Every field of the request must be one its op takes (for `emit`, one
// that applies to the request's target), and every required field must be
// there: all of them named in one error.
std::optional<Error> CheckRequestFields(const Json& request, const OpDoc& op) {
  std::string target;
  if (request.contains("target") && request.at("target").is_string()) {
    target = request.at("target").get<std::string>();
  }
  // "cpp|cuda|mlir" names the targets a field applies to.
  auto applies = [&](const FieldDoc& f) {
    if (f.targets.empty() || target.empty()) return true;
    size_t start = 0;
    while (start <= f.targets.size()) {
      size_t end = f.targets.find('|', start);
      if (end == std::string_view::npos) end = f.targets.size();
      if (f.targets.substr(start, end - start) == target) return true;
      start = end + 1;
    }
    return false;
  };
  std::vector<std::string> known;
  for (const FieldDoc& f : CommonFieldDocs()) known.emplace_back(f.name);
  for (const FieldDoc& f : op.request) known.emplace_back(f.name);
  std::vector<std::string> problems;
  std::vector<std::string> unknown, misplaced;
  for (const auto& [key, value] : request.items()) {
    const FieldDoc* doc = nullptr;
    for (const FieldDoc& f : CommonFieldDocs()) {
      if (f.name == key) doc = &f;
    }
    for (const FieldDoc& f : op.request) {
      if (f.name == key) doc = &f;
    }
    if (doc == nullptr) {
      std::string entry = QuoteForMessage(key);
      std::string suggestion = SuggestName(key, known);
      if (!suggestion.empty()) entry += " (did you mean '" + suggestion + "'?)";
      unknown.push_back(entry);
    } else if (!applies(*doc)) {
      misplaced.push_back("'" + key + "' (target " + std::string(doc->targets) +
                          " only)");
    }
  }
  std::vector<std::string> missing;
  for (const FieldDoc& f : op.request) {
    if (f.required() && applies(f) && !request.contains(std::string(f.name))) {
      missing.emplace_back(f.name);
    }
  }
  if (unknown.empty() && misplaced.empty() && missing.empty()) {
    return std::nullopt;
  }
  std::string message;
  auto add = [&](const std::string& part) {
    message += (message.empty() ? "" : "; ") + part;
  };
  auto list = [](const std::vector<std::string>& items) {
    std::string out;
    for (size_t k = 0; k < items.size(); ++k)
      out += (k > 0 ? ", " : "") + items[k];
    return out;
  };
  if (!unknown.empty()) {
    add(std::string(unknown.size() == 1 ? "unknown field "
                                        : "unknown fields ") +
        list(unknown));
  }
  if (!misplaced.empty()) {
    add(std::string(misplaced.size() == 1 ? "field " : "fields ") +
        list(misplaced) + " not taken by target '" + target + "'");
  }
  if (!missing.empty()) {
    add(std::string(missing.size() == 1 ? "missing field "
                                        : "missing fields ") +
        Quoted(missing));
  }
  std::vector<std::string> takes;
  for (const FieldDoc& f : op.request) {
    if (applies(f)) takes.emplace_back(f.name);
  }
  message += "; op '" + std::string(op.name) + "' takes " + list(takes) +
             " (ixa help " + std::string(op.name) + ")";
  return Error::BadRequest(message);
}

}  // namespace

void QueryServer::Answer(std::string_view line, std::string* out,
                         size_t number) {
  Json request;
  if (flat_.Read(line)) {
    if (IsFastOp(flat_)) {
      // Written in place; cut back if the op fails (fast_ops.h).
      const size_t start = out->size();
      AppendFastResponseStart(flat_, out);
      Status answered = Guarded([&] {
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
    // A line that is not one JSON request: bad_json, without an id.
    auto refuse = [&](const Error& e) {
      nlohmann::ordered_json response;
      response["id"] = nullptr;
      response["ok"] = false;
      response["error"] = ErrorJson(e);
      response["error"]["code"] = "bad_json";
      ++failures_;
      out->append(Dump(response));
      out->push_back('\n');
    };
    if (std::optional<Error> nul = NulByteError(line, number)) {
      refuse(*nul);
      return;
    }
    std::string duplicate;
    try {
      request = ParseRequestJson(line, &duplicate);
    } catch (const nlohmann::json::parse_error& e) {
      refuse(NotJsonError(line, number, e));
      return;
    } catch (const std::exception&) {
      // Any other refusal of the reader (none is known): still an answer.
      refuse(BadJsonAt(LineOfBatch(number) + " is not JSON the reader accepts",
                       number, 0));
      return;
    }
    if (!duplicate.empty()) {
      refuse(BadJsonAt(LineOfBatch(number) + " gives the key " +
                           QuoteForMessage(duplicate) +
                           " twice in one object (JSON leaves which one "
                           "counts open: give each key once)",
                       number, 0));
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
    RegisterBankOps(ops_);
    RegisterLinearLayoutOps(ops_);
    RegisterUseOps(ops_);
    RegisterPlanOps(ops_);
    RegisterEmitOps(ops_);
    RegisterCompileOps(ops_);
    // The documentation table and the handlers name the same ops.
    IXA_CHECK(ops_.size() == OpDocs().size());
    for (const OpDoc& doc : OpDocs()) {
      IXA_CHECK(ops_.count(std::string(doc.name)) == 1);
    }
  }
  auto it = ops_.find(op);
  if (it == ops_.end()) return UnknownOpError(op);
  if (std::optional<Error> e = CheckRequestFields(request, *FindOpDoc(op))) {
    return *e;
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
