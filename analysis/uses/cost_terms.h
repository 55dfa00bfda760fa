// The terms both cost models share (analysis/uses/fusion_cost.h): the
// report (FusionCost, one OperandCost per operand read), the options, which
// region is a fusion, and the occupancy of a launch (resident blocks per
// SM, waves). Times are microseconds and never include the launch overhead
// (decisions add 1 us per kernel).
#ifndef IXA_ANALYSIS_USES_COST_TERMS_H_
#define IXA_ANALYSIS_USES_COST_TERMS_H_

#include <optional>
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

// Sets blocks_per_core (resident blocks per SM: threads, shared memory and
// 32 allow) and waves from the launch.
void FillOccupancy(const hw::Device& device, FusionCost* cost);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_COST_TERMS_H_
