// Complex element types (c64, c128) in the test-side literals and the
// reference interpreter: values worked out by hand (or from std::complex,
// whose principal values XLA's complex ops follow), both parts carried by
// every data-movement op, std::complex's byte layout in physical buffers,
// and clean Unsupported errors for the ops complex numbers lack.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>

#include "analysis/hlo/module.h"
#include "tests/emit/emit_interpreter.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

using CxPairs = std::vector<std::complex<double>>;

std::unique_ptr<hlo::Module> CxParse(const std::string& text) {
  auto m = hlo::ParseHloModule(text);
  INFO(text);
  if (!m.ok()) FAIL(m.error().ToString());
  return std::move(m).value();
}

// A complex literal from values (each part rounded to the component type).
Literal CxLit(ElementType t, std::vector<int64_t> dims, const CxPairs& v) {
  Literal l = Literal::Make(t, std::move(dims));
  REQUIRE(static_cast<int64_t>(v.size()) == l.size());
  for (size_t k = 0; k < v.size(); ++k) {
    l.floats[2 * k] = RoundToType(v[k].real(), t);
    l.floats[2 * k + 1] = RoundToType(v[k].imag(), t);
  }
  return l;
}

Literal CxReals(ElementType t, std::vector<int64_t> dims,
                const std::vector<double>& v) {
  Literal l = Literal::Make(t, std::move(dims));
  for (size_t k = 0; k < v.size(); ++k) l.floats[k] = RoundToType(v[k], t);
  return l;
}

Literal CxRun(const std::string& hlo, const std::vector<Literal>& args) {
  auto m = CxParse(hlo);
  auto r = Interpret(*m->entry(), args);
  INFO(hlo);
  if (!r.ok()) FAIL(r.error().ToString());
  return *r;
}

// The error of a computation that must not evaluate.
Error CxRunError(const std::string& hlo, const std::vector<Literal>& args) {
  auto m = CxParse(hlo);
  auto r = Interpret(*m->entry(), args);
  INFO(hlo);
  REQUIRE_FALSE(r.ok());
  return r.error();
}

CxPairs CxValues(const Literal& l) {
  REQUIRE(IsComplex(l.type));
  REQUIRE(static_cast<int64_t>(l.floats.size()) == 2 * l.size());
  CxPairs out;
  for (int64_t k = 0; k < l.size(); ++k) {
    out.emplace_back(l.floats[2 * k], l.floats[2 * k + 1]);
  }
  return out;
}

// Both parts equal within `eps` (relative to the larger magnitude, 1 at
// least).
bool CxNear(std::complex<double> a, std::complex<double> b, double eps) {
  auto near = [&](double x, double y) {
    return std::fabs(x - y) <=
           eps * std::max({1.0, std::fabs(x), std::fabs(y)});
  };
  return near(a.real(), b.real()) && near(a.imag(), b.imag());
}

void CxCheckNear(const Literal& got, const CxPairs& want, double eps) {
  CxPairs values = CxValues(got);
  REQUIRE(values.size() == want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    INFO("element " << k << ": got " << got.ElementString(k) << ", want ("
                    << want[k].real() << ", " << want[k].imag() << ")");
    CHECK(CxNear(values[k], want[k], eps));
  }
}

// The parts of a c64 result are floats: a double that rounds differently
// would be a c64 result computed in double and never rounded.
void CxCheckFloatParts(const Literal& l) {
  for (double v : l.floats)
    CHECK(static_cast<double>(static_cast<float>(v)) == v);
}

constexpr double kCxPi = 3.14159265358979323846;

TEST_CASE("complex interpreter: c64 multiply and divide", "[emit]") {
  const char* kHlo =
      "a = c64[3] parameter(0)\nb = c64[3] parameter(1)\n"
      "m = c64[3] multiply(a, b)\nd = c64[3] divide(a, b)\n"
      "ROOT r = (c64[3], c64[3]) tuple(m, d)";
  Literal r =
      CxRun(kHlo, {CxLit(ElementType::kC64, {3}, {{1, 2}, {3, -1}, {0, 1}}),
                   CxLit(ElementType::kC64, {3}, {{3, 4}, {0, 2}, {0, 1}})});
  REQUIRE(r.tuple.size() == 2);
  // (1+2i)(3+4i) = -5+10i; (3-i)(2i) = 2+6i; i*i = -1.
  CHECK(CxValues(r.tuple[0]) == CxPairs{{-5, 10}, {2, 6}, {-1, 0}});
  // (1+2i)/(3+4i) = (11+2i)/25; (3-i)/(2i) = -0.5-1.5i; i/i = 1.
  CHECK(CxValues(r.tuple[1]) ==
        CxPairs{{static_cast<float>(0.44), static_cast<float>(0.08)},
                {-0.5, -1.5},
                {1, 0}});
  CxCheckFloatParts(r.tuple[1]);
  // c128 keeps double precision: 1/3 is not rounded to float.
  Literal d = CxRun(
      "a = c128[1] parameter(0)\nb = c128[1] parameter(1)\n"
      "ROOT d = c128[1] divide(a, b)",
      {CxLit(ElementType::kC128, {1}, {{1, 1}}),
       CxLit(ElementType::kC128, {1}, {{3, 3}})});
  CHECK(CxNear(CxValues(d)[0], {1.0 / 3, 0}, 1e-15));
  CHECK(CxValues(d)[0].real() != static_cast<float>(1.0 / 3));
  // add, subtract, negate.
  Literal s = CxRun(
      "a = c64[2] parameter(0)\nb = c64[2] parameter(1)\n"
      "x = c64[2] add(a, b)\ny = c64[2] subtract(a, b)\nz = c64[2] negate(a)\n"
      "ROOT r = (c64[2], c64[2], c64[2]) tuple(x, y, z)",
      {CxLit(ElementType::kC64, {2}, {{1, 2}, {-3, 0.5}}),
       CxLit(ElementType::kC64, {2}, {{10, 20}, {1, 1}})});
  CHECK(CxValues(s.tuple[0]) == CxPairs{{11, 22}, {-2, 1.5}});
  CHECK(CxValues(s.tuple[1]) == CxPairs{{-9, -18}, {-4, -0.5}});
  CHECK(CxValues(s.tuple[2]) == CxPairs{{-1, -2}, {3, -0.5}});
}

TEST_CASE("complex interpreter: math functions at known points", "[emit]") {
  auto unary = [](const std::string& op, ElementType t, const CxPairs& v) {
    const std::string ty = hlo::ElementTypeName(t);
    const std::string n = std::to_string(v.size());
    return CxRun("a = " + ty + "[" + n + "] parameter(0)\nROOT r = " + ty +
                     "[" + n + "] " + op + "(a)",
                 {CxLit(t, {static_cast<int64_t>(v.size())}, v)});
  };
  const ElementType c64 = ElementType::kC64, c128 = ElementType::kC128;
  // e^0 = 1, e^(i pi/2) = i, e^(ln 2 + i pi) = -2.
  CxCheckNear(unary("exponential", c128,
                    {{0, 0}, {0, kCxPi / 2}, {std::log(2.0), kCxPi}}),
              {{1, 0}, {0, 1}, {-2, 0}}, 1e-15);
  // log i = i pi/2, log -1 = i pi (the principal value), log(3+4i).
  CxCheckNear(unary("log", c128, {{0, 1}, {-1, 0}, {3, 4}}),
              {{0, kCxPi / 2}, {0, kCxPi}, {std::log(5.0), std::atan2(4, 3)}},
              1e-15);
  // sqrt -4 = 2i, sqrt(3+4i) = 2+i, sqrt 2i = 1+i, sqrt(-3-4i) = 1-2i.
  Literal sq = unary("sqrt", c64, {{-4, 0}, {3, 4}, {0, 2}, {-3, -4}});
  CxCheckNear(sq, {{0, 2}, {2, 1}, {1, 1}, {1, -2}}, 1e-7);
  CxCheckFloatParts(sq);
  CxCheckNear(unary("rsqrt", c128, {{4, 0}, {-4, 0}}), {{0.5, 0}, {0, -0.5}},
              1e-15);
  // sign z = z / |z|, 0 at 0.
  CxCheckNear(unary("sign", c64, {{3, 4}, {0, 0}, {0, -2}}),
              {{0.6, 0.8}, {0, 0}, {0, -1}}, 1e-7);
  // expm1 and log1p keep the precision near 0 that exp(z) - 1 loses:
  // e^x - 1 = x + x^2/2 and log(1 + x) = x - x^2/2 to 1e-30 at x = 1e-10,
  // where exp(z) - 1 and log(1 + z) in double are 8e-18 off.
  CxCheckNear(unary("exponential-minus-one", c128, {{1e-10, 0}, {0, 1e-10}}),
              {{1e-10, 0}, {-5e-21, 1e-10}}, 1e-15);
  CHECK(
      std::fabs(CxValues(unary("exponential-minus-one", c128, {{1e-10, 0}}))[0]
                    .real() -
                (1e-10 + 5e-21)) < 1e-24);
  CHECK(
      std::fabs(CxValues(unary("log-plus-one", c128, {{1e-10, 0}}))[0].real() -
                (1e-10 - 5e-21)) < 1e-24);
  // cos(b) - 1 for a tiny b: -b^2 / 2, not 0.
  CHECK(
      std::fabs(CxValues(unary("exponential-minus-one", c128, {{0, 1e-10}}))[0]
                    .real() +
                5e-21) < 1e-35);
  CxCheckNear(unary("log-plus-one", c128, {{-2, 0}, {2, 4}}),
              {{0, kCxPi}, {std::log(5.0), std::atan2(4, 3)}}, 1e-15);
  // tanh, sine, cosine against std::complex.
  const std::complex<double> z(0.5, -1.25);
  CxCheckNear(unary("tanh", c128, {z}), {std::tanh(z)}, 1e-15);
  CxCheckNear(unary("sine", c128, {z}), {std::sin(z)}, 1e-15);
  CxCheckNear(unary("cosine", c128, {z}), {std::cos(z)}, 1e-15);
  // abs is |z| in the component type.
  Literal ab = CxRun("a = c64[2] parameter(0)\nROOT r = f32[2] abs(a)",
                     {CxLit(c64, {2}, {{3, 4}, {-5, 12}})});
  CHECK(ab.type == ElementType::kF32);
  CHECK(ab.floats == std::vector<double>{5, 13});
  Literal ab2 = CxRun("a = c128[1] parameter(0)\nROOT r = f64[1] abs(a)",
                      {CxLit(c128, {1}, {{1, 1}})});
  CHECK(ab2.type == ElementType::kF64);
  CHECK(ab2.floats[0] == std::sqrt(2.0));
  // power: (1+i)^2 = 2i, and the zero base: 0^0 = 1, 0^2 = 0.
  Literal p = CxRun(
      "a = c128[3] parameter(0)\nb = c128[3] parameter(1)\n"
      "ROOT r = c128[3] power(a, b)",
      {CxLit(c128, {3}, {{1, 1}, {0, 0}, {0, 0}}),
       CxLit(c128, {3}, {{2, 0}, {0, 0}, {2, 0}})});
  CxCheckNear(p, {{0, 2}, {1, 0}, {0, 0}}, 1e-15);
}

TEST_CASE("complex interpreter: real, imag and complex", "[emit]") {
  Literal r = CxRun(
      "re = f32[3] parameter(0)\nim = f32[3] parameter(1)\n"
      "c = c64[3] complex(re, im)\nx = f32[3] real(c)\ny = f32[3] imag(c)\n"
      "ROOT t = (f32[3], f32[3], c64[3]) tuple(x, y, c)",
      {CxReals(ElementType::kF32, {3}, {1.5, -2, 0.1}),
       CxReals(ElementType::kF32, {3}, {7, 0, -3})});
  REQUIRE(r.tuple.size() == 3);
  CHECK(r.tuple[0].type == ElementType::kF32);
  CHECK(r.tuple[0].floats ==
        std::vector<double>{1.5, -2, static_cast<float>(0.1)});
  CHECK(r.tuple[1].type == ElementType::kF32);
  CHECK(r.tuple[1].floats == std::vector<double>{7, 0, -3});
  CHECK(r.tuple[2].type == ElementType::kC64);
  CHECK(CxValues(r.tuple[2]) ==
        CxPairs{{1.5, 7}, {-2, 0}, {static_cast<float>(0.1), -3}});
  CHECK(r.tuple[2].ElementString(0) == "(1.5, 7)");
  // f64 parts make a c128; real / imag of a real float: itself and 0.
  Literal c = CxRun(
      "re = f64[1] parameter(0)\nim = f64[1] parameter(1)\n"
      "c = c128[1] complex(re, im)\nx = f64[1] real(re)\ny = f64[1] imag(re)\n"
      "ROOT t = (c128[1], f64[1], f64[1]) tuple(c, x, y)",
      {CxReals(ElementType::kF64, {1}, {0.1}),
       CxReals(ElementType::kF64, {1}, {-0.2})});
  CHECK(c.tuple[0].type == ElementType::kC128);
  CHECK(CxValues(c.tuple[0]) == CxPairs{{0.1, -0.2}});
  CHECK(c.tuple[1].floats == std::vector<double>{0.1});
  CHECK(c.tuple[2].floats == std::vector<double>{0});
}

TEST_CASE("complex interpreter: compare EQ and NE", "[emit]") {
  const double nan = std::nan("");
  Literal r = CxRun(
      "a = c64[4] parameter(0)\nb = c64[4] parameter(1)\n"
      "e = pred[4] compare(a, b), direction=EQ\n"
      "n = pred[4] compare(a, b), direction=NE\n"
      "ROOT t = (pred[4], pred[4]) tuple(e, n)",
      {CxLit(ElementType::kC64, {4}, {{1, 2}, {1, 2}, {nan, 0}, {1, 2}}),
       CxLit(ElementType::kC64, {4}, {{1, 2}, {1, 3}, {nan, 0}, {0, 2}})});
  // Unequal in either part is unequal; a NaN part is never equal.
  CHECK(r.tuple[0].ints == std::vector<uint64_t>{1, 0, 0, 0});
  CHECK(r.tuple[1].ints == std::vector<uint64_t>{0, 1, 1, 1});
}

TEST_CASE("complex interpreter: convert to and between complex types",
          "[emit]") {
  Literal r = CxRun(
      "a = f32[3] parameter(0)\nb = c64[3] convert(a)\n"
      "c = c128[3] convert(b)\nd = f64[3] parameter(1)\n"
      "e = c64[3] convert(d)\ni = s32[3] parameter(2)\nj = c64[3] convert(i)\n"
      "k = c64[3] convert(c)\n"
      "ROOT t = (c64[3], c128[3], c64[3], c64[3], c64[3]) tuple(b, c, e, j, k)",
      {CxReals(ElementType::kF32, {3}, {1.5, -2, 0.1}),
       CxReals(ElementType::kF64, {3}, {0.1, 1e300, -0.0}), [] {
         Literal l = Literal::Make(ElementType::kS32, {3});
         l.ints = {WrapToType(16777217, ElementType::kS32),
                   WrapToType(static_cast<uint64_t>(-3), ElementType::kS32), 0};
         return l;
       }()});
  const double f01 = static_cast<float>(0.1);
  CHECK(CxValues(r.tuple[0]) == CxPairs{{1.5, 0}, {-2, 0}, {f01, 0}});
  CHECK(r.tuple[1].type == ElementType::kC128);
  CHECK(CxValues(r.tuple[1]) == CxPairs{{1.5, 0}, {-2, 0}, {f01, 0}});
  // f64 -> c64 rounds the real part to f32 (1e300 overflows to inf).
  CHECK(CxValues(r.tuple[2]) == CxPairs{{f01, 0}, {INFINITY, 0}, {0, 0}});
  CHECK(std::signbit(r.tuple[2].floats[4]));  // -0 stays -0
  // 2^24 + 1 is not an f32: it rounds (to even) once.
  CHECK(CxValues(r.tuple[3]) == CxPairs{{16777216, 0}, {-3, 0}, {0, 0}});
  CHECK(CxValues(r.tuple[4]) == CxValues(r.tuple[0]));
  // c128 -> c64 rounds both parts.
  Literal n = CxRun("a = c128[1] parameter(0)\nROOT b = c64[1] convert(a)",
                    {CxLit(ElementType::kC128, {1}, {{0.1, -0.3}})});
  CHECK(CxValues(n) == CxPairs{{f01, static_cast<float>(-0.3)}});
}

TEST_CASE("complex interpreter: reductions and constants", "[emit]") {
  const std::string kReducers =
      "add { a = c64[] parameter(0)\n b = c64[] parameter(1)\n"
      " ROOT s = c64[] add(a, b) }\n"
      "mul { a = c64[] parameter(0)\n b = c64[] parameter(1)\n"
      " ROOT s = c64[] multiply(a, b) }\n";
  const Literal input =
      CxLit(ElementType::kC64, {2, 3},
            {{1, 1}, {2, 0}, {0, 3}, {4, -1}, {5, 5}, {6, 0}});
  Literal sum = CxRun(kReducers +
                          "ENTRY e { p = c64[2,3] parameter(0)\n"
                          "c = c64[] constant((10, -10))\n"
                          "ROOT r = c64[3] reduce(p, c), dimensions={0}, "
                          "to_apply=add }",
                      {input});
  CHECK(CxValues(sum) == CxPairs{{15, -10}, {17, -5}, {16, -7}});
  Literal prod = CxRun(kReducers +
                           "ENTRY e { p = c64[2,3] parameter(0)\n"
                           "c = c64[] constant((1, 0))\n"
                           "ROOT r = c64[2] reduce(p, c), dimensions={1}, "
                           "to_apply=mul }",
                       {input});
  // (1+i)(2)(3i) = -6+6i; (4-i)(5+5i)(6) = 150+90i.
  CHECK(CxValues(prod) == CxPairs{{-6, 6}, {150, 90}});
  // An init parameter is fed the reducer's identity.
  auto m = CxParse(kReducers +
                   "ENTRY e { p = c64[2,3] parameter(0)\n"
                   "c = c64[] parameter(1)\n"
                   "s = c64[3] reduce(p, c), dimensions={0}, to_apply=add\n"
                   "q = c64[] parameter(2)\n"
                   "t = c64[2] reduce(p, q), dimensions={1}, to_apply=mul\n"
                   "ROOT r = (c64[3], c64[2]) tuple(s, t) }");
  std::vector<Literal> args = {input, CxLit(ElementType::kC64, {}, {{7, 7}}),
                               CxLit(ElementType::kC64, {}, {{7, 7}})};
  FeedReducerIdentities(*m->entry(), &args);
  CHECK(CxValues(args[1]) == CxPairs{{0, 0}});
  CHECK(CxValues(args[2]) == CxPairs{{1, 0}});
  auto fed = Interpret(*m->entry(), args);
  REQUIRE(fed.ok());
  CHECK(CxValues(fed->tuple[0]) == CxPairs{{5, 0}, {7, 5}, {6, 3}});
  CHECK(CxValues(fed->tuple[1]) == CxPairs{{-6, 6}, {150, 90}});
  // A reduce-window sums both parts of a window.
  Literal rw = CxRun(kReducers +
                         "ENTRY e { p = c64[2,3] parameter(0)\n"
                         "c = c64[] constant((0, 0))\n"
                         "ROOT r = c64[2,2] reduce-window(p, c), "
                         "window={size=1x2}, to_apply=add }",
                     {input});
  CHECK(CxValues(rw) == CxPairs{{3, 1}, {2, 3}, {9, 4}, {11, 5}});
  // Array constants, inf and nan parts, and a c128 scalar.
  Literal k = CxRun(
      "a = c64[3] constant({(1, 2), (3.5, -4), (inf, nan)})\n"
      "b = c128[] constant((0.1, -1e300))\n"
      "ROOT t = (c64[3], c128[]) tuple(a, b)",
      {});
  CHECK(k.tuple[0].floats[0] == 1);
  CHECK(k.tuple[0].floats[3] == -4);
  CHECK(std::isinf(k.tuple[0].floats[4]));
  CHECK(std::isnan(k.tuple[0].floats[5]));
  CHECK(CxValues(k.tuple[1]) == CxPairs{{0.1, -1e300}});
  // A complex literal must be pairs, and a real one has none.
  for (const char* bad : {"ROOT a = c64[2] constant({1, 2})",
                          "ROOT a = c64[1] constant({(1, 2, 3)})",
                          "ROOT a = c64[2] constant({(1, 2)})",
                          "ROOT a = f32[1] constant({(1)})"}) {
    Error e = CxRunError(bad, {});
    INFO(e.ToString());
    CHECK(e.code == ErrorCode::kUnsupported);
  }
}

TEST_CASE("complex interpreter: data movement carries both parts", "[emit]") {
  const Literal input =
      CxLit(ElementType::kC64, {2, 3},
            {{1, -1}, {2, -2}, {3, -3}, {4, -4}, {5, -5}, {6, -6}});
  Literal tr = CxRun(
      "p = c64[2,3] parameter(0)\nROOT r = c64[3,2] transpose(p), "
      "dimensions={1,0}",
      {input});
  CHECK(CxValues(tr) ==
        CxPairs{{1, -1}, {4, -4}, {2, -2}, {5, -5}, {3, -3}, {6, -6}});
  Literal cc = CxRun(
      "p = c64[2,3] parameter(0)\nq = c64[2,1] constant({{(7, 70)}, {(8, "
      "80)}})\nROOT r = c64[2,4] concatenate(p, q), dimensions={1}",
      {input});
  CHECK(CxValues(cc) == CxPairs{{1, -1},
                                {2, -2},
                                {3, -3},
                                {7, 70},
                                {4, -4},
                                {5, -5},
                                {6, -6},
                                {8, 80}});
  // Many ops in one computation, each result's parts checked.
  Literal r = CxRun(
      "p = c64[2,3] parameter(0)\n"
      "s = c64[2,2] slice(p), slice={[0:2], [1:3]}\n"
      "v = c64[2,3] reverse(p), dimensions={1}\n"
      "z = c64[] constant((9, 99))\n"
      "pd = c64[2,4] pad(p, z), padding=0_0x1_0\n"
      "i = s32[] constant(1)\nj = s32[] constant(0)\n"
      "ds = c64[1,2] dynamic-slice(p, i, j), dynamic_slice_sizes={1,2}\n"
      "u = c64[1,2] constant({{(0, 1), (0, 2)}})\n"
      "du = c64[2,3] dynamic-update-slice(p, u, j, i)\n"
      "b = c64[2,3] broadcast(z), dimensions={}\n"
      "io = c64[3] iota(), iota_dimension=0\n"
      "rs = c64[3,2] reshape(p)\n"
      "m = pred[2,3] constant({{true, false, true}, {false, true, false}})\n"
      "se = c64[2,3] select(m, p, b)\n"
      "cp = c64[2,3] copy(p)\n"
      "ROOT t = (c64[2,2], c64[2,3], c64[2,4], c64[1,2], c64[2,3], c64[3], "
      "c64[3,2], c64[2,3], c64[2,3]) "
      "tuple(s, v, pd, ds, du, io, rs, se, cp)",
      {input});
  REQUIRE(r.tuple.size() == 9);
  CHECK(CxValues(r.tuple[0]) == CxPairs{{2, -2}, {3, -3}, {5, -5}, {6, -6}});
  CHECK(CxValues(r.tuple[1]) ==
        CxPairs{{3, -3}, {2, -2}, {1, -1}, {6, -6}, {5, -5}, {4, -4}});
  CHECK(CxValues(r.tuple[2]) == CxPairs{{9, 99},
                                        {1, -1},
                                        {2, -2},
                                        {3, -3},
                                        {9, 99},
                                        {4, -4},
                                        {5, -5},
                                        {6, -6}});
  CHECK(CxValues(r.tuple[3]) == CxPairs{{4, -4}, {5, -5}});
  CHECK(CxValues(r.tuple[4]) ==
        CxPairs{{1, -1}, {0, 1}, {0, 2}, {4, -4}, {5, -5}, {6, -6}});
  CHECK(CxValues(r.tuple[5]) == CxPairs{{0, 0}, {1, 0}, {2, 0}});
  CHECK(CxValues(r.tuple[6]) == CxValues(input));
  CHECK(CxValues(r.tuple[7]) ==
        CxPairs{{1, -1}, {9, 99}, {3, -3}, {9, 99}, {5, -5}, {9, 99}});
  CHECK(CxValues(r.tuple[8]) == CxValues(input));
  // Gather rows, and a bitcast reading the column-major buffer row-major.
  Literal g = CxRun(
      "p = c64[2,3] parameter(0)\ni = s32[1,1] constant({{1}})\n"
      "ROOT r = c64[1,3] gather(p, i), offset_dims={1}, "
      "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
      "slice_sizes={1,3}",
      {input});
  CHECK(CxValues(g) == CxPairs{{4, -4}, {5, -5}, {6, -6}});
  Literal bc =
      CxRun("p = c64[2,3]{0,1} parameter(0)\nROOT r = c64[3,2]{1,0} bitcast(p)",
            {input});
  CHECK(CxValues(bc) ==
        CxPairs{{1, -1}, {4, -4}, {2, -2}, {5, -5}, {3, -3}, {6, -6}});
  // A scatter combines updates through a c64 add.
  Literal sc = CxRun(
      "add { a = c64[] parameter(0)\n b = c64[] parameter(1)\n"
      " ROOT s = c64[] add(a, b) }\n"
      "ENTRY e { p = c64[3] parameter(0)\ni = s32[2,1] constant({{1}, {1}})\n"
      "u = c64[2] constant({(1, 10), (2, 20)})\n"
      "ROOT r = c64[3] scatter(p, i, u), update_window_dims={}, "
      "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
      "index_vector_dim=1, to_apply=add }",
      {CxLit(ElementType::kC64, {3}, {{0, 0}, {100, 100}, {0, 0}})});
  CHECK(CxValues(sc) == CxPairs{{0, 0}, {103, 130}, {0, 0}});
}

TEST_CASE("complex literals: physical encoding is std::complex's", "[emit]") {
  // A column-major layout: element [i,j] at offset j*2 + i.
  auto shape64 = hlo::ParseShape("c64[2,3]{0,1}");
  REQUIRE(shape64.ok());
  const CxPairs values = {{1, -1.5}, {2, 0.25}, {3, -3},
                          {4, 1e-3}, {5, -5},   {6, 7e20}};
  Literal l64 = CxLit(ElementType::kC64, {2, 3}, values);
  PhysicalLayout layout = ComputePhysicalLayout(*shape64);
  CHECK(layout.element_bytes == 8);
  CHECK(layout.bytes() == 48);
  std::vector<std::complex<float>> want64(6);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      want64[j * 2 + i] = std::complex<float>(values[i * 3 + j]);
    }
  }
  std::vector<uint8_t> bytes64 = ToPhysical(l64, *shape64);
  REQUIRE(bytes64.size() == 48);
  CHECK(std::memcmp(bytes64.data(), want64.data(), 48) == 0);
  Literal back64 = FromPhysical(bytes64, *shape64);
  CHECK(CompareLiterals(l64, back64, {}).empty());
  CHECK(back64.floats == l64.floats);

  auto shape128 = hlo::ParseShape("c128[2,3]{0,1}");
  REQUIRE(shape128.ok());
  const CxPairs values128 = {{0.1, -0.2}, {2, 3}, {1e300, -1e-300},
                             {4, 5},      {6, 7}, {8, 9}};
  Literal l128 = CxLit(ElementType::kC128, {2, 3}, values128);
  std::vector<std::complex<double>> want128(6);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) want128[j * 2 + i] = values128[i * 3 + j];
  }
  std::vector<uint8_t> bytes128 = ToPhysical(l128, *shape128);
  REQUIRE(bytes128.size() == 96);
  CHECK(std::memcmp(bytes128.data(), want128.data(), 96) == 0);
  CHECK(FromPhysical(bytes128, *shape128).floats == l128.floats);
  // A tiled layout pads like any 16-byte type: 3 columns in tiles of 2.
  auto tiled = hlo::ParseShape("c128[2,3]{1,0:T(2)}");
  REQUIRE(tiled.ok());
  CHECK(ComputePhysicalLayout(*tiled).bytes() == 2 * 4 * 16);
  CHECK(FromPhysical(ToPhysical(l128, *tiled), *tiled).floats == l128.floats);
}

TEST_CASE("complex literals: random values and comparison", "[emit]") {
  std::mt19937_64 rng(7);
  Literal r =
      RandomLiteral(hlo::Shape::Array(ElementType::kC64, {64}), rng, {});
  REQUIRE(r.floats.size() == 128);
  bool imag_varies = false;
  for (int64_t k = 0; k < r.size(); ++k) {
    CHECK(std::fabs(r.floats[2 * k]) <= 4);
    CHECK(std::fabs(r.floats[2 * k + 1]) <= 4);
    if (r.floats[2 * k + 1] != r.floats[1]) imag_varies = true;
  }
  CHECK(imag_varies);
  CxCheckFloatParts(r);
  CHECK(r.AsDouble(3) == r.floats[6]);
  // A difference in the imaginary part only is a mismatch, printed as a
  // pair; a tolerance covers it like a float's.
  Literal a = CxLit(ElementType::kC64, {2}, {{1, 2}, {3, 4}});
  Literal b = CxLit(ElementType::kC64, {2}, {{1, 2}, {3, 4.5}});
  const std::string diff = CompareLiterals(a, b, {});
  CHECK(diff.find("1 of 2 elements differ") != std::string::npos);
  CHECK(diff.find("expected (3, 4) got (3, 4.5)") != std::string::npos);
  Tolerance loose;
  loose.abs = 0.5;
  CHECK(CompareLiterals(a, b, loose).empty());
  Literal nan_a = CxLit(ElementType::kC128, {1}, {{1, std::nan("")}});
  CHECK(CompareLiterals(nan_a, nan_a, {}).empty());
  CHECK_FALSE(
      CompareLiterals(nan_a, CxLit(ElementType::kC128, {1}, {{1, 0}}), {})
          .empty());
}

TEST_CASE("complex interpreter: ops complex numbers lack are Unsupported",
          "[emit]") {
  const Literal x = CxLit(ElementType::kC64, {2}, {{1, 2}, {3, 4}});
  auto check = [](const Error& e, const std::string& op,
                  const std::string& type) {
    INFO(e.ToString());
    CHECK(e.code == ErrorCode::kUnsupported);
    CHECK(e.message.find("'" + op + "'") != std::string::npos);
    CHECK(e.message.find(type) != std::string::npos);
  };
  check(CxRunError("a = c64[2] parameter(0)\nb = c64[2] parameter(1)\n"
                   "ROOT r = c64[2] maximum(a, b)",
                   {x, x}),
        "maximum", "c64");
  check(CxRunError("a = c64[2] parameter(0)\nb = c64[2] parameter(1)\n"
                   "ROOT r = pred[2] compare(a, b), direction=LT",
                   {x, x}),
        "compare", "c64");
  for (const char* op : {"minimum", "remainder", "atan2", "and", "or"}) {
    check(CxRunError(std::string("a = c64[2] parameter(0)\n"
                                 "b = c64[2] parameter(1)\n"
                                 "ROOT r = c64[2] ") +
                         op + "(a, b)",
                     {x, x}),
          op, "c64");
  }
  for (const char* op : {"floor", "ceil", "round-nearest-afz", "logistic",
                         "cbrt", "erf", "not"}) {
    check(CxRunError(std::string("a = c64[2] parameter(0)\n"
                                 "ROOT r = c64[2] ") +
                         op + "(a)",
                     {x}),
          op, "c64");
  }
  check(
      CxRunError("a = c64[2] parameter(0)\nROOT r = pred[2] is-finite(a)", {x}),
      "is-finite", "c64");
  check(CxRunError("a = c64[2] parameter(0)\nb = c64[2] parameter(1)\n"
                   "ROOT r = c64[2] clamp(a, b, a)",
                   {x, x}),
        "clamp", "c64");
  // A complex bitcast-convert does not parse (emit_bitcast_test.cc).
  check(CxRunError("a = c64[2] parameter(0)\n"
                   "ROOT r = c64[2] reduce-precision(a), exponent_bits=5, "
                   "mantissa_bits=10",
                   {x}),
        "reduce-precision", "c64");
  check(CxRunError("a = c64[2] parameter(0)\nROOT r = f32[2] convert(a)", {x}),
        "convert", "c64");
  const Literal c128 = CxLit(ElementType::kC128, {1}, {{1, 2}});
  check(CxRunError("a = c128[1] parameter(0)\nb = c128[1] parameter(1)\n"
                   "ROOT r = pred[1] compare(a, b), direction=GE",
                   {c128, c128}),
        "compare", "c128");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
