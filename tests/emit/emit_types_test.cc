// Sub-byte integers, 8-bit floats and f4e2m1fn in every target: the f8
// and f4 encodings checked code by code against the test's own tables,
// then fusions over these types (elementwise, converts, reductions,
// transposes, slices and concatenations of packed s4 / f4 buffers of odd
// sizes) and element-type bitcasts run in cpp, cuda (the CPU model of
// CUDA) and MLIR (verified, and run on the host) against the interpreter;
// types still not generated answer `unsupported`.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "emit/ir/kernel_ir.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_harness.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

struct F8Type {
  const char* name;
  ElementType hlo;
  emit::ir::Type ir;
};
const F8Type kF8Types[] = {
    {"f8e4m3fn", ElementType::kF8E4M3FN, emit::ir::Type::kF8E4M3FN},
    {"f8e5m2", ElementType::kF8E5M2, emit::ir::Type::kF8E5M2},
    {"f8e4m3fnuz", ElementType::kF8E4M3FNUZ, emit::ir::Type::kF8E4M3FNUZ},
    {"f8e5m2fnuz", ElementType::kF8E5M2FNUZ, emit::ir::Type::kF8E5M2FNUZ},
    {"f8e4m3b11fnuz", ElementType::kF8E4M3B11FNUZ,
     emit::ir::Type::kF8E4M3B11FNUZ},
    {"f8e4m3", ElementType::kF8E4M3, emit::ir::Type::kF8E4M3},
    {"f8e3m4", ElementType::kF8E3M4, emit::ir::Type::kF8E3M4},
    {"f8e8m0fnu", ElementType::kF8E8M0FNU, emit::ir::Type::kF8E8M0FNU},
};

bool SameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// The f32 values where rounding decides: every finite value of the type,
// the midpoints between neighbours (ties) and the floats next to them,
// past the largest value, infinities, NaN, signed zeros and tiny values.
std::vector<float> Probes(ElementType t) {
  std::set<double> values;
  for (int c = 0; c < 256; ++c) {
    double v = F8Decode(t, static_cast<uint8_t>(c));
    if (!std::isnan(v) && !std::isinf(v)) values.insert(v);
  }
  std::vector<double> sorted(values.begin(), values.end());
  std::vector<float> out;
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < sorted.size(); ++i) {
    out.push_back(static_cast<float>(sorted[i]));
    if (i + 1 == sorted.size()) break;
    float mid = static_cast<float>((sorted[i] + sorted[i + 1]) / 2);
    out.push_back(mid);
    out.push_back(std::nextafter(mid, inf));
    out.push_back(std::nextafter(mid, -inf));
  }
  const double top = F8Max(t);
  for (double v : {top * 1.0625, top * 1.125, top * 1.2, top * 4, 1e30}) {
    out.push_back(static_cast<float>(v));
    out.push_back(static_cast<float>(-v));
  }
  for (float v : {inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                  -std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.0f, 1e-30f,
                  -1e-30f, 1e-40f, std::ldexp(1.0f, -127),
                  std::ldexp(1.5f, -127), std::ldexp(1.25f, -127)}) {
    out.push_back(v);
  }
  return out;
}

TEST_CASE("f8 codes: emit's encoder and decoder agree with the test's tables",
          "[emit]") {
  for (const F8Type& f : kF8Types) {
    INFO(f.name);
    for (int c = 0; c < 256; ++c) {
      INFO("code " << c);
      CHECK(SameValue(emit::ir::DecodeF8(f.ir, static_cast<uint8_t>(c)),
                      F8Decode(f.hlo, static_cast<uint8_t>(c))));
    }
    for (float v : Probes(f.hlo)) {
      INFO("value " << v);
      CHECK(int(emit::ir::EncodeF8(f.ir, v)) == int(F8Encode(f.hlo, v)));
    }
  }
}

TEST_CASE("f8 codes: the test's tables at chosen points", "[emit]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Point {
    ElementType t;
    float value;
    int code;
  };
  const Point kPoints[] = {
      // e4m3fn: 448 is the largest value, 480 would be the NaN code; the
      // tie 464 goes to the even 448, anything past it is NaN.
      {ElementType::kF8E4M3FN, 448, 0x7e},
      {ElementType::kF8E4M3FN, 464, 0x7e},
      {ElementType::kF8E4M3FN, 464.5f, 0x7f},
      {ElementType::kF8E4M3FN, -inf, 0xff},
      {ElementType::kF8E4M3FN, -0.0f, 0x80},
      {ElementType::kF8E4M3FN, std::ldexp(1.0f, -9), 0x01},
      {ElementType::kF8E4M3FN, std::ldexp(1.0f, -10), 0x00},  // tie to 0
      {ElementType::kF8E4M3FN, std::ldexp(3.0f, -10), 0x02},  // tie to even
      {ElementType::kF8E4M3FN, 1.0625f, 0x38},  // tie 1 / 1.125: even 1
      {ElementType::kF8E4M3FN, 1.1875f, 0x3a},  // tie 1.125 / 1.25: 1.25
      // e5m2: IEEE-like; 61440 is the tie between 57344 and infinity.
      {ElementType::kF8E5M2, 57344, 0x7b},
      {ElementType::kF8E5M2, 61440, 0x7c},
      {ElementType::kF8E5M2, -inf, 0xfc},
      {ElementType::kF8E5M2, nan, 0x7e},
      {ElementType::kF8E5M2, std::ldexp(1.0f, -16), 0x01},
      // fnuz: no negative zero, NaN is 0x80, overflow is NaN.
      {ElementType::kF8E4M3FNUZ, -0.0f, 0x00},
      {ElementType::kF8E4M3FNUZ, -std::ldexp(1.0f, -12), 0x00},
      {ElementType::kF8E4M3FNUZ, nan, 0x80},
      {ElementType::kF8E4M3FNUZ, 240, 0x7f},
      {ElementType::kF8E4M3FNUZ, 256, 0x80},
      {ElementType::kF8E5M2FNUZ, 57344, 0x7f},
      {ElementType::kF8E5M2FNUZ, inf, 0x80},
      {ElementType::kF8E4M3B11FNUZ, 30, 0x7f},
      {ElementType::kF8E4M3B11FNUZ, std::ldexp(1.0f, -13), 0x01},
      // e4m3 / e3m4: IEEE-like with infinities.
      {ElementType::kF8E4M3, 240, 0x77},
      {ElementType::kF8E4M3, 248, 0x78},
      {ElementType::kF8E3M4, 15.5f, 0x6f},
      {ElementType::kF8E3M4, 16, 0x70},
      {ElementType::kF8E3M4, 0.25f, 0x10},
      // e8m0fnu: powers of two; 1.5 * 2^k ties to the even code.
      {ElementType::kF8E8M0FNU, 1, 0x7f},
      {ElementType::kF8E8M0FNU, 1.5f, 0x80},
      {ElementType::kF8E8M0FNU, 3, 0x80},
      {ElementType::kF8E8M0FNU, 3.01f, 0x81},
      {ElementType::kF8E8M0FNU, 0, 0x00},
      {ElementType::kF8E8M0FNU, -1, 0xff},
      {ElementType::kF8E8M0FNU, inf, 0xff},
      {ElementType::kF8E8M0FNU, std::ldexp(1.0f, 127), 0xfe},
      {ElementType::kF8E8M0FNU, std::ldexp(1.0f, -127), 0x00},
  };
  for (const Point& p : kPoints) {
    INFO(hlo::ElementTypeName(p.t) << " " << p.value);
    CHECK(int(F8Encode(p.t, p.value)) == p.code);
  }
  CHECK(F8Decode(ElementType::kF8E4M3FN, 0x7e) == 448);
  CHECK(std::isnan(F8Decode(ElementType::kF8E4M3FN, 0x7f)));
  CHECK(std::isinf(F8Decode(ElementType::kF8E5M2, 0x7c)));
  CHECK(std::isnan(F8Decode(ElementType::kF8E5M2FNUZ, 0x80)));
  CHECK(F8Decode(ElementType::kF8E5M2FNUZ, 0x01) == std::ldexp(1.0, -17));
  CHECK(F8Decode(ElementType::kF8E8M0FNU, 0x00) == std::ldexp(1.0, -127));
}

CheckCase Case(std::string label, std::string hlo, bool reassociates = false) {
  CheckCase c;
  c.label = std::move(label);
  c.hlo = std::move(hlo);
  c.run_mlir = true;
  c.reassociates = reassociates;
  return c;
}

void ExpectAll(const std::vector<CheckCase>& cases) {
  CheckOptions options;
  options.planner = H100Planner();
  options.check_stages = true;
  CheckSummary s = CheckFusions(cases, options);
  REQUIRE(s.cases.size() == cases.size());
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
}

std::string Reducer(const std::string& type, const std::string& op) {
  return "red { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT r = " + type + "[] " + op + "(a, b) }\n";
}

std::string FloatList(const std::vector<float>& values) {
  std::string s;
  for (float v : values) {
    if (!s.empty()) s += ", ";
    if (std::isnan(v)) {
      s += "nan";
    } else if (std::isinf(v)) {
      s += v < 0 ? "-inf" : "inf";
    } else {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.9g", v);
      s += buf;
    }
  }
  return s;
}

TEST_CASE("f8 types: every code decodes, chosen values encode, in code",
          "[.][emit_types]") {
  std::vector<CheckCase> cases;
  for (const F8Type& f : kF8Types) {
    const std::string t = f.name;
    cases.push_back(Case(t + "_decode_all_codes",
                         "i = u8[256] iota(), iota_dimension=0\n"
                         "b = " +
                             t +
                             "[256] bitcast-convert(i)\n"
                             "ROOT c = f32[256] convert(b)\n"));
    std::vector<float> probes = Probes(f.hlo);
    const std::string n = std::to_string(probes.size());
    cases.push_back(Case(t + "_encode_probes",
                         "c = f32[" + n + "] constant({" + FloatList(probes) +
                             "})\n"
                             "r = " +
                             t + "[" + n +
                             "] convert(c)\n"
                             "ROOT b = u8[" +
                             n + "] bitcast-convert(r)\n"));
  }
  ExpectAll(cases);
}

TEST_CASE("f8 types: arithmetic, converts, reductions and transposes",
          "[.][emit_types]") {
  std::vector<CheckCase> cases;
  for (const F8Type& f : kF8Types) {
    const std::string t = f.name;
    cases.push_back(Case(t + "_elementwise",
                         "p0 = " + t + "[37] parameter(0)\np1 = " + t +
                             "[37] parameter(1)\n"
                             "a = " +
                             t + "[37] add(p0, p1)\nm = " + t +
                             "[37] multiply(a, p1)\n"
                             "d = " +
                             t + "[37] divide(m, p0)\nx = " + t +
                             "[37] maximum(d, p0)\n"
                             "e = " +
                             t + "[37] exponential(p1)\nn = " + t +
                             "[37] negate(x)\n"
                             "s = " +
                             t +
                             "[37] subtract(n, e)\n"
                             "c = pred[37] compare(s, p0), direction=LT\n"
                             "ROOT r = " +
                             t + "[37] select(c, s, a)\n"));
    cases.push_back(
        Case(t + "_converts",
             "p0 = " + t +
                 "[29] parameter(0)\n"
                 "h = f16[29] convert(p0)\nb = bf16[29] convert(p0)\n"
                 "i = s32[29] convert(p0)\nq = s4[29] convert(p0)\n"
                 "g = f64[29] convert(p0)\n"
                 "o = f8e5m2[29] convert(p0)\nk = f8e4m3fn[29] convert(h)\n"
                 "w = f8e4m3fnuz[29] convert(g)\nz = " +
                 t +
                 "[29] convert(i)\n"
                 "u = u8[29] bitcast-convert(p0)\n"
                 "ROOT r = (f16[29], bf16[29], s32[29], s4[29], f8e5m2[29], "
                 "f8e4m3fn[29], f8e4m3fnuz[29], " +
                 t +
                 "[29], u8[29]) "
                 "tuple(h, b, i, q, o, k, w, z, u)\n"));
    cases.push_back(
        Case(t + "_reduce_max", Reducer(t, "maximum") + "ENTRY e { p0 = " + t +
                                    "[6,70] parameter(0)\n"
                                    "z = " +
                                    t +
                                    "[] parameter(1)\n"
                                    "ROOT r = " +
                                    t +
                                    "[6] reduce(p0, z), dimensions={1}, "
                                    "to_apply=red }\n"));
    cases.push_back(Case(t + "_transpose",
                         "p0 = " + t +
                             "[40,33] parameter(0)\n"
                             "a = " +
                             t +
                             "[40,33] abs(p0)\n"
                             "ROOT r = " +
                             t + "[33,40] transpose(a), dimensions={1,0}\n"));
  }
  // A reduction that adds rounds after every step: the order matters, the
  // comparison allows for it.
  cases.push_back(Case("f8e4m3fn_reduce_add",
                       Reducer("f8e4m3fn", "add") +
                           "ENTRY e { p0 = f8e4m3fn[4,9] parameter(0)\n"
                           "z = f8e4m3fn[] parameter(1)\n"
                           "ROOT r = f8e4m3fn[4] reduce(p0, z), "
                           "dimensions={1}, to_apply=red }\n",
                       true));
  ExpectAll(cases);
}

// f4e2m1fn: every value and its negation, the midpoints (ties) and the
// floats beside them, values past 6, infinities, NaN, signed zeros and
// tiny values.
std::vector<float> F4Probes() {
  std::vector<float> out;
  const float inf = std::numeric_limits<float>::infinity();
  for (int c = 0; c < 8; ++c) {
    const float v = static_cast<float>(F4Decode(static_cast<uint8_t>(c)));
    out.push_back(v);
    if (c == 7) break;
    const float mid =
        static_cast<float>((v + F4Decode(static_cast<uint8_t>(c + 1))) / 2);
    for (float x : {mid, std::nextafter(mid, inf), std::nextafter(mid, -inf)}) {
      out.push_back(x);
    }
  }
  for (float v : {6.5f, 7.0f, 8.0f, 1e30f, inf}) out.push_back(v);
  const size_t positive = out.size();
  for (size_t i = 0; i < positive; ++i) out.push_back(-out[i]);
  for (float v : {std::numeric_limits<float>::quiet_NaN(),
                  -std::numeric_limits<float>::quiet_NaN(), 1e-30f, -1e-30f,
                  1e-40f, -1e-40f}) {
    out.push_back(v);
  }
  return out;
}

TEST_CASE("f4e2m1fn codes: emit's encoder and decoder agree with the tables",
          "[emit]") {
  const emit::ir::Type f4 = emit::ir::Type::kF4E2M1FN;
  for (int c = 0; c < 16; ++c) {
    INFO("code " << c);
    CHECK(SameValue(emit::ir::DecodeF8(f4, static_cast<uint8_t>(c)),
                    F4Decode(static_cast<uint8_t>(c))));
  }
  for (float v : F4Probes()) {
    INFO("value " << v);
    CHECK(int(emit::ir::EncodeF8(f4, v)) == int(F4Encode(v)));
  }
  // Ties go to the even code; past 6 and infinity saturate; NaN is -0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::pair<float, int> kPoints[] = {
      {0.25f, 0x0},   {0.2500001f, 0x1}, {0.75f, 0x2}, {1.25f, 0x2},
      {1.75f, 0x4},   {2.5f, 0x4},       {3.5f, 0x6},  {5.0f, 0x6},
      {5.0001f, 0x7}, {6.9f, 0x7},       {1e30f, 0x7}, {inf, 0x7},
      {-inf, 0xf},    {-7.0f, 0xf},      {-2.5f, 0xc}, {-0.0f, 0x8},
      {1e-30f, 0x0},  {-1e-30f, 0x8},    {nan, 0x8},   {-nan, 0x8},
      {-0.75f, 0xa},  {0.5f, 0x1},       {6.0f, 0x7},  {-1.5f, 0xb}};
  for (const auto& [value, code] : kPoints) {
    INFO("value " << value);
    CHECK(int(F4Encode(value)) == code);
  }
  CHECK(F4Decode(0x7) == 6);
  CHECK(F4Decode(0x9) == -0.5);
  CHECK(std::signbit(F4Decode(0x8)));
}

TEST_CASE("f4e2m1fn: converts, arithmetic and data movement, packed or not",
          "[.][emit_types]") {
  std::vector<CheckCase> cases;
  const std::vector<float> probes = F4Probes();
  const std::string n = std::to_string(probes.size());
  // From f32, f16, bf16 and f64 constants: the packed values and the codes.
  for (std::string from : {"f32", "f16", "bf16", "f64"}) {
    cases.push_back(Case("f4_from_" + from,
                         "c = " + from + "[" + n + "] constant({" +
                             FloatList(probes) +
                             "})\n"
                             "r = f4e2m1fn[" +
                             n + "]{0:E(4)} convert(c)\nb = u4[" + n +
                             "]{0:E(4)} bitcast-convert(r)\n"
                             "k = u8[" +
                             n + "] convert(b)\nROOT t = (f4e2m1fn[" + n +
                             "]{0:E(4)}, u8[" + n + "]) tuple(r, k)\n"));
  }
  // Every code to f32, f16, bf16, f64 and back.
  cases.push_back(
      Case("f4_decode_all_codes",
           "i = u4[16] iota(), iota_dimension=0\n"
           "b = f4e2m1fn[16]{0:E(4)} bitcast-convert(i)\n"
           "f = f32[16] convert(b)\nh = f16[16] convert(b)\n"
           "g = bf16[16] convert(b)\nd = f64[16] convert(b)\n"
           "x = f4e2m1fn[16] convert(h)\ny = f4e2m1fn[16] convert(g)\n"
           "z = f4e2m1fn[16]{0:E(4)} convert(d)\n"
           "k = s4[16]{0:E(4)} bitcast-convert(z)\n"
           "ROOT t = (f32[16], f16[16], bf16[16], f64[16], f4e2m1fn[16], "
           "f4e2m1fn[16], s4[16]{0:E(4)}) tuple(f, h, g, d, x, y, k)\n"));
  for (const std::string layout : {"{0}", "{0:E(4)}"}) {
    const std::string label = layout.size() > 3 ? "packed" : "unpacked";
    const std::string t = "f4e2m1fn[37]" + layout;
    cases.push_back(
        Case("f4_" + label + "_elementwise",
             "p0 = " + t + " parameter(0)\np1 = " + t +
                 " parameter(1)\n"
                 "n = " +
                 t + " negate(p0)\na = " + t + " add(n, p1)\nm = " + t +
                 " multiply(a, p1)\n"
                 "x = " +
                 t + " maximum(m, p0)\nb = " + t + " abs(x)\ne = " + t +
                 " exponential(p1)\n"
                 "c = pred[37] compare(b, e), direction=LT\n"
                 "s = " +
                 t +
                 " select(c, b, e)\n"
                 "i = s32[37] convert(s)\nq = s4[37] convert(s)\n"
                 "f = f32[37] convert(s)\n"
                 "ROOT r = (" +
                 t + ", s32[37], s4[37], f32[37]) tuple(s, i, q, f)\n"));
    // Wide values: rounding, saturation, f16 and integers into f4.
    CheckCase wide =
        Case("f4_" + label + "_from_wide",
             "p0 = f32[64] parameter(0)\np1 = f16[64] parameter(1)\n"
             "p2 = s32[64] parameter(2)\n"
             "a = f4e2m1fn[64]" +
                 layout +
                 " convert(p0)\n"
                 "b = f4e2m1fn[64]" +
                 layout +
                 " convert(p1)\n"
                 "c = f4e2m1fn[64]" +
                 layout +
                 " convert(p2)\n"
                 "ROOT r = (f4e2m1fn[64]" +
                 layout + ", f4e2m1fn[64]" + layout + ", f4e2m1fn[64]" +
                 layout + ") tuple(a, b, c)\n");
    wide.parameters.resize(3);
    wide.parameters[0].random.float_range = 10;
    wide.parameters[1].random.float_range = 10;
    wide.parameters[2].random.int_lo = -9;
    wide.parameters[2].random.int_hi = 9;
    cases.push_back(wide);
  }
  cases.push_back(Case("f4_transpose",
                       "p0 = f4e2m1fn[9,7]{1,0:E(4)} parameter(0)\n"
                       "n = f4e2m1fn[9,7]{1,0:E(4)} negate(p0)\n"
                       "ROOT r = f4e2m1fn[7,9]{1,0:E(4)} transpose(n), "
                       "dimensions={1,0}\n"));
  cases.push_back(Case("f4_slice_concat",
                       "p0 = f4e2m1fn[5,7]{1,0:E(4)} parameter(0)\n"
                       "p1 = f4e2m1fn[5,3]{1,0:E(4)} parameter(1)\n"
                       "s = f4e2m1fn[5,5]{1,0:E(4)} slice(p0), "
                       "slice={[0:5], [1:6]}\n"
                       "ROOT r = f4e2m1fn[5,8]{1,0:E(4)} concatenate(s, p1), "
                       "dimensions={1}\n"));
  cases.push_back(
      Case("f4_reduce_max", Reducer("f4e2m1fn", "maximum") +
                                "ENTRY e { p0 = f4e2m1fn[6,70]{1,0:E(4)} "
                                "parameter(0)\n"
                                "z = f4e2m1fn[] parameter(1)\n"
                                "ROOT r = f4e2m1fn[6]{0:E(4)} reduce(p0, z), "
                                "dimensions={1}, to_apply=red }\n"));
  ExpectAll(cases);
}

TEST_CASE("sub-byte integers: wrap-around, shifts, converts, packed or not",
          "[.][emit_types]") {
  std::vector<CheckCase> cases;
  for (std::string t : {"s4", "u4", "s2", "u2", "s1", "u1"}) {
    const std::string bits = t.substr(1);
    for (const std::string& layout :
         {std::string("{0}"), std::string("{0:E(" + bits + ")}")}) {
      const std::string label =
          t + (layout.size() > 3 ? "_packed" : "_unpacked");
      const std::string s = t + "[37]" + layout;
      cases.push_back(Case(label + "_elementwise",
                           "p0 = " + s + " parameter(0)\np1 = " + s +
                               " parameter(1)\n"
                               "a = " +
                               s + " add(p0, p1)\nm = " + s +
                               " multiply(a, p1)\n"
                               "n = " +
                               s + " negate(m)\nl = " + s +
                               " shift-left(n, p1)\n"
                               "h = " +
                               s +
                               " shift-right-logical(l, p0)\n"
                               "k = " +
                               s +
                               " shift-right-arithmetic(h, p1)\n"
                               "c = " +
                               s + " count-leading-zeros(k)\nq = " + s +
                               " popcnt(m)\n"
                               "d = " +
                               s + " divide(c, p1)\nx = " + s +
                               " xor(d, q)\n"
                               "ROOT r = " +
                               s + " maximum(x, a)\n"));
      cases.push_back(
          Case(label + "_converts",
               "p0 = " + s +
                   " parameter(0)\np1 = f32[37] parameter(1)\n"
                   "i = s32[37] convert(p0)\nf = f32[37] convert(p0)\n"
                   "g = " +
                   s + " convert(p1)\nw = " + s +
                   " convert(i)\n"
                   "e = f8e4m3fn[37] convert(p0)\n"
                   "ROOT r = (s32[37], f32[37], " +
                   s + ", " + s + ", f8e4m3fn[37]) tuple(i, f, g, w, e)\n"));
    }
  }
  // 7 + 1 wraps to -8 (s4), 15 + 1 to 0 (u4): the constants say so.
  cases.push_back(Case("s4_wraps",
                       "a = s4[3] constant({7, -8, 5})\n"
                       "b = s4[3] constant({1, -1, 5})\n"
                       "ROOT r = s4[3]{0:E(4)} add(a, b)\n"));
  cases.push_back(Case("u4_iota_wraps",
                       "i = u4[37]{0:E(4)} iota(), iota_dimension=0\n"
                       "o = u4[37]{0:E(4)} constant({" +
                           std::string("1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                                       "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                                       "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                                       "1") +
                           "})\n"
                           "ROOT r = u4[37]{0:E(4)} add(i, o)\n"));
  ExpectAll(cases);
}

TEST_CASE("packed s4: slices, concatenations and transposes of odd sizes",
          "[.][emit_types]") {
  std::vector<CheckCase> cases;
  cases.push_back(Case("s4_slice",
                       "p0 = s4[7,5]{1,0:E(4)} parameter(0)\n"
                       "ROOT r = s4[5,3]{1,0:E(4)} slice(p0), "
                       "slice={[1:6], [1:4]}\n"));
  cases.push_back(Case("s4_concat",
                       "p0 = s4[3,5]{1,0:E(4)} parameter(0)\n"
                       "p1 = s4[3,4]{1,0:E(4)} parameter(1)\n"
                       "ROOT r = s4[3,9]{1,0:E(4)} concatenate(p0, p1), "
                       "dimensions={1}\n"));
  cases.push_back(Case("s4_concat_unpacked_in",
                       "p0 = s4[13] parameter(0)\n"
                       "p1 = s4[4]{0:E(4)} parameter(1)\n"
                       "ROOT r = s4[17]{0:E(4)} concatenate(p0, p1), "
                       "dimensions={0}\n"));
  cases.push_back(Case("s4_transpose",
                       "p0 = s4[37,41]{1,0:E(4)} parameter(0)\n"
                       "ROOT r = s4[41,37]{1,0:E(4)} transpose(p0), "
                       "dimensions={1,0}\n"));
  cases.push_back(Case("s4_transpose_column_major",
                       "p0 = s4[7,9]{1,0:E(4)} parameter(0)\n"
                       "n = s4[7,9]{1,0:E(4)} negate(p0)\n"
                       "ROOT r = s4[7,9]{0,1:E(4)} copy(n)\n"));
  cases.push_back(
      Case("u2_reduce", Reducer("u2", "add") +
                            "ENTRY e { p0 = u2[5,11]{1,0:E(2)} parameter(0)\n"
                            "z = u2[] parameter(1)\n"
                            "ROOT r = u2[5]{0:E(2)} reduce(p0, z), "
                            "dimensions={1}, to_apply=red }\n"));
  cases.push_back(Case("s4_tiled",
                       "p0 = s4[16,256]{1,0:T(8,128)(2,1)E(4)} parameter(0)\n"
                       "ROOT r = s4[16,256]{1,0:T(8,128)(2,1)E(4)} "
                       "negate(p0)\n"));
  // Unrolled lanes that fill whole bytes of a packed buffer are read and
  // written a byte at a time (no atomic update); an odd end, a packed
  // input beside a wide output, and 2- and 1-bit elements.
  cases.push_back(Case("s4_whole_bytes",
                       "p0 = s4[64,256]{1,0:E(4)} parameter(0)\n"
                       "ROOT r = s4[64,256]{1,0:E(4)} negate(p0)\n"));
  cases.push_back(Case("s4_whole_bytes_odd_end",
                       "p0 = s4[33,65]{1,0:E(4)} parameter(0)\n"
                       "p1 = s4[33,65]{1,0:E(4)} parameter(1)\n"
                       "ROOT r = s4[33,65]{1,0:E(4)} subtract(p0, p1)\n"));
  cases.push_back(Case("u4_packed_to_f32",
                       "p0 = u4[32,512]{1,0:E(4)} parameter(0)\n"
                       "ROOT r = f32[32,512] convert(p0)\n"));
  cases.push_back(Case("u2_whole_bytes",
                       "p0 = u2[16,1024]{1,0:E(2)} parameter(0)\n"
                       "p1 = u2[16,1024]{1,0:E(2)} parameter(1)\n"
                       "ROOT r = u2[16,1024]{1,0:E(2)} add(p0, p1)\n"));
  // An s2 -> s8 convert (a kind of XLA's own emitter tests).
  cases.push_back(Case("s2_to_s8",
                       "p0 = s2[1001]{0:E(2)} parameter(0)\n"
                       "ROOT r = s8[1001] convert(p0)\n"));
  cases.push_back(Case("s1_whole_bytes",
                       "p0 = f32[16,1024] parameter(0)\n"
                       "ROOT r = s1[16,1024]{1,0:E(1)} convert(p0)\n"));
  // A row reduction beside a packed side output takes the loop emitter,
  // whose plan does not vectorize a fusion with a reduce: the packed root's
  // unrolled lanes are then stored one at a time (atomic read-modify-write
  // of the shared byte), as the plan's vector_size of 1 says.
  for (const std::string in : {"f32", "s4"}) {
    const std::string in_shape =
        in == "s4" ? "s4[64,128]{1,0:E(4)}" : "f32[64,128]";
    const std::string f = in == "s4" ? "f = f32[64,128] convert(p)\n" : "";
    const std::string x = in == "s4" ? "f" : "p";
    CheckCase c =
        Case("row_reduce_beside_packed_s4_from_" + in,
             Reducer("f32", "add") + "ENTRY e { p = " + in_shape +
                 " parameter(0)\n" + f +
                 "z = f32[] constant(0)\n"
                 "r = f32[64] reduce(" +
                 x +
                 ", z), dimensions={1}, to_apply=red\n"
                 "s = s4[64,128]{1,0:E(4)} convert(p)\n"
                 "ROOT t = (f32[64], s4[64,128]{1,0:E(4)}) tuple(r, s) }\n");
    c.expect_emitter = "loop";
    cases.push_back(c);
  }
  ExpectAll(cases);
}

TEST_CASE("bitcasts that change the element type move the bits",
          "[.][emit_types]") {
  // XLA allows a bitcast to change the element type where the width stays:
  // each element's bits are read as the new type, as bitcast-convert does.
  std::vector<CheckCase> cases;
  cases.push_back(Case("f32_to_s32",
                       "p = f32[37,5] parameter(0)\n"
                       "n = f32[37,5] negate(p)\n"
                       "b = s32[37,5] bitcast(n)\n"
                       "ROOT r = s32[37,5] shift-right-logical(b, b)\n"));
  cases.push_back(Case("u32_to_f32_reshaped",
                       "p = u32[4,10] parameter(0)\n"
                       "b = f32[40] bitcast(p)\n"
                       "ROOT r = f32[40] add(b, b)\n"));
  cases.push_back(Case("s32_to_f32_transposed_layout",
                       "p = s32[8,6]{0,1} parameter(0)\n"
                       "b = f32[6,8]{1,0} bitcast(p)\n"
                       "ROOT r = f32[6,8] abs(b)\n"));
  cases.push_back(
      Case("f16_bf16_s16",
           "p = f16[33] parameter(0)\n"
           "b = bf16[33] bitcast(p)\n"
           "s = s16[33] bitcast(p)\n"
           "h = f16[33] bitcast(s)\n"
           "f = f32[33] convert(b)\n"
           "ROOT r = (f32[33], s16[33], f16[33]) tuple(f, s, h)\n"));
  cases.push_back(Case("f64_s64_round_trip",
                       "p = f64[19] parameter(0)\n"
                       "b = s64[19] bitcast(p)\n"
                       "x = s64[19] xor(b, b)\n"
                       "a = s64[19] add(b, x)\n"
                       "ROOT r = f64[19] bitcast(a)\n"));
  cases.push_back(Case("u8_to_f8_and_s8",
                       "p = u8[40] parameter(0)\n"
                       "f = f8e4m3fn[40] bitcast(p)\n"
                       "s = s8[40] bitcast(f)\n"
                       "g = f32[40] convert(f)\n"
                       "ROOT r = (f32[40], s8[40]) tuple(g, s)\n"));
  ExpectAll(cases);
}

// Each HLO is refused as unsupported by every target, the message naming
// every needle.
struct RefusedFusion {
  std::string hlo;
  std::vector<std::string> needles;
};
void ExpectRefusedByEveryTarget(std::span<const RefusedFusion> refused) {
  for (const RefusedFusion& r : refused) {
    INFO(r.hlo);
    auto module = hlo::ParseHloModule(r.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    for (emit::Target target :
         {emit::Target::kCpp, emit::Target::kCuda, emit::Target::kMlir}) {
      emit::EmitOptions options;
      options.target = target;
      auto out =
          emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
      REQUIRE(!out.ok());
      INFO(out.error().message);
      CHECK(out.error().code == ErrorCode::kUnsupported);
      for (const std::string& needle : r.needles) {
        CHECK(out.error().message.find(needle) != std::string::npos);
      }
    }
  }
}

TEST_CASE("a bitcast that changes the element width answers unsupported",
          "[emit]") {
  // Four f32 as eight s16 (XLA's kind of width change: the element count
  // changes), and complex parts read as one integer.
  const RefusedFusion kRefused[] = {
      {"p = f32[4] parameter(0)\nROOT r = s16[4,2] bitcast(p)\n",
       {"'bitcast'", "the element count changes"}},
      {"p = c64[4] parameter(0)\nROOT r = s64[4] bitcast(p)\n",
       {"'bitcast'", "bitcast from c64 to s64"}},
  };
  ExpectRefusedByEveryTarget(kRefused);
}

TEST_CASE("types still not generated answer unsupported, naming the type",
          "[emit]") {
  const RefusedFusion kRefused[] = {
      {"p = f6e2m3fn[4] parameter(0)\nROOT r = f32[4] convert(p)\n",
       {"'f6e2m3fn'"}},
      {"p = f6e3m2fn[4] parameter(0)\nROOT r = f6e3m2fn[4] negate(p)\n",
       {"'f6e3m2fn'"}},
      {"p = s4[4]{0:E(2)} parameter(0)\nROOT r = s4[4] negate(p)\n",
       {"E(2) for type 's4'"}},
  };
  ExpectRefusedByEveryTarget(kRefused);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
