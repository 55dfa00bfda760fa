// Single elements of the reference interpreter (emit_interpreter.cc):
// XLA's elementwise ops on one element of each operand, written from the
// HLO semantics. Internal to the interpreter; shares no code with emit/.
#ifndef IXA_TESTS_EMIT_EMIT_INTERPRETER_SCALAR_H_
#define IXA_TESTS_EMIT_EMIT_INTERPRETER_SCALAR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "core/result.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test::interpreter_detail {

// One element with its type: integers in 64 bits (sign-extended for signed
// types), floats as a double.
struct Scalar {
  ElementType type = ElementType::kInvalid;
  uint64_t i = 0;
  double f = 0;
  int64_t s() const { return static_cast<int64_t>(i); }
};

Scalar Get(const Literal& lit, int64_t k);
void Set(Literal* lit, int64_t k, const Scalar& s);
Scalar MakeFloat(ElementType t, double v);
Scalar MakeInt(ElementType t, uint64_t v);
Error Unsupported(const hlo::Instruction& in, const std::string& why = "");
// "{1,2,3}" or "1" -> integers.
std::vector<int64_t> ParseIntList(const std::string& raw);
// NaN-propagating max / min, as XLA's GPU emitters compute them.
double FMax(double a, double b);
double FMin(double a, double b);

// The ops on one element of each operand.
Result<Scalar> Unary(const hlo::Instruction& in, const Scalar& a);
Result<Scalar> Binary(const hlo::Instruction& in, const Scalar& a,
                      const Scalar& b);
Result<Scalar> Compare(const hlo::Instruction& in, const Scalar& a,
                       const Scalar& b);
Result<Scalar> Convert(const hlo::Instruction& in, const Scalar& a,
                       ElementType to);
Result<Scalar> BitcastConvert(const hlo::Instruction& in, const Scalar& a,
                              ElementType to);
Result<Scalar> ReducePrecision(const hlo::Instruction& in, const Scalar& a);

}  // namespace ixa::emit_test::interpreter_detail

#endif  // IXA_TESTS_EMIT_EMIT_INTERPRETER_SCALAR_H_
