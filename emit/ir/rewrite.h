// Rewriting the kernel IR: rebuilding expression trees with some nodes
// replaced (sharing preserved), renaming the names a block defines, and
// composing chains of indexing-map applications into one simplified map
// over the leaves (loop variables, grid ids, arguments, runtime values).
#ifndef IXA_EMIT_IR_REWRITE_H_
#define IXA_EMIT_IR_REWRITE_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "emit/ir/kernel_ir.h"

namespace ixa::emit::ir {

// Pre-order: `f` returns a replacement for a node, or nullopt to descend.
using Rewriter = std::function<std::optional<Val>(const Val&)>;

class ValRewriter {
 public:
  explicit ValRewriter(Rewriter f) : f_(std::move(f)) {}
  Val Rewrite(const Val& v);
  // Every value of every statement of the block (recursively).
  void RewriteBlock(Block* block);
  void RewriteStmt(Stmt* s);

 private:
  Rewriter f_;
  std::unordered_map<const Node*, Val> memo_;
};

// A copy of `n` with new operands (Apply ranges recomputed).
Val WithOperands(const Node& n, std::vector<Val> operands);

// Renames every name the block defines (lets, declared variables, loop
// variables, call results, shuffles) by appending `suffix`, and the
// references to them; names in `extra` are renamed too (and must be
// defined by the caller).
void RenameDefinitions(Block* block, const std::string& suffix,
                       const std::map<std::string, std::string>& extra = {});
// Names a block defines (recursively).
std::vector<std::string> DefinedNames(const Block& block);

// Composes index expressions: chains of Apply nodes and index-typed lets
// (looked up in `lets`) over leaves become one indexing map whose dims are
// the leaves (bounded by their ranges), simplified.
class IndexComposer {
 public:
  explicit IndexComposer(ExprContext* ctx) : ctx_(ctx) {}
  // Index-typed lets visible at the point of use: name -> definition.
  void SetLets(const std::map<std::string, Val>* lets) { lets_ = lets; }
  // `after(indices)` (or the indices themselves when `after` is null) as
  // Apply nodes of one composed, simplified map; constants fold.
  Result<std::vector<Val>> Compose(const std::vector<Val>& indices,
                                   const IndexingMap* after);

 private:
  Expr ExprOf(const Val& v);
  ExprContext* ctx_;
  const std::map<std::string, Val>* lets_ = nullptr;
  std::vector<Val> leaves_;
  std::map<const Node*, int> leaf_of_;
  std::map<std::string, int> leaf_of_var_;
  // The expression of each Apply node already composed: index values share
  // subtrees (a reshape's results all read the previous op's results), so
  // an unmemoized walk is exponential in the depth of a chain.
  std::unordered_map<const Node*, Expr> apply_expr_;
};

}  // namespace ixa::emit::ir

#endif  // IXA_EMIT_IR_REWRITE_H_
