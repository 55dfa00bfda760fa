// PLACEHOLDER until the rule-based simplifier lands: changes nothing.
#include "simplifier/simplify.h"

namespace ixa {

SimplifyResult Simplify(IndexingMap* map, const SimplifyOptions& options) {
  (void)map;
  (void)options;
  return {};
}

}  // namespace ixa
