// The fusion walk's map pool (analysis/fusion/map_pool.h): interning,
// memoized composition and deduplication give exactly the maps, in the
// order, of the value-based walk (IndexingMapSet at every instruction).
#include <algorithm>
#include <random>
#include <string>

#include "analysis/indexing/internal.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

using fusion_internal::IdSet;
using fusion_internal::MapId;
using fusion_internal::MapPool;

IndexingMap Parse(const std::string& text, ExprContext* ctx) {
  auto m = ParseIndexingMap(text, ctx);
  INFO(text);
  REQUIRE(m.ok());
  return std::move(m).value();
}

std::vector<std::string> Printed(const std::vector<IndexingMap>& maps) {
  std::vector<std::string> out;
  for (const IndexingMap& m : maps) out.push_back(PrintIndexingMap(m));
  return out;
}

TEST_CASE("MapPool: one id per printed map", "[fusion]") {
  ExprContext ctx;
  MapPool pool;
  const MapId a =
      pool.Intern(Parse("(d0) -> (d0), domain: d0 in [0, 7]", &ctx));
  CHECK(pool.Intern(Parse("(d0) -> (d0), domain: d0 in [0, 7]", &ctx)) == a);
  // Equal under operator== (names are ignored there) but printed apart.
  const MapId named =
      pool.Intern(Parse("(x) -> (x), domain: x in [0, 7]", &ctx));
  CHECK(named != a);
  CHECK(pool.map(named) == pool.map(a));
  CHECK(pool.Intern(Parse("(d0) -> (d0), domain: d0 in [0, 8]", &ctx)) != a);
  // Constraints compare as a set.
  const MapId c1 = pool.Intern(
      Parse("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in "
            "[0, 5], d0 mod 2 in [0, 0]",
            &ctx));
  const MapId c2 = pool.Intern(
      Parse("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 mod 2 in "
            "[0, 0], d0 + d1 in [0, 5]",
            &ctx));
  CHECK(c1 == c2);
  CHECK(pool.size() == 4);
}

TEST_CASE("MapPool: composition is memoized and finished", "[fusion]") {
  ExprContext ctx;
  MapPool pool;
  const MapId first = pool.Intern(
      Parse("(d0) -> (d0 floordiv 4, d0 mod 4), domain: d0 in [0, 15]", &ctx));
  const MapId second = pool.Intern(Parse(
      "(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 3], d1 in [0, 3]", &ctx));
  auto composed = pool.Compose(first, second);
  REQUIRE(composed.ok());
  auto direct = indexing_internal::ComposeWithProducers(pool.map(first),
                                                        pool.map(second));
  REQUIRE(direct.ok());
  FinishMap(&direct.value());
  CHECK(PrintIndexingMap(pool.map(*composed)) == PrintIndexingMap(*direct));
  CHECK(PrintIndexingMap(pool.map(*composed)) ==
        "(d0) -> (d0), domain: d0 in [0, 15]");
  const size_t size = pool.size();
  auto again = pool.Compose(first, second);
  REQUIRE(again.ok());
  CHECK(*again == *composed);
  CHECK(pool.size() == size);
}

TEST_CASE("IdSet keeps IndexingMapSet's order and dedup", "[fusion]") {
  ExprContext ctx;
  // Distinct texts, some of them equivalent maps (the same access written
  // differently), some differing only in names or domain.
  const std::vector<std::string> texts = {
      "(d0) -> (d0), domain: d0 in [0, 7]",
      "(d0) -> (d0 mod 16), domain: d0 in [0, 7]",
      "(d0) -> ((d0 floordiv 8) * 8 + d0 mod 8), domain: d0 in [0, 7]",
      "(x) -> (x), domain: x in [0, 7]",
      "(d0) -> (7 - d0), domain: d0 in [0, 7]",
      "(d0) -> (d0), domain: d0 in [0, 6]",
      "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 7], s0 in [0, 0]",
      "(d0)[s0] -> (d0), domain: d0 in [0, 7], s0 in [0, 3]",
      "(d0) -> (d0 * 2 - d0), domain: d0 in [0, 7]",
  };
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<IndexingMap> sequence;
    for (int i = 0; i < 12; ++i) {
      sequence.push_back(Parse(texts[rng() % texts.size()], &ctx));
    }
    IndexingMapSet by_value;
    MapPool pool;
    IdSet by_id;
    for (const IndexingMap& m : sequence) {
      const bool new_by_value = by_value.Insert(m);
      const bool new_by_id = by_id.Insert(pool.Intern(m), &pool);
      REQUIRE(new_by_value == new_by_id);
    }
    std::vector<IndexingMap> kept;
    for (MapId id : by_id.ids()) kept.push_back(pool.map(id));
    REQUIRE(Printed(kept) == Printed(by_value.maps()));
  }
}

// The value-based walk the pool replaced (ComputeGroupedOutputToInputIndexing
// before the pool, strict): per instruction one IndexingMapSet per output.
std::unordered_map<const hlo::Instruction*, std::vector<IndexingMapSet>>
ReferenceWalk(const FusionRegion& region, ExprContext* ctx) {
  std::unordered_map<const hlo::Instruction*, std::vector<IndexingMapSet>> maps;
  auto sets_of = [&](const hlo::Instruction* instr) -> auto& {
    auto& sets = maps[instr];
    sets.resize(OutputCount(*instr));
    return sets;
  };
  IndexingMap seed = IndexingMap::Identity(ctx, OutputDims(*region.root, 0));
  FinishMap(&seed);
  sets_of(region.root)[0].Insert(seed);
  for (auto it = region.members.rbegin(); it != region.members.rend(); ++it) {
    const hlo::Instruction* instr = *it;
    if (!maps.count(instr) || instr->opcode == hlo::Opcode::kParameter)
      continue;
    std::vector<IndexingMapSet> consumer = maps[instr];
    for (int out = 0; out < static_cast<int>(consumer.size()); ++out) {
      if (consumer[out].empty()) continue;
      auto operand_maps = ComputeOutputToInputIndexing(*instr, out, ctx);
      REQUIRE(operand_maps.ok());
      for (int k = 0; k < instr->operand_count(); ++k) {
        if (operand_maps->indexing_maps[k].empty()) continue;
        const int target = instr->opcode == hlo::Opcode::kGetTupleElement
                               ? instr->tuple_index
                               : 0;
        IndexingMapSet& into = sets_of(instr->operand(k))[target];
        for (const IndexingMap& c : consumer[out]) {
          for (const IndexingMap& p : operand_maps->indexing_maps[k]) {
            auto composed = indexing_internal::ComposeWithProducers(c, p);
            REQUIRE(composed.ok());
            FinishMap(&composed.value());
            into.Insert(std::move(composed).value());
          }
        }
      }
    }
  }
  return maps;
}

// A chain in the shape of bench_hlo's large module: adds of the two
// previous values, transposes, dots, reshapes and a tuple pair, so that
// every instruction collects several distinct maps from two users.
std::string ChainModule(int n) {
  std::string text = "HloModule chain\nENTRY e {\n";
  text += "  a0 = f32[8,8] parameter(0)\n  a1 = f32[8,8] parameter(1)\n";
  for (int i = 2; i < n; ++i) {
    const std::string a = "a" + std::to_string(i);
    const std::string p1 = "a" + std::to_string(i - 1);
    const std::string p2 = "a" + std::to_string(i - 2);
    if (i % 17 == 0) {
      text += "  " + a + " = f32[8,8] dot(" + p1 + ", " + p2 +
              "), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
    } else if (i % 13 == 0) {
      text += "  r" + std::to_string(i) + " = f32[64] reshape(" + p1 + ")\n";
      text += "  " + a + " = f32[8,8] reshape(r" + std::to_string(i) + ")\n";
    } else if (i % 11 == 0) {
      text += "  t" + std::to_string(i) + " = (f32[8,8], f32[8,8]) tuple(" +
              p1 + ", " + p2 + ")\n";
      text += "  " + a + " = f32[8,8] get-tuple-element(t" + std::to_string(i) +
              "), index=1\n";
    } else if (i % 5 == 0) {
      text +=
          "  " + a + " = f32[8,8] transpose(" + p1 + "), dimensions={1,0}\n";
    } else if (i % 3 == 0) {
      text += "  " + a + " = f32[8,8] negate(" + p1 + ")\n";
    } else {
      text += "  " + a + " = f32[8,8] add(" + p1 + ", " + p2 + ")\n";
    }
  }
  text += "  ROOT r = f32[8,8] add(a" + std::to_string(n - 1) + ", a" +
          std::to_string(n - 2) + ")\n}\n";
  return text;
}

TEST_CASE("Grouped walk: the same maps as the value-based walk", "[fusion]") {
  auto m = ParseOrDie(ChainModule(120));
  ExprContext ctx;
  const FusionRegion region = RegionOfComputation(*m->entry());
  auto grouped = ComputeGroupedOutputToInputIndexing(region, 0, &ctx);
  REQUIRE(grouped.ok());
  auto reference = ReferenceWalk(region, &ctx);
  REQUIRE(grouped->order.size() == reference.size());
  size_t several = 0;
  for (const hlo::Instruction* instr : grouped->order) {
    INFO(instr->name);
    REQUIRE(reference.count(instr));
    std::vector<IndexingMap> want;
    IndexingMapSet distinct;
    for (const IndexingMapSet& set : reference[instr]) {
      for (const IndexingMap& map : set) {
        want.push_back(map);
        distinct.Insert(map);
      }
    }
    CHECK(Printed(grouped->MapsOf(instr)) == Printed(want));
    CHECK(Printed(grouped->DistinctMapsOf(instr)) == Printed(distinct.maps()));
    if (want.size() > 2) ++several;
  }
  CHECK(several > 50);  // the chain does exercise deduplication
  // The parameters' sets, as ComputeFusionParameterIndexing returns them.
  auto params = ComputeFusionParameterIndexing(region, 0, &ctx);
  REQUIRE(params.ok());
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    IndexingMapSet distinct;
    for (const IndexingMapSet& set : reference[region.parameters[i]]) {
      for (const IndexingMap& map : set) distinct.Insert(map);
    }
    CHECK(Printed((*params)[i].maps()) == Printed(distinct.maps()));
  }
}

// A DAG whose every level reads the previous one reversed and shifted by
// one (pad + slice): the number of distinct maps grows with the cube of the
// depth, and each map inserted into a set was decided against every kept
// one (40 levels: 270 s to reach the map limit). Maps of their dims alone
// now skip the decision when their fingerprints differ: the same maps as
// the value-based walk, and the limit answered at once.
std::string FanOutModule(int levels) {
  std::string text =
      "HloModule fan_out\nENTRY e {\n  x0 = f32[64] parameter(0)\n";
  text += "  z = f32[] constant(0)\n";
  for (int i = 1; i < levels; ++i) {
    const std::string n = std::to_string(i), p = std::to_string(i - 1);
    text += "  r" + n + " = f32[64] reverse(x" + p + "), dimensions={0}\n";
    text += "  p" + n + " = f32[65] pad(x" + p + ", z), padding=1_0\n";
    text += "  s" + n + " = f32[64] slice(p" + n + "), slice={[0:64]}\n";
    text += "  x" + n + " = f32[64] add(r" + n + ", s" + n + ")\n";
  }
  text +=
      "  ROOT out = f32[64] negate(x" + std::to_string(levels - 1) + ")\n}\n";
  return text;
}

TEST_CASE("Grouped walk: a fan-out DAG of reverses and shifts", "[fusion]") {
  auto m = ParseOrDie(FanOutModule(12));
  ExprContext ctx;
  const FusionRegion region = RegionOfComputation(*m->entry());
  auto grouped = ComputeGroupedOutputToInputIndexing(region, 0, &ctx);
  REQUIRE(grouped.ok());
  auto reference = ReferenceWalk(region, &ctx);
  for (const hlo::Instruction* instr : grouped->order) {
    INFO(instr->name);
    IndexingMapSet distinct;
    for (const IndexingMapSet& set : reference[instr]) {
      for (const IndexingMap& map : set) distinct.Insert(map);
    }
    CHECK(Printed(grouped->DistinctMapsOf(instr)) == Printed(distinct.maps()));
  }
  CHECK(grouped->DistinctMapsOf(region.parameters[0]).size() == 131);

  auto deep = ParseOrDie(FanOutModule(40));
  auto limited = ComputeGroupedOutputToInputIndexing(
      RegionOfComputation(*deep->entry()), 0, &ctx);
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.error().code == ErrorCode::kLimitExceeded);
}

TEST_CASE("Grouped walk: a tuple's outputs deduplicated together", "[fusion]") {
  // Both elements of the tuple parameter read at the same index: one map
  // per output, a single distinct map over both.
  auto m = ParseOrDie(R"(
HloModule t
ENTRY e {
  p = (f32[4,4], f32[4,4]) parameter(0)
  x = f32[4,4] get-tuple-element(p), index=0
  y = f32[4,4] get-tuple-element(p), index=1
  ROOT r = f32[4,4] add(x, y)
})");
  ExprContext ctx;
  auto grouped = ComputeGroupedOutputToInputIndexing(
      RegionOfComputation(*m->entry()), 0, &ctx);
  REQUIRE(grouped.ok());
  const hlo::Instruction* p = m->entry()->Find("p");
  CHECK(grouped->MapsOf(p).size() == 2);
  REQUIRE(grouped->DistinctMapsOf(p).size() == 1);
  CHECK(PrintIndexingMap(grouped->DistinctMapsOf(p)[0]) ==
        "(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 3]");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
