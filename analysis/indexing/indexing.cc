// Dispatch by opcode and the helpers shared by the per-family files.
#include "analysis/indexing/indexing.h"

#include <algorithm>
#include <memory>

#include "analysis/hlo/custom_calls.h"
#include "analysis/indexing/internal.h"
#include "simplifier/decide.h"
#include "simplifier/simplify.h"

namespace ixa {

using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

namespace {

// Runtime variables must name the same producers read the same way for two
// maps to be the same access.
bool SameRuntimeSources(const IndexingMap& a, const IndexingMap& b) {
  if (a.num_rt_vars() != b.num_rt_vars()) return false;
  for (int i = 0; i < a.num_rt_vars(); ++i) {
    const Variable& x = a.rt_vars()[i];
    const Variable& y = b.rt_vars()[i];
    if (x.producer != y.producer || !x.producer_map != !y.producer_map) {
      return false;
    }
    if (x.producer_map && *x.producer_map != *y.producer_map) return false;
  }
  return true;
}

// Budget for proving two differently-written maps equal; on exhaustion the
// maps are kept apart (never wrongly merged).
constexpr int64_t kDedupBudget = 20000;

}  // namespace

// Deduplicates maps that are equal as maps, not just as text: structural
// equality first (cheap), then the exact equivalence decision.
bool IndexingMapSet::Insert(IndexingMap map) {
  for (const IndexingMap& m : maps_) {
    if (m == map) return false;
  }
  for (const IndexingMap& m : maps_) {
    if (ProvenEquivalent(m, map)) return false;
  }
  maps_.push_back(std::move(map));
  return true;
}

namespace {

// Maps of their dims alone (no range or runtime variables) are functions: a
// point where one is in its domain and the other is not, or both are and
// their results differ, refutes equivalence without the decision
// procedure. The points tried are the corners of both dim boxes and each
// box's corners with one dim at the other end. A fusion whose paths fan out
// (a DAG of reverses and pads) keeps thousands of such maps per
// instruction, and every insertion compares the new map with each of them:
// decided by the procedure, 40 levels took 270 s.
bool DisagreeSomewhere(const IndexingMap& a, const IndexingMap& b) {
  if (a.num_symbols() != 0 || b.num_symbols() != 0 || a.IsKnownEmpty() ||
      b.IsKnownEmpty()) {
    return false;
  }
  const int n = a.num_dims();
  auto differ_at = [&](const std::vector<int64_t>& point) {
    auto in_a = a.InDomain(point, {});
    auto in_b = b.InDomain(point, {});
    if (!in_a.ok() || !in_b.ok()) return false;
    if (*in_a != *in_b) return true;
    if (!*in_a) return false;
    auto ra = a.Evaluate(point, {});
    auto rb = b.Evaluate(point, {});
    return ra.ok() && rb.ok() && *ra != *rb;
  };
  for (const IndexingMap* m : {&a, &b}) {
    std::vector<int64_t> lo(n), hi(n);
    for (int i = 0; i < n; ++i) {
      lo[i] = m->dims()[i].bounds.lower;
      hi[i] = m->dims()[i].bounds.upper;
    }
    if (differ_at(lo) || differ_at(hi)) return true;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> p = lo;
      p[i] = hi[i];
      if (differ_at(p)) return true;
    }
  }
  return false;
}

}  // namespace

bool IndexingMapSet::ProvenEquivalent(const IndexingMap& kept,
                                      const IndexingMap& candidate) {
  if (kept.num_dims() != candidate.num_dims() ||
      kept.num_range_vars() != candidate.num_range_vars() ||
      kept.num_results() != candidate.num_results() ||
      !SameRuntimeSources(kept, candidate) ||
      DisagreeSomewhere(kept, candidate)) {
    return false;
  }
  DecideOptions options;
  options.budget = kDedupBudget;
  auto eq = Equivalent(kept, candidate, options);
  return eq.ok() && eq->equivalent;
}

IndexingMapSet IndexingMapSet::FromDistinct(std::vector<IndexingMap> maps) {
  IndexingMapSet set;
  set.maps_ = std::move(maps);
  return set;
}

bool IndexingMapSet::Duplicates(const IndexingMap& kept,
                                const IndexingMap& candidate) {
  return kept == candidate || ProvenEquivalent(kept, candidate);
}

namespace {

// Rewrites every producer map's symbols through `repl` (old outer symbol ->
// new outer symbol).
void RenumberProducerMaps(IndexingMap* map, const std::vector<Expr>& repl) {
  for (Variable& v : map->mutable_rt_vars()) {
    if (!v.producer_map || v.producer_map->num_symbols() == 0) continue;
    v.producer_map = std::make_shared<const IndexingMap>(
        indexing_internal::RenumberProducerMap(*v.producer_map, repl, *map));
  }
}

// RemoveUnusedSymbols that keeps the symbols producer maps read and
// renumbers those maps. The kept symbols ride along as extra results while
// the unused ones are erased, which reveals their new positions.
void RemoveUnusedSymbolsKeepingProducers(IndexingMap* map) {
  std::vector<bool> pinned = indexing_internal::ProducerMapSymbols(*map);
  pinned.resize(map->num_range_vars());
  if (std::find(pinned.begin(), pinned.end(), true) == pinned.end()) {
    map->RemoveUnusedSymbols();
    return;
  }
  ExprContext* ctx = map->context();
  const int num_results = map->num_results();
  const int num_symbols = map->num_symbols();
  for (size_t i = 0; i < pinned.size(); ++i) {
    if (pinned[i]) map->mutable_results().push_back(ctx->Symbol(i));
  }
  bool removed = map->RemoveUnusedSymbols();
  if (map->IsKnownEmpty()) {
    map->mutable_results().resize(num_results);
    return;
  }
  std::vector<Expr> repl(num_symbols, ctx->Constant(0));
  int extra = num_results;
  for (size_t i = 0; i < pinned.size(); ++i) {
    if (pinned[i]) repl[i] = map->results()[extra++];
  }
  map->mutable_results().resize(num_results);
  if (removed) RenumberProducerMaps(map, repl);
}

}  // namespace

void FinishMap(IndexingMap* map) {
  SimplifyOptions options;
  options.preserve_point_variables = true;
  Simplify(map, options);
  RemoveUnusedSymbolsKeepingProducers(map);
  // Composition gives runtime producers maps over the outer map's symbols
  // too; most do not use them (an offset read at `()`), so tidy them. Only
  // trailing symbols go: the others are positions in the outer map.
  for (Variable& v : map->mutable_rt_vars()) {
    if (v.producer_map && v.producer_map->num_symbols() > 0) {
      IndexingMap tidy = *v.producer_map;
      Simplify(&tidy);
      std::vector<bool> dims, used;
      for (Expr e : tidy.results()) CollectVariables(e, &dims, &used);
      for (const Constraint& c : tidy.constraints()) {
        CollectVariables(c.expr, &dims, &used);
      }
      used.resize(tidy.num_symbols());
      std::vector<bool> erase(tidy.num_symbols(), false);
      for (int i = tidy.num_symbols(); i-- > 0 && !used[i];) erase[i] = true;
      tidy.EraseSymbols(erase);
      v.producer_map = std::make_shared<const IndexingMap>(std::move(tidy));
    }
  }
}

const Shape& OutputShape(const Instruction& instr, int output_id) {
  if (instr.shape.IsTuple() && output_id >= 0 &&
      output_id < static_cast<int>(instr.shape.tuple_elements.size())) {
    return instr.shape.tuple_elements[output_id];
  }
  return instr.shape;
}

const std::vector<int64_t>& OutputDims(const Instruction& instr,
                                       int output_id) {
  return OutputShape(instr, output_id).dims;
}

int OutputCount(const Instruction& instr) {
  return instr.shape.IsTuple()
             ? static_cast<int>(instr.shape.tuple_elements.size())
             : 1;
}

namespace indexing_internal {

IndexingMap MakeMap(ExprContext* ctx, std::span<const int64_t> dims,
                    std::span<const int64_t> range_sizes,
                    std::vector<Expr> results) {
  return IndexingMap::FromTensorSizes(ctx, std::move(results), dims,
                                      range_sizes);
}

IndexingMap ScalarMap(ExprContext* ctx, std::span<const int64_t> dims) {
  return MakeMap(ctx, dims, {}, {});
}

IndexingMap EverywhereMap(ExprContext* ctx, std::span<const int64_t> dims) {
  std::vector<Expr> results;
  for (size_t i = 0; i < dims.size(); ++i) results.push_back(ctx->Symbol(i));
  return MakeMap(ctx, {}, dims, std::move(results));
}

Indexing FromMaps(std::vector<IndexingMap> maps) {
  Indexing out;
  for (IndexingMap& m : maps) {
    FinishMap(&m);
    out.indexing_maps.emplace_back();
    out.indexing_maps.back().Insert(std::move(m));
  }
  return out;
}

Error Unsupported(const Instruction& instr, const std::string& why) {
  std::string msg =
      "no indexing map for '" + OpcodeName(instr) + "' ('" + instr.name + "')";
  if (!why.empty()) msg += ": " + why;
  return Error::Unsupported(msg);
}

Error BadOperand(const Instruction& instr, int operand_id) {
  return Error::Invalid("'" + instr.name + "' has no operand " +
                        std::to_string(operand_id) + " (it has " +
                        std::to_string(instr.operand_count()) + ")");
}

}  // namespace indexing_internal

void HloInstructionIndexing::SetUnknown(size_t i, std::string reason) {
  if (indexing_maps.size() <= i) indexing_maps.resize(i + 1);
  if (unknown.size() <= i) unknown.resize(i + 1);
  indexing_maps[i] = IndexingMapSet();
  if (i < replica_maps.size()) replica_maps[i] = IndexingMapSet();
  unknown[i] = std::move(reason);
}

std::string NoMapReason(const Instruction& in) {
  const Opcode op = in.opcode;
  if (op == Opcode::kCustomCall) {
    return "a custom call: what it reads is up to its target";
  }
  if (op == Opcode::kWhile) {
    return "a loop: its body may read any element of the state on any "
           "iteration";
  }
  if (op == Opcode::kConditional) {
    return "the branch taken, and so what is read, is chosen at run time";
  }
  if (op == Opcode::kFft) {
    return "every output element of an FFT mixes the whole transformed "
           "dimensions";
  }
  if (op == Opcode::kRng || op == Opcode::kRngBitGenerator ||
      op == Opcode::kRngGetAndUpdateState) {
    return "random number generation reads no operand element per output "
           "element";
  }
  if (hlo::IsAsyncHalf(op)) {
    return "an asynchronous wrapper: the wrapped work runs apart from it";
  }
  if (op == Opcode::kSend || op == Opcode::kRecv) {
    return "a transfer to or from another program";
  }
  if (op == Opcode::kInfeed || op == Opcode::kOutfeed)
    return "a transfer with the host";
  if (op == Opcode::kTriangularSolve) {
    return "each element of a triangular solve depends on the whole "
           "triangle";
  }
  if (op == Opcode::kCholesky) {
    return "each element of a Cholesky factor depends on the whole matrix";
  }
  if (op == Opcode::kSelectAndScatter) {
    return "where each source element lands is selected at run time";
  }
  return "";
}

using namespace indexing_internal;  // NOLINT: the dispatch below uses all

namespace {

bool IsCollective(Opcode op) {
  return op == Opcode::kAllReduce || op == Opcode::kAllGather ||
         op == Opcode::kCollectivePermute || op == Opcode::kReduceScatter ||
         op == Opcode::kAllToAll;
}

// Ops whose maps stay valid over `?` dims (no linearization, no sums of
// sizes): their indices just range over [0, INT64_MAX - 1].
bool HandlesUnboundedDims(const Instruction& in) {
  const Opcode op = in.opcode;
  return hlo::IsElementwiseOpcode(op) || op == Opcode::kBroadcast ||
         op == Opcode::kTranspose || op == Opcode::kReverse ||
         op == Opcode::kTuple || op == Opcode::kGetTupleElement ||
         op == Opcode::kReduce || op == Opcode::kDot || op == Opcode::kSlice ||
         op == Opcode::kDynamicSlice || op == Opcode::kAllReduce ||
         op == Opcode::kSort;
}

std::optional<Error> UnboundedGuard(const Instruction& in) {
  bool unbounded = in.shape.HasUnboundedDim();
  for (const Instruction* o : in.operands) {
    unbounded = unbounded || o->shape.HasUnboundedDim();
  }
  if (!unbounded || HandlesUnboundedDims(in)) return std::nullopt;
  return Unsupported(in,
                     "an unbounded dynamic dimension (?) has no size to "
                     "lay indices out with");
}

Result<Indexing> DispatchOutToIn(const Instruction& in, int output_id,
                                 ExprContext* ctx,
                                 const IndexingOptions& options);

// A cuBLAS GEMM or forward cuDNN convolution reads its operands as the dot
// or convolution it computes. Its result (output 0) is that op's output; a
// further operand of the result's shape (the GEMM's C matrix) is read at
// the output index; the workspace (output 1) reads nothing. Other
// operands (a bias vector, scales) stay unknown.
std::optional<Result<Indexing>> LibraryCallOutToIn(
    const Instruction& in, int output_id, ExprContext* ctx,
    const IndexingOptions& options) {
  if (in.opcode != Opcode::kCustomCall) return std::nullopt;
  std::unique_ptr<Instruction> op = hlo::LibraryCallAsOp(in);
  if (!op) return std::nullopt;
  if (output_id > 0) {
    Indexing none;
    none.indexing_maps.resize(in.operand_count());
    return Result<Indexing>(std::move(none));
  }
  Result<Indexing> r = DispatchOutToIn(*op, 0, ctx, options);
  if (!r.ok()) return r;
  Indexing out = std::move(r).value();
  out.indexing_maps.resize(in.operand_count());
  const hlo::Shape& result = op->shape;
  for (int i = 2; i < in.operand_count(); ++i) {
    if (in.operand(i)->shape.Compatible(result)) {
      std::vector<Expr> ids;
      for (int d = 0; d < result.rank(); ++d) ids.push_back(ctx->Dim(d));
      IndexingMap m = MakeMap(ctx, result.dims, {}, std::move(ids));
      FinishMap(&m);
      out.indexing_maps[i].Insert(std::move(m));
    } else {
      out.SetUnknown(i, Unsupported(in, "operand " + std::to_string(i) +
                                            " of a library call (a bias or "
                                            "scale): how it is read is up to "
                                            "the library")
                            .message);
    }
  }
  return Result<Indexing>(std::move(out));
}

Result<Indexing> DispatchOutToIn(const Instruction& in, int output_id,
                                 ExprContext* ctx,
                                 const IndexingOptions& options) {
  const Opcode op = in.opcode;
  if (auto library = LibraryCallOutToIn(in, output_id, ctx, options)) {
    return std::move(*library);
  }
  if (op == Opcode::kParameter || op == Opcode::kConstant ||
      op == Opcode::kIota) {
    return HloInstructionIndexing{};
  }
  if (std::optional<Error> e = UnboundedGuard(in)) return *e;
  if (op == Opcode::kBitcastConvert) return BitcastConvertOutToIn(in, ctx);
  if (hlo::IsElementwiseOpcode(op)) {
    return ElementwiseOutToIn(in, output_id, ctx);
  }
  if (op == Opcode::kBroadcast) return BroadcastOutToIn(in, ctx);
  if (op == Opcode::kTranspose) return TransposeOutToIn(in, ctx);
  if (op == Opcode::kReverse) return ReverseIndexing(in, ctx);
  if (op == Opcode::kTuple) return TupleOutToIn(in, output_id, ctx);
  if (op == Opcode::kGetTupleElement) return GetTupleElementIndexing(in, ctx);
  if (op == Opcode::kReshape) return ReshapeOutToIn(in, ctx);
  if (op == Opcode::kBitcast) return BitcastOutToIn(in, ctx);
  if (op == Opcode::kDynamicReshape) return DynamicReshapeOutToIn(in, ctx);
  if (op == Opcode::kSlice) return SliceOutToIn(in, ctx);
  if (op == Opcode::kPad) return PadOutToIn(in, ctx);
  if (op == Opcode::kConcatenate) return ConcatenateOutToIn(in, ctx);
  if (op == Opcode::kReduce) return ReduceOutToIn(in, output_id, ctx);
  if (op == Opcode::kReduceWindow)
    return ReduceWindowOutToIn(in, output_id, ctx);
  if (op == Opcode::kDot) return DotOutToIn(in, ctx);
  if (op == Opcode::kScaledDot) return ScaledDotOutToIn(in, ctx);
  if (op == Opcode::kRaggedDot) return RaggedDotOutToIn(in, ctx);
  if (op == Opcode::kConvolution) return ConvolutionOutToIn(in, ctx);
  if (op == Opcode::kDynamicSlice) return DynamicSliceOutToIn(in, ctx);
  if (op == Opcode::kDynamicUpdateSlice)
    return DynamicUpdateSliceOutToIn(in, ctx);
  if (op == Opcode::kGather) return GatherOutToIn(in, ctx);
  if (op == Opcode::kScan) return ScanOutToIn(in, output_id, ctx);
  if (op == Opcode::kScatter) return ScatterOutToIn(in, output_id, ctx);
  if (op == Opcode::kSort) return SortIndexing(in, output_id, ctx);
  if (op == Opcode::kFusion || op == Opcode::kCall)
    return FusionOutToIn(in, output_id, ctx);
  if (IsCollective(op)) {
    return CollectiveOutToIn(in, output_id, ctx, options.all_gather_per_source);
  }
  if (op == Opcode::kAddDependency || op == Opcode::kGetDimensionSize) {
    return AddDependencyIndexing(in, ctx);
  }
  std::string why = NoMapReason(in);
  return Unsupported(in,
                     why.empty() ? "the analysis has no map for this op" : why);
}

Result<Indexing> DispatchInToOut(const Instruction& in, int operand_id,
                                 ExprContext* ctx) {
  const Opcode op = in.opcode;
  if (std::optional<Error> e = UnboundedGuard(in)) return *e;
  if (op == Opcode::kBitcastConvert) return BitcastConvertInToOut(in, ctx);
  if (hlo::IsElementwiseOpcode(op)) {
    return ElementwiseInToOut(in, operand_id, ctx);
  }
  if (op == Opcode::kBroadcast) return BroadcastInToOut(in, ctx);
  if (op == Opcode::kTranspose) return TransposeInToOut(in, ctx);
  if (op == Opcode::kReverse) return ReverseIndexing(in, ctx);
  if (op == Opcode::kTuple) return TupleInToOut(in, operand_id, ctx);
  if (op == Opcode::kGetTupleElement) return GetTupleElementIndexing(in, ctx);
  if (op == Opcode::kReshape) return ReshapeInToOut(in, ctx);
  if (op == Opcode::kBitcast) return BitcastInToOut(in, ctx);
  if (op == Opcode::kSlice) return SliceInToOut(in, ctx);
  if (op == Opcode::kPad) return PadInToOut(in, operand_id, ctx);
  if (op == Opcode::kConcatenate)
    return ConcatenateInToOut(in, operand_id, ctx);
  if (op == Opcode::kReduce) return ReduceInToOut(in, operand_id, ctx);
  if (op == Opcode::kDot) return DotInToOut(in, operand_id, ctx);
  if (op == Opcode::kDynamicSlice)
    return DynamicSliceInToOut(in, operand_id, ctx);
  if (op == Opcode::kDynamicUpdateSlice) {
    return DynamicUpdateSliceInToOut(in, operand_id, ctx);
  }
  if (op == Opcode::kReduceWindow)
    return ReduceWindowInToOut(in, operand_id, ctx);
  if (op == Opcode::kConvolution)
    return ConvolutionInToOut(in, operand_id, ctx);
  if (op == Opcode::kScan) return ScanInToOut(in, operand_id, ctx);
  if (op == Opcode::kScatter) return ScatterInToOut(in, operand_id, ctx);
  if (op == Opcode::kSort) return SortIndexing(in, operand_id, ctx);
  if (op == Opcode::kFusion || op == Opcode::kCall)
    return FusionInToOut(in, operand_id, ctx);
  if (op == Opcode::kAllReduce || op == Opcode::kAllGather ||
      op == Opcode::kCollectivePermute || op == Opcode::kReduceScatter) {
    return CollectiveInToOut(in, operand_id, ctx);
  }
  if (std::string why = NoMapReason(in); !why.empty()) {
    return Unsupported(in, why);
  }
  // Everything else with an output-to-input map (gather, all-to-all,
  // scaled-dot, ...): its exact inverse relation. Ops without one answer
  // unknown.
  return InverseOfOutToIn(in, operand_id, ctx);
}

// An Unsupported error becomes "every entry unknown, for that reason";
// entries the op filled are normalized to `n`.
Result<Indexing> Partial(Result<Indexing> r, size_t n) {
  if (r.ok()) {
    Indexing out = std::move(r).value();
    if (out.indexing_maps.size() < n) out.indexing_maps.resize(n);
    return out;
  }
  if (r.error().code != ErrorCode::kUnsupported) return r.error();
  Indexing out;
  for (size_t i = 0; i < n; ++i) out.SetUnknown(i, r.error().message);
  return out;
}

Result<Indexing> Strict(Result<Indexing> r) {
  if (!r.ok()) return r;
  for (size_t i = 0; i < r->unknown.size(); ++i) {
    if (r->IsUnknown(i)) return Error::Unsupported(r->unknown[i]);
  }
  return r;
}

}  // namespace

Result<HloInstructionIndexing> ComputeOutputToInputIndexingPartial(
    const Instruction& in, int output_id, ExprContext* ctx,
    const IndexingOptions& options) {
  if (output_id == 0 && OutputCount(in) == 0) {
    // An empty tuple (`() tuple()`): no element of it reads any operand
    // element. Ops without maps (`() custom-call(...)`) stay unknown.
    if (std::string why = NoMapReason(in); !why.empty()) {
      return Partial(Unsupported(in, why), in.operand_count());
    }
    if (in.opcode == Opcode::kFusion || in.opcode == Opcode::kCall) {
      return Partial(FusionOutToIn(in, 0, ctx), in.operand_count());
    }
    HloInstructionIndexing none;
    none.indexing_maps.resize(in.operand_count());
    return none;
  }
  if (output_id < 0 || output_id >= OutputCount(in)) {
    return Error::Invalid("'" + in.name + "' has no output " +
                          std::to_string(output_id));
  }
  return Partial(DispatchOutToIn(in, output_id, ctx, options),
                 in.operand_count());
}

Result<HloInstructionIndexing> ComputeInputToOutputIndexingPartial(
    const Instruction& in, int operand_id, ExprContext* ctx) {
  if (operand_id < 0 || operand_id >= in.operand_count()) {
    return BadOperand(in, operand_id);
  }
  return Partial(DispatchInToOut(in, operand_id, ctx), OutputCount(in));
}

Result<HloInstructionIndexing> ComputeOutputToInputIndexing(
    const Instruction& in, int output_id, ExprContext* ctx,
    const IndexingOptions& options) {
  return Strict(
      ComputeOutputToInputIndexingPartial(in, output_id, ctx, options));
}

Result<HloInstructionIndexing> ComputeInputToOutputIndexing(
    const Instruction& in, int operand_id, ExprContext* ctx) {
  return Strict(ComputeInputToOutputIndexingPartial(in, operand_id, ctx));
}

const Shape& IndexedOperandShape(const Instruction& instr, int operand_id) {
  const Shape& shape = instr.operand(operand_id)->shape;
  if (instr.opcode == Opcode::kGetTupleElement && shape.IsTuple() &&
      instr.tuple_index >= 0 &&
      instr.tuple_index < static_cast<int64_t>(shape.tuple_elements.size())) {
    return shape.tuple_elements[instr.tuple_index];
  }
  return shape;
}

Result<IndexingMap> ToPhysicalIndexing(const IndexingMap& map,
                                       const Shape& from, const Shape& to) {
  ExprContext* ctx = map.context();
  if (from.rank() != map.num_dims() || to.rank() != map.num_results()) {
    return Error::Invalid("physical layout: the map does not match the shapes");
  }
  // physical(from) -> logical(from): logical dim m2m[r-1-i] is physical i.
  std::vector<int64_t> m2m_from = from.MinorToMajor();
  int rf = from.rank();
  std::vector<Expr> to_logical(rf);
  for (int i = 0; i < rf; ++i) to_logical[m2m_from[rf - 1 - i]] = ctx->Dim(i);
  IndexingMap phys_to_logical =
      MakeMap(ctx, from.PhysicalDims(), {}, std::move(to_logical));
  // logical(to) -> physical(to).
  std::vector<int64_t> m2m_to = to.MinorToMajor();
  int rt = to.rank();
  std::vector<Expr> to_physical;
  for (int i = 0; i < rt; ++i)
    to_physical.push_back(ctx->Dim(m2m_to[rt - 1 - i]));
  IndexingMap logical_to_phys =
      MakeMap(ctx, to.dims, {}, std::move(to_physical));
  IXA_ASSIGN_OR_RETURN(IndexingMap a,
                       ComposeIndexingMaps(phys_to_logical, map));
  IXA_ASSIGN_OR_RETURN(IndexingMap b, ComposeIndexingMaps(a, logical_to_phys));
  FinishMap(&b);
  return b;
}

}  // namespace ixa
