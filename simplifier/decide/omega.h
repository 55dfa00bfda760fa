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
#include "simplifier/decide/num.h"

namespace ixa::decide_internal {

template <class Num>
struct System {
  int cols = 1;  // 1 + number of variables
  std::vector<Num> eqs;
  std::vector<Num> geqs;

  int num_vars() const { return cols - 1; }
  int num_eqs() const { return static_cast<int>(eqs.size()) / cols; }
  int num_geqs() const { return static_cast<int>(geqs.size()) / cols; }
  Num* eq(int i) { return eqs.data() + static_cast<size_t>(i) * cols; }
  Num* geq(int i) { return geqs.data() + static_cast<size_t>(i) * cols; }

  // Appends a row; `row` may be shorter than cols (missing entries are 0).
  void AddEq(std::span<const Num> row) { Append(&eqs, row); }
  void AddGeq(std::span<const Num> row) { Append(&geqs, row); }
  // Adds a variable (a zero column) and returns its column.
  int AddVariable() {
    Restride(&eqs);
    Restride(&geqs);
    return cols++;
  }

 private:
  void Append(std::vector<Num>* rows, std::span<const Num> row) {
    size_t n = std::min(row.size(), static_cast<size_t>(cols));
    rows->insert(rows->end(), row.begin(), row.begin() + n);
    rows->resize(rows->size() + (cols - n));
  }
  void Restride(std::vector<Num>* rows) {
    int n = static_cast<int>(rows->size()) / cols;
    std::vector<Num> out;
    out.reserve(static_cast<size_t>(n) * (cols + 1));
    for (int i = 0; i < n; ++i) {
      out.insert(out.end(), rows->begin() + static_cast<size_t>(i) * cols,
                 rows->begin() + static_cast<size_t>(i + 1) * cols);
      out.emplace_back(0);
    }
    *rows = std::move(out);
  }
};

template <class Num>
class OmegaSolver {
 public:
  explicit OmegaSolver(int64_t budget) : budget_(budget) {}

  // True iff s has an integer solution; then *point holds one value per
  // variable (at least s.num_vars() entries; extra entries are internal).
  bool Solve(System<Num> s, std::vector<Num>* point) {
    Spend(1);
    std::vector<Step> steps;
    if (!SolveLevel(s, steps, point)) return false;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) Replay(*it, point);
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
    std::vector<Num> rows;
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

  // Removes the rows whose flag is set, keeping order.
  static void Compact(std::vector<Num>* rows, int cols,
                      const std::vector<char>& drop) {
    size_t out = 0;
    int n = static_cast<int>(drop.size());
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

  // Uses eq row `e` (e[k] = +-1) to eliminate x_k from every other row:
  // x_k = -e[k] * (e[0] + sum_{j != k} e[j] x_j).
  void Substitute(System<Num>& s, int e_index, int k,
                  std::vector<Step>& steps) {
    int cols = s.cols;
    std::vector<Num> e(s.eq(e_index), s.eq(e_index) + cols);
    Num sign = e[k];
    auto apply = [&](Num* r) {
      if (NIsZero(r[k])) return;
      Num f = r[k] * sign;
      for (int j = 0; j < cols; ++j) {
        if (!NIsZero(e[j])) r[j] -= f * e[j];
      }
    };
    std::vector<char> drop(s.num_eqs(), 0);
    drop[e_index] = 1;
    for (int i = 0; i < s.num_eqs(); ++i) {
      if (i != e_index) apply(s.eq(i));
    }
    for (int i = 0; i < s.num_geqs(); ++i) apply(s.geq(i));
    SpendRows(1 + s.num_eqs() + s.num_geqs(), cols);
    Compact(&s.eqs, cols, drop);
    steps.push_back(Step{k, true, cols, std::move(e)});
  }

  // Pugh's symmetric remainder: a - m * floor(a/m + 1/2), in [-m/2, m/2).
  static Num ModHat(const Num& a, const Num& m) {
    Num r = NMod(a, m);
    if (r + r >= m) r -= m;
    return r;
  }

  // Removes every equality. False when they have no integer solution.
  bool EliminateEqualities(System<Num>& s, std::vector<Step>& steps) {
    while (s.num_eqs() > 0) {
      int n = s.num_eqs();
      std::vector<char> drop(n, 0);
      bool any_dropped = false;
      for (int i = 0; i < n; ++i) {
        RowState st = NormalizeEq(s.eq(i), s.cols);
        if (st == RowState::kFalse) return false;
        if (st == RowState::kDrop) drop[i] = any_dropped = 1;
      }
      if (any_dropped) Compact(&s.eqs, s.cols, drop);
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
        Substitute(s, best_row, best_var, steps);
        continue;
      }
      // No unit: with m = |a_k| + 1, sigma defined by
      //   m*sigma = sum (a_j mod^ m) x_j + (c mod^ m)
      // exists for every solution (the right side is = 0 mod m) and has
      // coefficient -sign(a_k) on x_k, so x_k can be substituted; the
      // original equality's coefficients shrink (Pugh §2.3.1).
      Num m = best_abs + Num(1);
      int sigma = s.AddVariable();
      std::vector<Num> def(s.cols);
      Num* r = s.eq(best_row);
      for (int j = 0; j < sigma; ++j) def[j] = ModHat(r[j], m);
      def[sigma] = -m;
      s.AddEq(def);
      Substitute(s, s.num_eqs() - 1, best_var, steps);
    }
    return true;
  }

  // Normalises inequalities, merges parallel ones (keeping the tightest),
  // and turns opposite pairs that meet into equalities. Returns false when
  // infeasible; *new_eqs tells that equalities were found.
  bool NormalizeGeqs(System<Num>& s, bool* new_eqs) {
    *new_eqs = false;
    const int n = s.num_geqs(), cols = s.cols;
    std::vector<char>& drop = drop_;
    drop.assign(n, 0);
    sign_.assign(n, 0);
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
      keys_.emplace_back(h, i);
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
    std::vector<Num> found_eqs;
    for (size_t g = 0; g < keys_.size();) {
      size_t h = g + 1;
      while (h < keys_.size() && keys_[h].first == keys_[g].first) ++h;
      // Within a run of equal keys (almost always one class), group the
      // rows that really are parallel.
      for (size_t t0 = g; t0 < h; ++t0) {
        int first = keys_[t0].second;
        if (first < 0) continue;
        int pos = -1, neg = -1;  // tightest row of each orientation
        for (size_t t = t0; t < h; ++t) {
          int i = keys_[t].second;
          if (i < 0 || (t != t0 && !same(first, i))) continue;
          keys_[t].second = -1;
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
            found_eqs.insert(found_eqs.end(), s.geq(pos), s.geq(pos) + cols);
            drop[pos] = drop[neg] = 1;
          }
        }
      }
      g = h;
    }
    Compact(&s.geqs, cols, drop);
    if (!found_eqs.empty()) {
      s.eqs.insert(s.eqs.end(), found_eqs.begin(), found_eqs.end());
      *new_eqs = true;
    }
    return true;
  }

  void RecordBounds(System<Num>& s, int var, std::vector<Step>& steps,
                    std::vector<char>* involved) {
    Step step{var, false, s.cols, {}};
    int n = s.num_geqs();
    involved->assign(n, 0);
    for (int i = 0; i < n; ++i) {
      Num* r = s.geq(i);
      if (NIsZero(r[var])) continue;
      (*involved)[i] = 1;
      step.rows.insert(step.rows.end(), r, r + s.cols);
    }
    steps.push_back(std::move(step));
  }

  // Gives the step's variable a value within its recorded bounds.
  static void Replay(const Step& step, std::vector<Num>* point) {
    const int k = step.var;
    auto value_of = [&](int j) -> Num {
      return j - 1 < static_cast<int>(point->size()) ? (*point)[j - 1] : Num(0);
    };
    if (static_cast<int>(point->size()) < k) point->resize(k, Num(0));
    const int rows = static_cast<int>(step.rows.size()) / step.cols;
    if (step.substitution) {
      const Num* e = step.rows.data();
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
      const Num* r = step.rows.data() + static_cast<size_t>(i) * step.cols;
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

  bool SolveLevel(System<Num>& s, std::vector<Step>& steps,
                  std::vector<Num>* point) {
    std::vector<char> involved;
    std::vector<VarStats> stats;
    for (;;) {
      if (!EliminateEqualities(s, steps)) return false;
      bool new_eqs = false;
      if (!NormalizeGeqs(s, &new_eqs)) return false;
      if (new_eqs) continue;
      if (s.num_geqs() == 0) {
        point->assign(s.num_vars(), Num(0));
        return true;
      }
      stats.assign(s.cols, VarStats());
      for (int i = 0; i < s.num_geqs(); ++i) {
        Num* r = s.geq(i);
        int nonzero = 0, last = 0;
        for (int j = 1; j < s.cols; ++j) {
          if (NIsZero(r[j])) continue;
          ++nonzero, last = j;
          VarStats& v = stats[j];
          if (r[j] > Num(0)) {
            ++v.lower;
            if (r[j] > v.max_lower) v.max_lower = r[j];
          } else {
            ++v.upper;
            if (-r[j] > v.max_upper) v.max_upper = -r[j];
          }
        }
        if (nonzero == 1) {  // normalised: x + c >= 0 or -x + c >= 0
          VarStats& v = stats[last];
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
        const VarStats& v = stats[j];
        if ((v.lower == 0) != (v.upper == 0)) one_sided = j;
      }
      if (one_sided < 0) break;
      RecordBounds(s, one_sided, steps, &involved);
      Compact(&s.geqs, s.cols, involved);
    }

    // Choose the variable: an exact elimination with the fewest new rows,
    // else the one with the fewest splinters.
    int var = -1;
    bool exact = false;
    int64_t best_growth = 0;
    Num best_splinters = 0;
    int splinter_side = 1;
    for (int j = 1; j < s.cols; ++j) {
      const VarStats& v = stats[j];
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

    // Fourier-Motzkin: rows without var, plus one row per (lower, upper)
    // pair: for a x + L >= 0 and -b x + U >= 0, b L + a U >= 0 (real
    // shadow), minus (a-1)(b-1) for the dark shadow.
    System<Num> real;
    real.cols = s.cols;
    std::vector<int> lowers, uppers;
    for (int i = 0; i < s.num_geqs(); ++i) {
      Num* r = s.geq(i);
      if (NIsZero(r[var])) {
        real.geqs.insert(real.geqs.end(), r, r + s.cols);
      } else if (r[var] > Num(0)) {
        lowers.push_back(i);
      } else {
        uppers.push_back(i);
      }
    }
    SpendRows(static_cast<int64_t>(lowers.size()) * uppers.size(), s.cols);
    System<Num> dark;
    if (!exact) dark = real;
    for (int l : lowers) {
      for (int u : uppers) {
        const Num* rl = s.geq(l);
        const Num* ru = s.geq(u);
        Num a = rl[var], b = -ru[var];
        size_t base = real.geqs.size();
        real.geqs.resize(base + s.cols);
        Num* out = real.geqs.data() + base;
        for (int j = 0; j < s.cols; ++j) out[j] = b * rl[j] + a * ru[j];
        if (!exact) {
          dark.geqs.insert(dark.geqs.end(), out, out + s.cols);
          dark.geqs[dark.geqs.size() - s.cols] -= (a - Num(1)) * (b - Num(1));
        }
      }
    }
    std::vector<Step> own;
    RecordBounds(s, var, own, &involved);
    if (exact) {
      if (!Solve(std::move(real), point)) return false;
      steps.push_back(std::move(own.back()));
      return true;
    }
    if (Solve(std::move(dark), point)) {
      steps.push_back(std::move(own.back()));
      return true;
    }
    std::vector<Num> scratch;
    if (!Solve(std::move(real), &scratch)) return false;
    // Both splintering and enumerating the values of a variable that has
    // constant bounds are exact case splits: take the one with fewer cases.
    // (Boxes of index spaces are small while lifted coefficients such as
    // 512*d1 + 16*d2 + d0 are large: enumeration often wins by far.)
    int enum_var = -1;
    Num enum_lo = 0, enum_count = 0;
    for (int j = 1; j < s.cols; ++j) {
      const VarStats& v = stats[j];
      if (!v.has_lo || !v.has_hi || v.lo > v.hi) continue;
      Num count = v.hi - v.lo + Num(1);
      if (enum_var < 0 || count < enum_count) {
        enum_var = j, enum_lo = v.lo, enum_count = count;
      }
    }
    if (enum_var >= 0 && enum_count < best_splinters) {
      for (Num t = 0; t < enum_count; t += Num(1)) {
        System<Num> branch = s;
        std::vector<Num> e(enum_var + 1, Num(0));
        e[0] = -(enum_lo + t);
        e[enum_var] = Num(1);
        branch.AddEq(e);
        if (Solve(std::move(branch), point)) return true;
      }
      return false;
    }
    // Grey shadow: a solution outside the dark shadow lies close to one of
    // the splintered bounds, a x = -L + i with 0 <= i <= (m a - m - a) / m
    // where m is the largest opposite coefficient (Pugh §2.3.3).
    const Num m =
        splinter_side > 0 ? stats[var].max_upper : stats[var].max_lower;
    for (int i = 0; i < s.num_geqs(); ++i) {
      const Num* r = s.geq(i);
      if (NSign(r[var]) != splinter_side) continue;
      Num a = NAbs(r[var]);
      Num imax = NFloorDiv(m * a - m - a, m);
      for (Num t = 0; t <= imax; t += Num(1)) {
        System<Num> splinter = s;
        std::vector<Num> e(r, r + s.cols);
        e[0] -= t;
        splinter.AddEq(e);
        if (Solve(std::move(splinter), point)) return true;
      }
    }
    return false;
  }

  int64_t budget_;
  // Scratch space of NormalizeGeqs (which does not recurse).
  std::vector<char> drop_;
  std::vector<int> sign_;
  std::vector<std::pair<uint64_t, int>> keys_;
};

}  // namespace ixa::decide_internal

#endif  // IXA_SIMPLIFIER_DECIDE_OMEGA_H_
