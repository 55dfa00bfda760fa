// Fixed-seed whole-simplifier fuzz batch. The long-running variant is
// tests/fuzz/simplify_fuzz.cc (executable fuzz_simplify).
#include <catch2/catch.hpp>
#include <cstdlib>

#include "tests/simplifier/fuzz_lib.h"

namespace ixa {
namespace IXA_UNITY_ID {

// 20000 maps; a quarter in the sanitizer pass (IXA_SANITIZED=1), where the
// map_simplify fuzz target covers the same ground.
TEST_CASE("simplifier fuzz: random maps", "[simplify][fuzz]") {
  const int count = std::getenv("IXA_SANITIZED") ? 5000 : 20000;
  fuzz::FuzzStats stats = fuzz::RunFuzz(/*seed=*/20240601, count);
  INFO(stats.first_failure);
  CHECK(stats.failures == 0);
  CHECK(stats.maps == count);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
