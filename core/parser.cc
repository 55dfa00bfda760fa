// Parser for XLA's text form of indexing maps (docs/indexing.md §2,
// docs/xla-reference.md §(b)), both generations of the expression syntax.
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
//     item per line without commas (docs/indexing.md §3, DynamicSlice), and
//     XLA's own parser took `domain:` without the comma in some versions.
//     Nothing else can follow the result list, so this is unambiguous; the
//     printer always writes the comma.
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
// (`-` written 200 times before a literal is accepted,
// and prints as 200 minus signs, not as `-(-(...))`).
#include <array>
#include <optional>

#include "core/small_vector.h"
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

// Character classes, one table lookup each.
enum : uint8_t { kSpace = 1, kIdentStart = 2, kIdentChar = 4, kDigit = 8 };
struct CharClasses {
  uint8_t of[256] = {};
  constexpr CharClasses() {
    for (char c : {' ', '\n', '\t', '\r', '\f', '\v'}) {
      of[static_cast<unsigned char>(c)] = kSpace;
    }
    for (int c = 'a'; c <= 'z'; ++c) of[c] = kIdentStart | kIdentChar;
    for (int c = 'A'; c <= 'Z'; ++c) of[c] = kIdentStart | kIdentChar;
    of[static_cast<unsigned char>('_')] = kIdentStart | kIdentChar;
    for (int c = '0'; c <= '9'; ++c) of[c] = kIdentChar | kDigit;
  }
};
constexpr CharClasses kClasses;

bool Is(char c, uint8_t cls) {
  return (kClasses.of[static_cast<unsigned char>(c)] & cls) != 0;
}

// One pass over the text, no tokens and no allocation per token: the
// grammar functions read characters at pos_ and return the parsed value,
// or a null Expr / false after recording the first error in error_ (a
// Result per call would build and test a variant at every level of every
// leaf). Variable names are views into the text (or into the caller's name
// lists), looked up by a linear scan: maps have few.
class Parser {
 public:
  Parser(std::string_view text, ExprContext* ctx) : text_(text), ctx_(ctx) {}

  Result<IndexingMap> ParseMap();
  Result<Expr> ParseStandaloneExpr(const std::vector<std::string>& dims,
                                   const std::vector<std::string>& syms);

 private:
  // ---- lexing helpers ----
  // Between tokens pos_ is past any whitespace: whatever consumes a token
  // skips the spaces after it (SkipSpace), so that looking at the next
  // token (Peek, PeekIdent, the operator loop) needs no skipping. The one
  // exception is an integer literal, whose caller first checks whether a
  // name follows it without a space (`16d0`).
  void SkipSpace() {
    // Locals, so that the loop does not reload members after every store,
    // and one comparison for the usual non-space byte (every space byte is
    // at most ' ').
    const char* data = text_.data();
    size_t p = pos_, n = text_.size();
    while (p < n && static_cast<unsigned char>(data[p]) <= ' ' &&
           Is(data[p], kSpace)) {
      ++p;
    }
    pos_ = p;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    SkipSpace();
    return true;
  }
  bool AtArrow() const {
    return pos_ + 1 < text_.size() && text_[pos_ + 1] == '>';
  }
  // Reads an identifier at the current position without consuming it.
  std::string_view PeekIdent() const {
    size_t p = pos_;
    if (p >= text_.size() || !Is(text_[p], kIdentStart)) return {};
    ++p;
    while (p < text_.size() && Is(text_[p], kIdentChar)) ++p;
    return text_.substr(pos_, p - pos_);
  }
  // Is the identifier at pos_ `kw`, followed (after spaces) by `next` (an
  // identifier or punctuation)? Nothing is consumed.
  bool KeywordFollowedBy(std::string_view kw, std::string_view next) const {
    if (PeekIdent() != kw) return false;
    size_t p = pos_ + kw.size();
    while (p < text_.size() && Is(text_[p], kSpace)) ++p;
    if (text_.substr(p, next.size()) != next) return false;
    // An identifier must end there (`EMPTYx` is a name).
    size_t end = p + next.size();
    return !Is(next[0], kIdentStart) || end >= text_.size() ||
           !Is(text_[end], kIdentChar);
  }
  bool ConsumeKeyword(std::string_view kw) {
    // The keyword's bytes, then not an identifier character (`domainx` is
    // a name): no scan of the whole identifier.
    if (text_.size() - pos_ < kw.size() ||
        text_.compare(pos_, kw.size(), kw) != 0 ||
        (pos_ + kw.size() < text_.size() &&
         Is(text_[pos_ + kw.size()], kIdentChar))) {
      return false;
    }
    pos_ += kw.size();
    SkipSpace();
    return true;
  }
  // The error paths are out of line: they keep the hot paths small.
  [[gnu::noinline]] std::string Describe() {
    SkipSpace();
    if (pos_ >= text_.size()) return "end of input";
    std::string_view id = PeekIdent();
    if (!id.empty()) return QuoteForMessage(id);
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      snprintf(buf, sizeof(buf), "0x%02x", c);
      return std::string("byte ") + buf;
    }
    return std::string("'") + text_[pos_] + "'";
  }

  // ---- errors: the first one wins ----
  [[gnu::noinline]] bool Fail(Error e) {
    if (!error_) error_ = std::move(e);
    return false;
  }
  [[gnu::noinline]] Error ErrorAt(size_t offset, const std::string& message) {
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
  [[gnu::noinline]] bool FailAt(size_t offset, const std::string& message) {
    return Fail(ErrorAt(offset, message));
  }
  [[gnu::noinline]] bool FailInvalidAt(size_t offset,
                                       const std::string& message) {
    Error e = ErrorAt(offset, message);
    e.code = ErrorCode::kInvalidArgument;
    return Fail(std::move(e));
  }
  [[gnu::noinline]] bool Expected(const std::string& what) {
    SkipSpace();
    return FailAt(pos_, "expected " + what + ", found " + Describe());
  }
  [[gnu::noinline]] bool NestedTooDeep() {
    return FailAt(pos_, "expression nested deeper than " +
                            std::to_string(kMaxNesting) + " levels");
  }

  // Parses digits at pos_ (after an optional sign handled by the caller).
  // `negative` lets -9223372036854775808 through.
  bool ParseIntegerDigits(bool negative, int64_t* out) {
    size_t start = pos_;
    uint64_t v = 0;
    const uint64_t limit =
        negative ? uint64_t(kInt64Max) + 1 : uint64_t(kInt64Max);
    while (pos_ < text_.size() && Is(text_[pos_], kDigit)) {
      uint64_t d = static_cast<uint64_t>(text_[pos_] - '0');
      if (v > (limit - d) / 10) {
        return FailAt(start, "integer literal does not fit in int64");
      }
      v = v * 10 + d;
      ++pos_;
    }
    if (pos_ == start) return Expected("an integer");
    if (negative) {
      *out = v == uint64_t(kInt64Max) + 1 ? kInt64Min : -int64_t(v);
    } else {
      *out = int64_t(v);
    }
    return true;
  }
  bool ParseSignedInteger(int64_t* out) {
    bool negative = Consume('-');
    if (!negative) Consume('+');
    SkipSpace();
    if (!ParseIntegerDigits(negative, out)) return false;
    SkipSpace();
    return true;
  }

  // ---- grammar ----
  struct HeaderName {
    std::string_view name;
    size_t offset;  // where it was written, to point at a duplicate
  };
  bool ParseNameList(char close);
  Expr ParseTopExpr();
  Expr ParseExpr();
  Expr ParseExprNoDepthCheck();
  ParsedTerm ParseMinMax(ExprKind kind);
  ParsedTerm ParseUnary();
  ParsedTerm ParsePrimary();
  ParsedTerm ParsePrimaryHere();
  bool ParseInterval(Interval* out);
  bool ScanPlainInterval(Interval* out);
  Expr ScanVariableBeforeIn();
  Expr Negate(const ParsedTerm& t);

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  ExprContext* ctx_;
  std::optional<Error> error_;
  // The header's names in order (dims, range, runtime).
  SmallVector<HeaderName, 16> header_;
  // Declared variables, each with its first seven bytes and length packed
  // in a word: most names (d0, s1, th_x) compare as one integer.
  struct Name {
    uint64_t key;
    std::string_view name;
    const ExprNode* expr;
  };
  static uint64_t KeyOf(std::string_view name) {
    size_t n = std::min<size_t>(name.size(), 7);
    uint64_t key = static_cast<uint64_t>(std::min<size_t>(name.size(), 255))
                   << 56;
    for (size_t i = 0; i < n; ++i) {
      key |= static_cast<uint64_t>(static_cast<unsigned char>(name[i]))
             << (8 * i);
    }
    return key;
  }
  SmallVector<Name, 16> names_;
  const ExprNode* FindName(std::string_view name) const {
    uint64_t key = KeyOf(name);
    for (const Name& n : names_) {
      if (n.key == key && (name.size() <= 7 || n.name == name)) return n.expr;
    }
    return nullptr;
  }
  void Declare(std::string_view name, Expr e) {
    names_.push_back({KeyOf(name), name, e.node()});
  }
};

// Appends the names up to `close` to header_.
bool Parser::ParseNameList(char close) {
  if (Consume(close)) return true;
  while (true) {
    std::string_view id = PeekIdent();
    if (id.empty()) return Expected("a variable name");
    size_t at = pos_;
    pos_ += id.size();
    SkipSpace();
    if (id == "domain" || id == "in" || id == "mod" || id == "floordiv" ||
        id == "ceildiv" || id == "floorDiv" || id == "ceilDiv") {
      return FailAt(at,
                    QuoteForMessage(id) + " is a keyword, not a variable name");
    }
    header_.push_back({id, at});
    if (Consume(close)) return true;
    if (!Consume(',')) {
      return Expected(std::string("',' or '") + close +
                      "' in the variable list");
    }
  }
}

// The common domain item `name in ...`: a declared variable followed by
// the keyword `in` is read (and `in` consumed) without the expression
// machinery, which would read the same. Null (nothing consumed) for
// anything else.
Expr Parser::ScanVariableBeforeIn() {
  size_t p = pos_;
  if (p >= text_.size() || !Is(text_[p], kIdentStart)) return Expr();
  size_t end = p + 1;
  while (end < text_.size() && Is(text_[end], kIdentChar)) ++end;
  const ExprNode* var = FindName(text_.substr(p, end - p));
  if (var == nullptr) return Expr();
  size_t q = end;
  while (q < text_.size() && Is(text_[q], kSpace)) ++q;
  if (q + 1 >= text_.size() || text_[q] != 'i' || text_[q + 1] != 'n' ||
      (q + 2 < text_.size() && Is(text_[q + 2], kIdentChar))) {
    return Expr();
  }
  pos_ = q + 2;
  SkipSpace();
  return Expr(var);
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

Expr Parser::ParseExpr() {
  size_t start = (SkipSpace(), pos_);
  Expr e = ParseExprNoDepthCheck();
  if (!e) return Expr();
  if (e.depth() > kMaxExprDepth) {
    FailAt(start, "expression tree deeper than " +
                      std::to_string(kMaxExprDepth) +
                      " levels (e.g. a sum of that many terms)");
    return Expr();
  }
  return e;
}

// A whole result or constraint expression: also refused when its printed
// form would nest deeper than the parser accepts (see the file comment).
// The printed nesting is at most 2 per tree level plus 1, so only deep
// trees need the check.
Expr Parser::ParseTopExpr() {
  size_t start = (SkipSpace(), pos_);
  Expr e = ParseExpr();
  if (!e) return Expr();
  if (2 * static_cast<int64_t>(e.depth()) + 1 > kMaxNesting &&
      PrintedNesting(e) > kMaxNesting) {
    FailAt(start, "expression would print nested deeper than " +
                      std::to_string(kMaxNesting) +
                      " levels (its printed form could not be read "
                      "back; e.g. a chain of that many operators)");
    return Expr();
  }
  return e;
}

// expr := term {("+" | "-") term}, term := unary {mulop unary}: both
// levels in one loop (one call per operand rather than four).
Expr Parser::ParseExprNoDepthCheck() {
  if (++depth_ > kMaxNesting) {
    NestedTooDeep();
    return Expr();
  }
  Expr sum;                        // the complete terms so far
  bool minus = false;              // the current term follows a '-'
  ParsedTerm term = ParseUnary();  // the current term
  if (!term.expr) return Expr();
  while (true) {
    size_t op_at = pos_;
    char c = op_at < text_.size() ? text_[op_at] : '\0';
    ExprKind kind = ExprKind::kAdd;  // kAdd: not a multiplicative operator
    if (c == '*') {
      kind = ExprKind::kMul;
    } else if (c == '/') {
      kind = ExprKind::kFloorDiv;  // XLA HEAD prints floordiv as '/'
    } else if (c == '%') {
      kind = ExprKind::kMod;
    } else if (Is(c, kIdentStart)) {
      // One identifier scan decides between the word operators.
      std::string_view id = PeekIdent();
      if (id == "floordiv" || id == "floorDiv") {
        kind = ExprKind::kFloorDiv;
      } else if (id == "ceildiv" || id == "ceilDiv") {
        kind = ExprKind::kCeilDiv;
      } else if (id == "mod") {
        kind = ExprKind::kMod;
      }
      if (kind != ExprKind::kAdd) pos_ += id.size() - 1;
    }
    if (kind != ExprKind::kAdd) {
      ++pos_;
      SkipSpace();
      ParsedTerm rhs = ParseUnary();
      if (!rhs.expr) return Expr();
      if (kind != ExprKind::kMul && rhs.expr.IsConstant(0)) {
        FailInvalidAt(op_at, "division by zero: the divisor is 0");
        return Expr();
      }
      term = ParsedTerm{ctx_->Binary(kind, term.expr, rhs.expr), false};
      continue;
    }
    // The term is complete.
    Expr t = minus ? Negate(term) : term.expr;
    sum = sum ? ctx_->Add(sum, t) : t;
    if (c == '+') {
      minus = false;
    } else if (c == '-' && !AtArrow()) {
      minus = true;
    } else {
      break;
    }
    ++pos_;
    SkipSpace();
    term = ParseUnary();
    if (!term.expr) return Expr();
  }
  --depth_;
  return sum;
}

// Operands return their term by value (two registers); a null expr means
// the error is recorded.
ParsedTerm Parser::ParseUnary() {
  if (pos_ >= text_.size()) return (Expected("an expression"), ParsedTerm{});
  if (text_[pos_] == '-' && !AtArrow()) {
    ++pos_;
    SkipSpace();
    if (pos_ < text_.size() && Is(text_[pos_], kDigit)) {
      // A negative literal (allows INT64_MIN); `-2d0` is `d0 * -2`.
      int64_t v = 0;
      if (!ParseIntegerDigits(/*negative=*/true, &v)) return {};
      if (pos_ < text_.size() && Is(text_[pos_], kIdentStart)) {
        ParsedTerm var = ParsePrimary();
        if (!var.expr) return {};
        return {ctx_->Mul(var.expr, ctx_->Constant(v)), false};
      }
      SkipSpace();
      return {ctx_->Constant(v), false};
    }
    if (++depth_ > kMaxNesting) return (NestedTooDeep(), ParsedTerm{});
    ParsedTerm t = ParseUnary();
    if (!t.expr) return {};
    --depth_;
    return {Negate(ParsedTerm{t.expr, true}), false};
  }
  return ParsePrimaryHere();
}

ParsedTerm Parser::ParsePrimary() {
  SkipSpace();
  if (pos_ >= text_.size()) return (Expected("an expression"), ParsedTerm{});
  return ParsePrimaryHere();
}

// A primary at pos_, which is past the spaces and before the end.
ParsedTerm Parser::ParsePrimaryHere() {
  char c = text_[pos_];
  if (Is(c, kIdentStart)) {
    size_t end = pos_ + 1;
    while (end < text_.size() && Is(text_[end], kIdentChar)) ++end;
    std::string_view id = text_.substr(pos_, end - pos_);
    if (const ExprNode* var = FindName(id)) {
      // min / max declared as variables are still calls when `(` follows.
      if (!(id.size() == 3 && (id == "min" || id == "max"))) {
        pos_ = end;
        SkipSpace();
        return {Expr(var), false};
      }
    }
    if (id == "min" || id == "max") {
      // A call when `(` follows; otherwise a variable named min / max.
      size_t after = end;
      while (after < text_.size() && Is(text_[after], kSpace)) ++after;
      if (after < text_.size() && text_[after] == '(') {
        pos_ = after + 1;
        return ParseMinMax(id == "min" ? ExprKind::kMin : ExprKind::kMax);
      }
    }
    const ExprNode* var = FindName(id);
    if (var == nullptr) {
      FailAt(pos_, "unknown variable " + QuoteForMessage(id));
      return {};
    }
    pos_ = end;
    SkipSpace();
    return {Expr(var), false};
  }
  if (c == '(') {
    ++pos_;
    Expr e = ParseExpr();
    if (!e) return {};
    if (!Consume(')')) return (Expected("')'"), ParsedTerm{});
    return {e, true};
  }
  if (Is(c, kDigit)) {
    int64_t v = 0;
    if (!ParseIntegerDigits(false, &v)) return {};
    if (pos_ < text_.size() && Is(text_[pos_], kIdentStart)) {
      // The documents' shorthand `16d0` for `d0 * 16`.
      ParsedTerm var = ParsePrimary();
      if (!var.expr) return {};
      return {ctx_->Mul(var.expr, ctx_->Constant(v)), false};
    }
    SkipSpace();
    return {ctx_->Constant(v), false};
  }
  Expected("an expression");
  return {};
}

// After `min(` / `max(`: two or more arguments, folded to the left.
ParsedTerm Parser::ParseMinMax(ExprKind kind) {
  const char* name = kind == ExprKind::kMin ? "min" : "max";
  Expr acc = ParseExpr();
  if (!acc) return {};
  if (!Consume(',')) {
    Expected(std::string("',' and a second argument of '") + name + "'");
    return {};
  }
  while (true) {
    Expr next = ParseExpr();
    if (!next) return {};
    acc = ctx_->Binary(kind, acc, next);
    if (Consume(')')) break;
    if (!Consume(',')) {
      Expected(std::string("',' or ')' in the arguments of '") + name + "'");
      return {};
    }
  }
  return {acc, false};
}

// The common interval `[lo, hi]` (optional minus signs, at most 18 digits
// each) in one scan; anything else goes through the general path below,
// which also words the errors.
bool Parser::ScanPlainInterval(Interval* out) {
  const char* p = text_.data() + pos_;
  const char* end = text_.data() + text_.size();
  auto skip = [&] {
    while (p < end && Is(*p, kSpace)) ++p;
  };
  auto number = [&](int64_t* v) {
    bool negative = p < end && *p == '-';
    if (negative) ++p;
    const char* start = p;
    int64_t x = 0;
    while (p < end && Is(*p, kDigit) && p - start < 18) {
      x = x * 10 + (*p - '0');
      ++p;
    }
    if (p == start || (p < end && Is(*p, kDigit))) return false;
    *v = negative ? -x : x;
    return true;
  };
  if (p >= end || *p != '[') return false;
  ++p;
  skip();
  if (!number(&out->lower)) return false;
  skip();
  if (p >= end || *p != ',') return false;
  ++p;
  skip();
  if (!number(&out->upper)) return false;
  skip();
  if (p >= end || *p != ']') return false;
  pos_ = static_cast<size_t>(p + 1 - text_.data());
  SkipSpace();
  return true;
}

bool Parser::ParseInterval(Interval* out) {
  if (ScanPlainInterval(out)) return true;
  if (!Consume('[')) return Expected("'[' to open an interval");
  if (!ParseSignedInteger(&out->lower)) return false;
  if (!Consume(',')) return Expected("',' between the interval's bounds");
  if (!ParseSignedInteger(&out->upper)) return false;
  if (!Consume(']')) return Expected("']' to close the interval");
  return true;
}

Result<IndexingMap> Parser::ParseMap() {
  // The grammar; on failure the first error recorded is the answer.
  // The map is built in place (no move-assignment of a temporary).
  std::optional<IndexingMap> map;
  auto parse = [&]() -> bool {
    if (AtEnd()) return Expected("an indexing map");
    if (ConsumeKeyword("KNOWN")) {
      if (!ConsumeKeyword("EMPTY")) return Expected("'EMPTY' after 'KNOWN'");
      if (!AtEnd()) return Expected("end of input after 'KNOWN EMPTY'");
      map.emplace(IndexingMap::KnownEmpty(ctx_, 0, 0));
      return true;
    }
    if (!Consume('(')) return Expected("'(' to open the dimension list");
    if (!ParseNameList(')')) return false;
    size_t num_dims = header_.size();
    if (Consume('[') && !ParseNameList(']')) return false;
    size_t num_range = header_.size() - num_dims;
    if (Consume('{') && !ParseNameList('}')) return false;
    size_t num_rt = header_.size() - num_dims - num_range;
    std::vector<Variable> dims(num_dims), ranges(num_range), rts(num_rt);
    for (size_t i = 0; i < header_.size(); ++i) {
      const HeaderName& h = header_[i];
      bool is_dim = i < num_dims;
      size_t k = is_dim ? i : i - num_dims;  // symbol position
      Variable& v = is_dim          ? dims[i]
                    : k < num_range ? ranges[k]
                                    : rts[k - num_range];
      // A default name (`d2` for dim 2, `s0`) is stored empty, as the
      // IndexingMap constructor would store it, without a copy.
      // (One call per kind: each with a constant prefix, once inlined.)
      const bool is_default = is_dim ? IsDefaultName(h.name, "d", i)
                              : k < num_range
                                  ? IsDefaultName(h.name, "s", k)
                                  : IsDefaultName(h.name, "rt", k - num_range);
      if (!is_default) {
        v.name.assign(h.name);
      }
      if (FindName(h.name)) {
        return FailInvalidAt(h.offset, "variable " + QuoteForMessage(h.name) +
                                           " is named twice");
      }
      Declare(h.name, is_dim ? ctx_->Dim(static_cast<int64_t>(i))
                             : ctx_->Symbol(static_cast<int64_t>(k)));
    }
    SkipSpace();
    if (!(pos_ + 1 < text_.size() && text_[pos_] == '-' &&
          text_[pos_ + 1] == '>')) {
      return Expected("'->' after the variable lists");
    }
    pos_ += 2;
    SkipSpace();
    if (!Consume('(')) return Expected("'(' to open the result list");
    // Collected inline, then copied into a vector of the exact size (one
    // allocation per map rather than one per doubling).
    SmallVector<Expr, 16> result_list;
    if (!Consume(')')) {
      while (true) {
        Expr e = ParseTopExpr();
        if (!e) return false;
        result_list.push_back(e);
        if (Consume(')')) break;
        if (!Consume(',')) return Expected("',' or ')' in the result list");
      }
    }
    SmallVector<Constraint, 16> constraints;
    bool known_empty = false;
    // The comma before `domain:` and between domain items is optional (see
    // the file comment): the documents often write one item per line
    // without commas, and XLA's parser accepted `) domain:` in some
    // versions.
    bool comma = Consume(',');
    if (comma || PeekIdent() == "domain") {
      if (!ConsumeKeyword("domain")) return Expected("'domain'");
      if (!Consume(':')) return Expected("':' after 'domain'");
      // `KNOWN` and `is_simplified` are keywords only where they are
      // followed by `EMPTY` and `:`: a variable may have either name
      // (`KNOWN in [0, 3]`), and every map prints to text this parser reads
      // back (a fuzz finding).
      if (KeywordFollowedBy("KNOWN", "EMPTY")) {
        ConsumeKeyword("KNOWN");
        ConsumeKeyword("EMPTY");
        known_empty = true;
      } else {
        while (true) {
          // The common `name in [lo, hi]` first (a variable may be named
          // is_simplified: `is_simplified in [0, 3]`), then the obsolete
          // `is_simplified: true|false` field (XLA, 2024-09).
          Expr var = ScanVariableBeforeIn();
          if (!var && KeywordFollowedBy("is_simplified", ":")) {
            pos_ += 13;
            SkipSpace();
            if (!Consume(':')) return Expected("':' after 'is_simplified'");
            if (!ConsumeKeyword("true") && !ConsumeKeyword("false")) {
              return Expected("'true' or 'false'");
            }
          } else {
            Expr e = var;
            if (!e) {
              e = ParseTopExpr();
              if (!e) return false;
              if (!ConsumeKeyword("in")) {
                return Expected("'in' after a domain expression");
              }
            }
            Interval iv;
            if (!ParseInterval(&iv)) return false;
            constraints.push_back({e, iv});
          }
          if (!Consume(',') && AtEnd()) break;
        }
      }
    }
    if (!AtEnd()) return Expected("',' or end of input");
    map.emplace(ctx_, std::move(dims), std::move(ranges), std::move(rts),
                std::vector<Expr>(result_list.begin(), result_list.end()));
    // Bounds and constraints in text order: a bare variable's `in`
    // intersects its bounds (an inverted interval makes the map KNOWN
    // EMPTY).
    for (const Constraint& c : constraints) {
      map->AddConstraint(c.expr, c.interval);
    }
    if (known_empty) map->ResetToKnownEmpty();
    return true;
  };
  if (!parse()) {
    IXA_CHECK(error_.has_value());
    return std::move(*error_);
  }
  return std::move(*map);
}

Result<Expr> Parser::ParseStandaloneExpr(const std::vector<std::string>& dims,
                                         const std::vector<std::string>& syms) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!FindName(dims[i]))
      Declare(dims[i], ctx_->Dim(static_cast<int64_t>(i)));
  }
  for (size_t i = 0; i < syms.size(); ++i) {
    if (!FindName(syms[i])) {
      Declare(syms[i], ctx_->Symbol(static_cast<int64_t>(i)));
    }
  }
  Expr e = ParseTopExpr();
  if (!e) return std::move(*error_);
  if (!AtEnd()) {
    Expected("end of expression");
    return std::move(*error_);
  }
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
