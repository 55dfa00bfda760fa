// A roofline cost estimate of one fusion on one device, built from the
// exact utilization and coalescing analyses:
//   bytes_read     = Σ over parameters of element_bytes * elements_read;
//   bytes_moved    = bytes_read, except that an uncoalesced operand's bytes
//                    are divided by its warp efficiency (a warp that uses
//                    half of each sector moves twice the bytes);
//   bytes_written  = the bytes of every output of the root;
//   flops          = Σ over instructions of flops per evaluation times the
//                    number of evaluations, i.e. the domain points of the
//                    maps from the root to that instruction (XLA's indexing
//                    performance model: a value recomputed for several
//                    consumers counts each time). Per evaluation:
//                    elementwise arithmetic and comparisons 1, data
//                    movement 0 (broadcast, transpose, slice, ...), reduce
//                    and reduce-window (inputs) * (elements folded into one
//                    output), dot 2 * K (so 2*M*N*K in all), convolution
//                    2 * (kernel elements per output). Transcendentals
//                    count 1 as well: the roofline is meant for
//                    memory-bound fusions, and XLA's own per-op costs are
//                    device-specific.
//   memory_us      = (bytes_moved + bytes_written) / DRAM bandwidth;
//   compute_us     = flops / peak flops (the bf16 matrix peak for dots on
//                    16-bit types, else fp32);
//   time_us        = max(memory_us, compute_us): compute and memory overlap
//                    perfectly; no launch overhead or tail effects.
#ifndef IXA_ANALYSIS_USES_FUSION_COST_H_
#define IXA_ANALYSIS_USES_FUSION_COST_H_

#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/uses/coalescing.h"
#include "analysis/uses/utilization.h"
#include "hw/device.h"

namespace ixa {

struct FusionCost {
  int64_t bytes_read = 0;
  double bytes_moved = 0;
  int64_t bytes_written = 0;
  int64_t flops = 0;
  LaunchConfig launch;
  double memory_us = 0, compute_us = 0, time_us = 0;
  std::vector<OperandUtilization> utilization;
  std::vector<OperandCoalescing> coalescing;
};

// Flops of one evaluation of `instr` (one output element).
int64_t FlopsPerElement(const hlo::Instruction& instr);

Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_COST_H_
