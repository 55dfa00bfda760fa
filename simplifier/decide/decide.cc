// Exact decisions over indexing-map domains (simplifier/decide.h).
//
// Every query becomes "is this linear integer system feasible?": the map's
// variable bounds and constraints are lifted (lift.h) into linear rows over
// the dims, symbols and one fresh variable per distinct floordiv/mod, plus
// the query's extra half-space, and the Omega test (omega.h) decides it with
// a witness point. The numbers are checked int64 first; on overflow the
// whole query is redone with boost cpp_int, so no wrapped value ever
// decides anything. A work budget bounds each call: on exhaustion the answer
// is limit_exceeded (or, for small boxes, brute-force enumeration), never a
// guess.
#include "simplifier/decide.h"

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include "core/budget.h"
#include "core/int_math.h"
#include "core/text.h"
#include "simplifier/decide/lift.h"
#include "simplifier/decide/num.h"
#include "simplifier/decide/omega.h"

namespace ixa {
namespace decide_internal {
namespace {

using boost::multiprecision::cpp_int;

// The arbitrary-precision number type of the slow path; same interface as
// I64 (num.h).
class Big {
 public:
  Big() = default;
  Big(int64_t v) : v_(v) {}    // NOLINT: implicit like I64
  Big(I64 v) : v_(v.raw()) {}  // NOLINT
  explicit Big(cpp_int v) : v_(std::move(v)) {}

  friend Big operator+(const Big& a, const Big& b) {
    return Big(cpp_int(a.v_ + b.v_));
  }
  friend Big operator-(const Big& a, const Big& b) {
    return Big(cpp_int(a.v_ - b.v_));
  }
  friend Big operator*(const Big& a, const Big& b) {
    return Big(cpp_int(a.v_ * b.v_));
  }
  friend Big operator-(const Big& a) { return Big(cpp_int(-a.v_)); }
  Big& operator+=(const Big& o) {
    v_ += o.v_;
    return *this;
  }
  Big& operator-=(const Big& o) {
    v_ -= o.v_;
    return *this;
  }
  Big& operator*=(const Big& o) {
    v_ *= o.v_;
    return *this;
  }
  friend bool operator==(const Big& a, const Big& b) { return a.v_ == b.v_; }
  friend std::strong_ordering operator<=>(const Big& a, const Big& b) {
    int c = a.v_.compare(b.v_);
    return c < 0   ? std::strong_ordering::less
           : c > 0 ? std::strong_ordering::greater
                   : std::strong_ordering::equal;
  }
  friend Big NFloorDiv(const Big& a, const Big& b) {
    cpp_int q = a.v_ / b.v_;  // truncates
    if (q * b.v_ != a.v_ && ((a.v_ < 0) != (b.v_ < 0))) --q;
    return Big(std::move(q));
  }
  friend Big NCeilDiv(const Big& a, const Big& b) {
    cpp_int q = a.v_ / b.v_;
    if (q * b.v_ != a.v_ && ((a.v_ < 0) == (b.v_ < 0))) ++q;
    return Big(std::move(q));
  }
  friend Big NMod(const Big& a, const Big& b) {
    return a - b * NFloorDiv(a, b);
  }
  friend Big NExactDiv(const Big& a, const Big& b) {
    return Big(cpp_int(a.v_ / b.v_));
  }
  friend bool NDivides(const Big& d, const Big& a) {
    return cpp_int(a.v_ % d.v_) == 0;
  }
  friend Big NAbs(const Big& a) { return Big(cpp_int(abs(a.v_))); }
  friend Big NGcd(const Big& a, const Big& b) {
    return Big(cpp_int(gcd(abs(a.v_), abs(b.v_))));
  }
  friend int NSign(const Big& a) { return a.v_.sign(); }
  friend bool NIsZero(const Big& a) { return a.v_.is_zero(); }
  friend std::optional<int64_t> NToInt64(const Big& a) {
    if (a.v_ < cpp_int(kInt64Min) || a.v_ > cpp_int(kInt64Max)) {
      return std::nullopt;
    }
    return static_cast<int64_t>(a.v_);
  }
  // Equal values hash equal; the slow path needs no more.
  friend uint64_t NHash(const Big& a) {
    return static_cast<uint64_t>(
        static_cast<int64_t>(cpp_int(a.v_ % cpp_int(1000000007))));
  }

 private:
  cpp_int v_;
};

// Whether the int64 limits of a variable's bounds are kept as real bounds.
// The first attempt treats them as "unbounded" (interval.h's sentinels),
// which keeps the numbers small; a witness that then falls outside int64
// makes the query run again with them kept, which is the exact int64
// semantics: a point's coordinates are int64 values.
// A constraint's interval keeps its sentinels in both attempts: an end at
// an int64 limit is unbounded (docs/xla-reference.md, Interval: "the
// min/max values act as sentinels"), so `e in [0, INT64_MAX]` holds where
// e is past INT64_MAX, as the simplifier's constraint rules
// (simplifier/constraints.cc) and IndexingMap::InDomain read it. Keeping
// them as bounds here made `bounds` (which always runs with kBounds) call
// such a domain empty while `is_empty` called it non-empty (difftest).
enum class Sentinels { kUnbounded, kBounds };

// A witness's dims and symbols in int64.
using Coordinates = SmallVector<int64_t, 16>;

// A map's domain as atoms `row >= 0` (two per variable and constraint at
// most; inline for small maps on the int64 path).
template <class Num>
using Atoms = FormList<Num, 128, 32>;

// One query's encoding: the lifter shared by both maps, each map's domain
// as `row >= 0` atoms, and the solver with the call's budget.
template <class Num>
class Encoding {
 public:
  Encoding(int num_dims, int num_symbols, int64_t budget, Sentinels sentinels)
      : lifter_(num_dims, num_symbols),
        solver_(budget),
        sentinels_(sentinels),
        num_point_vars_(num_dims + num_symbols) {}

  Lifter<Num>& lifter() { return lifter_; }
  OmegaSolver<Num>& solver() { return solver_; }

  // The domain of `map` (bounds and constraints) as atoms row >= 0.
  Result<Atoms<Num>> Domain(const IndexingMap& map) {
    Atoms<Num> atoms;
    auto add_bounds = [&](std::span<const Num> f, Interval iv,
                          bool is_variable) {
      bool keep = is_variable && sentinels_ == Sentinels::kBounds;
      if (iv.lower != kInt64Min || keep) {
        atoms.push_back(AddScaled(f, Form<Num>{Num(iv.lower)}, Num(-1)));
      }
      if (iv.upper != kInt64Max || keep) {
        atoms.push_back(AddScaled(Form<Num>{Num(iv.upper)}, f, Num(-1)));
      }
    };
    for (int i = 0; i < map.num_dims(); ++i) {
      Form<Num> f(2 + i, Num(0));
      f[1 + i] = Num(1);
      add_bounds(f, map.dims()[i].bounds, /*is_variable=*/true);
    }
    for (int i = 0; i < map.num_symbols(); ++i) {
      Form<Num> f(2 + map.num_dims() + i, Num(0));
      f[1 + map.num_dims() + i] = Num(1);
      add_bounds(f, map.symbol(i).bounds, /*is_variable=*/true);
    }
    for (const Constraint& c : map.constraints()) {
      IXA_ASSIGN_OR_RETURN(std::span<const Num> f, lifter_.LiftRef(c.expr));
      add_bounds(f, c.interval, /*is_variable=*/false);
    }
    return atoms;
  }

  // Finds a point satisfying every row of `sets` and `extra` (if any), in
  // which the lifted variables of `defined` also hold their values.
  // nullopt when there is none. Throws BudgetExhausted / Overflow.
  std::optional<Witness<Num>> Find(
      std::initializer_list<const Atoms<Num>*> sets,
      const Form<Num>* extra = nullptr, const Form<Num>* defined = nullptr) {
    System<Num> s;
    s.cols = 1 + lifter_.num_vars();
    // Only the definitions of lifted variables that the rows reach: the
    // others are satisfiable on their own and would only cost work.
    SmallVector<char, 32> seen(s.cols, 0);
    SmallVector<int, 16> work;
    auto reach = [&](std::span<const Num> row) {
      for (size_t j = lifter_.first_lifted(); j < row.size(); ++j) {
        if (!NIsZero(row[j]) && !seen[j]) {
          seen[j] = 1;
          work.push_back(static_cast<int>(j));
        }
      }
    };
    auto add = [&](std::span<const Num> row) {
      s.AddGeq(row);
      reach(row);
    };
    if (defined) reach(*defined);
    for (const Atoms<Num>* set : sets) {
      for (size_t i = 0; i < set->size(); ++i) add((*set)[i]);
    }
    if (extra) add(*extra);
    SmallVector<int, 16> minmax;       // reached min / max variables
    std::vector<ProductBox> products;  // reached products
    while (!work.empty()) {
      int v = work.back();
      work.pop_back();
      if (lifter_.IsProduct(v)) {
        ProductBox box{v, {}, {}};
        for (int f = 0; f < 2; ++f) {
          const Interval r = lifter_.ProductRange(v, f);
          box.lo[f] = Num(r.lower);
          box.hi[f] = Num(r.upper);
        }
        Form<Num> rows[4];
        lifter_.ProductRows(v, box.lo[0], box.hi[0], box.lo[1], box.hi[1],
                            rows);
        for (const Form<Num>& r : rows) add(r);
        products.push_back(box);
        continue;
      }
      const auto def = lifter_.Definition(v);
      add(def.first);
      add(def.second);
      if (lifter_.IsMinMax(v)) minmax.push_back(v);
    }
    std::sort(minmax.begin(), minmax.end());  // deterministic branching
    std::sort(
        products.begin(), products.end(),
        [](const ProductBox& a, const ProductBox& b) { return a.v < b.v; });
    return SolveCases(s, minmax, products);
  }

  // A product variable and its factors' ranges in the current branch.
  struct ProductBox {
    int v;
    Num lo[2], hi[2];
  };

  // Solves s, in which every min / max variable of `minmax` has only its
  // relaxation rows (lift.h), exactly: a witness of the relaxation in which
  // every such variable already equals its min / max is a witness; else
  // the first variable that does not is split into its two cases (one row
  // each, which pins it), and each case is solved the same way. The
  // relaxation holds in both cases, so an infeasible relaxation prunes the
  // whole subtree. Each solve is charged to the budget.
  // Products (p = x * y, lift.h) are solved the same way with McCormick's
  // envelope of the factors' ranges as the relaxation: a witness where
  // some p is not x * y splits the wider factor's range at its middle, and
  // each half adds its bound and the envelope of the narrower box. The
  // envelope is exact once a factor's range is a point, so every branch
  // ends (the budget bounds the work).
  // s is the solver's to change.
  std::optional<Witness<Num>> SolveCases(System<Num>& s,
                                         std::span<const int> minmax,
                                         std::span<const ProductBox> products) {
    Witness<Num> point;
    System<Num> copy;
    if (!minmax.empty() || !products.empty()) copy = s;
    if (!solver_.Solve(s, &point)) return std::nullopt;
    point.resize(std::max<size_t>(point.size(), lifter_.num_vars()), Num(0));
    for (int v : minmax) {
      if (lifter_.Exact(v, point)) continue;
      for (int which = 0; which < 2; ++which) {
        System<Num> split = copy;
        split.AddGeq(lifter_.CaseRow(v, which));
        if (auto w = SolveCases(split, minmax, products)) return w;
      }
      return std::nullopt;
    }
    for (size_t i = 0; i < products.size(); ++i) {
      const ProductBox& box = products[i];
      if (lifter_.ExactProduct(box.v, point)) continue;
      const int f = box.hi[0] - box.lo[0] >= box.hi[1] - box.lo[1] ? 0 : 1;
      const Num mid = box.lo[f] + NFloorDiv(box.hi[f] - box.lo[f], Num(2));
      const auto factor = lifter_.ProductFactor(box.v, f);
      for (int half = 0; half < 2; ++half) {
        std::vector<ProductBox> narrowed(products.begin(), products.end());
        ProductBox& nb = narrowed[i];
        Form<Num> bound;
        if (half == 0) {
          nb.hi[f] = mid;  // mid - factor >= 0
          bound = AddScaled(Form<Num>{mid}, factor, Num(-1));
        } else {
          nb.lo[f] = mid + Num(1);  // factor - mid - 1 >= 0
          bound = AddScaled(factor, Form<Num>{-(mid + Num(1))}, Num(1));
        }
        System<Num> split = copy;
        split.AddGeq(bound);
        Form<Num> rows[4];
        lifter_.ProductRows(nb.v, nb.lo[0], nb.hi[0], nb.lo[1], nb.hi[1], rows);
        for (const Form<Num>& r : rows) split.AddGeq(r);
        if (auto w = SolveCases(split, minmax, narrowed)) return w;
      }
      return std::nullopt;
    }
    return point;
  }

  // The dims and then the symbols of a witness, or false if one does not
  // fit int64 (only possible with Sentinels::kUnbounded).
  bool ToInt64(std::span<const Num> w, Coordinates* out) const {
    out->clear();
    for (int i = 0; i < num_point_vars_; ++i) {
      std::optional<int64_t> v = NToInt64(w[i]);
      if (!v) return false;
      out->push_back(*v);
    }
    return true;
  }
  std::optional<Point> ToPoint(std::span<const Num> w, int num_dims) const {
    Coordinates x;
    if (!ToInt64(w, &x)) return std::nullopt;
    Point p;
    p.dims.assign(x.begin(), x.begin() + num_dims);
    p.symbols.assign(x.begin() + num_dims, x.end());
    return p;
  }

 private:
  Lifter<Num> lifter_;
  OmegaSolver<Num> solver_;
  Sentinels sentinels_;
  int num_point_vars_;
};

template <class F, class Num = typename F::value_type>
Num EvalForm(const F& f, std::type_identity_t<std::span<const Num>> w) {
  Num v = f[0];
  for (size_t j = 1; j < f.size(); ++j) {
    if (!NIsZero(f[j])) v += f[j] * w[j - 1];
  }
  return v;
}

// not(row >= 0)  <=>  -row - 1 >= 0.
template <class Num>
Form<Num> NegateForm(std::span<const Num> row) {
  Form<Num> r = Scale(row, Num(-1));
  r[0] -= Num(1);
  return r;
}

// True if `atom` is syntactically implied by a row of `rows` (same
// coefficients, constant no larger): a cheap filter before a solver call.
template <class Num>
bool Implied(std::span<const Num> atom, const Atoms<Num>& rows) {
  for (size_t i = 0; i < rows.size(); ++i) {
    std::span<const Num> r = rows[i];
    if (r.size() != atom.size() || r[0] > atom[0]) continue;
    if (std::equal(r.begin() + 1, r.end(), atom.begin() + 1)) return true;
  }
  return false;
}

// Runs `body` with I64 numbers, and again with Big ones if that overflowed.
// `body(Num{}, sentinels)` returns Result<T>, or nullopt to ask for a rerun
// with Sentinels::kBounds (a witness outside int64).
template <class T, class Body>
Result<T> RunExact(const Body& body, const char* what) {
  try {
    for (Sentinels s : {Sentinels::kUnbounded, Sentinels::kBounds}) {
      std::optional<Result<T>> r;
      try {
        r = body(I64(), s);
      } catch (const Overflow&) {
        r = body(Big(), s);
      }
      if (r) return std::move(*r);
    }
    return Error{ErrorCode::kInternal,
                 std::string(what) + ": witness outside int64", 0, 0};
  } catch (const BudgetExhausted&) {
    if (DeadlineExpiredIn()) return DeadlineError();
    return Error::Limit(std::string(what) +
                        ": decision budget exhausted (raise the budget)");
  } catch (const InternalFailure& f) {
    return Error{ErrorCode::kInternal, std::string(what) + ": " + f.what, 0, 0};
  }
}

// Brute force on small boxes: the fallback for semi-affine maps and for
// problems that exhaust the budget.
int64_t EnumerationLimit(const DecideOptions& options) {
  return std::min<int64_t>(
      kDefaultEnumerationLimit,
      SaturatingMul(std::max<int64_t>(options.budget, 0), 4));
}

bool IsFallbackError(const Error& e) {
  return e.code == ErrorCode::kUnsupported ||
         e.code == ErrorCode::kLimitExceeded;
}

// Whether the map's domain has a point; *point (if not null) receives one.
// IsEmpty passes null: no Point is built for it.
Result<bool> FindPointExact(const IndexingMap& map, const DecideOptions& opt,
                            Point* point) {
  using R = Result<bool>;
  auto body = [&]<class Num>(Num, Sentinels s) -> std::optional<R> {
    Encoding<Num> enc(map.num_dims(), map.num_symbols(), opt.budget, s);
    enc.lifter().set_range_of(
        [&map](Expr e) { return RangeOverBounds(e, map); });
    auto dom = enc.Domain(map);
    if (!dom.ok()) return R(dom.error());
    auto w = enc.Find({&*dom});
    if (!w) return R(false);
    Coordinates x;
    if (!enc.ToInt64(*w, &x)) return std::nullopt;
    const std::span<const int64_t> dims(x.data(), map.num_dims());
    const std::span<const int64_t> symbols(x.data() + map.num_dims(),
                                           map.num_symbols());
    // Self-check: a claimed point must really be in the domain.
    auto in = map.InDomain(dims, symbols);
    if (in.ok() && !*in) throw InternalFailure{"witness not in the domain"};
    if (point) {
      point->dims.assign(dims.begin(), dims.end());
      point->symbols.assign(symbols.begin(), symbols.end());
    }
    return R(true);
  };
  return RunExact<bool>(body, "is_empty");
}

// FindPoint and IsEmpty: the exact procedure, else enumeration on a small
// box. *point (if not null) receives the point found.
Result<bool> HasPoint(const IndexingMap& map, const DecideOptions& options,
                      Point* point) {
  if (map.IsKnownEmpty()) return false;
  auto r = FindPointExact(map, options, point);
  if (!r.ok() && IsFallbackError(r.error()) && !DeadlineExpiredIn()) {
    bool found = false;
    auto brute =
        ForEachDomainPoint(map, EnumerationLimit(options), [&](const Point& p) {
          found = true;
          if (point) *point = p;
          return false;
        });
    if (brute.ok()) return found;
  }
  return r;
}

// A counterexample must really distinguish the maps; checked by evaluation.
bool Distinguishes(const IndexingMap& a, const IndexingMap& b, const Point& p) {
  auto in_a = a.InDomain(p.dims, p.symbols);
  auto in_b = b.InDomain(p.dims, p.symbols);
  if (!in_a.ok() || !in_b.ok()) return true;  // cannot check; trust proof
  if (*in_a != *in_b) return true;
  if (!*in_a) return false;
  auto ra = a.Evaluate(p.dims, p.symbols);
  auto rb = b.Evaluate(p.dims, p.symbols);
  if (!ra.ok() || !rb.ok()) return true;
  return *ra != *rb;
}

Result<Equivalence> EquivalentExact(const IndexingMap& a, const IndexingMap& b,
                                    const DecideOptions& opt) {
  auto body = [&]<class Num>(
                  Num, Sentinels s) -> std::optional<Result<Equivalence>> {
    using R = Result<Equivalence>;
    Encoding<Num> enc(a.num_dims(), a.num_symbols(), opt.budget, s);
    auto dom_a = enc.Domain(a);
    if (!dom_a.ok()) return R(dom_a.error());
    auto dom_b = enc.Domain(b);
    if (!dom_b.ok()) return R(dom_b.error());
    std::optional<Witness<Num>> w;
    // Domain B within A: no point of B violates an atom of A; and back.
    for (int dir = 0; dir < 2 && !w; ++dir) {
      const auto& outer = dir == 0 ? *dom_a : *dom_b;
      const auto& inner = dir == 0 ? *dom_b : *dom_a;
      for (size_t i = 0; i < outer.size(); ++i) {
        std::span<const Num> atom = outer[i];
        if (Implied(atom, inner)) continue;
        Form<Num> neg = NegateForm(atom);
        w = enc.Find({&inner}, &neg);
        if (w) break;
      }
    }
    // Same results on the (common) domain.
    for (int i = 0; i < a.num_results() && !w; ++i) {
      auto fa = enc.lifter().Lift(a.results()[i]);
      if (!fa.ok()) return R(fa.error());
      auto fb = enc.lifter().Lift(b.results()[i]);
      if (!fb.ok()) return R(fb.error());
      Form<Num> diff = AddScaled(*fa, *fb, Num(-1));
      if (IsConstantForm(diff) && NIsZero(diff[0])) continue;
      for (const Num& sign : {Num(1), Num(-1)}) {
        Form<Num> gap = Scale(diff, sign);  // sign*(f - g) - 1 >= 0
        gap[0] -= Num(1);
        w = enc.Find({&*dom_a}, &gap);
        if (w) break;
      }
    }
    Equivalence eq;
    if (!w) return R(eq);
    std::optional<Point> p = enc.ToPoint(*w, a.num_dims());
    if (!p) return std::nullopt;
    if (!Distinguishes(a, b, *p)) {
      throw InternalFailure{"counterexample does not distinguish the maps"};
    }
    eq.equivalent = false;
    eq.counterexample = std::move(*p);
    return R(std::move(eq));
  };
  return RunExact<Equivalence>(body, "equivalent");
}

// Exact minimum of f over the rows, by binary search on f <= mid between a
// proven lower bound and the best witness value. `exact` is false when the
// budget ran out: the value is then a proven lower bound. `lower` must be a
// valid lower bound of f; `attained` a value of f at a feasible point.
template <class Num>
std::pair<Num, bool> Minimize(Encoding<Num>& enc, const Atoms<Num>& rows,
                              const Form<Num>& f, Num lower, Num attained) {
  try {
    while (lower < attained) {
      Num mid = lower + NFloorDiv(attained - lower, Num(2));
      Form<Num> cut = Scale(f, Num(-1));  // mid - f >= 0
      cut[0] += mid;
      auto w = enc.Find({&rows}, &cut);
      if (w) {
        attained = EvalForm(f, *w);
      } else {
        lower = mid + Num(1);
      }
    }
    return {attained, true};
  } catch (const BudgetExhausted&) {
    return {lower, false};
  }
}

Result<ExprBounds> BoundsExact(const IndexingMap& map, Expr e,
                               const DecideOptions& opt) {
  const Interval box = RangeOverBounds(e, map);
  auto body = [&]<class Num>(Num,
                             Sentinels s) -> std::optional<Result<ExprBounds>> {
    using R = Result<ExprBounds>;
    (void)s;
    // Sentinel bounds are kept here: the extremes must be those of the
    // int64 domain.
    Encoding<Num> enc(map.num_dims(), map.num_symbols(), opt.budget,
                      Sentinels::kBounds);
    enc.lifter().set_range_of(
        [&map](Expr e) { return RangeOverBounds(e, map); });
    auto dom = enc.Domain(map);
    if (!dom.ok()) return R(dom.error());
    auto f = enc.lifter().Lift(e);
    if (!f.ok()) return R(f.error());
    auto w = enc.Find({&*dom}, nullptr, &*f);
    if (!w) return R(ExprBounds{Interval::Empty(), true});
    Num value = EvalForm(*f, *w);
    ExprBounds out{Interval::Full(), true};
    for (int side = 0; side < 2; ++side) {
      // Minimise f (side 0) or -f (side 1).
      Form<Num> g = side == 0 ? *f : Scale(*f, Num(-1));
      Num attained = side == 0 ? value : -value;
      int64_t box_lower = side == 0 ? box.lower : SaturatingNeg(box.upper);
      Num lower = box_lower;
      bool exact = true;
      if (box_lower == kInt64Min || box_lower == -kInt64Max) {
        // The box bound may be a saturated sentinel: make sure the value
        // cannot go below it before trusting it.
        Form<Num> cut = Scale(g, Num(-1));  // g <= lower - 1
        cut[0] += lower - Num(1);
        // If it can, the sentinel itself is the answer (inexact).
        if (enc.Find({&*dom}, &cut)) exact = false;
      }
      auto [m, ok] = exact ? Minimize(enc, *dom, g, lower, attained)
                           : std::make_pair(lower, false);
      std::optional<int64_t> v = NToInt64(side == 0 ? m : -m);
      if (!v) exact = false;
      int64_t bound = v ? *v : (side == 0 ? kInt64Min : kInt64Max);
      if (!ok || !v) {
        exact = false;
        // Keep the box bound when it is tighter than what was proven.
        bound =
            side == 0 ? std::max(bound, box.lower) : std::min(bound, box.upper);
      }
      (side == 0 ? out.interval.lower : out.interval.upper) = bound;
      out.exact = out.exact && exact;
    }
    return R(out);
  };
  auto r = RunExact<ExprBounds>(body, "bounds");
  if (!r.ok() && r.error().code == ErrorCode::kLimitExceeded) {
    return ExprBounds{box, false};
  }
  return r;
}

}  // namespace
}  // namespace decide_internal

using decide_internal::EnumerationLimit;
using decide_internal::IsFallbackError;

Result<std::optional<Point>> FindPoint(const IndexingMap& map,
                                       const DecideOptions& options) {
  Point p;
  IXA_ASSIGN_OR_RETURN(bool found, decide_internal::HasPoint(map, options, &p));
  if (!found) return std::optional<Point>();
  return std::optional<Point>(std::move(p));
}

Result<bool> IsEmpty(const IndexingMap& map, const DecideOptions& options) {
  IXA_ASSIGN_OR_RETURN(bool found,
                       decide_internal::HasPoint(map, options, nullptr));
  return !found;
}

Result<Equivalence> Equivalent(const IndexingMap& a, const IndexingMap& b,
                               const DecideOptions& options) {
  if (a.num_dims() != b.num_dims() || a.num_symbols() != b.num_symbols() ||
      a.num_results() != b.num_results()) {
    return EquivalentByEnumeration(a, b, 0);  // its invalid_argument message
  }
  if (a.IsKnownEmpty() || b.IsKnownEmpty()) {
    if (a.IsKnownEmpty() && b.IsKnownEmpty()) return Equivalence{};
    // Equivalent iff the other domain is empty too; else any of its points
    // is a counterexample.
    const IndexingMap& other = a.IsKnownEmpty() ? b : a;
    IXA_ASSIGN_OR_RETURN(std::optional<Point> p, FindPoint(other, options));
    Equivalence eq;
    if (p) {
      eq.equivalent = false;
      eq.counterexample = std::move(p);
    }
    return eq;
  }
  auto r = decide_internal::EquivalentExact(a, b, options);
  if (!r.ok() && IsFallbackError(r.error()) && !DeadlineExpiredIn()) {
    auto brute = EquivalentByEnumeration(a, b, EnumerationLimit(options));
    if (brute.ok()) return brute;
  }
  return r;
}

namespace {
Result<ExprBounds> BoundsOfUnpinned(const IndexingMap& map, Expr e,
                                    const DecideOptions& options);
}  // namespace

Result<ExprBounds> BoundsOf(const IndexingMap& map, Expr e,
                            const DecideOptions& options) {
  if (map.IsKnownEmpty()) return ExprBounds{Interval::Empty(), true};
  auto r = BoundsOfUnpinned(map, e, options);
  // A constraint on e itself bounds it at every point of the domain: an
  // over-approximation shrinks to it.
  if (r.ok() && !r->exact) {
    for (const Constraint& c : map.constraints()) {
      if (c.expr == e) r->interval = r->interval.Intersect(c.interval);
    }
  }
  return r;
}

namespace {

Result<ExprBounds> BoundsOfUnpinned(const IndexingMap& map, Expr e,
                                    const DecideOptions& options) {
  auto r = decide_internal::BoundsExact(map, e, options);
  if (!r.ok() && r.error().code == ErrorCode::kUnsupported &&
      !DeadlineExpiredIn()) {
    // Semi-affine: exact by enumeration on small boxes, else the box hull.
    // A value past int64 saturates (and the answer is then inexact), as
    // in BoundsExact.
    Interval hull = Interval::Empty();
    bool exact = true;
    std::optional<Error> error;
    auto visit = [&](const Point& p) {
      auto v = EvaluateSaturated(e, p.dims, p.symbols);
      if (!v.ok()) {
        error = v.error();
        return false;
      }
      if ((*v == kInt64Min || *v == kInt64Max) &&
          !Evaluate(e, p.dims, p.symbols).ok()) {
        exact = false;
      }
      hull = hull.Union(Interval::Point(*v));
      return true;
    };
    auto done = ForEachDomainPoint(map, EnumerationLimit(options), visit);
    if (done.ok() && !error) return ExprBounds{hull, exact};
    if (error) return *error;
    return ExprBounds{RangeOverBounds(e, map), false};
  }
  return r;
}

}  // namespace

}  // namespace ixa
