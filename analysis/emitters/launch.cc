// Launch dimensions, the loop configuration and the default thread map
// (docs/xla-reference.md §(h) h.5): XLA's CalculateLaunchDimensions,
// ComputeLoopFusionConfig (with RowVectorizationEnabled and
// MayPreventVectorization) and GetDefaultThreadIdIndexingMap.
#include <algorithm>
#include <deque>

#include "analysis/emitters/internal.h"
#include "core/int_math.h"

namespace ixa::emitters {
namespace {

using hlo::Opcode;

// Elements beyond this are refused: every product of the launch model
// (threads * blocks * unroll * chunks) then stays far from int64 overflow.
constexpr int64_t kMaxElements = int64_t{1} << 62;

// ThreadsPerBlockRowVectorized: the row's threads when each handles u
// elements, or -1 when the row does not qualify.
int64_t ThreadsPerRow(const hlo::Shape& shape, const hw::Device& device,
                      const LoopConfig& config) {
  if (shape.dims.empty()) return -1;
  const int64_t last = shape.dims.back();
  const int64_t per_row = last / config.unroll;
  if (config.row_vectorized && last % config.unroll == 0 && last % 256 != 0 &&
      per_row <= device.threads_per_block_limit) {
    return per_row;
  }
  return -1;
}

bool IsDefaultLayout(const hlo::Shape& s) {
  const std::vector<int64_t> m2m = s.MinorToMajor();
  for (int i = 0; i < s.rank(); ++i) {
    if (m2m[i] != s.rank() - 1 - i) return false;
  }
  return true;
}

// Nodes inside the fusion reachable from the roots (roots first).
std::vector<const Instruction*> ReachableInside(const FusionInfo& info) {
  std::vector<const Instruction*> out;
  std::deque<const Instruction*> queue;
  std::unordered_set<const Instruction*> seen;
  for (const Instruction* r : info.roots) {
    if (info.IsInside(r) && seen.insert(r).second) queue.push_back(r);
  }
  while (!queue.empty()) {
    const Instruction* n = queue.front();
    queue.pop_front();
    out.push_back(n);
    for (const Instruction* o : n->operands) {
      if (info.IsInside(o) && seen.insert(o).second) queue.push_back(o);
    }
  }
  return out;
}

bool MayPreventVectorization(const std::vector<const Instruction*>& nodes) {
  constexpr int kMaxConcatArgumentsForUnrolling = 10;
  for (const Instruction* n : nodes) {
    const Opcode op = n->opcode;
    if (op == Opcode::kReduceWindow || op == Opcode::kSort ||
        op == Opcode::kDot || op == Opcode::kSin || op == Opcode::kCos ||
        op == Opcode::kTan || op == Opcode::kPower || op == Opcode::kAtan2) {
      return true;
    }
    if (op == Opcode::kConcatenate &&
        n->operand_count() > kMaxConcatArgumentsForUnrolling) {
      return true;
    }
    if (op == Opcode::kReduce && n->shape.IsTuple() &&
        n->shape.tuple_elements.size() > 1) {
      return true;
    }
  }
  return false;
}

struct RowVectorization {
  bool enabled = false;
  int num_big_inputs = 0;
};

RowVectorization RowVectorizationEnabled(
    const FusionInfo& info, const std::vector<const Instruction*>& nodes,
    int out_rank) {
  RowVectorization result;
  if (info.roots.size() != 1 || info.roots[0]->shape.IsTuple() ||
      !IsDefaultLayout(info.roots[0]->shape)) {
    return result;
  }
  bool row_broadcast = false;
  for (const Instruction* n : nodes) {
    if (hlo::IsElementwiseOpcode(n->opcode) || n->opcode == Opcode::kConstant ||
        n->opcode == Opcode::kParameter) {
      continue;
    }
    if (n->opcode == Opcode::kBroadcast) {
      if (n->dimensions.empty()) continue;
      if (n->dimensions.size() == 1 &&
          n->dimensions[0] == n->shape.rank() - 1) {
        row_broadcast = true;
        continue;
      }
    }
    return result;
  }
  bool all_default = true;
  for (const Instruction* p : info.region->parameters) {
    if (p->shape.IsArray() && p->shape.rank() == out_rank) {
      ++result.num_big_inputs;
    }
    if (!IsDefaultLayout(p->shape)) all_default = false;
  }
  result.enabled = all_default && row_broadcast;
  return result;
}

}  // namespace

Result<LaunchDimensions> CalculateLaunchDimensions(const hlo::Shape& shape,
                                                   const hw::Device& device,
                                                   const LoopConfig& config) {
  LaunchDimensions launch;
  const int64_t total = shape.ElementCount();
  if (total > kMaxElements) {
    return Error::Limit("launch of " + shape.ToString() +
                        ": more than 2^62 elements");
  }
  if (total <= 1) return launch;
  const int64_t n = CeilDiv(total, config.unroll);
  if (!config.row_vectorized && !config.few_waves) {
    launch.threads[0] = std::min(4 * device.warp_size, n);
    launch.blocks[0] = CeilDiv(n, launch.threads[0]);
    return launch;
  }
  const int64_t per_row = ThreadsPerRow(shape, device, config);
  int64_t tx = std::min(
      n, per_row > 0
             ? per_row
             : RoundUp(device.threads_per_block_limit / config.unroll, 32));
  int64_t ty = 1;
  if (per_row > 0 && per_row < 128 && n > 128) ty = CeilDiv(128, per_row);
  int64_t blocks = CeilDiv(n, tx * ty);
  if (config.few_waves) {
    if (config.row_vectorized) {
      const int64_t max_blocks =
          32 * device.sm_count * (device.threads_per_core / (tx * ty));
      int64_t capped = blocks;
      while (capped > max_blocks) capped /= 2;
      if (capped < blocks) blocks = capped;
    } else {
      const int64_t capped_tx = std::min<int64_t>(tx, 128);
      const int64_t capped_blocks =
          device.sm_count * (device.threads_per_core / (capped_tx * ty));
      if (capped_blocks < blocks) {
        tx = capped_tx;
        blocks = capped_blocks;
      }
    }
  }
  launch.threads = {tx, ty, 1};
  launch.blocks = {std::max<int64_t>(blocks, 1), 1, 1};
  return launch;
}

Result<IndexingMap> DefaultThreadMap(const LaunchDimensions& launch,
                                     int64_t unroll, const hlo::Shape& shape,
                                     ExprContext* ctx) {
  if (!shape.IsArray()) {
    return Error::Unsupported("thread map of the non-array shape " +
                              shape.ToString());
  }
  const int64_t n = shape.ElementCount();
  if (n > kMaxElements) {
    return Error::Limit("thread map of " + shape.ToString() +
                        ": more than 2^62 elements");
  }
  // L = Σ (th_i + bl_i T_i) st_i, st_x = 1, st_y = T_x B_x, ...
  Expr linear = ctx->Constant(0);
  int64_t stride = 1;
  for (int i = 0; i < 3; ++i) {
    Expr coord = ctx->Dim(i) + ctx->Dim(3 + i) * launch.threads[i];
    linear = linear + coord * stride;
    stride = SaturatingMul(stride,
                           SaturatingMul(launch.threads[i], launch.blocks[i]));
  }
  const int64_t bound = SaturatingMul(launch.threads_per_block(),
                                      launch.num_blocks());  // launch_bound
  const int64_t per_chunk = SaturatingMul(bound, unroll);
  if (per_chunk >= kMaxElements) {
    return Error::Limit("launch: too many threads");
  }
  Expr element = linear * unroll + ctx->Symbol(0) * per_chunk + ctx->Symbol(1);
  // An empty shape has no element to write (and no chunk: the domain is
  // empty); its results are 0 rather than a mod by 0.
  std::vector<Expr> results(shape.rank(), ctx->Constant(0));
  int64_t divisor = 1;
  for (int64_t d : shape.MinorToMajor()) {
    if (n == 0) break;
    results[d] = element.FloorDiv(divisor) % shape.dims[d];
    divisor = SaturatingMul(divisor, shape.dims[d]);
  }
  std::vector<Variable> ranges = {RangeVar(CeilDiv(n, per_chunk), "chunk_id"),
                                  RangeVar(unroll, "unroll_id")};
  return GridMap(ctx, launch, std::move(ranges), std::move(results),
                 {{element, Interval{0, n - 1}}});
}

LoopConfig ComputeLoopConfig(const FusionInfo& info, const hlo::Shape& element,
                             const hw::Device& device) {
  LoopConfig config;
  const std::vector<const Instruction*> nodes = ReachableInside(info);
  const int64_t n = element.ElementCount();
  if (n >= device.threads_per_core * device.sm_count &&
      !MayPreventVectorization(nodes)) {
    config.unroll = n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
  }
  if (info.bits_out > 0 && info.bits_out < 8) {
    config.unroll = std::max<int64_t>(config.unroll, CeilDiv(8, info.bits_out));
  }
  const RowVectorization row =
      RowVectorizationEnabled(info, nodes, element.rank());
  config.row_vectorized = row.enabled;
  config.few_waves = true;
  for (const Instruction* node : nodes) {
    if (node->opcode == Opcode::kParameter ||
        node->opcode == Opcode::kConstant ||
        hlo::IsElementwiseOpcode(node->opcode)) {
      continue;
    }
    if (node->opcode == Opcode::kBroadcast &&
        (node->dimensions.empty() ||
         (row.enabled && row.num_big_inputs <= 3))) {
      continue;
    }
    config.few_waves = false;
    break;
  }
  if (config.row_vectorized && ThreadsPerRow(element, device, config) <= 0) {
    config.row_vectorized = false;
    config.few_waves = false;
  }
  return config;
}

}  // namespace ixa::emitters
