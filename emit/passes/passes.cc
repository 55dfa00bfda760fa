// Inlining, flattening, unrolling and the final tidying (docs/emitters.md
// §4 steps 3, 4, 6, 7).
#include "emit/passes/passes.h"

#include <map>
#include <set>

#include "analysis/hlo/physical_layout.h"
#include "core/int_math.h"
#include "emit/ir/rewrite.h"
#include "hw/xla_layout.h"

namespace ixa::emit {

using ir::Block;
using ir::Buffer;
using ir::BufferSpace;
using ir::Node;
using ir::NodeKind;
using ir::Stmt;
using ir::StmtKind;
using ir::Type;
using ir::Val;

namespace {

// Every statement block of the module: function bodies and the kernel's.
std::vector<Block*> Bodies(ir::Module* m) {
  std::vector<Block*> out;
  for (ir::Function& f : m->functions) out.push_back(&f.body);
  if (m->kernel) out.push_back(&m->kernel->body);
  return out;
}

// Uses of each function: calls, and atomics (which call their combiner by
// name, so it must stay a function).
void CountCalls(const Block& b, std::map<std::string, int>* counts) {
  ir::ForEachStmt(b, [&](const Stmt& s) {
    if (s.kind == StmtKind::kCall || s.kind == StmtKind::kAtomic) {
      ++(*counts)[s.name];
    }
  });
}

// Replaces the call of `f` in `block` (searched recursively) by its body.
bool InlineCallIn(Block* block, const ir::Function& f, int* counter) {
  for (size_t i = 0; i < block->size(); ++i) {
    Stmt& s = (*block)[i];
    if (s.kind == StmtKind::kCall && s.name == f.name) {
      Block body = f.body;
      std::string suffix = "_" + std::to_string((*counter)++);
      std::map<std::string, std::string> params;
      for (const ir::Param& p : f.params) params[p.name] = p.name + suffix;
      ir::RenameDefinitions(&body, suffix, params);
      Block replacement;
      for (size_t j = 0; j < f.params.size(); ++j) {
        replacement.push_back(ir::Let(f.params[j].name + suffix, s.args[j]));
      }
      for (Stmt& b : body) {
        if (b.kind == StmtKind::kReturn) {
          for (size_t k = 0; k < b.args.size(); ++k) {
            replacement.push_back(ir::Let(s.results[k], b.args[k]));
          }
        } else {
          replacement.push_back(std::move(b));
        }
      }
      block->erase(block->begin() + i);
      block->insert(block->begin() + i, replacement.begin(), replacement.end());
      return true;
    }
    if (InlineCallIn(&s.body, f, counter)) return true;
    if (InlineCallIn(&s.else_body, f, counter)) return true;
  }
  return false;
}

// Calls made in an innermost loop of 2, 4, 8 or 16 iterations from 0 (the
// vector lane loops): inlined there, their loads can become one vector
// load (emit/passes/vectorize.cc), which a call hides.
void CountLaneLoopCalls(const Block& b, bool in_lane_loop,
                        std::map<std::string, int>* counts) {
  for (const Stmt& s : b) {
    if (s.kind == StmtKind::kCall && in_lane_loop) ++(*counts)[s.name];
    bool lane_loop = in_lane_loop;
    if (s.kind == StmtKind::kFor) {
      bool nested = false;
      ir::ForEachStmt(s.body, [&](const Stmt& t) {
        nested = nested || t.kind == StmtKind::kFor;
      });
      lane_loop = !nested && s.lo == 0 &&
                  (s.hi == 2 || s.hi == 4 || s.hi == 8 || s.hi == 16);
    }
    CountLaneLoopCalls(s.body, lane_loop, counts);
    CountLaneLoopCalls(s.else_body, lane_loop, counts);
  }
}

// A function whose body returns only at its end can be inlined as is.
bool ReturnsAtEnd(const ir::Function& f) {
  int returns = 0;
  ir::ForEachStmt(f.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kReturn) ++returns;
  });
  return returns == 1 && !f.body.empty() &&
         f.body.back().kind == StmtKind::kReturn;
}

}  // namespace

Status InlineSingleUseFunctions(ir::Module* m) {
  int counter = 0;
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::string, int> counts, lane_counts;
    for (Block* b : Bodies(m)) {
      CountCalls(*b, &counts);
      CountLaneLoopCalls(*b, false, &lane_counts);
    }
    for (size_t i = 0; i < m->functions.size(); ++i) {
      const ir::Function& f = m->functions[i];
      // Called once, or only from vector lane loops (each call inlined).
      const bool lanes_only =
          counts[f.name] > 1 && lane_counts[f.name] == counts[f.name];
      if ((counts[f.name] != 1 && !lanes_only) || !ReturnsAtEnd(f)) continue;
      ir::Function callee = f;
      bool done = false;
      for (Block* b : Bodies(m)) {
        if (b == &m->functions[i].body) continue;
        if (InlineCallIn(b, callee, &counter)) {
          done = true;
          break;
        }
      }
      if (done) {
        // The last call inlined: the function goes.
        if (counts[f.name] == 1) {
          m->functions.erase(m->functions.begin() + i);
        }
        changed = true;
        break;
      }
    }
  }
  return Status();
}

namespace {

// Row-major linearisation over `dims` (shared tiles, constants).
IndexingMap RowMajorMap(const std::vector<int64_t>& dims, ExprContext* ctx) {
  Expr e = ctx->Constant(0);
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    e = e + ctx->Dim(i) * stride;
    stride *= dims[i];
  }
  return IndexingMap::FromTensorSizes(ctx, {e}, dims, {});
}

// Index-typed lets of a body: name -> definition.
std::map<std::string, Val> IndexLets(const Block& body) {
  std::map<std::string, Val> lets;
  ir::ForEachStmt(body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kLet && s.value->type == Type::kIndex) {
      lets[s.name] = s.value;
    }
  });
  return lets;
}

std::vector<Val> GridIds(const ir::Launch& launch) {
  return {ir::GridId(ir::VarKind::kThreadX, launch.threads[0]),
          ir::GridId(ir::VarKind::kThreadY, launch.threads[1]),
          ir::GridId(ir::VarKind::kThreadZ, launch.threads[2]),
          ir::GridId(ir::VarKind::kBlockX, launch.blocks[0]),
          ir::GridId(ir::VarKind::kBlockY, launch.blocks[1]),
          ir::GridId(ir::VarKind::kBlockZ, launch.blocks[2])};
}

// Writes zero to every padding element of `buffer` (offsets no logical
// index reaches), spread over all threads of the grid.
Block PaddingLoop(const Buffer& b, int buffer, const ir::Launch& launch,
                  ExprContext* ctx) {
  const int64_t tpb = launch.threads_per_block();
  const int64_t total =
      tpb * launch.blocks[0] * launch.blocks[1] * launch.blocks[2];
  const int64_t p = b.physical_elements;
  const int64_t iterations = CeilDivNonNegative(p, total);
  std::vector<int64_t> sizes = {launch.threads[0], launch.threads[1],
                                launch.threads[2], launch.blocks[0],
                                launch.blocks[1],  launch.blocks[2]};
  // linear = ((((bl_z * By + bl_y) * Bx + bl_x) * Tz + th_z) * Ty + th_y) * Tx
  // + th_x
  Expr linear = ctx->Dim(5);
  for (int d : {4, 3, 2, 1, 0}) linear = linear * sizes[d] + ctx->Dim(d);
  Expr off = linear + ctx->Symbol(0) * total;
  std::vector<int64_t> symbol_sizes = {iterations};
  IndexingMap map =
      IndexingMap::FromTensorSizes(ctx, {off}, sizes, symbol_sizes);
  map.AddConstraint(off, Interval{0, p - 1});
  auto shared = std::make_shared<const IndexingMap>(map);
  std::vector<Val> operands = GridIds(launch);
  std::string k = "pad_k";
  operands.push_back(ir::Var(k, Type::kIndex, Interval{0, iterations - 1}));
  Val offset = ir::Apply(shared, 0, operands);
  Val in_range = ir::InDomain(shared, operands);
  Val is_element = ir::InDomain(b.inverse_layout_map, {offset});
  Val is_padding =
      ir::Op(ir::OpCode::kNot, Type::kPred, {is_element}, Type::kPred);
  Block then;
  then.push_back(ir::StoreFlat(buffer, offset, ir::Zero(b.type)));
  Block body;
  body.push_back(ir::If(ir::AllOf({in_range, is_padding}), std::move(then)));
  Block out;
  out.push_back(
      ir::Comment("padding elements of " + b.name + " are written as zero"));
  out.push_back(ir::For(k, 0, iterations, std::move(body)));
  return out;
}

}  // namespace

Status FlattenBuffers(ir::Module* m, ExprContext* ctx) {
  if (m->flattened) return Status();
  for (Buffer& b : m->buffers) {
    if (b.space == BufferSpace::kGlobal) {
      // E(bits) packs elements into bytes; it leaves their order (the
      // element offsets) as it is: the type legalization packs. The
      // offsets do not depend on the element type either.
      hlo::Shape unpacked = b.shape;
      if (unpacked.layout) unpacked.layout->element_size_bits = 0;
      if (ir::IsSubByte(b.type) || ir::IsNarrowFloat(b.type)) {
        unpacked.type = hlo::ElementType::kU8;
      }
      const hw::XlaShape shape = hlo::ToXlaShape(unpacked);
      auto info = hw::AnalyzeTiledLayout(shape, ctx);
      if (!info.ok()) return info.error();
      b.layout_map = std::make_shared<const IndexingMap>(info->map);
      b.physical_elements = info->physical_elements;
      if (b.is_output && b.physical_elements > b.shape.ElementCount()) {
        auto inverse = hw::InverseTiledLayoutMap(shape, ctx);
        if (!inverse.ok()) return inverse.error();
        b.inverse_layout_map = std::make_shared<const IndexingMap>(*inverse);
      }
    } else {
      b.layout_map =
          std::make_shared<const IndexingMap>(RowMajorMap(b.shape.dims, ctx));
      b.physical_elements = b.shape.ElementCount();
    }
  }
  for (Block* body : Bodies(m)) {
    std::map<std::string, Val> lets = IndexLets(*body);
    ir::IndexComposer composer(ctx);
    composer.SetLets(&lets);
    Error error;
    bool failed = false;
    auto flat_offset = [&](int buffer, const std::vector<Val>& idx) -> Val {
      const Buffer& b = m->buffers[buffer];
      auto r = composer.Compose(idx, b.layout_map.get());
      if (!r.ok()) {
        failed = true;
        error = r.error();
        return ir::Index(0);
      }
      return (*r)[0];
    };
    ir::ValRewriter rw([&](const Val& v) -> std::optional<Val> {
      if (v->kind != NodeKind::kLoad || v->flat) return std::nullopt;
      // The index expressions may hold loads themselves (runtime offsets).
      std::vector<Val> idx;
      for (const Val& i : v->operands) idx.push_back(i);
      return ir::LoadFlat(v->buffer, v->type, flat_offset(v->buffer, idx),
                          v->width);
    });
    std::function<void(Block*)> walk = [&](Block* block) {
      for (Stmt& s : *block) {
        s.value = rw.Rewrite(s.value);
        for (Val& v : s.indices) v = rw.Rewrite(v);
        for (Val& v : s.args) v = rw.Rewrite(v);
        if ((s.kind == StmtKind::kStore || s.kind == StmtKind::kAtomic) &&
            !s.flat) {
          s.indices = {flat_offset(s.buffer, s.indices)};
          s.flat = true;
        }
        walk(&s.body);
        walk(&s.else_body);
      }
    };
    walk(body);
    if (failed) return error;
  }
  m->flattened = true;
  if (m->kernel) {
    for (size_t i = 0; i < m->buffers.size(); ++i) {
      const Buffer& b = m->buffers[i];
      if (!b.is_output || !b.inverse_layout_map) continue;
      Block pad = PaddingLoop(b, static_cast<int>(i), m->kernel->launch, ctx);
      for (Stmt& s : pad) m->kernel->body.push_back(std::move(s));
    }
  }
  return Status();
}

Status UnrollVectorLoops(ir::Module* m) {
  int counter = 0;
  std::function<void(Block*)> walk = [&](Block* block) {
    for (size_t i = 0; i < block->size(); ++i) {
      Stmt& s = (*block)[i];
      walk(&s.body);
      walk(&s.else_body);
      if (s.kind != StmtKind::kFor || !s.vector_loop) continue;
      Block copies;
      for (int64_t k = s.lo; k < s.hi; ++k) {
        Block body = s.body;
        ir::RenameDefinitions(&body, "_u" + std::to_string(counter++));
        const std::string var = s.name;
        ir::ValRewriter rw([&](const Val& v) -> std::optional<Val> {
          if (v->kind == NodeKind::kVar && v->name == var &&
              v->var_kind == ir::VarKind::kLocal) {
            return ir::Index(k);
          }
          return std::nullopt;
        });
        rw.RewriteBlock(&body);
        for (Stmt& b : body) copies.push_back(std::move(b));
      }
      block->erase(block->begin() + i);
      block->insert(block->begin() + i, copies.begin(), copies.end());
      i += copies.size();
      --i;
    }
  };
  for (Block* b : Bodies(m)) walk(b);
  return Status();
}

namespace {

// The check always holds (true) / never holds (false) on the operands'
// ranges, or is unknown.
std::optional<bool> DecideInDomain(const Node& n) {
  const IndexingMap& map = *n.map;
  if (map.IsKnownEmpty()) return false;
  std::vector<Interval> dims, syms;
  bool always = true;
  for (int i = 0; i < map.num_dims() + map.num_symbols(); ++i) {
    Interval r = ir::RangeOf(n.operands[i]);
    Interval b = i < map.num_dims() ? map.dims()[i].bounds
                                    : map.symbol(i - map.num_dims()).bounds;
    if (!b.Contains(r)) always = false;
    if (r.Intersect(b).IsEmpty()) return false;
    (i < map.num_dims() ? dims : syms).push_back(r.Intersect(b));
  }
  for (const Constraint& c : map.constraints()) {
    Interval r = ir::ExprRange(c.expr, dims, syms);
    if (!c.interval.Contains(r)) always = false;
    if (r.Intersect(c.interval).IsEmpty()) return false;
  }
  if (always) return true;
  return std::nullopt;
}

void FoldIfs(Block* block) {
  for (size_t i = 0; i < block->size(); ++i) {
    Stmt& s = (*block)[i];
    FoldIfs(&s.body);
    FoldIfs(&s.else_body);
    if (s.kind != StmtKind::kIf || s.value->kind != NodeKind::kConst) continue;
    Block keep =
        s.value->int_value ? std::move(s.body) : std::move(s.else_body);
    block->erase(block->begin() + i);
    block->insert(block->begin() + i, keep.begin(), keep.end());
    i += keep.size();
    --i;
  }
}

void CollectUses(const Block& block, std::set<std::string>* used) {
  ir::ForEachVal(block, [&](const Val& v) {
    if (v->kind == NodeKind::kVar) used->insert(v->name);
  });
  ir::ForEachStmt(block, [&](const Stmt& s) {
    if (s.kind == StmtKind::kAssign) used->insert(s.name);
  });
}

bool DropUnusedLets(Block* block, const std::set<std::string>& used) {
  bool changed = false;
  for (size_t i = 0; i < block->size();) {
    Stmt& s = (*block)[i];
    changed |= DropUnusedLets(&s.body, used);
    changed |= DropUnusedLets(&s.else_body, used);
    if (s.kind == StmtKind::kLet && !used.count(s.name)) {
      block->erase(block->begin() + i);
      changed = true;
    } else {
      ++i;
    }
  }
  return changed;
}

// Uses of each name in values (a Var node per use).
void CountUses(const Block& block, std::map<std::string, int>* uses) {
  ir::ForEachVal(block, [&](const Val& v) {
    if (v->kind == NodeKind::kVar) ++(*uses)[v->name];
  });
}

bool IsSmallFloat(Type t) { return t == Type::kBF16 || t == Type::kF16; }

// An f16/bf16 element read into a let and stored (or put in a vector lane)
// by the next statement, its only use, is stored as read: the printers then
// move its bits (C) instead of widening it to float and rounding it back
// (exact, but a dozen instructions per element for bf16 on a GPU). Only
// the next statement, so that no other store comes between the read and
// the write.
void ForwardStorageCopies(Block* block,
                          const std::map<std::string, int>& uses) {
  for (size_t i = 0; i < block->size(); ++i) {
    Stmt& s = (*block)[i];
    ForwardStorageCopies(&s.body, uses);
    ForwardStorageCopies(&s.else_body, uses);
    if (s.kind != StmtKind::kLet || i + 1 >= block->size()) continue;
    const Val& read = s.value;
    if (!IsSmallFloat(read->type) || read->width != 1 ||
        (read->kind != NodeKind::kLoad && read->kind != NodeKind::kExtract)) {
      continue;
    }
    auto count = uses.find(s.name);
    if (count == uses.end() || count->second != 1) continue;
    auto names_let = [&](const Val& v) {
      return v->kind == NodeKind::kVar && v->name == s.name;
    };
    Stmt& next = (*block)[i + 1];
    if (next.kind == StmtKind::kStore && next.width == 1 &&
        next.type == read->type && names_let(next.value)) {
      next.value = read;
      block->erase(block->begin() + i);
      continue;
    }
    if (next.kind == StmtKind::kAssign &&
        next.value->kind == NodeKind::kInsert &&
        next.value->type == read->type && names_let(next.value->operands[2])) {
      next.value = ir::WithOperands(
          *next.value,
          {next.value->operands[0], next.value->operands[1], read});
      block->erase(block->begin() + i);
    }
  }
}

}  // namespace

namespace {

// A loop of one iteration is its body with the variable replaced by the
// start value.
void InlineSingleTripLoops(Block* block) {
  for (size_t i = 0; i < block->size(); ++i) {
    Stmt& s = (*block)[i];
    InlineSingleTripLoops(&s.body);
    InlineSingleTripLoops(&s.else_body);
    if (s.kind != StmtKind::kFor || s.hi - s.lo != 1) continue;
    Block body = std::move(s.body);
    const std::string var = s.name;
    const int64_t value = s.lo;
    ir::ValRewriter rw([&](const Val& v) -> std::optional<Val> {
      if (v->kind == NodeKind::kVar && v->name == var &&
          v->var_kind == ir::VarKind::kLocal) {
        return ir::Index(value);
      }
      return std::nullopt;
    });
    rw.RewriteBlock(&body);
    block->erase(block->begin() + i);
    block->insert(block->begin() + i, body.begin(), body.end());
    i += body.size();
    --i;
  }
}

}  // namespace

Status Cleanup(ir::Module* m, ExprContext* ctx) {
  for (Block* body : Bodies(m)) InlineSingleTripLoops(body);
  for (Block* body : Bodies(m)) {
    std::map<std::string, Val> lets = IndexLets(*body);
    ir::IndexComposer composer(ctx);
    composer.SetLets(&lets);
    Error error;
    bool failed = false;
    ir::ValRewriter fold_applies([&](const Val& v) -> std::optional<Val> {
      if (v->kind != NodeKind::kApply) return std::nullopt;
      auto r = composer.Compose({v}, nullptr);
      if (!r.ok()) {
        failed = true;
        error = r.error();
        return std::nullopt;
      }
      return (*r)[0];
    });
    fold_applies.RewriteBlock(body);
    if (failed) return error;
    ir::ValRewriter fold_checks([&](const Val& v) -> std::optional<Val> {
      if (v->kind != NodeKind::kInDomain) return std::nullopt;
      std::optional<bool> d = DecideInDomain(*v);
      if (!d) return std::nullopt;
      return ir::Const(Type::kPred, *d ? 1 : 0);
    });
    fold_checks.RewriteBlock(body);
    // Logical ands with a constant operand.
    std::function<Val(const Val&)> fold_and = [&](const Val& v) -> Val {
      if (v->kind != NodeKind::kOp || v->op != ir::OpCode::kAnd ||
          v->type != Type::kPred) {
        return v;
      }
      Val a = fold_and(v->operands[0]), b = fold_and(v->operands[1]);
      if (a->kind == NodeKind::kConst) return a->int_value ? b : a;
      if (b->kind == NodeKind::kConst) return b->int_value ? a : b;
      if (a == v->operands[0] && b == v->operands[1]) return v;
      return ir::WithOperands(*v, {a, b});
    };
    ir::ValRewriter fold_ands([&](const Val& v) -> std::optional<Val> {
      if (v->kind == NodeKind::kOp && v->op == ir::OpCode::kAnd)
        return fold_and(v);
      return std::nullopt;
    });
    fold_ands.RewriteBlock(body);
    FoldIfs(body);
  }
  {
    std::map<std::string, int> uses;
    for (Block* body : Bodies(m)) CountUses(*body, &uses);
    for (Block* body : Bodies(m)) ForwardStorageCopies(body, uses);
  }
  for (bool changed = true; changed;) {
    std::set<std::string> used;
    for (Block* body : Bodies(m)) CollectUses(*body, &used);
    changed = false;
    for (Block* body : Bodies(m)) changed |= DropUnusedLets(body, used);
  }
  return Status();
}

}  // namespace ixa::emit
