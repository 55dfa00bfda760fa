// Long-running whole-simplifier fuzzer:
//
//   fuzz_simplify [seed] [count]      (defaults: time-based seed, 1000000)
//
// Checks every random map with fuzz::CheckMap (equivalence on the domain,
// idempotence, determinism, no div/mod growth) and prints the first failure,
// shrunk, as a ready-to-paste Catch2 test. Exit status 1 on any failure.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/simplifier/fuzz_lib.h"

int main(int argc, char** argv) {
  uint64_t seed =
      argc > 1
          ? std::strtoull(argv[1], nullptr, 10)
          : static_cast<uint64_t>(
                std::chrono::system_clock::now().time_since_epoch().count());
  int64_t count = argc > 2 ? std::strtoll(argv[2], nullptr, 10) : 1000000;
  constexpr int64_t kChunk = 10000;
  int64_t done = 0, failures = 0;
  auto start = std::chrono::steady_clock::now();
  // Chunks keep progress visible; chunk i uses seed + i so that any chunk
  // can be replayed on its own.
  for (int64_t chunk = 0; done < count; ++chunk) {
    int64_t n = std::min(kChunk, count - done);
    ixa::fuzz::FuzzStats stats = ixa::fuzz::RunFuzz(seed + chunk, n);
    done += stats.maps;
    failures += stats.failures;
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::printf("seed %llu chunk %lld: %lld maps, %lld failures (%.1f s)\n",
                static_cast<unsigned long long>(seed + chunk),
                static_cast<long long>(chunk), static_cast<long long>(done),
                static_cast<long long>(failures), secs);
    std::fflush(stdout);
    if (stats.failures > 0) {
      std::printf("%s\n", stats.first_failure.c_str());
      return 1;
    }
  }
  return 0;
}
