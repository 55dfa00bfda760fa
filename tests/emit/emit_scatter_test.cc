// Scatter as XLA emits it: hardware atomics for add / max / min combiners
// where the type has them (a compare-and-swap loop otherwise), plain
// read-modify-writes for unique indices, one atomic per run of equal
// sorted indices, and variadic scatters. Every case runs as `cpp`, as
// `cuda` in the CPU model of CUDA (which fails two threads writing one
// element without an atomic, so the unique cases must have unique
// indices) and as `mlir` against the interpreter.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

std::string Combiner(const std::string& type, const std::string& op) {
  return "comb { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT r = " + type + "[] " + op + "(a, b) }\n";
}

// A scatter of `rows` update rows of `width` elements into operand rows
// [operand_rows, width], with `attributes` (", unique_indices=true", ...)
// and the operand's and updates' `layout` ("{1,0:E(4)}": packed).
std::string Scatter(const std::string& type, const std::string& op,
                    int64_t operand_rows, int64_t rows, int64_t width,
                    const std::string& attributes = "",
                    const std::string& layout = "") {
  const std::string w = std::to_string(width);
  return Combiner(type, op) + "ENTRY e { p = " + type + "[" +
         std::to_string(operand_rows) + "," + w + "]" + layout +
         " parameter(0)\n"
         "i = s32[" +
         std::to_string(rows) + ",1] parameter(1)\nu = " + type + "[" +
         std::to_string(rows) + "," + w + "]" + layout +
         " parameter(2)\n"
         "ROOT s = " +
         type + "[" + std::to_string(operand_rows) + "," + w + "]" + layout +
         " scatter(p, i, u), update_window_dims={1}, "
         "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
         "index_vector_dim=1" +
         attributes + ", to_apply=comb }";
}

// Indices in [lo, hi], optionally distinct and / or sorted.
CheckCase Case(std::string label, std::string hlo, int64_t lo, int64_t hi,
               bool distinct = false, bool sorted = false) {
  CheckCase c;
  c.label = std::move(label);
  c.hlo = std::move(hlo);
  c.reassociates = true;  // float adds in the atomics' order
  c.run_mlir = true;
  c.parameters.resize(3);
  c.parameters[1].random.int_lo = lo;
  c.parameters[1].random.int_hi = hi;
  c.parameters[1].distinct = distinct;
  c.parameters[1].sorted = sorted;
  return c;
}

CheckSummary Check(const std::vector<CheckCase>& cases) {
  CheckOptions options;
  options.planner = H100Planner();
  options.run_cuda = true;
  return CheckFusions(cases, options);
}

// Every case passes every check; returns the code of `target` per case.
std::vector<std::string> RunAll(const std::vector<CheckCase>& cases,
                                emit::Target target = emit::Target::kCuda) {
  CheckSummary s = Check(cases);
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.emitter == "scatter");
    CHECK(c.error == "");
  }
  std::vector<std::string> code;
  for (const CheckCase& c : cases) {
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    emit::EmitOptions eo;
    eo.target = target;
    auto emitted = emit::EmitFusion(*region, *hw::FindDevice("h100"), eo, &ctx);
    INFO(c.label << ": " << (emitted.ok() ? "" : emitted.error().ToString()));
    REQUIRE(emitted.ok());
    code.push_back(emitted->code);
  }
  return code;
}

bool Has(const std::string& code, const std::string& what) {
  return code.find(what) != std::string::npos;
}

// CUDA code that calls an atomic (comments aside).
bool CallsAtomics(const std::string& code) {
  for (const char* f : {"atomicAdd(", "atomicMax(", "atomicMin(", "atomicCAS(",
                        "ixa_atomic_"}) {
    if (Has(code, f)) return true;
  }
  return false;
}

TEST_CASE("scatter: add, max and min combiners use the hardware atomics",
          "[.][emit_scatter]") {
  std::vector<CheckCase> cases;
  for (const char* type :
       {"f32", "f64", "s32", "u32", "s64", "u64", "f16", "bf16"}) {
    cases.push_back(Case(std::string(type) + "_add",
                         Scatter(type, "add", 20, 40, 3), -1, 20));
  }
  for (const char* type : {"s32", "u32", "s64", "u64"}) {
    for (const char* op : {"maximum", "minimum"}) {
      cases.push_back(Case(std::string(type) + "_" + op,
                           Scatter(type, op, 20, 40, 3), 0, 19));
    }
  }
  std::vector<std::string> cuda = RunAll(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label);
    CHECK(!Has(cuda[i], "ixa_atomic_update"));
    CHECK(!Has(cuda[i], "atomicCAS"));
  }
  std::vector<std::string> mlir =
      RunAll({cases[0], cases[2]}, emit::Target::kMlir);
  CHECK(Has(mlir[0], "memref.atomic_rmw addf"));
  CHECK(Has(mlir[1], "memref.atomic_rmw addi"));
  CHECK(!Has(mlir[0], "generic_atomic_rmw"));
}

TEST_CASE("scatter: other combiners and types update in a CAS loop",
          "[.][emit_scatter]") {
  // Float max / min propagate NaN (no hardware op does); 8- and 16-bit
  // integers have no atomic add; a multiply is no hardware op.
  std::vector<CheckCase> cases = {
      Case("f32_max", Scatter("f32", "maximum", 20, 40, 3), 0, 19),
      Case("s8_add", Scatter("s8", "add", 20, 40, 3), 0, 19),
      Case("s16_min", Scatter("s16", "minimum", 20, 40, 3), 0, 19),
      Case("s32_multiply", Scatter("s32", "multiply", 20, 40, 3), 0, 19)};
  for (const std::string& code : RunAll(cases)) {
    CHECK(Has(code, "ixa_atomic_update"));
  }
}

TEST_CASE("scatter: unique indices update with plain loads and stores",
          "[.][emit_scatter]") {
  // Distinct indices (some out of bounds: skipped); the model fails a
  // plain write of one element by two threads, so these must be unique.
  std::vector<CheckCase> cases = {
      Case("f32_add", Scatter("f32", "add", 64, 40, 5, ", unique_indices=true"),
           -3, 66, /*distinct=*/true),
      Case("bf16_multiply",
           Scatter("bf16", "multiply", 33, 33, 1, ", unique_indices=true"), 0,
           32, /*distinct=*/true),
      Case("s8_max",
           Scatter("s8", "maximum", 50, 20, 7, ", unique_indices=true"), 0, 49,
           /*distinct=*/true)};
  for (const std::string& code : RunAll(cases)) {
    CHECK(!CallsAtomics(code));
  }
}

TEST_CASE("scatter: packed sub-byte elements update their byte atomically",
          "[.][emit_scatter]") {
  // Elements packed two (s4, u4) or four (s2, u2) to a byte: threads
  // updating one element, or neighbours in one byte, meet at the byte,
  // which an atomic read-modify-write updates (the element unpacked, the
  // combiner applied, packed back); odd widths put a row's ends inside a
  // byte shared with the next row. Unique indices store with the packed
  // store's atomic bit updates; sorted runs fold before their update.
  std::vector<CheckCase> cases = {
      Case("s4_add", Scatter("s4", "add", 9, 40, 3, "", "{1,0:E(4)}"), -1, 9),
      Case("u4_multiply", Scatter("u4", "multiply", 7, 30, 5, "", "{1,0:E(4)}"),
           0, 6),
      Case("s4_max", Scatter("s4", "maximum", 5, 33, 1, "", "{1,0:E(4)}"), 0,
           4),
      Case("s2_add", Scatter("s2", "add", 6, 25, 3, "", "{1,0:E(2)}"), 0, 5),
      Case("u2_or", Scatter("u2", "or", 4, 21, 7, "", "{1,0:E(2)}"), 0, 3),
      Case("s4_unpacked_add", Scatter("s4", "add", 9, 40, 3), 0, 8),
      Case("s4_add_unique",
           Scatter("s4", "add", 40, 20, 3, ", unique_indices=true",
                   "{1,0:E(4)}"),
           -2, 41, /*distinct=*/true),
      Case("u2_subtract_unique",
           Scatter("u2", "subtract", 30, 29, 5, ", unique_indices=true",
                   "{1,0:E(2)}"),
           0, 29, /*distinct=*/true),
      Case("s4_add_sorted",
           Scatter("s4", "add", 6, 48, 3, ", indices_are_sorted=true",
                   "{1,0:E(4)}"),
           0, 5, false, /*sorted=*/true)};
  std::vector<std::string> cuda = RunAll(cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label);
    CHECK(Has(cuda[i], "ixa_atomic_update"));
  }
  // The mlir target: a generic atomic read-modify-write of the byte.
  std::vector<std::string> mlir = RunAll({cases[0]}, emit::Target::kMlir);
  CHECK(Has(mlir[0], "memref.generic_atomic_rmw"));
}

TEST_CASE("scatter: packed f4e2m1fn codes combine as packed integers do",
          "[.][emit_scatter]") {
  // cpp and cuda; the mlir target refuses it: rounding back to f4 calls
  // nearbyintf, which MLIR does not allow inside an atomic update.
  CheckCase c =
      Case("f4_max", Scatter("f4e2m1fn", "maximum", 5, 30, 3, "", "{1,0:E(4)}"),
           0, 4);
  c.run_mlir = false;
  c.reassociates = false;  // max is exact in any order
  CheckOptions options;
  options.planner = H100Planner();
  options.verify_mlir = false;
  CheckSummary s = CheckFusions({c}, options);
  REQUIRE(s.cases.size() == 1);
  INFO(s.cases[0].error);
  CHECK(s.cases[0].emitter == "scatter");
  CHECK(s.cases[0].error == "");
  auto module = hlo::ParseHloModule(c.hlo);
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions eo;
  eo.target = emit::Target::kMlir;
  auto mlir = emit::EmitFusion(*region, *hw::FindDevice("h100"), eo, &ctx);
  REQUIRE(!mlir.ok());
  CHECK(mlir.error().code == ErrorCode::kUnsupported);
  CHECK(Has(mlir.error().message, "inside an atomic update"));
}

TEST_CASE("scatter: sorted indices fold each run into one atomic update",
          "[.][emit_scatter]") {
  // 64 rows of 4 sorted indices in [0, 3] (and out-of-bounds -1 and 20):
  // runs of about 16 rows, cut at every 8th; each thread of a run's first
  // row folds it. Fewer atomic operations than updates: the model counts
  // them and fails a run past the limit.
  const int64_t rows = 64, width = 3;
  std::vector<CheckCase> sorted = {
      Case("f32_add_sorted",
           Scatter("f32", "add", 20, rows, width, ", indices_are_sorted=true"),
           0, 3, false, /*sorted=*/true),
      Case("s32_max_sorted_out_of_bounds",
           Scatter("s32", "maximum", 20, rows, width,
                   ", indices_are_sorted=true"),
           -1, 2, false, /*sorted=*/true),
      Case("f16_max_sorted",
           Scatter("f16", "maximum", 20, rows, width,
                   ", indices_are_sorted=true"),
           18, 20, false, /*sorted=*/true)};
  // At most 8 runs of 8 rows, plus one per change of index: 4 changes.
  const int64_t limit = (rows / 8 + 4) * width;
  REQUIRE(limit < rows * width / 2);
  setenv("IXA_CUDA_MODEL_ATOMIC_LIMIT", std::to_string(limit).c_str(), 1);
  CheckSummary s = Check(sorted);
  for (const CaseReport& c : s.cases) {
    INFO(c.label);
    CHECK(c.error == "");
  }
  // The same scatter without the attribute: an atomic per update.
  CheckCase unsorted = sorted[0];
  unsorted.hlo = Scatter("f32", "add", 20, rows, width);
  CheckSummary u = Check({unsorted});
  unsetenv("IXA_CUDA_MODEL_ATOMIC_LIMIT");
  REQUIRE(u.cases.size() == 1);
  INFO(u.cases[0].error);
  CHECK(Has(u.cases[0].error, "past the limit of " + std::to_string(limit)));
}

TEST_CASE("scatter: sorted index vectors of two components",
          "[.][emit_scatter]") {
  // Index rows (a, b) compare whole: a run ends where either changes.
  CheckCase c = Case(
      "two_components",
      Combiner("f32", "add") +
          "ENTRY e { p = f32[4,3,5] parameter(0)\n"
          "i = s32[50,2] parameter(1)\nu = f32[50,5] parameter(2)\n"
          "ROOT s = f32[4,3,5] scatter(p, i, u), update_window_dims={1}, "
          "inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, "
          "index_vector_dim=1, indices_are_sorted=true, to_apply=comb }",
      0, 2, false, /*sorted=*/true);
  RunAll({c});
}

std::string Variadic(const std::string& attributes) {
  return "comb { a = f32[] parameter(0)\n b = s32[] parameter(1)\n"
         " c = f32[] parameter(2)\n d = s32[] parameter(3)\n"
         " x = f32[] add(a, c)\n y = s32[] maximum(b, d)\n"
         " ROOT t = (f32[], s32[]) tuple(x, y) }\n"
         "ENTRY e { p = f32[30,4] parameter(0)\nq = s32[30,4] parameter(1)\n"
         "i = s32[25,1] parameter(2)\nu = f32[25,4] parameter(3)\n"
         "v = s32[25,4] parameter(4)\n"
         "ROOT s = (f32[30,4], s32[30,4]) scatter(p, q, i, u, v), "
         "update_window_dims={1}, inserted_window_dims={0}, "
         "scatter_dims_to_operand_dims={0}, index_vector_dim=1" +
         attributes + ", to_apply=comb }";
}

TEST_CASE("scatter: variadic scatters", "[.][emit_scatter]") {
  // No atomic updates two elements: unique indices update in place, others
  // run in order in one thread.
  auto variadic = [](std::string label, std::string attributes, bool distinct) {
    CheckCase c;
    c.label = std::move(label);
    c.hlo = Variadic(attributes);
    c.reassociates = true;
    c.run_mlir = true;
    c.parameters.resize(5);
    c.parameters[2].random.int_lo = distinct ? -2 : 0;
    c.parameters[2].random.int_hi = distinct ? 31 : 9;
    c.parameters[2].distinct = distinct;
    return c;
  };
  std::vector<std::string> code =
      RunAll({variadic("colliding", "", false),
              variadic("unique", ", unique_indices=true", true)});
  CHECK(!CallsAtomics(code[0]));
  CHECK(!CallsAtomics(code[1]));
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
