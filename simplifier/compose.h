// Composition that keeps maps small (issue 12, item 3) and simplifies as
// rarely as that allows (issue 13).
#ifndef IXA_SIMPLIFIER_COMPOSE_H_
#define IXA_SIMPLIFIER_COMPOSE_H_

#include <cstdint>
#include <optional>
#include <span>

#include "core/indexing_map.h"
#include "core/result.h"
#include "simplifier/simplify.h"

namespace ixa {

// `second ∘ first` (ComposeIndexingMaps), then simplified.
// Errors: those of ComposeIndexingMaps (including its size budget,
// kMaxComposedTreeNodes) and the deadline (core/budget.h).
Result<IndexingMap> ComposeSimplified(const IndexingMap& first,
                                      const IndexingMap& second,
                                      const SimplifyOptions& options = {});

// Composes a chain left to right (the first map added is applied first)
// and simplifies the result.
//
// Simplifying after every step re-simplifies every earlier step's
// subexpressions at each step (each simplification starts with empty
// memos: the composed map's bounds and constraints differ), which on the
// peers' W2 chains cost more than the whole final simplification.
// Simplifying only once at the end substitutes each map's unsimplified
// results into every use in the next one, so the expression written out
// can grow exponentially with the chain (a reshape and its inverse double
// it; a 32-map chain of reshapes and transposes never returned). So an
// intermediate is simplified only when its expressions written out
// (results and constraints) pass kEagerSimplifyNodes; ordinary short
// chains are simplified once.
class ChainComposer {
 public:
  // Written-out nodes past which an intermediate is simplified before the
  // next substitution.
  static constexpr int64_t kEagerSimplifyNodes = 256;

  explicit ChainComposer(SimplifyOptions options = {}) : options_(options) {}

  // Appends `next` (applied after the maps added before); true when the
  // intermediate grew past kEagerSimplifyNodes and was simplified. Errors:
  // those of ComposeIndexingMaps and the deadline; the chain is then
  // unusable.
  Result<bool> Add(const IndexingMap& next);

  // The simplified composition (at least one map must have been added).
  Result<IndexingMap> Finish();

 private:
  SimplifyOptions options_;
  std::optional<IndexingMap> acc_;
  bool simplified_ = false;  // acc_ is simplified and unchanged since
};

// maps[0] applied first, then maps[1], ... (at least one map), through a
// ChainComposer.
Result<IndexingMap> ComposeChain(std::span<const IndexingMap> maps,
                                 const SimplifyOptions& options = {});

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_COMPOSE_H_
