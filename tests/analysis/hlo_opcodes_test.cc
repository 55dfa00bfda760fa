// The HLO reader's opcode table (analysis/hlo/opcodes.h): a misspelled or
// made-up opcode is a parse_error at the opcode, with the closest known
// opcode suggested; every opcode of the table (and XLA's async forms) reads.
#include <set>
#include <string>

#include "analysis/hlo/opcodes.h"
#include "analysis/hlo/printer.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

Error ParseFailure(const std::string& text) {
  auto m = hlo::ParseHloModule(text);
  REQUIRE_FALSE(m.ok());
  return m.error();
}

TEST_CASE("HLO opcodes: an unknown opcode is a parse error at the opcode",
          "[hlo]") {
  struct Bad {
    std::string text;
    int line, column;
    std::string message;
  };
  const std::vector<Bad> cases = {
      {"p0 = f32[8] parameter(0)\nROOT e = f32[8] exponentail(p0)", 2, 17,
       "unknown opcode 'exponentail'; did you mean 'exponential'?"},
      {"p0 = f32[8] parameter(0)\nROOT f = f32[8] frobnicate(p0)", 2, 17,
       "unknown opcode 'frobnicate'"},
      // Without a shape, and with '%' names.
      {"%p0 = f32[8] parameter(0)\n  ROOT %m = multipy(%p0, %p0)", 2, 13,
       "unknown opcode 'multipy'; did you mean 'multiply'?"},
      // Nested inside an operand list.
      {"p0 = f32[8] parameter(0)\nROOT n = f32[8] negate(f32[8] "
       "absolute(p0))",
       2, 31, "unknown opcode 'absolute'"},
      // Underscores for dashes, upper case.
      {"p0 = f32[8,8] parameter(0)\nROOT t = f32[8,8] "
       "get_tuple_element(p0), index=0",
       2, 19, "did you mean 'get-tuple-element'?"},
      {"p0 = f32[8] parameter(0)\nROOT a = f32[8] Add(p0, p0)", 2, 17,
       "did you mean 'add'?"},
      // An async suffix on an unknown operation.
      {"p0 = f32[8] parameter(0)\nROOT s = f32[8] frob-start(p0)", 2, 17,
       "unknown opcode 'frob-start'"},
      // In a named computation of a module, after other computations.
      {"HloModule m\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] "
       "parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\nENTRY e {\n  p = "
       "f32[8] parameter(0)\n  c = f32[] constant(0)\n  ROOT r = f32[] "
       "reduse(p, c), dimensions={0}, to_apply=add\n}",
       12, 18, "unknown opcode 'reduse'; did you mean 'reduce'?"},
  };
  for (const Bad& b : cases) {
    INFO(b.text);
    Error e = ParseFailure(b.text);
    INFO(e.ToString());
    CHECK(e.code == ErrorCode::kParseError);
    CHECK(e.line == b.line);
    CHECK(e.column == b.column);
    CHECK(e.message.find(b.message) != std::string::npos);
  }
}

TEST_CASE("HLO opcodes: no suggestion when nothing is close", "[hlo]") {
  for (const char* name : {"frobnicate", "xyzzy", "convolve", "matmul"}) {
    INFO(name);
    CHECK_FALSE(hlo::ClosestOpcode(name).has_value());
    CHECK(hlo::UnknownOpcodeMessage(name) ==
          "unknown opcode '" + std::string(name) + "'");
  }
  CHECK(hlo::ClosestOpcode("exponentail") == "exponential");
  CHECK(hlo::ClosestOpcode("tranpose") == "transpose");
  CHECK(hlo::ClosestOpcode("reduce_window") == "reduce-window");
  CHECK(hlo::ClosestOpcode("brodcast") == "broadcast");
  CHECK(hlo::ClosestOpcode("ad") == "add");
}

TEST_CASE("HLO opcodes: the table is XLA's list, sorted, with async forms",
          "[hlo]") {
  auto table = hlo::KnownOpcodes();
  CHECK(std::is_sorted(table.begin(), table.end()));
  std::set<std::string_view> names(table.begin(), table.end());
  CHECK(names.size() == table.size());
  // A sample across XLA's list, old and new.
  for (const char* op : {"abs",
                         "add-dependency",
                         "after-all",
                         "all-gather-start",
                         "async-update",
                         "batch-norm-grad",
                         "cholesky",
                         "collective-broadcast",
                         "count-leading-zeros",
                         "domain",
                         "dynamic-reshape",
                         "erf",
                         "fft",
                         "get-dimension-size",
                         "opt-barrier",
                         "ragged-all-to-all",
                         "ragged-dot",
                         "rng-get-and-update-state",
                         "scaled-dot",
                         "scan",
                         "stochastic-convert",
                         "topk",
                         "triangular-solve",
                         "while",
                         "xor"}) {
    INFO(op);
    CHECK(hlo::IsKnownOpcode(op));
  }
  // XLA's printer writes async-start/-update/-done wrapping an op as
  // `<op>-start` and so on.
  for (const char* op :
       {"custom-call-start", "custom-call-update", "custom-call-done",
        "reduce-scatter-start", "all-to-all-done", "fusion-start"}) {
    INFO(op);
    CHECK(hlo::IsKnownOpcode(op));
  }
  // Other IRs' names and near misses are not HLO opcodes.
  for (const char* op : {"arccos", "cos", "exp", "mul", "dot_general", "-start",
                         "start", "add-", "ADD", ""}) {
    INFO(op);
    CHECK_FALSE(hlo::IsKnownOpcode(op));
  }
}

// Every opcode of the table in a minimal instruction, on one to three
// operands: the op may need other operands or attributes, so the parse may
// fail for those, but never for the opcode.
TEST_CASE("HLO opcodes: every opcode of the table reads", "[hlo]") {
  int complete = 0;
  for (std::string_view op : hlo::KnownOpcodes()) {
    bool read = false;
    for (const char* operands : {"p0", "p0, p0", "p0, p0, p0"}) {
      std::string text;
      if (op == "parameter") {
        text = "ROOT p0 = f32[4] parameter(0)";
      } else if (op == "constant") {
        text = "ROOT c = f32[] constant(1)";
      } else {
        text = "p0 = f32[4] parameter(0)\nROOT r = f32[4] " + std::string(op) +
               "(" + operands + ")";
      }
      INFO(text);
      auto m = hlo::ParseHloModule(text);
      if (m.ok()) {
        read = true;
        break;
      }
      INFO(m.error().ToString());
      CHECK(m.error().message.find("unknown opcode") == std::string::npos);
      CHECK(m.error().column != 17);  // not at the opcode
    }
    complete += read;
  }
  // All but the ops that need attributes or other shapes (broadcast, dot,
  // slice, ...: 17 of them) read whole.
  CHECK(complete >= 100);
}

TEST_CASE("HLO opcodes: one enumerator per name, aliases and async forms",
          "[hlo]") {
  for (size_t i = 0; i < hlo::kOpcodeCount; ++i) {
    const auto op = static_cast<hlo::Opcode>(i);
    INFO(hlo::OpcodeName(op));
    CHECK(hlo::ParseOpcode(hlo::OpcodeName(op)) == op);
    CHECK(hlo::WrittenOpcodeName(op) == hlo::OpcodeName(op));
  }
  CHECK(hlo::ParseOpcode("clz") == hlo::Opcode::kClz);
  CHECK(hlo::ParseOpcode("optimization-barrier") ==
        hlo::Opcode::kOptimizationBarrier);
  CHECK(hlo::OpcodeName(hlo::Opcode::kOptimizationBarrier) == "opt-barrier");
  CHECK_FALSE(hlo::ParseOpcode("custom-call-start").has_value());
  auto written = hlo::ParseWrittenOpcode("custom-call-start");
  REQUIRE(written.has_value());
  CHECK(written->opcode == hlo::Opcode::kAsyncStart);
  CHECK(written->async_wrapped == hlo::Opcode::kCustomCall);
  CHECK(hlo::WrittenOpcodeName(written->opcode, written->async_wrapped) ==
        "custom-call-start");
  written = hlo::ParseWrittenOpcode("all-gather-start");
  REQUIRE(written.has_value());
  CHECK(written->opcode == hlo::Opcode::kAllGatherStart);
  CHECK_FALSE(written->async_wrapped.has_value());
  // Properties.
  CHECK(hlo::ElementwiseOperandCount(hlo::Opcode::kSelect) == 3);
  CHECK(hlo::ElementwiseOperandCount(hlo::Opcode::kAdd) == 2);
  CHECK(hlo::ElementwiseOperandCount(hlo::Opcode::kExp) == 1);
  CHECK(hlo::IsElementwiseOpcode(hlo::Opcode::kMap));
  CHECK(hlo::ElementwiseOperandCount(hlo::Opcode::kMap) == 0);
  CHECK_FALSE(hlo::IsElementwiseOpcode(hlo::Opcode::kOptimizationBarrier));
  CHECK(hlo::IsDataMovement(hlo::Opcode::kBroadcast));
  CHECK_FALSE(hlo::IsDataMovement(hlo::Opcode::kAdd));
  CHECK(hlo::IsIndexTransform(hlo::Opcode::kSlice));
  CHECK(hlo::IsComplexEmittable(hlo::Opcode::kMultiply));
  CHECK_FALSE(hlo::IsComplexEmittable(hlo::Opcode::kAtan2));
  CHECK(hlo::IsAsyncHalf(hlo::Opcode::kRecvDone));
}

TEST_CASE("HLO opcodes: the printer writes what the reader read", "[hlo]") {
  auto m = hlo::ParseHloModule(
      "p0 = f32[8] parameter(0)\n"
      "s = ((f32[8]), f32[8]) custom-call-start(p0), custom_call_target=\"x\"\n"
      "ROOT d = f32[8] custom-call-done(s)");
  REQUIRE(m.ok());
  const hlo::Instruction* s = (*m)->FindInstruction("s");
  REQUIRE(s != nullptr);
  CHECK(s->opcode == hlo::Opcode::kAsyncStart);
  CHECK(hlo::OpcodeName(*s) == "custom-call-start");
  CHECK(hlo::PrintInstruction(*s, "s", hlo::SanitizedNaming(), false)
            .find("custom-call-start(") != std::string::npos);
  auto c =
      hlo::ParseHloModule("p0 = s32[8] parameter(0)\nROOT c = s32[8] clz(p0)");
  REQUIRE(c.ok());
  CHECK((*c)->entry()->root()->opcode == hlo::Opcode::kClz);
  CHECK(hlo::OpcodeName(*(*c)->entry()->root()) == "count-leading-zeros");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
