#include "analysis/uses/fusion_decision.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "analysis/hlo/printer.h"
#include "analysis/uses/fusion_pair.h"
#include "analysis/uses/kernel_graph.h"
#include "analysis/uses/utilization.h"

namespace ixa {
namespace {

using hlo::Instruction;

bool IsGteOf(const Instruction* value, const Instruction* producer) {
  return value->opcode == hlo::Opcode::kGetTupleElement &&
         value->operand_count() == 1 && value->operand(0) == producer;
}

// The union of the groups, in the computation's post order.
std::vector<const Instruction*> Merge(
    const std::unordered_map<const Instruction*, size_t>& position,
    std::vector<const Instruction*> a, const std::vector<const Instruction*>& b,
    const std::vector<const Instruction*>& extra) {
  std::unordered_set<const Instruction*> seen(a.begin(), a.end());
  for (const auto* group : {&b, &extra}) {
    for (const Instruction* i : *group) {
      if (seen.insert(i).second) a.push_back(i);
    }
  }
  std::sort(a.begin(), a.end(),
            [&](const Instruction* x, const Instruction* y) {
              return position.at(x) < position.at(y);
            });
  return a;
}

// Reads of the producer's output by the consumer (the ixa counts).
void CountProducerReads(const KernelInfo& consumer, const Instruction* producer,
                        ExprContext* ctx, ConsumerDecision* d) {
  auto util = AnalyzeUtilization(consumer.region, ctx);
  if (!util.ok()) return;
  for (const OperandUtilization& u : util->operands) {
    const Instruction* param = consumer.region.parameters[u.parameter];
    if (param != producer && !IsGteOf(param, producer)) continue;
    d->producer_reads += u.reads;
    d->producer_elements_read =
        std::max(d->producer_elements_read, u.elements_read);
  }
  d->recompute_factor = d->producer_elements_read > 0
                            ? static_cast<double>(d->producer_reads) /
                                  static_cast<double>(d->producer_elements_read)
                            : 0;
}

}  // namespace

Result<FusionDecision> DecideFusion(const hlo::Module& module,
                                    const std::string& producer_name,
                                    const DecisionOptions& options,
                                    const hw::Device& device,
                                    ExprContext* ctx) {
  for (const std::string* name : {&producer_name, &options.consumer}) {
    if (!name->empty() && !module.entry()->Find(*name)) {
      return Error::Invalid("no instruction '" + *name + "' in computation '" +
                            module.entry()->name() + "'");
    }
  }
  IXA_ASSIGN_OR_RETURN(FlatModule flat, FlattenFusions(module));
  const hlo::Computation& entry = *flat.module->entry();
  std::unordered_map<const Instruction*, size_t> position;
  for (const Instruction* i : entry.post_order()) {
    position.emplace(i, position.size());
  }
  // A get-tuple-element named as the producer stands for the multi-output
  // instruction it reads.
  std::string pname = producer_name;
  if (const Instruction* named = module.entry()->Find(producer_name);
      named->opcode == hlo::Opcode::kGetTupleElement &&
      named->operand_count() == 1 &&
      flat.kernels.count(named->operand(0)->name)) {
    pname = named->operand(0)->name;
  }
  const KernelGroup& pg = flat.kernels.at(pname);
  const Instruction* proot = pg.root;
  if (!pg.is_fusion && (proot->opcode == hlo::Opcode::kParameter ||
                        proot->opcode == hlo::Opcode::kConstant)) {
    return Error::Invalid("producer '" + producer_name +
                          "' computes nothing (a " + OpcodeName(*proot) + ")");
  }
  // The consumers: the kernels that use the producer, directly or through
  // one of its get-tuple-elements (which fuses along).
  std::vector<std::string> consumer_names;
  std::unordered_map<std::string, std::vector<const Instruction*>> via_gte;
  auto add_consumer = [&](const Instruction* user, const Instruction* gte) {
    auto it = flat.kernel_of.find(user);
    if (it == flat.kernel_of.end() || it->second == pname) return;
    if (std::find(consumer_names.begin(), consumer_names.end(), it->second) ==
        consumer_names.end()) {
      consumer_names.push_back(it->second);
    }
    if (gte) via_gte[it->second].push_back(gte);
  };
  for (const Instruction* user : proot->users) {
    if (IsGteOf(user, proot) && flat.kernel_of.at(user) != pname) {
      for (const Instruction* u : user->users) add_consumer(u, user);
    } else {
      add_consumer(user, nullptr);
    }
  }
  const bool producer_is_root = proot == entry.root();
  if (!options.consumer.empty()) {
    if (std::find(consumer_names.begin(), consumer_names.end(),
                  options.consumer) == consumer_names.end()) {
      return Error::Invalid("'" + options.consumer + "' does not use '" +
                            producer_name + "'");
    }
  } else if (consumer_names.empty()) {
    return Error::Invalid("'" + producer_name +
                          "' has no users: there is nothing to fuse it into");
  }
  FusionDecision d;
  d.model = options.model;
  d.producer_name = producer_name;
  IXA_ASSIGN_OR_RETURN(
      KernelInfo p,
      AnalyzeKernel(RegionOfGroup(pg.members, proot), pg.is_fusion,
                    pg.fusion_kind == "kCustom", options.model, device, ctx));
  d.producer = p.cost;
  bool times_known = p.time_unknown.empty();
  if (!times_known) d.notes.push_back("producer: " + p.time_unknown);
  int bitcast_users = 0;
  int fused_consumers = 0;
  double fused_sum = 0, consumer_sum = 0;
  for (const std::string& cname : consumer_names) {
    const bool selected = options.consumer.empty() || options.consumer == cname;
    const KernelGroup& cg = flat.kernels.at(cname);
    if (!selected) {
      d.producer_kept = true;
      continue;
    }
    IXA_ASSIGN_OR_RETURN(
        KernelInfo c,
        AnalyzeKernel(RegionOfGroup(cg.members, cg.root), cg.is_fusion,
                      cg.fusion_kind == "kCustom", options.model, device, ctx));
    ConsumerDecision cd;
    cd.name = cname;
    cd.unfused = c.cost;
    std::vector<const Instruction*> gtes = via_gte[cname];
    IXA_ASSIGN_OR_RETURN(
        PairEstimate pair,
        EstimatePair(p, c, Merge(position, pg.members, cg.members, gtes),
                     entry.root(), options.model, /*cost_when_illegal=*/true,
                     device, ctx));
    cd.legality = pair.legality;
    // Bitcast users are skipped, not fused: XLA asks only that the producer
    // fuse into every other user.
    // A bitcast between bit widths is an ordinary user (that cannot fuse).
    const bool bitcast_user = !cg.is_fusion && XlaIsFusibleBitcast(*cg.root);
    if (!pair.legality.legal && d.legal && !bitcast_user) {
      d.legal = false;
      d.rule = pair.legality.rule;
      d.reason = "'" + cname + "': " + pair.legality.reason;
    }
    if (pair.fused && c.time_unknown.empty()) {
      cd.fused = *pair.fused;
      cd.costed = true;
    } else {
      cd.cost_error =
          !c.time_unknown.empty() ? c.time_unknown : pair.time_unknown;
      times_known = false;
    }
    CountProducerReads(c, proot, ctx, &cd);
    d.consumers.push_back(std::move(cd));
    if (bitcast_user && options.model == CostModel::kIxa) {
      // A bitcast is no kernel: it stays, reading the producer's output.
      ++bitcast_users;
      continue;
    }
    consumer_sum += c.exec_us();
    fused_sum += d.consumers.back().fused.exec_us;
    ++fused_consumers;
  }
  int selected_bitcasts = 0;
  for (const ConsumerDecision& c : d.consumers) {
    const KernelGroup& cg = flat.kernels.at(c.name);
    selected_bitcasts += !cg.is_fusion && XlaIsFusibleBitcast(*cg.root);
  }
  if (d.legal && !d.consumers.empty() &&
      selected_bitcasts == static_cast<int>(d.consumers.size())) {
    d.legal = false;
    d.rule = "bitcast_consumer";
    d.reason = "only bitcast users: bitcasts are fused only as producers";
  }
  if (producer_is_root) d.producer_kept = true;
  if (options.model == CostModel::kIxa && bitcast_users > 0) {
    d.producer_kept = true;
    d.notes.push_back(
        "a bitcast user keeps the producer's kernel alive: XLA counts it as "
        "a fused kernel, ixa as no kernel at all, and keeps the producer's "
        "kernel and its write");
  }
  // Get-tuple-elements of a multi-output producer whose users were not all
  // selected keep it alive too (they were counted as kept consumers).
  d.times_known = times_known;
  const int k = fused_consumers;
  d.unfused_kernels = k + 1;
  d.fused_kernels = k + (d.producer_kept ? 1 : 0);
  if (times_known) {
    d.unfused_us = d.unfused_kernels * kKernelLaunchOverheadUs + p.exec_us() +
                   consumer_sum;
    d.fused_us = d.fused_kernels * kKernelLaunchOverheadUs + fused_sum +
                 (d.producer_kept ? p.exec_us() : 0);
    d.priority_us = d.unfused_us - d.fused_us;
    d.speedup = d.fused_us > 0 ? d.unfused_us / d.fused_us : 1;
  }
  d.fuse = d.legal && times_known && d.fused_us <= d.unfused_us;
  return d;
}

}  // namespace ixa
