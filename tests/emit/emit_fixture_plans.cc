#include "tests/emit/emit_fixture_plans.h"

#include "simplifier/simplify.h"

namespace ixa::emit_test {
namespace {

std::vector<const hlo::Instruction*> Roots(const FusionRegion& region) {
  if (region.root->opcode == hlo::Opcode::kTuple) return region.root->operands;
  return {region.root};
}

const hlo::Shape& FirstLeaf(const hlo::Shape& s) {
  return s.IsTuple() ? s.tuple_elements[0] : s;
}

struct Grid {
  int64_t threads = 1, blocks = 1, unroll = 1;
};

Grid GridFor(int64_t elements, int64_t threads, int64_t unroll) {
  const int64_t n = (std::max<int64_t>(1, elements) + unroll - 1) / unroll;
  Grid g;
  g.threads = std::min(threads, n);
  g.blocks = (n + g.threads - 1) / g.threads;
  g.unroll = unroll;
  return g;
}

// (th..bl)[chunk_id, unroll_id] -> the element e = (th_x + bl_x * T) * u +
// unroll_id of `dims`, row-major, e < N.
IndexingMap DefaultMap(const std::vector<int64_t>& dims, const Grid& g,
                       ExprContext* ctx) {
  std::vector<Variable> vars(6);
  std::vector<int64_t> sizes = {g.threads, 1, 1, g.blocks, 1, 1};
  for (int d = 0; d < 6; ++d) vars[d].bounds = Interval{0, sizes[d] - 1};
  std::vector<Variable> syms(2);
  syms[0].bounds = Interval{0, 0};
  syms[0].name = "chunk_id";
  syms[1].bounds = Interval{0, g.unroll - 1};
  syms[1].name = "unroll_id";
  Expr e = (ctx->Dim(0) + ctx->Dim(3) * g.threads) * g.unroll + ctx->Symbol(1);
  std::vector<Expr> results;
  int64_t stride = 1, n = 1;
  for (int64_t d : dims) n *= d;
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    results.insert(results.begin(), e.FloorDiv(stride) % dims[k]);
    stride *= dims[k];
  }
  IndexingMap map(ctx, vars, syms, {}, results);
  map.AddConstraint(e, Interval{0, std::max<int64_t>(n, 1) - 1});
  Simplify(&map);
  return map;
}

void SetLaunch(EmitterPlan* plan, const Grid& g) {
  plan->launch.threads = {g.threads, 1, 1};
  plan->launch.blocks = {g.blocks, 1, 1};
  plan->launch.unroll = g.unroll;
}

}  // namespace

Result<EmitterPlan> FixtureLoopPlan(const FusionRegion& region,
                                    ExprContext* ctx, int64_t threads,
                                    int64_t unroll) {
  std::vector<const hlo::Instruction*> roots = Roots(region);
  Grid g = GridFor(FirstLeaf(roots[0]->shape).ElementCount(), threads, unroll);
  EmitterPlan plan;
  plan.kind = EmitterKind::kLoop;
  SetLaunch(&plan, g);
  for (size_t i = 0; i < roots.size(); ++i) {
    RootPlan r;
    r.root = roots[i];
    r.hero = roots[i];
    r.output = static_cast<int>(i);
    r.output_map = DefaultMap(FirstLeaf(roots[i]->shape).dims, g, ctx);
    plan.roots.push_back(std::move(r));
  }
  // The stores' vector width (the fixture derives no parameter maps).
  plan.launch.vector_size = LoopLikeVectorSize(region, plan, ctx);
  return plan;
}

Result<EmitterPlan> FixtureConcatenatePlan(const FusionRegion& region,
                                           ExprContext* ctx) {
  const hlo::Instruction* root = region.root;
  const hlo::Instruction* hero = root;
  while (hero->opcode != hlo::Opcode::kConcatenate &&
         hero->operand_count() == 1) {
    hero = hero->operand(0);
  }
  if (hero->opcode != hlo::Opcode::kConcatenate)
    return Error::Invalid("no concatenate");
  const int64_t dim = hero->dimensions[0];
  const hlo::Instruction* largest = hero->operand(0);
  for (const hlo::Instruction* o : hero->operands) {
    if (o->shape.dims[dim] > largest->shape.dims[dim]) largest = o;
  }
  Grid g = GridFor(largest->shape.ElementCount(), 128, 1);
  EmitterPlan plan;
  plan.kind = EmitterKind::kConcatenate;
  SetLaunch(&plan, g);
  RootPlan r;
  r.root = root;
  r.hero = hero;
  for (const hlo::Instruction* o : hero->operands) {
    // The map over the largest operand, restricted to this operand.
    IndexingMap m = DefaultMap(largest->shape.dims, g, ctx);
    for (int d = 0; d < o->shape.rank(); ++d) {
      m.AddConstraint(m.results()[d], Interval{0, o->shape.dims[d] - 1});
    }
    Simplify(&m);
    r.hero_operand_maps.push_back(m);
  }
  plan.roots.push_back(std::move(r));
  return plan;
}

Result<EmitterPlan> FixtureInPlaceDusPlan(const FusionRegion& region,
                                          ExprContext* ctx) {
  std::vector<const hlo::Instruction*> roots = Roots(region);
  const hlo::Instruction* dus = roots[0];
  while (dus->opcode == hlo::Opcode::kBitcast) dus = dus->operand(0);
  const hlo::Shape& update = dus->operand(1)->shape;
  Grid g = GridFor(update.ElementCount(), 128, 1);
  EmitterPlan plan;
  plan.kind = EmitterKind::kInPlaceDynamicUpdateSlice;
  SetLaunch(&plan, g);
  for (size_t i = 0; i < roots.size(); ++i) {
    RootPlan r;
    r.root = roots[i];
    r.hero = roots[i];
    r.output = static_cast<int>(i);
    r.hero_operand_maps.resize(2);
    r.hero_operand_maps[1] = DefaultMap(update.dims, g, ctx);
    plan.roots.push_back(std::move(r));
  }
  return plan;
}

Result<EmitterPlan> FixtureScatterPlan(const FusionRegion& region,
                                       ExprContext* ctx) {
  const hlo::Instruction* scatter = region.root;
  const hlo::Shape& updates = scatter->operand(2)->shape;
  Grid g = GridFor(updates.ElementCount(), 128, 1);
  EmitterPlan plan;
  plan.kind = EmitterKind::kScatter;
  SetLaunch(&plan, g);
  RootPlan r;
  r.root = scatter;
  r.hero = scatter;
  r.hero_operand_maps.resize(3);
  r.hero_operand_maps[2] = DefaultMap(updates.dims, g, ctx);
  plan.roots.push_back(std::move(r));
  return plan;
}

Result<EmitterPlan> FixtureInputSlicesPlan(const FusionRegion& region,
                                           ExprContext* ctx) {
  std::vector<const hlo::Instruction*> roots = Roots(region);
  const hlo::Shape& operand = roots[0]->operand(0)->shape;
  Grid g = GridFor(operand.ElementCount(), 128, 1);
  EmitterPlan plan;
  plan.kind = EmitterKind::kInputSlices;
  SetLaunch(&plan, g);
  for (size_t i = 0; i < roots.size(); ++i) {
    const hlo::Instruction* slice = roots[i];
    IndexingMap m = DefaultMap(operand.dims, g, ctx);
    // operand index d -> slice index d - start, for d in the slice.
    std::vector<Expr> results;
    for (int d = 0; d < operand.rank(); ++d) {
      int64_t start = slice->slice[d].start;
      m.AddConstraint(m.results()[d],
                      Interval{start, start + slice->shape.dims[d] - 1});
      results.push_back(m.results()[d] - start);
    }
    m.mutable_results() = results;
    Simplify(&m);
    RootPlan r;
    r.root = slice;
    r.hero = slice;
    r.output = static_cast<int>(i);
    r.output_map = m;
    plan.roots.push_back(std::move(r));
  }
  return plan;
}

}  // namespace ixa::emit_test
