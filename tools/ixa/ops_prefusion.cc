// The `prefusion` op (docs/protocol.md) and the pipeline run that
// fusion_plan and fusion_cost make first.
#include "analysis/hlo/printer.h"
#include "tools/ixa/hlo_request.h"
#include "tools/ixa/prefusion_request.h"

namespace ixa::cli {

Result<PrefusedModule> GetPrefusedModule(const Json& request) {
  PrefusedModule out;
  IXA_ASSIGN_OR_RETURN(out.input, GetModule(request));
  IXA_ASSIGN_OR_RETURN(bool run, GetBool(request, "prefusion", true));
  if (!run) return out;
  PrefusionOptions options;
  IXA_ASSIGN_OR_RETURN(options.gemms, GetBool(request, "gemms", true));
  IXA_ASSIGN_OR_RETURN(out.prefusion, RunPrefusion(*out.input, options));
  return out;
}

Json PrefusionRewritesJson(const std::vector<PrefusionRewrite>& rewrites) {
  Json out = Json::array();
  for (const PrefusionRewrite& r : rewrites) {
    out.push_back(Json{
        {"pass", r.pass}, {"instruction", r.instruction}, {"what", r.what}});
  }
  return out;
}

Result<Json> PrefusionOp(const Json& request, ExprContext&) {
  IXA_ASSIGN_OR_RETURN(PrefusedModule prefused, GetPrefusedModule(request));
  return Json{{"hlo", hlo::PrintModule(prefused.module())},
              {"changed", prefused.prefusion.module != nullptr},
              {"rewrites", PrefusionRewritesJson(prefused.prefusion.rewrites)}};
}

}  // namespace ixa::cli
