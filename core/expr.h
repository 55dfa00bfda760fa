// Affine expressions: immutable, hash-consed nodes owned by an ExprContext,
// as MLIR's AffineExpr. An Expr is a pointer-sized handle; two Exprs are
// equal iff they are the same node. Construction folds only trivial cases,
// so every other rewrite lives in simplifier/ where it is tested: constant
// operands, x + 0, x * 1, x * 0, and constants moved to the right of + and *.
// Every other rewrite lives in simplifier/.
//
// Besides MLIR's affine operators, expressions may hold `min(a, b)` and
// `max(a, b)` (XLA's symbolic expressions, 2026): first-class binary nodes,
// never pure affine, folded at construction only when both operands are
// constants.
#ifndef IXA_CORE_EXPR_H_
#define IXA_CORE_EXPR_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "core/result.h"

namespace ixa {

enum class ExprKind : uint8_t {
  kConstant,
  kDim,
  kSymbol,
  kAdd,
  kMul,
  kFloorDiv,
  kCeilDiv,
  kMod,
  kMin,  // min(lhs, rhs)
  kMax,  // max(lhs, rhs)
};

// floordiv, ceildiv or mod.
inline bool IsDivModKind(ExprKind k) {
  return k == ExprKind::kFloorDiv || k == ExprKind::kCeilDiv ||
         k == ExprKind::kMod;
}
// min or max.
inline bool IsMinMaxKind(ExprKind k) {
  return k == ExprKind::kMin || k == ExprKind::kMax;
}

class ExprContext;

struct ExprNode {
  ExprKind kind;
  // True when the node is affine in MLIR's sense: every multiplication has a
  // constant factor, every divisor is a constant and there is no min / max.
  // Semi-affine nodes (a symbol as multiplier or divisor) and min / max
  // parse, print and evaluate, and rules may refuse them.
  bool pure_affine;
  uint16_t depth;  // 1 for leaves; saturates at 65535
  uint32_t hash;   // structural (never an address)
  int64_t value;   // constant value, or dim / symbol position
  const ExprNode* lhs;
  const ExprNode* rhs;
  ExprContext* ctx;
  // Structural facts computed once, at construction, for walks that would
  // otherwise redo them per query (they are on the hot paths):
  // Nodes of the expression written out as a tree (shared subexpressions
  // counted once per use); saturates at UINT32_MAX.
  uint32_t tree_size;
  // The variable SoleVariable (simplifier/rule_util.h) finds: 0 for none,
  // kSoleUnknown when a position is too large to encode here (then it is
  // computed by walking), else 1 + position, with bit 31 set for a symbol.
  uint32_t sole_variable;
  static constexpr uint32_t kSoleUnknown = 0x7FFFFFFF;
  static constexpr uint32_t kSoleSymbolBit = 0x80000000;
};
static_assert(sizeof(ExprNode) == 48, "keep nodes at six words");

class Expr {
 public:
  Expr() = default;
  explicit Expr(const ExprNode* node) : node_(node) {}

  explicit operator bool() const { return node_ != nullptr; }
  bool operator==(const Expr& o) const { return node_ == o.node_; }
  bool operator!=(const Expr& o) const { return node_ != o.node_; }

  const ExprNode* node() const { return node_; }
  ExprKind kind() const { return node_->kind; }
  ExprContext* context() const { return node_->ctx; }
  bool IsConstant() const { return node_->kind == ExprKind::kConstant; }
  bool IsConstant(int64_t v) const { return IsConstant() && node_->value == v; }
  bool IsDim() const { return node_->kind == ExprKind::kDim; }
  bool IsSymbol() const { return node_->kind == ExprKind::kSymbol; }
  bool IsVariable() const { return IsDim() || IsSymbol(); }
  bool IsBinary() const { return node_->kind >= ExprKind::kAdd; }
  bool IsPureAffine() const { return node_->pure_affine; }
  int64_t constant() const { return node_->value; }
  int64_t position() const { return node_->value; }
  Expr lhs() const { return Expr(node_->lhs); }
  Expr rhs() const { return Expr(node_->rhs); }
  // Saturates at 65535 (the parser refuses trees over 2000 levels).
  uint32_t depth() const { return node_->depth; }
  size_t hash() const { return node_->hash; }
  // Tree size: see ExprNode::tree_size.
  uint32_t tree_size() const { return node_->tree_size; }

  // Builders through the owning context (trivial folding only).
  Expr operator+(Expr o) const;
  Expr operator+(int64_t c) const;
  Expr operator-(Expr o) const;
  Expr operator-(int64_t c) const;
  Expr operator-() const;
  Expr operator*(Expr o) const;
  Expr operator*(int64_t c) const;
  Expr FloorDiv(Expr o) const;
  Expr FloorDiv(int64_t c) const;
  Expr CeilDiv(Expr o) const;
  Expr CeilDiv(int64_t c) const;
  Expr operator%(Expr o) const;
  Expr operator%(int64_t c) const;
  Expr Min(Expr o) const;
  Expr Max(Expr o) const;

 private:
  const ExprNode* node_ = nullptr;
};

struct ExprHash {
  size_t operator()(Expr e) const { return std::hash<const void*>()(e.node()); }
};

// Owns expression nodes: an arena plus a uniquing hash set. Not thread-safe;
// use one context per query (as isl_ctx is used).
class ExprContext {
 public:
  ExprContext();
  ~ExprContext();
  ExprContext(const ExprContext&) = delete;
  ExprContext& operator=(const ExprContext&) = delete;

  Expr Constant(int64_t v);
  Expr Dim(int64_t position);
  Expr Symbol(int64_t position);
  Expr Add(Expr a, Expr b);
  Expr Sub(Expr a, Expr b);
  Expr Neg(Expr a);
  Expr Mul(Expr a, Expr b);
  // The divisor must not be the constant 0 (callers validate input; a zero
  // constant divisor here is a broken invariant).
  Expr FloorDiv(Expr a, Expr b);
  Expr CeilDiv(Expr a, Expr b);
  Expr Mod(Expr a, Expr b);
  // min(a, b) / max(a, b); folded only when both are constants.
  Expr Min(Expr a, Expr b);
  Expr Max(Expr a, Expr b);
  // Generic binary builder by kind (kAdd ... kMax).
  Expr Binary(ExprKind kind, Expr a, Expr b);

  size_t num_nodes() const { return num_nodes_; }
  size_t bytes_allocated() const;

  // State a higher layer keeps per context and that dies with it, because
  // it names this context's nodes (a node address is only meaningful while
  // its context lives). One slot: the simplifier's record of failed box
  // fits (simplifier/box_fit.cc), which repeat across the steps of a
  // composition chain.
  class Attachment {
   public:
    virtual ~Attachment() = default;
    // Identifies the owner's type without RTTI (the address of a static
    // object of the owner).
    virtual const void* kind() const = 0;
  };
  Attachment* attachment() const { return attachment_.get(); }
  void set_attachment(std::unique_ptr<Attachment> a) {
    attachment_ = std::move(a);
  }

 private:
  Expr Unique(ExprKind kind, int64_t value, Expr lhs, Expr rhs);
  ExprNode* NewBlock();  // a node in a new block, when the current is full
  void GrowTable();

  // Small contexts (one per query; most hold a few dozen nodes) live
  // entirely inside the object: the first block of nodes, the first
  // uniquing table and the caches of variables and small constants. Past
  // them, node blocks double up to 4096 nodes and the table doubles.
  static constexpr size_t kInlineNodes = 64;
  static constexpr size_t kInlineTableSize = 128;  // a power of two
  static constexpr size_t kCachedPositions = 16;
  static constexpr int64_t kSmallConstantMin = -16;
  static constexpr int64_t kSmallConstantMax = 64;

  ExprNode* block_ = nullptr;  // the block being filled
  size_t block_used_ = 0;
  size_t block_size_ = kInlineNodes;
  size_t node_capacity_ = kInlineNodes;
  std::vector<std::unique_ptr<ExprNode[]>> heap_blocks_;
  const ExprNode** table_ = nullptr;  // inline_table_ or heap_table_
  size_t table_size_ = kInlineTableSize;
  std::unique_ptr<const ExprNode*[]> heap_table_;
  size_t num_nodes_ = 0;
  std::array<const ExprNode*, kCachedPositions> dims_{}, symbols_{};
  std::array<const ExprNode*, kSmallConstantMax - kSmallConstantMin + 1>
      small_constants_{};
  std::array<const ExprNode*, kInlineTableSize> inline_table_{};
  ExprNode inline_nodes_[kInlineNodes];
  std::unique_ptr<Attachment> attachment_;
};

// Evaluates e at a point. Errors: a zero divisor (only possible with a
// semi-affine divisor), an out-of-range position, or a result that does not
// fit in int64 (intermediate overflow is recomputed exactly with BigInt, so
// only the final value must fit).
Result<int64_t> Evaluate(Expr e, std::span<const int64_t> dims,
                         std::span<const int64_t> symbols);

// Evaluate, with a value past int64 clamped to the nearest int64 limit
// instead of an error (the other errors stay). Exact wherever the value
// fits; a clamped value compares against an interval with sentinel ends
// as the exact value would (`v in [l, INT64_MAX]` holds for every v >= l),
// which is how constraints read (IndexingMap::InDomain).
Result<int64_t> EvaluateSaturated(Expr e, std::span<const int64_t> dims,
                                  std::span<const int64_t> symbols);

// Replaces dims and symbols by the given expressions. A position beyond the
// replacement list keeps its variable. Rebuilds with trivial folding only.
Expr Substitute(Expr e, std::span<const Expr> dim_replacements,
                std::span<const Expr> symbol_replacements);

// Calls f on every node of e once (post-order).
void VisitNodes(Expr e, const std::function<void(Expr)>& f);

// Marks used variables: used_dims[i] / used_symbols[i] set to true when e
// mentions them (vectors are grown as needed).
void CollectVariables(Expr e, std::vector<bool>* used_dims,
                      std::vector<bool>* used_symbols);

// Number of floordiv / ceildiv / mod nodes in the tree (counted with
// multiplicity).
int CountDivMod(Expr e);

// Number of min / max nodes in the tree (counted with multiplicity).
int CountMinMax(Expr e);

// A total order on expressions that depends only on structure (never on
// addresses), used wherever output order matters.
int CompareExprs(Expr a, Expr b);

}  // namespace ixa

#endif  // IXA_CORE_EXPR_H_
