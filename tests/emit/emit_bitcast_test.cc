// bitcast-convert between element widths in every target: the narrow
// side's extra minor dim holds the wide element's pieces, the least
// significant first. Fusions of odd shapes split and assemble floats and
// integers of every width (with elementwise ops and transposes around
// them) in cpp, cuda (the CPU model of CUDA) and MLIR (verified, and run
// on the host) against the interpreter, which computes the pieces bit by
// bit on its own.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

CheckCase Case(std::string label, std::string hlo) {
  CheckCase c;
  c.label = std::move(label);
  c.hlo = std::move(hlo);
  c.run_mlir = true;
  return c;
}

// Integer parameters over their whole range (every bit pattern; the
// default small values would leave the high pieces zero).
CheckCase FullRange(CheckCase c, int parameters) {
  ParameterSpec p;
  p.random.int_lo = -(int64_t{1} << 62);
  p.random.int_hi = int64_t{1} << 62;
  c.parameters.assign(parameters, p);
  return c;
}

void ExpectAll(const std::vector<CheckCase>& cases, bool mlir = true) {
  CheckOptions options;
  options.planner = H100Planner();
  options.check_stages = mlir;
  options.verify_mlir = mlir;
  CheckSummary s = CheckFusions(cases, options);
  REQUIRE(s.cases.size() == cases.size());
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
}

// `wide`[dims] split into `narrow`[dims, ratio] and back, the pieces
// changed on the way (an op on the narrow type), and both kept.
CheckCase RoundTrip(const std::string& wide, const std::string& narrow,
                    int ratio, const std::string& dims,
                    const std::string& narrow_op) {
  const std::string w = wide + "[" + dims + "]";
  const std::string n = narrow + "[" + dims + "," + std::to_string(ratio) + "]";
  return Case(wide + "_" + narrow + "_round_trip",
              "p0 = " + w + " parameter(0)\n" + "s = " + n +
                  " bitcast-convert(p0)\n" + "m = " + n + " " + narrow_op +
                  "\n" + "b = " + w + " bitcast-convert(m)\n" + "ROOT r = (" +
                  n + ", " + w + ") tuple(m, b)\n");
}

TEST_CASE("bitcast-convert splits and assembles elements of every width",
          "[.][emit_types]") {
  std::vector<CheckCase> cases;
  // Narrowing, with elementwise ops after.
  cases.push_back(Case("f32_to_u8x4",
                       "p0 = f32[7,5] parameter(0)\n"
                       "a = f32[7,5] abs(p0)\n"
                       "b = u8[7,5,4] bitcast-convert(a)\n"
                       "ROOT r = u8[7,5,4] add(b, b)\n"));
  cases.push_back(Case("f32_to_s16x2",
                       "p0 = f32[11] parameter(0)\n"
                       "b = s16[11,2] bitcast-convert(p0)\n"
                       "ROOT r = s16[11,2] not(b)\n"));
  cases.push_back(Case("f32_to_bf16x2_f16x2",
                       "p0 = f32[3,9] parameter(0)\n"
                       "b = bf16[3,9,2] bitcast-convert(p0)\n"
                       "h = f16[3,9,2] bitcast-convert(p0)\n"
                       "u = u16[3,9,2] bitcast-convert(b)\n"
                       "v = u16[3,9,2] bitcast-convert(h)\n"
                       "ROOT r = (u16[3,9,2], u16[3,9,2]) tuple(u, v)\n"));
  cases.push_back(Case("f64_to_u32x2_u8x8",
                       "p0 = f64[13] parameter(0)\n"
                       "n = f64[13] negate(p0)\n"
                       "a = u32[13,2] bitcast-convert(n)\n"
                       "b = u8[13,8] bitcast-convert(p0)\n"
                       "ROOT r = (u32[13,2], u8[13,8]) tuple(a, b)\n"));
  cases.push_back(Case("s64_to_s32x2",
                       "p0 = s64[5,3] parameter(0)\n"
                       "m = s64[5,3] multiply(p0, p0)\n"
                       "b = s32[5,3,2] bitcast-convert(m)\n"
                       "ROOT r = s32[5,3,2] negate(b)\n"));
  cases.push_back(Case("scalar_f32_to_u8x4",
                       "p0 = f32[] parameter(0)\n"
                       "ROOT b = u8[4] bitcast-convert(p0)\n"));
  // Widening, with elementwise ops around.
  cases.push_back(FullRange(Case("u8x4_to_s32",
                                 "p0 = u8[17,4] parameter(0)\n"
                                 "a = u8[17,4] add(p0, p0)\n"
                                 "w = s32[17] bitcast-convert(a)\n"
                                 "ROOT r = s32[17] multiply(w, w)\n"),
                            1));
  cases.push_back(FullRange(Case("s16x2_to_f32",
                                 "p0 = s16[6,7,2] parameter(0)\n"
                                 "a = s16[6,7,2] and(p0, p0)\n"
                                 "w = f32[6,7] bitcast-convert(a)\n"
                                 "ROOT r = f32[6,7] negate(w)\n"),
                            1));
  cases.push_back(Case("bf16x2_f16x2_to_f32",
                       "p0 = bf16[9,2] parameter(0)\n"
                       "p1 = f16[9,2] parameter(1)\n"
                       "a = f32[9] bitcast-convert(p0)\n"
                       "b = f32[9] bitcast-convert(p1)\n"
                       "ROOT r = (f32[9], f32[9]) tuple(a, b)\n"));
  cases.push_back(FullRange(
      Case("u32x2_u8x8_to_f64",
           "p0 = u32[3,5,2] parameter(0)\n"
           "p1 = u8[3,5,8] parameter(1)\n"
           "a = f64[3,5] bitcast-convert(p0)\n"
           "b = f64[3,5] bitcast-convert(p1)\n"
           "c = s64[3,5] bitcast-convert(b)\n"
           "ROOT r = (f64[3,5], f64[3,5], s64[3,5]) tuple(a, b, c)\n"),
      2));
  cases.push_back(FullRange(Case("s32x2_to_s64",
                                 "p0 = s32[19,2] parameter(0)\n"
                                 "w = s64[19] bitcast-convert(p0)\n"
                                 "ROOT r = s64[19] add(w, w)\n"),
                            1));
  // Both ways, and across a transpose.
  cases.push_back(RoundTrip("f32", "u8", 4, "5,3", "add(s, s)"));
  cases.push_back(RoundTrip("f32", "s16", 2, "9", "negate(s)"));
  cases.push_back(RoundTrip("f64", "u32", 2, "7", "not(s)"));
  cases.push_back(RoundTrip("f64", "u8", 8, "3,3", "multiply(s, s)"));
  cases.push_back(FullRange(RoundTrip("s64", "s32", 2, "11", "abs(s)"), 1));
  cases.push_back(
      FullRange(RoundTrip("u16", "s8", 2, "21", "multiply(s, s)"), 1));
  cases.push_back(Case("f32_u8x4_transposed",
                       "p0 = f32[6,10] parameter(0)\n"
                       "b = u8[6,10,4] bitcast-convert(p0)\n"
                       "t = u8[4,10,6] transpose(b), dimensions={2,1,0}\n"
                       "ROOT r = u8[4,10,6] add(t, t)\n"));
  cases.push_back(
      FullRange(Case("transposed_u8x4_to_s32",
                     "p0 = u8[4,9,5] parameter(0)\n"
                     "t = u8[5,9,4] transpose(p0), dimensions={2,1,0}\n"
                     "w = s32[5,9] bitcast-convert(t)\n"
                     "ROOT r = s32[9,5] transpose(w), dimensions={1,0}\n"),
                1));
  cases.push_back(Case("f64_s16x4_transposed",
                       "p0 = f64[5,3] parameter(0)\n"
                       "t = f64[3,5] transpose(p0), dimensions={1,0}\n"
                       "b = s16[3,5,4] bitcast-convert(t)\n"
                       "ROOT r = s16[3,5,4] multiply(b, b)\n"));
  // Sub-byte and 8-bit float pieces.
  cases.push_back(
      FullRange(Case("s8_s4x2_u16_u4x4",
                     "p0 = s8[15] parameter(0)\n"
                     "p1 = u16[7] parameter(1)\n"
                     "a = s4[15,2] bitcast-convert(p0)\n"
                     "b = u4[7,4] bitcast-convert(p1)\n"
                     "c = s8[15] bitcast-convert(a)\n"
                     "ROOT r = (s4[15,2], u4[7,4], s8[15]) tuple(a, b, c)\n"),
                2));
  cases.push_back(FullRange(Case("s4x2_to_u8",
                                 "p0 = s4[13,2] parameter(0)\n"
                                 "n = s4[13,2] negate(p0)\n"
                                 "ROOT w = u8[13] bitcast-convert(n)\n"),
                            1));
  cases.push_back(Case("f16_f8x2",
                       "p0 = f16[11] parameter(0)\n"
                       "a = f8e5m2[11,2] bitcast-convert(p0)\n"
                       "b = u8[11,2] bitcast-convert(a)\n"
                       "w = s16[11] bitcast-convert(a)\n"
                       "ROOT r = (u8[11,2], s16[11]) tuple(b, w)\n"));
  ExpectAll(cases);
}

// XLA's shape inference refuses a bitcast-convert between a complex and a
// real type; so does the parser's verifier, naming both shapes.
TEST_CASE("bitcast-convert between complex and real types is refused",
          "[.][emit_types]") {
  for (const char* text :
       {"HloModule m\nENTRY e {\n  p0 = c64[7] parameter(0)\n"
        "  ROOT b = f32[7,2] bitcast-convert(p0)\n}\n",
        "HloModule m\nENTRY e {\n  p0 = u64[3,2] parameter(0)\n"
        "  ROOT b = c128[3] bitcast-convert(p0)\n}\n"}) {
    auto module = hlo::ParseHloModule(text);
    REQUIRE_FALSE(module.ok());
    CHECK(module.error().message.find("complex and a real type") !=
          std::string::npos);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
