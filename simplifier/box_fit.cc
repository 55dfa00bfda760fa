#include "simplifier/box_fit.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <utility>

#include "core/int_math.h"
#include "core/node_map.h"
#include "core/small_vector.h"
#include "simplifier/facts.h"

namespace ixa::simp {

namespace {

// Variable values of one box point: var[i] has value value[i]. Few
// variables, so a linear search by node beats any map.
struct Point {
  std::array<const ExprNode*, kMaxBoxVariables> var{};
  std::array<int64_t, kMaxBoxVariables> value{};
  int n = 0;
};

// a op b for a binary kind, exactly in int64; false on overflow or a zero
// divisor. Shared by the tree walk and the postfix program.
bool ApplyBinary(ExprKind kind, int64_t a, int64_t b, int64_t* out) {
  std::optional<int64_t> v;
  switch (kind) {
    case ExprKind::kAdd:
      return !__builtin_add_overflow(a, b, out);
    case ExprKind::kMul:
      return !__builtin_mul_overflow(a, b, out);
    case ExprKind::kFloorDiv:
      v = FloorDiv(a, b);
      break;
    case ExprKind::kCeilDiv:
      v = CeilDiv(a, b);
      break;
    case ExprKind::kMod:
      v = Mod(a, b);
      break;
    case ExprKind::kMin:
      *out = std::min(a, b);
      return true;
    case ExprKind::kMax:
      *out = std::max(a, b);
      return true;
    case ExprKind::kConstant:
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      return false;  // not binary
  }
  if (!v) return false;
  *out = *v;
  return true;
}

// Exact int64 evaluation into *out; false on overflow, a zero divisor or
// a variable that the point does not set. (A bool and an out-parameter, not
// an optional: the fits evaluate thousands of small trees per chain.)
bool EvalInto(const ExprNode* e, const Point& p, int64_t* out) {
  switch (e->kind) {
    case ExprKind::kConstant:
      *out = e->value;
      return true;
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      for (int i = 0; i < p.n; ++i) {
        if (p.var[i] == e) {
          *out = p.value[i];
          return true;
        }
      }
      return false;
    default:
      break;
  }
  int64_t a, b;
  return EvalInto(e->lhs, p, &a) && EvalInto(e->rhs, p, &b) &&
         ApplyBinary(e->kind, a, b, out);
}

std::optional<int64_t> Eval(const ExprNode* e, const Point& p) {
  int64_t v;
  if (!EvalInto(e, p, &v)) return std::nullopt;
  return v;
}

// An expression compiled to postfix once per fit, its variables resolved
// to slots of the point: a fit evaluates one tree at several points, and
// the tree walk (a variable search per leaf) cost more than the
// arithmetic. Trees past kMaxProgram written-out nodes are walked instead.
class PostfixProgram {
 public:
  static constexpr size_t kMaxProgram = 128;

  // False (nothing compiled) for a tree too large or a variable that p
  // does not set.
  bool Compile(const ExprNode* root, const Point& p) {
    if (root->tree_size > kMaxProgram) return false;
    ops_.clear();
    return Emit(root, p);
  }

  bool Run(const Point& p, int64_t* out) const {
    int64_t stack[kMaxProgram];
    int top = 0;
    for (const Op& op : ops_) {
      switch (op.kind) {
        case ExprKind::kConstant:
          stack[top++] = op.arg;
          continue;
        case ExprKind::kDim:  // any variable: arg is its slot in p
          stack[top++] = p.value[op.arg];
          continue;
        default:
          break;
      }
      int64_t b = stack[--top];
      int64_t& a = stack[top - 1];
      if (!ApplyBinary(op.kind, a, b, &a)) return false;
    }
    *out = stack[0];
    return true;
  }

 private:
  struct Op {
    ExprKind kind;
    int64_t arg;
  };

  bool Emit(const ExprNode* e, const Point& p) {
    switch (e->kind) {
      case ExprKind::kConstant:
        ops_.push_back({ExprKind::kConstant, e->value});
        return true;
      case ExprKind::kDim:
      case ExprKind::kSymbol:
        for (int i = 0; i < p.n; ++i) {
          if (p.var[i] == e) {
            ops_.push_back({ExprKind::kDim, i});
            return true;
          }
        }
        return false;
      default:
        if (!Emit(e->lhs, p) || !Emit(e->rhs, p)) return false;
        ops_.push_back({e->kind, 0});
        return true;
    }
  }

  SmallVector<Op, kMaxProgram> ops_;
};

// What the box enumerations of one ExprContext found (RememberFailedFits).
// The genuine failures of FitAffineOnBox: a fit is a
// function of the expression and the box only, and the steps of a
// composition chain re-simplify the chain's unchanged subexpressions (a
// `d0 floordiv 2` of the first map is fitted again at every step, and the
// rewriter tries a one-variable node by div.affine_in_one_variable and then
// by div.affine_on_box on the same box): on the peers' W2, 2075 of 2979
// fits repeated an earlier failure of the same item. Failures for lack of
// budget are not recorded (more budget may succeed). And the answers of
// AllowedValues, a function of its arguments only, which the same steps
// ask again for the chain's single-variable constraints.
class BoxRecord : public ExprContext::Attachment {
 public:
  // At most this many failures, and this many words of boxes (a box with
  // value lists can take a few thousand), are kept per context; past them
  // nothing more is recorded (lookups still work).
  static constexpr size_t kMaxEntries = 4096;
  static constexpr size_t kMaxKeyWords = size_t{1} << 16;

  const void* kind() const override { return &kKind; }

  BoxRecord() = default;

  // The record of ctx, or null when RememberFailedFits was not called.
  static BoxRecord* Of(ExprContext* ctx) {
    ExprContext::Attachment* a = ctx->attachment();
    return a != nullptr && a->kind() == &kKind ? static_cast<BoxRecord*>(a)
                                               : nullptr;
  }

  static void Attach(ExprContext* ctx) {
    if (ctx->attachment() == nullptr) {
      ctx->set_attachment(std::make_unique<BoxRecord>());
    }
  }

  bool Contains(const ExprNode* e, std::span<const BoxAxis> axes) const {
    const uint32_t* head = heads_.Find(e);
    for (uint32_t i = head ? *head : 0; i != 0; i = entries_[i - 1].next) {
      if (SameBox(entries_[i - 1], axes)) return true;
    }
    return false;
  }

  // The recorded answer of AllowedValues(var, range, exprs, intervals), if
  // any.
  const std::optional<std::vector<int64_t>>* FindValues(
      Expr var, const Interval& range, std::span<const Expr> exprs,
      std::span<const Interval> intervals) const {
    const uint32_t* head = value_heads_.Find(var.node());
    for (uint32_t i = head ? *head : 0; i != 0; i = values_[i - 1].next) {
      const ValuesEntry& v = values_[i - 1];
      if (v.range == range && SameList(v, exprs, intervals)) return &v.answer;
    }
    return nullptr;
  }

  void AddValues(Expr var, const Interval& range, std::span<const Expr> exprs,
                 std::span<const Interval> intervals,
                 const std::optional<std::vector<int64_t>>& answer) {
    size_t words = answer ? answer->size() : 0;
    if (values_.size() >= kMaxEntries ||
        value_words_ + words + exprs.size() > kMaxKeyWords) {
      return;
    }
    value_words_ += words + exprs.size();
    const uint32_t* head = value_heads_.Find(var.node());
    if (values_.empty()) values_.reserve(16);
    ValuesEntry& v = values_.emplace_back();
    v.range = range;
    v.exprs.assign(exprs.begin(), exprs.end());
    v.intervals.assign(intervals.begin(), intervals.end());
    v.answer = answer;
    v.next = head ? *head : 0;
    value_heads_.Put(var.node(), static_cast<uint32_t>(values_.size()));
  }

  void Add(const ExprNode* e, std::span<const BoxAxis> axes) {
    size_t words = 0;
    for (const BoxAxis& a : axes)
      words += 4 + (a.values ? a.values->size() : 0);
    if (entries_.size() >= kMaxEntries || keys_.size() + words > kMaxKeyWords) {
      return;
    }
    if (entries_.empty()) {
      // Reserved at the first failure, not at Attach: most chains' final
      // simplification records few failures or none.
      keys_.reserve(256);
      entries_.reserve(32);
    }
    const uint32_t* head = heads_.Find(e);
    Entry entry{keys_.size(), 0, head ? *head : 0};
    for (const BoxAxis& a : axes) {
      keys_.push_back(reinterpret_cast<intptr_t>(a.var.node()));
      keys_.push_back(a.lo);
      keys_.push_back(a.hi);
      keys_.push_back(a.values ? static_cast<int64_t>(a.values->size()) : -1);
      if (a.values)
        keys_.insert(keys_.end(), a.values->begin(), a.values->end());
    }
    entry.size = keys_.size() - entry.begin;
    entries_.push_back(entry);
    heads_.Put(e, static_cast<uint32_t>(entries_.size()));
  }

 private:
  static constexpr char kKind = 0;

  // The box of one failure: keys_[begin, begin + size) holds, per axis, the
  // variable's node address, lo, hi, and the number of listed values (-1:
  // the whole interval) followed by the values.
  struct Entry {
    size_t begin;
    size_t size;
    uint32_t next;  // 1 + index of the node's previous entry, or 0
  };

  bool SameBox(const Entry& entry, std::span<const BoxAxis> axes) const {
    const int64_t* k = keys_.data() + entry.begin;
    const int64_t* end = k + entry.size;
    for (const BoxAxis& a : axes) {
      if (end - k < 4 || k[0] != reinterpret_cast<intptr_t>(a.var.node()) ||
          k[1] != a.lo || k[2] != a.hi) {
        return false;
      }
      int64_t count = a.values ? static_cast<int64_t>(a.values->size()) : -1;
      if (k[3] != count) return false;
      k += 4;
      if (count > 0) {
        if (end - k < count || !std::equal(k, k + count, a.values->begin())) {
          return false;
        }
        k += count;
      }
    }
    return k == end;
  }

  struct ValuesEntry {
    Interval range;
    // Inline: a variable has a constraint or two (no allocation per entry).
    SmallVector<Expr, 2> exprs;
    SmallVector<Interval, 2> intervals;
    std::optional<std::vector<int64_t>> answer;
    uint32_t next;  // 1 + index of the variable's previous entry, or 0
  };

  static bool SameList(const ValuesEntry& v, std::span<const Expr> exprs,
                       std::span<const Interval> intervals) {
    return v.exprs.size() == exprs.size() &&
           std::equal(exprs.begin(), exprs.end(), v.exprs.begin()) &&
           std::equal(intervals.begin(), intervals.end(), v.intervals.begin());
  }

  std::vector<int64_t> keys_;
  std::vector<Entry> entries_;
  std::vector<ValuesEntry> values_;
  size_t value_words_ = 0;
  NodeMap<uint32_t, 16> value_heads_;  // var -> 1 + index of its latest entry
  NodeMap<uint32_t, 16> heads_;        // node -> 1 + index of its latest entry
};

// FitAffineOnBox without the record of failures; sets *out_of_budget when
// it failed for lack of budget.
std::optional<LinearSum> Fit(Expr e, std::span<const BoxAxis> axes,
                             int64_t* budget, bool* out_of_budget);

}  // namespace

bool CollectVariables(Expr e, std::span<Expr> vars, int* count) {
  if (e.IsVariable()) {
    for (int i = 0; i < *count; ++i) {
      if (vars[i] == e) return true;
    }
    if (static_cast<size_t>(*count) >= vars.size()) return false;
    vars[(*count)++] = e;
    return true;
  }
  if (!e.IsBinary()) return true;
  return CollectVariables(e.lhs(), vars, count) &&
         CollectVariables(e.rhs(), vars, count);
}

std::optional<LinearSum> FitAffineOnBox(Expr e, std::span<const BoxAxis> axes,
                                        int64_t* budget) {
  bool out_of_budget = false;
  BoxRecord* failed = BoxRecord::Of(e.context());
  if (failed == nullptr) return Fit(e, axes, budget, &out_of_budget);
  if (failed->Contains(e.node(), axes)) return std::nullopt;
  auto fit = Fit(e, axes, budget, &out_of_budget);
  if (!fit && !out_of_budget) failed->Add(e.node(), axes);
  return fit;
}

void RememberFailedFits(ExprContext* ctx) { BoxRecord::Attach(ctx); }

namespace {

std::optional<LinearSum> Fit(Expr e, std::span<const BoxAxis> axes,
                             int64_t* budget, bool* out_of_budget) {
  const int n = static_cast<int>(axes.size());
  if (n > kMaxBoxVariables) return std::nullopt;
  Point p;
  p.n = n;
  for (int i = 0; i < n; ++i) {
    if (axes[i].size() <= 0) return std::nullopt;
    p.var[i] = axes[i].var.node();
    p.value[i] = axes[i].at(0);
  }
  const ExprNode* root = e.node();
  PostfixProgram program;
  const bool compiled = program.Compile(root, p);
  auto eval = [&]() -> std::optional<int64_t> {
    int64_t v;
    if (!(compiled ? program.Run(p, &v) : EvalInto(root, p, &v))) {
      return std::nullopt;
    }
    return v;
  };
  auto take = [budget, out_of_budget]() {
    if ((*budget)-- > 0) return true;
    *out_of_budget = true;
    return false;
  };
  if (!take()) return std::nullopt;
  auto base = eval();
  if (!base) return std::nullopt;
  // Candidate form: c_i from one step along each axis.
  std::array<int64_t, kMaxBoxVariables> coeff{};
  for (int i = 0; i < n; ++i) {
    if (axes[i].size() < 2) continue;
    if (!take()) return std::nullopt;
    p.value[i] = axes[i].at(1);
    auto v = eval();
    p.value[i] = axes[i].at(0);
    if (!v) return std::nullopt;
    auto diff = CheckedSub(*v, *base);
    auto step = CheckedSub(axes[i].at(1), axes[i].at(0));
    if (!diff || !step || *step <= 0 || *diff % *step != 0) {
      return std::nullopt;
    }
    coeff[i] = *diff / *step;
  }
  // offset = base - sum_i c_i * at(0).
  int64_t offset = *base;
  for (int i = 0; i < n; ++i) {
    auto t = CheckedMul(coeff[i], axes[i].at(0));
    auto o = t ? CheckedSub(offset, *t) : std::nullopt;
    if (!o) return std::nullopt;
    offset = *o;
  }
  std::array<int64_t, kMaxBoxVariables> index{};
  auto matches = [&]() -> bool {
    if (!take()) return false;
    int64_t want = offset;
    for (int i = 0; i < n; ++i) {
      auto t = CheckedMul(coeff[i], p.value[i]);
      auto w = t ? CheckedAdd(want, *t) : std::nullopt;
      if (!w) return false;
      want = *w;
    }
    auto got = eval();
    return got && *got == want;
  };
  auto set_index = [&](int i, int64_t k) {
    index[i] = k;
    p.value[i] = axes[i].at(k);
  };
  // Far ends of each axis, then the far corner.
  for (int i = 0; i < n; ++i) {
    if (axes[i].size() < 3) continue;
    set_index(i, axes[i].size() - 1);
    if (!matches()) return std::nullopt;
    set_index(i, 0);
  }
  if (n > 1) {
    for (int i = 0; i < n; ++i) set_index(i, axes[i].size() - 1);
    if (!matches()) return std::nullopt;
    for (int i = 0; i < n; ++i) set_index(i, 0);
  }
  // Every point (odometer order, first axis fastest).
  while (true) {
    if (!matches()) return std::nullopt;
    int i = 0;
    for (; i < n; ++i) {
      if (index[i] + 1 < axes[i].size()) {
        set_index(i, index[i] + 1);
        break;
      }
      set_index(i, 0);
    }
    if (i == n) break;
  }
  LinearSum out;
  out.constant = offset;
  for (int i = 0; i < n; ++i) {
    if (coeff[i] != 0) out.terms.push_back({axes[i].var, coeff[i]});
  }
  if (!Normalize(&out)) return std::nullopt;
  return out;
}

}  // namespace

namespace {

std::optional<std::vector<int64_t>> EnumerateAllowedValues(
    Expr var, const Interval& range, std::span<const Expr> exprs,
    std::span<const Interval> intervals);

}  // namespace

std::optional<std::vector<int64_t>> AllowedValues(
    Expr var, const Interval& range, std::span<const Expr> exprs,
    std::span<const Interval> intervals) {
  if (!IsFinite(range) || range.Size() > kMaxBoxPoints) return std::nullopt;
  BoxRecord* record = BoxRecord::Of(var.context());
  if (record == nullptr) {
    return EnumerateAllowedValues(var, range, exprs, intervals);
  }
  if (const auto* known = record->FindValues(var, range, exprs, intervals)) {
    return *known;
  }
  auto answer = EnumerateAllowedValues(var, range, exprs, intervals);
  record->AddValues(var, range, exprs, intervals, answer);
  return answer;
}

namespace {

std::optional<std::vector<int64_t>> EnumerateAllowedValues(
    Expr var, const Interval& range, std::span<const Expr> exprs,
    std::span<const Interval> intervals) {
  Point p;
  p.n = 1;
  p.var[0] = var.node();
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(range.Size()));  // at most kMaxBoxPoints
  // The variable's value at its position, for the exact evaluation below
  // (filled on first use: overflow is rare).
  std::vector<int64_t> dims, symbols;
  std::vector<int64_t>& slot = var.IsDim() ? dims : symbols;
  for (int64_t v = range.lower;; ++v) {
    p.value[0] = v;
    bool ok = true;
    for (size_t i = 0; i < exprs.size() && ok; ++i) {
      auto got = Eval(exprs[i].node(), p);
      if (!got) {
        // Overflow on the way (or a zero divisor): evaluate exactly. A
        // value past int64 saturates and meets an interval end at the
        // limit (the unbounded sentinel) and no other, as in InDomain;
        // giving up here made the answer depend on the order of the
        // constraints (difftest).
        if (slot.empty())
          slot.assign(static_cast<size_t>(var.position()) + 1, 0);
        slot.back() = v;
        auto exact = EvaluateSaturated(exprs[i], dims, symbols);
        if (!exact.ok()) return std::nullopt;
        got = *exact;
      }
      ok = intervals[i].Contains(*got);
    }
    if (ok) out.push_back(v);
    if (v == range.upper) break;
  }
  return out;
}

}  // namespace

}  // namespace ixa::simp
