// Internal to analysis/: the maps of one fusion walk, each distinct map
// stored once and named by a small id, with the walk's two costly steps
// memoized per pair of ids.
//
// A fusion of N instructions carries a handful of distinct maps that recur
// at almost every instruction (an elementwise chain passes the same maps
// down; a transpose or a dot adds the same few variants each time). Stored
// per instruction as values, N * maps copies are built, simplified,
// compared by the equivalence decision and freed: a 100,000-instruction
// module spent seconds and hundreds of megabytes there. With ids:
//   - a map is built once (Intern: hashed, then compared exactly — the
//     variable names included, so an id stands for one printed form);
//   - consumer ∘ producer is composed and simplified once per pair of ids
//     (Compose);
//   - IndexingMapSet's dedup rule (IndexingMapSet::Duplicates) is decided
//     once per ordered pair of ids (Duplicates);
// and IdSet keeps IndexingMapSet's insertion order and dedup exactly, so
// the maps, and their order, are the ones the value-based walk gave.
#ifndef IXA_ANALYSIS_FUSION_MAP_POOL_H_
#define IXA_ANALYSIS_FUSION_MAP_POOL_H_

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "analysis/indexing/indexing.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa::fusion_internal {

using MapId = uint32_t;

class MapPool {
 public:
  // The id of `map`, adding it when no identical map (operator== and the
  // same variable names) is pooled yet.
  MapId Intern(IndexingMap map);
  const IndexingMap& map(MapId id) const { return maps_[id]; }
  size_t size() const { return maps_.size(); }

  // `second` ∘ `first` (first applied first) with runtime producers kept
  // consistent, then FinishMap: the step of every fusion walk.
  Result<MapId> Compose(MapId first, MapId second);
  // IndexingMapSet::Duplicates(map(kept), map(candidate)), memoized.
  bool Duplicates(MapId kept, MapId candidate);

 private:
  static uint64_t Key(MapId a, MapId b) {
    return (static_cast<uint64_t>(a) << 32) | b;
  }
  std::deque<IndexingMap> maps_;  // stable references while growing
  std::unordered_map<size_t, std::vector<MapId>> by_hash_;
  std::unordered_map<uint64_t, MapId> composed_;
  std::unordered_map<uint64_t, bool> duplicates_;
};

// An IndexingMapSet of pooled ids: insertion order kept, a candidate
// dropped when it is an id already in the set or a Duplicate of a kept map.
class IdSet {
 public:
  bool Insert(MapId id, MapPool* pool);
  const std::vector<MapId>& ids() const { return ids_; }
  size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }

 private:
  std::vector<MapId> ids_;
};

}  // namespace ixa::fusion_internal

#endif  // IXA_ANALYSIS_FUSION_MAP_POOL_H_
