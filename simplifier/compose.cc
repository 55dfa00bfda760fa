#include "simplifier/compose.h"

#include <utility>
#include <vector>

#include "core/budget.h"
#include "simplifier/box_fit.h"

namespace ixa {

namespace {

void SimplifyStep(IndexingMap* map, const SimplifyOptions& options) {
  // Most box fits fail, and a chain's steps ask the same ones again (on
  // the peers' W2, simplified step by step, 2075 of 2979 fits repeated a
  // failure of the same chain).
  if (map->context() != nullptr) simp::RememberFailedFits(map->context());
  Simplify(map, options);
}

int64_t WrittenOutSize(const IndexingMap& map, int64_t cap) {
  std::vector<Expr> all(map.results().begin(), map.results().end());
  for (const Constraint& c : map.constraints()) all.push_back(c.expr);
  return TreeSize(all, cap);
}

}  // namespace

Result<IndexingMap> ComposeSimplified(const IndexingMap& first,
                                      const IndexingMap& second,
                                      const SimplifyOptions& options) {
  IXA_ASSIGN_OR_RETURN(IndexingMap out, ComposeIndexingMaps(first, second));
  SimplifyStep(&out, options);
  if (DeadlineExpired("compose")) return DeadlineError();
  return out;
}

Result<bool> ChainComposer::Add(const IndexingMap& next) {
  if (!acc_) {
    acc_ = next;
    simplified_ = false;
    return false;
  }
  IXA_ASSIGN_OR_RETURN(IndexingMap out, ComposeIndexingMaps(*acc_, next));
  simplified_ = false;
  if (WrittenOutSize(out, kEagerSimplifyNodes) > kEagerSimplifyNodes) {
    SimplifyStep(&out, options_);
    simplified_ = true;
  }
  if (DeadlineExpired("compose")) return DeadlineError();
  acc_ = std::move(out);
  return simplified_;
}

Result<IndexingMap> ChainComposer::Finish() {
  if (!acc_) return Error::Invalid("compose: no maps");
  if (!simplified_) {
    SimplifyStep(&*acc_, options_);
    simplified_ = true;
    if (DeadlineExpired("compose")) return DeadlineError();
  }
  return *acc_;
}

Result<IndexingMap> ComposeChain(std::span<const IndexingMap> maps,
                                 const SimplifyOptions& options) {
  ChainComposer chain(options);
  for (const IndexingMap& m : maps) {
    IXA_ASSIGN_OR_RETURN(bool simplified_now, chain.Add(m));
    (void)simplified_now;
  }
  return chain.Finish();
}

}  // namespace ixa
