// min / max in the simplifier and the exact decisions (XLA HEAD): XLA's
// examples, facts, and decisions against brute force on random
// small maps.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/decide.h"
#include "simplifier/facts.h"
#include "simplifier/simplify.h"
#include "tests/simplifier/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::Canonical;
using testing::ParseOrDie;

void CheckSimplifies(const std::string& input, const std::string& expected) {
  INFO("input: " << input);
  ExprContext ctx;
  IndexingMap before = ParseOrDie(input, &ctx);
  IndexingMap after = before;
  Simplify(&after);
  std::string got = PrintIndexingMap(after);
  CHECK(got == Canonical(expected));
  auto eq = EquivalentByEnumeration(before, after);
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);
  IndexingMap again = after;
  CHECK_FALSE(Simplify(&again).changed);
}

TEST_CASE("min/max: the basic examples", "[simplify][minmax]") {
  CheckSimplifies("(d0) -> (min(d0, d0 + 1)), domain: d0 in [0, 9]",
                  "(d0) -> (d0), domain: d0 in [0, 9]");
  CheckSimplifies("(d0) -> (min(10, d0)), domain: d0 in [0, 5]",
                  "(d0) -> (d0), domain: d0 in [0, 5]");
  CheckSimplifies("(d0) -> (max(10, d0)), domain: d0 in [0, 5]",
                  "(d0) -> (10), domain: d0 in [0, 5]");
  CheckSimplifies(
      "(d0, d1) -> (min(128, d0 * 32 + d1 floordiv 64 + 1)), domain: "
      "d0 in [0, 3], d1 in [0, 2047]",
      "(d0, d1) -> (d0 * 32 + d1 floordiv 64 + 1), domain: d0 in [0, 3], "
      "d1 in [0, 2047]");
  // The same map in XLA's symbolic syntax.
  CheckSimplifies(
      "(d0, d1) -> (min(128, d0 * 32 + d1 / 64 + 1)), domain: d0 in [0, 3], "
      "d1 in [0, 2047]",
      "(d0, d1) -> (d0 * 32 + d1 floordiv 64 + 1), domain: d0 in [0, 3], "
      "d1 in [0, 2047]");
  // Nothing to do but order.
  CheckSimplifies(
      "(d0, d1)[s0] -> (min(d0, 5), max(d1, s0)), domain: d0 in [0, 9], "
      "d1 in [0, 9], s0 in [0, 9]",
      "(d0, d1)[s0] -> (min(d0, 5), max(d1, s0)), domain: d0 in [0, 9], "
      "d1 in [0, 9], s0 in [0, 9]");
}

TEST_CASE("min/max: each rule in action", "[simplify][minmax]") {
  // Constants folded, nest flattened and sorted (constants last).
  const std::string box = ", domain: d0 in [-5, 9], d1 in [-3, 12]";
  CheckSimplifies("(d0, d1) -> (min(min(7, d1), min(d0, 3)))" + box,
                  "(d0, d1) -> (min(min(d0, d1), 3))" + box);
  CheckSimplifies("(d0, d1) -> (max(d1, max(d0, d1)))" + box,
                  "(d0, d1) -> (max(d0, d1))" + box);
  CheckSimplifies("(d0, d1) -> (min(d0, d0), max(d0 * 2, d0 * 2))" + box,
                  "(d0, d1) -> (d0, d0 * 2)" + box);
  // Common part moved out.
  CheckSimplifies("(d0, d1) -> (min(d0 + 4, d1 + 4))" + box,
                  "(d0, d1) -> (min(d0, d1) + 4)" + box);
  CheckSimplifies(
      "(d0, d1, d2) -> (max(d0 * 2 + d1, d0 * 2 + 3)), domain: d0 in [0, 4], "
      "d1 in [0, 9], d2 in [0, 1]",
      "(d0, d1, d2) -> (d0 * 2 + max(d1, 3)), domain: d0 in [0, 4], "
      "d1 in [0, 9], d2 in [0, 1]");
  // Ordered by the ranges, through constraints too (results only).
  CheckSimplifies(
      "(d0, d1) -> (max(d0, d1)), domain: d0 in [0, 9], d1 in [0, 9], "
      "d0 - d1 in [1, 9]",
      "(d0, d1) -> (d0), domain: d0 in [1, 9], d1 in [0, 8], "
      "d0 - d1 in [1, 9]");
  // Not ordered: stays.
  CheckSimplifies(
      "(d0, d1) -> (min(d0, d1)), domain: d0 in [0, 9], d1 in [5, 7]",
      "(d0, d1) -> (min(d0, d1)), domain: d0 in [0, 9], "
      "d1 in [5, 7]");
  // A point range folds (range.point); min inside floordiv and mod.
  CheckSimplifies(
      "(d0) -> (min(d0, 3) floordiv 4, max(d0, 4) mod 4), domain: "
      "d0 in [0, 3]",
      "(d0) -> (0, 0), domain: d0 in [0, 3]");
  // A constraint on a min: kept (min is opaque to the constraint rules),
  // or dropped when it always holds.
  CheckSimplifies("(d0) -> (d0), domain: d0 in [0, 9], min(d0, 5) in [0, 9]",
                  "(d0) -> (d0), domain: d0 in [0, 9]");
}

// Fuzz finding: the nest is read whole, so its inner node is not
// simplified on its own by a second pass (where the common part of
// d0 + 1 and d0 + d1 would move out).
TEST_CASE("min/max: simplification is idempotent on nests",
          "[simplify][minmax]") {
  CheckSimplifies(
      "(d0, d1, d2) -> (max(max(16, d1 + d0), d0 - d2 * 3 + d2 * 3 + 1)), "
      "domain: d0 in [14, 16], d1 in [0, 2], d2 in [-6, -6]",
      "(d0, d1, d2) -> (max(max(d0 + 1, d0 + d1), 16)), domain: "
      "d0 in [14, 16], d1 in [0, 2], d2 in [-6, -6]");
  CheckSimplifies(
      "(d0, d1) -> (min(d0, min(d1, d0 + 2) floordiv 1)), domain: "
      "d0 in [0, 5], d1 in [0, 5]",
      "(d0, d1) -> (min(d0, d1)), domain: d0 in [0, 5], d1 in [0, 5]");
}

TEST_CASE("min/max: trace names the rules", "[simplify][minmax]") {
  ExprContext ctx;
  IndexingMap m = ParseOrDie(
      "(d0, d1) -> (min(d1 + 1, min(d0 + 1, 5 + 3))), domain: d0 in [0, 9], "
      "d1 in [0, 20]",
      &ctx);
  SimplifyOptions options;
  options.trace = true;
  SimplifyResult r = Simplify(&m, options);
  std::string rules;
  for (const TraceStep& s : r.trace) rules += s.rule + " ";
  INFO(rules);
  CHECK(rules.find("minmax.common_part") != std::string::npos);
  CHECK(rules.find("minmax.sort") != std::string::npos);
  CHECK(PrintIndexingMap(m) ==
        "(d0, d1) -> (min(min(d0, d1), 7) + 1), domain: d0 in [0, 9], "
        "d1 in [0, 20]");
}

TEST_CASE("min/max: facts", "[simplify][minmax]") {
  using simp::Alignment;
  using simp::AlignUnion;
  // Both even: even. 4k+1 or 6k+3: odd. Exact 3 or exact 7: 4k+3.
  CHECK(AlignUnion({2, 0}, {2, 0}) == Alignment{2, 0});
  CHECK(AlignUnion({4, 1}, {6, 3}) == Alignment{2, 1});
  CHECK(AlignUnion(Alignment::Exact(3), Alignment::Exact(7)) ==
        Alignment{4, 3});
  CHECK(AlignUnion(Alignment::Exact(5), Alignment::Exact(5)) ==
        Alignment::Exact(5));
  CHECK(AlignUnion(Alignment::Exact(kInt64Min), Alignment::Exact(kInt64Max))
            .modulus == 1);
  // Random check: every value of either side satisfies the union.
  std::mt19937_64 rng(14);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 2000; ++i) {
    Alignment a{pick(0, 12), 0}, b{pick(0, 12), 0};
    a.remainder = a.modulus == 0 ? pick(-20, 20) : pick(0, a.modulus - 1);
    b.remainder = b.modulus == 0 ? pick(-20, 20) : pick(0, b.modulus - 1);
    Alignment u = AlignUnion(a, b);
    for (const Alignment& side : {a, b}) {
      for (int64_t k = -3; k <= 3; ++k) {
        int64_t v = side.modulus * k + side.remainder;
        if (u.modulus == 0) {
          CHECK(v == u.remainder);
        } else {
          CHECK(((v - u.remainder) % u.modulus + u.modulus) % u.modulus == 0);
        }
      }
    }
  }
  // The range of a min/max from the operands' ranges (through simplify:
  // the min below is [0, 5], so `mod 8` disappears).
  CheckSimplifies(
      "(d0, d1) -> (min(d0, d1) mod 8), domain: d0 in [0, 5], "
      "d1 in [2, 40]",
      "(d0, d1) -> (min(d0, d1)), domain: d0 in [0, 5], "
      "d1 in [2, 40]");
  // Alignment: both operands even, so (x + 1) mod 2 = 1.
  CheckSimplifies(
      "(d0, d1) -> ((max(d0 * 2, d1 * 4) + 1) mod 2), domain: "
      "d0 in [0, 50], d1 in [0, 50]",
      "(d0, d1) -> (1), domain: d0 in [0, 50], d1 in [0, 50]");
}

// Random maps with min/max for the decision tests.
class MinMaxGen {
 public:
  MinMaxGen(ExprContext* ctx, uint64_t seed) : ctx_(ctx), rng_(seed) {}
  int64_t Int(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  Expr Var(int nd, int ns) {
    int64_t i = Int(0, nd + ns - 1);
    return i < nd ? ctx_->Dim(i) : ctx_->Symbol(i - nd);
  }
  Expr Random(int nd, int ns, int depth) {
    switch (Int(0, depth <= 0 ? 1 : 9)) {
      case 0:
        return Var(nd, ns);
      case 1:
        return Var(nd, ns) * Int(-3, 3) + Int(-5, 5);
      case 2:
        return Random(nd, ns, depth - 1) + Random(nd, ns, depth - 1);
      case 3:
        return Random(nd, ns, depth - 1) * Int(-2, 3);
      case 4:
        return Random(nd, ns, depth - 1).FloorDiv(Int(2, 4));
      case 5:
        return Random(nd, ns, depth - 1) % Int(2, 5);
      case 6:
      case 7:
        return ctx_->Min(Random(nd, ns, depth - 1), Random(nd, ns, depth - 1));
      default:
        return ctx_->Max(Random(nd, ns, depth - 1), Random(nd, ns, depth - 1));
    }
  }
  // nd small dims, ns small symbols, plus (when `pad`) one trailing unused
  // dim with 2^24 values, so that the decisions cannot fall back to
  // enumeration and must be exact.
  IndexingMap Map(int nd, int ns, int num_results, int max_constraints,
                  bool pad) {
    std::vector<Variable> dims(nd + (pad ? 1 : 0)), syms(ns);
    for (int i = 0; i < nd; ++i) {
      int64_t lo = Int(-4, 4);
      dims[i].bounds = {lo, lo + Int(0, 7)};
    }
    if (pad) dims[nd].bounds = {0, (1 << 24) - 1};
    for (auto& v : syms) {
      int64_t lo = Int(-2, 2);
      v.bounds = {lo, lo + Int(0, 4)};
    }
    std::vector<Expr> results;
    for (int i = 0; i < num_results; ++i) results.push_back(Random(nd, ns, 3));
    std::vector<Constraint> cons;
    int nc = static_cast<int>(Int(0, max_constraints));
    for (int i = 0; i < nc; ++i) {
      int64_t lo = Int(-6, 6);
      cons.push_back({Random(nd, ns, 3), Interval{lo, lo + Int(0, 6)}});
    }
    return IndexingMap(ctx_, dims, syms, {}, results, cons);
  }
  // The same map without the padding dim (for the brute-force oracle).
  static IndexingMap Unpadded(const IndexingMap& m) {
    std::vector<Variable> dims = m.dims();
    dims.pop_back();
    return IndexingMap(m.context(), dims, m.range_vars(), {}, m.results(),
                       m.constraints());
  }

 private:
  ExprContext* ctx_;
  std::mt19937_64 rng_;
};

TEST_CASE("min/max: exact emptiness against brute force", "[decide][minmax]") {
  ExprContext ctx;
  MinMaxGen gen(&ctx, 1414);
  int empty = 0, nonempty = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    int nd = static_cast<int>(gen.Int(1, 2));
    int ns = static_cast<int>(gen.Int(0, 1));
    IndexingMap m = gen.Map(nd, ns, 0, 3, /*pad=*/true);
    if (m.IsKnownEmpty()) continue;
    auto expected = IsEmptyByEnumeration(MinMaxGen::Unpadded(m));
    REQUIRE(expected.ok());
    auto p = FindPoint(m);
    INFO(PrintIndexingMap(m));
    if (!p.ok()) INFO(p.error().ToString());
    REQUIRE(p.ok());
    REQUIRE(p->has_value() == !*expected);
    if (*p) CHECK(*m.InDomain((*p)->dims, (*p)->symbols));
    (*expected ? empty : nonempty)++;
  }
  CHECK(empty > 100);
  CHECK(nonempty > 100);
}

TEST_CASE("min/max: exact equivalence against brute force",
          "[decide][minmax]") {
  ExprContext ctx;
  MinMaxGen gen(&ctx, 2828);
  int equal = 0, different = 0;
  for (int iter = 0; iter < 1200; ++iter) {
    int nd = static_cast<int>(gen.Int(1, 2));
    int ns = static_cast<int>(gen.Int(0, 1));
    IndexingMap a = gen.Map(nd, ns, 1, 1, /*pad=*/true);
    IndexingMap b = a;
    Expr& r = b.mutable_results()[0];
    switch (gen.Int(0, 3)) {
      case 0:  // min(x, y) = -max(-x, -y), commuted: equivalent
        if (r.kind() == ExprKind::kMin) {
          r = -ctx.Max(-r.rhs(), -r.lhs());
        } else {
          r = ctx.Min(r, r + 1);  // = r
        }
        break;
      case 1:  // simplified: equivalent
        Simplify(&b);
        break;
      case 2:  // off by one somewhere
        r = ctx.Max(r, gen.Random(nd, ns, 1));
        break;
      default:
        r = gen.Random(nd, ns, 3);
        break;
    }
    if (b.IsKnownEmpty() || a.IsKnownEmpty()) continue;
    auto expected =
        EquivalentByEnumeration(MinMaxGen::Unpadded(a), MinMaxGen::Unpadded(b));
    REQUIRE(expected.ok());
    auto got = Equivalent(a, b);
    INFO(PrintIndexingMap(a));
    INFO(PrintIndexingMap(b));
    if (!got.ok()) INFO(got.error().ToString());
    REQUIRE(got.ok());
    REQUIRE(got->equivalent == expected->equivalent);
    (got->equivalent ? equal : different)++;
  }
  CHECK(equal > 200);
  CHECK(different > 200);
}

TEST_CASE("min/max: exact bounds against brute force", "[decide][minmax]") {
  ExprContext ctx;
  MinMaxGen gen(&ctx, 5656);
  for (int iter = 0; iter < 800; ++iter) {
    int nd = static_cast<int>(gen.Int(1, 2));
    int ns = static_cast<int>(gen.Int(0, 1));
    IndexingMap m = gen.Map(nd, ns, 0, 2, /*pad=*/true);
    if (m.IsKnownEmpty()) continue;
    Expr e = gen.Random(nd, ns, 3);
    Interval expected = Interval::Empty();
    IndexingMap small = MinMaxGen::Unpadded(m);
    auto done = ForEachDomainPoint(small, 1 << 20, [&](const Point& p) {
      expected =
          expected.Union(Interval::Point(*Evaluate(e, p.dims, p.symbols)));
      return true;
    });
    REQUIRE(done.ok());
    auto got = BoundsOf(m, e);
    INFO(PrintIndexingMap(m));
    INFO(PrintExpr(e));
    if (!got.ok()) INFO(got.error().ToString());
    REQUIRE(got.ok());
    CHECK(got->exact);
    REQUIRE(got->interval == expected);
  }
}

TEST_CASE("min/max: decisions on huge domains", "[decide][minmax]") {
  ExprContext ctx;
  auto map = [&](const char* text) { return ParseOrDie(text, &ctx); };
  // min(d0, d1) >= 10^9 + 1 needs both large: feasible; with d1 capped, not.
  CHECK_FALSE(*IsEmpty(
      map("(d0, d1) -> (), domain: d0 in [0, 2000000000], "
          "d1 in [0, 2000000000], min(d0, d1) in [1000000001, 2000000000]")));
  CHECK(*IsEmpty(
      map("(d0, d1) -> (), domain: d0 in [0, 2000000000], "
          "d1 in [0, 1000000000], min(d0, d1) in [1000000001, 2000000000]")));
  // max(d0, d1) - min(d0, d1) = |d0 - d1|.
  auto eq = Equivalent(map("(d0, d1) -> (max(d0, d1) - min(d0, d1)), domain: "
                           "d0 in [0, 1000000000], d1 in [0, 1000000000]"),
                       map("(d0, d1) -> (max(d0 - d1, d1 - d0)), domain: "
                           "d0 in [0, 1000000000], d1 in [0, 1000000000]"));
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);
  auto ne = Equivalent(
      map("(d0, d1) -> (min(d0, d1 * 2)), domain: d0 in [0, 1000000000], "
          "d1 in [0, 1000000000]"),
      map("(d0, d1) -> (min(d0, d1 * 2 + 1)), domain: d0 in [0, 1000000000], "
          "d1 in [0, 1000000000]"));
  REQUIRE(ne.ok());
  CHECK_FALSE(ne->equivalent);
  REQUIRE(ne->counterexample);
  // Exact bounds of a clamp.
  IndexingMap m =
      map("(d0) -> (), domain: d0 in [-1000000000000, 1000000000000]");
  Expr clamp = ctx.Max(ctx.Min(ctx.Dim(0) * 3 + 7, ctx.Constant(4095)),
                       ctx.Constant(-17));
  auto b = BoundsOf(m, clamp);
  REQUIRE(b.ok());
  CHECK(b->exact);
  CHECK(b->interval == Interval{-17, 4095});
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
