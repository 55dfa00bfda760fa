// XLA:GPU's pre-fusion pipeline, the part that shapes fusion
// (docs/prefusion.md): priority fusion never sees a module as written.
// Ops XLA never emits as written are expanded into plain HLO first
// (batch norms, topk, stochastic converts, select-and-scatters).
// Dots a BLAS library serves become cuBLAS GEMM custom calls; scatters
// and gathers lose their batching dims and scatters take XLA's simplified
// form (the one its scatter emitter takes); reduces lose their size-1
// dims, get the default layout on their operands and adjacent reduced dims
// merged; reduces over non-contiguous dims are split
// (ReductionSplitter), and reductions past their race-free bound become
// two reductions (TreeReductionRewriter, XLA's k1 x k2 choice). Every pass
// maps a module to a module that reads back, with the list of what it
// rewrote. Like XLA, the reduce rewrites assume a reduce's init is its
// reducer's identity (XLA applies an init an implementation-defined number
// of times).
#ifndef IXA_ANALYSIS_PREFUSION_PREFUSION_H_
#define IXA_ANALYSIS_PREFUSION_PREFUSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/hlo/module.h"
#include "core/result.h"

namespace ixa {

struct PrefusionRewrite {
  std::string pass;         // XLA's name: "TreeReductionRewriter", ...
  std::string instruction;  // the instruction rewritten (its name)
  std::string what;         // what became of it, in words
};

struct PassResult {
  // The rewritten module; nullptr when the pass changed nothing.
  std::unique_ptr<hlo::Module> module;
  std::vector<PrefusionRewrite> rewrites;
};

// The passes, in the pipeline's order. Each rewrites every computation
// of the module once; the last two run to a fixpoint in RunPrefusion.
//
// The expanders (analysis/prefusion/expanders.cc), XLA's passes of the
// same names, in the operand's type as XLA computes them.
// BatchNormExpander: batch-norm-training, -inference and -grad (f16,
// bf16, f32, f64; any feature dim) as reduces and elementwise ops.
Result<PassResult> ExpandBatchNorms(const hlo::Module& module);
// TopkDecomposer: `topk` and the `TopK` custom call as a stable sort of
// (values, s32 iota along the last dim), then slices of the first k.
Result<PassResult> DecomposeTopks(const hlo::Module& module);
// StochasticConvertDecomposer: a stochastic-convert from a float to a
// signed integer as elementwise ops on the random bits.
Result<PassResult> DecomposeStochasticConverts(const hlo::Module& module);
// SelectAndScatterExpander: a variadic reduce-window that picks each
// window's element (with its index), then a scatter of the source.
Result<PassResult> ExpandSelectAndScatters(const hlo::Module& module);
// The dot variants (analysis/prefusion/dot_expanders.cc, where the
// formulas are documented). RaggedDotRewriter: a ragged-dot as plain dots,
// selects and reduces over the groups its group_sizes' prefix sums give.
Result<PassResult> ExpandRaggedDots(const hlo::Module& module);
// ScaledDotRewriter: a scaled-dot as each operand times its scale
// broadcast over blocks (in f32, f64 for an f64 result), then a dot.
Result<PassResult> ExpandScaledDots(const hlo::Module& module);
Result<PassResult> RewriteGemms(const hlo::Module& module);
// BatchedGatherScatterNormalizer: a scatter's or gather's batching dims
// become index components read from an iota (concatenated in front of
// the index vectors) and inserted window / collapsed slice dims.
Result<PassResult> NormalizeBatchedGatherScatter(const hlo::Module& module);
// ScatterSimplifier: every scatter in XLA's simplified form, the only one
// its scatter emitter takes (indices [n, size] with index_vector_dim 1,
// updates [n, operand window...], the index vector naming the operand's
// leading dims: operands transposed, and the results back, when not).
Result<PassResult> SimplifyScatters(const hlo::Module& module);
Result<PassResult> RemoveReductionDegenerateDims(const hlo::Module& module);
Result<PassResult> NormalizeReductionLayouts(const hlo::Module& module);
Result<PassResult> GroupReductionDimensions(const hlo::Module& module);
Result<PassResult> SplitReductions(const hlo::Module& module);
Result<PassResult> RewriteTreeReductions(const hlo::Module& module);

// A module run on one device (docs/compile.md "One device"), what
// `compile` runs first: async pairs become their synchronous op (XLA's
// ConvertAsyncCollectivesToSync; copy-start / copy-done a copy; async-start
// / -update / -done a call of the wrapped computation, or the wrapped op);
// collectives whose replica groups have one participant return their
// operands (collective-permute: a copy where the device sends to itself,
// zeros where nothing is sent); replica-id / partition-id are 0 where the
// module has one replica / partition; sharding annotations (Sharding,
// SPMDFullToShardShape, ...) of unchanged shape are copies;
// get-dimension-size of a static dim is a constant; tuple-shaped constants
// are tuples of array constants. Errors: Unsupported for what needs more
// than one device (naming how many) or a host channel (send, recv,
// infeed, outfeed), and for a shape-changing sharding annotation.
Result<PassResult> RewriteForOneDevice(const hlo::Module& module);

// XLA's race-free bounds (its reduction tiling): a row reduction
// [batch, kept, reduced] with reduced <= 16384 and batch <= 8, a column
// reduction [kept, reduced, kept] with reduced <= 4096.
inline constexpr int64_t kRowReductionRaceFreeBound = 16384;
inline constexpr int64_t kColumnReductionRaceFreeBound = 4096;
inline constexpr int64_t kBatchedReductionRaceFreeBound = 8;

// The k1 x k2 split of a reduced dim of size k (k1 * k2 >= k, padded with
// the init value): k2 is reduced first (the minor part), then k1.
std::pair<int64_t, int64_t> TreeReductionFactors(int64_t k, bool is_row);

// The smallest GEMM XLA hands to cuBLAS: a dot with
// (lhs non-contracting + rhs non-contracting) * contracting elements below
// this stays a dot (XLA's default gemm_rewrite_size_threshold).
inline constexpr int64_t kGemmRewriteSizeThreshold = 100;

struct PrefusionOptions {
  bool gemms = true;  // rewrite dots into cuBLAS GEMM calls
};

struct PrefusionResult {
  // The rewritten module; nullptr when no pass changed anything.
  std::unique_ptr<hlo::Module> module;
  std::vector<PrefusionRewrite> rewrites;
  // The module the passes leave: `module`, or the input.
  const hlo::Module& Output(const hlo::Module& input) const {
    return module ? *module : input;
  }
};

// The whole pipeline. Errors: an internal error if a rewritten module did
// not read back, a limit error if a fixpoint pass does not settle.
Result<PrefusionResult> RunPrefusion(const hlo::Module& module,
                                     const PrefusionOptions& options = {});

// RewriteForOneDevice to its fixpoint (an async collective becomes its
// synchronous op, which the next round reduces to its operand).
Result<PrefusionResult> RunOneDevice(const hlo::Module& module);

// The lowering every compiled module needs, fused or not: the expanders
// (XLA emits none of their ops) and then the scatter normalization
// (BatchedGatherScatterNormalizer, ScatterSimplifier: the scatter emitter
// takes XLA's simplified scatters only).
Result<PrefusionResult> RunCompileLowering(const hlo::Module& module);

}  // namespace ixa

#endif  // IXA_ANALYSIS_PREFUSION_PREFUSION_H_
