#include "tools/ixa/fast_ops.h"

#include <string_view>
#include <vector>

#include "core/text.h"
#include "simplifier/decide.h"
#include "simplifier/simplify.h"
#include "tools/ixa/algebra_core.h"

namespace ixa::cli {

namespace {

enum class HotOp { kNone, kParse, kSimplify, kCompose, kIsEmpty };

HotOp HotOpOf(const FlatRequest& request) {
  const FlatValue* op = request.Find("op");
  if (op == nullptr || op->kind != FlatValue::Kind::kString) {
    return HotOp::kNone;
  }
  if (op->text == "simplify") return HotOp::kSimplify;
  if (op->text == "compose") return HotOp::kCompose;
  if (op->text == "is_empty") return HotOp::kIsEmpty;
  if (op->text == "parse") return HotOp::kParse;
  return HotOp::kNone;
}

bool IsString(const FlatValue* v) {
  return v != nullptr && v->kind == FlatValue::Kind::kString;
}

// The response field "map": the canonical print (MapToString), written
// straight into the response.
void AppendMapField(const IndexingMap& map, std::string* out) {
  out->append("\"map\":\"");
  const size_t start = out->size();
  AppendIndexingMap(map, ResponseSyntax(), *out);
  QuoteAppendedText(start, out);
}

}  // namespace

bool IsFastOp(const FlatRequest& request) {
  const FlatValue* id = request.Find("id");
  if (id != nullptr && id->kind == FlatValue::Kind::kList) return false;
  const FlatValue* syntax = request.Find("syntax");
  if (syntax != nullptr &&
      !(IsString(syntax) && TextSyntaxFromName(syntax->text))) {
    return false;
  }
  // Fields besides the op's own: any other field (unknown, or repeated) is
  // for the general path, which answers bad_request naming it.
  const size_t common =
      1 + (id != nullptr ? 1 : 0) + (syntax != nullptr ? 1 : 0);
  switch (HotOpOf(request)) {
    case HotOp::kNone:
      return false;
    case HotOp::kParse:
    case HotOp::kIsEmpty:
      return IsString(request.Find("map")) &&
             request.num_fields() == common + 1;
    case HotOp::kSimplify: {
      const FlatValue* explain = request.Find("explain");
      return IsString(request.Find("map")) &&
             (explain == nullptr || explain->kind == FlatValue::Kind::kFalse) &&
             request.num_fields() == common + 1 + (explain != nullptr ? 1 : 0);
    }
    case HotOp::kCompose: {
      const FlatValue* maps = request.Find("maps");
      if (maps == nullptr || maps->kind != FlatValue::Kind::kList ||
          maps->num_items < 2 || request.num_fields() != common + 1) {
        return false;
      }
      for (const FlatValue& item : request.Items(*maps)) {
        if (item.kind != FlatValue::Kind::kString) return false;
      }
      return true;
    }
  }
  return false;
}

// Mirrors OpParse, OpSimplify, OpCompose and OpIsEmpty (ops_algebra.cc):
// the same calls, the same fields in the same (alphabetical) order.
Status AnswerFastOp(const FlatRequest& request, TextSyntax batch_syntax,
                    ExprContext& ctx, std::string* out) {
  // Every map of this response prints in the request's syntax.
  const FlatValue* syntax = request.Find("syntax");
  const TextSyntax response_syntax =
      syntax != nullptr ? *TextSyntaxFromName(syntax->text) : batch_syntax;
  SetResponseSyntax(response_syntax);
  // And every other expression string (messages), as Dispatch does.
  ScopedTextSyntax printed_as(response_syntax);
  const FlatValue* map_text = request.Find("map");
  switch (HotOpOf(request)) {
    case HotOp::kParse: {
      IXA_ASSIGN_OR_RETURN(IndexingMap map,
                           ParseMapField(map_text->text, "map", ctx));
      AppendMapField(map, out);
      return Status();
    }
    case HotOp::kSimplify: {
      IXA_ASSIGN_OR_RETURN(IndexingMap map,
                           ParseMapField(map_text->text, "map", ctx));
      SimplifyResult r = Simplify(&map);
      if (r.budget_exhausted) out->append("\"budget_exhausted\":true,");
      out->append(r.changed ? "\"changed\":true," : "\"changed\":false,");
      AppendMapField(map, out);
      return Status();
    }
    case HotOp::kCompose: {
      std::vector<std::string_view> texts;
      for (const FlatValue& item : request.Items(*request.Find("maps"))) {
        texts.push_back(item.text);
      }
      IXA_ASSIGN_OR_RETURN(IndexingMap map, ComposeMapTexts(texts, ctx));
      AppendMapField(map, out);
      return Status();
    }
    case HotOp::kIsEmpty: {
      IXA_ASSIGN_OR_RETURN(IndexingMap map,
                           ParseMapField(map_text->text, "map", ctx));
      IXA_ASSIGN_OR_RETURN(bool empty, IsEmpty(map));
      out->append(empty ? "\"empty\":true" : "\"empty\":false");
      return Status();
    }
    case HotOp::kNone:
      break;
  }
  return Error{ErrorCode::kInternal, "AnswerFastOp: not a hot op", 0, 0};
}

namespace {

// `{"id":<the request's id, or null>`: how every response starts.
void AppendResponseId(const FlatRequest& request, std::string* out) {
  out->append("{\"id\":");
  if (const FlatValue* id = request.Find("id")) {
    AppendFlatValue(request, *id, out);
  } else {
    out->append("null");
  }
}

}  // namespace

void AppendFastResponseStart(const FlatRequest& request, std::string* out) {
  AppendResponseId(request, out);
  out->append(",\"ok\":true,");
}

void AppendFastResponseEnd(std::string* out) { out->append("}\n"); }

void AppendFastErrorResponse(const FlatRequest& request, const Error& error,
                             std::string* out) {
  AppendResponseId(request, out);
  out->append(",\"ok\":false,\"error\":");
  AppendJson(ErrorJson(error), out);
  out->append("}\n");
}

}  // namespace ixa::cli
