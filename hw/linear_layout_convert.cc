#include "hw/linear_layout_convert.h"

#include <bit>

#include "core/int_math.h"
#include "simplifier/simplify.h"

namespace ixa::hw {

namespace {

using LlcInDim = LinearLayout::InDim;
using LlcDim = LinearLayout::Dim;

bool LlcIsPow2(int64_t v) { return v >= 1 && (v & (v - 1)) == 0; }

// The smallest power of two above every value whose bits are in `used`.
int64_t LlcSizeAbove(uint64_t used) {
  return int64_t{1} << (64 - std::countl_zero(used));
}

// One bit of one input that a result adds, times `value` (a result is a sum
// of such atoms when it is a sum of bit fields).
struct LlcAtom {
  int var = 0, bit = 0;
  uint64_t value = 0;
};

// Reads e * coeff as a sum of bit fields of the variables (bits [lo, hi)
// of variable v, times coeff * 2^-lo per bit); false for anything else.
// `bits` is each variable's bit count (dims, then range variables).
bool LlcFields(Expr e, int64_t coeff, int num_dims,
               const std::vector<int>& bits, std::vector<LlcAtom>* out) {
  struct Field {
    int var = -1, lo = 0, hi = 0;
  };
  // A field expression: v, v floordiv 2^a, v mod 2^w, nested.
  auto field_of = [&](auto&& self, Expr x) -> std::optional<Field> {
    if (x.IsDim() || x.IsSymbol()) {
      int var = static_cast<int>(x.position()) + (x.IsDim() ? 0 : num_dims);
      if (var >= static_cast<int>(bits.size())) return std::nullopt;
      return Field{var, 0, bits[var]};
    }
    if ((x.kind() == ExprKind::kFloorDiv || x.kind() == ExprKind::kMod) &&
        x.rhs().IsConstant() && LlcIsPow2(x.rhs().constant())) {
      auto f = self(self, x.lhs());
      if (!f) return std::nullopt;
      int k = std::countr_zero(static_cast<uint64_t>(x.rhs().constant()));
      if (x.kind() == ExprKind::kFloorDiv) {
        f->lo = std::min(f->lo + k, f->hi);
      } else {
        f->hi = std::min(f->hi, f->lo + k);
      }
      return f;
    }
    return std::nullopt;
  };
  if (e.IsConstant()) return e.constant() == 0;
  if (e.kind() == ExprKind::kAdd) {
    return LlcFields(e.lhs(), coeff, num_dims, bits, out) &&
           LlcFields(e.rhs(), coeff, num_dims, bits, out);
  }
  if (e.kind() == ExprKind::kMul) {
    Expr c = e.rhs().IsConstant() ? e.rhs() : e.lhs();
    Expr x = e.rhs().IsConstant() ? e.lhs() : e.rhs();
    if (!c.IsConstant() || c.constant() < 0) return false;
    auto p = CheckedMul(coeff, c.constant());
    if (!p) return false;
    return LlcFields(x, *p, num_dims, bits, out);
  }
  auto f = field_of(field_of, e);
  if (!f) return false;
  for (int b = f->lo; b < f->hi; ++b) {
    int shift = b - f->lo;
    if (coeff != 0 &&
        std::countl_zero(static_cast<uint64_t>(coeff)) <= shift + 1)
      return false;  // the atom's value would pass 2^62
    out->push_back({f->var, b, static_cast<uint64_t>(coeff) << shift});
  }
  return true;
}

// The bases of result r if it is a sum of bit fields whose atoms never
// share an output bit (then the sum is their XOR); nullopt otherwise.
std::optional<std::vector<uint64_t>> LlcProveLinear(
    Expr e, int num_dims, const std::vector<int>& bits,
    const std::vector<int>& first_bit) {
  std::vector<LlcAtom> atoms;
  if (!LlcFields(e, 1, num_dims, bits, &atoms)) return std::nullopt;
  uint64_t used = 0;
  std::vector<uint64_t> column(first_bit.back(), 0);
  for (const LlcAtom& a : atoms) {
    if (used & a.value) return std::nullopt;
    used |= a.value;
    column[first_bit[a.var] + a.bit] |= a.value;
  }
  return column;
}

}  // namespace

Result<LinearLayout> LinearLayoutFromMap(
    const IndexingMap& map, const std::vector<std::string>& out_names) {
  if (map.IsKnownEmpty())
    return Error::Invalid("a KNOWN EMPTY map is not a linear layout");
  if (map.num_rt_vars() > 0)
    return Error::Unsupported(
        "a map with runtime variables is not a linear layout");
  if (!map.constraints().empty())
    return Error::Unsupported(
        "a map with constraints is not a linear layout (its domain is not a "
        "box of power-of-two sizes)");
  if (!out_names.empty() &&
      static_cast<int>(out_names.size()) != map.num_results()) {
    return Error::Invalid("the map has " + std::to_string(map.num_results()) +
                          " results, but " + std::to_string(out_names.size()) +
                          " output names were given");
  }
  const int nd = map.num_dims(), nv = nd + map.num_range_vars();
  std::vector<int> bits;
  std::vector<int> first_bit = {0};
  std::vector<std::string> names;
  for (int v = 0; v < nv; ++v) {
    const Variable& var = v < nd ? map.dims()[v] : map.range_vars()[v - nd];
    std::string name = v < nd ? map.DimName(v) : map.SymbolName(v - nd);
    const Interval& b = var.bounds;
    if (b.lower != 0 || b.upper == kInt64Max || !LlcIsPow2(b.upper + 1)) {
      return Error::Invalid("variable " + name + " ranges over [" +
                            std::to_string(b.lower) + ", " +
                            std::to_string(b.upper) +
                            "]: a linear layout needs [0, 2^k - 1]");
    }
    bits.push_back(std::countr_zero(static_cast<uint64_t>(b.upper + 1)));
    first_bit.push_back(first_bit.back() + bits.back());
    names.push_back(std::move(name));
  }
  const int total = first_bit.back();
  if (total > kMaxLinearLayoutBits)
    return Error::Limit("the map's domain exceeds 2^62 points");
  // The bases: the map at each input bit.
  auto at = [&](int var, int bit) -> Result<std::vector<int64_t>> {
    std::vector<int64_t> dims(nd, 0), syms(map.num_range_vars(), 0);
    if (var >= 0) (var < nd ? dims[var] : syms[var - nd]) = int64_t{1} << bit;
    return map.Evaluate(dims, syms);
  };
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> zero, at(-1, 0));
  for (int r = 0; r < map.num_results(); ++r) {
    if (zero[r] != 0) {
      return Error::Invalid("result " + std::to_string(r) + " is " +
                            std::to_string(zero[r]) +
                            " at the origin: a linear layout maps 0 to 0");
    }
  }
  std::vector<std::vector<uint64_t>> columns(
      total, std::vector<uint64_t>(map.num_results()));
  for (int v = 0; v < nv; ++v) {
    for (int i = 0; i < bits[v]; ++i) {
      IXA_ASSIGN_OR_RETURN(std::vector<int64_t> value, at(v, i));
      for (int r = 0; r < map.num_results(); ++r) {
        if (value[r] < 0) {
          return Error::Invalid("result " + std::to_string(r) +
                                " is negative at " + names[v] + " = " +
                                std::to_string(int64_t{1} << i));
        }
        columns[first_bit[v] + i][r] = static_cast<uint64_t>(value[r]);
      }
    }
  }
  // Linear: proved from the form of every result, else checked everywhere.
  bool proved = true;
  for (int r = 0; r < map.num_results() && proved; ++r) {
    auto col = LlcProveLinear(map.results()[r], nd, bits, first_bit);
    if (!col) {
      IndexingMap simplified = map;
      Simplify(&simplified);
      col = LlcProveLinear(simplified.results()[r], nd, bits, first_bit);
    }
    if (!col) {
      proved = false;
      break;
    }
    for (int c = 0; c < total; ++c) IXA_CHECK((*col)[c] == columns[c][r]);
  }
  if (!proved) {
    if (total > kMaxLinearCheckBits) {
      return Error::Unsupported(
          "cannot prove the map linear over GF(2): its results are not sums "
          "of non-overlapping bit fields, and its " +
          std::to_string(total) +
          " input bits are too many to check every "
          "point (at most " +
          std::to_string(kMaxLinearCheckBits) + ")");
    }
    // Gray-code order: each point differs from the last in one bit, so the
    // expected value is the last one XOR that bit's basis.
    std::vector<int64_t> dims(nd, 0), syms(map.num_range_vars(), 0);
    std::vector<uint64_t> expected(map.num_results(), 0);
    for (uint64_t step = 1; step < (uint64_t{1} << total); ++step) {
      int c = std::countr_zero(step);
      int v = 0;
      while (first_bit[v + 1] <= c) ++v;
      int i = c - first_bit[v];
      (v < nd ? dims[v] : syms[v - nd]) ^= int64_t{1} << i;
      for (int r = 0; r < map.num_results(); ++r) expected[r] ^= columns[c][r];
      IXA_ASSIGN_OR_RETURN(std::vector<int64_t> got, map.Evaluate(dims, syms));
      for (int r = 0; r < map.num_results(); ++r) {
        if (got[r] != static_cast<int64_t>(expected[r])) {
          std::string point;
          for (int k = 0; k < nv; ++k) {
            point += (k ? ", " : "") + names[k] + " = " +
                     std::to_string(k < nd ? dims[k] : syms[k - nd]);
          }
          return Error::Invalid("the map is not linear over GF(2): at " +
                                point + " result " + std::to_string(r) +
                                " is " + std::to_string(got[r]) +
                                ", but the XOR of its bits' images is " +
                                std::to_string(expected[r]));
        }
      }
    }
  }
  std::vector<LlcDim> outs;
  for (int r = 0; r < map.num_results(); ++r) {
    uint64_t used = 0;
    for (int c = 0; c < total; ++c) used |= columns[c][r];
    if ((used >> kMaxLinearLayoutBits) != 0)
      return Error::Limit("a result of the map reaches 2^62");
    outs.push_back(
        {out_names.empty() ? "dim" + std::to_string(r) : out_names[r],
         LlcSizeAbove(used)});
  }
  std::vector<LlcInDim> ins;
  for (int v = 0; v < nv; ++v) {
    LlcInDim d{names[v], {}};
    for (int i = 0; i < bits[v]; ++i) {
      std::vector<int64_t> basis;
      for (int r = 0; r < map.num_results(); ++r)
        basis.push_back(static_cast<int64_t>(columns[first_bit[v] + i][r]));
      d.bases.push_back(std::move(basis));
    }
    ins.push_back(std::move(d));
  }
  return LinearLayout::Create(std::move(ins), std::move(outs), false);
}

Result<IndexingMap> LinearLayoutToMap(const LinearLayout& l, ExprContext* ctx) {
  const auto& ins = l.ins();
  std::vector<Expr> results;
  for (size_t k = 0; k < l.outs().size(); ++k) {
    int out_bits = std::countr_zero(static_cast<uint64_t>(l.outs()[k].size));
    // The input bits (dim, bit) that reach output bit p.
    std::vector<std::vector<std::pair<int, int>>> sources(out_bits);
    for (size_t d = 0; d < ins.size(); ++d) {
      for (size_t i = 0; i < ins[d].bases.size(); ++i) {
        int64_t v = ins[d].bases[i][k];
        for (int p = 0; p < out_bits; ++p) {
          if ((v >> p) & 1) sources[p].push_back({int(d), int(i)});
        }
      }
    }
    auto bit_of = [&](int d, int i) {
      Expr x = ctx->Dim(d);
      return i == 0 ? x : x.FloorDiv(int64_t{1} << i);
    };
    Expr result = ctx->Constant(0);
    for (int p = 0; p < out_bits;) {
      if (sources[p].empty()) {
        ++p;
        continue;
      }
      if (sources[p].size() == 1) {
        // A run of output bits copying consecutive bits of one input.
        auto [d, i] = sources[p][0];
        int w = 1;
        while (p + w < out_bits && sources[p + w].size() == 1 &&
               sources[p + w][0] == std::make_pair(d, i + w))
          ++w;
        Expr field = bit_of(d, i);
        if (i + w < static_cast<int>(ins[d].bases.size()))
          field = field % (int64_t{1} << w);
        result = result + field * (int64_t{1} << p);
        p += w;
        continue;
      }
      // Several inputs reach bit p: their XOR is the parity of their sum.
      Expr sum = ctx->Constant(0);
      for (auto [d, i] : sources[p]) sum = sum + bit_of(d, i);
      result = result + (sum % 2) * (int64_t{1} << p);
      ++p;
    }
    results.push_back(result);
  }
  std::vector<int64_t> sizes;
  for (const auto& d : ins) sizes.push_back(int64_t{1} << d.bases.size());
  IndexingMap map = IndexingMap::FromTensorSizes(ctx, results, sizes, {});
  for (size_t d = 0; d < ins.size(); ++d) {
    if (!IsDefaultName(ins[d].name, "d", d))
      map.mutable_dims()[d].name = ins[d].name;
  }
  Simplify(&map);
  return map;
}

namespace {

struct LlcMode {
  int64_t shape, stride;
};

void LlcFlatten(const cute::IntTuple& shape, const cute::IntTuple& stride,
                std::vector<LlcMode>* out) {
  if (shape.leaf) {
    out->push_back({shape.value, stride.value});
    return;
  }
  for (size_t i = 0; i < shape.items.size(); ++i)
    LlcFlatten(shape.items[i], stride.items[i], out);
}

}  // namespace

Result<LinearLayout> SwizzleLinearLayout(const cute::Swizzle& swizzle,
                                         int bits) {
  IXA_RETURN_IF_ERROR(cute::ValidateSwizzle(swizzle));
  const int need = swizzle.b + swizzle.m + std::abs(swizzle.s);
  if (bits == 0) bits = need;
  if (bits < need || bits > kMaxLinearLayoutBits) {
    return Error::Invalid("Swizzle<" + std::to_string(swizzle.b) + "," +
                          std::to_string(swizzle.m) + "," +
                          std::to_string(swizzle.s) + "> needs between " +
                          std::to_string(need) + " and " +
                          std::to_string(kMaxLinearLayoutBits) +
                          " offset bits, got " + std::to_string(bits));
  }
  LlcInDim d{"offset", {}};
  for (int i = 0; i < bits; ++i)
    d.bases.push_back({cute::ApplySwizzle(swizzle, int64_t{1} << i)});
  return LinearLayout::Create({std::move(d)}, {{"offset", int64_t{1} << bits}},
                              true);
}

Result<IndexingMap> SwizzleMap(const cute::Swizzle& swizzle, int bits,
                               ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(LinearLayout check, SwizzleLinearLayout(swizzle, bits));
  const int64_t size = check.TotalInDimSize();
  cute::Layout line{cute::IntTuple::Leaf(size), cute::IntTuple::Leaf(1)};
  return cute::LayoutMap(line, swizzle, ctx);
}

Result<LinearLayout> LinearLayoutFromCute(
    const cute::Layout& layout, const std::optional<cute::Swizzle>& swizzle,
    bool by_mode) {
  IXA_RETURN_IF_ERROR(cute::CheckBounds(layout));
  std::vector<LlcInDim> ins;
  uint64_t used = 0;
  const int dims = by_mode ? layout.rank() : 1;
  for (int m = 0; m < dims; ++m) {
    cute::Layout part = by_mode ? layout.Mode(m) : layout;
    std::vector<LlcMode> modes;
    LlcFlatten(part.shape, part.stride, &modes);
    LlcInDim d{by_mode ? "mode" + std::to_string(m) : "index", {}};
    for (const LlcMode& mode : modes) {
      if (!LlcIsPow2(mode.shape)) {
        return Error::Invalid("mode of size " + std::to_string(mode.shape) +
                              " in " + cute::PrintLayout(layout) +
                              ": a linear layout needs power-of-two sizes");
      }
      if (mode.stride < 0) {
        return Error::Unsupported("negative stride in " +
                                  cute::PrintLayout(layout));
      }
      for (int64_t j = 1; j < mode.shape; j *= 2) {
        uint64_t v = static_cast<uint64_t>(mode.stride * j);
        if (used & v) {
          return Error::Invalid(
              cute::PrintLayout(layout) +
              " is not linear over GF(2): the images of its modes overlap "
              "(offset " +
              std::to_string(v) +
              " shares bits with another mode's, so + carries)");
        }
        used |= v;
        d.bases.push_back({static_cast<int64_t>(v)});
      }
    }
    ins.push_back(std::move(d));
  }
  if ((used >> kMaxLinearLayoutBits) != 0)
    return Error::Limit(cute::PrintLayout(layout) + " reaches offset 2^62");
  IXA_ASSIGN_OR_RETURN(
      LinearLayout l,
      LinearLayout::Create(std::move(ins), {{"offset", LlcSizeAbove(used)}},
                           false));
  if (!swizzle) return l;
  IXA_RETURN_IF_ERROR(cute::ValidateSwizzle(*swizzle));
  int bits = std::max(l.TotalOutDimSizeLog2(),
                      swizzle->b + swizzle->m + std::abs(swizzle->s));
  IXA_ASSIGN_OR_RETURN(LinearLayout sw, SwizzleLinearLayout(*swizzle, bits));
  IXA_ASSIGN_OR_RETURN(l, l.ResizeOutDim("offset", int64_t{1} << bits));
  return l.Compose(sw);
}

Result<cute::Layout> LinearLayoutToCute(const LinearLayout& l) {
  if (l.NumOutDims() != 1) {
    return Error::Invalid(
        "a CuTe layout has one output (the offset); this "
        "layout has " +
        std::to_string(l.NumOutDims()));
  }
  uint64_t used = 0;
  std::vector<cute::Layout> modes;
  for (const auto& d : l.ins()) {
    std::vector<cute::IntTuple> shape, stride;
    for (const auto& basis : d.bases) {
      uint64_t v = static_cast<uint64_t>(basis[0]);
      if (v != 0 && ((v & (v - 1)) != 0 || (used & v))) {
        return Error::Invalid(
            "input dim " + QuoteForMessage(d.name) + " has basis " +
            std::to_string(v) +
            (used & v ? ", which another basis shares"
                      : ", not a power of two") +
            ": the layout XORs bits (a swizzle), which a CuTe layout cannot "
            "express");
      }
      used |= v;
      shape.push_back(cute::IntTuple::Leaf(2));
      stride.push_back(cute::IntTuple::Leaf(static_cast<int64_t>(v)));
    }
    cute::Layout mode =
        shape.empty()
            ? cute::Layout{cute::IntTuple::Leaf(1), cute::IntTuple::Leaf(0)}
            : cute::Layout{cute::IntTuple::Tuple(shape),
                           cute::IntTuple::Tuple(stride)};
    modes.push_back(cute::Coalesce(mode));
  }
  if (modes.size() == 1) return modes[0];
  std::vector<cute::IntTuple> shape, stride;
  for (const cute::Layout& m : modes) {
    shape.push_back(m.shape);
    stride.push_back(m.stride);
  }
  if (modes.empty())
    return cute::Layout{cute::IntTuple::Leaf(1), cute::IntTuple::Leaf(0)};
  return cute::Layout{cute::IntTuple::Tuple(shape),
                      cute::IntTuple::Tuple(stride)};
}

}  // namespace ixa::hw
