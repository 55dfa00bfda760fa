// IndexingMap: an affine map plus the domain of its variables
// (docs/indexing.md §1, docs/xla-reference.md §(a)).
//
//   (d0, ..., dn)[s0, ..., sm]{rt0, ..., rtk} -> (results)
//   domain: every variable in [lo, hi], constraints `expr in [lo, hi]`
//
// In expressions, symbol positions 0..R-1 are the range variables and
// R..R+T-1 the runtime variables. Maps are values: copying is cheap (the
// expressions are handles into the ExprContext, which must outlive them).
#ifndef IXA_CORE_INDEXING_MAP_H_
#define IXA_CORE_INDEXING_MAP_H_

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/expr.h"
#include "core/interval.h"
#include "core/result.h"

namespace ixa {

class IndexingMap;

struct Variable {
  Interval bounds = Interval::Full();
  // Empty means the default name (d<i>, s<i>, rt<i>); a name equal to its
  // default is stored empty, so names never affect equality.
  std::string name;
  // Runtime variables only: the instruction producing the value and the map
  // from this map's dims to the element of it that is read.
  std::string producer;
  std::shared_ptr<const IndexingMap> producer_map;
};

// A variable with bounds and a name (default name when empty), no runtime
// producer.
Variable MakeVariable(Interval bounds, std::string name = "");

// Is `name` the default name of variable i, `prefix` followed by the
// decimal digits of i (`d3` for dim 3 with prefix "d"; "s", "rt")? Such
// names are stored empty.
// Inline and compared in place: every parsed name passes here, with a
// constant prefix.
inline bool IsDefaultName(std::string_view name, std::string_view prefix,
                          size_t i) {
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

struct Constraint {
  Expr expr;
  Interval interval;
};

enum class VarKind { kDim, kRange, kRuntime };

class IndexingMap {
 public:
  IndexingMap() = default;
  // Builds a map; an infeasible variable bound makes it KNOWN EMPTY, and
  // the constraints go through AddConstraint.
  IndexingMap(ExprContext* ctx, std::vector<Variable> dims,
              std::vector<Variable> range_vars, std::vector<Variable> rt_vars,
              std::vector<Expr> results,
              std::vector<Constraint> constraints = {});

  // Dims in [0, dim_sizes[i] - 1], range vars in [0, symbol_sizes[j] - 1].
  static IndexingMap FromTensorSizes(ExprContext* ctx,
                                     std::vector<Expr> results,
                                     std::span<const int64_t> dim_sizes,
                                     std::span<const int64_t> symbol_sizes);
  // (d0, ..., dn) -> (d0, ..., dn) over the given sizes.
  static IndexingMap Identity(ExprContext* ctx,
                              std::span<const int64_t> dim_sizes);
  static IndexingMap KnownEmpty(ExprContext* ctx, int num_dims,
                                int num_results);

  ExprContext* context() const { return ctx_; }
  int num_dims() const { return static_cast<int>(dims_.size()); }
  int num_range_vars() const { return static_cast<int>(range_vars_.size()); }
  int num_rt_vars() const { return static_cast<int>(rt_vars_.size()); }
  int num_symbols() const { return num_range_vars() + num_rt_vars(); }
  int num_results() const { return static_cast<int>(results_.size()); }

  const std::vector<Variable>& dims() const { return dims_; }
  const std::vector<Variable>& range_vars() const { return range_vars_; }
  const std::vector<Variable>& rt_vars() const { return rt_vars_; }
  std::vector<Variable>& mutable_dims() { return dims_; }
  std::vector<Variable>& mutable_range_vars() { return range_vars_; }
  std::vector<Variable>& mutable_rt_vars() { return rt_vars_; }
  // Symbol i: a range variable for i < R, else runtime variable i - R.
  const Variable& symbol(int i) const;
  Variable& mutable_symbol(int i);
  VarKind symbol_kind(int i) const {
    return i < num_range_vars() ? VarKind::kRange : VarKind::kRuntime;
  }
  // The printed name of a variable (its own name or the default).
  std::string DimName(int i) const;
  std::string SymbolName(int i) const;

  const std::vector<Expr>& results() const { return results_; }
  std::vector<Expr>& mutable_results() { return results_; }
  const std::vector<Constraint>& constraints() const { return constraints_; }
  // Replaces all constraints (each goes through AddConstraint).
  void SetConstraints(std::vector<Constraint> constraints);
  void ClearConstraints() { constraints_.clear(); }

  bool IsKnownEmpty() const { return known_empty_; }
  void ResetToKnownEmpty();

  // XLA's AddConstraint: a bare variable tightens its bounds, a constant is
  // checked, an infeasible interval empties the map, a repeated expression
  // intersects intervals.
  void AddConstraint(Expr expr, Interval interval);

  // Results at a point, ignoring the domain.
  Result<std::vector<int64_t>> Evaluate(std::span<const int64_t> dims,
                                        std::span<const int64_t> symbols) const;
  // True iff the point lies in every variable's bounds and satisfies every
  // constraint (false for a KNOWN EMPTY map).
  Result<bool> InDomain(std::span<const int64_t> dims,
                        std::span<const int64_t> symbols) const;
  // Number of points of the variable box (saturating), ignoring constraints.
  int64_t BoxSize() const;

  // M1. Remove symbols (resp. all variables) that no result uses and that
  // share no constraint with a used variable. A group of removed variables
  // whose constraints cannot be shown feasible is kept (removing it would
  // hide an empty domain). Returns true if anything was removed.
  bool RemoveUnusedSymbols();
  bool RemoveUnusedVars();
  // Removes the listed symbols (ascending positions), renumbering the rest.
  // The caller guarantees they are unused by results and constraints.
  void EraseSymbols(const std::vector<bool>& erase);
  void EraseDims(const std::vector<bool>& erase);
  // M2. For a symbol s with constraints `s mod c_i in [r_i, r_i]`, merged
  // into one s = r (mod c) (incompatible ones make the map KNOWN EMPTY),
  // substitute s -> s * c + r, tighten its bounds and fold the divisions
  // that become exact (`(s * 6) floordiv 6` is `s`). Returns true if
  // changed.
  bool RescaleSymbols();
  // M3. Range then runtime variables become trailing dims.
  IndexingMap ConvertSymbolsToDims() const;
  // XLA's ConvertRangeVariablesToDimensions: the listed range variables
  // (by index, ascending, each < num_range_vars()) become trailing dims in
  // that order; the other range variables and the runtime variables stay
  // symbols, renumbered. Error::Invalid for an index that is out of range,
  // repeated or not ascending.
  Result<IndexingMap> ConvertRangeVariablesToDims(
      std::span<const int64_t> range_var_indices) const;

  // Structural equality: same results (same nodes), same bounds, same
  // constraint set; names are ignored (as in XLA).
  bool operator==(const IndexingMap& o) const;
  bool operator!=(const IndexingMap& o) const { return !(*this == o); }

 private:
  ExprContext* ctx_ = nullptr;
  std::vector<Variable> dims_, range_vars_, rt_vars_;
  std::vector<Expr> results_;
  std::vector<Constraint> constraints_;
  bool known_empty_ = false;
};

// A sound interval for e over the map's variable bounds (constraints
// ignored), by interval arithmetic computed exactly in 128 bits and
// clamped to int64 at the end (an end at an int64 limit may stand for
// values past it; Full when 128 bits overflow). Linear in e's distinct
// nodes. Exact ranges are the simplifier's business (simplifier/decide.h
// BoundsOf).
Interval RangeOverBounds(Expr e, const IndexingMap& map);

class BoundsOverBox;

// RangeOverBounds for many expressions over one map's variable box,
// memoized per node (expressions are DAGs) until Reset, which a caller that
// changes the map's variable bounds must call. Holds a reference to the map.
class BoxRanges {
 public:
  explicit BoxRanges(const IndexingMap& map);
  ~BoxRanges();
  BoxRanges(const BoxRanges&) = delete;
  BoxRanges& operator=(const BoxRanges&) = delete;

  // Does e stay within `bound` at every point of the box? Exact interval
  // arithmetic in 128 bits (an over-approximation of the values, never
  // saturated); false when unknown. True for a full bound.
  bool StaysWithin(Expr e, const Interval& bound);
  void Reset();

 private:
  std::unique_ptr<BoundsOverBox> bounds_;
};

// `second ∘ first` (M4): first's results feed second's dims. Symbols are
// [range(second), range(first), rt(second), rt(first)]. Not simplified.
// Errors when first's result count differs from second's dim count.
Result<IndexingMap> ComposeIndexingMaps(const IndexingMap& first,
                                        const IndexingMap& second);

// ComposeIndexingMaps's checks and errors, shared with composition chains
// (simplifier/compose.h): first's results feed second's dims, in one
// context; a divisor of second that becomes the constant 0; the size budget
// (kMaxComposedTreeNodes nodes written out, limit_exceeded).
Status CheckComposable(const IndexingMap& first, const IndexingMap& second);
Error ComposeZeroDivisorError();
// The nodes of results and constraints written out (TreeSize), at most
// cap + 1.
int64_t WrittenOutSize(std::span<const Expr> results,
                       std::span<const Constraint> constraints, int64_t cap);
Status CheckComposedSize(std::span<const Expr> results,
                         std::span<const Constraint> constraints);

}  // namespace ixa

#endif  // IXA_CORE_INDEXING_MAP_H_
