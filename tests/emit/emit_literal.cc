#include "tests/emit/emit_literal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace ixa::emit_test {

bool IsFloat(ElementType t) {
  return t == ElementType::kF16 || t == ElementType::kBF16 ||
         t == ElementType::kF32 || t == ElementType::kF64;
}
bool IsSigned(ElementType t) {
  return t == ElementType::kS8 || t == ElementType::kS16 ||
         t == ElementType::kS32 || t == ElementType::kS64;
}
bool IsUnsigned(ElementType t) {
  return t == ElementType::kU8 || t == ElementType::kU16 ||
         t == ElementType::kU32 || t == ElementType::kU64;
}
int Bits(ElementType t) {
  switch (t) {
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
      return 64;
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

double RoundToType(double v, ElementType t) {
  switch (t) {
    case ElementType::kF16:
      return HalfToFloat(FloatToHalf(static_cast<float>(v)));
    case ElementType::kBF16:
      return BF16ToFloat(FloatToBF16(static_cast<float>(v)));
    case ElementType::kF32:
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
  if (IsUnsigned(type)) return static_cast<double>(ints[i]);
  return static_cast<double>(static_cast<int64_t>(ints[i]));
}

int64_t Literal::AsInt(int64_t i) const {
  if (IsFloat(type)) return static_cast<int64_t>(floats[i]);
  return static_cast<int64_t>(ints[i]);
}

std::string Literal::ElementString(int64_t i) const {
  std::ostringstream out;
  if (IsFloat(type)) {
    out.precision(17);
    out << floats[i];
  } else if (IsUnsigned(type)) {
    out << ints[i];
  } else {
    out << static_cast<int64_t>(ints[i]);
  }
  return out.str();
}

std::vector<int64_t> Delinearize(int64_t linear,
                                 const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    index[i] = dims[i] ? linear % dims[i] : 0;
    linear = dims[i] ? linear / dims[i] : 0;
  }
  return index;
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

int64_t ElementBytes(ElementType t) { return Bits(t) / 8; }

}  // namespace

PhysicalLayout ComputePhysicalLayout(const hlo::Shape& shape) {
  PhysicalLayout out;
  out.element_bytes = ElementBytes(shape.type);
  std::vector<int64_t> m2m = shape.MinorToMajor();
  const int rank = shape.rank();
  std::vector<hlo::Tile> tiles;
  if (shape.layout) tiles = shape.layout->tiles;
  int64_t count = shape.ElementCount();
  out.offset_of.resize(count);
  std::vector<int64_t> final_shape;
  for (int64_t linear = 0; linear < count; ++linear) {
    std::vector<int64_t> logical = Delinearize(linear, shape.dims);
    std::vector<int64_t> pshape(rank), pindex(rank);
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
    default: {
      uint64_t v = lit.ints[i];
      std::memcpy(dst, &v, Bits(lit.type) / 8);  // little-endian host
      return;
    }
  }
}

void DecodeElement(const uint8_t* src, Literal* lit, int64_t i) {
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
    default: {
      uint64_t v = 0;
      std::memcpy(&v, src, Bits(lit->type) / 8);
      // pred keeps its byte as is, so a stored 2 is seen as wrong.
      lit->ints[i] =
          lit->type == ElementType::kPred ? v : WrapToType(v, lit->type);
      return;
    }
  }
}

}  // namespace

std::vector<uint8_t> ToPhysical(const Literal& lit, const hlo::Shape& shape) {
  PhysicalLayout layout = ComputePhysicalLayout(shape);
  std::vector<uint8_t> bytes(layout.bytes(), 0);
  for (int64_t i = 0; i < lit.size(); ++i) {
    EncodeElement(lit, i,
                  bytes.data() + layout.offset_of[i] * layout.element_bytes);
  }
  return bytes;
}

Literal FromPhysical(const std::vector<uint8_t>& bytes,
                     const hlo::Shape& shape) {
  PhysicalLayout layout = ComputePhysicalLayout(shape);
  Literal lit = Literal::Make(shape.type, shape.dims);
  for (int64_t i = 0; i < lit.size(); ++i) {
    DecodeElement(bytes.data() + layout.offset_of[i] * layout.element_bytes,
                  &lit, i);
  }
  return lit;
}

Literal RandomLiteral(const hlo::Shape& shape, std::mt19937_64& rng,
                      const RandomSpec& spec) {
  Literal lit = Literal::Make(shape.type, shape.dims);
  for (int64_t i = 0; i < lit.size(); ++i) {
    if (IsFloat(shape.type)) {
      std::uniform_real_distribution<double> u(-spec.float_range,
                                               spec.float_range);
      double v = (rng() % 53 == 0) ? 0.0 : u(rng);
      lit.floats[i] = RoundToType(v, shape.type);
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
  int mismatches = 0;
  for (int64_t i = 0; i < expected.size(); ++i) {
    bool equal;
    if (IsFloat(expected.type)) {
      double a = expected.floats[i], b = actual.floats[i];
      if (std::isnan(a) || std::isnan(b)) {
        equal = std::isnan(a) && std::isnan(b);
      } else if (std::isinf(a) || std::isinf(b)) {
        equal = a == b;
      } else {
        equal = std::fabs(a - b) <=
                tol.abs + tol.rel * std::max(std::fabs(a), std::fabs(b));
      }
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
