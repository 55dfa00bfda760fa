#include "analysis/uses/unknown_operand.h"

namespace ixa {

Result<std::vector<PartialIndexing>> AllOutputsParameterIndexingPartial(
    const FusionRegion& region, ExprContext* ctx) {
  std::vector<PartialIndexing> all(region.parameters.size());
  for (int out = 0; out < OutputCount(*region.root); ++out) {
    IXA_ASSIGN_OR_RETURN(
        std::vector<PartialIndexing> per_param,
        ComputeFusionParameterIndexingPartial(region, out, ctx));
    for (size_t i = 0; i < per_param.size() && i < all.size(); ++i) {
      if (all[i].unknown()) continue;
      if (per_param[i].unknown()) {
        all[i].maps = IndexingMapSet();
        all[i].unknown_reason = per_param[i].unknown_reason;
        continue;
      }
      if (out == 0) {
        all[i].maps = std::move(per_param[i].maps);
        continue;
      }
      for (const IndexingMap& m : per_param[i].maps) all[i].maps.Insert(m);
    }
  }
  return all;
}

std::string NotAnArrayReason(const hlo::Instruction& parameter) {
  return "not an array (" + parameter.shape.ToString() + ")";
}

}  // namespace ixa
