// The cost of one kernel (a fusion or a plain instruction) on one device,
// in either model (docs/cost-model.md):
//   ixa (the default)  analysis/uses/ixa_cost_model.h: read through the
//                      emitter plan ixa would emit, exact reads per
//                      operand, per-operand coalescing, per-op throughput,
//                      occupancy and waves, caches for the re-read data;
//                      its departures from XLA's model named in `notes`;
//   xla                analysis/uses/xla_performance_model.h: XLA's GPU
//                      performance model, rule for rule.
// Shared by both: the report (FusionCost), the element counts the ixa
// model reads (bytes_read, flops: Σ over instructions of flops per
// evaluation times the evaluations, i.e. the domain points of the maps
// from the root to that instruction; data movement 0, elementwise 1,
// reduce n per output, dot 2K), the bytes a plan writes (every root's
// output, only the updates of an in-place dynamic-update-slice or a
// scatter, a library call's result without its workspace) and the
// occupancy (resident blocks per SM, waves). Times are microseconds and
// never include the launch overhead (decisions add 1 us per kernel).
#ifndef IXA_ANALYSIS_USES_FUSION_COST_H_
#define IXA_ANALYSIS_USES_FUSION_COST_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/uses/coalescing.h"
#include "analysis/uses/utilization.h"
#include "hw/device.h"

namespace ixa {

// Which cost model answers: ixa's own (the default) or XLA's GPU
// performance model, exactly (analysis/uses/xla_performance_model.h).
enum class CostModel { kIxa, kXla };
const char* CostModelName(CostModel model);  // "ixa", "xla"
std::optional<CostModel> CostModelFromName(std::string_view name);

// One operand's read, in either model.
struct OperandCost {
  int parameter = 0;
  std::string name;
  int64_t bytes_total = 0;  // bytes read, re-reads included
  int64_t bytes_net = 0;    // distinct bytes read (from DRAM)
  double read_time_us = 0;
  bool coalesced = true;
  // xla: the operand's utilization (reads per element); ixa: reads per
  // element of the operand.
  double utilization = 0;
};

struct FusionCost {
  CostModel model = CostModel::kIxa;
  EmitterKind emitter = EmitterKind::kLoop;
  std::optional<ReductionKind> reduction_kind;
  LaunchDimensions launch;
  int64_t blocks_per_core = 0;
  int64_t waves = 0;
  int64_t bytes_read = 0;
  double bytes_moved = 0;
  int64_t bytes_written = 0;
  int64_t flops = 0;
  int64_t matrix_flops = 0;  // the part of flops on the matrix units
  double active_fraction = 1;
  double memory_us = 0, compute_us = 0, time_us = 0;
  // The kernel's time (time_us is the same), the write part of memory_us,
  // and the launch overhead a plan adds per kernel (not in exec_us).
  double exec_us = 0, write_us = 0, launch_overhead_us = 1;
  std::vector<OperandCost> operands;
  std::vector<OperandUtilization> utilization;
  std::vector<OperandCoalescing> coalescing;
  std::vector<UnknownOperand> unknown;
  // Why flops are 0 when the region's maps could not be composed, or
  // which instructions' flops are missing from them (RegionFlops).
  std::optional<std::string> flops_unknown;
  // Set when the emitters refuse the fusion (e.g. a reduction XLA would
  // decompose first): it is then costed with the loop emitter's plan.
  std::string note;
  // The model's departures from XLA's (ixa) or what it does not cost
  // (xla), in words.
  std::vector<std::string> notes;
  // xla: set when XLA's cost is undefined (a custom call of unknown cost);
  // the times are then not meaningful.
  std::optional<std::string> time_unknown;
  // xla: the bytes XLA's cost analysis reports for the kernel (the part of
  // the module-level bytes_accessed it adds): read plus written, plus, in
  // a fusion, every constant of more than 8 elements (which the
  // performance model's reads leave out).
  std::optional<int64_t> bytes_accessed;
};

struct CostOptions {
  CostModel model = CostModel::kIxa;
  // ixa: name the departures from XLA's model in `notes` (this costs XLA's
  // counts of the kernel too; fusion plans leave them out).
  bool notes = true;
  // A fusion (XLA's fused counting rules) or one plain instruction; unset:
  // RegionIsFusion.
  std::optional<bool> is_fusion;
};

// A fused computation, or a group of more than one instruction, is a
// fusion; one instruction of a computation on its own is a plain op.
bool RegionIsFusion(const FusionRegion& region);

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

// Flops of the region: vector and matrix parts (see the header). An
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

struct XlaRunTime;
// The report of an xla-model estimate.
FusionCost FusionCostFromXla(const XlaRunTime& time, const hw::Device& device);

// Bytes the plan writes (see the header).
int64_t PlanBytesWritten(const EmitterPlan& plan);

// Sets blocks_per_core (resident blocks per SM: threads, shared memory and
// 32 allow) and waves from the launch.
void FillOccupancy(const hw::Device& device, FusionCost* cost);

Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      ExprContext* ctx);
Result<FusionCost> EstimateFusionCost(const FusionRegion& region,
                                      const hw::Device& device,
                                      const CostOptions& options,
                                      ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_FUSION_COST_H_
