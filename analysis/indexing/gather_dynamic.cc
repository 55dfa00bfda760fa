// Dynamic-slice and dynamic-update-slice: maps with runtime variables, each
// linked to the instruction that produces its value (Variable::producer) and
// the element of it that is read (Variable::producer_map).
#include <algorithm>
#include <memory>

#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {
namespace {

// `base + offset_i` (sign +1) or `base - offset_i` (sign -1) per dim, where
// offset_i is operand first_offset + i (or element i of the offset vector
// in the legacy form). Offsets read from constants and iotas are folded
// when they lie in [0, max] (RuntimeValue).
IndexingMap OffsetMap(const Instruction& in, int first_offset,
                      const std::vector<int64_t>& domain,
                      const std::vector<int64_t>& max_offsets, int sign,
                      ExprContext* ctx) {
  std::vector<Variable> dims, rt_vars;
  for (int64_t n : domain) dims.push_back(Var(Interval{0, n - 1}));
  const bool vector_form = hlo::OffsetVectorOperand(in) >= 0;
  std::vector<Expr> results;
  for (size_t i = 0; i < max_offsets.size(); ++i) {
    const Instruction* off = in.operand(first_offset + (vector_form ? 0 : i));
    std::vector<Expr> read_at;
    if (vector_form) read_at.push_back(ctx->Constant(i));
    Expr offset =
        RuntimeValue(*off, MakeMap(ctx, domain, {}, std::move(read_at)),
                     Interval{0, max_offsets[i]}, /*first_symbol=*/0, &rt_vars);
    Expr d = ctx->Dim(i);
    results.push_back(sign > 0 ? d + offset : d - offset);
  }
  return IndexingMap(ctx, std::move(dims), {}, std::move(rt_vars),
                     std::move(results));
}

// Output (or update) -> offsets: each offset is read whole; the vector
// form reads every element of its vector.
IndexingMap OffsetOperandMap(const Instruction& in,
                             const std::vector<int64_t>& domain,
                             ExprContext* ctx) {
  if (hlo::OffsetVectorOperand(in) < 0) return ScalarMap(ctx, domain);
  const int64_t n = in.operand(0)->shape.rank();
  return MakeMap(ctx, domain, std::vector<int64_t>{n}, {ctx->Symbol(0)});
}

// An offset (scalar, or an element of the offset vector) feeds every
// output element.
IndexingMap OffsetFeedsAll(const Instruction& in, int operand,
                           ExprContext* ctx) {
  const std::vector<int64_t>& out = in.shape.dims;
  std::vector<Expr> results;
  for (size_t i = 0; i < out.size(); ++i) results.push_back(ctx->Symbol(i));
  return MakeMap(ctx, in.operand(operand)->shape.dims, out, std::move(results));
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
    maps.push_back(OffsetOperandMap(in, in.shape.dims, ctx));
  }
  return FromMaps(std::move(maps));
}

Result<Indexing> DynamicSliceInToOut(const Instruction& in, int operand,
                                     ExprContext* ctx) {
  if (operand > 0) return FromMaps({OffsetFeedsAll(in, operand, ctx)});
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
    maps.push_back(OffsetOperandMap(in, out, ctx));
  }
  return FromMaps(std::move(maps));
}

Result<Indexing> DynamicUpdateSliceInToOut(const Instruction& in, int operand,
                                           ExprContext* ctx) {
  const std::vector<int64_t>& out = in.shape.dims;
  if (operand == 0) return FromMaps({IndexingMap::Identity(ctx, out)});
  if (operand >= 2) return FromMaps({OffsetFeedsAll(in, operand, ctx)});
  const std::vector<int64_t>& upd = in.operand(1)->shape.dims;
  std::vector<int64_t> max_offsets;
  for (size_t i = 0; i < out.size(); ++i)
    max_offsets.push_back(out[i] - upd[i]);
  return FromMaps({OffsetMap(in, 2, upd, max_offsets, +1, ctx)});
}

}  // namespace ixa::indexing_internal
