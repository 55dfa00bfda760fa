// Runtime variables and XLA's folding of their producers (OptimizeRTVar):
// an offset read from a constant is that constant, an offset read from an
// iota is the index along the iota's dimension.
#include <algorithm>
#include <cctype>
#include <memory>

#include "analysis/indexing/internal.h"
#include "simplifier/simplify.h"

namespace ixa::indexing_internal {
namespace {

// The integers of an array constant's literal (`{ {1, 2}, {3, 4} }`), in
// row-major order; nullopt unless it holds exactly `count` integers.
std::optional<std::vector<int64_t>> IntegerLiteral(const std::string& text,
                                                   int64_t count) {
  constexpr int64_t kMaxElements = int64_t{1} << 16;
  if (count > kMaxElements) return std::nullopt;
  std::vector<int64_t> values;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '{' || c == '}' || c == ',' ||
        std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    size_t end = i;
    if (text[end] == '-' || text[end] == '+') ++end;
    size_t digits = end;
    while (end < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[end]))) {
      ++end;
    }
    if (end == digits) return std::nullopt;  // true, 1.5, inf, ...
    if (end < text.size() &&
        !std::isspace(static_cast<unsigned char>(text[end])) &&
        text[end] != ',' && text[end] != '}') {
      return std::nullopt;
    }
    int64_t v = 0;
    for (size_t k = digits; k < end; ++k) {
      if (__builtin_mul_overflow(v, 10, &v) ||
          __builtin_add_overflow(v, text[k] - '0', &v)) {
        return std::nullopt;
      }
    }
    values.push_back(text[i] == '-' ? -v : v);
    if (static_cast<int64_t>(values.size()) > count) return std::nullopt;
    i = end;
  }
  if (static_cast<int64_t>(values.size()) != count) return std::nullopt;
  return values;
}

// The constant's value at the constant index `m` reads, if known.
std::optional<int64_t> ConstantAt(const Instruction& c, const IndexingMap& m) {
  if (c.shape.IsScalar() || c.shape.ElementCount() == 1) {
    if (c.int_value) return c.int_value;
  }
  if (!c.shape.IsArray()) return std::nullopt;
  std::vector<int64_t> index;
  for (Expr r : m.results()) {
    if (r.kind() != ExprKind::kConstant) return std::nullopt;
    index.push_back(r.constant());
  }
  if (static_cast<int>(index.size()) != c.shape.rank()) return std::nullopt;
  std::optional<std::vector<int64_t>> values =
      IntegerLiteral(c.literal, c.shape.ElementCount());
  if (!values) return std::nullopt;
  int64_t linear = 0;
  for (int i = 0; i < c.shape.rank(); ++i) {
    if (index[i] < 0 || index[i] >= c.shape.dims[i]) return std::nullopt;
    linear = linear * c.shape.dims[i] + index[i];
  }
  return (*values)[linear];
}

// Ops that only move elements: the value read is an element of operand 0
// at the place their (single, symbol-free) map names.
bool MovesElements(const std::string& op) {
  return op == "bitcast" || op == "broadcast" || op == "reshape" ||
         op == "reverse" || op == "slice" || op == "transpose" ||
         op == "copy" || op == "convert";
}

// Follows the producer chain down to a constant or iota and folds; nullopt
// when the value is only known at run time.
std::optional<Expr> Fold(const Instruction& producer, IndexingMap read) {
  ExprContext* ctx = read.context();
  const Instruction* p = &producer;
  for (int step = 0; step < 64; ++step) {
    if (p->opcode == "constant") {
      std::optional<int64_t> v = ConstantAt(*p, read);
      if (!v) return std::nullopt;
      return ctx->Constant(*v);
    }
    if (p->opcode == "iota") {
      int64_t dim = p->iota_dimension;
      if (dim < 0 || dim >= read.num_results()) return std::nullopt;
      return read.results()[dim];
    }
    if (!MovesElements(p->opcode) || p->operand_count() != 1 ||
        !p->operand(0)->shape.IsArray()) {
      return std::nullopt;
    }
    auto step_maps = ComputeOutputToInputIndexing(*p, 0, ctx);
    if (!step_maps.ok() || step_maps->indexing_maps.empty() ||
        step_maps->indexing_maps[0].size() != 1) {
      return std::nullopt;
    }
    const IndexingMap& pm = *step_maps->indexing_maps[0].begin();
    if (pm.num_symbols() != 0) return std::nullopt;
    auto composed = ComposeIndexingMaps(read, pm);
    if (!composed.ok() || composed->IsKnownEmpty()) return std::nullopt;
    read = std::move(composed).value();
    Simplify(&read);
    if (read.IsKnownEmpty()) return std::nullopt;
    p = p->operand(0);
  }
  return std::nullopt;
}

}  // namespace

Expr RuntimeValue(const Instruction& producer, IndexingMap read,
                  Interval feasible, int first_symbol,
                  std::vector<Variable>* rt_vars) {
  ExprContext* ctx = read.context();
  if (std::optional<Expr> folded = Fold(producer, read)) {
    // Only where the value can be used as is: a value outside the feasible
    // interval stays a runtime variable (XLA keeps out-of-range constants).
    if (feasible.Contains(RangeOverBounds(*folded, read))) return *folded;
  }
  // The producer map keeps the consumer's symbols in place (they are the
  // consumer's leading range variables), so it is simplified but its
  // symbols are not removed.
  Simplify(&read);
  Variable v;
  v.bounds = feasible;
  v.producer = producer.name;
  v.producer_map = std::make_shared<const IndexingMap>(std::move(read));
  Expr symbol = ctx->Symbol(first_symbol + static_cast<int>(rt_vars->size()));
  rt_vars->push_back(std::move(v));
  return symbol;
}

}  // namespace ixa::indexing_internal
