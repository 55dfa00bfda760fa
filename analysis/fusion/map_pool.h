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
  // Equal for maps that may Duplicate each other; kGenericFingerprint for
  // maps it says nothing about (range or runtime variables). A map of its
  // dims alone is a function: its fingerprint hashes its domain membership
  // and results at fixed points, so maps with different fingerprints
  // differ somewhere and are never duplicates (no decision needed).
  static constexpr uint64_t kGenericFingerprint = 0;
  uint64_t fingerprint(MapId id) const { return fingerprints_[id]; }

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
  std::vector<uint64_t> fingerprints_;
  std::unordered_map<size_t, std::vector<MapId>> by_hash_;
  std::unordered_map<uint64_t, MapId> composed_;
  std::unordered_map<uint64_t, bool> duplicates_;
};

// An IndexingMapSet of pooled ids: insertion order kept, a candidate
// dropped when it is an id already in the set or a Duplicate of a kept map.
// A candidate is compared only with the kept maps of its fingerprint and
// those of the generic one (all of them when its own is generic): sets of
// thousands of maps (fusions whose paths fan out) stay near-linear.
class IdSet {
 public:
  bool Insert(MapId id, MapPool* pool);
  const std::vector<MapId>& ids() const { return ids_; }
  size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }

 private:
  std::vector<MapId> ids_;
  std::unordered_map<uint64_t, std::vector<MapId>> by_fingerprint_;
};

}  // namespace ixa::fusion_internal

#endif  // IXA_ANALYSIS_FUSION_MAP_POOL_H_
