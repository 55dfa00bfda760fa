// Fixed-seed whole-simplifier fuzz batch. The long-running variant is
// tests/fuzz/simplify_fuzz.cc (executable fuzz_simplify).
#include <catch2/catch.hpp>

#include "tests/simplifier/fuzz_lib.h"

namespace ixa {
namespace IXA_UNITY_ID {

TEST_CASE("simplifier fuzz: 20000 random maps", "[simplify][fuzz]") {
  fuzz::FuzzStats stats = fuzz::RunFuzz(/*seed=*/20240601, /*count=*/20000);
  INFO(stats.first_failure);
  CHECK(stats.failures == 0);
  CHECK(stats.maps == 20000);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
