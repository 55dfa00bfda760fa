// Constraint rules. Each rule maps `e in [l, u]` to an equivalent constraint
// (the same set of points satisfies it), so the domain never changes.
// Interval ends at the int64 limits are "unbounded" and stay unbounded;
// a finite end whose new value would overflow makes the rule refuse.
//
// Termination: every rule shrinks the expression (drops a constant, a
// common factor, a floordiv node or low terms), except constraint.negate,
// which fires only when the leading coefficient is negative and leaves it
// positive, and constraint.tighten_to_range, which only narrows the
// interval to the expression's range (a second application is a no-op).
#include "simplifier/constraints.h"

#include <algorithm>
#include <map>

#include "core/small_vector.h"
#include "core/text.h"
#include "simplifier/box_fit.h"
#include "simplifier/rule_util.h"

namespace ixa::simp {

namespace {

bool IsLowerInf(int64_t v) { return v == kInt64Min; }
bool IsUpperInf(int64_t v) { return v == kInt64Max; }

// Applies f to a finite end; an unbounded end stays as is. nullopt when f
// overflows.
template <typename F>
std::optional<Interval> MapEnds(const Interval& iv, F f) {
  Interval out = iv;
  if (!IsLowerInf(iv.lower)) {
    auto v = f(iv.lower, /*is_lower=*/true);
    if (!v || IsLowerInf(*v) || IsUpperInf(*v)) return std::nullopt;
    out.lower = *v;
  }
  if (!IsUpperInf(iv.upper)) {
    auto v = f(iv.upper, /*is_lower=*/false);
    if (!v || IsLowerInf(*v) || IsUpperInf(*v)) return std::nullopt;
    out.upper = *v;
  }
  return out;
}

// constraint.move_constant (C4): e + k in [l, u]  <=>  e in [l - k, u - k].
bool MoveConstant(Rewriter& rw, ConstraintState* c) {
  auto sum = ToLinear(c->expr);
  if (!sum || sum->terms.empty() || sum->constant == 0) return false;
  int64_t k = sum->constant;
  auto iv =
      MapEnds(c->interval, [k](int64_t v, bool) { return CheckedSub(v, k); });
  if (!iv) return false;
  sum->constant = 0;
  c->expr = rw.Build(*sum);
  c->interval = *iv;
  return true;
}

// constraint.divide_gcd (C5, gcd tightening): with g > 1 dividing every
// coefficient and no constant, g*e in [l, u]  <=>  e in [ceil(l/g),
// floor(u/g)] (e is an integer).
bool DivideGcd(Rewriter& rw, ConstraintState* c) {
  auto sum = ToLinear(c->expr);
  if (!sum || sum->terms.empty() || sum->constant != 0) return false;
  int64_t g = CoeffGcd(*sum);
  if (g <= 1 || g == kInt64Max) return false;
  auto iv = MapEnds(c->interval, [g](int64_t v, bool is_lower) {
    return is_lower ? CeilDiv(v, g) : FloorDiv(v, g);
  });
  if (!iv) return false;
  for (Term& t : sum->terms) t.coeff /= g;
  c->expr = rw.Build(*sum);
  c->interval = *iv;
  return true;
}

// constraint.negate: -e in [l, u]  <=>  e in [-u, -l]; makes the leading
// coefficient positive so that equal constraints written with opposite
// signs meet.
bool NegateConstraint(Rewriter& rw, ConstraintState* c) {
  auto sum = ToLinear(c->expr);
  if (!sum || sum->terms.empty() || sum->terms[0].coeff >= 0) return false;
  auto neg = Scaled(*sum, -1);
  if (!neg) return false;
  // A finite end of INT64_MIN (an interval [INT64_MIN, INT64_MIN]) has no
  // negation in int64.
  if (c->interval.upper == kInt64Min) return false;
  Interval iv;
  iv.lower = IsUpperInf(c->interval.upper) ? kInt64Min : -c->interval.upper;
  iv.upper = IsLowerInf(c->interval.lower) ? kInt64Max : -c->interval.lower;
  if (IsLowerInf(iv.lower) != IsUpperInf(c->interval.upper) ||
      IsUpperInf(iv.upper) != IsLowerInf(c->interval.lower)) {
    return false;  // a finite end that negates onto a limit
  }
  c->expr = rw.Build(*neg);
  c->interval = iv;
  return true;
}

// constraint.floordiv (C6): x floordiv c in [l, u] <=> x in [l*c, u*c + c - 1]
// for c > 0 (floor(x/c) >= l <=> x >= l*c; floor(x/c) <= u <=> x < (u+1)*c).
bool FloorDivConstraint(Rewriter& rw, ConstraintState* c) {
  Expr e = c->expr;
  if (!IsOpByPositiveConstant(e, ExprKind::kFloorDiv)) return false;
  int64_t d = e.rhs().constant();
  auto iv = MapEnds(c->interval,
                    [d](int64_t v, bool is_lower) -> std::optional<int64_t> {
                      auto scaled = CheckedMul(v, d);
                      if (!scaled || is_lower) return scaled;
                      return CheckedAdd(*scaled, d - 1);
                    });
  if (!iv) return false;
  c->expr = rw.Simplify(e.lhs());
  c->interval = *iv;
  return true;
}

// constraint.ceildiv: x ceildiv c in [l, u] <=> x in [(l-1)*c + 1, u*c] for
// c > 0 (ceil(x/c) >= l <=> x > (l-1)*c; ceil(x/c) <= u <=> x <= u*c).
bool CeilDivConstraint(Rewriter& rw, ConstraintState* c) {
  Expr e = c->expr;
  if (!IsOpByPositiveConstant(e, ExprKind::kCeilDiv)) return false;
  int64_t d = e.rhs().constant();
  auto iv = MapEnds(c->interval,
                    [d](int64_t v, bool is_lower) -> std::optional<int64_t> {
                      if (!is_lower) return CheckedMul(v, d);
                      auto below = CheckedSub(v, 1);
                      if (!below) return std::nullopt;
                      auto scaled = CheckedMul(*below, d);
                      if (!scaled) return std::nullopt;
                      return CheckedAdd(*scaled, 1);
                    });
  if (!iv) return false;
  c->expr = rw.Simplify(e.lhs());
  c->interval = *iv;
  return true;
}

// constraint.drop_low_part (C7, generalized): e = g*A + B with g > 1 dividing
// A's coefficients and B in [bl, bh]. For each point,
//   l <= g*A + B <= u  <=>  ceil((l - B)/g) <= A <= floor((u - B)/g).
// Both bounds are monotone in B, so if they agree at B = bl and B = bh they
// are constant over B's range and the constraint is A in [those bounds].
// `d0 * 6 + d1 in [0, 11]` with d1 in [0, 5]  ->  `d0 in [0, 1]`.
bool DropLowPart(Rewriter& rw, ConstraintState* c) {
  auto sum = ToLinear(c->expr);
  if (!sum || sum->terms.size() < 2) return false;
  std::vector<int64_t> magnitudes;
  for (const Term& t : sum->terms) {
    if (t.coeff == kInt64Min) return false;
    magnitudes.push_back(t.coeff < 0 ? -t.coeff : t.coeff);
  }
  std::vector<int64_t> thresholds = magnitudes;
  std::sort(thresholds.rbegin(), thresholds.rend());
  thresholds.erase(std::unique(thresholds.begin(), thresholds.end()),
                   thresholds.end());
  // A = terms with |coeff| >= threshold, B = the others (the low part).
  for (size_t i = 0; i + 1 < thresholds.size(); ++i) {
    LinearSum high, low;
    low.constant = sum->constant;
    for (size_t j = 0; j < sum->terms.size(); ++j) {
      (magnitudes[j] >= thresholds[i] ? high : low)
          .terms.push_back(sum->terms[j]);
    }
    int64_t g = CoeffGcd(high);
    if (g <= 1 || g == kInt64Max) continue;
    Interval b = rw.FactsOfSum(low).range;
    if (!IsFinite(b)) continue;
    const Interval& iv = c->interval;
    Interval out = iv;
    bool ok = true;
    if (!IsLowerInf(iv.lower)) {
      auto x = CheckedSub(iv.lower, b.upper), y = CheckedSub(iv.lower, b.lower);
      auto lx = x ? CeilDiv(*x, g) : std::nullopt;
      auto ly = y ? CeilDiv(*y, g) : std::nullopt;
      ok = lx && ly && *lx == *ly;
      if (ok) out.lower = *lx;
    }
    if (ok && !IsUpperInf(iv.upper)) {
      auto x = CheckedSub(iv.upper, b.lower), y = CheckedSub(iv.upper, b.upper);
      auto ux = x ? FloorDiv(*x, g) : std::nullopt;
      auto uy = y ? FloorDiv(*y, g) : std::nullopt;
      ok = ux && uy && *ux == *uy;
      if (ok) out.upper = *ux;
    }
    if (!ok || IsLowerInf(out.lower) != IsLowerInf(iv.lower) ||
        IsUpperInf(out.upper) != IsUpperInf(iv.upper)) {
      continue;
    }
    for (Term& t : high.terms) t.coeff /= g;
    c->expr = rw.Build(high);
    c->interval = out;
    return true;
  }
  return false;
}

// constraint.tighten_to_range: e in [l, u] <=> e in [l, u] ∩ range(e), since
// e never leaves its range.
bool TightenToRange(Rewriter& rw, ConstraintState* c) {
  const Interval r = rw.FactsOf(c->expr).range;
  Interval out = c->interval;
  if (!IsLowerInf(r.lower) && r.lower > out.lower) out.lower = r.lower;
  if (!IsUpperInf(r.upper) && r.upper < out.upper) out.upper = r.upper;
  if (out == c->interval || out.IsEmpty()) return false;
  c->interval = out;
  return true;
}

constexpr ConstraintRule kConstraintRules[] = {
    {"constraint.move_constant", &MoveConstant},
    {"constraint.divide_gcd", &DivideGcd},
    {"constraint.negate", &NegateConstraint},
    {"constraint.floordiv", &FloorDivConstraint},
    {"constraint.ceildiv", &CeilDivConstraint},
    {"constraint.drop_low_part", &DropLowPart},
    {"constraint.tighten_to_range", &TightenToRange},
};

// The rules that put a linear constraint in its usual form.
constexpr ConstraintRule kBasicFormRules[] = {
    {"constraint.move_constant", &MoveConstant},
    {"constraint.divide_gcd", &DivideGcd},
    {"constraint.negate", &NegateConstraint},
};

// The floordiv-free form of a constraint (C6 inside a sum): for c > 0 and
// any expression R (integer-valued, like every expression),
//   x floordiv c + R in [l, u]  <=>  (x + c*R) floordiv c in [l, u]
//                              <=>  x + c*R in [l*c, u*c + c - 1]
// since floor((x + c*R)/c) = floor(x/c) + R. The first floordiv term with
// coefficient 1 is taken. nullopt when there is none or on overflow. Used
// by constraint.merge_floordiv_form only: as a rewrite of every such
// constraint it would turn XLA's `bl_x * 8 + th_x floordiv 32 in [0, 99]`
// into the less readable `th_x + bl_x * 256 in [0, 3199]`.
std::optional<ConstraintState> FloorDivFreeForm(Rewriter& rw,
                                                const Constraint& c) {
  auto sum = ToLinear(c.expr);
  if (!sum || sum->terms.size() < 2) return std::nullopt;
  size_t pick = sum->terms.size();
  for (size_t i = 0; i < sum->terms.size(); ++i) {
    if (sum->terms[i].coeff == 1 &&
        IsOpByPositiveConstant(sum->terms[i].expr, ExprKind::kFloorDiv)) {
      pick = i;
      break;
    }
  }
  if (pick == sum->terms.size()) return std::nullopt;
  const Expr div = sum->terms[pick].expr;
  const int64_t d = div.rhs().constant();
  LinearSum rest = *sum;
  rest.terms.erase(rest.terms.begin() + static_cast<std::ptrdiff_t>(pick));
  auto scaled = Scaled(rest, d);
  if (!scaled || !AddScaled(div.lhs(), 1, &*scaled) || !Normalize(&*scaled)) {
    return std::nullopt;
  }
  auto iv = MapEnds(c.interval,
                    [d](int64_t v, bool is_lower) -> std::optional<int64_t> {
                      auto s = CheckedMul(v, d);
                      if (!s || is_lower) return s;
                      return CheckedAdd(*s, d - 1);
                    });
  if (!iv) return std::nullopt;
  ConstraintState out{rw.Build(*scaled), *iv};
  // The other constraints went through the rules (a constant moved into
  // the interval, a positive leading coefficient): so does this form.
  for (int iteration = 0; iteration < 8; ++iteration) {
    bool fired = false;
    for (const ConstraintRule& rule : kBasicFormRules) {
      if (rule.apply(rw, &out)) {
        fired = true;
        break;
      }
    }
    if (!fired) break;
  }
  return out;
}

std::string Describe(const ConstraintState& c, const IndexingMap& map) {
  return PrintExpr(c.expr, map) + " in " + c.interval.ToString();
}

enum class Verdict { kKeep, kAlwaysTrue, kInfeasible };

Verdict Judge(Rewriter& rw, const ConstraintState& c) {
  if (c.interval.IsEmpty()) return Verdict::kInfeasible;
  const Interval r = rw.FactsOf(c.expr).range;
  if (r.IsEmpty()) return Verdict::kKeep;  // inconsistent facts: say nothing
  if (c.interval.Contains(r)) return Verdict::kAlwaysTrue;
  if (r.Intersect(c.interval).IsEmpty()) return Verdict::kInfeasible;
  return Verdict::kKeep;
}

// constraint.merge_floordiv_form: a constraint whose floordiv-free form
// (FloorDivFreeForm, an equivalent constraint) has the expression of another
// constraint restricts that one: the intervals intersect and the first
// constraint goes. A chain composed before it is simplified leaves
// `(X + 688) floordiv 46 - q in [0, 15]` next to `X - q * 46 in [-688, 47]`.
bool MergeFloorDivForms(Rewriter& rw, IndexingMap* map,
                        std::vector<Constraint>* list,
                        std::vector<TraceStep>* trace) {
  if (list->size() < 2) return false;
  std::vector<bool> drop(list->size());
  bool changed = false;
  for (size_t i = 0; i < list->size(); ++i) {
    auto form = FloorDivFreeForm(rw, (*list)[i]);
    if (!form) continue;
    for (size_t j = 0; j < list->size(); ++j) {
      Constraint& other = (*list)[j];
      if (j == i || drop[j] || other.expr != form->expr) continue;
      Interval merged = other.interval.Intersect(form->interval);
      if (trace) {
        trace->push_back({"constraint.merge_floordiv_form",
                          PrintExpr((*list)[i].expr, *map) + " in " +
                              (*list)[i].interval.ToString(),
                          merged.IsEmpty() ? "KNOWN EMPTY"
                                           : PrintExpr(other.expr, *map) +
                                                 " in " + merged.ToString()});
      }
      if (merged.IsEmpty()) {
        map->ResetToKnownEmpty();
        return true;
      }
      other.interval = merged;
      drop[i] = true;
      changed = true;
      break;
    }
  }
  if (!changed) return false;
  std::vector<Constraint> kept;
  for (size_t i = 0; i < list->size(); ++i) {
    if (!drop[i]) kept.push_back((*list)[i]);
  }
  *list = std::move(kept);
  return true;
}

// C8 and C9 on the constraint list. Returns true if anything changed.
bool MergeModConstraints(IndexingMap* map, std::vector<Constraint>* list,
                         const RuleFilter* filter,
                         std::vector<TraceStep>* trace) {
  bool changed = false;
  bool merge = !filter || filter->Enabled("constraint.merge_mod");
  bool round = !filter || filter->Enabled("constraint.round_bounds");
  auto is_mod_point = [](const Constraint& c) {
    return IsOpByPositiveConstant(c.expr, ExprKind::kMod) &&
           c.interval.IsPoint() && c.interval.lower >= 0 &&
           c.interval.lower < c.expr.rhs().constant();
  };
  if (merge) {
    for (size_t i = 0; i < list->size(); ++i) {
      if (!is_mod_point((*list)[i])) continue;
      for (size_t j = i + 1; j < list->size();) {
        Constraint& a = (*list)[i];
        const Constraint& b = (*list)[j];
        if (!is_mod_point(b) || b.expr.lhs() != a.expr.lhs()) {
          ++j;
          continue;
        }
        auto merged =
            CombineCongruences({a.expr.rhs().constant(), a.interval.lower},
                               {b.expr.rhs().constant(), b.interval.lower});
        if (!merged) {
          if (trace)
            trace->push_back({"constraint.merge_mod", "", "KNOWN EMPTY"});
          map->ResetToKnownEmpty();
          return true;
        }
        if (merged->modulus < 0) {
          ++j;
          continue;
        }
        Expr x = a.expr.lhs();
        Constraint c{
            x.context()->Mod(x, x.context()->Constant(merged->modulus)),
            Interval::Point(merged->residue)};
        if (trace) {
          trace->push_back(
              {"constraint.merge_mod",
               PrintExpr(a.expr, *map) + ", " + PrintExpr(b.expr, *map),
               PrintExpr(c.expr, *map)});
        }
        a = c;
        list->erase(list->begin() + j);
        changed = true;
      }
    }
  }
  if (round) {
    // C9: x mod m in [r, r] for a variable x: move x's bounds inward to the
    // nearest values congruent to r.
    for (const Constraint& c : *list) {
      if (!is_mod_point(c) || !c.expr.lhs().IsVariable()) continue;
      Expr x = c.expr.lhs();
      Variable& v = x.IsDim()
                        ? map->mutable_dims()[x.position()]
                        : map->mutable_symbol(static_cast<int>(x.position()));
      if (!IsFinite(v.bounds)) continue;
      int64_t m = c.expr.rhs().constant(), r = c.interval.lower;
      __int128 lo = v.bounds.lower, hi = v.bounds.upper;
      __int128 lo_mod = ((lo - r) % m + m) % m;
      __int128 hi_mod = ((hi - r) % m + m) % m;
      __int128 new_lo = lo_mod == 0 ? lo : lo + (m - lo_mod);
      __int128 new_hi = hi - hi_mod;
      if (new_lo == lo && new_hi == hi) continue;
      changed = true;
      if (new_lo > new_hi) {
        if (trace) {
          trace->push_back(
              {"constraint.round_bounds", v.bounds.ToString(), "KNOWN EMPTY"});
        }
        map->ResetToKnownEmpty();
        return true;
      }
      // new_lo <= new_hi and both lie within the old bounds: they fit.
      Interval rounded{static_cast<int64_t>(new_lo),
                       static_cast<int64_t>(new_hi)};
      if (trace) {
        trace->push_back({"constraint.round_bounds", v.bounds.ToString(),
                          rounded.ToString()});
      }
      v.bounds = rounded;
    }
  }
  return changed;
}

// constraint.propagate_bounds: a constraint sum_i c_i * x_i in [l, u] over
// variables implies, for each j, c_j * x_j in [l - max(rest), u - min(rest)]
// where rest = sum_{i != j} c_i * x_i over the bounds. Tightening x_j's
// bounds to that keeps the set of points (only points that violate the
// constraint are cut). Returns true if a bound changed.
bool PropagateBounds(IndexingMap* map, const std::vector<Constraint>& list,
                     std::vector<TraceStep>* trace) {
  bool changed = false;
  for (const Constraint& c : list) {
    auto sum = ToLinear(c.expr);
    if (!sum || sum->terms.size() < 2 || sum->terms.size() > 8) continue;
    bool all_variables = true;
    for (const Term& t : sum->terms) all_variables &= t.expr.IsVariable();
    if (!all_variables) continue;
    auto bounds_of = [map](Expr x) -> Variable& {
      return x.IsDim() ? map->mutable_dims()[x.position()]
                       : map->mutable_symbol(static_cast<int>(x.position()));
    };
    for (size_t j = 0; j < sum->terms.size(); ++j) {
      Interval rest = Interval::Point(sum->constant);
      for (size_t i = 0; i < sum->terms.size(); ++i) {
        if (i == j) continue;
        rest = RangeAdd(rest, RangeScale(bounds_of(sum->terms[i].expr).bounds,
                                         sum->terms[i].coeff));
      }
      if (!IsFinite(rest)) continue;
      // c_j * x_j in [l - rest.upper, u - rest.lower].
      Interval scaled = Interval::Full();
      if (!IsLowerInf(c.interval.lower)) {
        auto v = CheckedSub(c.interval.lower, rest.upper);
        if (!v) continue;
        scaled.lower = *v;
      }
      if (!IsUpperInf(c.interval.upper)) {
        auto v = CheckedSub(c.interval.upper, rest.lower);
        if (!v) continue;
        scaled.upper = *v;
      }
      int64_t cj = sum->terms[j].coeff;
      if (cj == kInt64Min) continue;
      Interval implied = Interval::Full();
      // x in [ceil(lo / c), floor(hi / c)] for c > 0, mirrored for c < 0.
      int64_t lo_end = cj > 0 ? scaled.lower : scaled.upper;
      int64_t hi_end = cj > 0 ? scaled.upper : scaled.lower;
      bool lo_inf = cj > 0 ? IsLowerInf(lo_end) : IsUpperInf(lo_end);
      bool hi_inf = cj > 0 ? IsUpperInf(hi_end) : IsLowerInf(hi_end);
      // INT64_MIN / -1 has no int64 value: no bound from that end.
      if (!lo_inf) {
        if (auto q = CeilDiv(lo_end, cj)) implied.lower = *q;
      }
      if (!hi_inf) {
        if (auto q = FloorDiv(hi_end, cj)) implied.upper = *q;
      }
      Variable& v = bounds_of(sum->terms[j].expr);
      Interval tightened = v.bounds.Intersect(implied);
      if (tightened == v.bounds) continue;
      if (trace) {
        trace->push_back(
            {"constraint.propagate_bounds",
             PrintExpr(sum->terms[j].expr, *map) + " in " + v.bounds.ToString(),
             tightened.ToString()});
      }
      changed = true;
      if (tightened.IsEmpty()) {
        map->ResetToKnownEmpty();
        return true;
      }
      v.bounds = tightened;
    }
  }
  return changed;
}

// constraint.single_variable_values: the constraints that mention only one
// variable x, with at most kMaxBoxPoints values in its bounds, are evaluated
// at every value of x. x's bounds shrink to [min, max] of the values that
// satisfy all of them (none: KNOWN EMPTY), and a constraint that holds at
// every value of the new bounds is dropped. Exact: the cut values violate a
// constraint, and a dropped constraint holds wherever x can be. Pins
// variables that the interval rules cannot:
// `((d1 * 2 + 3) mod 13) mod 2 in [0, 0]` with d1 in [0, 10] -> d1 in
// [5, 10], constraint dropped. Termination: bounds only shrink and
// constraints are only removed.
bool SingleVariableValues(IndexingMap* map, std::vector<Constraint>* list,
                          std::vector<TraceStep>* trace) {
  // Inline storage: a map has few constraints (no allocation per call).
  SmallVector<Expr, 8> vars;   // in order of first appearance
  SmallVector<Expr, 16> sole;  // null: not a single-variable constraint
  sole.resize(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    sole[i] = SoleVariable((*list)[i].expr).value_or(Expr());
    if (sole[i] && std::find(vars.begin(), vars.end(), sole[i]) == vars.end()) {
      vars.push_back(sole[i]);
    }
  }
  bool changed = false;
  SmallVector<bool, 16> drop;
  drop.resize(list->size(), false);
  for (Expr x : vars) {
    Variable& v = x.IsDim()
                      ? map->mutable_dims()[x.position()]
                      : map->mutable_symbol(static_cast<int>(x.position()));
    SmallVector<Expr, 8> exprs;
    SmallVector<Interval, 8> intervals;
    SmallVector<size_t, 8> indices;
    for (size_t i = 0; i < list->size(); ++i) {
      if (sole[i] != x) continue;
      exprs.push_back((*list)[i].expr);
      intervals.push_back((*list)[i].interval);
      indices.push_back(i);
    }
    auto values = AllowedValues(x, v.bounds, {exprs.data(), exprs.size()},
                                {intervals.data(), intervals.size()});
    if (!values) continue;
    if (values->empty()) {
      if (trace) {
        trace->push_back({"constraint.single_variable_values",
                          PrintExpr(x, *map) + " in " + v.bounds.ToString(),
                          "KNOWN EMPTY"});
      }
      map->ResetToKnownEmpty();
      return true;
    }
    Interval tight{values->front(), values->back()};
    if (tight != v.bounds) {
      if (trace) {
        trace->push_back({"constraint.single_variable_values",
                          PrintExpr(x, *map) + " in " + v.bounds.ToString(),
                          tight.ToString()});
      }
      v.bounds = tight;
      changed = true;
    }
    bool all_hold = static_cast<int64_t>(values->size()) == tight.Size();
    for (size_t k = 0; k < indices.size(); ++k) {
      bool holds = all_hold;
      if (!holds) {
        auto own = AllowedValues(x, tight, {&exprs[k], 1}, {&intervals[k], 1});
        holds = own && static_cast<int64_t>(own->size()) == tight.Size();
      }
      if (!holds) continue;
      if (trace) {
        trace->push_back(
            {"constraint.single_variable_values",
             PrintExpr(exprs[k], *map) + " in " + intervals[k].ToString(), ""});
      }
      drop[indices[k]] = true;
      changed = true;
    }
  }
  if (!changed) return false;
  std::vector<Constraint> kept;
  for (size_t i = 0; i < list->size(); ++i) {
    if (!drop[i]) kept.push_back((*list)[i]);
  }
  *list = std::move(kept);
  return true;
}

}  // namespace

std::span<const ConstraintRule> ConstraintRules() { return kConstraintRules; }

bool SimplifyConstraints(IndexingMap* map, const RuleFilter* filter,
                         std::vector<TraceStep>* trace,
                         bool* budget_exhausted) {
  if (map->constraints().empty()) return false;
  std::vector<Constraint> out;
  bool changed = false;
  {
    Rewriter rw(*map, /*use_constraints=*/false, filter, trace);
    auto allowed = [filter](const char* id) {
      return !filter || filter->Enabled(id);
    };
    for (const Constraint& original : map->constraints()) {
      ConstraintState c{rw.Simplify(original.expr), original.interval};
      for (int iteration = 0; iteration < 32; ++iteration) {
        bool fired = false;
        for (const ConstraintRule& rule : kConstraintRules) {
          if (!allowed(rule.id)) continue;
          ConstraintState before = c;
          if (rule.apply(rw, &c)) {
            if (trace) {
              trace->push_back(
                  {rule.id, Describe(before, *map), Describe(c, *map)});
            }
            fired = true;
            break;
          }
        }
        if (!fired) break;
        if (iteration == 31) *budget_exhausted = true;
      }
      Verdict verdict = Judge(rw, c);
      if (verdict == Verdict::kAlwaysTrue &&
          allowed("constraint.always_true")) {
        if (trace) {
          trace->push_back({"constraint.always_true", Describe(c, *map), ""});
        }
        changed = true;
        continue;
      }
      if (verdict == Verdict::kInfeasible && allowed("constraint.infeasible")) {
        if (trace) {
          trace->push_back(
              {"constraint.infeasible", Describe(c, *map), "KNOWN EMPTY"});
        }
        map->ResetToKnownEmpty();
        return true;
      }
      if (c.expr != original.expr || c.interval != original.interval) {
        changed = true;
      }
      out.push_back({c.expr, c.interval});
    }
    if (allowed("constraint.merge_floordiv_form") &&
        MergeFloorDivForms(rw, map, &out, trace)) {
      changed = true;
      if (map->IsKnownEmpty()) return true;
    }
    if (rw.stats().budget_exhausted) *budget_exhausted = true;
  }
  if (MergeModConstraints(map, &out, filter, trace)) changed = true;
  if (map->IsKnownEmpty()) return true;
  if ((!filter || filter->Enabled("constraint.propagate_bounds")) &&
      PropagateBounds(map, out, trace)) {
    changed = true;
    if (map->IsKnownEmpty()) return true;
  }
  if ((!filter || filter->Enabled("constraint.single_variable_values")) &&
      SingleVariableValues(map, &out, trace)) {
    changed = true;
    if (map->IsKnownEmpty()) return true;
  }
  if (changed) map->SetConstraints(std::move(out));
  return changed;
}

}  // namespace ixa::simp
