// The emitters (docs/emitters.md §1, docs/xla-reference.md §(h)): each builds
// the entry kernel of the `loops` stage from the fusion's plan, calling
// the subgraph functions at the indices the plan's thread maps give.
#ifndef IXA_EMIT_EMITTERS_EMITTERS_H_
#define IXA_EMIT_EMITTERS_EMITTERS_H_

#include <functional>
#include <memory>
#include <vector>

#include "emit/lower/lowering.h"

namespace ixa::emit {

// Builds `kernel` (launch and body) for the plan's emitter kind.
Status BuildKernel(LoweringContext& lc, ir::Kernel* kernel);

// True when an output of shape `out` can be written in the memory of a
// parameter of shape `param` (same shape, layout included: XLA's buffer
// sharing for in-place outputs).
bool InPlaceShapesMatch(const hlo::Shape& param, const hlo::Shape& out);

// Shared helpers of the emitters.
namespace emitters {

// The six grid ids (th_x, th_y, th_z, bl_x, bl_y, bl_z) of the launch.
std::vector<ir::Val> GridIds(const LaunchDimensions& launch);

// Loops over the range symbols of `map` (in order, the last innermost),
// then `body(operands)` under the check that `ids + symbols` lie in the
// map's domain. Runtime symbols are not allowed here.
Status ForEachPoint(
    LoweringContext& lc, BlockBuilder& bb,
    const std::shared_ptr<const IndexingMap>& map,
    const std::vector<ir::Val>& ids,
    const std::function<Status(const std::vector<ir::Val>&)>& body);

// The output buffers of root `r` (one per leaf of its shape).
std::vector<int> RootBuffers(LoweringContext& lc, const RootPlan& r);

// The root's output index from its hero's output index (the chain of
// elementwise ops and bitcasts between them, composed).
Result<std::vector<ir::Val>> HeroToRootIndex(LoweringContext& lc,
                                             const hlo::Instruction* hero,
                                             const hlo::Instruction* root,
                                             const std::vector<ir::Val>& index);

// The instructions on paths from `root` down to `hero` (both included).
std::set<const hlo::Instruction*> PathToHero(const hlo::Instruction* root,
                                             const hlo::Instruction* hero);

// Computes `roots` (which share the thread map `map`) and stores them at
// every point of it: the loop emitter's body, and the side outputs of the
// transpose and reduction emitters.
Status EmitRootsAtMap(LoweringContext& lc, BlockBuilder& bb,
                      const std::shared_ptr<const IndexingMap>& map,
                      const std::vector<const RootPlan*>& roots,
                      const std::vector<ir::Val>& ids);

// The epilogue of a hero: root `r` computed from the hero's values
// `hero_values` (one per output of the hero) at the hero's output index
// `hero_index` (the ops between them inlined) and stored into `buffers` at the
// root's index.
Status StoreEpilogue(LoweringContext& lc, BlockBuilder& bb,
                     const hlo::Instruction* hero,
                     const std::vector<ir::Val>& hero_values, const RootPlan& r,
                     const std::vector<ir::Val>& hero_index,
                     const std::vector<int>& buffers);

Status BuildLoop(LoweringContext& lc, BlockBuilder& bb);
Status BuildConcatenate(LoweringContext& lc, BlockBuilder& bb);
Status BuildInPlaceDus(LoweringContext& lc, BlockBuilder& bb);
Status BuildScatter(LoweringContext& lc, BlockBuilder& bb);
Status BuildTranspose(LoweringContext& lc, BlockBuilder& bb);
Status BuildReduction(LoweringContext& lc, BlockBuilder& bb);

}  // namespace emitters
}  // namespace ixa::emit

#endif  // IXA_EMIT_EMITTERS_EMITTERS_H_
