#include <set>

#include "analysis/indexing/indexing.h"
#include "emit/emitters/emitters.h"
#include "simplifier/simplify.h"

namespace ixa::emit {

using hlo::Instruction;
using ir::Type;
using ir::Val;

namespace emitters {

std::vector<Val> GridIds(const LaunchDimensions& launch) {
  return {ir::GridId(ir::VarKind::kThreadX, launch.threads[0]),
          ir::GridId(ir::VarKind::kThreadY, launch.threads[1]),
          ir::GridId(ir::VarKind::kThreadZ, launch.threads[2]),
          ir::GridId(ir::VarKind::kBlockX, launch.blocks[0]),
          ir::GridId(ir::VarKind::kBlockY, launch.blocks[1]),
          ir::GridId(ir::VarKind::kBlockZ, launch.blocks[2])};
}

Status ForEachPoint(
    LoweringContext& lc, BlockBuilder& bb,
    const std::shared_ptr<const IndexingMap>& map, const std::vector<Val>& ids,
    const std::function<Status(const std::vector<Val>&)>& body) {
  if (map->num_dims() != static_cast<int>(ids.size()) ||
      map->num_rt_vars() != 0) {
    return Error::Unsupported("emit: a thread map of an unexpected form");
  }
  IXA_RETURN_IF_ERROR(CheckPrintableMap(*map));
  std::vector<Val> operands = ids;
  std::vector<std::string> names;
  for (int s = 0; s < map->num_range_vars(); ++s) {
    std::string stem = map->SymbolName(s);
    names.push_back(lc.FreshName(LoweringContext::Sanitize(stem)));
    operands.push_back(
        ir::Var(names.back(), Type::kIndex, map->range_vars()[s].bounds));
    bb.Open();
  }
  bb.Open();
  Status ok = body(operands);
  ir::Block guarded = bb.Close();
  if (ok.ok()) bb.Add(ir::If(ir::InDomain(map, operands), std::move(guarded)));
  for (int s = map->num_range_vars() - 1; s >= 0; --s) {
    ir::Block b = bb.Close();
    Interval bounds = map->range_vars()[s].bounds;
    if (ok.ok()) {
      bb.Add(ir::For(names[s], bounds.lower, bounds.upper + 1, std::move(b)));
    }
  }
  return ok;
}

std::vector<int> RootBuffers(LoweringContext& lc, const RootPlan& r) {
  // Outputs are numbered by leaf; roots before `r` take their leaves first.
  int first = 0;
  for (const RootPlan& o : lc.plan().roots) {
    if (o.output < r.output) first += LeafCount(o.root->shape);
  }
  std::vector<int> out;
  for (int i = 0; i < LeafCount(r.root->shape); ++i) {
    out.push_back(lc.OutputBuffer(first + i));
  }
  return out;
}

std::set<const Instruction*> PathToHero(const Instruction* root,
                                        const Instruction* hero) {
  std::set<const Instruction*> on_path;
  std::map<const Instruction*, bool> memo;
  std::function<bool(const Instruction*)> reaches = [&](const Instruction* i) {
    if (i == hero) return true;
    auto f = memo.find(i);
    if (f != memo.end()) return f->second;
    bool r = false;
    for (const Instruction* o : i->operands) r = reaches(o) || r;
    memo[i] = r;
    return r;
  };
  std::function<void(const Instruction*)> collect = [&](const Instruction* i) {
    if (!reaches(i) || !on_path.insert(i).second) return;
    for (const Instruction* o : i->operands) collect(o);
  };
  collect(root);
  return on_path;
}

Result<std::vector<Val>> HeroToRootIndex(LoweringContext& lc,
                                         const Instruction* hero,
                                         const Instruction* root,
                                         const std::vector<Val>& index) {
  if (hero == root) return index;
  // Follow one path root -> ... -> hero, composing input-to-output maps.
  std::vector<std::pair<const Instruction*, int>> steps;  // (user, operand)
  std::function<bool(const Instruction*)> find = [&](const Instruction* i) {
    if (i == hero) return true;
    for (int k = 0; k < i->operand_count(); ++k) {
      if (find(i->operand(k))) {
        steps.push_back({i, k});
        return true;
      }
    }
    return false;
  };
  if (!find(root))
    return Error::Invalid("emit: the root does not use its hero");
  // steps run from the hero's user up to the root.
  std::optional<IndexingMap> composed;
  for (const auto& [user, k] : steps) {
    auto ix = ComputeInputToOutputIndexing(*user, k, lc.ctx());
    if (!ix.ok() || ix->indexing_maps.empty() ||
        ix->indexing_maps[0].size() != 1) {
      return Error::Unsupported("emit: no single index map from hero '" +
                                hero->name + "' to root '" + root->name + "'");
    }
    const IndexingMap& m = ix->indexing_maps[0].maps()[0];
    if (m.num_symbols() != 0) {
      return Error::Unsupported("emit: hero '" + hero->name +
                                "' does not map one-to-one to root '" +
                                root->name + "'");
    }
    if (!composed) {
      composed = m;
    } else {
      IXA_ASSIGN_OR_RETURN(IndexingMap c, ComposeIndexingMaps(*composed, m));
      composed = c;
    }
  }
  Simplify(&*composed);
  IXA_RETURN_IF_ERROR(CheckPrintableMap(*composed));
  return lc.ApplyAll(lc.Intern(*composed), index);
}

Status EmitRootsAtMap(LoweringContext& lc, BlockBuilder& bb,
                      const std::shared_ptr<const IndexingMap>& map,
                      const std::vector<const RootPlan*>& roots,
                      const std::vector<Val>& ids) {
  return ForEachPoint(
      lc, bb, map, ids, [&](const std::vector<Val>& ops) -> Status {
        std::vector<Val> idx;
        for (const Val& x : lc.ApplyAll(map, ops)) {
          idx.push_back(bb.Bind("idx", x));
        }
        ElementalEmitter ee(&lc, &bb);
        // The roots of a multi-output fusion are emitted inline, each
        // value once per index, so that they share what they compute in
        // common (XLA's partitioner puts them in one subgraph). A function
        // per root would recompute in its own body the roots it reads:
        // once per path from a root to them, which the compiler's inliner
        // turns into exponentially many copies. (A single root keeps its
        // function, the partitioned stage's subgraph.)
        if (lc.plan().roots.size() > 1) {
          std::set<const Instruction*> fusion_roots;
          for (const RootPlan& r : lc.plan().roots) fusion_roots.insert(r.root);
          ee.set_inline(std::move(fusion_roots));
        }
        for (const RootPlan* r : roots) {
          IXA_ASSIGN_OR_RETURN(std::vector<Val> values, ee.Emit(r->root, idx));
          std::vector<int> buffers = RootBuffers(lc, *r);
          for (size_t j = 0; j < buffers.size(); ++j) {
            bb.Add(ir::Store(buffers[j], idx, values[j]));
          }
        }
        return Status();
      });
}

Status StoreEpilogue(LoweringContext& lc, BlockBuilder& bb,
                     const Instruction* hero,
                     const std::vector<Val>& hero_values, const RootPlan& r,
                     const std::vector<Val>& hero_index,
                     const std::vector<int>& buffers) {
  IXA_ASSIGN_OR_RETURN(std::vector<Val> root_index,
                       HeroToRootIndex(lc, hero, r.root, hero_index));
  ElementalEmitter epilogue(&lc, &bb);
  epilogue.Override(hero, hero_values);
  epilogue.set_inline(PathToHero(r.root, hero));
  IXA_ASSIGN_OR_RETURN(std::vector<Val> values,
                       epilogue.Emit(r.root, root_index));
  for (size_t j = 0; j < buffers.size(); ++j) {
    bb.Add(ir::Store(buffers[j], root_index, values[j]));
  }
  return Status();
}

}  // namespace emitters

bool InPlaceShapesMatch(const hlo::Shape& param, const hlo::Shape& out) {
  if (!param.Compatible(out) || param.MinorToMajor() != out.MinorToMajor()) {
    return false;
  }
  hlo::Layout none;
  const hlo::Layout& a = param.layout ? *param.layout : none;
  const hlo::Layout& b = out.layout ? *out.layout : none;
  return a.tiles == b.tiles && a.element_size_bits == b.element_size_bits;
}

Status BuildKernel(LoweringContext& lc, ir::Kernel* kernel) {
  const EmitterPlan& plan = lc.plan();
  kernel->launch.threads = plan.launch.threads;
  kernel->launch.blocks = plan.launch.blocks;
  BlockBuilder bb(&lc);
  switch (plan.kind) {
    case EmitterKind::kLoop:
    case EmitterKind::kInputSlices:
      IXA_RETURN_IF_ERROR(emitters::BuildLoop(lc, bb));
      break;
    case EmitterKind::kConcatenate:
      IXA_RETURN_IF_ERROR(emitters::BuildConcatenate(lc, bb));
      break;
    case EmitterKind::kInPlaceDynamicUpdateSlice:
      IXA_RETURN_IF_ERROR(emitters::BuildInPlaceDus(lc, bb));
      break;
    case EmitterKind::kScatter:
      IXA_RETURN_IF_ERROR(emitters::BuildScatter(lc, bb));
      break;
    case EmitterKind::kTranspose:
      IXA_RETURN_IF_ERROR(emitters::BuildTranspose(lc, bb));
      break;
    case EmitterKind::kReduction:
      IXA_RETURN_IF_ERROR(emitters::BuildReduction(lc, bb));
      break;
  }
  kernel->body = bb.Take();
  return Status();
}

}  // namespace ixa::emit
