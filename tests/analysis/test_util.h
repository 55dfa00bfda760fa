// Shared helpers of the analysis tests.
#ifndef IXA_TESTS_ANALYSIS_TEST_UTIL_H_
#define IXA_TESTS_ANALYSIS_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/indexing/indexing.h"
#include "core/enumerate.h"
#include "core/text.h"

namespace ixa::testing {

inline std::unique_ptr<hlo::Module> ParseOrDie(const std::string& text) {
  auto m = hlo::ParseHloModule(text);
  INFO((m.ok() ? std::string() : m.error().ToString()));
  REQUIRE(m.ok());
  return std::move(m).value();
}

inline std::string NoSpace(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

// Same map: same domain and same results at every domain point. Exact by
// enumeration on small domains, else on 20000 random points of the box.
inline void ExpectSameMap(const IndexingMap& got, const std::string& want_text,
                          ExprContext* ctx) {
  auto want = ParseIndexingMap(want_text, ctx);
  INFO("expected " << want_text);
  INFO("got      " << PrintIndexingMap(got));
  REQUIRE(want.ok());
  if (got.num_symbols() != want->num_symbols()) {
    // The simplifier may drop point-valued variables (e.g. an offset in
    // [0, 0]); put the expectation through the same finishing steps.
    FinishMap(&want.value());
  }
  REQUIRE(got.num_dims() == want->num_dims());
  REQUIRE(got.num_symbols() == want->num_symbols());
  REQUIRE(got.num_results() == want->num_results());
  auto eq = EquivalentByEnumeration(got, *want, 1 << 20);
  if (eq.ok()) {
    CHECK(eq->equivalent);
    return;
  }
  std::mt19937_64 rng(42);
  auto pick = [&](const Variable& v) {
    std::uniform_int_distribution<int64_t> d(v.bounds.lower, v.bounds.upper);
    return d(rng);
  };
  for (int n = 0; n < 20000; ++n) {
    std::vector<int64_t> dims, syms;
    for (const Variable& v : want->dims()) dims.push_back(pick(v));
    for (int i = 0; i < want->num_symbols(); ++i) {
      syms.push_back(pick(want->symbol(i)));
    }
    bool in_want = *want->InDomain(dims, syms);
    bool in_got = *got.InDomain(dims, syms);
    REQUIRE(in_want == in_got);
    if (in_want)
      REQUIRE(*want->Evaluate(dims, syms) == *got.Evaluate(dims, syms));
  }
}

inline void ExpectText(const IndexingMap& got, const std::string& want) {
  CHECK(NoSpace(PrintIndexingMap(got)) == NoSpace(want));
}

inline std::vector<IndexingMap> Maps(const IndexingMapSet& set) {
  return set.maps();
}

// The scalar f32 `max` reducer the XLA test cases call (to_apply=max).
inline constexpr const char* kMax = R"(
  max {
    p0 = f32[] parameter(0)
    p1 = f32[] parameter(1)
    ROOT max = f32[] maximum(p0, p1)
  }
)";

}  // namespace ixa::testing

#endif  // IXA_TESTS_ANALYSIS_TEST_UTIL_H_
