// Per-instruction indexing maps of HLO ops (docs/indexing.md §3), in XLA's
// API shape, so that code written against XLA's reads the same:
//
//   ComputeOutputToInputIndexing(instr, output_id, ctx)
//     -> one set of maps per operand: output index -> that operand's index;
//   ComputeInputToOutputIndexing(instr, operand_id, ctx)
//     -> one set of maps per output: operand index -> output index.
//
// Maps come back simplified (Simplify, then RemoveUnusedSymbols). An op with
// no map gives Error::Unsupported naming the op; bad arguments give
// Error::Invalid. Nothing here aborts on user input.
//
// The *Partial forms answer what they can instead (XLA's "unknown
// indexing"): an operand (or output) without a map is marked unknown with
// the reason, and only bad arguments are errors.
#ifndef IXA_ANALYSIS_INDEXING_INDEXING_H_
#define IXA_ANALYSIS_INDEXING_INDEXING_H_

#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

// A set of maps kept in insertion order; Insert drops structural duplicates
// (IndexingMap::operator==).
class IndexingMapSet {
 public:
  // Returns true when the map was new: no kept map Duplicates it.
  bool Insert(IndexingMap map);
  // The rule Insert drops `candidate` by, given a `kept` map: structurally
  // equal (IndexingMap::operator==), or over the same variables and
  // runtime sources and proven equivalent (same domain, same results on
  // it) within a small decision budget — on exhaustion the two are kept
  // apart, never wrongly merged. A pure function of the two maps, so
  // callers may memoize it (analysis/fusion does, per pair of map ids).
  static bool Duplicates(const IndexingMap& kept, const IndexingMap& candidate);
  // A set of maps the caller has already deduplicated by Insert's rule
  // (analysis/fusion's IdSet does), taken as they are, without the
  // decisions a fresh Insert of each would repeat.
  static IndexingMapSet FromDistinct(std::vector<IndexingMap> maps);
  // The second half of Duplicates (without the structural test).
  static bool ProvenEquivalent(const IndexingMap& kept,
                               const IndexingMap& candidate);
  const std::vector<IndexingMap>& maps() const { return maps_; }
  size_t size() const { return maps_.size(); }
  bool empty() const { return maps_.empty(); }
  auto begin() const { return maps_.begin(); }
  auto end() const { return maps_.end(); }

 private:
  std::vector<IndexingMap> maps_;
};

struct HloInstructionIndexing {
  // Output-to-input: one set per operand. Input-to-output: one set per
  // output (a single set for array-shaped instructions).
  std::vector<IndexingMapSet> indexing_maps;
  // Per entry of indexing_maps: why it has no map; empty (or shorter than
  // indexing_maps) where the maps are known. An unknown entry's set is
  // empty.
  std::vector<std::string> unknown;
  // Collectives that read other replicas (all-gather, all-to-all), per
  // entry of indexing_maps: which replica of the group holds the element
  // the map names (XLA's replica-id map). Empty for every other op.
  std::vector<IndexingMapSet> replica_maps;

  bool IsUnknown(size_t i) const {
    return i < unknown.size() && !unknown[i].empty();
  }
  // Marks entry i unknown (clearing its maps).
  void SetUnknown(size_t i, std::string reason);
};

// Where ixa offers another form of an op's maps than XLA's (the CLI's
// request fields; docs/protocol.md). The defaults give XLA's forms.
struct IndexingOptions {
  // all-gather, output to input. false (XLA's form): one map per operand
  // reading the gathered dim modulo the operand's size, `d mod n`, with
  // the replica map `d floordiv n`. true: one map per source replica k,
  // `d - k*n` over its block `[k*n, (k+1)*n - 1]` of the gathered dim,
  // with the replica map `k` (a concatenate of the group's operands); past
  // 16 sources the single `d mod n` map stays (a budget: chains multiply).
  bool all_gather_per_source = false;
};

// Strict: an operand without a map is Error::Unsupported (its reason).
Result<HloInstructionIndexing> ComputeOutputToInputIndexing(
    const hlo::Instruction& instr, int output_id, ExprContext* ctx,
    const IndexingOptions& options = {});
Result<HloInstructionIndexing> ComputeInputToOutputIndexing(
    const hlo::Instruction& instr, int operand_id, ExprContext* ctx);

// Partial: one entry per operand (per output), unknown ones with a reason.
// Output 0 of an instruction without outputs (an empty tuple) reads nothing:
// every operand entry is an empty set.
Result<HloInstructionIndexing> ComputeOutputToInputIndexingPartial(
    const hlo::Instruction& instr, int output_id, ExprContext* ctx,
    const IndexingOptions& options = {});
Result<HloInstructionIndexing> ComputeInputToOutputIndexingPartial(
    const hlo::Instruction& instr, int operand_id, ExprContext* ctx);

// Why `opcode` has no elementwise map (custom-call, while, fft, ...), or
// empty when the analysis indexes it.
std::string NoMapReason(const hlo::Instruction& instr);

// The dims of output `output_id` (the instruction's own dims when it is an
// array).
const std::vector<int64_t>& OutputDims(const hlo::Instruction& instr,
                                       int output_id);
// The shape of output `output_id`.
const hlo::Shape& OutputShape(const hlo::Instruction& instr, int output_id);
// Number of outputs: tuple elements, or 1.
int OutputCount(const hlo::Instruction& instr);
// The shape operand `operand_id`'s maps index: the operand's own shape, or
// for a get-tuple-element of a tuple the element it reads.
const hlo::Shape& IndexedOperandShape(const hlo::Instruction& instr,
                                      int operand_id);

// Simplify + RemoveUnusedSymbols: the form every map is returned in.
void FinishMap(IndexingMap* map);

// A dot's or convolution's output -> operand maps (lhs, rhs) over one list
// of symbols: a dot's contracting dims; a convolution's window dims, then
// the input feature within the group. Each is simplified but keeps every
// symbol (ComputeOutputToInputIndexing drops those a map does not read),
// so code generation loops over the symbols once and reads both operands
// there. Unsupported for other ops.
Result<std::vector<IndexingMap>> ComputeSharedSymbolOperandMaps(
    const hlo::Instruction& in, ExprContext* ctx);

// Physical-layout mode: rewrites a map between logical indices of `from`
// (the map's dims) and `to` (its results) into one between physical,
// layout-ordered indices (most major first). Tiles are not modelled here:
// only the minor_to_major permutation.
Result<IndexingMap> ToPhysicalIndexing(const IndexingMap& map,
                                       const hlo::Shape& from,
                                       const hlo::Shape& to);

// out -> in map of a row-major reshape between the given dims (XLA's
// ComputeReshapeIndexingMap: minimal subshapes, then linearize and
// delinearize). Not simplified.
IndexingMap ComputeReshapeIndexingMap(const std::vector<int64_t>& input_dims,
                                      const std::vector<int64_t>& output_dims,
                                      ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_INDEXING_INDEXING_H_
