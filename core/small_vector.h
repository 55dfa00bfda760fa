// A vector with room for N elements inline: no heap allocation until it
// outgrows them (the hot paths must not allocate per node or per
// sum term; most sums have a handful of terms, most maps a handful of
// variables). For trivially copyable element types only, which keeps it
// small: growth and copies are memcpy, and nothing is destroyed.
#ifndef IXA_CORE_SMALL_VECTOR_H_
#define IXA_CORE_SMALL_VECTOR_H_

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <utility>

namespace ixa {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> &&
                    std::is_trivially_destructible_v<T>,
                "SmallVector holds trivially copyable types only");
  static_assert(N > 0);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;
  using size_type = size_t;

  SmallVector() = default;
  SmallVector(std::initializer_list<T> init) {
    assign(init.begin(), init.end());
  }
  SmallVector(size_t n, const T& v) { resize(n, v); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { Steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      Release();
      Steal(o);
    }
    return *this;
  }
  ~SmallVector() { Release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > capacity_) Grow(n);
  }
  void push_back(const T& v) {
    if (size_ == capacity_) {
      T copy = v;  // v may live in this vector
      Grow(capacity_ * 2);
      data_[size_++] = copy;
      return;
    }
    data_[size_++] = v;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }
  void pop_back() { --size_; }
  // New elements are value-initialized.
  void resize(size_t n) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = T{};
    size_ = n;
  }
  void resize(size_t n, const T& v) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  template <typename It>
  void assign(It first, It last) {
    size_ = 0;
    reserve(static_cast<size_t>(std::distance(first, last)));
    for (; first != last; ++first) data_[size_++] = *first;
  }
  void assign(size_t n, const T& v) {
    size_ = 0;
    resize(n, v);
  }
  T* erase(T* first, T* last) {
    std::memmove(static_cast<void*>(first), last,
                 static_cast<size_t>(end() - last) * sizeof(T));
    size_ -= static_cast<size_t>(last - first);
    return first;
  }
  T* erase(T* pos) { return erase(pos, pos + 1); }
  T* insert(T* pos, const T& v) {
    size_t at = static_cast<size_t>(pos - data_);
    T copy = v;
    if (size_ == capacity_) Grow(capacity_ * 2);
    std::memmove(static_cast<void*>(data_ + at + 1), data_ + at,
                 (size_ - at) * sizeof(T));
    data_[at] = copy;
    ++size_;
    return data_ + at;
  }

  bool operator==(const SmallVector& o) const {
    return std::equal(begin(), end(), o.begin(), o.end());
  }
  bool operator<(const SmallVector& o) const {  // lexicographic, as vector
    return std::lexicographical_compare(begin(), end(), o.begin(), o.end());
  }

 private:
  bool IsInline() const { return data_ == Inline(); }
  T* Inline() { return reinterpret_cast<T*>(inline_); }
  const T* Inline() const { return reinterpret_cast<const T*>(inline_); }
  void Grow(size_t n) {
    n = std::max(n, 2 * capacity_);
    T* heap = static_cast<T*>(::operator new(n * sizeof(T)));
    std::memcpy(static_cast<void*>(heap), data_, size_ * sizeof(T));
    if (!IsInline()) ::operator delete(data_);
    data_ = heap;
    capacity_ = n;
  }
  void Release() {
    if (!IsInline()) ::operator delete(data_);
    data_ = Inline();
    capacity_ = N;
    size_ = 0;
  }
  // Takes o's heap buffer, or copies its inline elements; o ends empty.
  void Steal(SmallVector& o) {
    if (o.IsInline()) {
      data_ = Inline();
      capacity_ = N;
      std::memcpy(static_cast<void*>(data_), o.data_, o.size_ * sizeof(T));
      size_ = o.size_;
    } else {
      data_ = o.data_;
      capacity_ = o.capacity_;
      size_ = o.size_;
      o.data_ = o.Inline();
      o.capacity_ = N;
    }
    o.size_ = 0;
  }

  T* data_ = Inline();
  size_t size_ = 0;
  size_t capacity_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace ixa

#endif  // IXA_CORE_SMALL_VECTOR_H_
