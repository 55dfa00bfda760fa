#include "tests/emit/emit_literal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace ixa::emit_test {

bool IsF8(ElementType t) {
  switch (t) {
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E4M3:
    case ElementType::kF8E3M4:
    case ElementType::kF8E8M0FNU:
      return true;
    default:
      return false;
  }
}
bool IsF4(ElementType t) { return t == ElementType::kF4E2M1FN; }
bool IsFloat(ElementType t) {
  return t == ElementType::kF16 || t == ElementType::kBF16 ||
         t == ElementType::kF32 || t == ElementType::kF64 || IsF8(t) || IsF4(t);
}
bool IsComplex(ElementType t) {
  return t == ElementType::kC64 || t == ElementType::kC128;
}
ElementType ComplexComponent(ElementType t) {
  return t == ElementType::kC128 ? ElementType::kF64 : ElementType::kF32;
}
bool IsSigned(ElementType t) {
  return t == ElementType::kS8 || t == ElementType::kS16 ||
         t == ElementType::kS32 || t == ElementType::kS64 ||
         t == ElementType::kS4 || t == ElementType::kS2 ||
         t == ElementType::kS1;
}
bool IsUnsigned(ElementType t) {
  return t == ElementType::kU8 || t == ElementType::kU16 ||
         t == ElementType::kU32 || t == ElementType::kU64 ||
         t == ElementType::kU4 || t == ElementType::kU2 ||
         t == ElementType::kU1;
}
int Bits(ElementType t) {
  if (IsF8(t)) return 8;
  if (IsF4(t)) return 4;
  switch (t) {
    case ElementType::kS1:
    case ElementType::kU1:
      return 1;
    case ElementType::kS2:
    case ElementType::kU2:
      return 2;
    case ElementType::kS4:
    case ElementType::kU4:
      return 4;
    case ElementType::kPred:
    case ElementType::kS8:
    case ElementType::kU8:
      return 8;
    case ElementType::kS16:
    case ElementType::kU16:
    case ElementType::kF16:
    case ElementType::kBF16:
      return 16;
    case ElementType::kS32:
    case ElementType::kU32:
    case ElementType::kF32:
      return 32;
    case ElementType::kS64:
    case ElementType::kU64:
    case ElementType::kF64:
    case ElementType::kC64:
      return 64;
    case ElementType::kC128:
      return 128;
    default:
      return 0;
  }
}

namespace {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

float HalfToFloat(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);  // subnormal or zero
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  } else {
    v = std::ldexp(static_cast<double>(mant | 0x400), exp - 25);
  }
  return static_cast<float>(sign ? -v : v);
}

// Rounds |f| to a multiple of the half quantum at its binade with ties to
// even, by exact double arithmetic (every float and half is a double).
uint16_t FloatToHalf(float f) {
  if (std::isnan(f)) return 0x7e00;
  uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  double a = std::fabs(static_cast<double>(f));
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  // Normal halves have exponent e-1 in [-14, 15]; below that the quantum
  // is the subnormal one, 2^-24.
  int quantum_exp = std::max(e - 11, -24);
  double q = std::ldexp(a, -quantum_exp);  // a in quanta
  double r = std::nearbyint(q);            // default mode: ties to even
  double rounded = std::ldexp(r, quantum_exp);
  if (rounded == 0) return sign;
  if (rounded >= 65520.0 || rounded > 65504.0) return sign | 0x7c00;
  // Encode the rounded value.
  int re;
  std::frexp(rounded, &re);
  if (re - 1 < -14) {  // subnormal
    return sign | static_cast<uint16_t>(std::ldexp(rounded, 24));
  }
  int exp = re - 1 + 15;
  uint16_t mant =
      static_cast<uint16_t>(std::ldexp(rounded, -(re - 1) + 10) - 1024);
  return sign | static_cast<uint16_t>(exp << 10) | mant;
}

float BF16ToFloat(uint16_t h) {
  return BitsFloat(static_cast<uint32_t>(h) << 16);
}

uint16_t FloatToBF16(float f) {
  if (std::isnan(f)) return static_cast<uint16_t>((FloatBits(f) >> 16) | 0x40);
  uint32_t u = FloatBits(f);
  // Round to nearest even on the dropped 16 bits: add 0x7fff plus the lowest
  // kept bit; a carry into the exponent is the correct rounding (to inf too).
  uint64_t wide = static_cast<uint64_t>(u) + 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(wide >> 16);
}

namespace {

// An f8 type as numbers: exponent and mantissa bits, bias, and its kind of
// special values.
enum class F8Kind { kIeee, kFn, kFnuz, kE8M0 };
struct F8Params {
  int e, m, bias;
  F8Kind kind;
};
F8Params ParamsOf(ElementType t) {
  switch (t) {
    case ElementType::kF8E4M3FN:
      return {4, 3, 7, F8Kind::kFn};
    case ElementType::kF8E5M2:
      return {5, 2, 15, F8Kind::kIeee};
    case ElementType::kF8E4M3FNUZ:
      return {4, 3, 8, F8Kind::kFnuz};
    case ElementType::kF8E5M2FNUZ:
      return {5, 2, 16, F8Kind::kFnuz};
    case ElementType::kF8E4M3B11FNUZ:
      return {4, 3, 11, F8Kind::kFnuz};
    case ElementType::kF8E4M3:
      return {4, 3, 7, F8Kind::kIeee};
    case ElementType::kF8E3M4:
      return {3, 4, 3, F8Kind::kIeee};
    default:
      return {8, 0, 127, F8Kind::kE8M0};
  }
}

}  // namespace

bool F8HasInfinity(ElementType t) { return ParamsOf(t).kind == F8Kind::kIeee; }

double F8Max(ElementType t) {
  const F8Params p = ParamsOf(t);
  const int top = (1 << p.e) - 1;  // the largest exponent field
  switch (p.kind) {
    case F8Kind::kIeee:  // the top field is infinity / NaN
      return (2 - std::ldexp(1.0, -p.m)) * std::ldexp(1.0, top - 1 - p.bias);
    case F8Kind::kFn:  // the top field's all-ones mantissa is NaN
      return (2 - std::ldexp(2.0, -p.m)) * std::ldexp(1.0, top - p.bias);
    case F8Kind::kFnuz:
      return (2 - std::ldexp(1.0, -p.m)) * std::ldexp(1.0, top - p.bias);
    case F8Kind::kE8M0:
      return std::ldexp(1.0, 127);
  }
  return 0;
}

double F8Decode(ElementType t, uint8_t code) {
  const F8Params p = ParamsOf(t);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (p.kind == F8Kind::kE8M0) {
    return code == 0xff ? nan : std::ldexp(1.0, code - 127);
  }
  const bool negative = code & 0x80;
  const int field = (code >> p.m) & ((1 << p.e) - 1);
  const int mant = code & ((1 << p.m) - 1);
  double v;
  if (p.kind == F8Kind::kFnuz && code == 0x80) return nan;
  // The other NaNs keep their sign (a conversion that overflows to NaN
  // keeps the value's).
  if ((p.kind == F8Kind::kFn && (code & 0x7f) == 0x7f) ||
      (p.kind == F8Kind::kIeee && field == (1 << p.e) - 1 && mant != 0)) {
    v = nan;
  } else if (p.kind == F8Kind::kIeee && field == (1 << p.e) - 1) {
    v = std::numeric_limits<double>::infinity();
  } else if (field == 0) {
    v = mant * std::ldexp(1.0, 1 - p.bias - p.m);
  } else {
    v = (1 + mant * std::ldexp(1.0, -p.m)) * std::ldexp(1.0, field - p.bias);
  }
  return negative ? -v : v;
}

uint8_t F8Encode(ElementType t, double v) {
  const F8Params p = ParamsOf(t);
  const bool negative = std::signbit(v);
  const uint8_t sign = negative ? 0x80 : 0;
  const int top = (1 << p.e) - 1;
  uint8_t nan;
  switch (p.kind) {
    case F8Kind::kIeee:
      nan = sign | (top << p.m) | (1 << (p.m - 1));
      break;
    case F8Kind::kFn:
      nan = sign | 0x7f;
      break;
    case F8Kind::kFnuz:
      nan = 0x80;
      break;
    default:
      nan = 0xff;
      break;
  }
  if (std::isnan(v)) return nan;
  double a = std::fabs(v);
  if (p.kind == F8Kind::kE8M0) {
    if (negative && a != 0) return nan;
    if (std::isinf(a)) return nan;
    if (a == 0) return 0;
    int k;
    double f = std::frexp(a, &k);  // a = f * 2^k, f in [0.5, 1)
    int exp = k - 1;               // a = 2f * 2^exp, 2f in [1, 2)
    double sig = 2 * f;
    // Round the significand to 1 or 2; a tie goes to the even code.
    if (sig > 1.5 || (sig == 1.5 && ((exp + 127) & 1))) ++exp;
    int code = exp + 127;
    if (code < 0) return 0;
    if (code > 254) return nan;
    return static_cast<uint8_t>(code);
  }
  const int min_exp = 1 - p.bias;  // of the smallest normal
  double rounded = 0;
  if (!std::isinf(a) && a != 0) {
    int k;
    std::frexp(a, &k);
    int quantum = std::max(k - 1, min_exp) - p.m;  // the step at a
    rounded = std::ldexp(std::nearbyint(std::ldexp(a, -quantum)), quantum);
  } else {
    rounded = a;
  }
  if (rounded > F8Max(t)) {
    return p.kind == F8Kind::kIeee ? static_cast<uint8_t>(sign | (top << p.m))
                                   : nan;
  }
  if (rounded == 0) return p.kind == F8Kind::kFnuz ? 0 : sign;
  int k;
  std::frexp(rounded, &k);
  int exp = k - 1;
  uint8_t bits;
  if (exp < min_exp) {
    bits = static_cast<uint8_t>(std::ldexp(rounded, -(min_exp - p.m)));
  } else {
    int mant = static_cast<int>(std::ldexp(rounded, p.m - exp)) - (1 << p.m);
    bits = static_cast<uint8_t>(((exp + p.bias) << p.m) | mant);
  }
  return sign | bits;
}

double F4Decode(uint8_t code) {
  static const double kMagnitudes[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  const double m = kMagnitudes[code & 7];
  return (code & 8) ? -m : m;
}

uint8_t F4Encode(double v) {
  if (std::isnan(v)) return 8;
  const uint8_t sign = std::signbit(v) ? 8 : 0;
  const double a = std::fabs(v);
  // 6 and beyond (infinity too) saturate, where the differences below
  // would all round to the value's own magnitude.
  if (a >= 6) return sign | 7;
  // The nearest of the 8 magnitudes; of two equally near, the even code.
  int best = 0;
  for (int c = 1; c < 8; ++c) {
    const double d = std::fabs(F4Decode(static_cast<uint8_t>(c)) - a);
    const double d_best = std::fabs(F4Decode(static_cast<uint8_t>(best)) - a);
    if (d < d_best || (d == d_best && c % 2 == 0)) best = c;
  }
  return static_cast<uint8_t>(sign | best);
}

double RoundToType(double v, ElementType t) {
  if (IsF8(t)) return F8Decode(t, F8Encode(t, static_cast<float>(v)));
  if (IsF4(t)) return F4Decode(F4Encode(static_cast<float>(v)));
  switch (t) {
    case ElementType::kF16:
      return HalfToFloat(FloatToHalf(static_cast<float>(v)));
    case ElementType::kBF16:
      return BF16ToFloat(FloatToBF16(static_cast<float>(v)));
    case ElementType::kF32:
    case ElementType::kC64:  // a part of c64 is an f32
      return static_cast<float>(v);
    default:
      return v;
  }
}

uint64_t WrapToType(uint64_t v, ElementType t) {
  if (t == ElementType::kPred) return v != 0;
  int bits = Bits(t);
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  v &= mask;
  if (IsSigned(t) && (v >> (bits - 1)) & 1) v |= ~mask;
  return v;
}

Literal Literal::Make(ElementType type, std::vector<int64_t> dims) {
  Literal l;
  l.type = type;
  l.dims = std::move(dims);
  int64_t n = l.size();
  if (IsFloat(type)) {
    l.floats.assign(n, 0.0);
  } else if (IsComplex(type)) {
    l.floats.assign(2 * n, 0.0);
  } else {
    l.ints.assign(n, 0);
  }
  return l;
}

int64_t Literal::size() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

double Literal::AsDouble(int64_t i) const {
  if (IsFloat(type)) return floats[i];
  if (IsComplex(type)) return floats[2 * i];
  if (IsUnsigned(type)) return static_cast<double>(ints[i]);
  return static_cast<double>(static_cast<int64_t>(ints[i]));
}

int64_t Literal::AsInt(int64_t i) const {
  if (IsFloat(type)) return static_cast<int64_t>(floats[i]);
  if (IsComplex(type)) return static_cast<int64_t>(floats[2 * i]);
  return static_cast<int64_t>(ints[i]);
}

std::string Literal::ElementString(int64_t i) const {
  std::ostringstream out;
  if (IsFloat(type)) {
    out.precision(17);
    out << floats[i];
  } else if (IsComplex(type)) {
    out.precision(17);
    out << "(" << floats[2 * i] << ", " << floats[2 * i + 1] << ")";
  } else if (IsUnsigned(type)) {
    out << ints[i];
  } else {
    out << static_cast<int64_t>(ints[i]);
  }
  return out.str();
}

std::vector<int64_t> Delinearize(int64_t linear,
                                 const std::vector<int64_t>& dims) {
  std::vector<int64_t> index;
  DelinearizeInto(linear, dims, &index);
  return index;
}

void DelinearizeInto(int64_t linear, const std::vector<int64_t>& dims,
                     std::vector<int64_t>* index) {
  index->resize(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    (*index)[i] = dims[i] ? linear % dims[i] : 0;
    linear = dims[i] ? linear / dims[i] : 0;
  }
}

int64_t Linearize(const std::vector<int64_t>& index,
                  const std::vector<int64_t>& dims) {
  int64_t linear = 0;
  for (size_t i = 0; i < dims.size(); ++i) linear = linear * dims[i] + index[i];
  return linear;
}

namespace {

// One tiling step on (shape, index), both major to minor, following the
// pad / split / transpose formulation of docs/layouts.md §1.
void ApplyTile(std::vector<int64_t> tile, std::vector<int64_t>* shape,
               std::vector<int64_t>* index) {
  // A tile longer than the shape sees size-1 major dims.
  while (tile.size() > shape->size()) {
    shape->insert(shape->begin(), 1);
    index->insert(index->begin(), 0);
  }
  size_t prefix = shape->size() - tile.size();
  std::vector<int64_t> s(shape->begin() + prefix, shape->end());
  std::vector<int64_t> e(index->begin() + prefix, index->end());
  // `*` (-1): fold that dim into the next more minor one.
  for (size_t j = 0; j < tile.size();) {
    if (tile[j] == -1 && j + 1 < tile.size()) {
      e[j + 1] += e[j] * s[j + 1];
      s[j + 1] *= s[j];
      s.erase(s.begin() + j);
      e.erase(e.begin() + j);
      tile.erase(tile.begin() + j);
    } else {
      ++j;
    }
  }
  std::vector<int64_t> new_shape(shape->begin(), shape->begin() + prefix);
  std::vector<int64_t> new_index(index->begin(), index->begin() + prefix);
  for (size_t j = 0; j < tile.size(); ++j) {
    new_shape.push_back((s[j] + tile[j] - 1) / tile[j]);
    new_index.push_back(e[j] / tile[j]);
  }
  for (size_t j = 0; j < tile.size(); ++j) {
    new_shape.push_back(tile[j]);
    new_index.push_back(e[j] % tile[j]);
  }
  *shape = std::move(new_shape);
  *index = std::move(new_index);
}

int64_t ElementBytes(ElementType t) { return std::max(1, Bits(t) / 8); }

}  // namespace

PhysicalLayout ComputePhysicalLayout(const hlo::Shape& shape) {
  PhysicalLayout out;
  out.element_bytes = ElementBytes(shape.type);
  out.element_bits = 8 * out.element_bytes;
  const int64_t e = shape.layout ? shape.layout->element_size_bits : 0;
  if (e > 0 && e < 8) out.element_bits = e;
  std::vector<int64_t> m2m = shape.MinorToMajor();
  const int rank = shape.rank();
  std::vector<hlo::Tile> tiles;
  if (shape.layout) tiles = shape.layout->tiles;
  int64_t count = shape.ElementCount();
  out.offset_of.resize(count);
  std::vector<int64_t> final_shape;
  std::vector<int64_t> logical, pshape, pindex;
  for (int64_t linear = 0; linear < count; ++linear) {
    DelinearizeInto(linear, shape.dims, &logical);
    pshape.assign(rank, 0);
    pindex.assign(rank, 0);
    for (int i = 0; i < rank; ++i) {
      pshape[i] = shape.dims[m2m[rank - 1 - i]];
      pindex[i] = logical[m2m[rank - 1 - i]];
    }
    for (const hlo::Tile& t : tiles) ApplyTile(t.dims, &pshape, &pindex);
    out.offset_of[linear] = Linearize(pindex, pshape);
    final_shape = pshape;
  }
  if (count == 0) {
    out.elements = 0;
    return out;
  }
  out.elements = 1;
  for (int64_t d : final_shape) out.elements *= d;
  return out;
}

namespace {

void EncodeElement(const Literal& lit, int64_t i, uint8_t* dst) {
  if (IsF8(lit.type)) {
    *dst = F8Encode(lit.type, lit.floats[i]);
    return;
  }
  switch (lit.type) {
    case ElementType::kF16: {
      uint16_t h = FloatToHalf(static_cast<float>(lit.floats[i]));
      std::memcpy(dst, &h, 2);
      return;
    }
    case ElementType::kBF16: {
      uint16_t h = FloatToBF16(static_cast<float>(lit.floats[i]));
      std::memcpy(dst, &h, 2);
      return;
    }
    case ElementType::kF32: {
      float f = static_cast<float>(lit.floats[i]);
      std::memcpy(dst, &f, 4);
      return;
    }
    case ElementType::kF64:
      std::memcpy(dst, &lit.floats[i], 8);
      return;
    // Complex: the real part then the imaginary one, as std::complex lays
    // them out.
    case ElementType::kC64: {
      const float parts[2] = {static_cast<float>(lit.floats[2 * i]),
                              static_cast<float>(lit.floats[2 * i + 1])};
      std::memcpy(dst, parts, 8);
      return;
    }
    case ElementType::kC128:
      std::memcpy(dst, &lit.floats[2 * i], 16);
      return;
    default: {
      uint64_t v = lit.ints[i];
      std::memcpy(dst, &v, ElementBytes(lit.type));  // little-endian host
      return;
    }
  }
}

void DecodeElement(const uint8_t* src, Literal* lit, int64_t i) {
  if (IsF8(lit->type)) {
    lit->floats[i] = F8Decode(lit->type, *src);
    return;
  }
  switch (lit->type) {
    case ElementType::kF16: {
      uint16_t h;
      std::memcpy(&h, src, 2);
      lit->floats[i] = HalfToFloat(h);
      return;
    }
    case ElementType::kBF16: {
      uint16_t h;
      std::memcpy(&h, src, 2);
      lit->floats[i] = BF16ToFloat(h);
      return;
    }
    case ElementType::kF32: {
      float f;
      std::memcpy(&f, src, 4);
      lit->floats[i] = f;
      return;
    }
    case ElementType::kF64:
      std::memcpy(&lit->floats[i], src, 8);
      return;
    case ElementType::kC64: {
      float parts[2];
      std::memcpy(parts, src, 8);
      lit->floats[2 * i] = parts[0];
      lit->floats[2 * i + 1] = parts[1];
      return;
    }
    case ElementType::kC128:
      std::memcpy(&lit->floats[2 * i], src, 16);
      return;
    default: {
      uint64_t v = 0;
      std::memcpy(&v, src, ElementBytes(lit->type));
      // pred keeps its byte as is, so a stored 2 is seen as wrong.
      lit->ints[i] =
          lit->type == ElementType::kPred ? v : WrapToType(v, lit->type);
      return;
    }
  }
}

}  // namespace

std::vector<uint8_t> ToPhysical(const Literal& lit, const hlo::Shape& shape) {
  if (IsF4(lit.type)) {  // its 4-bit codes, stored as u4 values are
    Literal codes = Literal::Make(ElementType::kU4, lit.dims);
    for (int64_t i = 0; i < lit.size(); ++i) {
      codes.ints[i] = F4Encode(lit.floats[i]);
    }
    hlo::Shape as_u4 = shape;
    as_u4.type = ElementType::kU4;
    return ToPhysical(codes, as_u4);
  }
  PhysicalLayout layout = ComputePhysicalLayout(shape);
  std::vector<uint8_t> bytes(layout.bytes(), 0);
  for (int64_t i = 0; i < lit.size(); ++i) {
    const int64_t o = layout.offset_of[i];
    if (layout.packed()) {
      const int shift = layout.packed_shift(o);
      const uint8_t mask = static_cast<uint8_t>((1 << layout.element_bits) - 1);
      uint8_t& byte = bytes[layout.packed_byte(o)];
      byte = static_cast<uint8_t>((byte & ~(mask << shift)) |
                                  ((lit.ints[i] & mask) << shift));
      continue;
    }
    EncodeElement(lit, i, bytes.data() + o * layout.element_bytes);
  }
  return bytes;
}

Literal FromPhysical(const std::vector<uint8_t>& bytes,
                     const hlo::Shape& shape) {
  if (IsF4(shape.type)) {
    hlo::Shape as_u4 = shape;
    as_u4.type = ElementType::kU4;
    Literal codes = FromPhysical(bytes, as_u4);
    Literal lit = Literal::Make(shape.type, shape.dims);
    for (int64_t i = 0; i < lit.size(); ++i) {
      lit.floats[i] = F4Decode(static_cast<uint8_t>(codes.ints[i]));
    }
    return lit;
  }
  PhysicalLayout layout = ComputePhysicalLayout(shape);
  Literal lit = Literal::Make(shape.type, shape.dims);
  for (int64_t i = 0; i < lit.size(); ++i) {
    const int64_t o = layout.offset_of[i];
    if (layout.packed()) {
      lit.ints[i] = WrapToType(
          bytes[layout.packed_byte(o)] >> layout.packed_shift(o), lit.type);
      continue;
    }
    DecodeElement(bytes.data() + o * layout.element_bytes, &lit, i);
  }
  return lit;
}

Literal RandomLiteral(const hlo::Shape& shape, std::mt19937_64& rng,
                      const RandomSpec& spec) {
  if (shape.IsTuple()) {
    Literal t;
    t.type = ElementType::kTuple;
    for (const hlo::Shape& e : shape.tuple_elements) {
      t.tuple.push_back(RandomLiteral(e, rng, spec));
    }
    return t;
  }
  Literal lit = Literal::Make(shape.type, shape.dims);
  std::uniform_real_distribution<double> u(-spec.float_range, spec.float_range);
  auto random_float = [&] { return (rng() % 53 == 0) ? 0.0 : u(rng); };
  for (int64_t i = 0; i < lit.size(); ++i) {
    if (IsFloat(shape.type)) {
      double v = random_float();
      // f8e8m0fnu holds positive powers of two only.
      if (shape.type == ElementType::kF8E8M0FNU) v = std::fabs(v);
      lit.floats[i] = RoundToType(v, shape.type);
    } else if (IsComplex(shape.type)) {
      // Sequenced: the real part draws first.
      const double re = random_float();
      const double im = random_float();
      lit.floats[2 * i] = RoundToType(re, shape.type);
      lit.floats[2 * i + 1] = RoundToType(im, shape.type);
    } else if (shape.type == ElementType::kPred) {
      lit.ints[i] = rng() & 1;
    } else {
      int64_t lo = spec.int_lo, hi = spec.int_hi;
      if (IsUnsigned(shape.type)) lo = std::max<int64_t>(lo, 0);
      int bits = Bits(shape.type);
      if (bits < 64) {
        int64_t tmax = IsUnsigned(shape.type) ? (int64_t{1} << bits) - 1
                                              : (int64_t{1} << (bits - 1)) - 1;
        int64_t tmin = IsUnsigned(shape.type) ? 0 : -tmax - 1;
        lo = std::clamp(lo, tmin, tmax);
        hi = std::clamp(hi, tmin, tmax);
      }
      std::uniform_int_distribution<int64_t> u(lo, std::max(lo, hi));
      lit.ints[i] = WrapToType(static_cast<uint64_t>(u(rng)), shape.type);
    }
  }
  return lit;
}

std::string CompareLiterals(const Literal& expected, const Literal& actual,
                            const Tolerance& tol) {
  std::ostringstream out;
  if (expected.is_tuple() || actual.is_tuple()) {
    if (expected.tuple.size() != actual.tuple.size()) return "tuple arity";
    for (size_t i = 0; i < expected.tuple.size(); ++i) {
      std::string s = CompareLiterals(expected.tuple[i], actual.tuple[i], tol);
      if (!s.empty()) return "tuple element " + std::to_string(i) + ": " + s;
    }
    return "";
  }
  if (expected.type != actual.type || expected.dims != actual.dims) {
    return "shape mismatch";
  }
  auto float_equal = [&](double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::fabs(a - b) <=
           tol.abs + tol.rel * std::max(std::fabs(a), std::fabs(b));
  };
  int mismatches = 0;
  for (int64_t i = 0; i < expected.size(); ++i) {
    bool equal;
    if (IsFloat(expected.type)) {
      equal = float_equal(expected.floats[i], actual.floats[i]);
    } else if (IsComplex(expected.type)) {
      equal = float_equal(expected.floats[2 * i], actual.floats[2 * i]) &&
              float_equal(expected.floats[2 * i + 1], actual.floats[2 * i + 1]);
    } else {
      equal = expected.ints[i] == actual.ints[i];
    }
    if (!equal) {
      if (++mismatches <= 5) {
        std::vector<int64_t> idx = Delinearize(i, expected.dims);
        out << " at [";
        for (size_t k = 0; k < idx.size(); ++k) out << (k ? "," : "") << idx[k];
        out << "] expected " << expected.ElementString(i) << " got "
            << actual.ElementString(i) << ";";
      }
    }
  }
  if (mismatches == 0) return "";
  return std::to_string(mismatches) + " of " + std::to_string(expected.size()) +
         " elements differ:" + out.str();
}

}  // namespace ixa::emit_test
