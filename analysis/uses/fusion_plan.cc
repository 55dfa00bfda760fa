#include "analysis/uses/fusion_plan.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "analysis/hlo/printer.h"
#include "analysis/uses/fusion_pair.h"
#include "analysis/uses/fusion_plan_cache.h"
#include "analysis/uses/kernel_graph.h"
#include "analysis/uses/xla_cost_analysis.h"
#include "core/budget.h"

namespace ixa {
namespace {

using hlo::Instruction;
using hlo::Opcode;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// One kernel of the plan: a group of instructions of the flat entry
// computation.
struct Cluster {
  int64_t id = 0;  // XLA's unique id: ties go to the larger
  std::vector<const Instruction*> members;  // post order
  const Instruction* root = nullptr;
  size_t position = 0;  // the root's, in the entry's post order
  bool is_fusion = false;
  bool custom = false;
  bool alive = true;
  // On the heap: most clusters never need it (their costs come from the
  // caches), and a cluster stays small.
  std::unique_ptr<KernelInfo> info;
  std::optional<KernelSummary> summary;
  FusionRegion region;
};

bool IsPlainOp(const Cluster& c, hlo::Opcode opcode) {
  return !c.is_fusion && c.root->opcode == opcode;
}

// A plain bitcast that keeps the bit width (XlaIsFusibleBitcast): fused
// first as a producer, skipped as a user. One between widths is an
// ordinary op that does not fuse.
bool IsFusibleBitcast(const Cluster& c) {
  return !c.is_fusion && XlaIsFusibleBitcast(*c.root);
}

// XLA's HloInstruction::IsFusible and the priority fusion's candidate
// filter: not a parameter, tuple or get-tuple-element, nothing with side
// effects or its own control flow.
bool IsCandidateOp(const Cluster& c) {
  if (c.is_fusion) return true;
  const Instruction& root = *c.root;
  if (hlo::OpcodeIn(
          root.opcode,
          {Opcode::kParameter, Opcode::kTuple, Opcode::kGetTupleElement,
           Opcode::kWhile, Opcode::kConditional, Opcode::kCall, Opcode::kDomain,
           Opcode::kAfterAll, Opcode::kInfeed, Opcode::kOutfeed, Opcode::kSend,
           Opcode::kRecv, Opcode::kSendDone, Opcode::kRecvDone})) {
    return false;
  }
  if (root.opcode == Opcode::kCustomCall &&
      root.Attribute("custom_call_has_side_effect") == "true") {
    return false;
  }
  // Random numbers, also as the async work of an async half.
  auto is_rng = [](Opcode op) {
    return hlo::OpcodeIn(op, {Opcode::kRng, Opcode::kRngBitGenerator,
                              Opcode::kRngGetAndUpdateState});
  };
  if ((is_rng(root.opcode) ||
       (root.async_wrapped && is_rng(*root.async_wrapped))) &&
      root.users.size() > 1) {
    return false;
  }
  return true;
}

// Not a kernel of its own: no launch, no time.
bool IsFree(const Cluster& c) {
  if (c.is_fusion) return false;
  const Opcode op = c.root->opcode;
  return op == Opcode::kParameter || op == Opcode::kConstant ||
         op == Opcode::kTuple || op == Opcode::kGetTupleElement ||
         op == Opcode::kBitcast;
}

class Planner {
 public:
  Planner(const FlatModule& flat, const hw::Device& device, CostModel model,
          bool cache_costs, ExprContext* ctx)
      : flat_(flat),
        device_(device),
        model_(model),
        cache_costs_(cache_costs),
        ctx_(ctx),
        keys_(flat.module->entry()->root()) {
    const hlo::Computation& entry = *flat.module->entry();
    for (const Instruction* i : entry.post_order()) {
      position_.emplace(i, position_.size());
    }
    computation_root_ = entry.root();
  }

  Result<FusionPlanResult> Run();

 private:
  Result<const KernelInfo*> Info(int c);
  Result<const KernelSummary*> Summary(int c);
  Result<const PairSummary*> Pair(int p, int c);
  std::vector<int> Readers(int c) const;
  std::vector<const Instruction*> Union(const Cluster& a, const Cluster& b,
                                        std::vector<int32_t>* sides) const;
  Result<double> Priority(int p);
  Status Update(int c);
  int Add(Cluster cluster);
  void Kill(int c);
  int Merge(int p, int c);
  Status Fuse(int p, double priority);
  Status FuseConstants();
  Result<double> TotalTime(int* kernels);
  Result<std::string> Print();

  const FlatModule& flat_;
  const hw::Device& device_;
  CostModel model_;
  bool cache_costs_;
  ExprContext* ctx_;
  // Kernel and pair costs by the structure of the region; each within a
  // budget on its keys (a 10,000-instruction module uses a few MiB).
  RegionKeys keys_;
  StructuralCache<KernelSummary> kernel_cache_{64 << 20};
  StructuralCache<PairSummary> pair_cache_{128 << 20};
  std::unordered_map<const Instruction*, size_t> position_;
  const Instruction* computation_root_ = nullptr;
  // A deque: clusters never move, and growing it copies none.
  std::deque<Cluster> clusters_;
  int64_t next_id_ = 0;
  std::unordered_map<const Instruction*, int> live_of_root_;
  std::unordered_map<const Instruction*, std::set<int>> readers_;
  std::map<std::pair<int, int>, PairSummary> pairs_;
  std::set<std::pair<double, int64_t>> queue_;
  std::unordered_map<int64_t, int> by_id_;
  std::unordered_map<int, double> queued_;
  std::unordered_map<int, std::string> last_refusal_;
  std::vector<FusionStep> steps_;
  bool times_known_ = true;
};

int Planner::Add(Cluster cluster) {
  const int index = static_cast<int>(clusters_.size());
  cluster.region = RegionOfGroup(cluster.members, cluster.root);
  cluster.position = position_.at(cluster.root);
  for (const Instruction* p : cluster.region.parameters) {
    readers_[p].insert(index);
  }
  live_of_root_[cluster.root] = index;
  by_id_[cluster.id] = index;
  clusters_.push_back(std::move(cluster));
  return index;
}

void Planner::Kill(int c) {
  Cluster& k = clusters_[c];
  k.alive = false;
  for (const Instruction* p : k.region.parameters) readers_[p].erase(c);
  if (auto it = live_of_root_.find(k.root);
      it != live_of_root_.end() && it->second == c) {
    live_of_root_.erase(it);
  }
  if (auto q = queued_.find(c); q != queued_.end()) {
    queue_.erase({q->second, k.id});
    queued_.erase(q);
  }
  k.info.reset();
  k.summary.reset();
}

std::vector<int> Planner::Readers(int c) const {
  auto it = readers_.find(clusters_[c].root);
  if (it == readers_.end()) return {};
  std::vector<int> out(it->second.begin(), it->second.end());
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    return clusters_[a].position < clusters_[b].position;
  });
  return out;
}

// The members of both, in post order (each list is), each once; `sides`
// (when given) gets per member 1 (only in a), 2 (only in b) or 3 (both).
std::vector<const Instruction*> Planner::Union(
    const Cluster& a, const Cluster& b, std::vector<int32_t>* sides) const {
  std::vector<const Instruction*> out;
  out.reserve(a.members.size() + b.members.size());
  size_t i = 0, j = 0;
  size_t pa = i < a.members.size() ? position_.at(a.members[i]) : 0;
  size_t pb = j < b.members.size() ? position_.at(b.members[j]) : 0;
  while (i < a.members.size() || j < b.members.size()) {
    int side = 0;
    if (j == b.members.size() || (i < a.members.size() && pa < pb)) {
      out.push_back(a.members[i++]);
      side = 1;
    } else if (i == a.members.size() || pb < pa) {
      out.push_back(b.members[j++]);
      side = 2;
    } else {
      out.push_back(a.members[i++]);
      ++j;
      side = 3;
    }
    if ((side & 1) && i < a.members.size()) pa = position_.at(a.members[i]);
    if ((side & 2) && j < b.members.size()) pb = position_.at(b.members[j]);
    if (sides) sides->push_back(side);
  }
  return out;
}

Result<const KernelInfo*> Planner::Info(int c) {
  Cluster& k = clusters_[c];
  if (!k.info) {
    IXA_ASSIGN_OR_RETURN(
        KernelInfo info,
        AnalyzeKernel(k.region, k.is_fusion, k.custom, model_, device_, ctx_));
    k.info = std::make_unique<KernelInfo>(std::move(info));
  }
  return k.info.get();
}

Result<const KernelSummary*> Planner::Summary(int c) {
  Cluster& k = clusters_[c];
  if (k.summary) return &*k.summary;
  std::vector<int32_t> key;
  if (cache_costs_) {
    key = keys_.Key(k.members, k.root, {}, {k.is_fusion, k.custom});
    if (const KernelSummary* hit = kernel_cache_.Find(key)) {
      k.summary = *hit;
      return &*k.summary;
    }
  }
  IXA_ASSIGN_OR_RETURN(const KernelInfo* info, Info(c));
  clusters_[c].summary = SummarizeKernel(*info);
  if (cache_costs_) kernel_cache_.Insert(std::move(key), *clusters_[c].summary);
  return &*clusters_[c].summary;
}

Result<const PairSummary*> Planner::Pair(int p, int c) {
  auto it = pairs_.find({p, c});
  if (it != pairs_.end()) return &it->second;
  const Cluster &pk = clusters_[p], &ck = clusters_[c];
  // Each member tagged with its side(s); both roots marked.
  std::vector<int32_t> tags;
  std::vector<const Instruction*> merged = Union(pk, ck, &tags);
  const bool cost_when_illegal = IsFusibleBitcast(ck);
  std::vector<int32_t> key;
  if (cache_costs_) {
    for (size_t m = 0; m < merged.size(); ++m) {
      tags[m] += 4 * (merged[m] == pk.root);
    }
    key = keys_.Key(
        merged, ck.root, tags,
        {pk.is_fusion, pk.custom, ck.is_fusion, ck.custom, cost_when_illegal});
    if (const PairSummary* hit = pair_cache_.Find(key)) {
      return &pairs_.emplace(std::make_pair(p, c), *hit).first->second;
    }
  }
  IXA_ASSIGN_OR_RETURN(const KernelInfo* pi, Info(p));
  IXA_ASSIGN_OR_RETURN(const KernelInfo* ci, Info(c));
  IXA_ASSIGN_OR_RETURN(
      PairEstimate pair,
      EstimatePair(*pi, *ci, std::move(merged), computation_root_, model_,
                   cost_when_illegal, device_, ctx_, /*notes=*/false));
  PairSummary summary = SummarizePair(pair);
  if (cache_costs_) pair_cache_.Insert(std::move(key), summary);
  return &pairs_.emplace(std::make_pair(p, c), std::move(summary))
              .first->second;
}

// XLA's priority of fusing `p` into all its users; nullopt-like -infinity
// when it must not be fused (now).
Result<double> Planner::Priority(int p) {
  const Cluster& k = clusters_[p];
  if (!k.alive || !IsCandidateOp(k)) return -kInfinity;
  const std::vector<int> users = Readers(p);
  if (users.empty()) return -kInfinity;
  if (IsFusibleBitcast(k)) {
    // First wherever some user may take it; with none, it waits until a
    // later fusion changes its users (else it would be picked forever).
    for (int c : users) {
      if (IsFusibleBitcast(clusters_[c])) continue;
      IXA_ASSIGN_OR_RETURN(const PairSummary* pair, Pair(p, c));
      if (pair->legal) return kInfinity;
      last_refusal_[p] = pair->rule;
    }
    return -kInfinity;
  }
  if (IsPlainOp(k, Opcode::kConstant)) return -kInfinity;
  int bitcasts = 0;
  for (int c : users) bitcasts += IsFusibleBitcast(clusters_[c]);
  if (bitcasts == static_cast<int>(users.size())) return -kInfinity;
  for (int c : users) {
    if (IsFusibleBitcast(clusters_[c])) continue;
    IXA_ASSIGN_OR_RETURN(const PairSummary* pair, Pair(p, c));
    if (!pair->legal) {
      last_refusal_[p] = pair->rule;
      return -kInfinity;
    }
  }
  IXA_ASSIGN_OR_RETURN(const KernelSummary* pi, Summary(p));
  if (!pi->time_unknown.empty()) return -kInfinity;
  double unfused = pi->exec_us + kXlaKernelLaunchOverheadUs;
  double fused = 0;
  bool kept = false;
  for (int c : users) {
    const bool bitcast = IsFusibleBitcast(clusters_[c]);
    if (bitcast && model_ == CostModel::kIxa) {
      // No kernel; it keeps the producer alive (fusion_decision.h).
      kept = true;
      continue;
    }
    IXA_ASSIGN_OR_RETURN(const KernelSummary* ci, Summary(c));
    IXA_ASSIGN_OR_RETURN(const PairSummary* pair, Pair(p, c));
    if (!ci->time_unknown.empty() || !pair->fused_exec_us) return -kInfinity;
    unfused += ci->exec_us + kXlaKernelLaunchOverheadUs;
    fused += *pair->fused_exec_us + kXlaKernelLaunchOverheadUs;
  }
  if (kept) fused += pi->exec_us + kXlaKernelLaunchOverheadUs;
  return unfused - fused;
}

Status Planner::Update(int c) {
  if (auto q = queued_.find(c); q != queued_.end()) {
    queue_.erase({q->second, clusters_[c].id});
    queued_.erase(q);
  }
  IXA_ASSIGN_OR_RETURN(double priority, Priority(c));
  if (priority < 0) return Status();
  queue_.insert({priority, clusters_[c].id});
  queued_[c] = priority;
  return Status();
}

int Planner::Merge(int p, int c) {
  Cluster f;
  const Cluster &pk = clusters_[p], &ck = clusters_[c];
  f.members = Union(pk, ck, nullptr);
  f.root = ck.root;
  f.is_fusion = true;
  // XLA fuses into a consumer fusion in place; a plain consumer becomes a
  // new fusion instruction.
  f.id = ck.is_fusion ? ck.id : next_id_++;
  Kill(c);
  return Add(std::move(f));
}

Status Planner::Fuse(int p, double priority) {
  FusionStep step;
  const bool bitcast = IsFusibleBitcast(clusters_[p]);
  step.kind = bitcast ? "bitcast" : "fuse";
  step.producer = clusters_[p].root->name;
  if (!std::isinf(priority)) step.priority_us = priority;
  IXA_ASSIGN_OR_RETURN(const KernelSummary* pi, Summary(p));
  step.producer_us = pi->exec_us;
  std::vector<int> created;
  for (int c : Readers(p)) {
    if (!clusters_[c].alive) continue;
    const bool bitcast_user = IsFusibleBitcast(clusters_[c]);
    if (bitcast_user) continue;
    IXA_ASSIGN_OR_RETURN(const PairSummary* pair, Pair(p, c));
    if (bitcast && !pair->legal) continue;
    FusionStep::Into into;
    into.consumer = clusters_[c].root->name;
    into.fusion = clusters_[c].root->name;
    IXA_ASSIGN_OR_RETURN(const KernelSummary* ci, Summary(c));
    into.consumer_us = ci->exec_us;
    into.fused_us = pair->fused_exec_us.value_or(0);
    step.into.push_back(std::move(into));
    created.push_back(Merge(p, c));
  }
  // A producer no user took is no step; it is not queued again until its
  // users change.
  if (created.empty()) return Status();
  step.producer_kept = !Readers(p).empty();
  if (!step.producer_kept) Kill(p);
  steps_.push_back(std::move(step));
  // The new kernels and every kernel they read are prioritised again.
  std::set<int> again;
  for (int f : created) {
    again.insert(f);
    for (const Instruction* x : clusters_[f].region.parameters) {
      if (auto it = live_of_root_.find(x); it != live_of_root_.end()) {
        again.insert(it->second);
      }
    }
  }
  if (step.producer_kept) again.insert(p);
  for (int c : again) {
    if (DeadlineExpired("fusion_plan")) return DeadlineError();
    IXA_RETURN_IF_ERROR(Update(c));
  }
  return Status();
}

Status Planner::FuseConstants() {
  for (int k = 0; k < static_cast<int>(clusters_.size()); ++k) {
    const Cluster& c = clusters_[k];
    if (!c.alive || !IsPlainOp(c, Opcode::kConstant) ||
        !c.root->shape.IsArray() || c.root->shape.ElementCount() > 1) {
      continue;
    }
    FusionStep step;
    step.kind = "constant";
    step.producer = c.root->name;
    for (int user : Readers(k)) {
      IXA_ASSIGN_OR_RETURN(const KernelSummary* ui, Summary(user));
      bool scatter = false;
      for (const Instruction* m : clusters_[user].members) {
        scatter |= m->opcode == Opcode::kScatter;
      }
      if (!ui->fusible || scatter) continue;
      FusionStep::Into into;
      into.consumer = clusters_[user].root->name;
      into.fusion = into.consumer;
      into.consumer_us = ui->exec_us;
      const int f = Merge(k, user);
      IXA_ASSIGN_OR_RETURN(const KernelSummary* fi, Summary(f));
      into.fused_us = fi->exec_us;
      step.into.push_back(std::move(into));
    }
    if (step.into.empty()) continue;
    step.producer_kept = !Readers(k).empty();
    if (!step.producer_kept) Kill(k);
    steps_.push_back(std::move(step));
  }
  return Status();
}

Result<double> Planner::TotalTime(int* kernels) {
  double total = 0;
  *kernels = 0;
  for (int k = 0; k < static_cast<int>(clusters_.size()); ++k) {
    if (!clusters_[k].alive || IsFree(clusters_[k])) continue;
    ++*kernels;
    IXA_ASSIGN_OR_RETURN(const KernelSummary* info, Summary(k));
    if (!info->time_unknown.empty()) times_known_ = false;
    total += info->exec_us + kXlaKernelLaunchOverheadUs;
  }
  return total;
}

Result<FusionPlanResult> Planner::Run() {
  const hlo::Computation& entry = *flat_.module->entry();
  // One kernel per entry instruction to start with (custom fusions and
  // the like as plain ops), ids in text order.
  std::unordered_map<const Instruction*, int64_t> text_order;
  for (const auto& i : entry.instructions()) {
    text_order.emplace(i.get(), text_order.size());
  }
  next_id_ = static_cast<int64_t>(text_order.size());
  for (const Instruction* i : entry.post_order()) {
    Cluster c;
    c.id = text_order.at(i);
    c.members = {i};
    c.root = i;
    c.custom = i->opcode == Opcode::kFusion;
    Add(std::move(c));
  }
  FusionPlanResult result;
  IXA_ASSIGN_OR_RETURN(result.time_before_us,
                       TotalTime(&result.kernels_before));
  for (int c = 0; c < static_cast<int>(clusters_.size()); ++c) {
    if (DeadlineExpired("fusion_plan")) return DeadlineError();
    IXA_RETURN_IF_ERROR(Update(c));
  }
  while (!queue_.empty()) {
    if (DeadlineExpired("fusion_plan")) return DeadlineError();
    auto top = std::prev(queue_.end());
    const double priority = top->first;
    const int p = by_id_.at(top->second);
    queue_.erase(top);
    queued_.erase(p);
    if (!clusters_[p].alive) continue;
    IXA_RETURN_IF_ERROR(Fuse(p, priority));
  }
  IXA_RETURN_IF_ERROR(FuseConstants());
  IXA_ASSIGN_OR_RETURN(result.time_after_us, TotalTime(&result.kernels_after));
  result.times_known = times_known_;
  for (const auto& [k, rule] : last_refusal_) {
    if (clusters_[k].alive && !Readers(k).empty()) ++result.refusals[rule];
  }
  IXA_ASSIGN_OR_RETURN(result.module_text, Print());
  auto reread = hlo::ParseHloModule(result.module_text);
  if (!reread.ok()) {
    return Error{
        ErrorCode::kInternal,
        "the fused module does not read back: " + reread.error().message, 0, 0};
  }
  result.steps = std::move(steps_);
  return result;
}

const char* FusionKindOf(EmitterKind kind) {
  switch (kind) {
    case EmitterKind::kReduction:
    case EmitterKind::kTranspose:
    case EmitterKind::kConcatenate:
    case EmitterKind::kScatter:
      return "kInput";
    default:
      return "kLoop";
  }
}

Result<std::string> Planner::Print() {
  const hlo::Computation& entry = *flat_.module->entry();
  hlo::PrintNaming naming = hlo::SanitizedNaming();
  std::unordered_set<std::string> computation_names;
  for (const auto& c : flat_.module->computations()) {
    computation_names.insert(naming.computation(c.get()));
  }
  std::vector<int> live;
  for (int k = 0; k < static_cast<int>(clusters_.size()); ++k) {
    if (clusters_[k].alive) live.push_back(k);
  }
  std::sort(live.begin(), live.end(), [&](int a, int b) {
    return clusters_[a].position < clusters_[b].position;
  });
  std::string fused_text, entry_text;
  std::unordered_set<const hlo::Computation*> called;
  auto note_calls = [&](const Instruction* i) {
    for (const hlo::Computation* c : i->called_computations) called.insert(c);
  };
  for (int k : live) {
    const Cluster& c = clusters_[k];
    const bool is_root = c.root == entry.root();
    const std::string name = naming.instruction(c.root);
    if (!c.is_fusion) {
      note_calls(c.root);
      entry_text +=
          "  " + hlo::PrintInstruction(*c.root, name, naming, is_root) + "\n";
      continue;
    }
    std::string comp = "fused_" + name;
    for (int n = 2; computation_names.count(comp); ++n) {
      comp = "fused_" + name + "." + std::to_string(n);
    }
    computation_names.insert(comp);
    // Inside: the members by their own names, the operands as parameters.
    std::unordered_map<const Instruction*, std::string> inner;
    std::unordered_set<std::string> taken;
    for (const Instruction* m : c.members) taken.insert(naming.instruction(m));
    std::string body;
    std::string operands;
    for (size_t i = 0; i < c.region.parameters.size(); ++i) {
      const Instruction* x = c.region.parameters[i];
      std::string pname = "param_" + std::to_string(i);
      while (taken.count(pname)) pname += "_";
      taken.insert(pname);
      inner[x] = pname;
      body += "  " + pname + " = " + x->shape.ToString(true) + " parameter(" +
              std::to_string(i) + ")\n";
      operands += (i ? ", " : "") + naming.instruction(x);
    }
    hlo::PrintNaming in_fusion{
        [&](const Instruction* x) {
          auto it = inner.find(x);
          return it != inner.end() ? it->second : naming.instruction(x);
        },
        naming.computation};
    for (const Instruction* m : c.members) {
      note_calls(m);
      body += "  " +
              hlo::PrintInstruction(*m, naming.instruction(m), in_fusion,
                                    m == c.root) +
              "\n";
    }
    fused_text += comp + " {\n" + body + "}\n\n";
    IXA_ASSIGN_OR_RETURN(const KernelSummary* info, Summary(k));
    entry_text += std::string("  ") + (is_root ? "ROOT " : "") + name + " = " +
                  c.root->shape.ToString(true) + " fusion(" + operands +
                  "), kind=" + FusionKindOf(info->launch_kind) +
                  ", calls=" + comp + "\n";
  }
  // The computations the kernels call, and those they call in turn.
  std::vector<const hlo::Computation*> stack(called.begin(), called.end());
  while (!stack.empty()) {
    const hlo::Computation* c = stack.back();
    stack.pop_back();
    for (const Instruction* i : c->post_order()) {
      for (const hlo::Computation* d : i->called_computations) {
        if (called.insert(d).second) stack.push_back(d);
      }
    }
  }
  std::string text =
      "HloModule " + hlo::SanitizeHloName(flat_.module->name()) + "\n\n";
  for (const auto& c : flat_.module->computations()) {
    if (called.count(c.get())) {
      text += hlo::PrintComputation(*c, naming, false) + "\n";
    }
  }
  text += fused_text;
  text += "ENTRY " + naming.computation(&entry) + " {\n" + entry_text + "}\n";
  return text;
}

}  // namespace

Result<FusionPlanResult> PlanFusions(const hlo::Module& module,
                                     const hw::Device& device,
                                     const FusionPlanOptions& options,
                                     ExprContext* ctx) {
  if (!device.HasLaunchModel()) {
    return Error::Invalid("device " + device.name +
                          " has no GPU launch model: fusion plans need "
                          "cores, threads and shared memory per block");
  }
  IXA_ASSIGN_OR_RETURN(FlatModule flat, FlattenFusions(module));
  Planner planner(flat, device, options.model, options.cache_costs, ctx);
  return planner.Run();
}

}  // namespace ixa
