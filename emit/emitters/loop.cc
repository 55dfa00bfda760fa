// The loop-like emitters (docs/xla-reference.md §(h) h.6): loop and input
// slices (each thread computes the roots at its output indices),
// concatenate (each operand's elements written at their place in the
// output), in-place dynamic-update-slice (only the update's elements are
// written; the output buffer is the operand's). Scatter is in scatter.cc.
#include <sstream>

#include "emit/emitters/emitters.h"

namespace ixa::emit::emitters {

using hlo::Instruction;
using ir::OpCode;
using ir::Type;
using ir::Val;

namespace {

std::vector<Val> BindAll(BlockBuilder& bb, const std::vector<Val>& values,
                         const std::string& stem) {
  std::vector<Val> out;
  for (const Val& v : values) out.push_back(bb.Bind(stem, v));
  return out;
}

// (d_0, ..., d_{n-1}, e_0, ..., e_{n-1}) -> (d_i + e_i): an index plus an
// offset, as one indexing map.
std::vector<Val> AddIndices(LoweringContext& lc, const std::vector<Val>& a,
                            const std::vector<Val>& b) {
  ExprContext* ctx = lc.ctx();
  const int n = static_cast<int>(a.size());
  std::vector<Expr> results;
  std::vector<Variable> dims;
  for (int i = 0; i < 2 * n; ++i) {
    Variable v;
    v.bounds = ir::RangeOf(i < n ? a[i] : b[i - n]);
    dims.push_back(v);
  }
  for (int i = 0; i < n; ++i) results.push_back(ctx->Dim(i) + ctx->Dim(n + i));
  IndexingMap map(ctx, dims, {}, {}, results);
  std::vector<Val> operands = a;
  operands.insert(operands.end(), b.begin(), b.end());
  return lc.ApplyAll(lc.Intern(map), operands);
}

// The buffer of fusion parameter `instr` (-1 when it is not one).
int ParameterBufferOf(LoweringContext& lc, const Instruction* instr) {
  int k = lc.ParameterIndex(instr);
  return k < 0 ? -1 : lc.ParameterBuffer(k);
}

// An output can live in a parameter's memory only when both have the same
// shape, layout included (XLA's buffer sharing,
// HloDataflowAnalysis::CanShareOperandBufferWithUser).
Status CheckSharesMemory(const Instruction* param, const Instruction* root) {
  if (InPlaceShapesMatch(param->shape, root->shape)) return Status();
  return Error::Unsupported(
      "emit: '" + root->name + "' (" + root->shape.ToString(true) +
      ") cannot be written in the memory of '" + param->name + "' (" +
      param->shape.ToString(true) + "): another shape or layout");
}

}  // namespace

Status BuildLoop(LoweringContext& lc, BlockBuilder& bb) {
  const EmitterPlan& plan = lc.plan();
  std::vector<Val> ids = GridIds(plan.launch);
  // Roots with the same thread map share one loop nest.
  std::vector<std::pair<std::shared_ptr<const IndexingMap>,
                        std::vector<const RootPlan*>>>
      groups;
  for (const RootPlan& r : plan.roots) {
    if (!r.output_map) {
      return Error::Unsupported("emit: root '" + r.root->name +
                                "' has no thread map in the plan");
    }
    std::shared_ptr<const IndexingMap> map = lc.Intern(*r.output_map);
    bool placed = false;
    for (auto& g : groups) {
      if (g.first == map) {
        g.second.push_back(&r);
        placed = true;
      }
    }
    if (!placed) groups.push_back({map, {&r}});
  }
  for (const auto& [map, roots] : groups) {
    bb.Add(ir::Comment("each thread computes the roots at its output indices"));
    IXA_RETURN_IF_ERROR(EmitRootsAtMap(lc, bb, map, roots, ids));
  }
  return Status();
}

Status BuildConcatenate(LoweringContext& lc, BlockBuilder& bb) {
  const EmitterPlan& plan = lc.plan();
  std::vector<Val> ids = GridIds(plan.launch);
  for (const RootPlan& r : plan.roots) {
    const Instruction* hero = r.hero;
    if (!hero || hero->opcode != hlo::Opcode::kConcatenate) {
      return Error::Unsupported(
          "emit: concatenate plan without a concatenate hero");
    }
    const int64_t dim = hero->dimensions.at(0);
    int64_t offset = 0;
    std::vector<int> buffers = RootBuffers(lc, r);
    for (int i = 0; i < hero->operand_count(); ++i) {
      if (i >= static_cast<int>(r.hero_operand_maps.size()) ||
          !r.hero_operand_maps[i]) {
        return Error::Unsupported("emit: concatenate operand " +
                                  std::to_string(i) + " has no thread map");
      }
      std::shared_ptr<const IndexingMap> map =
          lc.Intern(*r.hero_operand_maps[i]);
      const int64_t shift = offset;
      bb.Add(ir::Comment("operand " + std::to_string(i) + " of " + hero->name +
                         " lands at offset " + std::to_string(shift)));
      const std::vector<int64_t>& odims = hero->operand(i)->shape.dims;
      auto body = [&](const std::vector<Val>& ops) -> Status {
        std::vector<Val> idx = BindAll(bb, lc.ApplyAll(map, ops), "idx");
        ElementalEmitter ee(&lc, &bb);
        IXA_ASSIGN_OR_RETURN(Val v, ee.EmitOne(hero->operand(i), idx));
        std::vector<Val> shift_by(idx.size(), ir::Index(0));
        shift_by[dim] = ir::Index(shift);
        std::vector<Val> hidx =
            BindAll(bb, AddIndices(lc, idx, shift_by), "out");
        return StoreEpilogue(lc, bb, hero, {v}, r, hidx, buffers);
      };
      IXA_RETURN_IF_ERROR(ForEachPoint(
          lc, bb, map, ids, [&](const std::vector<Val>& ops) -> Status {
            // The map may run over the largest operand (XLA launches over
            // it): a smaller operand skips the indices past its end. The
            // plan's unroll u' divides every operand's size along the
            // concatenated dim, and the map's innermost range variable
            // counts the u' consecutive elements of one aligned group, so
            // a group never straddles an operand's end: the check reads
            // lane 0 and moves out of the lane loop, which then becomes
            // vector accesses (XLA loops per operand for the same reason).
            std::vector<Val> lane0 = ops;
            if (plan.launch.unroll > 1 && map->num_range_vars() > 0) {
              lane0.back() = ir::Index(map->range_vars().back().bounds.lower);
            }
            std::vector<Val> idx = lc.ApplyAll(map, lane0);
            std::vector<Val> inside;
            for (size_t d = 0; d < idx.size(); ++d) {
              if (ir::RangeOf(idx[d]).upper >= odims[d]) {
                inside.push_back(ir::Op(OpCode::kLt, Type::kPred,
                                        {idx[d], ir::Index(odims[d])},
                                        Type::kIndex));
              }
            }
            if (inside.empty()) return body(ops);
            bb.Open();
            Status ok = body(ops);
            ir::Block then = bb.Close();
            if (!ok.ok()) return ok;
            bb.Add(ir::If(ir::AllOf(inside), std::move(then)));
            return Status();
          }));
      offset += hero->operand(i)->shape.dims[dim];
    }
  }
  return Status();
}

Status BuildInPlaceDus(LoweringContext& lc, BlockBuilder& bb) {
  const EmitterPlan& plan = lc.plan();
  std::vector<Val> ids = GridIds(plan.launch);
  std::optional<IndexingMap> update_map;
  for (const RootPlan& r : plan.roots) {
    if (r.hero_operand_maps.size() > 1 && r.hero_operand_maps[1]) {
      update_map = *r.hero_operand_maps[1];
      break;
    }
  }
  if (!update_map) {
    return Error::Unsupported(
        "emit: in-place update plan without an update map");
  }
  std::shared_ptr<const IndexingMap> map = lc.Intern(*update_map);
  for (const RootPlan& r : plan.roots) {
    // The dynamic-update-slice under the root's bitcasts.
    const Instruction* dus = r.root;
    while (dus->opcode == hlo::Opcode::kBitcast ||
           dus->opcode == hlo::Opcode::kReshape)
      dus = dus->operand(0);
    if (dus->opcode != hlo::Opcode::kDynamicUpdateSlice) {
      return Error::Unsupported("emit: in-place root '" + r.root->name +
                                "' is no dynamic-update-slice");
    }
    const Instruction* base = dus->operand(0);
    if (base->opcode == hlo::Opcode::kBitcast) base = base->operand(0);
    int base_buffer = ParameterBufferOf(lc, base);
    if (base_buffer < 0) {
      return Error::Unsupported("emit: the updated operand of '" + dus->name +
                                "' is not a fusion parameter");
    }
    IXA_RETURN_IF_ERROR(CheckSharesMemory(base, r.root));
    std::vector<int> buffers = RootBuffers(lc, r);
    lc.module().buffers[buffers[0]].aliases = base_buffer;
    const std::vector<int64_t>& out_dims = dus->shape.dims;
    const std::vector<int64_t>& upd_dims = dus->operand(1)->shape.dims;
    bb.Add(ir::Comment("only the update's elements are written; " +
                       lc.module().buffers[buffers[0]].name + " is " +
                       lc.module().buffers[base_buffer].name + "'s memory"));
    IXA_RETURN_IF_ERROR(ForEachPoint(
        lc, bb, map, ids, [&](const std::vector<Val>& ops) -> Status {
          std::vector<Val> uidx = BindAll(bb, lc.ApplyAll(map, ops), "upd");
          ElementalEmitter ee(&lc, &bb);
          std::vector<Val> starts;
          // One scalar offset per dim, or (the legacy form) one vector of
          // them: element j of operand 2.
          const int vector_operand = hlo::OffsetVectorOperand(*dus);
          if (vector_operand < 0 &&
              dus->operand_count() != 2 + static_cast<int>(out_dims.size())) {
            return Error::Invalid("emit: '" + dus->name + "' has " +
                                  std::to_string(dus->operand_count() - 2) +
                                  " offsets for rank " +
                                  std::to_string(out_dims.size()));
          }
          for (size_t j = 0; j < out_dims.size(); ++j) {
            Result<Val> offset =
                vector_operand >= 0
                    ? ee.EmitOne(dus->operand(vector_operand),
                                 {ir::Index(static_cast<int64_t>(j))})
                    : ee.EmitOne(dus->operand(2 + j), {});
            IXA_ASSIGN_OR_RETURN(Val s, std::move(offset));
            Val idx = ir::Op(OpCode::kToIndex, Type::kIndex, {s}, s->type);
            starts.push_back(bb.Bind(
                "start", ir::Op(OpCode::kClampIndex, Type::kIndex,
                                {idx, ir::Index(0),
                                 ir::Index(out_dims[j] - upd_dims[j])})));
          }
          IXA_ASSIGN_OR_RETURN(Val v, ee.EmitOne(dus->operand(1), uidx));
          std::vector<Val> oidx =
              BindAll(bb, AddIndices(lc, uidx, starts), "out");
          IXA_ASSIGN_OR_RETURN(std::vector<Val> ridx,
                               HeroToRootIndex(lc, dus, r.root, oidx));
          bb.Add(ir::Store(buffers[0], ridx, v));
          return Status();
        }));
  }
  return Status();
}

}  // namespace ixa::emit::emitters
