#include "tests/emit/emit_fixture_plans.h"

#include "simplifier/simplify.h"

namespace ixa::emit_test {

Result<EmitterPlan> FixtureLoopPlan(const FusionRegion& region,
                                    ExprContext* ctx, int64_t threads,
                                    int64_t unroll) {
  std::vector<const hlo::Instruction*> roots;
  if (region.root->opcode == "tuple") {
    roots = region.root->operands;
  } else {
    roots = {region.root};
  }
  auto first_leaf = [](const hlo::Shape& s) -> const hlo::Shape& {
    return s.IsTuple() ? s.tuple_elements[0] : s;
  };
  const hlo::Shape& shape0 = first_leaf(roots[0]->shape);
  const int64_t n_elements = std::max<int64_t>(1, shape0.ElementCount());
  const int64_t n = (n_elements + unroll - 1) / unroll;
  const int64_t t = std::min(threads, n);
  const int64_t b = (n + t - 1) / t;
  EmitterPlan plan;
  plan.kind = EmitterKind::kLoop;
  plan.launch.threads = {t, 1, 1};
  plan.launch.blocks = {b, 1, 1};
  plan.launch.unroll = unroll;
  for (size_t i = 0; i < roots.size(); ++i) {
    const hlo::Shape& s = first_leaf(roots[i]->shape);
    std::vector<Variable> dims(6);
    std::vector<int64_t> sizes = {t, 1, 1, b, 1, 1};
    for (int d = 0; d < 6; ++d) dims[d].bounds = Interval{0, sizes[d] - 1};
    std::vector<Variable> syms(2);
    syms[0].bounds = Interval{0, 0};
    syms[0].name = "chunk_id";
    syms[1].bounds = Interval{0, unroll - 1};
    syms[1].name = "unroll_id";
    Expr e = (ctx->Dim(0) + ctx->Dim(3) * t) * unroll + ctx->Symbol(1);
    std::vector<Expr> results;
    int64_t stride = 1;
    for (int k = s.rank() - 1; k >= 0; --k) {
      results.insert(results.begin(), e.FloorDiv(stride) % s.dims[k]);
      stride *= s.dims[k];
    }
    IndexingMap map(ctx, dims, syms, {}, results);
    map.AddConstraint(e, Interval{0, n_elements - 1});
    Simplify(&map);
    RootPlan r;
    r.root = roots[i];
    r.hero = roots[i];
    r.output = static_cast<int>(i);
    r.output_map = map;
    plan.roots.push_back(std::move(r));
  }
  return plan;
}

}  // namespace ixa::emit_test
