// Symbolic tiles (docs/xla-reference.md §(g), docs/indexing.md §6): the
// tile of an operand read by a tile of the output, as offsets, sizes and
// strides over the output tile's sizes, following XLA's
// SymbolicTile::FromIndexingMap:
//   dim d_k          -> size t_k, stride 1 (t_k: the output tile size of k)
//   range var s      -> size = its range (lower bound 0), stride 1
//   e * c            -> stride * c
//   e floordiv c     -> size (n + c - 1) floordiv c (e of stride 1)
//   e mod c          -> size n - ((n - 1) floordiv c) * c, constraint
//                       n mod c == 0 || c mod n == 0 (e of stride 1)
//   sum of the above -> sorted by stride; each stride must be the previous
//                       one times its full range (a row-major collapse);
//                       size = product, stride = the stride of the most
//                       minor term whose size is not 1 (XLA's nested
//                       IfNeqOne), and the collapse constraint that a
//                       partially tiled term leaves the more major ones at
//                       size 1.
// Constant and runtime-variable summands go to the offset (the map at the
// tile origin: dims 0, range vars 0, runtime vars kept).
//
// Deviations from XLA: constraints are returned in conjunctive form (a list
// of clauses that must all hold, each a disjunction of `expr in [lo, hi]`),
// where XLA keeps a disjunctive ConstraintExpression; output tiles may be
// strided (the output strides are folded into the map before extraction);
// floordiv / mod accept any stride-1 term, not only a bare dim (XLA's
// `(d floordiv a) mod c` case generalised).
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

struct SymbolicTile {
  // (t0, ..., tn-1){rt...} -> (offsets..., sizes..., strides...): dims are
  // the output tile sizes, t_k in [1, ceil(n_k / stride_k)] (printed d_k as
  // in XLA's tile_map); symbols are the map's runtime variables.
  IndexingMap tile_map;
  int rank = 0;                         // the operand's rank
  std::vector<TileClause> constraints;  // all must hold

  Expr offset(int i) const { return tile_map.results()[i]; }
  Expr size(int i) const { return tile_map.results()[rank + i]; }
  Expr stride(int i) const { return tile_map.results()[2 * rank + i]; }
};

// The tile of the map's results read by an output tile at the origin whose
// sizes are the map's dims. `output_strides` (default all 1) are the
// output tile's strides. Error::Unsupported names the sub-expression that
// is not representable.
Result<SymbolicTile> SymbolicTileFromIndexingMap(
    const IndexingMap& map, std::span<const int64_t> output_strides = {});

// Printed forms: expressions over d<k> (tile sizes) and the runtime
// variables; a clause as `a in [x, y] || b in [z, w]`.
std::vector<std::string> PrintTileExprs(const SymbolicTile& tile, int part);
std::vector<std::string> PrintTileConstraints(const SymbolicTile& tile);

struct ConcreteTile {
  std::optional<std::vector<int64_t>> offsets;  // unset with runtime vars
  std::vector<int64_t> sizes, strides;
  bool satisfied = true;  // every constraint holds at these sizes
};

// The tile at concrete output tile sizes (each in [1, its dim's range]).
Result<ConcreteTile> EvaluateTile(const SymbolicTile& tile,
                                  std::span<const int64_t> tile_sizes);

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
