// Algebra ops of the query protocol (docs/protocol.md).
#include <algorithm>
#include <array>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/compose.h"
#include "simplifier/decide.h"
#include "simplifier/simplify.h"
#include "tools/ixa/algebra_core.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

namespace {

Json IntervalJson(const Interval& iv) {
  return Json::array({iv.lower, iv.upper});
}

Json PointJson(const Point& p) {
  return Json{{"dims", p.dims}, {"symbols", p.symbols}};
}

Result<Json> OpParse(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
  return Json{{"map", MapToString(map)}};
}

Result<Json> OpSimplify(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
  IXA_ASSIGN_OR_RETURN(bool explain, GetBool(req, "explain", false));
  SimplifyOptions options;
  options.trace = explain;
  SimplifyResult r = Simplify(&map, options);
  Json out{{"map", MapToString(map)}, {"changed", r.changed}};
  if (r.budget_exhausted) out["budget_exhausted"] = true;
  if (explain) {
    Json trace = Json::array();
    for (const TraceStep& s : r.trace) {
      trace.push_back(
          {{"rule", s.rule}, {"before", s.before}, {"after", s.after}});
    }
    out["trace"] = std::move(trace);
  }
  return out;
}

Result<Json> OpCompose(const Json& req, ExprContext& ctx) {
  if (!Has(req, "maps")) return Error::BadRequest("missing field 'maps'");
  const Json& maps = req.at("maps");
  if (!maps.is_array() || maps.size() < 2) {
    return Error::BadRequest("field 'maps' must be a list of 2 or more maps");
  }
  std::vector<std::string_view> texts;
  for (size_t i = 0; i < maps.size(); ++i) {
    if (!maps[i].is_string()) {
      // The maps before it are read (and their errors win), as always.
      if (!texts.empty()) {
        auto prefix = ComposeMapTexts(texts, ctx);
        if (!prefix.ok()) return prefix.error();
      }
      return Error::BadRequest("field 'maps' item " + std::to_string(i) +
                               " must be a string");
    }
    texts.push_back(maps[i].get_ref<const std::string&>());
  }
  IXA_ASSIGN_OR_RETURN(IndexingMap composed, ComposeMapTexts(texts, ctx));
  return Json{{"map", MapToString(composed)}};
}

Result<Json> OpEvaluate(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, GetIntList(req, "dims"));
  std::vector<int64_t> syms;
  if (Has(req, "symbols")) {
    IXA_ASSIGN_OR_RETURN(syms, GetIntList(req, "symbols"));
  }
  if (map.IsKnownEmpty() &&
      dims.size() == static_cast<size_t>(map.num_dims()) &&
      syms.size() == static_cast<size_t>(map.num_symbols())) {
    return Json{{"results", map.Evaluate(dims, syms).value()},
                {"in_domain", false}};
  }
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> results, map.Evaluate(dims, syms));
  IXA_ASSIGN_OR_RETURN(bool in_domain, map.InDomain(dims, syms));
  return Json{{"results", results}, {"in_domain", in_domain}};
}

Result<Json> OpIsEmpty(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
  IXA_ASSIGN_OR_RETURN(bool empty, IsEmpty(map));
  return Json{{"empty", empty}};
}

Result<Json> OpEquivalent(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap a, GetMap(req, "a", ctx));
  IXA_ASSIGN_OR_RETURN(IndexingMap b, GetMap(req, "b", ctx));
  IXA_ASSIGN_OR_RETURN(Equivalence eq, Equivalent(a, b));
  Json out{{"equivalent", eq.equivalent}};
  if (!eq.equivalent && eq.counterexample) {
    out["counterexample"] = PointJson(*eq.counterexample);
  }
  return out;
}

Result<Interval> GetInterval(const Json& v, const std::string& what) {
  if (!v.is_array() || v.size() != 2) {
    return Error::BadRequest(what + " must be an interval [lo, hi]");
  }
  Json wrapper{{"x", v}};
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> xs, GetIntList(wrapper, "x"));
  return Interval{xs[0], xs[1]};
}

Result<Json> OpInterval(const Json& req, ExprContext&) {
  IXA_ASSIGN_OR_RETURN(std::string fn, GetString(req, "fn"));
  if (!Has(req, "args") || !req.at("args").is_array() ||
      req.at("args").size() != 2) {
    return Error::BadRequest("field 'args' must be a list of two intervals");
  }
  IXA_ASSIGN_OR_RETURN(Interval a, GetInterval(req.at("args")[0], "args[0]"));
  IXA_ASSIGN_OR_RETURN(Interval b, GetInterval(req.at("args")[1], "args[1]"));
  auto tri = [](std::optional<bool> v) { return v ? Json(*v) : Json(nullptr); };
  Json result;
  if (fn == "add") {
    result = IntervalJson(a + b);
  } else if (fn == "mul") {
    result = IntervalJson(a * b);
  } else if (fn == "floordiv" || fn == "mod") {
    if (b.IsPoint() && b.lower == 0) {
      return Error::Invalid(fn + " by the interval [0, 0]: division by zero");
    }
    result = IntervalJson(fn == "floordiv" ? a.FloorDiv(b) : a.Mod(b));
  } else if (fn == "min") {
    result = IntervalJson(a.Min(b));
  } else if (fn == "max") {
    result = IntervalJson(a.Max(b));
  } else if (fn == "union") {
    result = IntervalJson(a.Union(b));
  } else if (fn == "intersect") {
    result = IntervalJson(a.Intersect(b));
  } else if (fn == "gt") {
    result = tri(a.Gt(b));
  } else if (fn == "lt") {
    result = tri(a.Lt(b));
  } else if (fn == "ge") {
    result = tri(a.Ge(b));
  } else if (fn == "le") {
    result = tri(a.Le(b));
  } else if (fn == "eq") {
    result = tri(a.Eq(b));
  } else if (fn == "ne") {
    result = tri(a.Ne(b));
  } else {
    return Error::BadRequest("unknown interval fn '" + fn +
                             "' (add, mul, floordiv, mod, min, max, union, "
                             "intersect, gt, lt, ge, le, eq, ne)");
  }
  return Json{{"result", result}};
}

template <typename Transform>
OpHandler MapRewrite(Transform transform) {
  return [transform](const Json& req, ExprContext& ctx) -> Result<Json> {
    IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
    bool changed = transform(map);
    return Json{{"map", MapToString(map)}, {"changed", changed}};
  };
}

// Without `symbols`, every symbol (range then runtime variables) becomes a
// dim; with it, only the listed range variables (XLA's
// ConvertRangeVariablesToDimensions).
Result<Json> OpConvertSymbolsToDims(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
  if (!Has(req, "symbols")) {
    bool changed = map.num_symbols() > 0;
    map = map.ConvertSymbolsToDims();
    return Json{{"map", MapToString(map)}, {"changed", changed}};
  }
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> symbols,
                       GetIntList(req, "symbols"));
  std::sort(symbols.begin(), symbols.end());
  auto converted = map.ConvertRangeVariablesToDims(symbols);
  if (!converted.ok()) {
    Error e = converted.error();
    e.message = "in 'symbols': " + e.message;
    return e;
  }
  return Json{{"map", MapToString(*converted)}, {"changed", !symbols.empty()}};
}

Result<Json> OpBounds(const Json& req, ExprContext& ctx) {
  IXA_ASSIGN_OR_RETURN(IndexingMap map, GetMap(req, "map", ctx));
  std::vector<Expr> exprs;
  if (Has(req, "expr")) {
    IXA_ASSIGN_OR_RETURN(std::string text, GetString(req, "expr"));
    auto e = ParseExpr(text, &ctx, DimNames(map), SymbolNames(map));
    if (!e.ok()) {
      Error err = e.error();
      err.message = "in 'expr': " + err.message;
      return err;
    }
    exprs.push_back(*e);
  } else {
    exprs = map.results();
  }
  Json results = Json::array();
  bool exact = true;
  for (Expr e : exprs) {
    IXA_ASSIGN_OR_RETURN(ExprBounds b, BoundsOf(map, e));
    exact = exact && b.exact;
    results.push_back(b.interval.IsEmpty() ? Json(nullptr)
                                           : IntervalJson(b.interval));
  }
  return Json{{"results", results}, {"exact", exact}};
}

}  // namespace

namespace {

Error AtItem(Error e, size_t item) {
  e.message =
      "composing 'maps' item " + std::to_string(item) + ": " + e.message;
  return e;
}

}  // namespace

Result<IndexingMap> ComposeMapTexts(std::span<const std::string_view> texts,
                                    ExprContext& ctx) {
  // Simplified once at the end, or earlier when the chain grows: see
  // ChainComposer.
  ChainComposer chain;
  for (size_t i = 0; i < texts.size(); ++i) {
    auto m = ParseIndexingMap(texts[i], &ctx);
    if (!m.ok()) {
      Error e = m.error();
      e.message = "in 'maps' item " + std::to_string(i) + ": " + e.message;
      return e;
    }
    auto added = chain.Add(std::move(m).value());
    if (!added.ok()) return AtItem(added.error(), i);
  }
  IXA_CHECK(!texts.empty());
  auto composed = chain.Finish();
  if (!composed.ok()) return AtItem(composed.error(), chain.failed_item());
  return composed;
}

void RegisterAlgebraOps(OpTable& table) {
  table["parse"] = OpParse;
  table["simplify"] = OpSimplify;
  table["compose"] = OpCompose;
  table["evaluate"] = OpEvaluate;
  table["is_empty"] = OpIsEmpty;
  table["equivalent"] = OpEquivalent;
  table["interval"] = OpInterval;
  table["bounds"] = OpBounds;
  table["remove_unused_symbols"] =
      MapRewrite([](IndexingMap& m) { return m.RemoveUnusedSymbols(); });
  table["remove_unused_vars"] =
      MapRewrite([](IndexingMap& m) { return m.RemoveUnusedVars(); });
  table["rescale_symbols"] =
      MapRewrite([](IndexingMap& m) { return m.RescaleSymbols(); });
  table["convert_symbols_to_dims"] = OpConvertSymbolsToDims;
}

}  // namespace ixa::cli
