// W2 compose benchmark over the peers' workload (tools/bench/compare_peers.sh
// says where it comes from): the `compose` requests that the peers'
// score_ixa.py writes (data/ixa_w2.jsonl), timed inside
// the engine, without process start-up or JSON handling.
//
//   bench_compose ixa_w2.jsonl [--reps N]
//
// Per item: parse every map of the chain, compose them in order and
// simplify (ComposeChain: what the CLI's `compose` op does), with a fresh
// ExprContext per item. Reports µs per item split into parse and
// compose+simplify (best of N passes).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/text.h"
#include "simplifier/compose.h"
#include "simplifier/simplify.h"

namespace {

double NowSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_compose ixa_w2.jsonl [--reps N]\n");
    return 64;
  }
  int reps = 5;
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
  }
  std::vector<std::vector<std::string>> chains;
  std::ifstream in(argv[1]);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    chains.push_back(j.at("maps").get<std::vector<std::string>>());
  }
  if (chains.empty()) {
    std::fprintf(stderr, "no items in %s\n", argv[1]);
    return 66;
  }
  double best_parse = 1e30, best_total = 1e30;
  int failures = 0;
  for (int rep = 0; rep < reps; ++rep) {
    double parse_time = 0;
    double start = NowSeconds();
    failures = 0;
    for (const auto& chain : chains) {
      ixa::ExprContext ctx;
      double t0 = NowSeconds();
      std::vector<ixa::IndexingMap> maps;
      for (const std::string& text : chain) {
        auto m = ixa::ParseIndexingMap(text, &ctx);
        if (!m.ok()) break;
        maps.push_back(std::move(m).value());
      }
      parse_time += NowSeconds() - t0;
      if (maps.size() != chain.size()) {
        ++failures;
        continue;
      }
      if (!ixa::ComposeChain(maps).ok()) ++failures;
    }
    double total = NowSeconds() - start;
    best_parse = std::min(best_parse, parse_time);
    best_total = std::min(best_total, total);
  }
  double n = static_cast<double>(chains.size());
  std::printf(
      "W2 compose: %zu items, parse %.1f us/item, parse+compose+simplify "
      "%.1f us/item (best of %d), failures %d\n",
      chains.size(), best_parse * 1e6 / n, best_total * 1e6 / n, reps,
      failures);
  return failures == 0 ? 0 : 1;
}
