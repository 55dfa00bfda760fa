// The grid maps of docs/xla-reference.md §(h) h.1: grid dims, delinearize
// in bounds, bitcast maps.
#include <algorithm>

#include "analysis/emitters/internal.h"
#include "analysis/indexing/indexing.h"
#include "analysis/indexing/internal.h"
#include "core/int_math.h"
#include "simplifier/simplify.h"

namespace ixa::emitters {

int64_t CeilDiv(int64_t a, int64_t b) { return a / b + (a % b > 0 ? 1 : 0); }

int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

int64_t Product(std::span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) p = SaturatingMul(p, x);
  return p;
}

std::vector<Variable> GridDims(const LaunchDimensions& launch) {
  static const char* kNames[] = {"th_x", "th_y", "th_z",
                                 "bl_x", "bl_y", "bl_z"};
  std::vector<Variable> dims(6);
  for (int i = 0; i < 3; ++i) {
    dims[i].bounds = {0, launch.threads[i] - 1};
    dims[3 + i].bounds = {0, launch.blocks[i] - 1};
  }
  for (int i = 0; i < 6; ++i) dims[i].name = kNames[i];
  return dims;
}

Variable RangeVar(int64_t size, std::string name) {
  return MakeVariable({0, size - 1}, std::move(name));
}

IndexingMap GridMap(ExprContext* ctx, const LaunchDimensions& launch,
                    std::vector<Variable> ranges, std::vector<Expr> results,
                    std::vector<Constraint> constraints) {
  IndexingMap map(ctx, GridDims(launch), std::move(ranges), {},
                  std::move(results), std::move(constraints));
  Simplify(&map);
  return map;
}

std::vector<Expr> DelinearizeInBounds(Expr linear,
                                      std::span<const int64_t> sizes,
                                      ExprContext* ctx) {
  std::vector<Expr> out(sizes.size(), ctx->Constant(0));
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return out;
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int i = static_cast<int>(sizes.size()) - 2; i >= 0; --i) {
    strides[i] = SaturatingMul(strides[i + 1], sizes[i + 1]);
  }
  bool first = true;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    Expr part = linear.FloorDiv(strides[i]);
    // The linear index is in bounds: the most major non-trivial component
    // needs no mod.
    out[i] = first ? part : part % sizes[i];
    first = false;
  }
  return out;
}

hlo::Shape DescendingShape(const hlo::Shape& like, std::vector<int64_t> dims) {
  return hlo::Shape::Array(like.type, std::move(dims));
}

IndexingMap BitcastMap(const hlo::Shape& from, const hlo::Shape& to,
                       ExprContext* ctx) {
  // from logical -> from physical (major to minor) -> row-major reshape to
  // to's physical dims -> to logical. Empty shapes have no element: 0s.
  if (from.ElementCount() == 0 || to.ElementCount() == 0) {
    return IndexingMap::FromTensorSizes(
        ctx, std::vector<Expr>(to.rank(), ctx->Constant(0)), from.dims, {});
  }
  const std::vector<int64_t> from_m2m = from.MinorToMajor();
  const std::vector<int64_t> to_m2m = to.MinorToMajor();
  const std::vector<int64_t> from_phys = from.PhysicalDims();
  const std::vector<int64_t> to_phys = to.PhysicalDims();
  // ComputeReshapeIndexingMap(input, output) maps an output index to the
  // input index: here output = from's physical shape, input = to's.
  IndexingMap reshape = ComputeReshapeIndexingMap(to_phys, from_phys, ctx);
  const int from_rank = from.rank(), to_rank = to.rank();
  std::vector<Expr> phys_of_logical(from_rank);
  for (int k = 0; k < from_rank; ++k) {
    phys_of_logical[k] = ctx->Dim(from_m2m[from_rank - 1 - k]);
  }
  std::vector<Expr> results(to_rank);
  for (int k = 0; k < to_rank; ++k) {
    results[to_m2m[to_rank - 1 - k]] =
        Substitute(reshape.results()[k], phys_of_logical, {});
  }
  std::vector<Constraint> constraints;
  for (const Constraint& c : reshape.constraints()) {
    constraints.push_back(
        {Substitute(c.expr, phys_of_logical, {}), c.interval});
  }
  IndexingMap map =
      IndexingMap::FromTensorSizes(ctx, std::move(results), from.dims, {});
  map.SetConstraints(std::move(constraints));
  Simplify(&map);
  return map;
}

Result<IndexingMap> ComposeSimplified(const IndexingMap& first,
                                      const IndexingMap& second) {
  IXA_ASSIGN_OR_RETURN(IndexingMap map,
                       indexing_internal::ComposeWithProducers(first, second));
  Simplify(&map);
  return map;
}

std::vector<std::optional<IndexingMap>> OwnOperandMaps(
    const Instruction& root, const IndexingMap& output, ExprContext* ctx) {
  std::vector<std::optional<IndexingMap>> out(root.operand_count());
  auto maps = ComputeOutputToInputIndexing(root, 0, ctx);
  if (!maps.ok()) return out;
  for (int i = 0; i < root.operand_count(); ++i) {
    if (i >= static_cast<int>(maps->indexing_maps.size())) break;
    const IndexingMapSet& set = maps->indexing_maps[i];
    if (set.size() != 1) continue;
    auto composed = ComposeSimplified(output, set.maps()[0]);
    if (composed.ok()) out[i] = std::move(composed).value();
  }
  return out;
}

}  // namespace ixa::emitters
