// Op coverage against the cases of XLA's indexing_analysis_test.cc (classic
// API), in both directions. Maps are compared as maps: the exact decision
// procedure (simplifier/decide.h) or enumeration, never as text. Input ->
// output maps of ops XLA does not index that way (reduce-window,
// convolution, gather) are compared as relations: the same (dims, runtime
// values) -> results pairs, whatever the order of the range variables.
#include <set>

#include "simplifier/decide.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

std::string WithMax(const std::string& entry) {
  return std::string("HloModule m\n") + kMax + "ENTRY e {\n" + entry + "\n}";
}

std::vector<IndexingMapSet> OutToIn(const std::string& hlo, ExprContext* ctx,
                                    int output_id = 0) {
  auto module = ParseOrDie(hlo);
  auto r =
      ComputeOutputToInputIndexing(*module->entry()->root(), output_id, ctx);
  INFO((r.ok() ? "" : r.error().ToString()));
  REQUIRE(r.ok());
  return r->indexing_maps;
}

std::vector<IndexingMapSet> InToOut(const std::string& hlo, int operand,
                                    ExprContext* ctx) {
  auto module = ParseOrDie(hlo);
  auto r = ComputeInputToOutputIndexing(*module->entry()->root(), operand, ctx);
  INFO((r.ok() ? "" : r.error().ToString()));
  REQUIRE(r.ok());
  return r->indexing_maps;
}

const IndexingMap& Single(const IndexingMapSet& set) {
  INFO("maps: " << set.size());
  for (const IndexingMap& m : set) INFO(PrintIndexingMap(m));
  REQUIRE(set.size() == 1);
  return set.maps()[0];
}

IndexingMap Parse(const std::string& text, ExprContext* ctx) {
  auto want = ParseIndexingMap(text, ctx);
  INFO(text << (want.ok() ? "" : want.error().ToString()));
  REQUIRE(want.ok());
  return *want;
}

// Same map: same variables, same domain, same results on it.
void ExpectMap(const IndexingMap& got, const std::string& want_text,
               ExprContext* ctx) {
  IndexingMap want = Parse(want_text, ctx);
  INFO("expected " << want_text);
  INFO("got      " << PrintIndexingMap(got));
  if (got.num_symbols() != want.num_symbols()) FinishMap(&want);
  REQUIRE(got.num_dims() == want.num_dims());
  REQUIRE(got.num_range_vars() == want.num_range_vars());
  REQUIRE(got.num_rt_vars() == want.num_rt_vars());
  REQUIRE(got.num_results() == want.num_results());
  auto eq = Equivalent(got, want);
  if (!eq.ok()) eq = EquivalentByEnumeration(got, want, 1 << 22);
  INFO((eq.ok() ? "" : eq.error().ToString()));
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);
}

// (dims, runtime values) -> results pairs of a map, range variables
// projected out.
std::set<std::vector<int64_t>> Relation(const IndexingMap& m) {
  std::set<std::vector<int64_t>> pairs;
  auto r = ForEachDomainPoint(m, 1 << 22, [&](const Point& p) {
    std::vector<int64_t> key = p.dims;
    key.insert(key.end(), p.symbols.begin() + m.num_range_vars(),
               p.symbols.end());
    auto v = m.Evaluate(p.dims, p.symbols);
    if (!v.ok()) return false;
    key.insert(key.end(), v->begin(), v->end());
    pairs.insert(std::move(key));
    return true;
  });
  REQUIRE(r.ok());
  return pairs;
}

void ExpectRelation(const IndexingMap& got, const std::string& want_text,
                    ExprContext* ctx) {
  IndexingMap want = Parse(want_text, ctx);
  INFO("expected " << want_text);
  INFO("got      " << PrintIndexingMap(got));
  REQUIRE(got.num_dims() == want.num_dims());
  REQUIRE(got.num_rt_vars() == want.num_rt_vars());
  REQUIRE(got.num_results() == want.num_results());
  CHECK(Relation(got) == Relation(want));
}

TEST_CASE("xla: elementwise, map, select and clamp with scalars", "[xla]") {
  ExprContext ctx;
  const std::string add = R"(
    p0 = f32[10, 20] parameter(0)
    p1 = f32[10, 20] parameter(1)
    ROOT add0 = f32[10, 20] add(p0, p1))";
  const char* id = "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]";
  auto o2i = OutToIn(add, &ctx);
  ExpectMap(Single(o2i[0]), id, &ctx);
  ExpectMap(Single(o2i[1]), id, &ctx);
  ExpectMap(Single(InToOut(add, 1, &ctx)[0]), id, &ctx);

  // Every unary elementwise opcode by its HLO name (XLA prints kClz as
  // count-leading-zeros).
  for (const char* op : {"count-leading-zeros", "popcnt", "not", "sign",
                         "round-nearest-even", "is-finite", "erf", "cbrt"}) {
    INFO(op);
    const std::string unary = std::string(R"(
    p0 = s32[10, 20] parameter(0)
    ROOT u = s32[10, 20] )") + op +
                              "(p0)";
    ExpectMap(Single(OutToIn(unary, &ctx)[0]), id, &ctx);
  }

  const std::string map = std::string("HloModule m\n") + R"(
    mapper {
      a = f32[] parameter(0)
      b = f32[] parameter(1)
      ROOT add = f32[] add(a, b)
    }
    ENTRY e {
      p0 = f32[10, 20] parameter(0)
      p1 = f32[10, 20] parameter(1)
      ROOT add0 = f32[10, 20] map(p0, p1), dimensions={0, 1}, to_apply=mapper
    })";
  o2i = OutToIn(map, &ctx);
  ExpectMap(Single(o2i[0]), id, &ctx);
  ExpectMap(Single(o2i[1]), id, &ctx);
  ExpectMap(Single(InToOut(map, 0, &ctx)[0]), id, &ctx);

  const std::string select = R"(
    p0 = pred[] parameter(0)
    p1 = f32[10, 20] parameter(1)
    p2 = f32[10, 20] parameter(2)
    ROOT s = f32[10, 20] select(p0, p1, p2))";
  o2i = OutToIn(select, &ctx);
  ExpectMap(Single(o2i[0]),
            "(d0, d1) -> (), domain: d0 in [0, 9], d1 in [0, 19]", &ctx);
  ExpectMap(Single(o2i[2]), id, &ctx);
  ExpectMap(Single(InToOut(select, 0, &ctx)[0]),
            "()[s0, s1] -> (s0, s1), domain: s0 in [0, 9], s1 in [0, 19]",
            &ctx);

  const std::string clamp = R"(
    lo = f32[] parameter(0)
    x = f32[10, 20] parameter(1)
    hi = f32[] parameter(2)
    ROOT c = f32[10, 20] clamp(lo, x, hi))";
  o2i = OutToIn(clamp, &ctx);
  ExpectMap(Single(o2i[0]),
            "(d0, d1) -> (), domain: d0 in [0, 9], d1 in [0, 19]", &ctx);
  ExpectMap(Single(o2i[1]), id, &ctx);
  ExpectMap(Single(o2i[2]),
            "(d0, d1) -> (), domain: d0 in [0, 9], d1 in [0, 19]", &ctx);
  ExpectMap(Single(InToOut(clamp, 2, &ctx)[0]),
            "()[s0, s1] -> (s0, s1), domain: s0 in [0, 9], s1 in [0, 19]",
            &ctx);
}

TEST_CASE("xla: bitcast as reshape, transpose, transpose-reshape-transpose",
          "[xla]") {
  ExprContext ctx;
  const std::string reshape = R"(
    p0 = f32[4, 32] parameter(0)
    ROOT bitcast = f32[4, 8, 4] bitcast(p0))";
  ExpectMap(Single(OutToIn(reshape, &ctx)[0]),
            "(d0, d1, d2) -> (d0, d1 * 4 + d2), domain: d0 in [0, 3], "
            "d1 in [0, 7], d2 in [0, 3]",
            &ctx);
  ExpectMap(Single(InToOut(reshape, 0, &ctx)[0]),
            "(d0, d1) -> (d0, d1 floordiv 4, d1 mod 4), domain: d0 in [0, 3], "
            "d1 in [0, 31]",
            &ctx);
  const std::string transpose = R"(
    p0 = f32[3, 12288, 6, 128] parameter(0)
    ROOT bitcast = f32[3, 6, 128, 12288] {2, 1, 3, 0} bitcast(p0))";
  ExpectMap(Single(OutToIn(transpose, &ctx)[0]),
            "(d0, d1, d2, d3) -> (d0, d3, d1, d2), domain: d0 in [0, 2], "
            "d1 in [0, 5], d2 in [0, 127], d3 in [0, 12287]",
            &ctx);
  ExpectMap(Single(InToOut(transpose, 0, &ctx)[0]),
            "(d0, d1, d2, d3) -> (d0, d2, d3, d1), domain: d0 in [0, 2], "
            "d1 in [0, 12287], d2 in [0, 5], d3 in [0, 127]",
            &ctx);
  const std::string trt = R"(
    p0 = f32[16, 17, 3] parameter(0)
    ROOT bitcast = f32[51, 16] {0, 1} bitcast(p0))";
  ExpectMap(Single(OutToIn(trt, &ctx)[0]),
            "(d0, d1) -> (d1, d0 floordiv 3, d0 mod 3), domain: d0 in [0, 50], "
            "d1 in [0, 15]",
            &ctx);
  ExpectMap(Single(InToOut(trt, 0, &ctx)[0]),
            "(d0, d1, d2) -> (d1 * 3 + d2, d0), domain: d0 in [0, 15], "
            "d1 in [0, 16], d2 in [0, 2]",
            &ctx);
}

TEST_CASE("xla: reshapes of all shapes", "[xla]") {
  ExprContext ctx;
  struct Case {
    std::string from, to, o2i, i2o;
  };
  const std::vector<Case> cases = {
      {"[16, 8]", "[4, 4, 8]",
       "(d0, d1, d2) -> (d0 * 4 + d1, d2), domain: d0 in [0, 3], "
       "d1 in [0, 3], d2 in [0, 7]",
       "(d0, d1) -> (d0 floordiv 4, d0 mod 4, d1), domain: d0 in [0, 15], "
       "d1 in [0, 7]"},
      {"[4, 8, 12]", "[32, 3, 4]",
       "(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2), domain: "
       "d0 in [0, 31], d1 in [0, 2], d2 in [0, 3]",
       "(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4), domain: "
       "d0 in [0, 3], d1 in [0, 7], d2 in [0, 11]"},
      {"[4, 8]", "[2, 4, 4]",
       "(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, (d1 mod 2) * 4 + d2), "
       "domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]",
       "(d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 2 + d1 floordiv 4, d1 mod 4), "
       "domain: d0 in [0, 3], d1 in [0, 7]"},
      {"[2, 4, 4]", "[4, 8]",
       "(d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 2 + d1 floordiv 4, d1 mod 4), "
       "domain: d0 in [0, 3], d1 in [0, 7]",
       "(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, (d1 mod 2) * 4 + d2), "
       "domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]"},
      // Size-1 dims on both sides, and a collapse of 3 dims.
      {"[1, 3, 1, 4]", "[12, 1]",
       "(d0, d1) -> (0, d0 floordiv 4, 0, d0 mod 4), domain: d0 in [0, 11], "
       "d1 in [0, 0]",
       "(d0, d1, d2, d3) -> (d1 * 4 + d3, 0), domain: d0 in [0, 0], "
       "d1 in [0, 2], d2 in [0, 0], d3 in [0, 3]"},
      {"[2, 3, 4, 5]", "[120]",
       "(d0) -> (d0 floordiv 60, (d0 floordiv 20) mod 3, (d0 floordiv 5) mod "
       "4, d0 mod 5), domain: d0 in [0, 119]",
       "(d0, d1, d2, d3) -> (d0 * 60 + d1 * 20 + d2 * 5 + d3), domain: "
       "d0 in [0, 1], d1 in [0, 2], d2 in [0, 3], d3 in [0, 4]"},
      {"[120]", "[2, 3, 4, 5]",
       "(d0, d1, d2, d3) -> (d0 * 60 + d1 * 20 + d2 * 5 + d3), domain: "
       "d0 in [0, 1], d1 in [0, 2], d2 in [0, 3], d3 in [0, 4]",
       "(d0) -> (d0 floordiv 60, (d0 floordiv 20) mod 3, (d0 floordiv 5) mod "
       "4, d0 mod 5), domain: d0 in [0, 119]"},
      {"[]", "[1, 1]", "(d0, d1) -> (), domain: d0 in [0, 0], d1 in [0, 0]",
       "() -> (0, 0)"},
  };
  for (const Case& c : cases) {
    const std::string hlo = "p0 = f32" + c.from +
                            " parameter(0)\nROOT r = f32" + c.to +
                            " reshape(p0)";
    INFO(hlo);
    ExpectMap(Single(OutToIn(hlo, &ctx)[0]), c.o2i, &ctx);
    ExpectMap(Single(InToOut(hlo, 0, &ctx)[0]), c.i2o, &ctx);
  }
}

TEST_CASE("xla: dot with batch dims in any order", "[xla]") {
  ExprContext ctx;
  const std::string dot = R"(
    p0 = f32[4, 38, 17, 11, 18, 10] parameter(0)
    p1 = f32[17, 10, 16, 18, 22, 38] parameter(1)
    ROOT dot = f32[10, 38, 4, 11, 16, 22] dot(p0, p1),
      lhs_batch_dims={5,1}, rhs_batch_dims={1,5},
      lhs_contracting_dims={4,2}, rhs_contracting_dims={3,0})";
  const std::string out_domain =
      "domain: d0 in [0, 9], d1 in [0, 37], d2 in [0, 3], d3 in [0, 10], "
      "d4 in [0, 15], d5 in [0, 21], s0 in [0, 17], s1 in [0, 16]";
  auto o2i = OutToIn(dot, &ctx);
  ExpectMap(Single(o2i[0]),
            "(d0, d1, d2, d3, d4, d5)[s0, s1] -> (d2, d1, s1, d3, s0, d0), " +
                out_domain,
            &ctx);
  ExpectMap(Single(o2i[1]),
            "(d0, d1, d2, d3, d4, d5)[s0, s1] -> (s1, d0, d4, s0, d5, d1), " +
                out_domain,
            &ctx);
  ExpectMap(Single(InToOut(dot, 0, &ctx)[0]),
            "(d0, d1, d2, d3, d4, d5)[s0, s1] -> (d5, d1, d0, d3, s0, s1), "
            "domain: d0 in [0, 3], d1 in [0, 37], d2 in [0, 16], "
            "d3 in [0, 10], d4 in [0, 17], d5 in [0, 9], s0 in [0, 15], "
            "s1 in [0, 21]",
            &ctx);
  ExpectMap(Single(InToOut(dot, 1, &ctx)[0]),
            "(d0, d1, d2, d3, d4, d5)[s0, s1] -> (d1, d5, s0, s1, d2, d4), "
            "domain: d0 in [0, 16], d1 in [0, 9], d2 in [0, 15], "
            "d3 in [0, 17], d4 in [0, 21], d5 in [0, 37], s0 in [0, 3], "
            "s1 in [0, 10]",
            &ctx);
}

TEST_CASE("xla: pad with negative and interior padding", "[xla]") {
  ExprContext ctx;
  const std::string neg = R"(
    p0 = f32[7] parameter(0)
    p1 = f32[] parameter(1)
    ROOT pad = f32[5] pad(p0, p1), padding=-3_-5_1)";
  auto o2i = OutToIn(neg, &ctx);
  ExpectMap(Single(o2i[0]),
            "(d0) -> ((d0 + 3) floordiv 2), domain: d0 in [0, 4], "
            "(d0 + 3) mod 2 in [0, 0]",
            &ctx);
  ExpectMap(Single(o2i[1]), "(d0) -> (), domain: d0 in [0, 4]", &ctx);
  ExpectMap(Single(InToOut(neg, 0, &ctx)[0]),
            "(d0) -> (d0 * 2 - 3), domain: d0 in [2, 3]", &ctx);
  ExpectMap(Single(InToOut(neg, 1, &ctx)[0]),
            "()[s0] -> (s0), domain: s0 in [0, 4]", &ctx);
  const std::string interior = R"(
    p0 = f32[4, 4] parameter(0)
    p1 = f32[] parameter(1)
    ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0)";
  ExpectMap(Single(OutToIn(interior, &ctx)[0]),
            "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4), domain: d0 in [1, 7], "
            "d1 in [4, 7], (d0 - 1) mod 2 in [0, 0]",
            &ctx);
  ExpectMap(Single(InToOut(interior, 0, &ctx)[0]),
            "(d0, d1) -> (d0 * 2 + 1, d1 + 4), domain: d0 in [0, 3], "
            "d1 in [0, 3]",
            &ctx);
}

TEST_CASE("xla: reduce and variadic reduce", "[xla]") {
  ExprContext ctx;
  const std::string reduce = WithMax(R"(
    p0 = f32[150, 20, 10, 50] parameter(0)
    p0_init = f32[] constant(-inf)
    ROOT reduce = f32[150, 10] reduce(p0, p0_init), dimensions={3, 1},
      to_apply=max)");
  auto o2i = OutToIn(reduce, &ctx);
  ExpectMap(Single(o2i[0]),
            "(d0, d1)[s0, s1] -> (d0, s0, d1, s1), domain: d0 in [0, 149], "
            "d1 in [0, 9], s0 in [0, 19], s1 in [0, 49]",
            &ctx);
  ExpectMap(Single(o2i[1]),
            "(d0, d1) -> (), domain: d0 in [0, 149], d1 in [0, 9]", &ctx);
  ExpectMap(Single(InToOut(reduce, 0, &ctx)[0]),
            "(d0, d1, d2, d3) -> (d0, d2), domain: d0 in [0, 149], "
            "d1 in [0, 19], d2 in [0, 9], d3 in [0, 49]",
            &ctx);
  ExpectMap(Single(InToOut(reduce, 1, &ctx)[0]),
            "()[s0, s1] -> (s0, s1), domain: s0 in [0, 149], s1 in [0, 9]",
            &ctx);
}

TEST_CASE("xla: reduce-window with strides, dilations and padding", "[xla]") {
  ExprContext ctx;
  const std::string no_pad = WithMax(R"(
    c_inf = f32[] constant(-inf)
    p0 = f32[1024, 514] parameter(0)
    ROOT rw = f32[1024, 3] reduce-window(p0, c_inf),
      window={size=1x512 pad=0_0x0_0}, to_apply=max)");
  ExpectMap(Single(OutToIn(no_pad, &ctx)[0]),
            "(d0, d1)[s0] -> (d0, d1 + s0), domain: d0 in [0, 1023], "
            "d1 in [0, 2], s0 in [0, 511]",
            &ctx);
  ExpectMap(Single(InToOut(no_pad, 0, &ctx)[0]),
            "(d0, d1)[s0] -> (d0, d1 - s0), domain: d0 in [0, 1023], "
            "d1 in [0, 513], s0 in [0, 511], d1 - s0 in [0, 2]",
            &ctx);
  ExpectMap(Single(InToOut(no_pad, 1, &ctx)[0]),
            "()[s0, s1] -> (s0, s1), domain: s0 in [0, 1023], s1 in [0, 2]",
            &ctx);

  const std::string strided = WithMax(R"(
    c_inf = f32[] constant(-inf)
    p0 = f32[13, 17] parameter(0)
    ROOT rw = f32[7, 17] reduce-window(p0, c_inf),
      window={size=3x2 stride=2x1 pad=1_1x0_1}, to_apply=max)");
  ExpectMap(Single(OutToIn(strided, &ctx)[0]),
            "(d0, d1)[s0, s1] -> (d0 * 2 + s0 - 1, d1 + s1), domain: "
            "d0 in [0, 6], d1 in [0, 16], s0 in [0, 2], s1 in [0, 1], "
            "d0 * 2 + s0 in [1, 13], d1 + s1 in [0, 16]",
            &ctx);
  ExpectRelation(Single(InToOut(strided, 0, &ctx)[0]),
                 "(d0, d1)[s0, s1] -> (s0, d1 - s1), domain: d0 in [0, 12], "
                 "d1 in [0, 16], s0 in [0, 6], s1 in [0, 1], "
                 "d0 - s0 * 2 + 1 in [0, 2], d1 - s1 in [0, 16]",
                 &ctx);

  const std::string base_dilated = WithMax(R"(
    c_inf = f32[] constant(-inf)
    p0 = f32[2, 3] parameter(0)
    ROOT rw = f32[3, 5] reduce-window(p0, c_inf),
      window={size=1x1 pad=0_0x0_0 lhs_dilate=2x2}, to_apply=max)");
  ExpectMap(
      Single(OutToIn(base_dilated, &ctx)[0]),
      "(d0, d1) -> (d0 floordiv 2, d1 floordiv 2), domain: "
      "d0 in [0, 2], d1 in [0, 4], d0 mod 2 in [0, 0], d1 mod 2 in [0, 0]",
      &ctx);
  ExpectRelation(Single(InToOut(base_dilated, 0, &ctx)[0]),
                 "(d0, d1) -> (d0 * 2, d1 * 2), domain: d0 in [0, 1], "
                 "d1 in [0, 2]",
                 &ctx);

  const std::string window_dilated = WithMax(R"(
    c_inf = f32[] constant(-inf)
    p0 = f32[7, 3] parameter(0)
    ROOT rw = f32[4, 3] reduce-window(p0, c_inf),
      window={size=2x1 pad=0_0x0_0 rhs_dilate=3x1}, to_apply=max)");
  ExpectMap(Single(OutToIn(window_dilated, &ctx)[0]),
            "(d0, d1)[s0] -> (d0 + s0 * 3, d1), domain: d0 in [0, 3], "
            "d1 in [0, 2], s0 in [0, 1]",
            &ctx);
  ExpectRelation(Single(InToOut(window_dilated, 0, &ctx)[0]),
                 "(d0, d1)[s0] -> (d0 - s0 * 3, d1), domain: d0 in [0, 6], "
                 "d1 in [0, 2], s0 in [0, 1], d0 - s0 * 3 in [0, 3]",
                 &ctx);

  const std::string variadic = std::string("HloModule m\n") + R"(
    max2 {
      a = f32[] parameter(0)
      b = s32[] parameter(1)
      c = f32[] parameter(2)
      d = s32[] parameter(3)
      m = f32[] maximum(a, c)
      n = s32[] maximum(b, d)
      ROOT t = (f32[], s32[]) tuple(m, n)
    }
    ENTRY e {
      p0 = f32[2, 3] parameter(0)
      p1 = s32[2, 3] parameter(1)
      c_inf = f32[] constant(-inf)
      c0 = s32[] constant(0)
      ROOT rw = (f32[1, 2], s32[1, 2]) reduce-window(p0, p1, c_inf, c0),
        window={size=2x2 pad=0_0x0_0}, to_apply=max2
    })";
  for (int out = 0; out < 2; ++out) {
    auto o2i = OutToIn(variadic, &ctx, out);
    REQUIRE(o2i.size() == 4);
    for (int k = 0; k < 2; ++k) {
      ExpectMap(Single(o2i[k]),
                "(d0, d1)[s0, s1] -> (s0, d1 + s1), domain: d0 in [0, 0], "
                "d1 in [0, 1], s0 in [0, 1], s1 in [0, 1]",
                &ctx);
      ExpectMap(Single(o2i[k + 2]),
                "(d0, d1) -> (), domain: d0 in [0, 0], d1 in [0, 1]", &ctx);
    }
  }
  auto i2o = InToOut(variadic, 1, &ctx);
  REQUIRE(i2o.size() == 2);
  for (int out = 0; out < 2; ++out) {
    ExpectRelation(Single(i2o[out]),
                   "(d0, d1)[s0] -> (0, d1 - s0), domain: d0 in [0, 1], "
                   "d1 in [0, 2], s0 in [0, 1], d1 - s0 in [0, 1]",
                   &ctx);
  }
}

TEST_CASE("xla: slice, transpose, reverse, broadcast, concatenate", "[xla]") {
  ExprContext ctx;
  const std::string slice = R"(
    p0 = f32[10, 20, 50] parameter(0)
    ROOT slice = f32[5, 3, 25] slice(p0), slice={[5:10:1], [3:20:7], [0:50:2]})";
  ExpectMap(Single(OutToIn(slice, &ctx)[0]),
            "(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2), domain: "
            "d0 in [0, 4], d1 in [0, 2], d2 in [0, 24]",
            &ctx);
  ExpectMap(Single(InToOut(slice, 0, &ctx)[0]),
            "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), "
            "domain: d0 in [5, 9], d1 in [3, 17], d2 in [0, 48], "
            "(d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]",
            &ctx);
  const std::string bc = R"(
    p0 = f32[20] parameter(0)
    ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1})";
  ExpectMap(Single(InToOut(bc, 0, &ctx)[0]),
            "(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 19], "
            "s0 in [0, 9], s1 in [0, 29]",
            &ctx);
  const std::string concat = R"(
    p0 = f32[2, 5, 7] parameter(0)
    p1 = f32[2, 11, 7] parameter(1)
    p2 = f32[2, 17, 7] parameter(2)
    ROOT concat = f32[2, 33, 7] concatenate(p0, p1, p2), dimensions={1})";
  ExpectMap(Single(OutToIn(concat, &ctx)[2]),
            "(d0, d1, d2) -> (d0, d1 - 16, d2), domain: d0 in [0, 1], "
            "d1 in [16, 32], d2 in [0, 6]",
            &ctx);
  ExpectMap(Single(InToOut(concat, 1, &ctx)[0]),
            "(d0, d1, d2) -> (d0, d1 + 5, d2), domain: d0 in [0, 1], "
            "d1 in [0, 10], d2 in [0, 6]",
            &ctx);
}

TEST_CASE("xla: tuple and get-tuple-element", "[xla]") {
  ExprContext ctx;
  const std::string tuple = R"(
    p0 = f32[10, 20] parameter(0)
    p1 = f32[5] parameter(1)
    ROOT t = (f32[10, 20], f32[5]) tuple(p0, p1))";
  auto o2i = OutToIn(tuple, &ctx, 1);
  REQUIRE(o2i.size() == 2);
  CHECK(o2i[0].empty());
  ExpectMap(Single(o2i[1]), "(d0) -> (d0), domain: d0 in [0, 4]", &ctx);
  auto i2o = InToOut(tuple, 0, &ctx);
  REQUIRE(i2o.size() == 2);
  ExpectMap(Single(i2o[0]),
            "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], "
            "d1 in [0, 19]",
            &ctx);
  CHECK(i2o[1].empty());
  const std::string gte = R"(
    p0 = (f32[10, 20], f32[5]) parameter(0)
    ROOT g = f32[5] get-tuple-element(p0), index=1)";
  ExpectMap(Single(OutToIn(gte, &ctx)[0]), "(d0) -> (d0), domain: d0 in [0, 4]",
            &ctx);
}

TEST_CASE("xla: dynamic-slice with constant offsets, DUS, gather", "[xla]") {
  ExprContext ctx;
  // In-range constant offsets are folded (XLA's OptimizeRTVar).
  const std::string ds = R"(
    src = s32[2,2,258] parameter(0)
    of1 = s32[] constant(1)
    of2 = s32[] parameter(1)
    of3 = s32[] constant(32)
    ROOT ds = s32[1,2,32] dynamic-slice(src, of1, of2, of3),
      dynamic_slice_sizes={1, 2, 32})";
  auto o2i = OutToIn(ds, &ctx);
  ExpectMap(Single(o2i[0]),
            "(d0, d1, d2){rt0} -> (d0 + 1, d1 + rt0, d2 + 32), domain: "
            "d0 in [0, 0], d1 in [0, 1], d2 in [0, 31], rt0 in [0, 0]",
            &ctx);
  ExpectMap(Single(InToOut(ds, 0, &ctx)[0]),
            "(d0, d1, d2){rt0} -> (d0 - 1, d1 - rt0, d2 - 32), domain: "
            "d0 in [1, 1], d1 in [0, 1], d2 in [32, 63], rt0 in [0, 0], "
            "d1 - rt0 in [0, 1]",
            &ctx);

  const std::string dus = R"(
    src = s32[20,30] parameter(0)
    upd = s32[5,10] parameter(1)
    of1 = s32[] parameter(2)
    of2 = s32[] parameter(3)
    ROOT dus = s32[20,30] dynamic-update-slice(src, upd, of1, of2))";
  o2i = OutToIn(dus, &ctx);
  ExpectMap(Single(o2i[0]),
            "(d0, d1) -> (d0, d1), domain: d0 in [0, 19], "
            "d1 in [0, 29]",
            &ctx);
  ExpectMap(Single(o2i[1]),
            "(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1), domain: "
            "d0 in [0, 19], d1 in [0, 29], rt0 in [0, 15], rt1 in [0, 20]",
            &ctx);
  ExpectMap(Single(o2i[2]),
            "(d0, d1) -> (), domain: d0 in [0, 19], "
            "d1 in [0, 29]",
            &ctx);
  ExpectMap(Single(InToOut(dus, 1, &ctx)[0]),
            "(d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1), domain: "
            "d0 in [0, 4], d1 in [0, 9], rt0 in [0, 15], rt1 in [0, 20]",
            &ctx);

  const std::string gather = R"(
    operand = f32[33,76,70] parameter(0)
    indices = s32[1806,2] parameter(1)
    ROOT gather = f32[1806,7,8,4] gather(operand, indices),
      offset_dims={1,2,3}, collapsed_slice_dims={}, start_index_map={0,1},
      index_vector_dim=1, slice_sizes={7,8,4})";
  o2i = OutToIn(gather, &ctx);
  ExpectMap(Single(o2i[0]),
            "(d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3), domain: "
            "d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], d3 in [0, 3], "
            "rt0 in [0, 26], rt1 in [0, 68]",
            &ctx);
  ExpectMap(Single(o2i[1]),
            "(d0, d1, d2, d3)[s0] -> (d0, s0), domain: d0 in [0, 1805], "
            "d1 in [0, 6], d2 in [0, 7], d3 in [0, 3], s0 in [0, 1]",
            &ctx);
  // Input -> output: the inverse relations. The operand map keeps the
  // output row as a range variable: the indices row read depends on it.
  const IndexingMap operand = Single(InToOut(gather, 0, &ctx)[0]);
  ExpectMap(operand,
            "(d0, d1, d2)[s0]{rt0, rt1} -> (s0, d0 - rt0, d1 - rt1, d2), "
            "domain: d0 in [0, 32], d1 in [0, 75], d2 in [0, 3], "
            "s0 in [0, 1805], rt0 in [0, 26], rt1 in [0, 68], "
            "d0 - rt0 in [0, 6], d1 - rt1 in [0, 7]",
            &ctx);
  REQUIRE(operand.rt_vars()[0].producer == "indices");
  ExpectMap(*operand.rt_vars()[1].producer_map,
            "(d0, d1, d2)[s0] -> (s0, 1), domain: d0 in [0, 32], "
            "d1 in [0, 75], d2 in [0, 69], s0 in [0, 1805]",
            &ctx);
  ExpectMap(Single(InToOut(gather, 1, &ctx)[0]),
            "(d0, d1)[s0, s1, s2] -> (d0, s0, s1, s2), domain: "
            "d0 in [0, 1805], d1 in [0, 1], s0 in [0, 6], s1 in [0, 7], "
            "s2 in [0, 3]",
            &ctx);
}

TEST_CASE("xla: convolution", "[xla]") {
  ExprContext ctx;
  struct Case {
    std::string hlo, lhs, rhs, lhs_i2o, rhs_i2o;
  };
  const std::string out =
      "domain: d0 in [0, 0], d1 in [0, 9], d2 in [0, 5], "
      "d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], "
      "s2 in [0, 3]";
  const std::vector<Case> cases = {
      {R"(
        p0 = f32[1,12,10,4] parameter(0)
        p1 = f32[4,3,5,8] parameter(1)
        ROOT conv = f32[1,10,6,8] convolution(p0, p1),
          window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f)",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0, d2 + s1, s2), " + out,
       "(d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3), " + out,
       "(d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 - s0, d2 - s1, s2), domain: "
       "d0 in [0, 0], d1 in [0, 11], d2 in [0, 9], d3 in [0, 3], "
       "s0 in [0, 2], s1 in [0, 4], s2 in [0, 7], d1 - s0 in [0, 9], "
       "d2 - s1 in [0, 5]",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (s0, s1, s2, d3), domain: "
       "d0 in [0, 3], d1 in [0, 2], d2 in [0, 4], d3 in [0, 7], "
       "s0 in [0, 0], s1 in [0, 9], s2 in [0, 5]"},
      {R"(
        p0 = f32[1,12,10,4] parameter(0)
        p1 = f32[4,3,5,8] parameter(1)
        ROOT conv = f32[1,12,10,8] convolution(p0, p1),
          window={size=3x5 pad=1_1x2_2}, dim_labels=b01f_i01o->b01f)",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0 - 1, d2 + s1 - 2, s2), "
       "domain: d0 in [0, 0], d1 in [0, 11], d2 in [0, 9], d3 in [0, 7], "
       "s0 in [0, 2], s1 in [0, 4], s2 in [0, 3], d1 + s0 in [1, 12], "
       "d2 + s1 in [2, 11]",
       "", "", ""},
      {R"(
        p0 = f32[1,12,10,4] parameter(0)
        p1 = f32[4,3,5,8] parameter(1)
        ROOT conv = f32[1,10,3,8] convolution(p0, p1),
          window={size=3x5 stride=1x2}, dim_labels=b01f_i01o->b01f)",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0, d2 * 2 + s1, s2), "
       "domain: d0 in [0, 0], d1 in [0, 9], d2 in [0, 2], d3 in [0, 7], "
       "s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]",
       "", "", ""},
      {R"(
        p0 = f32[1,12,10,4] parameter(0)
        p1 = f32[4,3,5,8] parameter(1)
        ROOT conv = f32[1,21,6,8] convolution(p0, p1),
          window={size=3x5 pad=0_0x0_0 lhs_dilate=2x1},
          dim_labels=b01f_i01o->b01f)",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (d0, (d1 + s0) floordiv 2, d2 + s1, "
       "s2), domain: d0 in [0, 0], d1 in [0, 20], d2 in [0, 5], "
       "d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], s2 in [0, 3], "
       "(d1 + s0) mod 2 in [0, 0]",
       "", "", ""},
      {R"(
        p0 = f32[1,12,10,4] parameter(0)
        p1 = f32[4,3,5,8] parameter(1)
        ROOT conv = f32[1,8,6,8] convolution(p0, p1),
          window={size=3x5 pad=0_0x0_0 rhs_dilate=2x1},
          dim_labels=b01f_i01o->b01f)",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0 * 2, d2 + s1, s2), "
       "domain: d0 in [0, 0], d1 in [0, 7], d2 in [0, 5], d3 in [0, 7], "
       "s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]",
       "", "", ""},
      {R"(
        p0 = f32[1,12,10,24] parameter(0)
        p1 = f32[4,3,5,48] parameter(1)
        ROOT conv = f32[1,10,6,48] convolution(p0, p1),
          window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f,
          feature_group_count=6)",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (d0, d1 + s0, d2 + s1, "
       "(d3 floordiv 8) * 4 + s2), domain: d0 in [0, 0], d1 in [0, 9], "
       "d2 in [0, 5], d3 in [0, 47], s0 in [0, 2], s1 in [0, 4], "
       "s2 in [0, 3]",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3), domain: "
       "d0 in [0, 0], d1 in [0, 9], d2 in [0, 5], d3 in [0, 47], "
       "s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]",
       "", ""},
      // A deliberate difference (docs/xla-reference.md): ixa picks the
      // batch group from the output feature, XLA reads every group
      // through a symbol.
      {R"(
        p0 = f32[14,12,10,4] parameter(0)
        p1 = f32[4,3,5,21] parameter(1)
        ROOT conv = f32[2,10,6,21] convolution(p0, p1),
          window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f,
          batch_group_count=7)",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (d0 + (d3 floordiv 3) * 2, d1 + s0, "
       "d2 + s1, s2), domain: d0 in [0, 1], d1 in [0, 9], d2 in [0, 5], "
       "d3 in [0, 20], s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]",
       "(d0, d1, d2, d3)[s0, s1, s2] -> (s2, s0, s1, d3), domain: "
       "d0 in [0, 1], d1 in [0, 9], d2 in [0, 5], d3 in [0, 20], "
       "s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]",
       "", ""},
  };
  for (const Case& c : cases) {
    INFO(c.hlo);
    auto o2i = OutToIn(c.hlo, &ctx);
    REQUIRE(o2i.size() == 2);
    ExpectMap(Single(o2i[0]), c.lhs, &ctx);
    if (!c.rhs.empty()) ExpectMap(Single(o2i[1]), c.rhs, &ctx);
    if (!c.lhs_i2o.empty()) {
      ExpectRelation(Single(InToOut(c.hlo, 0, &ctx)[0]), c.lhs_i2o, &ctx);
    }
    if (!c.rhs_i2o.empty()) {
      ExpectRelation(Single(InToOut(c.hlo, 1, &ctx)[0]), c.rhs_i2o, &ctx);
    }
  }
}

TEST_CASE("xla: all-gather and collectives", "[xla]") {
  ExprContext ctx;
  const std::string ag = R"(
    p0 = f32[2, 4] parameter(0)
    ROOT ag = f32[8, 4] all-gather(p0), dimensions={0},
      replica_groups={{0,1,2,3}})";
  // XLA's form: the gathered dim modulo the operand's size.
  ExpectMap(Single(OutToIn(ag, &ctx)[0]),
            "(d0, d1) -> (d0 mod 2, d1), domain: d0 in [0, 7], d1 in [0, 3]",
            &ctx);
  ExpectMap(Single(InToOut(ag, 0, &ctx)[0]),
            "(d0, d1)[s0] -> (d0 + s0 * 2, d1), domain: d0 in [0, 1], "
            "d1 in [0, 3], s0 in [0, 3]",
            &ctx);
}

TEST_CASE("xla: fusion with a nested fusion computation", "[xla]") {
  ExprContext ctx;
  const std::string hlo = R"(
    HloModule m
    inner {
      q0 = f32[10, 20] parameter(0)
      ROOT t = f32[20, 10] transpose(q0), dimensions={1, 0}
    }
    outer {
      p0 = f32[10, 20] parameter(0)
      f = f32[20, 10] fusion(p0), kind=kLoop, calls=inner
      e = f32[20, 10] exponential(f)
      ROOT r = f32[10, 20] transpose(e), dimensions={1, 0}
    }
    ENTRY e {
      a = f32[10, 20] parameter(0)
      ROOT fu = f32[10, 20] fusion(a), kind=kLoop, calls=outer
    })";
  const char* id = "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]";
  ExpectMap(Single(OutToIn(hlo, &ctx)[0]), id, &ctx);
  ExpectMap(Single(InToOut(hlo, 0, &ctx)[0]), id, &ctx);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
