// Printing in XLA's two text syntaxes (spec/xla-reference.md §b).
//
// Affine (classic MLIR affine syntax, the default):
//   - coefficient after the operand (`d0 * 4`), `-d0` for `d0 * -1`;
//   - `a - b` for `a + b * -1`, `a - b * 3` for `a + b * -3`, `a - 5`;
//   - binary operands of a non-add op are parenthesised
//     (`(d0 floordiv 8) * 8`, `(s0 * 128) mod 715`);
//   - `min(a, b)` / `max(a, b)` as calls (MLIR's AffineExpr has neither;
//     they print the same way in both syntaxes).
// Symbolic (XLA's SymbolicExpr printer, 2026-06 on): the same, except
//   - floordiv prints `/`;
//   - the summands of every sum are printed in SymbolicExpr's canonical
//     order (E17 HEAD: Add, Mul, Mod, FloorDiv, CeilDiv, Max, Min, Variable,
//     Constant, then by operands). Nested sums are flattened into their
//     sum (`a + (b + c)` prints as `a + b + c`), so no summand is an Add.
//     The spec does not pin the order of operands of one type; we use
//     core's structural order (CompareExprs: dims before symbols by
//     position, then the operands left to right), on the already reordered
//     subterms so that printing is idempotent.
//   - Not pinned either, and kept from the affine form so that both
//     syntaxes nest the same: the sign conventions (`-d0`, `a - b * 3`),
//     and parentheses around every binary operand of a non-add op (XLA
//     HEAD omits some, e.g. `d0 * 2 * 3`; ours parse to the same tree).
//
// A chain of negations prints as `--x` (not `-(-x)`): both read back as
// the same tree, and the short form nests half as deep, so that a map the
// parser accepted with many minus signs prints to text it accepts again.
#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/text.h"

namespace ixa {

namespace {

bool IsNegation(Expr e) {
  return e.kind() == ExprKind::kMul && e.rhs().IsConstant(-1);
}

// What std::to_string prints, without the temporary string: every map of
// every response goes through here (issue 13).
void AppendInt(int64_t v, std::string& out) {
  if (v >= 0 && v < 10) {  // most constants, bounds and positions
    out += static_cast<char>('0' + v);
    return;
  }
  char buf[24];
  char* end = std::to_chars(buf, buf + sizeof(buf), v).ptr;
  out.append(buf, static_cast<size_t>(end - buf));
}

// Appends a literal with its length known at compile time (`+=` of a
// char pointer measures it at run time).
template <size_t N>
void Put(std::string& out, const char (&text)[N]) {
  out.append(text, N - 1);
}

// `prefix<i>`, a default variable name: formatted on the stack and
// appended at once.
void AppendDefaultName(char prefix, int64_t i, std::string& out) {
  char buf[24];
  buf[0] = prefix;
  char* end = std::to_chars(buf + 1, buf + sizeof(buf), i).ptr;
  out.append(buf, static_cast<size_t>(end - buf));
}

// `[lower, upper]`, as Interval::ToString prints it.
void AppendInterval(const Interval& interval, std::string& out) {
  // Formatted on the stack and appended at once (one capacity check).
  char buf[48];
  char* p = buf;
  *p++ = '[';
  p = std::to_chars(p, buf + sizeof(buf), interval.lower).ptr;
  *p++ = ',';
  *p++ = ' ';
  p = std::to_chars(p, buf + sizeof(buf), interval.upper).ptr;
  *p++ = ']';
  out.append(buf, static_cast<size_t>(p - buf));
}

// Where the printer takes variable names from: name lists (PrintExpr; a
// position past a list's end prints d<i> / s<i>), or a map's variables,
// read in place, without building the lists per printed map. Both give
// the same names as DimNames / SymbolNames.
class Names {
 public:
  Names(const std::vector<std::string>& dims,
        const std::vector<std::string>& syms)
      : dims_(&dims), syms_(&syms) {}
  explicit Names(const IndexingMap& map) : map_(&map) {}

  void AppendDim(int64_t i, std::string& out) const {
    const size_t k = static_cast<size_t>(i);
    if (map_ == nullptr) {
      if (k < dims_->size()) {
        out += (*dims_)[k];
      } else {
        AppendDefaultName('d', i, out);
      }
      return;
    }
    if (k < map_->dims().size() && !map_->dims()[k].name.empty()) {
      out += map_->dims()[k].name;
    } else {
      AppendDefaultName('d', i, out);
    }
  }

  void AppendSymbol(int64_t i, std::string& out) const {
    const size_t k = static_cast<size_t>(i);
    if (map_ == nullptr) {
      if (k < syms_->size()) {
        out += (*syms_)[k];
      } else {
        AppendDefaultName('s', i, out);
      }
      return;
    }
    const size_t num_range = map_->range_vars().size();
    if (k < num_range) {
      const std::string& name = map_->range_vars()[k].name;
      if (name.empty()) {
        AppendDefaultName('s', i, out);
      } else {
        out += name;
      }
    } else if (k - num_range < map_->rt_vars().size()) {
      const std::string& name = map_->rt_vars()[k - num_range].name;
      if (name.empty()) {
        Put(out, "rt");
        AppendInt(static_cast<int64_t>(k - num_range), out);
      } else {
        out += name;
      }
    } else {
      AppendDefaultName('s', i, out);
    }
  }

 private:
  const std::vector<std::string>* dims_ = nullptr;
  const std::vector<std::string>* syms_ = nullptr;
  const IndexingMap* map_ = nullptr;
};

// The text form needs distinct names (the parser refuses a name written
// twice), but a map's names need not be: a custom name may equal another
// variable's default or custom name after composition (`(s0)` composed
// with `(d0)[s0]` has dim `s0` and symbol `s0`), after symbols are removed
// or renumbered, or when dims are added. Then the printer prints a copy
// whose names are distinct: a custom name keeps its spelling over a
// default one, the earlier over the later among equals, and each other
// gets the first free `<name>_<k>`. Names are no part of a map's equality,
// so parse(print(m)) is still m, and the print of that is the same text.
// Maps with default names only (most) are not looked at twice: default
// names are distinct by construction.
bool HasCustomName(const IndexingMap& m) {
  for (auto* vars : {&m.dims(), &m.range_vars(), &m.rt_vars()}) {
    for (const Variable& v : *vars) {
      if (!v.name.empty()) return true;
    }
  }
  return false;
}

// The copy of m with distinct names, or nullopt when m's are distinct.
[[gnu::noinline]] std::optional<IndexingMap> WithDistinctNames(
    const IndexingMap& m) {
  const size_t nd = m.dims().size(), nr = m.range_vars().size();
  const size_t n_all = nd + static_cast<size_t>(m.num_symbols());
  auto var = [&](size_t k) -> const Variable& {
    return k < nd ? m.dims()[k] : m.symbol(static_cast<int>(k - nd));
  };
  // Is `name` the default name of variable k? (No allocation.)
  auto is_default_of = [&](size_t k, std::string_view name) {
    if (k < nd) return IsDefaultName(name, "d", k);
    if (k - nd < nr) return IsDefaultName(name, "s", k - nd);
    return IsDefaultName(name, "rt", k - nd - nr);
  };
  bool collide = false;
  for (size_t i = 0; i < n_all && !collide; ++i) {
    const std::string& name = var(i).name;
    if (name.empty()) continue;
    for (size_t j = 0; j < n_all && !collide; ++j) {
      if (j == i) continue;
      const std::string& other = var(j).name;
      collide =
          other.empty() ? is_default_of(j, name) : (j > i && other == name);
    }
  }
  if (!collide) return std::nullopt;
  std::vector<std::string> names;
  std::vector<bool> is_custom;
  for (int i = 0; i < m.num_dims(); ++i) {
    names.push_back(m.DimName(i));
    is_custom.push_back(!m.dims()[i].name.empty());
  }
  for (int i = 0; i < m.num_symbols(); ++i) {
    names.push_back(m.SymbolName(i));
    is_custom.push_back(!m.symbol(i).name.empty());
  }
  const size_t n = names.size();
  std::vector<bool> yields(n, false);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (names[i] != names[j]) continue;
      // The later one yields unless only the earlier one is default.
      yields[(is_custom[j] && !is_custom[i]) ? i : j] = true;
    }
  }
  auto taken = [&](const std::string& name) {
    for (const std::string& x : names) {
      if (x == name) return true;
    }
    return false;
  };
  IndexingMap out = m;
  for (size_t i = 0; i < n; ++i) {
    if (yields[i]) {
      // A name no variable has (the keepers' and the renamed ones' so
      // far).
      std::string base = names[i];
      names[i].clear();
      for (int k = 1;; ++k) {
        std::string candidate = base + "_" + std::to_string(k);
        if (!taken(candidate)) {
          names[i] = std::move(candidate);
          break;
        }
      }
    }
    Variable& v = i < nd ? out.mutable_dims()[i]
                         : out.mutable_symbol(static_cast<int>(i - nd));
    v.name = names[i];
  }
  return out;
}

class ExprPrinter {
 public:
  ExprPrinter(const Names& names, TextSyntax syntax)
      : names_(names), syntax_(syntax) {}

  // Prints e (already in the syntax's order). `strong`: e is an operand of
  // a non-add operator and must be parenthesised if it is an operation.
  void Print(Expr e, bool strong, std::string& out) {
    switch (e.kind()) {
      case ExprKind::kConstant:
        AppendInt(e.constant(), out);
        return;
      case ExprKind::kDim:
        names_.AppendDim(e.position(), out);
        return;
      case ExprKind::kSymbol:
        names_.AppendSymbol(e.position(), out);
        return;
      case ExprKind::kAdd:
        Open(strong, out);
        PrintSum(e, out);
        Close(strong, out);
        return;
      case ExprKind::kMin:
      case ExprKind::kMax:
        // A call is a primary: never parenthesised.
        Put(out, e.kind() == ExprKind::kMin ? "min(" : "max(");
        Enter();
        Print(e.lhs(), /*strong=*/false, out);
        Put(out, ", ");
        Print(e.rhs(), /*strong=*/false, out);
        Leave();
        out += ')';
        return;
      case ExprKind::kMul:
      case ExprKind::kFloorDiv:
      case ExprKind::kCeilDiv:
      case ExprKind::kMod:
        break;
    }
    // Multiplicative operators: parenthesise when nested in a strong slot.
    Open(strong, out);
    if (IsNegation(e)) {
      PrintNegation(e, out);
    } else {
      Print(e.lhs(), /*strong=*/true, out);
      switch (e.kind()) {
        case ExprKind::kMul:
          Put(out, " * ");
          break;
        case ExprKind::kFloorDiv:
          out += syntax_ == TextSyntax::kSymbolic ? " / " : " floordiv ";
          break;
        case ExprKind::kCeilDiv:
          Put(out, " ceildiv ");
          break;
        default:
          Put(out, " mod ");
          break;
      }
      Print(e.rhs(), /*strong=*/true, out);
    }
    Close(strong, out);
  }

  int max_nesting() const { return max_nesting_; }

 private:
  // The parser's nesting count: parentheses, unary minus on a non-literal,
  // min/max argument lists (the expression itself counts 1).
  void Enter() { max_nesting_ = std::max(max_nesting_, ++nesting_); }
  void Leave() { --nesting_; }
  void Open(bool strong, std::string& out) {
    if (!strong) return;
    out += '(';
    Enter();
  }
  void Close(bool strong, std::string& out) {
    if (!strong) return;
    out += ')';
    Leave();
  }

  // `-x` for x * -1; a chain of negations as `--x` (the parser reads a
  // unary minus applied to a unary minus exactly like `-(-x)`). The minus
  // is never followed by a digit that would make it a literal: x * -1 with
  // a constant x only survives construction for x = INT64_MIN, whose own
  // `-` follows.
  void PrintNegation(Expr e, std::string& out) {
    int depth = 0;
    while (IsNegation(e)) {
      out += '-';
      Enter();
      ++depth;
      e = e.lhs();
    }
    Print(e, /*strong=*/true, out);
    for (int i = 0; i < depth; ++i) Leave();
  }

  // Prints a (left-nested) sum, writing negative terms as subtractions.
  // The terms go on terms_, one stack for all the sums being printed (a
  // term can hold a sum), so a printer allocates it once.
  void PrintSum(Expr e, std::string& out) {
    const size_t base = terms_.size();
    CollectTerms(e, terms_);
    const size_t end = terms_.size();
    for (size_t i = base; i < end; ++i) {
      Expr t = terms_[i];  // a copy: printing t may grow terms_
      if (i == base) {
        PrintTerm(t, out);
        continue;
      }
      if (t.IsConstant() && t.constant() < 0 && t.constant() != kInt64Min) {
        Put(out, " - ");
        AppendInt(-t.constant(), out);
        continue;
      }
      // Not for a product of two constants (one that overflowed, so
      // construction kept it): `a - 2 * 5` would read back as a + -10, a
      // different tree.
      if (t.kind() == ExprKind::kMul && t.rhs().IsConstant() &&
          !t.lhs().IsConstant() && t.rhs().constant() < 0 &&
          t.rhs().constant() != kInt64Min) {
        Put(out, " - ");
        Print(t.lhs(), /*strong=*/true, out);
        if (t.rhs().constant() != -1) {
          Put(out, " * ");
          AppendInt(-t.rhs().constant(), out);
        }
        continue;
      }
      Put(out, " + ");
      PrintTerm(t, out);
    }
    terms_.resize(base);
  }

  void PrintTerm(Expr t, std::string& out) {
    // A nested sum on the right keeps its grouping: `a + (b + c)` is a
    // different tree from `(a + b) + c` and must round-trip as such.
    Print(t, /*strong=*/t.kind() == ExprKind::kAdd, out);
  }

  // Flattens only the left spine: `(a + b) + c` prints `a + b + c`, which
  // parses back (left-associatively) to the same tree.
  static void CollectTerms(Expr e, std::vector<Expr>& terms) {
    if (e.kind() == ExprKind::kAdd) {
      CollectTerms(e.lhs(), terms);
      terms.push_back(e.rhs());
    } else {
      terms.push_back(e);
    }
  }

  const Names& names_;
  TextSyntax syntax_;
  std::vector<Expr> terms_;
  int nesting_ = 1;
  int max_nesting_ = 1;
};

// SymbolicExpr's type order (spec/xla-reference.md §c E17, HEAD).
int SymbolicRank(ExprKind kind) {
  switch (kind) {
    case ExprKind::kAdd:
      return 0;
    case ExprKind::kMul:
      return 1;
    case ExprKind::kMod:
      return 2;
    case ExprKind::kFloorDiv:
      return 3;
    case ExprKind::kCeilDiv:
      return 4;
    case ExprKind::kMax:
      return 5;
    case ExprKind::kMin:
      return 6;
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      return 7;
    case ExprKind::kConstant:
      return 8;
  }
  return 9;
}

class SymbolicOrderer {
 public:
  Expr Run(Expr e) {
    if (!e.IsBinary()) return e;
    auto it = memo_.find(e.node());
    if (it != memo_.end()) return it->second;
    Expr out;
    ExprContext* ctx = e.context();
    if (e.kind() == ExprKind::kAdd) {
      // Every summand, nested sums included (`a + (b + c)` has the three),
      // so that the sorted left-nested rebuild is exactly the printed
      // structure and ordering it again changes nothing.
      std::vector<Expr> terms, stack = {e};
      while (!stack.empty()) {
        Expr x = stack.back();
        stack.pop_back();
        if (x.kind() == ExprKind::kAdd) {
          stack.push_back(x.rhs());
          stack.push_back(x.lhs());
        } else {
          terms.push_back(Run(x));
        }
      }
      // A sum of constants only exists when adding them overflowed on the
      // way (construction folds the rest); sorted, two of them could fold
      // into one, and the print would read back as another tree. Such a
      // sum keeps its order.
      bool all_constant = true;
      for (Expr t : terms) all_constant &= t.IsConstant();
      if (all_constant) {
        memo_.emplace(e.node(), e);
        return e;
      }
      std::stable_sort(terms.begin(), terms.end(), [](Expr a, Expr b) {
        int ra = SymbolicRank(a.kind()), rb = SymbolicRank(b.kind());
        if (ra != rb) return ra < rb;
        return CompareExprs(a, b) < 0;
      });
      out = terms[0];
      for (size_t i = 1; i < terms.size(); ++i) out = ctx->Add(out, terms[i]);
    } else {
      Expr l = Run(e.lhs()), r = Run(e.rhs());
      out = (l == e.lhs() && r == e.rhs()) ? e : ctx->Binary(e.kind(), l, r);
    }
    memo_.emplace(e.node(), out);
    return out;
  }

 private:
  std::unordered_map<const ExprNode*, Expr> memo_;
};

std::string PrintInSyntax(Expr e, const Names& names, TextSyntax syntax,
                          SymbolicOrderer* orderer) {
  std::string out;
  ExprPrinter printer(names, syntax);
  Expr shown = syntax == TextSyntax::kSymbolic ? orderer->Run(e) : e;
  printer.Print(shown, /*strong=*/false, out);
  return out;
}

}  // namespace

namespace {
thread_local TextSyntax default_text_syntax = TextSyntax::kAffine;
}  // namespace

TextSyntax DefaultTextSyntax() { return default_text_syntax; }

ScopedTextSyntax::ScopedTextSyntax(TextSyntax syntax)
    : previous_(default_text_syntax) {
  default_text_syntax = syntax;
}

ScopedTextSyntax::~ScopedTextSyntax() { default_text_syntax = previous_; }

std::optional<TextSyntax> TextSyntaxFromName(std::string_view name) {
  if (name == "affine") return TextSyntax::kAffine;
  if (name == "symbolic") return TextSyntax::kSymbolic;
  return std::nullopt;
}

Expr ToSymbolicOrder(Expr e) { return SymbolicOrderer().Run(e); }

int PrintedNesting(Expr e) {
  static const std::vector<std::string> kNoNames;
  const Names names(kNoNames, kNoNames);
  std::string scratch;
  ExprPrinter affine(names, TextSyntax::kAffine);
  affine.Print(e, /*strong=*/false, scratch);
  scratch.clear();
  ExprPrinter symbolic(names, TextSyntax::kSymbolic);
  symbolic.Print(ToSymbolicOrder(e), /*strong=*/false, scratch);
  return std::max(affine.max_nesting(), symbolic.max_nesting());
}

std::vector<std::string> DimNames(const IndexingMap& map) {
  std::vector<std::string> names;
  for (int i = 0; i < map.num_dims(); ++i) names.push_back(map.DimName(i));
  return names;
}

std::vector<std::string> SymbolNames(const IndexingMap& map) {
  std::vector<std::string> names;
  for (int i = 0; i < map.num_symbols(); ++i)
    names.push_back(map.SymbolName(i));
  return names;
}

std::string PrintExpr(Expr e, const std::vector<std::string>& dim_names,
                      const std::vector<std::string>& symbol_names,
                      TextSyntax syntax) {
  SymbolicOrderer orderer;
  return PrintInSyntax(e, Names(dim_names, symbol_names), syntax, &orderer);
}

std::string PrintExpr(Expr e, const IndexingMap& map, TextSyntax syntax) {
  if (HasCustomName(map)) {
    if (auto renamed = WithDistinctNames(map)) {
      return PrintExpr(e, *renamed, syntax);
    }
  }
  SymbolicOrderer orderer;
  return PrintInSyntax(e, Names(map), syntax, &orderer);
}

std::string PrintIndexingMap(const IndexingMap& map, TextSyntax syntax) {
  std::string out;
  AppendIndexingMap(map, syntax, out);
  return out;
}

// Written straight into `out`: no string per name, interval or expression
// (the query server prints a map per response, issue 13). Only the
// constraints, sorted by their text, are printed apart first.
void AppendIndexingMap(const IndexingMap& map, TextSyntax syntax,
                       std::string& out) {
  if (map.IsKnownEmpty()) {
    Put(out, "KNOWN EMPTY");
    return;
  }
  if (HasCustomName(map)) {
    if (auto renamed = WithDistinctNames(map)) {
      AppendIndexingMap(*renamed, syntax, out);
      return;
    }
  }
  const Names names(map);
  ExprPrinter printer(names, syntax);
  SymbolicOrderer orderer;  // shared: results and constraints share nodes
  auto print = [&](Expr e, std::string& to) {
    printer.Print(syntax == TextSyntax::kSymbolic ? orderer.Run(e) : e,
                  /*strong=*/false, to);
  };
  out += '(';
  for (int i = 0; i < map.num_dims(); ++i) {
    if (i) Put(out, ", ");
    names.AppendDim(i, out);
  }
  out += ')';
  if (map.num_range_vars() > 0) {
    out += '[';
    for (int i = 0; i < map.num_range_vars(); ++i) {
      if (i) Put(out, ", ");
      names.AppendSymbol(i, out);
    }
    out += ']';
  }
  if (map.num_rt_vars() > 0) {
    out += '{';
    for (int i = 0; i < map.num_rt_vars(); ++i) {
      if (i) Put(out, ", ");
      names.AppendSymbol(map.num_range_vars() + i, out);
    }
    out += '}';
  }
  Put(out, " -> (");
  for (int i = 0; i < map.num_results(); ++i) {
    if (i) Put(out, ", ");
    print(map.results()[i], out);
  }
  out += ')';

  bool all_unbounded = map.constraints().empty();
  for (const Variable& v : map.dims()) all_unbounded &= v.bounds.IsFull();
  for (int i = 0; i < map.num_symbols(); ++i) {
    all_unbounded &= map.symbol(i).bounds.IsFull();
  }
  if (all_unbounded) return;

  Put(out, ", domain: ");
  bool first = true;
  auto separate = [&] {
    if (!first) Put(out, ", ");
    first = false;
  };
  for (int i = 0; i < map.num_dims(); ++i) {
    separate();
    names.AppendDim(i, out);
    Put(out, " in ");
    AppendInterval(map.dims()[i].bounds, out);
  }
  for (int i = 0; i < map.num_symbols(); ++i) {
    separate();
    names.AppendSymbol(i, out);
    Put(out, " in ");
    AppendInterval(map.symbol(i).bounds, out);
  }
  // Constraints sorted by their printed text (XLA's order), so that equal
  // maps print equal strings whatever their insertion order. One
  // constraint needs no sorting and prints in place; several print into
  // one buffer, sorted as views into it.
  const std::vector<Constraint>& constraints = map.constraints();
  if (constraints.size() == 1) {
    separate();
    print(constraints[0].expr, out);
    Put(out, " in ");
    AppendInterval(constraints[0].interval, out);
    return;
  }
  if (constraints.empty()) return;
  std::string texts;
  std::vector<std::pair<size_t, size_t>> spans;  // offset, size in texts
  spans.reserve(constraints.size());
  for (const Constraint& c : constraints) {
    const size_t start = texts.size();
    print(c.expr, texts);
    Put(texts, " in ");
    AppendInterval(c.interval, texts);
    spans.emplace_back(start, texts.size() - start);
  }
  std::vector<std::string_view> sorted;
  sorted.reserve(spans.size());
  for (auto [offset, size] : spans) sorted.emplace_back(&texts[offset], size);
  std::sort(sorted.begin(), sorted.end());
  for (std::string_view c : sorted) {
    separate();
    out += c;
  }
}

}  // namespace ixa
