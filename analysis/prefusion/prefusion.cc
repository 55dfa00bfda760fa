#include "analysis/prefusion/prefusion.h"

#include "core/budget.h"

namespace ixa {
namespace {

// A fixpoint pass that still rewrites after this many rounds is broken
// (each round at least halves a reduction's length or its reduced dims).
constexpr int kMaxPrefusionRounds = 64;

// Runs passes in turn on the module the previous ones left.
class PassRunner {
 public:
  explicit PassRunner(const hlo::Module& module) : module_(module) {}
  Status Run(Result<PassResult> (*pass)(const hlo::Module&), bool fixpoint) {
    for (int round = 0; round < kMaxPrefusionRounds; ++round) {
      if (DeadlineExpired("prefusion")) return DeadlineError();
      IXA_ASSIGN_OR_RETURN(PassResult r, pass(result_.Output(module_)));
      for (PrefusionRewrite& w : r.rewrites) {
        result_.rewrites.push_back(std::move(w));
      }
      if (!r.module) return Status();
      result_.module = std::move(r.module);
      if (!fixpoint) return Status();
    }
    return Error::Limit("the pre-fusion passes did not settle after " +
                        std::to_string(kMaxPrefusionRounds) + " rounds");
  }
  PrefusionResult Take() { return std::move(result_); }

 private:
  const hlo::Module& module_;
  PrefusionResult result_;
};

// XLA's expanders, in the order its GPU pipeline runs them (before
// anything that shapes fusion; the select-and-scatter's scatter and the
// batch norms' reduces are then normalized like any other).
Status RunExpanders(PassRunner& runner) {
  IXA_RETURN_IF_ERROR(runner.Run(ExpandBatchNorms, false));
  IXA_RETURN_IF_ERROR(runner.Run(DecomposeStochasticConverts, false));
  IXA_RETURN_IF_ERROR(runner.Run(ExpandSelectAndScatters, false));
  IXA_RETURN_IF_ERROR(runner.Run(DecomposeTopks, false));
  IXA_RETURN_IF_ERROR(runner.Run(ExpandScaledDots, false));
  return runner.Run(ExpandRaggedDots, false);
}

}  // namespace

Result<PrefusionResult> RunPrefusion(const hlo::Module& module,
                                     const PrefusionOptions& options) {
  PassRunner runner(module);
  IXA_RETURN_IF_ERROR(RunExpanders(runner));
  if (options.gemms) IXA_RETURN_IF_ERROR(runner.Run(RewriteGemms, false));
  IXA_RETURN_IF_ERROR(runner.Run(NormalizeBatchedGatherScatter, false));
  IXA_RETURN_IF_ERROR(runner.Run(SimplifyScatters, false));
  IXA_RETURN_IF_ERROR(runner.Run(RemoveReductionDegenerateDims, false));
  IXA_RETURN_IF_ERROR(runner.Run(NormalizeReductionLayouts, false));
  IXA_RETURN_IF_ERROR(runner.Run(GroupReductionDimensions, false));
  IXA_RETURN_IF_ERROR(runner.Run(SplitReductions, true));
  IXA_RETURN_IF_ERROR(runner.Run(RewriteTreeReductions, true));
  return runner.Take();
}

Result<PrefusionResult> RunOneDevice(const hlo::Module& module) {
  PassRunner runner(module);
  IXA_RETURN_IF_ERROR(runner.Run(RewriteForOneDevice, true));
  return runner.Take();
}

Result<PrefusionResult> RunCompileLowering(const hlo::Module& module) {
  PassRunner runner(module);
  IXA_RETURN_IF_ERROR(RunExpanders(runner));
  IXA_RETURN_IF_ERROR(runner.Run(NormalizeBatchedGatherScatter, false));
  IXA_RETURN_IF_ERROR(runner.Run(SimplifyScatters, false));
  return runner.Take();
}

}  // namespace ixa
