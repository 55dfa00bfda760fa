#include "analysis/uses/ixa_cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "analysis/hlo/custom_calls.h"
#include "analysis/indexing/indexing.h"
#include "analysis/uses/gemm_cost.h"
#include "analysis/uses/xla_performance_model.h"
#include "core/int_math.h"

namespace ixa {
namespace {

using hlo::Opcode;

// XLA's L2 and L1 re-read speedups over DRAM: ixa keeps the numbers (it
// has no measurements either) but tests what fits on the data re-read.
constexpr double kL2Speedup = 2.5;
constexpr double kL1Speedup = 20;
// A streaming kernel saturates DRAM with a quarter of the device's thread
// slots in flight (times the elements each thread loads at once).
constexpr double kSaturatingOccupancy = 0.25;

// The instructions whose every use inside the region leads, through
// elementwise ops of unchanged dims, into operand 0 (the buffer) of a
// dynamic-update-slice that is not updated in place. Outside the update
// window the buffer is read (and what computes it evaluated); inside it,
// never: each such instruction is used for `update elements` fewer
// elements than its maps say. (XLA's maps of a dynamic-update-slice's
// buffer are the identity: they cannot say which elements the update
// hides, since its offsets are runtime values.)
std::unordered_map<const hlo::Instruction*, int64_t> HiddenByUpdates(
    const FusionRegion& region, const EmitterPlan& plan) {
  std::unordered_set<const hlo::Instruction*> members(region.members.begin(),
                                                      region.members.end());
  std::unordered_set<const hlo::Instruction*> in_place;
  if (plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice) {
    for (const RootPlan& r : plan.roots) in_place.insert(r.hero);
  }
  auto users_inside = [&](const hlo::Instruction* x) {
    std::vector<const hlo::Instruction*> out;
    for (const hlo::Instruction* u : x->users) {
      if (members.count(u)) out.push_back(u);
    }
    return out;
  };
  std::unordered_map<const hlo::Instruction*, int64_t> hidden;
  for (const hlo::Instruction* dus : region.members) {
    if (dus->opcode != Opcode::kDynamicUpdateSlice ||
        dus->operand_count() < 2 || in_place.count(dus) ||
        !dus->shape.IsArray()) {
      continue;
    }
    const int64_t update = dus->operand(1)->shape.ElementCount();
    const hlo::Instruction* buffer = dus->operand(0);
    // Only the buffer slot may use it.
    bool only_buffer = true;
    for (int i = 1; i < dus->operand_count(); ++i) {
      only_buffer &= dus->operand(i) != buffer;
    }
    const auto buffer_users = users_inside(buffer);
    if (!only_buffer || buffer_users.size() != 1 || !buffer->shape.IsArray() ||
        buffer->shape.dims != dus->shape.dims) {
      continue;
    }
    std::unordered_set<const hlo::Instruction*> chain = {dus, buffer};
    std::vector<const hlo::Instruction*> stack = {buffer};
    while (!stack.empty()) {
      const hlo::Instruction* x = stack.back();
      stack.pop_back();
      hidden[x] = std::max(hidden[x], update);
      if (!members.count(x) || x->opcode == Opcode::kParameter ||
          !hlo::IsElementwiseOpcode(x->opcode)) {
        continue;
      }
      for (const hlo::Instruction* o : x->operands) {
        if (chain.count(o) || !o->shape.IsArray() ||
            o->shape.dims != buffer->shape.dims) {
          continue;
        }
        bool all_in_chain = true;
        for (const hlo::Instruction* u : users_inside(o)) {
          all_in_chain &= chain.count(u) > 0;
        }
        if (!all_in_chain) continue;
        chain.insert(o);
        stack.push_back(o);
      }
    }
  }
  return hidden;
}

// The work of an in-place dynamic-update-slice kernel: what computes each
// update (over the update's elements, not the buffer's) and the start
// indices; the buffer itself is neither read nor computed.
Result<RegionFlopsCount> InPlaceUpdateFlops(const FusionRegion& region,
                                            const EmitterPlan& plan,
                                            const hw::Device& device,
                                            ExprContext* ctx) {
  RegionFlopsCount total;
  for (const RootPlan& r : plan.roots) {
    for (int i = 1; i < r.hero->operand_count(); ++i) {
      FusionRegion below = SubRegionBelow(region, r.hero->operand(i));
      if (below.members.empty()) continue;
      IXA_ASSIGN_OR_RETURN(RegionFlopsCount f,
                           RegionFlops(below, ctx, &device));
      total.vector_flops = SaturatingAdd(total.vector_flops, f.vector_flops);
      total.matrix_flops = SaturatingAdd(total.matrix_flops, f.matrix_flops);
      total.issue_slots += f.issue_slots;
      if (total.not_counted.empty()) total.not_counted = f.not_counted;
    }
  }
  return total;
}

// The share of each 32-byte sector the kernel's writes use, weighted by the
// bytes of each root (1 where a root's writes have no map).
double WriteEfficiency(const EmitterPlan& plan, const hw::Device& device) {
  double useful = 0, moved = 0;
  for (const RootPlan& r : plan.roots) {
    const hlo::Shape& shape = OutputShape(*r.root, 0);
    if (!shape.IsArray()) continue;
    const double bytes =
        static_cast<double>(BytesOfElements(shape, shape.ElementCount()));
    double efficiency = 1;
    if (r.output_map) {
      std::vector<IndexingMap> maps = {*r.output_map};
      auto writes = AnalyzeReads(maps, shape, plan.launch, device);
      if (writes.ok() && writes->efficiency > 0) {
        efficiency = std::min(1.0, writes->efficiency);
      }
    }
    useful += bytes;
    moved += bytes / efficiency;
  }
  return moved > 0 ? useful / moved : 1;
}

std::string Format(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The kernel's time, wave by wave (see the header), and what it used.
struct Timing {
  double compute_us = 0, memory_us = 0, write_us = 0;
  double active_fraction = 1;
  double in_flight = 1;  // the DRAM bandwidth share the occupancy reaches
};

Timing Time(const hw::Device& device, const FusionCost& cost,
            double issue_slots, double dram_bytes, double write_bytes,
            double l2_bytes, double l1_bytes) {
  Timing t;
  const LaunchDimensions& l = cost.launch;
  const int64_t threads = std::max<int64_t>(1, l.threads_per_block());
  const int64_t blocks = std::max<int64_t>(1, l.num_blocks());
  const int64_t cores = std::max<int64_t>(1, device.sm_count);
  const int64_t per_core = std::max<int64_t>(1, cost.blocks_per_core);
  const int64_t slots_per_wave = cores * per_core;
  const int64_t full_waves = blocks / slots_per_wave;
  const int64_t last = blocks - full_waves * slots_per_wave;
  const int64_t active_cores = std::min(blocks, cores);
  const int64_t resident =
      std::min(per_core, CeilDivNonNegative(blocks, cores));
  // Compute: per wave, the busiest SM runs its blocks on min(fpus, their
  // threads) lanes.
  const double fpus = static_cast<double>(
      device.fpus_per_core > 0 ? device.fpus_per_core : 128);
  const double clock = device.clock_ghz > 0 ? device.clock_ghz : 1.0;
  const double per_block = issue_slots / static_cast<double>(blocks);
  auto wave = [&](int64_t blocks_on_core) {
    const double lanes =
        std::min(fpus, static_cast<double>(blocks_on_core * threads));
    return static_cast<double>(blocks_on_core) * per_block /
           (lanes * clock * 1e3);
  };
  double vector_us = static_cast<double>(full_waves) * wave(per_core);
  if (last > 0) vector_us += wave(CeilDivNonNegative(last, cores));
  const double peak_lanes = fpus * static_cast<double>(cores) * clock * 1e3;
  t.active_fraction = vector_us > 0 ? issue_slots / (peak_lanes * vector_us)
                                    : static_cast<double>(active_cores) /
                                          static_cast<double>(cores);
  const double matrix_peak = device.peak_tflops_bf16 > 0
                                 ? device.peak_tflops_bf16
                                 : device.peak_tflops_fp32;
  double matrix_us = 0;
  if (cost.matrix_flops > 0 && matrix_peak > 0) {
    matrix_us = static_cast<double>(cost.matrix_flops) /
                (matrix_peak * 1e6 * static_cast<double>(active_cores) /
                 static_cast<double>(cores));
  }
  t.compute_us = vector_us + matrix_us;
  // Memory: DRAM at the bandwidth the bytes in flight reach.
  const double thread_slots = static_cast<double>(
      cores * std::max<int64_t>(1, device.threads_per_core));
  const double loading =
      static_cast<double>(resident * active_cores * threads) *
      // A loop-like plan's vector holds its unrolled elements: both count
      // the elements one thread has in flight, not their product.
      static_cast<double>(std::max<int64_t>({1, l.unroll, l.vector_size}));
  t.in_flight = std::min(1.0, loading / (kSaturatingOccupancy * thread_slots));
  const double bandwidth = device.dram_gbps * 1e3 * t.in_flight;  // B / us
  if (bandwidth > 0) {
    t.memory_us = dram_bytes / bandwidth +
                  l2_bytes / (kL2Speedup * device.dram_gbps * 1e3) +
                  l1_bytes / (kL1Speedup * device.dram_gbps * 1e3);
    t.write_us = write_bytes / bandwidth;
  }
  return t;
}

// The GEMM a kernel runs as a library runs it: a lone dot, convolution,
// cuBLAS GEMM or forward cuDNN convolution; or, in a fused computation,
// its one dot or convolution (a Triton GEMM fusion, whose other ops are
// its prologue and epilogue). nullptr otherwise: a group of instructions
// of the entry computation is a loop kernel XLA would not make.
const hlo::Instruction* GemmHero(const FusionRegion& region, bool is_fusion) {
  auto gemm_like = [](const hlo::Instruction& i) {
    return i.opcode == Opcode::kDot || i.opcode == Opcode::kConvolution ||
           hlo::GetLibraryCallKind(i) == hlo::LibraryCallKind::kCublasGemm ||
           hlo::GetLibraryCallKind(i) ==
               hlo::LibraryCallKind::kCudnnConvForward;
  };
  if (!is_fusion) return gemm_like(*region.root) ? region.root : nullptr;
  if (!region.computation || region.computation->is_entry()) return nullptr;
  const hlo::Instruction* hero = nullptr;
  for (const hlo::Instruction* m : region.members) {
    if (!gemm_like(*m)) continue;
    if (hero) return nullptr;
    hero = m;
  }
  return hero;
}

// The vector work of a GEMM fusion's other ops, in issue slots: an
// epilogue op once per element, a prologue op once per element for each
// tile that loads it (an operand of the left side for every column of
// tiles, of the right side for every row).
double GemmFusionSlots(const FusionRegion& region, const hlo::Instruction& hero,
                       const GemmEstimate& gemm, const GemmProblem& problem,
                       const hw::Device& device) {
  std::unordered_set<const hlo::Instruction*> lhs, rhs;
  if (hero.operand_count() >= 2) {
    for (const hlo::Instruction* m :
         SubRegionBelow(region, hero.operand(0)).members) {
      lhs.insert(m);
    }
    for (const hlo::Instruction* m :
         SubRegionBelow(region, hero.operand(1)).members) {
      rhs.insert(m);
    }
  }
  const double columns = static_cast<double>((problem.n + gemm.tile.n - 1) /
                                             std::max<int64_t>(1, gemm.tile.n));
  const double rows = static_cast<double>((problem.m + gemm.tile.m - 1) /
                                          std::max<int64_t>(1, gemm.tile.m));
  double slots = 0;
  for (const hlo::Instruction* m : region.members) {
    if (m == &hero || m->opcode == Opcode::kParameter || !m->shape.IsArray()) {
      continue;
    }
    const double per = IssueSlotsPerElement(*m, device);
    if (per <= 0) continue;
    const double times = lhs.count(m) ? columns : rhs.count(m) ? rows : 1;
    slots += per * static_cast<double>(m->shape.ElementCount()) * times;
  }
  return slots;
}

// One operand's re-reads: the bytes read again after the first read, the
// share of each sector its reads use, and its distinct bytes.
struct Reread {
  double bytes, efficiency, net;
};

// Where the kernel's reads come from (see the header): DRAM at first read,
// and the re-reads from DRAM, L2 or L1.
struct ReadTraffic {
  double dram = 0, l2 = 0, l1 = 0, rereads = 0;
  // The operands read more than once, together: what must stay in cache.
  double working_set = 0;
  std::vector<Reread> reread;  // one per array parameter, in order
  bool fits_l2 = true;
  double l1_bound = 0;  // XLA's L1 bound: an operand under it re-reads L1
};

// The plan ixa would emit; where the emitters refuse the fusion, the loop
// emitter's plan, and cost->note says so.
Result<EmitterPlan> PlanOrLoopFallback(const FusionRegion& region,
                                       const hw::Device& device,
                                       ExprContext* ctx, FusionCost* cost) {
  auto planned = ComputeEmitterPlan(region, device, ctx);
  if (!planned.ok() && planned.error().code != ErrorCode::kInvalidArgument) {
    cost->note = "the emitters refuse this fusion (" + planned.error().message +
                 "); costed with the loop emitter";
    PlanOptions loop;
    loop.force_loop = true;
    planned = ComputeEmitterPlan(region, device, loop, ctx);
  }
  return planned;
}

// Each operand's reads, counted on the plan's maps (cost->operands,
// cost->utilization, cost->bytes_read), and their DRAM bytes at first
// read. Constants of more than 8 elements live in memory: read like
// operands (XLA never charges them).
ReadTraffic ReadOperands(
    const FusionRegion& region, const EmitterPlan& plan,
    const std::unordered_map<const hlo::Instruction*, int64_t>& hidden,
    FusionCost* cost) {
  ReadTraffic traffic;
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    const hlo::Instruction* param = region.parameters[i];
    const ParameterPlan& pp = plan.parameters[i];
    if (!param->shape.IsArray()) continue;
    OperandUtilization u;
    if (pp.unknown_reason) {
      // Unknown reads: the whole operand, once.
      u.elements_total = param->shape.ElementCount();
      u.elements_read = u.elements_total;
      u.reads = u.elements_total;
      u.utilization = 1;
      u.method = "unknown";
    } else {
      u = UtilizationOfCoverage(pp.coverage_maps, param->shape);
    }
    if (auto h = hidden.find(param); h != hidden.end()) {
      u.elements_read = std::max<int64_t>(0, u.elements_read - h->second);
      u.reads = std::max<int64_t>(0, u.reads - h->second);
      u.utilization = u.elements_total == 0
                          ? 1.0
                          : static_cast<double>(u.elements_read) /
                                static_cast<double>(u.elements_total);
    }
    u.parameter = static_cast<int>(i);
    u.name = param->name;
    OperandCost oc;
    oc.parameter = static_cast<int>(i);
    oc.name = param->name;
    oc.bytes_net = BytesOfElements(param->shape, u.elements_read);
    oc.bytes_total =
        std::max(oc.bytes_net, BytesOfElements(param->shape, u.reads));
    oc.utilization = u.elements_total == 0
                         ? 0
                         : static_cast<double>(u.reads) /
                               static_cast<double>(u.elements_total);
    double efficiency = 1;
    for (const OperandCoalescing& c : cost->coalescing) {
      if (c.parameter == static_cast<int>(i) && !c.coalesced &&
          c.efficiency > 0) {
        efficiency = std::min(1.0, c.efficiency);
        oc.coalesced = false;
      }
    }
    cost->bytes_read = SaturatingAdd(cost->bytes_read, oc.bytes_net);
    const double net = static_cast<double>(oc.bytes_net);
    traffic.dram += net / efficiency;
    if (oc.bytes_total > oc.bytes_net) traffic.working_set += net;
    traffic.reread.push_back(
        {static_cast<double>(oc.bytes_total - oc.bytes_net), efficiency, net});
    cost->operands.push_back(std::move(oc));
    cost->utilization.push_back(std::move(u));
  }
  double constant_bytes = 0;
  for (const hlo::Instruction* m : region.members) {
    if (m->opcode != Opcode::kConstant || !m->shape.IsArray() ||
        m->shape.ElementCount() <= 8) {
      continue;
    }
    OperandCost oc;
    oc.parameter = -1;
    oc.name = m->name;
    oc.bytes_net = oc.bytes_total =
        BytesOfElements(m->shape, m->shape.ElementCount());
    oc.utilization = 1;
    constant_bytes += static_cast<double>(oc.bytes_net);
    cost->operands.push_back(std::move(oc));
  }
  cost->bytes_read =
      SaturatingAdd(cost->bytes_read, SaturatingFromDouble(constant_bytes));
  traffic.dram += constant_bytes;
  return traffic;
}

// Where the re-reads come from. What must stay in cache between re-reads
// is the operands read more than once (data read once and the writes
// stream through): when they exceed L2 together the re-reads come from
// DRAM, else from L1 for an operand under XLA's L1 bound, else from L2. A
// library GEMM re-reads its tiles from shared memory and registers, not
// from the caches.
void PlaceRereads(const hw::Device& device, bool library_gemm,
                  ReadTraffic* traffic) {
  traffic->fits_l2 =
      traffic->working_set <= static_cast<double>(device.l2_bytes);
  traffic->l1_bound =
      static_cast<double>(device.l1_bytes_per_core * device.sm_count);
  if (library_gemm) {
    for (Reread& r : traffic->reread) r.bytes = 0;
  }
  for (const Reread& r : traffic->reread) {
    traffic->rereads += r.bytes;
    if (r.bytes <= 0) continue;
    if (!traffic->fits_l2) {
      traffic->dram += r.bytes / r.efficiency;
    } else if (r.net < traffic->l1_bound) {
      traffic->l1 += r.bytes;
    } else {
      traffic->l2 += r.bytes;
    }
  }
}

// The kernel's work: cost->flops (matrix_flops, flops_unknown) and the
// vector work in issue slots (the answer), less the work of what the
// updates of a dynamic-update-slice hide.
double CountWork(
    const FusionRegion& region, const EmitterPlan& plan,
    const hw::Device& device,
    const std::unordered_map<const hlo::Instruction*, int64_t>& hidden,
    ExprContext* ctx, FusionCost* cost) {
  auto flops = plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice
                   ? InPlaceUpdateFlops(region, plan, device, ctx)
                   : RegionFlops(region, ctx, &device);
  double slots = 0;
  if (flops.ok()) {
    int64_t vector = flops->vector_flops;
    slots = flops->issue_slots;
    for (const auto& [instr, elements] : hidden) {
      if (std::find(region.parameters.begin(), region.parameters.end(),
                    instr) != region.parameters.end()) {
        continue;
      }
      vector = std::max<int64_t>(
          0, vector - SaturatingMul(FlopsPerElement(*instr), elements));
      slots = std::max(0.0, slots - IssueSlotsPerElement(*instr, device) *
                                        static_cast<double>(elements));
    }
    cost->flops = SaturatingAdd(vector, flops->matrix_flops);
    cost->matrix_flops = flops->matrix_flops;
    if (!flops->not_counted.empty()) cost->flops_unknown = flops->not_counted;
  } else {
    cost->flops_unknown = flops.error().message;
  }
  return slots;
}

// Each operand's share of the memory time (OperandCost::read_time_us).
void ShareMemoryTime(const hw::Device& device, const Timing& t,
                     const ReadTraffic& traffic, FusionCost* cost) {
  const double bandwidth = device.dram_gbps * 1e3 * t.in_flight;
  if (!(bandwidth > 0)) return;
  size_t k = 0;
  for (OperandCost& oc : cost->operands) {
    const double net = static_cast<double>(oc.bytes_net);
    if (oc.parameter < 0) {
      oc.read_time_us = net / bandwidth;
      continue;
    }
    const Reread& r = traffic.reread[k++];
    oc.read_time_us = net / r.efficiency / bandwidth;
    if (r.bytes <= 0) continue;
    if (!traffic.fits_l2) {
      oc.read_time_us += r.bytes / r.efficiency / bandwidth;
    } else if (r.net < traffic.l1_bound) {
      oc.read_time_us += r.bytes / (kL1Speedup * device.dram_gbps * 1e3);
    } else {
      oc.read_time_us += r.bytes / (kL2Speedup * device.dram_gbps * 1e3);
    }
  }
}

// A GEMM runs as the library runs it (analysis/uses/gemm_cost.h); the ops
// fused around it cost their vector work on top. Sets the times of *cost;
// the answer: the notes that say what the time is made of.
std::vector<std::string> CostAsLibraryGemm(const FusionRegion& region,
                                           const hlo::Instruction& hero,
                                           const GemmProblem& p, bool is_fusion,
                                           const hw::Device& device,
                                           FusionCost* cost) {
  const double operands = static_cast<double>(p.batch) *
                          (static_cast<double>(p.m) * static_cast<double>(p.k) *
                               static_cast<double>(p.lhs_bytes) +
                           static_cast<double>(p.k) * static_cast<double>(p.n) *
                               static_cast<double>(p.rhs_bytes) +
                           static_cast<double>(p.m) * static_cast<double>(p.n) *
                               static_cast<double>(p.out_bytes));
  // A cuBLASLt epilogue: its work per output element, and the auxiliary
  // output it writes besides the result.
  const GemmEpilogue epilogue = LibraryGemmEpilogue(hero, device);
  const double outputs = static_cast<double>(p.batch) *
                         static_cast<double>(p.m) * static_cast<double>(p.n);
  const double aux_bytes =
      epilogue.aux ? outputs * static_cast<double>(p.out_bytes) : 0;
  const double extra = std::max(0.0, static_cast<double>(cost->bytes_read +
                                                         cost->bytes_written) -
                                         operands) +
                       aux_bytes;
  const GemmEstimate g = EstimateGemm(p, device, extra);
  const double fused_slots =
      (is_fusion ? GemmFusionSlots(region, hero, g, p, device) : 0) +
      epilogue.slots_per_element * outputs;
  const double lanes =
      static_cast<double>(std::max<int64_t>(1, device.fpus_per_core) *
                          std::max<int64_t>(1, device.sm_count));
  const double vector_us =
      fused_slots /
      (lanes * (device.clock_ghz > 0 ? device.clock_ghz : 1.0) * 1e3);
  // A measured time has no split: it is all compute, memory as the model
  // has it up to that time.
  cost->compute_us = (g.table_tflops ? g.time_us : g.compute_us) + vector_us;
  cost->memory_us =
      g.table_tflops ? std::min(g.memory_us, g.time_us) : g.memory_us;
  cost->write_us = static_cast<double>(cost->bytes_written) /
                   (std::max(device.dram_gbps, 1e-9) * 1e3);
  cost->active_fraction =
      static_cast<double>(std::min(g.tiles, device.sm_count)) /
      static_cast<double>(std::max<int64_t>(1, device.sm_count));
  cost->exec_us = g.time_us + vector_us;
  std::vector<std::string> notes = GemmNotes(p, g);
  if (!epilogue.name.empty()) {
    notes.push_back("cuBLASLt epilogue " + epilogue.name + ": " +
                    Format(epilogue.slots_per_element) +
                    " issue slots per output element" +
                    (epilogue.aux ? ", an auxiliary output of " +
                                        Format(aux_bytes) + " bytes written"
                                  : std::string()));
  }
  if (vector_us > 0) {
    notes.push_back("the fused prologue and epilogue: " + Format(fused_slots) +
                    " issue slots = " + Format(vector_us) +
                    " us on top of the GEMM");
  }
  return notes;
}

// What the estimate found besides the cost, for its notes.
struct IxaFindings {
  bool is_fusion = false;
  bool library_gemm = false;  // a lone dot or convolution
  bool gemm = false;          // costed as the library runs it
  double write_efficiency = 1;
  double issue_slots = 0;
  double in_flight = 1;
};

// Names in cost->notes every departure from XLA's model that changed the
// answer for this kernel, with XLA's number beside ixa's.
void NoteDeparturesFromXla(const FusionRegion& region, const EmitterPlan& plan,
                           const hw::Device& device, const ReadTraffic& traffic,
                           const IxaFindings& found, ExprContext* ctx,
                           FusionCost* cost) {
  std::vector<std::string>& notes = cost->notes;
  const bool is_fusion = found.is_fusion;
  const hlo::Instruction& root = *region.root;
  if (found.library_gemm) {
    notes.push_back(
        "a " + OpcodeName(root) +
        " on its own runs as a library GEMM: its operands' re-reads come "
        "from shared memory and registers, not from the caches");
  }
  const XlaCostAnalysis xa = AnalyzeXlaCost(region, is_fusion, device);
  auto xl = ComputeXlaLaunch(region, device, ctx);
  if (!xl.ok()) return;
  XlaKernelRef self{&region, is_fusion, xl->own_plan_is_reduction};
  const bool xla_coalesced = XlaReadCoalescedHeuristic(xl->kind, self, nullptr);
  const XlaRunTime xt = EstimateXlaRunTime(xa, *xl, xla_coalesced, device);
  for (const OperandCost& oc : cost->operands) {
    if (oc.parameter < 0) {
      notes.push_back("constant " + oc.name + ": " +
                      std::to_string(oc.bytes_net) +
                      " bytes read like an operand (XLA never charges a "
                      "constant inside a fusion)");
      continue;
    }
    const hlo::Instruction* param = region.parameters[oc.parameter];
    int64_t x_total = 0, x_net = 0;
    if (is_fusion) {
      const int k = xa.OperandIndex(param);
      if (k >= 0) x_total = xa.operand_bytes[k];
    } else {
      for (size_t k = 0; k < xa.operands.size(); ++k) {
        if (xa.operands[k] == param) x_total += xa.operand_bytes[k];
      }
    }
    x_net = std::min(XlaShapeSize(param->shape), x_total);
    if (x_total != oc.bytes_total || x_net != oc.bytes_net) {
      notes.push_back(
          oc.name + ": " + std::to_string(oc.bytes_net) +
          " distinct bytes read, " + std::to_string(oc.bytes_total) +
          " with re-reads, counted on the indexing maps; XLA's "
          "utilization charges " +
          std::to_string(x_net) + " and " + std::to_string(x_total));
    }
    double efficiency = 1;
    for (const OperandCoalescing& c : cost->coalescing) {
      if (c.parameter == oc.parameter && !c.coalesced && c.efficiency > 0) {
        efficiency = std::min(1.0, c.efficiency);
      }
    }
    const double xla_rate =
        xla_coalesced
            ? 1.0
            : 1.0 / static_cast<double>(std::max<int64_t>(
                        1, device.dram_to_l2_transaction_bytes /
                               XlaElementBytesForCoalescing(param->shape)));
    if (std::abs(efficiency - xla_rate) > 1e-9) {
      notes.push_back(
          oc.name + ": " + Format(100 * efficiency) +
          "% of each 32-byte sector used (sector counts of the emitter's "
          "thread map, per operand); XLA's heuristic gives the whole "
          "kernel " +
          Format(100 * xla_rate) + "%");
    }
  }
  if (traffic.rereads > 0) {
    notes.push_back(
        "re-reads (" + Format(traffic.rereads) + " bytes) " +
        (traffic.fits_l2
             ? "hit the cache: the re-read operands' " +
                   Format(traffic.working_set) + " bytes fit in L2 together"
             : "come from DRAM: the re-read operands' " +
                   Format(traffic.working_set) + " bytes exceed L2 together") +
        " (XLA tests each operand alone)");
  }
  if (found.write_efficiency < 1) {
    notes.push_back("writes use " + Format(100 * found.write_efficiency) +
                    "% of each sector (XLA writes at full bandwidth)");
  }
  if (plan.kind == EmitterKind::kScatter) {
    notes.push_back(
        "a scatter updates its operand in place: only the updated elements "
        "are written (XLA charges a scatter fusion its whole operand)");
  }
  if (found.gemm) {
    // The GEMM notes above say what the time is made of; XLA's beside it.
    notes.push_back("XLA's model charges this kernel " + Format(xt.exec_us) +
                    " us (its flops at the CUDA-core rate, no tiles)");
    return;
  }
  if (cost->flops > 0 || xt.flops > 0) {
    notes.push_back("compute: " + Format(found.issue_slots) +
                    " issue slots (throughput per op and type: "
                    "transcendentals on the SFU, 16-bit floats paired, "
                    "narrow types converted) = " +
                    Format(cost->compute_us) +
                    " us; XLA charges op-profile latencies, " +
                    std::to_string(xt.flops) +
                    " flop equivalents = " + Format(xt.compute_us) + " us");
  }
  if (cost->launch.num_blocks() != xl->launch.num_blocks() ||
      cost->launch.threads_per_block() != xl->launch.threads_per_block()) {
    notes.push_back("launch: ixa's emitter runs " +
                    std::to_string(cost->launch.num_blocks()) + " blocks of " +
                    std::to_string(cost->launch.threads_per_block()) +
                    " threads; XLA's model assumes " +
                    std::to_string(xl->launch.num_blocks()) + " of " +
                    std::to_string(xl->launch.threads_per_block()));
  }
  notes.push_back(
      "occupancy: " + std::to_string(cost->blocks_per_core) +
      " blocks per SM, " + std::to_string(cost->waves) + " wave(s), " +
      Format(100 * found.in_flight) +
      "% of the bytes in flight DRAM needs (XLA: min(blocks, SMs) and 32 "
      "bytes per block per clock)");
  if (cost->compute_us > 0 && cost->memory_us > 0) {
    notes.push_back("compute and memory overlap fully: max(" +
                    Format(cost->compute_us) + ", " + Format(cost->memory_us) +
                    ") us (XLA: their sum less 0.95 times the smaller, " +
                    Format(xt.exec_us) + " us in all)");
  }
}

}  // namespace

Result<FusionCost> EstimateIxaCost(const FusionRegion& region,
                                   const hw::Device& device,
                                   const CostOptions& options,
                                   ExprContext* ctx) {
  FusionCost cost;
  Result<EmitterPlan> planned = PlanOrLoopFallback(region, device, ctx, &cost);
  if (!planned.ok()) return planned.error();
  const EmitterPlan& plan = *planned;
  cost.emitter = plan.kind;
  cost.reduction_kind = plan.reduction_kind;
  cost.launch = plan.launch;
  FillOccupancy(device, &cost);
  CoalescingAnalysis coalescing = AnalyzePlanCoalescing(region, plan, device);
  cost.coalescing = coalescing.operands;
  cost.unknown = coalescing.unknown;
  const std::unordered_map<const hlo::Instruction*, int64_t> hidden =
      HiddenByUpdates(region, plan);
  ReadTraffic traffic = ReadOperands(region, plan, hidden, &cost);
  cost.bytes_written = PlanBytesWritten(plan);
  IxaFindings found;
  found.write_efficiency = WriteEfficiency(plan, device);
  const double written =
      static_cast<double>(cost.bytes_written) / found.write_efficiency;
  // A dot or convolution on its own runs as a library GEMM (cuBLAS,
  // cuDNN).
  found.is_fusion = options.is_fusion.value_or(RegionIsFusion(region));
  const bool is_fusion = found.is_fusion;
  const hlo::Instruction& root = *region.root;
  found.library_gemm =
      !is_fusion &&
      (root.opcode == hlo::Opcode::kDot ||
       root.opcode == hlo::Opcode::kConvolution || hlo::IsLibraryCall(root));
  PlaceRereads(device, found.library_gemm, &traffic);
  cost.bytes_moved = traffic.dram;  // reads; the writes are bytes_written
  found.issue_slots = CountWork(region, plan, device, hidden, ctx, &cost);
  const Timing t = Time(device, cost, found.issue_slots, traffic.dram + written,
                        written, traffic.l2, traffic.l1);
  found.in_flight = t.in_flight;
  ShareMemoryTime(device, t, traffic, &cost);
  cost.compute_us = t.compute_us;
  cost.memory_us = t.memory_us;
  cost.write_us = t.write_us;
  cost.active_fraction = t.active_fraction;
  cost.exec_us = std::max(cost.compute_us, cost.memory_us);
  const hlo::Instruction* hero =
      device.HasLaunchModel() ? GemmHero(region, is_fusion) : nullptr;
  std::optional<GemmProblem> gemm_problem =
      hero ? GemmProblemOf(*hero) : std::nullopt;
  std::vector<std::string> gemm_notes;
  if (gemm_problem) {
    found.gemm = true;
    gemm_notes = CostAsLibraryGemm(region, *hero, *gemm_problem, is_fusion,
                                   device, &cost);
  }
  cost.time_us = cost.exec_us;
  if (!options.notes || !device.HasLaunchModel()) return cost;
  for (std::string& n : gemm_notes) cost.notes.push_back(std::move(n));
  NoteDeparturesFromXla(region, plan, device, traffic, found, ctx, &cost);
  return cost;
}

}  // namespace ixa
