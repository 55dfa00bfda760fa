// The tile ops of the query protocol (docs/protocol.md), registered with
// the other use ops (ops_uses.cc RegisterUseOps): `tile` (symbolic tiles of
// a fusion's parameters or of every instruction, of a map, or forward from
// an operand tile) and `valid_tilings` (the tile sizes a fusion tiles
// with). Implemented in ops_tiles.cc.
#ifndef IXA_TOOLS_IXA_TILE_OPS_H_
#define IXA_TOOLS_IXA_TILE_OPS_H_

#include "tools/ixa/protocol.h"

namespace ixa::cli {

Result<Json> TileOp(const Json& request, ExprContext& ctx);
Result<Json> ValidTilingsOp(const Json& request, ExprContext& ctx);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_TILE_OPS_H_
