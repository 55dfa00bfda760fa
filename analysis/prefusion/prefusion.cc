#include "analysis/prefusion/prefusion.h"

#include "core/budget.h"

namespace ixa {
namespace {

// A fixpoint pass that still rewrites after this many rounds is broken
// (each round at least halves a reduction's length or its reduced dims).
constexpr int kMaxPrefusionRounds = 64;

}  // namespace

Result<PrefusionResult> RunPrefusion(const hlo::Module& module,
                                     const PrefusionOptions& options) {
  PrefusionResult result;
  auto current = [&]() -> const hlo::Module& {
    return result.module ? *result.module : module;
  };
  auto run = [&](Result<PassResult> (*pass)(const hlo::Module&),
                 bool fixpoint) -> Status {
    for (int round = 0; round < kMaxPrefusionRounds; ++round) {
      if (DeadlineExpired("prefusion")) return DeadlineError();
      IXA_ASSIGN_OR_RETURN(PassResult r, pass(current()));
      for (PrefusionRewrite& w : r.rewrites) {
        result.rewrites.push_back(std::move(w));
      }
      if (!r.module) return Status();
      result.module = std::move(r.module);
      if (!fixpoint) return Status();
    }
    return Error::Limit("the pre-fusion passes did not settle after " +
                        std::to_string(kMaxPrefusionRounds) + " rounds");
  };
  if (options.gemms) IXA_RETURN_IF_ERROR(run(RewriteGemms, false));
  IXA_RETURN_IF_ERROR(run(RemoveReductionDegenerateDims, false));
  IXA_RETURN_IF_ERROR(run(NormalizeReductionLayouts, false));
  IXA_RETURN_IF_ERROR(run(GroupReductionDimensions, false));
  IXA_RETURN_IF_ERROR(run(SplitReductions, true));
  IXA_RETURN_IF_ERROR(run(RewriteTreeReductions, true));
  return result;
}

}  // namespace ixa
