#include "analysis/fusion/map_pool.h"

#include <functional>
#include <string>

#include "analysis/indexing/internal.h"

namespace ixa::fusion_internal {
namespace {

size_t Mix(size_t h, size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

size_t HashVariable(size_t h, const Variable& v) {
  h = Mix(h, std::hash<int64_t>()(v.bounds.lower));
  h = Mix(h, std::hash<int64_t>()(v.bounds.upper));
  h = Mix(h, std::hash<std::string>()(v.name));
  return Mix(h, std::hash<std::string>()(v.producer));
}

// Consistent with Identical: equal maps hash equal (producer maps are left
// out, constraints combine order-independently as operator== compares
// them as a set).
size_t HashMap(const IndexingMap& m) {
  size_t h = Mix(m.num_dims(), m.num_range_vars());
  h = Mix(h, m.num_rt_vars());
  h = Mix(h, m.IsKnownEmpty());
  for (const Variable& v : m.dims()) h = HashVariable(h, v);
  for (const Variable& v : m.range_vars()) h = HashVariable(h, v);
  for (const Variable& v : m.rt_vars()) h = HashVariable(h, v);
  for (Expr e : m.results()) h = Mix(h, ExprHash()(e));
  size_t constraints = 0;
  for (const Constraint& c : m.constraints()) {
    size_t one =
        Mix(ExprHash()(c.expr), std::hash<int64_t>()(c.interval.lower));
    constraints += Mix(one, std::hash<int64_t>()(c.interval.upper));
  }
  return Mix(h, constraints);
}

bool SameNames(const std::vector<Variable>& a, const std::vector<Variable>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name) return false;
  }
  return true;
}

// Structurally equal and printed alike: operator== ignores names.
bool Identical(const IndexingMap& a, const IndexingMap& b) {
  return a == b && SameNames(a.dims(), b.dims()) &&
         SameNames(a.range_vars(), b.range_vars()) &&
         SameNames(a.rt_vars(), b.rt_vars());
}

// Domain membership and results at fixed points of small coordinates (the
// same points for every map with the same number of dims).
uint64_t Fingerprint(const IndexingMap& m) {
  if (m.num_symbols() != 0) return MapPool::kGenericFingerprint;
  static constexpr int64_t kCoords[] = {0,  1,  2,  3,  5,   7,   8,
                                        15, 16, 31, 63, 100, 127, 255};
  constexpr int kNumCoords = sizeof(kCoords) / sizeof(kCoords[0]);
  const int n = m.num_dims();
  size_t h = Mix(Mix(n, m.num_results()), 0x5bd1e995);
  std::vector<int64_t> point(n);
  for (int j = 0; j < 2 * kNumCoords; ++j) {
    for (int i = 0; i < n; ++i) point[i] = kCoords[(j + 5 * i) % kNumCoords];
    auto in = m.InDomain(point, {});
    if (!in.ok()) return MapPool::kGenericFingerprint;
    h = Mix(h, *in);
    if (!*in) continue;
    auto r = m.Evaluate(point, {});
    if (!r.ok()) return MapPool::kGenericFingerprint;
    for (int64_t v : *r) h = Mix(h, std::hash<int64_t>()(v));
  }
  // 0 is reserved for the generic fingerprint.
  return h == MapPool::kGenericFingerprint ? 1 : h;
}

}  // namespace

MapId MapPool::Intern(IndexingMap map) {
  std::vector<MapId>& bucket = by_hash_[HashMap(map)];
  for (MapId id : bucket) {
    if (Identical(maps_[id], map)) return id;
  }
  const MapId id = static_cast<MapId>(maps_.size());
  fingerprints_.push_back(Fingerprint(map));
  maps_.push_back(std::move(map));
  bucket.push_back(id);
  return id;
}

Result<MapId> MapPool::Compose(MapId first, MapId second) {
  if (auto it = composed_.find(Key(first, second)); it != composed_.end()) {
    return it->second;
  }
  IXA_ASSIGN_OR_RETURN(
      IndexingMap composed,
      indexing_internal::ComposeWithProducers(maps_[first], maps_[second]));
  FinishMap(&composed);
  const MapId id = Intern(std::move(composed));
  composed_.emplace(Key(first, second), id);
  return id;
}

bool MapPool::Duplicates(MapId kept, MapId candidate) {
  if (kept == candidate) return true;
  auto [it, inserted] = duplicates_.try_emplace(Key(kept, candidate), false);
  if (inserted) {
    it->second = IndexingMapSet::Duplicates(maps_[kept], maps_[candidate]);
  }
  return it->second;
}

bool IdSet::Insert(MapId id, MapPool* pool) {
  const uint64_t fp = pool->fingerprint(id);
  // The kept maps that may duplicate `id`: all of them for a generic
  // fingerprint, else those of its own and of the generic one.
  auto duplicated_by = [&](const std::vector<MapId>& kept) {
    for (MapId k : kept) {
      if (k == id) return true;
    }
    for (MapId k : kept) {
      if (pool->Duplicates(k, id)) return true;
    }
    return false;
  };
  if (fp == MapPool::kGenericFingerprint) {
    if (duplicated_by(ids_)) return false;
  } else {
    auto own = by_fingerprint_.find(fp);
    if (own != by_fingerprint_.end() && duplicated_by(own->second)) {
      return false;
    }
    auto generic = by_fingerprint_.find(MapPool::kGenericFingerprint);
    if (generic != by_fingerprint_.end() && duplicated_by(generic->second)) {
      return false;
    }
  }
  ids_.push_back(id);
  by_fingerprint_[fp].push_back(id);
  return true;
}

}  // namespace ixa::fusion_internal
