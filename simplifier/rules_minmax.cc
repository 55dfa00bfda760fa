// Rules for `min(a, b)` and `max(a, b)` (docs/xla-reference.md §(c) E18,
// E24 HEAD).
//
// The rewriter hands the rules a list: a nest `min(min(a, b), c)` (or
// `min(a, min(b, c))`) is kind(a, b, c), operands simplified, plus an
// offset moved out of every operand (MinMaxList in rewriter.h). min and max are
// associative, commutative and idempotent, so any regrouping, reordering or
// repetition of the operands names the same value; that is the whole argument
// for minmax.flatten, minmax.sort and minmax.duplicate. Below, "x <= y" means
// at every point of the domain the rewriter knows (variable bounds, and for
// results also the constraints).
//
// Termination: minmax.flatten only splices nested operands in (the nest
// gets flatter), minmax.fold_constants, minmax.duplicate and
// minmax.dominated remove operands, minmax.common_part leaves operands
// without a common part (it cannot fire again on them), and minmax.sort
// fires only on an unsorted list.
#include <algorithm>

#include "simplifier/rule_util.h"

namespace ixa::simp {

namespace {

bool IsMin(const MinMaxList& list) { return list.kind == ExprKind::kMin; }

// minmax.flatten: min(a, min(b, c)) = min(min(a, b), c) = min(a, b, c)
// (associativity), and likewise for max. The rewriter reads a written nest
// whole; this splices operands that only became nests of the same kind
// when simplified (`min(d0, min(d1, d2) floordiv 1)`).
bool Flatten(Rewriter&, MinMaxList* list) {
  bool nested = false;
  for (Expr x : list->operands) nested |= x.kind() == list->kind;
  if (!nested) return false;
  std::vector<Expr> out;
  // Post-order over each same-kind operand's nest.
  std::vector<Expr> stack;
  for (Expr x : list->operands) {
    stack.push_back(x);
    while (!stack.empty()) {
      Expr top = stack.back();
      stack.pop_back();
      if (top.kind() == list->kind) {
        stack.push_back(top.rhs());
        stack.push_back(top.lhs());
      } else {
        out.push_back(top);
      }
    }
  }
  list->operands = std::move(out);
  return true;
}

// minmax.fold_constants: min(c1, c2) = the smaller constant (max: the
// larger); with the other operands, min(x, c1, c2) = min(x, min(c1, c2)).
bool FoldConstants(Rewriter& rw, MinMaxList* list) {
  int count = 0;
  int64_t folded = 0;
  for (Expr x : list->operands) {
    if (!x.IsConstant()) continue;
    folded = count == 0     ? x.constant()
             : IsMin(*list) ? std::min(folded, x.constant())
                            : std::max(folded, x.constant());
    ++count;
  }
  if (count < 2) return false;
  std::vector<Expr> out;
  for (Expr x : list->operands) {
    if (!x.IsConstant()) out.push_back(x);
  }
  out.push_back(rw.Const(folded));
  list->operands = std::move(out);
  return true;
}

// minmax.duplicate: min(a, a) = a (idempotence); the first copy stays.
bool Duplicate(Rewriter&, MinMaxList* list) {
  std::vector<Expr> out;
  for (Expr x : list->operands) {
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  }
  if (out.size() == list->operands.size()) return false;
  list->operands = std::move(out);
  return true;
}

// True if x <= y at every point: the facts of the linear difference x - y
// (common terms cancel) have a finite upper bound <= 0. The facts of the
// difference as a node also see a constraint on it (`d0 - d1 in [1, 9]`).
bool ProvablyLessOrEqual(Rewriter& rw, Expr x, Expr y) {
  auto diff = ToLinear(x);
  if (!diff || !AddScaled(y, -1, &*diff) || !Normalize(&*diff)) return false;
  Interval range = rw.FactsOfSum(*diff).range;
  if (!diff->IsConstant()) {
    // A constraint may be written either way round: y - x in [l, u] bounds
    // x - y by [-u, -l].
    range = range.Intersect(rw.FactsOf(BuildSum(rw.ctx(), *diff)).range);
    if (auto neg = Scaled(*diff, -1)) {
      range = range.Intersect(
          RangeScale(rw.FactsOf(BuildSum(rw.ctx(), *neg)).range, -1));
    }
  }
  return range.IsFeasible() && range.upper != kInt64Max && range.upper <= 0;
}

// minmax.dominated (E18, E24): min(x, y) = x when x <= y everywhere, and
// max(x, y) = x when x >= y everywhere, so y can go. `min(d0, d0 + 1)` ->
// `d0` (difference -1); `min(10, d0)` -> `d0` and `max(10, d0)` -> `10` for
// d0 in [0, 5]; `min(128, d0 * 32 + d1 floordiv 64 + 1)` -> the sum for d0
// in [0, 3], d1 in [0, 2047] (the difference is in [-127, 0]). With equal
// values both ways, the later operand goes. Quadratic, so only for short
// lists.
bool Dominated(Rewriter& rw, MinMaxList* list) {
  constexpr size_t kMaxOperands = 16;
  const size_t n = list->operands.size();
  if (n < 2 || n > kMaxOperands) return false;
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < n; ++i) {
      if (i == j) continue;
      Expr x = list->operands[i], y = list->operands[j];
      bool drop = IsMin(*list) ? ProvablyLessOrEqual(rw, x, y)
                               : ProvablyLessOrEqual(rw, y, x);
      if (!drop) continue;
      list->operands.erase(list->operands.begin() + j);
      return true;
    }
  }
  return false;
}

// minmax.common_part: min(a + C, b + C) = min(a, b) + C (x -> x + C is
// monotone), and likewise for max and for more operands. C is the part
// every operand shares in canonical linear form: the terms with the same
// coefficient in all of them, and the constant common to all non-constant
// operands (a constant operand c is (c - k) + k for any k).
// `min(d0 + 4, d1 + 4)` -> `min(d0, d1) + 4`; `max(d0 * 2 + d1, d0 * 2 +
// 3)` -> `max(d1, 3) + d0 * 2`; `min(d0 + 1, d1 + 1, 8)` -> `min(d0, d1, 7)
// + 1`.
bool CommonPart(Rewriter& rw, MinMaxList* list) {
  std::vector<LinearSum> forms;
  for (Expr x : list->operands) {
    auto f = ToLinear(x);
    if (!f) return false;
    forms.push_back(std::move(*f));
  }
  LinearSum common;
  bool first = true;
  for (const LinearSum& f : forms) {
    if (f.IsConstant()) continue;
    if (first) common.constant = f.constant;
    if (f.constant != common.constant) common.constant = 0;
    first = false;
  }
  if (first) return false;  // all constants: minmax.fold_constants
  for (const Term& t : forms[0].terms) {
    bool everywhere = true;
    for (size_t k = 1; k < forms.size() && everywhere; ++k) {
      everywhere = forms[k].CoeffOf(t.expr) == t.coeff;
    }
    if (everywhere) common.terms.push_back(t);
  }
  if (common.terms.empty() && common.constant == 0) return false;
  std::vector<Expr> out;
  for (LinearSum& f : forms) {
    if (!AddScaled(common, -1, &f) || !Normalize(&f)) return false;
    out.push_back(BuildSum(rw.ctx(), f));
  }
  if (!AddScaled(common, 1, &list->offset) || !Normalize(&list->offset)) {
    return false;
  }
  list->operands = std::move(out);
  return true;
}

// Operand order: core's structural order with constants last (as + and *
// keep constants on the right): min(d0, 5), max(d0, s0, 3).
bool OperandLess(Expr a, Expr b) {
  if (a.IsConstant() != b.IsConstant()) return b.IsConstant();
  return CompareExprs(a, b) < 0;
}

// minmax.sort: operands in canonical order (commutativity).
bool Sort(Rewriter&, MinMaxList* list) {
  if (std::is_sorted(list->operands.begin(), list->operands.end(),
                     OperandLess)) {
    return false;
  }
  std::stable_sort(list->operands.begin(), list->operands.end(), OperandLess);
  return true;
}

constexpr MinMaxRule kMinMaxRules[] = {
    {"minmax.flatten", &Flatten},
    {"minmax.fold_constants", &FoldConstants},
    {"minmax.duplicate", &Duplicate},
    {"minmax.dominated", &Dominated},
    {"minmax.common_part", &CommonPart},
    {"minmax.sort", &Sort},
};

}  // namespace

std::span<const MinMaxRule> MinMaxRules() { return kMinMaxRules; }

}  // namespace ixa::simp
