// The linear_layout op of the query protocol (docs/protocol.md, "Layouts"):
// linear layouts over GF(2), read from their text form, an ixa map, a CuTe
// layout or a Swizzle<B,M,S>, with Triton's operations.
#include "hw/linear_layout.h"
#include "hw/linear_layout_convert.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

namespace {

Result<hw::cute::Swizzle> GetSwizzle(const Json& req) {
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> s, GetIntList(req, "swizzle"));
  if (s.size() != 3)
    return Error::BadRequest("field 'swizzle' must be [B, M, S]");
  for (int64_t v : s) {
    if (v < -64 || v > 64)
      return Error::Invalid("swizzle parameters must be within [-64, 64]");
  }
  return hw::cute::Swizzle{static_cast<int>(s[0]), static_cast<int>(s[1]),
                           static_cast<int>(s[2])};
}

Result<std::vector<std::string>> GetNames(const Json& req, const char* field) {
  if (!req.at(field).is_array())
    return Error::BadRequest(std::string("field '") + field +
                             "' must be a list of strings");
  std::vector<std::string> out;
  for (const Json& n : req.at(field)) {
    if (!n.is_string())
      return Error::BadRequest(std::string("field '") + field +
                               "' must be a list of strings");
    out.push_back(n.get<std::string>());
  }
  return out;
}

// The layout a request names: exactly one of layout, map, cute, swizzle.
Result<hw::LinearLayout> SourceLayout(const Json& req, ExprContext& ctx) {
  int sources = 0;
  for (const char* f : {"layout", "map", "cute"}) sources += Has(req, f);
  if (sources == 0 && Has(req, "swizzle")) {
    IXA_ASSIGN_OR_RETURN(hw::cute::Swizzle s, GetSwizzle(req));
    int64_t bits = 0;
    if (Has(req, "bits")) {
      IXA_ASSIGN_OR_RETURN(bits, GetInt(req, "bits"));
      if (bits < 1 || bits > hw::kMaxLinearLayoutBits)
        return Error::Invalid("bits must be in [1, 62]");
    }
    return hw::SwizzleLinearLayout(s, static_cast<int>(bits));
  }
  if (sources != 1) {
    return Error::BadRequest(
        "give exactly one of 'layout', 'map', 'cute' (or 'swizzle' alone)");
  }
  if (Has(req, "layout")) {
    IXA_ASSIGN_OR_RETURN(std::string text, GetString(req, "layout"));
    return hw::ParseLinearLayout(text);
  }
  if (Has(req, "map")) {
    IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
    std::vector<std::string> outs;
    if (Has(req, "out_dims")) {
      IXA_ASSIGN_OR_RETURN(outs, GetNames(req, "out_dims"));
    }
    return hw::LinearLayoutFromMap(map, outs);
  }
  IXA_ASSIGN_OR_RETURN(std::string text, GetString(req, "cute"));
  IXA_ASSIGN_OR_RETURN(hw::cute::Layout layout, hw::cute::ParseLayout(text));
  std::optional<hw::cute::Swizzle> swizzle;
  if (Has(req, "swizzle")) {
    IXA_ASSIGN_OR_RETURN(swizzle, GetSwizzle(req));
  }
  IXA_ASSIGN_OR_RETURN(bool by_mode, GetBool(req, "by_mode", false));
  return hw::LinearLayoutFromCute(layout, swizzle, by_mode);
}

Json DimsJson(const std::vector<std::pair<std::string, int64_t>>& dims,
              const char* key = "size") {
  Json out = Json::array();
  for (const auto& [name, value] : dims)
    out.push_back(Json{{"name", name}, {key, value}});
  return out;
}

Result<Json> LinearLayoutOp(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(hw::LinearLayout layout, SourceLayout(req, ctx));
  hw::LinearLayout result = layout;
  if (Has(req, "fn")) {
    IXA_ASSIGN_OR_RETURN(std::string fn, GetString(req, "fn"));
    if (fn == "invert") {
      IXA_ASSIGN_OR_RETURN(result, layout.Invert());
    } else if (fn == "pseudo_invert") {
      IXA_ASSIGN_OR_RETURN(result, layout.PseudoInvert());
    } else if (fn == "compose" || fn == "invert_and_compose" ||
               fn == "product" || fn == "divide_left" || fn == "divide_right") {
      IXA_ASSIGN_OR_RETURN(std::string text, GetString(req, "with"));
      auto with = hw::ParseLinearLayout(text);
      if (!with.ok()) {
        Error e = with.error();
        e.message = "field 'with': " + e.message;
        return e;
      }
      if (fn == "compose") {
        IXA_ASSIGN_OR_RETURN(result, layout.Compose(*with));
      } else if (fn == "invert_and_compose") {
        IXA_ASSIGN_OR_RETURN(result, layout.InvertAndCompose(*with));
      } else if (fn == "product") {
        IXA_ASSIGN_OR_RETURN(result, hw::Product(layout, *with));
      } else {
        auto q = fn == "divide_left" ? hw::DivideLeft(layout, *with)
                                     : hw::DivideRight(layout, *with);
        if (!q) return Json{{"divisible", false}};
        result = *q;
      }
    } else {
      return Error::BadRequest(
          "unknown fn '" + fn +
          "' (compose, invert, pseudo_invert, invert_and_compose, product, "
          "divide_left or divide_right)");
    }
  }
  Json out;
  out["layout"] = hw::PrintLinearLayout(result);
  std::vector<std::pair<std::string, int64_t>> ins, outs;
  for (const auto& d : result.ins())
    ins.push_back({d.name, int64_t{1} << d.bases.size()});
  for (const auto& d : result.outs()) outs.push_back({d.name, d.size});
  out["in_dims"] = DimsJson(ins);
  out["out_dims"] = DimsJson(outs);
  out["rank"] = result.Rank();
  out["injective"] = result.IsInjective();
  out["surjective"] = result.IsSurjective();
  out["invertible"] = result.IsInvertible();
  out["contiguous"] = result.NumConsecutiveInOut();
  out["free_variables"] = DimsJson(result.FreeVariableMasks(), "mask");
  IXA_ASSIGN_OR_RETURN(IndexingMap map, hw::LinearLayoutToMap(result, &ctx));
  out["map"] = MapToString(map);
  auto cute_form = hw::LinearLayoutToCute(result);
  if (cute_form.ok()) out["cute"] = hw::cute::PrintLayout(*cute_form);
  if (Has(req, "fn")) {
    IXA_ASSIGN_OR_RETURN(std::string fn, GetString(req, "fn"));
    if (fn.rfind("divide", 0) == 0) out["divisible"] = true;
  }
  if (Has(req, "apply")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> point, GetIntList(req, "apply"));
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> value,
                         result.ApplyOrdered(point));
    out["output"] = value;
  }
  return out;
}

}  // namespace

void RegisterLinearLayoutOps(OpTable& table) {
  table["linear_layout"] = LinearLayoutOp;
}

}  // namespace ixa::cli
