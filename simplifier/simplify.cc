// The fixpoint driver (docs/xla-reference.md §(c) P1-P4).
//
// Each round: simplify the constraints (with ranges from the variable bounds
// only), then the results (with ranges that also use the constraints).
// Rounds repeat until nothing changes or the budget runs out; every step
// maps the map to an equal one (same domain, same values on it), so the best
// form so far is always a valid answer.
#include "simplifier/simplify.h"

#include <algorithm>

#include "core/budget.h"
#include "simplifier/constraints.h"
#include "simplifier/rewriter.h"
#include "simplifier/rule_registry.h"

namespace ixa {

std::vector<std::string> AllSimplifierRuleIds() {
  std::vector<std::string> ids = {"range.point", "div.affine_in_one_variable",
                                  "div.affine_on_box"};
  for (const auto& r : simp::SumRules()) ids.push_back(r.id);
  for (const auto& r : simp::FloorDivRules()) ids.push_back(r.id);
  for (const auto& r : simp::CeilDivRules()) ids.push_back(r.id);
  for (const auto& r : simp::ModRules()) ids.push_back(r.id);
  for (const auto& r : simp::MinMaxRules()) ids.push_back(r.id);
  for (const auto& r : simp::ConstraintRules()) ids.push_back(r.id);
  for (const char* id :
       {"constraint.always_true", "constraint.infeasible",
        "constraint.merge_mod", "constraint.merge_floordiv_form",
        "constraint.round_bounds", "constraint.propagate_bounds",
        "constraint.single_variable_values"}) {
    ids.push_back(id);
  }
  return ids;
}

SimplifyResult SimplifyWithFilter(IndexingMap* map,
                                  const SimplifyOptions& options,
                                  const simp::RuleFilter* filter) {
  SimplifyResult result;
  if (map->IsKnownEmpty() || map->context() == nullptr) return result;  // P1
  // The rules visit constraints in order, so put them in a canonical
  // (structural) order first: constraints are a set, and equal maps must
  // simplify to the same text however they were built (the parser keeps
  // text order, builders insertion order; a fuzz finding).
  auto by_structure = [](const Constraint& a, const Constraint& b) {
    return CompareExprs(a.expr, b.expr) < 0;  // exprs are distinct
  };
  const std::vector<Constraint>& given = map->constraints();
  if (!std::is_sorted(given.begin(), given.end(), by_structure)) {
    std::vector<Constraint> sorted = given;  // copied only when unsorted
    std::sort(sorted.begin(), sorted.end(), by_structure);
    map->SetConstraints(std::move(sorted));
  }
  std::vector<TraceStep>* trace = options.trace ? &result.trace : nullptr;
  bool exhausted = false;
  bool converged = false;
  int rounds = options.max_rounds < 1 ? 1 : options.max_rounds;
  for (int round = 0; round < rounds && !DeadlineExpired("simplify"); ++round) {
    bool constraints_changed =
        simp::SimplifyConstraints(map, filter, trace, &exhausted);  // P2, P3
    bool round_changed = constraints_changed;
    if (map->IsKnownEmpty()) {
      result.changed = true;
      converged = true;
      break;
    }
    // The results were simplified in the previous round under the bounds
    // and constraints that this round left unchanged: they are the
    // rewriter's fixpoint for them already.
    if (round > 0 && !constraints_changed) {
      converged = true;
      break;
    }
    simp::Rewriter rw(*map, /*use_constraints=*/true, filter, trace);  // P4
    rw.set_preserve_point_variables(options.preserve_point_variables);
    for (Expr& r : map->mutable_results()) {
      Expr s = rw.Simplify(r);
      if (s != r) {
        r = s;
        round_changed = true;
      }
    }
    if (rw.stats().budget_exhausted) exhausted = true;
    if (round_changed) result.changed = true;
    // A result is the rewriter's fixpoint for the current bounds and
    // constraints (its output is memoized as its own simplified form), so
    // another round can only help if the constraints or bounds moved.
    if (!constraints_changed) {
      converged = true;
      break;
    }
  }
  result.budget_exhausted = exhausted || !converged;
  return result;
}

SimplifyResult Simplify(IndexingMap* map, const SimplifyOptions& options) {
  return SimplifyWithFilter(map, options, nullptr);
}

}  // namespace ixa
