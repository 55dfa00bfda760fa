// Per-instruction indexing maps of HLO ops (spec/indexing.md §3), in XLA's
// API shape (style G15):
//
//   ComputeOutputToInputIndexing(instr, output_id, ctx)
//     -> one set of maps per operand: output index -> that operand's index;
//   ComputeInputToOutputIndexing(instr, operand_id, ctx)
//     -> one set of maps per output: operand index -> output index.
//
// Maps come back simplified (Simplify, then RemoveUnusedSymbols). An op with
// no map gives Error::Unsupported naming the op; bad arguments give
// Error::Invalid. Nothing here aborts on user input.
#ifndef IXA_ANALYSIS_INDEXING_INDEXING_H_
#define IXA_ANALYSIS_INDEXING_INDEXING_H_

#include <vector>

#include "analysis/hlo/module.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

// A set of maps kept in insertion order; Insert drops structural duplicates
// (IndexingMap::operator==).
class IndexingMapSet {
 public:
  // Returns true when the map was new.
  bool Insert(IndexingMap map);
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
};

Result<HloInstructionIndexing> ComputeOutputToInputIndexing(
    const hlo::Instruction& instr, int output_id, ExprContext* ctx);

Result<HloInstructionIndexing> ComputeInputToOutputIndexing(
    const hlo::Instruction& instr, int operand_id, ExprContext* ctx);

// The dims of output `output_id` (the instruction's own dims when it is an
// array).
const std::vector<int64_t>& OutputDims(const hlo::Instruction& instr,
                                       int output_id);
// The shape of output `output_id`.
const hlo::Shape& OutputShape(const hlo::Instruction& instr, int output_id);
// Number of outputs: tuple elements, or 1.
int OutputCount(const hlo::Instruction& instr);

// Simplify + RemoveUnusedSymbols: the form every map is returned in.
void FinishMap(IndexingMap* map);

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
