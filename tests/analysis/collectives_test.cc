// Collectives checked against a simulation of every replica of a group:
// all-gather's element and replica maps (XLA's two maps) name exactly the
// element of the replica that an output element copies; all-to-all's maps
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

// all-gather concatenates the operands of its group's replicas: one map
// per source replica, over its block of the gathered dim, and the replica.
TEST_CASE("collectives: all-gather element and replica maps", "[collective]") {
  auto m = ParseOrDie(R"(
    p = f32[3,2] parameter(0)
    ROOT ag = f32[3,8] all-gather(p), dimensions={1}, replica_groups={{0,1,2,3}})");
  const hlo::Instruction& ag = *m->entry()->root();
  ExprContext ctx;
  auto r = ComputeOutputToInputIndexing(ag, 0, &ctx);
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

// Past 16 sources one map stands for all of them, with the replica as a
// map of the index.
TEST_CASE("collectives: all-gather of a large group is one map",
          "[collective]") {
  auto m = ParseOrDie(R"(
    p = f32[2] parameter(0)
    ROOT ag = f32[64] all-gather(p), dimensions={0}, replica_groups=[1,32]<=[32])");
  ExprContext ctx;
  auto r = ComputeOutputToInputIndexing(*m->entry()->root(), 0, &ctx);
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
