// Shared helpers for the simplifier tests.
#ifndef IXA_TESTS_SIMPLIFIER_TEST_UTIL_H_
#define IXA_TESTS_SIMPLIFIER_TEST_UTIL_H_

#include <string>

#include "core/expr.h"
#include "core/indexing_map.h"

namespace ixa::testing {

// Parses `text` or fails the test.
IndexingMap ParseOrDie(const std::string& text, ExprContext* ctx);

// Parse, simplify, print.
std::string SimplifyText(const std::string& text);

// Canonical print of a parsed map (so expectations can be written loosely).
std::string Canonical(const std::string& text);

// Removes all whitespace (XLA's ApproximateMatch).
std::string StripSpaces(const std::string& s);

}  // namespace ixa::testing

#endif  // IXA_TESTS_SIMPLIFIER_TEST_UTIL_H_
