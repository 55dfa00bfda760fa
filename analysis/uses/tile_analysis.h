// Symbolic tile analysis (XLA's SymbolicTileAnalysis): one tile of the
// fusion's root output propagated to every instruction, including those inside
// nested fusions, each instruction's tile read off the map from the root's tile
// space to its output (SymbolicTileFromIndexingMap), deduplicated per
// instruction, and the constraints of all of them ANDed.
//
// The tile space is the root output's dims, followed, where the caller
// gives tile sizes for them, by the contracting dims of each dot and the
// reduced dims of each reduce reached (XLA's tiling space: a dot or reduce
// then reads its operands one tile of the contraction at a time, instead
// of whole). Those dims enter the maps where the dot or reduce would put a
// range variable.
#ifndef IXA_ANALYSIS_USES_TILE_ANALYSIS_H_
#define IXA_ANALYSIS_USES_TILE_ANALYSIS_H_

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/uses/tile_constraints.h"
#include "analysis/uses/tiles.h"

namespace ixa {

enum class TileSpaceKind { kOutput, kReduction, kContraction };
const char* TileSpaceKindName(TileSpaceKind kind);

struct TileSpaceDim {
  TileSpaceKind kind = TileSpaceKind::kOutput;
  // The reduce or dot of a reduction / contraction dim (its printed name).
  std::string instruction;
  // An output dim; the reduced dim of the reduce's inputs; the dot's lhs
  // contracting dim.
  int64_t dim = 0;
  int64_t extent = 1;
  // Reduction / contraction dims: the tile size the caller gave.
  int64_t size = 0;
};

// Tile sizes of reduced (contracting) dims, by reduce (dot) name; the
// entry "" applies to every one not named. One size per reduced dim, in
// ascending dim order (per lhs contracting dim, in the dot's order).
using ExtraTileSizes = std::map<std::string, std::vector<int64_t>>;

struct FusionTilingOptions {
  int output_id = 0;
  std::vector<int64_t> output_strides;  // empty: all 1
  ExtraTileSizes reduction_sizes, contraction_sizes;
};

struct InstructionTile {
  // From the tile space to the instruction's output.
  IndexingMap map;
  std::optional<SymbolicTile> tile;
  std::string unsupported;  // why there is no tile, when !tile
};

struct TiledInstruction {
  const hlo::Instruction* instr = nullptr;
  // Inside a nested fusion: "<fusion>/<name>" (nested further: one more
  // prefix per level).
  std::string name;
  int parameter = -1;   // the region parameter it is, or -1
  std::string unknown;  // why no map reaches it (an op without one above)
  std::vector<InstructionTile> tiles;  // distinct tiles, in order reached
};

struct FusionTiling {
  std::vector<TileSpaceDim> space;
  // Every instruction the root's tile reaches, operands before users (the
  // root last).
  std::vector<TiledInstruction> instructions;
  // Every tile's constraints (conjunctive, each clause once), and XLA's.
  std::vector<TileClause> constraints, xla_constraints;
  // Why the fusion has no tiling: an instruction without a map or without
  // a tile (the first); empty when every instruction has one.
  std::string no_tiling;
  // Why XLA's analysis would bail out where this one answers (the first
  // instruction's reason); empty where XLA tiles the fusion too.
  std::string xla_would_refuse;

  std::vector<int64_t> extents() const;
  // The full tile-size vector: the output's sizes, then the sizes given
  // for reductions and contractions.
  std::vector<int64_t> Sizes(std::span<const int64_t> output_sizes) const;
  const TiledInstruction* Find(const std::string& name) const;
};

// The candidate output tile sizes that tile every instruction.
struct ValidTiling {
  std::vector<int64_t> sizes;  // the output's
  int64_t blocks = 1;          // tiles of the output
  // The first conjunction of `dnf` that holds (-1 when dnf is unset).
  int conjunction = -1;
  bool xla_valid = true;  // XLA's constraints hold too
};
struct ValidTilings {
  int64_t tried = 0, count = 0;
  std::vector<ValidTiling> tilings;  // the first `limit`
  // The constraints in disjunctive form (unset past its size limit).
  std::optional<std::vector<TileConjunction>> dnf;
};
// Every vector of `candidates` (one list per output dim; the last dim
// varies fastest) at which the fusion tiles: each instruction has a tile
// and every constraint holds (sizes above a dim cover it whole). Errors:
// the deadline; more than 2^22 vectors is Error::Limit.
Result<ValidTilings> EnumerateValidTilings(
    const FusionTiling& tiling,
    const std::vector<std::vector<int64_t>>& candidates,
    std::span<const int64_t> output_strides, int64_t limit);
// 1, 2, 4, ... up to the first power of two at or above each output dim
// (over its strided extent).
std::vector<std::vector<int64_t>> PowerOfTwoCandidates(
    const FusionTiling& tiling, std::span<const int64_t> output_strides);
// The tile-size vector with each size clamped to its dim's (strided)
// extent.
std::vector<int64_t> ClampToTileSpace(const FusionTiling& tiling,
                                      std::span<const int64_t> output_strides,
                                      std::vector<int64_t> sizes);

// Errors: budgets, bad options (a size list of the wrong length, a size
// below 1), an output the root does not have.
Result<FusionTiling> AnalyzeFusionTiling(const FusionRegion& region,
                                         const FusionTilingOptions& options,
                                         ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_TILE_ANALYSIS_H_
