// fusion_plan over a large unfused module: wall time and peak memory of
// XLA's priority fusion with either cost model (analysis/uses/fusion_plan).
//
//   bench_fusion_plan [instructions] [xla|ixa] [--no-cache] [--dump FILE]
//
// The module is a stack of transformer-like blocks (a layer norm, a tanh
// activation, a dot, two transposes and a residual add: 21 instructions
// each) over f32[512,1024], as many blocks as make `instructions` (default
// 10000). Prints the module size, the time to parse it and to plan it, the
// kernels before and after, the fusions made and the process's peak
// resident memory. Run one model per process for its own peak.
// --no-cache plans without the structural cost caches (the same plan,
// slower); --dump writes the plan (every step and the fused module) to
// FILE, to compare two runs byte for byte.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "analysis/hlo/module.h"
#include "analysis/uses/fusion_plan.h"
#include "hw/device.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::string Block(int i, const std::string& x) {
  const std::string n = "b" + std::to_string(i) + "_";
  auto v = [&](const char* name) { return n + name; };
  std::string s;
  auto line = [&](const std::string& name, const std::string& rhs) {
    s += " " + v(name.c_str()) + " = " + rhs + "\n";
  };
  line("z", "f32[] constant(0)");
  line("m", "f32[512] reduce(" + x + ", " + v("z") +
                "), dimensions={1}, to_apply=add");
  line("k", "f32[] constant(0.0009765625)");
  line("kb", "f32[512] broadcast(" + v("k") + "), dimensions={}");
  line("mean", "f32[512] multiply(" + v("m") + ", " + v("kb") + ")");
  line("bm", "f32[512,1024] broadcast(" + v("mean") + "), dimensions={0}");
  line("c", "f32[512,1024] subtract(" + x + ", " + v("bm") + ")");
  line("sq", "f32[512,1024] multiply(" + v("c") + ", " + v("c") + ")");
  line("v", "f32[512] reduce(" + v("sq") + ", " + v("z") +
                "), dimensions={1}, to_apply=add");
  line("r", "f32[512] rsqrt(" + v("v") + ")");
  line("br", "f32[512,1024] broadcast(" + v("r") + "), dimensions={0}");
  line("y", "f32[512,1024] multiply(" + v("c") + ", " + v("br") + ")");
  line("t", "f32[512,1024] tanh(" + v("y") + ")");
  line("one", "f32[] constant(1)");
  line("ob", "f32[512,1024] broadcast(" + v("one") + "), dimensions={}");
  line("g", "f32[512,1024] add(" + v("t") + ", " + v("ob") + ")");
  line("gy", "f32[512,1024] multiply(" + v("y") + ", " + v("g") + ")");
  line("d", "f32[512,1024] dot(" + v("gy") +
                ", w), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  line("tr", "f32[1024,512] transpose(" + v("d") + "), dimensions={1,0}");
  line("back", "f32[512,1024] transpose(" + v("tr") + "), dimensions={1,0}");
  line("x", "f32[512,1024] add(" + v("back") + ", " + x + ")");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int instructions = argc > 1 ? std::max(30, std::atoi(argv[1])) : 10000;
  const std::string model_name = argc > 2 ? argv[2] : "xla";
  const auto model = ixa::CostModelFromName(model_name);
  if (!model) {
    std::fprintf(stderr, "usage: %s [instructions] [xla|ixa]\n", argv[0]);
    return 64;
  }
  const int blocks = (instructions - 4) / 21;
  std::string text =
      "HloModule bench\nadd { a = f32[] parameter(0)\n b = f32[] "
      "parameter(1)\n ROOT s = f32[] add(a, b) }\nENTRY e {\n"
      " x0 = f32[512,1024] parameter(0)\n w = f32[1024,1024] parameter(1)\n";
  std::string x = "x0";
  for (int i = 0; i < blocks; ++i) {
    text += Block(i, x);
    x = "b" + std::to_string(i) + "_x";
  }
  text += " ROOT out = f32[512,1024] negate(" + x + ")\n}\n";

  bool cache_costs = true;
  const char* dump = nullptr;
  for (int a = 3; a < argc; ++a) {
    if (std::strcmp(argv[a], "--no-cache") == 0) {
      cache_costs = false;
    } else if (std::strcmp(argv[a], "--dump") == 0 && a + 1 < argc) {
      dump = argv[++a];
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[a]);
      return 64;
    }
  }
  const auto t0 = Clock::now();
  auto module = ixa::hlo::ParseHloModule(text);
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", module.error().ToString().c_str());
    return 1;
  }
  const auto t1 = Clock::now();
  ixa::ExprContext ctx;
  ixa::FusionPlanOptions options;
  options.model = *model;
  options.cache_costs = cache_costs;
  auto plan =
      ixa::PlanFusions(**module, *ixa::hw::FindDevice("h100"), options, &ctx);
  const auto t2 = Clock::now();
  if (!plan.ok()) {
    std::fprintf(stderr, "%s\n", plan.error().ToString().c_str());
    return 1;
  }
  if (dump) {
    std::ofstream out(dump);
    char line[128];
    for (const ixa::FusionStep& s : plan->steps) {
      out << s.kind << " " << s.producer;
      if (s.priority_us) {
        std::snprintf(line, sizeof line, " %.17g", *s.priority_us);
        out << line;
      }
      std::snprintf(line, sizeof line, " %.17g %d", s.producer_us,
                    s.producer_kept);
      out << line;
      for (const auto& i : s.into) {
        std::snprintf(line, sizeof line, " %.17g %.17g", i.consumer_us,
                      i.fused_us);
        out << " [" << i.consumer << " " << i.fusion << line << "]";
      }
      out << "\n";
    }
    for (const auto& [rule, n] : plan->refusals) {
      out << "refused " << rule << " " << n << "\n";
    }
    std::snprintf(line, sizeof line, "%.17g %.17g %d", plan->time_before_us,
                  plan->time_after_us, plan->times_known);
    out << line << "\n" << plan->module_text;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "model %s: %zu instructions (%d blocks), parse %.3f s, plan %.3f s; "
      "kernels %d -> %d, %zu fusions, %.1f -> %.1f us; peak RSS %.1f MiB\n",
      model_name.c_str(), (*module)->entry()->post_order().size(), blocks,
      Seconds(t1 - t0), Seconds(t2 - t1), plan->kernels_before,
      plan->kernels_after, plan->steps.size(), plan->time_before_us,
      plan->time_after_us, usage.ru_maxrss / 1024.0);
  return 0;
}
