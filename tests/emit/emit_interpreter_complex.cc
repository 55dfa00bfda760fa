// Complex elements (c64, c128) in the reference interpreter: XLA's
// elementwise ops on complex operands, computed with std::complex<double>
// (principal values) and, for c64, rounded per part to f32 after every op
// (XLA computes c64 in f32). Ops XLA does not define on complex numbers
// (ordering comparisons, maximum, floor, ...) are Unsupported errors that
// name the op and the type, never a value computed on one part.
#include <cmath>
#include <complex>

#include "tests/emit/emit_interpreter_scalar.h"

namespace ixa::emit_test::interpreter_detail {

using hlo::Instruction;

namespace {

using Cplx = std::complex<double>;

// e^z - 1 without the cancellation of exp(z) - 1 near 0:
// e^(a+bi) - 1 = (expm1(a) cos b + (cos b - 1)) + e^a sin b i, with
// cos b - 1 = -2 sin^2(b/2) (as XLA's emitter splits it).
Cplx ComplexExpm1(Cplx z) {
  const double a = z.real(), b = z.imag();
  const double half_sin = std::sin(b / 2);
  return {std::expm1(a) * std::cos(b) - 2 * half_sin * half_sin,
          std::exp(a) * std::sin(b)};
}

// log(1 + z) without the cancellation of 1 + z near 0:
// |1 + z|^2 - 1 = a (a + 2) + b^2, so re = log1p(that) / 2. Away from 0
// nothing cancels and std::log is as accurate (and a * a cannot overflow).
Cplx ComplexLog1p(Cplx z) {
  const double a = z.real(), b = z.imag();
  if (std::abs(z) >= 0.5) return std::log(1.0 + z);
  return {0.5 * std::log1p(a * (a + 2) + b * b), std::atan2(b, 1 + a)};
}

// z^w with XLA's zero base: 0^0 = 1 and 0^c = 0 for real c > 0 (Kahan,
// "Branch Cuts for Complex Elementary Functions", §10), where exp(w log z)
// would give NaN through log 0 = -inf.
Cplx ComplexPower(Cplx z, Cplx w) {
  if (z == 0.0 && w.imag() == 0 && w.real() >= 0) {
    return w.real() == 0 ? 1.0 : 0.0;
  }
  return std::pow(z, w);
}

}  // namespace

Result<Scalar> ComplexUnary(const Instruction& in, const Scalar& a) {
  const hlo::Opcode op = in.opcode;
  const ElementType t = a.type;
  if (!IsComplex(t)) {
    // real / imag of a real float: the value itself, and zero.
    if (IsFloat(t) && op == hlo::Opcode::kReal) return a;
    if (IsFloat(t) && op == hlo::Opcode::kImag) return MakeFloat(t, 0);
    return UnsupportedOn(in, t);
  }
  const ElementType part = ComplexComponent(t);
  const Cplx z = a.c();
  if (op == hlo::Opcode::kReal) return MakeFloat(part, z.real());
  if (op == hlo::Opcode::kImag) return MakeFloat(part, z.imag());
  if (op == hlo::Opcode::kAbs)
    return MakeFloat(part, std::hypot(z.real(), z.imag()));
  if (op == hlo::Opcode::kCopy) return a;
  auto C = [&](Cplx v) { return MakeComplex(t, v); };
  if (op == hlo::Opcode::kNegate) return C(-z);
  if (op == hlo::Opcode::kExp) return C(std::exp(z));
  if (op == hlo::Opcode::kExpm1) return C(ComplexExpm1(z));
  if (op == hlo::Opcode::kLog) return C(std::log(z));
  if (op == hlo::Opcode::kLog1p) return C(ComplexLog1p(z));
  if (op == hlo::Opcode::kSqrt) return C(std::sqrt(z));
  if (op == hlo::Opcode::kRsqrt) return C(1.0 / std::sqrt(z));
  if (op == hlo::Opcode::kTanh) return C(std::tanh(z));
  if (op == hlo::Opcode::kSin) return C(std::sin(z));
  if (op == hlo::Opcode::kCos) return C(std::cos(z));
  if (op == hlo::Opcode::kSign) {
    // z / |z| part by part (as XLA divides by the real |z|), 0 at 0.
    const double r = std::hypot(z.real(), z.imag());
    if (r == 0) return C(0.0);
    return C({z.real() / r, z.imag() / r});
  }
  return UnsupportedOn(in, t);
}

Result<Scalar> ComplexBinary(const Instruction& in, const Scalar& a,
                             const Scalar& b) {
  const hlo::Opcode op = in.opcode;
  if (op == hlo::Opcode::kComplex) {
    // Two f32 parts make a c64, two f64 parts a c128; nothing else.
    if (a.type != b.type) return Unsupported(in, "operands of two types");
    if (a.type == ElementType::kF32) {
      return MakeComplex(ElementType::kC64, {a.f, b.f});
    }
    if (a.type == ElementType::kF64) {
      return MakeComplex(ElementType::kC128, {a.f, b.f});
    }
    return UnsupportedOn(in, a.type);
  }
  const ElementType t = a.type;
  if (!IsComplex(t)) return UnsupportedOn(in, t);
  if (b.type != t) return Unsupported(in, "operands of two types");
  const Cplx x = a.c(), y = b.c();
  auto C = [&](Cplx v) { return MakeComplex(t, v); };
  if (op == hlo::Opcode::kAdd) return C(x + y);
  if (op == hlo::Opcode::kSubtract) return C(x - y);
  if (op == hlo::Opcode::kMultiply) return C(x * y);
  if (op == hlo::Opcode::kDivide) return C(x / y);
  if (op == hlo::Opcode::kPower) return C(ComplexPower(x, y));
  return UnsupportedOn(in, t);
}

Result<Scalar> ComplexCompare(const Instruction& in, const Scalar& a,
                              const Scalar& b) {
  const ElementType t = IsComplex(a.type) ? a.type : b.type;
  if (a.type != b.type) return Unsupported(in, "operands of two types");
  // Complex numbers have no order: only (in)equality, part by part (a NaN
  // part makes them unequal, as for floats).
  const std::string dir = in.Attribute("direction");
  if (in.HasAttribute("type") && in.Attribute("type") == "TOTALORDER") {
    return Unsupported(in,
                       std::string("TOTALORDER on ") + hlo::ElementTypeName(t));
  }
  const bool eq = a.f == b.f && a.im == b.im;
  if (dir == "EQ") return MakeInt(ElementType::kPred, eq);
  if (dir == "NE") return MakeInt(ElementType::kPred, !eq);
  return Unsupported(in,
                     "direction '" + dir + "' on " + hlo::ElementTypeName(t));
}

Result<Scalar> ComplexConvert(const Instruction& in, const Scalar& a,
                              ElementType to) {
  const ElementType from = a.type;
  if (IsComplex(from)) {
    // HLO drops an imaginary part only through real(): a complex -> real
    // convert is not one XLA accepts.
    if (!IsComplex(to)) {
      return Unsupported(in, std::string("from ") + hlo::ElementTypeName(from) +
                                 " to " + hlo::ElementTypeName(to));
    }
    return MakeComplex(to, a.c());  // c128 -> c64 rounds each part
  }
  // A real value becomes the real part, converted as to the component
  // type (an integer rounds once, straight to f32 for c64).
  const bool to_f64 = ComplexComponent(to) == ElementType::kF64;
  double v;
  if (IsFloat(from)) {
    v = a.f;
  } else if (IsUnsigned(from) || from == ElementType::kPred) {
    v = to_f64 ? static_cast<double>(a.i)
               : static_cast<double>(static_cast<float>(a.i));
  } else if (IsSigned(from)) {
    v = to_f64 ? static_cast<double>(a.s())
               : static_cast<double>(static_cast<float>(a.s()));
  } else {
    return UnsupportedOn(in, from);
  }
  return MakeComplex(to, {v, 0.0});
}

}  // namespace ixa::emit_test::interpreter_detail
