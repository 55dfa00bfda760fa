// scaled-dot and ragged-dot: a dot whose operands come with block scales,
// and a dot whose lhs is cut into groups by a runtime group_sizes tensor.
//
// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): the scales cover blocks of
// their operand, so a scale is read at `operand index floordiv (operand dim
// / scale dim)` (docs/xla-reference.md §(d)).
//
// ragged-dot(lhs, rhs, group_sizes): lhs_ragged_dims names the lhs dim cut
// into groups. Where that dim is a batch dim the maps are the dot's. Where
// it is a non-contracting dim, the rhs group each lhs row uses is decided by
// the prefix sums of group_sizes at run time, and where it is the
// contracting dim each group's contracting range is: those operands answer
// unknown. group_sizes may decide every group: all of it is read.
#include <algorithm>

#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {
namespace {

// The dot's output -> lhs and -> rhs maps (batch dims, then lhs free, then
// rhs free; contracting dims as shared range variables). Dims listed in
// rhs_skip are neither free nor contracting (ragged-dot's group dim) and
// read as `rhs_skip_value`.
struct DotMaps {
  IndexingMap lhs, rhs;
};

Result<DotMaps> BuildDotMaps(const Instruction& in, const hlo::Shape& lhs,
                             const hlo::Shape& rhs,
                             const std::vector<int64_t>& rhs_skip,
                             ExprContext* ctx) {
  const hlo::DotDimensionNumbers& dn = in.dot;
  const std::vector<int64_t>& out = in.shape.dims;
  const int64_t nb = dn.lhs_batch.size();
  std::vector<int64_t> lhs_free =
      FreeDims(lhs.rank(), dn.lhs_batch, dn.lhs_contracting);
  std::vector<int64_t> rhs_free =
      FreeDims(rhs.rank(), dn.rhs_batch, dn.rhs_contracting, rhs_skip);
  if (dn.lhs_batch.size() != dn.rhs_batch.size() ||
      dn.lhs_contracting.size() != dn.rhs_contracting.size() ||
      static_cast<int64_t>(out.size()) !=
          nb + static_cast<int64_t>(lhs_free.size() + rhs_free.size())) {
    return Error::Invalid("'" + in.name +
                          "': the dot dimension numbers do not fit the shapes");
  }
  std::vector<int64_t> range_sizes;
  for (int64_t c : dn.lhs_contracting) {
    if (c < 0 || c >= lhs.rank()) {
      return Error::Invalid("'" + in.name + "': bad lhs_contracting_dims");
    }
    range_sizes.push_back(lhs.dims[c]);
  }
  auto operand_map = [&](const hlo::Shape& s, const std::vector<int64_t>& batch,
                         const std::vector<int64_t>& contracting,
                         const std::vector<int64_t>& free, int64_t free_base) {
    std::vector<Expr> results(s.rank(), ctx->Constant(0));
    for (int64_t i = 0; i < nb; ++i) results[batch[i]] = ctx->Dim(i);
    for (size_t i = 0; i < contracting.size(); ++i) {
      results[contracting[i]] = ctx->Symbol(i);
    }
    for (size_t i = 0; i < free.size(); ++i) {
      results[free[i]] = ctx->Dim(free_base + i);
    }
    return MakeMap(ctx, out, range_sizes, std::move(results));
  };
  for (int64_t d : dn.lhs_batch) {
    if (d < 0 || d >= lhs.rank()) {
      return Error::Invalid("'" + in.name + "': bad lhs_batch_dims");
    }
  }
  for (int64_t d : dn.rhs_batch) {
    if (d < 0 || d >= rhs.rank()) {
      return Error::Invalid("'" + in.name + "': bad rhs_batch_dims");
    }
  }
  for (int64_t d : dn.rhs_contracting) {
    if (d < 0 || d >= rhs.rank()) {
      return Error::Invalid("'" + in.name + "': bad rhs_contracting_dims");
    }
  }
  return DotMaps{
      operand_map(lhs, dn.lhs_batch, dn.lhs_contracting, lhs_free, nb),
      operand_map(rhs, dn.rhs_batch, dn.rhs_contracting, rhs_free,
                  nb + static_cast<int64_t>(lhs_free.size()))};
}

// The output dims a dot of these two shapes gives.
std::vector<int64_t> DotDims(const Instruction& in, const hlo::Shape& lhs,
                             const hlo::Shape& rhs) {
  const hlo::DotDimensionNumbers& dn = in.dot;
  std::vector<int64_t> dims;
  for (int64_t b : dn.lhs_batch) {
    if (b < 0 || b >= lhs.rank()) return {-1};
    dims.push_back(lhs.dims[b]);
  }
  for (int64_t f : FreeDims(lhs.rank(), dn.lhs_batch, dn.lhs_contracting)) {
    dims.push_back(lhs.dims[f]);
  }
  for (int64_t f : FreeDims(rhs.rank(), dn.rhs_batch, dn.rhs_contracting)) {
    dims.push_back(rhs.dims[f]);
  }
  return dims;
}

// Does `scale` cover `operand` in blocks (same rank, each dim dividing)?
bool Covers(const hlo::Shape& scale, const hlo::Shape& operand) {
  if (scale.IsScalar()) return true;
  if (scale.rank() != operand.rank()) return false;
  for (int i = 0; i < scale.rank(); ++i) {
    if (scale.dims[i] <= 0 || operand.dims[i] % scale.dims[i] != 0) {
      return false;
    }
  }
  return true;
}

// out -> scale: the operand's map with each result divided by the block.
IndexingMap ScaleMap(const IndexingMap& operand_map, const hlo::Shape& operand,
                     const hlo::Shape& scale, ExprContext* ctx) {
  if (scale.IsScalar()) {
    return ScalarMap(ctx, std::vector<int64_t>(operand_map.num_dims(), 0));
  }
  IndexingMap m = operand_map;
  for (int i = 0; i < scale.rank(); ++i) {
    int64_t block = operand.dims[i] / scale.dims[i];
    if (block != 1) m.mutable_results()[i] = m.results()[i].FloorDiv(block);
  }
  return m;
}

}  // namespace

Result<Indexing> ScaledDotOutToIn(const Instruction& in, ExprContext* ctx) {
  if (in.operand_count() != 4) {
    return Unsupported(in, "scaled-dot takes lhs, rhs and their two scales");
  }
  // XLA writes (lhs, rhs, lhs_scale, rhs_scale); accept (lhs, lhs_scale,
  // rhs, rhs_scale) too when only that order fits the shapes.
  int lhs = 0, rhs = 1, lhs_scale = 2, rhs_scale = 3;
  auto fits = [&](int l, int r, int ls, int rs) {
    const hlo::Shape &a = in.operand(l)->shape, &b = in.operand(r)->shape;
    return DotDims(in, a, b) == in.shape.dims &&
           Covers(in.operand(ls)->shape, a) && Covers(in.operand(rs)->shape, b);
  };
  if (!fits(0, 1, 2, 3)) {
    if (!fits(0, 2, 1, 3)) {
      return Unsupported(in,
                         "the scales do not cover their operands in blocks");
    }
    rhs = 2;
    lhs_scale = 1;
  }
  const hlo::Shape &a = in.operand(lhs)->shape, &b = in.operand(rhs)->shape;
  IXA_ASSIGN_OR_RETURN(DotMaps maps, BuildDotMaps(in, a, b, {}, ctx));
  std::vector<IndexingMap> out(4);
  out[lhs_scale] = ScaleMap(maps.lhs, a, in.operand(lhs_scale)->shape, ctx);
  out[rhs_scale] = ScaleMap(maps.rhs, b, in.operand(rhs_scale)->shape, ctx);
  out[lhs] = std::move(maps.lhs);
  out[rhs] = std::move(maps.rhs);
  return FromMaps(std::move(out));
}

Result<Indexing> RaggedDotOutToIn(const Instruction& in, ExprContext* ctx) {
  if (in.operand_count() != 3 || in.ragged.lhs_ragged.size() != 1) {
    return Unsupported(in,
                       "ragged-dot takes lhs, rhs and group_sizes with one "
                       "lhs_ragged_dims entry");
  }
  const hlo::DotDimensionNumbers& dn = in.dot;
  const hlo::Shape& lhs = in.operand(0)->shape;
  const hlo::Shape& rhs = in.operand(1)->shape;
  const hlo::Shape& groups = in.operand(2)->shape;
  const int64_t ragged = in.ragged.lhs_ragged[0];
  const std::vector<int64_t>& out = in.shape.dims;
  // group_sizes: every group size may decide where a row belongs.
  std::vector<Expr> all;
  for (int i = 0; i < groups.rank(); ++i) all.push_back(ctx->Symbol(i));
  IndexingMap group_map = MakeMap(ctx, out, groups.dims, std::move(all));
  Indexing result;
  if (Contains(dn.lhs_batch, ragged)) {
    IXA_ASSIGN_OR_RETURN(DotMaps maps, BuildDotMaps(in, lhs, rhs, {}, ctx));
    return FromMaps(
        {std::move(maps.lhs), std::move(maps.rhs), std::move(group_map)});
  }
  if (Contains(dn.lhs_contracting, ragged)) {
    result = FromMaps({group_map});
    result.indexing_maps.insert(result.indexing_maps.begin(), 2,
                                IndexingMapSet());
    const std::string why =
        Unsupported(in,
                    "each group's contracting range is decided by "
                    "group_sizes at run time")
            .message;
    result.SetUnknown(0, why);
    result.SetUnknown(1, why);
    return result;
  }
  // A ragged non-contracting lhs dim: the rhs group dim is chosen per row.
  IXA_ASSIGN_OR_RETURN(DotMaps maps,
                       BuildDotMaps(in, lhs, rhs, in.ragged.rhs_group, ctx));
  result = FromMaps({std::move(maps.lhs), std::move(group_map)});
  result.indexing_maps.insert(result.indexing_maps.begin() + 1,
                              IndexingMapSet());
  result.SetUnknown(1, Unsupported(in,
                                   "the rhs group each lhs row uses is decided "
                                   "by the prefix sums of group_sizes at run "
                                   "time")
                           .message);
  return result;
}

}  // namespace ixa::indexing_internal
