// Dynamic-slice, dynamic-update-slice and (canonical) gather: maps with
// runtime variables, each linked to the instruction that produces its value
// (Variable::producer) and the element of it that is read
// (Variable::producer_map).
#include <algorithm>
#include <memory>

#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {
namespace {

// A runtime offset read from `producer` at the element given by
// producer_map, feasible in [0, max_offset].
Variable RuntimeOffset(const Instruction& producer, IndexingMap producer_map,
                       int64_t max_offset) {
  FinishMap(&producer_map);
  Variable v;
  v.bounds = Interval{0, max_offset};
  v.producer = producer.name;
  v.producer_map = std::make_shared<const IndexingMap>(std::move(producer_map));
  return v;
}

// `base + offset_i` (sign +1) or `base - offset_i` (sign -1) per dim, where
// offset_i is operand first_offset + i. A constant offset is folded after
// the clamping HLO applies (XLA keeps offsets within [0, max]).
IndexingMap OffsetMap(const Instruction& in, int first_offset,
                      const std::vector<int64_t>& domain,
                      const std::vector<int64_t>& max_offsets, int sign,
                      ExprContext* ctx) {
  std::vector<Variable> dims, rt_vars;
  for (int64_t n : domain) dims.push_back(Var(Interval{0, n - 1}));
  std::vector<Expr> results;
  for (size_t i = 0; i < max_offsets.size(); ++i) {
    const Instruction* off = in.operand(first_offset + i);
    Expr offset;
    if (off->opcode == "constant" && off->int_value) {
      offset = ctx->Constant(
          std::clamp<int64_t>(*off->int_value, 0, max_offsets[i]));
    } else {
      offset = ctx->Symbol(rt_vars.size());
      rt_vars.push_back(
          RuntimeOffset(*off, ScalarMap(ctx, domain), max_offsets[i]));
    }
    Expr d = ctx->Dim(i);
    results.push_back(sign > 0 ? d + offset : d - offset);
  }
  return IndexingMap(ctx, std::move(dims), {}, std::move(rt_vars),
                     std::move(results));
}

}  // namespace

Result<Indexing> DynamicSliceOutToIn(const Instruction& in, ExprContext* ctx) {
  const std::vector<int64_t>& src = in.operand(0)->shape.dims;
  std::vector<int64_t> max_offsets;
  for (size_t i = 0; i < src.size(); ++i) {
    max_offsets.push_back(src[i] - in.dynamic_slice_sizes[i]);
  }
  std::vector<IndexingMap> maps;
  maps.push_back(OffsetMap(in, 1, in.shape.dims, max_offsets, +1, ctx));
  for (int i = 1; i < in.operand_count(); ++i) {
    maps.push_back(ScalarMap(ctx, in.shape.dims));
  }
  return FromMaps(std::move(maps));
}

Result<Indexing> DynamicSliceInToOut(const Instruction& in, int operand,
                                     ExprContext* ctx) {
  if (operand > 0) return FromMaps({EverywhereMap(ctx, in.shape.dims)});
  // src index d lands at d - offset when that is inside the slice.
  const std::vector<int64_t>& src = in.operand(0)->shape.dims;
  std::vector<int64_t> max_offsets;
  for (size_t i = 0; i < src.size(); ++i) {
    max_offsets.push_back(src[i] - in.dynamic_slice_sizes[i]);
  }
  IndexingMap m = OffsetMap(in, 1, src, max_offsets, -1, ctx);
  for (size_t i = 0; i < src.size(); ++i) {
    m.AddConstraint(m.results()[i], Interval{0, in.shape.dims[i] - 1});
  }
  return FromMaps({std::move(m)});
}

Result<Indexing> DynamicUpdateSliceOutToIn(const Instruction& in,
                                           ExprContext* ctx) {
  const std::vector<int64_t>& out = in.shape.dims;
  const std::vector<int64_t>& upd = in.operand(1)->shape.dims;
  std::vector<int64_t> max_offsets;
  for (size_t i = 0; i < out.size(); ++i)
    max_offsets.push_back(out[i] - upd[i]);
  std::vector<IndexingMap> maps;
  maps.push_back(IndexingMap::Identity(ctx, out));
  maps.push_back(OffsetMap(in, 2, out, max_offsets, -1, ctx));
  for (int i = 2; i < in.operand_count(); ++i) {
    maps.push_back(ScalarMap(ctx, out));
  }
  return FromMaps(std::move(maps));
}

Result<Indexing> DynamicUpdateSliceInToOut(const Instruction& in, int operand,
                                           ExprContext* ctx) {
  const std::vector<int64_t>& out = in.shape.dims;
  if (operand == 0) return FromMaps({IndexingMap::Identity(ctx, out)});
  if (operand >= 2) return FromMaps({EverywhereMap(ctx, out)});
  const std::vector<int64_t>& upd = in.operand(1)->shape.dims;
  std::vector<int64_t> max_offsets;
  for (size_t i = 0; i < out.size(); ++i)
    max_offsets.push_back(out[i] - upd[i]);
  return FromMaps({OffsetMap(in, 2, upd, max_offsets, +1, ctx)});
}

Result<Indexing> GatherOutToIn(const Instruction& in, ExprContext* ctx) {
  // Only the canonical form of XLA's gather simplifier: indices [N, K] with
  // index_vector_dim=1, start_index_map={0..K-1}, no collapsed or batching
  // dims, offset_dims={1..rank}: output (n, o...) reads operand
  // (o_i + indices[n, i]).
  const hlo::GatherDimensionNumbers& g = in.gather;
  const hlo::Shape& operand = in.operand(0)->shape;
  const hlo::Shape& indices = in.operand(1)->shape;
  const int64_t rank = operand.rank();
  bool canonical =
      indices.rank() == 2 && g.index_vector_dim == 1 &&
      g.collapsed_slice_dims.empty() && g.operand_batching_dims.empty() &&
      static_cast<int64_t>(g.offset_dims.size()) == rank &&
      indices.dims[1] <= rank &&
      static_cast<int64_t>(g.start_index_map.size()) == indices.dims[1] &&
      in.shape.rank() == rank + 1 && in.shape.dims[0] == indices.dims[0];
  for (int64_t i = 0; canonical && i < rank; ++i) {
    canonical =
        g.offset_dims[i] == i + 1 && in.shape.dims[i + 1] == in.slice_sizes[i];
  }
  for (size_t i = 0; canonical && i < g.start_index_map.size(); ++i) {
    canonical = g.start_index_map[i] == static_cast<int64_t>(i);
  }
  if (!canonical) {
    return Unsupported(in,
                       "only the canonical gather (XLA's gather "
                       "simplifier form) is indexed");
  }
  const std::vector<int64_t>& out = in.shape.dims;
  const int64_t k = indices.dims[1];
  std::vector<Variable> dims, rt_vars;
  for (int64_t n : out) dims.push_back(Var(Interval{0, n - 1}));
  std::vector<Expr> results;
  for (int64_t i = 0; i < rank; ++i) {
    Expr e = ctx->Dim(i + 1);
    if (i < k) {
      IndexingMap read = MakeMap(ctx, out, {}, {ctx->Dim(0), ctx->Constant(i)});
      rt_vars.push_back(RuntimeOffset(*in.operand(1), std::move(read),
                                      operand.dims[i] - in.slice_sizes[i]));
      e = e + ctx->Symbol(i);
    }
    results.push_back(e);
  }
  IndexingMap operand_map(ctx, std::move(dims), {}, std::move(rt_vars),
                          std::move(results));
  IndexingMap indices_map =
      MakeMap(ctx, out, std::vector<int64_t>{k}, {ctx->Dim(0), ctx->Symbol(0)});
  return FromMaps({std::move(operand_map), std::move(indices_map)});
}

}  // namespace ixa::indexing_internal
