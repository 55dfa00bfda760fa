// XLA's scatter normalization before fusion (BatchedGatherScatterNormalizer,
// ScatterSimplifier): every case of tests/analysis/scatter_cases.h is
// rewritten by the passes it needs, into the simplified form the scatter
// emitter takes, and computes what its input does (both run by the
// reference interpreter on random inputs, the indices drawn around the
// operand's bounds so that most updates land and some are skipped).
#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "analysis/hlo/printer.h"
#include "analysis/prefusion/prefusion.h"
#include "tests/analysis/reference_interpreter.h"
#include "tests/analysis/scatter_cases.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;
using testing::Tensor;

// Indices (parameters named idx) in [-1, 5], the rest in [-50, 50].
std::vector<Tensor> ScatterParameters(const hlo::Computation& entry,
                                      std::mt19937_64& rng) {
  std::vector<Tensor> out(entry.parameter_count());
  for (int64_t i = 0; i < entry.parameter_count(); ++i) {
    const hlo::Instruction* p = entry.parameter(i);
    const bool index = p->name == "idx";
    Tensor t{p->shape.dims,
             std::vector<int64_t>(testing::Count(p->shape.dims))};
    for (int64_t& x : t.data) {
      x = index ? static_cast<int64_t>(rng() % 7) - 1
                : static_cast<int64_t>(rng() % 101) - 50;
    }
    out[i] = std::move(t);
  }
  return out;
}

void CheckSameScatterResults(const hlo::Module& before,
                             const hlo::Module& after, std::mt19937_64& rng) {
  for (int trial = 0; trial < 3; ++trial) {
    const std::vector<Tensor> params = ScatterParameters(*before.entry(), rng);
    testing::Interpreter a, b;
    const auto want = a.Run(*before.entry(), params);
    const auto got = b.Run(*after.entry(), params);
    REQUIRE(want.size() == got.size());
    for (size_t k = 0; k < want.size(); ++k) {
      CHECK(want[k].dims == got[k].dims);
      CHECK(want[k].data == got[k].data);
    }
  }
}

// XLA's simplified scatter: indices [n, size] with index_vector_dim 1, the
// whole operand as window after one scatter dim, the index vector naming
// the leading operand dims.
void CheckSimplified(const hlo::Instruction& s) {
  const hlo::ScatterDimensionNumbers dn = s.ScatterDims();
  const int k = (s.operand_count() - 1) / 2;
  CHECK(s.operand(k)->shape.rank() == 2);
  CHECK(dn.index_vector_dim == 1);
  CHECK(dn.inserted_window_dims.empty());
  CHECK(dn.input_batching_dims.empty());
  const int64_t rank = s.operand(0)->shape.rank();
  CHECK(s.operand(k + 1)->shape.rank() == rank + 1);
  for (int64_t d = 0; d < rank; ++d) CHECK(dn.update_window_dims[d] == d + 1);
  for (size_t i = 0; i < dn.scatter_dims_to_operand_dims.size(); ++i) {
    CHECK(dn.scatter_dims_to_operand_dims[i] == static_cast<int64_t>(i));
  }
}

TEST_CASE("prefusion: scatters are normalized as XLA's passes do",
          "[prefusion]") {
  std::mt19937_64 rng(17);
  for (const testing::ScatterCase& c : testing::ScatterNormalizationCases()) {
    INFO(c.label);
    auto module = ParseOrDie(c.hlo);
    // Each pass alone, where the case needs it, computes the same.
    if (std::count(c.passes.begin(), c.passes.end(),
                   "BatchedGatherScatterNormalizer")) {
      auto r = NormalizeBatchedGatherScatter(*module);
      REQUIRE(r.ok());
      REQUIRE(r->module);
      REQUIRE(r->rewrites.size() == 1);
      CHECK(r->rewrites[0].pass == "BatchedGatherScatterNormalizer");
      const std::string text = hlo::PrintModule(*r->module);
      INFO(text);
      CheckSameScatterResults(*module, *ParseOrDie(text), rng);
    } else {
      auto r = SimplifyScatters(*module);
      REQUIRE(r.ok());
      REQUIRE(r->module);
      REQUIRE(r->rewrites.size() == 1);
      CHECK(r->rewrites[0].pass == "ScatterSimplifier");
      CHECK(r->rewrites[0].instruction == "out");
      const std::string text = hlo::PrintModule(*r->module);
      INFO(text);
      CheckSameScatterResults(*module, *ParseOrDie(text), rng);
    }
    // The pipeline makes the rewrites the case lists, in XLA's order.
    auto result = RunPrefusion(*module);
    INFO((result.ok() ? std::string() : result.error().ToString()));
    REQUIRE(result.ok());
    REQUIRE(result->module);
    std::vector<std::string> passes;
    for (const PrefusionRewrite& w : result->rewrites) {
      passes.push_back(w.pass);
    }
    CHECK(passes == c.passes);
    const std::string text = hlo::PrintModule(*result->module);
    INFO(text);
    auto reread = ParseOrDie(text);
    CheckSameScatterResults(*module, *reread, rng);
    for (const hlo::Instruction* i : reread->entry()->post_order()) {
      if (i->opcode == hlo::Opcode::kScatter) CheckSimplified(*i);
      if (i->opcode == hlo::Opcode::kGather) {
        CHECK(i->gather.operand_batching_dims.empty());
      }
    }
    // Idempotent: a simplified scatter is left alone.
    auto again = RunPrefusion(*reread);
    REQUIRE(again.ok());
    CHECK(again->rewrites.empty());
  }
}

// A scatter that is already simplified, and one inside a fusion (past
// XLA's pipeline), are left alone.
TEST_CASE("prefusion: simplified and fused scatters stay", "[prefusion]") {
  auto module = ParseOrDie(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  o = f32[5,8] parameter(0)
  i = s32[2,3] parameter(1)
  u = f32[4,2,3] parameter(2)
  ROOT s = f32[5,8] scatter(o, i, u), update_window_dims={0}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=2, to_apply=add
}
ENTRY e {
  operand = f32[5,8] parameter(0)
  idx = s32[2,1] parameter(1)
  upd = f32[2,5,8] parameter(2)
  i2 = s32[2,3] parameter(3)
  u2 = f32[4,2,3] parameter(4)
  s = f32[5,8] scatter(operand, idx, upd), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  f = f32[5,8] fusion(operand, i2, u2), kind=kInput, calls=fused
  ROOT t = (f32[5,8], f32[5,8]) tuple(s, f)
}
)");
  auto result = RunPrefusion(*module);
  REQUIRE(result.ok());
  CHECK(result->rewrites.empty());
  CHECK(result->module == nullptr);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
