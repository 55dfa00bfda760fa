// A hash map keyed by expression node, for the per-call memo tables of
// substitution, composition and the simplifier (no heap allocation per
// node on the hot paths). Open addressing on the node's own
// structural hash; filled and overwritten, never erased from. The first
// kInline slots live inside the object, so a small expression's walk
// allocates nothing; past half of them the table moves to the heap and
// doubles.
#ifndef IXA_CORE_NODE_MAP_H_
#define IXA_CORE_NODE_MAP_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>

#include "core/expr.h"

namespace ixa {

template <typename V, size_t kInline = 64>
class NodeMap {
  static_assert((kInline & (kInline - 1)) == 0, "a power of two");
  static_assert(std::is_trivially_copyable_v<V>);

 public:
  NodeMap() = default;
  NodeMap(const NodeMap&) = delete;
  NodeMap& operator=(const NodeMap&) = delete;

  V* Find(const ExprNode* key) {
    size_t mask = capacity_ - 1;
    for (size_t i = key->hash & mask;; i = (i + 1) & mask) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == nullptr) return nullptr;
    }
  }
  const V* Find(const ExprNode* key) const {
    return const_cast<NodeMap*>(this)->Find(key);
  }
  bool Contains(const ExprNode* key) const { return Find(key) != nullptr; }
  // Inserts or overwrites.
  void Put(const ExprNode* key, const V& value) {
    if ((size_ + 1) * 2 > capacity_) Grow();
    size_t i = SlotOf(key);
    if (keys_[i] == nullptr) {
      keys_[i] = key;
      ++size_;
    }
    values_[i] = value;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void Clear() {
    std::fill(keys_, keys_ + capacity_, nullptr);
    size_ = 0;
  }

 private:
  // The slot holding key, or the empty slot where it goes.
  size_t SlotOf(const ExprNode* key) const {
    size_t mask = capacity_ - 1;
    size_t i = key->hash & mask;
    while (keys_[i] != nullptr && keys_[i] != key) i = (i + 1) & mask;
    return i;
  }
  void Grow() {
    size_t capacity = capacity_ * 2;
    auto keys = std::make_unique<const ExprNode*[]>(capacity);  // zeroed
    auto values = std::make_unique_for_overwrite<V[]>(capacity);
    size_t mask = capacity - 1;
    for (size_t k = 0; k < capacity_; ++k) {
      const ExprNode* key = keys_[k];
      if (key == nullptr) continue;
      size_t i = key->hash & mask;
      while (keys[i] != nullptr) i = (i + 1) & mask;
      keys[i] = key;
      values[i] = values_[k];
    }
    heap_keys_ = std::move(keys);
    heap_values_ = std::move(values);
    keys_ = heap_keys_.get();
    values_ = heap_values_.get();
    capacity_ = capacity;
  }

  const ExprNode* inline_keys_[kInline] = {};
  // Values are written before they are read: raw storage, not initialized.
  alignas(V) unsigned char inline_values_[kInline * sizeof(V)];
  const ExprNode** keys_ = inline_keys_;
  V* values_ = reinterpret_cast<V*>(inline_values_);
  size_t capacity_ = kInline;
  size_t size_ = 0;
  std::unique_ptr<const ExprNode*[]> heap_keys_;
  std::unique_ptr<V[]> heap_values_;
};

}  // namespace ixa

#endif  // IXA_CORE_NODE_MAP_H_
