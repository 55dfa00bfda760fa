#include "hw/linear_layout.h"

#include <algorithm>
#include <bit>
#include <set>

namespace ixa::hw {

namespace {

std::string LlNum(int64_t v) { return std::to_string(v); }

bool LlIsPow2(int64_t v) { return v >= 1 && (v & (v - 1)) == 0; }

int LlLog2(int64_t v) { return std::countr_zero(static_cast<uint64_t>(v)); }

// A checked power-of-two size: its log2, or an error naming `what`.
Result<int> LlSizeLog2(int64_t size, const std::string& what) {
  if (!LlIsPow2(size)) {
    return Error::Invalid(what + " has size " + LlNum(size) +
                          ", not a power of two");
  }
  int bits = LlLog2(size);
  if (bits > kMaxLinearLayoutBits) {
    return Error::Limit(what + " has more than 2^" +
                        LlNum(kMaxLinearLayoutBits) + " elements");
  }
  return bits;
}

Error LlUnknown(const char* kind, std::string_view name) {
  return Error::Invalid(std::string("no ") + kind + " dim named " +
                        QuoteForMessage(name));
}

template <class Dims>
int LlFind(const Dims& dims, std::string_view name) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// The layout as a matrix over GF(2): one column per input bit (input dims
// in order, low bit first), each the basis with its output dims packed
// into one word (the first output dim lowest).
struct LlMatrix {
  std::vector<uint64_t> columns;
  std::vector<int> out_shift;  // per output dim, its lowest bit
};

LlMatrix LlMatrixOf(const LinearLayout& l) {
  LlMatrix m;
  int shift = 0;
  for (const auto& o : l.outs()) {
    m.out_shift.push_back(shift);
    shift += LlLog2(o.size);
  }
  for (const auto& in : l.ins()) {
    for (const auto& basis : in.bases) {
      uint64_t c = 0;
      for (size_t k = 0; k < basis.size(); ++k)
        c |= static_cast<uint64_t>(basis[k]) << m.out_shift[k];
      m.columns.push_back(c);
    }
  }
  return m;
}

// An incremental basis of a column space: each reduced vector remembers
// which of the inserted columns it is the XOR of, so that a vector in the
// span is solved as a set of columns. Columns are inserted in order; one
// that reduces to zero is a free variable (not a pivot of the RREF whose
// pivots are the leftmost columns, as Triton's f2reduce computes).
class LlSolver {
 public:
  // Returns whether the column was independent of those before it.
  bool Insert(uint64_t column, int index) {
    uint64_t combo_lo = 0, combo_hi = 0;
    SetBit(index, &combo_lo, &combo_hi);
    for (const Row& r : rows_) {
      if (column & r.lead) {
        column ^= r.value;
        combo_lo ^= r.combo_lo;
        combo_hi ^= r.combo_hi;
      }
    }
    if (column == 0) return false;
    uint64_t lead = uint64_t{1} << (63 - std::countl_zero(column));
    rows_.push_back({column, lead, combo_lo, combo_hi});
    return true;
  }
  // The input bits (as a 128-bit set) whose columns XOR to v, or nullopt
  // when v is not in the span.
  std::optional<std::pair<uint64_t, uint64_t>> Solve(uint64_t v) const {
    uint64_t lo = 0, hi = 0;
    // Rows are kept in insertion order: reduce by every row whose leading
    // bit is still set (a row's lead is not set in later rows, which were
    // reduced by it).
    for (const Row& r : rows_) {
      if (v & r.lead) {
        v ^= r.value;
        lo ^= r.combo_lo;
        hi ^= r.combo_hi;
      }
    }
    if (v != 0) return std::nullopt;
    return std::make_pair(lo, hi);
  }
  int rank() const { return static_cast<int>(rows_.size()); }

 private:
  struct Row {
    uint64_t value, lead, combo_lo, combo_hi;
  };
  static void SetBit(int i, uint64_t* lo, uint64_t* hi) {
    if (i < 64) {
      *lo |= uint64_t{1} << i;
    } else {
      *hi |= uint64_t{1} << (i - 64);
    }
  }
  std::vector<Row> rows_;
};

}  // namespace

namespace {

using Dim = LinearLayout::Dim;
using InDim = LinearLayout::InDim;

std::vector<int64_t> LlUnpack(uint64_t word, const std::vector<Dim>& outs) {
  std::vector<int64_t> out;
  int shift = 0;
  for (const Dim& o : outs) {
    int bits = LlLog2(o.size);
    uint64_t mask = bits == 0 ? 0 : (~uint64_t{0} >> (64 - bits));
    out.push_back(static_cast<int64_t>((word >> shift) & mask));
    shift += bits;
  }
  return out;
}

Status LlCheckNames(const std::vector<std::string>& names, const char* kind) {
  std::set<std::string_view> seen;
  for (const std::string& n : names) {
    if (n.empty()) return Error::Invalid(std::string(kind) + " dim name empty");
    if (!seen.insert(n).second) {
      return Error::Invalid(std::string("duplicate ") + kind + " dim " +
                            QuoteForMessage(n));
    }
  }
  return {};
}

template <class Dims>
std::vector<std::string> LlNames(const Dims& dims) {
  std::vector<std::string> out;
  for (const auto& d : dims) out.push_back(d.name);
  return out;
}

// Every name of `want` names a dim of `have`, once.
template <class Dims>
Status LlCheckSubset(const std::vector<std::string>& want, const Dims& have,
                     const char* kind) {
  if (Status s = LlCheckNames(want, kind); !s.ok()) return s;
  for (const std::string& n : want) {
    if (LlFind(have, n) < 0) return LlUnknown(kind, n);
  }
  return {};
}

}  // namespace

// ------------------------------------------------------------ construction

Result<LinearLayout> LinearLayout::Create(
    std::vector<InDim> ins, const std::vector<std::string>& out_names) {
  std::vector<Dim> outs;
  for (const std::string& n : out_names) outs.push_back({n, 1});
  for (const InDim& in : ins) {
    for (const auto& basis : in.bases) {
      for (size_t k = 0; k < basis.size() && k < outs.size(); ++k) {
        if (basis[k] < 0 || basis[k] >= (int64_t{1} << kMaxLinearLayoutBits))
          continue;  // Create below names the bad value
        int64_t above = int64_t{1}
                        << (64 -
                            std::countl_zero(static_cast<uint64_t>(basis[k])));
        outs[k].size = std::max(outs[k].size, above);
      }
    }
  }
  return Create(std::move(ins), std::move(outs), true);
}

Result<LinearLayout> LinearLayout::Create(std::vector<InDim> ins,
                                          std::vector<Dim> outs,
                                          bool require_surjective) {
  if (Status s = LlCheckNames(LlNames(ins), "input"); !s.ok()) return s.error();
  if (Status s = LlCheckNames(LlNames(outs), "output"); !s.ok())
    return s.error();
  int out_bits = 0, in_bits = 0;
  for (const Dim& o : outs) {
    IXA_ASSIGN_OR_RETURN(
        int bits, LlSizeLog2(o.size, "output dim " + QuoteForMessage(o.name)));
    out_bits += bits;
  }
  if (out_bits > kMaxLinearLayoutBits)
    return Error::Limit("the output dims together exceed 2^" +
                        LlNum(kMaxLinearLayoutBits) + " elements");
  for (const InDim& in : ins) {
    in_bits += static_cast<int>(in.bases.size());
    for (size_t i = 0; i < in.bases.size(); ++i) {
      const auto& basis = in.bases[i];
      if (basis.size() != outs.size()) {
        return Error::Invalid("basis " + LlNum(i) + " of input dim " +
                              QuoteForMessage(in.name) + " has " +
                              LlNum(basis.size()) + " values, but there are " +
                              LlNum(outs.size()) + " output dims");
      }
      for (size_t k = 0; k < basis.size(); ++k) {
        if (basis[k] < 0 || basis[k] >= outs[k].size) {
          return Error::Invalid("basis " + LlNum(i) + " of input dim " +
                                QuoteForMessage(in.name) + " is " +
                                LlNum(basis[k]) + " in output dim " +
                                QuoteForMessage(outs[k].name) +
                                ", outside [0, " + LlNum(outs[k].size) + ")");
        }
      }
    }
  }
  if (in_bits > kMaxLinearLayoutBits)
    return Error::Limit("the input dims together exceed 2^" +
                        LlNum(kMaxLinearLayoutBits) + " elements");
  LinearLayout l;
  l.ins_ = std::move(ins);
  l.outs_ = std::move(outs);
  if (require_surjective && !l.IsSurjective()) {
    return Error::Invalid("the layout is not surjective (rank " +
                          LlNum(l.Rank()) + " over GF(2), " + LlNum(out_bits) +
                          " output bits): " + PrintLinearLayout(l));
  }
  return l;
}

Result<LinearLayout> LinearLayout::Identity1D(int64_t size, std::string in,
                                              std::string out) {
  return Strided1D(size, 1, std::move(in), std::move(out));
}

Result<LinearLayout> LinearLayout::Strided1D(int64_t size, int64_t stride,
                                             std::string in, std::string out) {
  if (size == 0) return Empty();
  IXA_ASSIGN_OR_RETURN(int bits, LlSizeLog2(size, "a 1-D layout"));
  IXA_ASSIGN_OR_RETURN(int stride_bits, LlSizeLog2(stride, "the stride"));
  if (bits + stride_bits > kMaxLinearLayoutBits)
    return Error::Limit("size * stride exceeds 2^" +
                        LlNum(kMaxLinearLayoutBits));
  InDim d{std::move(in), {}};
  for (int i = 0; i < bits; ++i) d.bases.push_back({stride << i});
  return Create({std::move(d)}, {{std::move(out), size * stride}}, stride == 1);
}

Result<LinearLayout> LinearLayout::Zeros1D(int64_t size, std::string in,
                                           std::string out, int64_t out_size) {
  if (size == 0) return Empty();
  IXA_ASSIGN_OR_RETURN(int bits, LlSizeLog2(size, "a 1-D layout"));
  InDim d{std::move(in), {}};
  for (int i = 0; i < bits; ++i) d.bases.push_back({0});
  return Create({std::move(d)}, {{std::move(out), out_size}}, out_size == 1);
}

// ----------------------------------------------------------------- queries

std::vector<std::string> LinearLayout::InDimNames() const {
  return LlNames(ins_);
}
std::vector<std::string> LinearLayout::OutDimNames() const {
  return LlNames(outs_);
}
bool LinearLayout::HasInDim(std::string_view name) const {
  return LlFind(ins_, name) >= 0;
}
bool LinearLayout::HasOutDim(std::string_view name) const {
  return LlFind(outs_, name) >= 0;
}

Result<int> LinearLayout::InDimSizeLog2(std::string_view name) const {
  int i = LlFind(ins_, name);
  if (i < 0) return LlUnknown("input", name);
  return static_cast<int>(ins_[i].bases.size());
}
Result<int64_t> LinearLayout::InDimSize(std::string_view name) const {
  IXA_ASSIGN_OR_RETURN(int bits, InDimSizeLog2(name));
  return int64_t{1} << bits;
}
Result<int> LinearLayout::OutDimSizeLog2(std::string_view name) const {
  int i = LlFind(outs_, name);
  if (i < 0) return LlUnknown("output", name);
  return LlLog2(outs_[i].size);
}
Result<int64_t> LinearLayout::OutDimSize(std::string_view name) const {
  int i = LlFind(outs_, name);
  if (i < 0) return LlUnknown("output", name);
  return outs_[i].size;
}
int LinearLayout::TotalInDimSizeLog2() const {
  int n = 0;
  for (const InDim& d : ins_) n += static_cast<int>(d.bases.size());
  return n;
}
int LinearLayout::TotalOutDimSizeLog2() const {
  int n = 0;
  for (const Dim& d : outs_) n += LlLog2(d.size);
  return n;
}

Result<int64_t> LinearLayout::Basis(std::string_view in, int bit,
                                    std::string_view out) const {
  int i = LlFind(ins_, in), o = LlFind(outs_, out);
  if (i < 0) return LlUnknown("input", in);
  if (o < 0) return LlUnknown("output", out);
  if (bit < 0 || bit >= static_cast<int>(ins_[i].bases.size())) {
    return Error::Invalid("input dim " + QuoteForMessage(in) + " has no bit " +
                          LlNum(bit));
  }
  return ins_[i].bases[bit][o];
}

int LinearLayout::Rank() const {
  LlSolver s;
  LlMatrix m = LlMatrixOf(*this);
  for (size_t c = 0; c < m.columns.size(); ++c)
    s.Insert(m.columns[c], static_cast<int>(c));
  return s.rank();
}

int64_t LinearLayout::NumConsecutiveInOut() const {
  if (ins_.empty() || outs_.empty()) return 1;
  // The leading bases of the first input dim that are 1, 2, 4, .. in the
  // first output dim and 0 elsewhere ...
  const auto& first = ins_[0].bases;
  int consecutive = 0;
  for (; consecutive < static_cast<int>(first.size()); ++consecutive) {
    const auto& b = first[consecutive];
    if (b[0] != (int64_t{1} << consecutive) ||
        !std::all_of(b.begin() + 1, b.end(), [](int64_t x) { return x == 0; }))
      break;
  }
  // ... as far as no other basis touches those bits of the first output.
  int64_t other = 0;
  for (size_t d = 0; d < ins_.size(); ++d) {
    for (size_t i = 0; i < ins_[d].bases.size(); ++i) {
      if (d != 0 || static_cast<int>(i) >= consecutive)
        other |= ins_[d].bases[i][0];
    }
  }
  int trailing = other != 0 ? std::countr_zero(static_cast<uint64_t>(other))
                            : kMaxLinearLayoutBits;
  return int64_t{1} << std::min(consecutive, trailing);
}

LinearLayout::DimValues LinearLayout::FreeVariableMasks() const {
  LlSolver s;
  LlMatrix m = LlMatrixOf(*this);
  DimValues out;
  int c = 0;
  for (const InDim& d : ins_) {
    int64_t mask = 0;
    for (size_t i = 0; i < d.bases.size(); ++i, ++c) {
      if (!s.Insert(m.columns[c], c)) mask |= int64_t{1} << i;
    }
    out.push_back({d.name, mask});
  }
  return out;
}

Result<LinearLayout::DimValues> LinearLayout::Apply(
    const DimValues& values) const {
  std::vector<std::string> names;
  for (const auto& [n, v] : values) names.push_back(n);
  if (Status s = LlCheckSubset(names, ins_, "input"); !s.ok()) return s.error();
  if (names.size() != ins_.size()) {
    for (const InDim& d : ins_) {
      if (std::find(names.begin(), names.end(), d.name) == names.end())
        return Error::Invalid("no value for input dim " +
                              QuoteForMessage(d.name));
    }
  }
  std::vector<int64_t> ordered(ins_.size(), 0);
  for (const auto& [n, v] : values) ordered[LlFind(ins_, n)] = v;
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> outs, ApplyOrdered(ordered));
  DimValues result;
  for (size_t k = 0; k < outs_.size(); ++k)
    result.push_back({outs_[k].name, outs[k]});
  return result;
}

Result<std::vector<int64_t>> LinearLayout::ApplyOrdered(
    const std::vector<int64_t>& values) const {
  if (values.size() != ins_.size()) {
    return Error::Invalid("the layout has " + LlNum(ins_.size()) +
                          " input dims, got " + LlNum(values.size()) +
                          " values");
  }
  std::vector<int64_t> out(outs_.size(), 0);
  for (size_t d = 0; d < ins_.size(); ++d) {
    const auto& bases = ins_[d].bases;
    int64_t v = values[d];
    if (v < 0 || v >= (int64_t{1} << bases.size())) {
      return Error::Invalid("value " + LlNum(v) + " of input dim " +
                            QuoteForMessage(ins_[d].name) + " is outside [0, " +
                            LlNum(int64_t{1} << bases.size()) + ")");
    }
    for (size_t i = 0; i < bases.size(); ++i) {
      if ((v >> i) & 1) {
        for (size_t k = 0; k < out.size(); ++k) out[k] ^= bases[i][k];
      }
    }
  }
  return out;
}

// ------------------------------------------------------------- composition

Result<LinearLayout> LinearLayout::Compose(const LinearLayout& outer) const {
  if (outs_.size() != outer.ins_.size()) {
    return Error::Invalid(
        "compose: the first layout's output dims must be the second's input "
        "dims");
  }
  for (const Dim& o : outs_) {
    int j = LlFind(outer.ins_, o.name);
    if (j < 0) {
      return Error::Invalid("compose: the second layout has no input dim " +
                            QuoteForMessage(o.name));
    }
    if (o.size > (int64_t{1} << outer.ins_[j].bases.size())) {
      return Error::Invalid("compose: output dim " + QuoteForMessage(o.name) +
                            " of size " + LlNum(o.size) +
                            " is larger than the second layout's input dim");
    }
  }
  std::vector<InDim> ins;
  for (const InDim& d : ins_) {
    InDim nd{d.name, {}};
    for (const auto& basis : d.bases) {
      DimValues point;
      for (size_t k = 0; k < outs_.size(); ++k)
        point.push_back({outs_[k].name, basis[k]});
      IXA_ASSIGN_OR_RETURN(DimValues image, outer.Apply(point));
      std::vector<int64_t> b;
      for (const auto& [n, v] : image) b.push_back(v);
      nd.bases.push_back(std::move(b));
    }
    ins.push_back(std::move(nd));
  }
  return Create(std::move(ins), outer.outs_, false);
}

Result<LinearLayout> LinearLayout::InvertAndCompose(
    const LinearLayout& outer) const {
  if (outs_.size() != outer.outs_.size()) {
    return Error::Invalid(
        "invert_and_compose: the two layouts must have the same output dims");
  }
  for (const Dim& o : outs_) {
    int j = LlFind(outer.outs_, o.name);
    if (j < 0) {
      return Error::Invalid(
          "invert_and_compose: the second layout has no output dim " +
          QuoteForMessage(o.name));
    }
    if (o.size > outer.outs_[j].size) {
      return Error::Invalid("invert_and_compose: output dim " +
                            QuoteForMessage(o.name) +
                            " is larger in the first layout than in the "
                            "second");
    }
  }
  LlMatrix om = LlMatrixOf(outer);
  LlSolver solver;
  for (size_t c = 0; c < om.columns.size(); ++c)
    solver.Insert(om.columns[c], static_cast<int>(c));
  std::vector<Dim> new_outs;
  for (const InDim& d : outer.ins_)
    new_outs.push_back({d.name, int64_t{1} << d.bases.size()});
  std::vector<InDim> ins;
  for (const InDim& d : ins_) {
    InDim nd{d.name, {}};
    for (const auto& basis : d.bases) {
      uint64_t word = 0;
      for (size_t k = 0; k < outs_.size(); ++k) {
        int j = LlFind(outer.outs_, outs_[k].name);
        word |= static_cast<uint64_t>(basis[k]) << om.out_shift[j];
      }
      auto x = solver.Solve(word);
      if (!x) {
        return Error::Invalid("invert_and_compose: a basis of input dim " +
                              QuoteForMessage(d.name) +
                              " is not in the image of the second layout");
      }
      std::vector<int64_t> b;
      int bit = 0;
      for (const InDim& od : outer.ins_) {
        int64_t v = 0;
        for (size_t i = 0; i < od.bases.size(); ++i, ++bit) {
          bool set =
              bit < 64 ? (x->first >> bit) & 1 : (x->second >> (bit - 64)) & 1;
          if (set) v |= int64_t{1} << i;
        }
        b.push_back(v);
      }
      nd.bases.push_back(std::move(b));
    }
    ins.push_back(std::move(nd));
  }
  return Create(std::move(ins), std::move(new_outs), false);
}

namespace {

// The identity on `l`'s output dims.
Result<LinearLayout> LlIdentityOnOuts(const LinearLayout& l) {
  LinearLayout id;
  for (const Dim& o : l.outs()) {
    IXA_ASSIGN_OR_RETURN(LinearLayout one,
                         LinearLayout::Identity1D(o.size, o.name, o.name));
    IXA_ASSIGN_OR_RETURN(id, Product(id, one));
  }
  // Size-1 output dims: identity1D(1) has the dim with no bases, so `id`
  // has every output dim, in order.
  return id;
}

}  // namespace

Result<LinearLayout> LinearLayout::PseudoInvert() const {
  if (!IsSurjective())
    return Error::Invalid("pseudo-inverse of a layout that is not surjective");
  IXA_ASSIGN_OR_RETURN(LinearLayout id, LlIdentityOnOuts(*this));
  return id.InvertAndCompose(*this);
}

Result<LinearLayout> LinearLayout::Invert() const {
  if (!IsInvertible()) {
    return Error::Invalid("the layout is not invertible (" +
                          LlNum(TotalInDimSizeLog2()) + " input bits, " +
                          LlNum(TotalOutDimSizeLog2()) + " output bits, rank " +
                          LlNum(Rank()) + ")");
  }
  return PseudoInvert();
}

// --------------------------------------------------------------- reshaping

Result<LinearLayout> LinearLayout::ReshapeIns(
    const std::vector<Dim>& dims) const {
  int total = 0;
  for (const Dim& d : dims) {
    IXA_ASSIGN_OR_RETURN(
        int bits, LlSizeLog2(d.size, "input dim " + QuoteForMessage(d.name)));
    total += bits;
  }
  if (total != TotalInDimSizeLog2()) {
    return Error::Invalid("reshape_ins: the new input dims hold 2^" +
                          LlNum(total) + " elements, the layout's 2^" +
                          LlNum(TotalInDimSizeLog2()));
  }
  std::vector<std::vector<int64_t>> flat;
  for (const InDim& d : ins_)
    flat.insert(flat.end(), d.bases.begin(), d.bases.end());
  std::vector<InDim> ins;
  size_t next = 0;
  for (const Dim& d : dims) {
    InDim nd{d.name, {}};
    for (int i = 0; i < LlLog2(d.size); ++i) nd.bases.push_back(flat[next++]);
    ins.push_back(std::move(nd));
  }
  return Create(std::move(ins), outs_, false);
}

Result<LinearLayout> LinearLayout::ReshapeOuts(
    const std::vector<Dim>& dims) const {
  int total = 0;
  for (const Dim& d : dims) {
    IXA_ASSIGN_OR_RETURN(
        int bits, LlSizeLog2(d.size, "output dim " + QuoteForMessage(d.name)));
    total += bits;
  }
  if (total != TotalOutDimSizeLog2()) {
    return Error::Invalid("reshape_outs: the new output dims hold 2^" +
                          LlNum(total) + " elements, the layout's 2^" +
                          LlNum(TotalOutDimSizeLog2()));
  }
  LlMatrix m = LlMatrixOf(*this);
  std::vector<InDim> ins;
  size_t c = 0;
  for (const InDim& d : ins_) {
    InDim nd{d.name, {}};
    for (size_t i = 0; i < d.bases.size(); ++i)
      nd.bases.push_back(LlUnpack(m.columns[c++], dims));
    ins.push_back(std::move(nd));
  }
  return Create(std::move(ins), dims, false);
}

LinearLayout LinearLayout::FlattenIns() const {
  if (ins_.empty()) return *this;
  auto r = ReshapeIns({{ins_[0].name, TotalInDimSize()}});
  IXA_CHECK(r.ok());
  return *r;
}

LinearLayout LinearLayout::FlattenOuts() const {
  if (outs_.empty()) return *this;
  auto r = ReshapeOuts({{outs_[0].name, TotalOutDimSize()}});
  IXA_CHECK(r.ok());
  return *r;
}

namespace {

// The positions of `order` in `dims`, which it must permute.
template <class Dims>
Result<std::vector<int>> LlPermutation(const std::vector<std::string>& order,
                                       const Dims& dims, const char* kind) {
  if (Status s = LlCheckSubset(order, dims, kind); !s.ok()) return s.error();
  if (order.size() != dims.size()) {
    return Error::Invalid(std::string("a transpose must name every ") + kind +
                          " dim once");
  }
  std::vector<int> perm;
  for (const std::string& n : order) perm.push_back(LlFind(dims, n));
  return perm;
}

}  // namespace

Result<LinearLayout> LinearLayout::TransposeIns(
    const std::vector<std::string>& order) const {
  IXA_ASSIGN_OR_RETURN(std::vector<int> perm,
                       LlPermutation(order, ins_, "input"));
  std::vector<InDim> ins;
  for (int p : perm) ins.push_back(ins_[p]);
  return Create(std::move(ins), outs_, false);
}

Result<LinearLayout> LinearLayout::TransposeOuts(
    const std::vector<std::string>& order) const {
  IXA_ASSIGN_OR_RETURN(std::vector<int> perm,
                       LlPermutation(order, outs_, "output"));
  std::vector<Dim> outs;
  for (int p : perm) outs.push_back(outs_[p]);
  std::vector<InDim> ins;
  for (const InDim& d : ins_) {
    InDim nd{d.name, {}};
    for (const auto& basis : d.bases) {
      std::vector<int64_t> b;
      for (int p : perm) b.push_back(basis[p]);
      nd.bases.push_back(std::move(b));
    }
    ins.push_back(std::move(nd));
  }
  return Create(std::move(ins), std::move(outs), false);
}

Result<LinearLayout> LinearLayout::Sublayout(
    const std::vector<std::string>& in_names,
    const std::vector<std::string>& out_names) const {
  if (Status s = LlCheckSubset(in_names, ins_, "input"); !s.ok())
    return s.error();
  if (Status s = LlCheckSubset(out_names, outs_, "output"); !s.ok())
    return s.error();
  auto wanted = [](const std::vector<std::string>& names,
                   const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  std::vector<int> keep;
  std::vector<Dim> outs;
  for (size_t k = 0; k < outs_.size(); ++k) {
    if (wanted(out_names, outs_[k].name)) {
      keep.push_back(static_cast<int>(k));
      outs.push_back(outs_[k]);
    }
  }
  std::vector<InDim> ins;
  for (const InDim& d : ins_) {
    if (!wanted(in_names, d.name)) continue;
    InDim nd{d.name, {}};
    for (const auto& basis : d.bases) {
      std::vector<int64_t> b;
      for (int k : keep) b.push_back(basis[k]);
      nd.bases.push_back(std::move(b));
    }
    ins.push_back(std::move(nd));
  }
  return Create(std::move(ins), std::move(outs), false);
}

Result<bool> LinearLayout::SublayoutIsZero(
    const std::vector<std::string>& in_names,
    const std::vector<std::string>& out_names) const {
  IXA_ASSIGN_OR_RETURN(LinearLayout sub, Sublayout(in_names, out_names));
  for (const InDim& d : sub.ins_) {
    for (const auto& basis : d.bases) {
      for (int64_t v : basis) {
        if (v != 0) return false;
      }
    }
  }
  return true;
}

Result<bool> LinearLayout::SublayoutIsIdentity(
    const std::vector<std::string>& in_names,
    const std::vector<std::string>& out_names) const {
  IXA_ASSIGN_OR_RETURN(LinearLayout sub, Sublayout(in_names, out_names));
  sub = sub.FlattenOuts().FlattenIns();
  if (sub.ins_.empty() || sub.outs_.empty()) return true;
  const auto& bases = sub.ins_[0].bases;
  for (size_t i = 0; i < bases.size(); ++i) {
    if (bases[i][0] != (int64_t{1} << i)) return false;
  }
  return true;
}

Result<LinearLayout> LinearLayout::ConcatIns(const LinearLayout& other) const {
  if (outs_ != other.outs_) {
    return Error::Invalid(
        "concat_ins: the layouts must have the same output dims and sizes");
  }
  std::vector<InDim> ins = ins_;
  ins.insert(ins.end(), other.ins_.begin(), other.ins_.end());
  return Create(std::move(ins), outs_, false);
}

Result<LinearLayout> LinearLayout::ConcatOuts(const LinearLayout& other) const {
  if (LlNames(ins_) != LlNames(other.ins_)) {
    return Error::Invalid(
        "concat_outs: the layouts must have the same input "
        "dims, in the same order");
  }
  std::vector<InDim> ins;
  for (size_t d = 0; d < ins_.size(); ++d) {
    if (ins_[d].bases.size() != other.ins_[d].bases.size()) {
      return Error::Invalid("concat_outs: input dim " +
                            QuoteForMessage(ins_[d].name) +
                            " has different sizes");
    }
    InDim nd{ins_[d].name, {}};
    for (size_t i = 0; i < ins_[d].bases.size(); ++i) {
      std::vector<int64_t> b = ins_[d].bases[i];
      b.insert(b.end(), other.ins_[d].bases[i].begin(),
               other.ins_[d].bases[i].end());
      nd.bases.push_back(std::move(b));
    }
    ins.push_back(std::move(nd));
  }
  std::vector<Dim> outs = outs_;
  outs.insert(outs.end(), other.outs_.begin(), other.outs_.end());
  return Create(std::move(ins), std::move(outs), false);
}

Result<LinearLayout> LinearLayout::ResizeInDim(std::string_view name,
                                               int64_t size) const {
  int i = LlFind(ins_, name);
  if (i < 0) return LlUnknown("input", name);
  IXA_ASSIGN_OR_RETURN(int bits,
                       LlSizeLog2(size, "input dim " + QuoteForMessage(name)));
  std::vector<InDim> ins = ins_;
  auto& bases = ins[i].bases;
  if (bits < static_cast<int>(bases.size())) {
    bases.resize(bits);
  } else {
    bases.resize(bits, std::vector<int64_t>(outs_.size(), 0));
  }
  return Create(std::move(ins), outs_, false);
}

Result<LinearLayout> LinearLayout::ResizeOutDim(std::string_view name,
                                                int64_t size) const {
  int k = LlFind(outs_, name);
  if (k < 0) return LlUnknown("output", name);
  std::vector<Dim> outs = outs_;
  outs[k].size = size;
  return Create(ins_, std::move(outs), false);
}

bool LinearLayout::IsTrivialOver(const std::vector<std::string>& dims) const {
  if (dims.empty()) return true;
  for (const std::string& n : dims) {
    if (!HasInDim(n) && !HasOutDim(n)) return false;
  }
  auto named = [&](const std::string& n) {
    return std::find(dims.begin(), dims.end(), n) != dims.end();
  };
  std::vector<std::string> in_dims, out_dims, rest_ins, rest_outs;
  for (const InDim& d : ins_)
    (named(d.name) ? in_dims : rest_ins).push_back(d.name);
  for (const Dim& d : outs_)
    (named(d.name) ? out_dims : rest_outs).push_back(d.name);
  // As a block matrix [[A, B], [C, D]] over (rest, dims): B and C zero, D
  // the identity.
  auto b_zero = SublayoutIsZero(rest_ins, out_dims);
  auto c_zero = SublayoutIsZero(in_dims, rest_outs);
  auto d_id = SublayoutIsIdentity(in_dims, out_dims);
  IXA_CHECK(b_zero.ok() && c_zero.ok() && d_id.ok());
  return *b_zero && *c_zero && *d_id;
}

std::optional<LinearLayout> LinearLayout::Quotient(
    const std::vector<std::string>& dims) const {
  if (!IsTrivialOver(dims)) return std::nullopt;
  auto named = [&](const std::string& n) {
    return std::find(dims.begin(), dims.end(), n) != dims.end();
  };
  std::vector<std::string> ins, outs;
  for (const InDim& d : ins_) {
    if (!named(d.name)) ins.push_back(d.name);
  }
  for (const Dim& d : outs_) {
    if (!named(d.name)) outs.push_back(d.name);
  }
  auto q = Sublayout(ins, outs);
  IXA_CHECK(q.ok());
  return *q;
}

Result<LinearLayout> LinearLayout::ApplyColumnAction(
    std::string_view in, const std::vector<int>& action) const {
  int i = LlFind(ins_, in);
  if (i < 0) return LlUnknown("input", in);
  const auto& bases = ins_[i].bases;
  std::vector<bool> used(bases.size(), false);
  std::vector<InDim> ins = ins_;
  ins[i].bases.clear();
  for (int a : action) {
    if (a < 0 || a >= static_cast<int>(bases.size()) || used[a]) {
      return Error::Invalid("column action: bit " + LlNum(a) +
                            " is not a bit of input dim " +
                            QuoteForMessage(in) + " or is named twice");
    }
    used[a] = true;
    ins[i].bases.push_back(bases[a]);
  }
  return Create(std::move(ins), outs_, false);
}

Result<LinearLayout> LinearLayout::RemoveZeroBasesAlongDim(
    std::string_view name) const {
  int i = LlFind(ins_, name);
  if (i < 0) return LlUnknown("input", name);
  std::vector<InDim> ins = ins_;
  auto& bases = ins[i].bases;
  bases.erase(std::remove_if(bases.begin(), bases.end(),
                             [](const std::vector<int64_t>& b) {
                               return std::all_of(
                                   b.begin(), b.end(),
                                   [](int64_t v) { return v == 0; });
                             }),
              bases.end());
  return Create(std::move(ins), outs_, false);
}

bool LinearLayout::EqualIgnoringOutDimSizes(const LinearLayout& o) const {
  return LlNames(outs_) == LlNames(o.outs_) && ins_ == o.ins_;
}

bool LinearLayout::operator==(const LinearLayout& o) const {
  return ins_ == o.ins_ && outs_ == o.outs_;
}

}  // namespace ixa::hw
