// Code generation benchmarks (plain main, std::chrono):
//   1. generation time per fusion (plan + lower through every stage +
//      print), median over the random fusion set of the tests, per target;
//   2. the `cpp` kernels of the two worked examples of docs/emitters.md
//      (GELU bf16[6,512,4096], exp-transpose-abs f32[20,160,170]) run on
//      the CPU against a naive reference loop compiled with the same flags
//      (g++ -std=c++17 -O2), both single-threaded.
//
//   build/bin/bench_emit [repetitions]
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_random_fusions.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

const char kGelu[] = R"(HloModule gelu

gelu {
  x = bf16[6,512,4096] parameter(0)
  half = bf16[] constant(0.5)
  one = bf16[] constant(1)
  k0 = bf16[] constant(0.797885)
  k1 = bf16[] constant(0.044715)
  h = bf16[6,512,4096] broadcast(half), dimensions={}
  o = bf16[6,512,4096] broadcast(one), dimensions={}
  c0 = bf16[6,512,4096] broadcast(k0), dimensions={}
  c1 = bf16[6,512,4096] broadcast(k1), dimensions={}
  x2 = bf16[6,512,4096] multiply(x, x)
  x3 = bf16[6,512,4096] multiply(x2, x)
  t0 = bf16[6,512,4096] multiply(c1, x3)
  t1 = bf16[6,512,4096] add(x, t0)
  t2 = bf16[6,512,4096] multiply(c0, t1)
  t3 = bf16[6,512,4096] tanh(t2)
  t4 = bf16[6,512,4096] add(o, t3)
  t5 = bf16[6,512,4096] multiply(h, t4)
  ROOT y = bf16[6,512,4096] multiply(x, t5)
}

ENTRY main {
  p = bf16[6,512,4096] parameter(0)
  ROOT f = bf16[6,512,4096] fusion(p), kind=kLoop, calls=gelu
}
)";

const char kTranspose[] = R"(
p = f32[20,160,170] parameter(0)
e = f32[20,160,170] exponential(p)
t = f32[170,160,20] transpose(e), dimensions={2,1,0}
ROOT a = f32[170,160,20] abs(t)
)";

// The naive loops, compiled with the generated kernels (same flags).
const char kReference[] = R"(
#include <cmath>
#include <cstdint>
#include <cstring>
static float bf(uint16_t h) { uint32_t u = uint32_t(h) << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t tobf(float f) {
  uint32_t u; memcpy(&u, &f, 4);
  if (f != f) return uint16_t((u >> 16) | 0x40);
  return uint16_t((uint64_t(u) + 0x7fff + ((u >> 16) & 1)) >> 16);
}
static float r(float f) { return bf(tobf(f)); }
extern "C" void gelu_reference(void* const* b) {
  const uint16_t* x = static_cast<const uint16_t*>(b[0]);
  uint16_t* y = static_cast<uint16_t*>(b[1]);
  const float h = r(0.5f), o = r(1.0f), c0 = r(0.797885f), c1 = r(0.044715f);
  for (int64_t i = 0; i < int64_t(6) * 512 * 4096; ++i) {
    float v = bf(x[i]);
    float x3 = r(r(v * v) * v);
    float t = r(std::tanh(r(c0 * r(v + r(c1 * x3)))));
    y[i] = tobf(r(v * r(h * r(o + t))));
  }
}
extern "C" void transpose_reference(void* const* b) {
  const float* in = static_cast<const float*>(b[0]);
  float* out = static_cast<float*>(b[1]);
  for (int64_t i = 0; i < 20; ++i)
    for (int64_t j = 0; j < 160; ++j)
      for (int64_t k = 0; k < 170; ++k)
        out[(k * 160 + j) * 20 + i] = std::fabs(std::exp(in[(i * 160 + j) * 170 + k]));
}
)";

struct Emitted {
  bool ok = false;
  std::string code;
  std::string error;
};

Emitted Emit(const std::string& hlo, ixa::emit::Target target,
             const std::string& kernel, double* seconds) {
  Emitted out;
  auto t0 = Clock::now();
  auto module = ixa::hlo::ParseHloModule(hlo);
  if (!module.ok()) {
    out.error = module.error().ToString();
    return out;
  }
  auto region = ixa::ResolveFusion(**module, "");
  if (!region.ok()) {
    out.error = region.error().ToString();
    return out;
  }
  ixa::ExprContext ctx;
  ixa::emit::EmitOptions options;
  options.target = target;
  options.kernel_name = kernel;
  auto r = ixa::emit::EmitFusion(*region, *ixa::hw::FindDevice("h100"), options,
                                 &ctx);
  if (seconds) *seconds = Seconds(t0, Clock::now());
  if (!r.ok()) {
    out.error = r.error().ToString();
    return out;
  }
  out.ok = true;
  out.code = r->code;
  return out;
}

void GenerationTimes() {
  using ixa::emit_test::AllTargetKinds;
  using ixa::emit_test::GenerateFusion;
  for (ixa::emit::Target target :
       {ixa::emit::Target::kCpp, ixa::emit::Target::kCuda,
        ixa::emit::Target::kMlir}) {
    std::vector<double> times;
    int failed = 0;
    for (auto kind : AllTargetKinds()) {
      for (int seed = 0; seed < 12; ++seed) {
        double s = 0;
        Emitted e = Emit(GenerateFusion(kind, seed).hlo, target, "k", &s);
        if (e.ok) {
          times.push_back(s);
        } else {
          ++failed;
        }
      }
    }
    std::printf(
        "generation %-4s: median %.2f ms per fusion over %zu fusions "
        "(min %.2f, max %.2f; %d not generated)\n",
        ixa::emit::TargetName(target), 1e3 * Median(times), times.size(),
        times.empty() ? 0 : 1e3 * *std::min_element(times.begin(), times.end()),
        times.empty() ? 0 : 1e3 * *std::max_element(times.begin(), times.end()),
        failed);
  }
}

using Kernel = void (*)(void* const*);

double TimeKernel(Kernel k, void* const* buffers, int reps) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    auto a = Clock::now();
    k(buffers);
    t.push_back(Seconds(a, Clock::now()));
  }
  return Median(t);
}

void RunTimes(int reps) {
  double g = 0, tr = 0;
  Emitted gelu = Emit(kGelu, ixa::emit::Target::kCpp, "gelu_generated", &g);
  Emitted trans =
      Emit(kTranspose, ixa::emit::Target::kCpp, "transpose_generated", &tr);
  if (!gelu.ok || !trans.ok) {
    std::printf("emission failed: %s %s\n", gelu.error.c_str(),
                trans.error.c_str());
    return;
  }
  char dir[] = "/tmp/ixa_bench_emit_XXXXXX";
  if (!mkdtemp(dir)) return;
  std::string base = dir;
  std::ofstream(base + "/a.cc") << "namespace ga {\n" << gelu.code << "}\n";
  std::ofstream(base + "/b.cc") << "namespace gb {\n" << trans.code << "}\n";
  std::ofstream(base + "/c.cc") << kReference;
  std::string cmd =
      "cd " + base +
      " && g++ -std=c++17 -O2 -fPIC -shared -include cmath -include cstdint "
      "-include cstring -include type_traits a.cc b.cc c.cc -o k.so";
  if (std::system(cmd.c_str()) != 0) {
    std::printf("compilation failed (%s)\n", base.c_str());
    return;
  }
  void* so = dlopen((base + "/k.so").c_str(), RTLD_NOW);
  if (!so) return;
  auto sym = [&](const char* n) {
    return reinterpret_cast<Kernel>(dlsym(so, n));
  };
  const int64_t n_gelu = int64_t(6) * 512 * 4096;
  std::vector<uint16_t> gx(n_gelu), gy(n_gelu);
  for (int64_t i = 0; i < n_gelu; ++i)
    gx[i] = uint16_t(0x3f00 + (i * 7919) % 512);
  void* gb[] = {gx.data(), gy.data()};
  double gen = TimeKernel(sym("gelu_generated"), gb, reps);
  std::vector<uint16_t> gref(n_gelu);
  void* gr[] = {gx.data(), gref.data()};
  double ref = TimeKernel(sym("gelu_reference"), gr, reps);
  bool same = gy == gref;
  std::printf(
      "gelu bf16[6,512,4096]: generated %.1f ms, naive loop %.1f ms "
      "(ratio %.2f, outputs %s)\n",
      1e3 * gen, 1e3 * ref, gen / ref, same ? "bit-identical" : "DIFFER");
  const int64_t n_t = 20 * 160 * 170;
  std::vector<float> tx(n_t), ty(n_t), tref(n_t);
  for (int64_t i = 0; i < n_t; ++i)
    tx[i] = float((i * 37) % 101) / 50.0f - 1.0f;
  void* tb[] = {tx.data(), ty.data()};
  void* trb[] = {tx.data(), tref.data()};
  double tgen = TimeKernel(sym("transpose_generated"), tb, reps);
  double tnaive = TimeKernel(sym("transpose_reference"), trb, reps);
  std::printf(
      "exp-transpose-abs f32[20,160,170]: generated %.2f ms, naive loop "
      "%.2f ms (ratio %.2f, outputs %s)\n",
      1e3 * tgen, 1e3 * tnaive, tgen / tnaive,
      ty == tref ? "bit-identical" : "DIFFER");
  dlclose(so);
  std::system(("rm -rf " + base).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  GenerationTimes();
  RunTimes(std::max(1, reps));
  return 0;
}
