// Fusion indexing (docs/indexing.md §4, docs/xla-reference.md §(e)): maps
// from a fusion's root output to each parameter and to every instruction
// inside, composed along every use path, simplified and deduplicated.
#ifndef IXA_ANALYSIS_FUSION_FUSION_H_
#define IXA_ANALYSIS_FUSION_FUSION_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/fusion/map_pool.h"
#include "analysis/hlo/module.h"
#include "analysis/indexing/indexing.h"

namespace ixa {

// A set of instructions analysed as one fusion: a whole computation, or a
// producer/consumer group of an unfused computation.
struct FusionRegion {
  const hlo::Computation* computation = nullptr;
  const hlo::Instruction* root = nullptr;
  std::vector<const hlo::Instruction*> members;  // operands before users
  // The region's inputs, in parameter order: the computation's parameters,
  // or the outside operands of an instruction group in order of first use.
  std::vector<const hlo::Instruction*> parameters;
};

// All instructions of `computation`; parameters are its parameter(i).
FusionRegion RegionOfComputation(const hlo::Computation& computation);
// Named instructions of `computation` treated as one fusion. The root is
// the one no other listed instruction uses (exactly one must exist).
Result<FusionRegion> RegionOfInstructions(
    const hlo::Computation& computation, const std::vector<std::string>& names);
// The region `fusion_indexing` analyses for `name`: a fusion instruction
// (its computation), a computation name, or (empty) the entry root fusion
// or else the entry computation.
Result<FusionRegion> ResolveFusion(const hlo::Module& module,
                                   const std::string& name);

// The part of `region` below `root` (one of its members or parameters):
// the members reachable from `root` through operands, never through `stop`
// (nullptr: none) nor past a parameter. The parameters stay the region's,
// in the same order (those not reached get no maps), so parameter indices
// of the part are those of the whole. The emitter plans read a fusion's
// parameters from a hero operand, or from a root up to its hero, this way.
FusionRegion SubRegionBelow(const FusionRegion& region,
                            const hlo::Instruction* root,
                            const hlo::Instruction* stop = nullptr);

struct GroupedIndexing {
  // Per instruction reached (members and parameters), in the order reached
  // from the root: maps from the root output to each of its outputs (one
  // set per output; a single set for arrays).
  std::vector<const hlo::Instruction*> order;
  // Partial answers (FusionIndexingOptions::allow_unknown): instructions
  // reached along some path through an op without a map, with the reason.
  // Their maps (if any) cover the known paths only: do not use them as the
  // instruction's accesses.
  std::unordered_map<const hlo::Instruction*, std::string> unknown;
  // Where the unknown answers start: the instructions reached with maps
  // that have an operand without one (a custom call, a sparse dot, ...),
  // with the first such reason. Their own work per element is not
  // modelled either (fusion_cost names them).
  std::unordered_map<const hlo::Instruction*, std::string> unknown_origins;

  // Instructions read through an all-gather (XLA's form, the default):
  // which replica of the group holds the element, as maps of the root
  // output index (the all-gather's replica maps composed with the maps
  // reaching it, as XLA composes an operand's replica-id map), also below
  // the all-gather. Chained all-gathers give one map per all-gather. None
  // in the per-source form, whose blocks name their replica.
  std::unordered_map<const hlo::Instruction*, IndexingMapSet> replica_maps;
  // The same split by the collective whose member each map names (an
  // all-gather, an all-to-all), in the order reached from the root: the
  // outer all-gather of a chain first.
  struct CollectiveReplicaMaps {
    const hlo::Instruction* collective = nullptr;
    IndexingMapSet maps;
  };
  std::unordered_map<const hlo::Instruction*,
                     std::vector<CollectiveReplicaMaps>>
      replica_maps_by_collective;

  // All maps of an instruction, every output's set flattened.
  std::vector<IndexingMap> MapsOf(const hlo::Instruction* instr) const;
  // The same deduplicated across outputs: what inserting MapsOf into one
  // IndexingMapSet gives (equal to MapsOf for a single output).
  std::vector<IndexingMap> DistinctMapsOf(const hlo::Instruction* instr) const;
  // DistinctMapsOf as ids of Map(): equal ids are the same map, so a
  // caller printing many instructions prints each distinct map once.
  std::vector<uint32_t> DistinctMapIdsOf(const hlo::Instruction* instr) const;
  const IndexingMap& Map(uint32_t id) const { return pool->map(id); }
  bool IsUnknown(const hlo::Instruction* instr) const {
    return unknown.count(instr) > 0;
  }
  // The reason an instruction is unknown, or empty.
  std::string UnknownReason(const hlo::Instruction* instr) const;

  // The walk's storage (fusion_internal::MapPool): every distinct map once,
  // and per instruction reached one set of ids per output.
  std::shared_ptr<fusion_internal::MapPool> pool;
  std::unordered_map<const hlo::Instruction*,
                     std::vector<fusion_internal::IdSet>>
      sets;
};

struct FusionIndexingOptions {
  // false: an op on a path without a map is an error (Error::Unsupported
  // naming it). true: what it reaches is marked unknown instead
  // (GroupedIndexing::unknown) and the rest is answered.
  bool allow_unknown = false;
  // More distinct maps at one instruction is Error::Limit.
  size_t max_maps_per_instruction = 4096;
  // The forms of the ops' maps (all-gather's: XLA's by default).
  IndexingOptions indexing;
};

// XLA's ComputeGroupedOutputToInputIndexing over a region. Errors: an op on
// a path without a map (unless options.allow_unknown), or more than
// options.max_maps_per_instruction distinct maps at one instruction
// (Error::Limit).
Result<GroupedIndexing> ComputeGroupedOutputToInputIndexing(
    const FusionRegion& region, int output_id, ExprContext* ctx,
    const FusionIndexingOptions& options);
// Strict (allow_unknown = false), as before partial answers existed.
Result<GroupedIndexing> ComputeGroupedOutputToInputIndexing(
    const FusionRegion& region, int output_id, ExprContext* ctx,
    size_t max_maps_per_instruction = 4096);

// Maps per region parameter (index i = parameters[i]), deduplicated.
// Strict: a parameter without a map is Error::Unsupported.
Result<std::vector<IndexingMapSet>> ComputeFusionParameterIndexing(
    const FusionRegion& region, int output_id, ExprContext* ctx);

// Maps of one region parameter or one root output: a known set, or
// unknown with the reason (then `maps` is empty).
struct PartialIndexing {
  IndexingMapSet maps;
  std::string unknown_reason;
  bool unknown() const { return !unknown_reason.empty(); }
};

// Per region parameter, partial: every parameter reached only through ops
// with maps gets its maps; the others are unknown with the reason (the
// one of the op without a map nearest the root). Errors: only budgets
// (Error::Limit, the deadline) and bad regions. This is the one way every
// use (utilization, tile, coalescing, fusion_cost, fusion_decision) and
// the emitter plans learn which parameters are unknown, and why.
Result<std::vector<PartialIndexing>> ComputeFusionParameterIndexingPartial(
    const FusionRegion& region, int output_id, ExprContext* ctx);

// Epilogue direction: from region parameter `parameter` forward to every
// output of the root (one set per root output). Strict.
Result<std::vector<IndexingMapSet>> ComputeFusionInputToOutputIndexing(
    const FusionRegion& region, int parameter, ExprContext* ctx);
// Partial: a root output reached through an op without a map is unknown.
Result<std::vector<PartialIndexing>> ComputeFusionInputToOutputIndexingPartial(
    const FusionRegion& region, int parameter, ExprContext* ctx);

// XLA's GroupIndexingMapsByProducers: the root's output-to-input maps of
// output `output_id`, grouped by the instruction producing each operand
// (in order of first use; an unknown operand makes its producer unknown).
struct ProducerGroup {
  const hlo::Instruction* producer = nullptr;
  PartialIndexing indexing;
};
Result<std::vector<ProducerGroup>> GroupIndexingMapsByProducers(
    const FusionRegion& region, int output_id, ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_FUSION_FUSION_H_
