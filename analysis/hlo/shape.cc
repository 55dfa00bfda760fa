#include "analysis/hlo/shape.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "analysis/hlo/lexer.h"
#include "core/int_math.h"

namespace ixa::hlo {
namespace {

struct TypeInfo {
  ElementType type;
  const char* name;
  int bits;
};

constexpr std::array kTypes = {
    TypeInfo{ElementType::kPred, "pred", 8},
    TypeInfo{ElementType::kS2, "s2", 2},
    TypeInfo{ElementType::kS4, "s4", 4},
    TypeInfo{ElementType::kS8, "s8", 8},
    TypeInfo{ElementType::kS16, "s16", 16},
    TypeInfo{ElementType::kS32, "s32", 32},
    TypeInfo{ElementType::kS64, "s64", 64},
    TypeInfo{ElementType::kU2, "u2", 2},
    TypeInfo{ElementType::kU4, "u4", 4},
    TypeInfo{ElementType::kU8, "u8", 8},
    TypeInfo{ElementType::kU16, "u16", 16},
    TypeInfo{ElementType::kU32, "u32", 32},
    TypeInfo{ElementType::kU64, "u64", 64},
    TypeInfo{ElementType::kF4E2M1FN, "f4e2m1fn", 4},
    TypeInfo{ElementType::kF8E3M4, "f8e3m4", 8},
    TypeInfo{ElementType::kF8E4M3, "f8e4m3", 8},
    TypeInfo{ElementType::kF8E4M3FN, "f8e4m3fn", 8},
    TypeInfo{ElementType::kF8E4M3FNUZ, "f8e4m3fnuz", 8},
    TypeInfo{ElementType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    TypeInfo{ElementType::kF8E5M2, "f8e5m2", 8},
    TypeInfo{ElementType::kF8E5M2FNUZ, "f8e5m2fnuz", 8},
    TypeInfo{ElementType::kF8E8M0FNU, "f8e8m0fnu", 8},
    TypeInfo{ElementType::kF16, "f16", 16},
    TypeInfo{ElementType::kBF16, "bf16", 16},
    TypeInfo{ElementType::kF32, "f32", 32},
    TypeInfo{ElementType::kF64, "f64", 64},
    TypeInfo{ElementType::kC64, "c64", 64},
    TypeInfo{ElementType::kC128, "c128", 128},
    TypeInfo{ElementType::kS1, "s1", 1},
    TypeInfo{ElementType::kU1, "u1", 1},
    TypeInfo{ElementType::kF6E2M3FN, "f6e2m3fn", 6},
    TypeInfo{ElementType::kF6E3M2FN, "f6e3m2fn", 6},
    TypeInfo{ElementType::kOpaque, "opaque", 0},
    TypeInfo{ElementType::kToken, "token", 0},
};

}  // namespace

ElementType ElementTypeFromName(std::string_view name) {
  for (const TypeInfo& t : kTypes) {
    if (name == t.name) return t.type;
  }
  // XLA accepts upper-case type names in some dumps (F32[3,5]).
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  if (lower != name) return ElementTypeFromName(lower);
  return ElementType::kInvalid;
}

const char* ElementTypeName(ElementType type) {
  for (const TypeInfo& t : kTypes) {
    if (t.type == type) return t.name;
  }
  return type == ElementType::kTuple ? "tuple" : "invalid";
}

int ElementBits(ElementType type) {
  for (const TypeInfo& t : kTypes) {
    if (t.type == type) return t.bits;
  }
  return 0;
}

bool IsIntegral(ElementType type) {
  return (type >= ElementType::kS2 && type <= ElementType::kU64) ||
         type == ElementType::kS1 || type == ElementType::kU1;
}

bool IsStandardFloat(ElementType type) {
  return type == ElementType::kF16 || type == ElementType::kBF16 ||
         type == ElementType::kF32 || type == ElementType::kF64;
}

bool IsWholeByteSigned(ElementType type) {
  return type == ElementType::kS8 || type == ElementType::kS16 ||
         type == ElementType::kS32 || type == ElementType::kS64;
}

bool IsWholeByteUnsigned(ElementType type) {
  return type == ElementType::kU8 || type == ElementType::kU16 ||
         type == ElementType::kU32 || type == ElementType::kU64;
}

bool Shape::HasUnboundedDim() const {
  for (int64_t d : dims) {
    if (d == kUnboundedDim) return true;
  }
  for (const Shape& e : tuple_elements) {
    if (e.HasUnboundedDim()) return true;
  }
  return false;
}

int64_t Shape::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : dims) {
    int64_t next;
    if (__builtin_mul_overflow(n, d, &next)) return kInt64Max;
    n = next;
  }
  return n;
}

std::vector<int64_t> Shape::MinorToMajor() const {
  if (layout && layout->minor_to_major.size() == dims.size()) {
    return layout->minor_to_major;
  }
  std::vector<int64_t> m2m(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) m2m[i] = dims.size() - 1 - i;
  return m2m;
}

std::string Shape::ToStringWithLayout() const {
  if (layout || rank() == 0) return ToString(true);
  Shape shown = *this;
  shown.layout.emplace();
  shown.layout->minor_to_major = MinorToMajor();
  return shown.ToString(true);
}

std::vector<int64_t> Shape::PhysicalDims() const {
  std::vector<int64_t> m2m = MinorToMajor();
  std::vector<int64_t> out;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) out.push_back(dims[*it]);
  return out;
}

bool Shape::Compatible(const Shape& o) const {
  if (type != o.type || dims != o.dims) return false;
  if (tuple_elements.size() != o.tuple_elements.size()) return false;
  for (size_t i = 0; i < tuple_elements.size(); ++i) {
    if (!tuple_elements[i].Compatible(o.tuple_elements[i])) return false;
  }
  return true;
}

std::string Shape::ToString(bool with_layout) const {
  std::string out;
  if (IsTuple()) {
    out = "(";
    for (size_t i = 0; i < tuple_elements.size(); ++i) {
      if (i) out += ", ";
      out += tuple_elements[i].ToString(with_layout);
    }
    return out + ")";
  }
  out = ElementTypeName(type);
  out += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ",";
    if (dims[i] == kUnboundedDim) {
      out += "?";
      continue;
    }
    if (IsDynamicDim(static_cast<int>(i))) out += "<=";
    out += std::to_string(dims[i]);
  }
  out += "]";
  if (with_layout && layout) {
    out += "{";
    for (size_t i = 0; i < layout->minor_to_major.size(); ++i) {
      if (i) out += ",";
      out += std::to_string(layout->minor_to_major[i]);
    }
    // XLA's form: a ':' before the attributes (when there are any), one
    // T, then each tile in parentheses (T(8,128)(2,1)), then E(bits).
    std::string attributes;
    if (!layout->tiles.empty()) {
      attributes += "T";
      for (const Tile& t : layout->tiles) {
        attributes += "(";
        for (size_t i = 0; i < t.dims.size(); ++i) {
          if (i) attributes += ",";
          attributes += t.dims[i] < 0 ? "*" : std::to_string(t.dims[i]);
        }
        attributes += ")";
      }
    }
    if (layout->element_size_bits) {
      attributes += "E(" + std::to_string(layout->element_size_bits) + ")";
    }
    if (!attributes.empty()) out += ":" + attributes;
    out += "}";
  }
  return out;
}

namespace {

// `{1,0:T(8,128)(2,1)E(4)S(1)}`; the '{' is consumed. Items other than
// tiles and the element size (memory space, `#(index type)`, `*(pointer
// type)`...) are skipped.
Result<Layout> ParseLayout(Cursor* c, int rank) {
  Layout layout;
  Position start = c->position();
  if (c->Peek() != '}' && c->Peek() != ':') {
    while (true) {
      IXA_ASSIGN_OR_RETURN(int64_t d,
                           c->ExpectInt("a dimension number in the layout"));
      layout.minor_to_major.push_back(d);
      if (!c->Consume(',')) break;
    }
  }
  if (c->Consume(':')) {
    while (c->Peek() != '}' && c->Peek() != '\0') {
      std::string_view item = c->Name();
      if (item == "T") {
        while (c->Consume('(')) {
          Tile tile;
          while (true) {
            if (c->Consume('*')) {
              tile.dims.push_back(-1);
            } else {
              IXA_ASSIGN_OR_RETURN(int64_t t, c->ExpectInt("a tile size"));
              if (t <= 0) return c->Fail("a positive tile size");
              tile.dims.push_back(t);
            }
            if (c->Consume(')')) break;
            if (!c->Consume(',')) return c->Fail("',' or ')' in a tile");
          }
          layout.tiles.push_back(std::move(tile));
        }
      } else if (item == "E") {
        IXA_HLO_TRY(c->Expect('(', "after E"));
        IXA_ASSIGN_OR_RETURN(layout.element_size_bits,
                             c->ExpectInt("an element size in bits"));
        IXA_HLO_TRY(c->Expect(')', "closing E("));
      } else if (!item.empty() && c->Consume('(')) {
        IXA_ASSIGN_OR_RETURN(auto ignored, c->RawUntilClose('(', ')'));
        (void)ignored;
      } else if (!item.empty()) {
        // A bare item such as `L` is skipped.
      } else if (c->Peek() == '#' || c->Peek() == '*') {
        // The index and pointer types of sparse layouts: `#(s32)*(s64)`.
        c->Consume(c->Peek());
        IXA_HLO_TRY(c->Expect('(', "after '#' or '*' in a layout"));
        IXA_ASSIGN_OR_RETURN(auto ignored, c->RawUntilClose('(', ')'));
        (void)ignored;
      } else {
        return c->Fail("a layout item (T(...), E(...), S(...)) or '}'");
      }
    }
  }
  IXA_HLO_TRY(c->Expect('}', "closing the layout"));
  // Validate: a permutation of 0..rank-1.
  if (!layout.minor_to_major.empty() || rank > 0) {
    std::vector<int64_t> sorted = layout.minor_to_major;
    std::sort(sorted.begin(), sorted.end());
    bool ok = static_cast<int>(sorted.size()) == rank;
    for (int i = 0; ok && i < rank; ++i) ok = sorted[i] == i;
    if (!ok) {
      return Cursor::FailAt(start, "layout is not a permutation of the " +
                                       std::to_string(rank) + " dimensions");
    }
  }
  return layout;
}

}  // namespace

namespace {

// `b(` starts a buffer shape; an element type name followed (after blanks)
// by `[` starts an array shape.
bool AtBufferShape(Cursor* c) {
  Position p = c->position();
  bool is_buffer = c->Name() == "b" && c->PeekRaw() == '(';
  c->Reset(p);
  return is_buffer;
}

}  // namespace

bool AtShape(Cursor* c) {
  Position p = c->position();
  if (c->Peek() == '(') return true;
  std::string_view n = c->Name();
  bool is_shape = !n.empty() &&
                  ElementTypeFromName(n) != ElementType::kInvalid &&
                  c->Peek() == '[';
  c->Reset(p);
  return is_shape || AtBufferShape(c);
}

namespace {

Result<Shape> ParseShapeAtDepth(Cursor* c, int depth, bool layout_after_blank) {
  Shape shape;
  if (depth > kMaxShapeDepth) {
    return c->Fail("a shape nested at most " + std::to_string(kMaxShapeDepth) +
                   " tuples deep");
  }
  if (AtBufferShape(c)) {
    c->Name();
    c->Consume('(');
    IXA_ASSIGN_OR_RETURN(shape,
                         ParseShapeAtDepth(c, depth + 1, layout_after_blank));
    IXA_HLO_TRY(c->Expect(')', "closing the buffer shape b(...)"));
    return shape;
  }
  if (c->Consume('(')) {
    shape.type = ElementType::kTuple;
    if (c->Consume(')')) return shape;
    while (true) {
      IXA_ASSIGN_OR_RETURN(Shape element,
                           ParseShapeAtDepth(c, depth + 1, layout_after_blank));
      shape.tuple_elements.push_back(std::move(element));
      if (c->Consume(')')) return shape;
      if (!c->Consume(',')) return c->Fail("',' or ')' in a tuple shape");
    }
  }
  Position p = c->position();
  std::string_view name = c->Name();
  shape.type = ElementTypeFromName(name);
  if (shape.type == ElementType::kInvalid) {
    c->Reset(p);
    return c->Fail("an element type (f32, s32, pred, ...)");
  }
  // XLA's lexer also takes a blank between the type and the dims
  // (`s32 [5696,10,4]`).
  if (c->Peek() != '[') return c->Fail("'[' after the element type");
  c->Consume('[');
  int64_t elements = 1;
  if (!c->Consume(']')) {
    while (true) {
      bool dynamic = false;
      int64_t d = 0;
      if (c->Consume('?')) {
        dynamic = true;
        d = kUnboundedDim;
      } else {
        dynamic = c->ConsumeString("<=");
        IXA_ASSIGN_OR_RETURN(d, c->ExpectInt("a dimension size"));
        if (d < 0) return c->Fail("a non-negative dimension size");
        // A static element count must fit in int64: every map over the
        // shape (linear indices, strides) is then free of overflow.
        int64_t next;
        if (__builtin_mul_overflow(elements, d, &next)) {
          return c->Fail("dimensions whose product fits in 64 bits");
        }
        elements = next;
      }
      if (dynamic) {
        if (shape.dims.size() >= 64) {
          return c->Fail("dynamic dimensions among the first 64");
        }
        shape.dynamic_mask |= uint64_t{1} << shape.dims.size();
      }
      shape.dims.push_back(d);
      if (c->Consume(']')) break;
      if (!c->Consume(',')) return c->Fail("',' or ']' in the dimensions");
    }
  }
  // The layout usually follows the dims directly; XLA's lexer also takes
  // `f32[2,3] {1,0}`. A '{' opens a layout only when a dimension number,
  // ':' or '}' follows: a computation body after a signature's return
  // shape (`-> f32[2]{` or `-> f32[2] {`) starts with a name.
  Position after_dims = c->raw_position();
  bool layout_follows = false;
  if (layout_after_blank ? c->Peek() == '{' : c->PeekRaw() == '{') {
    c->Consume('{');
    char next = c->Peek();
    layout_follows = std::isdigit(static_cast<unsigned char>(next)) ||
                     next == ':' || next == '}';
  }
  c->Reset(after_dims);
  if (layout_follows) {
    c->Consume('{');
    IXA_ASSIGN_OR_RETURN(Layout layout, ParseLayout(c, shape.rank()));
    shape.layout = std::move(layout);
  }
  return shape;
}

}  // namespace

Result<Shape> ParseShapeAt(Cursor* c, bool layout_after_blank) {
  return ParseShapeAtDepth(c, 0, layout_after_blank);
}

Result<Shape> ParseShape(std::string_view text) {
  Cursor c(text);
  IXA_ASSIGN_OR_RETURN(Shape shape, ParseShapeAt(&c));
  if (!c.AtEnd()) return c.Fail("end of the shape");
  return shape;
}

}  // namespace ixa::hlo
