// Shared-tile layouts without bank conflicts: given how a kernel writes a
// shared tile and how it reads it back (maps from thread and loop
// variables to tile coordinates), the layout of the tile in shared memory
// with the fewest wavefronts among row padding, column rotation and CuTe
// XOR swizzles (docs/layouts.md "Shared-memory banks").
//
// The objective, in order: the fewest wavefronts of the write and the
// read together (summed over every warp access: the time the tile's
// traffic takes); then the least shared memory; then the cheapest index
// arithmetic (integer operations beyond the row-major linearization: 0
// for row-major and padding, 3 for an XOR swizzle (and, shift, xor), 3 for
// a rotation over a power-of-two row and 5 over another (mul-add and a
// real modulo)); then the first candidate in the search order (row-major,
// padding by increasing pad, Swizzle<B,M,S> by increasing B, M, S,
// rotation by increasing step). Every candidate is counted exactly (all
// warp accesses enumerated), and the answer's counts are then recomputed
// by AnalyzeBankConflicts on the composed byte-address maps.
#ifndef IXA_HW_SWIZZLE_SEARCH_H_
#define IXA_HW_SWIZZLE_SEARCH_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/bank_conflicts.h"
#include "hw/cute.h"

namespace ixa::hw {

// How a kernel touches the tile: `map` (dims)[symbols] -> the tile
// coordinate of the lane's first element (one result per tile dim); dim
// `thread_dim` is the thread id, the other variables are loops (as in
// SharedAccess). Each lane moves vector_width consecutive elements along
// the tile's last dim.
struct TileAccess {
  IndexingMap map;
  int thread_dim = 0;
  int64_t vector_width = 1;
};

enum class TileLayoutKind { kRowMajor, kPadded, kRotated, kXor };

// A layout of a row-major tile (rows: every dim but the last, flattened;
// columns: the last dim) in shared memory, as element offsets:
//   kRowMajor  r * cols + c
//   kPadded    r * (cols + pad) + c
//   kRotated   r * cols + (c + r * rotation) mod cols
//   kXor       Swizzle<B,M,S>(r * cols + c)
struct TileLayout {
  TileLayoutKind kind = TileLayoutKind::kRowMajor;
  int64_t pad = 0;
  int64_t rotation = 0;
  cute::Swizzle swizzle;
};

// "row_major", "pad 1", "rotate 4", "Swizzle<3,3,3>".
std::string DescribeTileLayout(const TileLayout& layout);

// The element offset of tile coordinates `coords` (expressions over any
// map's variables) under `layout`.
Expr TileLayoutOffset(const TileLayout& layout, std::span<const int64_t> shape,
                      std::span<const Expr> coords);
// coords -> element offset over the tile's shape, simplified.
IndexingMap TileLayoutMap(const TileLayout& layout,
                          std::span<const int64_t> shape, ExprContext* ctx);
// The element offset of the element at row-major index `flat`.
int64_t TileLayoutOffsetAt(const TileLayout& layout,
                           std::span<const int64_t> shape, int64_t flat);
// Elements of shared memory the layout needs (the largest offset + 1).
int64_t TileLayoutElements(const TileLayout& layout,
                           std::span<const int64_t> shape);
// The layout as a GF(2) linear layout from the tile's dims to the element
// offset: bases[d][j] is the offset of coordinate 2^j in dim d (all other
// dims 0). Only row-major and XOR layouts of power-of-two dims are linear;
// std::nullopt otherwise. Computed directly from the swizzle's bit rule.
std::optional<std::vector<std::vector<int64_t>>> TileLayoutBases(
    const TileLayout& layout, std::span<const int64_t> shape);

struct TileLayoutScore {
  TileLayout layout;
  int64_t elements = 0;    // shared memory, in elements
  int64_t bytes = 0;       // elements * element_bytes
  int64_t arithmetic = 0;  // index operations beyond row-major
  int64_t write_wavefronts = 0, read_wavefronts = 0;  // totals
};

struct SwizzleRequest {
  std::vector<int64_t> shape;
  int64_t element_bytes = 4;
  TileAccess write, read;
  BankModel model;
  // Lane evaluations of the enumeration of both accesses.
  int64_t budget = int64_t{1} << 22;
  // > 0: layouts needing more elements of shared memory are left out (a
  // kernel's budget, e.g. no more than the padded tile it replaces);
  // row-major, the smallest, always stays.
  int64_t max_elements = 0;
};

struct SwizzleAnswer {
  TileLayoutScore before;  // row-major
  TileLayoutScore after;   // the best layout
  // Exact reports of the accesses through each layout.
  BankConflictReport write_before, read_before, write_after, read_after;
  IndexingMap map;  // after: tile coordinates -> element offset
  std::optional<std::vector<std::vector<int64_t>>> bases;  // after, if linear
  int64_t candidates = 0;                                  // layouts scored
};

Result<SwizzleAnswer> SynthesizeTileLayout(const SwizzleRequest& request,
                                           ExprContext* ctx);

// The byte-address map of `access` through `layout`: what
// AnalyzeBankConflicts takes.
SharedAccess TileAccessThrough(const TileAccess& access,
                               const TileLayout& layout,
                               std::span<const int64_t> shape,
                               int64_t element_bytes);

}  // namespace ixa::hw

#endif  // IXA_HW_SWIZZLE_SEARCH_H_
