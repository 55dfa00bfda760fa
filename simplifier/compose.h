// Composition that keeps maps small (a long chain composed without
// simplification grows exponentially) and simplifies as rarely as that
// allows (simplification is the costly step).
#ifndef IXA_SIMPLIFIER_COMPOSE_H_
#define IXA_SIMPLIFIER_COMPOSE_H_

#include <cstdint>
#include <span>
#include <vector>

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
//
// Finish composes the whole chain in one pass: every map's symbols get
// their final positions (ComposeIndexingMaps's order, [range(last), ...,
// range(first)]) once, instead of being renumbered at every step, and the
// box ranges of the intermediate results (which bounds of the next map need
// a constraint) are memoized across steps. The answer equals, at every
// point of its domain, what ComposeIndexingMaps step by step, then
// Simplify, give (not always textually: simplification happens at other
// points of the chain). Chains with runtime variables take that
// step-by-step path.
class ChainComposer {
 public:
  // Written-out nodes past which an intermediate is simplified before the
  // next substitution. Measured on the peers' W2 (instructions of the whole
  // pass, answers identical): 256: 37.36M, 384: 37.19M, 512: 36.88M, 640
  // and 768: 37.06M, 1024: 37.08M.
  static constexpr int64_t kEagerSimplifyNodes = 512;

  explicit ChainComposer(SimplifyOptions options = {}) : options_(options) {}

  // Appends `next` (applied after the maps added before); returns the
  // chain's length. Errors (the chain is then unusable): a result count
  // that differs from next's dim count, another context, the deadline.
  Result<size_t> Add(IndexingMap&& next);
  Result<size_t> Add(const IndexingMap& next) { return Add(IndexingMap(next)); }

  // The simplified composition (at least one map must have been added).
  // Errors: ComposeIndexingMaps's (a divisor that becomes 0, the size
  // budget kMaxComposedTreeNodes) and the deadline; failed_item() then
  // says which map was being composed in.
  Result<IndexingMap> Finish();
  size_t failed_item() const { return failed_item_; }

 private:
  Result<IndexingMap> FinishStepByStep();
  Result<IndexingMap> FinishInOnePass();
  // Simplifies *map when it grew past kEagerSimplifyNodes; true if it did.
  bool SimplifyIfLarge(IndexingMap* map);

  SimplifyOptions options_;
  std::vector<IndexingMap> maps_;
  size_t failed_item_ = 0;
};

// maps[0] applied first, then maps[1], ... (at least one map), through a
// ChainComposer.
Result<IndexingMap> ComposeChain(std::span<const IndexingMap> maps,
                                 const SimplifyOptions& options = {});

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_COMPOSE_H_
