// fusion_plan's structural cost caches (analysis/uses/fusion_plan_cache):
// the key of a group of instructions ignores names and nothing else, and a
// plan made with the caches is the plan made without them, on modules
// whose repeated blocks have other names and other positions.
#include "analysis/uses/fusion_plan_cache.h"

#include <catch2/catch.hpp>
#include <random>

#include "analysis/uses/fusion_plan.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

std::vector<const hlo::Instruction*> Members(
    const hlo::Module& module, std::initializer_list<const char*> names) {
  std::vector<const hlo::Instruction*> out;
  for (const char* name : names) {
    const hlo::Instruction* i = module.entry()->Find(name);
    REQUIRE(i != nullptr);
    out.push_back(i);
  }
  return out;
}

TEST_CASE("fusion plan cache: keys see structure, not names", "[uses][plan]") {
  auto module = ParseOrDie(R"(
    ENTRY e {
      p = f32[8,16] parameter(0)
      x = f32[8,16] negate(p)
      y = f32[8,16] negate(p)
      a1 = f32[8,16] exponential(x)
      b1 = f32[8,16] add(a1, y)
      other_name = f32[8,16] exponential(y)
      b2 = f32[8,16] add(other_name, x)
      a3 = f32[8,16] exponential(x)
      b3 = f32[8,16] add(a3, a3)
      a4 = f32[8,16]{0,1} exponential(x)
      b4 = f32[8,16] add(a4, y)
      a5 = f32[8,16] exponential(x)
      b5 = f32[8,16] multiply(a5, y)
      a6 = f32[8,16] exponential(x)
      b6 = f32[8,16] add(y, a6)
      k1 = f32[] constant(1)
      c1 = f32[8,16] broadcast(k1), dimensions={}
      k2 = f32[] constant(2)
      c2 = f32[8,16] broadcast(k2), dimensions={}
      k3 = f32[] constant(1)
      c3 = f32[8,16] broadcast(k3), dimensions={}
      s = f32[8,16] add(c1, c2)
      ROOT t = (f32[8,16], f32[8,16], f32[8,16], f32[8,16], f32[8,16],
                f32[8,16], f32[8,16], f32[8,16]) tuple(b1, b2, b3, b4, b5,
                b6, s, c3)
    })");
  RegionKeys keys(module->entry()->root());
  auto key = [&](std::initializer_list<const char*> names) {
    const auto members = Members(*module, names);
    return keys.Key(members, members.back(), {}, {1, 0});
  };
  const auto first = key({"a1", "b1"});
  CHECK(first == key({"other_name", "b2"}));  // renamed, other operands
  CHECK(first != key({"a3", "b3"}));          // other wiring
  CHECK(first != key({"a4", "b4"}));          // other layout
  CHECK(first != key({"a5", "b5"}));          // other opcode
  CHECK(first != key({"a6", "b6"}));          // operands swapped
  CHECK(first != key({"a1"}));
  CHECK(key({"k1", "c1"}) == key({"k3", "c3"}));
  CHECK(key({"k1", "c1"}) != key({"k2", "c2"}));  // other literal
  // Flags and tags are part of the key.
  const auto members = Members(*module, {"a1", "b1"});
  CHECK(keys.Key(members, members.back(), {}, {0, 0}) != first);
  CHECK(keys.Key(members, members.back(), {1, 2}, {1, 0}) != first);
  // The computation's root is marked.
  CHECK(key({"b6", "t"}) != key({"b5", "t"}));
}

// A stack of layer-norm-like blocks over f32[8,16] reading the previous
// block's output; each block one of a few variants (another constant,
// another activation, instructions in another order), its names random.
std::string BlockStack(std::mt19937_64& rng, int blocks) {
  std::string text =
      "HloModule stack\nadd { a = f32[] parameter(0)\n b = f32[] "
      "parameter(1)\n ROOT s = f32[] add(a, b) }\nENTRY e {\n"
      " x0 = f32[8,16] parameter(0)\n w = f32[16,16] parameter(1)\n";
  std::string x = "x0";
  for (int i = 0; i < blocks; ++i) {
    const std::string n =
        "q" + std::to_string(rng() % 100000) + "_" + std::to_string(i) + "_";
    auto v = [&](const char* name) { return n + name; };
    const int variant = static_cast<int>(rng() % 4);
    std::vector<std::string> lines;
    auto line = [&](const std::string& name, const std::string& rhs) {
      lines.push_back(" " + v(name.c_str()) + " = " + rhs + "\n");
    };
    line("z", "f32[] constant(0)");
    line("m", "f32[8] reduce(" + x + ", " + v("z") +
                  "), dimensions={1}, to_apply=add");
    line("k", variant == 1 ? "f32[] constant(0.25)" : "f32[] constant(0.0625)");
    line("kb", "f32[8] broadcast(" + v("k") + "), dimensions={}");
    line("mean", "f32[8] multiply(" + v("m") + ", " + v("kb") + ")");
    line("bm", "f32[8,16] broadcast(" + v("mean") + "), dimensions={0}");
    line("c", "f32[8,16] subtract(" + x + ", " + v("bm") + ")");
    line("sq", "f32[8,16] multiply(" + v("c") + ", " + v("c") + ")");
    line("act", std::string("f32[8,16] ") +
                    (variant == 2 ? "exponential(" : "tanh(") + v("sq") + ")");
    line("d", "f32[8,16] dot(" + v("act") +
                  ", w), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    line("tr", "f32[16,8] transpose(" + v("d") + "), dimensions={1,0}");
    line("back", "f32[8,16] transpose(" + v("tr") + "), dimensions={1,0}");
    line("x", "f32[8,16] add(" + v("back") + ", " + x + ")");
    // Variant 3: the scalar constants first (other positions, same graph).
    if (variant == 3) std::swap(lines[1], lines[2]);
    for (const std::string& l : lines) text += l;
    x = v("x");
  }
  text += " ROOT out = f32[8,16] negate(" + x + ")\n}\n";
  return text;
}

void CheckSamePlans(const std::string& hlo) {
  auto module = ParseOrDie(hlo);
  const hw::Device h100 = *hw::FindDevice("h100");
  for (CostModel model : {CostModel::kXla, CostModel::kIxa}) {
    INFO(CostModelName(model));
    FusionPlanOptions cached, uncached;
    cached.model = uncached.model = model;
    uncached.cache_costs = false;
    ExprContext ctx_a, ctx_b;
    auto a = PlanFusions(*module, h100, uncached, &ctx_a);
    auto b = PlanFusions(*module, h100, cached, &ctx_b);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->module_text == b->module_text);
    CHECK(a->kernels_before == b->kernels_before);
    CHECK(a->kernels_after == b->kernels_after);
    CHECK(a->time_before_us == b->time_before_us);
    CHECK(a->time_after_us == b->time_after_us);
    CHECK(a->times_known == b->times_known);
    CHECK(a->refusals == b->refusals);
    REQUIRE(a->steps.size() == b->steps.size());
    for (size_t s = 0; s < a->steps.size(); ++s) {
      const FusionStep &x = a->steps[s], &y = b->steps[s];
      INFO("step " << s << " " << x.producer);
      CHECK(x.kind == y.kind);
      CHECK(x.producer == y.producer);
      CHECK(x.priority_us == y.priority_us);
      CHECK(x.producer_us == y.producer_us);
      CHECK(x.producer_kept == y.producer_kept);
      REQUIRE(x.into.size() == y.into.size());
      for (size_t i = 0; i < x.into.size(); ++i) {
        CHECK(x.into[i].consumer == y.into[i].consumer);
        CHECK(x.into[i].fusion == y.into[i].fusion);
        CHECK(x.into[i].consumer_us == y.into[i].consumer_us);
        CHECK(x.into[i].fused_us == y.into[i].fused_us);
      }
    }
  }
}

TEST_CASE("fusion plan cache: the same plan with and without the caches",
          "[uses][plan]") {
  std::mt19937_64 rng(20261207);
  for (int round = 0; round < 4; ++round) {
    CheckSamePlans(BlockStack(rng, 3 + static_cast<int>(rng() % 8)));
  }
  // Two identical independent chains in interleaved text order, and a
  // third that differs only in a shape's layout.
  CheckSamePlans(R"(
    ENTRY e {
      p = f32[64,32] parameter(0)
      a1 = f32[64,32] exponential(p)
      a2 = f32[64,32] exponential(p)
      t2 = f32[32,64] transpose(a2), dimensions={1,0}
      t1 = f32[32,64] transpose(a1), dimensions={1,0}
      n1 = f32[32,64] negate(t1)
      n2 = f32[32,64] negate(t2)
      a3 = f32[64,32]{0,1} exponential(p)
      t3 = f32[32,64] transpose(a3), dimensions={1,0}
      n3 = f32[32,64] negate(t3)
      ROOT r = (f32[32,64], f32[32,64], f32[32,64]) tuple(n1, n2, n3)
    })");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
