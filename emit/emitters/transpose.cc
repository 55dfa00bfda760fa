// The transpose emitter (docs/emitters.md §6, docs/xla-reference.md §(h) h.7):
// each block reads one tile of the hero's operand coalesced (the plan's
// hero operand map) into shared memory at the thread's tile offset t,
// synchronizes, then reads the tile transposed (at t permuted) and writes
// the hero's output coalesced (the plan's output map), applying the
// epilogue from the hero to the root on the way. The tile is laid out as
// the plan says (XLA's padding, or a layout with as few bank conflicts in
// less memory, such as an XOR swizzle; shared_tile_access.h).
#include "analysis/emitters/shared_tiles.h"
#include "emit/emitters/emitters.h"
#include "emit/emitters/shared_tile_access.h"

namespace ixa::emit::emitters {

using hlo::Instruction;
using ir::Type;
using ir::Val;

namespace {

// h.7 thread offsets within the block's tile (shared_tiles.h), over the
// same dims and symbols as the plan's maps.
IndexingMap ThreadOffsets(const std::vector<int64_t>& sizes, int64_t v,
                          const IndexingMap& like, ExprContext* ctx) {
  return TransposeTileOffsets(sizes, v, like.dims(), like.range_vars(), ctx);
}

// The vector width of a tile's write (or read) in the plan: the lanes of
// the innermost symbol move as one vector where it is above one.
int64_t TileVectorWidth(const SharedTile& tile, bool write) {
  for (const SharedTileAccess& a : tile.accesses) {
    if (a.write == write) return a.vector_width;
  }
  return 1;
}

// `ops` with the innermost symbol (the vector lane) at 0.
std::vector<Val> FirstLane(std::vector<Val> ops) {
  ops.back() = ir::Index(0);
  return ops;
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
  std::map<const Instruction*, const SharedTile*> tile_plans;
  for (const SharedTile& t : plan.shared_tiles) {
    IXA_ASSIGN_OR_RETURN(tiles[t.owner], AddTileBuffer(lc, "tile", t));
    tile_plans[t.owner] = &t;
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
    const SharedTile& tile_plan = *tile_plans[hero];
    const int64_t write_width = TileVectorWidth(tile_plan, true);
    bb.Add(ir::Comment("read the tile of " + hero->operand(0)->name +
                       " coalesced into " + lc.module().buffers[tile].name));
    IXA_RETURN_IF_ERROR(ForEachPoint(
        lc, bb, in_map, ids, [&](const std::vector<Val>& ops) -> Status {
          std::vector<Val> idx;
          for (const Val& x : lc.ApplyAll(in_map, ops))
            idx.push_back(bb.Bind("in", x));
          // The tile's index first: the value read is then stored by the
          // very next statement (an f16 moves as its bits).
          std::vector<Val> at = lc.ApplyAll(offsets, ops);
          TileIndex where;
          if (write_width > 1) {
            TileLane lane{ops.back(), write_width,
                          lc.ApplyAll(offsets, FirstLane(ops))};
            where = TileIndexOf(lc, bb, tile_plan, at, &lane);
          } else {
            where = TileIndexOf(lc, bb, tile_plan, at);
          }
          ElementalEmitter ee(&lc, &bb);
          IXA_ASSIGN_OR_RETURN(Val value, ee.EmitOne(hero->operand(0), idx));
          bb.Add(StoreTileAt(tile, where, value));
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
    // The generalized form walks the tile in output dim order.
    std::shared_ptr<const IndexingMap> offsets = lc.Intern(
        ThreadOffsets(TransposeReadSizes(desc), v, *out_map, lc.ctx()));
    const std::vector<int> source = TransposeReadSource(desc);
    const Instruction* hero = r.hero;
    int tile = tiles[hero];
    const SharedTile& tile_plan = *tile_plans[hero];
    const int64_t read_width = TileVectorWidth(tile_plan, false);
    std::vector<int> buffers = RootBuffers(lc, r);
    bb.Add(ir::Comment("write " + r.root->name +
                       " coalesced from the transposed tile"));
    IXA_RETURN_IF_ERROR(ForEachPoint(
        lc, bb, out_map, ids, [&](const std::vector<Val>& ops) -> Status {
          std::vector<Val> hidx;
          for (const Val& x : lc.ApplyAll(out_map, ops))
            hidx.push_back(bb.Bind("out", x));
          auto tile_coords = [&](const std::vector<Val>& at) {
            std::vector<Val> t = lc.ApplyAll(offsets, at);
            std::vector<Val> read;
            for (int i : source) read.push_back(t[i]);
            return read;
          };
          IXA_ASSIGN_OR_RETURN(Type type, ir::TypeOf(hero->shape.type));
          Val loaded;
          if (read_width > 1) {
            TileLane lane{ops.back(), read_width, tile_coords(FirstLane(ops))};
            loaded = LoadTile(lc, bb, tile_plan, tile, type, tile_coords(ops),
                              &lane);
          } else {
            loaded = LoadTile(lc, bb, tile_plan, tile, type, tile_coords(ops));
          }
          Val hv = bb.Bind("t", loaded);
          return StoreEpilogue(lc, bb, hero, {hv}, r, hidx, buffers);
        }));
  }
  return Status();
}

}  // namespace ixa::emit::emitters
