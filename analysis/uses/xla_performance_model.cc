#include "analysis/uses/xla_performance_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <unordered_set>

#include "analysis/indexing/indexing.h"
#include "core/budget.h"
#include "core/int_math.h"

namespace ixa {
namespace {

using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

// Bits of the narrowest array leaf (pred counts 8); INT32_MAX when none.
int NarrowestBits(const Shape& shape) {
  if (shape.IsTuple()) {
    int bits = INT32_MAX;
    for (const Shape& e : shape.tuple_elements) {
      bits = std::min(bits, NarrowestBits(e));
    }
    return bits;
  }
  if (!shape.IsArray()) return INT32_MAX;
  if (shape.type == hlo::ElementType::kPred) return 8;
  return hlo::ElementBits(shape.type);
}

int WidestBits(const Shape& shape) {
  if (shape.IsTuple()) {
    int bits = 0;
    for (const Shape& e : shape.tuple_elements) {
      bits = std::max(bits, WidestBits(e));
    }
    return bits;
  }
  if (!shape.IsArray()) return 0;
  return std::max(8, hlo::ElementBits(shape.type));
}

std::vector<const Instruction*> InsideMembers(const FusionRegion& region) {
  std::unordered_set<const Instruction*> params(region.parameters.begin(),
                                                region.parameters.end());
  std::vector<const Instruction*> out;
  for (const Instruction* m : region.members) {
    if (!params.count(m) && m->opcode != Opcode::kParameter) out.push_back(m);
  }
  return out;
}

// The 2026 rule's blockers of unrolling.
bool PreventsUnrolling(const std::vector<const Instruction*>& members) {
  for (const Instruction* n : members) {
    const Opcode op = n->opcode;
    if (op == Opcode::kSort || op == Opcode::kDot) return true;
    if (op == Opcode::kReduceWindow) {
      int64_t window = 1;
      for (const hlo::WindowDim& w : n->window) window *= w.size;
      if (window > 8) return true;
    }
    if (op == Opcode::kConcatenate && n->operand_count() > 10) return true;
    if (op == Opcode::kReduce && n->shape.IsTuple() &&
        n->shape.tuple_elements.size() > 1) {
      return true;
    }
  }
  return false;
}

bool ToolkitAtLeast(const std::string& version, int major, int minor) {
  int ma = 0, mi = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &ma, &mi) < 1) return false;
  return ma > major || (ma == major && mi >= minor);
}

int64_t FloorPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

// The physical most-minor dim of a shape that is not 1, or -1.
int64_t FirstNonTrivialDim(const Shape& shape) {
  if (!shape.IsArray()) return -1;
  for (int64_t d : shape.MinorToMajor()) {
    if (shape.dims[d] != 1) return d;
  }
  return -1;
}

// XLA's TransposesMinorDimension for a copy or transpose.
bool TransposesMinorDimension(const Instruction& instr) {
  if (instr.operand_count() < 1) return false;
  const Shape& in = instr.operand(0)->shape;
  if (instr.opcode == Opcode::kCopy) {
    return FirstNonTrivialDim(in) != FirstNonTrivialDim(instr.shape);
  }
  if (instr.opcode == Opcode::kTranspose) {
    if (!instr.shape.IsArray()) return false;
    for (int64_t out_dim : instr.shape.MinorToMajor()) {
      if (instr.shape.dims[out_dim] == 1) continue;
      if (out_dim >= static_cast<int64_t>(instr.dimensions.size())) {
        return false;
      }
      return instr.dimensions[out_dim] != FirstNonTrivialDim(in);
    }
  }
  return false;
}

// A broadcast or iota reached through unary elementwise ops and bitcasts;
// `stop` says where the kernel's own instructions end.
template <typename Stop>
bool IsBroadcastChain(const Instruction* instr, Stop stop) {
  while (true) {
    if (stop(instr)) return false;
    if (instr->opcode == Opcode::kBroadcast || instr->opcode == Opcode::kIota)
      return true;
    if (instr->operand_count() != 1) return false;
    if (instr->opcode != Opcode::kBitcast && !XlaIsElementwise(*instr))
      return false;
    instr = instr->operand(0);
  }
}

bool IsBadTranspose(const XlaKernelRef& kernel) {
  const FusionRegion& region = *kernel.region;
  if (!kernel.is_fusion) {
    const Instruction& x = *region.root;
    return TransposesMinorDimension(x) &&
           !IsBroadcastChain(x.operand(0),
                             [](const Instruction*) { return false; });
  }
  std::unordered_set<const Instruction*> outside(region.parameters.begin(),
                                                 region.parameters.end());
  auto stop = [&](const Instruction* i) {
    return outside.count(i) > 0 || i->opcode == Opcode::kParameter;
  };
  for (const Instruction* m : InsideMembers(region)) {
    if (TransposesMinorDimension(*m) &&
        !IsBroadcastChain(m->operand(0), stop)) {
      return true;
    }
  }
  return false;
}

// XLA's SharedMemoryUsage summed over the kernel's instructions.
int64_t SharedMemoryBudget(const std::vector<const Instruction*>& members) {
  int64_t sum = 0;
  for (const Instruction* m : members) {
    bool is_row = true;
    if (IsContiguousReduction(*m, &is_row)) {
      int64_t bytes = 0;
      for (int i = 0; i < m->operand_count() / 2; ++i) {
        bytes += XlaElementBytesForCoalescing(m->operand(i)->shape);
      }
      sum += is_row ? 32 * bytes : 32 * (4 * 32 + 1) * bytes;
      continue;
    }
    if (TiledTransposeOf(*m) && m->shape.IsArray()) {
      const int bits = hlo::ElementBits(m->shape.type);
      if (bits >= 32) {
        sum += (32 * 33 * bits + 7) / 8;
      } else if (bits > 0) {
        sum += 32 * 4 * 32 * (32 / bits);
      }
    }
  }
  return sum;
}

double BandwidthBytesPerSecond(const hw::Device& device) {
  return std::round(device.dram_gbps * 1e9);
}

// ComputeTime, in seconds.
double ComputeSeconds(const hw::Device& device, int64_t flops,
                      const LaunchDimensions& launch) {
  const int64_t fpus =
      std::min<int64_t>(launch.threads_per_block(), device.fpus_per_core);
  const int64_t cores = std::min<int64_t>(launch.num_blocks(), device.sm_count);
  const double per_ns =
      std::floor(device.clock_ghz * 2 * static_cast<double>(fpus) *
                 static_cast<double>(cores));
  if (per_ns <= 0) return 0;
  const float ns =
      1.0f * static_cast<float>(flops) / static_cast<float>(per_ns);
  return static_cast<double>(ns) * 1e-9;
}

double WriteSeconds(const hw::Device& device, int64_t bytes) {
  const double bw = BandwidthBytesPerSecond(device);
  if (bw <= 0) return 0;
  return static_cast<double>(1.0f * static_cast<float>(bytes) /
                             static_cast<float>(bw));
}

double CoalescingRate(const Shape& shape, const hw::Device& device) {
  const int64_t waste =
      std::max<int64_t>(1, device.dram_to_l2_transaction_bytes /
                               XlaElementBytesForCoalescing(shape));
  return 1.0 / static_cast<double>(waste);
}

double Combine(double compute, double memory) {
  return compute + memory -
         std::min(compute, memory) * kXlaMemoryComputeParallelism;
}

void FinishTimes(double compute_s, double read_s, double write_s,
                 XlaRunTime* t) {
  t->compute_us = compute_s * 1e6;
  t->read_us = read_s * 1e6;
  t->write_us = write_s * 1e6;
  t->memory_us = (read_s + write_s) * 1e6;
  t->exec_us = Combine(compute_s, read_s + write_s) * 1e6;
}

XlaOperandCost OperandCost(const hw::Device& device, int64_t blocks, int index,
                           const Instruction* operand, float utilization,
                           int64_t total, bool coalesced) {
  XlaOperandCost c;
  c.index = index;
  c.operand = operand;
  c.name = operand->name;
  c.utilization = utilization;
  c.size_bytes = XlaShapeSize(operand->shape);
  c.bytes_total = total;
  c.bytes_net = std::min(c.size_bytes, total);
  c.coalesced = coalesced;
  const double rate = coalesced ? 1.0 : CoalescingRate(operand->shape, device);
  c.read_time_us =
      XlaReadTimeSeconds(device, blocks, c.bytes_net, total, rate) * 1e6;
  return c;
}

}  // namespace

double XlaReadTimeSeconds(const hw::Device& device, int64_t num_blocks,
                          int64_t bytes_net, int64_t bytes_total,
                          double bandwidth_rate) {
  const float bandwidth = static_cast<float>(BandwidthBytesPerSecond(device));
  float dram = static_cast<float>(bandwidth * bandwidth_rate);
  float rest = bandwidth;
  if (bytes_net < device.l2_bytes) {
    rest *= 2.5f;
    if (bytes_net < device.l1_bytes_per_core * device.sm_count) rest *= 8.f;
  } else {
    rest = static_cast<float>(rest * bandwidth_rate);
  }
  const float per_block =
      static_cast<float>(device.clock_ghz) * 1.0e9f *
      static_cast<float>(device.memory_transactions_per_clock);
  const float cap = static_cast<float>(num_blocks) * per_block;
  dram = std::min(dram, cap);
  rest = std::min(rest, cap);
  const int64_t from_dram = std::min(bytes_net, bytes_total);
  const int64_t from_cache = bytes_total - from_dram;
  float seconds = 0;
  if (from_dram > 0 && dram > 0)
    seconds += static_cast<float>(from_dram) / dram;
  if (from_cache > 0 && rest > 0) {
    seconds += static_cast<float>(from_cache) / rest;
  }
  return static_cast<double>(seconds);
}

int64_t XlaUnrollFactor(const FusionRegion& region, EmitterKind kind, int64_t n,
                        const hw::Device& device) {
  const std::vector<const Instruction*> members = InsideMembers(region);
  const std::vector<const Instruction*> roots = FusionRoots(region);
  int out_bits = INT32_MAX;
  for (const Instruction* r : roots) {
    out_bits = std::min(out_bits, NarrowestBits(r->shape));
  }
  int64_t max_unroll = 4;
  if (device.compute_capability_major == 10) {
    // Blackwell: wider unrolling for narrow types.
    const int64_t width =
        ToolkitAtLeast(device.toolkit_version, 12, 9) ? 256 : 128;
    bool has_reduce = false, has_pad = false;
    for (const Instruction* m : members) {
      has_reduce |= m->opcode == Opcode::kReduce;
      has_pad |= m->opcode == Opcode::kPad;
    }
    const bool on_path =
        (kind == EmitterKind::kLoop || kind == EmitterKind::kTranspose ||
         kind == EmitterKind::kConcatenate) &&
        roots.size() == 1 && !has_reduce && out_bits < width / 4;
    if (on_path) {
      int64_t widest = 8;
      for (const Instruction* p : region.parameters) {
        widest = std::max<int64_t>(widest, WidestBits(p->shape));
      }
      for (const Instruction* r : roots) {
        widest = std::max<int64_t>(widest, WidestBits(r->shape));
      }
      int64_t u = FloorPowerOfTwo(std::min<int64_t>(32, width / widest));
      if (has_pad) u = std::min<int64_t>(u, 8);
      for (const Instruction* m : members) {
        if (m->opcode != Opcode::kTranspose || !m->shape.IsArray() ||
            m->shape.rank() == 0) {
          continue;
        }
        const int64_t minor = m->shape.dims[m->shape.MinorToMajor()[0]];
        while (u > 4 && minor < u) u /= 2;
      }
      max_unroll = std::max<int64_t>(u, 8);
    }
  }
  int64_t unroll = 1;
  if (n >= device.threads_per_core * device.sm_count &&
      !PreventsUnrolling(members)) {
    unroll = std::gcd(n, max_unroll);
  }
  if (out_bits < 8)
    unroll = std::max<int64_t>(unroll, (8 + out_bits - 1) / out_bits);
  return std::max<int64_t>(unroll, 1);
}

Result<XlaLaunch> ComputeXlaLaunch(const FusionRegion& region,
                                   const hw::Device& device, ExprContext* ctx) {
  XlaLaunch out;
  const std::vector<const Instruction*> members = InsideMembers(region);
  out.shared_memory_budget_bytes = SharedMemoryBudget(members);
  for (const Instruction* m : members) {
    if (IsContiguousReduction(*m)) ++out.unnested_reductions;
  }
  PlanOptions options;
  options.skip_parameters = true;
  Result<EmitterPlan> plan = ComputeEmitterPlan(region, device, options, ctx);
  if (!plan.ok() &&
      (plan.error().code == ErrorCode::kLimitExceeded || DeadlineExpiredIn())) {
    return plan.error();
  }
  auto loop_launch = [&](const Shape& shape, int64_t unroll) {
    LaunchDimensions l;
    const int64_t n = shape.IsArray() ? shape.ElementCount() : 0;
    if (n <= 1) return l;
    const int64_t per_thread = CeilDivNonNegative(n, unroll);
    const int64_t threads = std::min<int64_t>(4 * device.warp_size, per_thread);
    const int64_t blocks = CeilDivNonNegative(per_thread, threads);
    const int64_t limit_x = std::max<int64_t>(1, device.block_dim_limit[0]);
    const int64_t blocks_y = CeilDivNonNegative(blocks, limit_x);
    l.threads = {threads, 1, 1};
    l.blocks = {CeilDivNonNegative(blocks, blocks_y), blocks_y, 1};
    l.unroll = unroll;
    return l;
  };
  if (!plan.ok()) {
    // XLA's fallback: 128 threads per block over the first root.
    out.fallback = plan.error().message;
    const Shape& first = OutputShape(*region.root, 0);
    const int64_t n = first.IsArray() ? first.ElementCount() : 1;
    out.launch.threads = {128, 1, 1};
    out.launch.blocks = {std::max<int64_t>(1, CeilDivNonNegative(n, 128)), 1,
                         1};
    return out;
  }
  out.kind = plan->kind;
  out.reduction_kind = plan->reduction_kind;
  out.own_plan_is_reduction = plan->kind == EmitterKind::kReduction;
  out.launch = plan->launch;
  const std::vector<const Instruction*> roots = FusionRoots(region);
  switch (plan->kind) {
    case EmitterKind::kLoop: {
      const Shape& shape = OutputShape(*roots[0], 0);
      const int64_t n = shape.IsArray() ? shape.ElementCount() : 0;
      out.launch =
          loop_launch(shape, XlaUnrollFactor(region, plan->kind, n, device));
      break;
    }
    case EmitterKind::kConcatenate: {
      const Instruction* concat = plan->roots[0].hero;
      const Shape* largest = &concat->operand(0)->shape;
      for (const Instruction* o : concat->operands) {
        if (o->shape.ElementCount() > largest->ElementCount()) {
          largest = &o->shape;
        }
      }
      out.launch = loop_launch(
          *largest,
          XlaUnrollFactor(region, plan->kind, largest->ElementCount(), device));
      break;
    }
    case EmitterKind::kInPlaceDynamicUpdateSlice:
      out.launch = loop_launch(plan->roots[0].hero->operand(1)->shape, 1);
      break;
    case EmitterKind::kInputSlices: {
      const Shape& shape = plan->roots[0].hero->operand(0)->shape;
      out.launch = loop_launch(
          shape,
          XlaUnrollFactor(region, plan->kind, shape.ElementCount(), device));
      break;
    }
    default:
      break;
  }
  return out;
}

bool XlaReadCoalescedHeuristic(EmitterKind kind, const XlaKernelRef& producer,
                               const XlaKernelRef* consumer) {
  if (kind != EmitterKind::kTranspose) {
    if (IsBadTranspose(producer)) return false;
    if (consumer && IsBadTranspose(*consumer)) return false;
  }
  if (kind == EmitterKind::kReduction && producer.is_reduction && consumer &&
      consumer->is_reduction) {
    return false;
  }
  return true;
}

XlaRunTime EstimateXlaRunTime(const XlaCostAnalysis& analysis,
                              const XlaLaunch& launch, bool coalesced,
                              const hw::Device& device) {
  XlaRunTime t;
  t.launch = launch;
  t.coalesced = coalesced;
  t.unknown = analysis.unknown;
  t.flops = SaturatingFromDouble(analysis.flops);
  t.bytes_written = analysis.bytes_written;
  const int64_t blocks = launch.launch.num_blocks();
  double read_s = 0;
  for (size_t i = 0; i < analysis.operands.size(); ++i) {
    const Instruction* operand = analysis.operands[i];
    // A plain op reads each operand slot as the first slot holding that
    // value (XLA's operand_index).
    const int first = analysis.OperandIndex(operand);
    XlaOperandCost c = OperandCost(device, blocks, static_cast<int>(i), operand,
                                   analysis.operand_utilization[i],
                                   analysis.operand_bytes[first], coalesced);
    t.bytes_read = SaturatingAdd(t.bytes_read, c.bytes_total);
    read_s += c.read_time_us * 1e-6;
    t.operands.push_back(std::move(c));
  }
  FinishTimes(ComputeSeconds(device, t.flops, launch.launch), read_s,
              WriteSeconds(device, t.bytes_written), &t);
  return t;
}

XlaRunTime EstimateXlaFusedRunTime(const XlaCostAnalysis& producer,
                                   const XlaRunTime& producer_time,
                                   const XlaCostAnalysis& consumer,
                                   const XlaRunTime& consumer_time,
                                   const FusionRegion& merged,
                                   const XlaLaunch& merged_launch,
                                   bool coalesced, const hw::Device& device) {
  XlaRunTime t;
  t.launch = merged_launch;
  t.coalesced = coalesced;
  t.unknown = !producer.unknown.empty() ? producer.unknown : consumer.unknown;
  // The consumer's utilization of the producer: every operand slot that is
  // the producer or a get-tuple-element of it.
  const Instruction* p = producer.root;
  float u = 0;
  for (size_t i = 0; i < consumer.operands.size(); ++i) {
    const Instruction* o = consumer.operands[i];
    if (o == p || (o->opcode == Opcode::kGetTupleElement &&
                   o->operand_count() == 1 && o->operand(0) == p)) {
      u += consumer.operand_utilization[i];
    }
  }
  t.flops = SaturatingFromDouble(static_cast<float>(producer_time.flops) * u +
                                 static_cast<float>(consumer_time.flops));
  t.bytes_written = consumer_time.bytes_written;
  // The producer's slots in the consumer (for the common utilization).
  std::vector<const Instruction*> producer_slots;
  for (const Instruction* o : consumer.operands) {
    if (o == p || (o->opcode == Opcode::kGetTupleElement &&
                   o->operand_count() == 1 && o->operand(0) == p)) {
      if (std::find(producer_slots.begin(), producer_slots.end(), o) ==
          producer_slots.end()) {
        producer_slots.push_back(o);
      }
    }
  }
  const bool producer_elementwise_like =
      !producer.is_fusion && XlaIsElementwise(*p);
  const int64_t blocks = merged_launch.launch.num_blocks();
  double read_s = 0;
  int index = 0;
  for (const Instruction* o : merged.parameters) {
    const int64_t size = XlaShapeSize(o->shape);
    const int64_t by_producer = producer.BytesOf(o);
    const int64_t by_consumer = consumer.BytesOf(o);
    float common = 0;
    if (producer.OperandIndex(o) >= 0 && consumer.OperandIndex(o) >= 0) {
      const bool producer_passes =
          producer_elementwise_like ||
          (producer.is_fusion &&
           producer.CommonElementwiseUtilization(o, producer.root) == 1.f);
      if (producer_passes) {
        if (consumer.is_fusion) {
          for (const Instruction* slot : producer_slots) {
            common += consumer.CommonElementwiseUtilization(o, slot);
          }
        } else if (XlaIsElementwise(*consumer.root)) {
          common = 1.f;
        }
      }
    }
    const int64_t total = std::llround(static_cast<float>(by_producer) * u) +
                          by_consumer -
                          std::llround(static_cast<float>(size) * common);
    XlaOperandCost c =
        OperandCost(device, blocks, index++, o,
                    producer.UtilizationOf(o) * u + consumer.UtilizationOf(o),
                    total, coalesced);
    t.bytes_read = SaturatingAdd(t.bytes_read, c.bytes_total);
    read_s += c.read_time_us * 1e-6;
    t.operands.push_back(std::move(c));
  }
  FinishTimes(ComputeSeconds(device, t.flops, merged_launch.launch), read_s,
              consumer_time.write_us * 1e-6, &t);
  return t;
}

}  // namespace ixa
