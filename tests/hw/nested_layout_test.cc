// IREE nested layouts: docs/layouts.md §2's and docs/hw-reference.md §2.4's
// worked examples, and brute-force checks of the map, owners and coverage
// proof.
#include "hw/nested_layout.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "core/enumerate.h"
#include "core/text.h"

namespace ixa::hw {
namespace IXA_UNITY_ID {

NestedLayout Seed() {
  auto l = MakeNestedLayout({2, 1}, {2, 4}, {1, 1}, {16, 4}, {1, 4}, {1, 0},
                            {1, 16});
  REQUIRE(l.ok());
  return *l;
}

using Owner = std::pair<int64_t, int64_t>;

TEST_CASE("nested: the docs/layouts.md §2 example", "[hw][nested]") {
  NestedLayout l = Seed();
  CHECK(UndistributedShape(l) == std::vector<int64_t>{64, 64});
  CHECK(DistributedShape(l) == std::vector<int64_t>{2, 4, 1, 1, 1, 4});
  CHECK(LaneCount(l, {}) == 64);
  CHECK(SubgroupSpan(l) == 2);
  CHECK(VirtualThreadIds(l, 17) == std::vector<int64_t>{1, 1});
  auto elems = ThreadElements(l, {}, 1, 17);
  REQUIRE(elems.ok());
  REQUIRE(elems->size() == 32);
  std::set<int64_t> rows, cols;
  for (const auto& x : *elems) {
    rows.insert(x[0]);
    cols.insert(x[1]);
  }
  CHECK(rows == std::set<int64_t>{33, 49});
  CHECK(cols == std::set<int64_t>{4, 5, 6, 7, 20, 21, 22, 23, 36, 37, 38, 39,
                                  52, 53, 54, 55});
  CHECK((*elems)[0] == std::vector<int64_t>{33, 4});  // distributed order
  CHECK((*elems)[1] == std::vector<int64_t>{33, 5});
  // Subgroups 0 and 2 get slice 0, 1 and 3 slice 1 (4 hardware subgroups).
  NestedIds four{0, 4};
  for (int64_t sg = 0; sg < 4; ++sg)
    CHECK(VirtualSubgroupIds(l, sg)[0] == sg % 2);
  auto owners = Owners(l, four, {40, 13});
  REQUIRE(owners.ok());
  CHECK(*owners == std::vector<Owner>{{1, 56}, {3, 56}});
  owners = Owners(l, {}, {40, 13});
  REQUIRE(owners.ok());
  CHECK(*owners == std::vector<Owner>{{1, 56}});
  // Distributed -> undistributed: sg 0, lane 0, [b0,b1,o0,o1,e0,e1] =
  // [1,3,0,0,0,2].
  ExprContext ctx;
  IndexingMap map = NestedLayoutMap(l, {}, &ctx);
  auto x = map.Evaluate(std::vector<int64_t>{0, 0},
                        std::vector<int64_t>{1, 3, 0, 0, 0, 2});
  REQUIRE(x.ok());
  CHECK(*x == std::vector<int64_t>{16, 50});
  auto proof = ProveCoverage(l, {});
  REQUIRE(proof.ok());
  CHECK(proof->covers);
  CHECK(proof->partition);
  auto proof4 = ProveCoverage(l, four);
  REQUIRE(proof4.ok());
  CHECK(proof4->covers);
  CHECK(!proof4->partition);
  CHECK(proof4->max_owners == 2);
}

TEST_CASE("nested: IREE lit tests and the doc's examples", "[hw][nested]") {
  // distribute_transfer_read_col_major: lane 13 -> rows 4-7, cols 5 and 13.
  auto cm =
      MakeNestedLayout({1, 1}, {1, 2}, {1, 1}, {4, 8}, {4, 1}, {0, 0}, {8, 1});
  REQUIRE(cm.ok());
  CHECK(VirtualThreadIds(*cm, 13) == std::vector<int64_t>{1, 5});
  auto e = ThreadElements(*cm, {}, 0, 13);
  REQUIRE(e.ok());
  std::set<std::vector<int64_t>> got(e->begin(), e->end()), want;
  for (int64_t r = 4; r < 8; ++r) {
    want.insert({r, 5});
    want.insert({r, 13});
  }
  CHECK(got == want);
  // distribute_transfer_read_broadcast2: flat tid 70 on wave64 -> sg 1, lane 6.
  auto b2 = MakeNestedLayout({2}, {1}, {1}, {16}, {4}, {1}, {1});
  REQUIRE(b2.ok());
  NestedIds wave64{64, 0};
  auto e2 = ThreadElements(*b2, wave64, 70 / 64, 70 % 64);
  REQUIRE(e2.ok());
  CHECK(*e2 == std::vector<std::vector<int64_t>>{{88}, {89}, {90}, {91}});
  // Subgroup ordering S=[4,2], ss=[1,4]: 0,4,1,5,2,6,3,7; 4 hardware -> mod 4.
  auto td =
      MakeNestedLayout({4, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 4}, {0, 0});
  REQUIRE(td.ok());
  std::vector<int64_t> order;
  for (int64_t a = 0; a < 4; ++a) {
    for (int64_t b = 0; b < 2; ++b) {
      auto o = Owners(*td, {}, {a, b});
      REQUIRE(o.ok());
      REQUIRE(o->size() == 1);
      order.push_back((*o)[0].first);
      auto o4 = Owners(*td, {1, 4}, {a, b});
      REQUIRE(o4.ok());
      CHECK(*o4 == std::vector<Owner>{{(*o)[0].first % 4, 0}});
    }
  }
  CHECK(order == std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7});
  // Outer duplication O=[2,1], T=[2,5], ts=[5,1]: thread 7 -> (1,2), (3,2).
  auto outer =
      MakeNestedLayout({1, 1}, {1, 1}, {2, 1}, {2, 5}, {1, 1}, {0, 0}, {5, 1});
  REQUIRE(outer.ok());
  auto e3 = ThreadElements(*outer, {}, 0, 7);
  REQUIRE(e3.ok());
  CHECK(*e3 == std::vector<std::vector<int64_t>>{{1, 2}, {3, 2}});
  // Gapped strides T=[4,8], ts=[1,16] on 64 lanes.
  auto gap =
      MakeNestedLayout({1, 1}, {1, 1}, {1, 1}, {4, 8}, {1, 1}, {0, 0}, {1, 16});
  REQUIRE(gap.ok());
  auto o1 = Owners(*gap, {64, 0}, {2, 1});
  REQUIRE(o1.ok());
  CHECK(*o1 == std::vector<Owner>{{0, 18}, {0, 22}, {0, 26}, {0, 30}});
  auto o2 = Owners(*gap, {64, 0}, {2, 5});
  REQUIRE(o2.ok());
  CHECK(o2->empty());
  auto proof = ProveCoverage(*gap, {64, 0});
  REQUIRE(proof.ok());
  CHECK(!proof->covers);
  REQUIRE(proof->uncovered.has_value());
  auto none = Owners(*gap, {64, 0}, *proof->uncovered);
  REQUIRE(none.ok());
  CHECK(none->empty());
  auto full = ProveCoverage(*gap, {128, 0});
  REQUIRE(full.ok());
  CHECK(full->covers);
}

TEST_CASE("nested: validation", "[hw][nested]") {
  CHECK(MakeNestedLayout({1}, {1, 1}, {1}, {1}, {1}, {0}, {0}).error().code ==
        ErrorCode::kInvalidArgument);
  CHECK(MakeNestedLayout({0}, {1}, {1}, {1}, {1}, {0}, {0}).error().code ==
        ErrorCode::kInvalidArgument);
  NestedLayout l = Seed();
  auto ok = CheckVectorShape(l, {64, 64});
  REQUIRE(ok.ok());
  CHECK(ok->valid);
  auto bad = CheckVectorShape(l, {64, 32});
  REQUIRE(bad.ok());
  CHECK(!bad->valid);
  CHECK(bad->mismatched_dims == std::vector<int>{1});
  CHECK(!CheckVectorShape(l, {64}).ok());
}

// Brute force: evaluate the map at every domain point, compare with
// ThreadElements and Owners, and compare the coverage proof with the count.
void BruteForce(const NestedLayout& l, const NestedIds& ids) {
  ExprContext ctx;
  IndexingMap map = NestedLayoutMap(l, ids, &ctx);
  std::vector<int64_t> n = UndistributedShape(l);
  std::map<std::vector<int64_t>, std::set<Owner>> owners;
  int64_t h = HardwareSubgroups(l, ids);
  auto r = ForEachDomainPoint(map, 1 << 20, [&](const Point& p) {
    auto x = map.Evaluate(p.dims, p.symbols);
    REQUIRE(x.ok());
    for (size_t i = 0; i < n.size(); ++i)
      REQUIRE(((*x)[i] >= 0 && (*x)[i] < n[i]));
    owners[*x].insert({p.dims[0] % h, p.dims[1]});
    return true;
  });
  REQUIRE(r.ok());
  int64_t total = 1;
  for (int64_t d : n) total *= d;
  auto proof = ProveCoverage(l, ids);
  REQUIRE(proof.ok());
  CHECK(proof->covers == (static_cast<int64_t>(owners.size()) == total));
  size_t lo = SIZE_MAX, hi = 0;
  for (auto& [x, set] : owners) {
    auto o = Owners(l, ids, x);
    REQUIRE(o.ok());
    CHECK(std::set<Owner>(o->begin(), o->end()) == set);
    lo = std::min(lo, set.size());
    hi = std::max(hi, set.size());
  }
  if (proof->covers) {
    CHECK(static_cast<int64_t>(lo) == proof->min_owners);
    CHECK(static_cast<int64_t>(hi) == proof->max_owners);
  }
  // Within one (subgroup, thread), the map is injective over its registers.
  auto elems = ThreadElements(l, ids, 0, 0);
  REQUIRE(elems.ok());
  CHECK(std::set<std::vector<int64_t>>(elems->begin(), elems->end()).size() ==
        elems->size());
}

TEST_CASE("nested: brute force on small layouts", "[hw][nested]") {
  struct Case {
    NestedLayout l;
    NestedIds ids;
  };
  auto L = [](auto... v) {
    auto l = MakeNestedLayout(v...);
    REQUIRE(l.ok());
    return *l;
  };
  std::vector<Case> cases = {
      {L(std::vector<int64_t>{2, 1}, std::vector<int64_t>{2, 1},
         std::vector<int64_t>{1, 1}, std::vector<int64_t>{4, 2},
         std::vector<int64_t>{1, 2}, std::vector<int64_t>{1, 0},
         std::vector<int64_t>{1, 4}),
       {}},
      {L(std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 2},
         std::vector<int64_t>{2, 1}, std::vector<int64_t>{2, 3},
         std::vector<int64_t>{2, 1}, std::vector<int64_t>{2, 1},
         std::vector<int64_t>{3, 1}),
       {}},
      {L(std::vector<int64_t>{2}, std::vector<int64_t>{2},
         std::vector<int64_t>{1}, std::vector<int64_t>{4},
         std::vector<int64_t>{2}, std::vector<int64_t>{1},
         std::vector<int64_t>{2}),
       {8, 4}},  // lanes replicate (stride 2 over 8 lanes), subgroups wrap
      {L(std::vector<int64_t>{4, 2}, std::vector<int64_t>{1, 1},
         std::vector<int64_t>{1, 1}, std::vector<int64_t>{2, 2},
         std::vector<int64_t>{1, 1}, std::vector<int64_t>{1, 4},
         std::vector<int64_t>{1, 1}),
       {4, 4}},  // overlapping thread strides, fewer hardware subgroups
      {L(std::vector<int64_t>{1, 1}, std::vector<int64_t>{1, 1},
         std::vector<int64_t>{1, 1}, std::vector<int64_t>{4, 8},
         std::vector<int64_t>{1, 1}, std::vector<int64_t>{0, 0},
         std::vector<int64_t>{1, 16}),
       {64, 0}},  // gaps: not covered
  };
  for (auto& c : cases) BruteForce(c.l, c.ids);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
