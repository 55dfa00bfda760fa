// The transpose emitter (docs/emitters.md §6, docs/xla-reference.md §(h) h.7):
// each block reads one tile of the hero's operand coalesced (the plan's
// hero operand map) into shared memory at the thread's tile offset t,
// synchronizes, then reads the tile transposed (at t permuted) and writes
// the hero's output coalesced (the plan's output map), applying the
// epilogue from the hero to the root on the way. The tile's last dim is
// padded by one so that the transposed reads hit distinct banks.
#include "emit/emitters/emitters.h"

namespace ixa::emit::emitters {

using hlo::Instruction;
using ir::Type;
using ir::Val;

namespace {

// h.7 thread offsets within the block's tile: delinearize-in-bounds of
// s0 * 4 * block + th_x * v + s1 over block_sizes, over the same dims and
// symbols as the plan's maps.
// The generalized form delinearizes the same over
// `sizes`: the block sizes in input dim order (phase 1) or in output dim
// order (phase 2).
IndexingMap ThreadOffsets(const std::vector<int64_t>& sizes, int64_t v,
                          const IndexingMap& like, ExprContext* ctx) {
  const int64_t block = 32 * v;
  Expr linear = ctx->Symbol(0) * (4 * block) + ctx->Dim(0) * v + ctx->Symbol(1);
  std::vector<Expr> results;
  int64_t stride = 1;
  for (int64_t s : sizes) stride *= s;
  bool first = true;
  for (int64_t s : sizes) {
    stride /= s;
    if (s == 1) {
      results.push_back(ctx->Constant(0));
      continue;
    }
    Expr e = linear.FloorDiv(stride);
    results.push_back(first ? e : e % s);
    first = false;
  }
  return IndexingMap(ctx, like.dims(), like.range_vars(), {}, results);
}

}  // namespace

Status BuildTranspose(LoweringContext& lc, BlockBuilder& bb) {
  const EmitterPlan& plan = lc.plan();
  if (!plan.transpose) {
    return Error::Unsupported("emit: transpose plan without a description");
  }
  const TransposeDescription& desc = *plan.transpose;
  const int64_t v = plan.launch.vector_size;
  std::vector<Val> ids = GridIds(plan.launch);
  // One shared tile per distinct hero.
  std::map<const Instruction*, int> tiles;
  for (const SharedTile& t : plan.shared_tiles) {
    IXA_ASSIGN_OR_RETURN(Type type, ir::TypeOf(t.type));
    tiles[t.owner] = lc.AddSharedBuffer("tile", type, t.dims);
  }
  auto described = [&](const RootPlan& r) { return tiles.count(r.hero) > 0; };
  // Phase 1: tiles in, and the side outputs (read where the input is).
  std::set<const Instruction*> loaded;
  for (const RootPlan& r : plan.roots) {
    if (!described(r) || loaded.count(r.hero)) continue;
    loaded.insert(r.hero);
    if (r.hero_operand_maps.empty() || !r.hero_operand_maps[0]) {
      return Error::Unsupported("emit: transpose hero without an input map");
    }
    std::shared_ptr<const IndexingMap> in_map =
        lc.Intern(*r.hero_operand_maps[0]);
    if (in_map->num_range_vars() != 2) {
      return Error::Unsupported("emit: a transpose map of an unexpected form");
    }
    std::shared_ptr<const IndexingMap> offsets =
        lc.Intern(ThreadOffsets(desc.block_sizes, v, *in_map, lc.ctx()));
    const Instruction* hero = r.hero;
    int tile = tiles[hero];
    bb.Add(ir::Comment("read the tile of " + hero->operand(0)->name +
                       " coalesced into " + lc.module().buffers[tile].name));
    IXA_RETURN_IF_ERROR(ForEachPoint(
        lc, bb, in_map, ids, [&](const std::vector<Val>& ops) -> Status {
          std::vector<Val> idx;
          for (const Val& x : lc.ApplyAll(in_map, ops))
            idx.push_back(bb.Bind("in", x));
          ElementalEmitter ee(&lc, &bb);
          IXA_ASSIGN_OR_RETURN(Val value, ee.EmitOne(hero->operand(0), idx));
          bb.Add(ir::Store(tile, lc.ApplyAll(offsets, ops), value));
          return Status();
        }));
  }
  for (const RootPlan& r : plan.roots) {
    if (described(r)) continue;
    if (!r.output_map) {
      return Error::Unsupported("emit: side output '" + r.root->name +
                                "' without a thread map");
    }
    std::shared_ptr<const IndexingMap> map = lc.Intern(*r.output_map);
    bb.Add(ir::Comment("side output " + r.root->name +
                       " where its input is read"));
    IXA_RETURN_IF_ERROR(EmitRootsAtMap(lc, bb, map, {&r}, ids));
  }
  bb.Add(ir::Barrier());
  // Phase 2: tiles out, transposed, through the epilogues.
  for (const RootPlan& r : plan.roots) {
    if (!described(r)) continue;
    if (!r.output_map) {
      return Error::Unsupported("emit: transpose root without an output map");
    }
    std::shared_ptr<const IndexingMap> out_map = lc.Intern(*r.output_map);
    // The generalized form walks the tile in output dim order; 021 and
    // 210 have symmetric block sizes and a self-inverse permutation.
    std::vector<int64_t> out_sizes = desc.block_sizes;
    if (desc.generalized) {
      for (size_t i = 0; i < out_sizes.size(); ++i) {
        out_sizes[i] = desc.block_sizes[desc.permutation[i]];
      }
    }
    std::shared_ptr<const IndexingMap> offsets =
        lc.Intern(ThreadOffsets(out_sizes, v, *out_map, lc.ctx()));
    const Instruction* hero = r.hero;
    int tile = tiles[hero];
    std::vector<int> buffers = RootBuffers(lc, r);
    bb.Add(ir::Comment("write " + r.root->name +
                       " coalesced from the transposed tile"));
    IXA_RETURN_IF_ERROR(ForEachPoint(
        lc, bb, out_map, ids, [&](const std::vector<Val>& ops) -> Status {
          std::vector<Val> hidx;
          for (const Val& x : lc.ApplyAll(out_map, ops))
            hidx.push_back(bb.Bind("out", x));
          std::vector<Val> t = lc.ApplyAll(offsets, ops);
          // Output dim i is tile (input) dim permutation[i].
          std::vector<Val> read(t.size());
          for (size_t i = 0; i < t.size(); ++i) {
            if (desc.generalized) {
              read[desc.permutation[i]] = t[i];
            } else {
              read[i] = t[desc.permutation[i]];
            }
          }
          IXA_ASSIGN_OR_RETURN(Type type, ir::TypeOf(hero->shape.type));
          Val hv = bb.Bind("t", ir::Load(tile, type, read));
          return StoreEpilogue(lc, bb, hero, {hv}, r, hidx, buffers);
        }));
  }
  return Status();
}

}  // namespace ixa::emit::emitters
