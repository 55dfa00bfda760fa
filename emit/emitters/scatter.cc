// The scatter emitter (docs/xla-reference.md §(h) h.6): each update
// element is combined into the output, which is its operand's memory, at
// the element its index vector and window position name. How it is
// combined follows XLA:
// - unique_indices=true: no two updates meet, so each thread reads the
//   element, applies the combiner and stores it, with no atomic;
// - one operand: an atomic update per element, the hardware's where the
//   combiner is an add, max or min it has for the type (atomicAdd, red),
//   else a compare-and-swap loop around the combiner; with
//   indices_are_sorted=true a thread first folds the updates of a run of
//   equal indices (up to kSortedChunk of them) in registers and makes one
//   atomic update per run;
// - several operands (a variadic scatter, tuple combiner): no atomic
//   updates a tuple, so one thread applies every update in order, as
//   XLA's expansion of such a scatter into a loop does.
#include <algorithm>

#include "emit/emitters/emitters.h"

namespace ixa::emit::emitters {

using hlo::Instruction;
using ir::OpCode;
using ir::Type;
using ir::Val;

namespace {

// Rows of updates one thread folds before its atomic update when the
// indices are sorted: runs are cut at multiples of it, so no thread walks
// a long run alone while the others wait (XLA gives each warp a chunk).
constexpr int64_t kSortedChunk = 8;

struct ScatterInfo {
  const Instruction* scatter = nullptr;
  int count = 1;  // operands, and as many updates
  const Instruction* indices = nullptr;
  std::vector<const Instruction*> updates;
  std::vector<int64_t> window_dims;  // update dims of the window
  std::vector<int64_t> to_operand;   // scatter_dims_to_operand_dims
  int64_t index_vector_dim = 0;
  std::vector<int64_t> odims, udims;
  std::vector<int64_t> window_operand_dims;  // operand dims of the window
  std::vector<int64_t> window_size;          // per operand dim
  std::vector<int> buffers;                  // the output of each operand
  std::vector<Type> types;                   // per operand
  std::string combiner;
  bool unique = false, sorted = false;
  ir::AtomicOp atomic_op = ir::AtomicOp::kCombiner;
};

Val Equal(const Val& a, const Val& b) {
  return ir::Op(OpCode::kEq, Type::kPred, {a, b}, a->type);
}
Val Less(const Val& a, int64_t b) {
  return ir::Op(OpCode::kLt, Type::kPred, {a, ir::Index(b)}, Type::kIndex);
}

// The results of `exprs` over the index values `operands` (as dims).
std::vector<Val> ApplyExprs(LoweringContext& lc,
                            const std::vector<Val>& operands,
                            std::vector<Expr> exprs) {
  std::vector<Variable> dims;
  for (const Val& v : operands) {
    Variable var;
    var.bounds = ir::RangeOf(v);
    dims.push_back(var);
  }
  IndexingMap map(lc.ctx(), dims, {}, {}, std::move(exprs));
  return lc.ApplyAll(lc.Intern(map), operands);
}

// The hardware operation the combiner is: its root applies add, maximum
// or minimum to its two parameters (in either order), in their type.
ir::AtomicOp CombinerOp(const hlo::Computation& comp) {
  const Instruction* root = comp.root();
  if (comp.parameter_count() != 2 || !root || root->operand_count() != 2) {
    return ir::AtomicOp::kCombiner;
  }
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode != hlo::Opcode::kParameter ||
      b->opcode != hlo::Opcode::kParameter || a == b ||
      !root->shape.IsScalar() || a->shape.type != root->shape.type ||
      b->shape.type != root->shape.type) {
    return ir::AtomicOp::kCombiner;
  }
  if (root->opcode == hlo::Opcode::kAdd) return ir::AtomicOp::kAdd;
  if (root->opcode == hlo::Opcode::kMaximum) return ir::AtomicOp::kMax;
  if (root->opcode == hlo::Opcode::kMinimum) return ir::AtomicOp::kMin;
  return ir::AtomicOp::kCombiner;
}

bool TrueAttribute(const Instruction* in, const char* name) {
  return in->HasAttribute(name) && in->Attribute(name) == "true";
}

Result<ScatterInfo> DescribeScatter(LoweringContext& lc, const RootPlan& r) {
  ScatterInfo s;
  s.scatter = r.root;
  const Instruction* scatter = r.root;
  const int n = scatter->operand_count();
  if (scatter->opcode != hlo::Opcode::kScatter || n < 3 || n % 2 == 0) {
    return Error::Unsupported("emit: the scatter plan's root '" +
                              scatter->name + "' is no scatter");
  }
  s.count = (n - 1) / 2;
  s.indices = scatter->operand(s.count);
  for (int j = 0; j < s.count; ++j) {
    s.updates.push_back(scatter->operand(s.count + 1 + j));
  }
  hlo::ScatterDimensionNumbers dn = scatter->ScatterDims();
  if (!dn.input_batching_dims.empty()) {
    return Error::Unsupported("emit: scatter with batching dims");
  }
  if (r.hero_operand_maps.size() < static_cast<size_t>(n) ||
      !r.hero_operand_maps[s.count + 1]) {
    return Error::Unsupported("emit: scatter plan without an update map");
  }
  s.window_dims = dn.update_window_dims;
  s.to_operand = dn.scatter_dims_to_operand_dims;
  s.index_vector_dim = dn.index_vector_dim;
  s.odims = scatter->operand(0)->shape.dims;
  s.udims = s.updates[0]->shape.dims;
  const std::vector<int64_t>& inserted = dn.inserted_window_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(s.odims.size()); ++d) {
    if (std::find(inserted.begin(), inserted.end(), d) == inserted.end()) {
      s.window_operand_dims.push_back(d);
    }
  }
  if (s.window_operand_dims.size() != s.window_dims.size()) {
    return Error::Invalid("emit: scatter window dims do not match");
  }
  s.window_size.assign(s.odims.size(), 1);
  for (size_t w = 0; w < s.window_dims.size(); ++w) {
    s.window_size[s.window_operand_dims[w]] = s.udims[s.window_dims[w]];
  }
  s.buffers = RootBuffers(lc, r);
  if (s.buffers.size() != static_cast<size_t>(s.count)) {
    return Error::Invalid("emit: scatter '" + scatter->name + "' has " +
                          std::to_string(s.count) + " operands and " +
                          std::to_string(s.buffers.size()) + " outputs");
  }
  for (int j = 0; j < s.count; ++j) {
    const Instruction* operand = scatter->operand(j);
    int k = lc.ParameterIndex(operand);
    if (k < 0) {
      return Error::Unsupported(
          "emit: the scatter operand of '" + scatter->name +
          "' is not a fusion parameter (XLA scatters in place)");
    }
    // The output lives in the operand's memory: same shape and layout
    // (XLA's buffer sharing).
    const hlo::Shape& out = scatter->shape.IsTuple()
                                ? scatter->shape.tuple_elements[j]
                                : scatter->shape;
    if (!InPlaceShapesMatch(operand->shape, out)) {
      return Error::Unsupported("emit: output " + std::to_string(j) + " of '" +
                                scatter->name + "' (" + out.ToString(true) +
                                ") cannot be written in the memory of '" +
                                operand->name + "' (" +
                                operand->shape.ToString(true) + ")");
    }
    lc.module().buffers[s.buffers[j]].aliases = lc.ParameterBuffer(k);
    s.types.push_back(lc.module().buffers[s.buffers[j]].type);
  }
  IXA_ASSIGN_OR_RETURN(s.combiner, lc.ScalarFunction(scatter->called()));
  s.unique = TrueAttribute(scatter, "unique_indices");
  s.sorted = TrueAttribute(scatter, "indices_are_sorted");
  if (s.count == 1) s.atomic_op = CombinerOp(*scatter->called());
  return s;
}

// The operand element an update element goes to: the start its index
// vector gives plus its window position, and the check that the whole
// window fits (else XLA skips the update).
struct Destination {
  std::vector<Val> raw_index;  // the index vector's values, as read
  std::vector<Val> fits;       // predicates; all hold when it fits
  std::vector<Val> out;        // the operand index (valid when it fits)
};

Result<Destination> DestinationOf(LoweringContext& lc, BlockBuilder& bb,
                                  const ScatterInfo& s,
                                  const std::vector<Val>& uidx) {
  ElementalEmitter ee(&lc, &bb);
  std::vector<Val> scatter_index;
  for (size_t d = 0; d < s.udims.size(); ++d) {
    if (std::find(s.window_dims.begin(), s.window_dims.end(),
                  static_cast<int64_t>(d)) == s.window_dims.end()) {
      scatter_index.push_back(uidx[d]);
    }
  }
  Destination t;
  std::vector<Val> start(s.odims.size(), ir::Index(0));
  for (size_t k = 0; k < s.to_operand.size(); ++k) {
    std::vector<Val> iidx = scatter_index;
    if (s.index_vector_dim < s.indices->shape.rank()) {
      iidx.insert(iidx.begin() + s.index_vector_dim,
                  ir::Index(static_cast<int64_t>(k)));
    }
    IXA_ASSIGN_OR_RETURN(Val raw, ee.EmitOne(s.indices, iidx));
    raw = bb.Bind("ix", raw);
    t.raw_index.push_back(raw);
    start[s.to_operand[k]] = bb.Bind(
        "start", ir::Op(OpCode::kToIndex, Type::kIndex, {raw}, raw->type));
  }
  std::vector<Val> bounded, window(s.odims.size(), ir::Index(0));
  for (size_t d = 0; d < s.odims.size(); ++d) {
    const int64_t last = s.odims[d] - s.window_size[d];
    if (start[d]->kind == ir::NodeKind::kConst) {
      bounded.push_back(start[d]);
      continue;
    }
    t.fits.push_back(ir::Op(OpCode::kGe, Type::kPred, {start[d], ir::Index(0)},
                            Type::kIndex));
    t.fits.push_back(ir::Op(OpCode::kLe, Type::kPred,
                            {start[d], ir::Index(last)}, Type::kIndex));
    // Within the check the start is in range: say so to the index maps.
    bounded.push_back(ir::Op(OpCode::kClampIndex, Type::kIndex,
                             {start[d], ir::Index(0), ir::Index(last)}));
  }
  for (size_t w = 0; w < s.window_dims.size(); ++w) {
    window[s.window_operand_dims[w]] = uidx[s.window_dims[w]];
  }
  std::vector<Val> operands = bounded;
  operands.insert(operands.end(), window.begin(), window.end());
  std::vector<Expr> sums;
  const int rank = static_cast<int>(s.odims.size());
  for (int d = 0; d < rank; ++d) {
    sums.push_back(lc.ctx()->Dim(d) + lc.ctx()->Dim(rank + d));
  }
  for (const Val& v : ApplyExprs(lc, operands, sums)) {
    t.out.push_back(bb.Bind("out", v));
  }
  return t;
}

// `body` under the check that the target fits.
Status IfFits(BlockBuilder& bb, const Destination& t,
              const std::function<Status()>& body) {
  bb.Open();
  Status ok = body();
  ir::Block then = bb.Close();
  if (!ok.ok()) return ok;
  bb.Add(ir::If(ir::AllOf(t.fits), std::move(then)));
  return Status();
}

// The update values at update index `uidx`, one per operand.
Result<std::vector<Val>> UpdateValues(LoweringContext& lc, BlockBuilder& bb,
                                      const ScatterInfo& s,
                                      const std::vector<Val>& uidx) {
  ElementalEmitter ee(&lc, &bb);
  std::vector<Val> values;
  for (const Instruction* u : s.updates) {
    IXA_ASSIGN_OR_RETURN(Val v, ee.EmitOne(u, uidx));
    values.push_back(v);
  }
  return values;
}

// out = combiner(out, values) with plain loads and stores: for a thread
// no other thread meets at that element.
void CombineInPlace(BlockBuilder& bb, const ScatterInfo& s,
                    const std::vector<Val>& out,
                    const std::vector<Val>& values) {
  std::vector<Val> args;
  for (int j = 0; j < s.count; ++j) {
    args.push_back(bb.Bind("old", ir::Load(s.buffers[j], s.types[j], out)));
  }
  args.insert(args.end(), values.begin(), values.end());
  std::vector<std::string> results;
  for (int j = 0; j < s.count; ++j) results.push_back(bb.Fresh("new"));
  bb.Add(ir::Call(s.combiner, args, results, s.types));
  for (int j = 0; j < s.count; ++j) {
    bb.Add(ir::Store(s.buffers[j], out, ir::Var(results[j], s.types[j])));
  }
}

void CombineAtomically(BlockBuilder& bb, const ScatterInfo& s,
                       const std::vector<Val>& out, const Val& value) {
  ir::Stmt atomic = ir::Atomic(s.buffers[0], ir::Index(0), value, s.combiner);
  atomic.flat = false;
  atomic.indices = out;
  atomic.atomic_op = s.atomic_op;
  bb.Add(std::move(atomic));
}

// The sorted form needs XLA's simplified scatter: the updates' only
// scatter dim is their first, the index vectors the rows of the indices.
bool RowsOfUpdates(const ScatterInfo& s) {
  if (s.indices->shape.rank() != 2 || s.index_vector_dim != 1) return false;
  for (size_t w = 0; w < s.window_dims.size(); ++w) {
    if (s.window_dims[w] != static_cast<int64_t>(w) + 1) return false;
  }
  return s.window_dims.size() + 1 == s.udims.size();
}

// Sorted indices: the thread of row r starts a run when r is a multiple
// of kSortedChunk or row r - 1 has other indices; it folds the rows after
// it with the same indices (up to the next multiple) in registers, then
// makes one atomic update. Threads of other rows do nothing.
Status EmitSortedRun(LoweringContext& lc, BlockBuilder& bb,
                     const ScatterInfo& s, const std::vector<Val>& uidx) {
  ElementalEmitter ee(&lc, &bb);
  ExprContext* ctx = lc.ctx();
  const int64_t rows = s.udims[0];
  const Val& row = uidx[0];
  IXA_ASSIGN_OR_RETURN(Destination t, DestinationOf(lc, bb, s, uidx));
  // (row) -> (row mod C, max(row - 1, 0)): the position in the chunk and
  // the previous row (row 0 starts a chunk, so its clamped one is unused).
  std::vector<Val> at = ApplyExprs(lc, {row}, {ctx->Dim(0) % kSortedChunk});
  Val prev = ir::Op(OpCode::kClampIndex, Type::kIndex,
                    {ApplyExprs(lc, {row}, {ctx->Dim(0) - 1})[0], ir::Index(0),
                     ir::Index(std::max<int64_t>(rows - 1, 0))});
  std::vector<Val> same_as_prev = {
      ir::Op(OpCode::kNe, Type::kPred, {at[0], ir::Index(0)}, Type::kIndex)};
  for (size_t k = 0; k < t.raw_index.size(); ++k) {
    IXA_ASSIGN_OR_RETURN(
        Val p,
        ee.EmitOne(s.indices, {prev, ir::Index(static_cast<int64_t>(k))}));
    same_as_prev.push_back(Equal(p, t.raw_index[k]));
  }
  bb.Open();
  Status ok = IfFits(bb, t, [&]() -> Status {
    IXA_ASSIGN_OR_RETURN(std::vector<Val> first, UpdateValues(lc, bb, s, uidx));
    Val acc = bb.DeclareVar("acc", first[0]);
    Val go = bb.DeclareVar("run", ir::Const(Type::kPred, 1));
    const std::string k = bb.Fresh("k");
    Val kv = ir::Var(k, Type::kIndex, Interval{1, kSortedChunk - 1});
    bb.Open();
    // (row, k) -> (row + k, row mod C + k): the next row and its place.
    std::vector<Val> next = ApplyExprs(
        lc, {row, kv},
        {ctx->Dim(0) + ctx->Dim(1), ctx->Dim(0) % kSortedChunk + ctx->Dim(1)});
    Val next_row =
        bb.Bind("next", ir::Op(OpCode::kClampIndex, Type::kIndex,
                               {next[0], ir::Index(0), ir::Index(rows - 1)}));
    std::vector<Val> cond = {go, Less(next[0], rows),
                             Less(next[1], kSortedChunk)};
    for (size_t j = 0; j < t.raw_index.size(); ++j) {
      IXA_ASSIGN_OR_RETURN(
          Val v, ee.EmitOne(s.indices,
                            {next_row, ir::Index(static_cast<int64_t>(j))}));
      cond.push_back(Equal(v, t.raw_index[j]));
    }
    std::vector<Val> nidx = uidx;
    nidx[0] = next_row;
    bb.Open();
    IXA_ASSIGN_OR_RETURN(std::vector<Val> more, UpdateValues(lc, bb, s, nidx));
    const std::string folded = bb.Fresh("fold");
    bb.Add(ir::Call(s.combiner, {acc, more[0]}, {folded}, s.types));
    bb.Add(ir::Assign(acc->name, ir::Var(folded, s.types[0])));
    ir::Block fold = bb.Close();
    bb.Add(ir::If(ir::AllOf(cond), std::move(fold),
                  {ir::Assign(go->name, ir::Const(Type::kPred, 0))}));
    ir::Block loop = bb.Close();
    bb.Add(ir::For(k, 1, kSortedChunk, std::move(loop)));
    CombineAtomically(bb, s, t.out, acc);
    return Status();
  });
  ir::Block start_run = bb.Close();
  if (!ok.ok()) return ok;
  bb.Add(ir::If(ir::AllOf(same_as_prev), {}, std::move(start_run)));
  return Status();
}

// One update element at `uidx`, by the scheme the scatter takes.
Status EmitUpdate(LoweringContext& lc, BlockBuilder& bb, const ScatterInfo& s,
                  const std::vector<Val>& uidx, bool atomic) {
  IXA_ASSIGN_OR_RETURN(Destination t, DestinationOf(lc, bb, s, uidx));
  return IfFits(bb, t, [&]() -> Status {
    IXA_ASSIGN_OR_RETURN(std::vector<Val> values,
                         UpdateValues(lc, bb, s, uidx));
    if (atomic) {
      CombineAtomically(bb, s, t.out, values[0]);
    } else {
      CombineInPlace(bb, s, t.out, values);
    }
    return Status();
  });
}

// Loops over every index of `dims` (the last innermost), then `body`.
Status ForEachIndex(
    BlockBuilder& bb, const std::vector<int64_t>& dims, std::vector<Val>& idx,
    const std::function<Status(const std::vector<Val>&)>& body) {
  if (idx.size() == dims.size()) return body(idx);
  const int64_t n = dims[idx.size()];
  const std::string name = bb.Fresh("u");
  idx.push_back(ir::Var(name, Type::kIndex, Interval{0, n - 1}));
  bb.Open();
  Status ok = ForEachIndex(bb, dims, idx, body);
  ir::Block inner = bb.Close();
  idx.pop_back();
  if (!ok.ok()) return ok;
  bb.Add(ir::For(name, 0, n, std::move(inner)));
  return Status();
}

}  // namespace

Status BuildScatter(LoweringContext& lc, BlockBuilder& bb) {
  const EmitterPlan& plan = lc.plan();
  std::vector<Val> ids = GridIds(plan.launch);
  if (plan.roots.size() != 1) {
    return Error::Unsupported("emit: a scatter fusion with several roots");
  }
  const RootPlan& r = plan.roots[0];
  IXA_ASSIGN_OR_RETURN(ScatterInfo s, DescribeScatter(lc, r));
  const std::string out_name = lc.module().buffers[s.buffers[0]].name;
  if (s.count > 1 && !s.unique) {
    bb.Add(ir::Comment(
        "variadic scatter: no atomic updates a tuple of elements, so one "
        "thread applies every update in order, with " +
        s.scatter->called()->name()));
    std::vector<Val> first;
    for (const Val& id : ids) {
      first.push_back(Equal(id, ir::Index(0)));
    }
    bb.Open();
    std::vector<Val> idx;
    Status ok = ForEachIndex(
        bb, s.udims, idx, [&](const std::vector<Val>& uidx) -> Status {
          return EmitUpdate(lc, bb, s, uidx, /*atomic=*/false);
        });
    ir::Block serial = bb.Close();
    if (!ok.ok()) return ok;
    bb.Add(ir::If(ir::AllOf(first), std::move(serial)));
    return Status();
  }
  std::shared_ptr<const IndexingMap> map =
      lc.Intern(*r.hero_operand_maps[s.count + 1]);
  const bool sorted_runs = !s.unique && s.sorted && RowsOfUpdates(s);
  bb.Add(ir::Comment(
      std::string(s.unique      ? "unique indices: each update element is "
                                  "combined into "
                  : sorted_runs ? "sorted indices: each run of equal indices "
                                  "is folded, then combined atomically into "
                                : "each update element is combined "
                                  "atomically into ") +
      out_name + " with " + s.scatter->called()->name() + " (" +
      ir::AtomicOpName(s.atomic_op) + ")"));
  return ForEachPoint(
      lc, bb, map, ids, [&](const std::vector<Val>& ops) -> Status {
        std::vector<Val> uidx;
        for (const Val& v : lc.ApplyAll(map, ops)) {
          uidx.push_back(bb.Bind("upd", v));
        }
        if (sorted_runs) return EmitSortedRun(lc, bb, s, uidx);
        return EmitUpdate(lc, bb, s, uidx, /*atomic=*/!s.unique);
      });
}

}  // namespace ixa::emit::emitters
