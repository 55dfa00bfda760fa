// SVG pictures of layouts, in the style of XLA's tiled-layout documentation
// figures: the logical grid with each cell's physical offset (tiled layouts) or
// the lane holding it (nested layouts), and the physical buffer with padding
// shaded.
#ifndef IXA_HW_SVG_H_
#define IXA_HW_SVG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hw/nested_layout.h"
#include "hw/xla_layout.h"

namespace ixa::hw {

// Text for XML and HTML: & < > " as entities.
std::string XmlEscape(std::string_view text);

struct SvgOptions {
  int cell = 0;             // cell size in px; 0 picks one from the grid size
  bool show_memory = true;  // tiled layouts: also draw the physical buffer
  std::string title;        // empty: the shape / layout text
};

// Logical grid (rows = all dims but the last, flattened) with each cell's
// offset, colored by first-level tile, red outlines around the last tile
// level's boxes, and the physical buffer beside it (one row per first-level
// tile, padding hatched). Grids over 4096 cells draw the first 64x64 corner.
// Every cell is a <g class="cell" data-index="i,j"> whose <text> is shown.
// An invalid shape draws its error message.
std::string DrawTiledLayoutSvg(const XlaShape& shape,
                               const SvgOptions& options = {});

// The vector (rank 1 or 2; higher ranks flatten the major dims) with each
// element's first owning lane, colored by subgroup; elements held by several
// (subgroup, lane) pairs are marked "+n", elements nobody holds are hatched.
// Bold lines separate batch tiles.
std::string DrawNestedLayoutSvg(const NestedLayout& layout,
                                const NestedIds& ids = {},
                                const SvgOptions& options = {});

// A shared-memory tile colored by bank, one panel per layout side by side
// (before and after swizzling): each cell (rows = all dims but the last,
// flattened) shows the bank of its element's first byte; the cells one
// warp access touches are outlined and show their lane. Grids over 64x64
// draw the first 64x64 corner.
struct BankTilePanel {
  std::string label;           // e.g. "row_major: 1024 wavefronts"
  std::vector<int64_t> bytes;  // each element's byte address, row-major
};
struct BankTilePicture {
  std::vector<int64_t> shape;
  int64_t banks = 32, bank_bytes = 4;
  std::vector<BankTilePanel> panels;
  std::vector<std::pair<int64_t, int64_t>> lanes;  // (flat element, lane)
  std::string caption;                             // the access shown
};
std::string DrawBankTileSvg(const BankTilePicture& picture,
                            const SvgOptions& options = {});

}  // namespace ixa::hw

#endif  // IXA_HW_SVG_H_
