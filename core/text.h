// XLA's text form of indexing maps and affine expressions
// (docs/indexing.md §2, docs/xla-reference.md §(b)).
#ifndef IXA_CORE_TEXT_H_
#define IXA_CORE_TEXT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

// The two generations of XLA's expression text (docs/xla-reference.md §(b)).
// Both always parse; they differ only in how a map is printed.
enum class TextSyntax {
  // MLIR affine syntax (XLA up to 2026-05; the default): `d0 floordiv 4`,
  // summands in the map's own order.
  kAffine,
  // XLA's symbolic expressions (2026-06 on): `d0 / 4`, and the summands of
  // every sum (nested sums flattened in) in SymbolicExpr's type order
  // (products, mod, floordiv, ceildiv, max, min, then variables, then the
  // constant; ties by structure: dims before symbols by position). See
  // printer.cc.
  kSymbolic,
};

// "affine" / "symbolic"; nullopt for anything else.
std::optional<TextSyntax> TextSyntaxFromName(std::string_view name);

// The syntax PrintExpr and PrintIndexingMap use when their caller names
// none: kAffine, unless a ScopedTextSyntax on this thread says otherwise.
// The CLI opens one per request with the response's syntax, so every
// expression a response carries (maps, the simplifier's trace, tile
// expressions, messages) prints alike without the code printing it knowing
// about syntaxes.
TextSyntax DefaultTextSyntax();
class ScopedTextSyntax {
 public:
  explicit ScopedTextSyntax(TextSyntax syntax);
  ~ScopedTextSyntax();
  ScopedTextSyntax(const ScopedTextSyntax&) = delete;
  ScopedTextSyntax& operator=(const ScopedTextSyntax&) = delete;

 private:
  TextSyntax previous_;
};

// The parser's limit on parenthesis / unary-minus nesting. The parser also
// refuses an expression whose printed form (in either syntax) would nest
// deeper than this, so that every map it accepts prints to text it reads
// back (a long chain of unary minus signs included).
inline constexpr int kMaxTextNesting = 256;

// Parses a map: `(d0, d1)[s0]{rt0} -> (exprs)[[,] domain: ...]`, or
// `KNOWN EMPTY`. Errors carry line, column and what was expected.
//
// Accepted beyond the printed form (all documented in parser.cc):
//   - the comma before `domain:` and between domain items may be left out
//     (`(d0) -> (d0) domain: d0 in [0, 3]`; the documents write one item
//     per line without commas, and XLA's parser takes it in some versions);
//   - floordiv as `floordiv`, `floorDiv` or `/`; ceildiv as `ceildiv` or
//     `ceilDiv`; mod as `mod` or `%`; `16d0` for `d0 * 16`;
//   - `min(a, b)` and `max(a, b)`, also with more arguments
//     (`min(a, b, c)` reads as `min(min(a, b), c)`; XLA prints only two);
//   - the obsolete `is_simplified: true|false` domain item.
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
// In TextSyntax::kSymbolic the same, with `/` for floordiv and summands
// reordered (see TextSyntax); parse(print) is then the reordered map.
std::string PrintIndexingMap(const IndexingMap& map,
                             TextSyntax syntax = DefaultTextSyntax());
// The same print appended to `out` (the query server writes it straight
// into its response).
void AppendIndexingMap(const IndexingMap& map, TextSyntax syntax,
                       std::string& out);

// MLIR/XLA classic expression syntax with the given names (default names
// d<i> / s<i> where a list is too short).
std::string PrintExpr(Expr e, const std::vector<std::string>& dim_names = {},
                      const std::vector<std::string>& symbol_names = {},
                      TextSyntax syntax = DefaultTextSyntax());
std::string PrintExpr(Expr e, const IndexingMap& map,
                      TextSyntax syntax = DefaultTextSyntax());

// The tree that the kSymbolic print of e reads back as: every sum's
// summands (nested sums flattened in) sorted in SymbolicExpr's type order,
// left-nested, bottom-up.
// Equal in value to e at every point. Builds nodes in e's context.
Expr ToSymbolicOrder(Expr e);

// How deeply the printed form of e nests for the parser (parentheses,
// unary minus on a non-literal and min/max argument lists; 1 for the
// expression itself), the larger of the two syntaxes.
int PrintedNesting(Expr e);

// Helpers for names.
std::vector<std::string> DimNames(const IndexingMap& map);
std::vector<std::string> SymbolNames(const IndexingMap& map);

}  // namespace ixa

#endif  // IXA_CORE_TEXT_H_
