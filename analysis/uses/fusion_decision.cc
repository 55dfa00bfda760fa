#include "analysis/uses/fusion_decision.h"

#include <algorithm>
#include <map>

#include "analysis/indexing/indexing.h"
#include "analysis/indexing/internal.h"
#include "core/int_math.h"
#include "simplifier/simplify.h"

namespace ixa {
namespace {

using hlo::Instruction;

// One kernel: the region an entry instruction runs, and the entry
// instruction each region parameter stands for.
struct Kernel {
  FusionRegion region;
  std::vector<const Instruction*> operands;  // per region parameter
};

Result<Kernel> KernelOf(const hlo::Computation& computation,
                        const Instruction* instr) {
  Kernel k;
  if ((instr->opcode == "fusion" || instr->opcode == "call") &&
      instr->called()) {
    k.region = RegionOfComputation(*instr->called());
    for (size_t i = 0; i < k.region.parameters.size(); ++i) {
      const int64_t n = k.region.parameters[i]->parameter_number;
      if (n < 0 || n >= instr->operand_count()) {
        return Error::Invalid("fusion " + instr->name + " has no operand " +
                              std::to_string(n));
      }
      k.operands.push_back(instr->operand(static_cast<int>(n)));
    }
    return k;
  }
  IXA_ASSIGN_OR_RETURN(k.region,
                       RegionOfInstructions(computation, {instr->name}));
  k.operands = k.region.parameters;
  return k;
}

Result<IndexingMap> Compose(const IndexingMap& first,
                            const IndexingMap& second) {
  IXA_ASSIGN_OR_RETURN(IndexingMap m,
                       indexing_internal::ComposeWithProducers(first, second));
  Simplify(&m);
  return m;
}

// The fused kernel's reads of one entry operand.
struct FusedOperand {
  const Instruction* entry = nullptr;
  IndexingMapSet maps, coverage;
  std::optional<std::string> unknown;
};

}  // namespace

Result<FusionDecision> DecideFusion(const hlo::Computation& computation,
                                    const std::string& producer_name,
                                    const std::string& consumer_name,
                                    const hw::Device& device,
                                    ExprContext* ctx) {
  const Instruction* producer = computation.Find(producer_name);
  const Instruction* consumer = computation.Find(consumer_name);
  if (!producer || !consumer) {
    return Error::Invalid("no instruction '" +
                          (producer ? consumer_name : producer_name) +
                          "' in computation '" + computation.name() + "'");
  }
  if (std::find(consumer->operands.begin(), consumer->operands.end(),
                producer) == consumer->operands.end()) {
    return Error::Invalid("'" + consumer_name + "' does not use '" +
                          producer_name + "'");
  }
  if (!producer->shape.IsArray()) {
    return Error::Unsupported("producer '" + producer_name +
                              "' is not an array (" +
                              producer->shape.ToString() + ")");
  }
  if (producer->opcode == "parameter" || producer->opcode == "constant") {
    return Error::Invalid("producer '" + producer_name +
                          "' computes nothing (a " + producer->opcode + ")");
  }
  FusionDecision d;
  IXA_ASSIGN_OR_RETURN(Kernel p, KernelOf(computation, producer));
  IXA_ASSIGN_OR_RETURN(Kernel c, KernelOf(computation, consumer));
  IXA_ASSIGN_OR_RETURN(d.producer, EstimateFusionCost(p.region, device, ctx));
  IXA_ASSIGN_OR_RETURN(d.consumer, EstimateFusionCost(c.region, device, ctx));
  for (const Instruction* u : producer->users) {
    if (u != consumer) d.producer_kept = true;
  }
  if (computation.root() == producer) d.producer_kept = true;
  d.unfused_us =
      d.producer.time_us + d.consumer.time_us + 2 * kKernelLaunchOverheadUs;

  // The fused kernel: the consumer's plan, the producer's operands read
  // through it.
  IXA_ASSIGN_OR_RETURN(EmitterPlan plan,
                       ComputeEmitterPlan(c.region, device, ctx));
  // Partial: a producer operand behind an op without maps is unknown in
  // the fused kernel, the others are read through the consumer's plan.
  auto producer_maps = ComputeFusionParameterIndexingPartial(p.region, 0, ctx);
  std::vector<FusedOperand> fused;
  auto slot = [&](const Instruction* entry) -> FusedOperand& {
    for (FusedOperand& f : fused) {
      if (f.entry == entry) return f;
    }
    fused.push_back({entry, {}, {}, std::nullopt});
    return fused.back();
  };
  std::vector<IndexingMap> producer_coverage;
  for (size_t k = 0; k < c.operands.size(); ++k) {
    const ParameterPlan& pp = plan.parameters[k];
    if (c.operands[k] != producer) {
      FusedOperand& f = slot(c.operands[k]);
      if (pp.unknown_reason) f.unknown = pp.unknown_reason;
      for (const IndexingMap& m : pp.maps) f.maps.Insert(m);
      for (const IndexingMap& m : pp.coverage_maps) f.coverage.Insert(m);
      continue;
    }
    producer_coverage.insert(producer_coverage.end(), pp.coverage_maps.begin(),
                             pp.coverage_maps.end());
    for (size_t j = 0; j < p.operands.size(); ++j) {
      FusedOperand& f = slot(p.operands[j]);
      if (pp.unknown_reason) {
        f.unknown = pp.unknown_reason;
        continue;
      }
      if (!producer_maps.ok()) {
        f.unknown = producer_maps.error().message;
        continue;
      }
      if ((*producer_maps)[j].unknown()) {
        f.unknown = (*producer_maps)[j].unknown_reason;
        continue;
      }
      for (const IndexingMap& g : (*producer_maps)[j].maps) {
        for (const IndexingMap& m : pp.maps) {
          auto composed = Compose(m, g);
          if (!composed.ok()) {
            f.unknown = composed.error().message;
            continue;
          }
          f.maps.Insert(std::move(composed).value());
        }
        for (const IndexingMap& m : pp.coverage_maps) {
          auto composed = Compose(m, g);
          if (composed.ok()) f.coverage.Insert(std::move(composed).value());
        }
      }
    }
  }
  FusionCost& cost = d.fused;
  cost.emitter = plan.kind;
  cost.reduction_kind = plan.reduction_kind;
  cost.launch = plan.launch;
  for (size_t i = 0; i < fused.size(); ++i) {
    const FusedOperand& f = fused[i];
    const hlo::Shape& shape = f.entry->shape;
    if (!shape.IsArray()) continue;
    OperandUtilization u;
    if (f.unknown) {
      cost.unknown.push_back({static_cast<int>(i), f.entry->name, *f.unknown});
      u.elements_total = u.elements_read = u.reads = shape.ElementCount();
      u.utilization = 1;
      u.method = "unknown";
    } else {
      u = UtilizationOfCoverage(f.coverage.maps(), shape);
      auto reads = AnalyzeReads(f.maps.maps(), shape, plan.launch, device);
      if (reads.ok()) {
        OperandCoalescing oc = std::move(reads).value();
        oc.parameter = static_cast<int>(i);
        oc.name = f.entry->name;
        oc.not_read = f.maps.empty();
        cost.coalescing.push_back(std::move(oc));
      } else {
        cost.unknown.push_back(
            {static_cast<int>(i), f.entry->name, reads.error().message});
      }
    }
    u.parameter = static_cast<int>(i);
    u.name = f.entry->name;
    const int64_t bytes = SaturatingMul(ElementBytes(shape), u.elements_read);
    cost.bytes_read = SaturatingAdd(cost.bytes_read, bytes);
    double moved = static_cast<double>(bytes);
    if (!cost.coalescing.empty() &&
        cost.coalescing.back().parameter == static_cast<int>(i) &&
        !cost.coalescing.back().coalesced &&
        cost.coalescing.back().efficiency > 0) {
      moved /= cost.coalescing.back().efficiency;
    }
    cost.bytes_moved += moved;
    cost.utilization.push_back(std::move(u));
  }
  cost.bytes_written = PlanBytesWritten(plan);
  // Reads of the producer's output by the consumer: exact counts of the
  // consumer's output-to-input maps, or of the plan's coverage maps where
  // those cannot be counted.
  int64_t reads = 0, elements = 0;
  auto util = AnalyzeUtilization(c.region, ctx);
  // The consumer's parameters that stand for the producer, answered.
  std::vector<const OperandUtilization*> producer_uses;
  bool all_answered = util.ok();
  for (size_t k = 0; k < c.operands.size() && util.ok(); ++k) {
    if (c.operands[k] != producer) continue;
    auto it = std::find_if(
        util->operands.begin(), util->operands.end(),
        [&](const OperandUtilization& u) { return u.parameter == int(k); });
    if (it == util->operands.end()) {
      all_answered = false;
    } else {
      producer_uses.push_back(&*it);
    }
  }
  if (all_answered) {
    for (const OperandUtilization* u : producer_uses) {
      reads = SaturatingAdd(reads, u->reads);
      elements = std::max(elements, u->elements_read);
    }
  } else {
    OperandUtilization u =
        UtilizationOfCoverage(producer_coverage, producer->shape);
    reads = u.reads;
    elements = u.elements_read;
  }
  d.producer_reads = reads;
  d.producer_elements_read = elements;
  d.recompute_factor =
      elements > 0 ? static_cast<double>(reads) / static_cast<double>(elements)
                   : 0;
  // The producer's flops per output element, times its evaluations.
  const int64_t produced = std::max<int64_t>(1, producer->shape.ElementCount());
  const double per_element =
      static_cast<double>(d.producer.flops) / static_cast<double>(produced);
  const double matrix_share =
      d.producer.flops > 0 ? static_cast<double>(d.producer.matrix_flops) /
                                 static_cast<double>(d.producer.flops)
                           : 0;
  const int64_t recomputed =
      static_cast<int64_t>(per_element * static_cast<double>(reads));
  cost.flops = SaturatingAdd(d.consumer.flops, recomputed);
  cost.matrix_flops = SaturatingAdd(
      d.consumer.matrix_flops,
      static_cast<int64_t>(matrix_share * static_cast<double>(recomputed)));
  // The fused kernel's flops are built from both kernels' counts: what
  // either leaves out, it leaves out too.
  if (d.consumer.flops_unknown) {
    cost.flops_unknown = d.consumer.flops_unknown;
  } else if (d.producer.flops_unknown) {
    cost.flops_unknown = d.producer.flops_unknown;
  }
  FinishCost(device, &cost);
  d.fused_kernels = d.producer_kept ? 2 : 1;
  d.unfused_kernels = 2;
  d.fused_us = cost.time_us + d.fused_kernels * kKernelLaunchOverheadUs +
               (d.producer_kept ? d.producer.time_us : 0);
  d.fuse = d.fused_us < d.unfused_us;
  d.speedup = d.fused_us > 0 ? d.unfused_us / d.fused_us : 1;
  return d;
}

}  // namespace ixa
