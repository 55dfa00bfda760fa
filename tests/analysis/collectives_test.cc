// Collectives checked against a simulation of every replica of a group:
// all-gather's element and replica maps (XLA's two maps, and the opt-in
// per-source form) name exactly the element of the replica that an output
// element copies; all-to-all's maps
// name it among the candidates for every rank of the receiving replica.
#include "tests/analysis/reference_interpreter.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

struct Source {
  int64_t replica;
  std::vector<int64_t> index;
};

// (replica, element) pairs the map pairs name for output element `o`: the
// element map k with the replica map k (all-gather has one pair per
// source replica; all-to-all one pair).
std::vector<Source> Named(const IndexingMapSet& elements,
                          const IndexingMapSet& replicas,
                          const std::vector<int64_t>& o) {
  std::vector<Source> out;
  REQUIRE(replicas.size() == elements.size());
  for (size_t k = 0; k < elements.size(); ++k) {
    const IndexingMap& m = elements.maps()[k];
    const IndexingMap& r = replicas.maps()[k];
    if (!*r.InDomain(o, {})) continue;
    auto rep = r.Evaluate(o, {});
    REQUIRE(rep.ok());
    REQUIRE(rep->size() == 1);
    std::vector<int64_t> sizes;
    for (const Variable& v : m.range_vars()) sizes.push_back(v.bounds.Size());
    for (int64_t s = 0; s < Count(sizes); ++s) {
      std::vector<int64_t> syms = Unlinear(s, sizes);
      if (!*m.InDomain(o, syms)) continue;
      out.push_back({(*rep)[0], *m.Evaluate(o, syms)});
    }
  }
  return out;
}

// The element and the member of the group that output element `o` of an
// all-gather names through one element map and one replica map (XLA's
// form: both total over the output).
Source NamedByXlaForm(const IndexingMapSet& elements,
                      const IndexingMapSet& replicas,
                      const std::vector<int64_t>& o) {
  REQUIRE(elements.size() == 1);
  REQUIRE(replicas.size() == 1);
  REQUIRE(elements.begin()->range_vars().empty());
  auto element = elements.begin()->Evaluate(o, {});
  auto replica = replicas.begin()->Evaluate(o, {});
  REQUIRE(element.ok());
  REQUIRE(replica.ok());
  REQUIRE(replica->size() == 1);
  return {(*replica)[0], *element};
}

// Every replica simulated: replica q of group g receives the operands of
// g's members concatenated along the gathered dim, so its output element
// `o` is member o[dim] floordiv n's operand at o[dim] mod n. The maps are
// the same on every replica and name the member by its rank in the group.
TEST_CASE("collectives: all-gather as XLA gives it, every replica simulated",
          "[collective]") {
  auto m = ParseOrDie(R"(
    p0 = f32[128,128] parameter(0)
    ROOT ag = f32[128,256] all-gather(p0), replica_groups={{0,1},{2,3}}, dimensions={1})");
  const hlo::Instruction& ag = *m->entry()->root();
  ExprContext ctx;
  auto r = ComputeOutputToInputIndexing(ag, 0, &ctx);
  REQUIRE(r.ok());
  ExpectText(*r->indexing_maps[0].begin(),
             "(d0, d1) -> (d0, d1 mod 128), domain: d0 in [0, 127], "
             "d1 in [0, 255]");
  ExpectText(*r->replica_maps[0].begin(),
             "(d0, d1) -> (d1 floordiv 128), domain: d0 in [0, 127], "
             "d1 in [0, 255]");
  const std::vector<std::vector<int64_t>> groups = {{0, 1}, {2, 3}};
  for (int64_t q = 0; q < 4; ++q) {
    const std::vector<int64_t>& group = groups[q / 2];
    for (int64_t i = 0; i < 128; i += 7) {
      for (int64_t j = 0; j < 256; ++j) {
        // The simulated replica q: where its element (i, j) was copied from.
        const int64_t source_replica = group[j / 128];
        const std::vector<int64_t> source_index = {i, j % 128};
        Source named =
            NamedByXlaForm(r->indexing_maps[0], r->replica_maps[0], {i, j});
        CHECK(group[named.replica] == source_replica);
        CHECK(named.index == source_index);
      }
    }
  }
}

// Fused behind a reshape, a transpose, and chained: one map per parameter
// (not one per source), with the replica maps composed as XLA composes an
// operand's replica-id map. Checked against the simulated gather.
TEST_CASE("collectives: fused all-gather has one map per parameter",
          "[collective]") {
  auto m = ParseOrDie(R"(
HloModule m
f {
  p0 = f32[128,128] parameter(0)
  ag = f32[256,128] all-gather(p0), replica_groups={{0,1}}, dimensions={0}
  ROOT r = f32[32768] reshape(ag)
}
ENTRY e {
  a = f32[128,128] parameter(0)
  ROOT r = f32[32768] fusion(a), kind=kLoop, calls=f
})");
  ExprContext ctx;
  auto region = ResolveFusion(*m, "");
  REQUIRE(region.ok());
  auto g = ComputeGroupedOutputToInputIndexing(*region, 0, &ctx);
  REQUIRE(g.ok());
  const hlo::Instruction* p0 = region->parameters[0];
  std::vector<IndexingMap> maps = g->DistinctMapsOf(p0);
  REQUIRE(maps.size() == 1);
  ExpectText(maps[0],
             "(d0) -> ((d0 floordiv 128) mod 128, d0 mod 128), "
             "domain: d0 in [0, 32767]");
  REQUIRE(g->replica_maps.count(p0) == 1);
  const IndexingMapSet& replicas = g->replica_maps.at(p0);
  REQUIRE(replicas.size() == 1);
  ExpectText(*replicas.begin(),
             "(d0) -> (d0 floordiv 16384), domain: d0 in [0, 32767]");
  IndexingMapSet elements = IndexingMapSet::FromDistinct(maps);
  for (int64_t l = 0; l < 32768; l += 5) {
    // reshape: element l is ag's (l floordiv 128, l mod 128); the gather
    // along dim 0 takes its row from member row floordiv 128.
    const int64_t row = l / 128;
    Source named = NamedByXlaForm(elements, replicas, {l});
    CHECK(named.replica == row / 128);
    CHECK(named.index == std::vector<int64_t>{row % 128, l % 128});
  }

  auto chained = ParseOrDie(R"(
HloModule m
f {
  p = f32[2,3] parameter(0)
  ag = f32[4,3] all-gather(p), dimensions={0}, replica_groups={{0,1}}
  ag2 = f32[12,3] all-gather(ag), dimensions={0}, replica_groups={{0,1,2}}
  ROOT t = f32[3,12] transpose(ag2), dimensions={1,0}
}
ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT r = f32[3,12] fusion(a), kind=kLoop, calls=f
})");
  auto chained_region = ResolveFusion(*chained, "");
  REQUIRE(chained_region.ok());
  auto c = ComputeGroupedOutputToInputIndexing(*chained_region, 0, &ctx);
  REQUIRE(c.ok());
  const hlo::Instruction* p = chained_region->parameters[0];
  std::vector<IndexingMap> pm = c->DistinctMapsOf(p);
  REQUIRE(pm.size() == 1);
  ExpectSameMap(pm[0],
                "(d0, d1) -> (d1 mod 2, d0), domain: d0 in [0, 2], "
                "d1 in [0, 11]",
                &ctx);
  // One replica map per all-gather: the outer one's member, then the
  // inner one's.
  const IndexingMapSet& chain_replicas = c->replica_maps.at(p);
  REQUIRE(chain_replicas.size() == 2);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 12; ++j) {
      const std::vector<int64_t> o = {i, j};
      auto outer = chain_replicas.maps()[0].Evaluate(o, {});
      auto inner = chain_replicas.maps()[1].Evaluate(o, {});
      REQUIRE(outer.ok());
      REQUIRE(inner.ok());
      CHECK((*outer)[0] == j / 4);
      CHECK((*inner)[0] == (j % 4) / 2);
    }
  }
  // The same per all-gather: the outer ag2's member, then ag's.
  const auto& by_collective = c->replica_maps_by_collective.at(p);
  REQUIRE(by_collective.size() == 2);
  CHECK(by_collective[0].collective->name == "ag2");
  CHECK(by_collective[1].collective->name == "ag");
  REQUIRE(by_collective[0].maps.size() == 1);
  REQUIRE(by_collective[1].maps.size() == 1);
  CHECK(by_collective[0].maps.maps()[0] == chain_replicas.maps()[0]);
  CHECK(by_collective[1].maps.maps()[0] == chain_replicas.maps()[1]);
  // The instructions between keep the attribution: ag reads p's replica
  // through ag2 only.
  const hlo::Instruction* ag = chained_region->computation->Find("ag");
  REQUIRE(ag != nullptr);
  const auto& of_ag = c->replica_maps_by_collective.at(ag);
  REQUIRE(of_ag.size() == 1);
  CHECK(of_ag[0].collective->name == "ag2");
}

// all-gather concatenates the operands of its group's replicas; on
// request, one map per source replica, over its block of the gathered
// dim, and the replica.
TEST_CASE(
    "collectives: all-gather per source (opt-in) element and replica "
    "maps",
    "[collective]") {
  auto m = ParseOrDie(R"(
    p = f32[3,2] parameter(0)
    ROOT ag = f32[3,8] all-gather(p), dimensions={1}, replica_groups={{0,1,2,3}})");
  const hlo::Instruction& ag = *m->entry()->root();
  ExprContext ctx;
  IndexingOptions per_source;
  per_source.all_gather_per_source = true;
  auto r = ComputeOutputToInputIndexing(ag, 0, &ctx, per_source);
  REQUIRE(r.ok());
  REQUIRE(r->replica_maps.size() == 1);
  REQUIRE(r->indexing_maps[0].size() == 4);
  REQUIRE(r->replica_maps[0].size() == 4);
  ExpectText(r->indexing_maps[0].maps()[0],
             "(d0, d1) -> (d0, d1), domain: d0 in [0, 2], d1 in [0, 1]");
  ExpectText(r->replica_maps[0].maps()[0],
             "(d0, d1) -> (0), domain: d0 in [0, 2], d1 in [0, 1]");
  ExpectText(r->indexing_maps[0].maps()[3],
             "(d0, d1) -> (d0, d1 - 6), domain: d0 in [0, 2], d1 in [6, 7]");
  ExpectText(r->replica_maps[0].maps()[3],
             "(d0, d1) -> (3), domain: d0 in [0, 2], d1 in [6, 7]");
  // Simulation: replica q holds X_q; the output concatenates them on dim 1.
  for (int64_t l = 0; l < 24; ++l) {
    std::vector<int64_t> o = Unlinear(l, {3, 8});
    Source truth{o[1] / 2, {o[0], o[1] % 2}};
    std::vector<Source> named =
        Named(r->indexing_maps[0], r->replica_maps[0], o);
    REQUIRE(named.size() == 1);
    CHECK(named[0].replica == truth.replica);
    CHECK(named[0].index == truth.index);
  }
}

// Past 16 sources the per-source form keeps one map for all of them,
// with the replica as a map of the index.
TEST_CASE("collectives: all-gather per source of a large group is one map",
          "[collective]") {
  auto m = ParseOrDie(R"(
    p = f32[2] parameter(0)
    ROOT ag = f32[64] all-gather(p), dimensions={0}, replica_groups=[1,32]<=[32])");
  ExprContext ctx;
  IndexingOptions per_source;
  per_source.all_gather_per_source = true;
  auto r =
      ComputeOutputToInputIndexing(*m->entry()->root(), 0, &ctx, per_source);
  REQUIRE(r.ok());
  REQUIRE(r->indexing_maps[0].size() == 1);
  ExpectText(*r->indexing_maps[0].begin(),
             "(d0) -> (d0 mod 2), domain: d0 in [0, 63]");
  ExpectText(*r->replica_maps[0].begin(),
             "(d0) -> (d0 floordiv 2), domain: d0 in [0, 63]");
  for (int64_t o = 0; o < 64; ++o) {
    std::vector<Source> named =
        Named(r->indexing_maps[0], r->replica_maps[0], {o});
    REQUIRE(named.size() == 1);
    CHECK(named[0].replica == o / 2);
    CHECK(named[0].index == std::vector<int64_t>{o % 2});
  }
}

TEST_CASE("collectives: all-to-all names the source among every rank",
          "[collective]") {
  auto m = ParseOrDie(R"(
    p = f32[2,8] parameter(0)
    ROOT a = f32[2,8] all-to-all(p), dimensions={1}, replica_groups={{0,1,2,3}})");
  const hlo::Instruction& a2a = *m->entry()->root();
  ExprContext ctx;
  auto r = ComputeOutputToInputIndexing(a2a, 0, &ctx);
  REQUIRE(r.ok());
  // Simulation: the operand's dim 1 is cut in 4 chunks of 2; chunk c goes
  // to rank c; rank `me` concatenates the chunks it receives by source.
  for (int64_t me = 0; me < 4; ++me) {
    for (int64_t l = 0; l < 16; ++l) {
      std::vector<int64_t> o = Unlinear(l, {2, 8});
      Source truth{o[1] / 2, {o[0], me * 2 + o[1] % 2}};
      std::vector<Source> named =
          Named(r->indexing_maps[0], r->replica_maps[0], o);
      CHECK(named.size() == 4);  // one candidate per rank
      bool found = false;
      for (const Source& s : named) {
        found |= s.replica == truth.replica && s.index == truth.index;
      }
      CHECK(found);
    }
  }
  // The group size must be known.
  auto bad = ParseOrDie(R"(
    p = f32[2,8] parameter(0)
    ROOT a = f32[2,8] all-to-all(p), dimensions={1}, replica_groups={})");
  auto u = ComputeOutputToInputIndexingPartial(*bad->entry()->root(), 0, &ctx);
  REQUIRE(u.ok());
  CHECK(u->IsUnknown(0));
  // Tuple form: output j comes from replica j.
  auto tuple = ParseOrDie(R"(
    p = f32[4] parameter(0)
    q = f32[4] parameter(1)
    ROOT a = (f32[4], f32[4]) all-to-all(p, q), replica_groups={{0,1}})");
  auto t = ComputeOutputToInputIndexing(*tuple->entry()->root(), 1, &ctx);
  REQUIRE(t.ok());
  ExpectText(*t->replica_maps[0].begin(), "(d0) -> (1), domain: d0 in [0, 3]");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
