#include "core/interval.h"

#include <algorithm>

namespace ixa {

int64_t Interval::Size() const {
  if (IsEmpty()) return 0;
  auto d = CheckedSub(upper, lower);
  if (!d || *d == kInt64Max) return kInt64Max;
  return *d + 1;
}

// XLA's Interval semantics: INT64_MIN as a lower end and INT64_MAX as an
// upper end stand for "unbounded" (-inf / +inf) and stay unbounded through
// arithmetic: [100, MAX] + [MIN, MAX] is [MIN, MAX], not [MIN + 100, MAX],
// and [0, MAX] * [-1, -1] is [MIN, 0] (-MAX is -inf, not MIN + 1).
//
// Each end is computed in its own direction so that the result also holds
// when a limit is a real value (a variable bounded by [MAX, MAX]): a lower
// end only ever moves down to MIN and an upper end up to MAX, never the
// other way (intervals are sound over-approximations).
namespace {

bool IsLimit(int64_t v) { return v == kInt64Min || v == kInt64Max; }

int64_t Saturate(bool negative) { return negative ? kInt64Min : kInt64Max; }

// a * b rounded toward -inf (lower = true) or +inf: a factor at an int64
// limit makes the product unbounded in that direction when the product's
// sign points that way; otherwise the exact product, saturating.
int64_t DirectedMul(int64_t a, int64_t b, bool lower) {
  if (a == 0 || b == 0) return 0;
  bool negative = (a < 0) != (b < 0);
  if ((IsLimit(a) || IsLimit(b)) && negative == lower) {
    return Saturate(negative);
  }
  return SaturatingMul(a, b);
}

}  // namespace

Interval Interval::operator+(const Interval& o) const {
  if (IsEmpty() || o.IsEmpty()) return Empty();
  int64_t lo = lower == kInt64Min || o.lower == kInt64Min
                   ? kInt64Min
                   : SaturatingAdd(lower, o.lower);
  int64_t hi = upper == kInt64Max || o.upper == kInt64Max
                   ? kInt64Max
                   : SaturatingAdd(upper, o.upper);
  return {lo, hi};
}

Interval Interval::operator-() const {
  if (IsEmpty()) return Empty();
  // -(+inf) is -inf; -(MIN) is 2^63, which saturates to +inf.
  return {upper == kInt64Max ? kInt64Min : SaturatingNeg(upper),
          SaturatingNeg(lower)};
}

Interval Interval::operator-(const Interval& o) const { return *this + (-o); }

Interval Interval::operator*(const Interval& o) const {
  if (IsEmpty() || o.IsEmpty()) return Empty();
  int64_t lo = kInt64Max, hi = kInt64Min;
  for (int64_t x : {lower, upper}) {
    for (int64_t y : {o.lower, o.upper}) {
      lo = std::min(lo, DirectedMul(x, y, /*lower=*/true));
      hi = std::max(hi, DirectedMul(x, y, /*lower=*/false));
    }
  }
  return {lo, hi};
}

namespace {

// Hull of {floor(x / y) : x in num, y in den} for a divisor interval of one
// sign. floor(x / y) is monotone in x for fixed y and monotone in y for fixed
// x on each side of zero, so the extremes are at the corners.
Interval DivCorners(const Interval& num, const Interval& den, bool ceil) {
  int64_t lo = kInt64Max, hi = kInt64Min;
  for (int64_t x : {num.lower, num.upper}) {
    for (int64_t y : {den.lower, den.upper}) {
      auto q = ceil ? CeilDiv(x, y) : FloorDiv(x, y);
      // Only INT64_MIN / -1 overflows: its true value is 2^63, which
      // saturates to INT64_MAX.
      int64_t v = q ? *q : kInt64Max;
      int64_t v_lo = v, v_hi = v;
      // An unbounded numerator stays unbounded in the quotient's direction
      // (XLA's saturate_div); the divisor's limits are plain values.
      if (IsLimit(x)) {
        if ((x < 0) != (y < 0)) {
          v_lo = kInt64Min;
        } else {
          v_hi = kInt64Max;
        }
      }
      lo = std::min(lo, v_lo);
      hi = std::max(hi, v_hi);
    }
  }
  return {lo, hi};
}

Interval DivImpl(const Interval& num, const Interval& den, bool ceil) {
  if (num.IsEmpty() || den.IsEmpty()) return Interval::Empty();
  Interval result = Interval::Empty();
  bool any = false;
  if (den.upper >= 1) {
    Interval pos{std::max<int64_t>(den.lower, 1), den.upper};
    result = DivCorners(num, pos, ceil);
    any = true;
  }
  if (den.lower <= -1) {
    Interval neg{den.lower, std::min<int64_t>(den.upper, -1)};
    Interval r = DivCorners(num, neg, ceil);
    result = any ? result.Union(r) : r;
    any = true;
  }
  return any ? result : Interval::Empty();
}

}  // namespace

Interval Interval::FloorDiv(const Interval& o) const {
  return DivImpl(*this, o, /*ceil=*/false);
}

Interval Interval::CeilDiv(const Interval& o) const {
  return DivImpl(*this, o, /*ceil=*/true);
}

Interval Interval::Mod(const Interval& o) const {
  if (IsEmpty() || o.IsEmpty()) return Empty();
  if (o.IsPoint()) {
    int64_t m = o.lower;
    if (m == 0) return Empty();
    if (m == 1 || m == -1) return Point(0);
    // If the whole range lies in one period, mod is a shift of it. An
    // unbounded end spans every period.
    bool unbounded = lower == kInt64Min || upper == kInt64Max;
    auto q_lo = ixa::FloorDiv(lower, m), q_hi = ixa::FloorDiv(upper, m);
    if (!unbounded && q_lo && q_hi && *q_lo == *q_hi) {
      auto r_lo = ixa::Mod(lower, m), r_hi = ixa::Mod(upper, m);
      return {std::min(*r_lo, *r_hi), std::max(*r_lo, *r_hi)};
    }
    if (m > 0) return {0, m - 1};
    return {m + 1, 0};
  }
  // Variable divisor: the result lies strictly between 0 and the divisor.
  Interval result = Empty();
  bool any = false;
  if (o.upper >= 1) {
    result = {0, o.upper - 1};
    if (lower >= 0) result.upper = std::min(result.upper, upper);
    any = true;
  }
  if (o.lower <= -1) {
    Interval r{o.lower + 1, 0};
    if (upper <= 0) r.lower = std::max(r.lower, lower);
    result = any ? result.Union(r) : r;
    any = true;
  }
  return result;
}

Interval Interval::Min(const Interval& o) const {
  if (IsEmpty() || o.IsEmpty()) return Empty();
  return {std::min(lower, o.lower), std::min(upper, o.upper)};
}

Interval Interval::Max(const Interval& o) const {
  if (IsEmpty() || o.IsEmpty()) return Empty();
  return {std::max(lower, o.lower), std::max(upper, o.upper)};
}

Interval Interval::Union(const Interval& o) const {
  if (IsEmpty()) return o;
  if (o.IsEmpty()) return *this;
  return {std::min(lower, o.lower), std::max(upper, o.upper)};
}

Interval Interval::Intersect(const Interval& o) const {
  Interval r{std::max(lower, o.lower), std::min(upper, o.upper)};
  if (r.IsEmpty()) return Empty();
  return r;
}

std::optional<bool> Interval::Gt(const Interval& o) const {
  if (IsEmpty() || o.IsEmpty()) return std::nullopt;
  if (lower > o.upper) return true;
  if (upper <= o.lower) return false;
  return std::nullopt;
}
std::optional<bool> Interval::Lt(const Interval& o) const {
  return o.Gt(*this);
}
std::optional<bool> Interval::Ge(const Interval& o) const {
  if (IsEmpty() || o.IsEmpty()) return std::nullopt;
  if (lower >= o.upper) return true;
  if (upper < o.lower) return false;
  return std::nullopt;
}
std::optional<bool> Interval::Le(const Interval& o) const {
  return o.Ge(*this);
}
std::optional<bool> Interval::Eq(const Interval& o) const {
  if (IsEmpty() || o.IsEmpty()) return std::nullopt;
  if (IsPoint() && o.IsPoint() && lower == o.lower) return true;
  if (upper < o.lower || o.upper < lower) return false;
  return std::nullopt;
}
std::optional<bool> Interval::Ne(const Interval& o) const {
  auto eq = Eq(o);
  if (!eq) return std::nullopt;
  return !*eq;
}

std::string Interval::ToString() const {
  return "[" + std::to_string(lower) + ", " + std::to_string(upper) + "]";
}

}  // namespace ixa
