// The expression rewriter: simplifies an expression bottom-up over one map's
// variable bounds (and, for results, its constraints), computing Facts per
// node and trying each operator's rule table in order.
//
// Within one Rewriter every node is simplified once (memoized) and its facts
// are computed once. A Rewriter must be rebuilt when the map's bounds or
// constraints change.
#ifndef IXA_SIMPLIFIER_REWRITER_H_
#define IXA_SIMPLIFIER_REWRITER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/node_map.h"
#include "simplifier/box_fit.h"
#include "simplifier/facts.h"
#include "simplifier/linear.h"
#include "simplifier/simplify.h"

namespace ixa::simp {

class Rewriter;
struct WideSum;  // rewriter.cc

// The per-call memo tables (core/node_map.h: inline first slots).
template <typename V>
using NodeMap = ixa::NodeMap<V>;

// What a floordiv / ceildiv / mod rule sees. `dividend` and `divisor` are
// already simplified; `sum` is the dividend in canonical linear form.
struct DivOperands {
  Expr node;  // the node being rewritten: dividend <op> divisor
  Expr dividend;
  Expr divisor;
  const LinearSum& sum;
  Facts dividend_facts;
  Facts divisor_facts;
  std::optional<int64_t> d;  // the divisor's value when it is a constant
};

// A rule returns the replacement, or nullopt when it does not apply.
// The replacement is simplified again by the rewriter.
using DivRuleFn = std::optional<Expr> (*)(Rewriter& rw, const DivOperands& in);
struct DivRule {
  const char* id;
  DivRuleFn apply;
};

// A sum rule rewrites a normalized linear sum in place; returns true if it
// changed it (the rewriter re-normalizes and retries the table). A rule
// that returns false must leave the sum untouched.
using SumRuleFn = bool (*)(Rewriter& rw, LinearSum* sum);
// What a sum rule needs among the sum's terms (all of the bits it sets),
// so that the rewriter skips it on sums without them.
enum SumNeeds : unsigned {
  kNeedsNothing = 0,
  kNeedsFloorDiv = 1,  // a floordiv term
  kNeedsTwoMods = 2,   // two mod terms
  kNeedsMinMax = 4,    // a min or max term
  kNeedsProduct = 8,   // a product of two non-constants
  kNeedsMod = 16,      // a mod term
};
struct SumRule {
  const char* id;
  SumRuleFn apply;
  unsigned needs = kNeedsNothing;
};

// What a min / max rule sees: scale * `kind`(operands...) + offset, where
// the operands are simplified and the nest is folded to the left
// (min(min(a, b), c) for [a, b, c]). A rule rewrites the list in place and
// returns true if it changed it; a rule that returns false must leave it
// untouched. `offset` collects a common linear part moved out of every
// operand, `scale` a common factor (rules_minmax.cc).
struct MinMaxList {
  ExprKind kind;  // kMin or kMax
  std::vector<Expr> operands;
  LinearSum offset;
  int64_t scale = 1;
};
using MinMaxRuleFn = bool (*)(Rewriter& rw, MinMaxList* list);
struct MinMaxRule {
  const char* id;
  MinMaxRuleFn apply;
};
// scale * kind(operands folded to the left) + offset.
Expr BuildMinMax(ExprContext* ctx, const MinMaxList& list);

// The operator tables (rules_*.cc), tried in order; the first rule that
// applies wins.
std::span<const DivRule> FloorDivRules();
std::span<const DivRule> CeilDivRules();
std::span<const DivRule> ModRules();
std::span<const SumRule> SumRules();
std::span<const MinMaxRule> MinMaxRules();

// Which rules may fire. Empty `only` means all of them (the default); the
// per-rule tests enable one rule at a time. Canonicalization of sums
// (flattening, sorting, merging like terms) is always on.
struct RuleFilter {
  std::vector<std::string> only;
  bool Enabled(const char* id) const;
};

struct RewriterStats {
  int64_t rule_firings = 0;
  bool budget_exhausted = false;
};

class Rewriter {
 public:
  // `use_constraints`: intersect the range of a subexpression with the
  // interval of a constraint on the same expression (sound for results, not
  // for the constraints themselves).
  Rewriter(const IndexingMap& map, bool use_constraints,
           const RuleFilter* filter, std::vector<TraceStep>* trace);

  // Keep bare variables whose range is a point instead of replacing them by
  // their value (XLA's SimplifyPointDimensions::kPreserve).
  void set_preserve_point_variables(bool preserve) {
    preserve_point_variables_ = preserve;
  }

  ExprContext* ctx() const { return ctx_; }

  // The simplified form of e.
  Expr Simplify(Expr e);
  // Facts of an expression (meant for simplified ones; correct for any).
  Facts FactsOf(Expr e);
  // Facts of a linear sum, evaluated term by term.
  Facts FactsOfSum(const LinearSum& sum);

  // Builds and simplifies.
  Expr Build(const LinearSum& sum) { return Simplify(BuildSum(ctx_, sum)); }
  Expr Const(int64_t v) { return ctx_->Constant(v); }

  // If e equals an affine form of its variables at every point of their box
  // (the variable bounds; for results also only the values that pass the
  // single-variable constraints), returns that form. Exhaustive over at most
  // kMaxBoxPoints points and a per-Rewriter budget of evaluations, hence
  // exact (box_fit.h). Failures are remembered. With `needs_value_list`,
  // fails at once unless some variable's values are a constraint-filtered
  // list (on whole intervals, c*e is affine iff e is, so scaled copies of
  // an expression that already failed need not be tried).
  std::optional<LinearSum> AffineOnBox(Expr e, bool needs_value_list = false);

  // Forgets simplified forms but keeps facts (they depend only on the map).
  void ClearSimplifyMemo() { memo_.Clear(); }

  const RewriterStats& stats() const { return stats_; }
  bool tracing() const { return trace_ != nullptr; }
  void Record(const char* rule, Expr before, Expr after);

 private:
  Expr SimplifyUncached(Expr e);
  Expr SimplifySum(Expr e);
  Expr SimplifyDiv(Expr e);
  Expr SimplifyMinMax(Expr e);
  bool Flatten(Expr e, int64_t scale, LinearSum* acc);
  // Flatten and Normalize in 128 bits, for the sums whose int64 partial
  // sums or scaled coefficients overflow (rewriter.cc).
  bool FlattenWide(Expr e, WideSum* out);
  Expr FoldPoint(Expr e);
  std::optional<Expr> AffineInOneVariable(Expr node);
  // The values of a variable as a box axis (null values: its whole range).
  bool AxisOf(Expr var, BoxAxis* axis);
  // See div.affine_on_box in SimplifyDiv.
  bool CoveredByReduceCoefficients(const DivOperands& in) const;
  Facts ComputeFacts(Expr e);
  bool Allowed(const char* id) const {
    return filter_ == nullptr || filter_->Enabled(id);
  }

  const IndexingMap& map_;
  ExprContext* ctx_;
  const RuleFilter* filter_;
  bool preserve_point_variables_ = false;
  std::vector<TraceStep>* trace_;
  NodeMap<Interval> constraint_ranges_;
  NodeMap<Expr> memo_;
  NodeMap<Facts> facts_;
  RewriterStats stats_;
  int depth_ = 0;
  // Single-variable constraints (results only) and the values they allow,
  // computed on first use; nullopt: too many values to list.
  struct VariableConstraint {
    Expr var;
    Expr expr;
    Interval interval;
  };
  std::vector<VariableConstraint> variable_constraints_;
  std::unordered_map<const ExprNode*, std::optional<std::vector<int64_t>>>
      allowed_values_;
  std::vector<const ExprNode*> box_failures_;
  int64_t box_budget_;
};

// Stops runaway rewriting inside one Rewriter: after this many rule
// firings no rule fires any more and the stats say the budget ran out.
inline constexpr int64_t kMaxRuleFirings = 100000;
// div.affine_in_one_variable probes at most this many values.
inline constexpr int64_t kMaxAffineProbe = 64;
// The affine_on_box rules evaluate at most this many points per Rewriter.
inline constexpr int64_t kMaxBoxEvaluations = 1 << 15;
// Nesting limit for re-simplifying rule outputs.
inline constexpr int kMaxRewriteDepth = 200;

}  // namespace ixa::simp

#endif  // IXA_SIMPLIFIER_REWRITER_H_
