#include "emit/ir/kernel_ir.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_set>

namespace ixa::emit::ir {

Result<Type> TypeOf(hlo::ElementType type) {
  using hlo::ElementType;
  switch (type) {
    case ElementType::kPred:
      return Type::kPred;
    case ElementType::kS8:
      return Type::kS8;
    case ElementType::kS16:
      return Type::kS16;
    case ElementType::kS32:
      return Type::kS32;
    case ElementType::kS64:
      return Type::kS64;
    case ElementType::kU8:
      return Type::kU8;
    case ElementType::kU16:
      return Type::kU16;
    case ElementType::kU32:
      return Type::kU32;
    case ElementType::kU64:
      return Type::kU64;
    case ElementType::kF16:
      return Type::kF16;
    case ElementType::kBF16:
      return Type::kBF16;
    case ElementType::kF32:
      return Type::kF32;
    case ElementType::kF64:
      return Type::kF64;
    case ElementType::kS4:
      return Type::kS4;
    case ElementType::kU4:
      return Type::kU4;
    case ElementType::kS2:
      return Type::kS2;
    case ElementType::kU2:
      return Type::kU2;
    case ElementType::kS1:
      return Type::kS1;
    case ElementType::kU1:
      return Type::kU1;
    case ElementType::kF8E4M3FN:
      return Type::kF8E4M3FN;
    case ElementType::kF8E5M2:
      return Type::kF8E5M2;
    case ElementType::kF8E4M3FNUZ:
      return Type::kF8E4M3FNUZ;
    case ElementType::kF8E5M2FNUZ:
      return Type::kF8E5M2FNUZ;
    case ElementType::kF8E4M3B11FNUZ:
      return Type::kF8E4M3B11FNUZ;
    case ElementType::kF8E4M3:
      return Type::kF8E4M3;
    case ElementType::kF8E3M4:
      return Type::kF8E3M4;
    case ElementType::kF8E8M0FNU:
      return Type::kF8E8M0FNU;
    case ElementType::kC64:
      return Type::kC64;
    case ElementType::kC128:
      return Type::kC128;
    case ElementType::kF4E2M1FN:
      return Type::kF4E2M1FN;
    default:
      return Error::Unsupported(std::string("emit: element type '") +
                                hlo::ElementTypeName(type) +
                                "' has no code generation");
  }
}

const char* TypeName(Type type) {
  switch (type) {
    case Type::kPred:
      return "pred";
    case Type::kS8:
      return "s8";
    case Type::kS16:
      return "s16";
    case Type::kS32:
      return "s32";
    case Type::kS64:
      return "s64";
    case Type::kU8:
      return "u8";
    case Type::kU16:
      return "u16";
    case Type::kU32:
      return "u32";
    case Type::kU64:
      return "u64";
    case Type::kF16:
      return "f16";
    case Type::kBF16:
      return "bf16";
    case Type::kF32:
      return "f32";
    case Type::kF64:
      return "f64";
    case Type::kIndex:
      return "index";
    case Type::kS4:
      return "s4";
    case Type::kU4:
      return "u4";
    case Type::kS2:
      return "s2";
    case Type::kU2:
      return "u2";
    case Type::kS1:
      return "s1";
    case Type::kU1:
      return "u1";
    case Type::kF8E4M3FN:
      return "f8e4m3fn";
    case Type::kF8E5M2:
      return "f8e5m2";
    case Type::kF8E4M3FNUZ:
      return "f8e4m3fnuz";
    case Type::kF8E5M2FNUZ:
      return "f8e5m2fnuz";
    case Type::kF8E4M3B11FNUZ:
      return "f8e4m3b11fnuz";
    case Type::kF8E4M3:
      return "f8e4m3";
    case Type::kF8E3M4:
      return "f8e3m4";
    case Type::kF8E8M0FNU:
      return "f8e8m0fnu";
    case Type::kC64:
      return "c64";
    case Type::kC128:
      return "c128";
    case Type::kF4E2M1FN:
      return "f4e2m1fn";
  }
  return "?";
}

bool IsF8(Type t) {
  switch (t) {
    case Type::kF8E4M3FN:
    case Type::kF8E5M2:
    case Type::kF8E4M3FNUZ:
    case Type::kF8E5M2FNUZ:
    case Type::kF8E4M3B11FNUZ:
    case Type::kF8E4M3:
    case Type::kF8E3M4:
    case Type::kF8E8M0FNU:
      return true;
    default:
      return false;
  }
}
bool IsF4(Type t) { return t == Type::kF4E2M1FN; }
bool IsNarrowFloat(Type t) { return IsF8(t) || IsF4(t); }
bool IsSubByte(Type t) {
  return t == Type::kS4 || t == Type::kU4 || t == Type::kS2 || t == Type::kU2 ||
         t == Type::kS1 || t == Type::kU1;
}
bool IsFloat(Type t) {
  return t == Type::kF16 || t == Type::kBF16 || t == Type::kF32 ||
         t == Type::kF64 || IsNarrowFloat(t);
}
bool IsComplex(Type t) { return t == Type::kC64 || t == Type::kC128; }
Type ComponentType(Type t) {
  IXA_CHECK(IsComplex(t));
  return t == Type::kC64 ? Type::kF32 : Type::kF64;
}
bool IsSignedInt(Type t) {
  return t == Type::kS8 || t == Type::kS16 || t == Type::kS32 ||
         t == Type::kS64 || t == Type::kS4 || t == Type::kS2 || t == Type::kS1;
}
bool IsUnsignedInt(Type t) {
  return t == Type::kU8 || t == Type::kU16 || t == Type::kU32 ||
         t == Type::kU64 || t == Type::kU4 || t == Type::kU2 || t == Type::kU1;
}
int TypeBits(Type t) {
  switch (t) {
    case Type::kS1:
    case Type::kU1:
      return 1;
    case Type::kS2:
    case Type::kU2:
      return 2;
    case Type::kS4:
    case Type::kU4:
    case Type::kF4E2M1FN:
      return 4;
    case Type::kF8E4M3FN:
    case Type::kF8E5M2:
    case Type::kF8E4M3FNUZ:
    case Type::kF8E5M2FNUZ:
    case Type::kF8E4M3B11FNUZ:
    case Type::kF8E4M3:
    case Type::kF8E3M4:
    case Type::kF8E8M0FNU:
    case Type::kPred:
    case Type::kS8:
    case Type::kU8:
      return 8;
    case Type::kS16:
    case Type::kU16:
    case Type::kF16:
    case Type::kBF16:
      return 16;
    case Type::kS32:
    case Type::kU32:
    case Type::kF32:
      return 32;
    case Type::kS64:
    case Type::kU64:
    case Type::kF64:
    case Type::kIndex:
    case Type::kC64:
      return 64;
    case Type::kC128:
      return 128;
  }
  return 0;
}

OpFamily FamilyOf(OpCode op) {
  switch (op) {
    case OpCode::kReal:
    case OpCode::kImag:
    case OpCode::kComplex:
      return OpFamily::kComplexParts;
    case OpCode::kAbs:
    case OpCode::kNeg:
    case OpCode::kSign:
    case OpCode::kIsFinite:
      return OpFamily::kSign;
    case OpCode::kExp:
    case OpCode::kExpm1:
    case OpCode::kLog:
    case OpCode::kLog1p:
    case OpCode::kSqrt:
    case OpCode::kRsqrt:
    case OpCode::kCbrt:
    case OpCode::kTanh:
    case OpCode::kLogistic:
    case OpCode::kSin:
    case OpCode::kCos:
    case OpCode::kTan:
    case OpCode::kErf:
    case OpCode::kAcos:
    case OpCode::kAcosh:
    case OpCode::kAsin:
    case OpCode::kAsinh:
    case OpCode::kAtan:
    case OpCode::kAtanh:
    case OpCode::kCosh:
    case OpCode::kSinh:
    case OpCode::kAtan2:
    case OpCode::kFloor:
    case OpCode::kCeil:
    case OpCode::kRoundAfz:
    case OpCode::kRoundEven:
      return OpFamily::kMathFunction;
    case OpCode::kAdd:
    case OpCode::kSub:
    case OpCode::kMul:
    case OpCode::kDiv:
    case OpCode::kRem:
    case OpCode::kMax:
    case OpCode::kMin:
    case OpCode::kPow:
      return OpFamily::kArithmetic;
    case OpCode::kNot:
    case OpCode::kPopcnt:
    case OpCode::kClz:
    case OpCode::kAnd:
    case OpCode::kOr:
    case OpCode::kXor:
    case OpCode::kShl:
    case OpCode::kShrL:
    case OpCode::kShrA:
      return OpFamily::kBitOp;
    case OpCode::kEq:
    case OpCode::kNe:
    case OpCode::kLt:
    case OpCode::kLe:
    case OpCode::kGt:
    case OpCode::kGe:
    case OpCode::kSelect:
    case OpCode::kClamp:
      return OpFamily::kComparisonOrSelect;
    case OpCode::kConvert:
    case OpCode::kBitcastConvert:
      return OpFamily::kConversion;
    case OpCode::kToIndex:
    case OpCode::kClampIndex:
      return OpFamily::kIndex;
    default:
      return OpFamily::kOther;
  }
}

const char* OpCodeName(OpCode op) {
  switch (op) {
    case OpCode::kAcos:
      return "acos";
    case OpCode::kAcosh:
      return "acosh";
    case OpCode::kAsin:
      return "asin";
    case OpCode::kAsinh:
      return "asinh";
    case OpCode::kAtan:
      return "atan";
    case OpCode::kAtanh:
      return "atanh";
    case OpCode::kCosh:
      return "cosh";
    case OpCode::kSinh:
      return "sinh";
    case OpCode::kReal:
      return "real";
    case OpCode::kImag:
      return "imag";
    case OpCode::kComplex:
      return "complex";
    case OpCode::kAbs:
      return "abs";
    case OpCode::kNeg:
      return "neg";
    case OpCode::kNot:
      return "not";
    case OpCode::kSign:
      return "sign";
    case OpCode::kExp:
      return "exp";
    case OpCode::kExpm1:
      return "expm1";
    case OpCode::kLog:
      return "log";
    case OpCode::kLog1p:
      return "log1p";
    case OpCode::kSqrt:
      return "sqrt";
    case OpCode::kRsqrt:
      return "rsqrt";
    case OpCode::kCbrt:
      return "cbrt";
    case OpCode::kTanh:
      return "tanh";
    case OpCode::kLogistic:
      return "logistic";
    case OpCode::kSin:
      return "sin";
    case OpCode::kCos:
      return "cos";
    case OpCode::kTan:
      return "tan";
    case OpCode::kErf:
      return "erf";
    case OpCode::kFloor:
      return "floor";
    case OpCode::kCeil:
      return "ceil";
    case OpCode::kRoundAfz:
      return "round_afz";
    case OpCode::kRoundEven:
      return "round_even";
    case OpCode::kIsFinite:
      return "is_finite";
    case OpCode::kPopcnt:
      return "popcnt";
    case OpCode::kClz:
      return "clz";
    case OpCode::kAdd:
      return "add";
    case OpCode::kSub:
      return "sub";
    case OpCode::kMul:
      return "mul";
    case OpCode::kDiv:
      return "div";
    case OpCode::kRem:
      return "rem";
    case OpCode::kMax:
      return "max";
    case OpCode::kMin:
      return "min";
    case OpCode::kPow:
      return "pow";
    case OpCode::kAtan2:
      return "atan2";
    case OpCode::kAnd:
      return "and";
    case OpCode::kOr:
      return "or";
    case OpCode::kXor:
      return "xor";
    case OpCode::kShl:
      return "shl";
    case OpCode::kShrL:
      return "shr_logical";
    case OpCode::kShrA:
      return "shr_arith";
    case OpCode::kEq:
      return "eq";
    case OpCode::kNe:
      return "ne";
    case OpCode::kLt:
      return "lt";
    case OpCode::kLe:
      return "le";
    case OpCode::kGt:
      return "gt";
    case OpCode::kGe:
      return "ge";
    case OpCode::kSelect:
      return "select";
    case OpCode::kClamp:
      return "clamp";
    case OpCode::kConvert:
      return "convert";
    case OpCode::kBitcastConvert:
      return "bitcast_convert";
    case OpCode::kToIndex:
      return "to_index";
    case OpCode::kClampIndex:
      return "clamp_index";
  }
  return "?";
}

uint16_t EncodeHalf(Type type, double value) {
  float f = static_cast<float>(value);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (type == Type::kBF16) {
    if (f != f) return static_cast<uint16_t>((u >> 16) | 0x40);
    return static_cast<uint16_t>(
        (static_cast<uint64_t>(u) + 0x7fff + ((u >> 16) & 1)) >> 16);
  }
  // f16: the same steps as the runtime helper (round to nearest even).
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00);
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00);
  if (a < 0x38800000u) {
    if (a < 0x33000000u) return sign;
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e;
    uint32_t q = m >> shift, rest = m & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t r = a - 0x38000000u;
  uint32_t q = r >> 13, rest = r & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (q & 1))) ++q;
  return static_cast<uint16_t>(sign | q);
}

F8Format F8FormatOf(Type t) {
  F8Format f;
  auto set = [&](int e, int m, int bias, F8Special special) {
    f.exponent_bits = e;
    f.mantissa_bits = m;
    f.bias = bias;
    f.special = special;
    const int all_ones = (1 << e) - 1;
    switch (special) {
      case F8Special::kIeee:
        f.max_finite = static_cast<uint8_t>((all_ones << m) - 1);
        f.infinity = static_cast<uint8_t>(all_ones << m);
        f.nan = static_cast<uint8_t>((all_ones << m) | (1 << (m - 1)));
        break;
      case F8Special::kFn:
        f.max_finite = 0x7e;
        f.nan = 0x7f;
        break;
      case F8Special::kFnuz:
        f.max_finite = 0x7f;
        f.nan = 0x80;
        break;
      case F8Special::kE8M0Fnu:
        f.max_finite = 0xfe;
        f.nan = 0xff;
        break;
      case F8Special::kSaturating:
        f.max_finite = static_cast<uint8_t>((1 << (e + m)) - 1);
        f.nan = static_cast<uint8_t>(1 << (e + m));  // -0
        break;
    }
  };
  switch (t) {
    case Type::kF8E4M3FN:
      set(4, 3, 7, F8Special::kFn);
      break;
    case Type::kF8E5M2:
      set(5, 2, 15, F8Special::kIeee);
      break;
    case Type::kF8E4M3FNUZ:
      set(4, 3, 8, F8Special::kFnuz);
      break;
    case Type::kF8E5M2FNUZ:
      set(5, 2, 16, F8Special::kFnuz);
      break;
    case Type::kF8E4M3B11FNUZ:
      set(4, 3, 11, F8Special::kFnuz);
      break;
    case Type::kF8E4M3:
      set(4, 3, 7, F8Special::kIeee);
      break;
    case Type::kF8E3M4:
      set(3, 4, 3, F8Special::kIeee);
      break;
    case Type::kF8E8M0FNU:
      set(8, 0, 127, F8Special::kE8M0Fnu);
      break;
    case Type::kF4E2M1FN:
      set(2, 1, 1, F8Special::kSaturating);
      break;
    default:
      IXA_CHECK_MSG(false, "F8FormatOf: not a narrow float type");
  }
  return f;
}

int SignShift(const F8Format& f) { return f.exponent_bits + f.mantissa_bits; }

// The same steps as the code LegalizeTypes generates (integer operations
// on the f32 bits), so that constants and computed values agree.
uint8_t EncodeF8(Type t, float value) {
  const F8Format f = F8FormatOf(t);
  uint32_t u;
  std::memcpy(&u, &value, 4);
  const uint32_t sign = u >> 31, a = u & 0x7fffffffu;
  if (f.special == F8Special::kE8M0Fnu) {
    if (a >= 0x7f800000u || (sign && a != 0)) return f.nan;
    // 2^-127 is an f32 subnormal: codes 0 and 1 meet at 1.5 * 2^-127.
    if (a < 0x00800000u) return a > 0x00600000u ? 1 : 0;
    const uint32_t r = a + 0x3fffffu + ((a >> 23) & 1);
    const uint32_t code = r >> 23;
    return code >= 0xff ? f.nan : static_cast<uint8_t>(code);
  }
  const uint8_t s = static_cast<uint8_t>(sign << SignShift(f));
  const uint8_t nan =
      f.special == F8Special::kFnuz || f.special == F8Special::kSaturating
          ? f.nan
          : static_cast<uint8_t>(s | f.nan);
  if (a > 0x7f800000u) return nan;
  const int m = f.mantissa_bits;
  const uint32_t min_normal = static_cast<uint32_t>(128 - f.bias) << 23;
  uint32_t mag;
  if (a < min_normal) {
    // Subnormal: the value in units of the smallest subnormal, exact in
    // f32, rounded to nearest even.
    float x;
    std::memcpy(&x, &a, 4);
    mag = static_cast<uint32_t>(
        std::nearbyint(x * std::ldexp(1.0f, f.bias + m - 1)));
  } else {
    const int shift = 23 - m;
    const uint32_t r = a + ((1u << (shift - 1)) - 1) + ((a >> shift) & 1);
    mag = (r >> shift) - (static_cast<uint32_t>(127 - f.bias) << m);
  }
  if (mag > f.max_finite) {
    if (f.special == F8Special::kSaturating) {
      return static_cast<uint8_t>(s | f.max_finite);
    }
    return f.special == F8Special::kIeee ? static_cast<uint8_t>(s | f.infinity)
                                         : nan;
  }
  if (mag == 0 && f.special == F8Special::kFnuz) return 0;
  return static_cast<uint8_t>(s | mag);
}

float DecodeF8(Type t, uint8_t code) {
  const F8Format f = F8FormatOf(t);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (f.special == F8Special::kE8M0Fnu) {
    return code == 0xff ? nan : std::ldexp(1.0f, code - 127);
  }
  const int m = f.mantissa_bits;
  const int e = (code >> m) & ((1 << f.exponent_bits) - 1);
  const int mant = code & ((1 << m) - 1);
  float mag;
  if (f.special == F8Special::kFnuz && code == 0x80) {
    mag = nan;
  } else if (f.special == F8Special::kFn && (code & 0x7f) == 0x7f) {
    mag = nan;
  } else if (f.special == F8Special::kIeee && e == (1 << f.exponent_bits) - 1) {
    mag = mant ? nan : std::numeric_limits<float>::infinity();
  } else if (e == 0) {
    mag = std::ldexp(static_cast<float>(mant), 1 - f.bias - m);
  } else {
    mag = std::ldexp(static_cast<float>(mant | (1 << m)), e - f.bias - m);
  }
  return (code >> SignShift(f)) & 1 ? -mag : mag;
}

namespace {

std::shared_ptr<Node> NewNode(NodeKind kind, Type type) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->type = type;
  return n;
}

}  // namespace

Interval BinaryExprRange(ExprKind kind, const Interval& a, const Interval& b) {
  switch (kind) {
    case ExprKind::kAdd:
      return a + b;
    case ExprKind::kMul:
      return a * b;
    case ExprKind::kFloorDiv:
      return a.FloorDiv(b);
    case ExprKind::kCeilDiv:
      return a.CeilDiv(b);
    case ExprKind::kMod:
      return a.Mod(b);
    case ExprKind::kMin:
      return a.Min(b);
    case ExprKind::kMax:
      return a.Max(b);
    default:
      return Interval::Full();  // a kind this code does not know
  }
}

Interval ExprRange(Expr e, const std::vector<Interval>& dims,
                   const std::vector<Interval>& symbols) {
  switch (e.kind()) {
    case ExprKind::kConstant:
      return Interval::Point(e.constant());
    case ExprKind::kDim:
      return e.position() < static_cast<int64_t>(dims.size())
                 ? dims[e.position()]
                 : Interval::Full();
    case ExprKind::kSymbol:
      return e.position() < static_cast<int64_t>(symbols.size())
                 ? symbols[e.position()]
                 : Interval::Full();
    default:
      return BinaryExprRange(e.kind(), ExprRange(e.lhs(), dims, symbols),
                             ExprRange(e.rhs(), dims, symbols));
  }
}

Val Const(Type type, int64_t value) {
  auto n = NewNode(NodeKind::kConst, type);
  n->int_value = value;
  n->float_value = static_cast<double>(value);
  n->range = Interval::Point(value);
  return n;
}

Val ConstFloat(Type type, double value) {
  auto n = NewNode(NodeKind::kConst, type);
  n->float_value = value;
  return n;
}

Val Index(int64_t value) { return Const(Type::kIndex, value); }

Val Var(std::string name, Type type, Interval range) {
  auto n = NewNode(NodeKind::kVar, type);
  n->name = std::move(name);
  n->range = range;
  return n;
}

Val Zero(Type type) {
  if (IsComplex(type)) {
    const Type part = ComponentType(type);
    return Op(OpCode::kComplex, type,
              {ConstFloat(part, 0), ConstFloat(part, 0)}, part);
  }
  return IsFloat(type) ? ConstFloat(type, 0) : Const(type, 0);
}

Val MutableVar(std::string name, Type type) {
  auto n = NewNode(NodeKind::kVar, type);
  n->name = std::move(name);
  n->is_mutable = true;
  return n;
}

Val GridId(VarKind kind, int64_t count) {
  static const char* kNames[] = {"",     "th_x", "th_y", "th_z",
                                 "bl_x", "bl_y", "bl_z"};
  auto n = NewNode(NodeKind::kVar, Type::kIndex);
  n->name = kNames[static_cast<int>(kind)];
  n->var_kind = kind;
  n->range = Interval{0, count - 1};
  return n;
}

Val Apply(std::shared_ptr<const IndexingMap> map, int result,
          std::vector<Val> operands) {
  auto n = NewNode(NodeKind::kApply, Type::kIndex);
  std::vector<Interval> dims, symbols;
  for (int i = 0; i < map->num_dims(); ++i) {
    dims.push_back(RangeOf(operands[i]).Intersect(map->dims()[i].bounds));
  }
  for (int i = 0; i < map->num_symbols(); ++i) {
    symbols.push_back(RangeOf(operands[map->num_dims() + i])
                          .Intersect(map->symbol(i).bounds));
  }
  n->range = ExprRange(map->results()[result], dims, symbols);
  n->map = std::move(map);
  n->result = result;
  n->operands = std::move(operands);
  return n;
}

Val InDomain(std::shared_ptr<const IndexingMap> map,
             std::vector<Val> operands) {
  auto n = NewNode(NodeKind::kInDomain, Type::kPred);
  n->map = std::move(map);
  n->operands = std::move(operands);
  return n;
}

Val Load(int buffer, Type type, std::vector<Val> indices) {
  auto n = NewNode(NodeKind::kLoad, type);
  n->buffer = buffer;
  n->operands = std::move(indices);
  return n;
}

Val LoadFlat(int buffer, Type type, Val offset, int width) {
  auto n = NewNode(NodeKind::kLoad, type);
  n->buffer = buffer;
  n->flat = true;
  n->width = width;
  n->operands = {std::move(offset)};
  return n;
}

Val Op(OpCode op, Type type, std::vector<Val> operands, Type operand_type) {
  auto n = NewNode(NodeKind::kOp, type);
  n->op = op;
  n->operand_type = operand_type;
  if (op == OpCode::kClampIndex) {
    n->range = Interval{RangeOf(operands[1]).lower, RangeOf(operands[2]).upper};
  } else if (op == OpCode::kToIndex) {
    int bits = TypeBits(operand_type);
    if (bits < 64 && IsSignedInt(operand_type)) {
      n->range =
          Interval{-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
    } else if (bits < 64) {
      n->range = Interval{0, (int64_t{1} << bits) - 1};
    } else if (IsUnsignedInt(operand_type)) {
      n->range = Interval{0, kInt64Max};  // saturates: an unsigned index
    }
  }
  n->operands = std::move(operands);
  return n;
}

Val Extract(Val vector, Val lane) {
  auto n = NewNode(NodeKind::kExtract, vector->type);
  n->operands = {std::move(vector), std::move(lane)};
  return n;
}

Val Insert(Val vector, Val lane, Val value) {
  auto n = NewNode(NodeKind::kInsert, vector->type);
  n->width = vector->width;
  n->operands = {std::move(vector), std::move(lane), std::move(value)};
  return n;
}

Val AllOf(std::vector<Val> predicates) {
  if (predicates.empty()) return Const(Type::kPred, 1);
  Val acc = predicates[0];
  for (size_t i = 1; i < predicates.size(); ++i) {
    acc = Op(OpCode::kAnd, Type::kPred, {acc, predicates[i]}, Type::kPred);
  }
  return acc;
}

Interval RangeOf(const Val& v) {
  if (v->type != Type::kIndex) return Interval::Full();
  return v->range;
}

Stmt Let(std::string name, Val value) {
  Stmt s;
  s.kind = StmtKind::kLet;
  s.name = std::move(name);
  s.type = value->type;
  s.value = std::move(value);
  return s;
}

Stmt Declare(std::string name, Type type, Val init) {
  Stmt s;
  s.kind = StmtKind::kDeclare;
  s.name = std::move(name);
  s.type = type;
  s.value = std::move(init);
  return s;
}

Stmt Assign(std::string name, Val value) {
  Stmt s;
  s.kind = StmtKind::kAssign;
  s.name = std::move(name);
  s.type = value->type;
  s.value = std::move(value);
  return s;
}

Stmt Store(int buffer, std::vector<Val> indices, Val value) {
  Stmt s;
  s.kind = StmtKind::kStore;
  s.buffer = buffer;
  s.indices = std::move(indices);
  s.type = value->type;
  s.value = std::move(value);
  return s;
}

Stmt StoreFlat(int buffer, Val offset, Val value, int width) {
  Stmt s;
  s.kind = StmtKind::kStore;
  s.buffer = buffer;
  s.flat = true;
  s.width = width;
  s.indices = {std::move(offset)};
  s.type = value->type;
  s.value = std::move(value);
  return s;
}

Stmt For(std::string name, int64_t lo, int64_t hi, Block body) {
  Stmt s;
  s.kind = StmtKind::kFor;
  s.name = std::move(name);
  s.lo = lo;
  s.hi = hi;
  s.body = std::move(body);
  return s;
}

Stmt If(Val cond, Block then_body, Block else_body) {
  Stmt s;
  s.kind = StmtKind::kIf;
  s.value = std::move(cond);
  s.body = std::move(then_body);
  s.else_body = std::move(else_body);
  return s;
}

Stmt Barrier() {
  Stmt s;
  s.kind = StmtKind::kBarrier;
  return s;
}

Stmt Shuffle(std::string name, Type type, Val value, int64_t offset,
             int64_t lanes) {
  Stmt s;
  s.kind = StmtKind::kShuffle;
  s.name = std::move(name);
  s.type = type;
  s.value = std::move(value);
  s.offset = offset;
  s.lanes = lanes;
  return s;
}

Stmt Call(std::string callee, std::vector<Val> args,
          std::vector<std::string> results, std::vector<Type> result_types) {
  Stmt s;
  s.kind = StmtKind::kCall;
  s.name = std::move(callee);
  s.args = std::move(args);
  s.results = std::move(results);
  s.result_types = std::move(result_types);
  return s;
}

Stmt Return(std::vector<Val> values) {
  Stmt s;
  s.kind = StmtKind::kReturn;
  s.args = std::move(values);
  return s;
}

const char* AtomicOpName(AtomicOp op) {
  switch (op) {
    case AtomicOp::kCombiner:
      return "combiner";
    case AtomicOp::kAdd:
      return "add";
    case AtomicOp::kMax:
      return "max";
    case AtomicOp::kMin:
      return "min";
  }
  return "?";
}

Stmt Atomic(int buffer, Val offset, Val value, std::string combiner) {
  Stmt s;
  s.kind = StmtKind::kAtomic;
  s.buffer = buffer;
  s.flat = true;
  s.indices = {std::move(offset)};
  s.type = value->type;
  s.value = std::move(value);
  s.name = std::move(combiner);
  return s;
}

Stmt Comment(std::string text) {
  Stmt s;
  s.kind = StmtKind::kComment;
  s.text = std::move(text);
  return s;
}

const Function* Module::FindFunction(const std::string& name) const {
  for (const Function& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<int> Module::ArgumentBuffers() const {
  std::vector<int> out;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].space == BufferSpace::kGlobal) out.push_back(i);
  }
  return out;
}

std::vector<int> Module::InputBuffers() const {
  std::vector<int> out;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].space == BufferSpace::kGlobal && !buffers[i].is_output) {
      out.push_back(i);
    }
  }
  return out;
}

void ForEachStmt(const Block& block,
                 const std::function<void(const Stmt&)>& f) {
  for (const Stmt& s : block) {
    f(s);
    ForEachStmt(s.body, f);
    ForEachStmt(s.else_body, f);
  }
}

void ForEachNode(const Val& v, const std::function<void(const Val&)>& f) {
  if (!v) return;
  f(v);
  for (const Val& o : v->operands) ForEachNode(o, f);
}

void ForEachVal(const Block& block, const std::function<void(const Val&)>& f) {
  ForEachStmt(block, [&](const Stmt& s) {
    ForEachNode(s.value, f);
    for (const Val& v : s.indices) ForEachNode(v, f);
    for (const Val& v : s.args) ForEachNode(v, f);
  });
}

bool UsesComplex(const Module& m) {
  bool found = false;
  for (const Buffer& b : m.buffers) found |= IsComplex(b.type);
  auto visit = [&found](const Val& v) {
    found |= IsComplex(v->type) ||
             (v->kind == NodeKind::kOp &&
              (IsComplex(v->operand_type) || v->op == OpCode::kReal ||
               v->op == OpCode::kImag || v->op == OpCode::kComplex));
  };
  for (const Function& f : m.functions) {
    for (const Param& p : f.params) found |= IsComplex(p.type);
    for (Type t : f.results) found |= IsComplex(t);
    ForEachVal(f.body, visit);
  }
  if (m.kernel) ForEachVal(m.kernel->body, visit);
  return found;
}

}  // namespace ixa::emit::ir
