// Shape checks and inference for the ops the indexing analysis knows.
// Internal to analysis/hlo: the reader runs them so that the per-op maps
// can rely on consistent shapes and attributes.
#ifndef IXA_ANALYSIS_HLO_VERIFIER_H_
#define IXA_ANALYSIS_HLO_VERIFIER_H_

#include "analysis/hlo/module.h"

namespace ixa::hlo {

// The result shape of an instruction written without one (`ds =
// dynamic-slice(...)`, `t = tuple(a, b)`), from its operands, attributes
// and called computations by XLA's shape rules (shape_inference.cc); an
// error naming why when it cannot be inferred.
Result<Shape> InferShape(const Instruction& instr);

// Ok when the instruction's shapes and attributes agree; else an
// invalid_argument error naming the mismatch (the reader adds the
// position).
Status VerifyInstruction(const Instruction& instr);

}  // namespace ixa::hlo

#endif  // IXA_ANALYSIS_HLO_VERIFIER_H_
