// Shared tiles and banks (docs/emitters.md "Shared tiles and banks"): the
// maps from a block's threads and loop steps to the coordinates of the
// shared tiles the transpose and reduction emitters write and read, their
// exact bank conflicts (hw/bank_conflicts.h), and the tile layout
// (hw/swizzle_search.h) with the fewest wavefronts, then the least shared
// memory, within the shared memory of XLA's padded tile.
#ifndef IXA_ANALYSIS_EMITTERS_SHARED_TILES_H_
#define IXA_ANALYSIS_EMITTERS_SHARED_TILES_H_

#include <cstdint>
#include <vector>

#include "analysis/emitters/plan.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/device.h"

namespace ixa {

// The transpose emitter's tile coordinates (§(h) h.7): delinearize-in-
// bounds of s0 * 128 v + th_x * v + s1 over `sizes` (the block sizes in
// input dim order for the write; in output dim order for the generalized
// form's read), over `dims` (th_x first) and `range_vars` (s0, s1).
IndexingMap TransposeTileOffsets(const std::vector<int64_t>& sizes, int64_t v,
                                 std::vector<Variable> dims,
                                 std::vector<Variable> range_vars,
                                 ExprContext* ctx);

// The block sizes in the order the transpose's second phase walks the tile
// (output dim order in the generalized form, else the block sizes), and
// for each tile dim i the position in that walk's offsets of its
// coordinate: the read is tile[t[source[0]], t[source[1]], ...].
std::vector<int64_t> TransposeReadSizes(const TransposeDescription& d);
std::vector<int> TransposeReadSource(const TransposeDescription& d);

namespace emitters {

// The write (in input order) and the read (transposed) of a transpose's
// tile by a block of 128 threads over `steps` s0 steps of v elements: a
// lane moves its v elements as one vector where they are contiguous in the
// tile (the write with v > 1; the generalized form's read too).
std::vector<SharedTileAccess> TransposeTileAccesses(
    const TransposeDescription& d, int64_t v, int64_t steps, ExprContext* ctx);

// The scratch accesses of a reduction: a column reduction's transposed
// round trip of the 32 x 32 v partials (one access per vector lane l), a
// row reduction's hand-over of one partial per warp (written by each
// warp's first lane, read by the row's first warp).
std::vector<SharedTileAccess> ReductionTileAccesses(
    const ReductionDescription& d, const LaunchDimensions& launch,
    ExprContext* ctx);

// Lays out `tile` (its type, owner and logical_dims set; `xla_dims` the
// padded dims XLA allocates) for `accesses` (write or read, map and vector
// width set) and fills their reports, the tile's dims, layout and reason.
// A device without banked shared memory keeps XLA's dims, unreported.
Status LayOutSharedTile(SharedTile* tile,
                        const std::vector<int64_t>& layout_shape,
                        const std::vector<int64_t>& xla_dims,
                        std::vector<SharedTileAccess> accesses,
                        const hw::Device& device, ExprContext* ctx);

}  // namespace emitters

// Every tile of `plan` back to XLA's padded layout (what the layouts are
// compared with; the accesses keep their reports of the chosen layout).
void UseXlaTileLayouts(EmitterPlan* plan);

}  // namespace ixa

#endif  // IXA_ANALYSIS_EMITTERS_SHARED_TILES_H_
