#include "emit/emitters/shared_tile_access.h"

#include "hw/swizzle_search.h"
#include "simplifier/simplify.h"

namespace ixa::emit::emitters {

using ir::Type;
using ir::Val;

namespace {

int Log2OfPowerOfTwo(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v) ++k;
  IXA_CHECK((int64_t{1} << k) == v);
  return k;
}

// The row-major position of the logical coordinates, divided by `unit`
// (a divisor of every position the caller passes).
IndexingMap TileFlatMap(const SharedTile& tile, int64_t unit,
                        ExprContext* ctx) {
  Expr flat = ctx->Constant(0);
  for (size_t i = 0; i < tile.logical_dims.size(); ++i) {
    flat = flat * tile.logical_dims[i] + ctx->Dim(static_cast<int>(i));
  }
  IndexingMap map = IndexingMap::FromTensorSizes(
      ctx, {unit == 1 ? flat : flat.FloorDiv(unit)}, tile.logical_dims, {});
  Simplify(&map);
  return map;
}

// x xor ((x floordiv 2^(m + s)) mod 2^b * 2^m), x in [0, size - 1]: CuTe's
// Swizzle<b, m, s>, the xor an integer op the simplifier does not see
// through (its range is the tile's, as the swizzle permutes each aligned
// block of 2^(m + s + b) offsets within itself).
// Bound to a let where `bind` (a vector access's offset stays one
// expression, which the vectorizer composes).
Val XorSwizzle(LoweringContext& lc, BlockBuilder& bb, Val x, int64_t size,
               int b, int m, int s, bool bind) {
  ExprContext* ctx = lc.ctx();
  IXA_CHECK(s > 0 && m >= 0);
  Expr d = ctx->Dim(0);
  IndexingMap bits_map = IndexingMap::FromTensorSizes(
      ctx,
      {(d.FloorDiv(int64_t{1} << (m + s)) % (int64_t{1} << b)) *
       (int64_t{1} << m)},
      std::vector<int64_t>{size}, {});
  Val bits = lc.ApplyMap(lc.Intern(bits_map), 0, {x});
  if (bind) bits = bb.Bind("swz", bits);
  auto node = std::make_shared<ir::Node>(
      *ir::Op(ir::OpCode::kXor, Type::kIndex, {x, bits}));
  node->range = Interval{0, size - 1};
  return node;
}

// The indices of `coords` in the tile's buffer, and whether they are flat.
std::vector<Val> TileIndices(LoweringContext& lc, BlockBuilder& bb,
                             const SharedTile& tile,
                             const std::vector<Val>& coords,
                             const TileLane* lane, bool* flat) {
  *flat = tile.flat;
  if (!tile.flat) return coords;
  ExprContext* ctx = lc.ctx();
  const hw::TileLayout& layout = tile.layout;
  const int64_t elements = tile.dims[0];
  if (layout.kind != hw::TileLayoutKind::kXor) {
    // An affine layout (a padding other than XLA's, a rotation): one map.
    const size_t k = tile.layout_shape.size();
    std::vector<Expr> merged;
    for (size_t i = 0; i + 1 < k; ++i) {
      merged.push_back(ctx->Dim(static_cast<int>(i)));
    }
    Expr last = ctx->Constant(0);
    for (size_t j = k - 1; j < tile.logical_dims.size(); ++j) {
      last = last * tile.logical_dims[j] + ctx->Dim(static_cast<int>(j));
    }
    merged.push_back(last);
    IndexingMap map = IndexingMap::FromTensorSizes(
        ctx, {hw::TileLayoutOffset(layout, tile.layout_shape, merged)},
        tile.logical_dims, {});
    Simplify(&map);
    return {lc.ApplyMap(lc.Intern(map), 0, coords)};
  }
  const hw::cute::Swizzle& sw = layout.swizzle;
  if (!lane || lane->lanes == 1) {
    Val f = bb.Bind(
        "flat", lc.ApplyMap(lc.Intern(TileFlatMap(tile, 1, ctx)), 0, coords));
    return {XorSwizzle(lc, bb, f, elements, sw.b, sw.m, sw.s, true)};
  }
  // Whole vectors: the swizzle keeps each lane's v elements together
  // (its m is at least log2 v), so it is Swizzle<b, m - log2 v, s> on the
  // vector's index, and lane k is k elements past the swizzled start.
  const int64_t v = lane->lanes;
  const int k = Log2OfPowerOfTwo(v);
  IXA_CHECK(sw.m >= k && elements % v == 0);
  Val u = lc.ApplyMap(lc.Intern(TileFlatMap(tile, v, ctx)), 0, lane->first);
  Val start = XorSwizzle(lc, bb, u, elements / v, sw.b, sw.m - k, sw.s, false);
  IndexingMap at =
      IndexingMap::FromTensorSizes(ctx, {ctx->Dim(0) * v + ctx->Dim(1)},
                                   std::vector<int64_t>{elements / v, v}, {});
  return {lc.ApplyMap(lc.Intern(at), 0, {start, lane->var})};
}

}  // namespace

Result<int> AddTileBuffer(LoweringContext& lc, const std::string& stem,
                          const SharedTile& tile) {
  IXA_ASSIGN_OR_RETURN(Type type, ir::TypeOf(tile.type));
  return lc.AddSharedBuffer(stem, type, tile.dims);
}

TileIndex TileIndexOf(LoweringContext& lc, BlockBuilder& bb,
                      const SharedTile& tile, const std::vector<Val>& coords,
                      const TileLane* lane) {
  TileIndex at;
  at.indices = TileIndices(lc, bb, tile, coords, lane, &at.flat);
  return at;
}

ir::Stmt StoreTileAt(int buffer, const TileIndex& at, Val value) {
  if (at.flat) return ir::StoreFlat(buffer, at.indices[0], std::move(value));
  return ir::Store(buffer, at.indices, std::move(value));
}

ir::Stmt StoreTile(LoweringContext& lc, BlockBuilder& bb,
                   const SharedTile& tile, int buffer,
                   const std::vector<Val>& coords, Val value,
                   const TileLane* lane) {
  return StoreTileAt(buffer, TileIndexOf(lc, bb, tile, coords, lane),
                     std::move(value));
}

Val LoadTile(LoweringContext& lc, BlockBuilder& bb, const SharedTile& tile,
             int buffer, Type type, const std::vector<Val>& coords,
             const TileLane* lane) {
  bool flat = false;
  std::vector<Val> idx = TileIndices(lc, bb, tile, coords, lane, &flat);
  if (flat) return ir::LoadFlat(buffer, type, idx[0]);
  return ir::Load(buffer, type, std::move(idx));
}

}  // namespace ixa::emit::emitters
