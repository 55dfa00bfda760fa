// XLA's expanders in the pre-fusion pipeline (analysis/prefusion/
// expanders.cc, dot_expanders.cc): each reports its rewrite under XLA's pass
// name, leaves no op it expands, writes a module that prints and reads back,
// and the pipeline is idempotent on what it wrote; forms a pass does not take
// stay as written. (What the expanded modules compute is checked against
// the code generator tests' interpreter in tests/emit/
// emit_expanders_test.cc.)
#include <catch2/catch.hpp>
#include <set>

#include "analysis/hlo/printer.h"
#include "analysis/prefusion/prefusion.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

constexpr char kExpandedOps[] = R"(HloModule expanded

ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[2,3,4] parameter(0)
  scale = f32[3] parameter(1)
  offset = f32[3] parameter(2)
  mean = f32[3] parameter(3)
  var = f32[3] parameter(4)
  training = (f32[2,3,4], f32[3], f32[3]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=1
  inference = f32[2,3,4] batch-norm-inference(x, scale, offset, mean, var), epsilon=0.001, feature_index=1
  grad = (f32[2,3,4], f32[3], f32[3]) batch-norm-grad(x, scale, mean, var, x), epsilon=0.001, feature_index=1
  v = f32[4,10] parameter(5)
  top = (f32[4,3], s32[4,3]) topk(v), k=3, largest=false
  call = (f32[4,2], s32[4,2]) custom-call(v), custom_call_target="TopK"
  r = u32[4,10] parameter(6)
  sc = s8[4,10] stochastic-convert(v, r)
  src = f32[2,5] parameter(7)
  zero = f32[] constant(0)
  sas = f32[4,10] select-and-scatter(v, src, zero), window={size=2x3 stride=2x2 pad=0_0x1_1}, select=ge, scatter=add
  ROOT t = ((f32[2,3,4], f32[3], f32[3]), f32[2,3,4], (f32[2,3,4], f32[3], f32[3]), (f32[4,3], s32[4,3]), (f32[4,2], s32[4,2]), s8[4,10], f32[4,10]) tuple(training, inference, grad, top, call, sc, sas)
}
)";

bool HasOp(const hlo::Module& module, hlo::Opcode op) {
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode == op) return true;
    }
  }
  return false;
}

TEST_CASE("prefusion: the expanders report their rewrites, idempotently",
          "[prefusion_expanders]") {
  auto module = ParseOrDie(kExpandedOps);
  {
    auto result = RunCompileLowering(*module);
    INFO((result.ok() ? std::string() : result.error().ToString()));
    REQUIRE(result.ok());
    REQUIRE(result->module);
    std::multiset<std::string> passes;
    for (const PrefusionRewrite& w : result->rewrites) passes.insert(w.pass);
    CHECK(passes.count("BatchNormExpander") == 3);
    CHECK(passes.count("TopkDecomposer") == 2);
    CHECK(passes.count("StochasticConvertDecomposer") == 1);
    CHECK(passes.count("SelectAndScatterExpander") == 1);
    // The select-and-scatter's scatter is then simplified.
    CHECK(passes.count("ScatterSimplifier") == 1);
    const hlo::Module& out = *result->module;
    for (hlo::Opcode op :
         {hlo::Opcode::kBatchNormTraining, hlo::Opcode::kBatchNormInference,
          hlo::Opcode::kBatchNormGrad, hlo::Opcode::kTopK,
          hlo::Opcode::kCustomCall, hlo::Opcode::kStochasticConvert,
          hlo::Opcode::kSelectAndScatter}) {
      CHECK_FALSE(HasOp(out, op));
    }
    // It prints and reads back, and nothing is left to rewrite.
    const std::string text = hlo::PrintModule(out);
    INFO(text);
    auto reread = ParseOrDie(text);
    auto again = RunCompileLowering(*reread);
    REQUIRE(again.ok());
    CHECK(again->rewrites.empty());
  }
  // The whole pipeline too, and again on its own output.
  auto full = RunPrefusion(*module);
  REQUIRE(full.ok());
  std::set<std::string> passes;
  for (const PrefusionRewrite& w : full->rewrites) passes.insert(w.pass);
  CHECK(passes.count("BatchNormExpander"));
  CHECK(passes.count("TopkDecomposer"));
  CHECK(passes.count("StochasticConvertDecomposer"));
  CHECK(passes.count("SelectAndScatterExpander"));
  auto again = RunPrefusion(*ParseOrDie(hlo::PrintModule(*full->module)));
  REQUIRE(again.ok());
  CHECK(again->rewrites.empty());
}

TEST_CASE("prefusion: forms the expanders do not take stay as written",
          "[prefusion_expanders]") {
  // A stochastic convert to a float (XLA's pass refuses it too), a TopK
  // call with s64 indices.
  auto module = ParseOrDie(R"(HloModule kept

ENTRY main {
  a = f32[4,8] parameter(0)
  u = u32[4,8] parameter(1)
  bf = bf16[4,8] stochastic-convert(a, u)
  top = (f32[4,2], s64[4,2]) custom-call(a), custom_call_target="TopK"
  ROOT t = (bf16[4,8], (f32[4,2], s64[4,2])) tuple(bf, top)
}
)");
  auto result = RunCompileLowering(*module);
  REQUIRE(result.ok());
  CHECK(result->rewrites.empty());
  CHECK(result->module == nullptr);
}

constexpr char kDotVariants[] = R"(HloModule dots

ENTRY main {
  tokens = bf16[6,4] parameter(0)
  experts = bf16[3,4,2] parameter(1)
  sizes = s32[3] parameter(2)
  moe = bf16[6,2] ragged-dot(tokens, experts, sizes), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  a = f32[5,6] parameter(3)
  b = f32[6,2] parameter(4)
  grads = f32[3,5,2] ragged-dot(a, b, sizes), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
  x = f32[2,5,6] parameter(5)
  y = f32[2,6,2] parameter(6)
  batch = f32[2,5,2] ragged-dot(x, y, sizes), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
  q = f8e4m3fn[4,8] parameter(7)
  k = f8e4m3fn[8,3] parameter(8)
  qs = f8e8m0fnu[4,2] parameter(9)
  ks = f8e8m0fnu[] parameter(10)
  scaled = bf16[4,3] scaled-dot(q, k, qs, ks), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (bf16[6,2], f32[3,5,2], f32[2,5,2], bf16[4,3]) tuple(moe, grads, batch, scaled)
}
)";

TEST_CASE("prefusion: the dot expanders report their rewrites, idempotently",
          "[prefusion_expanders]") {
  auto module = ParseOrDie(kDotVariants);
  for (bool full : {false, true}) {
    auto result = full ? RunPrefusion(*module) : RunCompileLowering(*module);
    INFO((result.ok() ? std::string() : result.error().ToString()));
    REQUIRE(result.ok());
    REQUIRE(result->module);
    std::multiset<std::string> passes;
    for (const PrefusionRewrite& w : result->rewrites) passes.insert(w.pass);
    CHECK(passes.count("RaggedDotRewriter") == 3);
    CHECK(passes.count("ScaledDotRewriter") == 1);
    CHECK_FALSE(HasOp(*result->module, hlo::Opcode::kRaggedDot));
    CHECK_FALSE(HasOp(*result->module, hlo::Opcode::kScaledDot));
    const std::string text = hlo::PrintModule(*result->module);
    INFO(text);
    auto again = full ? RunPrefusion(*ParseOrDie(text))
                      : RunCompileLowering(*ParseOrDie(text));
    REQUIRE(again.ok());
    CHECK(again->rewrites.empty());
  }
}

TEST_CASE("prefusion: dot variants the expanders do not take stay as written",
          "[prefusion_expanders]") {
  // A scale that does not cover its operand in whole blocks; group sizes
  // whose batch dim is not the output's.
  auto module = ParseOrDie(R"(HloModule kept

ENTRY main {
  q = f8e4m3fn[4,9] parameter(0)
  k = f8e4m3fn[9,3] parameter(1)
  qs = f8e8m0fnu[4,2] parameter(2)
  ks = f8e8m0fnu[] parameter(3)
  scaled = f32[4,3] scaled-dot(q, k, qs, ks), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[6,4] parameter(4)
  e = f32[3,4,2] parameter(5)
  sizes = s32[5,3] parameter(6)
  moe = f32[6,2] ragged-dot(a, e, sizes), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  ROOT t = (f32[4,3], f32[6,2]) tuple(scaled, moe)
}
)");
  auto result = RunCompileLowering(*module);
  REQUIRE(result.ok());
  CHECK(result->rewrites.empty());
  CHECK(result->module == nullptr);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
