// The one definition of integer semantics (docs/indexing.md §1): the
// evaluator, the rules and the checks all use it.
//
//   floordiv rounds toward -infinity, ceildiv toward +infinity, and
//   mod(a, b) = a - b * floordiv(a, b), so 0 <= mod(a, b) < b for b > 0 and
//   b < mod(a, b) <= 0 for b < 0.  A zero divisor has no value.
//
// Every function here is checked: it returns std::nullopt instead of a
// wrapped value when the exact result does not fit in int64 (or the divisor
// is zero). The evaluator, the rules, the interval code and the tests' oracle
// all use these functions and nothing else.
#ifndef IXA_CORE_INT_MATH_H_
#define IXA_CORE_INT_MATH_H_

#include <cstdint>
#include <limits>
#include <optional>

namespace ixa {

inline constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> CheckedNeg(int64_t a) {
  if (a == kInt64Min) return std::nullopt;
  return -a;
}

// floor(a / b). nullopt for b == 0 and for INT64_MIN / -1.
inline std::optional<int64_t> FloorDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == kInt64Min && b == -1)) return std::nullopt;
  int64_t q = a / b;  // truncates toward zero
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// ceil(a / b). nullopt for b == 0 and for INT64_MIN / -1.
inline std::optional<int64_t> CeilDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == kInt64Min && b == -1)) return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}

// A double as an int64, truncated toward zero and saturated to the int64
// range (NaN is 0): converting an out-of-range double directly is undefined.
inline int64_t SaturatingFromDouble(double x) {
  if (!(x == x)) return 0;
  if (x >= 9223372036854775807.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(x);
}

// ceil(a / b) for a >= 0 and b > 0, without the overflow of (a + b - 1) / b
// when a is near INT64_MAX (a saturated count).
inline int64_t CeilDivNonNegative(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// a - b * floor(a / b): has the sign of b (or is zero). nullopt for b == 0.
inline std::optional<int64_t> Mod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return 0;  // avoids INT64_MIN % -1
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Saturating forms, used by interval arithmetic (never wrap).
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? kInt64Max : kInt64Min;
}
inline int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return ((a < 0) != (b < 0)) ? kInt64Min : kInt64Max;
}
inline int64_t SaturatingNeg(int64_t a) {
  return a == kInt64Min ? kInt64Max : -a;
}

// Greatest common divisor of |a| and |b| (gcd(0, 0) = 0). Saturates at
// INT64_MAX for the single unrepresentable case |INT64_MIN|.
int64_t Gcd(int64_t a, int64_t b);
// Least common multiple, nullopt on overflow.
std::optional<int64_t> Lcm(int64_t a, int64_t b);

// x = residue (mod modulus), modulus > 0 and residue in [0, modulus - 1].
struct Congruence {
  int64_t modulus;
  int64_t residue;
};
// x = r (mod m) and x = s (mod n)  ->  x = t (mod lcm(m, n)) (the Chinese
// remainder theorem), or nullopt if no integer satisfies both; {-1, -1}
// when the lcm overflows or the search is too long (then keep both).
std::optional<Congruence> CombineCongruences(Congruence a, Congruence b);

}  // namespace ixa

#endif  // IXA_CORE_INT_MATH_H_
