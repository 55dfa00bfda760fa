// The JSON Lines query protocol (docs/protocol.md): op handlers and helpers.
// nlohmann_json is used in tools/ only, never in the libraries.
#ifndef IXA_TOOLS_IXA_PROTOCOL_H_
#define IXA_TOOLS_IXA_PROTOCOL_H_

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "core/text.h"

namespace ixa::cli {

using Json = nlohmann::json;

// A handler reads its fields from `request` and returns the op-specific
// response fields as a JSON object ("id" and "ok" are added by the caller).
// Each request gets a fresh ExprContext.
using OpHandler =
    std::function<Result<Json>(const Json& request, ExprContext& ctx)>;
using OpTable = std::map<std::string, OpHandler>;

void RegisterAlgebraOps(OpTable& table);  // ops_algebra.cc
void RegisterHloOps(OpTable& table);      // ops_hlo.cc
void RegisterLayoutOps(OpTable& table);   // ops_layouts.cc
void RegisterBankOps(OpTable& table);     // ops_banks.cc
void RegisterUseOps(OpTable& table);      // ops_uses.cc
void RegisterPlanOps(OpTable& table);     // ops_plans.cc
void RegisterEmitOps(OpTable& table);     // ops_emit.cc
// Linear layouts over GF(2): ops_linear_layout.cc.
void RegisterLinearLayoutOps(OpTable& table);
void RegisterCompileOps(OpTable& table);  // ops_compile.cc

// Field access with bad_request errors naming the field.
Result<std::string> GetString(const Json& request, const char* field);
Result<int64_t> GetInt(const Json& request, const char* field);
Result<bool> GetBool(const Json& request, const char* field, bool fallback);
Result<std::vector<int64_t>> GetIntList(const Json& request, const char* field);
bool Has(const Json& request, const char* field);

// Parses the map in `field`; parse errors keep their line and column.
Result<IndexingMap> GetMap(const Json& request, const char* field,
                           ExprContext& ctx);
// The same for map text already read from request field `field` (the
// message names the field).
Result<IndexingMap> ParseMapField(std::string_view text, const char* field,
                                  ExprContext& ctx);

// Canonical printed form of a map, as every response returns it, in the
// current response's syntax (below).
std::string MapToString(const IndexingMap& map);

// The syntax every map of the current response prints in: the request's
// `syntax` field ("affine", the default, or "symbolic"), else the batch
// default of `ixa query --syntax`. The server sets it before dispatching
// each request, so op handlers need not know about it.
void SetResponseSyntax(TextSyntax syntax);
TextSyntax ResponseSyntax();
// Reads the request's optional `syntax` field (bad_request if it is not one
// of the names), falling back to `batch_default`.
Result<TextSyntax> GetSyntax(const Json& request, TextSyntax batch_default);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_PROTOCOL_H_
