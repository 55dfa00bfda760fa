// Vectorization (docs/emitters.md §4 step 5): in an innermost loop of 2, 4,
// 8 or 16 iterations, an access whose linear offset is `base + v` (v the
// loop variable, base a multiple of the trip count, proven on the loop's
// whole domain by the exact decision procedure) becomes one vector load
// before the loop (lanes read with extract) or one vector store after it
// (lanes written with insert). A bounds check that does not depend on v
// moves out of the loop first, so the whole vector is in bounds.
#include <set>

#include "analysis/emitters/plan.h"
#include "emit/ir/rewrite.h"
#include "emit/passes/passes.h"
#include "simplifier/simplify.h"

namespace ixa::emit {

using ir::Block;
using ir::Node;
using ir::NodeKind;
using ir::Stmt;
using ir::StmtKind;
using ir::Type;
using ir::Val;

namespace {

constexpr int64_t kMaxVectorBytes = 16;

// A packed sub-byte buffer (layout E(bits)) whose `lanes` elements at an
// aligned offset fill whole bytes: the type legalization reads and writes
// such a vector a byte at a time (no read-modify-write of a shared byte).
bool WholePackedBytes(const ir::Buffer& buf, int64_t lanes) {
  if (!ir::IsSubByte(buf.type) || buf.space != ir::BufferSpace::kGlobal) {
    return false;
  }
  const int64_t e = buf.shape.layout ? buf.shape.layout->element_size_bits : 0;
  return e == ir::TypeBits(buf.type) && (lanes * e) % 8 == 0;
}

class Vectorizer {
 public:
  Vectorizer(ir::Module* m, int64_t max_lanes, ExprContext* ctx)
      : m_(m), max_lanes_(max_lanes), ctx_(ctx) {}
  void Run(Block* body);

 private:
  void Walk(Block* block);
  bool Innermost(const Stmt& loop) const;
  bool Depends(const Val& v, const std::string& var);
  void Vectorize(Block* block, size_t at);
  // For an access offset: the leaves, the composed map, the loop variable's
  // dim; false when the offset is not `aligned base + var`.
  struct Access {
    std::vector<Val> leaves;
    std::shared_ptr<const IndexingMap> base;  // result: offset at var = 0
  };
  std::optional<Access> Contiguous(const Val& offset, const std::string& var,
                                   int64_t lanes,
                                   const std::set<std::string>& inside);

  ir::Module* m_;
  int64_t max_lanes_;
  ExprContext* ctx_;
  std::map<std::string, Val> lets_;
  int counter_ = 0;
};

bool Vectorizer::Innermost(const Stmt& loop) const {
  bool nested = false;
  ir::ForEachStmt(loop.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kFor || s.kind == StmtKind::kBarrier ||
        s.kind == StmtKind::kShuffle || s.kind == StmtKind::kAtomic) {
      nested = true;
    }
  });
  return !nested;
}

bool Vectorizer::Depends(const Val& v, const std::string& var) {
  if (!v) return false;
  if (v->kind == NodeKind::kVar) {
    if (v->name == var) return true;
    auto f = lets_.find(v->name);
    return f != lets_.end() && Depends(f->second, var);
  }
  if (v->kind == NodeKind::kInDomain) {
    const IndexingMap& map = *v->map;
    std::vector<bool> used_dims, used_syms;
    for (const Constraint& c : map.constraints()) {
      CollectVariables(c.expr, &used_dims, &used_syms);
    }
    for (int i = 0; i < map.num_dims() + map.num_symbols(); ++i) {
      if (!Depends(v->operands[i], var)) continue;
      bool in_constraint =
          i < map.num_dims()
              ? (i < static_cast<int>(used_dims.size()) && used_dims[i])
              : (i - map.num_dims() < static_cast<int>(used_syms.size()) &&
                 used_syms[i - map.num_dims()]);
      Interval b = i < map.num_dims() ? map.dims()[i].bounds
                                      : map.symbol(i - map.num_dims()).bounds;
      if (in_constraint || !b.Contains(ir::RangeOf(v->operands[i])))
        return true;
    }
    return false;
  }
  for (const Val& o : v->operands) {
    if (Depends(o, var)) return true;
  }
  return false;
}

std::optional<Vectorizer::Access> Vectorizer::Contiguous(
    const Val& offset, const std::string& var, int64_t lanes,
    const std::set<std::string>& inside) {
  ir::IndexComposer composer(ctx_);
  composer.SetLets(&lets_);
  auto composed = composer.Compose({offset}, nullptr);
  if (!composed.ok()) return std::nullopt;
  Val c = (*composed)[0];
  // The offset is the variable itself (one thread of one block): base 0.
  if (c->kind == NodeKind::kVar && c->name == var) {
    Access out;
    out.base = std::make_shared<const IndexingMap>(
        IndexingMap(ctx_, {}, {}, {}, {ctx_->Constant(0)}));
    return out;
  }
  if (c->kind != NodeKind::kApply) return std::nullopt;
  const IndexingMap& map = *c->map;
  int p = -1;
  for (size_t i = 0; i < c->operands.size(); ++i) {
    const Val& leaf = c->operands[i];
    if (leaf->kind == NodeKind::kVar && leaf->name == var) {
      p = static_cast<int>(i);
      continue;
    }
    // Every other leaf must be fixed for the whole loop.
    bool varies = false;
    ir::ForEachNode(leaf, [&](const Val& n) {
      if (n->kind == NodeKind::kVar &&
          (n->is_mutable || n->name == var || inside.count(n->name))) {
        varies = true;
      }
      if (n->kind == NodeKind::kLoad) varies = true;
    });
    if (varies) return std::nullopt;
  }
  if (p < 0) return std::nullopt;
  std::optional<Expr> e0 =
      LaneContiguousBase(map.results()[c->result], map.dims(), p, lanes, ctx_);
  if (!e0) return std::nullopt;
  IndexingMap base(ctx_, map.dims(), {}, {}, {*e0});
  Simplify(&base);
  Access out;
  out.leaves = c->operands;
  out.leaves[p] = ir::Index(0);  // unused by the base
  out.base = std::make_shared<const IndexingMap>(base);
  return out;
}

void Vectorizer::Vectorize(Block* block, size_t at) {
  Stmt& loop = (*block)[at];
  const std::string var = loop.name;
  const int64_t lanes = loop.hi - loop.lo;
  // The plan's vector_size bounds the vectors: a wider loop keeps its
  // accesses scalar (its checks still move out, it is still unrolled).
  const bool vectors = lanes <= max_lanes_;
  // Hoist a bounds check that does not depend on the loop variable.
  Block prefix_ifs;
  while (loop.body.size() == 1 && loop.body[0].kind == StmtKind::kIf &&
         loop.body[0].else_body.empty() && !Depends(loop.body[0].value, var)) {
    Stmt cond = std::move(loop.body[0]);
    loop.body = std::move(cond.body);
    cond.body.clear();
    // The check does not depend on the variable, but may still name it
    // (an unconstrained operand): outside the loop it reads the first lane.
    ir::ValRewriter rw([&](const Val& v) -> std::optional<Val> {
      if (v->kind == NodeKind::kVar && v->name == var)
        return ir::Index(loop.lo);
      return std::nullopt;
    });
    cond.value = rw.Rewrite(cond.value);
    prefix_ifs.push_back(std::move(cond));
  }
  std::vector<std::string> defined = ir::DefinedNames(loop.body);
  std::set<std::string> inside(defined.begin(), defined.end());
  // Buffers written in the loop are not read through vectors.
  std::set<int> written, bad_store;
  ir::ForEachStmt(loop.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kStore) written.insert(s.buffer);
  });
  Block pre, post;
  // Loads of the body's top-level statements: they run in every iteration
  // (loads under a condition stay scalar, a vector would read them all).
  std::map<const Node*, Val> replaced;
  auto each_top_level_val = [&](const std::function<void(const Val&)>& f) {
    for (const Stmt& s : loop.body) {
      ir::ForEachNode(s.value, f);
      for (const Val& v : s.indices) ir::ForEachNode(v, f);
      for (const Val& v : s.args) ir::ForEachNode(v, f);
    }
  };
  each_top_level_val([&](const Val& v) {
    if (!vectors || v->kind != NodeKind::kLoad || !v->flat || v->width != 1 ||
        written.count(v->buffer) || replaced.count(v.get())) {
      return;
    }
    const ir::Buffer& buf = m_->buffers[v->buffer];
    if (lanes * ir::StorageBytes(buf.type) > kMaxVectorBytes) return;
    // Sub-byte, f8 and f4 elements are read one by one (the type legalization
    // unpacks and decodes scalars), but for whole bytes of packed ones.
    if ((ir::IsSubByte(buf.type) && !WholePackedBytes(buf, lanes)) ||
        ir::IsNarrowFloat(buf.type)) {
      return;
    }
    auto access = Contiguous(v->operands[0], var, lanes, inside);
    if (!access) return;
    std::string name = "vec" + std::to_string(counter_++);
    Val base = ir::Apply(access->base, 0, access->leaves);
    pre.push_back(ir::Let(name, ir::LoadFlat(v->buffer, v->type, base, lanes)));
    auto ref = std::make_shared<Node>(*ir::Var(name, v->type));
    ref->width = static_cast<int>(lanes);
    replaced[v.get()] =
        ir::Extract(ref, ir::Var(var, Type::kIndex, Interval{0, lanes - 1}));
  });
  // Stores at the top level of the body, all of a buffer or none.
  std::map<int, std::vector<size_t>> stores;
  for (size_t i = 0; i < loop.body.size(); ++i) {
    const Stmt& s = loop.body[i];
    if (vectors && s.kind == StmtKind::kStore && s.flat && s.width == 1) {
      stores[s.buffer].push_back(i);
    }
  }
  ir::ForEachStmt(loop.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kStore) {
      bool top = false;
      for (const Stmt& t : loop.body) top = top || &t == &s;
      if (!top) bad_store.insert(s.buffer);
    }
  });
  for (auto& [buffer, positions] : stores) {
    const ir::Buffer& buf = m_->buffers[buffer];
    if (bad_store.count(buffer) || positions.size() != 1 ||
        lanes * ir::StorageBytes(buf.type) > kMaxVectorBytes ||
        (ir::IsSubByte(buf.type) && !WholePackedBytes(buf, lanes)) ||
        ir::IsNarrowFloat(buf.type)) {
      continue;
    }
    Stmt& s = loop.body[positions[0]];
    auto access = Contiguous(s.indices[0], var, lanes, inside);
    if (!access) continue;
    std::string name = "vout" + std::to_string(counter_++);
    auto zero =
        std::make_shared<Node>(*(ir::IsFloat(s.type) ? ir::ConstFloat(s.type, 0)
                                                     : ir::Const(s.type, 0)));
    zero->width = static_cast<int>(lanes);
    pre.push_back(ir::Declare(name, s.type, zero));
    auto ref = std::make_shared<Node>(*ir::MutableVar(name, s.type));
    ref->width = static_cast<int>(lanes);
    Val lane = ir::Var(var, Type::kIndex, Interval{0, lanes - 1});
    Val value = s.value;
    s = ir::Assign(name, ir::Insert(ref, lane, value));
    Val base = ir::Apply(access->base, 0, access->leaves);
    post.push_back(ir::StoreFlat(buffer, base, ref, static_cast<int>(lanes)));
  }
  if (!replaced.empty()) {
    ir::ValRewriter rw([&](const Val& v) -> std::optional<Val> {
      auto f = replaced.find(v.get());
      if (f == replaced.end()) return std::nullopt;
      return f->second;
    });
    rw.RewriteBlock(&loop.body);
  }
  loop.vector_loop = true;
  // Assemble: hoisted checks around pre, loop, post.
  Block inner = std::move(pre);
  inner.push_back(std::move(loop));
  for (Stmt& s : post) inner.push_back(std::move(s));
  for (auto it = prefix_ifs.rbegin(); it != prefix_ifs.rend(); ++it) {
    it->body = std::move(inner);
    inner.clear();
    inner.push_back(std::move(*it));
  }
  block->erase(block->begin() + at);
  block->insert(block->begin() + at, inner.begin(), inner.end());
}

void Vectorizer::Walk(Block* block) {
  for (size_t i = 0; i < block->size(); ++i) {
    Stmt& s = (*block)[i];
    if (s.kind == StmtKind::kFor && Innermost(s) && s.lo == 0 &&
        (s.hi == 2 || s.hi == 4 || s.hi == 8 || s.hi == 16) && !s.vector_loop &&
        !s.window_loop) {
      size_t before = block->size();
      Vectorize(block, i);
      i += block->size() - before;  // skip what was inserted
      continue;
    }
    Walk(&s.body);
    Walk(&s.else_body);
  }
}

void Vectorizer::Run(Block* body) {
  lets_.clear();
  ir::ForEachStmt(*body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kLet) lets_[s.name] = s.value;
  });
  Walk(body);
}

}  // namespace

Status VectorizeLoops(ir::Module* m, int64_t max_lanes, ExprContext* ctx) {
  Vectorizer v(m, max_lanes, ctx);
  for (ir::Function& f : m->functions) v.Run(&f.body);
  if (m->kernel) v.Run(&m->kernel->body);
  return Status();
}

}  // namespace ixa::emit
