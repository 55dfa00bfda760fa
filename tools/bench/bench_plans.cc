// Emitter plan benchmark (plain main, std::chrono): for every emitter kind,
// 1,000 generated fusions (deterministic seeds, random shapes) are read,
// then planned (ComputeEmitterPlan on h100) and their coalescing analysed
// (AnalyzePlanCoalescing); the time per fusion of each step is reported.
// A generated fusion that gets another kind than its generator intends is
// counted and reported (the kind rules are exercised, not assumed).
//
//   build/bin/bench_plans [fusions per kind, default 1000]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/uses/coalescing.h"
#include "hw/device.h"

namespace {

using Clock = std::chrono::steady_clock;
using ixa::EmitterKind;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string Dims(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += (i ? "," : "") + std::to_string(dims[i]);
  }
  return s + "]";
}

const char kAdd[] =
    "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
    " ROOT s = f32[] add(a, b) }\n";

struct Generator {
  const char* name;
  EmitterKind kind;
  std::function<std::string(std::mt19937_64&)> make;
};

int64_t Pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

std::vector<Generator> Generators() {
  std::vector<Generator> g;
  g.push_back({"loop", EmitterKind::kLoop, [](std::mt19937_64& rng) {
                 std::vector<int64_t> d = {Pick(rng, 1, 64), Pick(rng, 1, 512),
                                           Pick(rng, 1, 512)};
                 std::string s = "f32" + Dims(d);
                 std::string row = "f32" + Dims({d[2]});
                 return "ENTRY e {\n p0 = " + s +
                        " parameter(0)\n p1 = " + row +
                        " parameter(1)\n b = " + s +
                        " broadcast(p1), dimensions={2}\n x = " + s +
                        " exponential(p0)\n ROOT a = " + s + " add(x, b)\n}";
               }});
  g.push_back({"transpose", EmitterKind::kTranspose, [](std::mt19937_64& rng) {
                 std::vector<int64_t> d = {Pick(rng, 1, 16), Pick(rng, 16, 512),
                                           Pick(rng, 16, 512)};
                 const bool swap_outer = Pick(rng, 0, 1) == 1;
                 std::vector<int64_t> out =
                     swap_outer ? std::vector<int64_t>{d[2], d[1], d[0]}
                                : std::vector<int64_t>{d[0], d[2], d[1]};
                 if (swap_outer) d[0] = Pick(rng, 16, 256), out[2] = d[0];
                 const char* perm = swap_outer ? "2,1,0" : "0,2,1";
                 return "ENTRY e {\n p0 = f32" + Dims(d) +
                        " parameter(0)\n ROOT t = f32" + Dims(out) +
                        " transpose(p0), dimensions={" + perm + "}\n}";
               }});
  g.push_back(
      {"reduction (row)", EmitterKind::kReduction, [](std::mt19937_64& rng) {
         std::vector<int64_t> d = {Pick(rng, 1, 4096), Pick(rng, 32, 8192)};
         return std::string(kAdd) + "ENTRY e {\n p0 = f32" + Dims(d) +
                " parameter(0)\n z = f32[] constant(0)\n ROOT r = f32" +
                Dims({d[0]}) +
                " reduce(p0, z), dimensions={1}, to_apply=add\n}";
       }});
  g.push_back({"reduction (multi-row)", EmitterKind::kReduction,
               [](std::mt19937_64& rng) {
                 const int64_t r = int64_t{1} << Pick(rng, 1, 4);
                 std::vector<int64_t> d = {Pick(rng, 1, 100000), r};
                 return std::string(kAdd) + "ENTRY e {\n p0 = f32" + Dims(d) +
                        " parameter(0)\n z = f32[] constant(0)\n ROOT r = f32" +
                        Dims({d[0]}) +
                        " reduce(p0, z), dimensions={1}, to_apply=add\n}";
               }});
  g.push_back(
      {"reduction (column)", EmitterKind::kReduction, [](std::mt19937_64& rng) {
         std::vector<int64_t> d = {Pick(rng, 1, 64), Pick(rng, 256, 4096),
                                   Pick(rng, 32, 1024)};
         return std::string(kAdd) + "ENTRY e {\n p0 = f32" + Dims(d) +
                " parameter(0)\n z = f32[] constant(0)\n ROOT r = f32" +
                Dims({d[0], d[2]}) +
                " reduce(p0, z), dimensions={1}, to_apply=add\n}";
       }});
  g.push_back({"scatter", EmitterKind::kScatter, [](std::mt19937_64& rng) {
                 const int64_t n = Pick(rng, 16, 4096), k = Pick(rng, 1, 512),
                               w = Pick(rng, 1, 256);
                 return std::string(kAdd) + "ENTRY e {\n p0 = f32" +
                        Dims({n, w}) + " parameter(0)\n p1 = s32" +
                        Dims({k, 1}) + " parameter(1)\n p2 = f32" +
                        Dims({k, w}) + " parameter(2)\n ROOT s = f32" +
                        Dims({n, w}) +
                        " scatter(p0, p1, p2), update_window_dims={1}, "
                        "inserted_window_dims={0}, "
                        "scatter_dims_to_operand_dims={0}, "
                        "index_vector_dim=1, to_apply=add\n}";
               }});
  g.push_back(
      {"concatenate", EmitterKind::kConcatenate, [](std::mt19937_64& rng) {
         const int count = static_cast<int>(Pick(rng, 2, 4));
         const int64_t rows = Pick(rng, 1, 256);
         std::string body, ops;
         int64_t total = 0;
         for (int i = 0; i < count; ++i) {
           const int64_t c = Pick(rng, 1, 1024);
           total += c;
           body += " p" + std::to_string(i) + " = f32" + Dims({rows, c}) +
                   " parameter(" + std::to_string(i) + ")\n";
           ops += (i ? ", p" : "p") + std::to_string(i);
         }
         return "ENTRY e {\n" + body + " ROOT c = f32" + Dims({rows, total}) +
                " concatenate(" + ops + "), dimensions={1}\n}";
       }});
  g.push_back({"in-place DUS", EmitterKind::kInPlaceDynamicUpdateSlice,
               [](std::mt19937_64& rng) {
                 const int64_t n = Pick(rng, 16, 4096), k = Pick(rng, 1, 16),
                               w = Pick(rng, 1, 1024);
                 return "ENTRY e {\n p0 = f32" + Dims({n, w}) +
                        " parameter(0)\n p1 = f32" + Dims({k, w}) +
                        " parameter(1)\n i = s32[] parameter(2)\n z = s32[] "
                        "constant(0)\n x = f32" +
                        Dims({k, w}) + " exponential(p1)\n ROOT d = f32" +
                        Dims({n, w}) + " dynamic-update-slice(p0, x, i, z)\n}";
               }});
  g.push_back(
      {"input slices", EmitterKind::kInputSlices, [](std::mt19937_64& rng) {
         const int64_t r = Pick(rng, 2, 512), c = Pick(rng, 1, 512);
         const int64_t cut = Pick(rng, 1, r - 1);
         return "ENTRY e {\n p0 = f32" + Dims({r, c}) +
                " parameter(0)\n x = f32" + Dims({r, c}) +
                " exponential(p0)\n s0 = f32" + Dims({cut, c}) +
                " slice(x), slice={[0:" + std::to_string(cut) +
                "],[0:" + std::to_string(c) + "]}\n s1 = f32" +
                Dims({r - cut, c}) + " slice(x), slice={[" +
                std::to_string(cut) + ":" + std::to_string(r) +
                "],[0:" + std::to_string(c) + "]}\n ROOT t = (f32" +
                Dims({cut, c}) + ", f32" + Dims({r - cut, c}) +
                ") tuple(s0, s1)\n}";
       }});
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  const int per_kind = argc > 1 ? std::atoi(argv[1]) : 1000;
  const ixa::hw::Device device = *ixa::hw::FindDevice("h100");
  std::printf("%-22s %8s %10s %12s %14s %9s\n", "kind", "fusions", "read us",
              "plan us", "coalescing us", "off-kind");
  for (const Generator& g : Generators()) {
    std::mt19937_64 rng(12345);
    std::vector<std::unique_ptr<ixa::hlo::Module>> modules;
    auto t0 = Clock::now();
    for (int i = 0; i < per_kind; ++i) {
      auto m = ixa::hlo::ParseHloModule(g.make(rng));
      if (!m.ok()) {
        std::fprintf(stderr, "%s: %s\n", g.name, m.error().ToString().c_str());
        return 1;
      }
      modules.push_back(std::move(m).value());
    }
    auto t1 = Clock::now();
    int off_kind = 0, failed = 0;
    double plan_s = 0, coalescing_s = 0;
    for (const auto& m : modules) {
      ixa::ExprContext ctx;
      auto region = ixa::ResolveFusion(*m, "");
      auto a = Clock::now();
      auto plan = ixa::ComputeEmitterPlan(*region, device, &ctx);
      auto b = Clock::now();
      plan_s += Seconds(a, b);
      if (!plan.ok()) {
        ++failed;
        continue;
      }
      if (plan->kind != g.kind) ++off_kind;
      ixa::CoalescingAnalysis c =
          ixa::AnalyzePlanCoalescing(*region, *plan, device);
      coalescing_s += Seconds(b, Clock::now());
      if (c.operands.empty() && c.unknown.empty()) ++failed;
    }
    std::printf("%-22s %8d %10.1f %12.1f %14.1f %9d%s\n", g.name, per_kind,
                1e6 * Seconds(t0, t1) / per_kind, 1e6 * plan_s / per_kind,
                1e6 * coalescing_s / per_kind, off_kind,
                failed ? " (some failed)" : "");
  }
  return 0;
}
