// Tile constraints in the forms callers read: XLA's disjunctive form (a
// ConstraintExpression: a list of conjunctions, any of which may hold),
// evaluation at concrete tile sizes, and whether any sizes satisfy them.
// Atoms are `expr in [lo, hi]` over the tile sizes d0, d1, ...
#ifndef IXA_ANALYSIS_USES_TILE_CONSTRAINTS_H_
#define IXA_ANALYSIS_USES_TILE_CONSTRAINTS_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/uses/tiles.h"
#include "core/result.h"

namespace ixa {

// All atoms hold.
using TileConjunction = std::vector<TileAtom>;

// XLA's disjunctive form of conjunctive clauses: each conjunction picks one
// atom of every clause; atoms on one expression merge (their intervals
// intersect, an empty one drops the conjunction) and a conjunction that
// another one's atoms imply is dropped. {} is false; {{}} (one empty
// conjunction) is true. Error::Limit past `max_conjunctions`.
Result<std::vector<TileConjunction>> ToDisjunctiveForm(
    const std::vector<TileClause>& clauses, size_t max_conjunctions = 4096);

// Every clause holds at these tile sizes (an atom that fails to evaluate
// does not hold).
bool ClausesHold(const std::vector<TileClause>& clauses,
                 std::span<const int64_t> sizes);
// The indices of the clauses that fail.
std::vector<size_t> FailingClauses(const std::vector<TileClause>& clauses,
                                   std::span<const int64_t> sizes);
// The index of the first conjunction that holds, or -1.
int FirstHoldingConjunction(const std::vector<TileConjunction>& dnf,
                            std::span<const int64_t> sizes);

struct TileSatisfiability {
  // Unset when undecided (a budget ran out on a large tile space).
  std::optional<bool> satisfiable;
  std::vector<int64_t> witness;  // sizes that satisfy them, when true
};
// Whether some sizes in [1, extent_k] satisfy every clause: exact (the
// decision procedure on each conjunction, enumeration of small spaces),
// with a search of likely sizes (1, powers of two, the extents) first.
TileSatisfiability DecideTileSatisfiability(
    const std::vector<TileClause>& clauses, std::span<const int64_t> extents,
    ExprContext* ctx);

// Printed forms over d0, d1, ...: `expr in [lo, hi]`.
std::string PrintTileAtom(const TileAtom& atom);
std::vector<std::string> PrintTileAtoms(const std::vector<TileAtom>& atoms);
// A clause as `a in [x, y] || b in [z, w]`.
std::string PrintTileClause(const TileClause& clause);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_TILE_CONSTRAINTS_H_
