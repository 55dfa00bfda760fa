// Algebra ops on typed inputs, shared by the JSON handlers (ops_algebra.cc)
// and the fast path (fast_ops.cc), so that both answer alike.
#ifndef IXA_TOOLS_IXA_ALGEBRA_CORE_H_
#define IXA_TOOLS_IXA_ALGEBRA_CORE_H_

#include <span>
#include <string_view>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa::cli {

// The `compose` op on the texts of its `maps` (texts[0] applied first, at
// least one): parse and compose in order, simplified by a ChainComposer,
// errors naming the item.
Result<IndexingMap> ComposeMapTexts(std::span<const std::string_view> texts,
                                    ExprContext& ctx);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_ALGEBRA_CORE_H_
