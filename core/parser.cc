// Parser for XLA's text form of indexing maps (spec/indexing.md §2,
// spec/xla-reference.md §b), both generations of the expression syntax.
//
//   map     := "KNOWN EMPTY" | header "->" "(" [expr {"," expr}] ")"
//              [[","] "domain" ":" (item {[","] item} | "KNOWN EMPTY")]
//   header  := "(" names ")" ["[" names "]"] ["{" names "}"]
//   item    := expr "in" "[" int "," int "]"
//            | "is_simplified" ":" ("true" | "false")      (XLA 2024-09)
//   expr    := term {("+" | "-") term}
//   term    := unary {("*" | "floordiv" | "floorDiv" | "/" | "ceildiv" |
//                      "ceilDiv" | "mod" | "%") unary}
//   unary   := "-" unary | primary
//   primary := "(" expr ")" | int [name] | name            (`16d0` = d0 * 16)
//            | ("min" | "max") "(" expr "," expr {"," expr} ")"
//
// Whitespace (including line breaks) is insignificant. Errors carry the
// line and column of the offending token and say what was expected.
//
// Leniencies, on purpose:
//   - The comma before `domain:` is optional, and so are the commas between
//     domain items: `(d0) -> (d0) domain: d0 in [0, 3]` reads like
//     `(d0) -> (d0), domain: d0 in [0, 3]`. The documents write maps one
//     item per line without commas (the seed's dynamic-slice maps), and
//     XLA's own parser took `domain:` without the comma in some versions.
//     Nothing else can follow the result list, so this is unambiguous; the
//     printer always writes the comma. (Issue 12, item 7.)
//   - `min(a, b, c, ...)` (more than two arguments) reads as the left fold
//     `min(min(a, b), c)`; XLA's printer only writes two. `min` and `max`
//     stay usable as variable names: a name followed by `(` is a call.
//   - `/` is floordiv (XLA's symbolic syntax prints it so since 2026-06).
//
// Limits, so that no input can exhaust the stack: parentheses, unary
// minus and min/max argument lists nest at most kMaxTextNesting deep, an
// expression tree is at most kMaxExprDepth deep, and an expression whose
// printed form would nest deeper than kMaxTextNesting is refused too, so
// that every accepted map prints to text that this parser reads back
// (issue 12, item 6: `-` written 200 times before a literal is accepted,
// and prints as 200 minus signs, not as `-(-(...))`).
#include <cctype>

#include "core/text.h"

namespace ixa {

namespace {

constexpr int kMaxNesting = kMaxTextNesting;
// Deepest expression tree accepted from text. Every later pass (evaluate,
// print, substitute, simplify) recurses over the tree, so an unbounded
// chain like `d0 * 2 * 2 * ...` would overflow the stack; sums are
// left-nested, so this also caps a sum at about this many terms.
constexpr uint32_t kMaxExprDepth = 2000;

struct ParsedTerm {
  Expr expr;
  bool parenthesized = false;  // written as "( ... )" at the top
};

class Parser {
 public:
  Parser(std::string_view text, ExprContext* ctx) : text_(text), ctx_(ctx) {}

  Result<IndexingMap> ParseMap();
  Result<Expr> ParseStandaloneExpr(const std::vector<std::string>& dims,
                                   const std::vector<std::string>& syms);

 private:
  // ---- lexing helpers ----
  static bool IsSpace(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' ||
           c == '\v';
  }
  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  static bool IsIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool IsIdentChar(char c) {
    return IsIdentStart(c) || (c >= '0' && c <= '9');
  }
  // Reads an identifier at the current position without consuming it.
  std::string_view PeekIdent() {
    SkipSpace();
    size_t p = pos_;
    if (p >= text_.size() || !IsIdentStart(text_[p])) return {};
    while (p < text_.size() && IsIdentChar(text_[p])) ++p;
    return text_.substr(pos_, p - pos_);
  }
  bool ConsumeKeyword(std::string_view kw) {
    if (PeekIdent() != kw) return false;
    pos_ += kw.size();
    return true;
  }
  std::string Describe() {
    SkipSpace();
    if (pos_ >= text_.size()) return "end of input";
    std::string_view id = PeekIdent();
    if (!id.empty()) return "'" + std::string(id) + "'";
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      snprintf(buf, sizeof(buf), "0x%02x", c);
      return std::string("byte ") + buf;
    }
    return std::string("'") + text_[pos_] + "'";
  }
  Error ErrorAt(size_t offset, const std::string& message) {
    int line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Error::Parse(message, line, column);
  }
  Error Expected(const std::string& what) {
    SkipSpace();
    return ErrorAt(pos_, "expected " + what + ", found " + Describe());
  }

  // Parses digits at pos_ (after an optional sign handled by the caller).
  // `negative` lets -9223372036854775808 through.
  Result<int64_t> ParseIntegerDigits(bool negative) {
    size_t start = pos_;
    uint64_t v = 0;
    const uint64_t limit =
        negative ? uint64_t(kInt64Max) + 1 : uint64_t(kInt64Max);
    while (pos_ < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      uint64_t d = text_[pos_] - '0';
      if (v > (limit - d) / 10) {
        return ErrorAt(start, "integer literal does not fit in int64");
      }
      v = v * 10 + d;
      ++pos_;
    }
    if (pos_ == start) return Expected("an integer");
    if (negative) return v == uint64_t(kInt64Max) + 1 ? kInt64Min : -int64_t(v);
    return int64_t(v);
  }
  Result<int64_t> ParseSignedInteger() {
    bool negative = Consume('-');
    if (!negative) Consume('+');
    SkipSpace();
    return ParseIntegerDigits(negative);
  }

  // ---- grammar ----
  Result<std::vector<std::string>> ParseNameList(char close);
  Result<Expr> ParseTopExpr();
  Result<Expr> ParseExpr();
  Result<Expr> ParseExprNoDepthCheck();
  Result<ParsedTerm> ParseMinMax(ExprKind kind);
  Result<ParsedTerm> ParseTerm();
  Result<ParsedTerm> ParseUnary();
  Result<ParsedTerm> ParsePrimary();
  Result<Interval> ParseInterval();
  Expr Negate(const ParsedTerm& t);

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  ExprContext* ctx_;
  // Declared variables; maps have few, so a linear scan beats hashing.
  std::vector<std::pair<std::string, Expr>> names_;
  const Expr* FindName(std::string_view name) const {
    for (const auto& [n, e] : names_) {
      if (n == name) return &e;
    }
    return nullptr;
  }
  // Where each header name was written (dims, range, runtime in order), to
  // point at a duplicate.
  std::vector<size_t> name_offsets_;
};

Result<std::vector<std::string>> Parser::ParseNameList(char close) {
  std::vector<std::string> names;
  if (Consume(close)) return names;
  while (true) {
    std::string_view id = PeekIdent();
    if (id.empty()) return Expected("a variable name");
    size_t at = pos_;
    pos_ += id.size();
    std::string name(id);
    if (name == "domain" || name == "in" || name == "mod" ||
        name == "floordiv" || name == "ceildiv" || name == "floorDiv" ||
        name == "ceilDiv") {
      return ErrorAt(at, "'" + name + "' is a keyword, not a variable name");
    }
    names.push_back(name);
    name_offsets_.push_back(at);
    if (Consume(close)) return names;
    if (!Consume(',')) {
      return Expected(std::string("',' or '") + close +
                      "' in the variable list");
    }
  }
}

// Negation as the text means it: `-5` is a constant, `a - b * 3` is
// `a + b * -3` (so that printing `a + b * -3` as `a - b * 3` round-trips),
// anything else (including a parenthesised product) is `x * -1`.
Expr Parser::Negate(const ParsedTerm& t) {
  Expr e = t.expr;
  if (e.IsConstant() && e.constant() != kInt64Min) {
    return ctx_->Constant(-e.constant());
  }
  if (!t.parenthesized && e.kind() == ExprKind::kMul && e.rhs().IsConstant() &&
      e.rhs().constant() != kInt64Min && e.rhs().constant() != -1) {
    return ctx_->Mul(e.lhs(), ctx_->Constant(-e.rhs().constant()));
  }
  return ctx_->Neg(e);
}

Result<Expr> Parser::ParseExpr() {
  size_t start = (SkipSpace(), pos_);
  IXA_ASSIGN_OR_RETURN(Expr e, ParseExprNoDepthCheck());
  if (e.depth() > kMaxExprDepth) {
    return ErrorAt(start, "expression tree deeper than " +
                              std::to_string(kMaxExprDepth) +
                              " levels (e.g. a sum of that many terms)");
  }
  return e;
}

// A whole result or constraint expression: also refused when its printed
// form would nest deeper than the parser accepts (see the file comment).
// The printed nesting is at most 2 per tree level plus 1, so only deep
// trees need the check.
Result<Expr> Parser::ParseTopExpr() {
  size_t start = (SkipSpace(), pos_);
  IXA_ASSIGN_OR_RETURN(Expr e, ParseExpr());
  if (2 * static_cast<int64_t>(e.depth()) + 1 > kMaxNesting &&
      PrintedNesting(e) > kMaxNesting) {
    return ErrorAt(start, "expression would print nested deeper than " +
                              std::to_string(kMaxNesting) +
                              " levels (its printed form could not be read "
                              "back; e.g. a chain of that many operators)");
  }
  return e;
}

Result<Expr> Parser::ParseExprNoDepthCheck() {
  if (++depth_ > kMaxNesting) {
    return ErrorAt(pos_, "expression nested deeper than " +
                             std::to_string(kMaxNesting) + " levels");
  }
  IXA_ASSIGN_OR_RETURN(ParsedTerm first, ParseTerm());
  Expr sum = first.expr;
  while (true) {
    char c = Peek();
    if (c == '+') {
      ++pos_;
      IXA_ASSIGN_OR_RETURN(ParsedTerm t, ParseTerm());
      sum = ctx_->Add(sum, t.expr);
    } else if (c == '-' &&
               !(pos_ + 1 < text_.size() && text_[pos_ + 1] == '>')) {
      ++pos_;
      IXA_ASSIGN_OR_RETURN(ParsedTerm t, ParseTerm());
      sum = ctx_->Add(sum, Negate(t));
    } else {
      break;
    }
  }
  --depth_;
  return sum;
}

Result<ParsedTerm> Parser::ParseTerm() {
  IXA_ASSIGN_OR_RETURN(ParsedTerm lhs, ParseUnary());
  while (true) {
    ExprKind kind;
    size_t op_at = (SkipSpace(), pos_);
    char c = op_at < text_.size() ? text_[op_at] : '\0';
    if (c == '*') {
      ++pos_;
      kind = ExprKind::kMul;
    } else if (c == '/') {
      ++pos_;
      kind = ExprKind::kFloorDiv;  // XLA HEAD prints floordiv as '/'
    } else if (c == '%') {
      ++pos_;
      kind = ExprKind::kMod;
    } else {
      // One identifier scan decides between the word operators.
      std::string_view id = PeekIdent();
      if (id == "floordiv" || id == "floorDiv") {
        kind = ExprKind::kFloorDiv;
      } else if (id == "ceildiv" || id == "ceilDiv") {
        kind = ExprKind::kCeilDiv;
      } else if (id == "mod") {
        kind = ExprKind::kMod;
      } else {
        return lhs;
      }
      pos_ += id.size();
    }
    IXA_ASSIGN_OR_RETURN(ParsedTerm rhs, ParseUnary());
    if (kind != ExprKind::kMul && rhs.expr.IsConstant(0)) {
      Error e = ErrorAt(op_at, "division by zero: the divisor is 0");
      e.code = ErrorCode::kInvalidArgument;
      return e;
    }
    lhs = ParsedTerm{ctx_->Binary(kind, lhs.expr, rhs.expr), false};
  }
}

Result<ParsedTerm> Parser::ParseUnary() {
  if (Peek() == '-' && !(pos_ + 1 < text_.size() && text_[pos_ + 1] == '>')) {
    ++pos_;
    SkipSpace();
    if (pos_ < text_.size() &&
        std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      // A negative literal (allows INT64_MIN); `-2d0` is `d0 * -2`.
      IXA_ASSIGN_OR_RETURN(int64_t v, ParseIntegerDigits(/*negative=*/true));
      if (pos_ < text_.size() && IsIdentStart(text_[pos_])) {
        IXA_ASSIGN_OR_RETURN(ParsedTerm var, ParsePrimary());
        return ParsedTerm{ctx_->Mul(var.expr, ctx_->Constant(v)), false};
      }
      return ParsedTerm{ctx_->Constant(v), false};
    }
    if (++depth_ > kMaxNesting) {
      return ErrorAt(pos_, "expression nested deeper than " +
                               std::to_string(kMaxNesting) + " levels");
    }
    IXA_ASSIGN_OR_RETURN(ParsedTerm t, ParseUnary());
    --depth_;
    return ParsedTerm{Negate(ParsedTerm{t.expr, true}), false};
  }
  return ParsePrimary();
}

Result<ParsedTerm> Parser::ParsePrimary() {
  SkipSpace();
  if (pos_ >= text_.size()) return Expected("an expression");
  char c = text_[pos_];
  if (c == '(') {
    ++pos_;
    IXA_ASSIGN_OR_RETURN(Expr e, ParseExpr());
    if (!Consume(')')) return Expected("')'");
    return ParsedTerm{e, true};
  }
  if (std::isdigit(static_cast<unsigned char>(c))) {
    IXA_ASSIGN_OR_RETURN(int64_t v, ParseIntegerDigits(false));
    if (pos_ < text_.size() && IsIdentStart(text_[pos_])) {
      // The documents' shorthand `16d0` for `d0 * 16`.
      IXA_ASSIGN_OR_RETURN(ParsedTerm var, ParsePrimary());
      return ParsedTerm{ctx_->Mul(var.expr, ctx_->Constant(v)), false};
    }
    return ParsedTerm{ctx_->Constant(v), false};
  }
  std::string_view id = PeekIdent();
  if (id.empty()) return Expected("an expression");
  if (id == "min" || id == "max") {
    // A call when `(` follows; otherwise a variable named min / max.
    size_t after = pos_ + id.size();
    while (after < text_.size() && IsSpace(text_[after])) ++after;
    if (after < text_.size() && text_[after] == '(') {
      pos_ = after + 1;
      return ParseMinMax(id == "min" ? ExprKind::kMin : ExprKind::kMax);
    }
  }
  const Expr* var = FindName(id);
  if (var == nullptr) {
    return ErrorAt(pos_, "unknown variable '" + std::string(id) + "'");
  }
  pos_ += id.size();
  return ParsedTerm{*var, false};
}

// After `min(` / `max(`: two or more arguments, folded to the left.
Result<ParsedTerm> Parser::ParseMinMax(ExprKind kind) {
  const char* name = kind == ExprKind::kMin ? "min" : "max";
  IXA_ASSIGN_OR_RETURN(Expr acc, ParseExpr());
  if (!Consume(',')) {
    return Expected(std::string("',' and a second argument of '") + name + "'");
  }
  while (true) {
    IXA_ASSIGN_OR_RETURN(Expr next, ParseExpr());
    acc = ctx_->Binary(kind, acc, next);
    if (Consume(')')) break;
    if (!Consume(',')) {
      return Expected(std::string("',' or ')' in the arguments of '") + name +
                      "'");
    }
  }
  return ParsedTerm{acc, false};
}

Result<Interval> Parser::ParseInterval() {
  if (!Consume('[')) return Expected("'[' to open an interval");
  IXA_ASSIGN_OR_RETURN(int64_t lo, ParseSignedInteger());
  if (!Consume(',')) return Expected("',' between the interval's bounds");
  IXA_ASSIGN_OR_RETURN(int64_t hi, ParseSignedInteger());
  if (!Consume(']')) return Expected("']' to close the interval");
  return Interval{lo, hi};
}

Result<IndexingMap> Parser::ParseMap() {
  if (AtEnd()) return Expected("an indexing map");
  if (ConsumeKeyword("KNOWN")) {
    if (!ConsumeKeyword("EMPTY")) return Expected("'EMPTY' after 'KNOWN'");
    if (!AtEnd()) return Expected("end of input after 'KNOWN EMPTY'");
    return IndexingMap::KnownEmpty(ctx_, 0, 0);
  }
  if (!Consume('(')) return Expected("'(' to open the dimension list");
  IXA_ASSIGN_OR_RETURN(std::vector<std::string> dim_names, ParseNameList(')'));
  std::vector<std::string> range_names, rt_names;
  if (Consume('[')) {
    IXA_ASSIGN_OR_RETURN(range_names, ParseNameList(']'));
  }
  if (Consume('{')) {
    IXA_ASSIGN_OR_RETURN(rt_names, ParseNameList('}'));
  }
  std::vector<Variable> dims(dim_names.size()), ranges(range_names.size()),
      rts(rt_names.size());
  names_.reserve(dim_names.size() + range_names.size() + rt_names.size());
  auto declare = [&](const std::string& name, Expr e) -> bool {
    if (FindName(name)) return false;
    names_.emplace_back(name, e);
    return true;
  };
  for (size_t i = 0; i < dim_names.size(); ++i) {
    dims[i].name = dim_names[i];
    if (!declare(dim_names[i], ctx_->Dim(i))) {
      Error e = ErrorAt(name_offsets_[i],
                        "variable '" + dim_names[i] + "' is named twice");
      e.code = ErrorCode::kInvalidArgument;
      return e;
    }
  }
  std::vector<std::string> sym_names = range_names;
  sym_names.insert(sym_names.end(), rt_names.begin(), rt_names.end());
  for (size_t i = 0; i < sym_names.size(); ++i) {
    (i < range_names.size() ? ranges[i] : rts[i - range_names.size()]).name =
        sym_names[i];
    if (!declare(sym_names[i], ctx_->Symbol(i))) {
      Error e = ErrorAt(name_offsets_[dim_names.size() + i],
                        "variable '" + sym_names[i] + "' is named twice");
      e.code = ErrorCode::kInvalidArgument;
      return e;
    }
  }
  SkipSpace();
  if (!(pos_ + 1 < text_.size() && text_[pos_] == '-' &&
        text_[pos_ + 1] == '>')) {
    return Expected("'->' after the variable lists");
  }
  pos_ += 2;
  if (!Consume('(')) return Expected("'(' to open the result list");
  std::vector<Expr> results;
  if (!Consume(')')) {
    while (true) {
      IXA_ASSIGN_OR_RETURN(Expr e, ParseTopExpr());
      results.push_back(e);
      if (Consume(')')) break;
      if (!Consume(',')) return Expected("',' or ')' in the result list");
    }
  }
  std::vector<Constraint> constraints;
  bool known_empty = false;
  // The comma before `domain:` and between domain items is optional (see
  // the file comment): the documents often write one item per line without
  // commas, and XLA's parser accepted `) domain:` in some versions.
  bool comma = Consume(',');
  if (comma || PeekIdent() == "domain") {
    if (!ConsumeKeyword("domain")) return Expected("'domain'");
    if (!Consume(':')) return Expected("':' after 'domain'");
    if (ConsumeKeyword("KNOWN")) {
      if (!ConsumeKeyword("EMPTY")) return Expected("'EMPTY' after 'KNOWN'");
      known_empty = true;
    } else {
      while (true) {
        // Obsolete `is_simplified: true|false` field (XLA, 2024-09).
        if (PeekIdent() == "is_simplified") {
          pos_ += 13;
          if (!Consume(':')) return Expected("':' after 'is_simplified'");
          if (!ConsumeKeyword("true") && !ConsumeKeyword("false")) {
            return Expected("'true' or 'false'");
          }
        } else {
          IXA_ASSIGN_OR_RETURN(Expr e, ParseTopExpr());
          if (!ConsumeKeyword("in"))
            return Expected("'in' after a domain expression");
          IXA_ASSIGN_OR_RETURN(Interval iv, ParseInterval());
          constraints.push_back({e, iv});
        }
        if (!Consume(',') && AtEnd()) break;
      }
    }
  }
  if (!AtEnd()) return Expected("',' or end of input");
  IndexingMap map(ctx_, std::move(dims), std::move(ranges), std::move(rts),
                  std::move(results));
  // Bounds and constraints in text order: a bare variable's `in` intersects
  // its bounds (an inverted interval makes the map KNOWN EMPTY).
  for (const Constraint& c : constraints) map.AddConstraint(c.expr, c.interval);
  if (known_empty) map.ResetToKnownEmpty();
  return map;
}

Result<Expr> Parser::ParseStandaloneExpr(const std::vector<std::string>& dims,
                                         const std::vector<std::string>& syms) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!FindName(dims[i])) names_.emplace_back(dims[i], ctx_->Dim(i));
  }
  for (size_t i = 0; i < syms.size(); ++i) {
    if (!FindName(syms[i])) names_.emplace_back(syms[i], ctx_->Symbol(i));
  }
  IXA_ASSIGN_OR_RETURN(Expr e, ParseTopExpr());
  if (!AtEnd()) return Expected("end of expression");
  return e;
}

}  // namespace

Result<IndexingMap> ParseIndexingMap(std::string_view text, ExprContext* ctx) {
  return Parser(text, ctx).ParseMap();
}

Result<Expr> ParseExpr(std::string_view text, ExprContext* ctx,
                       const std::vector<std::string>& dim_names,
                       const std::vector<std::string>& symbol_names) {
  return Parser(text, ctx).ParseStandaloneExpr(dim_names, symbol_names);
}

}  // namespace ixa
