// fusion_cost and fusion_decision on the cases both used to get wrong:
// in-place and not-in-place dynamic-update-slices, library calls
// (cuBLAS / cuDNN) and their workspaces, multi-output producers read
// through get-tuple-element, and byte counts of fractional uses.
#include "analysis/uses/fusion_cost.h"

#include <catch2/catch.hpp>

#include "analysis/uses/fusion_decision.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

FusionCost Cost(const std::string& hlo, CostModel model,
                std::vector<std::string> instructions = {},
                const char* device = "h100") {
  auto module = ParseOrDie(hlo);
  ExprContext ctx;
  auto region = instructions.empty()
                    ? ResolveFusion(*module, "")
                    : RegionOfInstructions(*module->entry(), instructions);
  REQUIRE(region.ok());
  CostOptions options;
  options.model = model;
  auto cost =
      EstimateFusionCost(*region, *hw::FindDevice(device), options, &ctx);
  INFO((cost.ok() ? "" : cost.error().ToString()));
  REQUIRE(cost.ok());
  return *cost;
}

FusionDecision Decide(const std::string& hlo, const char* producer,
                      const char* consumer, CostModel model) {
  auto module = ParseOrDie(hlo);
  ExprContext ctx;
  DecisionOptions options;
  options.consumer = consumer;
  options.model = model;
  auto d =
      DecideFusion(*module, producer, options, *hw::FindDevice("h100"), &ctx);
  INFO((d.ok() ? "" : d.error().ToString()));
  REQUIRE(d.ok());
  REQUIRE(!d->consumers.empty());
  return *d;
}

const OperandCost& Operand(const FusionCost& cost, const std::string& name) {
  for (const OperandCost& o : cost.operands) {
    if (o.name == name) return o;
  }
  FAIL("no operand " << name);
  return cost.operands.front();
}

// A 2^30-element buffer updated in place by one row computed by a reduce:
// the reduce runs over the update (1024 rows of 64), not over the buffer.
// Charged over the buffer it cost 2^30 * 64 = 7e10 flops (10^15 for
// larger reductions).
constexpr const char* kDusOfReduce = R"(
  add { a = f32[] parameter(0)  b = f32[] parameter(1)
        ROOT s = f32[] add(a, b) }
  ENTRY e {
    buffer = f32[1048576,1024] parameter(0)
    q = f32[1,1024,64] parameter(1)
    i = s32[] parameter(2)
    z = f32[] constant(0)
    r = f32[1,1024] reduce(q, z), dimensions={2}, to_apply=add
    zero = s32[] constant(0)
    ROOT d = f32[1048576,1024] dynamic-update-slice(buffer, r, i, zero)
  })";

TEST_CASE("fusion cost: an in-place update computed by a reduce",
          "[uses][cost][fixes]") {
  FusionCost ixa = Cost(kDusOfReduce, CostModel::kIxa);
  CHECK(ixa.emitter == EmitterKind::kInPlaceDynamicUpdateSlice);
  CHECK(ixa.flops == 1024 * 64);
  CHECK(ixa.bytes_written == 1024 * 4);
  CHECK(Operand(ixa, "buffer").bytes_net == 0);
  // XLA: (inputs - outputs) * the reducer's 7 flops (f32 add on sm_90).
  FusionCost xla = Cost(kDusOfReduce, CostModel::kXla);
  CHECK(xla.flops == (1024 * 64 - 1024) * 7);
  CHECK(xla.bytes_written == 1024 * 4);
  CHECK(Operand(xla, "buffer").bytes_total == 0);
  CHECK(Operand(xla, "q").bytes_total == 1024 * 64 * 4);
}

// log(p) fused into the buffer of a dynamic-update-slice: the buffer is no
// longer a parameter, so nothing is updated in place: every element
// outside the update is read (and its log computed), and the whole output
// is written.
constexpr const char* kLogIntoDus = R"(
  ENTRY e {
    p = f32[1000,100] parameter(0)
    u = f32[10,100] parameter(1)
    i = s32[] parameter(2)
    zero = s32[] constant(0)
    l = f32[1000,100] log(p)
    ROOT d = f32[1000,100] dynamic-update-slice(l, u, i, zero)
  })";

TEST_CASE("fusion cost: a producer fused into a dynamic-update-slice buffer",
          "[uses][cost][fixes]") {
  FusionCost fused = Cost(kLogIntoDus, CostModel::kIxa, {"l", "zero", "d"});
  CHECK(fused.emitter == EmitterKind::kLoop);
  CHECK(Operand(fused, "p").bytes_net == (1000 - 10) * 100 * 4);
  CHECK(Operand(fused, "u").bytes_net == 10 * 100 * 4);
  CHECK(fused.bytes_written == 1000 * 100 * 4);
  CHECK(fused.flops == (1000 - 10) * 100);
  // The decision's fused kernel is that kernel, not the consumer's
  // in-place plan; XLA refuses the fusion.
  FusionDecision d = Decide(kLogIntoDus, "l", "d", CostModel::kIxa);
  CHECK(d.first()->fused.emitter == EmitterKind::kLoop);
  CHECK(Operand(d.first()->fused, "p").bytes_net == (1000 - 10) * 100 * 4);
  CHECK(d.first()->fused.bytes_written == 1000 * 100 * 4);
  CHECK_FALSE(d.legal);
  CHECK(d.rule == "in_place");
  CHECK_FALSE(d.fuse);
  // XLA's model: the fused log reads the buffer outside the update.
  FusionCost xla = Cost(kLogIntoDus, CostModel::kXla, {"l", "zero", "d"});
  CHECK(Operand(xla, "p").bytes_total == 0);  // in place: u = 0 at the root
}

TEST_CASE("fusion cost: a dynamic-update-slice that is not in place",
          "[uses][cost][fixes]") {
  // The update's result feeds an exp: no in-place emitter. The buffer is
  // read except under the update.
  const char* hlo = R"(
    ENTRY e {
      p = f32[1000,100] parameter(0)
      u = f32[10,100] parameter(1)
      i = s32[] parameter(2)
      zero = s32[] constant(0)
      d = f32[1000,100] dynamic-update-slice(p, u, i, zero)
      ROOT x = f32[1000,100] exponential(d)
    })";
  FusionCost ixa = Cost(hlo, CostModel::kIxa);
  CHECK(ixa.emitter == EmitterKind::kLoop);
  CHECK(Operand(ixa, "p").bytes_net == (1000 - 10) * 100 * 4);
  CHECK(Operand(ixa, "u").bytes_net == 10 * 100 * 4);
  // XLA: u(p) = (out - update) / out.
  FusionCost xla = Cost(hlo, CostModel::kXla);
  CHECK(Operand(xla, "p").bytes_total == (1000 - 10) * 100 * 4);
  CHECK(Operand(xla, "u").bytes_total == 10 * 100 * 4);
}

constexpr const char* kGemm = R"(
  ENTRY e {
    a = f32[256,512] parameter(0)
    b = f32[512,128] parameter(1)
    ROOT g = (f32[256,128], s8[4194304]) custom-call(a, b),
        custom_call_target="__cublas$gemm",
        backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
  })";

TEST_CASE("fusion cost: a cuBLAS GEMM writes its result, not its workspace",
          "[uses][cost][fixes]") {
  for (CostModel model : {CostModel::kIxa, CostModel::kXla}) {
    FusionCost cost = Cost(kGemm, model);
    CHECK(cost.bytes_written == 256 * 128 * 4);
    CHECK(cost.flops == int64_t{2} * 256 * 128 * 512);
    CHECK(cost.unknown.empty());
    CHECK_FALSE(cost.time_unknown);
  }
  // ixa reads both operands through the dot's maps.
  FusionCost ixa = Cost(kGemm, CostModel::kIxa);
  CHECK(Operand(ixa, "a").bytes_net == 256 * 512 * 4);
  CHECK(Operand(ixa, "b").bytes_net == 512 * 128 * 4);
}

TEST_CASE("fusion cost: library calls keep their operands known",
          "[uses][cost][fixes]") {
  // A producer whose operand is a GEMM's result: the GEMM's reads are
  // known, and so is the decision (a custom call is never fused).
  const char* hlo = R"(
    ENTRY e {
      a = f32[64,32] parameter(0)
      b = f32[32,16] parameter(1)
      g = (f32[64,16], s8[1024]) custom-call(a, b),
          custom_call_target="__cublas$gemm",
          backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
      r = f32[64,16] get-tuple-element(g), index=0
      ROOT x = f32[64,16] exponential(r)
    })";
  FusionDecision d = Decide(hlo, "g", "x", CostModel::kIxa);
  CHECK(d.producer.unknown.empty());
  CHECK_FALSE(d.producer.flops_unknown);
  CHECK(d.producer.flops == 2 * 64 * 16 * 32);
  CHECK_FALSE(d.legal);
  CHECK(d.rule == "not_fusible");
  // A cuDNN convolution likewise.
  const char* conv = R"(
    ENTRY e {
      x = f32[1,8,8,4] parameter(0)
      w = f32[3,3,4,16] parameter(1)
      ROOT c = (f32[1,8,8,16], u8[0]) custom-call(x, w),
          window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f,
          custom_call_target="__cudnn$convForward"
    })";
  FusionCost cost = Cost(conv, CostModel::kIxa);
  CHECK(cost.unknown.empty());
  CHECK(cost.bytes_written == 8 * 8 * 16 * 4);
  // The convolution's flops as XLA counts them: a kernel tap on the
  // padding is no work. Per spatial dim, 8 outputs and 3 taps with
  // padding 1 make 8 * 3 - 2 = 22 valid pairs: 2 * 4 * 16 * 22 * 22.
  CHECK(cost.flops == int64_t{2} * 4 * 16 * 22 * 22);
  CHECK_FALSE(cost.flops_unknown);
  // Every cuDNN convolution target alike: the backward ones (whose
  // operand maps are not known) too, by the convolution the call's window
  // and dim_labels describe over its operands and result.
  for (const char* target :
       {"convForwardGraph", "convBackwardInput", "convBackwardFilter",
        "convBiasActivationForward"}) {
    INFO(target);
    std::string other = conv;
    other.replace(other.find("convForward\""),
                  std::string("convForward").size(), target);
    FusionCost c = Cost(other.c_str(), CostModel::kIxa);
    CHECK_FALSE(c.flops_unknown);
    CHECK(c.flops == int64_t{2} * 4 * 16 * 22 * 22);
    CHECK(c.bytes_written == 8 * 8 * 16 * 4);
  }
  // A backward-input call of other shapes: operand 0 f32[2,6,6,8] (the
  // batch 2, features 8), kernel 3x3x8x4, result f32[2,6,6,4], no
  // padding: per spatial dim 4 outputs x 3 taps all valid (12), so
  // 2 * 8 * 4 * 2 * 12 * 12 flops.
  FusionCost backward = Cost(R"(
    ENTRY e {
      dy = f32[2,6,6,8] parameter(0)
      w = f32[3,3,8,4] parameter(1)
      ROOT c = (f32[2,4,4,4], u8[0]) custom-call(dy, w),
          window={size=3x3}, dim_labels=b01f_01io->b01f,
          custom_call_target="__cudnn$convBackwardInput"
    })",
                             CostModel::kIxa);
  CHECK_FALSE(backward.flops_unknown);
  CHECK(backward.flops == int64_t{2} * 8 * 4 * 2 * 12 * 12);
}

// A multi-output producer read through get-tuple-element.
constexpr const char* kMultiOutput = R"(
  fp {
    a = f32[512,512] parameter(0)
    e = f32[512,512] exponential(a)
    n = f32[512,512] negate(a)
    ROOT t = (f32[512,512], f32[512,512]) tuple(e, n)
  }
  ENTRY e {
    p = f32[512,512] parameter(0)
    q = f32[512,512] parameter(1)
    f = (f32[512,512], f32[512,512]) fusion(p), kind=kLoop, calls=fp
    g = f32[512,512] get-tuple-element(f), index=0
    ROOT c = f32[512,512] add(g, q)
  })";

TEST_CASE("fusion decision: a producer read through get-tuple-element",
          "[uses][decision][fixes]") {
  for (CostModel model : {CostModel::kIxa, CostModel::kXla}) {
    FusionDecision d = Decide(kMultiOutput, "f", "c", model);
    CHECK(d.legal);
    const ConsumerDecision& c = *d.first();
    CHECK(c.name == "c");
    REQUIRE(c.costed);
    // The fused kernel reads the producer's operand and q, never f.
    CHECK(Operand(c.fused, "p").bytes_total == 512 * 512 * 4);
    CHECK(Operand(c.fused, "q").bytes_total == 512 * 512 * 4);
    CHECK(c.fused.operands.size() == 2);
    CHECK(c.fused.bytes_written == 512 * 512 * 4);
  }
  // The get-tuple-element itself may be named as the producer.
  FusionDecision d = Decide(kMultiOutput, "g", "c", CostModel::kIxa);
  CHECK(d.first()->name == "c");
}

TEST_CASE("fusion cost: bytes of fractional uses", "[uses][cost][fixes]") {
  // Sub-byte elements are packed: 1001 s4 elements are 501 bytes.
  const char* packed = R"(
    ENTRY e {
      p = s4[1001] parameter(0)
      ROOT c = s32[1001] convert(p)
    })";
  for (CostModel model : {CostModel::kIxa, CostModel::kXla}) {
    FusionCost cost = Cost(packed, model);
    CHECK(Operand(cost, "p").bytes_total == 501);
  }
  // XLA rounds a fractional utilization up to whole elements, then the
  // bytes to the nearest. Half of a concatenation is used: each operand
  // gets u = 0.5, 1.5 of p0's 3 elements, rounded up to 2 (8 bytes, not
  // 6). ixa counts what is read: all of p0, none of p1.
  const char* half = R"(
    ENTRY e {
      p0 = f32[3] parameter(0)
      p1 = f32[3] parameter(1)
      c = f32[6] concatenate(p0, p1), dimensions={0}
      s = f32[3] slice(c), slice={[0:3]}
      ROOT n = f32[3] negate(s)
    })";
  FusionCost xla = Cost(half, CostModel::kXla);
  CHECK(Operand(xla, "p0").utilization == Approx(2.0 / 3));
  CHECK(Operand(xla, "p0").bytes_total == 8);
  CHECK(Operand(xla, "p1").bytes_total == 8);
  FusionCost ixa = Cost(half, CostModel::kIxa);
  CHECK(Operand(ixa, "p0").bytes_net == 12);
  CHECK(Operand(ixa, "p1").bytes_net == 0);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
