// Fixed plans for emitting with a known thread mapping in tests (one
// element per (thread, unroll) pair, blocks in x, the maps of
// docs/xla-reference.md §(h) h.6 with u = 1): the emitters and passes are
// checked against them independently of the planner, and the emitters
// whose plans the planner does not build yet still run.
#ifndef IXA_TESTS_EMIT_EMIT_FIXTURE_PLANS_H_
#define IXA_TESTS_EMIT_EMIT_FIXTURE_PLANS_H_

#include "analysis/emitters/plan.h"

namespace ixa::emit_test {

Result<EmitterPlan> FixtureLoopPlan(const FusionRegion& region,
                                    ExprContext* ctx, int64_t threads = 64,
                                    int64_t unroll = 2);
Result<EmitterPlan> FixtureConcatenatePlan(const FusionRegion& region,
                                           ExprContext* ctx);
Result<EmitterPlan> FixtureInPlaceDusPlan(const FusionRegion& region,
                                          ExprContext* ctx);
Result<EmitterPlan> FixtureScatterPlan(const FusionRegion& region,
                                       ExprContext* ctx);
Result<EmitterPlan> FixtureInputSlicesPlan(const FusionRegion& region,
                                           ExprContext* ctx);

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_FIXTURE_PLANS_H_
