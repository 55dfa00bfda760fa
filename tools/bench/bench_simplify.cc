// W1 simplify benchmark over the peers' workload (see
// tools/bench/compare_peers.sh). Input: the output of
// tools/bench/workload_to_text.py, one map per line.
//
//   bench_simplify w1.txt [--misses] [--reps N] [--timing-only]
//
// Reports parse and parse+simplify time per item (best of N passes, each
// with a fresh ExprContext per item as a query would have), the fraction of
// results that are affine on their domain and come back div/mod-free, the
// non-affine results at or below the reference op count, and checks every
// simplified map against the original by enumeration.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/simplify.h"

namespace {

struct Item {
  std::string id;
  std::string text;
  std::vector<int> affine;
  std::vector<int> ref_ops;
};

std::vector<int> SplitInts(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) out.push_back(std::stoi(part));
  return out;
}

std::vector<Item> ReadItems(const char* path) {
  std::ifstream in(path);
  std::vector<Item> items;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, '\t')) fields.push_back(f);
    if (fields.size() < 4) continue;
    items.push_back(
        {fields[0], fields[1], SplitInts(fields[2]), SplitInts(fields[3])});
  }
  return items;
}

double NowSeconds() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_simplify w1.txt [--misses] [--reps N]\n";
    return 2;
  }
  bool show_misses = false;
  bool timing_only = false;
  int reps = 5;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--misses") show_misses = true;
    if (a == "--timing-only") timing_only = true;
    if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  std::vector<Item> items = ReadItems(argv[1]);
  if (items.empty()) {
    std::cerr << "no items in " << argv[1] << "\n";
    return 2;
  }

  // Timing: parse all items (a fresh ExprContext each, as a query has),
  // then simplify all of them; best pass of `reps`.
  double best_parse = 1e30, best_simplify = 1e30;
  size_t sink = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<std::unique_ptr<ixa::ExprContext>> contexts;
    std::vector<ixa::IndexingMap> maps;
    contexts.reserve(items.size());
    maps.reserve(items.size());
    double t0 = NowSeconds();
    for (const Item& it : items) {
      contexts.push_back(std::make_unique<ixa::ExprContext>());
      auto m = ixa::ParseIndexingMap(it.text, contexts.back().get());
      if (m.ok()) maps.push_back(std::move(*m));
    }
    double t1 = NowSeconds();
    for (ixa::IndexingMap& m : maps) sink += ixa::Simplify(&m).changed;
    double t2 = NowSeconds();
    best_parse = std::min(best_parse, t1 - t0);
    best_simplify = std::min(best_simplify, t2 - t1);
  }
  double best_total = best_parse + best_simplify;

  double n = static_cast<double>(items.size());
  std::printf("items: %zu  (sink %zu)\n", items.size(), sink);
  std::printf("parse:            %.3f us/item\n", best_parse / n * 1e6);
  std::printf("simplify:         %.3f us/item\n", best_simplify / n * 1e6);
  std::printf("parse+simplify:   %.3f us/item\n", best_total / n * 1e6);
  if (timing_only) return 0;

  // Quality and correctness.
  int affine = 0, affine_free = 0, nonaffine = 0, nonaffine_ok = 0;
  int mismatches = 0, parse_errors = 0, exhausted = 0;
  for (const Item& it : items) {
    ixa::ExprContext ctx;
    auto parsed = ixa::ParseIndexingMap(it.text, &ctx);
    if (!parsed.ok()) {
      ++parse_errors;
      std::cerr << it.id << ": parse error " << parsed.error().ToString()
                << "\n";
      continue;
    }
    ixa::IndexingMap m = *parsed;
    auto res = ixa::Simplify(&m);
    exhausted += res.budget_exhausted;
    auto eq = ixa::EquivalentByEnumeration(*parsed, m);
    if (!eq.ok() || !eq->equivalent) {
      ++mismatches;
      std::cerr << it.id << ": MISMATCH " << it.text << "\n  -> "
                << ixa::PrintIndexingMap(m) << "\n";
    }
    for (int i = 0; i < m.num_results(); ++i) {
      int ops = ixa::CountDivMod(m.results()[i]);
      if (it.affine[i]) {
        ++affine;
        if (ops == 0) {
          ++affine_free;
        } else if (show_misses) {
          std::cout << "miss " << it.id << " r" << i << ": "
                    << ixa::PrintExpr(parsed->results()[i], *parsed) << "  ->  "
                    << ixa::PrintExpr(m.results()[i], m) << "   ["
                    << it.text.substr(it.text.find("domain:")) << "]\n";
        }
      } else {
        ++nonaffine;
        if (ops <= it.ref_ops[i]) {
          ++nonaffine_ok;
        } else if (show_misses) {
          std::cout << "over " << it.id << " r" << i << ": "
                    << ixa::PrintExpr(parsed->results()[i], *parsed) << "  ->  "
                    << ixa::PrintExpr(m.results()[i], m) << " (ref ops "
                    << it.ref_ops[i] << ")\n";
        }
      }
    }
  }
  std::printf("affine results div/mod-free: %d/%d (%.2f%%)\n", affine_free,
              affine, 100.0 * affine_free / std::max(affine, 1));
  std::printf("non-affine results at or below reference ops: %d/%d (%.2f%%)\n",
              nonaffine_ok, nonaffine,
              100.0 * nonaffine_ok / std::max(nonaffine, 1));
  std::printf("mismatches: %d  parse errors: %d  budget exhausted: %d\n",
              mismatches, parse_errors, exhausted);
  return mismatches == 0 && parse_errors == 0 ? 0 : 1;
}
