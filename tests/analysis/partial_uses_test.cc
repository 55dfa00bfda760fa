// Partial answers through one mechanism: the emitter plans and every use
// (utilization, tile, coalescing, fusion_cost, fusion_decision) learn which
// fusion parameters are unknown, and why, from
// ComputeFusionParameterIndexingPartial; the other parameters are answered.
#include <map>
#include <set>

#include "analysis/uses/coalescing.h"
#include "analysis/uses/fusion_cost.h"
#include "analysis/uses/fusion_decision.h"
#include "analysis/uses/tiles.h"
#include "analysis/uses/utilization.h"
#include "tests/analysis/emitters_test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

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

// The uses' unknown lists: {parameter index: reason}.
std::map<int, std::string> Unknown(const std::vector<UnknownOperand>& list) {
  std::map<int, std::string> out;
  for (const UnknownOperand& u : list) {
    CHECK(out.emplace(u.parameter, u.reason).second);  // listed once
  }
  return out;
}

std::map<int, std::string> PartialUnknown(const Planned& p) {
  std::map<int, std::string> out;
  const std::vector<PartialIndexing> partial = Partial(p);
  for (size_t i = 0; i < partial.size(); ++i) {
    if (partial[i].unknown()) out[int(i)] = partial[i].unknown_reason;
  }
  return out;
}

TEST_CASE("uses: one set of unknown parameters, with the same reasons",
          "[partial]") {
  Planned p = Plan(kCustomCallLoop);
  ExprContext* ctx = p.ctx.get();
  const std::map<int, std::string> want = PartialUnknown(p);
  REQUIRE(want.size() == 1);
  REQUIRE(want.count(0));
  CHECK(want.at(0).find("'custom-call' ('c')") != std::string::npos);
  const hw::Device h100 = *hw::FindDevice("h100");

  auto util = AnalyzeUtilization(p.region, ctx);
  REQUIRE(util.ok());
  CHECK(Unknown(util->unknown) == want);
  REQUIRE(util->operands.size() == 2);
  CHECK(util->operands[0].name == "p1");
  CHECK(util->operands[0].elements_read == 2048);
  CHECK(util->operands[1].name == "p2");
  CHECK(util->operands[1].reads == 2048);
  // The strict form still refuses, naming the op.
  auto strict = ComputeUtilization(p.region, ctx);
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().code == ErrorCode::kUnsupported);
  CHECK(strict.error().message == want.at(0));

  auto tiles = ComputeParameterTilesPartial(p.region, 0, {}, ctx);
  REQUIRE(tiles.ok());
  CHECK(Unknown(tiles->unknown) == want);
  std::set<std::string> tiled;
  for (const OperandTile& t : tiles->tiles) tiled.insert(t.name);
  CHECK(tiled == std::set<std::string>{"p1", "p2"});

  CoalescingOptions options;
  auto coalescing = AnalyzeCoalescing(p.region, h100, options, ctx);
  REQUIRE(coalescing.ok());
  CHECK(Unknown(coalescing->unknown) == want);
  CHECK(coalescing->operands.size() == 2);
  options.tile_sizes = {4, 64};
  auto tiled_coalescing = AnalyzeCoalescing(p.region, h100, options, ctx);
  REQUIRE(tiled_coalescing.ok());
  CHECK(Unknown(tiled_coalescing->unknown) == want);
  CHECK(tiled_coalescing->operands.size() == 2);

  auto cost = EstimateFusionCost(p.region, h100, ctx);
  REQUIRE(cost.ok());
  CHECK(Unknown(cost->unknown) == want);
  // The add and the multiply are counted; the custom call's own work is
  // named as missing.
  CHECK(cost->flops == 2 * 2048);
  REQUIRE(cost->flops_unknown);
  CHECK(cost->flops_unknown->find("'c'") != std::string::npos);
}

TEST_CASE("uses: a loop, a tuple parameter and a transfer inside a fusion",
          "[partial]") {
  Planned p = Plan(R"(
HloModule m
cond {
  s = (s32[], f32[128]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[128]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[128] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[128] negate(v)
  ROOT t = (s32[], f32[128]) tuple(j, w)
}
f {
  x = f32[128] parameter(0)
  y = f32[128] parameter(1)
  q = (f32[128], f32[128]) parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[128]) tuple(zero, x)
  loop = (s32[], f32[128]) while(init), condition=cond, body=body
  out = f32[128] get-tuple-element(loop), index=1
  q1 = f32[128] get-tuple-element(q), index=1
  a = f32[128] add(out, y)
  ROOT r = f32[128] add(a, q1)
}
ENTRY e {
  x = f32[128] parameter(0)
  y = f32[128] parameter(1)
  q = (f32[128], f32[128]) parameter(2)
  ROOT fu = f32[128] fusion(x, y, q), kind=kLoop, calls=f
})");
  ExprContext* ctx = p.ctx.get();
  const std::map<int, std::string> want = PartialUnknown(p);
  REQUIRE(want.size() == 1);
  CHECK(want.at(0).find("'while' ('loop')") != std::string::npos);
  auto util = AnalyzeUtilization(p.region, ctx);
  REQUIRE(util.ok());
  // The tuple parameter has maps (through get-tuple-element) but no
  // element count of its own.
  std::map<int, std::string> util_want = want;
  util_want[2] = "not an array ((f32[128], f32[128]))";
  CHECK(Unknown(util->unknown) == util_want);
  REQUIRE(util->operands.size() == 1);
  CHECK(util->operands[0].name == "y");
  auto tiles = ComputeParameterTilesPartial(p.region, 0, {}, ctx);
  REQUIRE(tiles.ok());
  CHECK(Unknown(tiles->unknown) == want);
  const hw::Device h100 = *hw::FindDevice("h100");
  auto cost = EstimateFusionCost(p.region, h100, ctx);
  REQUIRE(cost.ok());
  CHECK(cost->unknown.size() == 2);  // the while's state and the tuple
  REQUIRE(cost->flops_unknown);
  CHECK(cost->flops_unknown->find("'loop'") != std::string::npos);
  CHECK(cost->flops == 2 * 128);
}

TEST_CASE("fusion decision: an unknown path in the producer or consumer",
          "[partial]") {
  const hw::Device h100 = *hw::FindDevice("h100");
  // The producer reads p0 through a custom call, p1 directly: fused, only
  // p0 is unknown; p1 is read through the consumer's plan.
  auto module = ParseOrDie(R"(
HloModule m
fp {
  a = f32[256,256] parameter(0)
  b = f32[256,256] parameter(1)
  c = f32[256,256] custom-call(a), custom_call_target="kernel"
  ROOT x = f32[256,256] add(c, b)
}
fc {
  u = f32[256,256] parameter(0)
  ROOT t = f32[256,256] transpose(u), dimensions={1,0}
}
ENTRY e {
  p0 = f32[256,256] parameter(0)
  p1 = f32[256,256] parameter(1)
  x = f32[256,256] fusion(p0, p1), kind=kLoop, calls=fp
  ROOT t = f32[256,256] fusion(x), kind=kInput, calls=fc
})");
  ExprContext ctx;
  DecisionOptions options;
  options.consumer = "t";
  auto d = DecideFusion(*module, "x", options, h100, &ctx);
  INFO((d.ok() ? "" : d.error().ToString()));
  REQUIRE(d.ok());
  // Unfused: the producer kernel lists its operand p0 (parameter a of its
  // fused computation) as unknown, the consumer nothing.
  const ConsumerDecision* c = d->first();
  REQUIRE(c);
  REQUIRE(d->producer.unknown.size() == 1);
  CHECK(d->producer.unknown[0].name == "p0");
  CHECK(c->unfused.unknown.empty());
  REQUIRE(d->producer.flops_unknown);
  CHECK(c->fused.flops_unknown);
  // Fused: p0 unknown (read whole), p1 read through the transpose plan.
  REQUIRE(c->fused.unknown.size() == 1);
  CHECK(c->fused.unknown[0].name == "p0");
  CHECK(c->fused.unknown[0].reason == d->producer.unknown[0].reason);
  REQUIRE(c->fused.coalescing.size() == 1);
  CHECK(c->fused.coalescing[0].name == "p1");
  CHECK(c->fused.bytes_read == 2 * 256 * 256 * 4);
  CHECK(c->recompute_factor == 1.0);

  // The consumer fusion reads p1 through a custom call: p1 is unknown in
  // both kernels that read it, the producer's reads stay exact.
  module = ParseOrDie(R"(
HloModule m
fc {
  u = f32[64,64] parameter(0)
  v = f32[64,64] parameter(1)
  c = f32[64,64] custom-call(v), custom_call_target="kernel"
  ROOT y = f32[64,64] add(u, c)
}
ENTRY e {
  p0 = f32[64,64] parameter(0)
  p1 = f32[64,64] parameter(1)
  x = f32[64,64] exponential(p0)
  ROOT y = f32[64,64] fusion(x, p1), kind=kLoop, calls=fc
})");
  options.consumer = "y";
  d = DecideFusion(*module, "x", options, h100, &ctx);
  INFO((d.ok() ? "" : d.error().ToString()));
  REQUIRE(d.ok());
  c = d->first();
  REQUIRE(c);
  REQUIRE(c->unfused.unknown.size() == 1);
  CHECK(c->unfused.unknown[0].name == "p1");
  REQUIRE(c->fused.unknown.size() == 1);
  CHECK(c->fused.unknown[0].name == "p1");
  CHECK(c->fused.unknown[0].reason == c->unfused.unknown[0].reason);
  REQUIRE(c->fused.coalescing.size() == 1);
  CHECK(c->fused.coalescing[0].name == "p0");
  CHECK(c->producer_reads == 64 * 64);
  CHECK(c->recompute_factor == 1.0);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
