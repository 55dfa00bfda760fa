#include "hw/bank_conflicts.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "core/int_math.h"

namespace ixa::hw {

namespace {

std::string BankStr(int64_t v) { return std::to_string(v); }

// ------------------------------------------------------------ periodicity
//
// Translation periodicity of an expression in one variable v: if v grows by
// `step`, how much does the expression grow, for every value of every
// variable? For + and * by a constant the growths add and scale; for
// floordiv and ceildiv by d, (e + k*d) fd d = (e fd d) + k, so the growth
// of e must be a multiple of d and becomes k; for mod, (e + k*d) mod d =
// e mod d, growth 0. Where a divisor does not divide its operand's growth,
// the step is multiplied by d / gcd (every growth is linear in the step,
// so the conditions checked so far stay met) and the walk restarts. A
// product of two variable terms, a variable divisor or a min/max whose
// operands grow differently is not periodic this way.
struct BankShiftWalk {
  bool is_dim = true;
  int position = 0;
  int64_t step = 1;
  int64_t scale = 1;       // > 1: restart with step * scale
  bool aperiodic = false;  // no translation period
  std::unordered_map<const ExprNode*, int64_t> memo;
};

std::optional<int64_t> BankShift(Expr e, BankShiftWalk& w) {
  if (auto it = w.memo.find(e.node()); it != w.memo.end()) return it->second;
  std::optional<int64_t> out;
  switch (e.kind()) {
    case ExprKind::kConstant:
      out = 0;
      break;
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      out = (e.IsDim() == w.is_dim && e.position() == w.position) ? w.step : 0;
      break;
    case ExprKind::kAdd: {
      auto a = BankShift(e.lhs(), w);
      if (!a) return std::nullopt;
      auto b = BankShift(e.rhs(), w);
      if (!b) return std::nullopt;
      out = CheckedAdd(*a, *b);
      if (!out) w.aperiodic = true;
      break;
    }
    case ExprKind::kMul: {
      auto a = BankShift(e.lhs(), w);
      if (!a) return std::nullopt;
      auto b = BankShift(e.rhs(), w);
      if (!b) return std::nullopt;
      if (e.rhs().IsConstant()) {
        out = CheckedMul(*a, e.rhs().constant());
      } else if (e.lhs().IsConstant()) {
        out = CheckedMul(*b, e.lhs().constant());
      } else if (*a == 0 && *b == 0) {
        out = 0;
      }
      if (!out) w.aperiodic = true;
      break;
    }
    case ExprKind::kFloorDiv:
    case ExprKind::kCeilDiv:
    case ExprKind::kMod: {
      auto a = BankShift(e.lhs(), w);
      if (!a) return std::nullopt;
      auto b = BankShift(e.rhs(), w);
      if (!b) return std::nullopt;
      if (!e.rhs().IsConstant() || e.rhs().constant() == 0) {
        if (*a != 0 || *b != 0) {
          w.aperiodic = true;
          return std::nullopt;
        }
        out = 0;
        break;
      }
      int64_t d = e.rhs().constant();
      if (d == kInt64Min) {
        w.aperiodic = true;
        return std::nullopt;
      }
      int64_t ad = d < 0 ? -d : d;
      if (*a % ad != 0) {
        w.scale = ad / Gcd(*a < 0 ? -(*a % ad) : *a % ad, ad);
        return std::nullopt;
      }
      out = e.kind() == ExprKind::kMod ? 0 : *a / d;
      break;
    }
    case ExprKind::kMin:
    case ExprKind::kMax: {
      auto a = BankShift(e.lhs(), w);
      if (!a) return std::nullopt;
      auto b = BankShift(e.rhs(), w);
      if (!b) return std::nullopt;
      if (*a != *b) {
        w.aperiodic = true;
        return std::nullopt;
      }
      out = *a;
      break;
    }
  }
  if (!out) return std::nullopt;
  w.memo.emplace(e.node(), *out);
  return out;
}

struct BankPeriod {
  int64_t step = 0;   // in the variable's units
  int64_t shift = 0;  // bytes
};

// The least step (a multiple of `initial`, below `cap`) after which the
// address moves by a multiple of `alignment` bytes and every constraint is
// unchanged; none when there is no such step below `cap`.
std::optional<BankPeriod> PeriodOfVariable(const IndexingMap& map, bool is_dim,
                                           int position, int64_t initial,
                                           int64_t cap, int64_t alignment) {
  int64_t step = initial;
  while (step < cap) {
    BankShiftWalk w;
    w.is_dim = is_dim;
    w.position = position;
    w.step = step;
    auto restart = [&]() -> bool {
      if (w.aperiodic) return false;
      auto next = CheckedMul(step, w.scale);
      if (!next) return false;
      step = *next;
      return true;
    };
    auto shift = BankShift(map.results()[0], w);
    if (!shift) {
      if (!restart()) return std::nullopt;
      continue;
    }
    bool again = false, moved = false;
    for (const Constraint& c : map.constraints()) {
      auto s = BankShift(c.expr, w);
      if (!s) {
        if (!restart()) return std::nullopt;
        again = true;
        break;
      }
      if (*s != 0) moved = true;
    }
    if (again) continue;
    if (moved) return std::nullopt;  // the active lanes move: no period
    int64_t r = *shift % alignment;
    if (r != 0) {
      auto next = CheckedMul(step, alignment / Gcd(r < 0 ? -r : r, alignment));
      if (!next) return std::nullopt;
      step = *next;
      continue;
    }
    return BankPeriod{step, *shift};
  }
  return std::nullopt;
}

// One axis of the instance space: the values evaluated and how many
// instances each stands for.
struct BankAxis {
  std::vector<int64_t> values;
  std::vector<int64_t> weights;
};

// Appends at most `cap` values: an axis cut there has more values than the
// budget allows, which the budget check then reports.
void AppendReduced(int64_t lo, int64_t hi, int64_t period, int64_t cap,
                   BankAxis* axis) {
  const int64_t n = hi - lo + 1;
  auto full = [&] { return static_cast<int64_t>(axis->values.size()) >= cap; };
  if (period <= 0 || period >= n) {
    for (int64_t v = lo; v <= hi && !full(); ++v) {
      axis->values.push_back(v);
      axis->weights.push_back(1);
    }
    return;
  }
  for (int64_t r = 0; r < period && !full(); ++r) {
    axis->values.push_back(lo + r);
    axis->weights.push_back((n - 1 - r) / period + 1);
  }
}

bool ValidAccessBytes(int64_t w) {
  return w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
}

}  // namespace

Result<BankModel> BankModelOf(const Device& device) {
  if (device.smem_banks < 1 || device.bank_bytes < 1 || device.warp_size < 1)
    return Error::Invalid("device " + device.name +
                          " has no banked shared memory model");
  return BankModel{device.smem_banks, device.bank_bytes, device.warp_size};
}

int64_t LanesPerPhase(int64_t access_bytes, const BankModel& model) {
  if (access_bytes <= model.bank_bytes) return model.warp_size;
  return std::max<int64_t>(1, model.banks * model.bank_bytes / access_bytes);
}

int64_t PhasesOf(int64_t access_bytes, const BankModel& model) {
  const int64_t lanes = LanesPerPhase(access_bytes, model);
  return (model.warp_size + lanes - 1) / lanes;
}

int64_t WarpWavefronts(std::span<const std::optional<int64_t>> addresses,
                       int64_t access_bytes, const BankModel& model,
                       BankPhaseWorst* worst) {
  const int64_t lanes_per_phase = LanesPerPhase(access_bytes, model);
  const int64_t words_per_lane =
      std::max<int64_t>(1, access_bytes / model.bank_bytes);
  struct Ask {
    int64_t bank, word, lane;
  };
  std::vector<Ask> asks;
  int64_t total = 0;
  if (worst) *worst = BankPhaseWorst{};
  const int64_t n = static_cast<int64_t>(addresses.size());
  for (int64_t first = 0, phase = 0; first < n;
       first += lanes_per_phase, ++phase) {
    asks.clear();
    for (int64_t lane = first; lane < std::min(n, first + lanes_per_phase);
         ++lane) {
      if (!addresses[lane]) continue;
      const int64_t word0 = *addresses[lane] / model.bank_bytes;
      for (int64_t k = 0; k < words_per_lane; ++k) {
        asks.push_back({(word0 + k) % model.banks, word0 + k, lane});
      }
    }
    if (asks.empty()) continue;
    std::sort(asks.begin(), asks.end(), [](const Ask& a, const Ask& b) {
      return a.bank != b.bank   ? a.bank < b.bank
             : a.word != b.word ? a.word < b.word
                                : a.lane < b.lane;
    });
    int64_t phase_max = 0, best_bank = -1;
    for (size_t i = 0; i < asks.size();) {
      size_t j = i;
      int64_t distinct = 0;
      while (j < asks.size() && asks[j].bank == asks[i].bank) {
        if (j == i || asks[j].word != asks[j - 1].word) ++distinct;
        ++j;
      }
      if (distinct > phase_max) {
        phase_max = distinct;
        best_bank = asks[i].bank;
      }
      i = j;
    }
    total += phase_max;
    if (worst && phase_max > worst->words) {
      worst->phase = phase;
      worst->bank = best_bank;
      worst->words = phase_max;
      worst->lanes.clear();
      for (size_t i = 0; i < asks.size(); ++i) {
        if (asks[i].bank != best_bank) continue;
        if (!worst->lanes.empty() && worst->lanes.back().word == asks[i].word)
          continue;
        worst->lanes.push_back({asks[i].lane, asks[i].word});
      }
    }
  }
  return total;
}

Result<BankConflictReport> AnalyzeBankConflicts(
    const SharedAccess& access, const BankModel& model,
    const BankConflictOptions& options) {
  const IndexingMap& map = access.map;
  if (model.banks < 1 || model.bank_bytes < 1 || model.warp_size < 1 ||
      model.banks > 1024 || model.warp_size > 1024 || model.bank_bytes > 64) {
    return Error::Invalid(
        "the bank model needs 1 to 1024 banks of 1 to 64 bytes and a warp "
        "of 1 to 1024 lanes");
  }
  if (map.num_results() != 1)
    return Error::Invalid("a shared access map has one result (the byte " +
                          std::string("address); this one has ") +
                          BankStr(map.num_results()));
  if (access.thread_dim < 0 || access.thread_dim >= map.num_dims())
    return Error::Invalid("the thread dim " + BankStr(access.thread_dim) +
                          " is not a dim of the map (it has " +
                          BankStr(map.num_dims()) + ")");
  if (access.element_bytes < 1 || access.vector_width < 1 ||
      access.element_bytes > 16 || access.vector_width > 16)
    return Error::Invalid("element_bytes and vector_width must be 1 to 16");
  const int64_t access_bytes = access.element_bytes * access.vector_width;
  if (!ValidAccessBytes(access_bytes))
    return Error::Invalid("the access width (element_bytes * vector_width = " +
                          BankStr(access_bytes) +
                          " bytes) must be 1, 2, 4, 8 or 16 bytes");
  if (access_bytes > model.banks * model.bank_bytes)
    return Error::Invalid("the access width exceeds the banks' width");
  if (options.budget < 1) return Error::Invalid("the budget must be positive");

  BankConflictReport report;
  report.access_bytes = access_bytes;
  report.phases = PhasesOf(access_bytes, model);
  if (map.IsKnownEmpty()) return report;

  // Variables: the thread dim, the other dims, then the symbols.
  struct LoopVar {
    bool is_dim;
    int position;
    std::string name;
    Interval bounds;
  };
  std::vector<LoopVar> loops;
  for (int i = 0; i < map.num_dims(); ++i) {
    if (i != access.thread_dim)
      loops.push_back({true, i, map.DimName(i), map.dims()[i].bounds});
  }
  for (int i = 0; i < map.num_symbols(); ++i)
    loops.push_back({false, i, map.SymbolName(i), map.symbol(i).bounds});
  const Interval threads = map.dims()[access.thread_dim].bounds;
  for (const Interval& b : [&] {
         std::vector<Interval> all{threads};
         for (const LoopVar& l : loops) all.push_back(l.bounds);
         return all;
       }()) {
    if (b.IsEmpty()) return report;
    if (b.lower == kInt64Min || b.upper == kInt64Max || b.Size() == kInt64Max) {
      return Error::Invalid(
          "every variable of a shared access needs finite bounds");
    }
  }
  if (threads.lower < 0)
    return Error::Invalid("thread ids must be non-negative");

  const int64_t ws = model.warp_size;
  const int64_t alignment = std::lcm(model.bank_bytes, access_bytes);
  std::vector<BankAxis> axes(1 + loops.size());
  const int64_t cap = options.budget / ws + 1;
  // Warps: partial warps (at the ends of the thread range) are evaluated
  // one by one; the run of full warps is reduced by the thread period.
  {
    const int64_t first_warp = threads.lower / ws;
    const int64_t last_warp = threads.upper / ws;
    const int64_t first_full = (threads.lower + ws - 1) / ws;
    const int64_t last_full = (threads.upper + 1) / ws - 1;
    VariablePeriod vp{"warp", last_warp - first_warp + 1,
                      last_warp - first_warp + 1, 0};
    BankAxis& axis = axes[0];
    if (first_full > last_full) {
      AppendReduced(first_warp, last_warp, 0, cap, &axis);
    } else {
      if (first_warp < first_full)
        AppendReduced(first_warp, first_warp, 0, cap, &axis);
      int64_t period_warps = 0;
      const int64_t full = last_full - first_full + 1;
      if (options.use_periodicity && full > 1) {
        auto p = PeriodOfVariable(map, true, access.thread_dim, ws,
                                  *CheckedMul(full, ws), alignment);
        if (p) {
          period_warps = p->step / ws;
          vp.period = period_warps;
          vp.shift = p->shift;
          report.periodic = true;
        }
      }
      AppendReduced(first_full, last_full, period_warps, cap, &axis);
      if (last_warp > last_full)
        AppendReduced(last_warp, last_warp, 0, cap, &axis);
    }
    report.periods.push_back(vp);
  }
  for (size_t i = 0; i < loops.size(); ++i) {
    const LoopVar& l = loops[i];
    const int64_t n = l.bounds.Size();
    VariablePeriod vp{l.name, n, n, 0};
    int64_t period = 0;
    if (options.use_periodicity && n > 1) {
      auto p = PeriodOfVariable(map, l.is_dim, l.position, 1, n, alignment);
      if (p) {
        period = p->step;
        vp.period = p->step;
        vp.shift = p->shift;
        report.periodic = true;
      }
    }
    AppendReduced(l.bounds.lower, l.bounds.upper, period, cap, &axes[1 + i]);
    report.periods.push_back(vp);
  }
  // The budget, before any evaluation.
  int64_t cells = ws;
  for (size_t a = 0; a < axes.size(); ++a) {
    auto next = CheckedMul(cells, static_cast<int64_t>(axes[a].values.size()));
    if (!next || *next > options.budget) {
      std::string which;
      for (const VariablePeriod& vp : report.periods) {
        if (vp.period == vp.size && vp.size > 1)
          which += (which.empty() ? "" : ", ") + vp.name;
      }
      return Error::Limit(
          "the access needs more than " + BankStr(options.budget) +
          " lane evaluations after the periodicity reduction" +
          (which.empty() ? std::string()
                         : " (no period found for: " + which + ")"));
    }
    cells = *next;
  }

  std::vector<int64_t> dims(map.num_dims()), symbols(map.num_symbols());
  std::vector<size_t> at(axes.size(), 0);
  std::vector<std::optional<int64_t>> addresses(ws);
  __int128 total = 0, ideal = 0, instances = 0;
  int64_t best_extra = 0;
  for (;;) {
    // This instance's weight and loop values.
    __int128 weight = 1;
    for (size_t a = 0; a < axes.size(); ++a) {
      weight *= axes[a].weights[at[a]];
      if (weight > static_cast<__int128>(kInt64Max))
        return Error::Limit("the access has more than 2^63 warp accesses");
    }
    for (size_t i = 0; i < loops.size(); ++i) {
      int64_t v = axes[1 + i].values[at[1 + i]];
      (loops[i].is_dim ? dims : symbols)[loops[i].position] = v;
    }
    const int64_t warp = axes[0].values[at[0]];
    int64_t active_phases = 0;
    std::vector<bool> phase_active(report.phases, false);
    const int64_t lanes_per_phase = LanesPerPhase(access_bytes, model);
    for (int64_t lane = 0; lane < ws; ++lane) {
      addresses[lane].reset();
      const int64_t t = warp * ws + lane;
      if (!threads.Contains(t)) continue;
      dims[access.thread_dim] = t;
      bool on = true;
      for (const Constraint& c : map.constraints()) {
        IXA_ASSIGN_OR_RETURN(int64_t v, Evaluate(c.expr, dims, symbols));
        if (!c.interval.Contains(v)) {
          on = false;
          break;
        }
      }
      ++report.evaluated_lanes;
      if (!on) continue;
      IXA_ASSIGN_OR_RETURN(int64_t address,
                           Evaluate(map.results()[0], dims, symbols));
      if (address < 0 || address % access_bytes != 0) {
        std::string where = "thread " + BankStr(t);
        for (const LoopVar& l : loops) {
          where += ", " + l.name + " = " +
                   BankStr((l.is_dim ? dims : symbols)[l.position]);
        }
        return Error::Invalid(
            "at " + where + " the byte address " + BankStr(address) +
            (address < 0 ? " is negative"
                         : " is not a multiple of the access width " +
                               BankStr(access_bytes)));
      }
      addresses[lane] = address;
      phase_active[std::min<int64_t>(lane / lanes_per_phase,
                                     report.phases - 1)] = true;
    }
    for (bool p : phase_active) active_phases += p ? 1 : 0;
    if (active_phases > 0) {
      BankPhaseWorst worst;
      const int64_t waves =
          WarpWavefronts(addresses, access_bytes, model, &worst);
      total += weight * waves;
      ideal += weight * active_phases;
      instances += weight;
      report.worst = std::max(report.worst, waves);
      if (waves - active_phases > best_extra) {
        best_extra = waves - active_phases;
        BankCounterexample ce;
        ce.warp = warp;
        for (const LoopVar& l : loops) {
          ce.loop_names.push_back(l.name);
          ce.loop_values.push_back((l.is_dim ? dims : symbols)[l.position]);
        }
        ce.phase = worst.phase;
        ce.bank = worst.bank;
        ce.wavefronts = waves;
        ce.lanes = worst.lanes;
        report.counterexample = std::move(ce);
      }
      const __int128 kMax = kInt64Max;
      if (total > kMax || instances > kMax)
        return Error::Limit("the total wavefronts overflow int64");
    }
    // Next instance (the last axis fastest).
    int a = static_cast<int>(axes.size()) - 1;
    for (; a >= 0; --a) {
      if (++at[a] < axes[a].values.size()) break;
      at[a] = 0;
    }
    if (a < 0) break;
  }
  report.total_wavefronts = static_cast<int64_t>(total);
  report.ideal_wavefronts = static_cast<int64_t>(ideal);
  report.instances = static_cast<int64_t>(instances);
  report.conflict_free = total == ideal;
  report.average = instances > 0 ? static_cast<double>(total) /
                                       static_cast<double>(instances)
                                 : 0;
  return report;
}

}  // namespace ixa::hw
