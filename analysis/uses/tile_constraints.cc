#include "analysis/uses/tile_constraints.h"

#include <algorithm>

#include "core/text.h"
#include "simplifier/decide.h"

namespace ixa {
namespace {

bool AtomHolds(const TileAtom& a, std::span<const int64_t> sizes) {
  auto v = Evaluate(a.expr, sizes, {});
  return v.ok() && a.interval.Contains(*v);
}

bool ClauseHolds(const TileClause& c, std::span<const int64_t> sizes) {
  return std::any_of(c.begin(), c.end(),
                     [&](const TileAtom& a) { return AtomHolds(a, sizes); });
}

// The conjunction's atom on `e`, or nullptr.
const TileAtom* AtomOn(const TileConjunction& c, Expr e) {
  for (const TileAtom& a : c) {
    if (a.expr == e) return &a;
  }
  return nullptr;
}

// Every point of `b` satisfies `a` (as atom sets: each atom of a is implied
// by b's atom on the same expression).
bool Implies(const TileConjunction& b, const TileConjunction& a) {
  for (const TileAtom& atom : a) {
    const TileAtom* on = AtomOn(b, atom.expr);
    if (on == nullptr || !atom.interval.Contains(on->interval)) return false;
  }
  return true;
}

// The conjunction with `atom` added; nullopt when they contradict.
std::optional<TileConjunction> With(const TileConjunction& c,
                                    const TileAtom& atom) {
  TileConjunction out = c;
  for (TileAtom& a : out) {
    if (a.expr != atom.expr) continue;
    a.interval = a.interval.Intersect(atom.interval);
    if (a.interval.IsEmpty()) return std::nullopt;
    return out;
  }
  out.push_back(atom);
  return out;
}

std::vector<bool> UsedDims(const std::vector<TileAtom>& atoms, size_t n) {
  std::vector<bool> used(n, false);
  for (const TileAtom& a : atoms) {
    std::vector<bool> d, s;
    CollectVariables(a.expr, &d, &s);
    for (size_t k = 0; k < d.size() && k < n; ++k) used[k] = used[k] || d[k];
  }
  return used;
}

// Likely sizes first: 1, the powers of two, the extents, for the dims the
// clauses read (the others stay 1).
std::optional<std::vector<int64_t>> SearchLikelySizes(
    const std::vector<TileClause>& clauses, std::span<const int64_t> extents) {
  std::vector<TileAtom> atoms;
  for (const TileClause& c : clauses)
    atoms.insert(atoms.end(), c.begin(), c.end());
  const std::vector<bool> used = UsedDims(atoms, extents.size());
  std::vector<std::vector<int64_t>> axes;
  int64_t points = 1;
  for (size_t k = 0; k < extents.size(); ++k) {
    std::vector<int64_t> values = {1};
    if (used[k]) {
      for (int64_t p = 2; p < extents[k] && p > 0; p *= 2) values.push_back(p);
      if (extents[k] > 1) values.push_back(extents[k]);
    }
    points *= static_cast<int64_t>(values.size());
    if (points > (1 << 16)) return std::nullopt;
    axes.push_back(std::move(values));
  }
  std::vector<size_t> at(axes.size(), 0);
  std::vector<int64_t> sizes(axes.size());
  while (true) {
    for (size_t k = 0; k < axes.size(); ++k) sizes[k] = axes[k][at[k]];
    if (ClausesHold(clauses, sizes)) return sizes;
    size_t k = 0;
    while (k < axes.size() && ++at[k] == axes[k].size()) at[k++] = 0;
    if (k == axes.size()) return std::nullopt;
  }
}

}  // namespace

Result<std::vector<TileConjunction>> ToDisjunctiveForm(
    const std::vector<TileClause>& clauses, size_t max_conjunctions) {
  std::vector<TileClause> order;
  for (const TileClause& c : clauses) {
    if (std::none_of(order.begin(), order.end(),
                     [&](const TileClause& o) { return SameClause(o, c); })) {
      order.push_back(c);
    }
  }
  // Short clauses first: units narrow every conjunction before the
  // disjunctions multiply them.
  std::stable_sort(order.begin(), order.end(),
                   [](const TileClause& a, const TileClause& b) {
                     return a.size() < b.size();
                   });
  std::vector<TileConjunction> dnf = {{}};
  for (const TileClause& clause : order) {
    std::vector<TileConjunction> next;
    for (const TileConjunction& c : dnf) {
      const bool implied =
          std::any_of(clause.begin(), clause.end(),
                      [&](const TileAtom& a) { return Implies(c, {a}); });
      if (implied) {
        next.push_back(c);
        continue;
      }
      for (const TileAtom& a : clause) {
        if (auto with = With(c, a)) next.push_back(std::move(*with));
      }
    }
    // Drop a conjunction another one (kept) is implied by: the weaker one
    // covers it.
    std::vector<bool> covered(next.size(), false);
    for (size_t i = 0; i < next.size(); ++i) {
      for (size_t j = 0; j < next.size() && !covered[i]; ++j) {
        if (i == j || !Implies(next[i], next[j])) continue;
        // Of two equivalent ones keep the first.
        covered[i] = !Implies(next[j], next[i]) || j < i;
      }
    }
    std::vector<TileConjunction> kept;
    for (size_t i = 0; i < next.size(); ++i) {
      if (!covered[i]) kept.push_back(std::move(next[i]));
    }
    if (kept.size() > max_conjunctions) {
      return Error::Limit("the tile constraints have more than " +
                          std::to_string(max_conjunctions) +
                          " conjunctions in disjunctive form");
    }
    dnf = std::move(kept);
  }
  return dnf;
}

bool ClausesHold(const std::vector<TileClause>& clauses,
                 std::span<const int64_t> sizes) {
  return std::all_of(clauses.begin(), clauses.end(), [&](const TileClause& c) {
    return ClauseHolds(c, sizes);
  });
}

std::vector<size_t> FailingClauses(const std::vector<TileClause>& clauses,
                                   std::span<const int64_t> sizes) {
  std::vector<size_t> out;
  for (size_t i = 0; i < clauses.size(); ++i) {
    if (!ClauseHolds(clauses[i], sizes)) out.push_back(i);
  }
  return out;
}

int FirstHoldingConjunction(const std::vector<TileConjunction>& dnf,
                            std::span<const int64_t> sizes) {
  for (size_t i = 0; i < dnf.size(); ++i) {
    if (std::all_of(dnf[i].begin(), dnf[i].end(),
                    [&](const TileAtom& a) { return AtomHolds(a, sizes); })) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

TileSatisfiability DecideTileSatisfiability(
    const std::vector<TileClause>& clauses, std::span<const int64_t> extents,
    ExprContext* ctx) {
  TileSatisfiability out;
  if (auto sizes = SearchLikelySizes(clauses, extents)) {
    out.satisfiable = true;
    out.witness = std::move(*sizes);
    return out;
  }
  auto dnf = ToDisjunctiveForm(clauses);
  if (!dnf.ok()) return out;
  bool undecided = false;
  for (const TileConjunction& c : *dnf) {
    // Over the dims the conjunction reads only (renumbered), so that a
    // fallback enumeration sees the smallest box.
    const std::vector<bool> used = UsedDims(c, extents.size());
    std::vector<Variable> dims;
    std::vector<Expr> renumber;
    std::vector<size_t> original;
    for (size_t k = 0; k < extents.size(); ++k) {
      renumber.push_back(used[k] ? ctx->Dim(dims.size()) : ctx->Constant(1));
      if (used[k]) {
        dims.push_back(
            MakeVariable(Interval{1, std::max<int64_t>(extents[k], 1)}));
        original.push_back(k);
      }
    }
    std::vector<Constraint> constraints;
    for (const TileAtom& a : c) {
      constraints.push_back({Substitute(a.expr, renumber, {}), a.interval});
    }
    IndexingMap domain(ctx, dims, {}, {}, {}, constraints);
    auto point = FindPoint(domain);
    if (!point.ok()) {
      undecided = true;
      continue;
    }
    if (!point->has_value()) continue;
    out.satisfiable = true;
    out.witness.assign(extents.size(), 1);
    for (size_t i = 0; i < original.size(); ++i) {
      out.witness[original[i]] = (*point)->dims[i];
    }
    return out;
  }
  if (!undecided) out.satisfiable = false;
  return out;
}

std::string PrintTileAtom(const TileAtom& atom) {
  return PrintExpr(atom.expr) + " in " + atom.interval.ToString();
}

std::vector<std::string> PrintTileAtoms(const std::vector<TileAtom>& atoms) {
  std::vector<std::string> out;
  for (const TileAtom& a : atoms) out.push_back(PrintTileAtom(a));
  return out;
}

std::string PrintTileClause(const TileClause& clause) {
  std::string s;
  for (const TileAtom& a : clause) {
    if (!s.empty()) s += " || ";
    s += PrintTileAtom(a);
  }
  return s;
}

}  // namespace ixa
