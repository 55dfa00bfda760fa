// Elemental dot and convolution (docs/emitters.md §2a), as XLA's
// EmitElementalDot computes an output element: a loop over the symbols of
// the op's output-to-input maps (a dot's contracting dims; a convolution's
// window and the input features of the element's group) that adds
// lhs(map_lhs) * rhs(map_rhs) to an accumulator. A symbol point outside a
// map's domain (a convolution's padding, the holes of lhs dilation) adds
// nothing.
#include "analysis/indexing/indexing.h"
#include "emit/lower/lowering.h"

namespace ixa::emit {

using hlo::Instruction;
using ir::OpCode;
using ir::Type;
using ir::Val;

namespace {

Error DotNoCodegen(const Instruction& in, const std::string& why) {
  return Error::Unsupported("emit: no code generation for '" +
                            hlo::OpcodeName(in) + "' ('" + in.name +
                            "'): " + why);
}

// The type the products add up in. XLA accumulates in the result type
// (`preferred_element_type` when the HLO gives one), bf16 in f32; ixa
// computes every narrow float in f32 (its values live in f32 registers)
// and accumulates f16 and the 8- and 4-bit floats in f32 too, rounding
// once at the end. Integers wrap in the result type, complex values add
// as pairs, pred is the or of ands.
Type DotAccumulatorType(Type result) {
  if (ir::IsFloat(result) && ir::TypeBits(result) < 32) return Type::kF32;
  return result;
}

// The part of `map`'s domain that the loops do not already guarantee: a
// map over only the dims and symbols its constraints read or whose bounds
// are narrower than the output's dims (`out_dims`) or the loops' ranges
// (`bounds`), with their operands; nullptr when nothing is left to check.
// (A check over every operand leaves the ones the printer proves in range
// unread, which nvcc's -Werror all-warnings refuses as unused variables.)
std::shared_ptr<IndexingMap> DotDomainCheck(
    const IndexingMap& map, const std::vector<int64_t>& out_dims,
    const std::vector<Interval>& bounds, const std::vector<Val>& operands,
    std::vector<Val>* check_operands) {
  IndexingMap check = map;
  check.mutable_results().clear();
  std::vector<bool> dims_used(check.num_dims(), false),
      symbols_used(check.num_symbols(), false);
  for (const Constraint& c : check.constraints()) {
    CollectVariables(c.expr, &dims_used, &symbols_used);
  }
  dims_used.resize(check.num_dims());
  symbols_used.resize(check.num_symbols());
  std::vector<bool> erase_dims(check.num_dims()),
      erase_symbols(check.num_symbols());
  check_operands->clear();
  for (int d = 0; d < check.num_dims(); ++d) {
    erase_dims[d] = !dims_used[d] && check.dims()[d].bounds.Contains(
                                         Interval{0, out_dims[d] - 1});
    if (!erase_dims[d]) check_operands->push_back(operands[d]);
  }
  for (int s = 0; s < check.num_symbols(); ++s) {
    erase_symbols[s] =
        !symbols_used[s] && check.symbol(s).bounds.Contains(bounds[s]);
    if (!erase_symbols[s]) {
      check_operands->push_back(operands[check.num_dims() + s]);
    }
  }
  check.EraseDims(erase_dims);
  check.EraseSymbols(erase_symbols);
  if (check_operands->empty() && check.constraints().empty()) return nullptr;
  return std::make_shared<IndexingMap>(std::move(check));
}

}  // namespace

Result<std::vector<Val>> ElementalEmitter::EmitDot(
    const Instruction& in, const std::vector<Val>& index) {
  if (in.operand_count() != 2 || !in.shape.IsArray()) {
    return DotNoCodegen(in, "not two array operands and an array result");
  }
  // The maps over one list of symbols (the per-op maps of OpIndexing may
  // each have dropped the symbols it does not read).
  Result<std::vector<IndexingMap>> maps =
      ComputeSharedSymbolOperandMaps(in, lc_->ctx());
  if (!maps.ok()) return DotNoCodegen(in, maps.error().message);
  if (maps->size() != 2) {
    return DotNoCodegen(in, "an operand is not read through one map");
  }
  for (const IndexingMap& m : *maps) IXA_RETURN_IF_ERROR(CheckPrintableMap(m));
  std::shared_ptr<const IndexingMap> lhs_map = lc_->Intern((*maps)[0]);
  std::shared_ptr<const IndexingMap> rhs_map = lc_->Intern((*maps)[1]);
  IXA_ASSIGN_OR_RETURN(Type result, ir::TypeOf(in.shape.type));
  const Type acc_type = DotAccumulatorType(result);
  Val acc = bb_->DeclareVar("dot", ir::Zero(acc_type));
  // A map whose domain is empty (a convolution reading only padding)
  // reads nothing: the sum is 0.
  if (lhs_map->IsKnownEmpty() || rhs_map->IsKnownEmpty()) {
    return std::vector<Val>{ConvertDotResult(acc, result)};
  }
  const int n_symbols = lhs_map->num_range_vars();
  if (rhs_map->num_range_vars() != n_symbols || lhs_map->num_rt_vars() != 0 ||
      rhs_map->num_rt_vars() != 0) {
    return DotNoCodegen(in, "its operand maps do not share their symbols");
  }
  // A symbol runs over what both maps allow (the simplifier may have cut
  // the lhs map's bounds to where its padding constraints can hold); an
  // empty range adds nothing.
  std::vector<Interval> bounds;
  bool empty = false;
  for (int s = 0; s < n_symbols; ++s) {
    bounds.push_back(lhs_map->range_vars()[s].bounds.Intersect(
        rhs_map->range_vars()[s].bounds));
    empty |= bounds.back().IsEmpty();
  }
  if (empty) {
    return std::vector<Val>{ConvertDotResult(acc, result)};
  }
  std::vector<Val> symbols;
  std::vector<std::string> names;
  for (int s = 0; s < n_symbols; ++s) {
    names.push_back(bb_->Fresh("k"));
    symbols.push_back(ir::Var(names.back(), Type::kIndex, bounds[s]));
    bb_->Open();
  }
  auto body = [&]() -> Status {
    bb_->Open();
    std::vector<Val> factors;
    std::vector<Val> operands = index;
    operands.insert(operands.end(), symbols.begin(), symbols.end());
    for (int k = 0; k < 2; ++k) {
      std::vector<Val> idx =
          lc_->ApplyAll(k == 0 ? lhs_map : rhs_map, operands);
      IXA_ASSIGN_OR_RETURN(Val v, EmitOne(in.operand(k), idx));
      if (v->type != acc_type) {
        if (ir::IsComplex(v->type) && !ir::IsComplex(acc_type)) {
          return DotNoCodegen(in, "a complex operand and a real result");
        }
        if (acc_type == Type::kPred) {
          v = ir::Op(OpCode::kNe, Type::kPred, {v, ir::Zero(v->type)}, v->type);
        } else {
          v = ir::Op(OpCode::kConvert, acc_type, {v}, v->type);
        }
      }
      factors.push_back(v);
    }
    Val sum;
    if (acc_type == Type::kPred) {
      sum =
          ir::Op(OpCode::kOr, Type::kPred,
                 {acc, ir::Op(OpCode::kAnd, Type::kPred, factors, Type::kPred)},
                 Type::kPred);
    } else {
      Val product =
          bb_->Bind("prod", ir::Op(OpCode::kMul, acc_type, factors, acc_type));
      sum = ir::Op(OpCode::kAdd, acc_type, {acc, product}, acc_type);
    }
    bb_->Add(ir::Assign(acc->name, sum));
    ir::Block then = bb_->Close();
    std::vector<Val> checks;
    for (const auto& map : {lhs_map, rhs_map}) {
      std::vector<Val> check_operands;
      std::shared_ptr<IndexingMap> check = DotDomainCheck(
          *map, in.shape.dims, bounds, operands, &check_operands);
      if (check) {
        checks.push_back(ir::InDomain(lc_->Intern(*check), check_operands));
      }
    }
    if (checks.empty()) {
      for (ir::Stmt& st : then) bb_->Add(std::move(st));
    } else {
      bb_->Add(ir::If(ir::AllOf(checks), std::move(then)));
    }
    return Status();
  };
  Status ok = body();
  for (int s = n_symbols - 1; s >= 0; --s) {
    ir::Block b = bb_->Close();
    ir::Stmt loop =
        ir::For(names[s], bounds[s].lower, bounds[s].upper + 1, std::move(b));
    loop.window_loop = true;
    bb_->Add(std::move(loop));
  }
  if (!ok.ok()) return ok.error();
  return std::vector<Val>{ConvertDotResult(acc, result)};
}

Val ElementalEmitter::ConvertDotResult(const Val& acc, Type result) {
  if (acc->type == result) return acc;
  return bb_->Bind("dot", ir::Op(OpCode::kConvert, result, {acc}, acc->type));
}

}  // namespace ixa::emit
