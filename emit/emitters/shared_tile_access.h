// Shared tiles through their layouts (docs/emitters.md "Shared tiles and
// banks"): the transpose and reduction emitters address a tile by its
// logical coordinates, and these helpers turn them into the indices of its
// buffer: the coordinates themselves where the tile is row-major or padded
// as XLA pads it, else one flat offset of its layout (an XOR swizzle as an
// integer xor; a vector access swizzled in whole vectors, so that the
// vectorizer still sees `aligned base + lane`).
#ifndef IXA_EMIT_EMITTERS_SHARED_TILE_ACCESS_H_
#define IXA_EMIT_EMITTERS_SHARED_TILE_ACCESS_H_

#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "emit/lower/lowering.h"

namespace ixa::emit::emitters {

// The shared buffer holding `tile` (its allocation dims).
Result<int> AddTileBuffer(LoweringContext& lc, const std::string& stem,
                          const SharedTile& tile);

// A vector access: its lane loop variable, the lanes, and the tile
// coordinates of lane 0 (lane k's are those with the last one plus k).
struct TileLane {
  ir::Val var;
  int64_t lanes = 1;
  std::vector<ir::Val> first;
};

// Where logical coordinates `coords` of `tile` lie in its buffer: the
// coordinates, or one flat offset (its lets are added to `bb`, so a caller
// can compute it before the value it stores: an f16 read stored by the
// very next statement moves as its bits).
struct TileIndex {
  std::vector<ir::Val> indices;
  bool flat = false;
};
TileIndex TileIndexOf(LoweringContext& lc, BlockBuilder& bb,
                      const SharedTile& tile,
                      const std::vector<ir::Val>& coords,
                      const TileLane* lane = nullptr);
ir::Stmt StoreTileAt(int buffer, const TileIndex& at, ir::Val value);

// Stores `value` at logical coordinates `coords` of `tile` (in `buffer`);
// loads the element there.
ir::Stmt StoreTile(LoweringContext& lc, BlockBuilder& bb,
                   const SharedTile& tile, int buffer,
                   const std::vector<ir::Val>& coords, ir::Val value,
                   const TileLane* lane = nullptr);
ir::Val LoadTile(LoweringContext& lc, BlockBuilder& bb, const SharedTile& tile,
                 int buffer, ir::Type type, const std::vector<ir::Val>& coords,
                 const TileLane* lane = nullptr);

}  // namespace ixa::emit::emitters

#endif  // IXA_EMIT_EMITTERS_SHARED_TILE_ACCESS_H_
