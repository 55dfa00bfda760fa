#include "simplifier/compose.h"

#include "core/budget.h"

namespace ixa {

Result<IndexingMap> ComposeSimplified(const IndexingMap& first,
                                      const IndexingMap& second,
                                      const SimplifyOptions& options) {
  IXA_ASSIGN_OR_RETURN(IndexingMap out, ComposeIndexingMaps(first, second));
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
