// CuTe layouts (Shape:Stride, nested) and Swizzle<B,M,S> as indexing maps,
// with CuTe's layout algebra (docs/hw-reference.md §4.1-4.3).
//
// Divisibility failures are invalid_argument naming the mode. For the
// non-divisible tiling case (cutlass#1397: local_tile silently wraps), use
// DivideWithMask: it returns the tiled map with the predicate that masks the
// out-of-bounds tail instead of failing.
#ifndef IXA_HW_CUTE_H_
#define IXA_HW_CUTE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa::hw::cute {

struct IntTuple {
  bool leaf = true;
  int64_t value = 0;
  std::vector<IntTuple> items;

  static IntTuple Leaf(int64_t v) { return IntTuple{true, v, {}}; }
  static IntTuple Tuple(std::vector<IntTuple> items) {
    return IntTuple{false, 0, std::move(items)};
  }
  int rank() const { return leaf ? 1 : static_cast<int>(items.size()); }
  bool operator==(const IntTuple& o) const {
    return leaf == o.leaf && value == o.value && items == o.items;
  }
};

struct Layout {
  IntTuple shape, stride;
  int rank() const { return shape.rank(); }
  // Top-level mode i (the layout itself for a leaf layout and i == 0).
  Layout Mode(int i) const;
  bool operator==(const Layout& o) const {
    return shape == o.shape && stride == o.stride;
  }
};

// A tiler: a single layout ("4:2") or a tuple of tilers applied by mode
// ("<3:4,8:2>"). As in CuTe, a shape (a tuple written without strides) is a
// by-mode tiler at every level: "(3,(2,4))" is <3:1,<2:1,4:1>>, which tiles
// the sub-modes of mode 1 one by one; a layout "(2,4):(1,2)" tiles mode 1 as
// a whole. A bare integer n is the layout n:1.
struct Tiler {
  bool by_mode = false;
  Layout layout;             // when !by_mode
  std::vector<Tiler> modes;  // when by_mode: one per mode of the layout
  static Tiler Of(Layout l) { return Tiler{false, std::move(l), {}}; }
};

struct Swizzle {
  int b = 0, m = 0, s = 0;
};

// "(2,(2,2)):(4,(2,1))", "8:1". A shape without ":stride" gets CuTe's
// compact column-major strides.
Result<Layout> ParseLayout(std::string_view text);
Result<Tiler> ParseTiler(std::string_view text);
std::string PrintLayout(const Layout& l);
std::string PrintTuple(const IntTuple& t);

// invalid_argument unless the size and every offset of `l` lie within
// +-2^62 (parsed layouts and every algebra result are kept so; LayoutMap
// checks its input).
Status CheckBounds(const Layout& l);

int64_t Size(const Layout& l);
int64_t Cosize(const Layout& l);  // L(size - 1) + 1 (non-negative strides)
// L(i) for a 1-D index: colexicographic coordinates, first mode fastest.
int64_t Evaluate(const Layout& l, int64_t index);
// Offsets in 1-D index order (swizzled when given).
std::vector<int64_t> Values(const Layout& l,
                            const std::optional<Swizzle>& swizzle = {});

Status ValidateSwizzle(const Swizzle& s);
int64_t ApplySwizzle(const Swizzle& s, int64_t offset);

Layout Coalesce(const Layout& l);
Layout CoalesceByMode(const Layout& l);
Result<Layout> Compose(const Layout& a, const Layout& b);
Result<Layout> Compose(const Layout& a, const Tiler& b);
Result<Layout> Complement(const Layout& a, int64_t cotarget);
// A / B = A o (B, complement(B, size(A))); by mode for a by-mode tiler.
Result<Layout> LogicalDivide(const Layout& a, const Layout& tile);
Result<Layout> LogicalDivide(const Layout& a, const Tiler& b);
Result<Layout> ZippedDivide(const Layout& a, const Tiler& b);
// ((tile), rest modes...) and (tile modes..., rest modes...).
Result<Layout> TiledDivide(const Layout& a, const Tiler& b);
Result<Layout> FlatDivide(const Layout& a, const Tiler& b);
// Where a divide's tiles run past the layout (CuTe allows it: the last mode
// of A extends, cutlass#1397): one entry per tiled mode whose tiles cover
// more than its size, in the order of a depth-first walk of the tiler.
struct Overhang {
  std::string mode;  // "0", "1.0", ...: the path of the mode in A
  int64_t size = 0, covered = 0;
};
std::vector<Overhang> DivideOverhang(const Layout& a, const Tiler& b);
Result<Layout> LogicalProduct(const Layout& a, const Tiler& b);
Result<Layout> LogicalProduct(const Layout& a, const Layout& b);
Result<Layout> ZippedProduct(const Layout& a, const Tiler& b);
Result<Layout> TiledProduct(const Layout& a, const Tiler& b);
// right_inverse (L(R(i)) = i on the contiguous part of L's image; stride-0
// modes skipped, as the C++ does) and left_inverse (R(L(i)) = i).
Layout RightInverse(const Layout& l);
Result<Layout> LeftInverse(const Layout& l);
Result<Layout> BlockedProduct(const Layout& a, const Layout& b);
Result<Layout> RakedProduct(const Layout& a, const Layout& b);

// Coordinate (one dim per top-level mode) -> offset, domain the mode sizes;
// with a swizzle the offset is the XOR written as floordiv/mod bit terms.
Result<IndexingMap> LayoutMap(const Layout& l,
                              const std::optional<Swizzle>& swizzle,
                              ExprContext* ctx);

// Non-divisible tiling with masks: top-level mode i of `a` tiled by
// tile[i]: dims (tile coords.., tile-grid coords.., untouched modes..),
// coordinate c_i = grid_i * tile_i + t_i, and the constraint
// c_i in [0, size_i - 1] wherever tile_i does not divide size_i.
Result<IndexingMap> DivideWithMask(const Layout& a,
                                   const std::vector<int64_t>& tile,
                                   ExprContext* ctx);

}  // namespace ixa::hw::cute

#endif  // IXA_HW_CUTE_H_
