// Abstract facts about a sub-expression, as Halide's ExprInfo: a range and
// an alignment,
// computed bottom-up by the rewriter and read by the rules.
//
// Ranges here use the int64 limits as "unbounded" markers and keep them
// sticky: an endpoint that is kInt64Min / kInt64Max means "no bound on this
// side", and every operation that involves such an endpoint yields one again
// (core's saturating Interval arithmetic is not sticky: MAX + (-5) gives a
// finite-looking bound, which a rule must never trust).
#ifndef IXA_SIMPLIFIER_FACTS_H_
#define IXA_SIMPLIFIER_FACTS_H_

#include <cstdint>
#include <optional>
#include <utility>

#include "core/int_math.h"
#include "core/interval.h"

namespace ixa::simp {

// Every value v of the expression satisfies v = modulus * k + remainder for
// some integer k. modulus 0 means the value is exactly `remainder`; modulus 1
// says nothing. Invariant: modulus >= 0 and 0 <= remainder < modulus when
// modulus > 0.
struct Alignment {
  int64_t modulus = 1;
  int64_t remainder = 0;

  static Alignment Unknown() { return {1, 0}; }
  static Alignment Exact(int64_t v) { return {0, v}; }
  bool operator==(const Alignment& o) const = default;
};

Alignment AlignAdd(const Alignment& a, const Alignment& b);
Alignment AlignScale(const Alignment& a, int64_t c);
// Alignment of x mod m (m > 0) and of x floordiv m (m > 0).
Alignment AlignMod(const Alignment& a, int64_t m);
Alignment AlignFloorDiv(const Alignment& a, int64_t m);
// Alignment of a value that is either a value of `a` or one of `b` (min,
// max): the largest modulus both share, gcd(m_a, m_b, r_a - r_b).
Alignment AlignUnion(const Alignment& a, const Alignment& b);

struct Facts {
  Interval range = Interval::Full();
  Alignment align;

  // A single known value (finite).
  std::optional<int64_t> PointValue() const;
};

// Both endpoints are real bounds (not the unbounded markers).
inline bool IsFinite(const Interval& iv) {
  return iv.IsFeasible() && iv.lower != kInt64Min && iv.upper != kInt64Max;
}

// Sticky-unbounded interval arithmetic (see the file comment).
Interval RangeAdd(const Interval& a, const Interval& b);
Interval RangeScale(const Interval& a, int64_t c);
Interval RangeMul(const Interval& a, const Interval& b);
Interval RangeFloorDiv(const Interval& a, const Interval& divisor);
Interval RangeCeilDiv(const Interval& a, const Interval& divisor);
Interval RangeMod(const Interval& a, const Interval& divisor);

// RangeAdd(acc, RangeScale(term, c)), in int64 when every end is finite
// and nothing overflows (then both give the same interval); the general
// path otherwise. The rewriter computes the facts of every sum with it.
inline Interval AddScaledRange(const Interval& acc, const Interval& term,
                               int64_t c) {
  auto finite = [](const Interval& r) {
    return r.lower > kInt64Min && r.upper < kInt64Max && r.lower <= r.upper;
  };
  if (finite(acc) && finite(term)) {
    int64_t a, b, lo, hi;
    if (!__builtin_mul_overflow(term.lower, c, &a) &&
        !__builtin_mul_overflow(term.upper, c, &b)) {
      if (c < 0) std::swap(a, b);
      // A scaled end at an int64 limit would be unbounded on the general
      // path (sticky), so only ends strictly inside take this one.
      if (a > kInt64Min && b < kInt64Max &&
          !__builtin_add_overflow(acc.lower, a, &lo) &&
          !__builtin_add_overflow(acc.upper, b, &hi)) {
        return {lo, hi};
      }
    }
  }
  return RangeAdd(acc, RangeScale(term, c));
}

// Shrinks the range to the nearest values that match the alignment, and
// turns a range that became a single point into an exact alignment.
Facts TrimAligned(Facts f);  // Trim's work when there is any
inline Facts Trim(Facts f) {
  // Inline for the usual fact, no alignment and a range wider than a point
  // (the rewriter trims the facts of every node it visits).
  if (f.align.modulus == 1 &&
      (f.range.IsEmpty() || f.range.lower != f.range.upper)) {
    return f;
  }
  return TrimAligned(f);
}

// If every value of `range` lies in one period [m*d, m*d + d - 1] of d > 0,
// returns m.
std::optional<int64_t> OnePeriod(const Interval& range, int64_t d);

}  // namespace ixa::simp

#endif  // IXA_SIMPLIFIER_FACTS_H_
