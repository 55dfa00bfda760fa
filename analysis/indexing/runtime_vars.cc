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

using hlo::Opcode;

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
bool MovesElements(Opcode op) {
  return op == Opcode::kBitcast || op == Opcode::kBroadcast ||
         op == Opcode::kReshape || op == Opcode::kReverse ||
         op == Opcode::kSlice || op == Opcode::kTranspose ||
         op == Opcode::kCopy || op == Opcode::kConvert;
}

// `read` composed with operand k's (single, symbol-free) map of p, or
// nullopt.
std::optional<IndexingMap> ReadOperand(const Instruction& p, int k,
                                       const IndexingMap& read) {
  if (!p.operand(k)->shape.IsArray()) return std::nullopt;
  auto step_maps = ComputeOutputToInputIndexing(p, 0, read.context());
  if (!step_maps.ok() ||
      static_cast<int>(step_maps->indexing_maps.size()) <= k ||
      step_maps->indexing_maps[k].size() != 1) {
    return std::nullopt;
  }
  const IndexingMap& pm = *step_maps->indexing_maps[k].begin();
  if (pm.num_symbols() != 0) return std::nullopt;
  auto composed = ComposeIndexingMaps(read, pm);
  if (!composed.ok() || composed->IsKnownEmpty()) return std::nullopt;
  Simplify(&*composed);
  if (composed->IsKnownEmpty()) return std::nullopt;
  return std::move(composed).value();
}

// Whether every value of e over read's domain box is a value of p's
// integer element type: then the arithmetic of p does not wrap, and the
// folded expression is the value p computes.
bool FitsElementType(Expr e, const IndexingMap& read, const Instruction& p) {
  const hlo::ElementType t = p.shape.type;
  if (!hlo::IsIntegral(t) || t == hlo::ElementType::kS1 ||
      t == hlo::ElementType::kU1) {
    return false;
  }
  const int bits = hlo::ElementBits(t);
  const bool is_signed =
      t >= hlo::ElementType::kS2 && t <= hlo::ElementType::kS64;
  const Interval r = RangeOverBounds(e, read);
  if (r.IsEmpty() || r.lower == kInt64Min || r.upper == kInt64Max) {
    return false;  // an unbounded end
  }
  if (bits >= 64) {
    return is_signed || r.lower >= 0;  // finite int64 values
  }
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi =
      is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  return r.lower >= lo && r.upper <= hi;
}

// Follows the producer chain down to constants and iotas and folds; nullopt
// when the value is only known at run time. Element-moving ops are
// followed; add and subtract fold both operands, multiply when one of them
// folds to a constant (a product of two variables would make the maps
// semi-affine), in both cases only where the integer type cannot wrap.
// XLA's OptimizeRTVar folds these too (its tests ReplaceConstantRTVars_Add,
// _Multiply).
// `computed` (when given) is set when the value is arithmetic on the
// folded values, not an element of one constant or iota.
std::optional<Expr> Fold(const Instruction& producer, IndexingMap read,
                         int depth = 0, bool* computed = nullptr) {
  ExprContext* ctx = read.context();
  const Instruction* p = &producer;
  for (int step = 0; step < 64; ++step) {
    if (p->opcode == Opcode::kConstant) {
      std::optional<int64_t> v = ConstantAt(*p, read);
      if (!v) return std::nullopt;
      return ctx->Constant(*v);
    }
    if (p->opcode == Opcode::kIota) {
      int64_t dim = p->iota_dimension;
      if (dim < 0 || dim >= read.num_results()) return std::nullopt;
      return read.results()[dim];
    }
    const bool arithmetic = p->opcode == Opcode::kAdd ||
                            p->opcode == Opcode::kSubtract ||
                            p->opcode == Opcode::kMultiply;
    if (arithmetic && p->operand_count() == 2 && depth < 8) {
      if (computed) *computed = true;
      std::optional<Expr> v[2];
      for (int k = 0; k < 2; ++k) {
        std::optional<IndexingMap> r = ReadOperand(*p, k, read);
        if (!r) return std::nullopt;
        v[k] = Fold(*p->operand(k), std::move(*r), depth + 1);
        if (!v[k]) return std::nullopt;
      }
      Expr value;
      if (p->opcode == Opcode::kAdd) {
        value = *v[0] + *v[1];
      } else if (p->opcode == Opcode::kSubtract) {
        value = *v[0] - *v[1];
      } else if (v[0]->IsConstant() || v[1]->IsConstant()) {
        value = *v[0] * *v[1];
      } else {
        return std::nullopt;
      }
      if (!FitsElementType(value, read, *p)) return std::nullopt;
      return value;
    }
    if (!MovesElements(p->opcode) || p->operand_count() != 1) {
      return std::nullopt;
    }
    std::optional<IndexingMap> r = ReadOperand(*p, 0, read);
    if (!r) return std::nullopt;
    read = std::move(*r);
    p = p->operand(0);
  }
  return std::nullopt;
}

}  // namespace

Expr RuntimeValue(const Instruction& producer, IndexingMap read,
                  Interval feasible, int first_symbol,
                  std::vector<Variable>* rt_vars, bool clamped) {
  ExprContext* ctx = read.context();
  bool computed = false;
  if (std::optional<Expr> folded = Fold(producer, read, 0, &computed)) {
    // Only where the value can be used as is: a value outside the feasible
    // interval stays a runtime variable (XLA keeps out-of-range constants).
    const Interval range = RangeOverBounds(*folded, read);
    if (feasible.Contains(range)) return *folded;
    // The op clamps an iota's index into `feasible`: the clamp is folded
    // too, exactly (computed values and constants out of range stay
    // runtime variables, as XLA keeps them).
    if (clamped && !computed && !folded->IsConstant() && !range.IsEmpty() &&
        !feasible.IsEmpty()) {
      Expr value = *folded;
      if (range.upper > feasible.upper) {
        value = value.Min(ctx->Constant(feasible.upper));
      }
      if (range.lower < feasible.lower) {
        value = value.Max(ctx->Constant(feasible.lower));
      }
      return value;
    }
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

void ResolveFusionParameterRtVars(const Instruction& fusion, IndexingMap* m) {
  const hlo::Computation* called = fusion.called();
  if (!called || m->num_rt_vars() == 0 || m->IsKnownEmpty()) return;
  ExprContext* ctx = m->context();
  const int first = m->num_range_vars();
  std::vector<Variable> rt_vars;
  std::vector<Expr> symbols;
  bool changed = false;
  for (int i = 0; i < first; ++i) symbols.push_back(ctx->Symbol(i));
  for (const Variable& v : m->rt_vars()) {
    const Instruction* param = called->Find(v.producer);
    if (!param || param->opcode != Opcode::kParameter || !v.producer_map ||
        param->parameter_number < 0 ||
        param->parameter_number >= fusion.operand_count()) {
      symbols.push_back(ctx->Symbol(first + static_cast<int>(rt_vars.size())));
      rt_vars.push_back(v);
      continue;
    }
    // The parameter holds the fusion's operand: read that instead (and
    // fold it when it is a constant or an iota).
    changed = true;
    symbols.push_back(RuntimeValue(*fusion.operand(param->parameter_number),
                                   *v.producer_map, v.bounds, first, &rt_vars,
                                   /*clamped=*/false));
  }
  if (!changed) return;
  std::vector<Expr> dims;
  for (int i = 0; i < m->num_dims(); ++i) dims.push_back(ctx->Dim(i));
  for (Expr& r : m->mutable_results()) r = Substitute(r, dims, symbols);
  std::vector<Constraint> constraints;
  for (const Constraint& c : m->constraints()) {
    constraints.push_back({Substitute(c.expr, dims, symbols), c.interval});
  }
  m->mutable_rt_vars() = std::move(rt_vars);
  m->SetConstraints(std::move(constraints));
  Simplify(m);
}

}  // namespace ixa::indexing_internal
