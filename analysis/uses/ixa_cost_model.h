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

#include <span>
#include <string>

#include "analysis/uses/cost_terms.h"

namespace ixa {

// The element counts the model reads (analysis/uses/ixa_cost_counts.cc):
// bytes_read, flops (Σ over instructions of flops per evaluation times the
// evaluations, i.e. the domain points of the maps from the root to that
// instruction; data movement 0, elementwise 1, reduce n per output, dot
// 2K) and the bytes a plan writes (every root's output, only the updates
// of an in-place dynamic-update-slice or a scatter, a library call's
// result without its workspace).

// Bytes of `elements` elements of `shape`'s type: sub-byte types packed,
// rounded up to whole bytes.
int64_t BytesOfElements(const hlo::Shape& shape, int64_t elements);

// Flops of one evaluation of `instr` (one output element).
int64_t FlopsPerElement(const hlo::Instruction& instr);

// Exact element reads of a tensor of `shape` through `coverage` maps
// (ParameterPlan::coverage_maps): reads = Σ domain points, elements_read =
// |∪ images|. A count beyond the budgets falls back to the whole tensor
// (method "bound").
OperandUtilization UtilizationOfCoverage(std::span<const IndexingMap> coverage,
                                         const hlo::Shape& shape);

// Flops of the region: vector and matrix parts (see above). An
// instruction reached through an op without indexing maps has unknown
// evaluations: its flops are not counted, and `not_counted` names it
// (empty when the count is exact). Errors: budgets.
struct RegionFlopsCount {
  int64_t vector_flops = 0, matrix_flops = 0;
  // With a device: the vector work in FP32-FMA issue slots per lane
  // (hw/throughput.h), matrix-unit work excluded.
  double issue_slots = 0;
  std::string not_counted;
};
Result<RegionFlopsCount> RegionFlops(const FusionRegion& region,
                                     ExprContext* ctx);
Result<RegionFlopsCount> RegionFlops(const FusionRegion& region,
                                     ExprContext* ctx,
                                     const hw::Device* device);

// Issue slots of one evaluation of `instr` on `device` (hw/throughput.h;
// reductions n applications of the reducer per output).
double IssueSlotsPerElement(const hlo::Instruction& instr,
                            const hw::Device& device);

// Whether a dot (or library call) runs on the matrix units: 16-bit or
// narrower inputs.
bool IsNarrowDot(const hlo::Instruction& instr);

// Bytes the plan writes (see above).
int64_t PlanBytesWritten(const EmitterPlan& plan);

Result<FusionCost> EstimateIxaCost(const FusionRegion& region,
                                   const hw::Device& device,
                                   const CostOptions& options,
                                   ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_IXA_COST_MODEL_H_
