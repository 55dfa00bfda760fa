#include "hw/xla_layout.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "core/int_math.h"
#include "simplifier/simplify.h"

namespace ixa::hw {

namespace {

// ---------------------------------------------------------------- parsing

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  void SkipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
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
  bool ConsumeWord(std::string_view w) {
    SkipSpace();
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  Error Fail(const std::string& what) const {
    return Error::Parse(what, 1, static_cast<int>(pos_) + 1);
  }
  Result<int64_t> Int() {
    SkipSpace();
    size_t start = pos_;
    bool neg = pos_ < text_.size() && text_[pos_] == '-';
    if (neg) ++pos_;
    int64_t v = 0;
    bool any = false;
    while (pos_ < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      auto m = CheckedMul(v, 10);
      auto a = m ? CheckedAdd(*m, text_[pos_] - '0') : std::nullopt;
      if (!a) return Fail("integer too large");
      v = *a;
      any = true;
      ++pos_;
    }
    if (!any) {
      pos_ = start;
      return Fail("expected an integer");
    }
    return neg ? -v : v;
  }
  std::string Identifier() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '_'))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// One parenthesized int list, `*` allowed when `allow_star`.
Result<std::vector<int64_t>> ParseParenList(Cursor& c, bool allow_star) {
  if (!c.Consume('(')) return c.Fail("expected '('");
  std::vector<int64_t> out;
  if (c.Consume(')')) return out;
  while (true) {
    if (allow_star && c.Consume('*')) {
      out.push_back(kCombineDimension);
    } else {
      IXA_ASSIGN_OR_RETURN(int64_t v, c.Int());
      out.push_back(v);
    }
    if (c.Consume(')')) return out;
    if (!c.Consume(',')) return c.Fail("expected ',' or ')' in a tile");
  }
}

Result<int64_t> ParseOneIntParen(Cursor& c) {
  IXA_ASSIGN_OR_RETURN(auto list, ParseParenList(c, false));
  if (list.size() != 1) return c.Fail("expected one integer in parentheses");
  return list[0];
}

Result<std::string> ParseTypeParen(Cursor& c) {
  if (!c.Consume('(')) return c.Fail("expected '('");
  std::string t = c.Identifier();
  if (!c.Consume(')')) return c.Fail("expected ')'");
  return t;
}

std::optional<Error> ValidateLayout(const XlaLayout& layout, int rank) {
  std::vector<bool> seen(rank, false);
  if (static_cast<int>(layout.minor_to_major.size()) != rank) {
    return Error::Invalid(
        "minor_to_major has " + std::to_string(layout.minor_to_major.size()) +
        " entries for a rank-" + std::to_string(rank) + " shape");
  }
  for (int64_t d : layout.minor_to_major) {
    if (d < 0 || d >= rank || seen[d]) {
      return Error::Invalid("minor_to_major is not a permutation of 0.." +
                            std::to_string(rank - 1));
    }
    seen[d] = true;
  }
  for (const auto& tile : layout.tiles) {
    if (tile.empty()) return Error::Invalid("empty tile T()");
    for (size_t i = 0; i < tile.size(); ++i) {
      if (tile[i] == kCombineDimension) {
        if (i + 1 == tile.size()) {
          return Error::Invalid(
              "'*' in a tile's most minor position has no dimension to fold "
              "into");
        }
      } else if (tile[i] < 1) {
        return Error::Invalid("tile size " + std::to_string(tile[i]) +
                              " is not positive");
      }
    }
  }
  if (layout.tail_padding_alignment < 1)
    return Error::Invalid("L(n) needs n >= 1");
  if (layout.element_size_bits < 0) return Error::Invalid("E(n) needs n >= 0");
  return std::nullopt;
}

// ------------------------------------------------------- the tiling plan

struct LevelPlan {
  int prepended = 0;
  std::vector<std::pair<int, int64_t>> merges;  // (position, minor size)
  int prefix = 0;
  std::vector<int64_t> tile;  // without '*'
  std::vector<int64_t> dims;  // the dims that the tile splits (after merges)
};

struct Plan {
  std::vector<int> physical_to_logical;
  std::vector<LevelPlan> levels;
  std::vector<int64_t> final_shape;
  int64_t tiled_elements = 1;
  int64_t physical_elements = 1;
};

Result<Plan> MakePlan(const XlaShape& shape) {
  XlaLayout layout = shape.EffectiveLayout();
  if (auto err = ValidateLayout(layout, shape.rank())) return *err;
  for (int64_t d : shape.dims) {
    if (d < 0) return Error::Invalid("negative dimension size");
  }
  Plan plan;
  const int r = shape.rank();
  std::vector<int64_t> dims;
  for (int j = 0; j < r; ++j) {
    int logical = static_cast<int>(layout.minor_to_major[r - 1 - j]);
    plan.physical_to_logical.push_back(logical);
    dims.push_back(shape.dims[logical]);
  }
  for (const auto& raw_tile : layout.tiles) {
    LevelPlan level;
    std::vector<int64_t> tile = raw_tile;
    if (tile.size() > dims.size()) {
      // Missing major dims behave as size-1 dims (ShapeUtil::ArraySize).
      level.prepended = static_cast<int>(tile.size() - dims.size());
      dims.insert(dims.begin(), level.prepended, 1);
    }
    int base = static_cast<int>(dims.size() - tile.size());
    // Fold each '*' dim into the next more minor one, leftmost first.
    for (size_t j = 0; j < tile.size();) {
      if (tile[j] != kCombineDimension) {
        ++j;
        continue;
      }
      int pos = base + static_cast<int>(j);
      auto merged = CheckedMul(dims[pos], dims[pos + 1]);
      if (!merged)
        return Error::Invalid("combined dimension size overflows int64");
      level.merges.push_back({pos, dims[pos + 1]});
      dims[pos + 1] = *merged;
      dims.erase(dims.begin() + pos);
      tile.erase(tile.begin() + j);
    }
    level.prefix = static_cast<int>(dims.size() - tile.size());
    level.tile = tile;
    level.dims = dims;
    std::vector<int64_t> next(dims.begin(), dims.begin() + level.prefix);
    for (size_t i = 0; i < tile.size(); ++i) {
      next.push_back(*CeilDiv(dims[level.prefix + i], tile[i]));
    }
    next.insert(next.end(), tile.begin(), tile.end());
    dims = std::move(next);
    plan.levels.push_back(std::move(level));
  }
  plan.final_shape = dims;
  for (int64_t d : dims) {
    auto p = CheckedMul(plan.tiled_elements, d);
    if (!p) return Error::Invalid("tiled shape size overflows int64");
    plan.tiled_elements = *p;
  }
  int64_t align = layout.tail_padding_alignment;
  auto rounded = CheckedMul(*CeilDiv(plan.tiled_elements, align), align);
  if (!rounded) return Error::Invalid("padded size overflows int64");
  plan.physical_elements = *rounded;
  return plan;
}

// MakePlan has checked that the whole product fits in int64; a partial
// product may still not when a dim to its left is 0 (a shape without
// elements, e.g. f64[40940,0,3340,940340,...]): such strides saturate, as no
// index ever reaches them.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int k = static_cast<int>(shape.size()) - 2; k >= 0; --k) {
    auto stride = CheckedMul(strides[k + 1], shape[k + 1]);
    strides[k] = stride ? *stride : kInt64Max;
  }
  return strides;
}

// Integer and symbolic arithmetic behind one interface, so that the numeric
// and the symbolic maps come from the same construction.
struct IntOps {
  using V = int64_t;
  V Const(int64_t c) { return c; }
  V Add(V a, V b) { return a + b; }
  V Mul(V a, int64_t c) { return a * c; }
  V Fd(V a, int64_t c) { return *FloorDiv(a, c); }
  V Mod(V a, int64_t c) { return *ixa::Mod(a, c); }
  // Records a bound; returns false when it fails.
  bool Check(V v, int64_t lo, int64_t hi) { return lo <= v && v <= hi; }
};

struct ExprOps {
  using V = Expr;
  ExprContext* ctx;
  std::vector<Constraint> constraints;
  V Const(int64_t c) { return ctx->Constant(c); }
  V Add(V a, V b) { return a + b; }
  V Mul(V a, int64_t c) { return a * c; }
  V Fd(V a, int64_t c) { return c == 1 ? a : a.FloorDiv(c); }
  V Mod(V a, int64_t c) { return c == 1 ? ctx->Constant(0) : a % c; }
  bool Check(V v, int64_t lo, int64_t hi) {
    constraints.push_back({v, Interval{lo, hi}});
    return true;
  }
};

template <class Ops>
std::vector<typename Ops::V> Forward(
    const Plan& plan, const std::vector<typename Ops::V>& logical, Ops& ops) {
  using V = typename Ops::V;
  std::vector<V> idx;
  for (int l : plan.physical_to_logical) idx.push_back(logical[l]);
  for (const LevelPlan& level : plan.levels) {
    idx.insert(idx.begin(), level.prepended, ops.Const(0));
    for (auto [pos, minor] : level.merges) {
      idx[pos + 1] = ops.Add(ops.Mul(idx[pos], minor), idx[pos + 1]);
      idx.erase(idx.begin() + pos);
    }
    std::vector<V> next(idx.begin(), idx.begin() + level.prefix);
    for (size_t i = 0; i < level.tile.size(); ++i) {
      next.push_back(ops.Fd(idx[level.prefix + i], level.tile[i]));
    }
    for (size_t i = 0; i < level.tile.size(); ++i) {
      next.push_back(ops.Mod(idx[level.prefix + i], level.tile[i]));
    }
    idx = std::move(next);
  }
  return idx;
}

// Inverse of Forward from the final index; false when a bound fails
// (padding). Only tiles that do not divide their dim can create padding, so
// only they get a bound.
template <class Ops>
bool Backward(const Plan& plan, std::vector<typename Ops::V> idx, Ops& ops,
              std::vector<typename Ops::V>* logical) {
  using V = typename Ops::V;
  for (auto it = plan.levels.rbegin(); it != plan.levels.rend(); ++it) {
    const LevelPlan& level = *it;
    const size_t k = level.tile.size();
    std::vector<V> prev(idx.begin(), idx.begin() + level.prefix);
    for (size_t i = 0; i < k; ++i) {
      V e = ops.Add(ops.Mul(idx[level.prefix + i], level.tile[i]),
                    idx[level.prefix + k + i]);
      int64_t d = level.dims[level.prefix + i];
      if (d % level.tile[i] != 0 && !ops.Check(e, 0, d - 1)) return false;
      prev.push_back(e);
    }
    for (auto m = level.merges.rbegin(); m != level.merges.rend(); ++m) {
      V merged = prev[m->first];
      prev[m->first] = ops.Mod(merged, m->second);
      prev.insert(prev.begin() + m->first, ops.Fd(merged, m->second));
    }
    prev.erase(prev.begin(), prev.begin() + level.prepended);
    idx = std::move(prev);
  }
  logical->assign(idx.size(), V{});
  for (size_t j = 0; j < idx.size(); ++j) {
    (*logical)[plan.physical_to_logical[j]] = idx[j];
  }
  return true;
}

std::string JoinInts(const std::vector<int64_t>& v, bool stars) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ",";
    out += (stars && v[i] == kCombineDimension) ? "*" : std::to_string(v[i]);
  }
  return out;
}

// Parses the attributes after the colon up to '}' (not consumed).
Status ParseAttributes(Cursor& c, XlaLayout* layout) {
  while (!c.AtEnd() && c.Peek() != '}') {
    if (c.ConsumeWord("SC") || c.ConsumeWord("P(") || c.ConsumeWord("M(") ||
        c.ConsumeWord("D(")) {
      return Error::Unsupported(
          "layout attributes SC, P, M and D are not modelled");
    }
    if (c.ConsumeWord("T")) {
      if (c.Peek() != '(') return c.Fail("expected '(' after T");
      while (c.Peek() == '(') {
        IXA_ASSIGN_OR_RETURN(auto tile, ParseParenList(c, true));
        layout->tiles.push_back(std::move(tile));
      }
    } else if (c.ConsumeWord("L")) {
      IXA_ASSIGN_OR_RETURN(layout->tail_padding_alignment, ParseOneIntParen(c));
    } else if (c.ConsumeWord("E")) {
      IXA_ASSIGN_OR_RETURN(layout->element_size_bits, ParseOneIntParen(c));
    } else if (c.ConsumeWord("S")) {
      IXA_ASSIGN_OR_RETURN(layout->memory_space, ParseOneIntParen(c));
    } else if (c.ConsumeWord("#")) {
      IXA_ASSIGN_OR_RETURN(layout->index_type, ParseTypeParen(c));
    } else if (c.ConsumeWord("*")) {
      IXA_ASSIGN_OR_RETURN(layout->pointer_type, ParseTypeParen(c));
    } else {
      return c.Fail("expected a layout attribute T, L, E, S, # or *");
    }
  }
  return Status();
}

}  // namespace

XlaLayout XlaShape::EffectiveLayout() const {
  if (layout) return *layout;
  XlaLayout l;
  for (int i = rank() - 1; i >= 0; --i) l.minor_to_major.push_back(i);
  return l;
}

int64_t XlaShape::ElementBits() const {
  if (layout && layout->element_size_bits > 0) return layout->element_size_bits;
  // XLA packs sub-byte types only when the layout says E(n)
  // (ShapeUtil::ByteSizeOfElements / ArraySize use ByteWidth otherwise, and
  // the SubByteNormalization pass adds or strips E(n)): s4[3] is 3 bytes.
  return (type.bits + 7) / 8 * 8;
}

Result<XlaShape> ParseXlaShape(std::string_view text) {
  Cursor c(text);
  XlaShape shape;
  std::string type = c.Identifier();
  if (type.empty()) return c.Fail("expected an element type");
  auto dtype = FindDType(type);
  if (!dtype) {
    return Error::Parse("unknown element type " + QuoteForMessage(type) +
                            " (known: " + KnownDTypeNames() + ")",
                        1, 1);
  }
  shape.type = *dtype;
  if (!c.Consume('[')) return c.Fail("expected '[' after the element type");
  if (!c.Consume(']')) {
    while (true) {
      IXA_ASSIGN_OR_RETURN(int64_t d, c.Int());
      if (d < 0) return c.Fail("dimension sizes must be non-negative");
      shape.dims.push_back(d);
      if (c.Consume(']')) break;
      if (!c.Consume(',')) return c.Fail("expected ',' or ']'");
    }
  }
  if (c.Consume('{')) {
    XlaLayout layout;
    if (c.Peek() != '}' && c.Peek() != ':') {
      while (true) {
        IXA_ASSIGN_OR_RETURN(int64_t d, c.Int());
        layout.minor_to_major.push_back(d);
        if (!c.Consume(',')) break;
      }
    }
    if (c.Consume(':')) {
      IXA_RETURN_IF_ERROR(ParseAttributes(c, &layout));
    }
    if (!c.Consume('}')) return c.Fail("expected '}' to close the layout");
    if (auto err = ValidateLayout(layout, shape.rank())) return *err;
    shape.layout = std::move(layout);
  }
  if (!c.AtEnd()) return c.Fail("unexpected text after the shape");
  return shape;
}

std::string PrintXlaShape(const XlaShape& shape) {
  std::string out = shape.type.name + "[" + JoinInts(shape.dims, false) + "]";
  if (!shape.layout) return out;
  const XlaLayout& l = *shape.layout;
  out += "{" + JoinInts(l.minor_to_major, false);
  std::string attrs;
  if (!l.tiles.empty()) {
    attrs += "T";
    for (const auto& t : l.tiles) attrs += "(" + JoinInts(t, true) + ")";
  }
  if (l.tail_padding_alignment != 1)
    attrs += "L(" + std::to_string(l.tail_padding_alignment) + ")";
  if (!l.index_type.empty()) attrs += "#(" + l.index_type + ")";
  if (!l.pointer_type.empty()) attrs += "*(" + l.pointer_type + ")";
  if (l.element_size_bits != 0)
    attrs += "E(" + std::to_string(l.element_size_bits) + ")";
  if (l.memory_space != 0) attrs += "S(" + std::to_string(l.memory_space) + ")";
  if (!attrs.empty()) out += ":" + attrs;
  return out + "}";
}

Result<TiledLayoutInfo> AnalyzeTiledLayout(const XlaShape& shape,
                                           ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(Plan plan, MakePlan(shape));
  TiledLayoutInfo info;
  info.physical_shape = plan.final_shape;
  info.tiled_elements = plan.tiled_elements;
  info.physical_elements = plan.physical_elements;
  info.element_bits = shape.ElementBits();
  auto bits = CheckedMul(plan.physical_elements, info.element_bits);
  if (!bits) {
    // The bits overflow first: the bytes, an eighth of them, may still fit.
    return Error::Invalid("the size in bits (" +
                          std::to_string(plan.physical_elements) +
                          " elements of " + std::to_string(info.element_bits) +
                          " bits) overflows int64");
  }
  info.bytes = *CeilDiv(*bits, 8);

  ExprOps ops{ctx, {}};
  std::vector<Expr> logical;
  for (int i = 0; i < shape.rank(); ++i) logical.push_back(ctx->Dim(i));
  std::vector<Expr> idx = Forward(plan, logical, ops);
  std::vector<int64_t> strides = RowMajorStrides(plan.final_shape);
  Expr offset = ctx->Constant(0);
  for (size_t k = 0; k < idx.size(); ++k) offset = offset + idx[k] * strides[k];
  info.map = IndexingMap::FromTensorSizes(ctx, {offset}, shape.dims, {});
  Simplify(&info.map);
  return info;
}

Result<IndexingMap> InverseTiledLayoutMap(const XlaShape& shape,
                                          ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(Plan plan, MakePlan(shape));
  std::vector<Variable> dims(1);
  dims[0].bounds = Interval{0, plan.physical_elements - 1};
  dims[0].name = "offset";
  if (plan.physical_elements == 0) {
    // No offset at all (a 0 dim): an empty map. Its strides would divide
    // by 0.
    IndexingMap map(ctx, dims, {}, {},
                    std::vector<Expr>(shape.rank(), ctx->Constant(0)), {});
    Simplify(&map);
    return map;
  }
  ExprOps ops{ctx, {}};
  Expr o = ctx->Dim(0);
  std::vector<int64_t> strides = RowMajorStrides(plan.final_shape);
  std::vector<Expr> idx;
  for (size_t k = 0; k < strides.size(); ++k) {
    Expr v = ops.Fd(o, strides[k]);
    if (k > 0) v = ops.Mod(v, plan.final_shape[k]);
    idx.push_back(v);
  }
  std::vector<Expr> logical;
  Backward(plan, idx, ops, &logical);
  IndexingMap map(ctx, dims, {}, {}, logical, {});
  // Offsets in the L(n) tail are padding: outside [0, tiled_elements).
  if (plan.tiled_elements < plan.physical_elements) {
    map.AddConstraint(o, Interval{0, plan.tiled_elements - 1});
  }
  for (const Constraint& c : ops.constraints)
    map.AddConstraint(c.expr, c.interval);
  Simplify(&map);
  return map;
}

Result<int64_t> PhysicalOffset(const XlaShape& shape,
                               std::span<const int64_t> index) {
  IXA_ASSIGN_OR_RETURN(Plan plan, MakePlan(shape));
  if (static_cast<int>(index.size()) != shape.rank()) {
    return Error::Invalid("index has " + std::to_string(index.size()) +
                          " components for a rank-" +
                          std::to_string(shape.rank()) + " shape");
  }
  for (int i = 0; i < shape.rank(); ++i) {
    if (index[i] < 0 || index[i] >= shape.dims[i]) {
      return Error::Invalid("index component " + std::to_string(i) + " = " +
                            std::to_string(index[i]) + " is outside [0, " +
                            std::to_string(shape.dims[i] - 1) + "]");
    }
  }
  IntOps ops;
  std::vector<int64_t> idx =
      Forward(plan, std::vector<int64_t>(index.begin(), index.end()), ops);
  std::vector<int64_t> strides = RowMajorStrides(plan.final_shape);
  int64_t offset = 0;
  for (size_t k = 0; k < idx.size(); ++k) offset += idx[k] * strides[k];
  return offset;
}

Result<std::optional<std::vector<int64_t>>> LogicalIndexAt(
    const XlaShape& shape, int64_t offset) {
  IXA_ASSIGN_OR_RETURN(Plan plan, MakePlan(shape));
  if (offset < 0 || offset >= plan.physical_elements) {
    return Error::Invalid("offset " + std::to_string(offset) +
                          " is outside [0, " +
                          std::to_string(plan.physical_elements - 1) + "]");
  }
  std::optional<std::vector<int64_t>> none;
  if (offset >= plan.tiled_elements) return none;
  std::vector<int64_t> strides = RowMajorStrides(plan.final_shape);
  std::vector<int64_t> idx;
  for (size_t k = 0; k < strides.size(); ++k) {
    idx.push_back((offset / strides[k]) % plan.final_shape[k]);
  }
  IntOps ops;
  std::vector<int64_t> logical;
  if (!Backward(plan, idx, ops, &logical)) return none;
  return std::optional<std::vector<int64_t>>(logical);
}

BitPosition SubBytePosition(int64_t element_offset, int64_t element_bits,
                            NibbleOrder order) {
  BitPosition p;
  int64_t bit = element_offset * element_bits;
  p.byte = bit / 8;
  int in_byte = static_cast<int>(bit % 8);
  p.shift = order == NibbleOrder::kLowFirst
                ? in_byte
                : 8 - in_byte - static_cast<int>(element_bits);
  return p;
}

std::span<const TpuTilingEntry> TpuTilings() {
  static const TpuTilingEntry kEntries[] = {
      {"f32,s32,u32", "T(8,128)", "HBM default (one 8x128 vreg)",
       "tiled_layout.md: TPU tile format"},
      {"f32,s32,u32", "T(2,128)", "second-minor dim 1-2 (compact)",
       "tiled_layout.md"},
      {"f32,s32,u32", "T(4,128)", "second-minor dim 3-4 (compact)",
       "tiled_layout.md"},
      {"bf16,f16,s16,u16", "T(8,128)(2,1)", "HBM default",
       "tiled_layout.md (BF16 on TPU)"},
      {"bf16,f16,s16,u16", "T(16,128)(2,1)", "native / VMEM tile",
       "PyTorch-TPU layout hints"},
      {"bf16", "T(1024)(128)(2,1)", "rank-1", "XLA HLO test string"},
      {"bf16", "T(8,128)(2,1,1,1)",
       "alternative packing: pairs two 8x128 tiles", "tiled_layout.md"},
      {"s8,u8,f8e4m3fn,f8e5m2", "T(8,128)(4,1)", "HBM default",
       "tiled_layout.md"},
      {"s8,u8,f8e4m3fn,f8e5m2", "T(32,128)(4,1)S(1)", "VMEM", "XLA HLO tests"},
      {"s4,u4", "T(8,128)(8,1)E(4)", "HBM default", "XLA HLO test"},
      {"s4,u4", "T(64,128)(8,1)E(4)S(1)", "VMEM", "XLA HLO test"},
      {"pred", "T(8,128)E(32)", "today: 4 bytes per element",
       "tiled_layout.md"},
      {"pred", "T(32,128)(32,1)E(1)", "proposal: 1 bit per element",
       "tiled_layout.md"},
  };
  return kEntries;
}

Result<XlaShape> WithTpuDefaultLayout(const XlaShape& shape) {
  auto has_type = [&](const char* list) {
    std::string l = std::string(",") + list + ",";
    return l.find("," + shape.type.name + ",") != std::string::npos;
  };
  std::string want = "HBM default";
  if (shape.rank() == 1 && shape.type.name == "bf16") want = "rank-1";
  if (shape.type.bits == 32 && shape.rank() >= 2) {
    int64_t second_minor = shape.dims[shape.rank() - 2];
    if (second_minor <= 2)
      want = "second-minor dim 1-2";
    else if (second_minor <= 4)
      want = "second-minor dim 3-4";
  }
  if (shape.type.name == "pred") want = "today";
  XlaShape out = shape;
  out.layout = XlaShape{shape.type, shape.dims, std::nullopt}.EffectiveLayout();
  if (shape.rank() == 0) return out;
  for (const TpuTilingEntry& e : TpuTilings()) {
    if (!has_type(e.dtypes) || std::string(e.where).rfind(want, 0) != 0)
      continue;
    Cursor c(e.layout);
    XlaLayout attrs = *out.layout;
    IXA_RETURN_IF_ERROR(ParseAttributes(c, &attrs));
    out.layout = attrs;
    return out;
  }
  return Error::Unsupported("no TPU tiling is recorded for element type " +
                            shape.type.name);
}

}  // namespace ixa::hw
