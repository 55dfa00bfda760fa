// The reduction emitter (docs/xla-reference.md §(h) h.8): every thread folds
// the inputs it reads (the plan's hero operand maps) into per-thread
// partials with the reducer computation as written, the partials of a
// row meet through warp shuffles (and, for rows wider than a warp or for
// column reductions, a shared-memory tile and a second shuffle round), and
// the thread the output map designates writes the root through its
// epilogue. Side outputs are computed where the inputs are read.
#include "emit/emitters/emitters.h"
#include "emit/emitters/shared_tile_access.h"

namespace ixa::emit::emitters {

using hlo::Instruction;
using ir::OpCode;
using ir::Type;
using ir::Val;

namespace {

constexpr int64_t kWarp = 32;

struct Hero {
  const Instruction* reduce = nullptr;
  const RootPlan* first_root = nullptr;
  int inputs = 0;
  std::vector<Type> types;
  std::vector<Val> inits;
  std::string reducer;
  // accs[lane][k]: the partials (column reductions keep one per vector
  // lane, the others one).
  std::vector<std::vector<Val>> accs;
  std::vector<int> scratch;  // shared tile per input (when the kind has one)
  std::vector<const SharedTile*> scratch_plans;  // their layouts
};

// A map over the grid ids computing `results` from th_x (dim 0).
std::vector<Val> ThreadIndex(LoweringContext& lc, const std::vector<Val>& ids,
                             const LaunchDimensions& launch,
                             std::vector<Expr> results) {
  std::vector<int64_t> sizes = {launch.threads[0], launch.threads[1],
                                launch.threads[2], launch.blocks[0],
                                launch.blocks[1],  launch.blocks[2]};
  IndexingMap map =
      IndexingMap::FromTensorSizes(lc.ctx(), std::move(results), sizes, {});
  return lc.ApplyAll(lc.Intern(map), ids);
}

Val Eq(const Val& a, int64_t b) {
  return ir::Op(OpCode::kEq, Type::kPred, {a, ir::Index(b)}, Type::kIndex);
}
Val Lt(const Val& a, int64_t b) {
  return ir::Op(OpCode::kLt, Type::kPred, {a, ir::Index(b)}, Type::kIndex);
}

// acc = reducer(acc, values) for every input of the hero.
void Combine(BlockBuilder& bb, Hero& h, int lane,
             const std::vector<Val>& values) {
  std::vector<Val> args = h.accs[lane];
  args.insert(args.end(), values.begin(), values.end());
  std::vector<std::string> results;
  for (int k = 0; k < h.inputs; ++k) results.push_back(bb.Fresh("red"));
  bb.Add(ir::Call(h.reducer, args, results, h.types));
  for (int k = 0; k < h.inputs; ++k) {
    bb.Add(ir::Assign(h.accs[lane][k]->name, ir::Var(results[k], h.types[k])));
  }
}

// Tree reduction over `lanes` (a power of two up to 32) consecutive lanes
// of each warp: after it, the first lane of each group of `lanes` holds
// the group's result. The shuffles stay within each group (their width):
// XLA's shuffles span the whole warp, which gives the first lanes the same
// values, but there a group's last lanes read lanes past the end of a
// block of fewer than 32 threads, which CUDA leaves undefined.
void WarpReduce(BlockBuilder& bb, Hero& h, int lane, int64_t lanes) {
  for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
    std::vector<Val> partner;
    for (int k = 0; k < h.inputs; ++k) {
      std::string name = bb.Fresh("shfl");
      bb.Add(ir::Shuffle(name, h.types[k], h.accs[lane][k], offset, lanes));
      partner.push_back(ir::Var(name, h.types[k]));
    }
    Combine(bb, h, lane, partner);
  }
}

using InputMaps = std::vector<std::shared_ptr<const IndexingMap>>;

Hero* FindHero(std::vector<Hero>& heroes, const Instruction* reduce) {
  for (Hero& h : heroes) {
    if (h.reduce == reduce) return &h;
  }
  return nullptr;
}

// The heroes, in root order, with the shared tiles the plan gives them.
Result<std::vector<Hero>> CollectHeroes(LoweringContext& lc,
                                        const EmitterPlan& plan) {
  std::vector<Hero> heroes;
  for (const RootPlan& r : plan.roots) {
    if (!r.hero || r.hero->opcode != hlo::Opcode::kReduce ||
        FindHero(heroes, r.hero))
      continue;
    bool has_input_maps =
        !r.hero_operand_maps.empty() && r.hero_operand_maps[0];
    if (!has_input_maps) continue;
    Hero h;
    h.reduce = r.hero;
    h.first_root = &r;
    h.inputs = r.hero->operand_count() / 2;
    heroes.push_back(std::move(h));
  }
  for (const SharedTile& t : plan.shared_tiles) {
    Hero* h = FindHero(heroes, t.owner);
    if (!h) continue;
    if (static_cast<int>(h->scratch.size()) <= t.operand) {
      h->scratch.resize(t.operand + 1, -1);
      h->scratch_plans.resize(t.operand + 1, nullptr);
    }
    IXA_ASSIGN_OR_RETURN(h->scratch[t.operand],
                         AddTileBuffer(lc, "scratch", t));
    h->scratch_plans[t.operand] = &t;
  }
  return heroes;
}

// Declares the partials of `h` (one per lane and input) at the reducer's
// init values; answers the thread maps of the hero's inputs.
Result<InputMaps> DeclarePartials(LoweringContext& lc, BlockBuilder& bb,
                                  Hero& h, int lanes) {
  const Instruction* reduce = h.reduce;
  IXA_ASSIGN_OR_RETURN(h.reducer, lc.ScalarFunction(reduce->called()));
  ElementalEmitter init_emitter(&lc, &bb);
  for (int k = 0; k < h.inputs; ++k) {
    IXA_ASSIGN_OR_RETURN(
        Val init, init_emitter.EmitOne(reduce->operand(h.inputs + k), {}));
    h.inits.push_back(init);
    h.types.push_back(init->type);
  }
  h.accs.resize(lanes);
  for (int l = 0; l < lanes; ++l) {
    for (int k = 0; k < h.inputs; ++k) {
      h.accs[l].push_back(bb.DeclareVar("acc", h.inits[k]));
    }
  }
  InputMaps maps;
  for (int k = 0; k < h.inputs; ++k) {
    if (k >= static_cast<int>(h.first_root->hero_operand_maps.size()) ||
        !h.first_root->hero_operand_maps[k]) {
      return Error::Unsupported("emit: reduce input " + std::to_string(k) +
                                " of '" + reduce->name + "' has no thread map");
    }
    maps.push_back(lc.Intern(*h.first_root->hero_operand_maps[k]));
  }
  return maps;
}

// Reads every input of `h` at grid point `ops` and folds the values into
// the partials of `lane`.
Status FoldInputsAt(LoweringContext& lc, BlockBuilder& bb, Hero& h,
                    const InputMaps& maps, const std::vector<Val>& ops,
                    int lane) {
  ElementalEmitter ee(&lc, &bb);
  std::vector<Val> values;
  for (int k = 0; k < h.inputs; ++k) {
    std::vector<Val> idx;
    for (const Val& x : lc.ApplyAll(maps[k], ops))
      idx.push_back(bb.Bind("in", x));
    IXA_ASSIGN_OR_RETURN(Val value, ee.EmitOne(h.reduce->operand(k), idx));
    values.push_back(value);
  }
  Combine(bb, h, lane, values);
  return Status();
}

// Column reduction with aligned vectors (the plan's v divides the minor
// kept dim, so a vector's lanes are all in bounds or none is): a loop over
// the lanes reads one value per lane into a vector variable, which the
// vectorizer turns into one vector load per parameter read; then each lane
// folds into its own partial.
Status FoldAlignedColumnVectors(LoweringContext& lc, BlockBuilder& bb, Hero& h,
                                const InputMaps& maps,
                                const std::vector<Val>& ids, int lanes) {
  const IndexingMap& m = *maps[0];
  if (m.num_range_vars() != 2) {
    return Error::Unsupported(
        "emit: a column reduction map of an unexpected form");
  }
  std::string s0 = lc.FreshName("s");
  Val sv = ir::Var(s0, Type::kIndex, m.range_vars()[0].bounds);
  bb.Open();  // the s0 loop
  std::vector<Val> first_lane = ids;
  first_lane.push_back(sv);
  first_lane.push_back(ir::Index(0));
  bb.Open();  // in bounds
  std::vector<Val> vectors;
  for (int k = 0; k < h.inputs; ++k) {
    std::string name = lc.FreshName("lanes");
    auto zero = std::make_shared<ir::Node>(*ir::Zero(h.types[k]));
    zero->width = lanes;
    bb.Add(ir::Declare(name, h.types[k], zero));
    auto ref = std::make_shared<ir::Node>(*ir::MutableVar(name, h.types[k]));
    ref->width = lanes;
    vectors.push_back(ref);
  }
  std::string lane_name = lc.FreshName("lane");
  Val lane = ir::Var(lane_name, Type::kIndex, Interval{0, lanes - 1});
  bb.Open();  // the lane loop
  std::vector<Val> ops = first_lane;
  ops.back() = lane;
  ElementalEmitter ee(&lc, &bb);
  for (int k = 0; k < h.inputs; ++k) {
    std::vector<Val> idx;
    for (const Val& x : lc.ApplyAll(maps[k], ops))
      idx.push_back(bb.Bind("in", x));
    IXA_ASSIGN_OR_RETURN(Val value, ee.EmitOne(h.reduce->operand(k), idx));
    bb.Add(ir::Assign(vectors[k]->name, ir::Insert(vectors[k], lane, value)));
  }
  ir::Block lane_body = bb.Close();
  bb.Add(ir::For(lane_name, 0, lanes, std::move(lane_body)));
  for (int l = 0; l < lanes; ++l) {
    std::vector<Val> values;
    for (int k = 0; k < h.inputs; ++k) {
      values.push_back(ir::Extract(vectors[k], ir::Index(l)));
    }
    Combine(bb, h, l, values);
  }
  ir::Block then = bb.Close();
  bb.Add(ir::If(ir::InDomain(maps[0], first_lane), std::move(then)));
  ir::Block body = bb.Close();
  Interval b = m.range_vars()[0].bounds;
  bb.Add(ir::For(s0, b.lower, b.upper + 1, std::move(body)));
  return Status();
}

// Column reduction with vectors: the last symbol is the lane, kept apart
// (one partial per lane).
Status FoldColumnLanes(LoweringContext& lc, BlockBuilder& bb, Hero& h,
                       const InputMaps& maps, const std::vector<Val>& ids,
                       int lanes) {
  const IndexingMap& m = *maps[0];
  if (m.num_range_vars() != 2) {
    return Error::Unsupported(
        "emit: a column reduction map of an unexpected form");
  }
  std::string s0 = lc.FreshName("s");
  Val sv = ir::Var(s0, Type::kIndex, m.range_vars()[0].bounds);
  bb.Open();
  for (int l = 0; l < lanes; ++l) {
    std::vector<Val> ops = ids;
    ops.push_back(sv);
    ops.push_back(ir::Index(l));
    bb.Open();
    Status ok = FoldInputsAt(lc, bb, h, maps, ops, l);
    ir::Block then = bb.Close();
    if (!ok.ok()) {
      bb.Close();
      return ok;
    }
    bb.Add(ir::If(ir::InDomain(maps[0], ops), std::move(then)));
  }
  ir::Block body = bb.Close();
  Interval b = m.range_vars()[0].bounds;
  bb.Add(ir::For(s0, b.lower, b.upper + 1, std::move(body)));
  return Status();
}

// Phase A: every thread folds the inputs it reads into its partials.
Status EmitPartials(LoweringContext& lc, BlockBuilder& bb, Hero& h,
                    const ReductionDescription& desc,
                    const std::vector<Val>& ids, int lanes) {
  IXA_ASSIGN_OR_RETURN(InputMaps maps, DeclarePartials(lc, bb, h, lanes));
  bb.Add(ir::Comment("per-thread partials of " + h.reduce->name));
  if (lanes == 1) {
    return ForEachPoint(lc, bb, maps[0], ids, [&](const std::vector<Val>& ops) {
      return FoldInputsAt(lc, bb, h, maps, ops, 0);
    });
  }
  if (desc.dims[2] % lanes == 0) {
    return FoldAlignedColumnVectors(lc, bb, h, maps, ids, lanes);
  }
  return FoldColumnLanes(lc, bb, h, maps, ids, lanes);
}

// Side outputs, where their inputs are read.
Status EmitSideOutputs(LoweringContext& lc, BlockBuilder& bb,
                       const EmitterPlan& plan, std::vector<Hero>& heroes,
                       const std::vector<Val>& ids) {
  for (const RootPlan& r : plan.roots) {
    if (FindHero(heroes, r.hero)) continue;
    if (!r.output_map) {
      return Error::Unsupported("emit: side output '" + r.root->name +
                                "' without a thread map");
    }
    std::shared_ptr<const IndexingMap> map = lc.Intern(*r.output_map);
    bb.Add(ir::Comment("side output " + r.root->name));
    IXA_RETURN_IF_ERROR(EmitRootsAtMap(lc, bb, map, {&r}, ids));
  }
  return Status();
}

// A row wider than a warp: after each warp's shuffles, the warps' partials
// meet in shared memory and the row's first warp reduces them by a second
// round of shuffles. `th` is the thread id th_x.
Status ReduceRowAcrossWarps(LoweringContext& lc, BlockBuilder& bb,
                            std::vector<Hero>& heroes,
                            const LaunchDimensions& launch,
                            const std::vector<Val>& ids, const Expr& th,
                            int64_t tr, int64_t warps_per_row) {
  std::vector<Val> t =
      ThreadIndex(lc, ids, launch,
                  {th.FloorDiv(tr), (th % tr).FloorDiv(kWarp), th % kWarp});
  Val row = bb.Bind("row", t[0]), warp = bb.Bind("warp", t[1]),
      lane = bb.Bind("lane", t[2]);
  bb.Add(ir::Comment(
      "the first lane of each warp hands its partial over shared memory"));
  for (Hero& h : heroes) {
    if (static_cast<int>(h.scratch.size()) < h.inputs) {
      return Error::Unsupported(
          "emit: row reduction without its shared scratch");
    }
    ir::Block then;
    for (int k = 0; k < h.inputs; ++k) {
      then.push_back(StoreTile(lc, bb, *h.scratch_plans[k], h.scratch[k],
                               {row, warp}, h.accs[0][k]));
    }
    bb.Add(ir::If(Eq(lane, 0), std::move(then)));
  }
  bb.Add(ir::Barrier());
  bb.Add(ir::Comment("the row's first warp reduces the warps' partials"));
  for (Hero& h : heroes) {
    ir::Block then, otherwise;
    for (int k = 0; k < h.inputs; ++k) {
      then.push_back(ir::Assign(
          h.accs[0][k]->name, LoadTile(lc, bb, *h.scratch_plans[k],
                                       h.scratch[k], h.types[k], {row, lane})));
      otherwise.push_back(ir::Assign(h.accs[0][k]->name, h.inits[k]));
    }
    bb.Add(ir::If(ir::AllOf({Eq(warp, 0), Lt(lane, warps_per_row)}),
                  std::move(then), std::move(otherwise)));
  }
  for (Hero& h : heroes) WarpReduce(bb, h, 0, kWarp);
  return Status();
}

// Column: the 32 x 32v tile goes through shared memory transposed, so
// that warp t0 finishes columns t0 * v ... t0 * v + v - 1.
Status ReduceColumnsThroughSharedTile(LoweringContext& lc, BlockBuilder& bb,
                                      std::vector<Hero>& heroes,
                                      const LaunchDimensions& launch,
                                      const std::vector<Val>& ids,
                                      const Expr& th, int lanes) {
  ExprContext* ctx = lc.ctx();
  const int64_t v = launch.vector_size;
  std::vector<Val> t =
      ThreadIndex(lc, ids, launch, {th.FloorDiv(kWarp), th % kWarp});
  Val t0 = bb.Bind("t0", t[0]), t1 = bb.Bind("t1", t[1]);
  bb.Add(ir::Comment("partials into shared memory, read back transposed"));
  auto at = [&](const Val& a, const Val& b, int l) {
    IndexingMap m =
        IndexingMap::FromTensorSizes(ctx, {ctx->Dim(0), ctx->Dim(1) * v + l},
                                     std::vector<int64_t>{kWarp, kWarp}, {});
    return lc.ApplyAll(lc.Intern(m), {a, b});
  };
  for (Hero& h : heroes) {
    if (static_cast<int>(h.scratch.size()) < h.inputs) {
      return Error::Unsupported(
          "emit: column reduction without its shared scratch");
    }
    for (int l = 0; l < lanes; ++l) {
      for (int k = 0; k < h.inputs; ++k) {
        bb.Add(StoreTile(lc, bb, *h.scratch_plans[k], h.scratch[k],
                         at(t0, t1, l), h.accs[l][k]));
      }
    }
  }
  bb.Add(ir::Barrier());
  for (Hero& h : heroes) {
    for (int l = 0; l < lanes; ++l) {
      for (int k = 0; k < h.inputs; ++k) {
        bb.Add(ir::Assign(h.accs[l][k]->name,
                          LoadTile(lc, bb, *h.scratch_plans[k], h.scratch[k],
                                   h.types[k], at(t1, t0, l))));
      }
    }
  }
  bb.Add(ir::Comment("each warp reduces its columns by shuffles"));
  for (Hero& h : heroes) {
    for (int l = 0; l < lanes; ++l) WarpReduce(bb, h, l, kWarp);
  }
  return Status();
}

// Phases B and C: the partials of a row (or column) meet.
Status CombinePartials(LoweringContext& lc, BlockBuilder& bb,
                       std::vector<Hero>& heroes,
                       const ReductionDescription& desc,
                       const LaunchDimensions& launch,
                       const std::vector<Val>& ids, int lanes) {
  const Expr th = lc.ctx()->Dim(0);
  if (desc.kind == ReductionKind::kMultiRow) {
    const int64_t tr = desc.threads_reduced;
    bb.Add(ir::Comment("each row's " + std::to_string(tr) +
                       " lanes reduce by shuffles"));
    for (Hero& h : heroes) WarpReduce(bb, h, 0, tr);
    return Status();
  }
  if (desc.kind == ReductionKind::kRow) {
    const int64_t tr = desc.threads_reduced;
    const int64_t warps_per_row = (tr + kWarp - 1) / kWarp;
    bb.Add(ir::Comment("each warp reduces by shuffles"));
    for (Hero& h : heroes) WarpReduce(bb, h, 0, kWarp);
    if (warps_per_row <= 1) return Status();
    return ReduceRowAcrossWarps(lc, bb, heroes, launch, ids, th, tr,
                                warps_per_row);
  }
  return ReduceColumnsThroughSharedTile(lc, bb, heroes, launch, ids, th, lanes);
}

// Phase D: the designated thread writes each root through its epilogue.
Status WriteRoots(LoweringContext& lc, BlockBuilder& bb,
                  const EmitterPlan& plan, std::vector<Hero>& heroes,
                  const std::vector<Val>& ids, int lanes) {
  for (const RootPlan& r : plan.roots) {
    Hero* h = FindHero(heroes, r.hero);
    if (!h) continue;
    if (!r.output_map) {
      return Error::Unsupported("emit: reduction root '" + r.root->name +
                                "' without an output map");
    }
    std::shared_ptr<const IndexingMap> map = lc.Intern(*r.output_map);
    std::vector<int> buffers = RootBuffers(lc, r);
    bb.Add(ir::Comment("write " + r.root->name));
    auto write = [&](const std::vector<Val>& ops, int lane) -> Status {
      std::vector<Val> oidx;
      for (const Val& x : lc.ApplyAll(map, ops))
        oidx.push_back(bb.Bind("out", x));
      return StoreEpilogue(lc, bb, h->reduce, h->accs[lane], r, oidx, buffers);
    };
    if (lanes == 1) {
      IXA_RETURN_IF_ERROR(ForEachPoint(
          lc, bb, map, ids,
          [&](const std::vector<Val>& ops) { return write(ops, 0); }));
    } else {
      if (map->num_range_vars() != 1) {
        return Error::Unsupported(
            "emit: a column output map of an unexpected form");
      }
      for (int l = 0; l < lanes; ++l) {
        std::vector<Val> ops = ids;
        ops.push_back(ir::Index(l));
        bb.Open();
        IXA_RETURN_IF_ERROR(write(ops, l));
        ir::Block then = bb.Close();
        bb.Add(ir::If(ir::InDomain(map, ops), std::move(then)));
      }
    }
  }
  return Status();
}

}  // namespace

Status BuildReduction(LoweringContext& lc, BlockBuilder& bb) {
  const EmitterPlan& plan = lc.plan();
  if (!plan.reduction) {
    return Error::Unsupported("emit: reduction plan without a description");
  }
  const ReductionDescription& desc = *plan.reduction;
  const LaunchDimensions& launch = plan.launch;
  const bool column = desc.kind == ReductionKind::kColumn;
  const int lanes = column ? static_cast<int>(launch.vector_size) : 1;
  std::vector<Val> ids = GridIds(launch);
  IXA_ASSIGN_OR_RETURN(std::vector<Hero> heroes, CollectHeroes(lc, plan));
  for (Hero& h : heroes) {
    IXA_RETURN_IF_ERROR(EmitPartials(lc, bb, h, desc, ids, lanes));
  }
  IXA_RETURN_IF_ERROR(EmitSideOutputs(lc, bb, plan, heroes, ids));
  IXA_RETURN_IF_ERROR(
      CombinePartials(lc, bb, heroes, desc, launch, ids, lanes));
  return WriteRoots(lc, bb, plan, heroes, ids, lanes);
}

}  // namespace ixa::emit::emitters
