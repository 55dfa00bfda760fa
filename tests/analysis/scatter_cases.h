// Scatters (and a gather) in the forms XLA's scatter normalization
// rewrites (BatchedGatherScatterNormalizer, ScatterSimplifier): batching
// dims, the index vector dim not last or implicit, several scatter dims,
// window dims not trailing, inserted window dims, scalar indices,
// reordered scatter_dims_to_operand_dims, a variadic scatter; combiners
// add, max and assign. The pre-fusion tests check each rewrite computes
// what its input does; the compile tests run each module as a program.
// Where the combiner is assign, the indices are unique (from an iota), so
// that the order in which updates meet does not matter.
#ifndef IXA_TESTS_ANALYSIS_SCATTER_CASES_H_
#define IXA_TESTS_ANALYSIS_SCATTER_CASES_H_

#include <string>
#include <vector>

namespace ixa::testing {

struct ScatterCase {
  std::string label;
  std::string hlo;
  // The passes expected to rewrite it.
  std::vector<std::string> passes;
};

inline std::vector<ScatterCase> ScatterNormalizationCases() {
  const std::string combiners = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
add2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  s = f32[] add(a, c)
  t = f32[] add(b, d)
  ROOT u = (f32[], f32[]) tuple(s, t)
}
)";
  auto module = [&](const std::string& entry) {
    return "HloModule m\n" + combiners + "\nENTRY e {\n" + entry + "}\n";
  };
  const std::string batching = "BatchedGatherScatterNormalizer";
  const std::string simplifier = "ScatterSimplifier";
  return {
      {"batching dims, add",
       module("  operand = f32[4,10,8] parameter(0)\n"
              "  idx = s32[4,3,1] parameter(1)\n"
              "  upd = f32[4,3,8] parameter(2)\n"
              "  ROOT out = f32[4,10,8] scatter(operand, idx, upd), "
              "update_window_dims={2}, inserted_window_dims={1}, "
              "scatter_dims_to_operand_dims={1}, input_batching_dims={0}, "
              "scatter_indices_batching_dims={0}, index_vector_dim=2, "
              "to_apply=add\n"),
       {batching, simplifier}},
      {"batching dims, implicit index vector, batch not leading, max",
       module("  operand = f32[6,3,5] parameter(0)\n"
              "  idx = s32[4,3] parameter(1)\n"
              "  upd = f32[4,3,5] parameter(2)\n"
              "  ROOT out = f32[6,3,5] scatter(operand, idx, upd), "
              "update_window_dims={2}, inserted_window_dims={0}, "
              "scatter_dims_to_operand_dims={0}, input_batching_dims={1}, "
              "scatter_indices_batching_dims={1}, index_vector_dim=2, "
              "to_apply=max\n"),
       {batching, simplifier}},
      {"index vector dim in the middle, reordered dims, add",
       module("  operand = f32[6,7] parameter(0)\n"
              "  idx = s32[3,2,4] parameter(1)\n"
              "  upd = f32[3,4] parameter(2)\n"
              "  ROOT out = f32[6,7] scatter(operand, idx, upd), "
              "update_window_dims={}, inserted_window_dims={0,1}, "
              "scatter_dims_to_operand_dims={1,0}, index_vector_dim=1, "
              "to_apply=add\n"),
       {simplifier}},
      {"several scatter dims, window dim leading, add",
       module("  operand = f32[5,8] parameter(0)\n"
              "  idx = s32[2,3] parameter(1)\n"
              "  upd = f32[4,2,3] parameter(2)\n"
              "  ROOT out = f32[5,8] scatter(operand, idx, upd), "
              "update_window_dims={0}, inserted_window_dims={0}, "
              "scatter_dims_to_operand_dims={0}, index_vector_dim=2, "
              "to_apply=add\n"),
       {simplifier}},
      {"scalar index, assign",
       module("  operand = f32[6,4] parameter(0)\n"
              "  idx = s32[] parameter(1)\n"
              "  upd = f32[4] parameter(2)\n"
              "  ROOT out = f32[6,4] scatter(operand, idx, upd), "
              "update_window_dims={0}, inserted_window_dims={0}, "
              "scatter_dims_to_operand_dims={0}, index_vector_dim=0, "
              "to_apply=assign\n"),
       {simplifier}},
      {"window not trailing, operand transposed, assign",
       module("  operand = f32[4,6] parameter(0)\n"
              "  idx = s32[3,1] iota(), iota_dimension=0\n"
              "  upd = f32[4,3] parameter(1)\n"
              "  ROOT out = f32[4,6] scatter(operand, idx, upd), "
              "update_window_dims={0}, inserted_window_dims={1}, "
              "scatter_dims_to_operand_dims={1}, index_vector_dim=1, "
              "to_apply=assign\n"),
       {simplifier}},
      {"inserted window dim, 2-d window, max",
       module("  operand = f32[3,4,5] parameter(0)\n"
              "  idx = s32[6,1] parameter(1)\n"
              "  upd = f32[6,2,5] parameter(2)\n"
              "  ROOT out = f32[3,4,5] scatter(operand, idx, upd), "
              "update_window_dims={1,2}, inserted_window_dims={0}, "
              "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
              "to_apply=max\n"),
       {simplifier}},
      {"variadic, reordered dims",
       module("  a = f32[5,6] parameter(0)\n"
              "  b = f32[5,6] parameter(1)\n"
              "  idx = s32[3,2] parameter(2)\n"
              "  u = f32[3] parameter(3)\n"
              "  v = f32[3] parameter(4)\n"
              "  ROOT out = (f32[5,6], f32[5,6]) scatter(a, b, idx, u, v), "
              "update_window_dims={}, inserted_window_dims={0,1}, "
              "scatter_dims_to_operand_dims={1,0}, index_vector_dim=1, "
              "to_apply=add2\n"),
       {simplifier}},
      {"gather with batching dims",
       module("  operand = f32[4,10,8] parameter(0)\n"
              "  idx = s32[4,3,1] parameter(1)\n"
              "  ROOT g = f32[4,3,8] gather(operand, idx), offset_dims={2}, "
              "collapsed_slice_dims={1}, start_index_map={1}, "
              "operand_batching_dims={0}, start_indices_batching_dims={0}, "
              "index_vector_dim=2, slice_sizes={1,1,8}\n"),
       {batching}},
  };
}

}  // namespace ixa::testing

#endif  // IXA_TESTS_ANALYSIS_SCATTER_CASES_H_
