// XLA's GPU fusion cost model (`"model": "xla"`): each formula on small
// fusions whose bytes, flops and times are worked out by hand below from
// the device's numbers (H100: 3352.32 GB/s, 1.98 GHz, 132 SMs of 128
// FPUs, 50 MiB L2; peak 66908 flop equivalents per ns).
#include <catch2/catch.hpp>

#include "analysis/uses/fusion_cost.h"
#include "analysis/uses/xla_performance_model.h"
#include "hw/op_profiles.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

constexpr double kH100Bandwidth = 3352320000000.0;  // bytes per second
constexpr double kH100PerBlock = 1.98e9 * 32;       // bytes per second

FusionCost Xla(const std::string& hlo,
               std::vector<std::string> instructions = {},
               const char* device = "h100") {
  auto module = ParseOrDie(hlo);
  ExprContext ctx;
  auto region = instructions.empty()
                    ? ResolveFusion(*module, "")
                    : RegionOfInstructions(*module->entry(), instructions);
  REQUIRE(region.ok());
  CostOptions options;
  options.model = CostModel::kXla;
  auto cost =
      EstimateFusionCost(*region, *hw::FindDevice(device), options, &ctx);
  INFO((cost.ok() ? "" : cost.error().ToString()));
  REQUIRE(cost.ok());
  CHECK(cost->model == CostModel::kXla);
  return *cost;
}

const OperandCost& Operand(const FusionCost& cost, const std::string& name) {
  for (const OperandCost& o : cost.operands) {
    if (o.name == name) return o;
  }
  FAIL("no operand " << name);
  return cost.operands.front();
}

double Us(double seconds) { return seconds * 1e6; }

double Combine(double compute, double memory) {
  return compute + memory - 0.95 * std::min(compute, memory);
}

TEST_CASE("xla model: op profiles per device", "[uses][xla]") {
  const hw::Device h100 = *hw::FindDevice("h100");
  CHECK(hw::OpProfileKeyFor(h100) == "sm_90");
  CHECK(hw::OpProfileFlops(h100, "exponential", "f32") == 79);
  CHECK(hw::OpProfileFlops(h100, "divide", "f64") == 526);
  CHECK(hw::OpProfileFlops(h100, "multiply", "s32") == 3);
  CHECK(hw::OpProfileFlops(h100, "divide", "u32") == 122);
  // No profile has bf16 or fp8 entries, and many cheap ops are missing.
  CHECK(hw::OpProfileFlops(h100, "exponential", "bf16") == 3);
  CHECK(hw::OpProfileFlops(h100, "maximum", "f32") == 3);
  const hw::Device a100 = *hw::FindDevice("a100_40");
  CHECK(hw::OpProfileKeyFor(a100) == "sm_80");
  CHECK(hw::OpProfileFlops(a100, "exponential", "f32") == 3);
  CHECK(hw::OpProfileFlops(a100, "log", "f32") == 259);
  CHECK(hw::OpProfileFlops(*hw::FindDevice("rtx_a6000"), "exponential",
                           "f32") == 86);
  CHECK(hw::OpProfileFlops(*hw::FindDevice("b200"), "exponential", "f32") ==
        82);
  // A device without a table uses sm_86's.
  CHECK(hw::OpProfileKeyFor(*hw::FindDevice("mi300")) == "sm_86");
}

TEST_CASE("xla model: devices", "[uses][xla]") {
  const hw::Device b200 = *hw::FindDevice("b200");
  CHECK(b200.dram_gbps == 7672.32);
  CHECK(b200.l2_bytes == 132644864);
  CHECK(b200.compute_capability_major == 10);
  CHECK(hw::FindDevice("a100_40")->dram_gbps == 1555.2);
  CHECK(hw::FindDevice("a100_80")->dram_gbps == 2039.04);
  CHECK(hw::FindDevice("rtx_a6000")->clock_ghz == 1.8);
  for (const char* name : {"h100", "a100_40", "a100_80", "rtx_a6000", "b200"}) {
    const hw::Device d = *hw::FindDevice(name);
    CHECK(d.l1_bytes_per_core == 2048);
    CHECK(d.dram_to_l2_transaction_bytes == 64);
    CHECK(d.memory_transactions_per_clock == 32);
  }
}

TEST_CASE("xla model: an elementwise fusion, part by part", "[uses][xla]") {
  FusionCost cost = Xla(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      x = f32[1024,1024] exponential(p0)
      ROOT a = f32[1024,1024] add(x, p1)
    })");
  const double n = 1 << 20, bytes = 4 * n;
  // exp 79 + add 7 flop equivalents per element.
  CHECK(cost.flops == 86 * (1 << 20));
  // 2^20 >= 132 * 2048 elements: unroll gcd(n, 4) = 4, 128 threads.
  CHECK(cost.launch.unroll == 4);
  CHECK(cost.launch.threads[0] == 128);
  CHECK(cost.launch.blocks[0] == (1 << 20) / 4 / 128);
  const double compute = 86 * n / 66908 * 1e-3;  // us
  const double read = Us(bytes / kH100Bandwidth);
  CHECK(cost.compute_us == Approx(compute).epsilon(1e-6));
  CHECK(Operand(cost, "p0").read_time_us == Approx(read).epsilon(1e-6));
  CHECK(Operand(cost, "p0").bytes_total == bytes);
  CHECK(Operand(cost, "p0").bytes_net == bytes);
  CHECK(cost.write_us == Approx(read).epsilon(1e-6));
  CHECK(cost.memory_us == Approx(3 * read).epsilon(1e-6));
  CHECK(cost.exec_us == Approx(Combine(compute, 3 * read)).epsilon(1e-6));
  CHECK(cost.time_us == cost.exec_us);
  CHECK(cost.launch_overhead_us == 1.0);
}

TEST_CASE("xla model: re-reads come from L1 or L2", "[uses][xla]") {
  // The row is read once per output element: u = 1024. The first 4 KiB
  // come from DRAM; the rest fits in L1 (under 2 KiB * 132), at 2.5 * 8
  // times the DRAM bandwidth.
  FusionCost cost = Xla(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024] parameter(1)
      b = f32[1024,1024] broadcast(p1), dimensions={1}
      ROOT a = f32[1024,1024] add(p0, b)
    })");
  const OperandCost& row = Operand(cost, "p1");
  CHECK(row.utilization == 1024);
  CHECK(row.bytes_total == 1024 * 4096);
  CHECK(row.bytes_net == 4096);
  CHECK(row.read_time_us ==
        Approx(Us(4096 / kH100Bandwidth +
                  (1024.0 * 4096 - 4096) / (20 * kH100Bandwidth)))
            .epsilon(1e-6));
  CHECK(cost.flops == 7 * (1 << 20));  // the broadcast costs nothing
  // A 1 MiB row re-read misses L1 but fits in L2: 2.5x.
  cost = Xla(R"(
    ENTRY e {
      p1 = f32[262144] parameter(0)
      b = f32[4,262144] broadcast(p1), dimensions={1}
      ROOT n = f32[4,262144] negate(b)
    })");
  const OperandCost& big = Operand(cost, "p1");
  CHECK(big.bytes_total == 4 << 20);
  CHECK(big.bytes_net == 1 << 20);
  CHECK(big.read_time_us == Approx(Us((1 << 20) / kH100Bandwidth +
                                      3.0 * (1 << 20) / (2.5 * kH100Bandwidth)))
                                .epsilon(1e-6));
}

TEST_CASE("xla model: a small grid caps bandwidth and compute", "[uses][xla]") {
  // 64 elements: 1 block of 64 threads. Reads are capped at 1 block *
  // 1.98e9 * 32 B/s; compute at floor(1.98 * 2 * 64 * 1) = 253 per ns.
  FusionCost cost = Xla(R"(
    ENTRY e {
      p0 = f32[64] parameter(0)
      ROOT x = f32[64] exponential(p0)
    })",
                        {"x"});
  CHECK(cost.launch.threads[0] == 64);
  CHECK(cost.launch.blocks[0] == 1);
  CHECK(cost.flops == 79 * 64);
  const double compute = 79 * 64 / 253.0 * 1e-3;
  const double read = Us(256 / kH100PerBlock);
  const double write = Us(256 / kH100Bandwidth);  // writes are not capped
  CHECK(cost.compute_us == Approx(compute).epsilon(1e-5));
  CHECK(Operand(cost, "p0").read_time_us == Approx(read).epsilon(1e-5));
  CHECK(cost.write_us == Approx(write).epsilon(1e-5));
  CHECK(cost.exec_us == Approx(Combine(compute, read + write)).epsilon(1e-5));
}

TEST_CASE("xla model: a transposing read is not coalesced", "[uses][xla]") {
  // Too narrow for the tiled transpose emitter: the loop emitter moves the
  // minor dim, so every operand pays a 64-byte transaction per 4-byte
  // element (rate 1/16).
  FusionCost cost = Xla(R"(
    ENTRY e {
      p0 = f32[16384,2] parameter(0)
      t = f32[2,16384] transpose(p0), dimensions={1,0}
      ROOT n = f32[2,16384] negate(t)
    })");
  CHECK(cost.emitter == EmitterKind::kLoop);
  const OperandCost& p0 = Operand(cost, "p0");
  CHECK_FALSE(p0.coalesced);
  CHECK(p0.read_time_us ==
        Approx(Us(131072 * 16 / kH100Bandwidth)).epsilon(1e-6));
  // The same through the tiled transpose emitter is coalesced.
  cost = Xla(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      t = f32[1024,1024] transpose(p0), dimensions={1,0}
      ROOT n = f32[1024,1024] negate(t)
    })");
  CHECK(cost.emitter == EmitterKind::kTranspose);
  CHECK(Operand(cost, "p0").coalesced);
}

TEST_CASE("xla model: utilization propagation", "[uses][xla]") {
  // Two elementwise paths to one root count once.
  FusionCost cost = Xla(R"(
    ENTRY e {
      p0 = f32[256] parameter(0)
      x = f32[256] exponential(p0)
      l = f32[256] log(p0)
      ROOT a = f32[256] add(x, l)
    })");
  CHECK(Operand(cost, "p0").utilization == 1);
  CHECK(Operand(cost, "p0").bytes_total == 1024);
  // Two non-elementwise users add up.
  cost = Xla(R"(
    ENTRY e {
      p0 = f32[16,16] parameter(0)
      t = f32[16,16] transpose(p0), dimensions={1,0}
      r = f32[16,16] reverse(p0), dimensions={0}
      ROOT a = f32[16,16] add(t, r)
    })");
  CHECK(Operand(cost, "p0").utilization == 2);
  CHECK(Operand(cost, "p0").bytes_total == 2 * 1024);
  CHECK(Operand(cost, "p0").bytes_net == 1024);
  // A reduce's parameter init value is read once per output element; a
  // constant init is free. Flops: (inputs - outputs) * 7.
  cost = Xla(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    fused {
      p = f32[1024,64] parameter(0)
      i = f32[] parameter(1)
      ROOT r = f32[1024] reduce(p, i), dimensions={1}, to_apply=add
    }
    ENTRY e {
      x = f32[1024,64] parameter(0)
      y = f32[] parameter(1)
      ROOT f = f32[1024] fusion(x, y), kind=kInput, calls=fused
    })");
  CHECK(cost.emitter == EmitterKind::kReduction);
  CHECK(cost.flops == (1024 * 64 - 1024) * 7);
  CHECK(Operand(cost, "i").utilization == 1024);
  CHECK(Operand(cost, "i").bytes_total == 4096);
  CHECK(Operand(cost, "i").bytes_net == 4);
  CHECK(cost.bytes_written == 4096);
}

TEST_CASE("xla model: plain instructions' own rules", "[uses][xla]") {
  const char* hlo = R"(
    ENTRY e {
      p0 = f32[1000] parameter(0)
      p1 = f32[10] parameter(1)
      s = f32[10] slice(p0), slice={[0:10]}
      b = f32[10,10] broadcast(p1), dimensions={0}
      t = (f32[10], f32[10,10]) tuple(s, b)
      p2 = f32[100,64] parameter(2)
      i = f32[] parameter(3)
      r = f32[100] reduce(p2, i), dimensions={1}, to_apply=add
      ROOT u = (f32[10], f32[10,10]) tuple(s, b)
    }
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) })";
  // A slice reads its output's size.
  CHECK(Operand(Xla(hlo, {"s"}), "p0").bytes_total == 40);
  // A broadcast reads its output's size, the operand's once from DRAM.
  FusionCost b = Xla(hlo, {"b"});
  CHECK(Operand(b, "p1").bytes_total == 400);
  CHECK(Operand(b, "p1").bytes_net == 40);
  // A tuple writes its pointer table and reads nothing.
  FusionCost t = Xla(hlo, {"t"});
  CHECK(t.bytes_written == 16);
  CHECK(t.bytes_read == 0);
  // A reduce reads its init once per output.
  FusionCost r = Xla(hlo, {"r"});
  CHECK(Operand(r, "i").bytes_total == 400);
  CHECK(r.flops == (6400 - 100) * 7);
}

TEST_CASE("xla model: flops of data movement, concatenate, dot, sort",
          "[uses][xla]") {
  // Concatenating along dim 1 an operand 0 whose extent there (33) is not
  // a multiple of 32: 400 per element; along dim 0: 6.
  FusionCost cost = Xla(R"(
    ENTRY e {
      p0 = f32[64,33] parameter(0)
      p1 = f32[64,31] parameter(1)
      ROOT c = f32[64,64] concatenate(p0, p1), dimensions={1}
    })");
  CHECK(cost.flops == 64 * 64 * 400);
  cost = Xla(R"(
    ENTRY e {
      p0 = f32[33,64] parameter(0)
      p1 = f32[31,64] parameter(1)
      ROOT c = f32[64,64] concatenate(p0, p1), dimensions={0}
    })");
  CHECK(cost.flops == 64 * 64 * 6);
  cost = Xla(R"(
    ENTRY e {
      p0 = bf16[64,32] parameter(0)
      p1 = bf16[32,16] parameter(1)
      ROOT d = f32[64,16] dot(p0, p1), lhs_contracting_dims={1},
                                       rhs_contracting_dims={0}
    })");
  CHECK(cost.flops == 2 * 64 * 16 * 32);
  cost = Xla(R"(
    cmp { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT lt = pred[] compare(a, b), direction=LT }
    ENTRY e {
      p0 = f32[1000] parameter(0)
      ROOT s = f32[1000] sort(p0), dimensions={0}, to_apply=cmp
    })");
  CHECK(cost.flops == 1000 * 10);
  // Copies, transposes, reshapes cost nothing; bf16 costs the default 3.
  cost = Xla(R"(
    ENTRY e {
      p0 = bf16[32,32] parameter(0)
      t = bf16[32,32] transpose(p0), dimensions={1,0}
      r = bf16[1024] reshape(t)
      ROOT x = bf16[1024] exponential(r)
    })");
  CHECK(cost.flops == 3 * 1024);
}

TEST_CASE("xla model: in-place and not-in-place updates", "[uses][xla]") {
  const char* hlo = R"(
    ENTRY e {
      p0 = f32[1000,100] parameter(0)
      p1 = f32[10,100] parameter(1)
      i = s32[] parameter(2)
      z = s32[] constant(0)
      ROOT d = f32[1000,100] dynamic-update-slice(p0, p1, i, z)
    })";
  FusionCost cost = Xla(hlo);
  CHECK(cost.emitter == EmitterKind::kInPlaceDynamicUpdateSlice);
  CHECK(Operand(cost, "p0").bytes_total == 0);
  CHECK(Operand(cost, "p1").bytes_total == 4000);
  CHECK(cost.bytes_written == 4000);
  // Launched over the update, unrolled 1: 1000 elements, 8 blocks.
  CHECK(cost.launch.threads[0] == 128);
  CHECK(cost.launch.blocks[0] == 8);
  // A plain dynamic-update-slice op: the same bytes.
  FusionCost plain = Xla(hlo, {"d"});
  CHECK(Operand(plain, "p0").bytes_total == 0);
  CHECK(plain.bytes_written == 4000);
}

TEST_CASE("xla model: the 2026 launch rule per device", "[uses][xla]") {
  auto launch = [](const std::string& type, int64_t n, const char* device) {
    const std::string t = type + "[" + std::to_string(n) + "]";
    FusionCost cost = Xla("ENTRY e {\n p = " + t +
                              " parameter(0)\n ROOT n = " + t + " negate(p)\n}",
                          {}, device);
    return cost.launch;
  };
  // From threads_per_core * cores elements on: unroll gcd(n, 4).
  CHECK(launch("f32", 270336, "h100").unroll == 4);
  CHECK(launch("f32", 270334, "h100").unroll == 1);
  CHECK(launch("f32", 270338, "h100").unroll == 2);
  CHECK(launch("f32", 129024, "rtx_a6000").unroll == 4);
  CHECK(launch("f32", 221184, "a100_40").unroll == 4);
  CHECK(launch("f32", 221184, "a100_80").blocks[0] == 221184 / 4 / 128);
  CHECK(launch("f32", 221180, "a100_80").unroll == 1);
  CHECK(launch("f32", 221180, "a100_80").blocks[0] == 221180 / 128 + 1);
  // Blackwell (toolkit 12.8: width 128): bf16 unrolls 8, 8-bit 16.
  CHECK(launch("bf16", 303104, "b200").unroll == 8);
  CHECK(launch("s8", 303104, "b200").unroll == 16);
  CHECK(launch("f32", 303104, "b200").unroll == 4);
  CHECK(launch("bf16", 303104, "h100").unroll == 4);
  // Sub-byte outputs: threads never share a byte.
  CHECK(launch("s4", 1000, "h100").unroll == 2);
  // Past block_dim_limit.x blocks the grid splits into y.
  LaunchDimensions huge = launch("f32", int64_t{1} << 40, "h100");
  CHECK(huge.blocks[1] == 2);
  CHECK(huge.blocks[0] == int64_t{1} << 30);
}

TEST_CASE("xla model: read time formula", "[uses][xla]") {
  const hw::Device h100 = *hw::FindDevice("h100");
  // Net bytes at the DRAM rate times the coalescing rate; re-reads of an
  // operand over L2 pay the same as the first read.
  const double big = 64 << 20;
  CHECK(XlaReadTimeSeconds(h100, 100000, 64 << 20, 128 << 20, 1.0 / 16) ==
        Approx(2 * big * 16 / kH100Bandwidth).epsilon(1e-6));
  // Two blocks: both reads are capped at 2 * 1.98e9 * 32 B/s.
  CHECK(XlaReadTimeSeconds(h100, 2, 1000, 3000, 1.0) ==
        Approx(3000 / (2 * kH100PerBlock)).epsilon(1e-6));
}

// XLA's GetConvolutionFlops: 2 * input features * output features * batch
// * the valid (kernel tap, output) pairs per spatial dim; a tap on the
// padding is not counted. Every cuDNN convolution custom call is a
// convolution to XLA's cost analysis (its int8x4 vector dim unlabelled,
// so not counted), its workspace not an output.
TEST_CASE("xla model: convolutions and cuDNN convolution calls",
          "[uses][xla]") {
  // XLA's own case: int8x4 vectorized features, 5x5 window, padding 2.
  FusionCost bias = Xla(R"(
    HloModule m
    ENTRY e {
      p0 = s8[128,12,24,24,4] parameter(0)
      p1 = s8[16,12,5,5,4] parameter(1)
      p2 = f32[16] parameter(2)
      conv1 = (s8[128,4,24,24,4], u8[0]) custom-call(p0, p1, p2),
        window={size=5x5 pad=2_2x2_2}, dim_labels=bf01_oi01->bf01,
        custom_call_target="__cudnn$convBiasActivationForward"
      ROOT g = s8[128,4,24,24,4] get-tuple-element(conv1), index=0
    })",
                        {"conv1"});
  CHECK(bias.flops == 159694848);
  CHECK(bias.bytes_read == 128 * 12 * 24 * 24 * 4 + 16 * 12 * 5 * 5 * 4 + 64);
  CHECK(bias.bytes_written == 128 * 4 * 24 * 24 * 4);
  // Per spatial dim of 8 outputs, 3 taps and padding 1: 8 * 3 - 2 valid
  // pairs; 2 * 4 * 16 * 1 * 22 * 22 flops, for the plain convolution and
  // every cuDNN convolution target alike.
  const int64_t expected = 2 * 4 * 16 * 22 * 22;
  FusionCost plain = Xla(R"(
    HloModule m
    ENTRY e {
      x = f32[1,8,8,4] parameter(0)
      w = f32[3,3,4,16] parameter(1)
      ROOT c = f32[1,8,8,16] convolution(x, w),
        window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
    })",
                         {"c"});
  CHECK(plain.flops == expected);
  for (const char* target :
       {"convForward", "convForwardGraph", "convBackwardInput",
        "convBackwardFilter", "convBiasActivationForward"}) {
    INFO(target);
    FusionCost call = Xla(std::string(R"(
    HloModule m
    ENTRY e {
      x = f32[1,8,8,4] parameter(0)
      w = f32[3,3,4,16] parameter(1)
      c = (f32[1,8,8,16], u8[0]) custom-call(x, w),
        window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f,
        custom_call_target="__cudnn$)") +
                              target + R"("
      ROOT g = f32[1,8,8,16] get-tuple-element(c), index=0
    })",
                          {"c"});
    CHECK_FALSE(call.time_unknown.has_value());
    CHECK(call.flops == expected);
    CHECK(call.bytes_written == 8 * 8 * 16 * 4);
  }
}

// XLA's cost analysis charges a fusion's constants of more than 8
// elements in its bytes_accessed (the performance model's reads do not):
// a 16-element constant adds 64 bytes, a 4-element one nothing.
TEST_CASE("xla model: bytes_accessed charges large constants in a fusion",
          "[uses][xla]") {
  FusionCost cost = Xla(R"(
    HloModule m
    f {
      p0 = f32[16] parameter(0)
      big = f32[16] constant({1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16})
      small = f32[4] constant({1,2,3,4})
      a = f32[16] add(p0, big)
      s = f32[4] slice(a), slice={[0:4]}
      ROOT m = f32[4] multiply(s, small)
    }
    ENTRY e {
      x = f32[16] parameter(0)
      ROOT r = f32[4] fusion(x), kind=kLoop, calls=f
    })");
  REQUIRE(cost.bytes_accessed.has_value());
  CHECK(*cost.bytes_accessed == cost.bytes_read + cost.bytes_written + 64);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
