#include "tests/simplifier/fuzz_lib.h"

#include <functional>
#include <sstream>
#include <vector>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/simplify.h"

namespace ixa::fuzz {

namespace {

int64_t Pick(std::mt19937_64& rng, std::initializer_list<int64_t> values) {
  std::uniform_int_distribution<size_t> d(0, values.size() - 1);
  return *(values.begin() + d(rng));
}

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

bool Chance(std::mt19937_64& rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

struct Generator {
  std::mt19937_64& rng;
  ExprContext* ctx;
  int num_dims;
  int num_symbols;

  Expr Variable() {
    int total = num_dims + num_symbols;
    if (total == 0) return ctx->Constant(Uniform(rng, -3, 9));
    int i = static_cast<int>(Uniform(rng, 0, total - 1));
    return i < num_dims ? ctx->Dim(i) : ctx->Symbol(i - num_dims);
  }

  Expr Leaf() {
    if (Chance(rng, 0.8)) return Variable();
    return ctx->Constant(Uniform(rng, -5, 12));
  }

  int64_t Divisor() {
    if (Chance(rng, 0.06)) return Pick(rng, {-2, -3, -7});
    if (Chance(rng, 0.03)) return Pick(rng, {1, -1});
    return Pick(rng, {2, 2, 3, 4, 4, 5, 6, 8, 8, 12, 16, 32});
  }

  int64_t Coefficient() {
    if (Chance(rng, 0.05)) return Pick(rng, {100, -64, 1000003});
    return Pick(rng, {-3, -2, -1, 1, 1, 1, 2, 3, 4, 5, 8, 16});
  }

  Expr Linear() {
    Expr e = ctx->Mul(Variable(), ctx->Constant(Coefficient()));
    int extra = static_cast<int>(Uniform(rng, 0, 2));
    for (int i = 0; i < extra; ++i) {
      e = ctx->Add(e, ctx->Mul(Variable(), ctx->Constant(Coefficient())));
    }
    if (Chance(rng, 0.4)) e = ctx->Add(e, ctx->Constant(Uniform(rng, -9, 20)));
    return e;
  }

  // Delinearize L over random radices, then (sometimes) linearize back.
  Expr Tower(int depth) {
    Expr base = Chance(rng, 0.7) ? Linear() : Random(depth - 1);
    int64_t a = Pick(rng, {2, 3, 4, 5, 8});
    int64_t b = Pick(rng, {2, 3, 4, 6});
    switch (Uniform(rng, 0, 4)) {
      case 0:
        return ctx->Mod(ctx->FloorDiv(base, ctx->Constant(a)),
                        ctx->Constant(b));
      case 1:
        return ctx->FloorDiv(ctx->Mod(base, ctx->Constant(a * b)),
                             ctx->Constant(a));
      case 2: {  // (L floordiv a) * a + L mod a, possibly scaled
        int64_t k = Pick(rng, {1, 1, 2, -1});
        Expr hi = ctx->Mul(ctx->FloorDiv(base, ctx->Constant(a)),
                           ctx->Constant(a * k));
        Expr lo = ctx->Mul(ctx->Mod(base, ctx->Constant(a)), ctx->Constant(k));
        return Chance(rng, 0.5) ? ctx->Add(hi, lo) : ctx->Add(lo, hi);
      }
      case 3: {  // L - (L floordiv a) * a
        Expr q =
            ctx->Mul(ctx->FloorDiv(base, ctx->Constant(a)), ctx->Constant(-a));
        return Chance(rng, 0.5) ? ctx->Add(base, q) : ctx->Add(q, base);
      }
      default: {  // three-level delinearize then linearize
        Expr d0 = ctx->FloorDiv(base, ctx->Constant(a * b));
        Expr d1 =
            ctx->Mod(ctx->FloorDiv(base, ctx->Constant(a)), ctx->Constant(b));
        Expr d2 = ctx->Mod(base, ctx->Constant(a));
        return ctx->Add(ctx->Add(ctx->Mul(d0, ctx->Constant(a * b)),
                                 ctx->Mul(d1, ctx->Constant(a))),
                        d2);
      }
    }
  }

  Expr Random(int depth) {
    if (depth <= 0 || Chance(rng, 0.25)) return Leaf();
    int64_t op = Uniform(rng, 0, 99);
    if (op < 22) return ctx->Add(Random(depth - 1), Random(depth - 1));
    if (op < 34)
      return ctx->Mul(Random(depth - 1), ctx->Constant(Coefficient()));
    if (op < 48)
      return ctx->FloorDiv(Random(depth - 1), ctx->Constant(Divisor()));
    if (op < 62) return ctx->Mod(Random(depth - 1), ctx->Constant(Divisor()));
    if (op < 70)
      return ctx->CeilDiv(Random(depth - 1), ctx->Constant(Divisor()));
    if (op < 80) return Linear();
    if (op < 89) return Tower(depth);
    if (op < 95) {  // min / max of two random operands, or a clamp
      Expr a = Random(depth - 1);
      Expr b = Chance(rng, 0.3) ? ctx->Constant(Uniform(rng, -6, 24))
                                : Random(depth - 1);
      if (Chance(rng, 0.15)) {
        return ctx->Max(ctx->Min(a, ctx->Constant(Uniform(rng, 0, 20))),
                        ctx->Constant(Uniform(rng, -4, 4)));
      }
      return Chance(rng, 0.5) ? ctx->Min(a, b) : ctx->Max(a, b);
    }
    // Semi-affine: symbols have positive bounds (see RandomMap).
    if (num_symbols == 0) return Linear();
    Expr s = ctx->Symbol(Uniform(rng, 0, num_symbols - 1));
    switch (Uniform(rng, 0, 2)) {
      case 0:
        return ctx->Mul(Random(depth - 1), s);
      case 1:
        return ctx->FloorDiv(Random(depth - 1), s);
      default:
        return ctx->Mod(Random(depth - 1), s);
    }
  }
};

int TotalDivMod(const IndexingMap& m) {
  int n = 0;
  for (Expr r : m.results()) n += CountDivMod(r);
  for (const Constraint& c : m.constraints()) n += CountDivMod(c.expr);
  return n;
}

int TotalMinMax(const IndexingMap& m) {
  int n = 0;
  for (Expr r : m.results()) n += CountMinMax(r);
  for (const Constraint& c : m.constraints()) n += CountMinMax(c.expr);
  return n;
}

// Rebuilds e with the node at pre-order `index` replaced by `with` (or by
// its lhs / rhs when `with` is null and which is 0 / 1). Null if the result
// would divide by the constant 0.
Expr ReplaceAt(Expr e, int* index, Expr with, int which) {
  if ((*index)-- == 0) {
    if (with) return with;
    if (!e.IsBinary()) return Expr();
    return which == 0 ? e.lhs() : e.rhs();
  }
  if (!e.IsBinary()) return e;
  Expr a = ReplaceAt(e.lhs(), index, with, which);
  if (!a) return Expr();
  Expr b = ReplaceAt(e.rhs(), index, with, which);
  if (!b) return Expr();
  if (a == e.lhs() && b == e.rhs()) return e;
  if (IsDivModKind(e.kind()) && b.IsConstant(0)) return Expr();
  return e.context()->Binary(e.kind(), a, b);
}

int NodeCount(Expr e) {
  return e.IsBinary() ? 1 + NodeCount(e.lhs()) + NodeCount(e.rhs()) : 1;
}

}  // namespace

IndexingMap RandomMap(std::mt19937_64& rng, ExprContext* ctx) {
  int num_dims = static_cast<int>(Uniform(rng, 0, 3));
  int num_symbols = static_cast<int>(Uniform(rng, 0, 2));
  if (num_dims + num_symbols == 0) num_dims = 1;
  std::vector<Variable> dims, symbols;
  int64_t box = 1;
  for (int i = 0; i < num_dims; ++i) {
    int64_t lo = Chance(rng, 0.75) ? 0 : Uniform(rng, -6, 6);
    int64_t size = Uniform(rng, 1, box > 40 ? 4 : 12);
    box *= size;
    dims.push_back({Interval{lo, lo + size - 1}, ""});
  }
  for (int i = 0; i < num_symbols; ++i) {
    int64_t lo = Uniform(rng, 1, 4);  // positive: symbols may be divisors
    int64_t size = Uniform(rng, 1, box > 40 ? 3 : 6);
    box *= size;
    symbols.push_back({Interval{lo, lo + size - 1}, ""});
  }
  Generator gen{rng, ctx, num_dims, num_symbols};
  std::vector<Expr> results;
  int num_results = static_cast<int>(Uniform(rng, 1, 3));
  for (int i = 0; i < num_results; ++i) results.push_back(gen.Random(4));
  std::vector<Constraint> constraints;
  int num_constraints =
      Chance(rng, 0.5) ? 0 : static_cast<int>(Uniform(rng, 1, 2));
  for (int i = 0; i < num_constraints; ++i) {
    int64_t lo = Uniform(rng, -4, 12);
    constraints.push_back(
        {gen.Random(3), Interval{lo, lo + Uniform(rng, 0, 30)}});
  }
  return IndexingMap(ctx, std::move(dims), std::move(symbols), {},
                     std::move(results), std::move(constraints));
}

std::string CheckMap(const IndexingMap& original) {
  // Maps whose own evaluation fails on the domain (overflow) are skipped.
  auto self = EquivalentByEnumeration(original, original);
  if (!self.ok()) return "";
  IndexingMap m = original;
  SimplifyResult r = Simplify(&m);
  std::string out = PrintIndexingMap(m);
  if (r.budget_exhausted) return "budget exhausted: " + out;
  auto eq = EquivalentByEnumeration(original, m);
  if (!eq.ok()) return "evaluation failed after simplification: " + out;
  if (!eq->equivalent) {
    std::ostringstream s;
    s << "not equal at dims (";
    for (int64_t v : eq->counterexample->dims) s << v << " ";
    s << ") symbols (";
    for (int64_t v : eq->counterexample->symbols) s << v << " ";
    s << "): " << out;
    return s.str();
  }
  IndexingMap again = m;
  SimplifyResult r2 = Simplify(&again);
  if (r2.changed || PrintIndexingMap(again) != out) {
    return "not idempotent: " + out + "  ->  " + PrintIndexingMap(again);
  }
  if (!m.IsKnownEmpty() && TotalDivMod(m) > TotalDivMod(original)) {
    return "div/mod count grew: " + out;
  }
  if (!m.IsKnownEmpty() && TotalMinMax(m) > TotalMinMax(original)) {
    return "min/max count grew: " + out;
  }
  ExprContext fresh;
  auto reparsed = ParseIndexingMap(PrintIndexingMap(original), &fresh);
  if (!reparsed.ok()) return "";  // a printer/parser issue, not ours
  Simplify(&*reparsed);
  if (PrintIndexingMap(*reparsed) != out) {
    return "not deterministic: " + out + "  vs  " + PrintIndexingMap(*reparsed);
  }
  return "";
}

IndexingMap Shrink(const IndexingMap& failing) {
  IndexingMap best = failing;
  ExprContext* ctx = failing.context();
  auto fails = [](const IndexingMap& m) { return !CheckMap(m).empty(); };
  for (int step = 0; step < 400; ++step) {
    std::vector<IndexingMap> candidates;
    for (int i = 0; i < best.num_results(); ++i) {
      IndexingMap c = best;
      c.mutable_results().erase(c.mutable_results().begin() + i);
      candidates.push_back(c);
    }
    for (size_t i = 0; i < best.constraints().size(); ++i) {
      std::vector<Constraint> cs = best.constraints();
      cs.erase(cs.begin() + i);
      IndexingMap c = best;
      c.SetConstraints(cs);
      candidates.push_back(c);
    }
    auto shrink_expr = [&](Expr e, const std::function<void(Expr)>& emit) {
      int n = NodeCount(e);
      for (int i = 0; i < n; ++i) {
        for (int which = 0; which < 2; ++which) {
          int index = i;
          if (Expr r = ReplaceAt(e, &index, Expr(), which); r && r != e)
            emit(r);
        }
        for (int64_t v : {0, 1}) {
          int index = i;
          if (Expr r = ReplaceAt(e, &index, ctx->Constant(v), 0); r && r != e) {
            emit(r);
          }
        }
      }
    };
    for (int i = 0; i < best.num_results(); ++i) {
      shrink_expr(best.results()[i], [&](Expr r) {
        IndexingMap c = best;
        c.mutable_results()[i] = r;
        candidates.push_back(c);
      });
    }
    for (size_t i = 0; i < best.constraints().size(); ++i) {
      shrink_expr(best.constraints()[i].expr, [&](Expr r) {
        std::vector<Constraint> cs = best.constraints();
        cs[i].expr = r;
        IndexingMap c = best;
        c.SetConstraints(cs);
        candidates.push_back(c);
      });
    }
    for (int i = 0; i < best.num_dims() + best.num_symbols(); ++i) {
      for (int side = 0; side < 2; ++side) {
        IndexingMap c = best;
        Variable& v = i < best.num_dims()
                          ? c.mutable_dims()[i]
                          : c.mutable_symbol(i - best.num_dims());
        if (v.bounds.Size() <= 1) continue;
        (side == 0 ? v.bounds.lower : v.bounds.upper) += side == 0 ? 1 : -1;
        candidates.push_back(c);
      }
    }
    bool improved = false;
    for (const IndexingMap& c : candidates) {
      if (!c.IsKnownEmpty() && fails(c)) {
        best = c;
        improved = true;
        break;
      }
    }
    if (!improved) break;
  }
  return best;
}

std::string ReproTest(const IndexingMap& map, const std::string& failure) {
  std::ostringstream s;
  s << "// " << failure << "\n"
    << "TEST_CASE(\"fuzz repro\", \"[simplify][fuzz]\") {\n"
    << "  ExprContext ctx;\n"
    << "  auto m = ParseIndexingMap(\n      \"" << PrintIndexingMap(map)
    << "\",\n      &ctx);\n"
    << "  REQUIRE(m.ok());\n"
    << "  CHECK(fuzz::CheckMap(*m) == \"\");\n"
    << "}\n";
  return s.str();
}

FuzzStats RunFuzz(uint64_t seed, int64_t count) {
  FuzzStats stats;
  for (int64_t i = 0; i < count; ++i) {
    std::mt19937_64 rng(seed * 1000003 + i);
    ExprContext ctx;
    IndexingMap m = RandomMap(rng, &ctx);
    ++stats.maps;
    if (m.IsKnownEmpty()) ++stats.known_empty;
    std::string failure = CheckMap(m);
    if (failure.empty()) continue;
    ++stats.failures;
    if (stats.first_failure.empty()) {
      IndexingMap small = Shrink(m);
      stats.first_failure = "map #" + std::to_string(i) + " of seed " +
                            std::to_string(seed) + "\n" +
                            ReproTest(small, CheckMap(small));
    }
  }
  return stats;
}

}  // namespace ixa::fuzz
