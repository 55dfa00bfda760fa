#include "simplifier/compose.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/budget.h"
#include "core/small_vector.h"
#include "core/substituter.h"
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

}  // namespace

Result<IndexingMap> ComposeSimplified(const IndexingMap& first,
                                      const IndexingMap& second,
                                      const SimplifyOptions& options) {
  IXA_ASSIGN_OR_RETURN(IndexingMap out, ComposeIndexingMaps(first, second));
  SimplifyStep(&out, options);
  if (DeadlineExpired("compose")) return DeadlineError();
  return out;
}

Result<size_t> ChainComposer::Add(IndexingMap&& next) {
  // Checked here so that the error names the map that does not fit.
  if (!maps_.empty()) {
    IXA_RETURN_IF_ERROR(CheckComposable(maps_.back(), next));
  }
  if (DeadlineExpired("compose")) return DeadlineError();
  if (maps_.empty()) maps_.reserve(8);  // most chains are short
  maps_.push_back(std::move(next));
  return maps_.size();
}

bool ChainComposer::SimplifyIfLarge(IndexingMap* map) {
  if (WrittenOutSize(map->results(), map->constraints(), kEagerSimplifyNodes) <=
      kEagerSimplifyNodes) {
    return false;
  }
  SimplifyStep(map, options_);
  return true;
}

Result<IndexingMap> ChainComposer::Finish() {
  if (maps_.empty()) return Error::Invalid("compose: no maps");
  bool runtime_variables = false;
  for (const IndexingMap& m : maps_) runtime_variables |= m.num_rt_vars() > 0;
  IXA_ASSIGN_OR_RETURN(IndexingMap out, runtime_variables ? FinishStepByStep()
                                                          : FinishInOnePass());
  SimplifyStep(&out, options_);
  if (DeadlineExpired("compose")) return DeadlineError();
  return out;
}

Result<IndexingMap> ChainComposer::FinishStepByStep() {
  IndexingMap acc = maps_[0];
  for (size_t i = 1; i < maps_.size(); ++i) {
    failed_item_ = i;
    IXA_ASSIGN_OR_RETURN(acc, ComposeIndexingMaps(acc, maps_[i]));
    SimplifyIfLarge(&acc);
    if (DeadlineExpired("compose")) return DeadlineError();
  }
  return acc;
}

Result<IndexingMap> ChainComposer::FinishInOnePass() {
  const size_t n = maps_.size();
  ExprContext* ctx = maps_[0].context();
  auto known_empty = [&] {
    return IndexingMap::KnownEmpty(ctx, maps_[0].num_dims(),
                                   maps_.back().num_results());
  };
  for (const IndexingMap& m : maps_) {
    if (m.IsKnownEmpty()) return known_empty();
  }
  // Final symbol positions: map i's range variables start at first[i].
  size_t num_ranges = 0, max_results = 0, max_ranges = 0;
  for (const IndexingMap& m : maps_) {
    num_ranges += m.range_vars().size();
    max_ranges = std::max(max_ranges, m.range_vars().size());
    max_results = std::max(max_results, m.results().size());
  }
  std::vector<Variable> ranges;
  ranges.reserve(num_ranges);
  SmallVector<int64_t, 8> first;
  first.resize(n);
  for (size_t i = n; i-- > 0;) {
    first[i] = static_cast<int64_t>(ranges.size());
    for (const Variable& v : maps_[i].range_vars()) ranges.push_back(v);
  }
  // Inline storage: chains, result lists and symbol lists are short.
  SmallVector<Expr, 8> symbols;  // map i's symbols at their final positions
  symbols.reserve(max_ranges);
  auto set_symbols_of = [&](size_t i) {
    symbols.clear();
    for (int j = 0; j < maps_[i].num_range_vars(); ++j) {
      symbols.push_back(ctx->Symbol(first[i] + j));
    }
  };
  // The intermediate, in the final numbering (the symbols of the maps not
  // composed yet are declared and unused).
  IndexingMap acc(ctx, maps_[0].dims(), std::move(ranges), {}, {});
  {
    set_symbols_of(0);
    Substituter renumber({}, {symbols.data(), symbols.size()});
    const bool same = first[0] == 0;  // no map after it has symbols
    acc.mutable_results().reserve(max_results);
    for (Expr r : maps_[0].results()) {
      acc.mutable_results().push_back(same ? r : renumber.Run(r));
    }
    for (const Constraint& c : maps_[0].constraints()) {
      acc.AddConstraint(same ? c.expr : renumber.Run(c.expr), c.interval);
    }
  }
  BoxRanges box(acc);
  SmallVector<Expr, 8> results;
  results.reserve(max_results);
  SmallVector<Constraint, 8> added;
  for (size_t i = 1; i < n && !acc.IsKnownEmpty(); ++i) {
    failed_item_ = i;
    const IndexingMap& next = maps_[i];
    added.clear();
    // Next's dim bounds that the results do not meet on the box.
    for (int d = 0; d < next.num_dims(); ++d) {
      const Interval& bound = next.dims()[d].bounds;
      if (!box.StaysWithin(acc.results()[d], bound)) {
        added.push_back({acc.results()[d], bound});
      }
    }
    set_symbols_of(i);
    Substituter into_next(acc.results(), {symbols.data(), symbols.size()},
                          /*zero_divisor_fails=*/true);
    results.clear();
    for (Expr r : next.results()) results.push_back(into_next.Run(r));
    for (const Constraint& c : next.constraints()) {
      added.push_back({into_next.Run(c.expr), c.interval});
    }
    for (Expr r : results) {
      if (!r) return ComposeZeroDivisorError();
    }
    for (const Constraint& c : added) {
      if (!c.expr) return ComposeZeroDivisorError();
    }
    acc.mutable_results().assign(results.begin(), results.end());
    bool bounds_changed = false;
    for (const Constraint& c : added) {
      bounds_changed |= c.expr.IsVariable();
      acc.AddConstraint(c.expr, c.interval);
    }
    IXA_RETURN_IF_ERROR(CheckComposedSize(acc.results(), acc.constraints()));
    if (SimplifyIfLarge(&acc)) bounds_changed = true;
    if (bounds_changed) box.Reset();
    if (DeadlineExpired("compose")) return DeadlineError();
  }
  if (acc.IsKnownEmpty()) return known_empty();
  return acc;
}

Result<IndexingMap> ComposeChain(std::span<const IndexingMap> maps,
                                 const SimplifyOptions& options) {
  ChainComposer chain(options);
  for (const IndexingMap& m : maps) {
    IXA_ASSIGN_OR_RETURN(size_t length, chain.Add(m));
    (void)length;
  }
  return chain.Finish();
}

}  // namespace ixa
