// Composition that keeps maps small (issue 12, item 3).
#ifndef IXA_SIMPLIFIER_COMPOSE_H_
#define IXA_SIMPLIFIER_COMPOSE_H_

#include <span>

#include "core/indexing_map.h"
#include "core/result.h"
#include "simplifier/simplify.h"

namespace ixa {

// `second ∘ first` (ComposeIndexingMaps), then simplified.
//
// Compose a chain one map at a time with this, left to right: every
// intermediate is then simplified before the next substitution. Composing
// first and simplifying once at the end substitutes each map's unsimplified
// results into every use in the next one, so the expression written out
// grows exponentially with the chain (a 20-map chain of reshapes and
// transposes took seconds and a 32-map chain never returned), while the
// simplified intermediates of ordinary chains stay the size of one map.
// Errors: those of ComposeIndexingMaps (including its size budget,
// kMaxComposedTreeNodes) and the deadline (core/budget.h).
Result<IndexingMap> ComposeSimplified(const IndexingMap& first,
                                      const IndexingMap& second,
                                      const SimplifyOptions& options = {});

// maps[0] applied first, then maps[1], ... (at least one map).
Result<IndexingMap> ComposeChain(std::span<const IndexingMap> maps,
                                 const SimplifyOptions& options = {});

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_COMPOSE_H_
