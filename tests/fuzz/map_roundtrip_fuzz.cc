// libFuzzer target fuzz_map_roundtrip: map text -> parse -> print -> parse
// -> print. Whatever parses must print to text that parses again, and the
// second print equals the first (docs/indexing.md §2: the printed form is
// canonical). Errors are fine; crashes, UB and a failed property are not.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/text.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ixa::ExprContext ctx;
  auto map = ixa::ParseIndexingMap(text, &ctx);
  if (!map.ok()) {
    const ixa::Error& e = map.error();
    if (e.code == ixa::ErrorCode::kInternal) {
      ixa::fuzz::Fail("internal error from the parser", e.ToString());
    }
    return 0;
  }
  std::string first = ixa::PrintIndexingMap(*map);
  ixa::ExprContext fresh;
  auto again = ixa::ParseIndexingMap(first, &fresh);
  if (!again.ok()) {
    ixa::fuzz::Fail("the printed map does not parse",
                    first + "\n" + again.error().ToString());
  }
  std::string second = ixa::PrintIndexingMap(*again);
  if (second != first) {
    ixa::fuzz::Fail("printing is not stable", first + "\n" + second);
  }
  // Same context: the re-read map is the same map (a KNOWN EMPTY map
  // prints without its arity, as in XLA, so only its emptiness survives).
  auto same = ixa::ParseIndexingMap(first, &ctx);
  if (!same.ok() || (!map->IsKnownEmpty() && !(*same == *map))) {
    ixa::fuzz::Fail("the re-read map differs from the original", first);
  }
  return 0;
}
