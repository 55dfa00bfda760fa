// Whether a module's index arithmetic fits in 32 bits. The CUDA printer
// computes indices in `int` where it does, as XLA's emitters do for
// kernels whose shapes fit in int32: 64-bit index arithmetic costs GPU
// registers (two per value) and instructions (64-bit division is a
// subroutine call), enough to make large unrolled kernels spill.
//
// The ranges here are the values an expression can take when it is
// evaluated, which may be outside an indexing map's domain (a map applied
// before the guard that tests its domain): unlike the nodes' own ranges,
// they are never intersected with a map's bounds. Every subexpression is
// checked, since C evaluates each one in the index type.
#include <map>
#include <unordered_map>

#include "emit/ir/kernel_ir.h"

namespace ixa::emit::ir {
namespace {

constexpr int64_t kIndex32Max = 2147483647;
constexpr int64_t kIndex32Min = -kIndex32Max - 1;

bool FitsInt32(const Interval& r) {
  return !r.IsEmpty() && r.lower >= kIndex32Min && r.upper <= kIndex32Max;
}

// Index ranges over one body: its variables' ranges, calls' argument
// ranges, and whether every index value seen fits.
class IndexWidthChecker {
 public:
  explicit IndexWidthChecker(
      std::map<std::string, std::vector<Interval>>* call_args)
      : call_args_(call_args) {}

  void Define(const std::string& name, Interval r) {
    auto [it, inserted] = vars_.emplace(name, r);
    if (!inserted) it->second = it->second.Union(r);
    Check(r);
  }

  void WalkBlock(const Block& block) {
    for (const Stmt& s : block) WalkStmt(s);
  }

  bool fits() const { return fits_; }

 private:
  void Check(const Interval& r) {
    if (!FitsInt32(r)) fits_ = false;
  }

  void WalkStmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::kLet: {
        Interval r = Visit(s.value);
        if (s.type == Type::kIndex) Define(s.name, r);
        break;
      }
      case StmtKind::kDeclare:
      case StmtKind::kAssign:
        Visit(s.value);
        // A mutable index variable's values are not tracked.
        if (s.type == Type::kIndex) Define(s.name, Interval::Full());
        break;
      case StmtKind::kFor:
        Define(s.name, Interval{s.lo, s.hi - 1});
        Check(Interval{s.lo, s.hi});
        WalkBlock(s.body);
        break;
      case StmtKind::kIf:
        Visit(s.value);
        WalkBlock(s.body);
        WalkBlock(s.else_body);
        break;
      case StmtKind::kCall: {
        std::vector<Interval> args;
        for (const Val& a : s.args) args.push_back(Visit(a));
        auto [it, inserted] = call_args_->emplace(s.name, args);
        if (!inserted && it->second.size() == args.size()) {
          for (size_t i = 0; i < args.size(); ++i) {
            it->second[i] = it->second[i].Union(args[i]);
          }
        }
        for (size_t i = 0; i < s.result_types.size(); ++i) {
          if (s.result_types[i] == Type::kIndex) {
            Define(s.results[i], Interval::Full());
          }
        }
        break;
      }
      case StmtKind::kReturn:
        for (const Val& a : s.args) Visit(a);
        break;
      default:
        if (s.value) Visit(s.value);
        for (const Val& i : s.indices) Visit(i);
        break;
    }
  }

  // The range of an affine subexpression at operand ranges, checking
  // every subexpression on the way.
  Interval AffineRange(Expr e, const std::vector<Interval>& dims,
                       const std::vector<Interval>& symbols) {
    Interval r;
    switch (e.kind()) {
      case ExprKind::kConstant:
      case ExprKind::kDim:
      case ExprKind::kSymbol:
        r = ExprRange(e, dims, symbols);
        break;
      default:
        r = BinaryExprRange(e.kind(), AffineRange(e.lhs(), dims, symbols),
                            AffineRange(e.rhs(), dims, symbols));
    }
    Check(r);
    return r;
  }

  Interval Visit(const Val& v) {
    auto it = memo_.find(v.get());
    if (it != memo_.end()) return it->second;
    Interval r = Compute(*v);
    if (v->type == Type::kIndex) Check(r);
    memo_.emplace(v.get(), r);
    return r;
  }

  Interval Compute(const Node& n) {
    if (n.kind == NodeKind::kOp && n.op == OpCode::kClampIndex) {
      // The clamp is computed in 64 bits (its value may come from a 64-bit
      // integer), so only its bounds and result need to fit.
      const Val& x = n.operands[0];
      if (x->kind == NodeKind::kOp && x->op == OpCode::kToIndex) {
        Visit(x->operands[0]);
      } else {
        Visit(x);
      }
      Interval lo = Visit(n.operands[1]);
      Interval hi = Visit(n.operands[2]);
      return Interval{lo.lower, hi.upper};
    }
    std::vector<Interval> ops;
    for (const Val& o : n.operands) ops.push_back(Visit(o));
    if (n.type != Type::kIndex) return Interval::Full();
    switch (n.kind) {
      case NodeKind::kConst:
        return Interval::Point(n.int_value);
      case NodeKind::kVar: {
        if (n.var_kind != VarKind::kLocal) return n.range;  // grid ids
        auto var = vars_.find(n.name);
        return var == vars_.end() ? Interval::Full() : var->second;
      }
      case NodeKind::kApply: {
        const IndexingMap& map = *n.map;
        std::vector<Interval> dims(ops.begin(), ops.begin() + map.num_dims());
        std::vector<Interval> symbols(ops.begin() + map.num_dims(), ops.end());
        return AffineRange(map.results()[n.result], dims, symbols);
      }
      case NodeKind::kOp:
        switch (n.op) {
          case OpCode::kAdd:
            return ops[0] + ops[1];
          case OpCode::kSub:
            return ops[0] - ops[1];
          case OpCode::kMul:
            return ops[0] * ops[1];
          case OpCode::kMax:
            return ops[0].Max(ops[1]);
          case OpCode::kMin:
            return ops[0].Min(ops[1]);
          case OpCode::kSelect:
            return ops[1].Union(ops[2]);
          case OpCode::kToIndex:
            return n.range;
          default:
            // Full unless the builder knew better (a swizzle's xor stays
            // within its tile).
            return n.range;
        }
      default:
        return Interval::Full();
    }
  }

  std::map<std::string, std::vector<Interval>>* call_args_;
  std::unordered_map<std::string, Interval> vars_;
  std::unordered_map<const Node*, Interval> memo_;
  bool fits_ = true;
};

}  // namespace

bool IndicesFitInt32(const Module& m) {
  if (!m.kernel) return false;
  std::map<std::string, std::vector<Interval>> call_args;
  {
    IndexWidthChecker kernel(&call_args);
    kernel.WalkBlock(m.kernel->body);
    if (!kernel.fits()) return false;
  }
  // Functions see the ranges of their call sites' arguments; a function
  // called from another is walked once its callers' arguments are known
  // (a pass per nesting level; there is no recursion).
  std::map<std::string, std::vector<Interval>> walked;
  for (size_t pass = 0; pass <= m.functions.size(); ++pass) {
    bool changed = false;
    for (const Function& f : m.functions) {
      auto args = call_args.find(f.name);
      if (args == call_args.end()) continue;
      auto done = walked.find(f.name);
      if (done != walked.end() && done->second == args->second) continue;
      walked[f.name] = args->second;
      changed = true;
      IndexWidthChecker body(&call_args);
      for (size_t i = 0; i < f.params.size(); ++i) {
        if (f.params[i].type != Type::kIndex) continue;
        body.Define(f.params[i].name, i < args->second.size()
                                          ? args->second[i]
                                          : Interval::Full());
      }
      body.WalkBlock(f.body);
      if (!body.fits()) return false;
    }
    if (!changed) return true;
  }
  return false;  // the call graph did not settle (a cycle)
}

}  // namespace ixa::emit::ir
