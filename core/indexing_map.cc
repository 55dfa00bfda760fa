#include "core/indexing_map.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "core/enumerate.h"

namespace ixa {

namespace {

std::string DefaultName(const char* prefix, int i) {
  return prefix + std::to_string(i);
}

// Is `name` prefix followed by the decimal digits of i (DefaultName)?
// Compared in place: maps are built per request, and every parsed name
// passes here.
bool IsDefaultName(std::string_view name, std::string_view prefix, size_t i) {
  size_t p = prefix.size();
  if (name.size() <= p) return false;
  for (size_t k = 0; k < p; ++k) {
    if (name[k] != prefix[k]) return false;
  }
  // The digits of i from the last: name must end with exactly them.
  size_t end = name.size();
  do {
    if (end == p || name[end - 1] != static_cast<char>('0' + i % 10)) {
      return false;
    }
    --end;
    i /= 10;
  } while (i != 0);
  return end == p;
}

// Names equal to their default are stored empty so that they never matter.
void NormalizeNames(std::vector<Variable>& vars, std::string_view prefix) {
  for (size_t i = 0; i < vars.size(); ++i) {
    if (IsDefaultName(vars[i].name, prefix, i)) vars[i].name.clear();
  }
}

bool SameVariable(const Variable& a, const Variable& b) {
  if (a.bounds != b.bounds || a.producer != b.producer) return false;
  if (!a.producer_map != !b.producer_map) return false;
  return !a.producer_map || *a.producer_map == *b.producer_map;
}

// Largest box we enumerate to prove a removable constraint group feasible.
constexpr int64_t kFeasibilityEnumerationLimit = 1 << 16;

}  // namespace

IndexingMap::IndexingMap(ExprContext* ctx, std::vector<Variable> dims,
                         std::vector<Variable> range_vars,
                         std::vector<Variable> rt_vars,
                         std::vector<Expr> results,
                         std::vector<Constraint> constraints)
    : ctx_(ctx),
      dims_(std::move(dims)),
      range_vars_(std::move(range_vars)),
      rt_vars_(std::move(rt_vars)),
      results_(std::move(results)) {
  NormalizeNames(dims_, "d");
  NormalizeNames(range_vars_, "s");
  NormalizeNames(rt_vars_, "rt");
  for (auto* vars : {&dims_, &range_vars_, &rt_vars_}) {
    for (const Variable& v : *vars) {
      if (v.bounds.IsEmpty()) {
        ResetToKnownEmpty();
        return;
      }
    }
  }
  for (const Constraint& c : constraints) AddConstraint(c.expr, c.interval);
}

IndexingMap IndexingMap::FromTensorSizes(
    ExprContext* ctx, std::vector<Expr> results,
    std::span<const int64_t> dim_sizes, std::span<const int64_t> symbol_sizes) {
  std::vector<Variable> dims, syms;
  for (int64_t n : dim_sizes) dims.push_back({Interval{0, n - 1}, ""});
  for (int64_t n : symbol_sizes) syms.push_back({Interval{0, n - 1}, ""});
  return IndexingMap(ctx, std::move(dims), std::move(syms), {},
                     std::move(results));
}

IndexingMap IndexingMap::Identity(ExprContext* ctx,
                                  std::span<const int64_t> dim_sizes) {
  std::vector<Expr> results;
  for (size_t i = 0; i < dim_sizes.size(); ++i) results.push_back(ctx->Dim(i));
  return FromTensorSizes(ctx, std::move(results), dim_sizes, {});
}

IndexingMap IndexingMap::KnownEmpty(ExprContext* ctx, int num_dims,
                                    int num_results) {
  IndexingMap map;
  map.ctx_ = ctx;
  map.dims_.resize(num_dims);
  map.results_.assign(num_results, ctx->Constant(0));
  map.ResetToKnownEmpty();
  return map;
}

const Variable& IndexingMap::symbol(int i) const {
  IXA_CHECK(i >= 0 && i < num_symbols());
  return i < num_range_vars() ? range_vars_[i] : rt_vars_[i - num_range_vars()];
}

Variable& IndexingMap::mutable_symbol(int i) {
  IXA_CHECK(i >= 0 && i < num_symbols());
  return i < num_range_vars() ? range_vars_[i] : rt_vars_[i - num_range_vars()];
}

std::string IndexingMap::DimName(int i) const {
  const std::string& n = dims_[i].name;
  return n.empty() ? DefaultName("d", i) : n;
}

std::string IndexingMap::SymbolName(int i) const {
  if (i < num_range_vars()) {
    const std::string& n = range_vars_[i].name;
    return n.empty() ? DefaultName("s", i) : n;
  }
  int k = i - num_range_vars();
  const std::string& n = rt_vars_[k].name;
  return n.empty() ? DefaultName("rt", k) : n;
}

void IndexingMap::SetConstraints(std::vector<Constraint> constraints) {
  constraints_.clear();
  for (const Constraint& c : constraints) AddConstraint(c.expr, c.interval);
}

void IndexingMap::ResetToKnownEmpty() {
  known_empty_ = true;
  for (Expr& r : results_) r = ctx_->Constant(0);
  for (auto* vars : {&dims_, &range_vars_, &rt_vars_}) {
    for (Variable& v : *vars) v.bounds = Interval{0, -1};
  }
  constraints_.clear();
}

void IndexingMap::AddConstraint(Expr expr, Interval interval) {
  if (known_empty_) return;
  if (interval.IsEmpty()) {
    ResetToKnownEmpty();
    return;
  }
  if (expr.IsConstant()) {
    if (!interval.Contains(expr.constant())) ResetToKnownEmpty();
    return;
  }
  if (expr.IsVariable()) {
    Variable& v = expr.IsDim()
                      ? dims_[expr.position()]
                      : mutable_symbol(static_cast<int>(expr.position()));
    v.bounds = v.bounds.Intersect(interval);
    if (v.bounds.IsEmpty()) ResetToKnownEmpty();
    return;
  }
  for (Constraint& c : constraints_) {
    if (c.expr == expr) {
      c.interval = c.interval.Intersect(interval);
      if (c.interval.IsEmpty()) ResetToKnownEmpty();
      return;
    }
  }
  constraints_.push_back({expr, interval});
}

namespace {

// A point must give exactly one value per dim and per symbol.
std::optional<Error> CheckPointArity(const IndexingMap& map,
                                     std::span<const int64_t> dims,
                                     std::span<const int64_t> symbols) {
  if (dims.size() == static_cast<size_t>(map.num_dims()) &&
      symbols.size() == static_cast<size_t>(map.num_symbols())) {
    return std::nullopt;
  }
  return Error::Invalid("expected " + std::to_string(map.num_dims()) +
                        " dims and " + std::to_string(map.num_symbols()) +
                        " symbols, got " + std::to_string(dims.size()) +
                        " and " + std::to_string(symbols.size()));
}

}  // namespace

Result<std::vector<int64_t>> IndexingMap::Evaluate(
    std::span<const int64_t> dims, std::span<const int64_t> symbols) const {
  if (auto error = CheckPointArity(*this, dims, symbols)) return *error;
  std::vector<int64_t> out;
  out.reserve(results_.size());
  for (Expr r : results_) {
    IXA_ASSIGN_OR_RETURN(int64_t v, ixa::Evaluate(r, dims, symbols));
    out.push_back(v);
  }
  return out;
}

Result<bool> IndexingMap::InDomain(std::span<const int64_t> dims,
                                   std::span<const int64_t> symbols) const {
  if (auto error = CheckPointArity(*this, dims, symbols)) return *error;
  if (known_empty_) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims_[i].bounds.Contains(dims[i])) return false;
  }
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (!symbol(static_cast<int>(i)).bounds.Contains(symbols[i])) return false;
  }
  for (const Constraint& c : constraints_) {
    IXA_ASSIGN_OR_RETURN(int64_t v, ixa::Evaluate(c.expr, dims, symbols));
    if (!c.interval.Contains(v)) return false;
  }
  return true;
}

int64_t IndexingMap::BoxSize() const {
  int64_t n = 1;
  for (auto* vars : {&dims_, &range_vars_, &rt_vars_}) {
    for (const Variable& v : *vars) n = SaturatingMul(n, v.bounds.Size());
  }
  return n;
}

bool IndexingMap::UsesSemiAffine() const {
  for (Expr r : results_) {
    if (!r.IsPureAffine()) return true;
  }
  for (const Constraint& c : constraints_) {
    if (!c.expr.IsPureAffine()) return true;
  }
  return false;
}

namespace {

// Positions: dims are 0..D-1, symbols D..D+S-1.
struct VarUse {
  std::vector<bool> dims, symbols;
};

VarUse UsesOf(Expr e, int num_dims, int num_symbols) {
  VarUse u{std::vector<bool>(num_dims), std::vector<bool>(num_symbols)};
  CollectVariables(e, &u.dims, &u.symbols);
  u.dims.resize(num_dims);
  u.symbols.resize(num_symbols);
  return u;
}

}  // namespace

// Shared by RemoveUnusedSymbols and RemoveUnusedVars. Candidate variables
// are those no result uses (only symbols when `symbols_only`). A constraint
// that mentions a kept variable keeps all of its variables (iterated to a
// fixpoint). The removable constraints then mention only removable
// variables and form an independent subsystem: dropping it is sound only if
// it is satisfiable. If enumeration shows it unsatisfiable the whole map is
// empty; if it is too large to check, nothing is removed (XLA drops it
// unconditionally, which can turn an empty map into a non-empty one).
static bool RemoveUnused(IndexingMap* map, bool symbols_only) {
  if (map->IsKnownEmpty()) return false;
  const int nd = map->num_dims(), ns = map->num_symbols();
  std::vector<bool> keep_dim(nd, symbols_only), keep_sym(ns, false);
  for (Expr r : map->results()) CollectVariables(r, &keep_dim, &keep_sym);
  keep_dim.resize(nd);
  keep_sym.resize(ns);
  std::vector<VarUse> uses;
  for (const Constraint& c : map->constraints()) {
    uses.push_back(UsesOf(c.expr, nd, ns));
  }
  std::vector<bool> constraint_kept(uses.size(), false);
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t k = 0; k < uses.size(); ++k) {
      if (constraint_kept[k]) continue;
      bool touches_kept = false;
      for (int i = 0; i < nd && !touches_kept; ++i) {
        touches_kept = uses[k].dims[i] && keep_dim[i];
      }
      for (int i = 0; i < ns && !touches_kept; ++i) {
        touches_kept = uses[k].symbols[i] && keep_sym[i];
      }
      if (!touches_kept) continue;
      constraint_kept[k] = true;
      grew = true;
      for (int i = 0; i < nd; ++i) keep_dim[i] = keep_dim[i] || uses[k].dims[i];
      for (int i = 0; i < ns; ++i) {
        keep_sym[i] = keep_sym[i] || uses[k].symbols[i];
      }
    }
  }
  bool any_removed = std::count(keep_dim.begin(), keep_dim.end(), false) +
                         std::count(keep_sym.begin(), keep_sym.end(), false) >
                     0;
  if (!any_removed) return false;

  // Feasibility of the dropped subsystem.
  std::vector<Constraint> dropped, kept;
  for (size_t k = 0; k < uses.size(); ++k) {
    (constraint_kept[k] ? kept : dropped).push_back(map->constraints()[k]);
  }
  if (!dropped.empty()) {
    std::vector<Variable> dims = map->dims(), ranges = map->range_vars(),
                          rts = map->rt_vars();
    // Collapse kept variables to a point: they do not occur in `dropped`.
    for (int i = 0; i < nd; ++i) {
      if (keep_dim[i]) dims[i].bounds = Interval::Point(dims[i].bounds.lower);
    }
    for (int i = 0; i < ns; ++i) {
      if (!keep_sym[i]) continue;
      Variable& v = i < map->num_range_vars() ? ranges[i]
                                              : rts[i - map->num_range_vars()];
      v.bounds = Interval::Point(v.bounds.lower);
    }
    IndexingMap sub(map->context(), dims, ranges, rts, {}, dropped);
    auto empty = IsEmptyByEnumeration(sub, kFeasibilityEnumerationLimit);
    if (!empty.ok()) return false;  // cannot prove it feasible: keep all
    if (*empty) {
      map->ResetToKnownEmpty();
      return true;
    }
  }
  map->SetConstraints(kept);
  std::vector<bool> erase_dim(nd), erase_sym(ns);
  for (int i = 0; i < nd; ++i) erase_dim[i] = !keep_dim[i];
  for (int i = 0; i < ns; ++i) erase_sym[i] = !keep_sym[i];
  map->EraseSymbols(erase_sym);
  map->EraseDims(erase_dim);
  return true;
}

bool IndexingMap::RemoveUnusedSymbols() { return RemoveUnused(this, true); }
bool IndexingMap::RemoveUnusedVars() { return RemoveUnused(this, false); }

void IndexingMap::EraseSymbols(const std::vector<bool>& erase) {
  std::vector<Expr> replacement;
  std::vector<Variable> ranges, rts;
  int next = 0;
  for (int i = 0; i < num_symbols(); ++i) {
    bool gone = i < static_cast<int>(erase.size()) && erase[i];
    if (gone) {
      replacement.push_back(ctx_->Constant(0));  // unused by contract
      continue;
    }
    replacement.push_back(ctx_->Symbol(next++));
    Variable v = symbol(i);
    // Renumbered variables lose default names; custom names survive.
    (i < num_range_vars() ? ranges : rts).push_back(std::move(v));
  }
  if (next == num_symbols()) return;
  for (Expr& r : results_) r = Substitute(r, {}, replacement);
  for (Constraint& c : constraints_)
    c.expr = Substitute(c.expr, {}, replacement);
  range_vars_ = std::move(ranges);
  rt_vars_ = std::move(rts);
}

void IndexingMap::EraseDims(const std::vector<bool>& erase) {
  std::vector<Expr> replacement;
  std::vector<Variable> dims;
  int next = 0;
  for (int i = 0; i < num_dims(); ++i) {
    if (i < static_cast<int>(erase.size()) && erase[i]) {
      replacement.push_back(ctx_->Constant(0));
      continue;
    }
    replacement.push_back(ctx_->Dim(next++));
    dims.push_back(dims_[i]);
  }
  if (next == num_dims()) return;
  for (Expr& r : results_) r = Substitute(r, replacement, {});
  for (Constraint& c : constraints_)
    c.expr = Substitute(c.expr, replacement, {});
  dims_ = std::move(dims);
}

bool IndexingMap::RescaleSymbols() {
  if (known_empty_) return false;
  bool changed = false;
  for (int s = 0; s < num_symbols() && !known_empty_; ++s) {
    Expr sym = ctx_->Symbol(s);
    for (size_t k = 0; k < constraints_.size(); ++k) {
      const Constraint c = constraints_[k];
      if (c.expr.kind() != ExprKind::kMod || c.expr.lhs() != sym ||
          !c.expr.rhs().IsConstant() || c.expr.rhs().constant() <= 0 ||
          !c.interval.IsPoint()) {
        continue;
      }
      const int64_t m = c.expr.rhs().constant(), r = c.interval.lower;
      constraints_.erase(constraints_.begin() + k);
      if (r < 0 || r >= m) {  // a remainder mod m lies in [0, m-1]
        ResetToKnownEmpty();
        return true;
      }
      // s = m * s' + r; s in [lo, hi]  <=>  s' in [ceil((lo-r)/m),
      // floor((hi-r)/m)] (exact rounding; XLA truncates, which is wrong for
      // negative bounds).
      Variable& v = mutable_symbol(s);
      Interval b = v.bounds;
      int64_t lo = b.lower == kInt64Min
                       ? kInt64Min
                       : *CeilDiv(SaturatingAdd(b.lower, -r), m);
      int64_t hi = b.upper == kInt64Max
                       ? kInt64Max
                       : *FloorDiv(SaturatingAdd(b.upper, -r), m);
      v.bounds = Interval{lo, hi};
      std::vector<Expr> repl(num_symbols());
      for (int i = 0; i < num_symbols(); ++i) repl[i] = ctx_->Symbol(i);
      repl[s] = ctx_->Add(ctx_->Mul(sym, ctx_->Constant(m)), ctx_->Constant(r));
      for (Expr& e : results_) e = Substitute(e, {}, repl);
      std::vector<Constraint> rest = std::move(constraints_);
      constraints_.clear();
      if (v.bounds.IsEmpty()) {
        ResetToKnownEmpty();
        return true;
      }
      for (Constraint& other : rest) {
        AddConstraint(Substitute(other.expr, {}, repl), other.interval);
      }
      changed = true;
      break;  // one constraint per symbol, as in XLA
    }
  }
  return changed;
}

IndexingMap IndexingMap::ConvertSymbolsToDims() const {
  std::vector<Variable> dims = dims_;
  std::vector<Expr> repl;
  for (int i = 0; i < num_symbols(); ++i) {
    repl.push_back(ctx_->Dim(num_dims() + i));
    Variable v = symbol(i);
    if (v.name.empty()) v.name = SymbolName(i);  // keep s<i>/rt<i> readable
    v.producer.clear();
    v.producer_map.reset();
    dims.push_back(std::move(v));
  }
  std::vector<Expr> results;
  for (Expr r : results_) results.push_back(Substitute(r, {}, repl));
  std::vector<Constraint> constraints;
  for (const Constraint& c : constraints_) {
    constraints.push_back({Substitute(c.expr, {}, repl), c.interval});
  }
  IndexingMap out(ctx_, std::move(dims), {}, {}, std::move(results),
                  std::move(constraints));
  if (known_empty_) out.ResetToKnownEmpty();
  return out;
}

bool IndexingMap::operator==(const IndexingMap& o) const {
  if (num_dims() != o.num_dims() || num_range_vars() != o.num_range_vars() ||
      num_rt_vars() != o.num_rt_vars() || results_ != o.results_ ||
      known_empty_ != o.known_empty_) {
    return false;
  }
  for (int i = 0; i < num_dims(); ++i) {
    if (!SameVariable(dims_[i], o.dims_[i])) return false;
  }
  for (int i = 0; i < num_symbols(); ++i) {
    if (!SameVariable(symbol(i), o.symbol(i))) return false;
  }
  if (constraints_.size() != o.constraints_.size()) return false;
  for (const Constraint& c : constraints_) {
    bool found = false;
    for (const Constraint& d : o.constraints_) {
      if (d.expr == c.expr) {
        found = d.interval == c.interval;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

Interval RangeOverBounds(Expr e, const IndexingMap& map) {
  switch (e.kind()) {
    case ExprKind::kConstant:
      return Interval::Point(e.constant());
    case ExprKind::kDim:
      return e.position() < map.num_dims() ? map.dims()[e.position()].bounds
                                           : Interval::Full();
    case ExprKind::kSymbol:
      return e.position() < map.num_symbols()
                 ? map.symbol(static_cast<int>(e.position())).bounds
                 : Interval::Full();
    default:
      break;
  }
  Interval l = RangeOverBounds(e.lhs(), map);
  Interval r = RangeOverBounds(e.rhs(), map);
  switch (e.kind()) {
    case ExprKind::kAdd:
      return l + r;
    case ExprKind::kMul:
      return l * r;
    case ExprKind::kFloorDiv:
      return l.FloorDiv(r);
    case ExprKind::kCeilDiv:
      return l.CeilDiv(r);
    case ExprKind::kMod:
      return l.Mod(r);
    case ExprKind::kMin:
      return l.Min(r);
    case ExprKind::kMax:
      return l.Max(r);
    case ExprKind::kConstant:
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      break;  // handled above
  }
  return Interval::Full();
}

Result<IndexingMap> ComposeIndexingMaps(const IndexingMap& first,
                                        const IndexingMap& second) {
  if (first.num_results() != second.num_dims()) {
    return Error::Invalid("cannot compose: the first map has " +
                          std::to_string(first.num_results()) +
                          " results but the second has " +
                          std::to_string(second.num_dims()) + " dims");
  }
  if (first.context() != second.context()) {
    return Error::Invalid("cannot compose maps from different contexts");
  }
  ExprContext* ctx = first.context();
  if (first.IsKnownEmpty() || second.IsKnownEmpty()) {
    return IndexingMap::KnownEmpty(ctx, first.num_dims(), second.num_results());
  }
  // Symbol order: [range(second), range(first), rt(second), rt(first)].
  const int r2 = second.num_range_vars(), r1 = first.num_range_vars();
  const int t2 = second.num_rt_vars(), t1 = first.num_rt_vars();
  std::vector<Expr> first_syms, second_syms;
  for (int i = 0; i < r1; ++i) first_syms.push_back(ctx->Symbol(r2 + i));
  for (int i = 0; i < t1; ++i)
    first_syms.push_back(ctx->Symbol(r2 + r1 + t2 + i));
  for (int i = 0; i < r2; ++i) second_syms.push_back(ctx->Symbol(i));
  for (int i = 0; i < t2; ++i) second_syms.push_back(ctx->Symbol(r2 + r1 + i));

  std::vector<Expr> first_results;
  for (Expr r : first.results()) {
    first_results.push_back(Substitute(r, {}, first_syms));
  }
  std::vector<Expr> results;
  for (Expr r : second.results()) {
    results.push_back(Substitute(r, first_results, second_syms));
  }
  std::vector<Variable> ranges, rts;
  for (const Variable& v : second.range_vars()) ranges.push_back(v);
  for (const Variable& v : first.range_vars()) ranges.push_back(v);
  for (const Variable& v : second.rt_vars()) {
    Variable moved = v;
    // The producer map read second's dims; it now reads first's.
    if (v.producer_map && v.producer_map->num_dims() == first.num_results()) {
      auto composed = ComposeIndexingMaps(first, *v.producer_map);
      if (composed.ok()) {
        moved.producer_map =
            std::make_shared<const IndexingMap>(std::move(composed).value());
      }
    }
    rts.push_back(std::move(moved));
  }
  for (const Variable& v : first.rt_vars()) rts.push_back(v);
  // Default names are positional; custom ones survive.
  std::vector<Constraint> constraints;
  for (const Constraint& c : second.constraints()) {
    constraints.push_back(
        {Substitute(c.expr, first_results, second_syms), c.interval});
  }
  for (const Constraint& c : first.constraints()) {
    constraints.push_back({Substitute(c.expr, {}, first_syms), c.interval});
  }
  for (int i = 0; i < second.num_dims(); ++i) {
    const Interval& bound = second.dims()[i].bounds;
    if (bound.IsFull()) continue;
    // Skip a bound that first's result meets at every point of first's box
    // (sound: interval arithmetic over-approximates). A saturated end means
    // "unbounded", so it never counts as inside.
    Interval range = RangeOverBounds(first.results()[i], first);
    if (range.lower != kInt64Min && range.upper != kInt64Max &&
        bound.Contains(range)) {
      continue;
    }
    constraints.push_back({first_results[i], bound});
  }
  return IndexingMap(ctx, first.dims(), std::move(ranges), std::move(rts),
                     std::move(results), std::move(constraints));
}

}  // namespace ixa
