// Interval arithmetic: saturation at both int64 ends, the tri-state
// comparisons, and brute-force checks of every operation on small intervals.
#include "core/interval.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <random>

#include "core/int_math.h"

namespace ixa {
namespace IXA_UNITY_ID {

constexpr int64_t kLowest = kInt64Min;
constexpr int64_t kHighest = kInt64Max;

TEST_CASE("interval saturation at the int64 limits", "[interval]") {
  CHECK(Interval{0, kHighest} + Interval{kLowest, 0} ==
        Interval{kLowest, kHighest});
  const int64_t k = (int64_t{1} << 32) - 1;
  CHECK(Interval{42, k} * Interval{42, k} == Interval{1764, kHighest});
  CHECK(Interval{kHighest - 1, kHighest} + Interval{1, 5} ==
        Interval{kHighest, kHighest});
  CHECK(Interval{kLowest, kLowest + 1} + Interval{-5, -1} ==
        Interval{kLowest, kLowest});
  CHECK(Interval{kLowest, 0} - Interval{1, 1} == Interval{kLowest, -1});
  CHECK(Interval{0, kHighest} - Interval{-1, 0} == Interval{0, kHighest});
  CHECK(-Interval{kLowest, 0} == Interval{0, kHighest});
  CHECK(-Interval{kLowest, kLowest} == Interval{kHighest, kHighest});
  CHECK(Interval{kLowest, kLowest} * Interval{-1, -1} ==
        Interval{kHighest, kHighest});
  CHECK(Interval{kLowest, kHighest} * Interval{-1, 1} ==
        Interval{kLowest, kHighest});
  CHECK(Interval{kLowest, -1} * Interval{2, 3} == Interval{kLowest, -2});
  CHECK(Interval{-3, kHighest} * Interval{-2, -2} == Interval{kLowest, 6});
  CHECK(Interval{0, 0} * Interval{kLowest, kHighest} == Interval{0, 0});
  // INT64_MIN floordiv -1 is 2^63: saturates instead of trapping.
  CHECK(Interval{kLowest, kLowest}.FloorDiv(Interval{-1, -1}) ==
        Interval{kHighest, kHighest});
  // Unbounded ends stay unbounded through division (XLA's saturate_div).
  CHECK(Interval{kLowest, kHighest}.FloorDiv(Interval{2, 2}) ==
        Interval::Full());
  CHECK(Interval{kLowest, kHighest}.Mod(Interval{8, 8}) == Interval{0, 7});
  CHECK(Interval{kLowest, kHighest}.Mod(Interval{-8, -8}) == Interval{-7, 0});
  CHECK(Interval{kLowest, kLowest}.Mod(Interval{-1, -1}) == Interval{0, 0});
  CHECK(Interval::Full().Size() == kHighest);
  CHECK(Interval{kLowest, -1}.Size() == kHighest);
  CHECK(Interval{kLowest + 1, -1}.Size() == kHighest);
  CHECK(Interval{kLowest + 2, -1}.Size() == kHighest - 1);
  CHECK(Interval::Empty().Size() == 0);
}

// XLA treats the int64 limits as infinities: an unbounded end stays
// unbounded (docs/xla-reference.md §(a)), while a limit that is a real value
// still gives a sound interval in the other direction.
TEST_CASE("interval limits are infinities, as in XLA", "[interval]") {
  // Adding a real value to an unbounded end once gave -9223372036854775708.
  CHECK(Interval{100, kHighest} + Interval{kLowest, kHighest} ==
        Interval::Full());
  CHECK(Interval{kLowest, -100} + Interval{5, 7} == Interval{kLowest, -93});
  CHECK(Interval{100, kHighest} + Interval{-7, -5} == Interval{93, kHighest});
  CHECK(Interval{kLowest, kHighest} + Interval{1, 1} == Interval::Full());
  CHECK(Interval{kLowest, kHighest} - Interval{1, 1} == Interval::Full());
  CHECK(Interval{100, kHighest} - Interval{kLowest, 0} ==
        Interval{100, kHighest});
  // -INT64_MAX from a product saturates to INT64_MIN (+inf * -1 = -inf).
  CHECK(Interval{0, kHighest} * Interval{-1, -1} == Interval{kLowest, 0});
  CHECK(Interval{kHighest, kHighest} * Interval{-1, -1} ==
        Interval{kLowest,
                 kLowest + 1});  // MAX as a real value: MIN + 1 kept above
  CHECK(Interval{kLowest, 0} * Interval{-1, -1} == Interval{0, kHighest});
  CHECK(Interval{kLowest, 5} * Interval{3, 3} == Interval{kLowest, 15});
  CHECK(Interval{-5, kHighest} * Interval{-3, -3} == Interval{kLowest, 15});
  CHECK(Interval{kLowest, kHighest} * Interval{0, 0} == Interval{0, 0});
  CHECK(Interval{kLowest, kHighest} * Interval{2, 3} == Interval::Full());
  CHECK(-Interval{0, kHighest} == Interval{kLowest, 0});
  CHECK(-Interval{kLowest, 0} == Interval{0, kHighest});
  // Division keeps the unbounded end; the finite end is exact.
  CHECK(Interval{kLowest, 9}.FloorDiv(Interval{2, 2}) == Interval{kLowest, 4});
  CHECK(Interval{-9, kHighest}.FloorDiv(Interval{2, 2}) ==
        Interval{-5, kHighest});
  CHECK(Interval{-9, kHighest}.FloorDiv(Interval{-2, -2}) ==
        Interval{kLowest, 4});
  CHECK(Interval{kLowest, 9}.CeilDiv(Interval{2, 2}) == Interval{kLowest, 5});
  // An unbounded end spans every period of a mod.
  CHECK(Interval{kHighest, kHighest}.Mod(Interval{8, 8}) == Interval{0, 7});
  CHECK(Interval{kLowest, kLowest}.Mod(Interval{8, 8}) == Interval{0, 7});
  CHECK(Interval{100, kHighest}.Mod(Interval{8, 8}) == Interval{0, 7});
  CHECK(Interval{kLowest, -100}.Mod(Interval{-8, -8}) == Interval{-7, 0});
  // Sound for the limits as real values: every pointwise result near the
  // limits lies in the interval.
  const int64_t edge[] = {
      kLowest, kLowest + 1, kLowest + 2,  -2,           -1,      0,
      1,       2,           kHighest - 2, kHighest - 1, kHighest};
  for (int64_t a : edge) {
    for (int64_t b : edge) {
      Interval x = Interval::Point(a), y = Interval::Point(b);
      INFO(a << " op " << b);
      if (auto s = CheckedAdd(a, b)) CHECK((x + y).Contains(*s));
      if (auto s = CheckedSub(a, b)) CHECK((x - y).Contains(*s));
      if (auto s = CheckedMul(a, b)) CHECK((x * y).Contains(*s));
      if (auto s = FloorDiv(a, b)) CHECK(x.FloorDiv(y).Contains(*s));
      if (auto s = CeilDiv(a, b)) CHECK(x.CeilDiv(y).Contains(*s));
      if (auto s = Mod(a, b)) CHECK(x.Mod(y).Contains(*s));
    }
  }
}

TEST_CASE("interval comparison table", "[interval]") {
  using O = std::optional<bool>;
  CHECK(Interval{12, 64}.Gt(Interval{11, 11}) == O(true));
  CHECK(Interval{12, 64}.Eq(Interval{12, 12}) == O(std::nullopt));
  CHECK(Interval{12, 64}.Gt(Interval{12, 12}) == O(std::nullopt));
  CHECK(Interval{12, 64}.Ge(Interval{12, 12}) == O(true));
  CHECK(Interval{12, 64}.Lt(Interval{65, 70}) == O(true));
  CHECK(Interval{12, 64}.Lt(Interval{64, 70}) == O(std::nullopt));
  CHECK(Interval{12, 64}.Le(Interval{64, 70}) == O(true));
  CHECK(Interval{12, 64}.Le(Interval{0, 11}) == O(false));
  CHECK(Interval{12, 64}.Eq(Interval{0, 11}) == O(false));
  CHECK(Interval{12, 64}.Ne(Interval{0, 11}) == O(true));
  CHECK(Interval{5, 5}.Eq(Interval{5, 5}) == O(true));
  CHECK(Interval{5, 5}.Ne(Interval{5, 5}) == O(false));
  CHECK(Interval{5, 6}.Eq(Interval{5, 6}) == O(std::nullopt));
  CHECK(Interval{kLowest, kLowest}.Lt(Interval{kHighest, kHighest}) == O(true));
}

TEST_CASE("interval set operations", "[interval]") {
  CHECK(Interval{0, 5}.Intersect(Interval{6, 9}).IsEmpty());
  CHECK(Interval{0, 5}.Intersect(Interval{3, 9}) == Interval{3, 5});
  CHECK(Interval{0, 5}.Union(Interval{8, 9}) == Interval{0, 9});
  CHECK(Interval::Empty().Union(Interval{8, 9}) == Interval{8, 9});
  CHECK(Interval{3, 2} == Interval{10, 0});  // all empties are equal
  CHECK((Interval::Empty() + Interval{1, 2}).IsEmpty());
  CHECK((Interval{1, 2} * Interval::Empty()).IsEmpty());
  CHECK(Interval{1, 2}.FloorDiv(Interval{0, 0}).IsEmpty());
  CHECK(Interval{0, 9}.Contains(Interval::Empty()));
  CHECK(Interval{0, 9}.Contains(Interval{0, 9}));
  CHECK_FALSE(Interval{0, 9}.Contains(Interval{0, 10}));
}

// Pointwise values of f over a x b; nullopt entries (division by zero) are
// skipped. Returns the hull, empty if there is no value.
template <typename F>
Interval BruteHull(Interval a, Interval b, F f, std::vector<int64_t>* all) {
  Interval hull = Interval::Empty();
  for (int64_t x = a.lower; x <= a.upper; ++x) {
    for (int64_t y = b.lower; y <= b.upper; ++y) {
      std::optional<int64_t> v = f(x, y);
      if (!v) continue;
      all->push_back(*v);
      hull = hull.Union(Interval::Point(*v));
    }
  }
  return hull;
}

std::optional<bool> BruteCompare(Interval a, Interval b,
                                 bool (*rel)(int64_t, int64_t)) {
  bool any_true = false, any_false = false;
  for (int64_t x = a.lower; x <= a.upper; ++x) {
    for (int64_t y = b.lower; y <= b.upper; ++y) {
      (rel(x, y) ? any_true : any_false) = true;
    }
  }
  if (any_true && !any_false) return true;
  if (any_false && !any_true) return false;
  return std::nullopt;
}

TEST_CASE("interval operations contain every pointwise value",
          "[interval][random]") {
  std::mt19937_64 rng(7);
  auto small = [&]() {
    int64_t lo = std::uniform_int_distribution<int64_t>(-12, 12)(rng);
    int64_t len = std::uniform_int_distribution<int64_t>(0, 9)(rng);
    return Interval{lo, lo + len};
  };
  using Op = std::optional<int64_t> (*)(int64_t, int64_t);
  struct Case {
    const char* name;
    Interval (*interval_op)(const Interval&, const Interval&);
    Op point_op;
    bool exact;             // hull must be exact for every divisor
    bool exact_for_points;  // hull must be exact for point divisors
  };
  const Case cases[] = {
      {"add", [](const Interval& a, const Interval& b) { return a + b; },
       [](int64_t x, int64_t y) { return CheckedAdd(x, y); }, true, true},
      {"sub", [](const Interval& a, const Interval& b) { return a - b; },
       [](int64_t x, int64_t y) { return CheckedSub(x, y); }, true, true},
      {"mul", [](const Interval& a, const Interval& b) { return a * b; },
       [](int64_t x, int64_t y) { return CheckedMul(x, y); }, true, true},
      {"floordiv",
       [](const Interval& a, const Interval& b) { return a.FloorDiv(b); },
       [](int64_t x, int64_t y) { return FloorDiv(x, y); }, true, true},
      {"ceildiv",
       [](const Interval& a, const Interval& b) { return a.CeilDiv(b); },
       [](int64_t x, int64_t y) { return CeilDiv(x, y); }, true, true},
      {"mod", [](const Interval& a, const Interval& b) { return a.Mod(b); },
       [](int64_t x, int64_t y) { return Mod(x, y); }, false, true},
      {"min", [](const Interval& a, const Interval& b) { return a.Min(b); },
       [](int64_t x, int64_t y) {
         return std::optional<int64_t>(std::min(x, y));
       },
       true, true},
      {"max", [](const Interval& a, const Interval& b) { return a.Max(b); },
       [](int64_t x, int64_t y) {
         return std::optional<int64_t>(std::max(x, y));
       },
       true, true},
  };
  for (int iter = 0; iter < 4000; ++iter) {
    Interval a = small();
    Interval b = iter % 3 == 0 ? Interval::Point(small().lower) : small();
    for (const Case& c : cases) {
      std::vector<int64_t> values;
      Interval hull = BruteHull(a, b, c.point_op, &values);
      Interval got = c.interval_op(a, b);
      INFO(c.name << " " << a.ToString() << " " << b.ToString() << " = "
                  << got.ToString() << ", brute-force hull "
                  << hull.ToString());
      CHECK(got.Contains(hull));
      if (c.exact || (c.exact_for_points && b.IsPoint())) CHECK(got == hull);
    }
    struct Cmp {
      const char* name;
      std::optional<bool> (Interval::*op)(const Interval&) const;
      bool (*rel)(int64_t, int64_t);
    };
    const Cmp cmps[] = {
        {"gt", &Interval::Gt, [](int64_t x, int64_t y) { return x > y; }},
        {"lt", &Interval::Lt, [](int64_t x, int64_t y) { return x < y; }},
        {"ge", &Interval::Ge, [](int64_t x, int64_t y) { return x >= y; }},
        {"le", &Interval::Le, [](int64_t x, int64_t y) { return x <= y; }},
        {"eq", &Interval::Eq, [](int64_t x, int64_t y) { return x == y; }},
        {"ne", &Interval::Ne, [](int64_t x, int64_t y) { return x != y; }},
    };
    for (const Cmp& c : cmps) {
      INFO(c.name << " " << a.ToString() << " " << b.ToString());
      CHECK((a.*c.op)(b) == BruteCompare(a, b, c.rel));
    }
  }
}

TEST_CASE("interval division by intervals spanning zero", "[interval]") {
  // 0 is excluded from the divisor: [-6, 6] floordiv [-2, 3].
  CHECK(Interval{-6, 6}.FloorDiv(Interval{-2, 3}) == Interval{-6, 6});
  CHECK(Interval{4, 9}.FloorDiv(Interval{-1, 1}) == Interval{-9, 9});
  CHECK(Interval{4, 9}.FloorDiv(Interval{0, 2}) == Interval{2, 9});
  CHECK(Interval{4, 9}.FloorDiv(Interval{-3, 0}) == Interval{-9, -2});
  CHECK(Interval{7, 7}.Mod(Interval{-2, 2}).Contains(Interval{-1, 1}));
  // Negative point divisors.
  CHECK(Interval{7, 7}.FloorDiv(Interval{-2, -2}) == Interval{-4, -4});
  CHECK(Interval{7, 7}.Mod(Interval{-2, -2}) == Interval{-1, -1});
  CHECK(Interval{-7, -7}.CeilDiv(Interval{2, 2}) == Interval{-3, -3});
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
