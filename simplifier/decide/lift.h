// Lifting of affine expressions with floordiv / ceildiv / mod by constants
// and min / max into linear forms over fresh integer variables (internal to
// simplifier/decide). For c > 0,
//   q = x floordiv c   <=>   c*q <= x <= c*q + c - 1,
// a negative divisor uses floor(x / c) = floor(-x / -c), ceildiv is
// -floor(-x / c) and x mod c = x - c * floor(x / c). Identical
// (numerator, divisor) pairs share one variable, so `x mod 4` and
// `x floordiv 4` are tied together exactly as the identity requires.
//
// min and max are not convex, so their variable m has two parts: two rows
// that always hold (the relaxation: m <= a and m <= b for min, m >= a and
// m >= b for max) and a disjunction of two linear cases, each one more row
// (m >= a, i.e. m = a; or m >= b, i.e. m = b; for max m <= a or m <= b).
// The relaxation and either case together make m exactly min(a, b) (resp.
// max). The solver's caller (decide.cc) splits into the cases lazily.
#ifndef IXA_SIMPLIFIER_DECIDE_LIFT_H_
#define IXA_SIMPLIFIER_DECIDE_LIFT_H_

#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/expr.h"
#include "core/node_map.h"
#include "core/result.h"
#include "core/small_vector.h"
#include "core/text.h"
#include "simplifier/decide/num.h"

namespace ixa::decide_internal {

// [constant, coefficient of x_1, ..., coefficient of x_n]; entries past the
// end are zero. Variable x_{1+i} is dim i, then the symbols, then lifted
// variables.
//
// Inline storage for the int64 fast path (a form has a few columns; no
// allocation per lifted node), a vector for the multiprecision path.
template <class Num>
using Form = std::conditional_t<std::is_trivially_copyable_v<Num>,
                                SmallVector<Num, 8>, std::vector<Num>>;

// The helpers take the form type itself (F = Form<Num>): Form is an alias
// through std::conditional_t, from which Num cannot be deduced.
template <class F>
bool IsConstantForm(const F& f) {
  for (size_t j = 1; j < f.size(); ++j) {
    if (!NIsZero(f[j])) return false;
  }
  return true;
}

template <class F>
void Trim(F* f) {
  while (f->size() > 1 && NIsZero(f->back())) f->pop_back();
}

// a + k * b.
template <class F>
F AddScaled(const F& a, const F& b, const typename F::value_type& k) {
  using Num = typename F::value_type;
  F r = a;
  if (r.size() < b.size()) r.resize(b.size(), Num(0));
  for (size_t j = 0; j < b.size(); ++j) {
    if (!NIsZero(b[j])) r[j] += k * b[j];
  }
  Trim(&r);
  return r;
}

template <class F>
F Scale(const F& a, const typename F::value_type& k) {
  using Num = typename F::value_type;
  return AddScaled(F{Num(0)}, a, k);
}

template <class Num>
class Lifter {
 public:
  Lifter(int num_dims, int num_symbols)
      : num_dims_(num_dims), num_symbols_(num_symbols) {
    num_vars_ = num_dims + num_symbols;
  }

  int num_vars() const { return num_vars_; }
  int first_lifted() const { return num_dims_ + num_symbols_ + 1; }
  // The two rows defining lifted variable (column) v (for min / max: the
  // relaxation rows).
  const std::pair<Form<Num>, Form<Num>>& Definition(int v) const {
    return defs_[v - first_lifted()];
  }
  // Whether v is a min / max variable, which needs one of its two case rows
  // (CaseRow(v, 0) or CaseRow(v, 1)) on top of its definition.
  bool IsMinMax(int v) const { return minmax_[v - first_lifted()].is_minmax; }
  const Form<Num>& CaseRow(int v, int which) const {
    const MinMax& m = minmax_[v - first_lifted()];
    return which == 0 ? m.case_a : m.case_b;
  }
  // Whether the values w (w[j - 1] for column j) give v exactly the min /
  // max of its operands.
  bool Exact(int v, const std::vector<Num>& w) const {
    const MinMax& m = minmax_[v - first_lifted()];
    Num a = Eval(m.a, w), b = Eval(m.b, w), x = w[v - 1];
    return m.is_min ? x == (a < b ? a : b) : x == (a < b ? b : a);
  }

  // The linear form of e. Errors: a semi-affine node (unsupported), a zero
  // divisor or an out-of-range variable (invalid argument).
  Result<Form<Num>> Lift(Expr e) {
    IXA_ASSIGN_OR_RETURN(const Form<Num>* f, LiftRef(e));
    return *f;
  }

  // Lift without a copy: the form memoized for e (stable: the memo's
  // elements never move), so that lifting a tree copies no child's form.
  Result<const Form<Num>*> LiftRef(Expr e) {
    if (const uint32_t* known = memo_.Find(e.node())) return &forms_[*known];
    Form<Num> f;
    switch (e.kind()) {
      case ExprKind::kConstant:
        f = {Num(e.constant())};
        break;
      case ExprKind::kDim:
      case ExprKind::kSymbol: {
        int64_t limit = e.IsDim() ? num_dims_ : num_symbols_;
        if (e.position() < 0 || e.position() >= limit) {
          return Error::Invalid("variable " + PrintExpr(e) +
                                " is not a variable of the map");
        }
        int col =
            1 + static_cast<int>(e.position()) + (e.IsDim() ? 0 : num_dims_);
        f.assign(col + 1, Num(0));
        f[col] = Num(1);
        break;
      }
      default: {
        IXA_ASSIGN_OR_RETURN(const Form<Num>* l, LiftRef(e.lhs()));
        IXA_ASSIGN_OR_RETURN(const Form<Num>* r, LiftRef(e.rhs()));
        IXA_ASSIGN_OR_RETURN(f, Combine(e, *l, *r));
        break;
      }
    }
    Trim(&f);
    memo_.Put(e.node(), static_cast<uint32_t>(forms_.size()));
    forms_.push_back(std::move(f));
    return &forms_.back();
  }

 private:
  struct MinMax {
    bool is_minmax = false;
    bool is_min = false;
    Form<Num> a, b;            // the operands
    Form<Num> case_a, case_b;  // m = a, m = b (with the relaxation)
  };

  static Num Eval(const Form<Num>& f, const std::vector<Num>& w) {
    Num v = f[0];
    for (size_t j = 1; j < f.size(); ++j) {
      if (!NIsZero(f[j])) v += f[j] * w[j - 1];
    }
    return v;
  }

  Result<Form<Num>> Combine(Expr e, const Form<Num>& l, const Form<Num>& r) {
    switch (e.kind()) {
      case ExprKind::kAdd:
        return AddScaled(l, r, Num(1));
      case ExprKind::kMul:
        if (IsConstantForm(r)) return Scale(l, r[0]);
        if (IsConstantForm(l)) return Scale(r, l[0]);
        return Error::Unsupported(
            "semi-affine product '" + PrintExpr(e) +
            "' (a variable multiplier) in an exact decision");
      case ExprKind::kMin:
      case ExprKind::kMax:
        return LiftMinMax(e.kind() == ExprKind::kMin, l, r);
      case ExprKind::kFloorDiv:
      case ExprKind::kCeilDiv:
      case ExprKind::kMod:
        break;
      case ExprKind::kConstant:
      case ExprKind::kDim:
      case ExprKind::kSymbol:
        return Error{ErrorCode::kInternal, "Combine() on a leaf", 0, 0};
    }
    if (!IsConstantForm(r)) {
      return Error::Unsupported("semi-affine division '" + PrintExpr(e) +
                                "' (a variable divisor) in an exact decision");
    }
    const Num d = r[0];
    if (NIsZero(d)) {
      return Error::Invalid("zero divisor in '" + PrintExpr(e) + "'");
    }
    switch (e.kind()) {
      case ExprKind::kFloorDiv:
        return Floor(l, d);
      case ExprKind::kCeilDiv:
        return Scale(Floor(Scale(l, Num(-1)), d), Num(-1));
      default:  // kMod (the only kind left): x - d * floor(x / d)
        return AddScaled(l, Floor(l, d), -d);
    }
  }

  // A fresh variable m for min(a, b) / max(a, b) (see the file comment);
  // constant operands fold, equal ones give the operand, and identical
  // (kind, a, b) share one variable.
  Form<Num> LiftMinMax(bool is_min, Form<Num> a, Form<Num> b) {
    Trim(&a);
    Trim(&b);
    if (a == b) return a;
    if (IsConstantForm(a) && IsConstantForm(b)) {
      return {is_min == (a[0] < b[0]) ? a[0] : b[0]};
    }
    auto key = std::make_tuple(is_min, a, b);
    auto it = minmax_vars_.find(key);
    int m;
    if (it != minmax_vars_.end()) {
      m = it->second;
    } else {
      m = ++num_vars_;
      Form<Num> m_form(m + 1, Num(0));
      m_form[m] = Num(1);
      // Relaxation: min: a - m >= 0, b - m >= 0; max: m - a >= 0, m - b >= 0.
      // Cases: min: m - a >= 0 (m = a), m - b >= 0; max: a - m >= 0, b - m.
      Form<Num> a_minus_m = AddScaled(a, m_form, Num(-1));
      Form<Num> b_minus_m = AddScaled(b, m_form, Num(-1));
      Form<Num> m_minus_a = Scale(a_minus_m, Num(-1));
      Form<Num> m_minus_b = Scale(b_minus_m, Num(-1));
      MinMax info;
      info.is_minmax = true;
      info.is_min = is_min;
      info.a = a;
      info.b = b;
      if (is_min) {
        defs_.emplace_back(a_minus_m, b_minus_m);
        info.case_a = m_minus_a;
        info.case_b = m_minus_b;
      } else {
        defs_.emplace_back(m_minus_a, m_minus_b);
        info.case_a = a_minus_m;
        info.case_b = b_minus_m;
      }
      minmax_.push_back(std::move(info));
      minmax_vars_.emplace(std::move(key), m);
    }
    Form<Num> f(m + 1, Num(0));
    f[m] = Num(1);
    return f;
  }

  // floor(x / d) for d != 0, as a form.
  Form<Num> Floor(Form<Num> x, Num d) {
    if (d < Num(0)) {
      x = Scale(x, Num(-1));
      d = -d;
    }
    if (IsConstantForm(x)) return {NFloorDiv(x[0], d)};
    if (d == Num(1)) return x;
    Trim(&x);
    auto key = std::make_pair(x, d);
    auto it = divs_.find(key);
    int q;
    if (it != divs_.end()) {
      q = it->second;
    } else {
      q = ++num_vars_;
      // x - d*q >= 0 and d*q + d - 1 - x >= 0.
      Form<Num> q_form(q + 1, Num(0));
      q_form[q] = Num(1);
      Form<Num> lower = AddScaled(x, q_form, -d);
      Form<Num> upper = AddScaled(Scale(x, Num(-1)), q_form, d);
      upper[0] += d - Num(1);
      defs_.emplace_back(std::move(lower), std::move(upper));
      minmax_.emplace_back();
      divs_.emplace(std::move(key), q);
    }
    Form<Num> f(q + 1, Num(0));
    f[q] = Num(1);
    return f;
  }

  int num_dims_, num_symbols_, num_vars_;
  // The form of each lifted node: an index into forms_, whose elements
  // never move (a deque), so that LiftRef's pointers stay valid.
  NodeMap<uint32_t> memo_;
  std::deque<Form<Num>> forms_;
  std::map<std::pair<Form<Num>, Num>, int> divs_;
  std::vector<std::pair<Form<Num>, Form<Num>>> defs_;
  std::vector<MinMax> minmax_;  // parallel to defs_
  std::map<std::tuple<bool, Form<Num>, Form<Num>>, int> minmax_vars_;
};

}  // namespace ixa::decide_internal

#endif  // IXA_SIMPLIFIER_DECIDE_LIFT_H_
