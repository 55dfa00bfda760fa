// Elementwise ops, broadcast, transpose, reverse, tuple, get-tuple-element:
// the maps that only permute, drop or add dimensions.
#include <algorithm>

#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {

Result<Indexing> ElementwiseOutToIn(const Instruction& in, int output_id,
                                    ExprContext* ctx) {
  const std::vector<int64_t>& dims = OutputDims(in, output_id);
  std::vector<IndexingMap> maps;
  for (const Instruction* o : in.operands) {
    // A scalar operand of a non-scalar op (select's predicate, clamp's
    // bounds) is read at the same place for every output element.
    if (o->shape.IsScalar() && !dims.empty()) {
      maps.push_back(ScalarMap(ctx, dims));
    } else {
      maps.push_back(IndexingMap::Identity(ctx, dims));
    }
  }
  return FromMaps(std::move(maps));
}

Result<Indexing> ElementwiseInToOut(const Instruction& in, int operand,
                                    ExprContext* ctx) {
  const std::vector<int64_t>& dims = in.shape.dims;
  if (in.operand(operand)->shape.IsScalar() && !dims.empty()) {
    return FromMaps({EverywhereMap(ctx, dims)});
  }
  return FromMaps({IndexingMap::Identity(ctx, dims)});
}

Result<Indexing> BroadcastOutToIn(const Instruction& in, ExprContext* ctx) {
  std::vector<Expr> results;
  for (int64_t d : in.dimensions) results.push_back(ctx->Dim(d));
  return FromMaps({MakeMap(ctx, in.shape.dims, {}, std::move(results))});
}

Result<Indexing> BroadcastInToOut(const Instruction& in, ExprContext* ctx) {
  // Added dims become range variables: one input element feeds a whole
  // slab of the output.
  const std::vector<int64_t>& out = in.shape.dims;
  std::vector<Expr> results(out.size());
  std::vector<int64_t> range_sizes;
  for (size_t i = 0; i < in.dimensions.size(); ++i) {
    results[in.dimensions[i]] = ctx->Dim(i);
  }
  for (size_t j = 0; j < out.size(); ++j) {
    if (results[j]) continue;
    results[j] = ctx->Symbol(range_sizes.size());
    range_sizes.push_back(out[j]);
  }
  return FromMaps({MakeMap(ctx, in.operand(0)->shape.dims, range_sizes,
                           std::move(results))});
}

Result<Indexing> TransposeOutToIn(const Instruction& in, ExprContext* ctx) {
  // Output dim i is input dim perm[i].
  const std::vector<int64_t>& perm = in.dimensions;
  std::vector<Expr> results(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) results[perm[i]] = ctx->Dim(i);
  return FromMaps({MakeMap(ctx, in.shape.dims, {}, std::move(results))});
}

Result<Indexing> TransposeInToOut(const Instruction& in, ExprContext* ctx) {
  const std::vector<int64_t>& perm = in.dimensions;
  std::vector<Expr> results;
  for (int64_t p : perm) results.push_back(ctx->Dim(p));
  return FromMaps(
      {MakeMap(ctx, in.operand(0)->shape.dims, {}, std::move(results))});
}

Result<Indexing> ReverseIndexing(const Instruction& in, ExprContext* ctx) {
  // Its own inverse: the same map in both directions.
  const std::vector<int64_t>& dims = in.shape.dims;
  std::vector<Expr> results;
  for (size_t i = 0; i < dims.size(); ++i) {
    bool reversed = std::find(in.dimensions.begin(), in.dimensions.end(),
                              static_cast<int64_t>(i)) != in.dimensions.end();
    // Element d of a reversed dim is n - 1 - d: without n, no map.
    if (reversed && dims[i] == hlo::kUnboundedDim) {
      return Unsupported(in,
                         "a reverse along an unbounded dynamic dimension "
                         "(?) reads relative to a size it does not have");
    }
    results.push_back(reversed ? -ctx->Dim(i) + (dims[i] - 1) : ctx->Dim(i));
  }
  return FromMaps({MakeMap(ctx, dims, {}, std::move(results))});
}

Result<Indexing> TupleOutToIn(const Instruction& in, int output_id,
                              ExprContext* ctx) {
  Indexing out;
  out.indexing_maps.resize(in.operand_count());
  IndexingMap m = IndexingMap::Identity(ctx, OutputDims(in, output_id));
  FinishMap(&m);
  out.indexing_maps[output_id].Insert(std::move(m));
  return out;
}

Result<Indexing> TupleInToOut(const Instruction& in, int operand,
                              ExprContext* ctx) {
  Indexing out;
  out.indexing_maps.resize(OutputCount(in));
  IndexingMap m = IndexingMap::Identity(ctx, OutputDims(in, operand));
  FinishMap(&m);
  out.indexing_maps[operand].Insert(std::move(m));
  return out;
}

Result<Indexing> GetTupleElementIndexing(const Instruction& in,
                                         ExprContext* ctx) {
  // The map addresses element `index` of the tuple operand; callers that
  // walk graphs (fusion.cc) route it to that output of the producer.
  if (!in.shape.IsArray()) {
    return Unsupported(in, "nested tuples are not indexed");
  }
  return FromMaps({IndexingMap::Identity(ctx, in.shape.dims)});
}

Result<Indexing> SortIndexing(const Instruction& in, int id, ExprContext* ctx) {
  // Where an element ends up along the sort dim depends on every key of
  // that row: the sort dim becomes a range variable, for every operand
  // (the comparator may read them all). The relation is symmetric.
  const std::vector<int64_t>& dims = in.operand(0)->shape.dims;
  if (in.dimensions.size() != 1 || in.dimensions[0] < 0 ||
      in.dimensions[0] >= static_cast<int64_t>(dims.size())) {
    return Unsupported(in, "sort needs dimensions={d} within the rank");
  }
  (void)id;
  const int64_t d = in.dimensions[0];
  std::vector<Expr> results;
  for (size_t i = 0; i < dims.size(); ++i) {
    results.push_back(static_cast<int64_t>(i) == d ? ctx->Symbol(0)
                                                   : ctx->Dim(i));
  }
  IndexingMap m = MakeMap(ctx, dims, std::vector<int64_t>{dims[d]}, results);
  // Out -> in: one entry per operand; in -> out: one per output.
  const size_t n = std::max<size_t>(in.operand_count(), OutputCount(in));
  return FromMaps(std::vector<IndexingMap>(n, m));
}

Result<Indexing> AddDependencyIndexing(const Instruction& in,
                                       ExprContext* ctx) {
  // add-dependency passes operand 0 through (the token orders, it is not
  // read); get-dimension-size reads no element at all.
  Indexing out;
  out.indexing_maps.resize(in.operand_count());
  if (in.opcode == hlo::Opcode::kAddDependency && in.shape.IsArray()) {
    IndexingMap m = IndexingMap::Identity(ctx, in.shape.dims);
    FinishMap(&m);
    out.indexing_maps[0].Insert(std::move(m));
  }
  return out;
}

}  // namespace ixa::indexing_internal
