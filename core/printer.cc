// Printing in XLA's classic (MLIR affine) syntax:
//   - coefficient after the operand (`d0 * 4`), `-d0` for `d0 * -1`;
//   - `a - b` for `a + b * -1`, `a - b * 3` for `a + b * -3`, `a - 5`;
//   - binary operands of a non-add op are parenthesised
//     (`(d0 floordiv 8) * 8`, `(s0 * 128) mod 715`).
#include <algorithm>

#include "core/text.h"

namespace ixa {

namespace {

class ExprPrinter {
 public:
  ExprPrinter(const std::vector<std::string>& dims,
              const std::vector<std::string>& syms)
      : dims_(dims), syms_(syms) {}

  void Print(Expr e, bool strong, std::string& out) const {
    switch (e.kind()) {
      case ExprKind::kConstant:
        out += std::to_string(e.constant());
        return;
      case ExprKind::kDim:
        out += static_cast<size_t>(e.position()) < dims_.size()
                   ? dims_[e.position()]
                   : "d" + std::to_string(e.position());
        return;
      case ExprKind::kSymbol:
        out += static_cast<size_t>(e.position()) < syms_.size()
                   ? syms_[e.position()]
                   : "s" + std::to_string(e.position());
        return;
      case ExprKind::kAdd:
        if (strong) out += '(';
        PrintSum(e, out);
        if (strong) out += ')';
        return;
      default:
        break;
    }
    // Multiplicative operators: parenthesise when nested in a strong slot.
    if (strong) out += '(';
    if (e.kind() == ExprKind::kMul && e.rhs().IsConstant(-1)) {
      out += '-';
      Print(e.lhs(), /*strong=*/true, out);
    } else {
      Print(e.lhs(), /*strong=*/true, out);
      switch (e.kind()) {
        case ExprKind::kMul:
          out += " * ";
          break;
        case ExprKind::kFloorDiv:
          out += " floordiv ";
          break;
        case ExprKind::kCeilDiv:
          out += " ceildiv ";
          break;
        default:
          out += " mod ";
          break;
      }
      Print(e.rhs(), /*strong=*/true, out);
    }
    if (strong) out += ')';
  }

 private:
  // Prints a (left-nested) sum, writing negative terms as subtractions.
  void PrintSum(Expr e, std::string& out) const {
    std::vector<Expr> terms;
    CollectTerms(e, terms);
    for (size_t i = 0; i < terms.size(); ++i) {
      Expr t = terms[i];
      if (i == 0) {
        PrintTerm(t, out);
        continue;
      }
      if (t.IsConstant() && t.constant() < 0 && t.constant() != kInt64Min) {
        out += " - " + std::to_string(-t.constant());
        continue;
      }
      if (t.kind() == ExprKind::kMul && t.rhs().IsConstant() &&
          t.rhs().constant() < 0 && t.rhs().constant() != kInt64Min) {
        out += " - ";
        Print(t.lhs(), /*strong=*/true, out);
        if (t.rhs().constant() != -1) {
          out += " * " + std::to_string(-t.rhs().constant());
        }
        continue;
      }
      out += " + ";
      PrintTerm(t, out);
    }
  }

  void PrintTerm(Expr t, std::string& out) const {
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

  const std::vector<std::string>& dims_;
  const std::vector<std::string>& syms_;
};

}  // namespace

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
                      const std::vector<std::string>& symbol_names) {
  std::string out;
  ExprPrinter(dim_names, symbol_names).Print(e, /*strong=*/false, out);
  return out;
}

std::string PrintExpr(Expr e, const IndexingMap& map) {
  return PrintExpr(e, DimNames(map), SymbolNames(map));
}

std::string PrintIndexingMap(const IndexingMap& map) {
  if (map.IsKnownEmpty()) return "KNOWN EMPTY";
  std::vector<std::string> dims = DimNames(map), syms = SymbolNames(map);
  ExprPrinter printer(dims, syms);
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += dims[i];
  }
  out += ")";
  if (map.num_range_vars() > 0) {
    out += "[";
    for (int i = 0; i < map.num_range_vars(); ++i) {
      if (i) out += ", ";
      out += syms[i];
    }
    out += "]";
  }
  if (map.num_rt_vars() > 0) {
    out += "{";
    for (int i = 0; i < map.num_rt_vars(); ++i) {
      if (i) out += ", ";
      out += syms[map.num_range_vars() + i];
    }
    out += "}";
  }
  out += " -> (";
  for (int i = 0; i < map.num_results(); ++i) {
    if (i) out += ", ";
    printer.Print(map.results()[i], /*strong=*/false, out);
  }
  out += ")";

  bool all_unbounded = map.constraints().empty();
  for (const Variable& v : map.dims()) all_unbounded &= v.bounds.IsFull();
  for (int i = 0; i < map.num_symbols(); ++i) {
    all_unbounded &= map.symbol(i).bounds.IsFull();
  }
  if (all_unbounded) return out;

  out += ", domain: ";
  bool first = true;
  auto item = [&](const std::string& s) {
    if (!first) out += ", ";
    first = false;
    out += s;
  };
  for (int i = 0; i < map.num_dims(); ++i) {
    item(dims[i] + " in " + map.dims()[i].bounds.ToString());
  }
  for (int i = 0; i < map.num_symbols(); ++i) {
    item(syms[i] + " in " + map.symbol(i).bounds.ToString());
  }
  // Constraints sorted by their printed text (XLA's order), so that equal
  // maps print equal strings whatever their insertion order.
  std::vector<std::string> constraints;
  for (const Constraint& c : map.constraints()) {
    std::string s;
    printer.Print(c.expr, /*strong=*/false, s);
    constraints.push_back(s + " in " + c.interval.ToString());
  }
  std::sort(constraints.begin(), constraints.end());
  for (const std::string& c : constraints) item(c);
  return out;
}

}  // namespace ixa
