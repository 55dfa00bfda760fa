// Symbolic tiles: the tile of an operand read by a tile of the output, as
// offsets, sizes and strides over the output tile's sizes, following XLA's
// SymbolicTile::FromIndexingMap:
//   dim d_k          -> size t_k, stride 1 (t_k: the output tile size of k)
//   range var s      -> size = its range (lower bound 0), stride 1
//   e * c            -> stride * c (c may be negative: a reverse)
//   e floordiv c     -> size (n + c - 1) floordiv c, constraint
//                       n mod c == 0 || c mod n == 0 (e of stride 1)
//   e mod c          -> size n - ((n - 1) floordiv c) * c, the same
//                       constraint (e of stride 1)
//   sum of the above -> sorted by |stride|; each |stride| must be the
//                       previous one times its full range (a row-major
//                       collapse); size = product, stride = the stride of
//                       the most minor term whose size is not 1 (XLA's
//                       nested IfNeqOne).
// Constant and runtime-variable summands go to the offset (the map at the
// tile origin: dims 0, range vars 0, runtime vars kept).
//
// Exactness. At every block (the tile at block ids b covers output
// elements b_k * t_k + [0, t_k)), the tile names exactly the elements the
// map reads there; a block that overhangs the output (the last one when a
// size does not divide its dim) has the tile of the whole block, whose
// overhang the output's mask drops as XLA does. Where the tile may name
// more than is read, `superset` says so and why (a map with constraints, a
// map over part of the tile space, two results of one index). The
// constraints say when a sum or a division stays one strided tile:
//   - a sum's values form one progression iff, for every two terms whose
//     sizes are not 1 with only size-1 terms between them, the minor one is
//     fully tiled (XLA demands more: that every term above a partially
//     tiled one is size 1, refusing e.g. (1, 2, 1, 1) of a collapse);
//   - terms of opposite signs (a reverse inside a collapse) never both
//     have sizes above 1 (XLA gives no tile at all);
//   - floordiv and mod keep every block aligned: n mod c == 0 or
//     c mod n == 0 (XLA constrains mod only; a floordiv of an unaligned
//     block reads one more element than its size says).
// `xla_constraints` keeps XLA's own (stricter) constraints and
// `xla_would_refuse` the reason XLA gives no tile, so a caller can tell
// where the two differ.
//
// Deviations from XLA: constraints are kept in conjunctive form (a list of
// clauses that must all hold, each a disjunction of `expr in [lo, hi]`;
// tile_constraints.h writes XLA's disjunctive form); output tiles may be
// strided (the output strides are folded into the map before extraction);
// floordiv / mod accept any aligned stride-1 term, not only a bare dim
// (XLA's `(d floordiv a) mod c` case generalised); a mod of a term that
// does not move between blocks (a range variable) of size n has size
// min(n, c) whatever divides what.
#ifndef IXA_ANALYSIS_USES_TILES_H_
#define IXA_ANALYSIS_USES_TILES_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/uses/unknown_operand.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

struct TileAtom {
  Expr expr;
  Interval interval;
};
// A clause holds when one of its atoms holds.
using TileClause = std::vector<TileAtom>;
// The same atoms (same expression nodes, same intervals) in the same order.
bool SameClause(const TileClause& a, const TileClause& b);

struct SymbolicTile {
  // (t0, ..., tn-1){rt...} -> (offsets..., sizes..., strides...): dims are
  // the tile sizes of the tile space, t_k in [1, extents[k]] (printed d_k
  // as in XLA's tile_map); symbols are the map's runtime variables.
  IndexingMap tile_map;
  int rank = 0;                         // the operand's rank
  std::vector<TileClause> constraints;  // all must hold
  // The map the tile was extracted from, the output strides folded in and
  // its constraints dropped: the offsets of the tile at any block are this
  // map at the block's origin (TileOffsetsMap).
  IndexingMap source;
  // The tile space: tile size k ranges over [1, extents[k]].
  std::vector<int64_t> extents;
  // The tile may name elements that are not read (they are masked); why.
  bool superset = false;
  std::string superset_reason;
  // XLA's SymbolicTile::FromIndexingMap gives no tile for this map (why);
  // empty where it does. XLA's constraints where it does (all must hold).
  std::string xla_would_refuse;
  std::vector<TileClause> xla_constraints;

  Expr offset(int i) const { return tile_map.results()[i]; }
  Expr size(int i) const { return tile_map.results()[rank + i]; }
  Expr stride(int i) const { return tile_map.results()[2 * rank + i]; }
};

struct TileExtraction {
  // The output tile's strides per dim (empty: all 1).
  std::span<const int64_t> output_strides;
  // The tile space's extent per dim (empty: each dim's upper bound + 1). A
  // fusion's instructions share the root's tile space, also where a map
  // covers part of it (a concatenate operand's).
  std::span<const int64_t> extents;
  // A map with constraints: false gives Error::Unsupported (as XLA, which
  // accepts only high padding); true gives the tile of the map without
  // them, marked superset.
  bool allow_superset = false;
};

// The tile of the map's results read by an output tile at the origin whose
// sizes are the map's dims. Error::Unsupported names the sub-expression
// that is not representable.
Result<SymbolicTile> SymbolicTileFromIndexingMap(const IndexingMap& map,
                                                 const TileExtraction& options);
// The same with output strides only (default all 1).
Result<SymbolicTile> SymbolicTileFromIndexingMap(
    const IndexingMap& map, std::span<const int64_t> output_strides = {});

// Printed forms: expressions over d<k> (tile sizes) and the runtime
// variables; a clause as `a in [x, y] || b in [z, w]`.
std::vector<std::string> PrintTileExprs(const SymbolicTile& tile, int part);
std::vector<std::string> PrintTileConstraints(const SymbolicTile& tile);

struct ConcreteTile {
  std::optional<std::vector<int64_t>> offsets;  // unset with runtime vars
  std::vector<int64_t> sizes, strides;
  bool satisfied = true;      // every constraint holds at these sizes
  bool xla_satisfied = true;  // and XLA's (false where XLA has no tile)
};

// The tile at concrete tile sizes. A size above its extent tiles the
// whole dim when `clamp_oversized` (XLA accepts such sizes and masks the
// overhang; the tile is that of the extent), else it is invalid_argument.
Result<ConcreteTile> EvaluateTile(const SymbolicTile& tile,
                                  std::span<const int64_t> tile_sizes,
                                  bool clamp_oversized = false);

// The tile at the requested sizes as XLA gives it: a size above its
// extent is kept (XLA's tile overhangs the dim and the overhang is
// masked), so the operand's sizes are the tile's expressions at the
// requested sizes (a reshape f32[20] -> f32[4,5] tiled [1, 8] reads a
// tile of 8). Offsets, strides and the constraints are those at the
// clamped sizes (EvaluateTile with clamp_oversized), whose sizes are the
// tile's clipped extent.
Result<ConcreteTile> EvaluateTileAsRequested(
    const SymbolicTile& tile, std::span<const int64_t> tile_sizes);

// The sizes actually tiled: each clamped to its extent (at least 1 is the
// caller's business).
std::vector<int64_t> ClampTileSizes(const SymbolicTile& tile,
                                    std::span<const int64_t> tile_sizes);

// The tile's offsets at every block, for concrete tile sizes (clamped):
// (b0, ..., bn-1){rt...} -> (offsets...), b_k in [0, ceil(extent_k / t_k)
// - 1], dims named b<k> (or `dim_names` where given).
Result<IndexingMap> TileOffsetsMap(
    const SymbolicTile& tile, std::span<const int64_t> tile_sizes,
    const std::vector<std::string>& dim_names = {});

struct OperandTile {
  int parameter = 0;
  std::string name;
  IndexingMap map;  // the parameter's map the tile comes from
  std::optional<SymbolicTile> tile;
  std::string unsupported;  // why, when !tile
};

// One entry per (parameter, map) of the region's root output `output_id`;
// parameters the output does not read get no entry. Partial: a parameter
// whose maps are unknown (ComputeFusionParameterIndexingPartial's reason)
// is listed in `unknown` instead. Errors: budgets.
struct ParameterTiles {
  std::vector<OperandTile> tiles;
  std::vector<UnknownOperand> unknown;
};
Result<ParameterTiles> ComputeParameterTilesPartial(
    const FusionRegion& region, int output_id,
    std::span<const int64_t> output_strides, ExprContext* ctx);
// Strict: an unknown parameter is Error::Unsupported (its reason).
Result<std::vector<OperandTile>> ComputeParameterTiles(
    const FusionRegion& region, int output_id,
    std::span<const int64_t> output_strides, ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_TILES_H_
