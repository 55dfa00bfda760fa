// Symbolic tile benchmark (plain main, std::chrono), the work behind
// `ixa query` tile with tile_instructions "all" and valid_tilings:
//   - every instruction's tile of a 200-instruction fusion (elementwise
//     ops, row broadcasts, transposes and reshapes there and back, row
//     reductions): the analysis (AnalyzeFusionTiling), then per tile what
//     the answer prints (the tile at the sizes, its offsets per block,
//     whether its constraints are satisfiable);
//   - valid_tilings over a rank-4 softmax f32[8,16,32,1024] (the powers of
//     two of every dim), plain and read through a reshape from
//     f32[128,32768] (a collapse: constraints to evaluate).
// Each is run `repeats` times on a fresh context; the median is reported.
//
//   build/bin/bench_tiles [repeats, default 20]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/uses/tile_analysis.h"
#include "analysis/uses/tile_constraints.h"

namespace {

using Clock = std::chrono::steady_clock;

double Milliseconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

constexpr const char* kReducers =
    "add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
    " ROOT s = f32[] add(a, b) }\n"
    "max { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
    " ROOT m = f32[] maximum(a, b) }\n";

// A chain of `count` instructions over f32[64,256].
std::string ChainFusion(int count) {
  const std::string s = "f32[64,256]", t = "f32[256,64]";
  std::string body =
      " p0 = f32[64,256] parameter(0)\n p1 = f32[64,256] parameter(1)\n"
      " p2 = f32[256] parameter(2)\n z = f32[] constant(0)\n";
  int made = 4;
  std::string x = "p0";
  auto add = [&](const std::string& name, const std::string& text) {
    body += " " + name + " = " + text + "\n";
    x = name;
    ++made;
  };
  for (int i = 0; made < count - 1; ++i) {
    const std::string n = "i" + std::to_string(i);
    switch (i % 8) {
      case 0:
        add(n, s + " add(" + x + ", p1)");
        break;
      case 1:
        add(n, s + " exponential(" + x + ")");
        break;
      case 2: {
        const std::string in = x;
        add(n + "b", s + " broadcast(p2), dimensions={1}");
        add(n, s + " multiply(" + in + ", " + n + "b)");
        break;
      }
      case 3:
        add(n + "t", t + " transpose(" + x + "), dimensions={1,0}");
        add(n, s + " transpose(" + x + "), dimensions={1,0}");
        break;
      case 4:
        add(n + "r", "f32[16384] reshape(" + x + ")");
        add(n, s + " reshape(" + x + ")");
        break;
      case 5: {
        const std::string in = x;
        add(n + "s",
            "f32[64] reduce(" + in + ", z), dimensions={1}, " + "to_apply=add");
        add(n + "sb", s + " broadcast(" + x + "), dimensions={0}");
        add(n, s + " divide(" + in + ", " + n + "sb)");
        break;
      }
      case 6:
        add(n, s + " negate(" + x + ")");
        break;
      default:
        add(n, s + " subtract(" + x + ", p0)");
        break;
    }
  }
  body += " ROOT out = " + s + " tanh(" + x + ")\n";
  return std::string("HloModule m\n") + kReducers + "ENTRY e {\n" + body + "}";
}

// Softmax over the last dim of f32[8,16,32,1024]; `through_reshape` reads
// the input as f32[128,32768].
std::string Softmax(bool through_reshape) {
  const std::string s = "f32[8,16,32,1024]", r = "f32[8,16,32]";
  std::string body =
      through_reshape
          ? " q = f32[128,32768] parameter(0)\n p = " + s + " reshape(q)\n"
          : " p = " + s + " parameter(0)\n";
  body += " ninf = f32[] constant(-inf)\n m = " + r +
          " reduce(p, ninf), dimensions={3}, to_apply=max\n mb = " + s +
          " broadcast(m), dimensions={0,1,2}\n x = " + s +
          " subtract(p, mb)\n e = " + s + " exponential(x)\n z = f32[] " +
          "constant(0)\n t = " + r +
          " reduce(e, z), dimensions={3}, to_apply=add\n tb = " + s +
          " broadcast(t), dimensions={0,1,2}\n ROOT d = " + s +
          " divide(e, tb)\n";
  return std::string("HloModule m\n") + kReducers + "ENTRY e {\n" + body + "}";
}

std::unique_ptr<ixa::hlo::Module> Parse(const std::string& text) {
  auto m = ixa::hlo::ParseHloModule(text);
  if (!m.ok()) {
    std::fprintf(stderr, "parse: %s\n", m.error().ToString().c_str());
    std::exit(1);
  }
  return std::move(m).value();
}

void BenchEveryInstruction(int repeats) {
  auto module = Parse(ChainFusion(200));
  auto region = ixa::ResolveFusion(*module, "");
  const std::vector<int64_t> sizes = {16, 64};
  std::vector<double> analysis_ms, answer_ms;
  size_t instructions = 0, tiles = 0, maps = 0;
  for (int r = 0; r < repeats; ++r) {
    ixa::ExprContext ctx;
    auto t0 = Clock::now();
    auto tiling = ixa::AnalyzeFusionTiling(*region, {}, &ctx);
    auto t1 = Clock::now();
    if (!tiling.ok()) {
      std::fprintf(stderr, "%s\n", tiling.error().ToString().c_str());
      std::exit(1);
    }
    tiles = maps = 0;
    for (const ixa::TiledInstruction& ti : tiling->instructions) {
      for (const ixa::InstructionTile& t : ti.tiles) {
        ++maps;
        if (!t.tile) continue;
        ++tiles;
        auto c = ixa::EvaluateTile(*t.tile, sizes, true);
        auto offsets = ixa::TileOffsetsMap(*t.tile, sizes);
        auto sat = ixa::DecideTileSatisfiability(t.tile->constraints,
                                                 t.tile->extents, &ctx);
        if (!c.ok() || !offsets.ok() || !sat.satisfiable.value_or(false)) {
          std::fprintf(stderr, "tile of %s failed\n", ti.name.c_str());
          std::exit(1);
        }
      }
    }
    auto t2 = Clock::now();
    instructions = tiling->instructions.size();
    analysis_ms.push_back(Milliseconds(t0, t1));
    answer_ms.push_back(Milliseconds(t1, t2));
  }
  std::printf(
      "every instruction: %zu instructions, %zu distinct tiles (%zu maps)\n"
      "  analysis %.2f ms, tiles at sizes [16, 64] %.2f ms, total %.2f ms "
      "(median of %d)\n",
      instructions, tiles, maps, Median(analysis_ms), Median(answer_ms),
      Median(analysis_ms) + Median(answer_ms), repeats);
}

void BenchValidTilings(bool through_reshape, int repeats) {
  auto module = Parse(Softmax(through_reshape));
  auto region = ixa::ResolveFusion(*module, "");
  std::vector<double> analysis_ms, enumerate_ms;
  int64_t tried = 0, count = 0;
  size_t clauses = 0;
  for (int r = 0; r < repeats; ++r) {
    ixa::ExprContext ctx;
    auto t0 = Clock::now();
    auto tiling = ixa::AnalyzeFusionTiling(*region, {}, &ctx);
    auto t1 = Clock::now();
    if (!tiling.ok() || !tiling->no_tiling.empty()) {
      std::fprintf(stderr, "softmax: no tiling\n");
      std::exit(1);
    }
    auto valid = ixa::EnumerateValidTilings(
        *tiling, ixa::PowerOfTwoCandidates(*tiling, {}), {}, 1000);
    auto t2 = Clock::now();
    if (!valid.ok()) {
      std::fprintf(stderr, "%s\n", valid.error().ToString().c_str());
      std::exit(1);
    }
    tried = valid->tried;
    count = valid->count;
    clauses = tiling->constraints.size();
    analysis_ms.push_back(Milliseconds(t0, t1));
    enumerate_ms.push_back(Milliseconds(t1, t2));
  }
  std::printf(
      "valid_tilings, rank-4 softmax%s: %lld of %lld candidates valid, %zu "
      "clauses\n  analysis %.2f ms, enumeration %.2f ms, total %.2f ms "
      "(median of %d)\n",
      through_reshape ? " through a reshape" : "",
      static_cast<long long>(count), static_cast<long long>(tried), clauses,
      Median(analysis_ms), Median(enumerate_ms),
      Median(analysis_ms) + Median(enumerate_ms), repeats);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  BenchEveryInstruction(repeats);
  BenchValidTilings(false, repeats);
  BenchValidTilings(true, repeats);
  return 0;
}
