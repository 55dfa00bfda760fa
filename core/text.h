// XLA's text form of indexing maps and affine expressions
// (spec/indexing.md §2, spec/xla-reference.md §(b)).
#ifndef IXA_CORE_TEXT_H_
#define IXA_CORE_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

// Parses a map: `(d0, d1)[s0]{rt0} -> (exprs)[, domain: ...]`, or
// `KNOWN EMPTY`. Errors carry line, column and what was expected.
Result<IndexingMap> ParseIndexingMap(std::string_view text, ExprContext* ctx);

// Parses one expression over the given variable names (dims, then symbols
// in their map order: range then runtime).
Result<Expr> ParseExpr(std::string_view text, ExprContext* ctx,
                       const std::vector<std::string>& dim_names,
                       const std::vector<std::string>& symbol_names);

// Canonical one-line print: `(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9],
// s0 in [0, 3], <constraints sorted by their text>`. A map whose variables
// are all unbounded and that has no constraints prints without a domain.
// A KNOWN EMPTY map prints `KNOWN EMPTY`.
std::string PrintIndexingMap(const IndexingMap& map);

// MLIR/XLA classic expression syntax with the given names (default names
// d<i> / s<i> where a list is too short).
std::string PrintExpr(Expr e, const std::vector<std::string>& dim_names = {},
                      const std::vector<std::string>& symbol_names = {});
std::string PrintExpr(Expr e, const IndexingMap& map);

// Helpers for names.
std::vector<std::string> DimNames(const IndexingMap& map);
std::vector<std::string> SymbolNames(const IndexingMap& map);

}  // namespace ixa

#endif  // IXA_CORE_TEXT_H_
