#include "analysis/uses/tiles.h"

#include <algorithm>
#include <functional>

#include "core/budget.h"
#include "core/text.h"
#include "simplifier/simplify.h"

namespace ixa {
namespace {

// A term of a tile expression: its size over the tile-size dims, a
// constant stride and the constraints that make it representable.
struct SizeAndStride {
  Expr size;
  int64_t stride = 1;
  // Set when the stride depends on the tile sizes (a combined sum); then
  // `stride` is meaningless.
  Expr symbolic_stride;
  std::vector<TileClause> clauses;      // ixa's (exact)
  std::vector<TileClause> xla_clauses;  // XLA's
  // The largest value of `size` when it is neither a constant nor a
  // tile-size dim (a merged group of equal strides); 0 if unset.
  int64_t max_size = 0;
  // At every block the term's first value is a multiple of its size (or
  // it does not move between blocks): what floordiv and mod need to cut
  // every block alike.
  bool aligned = true;
};

SizeAndStride Fixed(ExprContext* ctx) {
  SizeAndStride t;
  t.size = ctx->Constant(1);
  t.stride = 0;
  return t;
}

class Extractor {
 public:
  Extractor(const IndexingMap& map, std::vector<int64_t> dim_ranges)
      : map_(map), ctx_(map.context()), ranges_(std::move(dim_ranges)) {}

  // The strided part of one result: constant and runtime-only summands are
  // the offset's business and are skipped here.
  Result<SizeAndStride> ExtractResult(Expr e) {
    std::vector<Expr> summands;
    Flatten(e, &summands);
    std::vector<SizeAndStride> terms;
    for (Expr s : summands) {
      auto [uses_rt, uses_other] = VariableKinds(s);
      if (!uses_other) continue;  // constant or runtime offset
      if (uses_rt) {
        return Unsupported(s, "mixes a runtime variable with tiled indices");
      }
      IXA_ASSIGN_OR_RETURN(SizeAndStride t, Extract(s));
      terms.push_back(std::move(t));
    }
    if (terms.empty()) return Fixed(ctx_);
    if (terms.size() == 1) return std::move(terms[0]);
    return Combine(std::move(terms), e);
  }

  // Why XLA gives no tile where this one does (the first reason).
  const std::string& xla_refusal() const { return xla_refusal_; }

 private:
  Error Unsupported(Expr e, const std::string& why) const {
    return Error::Unsupported("no symbolic tile for '" + PrintExpr(e, map_) +
                              "': " + why);
  }
  void XlaRefuses(Expr e, const std::string& why) {
    if (xla_refusal_.empty()) {
      xla_refusal_ =
          "no symbolic tile for '" + PrintExpr(e, map_) + "': " + why;
    }
  }

  static void Flatten(Expr e, std::vector<Expr>* out) {
    if (e.kind() == ExprKind::kAdd) {
      Flatten(e.lhs(), out);
      Flatten(e.rhs(), out);
    } else {
      out->push_back(e);
    }
  }

  // {uses a runtime variable, uses a dim or range variable}.
  std::pair<bool, bool> VariableKinds(Expr e) const {
    std::vector<bool> d, s;
    CollectVariables(e, &d, &s);
    bool rt = false, other = false;
    for (bool b : d) other |= b;
    for (size_t j = 0; j < s.size(); ++j) {
      if (!s[j]) continue;
      if (static_cast<int>(j) < map_.num_range_vars()) {
        other = true;
      } else {
        rt = true;
      }
    }
    return {rt, other};
  }

  // Range of a size term: a tile-size dim's maximum, or the constant.
  std::optional<int64_t> RangeOf(Expr size) const {
    if (size.IsConstant()) return size.constant();
    if (size.IsDim()) return ranges_[size.position()];
    return std::nullopt;
  }
  std::optional<int64_t> RangeOf(const SizeAndStride& t) const {
    if (t.max_size > 0) return t.max_size;
    return RangeOf(t.size);
  }

  // n mod c == 0 || c mod n == 0: blocks of n consecutive values stay
  // aligned to c.
  TileClause Divides(Expr n, int64_t c) {
    return {{n % c, Interval::Point(0)},
            {ctx_->Constant(c) % n, Interval::Point(0)}};
  }

  Result<SizeAndStride> Extract(Expr e) {
    switch (e.kind()) {
      case ExprKind::kDim: {
        // The tile of a dim of extent 1 has size 1 (and, like a constant,
        // stride 0, as XLA writes it).
        if (ranges_[e.position()] == 1) return Fixed(ctx_);
        SizeAndStride t;
        t.size = e;
        return t;
      }
      case ExprKind::kSymbol: {
        const Interval& b = map_.symbol(e.position()).bounds;
        if (e.position() >= map_.num_range_vars()) {
          return Unsupported(e, "a runtime variable in a tiled position");
        }
        if (b.lower != 0) {
          return Unsupported(e, "the range variable does not start at 0");
        }
        SizeAndStride t;
        t.size = ctx_->Constant(b.upper + 1);
        return t;
      }
      case ExprKind::kMul: {
        if (!e.rhs().IsConstant()) {
          return Unsupported(e, "a product of two variables");
        }
        IXA_ASSIGN_OR_RETURN(SizeAndStride t, Extract(e.lhs()));
        if (t.symbolic_stride) {
          t.symbolic_stride = t.symbolic_stride * e.rhs().constant();
          return t;
        }
        auto stride = CheckedMul(t.stride, e.rhs().constant());
        if (!stride) return Unsupported(e, "the stride overflows int64");
        t.stride = *stride;
        return t;
      }
      case ExprKind::kFloorDiv:
      case ExprKind::kMod: {
        if (!e.rhs().IsConstant() || e.rhs().constant() <= 0) {
          return Unsupported(e, "the divisor is not a positive constant");
        }
        const int64_t c = e.rhs().constant();
        IXA_ASSIGN_OR_RETURN(SizeAndStride t, Extract(e.lhs()));
        if (t.symbolic_stride || t.stride != 1) {
          return Unsupported(e, "the dividend is not a stride-1 tile");
        }
        if (!t.aligned) {
          return Unsupported(e,
                             "the dividend's blocks do not start at multiples "
                             "of their size");
        }
        Expr n = t.size;
        if (n.IsConstant()) {
          // A term that does not move between blocks: its values are
          // [0, n) at every block.
          const int64_t v = n.constant();
          if (e.kind() == ExprKind::kFloorDiv) {
            t.size = ctx_->Constant((v + c - 1) / c);
          } else {
            t.size = ctx_->Constant(std::min(v, c));
            if (v % c != 0 && c % v != 0) {
              XlaRefuses(e, "a tile of " + std::to_string(v) +
                                " neither divides nor is divided by " +
                                std::to_string(c));
            }
          }
          return t;
        }
        TileClause divides = Divides(n, c);
        t.clauses.push_back(divides);
        if (e.kind() == ExprKind::kFloorDiv) {
          t.size = (n + (c - 1)).FloorDiv(c);
        } else {
          t.size = n - (n - 1).FloorDiv(c) * c;
          t.xla_clauses.push_back(divides);
        }
        return t;
      }
      case ExprKind::kAdd: {
        std::vector<Expr> summands;
        Flatten(e, &summands);
        std::vector<SizeAndStride> terms;
        for (Expr s : summands) {
          if (s.IsConstant()) {
            return Unsupported(e, "a shifted dividend");
          }
          IXA_ASSIGN_OR_RETURN(SizeAndStride t, Extract(s));
          terms.push_back(std::move(t));
        }
        return Combine(std::move(terms), e);
      }
      case ExprKind::kConstant:
        return Fixed(ctx_);
      case ExprKind::kCeilDiv:
        break;
      case ExprKind::kMin:
      case ExprKind::kMax:
        return Unsupported(e, "min / max is not handled");
    }
    return Unsupported(e, "ceildiv is not handled");
  }

  // 1 when p == 1, else 0, for p in [1, e] (XLA's IfNeqOne condition).
  Expr IfNeqOne(Expr p, Expr if_not_one, Expr if_one, int64_t e) {
    if (p.IsConstant()) return p.constant() != 1 ? if_not_one : if_one;
    if (e <= 1) return if_one;
    Expr is_one = (ctx_->Constant(e + 1) - p).FloorDiv(e);
    return is_one * if_one + (ctx_->Constant(1) - is_one) * if_not_one;
  }

  Result<SizeAndStride> Combine(std::vector<SizeAndStride> terms, Expr whole) {
    // A term of size 1 takes the single value 0: it adds nothing but its
    // representability clauses.
    SizeAndStride fixed = Fixed(ctx_);
    std::vector<SizeAndStride> moving;
    for (SizeAndStride& t : terms) {
      if (t.size.IsConstant(1) && !t.symbolic_stride) {
        for (TileClause& c : t.clauses) fixed.clauses.push_back(std::move(c));
        for (TileClause& c : t.xla_clauses) {
          fixed.xla_clauses.push_back(std::move(c));
        }
      } else {
        moving.push_back(std::move(t));
      }
    }
    if (moving.empty()) return fixed;
    IXA_ASSIGN_OR_RETURN(SizeAndStride out,
                         CombineMoving(std::move(moving), whole));
    for (TileClause& c : fixed.clauses) out.clauses.push_back(std::move(c));
    for (TileClause& c : fixed.xla_clauses) {
      out.xla_clauses.push_back(std::move(c));
    }
    return out;
  }

  static int64_t Abs(int64_t v) { return v < 0 ? -v : v; }

  Result<SizeAndStride> CombineMoving(std::vector<SizeAndStride> terms,
                                      Expr whole) {
    if (terms.size() == 1) return std::move(terms[0]);
    for (const SizeAndStride& t : terms) {
      if (!RangeOf(t)) {
        return Unsupported(whole, "a summand's size is not a tile dim");
      }
      if (t.symbolic_stride) {
        return Unsupported(whole, "a summand is itself a collapse");
      }
      if (t.stride == 0 || t.stride == kInt64Min) {
        return Unsupported(whole, "a summand has no usable stride");
      }
    }
    std::stable_sort(terms.begin(), terms.end(),
                     [](const auto& a, const auto& b) {
                       return Abs(a.stride) < Abs(b.stride);
                     });
    // Terms of equal stride c merge: x_1 * c + ... + x_k * c with x_i in
    // [0, n_i - 1] takes every multiple of c in [0, (sum n_i - k) * c],
    // so they are one term of size sum n_i - (k - 1) (XLA: `d1 + s0` with
    // s0 in [0, 1] has size n + 1). Its blocks are not aligned.
    std::vector<SizeAndStride> merged;
    for (SizeAndStride& t : terms) {
      if (merged.empty() || merged.back().stride != t.stride) {
        merged.push_back(std::move(t));
        continue;
      }
      SizeAndStride& g = merged.back();
      auto max = CheckedAdd(*RangeOf(g), *RangeOf(t) - 1);
      if (!max) return Unsupported(whole, "the tile size overflows int64");
      g.size = g.size + t.size - 1;
      g.max_size = g.size.IsConstant() ? 0 : *max;
      g.aligned = g.size.IsConstant();
      for (TileClause& c : t.clauses) g.clauses.push_back(std::move(c));
      for (TileClause& c : t.xla_clauses) g.xla_clauses.push_back(std::move(c));
    }
    terms = std::move(merged);
    if (terms.size() == 1) return std::move(terms[0]);
    const size_t m = terms.size();
    SizeAndStride out;
    out.size = ctx_->Constant(1);
    bool negative = false;
    for (size_t i = 0; i < m; ++i) {
      out.size = out.size * terms[i].size;
      for (TileClause& c : terms[i].clauses) out.clauses.push_back(c);
      for (TileClause& c : terms[i].xla_clauses) out.xla_clauses.push_back(c);
      negative |= terms[i].stride < 0;
      if (i == 0) continue;
      const int64_t range = *RangeOf(terms[i - 1]);
      auto next = CheckedMul(range, Abs(terms[i - 1].stride));
      if (!next || *next != Abs(terms[i].stride)) {
        return Unsupported(whole,
                           "the strides do not form a row-major collapse");
      }
      // XLA: partially tiling a more minor term forces size 1 on the next
      // one.
      Expr minor = terms[i - 1].size, major = terms[i].size;
      if (minor.IsConstant() || range == 1 || major.IsConstant(1)) continue;
      TileClause clause{{minor, Interval::Point(range)}};
      if (!major.IsConstant()) clause.push_back({major, Interval::Point(1)});
      out.xla_clauses.push_back(std::move(clause));
    }
    if (negative) {
      XlaRefuses(whole,
                 "a negative stride inside a collapsed dimension (a reverse "
                 "before a reshape that merges dims)");
    }
    // The values form one progression iff every two terms of size above 1
    // with only size-1 terms between them are of one sign and the minor
    // one is fully tiled.
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = i + 1; j < m; ++j) {
        TileClause clause{{terms[i].size, Interval::Point(1)},
                          {terms[j].size, Interval::Point(1)}};
        if ((terms[i].stride < 0) == (terms[j].stride < 0)) {
          for (size_t k = i + 1; k < j; ++k) {
            clause.push_back({terms[k].size, Interval{2, *RangeOf(terms[k])}});
          }
          if (j == i + 1) {
            const int64_t range = *RangeOf(terms[i]);
            clause.push_back({terms[i].size, Interval::Point(range)});
          }
        }
        out.clauses.push_back(std::move(clause));
      }
    }
    // The combined stride is that of the most minor term of size != 1.
    Expr stride = ctx_->Constant(0);
    for (auto it = terms.rbegin(); it != terms.rend(); ++it) {
      stride =
          IfNeqOne(it->size, ctx_->Constant(it->stride), stride, *RangeOf(*it));
    }
    if (stride.IsConstant()) {
      out.stride = stride.constant();
    } else {
      out.symbolic_stride = stride;
    }
    // Aligned when only the most major term moves between blocks (the
    // others are fully tiled constants) and it is aligned itself.
    out.aligned = terms.back().aligned;
    for (size_t i = 0; i + 1 < m; ++i) {
      out.aligned &= terms[i].aligned && terms[i].size.IsConstant();
    }
    return out;
  }

  const IndexingMap& map_;
  ExprContext* ctx_;
  std::vector<int64_t> ranges_;
  std::string xla_refusal_;
};

// Dims and range variables read by two results where one of them reads it
// outside any floordiv / mod: the tile is a box around what is read (a
// diagonal), not the read set. Splits of one index by floordiv and mod (a
// reshape) are what the constraints make exact.
std::string SharedIndexReason(const IndexingMap& map) {
  const int nd = map.num_dims();
  std::vector<int> readers(nd + map.num_range_vars(), 0);
  std::vector<bool> bare(readers.size(), false);
  for (Expr r : map.results()) {
    std::vector<bool> used(readers.size(), false), used_bare(readers.size());
    std::function<void(Expr, bool)> walk = [&](Expr e, bool under_divmod) {
      int v = -1;
      if (e.IsDim()) v = static_cast<int>(e.position());
      if (e.IsSymbol() && e.position() < map.num_range_vars()) {
        v = nd + static_cast<int>(e.position());
      }
      if (v >= 0) {
        used[v] = true;
        if (!under_divmod) used_bare[v] = true;
        return;
      }
      if (!e.IsBinary()) return;
      const bool divmod = under_divmod || e.kind() == ExprKind::kFloorDiv ||
                          e.kind() == ExprKind::kMod;
      walk(e.lhs(), divmod);
      walk(e.rhs(), divmod);
    };
    walk(r, false);
    for (size_t v = 0; v < readers.size(); ++v) {
      readers[v] += used[v];
      if (used_bare[v]) bare[v] = true;
    }
  }
  for (size_t v = 0; v < readers.size(); ++v) {
    if (readers[v] > 1 && bare[v]) {
      const std::string name = static_cast<int>(v) < nd
                                   ? map.DimName(static_cast<int>(v))
                                   : map.SymbolName(static_cast<int>(v) - nd);
      return "two results read " + name +
             ": the tile is the box around what is read";
    }
  }
  return "";
}

// XLA accepts a constraint that bounds a result from 0 (high padding).
bool XlaAcceptsConstraint(const IndexingMap& map, const Constraint& c) {
  if (c.interval.lower != 0) return false;
  return std::find(map.results().begin(), map.results().end(), c.expr) !=
         map.results().end();
}

}  // namespace

Result<SymbolicTile> SymbolicTileFromIndexingMap(
    const IndexingMap& map, std::span<const int64_t> output_strides) {
  TileExtraction options;
  options.output_strides = output_strides;
  return SymbolicTileFromIndexingMap(map, options);
}

Result<SymbolicTile> SymbolicTileFromIndexingMap(
    const IndexingMap& map, const TileExtraction& options) {
  ExprContext* ctx = map.context();
  const int nd = map.num_dims(), nr = map.num_range_vars();
  const std::span<const int64_t> output_strides = options.output_strides;
  if (map.IsKnownEmpty()) {
    return Error::Unsupported("no symbolic tile for a KNOWN EMPTY map");
  }
  if (!output_strides.empty() &&
      static_cast<int>(output_strides.size()) != nd) {
    return Error::Invalid("the output tile has " +
                          std::to_string(output_strides.size()) +
                          " strides for " + std::to_string(nd) + " dims");
  }
  if (!options.extents.empty() &&
      static_cast<int>(options.extents.size()) != nd) {
    return Error::Invalid("the tile space has " +
                          std::to_string(options.extents.size()) +
                          " extents for " + std::to_string(nd) + " dims");
  }
  SymbolicTile tile;
  if (!map.constraints().empty()) {
    std::string list;
    bool xla_accepts = true;
    for (const Constraint& c : map.constraints()) {
      if (!list.empty()) list += ", ";
      list += PrintExpr(c.expr, map) + " in " + c.interval.ToString();
      xla_accepts &= XlaAcceptsConstraint(map, c);
    }
    if (!options.allow_superset) {
      return Error::Unsupported(
          "no symbolic tile for a map with constraints (" + list +
          "): a tile is a strided box");
    }
    tile.superset = true;
    tile.superset_reason = "the map's constraints (" + list +
                           ") select part of the tile: it names elements "
                           "they exclude";
    if (!xla_accepts) {
      tile.xla_would_refuse =
          "no symbolic tile for a map with constraints (" + list + ")";
    }
  }
  // Fold the output strides in: d_k -> sigma_k * d_k, and the tile size of
  // dim k ranges over [1, ceil(n_k / sigma_k)].
  std::vector<Expr> scaled, zeros, sym_zero_or_rt;
  std::vector<int64_t> ranges;
  std::vector<Variable> tile_dims;
  for (int k = 0; k < nd; ++k) {
    int64_t sigma = output_strides.empty() ? 1 : output_strides[k];
    if (sigma < 1) return Error::Invalid("output tile strides must be >= 1");
    const Interval& b = map.dims()[k].bounds;
    int64_t extent;
    if (options.extents.empty()) {
      if (b.upper == kInt64Max || b.upper < 0) {
        return Error::Unsupported("no symbolic tile: dim d" +
                                  std::to_string(k) + " is unbounded or empty");
      }
      extent = b.upper + 1;
    } else {
      extent = options.extents[k];
      if (extent < 1) {
        return Error::Invalid("the tile space's extents must be >= 1");
      }
    }
    if (!tile.superset && (b.lower > 0 || b.upper < extent - 1)) {
      tile.superset = true;
      tile.superset_reason =
          "the map reads for part of the tile space only (d" +
          std::to_string(k) + " in " + b.ToString() +
          "): the tile names elements outside what it reads";
    }
    int64_t range = (extent + sigma - 1) / sigma;
    ranges.push_back(range);
    tile_dims.push_back(MakeVariable(Interval{1, std::max<int64_t>(range, 1)}));
    scaled.push_back(ctx->Dim(k) * sigma);
    zeros.push_back(ctx->Constant(0));
  }
  for (int j = 0; j < map.num_symbols(); ++j) {
    sym_zero_or_rt.push_back(j < nr ? ctx->Constant(0) : ctx->Symbol(j - nr));
  }
  // Offsets: the map at the origin; the strided part keeps the variables.
  std::vector<Expr> identity_syms;
  for (int j = 0; j < map.num_symbols(); ++j) {
    identity_syms.push_back(ctx->Symbol(j));
  }
  IndexingMap strided = map;
  strided.ClearConstraints();
  for (Expr& r : strided.mutable_results()) {
    r = Substitute(r, scaled, identity_syms);
  }
  if (!tile.superset) {
    std::string shared = SharedIndexReason(strided);
    if (!shared.empty()) {
      tile.superset = true;
      tile.superset_reason = shared;
    }
  }
  Extractor extractor(strided, ranges);
  std::vector<Expr> offsets, sizes, strides;
  std::vector<TileClause> clauses, xla_clauses;
  for (Expr r : strided.results()) {
    offsets.push_back(Substitute(r, zeros, sym_zero_or_rt));
    IXA_ASSIGN_OR_RETURN(SizeAndStride t, extractor.ExtractResult(r));
    sizes.push_back(t.size);
    strides.push_back(t.symbolic_stride ? t.symbolic_stride
                                        : ctx->Constant(t.stride));
    for (TileClause& c : t.clauses) clauses.push_back(std::move(c));
    for (TileClause& c : t.xla_clauses) xla_clauses.push_back(std::move(c));
  }
  if (tile.xla_would_refuse.empty()) {
    tile.xla_would_refuse = extractor.xla_refusal();
  }
  // Simplify everything together over the tile-size domain, then split.
  std::vector<Expr> all = offsets;
  all.insert(all.end(), sizes.begin(), sizes.end());
  all.insert(all.end(), strides.begin(), strides.end());
  for (const auto* list : {&clauses, &xla_clauses}) {
    for (const TileClause& c : *list) {
      for (const TileAtom& a : c) all.push_back(a.expr);
    }
  }
  std::vector<Variable> rt_vars = map.rt_vars();
  IndexingMap joint(ctx, tile_dims, {}, rt_vars, all);
  SimplifyOptions simplify_options;
  simplify_options.preserve_point_variables = true;
  Simplify(&joint, simplify_options);
  const int rank = map.num_results();
  tile.rank = rank;
  std::vector<Expr> tile_results(joint.results().begin(),
                                 joint.results().begin() + 3 * rank);
  tile.tile_map = IndexingMap(ctx, tile_dims, {}, rt_vars, tile_results);
  tile.source = std::move(strided);
  tile.extents = ranges;
  size_t next = 3 * rank;
  // Simplified clauses in order; nullopt when one never holds.
  auto finish = [&](const std::vector<TileClause>& list)
      -> std::optional<std::vector<TileClause>> {
    std::vector<TileClause> out;
    for (const TileClause& c : list) {
      TileClause simplified;
      bool always = false;
      for (const TileAtom& a : c) {
        Expr e = joint.results()[next++];
        if (e.IsConstant()) {
          if (a.interval.Contains(e.constant())) always = true;
          continue;  // a constant false atom drops out of the disjunction
        }
        simplified.push_back({e, a.interval});
      }
      if (always) continue;
      if (simplified.empty()) return std::nullopt;
      if (std::find_if(out.begin(), out.end(), [&](const TileClause& o) {
            return SameClause(o, simplified);
          }) == out.end()) {
        out.push_back(std::move(simplified));
      }
    }
    return out;
  };
  auto ours = finish(clauses);
  if (!ours) {
    return Error::Unsupported(
        "no symbolic tile: a representability constraint never holds");
  }
  tile.constraints = std::move(*ours);
  auto theirs = finish(xla_clauses);
  if (!theirs) {
    if (tile.xla_would_refuse.empty()) {
      tile.xla_would_refuse = "XLA's constraints never hold";
    }
  } else {
    tile.xla_constraints = std::move(*theirs);
  }
  return tile;
}

std::vector<std::string> PrintTileExprs(const SymbolicTile& tile, int part) {
  std::vector<std::string> out;
  for (int i = 0; i < tile.rank; ++i) {
    Expr e = part == 0 ? tile.offset(i)
                       : (part == 1 ? tile.size(i) : tile.stride(i));
    out.push_back(PrintExpr(e, tile.tile_map));
  }
  return out;
}

std::vector<std::string> PrintTileConstraints(const SymbolicTile& tile) {
  std::vector<std::string> out;
  for (const TileClause& c : tile.constraints) {
    std::string s;
    for (const TileAtom& a : c) {
      if (!s.empty()) s += " || ";
      s += PrintExpr(a.expr, tile.tile_map) + " in " + a.interval.ToString();
    }
    out.push_back(s);
  }
  return out;
}

bool SameClause(const TileClause& a, const TileClause& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].expr != b[i].expr || a[i].interval != b[i].interval) return false;
  }
  return true;
}

std::vector<int64_t> ClampTileSizes(const SymbolicTile& tile,
                                    std::span<const int64_t> tile_sizes) {
  std::vector<int64_t> out(tile_sizes.begin(), tile_sizes.end());
  for (size_t k = 0; k < out.size() && k < tile.extents.size(); ++k) {
    out[k] = std::min(out[k], tile.extents[k]);
  }
  return out;
}

// Does one of the clause's atoms hold at these sizes?
static bool ClauseHoldsAt(const TileClause& c, std::span<const int64_t> sizes,
                          std::span<const int64_t> syms) {
  for (const TileAtom& a : c) {
    auto v = Evaluate(a.expr, sizes, syms);
    if (v.ok() && a.interval.Contains(*v)) return true;
  }
  return false;
}

Result<ConcreteTile> EvaluateTile(const SymbolicTile& tile,
                                  std::span<const int64_t> tile_sizes,
                                  bool clamp_oversized) {
  const IndexingMap& m = tile.tile_map;
  if (static_cast<int>(tile_sizes.size()) != m.num_dims()) {
    return Error::Invalid("the output tile has " +
                          std::to_string(tile_sizes.size()) + " sizes for " +
                          std::to_string(m.num_dims()) + " dims");
  }
  std::vector<int64_t> sizes(tile_sizes.begin(), tile_sizes.end());
  if (clamp_oversized) sizes = ClampTileSizes(tile, tile_sizes);
  for (int k = 0; k < m.num_dims(); ++k) {
    if (!m.dims()[k].bounds.Contains(sizes[k])) {
      return Error::Invalid(
          "output tile size " + std::to_string(tile_sizes[k]) + " of dim " +
          std::to_string(k) + " is outside " + m.dims()[k].bounds.ToString());
    }
  }
  std::vector<int64_t> syms;
  for (const Variable& v : m.rt_vars()) syms.push_back(v.bounds.lower);
  ConcreteTile out;
  std::vector<int64_t> offsets;
  for (int i = 0; i < tile.rank; ++i) {
    IXA_ASSIGN_OR_RETURN(int64_t o, Evaluate(tile.offset(i), sizes, syms));
    IXA_ASSIGN_OR_RETURN(int64_t s, Evaluate(tile.size(i), sizes, syms));
    IXA_ASSIGN_OR_RETURN(int64_t st, Evaluate(tile.stride(i), sizes, syms));
    offsets.push_back(o);
    out.sizes.push_back(s);
    out.strides.push_back(st);
  }
  if (m.num_rt_vars() == 0) out.offsets = std::move(offsets);
  for (const TileClause& c : tile.constraints) {
    out.satisfied &= ClauseHoldsAt(c, sizes, syms);
  }
  out.xla_satisfied = tile.xla_would_refuse.empty();
  for (const TileClause& c : tile.xla_constraints) {
    out.xla_satisfied &= ClauseHoldsAt(c, sizes, syms);
  }
  return out;
}

Result<ConcreteTile> EvaluateTileAsRequested(
    const SymbolicTile& tile, std::span<const int64_t> tile_sizes) {
  IXA_ASSIGN_OR_RETURN(
      ConcreteTile out,
      EvaluateTile(tile, tile_sizes, /*clamp_oversized=*/true));
  const IndexingMap& m = tile.tile_map;
  bool oversized = false;
  for (int k = 0; k < m.num_dims(); ++k) {
    oversized |= tile_sizes[k] > m.dims()[k].bounds.upper;
  }
  if (!oversized) return out;
  std::vector<int64_t> syms;
  for (const Variable& v : m.rt_vars()) syms.push_back(v.bounds.lower);
  // Only the sizes: a stride's expression holds over the tile space (at
  // the clamped sizes), and the whole-dim stride is the clamped one.
  for (int i = 0; i < tile.rank; ++i) {
    IXA_ASSIGN_OR_RETURN(out.sizes[i],
                         Evaluate(tile.size(i), tile_sizes, syms));
  }
  return out;
}

Result<IndexingMap> TileOffsetsMap(const SymbolicTile& tile,
                                   std::span<const int64_t> tile_sizes,
                                   const std::vector<std::string>& dim_names) {
  const IndexingMap& source = tile.source;
  ExprContext* ctx = source.context();
  const int nd = source.num_dims(), nr = source.num_range_vars();
  if (static_cast<int>(tile_sizes.size()) != nd) {
    return Error::Invalid("the tile has " + std::to_string(nd) + " dims: got " +
                          std::to_string(tile_sizes.size()) + " sizes");
  }
  const std::vector<int64_t> sizes = ClampTileSizes(tile, tile_sizes);
  std::vector<Variable> blocks;
  std::vector<Expr> origin, syms;
  for (int k = 0; k < nd; ++k) {
    if (sizes[k] < 1) return Error::Invalid("tile sizes must be >= 1");
    const int64_t count = (tile.extents[k] + sizes[k] - 1) / sizes[k];
    std::string name = k < static_cast<int>(dim_names.size())
                           ? dim_names[k]
                           : "b" + std::to_string(k);
    blocks.push_back(MakeVariable(Interval{0, count - 1}, name));
    origin.push_back(ctx->Dim(k) * sizes[k]);
  }
  for (int j = 0; j < source.num_symbols(); ++j) {
    syms.push_back(j < nr ? ctx->Constant(0) : ctx->Symbol(j - nr));
  }
  std::vector<Expr> results;
  for (Expr r : source.results())
    results.push_back(Substitute(r, origin, syms));
  IndexingMap out(ctx, blocks, {}, source.rt_vars(), results);
  Simplify(&out);
  return out;
}

Result<ParameterTiles> ComputeParameterTilesPartial(
    const FusionRegion& region, int output_id,
    std::span<const int64_t> output_strides, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(
      std::vector<PartialIndexing> per_param,
      ComputeFusionParameterIndexingPartial(region, output_id, ctx));
  ParameterTiles out;
  for (size_t i = 0; i < per_param.size() && i < region.parameters.size();
       ++i) {
    if (per_param[i].unknown()) {
      out.unknown.push_back({static_cast<int>(i), region.parameters[i]->name,
                             per_param[i].unknown_reason});
      continue;
    }
    for (const IndexingMap& m : per_param[i].maps) {
      if (DeadlineExpired("tile")) return DeadlineError();
      OperandTile t;
      t.parameter = static_cast<int>(i);
      t.name = region.parameters[i]->name;
      t.map = m;
      auto tile = SymbolicTileFromIndexingMap(m, output_strides);
      if (tile.ok()) {
        t.tile = std::move(tile).value();
      } else if (tile.error().code == ErrorCode::kUnsupported) {
        t.unsupported = tile.error().message;
      } else {
        return tile.error();
      }
      out.tiles.push_back(std::move(t));
    }
  }
  return out;
}

Result<std::vector<OperandTile>> ComputeParameterTiles(
    const FusionRegion& region, int output_id,
    std::span<const int64_t> output_strides, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(
      ParameterTiles tiles,
      ComputeParameterTilesPartial(region, output_id, output_strides, ctx));
  if (!tiles.unknown.empty()) {
    return Error::Unsupported(tiles.unknown.front().reason);
  }
  return std::move(tiles.tiles);
}

}  // namespace ixa
