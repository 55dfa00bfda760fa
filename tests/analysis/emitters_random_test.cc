// Randomly generated small fusions (fixed seed; sizes 0 and 1 included):
// planning, coalescing and cost never crash and fail only with a clear
// error; loop-like plans pass the brute-force checks, and every plan's
// parameter maps read within the parameters' bounds.
#include <catch2/catch.hpp>
#include <random>

#include "analysis/uses/coalescing.h"
#include "analysis/uses/fusion_cost.h"
#include "tests/analysis/emitters_test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

int64_t Pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    s += (i ? "," : "") + std::to_string(d[i]);
  }
  return s + "]";
}

// A fusion of one of several shapes of computation over random sizes.
std::string RandomFusion(std::mt19937_64& rng) {
  const char* kAdd =
      "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b) }\n";
  auto size = [&]() {
    const int64_t r = Pick(rng, 0, 9);
    return r == 0 ? 0 : r == 1 ? 1 : Pick(rng, 2, r < 6 ? 9 : 40);
  };
  const int64_t a = size(), b = size(), c = size();
  const std::string s3 = Dims({a, b, c});
  switch (Pick(rng, 0, 6)) {
    case 0:  // elementwise + broadcast
      return "ENTRY e {\n p0 = f32" + s3 + " parameter(0)\n p1 = f32" +
             Dims({c}) + " parameter(1)\n x = f32" + s3 +
             " broadcast(p1), dimensions={2}\n ROOT m = f32" + s3 +
             " multiply(p0, x)\n}";
    case 1:  // transpose behind exp
      return "ENTRY e {\n p0 = f32" + s3 + " parameter(0)\n x = f32" + s3 +
             " exponential(p0)\n ROOT t = f32" + Dims({a, c, b}) +
             " transpose(x), dimensions={0,2,1}\n}";
    case 2: {  // reduce over a random dim
      const int64_t dim = Pick(rng, 0, 2);
      std::vector<int64_t> kept;
      for (int64_t i = 0; i < 3; ++i) {
        if (i != dim) kept.push_back(std::vector<int64_t>{a, b, c}[i]);
      }
      return std::string(kAdd) + "ENTRY e {\n p0 = f32" + s3 +
             " parameter(0)\n z = f32[] constant(0)\n ROOT r = f32" +
             Dims(kept) + " reduce(p0, z), dimensions={" + std::to_string(dim) +
             "}, to_apply=add\n}";
    }
    case 3:  // concatenate
      return "ENTRY e {\n p0 = f32" + s3 + " parameter(0)\n p1 = f32" +
             Dims({a, b, 3}) + " parameter(1)\n ROOT c = f32" +
             Dims({a, b, c + 3}) + " concatenate(p0, p1), dimensions={2}\n}";
    case 4:  // slices of one operand
      return "ENTRY e {\n p0 = f32" + Dims({a + 2, b}) +
             " parameter(0)\n s0 = f32" + Dims({1, b}) +
             " slice(p0), slice={[0:1],[0:" + std::to_string(b) +
             "]}\n s1 = f32" + Dims({a + 1, b}) +
             " slice(p0), slice={[1:" + std::to_string(a + 2) +
             "],[0:" + std::to_string(b) + "]}\n ROOT t = (f32" + Dims({1, b}) +
             ", f32" + Dims({a + 1, b}) + ") tuple(s0, s1)\n}";
    case 5:  // dynamic-update-slice in place
      return "ENTRY e {\n p0 = f32" + Dims({a + 1, b}) +
             " parameter(0)\n p1 = f32" + Dims({1, b}) +
             " parameter(1)\n i = s32[] parameter(2)\n z = s32[] "
             "constant(0)\n ROOT d = f32" +
             Dims({a + 1, b}) + " dynamic-update-slice(p0, p1, i, z)\n}";
    default:  // a layout-changing copy
      return "ENTRY e {\n p0 = f32" + Dims({a, b}) +
             "{1,0} parameter(0)\n ROOT c = f32" + Dims({a, b}) +
             "{0,1} copy(p0)\n}";
  }
}

TEST_CASE("emitter plans: random small fusions", "[emitters][random]") {
  std::mt19937_64 rng(20240801);
  const int count = std::getenv("IXA_SANITIZED") ? 60 : 300;
  std::map<EmitterKind, int> kinds;
  for (int n = 0; n < count; ++n) {
    const std::string hlo = RandomFusion(rng);
    INFO(hlo);
    auto module = ParseOrDie(hlo);
    auto region = ResolveFusion(*module, "");
    REQUIRE(region.ok());
    for (const hw::Device& device : {*hw::FindDevice("h100"), TinyGpu()}) {
      ExprContext ctx;
      auto plan = ComputeEmitterPlan(*region, device, &ctx);
      if (!plan.ok()) {
        // Only refusals with a reason, never a crash or an internal error.
        CHECK(plan.error().code != ErrorCode::kInternal);
        CHECK_FALSE(plan.error().message.empty());
        continue;
      }
      ++kinds[plan->kind];
      // Every parameter map reads inside its parameter.
      for (size_t i = 0; i < region->parameters.size(); ++i) {
        const std::vector<int64_t>& dims = region->parameters[i]->shape.dims;
        for (const IndexingMap& m : plan->parameters[i].maps) {
          if (m.num_rt_vars() > 0) continue;
          ForEachPoint(m, [&](const Point&, const Index& in) {
            for (size_t k = 0; k < in.size(); ++k) {
              REQUIRE(in[k] >= 0);
              REQUIRE(in[k] < dims[k]);
            }
          });
        }
      }
      if (plan->kind == EmitterKind::kLoop ||
          plan->kind == EmitterKind::kInputSlices) {
        Planned p;
        p.region = *region;
        p.plan = *plan;
        CheckLoopLikePlan(p);
      }
      auto coalescing = AnalyzeCoalescing(*region, device, {}, &ctx);
      REQUIRE(coalescing.ok());
      auto cost = EstimateFusionCost(*region, device, &ctx);
      REQUIRE(cost.ok());
    }
  }
  // The generator reaches most kinds.
  CHECK(kinds.size() >= 5);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
