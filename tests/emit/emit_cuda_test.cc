// Defects of the `cuda` target that only running it shows, each with the
// fusions that showed it, run in the CPU model of CUDA against the
// interpreter (and, like every test fusion, as `cpp` and `mlir`).
#include <catch2/catch.hpp>

#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_harness.h"
#include "tests/emit/emit_many_outputs.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

CheckCase Case(std::string label, std::string hlo, bool reassociates = false) {
  CheckCase c;
  c.label = std::move(label);
  c.hlo = std::move(hlo);
  c.reassociates = reassociates;
  return c;
}

std::string Reducer(const std::string& type, const std::string& op) {
  return "red { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT r = " + type + "[] " + op + "(a, b) }\n";
}

// The cases through the harness with the CUDA model on; every one must
// pass. Returns the `cuda` code of each.
std::vector<std::string> RunInCudaModel(const std::vector<CheckCase>& cases) {
  CheckOptions options;
  options.planner = H100Planner();
  options.run_cuda = true;
  CheckSummary s = CheckFusions(cases, options);
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
  // The sanitizer pass runs every kSanitizedStride-th case (emit_harness.h).
  const int expected =
      Sanitized() ? (static_cast<int>(cases.size()) + kSanitizedStride - 1) /
                        kSanitizedStride
                  : static_cast<int>(cases.size());
  CHECK(s.cuda_runs == expected);
  std::vector<std::string> code;
  for (const CheckCase& c : cases) {
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    emit::EmitOptions eo;
    eo.target = emit::Target::kCuda;
    auto emitted = emit::EmitFusion(*region, *hw::FindDevice("h100"), eo, &ctx);
    REQUIRE(emitted.ok());
    code.push_back(emitted->code);
  }
  return code;
}

TEST_CASE("cuda: loop, transpose, concatenate and slices run in the model",
          "[.][emit_cuda]") {
  RunInCudaModel(
      {Case("loop_1d",
            "p = f32[1001] parameter(0)\nROOT r = f32[1001] sine(p)"),
       Case("transpose_2d_u8",
            "p = u8[33,130] parameter(0)\n"
            "ROOT t = u8[130,33] transpose(p), dimensions={1,0}"),
       // Generalized transposes whose kept minor dim is one vector (each
       // thread moves 4, 16 and 8 bytes), and one that is not (3).
       Case("transpose_0213_s8_words",
            "p = s8[2,40,36,4] parameter(0)\n"
            "ROOT t = s8[2,36,40,4] transpose(p), dimensions={0,2,1,3}"),
       Case("transpose_102_f32_vec4",
            "p = f32[33,70,4] parameter(0)\n"
            "ROOT t = f32[70,33,4] transpose(p), dimensions={1,0,2}"),
       Case("transpose_102_bf16_exp",
            "p = bf16[40,34,2] parameter(0)\n"
            "e = bf16[40,34,2] exponential(p)\n"
            "ROOT t = bf16[34,40,2] transpose(e), dimensions={1,0,2}"),
       Case("transpose_102_u8_kept3",
            "p = u8[40,34,3] parameter(0)\n"
            "ROOT t = u8[34,40,3] transpose(p), dimensions={1,0,2}"),
       Case("concatenate",
            "a = f32[5,7] parameter(0)\nb = f32[5,13] parameter(1)\n"
            "ROOT k = f32[5,20] concatenate(a, b), dimensions={1}"),
       Case("input_slices",
            "p = f32[9,40] parameter(0)\ne = f32[9,40] exponential(p)\n"
            "a = f32[4,40] slice(e), slice={[0:4], [0:40]}\n"
            "b = f32[5,33] slice(e), slice={[4:9], [7:40]}\n"
            "ROOT t = (f32[4,40], f32[5,33]) tuple(a, b)")});
}

TEST_CASE("cuda: reductions shuffle their partials as floats over the lanes",
          "[.][emit_cuda]") {
  // f16 and bf16 partials are computed in f32: truncated to integers on
  // their way through a shuffle they lose every fraction. The mask names
  // every lane the block has (__activemask() promises no convergence; a
  // lane past the end of a small block does not exist), and a multi-row
  // reduction shuffles within its row's lanes.
  std::vector<CheckCase> cases = {
      Case("row_bf16_warps",
           Reducer("bf16", "add") +
               "ENTRY e { p = bf16[6,700] parameter(0)\n"
               "c = bf16[] constant(0)\n"
               "ROOT r = bf16[6] reduce(p, c), dimensions={1}, to_apply=red }",
           true),
      Case("row_f16_one_warp",
           Reducer("f16", "add") +
               "ENTRY e { p = f16[9,40] parameter(0)\n"
               "c = f16[] constant(0)\n"
               "ROOT r = f16[9] reduce(p, c), dimensions={1}, to_apply=red }",
           true),
      Case("multi_row_f16",
           Reducer("f16", "add") +
               "ENTRY e { p = f16[300,8] parameter(0)\nc = f16[] constant(0)\n"
               "ROOT r = f16[300] reduce(p, c), dimensions={1}, to_apply=red }",
           true),
      // Blocks of 6 threads (3 rows of 2 lanes) and of 48 (a partial
      // second warp).
      Case("multi_row_six_threads",
           Reducer("f32", "add") +
               "ENTRY e { p = f32[3,2] parameter(0)\nc = f32[] constant(0)\n"
               "ROOT r = f32[3] reduce(p, c), dimensions={1}, to_apply=red }",
           true),
      Case("multi_row_partial_warp",
           Reducer("f32", "add") +
               "ENTRY e { p = f32[12,4] parameter(0)\nc = f32[] constant(0)\n"
               "ROOT r = f32[12] reduce(p, c), dimensions={1}, to_apply=red }",
           true),
      Case("row_f32",
           Reducer("f32", "add") +
               "ENTRY e { p = f32[7,1000] parameter(0)\n"
               "c = f32[] constant(0)\n"
               "ROOT r = f32[7] reduce(p, c), dimensions={1}, to_apply=red }",
           true),
      Case("column_bf16",
           Reducer("bf16", "add") +
               "ENTRY e { p = bf16[100,65] parameter(0)\n"
               "c = bf16[] constant(0)\n"
               "ROOT r = bf16[65] reduce(p, c), dimensions={0}, to_apply=red }",
           true),
      Case("row_s64",
           Reducer("s64", "add") +
               "ENTRY e { p = s64[5,300] parameter(0)\nc = s64[] constant(0)\n"
               "ROOT r = s64[5] reduce(p, c), dimensions={1}, to_apply=red }"),
  };
  for (const std::string& code : RunInCudaModel(cases)) {
    CHECK(code.find("__activemask") == std::string::npos);
    CHECK(code.find("static_cast<int>(acc") == std::string::npos);
  }
}

TEST_CASE("cuda: a NaN constant has XLA's bits", "[.][emit_cuda]") {
  // 0.0f / 0.0f, which nvcc keeps as a division, gives the GPU's
  // canonical NaN (0x7fffffff) where XLA's `nan` is 0x7fc00000. (`-nan`:
  // in the semantics test, whose expected bits are worked out by hand.)
  RunInCudaModel({Case("nan_bits",
                       "ENTRY e { c = f32[] constant(nan)\n"
                       "d = f64[] constant(nan)\n"
                       "a = s32[] bitcast-convert(c)\n"
                       "b = s64[] bitcast-convert(d)\n"
                       "ROOT t = (s32[], s64[]) tuple(a, b) }")});
}

TEST_CASE("cuda: an in-place output and its input are not __restrict__",
          "[.][emit_cuda]") {
  // One array behind two pointers: restrict would let the compiler read
  // the input through the read-only cache while the output is written.
  RunInCudaModel(
      {Case("in_place_dus",
            "p = s32[33,17] parameter(0)\nu = s32[5,9] parameter(1)\n"
            "i = s32[] parameter(2)\nj = s32[] parameter(3)\n"
            "m = s32[5,9] multiply(u, u)\n"
            "ROOT d = s32[33,17] dynamic-update-slice(p, m, i, j)"),
       Case("scatter_in_place",
            Reducer("f32", "add") +
                "ENTRY e { p = f32[20,6] parameter(0)\n"
                "i = s32[30,1] parameter(1)\nu = f32[30,6] parameter(2)\n"
                "ROOT s = f32[20,6] scatter(p, i, u), update_window_dims={1}, "
                "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                "index_vector_dim=1, to_apply=red }",
            true)});
}

// A scatter of 40 updates into `type`[33,1], combining with `op`.
std::string Scatter33(const std::string& type, const std::string& op) {
  return Reducer(type, op) + "ENTRY e { p = " + type +
         "[33,1] parameter(0)\n"
         "i = s32[40,1] parameter(1)\nu = " +
         type +
         "[40,1] parameter(2)\n"
         "ROOT s = " +
         type +
         "[33,1] scatter(p, i, u), update_window_dims={1}, "
         "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
         "index_vector_dim=1, to_apply=red }";
}

TEST_CASE("cuda: atomic updates of 16- and 8-bit elements stay in the buffer",
          "[.][emit_cuda]") {
  // A 32-bit compare-and-swap on the word holding the last element read
  // past the end of an f16 buffer of an odd element count; f16 has a
  // 16-bit CAS, and an s8 element's halfword is read only through atomics.
  auto scatter = Scatter33;
  std::vector<CheckCase> cases = {Case("f16_add", scatter("f16", "add"), true),
                                  Case("s8_add", scatter("s8", "add")),
                                  Case("s8_max", scatter("s8", "maximum")),
                                  Case("bf16_min", scatter("bf16", "minimum"))};
  for (CheckCase& c : cases) {
    c.parameters.resize(3);
    c.parameters[1].random.int_lo = 0;  // the last element too, often
    c.parameters[1].random.int_hi = 32;
  }
  RunInCudaModel(cases);
}

// The buffers of `hlo`'s kernel for `target` (mlir: its GPU form), as the
// emit response gives them.
std::vector<emit::EmittedBuffer> BuffersOf(
    const std::string& hlo, emit::Target target = emit::Target::kCuda) {
  auto module = hlo::ParseHloModule(hlo);
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions eo;
  eo.target = target;
  auto emitted = emit::EmitFusion(*region, *hw::FindDevice("h100"), eo, &ctx);
  REQUIRE(emitted.ok());
  return emitted->buffers;
}

TEST_CASE("cuda: 1-byte atomics stay inside the allocation the response asks",
          "[.][emit_cuda]") {
  // A 1-byte atomic update (a packed s4 store, an s8 scatter) runs on its
  // aligned halfword. An in-place dynamic-update-slice of s4[100,9]
  // (450 bytes) whose update covers the last rows: a 4-byte word holding
  // bytes 448-449 reached 2 bytes past the buffer. s4[7,7] is 25 bytes:
  // its last byte's halfword needs the byte after it, which the response
  // asks to allocate (26 bytes, for the input whose memory the output
  // takes too).
  auto dus = [](const std::string& shape, const std::string& update) {
    return "p = " + shape + " parameter(0)\nu = " + update +
           " parameter(1)\ni = s32[] parameter(2)\nj = s32[] parameter(3)\n"
           "n = " +
           update + " negate(u)\nROOT d = " + shape +
           " dynamic-update-slice(p, n, i, j)";
  };
  std::vector<CheckCase> cases = {
      Case("s4_in_place_dus_450_bytes",
           dus("s4[100,9]{1,0:E(4)}", "s4[5,9]{1,0:E(4)}")),
      Case("s4_in_place_dus_odd_bytes",
           dus("s4[7,7]{1,0:E(4)}", "s4[3,4]{1,0:E(4)}")),
      Case("s4_odd_bytes_loop",
           "p = s4[7,7]{1,0:E(4)} parameter(0)\n"
           "ROOT n = s4[7,7]{1,0:E(4)} negate(p)"),
      Case("s8_odd_scatter", Scatter33("s8", "add"))};
  // The updates reach the last rows and columns (start indices clamp).
  for (int k : {0, 1}) {
    cases[k].parameters.resize(4);
    cases[k].parameters[2].random.int_lo = 90;
    cases[k].parameters[2].random.int_hi = 200;
    cases[k].parameters[3].random.int_lo = 3;
    cases[k].parameters[3].random.int_hi = 20;
  }
  cases[3].parameters.resize(3);
  cases[3].parameters[1].random.int_lo = 30;  // the last byte, often
  cases[3].parameters[1].random.int_hi = 32;
  RunInCudaModel(cases);

  std::vector<emit::EmittedBuffer> big = BuffersOf(cases[0].hlo);
  REQUIRE(big.size() == 5);
  CHECK(big[4].aliases == 0);
  CHECK(big[0].allocation_bytes == 450);
  CHECK(big[4].allocation_bytes == 450);
  std::vector<emit::EmittedBuffer> odd = BuffersOf(cases[1].hlo);
  REQUIRE(odd.size() == 5);
  CHECK(odd[4].aliases == 0);
  CHECK(odd[0].allocation_bytes == 26);
  CHECK(odd[4].allocation_bytes == 26);
  CHECK(odd[1].allocation_bytes == 6);  // s4[3,4]: read only
  std::vector<emit::EmittedBuffer> loop = BuffersOf(cases[2].hlo);
  REQUIRE(loop.size() == 2);
  CHECK(loop[0].allocation_bytes == 25);
  CHECK(loop[1].allocation_bytes == 26);
  std::vector<emit::EmittedBuffer> s8 = BuffersOf(cases[3].hlo);
  REQUIRE(s8.size() == 4);
  CHECK(s8[3].allocation_bytes == 34);
  // In place, the operand's memory is the output's.
  CHECK(s8[0].allocation_bytes == (s8[3].aliases == 0 ? 34 : 33));
  // The mlir target's GPU form: LLVM widens an 8-bit atomic to its 32-bit
  // word; the cpp target updates in place.
  std::vector<emit::EmittedBuffer> mlir =
      BuffersOf(cases[3].hlo, emit::Target::kMlir);
  REQUIRE(mlir.size() == 4);
  CHECK(mlir[3].allocation_bytes == 36);
  std::vector<emit::EmittedBuffer> cpp =
      BuffersOf(cases[3].hlo, emit::Target::kCpp);
  REQUIRE(cpp.size() == 4);
  CHECK(cpp[3].allocation_bytes == 33);
}

TEST_CASE("cuda: the roots of a multi-output fusion are computed once",
          "[.][emit_cuda]") {
  // A function per root computed again the roots it reads, once per path
  // to them: exponentially many copies once nvcc inlines (its front end
  // grew past 20 GB on 46 outputs).
  std::vector<std::string> code = RunInCudaModel(
      {Case("diamond_f32", ManyOutputsDiamond(23, "f32", "5,37")),
       Case("chain_bf16", ManyOutputsChain(46, "bf16", "130"))});
  // No function per root; each parameter read once per index, each op
  // computed once (2 loads and 46 values).
  CHECK(code[0].find("fused_") == std::string::npos);
  auto count = [&](const std::string& s) {
    int n = 0;
    for (size_t at = code[0].find(s); at != std::string::npos;
         at = code[0].find(s, at + 1)) {
      ++n;
    }
    return n;
  };
  CHECK(count(" = b0[") == 1);
  CHECK(count(" = b1[") == 1);
  CHECK(count("const float ") == 2 + 46);
}

TEST_CASE("cuda: the launch reports the vector width the code accesses",
          "[.][emit_cuda]") {
  // A column reduction planned with vectors of 2 whose loads stay scalar
  // (the harness compares the reported vector_size with the code's widest
  // ixa_vec); and a loop whose unrolled elements become vectors of 4.
  RunInCudaModel({Case("column_f16_vectors",
                       Reducer("f16", "add") +
                           "ENTRY e { p = f16[3,300,130] parameter(0)\n"
                           "c = f16[] constant(0)\n"
                           "ROOT r = f16[3,130] reduce(p, c), dimensions={1}, "
                           "to_apply=red }",
                       true),
                  Case("loop_vectors",
                       "p = bf16[528,1024] parameter(0)\n"
                       "ROOT r = bf16[528,1024] multiply(p, p)")});
}

TEST_CASE("cuda: f16 and bf16 round through the hardware conversions",
          "[.][emit_cuda]") {
  // Each op computes in f32 and rounds to its type (XLA); a load and a
  // store move a 16-bit value exactly (a NaN's bits included: the model's
  // conversions give the canonical NaN, as the hardware's do).
  std::vector<std::string> code = RunInCudaModel(
      {Case("bf16_chain",
            "p = bf16[700] parameter(0)\nq = bf16[700] parameter(1)\n"
            "m = bf16[700] multiply(p, q)\nt = bf16[700] tanh(m)\n"
            "a = bf16[700] add(t, p)\nROOT d = bf16[700] divide(a, q)"),
       Case("f16_chain",
            "p = f16[3,130] parameter(0)\nq = f16[3,130] parameter(1)\n"
            "e = f16[3,130] exponential(p)\ns = f16[3,130] subtract(e, q)\n"
            "ROOT r = f16[3,130] sqrt(s)"),
       Case("narrowing",
            "p = f32[257] parameter(0)\nh = f16[257] convert(p)\n"
            "b = bf16[257] convert(p)\n"
            "ROOT t = (f16[257], bf16[257]) tuple(h, b)"),
       Case("bits_of_halves",
            "p = f16[64] parameter(0)\nq = bf16[64] parameter(1)\n"
            "a = s16[64] bitcast-convert(p)\nb = u16[64] bitcast-convert(q)\n"
            "ROOT t = (s16[64], u16[64]) tuple(a, b)")});
  for (const std::string& c : code) {
    CHECK(c.find("ixa_round_bf16") == std::string::npos);
    CHECK(c.find("ixa_round_f16") == std::string::npos);
    CHECK(c.find("ixa_f32_to_bf16(") == std::string::npos);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
