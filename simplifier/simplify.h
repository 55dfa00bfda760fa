// The range-aware simplifier's entry point (docs/indexing.md §5).
#ifndef IXA_SIMPLIFIER_SIMPLIFY_H_
#define IXA_SIMPLIFIER_SIMPLIFY_H_

#include <string>
#include <vector>

#include "core/indexing_map.h"

namespace ixa {

struct SimplifyOptions {
  int max_rounds = 32;  // fixpoint budget
  bool trace = false;   // record {rule, before, after}
  // Keep variables whose bounds are a single point in the results rather
  // than replacing them by their value (XLA's kPreserve). The per-op HLO
  // maps use it so that `d0 in [0, 0]` still reads `d0`.
  bool preserve_point_variables = false;
};

struct TraceStep {
  std::string rule;  // stable rule id, e.g. "mod.in_range"
  std::string before;
  std::string after;
};

struct SimplifyResult {
  bool changed = false;
  bool budget_exhausted = false;  // best form so far was returned
  std::vector<TraceStep> trace;
};

// Simplifies results and constraints in place; the map stays equal to the
// original at every point of its domain. Never throws for valid maps.
SimplifyResult Simplify(IndexingMap* map, const SimplifyOptions& options = {});

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_SIMPLIFY_H_
