// Brute-force decisions on small domains: the tests' oracle and the fallback
// of is_empty / equivalent before the exact procedures of simplifier/decide.
#ifndef IXA_CORE_ENUMERATE_H_
#define IXA_CORE_ENUMERATE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa {

inline constexpr int64_t kDefaultEnumerationLimit = 1 << 22;

struct Point {
  std::vector<int64_t> dims;
  std::vector<int64_t> symbols;
};

// Calls f for every point of the variable box that satisfies the map's
// constraints; f returns false to stop early. The answer: whether every
// point was visited (false when f stopped the walk). Errors with
// limit_exceeded when the box has more than `limit` points (or an unbounded
// variable), and with the evaluation error if a constraint cannot be
// evaluated.
Result<bool> ForEachDomainPoint(const IndexingMap& map, int64_t limit,
                                const std::function<bool(const Point&)>& f);

// Is the domain empty?
Result<bool> IsEmptyByEnumeration(const IndexingMap& map,
                                  int64_t limit = kDefaultEnumerationLimit);

struct Equivalence {
  bool equivalent = true;
  std::optional<Point> counterexample;  // set when not equivalent
};

// Same domain and same results at every domain point. Enumerates the hull of
// both boxes. The maps must have the same numbers of dims, symbols and
// results (else invalid_argument).
Result<Equivalence> EquivalentByEnumeration(
    const IndexingMap& a, const IndexingMap& b,
    int64_t limit = kDefaultEnumerationLimit);

}  // namespace ixa

#endif  // IXA_CORE_ENUMERATE_H_
