#include "simplifier/rule_obligations.h"

namespace ixa {

namespace {

constexpr RuleObligation kRuleObligations[] = {
    // minmax.dominated: an operand that is never smaller is dropped.
    {"minmax.dominated", "a <= b", "min(a, b)", "a"},
    {"minmax.dominated", "a <= b", "max(a, b)", "b"},
    // New rule families
    // minmax.dominated_simplified: minmax.dominated, ordered through the
    // simplified difference; its cases are rounded selves.
    {"minmax.dominated_simplified", "a <= b", "min(a, b)", "a"},
    {"minmax.dominated_simplified", "k > 0", "max((a floordiv k) * k, a)", "a"},
    {"minmax.dominated_simplified", "k > 0", "min((a floordiv k) * k, a)",
     "(a floordiv k) * k"},
    {"minmax.dominated_simplified", "k > 0",
     "min(((a + k - 1) floordiv k) * k, a)", "a"},
    // minmax.absorb: an operand of the other kind that is never smaller
    // (min) / larger (max) than another operand goes.
    {"minmax.absorb", "", "min(a, max(a, b))", "a"},
    {"minmax.absorb", "a <= c", "min(a, max(c, b))", "a"},
    {"minmax.absorb", "", "max(a, min(a, b))", "a"},
    {"minmax.absorb", "c <= a", "max(a, min(c, b))", "a"},
    // minmax.distribute: min and max distribute over each other.
    {"minmax.distribute", "", "min(max(c, a), max(c, b))", "max(c, min(a, b))"},
    {"minmax.distribute", "", "max(min(c, a), min(c, b))", "min(c, max(a, b))"},
    // minmax.common_divisor: floordiv / ceildiv by k > 0 are monotone.
    {"minmax.common_divisor", "k > 0", "min(a floordiv k, b floordiv k)",
     "min(a, b) floordiv k"},
    {"minmax.common_divisor", "k > 0", "max(a floordiv k, b floordiv k)",
     "max(a, b) floordiv k"},
    {"minmax.common_divisor", "k > 0", "min(a ceildiv k, b ceildiv k)",
     "min(a, b) ceildiv k"},
    {"minmax.common_divisor", "k > 0", "max(a ceildiv k, b ceildiv k)",
     "max(a, b) ceildiv k"},
    // minmax.common_factor: x -> x * k is monotone for k > 0.
    {"minmax.common_factor", "k > 0", "min(a * k, b * k + c1 * k)",
     "min(a, b + c1) * k"},
    {"minmax.common_factor", "k > 0", "max(a * k, b * k + c1 * k)",
     "max(a, b + c1) * k"},
    // minmax.negate: x -> -x reverses the order.
    {"minmax.negate", "", "min(a * -1, b * -1)", "max(a, b) * -1"},
    {"minmax.negate", "", "max(a * -1, b * -1)", "min(a, b) * -1"},
    // mod.coefficient_remainder: a coefficient k*m +- 1 reduces to +-1.
    {"mod.coefficient_remainder", "k > 0", "(a * (k * m + 1) + b) mod k",
     "(a + b) mod k"},
    {"mod.coefficient_remainder", "k > 0", "(a * (k * m - 1) + b) mod k",
     "(b - a) mod k"},
    // mod.rounded_dividend / floordiv.rounded_dividend:
    // c1*a - c1*(a mod m) = (c1*m) * (a floordiv m), a multiple of k.
    {"mod.rounded_dividend", "m > 0 && k > 0 && (c1 * m) mod k == 0",
     "(a * c1 - (a mod m) * c1 + b) mod k", "b mod k"},
    {"floordiv.rounded_dividend", "m > 0 && k > 0 && (c1 * m) mod k == 0",
     "(a * c1 - (a mod m) * c1 + b) floordiv k",
     "(a floordiv m) * ((c1 * m) floordiv k) + b floordiv k"},
    // floordiv.of_rounded: rounding down to a multiple of c1 | k first
    // changes nothing.
    {"floordiv.of_rounded", "c1 > 0 && k > 0 && k mod c1 == 0",
     "((a floordiv c1) * c1 + b * c1 + c2 * c1) floordiv k",
     "(a + b * c1 + c2 * c1) floordiv k"},
    // floordiv.of_mod_of_div: floordiv.of_mod backwards, then nested
    // floordivs merge.
    {"floordiv.of_mod_of_div", "c1 > 0 && m > 0 && k > 0",
     "((a floordiv c1) mod m) floordiv k",
     "(a mod (c1 * m)) floordiv (c1 * k)"},
    // floordiv/mod.variable_divisor_multiples: multiples of a variable
    // divisor y leave (the rule also asks y's sign to be fixed).
    {"floordiv.variable_divisor_multiples", "y != 0", "(a * y + b) floordiv y",
     "a + b floordiv y"},
    {"floordiv.variable_divisor_multiples", "y != 0", "(y + b) floordiv y",
     "b floordiv y + 1"},
    {"mod.variable_divisor_multiples", "y != 0", "(a * y + b) mod y",
     "b mod y"},
    {"mod.variable_divisor_multiples", "y != 0", "(a * y) mod y", "0"},
    // sum.merge_floordiv / sum.floordiv_difference: (a + b) floordiv k =
    // a floordiv k + (a mod k + b) floordiv k.
    {"sum.merge_floordiv", "k > 0", "(a mod k + b) floordiv k + a floordiv k",
     "(a + b) floordiv k"},
    {"sum.merge_floordiv", "k > 0",
     "((a mod k + b) floordiv k) * c1 + (a floordiv k) * c1",
     "((a + b) floordiv k) * c1"},
    {"sum.floordiv_difference", "k > 0", "(a + b) floordiv k - a floordiv k",
     "(a mod k + b) floordiv k"},
    // sum.mod_from_div_partial: b*P - (b*k)*((P + Q) floordiv k) =
    // b*((P + Q) mod k) - b*Q.
    {"sum.mod_from_div_partial", "k > 0", "a - ((a + b) floordiv k) * k",
     "(a + b) mod k - b"},
    {"sum.mod_from_div_partial", "k > 0",
     "a * c1 - ((a + b) floordiv k) * (c1 * k)",
     "((a + b) mod k) * c1 - b * c1"},
    // sum.recombine_variable_divisor: a = y*(a floordiv y) + a mod y.
    {"sum.recombine_variable_divisor", "y != 0", "(a floordiv y) * y + a mod y",
     "a"},
    {"sum.recombine_variable_divisor", "y != 0", "a - (a floordiv y) * y",
     "a mod y"},
    // sum.merge_mod_tower: a mod (k*m) = k*((a floordiv k) mod m) + a mod k.
    {"sum.merge_mod_tower", "k > 0 && m > 0",
     "a mod k + ((a floordiv k) mod m) * k", "a mod (k * m)"},
    // sum.minmax_difference: operands shifted by one constant.
    {"sum.minmax_difference", "", "min(a + c1, b + c1) - min(a, b)", "c1"},
    {"sum.minmax_difference", "", "max(a + c1, b + c1) - max(b, a)", "c1"},
    // sum.minmax_pair / sum.product_min_max: {min, max} = {a, b}.
    {"sum.minmax_pair", "", "min(a, b) + max(a, b)", "a + b"},
    {"sum.product_min_max", "", "min(a, b) * max(a, b)", "a * b"},
    // sum.push_into_minmax: adding c commutes with min and max.
    {"sum.push_into_minmax", "", "min(a, b - c) + c", "min(a + c, b)"},
    {"sum.push_into_minmax", "", "max(a, b - c) + c", "max(a + c, b)"},
    {"sum.push_into_minmax", "", "min(a, b) * -1 + c",
     "min(a - c, b - c) * -1"},
    // sum.factor: distributivity read backwards.
    {"sum.factor", "", "a * b + a * c", "a * (b + c)"},
    {"sum.factor", "", "(a * b) * k + a * m", "a * (b * k + m)"},
};

}  // namespace

std::span<const RuleObligation> RuleObligations() { return kRuleObligations; }

}  // namespace ixa
