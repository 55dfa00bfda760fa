// Seeded, deterministic random fusions for the code generator tests: HLO
// modules whose entry computation is the fusion, aimed at one emitter kind
// each (docs/xla-reference.md §(h) h.3), over the ops of docs/emitters.md
// §2a with shapes that do not divide tile or vector sizes.
#ifndef IXA_TESTS_EMIT_EMIT_RANDOM_FUSIONS_H_
#define IXA_TESTS_EMIT_EMIT_RANDOM_FUSIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {

enum class TargetKind {
  kLoop,
  kTranspose,
  kRowReduction,
  kMultiRowReduction,
  kColumnReduction,
  kScatter,
  kConcatenate,
  kInPlaceDus,
  kInputSlices,
};
const char* TargetKindName(TargetKind kind);
// Every kind, in the order above.
std::vector<TargetKind> AllTargetKinds();

struct ParameterSpec {
  RandomSpec random;
  // Values are distinct (a shuffled range starting at random.int_lo):
  // scatter indices whose updates must not collide.
  bool distinct = false;
  // Values are in ascending order (after `distinct`): scatter indices
  // with indices_are_sorted; with few values, runs of equal ones.
  bool sorted = false;
};

struct GeneratedFusion {
  std::string hlo;  // module text; the entry computation is the fusion
  TargetKind kind = TargetKind::kLoop;
  uint64_t seed = 0;
  std::vector<ParameterSpec> parameters;  // per entry parameter
  // Floating-point results may differ by reassociation (reductions,
  // scatter-add on floats): compare with a tolerance.
  bool reassociates = false;
};

GeneratedFusion GenerateFusion(TargetKind kind, uint64_t seed);

// Inputs for a generated fusion (deterministic in `seed`).
std::vector<Literal> GenerateInputs(const GeneratedFusion& fusion,
                                    const std::vector<hlo::Shape>& shapes,
                                    uint64_t seed);

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_EMIT_RANDOM_FUSIONS_H_
