// Notes on reduces whose init value is not their reducer's identity. XLA
// applies a reduce's init an implementation-defined number of times (its
// GPU kernels once per partial result), so only an identity init (0 for
// add, 1 for multiply, 0 for xor) gives one answer. An idempotent reducer
// (maximum, minimum, and, or) gives the same answer however often the init
// is applied, so it needs no note.
#ifndef IXA_EMIT_REDUCE_INIT_NOTES_H_
#define IXA_EMIT_REDUCE_INIT_NOTES_H_

#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"

namespace ixa::emit {

// One note per reduce of `region` whose init is a constant other than its
// reducer's identity, or not a constant at all (a parameter, a value from
// outside the fusion, a computed value: unknown here), unless the reducer
// is idempotent. Each says how often the kernel planned by `plan` applies
// that init. Empty when every init is an identity.
std::vector<std::string> ReduceInitNotes(const FusionRegion& region,
                                         const EmitterPlan& plan);

}  // namespace ixa::emit

#endif  // IXA_EMIT_REDUCE_INIT_NOTES_H_
