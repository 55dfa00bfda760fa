// The emitters' shared tiles under the bank model (hw/bank_conflicts.h):
// each warp access of the transpose tile (written at the thread's tile
// offset, read at it permuted: emit/emitters/transpose.cc) and of the
// column reduction's scratch (written at (warp, lane), read at (lane,
// warp)), as byte-address maps over the plan's tile dims, counted exactly;
// and what the swizzle search finds for the same accesses on the unpadded
// tile (the padding's memory saved at no more wavefronts). Two findings
// are pinned here: the u8 transpose tile's reads and the column
// reduction's writes (v = 2) are 2-way conflicted under the model.
#include <catch2/catch.hpp>

#include "hw/bank_conflicts.h"
#include "hw/swizzle_search.h"
#include "tests/analysis/emitters_test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

struct TileAccesses {
  hw::TileAccess write, read;   // over the unpadded block tile
  std::vector<int64_t> block;   // the unpadded tile
  std::vector<int64_t> padded;  // the plan's tile
  int64_t element_bytes = 0;
};

// The transpose emitter's thread offsets: s0 * 4 * 32v + th_x * v + s1
// delinearized over the block sizes (the first non-unit dim unbounded, as
// the emitter writes it).
std::vector<Expr> BankThreadOffsets(const std::vector<int64_t>& sizes,
                                    int64_t v, ExprContext* ctx) {
  Expr linear =
      ctx->Symbol(0) * (4 * 32 * v) + ctx->Dim(0) * v + ctx->Symbol(1);
  int64_t stride = 1;
  for (int64_t s : sizes) stride *= s;
  std::vector<Expr> out;
  bool first = true;
  for (int64_t s : sizes) {
    stride /= s;
    if (s == 1) {
      out.push_back(ctx->Constant(0));
      continue;
    }
    Expr e = linear.FloorDiv(stride);
    out.push_back(first ? e : e % s);
    first = false;
  }
  return out;
}

TileAccesses TransposeTileAccesses(const Planned& p) {
  const EmitterPlan& plan = p.plan;
  REQUIRE(plan.transpose);
  REQUIRE(plan.shared_tiles.size() == 1);
  const TransposeDescription& d = *plan.transpose;
  REQUIRE(!d.generalized);
  const int64_t v = plan.launch.vector_size;
  ExprContext* ctx = p.ctx.get();
  TileAccesses t;
  t.block = d.block_sizes;
  // XLA's padded tile (the plan lays out its own: docs/emitters.md §6c).
  t.padded = plan.shared_tiles[0].xla_dims;
  t.element_bytes =
      std::max(1, hlo::ElementBits(plan.shared_tiles[0].type) / 8);
  int64_t block_elements = 1;
  for (int64_t s : t.block) block_elements *= s;
  const int64_t steps = block_elements / (4 * 32 * v);
  std::vector<Expr> w = BankThreadOffsets(d.block_sizes, v, ctx);
  std::vector<Expr> r(w.size());
  for (size_t i = 0; i < w.size(); ++i) r[i] = w[d.permutation[i]];
  auto map = [&](std::vector<Expr> results) {
    return IndexingMap::FromTensorSizes(ctx, std::move(results),
                                        std::vector<int64_t>{128},
                                        std::vector<int64_t>{steps, v});
  };
  t.write = {map(w), 0, 1};
  t.read = {map(r), 0, 1};
  return t;
}

int64_t XlaTileBytes(const SharedTile& tile) {
  SharedTile xla = tile;
  xla.dims = tile.xla_dims;
  return xla.bytes();
}

// Byte addresses through XLA's padded row-major tile.
hw::BankConflictReport ThroughPadded(const TileAccesses& t,
                                     const hw::TileAccess& a) {
  Expr offset = a.map.context()->Constant(0);
  for (size_t i = 0; i < t.padded.size(); ++i)
    offset = offset * t.padded[i] + a.map.results()[i];
  IndexingMap bytes = a.map;
  bytes.mutable_results() = {offset * t.element_bytes};
  auto r =
      hw::AnalyzeBankConflicts({bytes, 0, t.element_bytes, 1}, hw::BankModel{});
  INFO((r.ok() ? "" : r.error().message));
  REQUIRE(r.ok());
  return *r;
}

hw::SwizzleAnswer Search(const TileAccesses& t, ExprContext* ctx) {
  hw::SwizzleRequest req;
  req.shape = t.block;
  req.element_bytes = t.element_bytes;
  req.write = t.write;
  req.read = t.read;
  auto a = hw::SynthesizeTileLayout(req, ctx);
  INFO((a.ok() ? "" : a.error().message));
  REQUIRE(a.ok());
  return *a;
}

TEST_CASE("emitter banks: the transpose tiles", "[emitters][banks]") {
  struct Case {
    const char* hlo;
    const char* device;
    bool conflict_free;
  };
  const Case cases[] = {
      // 32 x 33 f32 (v = 1): conflict-free.
      {R"(ENTRY e {
            p0 = f32[64,512,512] parameter(0)
            ROOT t = f32[64,512,512] transpose(p0), dimensions={0,2,1}
          })",
       "h100", true},
      // 64 x 65 f16 (v = 2): each lane reads two rows apart, 260 bytes:
      // 65 words, distinct banks.
      {R"(ENTRY e {
            p0 = f16[8192,64,64] parameter(0)
            ROOT t = f16[8192,64,64] transpose(p0), dimensions={0,2,1}
          })",
       "h100", true},
      // 210 of f32: the tile 32 x 1 x 33.
      {R"(ENTRY e {
            p0 = f32[20,160,170] parameter(0)
            ROOT t = f32[170,160,20] transpose(p0), dimensions={2,1,0}
          })",
       "h100", true},
      // 64 x 65 u8 (v = 2): lanes read bytes 130 apart, so lanes l and
      // l + 1 of a pair of words fall 32.5 words apart: lane 0 and lane 1
      // share bank 0 (words 0 and 32). The one-element pad does not cover
      // byte types: 2 wavefronts per read.
      {R"(ENTRY e {
            p0 = u8[256,256,256] parameter(0)
            ROOT t = u8[256,256,256] transpose(p0), dimensions={0,2,1}
          })",
       "h100", false},
  };
  for (const Case& c : cases) {
    INFO(c.hlo);
    Planned p = Plan(c.hlo, c.device);
    TileAccesses t = TransposeTileAccesses(p);
    hw::BankConflictReport w = ThroughPadded(t, t.write);
    hw::BankConflictReport r = ThroughPadded(t, t.read);
    CHECK(w.conflict_free);
    CHECK(r.conflict_free == c.conflict_free);
    if (!c.conflict_free) {
      CHECK(r.worst == 2);
      REQUIRE(r.counterexample);
      CHECK(r.counterexample->lanes.size() == 2);
    }
    // The search on the unpadded tile: no more wavefronts than the
    // plan's padded tile, in less memory.
    hw::SwizzleAnswer a = Search(t, p.ctx.get());
    CHECK(a.after.write_wavefronts + a.after.read_wavefronts <=
          w.total_wavefronts + r.total_wavefronts);
    CHECK(a.after.bytes < XlaTileBytes(p.plan.shared_tiles[0]));
    // The plan's own layout is as small.
    CHECK(p.plan.shared_tiles[0].bytes() == a.after.bytes);
    CHECK(a.write_after.conflict_free);
    CHECK(a.read_after.conflict_free);
  }
}

TEST_CASE("emitter banks: the column reduction's scratch",
          "[emitters][banks]") {
  // Column f32 with 64 kept columns: v = 2, scratch [32, 65]. Warp t0
  // writes row t0 at columns lane * v + l and reads column t0 * v + l
  // down the rows (lane = row).
  Planned p = Plan(R"(
    add {
      a = f32[] parameter(0)
      b = f32[] parameter(1)
      ROOT s = f32[] add(a, b)
    }
    ENTRY e {
      p0 = f32[40,64] parameter(0)
      z = f32[] constant(0)
      ROOT r = f32[64] reduce(p0, z), dimensions={0}, to_apply=add
    })");
  REQUIRE(p.plan.shared_tiles.size() == 1);
  const std::vector<int64_t> dims = p.plan.shared_tiles[0].xla_dims;
  const int64_t v = p.plan.launch.vector_size;
  CHECK(dims == std::vector<int64_t>{32, 32 * v + 1});
  ExprContext* ctx = p.ctx.get();
  Expr th = ctx->Dim(0), l = ctx->Symbol(0);
  Expr t0 = th.FloorDiv(32), t1 = th % 32;
  const std::vector<int64_t> threads{p.plan.launch.threads_per_block()};
  auto bytes = [&](Expr row, Expr col) {
    return IndexingMap::FromTensorSizes(ctx, {(row * dims[1] + col) * 4},
                                        threads, std::vector<int64_t>{v});
  };
  auto count = [&](const IndexingMap& m) {
    auto r = hw::AnalyzeBankConflicts({m, 0, 4, 1}, hw::BankModel{});
    INFO((r.ok() ? "" : r.error().message));
    REQUIRE(r.ok());
    return *r;
  };
  // The write stores each of a lane's v partials on its own, v words
  // apart: lanes l and l + 16 share a bank, 2 wavefronts (a finding; the
  // padding only serves the read). The read is conflict-free.
  hw::BankConflictReport write = count(bytes(t0, t1 * v + l));
  hw::BankConflictReport read = count(bytes(t1, t0 * v + l));
  CHECK(write.worst == v);
  CHECK(read.conflict_free);
  // The search on the unpadded [32, 32v] scratch.
  TileAccesses t;
  t.block = {32, 32 * v};
  t.padded = dims;
  t.element_bytes = 4;
  auto coords = [&](Expr row, Expr col) {
    return hw::TileAccess{IndexingMap::FromTensorSizes(ctx, {row, col}, threads,
                                                       std::vector<int64_t>{v}),
                          0, 1};
  };
  t.write = coords(t0, t1 * v + l);
  t.read = coords(t1, t0 * v + l);
  // No candidate serves both without a conflict; the best matches the
  // padded scratch's wavefronts without its 33rd column.
  hw::SwizzleAnswer a = Search(t, ctx);
  CHECK(a.after.write_wavefronts + a.after.read_wavefronts ==
        write.total_wavefronts + read.total_wavefronts);
  CHECK(a.after.bytes == 32 * 32 * v * 4);
  CHECK(a.after.bytes < XlaTileBytes(p.plan.shared_tiles[0]));
  CHECK(hw::DescribeTileLayout(a.after.layout) == "Swizzle<5,0,5>");
  // The plan takes the same layout.
  CHECK(hw::DescribeTileLayout(p.plan.shared_tiles[0].layout) ==
        "Swizzle<5,0,5>");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
