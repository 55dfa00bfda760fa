// Rule introspection and rule-restricted simplification, for tests, traces
// and tools. The public entry point stays simplifier/simplify.h.
#ifndef IXA_SIMPLIFIER_RULE_REGISTRY_H_
#define IXA_SIMPLIFIER_RULE_REGISTRY_H_

#include <string>
#include <vector>

#include "core/indexing_map.h"
#include "simplifier/rewriter.h"
#include "simplifier/simplify.h"

namespace ixa {

// Every rule id, grouped by operator, in table order.
std::vector<std::string> AllSimplifierRuleIds();

// Simplify() with only the rules that `filter` enables (null: all).
SimplifyResult SimplifyWithFilter(IndexingMap* map,
                                  const SimplifyOptions& options,
                                  const simp::RuleFilter* filter);

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_RULE_REGISTRY_H_
