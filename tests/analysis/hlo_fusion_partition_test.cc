// The HLO reader (forms and errors), docs/indexing.md §4 fusion examples,
// and the
// computation partitioner.
#include "analysis/partition/partition.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

Error ParseError(const std::string& text) {
  auto m = hlo::ParseHloModule(text);
  REQUIRE_FALSE(m.ok());
  return m.error();
}

TEST_CASE("HLO reader: the forms XLA prints", "[hlo]") {
  auto m = ParseOrDie(R"(
HloModule test_module, entry_computation_layout={(f32[10]{0})->f32[10]{0}}

%add.clone (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %x, f32[] %y), metadata={op_name="a" source_file="b.py"}
}

%fused (p: f32[10], q: (f32[10], s32[10])) -> f32[10] {
  %q = (f32[10]{0}, s32[10]{0}) parameter(1)
  %p = f32[10]{0:T(128)} parameter(0)
  %g = f32[10]{0} get-tuple-element(%q), index=0
  ROOT %r = f32[10]{0} add(%p, %g), backend_config="{\"x\": 1}"
}

ENTRY %main {
  %a = f32[10]{0} parameter(0)
  %t = (f32[10], s32[10]) parameter(1)
  %c = f32[] constant(-inf)
  %s = f32[] reduce(%a, %c), dimensions={0}, to_apply=%add.clone
  /*index=5*/ %b = bf16[4,8]{1,0:T(8,128)(2,1)} parameter(2)
  ROOT %f = f32[10]{0} fusion(%a, %t), kind=kLoop, calls=%fused
}
)");
  CHECK(m->name() == "test_module");
  REQUIRE(m->entry());
  CHECK(m->entry()->name() == "main");
  CHECK(m->entry()->root()->name == "f");
  CHECK(m->entry()->root()->called()->name() == "fused");
  const hlo::Instruction* b = m->entry()->Find("b");
  REQUIRE(b);
  REQUIRE(b->shape.layout);
  CHECK(b->shape.layout->tiles.size() == 2);
  CHECK(b->shape.layout->tiles[0].dims == std::vector<int64_t>{8, 128});
  CHECK(m->entry()->Find("s")->called()->name() == "add.clone");
  // Operands before users.
  const auto& order = m->FindComputation("fused")->post_order();
  auto pos = [&](const char* n) {
    return std::find_if(order.begin(), order.end(),
                        [&](auto* i) { return i->name == n; }) -
           order.begin();
  };
  CHECK(pos("q") < pos("g"));
  CHECK(pos("g") < pos("r"));
  CHECK(pos("p") < pos("r"));
}

TEST_CASE("HLO reader: opcodes without a map read fine, their maps are refused",
          "[hlo]") {
  auto m = ParseOrDie(R"(
    p0 = f32[8,8] parameter(0)
    ROOT s = f32[8,8] cholesky(p0), lower=true)");
  ExprContext ctx;
  auto r = ComputeOutputToInputIndexing(*m->entry()->root(), 0, &ctx);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kUnsupported);
  CHECK(r.error().message.find("cholesky") != std::string::npos);
  auto f = ParseOrDie(R"(
    p0 = f32[8] parameter(0)
    c = f32[8] custom-call(p0), custom_call_target="foo"
    ROOT n = f32[8] negate(c))");
  auto g =
      ComputeFusionParameterIndexing(RegionOfComputation(*f->entry()), 0, &ctx);
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().message.find("custom-call") != std::string::npos);
}

TEST_CASE("HLO reader: errors name what was expected, with line and column",
          "[hlo]") {
  struct Bad {
    std::string text;
    int line, column;
    std::string says;
  };
  const std::vector<Bad> cases = {
      {"p0 = f32[10] parameter(0)\nROOT a = f32[10] add(p0, p1)", 2, 26,
       "unknown operand 'p1'"},
      {"p0 = f32[10] parameter(0)\np1 = f32[11] parameter(1)\nROOT a = f32[10] "
       "add(p0, p1)",
       3, 6, "shape mismatch"},
      {"p0 = f32[10] parameter(0)\nROOT a = f32[10] negate(f32[11] p0)", 2, 33,
       "shape mismatch"},
      {"p0 = f32[10] parameter(0)\nROOT a = f32[10] add(p0, p0", 2, 28,
       "expected ',' or ')'"},
      {"p0 = f32[10 parameter(0)", 1, 13, "expected ',' or ']'"},
      {"p0 = f32[4,4] parameter(0)\nROOT s = f32[2,4] slice(p0), "
       "slice={[0:2:1] [0:4]}",
       2, 45, "expected ',' or '}' in slice"},
      {"p0 = f32[4] parameter(0)\nROOT t = f32[4] transpose(p0), dimensions=1",
       2, 43, "expected '{'"},
      {"p0 = f32[4] parameter(0)\np1 = f32[] parameter(1)\nROOT p = f32[6] "
       "pad(p0, p1), padding=1x1",
       3, 39, "expected '_'"},
      {"f {\n  p0 = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p0)\n", 4, 1,
       "expected '}'"},
      {"HloModule m\nENTRY e {\n  p0 = f32[4] parameter(0)\n  c = f32[] "
       "constant(0)\n  ROOT r = f32[] reduce(p0, c), dimensions={0}, "
       "to_apply=nope\n}",
       5, 58, "unknown computation 'nope'"},
      {"p0 = f32[4] parameter(0)\nROOT b = f32[4,3] broadcast(p0), "
       "dimensions={0,1}",
       2, 6, "broadcast dimensions"},
      {"p0 = q32[4] parameter(0)", 1, 6, "expected an element type"},
      {"", 1, 1, "expected a computation"},
  };
  for (const Bad& b : cases) {
    INFO(b.text);
    Error e = ParseError(b.text);
    INFO(e.ToString());
    CHECK(e.code == ErrorCode::kParseError);
    CHECK(e.line == b.line);
    CHECK(e.column == b.column);
    CHECK(e.message.find(b.says) != std::string::npos);
  }
}

std::vector<std::string> ParameterMaps(const std::string& hlo, int param,
                                       ExprContext* ctx,
                                       std::unique_ptr<hlo::Module>* keep) {
  *keep = ParseOrDie(hlo);
  auto r = ComputeFusionParameterIndexing(
      RegionOfComputation(*(*keep)->entry()), 0, ctx);
  INFO((r.ok() ? "" : r.error().ToString()));
  REQUIRE(r.ok());
  std::vector<std::string> out;
  for (const IndexingMap& m : (*r)[param]) out.push_back(PrintIndexingMap(m));
  return out;
}

const char* kTransposeAdd = R"(f {
  p0 = f32[1000, 1000] parameter(0)
  transpose_p0 = f32[1000, 1000]{0, 1} transpose(p0), dimensions={1, 0}
  ROOT a0 = f32[1000, 1000] add(p0, transpose_p0)
})";

const char* kDoubleTranspose = R"(f {
  p0 = f32[20, 10, 50] parameter(0)
  lhs_transpose_1 = f32[10, 20, 50] transpose(p0), dimensions={1, 0, 2}
  lhs_e = f32[10, 20, 50] exponential(lhs_transpose_1)
  lhs_transpose_2 = f32[10, 50, 20] transpose(lhs_e), dimensions={0, 2, 1}
  rhs_transpose_1 = f32[50, 10, 20] transpose(p0), dimensions={2, 1, 0}
  rhs_log = f32[50, 10, 20] exponential(rhs_transpose_1)
  rhs_transpose_2 = f32[10, 50, 20] transpose(rhs_log), dimensions={1, 0, 2}
  ROOT add = f32[10, 50, 20] add(lhs_transpose_2, rhs_transpose_2)
})";

const char* kSoftmax = R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY softmax {
  param_0 = f32[2,65,125] parameter(0)
  c = f32[] constant(-inf)
  reduce = f32[2,65] reduce(param_0, c), dimensions={2}, to_apply=max
  broadcast = f32[2,65,125] broadcast(reduce), dimensions={0,1}
  subtract = f32[2,65,125] subtract(param_0, broadcast)
  exponential = f32[2,65,125] exponential(subtract)
  c0 = f32[] constant(0)
  sum = f32[2,65] reduce(exponential, c0), dimensions={2}, to_apply=add
  bsum = f32[2,65,125] broadcast(sum), dimensions={0,1}
  ROOT divide = f32[2,65,125] divide(exponential, bsum)
})";

const char* kReshapes = R"(
  p0 = f32[10, 10, 10] parameter(0)
  reshape1 = f32[50, 20] reshape(p0)
  ROOT reshape2 = f32[10, 10, 10] reshape(reshape1))";

TEST_CASE("docs/indexing.md §4 fusion maps, compared as maps",
          "[fusion][spec]") {
  ExprContext ctx;
  std::unique_ptr<hlo::Module> m;
  auto maps = ParameterMaps(kTransposeAdd, 0, &ctx, &m);
  REQUIRE(maps.size() == 2);
  auto r =
      ComputeFusionParameterIndexing(RegionOfComputation(*m->entry()), 0, &ctx);
  ExpectSameMap((*r)[0].maps()[0],
                "(d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]",
                &ctx);
  ExpectSameMap((*r)[0].maps()[1],
                "(d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]",
                &ctx);

  maps = ParameterMaps(kDoubleTranspose, 0, &ctx, &m);
  REQUIRE(maps.size() == 1);  // deduplicated
  r = ComputeFusionParameterIndexing(RegionOfComputation(*m->entry()), 0, &ctx);
  ExpectSameMap((*r)[0].maps()[0],
                "(d0, d1, d2) -> (d2, d0, d1), domain: d0 in [0, 9], d1 in [0, "
                "49], d2 in [0, 19]",
                &ctx);

  maps = ParameterMaps(kSoftmax, 0, &ctx, &m);
  REQUIRE(maps.size() == 2);
  r = ComputeFusionParameterIndexing(RegionOfComputation(*m->entry()), 0, &ctx);
  for (const IndexingMap& map : (*r)[0]) {
    if (map.num_symbols() == 1) {
      ExpectSameMap(map,
                    "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], "
                    "d1 in [0, 64], d2 in [0, 124], s0 in [0, 124]",
                    &ctx);
    } else {
      ExpectSameMap(map,
                    "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in "
                    "[0, 64], d2 in [0, 124]",
                    &ctx);
    }
  }

  maps = ParameterMaps(kReshapes, 0, &ctx, &m);
  REQUIRE(maps.size() == 1);
  r = ComputeFusionParameterIndexing(RegionOfComputation(*m->entry()), 0, &ctx);
  ExpectSameMap((*r)[0].maps()[0],
                "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, "
                "9], d2 in [0, 9]",
                &ctx);
}

TEST_CASE("docs/indexing.md §4 fusion maps, compared as text",
          "[fusion][spec][text]") {
  ExprContext ctx;
  std::unique_ptr<hlo::Module> m;
  CHECK(ParameterMaps(kTransposeAdd, 0, &ctx, &m) ==
        std::vector<std::string>{
            "(d0, d1) -> (d0, d1), domain: d0 in [0, 999], d1 in [0, 999]",
            "(d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]"});
  CHECK(ParameterMaps(kDoubleTranspose, 0, &ctx, &m) ==
        std::vector<std::string>{"(d0, d1, d2) -> (d2, d0, d1), domain: d0 in "
                                 "[0, 9], d1 in [0, 49], d2 in [0, 19]"});
  auto soft = ParameterMaps(kSoftmax, 0, &ctx, &m);
  std::sort(soft.begin(), soft.end());
  CHECK(soft == std::vector<std::string>{
                    "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 1], d1 in "
                    "[0, 64], d2 in [0, 124]",
                    "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], "
                    "d1 in [0, 64], d2 in [0, 124], s0 in [0, 124]"});
  CHECK(ParameterMaps(kReshapes, 0, &ctx, &m) ==
        std::vector<std::string>{"(d0, d1, d2) -> (d0, d1, d2), domain: d0 in "
                                 "[0, 9], d1 in [0, 9], d2 in [0, 9]"});
}

TEST_CASE("fusion: instruction groups, every instruction, fusion ops",
          "[fusion]") {
  ExprContext ctx;
  auto m = ParseOrDie(R"(HloModule m
f {
  p0 = f32[4,6] parameter(0)
  ROOT t = f32[6,4] transpose(p0), dimensions={1,0}
}
ENTRY e {
  a = f32[4,6] parameter(0)
  n = f32[4,6] negate(a)
  fu = f32[6,4] fusion(n), kind=kLoop, calls=f
  ROOT r = f32[24] reshape(fu)
})");
  // Producer + consumer as one fusion: the outside operand is parameter 0.
  auto region = RegionOfInstructions(*m->entry(), {"fu", "r"});
  REQUIRE(region.ok());
  CHECK(region->root->name == "r");
  REQUIRE(region->parameters.size() == 1);
  CHECK(region->parameters[0]->name == "n");
  auto g = ComputeGroupedOutputToInputIndexing(*region, 0, &ctx);
  REQUIRE(g.ok());
  auto n_maps = g->MapsOf(region->parameters[0]);
  REQUIRE(n_maps.size() == 1);
  ExpectSameMap(n_maps[0],
                "(d0) -> (d0 mod 4, d0 floordiv 4), domain: d0 in [0, 23]",
                &ctx);
  // The whole entry: every instruction gets its maps.
  auto all = ComputeGroupedOutputToInputIndexing(
      RegionOfComputation(*m->entry()), 0, &ctx);
  REQUIRE(all.ok());
  for (const char* name : {"r", "fu", "n", "a"}) {
    CHECK(all->MapsOf(m->entry()->Find(name)).size() == 1);
  }
  // Two roots is an error.
  CHECK_FALSE(
      RegionOfInstructions(*m->entry(), {"n", "a", "fu", "r", "x"}).ok());
  auto two = RegionOfInstructions(*m->entry(), {"a", "n"});
  REQUIRE(two.ok());
  // Input-to-output through the fusion op.
  auto io = ComputeInputToOutputIndexing(*m->entry()->Find("fu"), 0, &ctx);
  REQUIRE(io.ok());
  ExpectSameMap(io->indexing_maps[0].maps()[0],
                "(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 5]",
                &ctx);
}

std::vector<std::pair<std::string, std::vector<std::string>>> Partition(
    const std::string& hlo) {
  auto m = ParseOrDie(hlo);
  ExprContext ctx;
  auto p = PartitionComputation(*m->entry(), &ctx);
  REQUIRE(p.ok());
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const Subgraph& s : p->subgraphs) {
    std::vector<std::string> names;
    for (auto* i : s.instructions) names.push_back(i->name);
    out.push_back({s.root->name, names});
  }
  return out;
}

TEST_CASE("partition: docs/emitters.md examples", "[partition]") {
  using V = std::vector<std::pair<std::string, std::vector<std::string>>>;
  // log read at two indices by add and transpose: three functions.
  CHECK(Partition(R"(
    p = f32[20,20] parameter(0)
    log = f32[20,20] log(p)
    t = f32[20,20] transpose(log), dimensions={1,0}
    ROOT add = f32[20,20] add(log, t))") ==
        V{{"add", {"add"}}, {"t", {"t"}}, {"log", {"log"}}});
  // A slice and a pad of an add.
  CHECK(Partition(R"(
    p = f32[8] parameter(0)
    q = f32[8] parameter(1)
    add = f32[8] add(p, q)
    s = f32[4] slice(add), slice={[0:4]}
    z = f32[] constant(0)
    pd = f32[10] pad(add, z), padding=1_1
    ROOT t = (f32[4], f32[10]) tuple(s, pd))") ==
        V{{"pd", {"z", "pd"}}, {"s", {"s"}}, {"add", {"add"}}});
  // Elementwise users agreeing on one map: one function.
  CHECK(Partition(R"(
    p = f32[8] parameter(0)
    e = f32[8] exponential(p)
    a = f32[8] negate(e)
    b = f32[8] abs(e)
    ROOT c = f32[8] add(a, b))") == V{{"c", {"e", "a", "b", "c"}}});
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
