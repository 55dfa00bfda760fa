// bitcast-convert between element types of different widths. The narrower
// side has one more minor dim, of the width ratio; along it, element k is
// the k-th narrow piece of the wide element counting from the least
// significant bits (XLA's little-endian order). Narrowing shifts the wide
// element's bits right by k pieces and truncates; widening ORs the pieces,
// each zero-extended and shifted into place. Only integer shifts, ors and
// same-width bitcasts are emitted, so every target (and the sub-byte
// legalization) prints what it already knows.
#include "emit/lower/lowering.h"

namespace ixa::emit {

using hlo::Instruction;
using ir::OpCode;
using ir::Type;
using ir::Val;

namespace {

Error NoWidthCodegen(const Instruction& in, const std::string& why) {
  return Error::Unsupported(
      "emit: no code generation for 'bitcast-convert' ('" + in.name +
      "'): " + why);
}

// The unsigned integer type of `bits` bits (none: kPred).
Type UnsignedOfBits(int bits) {
  switch (bits) {
    case 1:
      return Type::kU1;
    case 2:
      return Type::kU2;
    case 4:
      return Type::kU4;
    case 8:
      return Type::kU8;
    case 16:
      return Type::kU16;
    case 32:
      return Type::kU32;
    case 64:
      return Type::kU64;
    default:
      return Type::kPred;
  }
}

// The bits of `v` (of type `t`) as the unsigned type `u` of its width, and
// back.
Val ToBits(const Val& v, Type t, Type u) {
  return t == u ? v : ir::Op(OpCode::kBitcastConvert, u, {v}, t);
}
Val FromBits(const Val& bits, Type u, Type t) {
  return t == u ? bits : ir::Op(OpCode::kBitcastConvert, t, {bits}, u);
}

}  // namespace

Result<std::vector<Val>> ElementalEmitter::EmitBitcastConvertWidth(
    const Instruction& in, const std::vector<Val>& index) {
  const Instruction* operand = in.operand(0);
  IXA_ASSIGN_OR_RETURN(Type to, ir::TypeOf(in.shape.type));
  IXA_ASSIGN_OR_RETURN(Type from, ir::TypeOf(operand->shape.type));
  const bool narrowing = ir::TypeBits(from) > ir::TypeBits(to);
  const Type wide = narrowing ? from : to;
  const Type narrow = narrowing ? to : from;
  const int wb = ir::TypeBits(wide), nb = ir::TypeBits(narrow);
  auto named = [&](const char* what) {
    return NoWidthCodegen(in, std::string("a bitcast-convert between ") +
                                  ir::TypeName(from) + " and " +
                                  ir::TypeName(to) + " (" + what + ")");
  };
  // XLA gives pred no bit width to split or assemble.
  if (wide == Type::kPred || narrow == Type::kPred) {
    return named("pred has no bits to split");
  }
  if (ir::IsComplex(narrow)) return named("the narrower side is complex");
  // A complex element is its (real, imaginary) pair, the real part first in
  // memory: the low half of its bits. Only halves of the component width
  // are generated.
  if (ir::IsComplex(wide) && nb != wb / 2) {
    return named("a complex element splits only into its two halves");
  }
  if (nb <= 0 || wb % nb != 0 || UnsignedOfBits(nb) == Type::kPred ||
      (!ir::IsComplex(wide) && UnsignedOfBits(wb) == Type::kPred)) {
    return named("widths without an integer ratio");
  }
  const int64_t ratio = wb / nb;
  const int wide_rank =
      static_cast<int>(narrowing ? operand->shape.rank() : in.shape.rank());
  const size_t expected = narrowing ? wide_rank + 1 : wide_rank;
  if (index.size() != expected) {
    return NoWidthCodegen(in, "unexpected index rank");
  }
  auto bind = [&](Val v) { return std::vector<Val>{bb_->Bind("v", v)}; };
  const Type un = UnsignedOfBits(nb);

  if (narrowing) {
    std::vector<Val> idx(index.begin(), index.end() - 1);
    IXA_ASSIGN_OR_RETURN(Val x, EmitOne(operand, idx));
    const Val& k = index.back();
    if (ir::IsComplex(wide)) {
      const Type comp = ir::ComponentType(wide);
      Val re = ir::Op(OpCode::kReal, comp, {x}, wide);
      Val im = ir::Op(OpCode::kImag, comp, {x}, wide);
      Val first =
          ir::Op(OpCode::kEq, Type::kPred, {k, ir::Index(0)}, Type::kIndex);
      Val half =
          bb_->Bind("half", ir::Op(OpCode::kSelect, comp, {first, re, im}));
      return bind(FromBits(ToBits(half, comp, un), un, narrow));
    }
    const Type uw = UnsignedOfBits(wb);
    Val bits = bb_->Bind("bits", ToBits(x, wide, uw));
    Val shift = ir::Op(
        OpCode::kMul, uw,
        {ir::Op(OpCode::kConvert, uw, {k}, Type::kIndex), ir::Const(uw, nb)},
        uw);
    Val piece = ir::Op(OpCode::kConvert, un,
                       {ir::Op(OpCode::kShrL, uw, {bits, shift}, uw)}, uw);
    return bind(FromBits(piece, un, narrow));
  }

  std::vector<Val> pieces;
  for (int64_t j = 0; j < ratio; ++j) {
    std::vector<Val> idx = index;
    idx.push_back(ir::Index(j));
    IXA_ASSIGN_OR_RETURN(Val p, EmitOne(operand, idx));
    pieces.push_back(p);
  }
  if (ir::IsComplex(wide)) {
    const Type comp = ir::ComponentType(wide);
    Val re = FromBits(ToBits(pieces[0], narrow, un), un, comp);
    Val im = FromBits(ToBits(pieces[1], narrow, un), un, comp);
    return bind(ir::Op(OpCode::kComplex, wide, {re, im}, comp));
  }
  const Type uw = UnsignedOfBits(wb);
  Val acc;
  for (int64_t j = 0; j < ratio; ++j) {
    Val w = ir::Op(OpCode::kConvert, uw, {ToBits(pieces[j], narrow, un)}, un);
    if (j > 0) {
      w = ir::Op(OpCode::kShl, uw, {w, ir::Const(uw, j * nb)}, uw);
      w = ir::Op(OpCode::kOr, uw, {acc, w}, uw);
    }
    acc = bb_->Bind("bits", w);
  }
  return bind(FromBits(acc, uw, wide));
}

}  // namespace ixa::emit
