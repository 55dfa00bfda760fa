// The inline fast paths of simplifier/facts.h against the general
// functions they stand for, on every combination of edge values (the int64
// limits stand for unbounded ends, and must stay sticky).
#include "simplifier/facts.h"

#include <catch2/catch.hpp>
#include <vector>

namespace ixa::simp {
namespace IXA_UNITY_ID {

const std::vector<int64_t>& EdgeValues() {
  static const std::vector<int64_t> values = {kInt64Min,
                                              kInt64Min + 1,
                                              kInt64Min / 2,
                                              -1000003,
                                              -7,
                                              -1,
                                              0,
                                              1,
                                              2,
                                              5,
                                              1000003,
                                              kInt64Max / 3,
                                              kInt64Max / 2,
                                              kInt64Max - 1,
                                              kInt64Max};
  return values;
}

std::vector<Interval> EdgeIntervals() {
  std::vector<Interval> out;
  for (int64_t lo : EdgeValues()) {
    for (int64_t hi : EdgeValues()) out.push_back({lo, hi});  // some empty
  }
  return out;
}

TEST_CASE("facts: AddScaledRange equals RangeAdd of RangeScale") {
  const std::vector<Interval> intervals = EdgeIntervals();
  const std::vector<int64_t> coefficients = {
      kInt64Min, kInt64Min + 1, -1000003,      -3,       -1, 0, 1,
      2,         1000003,       kInt64Max - 1, kInt64Max};
  int64_t checked = 0;
  for (const Interval& acc : intervals) {
    for (const Interval& term : intervals) {
      for (int64_t c : coefficients) {
        Interval fast = AddScaledRange(acc, term, c);
        Interval general = RangeAdd(acc, RangeScale(term, c));
        INFO("acc " << acc.ToString() << " term " << term.ToString() << " c "
                    << c);
        REQUIRE(fast == general);
        ++checked;
      }
    }
  }
  CHECK(checked == 225 * 225 * 11);
}

// Soundness of RangeScale at the edges: every real end value v (a lower
// end other than kInt64Min, an upper end other than kInt64Max: the
// markers are per side) scales into the result. A lower end at kInt64Max
// was read as +infinity, so -d0 for d0 in [INT64_MAX, INT64_MAX] got the
// range [INT64_MIN, INT64_MIN], and `d0 ceildiv -1 in [-INT64_MAX,
// -INT64_MAX]` was judged infeasible at d0 = INT64_MAX (difftest).
TEST_CASE("facts: RangeScale keeps every real end value") {
  using Wide = __int128;
  const std::vector<int64_t> coefficients = {
      kInt64Min, kInt64Min + 1, -1000003,      -3,       -1, 0, 1,
      2,         1000003,       kInt64Max - 1, kInt64Max};
  for (const Interval& a : EdgeIntervals()) {
    if (a.IsEmpty()) continue;
    for (int64_t c : coefficients) {
      Interval r = RangeScale(a, c);
      INFO("a " << a.ToString() << " c " << c << " -> " << r.ToString());
      for (int side = 0; side < 2; ++side) {
        int64_t v = side == 0 ? a.lower : a.upper;
        if (side == 0 ? v == kInt64Min : v == kInt64Max) continue;
        Wide x = static_cast<Wide>(v) * c;
        CHECK((r.lower == kInt64Min || static_cast<Wide>(r.lower) <= x));
        CHECK((r.upper == kInt64Max || x <= static_cast<Wide>(r.upper)));
      }
    }
  }
  CHECK(RangeScale({kInt64Max, kInt64Max}, -1) ==
        Interval{kInt64Min, -kInt64Max});
}

TEST_CASE("facts: Trim's inline path equals TrimAligned") {
  const std::vector<Alignment> alignments = {Alignment::Unknown(),
                                             Alignment::Exact(0),
                                             Alignment::Exact(5),
                                             Alignment::Exact(kInt64Max),
                                             {2, 1},
                                             {4, 0},
                                             {3, 2},
                                             {1000003, 7}};
  for (const Interval& range : EdgeIntervals()) {
    for (const Alignment& align : alignments) {
      Facts f{range, align};
      Facts fast = Trim(f), general = TrimAligned(f);
      INFO("range " << range.ToString() << " align " << align.modulus << ","
                    << align.remainder);
      REQUIRE(fast.range == general.range);
      REQUIRE(fast.align == general.align);
    }
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::simp
