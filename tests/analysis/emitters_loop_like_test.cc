// The loop-like emitter plans (docs/xla-reference.md §(h) h.3, h.6):
// concatenate, scatter, in-place dynamic-update-slice and input slices —
// their selection rules, the worked numbers of h.11, and brute-force
// checks of their thread maps.
#include <catch2/catch.hpp>

#include "tests/analysis/emitters_test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

// Every point of every map reads a distinct element, and together they
// read each element of `dims` exactly once.
void CheckReadsEachOnce(const std::vector<IndexingMap>& maps,
                        const Index& dims) {
  std::map<Index, int> count;
  for (const IndexingMap& m : maps) {
    ForEachPoint(m, [&](const Point&, const Index& in) { ++count[in]; });
  }
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  CHECK(static_cast<int64_t>(count.size()) == total);
  for (const auto& [in, n] : count) REQUIRE(n == 1);
}

const char kConcat[] = R"(
  ENTRY e {
    p0 = f32[200] parameter(0)
    p1 = f32[400] parameter(1)
    p2 = f32[300] parameter(2)
    ROOT c = f32[900] concatenate(p0, p1, p2), dimensions={0}
  })";

TEST_CASE("concatenate plan: h.11 [200], [400], [300]",
          "[emitters][concatenate]") {
  for (const char* device : {"rtx_a6000", "h100"}) {
    INFO(device);
    Planned p = Plan(kConcat, device);
    REQUIRE(p.plan.kind == EmitterKind::kConcatenate);
    // L = [400], u = 1: 128 threads, 4 blocks; no output map.
    CHECK(p.plan.launch.threads == std::array<int64_t, 3>{128, 1, 1});
    CHECK(p.plan.launch.blocks == std::array<int64_t, 3>{4, 1, 1});
    CHECK(p.plan.launch.unroll == 1);
    const RootPlan& r = p.plan.roots[0];
    CHECK_FALSE(r.output_map);
    REQUIRE(r.hero_operand_maps.size() == 3);
    // Every operand shares the map over L; the parameter maps keep the
    // elements in bounds, each read once.
    CHECK(*r.hero_operand_maps[0] == *r.hero_operand_maps[2]);
    for (int i = 0; i < 3; ++i) {
      CheckReadsEachOnce(p.plan.parameters[i].maps,
                         p.region.parameters[i]->shape.dims);
    }
  }
}

TEST_CASE("concatenate plan: unroll divides every operand; epilogue",
          "[emitters][concatenate]") {
  Planned p = PlanOn(R"(
    ENTRY e {
      p0 = f32[8,12] parameter(0)
      p1 = f32[8,6] parameter(1)
      p2 = f32[8,18] parameter(2)
      c = f32[8,18] concatenate(p0, p1), dimensions={1}
      ROOT a = f32[8,18] add(c, p2)
    })",
                     TinyGpu());
  REQUIRE(p.plan.kind == EmitterKind::kConcatenate);
  // L = [8,12]: 96 >= 64 threads on the tiny GPU, u = 4; gcd(4, 12, 6) = 2.
  CHECK(p.plan.loop_config->unroll == 4);
  CHECK(p.plan.launch.unroll == 2);
  CHECK(p.plan.roots[0].hero->name == "c");
  CheckReadsEachOnce(p.plan.parameters[0].maps, {8, 12});
  CheckReadsEachOnce(p.plan.parameters[1].maps, {8, 6});
  // The epilogue reads p2 once per concatenated element, where it lands.
  CheckReadsEachOnce(p.plan.parameters[2].maps, {8, 18});
  // More than four operands: the loop emitter.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[4] parameter(0)
      ROOT c = f32[20] concatenate(p0, p0, p0, p0, p0), dimensions={0}
    })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
}

const char kScatter[] = R"(
  add { a = f32[] parameter(0)  b = f32[] parameter(1)
        ROOT s = f32[] add(a, b) }
  ENTRY e {
    p0 = f32[100,10,20] parameter(0)
    p1 = s32[42,1] parameter(1)
    p2 = f32[42,10,20] parameter(2)
    ROOT s = f32[100,10,20] scatter(p0, p1, p2), update_window_dims={1,2},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
      index_vector_dim=1, to_apply=add
  })";

TEST_CASE("scatter plan: h.11 updates f32[42,10,20]", "[emitters][scatter]") {
  for (const char* device : {"rtx_a6000", "h100"}) {
    INFO(device);
    Planned p = Plan(kScatter, device);
    REQUIRE(p.plan.kind == EmitterKind::kScatter);
    CHECK(p.plan.launch.threads == std::array<int64_t, 3>{128, 1, 1});
    CHECK(p.plan.launch.blocks == std::array<int64_t, 3>{66, 1, 1});
    const RootPlan& r = p.plan.roots[0];
    CHECK_FALSE(r.output_map);
    CHECK_FALSE(r.hero_operand_maps[0]);
    // The scatter operand is written at runtime indices: unknown.
    CHECK(p.plan.parameters[0].unknown_reason);
    // The indices map's symbols come out as (s, chunk_id, unroll_id).
    const IndexingMap& indices = *r.hero_operand_maps[1];
    CHECK(indices.num_symbols() == 3);
    CHECK(indices.SymbolName(1) == "chunk_id");
    CheckWritesEachOnce(*r.hero_operand_maps[2], {42, 10, 20});
  }
}

TEST_CASE("scatter plan: brute force of the indices map",
          "[emitters][scatter]") {
  Planned p = Plan(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p0 = f32[10,6,4] parameter(0)
      p1 = s32[5,2] parameter(1)
      p2 = f32[5,3,4] parameter(2)
      ROOT s = f32[10,6,4] scatter(p0, p1, p2), update_window_dims={1,2},
        inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1},
        index_vector_dim=1, to_apply=add
    })");
  REQUIRE(p.plan.kind == EmitterKind::kScatter);
  const RootPlan& r = p.plan.roots[0];
  const IndexingMap& update = *r.hero_operand_maps[2];
  CheckWritesEachOnce(update, {5, 3, 4});
  // Each update element's thread reads the whole row of its indices.
  std::map<Index, std::set<Index>> rel;
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 4; ++k) rel[{i, j, k}] = {{i, 0}, {i, 1}};
    }
  }
  CHECK(CheckReadsFollow(*r.hero_operand_maps[1], update, rel).size() == 10);
}

TEST_CASE("in-place DUS plan: selection and maps", "[emitters][dus]") {
  const char* kDus = R"(
    ENTRY e {
      p0 = f32[100,20] parameter(0)
      p1 = f32[10,20] parameter(1)
      i = s32[] parameter(2)
      z = s32[] constant(0)
      e = f32[10,20] exponential(p1)
      ROOT d = f32[100,20] dynamic-update-slice(p0, e, i, z)
    })";
  Planned p = Plan(kDus);
  REQUIRE(p.plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice);
  // Over the update: 200 elements, 128 threads x 2 blocks, u = 1.
  CHECK(p.plan.launch.threads == std::array<int64_t, 3>{128, 1, 1});
  CHECK(p.plan.launch.blocks == std::array<int64_t, 3>{2, 1, 1});
  const RootPlan& r = p.plan.roots[0];
  CHECK_FALSE(r.output_map);
  CHECK_FALSE(r.hero_operand_maps[0]);
  CheckWritesEachOnce(*r.hero_operand_maps[1], {10, 20});
  // The updated operand is never read; the update's producer reads p1 once
  // per element; the scalar start index is read by every thread.
  CHECK(p.plan.parameters[0].not_read);
  CHECK(p.plan.parameters[0].maps.empty());
  CheckReadsEachOnce(p.plan.parameters[1].maps, {10, 20});
  REQUIRE(p.plan.parameters[2].maps.size() == 1);
  CHECK(p.plan.parameters[2].maps[0].num_results() == 0);
  // Through a bitcast root, and reading the same slice of p0 in place.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[100,20] parameter(0)
      i = s32[] parameter(1)
      z = s32[] constant(0)
      s = f32[10,20] dynamic-slice(p0, i, z), dynamic_slice_sizes={10,20}
      n = f32[10,20] negate(s)
      d = f32[100,20] dynamic-update-slice(p0, n, i, z)
      ROOT b = f32[2000] bitcast(d)
    })");
  REQUIRE(p.plan.kind == EmitterKind::kInPlaceDynamicUpdateSlice);
  CHECK(p.plan.roots[0].hero->name == "d");
  // p0 is read only through the slice: ten rows from the runtime offset.
  CHECK_FALSE(p.plan.parameters[0].not_read);
  CHECK_FALSE(p.plan.parameters[0].maps.empty());
  // A slice at other indices would race with the update: loop.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[100,20] parameter(0)
      i = s32[] parameter(1)
      j = s32[] parameter(2)
      z = s32[] constant(0)
      s = f32[10,20] dynamic-slice(p0, j, z), dynamic_slice_sizes={10,20}
      d = f32[100,20] dynamic-update-slice(p0, s, i, z)
      ROOT b = f32[2000] bitcast(d)
    })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
  // The updated operand computed in the fusion: loop.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[100,20] parameter(0)
      p1 = f32[10,20] parameter(1)
      i = s32[] parameter(2)
      z = s32[] constant(0)
      x = f32[100,20] exponential(p0)
      ROOT d = f32[100,20] dynamic-update-slice(x, p1, i, z)
    })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
}

const char kSlices[] = R"(
  ENTRY e {
    p0 = f32[10,20] parameter(0)
    a = f32[10,20] exponential(p0)
    s0 = f32[4,20] slice(a), slice={[0:4],[0:20]}
    s1 = f32[6,10] slice(a), slice={[4:10],[5:15]}
    ROOT t = (f32[4,20], f32[6,10]) tuple(s0, s1)
  })";

TEST_CASE("input slices plan: selection and brute force",
          "[emitters][input_slices]") {
  Planned p = Plan(kSlices);
  REQUIRE(p.plan.kind == EmitterKind::kInputSlices);
  // Launched over the operand: 200 elements, 128 x 2.
  CHECK(p.plan.launch.blocks == std::array<int64_t, 3>{2, 1, 1});
  for (const RootPlan& r : p.plan.roots) {
    CHECK_FALSE(r.hero_operand_maps[0]);
    CheckWritesEachOnce(*r.output_map, r.root->shape.dims);
  }
  CheckParametersFollowOutputs(p);
  // A strided slice is no input slice: loop.
  p = Plan(R"(
    ENTRY e {
      p0 = f32[10,20] parameter(0)
      s0 = f32[5,20] slice(p0), slice={[0:10:2],[0:20]}
      s1 = f32[6,10] slice(p0), slice={[4:10],[5:15]}
      ROOT t = (f32[5,20], f32[6,10]) tuple(s0, s1)
    })");
  CHECK(p.plan.kind == EmitterKind::kLoop);
  // Sub-byte outputs: input slices with u = ceil(8 / 4); a single s4 root
  // is a loop.
  p = Plan(R"(
    ENTRY e {
      p0 = s4[10,20] parameter(0)
      s0 = s4[4,20] slice(p0), slice={[0:4],[0:20]}
      s1 = s4[6,20] slice(p0), slice={[4:10],[0:20]}
      ROOT t = (s4[4,20], s4[6,20]) tuple(s0, s1)
    })");
  REQUIRE(p.plan.kind == EmitterKind::kInputSlices);
  CHECK(p.plan.launch.unroll == 2);
  for (const RootPlan& r : p.plan.roots) {
    CheckWritesEachOnce(*r.output_map, r.root->shape.dims);
  }
  CheckParametersFollowOutputs(p);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
