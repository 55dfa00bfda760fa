// fusion_plan (analysis/uses/fusion_plan): XLA's priority fusion over
// random unfused modules of 2 to 50 ops. The fused module must read back,
// compute what the input computes (both run by the reference interpreter
// on random inputs), and hold no fusion XLA's rules forbid.
#include "analysis/uses/fusion_plan.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>

#include "analysis/emitters/plan.h"
#include "analysis/uses/fusion_decision.h"
#include "tests/analysis/reference_interpreter.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

// A random module of `ops` instructions over f32[8,16], f32[16,8], f32[8],
// f32[16] and scalars: elementwise ops, broadcasts, reductions,
// transposes, slices, concatenations, reshapes, dynamic updates, bitcasts,
// scalar constants and the odd dot (never fusible).
std::string RandomModule(std::mt19937_64& rng, int ops) {
  std::map<std::string, std::vector<std::string>> pool;
  std::string body;
  int n = 0;
  auto fresh = [&]() { return "v" + std::to_string(n++); };
  auto pick = [&](const std::string& shape) {
    const auto& v = pool[shape];
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  };
  auto define = [&](const std::string& shape, const std::string& rhs) {
    const std::string name = fresh();
    body += "  " + name + " = " + shape + " " + rhs + "\n";
    pool[shape].push_back(name);
    return name;
  };
  const std::string M = "f32[8,16]", T = "f32[16,8]", R = "f32[8]",
                    C = "f32[16]", S = "f32[]";
  define(M, "parameter(0)");
  define(M, "parameter(1)");
  define(R, "parameter(2)");
  define(C, "parameter(3)");
  define(S, "constant(2)");
  const char* unary[] = {"exponential", "negate", "log", "abs", "tanh"};
  const char* binary[] = {"add", "multiply", "subtract", "maximum"};
  std::string last;
  for (int i = 0; i < ops; ++i) {
    const int kind = std::uniform_int_distribution<int>(0, 13)(rng);
    const std::string shape = pool[T].empty() || kind % 2 ? M : T;
    switch (kind) {
      case 0:
      case 1:
      case 2:
        last = define(shape,
                      std::string(unary[rng() % 5]) + "(" + pick(shape) + ")");
        break;
      case 3:
      case 4:
      case 5:
        last = define(shape, std::string(binary[rng() % 4]) + "(" +
                                 pick(shape) + ", " + pick(shape) + ")");
        break;
      case 6:
        last = rng() % 2
                   ? define(M, "broadcast(" + pick(R) + "), dimensions={0}")
                   : define(M, "broadcast(" + pick(C) + "), dimensions={1}");
        break;
      case 7:
        last = rng() % 2 ? define(R, "reduce(" + pick(M) + ", " + pick(S) +
                                         "), dimensions={1}, to_apply=add")
                         : define(C, "reduce(" + pick(M) + ", " + pick(S) +
                                         "), dimensions={0}, to_apply=add");
        break;
      case 8:
        last = define(T, "transpose(" + pick(M) + "), dimensions={1,0}");
        break;
      case 9: {
        const std::string half =
            define("f32[8,8]", "slice(" + pick(M) + "), slice={[0:8], [" +
                                   (rng() % 2 ? "0:8" : "8:16") + "]}");
        last = define(
            M, "concatenate(" + half + ", " + half + "), dimensions={1}");
        break;
      }
      case 10:
        last = define(T, "reshape(" + pick(M) + ")");
        break;
      case 11: {
        const std::string row = define(
            "f32[1,16]", "slice(" + pick(M) + "), slice={[3:4], [0:16]}");
        const std::string i =
            define("s32[]", "constant(" + std::to_string(rng() % 8) + ")");
        const std::string z = define("s32[]", "constant(0)");
        last = define(M, "dynamic-update-slice(" + pick(M) + ", " + row + ", " +
                             i + ", " + z + ")");
        break;
      }
      case 12:
        last = define("f32[128]", "bitcast(" + pick(M) + ")");
        last = define("f32[128]", "negate(" + last + ")");
        break;
      case 13:
        if (rng() % 4 == 0 && !pool[T].empty()) {
          const std::string d =
              define("f32[16,16]", "dot(" + pick(T) + ", " + pick(M) +
                                       "), lhs_contracting_dims={1}, "
                                       "rhs_contracting_dims={0}");
          last = define(M, "slice(" + d + "), slice={[0:8], [0:16]}");
        } else {
          last = define(S, "constant(" + std::to_string(rng() % 5) + ")");
        }
        break;
    }
  }
  // The root: a tuple of a few values (some unused values stay dead).
  std::string root = "ROOT out = (" + M + ", " + M + ", " + R + ") tuple(" +
                     pick(M) + ", " + pick(M) + ", " + pick(R) + ")";
  return "HloModule random\nadd { a = f32[] parameter(0)\n b = f32[] "
         "parameter(1)\n ROOT s = f32[] add(a, b) }\nENTRY e {\n" +
         body + "  " + root + "\n}\n";
}

std::vector<testing::Tensor> RandomInputs(const hlo::Computation& entry,
                                          std::mt19937_64& rng) {
  std::vector<testing::Tensor> params(entry.parameter_count());
  for (int64_t i = 0; i < entry.parameter_count(); ++i) {
    const hlo::Shape& s = entry.parameter(i)->shape;
    testing::Tensor t{s.dims, std::vector<int64_t>(testing::Count(s.dims))};
    for (int64_t& x : t.data) x = static_cast<int64_t>(rng() % 1000) - 500;
    params[i] = std::move(t);
  }
  return params;
}

bool IsSignificantReduce(const hlo::Instruction& i) {
  if (i.opcode != hlo::Opcode::kReduce || !i.shape.IsArray()) return false;
  const int64_t out = i.shape.ElementCount();
  return out > 0 && i.operand(0)->shape.ElementCount() / out >= 16;
}

// XLA's rules, checked on the result: every fused instruction fusible, at
// most one significant reduce per kernel, the operand budget, the root not
// fused as a producer.
void CheckNoIllegalFusion(const hlo::Module& fused) {
  const hlo::Opcode never[] = {
      hlo::Opcode::kDot,   hlo::Opcode::kCustomCall,      hlo::Opcode::kSort,
      hlo::Opcode::kTuple, hlo::Opcode::kGetTupleElement, hlo::Opcode::kWhile};
  for (const hlo::Instruction* i : fused.entry()->post_order()) {
    if (i->opcode != hlo::Opcode::kFusion) continue;
    const hlo::Computation& body = *i->called();
    CHECK(i->operand_count() <= 96);
    int significant = 0;
    for (const hlo::Instruction* m : body.post_order()) {
      for (hlo::Opcode op : never) {
        INFO(m->name << " in " << body.name());
        CHECK(m->opcode != op);
      }
      significant += IsSignificantReduce(*m);
    }
    CHECK(significant <= 1);
  }
}

void CheckPlan(const std::string& hlo, CostModel model, std::mt19937_64& rng) {
  INFO(hlo);
  auto module = ParseOrDie(hlo);
  ExprContext ctx;
  FusionPlanOptions options;
  options.model = model;
  auto plan = PlanFusions(*module, *hw::FindDevice("h100"), options, &ctx);
  INFO((plan.ok() ? "" : plan.error().ToString()));
  REQUIRE(plan.ok());
  INFO(plan->module_text);
  auto fused = hlo::ParseHloModule(plan->module_text);
  REQUIRE(fused.ok());
  CheckNoIllegalFusion(**fused);
  CHECK(plan->kernels_after <= plan->kernels_before);
  for (int trial = 0; trial < 2; ++trial) {
    const auto inputs = RandomInputs(*module->entry(), rng);
    testing::Interpreter a, b;
    const auto want = a.Run(*module->entry(), inputs);
    const auto got = b.Run(*(*fused)->entry(), inputs);
    REQUIRE(want.size() == got.size());
    for (size_t k = 0; k < want.size(); ++k) {
      CHECK(want[k].dims == got[k].dims);
      CHECK(want[k].data == got[k].data);
    }
  }
}

TEST_CASE("fusion plan: random modules stay equivalent and legal",
          "[uses][plan]") {
  std::mt19937_64 rng(20260822);
  // A quarter of the rounds in the sanitizer pass (IXA_SANITIZED=1).
  const int rounds = std::getenv("IXA_SANITIZED") ? 10 : 40;
  for (int round = 0; round < rounds; ++round) {
    const int ops = 2 + static_cast<int>(rng() % 49);
    const std::string hlo = RandomModule(rng, ops);
    for (CostModel model : {CostModel::kXla, CostModel::kIxa}) {
      CheckPlan(hlo, model, rng);
    }
  }
}

TEST_CASE("fusion plan: what XLA would do", "[uses][plan]") {
  ExprContext ctx;
  const hw::Device h100 = *hw::FindDevice("h100");
  FusionPlanOptions xla;
  xla.model = CostModel::kXla;
  // An elementwise chain and a row reduction become one kernel; the dot
  // stays alone; a scalar constant is fused at the end.
  auto module = ParseOrDie(R"(
    HloModule m
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p = f32[256,256] parameter(0)
      q = f32[256,256] parameter(1)
      d = f32[256,256] dot(p, q), lhs_contracting_dims={1},
                                  rhs_contracting_dims={0}
      l = f32[256,256] log(d)
      x = f32[256,256] exponential(l)
      z = f32[] constant(0)
      ROOT r = f32[256] reduce(x, z), dimensions={1}, to_apply=add
    })");
  auto plan = PlanFusions(*module, h100, xla, &ctx);
  REQUIRE(plan.ok());
  INFO(plan->module_text);
  CHECK(plan->kernels_before == 4);
  CHECK(plan->kernels_after == 2);
  REQUIRE(plan->steps.size() == 3);
  CHECK(plan->steps[0].kind == "fuse");
  CHECK(plan->steps.back().kind == "constant");
  CHECK(plan->steps.back().producer == "z");
  CHECK(plan->refusals.at("not_fusible") == 1);
  CHECK(plan->time_after_us < plan->time_before_us);
  auto fused = ParseOrDie(plan->module_text);
  const hlo::Instruction* root = fused->entry()->root();
  CHECK(root->opcode == hlo::Opcode::kFusion);
  CHECK(root->Attribute("kind") == "kInput");
  CHECK(root->operand(0)->opcode == hlo::Opcode::kDot);
  // A bitcast producer fuses first, wherever it may.
  module = ParseOrDie(R"(
    ENTRY e {
      p = f32[64,64] parameter(0)
      b = f32[4096] bitcast(p)
      ROOT n = f32[4096] negate(b)
    })");
  plan = PlanFusions(*module, h100, xla, &ctx);
  REQUIRE(plan.ok());
  REQUIRE(plan->steps.size() == 1);
  CHECK(plan->steps[0].kind == "bitcast");
  CHECK_FALSE(plan->steps[0].priority_us);
}

// A bitcast that changes the bit width (s8[3,5,2] -> s16[3,5]) is no
// fusible bitcast in XLA: an ordinary user that cannot fuse, so the
// producer it reads is fused nowhere, and it does not fuse itself.
TEST_CASE("fusion plan: a bitcast no user may take waits and the plan ends",
          "[uses][plan]") {
  // The bitcast's only user is the root tuple, which takes no fusion: the
  // planner must not pick it again and again (it did, forever, before).
  const hw::Device h100 = *hw::FindDevice("h100");
  ExprContext ctx;
  auto module = ParseOrDie(R"(
    add {
      a = f32[] parameter(0)
      b = f32[] parameter(1)
      ROOT s = f32[] add(a, b)
    }
    fused_bitcast_reduce {
      p0 = f32[64,32,128] parameter(0)
      z = f32[] constant(0)
      r = f32[64,32] reduce(p0, z), dimensions={2}, to_apply=add
      ROOT bc = f32[2048] bitcast(r)
    }
    ENTRY e {
      a = f32[64,32,128] parameter(0)
      f = f32[2048] fusion(a), kind=kInput, calls=fused_bitcast_reduce
      n = f32[64,32,128] negate(a)
      ROOT t = (f32[2048], f32[64,32,128]) tuple(f, n)
    })");
  for (CostModel model : {CostModel::kXla, CostModel::kIxa}) {
    FusionPlanOptions options;
    options.model = model;
    auto plan = PlanFusions(*module, h100, options, &ctx);
    REQUIRE(plan.ok());
    INFO(plan->module_text);
    CHECK(plan->steps.size() <= 4);
    for (const FusionStep& step : plan->steps) CHECK_FALSE(step.into.empty());
  }
}

TEST_CASE("fusion plan: a bitcast between bit widths does not fuse",
          "[uses][plan]") {
  const hw::Device h100 = *hw::FindDevice("h100");
  ExprContext ctx;
  auto module = ParseOrDie(R"(
    ENTRY e {
      p = s8[3,5,2] parameter(0)
      n = s8[3,5,2] negate(p)
      a = s8[3,5,2] add(n, n)
      b = s16[3,5] bitcast(n)
      m = s16[3,5] negate(b)
      ROOT t = (s8[3,5,2], s16[3,5]) tuple(a, m)
    })");
  for (CostModel model : {CostModel::kXla, CostModel::kIxa}) {
    FusionPlanOptions plan_options;
    plan_options.model = model;
    auto plan = PlanFusions(*module, h100, plan_options, &ctx);
    REQUIRE(plan.ok());
    INFO(plan->module_text);
    for (const FusionStep& step : plan->steps) {
      CHECK(step.producer != "n");
      CHECK(step.producer != "b");
    }
    DecisionOptions options;
    options.model = model;
    auto d = DecideFusion(*module, "n", options, h100, &ctx);
    REQUIRE(d.ok());
    CHECK_FALSE(d->legal);
    CHECK(d->rule == "not_fusible");
  }
  // The same with a bitcast that keeps the width: the producer fuses into
  // its other user, the bitcast skipped.
  auto same = ParseOrDie(R"(
    ENTRY e {
      p = s8[3,5,2] parameter(0)
      n = s8[3,5,2] negate(p)
      a = s8[3,5,2] add(n, n)
      b = s8[30] bitcast(n)
      m = s8[30] negate(b)
      ROOT t = (s8[3,5,2], s8[30]) tuple(a, m)
    })");
  DecisionOptions options;
  options.model = CostModel::kXla;
  auto d = DecideFusion(*same, "n", options, h100, &ctx);
  REQUIRE(d.ok());
  CHECK(d->legal);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
