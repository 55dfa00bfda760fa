// Map-level rewrites (docs/xla-reference.md §(c) M1-M3): RemoveUnusedSymbols,
// RemoveUnusedVars, RescaleSymbols, ConvertSymbolsToDims. Worked examples
// plus brute-force checks that the image and the domain projection are kept.
#include <catch2/catch.hpp>
#include <set>

#include "core/enumerate.h"
#include "core/text.h"
#include "tests/core/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::MustParse;

// {(dims..., results...)} over the domain (dims included when with_dims).
std::set<std::vector<int64_t>> Image(const IndexingMap& m, bool with_dims) {
  std::set<std::vector<int64_t>> out;
  if (m.IsKnownEmpty()) return out;
  testing::ForEachBoxPoint(
      testing::BoxOf(m), m.num_dims(),
      [&](const std::vector<int64_t>& d, const std::vector<int64_t>& s) {
        if (!m.InDomain(d, s).value()) return;
        std::vector<int64_t> key = with_dims ? d : std::vector<int64_t>{};
        std::vector<int64_t> r = m.Evaluate(d, s).value();
        key.insert(key.end(), r.begin(), r.end());
        out.insert(key);
      });
  return out;
}

void CheckPrints(const char* in, const char* want,
                 bool (*rewrite)(IndexingMap&), bool want_changed) {
  INFO(in);
  ExprContext ctx;
  IndexingMap m = MustParse(in, &ctx);
  CHECK(rewrite(m) == want_changed);
  CHECK(PrintIndexingMap(m) == want);
}

bool RemoveSyms(IndexingMap& m) { return m.RemoveUnusedSymbols(); }
bool RemoveVars(IndexingMap& m) { return m.RemoveUnusedVars(); }
bool Rescale(IndexingMap& m) { return m.RescaleSymbols(); }

TEST_CASE("M1 RemoveUnusedSymbols examples", "[rewrite]") {
  // A constraint using only removed symbols is deleted.
  CheckPrints(
      "(d0)[s0, s1] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3], "
      "s1 in [0, 5], s1 mod 2 in [0, 0]",
      "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]", RemoveSyms,
      true);
  // A constraint that also uses a kept variable keeps all its variables.
  CheckPrints(
      "(d0)[s0, s1] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3], "
      "s1 in [0, 5], s0 + s1 in [1, 5]",
      "(d0)[s0, s1] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3], "
      "s1 in [0, 5], s0 + s1 in [1, 5]",
      RemoveSyms, false);
  // Never drops a constraint that mentions a dim.
  CheckPrints(
      "(d0, d1)[s0] -> (d0), domain: d0 in [0, 9], d1 in [0, 9], s0 in [0, 3], "
      "d1 + s0 in [0, 5]",
      "(d0, d1)[s0] -> (d0), domain: d0 in [0, 9], d1 in [0, 9], s0 in [0, 3], "
      "d1 + s0 in [0, 5]",
      RemoveSyms, false);
  // Remaining symbols are renumbered; custom names survive.
  CheckPrints(
      "(d0)[s0, s1, s2] -> (d0 + s2), domain: d0 in [0, 9], s0 in [0, 1], "
      "s1 in [0, 2], s2 in [4, 7]",
      "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [4, 7]", RemoveSyms,
      true);
  CheckPrints(
      "(d0)[a, b] -> (d0 + b), domain: d0 in [0, 9], a in [0, 1], "
      "b in [0, 2]",
      "(d0)[b] -> (d0 + b), domain: d0 in [0, 9], b in [0, 2]", RemoveSyms,
      true);
  // Runtime variables are symbols too.
  CheckPrints(
      "(d0)[s0]{rt0, rt1} -> (d0 + rt1), domain: d0 in [0, 9], s0 in [0, 1], "
      "rt0 in [0, 2], rt1 in [0, 3]",
      "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 3]",
      RemoveSyms, true);
  // Nothing to remove.
  CheckPrints("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]",
              "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]",
              RemoveSyms, false);
}

TEST_CASE("M1 removing an infeasible group empties the map", "[rewrite]") {
  ExprContext ctx;
  // s0 in [0, 3] never has s0 mod 5 = 4: the domain is empty, and dropping
  // the constraint with s0 must not make it non-empty.
  IndexingMap m = MustParse(
      "(d0)[s0] -> (d0), domain: d0 in [0, 9], s0 in [0, 3], "
      "s0 mod 5 in [4, 4]",
      &ctx);
  m.RemoveUnusedSymbols();
  CHECK(IsEmptyByEnumeration(m).value());
}

TEST_CASE("M1 RemoveUnusedVars examples", "[rewrite]") {
  CheckPrints(
      "(d0, d1)[s0] -> (d1 + s0), domain: d0 in [0, 9], d1 in [2, 5], "
      "s0 in [0, 3]",
      "(d0)[s0] -> (d0 + s0), domain: d0 in [2, 5], s0 in [0, 3]", RemoveVars,
      true);
  CheckPrints(
      "(d0, d1, d2)[s0] -> (d2), domain: d0 in [0, 9], d1 in [0, 5], "
      "d2 in [0, 3], s0 in [0, 3], d0 + s0 in [0, 4]",
      "(d0) -> (d0), domain: d0 in [0, 3]", RemoveVars, true);
  CheckPrints(
      "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 5], "
      "d0 + d1 in [0, 4]",
      "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 5], "
      "d0 + d1 in [0, 4]",
      RemoveVars, false);
}

TEST_CASE("M2 RescaleSymbols examples", "[rewrite]") {
  struct Case {
    const char* in;
    const char* want;  // compared by enumeration (same variables)
  };
  const Case cases[] = {
      {"(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 20], "
       "s0 mod 4 in [1, 1]",
       "(d0)[s0] -> (d0 + s0 * 4 + 1), domain: d0 in [0, 9], s0 in [0, 4]"},
      // Negative bounds round inward (XLA truncates, which is wrong here).
      {"()[s0] -> (s0), domain: s0 in [-20, -2], s0 mod 4 in [1, 1]",
       "()[s0] -> (s0 * 4 + 1), domain: s0 in [-5, -1]"},
      {"()[s0] -> (s0), domain: s0 in [-6, 20], s0 mod 4 in [1, 1]",
       "()[s0] -> (s0 * 4 + 1), domain: s0 in [-1, 4]"},
      // Other constraints are rewritten too.
      {"(d0)[s0] -> (d0 * 100 + s0), domain: d0 in [0, 3], s0 in [0, 20], "
       "s0 mod 3 in [2, 2], d0 + s0 in [0, 10]",
       "(d0)[s0] -> (d0 * 100 + s0 * 3 + 2), domain: d0 in [0, 3], "
       "s0 in [0, 6], d0 + s0 * 3 + 2 in [0, 10]"},
  };
  for (const Case& c : cases) {
    INFO(c.in);
    ExprContext ctx;
    IndexingMap m = MustParse(c.in, &ctx);
    CHECK(m.RescaleSymbols());
    INFO("rescaled: " << PrintIndexingMap(m));
    CHECK(m.constraints().size() + 1 ==
          MustParse(c.in, &ctx).constraints().size());
    IndexingMap want = MustParse(c.want, &ctx);
    auto eq = EquivalentByEnumeration(m, want);
    REQUIRE(eq.ok());
    CHECK(eq->equivalent);
  }
  // A remainder outside [0, c - 1] makes the map empty.
  ExprContext ctx;
  IndexingMap bad = MustParse(
      "()[s0] -> (s0), domain: s0 in [0, 20], s0 mod 4 in [5, 5]", &ctx);
  bad.RescaleSymbols();
  CHECK(IsEmptyByEnumeration(bad).value());
  // No mod constraint: unchanged.
  CheckPrints("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]",
              "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]",
              Rescale, false);
}

TEST_CASE("M3 ConvertSymbolsToDims examples", "[rewrite]") {
  ExprContext ctx;
  IndexingMap m = MustParse(
      "(d0)[s0]{rt0} -> (d0 + s0 + rt0), domain: d0 in [0, 1], s0 in [0, 2], "
      "rt0 in [0, 3], d0 + s0 in [0, 2]",
      &ctx);
  IndexingMap c = m.ConvertSymbolsToDims();
  CHECK(PrintIndexingMap(c) ==
        "(d0, s0, rt0) -> (d0 + s0 + rt0), domain: d0 in [0, 1], s0 in [0, 2], "
        "rt0 in [0, 3], d0 + s0 in [0, 2]");
  CHECK(c.num_symbols() == 0);
  IndexingMap named = MustParse(
      "(th_x)[vector_index] -> (th_x * 4 + vector_index), domain: "
      "th_x in [0, 127], vector_index in [0, 3]",
      &ctx);
  CHECK(PrintIndexingMap(named.ConvertSymbolsToDims()) ==
        "(th_x, vector_index) -> (th_x * 4 + vector_index), domain: "
        "th_x in [0, 127], vector_index in [0, 3]");
  IndexingMap empty = MustParse("(d0)[s0] -> (d0), domain: s0 in [2, 1]", &ctx);
  CHECK(empty.ConvertSymbolsToDims().IsKnownEmpty());
}

TEST_CASE("map rewrites preserve the image on random maps",
          "[rewrite][random]") {
  testing::RandomMaps gen(99);
  int removed = 0, rescaled = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    ExprContext ctx;
    int nd = static_cast<int>(gen.Uniform(1, 2));
    int nr = static_cast<int>(gen.Uniform(0, 2));
    int nt = static_cast<int>(gen.Uniform(0, 1));
    IndexingMap m = gen.RandomMap(&ctx, nd, nr, nt, gen.Uniform(0, 2), 2);
    // Results that use only some variables, so that something is unused.
    if (gen.Coin(60) && m.num_results() > 0 && !m.IsKnownEmpty()) {
      m.mutable_results()[0] = ctx.Dim(nd - 1);
    }
    // A mod constraint on a symbol, for RescaleSymbols.
    if (nr + nt > 0 && gen.Coin(50) && !m.IsKnownEmpty()) {
      int64_t c = gen.Uniform(2, 3);
      m.AddConstraint(
          ctx.Mod(ctx.Symbol(gen.Uniform(0, nr + nt - 1)), ctx.Constant(c)),
          Interval::Point(gen.Uniform(0, c - 1)));
    }
    INFO("map: " << PrintIndexingMap(m));
    const auto image = Image(m, /*with_dims=*/true);
    const auto results_only = Image(m, /*with_dims=*/false);

    IndexingMap a = m;
    removed += a.RemoveUnusedSymbols();
    INFO("RemoveUnusedSymbols: " << PrintIndexingMap(a));
    CHECK(a.num_dims() == m.num_dims());
    CHECK(Image(a, true) == image);

    IndexingMap b = m;
    b.RemoveUnusedVars();
    INFO("RemoveUnusedVars: " << PrintIndexingMap(b));
    CHECK(Image(b, false) == results_only);

    IndexingMap c = m;
    rescaled += c.RescaleSymbols();
    INFO("RescaleSymbols: " << PrintIndexingMap(c));
    CHECK(Image(c, true) == image);

    IndexingMap d = m.ConvertSymbolsToDims();
    INFO("ConvertSymbolsToDims: " << PrintIndexingMap(d));
    CHECK(d.num_dims() == m.num_dims() + m.num_symbols());
    if (!m.IsKnownEmpty()) {
      // Same domain and values, point by point.
      testing::ForEachBoxPoint(testing::BoxOf(m), m.num_dims(),
                               [&](const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& syms) {
                                 std::vector<int64_t> all = dims;
                                 all.insert(all.end(), syms.begin(),
                                            syms.end());
                                 bool in = m.InDomain(dims, syms).value();
                                 CHECK(d.InDomain(all, {}).value() == in);
                                 if (in)
                                   CHECK(d.Evaluate(all, {}).value() ==
                                         m.Evaluate(dims, syms).value());
                               });
    }
  }
  CHECK(removed > 100);
  CHECK(rescaled > 100);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
