// Shared pieces of the emitter plans (docs/xla-reference.md §(h)). Internal
// to analysis/emitters: the grid map builders of h.1 and h.5, the fusion's
// roots and heroes (h.2), the kind choice (h.3), the tiled-transpose
// description (h.4), the loop configuration (h.5) and one builder per
// emitter kind (h.6-h.8). plan.cc dispatches and derives the parameter
// maps.
#ifndef IXA_ANALYSIS_EMITTERS_INTERNAL_H_
#define IXA_ANALYSIS_EMITTERS_INTERNAL_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "analysis/emitters/plan.h"

namespace ixa::emitters {

using hlo::Instruction;

// ------------------------------------------------------------------ h.1

// Grid dims named th_x, th_y, th_z, bl_x, bl_y, bl_z, each in
// [0, count - 1] of the launch.
std::vector<Variable> GridDims(const LaunchDimensions& launch);
// A range variable in [0, size - 1] (empty when size is 0).
Variable RangeVar(int64_t size, std::string name = "");
// A map over the grid dims and the given range variables, simplified.
IndexingMap GridMap(ExprContext* ctx, const LaunchDimensions& launch,
                    std::vector<Variable> ranges, std::vector<Expr> results,
                    std::vector<Constraint> constraints = {});
// XLA's DelinearizeInBoundsIndex: component i = (x floordiv st_i) mod n_i,
// without the mod on the first component with n_i > 1; size-1 components
// are 0; any n_i = 0 makes every component 0.
std::vector<Expr> DelinearizeInBounds(Expr linear,
                                      std::span<const int64_t> sizes,
                                      ExprContext* ctx);
// The bitcast map from -> to: the logical index of `from` to the logical
// index of `to` of the same physical (minor_to_major) element. Element
// types and tiles are ignored. Simplified; domain: from's dims.
IndexingMap BitcastMap(const hlo::Shape& from, const hlo::Shape& to,
                       ExprContext* ctx);
// A row-major shape (element type kept from `like`).
hlo::Shape DescendingShape(const hlo::Shape& like, std::vector<int64_t> dims);
// second ∘ first (runtime producers kept consistent), simplified.
Result<IndexingMap> ComposeSimplified(const IndexingMap& first,
                                      const IndexingMap& second);

// ------------------------------------------------------------------ h.5

// CalculateLaunchDimensions(shape, config) on `device`. Errors: a shape
// with more than 2^62 elements (limit_exceeded).
Result<LaunchDimensions> CalculateLaunchDimensions(const hlo::Shape& shape,
                                                   const hw::Device& device,
                                                   const LoopConfig& config);

// The default thread map of h.5 over `shape`: (grid)[chunk_id, unroll_id]
// -> the element of `shape` (minor_to_major order) the point writes.
Result<IndexingMap> DefaultThreadMap(const LaunchDimensions& launch,
                                     int64_t unroll, const hlo::Shape& shape,
                                     ExprContext* ctx);

// ------------------------------------------------------------------ h.2

// What the hero analysis knows about one fusion region.
struct FusionInfo {
  const FusionRegion* region = nullptr;
  // The root tuple's operands (nested tuples flattened), else the root.
  std::vector<const Instruction*> roots;
  std::vector<const Instruction*> heroes;  // h.2, one per root
  // min bit width over the parameters' / roots' array (sub)shapes; pred 8;
  // INT32_MAX when there is none.
  int bits_in = 0, bits_out = 0;
  std::unordered_set<const Instruction*> members;
  std::unordered_set<const Instruction*> parameters;

  // Inside the fusion and not one of its parameters.
  bool IsInside(const Instruction* instr) const;
  // Users of `instr` inside the fusion (the region's own members).
  std::vector<const Instruction*> UsersInside(const Instruction* instr) const;
  int ParameterIndex(const Instruction* instr) const;
};

FusionInfo AnalyzeFusion(const FusionRegion& region);
// The root tuple's operands, nested tuples flattened; else `instr`.
void FlattenRoots(const Instruction* instr,
                  std::vector<const Instruction*>* out);

// XLA's IsIntermediate: 1..max_operands operands and elementwise (a copy
// only when it keeps shape and layout), a bitcast, or a reshape / transpose
// that is a bitcast.
bool IsIntermediate(const Instruction& instr, int max_operands = 1);
// ShapeUtil::ReshapeIsBitcast / TransposeIsBitcast, element types ignored.
bool ReshapeIsBitcast(const hlo::Shape& from, const hlo::Shape& to);
bool TransposeIsBitcast(const hlo::Shape& from, const hlo::Shape& to,
                        std::span<const int64_t> dimensions);
// ShapeUtil::IsReshapeOrTransposeBitcast (element types ignored).
bool IsReshapeOrTransposeBitcast(const hlo::Shape& a, const hlo::Shape& b);

// ------------------------------------------------------------------ h.3

// XLA's ReductionDimensions: row [major reduced, kept, minor reduced] or
// column [major kept, reduced, minor kept].
struct ReductionDims {
  bool is_row = true;
  std::array<int64_t, 3> dims = {1, 1, 1};
  bool operator==(const ReductionDims& o) const {
    return is_row == o.is_row && dims == o.dims;
  }
};
ReductionDims GetReductionDims(const Instruction& reduce);
// IsReductionFromOrToContiguousDimensions (layout adjacency and "faster
// than elemental").
bool IsContiguousReduction(const Instruction& instr);
bool ReductionIsRaceFree(const ReductionDims& dims);
bool IsRealReductionHero(const Instruction& root, const Instruction& hero);

// h.4. `root` and `hero` as XLA's GetDescriptionForTiledTransposeEmitter
// (root = hero skips the f32 -> s8 rule). Only dims and permutation are
// set.
std::optional<TransposeDescription> TiledTransposeDescription(
    const Instruction& root, const Instruction& hero);

struct KindChoice {
  EmitterKind kind = EmitterKind::kLoop;
  std::optional<TransposeDescription> transpose;  // kTranspose
  int first_reduction_root = -1;                  // kReduction
};
KindChoice ChooseEmitterKind(const FusionInfo& info);

// Input slices test of h.3 step 4: several roots, all unit-stride slices of
// operands of one shape (element types ignored).
bool IsInputSlicesFusion(const FusionInfo& info);
// h.3 step 7: the dynamic-update-slices the roots define (through bitcast
// chains), when the fusion updates a parameter in place; empty otherwise.
std::vector<const Instruction*> InPlaceDynamicUpdateSlices(
    const FusionInfo& info);

// ------------------------------------------------------------------ loop

// The loop configuration of h.5 for element shape `element`.
LoopConfig ComputeLoopConfig(const FusionInfo& info, const hlo::Shape& element,
                             const hw::Device& device);

// ------------------------------------------------------------ builders

// How the thread maps reach the fusion's parameters for one root: through
// the hero's operands (each one's map, or a reason why not), through the
// root's output, and through the epilogue from the hero to the root.
enum class OperandRead {
  kMap,        // hero_operand_maps[i] is the read
  kAnyThread,  // a scalar every thread reads (no map in XLA)
  kNotRead,    // the emitter never reads it (in-place operand)
  kUnknown,    // read, but no thread map exists (e.g. scatter operand)
};

struct RootDraft {
  RootPlan plan;
  // Through the root: the root's output map composed with every path from
  // the root to the parameters (loop-like roots and side outputs).
  bool read_through_output = false;
  // Else per hero operand.
  std::vector<OperandRead> reads;
  std::vector<std::string> unknown_reasons;  // per hero operand (kUnknown)
  // Maps from the ids to the hero's output index (one per hero output
  // piece, e.g. per concatenate operand); the epilogue from hero to root
  // reads the parameters through them.
  std::vector<IndexingMap> hero_output_maps;
};

struct PlanDraft {
  EmitterPlan plan;
  std::vector<RootDraft> roots;
};

Result<PlanDraft> BuildLoopPlan(const FusionInfo& info,
                                const hw::Device& device,
                                const std::optional<LaunchDimensions>& launch,
                                ExprContext* ctx);
Result<PlanDraft> BuildConcatenatePlan(const FusionInfo& info,
                                       const hw::Device& device,
                                       ExprContext* ctx);
Result<PlanDraft> BuildScatterPlan(const FusionInfo& info,
                                   const hw::Device& device, ExprContext* ctx);
Result<PlanDraft> BuildInPlaceDusPlan(
    const FusionInfo& info, const std::vector<const Instruction*>& dus,
    const hw::Device& device, ExprContext* ctx);
Result<PlanDraft> BuildInputSlicesPlan(const FusionInfo& info,
                                       const hw::Device& device,
                                       ExprContext* ctx);
Result<PlanDraft> BuildTransposePlan(const FusionInfo& info,
                                     const TransposeDescription& description,
                                     const hw::Device& device,
                                     ExprContext* ctx);
Result<PlanDraft> BuildReductionPlan(const FusionInfo& info,
                                     int first_reduction_root,
                                     const hw::Device& device,
                                     ExprContext* ctx);

// The hero operand maps of a root that is its own hero: output ∘ the
// root's output -> input map of each operand (nullopt where the root has
// no single map for that operand).
std::vector<std::optional<IndexingMap>> OwnOperandMaps(
    const Instruction& root, const IndexingMap& output, ExprContext* ctx);

// Element types the code reads and writes in vectors. Sub-byte and f8
// elements are unpacked and decoded one by one, so they never vectorize.
bool VectorElement(hlo::ElementType type);

int64_t CeilDiv(int64_t a, int64_t b);
int64_t RoundUp(int64_t a, int64_t b);
int64_t Product(std::span<const int64_t> v);

}  // namespace ixa::emitters

#endif  // IXA_ANALYSIS_EMITTERS_INTERNAL_H_
