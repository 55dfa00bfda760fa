// HLO shapes as XLA prints them: `f32[10,20]{1,0}`, `f32[]`, tuples
// `(f32[10], s32[10])`, layouts with tiles `{1,0:T(8,128)(2,1)}`, dynamic
// dimensions `f32[<=8,784]` (bounded) and `f32[?,784]` (unbounded), buffer
// shapes `b(f32[16])` (read as the shape inside).
#ifndef IXA_ANALYSIS_HLO_SHAPE_H_
#define IXA_ANALYSIS_HLO_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ixa::hlo {

enum class ElementType {
  kInvalid,
  kPred,
  kS2,
  kS4,
  kS8,
  kS16,
  kS32,
  kS64,
  kU2,
  kU4,
  kU8,
  kU16,
  kU32,
  kU64,
  kF4E2M1FN,
  kF8E3M4,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3FNUZ,
  kF8E4M3B11FNUZ,
  kF8E5M2,
  kF8E5M2FNUZ,
  kF8E8M0FNU,
  kF16,
  kBF16,
  kF32,
  kF64,
  kC64,
  kC128,
  kS1,
  kU1,
  kF6E2M3FN,
  kF6E3M2FN,
  kOpaque,
  kToken,
  kTuple,
};

// The size stored for an unbounded dynamic dimension (`?`): its indices
// range over [0, INT64_MAX - 1], the widest domain a map can state.
inline constexpr int64_t kUnboundedDim = INT64_MAX;

// Tuple shapes nest at most this deep (the reader refuses deeper ones, so
// that no recursive walk over a shape can exhaust the stack).
inline constexpr int kMaxShapeDepth = 64;

// "f32" -> kF32; kInvalid when unknown.
ElementType ElementTypeFromName(std::string_view name);
const char* ElementTypeName(ElementType type);
// Bits per element (0 for token and tuple).
int ElementBits(ElementType type);
bool IsIntegral(ElementType type);
// f16, bf16, f32 and f64: the float types the expanders and library calls
// compute in (the narrower ones convert through them).
bool IsStandardFloat(ElementType type);
// s8 .. s64, and u8 .. u64: the whole-byte integer types.
bool IsWholeByteSigned(ElementType type);
bool IsWholeByteUnsigned(ElementType type);

// One tile of a tiled layout; -1 stands for `*` (combine with the next
// more minor dimension, docs/layouts.md §1).
struct Tile {
  std::vector<int64_t> dims;
  bool operator==(const Tile& o) const { return dims == o.dims; }
};

struct Layout {
  std::vector<int64_t> minor_to_major;
  std::vector<Tile> tiles;
  int64_t element_size_bits = 0;  // E(n); 0 = the type's own size
  bool operator==(const Layout& o) const {
    return minor_to_major == o.minor_to_major && tiles == o.tiles &&
           element_size_bits == o.element_size_bits;
  }
};

struct Shape {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;          // arrays only
  std::optional<Layout> layout;       // arrays only; nullopt = not written
  std::vector<Shape> tuple_elements;  // tuples only
  // Bit i: dim i is written `<=N` or `?` (a mask keeps every shape small;
  // the reader refuses dynamic dims past the 64th).
  uint64_t dynamic_mask = 0;

  bool IsTuple() const { return type == ElementType::kTuple; }
  bool IsDynamicDim(int i) const {
    return i >= 0 && i < 64 && ((dynamic_mask >> i) & 1) != 0;
  }
  // Some dim (of this array or any tuple element) is `?`.
  bool HasUnboundedDim() const;
  bool IsArray() const { return !IsTuple() && type != ElementType::kToken; }
  int rank() const { return static_cast<int>(dims.size()); }
  bool IsScalar() const { return IsArray() && dims.empty(); }
  // Product of dims (saturating at INT64_MAX).
  int64_t ElementCount() const;
  // The written layout, or the default row-major {rank-1, ..., 0}.
  std::vector<int64_t> MinorToMajor() const;
  // Dims in physical order, most major first.
  std::vector<int64_t> PhysicalDims() const;

  // Same type and dims (and tuple structure), layouts and the bounded /
  // static distinction ignored.
  bool Compatible(const Shape& o) const;
  bool operator==(const Shape& o) const {
    return Compatible(o) && layout == o.layout;
  }
  std::string ToString(bool with_layout = false) const;
  // With its layout, the default one written out when none was given.
  std::string ToStringWithLayout() const;

  static Shape Array(ElementType type, std::vector<int64_t> dims) {
    Shape s;
    s.type = type;
    s.dims = std::move(dims);
    return s;
  }
};

// Parses a whole shape string (e.g. `bf16[4,8]{1,0:T(2,4)(2,1)}`).
Result<Shape> ParseShape(std::string_view text);

class Cursor;
// Parses a shape at the cursor (used by the module reader). With
// layout_after_blank false, only a '{' right after the dims opens a layout
// (a literal's value follows its shape after a blank: `s32[2] {1, 2}`).
Result<Shape> ParseShapeAt(Cursor* cursor, bool layout_after_blank = true);
// True when the cursor is at something that starts a shape: `(` or an
// element type name followed by `[`.
bool AtShape(Cursor* cursor);

}  // namespace ixa::hlo

#endif  // IXA_ANALYSIS_HLO_SHAPE_H_
