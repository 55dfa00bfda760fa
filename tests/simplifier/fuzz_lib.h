// Whole-simplifier fuzzing, shared by the fixed-seed batch in
// test_simplifier and the long-running tests/fuzz/fuzz_simplify target.
// Catch-free on purpose.
#ifndef IXA_TESTS_SIMPLIFIER_FUZZ_LIB_H_
#define IXA_TESTS_SIMPLIFIER_FUZZ_LIB_H_

#include <cstdint>
#include <random>
#include <string>

#include "core/expr.h"
#include "core/indexing_map.h"

namespace ixa::fuzz {

// A random map over a small box (at most a few hundred points): sums,
// products by constants, floordiv/mod/ceildiv towers by positive and
// negative constants, delinearize/linearize chains, min/max (also clamps),
// a few semi-affine nodes, and 0-2 constraints.
IndexingMap RandomMap(std::mt19937_64& rng, ExprContext* ctx);

// Checks one map; empty string when every property holds, else a
// description of the first failure:
//  (a) the simplified map equals the original at every domain point
//      (brute force),
//  (b) simplifying again changes nothing,
//  (c) the same input text gives the same output text in a fresh context,
//  (d) the number of floordiv/mod/ceildiv nodes does not grow, nor the
//      number of min/max nodes,
//  (e) the budget is not exhausted.
std::string CheckMap(const IndexingMap& map);

// Greedily shrinks a failing map (drops results and constraints, replaces
// subexpressions by their operands or by constants, narrows bounds) while
// CheckMap still fails.
IndexingMap Shrink(const IndexingMap& map);

// A ready-to-paste Catch2 test case reproducing the failure.
std::string ReproTest(const IndexingMap& map, const std::string& failure);

struct FuzzStats {
  int64_t maps = 0;
  int64_t failures = 0;
  int64_t changed = 0;
  int64_t known_empty = 0;
  std::string first_failure;  // ReproTest of the shrunk first failure
};

// Runs `count` random maps from `seed`.
FuzzStats RunFuzz(uint64_t seed, int64_t count);

}  // namespace ixa::fuzz

#endif  // IXA_TESTS_SIMPLIFIER_FUZZ_LIB_H_
