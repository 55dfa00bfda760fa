// ixa's own cost model (`"model": "ixa"`): where it departs from XLA's,
// and the note that names each departure. Numbers are worked out by hand
// from the H100's (3352.32 GB/s, 1.98 GHz, 132 SMs of 128 lanes, 2048
// threads per SM).
#include <catch2/catch.hpp>

#include "analysis/uses/fusion_cost.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

FusionCost Ixa(const std::string& hlo, const char* device = "h100") {
  auto module = ParseOrDie(hlo);
  ExprContext ctx;
  auto region = ResolveFusion(*module, "");
  REQUIRE(region.ok());
  auto cost =
      EstimateFusionCost(*region, *hw::FindDevice(device), CostOptions(), &ctx);
  INFO((cost.ok() ? "" : cost.error().ToString()));
  REQUIRE(cost.ok());
  CHECK(cost->model == CostModel::kIxa);
  return *cost;
}

const OperandCost& Operand(const FusionCost& cost, const std::string& name) {
  for (const OperandCost& o : cost.operands) {
    if (o.name == name) return o;
  }
  FAIL("no operand " << name);
  return cost.operands.front();
}

// The note that mentions `text`, or "".
std::string Note(const FusionCost& cost, const std::string& text) {
  for (const std::string& n : cost.notes) {
    if (n.find(text) != std::string::npos) return n;
  }
  return "";
}

constexpr double kBandwidth = 3352.32e3;  // bytes per microsecond

TEST_CASE("ixa model: exact bytes instead of utilization factors",
          "[uses][ixa]") {
  // Half of a concatenation is read: all of p0, none of p1. XLA charges
  // each 8 of its 12 bytes.
  FusionCost cost = Ixa(R"(
    ENTRY e {
      p0 = f32[3] parameter(0)
      p1 = f32[3] parameter(1)
      c = f32[6] concatenate(p0, p1), dimensions={0}
      s = f32[3] slice(c), slice={[0:3]}
      ROOT n = f32[3] negate(s)
    })");
  CHECK(Operand(cost, "p0").bytes_net == 12);
  CHECK(Operand(cost, "p1").bytes_net == 0);
  CHECK(Note(cost, "p1: 0 distinct bytes read") ==
        "p1: 0 distinct bytes read, 0 with re-reads, counted on the "
        "indexing maps; XLA's utilization charges 8 and 8");
  // Where both agree there is no note.
  cost = Ixa(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      ROOT n = f32[1024,1024] negate(p0)
    })");
  CHECK(Note(cost, "distinct bytes").empty());
}

TEST_CASE("ixa model: coalescing per operand, from sector counts",
          "[uses][ixa]") {
  // A narrow transpose read by the loop emitter, and a plain operand: XLA
  // calls both uncoalesced (1/16 of the bandwidth each); ixa counts half
  // of each sector used for p0 and all of it for p1.
  FusionCost cost = Ixa(R"(
    ENTRY e {
      p0 = f32[16384,2] parameter(0)
      p1 = f32[2,16384] parameter(1)
      t = f32[2,16384] transpose(p0), dimensions={1,0}
      ROOT a = f32[2,16384] add(t, p1)
    })");
  CHECK(cost.emitter == EmitterKind::kLoop);
  CHECK_FALSE(Operand(cost, "p0").coalesced);
  CHECK(Operand(cost, "p1").coalesced);
  CHECK(cost.bytes_moved == 2 * 131072 + 131072);
  CHECK_FALSE(Note(cost, "p0: 50% of each 32-byte sector").empty());
  CHECK_FALSE(Note(cost, "p1: 100% of each 32-byte sector").empty());
  CHECK(Note(cost, "p1: 100%").find("6.25%") != std::string::npos);
}

TEST_CASE("ixa model: throughput per op and type", "[uses][ixa]") {
  // 2^20 exps: 10 issue slots in f32, 12 in bf16 (two conversions). The
  // plan runs 1024 blocks of 256 threads, at most 8 on one SM (1024 over
  // 132), each SM's 128 lanes at 1.98 GHz.
  auto time = [](double slots_per_element) {
    const double per_block = slots_per_element * (1 << 20) / 1024;
    return 8 * per_block / (128 * 1.98e3);
  };
  FusionCost f32 = Ixa(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      ROOT x = f32[1024,1024] exponential(p0)
    })");
  REQUIRE(f32.launch.num_blocks() == 1024);
  CHECK(f32.compute_us == Approx(time(10)));
  FusionCost bf16 = Ixa(R"(
    ENTRY e {
      p0 = bf16[1024,1024] parameter(0)
      ROOT x = bf16[1024,1024] exponential(p0)
    })");
  CHECK(bf16.compute_us == Approx(time(12)));
  CHECK_FALSE(Note(bf16, "compute: 1.258e+07 issue slots").empty());
  // 16-bit adds pair up: half a slot each.
  FusionCost add = Ixa(R"(
    ENTRY e {
      p0 = bf16[1024,1024] parameter(0)
      ROOT x = bf16[1024,1024] add(p0, p0)
    })");
  CHECK(add.compute_us == Approx(time(0.5)));
  // Memory bound either way: max(compute, memory).
  CHECK(f32.exec_us == f32.memory_us);
  CHECK(f32.memory_us == Approx(2.0 * (4 << 20) / kBandwidth));
  CHECK_FALSE(Note(f32, "overlap fully").empty());
}

TEST_CASE("ixa model: occupancy and waves", "[uses][ixa]") {
  // 64 threads in one block: one SM, 64 lanes; and a twentieth of the
  // bytes in flight DRAM needs (64 of 0.25 * 132 * 2048 threads).
  FusionCost small = Ixa(R"(
    ENTRY e {
      p0 = f32[64] parameter(0)
      ROOT x = f32[64] exponential(p0)
    })");
  CHECK(small.compute_us == Approx(640 / (64 * 1.98e3)));
  const double in_flight = 64 / (0.25 * 132 * 2048);
  CHECK(small.memory_us == Approx(512 / (kBandwidth * in_flight)));
  CHECK(small.waves == 1);
  // 2^24 elements, unrolled 4: 32768 blocks of 128 threads, 16 per SM:
  // 16 waves (15 full ones and a last one of 1088 blocks, 9 on the
  // busiest SM).
  FusionCost big = Ixa(R"(
    ENTRY e {
      p0 = f32[4096,4096] parameter(0)
      r = f32[4096,4096] reverse(p0), dimensions={0}
      ROOT x = f32[4096,4096] exponential(r)
    })");
  REQUIRE(big.launch.num_blocks() == 32768);
  REQUIRE(big.launch.threads_per_block() == 128);
  CHECK(big.blocks_per_core == 16);
  CHECK(big.waves == 16);
  const double per_block = 10.0 * (1 << 24) / 32768;  // 4 per thread
  const double wave = 16 * per_block / (128 * 1.98e3);
  const double last = 9 * per_block / (128 * 1.98e3);
  CHECK(big.compute_us == Approx(15 * wave + last));
  CHECK_FALSE(Note(big, "16 wave(s)").empty());
}

TEST_CASE("ixa model: writes and caches", "[uses][ixa]") {
  // A row re-read for every output row: the re-read data (4 KiB) fits in
  // L1, as in XLA.
  FusionCost cost = Ixa(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024] parameter(1)
      b = f32[1024,1024] broadcast(p1), dimensions={1}
      ROOT a = f32[1024,1024] add(p0, b)
    })");
  CHECK(Operand(cost, "p1").bytes_total == 4 << 20);
  CHECK(Operand(cost, "p1").bytes_net == 4096);
  CHECK(cost.memory_us == Approx((4 << 20) / kBandwidth + 4096 / kBandwidth +
                                 ((4 << 20) - 4096) / (20 * kBandwidth) +
                                 (4 << 20) / kBandwidth));
  CHECK_FALSE(Note(cost, "fit in L2 together").empty());
  CHECK(Operand(cost, "p1").read_time_us ==
        Approx(4096 / kBandwidth + ((4 << 20) - 4096) / (20 * kBandwidth)));
  CHECK(Operand(cost, "p0").read_time_us == Approx((4 << 20) / kBandwidth));
  // Re-read operands over L2 together (2 x 32 MiB): their re-reads come
  // from DRAM. Each is broadcast twice.
  cost = Ixa(R"(
    ENTRY e {
      p0 = f32[8388608] parameter(0)
      p1 = f32[8388608] parameter(1)
      b0 = f32[2,8388608] broadcast(p0), dimensions={1}
      b1 = f32[2,8388608] broadcast(p1), dimensions={1}
      ROOT a = f32[2,8388608] add(b0, b1)
    })");
  CHECK(Operand(cost, "p0").bytes_total == 64 << 20);
  CHECK(cost.bytes_moved == 2.0 * (64 << 20));
  CHECK_FALSE(Note(cost, "exceed L2 together").empty());
  // A large constant is read like an operand.
  cost = Ixa(R"(
    ENTRY e {
      p0 = f32[16] parameter(0)
      c = f32[16] constant({1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16})
      ROOT a = f32[16] add(p0, c)
    })");
  CHECK(Operand(cost, "c").bytes_net == 64);
  CHECK(cost.bytes_read == 128);
  CHECK_FALSE(Note(cost, "constant c: 64 bytes").empty());
}

TEST_CASE("ixa model: a lone dot runs as a library GEMM", "[uses][ixa]") {
  // Each output element reads 1024 elements of each operand: through the
  // caches that would be 2^31 re-read bytes; a GEMM re-reads its tiles
  // from shared memory. Fused into a loop, the same dot pays them.
  const char* lone = R"(
    ENTRY e {
      p0 = f32[512,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      ROOT d = f32[512,1024] dot(p0, p1), lhs_contracting_dims={1},
                                          rhs_contracting_dims={0}
    })";
  FusionCost cost = Ixa(lone);
  CHECK(Operand(cost, "p0").bytes_total == int64_t{512} * 1024 * 1024 * 4);
  CHECK(cost.bytes_moved == (512 + 1024) * 1024 * 4);
  CHECK_FALSE(Note(cost, "runs as a library GEMM").empty());
  FusionCost fused = Ixa(R"(
    ENTRY e {
      p0 = f32[512,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      d = f32[512,1024] dot(p0, p1), lhs_contracting_dims={1},
                                     rhs_contracting_dims={0}
      ROOT n = f32[512,1024] negate(d)
    })");
  CHECK(Note(fused, "runs as a library GEMM").empty());
  CHECK(fused.memory_us > 10 * cost.memory_us);
}

TEST_CASE("ixa model: a scatter is charged its updates", "[uses][ixa]") {
  FusionCost cost = Ixa(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p = f32[1000,64] parameter(0)
      i = s32[10,1] parameter(1)
      u = f32[10,64] parameter(2)
      ROOT s = f32[1000,64] scatter(p, i, u), update_window_dims={1},
          inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
          index_vector_dim=1, to_apply=add
    })");
  CHECK(cost.emitter == EmitterKind::kScatter);
  CHECK(cost.bytes_written == 10 * 64 * 4);
  CHECK_FALSE(Note(cost, "a scatter updates its operand in place").empty());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
