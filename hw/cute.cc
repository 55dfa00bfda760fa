#include "hw/cute.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "core/int_math.h"
#include "simplifier/simplify.h"

namespace ixa::hw::cute {

namespace {

constexpr int64_t kUnbounded = -1;  // the last mode of A in composition
constexpr int64_t kMaxValues = 4096;

struct Mode {
  int64_t shape, stride;
};

std::string S(int64_t v) { return std::to_string(v); }

// Every layout keeps its size and its offsets within +-2^62 (CheckLayout),
// so that sums of two never overflow; products in the algebra are checked.
constexpr int64_t kLimit = int64_t{1} << 62;

Error TooLarge() {
  return Error::Invalid("layout size or offset exceeds 2^62");
}

Result<int64_t> Mul(int64_t a, int64_t b) {
  auto p = CheckedMul(a, b);
  if (!p || *p > kLimit || *p < -kLimit) return TooLarge();
  return *p;
}

void Flatten(const IntTuple& shape, const IntTuple& stride,
             std::vector<Mode>* out) {
  if (shape.leaf) {
    out->push_back({shape.value, stride.value});
    return;
  }
  for (size_t i = 0; i < shape.items.size(); ++i)
    Flatten(shape.items[i], stride.items[i], out);
}

std::vector<Mode> Flat(const Layout& l) {
  std::vector<Mode> out;
  Flatten(l.shape, l.stride, &out);
  return out;
}

Layout FromModes(const std::vector<Mode>& modes) {
  if (modes.empty()) return Layout{IntTuple::Leaf(1), IntTuple::Leaf(0)};
  if (modes.size() == 1)
    return Layout{IntTuple::Leaf(modes[0].shape),
                  IntTuple::Leaf(modes[0].stride)};
  std::vector<IntTuple> s, d;
  for (const Mode& m : modes) {
    s.push_back(IntTuple::Leaf(m.shape));
    d.push_back(IntTuple::Leaf(m.stride));
  }
  return Layout{IntTuple::Tuple(s), IntTuple::Tuple(d)};
}

// A tuple of modes; one mode is that mode itself (the notation has no
// rank-1 tuples: the parser reads "(x)" as x).
Layout MakeTuple(const std::vector<Layout>& modes) {
  if (modes.size() == 1) return modes[0];
  std::vector<IntTuple> s, d;
  for (const Layout& m : modes) {
    s.push_back(m.shape);
    d.push_back(m.stride);
  }
  return Layout{IntTuple::Tuple(s), IntTuple::Tuple(d)};
}

std::vector<Layout> Modes(const Layout& l) {
  std::vector<Layout> out;
  for (int i = 0; i < l.rank(); ++i) out.push_back(l.Mode(i));
  return out;
}

// ------------------------------------------------------------- parsing

void FlattenShape(const IntTuple& shape, std::vector<int64_t>* out) {
  if (shape.leaf) {
    out->push_back(shape.value);
    return;
  }
  for (const IntTuple& x : shape.items) FlattenShape(x, out);
}

class Parser {
 public:
  explicit Parser(std::string_view t) : t_(t) {}
  char Peek() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_])))
      ++p_;
    return p_ < t_.size() ? t_[p_] : '\0';
  }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++p_;
    return true;
  }
  bool AtEnd() { return Peek() == '\0'; }
  Error Fail(const std::string& what) {
    return Error::Parse(what, 1, static_cast<int>(p_) + 1);
  }

  Result<IntTuple> Tuple() {
    if (Eat('(')) {
      std::vector<IntTuple> items;
      while (true) {
        IXA_ASSIGN_OR_RETURN(IntTuple item, Tuple());
        items.push_back(std::move(item));
        if (Eat(')')) break;
        if (!Eat(',')) return Fail("expected ',' or ')'");
      }
      if (items.size() == 1) return items[0];
      return IntTuple::Tuple(std::move(items));
    }
    Peek();
    bool neg = p_ < t_.size() && t_[p_] == '-';
    if (neg) ++p_;
    size_t start = p_;
    int64_t v = 0;
    while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) {
      auto m = CheckedMul(v, 10);
      auto a = m ? CheckedAdd(*m, t_[p_] - '0') : std::nullopt;
      if (!a) return Fail("integer too large");
      v = *a;
      ++p_;
    }
    if (p_ == start) return Fail("expected an integer or '('");
    return IntTuple::Leaf(neg ? -v : v);
  }

  Result<Layout> LayoutText() {
    IXA_ASSIGN_OR_RETURN(IntTuple shape, Tuple());
    return LayoutFrom(std::move(shape));
  }

  // tiler := '<' tiler (',' tiler)* '>' | shape ':' stride | shape, where a
  // stride-less tuple is a by-mode tiler and a stride-less integer n is n:1.
  Result<Tiler> TilerText() {
    if (Eat('<')) {
      Tiler t;
      t.by_mode = true;
      while (true) {
        IXA_ASSIGN_OR_RETURN(Tiler mode, TilerText());
        t.modes.push_back(std::move(mode));
        if (Eat('>')) break;
        if (!Eat(',')) return Fail("expected ',' or '>' in a tiler");
      }
      return t;
    }
    IXA_ASSIGN_OR_RETURN(IntTuple shape, Tuple());
    if (Peek() == ':' || shape.leaf) {
      IXA_ASSIGN_OR_RETURN(Layout l, LayoutFrom(std::move(shape)));
      return Tiler::Of(std::move(l));
    }
    return ShapeTiler(shape);
  }

 private:
  Result<Tiler> ShapeTiler(const IntTuple& shape) {
    if (shape.leaf) {
      if (shape.value < 1) return Error::Invalid("shape sizes must be >= 1");
      return Tiler::Of(Layout{shape, IntTuple::Leaf(1)});
    }
    Tiler t;
    t.by_mode = true;
    for (const IntTuple& item : shape.items) {
      IXA_ASSIGN_OR_RETURN(Tiler mode, ShapeTiler(item));
      t.modes.push_back(std::move(mode));
    }
    return t;
  }

  Result<Layout> LayoutFrom(IntTuple shape) {
    IntTuple stride;
    const bool explicit_stride = Eat(':');
    if (explicit_stride) {
      IXA_ASSIGN_OR_RETURN(stride, Tuple());
      if (!Congruent(shape, stride))
        return Fail("shape and stride are not congruent");
    }
    if (!Positive(shape)) return Error::Invalid("shape sizes must be >= 1");
    if (!explicit_stride) {
      IXA_RETURN_IF_ERROR(CheckBounds(Layout{shape, IntTuple::Tuple({})}));
      int64_t cur = 1;
      stride = CompactStrides(shape, &cur);
    }
    Layout l{shape, stride};
    IXA_RETURN_IF_ERROR(CheckBounds(l));
    return l;
  }

  static IntTuple CompactStrides(const IntTuple& s, int64_t* cur) {
    if (s.leaf) {
      IntTuple d = IntTuple::Leaf(*cur);
      *cur *= s.value;
      return d;
    }
    std::vector<IntTuple> items;
    for (const IntTuple& x : s.items) items.push_back(CompactStrides(x, cur));
    return IntTuple::Tuple(items);
  }
  static bool Congruent(const IntTuple& a, const IntTuple& b) {
    if (a.leaf || b.leaf) return a.leaf == b.leaf;
    if (a.items.size() != b.items.size()) return false;
    for (size_t i = 0; i < a.items.size(); ++i) {
      if (!Congruent(a.items[i], b.items[i])) return false;
    }
    return true;
  }
  static bool Positive(const IntTuple& s) {
    if (s.leaf) return s.value >= 1;
    return std::all_of(s.items.begin(), s.items.end(), Positive);
  }
  std::string_view t_;
  size_t p_ = 0;
};

// A o (s:d) with A flattened and coalesced (docs/hw-reference.md §4.2: divide
// out d, then mod out s; the last mode of A is unbounded in both steps).
//
// A size-1 B is not special: like CuTe (pycute and the static C++), it goes
// through the same steps, so (4,6):(1,6) o 1:1 is 1:6, not 1:0, and a stride
// that splits no mode of A is rejected whatever B's size.
Result<Layout> ComposeLeaf(const Layout& a, int64_t s, int64_t d) {
  if (d == 0) return Layout{IntTuple::Leaf(s), IntTuple::Leaf(0)};
  if (d < 0) return Error::Unsupported("composition with a negative stride");
  std::vector<Mode> modes = Flat(Coalesce(a));
  std::vector<Mode> divided;
  int64_t r = d;
  for (size_t i = 0; i < modes.size(); ++i) {
    const Mode& m = modes[i];
    if (i + 1 == modes.size()) {
      IXA_ASSIGN_OR_RETURN(int64_t stride, Mul(m.stride, r));
      divided.push_back({kUnbounded, stride});
      break;
    }
    if (r == 1) {
      divided.push_back(m);
    } else if (m.shape % r == 0) {
      IXA_ASSIGN_OR_RETURN(int64_t stride, Mul(m.stride, r));
      divided.push_back({m.shape / r, stride});
      r = 1;
    } else if (r % m.shape == 0) {
      r /= m.shape;
    } else {
      return Error::Invalid("composition with stride " + S(d) + ": mode " +
                            S(i) + " of shape " + S(m.shape) +
                            " and the remaining stride " + S(r) +
                            " do not divide each other");
    }
  }
  std::vector<Mode> result;
  int64_t rest = s;
  for (size_t i = 0; i < divided.size() && rest > 1; ++i) {
    const Mode& m = divided[i];
    if (m.shape == kUnbounded) {
      result.push_back({rest, m.stride});
      rest = 1;
    } else if (m.shape == 1) {
      continue;
    } else if (m.shape % rest == 0) {
      result.push_back({rest, m.stride});
      rest = 1;
    } else if (rest % m.shape == 0) {
      result.push_back(m);
      rest /= m.shape;
    } else {
      return Error::Invalid("composition with shape " + S(s) + ": mode " +
                            S(i) + " of shape " + S(m.shape) +
                            " and the remaining shape " + S(rest) +
                            " do not divide each other");
    }
  }
  // rest == 1 from the start (s == 1): CuTe's result is 1 with the stride
  // of A's last mode after dividing out d.
  if (result.empty()) result.push_back({1, divided.back().stride});
  return FromModes(result);
}

Result<Layout> ComposeTuple(const Layout& a, const IntTuple& shape,
                            const IntTuple& stride) {
  if (shape.leaf) return ComposeLeaf(a, shape.value, stride.value);
  std::vector<Layout> parts;
  for (size_t i = 0; i < shape.items.size(); ++i) {
    IXA_ASSIGN_OR_RETURN(Layout part,
                         ComposeTuple(a, shape.items[i], stride.items[i]));
    parts.push_back(std::move(part));
  }
  return MakeTuple(parts);
}

// The error of mode i of a by-mode operation, its code kept.
Error InMode(size_t i, Error e) {
  e.message = "mode " + S(i) + ": " + e.message;
  return e;
}

// Applies f to the modes of `a` that `b` tiles, keeping the others (as
// pycute does).
template <class F>
Result<Layout> ByMode(const Layout& a, const Tiler& b, F f) {
  if (static_cast<int>(b.modes.size()) > a.rank()) {
    return Error::Invalid("tiler has " + S(b.modes.size()) +
                          " modes but the layout has rank " + S(a.rank()));
  }
  std::vector<Layout> modes = Modes(a);
  for (size_t i = 0; i < b.modes.size(); ++i) {
    auto r = f(modes[i], b.modes[i]);
    if (!r.ok()) return InMode(i, r.error());
    modes[i] = *r;
  }
  return MakeTuple(modes);
}

// pycute's hier_unzip, kept as its two lists of modes so that the tiled and
// flat forms do not depend on how a one-mode tuple prints: by mode, `first`
// holds one mode per tiler mode and `second` their rests then the untiled
// modes of a; a single tiler is split by `f` itself, and its two parts'
// modes are the lists (CuTe's rank<0> / rank<1> of the result).
struct Unzipped {
  std::vector<Layout> first, second;
  bool by_mode = false;
  Layout Zipped() const {
    return MakeTuple({MakeTuple(first), MakeTuple(second)});
  }
  Layout Tiled() const {
    std::vector<Layout> modes = {MakeTuple(first)};
    modes.insert(modes.end(), second.begin(), second.end());
    return MakeTuple(modes);
  }
  Layout Flat() const {
    std::vector<Layout> modes = first;
    modes.insert(modes.end(), second.begin(), second.end());
    return MakeTuple(modes);
  }
};

template <class F>
Result<Unzipped> HierUnzip(const Layout& a, const Tiler& b, F f) {
  Unzipped out;
  if (!b.by_mode) {
    IXA_ASSIGN_OR_RETURN(Layout r, f(a, b.layout));
    out.first = Modes(r.Mode(0));
    out.second = Modes(r.Mode(1));
    return out;
  }
  out.by_mode = true;
  if (static_cast<int>(b.modes.size()) > a.rank()) {
    return Error::Invalid("tiler has " + S(b.modes.size()) +
                          " modes but the layout has rank " + S(a.rank()));
  }
  for (size_t i = 0; i < b.modes.size(); ++i) {
    auto r = HierUnzip(a.Mode(static_cast<int>(i)), b.modes[i], f);
    if (!r.ok()) return InMode(i, r.error());
    out.first.push_back(r->by_mode ? MakeTuple(r->first) : r->Zipped().Mode(0));
    out.second.push_back(r->by_mode ? MakeTuple(r->second)
                                    : r->Zipped().Mode(1));
  }
  for (int i = static_cast<int>(b.modes.size()); i < a.rank(); ++i)
    out.second.push_back(a.Mode(i));
  return out;
}

Layout PadRank(const Layout& l, int r) {
  std::vector<Layout> modes = Modes(l);
  while (static_cast<int>(modes.size()) < r)
    modes.push_back(Layout{IntTuple::Leaf(1), IntTuple::Leaf(0)});
  return MakeTuple(modes);
}

Expr Bit(Expr o, int bit) {
  Expr q = bit == 0 ? o : o.FloorDiv(int64_t{1} << bit);
  return q;
}

}  // namespace

Status CheckBounds(const Layout& l) {
  std::vector<int64_t> shapes;
  FlattenShape(l.shape, &shapes);
  std::vector<int64_t> strides;
  if (!l.stride.leaf && l.stride.items.empty()) {
    strides.assign(shapes.size(), 0);  // the shape alone
  } else {
    FlattenShape(l.stride, &strides);
  }
  __int128 size = 1, hi = 0, lo = 0;
  for (size_t k = 0; k < shapes.size(); ++k) {
    size *= shapes[k];
    __int128 reach = static_cast<__int128>(shapes[k] - 1) * strides[k];
    (reach > 0 ? hi : lo) += reach;
    if (size > kLimit || hi > kLimit || lo < -kLimit) return TooLarge();
  }
  return Status();
}

Layout Layout::Mode(int i) const {
  if (shape.leaf) return *this;
  return Layout{shape.items[i], stride.items[i]};
}

Result<Layout> ParseLayout(std::string_view text) {
  Parser p(text);
  IXA_ASSIGN_OR_RETURN(Layout l, p.LayoutText());
  if (!p.AtEnd()) return p.Fail("unexpected text after the layout");
  return l;
}

Result<Tiler> ParseTiler(std::string_view text) {
  Parser p(text);
  IXA_ASSIGN_OR_RETURN(Tiler t, p.TilerText());
  if (!p.AtEnd()) return p.Fail("unexpected text after the tiler");
  return t;
}

std::string PrintTuple(const IntTuple& t) {
  if (t.leaf) return S(t.value);
  std::string out = "(";
  for (size_t i = 0; i < t.items.size(); ++i) {
    if (i) out += ",";
    out += PrintTuple(t.items[i]);
  }
  return out + ")";
}

std::string PrintLayout(const Layout& l) {
  return PrintTuple(l.shape) + ":" + PrintTuple(l.stride);
}

int64_t Size(const Layout& l) {
  int64_t n = 1;
  for (const Mode& m : Flat(l)) n *= m.shape;
  return n;
}

int64_t Cosize(const Layout& l) {
  int64_t hi = 0;
  for (const Mode& m : Flat(l)) hi += (m.shape - 1) * m.stride;
  return hi + 1;
}

int64_t Evaluate(const Layout& l, int64_t index) {
  std::vector<Mode> modes = Flat(l);
  int64_t out = 0;
  for (size_t k = 0; k < modes.size(); ++k) {
    int64_t c = k + 1 == modes.size() ? index : index % modes[k].shape;
    out += c * modes[k].stride;
    index /= modes[k].shape;
  }
  return out;
}

std::vector<int64_t> Values(const Layout& l,
                            const std::optional<Swizzle>& swizzle) {
  std::vector<int64_t> out;
  int64_t n = Size(l);
  for (int64_t i = 0; i < n && i < kMaxValues; ++i) {
    int64_t v = Evaluate(l, i);
    out.push_back(swizzle ? ApplySwizzle(*swizzle, v) : v);
  }
  return out;
}

Status ValidateSwizzle(const Swizzle& s) {
  if (s.b < 0 || s.m < 0)
    return Error::Invalid("Swizzle<B,M,S> needs B >= 0 and M >= 0");
  if (std::abs(s.s) < s.b)
    return Error::Invalid("Swizzle<B,M,S> needs |S| >= B");
  if (s.b + s.m + std::abs(s.s) > 62)
    return Error::Invalid("Swizzle bits exceed 62");
  return Status();
}

int64_t ApplySwizzle(const Swizzle& s, int64_t o) {
  int64_t yyy = ((int64_t{1} << s.b) - 1) << (s.m + std::max(0, s.s));
  return s.s >= 0 ? o ^ ((o & yyy) >> s.s) : o ^ ((o & yyy) << -s.s);
}

Layout Coalesce(const Layout& l) {
  std::vector<Mode> out;
  for (const Mode& m : Flat(l)) {
    if (m.shape == 1) continue;
    if (!out.empty() && m.stride == out.back().shape * out.back().stride) {
      out.back().shape *= m.shape;
    } else {
      out.push_back(m);
    }
  }
  return FromModes(out);
}

Layout CoalesceByMode(const Layout& l) {
  if (l.shape.leaf) return Coalesce(l);
  std::vector<Layout> modes;
  for (const Layout& m : Modes(l)) modes.push_back(Coalesce(m));
  return MakeTuple(modes);
}

Result<Layout> Compose(const Layout& a, const Layout& b) {
  return ComposeTuple(a, b.shape, b.stride);
}

Result<Layout> Compose(const Layout& a, const Tiler& b) {
  if (!b.by_mode) return Compose(a, b.layout);
  return ByMode(a, b,
                [](const Layout& m, const Tiler& t) { return Compose(m, t); });
}

Result<Layout> Complement(const Layout& a, int64_t cotarget) {
  std::vector<Mode> modes;
  for (const Mode& m : Flat(a)) {
    if (m.shape > 1 && m.stride != 0) modes.push_back(m);
  }
  for (const Mode& m : modes) {
    if (m.stride < 0)
      return Error::Unsupported("complement of a negative stride");
  }
  if (cotarget < 1)
    return Error::Invalid("complement needs a positive cotarget");
  std::sort(modes.begin(), modes.end(), [](const Mode& x, const Mode& y) {
    return x.stride != y.stride ? x.stride < y.stride : x.shape < y.shape;
  });
  std::vector<Mode> out;
  int64_t cur = 1;
  for (const Mode& m : modes) {
    if (m.stride % cur != 0) {
      return Error::Invalid("complement: stride " + S(m.stride) +
                            " is not a multiple of " + S(cur) +
                            ", the reach of the modes below it: the modes "
                            "overlap or interleave, and no complement exists");
    }
    out.push_back({m.stride / cur, cur});
    IXA_ASSIGN_OR_RETURN(cur, Mul(m.shape, m.stride));
  }
  out.push_back({*CeilDiv(cotarget, cur), cur});
  return Coalesce(FromModes(out));
}

Result<Layout> LogicalDivide(const Layout& a, const Layout& tile) {
  // The tiles may cover more than size(a) (DivideOverhang): as in CuTe, the
  // last mode of `a` then extends past it (cutlass#1397); DivideWithMask is
  // the masked form.
  IXA_ASSIGN_OR_RETURN(Layout rest, Complement(tile, Size(a)));
  return Compose(a, MakeTuple({tile, rest}));
}

Result<Layout> LogicalDivide(const Layout& a, const Tiler& b) {
  if (!b.by_mode) return LogicalDivide(a, b.layout);
  return ByMode(a, b, [](const Layout& m, const Tiler& t) {
    return LogicalDivide(m, t);
  });
}

namespace {

Result<Layout> DivideSplit(const Layout& a, const Layout& t) {
  return LogicalDivide(a, t);
}
Result<Layout> ProductSplit(const Layout& a, const Layout& t) {
  return LogicalProduct(a, t);
}

}  // namespace

Result<Layout> ZippedDivide(const Layout& a, const Tiler& b) {
  IXA_ASSIGN_OR_RETURN(Unzipped u, HierUnzip(a, b, DivideSplit));
  return u.Zipped();
}

Result<Layout> TiledDivide(const Layout& a, const Tiler& b) {
  IXA_ASSIGN_OR_RETURN(Unzipped u, HierUnzip(a, b, DivideSplit));
  return u.Tiled();
}

Result<Layout> FlatDivide(const Layout& a, const Tiler& b) {
  IXA_ASSIGN_OR_RETURN(Unzipped u, HierUnzip(a, b, DivideSplit));
  return u.Flat();
}

namespace {

void CollectOverhang(const Layout& a, const Tiler& b, const std::string& path,
                     std::vector<Overhang>* out) {
  if (b.by_mode) {
    for (size_t i = 0; i < b.modes.size() && static_cast<int>(i) < a.rank();
         ++i) {
      CollectOverhang(a.Mode(static_cast<int>(i)), b.modes[i],
                      path.empty() ? S(i) : path + "." + S(i), out);
    }
    return;
  }
  auto rest = Complement(b.layout, Size(a));
  if (!rest.ok()) return;
  int64_t covered = Size(b.layout) * Size(*rest);
  if (covered != Size(a))
    out->push_back({path.empty() ? "0" : path, Size(a), covered});
}

}  // namespace

std::vector<Overhang> DivideOverhang(const Layout& a, const Tiler& b) {
  std::vector<Overhang> out;
  CollectOverhang(a, b, "", &out);
  return out;
}

Result<Layout> LogicalProduct(const Layout& a, const Layout& b) {
  IXA_ASSIGN_OR_RETURN(int64_t cotarget, Mul(Size(a), Cosize(b)));
  IXA_ASSIGN_OR_RETURN(Layout comp, Complement(a, cotarget));
  IXA_ASSIGN_OR_RETURN(Layout x, Compose(comp, b));
  return MakeTuple({a, x});
}

Result<Layout> LogicalProduct(const Layout& a, const Tiler& b) {
  if (!b.by_mode) return LogicalProduct(a, b.layout);
  return ByMode(a, b, [](const Layout& m, const Tiler& t) {
    return LogicalProduct(m, t);
  });
}

Result<Layout> ZippedProduct(const Layout& a, const Tiler& b) {
  IXA_ASSIGN_OR_RETURN(Unzipped u, HierUnzip(a, b, ProductSplit));
  return u.Zipped();
}

Result<Layout> TiledProduct(const Layout& a, const Tiler& b) {
  IXA_ASSIGN_OR_RETURN(Unzipped u, HierUnzip(a, b, ProductSplit));
  return u.Tiled();
}

// CuTe's right_inverse: walk the modes by increasing stride while each
// stride continues the image contiguously; L(R(i)) = i on what it covers.
Layout RightInverse(const Layout& l) {
  struct Entry {
    int64_t stride, shape, rstride;
  };
  std::vector<Entry> entries;
  int64_t prefix = 1;
  for (const Mode& m : Flat(l)) {
    entries.push_back({m.stride, m.shape, prefix});
    prefix *= m.shape;
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
    return std::tie(x.stride, x.shape, x.rstride) <
           std::tie(y.stride, y.shape, y.rstride);
  });
  std::vector<Mode> out;
  int64_t cur = 1;
  for (const Entry& e : entries) {
    // Broadcast (stride-0) modes hold no index: skipped, as the C++
    // right_inverse does (pycute stops at them and answers 1:0).
    if (e.shape == 1 || e.stride == 0) continue;
    if (e.stride != cur) break;
    out.push_back({e.shape, e.rstride});
    auto next = CheckedMul(e.shape, e.stride);
    if (!next) break;  // no stride can continue past int64
    cur = *next;
  }
  return Coalesce(FromModes(out));
}

Result<Layout> LeftInverse(const Layout& l) {
  IXA_ASSIGN_OR_RETURN(Layout comp, Complement(l, Cosize(l)));
  return RightInverse(MakeTuple({l, comp}));
}

namespace {

Result<Layout> ZipProduct(const Layout& a, const Layout& b, bool blocked) {
  const int r = std::max(a.rank(), b.rank());
  Layout pa = PadRank(a, r), pb = PadRank(b, r);
  IXA_ASSIGN_OR_RETURN(int64_t cotarget, Mul(Size(pa), Cosize(pb)));
  IXA_ASSIGN_OR_RETURN(Layout comp, Complement(pa, cotarget));
  IXA_ASSIGN_OR_RETURN(Layout x, Compose(comp, pb));
  std::vector<Layout> modes;
  for (int i = 0; i < r; ++i) {
    // Rank 1: x is A* o B as a whole (B a leaf), whatever its nesting.
    Layout xi = r == 1 ? x : x.Mode(i);
    Layout pair =
        blocked ? MakeTuple({pa.Mode(i), xi}) : MakeTuple({xi, pa.Mode(i)});
    modes.push_back(Coalesce(pair));
  }
  return MakeTuple(modes);
}

}  // namespace

Result<Layout> BlockedProduct(const Layout& a, const Layout& b) {
  return ZipProduct(a, b, true);
}
Result<Layout> RakedProduct(const Layout& a, const Layout& b) {
  return ZipProduct(a, b, false);
}

namespace {

Expr ModeOffset(ExprContext* ctx, Expr c, const Layout& mode) {
  std::vector<Mode> leaves = Flat(mode);
  Expr out = ctx->Constant(0);
  int64_t below = 1;
  for (size_t k = 0; k < leaves.size(); ++k) {
    const Mode& m = leaves[k];
    if (m.shape > 1 && m.stride != 0) {
      Expr digit = below == 1 ? c : c.FloorDiv(below);
      if (k + 1 < leaves.size()) digit = digit % m.shape;
      out = out + digit * m.stride;
    }
    below *= m.shape;
  }
  return out;
}

// x XOR y on one bit = ((x fd 2^t) + (y fd 2^u)) mod 2: o' = o + sum over
// the B target bits of 2^t * (new bit - old bit).
Expr SwizzleExpr(ExprContext* ctx, Expr o, const Swizzle& s) {
  Expr out = o;
  for (int j = 0; j < s.b; ++j) {
    int t = s.s >= 0 ? s.m + j : s.m - s.s + j;
    int u = s.s >= 0 ? s.m + s.s + j : s.m + j;
    Expr old_bit = Bit(o, t) % 2;
    Expr new_bit = (Bit(o, t) + Bit(o, u)) % 2;
    out = out + (new_bit - old_bit) * (int64_t{1} << t);
  }
  (void)ctx;
  return out;
}

}  // namespace

Result<IndexingMap> LayoutMap(const Layout& l,
                              const std::optional<Swizzle>& swizzle,
                              ExprContext* ctx) {
  IXA_RETURN_IF_ERROR(CheckBounds(l));
  if (swizzle) {
    auto ok = ValidateSwizzle(*swizzle);
    if (!ok.ok()) return ok.error();
  }
  Expr offset = ctx->Constant(0);
  std::vector<int64_t> sizes;
  for (int i = 0; i < l.rank(); ++i) {
    Layout mode = l.Mode(i);
    offset = offset + ModeOffset(ctx, ctx->Dim(i), mode);
    sizes.push_back(Size(mode));
  }
  if (swizzle) offset = SwizzleExpr(ctx, offset, *swizzle);
  IndexingMap map = IndexingMap::FromTensorSizes(ctx, {offset}, sizes, {});
  Simplify(&map);
  return map;
}

Result<IndexingMap> DivideWithMask(const Layout& a,
                                   const std::vector<int64_t>& tile,
                                   ExprContext* ctx) {
  if (static_cast<int>(tile.size()) > a.rank()) {
    return Error::Invalid("tile has " + S(tile.size()) +
                          " sizes but the layout has rank " + S(a.rank()));
  }
  const int k = static_cast<int>(tile.size());
  std::vector<int64_t> sizes;
  for (int i = 0; i < k; ++i) {
    if (tile[i] < 1) return Error::Invalid("tile sizes must be >= 1");
    sizes.push_back(tile[i]);
  }
  for (int i = 0; i < k; ++i)
    sizes.push_back(*CeilDiv(Size(a.Mode(i)), tile[i]));
  for (int i = k; i < a.rank(); ++i) sizes.push_back(Size(a.Mode(i)));
  Expr offset = ctx->Constant(0);
  std::vector<Constraint> masks;
  for (int i = 0; i < a.rank(); ++i) {
    Expr c = i < k ? ctx->Dim(k + i) * tile[i] + ctx->Dim(i) : ctx->Dim(k + i);
    int64_t n = Size(a.Mode(i));
    if (i < k && n % tile[i] != 0) masks.push_back({c, Interval{0, n - 1}});
    offset = offset + ModeOffset(ctx, c, a.Mode(i));
  }
  IndexingMap map = IndexingMap::FromTensorSizes(ctx, {offset}, sizes, {});
  for (const Constraint& m : masks) map.AddConstraint(m.expr, m.interval);
  Simplify(&map);
  return map;
}

}  // namespace ixa::hw::cute
