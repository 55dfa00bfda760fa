// ConvertRangeVariablesToDims (XLA's ConvertRangeVariablesToDimensions):
// the listed range variables become trailing dims, the rest stay symbols;
// the converted map takes the same values at every point of the domain.
#include <catch2/catch.hpp>
#include <random>

#include "core/enumerate.h"
#include "core/text.h"

namespace ixa {
namespace IXA_UNITY_ID {

IndexingMap Parse(const std::string& text, ExprContext* ctx) {
  auto m = ParseIndexingMap(text, ctx);
  INFO(text << (m.ok() ? "" : m.error().ToString()));
  REQUIRE(m.ok());
  return *m;
}

void ExpectSame(const IndexingMap& got, const std::string& want,
                ExprContext* ctx) {
  INFO("got " << PrintIndexingMap(got) << "\nwant " << want);
  auto eq = EquivalentByEnumeration(got, Parse(want, ctx));
  REQUIRE(eq.ok());
  CHECK(eq->equivalent);
}

TEST_CASE("convert some range variables to dims", "[rewrite]") {
  ExprContext ctx;
  IndexingMap m = Parse(
      "(d0)[s0, s1]{rt0} -> (d0 + s0 * 4 + s1 + rt0), domain: d0 in [0, 1], "
      "s0 in [0, 2], s1 in [0, 3], rt0 in [0, 5], d0 + s1 in [0, 3]",
      &ctx);
  std::vector<int64_t> one = {1};
  auto c = m.ConvertRangeVariablesToDims(one);
  REQUIRE(c.ok());
  ExpectSame(*c,
             "(d0, d1)[s0]{rt0} -> (d0 + d1 + s0 * 4 + rt0), domain: d0 in "
             "[0, 1], d1 in [0, 3], s0 in [0, 2], rt0 in [0, 5], d0 + d1 in "
             "[0, 3]",
             &ctx);
  std::vector<int64_t> none;
  auto same = m.ConvertRangeVariablesToDims(none);
  REQUIRE(same.ok());
  CHECK(*same == m);
  std::vector<int64_t> bad = {2}, twice = {0, 0}, down = {1, 0};
  CHECK(m.ConvertRangeVariablesToDims(bad).error().code ==
        ErrorCode::kInvalidArgument);
  CHECK(!m.ConvertRangeVariablesToDims(twice).ok());
  CHECK(!m.ConvertRangeVariablesToDims(down).ok());
  // Named variables keep their names.
  IndexingMap named = Parse(
      "(th_x)[chunk, vec] -> (th_x * 4 + vec + chunk * 512), domain: th_x in "
      "[0, 127], chunk in [0, 7], vec in [0, 3]",
      &ctx);
  auto n = named.ConvertRangeVariablesToDims(one);
  REQUIRE(n.ok());
  ExpectSame(*n,
             "(th_x, vec)[chunk] -> (th_x * 4 + vec + chunk * 512), domain: "
             "th_x in [0, 127], vec in [0, 3], chunk in [0, 7]",
             &ctx);
  CHECK(n->DimName(1) == "vec");
  CHECK(n->SymbolName(0) == "chunk");
  CHECK(named.ConvertRangeVariablesToDims(none)->num_symbols() == 2);
}

// Every subset of the range variables of random maps: same values on the
// same points (the converted dims take the symbols' values).
TEST_CASE("converting range variables keeps every value", "[rewrite][random]") {
  ExprContext ctx;
  const char* maps[] = {
      "(d0)[s0, s1, s2] -> (d0 * 3 + s0 - s2, (s1 + d0) floordiv 2), domain: "
      "d0 in [0, 2], s0 in [0, 1], s1 in [-2, 2], s2 in [0, 2], s0 + s2 in [0, "
      "2]",
      "(d0, d1)[s0, s1]{rt0} -> (d0 + rt0 * s1, s0 mod 3), domain: d0 in [0, "
      "1], d1 in [0, 2], s0 in [0, 4], s1 in [1, 2], rt0 in [0, 1], d1 + s1 in "
      "[1, 3]",
  };
  for (const char* text : maps) {
    IndexingMap m = Parse(text, &ctx);
    const int r = m.num_range_vars();
    for (int mask = 0; mask < (1 << r); ++mask) {
      std::vector<int64_t> which;
      for (int i = 0; i < r; ++i) {
        if (mask & (1 << i)) which.push_back(i);
      }
      auto c = m.ConvertRangeVariablesToDims(which);
      REQUIRE(c.ok());
      INFO(PrintIndexingMap(*c));
      REQUIRE(c->num_dims() == m.num_dims() + static_cast<int>(which.size()));
      // Round trip through text.
      auto reparsed = ParseIndexingMap(PrintIndexingMap(*c), &ctx);
      REQUIRE(reparsed.ok());
      CHECK(*reparsed == *c);
      // Every point of the box (constraints dropped), in or out of the
      // domain.
      IndexingMap box = m;
      box.ClearConstraints();
      auto visited = ForEachDomainPoint(box, 1 << 16, [&](const Point& p) {
        std::vector<int64_t> cd = p.dims, cs;
        for (int64_t i : which) cd.push_back(p.symbols[i]);
        for (int i = 0; i < m.num_symbols(); ++i) {
          if (i >= r || !(mask & (1 << i))) cs.push_back(p.symbols[i]);
        }
        CHECK(*c->InDomain(cd, cs) == *m.InDomain(p.dims, p.symbols));
        CHECK(*c->Evaluate(cd, cs) == *m.Evaluate(p.dims, p.symbols));
        return true;
      });
      REQUIRE(visited.ok());
    }
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
