// The pre-fusion pipeline (analysis/prefusion): each pass's rewrites, XLA's
// k1 x k2 choice, and every rewritten module computing what its input
// computes: both run by the reference interpreter on random inputs. The
// interpreter's integer arithmetic wraps, so add, multiply, maximum and
// minimum reassociate exactly and the comparison is exact (the float
// reductions, whose reassociation rounds, are checked with a tolerance in
// the code generator tests).
#include "analysis/prefusion/prefusion.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <set>

#include "analysis/hlo/printer.h"
#include "analysis/uses/fusion_plan.h"
#include "hw/device.h"
#include "tests/analysis/reference_interpreter.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;
using testing::Tensor;

constexpr char kReducers[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  s = f32[] add(a, c)
  t = f32[] add(b, d)
  ROOT u = (f32[], f32[]) tuple(s, t)
}
)";

std::string Module(const std::string& entry) {
  return std::string("HloModule m\n") + kReducers + "ENTRY e {\n" + entry +
         "}\n";
}

// Random parameters in [-50, 50]: the interpreter's -inf (a constant it
// cannot read, -1000000) stays below every value, so that maximum's init
// is its identity as XLA assumes.
std::vector<Tensor> RandomParameters(const hlo::Computation& entry,
                                     std::mt19937_64& rng) {
  std::vector<Tensor> out(entry.parameter_count());
  for (int64_t i = 0; i < entry.parameter_count(); ++i) {
    const hlo::Shape& s = entry.parameter(i)->shape;
    Tensor t{s.dims, std::vector<int64_t>(testing::Count(s.dims))};
    for (int64_t& x : t.data) x = static_cast<int64_t>(rng() % 101) - 50;
    out[i] = std::move(t);
  }
  return out;
}

void CheckSameResults(const hlo::Module& before, const hlo::Module& after,
                      std::mt19937_64& rng) {
  // One trial in the sanitizer pass (IXA_SANITIZED=1): the reference
  // interpreter is what takes the time there, not the pass under test.
  const int trials = std::getenv("IXA_SANITIZED") ? 1 : 2;
  for (int trial = 0; trial < trials; ++trial) {
    const std::vector<Tensor> params = RandomParameters(*before.entry(), rng);
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

int CountOpcode(const hlo::Module& m, hlo::Opcode opcode) {
  int n = 0;
  for (const hlo::Instruction* i : m.entry()->post_order()) {
    n += i->opcode == opcode;
  }
  return n;
}

// Runs one pass on `entry`, checks it rewrote (as `pass`) and that the
// result reads back and computes the same; returns the result.
std::unique_ptr<hlo::Module> CheckPass(
    Result<PassResult> (*run)(const hlo::Module&), const std::string& entry,
    const std::string& pass) {
  std::mt19937_64 rng(7);
  auto module = ParseOrDie(Module(entry));
  auto result = run(*module);
  INFO((result.ok() ? std::string() : result.error().ToString()));
  REQUIRE(result.ok());
  REQUIRE(result->module);
  REQUIRE(!result->rewrites.empty());
  CHECK(result->rewrites[0].pass == pass);
  const std::string text = hlo::PrintModule(*result->module);
  INFO(text);
  auto reread = ParseOrDie(text);
  CheckSameResults(*module, *reread, rng);
  return reread;
}

TEST_CASE("prefusion: XLA's k1 x k2 split of a long reduction", "[prefusion]") {
  // 65536 = 256 x 256: no padding.
  CHECK(TreeReductionFactors(65536, true) == std::make_pair(256L, 256L));
  // A column of 8192: sqrt gives 90 (88 padding); 64 divides it, and no
  // power of two between 46 and 89 pads less; the column swap puts the
  // larger factor minor.
  CHECK(TreeReductionFactors(8192, false) == std::make_pair(64L, 128L));
  // Other sizes, primes among them: the product covers k, pads less than
  // one factor, and the reduction reduced first is within its bound.
  for (int64_t k : {16385L, 16411L, 20000L, 100003L, 1L << 20, 1L << 30}) {
    for (bool row : {true, false}) {
      const auto [k1, k2] = TreeReductionFactors(k, row);
      INFO(k << (row ? " row" : " column") << ": " << k1 << " x " << k2);
      CHECK(k1 * k2 >= k);
      CHECK(k1 * k2 - k < std::max(k1, k2));
      const int64_t bound =
          row ? kRowReductionRaceFreeBound : kColumnReductionRaceFreeBound;
      CHECK(std::min(k1, k2) <= bound);
    }
  }
}

TEST_CASE("prefusion: a size-1 reduced dim leaves the reduce", "[prefusion]") {
  auto m = CheckPass(RemoveReductionDegenerateDims,
                     "  p = f32[1,6,1,10] parameter(0)\n"
                     "  z = f32[] constant(0)\n"
                     "  ROOT r = f32[6] reduce(p, z), dimensions={0,2,3}, "
                     "to_apply=add\n",
                     "ReductionDegenerateDimRemover");
  const hlo::Instruction* r = m->entry()->root();
  CHECK(r->opcode == hlo::Opcode::kReduce);
  CHECK(r->operand(0)->shape.dims == std::vector<int64_t>{6, 10});
  // Only size-1 dims reduced: a reshape (bitcast) of the input.
  auto b = CheckPass(RemoveReductionDegenerateDims,
                     "  p = f32[4,1,5] parameter(0)\n"
                     "  z = f32[] constant(0)\n"
                     "  ROOT r = f32[4,5] reduce(p, z), dimensions={1}, "
                     "to_apply=add\n",
                     "ReductionDegenerateDimRemover");
  CHECK(CountOpcode(*b, hlo::Opcode::kReduce) == 0);
  // A kept size-1 dim: the result is reshaped back.
  CheckPass(RemoveReductionDegenerateDims,
            "  p = f32[1,7,9] parameter(0)\n"
            "  z = f32[] constant(0)\n"
            "  ROOT r = f32[1,7] reduce(p, z), dimensions={2}, to_apply=add\n",
            "ReductionDegenerateDimRemover");
}

TEST_CASE("prefusion: a reduce operand gets the default layout",
          "[prefusion]") {
  auto m = CheckPass(NormalizeReductionLayouts,
                     "  p = f32[6,10,4]{0,2,1} parameter(0)\n"
                     "  z = f32[] constant(0)\n"
                     "  ROOT r = f32[6,4]{1,0} reduce(p, z), dimensions={1}, "
                     "to_apply=add\n",
                     "ReductionLayoutNormalizer");
  for (const hlo::Instruction* i : m->entry()->post_order()) {
    if (i->opcode != hlo::Opcode::kReduce) continue;
    const hlo::Shape& in = i->operand(0)->shape;
    CHECK(in.MinorToMajor() == std::vector<int64_t>{2, 1, 0});
    // Physical order of the operand: dims 1, 2, 0 -> [10, 4, 6].
    CHECK(in.dims == std::vector<int64_t>{10, 4, 6});
  }
  // The result's layout differs from the operand's physical order: a
  // transpose restores it.
  CheckPass(NormalizeReductionLayouts,
            "  p = f32[6,10,4]{0,1,2} parameter(0)\n"
            "  z = f32[] constant(0)\n"
            "  ROOT r = f32[6,4]{1,0} reduce(p, z), dimensions={1}, "
            "to_apply=max\n",
            "ReductionLayoutNormalizer");
}

TEST_CASE("prefusion: adjacent reduced dims are merged", "[prefusion]") {
  auto m = CheckPass(GroupReductionDimensions,
                     "  p = f32[3,4,5,6] parameter(0)\n"
                     "  z = f32[] constant(0)\n"
                     "  ROOT r = f32[3] reduce(p, z), dimensions={1,2,3}, "
                     "to_apply=add\n",
                     "ReductionDimensionGrouper");
  const hlo::Instruction* r = m->entry()->root();
  CHECK(r->operand(0)->shape.dims == std::vector<int64_t>{3, 120});
  CHECK(r->dimensions == std::vector<int64_t>{1});
  // Variadic: every input grouped alike.
  CheckPass(GroupReductionDimensions,
            "  p = f32[4,5,6] parameter(0)\n"
            "  q = f32[4,5,6] parameter(1)\n"
            "  z = f32[] constant(0)\n"
            "  ROOT r = (f32[6], f32[6]) reduce(p, q, z, z), "
            "dimensions={0,1}, to_apply=add2\n",
            "ReductionDimensionGrouper");
}

TEST_CASE("prefusion: a non-contiguous reduction is split", "[prefusion]") {
  // Reduced dims 0 and 2 around kept 1 and 3: neither the kept nor the
  // reduced dims are consecutive.
  auto m = CheckPass(SplitReductions,
                     "  p = f32[5,3,7,4] parameter(0)\n"
                     "  z = f32[] constant(0)\n"
                     "  ROOT r = f32[3,4] reduce(p, z), dimensions={0,2}, "
                     "to_apply=add\n",
                     "ReductionSplitter");
  CHECK(CountOpcode(*m, hlo::Opcode::kReduce) == 2);
  const hlo::Instruction* r = m->entry()->root();
  // The largest reduced dim (2, of 7) first.
  CHECK(r->operand(0)->dimensions == std::vector<int64_t>{2});
  CHECK(r->dimensions == std::vector<int64_t>{0});
}

TEST_CASE("prefusion: a long row reduction becomes two", "[prefusion]") {
  auto m = CheckPass(RewriteTreeReductions,
                     "  p = f32[2,20000] parameter(0)\n"
                     "  z = f32[] constant(0)\n"
                     "  ROOT r = f32[2] reduce(p, z), dimensions={1}, "
                     "to_apply=add\n",
                     "TreeReductionRewriter");
  CHECK(CountOpcode(*m, hlo::Opcode::kReduce) == 2);
  // sqrt gives 141 (padding 22); 125 divides 20000 (100 and 80 too, but
  // equal padding needs a power of two); the row swap puts 160 minor.
  CHECK(TreeReductionFactors(20000, true) == std::make_pair(125L, 160L));
  CHECK(CountOpcode(*m, hlo::Opcode::kPad) == 0);
  // A long column with padding, reduced by maximum (-inf padding): 4099
  // is prime, 4100 = 50 x 82.
  CHECK(TreeReductionFactors(4099, false) == std::make_pair(50L, 82L));
  CheckPass(RewriteTreeReductions,
            "  p = f32[4099,3] parameter(0)\n"
            "  z = f32[] constant(-inf)\n"
            "  ROOT r = f32[3] reduce(p, z), dimensions={0}, to_apply=max\n",
            "TreeReductionRewriter");
  // A batch of 9 rows reduced together: the minor dim, then the batch.
  auto b = CheckPass(RewriteTreeReductions,
                     "  p = f32[9,4,16] parameter(0)\n"
                     "  z = f32[] constant(0)\n"
                     "  ROOT r = f32[4] reduce(p, z), dimensions={0,2}, "
                     "to_apply=add\n",
                     "TreeReductionRewriter");
  CHECK(b->entry()->root()->dimensions == std::vector<int64_t>{0});
  // A variadic reduction is split too, every input padded alike.
  CheckPass(RewriteTreeReductions,
            "  p = f32[1,17000] parameter(0)\n"
            "  q = f32[1,17000] parameter(1)\n"
            "  z = f32[] constant(0)\n"
            "  ROOT r = (f32[1], f32[1]) reduce(p, q, z, z), dimensions={1}, "
            "to_apply=add2\n",
            "TreeReductionRewriter");
}

TEST_CASE("prefusion: a matrix multiplication becomes a cuBLAS GEMM",
          "[prefusion]") {
  auto m = CheckPass(RewriteGemms,
                     "  a = f32[2,8,16] parameter(0)\n"
                     "  b = f32[2,16,4] parameter(1)\n"
                     "  ROOT d = f32[2,8,4] dot(a, b), lhs_batch_dims={0}, "
                     "rhs_batch_dims={0}, lhs_contracting_dims={2}, "
                     "rhs_contracting_dims={1}\n",
                     "GemmRewriter");
  CHECK(CountOpcode(*m, hlo::Opcode::kCustomCall) == 1);
  CHECK(m->entry()->root()->opcode == hlo::Opcode::kGetTupleElement);
  // A matrix-vector product, a tiny one, an integer one and an FP8 one
  // (cuBLASLt with scales, not restated) stay dots.
  for (const char* entry :
       {"  a = f32[8,16] parameter(0)\n  b = f32[16] parameter(1)\n"
        "  ROOT d = f32[8] dot(a, b), lhs_contracting_dims={1}, "
        "rhs_contracting_dims={0}\n",
        "  a = f32[4,4] parameter(0)\n  b = f32[4,4] parameter(1)\n"
        "  ROOT d = f32[4,4] dot(a, b), lhs_contracting_dims={1}, "
        "rhs_contracting_dims={0}\n",
        "  a = s32[16,16] parameter(0)\n  b = s32[16,16] parameter(1)\n"
        "  ROOT d = s32[16,16] dot(a, b), lhs_contracting_dims={1}, "
        "rhs_contracting_dims={0}\n",
        "  a = f8e4m3fn[16,16] parameter(0)\n"
        "  b = f8e4m3fn[16,16] parameter(1)\n"
        "  ROOT d = f32[16,16] dot(a, b), lhs_contracting_dims={1}, "
        "rhs_contracting_dims={0}\n"}) {
    auto module = ParseOrDie(Module(entry));
    auto r = RewriteGemms(*module);
    REQUIRE(r.ok());
    CHECK(!r->module);
  }
}

TEST_CASE("prefusion: fusion bodies are past the pipeline", "[prefusion]") {
  std::mt19937_64 rng(5);
  // A custom (Triton-like) fusion keeps its dot and its reduce; a loop
  // fusion's long reduction is split (the plans inline it); a dot in a
  // loop fusion is one XLA left to the loop emitter.
  auto module = ParseOrDie(std::string("HloModule m\n") + kReducers + R"(
fused_custom {
  p0 = f32[32,64] parameter(0)
  p1 = f32[64,32] parameter(1)
  d = f32[32,32] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  ROOT r = f32[32] reduce(d, z), dimensions={1}, to_apply=add
}
fused_loop {
  p0 = f32[2,20000] parameter(0)
  p1 = f32[32,64] parameter(1)
  p2 = f32[64,32] parameter(2)
  z = f32[] constant(0)
  r = f32[2] reduce(p0, z), dimensions={1}, to_apply=add
  d = f32[32,32] dot(p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[2], f32[32,32]) tuple(r, d)
}
ENTRY e {
  a = f32[32,64] parameter(0)
  b = f32[64,32] parameter(1)
  x = f32[2,20000] parameter(2)
  g = f32[32] fusion(a, b), kind=kCustom, calls=fused_custom
  l = (f32[2], f32[32,32]) fusion(x, a, b), kind=kLoop, calls=fused_loop
  ROOT t = (f32[32], (f32[2], f32[32,32])) tuple(g, l)
}
)");
  auto result = RunPrefusion(*module);
  REQUIRE(result.ok());
  REQUIRE(result->rewrites.size() == 1);
  CHECK(result->rewrites[0].pass == "TreeReductionRewriter");
  CHECK(result->rewrites[0].instruction == "r");
  const std::string text = hlo::PrintModule(*result->module);
  INFO(text);
  auto reread = ParseOrDie(text);
  CHECK(reread->FindComputation("fused_loop")
            ->root()
            ->operand(0)
            ->operand(0)
            ->opcode == hlo::Opcode::kReduce);
  CheckSameResults(*module, *reread, rng);
}

TEST_CASE("prefusion: the whole pipeline", "[prefusion]") {
  std::mt19937_64 rng(31);
  // Degenerate dims, a non-default layout, grouped dims, a split and a
  // tree reduction in one module, and a GEMM.
  auto module = ParseOrDie(Module(
      "  p = f32[1,3,5,20,1000]{4,3,2,1,0} parameter(0)\n"
      "  q = f32[5000,2,3]{0,1,2} parameter(1)\n"
      "  a = f32[16,32] parameter(2)\n"
      "  b = f32[32,8] parameter(3)\n"
      "  z = f32[] constant(0)\n"
      "  e = f32[1,3,5,20,1000] exponential(p)\n"
      "  r = f32[5] reduce(e, z), dimensions={0,1,3,4}, to_apply=add\n"
      "  s = f32[2] reduce(q, z), dimensions={0,2}, to_apply=add\n"
      "  d = f32[16,8] dot(a, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n"
      "  u = f32[5,3,7,4] parameter(4)\n"
      "  v = f32[3,4] reduce(u, z), dimensions={0,2}, to_apply=add\n"
      "  ROOT t = (f32[5], f32[2], f32[16,8], f32[3,4]) tuple(r, s, d, v)\n"));
  auto result = RunPrefusion(*module);
  INFO((result.ok() ? std::string() : result.error().ToString()));
  REQUIRE(result.ok());
  REQUIRE(result->module);
  std::set<std::string> passes;
  for (const PrefusionRewrite& w : result->rewrites) passes.insert(w.pass);
  CHECK(passes.count("GemmRewriter"));
  CHECK(passes.count("ReductionDegenerateDimRemover"));
  CHECK(passes.count("ReductionLayoutNormalizer"));
  CHECK(passes.count("ReductionDimensionGrouper"));
  CHECK(passes.count("ReductionSplitter"));
  CHECK(passes.count("TreeReductionRewriter"));
  const std::string text = hlo::PrintModule(*result->module);
  INFO(text);
  CheckSameResults(*module, *ParseOrDie(text), rng);
  // No reduce is left past its race-free bound, and the pipeline is
  // idempotent.
  auto again = RunPrefusion(*result->module);
  REQUIRE(again.ok());
  CHECK(again->rewrites.empty());
  // Off by option: no GEMM.
  PrefusionOptions no_gemms;
  no_gemms.gemms = false;
  auto plain = RunPrefusion(*module, no_gemms);
  REQUIRE(plain.ok());
  for (const PrefusionRewrite& w : plain->rewrites) {
    CHECK(w.pass != "GemmRewriter");
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa

namespace ixa {
namespace IXA_UNITY_ID {

// Plans `entry` after the pipeline; every fusion with a reduce root is
// kInput (the reduction emitter takes it) and the plan's time is returned.
double PlannedTimeUs(const std::string& entry, CostModel model) {
  auto module = ParseOrDie(Module(entry));
  auto prefused = RunPrefusion(*module);
  REQUIRE(prefused.ok());
  ExprContext ctx;
  FusionPlanOptions options;
  options.model = model;
  auto plan = PlanFusions(prefused->Output(*module), *hw::FindDevice("h100"),
                          options, &ctx);
  INFO((plan.ok() ? std::string() : plan.error().ToString()));
  REQUIRE(plan.ok());
  INFO(plan->module_text);
  auto fused = ParseOrDie(plan->module_text);
  int reductions = 0;
  for (const hlo::Instruction* i : fused->entry()->post_order()) {
    if (i->opcode != hlo::Opcode::kFusion ||
        i->called()->root()->opcode != hlo::Opcode::kReduce) {
      continue;
    }
    ++reductions;
    CHECK(i->Attribute("kind") == "kInput");
  }
  CHECK(reductions == 2);
  REQUIRE(plan->times_known);
  return plan->time_after_us;
}

TEST_CASE("prefusion: long reductions cost as XLA's split kernels",
          "[prefusion][cost]") {
  for (CostModel model : {CostModel::kXla, CostModel::kIxa}) {
    INFO(CostModelName(model));
    // exp and a row of 65536 (16 MiB): about 5 us on an H100 as XLA's
    // two kernels (the 16 MiB at 3.35 TB/s, then 64 x 256 partial sums),
    // plus 1 us per launch in the plan's total.
    const double row = PlannedTimeUs(
        "  x = f32[64,65536] parameter(0)\n  z = f32[] constant(0)\n"
        "  e = f32[64,65536] exponential(x)\n"
        "  ROOT r = f32[64] reduce(e, z), dimensions={1}, to_apply=add\n",
        model);
    CHECK(row - 2 >= 2.5);
    CHECK(row - 2 <= 10);
    // A column of 8192 x 1024 (32 MiB): its bytes at DRAM bandwidth take
    // 10 us.
    const double column = PlannedTimeUs(
        "  x = f32[8192,1024] parameter(0)\n  z = f32[] constant(0)\n"
        "  ROOT r = f32[1024] reduce(x, z), dimensions={0}, to_apply=add\n",
        model);
    CHECK(column - 2 >= 5);
    CHECK(column - 2 <= 20);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
