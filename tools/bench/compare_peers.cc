// ixa against MLIR 14 on the peers' workload (compare_peers.sh), in one
// process, item by item: for every repetition and every item, ixa's
// parse+op and MLIR's parse+op are timed back to back (which one goes first
// alternates between repetitions), and each item keeps its minimum over the
// repetitions. On a shared, noisy machine this compares the two engines at
// the same moments; the sum of per-item minima is the figure reported.
//
//   compare_peers DATA_DIR [--workloads 1,2,3] [--reps N] [--cli IXA]
//                 [--jobs N] [--once ixa|parse|mlir] [--items PREFIX]
//
// DATA_DIR holds gen_workload.py's mlir_w<k>.tsv and score_ixa.py's
// ixa_w<k>.jsonl (the same items in each engine's syntax, same order).
//
// ixa, per item (what `ixa query` does, without JSON): a fresh ExprContext,
//   W1 ParseIndexingMap + Simplify, W2 parse every map + compose in order,
//   through a ChainComposer (as the CLI's compose op), W3 ParseIndexingMap +
//   IsEmpty.
// MLIR, per item: as the peers' mlir_bench.cpp (mlir_peer.h), one
//   MLIRContext per repetition.
//
// --cli IXA: also times the whole process `IXA query ixa_w<k>.jsonl`
//   (stdout to /dev/null) against one in-process batch pass of ixa,
//   alternating, best of the repetitions each; with --jobs N also
//   `IXA query --jobs N`.
// --once SIDE: one pass of one side only, inside the functions
//   CallgrindIxaPass / CallgrindParsePass (ixa's parser alone) /
//   CallgrindMlirPass, for `valgrind --tool=callgrind
//   --toggle-collect=CallgrindIxaPass` (the instruction counts of
//   compare_peers.sh).
// Allocations: every operator new of ixa's items, counted on the first
// repetition (LLVM also allocates through malloc: no MLIR figure).
//
// --items PREFIX: also writes PREFIX.w<k>.tsv, each item's minima (µs):
//   index, ixa, MLIR, ixa's parse.
//
// Output: one JSON object per workload on stdout.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/text.h"
#include "simplifier/compose.h"
#include "simplifier/decide.h"
#include "simplifier/simplify.h"
#include "tools/bench/mlir_peer.h"

extern char** environ;

// ---- allocation counting: every operator new of the process -------------
namespace {
size_t g_allocations = 0;
}  // namespace

void* operator new(size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// One item as ixa sees it: the map texts of the request.
struct IxaItem {
  std::vector<std::string> maps;  // W1, W3: one; W2: the chain
};

std::vector<IxaItem> ReadIxaItems(const std::string& path) {
  std::vector<IxaItem> items;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    IxaItem it;
    if (j.contains("maps")) {
      it.maps = j.at("maps").get<std::vector<std::string>>();
    } else {
      it.maps.push_back(j.at("map").get<std::string>());
    }
    items.push_back(std::move(it));
  }
  return items;
}

// Runs one item; returns 0 for a failure, else 1 (W3: 2 + emptiness).
int RunIxaItem(int workload, const IxaItem& item) {
  ixa::ExprContext ctx;
  auto first = ixa::ParseIndexingMap(item.maps[0], &ctx);
  if (!first.ok()) return 0;
  ixa::IndexingMap acc = std::move(first).value();
  switch (workload) {
    case 1:
      ixa::Simplify(&acc);
      return 1;
    case 2: {
      // As the CLI's compose: a ChainComposer.
      ixa::ChainComposer chain;
      if (!chain.Add(std::move(acc)).ok()) return 0;
      for (size_t i = 1; i < item.maps.size(); ++i) {
        auto m = ixa::ParseIndexingMap(item.maps[i], &ctx);
        if (!m.ok() || !chain.Add(std::move(m).value()).ok()) return 0;
      }
      return chain.Finish().ok() ? 1 : 0;
    }
    default: {
      auto empty = ixa::IsEmpty(acc);
      if (!empty.ok()) return 0;
      return 2 + (*empty ? 1 : 0);
    }
  }
}

// Parses the item's maps only (a fresh ExprContext, as RunIxaItem).
int ParseIxaItem(const IxaItem& item) {
  ixa::ExprContext ctx;
  int parsed = 0;
  for (const std::string& text : item.maps) {
    parsed += ixa::ParseIndexingMap(text, &ctx).ok();
  }
  return parsed;
}

std::vector<int> ReadW3Truth(const std::string& path) {
  std::vector<int> truth;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    size_t last_tab = line.rfind('\t');
    truth.push_back(std::atoi(line.c_str() + last_tab + 1));
  }
  return truth;
}

// Whole-process run of `ixa query [--jobs N] FILE > /dev/null`; seconds, or
// a negative value when the process failed to start or exited abnormally.
double TimeCli(const std::string& ixa, const std::string& file, int jobs) {
  std::vector<std::string> args = {ixa, "query"};
  if (jobs > 1) {
    args.push_back("--jobs");
    args.push_back(std::to_string(jobs));
  }
  args.push_back(file);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  auto t0 = Clock::now();
  int rc =
      posix_spawn(&pid, ixa.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  double t = Seconds(Clock::now() - t0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) return -1;
  return t;
}

}  // namespace

// The measured regions of --once (names for callgrind's --toggle-collect).
extern "C" __attribute__((noinline)) size_t CallgrindIxaPass(
    int workload, const std::vector<IxaItem>* items) {
  size_t sink = 0;
  for (const IxaItem& it : *items) sink += RunIxaItem(workload, it);
  return sink;
}
extern "C" __attribute__((noinline)) size_t CallgrindParsePass(
    const std::vector<IxaItem>* items) {
  size_t sink = 0;
  for (const IxaItem& it : *items) sink += ParseIxaItem(it);
  return sink;
}
extern "C" __attribute__((noinline)) size_t CallgrindMlirPass(
    mlir_peer::Runner* runner) {
  size_t sink = 0;
  for (size_t i = 0; i < runner->size(); ++i) sink += runner->RunItem(i);
  return sink;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: compare_peers DATA_DIR [--workloads 1,2,3] "
                 "[--reps N] [--cli IXA] [--jobs N] [--once ixa|parse|mlir]\n");
    return 64;
  }
  std::string data = argv[1];
  std::string workloads = "1,2,3", once, cli, items_path;
  int reps = 10, jobs = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--workloads") workloads = argv[i + 1];
    if (a == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
    if (a == "--once") once = argv[i + 1];
    if (a == "--cli") cli = argv[i + 1];
    if (a == "--jobs") jobs = std::atoi(argv[i + 1]);
    if (a == "--items") items_path = argv[i + 1];
  }
  int status = 0;
  for (char wc : workloads) {
    if (wc < '1' || wc > '3') continue;
    int w = wc - '0';
    std::string ixa_file = data + "/ixa_w" + std::to_string(w) + ".jsonl";
    std::vector<IxaItem> items = ReadIxaItems(ixa_file);
    auto mlir = mlir_peer::MakeRunner(w, data);
    if (!mlir || items.empty() || mlir->size() != items.size()) {
      std::fprintf(stderr, "W%d: the ixa and MLIR item lists differ\n", w);
      return 66;
    }
    const size_t n = items.size();
    if (!once.empty()) {
      size_t sink = 0;
      if (once == "ixa") {
        sink = CallgrindIxaPass(w, &items);
      } else if (once == "parse") {
        sink = CallgrindParsePass(&items);
      } else {
        mlir->NewContext();
        sink = CallgrindMlirPass(mlir.get());
      }
      std::printf(
          "{\"workload\":\"W%d\",\"side\":\"%s\",\"items\":%zu,"
          "\"sink\":%zu}\n",
          w, once.c_str(), n, sink);
      continue;
    }

    // Alternating per-item timing; allocations counted on the first pass.
    std::vector<double> ixa_best(n, 1e30), mlir_best(n, 1e30),
        parse_best(n, 1e30);
    size_t ixa_allocs = 0;
    int ixa_failures = 0, mlir_failures = 0, ixa_correct = 0;
    std::vector<int> truth =
        w == 3 ? ReadW3Truth(data + "/mlir_w3.tsv") : std::vector<int>();
    for (int rep = 0; rep < reps; ++rep) {
      mlir->NewContext();
      bool ixa_first = rep % 2 == 0;
      for (size_t i = 0; i < n; ++i) {
        auto p0 = Clock::now();
        if (ParseIxaItem(items[i]) == 0) ++ixa_failures;
        parse_best[i] = std::min(parse_best[i], Seconds(Clock::now() - p0));
        for (int side = 0; side < 2; ++side) {
          bool run_ixa = (side == 0) == ixa_first;
          size_t a0 = g_allocations;
          auto t0 = Clock::now();
          int r = run_ixa ? RunIxaItem(w, items[i]) : mlir->RunItem(i);
          double t = Seconds(Clock::now() - t0);
          size_t allocs = g_allocations - a0;  // ixa: every heap allocation
          if (run_ixa) {
            ixa_best[i] = std::min(ixa_best[i], t);
            if (rep == 0) {
              ixa_allocs += allocs;
              ixa_failures += r == 0;
              if (w == 3) ixa_correct += r - 2 == truth[i];
            }
          } else {
            mlir_best[i] = std::min(mlir_best[i], t);
            if (rep == 0) mlir_failures += r == 0;
          }
        }
      }
    }
    if (!items_path.empty()) {
      // Per item: index, ixa us, MLIR us, ixa parse us (minima).
      std::string path = items_path + ".w" + std::to_string(w) + ".tsv";
      if (FILE* f = std::fopen(path.c_str(), "w")) {
        for (size_t i = 0; i < n; ++i) {
          std::fprintf(f, "%zu\t%.3f\t%.3f\t%.3f\n", i, ixa_best[i] * 1e6,
                       mlir_best[i] * 1e6, parse_best[i] * 1e6);
        }
        std::fclose(f);
      }
    }
    double ixa_sum = 0, mlir_sum = 0, parse_sum = 0;
    for (size_t i = 0; i < n; ++i) {
      ixa_sum += ixa_best[i];
      mlir_sum += mlir_best[i];
      parse_sum += parse_best[i];
    }
    nlohmann::ordered_json out;
    out["workload"] = "W" + std::to_string(w);
    out["items"] = n;
    out["reps"] = reps;
    out["ixa_us"] = ixa_sum / n * 1e6;
    out["mlir_us"] = mlir_sum / n * 1e6;
    out["time_ratio"] = ixa_sum / mlir_sum;
    out["ixa_parse_us"] = parse_sum / n * 1e6;
    out["ixa_allocs_per_item"] = static_cast<double>(ixa_allocs) / n;
    out["ixa_failures"] = ixa_failures;
    out["mlir_failures"] = mlir_failures;
    if (w == 3) {
      out["ixa_correct"] = ixa_correct;
      out["mlir_correct"] = mlir->CorrectAnswers();
    }
    if (ixa_failures > 0 || mlir_failures > 0) status = 1;

    if (!cli.empty()) {
      // In-process batch passes against whole processes, alternating.
      double batch = 1e30, whole = 1e30, whole_jobs = 1e30, whole_1 = 1e30;
      for (int rep = 0; rep < reps; ++rep) {
        auto t0 = Clock::now();
        size_t sink = 0;
        for (const IxaItem& it : items) sink += RunIxaItem(w, it);
        batch = std::min(batch, Seconds(Clock::now() - t0));
        if (sink == 0) status = 1;
        double t = TimeCli(cli, ixa_file, 0);
        if (t < 0) status = 1;
        whole = std::min(whole, t < 0 ? 1e30 : t);
        if (jobs > 1) {
          double tj = TimeCli(cli, ixa_file, jobs);
          double t1 = TimeCli(cli, ixa_file, 1);
          if (tj < 0 || t1 < 0) status = 1;
          whole_jobs = std::min(whole_jobs, tj < 0 ? 1e30 : tj);
          whole_1 = std::min(whole_1, t1 < 0 ? 1e30 : t1);
        }
      }
      out["ixa_batch_us"] = batch / n * 1e6;
      out["cli_us"] = whole / n * 1e6;
      out["cli_over_in_process"] = whole / batch;
      if (jobs > 1) {
        out["cli_jobs"] = jobs;
        out["cli_jobs1_us"] = whole_1 / n * 1e6;
        out["cli_jobs_us"] = whole_jobs / n * 1e6;
        out["cli_jobs_speedup"] = whole_1 / whole_jobs;
      }
    }
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
  }
  return status;
}
