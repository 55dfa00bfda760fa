// Exact arithmetic past int64: no result may silently overflow. The Boost
// cpp_int type stays in .cc files: this header exposes only what callers need,
// behind a small handle.
#ifndef IXA_CORE_BIGINT_H_
#define IXA_CORE_BIGINT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ixa {

// An arbitrary-precision integer with the same floordiv/mod semantics as
// int_math.h. Slow path and test oracle; not for hot loops.
class BigInt {
 public:
  BigInt();
  BigInt(int64_t v);  // NOLINT: implicit by design
  BigInt(const BigInt& other);
  BigInt& operator=(const BigInt& other);
  BigInt(BigInt&&) noexcept;
  BigInt& operator=(BigInt&&) noexcept;
  ~BigInt();

  static std::optional<BigInt> FromString(const std::string& digits);

  BigInt operator+(const BigInt& o) const;
  BigInt operator-(const BigInt& o) const;
  BigInt operator*(const BigInt& o) const;
  BigInt operator-() const;
  // Same semantics as ixa::FloorDiv / CeilDiv / Mod; the divisor must be
  // non-zero (callers check).
  BigInt FloorDiv(const BigInt& o) const;
  BigInt CeilDiv(const BigInt& o) const;
  BigInt Mod(const BigInt& o) const;

  bool IsZero() const;
  int Compare(const BigInt& o) const;
  bool operator==(const BigInt& o) const { return Compare(o) == 0; }
  bool operator<(const BigInt& o) const { return Compare(o) < 0; }
  bool operator<=(const BigInt& o) const { return Compare(o) <= 0; }

  std::optional<int64_t> ToInt64() const;
  std::string ToString() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ixa

#endif  // IXA_CORE_BIGINT_H_
