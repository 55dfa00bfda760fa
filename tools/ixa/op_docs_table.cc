// The protocol's table (op_docs.h): every op with its request and response
// fields. A handler reads only the fields listed here: the server answers
// any other field bad_request before the handler runs.
#include <algorithm>

#include "tools/ixa/op_docs.h"

namespace ixa::cli {
namespace {

// Example HLO modules (JSON-escaped text).
#define IXA_EXAMPLE_FUSION                                                    \
  "HloModule m\\nfused {\\n p0 = f32[64,64] parameter(0)\\n p1 = f32[64] "    \
  "parameter(1)\\n b = f32[64,64] broadcast(p1), dimensions={0}\\n ROOT m = " \
  "f32[64,64] multiply(p0, b)\\n}\\nENTRY e {\\n a = f32[64,64] "             \
  "parameter(0)\\n v = f32[64] parameter(1)\\n ROOT f = f32[64,64] "          \
  "fusion(a, v), kind=kLoop, calls=fused\\n}"
#define IXA_EXAMPLE_BROADCAST                                         \
  "HloModule m\\nENTRY e {\\n p0 = f32[20] parameter(0)\\n ROOT b = " \
  "f32[10,20] broadcast(p0), dimensions={1}\\n}"
#define IXA_EXAMPLE_PAIR                                               \
  "HloModule m\\nENTRY e {\\n p = f32[1024,1024] parameter(0)\\n l = " \
  "f32[1024,1024] log(p)\\n ROOT t = f32[1024,1024] transpose(l), "    \
  "dimensions={1,0}\\n}"
#define IXA_EXAMPLE_SOFTMAX                                                  \
  "HloModule m\\nadd {\\n a = f32[] parameter(0)\\n b = f32[] "              \
  "parameter(1)\\n ROOT s = f32[] add(a, b)\\n}\\nENTRY e {\\n p = "         \
  "f32[8,48] parameter(0)\\n e = f32[8,48] exponential(p)\\n z = f32[] "     \
  "constant(0)\\n s = f32[8] reduce(e, z), dimensions={1}, to_apply=add\\n " \
  "b = f32[8,48] broadcast(s), dimensions={0}\\n ROOT d = f32[8,48] "        \
  "divide(e, b)\\n}"
#define IXA_EXAMPLE_PLAN                                                    \
  "HloModule m\\nENTRY e {\\n p = f32[1024,1024] parameter(0)\\n q = "      \
  "f32[1024] parameter(1)\\n b = f32[1024,1024] broadcast(q), "             \
  "dimensions={1}\\n l = f32[1024,1024] log(p)\\n ROOT a = f32[1024,1024] " \
  "add(l, b)\\n}"
#define IXA_EXAMPLE_TRANSPOSE                                           \
  "HloModule m\\nfused {\\n p0 = f32[64,128] parameter(0)\\n ROOT t = " \
  "f32[128,64] transpose(p0), dimensions={1,0}\\n}\\nENTRY e {\\n p = " \
  "f32[64,128] parameter(0)\\n ROOT f = f32[128,64] fusion(p), "        \
  "kind=kInput, calls=fused\\n}"

// Request fields shared by the ops that read an HLO module.
const FieldDoc kHlo{"hlo", "string", "",
                    "the HLO module text (XLA's text form)"};
const FieldDoc kFusion{
    "fusion", "string",
    "the entry root fusion, or the entry computation itself when its root "
    "is no fusion",
    "the fusion instruction, or the fused computation's name"};
const FieldDoc kInstructions{
    "instructions", "list of strings", "not used",
    "entry instructions to treat as one fusion (e.g. a producer and its "
    "consumer, as a fusion pass asks before it fuses); listed fusions are "
    "inlined, so the instructions inside them count (a reduction fused in "
    "the producer makes the pair a reduction); the root is the one no other "
    "listed instruction uses; takes precedence over `fusion`"};
const FieldDoc kDevice{
    "device", "string or object", "\"h100\"",
    "a device's name (`ixa devices` lists them; `--devices FILE` adds "
    "more) or an object with the device's fields (see Devices), starting "
    "from a known device with `base`: {\"base\": \"h100\", \"dram_gbps\": "
    "2000}; unknown fields of the object are bad_request"};
const FieldDoc kMap{"map", "map", "", "an indexing map in XLA's text form"};
const FieldDoc kModel{
    "model", "string", "\"ixa\"",
    "the cost model: `ixa` (exact reads from the indexing maps, coalescing "
    "per operand, per-op throughput, occupancy and caches; its departures "
    "from XLA's model are listed in `notes`) or `xla` (XLA's GPU "
    "performance model, exactly)"};

const FieldDoc kPrefusion{
    "prefusion", "bool", "true",
    "run XLA's pre-fusion pipeline on the module first (see the prefusion "
    "op): dots to cuBLAS GEMMs, reduces canonicalized and split within "
    "their race-free bounds, as XLA's fusion sees them (fusion_cost: only "
    "for a whole module, not a fusion or `instructions`); false plans or "
    "costs the module as written"};
const ResponseFieldDoc kPrefusionOut{
    "prefusion", "list of {pass, instruction, what}",
    "the pre-fusion rewrites made first, when there were any (see the "
    "prefusion op)"};

const ResponseFieldDoc kMapOut{"map", "map",
                               "the resulting map, printed canonically"};
const ResponseFieldDoc kChanged{"changed", "bool",
                                "whether the op changed the map"};
const ResponseFieldDoc kUnknownOut{
    "unknown", "list of {parameter, name, reason}",
    "operands the analysis could not read through (e.g. behind a "
    "custom-call), with why; the rest of the answer stands"};
const ResponseFieldDoc kDeviceOut{"device", "string",
                                  "the name of the device used"};
const ResponseFieldDoc kEmitterOut{
    "emitter", "string",
    "XLA:GPU's emitter for the fusion: loop, transpose, reduction, scatter, "
    "concatenate, in_place_dynamic_update_slice or input_slices"};
const ResponseFieldDoc kReductionKindOut{
    "reduction_kind", "string", "reductions only: row, multi_row or column"};
const ResponseFieldDoc kLaunchOut{
    "launch", "object",
    "{threads: [x, y, z], blocks: [x, y, z], shared_memory_bytes, unroll, "
    "vector_size}: the kernel's launch dimensions; vector_size is the "
    "widest vector the emitted code loads or stores with (for packed "
    "sub-byte elements, the lanes of the whole bytes a thread reads or "
    "writes at once; emit reports the same launch for the same fusion)"};

std::vector<OpDoc> BuildAlgebraDocs() {
  return {
      {"parse",
       "algebra",
       "Reads a map and prints it canonically (not simplified).",
       {kMap},
       {kMapOut},
       R"j({"id": 1, "op": "parse", "map": "(d0)[s0] -> (d0 + s0 * 4), domain: d0 in [0, 3], s0 in [0, 7]"})j"},
      {"simplify",
       "algebra",
       "Simplifies a map using the ranges of its variables; the result "
       "equals the input at every point of the domain.",
       {kMap,
        {"explain", "bool", "false",
         "also return the rewrites applied, in order"}},
       {kMapOut,
        kChanged,
        {"trace", "list of {rule, before, after}",
         "with explain: each rewrite, its rule id and the expression before "
         "and after"},
        {"budget_exhausted", "bool",
         "present (true) when the rewrite budget ran out; the map is still "
         "equal to the input"}},
       R"j({"id": 2, "op": "simplify", "map": "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]"})j"},
      {"compose",
       "algebra",
       "Composes maps in list order: the first is applied first, its "
       "results feed the second's dims, and so on; the result is "
       "simplified.",
       {{"maps", "list of maps", "", "two or more maps"}},
       {kMapOut},
       R"j({"id": 3, "op": "compose", "maps": ["(d0) -> (d0 floordiv 4, d0 mod 4), domain: d0 in [0, 15]", "(d0, d1) -> (d1 * 4 + d0), domain: d0 in [0, 3], d1 in [0, 3]"]})j"},
      {"evaluate",
       "algebra",
       "Evaluates a map at one point.",
       {kMap,
        {"dims", "list of ints", "", "one value per dim"},
        {"symbols", "list of ints", "[] (the map must have no symbols)",
         "one value per symbol (range variables, then runtime variables)"}},
       {{"results", "list of ints", "one value per result expression"},
        {"in_domain", "bool",
         "whether the point satisfies the domain and the constraints"}},
       R"j({"id": 4, "op": "evaluate", "map": "(d0) -> (d0 floordiv 2, d0 mod 2)", "dims": [-7]})j"},
      {"is_empty",
       "algebra",
       "Decides exactly whether a map's domain (with its constraints) has "
       "a point.",
       {kMap},
       {{"empty", "bool", "true only when no point satisfies the domain"}},
       R"j({"id": 5, "op": "is_empty", "map": "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [25, 30]"})j"},
      {"equivalent",
       "algebra",
       "Decides whether two maps over the same variables have the same "
       "domain and the same results at every point of it.",
       {{"a", "map", "", "the first map"}, {"b", "map", "", "the second map"}},
       {{"equivalent", "bool", "the decision (exact)"},
        {"counterexample", "{dims, symbols}",
         "when not equivalent: a point where the maps differ"}},
       R"j({"id": 6, "op": "equivalent", "a": "(d0) -> (d0 floordiv 4), domain: d0 in [0, 15]", "b": "(d0) -> (d0 floordiv 2 floordiv 2), domain: d0 in [0, 15]"})j"},
      {"interval",
       "algebra",
       "Interval arithmetic as the simplifier does it (int64, saturating "
       "at the limits).",
       {{"fn", "string", "",
         "add, mul, floordiv, mod, min, max, union, intersect, gt, lt, ge, "
         "le, eq or ne"},
        {"args", "list of two [lo, hi]", "", "the two intervals"}},
       {{"result", "[lo, hi], bool or null",
         "an interval; for comparisons true, false, or null when the "
         "answer differs across the intervals' points"}},
       R"j({"id": 7, "op": "interval", "fn": "floordiv", "args": [[-7, 9], [2, 4]]})j"},
      {"bounds",
       "algebra",
       "The range of each result (or of one expression) over the map's "
       "domain.",
       {kMap,
        {"expr", "string", "the map's results",
         "an affine expression over the map's variables"}},
       {{"results", "list of [lo, hi] or null",
         "one interval per result (or for expr); null where the domain is "
         "empty"},
        {"exact", "bool",
         "true when every interval is exact; otherwise each is a sound "
         "over-approximation"}},
       R"j({"id": 8, "op": "bounds", "map": "(d0) -> (d0 mod 8, d0 floordiv 8), domain: d0 in [0, 20]"})j"},
      {"remove_unused_symbols",
       "algebra",
       "Removes the symbols no result or constraint uses.",
       {kMap},
       {kMapOut, kChanged},
       R"j({"id": 9, "op": "remove_unused_symbols", "map": "(d0)[s0, s1] -> (d0 + s1), domain: d0 in [0, 3], s0 in [0, 1], s1 in [0, 2]"})j"},
      {"remove_unused_vars",
       "algebra",
       "Removes the dims and symbols no result or constraint uses.",
       {kMap},
       {kMapOut, kChanged},
       R"j({"id": 10, "op": "remove_unused_vars", "map": "(d0, d1)[s0] -> (d1), domain: d0 in [0, 3], d1 in [0, 5], s0 in [0, 1]"})j"},
      {"rescale_symbols",
       "algebra",
       "Replaces a symbol constrained to a residue class (s mod k == c) by "
       "a symbol with a step of one.",
       {kMap},
       {kMapOut, kChanged},
       R"j({"id": 11, "op": "rescale_symbols", "map": "(d0)[s0] -> (s0), domain: d0 in [0, 3], s0 in [0, 20], s0 mod 4 in [1, 1]"})j"},
      {"convert_symbols_to_dims",
       "algebra",
       "Turns symbols into dims (XLA's ConvertRangeVariablesToDimensions "
       "when `symbols` is given).",
       {kMap,
        {"symbols", "list of ints",
         "every symbol (range, then runtime variables)",
         "indices of the range variables to convert"}},
       {kMapOut, kChanged},
       R"j({"id": 12, "op": "convert_symbols_to_dims", "map": "(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 3], s0 in [0, 3]"})j"},
  };
}

std::vector<OpDoc> BuildHloDocs() {
  const ResponseFieldDoc maps_entry{
      "operands", "list of {operand, name, maps}",
      "output_to_input: per operand, its distinct maps from the output "
      "index to the operand index; an operand the analysis cannot index has "
      "`unknown: true` and `reason` instead of maps; all-gather operands "
      "also carry `replica_maps` (which replica of the group holds the "
      "element): XLA's `d mod n` map with the replica map `d floordiv n`, "
      "or with `all_gather: \"per_source\"` one map per source replica, "
      "over its block of the gathered dim, with its replica map (up to 16 "
      "replicas)"};
  const FieldDoc all_gather_field{
      "all_gather", "string", "\"xla\"",
      "the form of all-gather's maps: \"xla\" (XLA's: one map per operand "
      "reading the gathered dim modulo the operand's size, and a replica "
      "map `d floordiv n`) or \"per_source\" (one map per source replica "
      "k, `d - k*n` over block k, with the replica map `k`; past 16 "
      "replicas XLA's form)"};
  return {
      {"indexing",
       "hlo",
       "The indexing maps of one HLO instruction, in either direction.",
       {kHlo,
        {"instruction", "string",
         "the entry root, or the root of `fusion`'s computation",
         "the instruction's name"},
        kFusion,
        {"direction", "string", "\"output_to_input\"",
         "output_to_input or input_to_output"},
        {"operand", "int",
         "every operand (output_to_input); 0 (input_to_output)",
         "which operand"},
        {"output", "int", "0 (output_to_input); every output (input_to_output)",
         "which output of a multi-output instruction"},
        {"physical_layout", "bool", "false",
         "map physical (layout-ordered) indices instead of logical ones"},
        all_gather_field},
       {maps_entry,
        {"outputs", "list of {output, maps}",
         "input_to_output: per output, the maps from the operand index to "
         "the output index"}},
       R"j({"id": 13, "op": "indexing", "hlo": ")j" IXA_EXAMPLE_BROADCAST
       R"j("})j"},
      {"fusion_indexing",
       "hlo",
       "The maps from a fusion's output to each of its parameters (and to "
       "every instruction inside it).",
       {kHlo,
        kFusion,
        kInstructions,
        {"output", "int", "0", "which output of a multi-output fusion"},
        {"all_instructions", "bool", "false",
         "also the maps to every instruction of the computation"},
        {"group_by_producer", "bool", "false",
         "also the root's operand maps grouped by producing instruction"},
        all_gather_field},
       {{"parameters", "list of {parameter, name, maps}",
         "per fusion parameter, its distinct maps (or `unknown: true` and "
         "`reason`); one read through an all-gather (XLA's form) also has "
         "`replica_maps`, which replica holds the element, as maps of the "
         "root's output index (one per all-gather on the way), and "
         "`replica_maps_by_collective`, the same as a list of {collective, "
         "maps}: the all-gather (or all-to-all) whose member each names, "
         "the outer one of a chain first"},
        {"instructions", "list of {name, maps}",
         "with all_instructions: root first, the maps from the root's output "
         "to each instruction's output"},
        {"groups", "list of {producer, maps}",
         "with group_by_producer: the root's operand maps by producer"}},
       R"j({"id": 14, "op": "fusion_indexing", "hlo": ")j" IXA_EXAMPLE_FUSION
       R"j("})j"},
      {"partition",
       "hlo",
       "Splits a fused computation into subgraphs that share one indexing "
       "(XLA's PartitionedComputation).",
       {kHlo, kFusion},
       {{"subgraphs", "list of {root, instructions}",
         "each subgraph's root and its instruction names"}},
       R"j({"id": 15, "op": "partition", "hlo": ")j" IXA_EXAMPLE_FUSION
       R"j("})j"},
      {"thread_indexing",
       "plans",
       "XLA:GPU's emitter plan of a fusion: the emitter, the launch, and "
       "the maps from thread and block ids to each root, hero operand and "
       "parameter.",
       {kHlo, kFusion, kInstructions, kDevice},
       {kDeviceOut,
        kEmitterOut,
        kReductionKindOut,
        kLaunchOut,
        {"roots", "list of {root, name, hero, output, hero_operands}",
         "per root: its hero, the map from the ids (th_x, th_y, th_z, bl_x, "
         "bl_y, bl_z) and the emitter's symbols to the root's output index, "
         "and one map per hero operand (null where the emitter has none); "
         "reductions add `group`"},
        {"parameters", "list of {parameter, name, maps}",
         "the maps from the ids to each parameter's index (`not_read` when "
         "the kernel never reads it, `unknown` and `reason` when it cannot "
         "be indexed)"},
        {"shared_tiles",
         "list of {owner, operand, type, dims, bytes, logical_dims, layout, "
         "xla_bytes, layout_reason}",
         "shared-memory tiles of transposes and reductions: `dims` as "
         "allocated (one dim, the layout's elements, where the tile is "
         "addressed through flat offsets), `logical_dims` its coordinates, "
         "`layout` row_major, pad P (XLA's pads the tile by one column), "
         "rotate R or Swizzle<B,M,S>: the layout with the fewest bank "
         "wavefronts of the tile's write and read, then the least memory, "
         "never more than XLA's padded tile (`xla_bytes`); `layout_reason` "
         "says why (docs/emitters.md \"Shared tiles and banks\")"},
        {"transpose", "object",
         "transposes: {dims, permutation, input_dims, block_sizes, "
         "block_counts, generalized (true for a form other than 021 and "
         "210; absent otherwise)}"},
        {"reduction", "object",
         "reductions: {dims, threads_reduced, threads_kept, tile, "
         "block_counts, groups}"},
        {"loop_config", "object",
         "loop fusions: {unroll, few_waves, row_vectorized}"}},
       R"j({"id": 16, "op": "thread_indexing", "hlo": ")j" IXA_EXAMPLE_TRANSPOSE
       R"j("})j"},
  };
}

std::vector<OpDoc> BuildUseDocs() {
  const ResponseFieldDoc cost_fields[] = {
      {"model", "string", "the cost model that answered: ixa or xla"},
      {"bytes_read", "int",
       "bytes the kernel reads (ixa: distinct bytes; xla: Σ bytes_total)"},
      {"bytes_moved", "number",
       "bytes moved between DRAM and L2, counting whole sectors (xla: the "
       "first reads divided by the coalescing rate)"},
      {"bytes_written", "int", "bytes the kernel writes"},
      {"bytes_accessed", "int",
       "xla only: the kernel's bytes as XLA's cost analysis reports them (its "
       "part of the module-level bytes_accessed): bytes_read + "
       "bytes_written, plus in a fusion every constant of more than 8 "
       "elements"},
      {"flops", "int", "operations (xla: flop equivalents of the op profiles)"},
      {"blocks_per_core", "int", "blocks resident per core (SM)"},
      {"waves", "int", "waves of blocks over the device's cores"},
      {"active_fraction", "number",
       "fraction of the device's cores the grid keeps busy"},
      {"time_us", "number",
       "estimated kernel time without launch overhead, in microseconds (the "
       "same as exec_us)"},
      {"exec_us", "number",
       "the kernel's execution time, in microseconds: compute and memory "
       "combined (xla: compute + memory - 0.95 * min of the two)"},
      {"memory_us", "number",
       "the memory part: reads and writes, in microseconds"},
      {"write_us", "number", "the write part of memory_us, in microseconds"},
      {"compute_us", "number", "the compute part, in microseconds"},
      {"launch_overhead_us", "number",
       "the launch overhead a plan adds per kernel (not in exec_us), in "
       "microseconds"},
      {"operands",
       "list of {parameter, name, bytes_total, bytes_net, "
       "read_time_us, coalesced, utilization}",
       "per operand: the bytes read with re-reads (bytes_total) and without "
       "(bytes_net, read from DRAM), its read time in microseconds, whether "
       "its reads coalesce, and its utilization (reads per element)"},
      {"coalescing", "list", "ixa: per operand, as the coalescing op answers"},
      {"utilization", "list",
       "ixa: per operand, as the utilization op answers"},
      {"notes", "list of strings",
       "ixa: each departure from XLA's model that changed this estimate; "
       "xla: empty"},
      {"flops_unknown", "string",
       "present when flops miss some instructions, naming why"},
      {"time_unknown", "string",
       "xla: present when XLA's cost is undefined (a custom call of unknown "
       "cost), naming why; the times are then not meaningful"},
      {"note", "string",
       "present when the fusion was costed with another emitter's plan (or, "
       "xla, XLA's fallback launch)"}};
  std::vector<ResponseFieldDoc> cost(std::begin(cost_fields),
                                     std::end(cost_fields));
  std::vector<ResponseFieldDoc> fusion_cost = {kDeviceOut, kEmitterOut,
                                               kReductionKindOut, kLaunchOut};
  fusion_cost.insert(fusion_cost.end(), cost.begin(), cost.end());
  fusion_cost.push_back(kUnknownOut);
  fusion_cost.push_back(
      {"kernels", "list of {name, emitter, time_us}",
       "when the pre-fusion pipeline split the entry computation into "
       "several kernels (a long reduction, a GEMM): XLA's fusion plan of "
       "it, each kernel with its time; the report's times, bytes and flops "
       "are then sums over these kernels, its operand lists and launch the "
       "last kernel's"});
  fusion_cost.push_back(kPrefusionOut);
  return {
      {"utilization",
       "uses",
       "How much of each parameter a fusion reads, counted exactly.",
       {kHlo, kFusion, kInstructions},
       {{"operands",
         "list of {parameter, name, elements_total, elements_read, reads, "
         "utilization, method}",
         "per parameter: its element count, the distinct elements read, "
         "the reads (with repeats), elements_read / elements_total, and how "
         "it was counted; `depends_on_runtime` when runtime values decide"},
        kUnknownOut},
       R"j({"id": 17, "op": "utilization", "hlo": ")j" IXA_EXAMPLE_FUSION
       R"j("})j"},
      {"coalescing",
       "uses",
       "Whether each parameter's reads coalesce, read through the emitter's "
       "thread mapping (or one output tile).",
       {kHlo,
        kFusion,
        kInstructions,
        kDevice,
        {"launch", "{threads_per_block, blocks, unroll?}",
         "the emitter's choice", "a loop launch to analyse instead"},
        {"tile_sizes", "list of ints", "not used",
         "analyse the reads of one output tile of these sizes; a size may "
         "exceed the output's dim: the overhang is masked (the tile is "
         "analysed clipped to the output); a size below 1 is "
         "invalid_argument"}},
       {kDeviceOut,
        kEmitterOut,
        kReductionKindOut,
        kLaunchOut,
        {"operands",
         "list of {parameter, name, coalesced, transactions_per_warp_request, "
         "bytes_requested, bytes_useful, efficiency}",
         "per parameter: the verdict, the 32-byte transactions of one warp "
         "request, bytes moved and bytes used (efficiency = useful / "
         "requested); with tile_sizes also bandwidth_utilization; "
         "`not_read` when the kernel never reads it"},
        kUnknownOut},
       R"j({"id": 18, "op": "coalescing", "hlo": ")j" IXA_EXAMPLE_TRANSPOSE
       R"j(", "device": "a100"})j"},
      {"tile",
       "uses",
       "Symbolic tiles (XLA's SymbolicTile / SymbolicTileAnalysis): of each "
       "parameter, or of every instruction, for a tile of the output; of "
       "one map; or of the outputs for a tile of a parameter.",
       {{"hlo", "string", "required unless `map` is given",
         "the HLO module text (XLA's text form)"},
        kFusion,
        kInstructions,
        {"map", "map", "not used",
         "an indexing map instead of `hlo`: its symbolic tile "
         "(SymbolicTile::FromIndexingMap), its dims being the output tile's"},
        {"output", "int", "0", "which output of a multi-output fusion"},
        {"tile", "{sizes, strides?}",
         "required with `hlo`; optional with `map`",
         "the output tile (input_to_output: the parameter's tile): sizes per "
         "dim, strides (default 1). A size above its dim covers the dim whole "
         "(XLA masks the overhang); the tiles are then those of the dim's "
         "extent"},
        {"tile_instructions", "\"all\" or list of strings",
         "only the parameters (`operands`)",
         "the instructions whose tiles to return (`instructions`): \"all\", "
         "or names, `<fusion>/<name>` inside a nested fusion. Not to be "
         "confused with `instructions`, which picks the entry instructions "
         "analysed as one fusion"},
        {"contraction_sizes", "list of ints or {dot: list of ints}",
         "contracting dims are read whole",
         "tile sizes of the contracting dims of the dots (one per lhs "
         "contracting dim, in its order): a list for every dot, or an object "
         "by dot name. Each becomes a tile dim after the output's (see "
         "`tile_dims`), its block id k<j> the step of the contraction loop"},
        {"reduction_sizes", "list of ints or {reduce: list of ints}",
         "reduced dims are read whole",
         "tile sizes of the reduced dims of the reduces (one per reduced dim, "
         "ascending), as contraction_sizes"},
        {"check", "bool", "false",
         "also say whether the sizes satisfy every instruction's constraints "
         "(`check`)"},
        {"direction", "string", "\"output_to_input\"",
         "\"input_to_output\": the tiles of the root's outputs read from the "
         "tile `tile` of parameter `parameter`"},
        {"parameter", "int or string", "not used",
         "input_to_output: the parameter (index or name) `tile` tiles"}},
       {{"operands",
         "list of {parameter, name, map, offsets, sizes, strides, "
         "constraints, tile_map, values, satisfied}",
         "per parameter: symbolic offsets, sizes and strides (expressions "
         "of the tile sizes d<k>), the constraints under which the tile is "
         "exact (conjunctive: each string a disjunction that must hold), the "
         "tile map, the values at the origin for the given sizes and whether "
         "the constraints hold; `superset` and `xla_would_refuse` as in "
         "`instructions`; `unsupported` instead where no tile exists"},
        kUnknownOut,
        {"tile_dims", "list of {dim, kind, index, extent, size, instruction?}",
         "with tile_instructions or tiled reductions / contractions: the "
         "tile space: d<k> per output dim (kind "
         "output), then per tiled reduced / contracting dim (kind reduction "
         "or contraction, its reduce or dot and the dim's index in its first "
         "operand)"},
        {"instructions", "list of {name, opcode, parameter?, tiles | unknown}",
         "with tile_instructions: operands before users (the root last); "
         "per distinct tile: `map` (tile space to the instruction's output), "
         "`offsets` (a map from the tile's block ids b<k> (and k<j>) and the "
         "runtime variables to the offsets), `sizes` and `strides` at the "
         "given sizes (a size above its dim is kept, as XLA's tiles overhang "
         "the dim and mask the overhang; then `clipped_sizes` gives the "
         "extent inside the dims), `symbolic` {offsets, sizes, strides} over "
         "the tile sizes, `tile_map`, `constraints` (XLA's disjunctive form: "
         "a list of "
         "conjunctions, any of which may hold; [] when nothing constrains the "
         "sizes), `satisfiable` (some sizes satisfy them; null when "
         "undecided), `satisfied` (the given sizes do), `superset` with "
         "`superset_reason` where the tile may name elements not read "
         "(masked), `xla_would_refuse` where XLA gives no tile (or rejects "
         "these sizes) but this tile is exact; `unsupported` instead of a "
         "tile where none exists, `unknown` where no map reaches the "
         "instruction. A tile names exactly what its block reads (a block "
         "overhanging the output excepted)"},
        {"constraints", "list of lists of strings, or null",
         "with tile_instructions: every instruction's constraints ANDed, in "
         "disjunctive form (null past 4096 conjunctions: then "
         "`constraints_conjunctive` lists the clauses)"},
        {"satisfiable", "bool or null",
         "with tile_instructions: some sizes tile every instruction"},
        {"satisfied", "bool",
         "with tile_instructions: the given sizes tile every instruction"},
        {"no_tiling", "string",
         "present when an instruction has no tile or no map: the first, "
         "with why (XLA bails out there)"},
        {"xla_would_refuse", "string",
         "present where XLA's analysis bails out where this one answers: the "
         "first instruction, with why (a negative stride, a concatenate "
         "whose operands are no whole number of tiles, a pad outside a GEMM "
         "fusion, a reshape without a tile of its own, a root that is a "
         "fusion, a multi-output fusion whose outputs cannot share the "
         "tile); `check.xla_valid` is then false"},
        {"check", "{valid, failing, xla_valid, reason?}",
         "with check: whether the sizes tile the fusion, the failing "
         "constraints {instruction, constraint}, and whether XLA's "
         "constraints hold too"},
        {"tile", "object or null",
         "with map: the map's tile (fields as one tile of `instructions`; "
         "offsets, sizes, strides and satisfied with `tile` only), or null "
         "with `reason`"},
        {"outputs", "list of {output, tiles | unknown}",
         "input_to_output: per root output its tiles (as in "
         "`instructions`), with `parameter` and `name`"}},
       R"j({"id": 19, "op": "tile", "hlo": ")j" IXA_EXAMPLE_FUSION
       R"j(", "tile": {"sizes": [8, 16]}})j"},
      {"valid_tilings",
       "uses",
       "Every output tile-size vector (powers of two up to each dim by "
       "default) that tiles every instruction of a fusion, with the "
       "constraints evaluated.",
       {kHlo,
        kFusion,
        kInstructions,
        {"output", "int", "0", "which output of a multi-output fusion"},
        {"strides", "list of ints", "all 1", "the output tile's strides"},
        {"candidates", "list of ints, or one list per output dim",
         "1, 2, 4, ... up to the first power of two at or above the dim",
         "the sizes to try per dim"},
        {"contraction_sizes", "list of ints or {dot: list of ints}",
         "contracting dims are read whole",
         "fixed tile sizes of contracting dims, as in `tile`"},
        {"reduction_sizes", "list of ints or {reduce: list of ints}",
         "reduced dims are read whole",
         "fixed tile sizes of reduced dims, as in `tile`"},
        {"limit", "int", "1000", "list at most this many tilings"}},
       {{"tile_dims", "list of {dim, kind, index, extent, instruction?}",
         "the tile space, as in `tile`"},
        {"constraints", "list of lists of strings, or null",
         "every instruction's constraints in disjunctive form, as in `tile`"},
        {"satisfiable", "bool or null", "some sizes tile the fusion"},
        {"tried", "int", "the candidate vectors tried"},
        {"count", "int", "how many tile the fusion"},
        {"tilings", "list of {sizes, blocks, conjunction?, xla_valid}",
         "the first `limit` of them: the output tile sizes, the number of "
         "blocks, the first conjunction of `constraints` that holds, and "
         "whether XLA's constraints hold too"},
        {"truncated", "bool", "present (true) when count > limit"},
        {"reason", "string",
         "present when an instruction has no tile: then no sizes tile the "
         "fusion"},
        {"xla_would_refuse", "string", "as in `tile`"}},
       R"j({"id": 36, "op": "valid_tilings", "hlo": ")j" IXA_EXAMPLE_SOFTMAX
       R"j("})j"},
      {"fusion_cost",
       "uses",
       "A time estimate of a fusion on a device, with its parts. A module "
       "whose entry computation is no fusion goes through XLA's pre-fusion "
       "pipeline first: when it splits the entry into several kernels (a "
       "long reduction, a GEMM), they are costed as XLA's fusion plan of "
       "them. A fusion or a group of `instructions` is costed as written.",
       {kHlo, kFusion, kInstructions, kDevice, kModel, kPrefusion},
       fusion_cost,
       R"j({"id": 20, "op": "fusion_cost", "hlo": ")j" IXA_EXAMPLE_FUSION
       R"j(", "device": "h100"})j"},
      {"fusion_decision",
       "uses",
       "Whether to fuse a producer into its consumers: XLA's legality "
       "rules, then the kernels unfused against the producer fused into "
       "every consumer.",
       {kHlo,
        {"producer", "string", "", "the producer's name (entry computation)"},
        {"consumer", "string", "every user of the producer",
         "only this consumer (it must use the producer, directly or through "
         "a get-tuple-element); the producer then stays for its other "
         "users"},
        kDevice,
        kModel},
       {kDeviceOut,
        {"model", "string", "the cost model that answered: ixa or xla"},
        {"producer", "string", "the producer's name"},
        {"consumer", "string", "the consumer asked about, when one was"},
        {"consumers", "list of strings",
         "the consumers the producer is fused into (its users, through "
         "get-tuple-elements too)"},
        {"legal", "bool", "whether XLA's legality rules allow every fusion"},
        {"rule", "string",
         "when not legal: the first rule that refuses (root, not_fusible, "
         "bitcast_consumer, scatter, reduce_into_reduce, reduction_epilogue, "
         "budget_shared_memory, budget_reductions, budget_operands, ir_size, "
         "in_place)"},
        {"reason", "string", "when not legal: why, naming the consumer"},
        {"fuse", "bool", "legal, and the fused plan is not slower"},
        {"times_known", "bool",
         "whether every kernel could be costed (else the times are null)"},
        {"speedup", "number or null",
         "unfused time / fused time; null when not legal (the rules forbid "
         "the fused kernel: see rule) or when times_known is false"},
        {"priority_us", "number or null",
         "XLA's priority: unfused time - fused time, in microseconds; null "
         "when not legal or when times_known is false"},
        {"unfused", "object",
         "{time_us, kernels, launch_overhead_us, memory_us, compute_us, "
         "bytes_read, bytes_written, producer, consumer, consumers}: times "
         "in microseconds, bytes; producer, consumer (the first) and "
         "consumers are fusion_cost reports"},
        {"fused", "object",
         "the first consumer's fused kernel as a fusion_cost report, with "
         "the plan's kernel_us (the fused kernels' time), time_us (with "
         "launch overhead and the kept producer, microseconds), kernels, "
         "launch_overhead_us, producer_kept (it still runs), "
         "recompute_factor (computations of each producer element), "
         "producer_reads, producer_elements_read, legal (rule, reason), and "
         "consumers: one such report per consumer"},
        {"notes", "list of strings",
         "ixa: how the plan departs from XLA's view of it"}},
       R"j({"id": 21, "op": "fusion_decision", "hlo": ")j" IXA_EXAMPLE_PAIR
       R"j(", "producer": "l", "consumer": "t"})j"},
      {"fusion_plan",
       "uses",
       "XLA's priority fusion over an unfused module with the chosen cost "
       "model: the fused module and the fusions made, in order. The "
       "module goes through XLA's pre-fusion pipeline first.",
       {kHlo, kDevice, kModel, kPrefusion},
       {kDeviceOut,
        {"model", "string", "the cost model that answered: ixa or xla"},
        {"hlo", "string",
         "the fused module (XLA's text form; ixa reads it back): each "
         "kernel a fusion instruction calling its fused computation"},
        {"decisions",
         "list of {kind, producer, priority_us, producer_us, "
         "into, producer_kept}",
         "the fusions made, in order: kind fuse (a producer into all its "
         "users), bitcast or constant; priority_us the time saved "
         "(microseconds; null for bitcasts and constants), producer_us the "
         "producer's kernel time, into the consumers as {consumer, fusion, "
         "consumer_us, fused_us}, producer_kept when some users did not "
         "take it"},
        {"kernels_before", "int", "kernels of the module before fusion"},
        {"kernels_after", "int", "kernels after"},
        {"time_before_us", "number",
         "Σ kernel times plus 1 us launch each, before, in microseconds "
         "(null when some kernel could not be costed)"},
        {"time_after_us", "number", "the same after fusion"},
        {"refusals", "object",
         "producers left unfused, counted by the legality rule that refused "
         "them"},
        kPrefusionOut},
       R"j({"id": 22, "op": "fusion_plan", "hlo": ")j" IXA_EXAMPLE_PLAN
       R"j(", "model": "xla"})j"},
      {"prefusion",
       "uses",
       "XLA:GPU's pipeline between layout assignment and fusion, the part "
       "that shapes fusion (docs/prefusion.md): first the ops XLA never "
       "emits as written are expanded into plain HLO (BatchNormExpander, "
       "TopkDecomposer, StochasticConvertDecomposer, "
       "SelectAndScatterExpander); matrix multiplications "
       "become cuBLAS GEMM custom calls (GemmRewriter); scatter and gather "
       "batching dims become index components read from an iota "
       "(BatchedGatherScatterNormalizer) and scatters take XLA's simplified "
       "form, indices [n, size] and updates [n, operand window] "
       "(ScatterSimplifier); reduces lose their "
       "size-1 dims (ReductionDegenerateDimRemover), read their operand in "
       "the default layout (ReductionLayoutNormalizer), merge adjacent "
       "reduced dims (ReductionDimensionGrouper), reduce non-contiguous dims "
       "in two steps (ReductionSplitter), and a reduction past its "
       "race-free bound becomes two (TreeReductionRewriter, XLA's k1 x k2 "
       "choice). Like XLA, the reduce rewrites take a reduce's init to be "
       "its reducer's identity.",
       {kHlo,
        {"gemms", "bool", "true",
         "rewrite dots into cuBLAS GEMM calls; false leaves every dot"}},
       {{"hlo", "string",
         "the rewritten module (XLA's text form; ixa reads it back); new "
         "instructions are named after the one rewritten, which keeps its "
         "name"},
        {"changed", "bool", "whether any pass rewrote anything"},
        {"rewrites", "list of {pass, instruction, what}",
         "each rewrite, in order: XLA's pass name, the instruction "
         "rewritten and what became of it"}},
       R"j({"id": 23, "op": "prefusion", "hlo": "HloModule m\nadd {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n p = f32[64,65536] parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[64] reduce(p, z), dimensions={1}, to_apply=add\n}"})j"},
  };
}

}  // namespace

std::vector<OpDoc> BuildLayoutDocs();        // op_docs_layouts.cc
std::vector<OpDoc> BuildLinearLayoutDocs();  // op_docs_linear_layout.cc

const std::vector<OpDoc>& OpDocs() {
  static const std::vector<OpDoc>* docs = [] {
    auto* all = new std::vector<OpDoc>;
    for (auto part : {BuildAlgebraDocs(), BuildHloDocs(), BuildUseDocs(),
                      BuildLayoutDocs(), BuildLinearLayoutDocs()}) {
      for (OpDoc& op : part) all->push_back(std::move(op));
    }
    return all;
  }();
  return *docs;
}

const OpDoc* FindOpDoc(std::string_view name) {
  for (const OpDoc& op : OpDocs()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const std::vector<FieldDoc>& CommonFieldDocs() {
  static const std::vector<FieldDoc> fields = {
      {"id", "any JSON value", "null",
       "echoed in the response, to match responses to requests"},
      {"op", "string", "", "the op"},
      {"syntax", "string", "the batch's --syntax (affine)",
       "how maps print in the response: affine (`floordiv`) or symbolic "
       "(XLA's 2026 form with `/`)"}};
  return fields;
}

const std::vector<ErrorCodeDoc>& ErrorCodeDocs() {
  static const std::vector<ErrorCodeDoc> codes = {
      {"bad_json",
       "the line is not JSON; `line` is the line's number in the batch "
       "(counting every line, blank ones too) and `column` the byte in it"},
      {"bad_request",
       "the request is not a valid request: an unknown op or field, missing "
       "fields (all listed), a field of the wrong type"},
      {"parse_error",
       "map, expression or HLO text that does not parse; `line` and "
       "`column` locate the error in that text"},
      {"invalid_argument",
       "well-formed but meaningless input: a zero divisor, a rank mismatch, "
       "an instruction that does not exist"},
      {"unsupported", "valid input the engine does not handle, naming what"},
      {"limit_exceeded", "a size or time budget was hit, naming which"},
      {"internal", "a bug in ixa: the message says what broke"}};
  return codes;
}

}  // namespace ixa::cli
