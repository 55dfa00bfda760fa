// Substitution of dims and symbols over many expressions with one memo.
// Substitute (core/expr.h) is the one-expression form; composition keeps a
// Substituter for all results of a map, and asks that a divisor turned into
// the constant 0 be reported rather than built.
#ifndef IXA_CORE_SUBSTITUTER_H_
#define IXA_CORE_SUBSTITUTER_H_

#include <span>

#include "core/expr.h"
#include "core/node_map.h"

namespace ixa {

// Replaces dims and symbols by the given expressions (a position beyond a
// replacement list keeps its variable), rebuilding with trivial folding
// only. The memo covers shared subtrees (hash-consing makes DAGs common,
// e.g. `x floordiv 8 * 8 + x mod 8`; without it a tower of such sums would
// be rebuilt exponentially often). Only binary nodes are memoized.
class Substituter {
 public:
  // With `zero_divisor_fails`, a divisor that becomes the constant 0 (`100
  // mod d0` with d0 replaced by 0) makes Run return a null Expr; without
  // it, building such a node is a broken invariant.
  Substituter(std::span<const Expr> dims, std::span<const Expr> symbols,
              bool zero_divisor_fails = false)
      : dims_(dims),
        symbols_(symbols),
        zero_divisor_fails_(zero_divisor_fails) {}

  Expr Run(Expr x);

 private:
  std::span<const Expr> dims_, symbols_;
  bool zero_divisor_fails_;
  NodeMap<Expr> memo_;
};

}  // namespace ixa

#endif  // IXA_CORE_SUBSTITUTER_H_
