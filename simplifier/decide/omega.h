// Integer feasibility of linear systems by the Omega test (Pugh, "The Omega
// test: a fast and practical integer programming algorithm for dependence
// analysis", 1991), with witness points. Internal to simplifier/decide.
//
// A system has variables x_1..x_n (column 0 is the constant) and rows
//   eq:  c + a_1 x_1 + ... + a_n x_n == 0
//   geq: c + a_1 x_1 + ... + a_n x_n >= 0
// Solve() is exact: it answers feasible only with an integer point that
// satisfies every row, and infeasible only by sound integer reasoning:
//   - gcd normalisation (with floor tightening of inequalities),
//   - equalities: unit-coefficient substitution, else Pugh's "mod hat"
//     variable, which shrinks coefficients until one is a unit,
//   - inequalities: Fourier-Motzkin on a variable; when every lower or every
//     upper coefficient is 1 the real shadow is the integer projection,
//     otherwise the dark shadow (feasible => feasible), the real shadow
//     (infeasible => infeasible), and in between the grey-shadow splinters
//     (each an added equality), which make the procedure complete.
// Work is charged against a budget; running out throws BudgetExhausted.
//
// Memory (no allocation on the hot path): on the int64 path a system keeps
// its rows in inline
// storage, and the solver's scratch (elimination steps, per-variable
// statistics, row flags) lives in buffers it owns and reuses from level to
// level, so a small problem is solved without a heap allocation.
#ifndef IXA_SIMPLIFIER_DECIDE_OMEGA_H_
#define IXA_SIMPLIFIER_DECIDE_OMEGA_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "core/budget.h"
#include "core/int_math.h"
#include "core/small_vector.h"
#include "simplifier/decide/num.h"

namespace ixa::decide_internal {

// A witness: the value of x_j at index j - 1.
template <class Num>
using Witness = Buffer<Num, 16>;

// Appends `width` entries to `rows` (r's, then zeros if r is shorter) and
// returns them.
template <class Rows, class Num = typename Rows::value_type>
Num* AppendRow(Rows* rows, std::span<const Num> r, size_t width) {
  const size_t n = std::min(r.size(), width);
  const size_t base = rows->size();
  rows->resize(base + width, Num(0));
  std::copy(r.begin(), r.begin() + n, rows->begin() + base);
  return rows->data() + base;
}

// Removes row i of `rows` (rows of `cols` entries), keeping order.
template <class Rows>
void EraseRow(Rows* rows, int cols, int i) {
  auto first = rows->begin() + static_cast<size_t>(i) * cols;
  std::move(first + cols, rows->end(), first);
  rows->resize(rows->size() - cols);
}

// Removes the rows whose flag is set, keeping order.
template <class Rows, class Flags>
void Compact(Rows* rows, int cols, const Flags& drop) {
  size_t out = 0;
  const int n = static_cast<int>(drop.size());
  for (int i = 0; i < n; ++i) {
    if (drop[i]) continue;
    if (out != static_cast<size_t>(i) * cols) {
      std::move(rows->begin() + static_cast<size_t>(i) * cols,
                rows->begin() + static_cast<size_t>(i + 1) * cols,
                rows->begin() + out);
    }
    out += cols;
  }
  rows->resize(out);
}

// Truncates a scratch stack back to its size at construction when the
// scope ends (normally or by an exception): a solver level's entries sit
// above those of the levels that called it.
template <class Stack>
class ScratchMark {
 public:
  explicit ScratchMark(Stack& stack) : stack_(stack), size_(stack.size()) {}
  ScratchMark(const ScratchMark&) = delete;
  ScratchMark& operator=(const ScratchMark&) = delete;
  ~ScratchMark() { stack_.resize(size_); }
  size_t size() const { return size_; }

 private:
  Stack& stack_;
  size_t size_;
};

template <class Num>
struct System {
  int cols = 1;  // 1 + number of variables
  // Sized for the systems of index spaces (W3: 90% have at most 126
  // inequality entries, and equalities are eliminated as they appear);
  // larger ones spill to the heap. Each elimination level keeps a few
  // systems on the stack, which is why this is not larger.
  Buffer<Num, 128> geqs;
  Buffer<Num, 32> eqs;

  int num_vars() const { return cols - 1; }
  int num_eqs() const { return static_cast<int>(eqs.size()) / cols; }
  int num_geqs() const { return static_cast<int>(geqs.size()) / cols; }
  Num* eq(int i) { return eqs.data() + static_cast<size_t>(i) * cols; }
  Num* geq(int i) { return geqs.data() + static_cast<size_t>(i) * cols; }

  // Appends a row and returns it (valid until the next row is added); `row`
  // may be shorter than cols (missing entries are 0).
  Num* AddEq(std::span<const Num> row) { return AppendRow(&eqs, row, cols); }
  Num* AddGeq(std::span<const Num> row) { return AppendRow(&geqs, row, cols); }
  // Adds a variable (a zero column) and returns its column.
  int AddVariable() {
    Restride(&eqs);
    Restride(&geqs);
    return cols++;
  }

 private:
  // Widens every row by a zero entry, in place: row i moves from i * cols
  // to i * (cols + 1), so going from the last row down never overwrites a
  // row not yet moved.
  template <class Rows>
  void Restride(Rows* rows) {
    const size_t c = static_cast<size_t>(cols), n = rows->size() / c;
    rows->resize(n * (c + 1), Num(0));
    Num* data = rows->data();
    for (size_t i = n; i-- > 0;) {
      if (i > 0) {
        std::move_backward(data + i * c, data + (i + 1) * c,
                           data + i * (c + 1) + c);
      }
      data[i * (c + 1) + c] = Num(0);
    }
  }
};

template <class Num>
class OmegaSolver {
 public:
  explicit OmegaSolver(int64_t budget) : budget_(budget) {}

  // True iff s has an integer solution; then *point holds one value per
  // variable (at least s.num_vars() entries; extra entries are internal).
  // s is the solver's to change.
  bool Solve(System<Num>& s, Witness<Num>* point) {
    Spend(1);
    // The steps this call records sit above the caller's; it replays and
    // pops them.
    ScratchMark steps_mark(steps_);
    ScratchMark rows_mark(step_rows_);
    if (!SolveLevel(s, point)) return false;
    for (size_t i = steps_.size(); i-- > steps_mark.size();) {
      Replay(steps_[i], point);
    }
    return true;
  }

  int64_t budget_left() const { return budget_; }

 private:
  // How to recover an eliminated variable from the others, replayed in
  // reverse order once the reduced system has a point.
  struct Step {
    int var;
    bool substitution;  // rows = the defining equality, else its bounds
    int cols;
    size_t rows_begin, rows_end;  // in step_rows_
  };
  enum class RowState { kKeep, kDrop, kFalse };

  // The work budget, and the caller's deadline (core/budget.h).
  void Spend(int64_t units) {
    budget_ -= units;
    if (budget_ < 0 || DeadlineExpired("decide")) throw BudgetExhausted();
  }
  // Work on `rows` rows of `cols` columns: a unit per row up to
  // kColumnsPerUnit columns, more for wider rows (a system over many lifted
  // variables costs that much more per row; charged by rows alone, the
  // budget of one call could take tens of seconds).
  static constexpr int kColumnsPerUnit = 16;
  void SpendRows(int64_t rows, int cols) {
    Spend(SaturatingMul(rows, 1 + cols / kColumnsPerUnit));
  }

  static Num RowGcd(const Num* r, int cols) {
    Num g = 0;
    for (int j = 1; j < cols; ++j) {
      if (!NIsZero(r[j])) {
        g = NIsZero(g) ? NAbs(r[j]) : NGcd(g, r[j]);
        if (g == Num(1)) break;
      }
    }
    return g;
  }

  static RowState NormalizeEq(Num* r, int cols) {
    Num g = RowGcd(r, cols);
    if (NIsZero(g)) return NIsZero(r[0]) ? RowState::kDrop : RowState::kFalse;
    if (g != Num(1)) {
      if (!NDivides(g, r[0])) return RowState::kFalse;
      for (int j = 0; j < cols; ++j) r[j] = NExactDiv(r[j], g);
    }
    return RowState::kKeep;
  }

  // Divides by the gcd of the coefficients and floors the constant: the
  // integer tightening of c + g*(a.x) >= 0 is floor(c/g) + a.x >= 0.
  static RowState NormalizeGeq(Num* r, int cols) {
    Num g = RowGcd(r, cols);
    if (NIsZero(g)) return r[0] >= Num(0) ? RowState::kDrop : RowState::kFalse;
    if (g != Num(1)) {
      r[0] = NFloorDiv(r[0], g);
      for (int j = 1; j < cols; ++j) r[j] = NExactDiv(r[j], g);
    }
    return RowState::kKeep;
  }

  // Uses eq row `e` (e[k] = +-1) to eliminate x_k from every other row:
  // x_k = -e[k] * (e[0] + sum_{j != k} e[j] x_j).
  void Substitute(System<Num>& s, int e_index, int k) {
    const int cols = s.cols;
    // The equality becomes the step's row, and is read from there: nothing
    // else is added to step_rows_ before this step is done.
    const size_t at = step_rows_.size();
    const Num* e =
        AppendRow(&step_rows_, std::span<const Num>(s.eq(e_index), cols), cols);
    const Num sign = e[k];
    auto apply = [&](Num* r) {
      if (NIsZero(r[k])) return;
      Num f = r[k] * sign;
      for (int j = 0; j < cols; ++j) {
        if (!NIsZero(e[j])) r[j] -= f * e[j];
      }
    };
    for (int i = 0; i < s.num_eqs(); ++i) {
      if (i != e_index) apply(s.eq(i));
    }
    for (int i = 0; i < s.num_geqs(); ++i) apply(s.geq(i));
    SpendRows(1 + s.num_eqs() + s.num_geqs(), cols);
    EraseRow(&s.eqs, cols, e_index);
    steps_.push_back(Step{k, true, cols, at, at + cols});
  }

  // Pugh's symmetric remainder: a - m * floor(a/m + 1/2), in [-m/2, m/2).
  static Num ModHat(const Num& a, const Num& m) {
    Num r = NMod(a, m);
    if (r + r >= m) r -= m;
    return r;
  }

  // Removes every equality. False when they have no integer solution.
  bool EliminateEqualities(System<Num>& s) {
    while (s.num_eqs() > 0) {
      int n = s.num_eqs();
      drop_.assign(static_cast<size_t>(n), 0);
      bool any_dropped = false;
      for (int i = 0; i < n; ++i) {
        RowState st = NormalizeEq(s.eq(i), s.cols);
        if (st == RowState::kFalse) return false;
        if (st == RowState::kDrop) drop_[i] = any_dropped = 1;
      }
      if (any_dropped) Compact(&s.eqs, s.cols, drop_);
      if (s.num_eqs() == 0) break;
      // A unit coefficient: substitute directly.
      int best_row = -1, best_var = -1;
      Num best_abs = 0;
      for (int i = 0; i < s.num_eqs() && best_abs != Num(1); ++i) {
        Num* r = s.eq(i);
        for (int j = 1; j < s.cols; ++j) {
          if (NIsZero(r[j])) continue;
          Num a = NAbs(r[j]);
          if (best_row < 0 || a < best_abs) {
            best_row = i, best_var = j, best_abs = a;
            if (a == Num(1)) break;
          }
        }
      }
      if (best_abs == Num(1)) {
        Substitute(s, best_row, best_var);
        continue;
      }
      // No unit: with m = |a_k| + 1, sigma defined by
      //   m*sigma = sum (a_j mod^ m) x_j + (c mod^ m)
      // exists for every solution (the right side is = 0 mod m) and has
      // coefficient -sign(a_k) on x_k, so x_k can be substituted; the
      // original equality's coefficients shrink (Pugh §2.3.1).
      Num m = best_abs + Num(1);
      int sigma = s.AddVariable();
      Num* def = s.AddEq({});
      const Num* r = s.eq(best_row);
      for (int j = 0; j < sigma; ++j) def[j] = ModHat(r[j], m);
      def[sigma] = -m;
      Substitute(s, s.num_eqs() - 1, best_var);
    }
    return true;
  }

  // Normalises inequalities, merges parallel ones (keeping the tightest),
  // and turns opposite pairs that meet into equalities. Returns false when
  // infeasible; *new_eqs tells that equalities were found.
  bool NormalizeGeqs(System<Num>& s, bool* new_eqs) {
    const int n = s.num_geqs(), cols = s.cols, eqs_before = s.num_eqs();
    auto& drop = drop_;
    drop.assign(static_cast<size_t>(n), 0);
    sign_.assign(static_cast<size_t>(n), 0);
    keys_.clear();
    for (int i = 0; i < n; ++i) {
      Num* r = s.geq(i);
      RowState st = NormalizeGeq(r, cols);
      if (st == RowState::kFalse) return false;
      if (st == RowState::kDrop) {
        drop[i] = 1;
        continue;
      }
      // Rows are keyed by their coefficients with the first non-zero one
      // made positive, so parallel and opposite rows share a key.
      uint64_t h = 0;
      for (int j = 1; j < cols; ++j) {
        if (NIsZero(r[j])) continue;
        if (sign_[i] == 0) sign_[i] = NSign(r[j]);
        uint64_t v = NHash(sign_[i] > 0 ? r[j] : -r[j]);
        h = (h ^ (v + static_cast<uint64_t>(j))) * 0x9E3779B97F4A7C15ull;
      }
      keys_.push_back(Key{h, i});
    }
    SpendRows(1 + n, cols);
    auto same = [&](int a, int b) {
      const Num* ra = s.geq(a);
      const Num* rb = s.geq(b);
      const bool flip = sign_[a] != sign_[b];
      for (int j = 1; j < cols; ++j) {
        if (flip ? ra[j] != -rb[j] : ra[j] != rb[j]) return false;
      }
      return true;
    };
    std::sort(keys_.begin(), keys_.end());
    for (size_t g = 0; g < keys_.size();) {
      size_t h = g + 1;
      while (h < keys_.size() && keys_[h].hash == keys_[g].hash) ++h;
      // Within a run of equal keys (almost always one class), group the
      // rows that really are parallel.
      for (size_t t0 = g; t0 < h; ++t0) {
        int first = keys_[t0].row;
        if (first < 0) continue;
        int pos = -1, neg = -1;  // tightest row of each orientation
        for (size_t t = t0; t < h; ++t) {
          int i = keys_[t].row;
          if (i < 0 || (t != t0 && !same(first, i))) continue;
          keys_[t].row = -1;
          int& best = sign_[i] > 0 ? pos : neg;
          if (best < 0 || s.geq(i)[0] < s.geq(best)[0]) {
            if (best >= 0) drop[best] = 1;
            best = i;
          } else {
            drop[i] = 1;
          }
        }
        if (pos >= 0 && neg >= 0) {
          // pos: v + cp >= 0, neg: -v + cn >= 0, so -cp <= v <= cn.
          Num sum = s.geq(pos)[0] + s.geq(neg)[0];
          if (sum < Num(0)) return false;
          if (NIsZero(sum)) {
            s.AddEq(std::span<const Num>(s.geq(pos), cols));
            drop[pos] = drop[neg] = 1;
          }
        }
      }
      g = h;
    }
    Compact(&s.geqs, cols, drop);
    *new_eqs = s.num_eqs() > eqs_before;
    return true;
  }

  // Records the bounds of var (the rows that involve it) as a step, and
  // flags those rows in drop_.
  void RecordBounds(System<Num>& s, int var) {
    const int n = s.num_geqs();
    const size_t at = step_rows_.size();
    drop_.assign(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      Num* r = s.geq(i);
      if (NIsZero(r[var])) continue;
      drop_[i] = 1;
      AppendRow(&step_rows_, std::span<const Num>(r, s.cols), s.cols);
    }
    steps_.push_back(Step{var, false, s.cols, at, step_rows_.size()});
  }

  // Gives the step's variable a value within its recorded bounds.
  void Replay(const Step& step, Witness<Num>* point) const {
    const int k = step.var;
    auto value_of = [&](int j) -> Num {
      return j - 1 < static_cast<int>(point->size()) ? (*point)[j - 1] : Num(0);
    };
    if (static_cast<int>(point->size()) < k) point->resize(k, Num(0));
    const Num* first = step_rows_.data() + step.rows_begin;
    const int rows =
        static_cast<int>(step.rows_end - step.rows_begin) / step.cols;
    if (step.substitution) {
      const Num* e = first;
      Num acc = e[0];
      for (int j = 1; j < step.cols; ++j) {
        if (j != k && !NIsZero(e[j])) acc += e[j] * value_of(j);
      }
      (*point)[k - 1] = -(e[k] * acc);
      return;
    }
    bool have_lo = false, have_hi = false;
    Num lo = 0, hi = 0;
    for (int i = 0; i < rows; ++i) {
      const Num* r = first + static_cast<size_t>(i) * step.cols;
      Num rest = r[0];
      for (int j = 1; j < step.cols; ++j) {
        if (j != k && !NIsZero(r[j])) rest += r[j] * value_of(j);
      }
      if (r[k] > Num(0)) {  // r[k] x + rest >= 0
        Num b = NCeilDiv(-rest, r[k]);
        if (!have_lo || b > lo) lo = b;
        have_lo = true;
      } else {  // x <= rest / |r[k]|
        Num b = NFloorDiv(rest, -r[k]);
        if (!have_hi || b < hi) hi = b;
        have_hi = true;
      }
    }
    if (have_lo && have_hi && lo > hi) {
      throw InternalFailure{"omega: eliminated variable has no value"};
    }
    (*point)[k - 1] = have_lo ? lo : (have_hi ? hi : Num(0));
  }

  struct VarStats {
    int lower = 0, upper = 0;
    Num max_lower = 0, max_upper = 0;
    // Constant bounds lo <= x <= hi from single-variable rows, if any.
    bool has_lo = false, has_hi = false;
    Num lo = 0, hi = 0;
  };

  // Number of splinters when splintering the rows whose coefficient on var
  // has sign `side` (+1: lower bounds), with m the largest opposite
  // coefficient: for a bound with coefficient a, (m*a - m - a) / m + 1.
  static Num SplinterCount(System<Num>& s, int var, int side, const Num& m) {
    Num total = 0;
    for (int i = 0; i < s.num_geqs(); ++i) {
      Num a = s.geq(i)[var];
      if (NSign(a) != side) continue;
      a = NAbs(a);
      Num imax = NFloorDiv(m * a - m - a, m);
      if (imax >= Num(0)) total += imax + Num(1);
    }
    return total;
  }

  bool SolveLevel(System<Num>& s, Witness<Num>* point) {
    // A level per eliminated variable, each with its systems inline on the
    // stack (a few KB): a chain of variables under a large budget must end
    // as limit_exceeded before the end of the stack, not overflow it.
    if (StackNearlyExhausted()) throw BudgetExhausted{};
    // This level's statistics, stats_[base + j] for column j, sit above
    // those of the levels in progress below it (indices, not references:
    // a deeper level may move the stack).
    ScratchMark stats_mark(stats_);
    const size_t base = stats_mark.size();
    auto stats = [&](int j) -> VarStats& { return stats_[base + j]; };
    for (;;) {
      if (!EliminateEqualities(s)) return false;
      bool new_eqs = false;
      if (!NormalizeGeqs(s, &new_eqs)) return false;
      if (new_eqs) continue;
      if (s.num_geqs() == 0) {
        point->assign(s.num_vars(), Num(0));
        return true;
      }
      stats_.resize(base);
      stats_.resize(base + s.cols);
      for (int i = 0; i < s.num_geqs(); ++i) {
        Num* r = s.geq(i);
        int nonzero = 0, last = 0;
        for (int j = 1; j < s.cols; ++j) {
          if (NIsZero(r[j])) continue;
          ++nonzero, last = j;
          VarStats& v = stats(j);
          if (r[j] > Num(0)) {
            ++v.lower;
            if (r[j] > v.max_lower) v.max_lower = r[j];
          } else {
            ++v.upper;
            if (-r[j] > v.max_upper) v.max_upper = -r[j];
          }
        }
        if (nonzero == 1) {  // normalised: x + c >= 0 or -x + c >= 0
          VarStats& v = stats(last);
          if (r[last] > Num(0)) {
            Num b = -r[0];
            if (!v.has_lo || b > v.lo) v.lo = b;
            v.has_lo = true;
          } else {
            if (!v.has_hi || r[0] < v.hi) v.hi = r[0];
            v.has_hi = true;
          }
        }
      }
      // A variable bounded on one side only can always satisfy its rows,
      // whatever the others are: drop them (exact projection).
      int one_sided = -1;
      for (int j = 1; j < s.cols && one_sided < 0; ++j) {
        const VarStats& v = stats(j);
        if ((v.lower == 0) != (v.upper == 0)) one_sided = j;
      }
      if (one_sided < 0) break;
      RecordBounds(s, one_sided);
      Compact(&s.geqs, s.cols, drop_);
    }

    // Choose the variable: an exact elimination with the fewest new rows,
    // else the one with the fewest splinters.
    int var = -1;
    bool exact = false;
    int64_t best_growth = 0;
    Num best_splinters = 0;
    int splinter_side = 1;
    for (int j = 1; j < s.cols; ++j) {
      const VarStats& v = stats(j);
      if (v.lower == 0) continue;
      int64_t growth =
          static_cast<int64_t>(v.lower) * v.upper - v.lower - v.upper;
      bool ex = v.max_lower == Num(1) || v.max_upper == Num(1);
      if (ex) {
        if (!exact || growth < best_growth) {
          var = j, exact = true, best_growth = growth;
        }
        continue;
      }
      if (exact) continue;
      Num lower_side = SplinterCount(s, j, 1, v.max_upper);
      Num upper_side = SplinterCount(s, j, -1, v.max_lower);
      int side = lower_side <= upper_side ? 1 : -1;
      Num count = side > 0 ? lower_side : upper_side;
      if (var < 0 || count < best_splinters ||
          (count == best_splinters && growth < best_growth)) {
        var = j, best_splinters = count, best_growth = growth;
        splinter_side = side;
      }
    }
    if (exact) return EliminateExact(s, var, point);
    return EliminateInexact(s, Split{var, base, best_splinters, splinter_side},
                            point);
  }

  // Fourier-Motzkin: rows without var, plus one row per (lower, upper)
  // pair: for a x + L >= 0 and -b x + U >= 0, b L + a U >= 0 (real
  // shadow), minus (a-1)(b-1) for the dark shadow (when dark is not null).
  void Project(System<Num>& s, int var, System<Num>* real, System<Num>* dark) {
    real->cols = s.cols;
    lowers_.clear();
    uppers_.clear();
    for (int i = 0; i < s.num_geqs(); ++i) {
      Num* r = s.geq(i);
      if (NIsZero(r[var])) {
        real->AddGeq(std::span<const Num>(r, s.cols));
      } else if (r[var] > Num(0)) {
        lowers_.push_back(i);
      } else {
        uppers_.push_back(i);
      }
    }
    SpendRows(static_cast<int64_t>(lowers_.size()) * uppers_.size(), s.cols);
    if (dark) *dark = *real;
    for (int l : lowers_) {
      for (int u : uppers_) {
        const Num* rl = s.geq(l);
        const Num* ru = s.geq(u);
        Num a = rl[var], b = -ru[var];
        Num* out = real->AddGeq({});
        for (int j = 0; j < s.cols; ++j) out[j] = b * rl[j] + a * ru[j];
        if (dark) {
          Num* d = dark->AddGeq(std::span<const Num>(out, s.cols));
          d[0] -= (a - Num(1)) * (b - Num(1));
        }
      }
    }
  }

  // The elimination of var is a function of its own (as are the inexact
  // one and the case splits), so that the systems it builds take stack
  // space only on the levels that use them: the solver recurses once per
  // eliminated variable.
  [[gnu::noinline]] bool EliminateExact(System<Num>& s, int var,
                                        Witness<Num>* point) {
    System<Num> real;
    Project(s, var, &real, nullptr);
    // The step that recovers var once the shadow has a point; the Solve
    // call that owns this level replays it.
    RecordBounds(s, var);
    return Solve(real, point);
  }

  // What an inexact elimination needs from SolveLevel for its case splits.
  struct Split {
    int var;
    size_t stats_base;  // the level's VarStats in stats_
    Num splinters;      // the number of grey-shadow splinters
    int side;           // the side splintered (+1: lower bounds)
  };

  [[gnu::noinline]] bool EliminateInexact(System<Num>& s, const Split& split,
                                          Witness<Num>* point) {
    System<Num> real, dark;
    Project(s, split.var, &real, &dark);
    RecordBounds(s, split.var);  // as in EliminateExact
    if (Solve(dark, point)) return true;
    // The case splits solve s itself, var included: drop its step.
    step_rows_.resize(steps_.back().rows_begin);
    steps_.pop_back();
    // Only feasibility matters here; a later success rewrites *point.
    if (!Solve(real, point)) return false;
    return SolveSplits(s, split, point);
  }

  // Between the dark and the real shadow: exact case splits on s.
  [[gnu::noinline]] bool SolveSplits(System<Num>& s, const Split& split,
                                     Witness<Num>* point) {
    auto stats = [&](int j) -> VarStats& {
      return stats_[split.stats_base + j];
    };
    // Both splintering and enumerating the values of a variable that has
    // constant bounds are exact case splits: take the one with fewer cases.
    // (Boxes of index spaces are small while lifted coefficients such as
    // 512*d1 + 16*d2 + d0 are large: enumeration often wins by far.)
    int enum_var = -1;
    Num enum_lo = 0, enum_count = 0;
    for (int j = 1; j < s.cols; ++j) {
      const VarStats& v = stats(j);
      if (!v.has_lo || !v.has_hi || v.lo > v.hi) continue;
      Num count = v.hi - v.lo + Num(1);
      if (enum_var < 0 || count < enum_count) {
        enum_var = j, enum_lo = v.lo, enum_count = count;
      }
    }
    if (enum_var >= 0 && enum_count < split.splinters) {
      for (Num t = 0; t < enum_count; t += Num(1)) {
        System<Num> branch = s;
        Num* e = branch.AddEq({});
        e[0] = -(enum_lo + t);
        e[enum_var] = Num(1);
        if (Solve(branch, point)) return true;
      }
      return false;
    }
    // Grey shadow: a solution outside the dark shadow lies close to one of
    // the splintered bounds, a x = -L + i with 0 <= i <= (m a - m - a) / m
    // where m is the largest opposite coefficient (Pugh §2.3.3).
    const int var = split.var;
    const Num m = split.side > 0 ? stats(var).max_upper : stats(var).max_lower;
    for (int i = 0; i < s.num_geqs(); ++i) {
      const Num* r = s.geq(i);
      if (NSign(r[var]) != split.side) continue;
      Num a = NAbs(r[var]);
      Num imax = NFloorDiv(m * a - m - a, m);
      for (Num t = 0; t <= imax; t += Num(1)) {
        System<Num> splinter = s;
        Num* e = splinter.AddEq(std::span<const Num>(r, s.cols));
        e[0] -= t;
        if (Solve(splinter, point)) return true;
      }
    }
    return false;
  }

  // NormalizeGeqs's sort key: by hash, then by row, so that the rows of a
  // class are visited in row order (ties keep the first row) whatever the
  // sort algorithm.
  struct Key {
    uint64_t hash;
    int row;
    friend bool operator<(const Key& a, const Key& b) {
      return a.hash != b.hash ? a.hash < b.hash : a.row < b.row;
    }
  };

  int64_t budget_;
  // The elimination steps of the Solve calls in progress, innermost last,
  // and their rows.
  SmallVector<Step, 32> steps_;
  Buffer<Num, 256> step_rows_;
  // A block of s.cols entries per SolveLevel in progress.
  Buffer<VarStats, 32> stats_;
  // Scratch of one elimination step, done with before any recursion.
  SmallVector<char, 64> drop_;  // rows to drop
  SmallVector<int, 64> sign_;
  SmallVector<Key, 64> keys_;
  SmallVector<int, 32> lowers_, uppers_;
};

}  // namespace ixa::decide_internal

#endif  // IXA_SIMPLIFIER_DECIDE_OMEGA_H_
