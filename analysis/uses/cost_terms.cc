#include "analysis/uses/cost_terms.h"

#include <algorithm>

namespace ixa {

const char* CostModelName(CostModel model) {
  return model == CostModel::kXla ? "xla" : "ixa";
}

std::optional<CostModel> CostModelFromName(std::string_view name) {
  if (name == "ixa") return CostModel::kIxa;
  if (name == "xla") return CostModel::kXla;
  return std::nullopt;
}

bool RegionIsFusion(const FusionRegion& region) {
  if (region.computation && !region.computation->is_entry()) return true;
  int ops = 0;
  for (const hlo::Instruction* m : region.members) {
    if (m->opcode != hlo::Opcode::kParameter &&
        std::find(region.parameters.begin(), region.parameters.end(), m) ==
            region.parameters.end()) {
      ++ops;
    }
  }
  return ops > 1;
}

void FillOccupancy(const hw::Device& device, FusionCost* cost) {
  const LaunchDimensions& l = cost->launch;
  const int64_t threads = std::max<int64_t>(1, l.threads_per_block());
  const int64_t blocks = std::max<int64_t>(1, l.num_blocks());
  int64_t per_core = 32;
  if (device.threads_per_core > 0) {
    per_core = std::min(per_core, device.threads_per_core / threads);
  }
  if (l.shared_memory_bytes > 0 && device.smem_bytes_per_sm > 0) {
    per_core =
        std::min(per_core, device.smem_bytes_per_sm / l.shared_memory_bytes);
  }
  cost->blocks_per_core = std::max<int64_t>(1, per_core);
  const int64_t cores = std::max<int64_t>(1, device.sm_count);
  cost->waves = (blocks + cores * cost->blocks_per_core - 1) /
                (cores * cost->blocks_per_core);
}

}  // namespace ixa
