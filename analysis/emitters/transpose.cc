// The tiled transpose emitter (docs/xla-reference.md §(h) h.7): 128
// threads read a (32 v)-wide tile of the normalised input into shared
// memory, 4 rows at a time, and write it transposed; XLA's
// MlirTransposeFusion at the pinned revision.
#include <algorithm>

#include "analysis/emitters/internal.h"
#include "analysis/emitters/shared_tiles.h"
#include "analysis/indexing/indexing.h"
#include "core/int_math.h"

namespace ixa::emitters {
namespace {

constexpr int64_t kNumRows = 4;
constexpr int64_t kBaseBlockSize = 32;
constexpr int64_t kNumThreadsPerBlock = 128;
constexpr int64_t kMaxVectorizedBytes = 4;
constexpr int64_t kMaxGeneralVectorBytes = 16;

struct Tiling {
  int64_t vector_size = 1;
  int64_t block_size = kBaseBlockSize;
  std::vector<int64_t> block_sizes, block_counts;
};

Tiling TilingFor(int64_t v, const std::vector<int64_t>& input,
                 const std::vector<int64_t>& perm) {
  Tiling t;
  t.vector_size = v;
  t.block_size = kBaseBlockSize * v;
  t.block_sizes = {1, 1, t.block_size};
  t.block_sizes[perm[2]] = t.block_size;
  for (int i = 0; i < 3; ++i) {
    t.block_counts.push_back(CeilDiv(input[i], t.block_sizes[i]));
  }
  return t;
}

// GetIndexing(input, shape): the ids to the normalised input (or output)
// index of the tile element, composed with the bitcast onto `shape`.
IndexingMap TileMap(bool input, const Tiling& t, const TransposeDescription& d,
                    const LaunchDimensions& l, const hlo::Shape& shape,
                    ExprContext* ctx) {
  Expr linear = ctx->Symbol(0) * (kNumRows * t.block_size) +
                ctx->Dim(0) * t.vector_size + ctx->Symbol(1);
  std::vector<Expr> offsets = DelinearizeInBounds(linear, t.block_sizes, ctx);
  std::vector<Expr> blocks =
      DelinearizeInBounds(ctx->Dim(3), t.block_counts, ctx);
  const std::vector<int64_t>& bounds = input ? d.input_dims : d.dims;
  std::vector<Expr> results;
  std::vector<Constraint> constraints;
  for (int i = 0; i < 3; ++i) {
    Expr block = input ? blocks[i] : blocks[d.permutation[i]];
    results.push_back(block * t.block_sizes[i] + offsets[i]);
    constraints.push_back({results.back(), Interval{0, bounds[i] - 1}});
  }
  IndexingMap map(ctx, GridDims(l),
                  {RangeVar(t.block_size / kNumRows), RangeVar(t.vector_size)},
                  {}, results, constraints);
  IndexingMap bitcast = BitcastMap(DescendingShape(shape, bounds), shape, ctx);
  auto composed = ComposeSimplified(map, bitcast);
  IXA_CHECK(composed.ok());
  return std::move(composed).value();
}

// The generalized form (docs/emitters.md "Generalized transposes"): one
// tile per block, 32 x 32 over the two tiled dims (times the kept minor
// dim), read in input dim order and written in output dim order by 128
// threads, s0 * 128 v + th_x * v + s1 being the element's linear position
// in the tile. v is 1, or the kept minor dim's size where that is 2 to 16
// elements of at most 16 bytes of a type the code moves in vectors: the
// minor dim is then one vector (small types packed into 4-byte words and
// wider) in the global reads, the tile and the global writes alike.
struct GeneralTiling {
  std::vector<int64_t> input_block, output_block, block_counts;
  int64_t elements = 1;
  int64_t vector_size = 1;
};

GeneralTiling GeneralTilingFor(const TransposeDescription& d, int64_t max_bytes,
                               bool vector_types) {
  GeneralTiling t;
  const int64_t rank = static_cast<int64_t>(d.input_dims.size());
  t.input_block.assign(rank, 1);
  t.input_block[d.tiled_input_minor] = kBaseBlockSize;
  t.input_block[d.tiled_output_minor] = kBaseBlockSize;
  if (d.kept_minor) t.input_block[rank - 1] = d.input_dims[rank - 1];
  for (int64_t i = 0; i < rank; ++i) {
    t.output_block.push_back(t.input_block[d.permutation[i]]);
    t.block_counts.push_back(CeilDiv(d.input_dims[i], t.input_block[i]));
    t.elements *= t.input_block[i];
  }
  const int64_t kept = d.kept_minor ? d.input_dims[rank - 1] : 1;
  if (vector_types && (kept == 2 || kept == 4 || kept == 8 || kept == 16) &&
      kept * max_bytes <= kMaxGeneralVectorBytes) {
    t.vector_size = kept;
  }
  return t;
}

IndexingMap GeneralTileMap(bool input, const GeneralTiling& t,
                           const TransposeDescription& d,
                           const LaunchDimensions& l, const hlo::Shape& shape,
                           ExprContext* ctx) {
  const int64_t v = t.vector_size;
  Expr linear = ctx->Symbol(0) * (kNumThreadsPerBlock * v) + ctx->Dim(0) * v +
                ctx->Symbol(1);
  const std::vector<int64_t>& sizes = input ? t.input_block : t.output_block;
  std::vector<Expr> offsets = DelinearizeInBounds(linear, sizes, ctx);
  std::vector<Expr> blocks =
      DelinearizeInBounds(ctx->Dim(3), t.block_counts, ctx);
  const std::vector<int64_t>& bounds = input ? d.input_dims : d.dims;
  std::vector<Expr> results;
  std::vector<Constraint> constraints;
  for (size_t i = 0; i < bounds.size(); ++i) {
    Expr block = input ? blocks[i] : blocks[d.permutation[i]];
    results.push_back(block * sizes[i] + offsets[i]);
    constraints.push_back({results.back(), Interval{0, bounds[i] - 1}});
  }
  IndexingMap map(
      ctx, GridDims(l),
      {RangeVar(t.elements / (kNumThreadsPerBlock * v)), RangeVar(v)}, {},
      results, constraints);
  IndexingMap bitcast = BitcastMap(DescendingShape(shape, bounds), shape, ctx);
  auto composed = ComposeSimplified(map, bitcast);
  IXA_CHECK(composed.ok());
  return std::move(composed).value();
}

int64_t ByteWidth(hlo::ElementType type) {
  return std::max(1, hlo::ElementBits(type) / 8);
}

}  // namespace

Result<PlanDraft> BuildTransposePlan(const FusionInfo& info,
                                     const TransposeDescription& description,
                                     const hw::Device& device,
                                     ExprContext* ctx) {
  PlanDraft draft;
  EmitterPlan& plan = draft.plan;
  plan.kind = EmitterKind::kTranspose;
  TransposeDescription d = description;
  const std::vector<int64_t>& perm = d.permutation;
  d.input_dims.assign(d.dims.size(), 0);
  for (size_t i = 0; i < d.dims.size(); ++i) d.input_dims[perm[i]] = d.dims[i];
  // Roots with a description share the tile; shared memory is counted per
  // root for the vector-size test, per distinct hero for the allocation.
  std::vector<bool> described(info.roots.size(), false);
  int64_t max_bytes = 0, smem_per_tile_set = 0;
  bool vector_types = true;
  for (size_t k = 0; k < info.roots.size(); ++k) {
    if (!TiledTransposeDescription(*info.roots[k], *info.heroes[k])) continue;
    described[k] = true;
    const int64_t bytes = ByteWidth(info.heroes[k]->shape.type);
    max_bytes = std::max(max_bytes, bytes);
    smem_per_tile_set += kBaseBlockSize * (kBaseBlockSize + 1) * bytes;
    vector_types = vector_types && VectorElement(info.heroes[k]->shape.type) &&
                   VectorElement(info.roots[k]->shape.type);
  }
  std::optional<GeneralTiling> general;
  if (d.generalized) general = GeneralTilingFor(d, max_bytes, vector_types);
  Tiling tiling = general ? Tiling{} : TilingFor(1, d.input_dims, perm);
  // The generalized form keeps one element per thread and step (v = 1).
  for (int64_t v = kMaxVectorizedBytes / std::max<int64_t>(max_bytes, 1);
       v > 1 && !general; v /= 2) {
    const bool enough_work =
        SaturatingMul(Product(tiling.block_counts), kNumThreadsPerBlock) >=
        v * v * device.sm_count * device.threads_per_core;
    const bool enough_shmem =
        smem_per_tile_set * v * v <= device.shared_memory_per_block;
    const bool aligned =
        d.input_dims[2] % v == 0 && d.input_dims[perm[2]] % v == 0;
    if (enough_work && enough_shmem && aligned) {
      tiling = TilingFor(v, d.input_dims, perm);
      break;
    }
  }
  if (general) {
    tiling.block_sizes = general->input_block;
    tiling.block_counts = general->block_counts;
    tiling.vector_size = general->vector_size;
  }
  d.block_sizes = tiling.block_sizes;
  d.block_counts = tiling.block_counts;
  plan.launch.threads = {kNumThreadsPerBlock, 1, 1};
  plan.launch.blocks = {Product(tiling.block_counts), 1, 1};
  plan.launch.vector_size = tiling.vector_size;
  // One tile per distinct hero. XLA pads the tiled input minor dim by one,
  // which puts a column of the tile (what phase 2 reads, a warp at a time)
  // in distinct banks; the tile takes the layout with the fewest
  // wavefronts within that memory (shared_tiles.h).
  std::vector<const Instruction*> tiled;
  const int64_t steps =
      general ? general->elements / (kNumThreadsPerBlock * tiling.vector_size)
              : tiling.block_size / kNumRows;
  for (size_t k = 0; k < info.roots.size(); ++k) {
    if (!described[k]) continue;
    const Instruction* hero = info.heroes[k];
    if (std::find(tiled.begin(), tiled.end(), hero) != tiled.end()) continue;
    tiled.push_back(hero);
    SharedTile tile;
    tile.owner = hero;
    tile.type = hero->shape.type;
    tile.logical_dims = tiling.block_sizes;
    std::vector<int64_t> xla_dims = tiling.block_sizes;
    const size_t padded = general ? d.tiled_input_minor : xla_dims.size() - 1;
    xla_dims[padded] += 1;
    // The layout's columns: the padded dim and the dims after it (a kept
    // minor dim) together.
    std::vector<int64_t> layout_shape(tiling.block_sizes.begin(),
                                      tiling.block_sizes.begin() + padded + 1);
    for (size_t i = padded + 1; i < tiling.block_sizes.size(); ++i) {
      layout_shape.back() *= tiling.block_sizes[i];
    }
    IXA_RETURN_IF_ERROR(LayOutSharedTile(
        &tile, layout_shape, xla_dims,
        TransposeTileAccesses(d, tiling.vector_size, steps, ctx), device, ctx));
    plan.launch.shared_memory_bytes += tile.bytes();
    plan.shared_tiles.push_back(std::move(tile));
  }
  for (size_t k = 0; k < info.roots.size(); ++k) {
    const Instruction* root = info.roots[k];
    const Instruction* hero = info.heroes[k];
    RootDraft rd;
    rd.plan.root = root;
    rd.plan.output = static_cast<int>(k);
    if (described[k]) {
      rd.plan.hero = hero;
      IndexingMap output =
          general ? GeneralTileMap(false, *general, d, plan.launch, hero->shape,
                                   ctx)
                  : TileMap(false, tiling, d, plan.launch, hero->shape, ctx);
      rd.plan.hero_operand_maps.push_back(
          general ? GeneralTileMap(true, *general, d, plan.launch,
                                   hero->operand(0)->shape, ctx)
                  : TileMap(true, tiling, d, plan.launch,
                            hero->operand(0)->shape, ctx));
      rd.reads = {OperandRead::kMap};
      rd.hero_output_maps.push_back(output);
      rd.plan.output_map = std::move(output);
    } else {
      // A side output: written where the tile is read. A root whose hero
      // is another instruction is indexed on its own shape.
      rd.plan.hero = root;
      IndexingMap output = general
                               ? GeneralTileMap(true, *general, d, plan.launch,
                                                OutputShape(*root, 0), ctx)
                               : TileMap(true, tiling, d, plan.launch,
                                         OutputShape(*root, 0), ctx);
      if (info.IsInside(root)) {
        rd.plan.hero_operand_maps = OwnOperandMaps(*root, output, ctx);
      }
      rd.plan.output_map = std::move(output);
      rd.read_through_output = true;
    }
    draft.roots.push_back(std::move(rd));
  }
  plan.transpose = std::move(d);
  return draft;
}

}  // namespace ixa::emitters
