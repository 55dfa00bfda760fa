// XLA's pre-fusion pipeline for the ops that plan or cost a module
// (fusion_plan, fusion_cost) and the `prefusion` op itself
// (ops_prefusion.cc): the request's module rewritten, unless the request
// says `"prefusion": false`.
#ifndef IXA_TOOLS_IXA_PREFUSION_REQUEST_H_
#define IXA_TOOLS_IXA_PREFUSION_REQUEST_H_

#include <memory>

#include "analysis/hlo/module.h"
#include "analysis/prefusion/prefusion.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

struct PrefusedModule {
  std::unique_ptr<hlo::Module> input;
  PrefusionResult prefusion;
  // The module the ops work on: the rewritten one, or the input.
  const hlo::Module& module() const { return prefusion.Output(*input); }
};

// The request's module after the pre-fusion pipeline (or as written when
// `prefusion` is false).
Result<PrefusedModule> GetPrefusedModule(const Json& request);

// The rewrites as a list of {pass, instruction, what}.
Json PrefusionRewritesJson(const std::vector<PrefusionRewrite>& rewrites);

// The `prefusion` op.
Result<Json> PrefusionOp(const Json& request, ExprContext& ctx);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_PREFUSION_REQUEST_H_
