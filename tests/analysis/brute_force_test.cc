// Brute-force checks of the maps against a reference interpreter: every
// output element may depend only on the input elements its output-to-input
// maps name (and, where the map is exact, on all of them), and the
// input-to-output maps are the inverse relation.
#include <set>

#include "tests/analysis/reference_interpreter.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

using Element = std::pair<int, int64_t>;  // (parameter, linear index)

// Runtime variable values: the producer's value at producer_map(dims).
bool RuntimeValues(const IndexingMap& m, const std::vector<int64_t>& dims,
                   const std::vector<int64_t>& range, const hlo::Computation& c,
                   Values& values, std::vector<int64_t>* rt) {
  rt->clear();
  for (const Variable& v : m.rt_vars()) {
    const hlo::Instruction* p = c.Find(v.producer);
    REQUIRE(p);
    REQUIRE(v.producer_map);
    std::vector<int64_t> syms(
        range.begin(),
        range.begin() +
            std::min<size_t>(range.size(), v.producer_map->num_symbols()));
    auto idx = v.producer_map->Evaluate(dims, syms);
    INFO("map " << PrintIndexingMap(m) << "\nproducer " << v.producer << ": "
                << PrintIndexingMap(*v.producer_map));
    REQUIRE(idx.ok());
    const Tensor& t = values[p][0];
    rt->push_back(t.data[Linear(*idx, t.dims)]);
  }
  return true;
}

// Every point of the map for fixed dims: the image (results).
std::set<std::vector<int64_t>> Image(const IndexingMap& m,
                                     const std::vector<int64_t>& dims,
                                     const hlo::Computation& c, Values& values,
                                     const std::vector<int64_t>& target_dims,
                                     bool clip = false) {
  std::set<std::vector<int64_t>> out;
  if (m.IsKnownEmpty()) return out;
  std::vector<int64_t> sizes;
  for (const Variable& v : m.range_vars())
    sizes.push_back(v.bounds.upper - v.bounds.lower + 1);
  for (int64_t s = 0; s < Count(sizes); ++s) {
    std::vector<int64_t> range = Unlinear(s, sizes);
    for (size_t i = 0; i < range.size(); ++i)
      range[i] += m.range_vars()[i].bounds.lower;
    std::vector<int64_t> rt;
    RuntimeValues(m, dims, range, c, values, &rt);
    std::vector<int64_t> syms = range;
    syms.insert(syms.end(), rt.begin(), rt.end());
    if (!*m.InDomain(dims, syms)) continue;
    std::vector<int64_t> r = *m.Evaluate(dims, syms);
    bool outside = false;
    for (size_t i = 0; i < r.size(); ++i) {
      outside |= r[i] < 0 || r[i] >= target_dims[i];
    }
    if (clip && outside) continue;
    for (size_t i = 0; i < r.size(); ++i) {
      INFO("map " << PrintIndexingMap(m) << " leaves the target's bounds");
      REQUIRE(r[i] >= 0);
      REQUIRE(r[i] < target_dims[i]);
    }
    out.insert(r);
  }
  return out;
}

struct Check {
  std::string hlo;
  bool exact = true;          // maps name exactly the real dependencies
  bool check_inverse = true;  // compare with input-to-output maps
  bool fusion = false;        // the root is analysed as a fusion
  int output_id = 0;
  // Points of the map outside the operand are ignored instead of failing
  // (dynamic-update-slice's update map is unconstrained, as in docs/indexing.md
  // §3).
  bool clip = false;
  // How many operands the analysis answers unknown for.
  int unknown_operands = 0;
  // With exact = false: the parameters whose maps may name more than is
  // read (index operands whose values clamp); the others must be exact.
  // Empty: every parameter may be over-approximated.
  std::vector<int> loose;
};

std::vector<Tensor> RandomParams(const hlo::Computation& c,
                                 std::mt19937_64& rng) {
  std::vector<Tensor> params;
  for (int64_t i = 0; i < c.parameter_count(); ++i) {
    const hlo::Shape& s = c.parameter(i)->shape;
    Tensor t{s.dims, std::vector<int64_t>(Count(s.dims))};
    // Scalar and index parameters stay small: they are offsets.
    // Scalars are offsets: small, zero included. Integer arrays may be
    // gather indices: in [1, 3]. No zeros elsewhere, so that products show
    // every dependency.
    bool scalar = s.IsScalar(), ints = s.type == hlo::ElementType::kS32;
    std::uniform_int_distribution<int64_t> d(scalar ? 0 : 1, scalar ? 2
                                                             : ints ? 3
                                                                    : 9);
    for (int64_t& x : t.data) x = d(rng);
    params.push_back(std::move(t));
  }
  return params;
}

void RunCheck(const Check& check) {
  INFO(check.hlo);
  auto module = ParseOrDie(check.hlo);
  ExprContext ctx;
  const hlo::Computation& entry = *module->entry();
  const hlo::Instruction* root = entry.root();
  const hlo::Computation& comp = check.fusion ? *root->called() : entry;
  // Maps per operand of the root (parameters of the entry); operands the
  // analysis answers unknown for may be read anyhow (not checked).
  std::vector<IndexingMapSet> maps;
  std::vector<bool> unknown;
  if (check.fusion) {
    auto r = ComputeFusionParameterIndexingPartial(RegionOfComputation(comp),
                                                   check.output_id, &ctx);
    INFO((r.ok() ? "" : r.error().ToString()));
    REQUIRE(r.ok());
    for (PartialIndexing& p : *r) {
      maps.push_back(p.maps);
      unknown.push_back(p.unknown());
    }
  } else {
    auto r = ComputeOutputToInputIndexingPartial(*root, check.output_id, &ctx);
    INFO((r.ok() ? "" : r.error().ToString()));
    REQUIRE(r.ok());
    maps = r->indexing_maps;
    for (size_t k = 0; k < maps.size(); ++k) unknown.push_back(r->IsUnknown(k));
  }
  REQUIRE(std::count(unknown.begin(), unknown.end(), true) ==
          check.unknown_operands);
  // Parameter number of each root operand / fusion parameter.
  std::vector<int> param_of;
  for (size_t k = 0; k < maps.size(); ++k) {
    const hlo::Instruction* p =
        check.fusion ? comp.parameter(k) : root->operand(k);
    REQUIRE(p->opcode == hlo::Opcode::kParameter);
    param_of.push_back(p->parameter_number);
  }
  std::mt19937_64 rng(7);
  std::vector<Tensor> params = RandomParams(comp, rng);
  FeedReducerIdentities(comp, &params);
  Interpreter interp;
  Values values;
  std::vector<Tensor> base = interp.Run(comp, params, &values);
  const Tensor& out = base[check.output_id];

  // Named: M(o) for every output element.
  std::vector<std::set<Element>> named(out.size());
  for (int64_t l = 0; l < out.size(); ++l) {
    std::vector<int64_t> o = Unlinear(l, out.dims);
    for (size_t k = 0; k < maps.size(); ++k) {
      const Tensor& p = params[param_of[k]];
      for (const IndexingMap& m : maps[k]) {
        for (const auto& idx : Image(m, o, comp, values, p.dims, check.clip)) {
          named[l].insert({param_of[k], Linear(idx, p.dims)});
        }
      }
    }
  }
  // Real: D(o) by perturbing each input element.
  std::vector<std::set<Element>> real(out.size());
  for (size_t k = 0; k < params.size(); ++k) {
    for (int64_t e = 0; e < params[k].size(); ++e) {
      std::vector<Tensor> changed = params;
      changed[k].data[e] += 1000 + static_cast<int64_t>(rng() % 1000);
      Tensor after = interp.Run(comp, changed)[check.output_id];
      for (int64_t l = 0; l < out.size(); ++l) {
        if (after.data[l] != out.data[l])
          real[l].insert({static_cast<int>(k), e});
      }
    }
  }
  std::set<int> unknown_params;
  for (size_t k = 0; k < maps.size(); ++k) {
    if (unknown[k]) unknown_params.insert(param_of[k]);
  }
  for (int64_t l = 0; l < out.size(); ++l) {
    INFO("output element " << l);
    std::erase_if(real[l], [&](const Element& e) {
      return unknown_params.count(e.first) > 0;
    });
    for (const Element& e : real[l]) {
      INFO("depends on parameter " << e.first << " element " << e.second);
      CHECK(named[l].count(e) == 1);
    }
    if (check.exact) CHECK(named[l] == real[l]);
    if (!check.exact && !check.loose.empty()) {
      auto strict = [&](const std::set<Element>& es) {
        std::set<Element> out;
        for (const Element& e : es) {
          if (std::find(check.loose.begin(), check.loose.end(), e.first) ==
              check.loose.end()) {
            out.insert(e);
          }
        }
        return out;
      };
      CHECK(strict(named[l]) == strict(real[l]));
    }
  }
  if (!check.check_inverse) return;
  // Input-to-output maps are the exact inverse relation of the
  // output-to-input ones: every (in, out) pair related by one is related by
  // the other.
  for (size_t k = 0; k < maps.size(); ++k) {
    if (unknown[k]) continue;
    std::vector<IndexingMapSet> forward;
    if (check.fusion) {
      auto r = ComputeFusionInputToOutputIndexing(RegionOfComputation(comp), k,
                                                  &ctx);
      INFO((r.ok() ? "" : r.error().ToString()));
      REQUIRE(r.ok());
      forward = *r;
    } else {
      auto r = ComputeInputToOutputIndexing(*root, k, &ctx);
      INFO((r.ok() ? "" : r.error().ToString()));
      REQUIRE(r.ok());
      forward = r->indexing_maps;
    }
    REQUIRE(static_cast<int>(forward.size()) > check.output_id);
    const IndexingMapSet& set = forward[check.output_id];
    const Tensor& p = params[param_of[k]];
    for (int64_t e = 0; e < p.size(); ++e) {
      std::set<int64_t> image;
      for (const IndexingMap& m : set) {
        for (const auto& idx :
             Image(m, Unlinear(e, p.dims), comp, values, out.dims)) {
          image.insert(Linear(idx, out.dims));
        }
      }
      std::set<int64_t> inverse;
      for (int64_t l = 0; l < out.size(); ++l) {
        if (named[l].count({param_of[k], e})) inverse.insert(l);
      }
      INFO("operand " << k << " element " << e);
      CHECK(image == inverse);
    }
  }
}

const char* kAdd = R"(
  add {
    a = s32[] parameter(0)
    b = s32[] parameter(1)
    ROOT r = s32[] add(a, b)
  }
)";

std::string WithAdd(const std::string& entry) {
  return std::string("HloModule m\n") + kAdd + "ENTRY e {\n" + entry + "\n}";
}

TEST_CASE("brute force: elementwise, broadcast, transpose, reverse",
          "[brute]") {
  RunCheck({R"(
    p0 = f32[3,4] parameter(0)
    p1 = f32[3,4] parameter(1)
    ROOT r = f32[3,4] multiply(p0, p1))"});
  RunCheck({R"(
    p0 = pred[] parameter(0)
    p1 = f32[3,4] parameter(1)
    p2 = f32[3,4] parameter(2)
    ROOT r = f32[3,4] select(p0, p1, p2))",
            /*exact=*/false});
  RunCheck({R"(
    p0 = f32[4] parameter(0)
    ROOT r = f32[3,4,2] broadcast(p0), dimensions={1})"});
  RunCheck({R"(
    p0 = f32[2,3] parameter(0)
    ROOT r = f32[3,5,2] broadcast(p0), dimensions={2,0})"});
  RunCheck({R"(
    p0 = f32[2,3,4] parameter(0)
    ROOT r = f32[4,2,3] transpose(p0), dimensions={2,0,1})"});
  RunCheck({R"(
    p0 = f32[3,4,2] parameter(0)
    ROOT r = f32[3,4,2] reverse(p0), dimensions={0,2})"});
}

TEST_CASE("brute force: reshape and bitcast", "[brute]") {
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"[4,6]", "[24]"},      {"[24]", "[2,3,4]"},    {"[4,6]", "[3,8]"},
      {"[2,3,4]", "[6,4]"},   {"[2,3,4]", "[4,3,2]"}, {"[1,6,1]", "[2,1,3]"},
      {"[3,1,4]", "[12]"},    {"[]", "[1,1]"},        {"[1,1]", "[]"},
      {"[4,2,3]", "[4,6,1]"}, {"[2,2,6]", "[4,3,2]"},
  };
  for (const auto& [from, to] : shapes) {
    RunCheck({"p0 = f32" + from + " parameter(0)\nROOT r = f32" + to +
              " reshape(p0)"});
  }
  RunCheck({R"(
    p0 = f32[4,6]{0,1} parameter(0)
    ROOT r = f32[3,8]{0,1} bitcast(p0))"});
  RunCheck({R"(
    p0 = f32[2,3,4]{2,1,0} parameter(0)
    ROOT r = f32[4,2,3]{0,2,1} bitcast(p0))"});
  RunCheck({R"(
    p0 = f32[6,4]{0,1} parameter(0)
    ROOT r = f32[2,3,4]{1,0,2} bitcast(p0))"});
}

TEST_CASE("brute force: slice, pad, concatenate", "[brute]") {
  RunCheck({R"(
    p0 = f32[7,9] parameter(0)
    ROOT r = f32[3,3] slice(p0), slice={[1:7:2], [0:9:3]})"});
  RunCheck({R"(
    p0 = f32[3,4] parameter(0)
    p1 = f32[] parameter(1)
    ROOT r = f32[10,3] pad(p0, p1), padding=1_2_2x-1_0_0)",
            /*exact=*/false});
  RunCheck({R"(
    p0 = f32[5] parameter(0)
    p1 = f32[] parameter(1)
    ROOT r = f32[6] pad(p0, p1), padding=-2_-1_1)",
            /*exact=*/false});
  RunCheck({R"(
    p0 = f32[2,2] parameter(0)
    p1 = f32[2,3] parameter(1)
    p2 = f32[2,1] parameter(2)
    ROOT r = f32[2,6] concatenate(p0, p1, p2), dimensions={1})"});
}

// The kernel map of a convolution names every kernel element, also those
// that meet padding for a given output (as XLA's), so it is not exact.
TEST_CASE("brute force: reduce, reduce-window, dot, convolution", "[brute]") {
  RunCheck({WithAdd(R"(
    p0 = s32[3,4,2] parameter(0)
    p1 = s32[] parameter(1)
    ROOT r = s32[4] reduce(p0, p1), dimensions={0,2}, to_apply=add)")});
  RunCheck({std::string("HloModule m\n") + R"(
    add2 {
      a = s32[] parameter(0)
      b = s32[] parameter(1)
      c = s32[] parameter(2)
      d = s32[] parameter(3)
      x = s32[] add(a, c)
      y = s32[] multiply(b, d)
      ROOT t = (s32[], s32[]) tuple(x, y)
    }
    ENTRY e {
      p0 = s32[3,2] parameter(0)
      p1 = s32[3,2] parameter(1)
      i0 = s32[] parameter(2)
      i1 = s32[] parameter(3)
      ROOT r = (s32[2], s32[2]) reduce(p0, p1, i0, i1), dimensions={0}, to_apply=add2
    })",
            /*exact=*/false, /*check_inverse=*/true, false, /*output_id=*/1});
  RunCheck({WithAdd(R"(
    p0 = s32[7,5] parameter(0)
    p1 = s32[] parameter(1)
    ROOT r = s32[4,3] reduce-window(p0, p1), window={size=2x3 stride=2x1 pad=1_1x0_0 rhs_dilate=1x1}, to_apply=add)")});
  RunCheck({WithAdd(R"(
    p0 = s32[4,3] parameter(0)
    p1 = s32[] parameter(1)
    ROOT r = s32[7,3] reduce-window(p0, p1), window={size=2x2 pad=1_1x0_1 lhs_dilate=2x1 rhs_dilate=2x1}, to_apply=add)")});
  RunCheck({R"(
    p0 = s32[3,2,4] parameter(0)
    p1 = s32[4,5,2] parameter(1)
    ROOT r = s32[2,3,5] dot(p0, p1), lhs_batch_dims={1}, rhs_batch_dims={2},
      lhs_contracting_dims={2}, rhs_contracting_dims={0})"});
  RunCheck({R"(
    p0 = s32[2,5,5,2] parameter(0)
    p1 = s32[2,3,2,3] parameter(1)
    ROOT r = s32[2,3,3,3] convolution(p0, p1), window={size=2x3 stride=2x1 pad=1_0x0_0 rhs_dilate=1x1},
      dim_labels=b01f_01io->bf01)",
            /*exact=*/false});
  RunCheck({R"(
    p0 = s32[1,4,2,3] parameter(0)
    p1 = s32[2,1,2,4] parameter(1)
    ROOT r = s32[1,4,3,7] convolution(p0, p1), window={size=2x1 pad=1_1x1_1 lhs_dilate=1x2 rhs_reversal=1x0},
      dim_labels=bf01_01io->bf01, feature_group_count=2)",
            false});
}

// Input-to-output maps of the window ops are inverses that keep equations
// (stride and window dilation both > 1) or come from the generic inverse
// (batch groups, gather with fewer index columns than operand dims).
TEST_CASE("brute force: inverses of window and gather maps", "[brute]") {
  RunCheck({WithAdd(R"(
    p0 = s32[9,5] parameter(0)
    p1 = s32[] parameter(1)
    ROOT r = s32[3,3] reduce-window(p0, p1), window={size=3x2 stride=3x2 pad=1_1x0_1 rhs_dilate=2x1}, to_apply=add)")});
  RunCheck({R"(
    p0 = s32[4,3,2] parameter(0)
    p1 = s32[2,2,2] parameter(1)
    ROOT r = s32[2,6,2] convolution(p0, p1), window={size=2 pad=1_1 lhs_dilate=2},
      dim_labels=b0f_0io->b0f, batch_group_count=2)",
            /*exact=*/false});
  RunCheck({R"(
    p0 = f32[5,4,3] parameter(0)
    p1 = s32[3,1] parameter(1)
    ROOT r = f32[3,2,4,3] gather(p0, p1), offset_dims={1,2,3},
      collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1,
      slice_sizes={2,4,3})",
            /*exact=*/false});
}

TEST_CASE("brute force: dynamic-slice, dynamic-update-slice, gather",
          "[brute]") {
  RunCheck({R"(
    p0 = f32[5,6] parameter(0)
    o0 = s32[] parameter(1)
    o1 = s32[] parameter(2)
    ROOT r = f32[2,3] dynamic-slice(p0, o0, o1), dynamic_slice_sizes={2,3})",
            /*exact=*/false});
  RunCheck({R"(
    p0 = f32[5,6] parameter(0)
    p1 = f32[2,3] parameter(1)
    o0 = s32[] parameter(2)
    o1 = s32[] parameter(3)
    ROOT r = f32[5,6] dynamic-update-slice(p0, p1, o0, o1))",
            /*exact=*/false,
            /*check_inverse=*/true, false, 0, /*clip=*/true});
  RunCheck({R"(
    p0 = f32[5,6,3] parameter(0)
    p1 = s32[4,2] parameter(1)
    ROOT r = f32[4,2,3,2] gather(p0, p1), offset_dims={1,2,3},
      collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1,
      slice_sizes={2,3,2})",
            /*exact=*/false});
}

TEST_CASE("brute force: fusions of chained ops", "[brute][fusion]") {
  auto fusion = [](const std::string& body, const std::string& params,
                   const std::string& shape) {
    return "HloModule m\n" + std::string(kAdd) + "f {\n" + body +
           "\n}\nENTRY e {\n" + params + "\nROOT fu = " + shape + " fusion(" +
           "a0" + (params.find("a1") != std::string::npos ? ", a1" : "") +
           "), kind=kLoop, calls=f\n}";
  };
  // Softmax over s32[2,3,4].
  RunCheck({fusion(R"(
    p0 = s32[2,3,4] parameter(0)
    c = s32[] constant(0)
    m = s32[2,3] reduce(p0, c), dimensions={2}, to_apply=add
    b = s32[2,3,4] broadcast(m), dimensions={0,1}
    s = s32[2,3,4] subtract(p0, b)
    e = s32[2,3,4] exponential(s)
    z = s32[2,3] reduce(e, c), dimensions={2}, to_apply=add
    bz = s32[2,3,4] broadcast(z), dimensions={0,1}
    ROOT d = s32[2,3,4] divide(e, bz))",
                   "a0 = s32[2,3,4] parameter(0)", "s32[2,3,4]"),
            false, true, true});
  // Reshapes that cancel; reduce of reduce; slice of slice; concat then
  // slice; reshape of concat; dynamic-slice of dynamic-slice.
  RunCheck({fusion(R"(
    p0 = f32[2,3,4] parameter(0)
    r1 = f32[6,4] reshape(p0)
    r2 = f32[4,6] reshape(r1)
    ROOT r3 = f32[2,3,4] reshape(r2))",
                   "a0 = f32[2,3,4] parameter(0)", "f32[2,3,4]"),
            true, true, true});
  RunCheck({fusion(R"(
    p0 = s32[2,3,4] parameter(0)
    c = s32[] constant(0)
    r1 = s32[2,4] reduce(p0, c), dimensions={1}, to_apply=add
    ROOT r2 = s32[4] reduce(r1, c), dimensions={0}, to_apply=add)",
                   "a0 = s32[2,3,4] parameter(0)", "s32[4]"),
            true, true, true});
  RunCheck({fusion(R"(
    p0 = f32[12,9] parameter(0)
    s1 = f32[5,4] slice(p0), slice={[1:11:2], [1:9:2]}
    ROOT s2 = f32[2,2] slice(s1), slice={[1:5:2], [0:4:3]})",
                   "a0 = f32[12,9] parameter(0)", "f32[2,2]"),
            true, true, true});
  RunCheck({fusion(R"(
    p0 = f32[2,3] parameter(0)
    p1 = f32[2,4] parameter(1)
    c = f32[2,7] concatenate(p0, p1), dimensions={1}
    ROOT s = f32[2,3] slice(c), slice={[0:2], [2:5]})",
                   "a0 = f32[2,3] parameter(0)\na1 = f32[2,4] parameter(1)",
                   "f32[2,3]"),
            true, true, true});
  RunCheck({fusion(R"(
    p0 = f32[2,3] parameter(0)
    p1 = f32[2,5] parameter(1)
    c = f32[2,8] concatenate(p0, p1), dimensions={1}
    ROOT r = f32[4,4] reshape(c))",
                   "a0 = f32[2,3] parameter(0)\na1 = f32[2,5] parameter(1)",
                   "f32[4,4]"),
            true, true, true});
  RunCheck(
      {"HloModule m\nf {\n"
       "  p0 = f32[8,7] parameter(0)\n  i = s32[] parameter(1)\n"
       "  j = s32[] parameter(2)\n"
       "  d1 = f32[5,4] dynamic-slice(p0, i, j), dynamic_slice_sizes={5,4}\n"
       "  ROOT d2 = f32[2,2] dynamic-slice(d1, j, i), "
       "dynamic_slice_sizes={2,2}\n}\n"
       "ENTRY e {\n  a0 = f32[8,7] parameter(0)\n  a1 = s32[] parameter(1)\n"
       "  a2 = s32[] parameter(2)\n"
       "  ROOT fu = f32[2,2] fusion(a0, a1, a2), kind=kLoop, calls=f\n}",
       false, true, true});
}

// The maps of general gather, scatter, sort, the dot variants and the other
// less common ops, each checked against the interpreter the same way.
TEST_CASE("brute force: general gather", "[brute][gather]") {
  // Collapsed dims and a permuted start_index_map.
  RunCheck({R"(
    p0 = f32[5,4,3] parameter(0)
    p1 = s32[3,2] parameter(1)
    ROOT g = f32[3,4] gather(p0, p1), offset_dims={1},
      collapsed_slice_dims={0,2}, start_index_map={2,0}, index_vector_dim=1,
      slice_sizes={1,4,1})",
            /*exact=*/false, true, false, 0, false, 0, /*loose=*/{1}});
  // An implicit index vector dim (ids[i, j] is one start index).
  RunCheck({R"(
    p0 = f32[6,3] parameter(0)
    p1 = s32[2,3] parameter(1)
    ROOT g = f32[2,3,3] gather(p0, p1), offset_dims={2},
      collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2,
      slice_sizes={1,3})",
            false,
            true,
            false,
            0,
            false,
            0,
            {1}});
  // Operand batching dims, and the index vector dim in the middle.
  RunCheck({R"(
    p0 = f32[3,7,2] parameter(0)
    p1 = s32[3,1,2] parameter(1)
    ROOT g = f32[3,2,2] gather(p0, p1), offset_dims={2},
      collapsed_slice_dims={1}, start_index_map={1},
      operand_batching_dims={0}, start_indices_batching_dims={0},
      index_vector_dim=1, slice_sizes={1,1,2})",
            false,
            true,
            false,
            0,
            false,
            0,
            {1}});
}

TEST_CASE("brute force: gather of an iota folds to exact maps",
          "[brute][gather]") {
  RunCheck(
      {"HloModule m\nf {\n"
       "  t = f32[4,3] parameter(0)\n"
       "  ids = s32[4,1] iota(), iota_dimension=0\n"
       "  ROOT g = f32[4,3] gather(t, ids), offset_dims={1}, "
       "collapsed_slice_dims={0}, start_index_map={0}, "
       "index_vector_dim=1, slice_sizes={1,3}\n}\n"
       "ENTRY e {\n  a0 = f32[4,3] parameter(0)\n"
       "  ROOT fu = f32[4,3] fusion(a0), kind=kLoop, calls=f\n}",
       /*exact=*/true, true, /*fusion=*/true});
  // A dynamic-slice whose offsets are an in-range constant and an iota
  // element: both folded, the maps exact.
  RunCheck(
      {"HloModule m\nf {\n"
       "  t = f32[6,5] parameter(0)\n"
       "  c = s32[] constant(2)\n"
       "  io = s32[3] iota(), iota_dimension=0\n"
       "  i1 = s32[1] slice(io), slice={[1:2]}\n"
       "  o = s32[] reshape(i1)\n"
       "  ROOT d = f32[2,3] dynamic-slice(t, c, o), "
       "dynamic_slice_sizes={2,3}\n}\n"
       "ENTRY e {\n  a0 = f32[6,5] parameter(0)\n"
       "  ROOT fu = f32[2,3] fusion(a0), kind=kLoop, calls=f\n}",
       true, true, true});
}

// An iota of more rows than the gather may start at: the gather clamps
// each start row to rows - slice, and the analysis folds the iota and the
// clamp exactly, `min(d0, 4)`, where XLA's map reads past the operand for
// the rows the clamp moves (a deliberate difference,
// docs/xla-reference.md).
TEST_CASE("brute force: gather of an iota past the operand folds the clamp",
          "[brute][gather]") {
  const std::string hlo =
      "HloModule m\nf {\n"
      "  t = f32[6,3] parameter(0)\n"
      "  ids = s32[8,1] iota(), iota_dimension=0\n"
      "  ROOT g = f32[8,2,3] gather(t, ids), offset_dims={1,2}, "
      "collapsed_slice_dims={}, start_index_map={0}, "
      "index_vector_dim=1, slice_sizes={2,3}\n}\n"
      "ENTRY e {\n  a0 = f32[6,3] parameter(0)\n"
      "  ROOT fu = f32[8,2,3] fusion(a0), kind=kLoop, calls=f\n}";
  RunCheck({hlo, /*exact=*/true, true, /*fusion=*/true});
  auto module = ParseOrDie(hlo);
  ExprContext ctx;
  auto r = ComputeFusionParameterIndexing(
      RegionOfComputation(*module->entry()->root()->called()), 0, &ctx);
  REQUIRE(r.ok());
  REQUIRE((*r)[0].size() == 1);
  const IndexingMap& m = *(*r)[0].begin();
  CHECK(m.num_rt_vars() == 0);
  ExpectSameMap(m,
                "(d0, d1, d2) -> (min(d0, 4) + d1, d2), domain: d0 in [0, 7], "
                "d1 in [0, 1], d2 in [0, 2]",
                &ctx);
}

TEST_CASE("brute force: scatter", "[brute][scatter]") {
  RunCheck({WithAdd(R"(
    p0 = s32[6,3] parameter(0)
    p1 = s32[2,1] parameter(1)
    p2 = s32[2,3] parameter(2)
    ROOT s = s32[6,3] scatter(p0, p1, p2), update_window_dims={1},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
      index_vector_dim=1, to_apply=add)"),
            /*exact=*/false, true, false, 0, false, 0, /*loose=*/{1}});
  // A 2-D window placed by two start indices.
  RunCheck({WithAdd(R"(
    p0 = s32[5,5] parameter(0)
    p1 = s32[2,2] parameter(1)
    p2 = s32[2,2,2] parameter(2)
    ROOT s = s32[5,5] scatter(p0, p1, p2), update_window_dims={1,2},
      inserted_window_dims={}, scatter_dims_to_operand_dims={1,0},
      index_vector_dim=1, to_apply=add)"),
            false,
            true,
            false,
            0,
            false,
            0,
            {1}});
  // Batching dims.
  RunCheck({WithAdd(R"(
    p0 = s32[2,5,2] parameter(0)
    p1 = s32[2,2,1] parameter(1)
    p2 = s32[2,2,2] parameter(2)
    ROOT s = s32[2,5,2] scatter(p0, p1, p2), update_window_dims={2},
      inserted_window_dims={1}, scatter_dims_to_operand_dims={1},
      input_batching_dims={0}, scatter_indices_batching_dims={0},
      index_vector_dim=2, to_apply=add)"),
            false,
            true,
            false,
            0,
            false,
            0,
            {1}});
}

TEST_CASE("brute force: sort", "[brute][sort]") {
  const std::string lt = R"(
    lt {
      a = s32[] parameter(0)
      b = s32[] parameter(1)
      c = s32[] parameter(2)
      d = s32[] parameter(3)
      ROOT r = pred[] compare(a, b), direction=LT
    }
    lt1 {
      a = s32[] parameter(0)
      b = s32[] parameter(1)
      ROOT r = pred[] compare(a, b), direction=LT
    })";
  RunCheck({"HloModule m\n" + lt + R"(
    ENTRY e {
      p0 = s32[3,4] parameter(0)
      ROOT s = s32[3,4] sort(p0), dimensions={1}, to_apply=lt1
    })",
            /*exact=*/false});
  RunCheck({"HloModule m\n" + lt + R"(
    ENTRY e {
      p0 = s32[4,3] parameter(0)
      p1 = s32[4,3] parameter(1)
      ROOT s = (s32[4,3], s32[4,3]) sort(p0, p1), dimensions={0}, to_apply=lt
    })",
            false, true, false, /*output_id=*/1});
}

TEST_CASE("brute force: bitcast-convert, tiled bitcast, dynamic-reshape",
          "[brute][bitcast]") {
  RunCheck({R"(
    p0 = f32[3,2] parameter(0)
    ROOT b = u8[3,2,4] bitcast-convert(p0))"});
  RunCheck({R"(
    p0 = s16[5,2] parameter(0)
    ROOT b = s32[5] bitcast-convert(p0))"});
  RunCheck({R"(
    p0 = f32[4,6]{1,0:T(2,4)} parameter(0)
    ROOT b = f32[4,8]{1,0} bitcast(p0))",
            /*exact=*/true});
  RunCheck({R"(
    p0 = f32[8,4]{1,0} parameter(0)
    ROOT b = f32[4,8]{0,1:T(2,2)} bitcast(p0))"});
  RunCheck({R"(
    p0 = f32[<=4,2,3] parameter(0)
    p1 = s32[] parameter(1)
    p2 = s32[] parameter(2)
    ROOT r = f32[<=4,6] dynamic-reshape(p0, p1, p2))",
            /*exact=*/false, true, false, 0, false, 0, /*loose=*/{1, 2}});
}

TEST_CASE("brute force: legacy offset vectors", "[brute][dynamic]") {
  RunCheck({R"(
    p0 = f32[5,6] parameter(0)
    p1 = s32[2] parameter(1)
    ROOT d = f32[2,3] dynamic-slice(p0, p1), dynamic_slice_sizes={2,3})",
            /*exact=*/false, true, false, 0, false, 0, /*loose=*/{1}});
  RunCheck({R"(
    p0 = f32[5,6] parameter(0)
    p1 = f32[2,3] parameter(1)
    p2 = s32[2] parameter(2)
    ROOT d = f32[5,6] dynamic-update-slice(p0, p1, p2))",
            false, true, false, 0, /*clip=*/true});
}

TEST_CASE("brute force: scaled-dot and ragged-dot", "[brute][dot]") {
  RunCheck({R"(
    p0 = s32[3,4] parameter(0)
    p1 = s32[4,2] parameter(1)
    p2 = s32[3,2] parameter(2)
    p3 = s32[2,2] parameter(3)
    ROOT d = s32[3,2] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1},
      rhs_contracting_dims={0})"});
  // Ragged rows: the rhs group of a row is decided at run time (unknown).
  Check ragged{R"(
    p0 = s32[5,2] parameter(0)
    p1 = s32[3,2,2] parameter(1)
    p2 = s32[3] parameter(2)
    ROOT d = s32[5,2] ragged-dot(p0, p1, p2), lhs_contracting_dims={1},
      rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})",
               /*exact=*/false, /*check_inverse=*/true};
  ragged.unknown_operands = 1;
  RunCheck(ragged);
  RunCheck({R"(
    p0 = s32[2,3,2] parameter(0)
    p1 = s32[2,2,2] parameter(1)
    p2 = s32[2] parameter(2)
    ROOT d = s32[2,3,2] ragged-dot(p0, p1, p2), lhs_batch_dims={0},
      rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1},
      lhs_ragged_dims={0})",
            false, true, false, 0, false, 0, /*loose=*/{2}});
}

TEST_CASE("brute force: partial answers inside fusions", "[brute][fusion]") {
  // The custom-call's operand is unknown; the other path stays exact.
  Check partial{
      "HloModule m\nf {\n"
      "  p0 = s32[4] parameter(0)\n  p1 = s32[4] parameter(1)\n"
      "  c = s32[4] custom-call(p0), custom_call_target=\"x\"\n"
      "  n = s32[4] negate(p1)\n"
      "  ROOT a = s32[4] add(c, n)\n}\n"
      "ENTRY e {\n  a0 = s32[4] parameter(0)\n"
      "  a1 = s32[4] parameter(1)\n"
      "  ROOT fu = s32[4] fusion(a0, a1), kind=kLoop, calls=f\n}",
      /*exact=*/true, /*check_inverse=*/true, /*fusion=*/true};
  partial.unknown_operands = 1;
  RunCheck(partial);
}

// batch_group_count splits the output features into groups of F / bg; the
// group g of output feature f = g * (F / bg) + j reads the input batches
// [g * N, (g + 1) * N) (N the output batch), every input feature, and the
// kernel's output feature f. Without padding every named element is read:
// the maps are exact, and the input-to-output maps their inverse.
TEST_CASE("brute force: convolution batch groups, exact", "[brute]") {
  // 1-D, bg = 3: input batch 6 = 3 groups of 2, 6 output features.
  RunCheck({R"(
    p0 = s32[6,3,5] parameter(0)
    p1 = s32[2,3,6] parameter(1)
    ROOT r = s32[2,6,4] convolution(p0, p1), window={size=2},
      dim_labels=bf0_0io->bf0, batch_group_count=3)"});
  // 2-D with stride and window dilation, bg = 2, 4 features per group.
  RunCheck({R"(
    p0 = s32[4,5,4,2] parameter(0)
    p1 = s32[2,2,2,8] parameter(1)
    ROOT r = s32[2,2,2,8] convolution(p0, p1),
      window={size=2x2 stride=2x1 rhs_dilate=1x2},
      dim_labels=b01f_01io->b01f, batch_group_count=2)"});
  // One output batch per group (the backprop-filter form): bg = F = 4.
  RunCheck({R"(
    p0 = s32[4,3,2] parameter(0)
    p1 = s32[2,2,4] parameter(1)
    ROOT r = s32[1,2,4] convolution(p0, p1), window={size=2},
      dim_labels=b0f_0io->b0f, batch_group_count=4)"});
}

// An iota handed to a nested fusion as its gather's indices: the folded
// map names exactly the rows read.
TEST_CASE("brute force: an iota index behind a nested fusion",
          "[brute][fusion]") {
  RunCheck(
      {"HloModule m\n"
       "inner {\n  q0 = s32[6,3] parameter(0)\n  q1 = s32[4,1] parameter(1)\n"
       "  ROOT g = s32[4,3] gather(q0, q1), offset_dims={1},"
       " collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1,"
       " slice_sizes={1,3}\n}\n"
       "f {\n  p0 = s32[6,3] parameter(0)\n"
       "  i = s32[4,1] iota(), iota_dimension=0\n"
       "  r = s32[4,1] reverse(i), dimensions={0}\n"
       "  ROOT n = s32[4,3] fusion(p0, r), kind=kLoop, calls=inner\n}\n"
       "ENTRY e {\n  a = s32[6,3] parameter(0)\n"
       "  ROOT fu = s32[4,3] fusion(a), kind=kLoop, calls=f\n}",
       /*exact=*/true, /*check_inverse=*/false, /*fusion=*/true});
}

// XLA's tests feed a parameter used as a reduce's init the reducer's
// identity (the init is applied an implementation-defined number of times);
// the oracle's inputs do too.
TEST_CASE("brute force: init parameters get the reducer's identity",
          "[brute]") {
  auto m = ParseOrDie(
      "HloModule m\n"
      "mx {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT r = s32[] maximum(b, a)\n}\n"
      "ml {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT r = s32[] multiply(a, b)\n}\n"
      "sub {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT r = s32[] subtract(a, b)\n}\n"
      "ENTRY e {\n  p0 = s32[3,4] parameter(0)\n  p1 = s32[] parameter(1)\n"
      "  p2 = s32[] parameter(2)\n  p3 = s32[] parameter(3)\n"
      "  p4 = s32[] parameter(4)\n"
      "  a = s32[3] reduce(p0, p1), dimensions={1}, to_apply=mx\n"
      "  b = s32[3] reduce(p0, p2), dimensions={1}, to_apply=ml\n"
      "  c = s32[3] reduce(p0, p3), dimensions={1}, to_apply=sub\n"
      "  s = s32[3] add(a, b)\n  t = s32[3] add(s, c)\n"
      "  q = s32[3] broadcast(p4), dimensions={}\n"
      "  ROOT r = s32[3] add(t, q)\n}");
  std::mt19937_64 rng(7);
  const hlo::Computation& entry = *m->entry();
  std::vector<Tensor> params = RandomParams(entry, rng);
  for (Tensor& t : params) {
    if (t.dims.empty()) t.data = {5};
  }
  FeedReducerIdentities(entry, &params);
  CHECK(params[1].data == std::vector<int64_t>{INT64_MIN});
  CHECK(params[2].data == std::vector<int64_t>{1});
  CHECK(params[3].data == std::vector<int64_t>{5});  // no identity known
  CHECK(params[4].data == std::vector<int64_t>{5});  // not an init
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
