#include "core/indexing_map.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "core/budget.h"
#include "core/enumerate.h"
#include "core/node_map.h"
#include "core/substituter.h"

namespace ixa {

Variable MakeVariable(Interval bounds, std::string name) {
  Variable v;
  v.bounds = bounds;
  v.name = std::move(name);
  return v;
}

namespace {

std::string DefaultName(const char* prefix, int i) {
  return prefix + std::to_string(i);
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

using Wide = __int128;

// An exact range of values, in 128 bits: variable bounds are int64, so a
// sum or product of a few of them is exact here where int64 would saturate
// (and a saturated end such as INT64_MAX + (-5) looks like a real bound).
struct WideRange {
  Wide lo, hi;
};

// -2^127 (std::numeric_limits is not specialized for __int128 in strict
// C++ modes).
constexpr Wide kWideMin =
    -static_cast<Wide>((static_cast<unsigned __int128>(1) << 127) - 1) - 1;

Wide WideDiv(Wide a, Wide b, bool ceil) {
  if (static_cast<int64_t>(a) == a && static_cast<int64_t>(b) == b && b != -1) {
    // The common case in 64 bits (a 128-bit division is a library call).
    int64_t x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
    int64_t q = x / y;
    if (x % y != 0 && ((x < 0) == (y < 0)) == ceil) q += ceil ? 1 : -1;
    return q;
  }
  Wide q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0)) == ceil) q += ceil ? 1 : -1;
  return q;
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
  // A constraint value past int64 is compared as the limit it passed:
  // past an interval's finite end it is outside, and an end at the limit is
  // the unbounded sentinel, which every such value meets (the decision
  // procedures and the simplifier read constraints so). An error here would
  // leave `evaluate` without an answer that exists.
  for (const Constraint& c : constraints_) {
    IXA_ASSIGN_OR_RETURN(int64_t v,
                         ixa::EvaluateSaturated(c.expr, dims, symbols));
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

namespace {

// e = k * q + c with c a constant, when every non-constant summand of e is
// a product by a multiple of k (k > 0); nullopt otherwise.
std::optional<std::pair<Expr, int64_t>> SplitMultipleOf(Expr e, int64_t k) {
  ExprContext* ctx = e.context();
  switch (e.kind()) {
    case ExprKind::kConstant:
      return std::make_pair(ctx->Constant(0), e.constant());
    case ExprKind::kMul:
      if (!e.rhs().IsConstant() || e.rhs().constant() % k != 0) break;
      return std::make_pair(
          ctx->Mul(e.lhs(), ctx->Constant(e.rhs().constant() / k)), int64_t{0});
    case ExprKind::kAdd: {
      auto a = SplitMultipleOf(e.lhs(), k);
      if (!a) break;
      auto b = SplitMultipleOf(e.rhs(), k);
      if (!b) break;
      auto c = CheckedAdd(a->second, b->second);
      if (!c) break;
      return std::make_pair(ctx->Add(a->first, b->first), *c);
    }
    default:
      break;
  }
  return std::nullopt;
}

// Folds (k*q + c) floordiv k = q + floor(c / k), (k*q + c) ceildiv k =
// q + ceil(c / k) and (k*q + c) mod k = c mod k for constants k > 0 (q an
// integer): the folding MLIR's expression builders do on construction,
// which XLA's RescaleSymbols relies on (s -> 6 * s turns `s floordiv 6`
// into `s`).
class MultipleFolder {
 public:
  Expr Run(Expr e) {
    if (!e.IsBinary()) return e;
    if (const Expr* known = memo_.Find(e.node())) return *known;
    Expr l = Run(e.lhs()), r = Run(e.rhs());
    Expr out = (l == e.lhs() && r == e.rhs())
                   ? e
                   : e.context()->Binary(e.kind(), l, r);
    if (IsDivModKind(out.kind()) && r.IsConstant() && r.constant() > 0 &&
        !l.IsConstant()) {
      if (auto split = SplitMultipleOf(l, r.constant())) {
        ExprContext* ctx = e.context();
        const int64_t k = r.constant(), c = split->second;
        if (out.kind() == ExprKind::kMod) {
          out = ctx->Constant(*Mod(c, k));
        } else {
          int64_t q = out.kind() == ExprKind::kFloorDiv ? *FloorDiv(c, k)
                                                        : *CeilDiv(c, k);
          out = ctx->Add(split->first, ctx->Constant(q));
        }
      }
    }
    memo_.Put(e.node(), out);
    return out;
  }

 private:
  NodeMap<Expr> memo_;
};

}  // namespace

bool IndexingMap::RescaleSymbols() {
  if (known_empty_) return false;
  bool changed = false;
  for (int s = 0; s < num_symbols() && !known_empty_; ++s) {
    Expr sym = ctx_->Symbol(s);
    // Every `s mod m in [r, r]` (m > 0) merged into one congruence s = r
    // (mod M), as XLA merges mod constraints first (and, with different
    // remainders, goes further: the Chinese remainder theorem; a pair
    // that cannot be merged stays a constraint).
    std::optional<Congruence> merged;
    std::vector<bool> used(constraints_.size(), false);
    for (size_t k = 0; k < constraints_.size(); ++k) {
      const Constraint& c = constraints_[k];
      if (c.expr.kind() != ExprKind::kMod || c.expr.lhs() != sym ||
          !c.expr.rhs().IsConstant() || c.expr.rhs().constant() <= 0 ||
          !c.interval.IsPoint()) {
        continue;
      }
      const Congruence one{c.expr.rhs().constant(), c.interval.lower};
      if (one.residue < 0 || one.residue >= one.modulus) {
        ResetToKnownEmpty();  // a remainder mod m lies in [0, m-1]
        return true;
      }
      if (!merged) {
        merged = one;
        used[k] = true;
        continue;
      }
      auto both = CombineCongruences(*merged, one);
      if (!both) {
        ResetToKnownEmpty();
        return true;
      }
      if (both->modulus < 0) continue;
      merged = *both;
      used[k] = true;
    }
    if (!merged) continue;
    const int64_t m = merged->modulus, r = merged->residue;
    // s = m * s' + r; s in [lo, hi]  <=>  s' in [ceil((lo-r)/m),
    // floor((hi-r)/m)] (exact rounding; XLA truncates, which is wrong for
    // negative bounds). In 128 bits: the int64 limits are real bounds
    // (s in [INT64_MIN, INT64_MAX], s mod 2^62 in [0, 0] gives s' in
    // [-2, 1]), and a bound that does not fit leaves the map unchanged
    // rather than widening it.
    Variable& v = mutable_symbol(s);
    const Interval b = v.bounds;
    Wide lo = WideDiv(static_cast<Wide>(b.lower) - r, m, /*ceil=*/true);
    Wide hi = WideDiv(static_cast<Wide>(b.upper) - r, m, /*ceil=*/false);
    if (lo < kInt64Min || lo > kInt64Max || hi < kInt64Min || hi > kInt64Max) {
      continue;
    }
    std::vector<Constraint> rest;
    for (size_t k = 0; k < constraints_.size(); ++k) {
      if (!used[k]) rest.push_back(std::move(constraints_[k]));
    }
    constraints_.clear();
    v.bounds = Interval{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
    changed = true;
    if (v.bounds.IsEmpty()) {
      ResetToKnownEmpty();
      return true;
    }
    std::vector<Expr> repl(num_symbols());
    for (int i = 0; i < num_symbols(); ++i) repl[i] = ctx_->Symbol(i);
    repl[s] = ctx_->Add(ctx_->Mul(sym, ctx_->Constant(m)), ctx_->Constant(r));
    Substituter substitute({}, repl);
    MultipleFolder fold;
    for (Expr& e : results_) e = fold.Run(substitute.Run(e));
    for (Constraint& other : rest) {
      AddConstraint(fold.Run(substitute.Run(other.expr)), other.interval);
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

Result<IndexingMap> IndexingMap::ConvertRangeVariablesToDims(
    std::span<const int64_t> range_var_indices) const {
  std::vector<bool> convert(num_range_vars(), false);
  for (size_t k = 0; k < range_var_indices.size(); ++k) {
    int64_t i = range_var_indices[k];
    if (i < 0 || i >= num_range_vars()) {
      return Error::Invalid("symbol " + std::to_string(i) +
                            " is not a range variable (the map has " +
                            std::to_string(num_range_vars()) +
                            " range variables)");
    }
    if (k > 0 && i <= range_var_indices[k - 1]) {
      return Error::Invalid(
          "the symbols to convert must be ascending and distinct");
    }
    convert[i] = true;
  }
  std::vector<Variable> dims = dims_, ranges;
  std::vector<Expr> repl(num_symbols());
  for (int i = 0; i < num_range_vars(); ++i) {
    if (convert[i]) {
      repl[i] = ctx_->Dim(static_cast<int64_t>(dims.size()));
      dims.push_back(range_vars_[i]);
    } else {
      repl[i] = ctx_->Symbol(static_cast<int64_t>(ranges.size()));
      ranges.push_back(range_vars_[i]);
    }
  }
  const int64_t kept_ranges = static_cast<int64_t>(ranges.size());
  for (int i = 0; i < num_rt_vars(); ++i) {
    repl[num_range_vars() + i] = ctx_->Symbol(kept_ranges + i);
  }
  // Runtime variables' producer maps read this map's dims and leading
  // range variables: give them the new dims and renumber their symbols.
  std::vector<Variable> rt_vars = rt_vars_;
  for (Variable& v : rt_vars) {
    if (!v.producer_map) continue;
    const IndexingMap& pm = *v.producer_map;
    std::vector<Expr> pm_repl(
        repl.begin(),
        repl.begin() + std::min<size_t>(repl.size(), pm.num_symbols()));
    std::vector<Expr> results;
    for (Expr e : pm.results()) results.push_back(Substitute(e, {}, pm_repl));
    std::vector<Variable> pm_dims = dims;
    for (Variable& d : pm_dims) {
      d.producer.clear();
      d.producer_map.reset();
    }
    v.producer_map = std::make_shared<const IndexingMap>(
        ctx_, std::move(pm_dims), ranges, std::vector<Variable>{},
        std::move(results));
  }
  std::vector<Expr> results;
  for (Expr r : results_) results.push_back(Substitute(r, {}, repl));
  std::vector<Constraint> constraints;
  for (const Constraint& c : constraints_) {
    constraints.push_back({Substitute(c.expr, {}, repl), c.interval});
  }
  // Names: kept, unless the move makes two variables print alike (a dim
  // and a renumbered symbol); then every variable takes its default name.
  IndexingMap out(ctx_, std::move(dims), std::move(ranges), std::move(rt_vars),
                  std::move(results), std::move(constraints));
  std::vector<std::string> names;
  for (int i = 0; i < out.num_dims(); ++i) names.push_back(out.DimName(i));
  for (int i = 0; i < out.num_symbols(); ++i)
    names.push_back(out.SymbolName(i));
  std::sort(names.begin(), names.end());
  if (std::adjacent_find(names.begin(), names.end()) != names.end()) {
    for (Variable& v : out.dims_) v.name.clear();
    for (Variable& v : out.range_vars_) v.name.clear();
    for (Variable& v : out.rt_vars_) v.name.clear();
  }
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

namespace {

std::optional<WideRange> WideAdd(const WideRange& a, const WideRange& b) {
  WideRange r;
  if (__builtin_add_overflow(a.lo, b.lo, &r.lo) ||
      __builtin_add_overflow(a.hi, b.hi, &r.hi)) {
    return std::nullopt;
  }
  return r;
}

std::optional<WideRange> WideMul(const WideRange& a, const WideRange& b) {
  WideRange r{0, 0};
  bool first = true;
  for (Wide x : {a.lo, a.hi}) {
    for (Wide y : {b.lo, b.hi}) {
      Wide v;
      if (__builtin_mul_overflow(x, y, &v)) return std::nullopt;
      r.lo = first ? v : std::min(r.lo, v);
      r.hi = first ? v : std::max(r.hi, v);
      first = false;
    }
  }
  return r;
}

// Hull of floor (or ceil) of x / y over the divisor's nonzero values:
// monotone in each argument on each side of zero, so corners suffice.
std::optional<WideRange> WideDivRange(const WideRange& a, const WideRange& d,
                                      bool ceil) {
  std::optional<WideRange> out;
  auto side = [&](Wide lo, Wide hi) {
    for (Wide x : {a.lo, a.hi}) {
      for (Wide y : {lo, hi}) {
        if (y == -1 && x == kWideMin) return false;  // no 128-bit value
        Wide q = WideDiv(x, y, ceil);
        if (!out) out = WideRange{q, q};
        out->lo = std::min(out->lo, q);
        out->hi = std::max(out->hi, q);
      }
    }
    return true;
  };
  if (d.hi >= 1 && !side(std::max<Wide>(d.lo, 1), d.hi)) return std::nullopt;
  if (d.lo <= -1 && !side(d.lo, std::min<Wide>(d.hi, -1))) return std::nullopt;
  return out;  // nullopt when the divisor is always 0
}

std::optional<WideRange> WideModRange(const WideRange& a, const WideRange& d) {
  if (d.lo == d.hi) {
    Wide m = d.lo;
    if (m == 0) return std::nullopt;
    if (m == 1 || m == -1) return WideRange{0, 0};
    Wide q_lo = WideDiv(a.lo, m, false), q_hi = WideDiv(a.hi, m, false);
    if (q_lo == q_hi) {  // one period: a shift of the range
      Wide r_lo = a.lo - q_lo * m, r_hi = a.hi - q_lo * m;
      return WideRange{std::min(r_lo, r_hi), std::max(r_lo, r_hi)};
    }
    return m > 0 ? WideRange{0, m - 1} : WideRange{m + 1, 0};
  }
  // The result lies strictly between 0 and the divisor.
  std::optional<WideRange> out;
  if (d.hi >= 1) {
    out = WideRange{0, d.hi - 1};
    if (a.lo >= 0) out->hi = std::min(out->hi, a.hi);
  }
  if (d.lo <= -1) {
    WideRange neg{d.lo + 1, 0};
    if (a.hi <= 0) neg.lo = std::max(neg.lo, a.lo);
    out = out ? WideRange{std::min(out->lo, neg.lo), std::max(out->hi, neg.hi)}
              : neg;
  }
  return out;
}

}  // namespace

// The exact hull of an expression's values over a map's variable box
// (constraints ignored), memoized per node: expressions are DAGs
// (composition shares subexpressions), and a plain tree walk would revisit
// shared nodes once per path, exponentially often. nullopt: unknown (128
// bits overflowed, or a divisor that is always zero).
class BoundsOverBox {
 public:
  explicit BoundsOverBox(const IndexingMap& map) : map_(map) {}

  void Clear() { memo_.Clear(); }

  std::optional<WideRange> Of(Expr e) {
    switch (e.kind()) {
      case ExprKind::kConstant:
        return WideRange{e.constant(), e.constant()};
      case ExprKind::kDim:
      case ExprKind::kSymbol: {
        int64_t n = e.IsDim() ? map_.num_dims() : map_.num_symbols();
        if (e.position() >= n) return std::nullopt;
        const Interval& b =
            e.IsDim() ? map_.dims()[e.position()].bounds
                      : map_.symbol(static_cast<int>(e.position())).bounds;
        if (b.IsEmpty()) return std::nullopt;
        return WideRange{b.lower, b.upper};
      }
      default:
        break;
    }
    if (const auto* known = memo_.Find(e.node())) return *known;
    std::optional<WideRange> out;
    auto l = Of(e.lhs());
    auto r = l ? Of(e.rhs()) : std::nullopt;
    if (l && r) {
      switch (e.kind()) {
        case ExprKind::kAdd:
          out = WideAdd(*l, *r);
          break;
        case ExprKind::kMul:
          out = WideMul(*l, *r);
          break;
        case ExprKind::kFloorDiv:
          out = WideDivRange(*l, *r, /*ceil=*/false);
          break;
        case ExprKind::kCeilDiv:
          out = WideDivRange(*l, *r, /*ceil=*/true);
          break;
        case ExprKind::kMod:
          out = WideModRange(*l, *r);
          break;
        case ExprKind::kMin:
          out = WideRange{std::min(l->lo, r->lo), std::min(l->hi, r->hi)};
          break;
        case ExprKind::kMax:
          out = WideRange{std::max(l->lo, r->lo), std::max(l->hi, r->hi)};
          break;
        case ExprKind::kConstant:
        case ExprKind::kDim:
        case ExprKind::kSymbol:
          IXA_CHECK_MSG(false, "leaves are handled above");
      }
    }
    memo_.Put(e.node(), out);
    return out;
  }

 private:
  const IndexingMap& map_;
  NodeMap<std::optional<WideRange>> memo_;
};

namespace {

int64_t ClampToInt64(Wide v) {
  if (v < kInt64Min) return kInt64Min;
  if (v > kInt64Max) return kInt64Max;
  return static_cast<int64_t>(v);
}

}  // namespace

Interval RangeOverBounds(Expr e, const IndexingMap& map) {
  auto r = BoundsOverBox(map).Of(e);
  if (!r) return Interval::Full();
  // Values past the int64 limits saturate (the result is then no longer a
  // real bound on that side, which the header documents).
  return Interval{ClampToInt64(r->lo), ClampToInt64(r->hi)};
}

BoxRanges::BoxRanges(const IndexingMap& map)
    : bounds_(std::make_unique<BoundsOverBox>(map)) {}

BoxRanges::~BoxRanges() = default;

bool BoxRanges::StaysWithin(Expr e, const Interval& bound) {
  if (bound.IsFull()) return true;
  auto range = bounds_->Of(e);
  return range && bound.lower <= range->lo && range->hi <= bound.upper;
}

void BoxRanges::Reset() { bounds_->Clear(); }

Status CheckComposable(const IndexingMap& first, const IndexingMap& second) {
  if (first.num_results() != second.num_dims()) {
    return Error::Invalid("cannot compose: the first map has " +
                          std::to_string(first.num_results()) +
                          " results but the second has " +
                          std::to_string(second.num_dims()) + " dims");
  }
  if (first.context() != second.context()) {
    return Error::Invalid("cannot compose maps from different contexts");
  }
  return Status();
}

Error ComposeZeroDivisorError() {
  // Second's dims become first's results. A divisor can then become the
  // constant 0 (`100 mod d0` where first's result for d0 is 0), which no
  // expression may hold: an error, not a broken invariant.
  return Error::Invalid(
      "cannot compose: a divisor of the second map is 0 at every point the "
      "first map reaches");
}

int64_t WrittenOutSize(std::span<const Expr> results,
                       std::span<const Constraint> constraints, int64_t cap) {
  int64_t total = TreeSize(results, cap);
  for (const Constraint& c : constraints) {
    if (total > cap) break;
    total = SaturatingAdd(total, TreeSize({&c.expr, 1}, cap));
  }
  return total;
}

Status CheckComposedSize(std::span<const Expr> results,
                         std::span<const Constraint> constraints) {
  // Size budget: see kMaxComposedTreeNodes.
  if (WrittenOutSize(results, constraints, kMaxComposedTreeNodes) >
      kMaxComposedTreeNodes) {
    return Error::Limit(
        "compose: size budget exceeded: the composed map would have more "
        "than " +
        std::to_string(kMaxComposedTreeNodes) +
        " expression nodes written out");
  }
  return Status();
}

Result<IndexingMap> ComposeIndexingMaps(const IndexingMap& first,
                                        const IndexingMap& second) {
  IXA_RETURN_IF_ERROR(CheckComposable(first, second));
  if (DeadlineExpired("compose")) return DeadlineError();
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

  // first's symbols keep their positions when second has no range symbols
  // (before them) and no runtime ones (between first's range and runtime
  // symbols); Substitute would then walk each expression only to return it
  // unchanged.
  const bool renumber_first = r2 != 0 || t2 != 0;
  auto in_first = [&](Expr e) {
    return renumber_first ? Substitute(e, {}, first_syms) : e;
  };
  std::vector<Expr> first_results;
  for (Expr r : first.results()) first_results.push_back(in_first(r));
  Substituter into_second(first_results, second_syms,
                          /*zero_divisor_fails=*/true);
  auto substitute_into_second = [&](Expr e) -> Result<Expr> {
    Expr out = into_second.Run(e);
    if (!out) return ComposeZeroDivisorError();
    return out;
  };
  std::vector<Expr> results;
  for (Expr r : second.results()) {
    IXA_ASSIGN_OR_RETURN(Expr composed, substitute_into_second(r));
    results.push_back(composed);
  }
  std::vector<Variable> ranges, rts;
  for (const Variable& v : second.range_vars()) ranges.push_back(v);
  for (const Variable& v : first.range_vars()) ranges.push_back(v);
  for (const Variable& v : second.rt_vars()) {
    Variable moved = v;
    // The producer map read second's dims; it now reads first's.
    if (v.producer_map && v.producer_map->num_dims() == first.num_results()) {
      // A failure (a budget) fails the whole composition: keeping the old
      // producer map would leave it reading the wrong dims.
      IXA_ASSIGN_OR_RETURN(IndexingMap composed,
                           ComposeIndexingMaps(first, *v.producer_map));
      moved.producer_map =
          std::make_shared<const IndexingMap>(std::move(composed));
    }
    rts.push_back(std::move(moved));
  }
  for (const Variable& v : first.rt_vars()) rts.push_back(v);
  // Default names are positional; custom ones survive.
  std::vector<Constraint> constraints;
  for (const Constraint& c : second.constraints()) {
    IXA_ASSIGN_OR_RETURN(Expr composed, substitute_into_second(c.expr));
    constraints.push_back({composed, c.interval});
  }
  for (const Constraint& c : first.constraints()) {
    constraints.push_back({in_first(c.expr), c.interval});
  }
  BoxRanges first_box(first);
  for (int i = 0; i < second.num_dims(); ++i) {
    // Skip a bound that first's result meets at every point of first's box.
    const Interval& bound = second.dims()[i].bounds;
    if (first_box.StaysWithin(first.results()[i], bound)) continue;
    constraints.push_back({first_results[i], bound});
  }
  IXA_RETURN_IF_ERROR(CheckComposedSize(results, constraints));
  return IndexingMap(ctx, first.dims(), std::move(ranges), std::move(rts),
                     std::move(results), std::move(constraints));
}

}  // namespace ixa
