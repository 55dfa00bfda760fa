// One recipe per conversion (docs/pto.md §3), built from three
// loop nests:
// - a transpose nest: per batch, [rows x cols] blocks of the source
//   TLOADed into a tile, TTRANSed, TSTOREd as [cols x rows] (transpose_2d,
//   nchw_to_nc1hwc0, nc1hwc0_to_nchw, ncdhw_to_fractal_z_3d);
// - a copy nest: a strided 5-D TLOAD and TSTORE with no vector op
//   (nd_to_nz, nz_to_nd, nc1hwc0_to_fractal_z);
// - a zero nest: a zero tile stored over the destination's padding batches.
// Channel padding (C not a multiple of C0) is zeroed in the tile by
// TEXPANDS before loads that write only the real channels.
#ifndef IXA_EMIT_PTO_RECIPES_H_
#define IXA_EMIT_PTO_RECIPES_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emit/pto/kernel_builder.h"
#include "hw/pto.h"

namespace ixa::emit::pto {

// The request, with the facts every recipe uses.
struct Geometry {
  hw::pto::Arch arch = hw::pto::Arch::kA2A3;
  hw::DType dtype;
  std::string cpp_type;    // the C++ element type, e.g. "half"
  int64_t elem = 0;        // bytes per element
  int64_t block = 0;       // elements per 32-byte block (ElemPerBlock)
  int64_t row_stride = 0;  // TTRANS RowStride: 32 for 8-bit, else 16
  std::string conversion;
  std::vector<int64_t> shape;  // source shape
  hw::pto::Format format;      // dst shape, C0, C1, N1, map
};

struct BuiltKernel {
  std::unique_ptr<KernelBuilder> builder;
  hw::pto::Check check;  // the legality of what was built
  std::string summary;   // the tiling, in words, for the header comment
};

// Builds the kernel body: with `tile` (the source tile's static [rows,
// cols]) when given, else with the largest legal tiles. The result's check
// lists every broken rule; code with failures must not be returned.
BuiltKernel BuildKernel(const Geometry& g,
                        const std::optional<std::array<int64_t, 2>>& tile);

}  // namespace ixa::emit::pto

#endif  // IXA_EMIT_PTO_RECIPES_H_
