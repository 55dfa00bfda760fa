// PTO (Ascend tile ISA) tiles, TTRANS legality and convolution formats as
// indexing maps (docs/layouts.md §3, docs/hw-reference.md §3).
#ifndef IXA_HW_PTO_H_
#define IXA_HW_PTO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/dtype.h"

namespace ixa::hw::pto {

enum class Loc { kVec, kMat, kLeft, kRight, kAcc, kBias, kScaling };
enum class Order { kNoneBox, kRowMajor, kColMajor };  // NoneBox: slayout only

struct Tile {
  Loc loc = Loc::kVec;
  DType dtype;
  int64_t rows = 0, cols = 0;
  Order blayout = Order::kRowMajor;
  Order slayout = Order::kNoneBox;
  int64_t fractal_bytes = 512;  // SFractalSize: 512, 1024 (Acc) or 32
  int64_t valid_row = -1, valid_col = -1;  // -1: the static rows / cols

  int64_t ValidRow() const { return valid_row < 0 ? rows : valid_row; }
  int64_t ValidCol() const { return valid_col < 0 ? cols : valid_col; }
};

std::optional<Loc> ParseLoc(std::string_view s);
std::optional<Order> ParseOrder(std::string_view s);
const char* LocName(Loc loc);
const char* OrderName(Order o);

// The inner fractal box: 1024 B -> 16x16, 32 B -> 16x2, NoneBox -> 1x1,
// slayout RowMajor -> 16 x (32/sizeof), ColMajor -> (32/sizeof) x 16.
struct Box {
  int64_t rows = 1, cols = 1;
};
Result<Box> InnerBox(const Tile& t);

// Element offset of (r, c) (tile_offsets.hpp): ND, DN, Nz, Zn, Zz, Nn.
Result<int64_t> TileOffset(const Tile& t, int64_t row, int64_t col);
// (r, c) -> offset over the valid region r < valid_row, c < valid_col.
Result<IndexingMap> TileOffsetMap(const Tile& t, ExprContext* ctx);
// The inverse over [0, rows*cols): (r, c), or nullopt outside the valid
// region (padding).
Result<std::optional<std::pair<int64_t, int64_t>>> TileCoordsAt(const Tile& t,
                                                                int64_t offset);

struct Check {
  bool valid = true;
  std::vector<std::string> failures;  // each broken rule, in words
  void Fail(std::string s) {
    valid = false;
    failures.push_back(std::move(s));
  }
};
// pto_tile.hpp's static checks (§3.3).
Check CheckTile(const Tile& t);

enum class Arch { kA2A3, kA5 };
std::optional<Arch> ParseArch(std::string_view s);

struct TtransPlan {
  Check check;
  std::string path;  // "vector" (with tmp on A2/A3) or "scalar"
  int64_t tmp_bytes = 0;
};
// TTRANS legality on A2/A3 or A5, the path taken and its tmp size.
TtransPlan CheckTtrans(Arch arch, const Tile& src, const Tile& dst);

// TTRANS's element types: u32/s32/f32, u16/s16/f16/bf16, u8/s8. The PTO
// code generator takes the same types for every conversion.
bool IsTtransElementType(const DType& t);
// "element type T is not one of u32/s32/f32, u16/s16/f16/bf16, u8/s8".
std::string ElementTypeFailure(const DType& t);

// Unified buffer capacity in bytes: 192 KiB on A2/A3 (docs/hw-reference.md
// §3.4). The sources give no A5 size; A5 uses the same 192 KiB, the size every
// Ascend part of the reference has at least, so a plan that fits here fits
// there.
int64_t UbBytes(Arch arch);

// One TLOAD or TSTORE between global memory and a tile (docs/pto.md §4):
// the innermost global stride must be 1 (the A2/A3 DMA ignores it) and on
// A2/A3 one transfer moves fewer than 4096 rows (the DMA's burst count).
Check CheckDma(Arch arch, int64_t rows, int64_t innermost_stride);

// RowStride (32 for 8-bit, else 16) and ElemPerBlock (32 / sizeof).
int64_t TransposeRowStride(int64_t elem_bytes);

// tmp sizes of every conversion in docs/layouts.md §3; `shape` is the source
// shape. Conversions: transpose_2d [H,W], nchw_to_nc1hwc0 [N,C,H,W],
// nc1hwc0_to_nchw [N,C1,H,W,C0], gnchw_to_gnc1hwc0 [G,N,C,H,W],
// gnc1hwc0_to_gnchw [G,N,C1,H,W,C0], ncdhw_to_fractal_z_3d [N,C,D,H,W],
// nc1hwc0_to_fractal_z / gnc1hwc0_to_fractal_z (0: a pure reordering).
Result<int64_t> TmpBytes(std::string_view conversion, const DType& dtype,
                         const std::vector<int64_t>& shape);

// C0 = 256 / bits (4-bit 64, 8-bit 32, 16-bit 16, 32-bit 8).
Result<int64_t> C0ForType(const DType& dtype);

// The conversions whose source is already fractal (nz_to_nd's [C1, R, C0],
// nc1hwc0_to_nchw's and nc1hwc0_to_fractal_z's [N, C1, H, W, C0]) read C0
// from the source's innermost size. The hardware's fractal block is 32
// bytes, so that size must be the type's C0 (32 / sizeof): any other is a
// layout no NPU buffer holds, and a kernel copying it would be wrong there.
// Other conversions (and a rank the conversion does not take) pass.
Check CheckSourceC0(std::string_view conversion, const DType& dtype,
                    const std::vector<int64_t>& shape);

enum class Fz3dOrder { kDMajor, kC1Major };

// A format conversion as an indexing map from destination coordinates to
// the source index, with the padding constraints (a destination point is
// real data iff the constraints hold).
struct Format {
  std::string conversion;
  std::vector<int64_t> src_shape, dst_shape;
  int64_t c0 = 0, c1 = 0, n1 = 0;  // n1 = 0 when the format has no N split
  Fz3dOrder order = Fz3dOrder::kDMajor;
  IndexingMap map;  // dst coords -> src index
};
// Conversions: nchw_to_nc1hwc0, gnchw_to_gnc1hwc0, ncdhw_to_ndc1hwc0,
// nc1hwc0_to_fractal_z, gnc1hwc0_to_fractal_z, nchw_to_fractal_z,
// ncdhw_to_fractal_z_3d, and the code generator's others: transpose_2d
// ([R,C] -> [C,R]), nd_to_nz ([R,C] -> [C1,R,C0]), nz_to_nd ([C1,R,C0] ->
// [R,C1*C0]), nc1hwc0_to_nchw ([N,C1,H,W,C0] -> [N,C1*C0,H,W]); the last
// two and nc1hwc0_to_fractal_z take C0 from the source shape. `c0` overrides
// the type's C0 (ConvTile also allows 4) for formats that take it from the
// type.
Result<Format> MakeFormat(std::string_view conversion, const DType& dtype,
                          const std::vector<int64_t>& shape, ExprContext* ctx,
                          Fz3dOrder order = Fz3dOrder::kDMajor, int64_t c0 = 0);

// One point either way: source index -> destination coords (and the
// row-major offset in the destination), destination coords -> source index
// or nullopt for padding.
struct FormatPoint {
  std::vector<int64_t> coords;
  int64_t offset = 0;
};
Result<FormatPoint> FormatForward(const Format& f,
                                  const std::vector<int64_t>& src_index);
Result<std::optional<std::vector<int64_t>>> FormatBackward(
    const Format& f, const std::vector<int64_t>& dst_coords);

}  // namespace ixa::hw::pto

#endif  // IXA_HW_PTO_H_
