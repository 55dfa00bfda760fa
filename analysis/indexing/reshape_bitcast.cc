// Reshape and bitcast (docs/indexing.md §3 "Reshape", "Bitcast").
#include <algorithm>

#include "analysis/hlo/physical_layout.h"
#include "analysis/indexing/internal.h"
#include "hw/xla_layout.h"

namespace ixa {
namespace {

// sum_i exprs[i] * stride_i, row-major over sizes.
Expr LinearIndex(std::span<const Expr> exprs, std::span<const int64_t> sizes,
                 ExprContext* ctx) {
  Expr linear = ctx->Constant(0);
  int64_t stride = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    linear = linear + exprs[k] * stride;
    stride *= sizes[k];
  }
  return linear;
}

// The multi-index of `linear` over sizes, assuming it is in bounds (so the
// outermost component needs no mod). Trivial divisions are not built.
std::vector<Expr> Delinearize(Expr linear, std::span<const int64_t> sizes,
                              ExprContext* ctx) {
  std::vector<Expr> result(sizes.size());
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) {
    for (Expr& e : result) e = ctx->Constant(0);
    return result;
  }
  int64_t stride = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    if (sizes[k] == 1) {
      result[k] = ctx->Constant(0);
      continue;
    }
    Expr e = stride == 1 ? linear : linear.FloorDiv(stride);
    result[k] = k == 0 ? e : e % sizes[k];
    stride *= sizes[k];
  }
  return result;
}

// One group of dims whose element counts match (XLA's
// ComputeMinimalReshapeIndexing).
void MinimalReshape(std::span<const int64_t> input_dims,
                    std::span<const int64_t> output_dims,
                    std::span<const Expr> output_exprs,
                    std::vector<Expr>* exprs, ExprContext* ctx) {
  if (input_dims.size() == 1 && output_dims.size() == 1) {
    exprs->push_back(output_exprs[0]);
    return;
  }
  if (input_dims.size() == 1) {  // expand
    exprs->push_back(LinearIndex(output_exprs, output_dims, ctx));
    return;
  }
  Expr linear = output_dims.size() == 1
                    ? output_exprs[0]
                    : LinearIndex(output_exprs, output_dims, ctx);
  for (Expr e : Delinearize(linear, input_dims, ctx)) exprs->push_back(e);
}

}  // namespace

IndexingMap ComputeReshapeIndexingMap(const std::vector<int64_t>& input_dims,
                                      const std::vector<int64_t>& output_dims,
                                      ExprContext* ctx) {
  std::vector<Expr> dim_exprs;
  for (size_t i = 0; i < output_dims.size(); ++i) {
    dim_exprs.push_back(ctx->Dim(i));
  }
  std::vector<Expr> exprs;
  int64_t in_elems = 1, out_elems = 1;
  std::vector<int64_t> in_sub, out_sub;
  size_t in_id = 0, out_id = 0;
  const size_t in_rank = input_dims.size(), out_rank = output_dims.size();
  // Grow the input and output groups until their element counts meet, then
  // map the group (size-1 dims join the current group).
  while (in_id < in_rank || out_id < out_rank || !in_sub.empty()) {
    if (in_id < in_rank &&
        (in_sub.empty() || in_elems < out_elems || input_dims[in_id] == 1)) {
      in_elems *= input_dims[in_id];
      in_sub.push_back(input_dims[in_id++]);
      continue;
    }
    if (out_id < out_rank &&
        (out_sub.empty() || out_elems < in_elems || output_dims[out_id] == 1)) {
      out_elems *= output_dims[out_id];
      out_sub.push_back(output_dims[out_id++]);
      continue;
    }
    std::span<const Expr> group(dim_exprs.data() + out_id - out_sub.size(),
                                out_sub.size());
    MinimalReshape(in_sub, out_sub, group, &exprs, ctx);
    in_elems = out_elems = 1;
    in_sub.clear();
    out_sub.clear();
  }
  // Whatever is left on the output side are size-1 dims with no input.
  return IndexingMap::FromTensorSizes(ctx, std::move(exprs), output_dims, {});
}

namespace indexing_internal {
namespace {

bool HasTiledLayout(const hlo::Shape& s) {
  return s.layout &&
         (!s.layout->tiles.empty() || s.layout->element_size_bits != 0);
}

// A bitcast between tiled layouts (hw's layout maps): logical `from` ->
// offset in `from`'s tiled buffer -> the logical index of `to` stored at
// that offset (padding offsets hold no element: the inverse map's
// constraints leave them out).
Result<IndexingMap> TiledBitcastMap(const Instruction& in,
                                    const hlo::Shape& from,
                                    const hlo::Shape& to, ExprContext* ctx) {
  hw::XlaShape xf = hlo::ToXlaShape(from);
  hw::XlaShape xt = hlo::ToXlaShape(to);
  if (xf.ElementBits() != xt.ElementBits()) {
    return Unsupported(in, "a tiled bitcast between element sizes");
  }
  auto info_from = hw::AnalyzeTiledLayout(xf, ctx);
  auto info_to = hw::AnalyzeTiledLayout(xt, ctx);
  for (const auto* info : {&info_from, &info_to}) {
    if (!info->ok()) {
      return Unsupported(in, "tiled layout: " + info->error().message);
    }
  }
  if (info_from->physical_elements != info_to->physical_elements) {
    return Unsupported(
        in, "the tiled buffers differ in size (" +
                std::to_string(info_from->physical_elements) + " and " +
                std::to_string(info_to->physical_elements) + " elements)");
  }
  auto inverse = hw::InverseTiledLayoutMap(xt, ctx);
  if (!inverse.ok()) return Unsupported(in, inverse.error().message);
  IXA_ASSIGN_OR_RETURN(IndexingMap m,
                       ComposeIndexingMaps(info_from->map, *inverse));
  return m;
}

// out -> in of a bitcast: logical out -> physical out, a row-major reshape
// of the physical shapes, physical in -> logical in (the
// transpose-reshape-transpose decomposition); through the tiled layout
// maps when either side is tiled.
Result<IndexingMap> BitcastMap(const Instruction& in, const hlo::Shape& from,
                               const hlo::Shape& to, ExprContext* ctx) {
  if (HasTiledLayout(from) || HasTiledLayout(to))
    return TiledBitcastMap(in, from, to, ctx);
  if (from.ElementCount() != to.ElementCount()) {
    return Unsupported(in, "the element count changes");
  }
  std::vector<int64_t> m2m_from = from.MinorToMajor();
  std::vector<int64_t> m2m_to = to.MinorToMajor();
  const int rf = from.rank(), rt = to.rank();
  std::vector<Expr> phys_from;
  for (int i = 0; i < rf; ++i)
    phys_from.push_back(ctx->Dim(m2m_from[rf - 1 - i]));
  IndexingMap reshape =
      ComputeReshapeIndexingMap(to.PhysicalDims(), from.PhysicalDims(), ctx);
  std::vector<Expr> results(rt);
  for (int i = 0; i < rt; ++i) {
    results[m2m_to[rt - 1 - i]] =
        Substitute(reshape.results()[i], phys_from, {});
  }
  return MakeMap(ctx, from.dims, {}, std::move(results));
}

}  // namespace

Result<Indexing> ReshapeOutToIn(const Instruction& in, ExprContext* ctx) {
  return FromMaps({ComputeReshapeIndexingMap(in.operand(0)->shape.dims,
                                             in.shape.dims, ctx)});
}

Result<Indexing> ReshapeInToOut(const Instruction& in, ExprContext* ctx) {
  return FromMaps({ComputeReshapeIndexingMap(in.shape.dims,
                                             in.operand(0)->shape.dims, ctx)});
}

Result<Indexing> BitcastOutToIn(const Instruction& in, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap m,
                       BitcastMap(in, in.shape, in.operand(0)->shape, ctx));
  return FromMaps({std::move(m)});
}

Result<Indexing> BitcastInToOut(const Instruction& in, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap m,
                       BitcastMap(in, in.operand(0)->shape, in.shape, ctx));
  return FromMaps({std::move(m)});
}

namespace {

// The map from the narrower side (one extra minor dim) to the wider side,
// and the one back (a range variable over that minor dim).
IndexingMap DropMinor(std::span<const int64_t> narrow, ExprContext* ctx) {
  std::vector<Expr> results;
  for (size_t i = 0; i + 1 < narrow.size(); ++i) results.push_back(ctx->Dim(i));
  return MakeMap(ctx, narrow, {}, std::move(results));
}

IndexingMap AddMinor(std::span<const int64_t> wide, int64_t ratio,
                     ExprContext* ctx) {
  std::vector<Expr> results;
  for (size_t i = 0; i < wide.size(); ++i) results.push_back(ctx->Dim(i));
  results.push_back(ctx->Symbol(0));
  return MakeMap(ctx, wide, std::vector<int64_t>{ratio}, std::move(results));
}

Result<IndexingMap> BitcastConvertMap(const Instruction& in,
                                      const hlo::Shape& from,
                                      const hlo::Shape& to, ExprContext* ctx) {
  int fb = hlo::ElementBits(from.type), tb = hlo::ElementBits(to.type);
  if (fb == tb || from.dims == to.dims) {
    return IndexingMap::Identity(ctx, from.dims);
  }
  if (fb == 0 || tb == 0)
    return Unsupported(in, "an element type without bits");
  // `from` narrower: it has the extra minor dim and reads one wide element.
  if (fb < tb) return DropMinor(from.dims, ctx);
  return AddMinor(from.dims, fb / tb, ctx);
}

}  // namespace

Result<Indexing> BitcastConvertOutToIn(const Instruction& in,
                                       ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(
      IndexingMap m,
      BitcastConvertMap(in, in.shape, in.operand(0)->shape, ctx));
  return FromMaps({std::move(m)});
}

Result<Indexing> BitcastConvertInToOut(const Instruction& in,
                                       ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(
      IndexingMap m,
      BitcastConvertMap(in, in.operand(0)->shape, in.shape, ctx));
  return FromMaps({std::move(m)});
}

Result<Indexing> DynamicReshapeOutToIn(const Instruction& in,
                                       ExprContext* ctx) {
  // The row-major linearization never reads the most major dim's size, so
  // the reshape of the bounds is exact when only dim 0 (of either side) is
  // dynamic. A size operand that is a constant equal to its bound makes
  // that dim static.
  const hlo::Shape& src = in.operand(0)->shape;
  const hlo::Shape& out = in.shape;
  if (in.operand_count() != out.rank() + 1) {
    return Unsupported(in, "dynamic-reshape takes one size per output dim");
  }
  auto dynamic_minor = [](const hlo::Shape& s, auto is_static) {
    for (int i = 1; i < s.rank(); ++i) {
      if (s.IsDynamicDim(i) && !is_static(i)) return true;
    }
    return false;
  };
  auto src_static = [](int) { return false; };
  auto out_static = [&](int i) {
    const Instruction* size = in.operand(i + 1);
    return size->opcode == hlo::Opcode::kConstant && size->int_value &&
           *size->int_value == out.dims[i];
  };
  if (dynamic_minor(src, src_static) || dynamic_minor(out, out_static)) {
    return Unsupported(in,
                       "a dynamic dim other than the most major one "
                       "changes the linearization at run time");
  }
  std::vector<IndexingMap> maps;
  maps.push_back(ComputeReshapeIndexingMap(src.dims, out.dims, ctx));
  for (int i = 1; i < in.operand_count(); ++i) {
    maps.push_back(ScalarMap(ctx, out.dims));
  }
  return FromMaps(std::move(maps));
}

}  // namespace indexing_internal
}  // namespace ixa
