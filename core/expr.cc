#include "core/expr.h"

#include <algorithm>

#include "core/bigint.h"
#include "core/int_math.h"
#include "core/node_map.h"
#include "core/substituter.h"

namespace ixa {

namespace {

size_t HashOf(ExprKind kind, int64_t value, const ExprNode* lhs,
              const ExprNode* rhs) {
  // Hash from structure hashes (not addresses) so that iteration-free uses
  // of hashes stay deterministic across runs. Two multiply-xorshift rounds:
  // the uniquing table and the simplifier's memo tables index by the low
  // bits, which the final shift mixes from the whole word.
  uint64_t h = (static_cast<uint64_t>(value) + static_cast<uint64_t>(kind)) *
               0x9E3779B97F4A7C15ull;
  h ^= lhs ? lhs->hash : 0x1234567ull;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= (h >> 29) + (rhs ? rhs->hash : 0x7654321ull);
  h *= 0x94D049BB133111EBull;
  return static_cast<size_t>(h ^ (h >> 32));
}

// ExprNode::sole_variable: the rule of SoleVariable (simplifier/
// rule_util.cc) applied to the children's answers.
uint32_t SoleVariableOf(ExprKind kind, int64_t value, const ExprNode* lhs,
                        const ExprNode* rhs) {
  constexpr int64_t kMaxEncoded = int64_t{1} << 30;
  switch (kind) {
    case ExprKind::kConstant:
      return 0;
    case ExprKind::kDim:
      return value < kMaxEncoded ? static_cast<uint32_t>(value + 1)
                                 : ExprNode::kSoleUnknown;
    case ExprKind::kSymbol:
      return value < kMaxEncoded
                 ? ExprNode::kSoleSymbolBit | static_cast<uint32_t>(value + 1)
                 : ExprNode::kSoleUnknown;
    default:
      break;
  }
  uint32_t a = lhs->sole_variable, b = rhs->sole_variable;
  if (a == ExprNode::kSoleUnknown || b == ExprNode::kSoleUnknown) {
    return ExprNode::kSoleUnknown;
  }
  if (a == 0) return lhs->kind == ExprKind::kConstant ? b : 0;
  if (b == 0) return rhs->kind == ExprKind::kConstant ? a : 0;
  return a == b ? a : 0;
}

bool IsAffineKind(ExprKind kind, const ExprNode* lhs, const ExprNode* rhs) {
  switch (kind) {
    case ExprKind::kConstant:
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      return true;
    case ExprKind::kAdd:
      return lhs->pure_affine && rhs->pure_affine;
    case ExprKind::kMul:
      return lhs->pure_affine && rhs->pure_affine &&
             (lhs->kind == ExprKind::kConstant ||
              rhs->kind == ExprKind::kConstant);
    case ExprKind::kFloorDiv:
    case ExprKind::kCeilDiv:
    case ExprKind::kMod:
      return lhs->pure_affine && rhs->kind == ExprKind::kConstant;
    case ExprKind::kMin:
    case ExprKind::kMax:
      return false;  // piecewise: flagged like semi-affine forms
  }
  return false;
}

}  // namespace

ExprContext::ExprContext() {
  block_ = inline_nodes_;
  table_ = inline_table_.data();
}
ExprContext::~ExprContext() = default;

size_t ExprContext::bytes_allocated() const {
  return node_capacity_ * sizeof(ExprNode) +
         table_size_ * sizeof(const ExprNode*);
}

void ExprContext::GrowTable() {
  size_t size = table_size_ * 2;
  auto table = std::make_unique<const ExprNode*[]>(size);  // zeroed
  size_t mask = size - 1;
  for (size_t k = 0; k < table_size_; ++k) {
    const ExprNode* n = table_[k];
    if (!n) continue;
    size_t i = n->hash & mask;
    while (table[i]) i = (i + 1) & mask;
    table[i] = n;
  }
  heap_table_ = std::move(table);
  table_ = heap_table_.get();
  table_size_ = size;
}

ExprNode* ExprContext::NewBlock() {
  block_size_ = std::min<size_t>(block_size_ * 2, 4096);
  // Every field is written before a node is used: no zero-filling.
  heap_blocks_.push_back(
      std::make_unique_for_overwrite<ExprNode[]>(block_size_));
  block_ = heap_blocks_.back().get();
  node_capacity_ += block_size_;
  block_used_ = 1;
  return &block_[0];
}

Expr ExprContext::Unique(ExprKind kind, int64_t value, Expr lhs, Expr rhs) {
  const ExprNode* l = lhs.node();
  const ExprNode* r = rhs.node();
  // The low 32 bits of the mixed hash.
  uint32_t hash = static_cast<uint32_t>(HashOf(kind, value, l, r));
  size_t mask = table_size_ - 1;
  size_t i = hash & mask;
  while (const ExprNode* n = table_[i]) {
    if (n->hash == hash && n->kind == kind && n->value == value &&
        n->lhs == l && n->rhs == r) {
      return Expr(n);
    }
    i = (i + 1) & mask;
  }
  ExprNode* node =
      block_used_ < block_size_ ? &block_[block_used_++] : NewBlock();
  node->kind = kind;
  node->value = value;
  node->lhs = l;
  node->rhs = r;
  node->ctx = this;
  node->hash = hash;
  node->sole_variable = SoleVariableOf(kind, value, l, r);
  if (l == nullptr) {  // a constant, dim or symbol
    node->pure_affine = true;
    node->depth = 1;
    node->tree_size = 1;
  } else {
    node->pure_affine = IsAffineKind(kind, l, r);
    node->depth = static_cast<uint16_t>(
        std::min<uint32_t>(65535, 1u + std::max<uint32_t>(l->depth, r->depth)));
    node->tree_size = static_cast<uint32_t>(std::min<uint64_t>(
        UINT32_MAX, uint64_t{1} + l->tree_size + r->tree_size));
  }
  table_[i] = node;
  ++num_nodes_;
  if (num_nodes_ * 2 > table_size_) GrowTable();
  return Expr(node);
}

Expr ExprContext::Constant(int64_t v) {
  if (v >= kSmallConstantMin && v <= kSmallConstantMax) {
    auto& slot = small_constants_[v - kSmallConstantMin];
    if (!slot) slot = Unique(ExprKind::kConstant, v, Expr(), Expr()).node();
    return Expr(slot);
  }
  return Unique(ExprKind::kConstant, v, Expr(), Expr());
}

Expr ExprContext::Dim(int64_t position) {
  IXA_CHECK(position >= 0);
  if (static_cast<size_t>(position) < kCachedPositions) {
    auto& slot = dims_[position];
    if (!slot) slot = Unique(ExprKind::kDim, position, Expr(), Expr()).node();
    return Expr(slot);
  }
  return Unique(ExprKind::kDim, position, Expr(), Expr());
}

Expr ExprContext::Symbol(int64_t position) {
  IXA_CHECK(position >= 0);
  if (static_cast<size_t>(position) < kCachedPositions) {
    auto& slot = symbols_[position];
    if (!slot) {
      slot = Unique(ExprKind::kSymbol, position, Expr(), Expr()).node();
    }
    return Expr(slot);
  }
  return Unique(ExprKind::kSymbol, position, Expr(), Expr());
}

Expr ExprContext::Add(Expr a, Expr b) {
  IXA_CHECK(a && b);
  if (a.IsConstant() && b.IsConstant()) {
    if (auto v = CheckedAdd(a.constant(), b.constant())) return Constant(*v);
  }
  if (a.IsConstant() && !b.IsConstant()) std::swap(a, b);  // constant right
  if (b.IsConstant(0)) return a;
  return Unique(ExprKind::kAdd, 0, a, b);
}

Expr ExprContext::Mul(Expr a, Expr b) {
  IXA_CHECK(a && b);
  if (a.IsConstant() && b.IsConstant()) {
    if (auto v = CheckedMul(a.constant(), b.constant())) return Constant(*v);
  }
  if (a.IsConstant() && !b.IsConstant()) std::swap(a, b);  // constant right
  if (b.IsConstant(1)) return a;
  if (b.IsConstant(0)) return b;
  return Unique(ExprKind::kMul, 0, a, b);
}

Expr ExprContext::Sub(Expr a, Expr b) { return Add(a, Neg(b)); }
Expr ExprContext::Neg(Expr a) { return Mul(a, Constant(-1)); }

Expr ExprContext::FloorDiv(Expr a, Expr b) {
  IXA_CHECK(a && b);
  IXA_CHECK_MSG(!b.IsConstant(0), "floordiv by the constant 0");
  if (a.IsConstant() && b.IsConstant()) {
    if (auto v = ixa::FloorDiv(a.constant(), b.constant())) return Constant(*v);
  }
  return Unique(ExprKind::kFloorDiv, 0, a, b);
}

Expr ExprContext::CeilDiv(Expr a, Expr b) {
  IXA_CHECK(a && b);
  IXA_CHECK_MSG(!b.IsConstant(0), "ceildiv by the constant 0");
  if (a.IsConstant() && b.IsConstant()) {
    if (auto v = ixa::CeilDiv(a.constant(), b.constant())) return Constant(*v);
  }
  return Unique(ExprKind::kCeilDiv, 0, a, b);
}

Expr ExprContext::Mod(Expr a, Expr b) {
  IXA_CHECK(a && b);
  IXA_CHECK_MSG(!b.IsConstant(0), "mod by the constant 0");
  if (a.IsConstant() && b.IsConstant()) {
    if (auto v = ixa::Mod(a.constant(), b.constant())) return Constant(*v);
  }
  return Unique(ExprKind::kMod, 0, a, b);
}

Expr ExprContext::Min(Expr a, Expr b) {
  IXA_CHECK(a && b);
  if (a.IsConstant() && b.IsConstant()) {
    return Constant(std::min(a.constant(), b.constant()));
  }
  return Unique(ExprKind::kMin, 0, a, b);
}

Expr ExprContext::Max(Expr a, Expr b) {
  IXA_CHECK(a && b);
  if (a.IsConstant() && b.IsConstant()) {
    return Constant(std::max(a.constant(), b.constant()));
  }
  return Unique(ExprKind::kMax, 0, a, b);
}

Expr ExprContext::Binary(ExprKind kind, Expr a, Expr b) {
  switch (kind) {
    case ExprKind::kAdd:
      return Add(a, b);
    case ExprKind::kMul:
      return Mul(a, b);
    case ExprKind::kFloorDiv:
      return FloorDiv(a, b);
    case ExprKind::kCeilDiv:
      return CeilDiv(a, b);
    case ExprKind::kMod:
      return Mod(a, b);
    case ExprKind::kMin:
      return Min(a, b);
    case ExprKind::kMax:
      return Max(a, b);
    case ExprKind::kConstant:
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      break;
  }
  IXA_CHECK_MSG(false, "Binary() with a leaf kind");
}

Expr Expr::operator+(Expr o) const { return context()->Add(*this, o); }
Expr Expr::operator+(int64_t c) const {
  return context()->Add(*this, context()->Constant(c));
}
Expr Expr::operator-(Expr o) const { return context()->Sub(*this, o); }
Expr Expr::operator-(int64_t c) const {
  if (c == kInt64Min) {  // -c does not fit: add it in two steps
    return context()->Add(context()->Add(*this, context()->Constant(kInt64Max)),
                          context()->Constant(1));
  }
  return context()->Add(*this, context()->Constant(-c));
}
Expr Expr::operator-() const { return context()->Neg(*this); }
Expr Expr::operator*(Expr o) const { return context()->Mul(*this, o); }
Expr Expr::operator*(int64_t c) const {
  return context()->Mul(*this, context()->Constant(c));
}
Expr Expr::FloorDiv(Expr o) const { return context()->FloorDiv(*this, o); }
Expr Expr::FloorDiv(int64_t c) const {
  return context()->FloorDiv(*this, context()->Constant(c));
}
Expr Expr::CeilDiv(Expr o) const { return context()->CeilDiv(*this, o); }
Expr Expr::CeilDiv(int64_t c) const {
  return context()->CeilDiv(*this, context()->Constant(c));
}
Expr Expr::operator%(Expr o) const { return context()->Mod(*this, o); }
Expr Expr::operator%(int64_t c) const {
  return context()->Mod(*this, context()->Constant(c));
}
Expr Expr::Min(Expr o) const { return context()->Min(*this, o); }
Expr Expr::Max(Expr o) const { return context()->Max(*this, o); }

namespace {

// Exact evaluation with BigInt; used only after the int64 path overflowed.
Result<BigInt> EvaluateBig(Expr e, std::span<const int64_t> dims,
                           std::span<const int64_t> symbols) {
  switch (e.kind()) {
    case ExprKind::kConstant:
      return BigInt(e.constant());
    case ExprKind::kDim:
      if (static_cast<size_t>(e.position()) >= dims.size()) {
        return Error::Invalid("expression uses a variable that was not given");
      }
      return BigInt(dims[e.position()]);
    case ExprKind::kSymbol:
      if (static_cast<size_t>(e.position()) >= symbols.size()) {
        return Error::Invalid("expression uses a variable that was not given");
      }
      return BigInt(symbols[e.position()]);
    default:
      break;
  }
  IXA_ASSIGN_OR_RETURN(BigInt l, EvaluateBig(e.lhs(), dims, symbols));
  IXA_ASSIGN_OR_RETURN(BigInt r, EvaluateBig(e.rhs(), dims, symbols));
  switch (e.kind()) {
    case ExprKind::kAdd:
      return l + r;
    case ExprKind::kMul:
      return l * r;
    case ExprKind::kMin:
      return r < l ? r : l;
    case ExprKind::kMax:
      return l < r ? r : l;
    default:
      break;
  }
  if (r.IsZero()) return Error::Invalid("division by zero in evaluation");
  if (e.kind() == ExprKind::kFloorDiv) return l.FloorDiv(r);
  if (e.kind() == ExprKind::kCeilDiv) return l.CeilDiv(r);
  return l.Mod(r);
}

enum class EvalStatus { kOk, kOverflow, kDivByZero, kBadPosition };

EvalStatus EvaluateFast(Expr e, std::span<const int64_t> dims,
                        std::span<const int64_t> symbols, int64_t* out) {
  switch (e.kind()) {
    case ExprKind::kConstant:
      *out = e.constant();
      return EvalStatus::kOk;
    case ExprKind::kDim:
      if (static_cast<size_t>(e.position()) >= dims.size()) {
        return EvalStatus::kBadPosition;
      }
      *out = dims[e.position()];
      return EvalStatus::kOk;
    case ExprKind::kSymbol:
      if (static_cast<size_t>(e.position()) >= symbols.size()) {
        return EvalStatus::kBadPosition;
      }
      *out = symbols[e.position()];
      return EvalStatus::kOk;
    default:
      break;
  }
  int64_t l, r;
  if (auto s = EvaluateFast(e.lhs(), dims, symbols, &l); s != EvalStatus::kOk) {
    return s;
  }
  if (auto s = EvaluateFast(e.rhs(), dims, symbols, &r); s != EvalStatus::kOk) {
    return s;
  }
  std::optional<int64_t> v;
  switch (e.kind()) {
    case ExprKind::kAdd:
      v = CheckedAdd(l, r);
      break;
    case ExprKind::kMul:
      v = CheckedMul(l, r);
      break;
    case ExprKind::kFloorDiv:
      if (r == 0) return EvalStatus::kDivByZero;
      v = ixa::FloorDiv(l, r);
      break;
    case ExprKind::kCeilDiv:
      if (r == 0) return EvalStatus::kDivByZero;
      v = ixa::CeilDiv(l, r);
      break;
    case ExprKind::kMod:
      if (r == 0) return EvalStatus::kDivByZero;
      v = ixa::Mod(l, r);
      break;
    case ExprKind::kMin:
      v = std::min(l, r);
      break;
    case ExprKind::kMax:
      v = std::max(l, r);
      break;
    case ExprKind::kConstant:
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      break;  // handled above
  }
  if (!v) return EvalStatus::kOverflow;
  *out = *v;
  return EvalStatus::kOk;
}

}  // namespace

namespace {

// Evaluates in int64 where that is exact, else exactly in multiprecision;
// a value past int64 goes to `past_int64` (the callers differ only there).
template <typename PastInt64>
Result<int64_t> EvaluateExactly(Expr e, std::span<const int64_t> dims,
                                std::span<const int64_t> symbols,
                                PastInt64 past_int64) {
  int64_t out;
  switch (EvaluateFast(e, dims, symbols, &out)) {
    case EvalStatus::kOk:
      return out;
    case EvalStatus::kDivByZero:
      return Error::Invalid("division by zero in evaluation");
    case EvalStatus::kBadPosition:
      return Error::Invalid("expression uses a variable that was not given");
    case EvalStatus::kOverflow:
      break;
  }
  IXA_ASSIGN_OR_RETURN(BigInt big, EvaluateBig(e, dims, symbols));
  if (auto v = big.ToInt64()) return *v;
  return past_int64(big);
}

}  // namespace

Result<int64_t> Evaluate(Expr e, std::span<const int64_t> dims,
                         std::span<const int64_t> symbols) {
  return EvaluateExactly(e, dims, symbols,
                         [](const BigInt& big) -> Result<int64_t> {
                           return Error::Invalid("value " + big.ToString() +
                                                 " does not fit in int64");
                         });
}

Result<int64_t> EvaluateSaturated(Expr e, std::span<const int64_t> dims,
                                  std::span<const int64_t> symbols) {
  return EvaluateExactly(e, dims, symbols,
                         [](const BigInt& big) -> Result<int64_t> {
                           return big < BigInt(0) ? kInt64Min : kInt64Max;
                         });
}

Expr Substituter::Run(Expr x) {
  switch (x.kind()) {
    case ExprKind::kConstant:
      return x;
    case ExprKind::kDim:
      return static_cast<size_t>(x.position()) < dims_.size()
                 ? dims_[x.position()]
                 : x;
    case ExprKind::kSymbol:
      return static_cast<size_t>(x.position()) < symbols_.size()
                 ? symbols_[x.position()]
                 : x;
    default:
      break;
  }
  if (const Expr* known = memo_.Find(x.node())) return *known;
  Expr l = Run(x.lhs());
  if (!l) return Expr();
  Expr r = Run(x.rhs());
  if (!r) return Expr();
  const bool divides = x.kind() == ExprKind::kFloorDiv ||
                       x.kind() == ExprKind::kCeilDiv ||
                       x.kind() == ExprKind::kMod;
  if (zero_divisor_fails_ && divides && r.IsConstant(0)) return Expr();
  Expr out =
      (l == x.lhs() && r == x.rhs()) ? x : x.context()->Binary(x.kind(), l, r);
  memo_.Put(x.node(), out);
  return out;
}

Expr Substitute(Expr e, std::span<const Expr> dim_replacements,
                std::span<const Expr> symbol_replacements) {
  return Substituter(dim_replacements, symbol_replacements).Run(e);
}

void VisitNodes(Expr e, const std::function<void(Expr)>& f) {
  if (e.IsBinary()) {
    VisitNodes(e.lhs(), f);
    VisitNodes(e.rhs(), f);
  }
  f(e);
}

void CollectVariables(Expr e, std::vector<bool>* used_dims,
                      std::vector<bool>* used_symbols) {
  switch (e.kind()) {
    case ExprKind::kConstant:
      return;
    case ExprKind::kDim:
      if (used_dims) {
        if (used_dims->size() <= static_cast<size_t>(e.position())) {
          used_dims->resize(e.position() + 1, false);
        }
        (*used_dims)[e.position()] = true;
      }
      return;
    case ExprKind::kSymbol:
      if (used_symbols) {
        if (used_symbols->size() <= static_cast<size_t>(e.position())) {
          used_symbols->resize(e.position() + 1, false);
        }
        (*used_symbols)[e.position()] = true;
      }
      return;
    default:
      CollectVariables(e.lhs(), used_dims, used_symbols);
      CollectVariables(e.rhs(), used_dims, used_symbols);
  }
}

int CountDivMod(Expr e) {
  if (!e.IsBinary()) return 0;
  int own = IsDivModKind(e.kind()) ? 1 : 0;
  return own + CountDivMod(e.lhs()) + CountDivMod(e.rhs());
}

int CountMinMax(Expr e) {
  if (!e.IsBinary()) return 0;
  return (IsMinMaxKind(e.kind()) ? 1 : 0) + CountMinMax(e.lhs()) +
         CountMinMax(e.rhs());
}

int CompareExprs(Expr a, Expr b) {
  if (a == b) return 0;
  if (a.kind() != b.kind()) return a.kind() < b.kind() ? -1 : 1;
  if (!a.IsBinary()) {
    return a.constant() < b.constant() ? -1 : (a.constant() > b.constant());
  }
  if (int c = CompareExprs(a.lhs(), b.lhs())) return c;
  return CompareExprs(a.rhs(), b.rhs());
}

}  // namespace ixa
