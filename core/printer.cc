// Printing in XLA's two text syntaxes (docs/xla-reference.md §(b)).
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
//     XLA does not pin the order of operands of one type; we use
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
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "core/node_map.h"
#include "core/small_vector.h"
#include "core/text.h"

namespace ixa {

namespace {

bool IsNegation(Expr e) {
  return e.kind() == ExprKind::kMul && e.rhs().IsConstant(-1);
}

// Collects printed text in a buffer on the stack and appends it to `out`
// in large pieces. Every map of every response is printed, and
// an append per token costs more than the token: std::string's append is
// an out-of-line call with a capacity check, a memcpy call and a
// terminator store, for a `d0` or a `, `. Here a token is a bounds check
// and a few stores. Whatever is written shows in `out` only after Flush()
// (or the destructor).
class TextWriter {
 public:
  explicit TextWriter(std::string& out) : out_(out) {}
  ~TextWriter() { Flush(); }
  TextWriter(const TextWriter&) = delete;
  TextWriter& operator=(const TextWriter&) = delete;

  // Each writer stores the characters through a local pointer and only
  // then moves pos_: a char store may alias anything, pos_ included, and
  // would make the compiler reload it after every character.
  [[gnu::always_inline]] void Char(char c) {
    char* p = Room(1);
    *p = c;
    pos_ = p + 1;
  }
  // A literal: its length is a constant, so the copy is a few moves.
  template <size_t N>
  [[gnu::always_inline]] void Lit(const char (&text)[N]) {
    static_assert(N - 1 <= kCapacity);
    char* p = Room(N - 1);
    std::memcpy(p, text, N - 1);
    pos_ = p + (N - 1);
  }
  void Text(std::string_view text) {
    if (text.size() > kCapacity) {  // a long name: no detour through buf_
      Flush();
      out_.append(text);
      return;
    }
    char* p = Room(text.size());
    std::memcpy(p, text.data(), text.size());
    pos_ = p + text.size();
  }
  // What std::to_string prints.
  [[gnu::always_inline]] void Int(int64_t v) {
    pos_ = PutInt(Room(kMaxIntChars), v);
  }
  // `<prefix><i>`, a default variable name (`d3`, `s0`, `rt1`).
  template <size_t N>
  [[gnu::always_inline]] void Name(const char (&prefix)[N], int64_t i) {
    char* p = Room(N - 1 + kMaxIntChars);
    std::memcpy(p, prefix, N - 1);
    pos_ = PutInt(p + (N - 1), i);
  }
  // ` in [lower, upper]`: a domain item's interval, as Interval::ToString
  // prints it, after the ` in `.
  [[gnu::always_inline]] void InInterval(const Interval& interval) {
    const int64_t lower = interval.lower, upper = interval.upper;
    char* p = Room(2 * kMaxIntChars + 8);
    std::memcpy(p, " in [", 5);
    p += 5;
    p = PutInt(p, lower);
    *p++ = ',';
    *p++ = ' ';
    p = PutInt(p, upper);
    *p++ = ']';
    pos_ = p;
  }

  // The length of the text written so far: what out_ holds once flushed.
  size_t size() const { return out_.size() + static_cast<size_t>(pos_ - buf_); }
  // Out of line: a flush per map (or per kCapacity characters) is rare,
  // and the calls to append stay out of every writer above.
  [[gnu::noinline]] void Flush() {
    out_.append(buf_, static_cast<size_t>(pos_ - buf_));
    pos_ = buf_;
  }

 private:
  static constexpr size_t kCapacity = 1024;
  static constexpr size_t kMaxIntChars = 20;  // `-9223372036854775808`

  // Where n more characters (n <= kCapacity) go.
  [[gnu::always_inline]] char* Room(size_t n) {
    if (static_cast<size_t>(buf_ + kCapacity - pos_) < n) Flush();
    return pos_;
  }
  // Writes v at p, which has kMaxIntChars of room; returns its end.
  [[gnu::always_inline]] static char* PutInt(char* p, int64_t v) {
    if (static_cast<uint64_t>(v) < 10) {  // most constants and positions
      *p = static_cast<char>('0' + v);
      return p + 1;
    }
    if (static_cast<uint64_t>(v) < 100) {  // most bounds
      p[0] = static_cast<char>('0' + v / 10);
      p[1] = static_cast<char>('0' + v % 10);
      return p + 2;
    }
    return PutLongInt(p, v);
  }
  // Out of line: inlined, to_chars would make every caller save registers.
  [[gnu::noinline]] static char* PutLongInt(char* p, int64_t v) {
    return std::to_chars(p, p + kMaxIntChars, v).ptr;
  }

  std::string& out_;
  char* pos_ = buf_;
  char buf_[kCapacity];
};

// Where the printer takes variable names from: name lists (PrintExpr; a
// position past a list's end prints d<i> / s<i>), or a map's variables,
// read in place, without building the lists per printed map. Both give
// the same names as DimNames / SymbolNames.
class Names {
 public:
  Names(const std::vector<std::string>& dims,
        const std::vector<std::string>& syms)
      : dim_names_(dims.data()),
        sym_names_(syms.data()),
        num_dims_(dims.size()),
        num_range_(syms.size()) {}
  explicit Names(const IndexingMap& map)
      : dims_(map.dims().data()),
        range_vars_(map.range_vars().data()),
        rt_vars_(map.rt_vars().data()),
        num_dims_(map.dims().size()),
        num_range_(map.range_vars().size()),
        num_rt_(map.rt_vars().size()) {}

  // Inline: most leaves of most expressions are dims.
  [[gnu::always_inline]] void AppendDim(int64_t i, TextWriter& out) const {
    const size_t k = static_cast<size_t>(i);
    if (k < num_dims_ && AppendGiven(dims_, dim_names_, k, out)) return;
    out.Name("d", i);
  }

  void AppendSymbol(int64_t i, TextWriter& out) const {
    const size_t k = static_cast<size_t>(i);
    if (k < num_range_) {
      if (AppendGiven(range_vars_, sym_names_, k, out)) return;
    } else if (k - num_range_ < num_rt_) {
      const std::string& name = rt_vars_[k - num_range_].name;
      if (name.empty()) {
        out.Name("rt", static_cast<int64_t>(k - num_range_));
      } else {
        out.Text(name);
      }
      return;
    }
    out.Name("s", i);
  }

 private:
  // Entry k's own name, from the map's variables (`vars`) or else from the
  // name list; false for a variable without one (it prints its default).
  [[gnu::always_inline]] static bool AppendGiven(const Variable* vars,
                                                 const std::string* names,
                                                 size_t k, TextWriter& out) {
    if (vars == nullptr) {
      out.Text(names[k]);
      return true;
    }
    if (vars[k].name.empty()) return false;
    out.Text(vars[k].name);
    return true;
  }

  // From a map: its variables, read in place (rt_vars_ after range_vars_
  // in the symbol positions). From name lists: dim_names_ and sym_names_
  // (the symbols all counted in num_range_), and dims_ and range_vars_
  // null. (A map's empty list may have a null data() too; its count is 0,
  // so it is never read.)
  const Variable* dims_ = nullptr;
  const Variable* range_vars_ = nullptr;
  const Variable* rt_vars_ = nullptr;
  const std::string* dim_names_ = nullptr;
  const std::string* sym_names_ = nullptr;
  size_t num_dims_ = 0;
  size_t num_range_ = 0;
  size_t num_rt_ = 0;
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
  // Leaves (about half the nodes) print here, without a call.
  [[gnu::always_inline]] void Print(Expr e, bool strong, TextWriter& out) {
    switch (e.kind()) {
      case ExprKind::kConstant:
        out.Int(e.constant());
        return;
      case ExprKind::kDim:
        names_.AppendDim(e.position(), out);
        return;
      case ExprKind::kSymbol:
        names_.AppendSymbol(e.position(), out);
        return;
      default:
        PrintOperation(e, strong, out);
        return;
    }
  }

  int max_nesting() const { return max_nesting_; }

 private:
  // Out of line: the recursion goes through here, and Print stays small
  // enough to inline at every operand.
  [[gnu::noinline]] void PrintOperation(Expr e, bool strong, TextWriter& out) {
    switch (e.kind()) {
      case ExprKind::kConstant:  // not reached: Print prints leaves
      case ExprKind::kDim:
      case ExprKind::kSymbol:
        Print(e, strong, out);
        return;
      case ExprKind::kAdd:
        Open(strong, out);
        PrintSum(e, out);
        Close(strong, out);
        return;
      case ExprKind::kMin:
      case ExprKind::kMax:
        // A call is a primary: never parenthesised.
        if (e.kind() == ExprKind::kMin) {
          out.Lit("min(");
        } else {
          out.Lit("max(");
        }
        Enter();
        Print(e.lhs(), /*strong=*/false, out);
        out.Lit(", ");
        Print(e.rhs(), /*strong=*/false, out);
        Leave();
        out.Char(')');
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
          out.Lit(" * ");
          break;
        case ExprKind::kFloorDiv:
          if (syntax_ == TextSyntax::kSymbolic) {
            out.Lit(" / ");
          } else {
            out.Lit(" floordiv ");
          }
          break;
        case ExprKind::kCeilDiv:
          out.Lit(" ceildiv ");
          break;
        default:
          out.Lit(" mod ");
          break;
      }
      Print(e.rhs(), /*strong=*/true, out);
    }
    Close(strong, out);
  }

  // The parser's nesting count: parentheses, unary minus on a non-literal,
  // min/max argument lists (the expression itself counts 1).
  void Enter() { max_nesting_ = std::max(max_nesting_, ++nesting_); }
  void Leave() { --nesting_; }
  void Open(bool strong, TextWriter& out) {
    if (!strong) return;
    out.Char('(');
    Enter();
  }
  void Close(bool strong, TextWriter& out) {
    if (!strong) return;
    out.Char(')');
    Leave();
  }

  // `-x` for x * -1; a chain of negations as `--x` (the parser reads a
  // unary minus applied to a unary minus exactly like `-(-x)`). The minus
  // is never followed by a digit that would make it a literal: x * -1 with
  // a constant x only survives construction for x = INT64_MIN, whose own
  // `-` follows.
  void PrintNegation(Expr e, TextWriter& out) {
    int depth = 0;
    while (IsNegation(e)) {
      out.Char('-');
      Enter();
      ++depth;
      e = e.lhs();
    }
    Print(e, /*strong=*/true, out);
    for (int i = 0; i < depth; ++i) Leave();
  }

  // Prints a (left-nested) sum, writing negative terms as subtractions.
  // The terms go on terms_, one stack for all the sums being printed (a
  // term can hold a sum), inline up to 16 terms: most maps allocate nothing
  // for it.
  void PrintSum(Expr e, TextWriter& out) {
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
        out.Lit(" - ");
        out.Int(-t.constant());
        continue;
      }
      // Not for a product of two constants (one that overflowed, so
      // construction kept it): `a - 2 * 5` would read back as a + -10, a
      // different tree.
      if (t.kind() == ExprKind::kMul && t.rhs().IsConstant() &&
          !t.lhs().IsConstant() && t.rhs().constant() < 0 &&
          t.rhs().constant() != kInt64Min) {
        out.Lit(" - ");
        Print(t.lhs(), /*strong=*/true, out);
        if (t.rhs().constant() != -1) {
          out.Lit(" * ");
          out.Int(-t.rhs().constant());
        }
        continue;
      }
      out.Lit(" + ");
      PrintTerm(t, out);
    }
    terms_.resize(base);
  }

  void PrintTerm(Expr t, TextWriter& out) {
    // A nested sum on the right keeps its grouping: `a + (b + c)` is a
    // different tree from `(a + b) + c` and must round-trip as such.
    Print(t, /*strong=*/t.kind() == ExprKind::kAdd, out);
  }

  // Flattens only the left spine: `(a + b) + c` prints `a + b + c`, which
  // parses back (left-associatively) to the same tree.
  static void CollectTerms(Expr e, SmallVector<Expr, 16>& terms) {
    if (e.kind() == ExprKind::kAdd) {
      CollectTerms(e.lhs(), terms);
      terms.push_back(e.rhs());
    } else {
      terms.push_back(e);
    }
  }

  const Names& names_;
  TextSyntax syntax_;
  SmallVector<Expr, 16> terms_;
  int nesting_ = 1;
  int max_nesting_ = 1;
};

// SymbolicExpr's type order (docs/xla-reference.md §(c) E17, HEAD).
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

bool SymbolicBefore(Expr a, Expr b) {
  int ra = SymbolicRank(a.kind()), rb = SymbolicRank(b.kind());
  if (ra != rb) return ra < rb;
  return CompareExprs(a, b) < 0;
}

class SymbolicOrderer {
 public:
  Expr Run(Expr e) {
    if (!e.IsBinary()) return e;
    if (const Expr* done = memo_.Find(e.node())) return *done;
    Expr out;
    if (e.kind() == ExprKind::kAdd) {
      out = SortSum(e);
    } else {
      Expr l = Run(e.lhs()), r = Run(e.rhs());
      out = (l == e.lhs() && r == e.rhs())
                ? e
                : e.context()->Binary(e.kind(), l, r);
    }
    memo_.Put(e.node(), out);
    return out;
  }

 private:
  // Out of line, so that only the frames of sums carry the term lists
  // down the recursion.
  [[gnu::noinline]] Expr SortSum(Expr e) {
    // Every summand, nested sums included (`a + (b + c)` has the three),
    // so that the sorted left-nested rebuild is exactly the printed
    // structure and ordering it again changes nothing.
    SmallVector<Expr, 16> terms, stack = {e};
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
    if (all_constant) return e;
    // Any stable sort gives the same order. Most sums have a few terms:
    // an insertion sort, without the buffer std::stable_sort allocates.
    const size_t n = terms.size();
    if (n <= 16) {
      for (size_t i = 1; i < n; ++i) {
        Expr x = terms[i];
        size_t j = i;
        for (; j > 0 && SymbolicBefore(x, terms[j - 1]); --j) {
          terms[j] = terms[j - 1];
        }
        terms[j] = x;
      }
    } else {
      std::stable_sort(terms.begin(), terms.end(), SymbolicBefore);
    }
    ExprContext* ctx = e.context();
    Expr out = terms[0];
    for (size_t i = 1; i < n; ++i) out = ctx->Add(out, terms[i]);
    return out;
  }

  NodeMap<Expr> memo_;
};

std::string PrintInSyntax(Expr e, const Names& names, TextSyntax syntax,
                          SymbolicOrderer* orderer) {
  std::string out;
  {
    TextWriter writer(out);
    ExprPrinter printer(names, syntax);
    Expr shown = syntax == TextSyntax::kSymbolic ? orderer->Run(e) : e;
    printer.Print(shown, /*strong=*/false, writer);
  }  // flushed
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
  {
    TextWriter writer(scratch);
    affine.Print(e, /*strong=*/false, writer);
  }
  scratch.clear();
  ExprPrinter symbolic(names, TextSyntax::kSymbolic);
  {
    TextWriter writer(scratch);
    symbolic.Print(ToSymbolicOrder(e), /*strong=*/false, writer);
  }
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

namespace {

// A map variable's name (Names::AppendDim / AppendSymbol without their
// position checks, for the loops over the variables).
template <size_t N>
void AppendName(const Variable& v, const char (&prefix)[N], int i,
                TextWriter& w) {
  if (v.name.empty()) {
    w.Name(prefix, i);
  } else {
    w.Text(v.name);
  }
}

bool AllUnbounded(const std::vector<Variable>& vars) {
  for (const Variable& v : vars) {
    if (!v.bounds.IsFull()) return false;
  }
  return true;
}

// The map's text (neither KNOWN EMPTY nor with names to make distinct),
// written through one TextWriter into `out`: no string per name, interval
// or expression (the query server prints a map per response).
// Only the constraints, sorted by their text, are printed apart first.
// `orderer`: for kSymbolic only (built by the caller, so that the affine
// path does not pay for its memo table).
[[gnu::noinline]] void AppendMapText(const IndexingMap& map, TextSyntax syntax,
                                     SymbolicOrderer* orderer,
                                     std::string& out) {
  TextWriter w(out);
  const Names names(map);
  ExprPrinter printer(names, syntax);
  auto print = [&](Expr e, TextWriter& to) {
    printer.Print(orderer != nullptr ? orderer->Run(e) : e, /*strong=*/false,
                  to);
  };
  // The variables are read in place, with their positions counted along:
  // `(d0, d1)`, `[s0]` and `{rt0}`, the last two only when there are any.
  auto name_list = [&w](const std::vector<Variable>& vars, char open,
                        const auto& prefix, char close) {
    w.Char(open);
    int i = 0;
    for (const Variable& v : vars) {
      if (i) w.Lit(", ");
      AppendName(v, prefix, i++, w);
    }
    w.Char(close);
  };
  name_list(map.dims(), '(', "d", ')');
  if (!map.range_vars().empty()) name_list(map.range_vars(), '[', "s", ']');
  if (!map.rt_vars().empty()) name_list(map.rt_vars(), '{', "rt", '}');
  w.Lit(" -> (");
  bool first_result = true;
  for (Expr e : map.results()) {
    if (!first_result) w.Lit(", ");
    first_result = false;
    print(e, w);
  }
  w.Char(')');

  const std::vector<Constraint>& constraints = map.constraints();
  if (constraints.empty() && AllUnbounded(map.dims()) &&
      AllUnbounded(map.range_vars()) && AllUnbounded(map.rt_vars())) {
    return;
  }

  w.Lit(", domain: ");
  bool first = true;
  auto separate = [&] {
    if (!first) w.Lit(", ");
    first = false;
  };
  auto bounds_of = [&](const std::vector<Variable>& vars, const auto& prefix) {
    int i = 0;
    for (const Variable& v : vars) {
      separate();
      AppendName(v, prefix, i++, w);
      w.InInterval(v.bounds);
    }
  };
  bounds_of(map.dims(), "d");
  bounds_of(map.range_vars(), "s");
  bounds_of(map.rt_vars(), "rt");
  // Constraints sorted by their printed text (XLA's order), so that equal
  // maps print equal strings whatever their insertion order. One
  // constraint needs no sorting and prints in place; several print into
  // one buffer, sorted as views into it.
  if (constraints.size() == 1) {
    separate();
    print(constraints[0].expr, w);
    w.InInterval(constraints[0].interval);
    return;
  }
  if (constraints.empty()) return;
  std::string texts;
  std::vector<std::pair<size_t, size_t>> spans;  // offset, size in texts
  spans.reserve(constraints.size());
  {
    TextWriter to_texts(texts);
    for (const Constraint& c : constraints) {
      const size_t start = to_texts.size();
      print(c.expr, to_texts);
      to_texts.InInterval(c.interval);
      spans.emplace_back(start, to_texts.size() - start);
    }
  }  // flushed: the views below point into the whole text
  std::vector<std::string_view> sorted;
  sorted.reserve(spans.size());
  for (auto [offset, size] : spans) sorted.emplace_back(&texts[offset], size);
  std::sort(sorted.begin(), sorted.end());
  for (std::string_view c : sorted) {
    separate();
    w.Text(c);
  }
}

}  // namespace

void AppendIndexingMap(const IndexingMap& map, TextSyntax syntax,
                       std::string& out) {
  if (map.IsKnownEmpty()) {
    out += "KNOWN EMPTY";
    return;
  }
  if (HasCustomName(map)) {
    if (auto renamed = WithDistinctNames(map)) {
      AppendIndexingMap(*renamed, syntax, out);
      return;
    }
  }
  if (syntax == TextSyntax::kSymbolic) {
    SymbolicOrderer orderer;  // shared: results and constraints share nodes
    AppendMapText(map, syntax, &orderer, out);
  } else {
    AppendMapText(map, syntax, nullptr, out);
  }
}

}  // namespace ixa
