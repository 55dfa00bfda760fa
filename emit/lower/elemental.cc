// Elemental emission of every op HLO indexing supports (docs/emitters.md
// §2a): elementwise ops compute on their operands at the same index; index
// transformations (broadcast, transpose, reshape, bitcast, slice, reverse,
// gather, dynamic-slice) read their operand at the op's output-to-input
// map applied to the index; pad and concatenate choose by the maps'
// domains; reduce and reduce-window loop over the maps' symbols applying
// the reducer computation as written; dot and convolution loop over them
// adding products (elemental_dot.cc).
#include <algorithm>

#include "analysis/indexing/indexing.h"
#include "core/budget.h"
#include "core/int_math.h"
#include "emit/lower/lowering.h"

namespace ixa::emit {

using hlo::Instruction;
using ir::OpCode;
using ir::Type;
using ir::Val;

Result<Val> ScalarConstant(const Instruction& in);

namespace {

// The deepest operand chain code generation follows (Emit recurses once per
// instruction of the chain); deeper fusions answer limit_exceeded. The map
// parser's depth cap (2,000): far inside the stack in Release, but not
// under ASan at -O0 (a level takes over 16 KB there), where the stack
// check (core/budget.h) refuses first.
constexpr int kMaxElementalDepth = 2000;
thread_local int elemental_depth = 0;

Error NoCodegen(const Instruction& in, const std::string& why = "") {
  return Error::Unsupported("emit: no code generation for '" + OpcodeName(in) +
                            "' ('" + in.name + "')" +
                            (why.empty() ? "" : ": " + why));
}

struct UnaryOp {
  hlo::Opcode opcode;
  OpCode op;
};
constexpr UnaryOp kUnary[] = {
    {hlo::Opcode::kAbs, OpCode::kAbs},
    {hlo::Opcode::kNegate, OpCode::kNeg},
    {hlo::Opcode::kNot, OpCode::kNot},
    {hlo::Opcode::kSign, OpCode::kSign},
    {hlo::Opcode::kExp, OpCode::kExp},
    {hlo::Opcode::kExpm1, OpCode::kExpm1},
    {hlo::Opcode::kLog, OpCode::kLog},
    {hlo::Opcode::kLog1p, OpCode::kLog1p},
    {hlo::Opcode::kSqrt, OpCode::kSqrt},
    {hlo::Opcode::kRsqrt, OpCode::kRsqrt},
    {hlo::Opcode::kCbrt, OpCode::kCbrt},
    {hlo::Opcode::kTanh, OpCode::kTanh},
    {hlo::Opcode::kLogistic, OpCode::kLogistic},
    {hlo::Opcode::kSin, OpCode::kSin},
    {hlo::Opcode::kCos, OpCode::kCos},
    {hlo::Opcode::kTan, OpCode::kTan},
    {hlo::Opcode::kErf, OpCode::kErf},
    {hlo::Opcode::kFloor, OpCode::kFloor},
    {hlo::Opcode::kCeil, OpCode::kCeil},
    {hlo::Opcode::kRoundNearestAfz, OpCode::kRoundAfz},
    {hlo::Opcode::kRoundNearestEven, OpCode::kRoundEven},
    {hlo::Opcode::kPopulationCount, OpCode::kPopcnt},
    {hlo::Opcode::kClz, OpCode::kClz},
    {hlo::Opcode::kAcos, OpCode::kAcos},
    {hlo::Opcode::kAcosh, OpCode::kAcosh},
    {hlo::Opcode::kAsin, OpCode::kAsin},
    {hlo::Opcode::kAsinh, OpCode::kAsinh},
    {hlo::Opcode::kAtan, OpCode::kAtan},
    {hlo::Opcode::kAtanh, OpCode::kAtanh},
    {hlo::Opcode::kCosh, OpCode::kCosh},
    {hlo::Opcode::kSinh, OpCode::kSinh},
};
constexpr UnaryOp kBinary[] = {
    {hlo::Opcode::kAdd, OpCode::kAdd},
    {hlo::Opcode::kSubtract, OpCode::kSub},
    {hlo::Opcode::kMultiply, OpCode::kMul},
    {hlo::Opcode::kDivide, OpCode::kDiv},
    {hlo::Opcode::kRemainder, OpCode::kRem},
    {hlo::Opcode::kMaximum, OpCode::kMax},
    {hlo::Opcode::kMinimum, OpCode::kMin},
    {hlo::Opcode::kPower, OpCode::kPow},
    {hlo::Opcode::kAtan2, OpCode::kAtan2},
    {hlo::Opcode::kAnd, OpCode::kAnd},
    {hlo::Opcode::kOr, OpCode::kOr},
    {hlo::Opcode::kXor, OpCode::kXor},
    {hlo::Opcode::kShiftLeft, OpCode::kShl},
    {hlo::Opcode::kShiftRightLogical, OpCode::kShrL},
    {hlo::Opcode::kShiftRightArithmetic, OpCode::kShrA},
};

// Float-only and integer-only unary ops.
bool FloatOnly(OpCode op) {
  switch (op) {
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
    case OpCode::kFloor:
    case OpCode::kCeil:
    case OpCode::kRoundAfz:
    case OpCode::kRoundEven:
    case OpCode::kAtan2:
    case OpCode::kAcos:
    case OpCode::kAcosh:
    case OpCode::kAsin:
    case OpCode::kAsinh:
    case OpCode::kAtan:
    case OpCode::kAtanh:
    case OpCode::kCosh:
    case OpCode::kSinh:
      return true;
    default:
      return false;
  }
}
bool IntOnly(OpCode op) {
  switch (op) {
    case OpCode::kNot:
    case OpCode::kPopcnt:
    case OpCode::kClz:
    case OpCode::kAnd:
    case OpCode::kOr:
    case OpCode::kXor:
    case OpCode::kShl:
    case OpCode::kShrL:
    case OpCode::kShrA:
      return true;
    default:
      return false;
  }
}

// Arithmetic on pred as XLA's HloEvaluator computes it: the operands are
// 0 / 1, the result converted back to pred (nonzero is true). So add is
// or (1 + 1 = 2 is true), subtract is xor (0 - 1 = -1 is true, 1 - 1 =
// 0), multiply and minimum are and, maximum is or. Division, remainder,
// power and the shifts have no such reading here: unsupported, named.
Result<OpCode> PredArithmetic(const Instruction& in, OpCode op) {
  switch (op) {
    case OpCode::kAnd:
    case OpCode::kOr:
    case OpCode::kXor:
      return op;
    case OpCode::kAdd:
    case OpCode::kMax:
      return OpCode::kOr;
    case OpCode::kSub:
      return OpCode::kXor;
    case OpCode::kMul:
    case OpCode::kMin:
      return OpCode::kAnd;
    default:
      return NoCodegen(in, "on pred");
  }
}

}  // namespace

// True when `opcode` is one the elemental emitter generates.
bool IsEmittableOpcode(hlo::Opcode opcode) {
  for (const UnaryOp& u : kUnary) {
    if (opcode == u.opcode) return true;
  }
  for (const UnaryOp& u : kBinary) {
    if (opcode == u.opcode) return true;
  }
  return hlo::OpcodeIn(opcode, {hlo::Opcode::kParameter,
                                hlo::Opcode::kConstant,
                                hlo::Opcode::kIota,
                                hlo::Opcode::kBroadcast,
                                hlo::Opcode::kTranspose,
                                hlo::Opcode::kReshape,
                                hlo::Opcode::kBitcast,
                                hlo::Opcode::kSlice,
                                hlo::Opcode::kReverse,
                                hlo::Opcode::kPad,
                                hlo::Opcode::kConcatenate,
                                hlo::Opcode::kDynamicSlice,
                                hlo::Opcode::kDynamicUpdateSlice,
                                hlo::Opcode::kGather,
                                hlo::Opcode::kReduce,
                                hlo::Opcode::kReduceWindow,
                                hlo::Opcode::kTuple,
                                hlo::Opcode::kGetTupleElement,
                                hlo::Opcode::kFusion,
                                hlo::Opcode::kCall,
                                hlo::Opcode::kMap,
                                hlo::Opcode::kCopy,
                                hlo::Opcode::kCompare,
                                hlo::Opcode::kSelect,
                                hlo::Opcode::kClamp,
                                hlo::Opcode::kConvert,
                                hlo::Opcode::kBitcastConvert,
                                hlo::Opcode::kIsFinite,
                                hlo::Opcode::kReducePrecision,
                                hlo::Opcode::kScatter,
                                hlo::Opcode::kDot,
                                hlo::Opcode::kConvolution,
                                hlo::Opcode::kReal,
                                hlo::Opcode::kImag,
                                hlo::Opcode::kComplex});
}

Result<std::vector<Val>> ElementalEmitter::Emit(const Instruction* instr,
                                                const std::vector<Val>& index) {
  auto ov = overrides_.find(instr);
  if (ov != overrides_.end()) return ov->second;
  std::vector<const void*> key;
  for (const Val& v : index) key.push_back(v.get());
  auto memo_key = std::make_pair(instr, key);
  auto found = memo_.find(memo_key);
  if (found != memo_.end() && bb_->IsOpen(found->second.block)) {
    return found->second.values;
  }
  // Emitting an instruction emits its operands first, recursively (nested
  // fusions and runtime indices too): a chain of 100,000 instructions
  // overflowed the stack. The depth is counted per thread, across the
  // emitters of nested computations.
  if (elemental_depth >= kMaxElementalDepth || StackNearlyExhausted()) {
    return Error::Limit(
        "emit: a chain of " + std::to_string(elemental_depth) +
        " instructions, each an operand of the next, reaches '" + instr->name +
        "' (budget: " + std::to_string(kMaxElementalDepth) +
        " and what the stack holds)");
  }
  ++elemental_depth;
  Result<std::vector<Val>> emitted = EmitUncached(instr, index);
  --elemental_depth;
  IXA_ASSIGN_OR_RETURN(std::vector<Val> values, std::move(emitted));
  memo_[memo_key] = MemoEntry{bb_->current_block(), values};
  return values;
}

Result<std::vector<Val>> ElementalEmitter::OperandIndex(
    const Instruction& in, int k, const std::vector<Val>& index,
    const std::vector<Val>& symbols,
    std::shared_ptr<const IndexingMap>* map_out) {
  IXA_ASSIGN_OR_RETURN(const HloInstructionIndexing* ix, lc_->OpIndexing(in));
  if (k >= static_cast<int>(ix->indexing_maps.size()) ||
      ix->indexing_maps[k].size() != 1) {
    return NoCodegen(in, "operand " + std::to_string(k) +
                             " is not read through one indexing map");
  }
  std::shared_ptr<const IndexingMap> map =
      lc_->Intern(ix->indexing_maps[k].maps()[0]);
  if (map_out) *map_out = map;
  if (map->num_dims() != static_cast<int>(index.size()) ||
      map->num_range_vars() != static_cast<int>(symbols.size())) {
    return NoCodegen(in, "unexpected indexing map shape");
  }
  IXA_ASSIGN_OR_RETURN(std::vector<Val> rts, RuntimeValues(in, *map, index));
  std::vector<Val> operands = index;
  operands.insert(operands.end(), symbols.begin(), symbols.end());
  operands.insert(operands.end(), rts.begin(), rts.end());
  std::vector<Val> out = lc_->ApplyAll(map, operands);
  // An index computed from other computed indices is bound to a variable:
  // the results of a reshape all read the previous op's results, so a chain
  // of such ops written out as one expression would double in size with
  // each op (flattening composes through the bindings).
  for (Val& v : out) {
    if (v->kind != ir::NodeKind::kApply) continue;
    bool nested = false;
    for (const Val& o : v->operands) nested |= o->kind == ir::NodeKind::kApply;
    if (nested) v = bb_->Bind("idx", v);
  }
  return out;
}

Result<std::vector<Val>> ElementalEmitter::RuntimeValues(
    const Instruction& in, const IndexingMap& map,
    const std::vector<Val>& index) {
  std::vector<Val> out;
  for (const Variable& v : map.rt_vars()) {
    const Instruction* producer = nullptr;
    for (const Instruction* o : in.operands) {
      if (o->name == v.producer) producer = o;
    }
    if (!producer || !v.producer_map || v.producer_map->num_symbols() != 0) {
      return NoCodegen(in, "a runtime index without a readable producer");
    }
    std::shared_ptr<const IndexingMap> pm = lc_->Intern(*v.producer_map);
    IXA_RETURN_IF_ERROR(CheckPrintableMap(*pm));
    std::vector<Val> pidx = lc_->ApplyAll(pm, index);
    IXA_ASSIGN_OR_RETURN(Val raw, EmitOne(producer, pidx));
    if (ir::IsFloat(raw->type) || ir::IsComplex(raw->type) ||
        raw->type == Type::kPred) {
      return NoCodegen(in, "a non-integer runtime index");
    }
    Val idx = ir::Op(OpCode::kToIndex, Type::kIndex, {raw}, raw->type);
    Val clamped =
        ir::Op(OpCode::kClampIndex, Type::kIndex,
               {idx, ir::Index(v.bounds.lower), ir::Index(v.bounds.upper)});
    out.push_back(bb_->Bind("rt", clamped));
  }
  return out;
}

Result<std::vector<Val>> ElementalEmitter::EmitUncached(
    const Instruction* instr, const std::vector<Val>& index) {
  const Instruction& in = *instr;
  const hlo::Opcode op = in.opcode;
  if (op == hlo::Opcode::kParameter) {
    if (outer_) return outer_->Emit(call_->operand(in.parameter_number), index);
    int k = lc_->ParameterIndex(instr);
    if (k < 0)
      return Error::Invalid("emit: parameter '" + in.name +
                            "' is not a fusion input");
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(in.shape.type));
    return std::vector<Val>{
        bb_->Bind("p", ir::Load(lc_->ParameterBuffer(k), t, index))};
  }
  if (use_partition_ && instr != root_ && !inline_.count(instr) &&
      lc_->IsSubgraphRoot(instr)) {
    IXA_ASSIGN_OR_RETURN(std::string fn, lc_->SubgraphFunction(instr));
    std::vector<std::string> results;
    std::vector<Type> types;
    std::vector<Val> values;
    for (const hlo::Shape* leaf : Leaves(in.shape)) {
      IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(leaf->type));
      std::string r = bb_->Fresh(LoweringContext::Sanitize(in.name) + "_");
      results.push_back(r);
      types.push_back(t);
      values.push_back(ir::Var(r, t));
    }
    bb_->Add(ir::Call(fn, index, results, types));
    return values;
  }
  if (op == hlo::Opcode::kConstant) {
    if (in.shape.IsScalar()) {
      IXA_ASSIGN_OR_RETURN(Val c, ScalarConstant(in));
      return std::vector<Val>{c};
    }
    IXA_ASSIGN_OR_RETURN(int buffer, lc_->ConstantBuffer(in));
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(in.shape.type));
    return std::vector<Val>{bb_->Bind("c", ir::Load(buffer, t, index))};
  }
  if (op == hlo::Opcode::kIota) {
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(in.shape.type));
    if (t == Type::kPred) return NoCodegen(in, "iota of pred");
    return std::vector<Val>{
        bb_->Bind("iota", ir::Op(OpCode::kConvert, t,
                                 {index.at(in.iota_dimension)}, Type::kIndex))};
  }
  if (op == hlo::Opcode::kTuple) {
    std::vector<Val> out;
    for (const Instruction* o : in.operands) {
      IXA_ASSIGN_OR_RETURN(std::vector<Val> v, Emit(o, index));
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  }
  if (op == hlo::Opcode::kGetTupleElement) {
    const Instruction* t = in.operand(0);
    // An element of a tuple instruction is its operand: emitting the whole
    // tuple would evaluate every element at this element's index (of
    // another rank, when the elements' shapes differ).
    if (t->opcode == hlo::Opcode::kTuple && in.tuple_index >= 0 &&
        in.tuple_index < t->operand_count()) {
      return Emit(t->operand(in.tuple_index), index);
    }
    IXA_ASSIGN_OR_RETURN(std::vector<Val> all, Emit(t, index));
    int first = 0;
    for (int64_t j = 0; j < in.tuple_index; ++j) {
      first += LeafCount(t->shape.tuple_elements[j]);
    }
    int n = LeafCount(t->shape.tuple_elements.at(in.tuple_index));
    return std::vector<Val>(all.begin() + first, all.begin() + first + n);
  }
  if (op == hlo::Opcode::kFusion || op == hlo::Opcode::kCall) {
    if (in.called() == nullptr) {
      return Error::Invalid("emit: " + OpcodeName(in) + " '" + in.name +
                            "' names no computation");
    }
    ElementalEmitter nested(lc_, bb_);
    nested.set_outer(this, instr);
    return nested.Emit(in.called()->root(), index);
  }
  if (op == hlo::Opcode::kBroadcast || op == hlo::Opcode::kTranspose ||
      op == hlo::Opcode::kReshape || op == hlo::Opcode::kBitcast ||
      op == hlo::Opcode::kSlice || op == hlo::Opcode::kReverse ||
      op == hlo::Opcode::kGather || op == hlo::Opcode::kDynamicSlice) {
    const hlo::ElementType from_hlo = in.operand(0)->shape.type;
    if (from_hlo != in.shape.type && op != hlo::Opcode::kBitcast) {
      return NoCodegen(in, "an element type change");
    }
    IXA_ASSIGN_OR_RETURN(std::vector<Val> idx, OperandIndex(in, 0, index, {}));
    if (from_hlo == in.shape.type) return Emit(in.operand(0), idx);
    // A bitcast may change the element type to one of the same width (XLA
    // allows it): the bits of each element, as a bitcast-convert moves them.
    IXA_ASSIGN_OR_RETURN(Type from, ir::TypeOf(from_hlo));
    IXA_ASSIGN_OR_RETURN(Type to, ir::TypeOf(in.shape.type));
    if (ir::IsComplex(from) || ir::IsComplex(to) ||
        ir::TypeBits(from) != ir::TypeBits(to)) {
      return NoCodegen(in, std::string("a bitcast from ") + ir::TypeName(from) +
                               " to " + ir::TypeName(to) +
                               " (the element width or kind changes)");
    }
    IXA_ASSIGN_OR_RETURN(Val x, EmitOne(in.operand(0), idx));
    return std::vector<Val>{
        bb_->Bind("bc", ir::Op(OpCode::kBitcastConvert, to, {x}, from))};
  }
  if (op == hlo::Opcode::kPad) {
    std::shared_ptr<const IndexingMap> map;
    IXA_ASSIGN_OR_RETURN(std::vector<Val> idx,
                         OperandIndex(in, 0, index, {}, &map));
    IXA_ASSIGN_OR_RETURN(Val pad_value, EmitOne(in.operand(1), {}));
    Val var = bb_->DeclareVar("pad", pad_value);
    Val cond = ir::InDomain(map, index);
    bb_->Open();
    IXA_ASSIGN_OR_RETURN(Val v, EmitOne(in.operand(0), idx));
    bb_->Add(ir::Assign(var->name, v));
    ir::Block then = bb_->Close();
    bb_->Add(ir::If(cond, std::move(then)));
    return std::vector<Val>{var};
  }
  if (op == hlo::Opcode::kConcatenate) {
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(in.shape.type));
    Val var = bb_->DeclareVar("concat", ir::Zero(t));
    // if (in operand 0's part) ... else if (in operand 1's part) ... else
    std::function<Result<ir::Block>(int)> branch =
        [&](int k) -> Result<ir::Block> {
      std::shared_ptr<const IndexingMap> map;
      bb_->Open();
      auto idx = OperandIndex(in, k, index, {}, &map);
      if (!idx.ok()) {
        bb_->Close();
        return idx.error();
      }
      auto v = EmitOne(in.operand(k), *idx);
      if (!v.ok()) {
        bb_->Close();
        return v.error();
      }
      bb_->Add(ir::Assign(var->name, *v));
      ir::Block then = bb_->Close();
      if (k + 1 == in.operand_count()) return then;
      bb_->Open();
      auto rest = branch(k + 1);
      ir::Block else_block = bb_->Close();
      if (!rest.ok()) return rest.error();
      for (ir::Stmt& s : *rest) else_block.push_back(std::move(s));
      ir::Block out;
      out.push_back(ir::If(ir::InDomain(map, index), std::move(then),
                           std::move(else_block)));
      return out;
    };
    IXA_ASSIGN_OR_RETURN(ir::Block chain, branch(0));
    for (ir::Stmt& s : chain) bb_->Add(std::move(s));
    return std::vector<Val>{var};
  }
  if (op == hlo::Opcode::kDynamicUpdateSlice) {
    IXA_ASSIGN_OR_RETURN(Val base, EmitOne(in.operand(0), index));
    IXA_ASSIGN_OR_RETURN(std::vector<Val> uidx, OperandIndex(in, 1, index, {}));
    Val var = bb_->DeclareVar("dus", base);
    const std::vector<int64_t>& udims = in.operand(1)->shape.dims;
    std::vector<Val> conds;
    for (size_t j = 0; j < uidx.size(); ++j) {
      Val u = bb_->Bind("u", uidx[j]);
      uidx[j] = u;
      conds.push_back(
          ir::Op(OpCode::kGe, Type::kPred, {u, ir::Index(0)}, Type::kIndex));
      conds.push_back(ir::Op(OpCode::kLe, Type::kPred,
                             {u, ir::Index(udims[j] - 1)}, Type::kIndex));
    }
    bb_->Open();
    IXA_ASSIGN_OR_RETURN(Val v, EmitOne(in.operand(1), uidx));
    bb_->Add(ir::Assign(var->name, v));
    ir::Block then = bb_->Close();
    bb_->Add(ir::If(ir::AllOf(conds), std::move(then)));
    return std::vector<Val>{var};
  }
  if (op == hlo::Opcode::kReduce || op == hlo::Opcode::kReduceWindow)
    return EmitReduce(in, index);
  if (op == hlo::Opcode::kDot || op == hlo::Opcode::kConvolution)
    return EmitDot(in, index);
  if (op == hlo::Opcode::kMap) {
    std::vector<Val> args;
    for (const Instruction* o : in.operands) {
      IXA_ASSIGN_OR_RETURN(Val v, EmitOne(o, index));
      args.push_back(v);
    }
    IXA_ASSIGN_OR_RETURN(std::string fn, lc_->ScalarFunction(in.called()));
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(in.shape.type));
    std::string r = bb_->Fresh("map");
    bb_->Add(ir::Call(fn, args, {r}, {t}));
    return std::vector<Val>{ir::Var(r, t)};
  }
  if (op == hlo::Opcode::kBitcastConvert && in.shape.IsArray() &&
      in.operand_count() == 1 &&
      hlo::ElementBits(in.shape.type) !=
          hlo::ElementBits(in.operand(0)->shape.type)) {
    return EmitBitcastConvertWidth(in, index);
  }
  if (hlo::IsElementwiseOpcode(op)) return EmitElementwise(in, index);
  return NoCodegen(in);
}

Result<std::vector<Val>> ElementalEmitter::EmitElementwise(
    const Instruction& in, const std::vector<Val>& index) {
  const hlo::Opcode op = in.opcode;
  if (!in.shape.IsArray()) return NoCodegen(in, "tuple-shaped");
  IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(in.shape.type));
  std::vector<Val> x;
  for (const Instruction* o : in.operands) {
    std::vector<Val> idx = o->shape.IsScalar() ? std::vector<Val>{} : index;
    IXA_ASSIGN_OR_RETURN(Val v, EmitOne(o, idx));
    x.push_back(v);
  }
  auto bind = [&](Val v) { return std::vector<Val>{bb_->Bind("v", v)}; };
  if (op == hlo::Opcode::kCopy) return std::vector<Val>{x[0]};
  bool complex = ir::IsComplex(t);
  for (const Val& v : x) complex |= ir::IsComplex(v->type);
  if (complex || op == hlo::Opcode::kReal || op == hlo::Opcode::kImag ||
      op == hlo::Opcode::kComplex) {
    return EmitComplex(in, t, x);
  }
  if (op == hlo::Opcode::kCompare) {
    if (in.HasAttribute("type") && in.Attribute("type") == "TOTALORDER" &&
        ir::IsFloat(x[0]->type)) {
      // XLA's total order: -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN,
      // payloads ordered. The bits as a signed integer, the magnitude bits
      // flipped for negative values, compare in that order.
      const int bits = ir::TypeBits(x[0]->type);
      const Type it = bits == 8    ? Type::kS8
                      : bits == 16 ? Type::kS16
                      : bits == 32 ? Type::kS32
                                   : Type::kS64;
      const int64_t magnitude =
          bits == 64 ? kInt64Max : (int64_t{1} << (bits - 1)) - 1;
      for (Val& v : x) {
        Val s = bb_->Bind("bits",
                          ir::Op(OpCode::kBitcastConvert, it, {v}, v->type));
        Val neg = ir::Op(OpCode::kLt, Type::kPred, {s, ir::Const(it, 0)}, it);
        Val flipped =
            ir::Op(OpCode::kXor, it, {s, ir::Const(it, magnitude)}, it);
        v = bb_->Bind("key", ir::Op(OpCode::kSelect, it, {neg, flipped, s}));
      }
    }
    std::string dir = in.Attribute("direction");
    static const std::pair<const char*, OpCode> kDirs[] = {
        {"EQ", OpCode::kEq}, {"NE", OpCode::kNe}, {"LT", OpCode::kLt},
        {"LE", OpCode::kLe}, {"GT", OpCode::kGt}, {"GE", OpCode::kGe}};
    for (const auto& [name, code] : kDirs) {
      if (dir == name) return bind(ir::Op(code, Type::kPred, x, x[0]->type));
    }
    return NoCodegen(in, "comparison direction '" + dir + "'");
  }
  if (op == hlo::Opcode::kSelect) return bind(ir::Op(OpCode::kSelect, t, x));
  if (op == hlo::Opcode::kClamp) return bind(ir::Op(OpCode::kClamp, t, x));
  if (op == hlo::Opcode::kConvert)
    return bind(ir::Op(OpCode::kConvert, t, x, x[0]->type));
  if (op == hlo::Opcode::kBitcastConvert) {
    // Width changes took EmitBitcastConvertWidth.
    if (ir::TypeBits(t) != ir::TypeBits(x[0]->type)) {
      return NoCodegen(in, "a bitcast-convert that changes the width");
    }
    return bind(ir::Op(OpCode::kBitcastConvert, t, x, x[0]->type));
  }
  if (op == hlo::Opcode::kIsFinite) {
    return bind(ir::Op(OpCode::kIsFinite, Type::kPred, x, x[0]->type));
  }
  if (op == hlo::Opcode::kReducePrecision) return EmitReducePrecision(in, x[0]);
  const bool fl = ir::IsFloat(t);
  if (x.size() == 1) {
    for (const UnaryOp& u : kUnary) {
      if (op != u.opcode) continue;
      if ((FloatOnly(u.op) && !fl) || (IntOnly(u.op) && fl)) {
        return NoCodegen(in, std::string("on ") + ir::TypeName(t));
      }
      if (t == Type::kPred && u.op != OpCode::kNot) {
        return NoCodegen(in, "on pred");
      }
      return bind(ir::Op(u.op, t, x, t));
    }
  }
  if (x.size() == 2) {
    for (const UnaryOp& b : kBinary) {
      if (op != b.opcode) continue;
      if ((FloatOnly(b.op) && !fl) || (IntOnly(b.op) && fl)) {
        return NoCodegen(in, std::string("on ") + ir::TypeName(t));
      }
      if (t == Type::kPred) {
        IXA_ASSIGN_OR_RETURN(OpCode logical, PredArithmetic(in, b.op));
        return bind(ir::Op(logical, t, x, t));
      }
      return bind(ir::Op(b.op, t, x, t));
    }
  }
  return NoCodegen(in);
}

// Ops on complex values (the lowering's check let only these through) and
// real / imag / complex on floats. Complex values stay one IR value each;
// the printers compute them as (real, imaginary) pairs.
Result<std::vector<Val>> ElementalEmitter::EmitComplex(
    const Instruction& in, Type t, const std::vector<Val>& x) {
  const hlo::Opcode op = in.opcode;
  auto bind = [&](Val v) { return std::vector<Val>{bb_->Bind("v", v)}; };
  const size_t arity =
      op == hlo::Opcode::kSelect ? 3
      : op == hlo::Opcode::kComplex || op == hlo::Opcode::kCompare ||
              op == hlo::Opcode::kAdd || op == hlo::Opcode::kSubtract ||
              op == hlo::Opcode::kMultiply || op == hlo::Opcode::kDivide ||
              op == hlo::Opcode::kPower
          ? 2
          : 1;
  if (x.size() != arity) {
    return NoCodegen(in, std::to_string(x.size()) + " operands");
  }
  const Type from = op == hlo::Opcode::kSelect ? x[1]->type : x[0]->type;
  if (op == hlo::Opcode::kReal || op == hlo::Opcode::kImag) {
    if (!ir::IsComplex(from) && !ir::IsFloat(from)) {
      return NoCodegen(in, std::string("on ") + ir::TypeName(from));
    }
    return bind(ir::Op(op == hlo::Opcode::kReal ? OpCode::kReal : OpCode::kImag,
                       t, x, from));
  }
  if (op == hlo::Opcode::kComplex) {
    if (!ir::IsComplex(t) || from != ir::ComponentType(t) ||
        x[1]->type != from) {
      return NoCodegen(in, "operands that are not the parts of its type");
    }
    return bind(ir::Op(OpCode::kComplex, t, x, from));
  }
  if (op != hlo::Opcode::kConvert && !ir::IsComplex(from)) {
    return NoCodegen(
        in, std::string("a complex result from ") + ir::TypeName(from));
  }
  // The rest read operands of one type (a select's values, a compare's or
  // an arithmetic op's operands) and give that type (abs: its part type).
  for (size_t k = op == hlo::Opcode::kSelect ? 1 : 0;
       k < x.size() && op != hlo::Opcode::kConvert; ++k) {
    if (x[k]->type != from) return NoCodegen(in, "operands of mixed types");
  }
  const Type expected = op == hlo::Opcode::kCompare ? Type::kPred
                        : op == hlo::Opcode::kAbs   ? ir::ComponentType(from)
                                                    : from;
  if (op != hlo::Opcode::kConvert && t != expected) {
    return NoCodegen(in, std::string("a result of type ") + ir::TypeName(t));
  }
  if (op == hlo::Opcode::kSelect) return bind(ir::Op(OpCode::kSelect, t, x));
  if (op == hlo::Opcode::kConvert)
    return bind(ir::Op(OpCode::kConvert, t, x, from));
  if (op == hlo::Opcode::kCompare) {
    const std::string dir = in.Attribute("direction");
    return bind(
        ir::Op(dir == "EQ" ? OpCode::kEq : OpCode::kNe, Type::kPred, x, from));
  }
  static const std::pair<hlo::Opcode, OpCode> kComplexOps[] = {
      {hlo::Opcode::kAdd, OpCode::kAdd},
      {hlo::Opcode::kSubtract, OpCode::kSub},
      {hlo::Opcode::kMultiply, OpCode::kMul},
      {hlo::Opcode::kDivide, OpCode::kDiv},
      {hlo::Opcode::kNegate, OpCode::kNeg},
      {hlo::Opcode::kAbs, OpCode::kAbs},
      {hlo::Opcode::kExp, OpCode::kExp},
      {hlo::Opcode::kLog, OpCode::kLog},
      {hlo::Opcode::kSqrt, OpCode::kSqrt},
      {hlo::Opcode::kRsqrt, OpCode::kRsqrt},
      {hlo::Opcode::kSign, OpCode::kSign},
      {hlo::Opcode::kSin, OpCode::kSin},
      {hlo::Opcode::kCos, OpCode::kCos},
      {hlo::Opcode::kTanh, OpCode::kTanh},
      {hlo::Opcode::kExpm1, OpCode::kExpm1},
      {hlo::Opcode::kLog1p, OpCode::kLog1p},
      {hlo::Opcode::kPower, OpCode::kPow}};
  for (const auto& [opcode, code] : kComplexOps) {
    if (op == opcode) return bind(ir::Op(code, t, x, from));
  }
  return NoCodegen(in, std::string("on ") + ir::TypeName(from));
}

// XLA's EmitReducePrecisionIR on the bits of the element type: round the
// mantissa to `mantissa_bits` (nearest even), then what the exponent range
// of `exponent_bits` cannot hold overflows to infinity or underflows to a
// signed zero (no denormals); a NaN stays as it is.
Result<std::vector<Val>> ElementalEmitter::EmitReducePrecision(
    const Instruction& in, const Val& x) {
  const Type ft = x->type;
  if (!ir::IsFloat(ft)) return NoCodegen(in, "on a non-float type");
  if (ir::IsNarrowFloat(ft))
    return NoCodegen(in, std::string("on ") + ir::TypeName(ft));
  int64_t eb = 0, mb = 0;
  try {
    eb = std::stoll(in.Attribute("exponent_bits"));
    mb = std::stoll(in.Attribute("mantissa_bits"));
  } catch (const std::exception&) {
    return NoCodegen(in, "without exponent_bits and mantissa_bits");
  }
  const int n = ir::TypeBits(ft);
  const int m = ft == Type::kF16    ? 10
                : ft == Type::kBF16 ? 7
                : ft == Type::kF32  ? 23
                                    : 52;
  const int e = n - 1 - m;
  if (eb < 1 || mb < 0) return NoCodegen(in, "with no exponent bits");
  const Type ut = n == 16 ? Type::kU16 : (n == 32 ? Type::kU32 : Type::kU64);
  const uint64_t all = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  auto k = [&](uint64_t v) { return ir::Const(ut, static_cast<int64_t>(v)); };
  auto op2 = [&](OpCode c, const Val& a, const Val& b) {
    return ir::Op(c, ut, {a, b}, ut);
  };
  Val bits = bb_->Bind("rp", ir::Op(OpCode::kBitcastConvert, ut, {x}, ft));
  if (mb < m) {
    const int shift = static_cast<int>(m - mb);
    const uint64_t last = uint64_t{1} << shift;
    Val last_bit = op2(OpCode::kAnd, op2(OpCode::kShrL, bits, k(shift)), k(1));
    Val bias = op2(OpCode::kAdd, last_bit, k((last >> 1) - 1));
    bits = bb_->Bind("rp", op2(OpCode::kAnd, op2(OpCode::kAdd, bits, bias),
                               k(~(last - 1) & all)));
  }
  if (eb < e) {
    const uint64_t exp_mask = ((uint64_t{1} << e) - 1) << m;
    const uint64_t sign_mask = uint64_t{1} << (n - 1);
    const uint64_t src_bias = (uint64_t{1} << (e - 1)) - 1;
    const uint64_t red_bias = (uint64_t{1} << (eb - 1)) - 1;
    Val exponent = bb_->Bind("rpe", op2(OpCode::kAnd, bits, k(exp_mask)));
    Val sign = bb_->Bind("rps", op2(OpCode::kAnd, bits, k(sign_mask)));
    Val over = ir::Op(OpCode::kGt, Type::kPred,
                      {exponent, k((src_bias + red_bias) << m)}, ut);
    Val under = ir::Op(OpCode::kLe, Type::kPred,
                       {exponent, k((src_bias - red_bias) << m)}, ut);
    Val flushed = ir::Op(OpCode::kSelect, ut, {under, sign, bits});
    bits = bb_->Bind(
        "rp", ir::Op(OpCode::kSelect, ut,
                     {over, op2(OpCode::kOr, sign, k(exp_mask)), flushed}));
  }
  Val r = ir::Op(OpCode::kBitcastConvert, ft, {bits}, ut);
  Val nan = ir::Op(OpCode::kNe, Type::kPred, {x, x}, ft);
  return std::vector<Val>{
      bb_->Bind("v", ir::Op(OpCode::kSelect, ft, {nan, x, r}))};
}

Result<std::vector<Val>> ElementalEmitter::EmitReduce(
    const Instruction& in, const std::vector<Val>& index) {
  const int n = in.operand_count() / 2;
  IXA_ASSIGN_OR_RETURN(const HloInstructionIndexing* ix, lc_->OpIndexing(in));
  if (ix->indexing_maps.empty() || ix->indexing_maps[0].size() != 1) {
    return NoCodegen(in, "no single input map");
  }
  std::shared_ptr<const IndexingMap> map0 =
      lc_->Intern(ix->indexing_maps[0].maps()[0]);
  IXA_ASSIGN_OR_RETURN(std::string reducer, lc_->ScalarFunction(in.called()));
  std::vector<Val> accs;
  std::vector<Type> types;
  for (int k = 0; k < n; ++k) {
    IXA_ASSIGN_OR_RETURN(Val init, EmitOne(in.operand(n + k), {}));
    accs.push_back(bb_->DeclareVar("acc", init));
    types.push_back(init->type);
  }
  // One loop per symbol of the input maps (the reduced dims or the window).
  std::vector<Val> symbols;
  std::vector<std::string> names;
  for (int s = 0; s < map0->num_range_vars(); ++s) {
    std::string name = bb_->Fresh("r");
    names.push_back(name);
    symbols.push_back(
        ir::Var(name, Type::kIndex, map0->range_vars()[s].bounds));
    bb_->Open();
  }
  auto body = [&]() -> Status {
    // A window position in the padding is out of the map's domain: its
    // constraints, and also its dimension bounds (`d0 in [1, 32]` for a low
    // padding of 1), narrower than the output index. The check prints only
    // the bounds the index ranges do not already imply.
    bb_->Open();
    std::vector<Val> args = accs;
    for (int k = 0; k < n; ++k) {
      IXA_ASSIGN_OR_RETURN(std::vector<Val> idx,
                           OperandIndex(in, k, index, symbols));
      IXA_ASSIGN_OR_RETURN(Val v, EmitOne(in.operand(k), idx));
      args.push_back(v);
    }
    std::vector<std::string> results;
    for (int k = 0; k < n; ++k) results.push_back(bb_->Fresh("red"));
    bb_->Add(ir::Call(reducer, args, results, types));
    for (int k = 0; k < n; ++k) {
      bb_->Add(ir::Assign(accs[k]->name, ir::Var(results[k], types[k])));
    }
    std::vector<Val> operands = index;
    operands.insert(operands.end(), symbols.begin(), symbols.end());
    ir::Block then = bb_->Close();
    bb_->Add(ir::If(ir::InDomain(map0, operands), std::move(then)));
    return Status();
  };
  Status ok = body();
  for (int s = map0->num_range_vars() - 1; s >= 0; --s) {
    ir::Block b = bb_->Close();
    Interval bounds = map0->range_vars()[s].bounds;
    ir::Stmt loop =
        ir::For(names[s], bounds.lower, bounds.upper + 1, std::move(b));
    loop.window_loop = true;
    bb_->Add(std::move(loop));
  }
  if (!ok.ok()) return ok.error();
  return accs;
}

}  // namespace ixa::emit
