// What each simplifier rule claims, written so that a prover can check it.
//
// A rule is C++ that reads ranges and facts; its obligation restates the
// rewrite as an equation between two expressions with pattern variables,
// under side conditions. The test suite proves every obligation for all
// integers that satisfy its conditions (an SMT check,
// tests/simplifier/prove_rules.py, reading `ixa rules --json`) and checks
// that the rule fires on instances of its left-hand side.
#ifndef IXA_SIMPLIFIER_RULE_OBLIGATIONS_H_
#define IXA_SIMPLIFIER_RULE_OBLIGATIONS_H_

#include <span>

namespace ixa {

// Syntax of `given`, `lhs` and `rhs`: ixa's expression text (`+`, `-`,
// `*`, `floordiv`, `ceildiv`, `mod`, `min(x, y)`, `max(x, y)`, integer
// literals, parentheses; also `gcd(m, n)` and `lcm(m, n)` of constants)
// over pattern names: a, b, c, x, y, z stand for
// arbitrary expressions (any integer unless `given` bounds them); every
// other name (k, m, n, c1, c2, ...) stands for one of the rule's constants.
// Integer semantics are ixa's (core/int_math.h): floordiv rounds toward
// -infinity for either sign of the divisor, mod(a, b) = a - b * floordiv(a,
// b), ceildiv(a, b) = -floordiv(-a, b).
//
// A condition is `true`, `false`, a comparison (`==`, `!=`, `<=`, `<`,
// `>=`, `>`), `e in [l, u]` (l <= e && e <= u), or conditions joined by
// `&&` and `||` (`&&` binds tighter) and grouped by parentheses.
//
// `given` is a condition ("" when none). It states the rule's side
// conditions pointwise: a rule that checks a fact about the range of a
// subexpression (range(a) lies in [m*D, m*D + D - 1]) has the obligation
// under the condition at each point (m*D <= a && a <= m*D + D - 1), which
// the range fact implies at every point of the domain. A constant that
// occurs only in `given` and `rhs` is one the rule computes (m above): the
// obligation holds for the value that satisfies `given`. A constant that
// occurs only in `given` is a witness: `k * m == n * j` says that n
// divides k*m (j = k*m / n), `k == -h` that k is the negation of h. The
// prover reads such an equation `P == Q`, P a product of names, as
// "replace P by Q" in both sides, which is how the derivation uses it
// (tests/simplifier/prove_rules.py).
//
// An expression rule's `lhs` and `rhs` are expressions, and the obligation
// is `given => lhs == rhs`, with every divisor of `rhs` non-zero wherever
// those of `lhs` are. A constraint rule's `lhs` and `rhs` are conditions
// (the constraints and variable bounds before and after, `e in [l, u]`
// joined by `&&`, or `true` / `false` for a dropped constraint / an empty
// domain), and the obligation is `given => (lhs <=> rhs)`. In a constraint
// obligation `v in [p, q]` for a bare pattern variable v is v's bounds. An
// interval end at the int64 limits is "no bound" and the rules keep it as
// it is; the obligations are stated for finite ends.
struct RuleObligation {
  const char* rule_id;  // an id from AllSimplifierRuleIds()
  const char* given;    // side conditions; "" when none
  const char* lhs;      // the expression (or condition) the rule rewrites
  const char* rhs;      // what it rewrites it to
};

// Every obligation, in rule-table order. A rule may have several (one per
// case of its derivation).
std::span<const RuleObligation> RuleObligations();

}  // namespace ixa

#endif  // IXA_SIMPLIFIER_RULE_OBLIGATIONS_H_
