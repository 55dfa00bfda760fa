// PTO-ISA C++ for Ascend layout conversions (docs/pto.md): one
// kernel per request, TLOAD / TTRANS / TEXPANDS / TSTORE loops over tiles of
// the unified buffer, legal on the requested arch or refused.
//
// Built on hw/pto: the tile checks, TTRANS legality and tmp sizes, the DMA
// and UB rules and the format maps all come from there; this library only
// chooses tiles, places them and prints the code.
#ifndef IXA_EMIT_PTO_PTO_CODEGEN_H_
#define IXA_EMIT_PTO_PTO_CODEGEN_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "hw/dtype.h"
#include "hw/pto.h"

namespace ixa::emit::pto {

struct PtoRequest {
  hw::pto::Arch arch = hw::pto::Arch::kA2A3;
  // transpose_2d, nd_to_nz, nz_to_nd, nchw_to_nc1hwc0, nc1hwc0_to_nchw,
  // nc1hwc0_to_fractal_z, ncdhw_to_fractal_z_3d.
  std::string conversion;
  hw::DType dtype;
  std::vector<int64_t> shape;  // the source shape
  hw::pto::Fz3dOrder order = hw::pto::Fz3dOrder::kDMajor;
  std::string kernel;  // the function name; empty: "<conversion>_<dtype>"
  // The static [rows, cols] of the tile every TLOAD fills (the source tile);
  // unset: the largest legal one. See PtoConversionTileHelp().
  std::optional<std::array<int64_t, 2>> tile;
};

// A kernel argument: "src" (input) then "dst" (output).
struct PtoBuffer {
  std::string name;
  std::string role;  // "input" or "output"
  std::vector<int64_t> dims;
};

// A tile type the kernel declares.
struct PtoTileInfo {
  std::string type;     // the C++ alias, e.g. "SrcTile"
  std::string purpose;  // what it holds, in words
  hw::pto::Tile tile;   // static shape and layout (valid_* = the largest)
  // The valid extents it takes at run time, largest first; more than one
  // value means the template parameter is DYNAMIC.
  std::vector<int64_t> valid_rows, valid_cols;
  int64_t ub_offset = 0;  // TASSIGN byte offset
  int64_t bytes = 0;
};

struct PtoKernel {
  std::string code;
  std::string kernel;
  std::vector<PtoBuffer> buffers;
  std::vector<PtoTileInfo> tiles;
  int64_t tmp_bytes = 0;  // TTRANS scratch the arch needs (0: none)
  int64_t ub_bytes = 0;   // unified buffer bytes the tiles occupy
};

// The conversions `emit` takes, in the order of docs/pto.md §3.
const std::vector<std::string>& PtoConversions();

// invalid_argument for a request that is malformed (unknown conversion,
// wrong rank, sizes < 1) or that cannot be generated legally for its arch:
// then the message lists every broken rule, "; "-separated.
Result<PtoKernel> GeneratePtoKernel(const PtoRequest& request);

}  // namespace ixa::emit::pto

#endif  // IXA_EMIT_PTO_PTO_CODEGEN_H_
