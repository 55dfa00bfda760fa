// The cost of one kernel (a fusion or a plain instruction) on one device,
// in either model (docs/cost-model.md):
//   ixa (the default)  analysis/uses/ixa_cost_model.h: read through the
//                      emitter plan ixa would emit, exact reads per
//                      operand, per-operand coalescing, per-op throughput,
//                      occupancy and waves, caches for the re-read data;
//                      its departures from XLA's model named in `notes`;
//   xla                analysis/uses/xla_performance_model.h: XLA's GPU
//                      performance model, rule for rule.
// Shared by both (analysis/uses/cost_terms.h): the report (FusionCost),
// the options and the occupancy (resident blocks per SM, waves); the
// element counts only the ixa model reads are in ixa_cost_model.h. Times
// are microseconds and never include the launch overhead (decisions add
// 1 us per kernel).
#ifndef IXA_ANALYSIS_USES_FUSION_COST_H_
#define IXA_ANALYSIS_USES_FUSION_COST_H_

#include "analysis/uses/cost_terms.h"

namespace ixa {

struct XlaRunTime;
// The report of an xla-model estimate.
FusionCost FusionCostFromXla(const XlaRunTime& time, const hw::Device& device);

Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      ExprContext* ctx);
Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      const CostOptions& options,
                                      ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_COST_H_
