// HLO analysis benchmarks (plain main, std::chrono):
//   1. per-op maps of the docs/indexing.md §3 examples per second;
//   2. a generated fusion of 1,000 chained ops (elementwise, reshape,
//      transpose, broadcast, slice) read and analysed end to end;
//   3. a generated module of 10,000 instructions read and analysed;
//   4. a generated module of 100,000 instructions in the forms real dumps
//      use (shapeless tuples, nested operands, metadata, a reduce, dots,
//      custom calls answered unknown): read, the root's per-op maps (what
//      `indexing` does) and the whole computation's maps with partial
//      answers (what `fusion_indexing` does).
//
//   build/bin/bench_hlo            all of them
//   build/bin/bench_hlo --large    only 4 (for /usr/bin/time -v: peak memory)
//   build/bin/bench_hlo --read     only 4's reading
//   build/bin/bench_hlo --write-large FILE   writes 4's module as
//                                  `indexing` and `fusion_indexing` requests
//                                  (the latter also with all_instructions)
//   build/bin/bench_hlo --write-classic FILE 3's module grown to 100,000
//                                  instructions, in forms any reader takes
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/indexing/indexing.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

const std::vector<std::string>& SpecOps() {
  static const std::vector<std::string> ops = {
      "p0 = f32[10,20] parameter(0)\np1 = f32[10,20] parameter(1)\n"
      "ROOT add = f32[10,20] add(p0, p1)",
      "p0 = f32[20] parameter(0)\n"
      "ROOT bc0 = f32[10,20,30] broadcast(p0), dimensions={1}",
      "src = s32[2,2,258] parameter(0)\nof1 = s32[] parameter(1)\n"
      "of2 = s32[] parameter(2)\nof3 = s32[] parameter(3)\n"
      "ROOT ds = dynamic-slice(src, of1, of2, of3), "
      "dynamic_slice_sizes={1,2,32}",
      "operand = f32[33,76,70] parameter(0)\nindices = s32[1806,2] "
      "parameter(1)\nROOT g = f32[1806,7,8,4] gather(operand, indices), "
      "offset_dims={1,2,3}, collapsed_slice_dims={}, start_index_map={0,1}, "
      "index_vector_dim=1, slice_sizes={7,8,4}",
      "p0 = f32[3,12288,6,128] parameter(0)\n"
      "ROOT t = f32[3,6,128,12288] transpose(p0), dimensions={0,2,3,1}",
      "p0 = f32[1,17,9,9] parameter(0)\n"
      "ROOT r = f32[1,17,9,9] reverse(p0), dimensions={1,2}",
      "p0 = f32[10,20,50] parameter(0)\nROOT s = f32[5,3,25] slice(p0), "
      "slice={[5:10:1], [3:20:7], [0:50:2]}",
      "p0 = f32[4,8] parameter(0)\nROOT r = f32[2,4,4] reshape(p0)",
      "p0 = f32[4,8,12] parameter(0)\nROOT r = f32[32,3,4] reshape(p0)",
      "p0 = f32[2,5,7] parameter(0)\np1 = f32[2,11,7] parameter(1)\n"
      "p2 = f32[2,17,7] parameter(2)\nROOT c = f32[2,33,7] "
      "concatenate(p0, p1, p2), dimensions={1}",
      "p0 = f32[4,128,256] parameter(0)\np1 = f32[4,256,64] parameter(1)\n"
      "ROOT d = f32[4,128,64] dot(p0, p1), lhs_batch_dims={0}, "
      "rhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_contracting_dims={1}",
      "p0 = f32[4,4] parameter(0)\np1 = f32[] parameter(1)\n"
      "ROOT p = f32[12,16] pad(p0, p1), padding=1_4_1x4_8_0",
  };
  return ops;
}

void BenchPerOp() {
  std::vector<std::unique_ptr<ixa::hlo::Module>> modules;
  for (const std::string& text : SpecOps()) {
    auto m = ixa::hlo::ParseHloModule(text);
    if (!m.ok()) {
      std::fprintf(stderr, "%s\n", m.error().ToString().c_str());
      return;
    }
    modules.push_back(std::move(m).value());
  }
  int64_t maps = 0;
  auto start = Clock::now();
  int rounds = 0;
  while (Seconds(start, Clock::now()) < 1.0) {
    ixa::ExprContext ctx;
    for (const auto& m : modules) {
      auto r = ixa::ComputeOutputToInputIndexing(*m->entry()->root(), 0, &ctx);
      for (const auto& set : r->indexing_maps) maps += set.size();
    }
    ++rounds;
  }
  double s = Seconds(start, Clock::now());
  std::printf(
      "per-op maps (docs/indexing.md §3 examples): %.0f maps/s (%.0f ops/s)\n",
      maps / s, rounds * modules.size() / s);
}

std::string ChainedFusion(int n) {
  // Cycle of 6 ops: exp, reshape, transpose, broadcast, slice, reshape.
  std::string body = "x0 = f32[8,16] parameter(0)\n";
  std::string prev = "x0";
  for (int i = 1; i <= n; ++i) {
    std::string name = "x" + std::to_string(i);
    switch (i % 6) {
      case 1:
        body += name + " = f32[8,16] exponential(" + prev + ")\n";
        break;
      case 2:
        body += name + " = f32[16,8] reshape(" + prev + ")\n";
        break;
      case 3:
        body +=
            name + " = f32[8,16] transpose(" + prev + "), dimensions={1,0}\n";
        break;
      case 4:
        body +=
            name + " = f32[8,16,2] broadcast(" + prev + "), dimensions={0,1}\n";
        break;
      case 5:
        body += name + " = f32[8,16,1] slice(" + prev +
                "), slice={[0:8], [0:16], [1:2]}\n";
        break;
      case 0:
        body += name + " = f32[8,16] reshape(" + prev + ")\n";
        break;
    }
    prev = name;
  }
  // Make the last op the root with shape f32[8,16].
  body += "ROOT out = f32[8,16] reshape(" + prev + ")\n";
  return body;
}

void BenchChain() {
  std::string text = ChainedFusion(1002);  // whole cycles
  auto t0 = Clock::now();
  auto m = ixa::hlo::ParseHloModule(text);
  auto t1 = Clock::now();
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.error().ToString().c_str());
    return;
  }
  ixa::ExprContext ctx;
  auto region = ixa::RegionOfComputation(*(*m)->entry());
  auto maps = ixa::ComputeFusionParameterIndexing(region, 0, &ctx);
  auto t2 = Clock::now();
  if (!maps.ok()) {
    std::fprintf(stderr, "%s\n", maps.error().ToString().c_str());
    return;
  }
  std::printf(
      "chained fusion of 1003 ops: read %.2f ms, analysed %.2f ms "
      "(%zu map(s) for the parameter), total %.2f ms\n",
      Seconds(t0, t1) * 1e3, Seconds(t1, t2) * 1e3, (*maps)[0].size(),
      Seconds(t0, t2) * 1e3);
}

// A mix of elementwise ops over two running values, with a transpose pair
// every 50 instructions (shapes written, the forms every reader takes).
std::string ClassicModule(int n) {
  std::string text = "HloModule big\nENTRY e {\n";
  text += "a0 = f32[32,32] parameter(0)\na1 = f32[32,32] parameter(1)\n";
  for (int i = 2; i < n; ++i) {
    std::string a = "a" + std::to_string(i);
    std::string p1 = "a" + std::to_string(i - 1),
                p2 = "a" + std::to_string(i - 2);
    if (i % 50 == 0) {
      text +=
          a + " = f32[32,32]{1,0} transpose(" + p1 + "), dimensions={1,0}\n";
    } else if (i % 3 == 0) {
      text += a + " = f32[32,32] negate(" + p1 + ")\n";
    } else {
      text += a + " = f32[32,32] add(" + p1 + ", " + p2 + ")\n";
    }
  }
  text += "ROOT r = f32[32,32] add(a" + std::to_string(n - 1) + ", a" +
          std::to_string(n - 2) + ")\n}\n";
  return text;
}

void BenchLargeModule() {
  // 10,000 instructions.
  std::string text = ClassicModule(10000);
  auto t0 = Clock::now();
  auto m = ixa::hlo::ParseHloModule(text);
  auto t1 = Clock::now();
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.error().ToString().c_str());
    return;
  }
  ixa::ExprContext ctx;
  auto grouped = ixa::ComputeGroupedOutputToInputIndexing(
      ixa::RegionOfComputation(*(*m)->entry()), 0, &ctx);
  auto t2 = Clock::now();
  if (!grouped.ok()) {
    std::fprintf(stderr, "%s\n", grouped.error().ToString().c_str());
    return;
  }
  size_t total = 0;
  for (const auto* i : grouped->order) total += grouped->MapsOf(i).size();
  std::printf(
      "module of 10,001 instructions (%zu bytes): read %.1f ms, "
      "all-instruction maps %.1f ms (%zu maps)\n",
      text.size(), Seconds(t0, t1) * 1e3, Seconds(t1, t2) * 1e3, total);
}

// 100,000 instructions in the forms of real dumps: every 1,000 a reduce
// with a named reducer, every 500 a small dot written without its shape,
// every 250 a tuple / get-tuple-element pair written without shapes, every
// 100 a nested operand, every 333 a custom call of parameter 0 (which
// makes that parameter unknown), metadata on every tenth.
std::string HugeModule(int n) {
  std::string text =
      "HloModule huge\nadd {\n  x = f32[] parameter(0)\n"
      "  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n"
      "}\nENTRY e {\n";
  text += "  a0 = f32[32,32] parameter(0)\n  a1 = f32[32,32] parameter(1)\n";
  text += "  z = f32[] constant(0)\n";
  for (int i = 2; i < n; ++i) {
    std::string a = "a" + std::to_string(i);
    std::string p1 = "a" + std::to_string(i - 1),
                p2 = "a" + std::to_string(i - 2);
    std::string meta =
        i % 10 == 0
            ? ", metadata={op_name=\"jit(f)/op" + std::to_string(i) +
                  "\" source_file=\"f.py\" source_line=" + std::to_string(i) +
                  "}"
            : "";
    if (i % 1000 == 0) {
      text += "  r" + std::to_string(i) + " = f32[32] reduce(" + p1 +
              ", z), dimensions={1}, to_apply=add\n";
      text += "  " + a + " = f32[32,32] broadcast(r" + std::to_string(i) +
              "), dimensions={0}" + meta + "\n";
    } else if (i % 500 == 0) {
      text += "  " + a + " = dot(" + p1 + ", " + p2 +
              "), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
    } else if (i % 333 == 0) {
      // Off the main chain: only a0 is read through it.
      text += "  c" + std::to_string(i) +
              " = f32[32,32] custom-call(a0), custom_call_target=\"kernel\"\n";
      text += "  " + a + " = f32[32,32] add(" + p1 + ", c" + std::to_string(i) +
              ")\n";
    } else if (i % 250 == 0) {
      text += "  t" + std::to_string(i) + " = tuple(" + p1 + ", " + p2 + ")\n";
      text += "  " + a + " = get-tuple-element(t" + std::to_string(i) +
              "), index=1\n";
    } else if (i % 100 == 0) {
      text += "  " + a + " = f32[32,32] add(" + p1 + ", f32[32,32] negate(" +
              p2 + "))" + meta + "\n";
    } else if (i % 50 == 0) {
      text += "  " + a + " = f32[32,32]{0,1} transpose(" + p1 +
              "), dimensions={1,0}\n";
    } else if (i % 3 == 0) {
      text += "  " + a + " = f32[32,32] negate(" + p1 + ")" + meta + "\n";
    } else {
      text +=
          "  " + a + " = f32[32,32] add(" + p1 + ", " + p2 + ")" + meta + "\n";
    }
  }
  text += "  ROOT r = f32[32,32] add(a" + std::to_string(n - 1) + ", a" +
          std::to_string(n - 2) + ")\n}\n";
  return text;
}

void BenchHugeModule() {
  const int n = 100000;
  std::string text = HugeModule(n);
  auto t0 = Clock::now();
  auto m = ixa::hlo::ParseHloModule(text);
  auto t1 = Clock::now();
  if (!m.ok()) {
    std::fprintf(stderr, "%s\n", m.error().ToString().c_str());
    return;
  }
  ixa::ExprContext ctx;
  auto root =
      ixa::ComputeOutputToInputIndexingPartial(*(*m)->entry()->root(), 0, &ctx);
  auto t2 = Clock::now();
  ixa::FusionIndexingOptions options;
  options.allow_unknown = true;
  auto grouped = ixa::ComputeGroupedOutputToInputIndexing(
      ixa::RegionOfComputation(*(*m)->entry()), 0, &ctx, options);
  auto t3 = Clock::now();
  if (!root.ok() || !grouped.ok()) {
    std::fprintf(stderr, "analysis failed\n");
    return;
  }
  size_t total = 0;
  for (const auto* i : grouped->order) total += grouped->MapsOf(i).size();
  std::printf(
      "module of %zu instructions (%zu bytes): read %.1f ms, root's maps "
      "%.3f ms, all-instruction maps %.1f ms (%zu maps, %zu unknown "
      "instructions)\n",
      (*m)->entry()->instructions().size(), text.size(), Seconds(t0, t1) * 1e3,
      Seconds(t1, t2) * 1e3, Seconds(t2, t3) * 1e3, total,
      grouped->unknown.size());
}

// The module as `indexing` and `fusion_indexing` request lines (JSON
// string escaping).
int WriteLargeRequest(const char* path, const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    if (c == '\n') {
      escaped += "\\n";
      continue;
    }
    escaped += c;
  }
  FILE* f = std::fopen(path, "w");
  if (!f) return 1;
  std::fprintf(f, "{\"id\": 1, \"op\": \"indexing\", \"hlo\": \"%s\"}\n",
               escaped.c_str());
  std::fprintf(f, "{\"id\": 2, \"op\": \"fusion_indexing\", \"hlo\": \"%s\"}\n",
               escaped.c_str());
  std::fprintf(f,
               "{\"id\": 3, \"op\": \"fusion_indexing\", "
               "\"all_instructions\": true, \"hlo\": \"%s\"}\n",
               escaped.c_str());
  std::fclose(f);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "--write-large" && argc > 2) {
    return WriteLargeRequest(argv[2], HugeModule(100000));
  }
  if (mode == "--write-classic" && argc > 2) {
    return WriteLargeRequest(argv[2], ClassicModule(100000));
  }
  if (mode == "--large") {
    BenchHugeModule();
    return 0;
  }
  if (mode == "--read") {  // the reader alone, for profiles
    std::string text = HugeModule(100000);
    auto t0 = Clock::now();
    auto m = ixa::hlo::ParseHloModule(text);
    std::printf("read %.1f ms (%s)\n", Seconds(t0, Clock::now()) * 1e3,
                m.ok() ? "ok" : m.error().ToString().c_str());
    return 0;
  }
  BenchPerOp();
  BenchChain();
  BenchLargeModule();
  BenchHugeModule();
  return 0;
}
