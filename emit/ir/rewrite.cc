#include "emit/ir/rewrite.h"

#include <set>

#include "simplifier/simplify.h"

namespace ixa::emit::ir {

Val WithOperands(const Node& n, std::vector<Val> operands) {
  if (n.kind == NodeKind::kApply) {
    return Apply(n.map, n.result, std::move(operands));
  }
  auto copy = std::make_shared<Node>(n);
  copy->operands = std::move(operands);
  return copy;
}

Val ValRewriter::Rewrite(const Val& v) {
  if (!v) return v;
  auto found = memo_.find(v.get());
  if (found != memo_.end()) return found->second;
  Val out;
  if (auto r = f_(v)) {
    out = *r;
  } else {
    bool changed = false;
    std::vector<Val> ops;
    for (const Val& o : v->operands) {
      Val n = Rewrite(o);
      changed = changed || n != o;
      ops.push_back(n);
    }
    out = changed ? WithOperands(*v, std::move(ops)) : v;
  }
  memo_[v.get()] = out;
  return out;
}

void ValRewriter::RewriteStmt(Stmt* s) {
  s->value = Rewrite(s->value);
  for (Val& v : s->indices) v = Rewrite(v);
  for (Val& v : s->args) v = Rewrite(v);
  RewriteBlock(&s->body);
  RewriteBlock(&s->else_body);
}

void ValRewriter::RewriteBlock(Block* block) {
  for (Stmt& s : *block) RewriteStmt(&s);
}

std::vector<std::string> DefinedNames(const Block& block) {
  std::vector<std::string> names;
  ForEachStmt(block, [&](const Stmt& s) {
    switch (s.kind) {
      case StmtKind::kLet:
      case StmtKind::kDeclare:
      case StmtKind::kFor:
      case StmtKind::kShuffle:
        names.push_back(s.name);
        break;
      case StmtKind::kCall:
        for (const std::string& r : s.results) names.push_back(r);
        break;
      default:
        break;
    }
  });
  return names;
}

namespace {

void RenameStmtNames(Block* block,
                     const std::map<std::string, std::string>& m) {
  for (Stmt& s : *block) {
    auto rn = [&](std::string* name) {
      auto f = m.find(*name);
      if (f != m.end()) *name = f->second;
    };
    if (s.kind == StmtKind::kLet || s.kind == StmtKind::kDeclare ||
        s.kind == StmtKind::kAssign || s.kind == StmtKind::kFor ||
        s.kind == StmtKind::kShuffle) {
      rn(&s.name);
    }
    for (std::string& r : s.results) rn(&r);
    RenameStmtNames(&s.body, m);
    RenameStmtNames(&s.else_body, m);
  }
}

}  // namespace

void RenameDefinitions(Block* block, const std::string& suffix,
                       const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> m = extra;
  for (const std::string& n : DefinedNames(*block)) m[n] = n + suffix;
  RenameStmtNames(block, m);
  ValRewriter rw([&](const Val& v) -> std::optional<Val> {
    if (v->kind != NodeKind::kVar || v->var_kind != VarKind::kLocal) {
      return std::nullopt;
    }
    auto f = m.find(v->name);
    if (f == m.end()) return std::nullopt;
    auto copy = std::make_shared<Node>(*v);
    copy->name = f->second;
    return Val(copy);
  });
  rw.RewriteBlock(block);
}

Expr IndexComposer::ExprOf(const Val& v) {
  const Node& n = *v;
  if (n.kind == NodeKind::kConst && n.type == Type::kIndex) {
    return ctx_->Constant(n.int_value);
  }
  if (n.kind == NodeKind::kVar && n.type == Type::kIndex && !n.is_mutable) {
    if (lets_ && n.var_kind == VarKind::kLocal) {
      auto f = lets_->find(n.name);
      if (f != lets_->end()) {
        NodeKind k = f->second->kind;
        if (f->second->type == Type::kIndex && f->second->width == 1 &&
            (k == NodeKind::kApply || k == NodeKind::kConst ||
             k == NodeKind::kVar)) {
          return ExprOf(f->second);
        }
      }
    }
    auto f = leaf_of_var_.find(n.name);
    if (f != leaf_of_var_.end()) return ctx_->Dim(f->second);
    int id = static_cast<int>(leaves_.size());
    leaves_.push_back(v);
    leaf_of_var_[n.name] = id;
    return ctx_->Dim(id);
  }
  if (n.kind == NodeKind::kApply) {
    auto memo = apply_expr_.find(&n);
    if (memo != apply_expr_.end()) return memo->second;
    const IndexingMap& map = *n.map;
    std::vector<Expr> dims, syms;
    for (int i = 0; i < map.num_dims(); ++i)
      dims.push_back(ExprOf(n.operands[i]));
    for (int i = 0; i < map.num_symbols(); ++i) {
      syms.push_back(ExprOf(n.operands[map.num_dims() + i]));
    }
    Expr e = Substitute(map.results()[n.result], dims, syms);
    apply_expr_.emplace(&n, e);
    return e;
  }
  auto f = leaf_of_.find(v.get());
  if (f != leaf_of_.end()) return ctx_->Dim(f->second);
  int id = static_cast<int>(leaves_.size());
  leaves_.push_back(v);
  leaf_of_[v.get()] = id;
  return ctx_->Dim(id);
}

Result<std::vector<Val>> IndexComposer::Compose(const std::vector<Val>& indices,
                                                const IndexingMap* after) {
  leaves_.clear();
  leaf_of_.clear();
  leaf_of_var_.clear();
  apply_expr_.clear();
  std::vector<Expr> exprs;
  for (const Val& v : indices) exprs.push_back(ExprOf(v));
  std::vector<Expr> results;
  if (after) {
    if (after->num_dims() != static_cast<int>(exprs.size())) {
      return Error::Invalid("emit: a layout map of the wrong rank");
    }
    for (Expr e : after->results()) results.push_back(Substitute(e, exprs, {}));
  } else {
    results = exprs;
  }
  std::vector<Variable> dims;
  for (const Val& leaf : leaves_) {
    Variable var;
    var.bounds = RangeOf(leaf);
    dims.push_back(var);
  }
  IndexingMap map(ctx_, dims, {}, {}, results);
  Simplify(&map);
  // Only the leaves the simplified results use stay operands.
  std::vector<bool> used(map.num_dims(), false), unused_syms;
  for (Expr e : map.results()) CollectVariables(e, &used, &unused_syms);
  used.resize(map.num_dims());
  std::vector<bool> erase(map.num_dims());
  std::vector<Val> kept;
  for (int i = 0; i < map.num_dims(); ++i) {
    erase[i] = !used[i];
    if (used[i]) kept.push_back(leaves_[i]);
  }
  map.ClearConstraints();
  map.EraseDims(erase);
  leaves_ = kept;
  auto shared = std::make_shared<const IndexingMap>(map);
  std::vector<Val> out;
  for (int i = 0; i < map.num_results(); ++i) {
    Expr e = map.results()[i];
    if (e.IsConstant()) {
      out.push_back(Index(e.constant()));
    } else if (e.IsDim()) {
      out.push_back(leaves_[e.position()]);
    } else {
      out.push_back(Apply(shared, i, leaves_));
    }
  }
  return out;
}

}  // namespace ixa::emit::ir
