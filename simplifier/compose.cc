#include "simplifier/compose.h"

#include "core/budget.h"
#include "simplifier/box_fit.h"

namespace ixa {

Result<IndexingMap> ComposeSimplified(const IndexingMap& first,
                                      const IndexingMap& second,
                                      const SimplifyOptions& options) {
  IXA_ASSIGN_OR_RETURN(IndexingMap out, ComposeIndexingMaps(first, second));
  // Each step re-simplifies the subexpressions of the previous ones, and
  // most box fits fail (on the peers' W2, 2075 of 2979 fits repeated a
  // failure of the same chain).
  if (out.context() != nullptr) simp::RememberFailedFits(out.context());
  Simplify(&out, options);
  if (DeadlineExpired("compose")) return DeadlineError();
  return out;
}

Result<IndexingMap> ComposeChain(std::span<const IndexingMap> maps,
                                 const SimplifyOptions& options) {
  if (maps.empty()) return Error::Invalid("compose: no maps");
  IndexingMap acc = maps[0];
  if (maps.size() == 1) Simplify(&acc, options);
  for (size_t i = 1; i < maps.size(); ++i) {
    IXA_ASSIGN_OR_RETURN(acc, ComposeSimplified(acc, maps[i], options));
  }
  return acc;
}

}  // namespace ixa
