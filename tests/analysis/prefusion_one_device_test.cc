// The one-device rewrite (RewriteForOneDevice / RunOneDevice): each rewrite
// reported, the rewritten module reading back without the ops it removes,
// and a second run changing nothing. What the programs compute is checked
// against the reference interpreter in tests/emit/emit_single_device_test.
#include <catch2/catch.hpp>
#include <set>

#include "analysis/hlo/printer.h"
#include "analysis/prefusion/prefusion.h"
#include "tests/analysis/test_util.h"

namespace ixa {
namespace IXA_UNITY_ID {

using testing::ParseOrDie;

constexpr char kModule[] = R"(HloModule one, replica_count=1, num_partitions=1
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
wrapped {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
ENTRY e {
  x = f32[8] parameter(0)
  cs = (f32[8], f32[8], u32[]) copy-start(x)
  cd = f32[8] copy-done(cs)
  ars = f32[8] all-reduce-start(cd), replica_groups={}, to_apply=sum
  ard = f32[8] all-reduce-done(ars)
  as = ((f32[8]), f32[8], s32[]) async-start(ard), calls=wrapped
  au = ((f32[8]), f32[8], s32[]) async-update(as)
  ad = f32[8] async-done(au)
  ag = f32[8] all-gather(ad), replica_groups={{0}}, dimensions={0}
  cp = f32[8] collective-permute(ag), source_target_pairs={}
  rid = u32[] replica-id()
  sh = f32[8] custom-call(cp), custom_call_target="Sharding"
  n = s32[] get-dimension-size(sh), dimensions={0}
  c = (f32[], s32[2]) constant((1.5, {1, 2}))
  tok = token[] after-all()
  dep = f32[8] add-dependency(sh, tok)
  dom = f32[8] domain(dep), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  ROOT t = (f32[8], u32[], s32[], (f32[], s32[2]), f32[8]) tuple(sh, rid, n, c, dom)
}
)";

bool HasOpcode(const hlo::Module& m, hlo::Opcode op) {
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode == op) return true;
    }
  }
  return false;
}

TEST_CASE("one device: every rewrite reported, read back, a fixpoint",
          "[prefusion]") {
  auto module = ParseOrDie(kModule);
  Result<PrefusionResult> r = RunOneDevice(*module);
  REQUIRE(r.ok());
  REQUIRE(r->module != nullptr);
  std::set<std::string> rewritten;
  for (const PrefusionRewrite& w : r->rewrites) {
    CHECK(w.pass == "SingleDevice");
    rewritten.insert(w.instruction);
  }
  for (const char* name : {"cd", "ard", "ad", "ag", "cp", "rid", "sh", "n", "c",
                           "tok", "dep", "dom"}) {
    INFO(name);
    CHECK(rewritten.count(name) == 1);
  }
  const hlo::Module& out = *r->module;
  for (hlo::Opcode op : {hlo::Opcode::kCopyStart, hlo::Opcode::kCopyDone,
                         hlo::Opcode::kAllReduceStart, hlo::Opcode::kAllReduce,
                         hlo::Opcode::kAsyncStart, hlo::Opcode::kAsyncUpdate,
                         hlo::Opcode::kAsyncDone, hlo::Opcode::kAllGather,
                         hlo::Opcode::kCollectivePermute,
                         hlo::Opcode::kReplicaId, hlo::Opcode::kCustomCall,
                         hlo::Opcode::kGetDimensionSize, hlo::Opcode::kAfterAll,
                         hlo::Opcode::kAddDependency, hlo::Opcode::kDomain}) {
    INFO(hlo::OpcodeName(op));
    CHECK_FALSE(HasOpcode(out, op));
  }
  CHECK(out.entry()->Find("ad")->opcode == hlo::Opcode::kCall);
  CHECK(out.entry()->Find("n")->literal == "8");
  CHECK(out.entry()->Find("c")->opcode == hlo::Opcode::kTuple);
  // The text reads back, and a second run has nothing left to do.
  auto again = hlo::ParseHloModule(hlo::PrintModule(out));
  REQUIRE(again.ok());
  Result<PassResult> second = RewriteForOneDevice(**again);
  REQUIRE(second.ok());
  CHECK(second->module == nullptr);
  CHECK(second->rewrites.empty());
}

// Tokens in a diamond chain (each after-all reads the two before it): the
// ways from the first to the add-dependency grow as Fibonacci numbers, so a
// walk over them would not end; every after-all goes, in one pass.
TEST_CASE("one device: a long diamond chain of tokens is dropped",
          "[prefusion]") {
  std::string text =
      "HloModule chain\nENTRY e {\n  x = f32[4] parameter(0)\n"
      "  t0 = token[] after-all()\n  t1 = token[] after-all(t0)\n";
  const int n = 90;
  for (int i = 2; i < n; ++i) {
    text += "  t" + std::to_string(i) + " = token[] after-all(t" +
            std::to_string(i - 1) + ", t" + std::to_string(i - 2) + ")\n";
  }
  text += "  ROOT a = f32[4] add-dependency(x, t" + std::to_string(n - 1) +
          ")\n}\n";
  auto module = ParseOrDie(text);
  Result<PrefusionResult> r = RunOneDevice(*module);
  REQUIRE(r.ok());
  REQUIRE(r->module != nullptr);
  CHECK_FALSE(HasOpcode(*r->module, hlo::Opcode::kAfterAll));
  CHECK_FALSE(HasOpcode(*r->module, hlo::Opcode::kAddDependency));
  CHECK(r->rewrites.size() == n + 1);
}

TEST_CASE("one device: the module header's device counts", "[prefusion]") {
  auto module = ParseOrDie(
      "HloModule m, replica_count=2, num_partitions=4\n"
      "ENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n");
  CHECK(module->replica_count() == 2);
  CHECK(module->num_partitions() == 4);
  auto back = hlo::ParseHloModule(hlo::PrintModule(*module));
  REQUIRE(back.ok());
  CHECK((*back)->replica_count() == 2);
  CHECK((*back)->num_partitions() == 4);
  CHECK(ParseOrDie("HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n")
            ->replica_count() == 1);
  auto bad = hlo::ParseHloModule(
      "HloModule m, replica_count=0\nENTRY e {\n  ROOT x = f32[] "
      "parameter(0)\n}\n");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("replica_count"));
}

TEST_CASE("one device: a module that needs several devices is refused",
          "[prefusion]") {
  auto module = ParseOrDie(R"(HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(x), replica_groups={{0,1,2}}, to_apply=sum
})");
  Result<PassResult> r = RewriteForOneDevice(*module);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kUnsupported);
  CHECK_THAT(r.error().message, Catch::Contains("'ar' needs 3 devices"));
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
