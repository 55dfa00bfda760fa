#include "simplifier/rule_obligations.h"

namespace ixa {

namespace {

constexpr RuleObligation kRuleObligations[] = {
    // minmax.dominated: an operand that is never smaller is dropped.
    {"minmax.dominated", "a <= b", "min(a, b)", "a"},
    {"minmax.dominated", "a <= b", "max(a, b)", "b"},
};

}  // namespace

std::span<const RuleObligation> RuleObligations() { return kRuleObligations; }

}  // namespace ixa
