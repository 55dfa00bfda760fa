// Type legalization: the sub-byte integer and 8-bit float types become
// 8-bit integers with explicit arithmetic, so that no printer needs to know
// them (docs/emitters.md §3, element encodings).
//
// - s4 / u4 / s2 / u2 / s1 / u1 values live in an s8 / u8 register holding
//   the value (sign- or zero-extended); an op computes in 8 bits and wraps
//   the result to the type's width. Unpacked buffers hold one such byte per
//   element; packed ones (layout `E(bits)`) several elements per byte, the
//   first in the low-order bits (XLA's order). A packed store is a
//   read-modify-write of its byte made of two atomic updates (clear the
//   element's bits, then set them), so that threads writing neighbouring
//   elements of one byte never lose each other's bits.
// - f8 values live in a u8 register as their 8-bit code (data movement is
//   bit-exact); an op decodes its operands to f32, computes in f32 (XLA's
//   upcast) and encodes the result rounding to nearest even with the
//   type's rules. f4e2m1fn is the same with a 4-bit code, packed like s4.
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "emit/passes/passes.h"

namespace ixa::emit {

using ir::Block;
using ir::Buffer;
using ir::BufferSpace;
using ir::Node;
using ir::NodeKind;
using ir::OpCode;
using ir::Stmt;
using ir::StmtKind;
using ir::Type;
using ir::Val;

namespace {

bool IsNarrow(Type t) { return ir::IsSubByte(t) || ir::IsNarrowFloat(t); }

// The register type a value of `t` is computed in after legalization.
Type Legal(Type t) {
  if (ir::IsNarrowFloat(t)) return Type::kU8;
  if (ir::IsSubByte(t)) return ir::IsSignedInt(t) ? Type::kS8 : Type::kU8;
  return t;
}

// How a buffer of a narrow type is stored.
struct Packing {
  Type element = Type::kF32;  // the HLO element type
  int bits = 8;               // > 0 and < 8: packed, 8 / bits per byte
  bool packed() const { return bits < 8; }
  int per_byte() const { return 8 / bits; }
};

class Legalizer {
 public:
  Legalizer(ir::Module* m, ExprContext* ctx) : m_(m), ctx_(ctx) {}

  Status Run();

 private:
  // Values.
  Result<Val> Rewrite(const Val& v);
  Result<Val> RewriteUncached(const Val& v);
  Result<Val> RewriteOp(const Node& n, std::vector<Val> x);
  Result<Val> RewriteLoad(const Node& n, std::vector<Val> x);
  Val Bind(Val v) {
    if (v->kind == NodeKind::kConst || v->kind == NodeKind::kVar) return v;
    std::string name = Fresh();
    pending_->push_back(ir::Let(name, v));
    return ir::Var(name, v->type);
  }
  Val Wrap(Type narrow, Val v);
  Val Decode(Type f8, Val code);
  Val Encode(Type f8, Val value);
  static Val U32(int64_t v) { return ir::Const(Type::kU32, v); }
  static Val Op2(OpCode op, Type t, Val a, Val b) {
    return ir::Op(op, t, {std::move(a), std::move(b)}, t);
  }
  static Val Cmp(OpCode op, Type t, Val a, Val b) {
    return ir::Op(op, Type::kPred, {std::move(a), std::move(b)}, t);
  }
  // The element offset into `buffer` as an indexing-map variable: the
  // buffer's elements, cut to the offset's range.
  Variable OffsetVariable(int buffer, const Val& offset) const;
  // The byte and the bit shift of element `offset` of a packed buffer.
  std::pair<Val, Val> PackedPosition(int buffer, const Val& offset);
  // Byte `j` of the whole bytes from element `offset` (a multiple of the
  // elements per byte) of a packed buffer.
  Val PackedByte(int buffer, const Val& offset, int64_t j);
  Result<Val> PackedVectorLoad(const Node& n, const Val& offset);

  // Statements.
  Status RewriteBlock(const Block& in, Block* out);
  Status RewriteStmt(const Stmt& s, Block* out);
  // What a store or atomic update of one packed element writes: the
  // element's byte, its bit shift there, and the value's low bits.
  struct PackedWrite {
    Val byte, shift, low;
  };
  Result<PackedWrite> PackedWriteOf(const Stmt& s, Block* out);
  Status PackedStore(const Stmt& s, Block* out);
  Status PackedAtomic(const Stmt& s, Block* out);
  std::string PackedCombiner(const std::string& combiner, Type element,
                             int bits);
  Status PackedVectorStore(const Stmt& s, Block* out);
  Result<Val> RewriteIn(const Val& v, Block* out) {
    pending_ = out;
    return Rewrite(v);
  }
  std::string Fresh() {
    std::string n;
    do {
      n = "nt" + std::to_string(counter_++);
    } while (names_.count(n));
    return n;
  }
  std::string CombinerFunction(const std::string& stem, OpCode op);
  // A function name from `stem` no function and no variable has.
  std::string UniqueFunctionName(const std::string& stem);
  // Adds `name`(old: u8, `second`: u8) -> u8 with `body`, the function
  // that atomic updates of packed bytes made for `stem` call.
  std::string AddByteFunction(const std::string& name, const std::string& stem,
                              const char* second, Block body);

  ir::Module* m_;
  ExprContext* ctx_;
  std::map<int, Packing> packing_;  // narrow global / shared buffers
  std::set<std::string> names_;
  int counter_ = 0;
  Block* pending_ = nullptr;
  std::map<const Node*, Val> memo_;  // within one statement
  std::map<std::pair<int, const Node*>, std::pair<Val, Val>> positions_;
  std::map<std::string, std::string> combiners_;
};

Val Legalizer::Wrap(Type narrow, Val v) {
  const Type t = Legal(narrow);
  const int bits = ir::TypeBits(narrow);
  const int64_t mask = (int64_t{1} << bits) - 1;
  Val low = Op2(OpCode::kAnd, t, v, ir::Const(t, mask));
  if (!ir::IsSignedInt(narrow)) return Bind(low);
  // Sign-extend: (low ^ sign_bit) - sign_bit.
  Val sign_bit = ir::Const(t, int64_t{1} << (bits - 1));
  return Bind(
      Op2(OpCode::kSub, t, Op2(OpCode::kXor, t, low, sign_bit), sign_bit));
}

Val Legalizer::Decode(Type f8, Val code) {
  const ir::F8Format f = ir::F8FormatOf(f8);
  const Type u = Type::kU32, fl = Type::kF32;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Val c = Bind(ir::Op(OpCode::kConvert, u, {code}, Type::kU8));
  if (f.special == ir::F8Special::kE8M0Fnu) {
    // 2^(c - 127): the f32 exponent field is the code (bias 127 in both);
    // code 0 is 2^-127, an f32 subnormal.
    Val zero = Cmp(OpCode::kEq, u, c, U32(0));
    Val bits =
        ir::Op(OpCode::kSelect, u,
               {zero, U32(0x00400000), Op2(OpCode::kShl, u, c, U32(23))});
    Val v = ir::Op(OpCode::kBitcastConvert, fl, {bits}, u);
    return Bind(ir::Op(
        OpCode::kSelect, fl,
        {Cmp(OpCode::kEq, u, c, U32(0xff)), ir::ConstFloat(fl, nan), v}));
  }
  const int m = f.mantissa_bits;
  const int64_t all_ones = (int64_t{1} << f.exponent_bits) - 1;
  Val e = Bind(
      Op2(OpCode::kAnd, u, Op2(OpCode::kShrL, u, c, U32(m)), U32(all_ones)));
  Val mant = Bind(Op2(OpCode::kAnd, u, c, U32((1 << m) - 1)));
  Val normal = Bind(Cmp(OpCode::kNe, u, e, U32(0)));
  // |value| = significand * 2^(max(e, 1) - bias - m), both factors exact.
  Val significand =
      ir::Op(OpCode::kSelect, u,
             {normal, Op2(OpCode::kOr, u, mant, U32(1 << m)), mant});
  Val exponent = ir::Op(OpCode::kSelect, u, {normal, e, U32(1)});
  Val scale = ir::Op(
      OpCode::kBitcastConvert, fl,
      {Op2(OpCode::kShl, u,
           Op2(OpCode::kAdd, u, exponent, U32(127 - f.bias - m)), U32(23))},
      u);
  Val mag = Bind(Op2(OpCode::kMul, fl,
                     ir::Op(OpCode::kConvert, fl, {significand}, u), scale));
  Val is_nan;
  switch (f.special) {
    case ir::F8Special::kIeee: {
      Val special = Cmp(OpCode::kEq, u, e, U32(all_ones));
      Val inf_or_nan =
          ir::Op(OpCode::kSelect, fl,
                 {Cmp(OpCode::kEq, u, mant, U32(0)),
                  ir::ConstFloat(fl, std::numeric_limits<float>::infinity()),
                  ir::ConstFloat(fl, nan)});
      mag = Bind(ir::Op(OpCode::kSelect, fl, {special, inf_or_nan, mag}));
      break;
    }
    case ir::F8Special::kFn:
      is_nan =
          Cmp(OpCode::kEq, u, Op2(OpCode::kAnd, u, c, U32(0x7f)), U32(0x7f));
      break;
    case ir::F8Special::kSaturating:  // every code is a finite value
      break;
    default:  // kFnuz
      is_nan = Cmp(OpCode::kEq, u, c, U32(0x80));
      break;
  }
  if (is_nan) {
    mag = Bind(
        ir::Op(OpCode::kSelect, fl, {is_nan, ir::ConstFloat(fl, nan), mag}));
  }
  Val negative =
      Cmp(OpCode::kNe, u, Op2(OpCode::kAnd, u, c, U32(1 << ir::SignShift(f))),
          U32(0));
  return Bind(ir::Op(OpCode::kSelect, fl,
                     {negative, ir::Op(OpCode::kNeg, fl, {mag}, fl), mag}));
}

// The steps of ir::EncodeF8, as IR.
Val Legalizer::Encode(Type f8, Val value) {
  const ir::F8Format f = ir::F8FormatOf(f8);
  const Type u = Type::kU32, fl = Type::kF32;
  Val bits = Bind(ir::Op(OpCode::kBitcastConvert, u, {value}, fl));
  Val a = Bind(Op2(OpCode::kAnd, u, bits, U32(0x7fffffff)));
  Val sign = Bind(Op2(OpCode::kShrL, u, bits, U32(31)));
  Val result;
  if (f.special == ir::F8Special::kE8M0Fnu) {
    Val r = Op2(
        OpCode::kAdd, u, a,
        Op2(OpCode::kAdd, u, U32(0x3fffff),
            Op2(OpCode::kAnd, u, Op2(OpCode::kShrL, u, a, U32(23)), U32(1))));
    Val normal = Bind(Op2(OpCode::kShrL, u, r, U32(23)));
    Val subnormal =
        ir::Op(OpCode::kSelect, u,
               {Cmp(OpCode::kGt, u, a, U32(0x00600000)), U32(1), U32(0)});
    Val code = Bind(
        ir::Op(OpCode::kSelect, u,
               {Cmp(OpCode::kLt, u, a, U32(0x00800000)), subnormal, normal}));
    Val negative = ir::Op(
        OpCode::kAnd, Type::kPred,
        {Cmp(OpCode::kNe, u, sign, U32(0)), Cmp(OpCode::kNe, u, a, U32(0))},
        Type::kPred);
    Val bad =
        ir::Op(OpCode::kOr, Type::kPred,
               {ir::Op(OpCode::kOr, Type::kPred,
                       {Cmp(OpCode::kGe, u, a, U32(0x7f800000)), negative},
                       Type::kPred),
                Cmp(OpCode::kGe, u, code, U32(0xff))},
               Type::kPred);
    result = ir::Op(OpCode::kSelect, u, {bad, U32(0xff), code});
  } else {
    const int m = f.mantissa_bits;
    const int shift = 23 - m;
    Val r = Op2(OpCode::kAdd, u, a,
                Op2(OpCode::kAdd, u, U32((1 << (shift - 1)) - 1),
                    Op2(OpCode::kAnd, u, Op2(OpCode::kShrL, u, a, U32(shift)),
                        U32(1))));
    Val normal = Op2(OpCode::kSub, u, Op2(OpCode::kShrL, u, r, U32(shift)),
                     U32(int64_t{127 - f.bias} << m));
    // Below the smallest normal: |value| in units of the smallest
    // subnormal (exact in f32), rounded to nearest even.
    Val magnitude = ir::Op(OpCode::kBitcastConvert, fl, {a}, u);
    Val scaled = Op2(OpCode::kMul, fl, magnitude,
                     ir::ConstFloat(fl, std::ldexp(1.0, f.bias + m - 1)));
    Val subnormal =
        ir::Op(OpCode::kConvert, u,
               {ir::Op(OpCode::kRoundEven, fl, {Bind(scaled)}, fl)}, fl);
    const int64_t min_normal = int64_t{128 - f.bias} << 23;
    Val mag = Bind(
        ir::Op(OpCode::kSelect, u,
               {Cmp(OpCode::kLt, u, a, U32(min_normal)), subnormal, normal}));
    Val s = Bind(Op2(OpCode::kShl, u, sign, U32(ir::SignShift(f))));
    const bool saturating = f.special == ir::F8Special::kSaturating;
    Val nan = f.special == ir::F8Special::kFnuz || saturating
                  ? U32(f.nan)
                  : Bind(Op2(OpCode::kOr, u, s, U32(f.nan)));
    Val overflow = f.special == ir::F8Special::kIeee
                       ? Op2(OpCode::kOr, u, s, U32(f.infinity))
                   : saturating ? Op2(OpCode::kOr, u, s, U32(f.max_finite))
                                : nan;
    result = Bind(ir::Op(OpCode::kSelect, u,
                         {Cmp(OpCode::kGt, u, mag, U32(f.max_finite)), overflow,
                          Op2(OpCode::kOr, u, s, mag)}));
    if (f.special == ir::F8Special::kFnuz) {  // no negative zero
      result = Bind(ir::Op(OpCode::kSelect, u,
                           {Cmp(OpCode::kEq, u, mag, U32(0)), U32(0), result}));
    }
    result = ir::Op(OpCode::kSelect, u,
                    {Cmp(OpCode::kGt, u, a, U32(0x7f800000)), nan, result});
  }
  return Bind(ir::Op(OpCode::kConvert, Type::kU8, {Bind(result)}, u));
}

std::pair<Val, Val> Legalizer::PackedPosition(int buffer, const Val& offset) {
  auto key = std::make_pair(buffer, offset.get());
  auto found = positions_.find(key);
  if (found != positions_.end()) return found->second;
  const Packing& p = packing_.at(buffer);
  const int64_t n = p.per_byte();
  Variable d = OffsetVariable(buffer, offset);
  Expr x = ctx_->Dim(0);
  // The first element of a byte in its low-order bits.
  IndexingMap map(ctx_, {d}, {}, {}, {x.FloorDiv(n), (x % n) * p.bits});
  auto shared = std::make_shared<const IndexingMap>(map);
  Val byte = Bind(ir::Apply(shared, 0, {offset}));
  Val shift = Bind(ir::Op(OpCode::kConvert, Type::kU8,
                          {ir::Apply(shared, 1, {offset})}, Type::kIndex));
  positions_[key] = {byte, shift};
  return {byte, shift};
}

Variable Legalizer::OffsetVariable(int buffer, const Val& offset) const {
  Variable d;
  d.bounds =
      Interval{0,
               std::max<int64_t>(m_->buffers[buffer].physical_elements, 1) - 1}
          .Intersect(ir::RangeOf(offset));
  return d;
}

Val Legalizer::PackedByte(int buffer, const Val& offset, int64_t j) {
  Variable d = OffsetVariable(buffer, offset);
  Expr x = ctx_->Dim(0);
  IndexingMap map(ctx_, {d}, {}, {},
                  {x.FloorDiv(packing_.at(buffer).per_byte()) + j});
  return Bind(ir::Apply(std::make_shared<const IndexingMap>(map), 0, {offset}));
}

// A vector of whole bytes (the vectorizer proved the offset aligned): each
// byte read once, its elements unpacked into the lanes.
Result<Val> Legalizer::PackedVectorLoad(const Node& n, const Val& offset) {
  const Packing& p = packing_.at(n.buffer);
  const int per = p.per_byte();
  auto zero = std::make_shared<Node>(*ir::Const(Legal(n.type), 0));
  zero->width = n.width;
  Val vec = zero;
  for (int64_t j = 0; j < n.width / per; ++j) {
    Val raw = Bind(
        ir::LoadFlat(n.buffer, Type::kU8, PackedByte(n.buffer, offset, j)));
    for (int i = 0; i < per; ++i) {
      // The first element of a byte in its low-order bits.
      Val bits =
          Op2(OpCode::kShrL, Type::kU8, raw, ir::Const(Type::kU8, i * p.bits));
      if (ir::IsSignedInt(n.type)) {
        bits = ir::Op(OpCode::kConvert, Type::kS8, {bits}, Type::kU8);
      }
      vec = ir::Insert(vec, ir::Index(j * per + i), Bind(Wrap(n.type, bits)));
    }
  }
  return vec;
}

Result<Val> Legalizer::Rewrite(const Val& v) {
  if (!v) return v;
  auto found = memo_.find(v.get());
  if (found != memo_.end()) return found->second;
  IXA_ASSIGN_OR_RETURN(Val r, RewriteUncached(v));
  memo_[v.get()] = r;
  return r;
}

Result<Val> Legalizer::RewriteUncached(const Val& v) {
  const Node& n = *v;
  // Vectors of sub-byte elements hold whole bytes of a packed buffer
  // (lanes in legal registers); f8 and f4 elements are never vectorized.
  if (n.width > 1 && ir::IsNarrowFloat(n.type)) {
    return Error::Unsupported(std::string("emit: a vector of ") +
                              ir::TypeName(n.type) + " elements");
  }
  std::vector<Val> x;
  bool changed = false;
  for (const Val& o : n.operands) {
    IXA_ASSIGN_OR_RETURN(Val r, Rewrite(o));
    changed |= r != o;
    x.push_back(r);
  }
  if (n.kind == NodeKind::kOp && !changed && !IsNarrow(n.type) &&
      !IsNarrow(n.operand_type)) {
    bool narrow_operand = false;
    for (const Val& o : n.operands) narrow_operand |= IsNarrow(o->type);
    if (!narrow_operand) return v;
  }
  switch (n.kind) {
    case NodeKind::kConst:
      if (ir::IsNarrowFloat(n.type)) {
        return ir::Const(
            Type::kU8, ir::EncodeF8(n.type, static_cast<float>(n.float_value)));
      }
      if (ir::IsSubByte(n.type)) {
        const int bits = ir::TypeBits(n.type);
        uint64_t u =
            static_cast<uint64_t>(n.int_value) & ((uint64_t{1} << bits) - 1);
        if (ir::IsSignedInt(n.type) && (u >> (bits - 1)) & 1) {
          u |= ~((uint64_t{1} << bits) - 1);
        }
        auto c = std::make_shared<Node>(
            *ir::Const(Legal(n.type), static_cast<int64_t>(u)));
        c->width = n.width;
        return Val(c);
      }
      return v;
    case NodeKind::kLoad:
      return RewriteLoad(n, std::move(x));
    case NodeKind::kOp:
      return RewriteOp(n, std::move(x));
    default: {
      if (!changed && !IsNarrow(n.type)) return v;
      auto copy = std::make_shared<Node>(n);
      copy->type = Legal(n.type);
      copy->operands = std::move(x);
      return Val(copy);
    }
  }
}

Result<Val> Legalizer::RewriteLoad(const Node& n, std::vector<Val> x) {
  auto p = packing_.find(n.buffer);
  auto copy = std::make_shared<Node>(n);
  copy->operands = x;
  copy->type = Legal(n.type);
  if (p == packing_.end()) return Val(copy);
  if (p->second.packed() && n.flat && n.width > 1) {
    return PackedVectorLoad(n, x[0]);
  }
  if (p->second.packed() && n.flat) {
    auto [byte, shift] = PackedPosition(n.buffer, x[0]);
    Val raw = Bind(ir::LoadFlat(n.buffer, Type::kU8, byte));
    Val bits = Op2(OpCode::kShrL, Type::kU8, raw, shift);
    if (ir::IsSignedInt(n.type)) {
      bits = ir::Op(OpCode::kConvert, Type::kS8, {bits}, Type::kU8);
    }
    return Wrap(n.type, bits);
  }
  // One element per byte: a sub-byte value (or f4 code) is re-wrapped, so
  // that a byte holding more than the type's bits reads as its low bits.
  if (ir::IsSubByte(n.type) || ir::IsF4(n.type)) {
    return Wrap(n.type, Bind(Val(copy)));
  }
  return Val(copy);
}

Result<Val> Legalizer::RewriteOp(const Node& n, std::vector<Val> x) {
  const Type t = n.type;
  Type from = n.operand_type;
  // Operands of f8 / f4 type (codes) are decoded to f32 for every op that
  // computes on their values: all but select and bitcast-convert.
  const bool moves_bits =
      n.op == OpCode::kSelect || n.op == OpCode::kBitcastConvert;
  if (n.op == OpCode::kConvert && n.operand_type == t) return x[0];
  if (!moves_bits) {
    for (size_t i = 0; i < x.size(); ++i) {
      if (ir::IsNarrowFloat(n.operands[i]->type))
        x[i] = Decode(n.operands[i]->type, x[i]);
    }
    if (ir::IsNarrowFloat(from)) from = Type::kF32;
  }
  const Type lf = Legal(from);
  if (ir::IsNarrowFloat(t)) {
    if (n.op == OpCode::kSelect) return ir::Op(OpCode::kSelect, Type::kU8, x);
    if (n.op == OpCode::kBitcastConvert) {
      Val code = ir::Op(OpCode::kConvert, Type::kU8, x, lf);
      if (ir::TypeBits(t) == 8) return code;
      // From s4 / u4: the low bits of the (sign-extended) register.
      return Op2(OpCode::kAnd, Type::kU8, code,
                 ir::Const(Type::kU8, (1 << ir::TypeBits(t)) - 1));
    }
    if (n.op == OpCode::kConvert) {
      Val f32 = x[0];
      if (from != Type::kF32 && !(from == Type::kF16 || from == Type::kBF16)) {
        // f64 and integers go through f32, as f16 / bf16 do.
        f32 = Bind(ir::Op(OpCode::kConvert, Type::kF32, {x[0]}, lf));
      }
      return Encode(t, f32);
    }
    Val r = Bind(ir::Op(n.op, Type::kF32, x, Type::kF32));
    return Encode(t, r);
  }
  if (ir::IsSubByte(t)) {
    const Type lt = Legal(t);
    const int bits = ir::TypeBits(t);
    const int64_t mask = (int64_t{1} << bits) - 1;
    switch (n.op) {
      case OpCode::kSelect:
      case OpCode::kMax:
      case OpCode::kMin:
      case OpCode::kClamp:
      case OpCode::kAnd:
      case OpCode::kOr:
      case OpCode::kXor:
      case OpCode::kSign:
        return ir::Op(n.op, lt, x, lt);
      case OpCode::kShrL: {
        Val low = Op2(OpCode::kAnd, lt, x[0], ir::Const(lt, mask));
        return Wrap(t, Op2(OpCode::kShrL, lt, low, x[1]));
      }
      case OpCode::kShrA: {
        if (ir::IsSignedInt(t))
          return Wrap(t, Op2(OpCode::kShrA, lt, x[0], x[1]));
        // Unsigned: the value read as signed, shifted arithmetically.
        Type st = Type::kS8;
        Type signed_narrow = bits == 4   ? Type::kS4
                             : bits == 2 ? Type::kS2
                                         : Type::kS1;
        Val s = Wrap(signed_narrow,
                     ir::Op(OpCode::kConvert, st, {x[0]}, Type::kU8));
        Val amount = ir::Op(OpCode::kConvert, st, {x[1]}, Type::kU8);
        Val r = Op2(OpCode::kShrA, st, s, amount);
        return Wrap(t, ir::Op(OpCode::kConvert, lt, {r}, st));
      }
      // The counts wrap too: s2 has no 2, s1 no 1.
      case OpCode::kPopcnt:
        return Wrap(
            t, ir::Op(OpCode::kPopcnt, lt,
                      {Op2(OpCode::kAnd, lt, x[0], ir::Const(lt, mask))}, lt));
      case OpCode::kClz: {
        Val c = ir::Op(OpCode::kClz, lt,
                       {Op2(OpCode::kAnd, lt, x[0], ir::Const(lt, mask))}, lt);
        return Wrap(t, Op2(OpCode::kSub, lt, c, ir::Const(lt, 8 - bits)));
      }
      case OpCode::kConvert:
      case OpCode::kBitcastConvert: {
        if (n.op == OpCode::kBitcastConvert && ir::IsF4(from)) {
          return Wrap(t, ir::Op(OpCode::kConvert, lt, {x[0]}, Type::kU8));
        }
        if (ir::IsFloat(from)) {
          // Saturates to the narrow type's range (NaN -> 0).
          Val v = ir::Op(OpCode::kConvert, lt, {x[0]}, lf);
          int64_t lo = ir::IsSignedInt(t) ? -(int64_t{1} << (bits - 1)) : 0;
          int64_t hi =
              ir::IsSignedInt(t) ? (int64_t{1} << (bits - 1)) - 1 : mask;
          return Bind(ir::Op(OpCode::kClamp, lt,
                             {ir::Const(lt, lo), Bind(v), ir::Const(lt, hi)},
                             lt));
        }
        if (from == Type::kPred) {
          return ir::Op(OpCode::kConvert, lt, {x[0]}, Type::kPred);
        }
        return Wrap(t, ir::Op(OpCode::kConvert, lt, {x[0]}, lf));
      }
      default:
        return Wrap(t, Bind(ir::Op(n.op, lt, x, lt)));
    }
  }
  // A result of a legal type; operands may have been narrow.
  if (n.op == OpCode::kBitcastConvert && ir::IsNarrowFloat(from)) {
    return ir::Op(OpCode::kConvert, t, x, Type::kU8);  // the code's bits
  }
  return ir::Op(n.op, t, x, lf);
}

std::string Legalizer::UniqueFunctionName(const std::string& stem) {
  std::string name = stem;
  for (int k = 0; m_->FindFunction(name) || names_.count(name); ++k) {
    name = stem + std::to_string(k);
  }
  names_.insert(name);
  return name;
}

std::string Legalizer::AddByteFunction(const std::string& name,
                                       const std::string& stem,
                                       const char* second, Block body) {
  ir::Function f;
  f.name = name;
  f.reads_buffers = false;
  f.params = {{"old", ir::ParamKind::kScalar, Type::kU8},
              {second, ir::ParamKind::kScalar, Type::kU8}};
  f.results = {Type::kU8};
  f.body = std::move(body);
  m_->functions.push_back(std::move(f));
  combiners_[stem] = name;
  return name;
}

std::string Legalizer::CombinerFunction(const std::string& stem, OpCode op) {
  auto found = combiners_.find(stem);
  if (found != combiners_.end()) return found->second;
  const std::string name = UniqueFunctionName(stem);
  Block body;
  body.push_back(ir::Return({Op2(op, Type::kU8, ir::Var("old", Type::kU8),
                                 ir::Var("bits", Type::kU8))}));
  return AddByteFunction(name, stem, "bits", std::move(body));
}

Result<Legalizer::PackedWrite> Legalizer::PackedWriteOf(const Stmt& s,
                                                        Block* out) {
  IXA_ASSIGN_OR_RETURN(Val offset, RewriteIn(s.indices[0], out));
  IXA_ASSIGN_OR_RETURN(Val value, RewriteIn(s.value, out));
  const Packing& p = packing_.at(s.buffer);
  auto [byte, shift] = PackedPosition(s.buffer, offset);
  const Type u = Type::kU8;
  Val low = Op2(OpCode::kAnd, u,
                ir::Op(OpCode::kConvert, u, {value}, Legal(p.element)),
                ir::Const(u, (int64_t{1} << p.bits) - 1));
  return PackedWrite{byte, shift, low};
}

Status Legalizer::PackedStore(const Stmt& s, Block* out) {
  IXA_ASSIGN_OR_RETURN(PackedWrite w, PackedWriteOf(s, out));
  const Packing& p = packing_.at(s.buffer);
  const Val& byte = w.byte;
  const Type u = Type::kU8;
  Val field =
      Op2(OpCode::kShl, u, ir::Const(u, (int64_t{1} << p.bits) - 1), w.shift);
  Val clear = Bind(ir::Op(OpCode::kNot, u, {field}, u));
  Val set = Bind(Op2(OpCode::kShl, u, w.low, w.shift));
  out->push_back(ir::Atomic(s.buffer, byte, clear,
                            CombinerFunction("packed_clear", OpCode::kAnd)));
  out->push_back(ir::Atomic(s.buffer, byte, set,
                            CombinerFunction("packed_set", OpCode::kOr)));
  return Status();
}

// The combiner of a byte holding packed elements, for an atomic update of
// one of them: (old byte, arg) -> new byte, where arg holds the update's
// bits low and the element's bit shift from bit 4 up. It unpacks the
// element, applies `combiner` (legalized: legal registers) to it and the
// update, and packs the result back, the byte's other bits kept.
std::string Legalizer::PackedCombiner(const std::string& combiner, Type element,
                                      int bits) {
  const std::string stem = "packed_" + combiner;
  auto found = combiners_.find(stem);
  if (found != combiners_.end()) return found->second;
  const std::string name = UniqueFunctionName(stem);
  const Type u = Type::kU8, t = Legal(element);
  const Val mask = ir::Const(u, (int64_t{1} << bits) - 1);
  const Val old = ir::Var("old", u), arg = ir::Var("arg", u);
  Block body;
  Block* saved = pending_;
  pending_ = &body;
  Val shift = Bind(Op2(OpCode::kShrL, u, arg, ir::Const(u, 4)));
  auto unpack = [&](const Val& raw) {
    Val low = Op2(OpCode::kAnd, u, raw, mask);
    return Wrap(element, ir::Op(OpCode::kConvert, t, {low}, u));
  };
  Val current = unpack(Op2(OpCode::kShrL, u, old, shift));
  Val update = unpack(arg);
  const std::string result = Fresh();
  body.push_back(ir::Call(combiner, {current, update}, {result}, {t}));
  Val packed =
      Op2(OpCode::kShl, u,
          Op2(OpCode::kAnd, u,
              ir::Op(OpCode::kConvert, u, {ir::Var(result, t)}, t), mask),
          shift);
  Val kept =
      Op2(OpCode::kAnd, u, old,
          ir::Op(OpCode::kNot, u, {Op2(OpCode::kShl, u, mask, shift)}, u));
  body.push_back(ir::Return({Op2(OpCode::kOr, u, kept, packed)}));
  pending_ = saved;
  return AddByteFunction(name, stem, "arg", std::move(body));
}

// An atomic update of one packed element (a scatter's combine): an atomic
// update of its byte with PackedCombiner, so that threads updating
// elements of one byte, or one element, never lose each other's bits.
Status Legalizer::PackedAtomic(const Stmt& s, Block* out) {
  IXA_ASSIGN_OR_RETURN(PackedWrite w, PackedWriteOf(s, out));
  const Packing& p = packing_.at(s.buffer);
  const Type u = Type::kU8;
  Val arg = Bind(Op2(OpCode::kOr, u, w.low,
                     Op2(OpCode::kShl, u, w.shift, ir::Const(u, 4))));
  out->push_back(ir::Atomic(s.buffer, w.byte, arg,
                            PackedCombiner(s.name, p.element, p.bits)));
  return Status();
}

// A vector of whole bytes: each byte assembled in a register and stored
// whole, with no atomic (the thread writes every element of it).
Status Legalizer::PackedVectorStore(const Stmt& s, Block* out) {
  IXA_ASSIGN_OR_RETURN(Val offset, RewriteIn(s.indices[0], out));
  IXA_ASSIGN_OR_RETURN(Val vec, RewriteIn(s.value, out));
  const Packing& p = packing_.at(s.buffer);
  const int per = p.per_byte();
  const Type u = Type::kU8;
  const Val mask = ir::Const(u, (int64_t{1} << p.bits) - 1);
  for (int64_t j = 0; j < s.width / per; ++j) {
    Val byte = PackedByte(s.buffer, offset, j);
    Val acc;
    for (int i = 0; i < per; ++i) {
      Val lane = ir::Extract(vec, ir::Index(j * per + i));
      Val low =
          Op2(OpCode::kAnd, u,
              ir::Op(OpCode::kConvert, u, {lane}, Legal(p.element)), mask);
      Val field = Op2(OpCode::kShl, u, low, ir::Const(u, i * p.bits));
      acc = acc ? Op2(OpCode::kOr, u, acc, field) : field;
    }
    out->push_back(ir::StoreFlat(s.buffer, byte, Bind(acc)));
  }
  return Status();
}

Status Legalizer::RewriteStmt(const Stmt& s, Block* out) {
  memo_.clear();
  positions_.clear();
  Stmt r = s;
  r.type = Legal(s.type);
  for (Type& t : r.result_types) t = Legal(t);
  auto packing = packing_.find(s.buffer);
  const bool narrow_buffer =
      (s.kind == StmtKind::kStore || s.kind == StmtKind::kAtomic) &&
      packing != packing_.end();
  if (narrow_buffer && packing->second.packed() && s.flat) {
    if (s.kind == StmtKind::kStore && s.width > 1 &&
        s.width % packing->second.per_byte() == 0) {
      return PackedVectorStore(s, out);
    }
    if (s.width > 1) {
      return Error::Unsupported(std::string("emit: a vector store of packed ") +
                                ir::TypeName(packing->second.element) +
                                " elements");
    }
    if (s.kind == StmtKind::kAtomic) return PackedAtomic(s, out);
    return PackedStore(s, out);
  }
  if (s.value) {
    IXA_ASSIGN_OR_RETURN(r.value, RewriteIn(s.value, out));
  }
  for (Val& v : r.indices) {
    IXA_ASSIGN_OR_RETURN(v, RewriteIn(v, out));
  }
  for (Val& v : r.args) {
    IXA_ASSIGN_OR_RETURN(v, RewriteIn(v, out));
  }
  r.body.clear();
  r.else_body.clear();
  IXA_RETURN_IF_ERROR(RewriteBlock(s.body, &r.body));
  IXA_RETURN_IF_ERROR(RewriteBlock(s.else_body, &r.else_body));
  out->push_back(std::move(r));
  return Status();
}

Status Legalizer::RewriteBlock(const Block& in, Block* out) {
  for (const Stmt& s : in) IXA_RETURN_IF_ERROR(RewriteStmt(s, out));
  return Status();
}

Status Legalizer::Run() {
  bool any = false;
  for (size_t i = 0; i < m_->buffers.size(); ++i) {
    const Buffer& b = m_->buffers[i];
    if (!IsNarrow(b.type)) continue;
    any = true;
    Packing p;
    p.element = b.type;
    const int64_t e = b.shape.layout ? b.shape.layout->element_size_bits : 0;
    if (b.space == BufferSpace::kGlobal && e > 0 && e < 8) p.bits = int(e);
    // Before flattening an access is an N-d index: a packed buffer shows
    // its elements one per byte there (those stages are for reading).
    if (!m_->flattened) p.bits = 8;
    packing_[static_cast<int>(i)] = p;
  }
  for (const ir::Function& f : m_->functions) {
    for (const ir::Param& p : f.params) any |= IsNarrow(p.type);
    for (Type t : f.results) any |= IsNarrow(t);
  }
  bool body_narrow = false;
  auto scan = [&](const Block& block) {
    ir::ForEachVal(block,
                   [&](const Val& v) { body_narrow |= IsNarrow(v->type); });
    ir::ForEachStmt(block, [&](const Stmt& s) {
      body_narrow |= IsNarrow(s.type);
      for (Type t : s.result_types) body_narrow |= IsNarrow(t);
    });
  };
  for (const ir::Function& f : m_->functions) scan(f.body);
  if (m_->kernel) scan(m_->kernel->body);
  if (!any && !body_narrow) return Status();
  // Every name of the module, so that fresh ones never clash.
  auto collect = [&](const Block& block) {
    ir::ForEachStmt(block, [&](const Stmt& s) {
      if (!s.name.empty()) names_.insert(s.name);
      for (const std::string& r : s.results) names_.insert(r);
    });
    ir::ForEachVal(block, [&](const Val& v) {
      if (v->kind == NodeKind::kVar) names_.insert(v->name);
    });
  };
  for (const ir::Function& f : m_->functions) {
    names_.insert(f.name);
    for (const ir::Param& p : f.params) names_.insert(p.name);
    collect(f.body);
  }
  if (m_->kernel) {
    names_.insert(m_->kernel->name);
    collect(m_->kernel->body);
  }
  for (const Buffer& b : m_->buffers) names_.insert(b.name);
  // Bodies first (they may add combiner functions), then the signatures.
  const size_t num_functions = m_->functions.size();
  for (size_t i = 0; i < num_functions; ++i) {
    Block body;
    IXA_RETURN_IF_ERROR(RewriteBlock(m_->functions[i].body, &body));
    ir::Function& f = m_->functions[i];
    f.body = std::move(body);
    for (ir::Param& p : f.params) p.type = Legal(p.type);
    for (Type& t : f.results) t = Legal(t);
  }
  if (m_->kernel) {
    Block body;
    IXA_RETURN_IF_ERROR(RewriteBlock(m_->kernel->body, &body));
    m_->kernel->body = std::move(body);
  }
  for (auto& [i, p] : packing_) {
    Buffer& b = m_->buffers[i];
    b.type = Legal(b.type);
    if (ir::IsNarrowFloat(p.element)) {
      for (double v : b.float_data) {
        b.int_data.push_back(ir::EncodeF8(p.element, static_cast<float>(v)));
      }
      b.float_data.clear();
    }
    if (p.packed()) {
      b.type = Type::kU8;
      b.physical_elements = (b.physical_elements * p.bits + 7) / 8;
    }
  }
  return Status();
}

}  // namespace

Status LegalizeTypes(ir::Module* module, ExprContext* ctx) {
  Legalizer legalizer(module, ctx);
  return legalizer.Run();
}

}  // namespace ixa::emit
