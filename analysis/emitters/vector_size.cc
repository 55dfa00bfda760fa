// The vector width of a loop-like plan (loop, concatenate, input slices,
// in-place dynamic-update-slice, scatter): the planner decides it, and the
// emitter's vectorizer (emit/passes/vectorize.cc) turns exactly these
// accesses into vector loads and stores, so that `thread_indexing` and the
// `emit` response report the same launch.
#include <algorithm>

#include "analysis/emitters/internal.h"
#include "analysis/hlo/physical_layout.h"
#include "analysis/indexing/indexing.h"
#include "simplifier/decide.h"
#include "simplifier/simplify.h"

namespace ixa {
namespace {

using emitters::ComposeSimplified;
using emitters::VectorElement;

constexpr int64_t kMaxVectorBytes = 16;
constexpr int64_t kDecideBudget = 20000;

// True when `map`'s last range variable v (the unroll index) enters no
// constraint (the emitter's bounds check then does not depend on it and
// moves out of the lane loop) and the physical element offset of `shape`
// it reaches is offset(v = 0) + v with offset(v = 0) a multiple of `lanes`
// on the whole domain.
bool ContiguousAlignedAccess(const IndexingMap& map, const hlo::Shape& shape,
                             int64_t lanes, ExprContext* ctx) {
  if (map.num_range_vars() == 0 || map.num_rt_vars() != 0 ||
      map.range_vars().back().bounds != Interval{0, lanes - 1}) {
    return false;
  }
  const int lane = map.num_range_vars() - 1;
  for (const Constraint& c : map.constraints()) {
    std::vector<bool> dims, symbols;
    CollectVariables(c.expr, &dims, &symbols);
    if (lane < static_cast<int>(symbols.size()) && symbols[lane]) return false;
  }
  Result<IndexingMap> physical = PhysicalOffsetMap(shape, ctx);
  if (!physical.ok()) return false;
  Result<IndexingMap> offset = ComposeSimplified(map, *physical);
  if (!offset.ok() || offset->num_results() != 1 ||
      offset->num_range_vars() != map.num_range_vars() ||
      offset->num_rt_vars() != 0) {
    return false;
  }
  // Over the variables' bounds only, as the vectorizer decides it.
  IndexingMap unconstrained = offset->ConvertSymbolsToDims();
  return LaneContiguousBase(unconstrained.results()[0], unconstrained.dims(),
                            map.num_dims() + lane, lanes, ctx)
      .has_value();
}

// The trip count of the lane loop the emitter builds for `map`'s innermost
// range variable, when the vectorizer takes such a loop (2, 4, 8 or 16
// iterations from 0); else 0.
int64_t LaneCount(const IndexingMap& map) {
  if (map.num_range_vars() == 0) return 0;
  const Interval b = map.range_vars().back().bounds;
  const int64_t n = b.upper - b.lower + 1;
  return b.lower == 0 && (n == 2 || n == 4 || n == 8 || n == 16) ? n : 0;
}

// A vector of `lanes` elements of `shape` fits the widest access. A packed
// sub-byte shape (layout E(bits)) takes vectors that fill whole bytes: the
// code reads and writes those a byte at a time.
bool FitsVector(const hlo::Shape& shape, int64_t lanes) {
  if (!shape.IsArray()) return false;
  const int bits = hlo::ElementBits(shape.type);
  if (bits < 8) {
    const int64_t e = shape.layout ? shape.layout->element_size_bits : 0;
    return hlo::IsIntegral(shape.type) && e == bits && (lanes * e) % 8 == 0 &&
           lanes <= kMaxVectorBytes;
  }
  return VectorElement(shape.type) && lanes * (bits / 8) <= kMaxVectorBytes;
}

}  // namespace

bool emitters::VectorElement(hlo::ElementType type) {
  using hlo::ElementType;
  switch (type) {
    case ElementType::kPred:
    case ElementType::kS8:
    case ElementType::kS16:
    case ElementType::kS32:
    case ElementType::kS64:
    case ElementType::kU8:
    case ElementType::kU16:
    case ElementType::kU32:
    case ElementType::kU64:
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64:
      return true;
    default:
      return false;
  }
}

std::optional<Expr> LaneContiguousBase(Expr offset,
                                       const std::vector<Variable>& dims,
                                       int lane_dim, int64_t lanes,
                                       ExprContext* ctx) {
  std::vector<Expr> at_zero;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
    at_zero.push_back(i == lane_dim ? ctx->Constant(0) : ctx->Dim(i));
  }
  Expr base = Substitute(offset, at_zero, {});
  IndexingMap a(ctx, dims, {}, {}, {offset});
  IndexingMap b(ctx, dims, {}, {}, {base + ctx->Dim(lane_dim)});
  DecideOptions options;
  options.budget = kDecideBudget;
  Result<Equivalence> same = Equivalent(a, b, options);
  if (!same.ok() || !same->equivalent) return std::nullopt;
  IndexingMap domain(ctx, dims, {}, {}, {});
  Result<ExprBounds> rest = BoundsOf(domain, base % lanes, options);
  if (!rest.ok() || !rest->exact || rest->interval != Interval::Point(0)) {
    return std::nullopt;
  }
  return base;
}

int64_t LoopLikeVectorSize(const FusionRegion& region, const EmitterPlan& plan,
                           ExprContext* ctx) {
  if (plan.launch.unroll <= 1) return 1;
  // A reduce, reduce-window, dot or convolution computed per element loops
  // over its window (contracting dims) inside the lane loop, which then is
  // no innermost loop to vectorize.
  for (const hlo::Instruction* instr : region.members) {
    const hlo::Opcode op = instr->opcode;
    if (op == hlo::Opcode::kDot || op == hlo::Opcode::kConvolution) {
      // The emitters loop over the symbols both operand maps share.
      Result<std::vector<IndexingMap>> shared =
          ComputeSharedSymbolOperandMaps(*instr, ctx);
      if (!shared.ok()) return 1;
      for (const IndexingMap& m : *shared) {
        if (m.num_range_vars() > 0) return 1;
      }
      continue;
    }
    if (op != hlo::Opcode::kReduce && op != hlo::Opcode::kReduceWindow) {
      continue;
    }
    Result<HloInstructionIndexing> ix =
        ComputeOutputToInputIndexing(*instr, 0, ctx);
    if (!ix.ok() || ix->indexing_maps.empty() ||
        ix->indexing_maps[0].size() != 1 ||
        ix->indexing_maps[0].maps()[0].num_range_vars() > 0) {
      return 1;
    }
  }
  auto vectorizes = [&](const IndexingMap& map, const hlo::Shape& shape) {
    const int64_t lanes = LaneCount(map);
    return lanes > 1 && FitsVector(shape, lanes) &&
                   ContiguousAlignedAccess(map, shape, lanes, ctx)
               ? lanes
               : int64_t{0};
  };
  // The widest vector access: the code's vector_size.
  int64_t widest = 1;
  // Stores: each root at its output index; a concatenate root writes each
  // operand's elements at their place in the output.
  for (const RootPlan& r : plan.roots) {
    const hlo::Shape& shape = r.root->shape;
    if (r.output_map)
      widest = std::max(widest, vectorizes(*r.output_map, shape));
    if (r.root != r.hero || r.hero->opcode != hlo::Opcode::kConcatenate)
      continue;
    for (int i = 0; i < static_cast<int>(r.hero_operand_maps.size()); ++i) {
      if (!r.hero_operand_maps[i]) continue;
      Result<HloInstructionIndexing> to_out =
          ComputeInputToOutputIndexing(*r.hero, i, ctx);
      if (!to_out.ok() || to_out->indexing_maps.empty()) continue;
      for (const IndexingMap& m : to_out->indexing_maps[0]) {
        Result<IndexingMap> placed =
            ComposeSimplified(*r.hero_operand_maps[i], m);
        if (placed.ok()) widest = std::max(widest, vectorizes(*placed, shape));
      }
    }
  }
  // Loads: each parameter through its maps.
  for (const ParameterPlan& p : plan.parameters) {
    const hlo::Shape& shape = region.parameters[p.parameter]->shape;
    for (const IndexingMap& m : p.maps) {
      widest = std::max(widest, vectorizes(m, shape));
    }
  }
  return widest;
}

}  // namespace ixa
