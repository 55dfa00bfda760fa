// The rule obligations (simplifier/rule_obligations.h) tied to the code.
// tests/simplifier/prove_rules.py proves each obligation for all integers;
// this test checks that the obligations describe the rules that run:
// every rule id has one, every obligation names a rule, and each
// obligation's left-hand side, instantiated with random constants and
// with its pattern variables as dims over random boxes (both satisfying
// `given`, by rejection), makes the rule fire when only that rule is
// enabled, and simplifies to a map equal to the original at every point.
#include "simplifier/rule_obligations.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <map>
#include <random>
#include <set>

#include "core/enumerate.h"
#include "core/text.h"
#include "simplifier/rule_registry.h"

namespace ixa {
namespace IXA_UNITY_ID {

bool IsExpressionName(const std::string& name) {
  return name.size() == 1 &&
         std::string("abcxyz").find(name[0]) != std::string::npos;
}

bool IsKeyword(const std::string& name) {
  return name == "floordiv" || name == "ceildiv" || name == "mod" ||
         name == "min" || name == "max" || name == "in" || name == "true" ||
         name == "false";
}

// Calls f(name, begin, end) for every identifier of text.
template <typename F>
void ForEachName(std::string_view text, F f) {
  for (size_t i = 0; i < text.size();) {
    if (std::isalpha(static_cast<unsigned char>(text[i]))) {
      size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) ||
              text[j] == '_')) {
        ++j;
      }
      std::string name(text.substr(i, j - i));
      if (!IsKeyword(name)) f(name, i, j);
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      while (i < text.size() &&
             std::isalnum(static_cast<unsigned char>(text[i])))
        ++i;
    } else {
      ++i;
    }
  }
}

std::set<std::string> NamesOf(std::string_view text) {
  std::set<std::string> out;
  ForEachName(text,
              [&](const std::string& n, size_t, size_t) { out.insert(n); });
  return out;
}

// The text with each constant replaced by its value in parentheses.
std::string WithConstants(std::string_view text,
                          const std::map<std::string, int64_t>& values) {
  std::string out;
  size_t last = 0;
  ForEachName(text, [&](const std::string& n, size_t begin, size_t end) {
    auto it = values.find(n);
    if (it == values.end()) return;
    out.append(text.substr(last, begin - last));
    out += "(" + std::to_string(it->second) + ")";
    last = end;
  });
  out.append(text.substr(last));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

// Splits at `sep` outside parentheses and brackets.
std::vector<std::string> SplitTop(std::string_view text, std::string_view sep) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '(' || ch == '[') ++depth;
    if (ch == ')' || ch == ']') --depth;
    if (depth == 0 && text.substr(i, sep.size()) == sep) {
      out.push_back(Trim(text.substr(start, i - start)));
      start = i + sep.size();
      i = start - 1;
    }
  }
  out.push_back(Trim(text.substr(start)));
  return out;
}

// `e in [l, u]` split into its three texts.
std::optional<std::array<std::string, 3>> SplitIn(const std::string& text) {
  size_t at = text.find(" in [");
  if (at == std::string::npos || text.back() != ']') return std::nullopt;
  std::string inside = text.substr(at + 5, text.size() - at - 6);
  std::vector<std::string> ends = SplitTop(inside, ",");
  if (ends.size() != 2) return std::nullopt;
  return std::array<std::string, 3>{Trim(text.substr(0, at)), ends[0], ends[1]};
}

struct Instantiation {
  ExprContext* ctx;
  std::vector<std::string> dim_names;  // the pattern variables, in order
  std::map<std::string, int64_t> constants;

  // nullopt when the text does not parse, which with a constant divisor
  // of 0 is the case (a text that never parses leaves no instance, and
  // the test fails).
  std::optional<Expr> Parse(const std::string& text) const {
    auto e = ParseExpr(WithConstants(text, constants), ctx, dim_names, {});
    if (!e.ok()) return std::nullopt;
    return *e;
  }
  std::optional<int64_t> Value(const std::string& text,
                               const std::vector<int64_t>& point) const {
    auto e = Parse(text);
    if (!e) return std::nullopt;
    auto v = Evaluate(*e, point, {});
    if (!v.ok()) return std::nullopt;
    return *v;
  }
  // nullopt: undefined at the point (a zero divisor).
  std::optional<bool> Holds(const std::string& text,
                            const std::vector<int64_t>& point) const {
    std::string t = Trim(text);
    if (t == "true" || t == "false") return t == "true";
    if (auto ors = SplitTop(t, "||"); ors.size() > 1) {
      bool any = false;
      for (const std::string& c : ors) {
        auto v = Holds(c, point);
        if (!v) return std::nullopt;
        any |= *v;
      }
      return any;
    }
    if (auto ands = SplitTop(t, "&&"); ands.size() > 1) {
      bool all = true;
      for (const std::string& c : ands) {
        auto v = Holds(c, point);
        if (!v) return std::nullopt;
        all &= *v;
      }
      return all;
    }
    if (auto in = SplitIn(t)) {
      auto e = Value((*in)[0], point), l = Value((*in)[1], point),
           u = Value((*in)[2], point);
      if (!e || !l || !u) return std::nullopt;
      return *l <= *e && *e <= *u;
    }
    if (t.front() == '(' && t.back() == ')') {
      // `(cond || cond)`: the parentheses hold a condition when a
      // comparison sits at their top level.
      std::string inside = t.substr(1, t.size() - 2);
      if (SplitTop(inside, "||").size() > 1 ||
          SplitTop(inside, "&&").size() > 1) {
        return Holds(inside, point);
      }
    }
    static const char* kOps[] = {"==", "!=", "<=", ">=", "<", ">"};
    int depth = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '(' || t[i] == '[') ++depth;
      if (t[i] == ')' || t[i] == ']') --depth;
      if (depth != 0) continue;
      for (const char* op : kOps) {
        std::string_view o(op);
        if (t.compare(i, o.size(), o) != 0) continue;
        auto a = Value(t.substr(0, i), point);
        auto b = Value(t.substr(i + o.size()), point);
        if (!a || !b) return std::nullopt;
        if (o == "==") return *a == *b;
        if (o == "!=") return *a != *b;
        if (o == "<=") return *a <= *b;
        if (o == ">=") return *a >= *b;
        if (o == "<") return *a < *b;
        return *a > *b;
      }
    }
    FAIL("not a condition: " << t);
    return std::nullopt;
  }
};

// Calls f at every point of the box (small boxes only).
template <typename F>
bool EveryPoint(const std::vector<Interval>& box, F f) {
  std::vector<int64_t> point;
  for (const Interval& b : box) point.push_back(b.lower);
  while (true) {
    if (!f(point)) return false;
    size_t i = 0;
    for (; i < box.size(); ++i) {
      if (point[i] < box[i].upper) {
        ++point[i];
        break;
      }
      point[i] = box[i].lower;
    }
    if (i == box.size()) return true;
  }
}

// Obligations that a plain instance of the left-hand side cannot make
// fire: each with the reason (the rules themselves have random checks in
// rules_check_test.cc).
std::string ExemptionOf(const RuleObligation& o) {
  std::string id = o.rule_id;
  if (id == "minmax.flatten") {
    return "a written nest is read whole; the rule splices operands that "
           "became nests when another rule simplified them";
  }
  if (id == "div.affine_in_one_variable" || id == "div.affine_on_box" ||
      id == "sum.affine_in_one_variable" || id == "sum.affine_on_box" ||
      id == "constraint.single_variable_values") {
    return "the side condition is an exhaustive evaluation, not a pattern";
  }
  std::string given = o.given;
  for (const char* rel : {"x + c1 == y floordiv n", "x == y floordiv r"}) {
    if (given.find(rel) != std::string::npos) {
      return "relates two pattern variables, which independent dims do not";
    }
  }
  if (id == "mod.coefficient_remainder") {
    return "fires only on a dividend without finite bounds (a bounded one "
           "is left to the range-driven mod rules); rules_check_test runs "
           "it on unbounded dims";
  }
  if (id == "constraint.infeasible" && given == "u < l") {
    return "a map built with an empty interval is KNOWN EMPTY at once";
  }
  if (id == "constraint.drop_low_part" &&
      std::string(o.lhs).find(" in [") == std::string::npos) {
    return "a one-sided constraint (an unbounded end) has no map text here";
  }
  return "";
}

// Rules whose pattern only shows up when another rule has run.
std::vector<std::string> HelpersOf(const std::string& id) {
  if (id == "sum.mod_from_div") return {"floordiv.nested"};
  // These fire only when the rewritten form, simplified, has fewer
  // div/mod nodes.
  if (id == "floordiv.negative_divisor" || id == "ceildiv.via_floordiv") {
    return {"floordiv.split_multiples", "floordiv.one_period"};
  }
  if (id == "ceildiv.negative_divisor") {
    return {"ceildiv.split_multiples", "ceildiv.one_period"};
  }
  if (id == "mod.negative_divisor") return {"mod.drop_multiples"};
  return {};
}

TEST_CASE("every rule has an obligation, every obligation a rule",
          "[simplify][obligations]") {
  std::set<std::string> ids;
  for (const std::string& id : AllSimplifierRuleIds()) ids.insert(id);
  std::set<std::string> covered;
  for (const RuleObligation& o : RuleObligations()) {
    INFO("obligation of " << o.rule_id << ": " << o.lhs);
    CHECK(ids.count(o.rule_id) == 1);
    covered.insert(o.rule_id);
  }
  for (const std::string& id : ids) {
    INFO("rule " << id);
    CHECK(covered.count(id) == 1);
  }
}

TEST_CASE("each obligation's left-hand side fires its rule",
          "[simplify][obligations]") {
  constexpr int kAttempts = 4000, kWanted = 40;
  std::map<std::string, int> fired_by_rule;
  for (const RuleObligation& o : RuleObligations()) {
    const std::string id = o.rule_id, lhs = o.lhs, given = o.given;
    const std::string exemption = ExemptionOf(o);
    INFO("obligation of " << id << ": " << given << " => " << lhs << " ~ "
                          << o.rhs);
    if (!exemption.empty()) continue;
    const bool constraint = id.rfind("constraint.", 0) == 0;
    std::set<std::string> lhs_names = NamesOf(lhs);
    std::vector<std::string> dims, constants;
    for (const std::string& n : lhs_names) {
      (IsExpressionName(n) ? dims : constants).push_back(n);
    }
    // The conditions that speak of the left-hand side's names only (the
    // others bind constants the rule computes).
    std::vector<std::string> conditions;
    if (!given.empty()) {
      for (const std::string& c : SplitTop(given, "&&")) {
        bool own = true;
        for (const std::string& n : NamesOf(c)) own &= lhs_names.count(n) > 0;
        if (own) conditions.push_back(c);
      }
    }
    std::mt19937_64 rng(std::hash<std::string>()(id + lhs + given));
    auto random = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    simp::RuleFilter filter;
    filter.only = HelpersOf(id);
    filter.only.push_back(id);
    int instances = 0;
    int& fired = fired_by_rule[id];
    for (int attempt = 0; attempt < kAttempts && instances < kWanted;
         ++attempt) {
      ExprContext ctx;
      Instantiation in{&ctx, dims, {}};
      for (const std::string& c : constants) in.constants[c] = random(-6, 6);
      std::vector<Interval> box;
      for (size_t i = 0; i < dims.size(); ++i) {
        int64_t lo = random(-8, 8);
        box.push_back({lo, lo + random(0, 4)});
      }
      std::vector<Expr> results;
      std::vector<Constraint> map_constraints;
      bool ok = true;
      if (constraint) {
        // `v in [p, q]` of a bare pattern variable is its bounds; every
        // other conjunct a constraint.
        for (const std::string& part : SplitTop(lhs, "&&")) {
          auto split = SplitIn(part);
          REQUIRE(split.has_value());
          auto lo = in.Value((*split)[1], {});
          auto hi = in.Value((*split)[2], {});
          auto var = std::find(dims.begin(), dims.end(), (*split)[0]);
          if (!lo || !hi || *lo > *hi) {
            ok = false;
            break;
          }
          if (var != dims.end()) {
            if (*hi - *lo > 12) ok = false;
            box[var - dims.begin()] = {*lo, *hi};
          } else if (auto e = in.Parse((*split)[0])) {
            map_constraints.push_back({*e, Interval{*lo, *hi}});
          } else {
            ok = false;
            break;
          }
        }
        for (size_t i = 0; i < dims.size(); ++i) {
          results.push_back(ctx.Dim(static_cast<int64_t>(i)));
        }
      } else if (auto e = in.Parse(lhs)) {
        results.push_back(*e);
      } else {
        ok = false;
      }
      if (!ok) continue;
      // The conditions at every point, and a defined left-hand side.
      ok = EveryPoint(box, [&](const std::vector<int64_t>& point) {
        for (const std::string& c : conditions) {
          auto v = in.Holds(c, point);
          if (!v || !*v) return false;
        }
        for (Expr r : results) {
          if (!Evaluate(r, point, {}).ok()) return false;
        }
        for (const Constraint& c : map_constraints) {
          if (!Evaluate(c.expr, point, {}).ok()) return false;
        }
        return true;
      });
      if (!ok) continue;
      std::vector<Variable> variables;
      for (const Interval& b : box) variables.push_back({b, ""});
      IndexingMap map(&ctx, variables, {}, {}, results, map_constraints);
      ++instances;
      IndexingMap simplified = map;
      SimplifyOptions options;
      options.trace = true;
      SimplifyResult r = SimplifyWithFilter(&simplified, options, &filter);
      for (const TraceStep& step : r.trace) fired += step.rule == id;
      auto eq = EquivalentByEnumeration(map, simplified);
      INFO("input:  " << PrintIndexingMap(map)
                      << "\noutput: " << PrintIndexingMap(simplified));
      REQUIRE(eq.ok());
      REQUIRE(eq->equivalent);
    }
    INFO(instances << " instances");
    CHECK(instances > 0);
  }
  // Each rule fired on instances of its obligations (a rule whose
  // obligations are all exempt is covered by rules_check_test.cc).
  for (const auto& [id, fired] : fired_by_rule) {
    INFO("rule " << id << " fired " << fired << " times");
    CHECK(fired > 0);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa
