// Input-to-output maps as the inverse relation of output-to-input maps
// (so that every op answers in both directions).
//
// The inverse of f: (d_out)[s]{rt} -> in_index is
//   (d_in)[o_0..o_k, s...]{rt} -> (o_0..o_k)
// with o_j over f's dim bounds, f's constraints, and f_i(o, s, rt) - d_in_i
// in [0, 0]. It is exact as a relation. Equalities in which a range
// variable appears alone with coefficient +-1 are solved for it, which
// turns most inverses into direct maps (a reduce-window input element
// `(d0)[s0] -> (d0 - s0)` rather than an equation).
//
// Runtime variables keep their producers; their producer maps, which read
// f's dims, now read the inverse's range variables o_j (symbols 0..k): a
// producer map's symbols are the leading range variables of the map that
// owns it.
#include <algorithm>
#include <cstdlib>

#include "analysis/indexing/internal.h"
#include "simplifier/linear.h"

namespace ixa::indexing_internal {
namespace {

bool MentionsSymbol(Expr e, int symbol) {
  std::vector<bool> dims, syms;
  CollectVariables(e, &dims, &syms);
  return symbol < static_cast<int>(syms.size()) && syms[symbol];
}

// Solves one equality constraint for a range variable that no producer
// map reads; returns false when none can be solved.
bool EliminateOne(IndexingMap* m) {
  ExprContext* ctx = m->context();
  std::vector<bool> pinned = ProducerMapSymbols(*m);
  const std::vector<Constraint> cs = m->constraints();
  for (size_t k = 0; k < cs.size(); ++k) {
    if (!cs[k].interval.IsPoint()) continue;
    std::optional<simp::LinearSum> lin = simp::ToLinear(cs[k].expr);
    if (!lin) continue;
    for (size_t t = 0; t < lin->terms.size(); ++t) {
      const simp::Term& term = lin->terms[t];
      if (!term.expr.IsSymbol() || std::abs(term.coeff) != 1) continue;
      const int p = static_cast<int>(term.expr.position());
      if (p >= m->num_range_vars() ||
          (p < static_cast<int>(pinned.size()) && pinned[p])) {
        continue;
      }
      // coeff * s + rest = value  =>  s = coeff * (value - rest).
      simp::LinearSum rest;
      rest.constant = lin->constant - cs[k].interval.lower;
      bool elsewhere = false;
      for (size_t u = 0; u < lin->terms.size(); ++u) {
        if (u == t) continue;
        elsewhere = elsewhere || MentionsSymbol(lin->terms[u].expr, p);
        rest.terms.push_back(lin->terms[u]);
      }
      if (elsewhere) continue;
      simp::LinearSum value;
      if (!simp::AddScaled(rest, -term.coeff, &value) ||
          !simp::Normalize(&value)) {
        continue;
      }
      Expr solved = simp::BuildSum(ctx, value);
      std::vector<Expr> repl;
      for (int i = 0; i < m->num_symbols(); ++i) {
        repl.push_back(i == p ? solved : ctx->Symbol(i));
      }
      const Interval bounds = m->range_vars()[p].bounds;
      for (Expr& r : m->mutable_results()) r = Substitute(r, {}, repl);
      std::vector<Constraint> next;
      for (size_t j = 0; j < cs.size(); ++j) {
        if (j != k)
          next.push_back({Substitute(cs[j].expr, {}, repl), cs[j].interval});
      }
      next.push_back({solved, bounds});
      m->SetConstraints(std::move(next));
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<bool> ProducerMapSymbols(const IndexingMap& m) {
  std::vector<bool> dims, syms;
  for (const Variable& v : m.rt_vars()) {
    if (!v.producer_map) continue;
    for (Expr r : v.producer_map->results()) CollectVariables(r, &dims, &syms);
    for (const Constraint& c : v.producer_map->constraints()) {
      CollectVariables(c.expr, &dims, &syms);
    }
  }
  syms.resize(m.num_symbols());
  return syms;
}

IndexingMap RenumberProducerMap(const IndexingMap& pm,
                                const std::vector<Expr>& repl,
                                const IndexingMap& owner) {
  // Only the results matter (which element is read); the domain is the
  // owner's, so the producer map's own constraints (and the runtime
  // variables they mention, which composition copies in) are dropped.
  std::vector<Expr> sym_repl(
      repl.begin(),
      repl.begin() + std::min<size_t>(repl.size(), pm.num_symbols()));
  std::vector<bool> dims, used;
  std::vector<Expr> results;
  for (Expr e : pm.results()) {
    results.push_back(Substitute(e, {}, sym_repl));
    CollectVariables(results.back(), &dims, &used);
  }
  used.resize(owner.num_range_vars());
  int count = 0;
  for (size_t i = 0; i < used.size(); ++i) {
    if (used[i]) count = static_cast<int>(i) + 1;
  }
  std::vector<Variable> ranges;
  for (int i = 0; i < count; ++i) {
    ranges.push_back(Var(owner.range_vars()[i].bounds));
  }
  return IndexingMap(owner.context(), pm.dims(), std::move(ranges), {},
                     std::move(results));
}

Result<IndexingMap> ComposeWithProducers(const IndexingMap& first,
                                         const IndexingMap& second) {
  IXA_ASSIGN_OR_RETURN(IndexingMap m, ComposeIndexingMaps(first, second));
  const int r2 = second.num_range_vars();
  const int t2 = second.num_rt_vars();
  if (m.IsKnownEmpty()) return m;
  ExprContext* ctx = m.context();
  for (int i = 0; i < m.num_rt_vars(); ++i) {
    Variable& v = m.mutable_rt_vars()[i];
    if (!v.producer_map) continue;
    if (v.producer_map->num_symbols() == 0 &&
        v.producer_map->constraints().empty()) {
      continue;
    }
    // Symbols of first's range variables moved behind second's; a producer
    // map of second composed with first reads [its own, first's] ranges.
    int own = 0;
    if (i < t2) {
      const Variable& orig = second.rt_vars()[i];
      if (!orig.producer_map ||
          orig.producer_map->num_dims() != first.num_results()) {
        continue;
      }
      own = orig.producer_map->num_range_vars();
    }
    std::vector<Expr> repl;
    for (int j = 0; j < v.producer_map->num_symbols(); ++j) {
      repl.push_back(j < own ? ctx->Symbol(j) : ctx->Symbol(r2 + j - own));
    }
    v.producer_map = std::make_shared<const IndexingMap>(
        RenumberProducerMap(*v.producer_map, repl, m));
  }
  return m;
}

Result<IndexingMap> InvertMap(const IndexingMap& f,
                              std::span<const int64_t> in_dims) {
  ExprContext* ctx = f.context();
  const int n = f.num_dims(), r = f.num_range_vars();
  if (f.num_results() != static_cast<int>(in_dims.size())) {
    return Error::Invalid(
        "cannot invert: the map has " + std::to_string(f.num_results()) +
        " results for an operand of rank " + std::to_string(in_dims.size()));
  }
  if (f.IsKnownEmpty()) {
    return IndexingMap::KnownEmpty(ctx, static_cast<int>(in_dims.size()), n);
  }
  // f's dim j becomes symbol j; f's symbol i becomes symbol n + i.
  std::vector<Expr> dim_repl, sym_repl;
  for (int j = 0; j < n; ++j) dim_repl.push_back(ctx->Symbol(j));
  for (int i = 0; i < f.num_symbols(); ++i) {
    sym_repl.push_back(ctx->Symbol(n + i));
  }
  std::vector<Variable> dims, ranges, rts;
  for (int64_t size : in_dims) dims.push_back(Var(Interval{0, size - 1}));
  for (const Variable& v : f.dims()) ranges.push_back(Var(v.bounds));
  for (const Variable& v : f.range_vars()) ranges.push_back(Var(v.bounds));
  for (const Variable& v : f.rt_vars()) {
    Variable moved = v;
    if (v.producer_map) {
      const IndexingMap& pm = *v.producer_map;
      if (pm.num_dims() != n || pm.num_rt_vars() != 0 ||
          pm.num_range_vars() > r) {
        return Error::Unsupported(
            "cannot invert a map whose runtime variable '" + v.producer +
            "' is read through a map over other variables");
      }
      std::vector<Expr> results;
      for (Expr e : pm.results()) {
        results.push_back(Substitute(e, dim_repl, sym_repl));
      }
      std::vector<Constraint> constraints;
      for (const Constraint& c : pm.constraints()) {
        constraints.push_back(
            {Substitute(c.expr, dim_repl, sym_repl), c.interval});
      }
      moved.producer_map = std::make_shared<const IndexingMap>(
          ctx, dims, ranges, std::vector<Variable>{}, std::move(results),
          std::move(constraints));
    }
    rts.push_back(std::move(moved));
  }
  std::vector<Expr> results;
  for (int j = 0; j < n; ++j) results.push_back(ctx->Symbol(j));
  std::vector<Constraint> constraints;
  for (const Constraint& c : f.constraints()) {
    constraints.push_back({Substitute(c.expr, dim_repl, sym_repl), c.interval});
  }
  for (int i = 0; i < f.num_results(); ++i) {
    constraints.push_back(
        {Substitute(f.results()[i], dim_repl, sym_repl) - ctx->Dim(i),
         Interval{0, 0}});
  }
  IndexingMap inverse(ctx, std::move(dims), std::move(ranges), std::move(rts),
                      std::move(results), std::move(constraints));
  for (int guard = 0; guard < 1024 && EliminateOne(&inverse); ++guard) {
  }
  return inverse;
}

Result<Indexing> InverseOfOutToIn(const Instruction& in, int operand,
                                  ExprContext* ctx) {
  const hlo::Shape& shape = in.operand(operand)->shape;
  if (!shape.IsArray()) {
    return Unsupported(in, "input-to-output indexing of a tuple operand");
  }
  Indexing out;
  for (int j = 0; j < OutputCount(in); ++j) {
    IXA_ASSIGN_OR_RETURN(Indexing forward,
                         ComputeOutputToInputIndexingPartial(in, j, ctx));
    out.indexing_maps.emplace_back();
    if (forward.IsUnknown(operand)) {
      out.SetUnknown(j, forward.unknown[operand]);
      continue;
    }
    if (operand >= static_cast<int>(forward.indexing_maps.size())) continue;
    for (const IndexingMap& f : forward.indexing_maps[operand]) {
      IXA_ASSIGN_OR_RETURN(IndexingMap inverse, InvertMap(f, shape.dims));
      FinishMap(&inverse);
      out.indexing_maps.back().Insert(std::move(inverse));
    }
  }
  return out;
}

}  // namespace ixa::indexing_internal
