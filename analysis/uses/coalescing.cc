#include "analysis/uses/coalescing.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "analysis/emitters/plan.h"
#include "analysis/hlo/physical_layout.h"
#include "analysis/indexing/indexing.h"
#include "analysis/uses/tiles.h"
#include "analysis/uses/utilization.h"
#include "core/enumerate.h"
#include "core/int_math.h"
#include "core/text.h"
#include "hw/xla_layout.h"
#include "simplifier/simplify.h"

namespace ixa {
namespace {

// (lane in [0, W-1]) -> (lane, lo_1, ..., lo_5): the first warp along th_x
// of the first block of the map's domain (XLA's
// thread_x_first_32_elements maps to 0 instead of the lower bounds; they
// differ only where a dim's domain excludes 0, as bl_y of a reduction
// group g > 0).
IndexingMap FirstWarp(const IndexingMap& map, int64_t warp_size) {
  ExprContext* ctx = map.context();
  std::vector<Expr> results{ctx->Dim(0)};
  for (int i = 1; i < map.num_dims(); ++i) {
    const Interval& b = map.dims()[i].bounds;
    results.push_back(ctx->Constant(b.IsFull() ? 0 : b.lower));
  }
  return IndexingMap(ctx, {MakeVariable(Interval{0, warp_size - 1}, "th_x")},
                     {}, {}, results);
}

// The warp_size consecutive threads of the first block (th_x fastest, then
// th_y, th_z), every block dim at its lower bound.
IndexingMap RealFirstWarp(const IndexingMap& map,
                          const LaunchDimensions& launch, int64_t warp_size) {
  ExprContext* ctx = map.context();
  const int64_t tx = launch.threads[0], ty = launch.threads[1];
  const int64_t lanes = std::min(warp_size, launch.threads_per_block());
  Expr lane = ctx->Dim(0);
  std::vector<Expr> results = {
      tx == 1 ? ctx->Constant(0) : lane % tx,
      ty == 1 ? ctx->Constant(0) : lane.FloorDiv(tx) % ty,
      launch.threads[2] == 1 ? ctx->Constant(0) : lane.FloorDiv(tx * ty)};
  for (int i = 3; i < map.num_dims(); ++i) {
    const Interval& b = map.dims()[i].bounds;
    results.push_back(ctx->Constant(b.IsFull() ? 0 : b.lower));
  }
  return IndexingMap(ctx, {MakeVariable(Interval{0, lanes - 1}, "lane")}, {},
                     {}, results);
}

// Every range variable but the last at its lower bound (XLA's
// AssignValuesToOuterLoopIVs): one request of the emitter's innermost loop.
// `keep_constraints` = false drops the constraints as XLA does; the exact
// counts keep them.
IndexingMap FixAllButLastRangeVar(const IndexingMap& map,
                                  bool keep_constraints) {
  const int nr = map.num_range_vars();
  if (nr <= 1) return map;
  ExprContext* ctx = map.context();
  std::vector<Expr> dims, syms;
  for (int i = 0; i < map.num_dims(); ++i) dims.push_back(ctx->Dim(i));
  for (int j = 0; j + 1 < nr; ++j) {
    syms.push_back(ctx->Constant(map.range_vars()[j].bounds.lower));
  }
  syms.push_back(ctx->Symbol(0));
  std::vector<Expr> results;
  for (Expr r : map.results()) results.push_back(Substitute(r, dims, syms));
  std::vector<Constraint> cons;
  if (keep_constraints) {
    for (const Constraint& c : map.constraints()) {
      cons.push_back({Substitute(c.expr, dims, syms), c.interval});
    }
  }
  return IndexingMap(ctx, map.dims(), {map.range_vars().back()}, {}, results,
                     cons);
}

// The same, simplified, with the symbols it no longer uses removed.
IndexingMap FixOuterLoops(const IndexingMap& map, bool keep_constraints) {
  if (map.num_range_vars() <= 1) return map;
  IndexingMap out = FixAllButLastRangeVar(map, keep_constraints);
  Simplify(&out);
  out.RemoveUnusedSymbols();
  return out;
}

// The first warp's accesses: runtime variables at their midpoint, block 0,
// outer loops fixed.
Result<IndexingMap> FirstWarpSample(const IndexingMap& thread_to_linear,
                                    const hw::Device& device,
                                    bool keep_constraints) {
  IndexingMap fixed = FixRuntimeVars(thread_to_linear, /*midpoint=*/true);
  IXA_ASSIGN_OR_RETURN(
      IndexingMap sample,
      ComposeIndexingMaps(FirstWarp(fixed, device.warp_size), fixed));
  Simplify(&sample);
  sample.RescaleSymbols();
  sample.RemoveUnusedSymbols();
  if (sample.IsKnownEmpty()) return sample;
  return FixOuterLoops(sample, keep_constraints);
}

bool UsesDim0(Expr e) {
  std::vector<bool> d, s;
  CollectVariables(e, &d, &s);
  return !d.empty() && d[0];
}
bool UsesSymbol0(Expr e) {
  std::vector<bool> d, s;
  CollectVariables(e, &d, &s);
  return !s.empty() && s[0];
}

void Summands(Expr e, std::vector<Expr>* out) {
  if (e.kind() == ExprKind::kAdd) {
    Summands(e.lhs(), out);
    Summands(e.rhs(), out);
  } else {
    out->push_back(e);
  }
}

// Sorted distinct values merged into runs of consecutive integers.
std::vector<Interval> Runs(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<Interval> out;
  for (int64_t v : values) {
    if (!out.empty() && out.back().upper + 1 == v) {
      out.back().upper = v;
    } else {
      out.push_back(Interval::Point(v));
    }
  }
  return out;
}

struct Numbers {
  int64_t transactions = 0, bytes_requested = 0, bytes_useful = 0;
};

// Exact numbers of one warp request (see the header). Sub-byte elements
// are packed: offsets become byte offsets.
Result<Numbers> WarpNumbers(const IndexingMap& thread_to_offset,
                            int64_t element_bits,
                            const LaunchDimensions& launch,
                            const hw::Device& device) {
  IndexingMap fixed =
      FixAllButLastRangeVar(FixRuntimeVars(thread_to_offset, /*midpoint=*/true),
                            /*keep_constraints=*/true);
  IXA_ASSIGN_OR_RETURN(
      IndexingMap sample,
      ComposeIndexingMaps(RealFirstWarp(fixed, launch, device.warp_size),
                          fixed));
  int64_t element_bytes = std::max<int64_t>(1, element_bits / 8);
  if (element_bits > 0 && element_bits < 8 && sample.num_results() == 1) {
    sample.mutable_results()[0] =
        sample.results()[0].FloorDiv(8 / element_bits);
    element_bytes = 1;
  }
  Simplify(&sample);
  if (sample.IsKnownEmpty()) return Numbers{};
  IXA_ASSIGN_OR_RETURN(hw::WarpAccess a,
                       hw::AnalyzeWarpAccess(sample, element_bytes, device,
                                             hw::MemorySpace::kGlobal));
  return Numbers{a.sectors, a.sectors * device.sector_bytes, a.useful_bytes};
}

// Exact DRAM-to-L2 numbers of one output tile at the origin.
Result<Numbers> TileNumbers(const IndexingMap& out_to_param,
                            const IndexingMap& linearize,
                            std::span<const int64_t> tile_sizes,
                            int64_t element_bytes, int64_t transaction_bytes,
                            int64_t limit, ExprContext* ctx) {
  IndexingMap tile = IndexingMap::Identity(ctx, tile_sizes);
  IXA_ASSIGN_OR_RETURN(IndexingMap a, ComposeIndexingMaps(tile, out_to_param));
  IXA_ASSIGN_OR_RETURN(IndexingMap b, ComposeIndexingMaps(a, linearize));
  IndexingMap m = FixRuntimeVars(b, /*midpoint=*/true);
  Simplify(&m);
  std::set<int64_t> elements;
  std::optional<Error> error;
  auto r = ForEachDomainPoint(m, limit, [&](const Point& p) {
    auto v = Evaluate(m.results()[0], p.dims, p.symbols);
    if (!v.ok()) {
      error = v.error();
      return false;
    }
    elements.insert(*v);
    return true;
  });
  if (error) return *error;
  if (!r.ok()) return r.error();
  std::set<int64_t> blocks;
  for (int64_t e : elements) {
    int64_t first = e * element_bytes;
    int64_t last = first + element_bytes - 1;
    for (int64_t t = FloorDiv(first, transaction_bytes).value();
         t <= FloorDiv(last, transaction_bytes).value(); ++t) {
      blocks.insert(t);
    }
  }
  Numbers n;
  n.transactions = static_cast<int64_t>(blocks.size());
  n.bytes_requested = n.transactions * transaction_bytes;
  n.bytes_useful = static_cast<int64_t>(elements.size()) * element_bytes;
  return n;
}

// XLA's BandwidthUtilizationRateHeuristicForTiledMemoryAccess.
double TiledBandwidthRate(const hlo::Shape& shape, const ConcreteTile& tile,
                          int64_t element_bytes, int64_t transaction_bytes) {
  int64_t contiguous = 1;
  for (int64_t d : shape.MinorToMajor()) {
    const int64_t size = tile.sizes[d], dim = shape.dims[d];
    if (size > 1 && tile.strides[d] != 1) break;
    contiguous *= std::min(size, dim);
    if (size < dim) break;
  }
  const int64_t bytes = contiguous * element_bytes;
  const int64_t moved =
      CeilDivNonNegative(bytes, transaction_bytes) * transaction_bytes;
  return static_cast<double>(bytes) / static_cast<double>(moved);
}

}  // namespace

int64_t ElementBytes(const hlo::Shape& shape) {
  return std::max(1, hlo::ElementBits(shape.type) / 8);
}

int64_t DramToL2TransactionBytes(const hw::Device& device) {
  return device.vendor == "nvidia" ? 64 : device.sector_bytes;
}

Result<bool> IsIndexingCoalesced(const IndexingMap& thread_to_linear,
                                 int64_t element_bytes,
                                 const hw::Device& device, std::string* why) {
  auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  if (thread_to_linear.num_results() == 0) return true;
  IXA_ASSIGN_OR_RETURN(IndexingMap sample,
                       FirstWarpSample(thread_to_linear, device,
                                       /*keep_constraints=*/false));
  if (sample.IsKnownEmpty()) return true;  // this warp reads nothing
  ExprContext* ctx = sample.context();
  const Expr lane = ctx->Dim(0);
  const bool has_range = sample.num_range_vars() > 0;
  const Expr range = has_range ? ctx->Symbol(0) : Expr();
  // Partition the offset into f(lane) + g(s0).
  Expr f = ctx->Constant(0), g = ctx->Constant(0);
  std::vector<Expr> summands;
  Summands(sample.results()[0], &summands);
  for (Expr s : summands) {
    bool on_lane = UsesDim0(s), on_range = has_range && UsesSymbol0(s);
    if (on_lane && on_range) {
      return fail("the offset mixes the lane and the loop variable in '" +
                  PrintExpr(s, sample) + "'");
    }
    if (on_lane) f = f + s;
    if (on_range) g = g + s;
  }
  if (sample.constraints().size() > 1) {
    return fail("the warp's accesses have " +
                std::to_string(sample.constraints().size()) + " constraints");
  }
  if (sample.constraints().size() == 1) {
    // XLA requires the single constraint to be the offset itself; compare
    // by value (the difference simplifies to 0), not by tree shape.
    IndexingMap diff(ctx, sample.dims(), sample.range_vars(), {},
                     {sample.constraints()[0].expr - (f + g)});
    Simplify(&diff);
    if (!diff.results()[0].IsConstant(0)) {
      return fail("the warp's access constraint is not on the offset");
    }
  }
  const int64_t w = device.warp_size;
  std::vector<Interval> intervals;
  const Interval s_range =
      has_range ? sample.range_vars()[0].bounds : Interval::Point(0);
  const int64_t trip = s_range.Size();
  const bool g_is_s0 = has_range && g == range;
  if (f == lane) {
    intervals.push_back({0, w - 1});
  } else if (f.kind() == ExprKind::kMul && f.lhs() == lane &&
             f.rhs().IsConstant()) {
    const int64_t c = f.rhs().constant();
    if (c == -1) {
      intervals.push_back({0, w - 1});
    } else if (g_is_s0 && trip >= std::abs(c)) {
      intervals.push_back({0, c * (w - 1) + trip - 1});
    } else {
      for (int64_t i = 0, dm = 0; i < w; ++i, dm += c) {
        intervals.push_back(
            g_is_s0 ? Interval{s_range.lower + dm, s_range.upper + dm}
                    : Interval::Point(dm));
      }
    }
  } else {
    std::vector<int64_t> values;
    std::vector<int64_t> syms(sample.num_symbols(), 0);
    const Interval lanes = sample.dims()[0].bounds;
    for (int64_t l = lanes.lower; l <= lanes.upper; ++l) {
      std::vector<int64_t> dims = {l};
      IXA_ASSIGN_OR_RETURN(int64_t v, Evaluate(f, dims, syms));
      values.push_back(v);
    }
    intervals = Runs(std::move(values));
    if (g_is_s0) {
      // Extend each run by the loop's trip count and merge overlaps.
      std::vector<Interval> merged;
      for (Interval iv : intervals) {
        iv.upper += trip - 1;
        if (!merged.empty() && iv.lower <= merged.back().upper + 1) {
          merged.back().upper = std::max(merged.back().upper, iv.upper);
        } else {
          merged.push_back(iv);
        }
      }
      intervals = std::move(merged);
    }
  }
  // EstimateCoalescingViaMemoryTransactionsCount, with line_bytes as XLA's
  // 128-byte memory transaction.
  const int64_t line = device.line_bytes;
  int64_t transactions = 0, elements = 0;
  for (const Interval& iv : intervals) {
    const int64_t n = iv.upper - iv.lower + 1;
    transactions += CeilDivNonNegative(n * element_bytes, line);
    elements += n;
  }
  if (transactions == 0) return true;
  const int64_t lower_bound =
      CeilDivNonNegative(elements * element_bytes, line);
  if (static_cast<double>(lower_bound) > 0.9 * transactions) return true;
  return fail(std::to_string(transactions) + " transactions of " +
              std::to_string(line) + " bytes where " +
              std::to_string(lower_bound) + " would do");
}

Result<OperandCoalescing> AnalyzeReads(std::span<const IndexingMap> thread_maps,
                                       const hlo::Shape& shape,
                                       const LaunchDimensions& launch,
                                       const hw::Device& device) {
  if (device.warp_size < 1 || device.sector_bytes < 1 ||
      device.line_bytes < 1) {
    return Error::Invalid("device needs positive warp, sector and line sizes");
  }
  if (thread_maps.empty()) return OperandCoalescing{};
  ExprContext* ctx = thread_maps[0].context();
  IXA_ASSIGN_OR_RETURN(IndexingMap physical, PhysicalOffsetMap(shape, ctx));
  OperandCoalescing oc;
  oc.num_maps = static_cast<int>(thread_maps.size());
  const int64_t bytes = ElementBytes(shape);
  const int64_t bits = hlo::ElementBits(shape.type);
  for (const IndexingMap& m : thread_maps) {
    IXA_ASSIGN_OR_RETURN(IndexingMap to_offset,
                         ComposeIndexingMaps(m, physical));
    Simplify(&to_offset);
    std::string why;
    IXA_ASSIGN_OR_RETURN(bool ok,
                         IsIndexingCoalesced(to_offset, bytes, device, &why));
    if (!ok) {
      oc.coalesced = false;
      if (oc.note.empty()) oc.note = why;
    }
    IXA_ASSIGN_OR_RETURN(Numbers n,
                         WarpNumbers(to_offset, bits, launch, device));
    oc.transactions_per_warp_request += n.transactions;
    oc.bytes_requested += n.bytes_requested;
    oc.bytes_useful += n.bytes_useful;
  }
  oc.efficiency = oc.bytes_requested == 0
                      ? 1.0
                      : static_cast<double>(oc.bytes_useful) /
                            static_cast<double>(oc.bytes_requested);
  return oc;
}

CoalescingAnalysis AnalyzePlanCoalescing(const FusionRegion& region,
                                         const EmitterPlan& plan,
                                         const hw::Device& device) {
  CoalescingAnalysis result;
  result.emitter = plan.kind;
  result.reduction_kind = plan.reduction_kind;
  result.launch = plan.launch;
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    const hlo::Instruction* param = region.parameters[i];
    const ParameterPlan* pp =
        i < plan.parameters.size() ? &plan.parameters[i] : nullptr;
    auto unknown = [&](std::string reason) {
      result.unknown.push_back(
          {static_cast<int>(i), param->name, std::move(reason)});
    };
    if (!pp) {
      unknown("the plan has no entry for this parameter");
      continue;
    }
    if (pp->unknown_reason) {
      unknown(*pp->unknown_reason);
      continue;
    }
    if (!param->shape.IsArray()) {
      unknown(NotAnArrayReason(*param));
      continue;
    }
    OperandCoalescing oc;
    if (pp->not_read) {
      oc.not_read = true;
    } else {
      auto reads = AnalyzeReads(pp->maps, param->shape, plan.launch, device);
      if (!reads.ok()) {
        unknown(reads.error().message);
        continue;
      }
      oc = std::move(reads).value();
    }
    oc.parameter = static_cast<int>(i);
    oc.name = param->name;
    result.operands.push_back(std::move(oc));
  }
  return result;
}

namespace {

Result<std::vector<OperandCoalescing>> TiledCoalescing(
    const FusionRegion& region, const hw::Device& device,
    const CoalescingOptions& options, std::vector<UnknownOperand>* unknown,
    ExprContext* ctx) {
  const hlo::Shape& out_shape = OutputShape(*region.root, 0);
  if (!out_shape.IsArray()) {
    return Error::Unsupported(
        "coalescing with tile_sizes: the fusion output is not an array");
  }
  if (options.tile_sizes.size() != out_shape.dims.size()) {
    return Error::Invalid(
        "tile_sizes has " + std::to_string(options.tile_sizes.size()) +
        " entries for an output of rank " + std::to_string(out_shape.rank()));
  }
  // A tile may overhang the output (a power-of-two tile over a dim of 30,
  // say): the kernel masks the overhang, so the tile reads exactly what
  // its part inside the output reads. It is analysed at those sizes.
  std::vector<int64_t> tile_sizes;
  for (size_t k = 0; k < out_shape.dims.size(); ++k) {
    if (options.tile_sizes[k] < 1) {
      return Error::Invalid("tile size " +
                            std::to_string(options.tile_sizes[k]) + " of dim " +
                            std::to_string(k) + " must be >= 1");
    }
    tile_sizes.push_back(std::min(options.tile_sizes[k], out_shape.dims[k]));
  }
  std::vector<OperandCoalescing> out;
  auto maps = ComputeFusionParameterIndexingPartial(region, 0, ctx);
  if (!maps.ok()) {
    for (size_t i = 0; i < region.parameters.size(); ++i) {
      unknown->push_back({static_cast<int>(i), region.parameters[i]->name,
                          maps.error().message});
    }
    return out;
  }
  const int64_t txn = DramToL2TransactionBytes(device);
  for (size_t i = 0; i < region.parameters.size(); ++i) {
    const hlo::Instruction* param = region.parameters[i];
    if ((*maps)[i].unknown()) {
      unknown->push_back(
          {static_cast<int>(i), param->name, (*maps)[i].unknown_reason});
      continue;
    }
    if (!param->shape.IsArray()) {
      unknown->push_back(
          {static_cast<int>(i), param->name, NotAnArrayReason(*param)});
      continue;
    }
    OperandCoalescing oc;
    oc.parameter = static_cast<int>(i);
    oc.name = param->name;
    oc.num_maps = static_cast<int>((*maps)[i].maps.size());
    const int64_t bytes = ElementBytes(param->shape);
    auto physical = PhysicalOffsetMap(param->shape, ctx);
    if (!physical.ok()) {
      unknown->push_back(
          {static_cast<int>(i), param->name, physical.error().message});
      continue;
    }
    double moved = 0;
    bool failed = false;
    for (const IndexingMap& m : (*maps)[i].maps) {
      auto n = TileNumbers(m, *physical, tile_sizes, bytes, txn,
                           options.enumeration_limit, ctx);
      if (!n.ok()) {
        unknown->push_back(
            {static_cast<int>(i), param->name, n.error().message});
        failed = true;
        break;
      }
      double rate = n->bytes_requested == 0
                        ? 1.0
                        : static_cast<double>(n->bytes_useful) /
                              static_cast<double>(n->bytes_requested);
      auto tile = SymbolicTileFromIndexingMap(m);
      if (tile.ok()) {
        auto concrete = EvaluateTile(*tile, tile_sizes);
        if (concrete.ok() && concrete->satisfied) {
          rate = TiledBandwidthRate(param->shape, *concrete, bytes, txn);
        }
      }
      moved += rate > 0 ? n->bytes_useful / rate : 0;
      if (rate <= 0.9) oc.coalesced = false;
      oc.transactions_per_warp_request += n->transactions;
      oc.bytes_requested += n->bytes_requested;
      oc.bytes_useful += n->bytes_useful;
    }
    if (failed) continue;
    oc.efficiency = oc.bytes_requested == 0
                        ? 1.0
                        : static_cast<double>(oc.bytes_useful) /
                              static_cast<double>(oc.bytes_requested);
    oc.bandwidth_utilization =
        moved > 0 ? static_cast<double>(oc.bytes_useful) / moved : 1.0;
    out.push_back(std::move(oc));
  }
  return out;
}

}  // namespace

Result<CoalescingAnalysis> AnalyzeCoalescing(const FusionRegion& region,
                                             const hw::Device& device,
                                             const CoalescingOptions& options,
                                             ExprContext* ctx) {
  if (device.warp_size < 1 || device.sector_bytes < 1 ||
      device.line_bytes < 1) {
    return Error::Invalid("device needs positive warp, sector and line sizes");
  }
  PlanOptions plan_options;
  if (options.launch) {
    const LaunchConfig& l = *options.launch;
    if (l.threads_per_block < 1 || l.blocks < 1 || l.unroll < 1) {
      return Error::Invalid(
          "launch: threads_per_block, blocks and unroll must be >= 1");
    }
    LaunchDimensions launch;
    launch.threads = {l.threads_per_block, 1, 1};
    launch.blocks = {l.blocks, 1, 1};
    launch.unroll = l.unroll;
    plan_options.force_loop = true;
    plan_options.loop_launch = launch;
  }
  auto plan = ComputeEmitterPlan(region, device, plan_options, ctx);
  if (!plan.ok() && plan.error().code == ErrorCode::kInvalidArgument &&
      options.tile_sizes.empty()) {
    return plan.error();
  }
  CoalescingAnalysis result;
  if (!options.tile_sizes.empty()) {
    if (plan.ok()) {
      result.emitter = plan->kind;
      result.reduction_kind = plan->reduction_kind;
      result.launch = plan->launch;
    }
    IXA_ASSIGN_OR_RETURN(
        result.operands,
        TiledCoalescing(region, device, options, &result.unknown, ctx));
    return result;
  }
  if (!plan.ok()) {
    for (size_t i = 0; i < region.parameters.size(); ++i) {
      result.unknown.push_back({static_cast<int>(i), region.parameters[i]->name,
                                plan.error().message});
    }
    return result;
  }
  return AnalyzePlanCoalescing(region, *plan, device);
}

}  // namespace ixa
