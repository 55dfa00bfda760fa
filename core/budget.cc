#include "core/budget.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

#include "core/int_math.h"
#include "core/node_map.h"
#include "core/small_vector.h"

namespace ixa {

namespace budget_internal {

thread_local DeadlineState deadline_state;

bool ReadClock(const char* operation) {
  DeadlineState& s = deadline_state;
  s.countdown = kDeadlinePollInterval;
  if (std::chrono::steady_clock::now() < s.deadline) return false;
  s.expired = true;
  s.expired_in = operation;
  return true;
}

}  // namespace budget_internal

using budget_internal::deadline_state;

namespace {

// The lowest address of this thread's stack (it grows down), or 0 when
// unknown. Read once per thread.
uintptr_t StackLowEnd() {
  thread_local uintptr_t low = [] {
    uintptr_t found = 0;
#if defined(__linux__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      size_t size = 0;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        found = reinterpret_cast<uintptr_t>(addr);
      }
      pthread_attr_destroy(&attr);
    }
#endif
    return found;
  }();
  return low;
}

}  // namespace

bool StackNearlyExhausted() {
  uintptr_t low = StackLowEnd();
  if (low == 0) return false;
  // The address of a local is where the stack is now (ASan may move
  // locals to a fake stack; the frame address is on the real one).
  uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return here < low + static_cast<uintptr_t>(kStackReserveBytes);
}

DeadlineScope::DeadlineScope(int64_t budget_ms) : saved_(deadline_state) {
  if (budget_ms <= 0) return;
  // About 30 years: keeps the clock arithmetic (in nanoseconds) in range.
  constexpr int64_t kLongestBudgetMs = int64_t{1} << 40;
  budget_ms = std::min(budget_ms, kLongestBudgetMs);
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(budget_ms);
  budget_internal::DeadlineState& s = deadline_state;
  if (s.active && s.deadline <= deadline) return;  // the outer one is sooner
  s.active = true;
  s.expired = false;
  s.expired_in = nullptr;
  s.countdown = 1;  // the first poll reads the clock
  s.budget_ms = budget_ms;
  s.deadline = deadline;
}

DeadlineScope::~DeadlineScope() {
  // An inner scope that expired also used up the outer deadline's time only
  // if the outer one has passed too; that is re-read at the next poll.
  deadline_state = saved_;
  if (deadline_state.active && !deadline_state.expired) {
    deadline_state.countdown = 1;
  }
}

const char* DeadlineExpiredIn() {
  const budget_internal::DeadlineState& s = deadline_state;
  return s.active && s.expired ? s.expired_in : nullptr;
}

Error DeadlineError() {
  const budget_internal::DeadlineState& s = deadline_state;
  std::string where = s.expired_in ? s.expired_in : "the request";
  return Error::Limit("time budget of " + std::to_string(s.budget_ms) +
                      " ms ran out in " + where);
}

namespace {

// Iterative post-order over distinct nodes (expressions can be deeper than
// the native stack allows), each node's tree size memoized: for trees too
// large for ExprNode::tree_size to record.
int64_t TreeSizeByWalking(std::span<const Expr> exprs, int64_t cap) {
  NodeMap<int64_t> size;
  struct Frame {
    const ExprNode* node;
    bool expanded;
  };
  SmallVector<Frame, 64> stack;
  const int64_t over = SaturatingAdd(cap, 1);
  int64_t total = 0;
  for (Expr root : exprs) {
    stack.push_back({root.node(), false});
    while (!stack.empty()) {
      Frame frame = stack.back();
      stack.pop_back();
      const ExprNode* node = frame.node;
      if (size.Contains(node)) continue;
      if (node->lhs == nullptr) {
        size.Put(node, 1);
        continue;
      }
      if (!frame.expanded) {
        stack.push_back({node, true});
        stack.push_back({node->lhs, false});
        stack.push_back({node->rhs, false});
        continue;
      }
      int64_t n = SaturatingAdd(
          1, SaturatingAdd(*size.Find(node->lhs), *size.Find(node->rhs)));
      size.Put(node, std::min(n, over));
    }
    total = std::min(SaturatingAdd(total, *size.Find(root.node())), over);
    if (total > cap) return total;
  }
  return total;
}

}  // namespace

int64_t TreeSize(std::span<const Expr> exprs, int64_t cap) {
  // Every node knows its own tree size (ExprNode::tree_size), which
  // saturates at UINT32_MAX: a saturated size is exact enough only when the
  // cap is below it; otherwise the walk counts.
  const int64_t over = SaturatingAdd(cap, 1);
  int64_t total = 0;
  for (Expr root : exprs) {
    if (root.tree_size() == UINT32_MAX && cap >= int64_t{UINT32_MAX}) {
      return TreeSizeByWalking(exprs, cap);
    }
    int64_t size = std::min<int64_t>(root.tree_size(), over);
    total = std::min(SaturatingAdd(total, size), over);
    if (total > cap) return total;
  }
  return total;
}

}  // namespace ixa
