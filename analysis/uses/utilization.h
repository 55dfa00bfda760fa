// Operand utilization (docs/indexing.md §6, docs/xla-reference.md §(f)):
// how many distinct elements of each fusion parameter the fusion reads, and
// how many reads it issues, both counted exactly.
//
// XLA's indexing cost model estimates the elements read as a product of
// variable ranges, ignoring constraints and overlaps between maps. Here:
//   reads         = Σ over the parameter's maps of the number of domain
//                   points (dims and range variables, constraints honoured);
//   elements_read = |∪ over the maps of the image of its domain|.
// Counting method, first that applies:
//   enumeration  — every domain point of every map (after dropping variables
//                  the results do not depend on) into a bitmap / hash set;
//   product      — each map's image is a product of independent blocks of
//                  result coordinates (variables that share a result or a
//                  constraint are one block); the union is counted by
//                  inclusion–exclusion, since the intersection of products
//                  is the product of the per-block intersections;
//   injective    — a single map proven injective (simplifier/decide) reads
//                  as many distinct elements as it has domain points.
// Otherwise the count is limit_exceeded. Runtime variables (dynamic-slice
// offsets, gather indices) are fixed at their lower bound: the counts are
// for one runtime value and the operand is flagged depends_on_runtime.
#ifndef IXA_ANALYSIS_USES_UTILIZATION_H_
#define IXA_ANALYSIS_USES_UTILIZATION_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/uses/unknown_operand.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

struct UtilizationOptions {
  // Points enumerated per box (a whole map, or one block of it).
  int64_t enumeration_limit = int64_t{1} << 22;
  // Inclusion–exclusion visits up to 2^maps subsets.
  int max_inclusion_exclusion_maps = 12;
  // Try the product method before enumerating: the same exact count, at
  // the cost of each block's sub-box instead of every point (an identity
  // map over 512 x 1024 elements: 1536 points, not 524288). Off by default
  // so that `method` keeps naming enumeration where it always did.
  bool product_first = false;
};

// Replaces every runtime variable by a constant (its lower bound, or the
// midpoint of its range when `midpoint`), removing it from the map. Sets
// *had_runtime when there was one.
IndexingMap FixRuntimeVars(const IndexingMap& map, bool midpoint,
                           bool* had_runtime = nullptr);

// Exact number of points of the map's domain (the map must have no runtime
// variables). Variables linked by constraints are counted together by
// enumeration; unconstrained ones multiply. Saturates at INT64_MAX.
Result<int64_t> CountDomainPoints(const IndexingMap& map,
                                  const UtilizationOptions& options = {});

struct ImageCount {
  int64_t count = 0;
  std::string method;  // "enumeration", "product", "injective", "empty"
};

// Exact number of distinct points of the union of the maps' images (maps
// without runtime variables, all with dims.size() results), counting only
// points inside the box [0, dims).
Result<ImageCount> CountImageUnion(std::span<const IndexingMap> maps,
                                   std::span<const int64_t> dims,
                                   const UtilizationOptions& options = {});

// Is the map injective on its domain? Exact (simplifier/decide), or an
// error when the decision procedure gives up.
Result<bool> IsInjective(const IndexingMap& map);

struct OperandUtilization {
  int parameter = 0;
  std::string name;
  int64_t elements_total = 0;  // product of the parameter's dims
  int64_t elements_read = 0;   // distinct elements read
  int64_t reads = 0;           // element reads, over all maps
  double utilization = 0;      // elements_read / elements_total (1 if empty)
  std::string method;          // how elements_read was counted
  bool depends_on_runtime = false;
  int num_maps = 0;
};

// Utilization of the region's parameters, over all outputs of its root,
// answered partially (docs/protocol.md `utilization`): a parameter whose maps
// are unknown (an op without indexing maps on a path: the reason of
// ComputeFusionParameterIndexingPartial), that is not an array, or whose
// counts are beyond the budgets (the count's message) is listed in
// `unknown`; every other parameter is in `operands`, in parameter order.
// Errors: budgets of the indexing itself (the deadline, a map limit).
struct UtilizationAnalysis {
  std::vector<OperandUtilization> operands;
  std::vector<UnknownOperand> unknown;
};
Result<UtilizationAnalysis> AnalyzeUtilization(
    const FusionRegion& region, ExprContext* ctx,
    const UtilizationOptions& options = {});

// Strict: every parameter answered, else an error (unsupported: a
// parameter that is a tuple or behind an op without indexing maps;
// limit_exceeded, naming the parameter: a count beyond the budgets).
Result<std::vector<OperandUtilization>> ComputeUtilization(
    const FusionRegion& region, ExprContext* ctx,
    const UtilizationOptions& options = {});

// All maps from every output of the region's root to parameter `i`,
// deduplicated (shared with the coalescing and cost analyses). Strict.
Result<std::vector<std::vector<IndexingMap>>> AllParameterMaps(
    const FusionRegion& region, ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_UTILIZATION_H_
