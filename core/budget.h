// Budgets: every operation that can grow is bounded, so no request
// hangs and none runs out of memory.
//
// Two kinds of budget:
//
//  * Size and step budgets: deterministic constants next to the code they
//    bound (kMaxComposedTreeNodes below, simp::kMaxRuleFirings,
//    DecideOptions::budget, enumeration limits, ...). Hitting one answers
//    Error::Limit naming the operation and the budget, or, where the best
//    result so far is a valid answer (the simplifier), that result with a
//    flag.
//
//  * A wall-time deadline per thread, set by a DeadlineScope (the CLI opens
//    one per request from `--budget-ms`). Hot loops poll it with
//
//        if (DeadlineExpired("compose")) return DeadlineError();
//
//    The poll is cheap (a thread-local countdown; the clock is read once
//    every kDeadlinePollInterval polls), so it may sit in the innermost loop
//    of anything that can run long: the simplifier's fixpoint and rewriter,
//    the decision procedures, compose, fusion composition, utilization
//    counting, tile propagation, and (for the sessions that write them) the
//    emitter plans and the code generators. Once expired, every later poll
//    answers true until the scope closes, and the first operation that
//    noticed is remembered for the error message. Code that cannot return
//    an error (Simplify returns the best form so far) just stops early; the
//    caller that opened the scope then reports DeadlineError() for the whole
//    request, so a timed-out answer is never mistaken for a complete one
//    (output stays deterministic: a request either finishes or fails).
//
//    Without a scope (the default for library users) no deadline applies
//    and a poll costs one thread-local load and a branch.
#ifndef IXA_CORE_BUDGET_H_
#define IXA_CORE_BUDGET_H_

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "core/expr.h"
#include "core/result.h"

namespace ixa {

// The largest composed map ComposeIndexingMaps builds, in expression nodes
// counted as a tree (every result and constraint written out, which is what
// printing and every tree walk cost). Substituting one map into another
// shares subexpressions, so the tree of a chain of compositions can grow
// exponentially while the node graph stays small; past this size compose
// answers limit_exceeded instead of producing a map that nothing can print.
inline constexpr int64_t kMaxComposedTreeNodes = 1 << 17;

// Nodes of the expressions written out as trees (shared subexpressions
// counted once per use), saturating at cap + 1. Constant time per
// expression (each node records its tree size).
int64_t TreeSize(std::span<const Expr> exprs, int64_t cap);

// The clock is read once per this many polls.
inline constexpr int kDeadlinePollInterval = 32;

namespace budget_internal {
struct DeadlineState {
  bool active = false;
  bool expired = false;
  int countdown = 0;
  int64_t budget_ms = 0;
  std::chrono::steady_clock::time_point deadline;
  const char* expired_in = nullptr;
};
extern thread_local DeadlineState deadline_state;
bool ReadClock(const char* operation);
}  // namespace budget_internal

// Opens a deadline of `budget_ms` milliseconds from now on this thread
// (budget_ms <= 0: no deadline). Scopes nest; an inner scope can only
// shorten the deadline. The previous state comes back when it closes.
class DeadlineScope {
 public:
  explicit DeadlineScope(int64_t budget_ms);
  ~DeadlineScope();
  DeadlineScope(const DeadlineScope&) = delete;
  DeadlineScope& operator=(const DeadlineScope&) = delete;

 private:
  budget_internal::DeadlineState saved_;
};

// True once the current deadline has passed. `operation` names the caller
// (e.g. "simplify", "decide", "compose") for the error message.
inline bool DeadlineExpired(const char* operation) {
  budget_internal::DeadlineState& s = budget_internal::deadline_state;
  if (!s.active) return false;
  if (s.expired) return true;
  if (--s.countdown > 0) return false;
  return budget_internal::ReadClock(operation);
}

// The operation that first saw the deadline pass, or null when it has not
// passed (or no deadline is set).
const char* DeadlineExpiredIn();

// limit_exceeded: "time budget of N ms ran out in <operation>".
Error DeadlineError();

// The stack this thread must keep free: recursive code stops (and answers
// limit_exceeded) before it gets closer than this to the end of the stack.
inline constexpr int64_t kStackReserveBytes = int64_t{1} << 20;

// True when fewer than kStackReserveBytes of this thread's stack are left.
// For recursion whose depth a constant cannot bound safely in every build:
// frames are many times larger under ASan at -O0 than in Release, so a
// depth cap that is generous in Release overflows there. Code that checks
// this keeps a deterministic depth cap too (Release never reaches the
// reserve below it); the check only makes the sanitized and Debug builds
// refuse earlier instead of crashing. False when the stack's bounds are
// unknown (a platform without pthread_getattr_np).
bool StackNearlyExhausted();

}  // namespace ixa

#endif  // IXA_CORE_BUDGET_H_
