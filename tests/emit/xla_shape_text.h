// XLA's text form of a shape, checked on its own (a grammar written from
// XLA's Shape / Layout printing, sharing nothing with ixa's shape reader
// and printer), and the round trip through ixa's reader: every shape ixa
// prints must be one XLA reads and one ixa reads back as itself.
//
//   shape   := array | '(' [shape (', ' shape)*] ')'
//   array   := type '[' [dim (',' dim)*] ']' [layout]
//   dim     := digits | '<=' digits | '?'
//   layout  := '{' [digits (',' digits)*] [':' attrs] '}'   (one number
//              per dimension; attrs not empty)
//   attrs   := [D(..)] [T tile+] [L(n)] [#(type)] [*(type)] [E(n)] [S(n)]
//              [SC(..)+] [P(..)] [M(n)]   (in this order)
//   tile    := '(' (digits | '*') (',' (digits | '*'))* ')'
#ifndef IXA_TESTS_EMIT_XLA_SHAPE_TEXT_H_
#define IXA_TESTS_EMIT_XLA_SHAPE_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

namespace ixa::emit_test {

// "" when `text` is one shape in XLA's grammar above; else why not.
std::string XlaShapeGrammarError(std::string_view text);

// "" when `text` is in XLA's grammar, ixa's reader accepts it, and ixa
// prints what it read back as `text` (when `text` carries only layout
// attributes ixa keeps: tiles and the element size; otherwise what ixa
// prints reads back as the same shape).
std::string ShapeRoundTripError(std::string_view text);

// Every array shape written with a layout (`type[dims]{...}`, the type one
// of XLA's element type names) in `text`, in order.
std::vector<std::string> ShapesWithLayoutIn(std::string_view text);

}  // namespace ixa::emit_test

#endif  // IXA_TESTS_EMIT_XLA_SHAPE_TEXT_H_
