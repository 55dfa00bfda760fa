#include "tests/emit/emit_interpreter_scalar.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "tests/emit/emit_literal.h"

namespace ixa::emit_test::interpreter_detail {

using hlo::Instruction;

Scalar Get(const Literal& lit, int64_t k) {
  Scalar s;
  s.type = lit.type;
  if (IsFloat(lit.type)) {
    s.f = lit.floats[k];
  } else if (IsComplex(lit.type)) {
    s.f = lit.floats[2 * k];
    s.im = lit.floats[2 * k + 1];
  } else {
    s.i = lit.ints[k];
  }
  return s;
}

void Set(Literal* lit, int64_t k, const Scalar& s) {
  if (IsFloat(lit->type)) {
    lit->floats[k] = s.f;
  } else if (IsComplex(lit->type)) {
    lit->floats[2 * k] = s.f;
    lit->floats[2 * k + 1] = s.im;
  } else {
    lit->ints[k] = s.i;
  }
}

Scalar MakeFloat(ElementType t, double v) {
  Scalar s;
  s.type = t;
  s.f = RoundToType(v, t);
  return s;
}

Scalar MakeInt(ElementType t, uint64_t v) {
  Scalar s;
  s.type = t;
  s.i = WrapToType(v, t);
  return s;
}

Scalar MakeComplex(ElementType t, std::complex<double> v) {
  Scalar s;
  s.type = t;
  s.f = RoundToType(v.real(), t);
  s.im = RoundToType(v.imag(), t);
  return s;
}

Error Unsupported(const Instruction& in, const std::string& why) {
  return Error::Unsupported("interpreter: '" + OpcodeName(in) + "' ('" +
                            in.name + "')" + (why.empty() ? "" : ": " + why));
}

Error UnsupportedOn(const Instruction& in, ElementType t) {
  return Unsupported(in, std::string("on ") + hlo::ElementTypeName(t));
}

// "{1,2,3}" or "1" -> integers.
std::vector<int64_t> ParseIntList(const std::string& raw) {
  std::vector<int64_t> out;
  std::string digits;
  for (char c : raw + " ") {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-') {
      digits += c;
    } else if (!digits.empty()) {
      out.push_back(std::stoll(digits));
      digits.clear();
    }
  }
  return out;
}

// NaN-propagating max / min, as XLA's GPU emitters compute them.
double FMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double FMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Float math in the type's compute precision: f64 in double, the others in
// float (f16 / bf16 computed in f32).
template <typename F32Fn, typename F64Fn>
double FloatOp(ElementType t, F32Fn f32, F64Fn f64) {
  if (t == ElementType::kF64) return f64();
  return static_cast<double>(f32());
}

Result<Scalar> Unary(const Instruction& in, const Scalar& a) {
  const hlo::Opcode op = in.opcode;
  ElementType t = a.type;
  if (IsComplex(t) || op == hlo::Opcode::kReal || op == hlo::Opcode::kImag) {
    return ComplexUnary(in, a);
  }
  if (IsFloat(t)) {
    float x = static_cast<float>(a.f);
    double d = a.f;
    auto F = [&](auto f32, auto f64) {
      return MakeFloat(t, FloatOp(t, f32, f64));
    };
    if (op == hlo::Opcode::kAbs)
      return F([&] { return std::fabs(x); }, [&] { return std::fabs(d); });
    if (op == hlo::Opcode::kNegate)
      return F([&] { return -x; }, [&] { return -d; });
    if (op == hlo::Opcode::kExp)
      return F([&] { return std::exp(x); }, [&] { return std::exp(d); });
    if (op == hlo::Opcode::kExpm1)
      return F([&] { return std::expm1(x); }, [&] { return std::expm1(d); });
    if (op == hlo::Opcode::kLog)
      return F([&] { return std::log(x); }, [&] { return std::log(d); });
    if (op == hlo::Opcode::kLog1p)
      return F([&] { return std::log1p(x); }, [&] { return std::log1p(d); });
    if (op == hlo::Opcode::kSqrt)
      return F([&] { return std::sqrt(x); }, [&] { return std::sqrt(d); });
    if (op == hlo::Opcode::kRsqrt)
      return F([&] { return 1.0f / std::sqrt(x); },
               [&] { return 1.0 / std::sqrt(d); });
    if (op == hlo::Opcode::kCbrt)
      return F([&] { return std::cbrt(x); }, [&] { return std::cbrt(d); });
    if (op == hlo::Opcode::kTanh)
      return F([&] { return std::tanh(x); }, [&] { return std::tanh(d); });
    if (op == hlo::Opcode::kLogistic)
      return F([&] { return 1.0f / (1.0f + std::exp(-x)); },
               [&] { return 1.0 / (1.0 + std::exp(-d)); });
    if (op == hlo::Opcode::kSin)
      return F([&] { return std::sin(x); }, [&] { return std::sin(d); });
    if (op == hlo::Opcode::kCos)
      return F([&] { return std::cos(x); }, [&] { return std::cos(d); });
    if (op == hlo::Opcode::kTan)
      return F([&] { return std::tan(x); }, [&] { return std::tan(d); });
    if (op == hlo::Opcode::kErf)
      return F([&] { return std::erf(x); }, [&] { return std::erf(d); });
    if (op == hlo::Opcode::kAcos)
      return F([&] { return std::acos(x); }, [&] { return std::acos(d); });
    if (op == hlo::Opcode::kAcosh)
      return F([&] { return std::acosh(x); }, [&] { return std::acosh(d); });
    if (op == hlo::Opcode::kAsin)
      return F([&] { return std::asin(x); }, [&] { return std::asin(d); });
    if (op == hlo::Opcode::kAsinh)
      return F([&] { return std::asinh(x); }, [&] { return std::asinh(d); });
    if (op == hlo::Opcode::kAtan)
      return F([&] { return std::atan(x); }, [&] { return std::atan(d); });
    if (op == hlo::Opcode::kAtanh)
      return F([&] { return std::atanh(x); }, [&] { return std::atanh(d); });
    if (op == hlo::Opcode::kCosh)
      return F([&] { return std::cosh(x); }, [&] { return std::cosh(d); });
    if (op == hlo::Opcode::kSinh)
      return F([&] { return std::sinh(x); }, [&] { return std::sinh(d); });
    if (op == hlo::Opcode::kFloor)
      return F([&] { return std::floor(x); }, [&] { return std::floor(d); });
    if (op == hlo::Opcode::kCeil)
      return F([&] { return std::ceil(x); }, [&] { return std::ceil(d); });
    if (op == hlo::Opcode::kRoundNearestAfz)
      return F([&] { return std::round(x); }, [&] { return std::round(d); });
    if (op == hlo::Opcode::kRoundNearestEven)
      return F([&] { return std::nearbyint(x); },
               [&] { return std::nearbyint(d); });
    if (op == hlo::Opcode::kSign) {
      if (std::isnan(d) || d == 0) return MakeFloat(t, d);
      return MakeFloat(t, d > 0 ? 1.0 : -1.0);
    }
    if (op == hlo::Opcode::kIsFinite)
      return MakeInt(ElementType::kPred, std::isfinite(d));
    if (op == hlo::Opcode::kCopy) return a;
    return Unsupported(in, "on floats");
  }
  int bits = Bits(t);
  uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (op == hlo::Opcode::kCopy) return a;
  if (op == hlo::Opcode::kNot) {
    if (t == ElementType::kPred) return MakeInt(t, a.i ? 0 : 1);
    return MakeInt(t, ~a.i);
  }
  if (op == hlo::Opcode::kNegate) return MakeInt(t, 0 - a.i);
  if (op == hlo::Opcode::kAbs) {
    if (IsUnsigned(t)) return a;
    return MakeInt(t, a.s() < 0 ? 0 - a.i : a.i);
  }
  if (op == hlo::Opcode::kSign) {
    if (IsUnsigned(t)) return MakeInt(t, a.i != 0);
    return MakeInt(t,
                   static_cast<uint64_t>(a.s() > 0 ? 1 : (a.s() < 0 ? -1 : 0)));
  }
  if (op == hlo::Opcode::kPopulationCount)
    return MakeInt(t, std::popcount(a.i & mask));
  if (op == hlo::Opcode::kClz) {
    uint64_t v = a.i & mask;
    int n = 0;
    for (int b = bits - 1; b >= 0 && !((v >> b) & 1); --b) ++n;
    return MakeInt(t, n);
  }
  return Unsupported(in, "on integers");
}

// Integer power by squaring with wrap-around; negative exponents follow
// XLA (1 for base 1, +-1 for base -1, 0 otherwise).
uint64_t IntPower(uint64_t base, uint64_t exp, bool is_signed) {
  if (is_signed && static_cast<int64_t>(exp) < 0) {
    int64_t b = static_cast<int64_t>(base);
    if (b == 1) return 1;
    if (b == -1) return (exp & 1) ? static_cast<uint64_t>(-1) : 1;
    return 0;
  }
  uint64_t r = 1;
  while (exp) {
    if (exp & 1) r *= base;
    base *= base;
    exp >>= 1;
  }
  return r;
}

Result<Scalar> Binary(const Instruction& in, const Scalar& a, const Scalar& b) {
  const hlo::Opcode op = in.opcode;
  ElementType t = a.type;
  if (IsComplex(t) || IsComplex(b.type) || op == hlo::Opcode::kComplex) {
    return ComplexBinary(in, a, b);
  }
  if (IsFloat(t)) {
    float x = static_cast<float>(a.f), y = static_cast<float>(b.f);
    double dx = a.f, dy = b.f;
    auto F = [&](auto f32, auto f64) {
      return MakeFloat(t, FloatOp(t, f32, f64));
    };
    if (op == hlo::Opcode::kAdd)
      return F([&] { return x + y; }, [&] { return dx + dy; });
    if (op == hlo::Opcode::kSubtract)
      return F([&] { return x - y; }, [&] { return dx - dy; });
    if (op == hlo::Opcode::kMultiply)
      return F([&] { return x * y; }, [&] { return dx * dy; });
    if (op == hlo::Opcode::kDivide)
      return F([&] { return x / y; }, [&] { return dx / dy; });
    if (op == hlo::Opcode::kRemainder)
      return F([&] { return std::fmod(x, y); },
               [&] { return std::fmod(dx, dy); });
    if (op == hlo::Opcode::kPower)
      return F([&] { return std::pow(x, y); },
               [&] { return std::pow(dx, dy); });
    if (op == hlo::Opcode::kAtan2)
      return F([&] { return std::atan2(x, y); },
               [&] { return std::atan2(dx, dy); });
    if (op == hlo::Opcode::kMaximum) return MakeFloat(t, FMax(dx, dy));
    if (op == hlo::Opcode::kMinimum) return MakeFloat(t, FMin(dx, dy));
    return Unsupported(in, "on floats");
  }
  const bool is_signed = IsSigned(t);
  const int bits = Bits(t);
  if (op == hlo::Opcode::kAdd) return MakeInt(t, a.i + b.i);
  if (op == hlo::Opcode::kSubtract) return MakeInt(t, a.i - b.i);
  if (op == hlo::Opcode::kMultiply) return MakeInt(t, a.i * b.i);
  if (op == hlo::Opcode::kAnd) return MakeInt(t, a.i & b.i);
  if (op == hlo::Opcode::kOr) return MakeInt(t, a.i | b.i);
  if (op == hlo::Opcode::kXor) return MakeInt(t, a.i ^ b.i);
  if (op == hlo::Opcode::kMaximum) {
    bool a_bigger = is_signed ? a.s() > b.s() : a.i > b.i;
    return a_bigger ? a : b;
  }
  if (op == hlo::Opcode::kMinimum) {
    bool a_smaller = is_signed ? a.s() < b.s() : a.i < b.i;
    return a_smaller ? a : b;
  }
  const uint64_t type_min =
      is_signed ? WrapToType(uint64_t{1} << (bits - 1), t) : 0;
  if (op == hlo::Opcode::kDivide) {
    if (b.i == 0) return MakeInt(t, ~uint64_t{0});  // -1 / all ones
    if (is_signed) {
      if (a.i == type_min && b.s() == -1) return a;
      return MakeInt(t, static_cast<uint64_t>(a.s() / b.s()));
    }
    return MakeInt(t, a.i / b.i);
  }
  if (op == hlo::Opcode::kRemainder) {
    if (b.i == 0) return a;
    if (is_signed) {
      if (a.i == type_min && b.s() == -1) return MakeInt(t, 0);
      return MakeInt(t, static_cast<uint64_t>(a.s() % b.s()));
    }
    return MakeInt(t, a.i % b.i);
  }
  // Shift amounts are read as unsigned: a negative one is out of range.
  uint64_t amount =
      b.i & (bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
  if (op == hlo::Opcode::kShiftLeft) {
    return MakeInt(t,
                   amount >= static_cast<uint64_t>(bits) ? 0 : a.i << amount);
  }
  if (op == hlo::Opcode::kShiftRightLogical) {
    uint64_t v = bits >= 64 ? a.i : a.i & ((uint64_t{1} << bits) - 1);
    return MakeInt(t, amount >= static_cast<uint64_t>(bits) ? 0 : v >> amount);
  }
  if (op == hlo::Opcode::kShiftRightArithmetic) {
    if (!is_signed) {
      uint64_t v = bits >= 64 ? a.i : a.i & ((uint64_t{1} << bits) - 1);
      int64_t sv = static_cast<int64_t>(
          WrapToType(v, t == ElementType::kU1    ? ElementType::kS1
                        : t == ElementType::kU2  ? ElementType::kS2
                        : t == ElementType::kU4  ? ElementType::kS4
                        : t == ElementType::kU8  ? ElementType::kS8
                        : t == ElementType::kU16 ? ElementType::kS16
                        : t == ElementType::kU32 ? ElementType::kS32
                                                 : ElementType::kS64));
      int64_t r = amount >= static_cast<uint64_t>(bits) ? (sv < 0 ? -1 : 0)
                                                        : sv >> amount;
      return MakeInt(t, static_cast<uint64_t>(r));
    }
    int64_t r = amount >= static_cast<uint64_t>(bits) ? (a.s() < 0 ? -1 : 0)
                                                      : a.s() >> amount;
    return MakeInt(t, static_cast<uint64_t>(r));
  }
  if (op == hlo::Opcode::kPower)
    return MakeInt(t, IntPower(a.i, b.i, is_signed));
  return Unsupported(in, "on integers");
}

// The bits of a float element in its own type's encoding.
uint64_t FloatBits(const Scalar& a) {
  switch (a.type) {
    case ElementType::kF16:
      return FloatToHalf(static_cast<float>(a.f));
    case ElementType::kBF16:
      return FloatToBF16(static_cast<float>(a.f));
    case ElementType::kF32: {
      float f = static_cast<float>(a.f);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      return u;
    }
    default: {
      uint64_t u;
      std::memcpy(&u, &a.f, 8);
      return u;
    }
  }
}

// XLA's total order of floats (-NaN < -inf < ... < -0 < +0 < ... < inf <
// +NaN): sign and magnitude read as a key that orders as an integer, a
// negative value's key the negated magnitude (below every positive key,
// larger magnitudes lower).
int64_t TotalOrderKey(const Scalar& a) {
  const int bits = Bits(a.type);
  const uint64_t u = FloatBits(a);
  const uint64_t magnitude = u & ((uint64_t{1} << (bits - 1)) - 1);
  const bool negative = (u >> (bits - 1)) & 1;
  return negative ? -static_cast<int64_t>(magnitude) - 1
                  : static_cast<int64_t>(magnitude);
}

Result<Scalar> Compare(const Instruction& in, const Scalar& a,
                       const Scalar& b) {
  if (IsComplex(a.type) || IsComplex(b.type)) return ComplexCompare(in, a, b);
  std::string dir = in.Attribute("direction");
  const bool total_order = in.HasAttribute("type") &&
                           in.Attribute("type") == "TOTALORDER" &&
                           IsFloat(a.type);
  bool lt, eq, gt;
  if (total_order) {
    const int64_t ka = TotalOrderKey(a), kb = TotalOrderKey(b);
    lt = ka < kb;
    eq = ka == kb;
    gt = ka > kb;
  } else if (IsFloat(a.type)) {
    lt = a.f < b.f;
    eq = a.f == b.f;
    gt = a.f > b.f;
    if (dir == "NE") return MakeInt(ElementType::kPred, !(a.f == b.f));
  } else if (IsUnsigned(a.type) || a.type == ElementType::kPred) {
    lt = a.i < b.i;
    eq = a.i == b.i;
    gt = a.i > b.i;
  } else {
    lt = a.s() < b.s();
    eq = a.s() == b.s();
    gt = a.s() > b.s();
  }
  bool r;
  if (dir == "EQ")
    r = eq;
  else if (dir == "NE")
    r = !eq;
  else if (dir == "LT")
    r = lt;
  else if (dir == "LE")
    r = lt || eq;
  else if (dir == "GT")
    r = gt;
  else if (dir == "GE")
    r = gt || eq;
  else
    return Unsupported(in, "direction '" + dir + "'");
  return MakeInt(ElementType::kPred, r);
}

Result<Scalar> Convert(const Instruction& in, const Scalar& a, ElementType to) {
  ElementType from = a.type;
  if (IsComplex(from) || IsComplex(to)) return ComplexConvert(in, a, to);
  if (IsFloat(to)) {
    if (IsFloat(from)) {
      // f64 -> f16 / bf16 goes through f32 (documented in emitters).
      double v = a.f;
      if (to != ElementType::kF64) v = static_cast<float>(v);
      return MakeFloat(to, v);
    }
    double v;
    if (IsUnsigned(from) || from == ElementType::kPred) {
      v = to == ElementType::kF64
              ? static_cast<double>(a.i)
              : static_cast<double>(static_cast<float>(a.i));
    } else {
      v = to == ElementType::kF64
              ? static_cast<double>(a.s())
              : static_cast<double>(static_cast<float>(a.s()));
    }
    return MakeFloat(to, v);
  }
  if (to == ElementType::kPred) {
    return MakeInt(to, IsFloat(from) ? a.f != 0 : a.i != 0);
  }
  if (IsFloat(from)) {
    // Saturating, NaN -> 0.
    double v = a.f;
    if (std::isnan(v)) return MakeInt(to, 0);
    int bits = Bits(to);
    if (IsUnsigned(to)) {
      double hi = std::ldexp(1.0, bits);  // exclusive
      if (v <= 0) return MakeInt(to, 0);
      if (v >= hi) return MakeInt(to, ~uint64_t{0});
      return MakeInt(to, static_cast<uint64_t>(v));
    }
    double hi = std::ldexp(1.0, bits - 1);
    if (v >= hi) return MakeInt(to, (uint64_t{1} << (bits - 1)) - 1);
    if (v < -hi) return MakeInt(to, uint64_t{1} << (bits - 1));
    return MakeInt(to, static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
  (void)in;
  return MakeInt(to, a.i);  // wrap (sign-extension already in a.i)
}

namespace {

// The bit pattern of a non-complex element (an f8 / f4 type: its code),
// and the element of type `to` whose pattern is the low bits of `bits`.
uint64_t RawBits(const Scalar& a) {
  uint64_t bits = 0;
  switch (IsF8(a.type) ? ElementType::kInvalid : a.type) {
    case ElementType::kInvalid:  // an f8 type: its code
      bits = F8Encode(a.type, a.f);
      break;
    case ElementType::kF4E2M1FN:
      bits = F4Encode(a.f);
      break;
    case ElementType::kF16:
      bits = FloatToHalf(static_cast<float>(a.f));
      break;
    case ElementType::kBF16:
      bits = FloatToBF16(static_cast<float>(a.f));
      break;
    case ElementType::kF32: {
      float f = static_cast<float>(a.f);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      bits = u;
      break;
    }
    case ElementType::kF64:
      std::memcpy(&bits, &a.f, 8);
      break;
    default:
      bits = a.i;
      break;
  }
  return bits;
}

Scalar FromRawBits(ElementType to, uint64_t bits) {
  if (IsF8(to)) return MakeFloat(to, F8Decode(to, bits & 0xff));
  if (IsF4(to)) return MakeFloat(to, F4Decode(bits & 0xf));
  switch (to) {
    case ElementType::kF16:
      return MakeFloat(to, HalfToFloat(bits & 0xffff));
    case ElementType::kBF16:
      return MakeFloat(to, BF16ToFloat(bits & 0xffff));
    case ElementType::kF32: {
      uint32_t u = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &u, 4);
      Scalar s;
      s.type = to;
      s.f = f;
      return s;
    }
    case ElementType::kF64: {
      Scalar s;
      s.type = to;
      std::memcpy(&s.f, &bits, 8);
      return s;
    }
    default:
      return MakeInt(to, bits);
  }
}

// The element's bits one by one, the least significant first; a complex
// element is its real part then its imaginary part (their order in
// memory), so c64's real part is its low 32 bits.
std::vector<bool> BitList(const Scalar& a) {
  std::vector<bool> out;
  auto append = [&](uint64_t bits, int n) {
    for (int b = 0; b < n; ++b) out.push_back((bits >> b) & 1);
  };
  if (IsComplex(a.type)) {
    ElementType part =
        a.type == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
    append(RawBits(MakeFloat(part, a.f)), Bits(part));
    append(RawBits(MakeFloat(part, a.im)), Bits(part));
  } else {
    append(RawBits(a), Bits(a.type));
  }
  return out;
}

Scalar FromBitList(ElementType to, const std::vector<bool>& bits, size_t at) {
  auto take = [&](size_t from, int n) {
    uint64_t v = 0;
    for (int b = 0; b < n; ++b) v |= uint64_t{bits.at(from + b)} << b;
    return v;
  };
  if (IsComplex(to)) {
    ElementType part =
        to == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
    const int n = Bits(part);
    Scalar re = FromRawBits(part, take(at, n));
    Scalar im = FromRawBits(part, take(at + n, n));
    Scalar s;
    s.type = to;
    s.f = re.f;
    s.im = im.f;
    return s;
  }
  return FromRawBits(to, take(at, Bits(to)));
}

}  // namespace

Result<Scalar> BitcastConvert(const Instruction& in, const Scalar& a,
                              ElementType to) {
  // Complex elements are two values, not one bit pattern of the width.
  if (IsComplex(a.type)) return UnsupportedOn(in, a.type);
  if (IsComplex(to)) return UnsupportedOn(in, to);
  if (Bits(a.type) != Bits(to)) return Unsupported(in, "width change");
  return FromRawBits(to, RawBits(a));
}

Result<Literal> BitcastConvertWidths(const Instruction& in, const Literal& a,
                                     const hlo::Shape& shape) {
  const ElementType from = a.type, to = shape.type;
  if (from == ElementType::kPred || to == ElementType::kPred) {
    return UnsupportedOn(in, ElementType::kPred);
  }
  const int fb = Bits(from), tb = Bits(to);
  const bool narrowing = fb > tb;
  if (IsComplex(narrowing ? to : from))
    return Unsupported(in, "complex pieces");
  Literal out = Literal::Make(to, shape.dims);
  if (narrowing) {
    // Output element n is piece n % ratio of wide element n / ratio.
    const int64_t ratio = fb / tb;
    if (out.size() != a.size() * ratio) return Unsupported(in, "sizes");
    for (int64_t w = 0; w < a.size(); ++w) {
      std::vector<bool> bits = BitList(Get(a, w));
      for (int64_t k = 0; k < ratio; ++k) {
        Set(&out, w * ratio + k, FromBitList(to, bits, k * tb));
      }
    }
    return out;
  }
  const int64_t ratio = tb / fb;
  if (a.size() != out.size() * ratio) return Unsupported(in, "sizes");
  for (int64_t w = 0; w < out.size(); ++w) {
    std::vector<bool> bits;
    for (int64_t k = 0; k < ratio; ++k) {
      std::vector<bool> piece = BitList(Get(a, w * ratio + k));
      bits.insert(bits.end(), piece.begin(), piece.end());
    }
    Set(&out, w, FromBitList(to, bits, 0));
  }
  return out;
}

// reduce-precision on the value: round to `mantissa_bits` bits after the
// leading one (nearest even; a subnormal of the element type rounds at
// the type's smallest normal exponent, as its bits do), then a value
// whose exponent the `exponent_bits` range cannot hold becomes infinity
// (too large) or zero (too small, no denormals), its sign kept. NaN and
// infinity stay.
Result<Scalar> ReducePrecision(const Instruction& in, const Scalar& a) {
  if (!IsFloat(a.type)) return UnsupportedOn(in, a.type);
  if (!in.HasAttribute("exponent_bits") || !in.HasAttribute("mantissa_bits")) {
    return Unsupported(in, "without exponent_bits and mantissa_bits");
  }
  const int eb = std::stoi(in.Attribute("exponent_bits"));
  const int mb = std::stoi(in.Attribute("mantissa_bits"));
  int type_mantissa = 52, type_exponent = 11;
  if (a.type == ElementType::kF16) {
    type_mantissa = 10;
    type_exponent = 5;
  } else if (a.type == ElementType::kBF16) {
    type_mantissa = 7;
    type_exponent = 8;
  } else if (a.type == ElementType::kF32) {
    type_mantissa = 23;
    type_exponent = 8;
  }
  double v = a.f;
  if (std::isnan(v) || std::isinf(v) || v == 0) return a;
  const int type_min_exponent = 2 - (1 << (type_exponent - 1));
  if (mb < type_mantissa) {
    int e = std::max(std::ilogb(v), type_min_exponent);
    v = std::ldexp(std::nearbyint(std::ldexp(v, mb - e)), e - mb);
  }
  if (eb < type_exponent && v != 0 && !std::isinf(v)) {
    const int reduced_bias = (1 << (eb - 1)) - 1;
    const int e = std::ilogb(v);
    if (e > reduced_bias) {
      v = std::copysign(std::numeric_limits<double>::infinity(), v);
    } else if (e <= -reduced_bias) {
      v = std::copysign(0.0, v);
    }
  }
  return MakeFloat(a.type, v);
}

}  // namespace ixa::emit_test::interpreter_detail
