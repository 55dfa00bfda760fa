#include "tools/ixa/protocol.h"

#include "core/text.h"

namespace ixa::cli {

bool Has(const Json& request, const char* field) {
  return request.is_object() && request.contains(field);
}

namespace {

// The string of `field`, by reference into the request (no copy).
Result<const std::string*> StringField(const Json& request, const char* field) {
  if (!Has(request, field)) {
    return Error::BadRequest(std::string("missing field '") + field + "'");
  }
  const Json& v = request.at(field);
  if (!v.is_string()) {
    return Error::BadRequest(std::string("field '") + field +
                             "' must be a string");
  }
  return &v.get_ref<const std::string&>();
}

}  // namespace

Result<std::string> GetString(const Json& request, const char* field) {
  IXA_ASSIGN_OR_RETURN(const std::string* text, StringField(request, field));
  return *text;
}

static Result<int64_t> AsInt(const Json& v, const std::string& what) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(kInt64Max)) {
      return Error::BadRequest(what + " does not fit in int64");
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    return Error::BadRequest(what +
                             " must be an integer (a float, or an "
                             "integer past the int64 range, was given)");
  }
  return Error::BadRequest(what + " must be an integer");
}

Result<int64_t> GetInt(const Json& request, const char* field) {
  if (!Has(request, field)) {
    return Error::BadRequest(std::string("missing field '") + field + "'");
  }
  return AsInt(request.at(field), std::string("field '") + field + "'");
}

Result<bool> GetBool(const Json& request, const char* field, bool fallback) {
  if (!Has(request, field)) return fallback;
  const Json& v = request.at(field);
  if (!v.is_boolean()) {
    return Error::BadRequest(std::string("field '") + field +
                             "' must be true or false");
  }
  return v.get<bool>();
}

Result<std::vector<int64_t>> GetIntList(const Json& request,
                                        const char* field) {
  if (!Has(request, field)) {
    return Error::BadRequest(std::string("missing field '") + field + "'");
  }
  const Json& v = request.at(field);
  if (!v.is_array()) {
    return Error::BadRequest(std::string("field '") + field +
                             "' must be a list of integers");
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    IXA_ASSIGN_OR_RETURN(
        int64_t x, AsInt(v[i], std::string("field '") + field + "' item " +
                                   std::to_string(i)));
    out.push_back(x);
  }
  return out;
}

Result<IndexingMap> ParseMapField(std::string_view text, const char* field,
                                  ExprContext& ctx) {
  auto map = ParseIndexingMap(text, &ctx);
  if (!map.ok()) {
    Error e = map.error();
    e.message = std::string("in '") + field + "': " + e.message;
    return e;
  }
  return map;
}

Result<IndexingMap> GetMap(const Json& request, const char* field,
                           ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(const std::string* text, StringField(request, field));
  return ParseMapField(*text, field, ctx);
}

namespace {
// Per thread: `ixa query --jobs N` answers N requests at once, each on its
// own thread (parallel_query.h).
thread_local TextSyntax response_syntax = TextSyntax::kAffine;
}  // namespace

void SetResponseSyntax(TextSyntax syntax) { response_syntax = syntax; }
TextSyntax ResponseSyntax() { return response_syntax; }

Result<TextSyntax> GetSyntax(const Json& request, TextSyntax batch_default) {
  if (!Has(request, "syntax")) return batch_default;
  const Json& v = request.at("syntax");
  if (v.is_string()) {
    if (auto s = TextSyntaxFromName(v.get<std::string>())) return *s;
  }
  return Error::BadRequest("field 'syntax' must be \"affine\" or \"symbolic\"");
}

std::string MapToString(const IndexingMap& map) {
  return PrintIndexingMap(map, response_syntax);
}

}  // namespace ixa::cli
