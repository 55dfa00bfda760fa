// Single elements of the reference interpreter (emit_interpreter.cc):
// XLA's elementwise ops on one element of each operand, written from the
// HLO semantics. Internal to the interpreter; shares no code with emit/.
#ifndef IXA_TESTS_EMIT_EMIT_INTERPRETER_SCALAR_H_
#define IXA_TESTS_EMIT_EMIT_INTERPRETER_SCALAR_H_

#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hlo/custom_calls.h"
#include "analysis/hlo/module.h"
#include "core/result.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test::interpreter_detail {

// One element with its type: integers in 64 bits (sign-extended for signed
// types), floats as a double, complex numbers as two doubles (f the real
// part, im the imaginary one; im stays 0 for every other type).
struct Scalar {
  ElementType type = ElementType::kInvalid;
  uint64_t i = 0;
  double f = 0;
  double im = 0;
  int64_t s() const { return static_cast<int64_t>(i); }
  std::complex<double> c() const { return {f, im}; }
};

Scalar Get(const Literal& lit, int64_t k);
void Set(Literal* lit, int64_t k, const Scalar& s);
Scalar MakeFloat(ElementType t, double v);
Scalar MakeInt(ElementType t, uint64_t v);
// A c64 / c128 element, each part rounded to the component type (XLA
// computes c64 in f32, so every op's result is rounded this way).
Scalar MakeComplex(ElementType t, std::complex<double> v);
Error Unsupported(const hlo::Instruction& in, const std::string& why = "");
// Unsupported for an op on an element type: "on c64".
Error UnsupportedOn(const hlo::Instruction& in, ElementType t);
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
// bitcast-convert between element widths on the whole array: the narrow
// side's extra minor dim holds the wide element's pieces, the least
// significant bits first (a complex element: its real part first).
Result<Literal> BitcastConvertWidths(const hlo::Instruction& in,
                                     const Literal& a, const hlo::Shape& shape);

// The ops above on complex operands (emit_interpreter_complex.cc), called
// by them when an operand (or, for Convert, the result) is complex; also
// complex(re, im), and real / imag of a float.
Result<Scalar> ComplexUnary(const hlo::Instruction& in, const Scalar& a);
Result<Scalar> ComplexBinary(const hlo::Instruction& in, const Scalar& a,
                             const Scalar& b);
Result<Scalar> ComplexCompare(const hlo::Instruction& in, const Scalar& a,
                              const Scalar& b);
Result<Scalar> ComplexConvert(const hlo::Instruction& in, const Scalar& a,
                              ElementType to);

// The dots' shared indexing (emit_interpreter_linalg.cc): an operand's
// free dims (neither batch nor contracting, nor `skip`), in order; and
// output index `idx`, read from `pos` on (batch dims, then the lhs's free
// dims, then the rhs's), set into the operands' indices `li` and `ri`,
// `pos` left past them.
std::vector<int64_t> DotFreeDims(int64_t rank,
                                 const std::vector<int64_t>& batch,
                                 const std::vector<int64_t>& contracting,
                                 int64_t skip = -1);
void SetDotOperandIndices(const std::vector<int64_t>& idx,
                          const hlo::DotDimensionNumbers& dn,
                          const std::vector<int64_t>& lhs_free,
                          const std::vector<int64_t>& rhs_free, size_t* pos,
                          std::vector<int64_t>* li, std::vector<int64_t>* ri);
// The contracting index `ci` set into both operands' indices.
void SetContractingIndices(const std::vector<int64_t>& ci,
                           const hlo::DotDimensionNumbers& dn,
                           std::vector<int64_t>* li, std::vector<int64_t>* ri);

// Whole-array ops (emit_interpreter_linalg.cc). A dot with the given
// dimension numbers and result shape (a GEMM custom call passes its own);
// a convolution with its window, dim_labels and group counts; a sort of
// the operands along in.dimensions[0], stable, by `less` over the 2k
// scalars (a and b of each operand in turn).
Result<Literal> EvalDot(const hlo::Instruction& in,
                        const hlo::DotDimensionNumbers& dims,
                        const hlo::Shape& out_shape, const Literal& lhs,
                        const Literal& rhs);
// A cuBLAS GEMM call: activation(alpha * dot + beta * C + bias) from the
// call's semantics (analysis/hlo/custom_calls.h), the dot unrounded
// (floats in f64) and the result rounded once; for an _AUX epilogue,
// `*aux` (of `aux_shape`) gets the values before the activation.
Result<Literal> EvalGemmCall(const hlo::Instruction& in,
                             const hlo::DotDimensionNumbers& dims,
                             const hlo::GemmCallSemantics& gemm,
                             const hlo::Shape& out_shape,
                             const std::vector<Literal>& operands,
                             const hlo::Shape* aux_shape, Literal* aux);
Result<Literal> EvalConvolution(const hlo::Instruction& in,
                                const Literal& input, const Literal& kernel);
// A forward cuDNN convolution call: activation(conv_result_scale * conv +
// side_input_scale * side input + bias) from the call's semantics
// (analysis/hlo/custom_calls.h), the convolution unrounded (floats in
// f64) and the result rounded once.
Result<Literal> EvalConvCall(const hlo::Instruction& in,
                             const hlo::ConvCallSemantics& conv,
                             const hlo::Shape& out_shape,
                             const std::vector<Literal>& operands);
Result<std::vector<Literal>> EvalSort(
    const hlo::Instruction& in, const std::vector<Literal>& operands,
    const std::function<Result<bool>(const std::vector<Scalar>&)>& less);

// Applies a scalar computation (a select, scatter or comparator) to
// scalars: the interpreter's own CallScalar.
using ScalarCall = std::function<Result<std::vector<Scalar>>(
    const hlo::Computation&, const std::vector<Scalar>&)>;
// The ops XLA expands before emitting (emit_interpreter_expanded.cc), from
// their operation semantics: batch-norm-training, -inference and -grad (in
// double, each result rounded once to the operand's type), topk and the
// TopK custom call, stochastic-convert, select-and-scatter. nullopt for
// any other op.
std::optional<Result<Literal>> EvalExpandedOp(
    const hlo::Instruction& in, const std::vector<Literal>& operands,
    const ScalarCall& call);

// ragged-dot and scaled-dot (emit_interpreter_dots.cc), from XLA's
// operation semantics; nullopt for any other op.
std::optional<Result<Literal>> EvalDotVariant(
    const hlo::Instruction& in, const std::vector<Literal>& operands);

// fft, cholesky and triangular-solve (emit_interpreter_solvers.cc), from
// XLA's operation semantics. fft: FFT / IFFT (1/N) / RFFT / IRFFT over the
// last fft_length dims; cholesky: the factor of the Hermitian matrix of
// the named triangle, the other triangle zero, a matrix that is not
// positive definite NaN throughout; triangular-solve: op(a) x = b or x
// op(a) = b from a's named triangle.
Result<Literal> EvalFft(const hlo::Instruction& in, const Literal& x,
                        const hlo::Shape& shape);
Result<Literal> EvalCholesky(const hlo::Instruction& in, const Literal& a);
Result<Literal> EvalTriangularSolve(const hlo::Instruction& in,
                                    const Literal& a, const Literal& b);

// The ops across devices and streams on one device
// (emit_interpreter_devices.cc): collectives, replica-id / partition-id,
// async pairs, sharding annotations, get-dimension-size. nullopt for any
// other op. `call` runs a computation (an async-start's).
std::optional<Result<Literal>> EvalAcrossDevices(
    const hlo::Instruction& in, const std::vector<const Literal*>& operands,
    const std::function<Result<Literal>(const hlo::Computation&,
                                        const std::vector<Literal>&)>& call);

}  // namespace ixa::emit_test::interpreter_detail

#endif  // IXA_TESTS_EMIT_EMIT_INTERPRETER_SCALAR_H_
