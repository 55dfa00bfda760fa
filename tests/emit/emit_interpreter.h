// The reference HLO interpreter of the code generator tests: evaluates
// every op directly from its definition (operational semantics of XLA's
// HLO, with real element types), not through indexing maps, and shares no
// code with emit/ (an oracle must not share code with what it checks).
// Floating-point ops on f16 / bf16 compute in f32 and round to the type per op,
// as XLA does; complex ops (c64, c128) compute in std::complex<double> and
// round each part of a c64 to f32 per op.
#ifndef IXA_TESTS_EMIT_EMIT_INTERPRETER_H_
#define IXA_TESTS_EMIT_EMIT_INTERPRETER_H_

#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "core/result.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {

// Evaluates `computation` on `arguments` (one per parameter, in parameter
// order). Errors: Unsupported for an op (or op variant) the interpreter
// does not know, Invalid for arguments that do not match the parameters.
Result<Literal> Interpret(const hlo::Computation& computation,
                          const std::vector<Literal>& arguments);

// XLA applies a reduce's init an implementation-defined number of times,
// so only the reducer's identity gives one answer, and XLA's own tests feed
// a parameter used as an init that identity. This sets every argument of a
// scalar parameter that `computation` uses as a reduce's init to the
// identity of that reduce's reducer (add, or, xor: 0; multiply: 1;
// maximum: -inf or the type's lowest; minimum: +inf or its highest; and:
// all ones; complex: (0, 0) for add, (1, 0) for multiply), where the
// reducer is one such op of its two parameters; other arguments stay as
// they are.
void FeedReducerIdentities(const hlo::Computation& computation,
                           std::vector<Literal>* arguments);

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_INTERPRETER_H_
