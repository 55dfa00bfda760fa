// Shared helpers of the emitter plan tests: planning an HLO text on a
// device, and brute-force checks of thread maps against the per-op and
// fusion maps (every output element written once; every read one the op
// really makes for the element the thread writes).
#ifndef IXA_TESTS_ANALYSIS_EMITTERS_TEST_UTIL_H_
#define IXA_TESTS_ANALYSIS_EMITTERS_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/indexing/indexing.h"
#include "core/enumerate.h"
#include "core/text.h"
#include "tests/analysis/test_util.h"

namespace ixa::testing {

using Index = std::vector<int64_t>;

struct Planned {
  std::unique_ptr<ExprContext> ctx = std::make_unique<ExprContext>();
  std::unique_ptr<hlo::Module> module;
  FusionRegion region;
  EmitterPlan plan;
};

inline Planned PlanOn(const std::string& hlo, const hw::Device& device,
                      PlanOptions options = {}) {
  Planned p;
  p.module = ParseOrDie(hlo);
  auto region = ResolveFusion(*p.module, "");
  REQUIRE(region.ok());
  p.region = *region;
  auto plan = ComputeEmitterPlan(p.region, device, options, p.ctx.get());
  INFO((plan.ok() ? std::string() : plan.error().ToString()));
  REQUIRE(plan.ok());
  p.plan = std::move(plan).value();
  return p;
}

inline Planned Plan(const std::string& hlo, const char* device = "h100",
                    PlanOptions options = {}) {
  return PlanOn(hlo, *hw::FindDevice(device), options);
}

// A GPU with one small core: every fusion has "enough work" to vectorise.
inline hw::Device TinyGpu() {
  hw::Device d = *hw::FindDevice("h100");
  d.name = "tiny";
  d.sm_count = 1;
  d.threads_per_core = 64;
  return d;
}

inline const Variable& SymbolNamed(const IndexingMap& m,
                                   const std::string& name) {
  for (int i = 0; i < m.num_symbols(); ++i) {
    if (m.SymbolName(i) == name) return m.symbol(i);
  }
  FAIL("no symbol " << name << " in " << PrintIndexingMap(m));
  return m.symbol(0);
}

// Calls f(point, results) for every domain point of m.
template <typename F>
void ForEachPoint(const IndexingMap& m, F f, int64_t limit = 1 << 22) {
  auto r = ForEachDomainPoint(m, limit, [&](const Point& p) {
    auto v = m.Evaluate(p.dims, p.symbols);
    REQUIRE(v.ok());
    f(p, *v);
    return true;
  });
  INFO(PrintIndexingMap(m));
  REQUIRE(r.ok());
}

// output index -> the input indices an out -> in map reads for it.
inline std::map<Index, std::set<Index>> ReadRelation(
    const std::vector<IndexingMap>& out_to_in) {
  std::map<Index, std::set<Index>> rel;
  for (const IndexingMap& m : out_to_in) {
    ForEachPoint(
        m, [&](const Point& p, const Index& in) { rel[p.dims].insert(in); });
  }
  return rel;
}

// Every element of `dims` is the image of exactly `times` domain points of
// `thread_to_output` (and nothing outside is written).
inline void CheckWritesEachOnce(const IndexingMap& thread_to_output,
                                const Index& dims, int64_t times = 1) {
  std::map<Index, int64_t> count;
  ForEachPoint(thread_to_output,
               [&](const Point&, const Index& out) { ++count[out]; });
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  INFO(PrintIndexingMap(thread_to_output));
  CHECK(static_cast<int64_t>(count.size()) == total);
  for (const auto& [out, n] : count) {
    for (size_t k = 0; k < dims.size(); ++k) {
      REQUIRE(out[k] >= 0);
      REQUIRE(out[k] < dims[k]);
    }
    REQUIRE(n == times);
  }
}

// `thread_to_in` = `thread_to_out` composed with an out -> in relation:
// at every point of thread_to_in's domain (whose trailing symbols are
// thread_to_out's), the element read is one `relation` reads for the
// element written there. Returns the elements read.
inline std::set<Index> CheckReadsFollow(
    const IndexingMap& thread_to_in, const IndexingMap& thread_to_out,
    const std::map<Index, std::set<Index>>& relation) {
  if (thread_to_in.IsKnownEmpty()) return {};
  const int extra = thread_to_in.num_symbols() - thread_to_out.num_symbols();
  REQUIRE(extra >= 0);
  std::set<Index> read;
  INFO("reads  " << PrintIndexingMap(thread_to_in));
  INFO("writes " << PrintIndexingMap(thread_to_out));
  ForEachPoint(thread_to_in, [&](const Point& p, const Index& in) {
    std::vector<int64_t> syms(p.symbols.begin() + extra, p.symbols.end());
    REQUIRE(*thread_to_out.InDomain(p.dims, syms));
    Index out = *thread_to_out.Evaluate(p.dims, syms);
    auto it = relation.find(out);
    REQUIRE(it != relation.end());
    INFO("point writes " << ::Catch::Detail::stringify(out) << " reads "
                         << ::Catch::Detail::stringify(in));
    REQUIRE(it->second.count(in) == 1);
    read.insert(in);
  });
  return read;
}

inline std::set<Index> Image(const std::map<Index, std::set<Index>>& rel) {
  std::set<Index> all;
  for (const auto& [o, ins] : rel) all.insert(ins.begin(), ins.end());
  return all;
}

// Loop-like roots (the root is its own hero and has an output map): the
// output is written once per element, each hero operand map reads what
// the root's per-op map reads, and each parameter map what the fusion's
// maps read; together they read every element those maps read.
inline void CheckLoopLikePlan(const Planned& p) {
  ExprContext* ctx = p.ctx.get();
  for (const RootPlan& r : p.plan.roots) {
    REQUIRE(r.output_map);
    CheckWritesEachOnce(*r.output_map, OutputDims(*r.root, 0));
    if (r.hero == r.root && r.root->opcode != hlo::Opcode::kParameter) {
      auto own = ComputeOutputToInputIndexing(*r.root, 0, ctx);
      REQUIRE(own.ok());
      for (size_t i = 0; i < r.hero_operand_maps.size(); ++i) {
        if (!r.hero_operand_maps[i]) continue;
        auto rel = ReadRelation(own->indexing_maps[i].maps());
        CHECK(CheckReadsFollow(*r.hero_operand_maps[i], *r.output_map, rel) ==
              Image(rel));
      }
    }
  }
}

// Parameter maps of a plan whose roots all have output maps (loop-like
// plans): every point of a parameter map reads an element that the
// fusion's maps read for the element some root writes at that point, and
// together the maps read every element those maps read.
inline void CheckParametersFollowOutputs(const Planned& p) {
  ExprContext* ctx = p.ctx.get();
  const size_t n = p.region.parameters.size();
  std::vector<std::map<Index, std::set<Index>>> rels;  // per root
  std::vector<std::vector<std::map<Index, std::set<Index>>>> per_param(n);
  for (const RootPlan& r : p.plan.roots) {
    REQUIRE(r.output_map);
    auto params = ComputeFusionParameterIndexing(p.region, r.output, ctx);
    REQUIRE(params.ok());
    for (size_t i = 0; i < n; ++i) {
      per_param[i].push_back(ReadRelation((*params)[i].maps()));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    INFO("parameter " << i);
    REQUIRE_FALSE(p.plan.parameters[i].unknown_reason);
    std::set<Index> want, got;
    for (const auto& rel : per_param[i]) {
      auto image = Image(rel);
      want.insert(image.begin(), image.end());
    }
    for (const IndexingMap& m : p.plan.parameters[i].maps) {
      INFO(PrintIndexingMap(m));
      ForEachPoint(m, [&](const Point& pt, const Index& in) {
        bool explained = false;
        for (size_t k = 0; k < p.plan.roots.size() && !explained; ++k) {
          const IndexingMap& out = *p.plan.roots[k].output_map;
          const int extra = m.num_symbols() - out.num_symbols();
          if (extra < 0) continue;
          std::vector<int64_t> syms(pt.symbols.begin() + extra,
                                    pt.symbols.end());
          if (!*out.InDomain(pt.dims, syms)) continue;
          auto it = per_param[i][k].find(*out.Evaluate(pt.dims, syms));
          explained = it != per_param[i][k].end() && it->second.count(in);
        }
        REQUIRE(explained);
        got.insert(in);
      });
    }
    CHECK(got == want);
  }
}

}  // namespace ixa::testing

#endif  // IXA_TESTS_ANALYSIS_EMITTERS_TEST_UTIL_H_
