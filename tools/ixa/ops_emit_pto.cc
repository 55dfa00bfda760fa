// `emit` with target "pto" (docs/protocol.md, op `emit`):
// the request's fields to emit::pto::PtoRequest, the generated kernel to
// the response fields code, kernel, buffers, tiles, tmp_bytes.
#include "emit/pto/pto_codegen.h"
#include "hw/dtype.h"
#include "hw/pto.h"
#include "tools/ixa/emit_ops.h"

namespace ixa::cli {

namespace {

// "f16[2,20,3,4]{3,2,1,0}": XLA text with the row-major layout.
std::string XlaShapeText(const std::string& dtype,
                         const std::vector<int64_t>& d) {
  std::string text = dtype + "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) text += ',';
    text += std::to_string(d[i]);
  }
  text += "]{";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) text += ',';
    text += std::to_string(d.size() - 1 - i);
  }
  return text + "}";
}

Json ValidJson(const std::vector<int64_t>& values) { return Json(values); }

}  // namespace

Result<Json> EmitPtoRequest(const Json& request, ExprContext&) {
  namespace pto = emit::pto;
  pto::PtoRequest r;
  IXA_ASSIGN_OR_RETURN(std::string arch, GetString(request, "arch"));
  auto a = hw::pto::ParseArch(arch);
  if (!a) return Error::Invalid("unknown arch '" + arch + "' (a2a3 or a5)");
  r.arch = *a;
  IXA_ASSIGN_OR_RETURN(r.conversion, GetString(request, "conversion"));
  IXA_ASSIGN_OR_RETURN(std::string dtype, GetString(request, "dtype"));
  auto t = hw::FindDType(dtype);
  if (!t) {
    return Error::Invalid("unknown dtype '" + dtype +
                          "' (known: " + hw::KnownDTypeNames() + ")");
  }
  r.dtype = *t;
  IXA_ASSIGN_OR_RETURN(r.shape, GetIntList(request, "shape"));
  if (Has(request, "order")) {
    IXA_ASSIGN_OR_RETURN(std::string order, GetString(request, "order"));
    if (order == "c1_major") {
      r.order = hw::pto::Fz3dOrder::kC1Major;
    } else if (order != "d_major") {
      return Error::Invalid("order must be d_major or c1_major");
    }
  }
  if (Has(request, "kernel")) {
    IXA_ASSIGN_OR_RETURN(r.kernel, GetString(request, "kernel"));
  }
  if (Has(request, "tile")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> tile,
                         GetIntList(request, "tile"));
    if (tile.size() != 2)
      return Error::BadRequest("field 'tile' must be [rows, cols]");
    r.tile = std::array<int64_t, 2>{tile[0], tile[1]};
  }
  IXA_ASSIGN_OR_RETURN(pto::PtoKernel k, pto::GeneratePtoKernel(r));
  Json buffers = Json::array();
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    const pto::PtoBuffer& b = k.buffers[i];
    buffers.push_back(Json{{"index", i},
                           {"role", b.role},
                           {"name", b.name},
                           {"shape", XlaShapeText(r.dtype.name, b.dims)},
                           {"dims", b.dims}});
  }
  Json tiles = Json::array();
  for (const pto::PtoTileInfo& ti : k.tiles) {
    tiles.push_back(
        Json{{"type", ti.type},
             {"purpose", ti.purpose},
             {"loc", hw::pto::LocName(ti.tile.loc)},
             {"blayout", hw::pto::OrderName(ti.tile.blayout)},
             {"slayout", hw::pto::OrderName(ti.tile.slayout)},
             {"dtype", ti.tile.dtype.name},
             {"rows", ti.tile.rows},
             {"cols", ti.tile.cols},
             {"valid_row", ValidJson(ti.valid_rows)},
             {"valid_col", ValidJson(ti.valid_cols)},
             {"dynamic", ti.valid_rows.size() > 1 || ti.valid_cols.size() > 1},
             {"ub_offset", ti.ub_offset},
             {"bytes", ti.bytes}});
  }
  return Json{{"code", k.code},           {"kernel", k.kernel},
              {"buffers", buffers},       {"tiles", tiles},
              {"tmp_bytes", k.tmp_bytes}, {"ub_bytes", k.ub_bytes}};
}

}  // namespace ixa::cli
