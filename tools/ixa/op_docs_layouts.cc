// The protocol's table, continued: layout ops and code generation.
#include "tools/ixa/op_docs.h"

namespace ixa::cli {

std::vector<OpDoc> BuildLayoutDocs() {
  const std::string_view kFusionTargets = "cpp|cuda|mlir";
  const std::string_view kPto = "pto";
  return {
      {"layout",
       "layouts",
       "XLA's tiled layouts: where each logical element of a shape lives.",
       {{"shape", "string", "",
         "an XLA shape with its layout, e.g. \"f32[3,5]{1,0:T(2,2)}\", "
         "\"s4[64,128]{1,0:T(64,128)(8,1)E(4)}\""},
        {"index", "list of ints", "not used", "a logical index to place"},
        {"offsets", "list of ints", "not used",
         "physical offsets (in elements) to invert"}},
       {{"map", "map",
         "logical index -> physical offset in elements, over the shape"},
        {"physical_shape", "list of ints", "the tiled shape, major to minor"},
        {"physical_elements", "int", "element count with the padding"},
        {"bytes", "int", "the buffer's size in bytes"},
        {"offset", "int", "with index: its physical offset, in elements"},
        {"logical", "list of (list of ints or null)",
         "with offsets: the logical index at each, null for padding"}},
       R"j({"id": 30, "op": "layout", "shape": "f32[3,5]{1,0:T(2,2)}", "index": [2, 3], "offsets": [17, 9]})j"},
      {"nested_layout",
       "layouts",
       "IREE's nested layouts: which subgroup and thread hold each element "
       "of a vector.",
       {{"subgroup_tile", "list of ints", "", "per dim"},
        {"batch_tile", "list of ints", "", "per dim"},
        {"outer_tile", "list of ints", "", "per dim"},
        {"thread_tile", "list of ints", "", "per dim"},
        {"element_tile", "list of ints", "", "per dim"},
        {"subgroup_strides", "list of ints", "", "per dim"},
        {"thread_strides", "list of ints", "", "per dim"},
        {"shape", "list of ints", "not checked",
         "the vector shape to check the layout against"},
        {"subgroup", "int", "not used",
         "a subgroup id (with thread): list that thread's elements"},
        {"thread", "int", "not used", "a lane id within its subgroup"},
        {"element", "list of ints", "not used",
         "a vector index: list its owners"},
        {"subgroup_size", "int", "derived from the tiles",
         "lanes per subgroup"},
        {"num_subgroups", "int", "derived from the tiles",
         "subgroups in the workgroup"}},
       {{"map", "map",
         "(subgroup, thread)[batch, outer, element] -> vector index"},
        {"distributed_shape", "list of ints",
         "IREE's packed form: batch ++ outer ++ element"},
        {"vector_shape", "list of ints", "the undistributed vector shape"},
        {"valid", "bool", "with shape: whether the layout fits it"},
        {"mismatched_dims", "list of ints", "with shape: the dims that do not"},
        {"elements", "list of (list of ints)",
         "with subgroup and thread: the vector indices that thread holds"},
        {"owners", "list of [subgroup, thread]",
         "with element: every holder of that element"}},
       R"j({"id": 31, "op": "nested_layout", "subgroup_tile": [2, 1], "batch_tile": [2, 4], "outer_tile": [1, 1], "thread_tile": [16, 4], "element_tile": [1, 4], "subgroup_strides": [1, 0], "thread_strides": [1, 16], "shape": [64, 64], "subgroup": 1, "thread": 5})j"},
      {"cute_layout",
       "layouts",
       "CuTe layouts and their algebra.",
       {{"layout", "string", "",
         "a layout in CuTe notation, e.g. \"(2,(2,2)):(4,(2,1))\""},
        {"swizzle", "[B, M, S]", "none", "a swizzle applied to the offsets"},
        {"fn", "string", "none",
         "coalesce, complement, right_inverse, left_inverse, compose, "
         "logical_divide, zipped_divide, tiled_divide, flat_divide, "
         "logical_product, zipped_product, tiled_product, blocked_product "
         "or raked_product"},
        {"with", "string", "not used",
         "the second layout, or a tiler \"<3:4,8:2>\", of fn"},
        {"cotarget", "int", "the layout's cosize", "complement's cotarget"}},
       {{"layout", "string", "the result in CuTe notation"},
        {"map", "map", "coordinate -> offset"},
        {"values", "list of ints",
         "the offsets in CuTe's colexicographic order (at most 4096)"},
        {"overhang", "list of {mode, size, covered}",
         "divides whose last tiles run past the layout"}},
       R"j({"id": 32, "op": "cute_layout", "layout": "(4,2):(1,4)", "fn": "compose", "with": "<2:2>"})j"},
      {"pto",
       "layouts",
       "Ascend PTO tiles and data formats (fn selects the question).",
       {{"fn", "string", "",
         "tile_offset, tile_check, ttrans_check, tmp_size or format"},
        {"tile", "object", "not used",
         "tile_offset, tile_check: {loc, rows, cols, blayout, slayout, "
         "dtype, fractal_bytes?, valid_row?, valid_col?}"},
        {"row", "int", "not used", "tile_offset: the element's row"},
        {"col", "int", "not used", "tile_offset: the element's column"},
        {"arch", "string", "not used", "ttrans_check: a2a3 or a5"},
        {"src", "object", "not used", "ttrans_check: the source tile"},
        {"dst", "object", "not used", "ttrans_check: the destination tile"},
        {"conversion", "string", "not used",
         "tmp_size, format: the conversion (e.g. nchw_to_nc1hwc0)"},
        {"dtype", "string", "not used", "tmp_size, format: the element type"},
        {"shape", "list of ints", "not used",
         "tmp_size, format: the source shape"},
        {"order", "string", "\"d_major\"",
         "format of ncdhw_to_fractal_z_3d: d_major or c1_major"},
        {"index", "list of ints", "not used",
         "format: a source index to map forward"},
        {"coords", "list of ints", "not used",
         "format: destination coordinates to map back"}},
       {{"offset", "int",
         "tile_offset: the element's offset in the tile; "
         "format with index: the destination offset"},
        {"valid", "bool", "tile_check, ttrans_check: whether it is legal"},
        {"failures", "list of strings", "each broken constraint, in words"},
        {"path", "string", "ttrans_check: vector or scalar"},
        {"tmp_bytes", "int", "scratch bytes the conversion needs"},
        {"map", "map",
         "format: destination coordinates -> source index, with padding "
         "constraints"},
        {"dst_shape", "list of ints", "format: the destination shape"},
        {"C0", "int", "format: elements per C0 block"},
        {"C1", "int", "format: C0 blocks"},
        {"N1", "int or null", "format: N blocks (null: no N split)"},
        {"coords", "list of ints", "format with index: destination coords"},
        {"index", "list of ints or null",
         "format with coords: the source index (null for padding)"}},
       R"j({"id": 33, "op": "pto", "fn": "format", "conversion": "nchw_to_nc1hwc0", "dtype": "f16", "shape": [1, 20, 4, 4], "coords": [0, 1, 2, 3, 4]})j"},
      {"warp_access",
       "layouts",
       "The memory transactions of one warp's access.",
       {{"map", "map", "",
         "lane id (and optionally symbols) -> element offset"},
        {"element_bytes", "int", "", "bytes per element, 1 to 1024"},
        {"device", "string or object", "\"h100\"",
         "the device: a name or an object (see Devices)"},
        {"memory", "string", "\"global\"", "global or shared"}},
       {{"sectors", "int", "32-byte sectors touched"},
        {"lines", "int", "cache lines touched"},
        {"useful_bytes", "int", "bytes the lanes use"},
        {"efficiency", "number", "useful bytes / bytes of the sectors"},
        {"bank_conflict_ways", "int",
         "shared memory: the worst bank's distinct words"}},
       R"j({"id": 34, "op": "warp_access", "map": "(d0) -> (d0 * 2), domain: d0 in [0, 31]", "element_bytes": 4})j"},
      {"bank_conflicts",
       "layouts",
       "The exact shared-memory wavefronts of an access, over every warp "
       "and loop iteration.",
       {{"map", "map", "",
         "(thread, loops...)[symbols] -> byte address of the lane's first "
         "element; every variable but the thread id is a loop (each value "
         "is another warp access), constraints switch lanes off"},
        {"element_bytes", "int", "", "bytes per element"},
        {"vector_width", "int", "1",
         "consecutive elements per lane; element_bytes * vector_width must "
         "be 1, 2, 4, 8 or 16 and divide every address"},
        {"thread_dim", "int", "0", "the dim that is the thread id"},
        {"device", "string or object", "\"h100\"",
         "the device whose banks and warp size count"}},
       {{"wavefronts", "{worst, average, total, ideal}",
         "per warp access: the most and the mean; over all: the sum and "
         "the sum without conflicts (one per phase with an active lane)"},
        {"access_bytes", "int", "bytes per lane"},
        {"phases", "int", "phases of a full warp access (8 bytes: 2, 16: 4)"},
        {"instances", "int", "warp accesses with an active lane"},
        {"conflict_free", "bool", "total == ideal"},
        {"method", "string",
         "enumerated, or periodic when some variable was reduced to a "
         "proven period"},
        {"evaluated_lanes", "int", "lane evaluations done"},
        {"periods", "list of {variable, size, period, shift_bytes}",
         "per variable (warp first, in warps): the period proven "
         "(= size: none used) and the bytes the address moves per period"},
        {"counterexample", "{warp, loops, phase, bank, wavefronts, lanes}",
         "absent when conflict-free: the first warp access with the most "
         "extra wavefronts, its worst phase and bank, one {lane, word} per "
         "distinct word that bank is asked for"}},
       R"j({"id": 37, "op": "bank_conflicts", "map": "(d0, d1) -> ((d0 * 32 + d1) * 4), domain: d0 in [0, 63], d1 in [0, 31]", "element_bytes": 4})j"},
      {"swizzle",
       "layouts",
       "The shared-tile layout with the fewest wavefronts for a write and a "
       "read: row padding, column rotation or an XOR Swizzle<B,M,S>.",
       {{"shape", "list of ints", "",
         "the tile, row-major (the last dim is the row)"},
        {"dtype", "string", "", "the element type, e.g. \"f32\""},
        {"write", "map", "",
         "(thread, loops...)[symbols] -> the tile coordinate each lane "
         "writes"},
        {"read", "map", "", "the same for the read"},
        {"write_vector_width", "int", "1",
         "elements per lane of the write, along the last dim"},
        {"read_vector_width", "int", "1", "the same for the read"},
        {"device", "string or object", "\"h100\"", "the device"}},
       {{"before", "object",
         "the row-major tile: layout, kind, bytes, arithmetic, wavefronts "
         "(write + read totals), write and read (as bank_conflicts)"},
        {"after", "object",
         "the best layout, the same fields; kind row_major, padded (pad), "
         "rotated (rotation) or xor (swizzle [B, M, S])"},
        {"map", "map", "after: tile coordinate -> element offset"},
        {"bases", "object or null",
         "after as a linear layout over GF(2): per tile dim, the offset of "
         "each coordinate bit; null unless row-major or XOR over "
         "power-of-two dims"},
        {"candidates", "int", "layouts counted"}},
       R"j({"id": 38, "op": "swizzle", "shape": [32, 32], "dtype": "f32", "write": "(d0, d1) -> (d0 floordiv 32 + d1 * 8, d0 mod 32), domain: d0 in [0, 255], d1 in [0, 3]", "read": "(d0, d1) -> (d0 mod 32, d0 floordiv 32 + d1 * 8), domain: d0 in [0, 255], d1 in [0, 3]"})j"},
      {"emit",
       "codegen",
       "Generated code: a fusion's kernel (cpp, cuda, mlir) or an Ascend "
       "layout conversion (pto).",
       {{"target", "string", "", "cpp, cuda, mlir or pto"},
        {"hlo", "string", "", "the HLO module text", kFusionTargets},
        {"fusion", "string", "the entry root fusion", "the fusion to generate",
         kFusionTargets},
        {"instructions", "list of strings", "not used",
         "entry instructions generated as one fusion", kFusionTargets},
        {"device", "string or object", "\"h100\"", "the device",
         kFusionTargets},
        {"stages", "bool", "false", "also the code after each lowering step",
         kFusionTargets},
        {"host", "bool", "false",
         "mlir only: grid ids become loops, so the module runs on the CPU",
         kFusionTargets},
        {"tf32", "bool", "false",
         "cuda only: an f32 x f32 -> f32 dot the GEMM emitter takes runs on "
         "TF32 tensor cores (WMMA 16x16x8, operands rounded to TF32, f32 "
         "accumulation), as cuBLAS runs XLA's f32 dots at default precision "
         "on sm_80 and later; false keeps the dot's exact f32 semantics",
         kFusionTargets},
        {"kernel", "string",
         "the name of `fusion`, else of the entry's root instruction (the "
         "root fusion), as an identifier; distinct for the kernels of one "
         "module",
         "the kernel's name"},
        {"arch", "string", "", "a2a3 or a5", kPto},
        {"conversion", "string", "",
         "transpose_2d, nd_to_nz, nz_to_nd, nchw_to_nc1hwc0, "
         "nc1hwc0_to_nchw, nc1hwc0_to_fractal_z or ncdhw_to_fractal_z_3d",
         kPto},
        {"dtype", "string", "", "the element type", kPto},
        {"shape", "list of ints", "", "the source shape", kPto},
        {"order", "string", "\"d_major\"",
         "ncdhw_to_fractal_z_3d: d_major or c1_major", kPto},
        {"tile", "[rows, cols]", "chosen by the generator",
         "the tile the kernel moves per step", kPto}},
       {{"code", "string", "the generated code"},
        {"kernel", "string", "the kernel's name"},
        {"emitter", "string", "cpp, cuda, mlir: the emitter kind"},
        {"kernel_emitter", "string",
         "cpp, cuda, mlir: the emitter that generated the code: the plan's "
         "kind, or gemm where the cuda target's tiled GEMM emitter took a "
         "dot fusion"},
        {"reduction_kind", "string", "reductions: row, multi_row or column"},
        {"launch", "object", "cpp, cuda, mlir: as thread_indexing's launch"},
        {"buffers", "list of {index, role, name, shape, allocation_bytes}",
         "cpp, cuda, mlir: the kernel's arguments in order: role input or "
         "output, shape as XLA text with its layout (`aliases` when an "
         "output reuses an input), `allocation_bytes` the bytes to allocate "
         "for it: the shape's bytes, rounded up where the target's narrow "
         "atomics work on a wider aligned unit (cuda: a buffer that 1-byte "
         "atomics update to an even count; mlir GPU form: one that atomics "
         "narrower than 4 bytes update to a multiple of 4; "
         "docs/emitters.md §3)"},
        {"stages", "list of {name, code}", "with stages: each step's code"},
        {"shared_tiles", "list",
         "cpp, cuda, mlir, transposes and reductions with shared memory: "
         "the plan's tiles, as thread_indexing's shared_tiles"},
        {"shared_accesses",
         "list of {tile, access, bytes_per_lane, vector_width, instances, "
         "wavefronts_worst, wavefronts_avg, ideal, conflict_free, reason}",
         "with shared_tiles: each tile's write and read by the generated "
         "code, for a full block (an edge block only switches lanes off), "
         "through the tile's layout: `tile` its index in shared_tiles, "
         "`access` write or read, `instances` the warp accesses per block, "
         "the wavefronts of the costliest one and on average, `ideal` the "
         "wavefronts of a conflict-free warp access (its phases), "
         "`conflict_free` and `reason` (the first warp access with a "
         "conflict: its bank and lanes)"},
        {"tiles", "list",
         "pto: each tile declared (type, rows, cols, "
         "valid region, unified-buffer offset, bytes)"},
        {"notes", "list of strings",
         "cpp, cuda, mlir; present only when it applies: one per reduce "
         "whose init value is not its reducer's identity (a constant other "
         "than 0 for add/xor or 1 for multiply, or an init whose value is "
         "unknown, such as a parameter). XLA applies an init an "
         "implementation-defined number of times, so only the identity has "
         "one answer; the note says how often this kernel applies it: once "
         "per partial result in a reduction kernel (as XLA's GPU kernels "
         "do), once per output element otherwise. Idempotent reducers "
         "(maximum, minimum, and, or) get no note"},
        {"tmp_bytes", "int", "pto: scratch bytes"},
        {"ub_bytes", "int", "pto: unified-buffer bytes used"}},
       R"j({"id": 35, "op": "emit", "target": "pto", "arch": "a2a3", "conversion": "transpose_2d", "dtype": "f32", "shape": [16, 8]})j"},
      {"compile",
       "codegen",
       "One program for one device of a whole module (docs/compile.md): "
       "every kernel "
       "(dots and convolutions too, host loops where the emitters refuse "
       "one; cuBLAS GEMM calls as their dot and epilogue), sorts, ffts, "
       "choleskys and triangular solves as generated host code, control "
       "flow on the host, a buffer assignment reusing dead buffers, and the "
       "entry point `extern \"C\" int ixa_run(const void* const* params, "
       "void* const* results)`; cpp adds a main reading .npy files.",
       {{"target", "string", "", "cpp or cuda"},
        {"hlo", "string", "", "the HLO module text"},
        {"device", "string or object", "\"h100\"",
         "the device the kernels are planned for"},
        {"entry", "string", "\"ixa_run\"", "the entry point's name"},
        {"fuse", "bool", "true",
         "a module whose entry has no fusion is fused by fusion_plan (the "
         "xla model) first; false: every instruction outside a fusion is "
         "its own kernel"},
        {"prefusion", "bool", "true",
         "with fuse: XLA's pre-fusion pipeline runs before fusion_plan, as "
         "fusion_plan runs it (see prefusion); compiled as read: its "
         "expanders and scatter normalization only (XLA emits no batch "
         "norm, topk, stochastic-convert or select-and-scatter as written, "
         "and the scatter emitter takes XLA's simplified scatters); false "
         "plans and compiles the module as written"},
        {"tf32", "bool", "false",
         "cuda only: f32 GEMM kernels on TF32 tensor cores, as emit's tf32"}},
       {{"code", "string", "the program: one C++ (cpp) or CUDA (cuda) file"},
        {"parameters", "list of {parameter, index, shape}",
         "what each entry of the entry point's params holds, in order: the "
         "entry parameter's number, the tuple index of the array leaf "
         "(empty for an array parameter; a tuple parameter takes one entry "
         "per leaf, depth first) and its shape"},
        {"one_device", "list of {instruction, what}",
         "present when the module held ops whose meaning involves other "
         "devices or streams (async pairs, collectives, sharding "
         "annotations, ...): what each became on one device "
         "(docs/compile.md \"One device\")"},
        {"kernels",
         "list of {name, instruction, computation, emitter, refusal}",
         "every kernel and host op, in program order (emitter: the plan's "
         "kind, gemm where the tiled GEMM emitter generated the kernel, "
         "or, for a host op, dot, convolution or sort; refusal, on a "
         "host dot or convolution only: why it is not a generated kernel)"},
        {"peak_bytes", "int",
         "bytes the arenas hold at once: the entry's arena plus, nested, "
         "the largest arena of a computation it runs"},
        {"total_bytes", "int", "the sum of every buffer's bytes"},
        {"buffers",
         "list of {computation, instruction, output, shape, bytes, offset, "
         "defined, last_use}",
         "every buffer the program allocates: its arena offset and the "
         "positions (in its computation's order) where it is written and "
         "last read"},
        {"fusion", "string",
         "fusion_plan (the module was fused first) or as_read"},
        {"note", "string",
         "present when fusing was asked for but the planned module did not "
         "compile: why (it was then compiled as read)"}},
       R"j({"id": 36, "op": "compile", "target": "cpp", "fuse": false, "hlo": "HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  b = f32[3,2] parameter(1)\n  d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  ROOT n = f32[2,2] negate(d)\n}"})j"},
  };
}

}  // namespace ixa::cli
