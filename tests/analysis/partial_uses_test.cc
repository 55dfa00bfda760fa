// Partial answers through one mechanism: the emitter plans and every use
// (utilization, tile, coalescing, fusion_cost, fusion_decision) learn which
// fusion parameters are unknown, and why, from
// ComputeFusionParameterIndexingPartial; the other parameters are answered.
#include <set>

#include "analysis/uses/coalescing.h"
#include "analysis/uses/fusion_cost.h"
#include "analysis/uses/fusion_decision.h"
#include "analysis/uses/tiles.h"
#include "analysis/uses/utilization.h"
#include "tests/analysis/emitters_test_util.h"

namespace ixa::testing {
namespace {

// p0 only reaches the root through a custom call; p1 and p2 through ops
// with maps; p2 also feeds the custom call's sibling path.
const char kCustomCallLoop[] = R"(
HloModule m
f {
  p0 = f32[32,64] parameter(0)
  p1 = f32[2048] parameter(1)
  p2 = f32[32,64] parameter(2)
  c = f32[32,64] custom-call(p0), custom_call_target="kernel"
  t = f32[32,64] reshape(p1)
  a = f32[32,64] add(c, t)
  ROOT r = f32[32,64] multiply(a, p2)
}
ENTRY e {
  x = f32[32,64] parameter(0)
  y = f32[2048] parameter(1)
  z = f32[32,64] parameter(2)
  ROOT fu = f32[32,64] fusion(x, y, z), kind=kLoop, calls=f
})";

// A transpose hero next to a custom call: the tile reads p1, the
// epilogue reads p0 through the custom call.
const char kCustomCallTranspose[] = R"(
HloModule m
f {
  p0 = f32[64,32] parameter(0)
  p1 = f32[32,64] parameter(1)
  c = f32[64,32] custom-call(p0), custom_call_target="kernel"
  t = f32[64,32] transpose(p1), dimensions={1,0}
  ROOT a = f32[64,32] add(c, t)
}
ENTRY e {
  x = f32[64,32] parameter(0)
  y = f32[32,64] parameter(1)
  ROOT fu = f32[64,32] fusion(x, y), kind=kInput, calls=f
})";

// A row reduction whose input reads p0 through a custom call: the hero's
// operand path has an op without a map.
const char kCustomCallReduction[] = R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
f {
  p0 = f32[64,1024] parameter(0)
  p1 = f32[64,1024] parameter(1)
  c = f32[64,1024] custom-call(p0), custom_call_target="kernel"
  a = f32[64,1024] add(c, p1)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(a, z), dimensions={1}, to_apply=add
}
ENTRY e {
  x = f32[64,1024] parameter(0)
  y = f32[64,1024] parameter(1)
  ROOT fu = f32[64] fusion(x, y), kind=kInput, calls=f
})";

// The ragged dot has maps for its lhs and its group sizes, none for the
// rhs (the group of a row is decided at run time).
const char kRaggedDot[] = R"(
HloModule ragged_dot
ENTRY main {
  tokens = bf16[64,32] parameter(0)
  experts = bf16[4,32,16] parameter(1)
  group_sizes = s32[4] parameter(2)
  ROOT out = bf16[64,16] ragged-dot(tokens, experts, group_sizes), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})";

// The partial answer every consumer must agree with.
std::vector<PartialIndexing> Partial(const Planned& p) {
  auto partial =
      ComputeFusionParameterIndexingPartial(p.region, 0, p.ctx.get());
  REQUIRE(partial.ok());
  return std::move(partial).value();
}

void ExpectPlanFollowsPartial(const Planned& p,
                              const std::set<std::string>& unknown) {
  const std::vector<PartialIndexing> partial = Partial(p);
  REQUIRE(p.plan.parameters.size() == partial.size());
  for (size_t i = 0; i < partial.size(); ++i) {
    const ParameterPlan& pp = p.plan.parameters[i];
    INFO(pp.name);
    CHECK(partial[i].unknown() == (unknown.count(pp.name) > 0));
    CHECK(pp.unknown_reason.has_value() == partial[i].unknown());
    if (partial[i].unknown()) {
      CHECK(*pp.unknown_reason == partial[i].unknown_reason);
      CHECK(pp.maps.empty());
    } else {
      CHECK_FALSE(pp.maps.empty());
      CHECK_FALSE(pp.coverage_maps.empty());
    }
  }
}

TEST_CASE("plans: unknown parameters as the fusion's partial answer",
          "[partial]") {
  SECTION("loop fusion with a custom call on one path") {
    Planned p = Plan(kCustomCallLoop);
    CHECK(p.plan.kind == EmitterKind::kLoop);
    ExpectPlanFollowsPartial(p, {"p0"});
    CHECK(p.plan.parameters[0].unknown_reason->find("custom-call") !=
          std::string::npos);
  }
  SECTION("transpose fusion with a custom call in the epilogue") {
    Planned p = Plan(kCustomCallTranspose);
    CHECK(p.plan.kind == EmitterKind::kTranspose);
    ExpectPlanFollowsPartial(p, {"p0"});
  }
  SECTION("reduction whose hero operand path has a custom call") {
    Planned p = Plan(kCustomCallReduction);
    CHECK(p.plan.kind == EmitterKind::kReduction);
    ExpectPlanFollowsPartial(p, {"p0"});
  }
  SECTION("ragged dot: the operands with maps are planned") {
    // The plans used to walk one op at a time with the strict per-op maps,
    // which made all three operands unknown.
    Planned p = Plan(kRaggedDot);
    ExpectPlanFollowsPartial(p, {"experts"});
  }
}

}  // namespace
}  // namespace ixa::testing
