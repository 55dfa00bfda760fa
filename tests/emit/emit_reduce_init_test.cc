// Reduce inits that are not their reducer's identity. XLA applies an init
// an implementation-defined number of times, so only the identity has one
// answer: `emit` says so in its notes (emit/reduce_init_notes.h), and the
// tests feed a parameter used as an init the reducer's identity, as XLA's
// own tests do (FeedReducerIdentities).
#include <catch2/catch.hpp>
#include <limits>

#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_harness.h"
#include "tests/emit/emit_interpreter.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

std::string Reducer(const std::string& type, const std::string& op) {
  return "HloModule m\nred { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT r = " + type + "[] " + op + "(a, b) }\n";
}

// A row reduction of p = T[8,1000] to T[8] with init `init` (an entry
// instruction named i).
std::string RowReduce(const std::string& type, const std::string& op,
                      const std::string& init) {
  return Reducer(type, op) + "ENTRY e { p = " + type +
         "[8,1000] parameter(0)\n i = " + type + "[] " + init +
         "\n ROOT r = " + type +
         "[8] reduce(p, i), dimensions={1}, to_apply=red }";
}

struct Emitted {
  std::string emitter;
  std::vector<std::string> notes;
};

Emitted Emit(const std::string& hlo) {
  INFO(hlo);
  auto module = hlo::ParseHloModule(hlo);
  INFO((module.ok() ? "" : module.error().ToString()));
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = emit::Target::kCpp;
  auto r = emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  INFO((r.ok() ? "" : r.error().ToString()));
  REQUIRE(r.ok());
  return {EmitterKindName(r->plan.kind), r->notes};
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("reduce inits: emit notes every init that is not the identity",
          "[.][emit_kinds]") {
  // Identities: no note.
  CHECK(Emit(RowReduce("f32", "add", "constant(0)")).notes.empty());
  CHECK(Emit(RowReduce("f32", "add", "constant(-0)")).notes.empty());
  CHECK(Emit(RowReduce("f32", "multiply", "constant(1)")).notes.empty());
  CHECK(Emit(RowReduce("s32", "xor", "constant(0)")).notes.empty());
  // Idempotent reducers give one answer whatever the init: no note.
  CHECK(Emit(RowReduce("f32", "maximum", "constant(3)")).notes.empty());
  CHECK(Emit(RowReduce("s32", "minimum", "parameter(1)")).notes.empty());

  // A constant other than the identity, in a reduction kernel.
  Emitted e = Emit(RowReduce("f32", "add", "constant(5)"));
  CHECK(e.emitter == std::string("reduction"));
  REQUIRE(e.notes.size() == 1);
  const std::string& n = e.notes[0];
  CHECK(Has(n, "reduce 'r'"));
  CHECK(Has(n, "the init 'i' = 5 is not the identity of its reducer (add: 0)"));
  CHECK(Has(n, "implementation-defined number of times"));
  CHECK(Has(n, "once per partial result"));

  e = Emit(RowReduce("s32", "multiply", "constant(2)"));
  REQUIRE(e.notes.size() == 1);
  CHECK(Has(e.notes[0], "(multiply: 1)"));

  // A parameter: its value is unknown.
  e = Emit(RowReduce("f32", "add", "parameter(1)"));
  REQUIRE(e.notes.size() == 1);
  CHECK(Has(e.notes[0], "the init 'i' is not a constant"));
  CHECK(Has(e.notes[0], "(add: 0)"));

  // A reduce the loop emitter computes whole per output element.
  e = Emit(Reducer("f32", "add") +
           "ENTRY e { p = f32[6,5,4] parameter(0)\n c = f32[] constant(2)\n"
           " r = f32[6,4] reduce(p, c), dimensions={1}, to_apply=red\n"
           " ROOT t = f32[4,6] transpose(r), dimensions={1,0} }");
  REQUIRE(e.notes.size() == 1);
  CHECK(Has(e.notes[0], "once per output element"));

  // A variadic reducer has no identity this recognizes: a constant init
  // cannot be judged (no note), a parameter is unknown (a note).
  const std::string argmax =
      "HloModule m\nam { a = f32[] parameter(0)\n b = s32[] parameter(1)\n"
      " c = f32[] parameter(2)\n d = s32[] parameter(3)\n"
      " g = pred[] compare(a, c), direction=GE\n"
      " v = f32[] select(g, a, c)\n w = s32[] select(g, b, d)\n"
      " ROOT t = (f32[], s32[]) tuple(v, w) }\n"
      "ENTRY e { p = f32[8,1000] parameter(0)\n"
      " k = s32[8,1000] iota(), iota_dimension=1\n";
  CHECK(Emit(argmax +
             " x = f32[] constant(-inf)\n z = s32[] constant(0)\n"
             " ROOT r = (f32[8], s32[8]) reduce(p, k, x, z), dimensions={1},"
             " to_apply=am }")
            .notes.empty());
  e = Emit(argmax +
           " x = f32[] parameter(1)\n z = s32[] constant(0)\n"
           " ROOT r = (f32[8], s32[8]) reduce(p, k, x, z), dimensions={1},"
           " to_apply=am }");
  REQUIRE(e.notes.size() == 1);
  CHECK(Has(e.notes[0], "the init 'x' is not a constant"));
}

Literal Scalar(ElementType type, double value) {
  Literal l = Literal::Make(type, {});
  if (IsFloat(type)) {
    l.floats[0] = value;
  } else {
    l.ints[0] = WrapToType(static_cast<uint64_t>(value), type);
  }
  return l;
}

// The argument fed to init parameter 1 of `op` over `type`.
Literal FedInit(const std::string& type, const std::string& op) {
  auto module = hlo::ParseHloModule(RowReduce(type, op, "parameter(1)"));
  REQUIRE(module.ok());
  const hlo::Computation& entry = *(*module)->entry();
  const hlo::Shape& data = entry.parameter(0)->shape;
  const hlo::Shape& init = entry.parameter(1)->shape;
  std::vector<Literal> args = {Literal::Make(data.type, data.dims),
                               Scalar(init.type, 7)};
  FeedReducerIdentities(entry, &args);
  return args[1];
}

TEST_CASE("reduce inits: init parameters get the reducer's identity",
          "[.][emit_kinds]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(FedInit("f32", "add").floats[0] == 0);
  CHECK(FedInit("f32", "multiply").floats[0] == 1);
  CHECK(FedInit("f32", "maximum").floats[0] == -inf);
  CHECK(FedInit("bf16", "minimum").floats[0] == inf);
  CHECK(FedInit("s8", "maximum").AsInt(0) == -128);
  CHECK(FedInit("s8", "minimum").AsInt(0) == 127);
  CHECK(FedInit("u16", "minimum").AsInt(0) == 65535);
  CHECK(FedInit("u16", "maximum").AsInt(0) == 0);
  CHECK(FedInit("s32", "and").AsInt(0) == -1);
  CHECK(FedInit("pred", "and").AsInt(0) == 1);
  CHECK(FedInit("s32", "or").AsInt(0) == 0);
  CHECK(FedInit("u32", "xor").AsInt(0) == 0);
  // No identity known: the argument stays.
  CHECK(FedInit("s32", "subtract").AsInt(0) == 7);

  // A parameter that is data, not an init, stays too.
  auto module = hlo::ParseHloModule(
      Reducer("s32", "add") +
      "ENTRY e { p = s32[4] parameter(0)\n q = s32[] parameter(1)\n"
      " c = s32[] constant(0)\n r = s32[] reduce(p, c), dimensions={0},"
      " to_apply=red\n ROOT s = s32[] add(r, q) }");
  REQUIRE(module.ok());
  std::vector<Literal> args = {Literal::Make(ElementType::kS32, {4}),
                               Scalar(ElementType::kS32, 7)};
  FeedReducerIdentities(*(*module)->entry(), &args);
  CHECK(args[1].AsInt(0) == 7);
}

// End to end: the kernel applies a parameter init once per partial (more
// than once per row), the interpreter once; with the identity fed to both
// they agree, whatever the reduction's form.
TEST_CASE("reduce inits: kernels with a parameter init match the interpreter",
          "[.][emit_kinds]") {
  std::vector<CheckCase> cases;
  auto add = [&](std::string label, std::string hlo) {
    CheckCase c;
    c.label = std::move(label);
    c.hlo = std::move(hlo);
    c.expect_emitter = "reduction";
    c.reassociates = true;
    cases.push_back(std::move(c));
  };
  add("row_add_param_init", RowReduce("f32", "add", "parameter(1)"));
  add("multi_row_add_param_init",
      Reducer("s32", "add") +
          "ENTRY e { p = s32[300,8] parameter(0)\n i = s32[] parameter(1)\n"
          " ROOT r = s32[300] reduce(p, i), dimensions={1}, to_apply=red }");
  add("column_add_param_init",
      Reducer("s32", "add") +
          "ENTRY e { p = s32[300,70] parameter(0)\n i = s32[] parameter(1)\n"
          " ROOT r = s32[70] reduce(p, i), dimensions={0}, to_apply=red }");
  CheckOptions check;
  check.planner = H100Planner();
  check.verify_mlir = false;
  check.compile_cuda = false;
  CheckSummary s = CheckFusions(cases, check);
  REQUIRE(s.cases.size() == cases.size());
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
