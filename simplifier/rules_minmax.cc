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
// gets flatter), minmax.fold_constants, minmax.duplicate,
// minmax.dominated, minmax.dominated_simplified and minmax.absorb remove
// operands, minmax.distribute and minmax.common_divisor merge two or more
// operands into one, minmax.common_part leaves operands without a common
// part (it cannot fire again on them), minmax.common_factor and
// minmax.negate make the operands' total tree size strictly smaller (and
// no rule makes it larger again without removing an operand), and
// minmax.sort fires only on an unsorted list.
#include <algorithm>
#include <span>

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
// Drops the first operand another one dominates under `less_or_equal`
// (for min: a larger one; for max: a smaller one). Quadratic, so only for
// lists of up to `max_operands`.
bool DropDominatedOperand(Rewriter& rw, MinMaxList* list, size_t max_operands,
                          bool (*less_or_equal)(Rewriter&, Expr, Expr)) {
  const size_t n = list->operands.size();
  if (n < 2 || n > max_operands) return false;
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < n; ++i) {
      if (i == j) continue;
      Expr x = list->operands[i], y = list->operands[j];
      bool drop =
          IsMin(*list) ? less_or_equal(rw, x, y) : less_or_equal(rw, y, x);
      if (!drop) continue;
      list->operands.erase(list->operands.begin() + j);
      return true;
    }
  }
  return false;
}

bool Dominated(Rewriter& rw, MinMaxList* list) {
  return DropDominatedOperand(rw, list, 16, &ProvablyLessOrEqual);
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
  LinearSum offset = list->offset;
  if (!AddScaled(common, list->scale, &offset) || !Normalize(&offset)) {
    return false;
  }
  list->offset = std::move(offset);
  list->operands = std::move(out);
  return true;
}

ExprKind Other(ExprKind kind) {
  return kind == ExprKind::kMin ? ExprKind::kMax : ExprKind::kMin;
}

// The operands of x's nest of kind `kind` (x itself when it is not one).
std::vector<Expr> NestOperands(Expr x, ExprKind kind) {
  std::vector<Expr> out, stack = {x};
  while (!stack.empty()) {
    Expr top = stack.back();
    stack.pop_back();
    if (top.kind() == kind) {
      stack.push_back(top.rhs());
      stack.push_back(top.lhs());
    } else {
      out.push_back(top);
    }
  }
  return out;
}

// kind(operands) folded to the left.
Expr FoldNest(ExprContext* ctx, ExprKind kind, std::span<const Expr> ops) {
  Expr acc;
  for (Expr x : ops) acc = acc ? ctx->Binary(kind, acc, x) : x;
  return acc;
}

// x <= y at every point, judged on the *simplified* difference x - y when
// it has div/mod terms (ProvablyLessOrEqual reads such terms as opaque): `(a
// floordiv 4) * 4 - a` simplifies to
// `-(a mod 4)`, in [-3, 0], for every integer a.
bool LessOrEqualSimplified(Rewriter& rw, Expr x, Expr y) {
  auto diff = ToLinear(x);
  if (!diff || !AddScaled(y, -1, &*diff) || !Normalize(&*diff)) return false;
  // Only div/mod terms: a min / max term in the difference would make
  // this simplify min / max lists from inside a min / max rule.
  bool composite = false;
  for (const Term& t : diff->terms) {
    if (t.expr.IsVariable()) continue;
    if (CountMinMax(t.expr) > 0) return false;
    composite |= CountDivMod(t.expr) > 0;
  }
  if (!composite) return false;
  Interval range = rw.FactsOf(rw.Simplify(BuildSum(rw.ctx(), *diff))).range;
  return range.IsFeasible() && range.upper != kInt64Max && range.upper <= 0;
}

// minmax.dominated_simplified: minmax.dominated with the operands compared
// through their simplified difference (LessOrEqualSimplified), so an
// operand against its own rounded value is ordered:
// `max((a floordiv 4) * 4, a)` -> `a`, `min((a + 3) floordiv 4 * 4, a)` ->
// `a` for every integer a. Same argument as minmax.dominated.
bool DominatedSimplified(Rewriter& rw, MinMaxList* list) {
  return DropDominatedOperand(rw, list, 8, &LessOrEqualSimplified);
}

// minmax.absorb: min(x, max(o, ...)) = x when x <= o (absorption: then
// max(o, ...) >= o >= x), in particular min(x, max(x, y)) = x; dually
// max(x, min(o, ...)) = x when o <= x. The operand of the other kind goes.
bool Absorb(Rewriter& rw, MinMaxList* list) {
  const ExprKind other = Other(list->kind);
  const size_t n = list->operands.size();
  for (size_t j = 0; j < n; ++j) {
    if (list->operands[j].kind() != other) continue;
    for (Expr o : NestOperands(list->operands[j], other)) {
      for (size_t i = 0; i < n; ++i) {
        if (i == j) continue;
        Expr x = list->operands[i];
        bool ordered = x == o || (IsMin(*list) ? ProvablyLessOrEqual(rw, x, o)
                                               : ProvablyLessOrEqual(rw, o, x));
        if (!ordered) continue;
        list->operands.erase(list->operands.begin() + j);
        return true;
      }
    }
  }
  return false;
}

// minmax.distribute: min(max(c, A...), max(c, B...)) =
// max(c, min(max(A...), max(B...))) (min and max distribute over each
// other: both sides are c when c is the larger, else min of the rests),
// and dually for max of mins. The shared operand c is written once.
bool Distribute(Rewriter& rw, MinMaxList* list) {
  const ExprKind other = Other(list->kind);
  const size_t n = list->operands.size();
  for (size_t i = 0; i < n; ++i) {
    if (list->operands[i].kind() != other) continue;
    std::vector<Expr> a = NestOperands(list->operands[i], other);
    for (size_t j = i + 1; j < n; ++j) {
      if (list->operands[j].kind() != other) continue;
      std::vector<Expr> b = NestOperands(list->operands[j], other);
      for (size_t k = 0; k < a.size(); ++k) {
        auto it = std::find(b.begin(), b.end(), a[k]);
        if (it == b.end()) continue;
        Expr c = a[k];
        std::vector<Expr> rest_a = a, rest_b = b;
        rest_a.erase(rest_a.begin() + k);
        rest_b.erase(rest_b.begin() + (it - b.begin()));
        if (rest_a.empty() || rest_b.empty()) continue;  // minmax.absorb
        ExprContext* ctx = rw.ctx();
        Expr inner = ctx->Binary(list->kind, FoldNest(ctx, other, rest_a),
                                 FoldNest(ctx, other, rest_b));
        Expr merged = rw.Simplify(ctx->Binary(other, c, inner));
        list->operands[i] = merged;
        list->operands.erase(list->operands.begin() + j);
        return true;
      }
    }
  }
  return false;
}

// minmax.common_divisor: min(a floordiv D, b floordiv D) =
// min(a, b) floordiv D for a constant D > 0 (x -> floor(x / D) is
// monotone, so it commutes with min and max); the same for ceildiv. The
// operands with the same division merge into one.
bool CommonDivisor(Rewriter& rw, MinMaxList* list) {
  const size_t n = list->operands.size();
  for (size_t i = 0; i < n; ++i) {
    Expr x = list->operands[i];
    ExprKind div = x.kind();
    if (div != ExprKind::kFloorDiv && div != ExprKind::kCeilDiv) continue;
    if (!IsOpByPositiveConstant(x, div)) continue;
    std::vector<Expr> dividends = {x.lhs()};
    std::vector<size_t> merged = {i};
    for (size_t j = i + 1; j < n; ++j) {
      Expr y = list->operands[j];
      if (y.kind() == div && y.rhs() == x.rhs()) {
        dividends.push_back(y.lhs());
        merged.push_back(j);
      }
    }
    if (merged.size() < 2) continue;
    ExprContext* ctx = rw.ctx();
    Expr inner = FoldNest(ctx, list->kind, dividends);
    list->operands[i] = rw.Simplify(ctx->Binary(div, inner, x.rhs()));
    for (size_t k = merged.size(); k-- > 1;) {
      list->operands.erase(list->operands.begin() + merged[k]);
    }
    return true;
  }
  return false;
}

uint32_t TotalSize(std::span<const Expr> exprs) {
  uint32_t total = 0;
  for (Expr x : exprs) total += x.tree_size();
  return total;
}

// minmax.common_factor: min(g*a, g*b) = g * min(a, b) for g > 0 (x -> g*x
// is monotone) and min(g*a, g*b) = g * max(a, b) for g < 0 (x -> g*x
// reverses the order), g the gcd of every coefficient and constant of
// every operand (a constant operand c is g * (c / g)), taken with the sign
// that gives the smaller result. Applied only when the result is smaller:
// `min(d0 * 4, d1 * 4 + 8)` -> `min(d0, d1 + 2) * 4`, `min(d0 * -3, d1 *
// -3)` -> `max(d0, d1) * -3`; `min(d0 * 3, 9)` stays (same size).
bool CommonFactor(Rewriter& rw, MinMaxList* list) {
  std::vector<LinearSum> forms;
  int64_t g = 0;
  for (Expr x : list->operands) {
    auto f = ToLinear(x);
    if (!f) return false;
    g = Gcd(g, CoeffGcd(*f));
    g = Gcd(g, f->constant);
    forms.push_back(std::move(*f));
  }
  if (g <= 1 || g == kInt64Min) return false;
  const uint32_t before = TotalSize(list->operands);
  for (int64_t factor : {g, -g}) {
    auto scale = CheckedMul(list->scale, factor);
    if (!scale) continue;
    std::vector<Expr> out;
    for (const LinearSum& f : forms) {
      LinearSum q = f;
      for (Term& t : q.terms) t.coeff /= factor;
      q.constant /= factor;
      out.push_back(BuildSum(rw.ctx(), q));
    }
    // The product node and its constant are the two new nodes.
    if (TotalSize(out) + 2 >= before) continue;
    list->operands = std::move(out);
    list->scale = *scale;
    if (factor < 0) list->kind = Other(list->kind);
    return true;
  }
  return false;
}

// minmax.negate: min(a, b) = -max(-a, -b) (x -> -x reverses the order), and
// dually; applied only when the negated operands are smaller by more than
// the negation costs: `min(-d0, -d1)` -> `-max(d0, d1)`, which with
// minmax.common_part gives `min(x - y, x - z)` -> `x - max(y, z)`.
bool Negate(Rewriter& rw, MinMaxList* list) {
  auto scale = CheckedNeg(list->scale);
  if (!scale) return false;
  std::vector<Expr> out;
  for (Expr x : list->operands) {
    auto f = ToLinear(x);
    if (!f) return false;
    auto neg = Scaled(*f, -1);
    if (!neg) return false;
    out.push_back(BuildSum(rw.ctx(), *neg));
  }
  if (TotalSize(out) + 2 >= TotalSize(list->operands)) return false;
  list->operands = std::move(out);
  list->kind = Other(list->kind);
  list->scale = *scale;
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
    {"minmax.dominated_simplified", &DominatedSimplified},
    {"minmax.absorb", &Absorb},
    {"minmax.distribute", &Distribute},
    {"minmax.common_divisor", &CommonDivisor},
    {"minmax.common_factor", &CommonFactor},
    {"minmax.negate", &Negate},
    {"minmax.sort", &Sort},
};

}  // namespace

std::span<const MinMaxRule> MinMaxRules() { return kMinMaxRules; }

}  // namespace ixa::simp
