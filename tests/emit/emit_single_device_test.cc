// Modules for one device compiled (the one-device rewrite first, as the
// compile op runs it) and run against the reference interpreter, whose
// own semantics of collectives, async pairs, tuple constants and tuple
// parameters are written apart from the rewrite: async pairs, collectives
// with one participant, sharding annotations, get-dimension-size, tuple
// constants and tuple entry parameters; and what needs more devices (or a
// host channel) refused, saying so.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_program_runner.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

constexpr char kSum[] = R"(
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

std::string CorpusFile(const std::string& name) {
  std::ifstream in(std::string(IXA_SOURCE_DIR) + "/tests/analysis/hlo_corpus/" +
                   name + ".hlo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<ProgramCase> OneDevicePrograms() {
  std::vector<ProgramCase> cases;
  auto add = [&](const std::string& label, const std::string& hlo) {
    ProgramCase c;
    c.label = label;
    c.hlo = hlo;
    cases.push_back(c);
  };
  add("copy-start / copy-done", R"(HloModule copies
ENTRY e {
  v = f32[2,3] parameter(0)
  cs = (f32[2,3]{0,1}, f32[2,3], u32[]) copy-start(v)
  cd = f32[2,3]{0,1} copy-done(cs)
  ROOT n = f32[2,3] negate(cd)
})");
  add("async all-reduce, all-gather, collective-permute",
      std::string("HloModule async, replica_count=1, num_partitions=1\n") +
          kSum + R"(
ENTRY e {
  x = f32[16,8] parameter(0)
  y = f32[32] parameter(1)
  ars = f32[16,8] all-reduce-start(x), replica_groups={}, to_apply=sum
  ard = f32[16,8] all-reduce-done(ars)
  ags = (f32[32], f32[32]) all-gather-start(y), replica_groups={{0}}, dimensions={0}
  agd = f32[32] all-gather-done(ags)
  cps = (f32[16,8], f32[16,8], u32[], u32[]) collective-permute-start(ard), channel_id=1, source_target_pairs={{0,0}}
  cpd = f32[16,8] collective-permute-done(cps)
  e = f32[16,8] exponential(cpd)
  ROOT t = (f32[16,8], f32[32]) tuple(e, agd)
})");
  add("async-start / update / done of a computation",
      CorpusFile("execution_thread"));
  add("async sugar: reduce-scatter-start, all-to-all-start",
      std::string("HloModule sugar\n") + kSum + R"(
ENTRY e {
  p = f32[8] parameter(0)
  rss = ((f32[8]), f32[8]) reduce-scatter-start(p), replica_groups={{0}}, dimensions={0}, to_apply=sum
  rsd = f32[8] reduce-scatter-done(rss)
  a2s = ((f32[8]), f32[8], s32[]) all-to-all-start(rsd), replica_groups={{0}}, dimensions={0}
  a2u = ((f32[8]), f32[8], s32[]) all-to-all-update(a2s)
  a2d = f32[8] all-to-all-done(a2u)
  ROOT m = f32[8] multiply(a2d, p)
})");
  add("tuple all-reduce, all-gather, reduce-scatter, all-to-all, broadcast",
      std::string("HloModule collectives\n") + kSum + R"(
ENTRY e {
  y = f32[16] parameter(0)
  z = f32[8] parameter(1)
  ar = (f32[16], f32[8]) all-reduce(y, z), replica_groups={}, to_apply=sum
  ar0 = f32[16] get-tuple-element(ar), index=0
  ar1 = f32[8] get-tuple-element(ar), index=1
  ag = f32[16] all-gather(ar0), replica_groups={{0}}, dimensions={0}
  rs = f32[8] reduce-scatter(ar1), replica_groups={}, dimensions={0}, to_apply=sum
  a2a = (f32[8], f32[8]) all-to-all(rs, z), replica_groups={{0}}
  a2a1 = f32[8] get-tuple-element(a2a), index=1
  cb = f32[16] collective-broadcast(ag), replica_groups={{0}}
  s = f32[8] add(rs, a2a1)
  ROOT t = (f32[16], f32[8]) tuple(cb, s)
})");
  add("collective-permute: to itself, and with no pair for the device",
      R"(HloModule permutes
ENTRY e {
  x = f32[4,4] parameter(0)
  y = s32[6] parameter(1)
  self = f32[4,4] collective-permute(x), source_target_pairs={{0,0}}
  none = f32[4,4] collective-permute(x), source_target_pairs={}
  both = (f32[4,4], s32[6]) collective-permute(x, y), channel_id=2, source_target_pairs={}
  b1 = s32[6] get-tuple-element(both), index=1
  s = f32[4,4] add(self, none)
  ROOT t = (f32[4,4], s32[6]) tuple(s, b1)
})");
  add("replica-id and partition-id", R"(HloModule ids
ENTRY e {
  x = f32[8] parameter(0)
  r = u32[] replica-id()
  p = u32[] partition-id()
  s = u32[] add(r, p)
  one = u32[] constant(1)
  s1 = u32[] add(s, one)
  f = f32[] convert(s1)
  b = f32[8] broadcast(f), dimensions={}
  ROOT m = f32[8] multiply(x, b)
})");
  add("sharding annotations", CorpusFile("sharding_forms"));
  add("sharding constraint of a JAX module", CorpusFile("jax_before_opt"));
  add("annotations of every kind", R"(HloModule annotations
ENTRY e {
  x = f32[8,4] parameter(0)
  a = f32[8,4] custom-call(x), custom_call_target="Sharding", sharding={replicated}
  b = f32[8,4] custom-call(a), custom_call_target="xla.sdy.GlobalToLocalShape"
  c = f32[8,4] custom-call(b), custom_call_target="xla.sdy.LocalToGlobalShape"
  d = f32[8,4]{0,1} custom-call(c), custom_call_target="LayoutConstraint"
  f = f32[8,4] custom-call(d), custom_call_target="annotate_device_placement"
  ROOT g = f32[8,4] sine(f)
})");
  add("get-dimension-size of a static dim", R"(HloModule sizes
ENTRY e {
  x = f32[5,7] parameter(0)
  n = s32[] get-dimension-size(x), dimensions={1}
  f = f32[] convert(n)
  b = f32[5,7] broadcast(f), dimensions={}
  ROOT a = f32[5,7] add(x, b)
})");
  add("tuple constants", R"(HloModule constants
ENTRY e {
  x = s32[2] parameter(0)
  c = (f32[], s32[2], (pred[3], f32[2,2])) constant((1.25, {7, 8}, ({true, false, true}, {{1, 2}, {3, 4}})))
  c1 = s32[2] get-tuple-element(c), index=1
  c2 = (pred[3], f32[2,2]) get-tuple-element(c), index=2
  c21 = f32[2,2] get-tuple-element(c2), index=1
  c0 = f32[] get-tuple-element(c), index=0
  s = s32[2] add(x, c1)
  ROOT t = (f32[], s32[2], f32[2,2]) tuple(c0, s, c21)
})");
  add("ordering tokens and domains", R"(HloModule tokens
ENTRY e {
  x = f32[4,3] parameter(0)
  y = s32[5] parameter(1)
  t0 = token[] after-all()
  t1 = token[] after-all(t0)
  t2 = token[] add-dependency(t1, t0)
  a = f32[4,3] add-dependency(x, t2)
  n = f32[4,3] negate(a)
  pair = (f32[4,3], s32[5]) tuple(n, y)
  d = (f32[4,3], s32[5]) add-dependency(pair, t0)
  d0 = f32[4,3] get-tuple-element(d), index=0
  d1 = s32[5] get-tuple-element(d), index=1
  dm = f32[4,3] domain(d0), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  e = f32[4,3] exponential(dm)
  ROOT t = (f32[4,3], s32[5]) tuple(e, d1)
})");
  add("tuple entry parameters", CorpusFile("tuple_index_operands"));
  add("nested tuple entry parameters", R"(HloModule nested
ENTRY e {
  p = (f32[4], (s32[3], f32[4])) parameter(0)
  q = f32[4] parameter(1)
  a = f32[4] get-tuple-element(p), index=0
  inner = (s32[3], f32[4]) get-tuple-element(p), index=1
  b = f32[4] get-tuple-element(inner), index=1
  i = s32[3] get-tuple-element(inner), index=0
  s = f32[4] add(a, b)
  m = f32[4] multiply(s, q)
  ROOT t = (f32[4], s32[3]) tuple(m, i)
})");
  return cases;
}

void CheckAllMatch(const std::vector<ProgramCase>& cases,
                   const std::vector<std::string>& errors) {
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label << (cases[i].fuse ? " (fused)" : "") << "\n"
                        << cases[i].hlo);
    CHECK(errors[i] == "");
  }
}

TEST_CASE("one device: the rewritten modules run and match the interpreter",
          "[.][emit_single_device]") {
  std::vector<ProgramCase> cases = OneDevicePrograms();
  // Each also fused, as the compile op does by default (in the sanitizer
  // pass one in three: the planner runs sanitized in its own tests, and
  // the Release pass fuses them all).
  const size_t n = cases.size();
  for (size_t i = 0; i < n; ++i) {
    if (Sanitized() && i % 3 != 0) continue;
    ProgramCase fused = cases[i];
    fused.fuse = fused.prefusion = true;
    cases.push_back(fused);
  }
  CheckAllMatch(cases, RunPrograms(cases, 41));
}

TEST_CASE("one device: programs run in the CPU model of CUDA",
          "[.][emit_single_device]") {
  std::vector<ProgramCase> cases = OneDevicePrograms();
  // One in two in the sanitizer pass (the model's own code is what runs
  // instrumented; the Release pass runs them all).
  if (Sanitized()) {
    std::vector<ProgramCase> half;
    for (size_t i = 0; i < cases.size(); i += 2) half.push_back(cases[i]);
    cases = std::move(half);
  }
  CheckAllMatch(cases, RunPrograms(cases, 43, emit::Target::kCuda));
}

// compile's error for `hlo`: its code and message.
Error CompileError(const std::string& hlo) {
  Result<std::string> code = CompileText(hlo, "ixa_run");
  REQUIRE_FALSE(code.ok());
  return code.error();
}

TEST_CASE("one device: what needs more devices or a channel is unsupported",
          "[.][emit_single_device]") {
  Error e = CompileError(CorpusFile("all_to_all_array"));
  CHECK(e.code == ErrorCode::kUnsupported);
  CHECK_THAT(e.message, Catch::Contains("'a2a' needs 4 devices"));

  // Two replicas in one group: two devices.
  e = CompileError(std::string("HloModule two, replica_count=2\n") + kSum +
                   R"(
ENTRY e {
  x = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(x), replica_groups={}, to_apply=sum
})");
  CHECK(e.code == ErrorCode::kUnsupported);
  CHECK_THAT(e.message, Catch::Contains("needs 2 devices"));

  // A channel all-reduce of replica groups of one: each replica brings
  // both partitions along.
  e = CompileError(std::string("HloModule parts, num_partitions=2\n") + kSum +
                   R"(
ENTRY e {
  x = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(x), channel_id=1, replica_groups={{0}}, to_apply=sum
})");
  CHECK_THAT(e.message, Catch::Contains("needs 2 devices"));

  e = CompileError(CorpusFile("collective_permute"));
  CHECK_THAT(e.message, Catch::Contains("sends from device 0 to device 1"));
  CHECK_THAT(e.message, Catch::Contains("needs 4 devices"));

  e = CompileError(R"(HloModule rid, replica_count=2
ENTRY e {
  ROOT r = u32[] replica-id()
})");
  CHECK_THAT(e.message, Catch::Contains("differs per device"));

  e = CompileError(R"(HloModule feed
ENTRY e {
  tok = token[] after-all()
  in = ((f32[4]), token[]) infeed(tok)
  ROOT x = (f32[4]) get-tuple-element(in), index=0
})");
  CHECK(e.code == ErrorCode::kUnsupported);
  CHECK_THAT(e.message, Catch::Contains("host channel"));

  e = CompileError(R"(HloModule reshard
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT s = f32[2,4] custom-call(x), custom_call_target="SPMDFullToShardShape"
})");
  CHECK_THAT(e.message, Catch::Contains("partitioner"));

  e = CompileError(CorpusFile("custom_call_literal"));
  CHECK_THAT(e.message, Catch::Contains("my_kernel"));
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
