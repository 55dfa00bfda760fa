// Layout ops of the query protocol (docs/protocol.md, "Layouts"): layout,
// nested_layout, cute_layout, pto, warp_access. `ixa devices` and
// `ixa draw` are in layout_commands.cc.
#include <cstring>

#include "hw/cute.h"
#include "hw/device.h"
#include "hw/nested_layout.h"
#include "hw/pto.h"
#include "hw/xla_layout.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

namespace {

using hw::XlaShape;

Json PairList(const std::vector<std::pair<int64_t, int64_t>>& v) {
  Json out = Json::array();
  for (auto [a, b] : v) out.push_back(Json::array({a, b}));
  return out;
}

// ------------------------------------------------------------- layout

Result<Json> LayoutOp(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(std::string text, GetString(req, "shape"));
  IXA_ASSIGN_OR_RETURN(XlaShape shape, hw::ParseXlaShape(text));
  IXA_ASSIGN_OR_RETURN(hw::TiledLayoutInfo info,
                       hw::AnalyzeTiledLayout(shape, &ctx));
  Json out;
  out["map"] = MapToString(info.map);
  out["physical_shape"] = info.physical_shape;
  out["physical_elements"] = info.physical_elements;
  out["bytes"] = info.bytes;
  if (Has(req, "index")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> index, GetIntList(req, "index"));
    IXA_ASSIGN_OR_RETURN(int64_t offset, hw::PhysicalOffset(shape, index));
    out["offset"] = offset;
  }
  if (Has(req, "offsets")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> offsets,
                         GetIntList(req, "offsets"));
    Json logical = Json::array();
    for (int64_t o : offsets) {
      IXA_ASSIGN_OR_RETURN(auto idx, hw::LogicalIndexAt(shape, o));
      logical.push_back(idx ? Json(*idx) : Json(nullptr));
    }
    out["logical"] = logical;
  }
  return out;
}

// ------------------------------------------------------- nested_layout

Result<int64_t> OptionalInt(const Json& req, const char* field,
                            int64_t fallback) {
  if (!Has(req, field)) return fallback;
  return GetInt(req, field);
}

Result<Json> NestedLayoutOp(const Json& req, ExprContext& ctx) {
  std::vector<int64_t> f[7];
  const char* names[7] = {"subgroup_tile", "batch_tile",   "outer_tile",
                          "thread_tile",   "element_tile", "subgroup_strides",
                          "thread_strides"};
  for (int i = 0; i < 7; ++i) {
    IXA_ASSIGN_OR_RETURN(f[i], GetIntList(req, names[i]));
  }
  IXA_ASSIGN_OR_RETURN(
      hw::NestedLayout l,
      hw::MakeNestedLayout(f[0], f[1], f[2], f[3], f[4], f[5], f[6]));
  hw::NestedIds ids;
  IXA_ASSIGN_OR_RETURN(ids.subgroup_size, OptionalInt(req, "subgroup_size", 0));
  IXA_ASSIGN_OR_RETURN(ids.num_subgroups, OptionalInt(req, "num_subgroups", 0));
  if (ids.subgroup_size < 0 || ids.num_subgroups < 0) {
    return Error::Invalid("subgroup_size and num_subgroups must be positive");
  }
  Json out;
  out["map"] = MapToString(hw::NestedLayoutMap(l, ids, &ctx));
  out["distributed_shape"] = hw::DistributedShape(l);
  out["vector_shape"] = hw::UndistributedShape(l);
  if (Has(req, "shape")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> shape, GetIntList(req, "shape"));
    IXA_ASSIGN_OR_RETURN(hw::ShapeCheck check, hw::CheckVectorShape(l, shape));
    out["valid"] = check.valid;
    out["mismatched_dims"] = check.mismatched_dims;
  }
  if (Has(req, "subgroup") || Has(req, "thread")) {
    IXA_ASSIGN_OR_RETURN(int64_t sg, GetInt(req, "subgroup"));
    IXA_ASSIGN_OR_RETURN(int64_t t, GetInt(req, "thread"));
    IXA_ASSIGN_OR_RETURN(auto elems, hw::ThreadElements(l, ids, sg, t));
    out["elements"] = elems;
  }
  if (Has(req, "element")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> element,
                         GetIntList(req, "element"));
    IXA_ASSIGN_OR_RETURN(auto owners, hw::Owners(l, ids, element));
    out["owners"] = PairList(owners);
  }
  return out;
}

// --------------------------------------------------------- cute_layout

Result<Json> CuteOp(const Json& req, ExprContext& ctx) {
  namespace cute = hw::cute;
  IXA_ASSIGN_OR_RETURN(std::string text, GetString(req, "layout"));
  IXA_ASSIGN_OR_RETURN(cute::Layout layout, cute::ParseLayout(text));
  std::optional<cute::Swizzle> swizzle;
  if (Has(req, "swizzle")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> s, GetIntList(req, "swizzle"));
    if (s.size() != 3)
      return Error::BadRequest("field 'swizzle' must be [B, M, S]");
    swizzle = cute::Swizzle{static_cast<int>(s[0]), static_cast<int>(s[1]),
                            static_cast<int>(s[2])};
    IXA_RETURN_IF_ERROR(cute::ValidateSwizzle(*swizzle));
  }
  cute::Layout result = layout;
  Json overhang = Json::array();
  if (Has(req, "fn")) {
    IXA_ASSIGN_OR_RETURN(std::string fn, GetString(req, "fn"));
    if (fn == "coalesce") {
      result = cute::Coalesce(layout);
    } else if (fn == "complement") {
      IXA_ASSIGN_OR_RETURN(int64_t cotarget,
                           OptionalInt(req, "cotarget", cute::Cosize(layout)));
      IXA_ASSIGN_OR_RETURN(result, cute::Complement(layout, cotarget));
    } else if (fn == "right_inverse") {
      result = cute::RightInverse(layout);
    } else if (fn == "left_inverse") {
      IXA_ASSIGN_OR_RETURN(result, cute::LeftInverse(layout));
    } else if (fn == "blocked_product" || fn == "raked_product") {
      // CuTe's blocked/raked products take a layout; a stride-less shape
      // is its compact layout.
      IXA_ASSIGN_OR_RETURN(std::string with_text, GetString(req, "with"));
      if (with_text.find('<') != std::string::npos)
        return Error::Invalid(fn +
                              " takes a single layout in 'with', not a tiler");
      IXA_ASSIGN_OR_RETURN(cute::Layout b, cute::ParseLayout(with_text));
      if (fn == "blocked_product") {
        IXA_ASSIGN_OR_RETURN(result, cute::BlockedProduct(layout, b));
      } else {
        IXA_ASSIGN_OR_RETURN(result, cute::RakedProduct(layout, b));
      }
    } else {
      IXA_ASSIGN_OR_RETURN(std::string with_text, GetString(req, "with"));
      IXA_ASSIGN_OR_RETURN(cute::Tiler with, cute::ParseTiler(with_text));
      using Fn =
          Result<cute::Layout> (*)(const cute::Layout&, const cute::Tiler&);
      static const std::map<std::string, Fn> kFns = {
          {"compose", cute::Compose},
          {"logical_divide", cute::LogicalDivide},
          {"zipped_divide", cute::ZippedDivide},
          {"tiled_divide", cute::TiledDivide},
          {"flat_divide", cute::FlatDivide},
          {"logical_product", cute::LogicalProduct},
          {"zipped_product", cute::ZippedProduct},
          {"tiled_product", cute::TiledProduct}};
      auto it = kFns.find(fn);
      if (it == kFns.end()) return Error::BadRequest("unknown fn '" + fn + "'");
      IXA_ASSIGN_OR_RETURN(result, it->second(layout, with));
      if (fn.find("divide") != std::string::npos) {
        for (const cute::Overhang& o : cute::DivideOverhang(layout, with)) {
          overhang.push_back(
              Json{{"mode", o.mode}, {"size", o.size}, {"covered", o.covered}});
        }
      }
    }
  }
  IXA_ASSIGN_OR_RETURN(IndexingMap map, cute::LayoutMap(result, swizzle, &ctx));
  Json out;
  out["layout"] = cute::PrintLayout(result);
  out["map"] = MapToString(map);
  // A divide whose tiles run past the layout: CuTe's answer, whose last
  // tiles reach beyond size(A) (the caller masks them).
  if (!overhang.empty()) out["overhang"] = overhang;
  if (cute::Size(result) <= 4096) out["values"] = cute::Values(result, swizzle);
  return out;
}

// ----------------------------------------------------------------- pto

Result<hw::DType> GetDType(const Json& req, const char* field) {
  IXA_ASSIGN_OR_RETURN(std::string name, GetString(req, field));
  auto t = hw::FindDType(name);
  if (!t)
    return Error::Invalid("unknown dtype '" + name +
                          "' (known: " + hw::KnownDTypeNames() + ")");
  return *t;
}

Result<hw::pto::Tile> GetTile(const Json& req, const char* field) {
  namespace pto = hw::pto;
  if (!Has(req, field) || !req.at(field).is_object()) {
    return Error::BadRequest(std::string("field '") + field +
                             "' must be a tile object");
  }
  const Json& j = req.at(field);
  pto::Tile t;
  IXA_ASSIGN_OR_RETURN(std::string loc, GetString(j, "loc"));
  auto l = pto::ParseLoc(loc);
  if (!l)
    return Error::Invalid("unknown tile loc '" + loc +
                          "' (Vec, Mat, Left, Right, Acc, Bias, Scaling)");
  t.loc = *l;
  IXA_ASSIGN_OR_RETURN(t.dtype, GetDType(j, "dtype"));
  IXA_ASSIGN_OR_RETURN(t.rows, GetInt(j, "rows"));
  IXA_ASSIGN_OR_RETURN(t.cols, GetInt(j, "cols"));
  for (auto [name, order, fallback] :
       {std::tuple{"blayout", &t.blayout, "RowMajor"},
        std::tuple{"slayout", &t.slayout, "NoneBox"}}) {
    std::string s = fallback;
    if (Has(j, name)) {
      IXA_ASSIGN_OR_RETURN(s, GetString(j, name));
    }
    auto o = pto::ParseOrder(s);
    if (!o ||
        (std::strcmp(name, "blayout") == 0 && *o == pto::Order::kNoneBox)) {
      return Error::Invalid(std::string("bad ") + name + " '" + s + "'");
    }
    *order = *o;
  }
  IXA_ASSIGN_OR_RETURN(
      t.fractal_bytes,
      OptionalInt(j, "fractal_bytes", t.loc == pto::Loc::kAcc ? 1024 : 512));
  IXA_ASSIGN_OR_RETURN(t.valid_row, OptionalInt(j, "valid_row", -1));
  IXA_ASSIGN_OR_RETURN(t.valid_col, OptionalInt(j, "valid_col", -1));
  if ((Has(j, "valid_row") && t.valid_row < 0) ||
      (Has(j, "valid_col") && t.valid_col < 0)) {
    return Error::Invalid("valid_row / valid_col must be non-negative");
  }
  if (t.rows < 1 || t.cols < 1 || t.rows > (int64_t{1} << 31) ||
      t.cols > (int64_t{1} << 31)) {
    return Error::Invalid("tile rows and cols must be in [1, 2^31]");
  }
  return t;
}

Json CheckJson(const hw::pto::Check& c) {
  return Json{{"valid", c.valid}, {"failures", c.failures}};
}

Result<Json> PtoOp(const Json& req, ExprContext& ctx) {
  namespace pto = hw::pto;
  IXA_ASSIGN_OR_RETURN(std::string fn, GetString(req, "fn"));
  if (fn == "tile_offset") {
    IXA_ASSIGN_OR_RETURN(pto::Tile t, GetTile(req, "tile"));
    IXA_ASSIGN_OR_RETURN(int64_t row, GetInt(req, "row"));
    IXA_ASSIGN_OR_RETURN(int64_t col, GetInt(req, "col"));
    IXA_ASSIGN_OR_RETURN(int64_t offset, pto::TileOffset(t, row, col));
    return Json{{"offset", offset}};
  }
  if (fn == "tile_check") {
    IXA_ASSIGN_OR_RETURN(pto::Tile t, GetTile(req, "tile"));
    return CheckJson(pto::CheckTile(t));
  }
  if (fn == "ttrans_check") {
    IXA_ASSIGN_OR_RETURN(std::string arch_name, GetString(req, "arch"));
    auto arch = pto::ParseArch(arch_name);
    if (!arch)
      return Error::Invalid("unknown arch '" + arch_name + "' (a2a3 or a5)");
    IXA_ASSIGN_OR_RETURN(pto::Tile src, GetTile(req, "src"));
    IXA_ASSIGN_OR_RETURN(pto::Tile dst, GetTile(req, "dst"));
    pto::TtransPlan plan = pto::CheckTtrans(*arch, src, dst);
    Json out = CheckJson(plan.check);
    out["path"] = plan.path;
    out["tmp_bytes"] = plan.tmp_bytes;
    return out;
  }
  IXA_ASSIGN_OR_RETURN(std::string conversion, GetString(req, "conversion"));
  IXA_ASSIGN_OR_RETURN(hw::DType dtype, GetDType(req, "dtype"));
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> shape, GetIntList(req, "shape"));
  if (fn == "tmp_size") {
    IXA_ASSIGN_OR_RETURN(int64_t bytes,
                         pto::TmpBytes(conversion, dtype, shape));
    return Json{{"tmp_bytes", bytes}};
  }
  if (fn != "format") return Error::BadRequest("unknown pto fn '" + fn + "'");
  pto::Fz3dOrder order = pto::Fz3dOrder::kDMajor;
  if (Has(req, "order")) {
    IXA_ASSIGN_OR_RETURN(std::string o, GetString(req, "order"));
    if (o == "c1_major") {
      order = pto::Fz3dOrder::kC1Major;
    } else if (o != "d_major") {
      return Error::Invalid("order must be d_major or c1_major");
    }
  }
  IXA_ASSIGN_OR_RETURN(pto::Format f,
                       pto::MakeFormat(conversion, dtype, shape, &ctx, order));
  Json out;
  out["map"] = MapToString(f.map);
  out["dst_shape"] = f.dst_shape;
  out["C0"] = f.c0;
  out["C1"] = f.c1;
  out["N1"] = f.n1 > 0 ? Json(f.n1) : Json(nullptr);  // no N split
  if (Has(req, "index")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> index, GetIntList(req, "index"));
    IXA_ASSIGN_OR_RETURN(pto::FormatPoint p, pto::FormatForward(f, index));
    out["coords"] = p.coords;
    out["offset"] = p.offset;
  }
  if (Has(req, "coords")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> coords,
                         GetIntList(req, "coords"));
    IXA_ASSIGN_OR_RETURN(auto src, pto::FormatBackward(f, coords));
    out["index"] = src ? Json(*src) : Json(nullptr);
  }
  return out;
}

// --------------------------------------------------------- warp_access

// DeviceJson: tools/ixa/device_request.cc.

Result<Json> WarpAccessOp(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
  IXA_ASSIGN_OR_RETURN(int64_t element_bytes, GetInt(req, "element_bytes"));
  if (element_bytes < 1 || element_bytes > 1024)
    return Error::Invalid("element_bytes must be in [1, 1024]");
  IXA_ASSIGN_OR_RETURN(hw::Device device, GetDevice(req));
  hw::MemorySpace memory = hw::MemorySpace::kGlobal;
  if (Has(req, "memory")) {
    IXA_ASSIGN_OR_RETURN(std::string m, GetString(req, "memory"));
    if (m == "shared") {
      memory = hw::MemorySpace::kShared;
    } else if (m != "global") {
      return Error::Invalid("memory must be global or shared");
    }
  }
  IXA_ASSIGN_OR_RETURN(
      hw::WarpAccess a,
      hw::AnalyzeWarpAccess(map, element_bytes, device, memory));
  Json out{{"sectors", a.sectors},
           {"lines", a.lines},
           {"useful_bytes", a.useful_bytes},
           {"efficiency", a.efficiency}};
  if (memory == hw::MemorySpace::kShared)
    out["bank_conflict_ways"] = a.bank_conflict_ways;
  return out;
}

}  // namespace

void RegisterLayoutOps(OpTable& table) {
  table["layout"] = LayoutOp;
  table["nested_layout"] = NestedLayoutOp;
  table["cute_layout"] = CuteOp;
  table["pto"] = PtoOp;
  table["warp_access"] = WarpAccessOp;
}

}  // namespace ixa::cli
