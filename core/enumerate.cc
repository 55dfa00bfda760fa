#include "core/enumerate.h"

#include <algorithm>

#include "core/budget.h"

namespace ixa {

namespace {

// Iterates the box `bounds` (dims then symbols) in lexicographic order.
Result<bool> ForEachBoxPoint(const std::vector<Interval>& bounds, int num_dims,
                             int64_t limit,
                             const std::function<bool(const Point&)>& f) {
  int64_t total = 1;
  for (const Interval& b : bounds) {
    if (b.IsEmpty()) return true;  // nothing to visit
    if (b.lower == kInt64Min || b.upper == kInt64Max) {
      return Error::Limit("domain too large to enumerate: unbounded variable");
    }
    total = SaturatingMul(total, b.Size());
  }
  if (total > limit) {
    return Error::Limit("domain too large to enumerate: " +
                        (total == kInt64Max ? std::string("more than 2^63")
                                            : std::to_string(total)) +
                        " points, limit " + std::to_string(limit));
  }
  Point p;
  p.dims.resize(num_dims);
  p.symbols.resize(bounds.size() - num_dims);
  auto at = [&](size_t i) -> int64_t& {
    return i < static_cast<size_t>(num_dims) ? p.dims[i]
                                             : p.symbols[i - num_dims];
  };
  for (size_t i = 0; i < bounds.size(); ++i) at(i) = bounds[i].lower;
  while (true) {
    if (DeadlineExpired("enumeration")) return DeadlineError();
    if (!f(p)) return false;
    size_t i = bounds.size();
    while (i > 0) {
      --i;
      if (at(i) < bounds[i].upper) {
        ++at(i);
        break;
      }
      at(i) = bounds[i].lower;
      if (i == 0) return true;
    }
    if (bounds.empty()) return true;
  }
}

std::vector<Interval> BoundsOf(const IndexingMap& map) {
  std::vector<Interval> b;
  for (const Variable& v : map.dims()) b.push_back(v.bounds);
  for (int i = 0; i < map.num_symbols(); ++i) b.push_back(map.symbol(i).bounds);
  return b;
}

}  // namespace

Result<bool> ForEachDomainPoint(const IndexingMap& map, int64_t limit,
                                const std::function<bool(const Point&)>& f) {
  if (map.IsKnownEmpty()) return true;
  std::optional<Error> error;
  auto visit = [&](const Point& p) {
    auto in = map.InDomain(p.dims, p.symbols);
    if (!in.ok()) {
      error = in.error();
      return false;
    }
    return !*in || f(p);
  };
  auto r = ForEachBoxPoint(BoundsOf(map), map.num_dims(), limit, visit);
  if (error) return *error;
  return r;
}

Result<bool> IsEmptyByEnumeration(const IndexingMap& map, int64_t limit) {
  if (map.IsKnownEmpty()) return true;
  bool empty = true;
  IXA_ASSIGN_OR_RETURN(bool completed,
                       ForEachDomainPoint(map, limit, [&](const Point&) {
                         empty = false;
                         return false;
                       }));
  (void)completed;
  return empty;
}

Result<Equivalence> EquivalentByEnumeration(const IndexingMap& a,
                                            const IndexingMap& b,
                                            int64_t limit) {
  if (a.num_dims() != b.num_dims() || a.num_symbols() != b.num_symbols() ||
      a.num_results() != b.num_results()) {
    return Error::Invalid(
        "maps are over different variables or have different result counts: (" +
        std::to_string(a.num_dims()) + " dims, " +
        std::to_string(a.num_symbols()) + " symbols, " +
        std::to_string(a.num_results()) + " results) vs (" +
        std::to_string(b.num_dims()) + ", " + std::to_string(b.num_symbols()) +
        ", " + std::to_string(b.num_results()) + ")");
  }
  if (a.IsKnownEmpty() && b.IsKnownEmpty()) return Equivalence{};
  // Enumerate the hull of both boxes (a known-empty map contributes none).
  std::vector<Interval> hull;
  std::vector<Interval> ba = BoundsOf(a), bb = BoundsOf(b);
  for (size_t i = 0; i < ba.size(); ++i) {
    Interval x = a.IsKnownEmpty() ? Interval::Empty() : ba[i];
    Interval y = b.IsKnownEmpty() ? Interval::Empty() : bb[i];
    hull.push_back(x.Union(y));
  }
  Equivalence result;
  std::optional<Error> error;
  auto visit = [&](const Point& p) {
    auto in_a = a.InDomain(p.dims, p.symbols);
    auto in_b = b.InDomain(p.dims, p.symbols);
    if (!in_a.ok() || !in_b.ok()) {
      error = !in_a.ok() ? in_a.error() : in_b.error();
      return false;
    }
    bool differ = *in_a != *in_b;
    if (!differ && *in_a) {
      auto ra = a.Evaluate(p.dims, p.symbols);
      auto rb = b.Evaluate(p.dims, p.symbols);
      if (!ra.ok() || !rb.ok()) {
        error = !ra.ok() ? ra.error() : rb.error();
        return false;
      }
      differ = *ra != *rb;
    }
    if (differ) {
      result.equivalent = false;
      result.counterexample = p;
      return false;
    }
    return true;
  };
  auto r = ForEachBoxPoint(hull, a.num_dims(), limit, visit);
  if (error) return *error;
  if (!r.ok()) return r.error();
  return result;
}

}  // namespace ixa
