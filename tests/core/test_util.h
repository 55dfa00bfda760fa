// Shared helpers of the core tests: parsing shortcuts, a box enumerator that
// does not depend on the code under test, and a random map generator.
#ifndef IXA_TESTS_CORE_TEST_UTIL_H_
#define IXA_TESTS_CORE_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/text.h"

namespace ixa::testing {

// Parses or fails the current test with the parser's message.
IndexingMap MustParse(const std::string& text, ExprContext* ctx);

// Calls f(dims, symbols) for every point of the box given by `bounds`
// (the first num_dims entries are dims). Independent of core/enumerate.
void ForEachBoxPoint(const std::vector<Interval>& bounds, size_t num_dims,
                     const std::function<void(const std::vector<int64_t>&,
                                              const std::vector<int64_t>&)>& f);

// The variable box of a map (dims, then symbols).
std::vector<Interval> BoxOf(const IndexingMap& map);

// Builds random maps with small bounded domains.
class RandomMaps {
 public:
  explicit RandomMaps(uint64_t seed) : rng_(seed) {}

  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool Coin(int percent) { return Uniform(0, 99) < percent; }

  // A random expression over the given variables, with +, * by constant,
  // floordiv / ceildiv / mod by non-zero constants (positive or negative),
  // and, when `semi_affine`, products of two variables.
  Expr RandomExpr(ExprContext* ctx, int num_dims, int num_symbols, int depth,
                  bool semi_affine = false);

  // A small interval in [-4, 6].
  Interval SmallInterval();

  // A random map: num_dims dims, R range vars, T runtime vars, results and
  // 0..max_constraints constraints.
  IndexingMap RandomMap(ExprContext* ctx, int num_dims, int num_range,
                        int num_rt, int num_results, int max_constraints,
                        bool semi_affine = false);

  std::mt19937_64& rng() { return rng_; }

  // From now on RandomExpr also builds min / max nodes (off by default so
  // that the older tests keep their random streams).
  void set_min_max(bool on) { min_max_ = on; }

 private:
  std::mt19937_64 rng_;
  bool min_max_ = false;
};

}  // namespace ixa::testing

#endif  // IXA_TESTS_CORE_TEST_UTIL_H_
