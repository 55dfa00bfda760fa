// The reduction emitters (docs/xla-reference.md §(h) h.8): row, multi-row
// and column reductions over the normalised dims D of h.3, with XLA's
// root groups, vector size and shared-memory scratch; MlirReductionFusion
// and its three subclasses at the pinned revision.
#include <algorithm>
#include <climits>
#include <map>
#include <numeric>

#include "analysis/emitters/internal.h"
#include "analysis/emitters/shared_tiles.h"
#include "analysis/indexing/indexing.h"
#include "core/int_math.h"

namespace ixa::emitters {
namespace {

constexpr int64_t kWarp = 32;

// Types the generated code reads one element at a time: complex (as XLA),
// and the sub-byte and 8-bit float types, which it unpacks and decodes per
// element; a plan over them has vector size 1, so that the launch reported
// is the code's.
bool ReadOneByOne(hlo::ElementType t) {
  using hlo::ElementType;
  switch (t) {
    case ElementType::kC64:
    case ElementType::kC128:
    case ElementType::kF4E2M1FN:
    case ElementType::kF8E3M4:
    case ElementType::kF8E4M3:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E5M2:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E8M0FNU:
    case ElementType::kF6E2M3FN:
    case ElementType::kF6E3M2FN:
      return true;
    default:
      return hlo::ElementBits(t) < 8;
  }
}

bool HeroReadsOneByOne(const FusionInfo& info) {
  for (const Instruction* hero : info.heroes) {
    for (const Instruction* o : hero->operands) {
      if (o->shape.IsArray() && ReadOneByOne(o->shape.type)) return true;
    }
  }
  return false;
}

// GetVectorSizeForMlir with R = the minor dim and t threads along it.
int64_t VectorSize(const FusionInfo& info, int64_t minor, int64_t threads) {
  if (minor % 2 != 0) return 1;
  if (threads * 2 > minor) return 1;
  if (HeroReadsOneByOne(info)) return 1;
  if (info.bits_in >= 64) return 1;
  if (info.bits_in >= 32) return 2;
  if (threads * 4 > minor) return 2;
  return minor % 4 == 0 ? 4 : 2;
}

bool IsBroadcastedConstantOrScalar(const Instruction& instr) {
  auto constant_or_scalar = [](const Instruction& i) {
    return i.opcode == hlo::Opcode::kConstant ||
           (i.shape.IsArray() && i.shape.rank() == 0);
  };
  return constant_or_scalar(instr) ||
         (instr.opcode == hlo::Opcode::kBroadcast &&
          instr.operand_count() == 1 && constant_or_scalar(*instr.operand(0)));
}

// XLA's GroupDisjointReductions: roots reached from one instruction (or
// fusion operand) share a group; all non-reduction roots share one; a
// broadcasted constant or scalar links at most one reduction root.
std::vector<std::vector<int>> GroupRoots(
    const FusionInfo& info, const std::vector<bool>& is_reduction) {
  const int n = static_cast<int>(info.roots.size());
  if (n == 1) return {{0}};
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  auto merge = [&](int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  int first_other = -1;
  for (int k = 0; k < n; ++k) {
    if (is_reduction[k]) continue;
    if (first_other < 0) {
      first_other = k;
    } else {
      merge(first_other, k);
    }
  }
  // reached[instr] = the roots that (transitively) use it.
  std::map<const Instruction*, std::vector<bool>> reached;
  std::vector<const Instruction*> order;
  for (int k = 0; k < n; ++k) {
    std::vector<const Instruction*> stack = {info.roots[k]};
    while (!stack.empty()) {
      const Instruction* node = stack.back();
      stack.pop_back();
      auto [it, fresh] = reached.try_emplace(node, std::vector<bool>(n));
      if (fresh) order.push_back(node);
      if (it->second[k]) continue;
      it->second[k] = true;
      if (!info.IsInside(node)) continue;
      for (const Instruction* o : node->operands) stack.push_back(o);
    }
  }
  for (const Instruction* node : order) {
    const std::vector<bool>& roots = reached[node];
    const bool shared_scalar = IsBroadcastedConstantOrScalar(*node);
    std::vector<int> ids;
    bool added_to_reduce = false;
    for (int k = 0; k < n; ++k) {
      if (is_reduction[k] && shared_scalar && added_to_reduce) continue;
      if (!roots[k]) continue;
      ids.push_back(k);
      if (is_reduction[k]) added_to_reduce = true;
    }
    for (size_t j = 1; j < ids.size(); ++j) merge(ids[0], ids[j]);
  }
  // Groups ordered by their representative (first) root's position in the
  // text.
  std::map<int, std::vector<int>> by_rep;
  for (int k = 0; k < n; ++k) by_rep[find(k)].push_back(k);
  std::vector<std::vector<int>> groups;
  for (auto& [rep, members] : by_rep) groups.push_back(std::move(members));
  std::map<const Instruction*, int> position;
  if (info.region->computation) {
    int i = 0;
    for (const auto& instr : info.region->computation->instructions()) {
      position[instr.get()] = i++;
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const std::vector<int>& a, const std::vector<int>& b) {
                     return position[info.roots[a[0]]] <
                            position[info.roots[b[0]]];
                   });
  return groups;
}

// The reduce operand's shape with the reduced dims deleted (layout kept).
hlo::Shape DeleteReducedDims(const Instruction& reduce) {
  const hlo::Shape& in = reduce.operand(0)->shape;
  auto reduced = [&](int64_t d) {
    return std::find(reduce.dimensions.begin(), reduce.dimensions.end(), d) !=
           reduce.dimensions.end();
  };
  std::vector<int64_t> dims, renumber(in.rank(), -1);
  for (int d = 0; d < in.rank(); ++d) {
    if (reduced(d)) continue;
    renumber[d] = static_cast<int64_t>(dims.size());
    dims.push_back(in.dims[d]);
  }
  hlo::Shape out = hlo::Shape::Array(in.type, dims);
  hlo::Layout layout;
  for (int64_t d : in.MinorToMajor()) {
    if (!reduced(d)) layout.minor_to_major.push_back(renumber[d]);
  }
  out.layout = layout;
  return out;
}

// The kind's maps in normalised coordinates, before bitcasts and groups.
struct KindMaps {
  ReductionDescription description;
  LaunchDimensions launch;      // blocks.y set by the caller
  std::vector<int64_t> input;   // normalised input shape
  std::vector<int64_t> output;  // normalised output shape
  IndexingMap input_map;        // ids -> normalised input
  IndexingMap output_map;       // ids -> normalised output
  std::vector<int64_t> shared;  // scratch dims per reduce input, or empty
};

std::vector<Constraint> InBounds(const std::vector<Expr>& results,
                                 const std::vector<int64_t>& dims) {
  std::vector<Constraint> out;
  for (size_t i = 0; i < results.size(); ++i) {
    out.push_back({results[i], Interval{0, dims[i] - 1}});
  }
  return out;
}

IndexingMap Build(ExprContext* ctx, const LaunchDimensions& launch,
                  std::vector<Variable> ranges, std::vector<Expr> results,
                  std::vector<Constraint> constraints) {
  return IndexingMap(ctx, GridDims(launch), std::move(ranges), {},
                     std::move(results), std::move(constraints));
}

KindMaps RowMaps(const FusionInfo& info, const ReductionDims& rd,
                 ExprContext* ctx) {
  KindMaps k;
  const int64_t d0 = rd.dims[0], kept = rd.dims[1], r = rd.dims[2];
  const int64_t tr = std::min<int64_t>(1024, RoundUp(CeilDiv(r, 16), kWarp));
  int64_t tk = 1;
  if (2 * tr <= 256) tk = kept <= 256 / tr ? kept : 256 / tr;
  const int64_t v = VectorSize(info, r, tr);
  k.input = {d0, kept, r / v, v};
  const int64_t tile = std::min(16 / v, CeilDiv(r / v, tr));
  const std::vector<int64_t> blocks = {CeilDiv(kept, tk),
                                       CeilDiv(r / v, tile * tr)};
  k.launch.threads = {tk * tr, 1, 1};
  k.launch.blocks = {Product(blocks), 1, 1};
  k.launch.vector_size = v;
  std::vector<int64_t> thread_shape = {tk, tr};
  std::vector<Expr> t = DelinearizeInBounds(ctx->Dim(0), thread_shape, ctx);
  std::vector<Expr> b = DelinearizeInBounds(ctx->Dim(3), blocks, ctx);
  std::vector<Expr> in = {ctx->Symbol(0), b[0] * tk + t[0],
                          b[1] * (tile * tr) + ctx->Symbol(1) * tr + t[1],
                          ctx->Symbol(2)};
  k.input_map =
      Build(ctx, k.launch, {RangeVar(d0), RangeVar(tile), RangeVar(v)}, in,
            InBounds(in, k.input));
  k.output = {kept};
  std::vector<Expr> out = {b[0] * tk + t[0]};
  std::vector<Constraint> cons = InBounds(out, k.output);
  cons.push_back({t[1], Interval::Point(0)});
  k.output_map = Build(ctx, k.launch, {}, out, cons);
  const int64_t warps_per_row = CeilDiv(tr, kWarp);
  if (warps_per_row > 1) {
    k.shared = {tk, warps_per_row + (warps_per_row % 32 == 0 ? 1 : 0)};
  }
  k.description.kind = ReductionKind::kRow;
  k.description.threads_reduced = tr;
  k.description.threads_kept = tk;
  k.description.tile = tile;
  k.description.block_counts = blocks;
  return k;
}

KindMaps MultiRowMaps(const FusionInfo& info, const ReductionDims& rd,
                      const hw::Device& device, ExprContext* ctx) {
  KindMaps k;
  const int64_t d0 = rd.dims[0], kept = rd.dims[1], r = rd.dims[2];
  int64_t tr = 0, tk = 0, blocks = 0;
  auto compute = [&](int64_t v) {
    tr = r / v;
    tk = kept <= 256 / tr ? kept : 256 / tr;
    blocks = CeilDiv(kept, tk);
  };
  compute(1);
  const int bits = std::min(info.bits_in, info.bits_out);
  int64_t v = bits == INT_MAX || HeroReadsOneByOne(info)
                  ? 1
                  : std::min<int64_t>(r, 32 / bits);
  if (blocks > device.sm_count && v > 1) {
    compute(v);
  } else {
    v = 1;
  }
  k.input = {d0, kept, r};
  k.launch.threads = {tk * tr, 1, 1};
  k.launch.blocks = {blocks, 1, 1};
  k.launch.vector_size = v;
  std::vector<int64_t> thread_shape = {tk, tr};
  std::vector<Expr> t = DelinearizeInBounds(ctx->Dim(0), thread_shape, ctx);
  Expr b = blocks == 1 ? ctx->Constant(0) : ctx->Dim(3);
  std::vector<Expr> in = {ctx->Symbol(0), b * tk + t[0],
                          t[1] * v + ctx->Symbol(1)};
  k.input_map = Build(ctx, k.launch, {RangeVar(d0), RangeVar(v)}, in,
                      InBounds(in, k.input));
  k.output = {kept};
  std::vector<Expr> out = {b * tk + t[0]};
  std::vector<Constraint> cons = InBounds(out, k.output);
  cons.push_back({t[1], Interval::Point(0)});
  k.output_map = Build(ctx, k.launch, {}, out, cons);
  k.description.kind = ReductionKind::kMultiRow;
  k.description.threads_reduced = tr;
  k.description.threads_kept = tk;
  k.description.tile = 1;
  k.description.block_counts = {blocks};
  return k;
}

KindMaps ColumnMaps(const FusionInfo& info, const ReductionDims& rd,
                    ExprContext* ctx) {
  KindMaps k;
  const int64_t k1 = rd.dims[0], r = rd.dims[1], k2 = rd.dims[2];
  const int64_t v = VectorSize(info, k2, kWarp);
  k.input = {k1, r, k2};
  const std::vector<int64_t> blocks = {k1, CeilDiv(k2, kWarp * v)};
  k.launch.threads = {kWarp * kWarp, 1, 1};
  k.launch.blocks = {Product(blocks), 1, 1};
  k.launch.vector_size = v;
  const std::vector<int64_t> thread_shape = {kWarp, kWarp};
  std::vector<Expr> t = DelinearizeInBounds(ctx->Dim(0), thread_shape, ctx);
  std::vector<Expr> b = DelinearizeInBounds(ctx->Dim(3), blocks, ctx);
  std::vector<Expr> in = {b[0], t[0] + ctx->Symbol(0) * kWarp,
                          (b[1] * kWarp + t[1]) * v + ctx->Symbol(1)};
  k.input_map = Build(ctx, k.launch, {RangeVar(CeilDiv(r, kWarp)), RangeVar(v)},
                      in, InBounds(in, k.input));
  k.output = {k1, k2};
  std::vector<Expr> out = {b[0], (b[1] * kWarp + t[0]) * v + ctx->Symbol(0)};
  std::vector<Constraint> cons = InBounds(out, k.output);
  cons.push_back({t[1], Interval::Point(0)});
  k.output_map = Build(ctx, k.launch, {RangeVar(v)}, out, cons);
  k.shared = {kWarp, kWarp * v + 1};
  k.description.kind = ReductionKind::kColumn;
  k.description.threads_reduced = kWarp;
  k.description.threads_kept = kWarp;
  k.description.tile = 1;
  k.description.block_counts = blocks;
  return k;
}

// `map` with the final launch's dims (blocks.y = groups) and bl_y = group,
// composed with `bitcast`.
Result<IndexingMap> ForGroup(const IndexingMap& map,
                             const LaunchDimensions& launch, int group,
                             const IndexingMap& bitcast) {
  std::vector<Variable> dims = GridDims(launch);
  dims[4].bounds = Interval::Point(group);
  IndexingMap grouped(map.context(), std::move(dims), map.range_vars(), {},
                      map.results(), map.constraints());
  return ComposeSimplified(grouped, bitcast);
}

}  // namespace

Result<PlanDraft> BuildReductionPlan(const FusionInfo& info,
                                     int first_reduction_root,
                                     const hw::Device& device,
                                     ExprContext* ctx) {
  const Instruction* first_hero = info.heroes[first_reduction_root];
  const ReductionDims rd = GetReductionDims(*first_hero);
  if (!ReductionIsRaceFree(rd)) {
    return Error::Unsupported(
        "reduction " + first_hero->name +
        " is not race-free (XLA decomposes it before emission)");
  }
  KindMaps k;
  if (!rd.is_row) {
    k = ColumnMaps(info, rd, ctx);
  } else if (rd.dims[2] < kWarp && kWarp % rd.dims[2] == 0) {
    k = MultiRowMaps(info, rd, device, ctx);
  } else {
    k = RowMaps(info, rd, ctx);
  }
  PlanDraft draft;
  EmitterPlan& plan = draft.plan;
  plan.kind = EmitterKind::kReduction;
  plan.reduction_kind = k.description.kind;
  std::vector<bool> is_reduction(info.roots.size());
  for (size_t i = 0; i < info.roots.size(); ++i) {
    is_reduction[i] = IsRealReductionHero(*info.roots[i], *info.heroes[i]);
  }
  const std::vector<std::vector<int>> groups = GroupRoots(info, is_reduction);
  std::vector<int> group_of(info.roots.size());
  ReductionDescription& desc = k.description;
  desc.dims = rd.dims;
  for (size_t g = 0; g < groups.size(); ++g) {
    desc.groups.emplace_back();
    for (int root : groups[g]) {
      group_of[root] = static_cast<int>(g);
      desc.groups.back().push_back(info.roots[root]);
    }
  }
  plan.launch = k.launch;
  plan.launch.blocks[1] = static_cast<int64_t>(groups.size());
  const hlo::Shape normalised_in =
      DescendingShape(first_hero->operand(0)->shape, k.input);
  std::vector<const Instruction*> scratch_owners;
  for (size_t i = 0; i < info.roots.size(); ++i) {
    const Instruction* root = info.roots[i];
    const Instruction* hero = info.heroes[i];
    const int g = group_of[i];
    RootDraft rdr;
    rdr.plan.root = root;
    rdr.plan.output = static_cast<int>(i);
    rdr.plan.group = g;
    if (!is_reduction[i]) {
      // A side output: written where the reduction reads its input.
      rdr.plan.hero = root;
      IXA_ASSIGN_OR_RETURN(
          IndexingMap output,
          ForGroup(k.input_map, plan.launch, g,
                   BitcastMap(normalised_in, OutputShape(*root, 0), ctx)));
      if (info.IsInside(root)) {
        rdr.plan.hero_operand_maps = OwnOperandMaps(*root, output, ctx);
      }
      rdr.plan.output_map = std::move(output);
      rdr.read_through_output = true;
      draft.roots.push_back(std::move(rdr));
      continue;
    }
    rdr.plan.hero = hero;
    const int inputs = hero->operand_count() / 2;
    for (int j = 0; j < hero->operand_count(); ++j) {
      if (j >= inputs) {
        rdr.plan.hero_operand_maps.push_back(std::nullopt);
        rdr.reads.push_back(hero->operand(j)->shape.rank() == 0
                                ? OperandRead::kAnyThread
                                : OperandRead::kUnknown);
        continue;
      }
      IXA_ASSIGN_OR_RETURN(
          IndexingMap m,
          ForGroup(k.input_map, plan.launch, g,
                   BitcastMap(normalised_in, hero->operand(j)->shape, ctx)));
      rdr.plan.hero_operand_maps.push_back(std::move(m));
      rdr.reads.push_back(OperandRead::kMap);
    }
    IXA_ASSIGN_OR_RETURN(
        IndexingMap output,
        ForGroup(k.output_map, plan.launch, g,
                 BitcastMap(DescendingShape(hero->operand(0)->shape, k.output),
                            DeleteReducedDims(*hero), ctx)));
    rdr.hero_output_maps.push_back(output);
    rdr.plan.output_map = std::move(output);
    if (!k.shared.empty() &&
        std::find(scratch_owners.begin(), scratch_owners.end(), hero) ==
            scratch_owners.end()) {
      scratch_owners.push_back(hero);
      for (int j = 0; j < inputs; ++j) {
        SharedTile tile;
        tile.owner = hero;
        tile.operand = j;
        tile.type = hero->operand(j)->shape.type;
        // XLA's scratch is k.shared (padded for the column round trip and
        // a 32-warp row); the layout with the fewest wavefronts within it
        // replaces it (shared_tiles.h).
        tile.logical_dims = k.shared;
        if (k.description.kind == ReductionKind::kColumn ||
            k.shared[1] == kWarp + 1) {
          tile.logical_dims[1] -= 1;
        }
        IXA_RETURN_IF_ERROR(LayOutSharedTile(
            &tile, tile.logical_dims, k.shared,
            ReductionTileAccesses(k.description, plan.launch, ctx), device,
            ctx));
        plan.launch.shared_memory_bytes += tile.bytes();
        plan.shared_tiles.push_back(std::move(tile));
      }
    }
    draft.roots.push_back(std::move(rdr));
  }
  plan.reduction = std::move(desc);
  return draft;
}

}  // namespace ixa::emitters
