// ixa's own cost model (`"model": "ixa"`, docs/cost-model.md "The ixa
// model"): XLA's shape of estimate where XLA is right, its known errors
// corrected. Per kernel, through the emitter plan ixa would emit:
//
//   bytes    per operand the distinct elements its thread maps read
//            (bytes_net) and all their reads (bytes_total), counted
//            exactly on the indexing maps; large constants are read like
//            operands;
//   DRAM     Σ bytes_net / the operand's sector efficiency (one warp's
//            request, counted in 32-byte sectors), the writes / their
//            own efficiency, and the re-reads (bytes_total - bytes_net)
//            too when the operands read more than once exceed L2
//            together (XLA tests each operand alone); otherwise re-reads
//            come from L2 (2.5x DRAM bandwidth) or, for an operand under
//            XLA's L1 bound, from L1 (20x);
//   memory   DRAM bytes at the DRAM bandwidth scaled by the bytes in
//            flight: resident threads times unroll against a quarter of
//            the device's thread slots (the occupancy a streaming kernel
//            needs to saturate DRAM);
//   compute  issue slots per op and type (hw/throughput.h), run wave by
//            wave: each wave's busiest SM runs its blocks on min(fpus,
//            their threads) lanes; 16-bit matrix dots at the matrix peak;
//   exec     max(compute, memory).
// `notes` names every departure from XLA's model that changed the answer
// for this kernel, with XLA's number beside ixa's.
#ifndef IXA_ANALYSIS_USES_IXA_COST_MODEL_H_
#define IXA_ANALYSIS_USES_IXA_COST_MODEL_H_

#include "analysis/uses/fusion_cost.h"

namespace ixa {

Result<FusionCost> EstimateIxaCost(const FusionRegion& region,
                                   const hw::Device& device,
                                   const CostOptions& options,
                                   ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_IXA_COST_MODEL_H_
