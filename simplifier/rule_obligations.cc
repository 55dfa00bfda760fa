#include "simplifier/rule_obligations.h"

namespace ixa {

namespace {

// Each entry restates its rule's derivation comment (rules_*.cc,
// rewriter.cc, constraints.cc); rule_obligations.h gives the syntax. Sums
// are written with two or three terms: a term `k * x` stands for any
// number of terms, x being any expression.
constexpr RuleObligation kRuleObligations[] = {
    // range.point: a subexpression whose range is one value is that value.
    {"range.point", "a == k", "a", "k"},
    // div.affine_in_one_variable, div.affine_on_box: the node was evaluated
    // at every point of its variables' box (exhaustive, hence exact), where
    // it equals the affine form. The condition is that evaluation.
    {"div.affine_in_one_variable", "a floordiv n == k * x + m", "a floordiv n",
     "k * x + m"},
    {"div.affine_in_one_variable", "a mod n == k * x + m", "a mod n",
     "k * x + m"},
    {"div.affine_on_box", "a floordiv n == k * x + m * y + c1", "a floordiv n",
     "k * x + m * y + c1"},
    {"div.affine_on_box", "a mod n == k * x + m * y + c1", "a mod n",
     "k * x + m * y + c1"},
    // sum.recombine_div_mod: k * (y mod n) + (k*n) * Q + z -> k * y + z,
    // where Q = simplify(y floordiv n); Q's terms are matched and its
    // constant c1 is absorbed by the sum's constant.
    {"sum.recombine_div_mod", "n > 0",
     "k * (y mod n) + (k * n) * (y floordiv n) + z", "k * y + z"},
    {"sum.recombine_div_mod", "n > 0 && x + c1 == y floordiv n",
     "k * (y mod n) + (k * n) * x + z", "k * y - k * n * c1 + z"},
    // The congruent case: the floordiv's dividend is y + n * x.
    {"sum.recombine_div_mod", "n > 0",
     "k * (y mod n) + (k * n) * ((y + n * x) floordiv n) + z",
     "k * (y + n * x) + z"},
    // sum.mod_from_div (A): the floordiv's own dividend y is in the sum.
    {"sum.mod_from_div", "n > 0", "k * y - (k * n) * (y floordiv n) + z",
     "k * (y mod n) + z"},
    // (B): another term y (a floordiv) with simplify(y floordiv r) equal to
    // the floordiv term x, the coefficients -r times each other (r > 1).
    {"sum.mod_from_div", "r > 1 && x == y floordiv r",
     "k * y - (k * r) * x + z", "k * (y mod r) + z"},
    {"sum.mod_from_div", "m > 0 && r > 1",
     "k * (a floordiv m) - (k * r) * (a floordiv (m * r)) + z",
     "k * ((a floordiv m) mod r) + z"},
    // sum.affine_in_one_variable, sum.affine_on_box: the group of div/mod
    // terms a was evaluated at every point (exhaustive), where it equals
    // the affine form.
    {"sum.affine_in_one_variable", "a == k * x + m", "a + z", "k * x + m + z"},
    {"sum.affine_on_box", "a == k * x + m * y + c1", "a + z",
     "k * x + m * y + c1 + z"},
    // floordiv.by_one
    {"floordiv.by_one", "", "a floordiv 1", "a"},
    {"floordiv.by_one", "", "a floordiv -1", "-a"},
    // floordiv.one_period: range(a) in [m*n, m*n + n - 1].
    {"floordiv.one_period", "n > 0 && m * n <= a && a <= m * n + n - 1",
     "a floordiv n", "m"},
    // floordiv.split_multiples: a = n*Q + R with R in one period ...
    {"floordiv.split_multiples", "n > 1 && m * n <= y && y <= m * n + n - 1",
     "((n * k) * x + y) floordiv n", "k * x + m"},
    // ... else Q moves out, and a constant multiple of n too.
    {"floordiv.split_multiples", "n > 1", "((n * k) * x + y) floordiv n",
     "k * x + y floordiv n"},
    {"floordiv.split_multiples", "n > 1", "(y + n * k) floordiv n",
     "y floordiv n + k"},
    // floordiv.gcd_split: a = h*H + L, L in [m*h, m*h + h - 1] (the carry m
    // moves into H), divisor h*n.
    {"floordiv.gcd_split", "h > 1 && n > 1 && m * h <= y && y <= m * h + h - 1",
     "((h * k) * x + y) floordiv (h * n)", "(k * x + m) floordiv n"},
    {"floordiv.gcd_split", "h > 1 && m * h <= y && y <= m * h + h - 1",
     "((h * k) * x + y) floordiv h", "k * x + m"},
    // floordiv.reduce_coefficients: each coefficient is n*q + r, and
    // R = r1*x + r2*y + k lies in one period [m*n, m*n + n - 1].
    {"floordiv.reduce_coefficients",
     "n > 1 && m * n <= r1 * x + c1 && r1 * x + c1 <= m * n + n - 1",
     "((n * q1 + r1) * x + c1) floordiv n", "q1 * x + m"},
    {"floordiv.reduce_coefficients",
     "n > 1 && m * n <= r1 * x + r2 * y + c1 && "
     "r1 * x + r2 * y + c1 <= m * n + n - 1",
     "((n * q1 + r1) * x + (n * q2 + r2) * y + c1) floordiv n",
     "q1 * x + q2 * y + m"},
    // floordiv.nested: exactly one term `x floordiv m`, coefficient 1.
    {"floordiv.nested", "m > 0 && n > 1", "(x floordiv m + y) floordiv n",
     "(x + y * m) floordiv (m * n)"},
    // floordiv.of_mod: (x mod (n*k)) floordiv n, n > 1, n*k != n.
    {"floordiv.of_mod", "n > 1 && k > 1", "(x mod (n * k)) floordiv n",
     "(x floordiv n) mod k"},
    // floordiv.semi_affine_in_range: a non-constant divisor b >= lo > 0
    // everywhere and 0 <= a < lo.
    {"floordiv.semi_affine_in_range", "0 <= a && a < b", "a floordiv b", "0"},
    // floordiv.negative_divisor
    {"floordiv.negative_divisor", "n < -1", "a floordiv n",
     "(-a) floordiv (-n)"},
    // (an instance where the node goes: the rule fires only then)
    {"floordiv.negative_divisor", "n < -1", "(x * n) floordiv n",
     "(-(x * n)) floordiv (-n)"},
    // ceildiv.by_one
    {"ceildiv.by_one", "", "a ceildiv 1", "a"},
    {"ceildiv.by_one", "", "a ceildiv -1", "-a"},
    // ceildiv.one_period: range(a) in [(m-1)*n + 1, m*n].
    {"ceildiv.one_period", "n > 0 && (m - 1) * n + 1 <= a && a <= m * n",
     "a ceildiv n", "m"},
    // ceildiv.via_floordiv
    {"ceildiv.via_floordiv", "n > 1", "a ceildiv n", "(a + n - 1) floordiv n"},
    // (an instance where the floordiv form loses its node: the rule
    // fires only then)
    {"ceildiv.via_floordiv", "n > 1 && 1 <= y && y <= n",
     "(x * n + y) ceildiv n", "(x * n + y + n - 1) floordiv n"},
    // ceildiv.split_multiples
    {"ceildiv.split_multiples", "n > 1", "((n * k) * x + y) ceildiv n",
     "k * x + y ceildiv n"},
    {"ceildiv.split_multiples", "n > 1", "(y + n * k) ceildiv n",
     "y ceildiv n + k"},
    // ceildiv.negative_divisor
    {"ceildiv.negative_divisor", "n < -1", "a ceildiv n", "(-a) ceildiv (-n)"},
    {"ceildiv.negative_divisor", "n < -1", "(x * n) ceildiv n",
     "(-(x * n)) ceildiv (-n)"},
    // mod.by_one
    {"mod.by_one", "", "a mod 1", "0"},
    {"mod.by_one", "", "a mod -1", "0"},
    // mod.in_range: range(a) in [m*n, m*n + n - 1].
    {"mod.in_range", "n > 0 && m * n <= a && a <= m * n + n - 1", "a mod n",
     "a - m * n"},
    // mod.drop_multiples: n*Q goes, and the constant k becomes k - n*t
    // (the code takes t = trunc(k / n); any integer t is exact).
    {"mod.drop_multiples", "n > 1", "((n * k) * x + y) mod n", "y mod n"},
    {"mod.drop_multiples", "n > 1", "(y + k) mod n", "(y + (k - n * t)) mod n"},
    // mod.of_mod: a term k * (x mod m) with n | k*m becomes k * x. The
    // witness j (k*m = n*j) is what "n divides k*m" says.
    {"mod.of_mod", "n > 1 && m > 0 && (k * m) mod n == 0 && k * m == n * j",
     "(k * (x mod m) + y) mod n", "(k * x + y) mod n"},
    // mod.gcd_split: a = h*H + L, L in [m*h, m*h + h - 1], divisor h*n
    // (n = 1: the high part's mod is 0).
    {"mod.gcd_split", "h > 1 && n > 1 && m * h <= y && y <= m * h + h - 1",
     "((h * k) * x + y) mod (h * n)", "((k * x + m) mod n) * h + (y - m * h)"},
    {"mod.gcd_split", "h > 1 && m * h <= y && y <= m * h + h - 1",
     "((h * k) * x + y) mod h", "0 * h + (y - m * h)"},
    // mod.reduce_coefficients: as floordiv.reduce_coefficients; the mod is
    // R - m*n.
    {"mod.reduce_coefficients",
     "n > 1 && m * n <= r1 * x + c1 && r1 * x + c1 <= m * n + n - 1",
     "((n * q1 + r1) * x + c1) mod n", "r1 * x + c1 - m * n"},
    {"mod.reduce_coefficients",
     "n > 1 && m * n <= r1 * x + r2 * y + c1 && "
     "r1 * x + r2 * y + c1 <= m * n + n - 1",
     "((n * q1 + r1) * x + (n * q2 + r2) * y + c1) mod n",
     "r1 * x + r2 * y + c1 - m * n"},
    // mod.semi_affine_in_range: a non-constant divisor b >= lo > 0 and
    // 0 <= a < lo.
    {"mod.semi_affine_in_range", "0 <= a && a < b", "a mod b", "a"},
    // mod.negative_divisor
    {"mod.negative_divisor", "n < -1", "a mod n", "-((-a) mod (-n))"},
    {"mod.negative_divisor", "n < -1", "(x * n) mod n",
     "-((-(x * n)) mod (-n))"},
    // minmax.flatten: associativity.
    {"minmax.flatten", "", "min(a, min(b, c))", "min(min(a, b), c)"},
    {"minmax.flatten", "", "max(a, max(b, c))", "max(max(a, b), c)"},
    // minmax.fold_constants: the two constants fold into the smaller
    // (min) or larger (max) one.
    {"minmax.fold_constants", "m <= n", "min(min(a, m), n)", "min(a, m)"},
    {"minmax.fold_constants", "n < m", "min(min(a, m), n)", "min(a, n)"},
    {"minmax.fold_constants", "m >= n", "max(max(a, m), n)", "max(a, m)"},
    {"minmax.fold_constants", "n > m", "max(max(a, m), n)", "max(a, n)"},
    // minmax.duplicate: idempotence.
    {"minmax.duplicate", "", "min(a, a)", "a"},
    {"minmax.duplicate", "", "max(a, a)", "a"},
    {"minmax.duplicate", "", "min(min(a, b), a)", "min(a, b)"},
    {"minmax.duplicate", "", "max(max(a, b), a)", "max(a, b)"},
    // minmax.dominated: an operand that is never smaller is dropped.
    {"minmax.dominated", "a <= b", "min(a, b)", "a"},
    {"minmax.dominated", "a <= b", "max(a, b)", "b"},
    // minmax.common_part: a common linear part moves out; a constant
    // operand m is (m - k) + k.
    {"minmax.common_part", "", "min(a + c, b + c)", "min(a, b) + c"},
    {"minmax.common_part", "", "max(a + c, b + c)", "max(a, b) + c"},
    {"minmax.common_part", "", "min(a + k, m)", "min(a, m - k) + k"},
    {"minmax.common_part", "", "max(a + k, m)", "max(a, m - k) + k"},
    // minmax.sort: commutativity (constants last).
    {"minmax.sort", "", "min(b, a)", "min(a, b)"},
    {"minmax.sort", "", "max(b, a)", "max(a, b)"},
    {"minmax.sort", "", "min(k, a)", "min(a, k)"},
    // constraint.move_constant
    {"constraint.move_constant", "", "a + k in [l, u]", "a in [l - k, u - k]"},
    // constraint.divide_gcd: g * e in [l, u] <=> e in [ceil(l/g),
    // floor(u/g)].
    {"constraint.divide_gcd", "g > 1", "g * a in [l, u]",
     "a in [l ceildiv g, u floordiv g]"},
    // constraint.negate
    {"constraint.negate", "", "-a in [l, u]", "a in [-u, -l]"},
    // constraint.floordiv
    {"constraint.floordiv", "n > 0", "a floordiv n in [l, u]",
     "a in [l * n, u * n + n - 1]"},
    // constraint.ceildiv
    {"constraint.ceildiv", "n > 0", "a ceildiv n in [l, u]",
     "a in [(l - 1) * n + 1, u * n]"},
    // constraint.drop_low_part: e = g*a + b with b in [p, q]; the bounds
    // on a agree at both ends of b's range (each end on its own: an
    // unbounded end stays unbounded).
    {"constraint.drop_low_part",
     "g > 1 && p <= b && b <= q && (l - q) ceildiv g == (l - p) ceildiv g && "
     "(u - p) floordiv g == (u - q) floordiv g",
     "g * a + b in [l, u]", "a in [(l - q) ceildiv g, (u - p) floordiv g]"},
    {"constraint.drop_low_part",
     "g > 1 && p <= b && b <= q && (l - q) ceildiv g == (l - p) ceildiv g",
     "l <= g * a + b", "(l - q) ceildiv g <= a"},
    {"constraint.drop_low_part",
     "g > 1 && p <= b && b <= q && (u - p) floordiv g == (u - q) floordiv g",
     "g * a + b <= u", "a <= (u - p) floordiv g"},
    // constraint.tighten_to_range: range(e) = [p, q] (e = a + b: a bare
    // variable's `in` is its bounds).
    {"constraint.tighten_to_range", "p <= a + b && a + b <= q",
     "a + b in [l, u]", "a + b in [max(l, p), min(u, q)]"},
    // constraint.always_true: range(e) lies inside [l, u].
    {"constraint.always_true", "l <= a + b && a + b <= u", "a + b in [l, u]",
     "true"},
    // constraint.infeasible: the interval is empty, or range(e) misses it.
    {"constraint.infeasible", "u < l", "a + b in [l, u]", "false"},
    {"constraint.infeasible", "a + b < l", "a + b in [l, u]", "false"},
    {"constraint.infeasible", "u < a + b", "a + b in [l, u]", "false"},
    // constraint.merge_mod: x mod m == r and x mod n == s combine by the
    // Chinese remainder theorem into x mod lcm(m, n) == t, or into an empty
    // domain when r and s differ modulo gcd(m, n).
    {"constraint.merge_mod",
     "m > 0 && n > 0 && 0 <= r && r < m && 0 <= s && s < n && 0 <= t && "
     "t < lcm(m, n) && t mod m == r && t mod n == s",
     "x mod m in [r, r] && x mod n in [s, s]", "x mod lcm(m, n) in [t, t]"},
    {"constraint.merge_mod",
     "m > 0 && n > 0 && 0 <= r && r < m && 0 <= s && s < n && "
     "(r - s) mod gcd(m, n) != 0",
     "x mod m in [r, r] && x mod n in [s, s]", "false"},
    // constraint.merge_floordiv_form: x floordiv n + y in [l, u] is
    // x + n*y in [l*n, u*n + n - 1], which meets the other constraint on
    // x + n*y.
    {"constraint.merge_floordiv_form", "n > 0",
     "x floordiv n + y in [l, u] && x + n * y in [p, q]",
     "x + n * y in [max(p, l * n), min(q, u * n + n - 1)]"},
    // constraint.round_bounds: x mod m == r moves x's bounds [p, q] inward
    // to the nearest values congruent to r.
    {"constraint.round_bounds", "m > 0 && 0 <= r && r < m",
     "x mod m in [r, r] && x in [p, q]",
     "x mod m in [r, r] && x in [p + (r - p) mod m, q - (q - r) mod m]"},
    // constraint.propagate_bounds: k*x + b in [l, u], where b is the rest
    // of the sum and [lo, hi] its range over the other variables' bounds
    // (b in [lo, hi] at every point), bounds k*x by [l - hi, u - lo]. For
    // k < 0 the witness h = -k > 0 states the division by a negative k as
    // the one by h that the derivation mirrors.
    {"constraint.propagate_bounds", "k > 0 && lo <= b && b <= hi",
     "k * x + b in [l, u] && x in [p, q]",
     "k * x + b in [l, u] && x in "
     "[max(p, (l - hi) ceildiv k), min(q, (u - lo) floordiv k)]"},
    {"constraint.propagate_bounds", "k < 0 && k == -h && lo <= b && b <= hi",
     "k * x + b in [l, u] && x in [p, q]",
     "k * x + b in [l, u] && x in "
     "[max(p, (u - lo) ceildiv k), min(q, (l - hi) floordiv k)]"},
    // constraint.single_variable_values: a constraint on a (mentioning only
    // x) was evaluated at every value of x in [p, q] (exhaustive): the
    // values that pass lie in [r, s], and a constraint that holds at every
    // one of them is dropped.
    {"constraint.single_variable_values",
     "p <= r && s <= q && (r <= x && x <= s || a < l || u < a)",
     "a in [l, u] && x in [p, q]", "a in [l, u] && x in [r, s]"},
    {"constraint.single_variable_values", "l <= a && a <= u",
     "a in [l, u] && x in [p, q]", "x in [p, q]"},
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
    // The witness j = c1*m / k (the factor the floordiv rule computes).
    {"mod.rounded_dividend",
     "m > 0 && k > 0 && (c1 * m) mod k == 0 && c1 * m == k * j",
     "(a * c1 - (a mod m) * c1 + b) mod k", "b mod k"},
    {"floordiv.rounded_dividend",
     "m > 0 && k > 0 && (c1 * m) mod k == 0 && c1 * m == k * j",
     "(a * c1 - (a mod m) * c1 + b) floordiv k",
     "(a floordiv m) * j + b floordiv k"},
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
    // sum.round_down: y - y mod m = m * (y floordiv m).
    {"sum.round_down", "m > 0", "k * y - k * (y mod m) + z",
     "(k * m) * (y floordiv m) + z"},
    {"sum.round_down", "m > 0", "k * x + k * y - k * ((x + y) mod m) + z",
     "(k * m) * ((x + y) floordiv m) + z"},
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
