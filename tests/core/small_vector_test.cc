// SmallVector (core/small_vector.h) against std::vector on the same
// operations, inline and past the inline capacity.
#include "core/small_vector.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace ixa {
namespace IXA_UNITY_ID {

using Small = SmallVector<int64_t, 4>;

std::vector<int64_t> ToVector(const Small& s) { return {s.begin(), s.end()}; }

TEST_CASE("small vector: sized construction, assign and growth") {
  for (size_t n : {0, 1, 4, 5, 17}) {
    INFO("n = " << n);
    Small s(n, 7);
    CHECK(ToVector(s) == std::vector<int64_t>(n, 7));
    s.assign(n + 2, -1);
    CHECK(ToVector(s) == std::vector<int64_t>(n + 2, -1));
    for (int64_t i = 0; i < 10; ++i) s.push_back(i);
    std::vector<int64_t> want(n + 2, -1);
    for (int64_t i = 0; i < 10; ++i) want.push_back(i);
    CHECK(ToVector(s) == want);
    Small copy = s;  // copies, then both change independently
    copy[0] = 99;
    CHECK(s[0] == -1);
    Small moved = std::move(copy);
    CHECK(moved[0] == 99);
    CHECK(moved.size() == want.size());
    CHECK(copy.empty());  // NOLINT: a moved-from SmallVector is empty
  }
}

TEST_CASE("small vector: ordering and equality as std::vector's") {
  const std::vector<std::vector<int64_t>> values = {
      {},           {0},    {1}, {0, 0}, {0, 1}, {1, 0}, {1, 2, 3, 4, 5},
      {1, 2, 3, 4}, {-5, 2}};
  for (const auto& a : values) {
    for (const auto& b : values) {
      Small sa, sb;
      sa.assign(a.begin(), a.end());
      sb.assign(b.begin(), b.end());
      CHECK((sa < sb) == (a < b));
      CHECK((sa == sb) == (a == b));
    }
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
