#include "tests/simplifier/test_util.h"

#include <catch2/catch.hpp>

#include "core/text.h"
#include "simplifier/simplify.h"

namespace ixa::testing {

IndexingMap ParseOrDie(const std::string& text, ExprContext* ctx) {
  auto m = ParseIndexingMap(text, ctx);
  if (!m.ok()) FAIL("parse error: " << m.error().ToString() << "\n" << text);
  return *m;
}

std::string SimplifyText(const std::string& text) {
  ExprContext ctx;
  IndexingMap m = ParseOrDie(text, &ctx);
  Simplify(&m);
  return PrintIndexingMap(m);
}

std::string Canonical(const std::string& text) {
  ExprContext ctx;
  return PrintIndexingMap(ParseOrDie(text, &ctx));
}

std::string StripSpaces(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\n' && c != '\t') out += c;
  }
  return out;
}

}  // namespace ixa::testing
