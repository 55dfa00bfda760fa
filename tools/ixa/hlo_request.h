// Request fields shared by the ops that read an HLO module (ops_hlo.cc,
// ops_uses.cc): `hlo`, the region named by `fusion` / `instructions`, and
// optional scalar fields.
#ifndef IXA_TOOLS_IXA_HLO_REQUEST_H_
#define IXA_TOOLS_IXA_HLO_REQUEST_H_

#include <memory>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/uses/kernel_graph.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

// The module in `hlo`; parse errors keep their line and column.
inline Result<std::unique_ptr<hlo::Module>> GetModule(const Json& request) {
  IXA_ASSIGN_OR_RETURN(std::string text, GetString(request, "hlo"));
  auto module = hlo::ParseHloModule(text);
  if (!module.ok()) {
    Error e = module.error();
    e.message = "in 'hlo': " + e.message;
    return e;
  }
  return module;
}

inline Result<std::string> GetOptionalString(const Json& request,
                                             const char* field) {
  if (!Has(request, field)) return std::string();
  return GetString(request, field);
}

inline Result<int64_t> GetOptionalInt(const Json& request, const char* field,
                                      int64_t fallback) {
  if (!Has(request, field)) return fallback;
  return GetInt(request, field);
}

// `instructions` (a producer/consumer group of the entry computation, its
// fusions inlined), else `fusion`, else the entry root fusion or the entry
// computation. The result keeps alive the module a group is read from.
inline Result<FlatRegion> GetRegion(const Json& request,
                                    const hlo::Module& module) {
  if (Has(request, "instructions")) {
    const Json& list = request.at("instructions");
    if (!list.is_array()) {
      return Error::BadRequest(
          "field 'instructions' must be a list of instruction names");
    }
    std::vector<std::string> names;
    for (const Json& n : list) {
      if (!n.is_string()) {
        return Error::BadRequest(
            "field 'instructions' must be a list of instruction names");
      }
      names.push_back(n.get<std::string>());
    }
    return RegionOfEntryInstructions(module, names);
  }
  IXA_ASSIGN_OR_RETURN(std::string fusion,
                       GetOptionalString(request, "fusion"));
  IXA_ASSIGN_OR_RETURN(FusionRegion region, ResolveFusion(module, fusion));
  return FlatRegion{nullptr, std::move(region)};
}

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_HLO_REQUEST_H_
