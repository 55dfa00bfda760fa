#include "hw/throughput.h"

#include "hw/device.h"

namespace ixa::hw {
namespace {

bool Is16BitFloat(std::string_view t) { return t == "f16" || t == "bf16"; }
bool IsNarrowFloat(std::string_view t) {
  return t.substr(0, 2) == "f8" || t.substr(0, 2) == "f4" ||
         t.substr(0, 2) == "f6";
}
bool IsFloat(std::string_view t) {
  return t == "f32" || t == "f64" || Is16BitFloat(t) || IsNarrowFloat(t) ||
         t == "c64" || t == "c128";
}

// Slots of one f32 element.
double F32Slots(std::string_view op) {
  // SFU ops: 8 slots (16 per SM per clock against 128 FMAs), plus the
  // FMAs of their range reduction or refinement.
  if (op == "exponential" || op == "log") return 10;
  if (op == "tanh" || op == "rsqrt" || op == "sqrt") return 8;
  if (op == "sine" || op == "cosine" || op == "tan") return 12;
  if (op == "logistic") return 18;  // exp and a reciprocal
  if (op == "exponential-minus-one" || op == "log-plus-one") return 20;
  if (op == "power") return 22;  // log, multiply, exp
  if (op == "atan2") return 30;
  if (op == "erf" || op == "cbrt") return 20;
  if (op == "divide" || op == "remainder") return 10;  // reciprocal, refine
  if (op == "round-nearest-even" || op == "round-nearest-afz" ||
      op == "floor" || op == "ceil") {
    return 1;
  }
  return 1;  // add, multiply, maximum, compare, select, abs, negate, ...
}

}  // namespace

double Fp64Ratio(const Device& device) {
  if (device.vendor != "nvidia") return 2;
  // GA10x / AD10x consumer and workstation parts (sm_86, sm_89).
  if (device.compute_capability_major == 8 &&
      device.compute_capability_minor >= 6) {
    return 64;
  }
  return 2;
}

double IssueSlots(const Device& device, std::string_view op,
                  std::string_view type, std::string_view from) {
  if (op == "copy" || op == "bitcast-convert") return 0;
  if (op == "convert") {
    const bool from_float = IsFloat(from), to_float = IsFloat(type);
    if (from_float != to_float) return 4;  // I2F / F2I: quarter rate
    if (IsNarrowFloat(from) || IsNarrowFloat(type)) return 2;
    if (type == "f64" || from == "f64") return Fp64Ratio(device);
    return 1;
  }
  if (!IsFloat(type)) {
    // Integers and predicates: one IADD3 / IMAD / LOP3 each; division
    // and powers are loops of them.
    if (op == "divide" || op == "remainder") return 20;
    if (op == "power") return 30;
    return 1;
  }
  const double f32 = F32Slots(op);
  if (type == "f32") return f32;
  if (type == "f64" || type == "c128") return f32 * Fp64Ratio(device);
  if (type == "c64") return 4 * f32;
  if (Is16BitFloat(type)) {
    // Adds, multiplies and the like pair up (HADD2, HFMA2); the rest is
    // computed in f32 between two conversions.
    if (f32 == 1 && op != "compare" && op != "select") return 0.5;
    return f32 + 2;
  }
  // fp8 / fp6 / fp4: converted to f32 and back around every op.
  return f32 + 4;
}

}  // namespace ixa::hw
