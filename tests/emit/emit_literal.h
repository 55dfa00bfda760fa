// Test-side values for the code generator checks: literals with real
// element types, their encodings in physical buffers (layouts and tiles
// computed here, independently of hw/ and emit/), random inputs and the
// comparison of results (docs/emitters.md §3).
#ifndef IXA_TESTS_EMIT_EMIT_LITERAL_H_
#define IXA_TESTS_EMIT_EMIT_LITERAL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/hlo/shape.h"

namespace ixa::emit_test {

using hlo::ElementType;

bool IsFloat(ElementType t);    // f16, bf16, f32, f64, the f8 types, f4
bool IsComplex(ElementType t);  // c64, c128 (not IsFloat)
// The type of one part of a complex type: f32 for c64, f64 for c128.
ElementType ComplexComponent(ElementType t);
bool IsF8(ElementType t);        // f8e4m3fn, f8e5m2, ... f8e8m0fnu
bool IsF4(ElementType t);        // f4e2m1fn
bool IsSigned(ElementType t);    // s1, s2, s4, s8..s64
bool IsUnsigned(ElementType t);  // u1, u2, u4, u8..u64
int Bits(ElementType t);         // pred counts 8, s4 4, c64 64 (both parts)

// The 8-bit float types (test copies, computed on values: the exponent and
// significand of the value, not the bits of an f32). Decode: the value of
// a code (NaN for the NaN codes). Encode: the nearest code, ties to even;
// overflow gives infinity where the type has one, else NaN; fnuz types
// have no negative zero; f8e8m0fnu holds 2^-127..2^127 (zero and values
// below round to 2^-127, negative values are NaN).
double F8Decode(ElementType t, uint8_t code);
uint8_t F8Encode(ElementType t, double v);
// The largest finite value of an f8 type, and whether it has infinities.
double F8Max(ElementType t);
bool F8HasInfinity(ElementType t);

// f4e2m1fn (test copies, by enumeration of its 16 values): Decode gives
// the value of a 4-bit code (±{0, 0.5, 1, 1.5, 2, 3, 4, 6}, the sign in
// bit 3); Encode the code of the nearest value, ties to the even code,
// saturating (values past 6 and infinities give ±6), NaN gives -0.
double F4Decode(uint8_t code);
uint8_t F4Encode(double v);

// IEEE half / bfloat16 <-> float, round to nearest even (test copies).
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float BF16ToFloat(uint16_t h);
uint16_t FloatToBF16(float f);

// Rounds a computed value to the element type: f16 / bf16 / f8 through
// float (XLA computes them in f32), f32 to float, f64 unchanged. A complex
// type rounds a part to its component type (c64: float).
double RoundToType(double v, ElementType t);
// Wraps an integer to the type's width (two's complement), sign-extended
// for signed types, zero-extended for unsigned; pred becomes 0 or 1.
uint64_t WrapToType(uint64_t v, ElementType t);

// An array (row-major logical order) or a tuple.
struct Literal {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  // Integers and pred: the value in 64 bits (sign-extended for signed
  // types). Floats: the value as a double (exact for every float type).
  // Complex: two doubles per element, the real part of element k at 2k and
  // the imaginary part at 2k + 1 (so floats.size() == 2 * size()).
  std::vector<uint64_t> ints;
  std::vector<double> floats;
  std::vector<Literal> tuple;  // set for tuples (type kTuple)

  static Literal Make(ElementType type, std::vector<int64_t> dims);
  bool is_tuple() const { return type == ElementType::kTuple; }
  int64_t size() const;  // element count
  // Element i as a double / as an integer (either representation; the
  // real part of a complex element).
  double AsDouble(int64_t i) const;
  int64_t AsInt(int64_t i) const;
  // The value as text; a complex element as "(1.5, -2)".
  std::string ElementString(int64_t i) const;
};

// Row-major strides and (de)linearization of logical indices.
std::vector<int64_t> Delinearize(int64_t linear,
                                 const std::vector<int64_t>& dims);
// Delinearize into `index` (resized to the rank): no allocation once it
// has the capacity, for per-element loops.
void DelinearizeInto(int64_t linear, const std::vector<int64_t>& dims,
                     std::vector<int64_t>* index);
int64_t Linearize(const std::vector<int64_t>& index,
                  const std::vector<int64_t>& dims);

// Physical buffers (docs/emitters.md §3): elements in the shape's layout,
// tiles and their padding included, little-endian encodings.
struct PhysicalLayout {
  int64_t elements = 0;       // padded element count
  int64_t element_bytes = 0;  // 1 for packed and sub-byte elements
  // Bits per element in memory: E(n) for packed sub-byte types (several
  // elements per byte, the first in the low-order bits), else 8 * bytes.
  int64_t element_bits = 0;
  std::vector<int64_t> offset_of;  // logical linear index -> element offset
  int64_t bytes() const { return (elements * element_bits + 7) / 8; }
  bool packed() const { return element_bits < 8; }
  // Packed: the byte and the bit shift of element offset `o`, in XLA's
  // order (element k of a byte at bits [k * bits, (k + 1) * bits)).
  int64_t packed_byte(int64_t o) const { return o / (8 / element_bits); }
  int packed_shift(int64_t o) const {
    return static_cast<int>(element_bits * (o % (8 / element_bits)));
  }
};
// Computes the placement of every logical element from the layout's
// minor_to_major and tiles (docs/layouts.md §1: pad, split, move the tile
// dims minor; `*` combines with the next dim). A sub-byte type without
// E(n) takes one byte per element (sign-extended for signed types).
PhysicalLayout ComputePhysicalLayout(const hlo::Shape& shape);
std::vector<uint8_t> ToPhysical(const Literal& lit, const hlo::Shape& shape);
Literal FromPhysical(const std::vector<uint8_t>& bytes,
                     const hlo::Shape& shape);

// Random contents for a parameter. `int_lo`/`int_hi` bound integers (then
// clipped to the type); floats are uniform in [-float_range, float_range]
// with an occasional exact zero, and so is each part of a complex element.
struct RandomSpec {
  int64_t int_lo = -20, int_hi = 20;
  double float_range = 4.0;
};
// A tuple shape: a tuple of random elements.
Literal RandomLiteral(const hlo::Shape& shape, std::mt19937_64& rng,
                      const RandomSpec& spec = {});

// How results are compared.
struct Tolerance {
  double rel = 0;  // floats: |a - b| <= abs + rel * max(|a|, |b|)
  double abs = 0;
  // Floats are compared by value with NaN == NaN, complex elements part by
  // part the same way; integers exactly.
};
// Empty when equal within tolerance; otherwise the first mismatches.
std::string CompareLiterals(const Literal& expected, const Literal& actual,
                            const Tolerance& tol);

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_LITERAL_H_
