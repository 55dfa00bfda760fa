// The complex-number (c64, c128) fusions of the code generator tests,
// shared by their checks on the CPU (emit_complex_test.cc) and by the GPU
// check (emit_gpu_check_test.cc): every op generated on complex values,
// power on small operands, converts and constants, a tiled transpose,
// index ops, a dynamic-update-slice in a {0,1} layout; row, column and
// multi-row reductions, a c128 product and a reduce-window; scatters of
// c64 (colliding, sorted) and of c128 with unique indices. None runs in
// MLIR: that target refuses complex values.
#ifndef IXA_TESTS_EMIT_EMIT_COMPLEX_CASES_H_
#define IXA_TESTS_EMIT_EMIT_COMPLEX_CASES_H_

#include <vector>

#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {

std::vector<CheckCase> ComplexOpCases();
std::vector<CheckCase> ComplexReductionCases();  // reassociate
std::vector<CheckCase> ComplexScatterCases();    // reassociate

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_COMPLEX_CASES_H_
