// XLA shapes with tiled layouts as indexing maps (docs/layouts.md §1,
// docs/hw-reference.md §1).
//
//   f32[3,5]{1,0:T(2,2)}   bf16[4,8]{1,0:T(2,4)(2,1)}
//   s4[64,128]{1,0:T(64,128)(8,1)E(4)}
//
// The logical -> physical map is built exactly as the pad-reshape-transpose
// formulation reads: permute to physical order (reverse minor_to_major), then
// for every tile level align the tile to the minor suffix (missing major dims
// are size-1 dims, extra major dims pass through), fold `*` dims into the next
// minor one, and split each tiled dim e into (e floordiv t, e mod t) with the
// tile parts moved minor. The offset is the row-major linear index over the
// final shape. The map is injective but not surjective: offsets that no
// logical index reaches are padding, and the inverse map carries that as an
// explicit predicate (its constraints).
#ifndef IXA_HW_XLA_LAYOUT_H_
#define IXA_HW_XLA_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/dtype.h"

namespace ixa::hw {

// A `*` in a tile: fold this dim into the next more minor one. XLA's doc
// calls it -1 (its code uses INT64_MIN); we store -1 and print `*`.
inline constexpr int64_t kCombineDimension = -1;

struct XlaLayout {
  std::vector<int64_t> minor_to_major;  // first = most minor logical dim
  std::vector<std::vector<int64_t>> tiles;
  int64_t tail_padding_alignment = 1;  // L(n), in elements
  std::string index_type;              // #(u32), kept for printing
  std::string pointer_type;            // *(u16), kept for printing
  int64_t element_size_bits = 0;       // E(n); 0 = the type's width
  int64_t memory_space = 0;            // S(n)
};

struct XlaShape {
  DType type;
  std::vector<int64_t> dims;
  std::optional<XlaLayout> layout;  // absent: default {rank-1, ..., 0}

  int rank() const { return static_cast<int>(dims.size()); }
  // The layout, or the default descending one when none was given.
  XlaLayout EffectiveLayout() const;
  // E(n) when set, else the type's storage width in whole bytes (XLA's
  // ByteWidth * 8): sub-byte types pack only with E(n).
  int64_t ElementBits() const;
};

// Parses `type[d0,d1,...]{m2m:attrs}` (layout optional, type
// case-insensitive). Attributes: T(..)(..) tiles with `*`, L(n), #(type),
// *(type), E(n), S(n). Errors are parse_error with a column, or
// invalid_argument for a malformed layout (m2m not a permutation, a tile
// size < 1, a `*` in a tile's last position).
Result<XlaShape> ParseXlaShape(std::string_view text);

// XLA's print: lower-case type, `{m2m:T(..)..L(n)#(t)*(t)E(n)S(n)}`.
std::string PrintXlaShape(const XlaShape& shape);

struct TiledLayoutInfo {
  std::vector<int64_t> physical_shape;  // the final tiled shape, major->minor
  int64_t tiled_elements = 0;           // product of physical_shape
  int64_t physical_elements = 0;        // tiled_elements rounded up to L(n)
  int64_t element_bits = 0;
  int64_t bytes = 0;  // ceil(physical_elements * bits / 8): sub-byte packed
  // Logical index (d_i in [0, dims_i - 1]) -> offset in elements.
  IndexingMap map;
};

// Builds the map and sizes. invalid_argument for a shape whose tiled size
// overflows int64.
Result<TiledLayoutInfo> AnalyzeTiledLayout(const XlaShape& shape,
                                           ExprContext* ctx);

// (offset) -> logical index, domain offset in [0, physical_elements - 1];
// its constraints hold exactly at the offsets that are not padding.
Result<IndexingMap> InverseTiledLayoutMap(const XlaShape& shape,
                                          ExprContext* ctx);

// Numeric forms (the same construction evaluated on integers).
Result<int64_t> PhysicalOffset(const XlaShape& shape,
                               std::span<const int64_t> index);
// nullopt when the offset is padding; invalid_argument when it is outside
// [0, physical_elements).
Result<std::optional<std::vector<int64_t>>> LogicalIndexAt(
    const XlaShape& shape, int64_t offset);

// Where a sub-byte element sits: byte and bit shift of its lowest bit.
// XLA packs the first element of a byte in its low bits (its order since
// 2024, also ONNX's and PyTorch's): s4 [-1, 2] is the byte 0x2F. XLA's
// earlier stored order put the first element in the high bits.
enum class NibbleOrder { kLowFirst, kHighFirst };
struct BitPosition {
  int64_t byte = 0;
  int shift = 0;
};
BitPosition SubBytePosition(int64_t element_offset, int64_t element_bits,
                            NibbleOrder order = NibbleOrder::kLowFirst);

// TPU tilings per element type, as the sources state them
// (docs/hw-reference.md §1.7). Data, not inference.
struct TpuTilingEntry {
  const char* dtypes;    // comma-separated element types
  const char* layout;    // attributes after the colon, e.g. "T(8,128)(2,1)"
  const char* where;     // "HBM default", "VMEM", "rank-1", ...
  const char* evidence;  // where the source says so
};
std::span<const TpuTilingEntry> TpuTilings();

// The default TPU tiling for a shape (first matching entry for its type;
// rank-1 bf16 and small second-minor dims use the listed special forms).
// Returns the shape with that layout (minor_to_major descending).
Result<XlaShape> WithTpuDefaultLayout(const XlaShape& shape);

}  // namespace ixa::hw

#endif  // IXA_HW_XLA_LAYOUT_H_
