// `compile` (emit/program, docs/compile.md) over a large module: wall time
// and the program's source size.
//
//   bench_compile [instructions] [--fuse] [--target cpp|cuda]
//
// The module is a chain of f32[64,64] steps (a dot, tanh, a row
// reduction broadcast back, an add, a transpose and a multiply, repeated)
// with as many steps as make `instructions` (default 10000). Prints the
// module size, the time to parse it, to plan its fusions (--fuse: the xla
// cost model, as the compile op does for a module without fusions) and
// to compile it, the kernels generated and the source bytes. The source
// grows linearly with the module; a kernel is generated once per distinct
// computation text, so the repeated steps share theirs.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "analysis/hlo/module.h"
#include "analysis/uses/fusion_plan.h"
#include "emit/program/program.h"
#include "hw/device.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Step `i` of the chain on value `x` (the six kinds in turn); returns its
// instruction lines and sets `out` to its result.
std::string Step(int i, const std::string& x, std::string* out) {
  const std::string v = "v" + std::to_string(i);
  const std::string t = " = f32[64,64] ";
  std::string s;
  switch (i % 6) {
    case 0:
      s = " " + v + t + "dot(" + x +
          ", w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
      break;
    case 1:
      s = " " + v + t + "tanh(" + x + ")\n";
      break;
    case 2:
      s = " " + v + "r = f32[64] reduce(" + x +
          ", zero), dimensions={1}, to_apply=add\n " + v + t + "broadcast(" +
          v + "r), dimensions={0}\n";
      break;
    case 3:
      s = " " + v + t + "add(" + x + ", p)\n";
      break;
    case 4:
      s = " " + v + t + "transpose(" + x + "), dimensions={1,0}\n";
      break;
    default:
      s = " " + v + t + "multiply(" + x + ", " + x + ")\n";
      break;
  }
  *out = v;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int instructions = 10000;
  bool fuse = false;
  ixa::emit::CompileOptions options;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--fuse") == 0) {
      fuse = true;
    } else if (std::strcmp(argv[a], "--target") == 0 && a + 1 < argc) {
      const std::string target = argv[++a];
      if (target != "cpp" && target != "cuda") {
        std::fprintf(stderr, "--target is cpp or cuda\n");
        return 64;
      }
      options.target =
          target == "cuda" ? ixa::emit::Target::kCuda : ixa::emit::Target::kCpp;
    } else if (argv[a][0] != '-') {
      instructions = std::max(10, std::atoi(argv[a]));
    } else {
      std::fprintf(stderr,
                   "usage: %s [instructions] [--fuse] [--target cpp|cuda]\n",
                   argv[0]);
      return 64;
    }
  }
  std::string text =
      "HloModule bench\nadd {\n a = f32[] parameter(0)\n b = f32[] "
      "parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n"
      " x = f32[64,64] parameter(0)\n w = f32[64,64] parameter(1)\n"
      " p = f32[64,64] parameter(2)\n zero = f32[] constant(0)\n";
  std::string x = "x";
  // Six steps make seven instructions (the reduction is two).
  const int steps = (instructions - 5) * 6 / 7;
  for (int i = 0; i < steps; ++i) text += Step(i, x, &x);
  text += " ROOT out = f32[64,64] negate(" + x + ")\n}\n";

  const auto t0 = Clock::now();
  auto module = ixa::hlo::ParseHloModule(text);
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", module.error().ToString().c_str());
    return 1;
  }
  const size_t count = (*module)->entry()->post_order().size();
  const auto t1 = Clock::now();
  ixa::ExprContext ctx;
  const ixa::hw::Device& device = *ixa::hw::FindDevice("h100");
  if (fuse) {
    ixa::FusionPlanOptions plan_options;
    plan_options.model = ixa::CostModel::kXla;
    auto plan = ixa::PlanFusions(**module, device, plan_options, &ctx);
    if (!plan.ok()) {
      std::fprintf(stderr, "%s\n", plan.error().ToString().c_str());
      return 1;
    }
    module = ixa::hlo::ParseHloModule(plan->module_text);
    if (!module.ok()) {
      std::fprintf(stderr, "%s\n", module.error().ToString().c_str());
      return 1;
    }
  }
  const auto t2 = Clock::now();
  auto program = ixa::emit::CompileModule(**module, device, options, &ctx);
  const auto t3 = Clock::now();
  if (!program.ok()) {
    std::fprintf(stderr, "%s\n", program.error().ToString().c_str());
    return 1;
  }
  std::set<std::string> distinct;
  for (const auto& k : program->kernels) distinct.insert(k.name);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "%zu instructions, target %s%s: parse %.3f s, plan %.3f s, compile "
      "%.3f s (total %.3f s); %zu kernel calls, %zu distinct; source %zu "
      "bytes (%.0f per instruction); peak RSS %.1f MiB\n",
      count, options.target == ixa::emit::Target::kCuda ? "cuda" : "cpp",
      fuse ? ", fused by fusion_plan" : "", Seconds(t1 - t0), Seconds(t2 - t1),
      Seconds(t3 - t2), Seconds(t3 - t0), program->kernels.size(),
      distinct.size(), program->code.size(),
      static_cast<double>(program->code.size()) / count,
      usage.ru_maxrss / 1024.0);
  return 0;
}
