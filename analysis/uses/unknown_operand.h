// What a use could not answer (docs/protocol.md "Uses": `unknown`). Every use
// (utilization, tile, coalescing, fusion_cost, fusion_decision) answers the
// parameters it can and lists the others with the reason; the reason of a
// parameter behind an op without indexing maps is the one
// ComputeFusionParameterIndexingPartial gives, whichever use asks.
#ifndef IXA_ANALYSIS_USES_UNKNOWN_OPERAND_H_
#define IXA_ANALYSIS_USES_UNKNOWN_OPERAND_H_

#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "core/result.h"

namespace ixa {

// An operand the analysis could not answer, and why.
struct UnknownOperand {
  int parameter = 0;
  std::string name;
  std::string reason;
};

// The maps from every output of the region's root to each parameter
// (deduplicated over the outputs), or unknown with the reason of the
// first output that makes it unknown. Errors: budgets only.
Result<std::vector<PartialIndexing>> AllOutputsParameterIndexingPartial(
    const FusionRegion& region, ExprContext* ctx);

// "not an array (<shape>)" for a parameter no use can count.
std::string NotAnArrayReason(const hlo::Instruction& parameter);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_UNKNOWN_OPERAND_H_
