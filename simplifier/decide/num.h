// Number type of the exact solver's fast path: an int64 whose every
// operation is checked. On overflow it throws Overflow, which never leaves
// simplifier/decide: the query is then redone with arbitrary precision
// (the Big type in decide.cc), so a wrapped value can never decide anything.
//
// The solver and the lifter are templates over the number type; both types
// offer the same operators and the N* free functions (found by ADL).
#ifndef IXA_SIMPLIFIER_DECIDE_NUM_H_
#define IXA_SIMPLIFIER_DECIDE_NUM_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/small_vector.h"

namespace ixa::decide_internal {

// Storage for numbers and for records of them, without allocation: N elements
// inline when T allows it (I64 and what is built from it), else a
// std::vector (the slow path's cpp_int is not trivially copyable; that path
// is rare and allocates for its numbers anyway).
template <class T, size_t N>
using Buffer = std::conditional_t<std::is_trivially_copyable_v<T>,
                                  SmallVector<T, N>, std::vector<T>>;

// The int64 fast path overflowed; retry with arbitrary precision.
struct Overflow {};
// The work budget of the call is used up.
struct BudgetExhausted {};
// A witness failed a self-check: a bug, reported as an internal error.
struct InternalFailure {
  const char* what;
};

class I64 {
 public:
  I64() = default;
  I64(int64_t v) : v_(v) {}  // NOLINT: implicit, like the literals it wraps

  int64_t raw() const { return v_; }

  friend I64 operator+(I64 a, I64 b) {
    int64_t r;
    if (__builtin_add_overflow(a.v_, b.v_, &r)) throw Overflow();
    return r;
  }
  friend I64 operator-(I64 a, I64 b) {
    int64_t r;
    if (__builtin_sub_overflow(a.v_, b.v_, &r)) throw Overflow();
    return r;
  }
  friend I64 operator*(I64 a, I64 b) {
    int64_t r;
    if (__builtin_mul_overflow(a.v_, b.v_, &r)) throw Overflow();
    return r;
  }
  friend I64 operator-(I64 a) { return I64(0) - a; }
  I64& operator+=(I64 o) { return *this = *this + o; }
  I64& operator-=(I64 o) { return *this = *this - o; }
  I64& operator*=(I64 o) { return *this = *this * o; }
  friend bool operator==(I64 a, I64 b) { return a.v_ == b.v_; }
  friend std::strong_ordering operator<=>(I64 a, I64 b) {
    return a.v_ <=> b.v_;
  }

  // floor(a / b), b != 0.
  friend I64 NFloorDiv(I64 a, I64 b) {
    if (a.v_ == INT64_MIN && b.v_ == -1) throw Overflow();
    int64_t q = a.v_ / b.v_;
    if ((a.v_ % b.v_ != 0) && ((a.v_ < 0) != (b.v_ < 0))) --q;
    return q;
  }
  // ceil(a / b), b != 0.
  friend I64 NCeilDiv(I64 a, I64 b) {
    if (a.v_ == INT64_MIN && b.v_ == -1) throw Overflow();
    int64_t q = a.v_ / b.v_;
    if ((a.v_ % b.v_ != 0) && ((a.v_ < 0) == (b.v_ < 0))) ++q;
    return q;
  }
  // a mod b in [0, b) for b > 0.
  friend I64 NMod(I64 a, I64 b) { return a - b * NFloorDiv(a, b); }
  // a / b where b divides a.
  friend I64 NExactDiv(I64 a, I64 b) { return NFloorDiv(a, b); }
  friend bool NDivides(I64 d, I64 a) { return d.v_ == -1 || a.v_ % d.v_ == 0; }
  friend I64 NAbs(I64 a) { return a.v_ < 0 ? -a : a; }
  friend I64 NGcd(I64 a, I64 b) { return std::gcd(NAbs(a).v_, NAbs(b).v_); }
  friend int NSign(I64 a) { return (a.v_ > 0) - (a.v_ < 0); }
  friend bool NIsZero(I64 a) { return a.v_ == 0; }
  friend std::optional<int64_t> NToInt64(I64 a) { return a.v_; }
  friend uint64_t NHash(I64 a) { return static_cast<uint64_t>(a.v_); }

 private:
  int64_t v_ = 0;
};

}  // namespace ixa::decide_internal

#endif  // IXA_SIMPLIFIER_DECIDE_NUM_H_
