// Exact bank conflicts: every answer of AnalyzeBankConflicts against a
// brute-force count written here from the bank model alone (every domain
// point, grouped into warp accesses, words counted per bank and phase),
// with and without the periodicity reduction, and the counterexamples
// re-checked at their lanes.
#include "hw/bank_conflicts.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>

#include "core/enumerate.h"
#include "core/text.h"

namespace ixa::hw {
namespace IXA_UNITY_ID {

struct BruteCount {
  int64_t instances = 0, total = 0, worst = 0, ideal = 0;
};

// The oracle: all domain points, one warp access per (warp, loop values).
BruteCount BruteForce(const IndexingMap& map, int64_t access_bytes) {
  const int64_t phase_lanes = access_bytes <= 4 ? 32 : 128 / access_bytes;
  const int64_t words = access_bytes <= 4 ? 1 : access_bytes / 4;
  // (warp, other dims..., symbols...) -> phase -> bank -> words
  std::map<std::vector<int64_t>,
           std::map<int64_t, std::map<int64_t, std::set<int64_t>>>>
      by_access;
  auto r = ForEachDomainPoint(map, 1 << 22, [&](const Point& p) {
    std::vector<int64_t> key{p.dims[0] / 32};
    key.insert(key.end(), p.dims.begin() + 1, p.dims.end());
    key.insert(key.end(), p.symbols.begin(), p.symbols.end());
    auto v = map.Evaluate(p.dims, p.symbols);
    REQUIRE(v.ok());
    const int64_t lane = p.dims[0] % 32;
    for (int64_t k = 0; k < words; ++k) {
      const int64_t word = (*v)[0] / 4 + k;
      by_access[key][lane / phase_lanes][word % 32].insert(word);
    }
    return true;
  });
  REQUIRE(r.ok());
  BruteCount out;
  for (auto& [key, phases] : by_access) {
    int64_t waves = 0;
    for (auto& [phase, banks] : phases) {
      size_t most = 0;
      for (auto& [bank, ws] : banks) most = std::max(most, ws.size());
      waves += static_cast<int64_t>(most);
    }
    ++out.instances;
    out.total += waves;
    out.ideal += static_cast<int64_t>(phases.size());
    out.worst = std::max(out.worst, waves);
  }
  return out;
}

IndexingMap M(ExprContext& ctx, const std::string& text) {
  auto m = ParseIndexingMap(text, &ctx);
  INFO(text);
  REQUIRE(m.ok());
  return *m;
}

BankConflictReport Analyze(const IndexingMap& map, int64_t element_bytes,
                           int64_t vector_width,
                           BankConflictOptions options = {}) {
  auto r = AnalyzeBankConflicts({map, 0, element_bytes, vector_width},
                                BankModel{}, options);
  INFO((r.ok() ? "" : r.error().message));
  REQUIRE(r.ok());
  return *r;
}

// The counterexample's lanes really ask its bank for distinct words, all
// in its phase.
void CheckCounterexample(const IndexingMap& map, const BankConflictReport& r) {
  if (r.conflict_free) {
    CHECK(!r.counterexample);
    return;
  }
  REQUIRE(r.counterexample);
  const BankCounterexample& ce = *r.counterexample;
  CHECK(ce.lanes.size() >= 2);
  const int64_t phase_lanes = r.access_bytes <= 4 ? 32 : 128 / r.access_bytes;
  std::set<int64_t> distinct;
  for (const BankLaneWord& lw : ce.lanes) {
    std::vector<int64_t> dims{ce.warp * 32 + lw.lane};
    std::vector<int64_t> symbols;
    size_t k = 0;
    for (int d = 1; d < map.num_dims(); ++d)
      dims.push_back(ce.loop_values[k++]);
    for (; k < ce.loop_values.size(); ++k) symbols.push_back(ce.loop_values[k]);
    auto in = map.InDomain(dims, symbols);
    REQUIRE(in.ok());
    CHECK(*in);
    auto v = map.Evaluate(dims, symbols);
    REQUIRE(v.ok());
    const int64_t first = (*v)[0] / 4;
    const int64_t last = first + std::max<int64_t>(1, r.access_bytes / 4) - 1;
    CHECK(lw.word >= first);
    CHECK(lw.word <= last);
    CHECK(lw.word % 32 == ce.bank);
    CHECK(lw.lane / phase_lanes == ce.phase);
    distinct.insert(lw.word);
  }
  CHECK(distinct.size() == ce.lanes.size());
}

void CheckAgainstBruteForce(const IndexingMap& map, int64_t element_bytes,
                            int64_t vector_width) {
  INFO(PrintIndexingMap(map));
  const BruteCount b = BruteForce(map, element_bytes * vector_width);
  BankConflictOptions full;
  full.use_periodicity = false;
  for (const BankConflictOptions& o : {BankConflictOptions{}, full}) {
    BankConflictReport r = Analyze(map, element_bytes, vector_width, o);
    CHECK(r.instances == b.instances);
    CHECK(r.total_wavefronts == b.total);
    CHECK(r.worst == b.worst);
    CHECK(r.ideal_wavefronts == b.ideal);
    CHECK(r.conflict_free == (b.total == b.ideal));
    CheckCounterexample(map, r);
  }
}

TEST_CASE("bank conflicts: the spec's strides", "[hw][banks]") {
  ExprContext ctx;
  // f32 at word stride s: 32 -> 32-way, 33 -> 1, 2 -> 2, 6 -> 2 (gcd),
  // broadcast -> 1.
  for (auto [stride, ways] : std::vector<std::pair<int, int>>{
           {1, 1}, {32, 32}, {33, 1}, {2, 2}, {6, 2}, {0, 1}, {16, 16}}) {
    IndexingMap map = M(ctx, "(d0) -> (d0 * " + std::to_string(stride * 4) +
                                 "), domain: d0 in [0, 31]");
    BankConflictReport r = Analyze(map, 4, 1);
    INFO(stride);
    CHECK(r.worst == ways);
    CHECK(r.instances == 1);
    CHECK(r.conflict_free == (ways == 1));
    CheckAgainstBruteForce(map, 4, 1);
  }
}

TEST_CASE("bank conflicts: the 32x32 transpose tile", "[hw][banks]") {
  ExprContext ctx;
  // 256 threads (8 warps), 4 loop steps: warp w, step i reads column
  // lane of rows 8i + w... written as: row = (t fd 32) + 8 * i, col = t
  // mod 32; the transposed read swaps them.
  const std::string dom = ", domain: d0 in [0, 255], d1 in [0, 3]";
  IndexingMap row_write =
      M(ctx,
        "(d0, d1) -> ((((d0 floordiv 32) + d1 * 8) * 32 + d0 mod 32) * "
        "4)" +
            dom);
  IndexingMap col_read =
      M(ctx,
        "(d0, d1) -> (((d0 mod 32) * 32 + (d0 floordiv 32) + d1 * 8) * "
        "4)" +
            dom);
  IndexingMap col_read_padded =
      M(ctx,
        "(d0, d1) -> (((d0 mod 32) * 33 + (d0 floordiv 32) + d1 * 8) * "
        "4)" +
            dom);
  CHECK(Analyze(row_write, 4, 1).conflict_free);
  BankConflictReport bad = Analyze(col_read, 4, 1);
  CHECK(bad.worst == 32);
  CHECK(bad.total_wavefronts == 32 * 32);
  CHECK(bad.instances == 32);
  CHECK(bad.average == 32.0);
  REQUIRE(bad.counterexample);
  CHECK(bad.counterexample->lanes.size() == 32);
  CHECK(Analyze(col_read_padded, 4, 1).conflict_free);
  for (const IndexingMap* m : {&row_write, &col_read, &col_read_padded})
    CheckAgainstBruteForce(*m, 4, 1);
}

TEST_CASE("bank conflicts: wide accesses are served in phases", "[hw][banks]") {
  ExprContext ctx;
  // float2 contiguous: 2 phases of 16 lanes, one wavefront each.
  IndexingMap v2 = M(ctx, "(d0) -> (d0 * 8), domain: d0 in [0, 31]");
  BankConflictReport r2 = Analyze(v2, 4, 2);
  CHECK(r2.phases == 2);
  CHECK(r2.worst == 2);
  CHECK(r2.conflict_free);
  // float4 contiguous: 4 phases of 8 lanes.
  IndexingMap v4 = M(ctx, "(d0) -> (d0 * 16), domain: d0 in [0, 31]");
  BankConflictReport r4 = Analyze(v4, 4, 4);
  CHECK(r4.phases == 4);
  CHECK(r4.worst == 4);
  CHECK(r4.conflict_free);
  // float4 at a 256-byte stride: each phase's 8 lanes hit the same 4
  // banks: 8 wavefronts per phase.
  IndexingMap s4 = M(ctx, "(d0) -> (d0 * 256), domain: d0 in [0, 31]");
  CHECK(Analyze(s4, 4, 4).worst == 32);
  // Broadcast: all lanes read the same 16 bytes.
  IndexingMap b4 = M(ctx, "(d0) -> (64), domain: d0 in [0, 31]");
  CHECK(Analyze(b4, 16, 1).worst == 4);
  // Half a warp active: the idle phases cost nothing.
  IndexingMap half =
      M(ctx, "(d0) -> (d0 * 16), domain: d0 in [0, 31], d0 mod 32 in [0, 15]");
  BankConflictReport rh = Analyze(half, 4, 4);
  CHECK(rh.worst == 2);
  CHECK(rh.ideal_wavefronts == 2);
  for (auto [m, e, v] : std::vector<std::tuple<IndexingMap*, int, int>>{
           {&v2, 4, 2}, {&v4, 4, 4}, {&s4, 4, 4}, {&b4, 16, 1}, {&half, 4, 4}})
    CheckAgainstBruteForce(*m, e, v);
  // f16 pairs share a word: a broadcast, not a conflict.
  IndexingMap h = M(ctx, "(d0) -> (d0 * 2), domain: d0 in [0, 31]");
  CHECK(Analyze(h, 2, 1).worst == 1);
  CheckAgainstBruteForce(h, 2, 1);
}

TEST_CASE("bank conflicts: bad accesses are refused", "[hw][banks]") {
  ExprContext ctx;
  auto run = [&](const std::string& text, int64_t e, int64_t v) {
    return AnalyzeBankConflicts({M(ctx, text), 0, e, v}, BankModel{});
  };
  // Misaligned float4.
  auto mis = run("(d0) -> (d0 * 16 + 4), domain: d0 in [0, 31]", 4, 4);
  REQUIRE(!mis.ok());
  CHECK(mis.error().message.find("multiple of the access width 16") !=
        std::string::npos);
  CHECK(!run("(d0) -> (d0 * 12), domain: d0 in [0, 31]", 4, 3).ok());
  CHECK(!run("(d0) -> (d0 - 4), domain: d0 in [0, 31]", 4, 1).ok());
  CHECK(!run("(d0) -> (d0, d0), domain: d0 in [0, 31]", 4, 1).ok());
  // Too many instances and no period (max(d1, 7) grows unlike 7): a
  // clear limit error.
  auto huge = AnalyzeBankConflicts(
      {M(ctx,
         "(d0, d1) -> (d0 * 4 + max(d1, 7) * 4), domain: d0 in [0, 31], "
         "d1 in [0, 99999999]"),
       0, 4, 1},
      BankModel{});
  REQUIRE(!huge.ok());
  CHECK(huge.error().code == ErrorCode::kLimitExceeded);
}

TEST_CASE("bank conflicts: periodicity makes huge ranges exact",
          "[hw][banks]") {
  ExprContext ctx;
  // 2^40 loop steps of a padded column read: one period of 32 steps.
  IndexingMap m =
      M(ctx,
        "(d0, d1) -> ((d0 * 33 + d1) * 4), domain: d0 in [0, 1023], "
        "d1 in [0, 1099511627775]");
  BankConflictReport r = Analyze(m, 4, 1);
  CHECK(r.periodic);
  CHECK(r.conflict_free);
  CHECK(r.instances == 32 * (int64_t{1} << 40));
  CHECK(r.evaluated_lanes <= 32 * 32);
  // Swizzle<5,0,5> on a 32x32 f32 tile, 10^9 loop steps: the row d1 mod
  // 32 read along and the column d1 mod 32 read across, both conflict-free.
  auto xor5 = [](const std::string& x, const std::string& y) {
    std::string out = "(" + x + ")";
    for (int j = 0; j < 5; ++j) {
      const std::string p = std::to_string(1 << j);
      const std::string xb = "((" + x + ") floordiv " + p + ")";
      const std::string yb = "((" + y + ") floordiv " + p + ")";
      out += " + ((" + xb + " + " + yb + ") mod 2 - " + xb + " mod 2) * " + p;
    }
    return out;
  };
  const std::string dom = "), domain: d0 in [0, 63], d1 in [0, 999999999]";
  IndexingMap row = M(ctx, "(d0, d1) -> (((d1 mod 32) * 32 + " +
                               xor5("d0 mod 32", "d1 mod 32") + ") * 4" + dom);
  IndexingMap col = M(ctx, "(d0, d1) -> (((d0 mod 32) * 32 + " +
                               xor5("d1 mod 32", "d0 mod 32") + ") * 4" + dom);
  for (const IndexingMap* x : {&row, &col}) {
    BankConflictReport rx = Analyze(*x, 4, 1);
    CHECK(rx.periodic);
    CHECK(rx.conflict_free);
    CHECK(rx.instances == 2 * int64_t{1000000000});
  }
  // The same column read without the swizzle: 32-way, found in the first
  // period.
  IndexingMap plain =
      M(ctx, "(d0, d1) -> (((d0 mod 32) * 32 + d1 mod 32) * 4" + dom);
  CHECK(Analyze(plain, 4, 1).worst == 32);
}

TEST_CASE("bank conflicts: the periodic path equals full enumeration",
          "[hw][banks]") {
  ExprContext ctx;
  // Mid-size ranges where the period is found and full enumeration is
  // still affordable.
  for (const std::string text :
       {"(d0, d1) -> ((d0 * 33 + d1 * 5 + (d1 floordiv 3) * 7) * 4), domain: "
        "d0 in [0, 255], d1 in [0, 999]",
        "(d0, d1)[s0] -> (((d0 floordiv 8) * 40 + (d0 mod 8) * 2 + d1 * 136 "
        "+ s0 * 8) * 8), domain: d0 in [0, 127], d1 in [0, 299], s0 in [0, 9]",
        "(d0, d1) -> ((d0 * 2 + (d1 mod 6) * 64 + d1 floordiv 6) * 2), "
        "domain: d0 in [0, 95], d1 in [0, 500], d0 mod 4 in [0, 2]"}) {
    IndexingMap map = M(ctx, text);
    BankConflictOptions full;
    full.use_periodicity = false;
    const int64_t eb = text.find("* 8), domain") != std::string::npos   ? 8
                       : text.find("* 2), domain") != std::string::npos ? 2
                                                                        : 4;
    BankConflictReport p = Analyze(map, eb, 1);
    BankConflictReport f = Analyze(map, eb, 1, full);
    INFO(text);
    CHECK(p.periodic);
    CHECK(p.evaluated_lanes < f.evaluated_lanes);
    CHECK(p.instances == f.instances);
    CHECK(p.total_wavefronts == f.total_wavefronts);
    CHECK(p.worst == f.worst);
    CHECK(p.ideal_wavefronts == f.ideal_wavefronts);
    CheckAgainstBruteForce(map, eb, 1);
  }
}

TEST_CASE("bank conflicts: random maps equal brute force", "[hw][banks]") {
  std::mt19937_64 rng(20261207);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t widths[][2] = {{4, 1}, {1, 1}, {2, 1}, {2, 2},
                               {4, 2}, {8, 1}, {4, 4}, {16, 1}};
  for (int iter = 0; iter < 150; ++iter) {
    ExprContext ctx;
    auto [eb, vw] = std::pair{widths[iter % 8][0], widths[iter % 8][1]};
    const int64_t w = eb * vw;
    const int64_t threads = 32 * pick(1, 4) - (iter % 5 == 0 ? pick(1, 31) : 0);
    const int64_t steps = pick(1, 70);
    std::string t = "d0", i = "d1";
    std::string e =
        "(" + t + " * " + std::to_string(pick(0, 40)) + " + (" + t +
        " floordiv " + std::to_string(pick(1, 16)) + ") * " +
        std::to_string(pick(0, 33)) + " + (" + t + " mod " +
        std::to_string(pick(1, 12)) + ") * " + std::to_string(pick(0, 9)) +
        " + " + i + " * " + std::to_string(pick(0, 70)) + " + (" + i + " mod " +
        std::to_string(pick(1, 9)) + ") * " + std::to_string(pick(0, 17)) +
        " + (" + i + " floordiv " + std::to_string(pick(1, 5)) + ") * " +
        std::to_string(pick(0, 5)) + ") * " + std::to_string(w);
    std::string text = "(d0, d1) -> (" + e + "), domain: d0 in [0, " +
                       std::to_string(threads - 1) + "], d1 in [0, " +
                       std::to_string(steps - 1) + "]";
    if (iter % 7 == 3) text += ", d0 mod 3 in [0, 1]";
    if (iter % 11 == 4) text += ", d1 mod 4 in [1, 2]";
    IndexingMap map = M(ctx, text);
    CheckAgainstBruteForce(map, eb, vw);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
