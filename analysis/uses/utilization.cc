#include "analysis/uses/utilization.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_set>

#include "core/budget.h"
#include "core/enumerate.h"
#include "core/int_math.h"
#include "core/text.h"
#include "simplifier/decide.h"

namespace ixa {
namespace {

// Variables are numbered dims first, then symbols.
class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Union(int a, int b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<int> parent_;
};

std::vector<int> VarsOf(Expr e, int nd, int ns) {
  std::vector<bool> d(nd, false), s(ns, false);
  CollectVariables(e, &d, &s);
  std::vector<int> out;
  for (int i = 0; i < nd; ++i) {
    if (d[i]) out.push_back(i);
  }
  for (int j = 0; j < ns; ++j) {
    if (s[j]) out.push_back(nd + j);
  }
  return out;
}

const Interval& BoundOfVar(const IndexingMap& map, int v) {
  return v < map.num_dims() ? map.dims()[v].bounds
                            : map.symbol(v - map.num_dims()).bounds;
}

// Product of the variables' box sizes, saturating.
int64_t SubBoxSize(const IndexingMap& map, const std::vector<int>& vars) {
  int64_t n = 1;
  for (int v : vars) n = SaturatingMul(n, BoundOfVar(map, v).Size());
  return n;
}

// Calls f(dims, symbols) for every assignment of `vars` within their bounds;
// the other variables sit at their lower bound. f returns false on error.
// Returns false when f failed.
bool ForEachSubBoxPoint(
    const IndexingMap& map, const std::vector<int>& vars,
    const std::function<bool(const std::vector<int64_t>&,
                             const std::vector<int64_t>&)>& f) {
  const int nd = map.num_dims();
  std::vector<int64_t> dims(nd), syms(map.num_symbols());
  for (int i = 0; i < nd; ++i) dims[i] = map.dims()[i].bounds.lower;
  for (int j = 0; j < map.num_symbols(); ++j) {
    syms[j] = map.symbol(j).bounds.lower;
  }
  for (int v : vars) {
    if (BoundOfVar(map, v).IsEmpty()) return true;
  }
  auto slot = [&](int v) -> int64_t& {
    return v < nd ? dims[v] : syms[v - nd];
  };
  while (true) {
    if (!f(dims, syms)) return false;
    int k = static_cast<int>(vars.size()) - 1;
    for (; k >= 0; --k) {
      int64_t& x = slot(vars[k]);
      if (x < BoundOfVar(map, vars[k]).upper) {
        ++x;
        break;
      }
      x = BoundOfVar(map, vars[k]).lower;
    }
    if (k < 0) return true;
  }
}

// Evaluates every constraint in `cons` at the point.
Result<bool> Satisfies(const std::vector<const Constraint*>& cons,
                       const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& syms) {
  if (DeadlineExpired("utilization")) return DeadlineError();
  for (const Constraint* c : cons) {
    // Saturated: a value past int64 meets an end at the limit (a sentinel)
    // and no other (IndexingMap::InDomain).
    IXA_ASSIGN_OR_RETURN(int64_t v, EvaluateSaturated(c->expr, dims, syms));
    if (!c->interval.Contains(v)) return false;
  }
  return true;
}

// The variables of a map grouped into independent components: variables
// that share a constraint (and, with `link_results`, a result) are one
// component.
struct Components {
  std::vector<std::vector<int>> vars;                       // per component
  std::vector<std::vector<const Constraint*>> constraints;  // per component
  std::vector<int> of_var;  // component of each variable
  std::vector<const Constraint*> constant_constraints;
};

Components ComputeComponents(const IndexingMap& map, bool link_results) {
  const int nd = map.num_dims(), ns = map.num_symbols(), nv = nd + ns;
  UnionFind uf(nv);
  auto link = [&](Expr e) {
    std::vector<int> vs = VarsOf(e, nd, ns);
    for (size_t i = 1; i < vs.size(); ++i) uf.Union(vs[0], vs[i]);
  };
  for (const Constraint& c : map.constraints()) link(c.expr);
  if (link_results) {
    for (Expr r : map.results()) link(r);
  }
  Components out;
  out.of_var.assign(nv, -1);
  std::vector<int> id_of_root(nv, -1);
  for (int v = 0; v < nv; ++v) {
    int r = uf.Find(v);
    if (id_of_root[r] < 0) {
      id_of_root[r] = static_cast<int>(out.vars.size());
      out.vars.emplace_back();
      out.constraints.emplace_back();
    }
    out.of_var[v] = id_of_root[r];
    out.vars[id_of_root[r]].push_back(v);
  }
  for (const Constraint& c : map.constraints()) {
    std::vector<int> vs = VarsOf(c.expr, nd, ns);
    if (vs.empty()) {
      out.constant_constraints.push_back(&c);
    } else {
      out.constraints[out.of_var[vs[0]]].push_back(&c);
    }
  }
  return out;
}

int64_t ProductOf(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n = SaturatingMul(n, std::max<int64_t>(d, 0));
  return n;
}

// Row-major position of `point` in `dims`, or -1 outside the box.
int64_t LinearKey(std::span<const int64_t> point,
                  std::span<const int64_t> dims) {
  int64_t key = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (point[i] < 0 || point[i] >= dims[i]) return -1;
    key = key * dims[i] + point[i];
  }
  return key;
}

Result<ImageCount> CountByEnumeration(const std::vector<IndexingMap>& maps,
                                      std::span<const int64_t> dims,
                                      int64_t limit) {
  const int64_t total = ProductOf(dims);
  // A bitmap up to 2^27 elements (16 MiB); a hash set beyond.
  const bool use_bitmap = total <= (int64_t{1} << 27);
  std::vector<bool> bitmap(use_bitmap ? total : 0, false);
  std::unordered_set<int64_t> set;
  int64_t count = 0;
  std::vector<int64_t> point(dims.size());
  for (const IndexingMap& map : maps) {
    std::optional<Error> error;
    auto r = ForEachDomainPoint(map, limit, [&](const Point& p) {
      for (int j = 0; j < map.num_results(); ++j) {
        auto v = Evaluate(map.results()[j], p.dims, p.symbols);
        if (!v.ok()) {
          error = v.error();
          return false;
        }
        point[j] = *v;
      }
      int64_t key = LinearKey(point, dims);
      if (key < 0) return true;
      if (use_bitmap) {
        if (!bitmap[key]) {
          bitmap[key] = true;
          ++count;
        }
      } else if (set.insert(key).second) {
        ++count;
      }
      return true;
    });
    if (error) return *error;
    if (!r.ok()) return r.error();
  }
  return ImageCount{count, "enumeration"};
}

// The product method (see the header). Returns nullopt when a block is too
// large to enumerate or there are too many maps.
Result<std::optional<ImageCount>> CountByProduct(
    const std::vector<IndexingMap>& maps, std::span<const int64_t> dims,
    const UtilizationOptions& options) {
  const int k = static_cast<int>(maps.size());
  if (k > options.max_inclusion_exclusion_maps)
    return std::optional<ImageCount>();
  const int nres = static_cast<int>(dims.size());
  // Blocks of result coordinates: results whose variables are linked in
  // any map are one block.
  UnionFind res_uf(std::max(nres, 1));
  std::vector<Components> comps;
  for (const IndexingMap& m : maps) {
    comps.push_back(ComputeComponents(m, /*link_results=*/true));
    std::vector<int> first_result(comps.back().vars.size(), -1);
    for (int j = 0; j < nres; ++j) {
      for (int v : VarsOf(m.results()[j], m.num_dims(), m.num_symbols())) {
        int c = comps.back().of_var[v];
        if (first_result[c] < 0) {
          first_result[c] = j;
        } else {
          res_uf.Union(first_result[c], j);
        }
      }
    }
  }
  std::vector<std::vector<int>> blocks;
  {
    std::vector<int> id(nres, -1);
    for (int j = 0; j < nres; ++j) {
      int r = res_uf.Find(j);
      if (id[r] < 0) {
        id[r] = static_cast<int>(blocks.size());
        blocks.emplace_back();
      }
      blocks[id[r]].push_back(j);
    }
  }
  // sets[m][b]: the sorted distinct keys of map m's image on block b.
  std::vector<std::vector<std::vector<int64_t>>> sets(k);
  for (int mi = 0; mi < k; ++mi) {
    const IndexingMap& m = maps[mi];
    const Components& c = comps[mi];
    for (const std::vector<int>& block : blocks) {
      std::vector<bool> take(c.vars.size(), false);
      for (int j : block) {
        for (int v : VarsOf(m.results()[j], m.num_dims(), m.num_symbols())) {
          take[c.of_var[v]] = true;
        }
      }
      std::vector<int> vars;
      std::vector<const Constraint*> cons;
      for (size_t ci = 0; ci < take.size(); ++ci) {
        if (!take[ci]) continue;
        vars.insert(vars.end(), c.vars[ci].begin(), c.vars[ci].end());
        cons.insert(cons.end(), c.constraints[ci].begin(),
                    c.constraints[ci].end());
      }
      if (SubBoxSize(m, vars) > options.enumeration_limit)
        return std::optional<ImageCount>();
      std::vector<int64_t> block_dims, point(block.size());
      for (int j : block) block_dims.push_back(dims[j]);
      std::vector<int64_t> keys;
      std::optional<Error> error;
      ForEachSubBoxPoint(m, vars, [&](const auto& d, const auto& s) {
        auto ok = Satisfies(cons, d, s);
        if (!ok.ok()) {
          error = ok.error();
          return false;
        }
        if (!*ok) return true;
        for (size_t t = 0; t < block.size(); ++t) {
          auto v = Evaluate(m.results()[block[t]], d, s);
          if (!v.ok()) {
            error = v.error();
            return false;
          }
          point[t] = *v;
        }
        int64_t key = LinearKey(point, block_dims);
        if (key >= 0) keys.push_back(key);
        return true;
      });
      if (error) return *error;
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      sets[mi].push_back(std::move(keys));
    }
  }
  // Inclusion–exclusion over subsets, depth first; an empty intersection
  // prunes all its supersets.
  int64_t total = 0;
  std::function<void(int, const std::vector<std::vector<int64_t>>*, int)>
      visit = [&](int start, const std::vector<std::vector<int64_t>>* current,
                  int size) {
        for (int mi = start; mi < k; ++mi) {
          if (DeadlineExpired("utilization")) return;
          std::vector<std::vector<int64_t>> next;
          int64_t product = 1;
          for (size_t b = 0; b < blocks.size(); ++b) {
            std::vector<int64_t> inter;
            if (current == nullptr) {
              inter = sets[mi][b];
            } else {
              std::set_intersection((*current)[b].begin(), (*current)[b].end(),
                                    sets[mi][b].begin(), sets[mi][b].end(),
                                    std::back_inserter(inter));
            }
            product =
                SaturatingMul(product, static_cast<int64_t>(inter.size()));
            next.push_back(std::move(inter));
          }
          if (product == 0) continue;
          total += (size % 2 == 0) ? product : -product;
          visit(mi + 1, &next, size + 1);
        }
      };
  visit(0, nullptr, 0);
  if (DeadlineExpiredIn()) return DeadlineError();
  return std::optional<ImageCount>(ImageCount{total, "product"});
}

// Shifts a copy's variables: dims by `dim_shift`, symbols by `sym_shift`.
Expr Shifted(Expr e, int nd, int ns, int dim_shift, int sym_shift,
             ExprContext* ctx) {
  std::vector<Expr> d, s;
  for (int i = 0; i < nd; ++i) d.push_back(ctx->Dim(i + dim_shift));
  for (int j = 0; j < ns; ++j) s.push_back(ctx->Symbol(j + sym_shift));
  return Substitute(e, d, s);
}

}  // namespace

IndexingMap FixRuntimeVars(const IndexingMap& map, bool midpoint,
                           bool* had_runtime) {
  if (had_runtime) *had_runtime = map.num_rt_vars() > 0;
  if (map.num_rt_vars() == 0 || map.IsKnownEmpty()) return map;
  ExprContext* ctx = map.context();
  const int nr = map.num_range_vars();
  std::vector<Expr> dims, syms;
  for (int i = 0; i < map.num_dims(); ++i) dims.push_back(ctx->Dim(i));
  for (int j = 0; j < nr; ++j) syms.push_back(ctx->Symbol(j));
  for (const Variable& v : map.rt_vars()) {
    const Interval& b = v.bounds;
    int64_t value = b.lower;
    if (midpoint && b.IsFeasible()) value = b.lower + (b.upper - b.lower) / 2;
    syms.push_back(ctx->Constant(value));
  }
  std::vector<Expr> results;
  for (Expr r : map.results()) results.push_back(Substitute(r, dims, syms));
  std::vector<Constraint> cons;
  for (const Constraint& c : map.constraints()) {
    cons.push_back({Substitute(c.expr, dims, syms), c.interval});
  }
  return IndexingMap(ctx, map.dims(), map.range_vars(), {}, std::move(results),
                     std::move(cons));
}

Result<int64_t> CountDomainPoints(const IndexingMap& map,
                                  const UtilizationOptions& options) {
  if (map.IsKnownEmpty()) return int64_t{0};
  if (map.num_rt_vars() > 0) {
    return Error::Invalid("CountDomainPoints: fix the runtime variables first");
  }
  Components c = ComputeComponents(map, /*link_results=*/false);
  std::vector<int64_t> none;
  IXA_ASSIGN_OR_RETURN(bool ok, Satisfies(c.constant_constraints, none, none));
  if (!ok) return int64_t{0};
  int64_t total = 1;
  for (size_t ci = 0; ci < c.vars.size(); ++ci) {
    if (c.constraints[ci].empty()) {
      total = SaturatingMul(total, SubBoxSize(map, c.vars[ci]));
      continue;
    }
    int64_t box = SubBoxSize(map, c.vars[ci]);
    if (box > options.enumeration_limit) {
      return Error::Limit("counting the domain of " + PrintIndexingMap(map) +
                          ": " + std::to_string(box) +
                          " points linked by constraints exceed the "
                          "enumeration limit of " +
                          std::to_string(options.enumeration_limit));
    }
    int64_t n = 0;
    std::optional<Error> error;
    ForEachSubBoxPoint(map, c.vars[ci], [&](const auto& d, const auto& s) {
      auto in = Satisfies(c.constraints[ci], d, s);
      if (!in.ok()) {
        error = in.error();
        return false;
      }
      n += *in ? 1 : 0;
      return true;
    });
    if (error) return *error;
    total = SaturatingMul(total, n);
    if (total == 0) return int64_t{0};
  }
  return total;
}

Result<bool> IsInjective(const IndexingMap& map) {
  if (map.IsKnownEmpty()) return true;
  ExprContext* ctx = map.context();
  const int nd = map.num_dims(), ns = map.num_symbols();
  if (map.num_rt_vars() > 0) {
    return Error::Invalid("IsInjective: fix the runtime variables first");
  }
  if (nd + ns == 0) return true;
  // Two copies x (first) and y (second) of every variable; the map is
  // injective iff no x != y (lexicographically x < y suffices by symmetry)
  // has f(x) == f(y).
  std::vector<Variable> dims = map.dims(), ranges = map.range_vars();
  // The second copy: same bounds, default names.
  for (const Variable& v : map.dims()) dims.push_back(MakeVariable(v.bounds));
  for (const Variable& v : map.range_vars()) {
    ranges.push_back(MakeVariable(v.bounds));
  }
  auto x = [&](Expr e) { return Shifted(e, nd, ns, 0, 0, ctx); };
  auto y = [&](Expr e) { return Shifted(e, nd, ns, nd, ns, ctx); };
  std::vector<Constraint> base;
  for (const Constraint& c : map.constraints()) {
    base.push_back({x(c.expr), c.interval});
    base.push_back({y(c.expr), c.interval});
  }
  for (Expr r : map.results()) {
    base.push_back({x(r) - y(r), Interval::Point(0)});
  }
  auto var = [&](int v, bool second) {
    if (v < nd) return ctx->Dim(v + (second ? nd : 0));
    return ctx->Symbol(v - nd + (second ? ns : 0));
  };
  for (int p = 0; p < nd + ns; ++p) {
    std::vector<Constraint> cons = base;
    for (int i = 0; i < p; ++i) {
      cons.push_back({var(i, false) - var(i, true), Interval::Point(0)});
    }
    cons.push_back({var(p, true) - var(p, false), Interval{1, kInt64Max}});
    IndexingMap doubled(ctx, dims, ranges, {}, {}, std::move(cons));
    IXA_ASSIGN_OR_RETURN(bool empty, IsEmpty(doubled));
    if (!empty) return false;
  }
  return true;
}

Result<ImageCount> CountImageUnion(std::span<const IndexingMap> maps,
                                   std::span<const int64_t> dims,
                                   const UtilizationOptions& options) {
  std::vector<IndexingMap> live;
  for (const IndexingMap& m : maps) {
    if (m.num_rt_vars() > 0) {
      return Error::Invalid("CountImageUnion: fix the runtime variables first");
    }
    if (m.num_results() != static_cast<int>(dims.size())) {
      return Error::Invalid("CountImageUnion: map " + PrintIndexingMap(m) +
                            " does not have " + std::to_string(dims.size()) +
                            " results");
    }
    if (m.IsKnownEmpty()) continue;
    IndexingMap reduced = m;
    // Variables the results do not depend on do not change the image.
    reduced.RemoveUnusedVars();
    if (reduced.IsKnownEmpty()) continue;
    IXA_ASSIGN_OR_RETURN(bool empty, IsEmpty(reduced));
    if (empty) continue;
    if (std::find(live.begin(), live.end(), reduced) == live.end()) {
      live.push_back(std::move(reduced));
    }
  }
  if (live.empty()) return ImageCount{0, "empty"};
  int64_t points = 0;
  for (const IndexingMap& m : live) points = SaturatingAdd(points, m.BoxSize());
  if (options.product_first) {
    IXA_ASSIGN_OR_RETURN(std::optional<ImageCount> product,
                         CountByProduct(live, dims, options));
    if (product) return *product;
  }
  if (points <= options.enumeration_limit) {
    return CountByEnumeration(live, dims, options.enumeration_limit);
  }
  IXA_ASSIGN_OR_RETURN(std::optional<ImageCount> product,
                       CountByProduct(live, dims, options));
  if (product) return *product;
  if (live.size() == 1) {
    auto injective = IsInjective(live[0]);
    if (injective.ok() && *injective) {
      IXA_ASSIGN_OR_RETURN(int64_t n, CountDomainPoints(live[0], options));
      return ImageCount{n, "injective"};
    }
  }
  return Error::Limit("counting the distinct elements read by " +
                      std::to_string(live.size()) + " map(s) (" +
                      std::to_string(points) +
                      " domain points): beyond the enumeration limit of " +
                      std::to_string(options.enumeration_limit) +
                      ", no product structure and not provably injective");
}

Result<std::vector<std::vector<IndexingMap>>> AllParameterMaps(
    const FusionRegion& region, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(std::vector<PartialIndexing> all,
                       AllOutputsParameterIndexingPartial(region, ctx));
  std::vector<std::vector<IndexingMap>> out;
  for (const PartialIndexing& p : all) {
    if (p.unknown()) return Error::Unsupported(p.unknown_reason);
    out.emplace_back(p.maps.begin(), p.maps.end());
  }
  return out;
}

namespace {

// One parameter's counts, or the error that makes it unknown (its code
// kept for the strict form).
Result<OperandUtilization> CountParameter(const hlo::Instruction& param,
                                          std::span<const IndexingMap> maps,
                                          const UtilizationOptions& options) {
  OperandUtilization u;
  u.name = param.name;
  u.elements_total = param.shape.ElementCount();
  u.num_maps = static_cast<int>(maps.size());
  std::vector<IndexingMap> fixed;
  for (const IndexingMap& m : maps) {
    bool rt = false;
    fixed.push_back(FixRuntimeVars(m, /*midpoint=*/false, &rt));
    u.depends_on_runtime |= rt;
    IXA_ASSIGN_OR_RETURN(int64_t n, CountDomainPoints(fixed.back(), options));
    u.reads = SaturatingAdd(u.reads, n);
  }
  IXA_ASSIGN_OR_RETURN(ImageCount image,
                       CountImageUnion(fixed, param.shape.dims, options));
  u.elements_read = image.count;
  u.method = image.method;
  u.utilization = u.elements_total == 0
                      ? 1.0
                      : static_cast<double>(u.elements_read) /
                            static_cast<double>(u.elements_total);
  return u;
}

}  // namespace

Result<UtilizationAnalysis> AnalyzeUtilization(
    const FusionRegion& region, ExprContext* ctx,
    const UtilizationOptions& options) {
  IXA_ASSIGN_OR_RETURN(std::vector<PartialIndexing> all,
                       AllOutputsParameterIndexingPartial(region, ctx));
  UtilizationAnalysis out;
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    const hlo::Instruction* param = region.parameters[i];
    auto unknown = [&](std::string reason) {
      out.unknown.push_back({static_cast<int>(i), param->name, reason});
    };
    if (all[i].unknown()) {
      unknown(all[i].unknown_reason);
      continue;
    }
    if (!param->shape.IsArray()) {
      unknown(NotAnArrayReason(*param));
      continue;
    }
    auto u = CountParameter(*param, all[i].maps.maps(), options);
    if (!u.ok()) {
      if (DeadlineExpiredIn()) return DeadlineError();
      unknown(u.error().message);
      continue;
    }
    u->parameter = static_cast<int>(i);
    out.operands.push_back(std::move(u).value());
  }
  return out;
}

Result<std::vector<OperandUtilization>> ComputeUtilization(
    const FusionRegion& region, ExprContext* ctx,
    const UtilizationOptions& options) {
  IXA_ASSIGN_OR_RETURN(auto all_maps, AllParameterMaps(region, ctx));
  std::vector<OperandUtilization> out;
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    const hlo::Instruction* param = region.parameters[i];
    if (!param->shape.IsArray()) {
      return Error::Unsupported("utilization of parameter '" + param->name +
                                "': " + NotAnArrayReason(*param));
    }
    auto u = CountParameter(*param, all_maps[i], options);
    if (!u.ok()) {
      Error e = u.error();
      e.message = "parameter '" + param->name + "': " + e.message;
      return e;
    }
    u->parameter = static_cast<int>(i);
    out.push_back(std::move(u).value());
  }
  return out;
}

}  // namespace ixa
