// `ixa rules` (commands.h): the simplifier's rule ids and, for each, the
// obligations that restate its rewrite (simplifier/rule_obligations.h).
// The SMT check of the test suite reads `ixa rules --json`.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "simplifier/rule_obligations.h"
#include "simplifier/rule_registry.h"
#include "tools/ixa/command_line.h"
#include "tools/ixa/commands.h"
#include "tools/ixa/query_server.h"

namespace ixa::cli {
namespace {

const char kRulesUsage[] =
    "usage: ixa rules [--json]\n"
    "\n"
    "Lists the simplifier's rules, in table order, each with its\n"
    "obligations: the rewrite restated as `lhs = rhs` (for a constraint\n"
    "rule `lhs <=> rhs`) under side conditions, over pattern variables\n"
    "(a, b, c, x, y, z: any expression; other names: the rule's constants).\n"
    "The test suite proves every obligation for all integers with an SMT\n"
    "solver (tests/simplifier/prove_rules.py). With --json, one JSON object\n"
    "per line: {\"rule\": ID, \"obligations\": [{\"given\": ..., \"lhs\": "
    "...,\n"
    "\"rhs\": ...}, ...]} (\"given\" is \"\" when there is no condition).\n"
    "\n"
    "flags:\n"
    "  --json            JSON Lines instead of text (also --json=true or\n"
    "                    --json=false)\n"
    "  -h, --help        print this help\n"
    "\n"
    "exit codes:\n"
    "  0   the list was printed\n"
    "  64  usage error: unknown flag, an argument, a bad --json value\n"
    "  70  internal error\n"
    "  73  standard output cannot be written\n";

constexpr FlagSpec kRulesFlags[] = {{"--json", "", false}};

// A constraint rule's sides are conditions.
bool IsConstraintRule(const std::string& id) {
  return id.rfind("constraint.", 0) == 0;
}

}  // namespace

int RunRulesCommand(int argc, char** argv) {
  std::optional<CommandLine> line =
      ReadCommandLine("rules", argc, argv, kRulesFlags, kRulesUsage);
  if (!line) return kExitUsage;
  if (line->help) {
    std::cout << kRulesUsage;
    return kExitOk;
  }
  if (!line->operands.empty()) {
    return UsageError("rules",
                      "unexpected argument '" + line->operands[0] + "'",
                      kRulesUsage);
  }
  std::map<std::string, std::vector<const RuleObligation*>> by_rule;
  for (const RuleObligation& o : RuleObligations()) {
    by_rule[o.rule_id].push_back(&o);
  }
  std::ostringstream out;
  for (const std::string& id : AllSimplifierRuleIds()) {
    const std::vector<const RuleObligation*>& list = by_rule[id];
    if (line->On("--json")) {
      nlohmann::json obligations = nlohmann::json::array();
      for (const RuleObligation* o : list) {
        obligations.push_back(
            {{"given", o->given}, {"lhs", o->lhs}, {"rhs", o->rhs}});
      }
      nlohmann::json rule = {{"rule", id}, {"obligations", obligations}};
      out << rule.dump() << "\n";
      continue;
    }
    out << id << "\n";
    const char* relation = IsConstraintRule(id) ? " <=> " : " = ";
    for (const RuleObligation* o : list) {
      out << "  ";
      if (*o->given) out << o->given << "  =>  ";
      out << o->lhs << relation << o->rhs << "\n";
    }
    if (list.empty()) out << "  (no obligation)\n";
  }
  return WriteOutput("rules", "", out.str()) ? kExitOk : kExitCannotCreate;
}

}  // namespace ixa::cli
