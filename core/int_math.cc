#include "core/int_math.h"

#include <boost/multiprecision/cpp_int.hpp>

#include "core/bigint.h"
#include "core/result.h"

namespace ixa {

int64_t Gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? uint64_t(0) - uint64_t(a) : uint64_t(a);
  uint64_t y = b < 0 ? uint64_t(0) - uint64_t(b) : uint64_t(b);
  while (y != 0) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > uint64_t(kInt64Max) ? kInt64Max : int64_t(x);
}

std::optional<int64_t> Lcm(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  int64_t g = Gcd(a, b);
  auto abs_a = CheckedNeg(a < 0 ? a : -a);  // |a|, nullopt for INT64_MIN
  auto abs_b = CheckedNeg(b < 0 ? b : -b);
  if (!abs_a || !abs_b) return std::nullopt;
  return CheckedMul(*abs_a / g, *abs_b);
}

std::optional<Congruence> CombineCongruences(Congruence a, Congruence b) {
  int64_t g = Gcd(a.modulus, b.modulus);
  if ((a.residue - b.residue) % g != 0) return std::nullopt;
  auto lcm = Lcm(a.modulus, b.modulus);
  if (!lcm) return Congruence{-1, -1};
  // Search t = a.residue + a.modulus * j for j in [0, n/g): at most n/g
  // steps; moduli in constraints are small. Fall back on overflow.
  int64_t steps = b.modulus / g;
  if (steps > (1 << 20)) return Congruence{-1, -1};
  __int128 t = a.residue;
  for (int64_t j = 0; j < steps; ++j, t += a.modulus) {
    if ((t - b.residue) % b.modulus == 0) {
      return Congruence{*lcm, static_cast<int64_t>(t % *lcm)};
    }
  }
  return Congruence{-1, -1};
}

using boost::multiprecision::cpp_int;

struct BigInt::Impl {
  cpp_int v;
};

BigInt::BigInt() : impl_(std::make_unique<Impl>()) {}
BigInt::BigInt(int64_t v) : impl_(std::make_unique<Impl>()) { impl_->v = v; }
BigInt::BigInt(const BigInt& o) : impl_(std::make_unique<Impl>(*o.impl_)) {}
BigInt& BigInt::operator=(const BigInt& o) {
  if (this != &o) impl_ = std::make_unique<Impl>(*o.impl_);
  return *this;
}
BigInt::BigInt(BigInt&&) noexcept = default;
BigInt& BigInt::operator=(BigInt&&) noexcept = default;
BigInt::~BigInt() = default;

std::optional<BigInt> BigInt::FromString(const std::string& digits) {
  if (digits.empty()) return std::nullopt;
  size_t i = digits[0] == '-' ? 1 : 0;
  if (i == digits.size()) return std::nullopt;
  for (size_t k = i; k < digits.size(); ++k) {
    if (digits[k] < '0' || digits[k] > '9') return std::nullopt;
  }
  BigInt r;
  r.impl_->v = cpp_int(digits);
  return r;
}

BigInt BigInt::operator+(const BigInt& o) const {
  BigInt r;
  r.impl_->v = impl_->v + o.impl_->v;
  return r;
}
BigInt BigInt::operator-(const BigInt& o) const {
  BigInt r;
  r.impl_->v = impl_->v - o.impl_->v;
  return r;
}
BigInt BigInt::operator*(const BigInt& o) const {
  BigInt r;
  r.impl_->v = impl_->v * o.impl_->v;
  return r;
}
BigInt BigInt::operator-() const {
  BigInt r;
  r.impl_->v = -impl_->v;
  return r;
}

BigInt BigInt::FloorDiv(const BigInt& o) const {
  IXA_CHECK(!o.IsZero());
  cpp_int q, rem;
  boost::multiprecision::divide_qr(impl_->v, o.impl_->v, q, rem);  // truncates
  if (rem != 0 && ((rem < 0) != (o.impl_->v < 0))) q -= 1;
  BigInt r;
  r.impl_->v = q;
  return r;
}
BigInt BigInt::CeilDiv(const BigInt& o) const {
  IXA_CHECK(!o.IsZero());
  cpp_int q, rem;
  boost::multiprecision::divide_qr(impl_->v, o.impl_->v, q, rem);
  if (rem != 0 && ((rem < 0) == (o.impl_->v < 0))) q += 1;
  BigInt r;
  r.impl_->v = q;
  return r;
}
BigInt BigInt::Mod(const BigInt& o) const { return *this - o * FloorDiv(o); }

bool BigInt::IsZero() const { return impl_->v == 0; }
int BigInt::Compare(const BigInt& o) const {
  return impl_->v < o.impl_->v ? -1 : (impl_->v == o.impl_->v ? 0 : 1);
}
std::optional<int64_t> BigInt::ToInt64() const {
  if (impl_->v < kInt64Min || impl_->v > kInt64Max) return std::nullopt;
  return static_cast<int64_t>(impl_->v);
}
std::string BigInt::ToString() const { return impl_->v.str(); }

}  // namespace ixa
