// The fusion, physical-layout and runtime-variable cases of XLA's
// indexing_analysis_test.cc and indexing_map_test.cc (ReplaceConstantRTVars_*)
// that xla_cases_test.cc and spec_examples_test.cc do not already hold, with
// the maps XLA expects. Each parameter's set of maps must match XLA's one
// to one, each pair equal as maps (the exact decision procedure), and no
// ixa map may hold more div/mod nodes or constraints than its XLA twin.
#include "simplifier/decide.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

int DivModNodes(const IndexingMap& m) {
  int n = 0;
  for (Expr r : m.results()) n += CountDivMod(r);
  for (const Constraint& c : m.constraints()) n += CountDivMod(c.expr);
  return n;
}

bool Same(const IndexingMap& got, const IndexingMap& want) {
  if (want.IsKnownEmpty() || got.IsKnownEmpty()) {
    auto a = IsEmpty(got), b = IsEmpty(want);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    return *a && *b;
  }
  if (got.num_dims() != want.num_dims() ||
      got.num_range_vars() != want.num_range_vars() ||
      got.num_rt_vars() != want.num_rt_vars() ||
      got.num_results() != want.num_results()) {
    return false;
  }
  auto eq = Equivalent(got, want);
  if (!eq.ok()) eq = EquivalentByEnumeration(got, want, 1 << 22);
  REQUIRE(eq.ok());
  return eq->equivalent;
}

// Every expected map has one equal map in `got` and vice versa.
void ExpectMaps(const IndexingMapSet& got,
                const std::vector<std::string>& expected, ExprContext* ctx) {
  std::string all;
  for (const IndexingMap& m : got) all += "\n  " + PrintIndexingMap(m);
  INFO("got:" << all);
  REQUIRE(got.size() == expected.size());
  std::vector<bool> used(got.size(), false);
  for (const std::string& text : expected) {
    INFO("expected " << text);
    auto want = ParseIndexingMap(text, ctx);
    REQUIRE(want.ok());
    bool found = false;
    for (size_t i = 0; i < got.size() && !found; ++i) {
      if (used[i] || !Same(got.maps()[i], *want)) continue;
      used[i] = found = true;
      CHECK(DivModNodes(got.maps()[i]) <= DivModNodes(*want));
      CHECK(got.maps()[i].constraints().size() <= want->constraints().size());
    }
    CHECK(found);
  }
}

const IndexingMap& Single(const IndexingMapSet& set) {
  REQUIRE(set.size() == 1);
  return set.maps()[0];
}

std::vector<IndexingMapSet> FusionMaps(const std::string& hlo,
                                       ExprContext* ctx) {
  auto module = ParseOrDie(hlo);
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto maps = ComputeFusionParameterIndexing(*region, 0, ctx);
  INFO((maps.ok() ? "" : maps.error().ToString()));
  REQUIRE(maps.ok());
  return *maps;
}

std::string Fusion(const std::string& computations, const std::string& body,
                   const std::string& entry) {
  return "HloModule m\n" + computations + "f {\n" + body + "\n}\nENTRY e {\n" +
         entry + "\n}";
}

TEST_CASE("XLA indexing_analysis_test: fusions", "[xla][fusion]") {
  ExprContext ctx;
  SECTION("FusionOpWithDot") {
    auto maps = FusionMaps(Fusion("", R"(
      p0 = s8[3,12288,6,128]{3,2,1,0} parameter(0)
      bitcast1 = s8[3,6,128,12288]{2,1,3,0} bitcast(p0)
      copy1 = s8[3,6,128,12288]{3,2,1,0} copy(bitcast1)
      bitcast2 = s8[2304,12288]{1,0} bitcast(copy1)
      convert1 = bf16[2304,12288]{1,0} convert(bitcast2)
      bitcast3 = bf16[2304,16,768]{2,1,0} bitcast(convert1)
      p3 = bf16[16,12288]{1,0} parameter(3)
      convert2 = f32[16,12288]{1,0} convert(p3)
      p4 = bf16[16,12288]{1,0} parameter(4)
      convert3 = f32[16,12288]{1,0} convert(p4)
      add1 = f32[16,12288]{1,0} add(convert2, convert3)
      p2 = bf16[16]{0} parameter(2)
      convert15 = f32[16]{0} convert(p2)
      rsqrt = f32[16]{0} rsqrt(convert15)
      convert4 = bf16[16]{0} convert(rsqrt)
      bcast1 = bf16[16,12288]{1,0} broadcast(convert4), dimensions={0}
      convert5 = f32[16,12288]{1,0} convert(bcast1)
      multiply1 = f32[16,12288]{1,0} multiply(add1, convert5)
      p1 = bf16[12288]{0} parameter(1)
      convert6 = f32[12288]{0} convert(p1)
      c1 = bf16[] constant(1)
      bcast2 = bf16[12288]{0} broadcast(c1), dimensions={}
      convert7 = f32[12288]{0} convert(bcast2)
      add2 = f32[12288]{0} add(convert6, convert7)
      convert8 = bf16[12288]{0} convert(add2)
      bcast3 = bf16[16,12288]{1,0} broadcast(convert8), dimensions={1}
      convert9 = f32[16,12288]{1,0} convert(bcast3)
      multiply2 = f32[16,12288]{1,0} multiply(multiply1, convert9)
      convert10 = bf16[16,12288]{1,0} convert(multiply2)
      bcast4 = bf16[16,16,768]{2,1,0} bitcast(convert10)
      dot = bf16[16,2304,16]{2,1,0} dot(bitcast3, bcast4),
        lhs_batch_dims={1}, lhs_contracting_dims={2},
        rhs_batch_dims={1}, rhs_contracting_dims={2}
      ROOT bitcast4 = bf16[16,2304,16]{2,1,0} bitcast(dot))",
                                  R"(
      p0 = s8[3,12288,6,128]{3,2,1,0} parameter(0)
      p1 = bf16[12288]{0} parameter(1)
      p2 = bf16[16]{0} parameter(2)
      p3 = bf16[16,12288]{1,0} parameter(3)
      p4 = bf16[16,12288]{1,0} parameter(4)
      ROOT fusion = bf16[16,2304,16]{2,1,0} fusion(p0, p1, p2, p3, p4),
        kind=kLoop, calls=f)"),
                           &ctx);
    const std::string d =
        "domain: d0 in [0, 15], d1 in [0, 2303], d2 in [0, 15], "
        "s0 in [0, 767]";
    REQUIRE(maps.size() == 5);
    ExpectMaps(maps[0],
               {"(d0, d1, d2)[s0] -> (d1 floordiv 768, d0 * 768 + s0, (d1 "
                "mod 768) floordiv 128, d1 mod 128), " +
                d},
               &ctx);
    ExpectMaps(maps[1], {"(d0, d1, d2)[s0] -> (d0 * 768 + s0), " + d}, &ctx);
    ExpectMaps(maps[2],
               {"(d0, d1, d2) -> (d2), domain: d0 in [0, 15], "
                "d1 in [0, 2303], d2 in [0, 15]"},
               &ctx);
    ExpectMaps(maps[3], {"(d0, d1, d2)[s0] -> (d2, d0 * 768 + s0), " + d},
               &ctx);
    ExpectMaps(maps[4], {"(d0, d1, d2)[s0] -> (d2, d0 * 768 + s0), " + d},
               &ctx);
  }
  SECTION("FusionOpWithSoftmax") {
    const char* add = R"(
      add_computation {
        p0 = f32[] parameter(0)
        p1 = f32[] parameter(1)
        ROOT add = f32[] add(p0, p1)
      }
      max_computation {
        p0 = f32[] parameter(0)
        p1 = f32[] parameter(1)
        ROOT max = f32[] maximum(p0, p1)
      })";
    auto maps = FusionMaps(Fusion(add, R"(
      p0 = f32[2,65,125]{2,1,0} parameter(0)
      bitcast0 = f32[65,2,125]{2,1,0} bitcast(p0)
      constant_neg_inf_1 = f32[] constant(-inf)
      reduce0 = f32[2,65]{1,0} reduce(p0, constant_neg_inf_1), dimensions={2}, to_apply=max_computation
      bitcast1 = f32[130]{0} bitcast(reduce0)
      bcast1 = f32[130,125]{1,0} broadcast(bitcast1), dimensions={0}
      bitcast2 = f32[65,2,125]{2,1,0} bitcast(bcast1)
      subtract0 = f32[65,2,125]{2,1,0} subtract(bitcast0, bitcast2)
      exponential0 = f32[65,2,125]{2,1,0} exponential(subtract0)
      bitcast3 = f32[65,2,125]{2,1,0} bitcast(p0)
      reduce1 = f32[2,65]{1,0} reduce(p0, constant_neg_inf_1), dimensions={2}, to_apply=max_computation
      bitcast4 = f32[130]{0} bitcast(reduce1)
      bcast2 = f32[130,125]{1,0} broadcast(bitcast4), dimensions={0}
      bitcast5 = f32[65,2,125]{2,1,0} bitcast(bcast2)
      subtract1 = f32[65,2,125]{2,1,0} subtract(bitcast3, bitcast5)
      exponential1 = f32[65,2,125]{2,1,0} exponential(subtract1)
      constant_zero_1 = f32[] constant(0)
      reduce2 = f32[65,2]{1,0} reduce(exponential1, constant_zero_1), dimensions={2}, to_apply=add_computation
      bitcast6 = f32[130]{0} bitcast(reduce2)
      bcast3 = f32[130,125]{1,0} broadcast(bitcast6), dimensions={0}
      bitcast7 = f32[65,2,125]{2,1,0} bitcast(bcast3)
      divide = f32[65,2,125]{2,1,0} divide(exponential0, bitcast7)
      ROOT bitcast8 = f32[2,65,125]{2,1,0} bitcast(divide))",
                                  R"(
      p0 = f32[2,65,125]{2,1,0} parameter(0)
      ROOT fusion = f32[2,65,125]{2,1,0} fusion(p0), kind=kLoop, calls=f)"),
                           &ctx);
    ExpectMaps(maps[0],
               {"(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], "
                "d1 in [0, 64], d2 in [0, 124], s0 in [0, 124]",
                "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], "
                "d1 in [0, 64], d2 in [0, 124]"},
               &ctx);
  }
  SECTION("FusionExponentialDuplication") {
    auto maps = FusionMaps(Fusion("", R"(
      p0 = f32[4] parameter(0)
      p1 = f32[4] parameter(1)
      add0 = f32[4] add(p0, p1)
      slice1.0 = f32[3] slice(add0), slice={[0:3]}
      slice1.1 = f32[3] slice(add0), slice={[1:4]}
      add1 = f32[3]{0} add(slice1.0, slice1.1)
      slice2.0 = f32[2] slice(add1), slice={[0:2]}
      slice2.1 = f32[2] slice(add1), slice={[1:3]}
      ROOT add2 = f32[2] add(slice2.0, slice2.1))",
                                  R"(
      p0 = f32[4] parameter(0)
      p1 = f32[4] parameter(1)
      ROOT fusion = f32[2] fusion(p0, p1), kind=kLoop, calls=f)"),
                           &ctx);
    const std::vector<std::string> want = {
        "(d0) -> (d0 + 1), domain: d0 in [0, 1]",
        "(d0) -> (d0), domain: d0 in [0, 1]",
        "(d0) -> (d0 + 2), domain: d0 in [0, 1]"};
    ExpectMaps(maps[0], want, &ctx);
    ExpectMaps(maps[1], want, &ctx);
  }
  SECTION("FusionOpWithReduceOfReduce") {
    auto maps = FusionMaps(Fusion(kMax, R"(
      p0 = f32[150, 20, 10, 50] parameter(0)
      p0_init = f32[] parameter(1)
      reduce_1 = f32[20, 10] reduce(p0, p0_init), dimensions={0, 3}, to_apply=max
      ROOT reduce_2 = f32[10] reduce(reduce_1, p0_init), dimensions={0}, to_apply=max)",
                                  R"(
      p0 = f32[150, 20, 10, 50] parameter(0)
      p0_init = f32[] constant(-inf)
      ROOT fusion = f32[10] fusion(p0, p0_init), kind=kLoop, calls=f)"),
                           &ctx);
    ExpectMaps(maps[0],
               {"(d0)[s0, s1, s2] -> (s0, s2, d0, s1), domain: d0 in [0, 9], "
                "s0 in [0, 149], s1 in [0, 49], s2 in [0, 19]"},
               &ctx);
    ExpectMaps(maps[1], {"(d0) -> (), domain: d0 in [0, 9]"}, &ctx);
  }
  SECTION("FusionOpWithReduceOfBroadcast") {
    auto maps = FusionMaps(Fusion(kMax, R"(
      p0 = f32[15, 20] parameter(0)
      p0_init = f32[] parameter(1)
      p0_bcast = f32[15, 32, 20, 64] broadcast(p0), dimensions={0, 2}
      ROOT reduce_2 = f32[15, 64] reduce(p0_bcast, p0_init), dimensions={1, 2}, to_apply=max)",
                                  R"(
      p0 = f32[15, 20] parameter(0)
      p0_init = f32[] constant(-inf)
      ROOT fusion = f32[15, 64] fusion(p0, p0_init), kind=kLoop, calls=f)"),
                           &ctx);
    ExpectMaps(maps[0],
               {"(d0, d1)[s0] -> (d0, s0), domain: d0 in [0, 14], "
                "d1 in [0, 63], s0 in [0, 19]"},
               &ctx);
    ExpectMaps(maps[1],
               {"(d0, d1) -> (), domain: d0 in [0, 14], d1 in [0, 63]"}, &ctx);
  }
  SECTION("FusionOpWithReducedSlice") {
    auto maps = FusionMaps(Fusion(kMax, R"(
      p0 = f32[150, 64, 1024] parameter(0)
      p0_init = f32[] parameter(1)
      p0_slice = f32[16, 32, 128] slice(f32[150, 64, 1024] p0), slice={[5:21:1], [0:64:2], [50:434:3]}
      ROOT reduce = f32[32] reduce(p0_slice, p0_init), dimensions={0, 2}, to_apply=max)",
                                  R"(
      p0 = f32[150, 64, 1024] parameter(0)
      p0_init = f32[] constant(-inf)
      ROOT fusion = f32[32] fusion(p0, p0_init), kind=kLoop, calls=f)"),
                           &ctx);
    ExpectMaps(maps[0],
               {"(d0)[s0, s1] -> (s0 + 5, d0 * 2, s1 * 3 + 50), domain: "
                "d0 in [0, 31], s0 in [0, 15], s1 in [0, 127]"},
               &ctx);
  }
  SECTION("FusionOpWithReshape_CollapseOfExpand and ExpandOfCollapse") {
    auto maps = FusionMaps(Fusion("", R"(
      p0 = f32[128] parameter(0)
      expand = f32[8, 16] reshape(p0)
      ROOT collapse = f32[128] reshape(expand))",
                                  R"(
      p0 = f32[128] parameter(0)
      ROOT fusion = f32[128] fusion(p0), kind=kLoop, calls=f)"),
                           &ctx);
    ExpectMaps(maps[0], {"(d0) -> (d0), domain: d0 in [0, 127]"}, &ctx);
    maps = FusionMaps(Fusion("", R"(
      p0 = f32[8, 16] parameter(0)
      collapse = f32[128] reshape(p0)
      ROOT expand = f32[8, 16] reshape(collapse))",
                             R"(
      p0 = f32[8, 16] parameter(0)
      ROOT fusion = f32[8, 16] fusion(p0), kind=kLoop, calls=f)"),
                      &ctx);
    ExpectMaps(maps[0],
               {"(d0, d1) -> (d0, d1), domain: d0 in [0, 7], "
                "d1 in [0, 15]"},
               &ctx);
  }
  SECTION("FusionOpWithSliceOfSlice") {
    auto maps = FusionMaps(Fusion("", R"(
      p0 = f32[150, 64, 1024] parameter(0)
      p0_slice_1 = f32[16, 32, 128] slice(f32[150, 64, 1024] p0), slice={[5:21:1], [0:64:2], [50:434:3]}
      ROOT p0_slice_2 = f32[7, 9, 24] slice(f32[16, 32, 128] p0_slice_1), slice={[3:16:2], [4:30:3], [5:100:4]})",
                                  R"(
      p0 = f32[150, 64, 1024] parameter(0)
      ROOT fusion = f32[7, 9, 24] fusion(p0), kind=kLoop, calls=f)"),
                           &ctx);
    ExpectMaps(maps[0],
               {"(d0, d1, d2) -> (d0 * 2 + 8, d1 * 6 + 8, d2 * 12 + 65), "
                "domain: d0 in [0, 6], d1 in [0, 8], d2 in [0, 23]"},
               &ctx);
  }
  SECTION("FusionOpWithDynSliceOfDynSlice") {
    auto maps = FusionMaps(Fusion("", R"(
      src = s32[150, 64] parameter(0)
      of11 = s32[] parameter(1)
      of12 = s32[] parameter(2)
      of21 = s32[] parameter(3)
      of22 = s32[] parameter(4)
      ds1 = s32[50, 32] dynamic-slice(s32[150, 64] src, s32[] of11, s32[] of12), dynamic_slice_sizes={50, 32}
      ROOT ds2 = s32[25, 16] dynamic-slice(s32[50, 32] ds1, s32[] of21, s32[] of22), dynamic_slice_sizes={25, 16})",
                                  R"(
      src = s32[150, 64] parameter(0)
      of11 = s32[] parameter(1)
      of12 = s32[] parameter(2)
      of21 = s32[] parameter(3)
      of22 = s32[] parameter(4)
      ROOT fusion = s32[25, 16] fusion(src, of11, of12, of21, of22), kind=kLoop, calls=f)"),
                           &ctx);
    // ds2's offsets first, then ds1's (ixa's composition order); XLA's
    // test lists the same four runtime variables.
    ExpectMaps(maps[0],
               {"(d0, d1){rt0, rt1, rt2, rt3} -> (d0 + rt0 + rt2, d1 + rt1 + "
                "rt3), domain: d0 in [0, 24], d1 in [0, 15], rt0 in [0, 100], "
                "rt1 in [0, 32], rt2 in [0, 25], rt3 in [0, 16]"},
               &ctx);
    for (int k = 1; k <= 4; ++k) {
      ExpectMaps(maps[k],
                 {"(d0, d1) -> (), domain: d0 in [0, 24], "
                  "d1 in [0, 15]"},
                 &ctx);
    }
  }
  SECTION("FusionOpSliceOf(All|One)ConcatenateOpInputs") {
    const std::string concat = R"(
      p0 = f32[2, 5, 7] parameter(0)
      p1 = f32[2, 11, 7] parameter(1)
      p2 = f32[2, 17, 7] parameter(2)
      concat = f32[2, 33, 7] concatenate(f32[2, 5, 7] p0, f32[2, 11, 7] p1, f32[2, 17, 7] p2), dimensions={1}
)";
    auto entry = [](const std::string& shape) {
      return "p0 = f32[2, 5, 7] parameter(0)\np1 = f32[2, 11, 7] "
             "parameter(1)\np2 = f32[2, 17, 7] parameter(2)\nROOT fusion = "
             "f32" +
             shape + " fusion(p0, p1, p2), kind=kLoop, calls=f";
    };
    auto maps = FusionMaps(
        Fusion("",
               concat +
                   "ROOT slice = f32[2, 11, 7] slice(f32[2, 33, 7] concat), "
                   "slice={[0:2:1], [0:33:3], [0:7:1]}",
               entry("[2, 11, 7]")),
        &ctx);
    ExpectMaps(maps[0],
               {"(d0, d1, d2) -> (d0, d1 * 3, d2), domain: d0 in [0, 1], "
                "d1 in [0, 1], d2 in [0, 6]"},
               &ctx);
    ExpectMaps(maps[1],
               {"(d0, d1, d2) -> (d0, d1 * 3 - 5, d2), domain: d0 in [0, 1], "
                "d1 in [2, 5], d2 in [0, 6]"},
               &ctx);
    ExpectMaps(maps[2],
               {"(d0, d1, d2) -> (d0, d1 * 3 - 16, d2), domain: d0 in [0, 1], "
                "d1 in [6, 10], d2 in [0, 6]"},
               &ctx);
    maps = FusionMaps(
        Fusion("",
               concat +
                   "ROOT slice = f32[2, 3, 7] slice(f32[2, 33, 7] concat), "
                   "slice={[0:2:1], [0:5:2], [0:7:1]}",
               entry("[2, 3, 7]")),
        &ctx);
    ExpectMaps(maps[0],
               {"(d0, d1, d2) -> (d0, d1 * 2, d2), domain: d0 in [0, 1], "
                "d1 in [0, 2], d2 in [0, 6]"},
               &ctx);
    ExpectMaps(maps[1], {"KNOWN EMPTY"}, &ctx);
    ExpectMaps(maps[2], {"KNOWN EMPTY"}, &ctx);
  }
  SECTION("FusionOpReshapeOfConcat") {
    auto maps = FusionMaps(Fusion("", R"(
      p0 = f32[2] parameter(0)
      p1 = f32[30] parameter(1)
      concat = f32[32] concatenate(f32[2] p0, f32[30] p1), dimensions={0}
      ROOT reshape = f32[4, 8] reshape(concat))",
                                  R"(
      p0 = f32[2] parameter(0)
      p1 = f32[30] parameter(1)
      ROOT fusion = f32[4, 8] fusion(p0, p1), kind=kLoop, calls=f)"),
                           &ctx);
    ExpectMaps(maps[0],
               {"(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], "
                "d1 in [0, 7], d0 * 8 + d1 in [0, 1]"},
               &ctx);
    ExpectMaps(maps[1],
               {"(d0, d1) -> (d0 * 8 + d1 - 2), domain: d0 in [0, 3], "
                "d1 in [0, 7], d0 * 8 + d1 in [2, 31]"},
               &ctx);
  }
  SECTION("ReverseReshape") {
    auto maps = FusionMaps(Fusion("", R"(
      p0 = f32[10, 11] parameter(0)
      reverse0 = f32[10, 11] reverse(p0), dimensions={0, 1}
      reshape = f32[110] reshape(reverse0)
      reverse1 = f32[110] reverse(reshape), dimensions={0}
      ROOT reshape2 = f32[10, 11] reshape(reverse1))",
                                  R"(
      p0 = f32[10, 11] parameter(0)
      ROOT fusion = f32[10, 11] fusion(p0), kind=kLoop, calls=f)"),
                           &ctx);
    ExpectMaps(maps[0],
               {"(d0, d1) -> (d0, d1), domain: d0 in [0, 9], "
                "d1 in [0, 10]"},
               &ctx);
  }
  SECTION("ComputeGroupedOutputToInputIndexing_VariadicReduce") {
    auto maps = FusionMaps(R"(
      HloModule m
      add {
        param_0 = f32[] parameter(0)
        param_1 = s32[] parameter(1)
        param_2 = f32[] parameter(2)
        param_3 = s32[] parameter(3)
        add.0 = f32[] add(param_0, param_2)
        add.1 = s32[] add(param_1, param_3)
        ROOT t = (f32[], s32[]) tuple(add.0, add.1)
      }
      ENTRY entry_computation {
        param_0.3 = f32[32,40]{1,0} parameter(0)
        param_1.3 = s32[32,40]{1,0} parameter(1)
        param_2.2 = f32[] parameter(2)
        constant = s32[] constant(0)
        ROOT reduce = (f32[32]{0}, s32[32]{0}) reduce(param_0.3, param_1.3, param_2.2, constant), dimensions={1}, to_apply=add
      })",
                           &ctx);
    REQUIRE(maps.size() == 3);
    for (int k = 0; k < 2; ++k) {
      ExpectMaps(maps[k],
                 {"(d0)[s0] -> (d0, s0), domain: d0 in [0, 31], "
                  "s0 in [0, 39]"},
                 &ctx);
    }
    ExpectMaps(maps[2], {"(d0) -> (), domain: d0 in [0, 31]"}, &ctx);
  }
}

TEST_CASE("XLA indexing_analysis_test: epilogue indexing", "[xla][fusion]") {
  ExprContext ctx;
  auto module = ParseOrDie(R"(
    HloModule m
    fused_computation {
      p0 = f32[1000, 1000] parameter(0)
      t = f32[1000, 1000]{0, 1} transpose(p0), dimensions={1, 0}
      a0 = f32[1000000] bitcast(t)
      ROOT log = f32[1000000] log(a0)
    }
    ENTRY e {
      p0 = f32[1000, 1000] parameter(0)
      ROOT fusion = f32[1000000] fusion(p0), kind=kLoop,
        calls=fused_computation
    })");
  const hlo::Computation* fused = module->FindComputation("fused_computation");
  REQUIRE(fused != nullptr);
  // From the hero t (the region's input) to the root.
  auto region = RegionOfInstructions(*fused, {"a0", "log"});
  REQUIRE(region.ok());
  auto maps = ComputeFusionInputToOutputIndexing(*region, 0, &ctx);
  REQUIRE(maps.ok());
  ExpectMaps((*maps)[0],
             {"(d0, d1) -> (d0 + d1 * 1000), domain: d0 in [0, 999], "
              "d1 in [0, 999]"},
             &ctx);
}

TEST_CASE("XLA indexing_analysis_test: physical layouts", "[xla][layout]") {
  ExprContext ctx;
  struct Case {
    const char* name;
    const char* hlo;
    const char* o2i;
    const char* i2o;
  };
  const Case cases[] = {
      {"PhysicalLayoutTestOutputPermutation",
       R"(p0 = f32[10, 20, 30] parameter(0)
          ROOT add0 = f32[10, 20, 30]{1, 0, 2} exponential(p0))",
       "(d0, d1, d2) -> (d1, d2, d0), domain: d0 in [0, 29], d1 in [0, 9], "
       "d2 in [0, 19]",
       "(d0, d1, d2) -> (d2, d0, d1), domain: d0 in [0, 9], d1 in [0, 19], "
       "d2 in [0, 29]"},
      {"PhysicalLayoutTestInputPermutation",
       R"(p0 = f32[10, 20, 30]{1, 0, 2} parameter(0)
          ROOT add0 = f32[10, 20, 30] exponential(p0))",
       "(d0, d1, d2) -> (d2, d0, d1), domain: d0 in [0, 9], d1 in [0, 19], "
       "d2 in [0, 29]",
       "(d0, d1, d2) -> (d1, d2, d0), domain: d0 in [0, 29], d1 in [0, 9], "
       "d2 in [0, 19]"},
      {"PhysicalLayoutTestInputAndOutputPermutation",
       R"(p0 = f32[10, 20, 30]{1, 0, 2} parameter(0)
          ROOT add0 = f32[10, 20, 30]{1, 0, 2} exponential(p0))",
       "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 29], d1 in [0, 9], "
       "d2 in [0, 19]",
       "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 29], d1 in [0, 9], "
       "d2 in [0, 19]"},
      {"CopyNothing",
       R"(p0 = f32[0, 0]{0,1} parameter(0)
          ROOT copy0 = f32[0, 0]{1,0} copy(p0))",
       "KNOWN EMPTY", "KNOWN EMPTY"},
      {"ReshapeNothing",
       R"(p0 = f32[1,0,0] parameter(0)
          ROOT reshape = f32[0] reshape(p0))",
       "KNOWN EMPTY", "KNOWN EMPTY"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    auto module =
        ParseOrDie(std::string("HloModule m\nENTRY e {\n") + c.hlo + "\n}");
    const hlo::Instruction& root = *module->entry()->root();
    const hlo::Shape& in = root.operand(0)->shape;
    auto o2i = ComputeOutputToInputIndexing(root, 0, &ctx);
    REQUIRE(o2i.ok());
    auto phys =
        ToPhysicalIndexing(Single(o2i->indexing_maps[0]), root.shape, in);
    REQUIRE(phys.ok());
    IndexingMapSet set;
    set.Insert(*phys);
    ExpectMaps(set, {c.o2i}, &ctx);
    auto i2o = ComputeInputToOutputIndexing(root, 0, &ctx);
    REQUIRE(i2o.ok());
    const IndexingMap& back = Single(i2o->indexing_maps[0]);
    auto phys_back = ToPhysicalIndexing(back, in, root.shape);
    REQUIRE(phys_back.ok());
    set = IndexingMapSet();
    set.Insert(*phys_back);
    ExpectMaps(set, {c.i2o}, &ctx);
    // ReshapeNothing: "even though the indexing is known empty, the rank
    // of the map should still be 1".
    CHECK(back.num_results() == root.shape.rank());
  }
}

// XLA's ReplaceConstantRTVars_* (indexing_map_test.cc): runtime values read
// from constants, iotas, element-moving ops and their sums and products are
// folded into the map. Here as gather indices inside a fusion.
TEST_CASE("XLA indexing_map_test: ReplaceConstantRTVars", "[xla][rt]") {
  ExprContext ctx;
  struct Case {
    const char* name;
    const char* indices;  // computes `indices = s32[12, 1]`
    const char* operand_map;
  };
  const std::string d = "domain: d0 in [0, 11], d1 in [0, 0], d2 in [0, 3]";
  const Case cases[] = {
      {"Iota", "indices = s32[12, 1] iota(), iota_dimension=0",
       "(d0, d1, d2) -> (d0 + d1, d2)"},
      {"IotaAsConstant",
       "io = s32[12, 8] iota(), iota_dimension=1\n"
       "indices = s32[12, 1] slice(io), slice={[0:12], [7:8]}",
       "(d0, d1, d2) -> (d1 + 7, d2)"},
      {"Broadcast",
       "io = s32[12] iota(), iota_dimension=0\n"
       "bc = s32[32, 12] broadcast(io), dimensions={1}\n"
       "indices = s32[12, 1] slice(bc), slice={[0:12], [11:12]}",
       "(d0, d1, d2) -> (d1 + 11, d2)"},
      // iota -> reverse -> reshape [3, 4] -> broadcast, read at (., 2, 3):
      // 11 - (2 * 4 + 3) = 0.
      {"ChainedNoncomputeOps",
       "io = s32[12] iota(), iota_dimension=0\n"
       "rv = s32[12] reverse(io), dimensions={0}\n"
       "rs = s32[3, 4] reshape(rv)\n"
       "bc = s32[12, 3, 4] broadcast(rs), dimensions={1, 2}\n"
       "sl = s32[12, 1, 1] slice(bc), slice={[0:12], [2:3], [3:4]}\n"
       "indices = s32[12, 1] reshape(sl)",
       "(d0, d1, d2) -> (d1, d2)"},
      {"StaticIndexIntoTensorConstant",
       "k = s32[2, 4] constant({{1, 2, 3, 4}, {11, 12, 13, 14}})\n"
       "sl = s32[1, 1] slice(k), slice={[1:2], [2:3]}\n"
       "sc = s32[] reshape(sl)\n"
       "indices = s32[12, 1] broadcast(sc), dimensions={}",
       "(d0, d1, d2) -> (d1 + 13, d2)"},
      {"Add",
       "c = s32[] constant(42)\n"
       "bc = s32[12, 1] broadcast(c), dimensions={}\n"
       "io = s32[12, 1] iota(), iota_dimension=0\n"
       "indices = s32[12, 1] add(bc, io)",
       "(d0, d1, d2) -> (d0 + d1 + 42, d2)"},
      {"Subtract",
       "c = s32[] constant(20)\n"
       "bc = s32[12, 1] broadcast(c), dimensions={}\n"
       "io = s32[12, 1] iota(), iota_dimension=0\n"
       "indices = s32[12, 1] subtract(bc, io)",
       "(d0, d1, d2) -> (d1 - d0 + 20, d2)"},
      {"Multiply (by a constant)",
       "c = s32[] constant(3)\n"
       "bc = s32[12, 1] broadcast(c), dimensions={}\n"
       "io = s32[12, 1] iota(), iota_dimension=0\n"
       "indices = s32[12, 1] multiply(io, bc)",
       "(d0, d1, d2) -> (d0 * 3 + d1, d2)"},
      // Out of the feasible range [0, 99]: a runtime variable stays (the
      // gather clamps its start indices).
      {"PartiallyOptimizable (out of range)",
       "c = s32[] constant(95)\n"
       "bc = s32[12, 1] broadcast(c), dimensions={}\n"
       "io = s32[12, 1] iota(), iota_dimension=0\n"
       "indices = s32[12, 1] add(bc, io)",
       "(d0, d1, d2){rt0} -> (d1 + rt0, d2), domain: d0 in [0, 11], "
       "d1 in [0, 0], d2 in [0, 3], rt0 in [0, 99]"},
      // s8 arithmetic would wrap (100 + 50 > 127): not folded.
      {"No folding where the type wraps",
       "c = s8[] constant(100)\n"
       "bc = s8[12, 1] broadcast(c), dimensions={}\n"
       "io = s8[12, 1] iota(), iota_dimension=0\n"
       "five = s8[] constant(5)\n"
       "bf = s8[12, 1] broadcast(five), dimensions={}\n"
       "m = s8[12, 1] multiply(io, bf)\n"
       "x = s8[12, 1] add(bc, m)\n"
       "indices = s32[12, 1] convert(x)",
       "(d0, d1, d2){rt0} -> (d1 + rt0, d2), domain: d0 in [0, 11], "
       "d1 in [0, 0], d2 in [0, 3], rt0 in [0, 99]"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string hlo = std::string("HloModule m\nf {\n") +
                            "operand = f32[100, 4] parameter(0)\n" + c.indices +
                            "\nROOT g = f32[12, 1, 4] gather(operand, "
                            "indices), offset_dims={1,2}, "
                            "collapsed_slice_dims={}, start_index_map={0}, "
                            "index_vector_dim=1, slice_sizes={1,4}\n}\n"
                            "ENTRY e {\np0 = f32[100, 4] parameter(0)\n"
                            "ROOT fu = f32[12, 1, 4] fusion(p0), "
                            "kind=kLoop, calls=f\n}";
    const std::string want =
        std::string(c.operand_map).find("domain") != std::string::npos
            ? c.operand_map
            : std::string(c.operand_map) + ", " + d;
    ExpectMaps(FusionMaps(hlo, &ctx)[0], {want}, &ctx);
  }
}

// The index operand of a gather or dynamic-slice is an iota of the same
// fusion, handed to a nested fusion as its parameter: the runtime variable
// follows the parameter to the fusion's operand (XLA's OptimizeRTVar) and
// folds to the iota's own map, leaving a plain affine map.
TEST_CASE("runtime variables: an iota behind a nested fusion's parameter",
          "[xla][rt]") {
  ExprContext ctx;
  const std::string gather =
      "inner {\n q0 = f32[16,8] parameter(0)\n q1 = s32[4,1] parameter(1)\n"
      " ROOT g = f32[4,8] gather(q0, q1), offset_dims={1},"
      " collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1,"
      " slice_sizes={1,8}\n}\n";
  // Row i of the output reads row i (the iota) of p0.
  ExpectMaps(
      FusionMaps(Fusion(gather,
                        "p0 = f32[16,8] parameter(0)\n"
                        "i = s32[4,1] iota(), iota_dimension=0\n"
                        "ROOT n = f32[4,8] fusion(p0, i), kind=kLoop, "
                        "calls=inner",
                        "a = f32[16,8] parameter(0)\n"
                        "ROOT fu = f32[4,8] fusion(a), kind=kLoop, calls=f"),
                 &ctx)[0],
      {"(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 7]"}, &ctx);
  // Through a chain of element-moving ops outside: reverse(iota) * 3 + 1.
  ExpectMaps(
      FusionMaps(Fusion(gather,
                        "p0 = f32[16,8] parameter(0)\n"
                        "i = s32[4,1] iota(), iota_dimension=0\n"
                        "r = s32[4,1] reverse(i), dimensions={0}\n"
                        "c = s32[] constant(3)\n"
                        "k = s32[4,1] broadcast(c), dimensions={}\n"
                        "m = s32[4,1] multiply(r, k)\n"
                        "ROOT n = f32[4,8] fusion(p0, m), kind=kLoop, "
                        "calls=inner",
                        "a = f32[16,8] parameter(0)\n"
                        "ROOT fu = f32[4,8] fusion(a), kind=kLoop, calls=f"),
                 &ctx)[0],
      {"(d0, d1) -> (9 - d0 * 3, d1), domain: d0 in [0, 3], d1 in [0, 7]"},
      &ctx);
  // A dynamic-slice whose offset is a scalar slice of an iota outside.
  ExpectMaps(
      FusionMaps(
          Fusion("inner {\n q0 = f32[16,8] parameter(0)\n"
                 " q1 = s32[] parameter(1)\n z = s32[] constant(0)\n"
                 " ROOT d = f32[4,8] dynamic-slice(q0, q1, z),"
                 " dynamic_slice_sizes={4,8}\n}\n",
                 "p0 = f32[16,8] parameter(0)\n"
                 "i = s32[8] iota(), iota_dimension=0\n"
                 "s = s32[1] slice(i), slice={[5:6]}\n"
                 "r = s32[] reshape(s)\n"
                 "ROOT n = f32[4,8] fusion(p0, r), kind=kLoop, calls=inner",
                 "a = f32[16,8] parameter(0)\n"
                 "ROOT fu = f32[4,8] fusion(a), kind=kLoop, calls=f"),
          &ctx)[0],
      {"(d0, d1) -> (d0 + 5, d1), domain: d0 in [0, 3], d1 in [0, 7]"}, &ctx);
  // An index from outside the outer fusion stays a runtime variable.
  auto kept = FusionMaps(
      Fusion(gather,
             "p0 = f32[16,8] parameter(0)\np1 = s32[4,1] parameter(1)\n"
             "ROOT n = f32[4,8] fusion(p0, p1), kind=kLoop, calls=inner",
             "a = f32[16,8] parameter(0)\nb = s32[4,1] parameter(1)\n"
             "ROOT fu = f32[4,8] fusion(a, b), kind=kLoop, calls=f"),
      &ctx);
  REQUIRE(kept[0].size() == 1);
  const IndexingMap& m = kept[0].maps()[0];
  REQUIRE(m.num_rt_vars() == 1);
  CHECK(m.rt_vars()[0].producer == "p1");  // the outer parameter
}

// A dot fusion nested in a dynamic-update-slice fusion: each dot operand
// keeps its own map (one parameter read as both operands has two), and
// the buffer updated in place is read through both the DUS operand and
// the dot.
TEST_CASE("fusions: a dot fusion nested in a dynamic-update-slice fusion",
          "[xla][fusion]") {
  ExprContext ctx;
  const std::string dot =
      "dc {\n q0 = f32[8,8] parameter(0)\n q1 = f32[8,8] parameter(1)\n"
      " ROOT d = f32[8,8] dot(q0, q1), lhs_contracting_dims={1},"
      " rhs_contracting_dims={0}\n}\n";
  const std::string entry =
      "buf = f32[8,8] parameter(0)\nw = f32[8,8] parameter(1)\n"
      "i = s32[] parameter(2)\n"
      "ROOT fu = f32[8,8] fusion(buf, w, i), kind=kLoop, calls=f";
  const std::string d = "domain: d0 in [0, 7], d1 in [0, 7]";
  // w is both operands of the dot: two maps.
  auto same = FusionMaps(
      Fusion(dot,
             "p0 = f32[8,8] parameter(0)\np1 = f32[8,8] parameter(1)\n"
             "p2 = s32[] parameter(2)\nz = s32[] constant(0)\n"
             "d = f32[8,8] fusion(p1, p1), kind=kOutput, calls=dc\n"
             "ROOT u = f32[8,8] dynamic-update-slice(p0, d, z, z)",
             entry),
      &ctx);
  ExpectMaps(same[0], {"(d0, d1) -> (d0, d1), " + d}, &ctx);
  ExpectMaps(same[1],
             {"(d0, d1)[s0] -> (d0, s0), " + d + ", s0 in [0, 7]",
              "(d0, d1)[s0] -> (s0, d1), " + d + ", s0 in [0, 7]"},
             &ctx);
  // The buffer feeds the dot too, and half the product is written at a
  // runtime row offset: the buffer has its identity map and the dot's.
  auto in_place = FusionMaps(
      Fusion(dot,
             "p0 = f32[8,8] parameter(0)\np1 = f32[8,8] parameter(1)\n"
             "p2 = s32[] parameter(2)\nz = s32[] constant(0)\n"
             "d = f32[8,8] fusion(p0, p1), kind=kOutput, calls=dc\n"
             "s = f32[4,8] slice(d), slice={[0:4],[0:8]}\n"
             "ROOT u = f32[8,8] dynamic-update-slice(p0, s, p2, z)",
             entry),
      &ctx);
  const std::string rt = ", s0 in [0, 7], rt0 in [0, 4], d0 - rt0 in [0, 3]";
  ExpectMaps(in_place[0],
             {"(d0, d1) -> (d0, d1), " + d,
              "(d0, d1)[s0]{rt0} -> (d0 - rt0, s0), " + d + rt},
             &ctx);
  ExpectMaps(in_place[1], {"(d0, d1)[s0]{rt0} -> (s0, d1), " + d + rt}, &ctx);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
