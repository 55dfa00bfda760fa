// Inclusive int64 interval with saturating arithmetic and tri-state
// comparisons (docs/xla-reference.md §(a)). The int64 limits act as
// "unbounded" sentinels: arithmetic saturates at them and never wraps.
#ifndef IXA_CORE_INTERVAL_H_
#define IXA_CORE_INTERVAL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/int_math.h"

namespace ixa {

struct Interval {
  int64_t lower = 0;
  int64_t upper = -1;  // default-constructed interval is empty

  static Interval Point(int64_t v) { return {v, v}; }
  static Interval Full() { return {kInt64Min, kInt64Max}; }
  static Interval Empty() { return {0, -1}; }

  bool IsEmpty() const { return lower > upper; }
  bool IsFeasible() const { return lower <= upper; }
  bool IsPoint() const { return lower == upper; }
  bool IsFull() const { return lower == kInt64Min && upper == kInt64Max; }
  bool Contains(int64_t v) const { return lower <= v && v <= upper; }
  bool Contains(const Interval& o) const {
    return o.IsEmpty() || (lower <= o.lower && o.upper <= upper);
  }
  // Number of points, saturating at INT64_MAX; 0 when empty.
  int64_t Size() const;

  bool operator==(const Interval& o) const {
    return (IsEmpty() && o.IsEmpty()) || (lower == o.lower && upper == o.upper);
  }
  bool operator!=(const Interval& o) const { return !(*this == o); }

  // Arithmetic. Results over empty inputs are empty.
  Interval operator+(const Interval& o) const;
  Interval operator-(const Interval& o) const;
  Interval operator-() const;
  Interval operator*(const Interval& o) const;
  Interval operator*(int64_t c) const { return *this * Point(c); }
  Interval operator+(int64_t c) const { return *this + Point(c); }
  // Exact image {floor(x / y)} hulls; for mod, the exact hull when the
  // divisor is a point, else a sound over-approximation (the values lie
  // strictly between 0 and the divisor, and within x when x has one sign:
  // [6, 17] mod [20, 26] gives [0, 17], not [6, 17]). A divisor interval
  // that contains 0 is handled by excluding 0 (division by zero has no
  // value); a divisor of exactly {0} gives an empty interval.
  Interval FloorDiv(const Interval& o) const;
  Interval CeilDiv(const Interval& o) const;
  Interval Mod(const Interval& o) const;
  Interval FloorDiv(int64_t c) const { return FloorDiv(Point(c)); }
  Interval Mod(int64_t c) const { return Mod(Point(c)); }

  // Pointwise min / max of the two values ({min(x, y)} hull).
  Interval Min(const Interval& o) const;
  Interval Max(const Interval& o) const;
  // Convex hull of the union, and the intersection (possibly empty).
  Interval Union(const Interval& o) const;
  Interval Intersect(const Interval& o) const;

  // Tri-state comparisons: true if the relation holds for every pair of
  // points, false if it holds for none, nullopt otherwise (and for empty
  // operands).
  std::optional<bool> Gt(const Interval& o) const;
  std::optional<bool> Lt(const Interval& o) const;
  std::optional<bool> Ge(const Interval& o) const;
  std::optional<bool> Le(const Interval& o) const;
  std::optional<bool> Eq(const Interval& o) const;
  std::optional<bool> Ne(const Interval& o) const;

  std::string ToString() const;  // "[lo, hi]"
};

}  // namespace ixa

#endif  // IXA_CORE_INTERVAL_H_
