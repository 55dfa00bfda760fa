// Core benchmarks: maps parsed + printed per second, and the memory cost of
// an expression node (ExprContext::bytes_allocated() / num_nodes()).
//
//   build/bin/bench_core                      (Google Benchmark when found)
//   build/bin/bench_core --benchmark_filter=ParsePrint
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/expr.h"
#include "core/text.h"

#ifdef IXA_HAVE_GBENCH
#include <benchmark/benchmark.h>
#endif

namespace {

// A mix of the documented maps (docs/indexing.md): small per-op maps, emitter
// maps with named variables, maps with constraints and runtime variables.
const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> corpus = {
      "(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2), domain: d0 in [0, 9], "
      "d1 in [0, 19], s0 in [0, 3], d0 + s0 in [0, 10]",
      "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain: "
      "d0 in [5, 9], d1 in [3, 17], d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], "
      "d2 mod 2 in [0, 0]",
      "(d0, d1) -> (d0 floordiv 2, d1 floordiv 4 + (d0 mod 2) * 2, d1 mod 4), "
      "domain: d0 in [0, 3], d1 in [0, 7]",
      "(th_x, bl_x)[vector_index] -> (bl_x floordiv 4096, (bl_x floordiv 8) "
      "mod 512, (bl_x mod 8) * 512 + th_x * 4 + vector_index), domain: "
      "th_x in [0, 127], bl_x in [0, 24575], vector_index in [0, 3]",
      "(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2), domain: "
      "d0 in [0, 0], d1 in [0, 1], d2 in [0, 31], rt0 in [0, 1], rt1 in [0, "
      "0], "
      "rt2 in [0, 226]",
      "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 100, ((d0 * 100 + "
      "d1 * 10 + d2) mod 100) floordiv 10, d2 mod 10), domain: d0 in [0, 9], "
      "d1 in [0, 9], d2 in [0, 9]",
      "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3), domain: d0 in [0, 0], "
      "d1 in [0, 16], d2 in [0, 8], d3 in [0, 8]",
      "(d0, d1)[s0] -> (d0, d1 + s0), domain: d0 in [0, 1023], d1 in [0, 2], "
      "s0 in [0, 511]",
  };
  return corpus;
}

size_t CorpusBytes() {
  size_t n = 0;
  for (const std::string& s : Corpus()) n += s.size();
  return n;
}

// One pass over the corpus in a fresh context; returns the printed size so
// the work cannot be optimized away.
size_t ParsePrintOnce(ixa::ExprContext* ctx) {
  size_t out = 0;
  for (const std::string& s : Corpus()) {
    auto m = ixa::ParseIndexingMap(s, ctx);
    if (!m.ok()) std::abort();
    out += ixa::PrintIndexingMap(*m).size();
  }
  return out;
}

// Memory per node after parsing the corpus once and then `distinct` maps
// with distinct constants (so hash-consing cannot share their nodes).
void NodeCost(int distinct, size_t* nodes, size_t* bytes) {
  ixa::ExprContext ctx;
  for (const std::string& s : Corpus()) (void)ixa::ParseIndexingMap(s, &ctx);
  for (int i = 0; i < distinct; ++i) {
    std::string text = "(d0, d1)[s0] -> (d0 * " + std::to_string(i + 100) +
                       " + d1 floordiv " + std::to_string(i + 200000) +
                       ", s0 mod " + std::to_string(i + 400000) + ")";
    (void)ixa::ParseIndexingMap(text, &ctx);
  }
  *nodes = ctx.num_nodes();
  *bytes = ctx.bytes_allocated();
}

}  // namespace

#ifdef IXA_HAVE_GBENCH

static void BM_ParsePrint(benchmark::State& state) {
  size_t sink = 0;
  for (auto _ : state) {
    ixa::ExprContext ctx;
    sink += ParsePrintOnce(&ctx);
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * Corpus().size());
  state.SetBytesProcessed(state.iterations() * CorpusBytes());
  state.counters["maps_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * Corpus().size()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParsePrint);

// Parse + print in one long-lived context (the hash-consed nodes are reused).
static void BM_ParsePrintSharedContext(benchmark::State& state) {
  ixa::ExprContext ctx;
  size_t sink = 0;
  for (auto _ : state) sink += ParsePrintOnce(&ctx);
  benchmark::DoNotOptimize(sink);
  state.counters["maps_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * Corpus().size()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParsePrintSharedContext);

static void BM_BytesPerNode(benchmark::State& state) {
  size_t nodes = 0, bytes = 0;
  for (auto _ : state)
    NodeCost(static_cast<int>(state.range(0)), &nodes, &bytes);
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["bytes_per_node"] =
      nodes ? static_cast<double>(bytes) / static_cast<double>(nodes) : 0;
}
BENCHMARK(BM_BytesPerNode)
    ->Arg(0)
    ->Arg(1000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

#else  // Without Google Benchmark: a plain timing loop.

int main() {
  using Clock = std::chrono::steady_clock;
  size_t sink = 0, maps = 0;
  auto start = Clock::now();
  double seconds = 0;
  while (seconds < 1.0) {
    ixa::ExprContext ctx;
    sink += ParsePrintOnce(&ctx);
    maps += Corpus().size();
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  std::printf("parse+print: %.0f maps/s (%zu)\n", maps / seconds, sink % 10);
  for (int copies : {0, 1000, 20000}) {
    size_t nodes = 0, bytes = 0;
    NodeCost(copies, &nodes, &bytes);
    std::printf("nodes %zu, bytes %zu, bytes/node %.1f\n", nodes, bytes,
                nodes ? double(bytes) / double(nodes) : 0.0);
  }
  return 0;
}

#endif
