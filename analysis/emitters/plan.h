// Emitter plans (docs/xla-reference.md §(h), docs/emitters.md §1): which
// XLA:GPU emitter a fusion gets, how it is launched, and which thread reads
// and writes which element — as indexing maps.
//
// Every thread map has the six grid dims (th_x, th_y, th_z, bl_x, bl_y,
// bl_z), each in [0, count - 1] of the launch, then the emitter's own
// symbols, named as §(h) names them (the loop emitter's are chunk_id and
// unroll_id). Maps are simplified and deterministic; none drops an unused
// symbol (a [0, 0] symbol stays, as in XLA).
//
// This header is the contract between analysis (which computes plans) and
// emit (which prints code from them) and the uses (coalescing, fusion cost),
// which read a fusion's operands through `parameters`.
#ifndef IXA_ANALYSIS_EMITTERS_PLAN_H_
#define IXA_ANALYSIS_EMITTERS_PLAN_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/device.h"
#include "hw/swizzle_search.h"

namespace ixa {

enum class EmitterKind {
  kLoop,
  kTranspose,
  kReduction,
  kScatter,
  kConcatenate,
  kInPlaceDynamicUpdateSlice,
  kInputSlices,
};
// "loop", "transpose", "reduction", "scatter", "concatenate",
// "in_place_dynamic_update_slice", "input_slices" (docs/protocol.md).
const char* EmitterKindName(EmitterKind kind);

enum class ReductionKind { kRow, kMultiRow, kColumn };
// "row", "multi_row", "column".
const char* ReductionKindName(ReductionKind kind);

struct LaunchDimensions {
  std::array<int64_t, 3> threads = {1, 1, 1};  // x, y, z
  std::array<int64_t, 3> blocks = {1, 1, 1};   // x, y, z
  int64_t shared_memory_bytes = 0;
  int64_t unroll = 1;       // §(h) h.9
  int64_t vector_size = 1;  // §(h) h.9
  int64_t threads_per_block() const {
    return threads[0] * threads[1] * threads[2];
  }
  int64_t num_blocks() const { return blocks[0] * blocks[1] * blocks[2]; }
};

// One warp-wide access pattern of a shared tile in the emitted code, for a
// whole block (every block accesses its tile alike; an edge block only
// switches lanes off), with its exact bank conflicts (hw/bank_conflicts.h)
// under the tile's layout.
struct SharedTileAccess {
  bool write = false;
  // (th_x)[loop symbols] -> the tile coordinates (`logical_dims`) of the
  // lane's first element; the constraints switch lanes off.
  IndexingMap map;
  int64_t vector_width = 1;  // elements per lane along the last dim
  int64_t bytes_per_lane = 0;
  int64_t instances = 0;  // warp accesses per block
  int64_t wavefronts_worst = 0;
  double wavefronts_avg = 0;
  int64_t wavefronts_ideal = 0;  // of one warp access: its phases
  bool conflict_free = true;
  // Why the access is (or is not) conflict-free.
  std::string reason;
};

// One shared-memory tile: a transpose tile (one per distinct tiled hero) or
// a reduction's scratch (one per reduce input). Its layout is the one of
// row-major, padding (XLA's: one more column), rotation and XOR swizzle
// (hw/swizzle_search.h) with the fewest wavefronts of its accesses, then
// the least shared memory, never more than XLA's padded tile
// (docs/emitters.md "Shared tiles and banks").
struct SharedTile {
  const hlo::Instruction* owner = nullptr;  // the transpose hero or reduce
  int operand = 0;                          // reduce input it holds
  hlo::ElementType type = hlo::ElementType::kInvalid;
  // The allocation: the logical dims, or XLA's padded ones ({1, 32, 33})
  // where the layout is that padding; one dim (the layout's elements)
  // otherwise.
  std::vector<int64_t> dims;
  std::vector<int64_t> logical_dims;  // the coordinates, e.g. {1, 32, 32}
  // The layout's rows x columns view of the logical dims (trailing dims
  // merged: a transpose's kept minor dim rides with its tiled dim).
  std::vector<int64_t> layout_shape;
  hw::TileLayout layout;
  // Accessed through flat offsets of `layout` (dims is {elements}); else
  // through the logical coordinates of dims (row-major or XLA's padding).
  bool flat = false;
  std::vector<int64_t> xla_dims;           // XLA's allocation, e.g. {1, 32, 33}
  std::string layout_reason;               // why this layout
  std::vector<SharedTileAccess> accesses;  // writes, then reads
  int64_t bytes() const;
};

// §(h) h.4 and h.7: the normalised tiled transpose. The 021 and 210 forms
// have 3 dims; the generalized form (docs/emitters.md "Generalized
// transposes") has as many dims as the transpose has runs of dims that stay
// together, and tiles the input's most-minor dim against the dim that
// becomes the output's most-minor (a most-minor dim that stays most-minor
// and is small is carried whole in the tile).
struct TransposeDescription {
  std::vector<int64_t> dims;  // normalised output shape
  // Output dim j is normalised input dim permutation[j]: {0, 2, 1} or
  // {2, 1, 0}, or any permutation in the generalized form.
  std::vector<int64_t> permutation;
  std::vector<int64_t> input_dims;   // normalised input shape I
  std::vector<int64_t> block_sizes;  // per normalised input dim
  std::vector<int64_t> block_counts;
  // The generalized form (not XLA's at the pinned revision, its later
  // transpose emitter): tiles are read and written in input resp. output
  // dim order, and a kept most-minor dim is carried whole.
  bool generalized = false;
  // Generalized only: the normalised input dims tiled by 32 (the input's
  // most-minor and the output's most-minor, not counting a kept one), and
  // whether the last normalised dim is kept most-minor (its size whole in
  // every tile).
  int64_t tiled_input_minor = -1;
  int64_t tiled_output_minor = -1;
  bool kept_minor = false;
};

// §(h) h.8: the reduction's normalised dims and thread shape.
struct ReductionDescription {
  ReductionKind kind = ReductionKind::kRow;
  // Row and multi-row: [major reduced, kept, minor reduced]; column:
  // [major kept, reduced, minor kept].
  std::array<int64_t, 3> dims = {1, 1, 1};
  int64_t threads_reduced = 1;  // Tr (32 for column)
  int64_t threads_kept = 1;     // Tk (32 for column)
  int64_t tile = 1;             // row: per-thread tile along R/v
  std::vector<int64_t> block_counts;
  // Roots per group, in group order (launch.blocks[1] groups); a root's
  // maps have bl_y in [g, g].
  std::vector<std::vector<const hlo::Instruction*>> groups;
};

// XLA's LaunchDimensionsConfig of the loop-like emitters (h.5): the unroll
// factor and the few-waves / row-vectorised launch flags.
struct LoopConfig {
  int64_t unroll = 1;
  bool few_waves = false;
  bool row_vectorized = false;
};

struct RootPlan {
  const hlo::Instruction* root = nullptr;  // a root-tuple operand, or the root
  int output = 0;                          // index among the fusion outputs
  const hlo::Instruction* hero = nullptr;  // h.2
  int group = 0;                           // reduction group, else 0
  // ids -> the root's output index (for a real reduction hero: the reduce's
  // output index); nullopt where XLA has no map.
  std::optional<IndexingMap> output_map;
  // ids -> index of each operand of the hero; nullopt where XLA has none.
  std::vector<std::optional<IndexingMap>> hero_operand_maps;
};

struct ParameterPlan {
  int parameter = 0;  // index in FusionRegion::parameters
  std::string name;
  std::vector<IndexingMap> maps;  // ids -> parameter index, deduplicated
  // Set when the parameter could not be analysed (maps then empty).
  std::optional<std::string> unknown_reason;
  // The same reads without the thread ids: maps from the index of what the
  // plan's thread maps cover (a hero operand, a root, or a hero output for
  // an epilogue) to the parameter index. The thread maps visit every
  // element of those domains (the emitters' brute-force tests check it),
  // so these maps' images are the elements the kernel reads: a cost model
  // counts them without enumerating threads.
  std::vector<IndexingMap> coverage_maps;
  // The emitter never reads the parameter (an in-place operand), so it has
  // no maps and is not unknown.
  bool not_read = false;
};

struct EmitterPlan {
  EmitterKind kind = EmitterKind::kLoop;
  std::optional<ReductionKind> reduction_kind;
  LaunchDimensions launch;
  std::vector<RootPlan> roots;  // in fusion output order
  std::vector<ParameterPlan> parameters;
  std::vector<SharedTile> shared_tiles;
  std::optional<TransposeDescription> transpose;
  std::optional<ReductionDescription> reduction;
  // Loop, concatenate (computed over the largest operand) and input slices:
  // the loop configuration the launch was computed with. For concatenate,
  // launch.unroll is u' (the gcd with the operands' concat-dim sizes) while
  // loop_config.unroll is the u the launch used.
  std::optional<LoopConfig> loop_config;
};

struct PlanOptions {
  // Plan the fusion with the loop emitter whatever its hero (used by
  // coalescing's `launch` override).
  bool force_loop = false;
  // With force_loop: this launch and launch.unroll instead of h.5's.
  std::optional<LaunchDimensions> loop_launch;
  // Only the kind, launch, roots and descriptions: no parameter maps
  // (`parameters` stays empty). What a cost model needs of a plan when it
  // reads no operand through it, at a fraction of the work. A loop-like
  // plan's launch.vector_size then looks at its stores only.
  bool skip_parameters = false;
};

// The vector width of a loop-like plan (loop, concatenate, input slices,
// in-place dynamic-update-slice, scatter): the unrolled lanes (the trip
// count of the thread maps' innermost range variable, 2 to 16) when some
// access
// (a root's store, or a parameter read through its maps) is, in its
// physical layout, contiguous in the map's innermost range variable (the
// unroll index), aligned to it and at most 16 bytes wide, with no
// constraint on that variable, and no reduce or reduce-window looping
// inside the lane loop; else 1. The emitter's vectorizer turns
// exactly those accesses into vector loads and stores
// (emit/passes/vectorize.cc), so the plan's vector_size is the code's.
int64_t LoopLikeVectorSize(const FusionRegion& region, const EmitterPlan& plan,
                           ExprContext* ctx);

// The lane-contiguity test behind vector_size, shared with the emitter's
// vectorizer so the two cannot disagree: `offset` (an expression of dims
// only, over `dims`' bounds, constraints aside) is base + d_lane, where
// base, the offset at d_lane = 0, is a multiple of `lanes` on the whole
// domain. Returns base, or nullopt where that is false or not decided
// within the budget.
std::optional<Expr> LaneContiguousBase(Expr offset,
                                       const std::vector<Variable>& dims,
                                       int lane_dim, int64_t lanes,
                                       ExprContext* ctx);

// The plan of `region` on `device`. Errors: Unsupported for a fusion none
// of the emitters takes (naming why), Limit when a budget is hit.
Result<EmitterPlan> ComputeEmitterPlan(const FusionRegion& region,
                                       const hw::Device& device,
                                       ExprContext* ctx);
Result<EmitterPlan> ComputeEmitterPlan(const FusionRegion& region,
                                       const hw::Device& device,
                                       const PlanOptions& options,
                                       ExprContext* ctx);

// The roots of a region: the root tuple's operands (nested tuples
// flattened), else the root itself. RootPlan::output indexes this list.
std::vector<const hlo::Instruction*> FusionRoots(const FusionRegion& region);

// XLA's IsReductionFromOrToContiguousDimensions for a reduce: true when
// the reduction emitter would take it; `is_row` (optional) receives whether
// it is a row reduction.
bool IsContiguousReduction(const hlo::Instruction& reduce,
                           bool* is_row = nullptr);

// XLA's GetDescriptionForTiledTransposeEmitter for a transpose or copy on
// its own: the normalised dims and permutation, or nullopt when the tiled
// transpose emitter would not take it.
std::optional<TransposeDescription> TiledTransposeOf(
    const hlo::Instruction& instr);

}  // namespace ixa

#endif  // IXA_ANALYSIS_EMITTERS_PLAN_H_
