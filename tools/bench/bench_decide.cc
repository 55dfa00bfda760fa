// W3 of the peers' workload (tools/bench/compare_peers.sh): 500 emptiness
// systems,
// decided by the exact procedure (simplifier/decide.h), against ground
// truth. Input: the TSV written by tools/bench/w3_to_maps.py.
//
//   bench_decide W3_MAPS.tsv [repetitions]
//
// Prints parse and is_empty µs/item (best of the repetitions, as the peer
// harnesses do), a per-item latency distribution, correctness, and for
// comparison the brute-force enumeration time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/decide.h"

namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

struct Item {
  std::string id;
  std::string text;
  bool empty;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s W3_MAPS.tsv [repetitions]\n", argv[0]);
    return 64;
  }
  int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 66;
  }
  std::vector<Item> items;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    Item it;
    std::string gt;
    std::getline(fields, it.id, '\t');
    std::getline(fields, it.text, '\t');
    std::getline(fields, gt, '\t');
    it.empty = gt == "1";
    items.push_back(std::move(it));
  }
  const double n = static_cast<double>(items.size());

  double best_parse = 1e300, best_op = 1e300, best_brute = 1e300;
  // Per item, the best is_empty time over the repetitions: robust against
  // preemption on a shared machine, where one time slice lost in the batch
  // loop adds milliseconds.
  std::vector<double> item_best(items.size(), 1e300);
  int correct = 0, errors = 0;
  std::vector<double> latency;
  for (int rep = 0; rep < reps; ++rep) {
    ixa::ExprContext ctx;
    std::vector<ixa::IndexingMap> maps;
    maps.reserve(items.size());
    auto t0 = Clock::now();
    for (const Item& it : items) {
      auto m = ixa::ParseIndexingMap(it.text, &ctx);
      if (!m.ok()) {
        std::fprintf(stderr, "%s: %s\n", it.id.c_str(),
                     m.error().ToString().c_str());
        return 1;
      }
      maps.push_back(std::move(*m));
    }
    auto t1 = Clock::now();
    std::vector<char> answers(items.size(), 0);
    int errs = 0;
    for (size_t i = 0; i < maps.size(); ++i) {
      auto s = Clock::now();
      auto r = ixa::IsEmpty(maps[i]);
      item_best[i] = std::min(item_best[i], Micros(Clock::now() - s));
      if (r.ok()) {
        answers[i] = *r ? 1 : 0;
      } else {
        answers[i] = 2;
        ++errs;
      }
    }
    auto t2 = Clock::now();
    for (const auto& m : maps) (void)ixa::IsEmptyByEnumeration(m);
    auto t3 = Clock::now();
    best_parse = std::min(best_parse, Micros(t1 - t0));
    best_op = std::min(best_op, Micros(t2 - t1));
    best_brute = std::min(best_brute, Micros(t3 - t2));
    if (rep == reps - 1) {
      errors = errs;
      for (size_t i = 0; i < items.size(); ++i) {
        if (answers[i] == (items[i].empty ? 1 : 0)) {
          ++correct;
        } else {
          std::fprintf(stderr, "WRONG %s: %s (expected %s)\n",
                       items[i].id.c_str(),
                       answers[i] == 2 ? "error"
                       : answers[i]    ? "empty"
                                       : "non-empty",
                       items[i].empty ? "empty" : "non-empty");
        }
      }
      // Per-item latency of parse + is_empty, one more pass.
      ixa::ExprContext ctx2;
      for (const Item& it : items) {
        auto s = Clock::now();
        auto m = ixa::ParseIndexingMap(it.text, &ctx2);
        auto r = ixa::IsEmpty(*m);
        (void)r;
        latency.push_back(Micros(Clock::now() - s));
      }
    }
  }
  std::sort(latency.begin(), latency.end());
  auto pct = [&](double p) {
    return latency[std::min(latency.size() - 1,
                            static_cast<size_t>(p * latency.size()))];
  };
  std::printf("W3 emptiness: %zu items, correct %d/%zu, errors %d\n",
              items.size(), correct, items.size(), errors);
  std::printf("  parse     %8.2f us/item\n", best_parse / n);
  std::printf("  is_empty  %8.2f us/item (exact procedure, batch loop)\n",
              best_op / n);
  double sum_best = 0;
  for (double t : item_best) sum_best += t;
  std::printf("  is_empty  %8.2f us/item (mean of per-item best)\n",
              sum_best / n);
  std::printf("  brute     %8.2f us/item (enumeration, for comparison)\n",
              best_brute / n);
  std::printf(
      "  parse+is_empty latency p50 %.2f p90 %.2f p99 %.2f max %.2f us\n",
      pct(0.5), pct(0.9), pct(0.99), latency.back());
  std::printf(
      "{\"workload\":\"W3\",\"items\":%zu,\"correct\":%d,\"errors\":%d,"
      "\"parse_us_per_item\":%.3f,\"op_us_per_item\":%.3f,"
      "\"op_us_per_item_best\":%.3f,\"brute_us_per_item\":%.3f}\n",
      items.size(), correct, errors, best_parse / n, best_op / n, sum_best / n,
      best_brute / n);
  return correct == static_cast<int>(items.size()) ? 0 : 1;
}
