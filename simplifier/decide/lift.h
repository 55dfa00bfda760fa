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
//
// Memory (no allocation on the hot path): every form the lifter keeps (of each
// node, and the rows and keys of the lifted variables) lives in one FormList,
// inline on the int64 path, so lifting a small map allocates nothing.
#ifndef IXA_SIMPLIFIER_DECIDE_LIFT_H_
#define IXA_SIMPLIFIER_DECIDE_LIFT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "core/expr.h"
#include "core/interval.h"
#include "core/node_map.h"
#include "core/result.h"
#include "core/small_vector.h"
#include "core/text.h"
#include "simplifier/decide/num.h"

namespace ixa::decide_internal {

// [constant, coefficient of x_1, ..., coefficient of x_n]; entries past the
// end are zero. Variable x_{1+i} is dim i, then the symbols, then lifted
// variables. A form has a few columns: inline on the int64 path.
template <class Num>
using Form = Buffer<Num, 8>;

// The helpers take forms or views of them (std::span<const Num>); Num is
// deduced from the first operand (Form is an alias through
// std::conditional_t, from which it cannot be).
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
template <class A, class B,
          class Num = std::remove_cv_t<typename A::value_type>>
Form<Num> AddScaled(const A& a, const B& b,
                    const std::type_identity_t<Num>& k) {
  Form<Num> r;
  r.assign(a.begin(), a.end());
  if (r.size() < b.size()) r.resize(b.size(), Num(0));
  for (size_t j = 0; j < b.size(); ++j) {
    if (!NIsZero(b[j])) r[j] += k * b[j];
  }
  Trim(&r);
  return r;
}

template <class A, class Num = std::remove_cv_t<typename A::value_type>>
Form<Num> Scale(const A& a, const std::type_identity_t<Num>& k) {
  return AddScaled(Form<Num>{Num(0)}, a, k);
}

// Forms of varying length stored back to back, all entries in one buffer:
// adding a form allocates nothing until the buffers outgrow their inline
// room (int64 path).
template <class Num, size_t kEntries, size_t kForms>
class FormList {
 public:
  size_t size() const { return ends_.size(); }
  std::span<const Num> operator[](size_t i) const {
    const uint32_t begin = i == 0 ? 0 : ends_[i - 1];
    return {entries_.data() + begin, ends_[i] - begin};
  }
  // Returns the new form's index. f must not view this list (adding may
  // move its entries).
  uint32_t push_back(std::span<const Num> f) {
    const size_t base = entries_.size();
    entries_.resize(base + f.size(), Num(0));
    std::copy(f.begin(), f.end(), entries_.begin() + base);
    ends_.push_back(static_cast<uint32_t>(entries_.size()));
    return static_cast<uint32_t>(ends_.size() - 1);
  }

 private:
  Buffer<Num, kEntries> entries_;
  SmallVector<uint32_t, kForms> ends_;  // end of form i in entries_
};

template <class Num>
class Lifter {
 public:
  // A view of a form the lifter keeps: valid until the next Lift / LiftRef
  // (which may add forms).
  using Row = std::span<const Num>;

  Lifter(int num_dims, int num_symbols)
      : num_dims_(num_dims), num_symbols_(num_symbols) {
    num_vars_ = num_dims + num_symbols;
  }

  // Ranges of sub-expressions over the map's variable box, for lifting
  // semi-affine products (none: products are unsupported). Set it only
  // when every lifted expression ranges over that one box.
  void set_range_of(std::function<Interval(Expr)> range_of) {
    range_of_ = std::move(range_of);
  }

  int num_vars() const { return num_vars_; }
  int first_lifted() const { return num_dims_ + num_symbols_ + 1; }
  // The two rows defining lifted variable (column) v (for min / max: the
  // relaxation rows).
  std::pair<Row, Row> Definition(int v) const {
    const Lifted& l = lifted(v);
    return {forms_[l.def[0]], forms_[l.def[1]]};
  }
  // Whether v is a min / max variable, which needs one of its two case rows
  // (CaseRow(v, 0) or CaseRow(v, 1)) on top of its definition.
  bool IsMinMax(int v) const {
    return lifted(v).kind == Kind::kMin || lifted(v).kind == Kind::kMax;
  }
  // Whether v is a product p = a * b of two non-constant forms. Its
  // definition is empty: the caller adds ProductRows for the factors'
  // ranges (McCormick's envelope, exact once a factor is a point) and
  // narrows the ranges where a witness breaks p = a * b.
  bool IsProduct(int v) const { return lifted(v).kind == Kind::kProduct; }
  Row ProductFactor(int v, int which) const {
    return forms_[which == 0 ? lifted(v).a : lifted(v).b];
  }
  // The factors' ranges over the variable box.
  Interval ProductRange(int v, int which) const {
    return lifted(v).range[which];
  }
  // Whether the values w give the product variable v exactly a * b.
  bool ExactProduct(int v, Row w) const {
    const Lifted& m = lifted(v);
    return w[v - 1] == Eval(forms_[m.a], w) * Eval(forms_[m.b], w);
  }
  // The four rows of McCormick's envelope of p = x * y for x in
  // [xl, xu], y in [yl, yu]: (x - xl)(y - yl) >= 0, (xu - x)(yu - y) >= 0,
  // (xu - x)(y - yl) >= 0 and (x - xl)(yu - y) >= 0, with x*y read as p.
  // At a point of the box they hold for p = x * y; when x or y is fixed
  // they pin p to it.
  void ProductRows(int v, const Num& xl, const Num& xu, const Num& yl,
                   const Num& yu, Form<Num> out[4]) const {
    const Lifted& m = lifted(v);
    Form<Num> p(v + 1, Num(0));
    p[v] = Num(1);
    const Row x = forms_[m.a], y = forms_[m.b];
    // p - xl*y - yl*x + xl*yl >= 0
    out[0] = AddScaled(AddScaled(p, y, -xl), x, -yl);
    out[0][0] += xl * yl;
    // p - xu*y - yu*x + xu*yu >= 0
    out[1] = AddScaled(AddScaled(p, y, -xu), x, -yu);
    out[1][0] += xu * yu;
    // -p + xu*y + yl*x - xu*yl >= 0
    out[2] = AddScaled(AddScaled(Scale(p, Num(-1)), y, xu), x, yl);
    out[2][0] -= xu * yl;
    // -p + xl*y + yu*x - xl*yu >= 0
    out[3] = AddScaled(AddScaled(Scale(p, Num(-1)), y, xl), x, yu);
    out[3][0] -= xl * yu;
  }
  Row CaseRow(int v, int which) const { return forms_[lifted(v).cases[which]]; }
  // Whether the values w (w[j - 1] for column j) give v exactly the min /
  // max of its operands.
  bool Exact(int v, Row w) const {
    const Lifted& m = lifted(v);
    Num a = Eval(forms_[m.a], w), b = Eval(forms_[m.b], w), x = w[v - 1];
    return m.kind == Kind::kMin ? x == (a < b ? a : b) : x == (a < b ? b : a);
  }

  // The linear form of e. Errors: a semi-affine node (unsupported), a zero
  // divisor or an out-of-range variable (invalid argument).
  Result<Form<Num>> Lift(Expr e) {
    IXA_ASSIGN_OR_RETURN(uint32_t i, LiftIndex(e));
    return Copy(forms_[i]);
  }

  // Lift without a copy: a view of the form memoized for e.
  Result<Row> LiftRef(Expr e) {
    IXA_ASSIGN_OR_RETURN(uint32_t i, LiftIndex(e));
    return forms_[i];
  }

 private:
  enum class Kind : uint8_t { kDiv, kMin, kMax, kProduct };
  // A lifted variable; its forms are indices into forms_.
  struct Lifted {
    Kind kind;
    uint32_t def[2];    // the definition (min / max: the relaxation)
    uint32_t a, b;      // the key: div: numerator a; min / max: operands
    uint32_t cases[2];  // min / max: m = a, m = b
    Num d;              // div: the (positive) divisor
    uint64_t hash;      // of the key
    Interval range[2];  // product: the factors' ranges
  };

  const Lifted& lifted(int v) const { return lifted_[v - first_lifted()]; }

  static Num Eval(Row f, Row w) {
    Num v = f[0];
    for (size_t j = 1; j < f.size(); ++j) {
      if (!NIsZero(f[j])) v += f[j] * w[j - 1];
    }
    return v;
  }

  // The index in forms_ of e's form; a tree's shared nodes are lifted once.
  Result<uint32_t> LiftIndex(Expr e) {
    if (const uint32_t* known = memo_.Find(e.node())) return *known;
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
        IXA_ASSIGN_OR_RETURN(uint32_t l, LiftIndex(e.lhs()));
        IXA_ASSIGN_OR_RETURN(uint32_t r, LiftIndex(e.rhs()));
        IXA_ASSIGN_OR_RETURN(f, Combine(e, l, r));
        break;
      }
    }
    Trim(&f);
    const uint32_t i = forms_.push_back(f);
    memo_.Put(e.node(), i);
    return i;
  }

  static Form<Num> Copy(Row f) {
    Form<Num> out;
    out.assign(f.begin(), f.end());
    return out;
  }

  // The form of e from those of its operands (indices into forms_).
  Result<Form<Num>> Combine(Expr e, uint32_t li, uint32_t ri) {
    // Views until a variable is lifted (Floor and LiftMinMax add forms).
    const Row l = forms_[li], r = forms_[ri];
    switch (e.kind()) {
      case ExprKind::kAdd:
        return AddScaled(l, r, Num(1));
      case ExprKind::kMul:
        if (IsConstantForm(r)) return Scale(l, r[0]);
        if (IsConstantForm(l)) return Scale(r, l[0]);
        if (range_of_) {
          const Interval ra = range_of_(e.lhs()), rb = range_of_(e.rhs());
          if (IsBoundedRange(ra) && IsBoundedRange(rb)) {
            return LiftProduct(Copy(l), Copy(r), ra, rb);
          }
        }
        return Error::Unsupported(
            "semi-affine product '" + PrintExpr(e) +
            "' (a variable multiplier) in an exact decision");
      case ExprKind::kMin:
      case ExprKind::kMax:
        return LiftMinMax(e.kind() == ExprKind::kMin, Copy(l), Copy(r));
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
        return Floor(Copy(l), d);
      case ExprKind::kCeilDiv:
        return Scale(Floor(Scale(l, Num(-1)), d), Num(-1));
      default: {  // kMod (the only kind left): x - d * floor(x / d)
        Form<Num> q = Floor(Copy(l), d);
        return AddScaled(forms_[li], q, -d);  // l may have moved
      }
    }
  }

  static uint64_t KeyHash(Kind kind, Row a, Row b, const Num& d) {
    uint64_t h = static_cast<uint64_t>(kind);
    auto mix = [&](uint64_t v) { h = (h ^ v) * 0x9E3779B97F4A7C15ull; };
    for (const Num& x : a) mix(NHash(x));
    mix(a.size());
    for (const Num& x : b) mix(NHash(x));
    mix(NHash(d));
    return h;
  }

  // The variable already lifted for the key (kind, a, b, d), or -1. A
  // linear scan comparing hashes first: a map has few distinct divisions
  // and min / max.
  int FindLifted(Kind kind, uint64_t hash, Row a, Row b, const Num& d) const {
    auto equal = [](Row x, Row y) {
      return std::equal(x.begin(), x.end(), y.begin(), y.end());
    };
    for (size_t i = 0; i < lifted_.size(); ++i) {
      const Lifted& l = lifted_[i];
      if (l.hash != hash || l.kind != kind || l.d != d) continue;
      if (!equal(forms_[l.a], a)) continue;
      if (kind != Kind::kDiv && !equal(forms_[l.b], b)) continue;
      return first_lifted() + static_cast<int>(i);
    }
    return -1;
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
    const Kind kind = is_min ? Kind::kMin : Kind::kMax;
    const uint64_t hash = KeyHash(kind, a, b, Num(0));
    int m = FindLifted(kind, hash, a, b, Num(0));
    if (m < 0) {
      m = ++num_vars_;
      Form<Num> m_form(m + 1, Num(0));
      m_form[m] = Num(1);
      // Relaxation: min: a - m >= 0, b - m >= 0; max: m - a >= 0, m - b >= 0.
      // Cases: min: m - a >= 0 (m = a), m - b >= 0; max: a - m >= 0, b - m.
      Form<Num> a_minus_m = AddScaled(a, m_form, Num(-1));
      Form<Num> b_minus_m = AddScaled(b, m_form, Num(-1));
      Form<Num> m_minus_a = Scale(a_minus_m, Num(-1));
      Form<Num> m_minus_b = Scale(b_minus_m, Num(-1));
      Lifted info{};
      info.kind = kind;
      info.d = Num(0);
      info.hash = hash;
      info.a = forms_.push_back(a);
      info.b = forms_.push_back(b);
      if (is_min) {
        info.def[0] = forms_.push_back(a_minus_m);
        info.def[1] = forms_.push_back(b_minus_m);
        info.cases[0] = forms_.push_back(m_minus_a);
        info.cases[1] = forms_.push_back(m_minus_b);
      } else {
        info.def[0] = forms_.push_back(m_minus_a);
        info.def[1] = forms_.push_back(m_minus_b);
        info.cases[0] = forms_.push_back(a_minus_m);
        info.cases[1] = forms_.push_back(b_minus_m);
      }
      lifted_.push_back(info);
    }
    Form<Num> f(m + 1, Num(0));
    f[m] = Num(1);
    return f;
  }

  static bool IsBoundedRange(const Interval& r) {
    return r.IsFeasible() && r.lower != kInt64Min && r.upper != kInt64Max;
  }

  // A fresh variable p for a * b (see IsProduct); identical (a, b) share
  // one variable.
  Form<Num> LiftProduct(Form<Num> a, Form<Num> b, Interval ra, Interval rb) {
    Trim(&a);
    Trim(&b);
    const uint64_t hash = KeyHash(Kind::kProduct, a, b, Num(0));
    int p = FindLifted(Kind::kProduct, hash, a, b, Num(0));
    if (p < 0) {
      p = ++num_vars_;
      Lifted info{};
      info.kind = Kind::kProduct;
      info.d = Num(0);
      info.hash = hash;
      info.a = forms_.push_back(a);
      info.b = forms_.push_back(b);
      // No definition rows: the caller adds the envelope (ProductRows).
      const Form<Num> none{Num(0)};
      info.def[0] = forms_.push_back(none);
      info.def[1] = info.def[0];
      info.range[0] = ra;
      info.range[1] = rb;
      lifted_.push_back(info);
    }
    Form<Num> f(p + 1, Num(0));
    f[p] = Num(1);
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
    const uint64_t hash = KeyHash(Kind::kDiv, x, Row(), d);
    int q = FindLifted(Kind::kDiv, hash, x, Row(), d);
    if (q < 0) {
      q = ++num_vars_;
      // x - d*q >= 0 and d*q + d - 1 - x >= 0.
      Form<Num> q_form(q + 1, Num(0));
      q_form[q] = Num(1);
      Form<Num> lower = AddScaled(x, q_form, -d);
      Form<Num> upper = AddScaled(Scale(x, Num(-1)), q_form, d);
      upper[0] += d - Num(1);
      Lifted info{};
      info.kind = Kind::kDiv;
      info.d = d;
      info.hash = hash;
      info.a = forms_.push_back(x);
      info.def[0] = forms_.push_back(lower);
      info.def[1] = forms_.push_back(upper);
      lifted_.push_back(info);
    }
    Form<Num> f(q + 1, Num(0));
    f[q] = Num(1);
    return f;
  }

  std::function<Interval(Expr)> range_of_;
  int num_dims_, num_symbols_, num_vars_;
  NodeMap<uint32_t> memo_;  // node -> its form in forms_
  // Every form kept: of each lifted node, and the keys and rows of the
  // lifted variables.
  FormList<Num, 256, 64> forms_;
  Buffer<Lifted, 16> lifted_;  // column first_lifted() + i
};

}  // namespace ixa::decide_internal

#endif  // IXA_SIMPLIFIER_DECIDE_LIFT_H_
