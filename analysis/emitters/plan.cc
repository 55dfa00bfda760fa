// ComputeEmitterPlan: the hero analysis picks the emitter kind, the kind's
// builder fills launch and root maps, and the parameter maps follow: each
// thread map composed with the fusion's output-to-input maps from what it
// indexes (a hero operand, the root, or the hero's output for the
// epilogue) to every parameter, simplified and deduplicated.
#include "analysis/emitters/plan.h"

#include <algorithm>
#include <unordered_set>

#include "analysis/emitters/internal.h"
#include "analysis/indexing/indexing.h"
#include "core/int_math.h"

namespace ixa {

const char* EmitterKindName(EmitterKind kind) {
  switch (kind) {
    case EmitterKind::kLoop:
      return "loop";
    case EmitterKind::kTranspose:
      return "transpose";
    case EmitterKind::kReduction:
      return "reduction";
    case EmitterKind::kScatter:
      return "scatter";
    case EmitterKind::kConcatenate:
      return "concatenate";
    case EmitterKind::kInPlaceDynamicUpdateSlice:
      return "in_place_dynamic_update_slice";
    case EmitterKind::kInputSlices:
      return "input_slices";
  }
  return "?";
}

const char* ReductionKindName(ReductionKind kind) {
  switch (kind) {
    case ReductionKind::kRow:
      return "row";
    case ReductionKind::kMultiRow:
      return "multi_row";
    case ReductionKind::kColumn:
      return "column";
  }
  return "?";
}

int64_t SharedTile::bytes() const {
  int64_t n = std::max(1, hlo::ElementBits(type));
  for (int64_t d : dims) n = SaturatingMul(n, d);
  return n / 8 + (n % 8 ? 1 : 0);
}

namespace emitters {
namespace {

// Parameter indices reachable from `root` (not through `stop`).
std::vector<int> ReachableParameters(const FusionInfo& info,
                                     const Instruction* root,
                                     const Instruction* stop) {
  std::vector<int> out;
  std::unordered_set<const Instruction*> seen;
  std::vector<const Instruction*> stack = {root};
  while (!stack.empty()) {
    const Instruction* n = stack.back();
    stack.pop_back();
    if (n == stop || !seen.insert(n).second) continue;
    const int p = info.ParameterIndex(n);
    if (p >= 0) out.push_back(p);
    if (!info.IsInside(n)) continue;
    for (const Instruction* o : n->operands) stack.push_back(o);
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct ParameterAccumulator {
  std::vector<IndexingMapSet> maps, coverage;
  std::vector<std::optional<std::string>> unknown;
};

class ParameterDeriver {
 public:
  ParameterDeriver(const FusionInfo& info, ExprContext* ctx)
      : info_(info), ctx_(ctx) {
    const size_t n = info.region->parameters.size();
    acc_.maps.resize(n);
    acc_.coverage.resize(n);
    acc_.unknown.resize(n);
  }

  void MarkUnknown(const Instruction* from, const Instruction* stop,
                   const std::string& reason) {
    for (int p : ReachableParameters(info_, from, stop)) {
      if (!acc_.unknown[p]) acc_.unknown[p] = reason;
    }
  }

  // Reads of the parameters below `from` (not through `stop`), where
  // `thread` maps the ids to `from`'s output index (after `to_from`, a map
  // from `thread`'s results to from's index, when given). The maps from
  // `from` to the parameters, and which parameters are unknown and why,
  // are the fusion's partial answer (ComputeFusionParameterIndexingPartial)
  // over the part of the fusion below `from`: the same as every use gets.
  void Add(const Instruction* from, const Instruction* stop,
           const IndexingMap& thread, const IndexingMap* to_from) {
    if (ReachableParameters(info_, from, stop).empty()) return;
    IndexingMap coverage =
        to_from ? *to_from : IndexingMap::Identity(ctx_, OutputDims(*from, 0));
    auto per_parameter = ComputeFusionParameterIndexingPartial(
        SubRegionBelow(*info_.region, from, stop), 0, ctx_);
    if (!per_parameter.ok()) {
      // A budget ran out: nothing below `from` is known.
      MarkUnknown(from, stop, per_parameter.error().message);
      return;
    }
    for (size_t p = 0; p < per_parameter->size(); ++p) {
      const PartialIndexing& partial = (*per_parameter)[p];
      if (partial.unknown()) {
        if (!acc_.unknown[p]) acc_.unknown[p] = partial.unknown_reason;
        continue;
      }
      for (const IndexingMap& g : partial.maps) {
        auto c = ComposeSimplified(coverage, g);
        if (!c.ok()) {
          acc_.unknown[p] = c.error().message;
          continue;
        }
        auto composed = ComposeSimplified(thread, *c);
        if (!composed.ok()) {
          acc_.unknown[p] = composed.error().message;
          continue;
        }
        acc_.maps[p].Insert(std::move(composed).value());
        acc_.coverage[p].Insert(std::move(c).value());
      }
    }
  }

  std::vector<ParameterPlan> Finish() const {
    std::vector<ParameterPlan> out;
    for (size_t p = 0; p < info_.region->parameters.size(); ++p) {
      ParameterPlan pp;
      pp.parameter = static_cast<int>(p);
      pp.name = info_.region->parameters[p]->name;
      if (acc_.unknown[p]) {
        pp.unknown_reason = acc_.unknown[p];
      } else {
        pp.maps = acc_.maps[p].maps();
        pp.coverage_maps = acc_.coverage[p].maps();
        pp.not_read = pp.maps.empty();
      }
      out.push_back(std::move(pp));
    }
    return out;
  }

 private:
  const FusionInfo& info_;
  ExprContext* ctx_;
  ParameterAccumulator acc_;
};

// The map every thread of the launch takes to a scalar: no results.
IndexingMap AnyThread(const EmitterPlan& plan, const RootPlan& root,
                      ExprContext* ctx) {
  std::vector<Variable> dims = GridDims(plan.launch);
  if (plan.kind == EmitterKind::kReduction) {
    dims[4].bounds = Interval::Point(root.group);
  }
  return IndexingMap(ctx, std::move(dims), {}, {}, {});
}

void DeriveParameters(const FusionInfo& info, PlanDraft* draft,
                      ExprContext* ctx) {
  ParameterDeriver deriver(info, ctx);
  for (RootDraft& rd : draft->roots) {
    const RootPlan& rp = rd.plan;
    const Instruction* root = rp.root;
    if (rd.read_through_output) {
      if (rp.output_map) {
        deriver.Add(root, nullptr, *rp.output_map, nullptr);
      } else {
        deriver.MarkUnknown(root, nullptr,
                            "the emitter has no map of root " + root->name);
      }
      continue;
    }
    const Instruction* hero = rp.hero;
    for (int i = 0; i < hero->operand_count(); ++i) {
      const Instruction* operand = hero->operand(i);
      const OperandRead read = i < static_cast<int>(rd.reads.size())
                                   ? rd.reads[i]
                                   : OperandRead::kUnknown;
      switch (read) {
        case OperandRead::kMap:
          if (i < static_cast<int>(rp.hero_operand_maps.size()) &&
              rp.hero_operand_maps[i]) {
            deriver.Add(operand, nullptr, *rp.hero_operand_maps[i], nullptr);
          } else {
            deriver.MarkUnknown(operand, nullptr,
                                "no thread map of operand " +
                                    std::to_string(i) + " of " + hero->name);
          }
          break;
        case OperandRead::kAnyThread:
          deriver.Add(operand, nullptr, AnyThread(draft->plan, rp, ctx),
                      nullptr);
          break;
        case OperandRead::kNotRead:
          break;
        case OperandRead::kUnknown: {
          std::string reason =
              i < static_cast<int>(rd.unknown_reasons.size())
                  ? rd.unknown_reasons[i]
                  : std::string("the emitter has no thread map of operand ") +
                        std::to_string(i) + " of " + hero->name;
          deriver.MarkUnknown(operand, nullptr, reason);
          break;
        }
      }
    }
    // The epilogue between the hero and the root reads at the root's
    // index, which the hero's output index determines through a bitcast.
    if (hero != root && info.IsInside(root) && !rd.hero_output_maps.empty()) {
      IndexingMap to_root =
          BitcastMap(OutputShape(*hero, 0), OutputShape(*root, 0), ctx);
      for (const IndexingMap& h : rd.hero_output_maps) {
        deriver.Add(root, hero, h, &to_root);
      }
    }
  }
  draft->plan.parameters = deriver.Finish();
}

}  // namespace
}  // namespace emitters

bool IsContiguousReduction(const hlo::Instruction& reduce, bool* is_row) {
  if (reduce.opcode != hlo::Opcode::kReduce ||
      !emitters::IsContiguousReduction(reduce)) {
    return false;
  }
  if (is_row) *is_row = emitters::GetReductionDims(reduce).is_row;
  return true;
}

std::optional<TransposeDescription> TiledTransposeOf(
    const hlo::Instruction& instr) {
  if (instr.opcode != hlo::Opcode::kTranspose &&
      instr.opcode != hlo::Opcode::kCopy) {
    return std::nullopt;
  }
  return emitters::TiledTransposeDescription(instr, instr);
}

Result<EmitterPlan> ComputeEmitterPlan(const FusionRegion& region,
                                       const hw::Device& device,
                                       ExprContext* ctx) {
  return ComputeEmitterPlan(region, device, PlanOptions(), ctx);
}

Result<EmitterPlan> ComputeEmitterPlan(const FusionRegion& region,
                                       const hw::Device& device,
                                       const PlanOptions& options,
                                       ExprContext* ctx) {
  using namespace emitters;
  if (!device.HasLaunchModel()) {
    return Error::Invalid("device " + device.name +
                          " has no GPU launch model (threads per block and "
                          "per core, cores, shared memory per block)");
  }
  if (!region.root) return Error::Invalid("the fusion has no root");
  // A kernel is launched over sizes; a `?` dim has none (and the plans'
  // products and per-operand extents would run past it).
  for (const auto* group : {&region.members, &region.parameters}) {
    for (const hlo::Instruction* instr : *group) {
      if (instr->shape.HasUnboundedDim()) {
        return Error::Unsupported("'" + instr->name +
                                  "' has an unbounded dynamic dimension (?): "
                                  "no size to launch threads over");
      }
    }
  }
  FusionInfo info = AnalyzeFusion(region);
  if (info.roots.empty()) {
    return Error::Unsupported("the fusion's root tuple is empty");
  }
  Result<PlanDraft> draft = Error{ErrorCode::kInternal, "unset", 0, 0};
  if (options.force_loop) {
    draft = BuildLoopPlan(info, device, options.loop_launch, ctx);
  } else {
    const KindChoice choice = ChooseEmitterKind(info);
    switch (choice.kind) {
      case EmitterKind::kLoop:
        draft = BuildLoopPlan(info, device, std::nullopt, ctx);
        break;
      case EmitterKind::kTranspose:
        draft = BuildTransposePlan(info, *choice.transpose, device, ctx);
        break;
      case EmitterKind::kReduction:
        draft =
            BuildReductionPlan(info, choice.first_reduction_root, device, ctx);
        break;
      case EmitterKind::kScatter:
        draft = BuildScatterPlan(info, device, ctx);
        break;
      case EmitterKind::kConcatenate:
        draft = BuildConcatenatePlan(info, device, ctx);
        break;
      case EmitterKind::kInPlaceDynamicUpdateSlice:
        draft = BuildInPlaceDusPlan(info, InPlaceDynamicUpdateSlices(info),
                                    device, ctx);
        break;
      case EmitterKind::kInputSlices:
        draft = BuildInputSlicesPlan(info, device, ctx);
        break;
    }
  }
  if (!draft.ok()) return draft.error();
  if (!options.skip_parameters) DeriveParameters(info, &draft.value(), ctx);
  // The transpose and reduction builders choose their vectors with the
  // tiles; the loop-like kinds vectorize their unrolled elements.
  EmitterPlan plan = std::move(draft.value().plan);
  for (RootDraft& rd : draft.value().roots) plan.roots.push_back(rd.plan);
  if (plan.kind != EmitterKind::kTranspose &&
      plan.kind != EmitterKind::kReduction) {
    plan.launch.vector_size = LoopLikeVectorSize(region, plan, ctx);
  }
  // A grid past the device's limits cannot be launched (XLA refuses such a
  // kernel when it annotates its launch): an error naming the limit, not a
  // cost or code for a kernel that never runs. CUDA's limits: x up to
  // 2^31 - 1 blocks, y and z up to 65535; 0 means no limit.
  for (int axis = 0; axis < 3; ++axis) {
    const int64_t limit = device.block_dim_limit[axis];
    if (limit > 0 && plan.launch.blocks[axis] > limit) {
      const char name[] = {"xyz"[axis], '\0'};
      return Error::Limit(
          "the " + std::string(EmitterKindName(plan.kind)) + " kernel needs " +
          std::to_string(plan.launch.blocks[axis]) + " blocks in grid " + name +
          ", past " + device.name + "'s limit of " + std::to_string(limit) +
          " (block_dim_limit)");
    }
  }
  return plan;
}

}  // namespace ixa
