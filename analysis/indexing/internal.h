// Per-family builders behind ComputeOutputToInputIndexing /
// ComputeInputToOutputIndexing. Internal to analysis/.
#ifndef IXA_ANALYSIS_INDEXING_INTERNAL_H_
#define IXA_ANALYSIS_INDEXING_INTERNAL_H_

#include <span>
#include <string>
#include <vector>

#include "analysis/indexing/indexing.h"

namespace ixa::indexing_internal {

using hlo::Instruction;
using Indexing = HloInstructionIndexing;

// Whether `v` lists `x`.
inline bool Contains(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t y : v) {
    if (y == x) return true;
  }
  return false;
}

// The dims below `rank` that are neither batch nor contracting (nor in
// `skip`): a dot operand's free dims, in order.
std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting,
                              const std::vector<int64_t>& skip = {});

// A dim or range variable with the given bounds.
inline Variable Var(Interval bounds) {
  Variable v;
  v.bounds = bounds;
  return v;
}

// Dims in [0, n-1] for each size, range vars likewise; results as given.
IndexingMap MakeMap(ExprContext* ctx, std::span<const int64_t> dims,
                    std::span<const int64_t> range_sizes,
                    std::vector<Expr> results);
// (d...) -> () over dims.
IndexingMap ScalarMap(ExprContext* ctx, std::span<const int64_t> dims);
// ()[s...] -> (s...): a value that feeds every element of dims.
IndexingMap EverywhereMap(ExprContext* ctx, std::span<const int64_t> dims);
// Finishes every map and wraps each in its own set.
Indexing FromMaps(std::vector<IndexingMap> maps);
Error Unsupported(const Instruction& instr, const std::string& why = "");
Error BadOperand(const Instruction& instr, int operand_id);

// elementwise_broadcast.cc
Result<Indexing> ElementwiseOutToIn(const Instruction& in, int output_id,
                                    ExprContext* ctx);
Result<Indexing> ElementwiseInToOut(const Instruction& in, int operand,
                                    ExprContext* ctx);
Result<Indexing> BroadcastOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> BroadcastInToOut(const Instruction& in, ExprContext* ctx);
Result<Indexing> TransposeOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> TransposeInToOut(const Instruction& in, ExprContext* ctx);
Result<Indexing> ReverseIndexing(const Instruction& in, ExprContext* ctx);
Result<Indexing> TupleOutToIn(const Instruction& in, int output_id,
                              ExprContext* ctx);
Result<Indexing> TupleInToOut(const Instruction& in, int operand,
                              ExprContext* ctx);
Result<Indexing> GetTupleElementIndexing(const Instruction& in,
                                         ExprContext* ctx);
// sort: every output element reads the whole sort dimension of every
// operand (a range variable over it); the same map in both directions.
Result<Indexing> SortIndexing(const Instruction& in, int id, ExprContext* ctx);
// add-dependency (data, token) and get-dimension-size (reads no element).
Result<Indexing> AddDependencyIndexing(const Instruction& in, ExprContext* ctx);

// reshape_bitcast.cc
Result<Indexing> ReshapeOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> ReshapeInToOut(const Instruction& in, ExprContext* ctx);
Result<Indexing> BitcastOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> BitcastInToOut(const Instruction& in, ExprContext* ctx);
// bitcast-convert; between widths the narrower side has an extra minor dim.
Result<Indexing> BitcastConvertOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> BitcastConvertInToOut(const Instruction& in, ExprContext* ctx);
// dynamic-reshape: the row-major reshape of the bounds when only the most
// major dims are dynamic (the linearization never reads their size).
Result<Indexing> DynamicReshapeOutToIn(const Instruction& in, ExprContext* ctx);

// slice_pad_concat.cc
Result<Indexing> SliceOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> SliceInToOut(const Instruction& in, ExprContext* ctx);
// Output (padded) -> input map of one pad configuration; not finished.
IndexingMap PadMap(std::span<const int64_t> input_dims,
                   std::span<const hlo::PadDim> padding,
                   std::span<const int64_t> output_dims, ExprContext* ctx);
// Input -> padded output map of one pad configuration (elements cut by
// negative padding are excluded); not finished.
IndexingMap PadInputMap(std::span<const int64_t> input_dims,
                        std::span<const hlo::PadDim> padding,
                        std::span<const int64_t> output_dims, ExprContext* ctx);
Result<Indexing> PadOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> PadInToOut(const Instruction& in, int operand,
                            ExprContext* ctx);
Result<Indexing> ConcatenateOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> ConcatenateInToOut(const Instruction& in, int operand,
                                    ExprContext* ctx);

// reduce_dot_window.cc
Result<Indexing> ReduceOutToIn(const Instruction& in, int output_id,
                               ExprContext* ctx);
Result<Indexing> ReduceInToOut(const Instruction& in, int operand,
                               ExprContext* ctx);
Result<Indexing> ReduceWindowOutToIn(const Instruction& in, int output_id,
                                     ExprContext* ctx);
Result<Indexing> ReduceWindowInToOut(const Instruction& in, int operand,
                                     ExprContext* ctx);
Result<Indexing> DotOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> DotInToOut(const Instruction& in, int operand,
                            ExprContext* ctx);
Result<Indexing> ConvolutionOutToIn(const Instruction& in, ExprContext* ctx);
// dot_variants.cc
Result<Indexing> ScaledDotOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> RaggedDotOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> ConvolutionInToOut(const Instruction& in, int operand,
                                    ExprContext* ctx);

// gather_dynamic.cc
Result<Indexing> DynamicSliceOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> DynamicSliceInToOut(const Instruction& in, int operand,
                                     ExprContext* ctx);
Result<Indexing> DynamicUpdateSliceOutToIn(const Instruction& in,
                                           ExprContext* ctx);
Result<Indexing> DynamicUpdateSliceInToOut(const Instruction& in, int operand,
                                           ExprContext* ctx);

// gather_scatter.cc
Result<Indexing> GatherOutToIn(const Instruction& in, ExprContext* ctx);
Result<Indexing> ScatterOutToIn(const Instruction& in, int output_id,
                                ExprContext* ctx);
Result<Indexing> ScatterInToOut(const Instruction& in, int operand,
                                ExprContext* ctx);

// runtime_vars.cc
// A runtime value read from `producer` at the element `read` names (a map
// over the consumer's dims and leading range variables), feasible in
// `feasible`. XLA folds some: a constant read at a constant index is its
// value, an iota read is the index along its dimension (following bitcast,
// broadcast, reshape, reverse, slice, transpose, copy and convert to the
// constant or iota). A folded value is used only when its range lies in
// `feasible`; otherwise the runtime variable stays, linked to the last
// producer reached. `clamped`: the op clamps the value into `feasible`
// (gather's start indices), so an iota's index (through element-moving
// ops) outside it is used clamped, `min(v, hi)` / `max(v, lo)`, exactly.
// Returns the expression to use: the folded one, or the symbol
// `first_symbol + rt_vars->size()` after appending the variable.
Expr RuntimeValue(const Instruction& producer, IndexingMap read,
                  Interval feasible, int first_symbol,
                  std::vector<Variable>* rt_vars, bool clamped = false);
// The runtime variables of `m` (a map of `fusion`'s output to an operand)
// whose producer is a parameter of the fused computation read the fusion's
// operand of that parameter instead, as XLA's OptimizeRTVar follows a
// parameter to its fusion operand: RuntimeValue again, so a constant or an
// iota there folds away.
void ResolveFusionParameterRtVars(const Instruction& fusion, IndexingMap* m);

// collectives.cc
// all_gather_per_source: IndexingOptions::all_gather_per_source.
Result<Indexing> CollectiveOutToIn(const Instruction& in, int output_id,
                                   ExprContext* ctx,
                                   bool all_gather_per_source);
Result<Indexing> CollectiveInToOut(const Instruction& in, int operand,
                                   ExprContext* ctx);

// scan.cc
Result<Indexing> ScanOutToIn(const Instruction& in, int output_id,
                             ExprContext* ctx);
Result<Indexing> ScanInToOut(const Instruction& in, int operand,
                             ExprContext* ctx);

// inverse.cc
// The exact inverse relation of an output -> input map f over an operand
// with dims in_dims: (d_in)[o..., s...]{rt} -> (o...) with
// f(o, s, rt) = d_in, equalities solved where a range variable can be
// isolated. Not finished.
Result<IndexingMap> InvertMap(const IndexingMap& f,
                              std::span<const int64_t> in_dims);
// Input -> output maps of any op from its output -> input maps (per output
// of the op).
Result<Indexing> InverseOfOutToIn(const Instruction& in, int operand,
                                  ExprContext* ctx);
// pm with its symbols replaced through repl (a producer map's symbols are
// the leading range variables of `owner`, the map holding the variable).
IndexingMap RenumberProducerMap(const IndexingMap& pm,
                                const std::vector<Expr>& repl,
                                const IndexingMap& owner);
// ComposeIndexingMaps, with the runtime variables' producer maps reading
// the composed map's symbols at their new positions.
Result<IndexingMap> ComposeWithProducers(const IndexingMap& first,
                                         const IndexingMap& second);
// Symbols of `m` read by its runtime variables' producer maps.
std::vector<bool> ProducerMapSymbols(const IndexingMap& m);

// analysis/fusion/fusion.cc: fusion and call through their computation.
Result<Indexing> FusionOutToIn(const Instruction& in, int output_id,
                               ExprContext* ctx);
Result<Indexing> FusionInToOut(const Instruction& in, int operand,
                               ExprContext* ctx);

}  // namespace ixa::indexing_internal

#endif  // IXA_ANALYSIS_INDEXING_INTERNAL_H_
