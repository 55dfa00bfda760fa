// The inline fast paths of simplifier/facts.h against the general
// functions they stand for, on every combination of edge values (the int64
// limits stand for unbounded ends, and must stay sticky).
#include "simplifier/facts.h"

#include <catch2/catch.hpp>
#include <vector>

namespace ixa::simp {
namespace {

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

}  // namespace
}  // namespace ixa::simp
