// The protocol's table, continued: linear layouts over GF(2).
#include "tools/ixa/op_docs.h"

namespace ixa::cli {

std::vector<OpDoc> BuildLinearLayoutDocs() {
  return {
      {"linear_layout",
       "layouts",
       "Linear layouts over GF(2) (Triton's), from their text, an ixa map, a "
       "CuTe layout or a Swizzle<B,M,S>: operations, properties and the "
       "layout as a map.",
       {{"layout", "string", "not used",
         "a linear layout, e.g. \"{lane: [[1, 1], [2, 2]], warp: [[0, 1], "
         "[0, 2]]} -> {dim0: 4, dim1: 4}\" (docs/layouts.md)"},
        {"map", "map", "not used",
         "an ixa map to convert: dims and range variables over [0, 2^k - 1], "
         "results linear over GF(2)"},
        {"out_dims", "list of strings", "dim0, dim1, ..",
         "with map: the output dims' names"},
        {"cute", "string", "not used",
         "a CuTe layout with power-of-two sizes, e.g. \"(8,64):(64,1)\""},
        {"by_mode", "bool", "false",
         "with cute: one input dim per top-level mode (mode0, ..) instead of "
         "the 1-D index"},
        {"swizzle", "[B, M, S]", "none",
         "with cute: the swizzle after the layout; alone: the swizzle itself"},
        {"bits", "int", "B + M + |S|", "with swizzle alone: offset bits"},
        {"fn", "string", "none",
         "compose (with after the layout), invert, pseudo_invert, "
         "invert_and_compose, product (Triton's *), divide_left (C with "
         "with * C = layout) or divide_right (C * with = layout)"},
        {"with", "string", "not used", "the second layout of fn"},
        {"apply", "list of ints", "not used",
         "a point, one value per input dim in order, to map"}},
       {{"layout", "string", "the result in the text form"},
        {"in_dims", "list of {name, size}", "the input dims, minor first"},
        {"out_dims", "list of {name, size}", "the output dims"},
        {"rank", "int", "rank over GF(2)"},
        {"injective", "bool", "no two inputs share an output"},
        {"surjective", "bool", "every output is reached"},
        {"invertible", "bool", "both, with as many input bits as output"},
        {"contiguous", "int",
         "consecutive values of the first input dim that land on consecutive "
         "values of the first output dim (vector width, elements)"},
        {"free_variables", "list of {name, mask}",
         "per input dim, the bits that reach no new output (broadcast)"},
        {"map", "map", "the layout as an ixa map (XOR as floordiv/mod bits)"},
        {"cute", "string",
         "the layout in CuTe notation, where one output needs no XOR"},
        {"divisible", "bool",
         "divide_left / divide_right: whether a quotient exists (the other "
         "fields only when it does)"},
        {"output", "list of ints", "with apply: the output, per output dim"}},
       R"j({"id": 39, "op": "linear_layout", "layout": "{lane: [[1, 1], [2, 2]], warp: [[0, 1], [0, 2]]} -> {dim0: 4, dim1: 4}", "fn": "invert", "apply": [3, 1]})j"},
  };
}

}  // namespace ixa::cli
