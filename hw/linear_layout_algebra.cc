// Products and divisions of linear layouts (Triton's operator*,
// divideLeft), and their text form.
#include <algorithm>
#include <bit>
#include <cctype>

#include "hw/linear_layout.h"

namespace ixa::hw {

namespace {

using LlDim = LinearLayout::Dim;
using LlInDim = LinearLayout::InDim;

int LlBitsOf(const LinearLayout& l, const std::string& name, bool input) {
  if (input) {
    auto r = l.InDimSizeLog2(name);
    return r.ok() ? *r : 0;
  }
  auto r = l.OutDimSizeLog2(name);
  return r.ok() ? *r : 0;
}

// The names of `a` that `b` also has, in a's order.
std::vector<std::string> LlCommon(const std::vector<std::string>& a,
                                  const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& n : a) {
    if (std::find(b.begin(), b.end(), n) != b.end()) out.push_back(n);
  }
  return out;
}

// a's names, then b's that a lacks.
std::vector<std::string> LlUnion(const std::vector<std::string>& a,
                                 const std::vector<std::string>& b) {
  std::vector<std::string> out = a;
  for (const std::string& n : b) {
    if (std::find(a.begin(), a.end(), n) == a.end()) out.push_back(n);
  }
  return out;
}

// `l` without its size-1 dims that `keep` lacks.
LinearLayout LlDropTrivialDims(const LinearLayout& l,
                               const LinearLayout& keep) {
  std::vector<std::string> ins, outs;
  for (const auto& d : l.ins()) {
    if (!d.bases.empty() || keep.HasInDim(d.name)) ins.push_back(d.name);
  }
  for (const auto& d : l.outs()) {
    if (d.size != 1 || keep.HasOutDim(d.name)) outs.push_back(d.name);
  }
  auto r = l.Sublayout(ins, outs);
  IXA_CHECK(r.ok());
  return *r;
}

// `p` equals `a` once its dims are put in a's order.
bool LlEqualUpToOrder(const LinearLayout& p, const LinearLayout& a) {
  if (p.NumInDims() != a.NumInDims() || p.NumOutDims() != a.NumOutDims())
    return false;
  auto t = p.TransposeIns(a.InDimNames());
  if (!t.ok()) return false;
  auto u = t->TransposeOuts(a.OutDimNames());
  return u.ok() && *u == a;
}

}  // namespace

Result<LinearLayout> Product(const LinearLayout& inner,
                             const LinearLayout& outer) {
  for (bool input : {true, false}) {
    auto in_names = input ? inner.InDimNames() : inner.OutDimNames();
    auto out_names = input ? outer.InDimNames() : outer.OutDimNames();
    if (LlCommon(in_names, out_names) != LlCommon(out_names, in_names)) {
      return Error::Invalid(std::string("product: the ") +
                            (input ? "input" : "output") +
                            " dims the two layouts share are not in the same "
                            "order");
    }
  }
  std::vector<std::string> in_names =
      LlUnion(inner.InDimNames(), outer.InDimNames());
  std::vector<std::string> out_names =
      LlUnion(inner.OutDimNames(), outer.OutDimNames());
  std::vector<LlDim> outs;
  for (const std::string& o : out_names) {
    int bits = LlBitsOf(inner, o, false) + LlBitsOf(outer, o, false);
    if (bits > kMaxLinearLayoutBits) {
      return Error::Limit("product: output dim " + QuoteForMessage(o) +
                          " exceeds 2^" + std::to_string(kMaxLinearLayoutBits));
    }
    outs.push_back({o, int64_t{1} << bits});
  }
  std::vector<LlInDim> ins;
  for (const std::string& d : in_names) {
    int inner_bits = LlBitsOf(inner, d, true);
    int bits = inner_bits + LlBitsOf(outer, d, true);
    if (bits > kMaxLinearLayoutBits) {
      return Error::Limit("product: input dim " + QuoteForMessage(d) +
                          " exceeds 2^" + std::to_string(kMaxLinearLayoutBits));
    }
    LlInDim nd{d, std::vector<std::vector<int64_t>>(
                      bits, std::vector<int64_t>(outs.size(), 0))};
    for (size_t k = 0; k < outs.size(); ++k) {
      const std::string& o = outs[k].name;
      if (inner.HasInDim(d) && inner.HasOutDim(o)) {
        for (int i = 0; i < inner_bits; ++i)
          nd.bases[i][k] = *inner.Basis(d, i, o);
      }
      if (outer.HasInDim(d) && outer.HasOutDim(o)) {
        int shift = LlBitsOf(inner, o, false);
        for (int i = 0; i < LlBitsOf(outer, d, true); ++i)
          nd.bases[inner_bits + i][k] = *outer.Basis(d, i, o) << shift;
      }
    }
    ins.push_back(std::move(nd));
  }
  return LinearLayout::Create(std::move(ins), std::move(outs), false);
}

namespace {

// Whether every dim of the divisor b is a dim of a, no larger: the first
// condition of both divisions.
bool LlDivisorFits(const LinearLayout& b, const LinearLayout& a) {
  for (const auto& d : b.ins()) {
    if (!a.HasInDim(d.name) || LlBitsOf(a, d.name, true) < int(d.bases.size()))
      return false;
  }
  for (const auto& d : b.outs()) {
    if (!a.HasOutDim(d.name) || *a.OutDimSize(d.name) < d.size) return false;
  }
  return true;
}

}  // namespace

std::optional<LinearLayout> DivideLeft(const LinearLayout& a,
                                       const LinearLayout& b_in) {
  LinearLayout b = LlDropTrivialDims(b_in, a);
  if (!LlDivisorFits(b, a)) return std::nullopt;
  std::vector<LlDim> outs;
  for (const auto& o : a.outs())
    outs.push_back({o.name, o.size >> LlBitsOf(b, o.name, false)});
  std::vector<LlInDim> ins;
  for (const auto& d : a.ins()) {
    LlInDim nd{d.name, {}};
    for (size_t i = LlBitsOf(b, d.name, true); i < d.bases.size(); ++i) {
      std::vector<int64_t> basis;
      for (size_t k = 0; k < outs.size(); ++k)
        basis.push_back(d.bases[i][k] >> LlBitsOf(b, a.outs()[k].name, false));
      nd.bases.push_back(std::move(basis));
    }
    ins.push_back(std::move(nd));
  }
  auto c = LinearLayout::Create(std::move(ins), std::move(outs), false);
  if (!c.ok()) return std::nullopt;
  auto p = Product(b, *c);
  if (!p.ok() || !LlEqualUpToOrder(*p, a)) return std::nullopt;
  return *c;
}

std::optional<LinearLayout> DivideRight(const LinearLayout& a,
                                        const LinearLayout& b_in) {
  LinearLayout b = LlDropTrivialDims(b_in, a);
  if (!LlDivisorFits(b, a)) return std::nullopt;
  std::vector<LlDim> outs;
  for (const auto& o : a.outs())
    outs.push_back({o.name, o.size >> LlBitsOf(b, o.name, false)});
  std::vector<LlInDim> ins;
  for (const auto& d : a.ins()) {
    size_t keep = d.bases.size() - LlBitsOf(b, d.name, true);
    ins.push_back({d.name, {d.bases.begin(), d.bases.begin() + keep}});
  }
  auto c = LinearLayout::Create(std::move(ins), std::move(outs), false);
  if (!c.ok()) return std::nullopt;
  auto p = Product(*c, b);
  if (!p.ok() || !LlEqualUpToOrder(*p, a)) return std::nullopt;
  return *c;
}

// --------------------------------------------------------------- text form

namespace {

bool LlIsNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool LlIsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

std::string LlPrintName(const std::string& n) {
  bool plain = !n.empty() && LlIsNameStart(n[0]) &&
               std::all_of(n.begin(), n.end(), LlIsNameChar);
  if (plain) return n;
  std::string out = "\"";
  for (char c : n) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

class LlParser {
 public:
  explicit LlParser(std::string_view text) : t_(text) {}

  Result<LinearLayout> Layout() {
    std::vector<LlInDim> ins;
    IXA_RETURN_IF_ERROR(Expect('{', "'{' opening the input dims"));
    if (!Eat('}')) {
      while (true) {
        IXA_ASSIGN_OR_RETURN(LlInDim d, InDimText());
        ins.push_back(std::move(d));
        if (Eat('}')) break;
        IXA_RETURN_IF_ERROR(Expect(',', "',' or '}'"));
      }
    }
    Skip();
    if (t_.substr(p_, 2) != "->") return Fail("expected '->'");
    p_ += 2;
    std::vector<LlDim> outs;
    bool inferred = false;
    if (Eat('[')) {
      inferred = true;
      if (!Eat(']')) {
        while (true) {
          IXA_ASSIGN_OR_RETURN(std::string n, Name());
          outs.push_back({n, 1});
          if (Eat(']')) break;
          IXA_RETURN_IF_ERROR(Expect(',', "',' or ']'"));
        }
      }
    } else {
      IXA_RETURN_IF_ERROR(Expect('{', "'{' or '[' opening the output dims"));
      if (!Eat('}')) {
        while (true) {
          IXA_ASSIGN_OR_RETURN(std::string n, Name());
          IXA_RETURN_IF_ERROR(Expect(':', "':' after the dim name"));
          IXA_ASSIGN_OR_RETURN(int64_t size, Int());
          outs.push_back({n, size});
          if (Eat('}')) break;
          IXA_RETURN_IF_ERROR(Expect(',', "',' or '}'"));
        }
      }
    }
    Skip();
    if (p_ < t_.size()) return Fail("unexpected text after the layout");
    if (scalar_at_ != std::string::npos && outs.size() != 1) {
      p_ = scalar_at_;
      return Fail(
          "a basis written as one integer needs exactly one output dim");
    }
    std::vector<std::string> names;
    for (const LlDim& o : outs) names.push_back(o.name);
    if (inferred) return LinearLayout::Create(std::move(ins), names);
    return LinearLayout::Create(std::move(ins), std::move(outs), false);
  }

 private:
  Result<LlInDim> InDimText() {
    LlInDim d;
    IXA_ASSIGN_OR_RETURN(d.name, Name());
    IXA_RETURN_IF_ERROR(Expect(':', "':' after the dim name"));
    IXA_RETURN_IF_ERROR(Expect('[', "'[' opening the bases"));
    if (Eat(']')) return d;
    while (true) {
      Skip();
      if (Eat('[')) {
        std::vector<int64_t> basis;
        if (!Eat(']')) {
          while (true) {
            IXA_ASSIGN_OR_RETURN(int64_t v, Int());
            basis.push_back(v);
            if (Eat(']')) break;
            IXA_RETURN_IF_ERROR(Expect(',', "',' or ']'"));
          }
        }
        d.bases.push_back(std::move(basis));
      } else {
        if (scalar_at_ == std::string::npos) scalar_at_ = p_;
        IXA_ASSIGN_OR_RETURN(int64_t v, Int());
        d.bases.push_back({v});
      }
      if (Eat(']')) break;
      IXA_RETURN_IF_ERROR(Expect(',', "',' or ']'"));
    }
    return d;
  }

  Result<std::string> Name() {
    Skip();
    if (p_ < t_.size() && t_[p_] == '"') {
      std::string out;
      ++p_;
      while (p_ < t_.size() && t_[p_] != '"') {
        if (t_[p_] == '\\' && p_ + 1 < t_.size()) ++p_;
        out += t_[p_++];
      }
      if (p_ >= t_.size()) return Fail("unterminated quoted name");
      ++p_;
      return out;
    }
    if (p_ >= t_.size() || !LlIsNameStart(t_[p_]))
      return Fail("expected a dim name");
    size_t start = p_;
    while (p_ < t_.size() && LlIsNameChar(t_[p_])) ++p_;
    return std::string(t_.substr(start, p_ - start));
  }

  Result<int64_t> Int() {
    Skip();
    bool neg = p_ < t_.size() && t_[p_] == '-';
    if (neg) ++p_;
    size_t start = p_;
    int64_t v = 0;
    while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) {
      if (v > (INT64_MAX - 9) / 10) return Fail("integer too large");
      v = v * 10 + (t_[p_] - '0');
      ++p_;
    }
    if (p_ == start) return Fail("expected an integer");
    return neg ? -v : v;
  }

  void Skip() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_])))
      ++p_;
  }
  bool Eat(char c) {
    Skip();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  Status Expect(char c, const char* what) {
    if (Eat(c)) return {};
    return Fail(std::string("expected ") + what);
  }
  Error Fail(const std::string& what) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < p_ && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Error::Parse(what, line, column);
  }
  std::string_view t_;
  size_t p_ = 0;
  size_t scalar_at_ = std::string::npos;
};

}  // namespace

Result<LinearLayout> ParseLinearLayout(std::string_view text) {
  return LlParser(text).Layout();
}

std::string PrintLinearLayout(const LinearLayout& l) {
  std::string out = "{";
  for (size_t d = 0; d < l.ins().size(); ++d) {
    if (d) out += ", ";
    out += LlPrintName(l.ins()[d].name) + ": [";
    const auto& bases = l.ins()[d].bases;
    for (size_t i = 0; i < bases.size(); ++i) {
      if (i) out += ", ";
      out += "[";
      for (size_t k = 0; k < bases[i].size(); ++k) {
        if (k) out += ", ";
        out += std::to_string(bases[i][k]);
      }
      out += "]";
    }
    out += "]";
  }
  out += "} -> {";
  for (size_t k = 0; k < l.outs().size(); ++k) {
    if (k) out += ", ";
    out +=
        LlPrintName(l.outs()[k].name) + ": " + std::to_string(l.outs()[k].size);
  }
  return out + "}";
}

std::string TritonString(const LinearLayout& l) {
  std::string outs = "[";
  for (size_t k = 0; k < l.outs().size(); ++k) {
    if (k) outs += ", ";
    outs +=
        l.outs()[k].name + " (size " + std::to_string(l.outs()[k].size) + ")";
  }
  outs += "]";
  if (l.ins().empty()) {
    return l.outs().empty() ? "\n(empty layout)"
                            : "\n(empty layout with out-dims " + outs + ")";
  }
  std::string out = "\n";
  for (const auto& d : l.ins()) {
    if (d.bases.empty()) {
      out += " - " + d.name + " is a size 1 dimension\n";
      continue;
    }
    for (size_t i = 0; i < d.bases.size(); ++i) {
      out += i == 0 ? " - " : "   ";
      out += d.name + "=" + std::to_string(int64_t{1} << i) + " -> (";
      for (size_t k = 0; k < d.bases[i].size(); ++k) {
        if (k) out += ", ";
        out += std::to_string(d.bases[i][k]);
      }
      out += ")\n";
    }
  }
  return out + "where out dims are: " + outs;
}

}  // namespace ixa::hw
