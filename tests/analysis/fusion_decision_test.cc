// fusion_decision (analysis/uses/fusion_decision): unfused = the producer's
// and the consumers' kernels with the intermediate written and read; fused =
// the fused kernels, the producer recomputed per exact read counts.
#include "analysis/uses/fusion_decision.h"

#include <catch2/catch.hpp>

#include "tests/analysis/test_util.h"

namespace ixa {
namespace {

struct Decided {
  std::unique_ptr<hlo::Module> module;
  FusionDecision d;
};

Decided Decide(const std::string& hlo, const char* producer,
               const char* consumer, const char* device = "h100",
               CostModel model = CostModel::kIxa) {
  Decided out;
  out.module = testing::ParseOrDie(hlo);
  ExprContext ctx;
  DecisionOptions options;
  options.consumer = consumer;
  options.model = model;
  auto d = DecideFusion(*out.module, producer, options, *hw::FindDevice(device),
                        &ctx);
  INFO((d.ok() ? "" : d.error().ToString()));
  REQUIRE(d.ok());
  out.d = *d;
  REQUIRE(!out.d.consumers.empty());
  return out;
}

TEST_CASE("fusion decision: an elementwise producer is fused",
          "[uses][decision]") {
  Decided r = Decide(R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      x = f32[1024,1024] exponential(p0)
      ROOT a = f32[1024,1024] add(x, p1)
    })",
                     "x", "a");
  const FusionDecision& d = r.d;
  const double mb4 = 4 << 20;
  // Unfused: x reads and writes 4 MiB, a reads 8 MiB and writes 4 MiB.
  CHECK(d.producer.bytes_read == mb4);
  CHECK(d.producer.bytes_written == mb4);
  CHECK(d.first()->unfused.bytes_read == 2 * mb4);
  CHECK(d.unfused_us ==
        Approx(d.producer.time_us + d.first()->unfused.time_us + 2));
  // Fused: the intermediate never touches memory; each element of x is
  // computed once.
  CHECK(d.first()->recompute_factor == 1.0);
  CHECK(d.first()->producer_reads == 1 << 20);
  CHECK(d.first()->fused.bytes_read == 2 * mb4);
  CHECK(d.first()->fused.bytes_written == mb4);
  CHECK(d.first()->fused.flops == 2 * (1 << 20));
  CHECK(d.fused_us == Approx(d.first()->fused.time_us + 1));
  CHECK_FALSE(d.producer_kept);
  CHECK(d.fuse);
  CHECK(d.speedup == Approx(d.unfused_us / d.fused_us));
  CHECK(d.speedup > 1.5);
}

TEST_CASE("fusion decision: recomputing an expensive producer is refused",
          "[uses][decision]") {
  // Every element of the 64x64 dot is read 4096 times by the broadcast:
  // fused, 128 flops each time.
  Decided r = Decide(R"(
    fc { q = f32[64,64] parameter(0)
         b = f32[64,64,4096] broadcast(q), dimensions={0,1}
         ROOT n = f32[64,64,4096] negate(b) }
    ENTRY e {
      p0 = f32[64,64] parameter(0)
      p1 = f32[64,64] parameter(1)
      d = f32[64,64] dot(p0, p1), lhs_contracting_dims={1},
                                  rhs_contracting_dims={0}
      ROOT c = f32[64,64,4096] fusion(d), kind=kLoop, calls=fc
    })",
                     "d", "c");
  const FusionDecision& d = r.d;
  CHECK(d.first()->recompute_factor == 4096.0);
  CHECK(d.first()->producer_elements_read == 64 * 64);
  CHECK(d.first()->fused.flops ==
        d.first()->unfused.flops + int64_t{64} * 64 * 4096 * 2 * 64);
  CHECK(d.first()->fused.compute_us > d.first()->fused.memory_us);
  CHECK_FALSE(d.fuse);
  CHECK(d.speedup < 1);
  // XLA never fuses a dot: the refusal names the rule.
  CHECK_FALSE(d.legal);
  CHECK(d.rule == "not_fusible");
}

TEST_CASE("fusion decision: read counts, kept producers, reductions",
          "[uses][decision]") {
  // The consumer reads x twice per element (directly and transposed).
  Decided r = Decide(R"(
    ENTRY e {
      p0 = f32[256,256] parameter(0)
      x = f32[256,256] exponential(p0)
      t = f32[256,256] transpose(x), dimensions={1,0}
      ROOT a = f32[256,256] add(x, t)
    })",
                     "x", "t");
  // t alone reads each element of x once.
  CHECK(r.d.first()->recompute_factor == 1.0);
  // x has another user (a): its kernel still runs when fused into t.
  CHECK(r.d.producer_kept);
  CHECK(r.d.fused_kernels == 2);
  CHECK(r.d.fused_us ==
        Approx(r.d.first()->fused.time_us + r.d.producer.time_us + 2));
  // A producer fusion into a reduction fusion: the fused kernel keeps the
  // reduction plan and reads the producer's operand through it.
  r = Decide(R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    fp { q = f32[128,512] parameter(0)
         ROOT x = f32[128,512] exponential(q) }
    fr { y = f32[128,512] parameter(0)
         z = f32[] constant(0)
         ROOT r = f32[128] reduce(y, z), dimensions={1}, to_apply=add }
    ENTRY e {
      p0 = f32[128,512] parameter(0)
      x = f32[128,512] fusion(p0), kind=kLoop, calls=fp
      ROOT r = f32[128] fusion(x), kind=kInput, calls=fr
    })",
             "x", "r");
  CHECK(r.d.first()->fused.emitter == EmitterKind::kReduction);
  CHECK(r.d.first()->recompute_factor == 1.0);
  REQUIRE(r.d.first()->fused.coalescing.size() == 1);
  CHECK(r.d.first()->fused.coalescing[0].name == "p0");
  CHECK(r.d.first()->fused.coalescing[0].coalesced);
  CHECK(r.d.first()->fused.bytes_read == 128 * 512 * 4);
  CHECK(r.d.fuse);
}

TEST_CASE("fusion decision: bad requests", "[uses][decision]") {
  auto module = testing::ParseOrDie(R"(
    ENTRY e {
      p0 = f32[16] parameter(0)
      x = f32[16] exponential(p0)
      y = f32[16] negate(p0)
      ROOT a = f32[16] add(x, y)
    })");
  ExprContext ctx;
  const hw::Device h100 = *hw::FindDevice("h100");
  DecisionOptions options;
  options.consumer = "y";
  auto d = DecideFusion(*module, "x", options, h100, &ctx);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().code == ErrorCode::kInvalidArgument);
  options.consumer = "a";
  d = DecideFusion(*module, "nope", options, h100, &ctx);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().code == ErrorCode::kInvalidArgument);
  d = DecideFusion(*module, "p0", options, h100, &ctx);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().code == ErrorCode::kInvalidArgument);
  // The root has no users to be fused into.
  d = DecideFusion(*module, "a", DecisionOptions(), h100, &ctx);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().code == ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace ixa
