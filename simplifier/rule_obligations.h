// What each simplifier rule claims, written so that a prover can check it.
//
// A rule is C++ that reads ranges and facts; its obligation restates the
// rewrite as an equation between two expressions with pattern variables,
// under side conditions. The test suite proves every obligation for all
// integers that satisfy its conditions (an SMT check) and checks that the
// rule fires on instances of its left-hand side.
#ifndef IXA_SIMPLIFIER_RULE_OBLIGATIONS_H_
#define IXA_SIMPLIFIER_RULE_OBLIGATIONS_H_

#include <span>

namespace ixa {

// Syntax of `given`, `lhs` and `rhs`: ixa's expression text (`+`, `-`,
// `*`, `floordiv`, `ceildiv`, `mod`, `min(x, y)`, `max(x, y)`, integer
// literals, parentheses) over pattern names: a, b, c, x, y, z stand for
// arbitrary expressions (any integer unless `given` bounds them); k, m, n,
// and c1, c2, ... stand for the rule's constants. `given` is a list of
// comparisons (`==`, `!=`, `<=`, `<`, `>=`, `>`) joined by `&&`, or empty.
struct RuleObligation {
  const char* rule_id;  // an id from AllSimplifierRuleIds()
  const char* given;    // side conditions; "" when none
  const char* lhs;      // the expression the rule rewrites
  const char* rhs;      // what it rewrites it to
};

// Every obligation, in rule-table order. A rule may have several (one per
// case of its derivation).
std::span<const RuleObligation> RuleObligations();

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_RULE_OBLIGATIONS_H_
