// A fixed loop plan for emitting with a known thread mapping in tests
// (one element per (thread, unroll) pair, blocks in x): the emitters and
// passes are checked against it independently of the planner.
#ifndef IXA_TESTS_EMIT_EMIT_FIXTURE_PLANS_H_
#define IXA_TESTS_EMIT_EMIT_FIXTURE_PLANS_H_

#include "analysis/emitters/plan.h"

namespace ixa::emit_test {

Result<EmitterPlan> FixtureLoopPlan(const FusionRegion& region,
                                    ExprContext* ctx, int64_t threads = 64,
                                    int64_t unroll = 2);

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_FIXTURE_PLANS_H_
