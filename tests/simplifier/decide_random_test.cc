// Exact decisions against brute-force enumeration (core/enumerate.h) on
// thousands of random small systems, fixed seeds.
#include <catch2/catch.hpp>
#include <optional>
#include <random>
#include <string>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/decide.h"

namespace ixa {
namespace IXA_UNITY_ID {

class Gen {
 public:
  Gen(ExprContext* ctx, uint64_t seed, int64_t scale = 1)
      : ctx_(ctx), rng_(seed), scale_(scale) {}

  int64_t Int(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  int64_t Divisor() {
    static const int64_t kDivisors[] = {2, 2, 3, 4, 5, 6, 8, -2, -3, 7};
    if (scale_ > 1 && Int(0, 1)) return Int(2, 4 * scale_);
    return kDivisors[Int(0, 9)];
  }
  int64_t Coefficient(int64_t lo, int64_t hi) {
    return Int(0, 2) == 0 ? Int(lo, hi) * scale_ + Int(-3, 3) : Int(lo, hi);
  }

  Expr Var(int nd, int ns) {
    int64_t i = Int(0, nd + ns - 1);
    return i < nd ? ctx_->Dim(i) : ctx_->Symbol(i - nd);
  }

  // Affine expressions with floordiv / ceildiv / mod by constants.
  Expr Random(int nd, int ns, int depth) {
    int64_t k = Int(0, depth <= 0 ? 1 : 9);
    switch (k) {
      case 0:
        return Var(nd, ns);
      case 1:
        return Var(nd, ns) * Coefficient(-3, 3) + Int(-5, 5);
      case 2:
      case 3:
        return Random(nd, ns, depth - 1) + Random(nd, ns, depth - 1);
      case 4:
        return Random(nd, ns, depth - 1) * Coefficient(-3, 4);
      case 5:
      case 6:
        return Random(nd, ns, depth - 1).FloorDiv(Divisor());
      case 7:
        return Random(nd, ns, depth - 1).CeilDiv(Divisor());
      default:
        return Random(nd, ns, depth - 1) % Divisor();
    }
  }

  IndexingMap Map(int nd, int ns, int num_results, int max_constraints) {
    std::vector<Variable> dims(nd), syms(ns);
    for (auto& v : dims) {
      int64_t lo = Int(-4, 4);
      v.bounds = {lo, lo + Int(0, 9)};
    }
    for (auto& v : syms) {
      int64_t lo = Int(-2, 2);
      v.bounds = {lo, lo + Int(0, 4)};
    }
    std::vector<Expr> results;
    for (int i = 0; i < num_results; ++i) results.push_back(Random(nd, ns, 3));
    std::vector<Constraint> cons;
    int nc = static_cast<int>(Int(0, max_constraints));
    for (int i = 0; i < nc; ++i) {
      int64_t lo = Int(-6, 6) * scale_;
      int64_t hi = Int(0, 2) == 0 ? lo : lo + Int(0, 6) * scale_;
      cons.push_back({Random(nd, ns, 3), Interval{lo, hi}});
    }
    return IndexingMap(ctx_, dims, syms, {}, results, cons);
  }

 private:
  ExprContext* ctx_;
  std::mt19937_64 rng_;
  int64_t scale_;
};

bool Distinguishes(const IndexingMap& a, const IndexingMap& b, const Point& p) {
  auto in_a = a.InDomain(p.dims, p.symbols);
  auto in_b = b.InDomain(p.dims, p.symbols);
  REQUIRE(in_a.ok());
  REQUIRE(in_b.ok());
  if (*in_a != *in_b) return true;
  if (!*in_a) return false;
  return *a.Evaluate(p.dims, p.symbols) != *b.Evaluate(p.dims, p.symbols);
}

void CheckEmptiness(uint64_t seed, int64_t scale, int iterations) {
  ExprContext ctx;
  Gen gen(&ctx, seed, scale);
  int empty = 0, nonempty = 0;
  for (int iter = 0; iter < iterations; ++iter) {
    int nd = static_cast<int>(gen.Int(1, 3));
    int ns = static_cast<int>(gen.Int(0, 1));
    IndexingMap m = gen.Map(nd, ns, 0, 3);
    auto expected = IsEmptyByEnumeration(m);
    REQUIRE(expected.ok());
    auto got = IsEmpty(m);
    INFO(PrintIndexingMap(m));
    if (!got.ok()) INFO(got.error().ToString());
    REQUIRE(got.ok());
    REQUIRE(*got == *expected);
    (*got ? empty : nonempty)++;
    auto p = FindPoint(m);
    REQUIRE(p.ok());
    REQUIRE(p->has_value() == !*expected);
    if (*p) CHECK(*m.InDomain((*p)->dims, (*p)->symbols));
  }
  CHECK(empty > iterations / 10);
  CHECK(nonempty > iterations / 10);
}

TEST_CASE("decide: random emptiness against enumeration", "[decide]") {
  CheckEmptiness(20240601, 1, 3000);
}

// Large coefficients and divisors: mod-hat chains, splinters, enumeration
// branches.
TEST_CASE("decide: random emptiness, large coefficients", "[decide]") {
  CheckEmptiness(99, 37, 1500);
}

// Hidden soak test: `test_simplifier "[decide_soak]"`.
TEST_CASE("decide: random emptiness soak", "[.][decide_soak]") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    for (int64_t scale : {1, 13, 37, 1000}) CheckEmptiness(seed, scale, 2000);
  }
}

TEST_CASE("decide: random equivalence against enumeration", "[decide]") {
  ExprContext ctx;
  Gen gen(&ctx, 77);
  int equal = 0, different = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    int nd = static_cast<int>(gen.Int(1, 3));
    int ns = static_cast<int>(gen.Int(0, 1));
    IndexingMap a = gen.Map(nd, ns, static_cast<int>(gen.Int(0, 2)), 2);
    IndexingMap b = a;
    switch (gen.Int(0, 4)) {
      case 0: {  // x -> (x floordiv c) * c + x mod c: equivalent
        for (Expr& r : b.mutable_results()) {
          int64_t c = gen.Divisor();
          r = r.FloorDiv(c) * c + r % c;
        }
        break;
      }
      case 1:  // a different result
        if (b.num_results() > 0) {
          b.mutable_results()[0] = gen.Random(nd, ns, 2);
        }
        break;
      case 2: {  // an extra constraint, often redundant
        Expr e = gen.Random(nd, ns, 2);
        int64_t lo = gen.Int(-8, 2);
        b.AddConstraint(e, Interval{lo, lo + gen.Int(0, 12)});
        break;
      }
      case 3: {  // a different box
        Variable& v = b.mutable_dims()[0];
        v.bounds.upper += gen.Int(-1, 1);
        break;
      }
      default:  // a fresh map
        b = gen.Map(nd, ns, a.num_results(), 2);
        break;
    }
    if (b.num_results() != a.num_results()) continue;
    auto expected = EquivalentByEnumeration(a, b);
    REQUIRE(expected.ok());
    auto got = Equivalent(a, b);
    INFO(PrintIndexingMap(a));
    INFO(PrintIndexingMap(b));
    if (!got.ok()) INFO(got.error().ToString());
    REQUIRE(got.ok());
    REQUIRE(got->equivalent == expected->equivalent);
    if (!got->equivalent) {
      REQUIRE(got->counterexample.has_value());
      CHECK(Distinguishes(a, b, *got->counterexample));
      ++different;
    } else {
      ++equal;
    }
  }
  CHECK(equal > 200);
  CHECK(different > 200);
}

TEST_CASE("decide: random bounds against enumeration", "[decide]") {
  ExprContext ctx;
  Gen gen(&ctx, 4242);
  for (int iter = 0; iter < 2000; ++iter) {
    int nd = static_cast<int>(gen.Int(1, 3));
    int ns = static_cast<int>(gen.Int(0, 1));
    IndexingMap m = gen.Map(nd, ns, 0, 2);
    Expr e = gen.Random(nd, ns, 3);
    Interval expected = Interval::Empty();
    auto done = ForEachDomainPoint(m, 1 << 20, [&](const Point& p) {
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

}  // namespace IXA_UNITY_ID
}  // namespace ixa
