// Plans that always emit: random modules (2 to 500 instructions, long
// reductions and dots among them) go through the pre-fusion pipeline and
// XLA's priority fusion, and every fusion of the plan is generated for
// `cpp` and `cuda`. A fusion whose root is a reduce the reduction
// emitter takes must be kInput.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <random>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/prefusion/prefusion.h"
#include "analysis/uses/fusion_plan.h"
#include "emit/pipeline.h"
#include "hw/device.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

// A random module over f32[4,20000] (rows past the race-free bound),
// f32[5000,8] (a long column), f32[32,64] / f32[64,32] (dots) and their
// reductions: elementwise ops, broadcasts, reduces, transposes and dots.
std::string RandomPlanModule(std::mt19937_64& rng, int ops) {
  std::map<std::string, std::vector<std::string>> pool;
  std::string body;
  int n = 0;
  auto pick = [&](const std::string& shape) {
    const auto& v = pool[shape];
    return v[rng() % v.size()];
  };
  auto define = [&](const std::string& shape, const std::string& rhs) {
    const std::string name = "v" + std::to_string(n++);
    body += "  " + name + " = " + shape + " " + rhs + "\n";
    pool[shape].push_back(name);
    return name;
  };
  const std::string R = "f32[4,20000]", C = "f32[5000,8]", A = "f32[32,64]",
                    B = "f32[64,32]", D = "f32[32,32]", R4 = "f32[4]",
                    C8 = "f32[8]", S = "f32[]";
  define(R, "parameter(0)");
  define(C, "parameter(1)");
  define(A, "parameter(2)");
  define(B, "parameter(3)");
  define(S, "constant(0)");
  define(R4, "parameter(4)");
  define(C8, "parameter(5)");
  const char* unary[] = {"exponential", "negate", "log", "abs", "tanh"};
  const char* binary[] = {"add", "multiply", "subtract", "maximum"};
  for (int i = 0; i < ops; ++i) {
    const int kind = static_cast<int>(rng() % 10);
    const std::string& shape = kind % 2 ? R : C;
    switch (kind) {
      case 0:
      case 1:
        define(shape, std::string(unary[rng() % 5]) + "(" + pick(shape) + ")");
        break;
      case 2:
      case 3:
        define(shape, std::string(binary[rng() % 4]) + "(" + pick(shape) +
                          ", " + pick(shape) + ")");
        break;
      case 4:
        define(R4, "reduce(" + pick(R) + ", " + pick(S) +
                       "), dimensions={1}, to_apply=add");
        break;
      case 5:
        define(C8, "reduce(" + pick(C) + ", " + pick(S) +
                       "), dimensions={0}, to_apply=add");
        break;
      case 6:
        rng() % 2 ? define(R, "broadcast(" + pick(R4) + "), dimensions={0}")
                  : define(C, "broadcast(" + pick(C8) + "), dimensions={1}");
        break;
      case 7:
        define(D, "dot(" + pick(A) + ", " + pick(B) +
                      "), lhs_contracting_dims={1}, "
                      "rhs_contracting_dims={0}");
        break;
      case 8:
        define(A, "exponential(" + pick(A) + ")");
        break;
      default:
        define(S, "reduce(" + pick(C8) + ", " + pick(S) +
                      "), dimensions={0}, to_apply=add");
        break;
    }
  }
  // The root: the newest value of each shape, so nothing is dead.
  std::string shapes, names;
  for (const auto& [shape, values] : pool) {
    shapes += (shapes.empty() ? "" : ", ") + shape;
    names += (names.empty() ? "" : ", ") + values.back();
  }
  return "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
         "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n" +
         body + "  ROOT root = (" + shapes + ") tuple(" + names + ")\n}\n";
}

TEST_CASE("emit plans: every fusion of a planned random module emits",
          "[emit_plan_all]") {
  std::mt19937_64 rng(20261207);
  const hw::Device h100 = *hw::FindDevice("h100");
  const int rounds = std::getenv("IXA_SANITIZED") ? 3 : 8;
  int fusions = 0, reductions = 0;
  for (int round = 0; round < rounds; ++round) {
    const int ops = round == 0 ? 2 : 2 + static_cast<int>(rng() % 499);
    const std::string text = RandomPlanModule(rng, ops);
    INFO(text);
    auto module = hlo::ParseHloModule(text);
    INFO((module.ok() ? std::string() : module.error().ToString()));
    REQUIRE(module.ok());
    auto prefused = RunPrefusion(**module);
    REQUIRE(prefused.ok());
    ExprContext ctx;
    FusionPlanOptions options;
    options.model = CostModel::kXla;
    auto plan = PlanFusions(prefused->Output(**module), h100, options, &ctx);
    INFO((plan.ok() ? std::string() : plan.error().ToString()));
    REQUIRE(plan.ok());
    INFO(plan->module_text);
    auto fused = hlo::ParseHloModule(plan->module_text);
    REQUIRE(fused.ok());
    for (const hlo::Instruction* i : (*fused)->entry()->post_order()) {
      if (i->opcode != hlo::Opcode::kFusion) continue;
      ++fusions;
      // A reduce the reduction emitter takes makes the fusion kInput (a
      // small one, which XLA emits as a loop, may stay kLoop).
      if (IsContiguousReduction(*i->called()->root())) {
        ++reductions;
        CHECK(i->Attribute("kind") == "kInput");
      }
      auto region = ResolveFusion(**fused, i->name);
      REQUIRE(region.ok());
      for (emit::Target target : {emit::Target::kCpp, emit::Target::kCuda}) {
        emit::EmitOptions emit_options;
        emit_options.target = target;
        ExprContext emit_ctx;
        auto code = emit::EmitFusion(*region, h100, emit_options, &emit_ctx);
        INFO(i->name << " for " << emit::TargetName(target) << ": "
                     << (code.ok() ? "ok" : code.error().ToString()));
        CHECK(code.ok());
      }
    }
  }
  CHECK(fusions > 0);
  CHECK(reductions > 0);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
