// fusion_decision (analysis/uses/fusion_decision): unfused = the producer's
// and the consumers' kernels with the intermediate written and read; fused =
// the fused kernels, the producer recomputed per exact read counts.
#include "analysis/uses/fusion_decision.h"

#include <catch2/catch.hpp>

#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

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
  // Each of the 2^24 evaluations re-reads 64 elements of both operands.
  CHECK(d.first()->fused.operands[0].bytes_total ==
        int64_t{64} * 64 * 4096 * 64 * 4);
  CHECK(d.fused_us > 5 * d.unfused_us);
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

}  // namespace IXA_UNITY_ID
}  // namespace ixa
namespace ixa {
namespace IXA_UNITY_ID {

FusionDecision DecideAll(const std::string& hlo, const char* producer,
                         CostModel model, const char* device = "h100") {
  auto module = testing::ParseOrDie(hlo);
  ExprContext ctx;
  DecisionOptions options;
  options.model = model;
  auto d =
      DecideFusion(*module, producer, options, *hw::FindDevice(device), &ctx);
  INFO((d.ok() ? "" : d.error().ToString()));
  REQUIRE(d.ok());
  return *d;
}

std::string Refusal(const std::string& hlo, const char* producer) {
  FusionDecision d = DecideAll(hlo, producer, CostModel::kXla);
  CHECK_FALSE(d.fuse);
  return d.legal ? "" : d.rule;
}

TEST_CASE("fusion decision: XLA's legality rules, each by name",
          "[uses][decision][legality]") {
  // The computation's root (here with a user after it).
  CHECK(Refusal(R"(
    ENTRY e {
      p = f32[64] parameter(0)
      ROOT a = f32[64] exponential(p)
      b = f32[64] negate(a)
    })",
                "a") == "root");
  CHECK(Refusal(R"(
    ENTRY e {
      p = f32[64,64] parameter(0)
      d = f32[64,64] dot(p, p), lhs_contracting_dims={1},
                                rhs_contracting_dims={0}
      ROOT n = f32[64,64] negate(d)
    })",
                "d") == "not_fusible");
  CHECK(Refusal(R"(
    ENTRY e {
      p = f32[64,64] parameter(0)
      x = f32[64,64] exponential(p)
      ROOT b = f32[4096] bitcast(x)
    })",
                "x") == "bitcast_consumer");
  const char* scatter = R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p = f32[100] parameter(0)
      i = s32[10,1] parameter(1)
      u = f32[10] parameter(2)
      x = f32[100] exponential(p)
      s = f32[100] scatter(x, i, u), update_window_dims={},
          inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
          index_vector_dim=1, to_apply=add
      ROOT n = f32[100] negate(s)
    })";
  CHECK(Refusal(scatter, "s") == "scatter");  // into a scatter's output
  CHECK(Refusal(scatter, "x") == "scatter");  // the scatter's buffer
  const char* reductions = R"(
    add { a = f32[] parameter(0)  b = f32[] parameter(1)
          ROOT s = f32[] add(a, b) }
    ENTRY e {
      p = f32[1024,64] parameter(0)
      z = f32[] constant(0)
      r = f32[1024] reduce(p, z), dimensions={1}, to_apply=add
      t = f32[] reduce(r, z), dimensions={0}, to_apply=add
      b = f32[1024,64] broadcast(r), dimensions={0}
      ROOT o = (f32[], f32[1024,64]) tuple(t, b)
    })";
  FusionDecision d = DecideAll(reductions, "r", CostModel::kXla);
  REQUIRE(d.consumers.size() == 2);
  CHECK(d.consumers[0].name == "t");
  CHECK(d.consumers[0].legality.rule == "reduce_into_reduce");
  CHECK(d.consumers[1].name == "b");
  CHECK(d.consumers[1].legality.rule == "reduction_epilogue");
  CHECK(d.rule == "reduce_into_reduce");
  // Six f64 tiled transposes need 6 * 8448 bytes of shared memory.
  std::string transposes = "ENTRY e {\n";
  std::string sum;
  for (int i = 0; i < 6; ++i) {
    const std::string k = std::to_string(i);
    transposes += "p" + k + " = f64[64,64] parameter(" + k + ")\n";
    transposes +=
        "t" + k + " = f64[64,64] transpose(p" + k + "), dimensions={1,0}\n";
    const std::string next = i == 0 ? "t0" : "s" + k;
    if (i > 0) {
      transposes += next + " = f64[64,64] add(" + sum + ", t" + k + ")\n";
    }
    sum = next;
  }
  transposes += "ROOT n = f64[64,64] negate(" + sum + ")\n}";
  // The fused producer: everything but n.
  auto module = testing::ParseOrDie(transposes);
  std::string fused = "fused {\n";
  std::string entry = "ENTRY e {\n";
  std::string operands;
  for (int i = 0; i < 6; ++i) {
    const std::string k = std::to_string(i);
    entry += "q" + k + " = f64[64,64] parameter(" + k + ")\n";
    operands += (i ? ", q" : "q") + k;
  }
  for (const hlo::Instruction* instr : module->entry()->post_order()) {
    if (instr->name == "n") continue;
    fused += (instr->name == sum ? "ROOT " : "") + instr->name + " = " +
             instr->shape.ToString() + " " + OpcodeName(*instr) + "(";
    if (instr->opcode == hlo::Opcode::kParameter) {
      fused += std::to_string(instr->parameter_number) + ")\n";
      continue;
    }
    for (int k = 0; k < instr->operand_count(); ++k) {
      fused += (k ? ", " : "") + instr->operand(k)->name;
    }
    fused += ")";
    if (instr->opcode == hlo::Opcode::kTranspose) fused += ", dimensions={1,0}";
    fused += "\n";
  }
  entry += "f = f64[64,64] fusion(" + operands +
           "), kind=kLoop, calls=fused\nROOT n = f64[64,64] negate(f)\n}";
  CHECK(Refusal(fused + "}\n" + entry, "f") == "budget_shared_memory");
}

TEST_CASE("fusion decision: XLA's budgets and the in-place rule",
          "[uses][decision][legality]") {
  // Nine reductions in one kernel.
  std::string hlo =
      "add { a = f32[] parameter(0)  b = f32[] parameter(1)\n"
      "      ROOT s = f32[] add(a, b) }\n"
      "fused {\n z = f32[] constant(0)\n";
  std::string entry = "ENTRY e {\n";
  std::string operands, sum;
  for (int i = 0; i < 9; ++i) {
    const std::string k = std::to_string(i);
    hlo += " p" + k + " = f32[128,64] parameter(" + k + ")\n r" + k +
           " = f32[128] reduce(p" + k + ", z), dimensions={1}, to_apply=add\n";
    if (i > 0) {
      hlo += " s" + k + " = f32[128] add(" + sum + ", r" + k + ")\n";
    }
    sum = i == 0 ? "r0" : "s" + k;
    entry += " q" + k + " = f32[128,64] parameter(" + k + ")\n";
    operands += (i ? ", q" : "q") + k;
  }
  hlo += " ROOT out = f32[128] negate(" + sum + ")\n}\n";
  entry += " f = f32[128] fusion(" + operands +
           "), kind=kInput, calls=fused\n ROOT n = f32[128] negate(f)\n}";
  CHECK(Refusal(hlo + entry, "f") == "budget_reductions");
  // A consumer of 99 other operands: 101 distinct operands with the
  // producer's two.
  std::string wide =
      "ENTRY e {\n a = f32[4] parameter(0)\n b = f32[4] "
      "parameter(1)\n x = f32[4] add(a, b)\n";
  std::string list = "x";
  for (int i = 0; i < 99; ++i) {
    const std::string k = std::to_string(i);
    wide += " q" + k + " = f32[4] parameter(" + std::to_string(i + 2) + ")\n";
    list += ", q" + k;
  }
  wide += " ROOT c = f32[400] concatenate(" + list + "), dimensions={0}\n}";
  CHECK(Refusal(wide, "x") == "budget_operands");
  // A producer of 101 instructions copied into each of 100 slices.
  std::string big = "fc {\n u = f32[200] parameter(0)\n";
  for (int i = 0; i < 100; ++i) {
    const std::string k = std::to_string(i);
    big += " s" + k + " = f32[100] slice(u), slice={[" + k + ":" +
           std::to_string(i + 100) + "]}\n";
    if (i > 0) {
      big += " a" + k + " = f32[100] add(" +
             (i == 1 ? "s0" : "a" + std::to_string(i - 1)) + ", s" + k + ")\n";
    }
  }
  big +=
      " ROOT r = f32[100] negate(a99)\n}\nfp {\n v0 = f32[200] parameter(0)\n";
  for (int i = 1; i <= 100; ++i) {
    big += " v" + std::to_string(i) + " = f32[200] negate(v" +
           std::to_string(i - 1) + ")\n";
  }
  big +=
      " ROOT w = f32[200] negate(v100)\n}\n"
      "ENTRY e {\n p = f32[200] parameter(0)\n"
      " x = f32[200] fusion(p), kind=kLoop, calls=fp\n"
      " ROOT c = f32[100] fusion(x), kind=kLoop, calls=fc\n}";
  CHECK(Refusal(big, "x") == "ir_size");
  // An elementwise producer of an in-place update's buffer.
  CHECK(Refusal(R"(
    ENTRY e {
      p = f32[1000,100] parameter(0)
      u = f32[10,100] parameter(1)
      i = s32[] parameter(2)
      zero = s32[] constant(0)
      l = f32[1000,100] log(p)
      ROOT d = f32[1000,100] dynamic-update-slice(l, u, i, zero)
    })",
                "l") == "in_place");
}

// An exp of 2^20 floats read by two consumers, each adding another input.
constexpr const char* kTwoConsumers = R"(
  ENTRY e {
    p0 = f32[1024,1024] parameter(0)
    p1 = f32[1024,1024] parameter(1)
    p2 = f32[1024,1024] parameter(2)
    x = f32[1024,1024] exponential(p0)
    a = f32[1024,1024] add(x, p1)
    b = f32[1024,1024] multiply(x, p2)
    ROOT t = (f32[1024,1024], f32[1024,1024]) tuple(a, b)
  })";

TEST_CASE("fusion decision: the producer duplicated into every consumer",
          "[uses][decision]") {
  FusionDecision d = DecideAll(kTwoConsumers, "x", CostModel::kXla);
  REQUIRE(d.consumers.size() == 2);
  CHECK(d.legal);
  CHECK_FALSE(d.producer_kept);
  CHECK(d.unfused_kernels == 3);
  CHECK(d.fused_kernels == 2);
  const ConsumerDecision &a = d.consumers[0], &b = d.consumers[1];
  CHECK(d.unfused_us ==
        Approx(3 + d.producer.exec_us + a.unfused.exec_us + b.unfused.exec_us));
  CHECK(d.fused_us == Approx(2 + a.fused.exec_us + b.fused.exec_us));
  CHECK(d.priority_us == Approx(d.unfused_us - d.fused_us));
  // The exp is recomputed in each consumer: 79 + 7 (add) and 79 + 3
  // (multiply) flop equivalents per element; each fused kernel reads p0.
  CHECK(a.fused.flops == (79 + 7) * (1 << 20));
  CHECK(b.fused.flops == (79 + 3) * (1 << 20));
  for (const ConsumerDecision* c : {&a, &b}) {
    CHECK(c->fused.bytes_read == 2 * (4 << 20));
    CHECK(c->fused.bytes_written == 4 << 20);
  }
  // By hand: the fused add reads 8 MiB and writes 4 MiB at 3352.32 GB/s,
  // computes 86 * 2^20 / 66908 ns.
  const double mem = 3.0 * (4 << 20) / 3352320000000.0 * 1e6;
  const double compute = 86.0 * (1 << 20) / 66908 * 1e-3;
  CHECK(a.fused.exec_us ==
        Approx(compute + mem - 0.95 * std::min(compute, mem)).epsilon(1e-6));
  CHECK(d.fuse);
  // One consumer named: the producer stays for the other.
  DecisionOptions one;
  one.consumer = "b";
  one.model = CostModel::kXla;
  auto module = testing::ParseOrDie(kTwoConsumers);
  ExprContext ctx;
  auto single = DecideFusion(*module, "x", one, *hw::FindDevice("h100"), &ctx);
  REQUIRE(single.ok());
  CHECK(single->producer_kept);
  CHECK(single->consumers.size() == 1);
  CHECK(single->fused_us ==
        Approx(2 + single->first()->fused.exec_us + single->producer.exec_us));
  // The ixa model answers the same question with its own costs.
  FusionDecision ixa = DecideAll(kTwoConsumers, "x", CostModel::kIxa);
  CHECK(ixa.consumers.size() == 2);
  CHECK(ixa.consumers[0].fused.model == CostModel::kIxa);
  CHECK(ixa.fuse);
}

TEST_CASE("fusion decision: XLA's fused estimate subtracts shared reads",
          "[uses][decision]") {
  // p0 is read by the producer and, elementwise, by the consumer fusion:
  // 4 MiB * u + 4 MiB - 4 MiB * common(1) = 4 MiB.
  FusionDecision d = DecideAll(R"(
    fc { u = f32[1024,1024] parameter(0)
         v = f32[1024,1024] parameter(1)
         ROOT a = f32[1024,1024] add(u, v) }
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      x = f32[1024,1024] exponential(p0)
      ROOT c = f32[1024,1024] fusion(x, p0), kind=kLoop, calls=fc
    })",
                               "x", CostModel::kXla);
  REQUIRE(d.consumers.size() == 1);
  const FusionCost& fused = d.consumers[0].fused;
  REQUIRE(fused.operands.size() == 1);
  CHECK(fused.operands[0].name == "p0");
  CHECK(fused.operands[0].bytes_total == 4 << 20);
  CHECK(fused.flops == (79 + 7) * (1 << 20));
}

TEST_CASE("fusion decision: a bitcast user keeps the producer alive (ixa)",
          "[uses][decision]") {
  const char* hlo = R"(
    ENTRY e {
      p0 = f32[1024,1024] parameter(0)
      p1 = f32[1024,1024] parameter(1)
      x = f32[1024,1024] exponential(p0)
      a = f32[1024,1024] add(x, p1)
      b = f32[1048576] bitcast(x)
      ROOT t = (f32[1024,1024], f32[1048576]) tuple(a, b)
    })";
  FusionDecision xla = DecideAll(hlo, "x", CostModel::kXla);
  CHECK_FALSE(xla.producer_kept);  // XLA counts the bitcast as fused
  // A bitcast user is skipped, not fused: its refusal does not count.
  CHECK(xla.legal);
  CHECK(xla.consumers[1].legality.rule == "bitcast_consumer");
  FusionDecision ixa = DecideAll(hlo, "x", CostModel::kIxa);
  CHECK(ixa.producer_kept);
  CHECK_FALSE(ixa.notes.empty());
  // Unfused: x and a; fused: x (kept) and x+a. The bitcast is no kernel.
  CHECK(ixa.unfused_kernels == 2);
  CHECK(ixa.fused_kernels == 2);
  CHECK(ixa.fused_us ==
        Approx(2 + ixa.producer.exec_us + ixa.consumers[0].fused.exec_us));
  CHECK(xla.unfused_kernels == 3);
  CHECK(xla.fused_kernels == 2);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
