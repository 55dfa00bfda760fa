// Shared tiles and banks: the layout of each shared tile of a transpose or
// reduction plan, chosen by hw::SynthesizeTileLayout over the tile's write
// and read and capped at XLA's padded tile, with the exact wavefronts of
// each access under it.
#include "analysis/emitters/shared_tiles.h"

#include <map>
#include <mutex>
#include <string>

#include "analysis/emitters/internal.h"
#include "core/text.h"
#include "hw/bank_conflicts.h"
#include "hw/swizzle_search.h"

namespace ixa {
namespace {

int64_t TileElementsOf(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

}  // namespace

IndexingMap TransposeTileOffsets(const std::vector<int64_t>& sizes, int64_t v,
                                 std::vector<Variable> dims,
                                 std::vector<Variable> range_vars,
                                 ExprContext* ctx) {
  const int64_t block = 32 * v;
  Expr linear = ctx->Symbol(0) * (4 * block) + ctx->Dim(0) * v + ctx->Symbol(1);
  std::vector<Expr> results;
  int64_t stride = 1;
  for (int64_t s : sizes) stride *= s;
  bool first = true;
  for (int64_t s : sizes) {
    stride /= s;
    if (s == 1) {
      results.push_back(ctx->Constant(0));
      continue;
    }
    Expr e = linear.FloorDiv(stride);
    results.push_back(first ? e : e % s);
    first = false;
  }
  return IndexingMap(ctx, std::move(dims), std::move(range_vars), {}, results);
}

std::vector<int64_t> TransposeReadSizes(const TransposeDescription& d) {
  // 021 and 210 have symmetric block sizes and a self-inverse permutation.
  std::vector<int64_t> sizes = d.block_sizes;
  if (d.generalized) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      sizes[i] = d.block_sizes[d.permutation[i]];
    }
  }
  return sizes;
}

std::vector<int> TransposeReadSource(const TransposeDescription& d) {
  // Output dim i is tile (input) dim permutation[i].
  std::vector<int> source(d.permutation.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (d.generalized) {
      source[d.permutation[i]] = static_cast<int>(i);
    } else {
      source[i] = static_cast<int>(d.permutation[i]);
    }
  }
  return source;
}

namespace emitters {
namespace {

// What the search found for one tile configuration, kept across plans: the
// same tiles recur in every plan of a module (and the cost models plan a
// fusion many times), and the answer depends on the configuration only.
struct SharedTileChoice {
  hw::TileLayout layout;
  int64_t elements = 0;
  std::string reason;
  std::vector<SharedTileAccess> reports;  // the numbers and reasons only
};

std::mutex& SharedTileChoiceMutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, SharedTileChoice>& SharedTileChoiceCache() {
  static auto* cache = new std::map<std::string, SharedTileChoice>();
  return *cache;
}

std::string TileShapeText(const std::vector<int64_t>& dims) {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// "warp 0 at s0 = 1: bank 4 serves 2 distinct words (lanes 0, 16)".
std::string BankCounterexampleText(const hw::BankCounterexample& c) {
  std::string s = "warp " + std::to_string(c.warp);
  for (size_t i = 0; i < c.loop_names.size() && i < c.loop_values.size(); ++i) {
    s += (i == 0 ? " at " : ", ") + c.loop_names[i] + " = " +
         std::to_string(c.loop_values[i]);
  }
  s += ": bank " + std::to_string(c.bank) + " serves " +
       std::to_string(c.lanes.size()) + " distinct words (lanes";
  for (size_t i = 0; i < c.lanes.size(); ++i) {
    s += (i == 0 ? " " : ", ") + std::to_string(c.lanes[i].lane);
  }
  return s + ")";
}

void FillSharedAccessReport(const hw::BankConflictReport& r,
                            const std::string& layout, SharedTileAccess* a) {
  a->bytes_per_lane = r.access_bytes;
  a->instances = r.instances;
  a->wavefronts_worst = r.worst;
  a->wavefronts_avg = r.average;
  a->wavefronts_ideal = r.phases;
  a->conflict_free = r.conflict_free;
  if (r.conflict_free) {
    a->reason = "conflict-free through " + layout + ": every warp access " +
                "takes its " + std::to_string(r.phases) + " wavefront" +
                (r.phases == 1 ? "" : "s");
  } else {
    a->reason = "not conflict-free through " + layout +
                (r.counterexample
                     ? ", e.g. " + BankCounterexampleText(*r.counterexample)
                     : std::string()) +
                "; no layout within XLA's shared memory has fewer wavefronts "
                "for the write and the read together";
  }
}

// The access map in the layout's coordinates: the logical coordinates
// with the trailing dims merged into the layout's last.
IndexingMap MergedTileAccess(const IndexingMap& map,
                             const std::vector<int64_t>& logical,
                             const std::vector<int64_t>& layout_shape) {
  const size_t k = layout_shape.size();
  std::vector<Expr> results(map.results().begin(),
                            map.results().begin() + (k - 1));
  ExprContext* ctx = map.context();
  Expr last = ctx->Constant(0);
  for (size_t j = k - 1; j < logical.size(); ++j) {
    last = last * logical[j] + map.results()[j];
  }
  results.push_back(last);
  IndexingMap out = map;
  out.mutable_results() = std::move(results);
  return out;
}

std::string SharedTileCacheKey(const SharedTile& tile,
                               const std::vector<int64_t>& layout_shape,
                               const std::vector<int64_t>& xla_dims,
                               const std::vector<SharedTileAccess>& accesses,
                               const hw::BankModel& model,
                               int64_t element_bytes) {
  std::string key =
      TileShapeText(tile.logical_dims) + "|" + TileShapeText(layout_shape) +
      "|" + TileShapeText(xla_dims) + "|" + std::to_string(element_bytes) +
      "|" + std::to_string(model.banks) + "," +
      std::to_string(model.bank_bytes) + "," + std::to_string(model.warp_size);
  for (const SharedTileAccess& a : accesses) {
    key += "|" + std::string(a.write ? "w" : "r") +
           std::to_string(a.vector_width) + ":" + PrintIndexingMap(a.map);
  }
  return key;
}

Result<SharedTileChoice> ChooseTileLayout(
    const SharedTile& tile, const std::vector<int64_t>& layout_shape,
    const std::vector<int64_t>& xla_dims,
    const std::vector<SharedTileAccess>& accesses, const hw::BankModel& model,
    int64_t element_bytes, const hw::TileLayout& xla, ExprContext* ctx) {
  const SharedTileAccess* write = nullptr;
  const SharedTileAccess* read = nullptr;
  for (const SharedTileAccess& a : accesses) (a.write ? write : read) = &a;
  IXA_CHECK(write && read);
  hw::SwizzleRequest req;
  req.shape = layout_shape;
  req.element_bytes = element_bytes;
  req.model = model;
  req.max_elements = TileElementsOf(xla_dims);
  req.write = {MergedTileAccess(write->map, tile.logical_dims, layout_shape), 0,
               write->vector_width};
  req.read = {MergedTileAccess(read->map, tile.logical_dims, layout_shape), 0,
              read->vector_width};
  IXA_ASSIGN_OR_RETURN(hw::SwizzleAnswer answer,
                       hw::SynthesizeTileLayout(req, ctx));
  SharedTileChoice c;
  c.layout = answer.after.layout;
  c.elements = answer.after.elements;
  const std::string name = hw::DescribeTileLayout(c.layout);
  const int64_t xla_elements = TileElementsOf(xla_dims);
  const int64_t total =
      answer.after.write_wavefronts + answer.after.read_wavefronts;
  const int64_t row_major =
      answer.before.write_wavefronts + answer.before.read_wavefronts;
  const int64_t saved = (xla_elements - c.elements) * element_bytes;
  const bool xla_layout =
      c.layout.kind == xla.kind &&
      (c.layout.kind != hw::TileLayoutKind::kPadded || c.layout.pad == xla.pad);
  if (xla_layout) {
    c.reason =
        name + " (XLA's): no layout within its " +
        std::to_string(xla_elements * element_bytes) +
        " bytes has fewer than its " + std::to_string(total) +
        " wavefronts per block (row-major: " + std::to_string(row_major) +
        "), and none as few in less memory";
  } else {
    c.reason = name + ": the fewest wavefronts per block (" +
               std::to_string(total) + "; row-major " +
               std::to_string(row_major) + ") in the least memory, " +
               std::to_string(saved) + " bytes less than XLA's padded tile";
  }
  for (const SharedTileAccess& a : accesses) {
    SharedTileAccess r;
    r.write = a.write;
    r.vector_width = a.vector_width;
    FillSharedAccessReport(a.write ? answer.write_after : answer.read_after,
                           name, &r);
    c.reports.push_back(std::move(r));
  }
  return c;
}

}  // namespace

std::vector<SharedTileAccess> TransposeTileAccesses(
    const TransposeDescription& d, int64_t v, int64_t steps, ExprContext* ctx) {
  auto access = [&](bool write) {
    const bool vector = v > 1 && (write || d.generalized);
    std::vector<Variable> dims = {MakeVariable({0, 127}, "th_x")};
    std::vector<Variable> range_vars = {
        MakeVariable({0, steps - 1}, "s0"),
        MakeVariable({0, vector ? 0 : v - 1}, "s1")};
    SharedTileAccess a;
    a.write = write;
    a.vector_width = vector ? v : 1;
    if (write) {
      a.map = TransposeTileOffsets(d.block_sizes, v, dims, range_vars, ctx);
      return a;
    }
    IndexingMap t =
        TransposeTileOffsets(TransposeReadSizes(d), v, dims, range_vars, ctx);
    std::vector<Expr> read;
    for (int i : TransposeReadSource(d)) read.push_back(t.results()[i]);
    t.mutable_results() = std::move(read);
    a.map = std::move(t);
    return a;
  };
  return {access(true), access(false)};
}

std::vector<SharedTileAccess> ReductionTileAccesses(
    const ReductionDescription& d, const LaunchDimensions& launch,
    ExprContext* ctx) {
  constexpr int64_t kWarpLanes = 32;
  const int64_t threads = launch.threads_per_block();
  std::vector<Variable> dims = {MakeVariable({0, threads - 1}, "th_x")};
  Expr th = ctx->Dim(0);
  SharedTileAccess write, read;
  write.write = true;
  if (d.kind == ReductionKind::kColumn) {
    const int64_t v = launch.vector_size;
    std::vector<Variable> lane = {MakeVariable({0, v - 1}, "l")};
    Expr l = ctx->Symbol(0);
    write.map =
        IndexingMap(ctx, dims, lane, {},
                    {th.FloorDiv(kWarpLanes), (th % kWarpLanes) * v + l});
    read.map = IndexingMap(ctx, dims, lane, {},
                           {th % kWarpLanes, th.FloorDiv(kWarpLanes) * v + l});
  } else {
    const int64_t tr = d.threads_reduced;
    const int64_t warps = (tr + kWarpLanes - 1) / kWarpLanes;
    write.map = IndexingMap(ctx, dims, {}, {},
                            {th.FloorDiv(tr), (th % tr).FloorDiv(kWarpLanes)},
                            {{th % kWarpLanes, Interval::Point(0)}});
    read.map =
        IndexingMap(ctx, dims, {}, {}, {th.FloorDiv(tr), th % kWarpLanes},
                    {{(th % tr).FloorDiv(kWarpLanes), Interval::Point(0)},
                     {th % kWarpLanes, Interval{0, warps - 1}}});
  }
  return {std::move(write), std::move(read)};
}

Status LayOutSharedTile(SharedTile* tile,
                        const std::vector<int64_t>& layout_shape,
                        const std::vector<int64_t>& xla_dims,
                        std::vector<SharedTileAccess> accesses,
                        const hw::Device& device, ExprContext* ctx) {
  tile->xla_dims = xla_dims;
  tile->layout_shape = layout_shape;
  tile->dims = xla_dims;
  tile->flat = false;
  const int64_t rows = TileElementsOf(layout_shape) / layout_shape.back();
  const int64_t pad =
      (TileElementsOf(xla_dims) - TileElementsOf(tile->logical_dims)) / rows;
  tile->layout = hw::TileLayout{};
  if (pad > 0) tile->layout = {hw::TileLayoutKind::kPadded, pad, 0, {}};
  const int64_t bits = hlo::ElementBits(tile->type);
  const int64_t element_bytes = bits < 8 ? 1 : bits / 8;
  Result<hw::BankModel> model = hw::BankModelOf(device);
  if (!model.ok() || bits % 8 != 0 || element_bytes > 16) {
    tile->layout_reason =
        hw::DescribeTileLayout(tile->layout) + " (XLA's): " +
        (model.ok() ? std::string("elements of ") + std::to_string(bits) +
                          " bits are not modelled in banks"
                    : model.error().message);
    return Status();
  }
  const std::string key = SharedTileCacheKey(*tile, layout_shape, xla_dims,
                                             accesses, *model, element_bytes);
  std::optional<SharedTileChoice> choice;
  {
    std::lock_guard<std::mutex> lock(SharedTileChoiceMutex());
    auto it = SharedTileChoiceCache().find(key);
    if (it != SharedTileChoiceCache().end()) choice = it->second;
  }
  if (!choice) {
    Result<SharedTileChoice> c =
        ChooseTileLayout(*tile, layout_shape, xla_dims, accesses, *model,
                         element_bytes, tile->layout, ctx);
    if (!c.ok()) {
      // Past the search's budget: XLA's padding, its accesses unanalysed.
      tile->layout_reason = hw::DescribeTileLayout(tile->layout) +
                            " (XLA's): not analysed (" + c.error().message +
                            ")";
      for (SharedTileAccess& a : accesses) {
        a.conflict_free = false;
        a.reason = "not analysed: " + c.error().message;
        tile->accesses.push_back(std::move(a));
      }
      return Status();
    }
    choice = std::move(c).value();
    std::lock_guard<std::mutex> lock(SharedTileChoiceMutex());
    if (SharedTileChoiceCache().size() > 4096) SharedTileChoiceCache().clear();
    SharedTileChoiceCache().emplace(key, *choice);
  }
  tile->layout_reason = choice->reason;
  const bool xla_layout = choice->layout.kind == tile->layout.kind &&
                          (choice->layout.kind != hw::TileLayoutKind::kPadded ||
                           choice->layout.pad == tile->layout.pad);
  tile->layout = choice->layout;
  if (xla_layout) {
    tile->dims = xla_dims;
  } else if (choice->layout.kind == hw::TileLayoutKind::kRowMajor) {
    tile->dims = tile->logical_dims;
  } else {
    tile->dims = {choice->elements};
    tile->flat = true;
  }
  for (size_t i = 0; i < accesses.size(); ++i) {
    SharedTileAccess a = choice->reports[i];
    a.map = std::move(accesses[i].map);
    tile->accesses.push_back(std::move(a));
  }
  return Status();
}

}  // namespace emitters

void UseXlaTileLayouts(EmitterPlan* plan) {
  plan->launch.shared_memory_bytes = 0;
  for (SharedTile& tile : plan->shared_tiles) {
    if (!tile.xla_dims.empty()) {
      const int64_t rows =
          TileElementsOf(tile.layout_shape) / tile.layout_shape.back();
      const int64_t pad =
          (TileElementsOf(tile.xla_dims) - TileElementsOf(tile.logical_dims)) /
          rows;
      tile.layout = hw::TileLayout{};
      if (pad > 0) tile.layout = {hw::TileLayoutKind::kPadded, pad, 0, {}};
      tile.dims = tile.xla_dims;
      tile.flat = false;
    }
    plan->launch.shared_memory_bytes += tile.bytes();
  }
}

}  // namespace ixa
