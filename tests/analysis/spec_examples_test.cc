// Every example of docs/indexing.md §3 (per-op maps) in both directions:
// compared as maps (enumeration / sampling) and, tagged [text], as printed
// text (which needs the range-aware simplifier).
#include <map>

#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

const std::map<std::string, std::string>& Modules() {
  static const auto* modules = new std::map<std::string, std::string>{
      {"elementwise", R"(
        p0 = f32[10, 20] parameter(0)
        p1 = f32[10, 20] parameter(1)
        ROOT add = f32[10, 20] add(p0, p1))"},
      {"broadcast", R"(
        p0 = f32[20] parameter(0)
        ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1})"},
      {"constant", R"(
        c = f32[10] constant({1,2,3,4,5,6,7,8,9,10})
        i = s32[10, 5] iota(), iota_dimension=1
        ROOT t = (f32[10], s32[10, 5]) tuple(c, i))"},
      {"dynamic_slice", R"(
        src = s32[2,2,258] parameter(0)
        of1 = s32[] parameter(1)
        of2 = s32[] parameter(2)
        of3 = s32[] parameter(3)
        ROOT ds = dynamic-slice(s32[2,2,258] src, s32[] of1, s32[] of2, s32[] of3), dynamic_slice_sizes={1, 2, 32})"},
      {"dus", R"(
        src = s32[20,30] parameter(0)
        upd = s32[5,10] parameter(1)
        of1 = s32[] parameter(2)
        of2 = s32[] parameter(3)
        ROOT dus = s32[20,30] dynamic-update-slice(
            s32[20,30] src, s32[5,10] upd, s32[] of1, s32[] of2))"},
      {"gather", R"(
        operand = f32[33,76,70] parameter(0)
        indices = s32[1806,2] parameter(1)
        ROOT gather = f32[1806,7,8,4] gather(operand, indices),
          offset_dims={1,2,3},
          collapsed_slice_dims={},
          start_index_map={0,1},
          index_vector_dim=1,
          slice_sizes={7,8,4})"},
      {"transpose", R"(
        p0 = f32[3, 12288, 6, 128] parameter(0)
        ROOT transpose = f32[3, 6, 128, 12288] transpose(p0), dimensions={0, 2, 3, 1})"},
      {"reverse", R"(
        p0 = f32[1, 17, 9, 9] parameter(0)
        ROOT reverse = f32[1, 17, 9, 9] reverse(p0), dimensions={1, 2})"},
      {"reduce", R"(
        HloModule m
        max {
          a = f32[] parameter(0)
          b = s32[] parameter(1)
          c = f32[] parameter(2)
          d = s32[] parameter(3)
          m = f32[] maximum(a, c)
          n = s32[] maximum(b, d)
          ROOT t = (f32[], s32[]) tuple(m, n)
        }
        ENTRY e {
          p0 = f32[256,10] parameter(0)
          p0_init = f32[] constant(-inf)
          p1 = s32[256,10] parameter(1)
          p1_init = s32[] constant(0)
          ROOT reduce = (f32[10], s32[10]) reduce(p0, p1, p0_init, p1_init),
            dimensions={0}, to_apply=max
        })"},
      {"slice", R"(
        p0 = f32[10, 20, 50] parameter(0)
        ROOT slice = f32[5, 3, 25] slice(f32[10, 20, 50] p0),
          slice={[5:10:1], [3:20:7], [0:50:2]})"},
      {"collapse", R"(
        p0 = f32[4,8] parameter(0)
        ROOT reshape = f32[32] reshape(p0))"},
      {"expand", R"(
        p0 = f32[32] parameter(0)
        ROOT reshape = f32[4, 8] reshape(p0))"},
      {"general1", R"(
        p0 = f32[4,8] parameter(0)
        ROOT reshape = f32[2, 4, 4] reshape(p0))"},
      {"general2", R"(
        p0 = f32[4, 8, 12] parameter(0)
        ROOT reshape = f32[32, 3, 4] reshape(p0))"},
      {"bitcast_transpose", R"(
        p0 = f32[2, 3]{1,0} parameter(0)
        ROOT b = f32[3, 2]{0,1} bitcast(p0))"},
      {"bitcast_reshape", R"(
        p0 = f32[4, 8]{1,0} parameter(0)
        ROOT b = f32[32]{0} bitcast(p0))"},
      {"bitcast_trt", R"(
        p0 = f32[4, 6]{0,1} parameter(0)
        ROOT b = f32[3, 8]{0,1} bitcast(p0))"},
      {"concat", R"(
        p0 = f32[2, 5, 7] parameter(0)
        p1 = f32[2, 11, 7] parameter(1)
        p2 = f32[2, 17, 7] parameter(2)
        ROOT concat = f32[2, 33, 7] concatenate(f32[2, 5, 7] p0, f32[2, 11, 7] p1, f32[2, 17, 7] p2), dimensions={1})"},
      {"dot", R"(
        p0 = f32[4, 128, 256] parameter(0)
        p1 = f32[4, 256, 64] parameter(1)
        ROOT dot = f32[4, 128, 64] dot(p0, p1),
          lhs_batch_dims={0}, rhs_batch_dims={0},
          lhs_contracting_dims={2}, rhs_contracting_dims={1})"},
      {"pad", R"(
        p0 = f32[4, 4] parameter(0)
        p1 = f32[] parameter(1)
        ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0)"},
      {"reduce_window", R"(
        HloModule m
        max {
          a = f32[] parameter(0)
          b = f32[] parameter(1)
          ROOT m = f32[] maximum(a, b)
        }
        ENTRY e {
          c_inf = f32[] constant(-inf)
          p0 = f32[1024, 514] parameter(0)
          ROOT reduce-window = f32[1024, 3] reduce-window(p0, c_inf),
            window={size=1x512 pad=0_0x0_0}, to_apply=max
        })"},
  };
  return *modules;
}

struct Case {
  const char* module;
  bool out_to_in;
  int index;  // operand (out_to_in) or operand (in_to_out)
  int other;  // output_id (out_to_in) or output (in_to_out)
  std::vector<std::string> maps;
};

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"elementwise",
       true,
       0,
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]"}},
      {"elementwise",
       true,
       1,
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]"}},
      {"elementwise",
       false,
       0,
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]"}},
      {"elementwise",
       false,
       1,
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]"}},
      {"broadcast",
       true,
       0,
       0,
       {"(d0, d1, d2) -> (d1), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, "
        "29]"}},
      {"broadcast",
       false,
       0,
       0,
       {"(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 19], s0 in [0, 9], s1 "
        "in [0, 29]"}},
      {"dynamic_slice",
       true,
       0,
       0,
       {"(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2), "
        "domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31], rt0 in [0, 1], rt1 "
        "in [0, 0], rt2 in [0, 226]"}},
      {"dynamic_slice",
       true,
       1,
       0,
       {"(d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, "
        "31]"}},
      {"dynamic_slice",
       true,
       2,
       0,
       {"(d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, "
        "31]"}},
      {"dynamic_slice",
       true,
       3,
       0,
       {"(d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, "
        "31]"}},
      {"dus",
       true,
       0,
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 19], d1 in [0, 29]"}},
      {"dus",
       true,
       1,
       0,
       {"(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1), domain: d0 in [0, 19], d1 "
        "in [0, 29], rt0 in [0, 15], rt1 in [0, 20]"}},
      {"dus",
       true,
       2,
       0,
       {"(d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]"}},
      {"dus",
       true,
       3,
       0,
       {"(d0, d1) -> (), domain: d0 in [0, 19], d1 in [0, 29]"}},
      {"gather",
       true,
       0,
       0,
       {"(d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3), domain: d0 in "
        "[0, 1805], d1 in [0, 6], d2 in [0, 7], d3 in [0, 3], rt0 in [0, 26], "
        "rt1 in [0, 68]"}},
      {"gather",
       true,
       1,
       0,
       {"(d0, d1, d2, d3)[s0] -> (d0, s0), domain: d0 in [0, 1805], d1 in [0, "
        "6], d2 in [0, 7], d3 in [0, 3], s0 in [0, 1]"}},
      {"transpose",
       true,
       0,
       0,
       {"(d0, d1, d2, d3) -> (d0, d3, d1, d2), domain: d0 in [0, 2], d1 in [0, "
        "5], d2 in [0, 127], d3 in [0, 12287]"}},
      {"transpose",
       false,
       0,
       0,
       {"(d0, d1, d2, d3) -> (d0, d2, d3, d1), domain: d0 in [0, 2], d1 in [0, "
        "12287], d2 in [0, 5], d3 in [0, 127]"}},
      {"reverse",
       true,
       0,
       0,
       {"(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3), domain: d0 in [0, "
        "0], d1 in [0, 16], d2 in [0, 8], d3 in [0, 8]"}},
      {"reverse",
       false,
       0,
       0,
       {"(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3), domain: d0 in [0, "
        "0], d1 in [0, 16], d2 in [0, 8], d3 in [0, 8]"}},
      {"reduce",
       true,
       0,
       0,
       {"(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]"}},
      {"reduce",
       true,
       1,
       0,
       {"(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]"}},
      {"reduce", true, 2, 0, {"(d0) -> (), domain: d0 in [0, 9]"}},
      {"reduce", true, 3, 1, {"(d0) -> (), domain: d0 in [0, 9]"}},
      {"reduce",
       true,
       1,
       1,
       {"(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]"}},
      {"reduce",
       false,
       0,
       0,
       {"(d0, d1) -> (d1), domain: d0 in [0, 255], d1 in [0, 9]"}},
      {"reduce",
       false,
       1,
       1,
       {"(d0, d1) -> (d1), domain: d0 in [0, 255], d1 in [0, 9]"}},
      {"reduce", false, 2, 0, {"()[s0] -> (s0), domain: s0 in [0, 9]"}},
      {"reduce", false, 3, 1, {"()[s0] -> (s0), domain: s0 in [0, 9]"}},
      {"slice",
       true,
       0,
       0,
       {"(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2), domain: d0 in [0, 4], "
        "d1 in [0, 2], d2 in [0, 24]"}},
      {"slice",
       false,
       0,
       0,
       {"(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain: "
        "d0 in [5, 9], d1 in [3, 17], d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], "
        "d2 mod 2 in [0, 0]"}},
      {"collapse",
       true,
       0,
       0,
       {"(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]"}},
      {"collapse",
       false,
       0,
       0,
       {"(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"}},
      {"expand",
       true,
       0,
       0,
       {"(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"}},
      {"expand",
       false,
       0,
       0,
       {"(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]"}},
      {"general1",
       true,
       0,
       0,
       {"(d0, d1, d2) -> (d0 * 2 + d1 floordiv 2, d2 + (d1 mod 2) * 4), "
        "domain: d0 in [0, 1], d1 in [0, 3], d2 in [0, 3]"}},
      {"general1",
       false,
       0,
       0,
       {"(d0, d1) -> (d0 floordiv 2, d1 floordiv 4 + (d0 mod 2) * 2, d1 mod "
        "4), domain: d0 in [0, 3], d1 in [0, 7]"}},
      {"general2",
       true,
       0,
       0,
       {"(d0, d1, d2) -> (d0 floordiv 8, d0 mod 8, d1 * 4 + d2), domain: d0 in "
        "[0, 31], d1 in [0, 2], d2 in [0, 3]"}},
      {"general2",
       false,
       0,
       0,
       {"(d0, d1, d2) -> (d0 * 8 + d1, d2 floordiv 4, d2 mod 4), domain: d0 in "
        "[0, 3], d1 in [0, 7], d2 in [0, 11]"}},
      {"bitcast_transpose",
       true,
       0,
       0,
       {"(d0, d1) -> (d1, d0), domain: d0 in [0, 2], d1 in [0, 1]"}},
      {"bitcast_transpose",
       false,
       0,
       0,
       {"(d0, d1) -> (d1, d0), domain: d0 in [0, 1], d1 in [0, 2]"}},
      {"bitcast_reshape",
       true,
       0,
       0,
       {"(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]"}},
      {"bitcast_reshape",
       false,
       0,
       0,
       {"(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]"}},
      // Physical [6, 4] -> [8, 3]: element (d0, d1) of the output is
      // physical (d1, d0), linear d1 * 3 + d0, physical input
      // ((d1 * 3 + d0) floordiv 4, (d1 * 3 + d0) mod 4) = logical (mod, div).
      {"bitcast_trt",
       true,
       0,
       0,
       {"(d0, d1) -> ((d0 + d1 * 3) mod 4, (d0 + d1 * 3) floordiv 4), domain: "
        "d0 in [0, 2], d1 in [0, 7]"}},
      {"concat",
       true,
       0,
       0,
       {"(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in [0, 4], d2 "
        "in [0, 6]"}},
      {"concat",
       true,
       1,
       0,
       {"(d0, d1, d2) -> (d0, d1 - 5, d2), domain: d0 in [0, 1], d1 in [5, "
        "15], d2 in [0, 6]"}},
      {"concat",
       true,
       2,
       0,
       {"(d0, d1, d2) -> (d0, d1 - 16, d2), domain: d0 in [0, 1], d1 in [16, "
        "32], d2 in [0, 6]"}},
      {"concat",
       false,
       0,
       0,
       {"(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in [0, 4], d2 "
        "in [0, 6]"}},
      {"concat",
       false,
       1,
       0,
       {"(d0, d1, d2) -> (d0, d1 + 5, d2), domain: d0 in [0, 1], d1 in [0, "
        "10], d2 in [0, 6]"}},
      {"concat",
       false,
       2,
       0,
       {"(d0, d1, d2) -> (d0, d1 + 16, d2), domain: d0 in [0, 1], d1 in [0, "
        "16], d2 in [0, 6]"}},
      {"dot",
       true,
       0,
       0,
       {"(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 3], d1 in [0, "
        "127], d2 in [0, 63], s0 in [0, 255]"}},
      {"dot",
       true,
       1,
       0,
       {"(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, "
        "127], d2 in [0, 63], s0 in [0, 255]"}},
      {"dot",
       false,
       0,
       0,
       {"(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 3], d1 in [0, "
        "127], d2 in [0, 255], s0 in [0, 63]"}},
      // XLA's indexing document prints `(d0, s0, d1)` here, which sends the
      // contracting index d1 (up to 255) to the output's 64-wide dim; the
      // rhs free dim is d2. The brute-force test checks this form.
      {"dot",
       false,
       1,
       0,
       {"(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, "
        "255], d2 in [0, 63], s0 in [0, 127]"}},
      {"pad",
       true,
       0,
       0,
       {"(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4), domain: d0 in [1, 7], d1 "
        "in [4, 7], (d0 - 1) mod 2 in [0, 0]"}},
      {"pad",
       true,
       1,
       0,
       {"(d0, d1) -> (), domain: d0 in [0, 11], d1 in [0, 15]"}},
      {"reduce_window",
       true,
       0,
       0,
       {"(d0, d1)[s0] -> (d0, d1 + s0), domain: d0 in [0, 1023], d1 in [0, 2], "
        "s0 in [0, 511]"}},
      {"reduce_window",
       true,
       1,
       0,
       {"(d0, d1) -> (), domain: d0 in [0, 1023], d1 in [0, 2]"}},
  };
  return *cases;
}

std::vector<IndexingMap> Compute(const Case& c, ExprContext* ctx,
                                 std::unique_ptr<hlo::Module>* keep) {
  *keep = ParseOrDie(Modules().at(c.module));
  const hlo::Instruction* root = (*keep)->entry()->root();
  auto result = c.out_to_in ? ComputeOutputToInputIndexing(*root, c.other, ctx)
                            : ComputeInputToOutputIndexing(*root, c.index, ctx);
  INFO((result.ok() ? std::string() : result.error().ToString()));
  REQUIRE(result.ok());
  int which = c.out_to_in ? c.index : c.other;
  REQUIRE(which < static_cast<int>(result->indexing_maps.size()));
  return result->indexing_maps[which].maps();
}

std::string Describe(const Case& c) {
  return std::string(c.module) +
         (c.out_to_in ? " output->operand " : " operand ") +
         std::to_string(c.index) + (c.out_to_in ? " (output " : " -> output ") +
         std::to_string(c.other) + (c.out_to_in ? ")" : "");
}

TEST_CASE("docs/indexing.md §3 per-op maps, compared as maps",
          "[indexing][spec]") {
  for (const Case& c : Cases()) {
    INFO(Describe(c));
    ExprContext ctx;
    std::unique_ptr<hlo::Module> m;
    std::vector<IndexingMap> maps = Compute(c, &ctx, &m);
    REQUIRE(maps.size() == c.maps.size());
    for (size_t i = 0; i < maps.size(); ++i)
      ExpectSameMap(maps[i], c.maps[i], &ctx);
  }
}

TEST_CASE("docs/indexing.md §3 per-op maps, compared as text",
          "[indexing][spec][text]") {
  for (const Case& c : Cases()) {
    INFO(Describe(c));
    ExprContext ctx;
    std::unique_ptr<hlo::Module> m;
    std::vector<IndexingMap> maps = Compute(c, &ctx, &m);
    REQUIRE(maps.size() == c.maps.size());
    for (size_t i = 0; i < maps.size(); ++i) ExpectText(maps[i], c.maps[i]);
  }
}

TEST_CASE("constant and iota have no operand maps", "[indexing][spec]") {
  ExprContext ctx;
  auto m = ParseOrDie(Modules().at("constant"));
  for (const char* name : {"c", "i"}) {
    auto r = ComputeOutputToInputIndexing(*m->entry()->Find(name), 0, &ctx);
    REQUIRE(r.ok());
    CHECK(r->indexing_maps.empty());
  }
}

TEST_CASE("runtime variables name their producers", "[indexing][spec]") {
  ExprContext ctx;
  auto m = ParseOrDie(Modules().at("dynamic_slice"));
  auto r = ComputeOutputToInputIndexing(*m->entry()->root(), 0, &ctx);
  REQUIRE(r.ok());
  const IndexingMap& src = r->indexing_maps[0].maps()[0];
  // The simplifier may fold the offset whose range is [0, 0] (of2).
  REQUIRE(src.num_rt_vars() >= 2);
  std::vector<std::string> names = {"of1", "of2", "of3"};
  if (src.num_rt_vars() == 2) names = {"of1", "of3"};
  for (int i = 0; i < src.num_rt_vars(); ++i) {
    CHECK(src.rt_vars()[i].producer == names[i]);
    REQUIRE(src.rt_vars()[i].producer_map);
    ExpectText(*src.rt_vars()[i].producer_map,
               "(d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in "
               "[0, 31]");
  }
  auto g = ParseOrDie(Modules().at("gather"));
  auto gr = ComputeOutputToInputIndexing(*g->entry()->root(), 0, &ctx);
  REQUIRE(gr.ok());
  const IndexingMap& op = gr->indexing_maps[0].maps()[0];
  REQUIRE(op.num_rt_vars() == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(op.rt_vars()[i].producer == "indices");
    ExpectSameMap(*op.rt_vars()[i].producer_map,
                  "(d0, d1, d2, d3) -> (d0, " + std::to_string(i) +
                      "), domain: d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], "
                      "d3 in [0, 3]",
                  &ctx);
  }
  auto d = ParseOrDie(Modules().at("dus"));
  auto dr = ComputeOutputToInputIndexing(*d->entry()->root(), 0, &ctx);
  REQUIRE(dr.ok());
  const IndexingMap& upd = dr->indexing_maps[1].maps()[0];
  REQUIRE(upd.num_rt_vars() == 2);
  CHECK(upd.rt_vars()[0].producer == "of1");
  CHECK(upd.rt_vars()[1].producer == "of2");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
