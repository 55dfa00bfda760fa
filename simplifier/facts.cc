#include "simplifier/facts.h"

#include <algorithm>

namespace ixa::simp {

namespace {

using Wide = __int128;

// Maps an exact wide value to an endpoint; values at or past the int64
// limits become the unbounded marker of their side.
int64_t Narrow(Wide v) {
  if (v >= static_cast<Wide>(kInt64Max)) return kInt64Max;
  if (v <= static_cast<Wide>(kInt64Min)) return kInt64Min;
  return static_cast<int64_t>(v);
}

bool IsNegInf(int64_t v) { return v == kInt64Min; }
bool IsPosInf(int64_t v) { return v == kInt64Max; }

// Floor division of wide values by a positive or negative wide divisor.
Wide WideFloorDiv(Wide a, Wide b) {
  if (static_cast<int64_t>(a) == a && static_cast<int64_t>(b) == b && b != -1) {
    // In 64 bits when both fit (a 128-bit division is a library call; Trim
    // divides at every fact); b = -1 could overflow there.
    int64_t x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
    int64_t q = x / y;
    if (x % y != 0 && ((x < 0) != (y < 0))) --q;
    return q;
  }
  Wide q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// v mod m in [0, m) for m > 0. In 64 bits when v fits (a 128-bit
// remainder is a library call, 1.5% of the peers' W1 instructions).
int64_t WideModPositive(Wide v, int64_t m) {
  if (static_cast<int64_t>(v) == v) {
    int64_t r = static_cast<int64_t>(v) % m;
    return r < 0 ? r + m : r;
  }
  Wide r = v % m;
  if (r < 0) r += m;
  return static_cast<int64_t>(r);
}

}  // namespace

Alignment AlignAdd(const Alignment& a, const Alignment& b) {
  int64_t m = Gcd(a.modulus, b.modulus);
  if (m == 0) {
    auto v = CheckedAdd(a.remainder, b.remainder);
    return v ? Alignment::Exact(*v) : Alignment::Unknown();
  }
  if (m == kInt64Max) return Alignment::Unknown();
  return {m, WideModPositive(static_cast<Wide>(a.remainder) + b.remainder, m)};
}

Alignment AlignScale(const Alignment& a, int64_t c) {
  if (a.modulus == 0) {
    auto v = CheckedMul(a.remainder, c);
    return v ? Alignment::Exact(*v) : Alignment::Unknown();
  }
  if (c == 0) return Alignment::Exact(0);
  if (c == kInt64Min) return Alignment::Unknown();  // |c| does not fit
  auto m = CheckedMul(a.modulus, c < 0 ? -c : c);
  if (!m) return Alignment::Unknown();
  return {*m, WideModPositive(static_cast<Wide>(a.remainder) * c, *m)};
}

Alignment AlignMod(const Alignment& a, int64_t m) {
  if (m <= 0) return Alignment::Unknown();
  if (a.modulus == 0) {
    auto v = Mod(a.remainder, m);
    return v ? Alignment::Exact(*v) : Alignment::Unknown();
  }
  // x = M*k + r and m: x mod m = x - m*q keeps x's residue modulo gcd(M, m).
  int64_t g = Gcd(a.modulus, m);
  return {g, a.remainder % g};
}

Alignment AlignFloorDiv(const Alignment& a, int64_t m) {
  if (m <= 0) return Alignment::Unknown();
  if (a.modulus == 0) {
    auto v = FloorDiv(a.remainder, m);
    return v ? Alignment::Exact(*v) : Alignment::Unknown();
  }
  // x = (M*m)*k + r with 0 <= r < M*m: x floordiv m = M*k + r floordiv m.
  if (a.modulus % m == 0) {
    return {a.modulus / m, a.remainder / m};
  }
  return Alignment::Unknown();
}

Alignment AlignUnion(const Alignment& a, const Alignment& b) {
  // v = m_a*k + r_a or v = m_b*k + r_b: both forms are r_a modulo
  // g = gcd(m_a, m_b, r_a - r_b) (modulus 0 is an exact value, and
  // gcd(0, x) = |x|). Wide arithmetic: r_a - r_b may not fit int64.
  Wide diff = static_cast<Wide>(a.remainder) - b.remainder;
  if (diff < 0) diff = -diff;
  if (diff > static_cast<Wide>(kInt64Max)) return Alignment::Unknown();
  int64_t g = Gcd(Gcd(a.modulus, b.modulus), static_cast<int64_t>(diff));
  if (g == 0) return a;  // the same exact value
  return {g, WideModPositive(a.remainder, g)};
}

std::optional<int64_t> Facts::PointValue() const {
  if (align.modulus == 0) return align.remainder;
  if (IsFinite(range) && range.IsPoint()) return range.lower;
  return std::nullopt;
}

Interval RangeAdd(const Interval& a, const Interval& b) {
  if (a.IsEmpty() || b.IsEmpty()) return Interval::Empty();
  int64_t lo = (IsNegInf(a.lower) || IsNegInf(b.lower))
                   ? kInt64Min
                   : Narrow(static_cast<Wide>(a.lower) + b.lower);
  int64_t hi = (IsPosInf(a.upper) || IsPosInf(b.upper))
                   ? kInt64Max
                   : Narrow(static_cast<Wide>(a.upper) + b.upper);
  return {lo, hi};
}

Interval RangeScale(const Interval& a, int64_t c) {
  if (a.IsEmpty()) return Interval::Empty();
  if (c == 0) return Interval::Point(0);
  // Infinite endpoints stay infinite, with the sign flipped by c < 0. The
  // markers are per side: a lower end at kInt64Max (values >= INT64_MAX,
  // e.g. a variable in [INT64_MAX, INT64_MAX]) is a real bound, and so is
  // an upper end at kInt64Min; reading them as infinite turned -d0 for
  // d0 in [INT64_MAX, INT64_MAX] into [-inf, INT64_MIN] (difftest).
  auto scale = [c](int64_t v, bool is_lower) -> Wide {
    if (is_lower ? IsNegInf(v) : IsPosInf(v)) {
      return (c > 0) == is_lower ? kInt64Min : kInt64Max;
    }
    return static_cast<Wide>(v) * c;
  };
  Wide x = scale(a.lower, true), y = scale(a.upper, false);
  return {Narrow(std::min(x, y)), Narrow(std::max(x, y))};
}

Interval RangeMul(const Interval& a, const Interval& b) {
  if (a.IsEmpty() || b.IsEmpty()) return Interval::Empty();
  if (a.IsPoint() && IsFinite(a)) return RangeScale(b, a.lower);
  if (b.IsPoint() && IsFinite(b)) return RangeScale(a, b.lower);
  if (!IsFinite(a) || !IsFinite(b)) return Interval::Full();
  Wide c[4] = {static_cast<Wide>(a.lower) * b.lower,
               static_cast<Wide>(a.lower) * b.upper,
               static_cast<Wide>(a.upper) * b.lower,
               static_cast<Wide>(a.upper) * b.upper};
  return {Narrow(*std::min_element(c, c + 4)),
          Narrow(*std::max_element(c, c + 4))};
}

Interval RangeFloorDiv(const Interval& a, const Interval& divisor) {
  if (a.IsEmpty() || divisor.IsEmpty()) return Interval::Empty();
  if (divisor.IsPoint() && IsFinite(divisor) && divisor.lower > 0) {
    Wide d = divisor.lower;
    int64_t lo =
        IsNegInf(a.lower) ? kInt64Min : Narrow(WideFloorDiv(a.lower, d));
    int64_t hi =
        IsPosInf(a.upper) ? kInt64Max : Narrow(WideFloorDiv(a.upper, d));
    return {lo, hi};
  }
  if (!IsFinite(a) || !IsFinite(divisor)) return Interval::Full();
  Interval r = a.FloorDiv(divisor);
  return IsFinite(r) ? r : Interval::Full();
}

Interval RangeCeilDiv(const Interval& a, const Interval& divisor) {
  // ceil(x / d) = -floor(-x / d).
  Interval neg = RangeScale(a, -1);
  return RangeScale(RangeFloorDiv(neg, divisor), -1);
}

Interval RangeMod(const Interval& a, const Interval& divisor) {
  if (a.IsEmpty() || divisor.IsEmpty()) return Interval::Empty();
  if (divisor.IsPoint() && IsFinite(divisor) && divisor.lower > 0) {
    int64_t d = divisor.lower;
    if (auto m = OnePeriod(a, d)) {
      Wide shift = static_cast<Wide>(*m) * d;
      return {Narrow(a.lower - shift), Narrow(a.upper - shift)};
    }
    return {0, d - 1};
  }
  if (!IsFinite(divisor)) return Interval::Full();
  if (IsFinite(a)) return a.Mod(divisor);
  // The result lies strictly between 0 and the divisor, whatever x is.
  Interval r = Interval::Empty();
  if (divisor.upper >= 1) r = r.Union({0, divisor.upper - 1});
  if (divisor.lower <= -1) r = r.Union({divisor.lower + 1, 0});
  return r;
}

Facts TrimAligned(Facts f) {
  if (f.range.IsEmpty()) return f;
  if (f.align.modulus == 0) {
    int64_t v = f.align.remainder;
    if (!f.range.Contains(v))
      f.range = Interval::Empty();
    else
      f.range = Interval::Point(v);
    return f;
  }
  int64_t m = f.align.modulus, r = f.align.remainder;
  if (m > 1) {
    if (!IsNegInf(f.range.lower)) {
      // Smallest value >= lower that is congruent to r.
      Wide lo = f.range.lower;
      Wide k = WideFloorDiv(lo - r + m - 1, m);
      f.range.lower = Narrow(k * m + r);
    }
    if (!IsPosInf(f.range.upper)) {
      Wide hi = f.range.upper;
      Wide k = WideFloorDiv(hi - r, m);
      f.range.upper = Narrow(k * m + r);
    }
    if (f.range.IsEmpty()) f.range = Interval::Empty();
  }
  if (IsFinite(f.range) && f.range.IsPoint()) {
    f.align = Alignment::Exact(f.range.lower);
  }
  return f;
}

std::optional<int64_t> OnePeriod(const Interval& range, int64_t d) {
  if (d <= 0 || !IsFinite(range)) return std::nullopt;
  auto lo = FloorDiv(range.lower, d), hi = FloorDiv(range.upper, d);
  if (lo && hi && *lo == *hi) return *lo;
  return std::nullopt;
}

}  // namespace ixa::simp
