#include "tests/emit/emit_interpreter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <unordered_map>

namespace ixa::emit_test {
namespace {

using hlo::Computation;
using hlo::Instruction;

// One element with its type: integers in 64 bits (sign-extended for signed
// types), floats as a double.
struct Scalar {
  ElementType type = ElementType::kInvalid;
  uint64_t i = 0;
  double f = 0;
  int64_t s() const { return static_cast<int64_t>(i); }
};

Scalar Get(const Literal& lit, int64_t k) {
  Scalar s;
  s.type = lit.type;
  if (IsFloat(lit.type)) {
    s.f = lit.floats[k];
  } else {
    s.i = lit.ints[k];
  }
  return s;
}

void Set(Literal* lit, int64_t k, const Scalar& s) {
  if (IsFloat(lit->type)) {
    lit->floats[k] = s.f;
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

Error Unsupported(const Instruction& in, const std::string& why = "") {
  return Error::Unsupported("interpreter: '" + in.opcode + "' ('" + in.name +
                            "')" + (why.empty() ? "" : ": " + why));
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
  const std::string& op = in.opcode;
  ElementType t = a.type;
  if (IsFloat(t)) {
    float x = static_cast<float>(a.f);
    double d = a.f;
    auto F = [&](auto f32, auto f64) {
      return MakeFloat(t, FloatOp(t, f32, f64));
    };
    if (op == "abs")
      return F([&] { return std::fabs(x); }, [&] { return std::fabs(d); });
    if (op == "negate") return F([&] { return -x; }, [&] { return -d; });
    if (op == "exponential")
      return F([&] { return std::exp(x); }, [&] { return std::exp(d); });
    if (op == "exponential-minus-one")
      return F([&] { return std::expm1(x); }, [&] { return std::expm1(d); });
    if (op == "log")
      return F([&] { return std::log(x); }, [&] { return std::log(d); });
    if (op == "log-plus-one")
      return F([&] { return std::log1p(x); }, [&] { return std::log1p(d); });
    if (op == "sqrt")
      return F([&] { return std::sqrt(x); }, [&] { return std::sqrt(d); });
    if (op == "rsqrt")
      return F([&] { return 1.0f / std::sqrt(x); },
               [&] { return 1.0 / std::sqrt(d); });
    if (op == "cbrt")
      return F([&] { return std::cbrt(x); }, [&] { return std::cbrt(d); });
    if (op == "tanh")
      return F([&] { return std::tanh(x); }, [&] { return std::tanh(d); });
    if (op == "logistic")
      return F([&] { return 1.0f / (1.0f + std::exp(-x)); },
               [&] { return 1.0 / (1.0 + std::exp(-d)); });
    if (op == "sine")
      return F([&] { return std::sin(x); }, [&] { return std::sin(d); });
    if (op == "cosine")
      return F([&] { return std::cos(x); }, [&] { return std::cos(d); });
    if (op == "tan")
      return F([&] { return std::tan(x); }, [&] { return std::tan(d); });
    if (op == "erf")
      return F([&] { return std::erf(x); }, [&] { return std::erf(d); });
    if (op == "acos")
      return F([&] { return std::acos(x); }, [&] { return std::acos(d); });
    if (op == "acosh")
      return F([&] { return std::acosh(x); }, [&] { return std::acosh(d); });
    if (op == "asin")
      return F([&] { return std::asin(x); }, [&] { return std::asin(d); });
    if (op == "asinh")
      return F([&] { return std::asinh(x); }, [&] { return std::asinh(d); });
    if (op == "atan")
      return F([&] { return std::atan(x); }, [&] { return std::atan(d); });
    if (op == "atanh")
      return F([&] { return std::atanh(x); }, [&] { return std::atanh(d); });
    if (op == "cosh")
      return F([&] { return std::cosh(x); }, [&] { return std::cosh(d); });
    if (op == "sinh")
      return F([&] { return std::sinh(x); }, [&] { return std::sinh(d); });
    if (op == "floor")
      return F([&] { return std::floor(x); }, [&] { return std::floor(d); });
    if (op == "ceil")
      return F([&] { return std::ceil(x); }, [&] { return std::ceil(d); });
    if (op == "round-nearest-afz")
      return F([&] { return std::round(x); }, [&] { return std::round(d); });
    if (op == "round-nearest-even")
      return F([&] { return std::nearbyint(x); },
               [&] { return std::nearbyint(d); });
    if (op == "sign") {
      if (std::isnan(d) || d == 0) return MakeFloat(t, d);
      return MakeFloat(t, d > 0 ? 1.0 : -1.0);
    }
    if (op == "is-finite") return MakeInt(ElementType::kPred, std::isfinite(d));
    if (op == "copy") return a;
    return Unsupported(in, "on floats");
  }
  int bits = Bits(t);
  uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (op == "copy") return a;
  if (op == "not") {
    if (t == ElementType::kPred) return MakeInt(t, a.i ? 0 : 1);
    return MakeInt(t, ~a.i);
  }
  if (op == "negate") return MakeInt(t, 0 - a.i);
  if (op == "abs") {
    if (IsUnsigned(t)) return a;
    return MakeInt(t, a.s() < 0 ? 0 - a.i : a.i);
  }
  if (op == "sign") {
    if (IsUnsigned(t)) return MakeInt(t, a.i != 0);
    return MakeInt(t,
                   static_cast<uint64_t>(a.s() > 0 ? 1 : (a.s() < 0 ? -1 : 0)));
  }
  if (op == "popcnt") return MakeInt(t, std::popcount(a.i & mask));
  if (op == "count-leading-zeros" || op == "clz") {
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
  const std::string& op = in.opcode;
  ElementType t = a.type;
  if (IsFloat(t)) {
    float x = static_cast<float>(a.f), y = static_cast<float>(b.f);
    double dx = a.f, dy = b.f;
    auto F = [&](auto f32, auto f64) {
      return MakeFloat(t, FloatOp(t, f32, f64));
    };
    if (op == "add") return F([&] { return x + y; }, [&] { return dx + dy; });
    if (op == "subtract")
      return F([&] { return x - y; }, [&] { return dx - dy; });
    if (op == "multiply")
      return F([&] { return x * y; }, [&] { return dx * dy; });
    if (op == "divide")
      return F([&] { return x / y; }, [&] { return dx / dy; });
    if (op == "remainder")
      return F([&] { return std::fmod(x, y); },
               [&] { return std::fmod(dx, dy); });
    if (op == "power")
      return F([&] { return std::pow(x, y); },
               [&] { return std::pow(dx, dy); });
    if (op == "atan2")
      return F([&] { return std::atan2(x, y); },
               [&] { return std::atan2(dx, dy); });
    if (op == "maximum") return MakeFloat(t, FMax(dx, dy));
    if (op == "minimum") return MakeFloat(t, FMin(dx, dy));
    return Unsupported(in, "on floats");
  }
  const bool is_signed = IsSigned(t);
  const int bits = Bits(t);
  if (op == "add") return MakeInt(t, a.i + b.i);
  if (op == "subtract") return MakeInt(t, a.i - b.i);
  if (op == "multiply") return MakeInt(t, a.i * b.i);
  if (op == "and") return MakeInt(t, a.i & b.i);
  if (op == "or") return MakeInt(t, a.i | b.i);
  if (op == "xor") return MakeInt(t, a.i ^ b.i);
  if (op == "maximum") {
    bool a_bigger = is_signed ? a.s() > b.s() : a.i > b.i;
    return a_bigger ? a : b;
  }
  if (op == "minimum") {
    bool a_smaller = is_signed ? a.s() < b.s() : a.i < b.i;
    return a_smaller ? a : b;
  }
  const uint64_t type_min =
      is_signed ? WrapToType(uint64_t{1} << (bits - 1), t) : 0;
  if (op == "divide") {
    if (b.i == 0) return MakeInt(t, ~uint64_t{0});  // -1 / all ones
    if (is_signed) {
      if (a.i == type_min && b.s() == -1) return a;
      return MakeInt(t, static_cast<uint64_t>(a.s() / b.s()));
    }
    return MakeInt(t, a.i / b.i);
  }
  if (op == "remainder") {
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
  if (op == "shift-left") {
    return MakeInt(t,
                   amount >= static_cast<uint64_t>(bits) ? 0 : a.i << amount);
  }
  if (op == "shift-right-logical") {
    uint64_t v = bits >= 64 ? a.i : a.i & ((uint64_t{1} << bits) - 1);
    return MakeInt(t, amount >= static_cast<uint64_t>(bits) ? 0 : v >> amount);
  }
  if (op == "shift-right-arithmetic") {
    if (!is_signed) {
      uint64_t v = bits >= 64 ? a.i : a.i & ((uint64_t{1} << bits) - 1);
      int64_t sv = static_cast<int64_t>(
          WrapToType(v, t == ElementType::kU8    ? ElementType::kS8
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
  if (op == "power") return MakeInt(t, IntPower(a.i, b.i, is_signed));
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

Result<Scalar> BitcastConvert(const Instruction& in, const Scalar& a,
                              ElementType to) {
  if (Bits(a.type) != Bits(to)) return Unsupported(in, "width change");
  uint64_t bits = 0;
  switch (a.type) {
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

// reduce-precision on the value: round to `mantissa_bits` bits after the
// leading one (nearest even; a subnormal of the element type rounds at
// the type's smallest normal exponent, as its bits do), then a value
// whose exponent the `exponent_bits` range cannot hold becomes infinity
// (too large) or zero (too small, no denormals), its sign kept. NaN and
// infinity stay.
Result<Scalar> ReducePrecision(const Instruction& in, const Scalar& a) {
  if (!IsFloat(a.type)) return Unsupported(in, "on a non-float type");
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

class Interpreter {
 public:
  Result<Literal> Run(const Computation& comp,
                      const std::vector<Literal>& args);

 private:
  Result<Literal> Eval(const Instruction& in,
                       const std::unordered_map<const Instruction*, Literal>& v,
                       const std::vector<Literal>& args);
  Result<Scalar> ElementwiseAt(const Instruction& in,
                               const std::vector<Scalar>& operands);
  // Applies a scalar computation (reducer, map, scatter combiner).
  Result<std::vector<Scalar>> CallScalar(const Computation& comp,
                                         const std::vector<Scalar>& args);
};

Result<Scalar> Interpreter::ElementwiseAt(const Instruction& in,
                                          const std::vector<Scalar>& x) {
  const std::string& op = in.opcode;
  if (op == "compare") return Compare(in, x[0], x[1]);
  if (op == "select") return x[0].i ? x[1] : x[2];
  if (op == "clamp") {
    // clamp(lo, x, hi) = min(max(x, lo), hi).
    if (IsFloat(x[1].type)) {
      return MakeFloat(x[1].type, FMin(FMax(x[1].f, x[0].f), x[2].f));
    }
    bool is_signed = IsSigned(x[1].type);
    auto less = [&](const Scalar& p, const Scalar& q) {
      return is_signed ? p.s() < q.s() : p.i < q.i;
    };
    Scalar r = less(x[1], x[0]) ? x[0] : x[1];
    return less(x[2], r) ? x[2] : r;
  }
  if (op == "convert") return Convert(in, x[0], in.shape.type);
  if (op == "reduce-precision") return ReducePrecision(in, x[0]);
  if (op == "bitcast-convert") return BitcastConvert(in, x[0], in.shape.type);
  if (op == "map") {
    IXA_ASSIGN_OR_RETURN(std::vector<Scalar> r, CallScalar(*in.called(), x));
    return r[0];
  }
  if (x.size() == 1) return Unary(in, x[0]);
  if (x.size() == 2) return Binary(in, x[0], x[1]);
  return Unsupported(in);
}

Result<std::vector<Scalar>> Interpreter::CallScalar(
    const Computation& comp, const std::vector<Scalar>& args) {
  std::unordered_map<const Instruction*, std::vector<Scalar>> v;
  for (const Instruction* in : comp.post_order()) {
    std::vector<Scalar> out;
    if (in->opcode == "parameter") {
      if (in->parameter_number >= static_cast<int64_t>(args.size())) {
        return Error::Invalid("interpreter: missing scalar argument");
      }
      out.push_back(args[in->parameter_number]);
    } else if (in->opcode == "tuple") {
      for (const Instruction* o : in->operands) out.push_back(v.at(o)[0]);
    } else if (in->opcode == "get-tuple-element") {
      out.push_back(v.at(in->operand(0)).at(in->tuple_index));
    } else if (in->opcode == "constant" || !in->shape.IsScalar() ||
               !hlo::IsElementwiseOpcode(in->opcode)) {
      // Fall back to array evaluation for anything not scalar-elementwise.
      std::vector<Literal> lits;
      for (const Scalar& s : args) {
        Literal l = Literal::Make(s.type, {});
        Set(&l, 0, s);
        lits.push_back(l);
      }
      std::unordered_map<const Instruction*, Literal> values;
      for (const auto& [k, s] : v) {
        if (s.size() != 1) continue;
        Literal l = Literal::Make(s[0].type, {});
        Set(&l, 0, s[0]);
        values[k] = l;
      }
      IXA_ASSIGN_OR_RETURN(Literal lit, Eval(*in, values, lits));
      if (lit.is_tuple() || lit.size() != 1) {
        return Unsupported(*in, "non-scalar value in a scalar computation");
      }
      out.push_back(Get(lit, 0));
    } else {
      std::vector<Scalar> ops;
      for (const Instruction* o : in->operands) ops.push_back(v.at(o)[0]);
      IXA_ASSIGN_OR_RETURN(Scalar s, ElementwiseAt(*in, ops));
      out.push_back(s);
    }
    v[in] = std::move(out);
  }
  return v.at(comp.root());
}

// Parses the numbers of a constant literal in order (braces ignored).
Result<Literal> ConstantLiteral(const Instruction& in) {
  Literal lit = Literal::Make(in.shape.type, in.shape.dims);
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : in.literal + " ") {
    if (c == '{' || c == '}' || c == ',' ||
        std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) tokens.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (static_cast<int64_t>(tokens.size()) != lit.size()) {
    return Unsupported(in, "literal with " + std::to_string(tokens.size()) +
                               " values for " + std::to_string(lit.size()) +
                               " elements");
  }
  for (int64_t k = 0; k < lit.size(); ++k) {
    const std::string& s = tokens[k];
    if (IsFloat(lit.type)) {
      double v;
      if (s == "inf")
        v = std::numeric_limits<double>::infinity();
      else if (s == "-inf")
        v = -std::numeric_limits<double>::infinity();
      else if (s == "nan" || s == "-nan")
        v = std::numeric_limits<double>::quiet_NaN();
      else
        v = std::stod(s);
      lit.floats[k] = RoundToType(v, lit.type);
    } else if (s == "true" || s == "false") {
      lit.ints[k] = s == "true";
    } else if (IsUnsigned(lit.type)) {
      lit.ints[k] = WrapToType(std::stoull(s), lit.type);
    } else {
      lit.ints[k] = WrapToType(static_cast<uint64_t>(std::stoll(s)), lit.type);
    }
  }
  return lit;
}

// Logical index of `shape` -> offset in its (untiled) physical order.
int64_t PhysicalLinear(const hlo::Shape& shape,
                       const std::vector<int64_t>& index) {
  std::vector<int64_t> m2m = shape.MinorToMajor();
  int64_t linear = 0;
  for (size_t k = m2m.size(); k-- > 0;) {
    linear = linear * shape.dims[m2m[k]] + index[m2m[k]];
  }
  return linear;
}

std::vector<int64_t> LogicalOfPhysical(const hlo::Shape& shape,
                                       int64_t linear) {
  std::vector<int64_t> m2m = shape.MinorToMajor();
  std::vector<int64_t> index(shape.rank());
  for (size_t k = 0; k < m2m.size(); ++k) {
    int64_t d = shape.dims[m2m[k]];
    index[m2m[k]] = linear % d;
    linear /= d;
  }
  return index;
}

bool HasTiles(const hlo::Shape& s) {
  return s.layout && !s.layout->tiles.empty();
}

Result<Literal> Interpreter::Eval(
    const Instruction& in,
    const std::unordered_map<const Instruction*, Literal>& v,
    const std::vector<Literal>& args) {
  const std::string& op = in.opcode;
  auto operand = [&](int k) -> const Literal& { return v.at(in.operand(k)); };
  const hlo::Shape& shape = in.shape;
  if (op == "parameter") {
    if (in.parameter_number >= static_cast<int64_t>(args.size())) {
      return Error::Invalid("interpreter: missing argument " +
                            std::to_string(in.parameter_number));
    }
    return args[in.parameter_number];
  }
  if (op == "constant") return ConstantLiteral(in);
  if (op == "tuple") {
    Literal t;
    t.type = ElementType::kTuple;
    for (int k = 0; k < in.operand_count(); ++k) t.tuple.push_back(operand(k));
    return t;
  }
  if (op == "get-tuple-element") return operand(0).tuple.at(in.tuple_index);
  if (op == "fusion" || op == "call") {
    std::vector<Literal> call_args;
    for (int k = 0; k < in.operand_count(); ++k)
      call_args.push_back(operand(k));
    return Run(*in.called(), call_args);
  }
  if (!shape.IsArray()) {
    if (op == "reduce" || op == "reduce-window" || op == "scatter") {
      // Variadic forms are handled below.
    } else {
      return Unsupported(in, "tuple-shaped");
    }
  }
  if (hlo::IsElementwiseOpcode(op)) {
    Literal out = Literal::Make(shape.type, shape.dims);
    std::vector<Scalar> x(in.operand_count());
    for (int64_t k = 0; k < out.size(); ++k) {
      for (int j = 0; j < in.operand_count(); ++j) {
        const Literal& o = operand(j);
        x[j] = Get(o, o.size() == 1 && out.size() != 1 ? 0 : k);
      }
      IXA_ASSIGN_OR_RETURN(Scalar s, ElementwiseAt(in, x));
      Set(&out, k, s);
    }
    return out;
  }
  Literal out;
  if (shape.IsArray()) out = Literal::Make(shape.type, shape.dims);
  const int64_t n = out.size();
  if (op == "iota") {
    for (int64_t k = 0; k < n; ++k) {
      int64_t value = Delinearize(k, shape.dims)[in.iota_dimension];
      if (IsFloat(shape.type)) {
        out.floats[k] = RoundToType(static_cast<double>(value), shape.type);
      } else {
        out.ints[k] = WrapToType(static_cast<uint64_t>(value), shape.type);
      }
    }
    return out;
  }
  if (op == "broadcast") {
    const Literal& a = operand(0);
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> idx = Delinearize(k, shape.dims);
      std::vector<int64_t> src;
      for (int64_t d : in.dimensions) src.push_back(idx[d]);
      Set(&out, k, Get(a, Linearize(src, a.dims)));
    }
    return out;
  }
  if (op == "transpose") {
    const Literal& a = operand(0);
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> idx = Delinearize(k, shape.dims);
      std::vector<int64_t> src(a.dims.size());
      for (size_t d = 0; d < idx.size(); ++d) src[in.dimensions[d]] = idx[d];
      Set(&out, k, Get(a, Linearize(src, a.dims)));
    }
    return out;
  }
  if (op == "reshape") {
    const Literal& a = operand(0);
    for (int64_t k = 0; k < n; ++k) Set(&out, k, Get(a, k));
    return out;
  }
  if (op == "bitcast") {
    // The same physical element, read through both layouts.
    const hlo::Shape& src_shape = in.operand(0)->shape;
    if (HasTiles(shape) || HasTiles(src_shape)) {
      return Unsupported(in, "tiled bitcast");
    }
    if (src_shape.type != shape.type) return Unsupported(in, "type change");
    const Literal& a = operand(0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t phys = PhysicalLinear(shape, Delinearize(k, shape.dims));
      std::vector<int64_t> src = LogicalOfPhysical(src_shape, phys);
      Set(&out, k, Get(a, Linearize(src, a.dims)));
    }
    return out;
  }
  if (op == "slice") {
    const Literal& a = operand(0);
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> idx = Delinearize(k, shape.dims);
      for (size_t d = 0; d < idx.size(); ++d) {
        idx[d] = in.slice[d].start + idx[d] * in.slice[d].stride;
      }
      Set(&out, k, Get(a, Linearize(idx, a.dims)));
    }
    return out;
  }
  if (op == "reverse") {
    const Literal& a = operand(0);
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> idx = Delinearize(k, shape.dims);
      for (int64_t d : in.dimensions) idx[d] = shape.dims[d] - 1 - idx[d];
      Set(&out, k, Get(a, Linearize(idx, a.dims)));
    }
    return out;
  }
  if (op == "pad") {
    const Literal& a = operand(0);
    Scalar pad = Get(operand(1), 0);
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> idx = Delinearize(k, shape.dims);
      bool inside = true;
      for (size_t d = 0; d < idx.size() && inside; ++d) {
        int64_t x = idx[d] - in.padding[d].low;
        int64_t step = in.padding[d].interior + 1;
        if (x < 0 || x % step != 0 || x / step >= a.dims[d]) {
          inside = false;
        } else {
          idx[d] = x / step;
        }
      }
      Set(&out, k, inside ? Get(a, Linearize(idx, a.dims)) : pad);
    }
    return out;
  }
  if (op == "concatenate") {
    int64_t dim = in.dimensions.at(0);
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> idx = Delinearize(k, shape.dims);
      for (int j = 0; j < in.operand_count(); ++j) {
        const Literal& a = operand(j);
        if (idx[dim] < a.dims[dim]) {
          Set(&out, k, Get(a, Linearize(idx, a.dims)));
          break;
        }
        idx[dim] -= a.dims[dim];
      }
    }
    return out;
  }
  if (op == "dynamic-slice") {
    const Literal& a = operand(0);
    std::vector<int64_t> start(a.dims.size());
    for (size_t d = 0; d < start.size(); ++d) {
      int64_t s = operand(1 + d).AsInt(0);
      if (IsUnsigned(operand(1 + d).type))
        s = static_cast<int64_t>(operand(1 + d).ints[0]);
      start[d] = std::clamp<int64_t>(s, 0, a.dims[d] - shape.dims[d]);
    }
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> idx = Delinearize(k, shape.dims);
      for (size_t d = 0; d < idx.size(); ++d) idx[d] += start[d];
      Set(&out, k, Get(a, Linearize(idx, a.dims)));
    }
    return out;
  }
  if (op == "dynamic-update-slice") {
    out = operand(0);
    const Literal& u = operand(1);
    std::vector<int64_t> start(shape.dims.size());
    for (size_t d = 0; d < start.size(); ++d) {
      start[d] = std::clamp<int64_t>(operand(2 + d).AsInt(0), 0,
                                     shape.dims[d] - u.dims[d]);
    }
    for (int64_t k = 0; k < u.size(); ++k) {
      std::vector<int64_t> idx = Delinearize(k, u.dims);
      for (size_t d = 0; d < idx.size(); ++d) idx[d] += start[d];
      Set(&out, Linearize(idx, shape.dims), Get(u, k));
    }
    return out;
  }
  if (op == "reduce") {
    const int count = in.operand_count() / 2;
    const Literal& a0 = operand(0);
    std::vector<bool> reduced(a0.dims.size(), false);
    for (int64_t d : in.dimensions) reduced[d] = true;
    std::vector<int64_t> kept_dims, red_dims;
    for (size_t d = 0; d < a0.dims.size(); ++d) {
      (reduced[d] ? red_dims : kept_dims).push_back(a0.dims[d]);
    }
    int64_t kept_n = 1, red_n = 1;
    for (int64_t d : kept_dims) kept_n *= d;
    for (int64_t d : red_dims) red_n *= d;
    std::vector<Literal> outs;
    for (int j = 0; j < count; ++j) {
      outs.push_back(Literal::Make(operand(j).type, kept_dims));
    }
    std::vector<int64_t> full(a0.dims.size());
    for (int64_t k = 0; k < kept_n; ++k) {
      std::vector<Scalar> acc;
      for (int j = 0; j < count; ++j) acc.push_back(Get(operand(count + j), 0));
      std::vector<int64_t> kidx = Delinearize(k, kept_dims);
      for (int64_t r = 0; r < red_n; ++r) {
        std::vector<int64_t> ridx = Delinearize(r, red_dims);
        size_t ki = 0, ri = 0;
        for (size_t d = 0; d < full.size(); ++d) {
          full[d] = reduced[d] ? ridx[ri++] : kidx[ki++];
        }
        std::vector<Scalar> call = acc;
        for (int j = 0; j < count; ++j) {
          call.push_back(Get(operand(j), Linearize(full, a0.dims)));
        }
        IXA_ASSIGN_OR_RETURN(acc, CallScalar(*in.called(), call));
      }
      for (int j = 0; j < count; ++j) Set(&outs[j], k, acc[j]);
    }
    if (count == 1 && !shape.IsTuple()) return outs[0];
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple = std::move(outs);
    return t;
  }
  if (op == "reduce-window") {
    const int count = in.operand_count() / 2;
    const Literal& a0 = operand(0);
    const std::vector<int64_t>& odims =
        shape.IsTuple() ? shape.tuple_elements[0].dims : shape.dims;
    int64_t out_n = 1, win_n = 1;
    for (int64_t d : odims) out_n *= d;
    std::vector<int64_t> wdims;
    for (const hlo::WindowDim& w : in.window) {
      wdims.push_back(w.size);
      win_n *= w.size;
    }
    std::vector<Literal> outs;
    for (int j = 0; j < count; ++j) {
      outs.push_back(Literal::Make(operand(j).type, odims));
    }
    for (int64_t k = 0; k < out_n; ++k) {
      std::vector<int64_t> oidx = Delinearize(k, odims);
      std::vector<Scalar> acc;
      for (int j = 0; j < count; ++j) acc.push_back(Get(operand(count + j), 0));
      for (int64_t w = 0; w < win_n; ++w) {
        std::vector<int64_t> widx = Delinearize(w, wdims);
        std::vector<int64_t> src(odims.size());
        bool inside = true;
        for (size_t d = 0; d < odims.size() && inside; ++d) {
          const hlo::WindowDim& wd = in.window[d];
          int64_t wpos = wd.reversal ? wd.size - 1 - widx[d] : widx[d];
          int64_t x =
              oidx[d] * wd.stride + wpos * wd.window_dilation - wd.pad_low;
          if (x < 0 || x % wd.base_dilation != 0 ||
              x / wd.base_dilation >= a0.dims[d]) {
            inside = false;
          } else {
            src[d] = x / wd.base_dilation;
          }
        }
        if (!inside) continue;
        std::vector<Scalar> call = acc;
        for (int j = 0; j < count; ++j) {
          call.push_back(Get(operand(j), Linearize(src, a0.dims)));
        }
        IXA_ASSIGN_OR_RETURN(acc, CallScalar(*in.called(), call));
      }
      for (int j = 0; j < count; ++j) Set(&outs[j], k, acc[j]);
    }
    if (count == 1 && !shape.IsTuple()) return outs[0];
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple = std::move(outs);
    return t;
  }
  if (op == "gather") {
    const hlo::GatherDimensionNumbers& g = in.gather;
    if (!g.operand_batching_dims.empty()) {
      return Unsupported(in, "batching dims");
    }
    const Literal& a = operand(0);
    const Literal& indices = operand(1);
    const int64_t ivd = g.index_vector_dim;
    std::vector<bool> is_offset(shape.dims.size(), false);
    for (int64_t d : g.offset_dims) is_offset[d] = true;
    std::vector<int64_t> window_operand_dims;  // operand dims with offsets
    for (size_t d = 0; d < a.dims.size(); ++d) {
      if (std::find(g.collapsed_slice_dims.begin(),
                    g.collapsed_slice_dims.end(),
                    static_cast<int64_t>(d)) == g.collapsed_slice_dims.end()) {
        window_operand_dims.push_back(d);
      }
    }
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> oidx = Delinearize(k, shape.dims);
      std::vector<int64_t> batch, offsets;
      for (size_t d = 0; d < oidx.size(); ++d) {
        (is_offset[d] ? offsets : batch).push_back(oidx[d]);
      }
      std::vector<int64_t> start(a.dims.size(), 0);
      for (size_t s = 0; s < g.start_index_map.size(); ++s) {
        std::vector<int64_t> iidx = batch;
        if (ivd < static_cast<int64_t>(indices.dims.size())) {
          iidx.insert(iidx.begin() + ivd, static_cast<int64_t>(s));
        }
        int64_t d = g.start_index_map[s];
        start[d] =
            std::clamp<int64_t>(indices.AsInt(Linearize(iidx, indices.dims)), 0,
                                a.dims[d] - in.slice_sizes[d]);
      }
      std::vector<int64_t> src = start;
      for (size_t w = 0; w < window_operand_dims.size(); ++w) {
        src[window_operand_dims[w]] += offsets[w];
      }
      Set(&out, k, Get(a, Linearize(src, a.dims)));
    }
    return out;
  }
  if (op == "scatter") {
    const int count = (in.operand_count() - 1) / 2;
    std::vector<int64_t> update_window_dims =
        ParseIntList(in.Attribute("update_window_dims"));
    std::vector<int64_t> inserted =
        ParseIntList(in.Attribute("inserted_window_dims"));
    std::vector<int64_t> to_operand =
        ParseIntList(in.Attribute("scatter_dims_to_operand_dims"));
    int64_t ivd = ParseIntList(in.Attribute("index_vector_dim")).at(0);
    if (in.HasAttribute("input_batching_dims")) {
      return Unsupported(in, "batching dims");
    }
    std::vector<Literal> outs;
    for (int j = 0; j < count; ++j) outs.push_back(operand(j));
    const Literal& indices = operand(count);
    const Literal& u0 = operand(count + 1);
    std::vector<bool> is_window(u0.dims.size(), false);
    for (int64_t d : update_window_dims) is_window[d] = true;
    std::vector<int64_t> window_operand_dims;
    for (size_t d = 0; d < outs[0].dims.size(); ++d) {
      if (std::find(inserted.begin(), inserted.end(),
                    static_cast<int64_t>(d)) == inserted.end()) {
        window_operand_dims.push_back(d);
      }
    }
    // Window size per operand dim (1 for inserted dims).
    std::vector<int64_t> window_size(outs[0].dims.size(), 1);
    for (size_t w = 0; w < window_operand_dims.size(); ++w) {
      window_size[window_operand_dims[w]] = u0.dims[update_window_dims[w]];
    }
    for (int64_t k = 0; k < u0.size(); ++k) {
      std::vector<int64_t> uidx = Delinearize(k, u0.dims);
      std::vector<int64_t> scatter, window;
      for (size_t d = 0; d < uidx.size(); ++d) {
        (is_window[d] ? window : scatter).push_back(uidx[d]);
      }
      std::vector<int64_t> start(outs[0].dims.size(), 0);
      for (size_t s = 0; s < to_operand.size(); ++s) {
        std::vector<int64_t> iidx = scatter;
        if (ivd < static_cast<int64_t>(indices.dims.size())) {
          iidx.insert(iidx.begin() + ivd, static_cast<int64_t>(s));
        }
        start[to_operand[s]] = indices.AsInt(Linearize(iidx, indices.dims));
      }
      // The whole window must fit, else the update is skipped (as XLA's
      // GPU scatter emitter does).
      bool fits = true;
      for (size_t d = 0; d < start.size(); ++d) {
        if (start[d] < 0 || start[d] > outs[0].dims[d] - window_size[d]) {
          fits = false;
        }
      }
      if (!fits) continue;
      std::vector<int64_t> dst = start;
      for (size_t w = 0; w < window_operand_dims.size(); ++w) {
        dst[window_operand_dims[w]] += window[w];
      }
      int64_t at = Linearize(dst, outs[0].dims);
      std::vector<Scalar> call;
      for (int j = 0; j < count; ++j) call.push_back(Get(outs[j], at));
      for (int j = 0; j < count; ++j)
        call.push_back(Get(operand(count + 1 + j), k));
      IXA_ASSIGN_OR_RETURN(std::vector<Scalar> r,
                           CallScalar(*in.called(), call));
      for (int j = 0; j < count; ++j) Set(&outs[j], at, r[j]);
    }
    if (count == 1 && !shape.IsTuple()) return outs[0];
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple = std::move(outs);
    return t;
  }
  return Unsupported(in);
}

Result<Literal> Interpreter::Run(const Computation& comp,
                                 const std::vector<Literal>& args) {
  std::unordered_map<const Instruction*, Literal> values;
  for (const Instruction* in : comp.post_order()) {
    IXA_ASSIGN_OR_RETURN(Literal lit, Eval(*in, values, args));
    values[in] = std::move(lit);
  }
  return values.at(comp.root());
}

}  // namespace

Result<Literal> Interpret(const hlo::Computation& computation,
                          const std::vector<Literal>& arguments) {
  if (static_cast<int64_t>(arguments.size()) != computation.parameter_count()) {
    return Error::Invalid(
        "interpreter: " + std::to_string(arguments.size()) + " arguments for " +
        std::to_string(computation.parameter_count()) + " parameters");
  }
  Interpreter interpreter;
  return interpreter.Run(computation, arguments);
}

}  // namespace ixa::emit_test
