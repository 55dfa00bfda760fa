// Slice, pad and concatenate: offsets, strides and the domains they cut.
#include <algorithm>

#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {

Result<Indexing> SliceOutToIn(const Instruction& in, ExprContext* ctx) {
  std::vector<Expr> results;
  for (size_t i = 0; i < in.slice.size(); ++i) {
    results.push_back(ctx->Dim(i) * in.slice[i].stride + in.slice[i].start);
  }
  return FromMaps({MakeMap(ctx, in.shape.dims, {}, std::move(results))});
}

Result<Indexing> SliceInToOut(const Instruction& in, ExprContext* ctx) {
  // Only input elements on the stride grid inside [start, limit) have an
  // output: the dims are narrowed and a mod constraint keeps the grid.
  // The grid's last element comes from the slice's own bounds: the output
  // dim may be `?` (and then has no size to count with).
  std::vector<Variable> dims;
  std::vector<Expr> results;
  std::vector<Constraint> constraints;
  for (size_t i = 0; i < in.slice.size(); ++i) {
    const hlo::SliceDim& s = in.slice[i];
    Expr d = ctx->Dim(i);
    // Elements start, start + stride, ... below limit: the last is at most
    // limit - 1, so nothing overflows; an empty slice gives [start,
    // start - 1].
    const int64_t last = s.limit > s.start ? s.start + (s.limit - s.start - 1) /
                                                           s.stride * s.stride
                                           : s.start - 1;
    dims.push_back(Var(Interval{s.start, last}));
    Expr shifted = d - s.start;
    if (s.stride == 1) {
      results.push_back(shifted);
    } else {
      results.push_back(shifted.FloorDiv(s.stride));
      constraints.push_back({shifted % s.stride, Interval{0, 0}});
    }
  }
  return FromMaps({IndexingMap(ctx, std::move(dims), {}, {}, std::move(results),
                               std::move(constraints))});
}

IndexingMap PadMap(std::span<const int64_t> input_dims,
                   std::span<const hlo::PadDim> padding,
                   std::span<const int64_t> output_dims, ExprContext* ctx) {
  std::vector<Variable> dims;
  std::vector<Expr> results;
  std::vector<Constraint> constraints;
  for (size_t i = 0; i < input_dims.size(); ++i) {
    const hlo::PadDim& p = padding[i];
    const int64_t step = p.interior + 1;
    Expr shifted = ctx->Dim(i) - p.low;
    // Output positions that hold input elements: low + k * step for k in
    // [0, n-1], cut to the output (negative padding removes elements).
    Interval hit{p.low, p.low + (input_dims[i] - 1) * step};
    dims.push_back(Var(hit.Intersect(Interval{0, output_dims[i] - 1})));
    if (step == 1) {
      results.push_back(shifted);
    } else {
      results.push_back(shifted.FloorDiv(step));
      constraints.push_back({shifted % step, Interval{0, 0}});
    }
  }
  return IndexingMap(ctx, std::move(dims), {}, {}, std::move(results),
                     std::move(constraints));
}

Result<Indexing> PadOutToIn(const Instruction& in, ExprContext* ctx) {
  return FromMaps(
      {PadMap(in.operand(0)->shape.dims, in.padding, in.shape.dims, ctx),
       ScalarMap(ctx, in.shape.dims)});
}

IndexingMap PadInputMap(std::span<const int64_t> input_dims,
                        std::span<const hlo::PadDim> padding,
                        std::span<const int64_t> output_dims,
                        ExprContext* ctx) {
  std::vector<Expr> results;
  std::vector<Constraint> constraints;
  for (size_t i = 0; i < padding.size(); ++i) {
    const hlo::PadDim& p = padding[i];
    Expr r = ctx->Dim(i) * (p.interior + 1) + p.low;
    results.push_back(r);
    // Negative padding drops input elements that land outside the output.
    if (p.low < 0 || p.high < 0) {
      constraints.push_back({r, Interval{0, output_dims[i] - 1}});
    }
  }
  IndexingMap m = MakeMap(ctx, input_dims, {}, std::move(results));
  for (const Constraint& c : constraints) m.AddConstraint(c.expr, c.interval);
  return m;
}

Result<Indexing> PadInToOut(const Instruction& in, int operand,
                            ExprContext* ctx) {
  const std::vector<int64_t>& out = in.shape.dims;
  if (operand == 1) return FromMaps({EverywhereMap(ctx, out)});
  return FromMaps(
      {PadInputMap(in.operand(0)->shape.dims, in.padding, out, ctx)});
}

Result<Indexing> ConcatenateOutToIn(const Instruction& in, ExprContext* ctx) {
  const int64_t dim = in.dimensions[0];
  std::vector<IndexingMap> maps;
  int64_t offset = 0;
  for (const Instruction* o : in.operands) {
    // Each operand serves its own band of the output: the domains do not
    // overlap.
    std::vector<Variable> dims;
    std::vector<Expr> results;
    for (int i = 0; i < in.shape.rank(); ++i) {
      int64_t n = in.shape.dims[i];
      if (i == dim) {
        int64_t size = o->shape.dims[i];
        dims.push_back(Var(Interval{offset, offset + size - 1}));
        results.push_back(ctx->Dim(i) - offset);
      } else {
        dims.push_back(Var(Interval{0, n - 1}));
        results.push_back(ctx->Dim(i));
      }
    }
    maps.emplace_back(ctx, std::move(dims), std::vector<Variable>{},
                      std::vector<Variable>{}, std::move(results));
    offset += o->shape.dims[dim];
  }
  return FromMaps(std::move(maps));
}

Result<Indexing> ConcatenateInToOut(const Instruction& in, int operand,
                                    ExprContext* ctx) {
  const int64_t dim = in.dimensions[0];
  int64_t offset = 0;
  for (int k = 0; k < operand; ++k) offset += in.operand(k)->shape.dims[dim];
  std::vector<Expr> results;
  for (int i = 0; i < in.shape.rank(); ++i) {
    results.push_back(i == dim ? ctx->Dim(i) + offset : ctx->Dim(i));
  }
  return FromMaps(
      {MakeMap(ctx, in.operand(operand)->shape.dims, {}, std::move(results))});
}

}  // namespace ixa::indexing_internal
