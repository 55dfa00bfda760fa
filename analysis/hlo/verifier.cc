#include "analysis/hlo/verifier.h"

#include <algorithm>
#include <set>

#include "analysis/hlo/physical_layout.h"
#include "hw/xla_layout.h"

namespace ixa::hlo {
namespace {

std::string Str(const Shape& s) { return s.ToString(); }

// A shape or attribute mismatch: the reader adds the position.
Status Bad(std::string message) { return Error::Invalid(std::move(message)); }

std::string Dims(const std::vector<int64_t>& v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i) {
    out += (i ? "," : "") + std::to_string(v[i]);
  }
  return out + "}";
}

// Each value in [0, n) and no repeats.
bool DistinctIn(const std::vector<int64_t>& v, int64_t n) {
  std::set<int64_t> seen;
  for (int64_t x : v) {
    if (x < 0 || x >= n || !seen.insert(x).second) return false;
  }
  return true;
}

Status Mismatch(const Instruction& in, const Shape& want) {
  return Bad("shape mismatch: '" + in.name + "' (" + OpcodeName(in) + ") is " +
             Str(in.shape) + " but its operands give " + Str(want));
}

Status NeedOperands(const Instruction& in, int n) {
  if (in.operand_count() == n) return Status();
  return Bad("'" + in.name + "' (" + OpcodeName(in) + ") takes " +
             std::to_string(n) + " operands, got " +
             std::to_string(in.operand_count()));
}

Status AllArrays(const Instruction& in) {
  if (!in.shape.IsArray()) {
    return Bad("'" + in.name + "' (" + OpcodeName(in) +
               ") must have an array shape");
  }
  for (const Instruction* o : in.operands) {
    if (!o->shape.IsArray()) {
      return Bad("operand '" + o->name + "' of '" + in.name +
                 "' must be an array, not " + Str(o->shape));
    }
  }
  return Status();
}

// Output size of a window along one dimension (XLA's WindowedOutputSize);
// -1 when the arithmetic overflows.
int64_t CheckedWindowedSize(int64_t n, const WindowDim& w) {
  int64_t dilated = 0, padded, window;
  if (n > 0 && (__builtin_mul_overflow(n - 1, w.base_dilation, &dilated) ||
                __builtin_add_overflow(dilated, 1, &dilated))) {
    return -1;
  }
  if (__builtin_add_overflow(dilated, w.pad_low, &padded) ||
      __builtin_add_overflow(padded, w.pad_high, &padded) ||
      __builtin_mul_overflow(w.size - 1, w.window_dilation, &window) ||
      __builtin_add_overflow(window, 1, &window)) {
    return -1;
  }
  if (padded < window) return 0;
  return (padded - window) / w.stride + 1;
}

bool Tiled(const Shape& s) {
  return s.layout &&
         (!s.layout->tiles.empty() || s.layout->element_size_bits != 0);
}

// Bytes of a shape's buffer under its (tiled) layout; nullopt when hw
// cannot lay it out.
std::optional<int64_t> PhysicalBytes(const Shape& s) {
  ExprContext ctx;
  auto info = hw::AnalyzeTiledLayout(ToXlaShape(s), &ctx);
  if (!info.ok()) return std::nullopt;
  return info->bytes;
}

bool AnyUnbounded(const Instruction& in) {
  if (in.shape.HasUnboundedDim()) return true;
  for (const Instruction* o : in.operands) {
    if (o->shape.HasUnboundedDim()) return true;
  }
  return false;
}

// Sizes that may be `?`: a `?` matches any size.
bool SameDim(int64_t a, int64_t b) {
  return a == b || a == kUnboundedDim || b == kUnboundedDim;
}
bool SameDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameDim(a[i], b[i])) return false;
  }
  return true;
}

// The ops whose indexing takes `?` dims (indexing.cc HandlesUnboundedDims)
// and whose checks in VerifyArrayOp are equalities and upper bounds, which
// hold or fail with `?` too (SameDim): their attributes must fit the ranks
// whatever the sizes, or the indexing reads past them. Concatenate's ranks
// are checked too (its `?` sums are not): the emitters index every operand
// along the concatenated dim.
bool ChecksUnboundedDims(Opcode op) {
  return (IsElementwiseOpcode(op) && op != Opcode::kBitcastConvert) ||
         op == Opcode::kBroadcast || op == Opcode::kTranspose ||
         op == Opcode::kReverse || op == Opcode::kSlice ||
         op == Opcode::kDynamicSlice || op == Opcode::kDot ||
         op == Opcode::kConcatenate;
}

// bitcast-convert between element types of different widths: the narrower
// side has one more (minor) dim, of size wide bits / narrow bits.
Status VerifyBitcastConvert(const Instruction& in) {
  IXA_RETURN_IF_ERROR(NeedOperands(in, 1));
  const Shape& src = in.operand(0)->shape;
  const Shape& out = in.shape;
  int in_bits = ElementBits(src.type), out_bits = ElementBits(out.type);
  // XLA's shape inference refuses it: a complex value's halves have no
  // place in the bit order the other types define.
  auto complex = [](ElementType t) {
    return t == ElementType::kC64 || t == ElementType::kC128;
  };
  if (complex(src.type) != complex(out.type)) {
    return Bad("bitcast-convert between a complex and a real type (" +
               Str(src) + " to " + Str(out) + ")");
  }
  auto bad = [&]() -> Status {
    return Bad("shape mismatch: bitcast-convert of " + Str(src) + " to " +
               Str(out) + ": the " + std::to_string(in_bits) + "-bit and " +
               std::to_string(out_bits) +
               "-bit sides must have the same dims, the narrower one with one "
               "more minor dim of the width ratio");
  };
  if (in_bits == out_bits) {
    return src.dims == out.dims ? Status() : bad();
  }
  const Shape& wide = in_bits > out_bits ? src : out;
  const Shape& narrow = in_bits > out_bits ? out : src;
  int wb = std::max(in_bits, out_bits), nb = std::min(in_bits, out_bits);
  if (nb == 0 || wb % nb != 0 || narrow.rank() != wide.rank() + 1 ||
      narrow.dims.back() != wb / nb ||
      !std::equal(wide.dims.begin(), wide.dims.end(), narrow.dims.begin())) {
    return bad();
  }
  return Status();
}

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Gather: the dimension numbers fit the shapes and give the output shape
// (XLA's shape inference for gather).
Status VerifyGather(const Instruction& in) {
  IXA_RETURN_IF_ERROR(NeedOperands(in, 2));
  const GatherDimensionNumbers& g = in.gather;
  const Shape &operand = in.operand(0)->shape, &indices = in.operand(1)->shape;
  const int64_t r_op = operand.rank(), r_ind = indices.rank();
  const int64_t ivd = g.index_vector_dim;
  auto bad = [&](const std::string& what) -> Status {
    return Bad("gather '" + in.name + "': " + what);
  };
  if (in.slice_sizes.size() != static_cast<size_t>(r_op)) {
    return bad("slice_sizes needs one size per operand dimension");
  }
  for (int64_t i = 0; i < r_op; ++i) {
    if (in.slice_sizes[i] < 0 || in.slice_sizes[i] > operand.dims[i]) {
      return bad("slice_sizes larger than the operand");
    }
  }
  if (ivd < 0 || ivd > r_ind) return bad("index_vector_dim out of range");
  const int64_t k = ivd == r_ind ? 1 : indices.dims[ivd];
  if (static_cast<int64_t>(g.start_index_map.size()) != k ||
      !DistinctIn(g.start_index_map, r_op) ||
      !DistinctIn(g.collapsed_slice_dims, r_op) ||
      !DistinctIn(g.operand_batching_dims, r_op) ||
      g.operand_batching_dims.size() != g.start_indices_batching_dims.size() ||
      !DistinctIn(g.start_indices_batching_dims, r_ind)) {
    return bad(
        "start_index_map, collapsed_slice_dims or batching dims do not fit "
        "the operand and indices");
  }
  for (int64_t d : g.start_indices_batching_dims) {
    if (d == ivd) return bad("a batching dim is the index vector dim");
  }
  std::vector<int64_t> window;
  for (int64_t i = 0; i < r_op; ++i) {
    bool collapsed = Has(g.collapsed_slice_dims, i);
    bool batching = Has(g.operand_batching_dims, i);
    if (collapsed && batching) return bad("a dim is collapsed and batching");
    if ((collapsed || batching) && in.slice_sizes[i] != 1) {
      return bad("collapsed and batching dims need slice size 1");
    }
    if (!collapsed && !batching) window.push_back(in.slice_sizes[i]);
  }
  const int64_t batch_rank = r_ind - (ivd < r_ind ? 1 : 0);
  if (!DistinctIn(g.offset_dims, in.shape.rank()) ||
      g.offset_dims.size() != window.size() ||
      in.shape.rank() != batch_rank + static_cast<int64_t>(window.size())) {
    return bad("offset_dims do not fit the output rank");
  }
  std::vector<int64_t> want;
  size_t w = 0, b = 0;
  std::vector<int64_t> batch;
  for (int64_t i = 0; i < r_ind; ++i) {
    if (i != ivd) batch.push_back(indices.dims[i]);
  }
  for (int64_t i = 0; i < in.shape.rank(); ++i) {
    want.push_back(Has(g.offset_dims, i) ? window[w++] : batch[b++]);
  }
  if (want != in.shape.dims)
    return Mismatch(in, Shape::Array(in.shape.type, want));
  return Status();
}

// Scatter: operands, indices, updates; the dimension numbers fit.
Status VerifyScatter(const Instruction& in) {
  const int n = in.operand_count();
  auto bad = [&](const std::string& what) -> Status {
    return Bad("scatter '" + in.name + "': " + what);
  };
  if (n < 3 || n % 2 == 0) return bad("takes operands, indices, then updates");
  const int k = (n - 1) / 2;
  const ScatterDimensionNumbers s = in.ScatterDims();
  const Shape& operand = in.operand(0)->shape;
  const Shape& indices = in.operand(k)->shape;
  const Shape& updates = in.operand(k + 1)->shape;
  for (int i = 0; i < n; ++i) {
    if (!in.operand(i)->shape.IsArray()) return bad("operands must be arrays");
  }
  for (int i = 1; i < k; ++i) {
    if (in.operand(i)->shape.dims != operand.dims) {
      return bad("the operands differ in dimensions");
    }
  }
  for (int i = k + 2; i < n; ++i) {
    if (in.operand(i)->shape.dims != updates.dims) {
      return bad("the updates differ in dimensions");
    }
  }
  const int64_t r_op = operand.rank(), r_ind = indices.rank();
  const int64_t ivd = s.index_vector_dim;
  if (ivd < 0 || ivd > r_ind) return bad("index_vector_dim out of range");
  const int64_t vec = ivd == r_ind ? 1 : indices.dims[ivd];
  if (!DistinctIn(s.update_window_dims, updates.rank()) ||
      !DistinctIn(s.inserted_window_dims, r_op) ||
      !DistinctIn(s.input_batching_dims, r_op) ||
      !DistinctIn(s.scatter_dims_to_operand_dims, r_op) ||
      static_cast<int64_t>(s.scatter_dims_to_operand_dims.size()) != vec ||
      s.input_batching_dims.size() != s.scatter_indices_batching_dims.size() ||
      !DistinctIn(s.scatter_indices_batching_dims, r_ind)) {
    return bad("the dimension numbers do not fit the shapes");
  }
  std::vector<int64_t> window;
  for (int64_t i = 0; i < r_op; ++i) {
    if (!Has(s.inserted_window_dims, i) && !Has(s.input_batching_dims, i)) {
      window.push_back(i);
    }
  }
  const int64_t batch_rank = r_ind - (ivd < r_ind ? 1 : 0);
  if (window.size() != s.update_window_dims.size() ||
      updates.rank() !=
          batch_rank + static_cast<int64_t>(s.update_window_dims.size())) {
    return bad("update_window_dims do not fit the operand and updates");
  }
  for (size_t w = 0; w < window.size(); ++w) {
    if (updates.dims[s.update_window_dims[w]] > operand.dims[window[w]]) {
      return bad("an update window is larger than the operand");
    }
  }
  std::vector<int64_t> scatter_sizes, batch_sizes;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (!Has(s.update_window_dims, i)) scatter_sizes.push_back(updates.dims[i]);
  }
  for (int64_t i = 0; i < r_ind; ++i) {
    if (i != ivd) batch_sizes.push_back(indices.dims[i]);
  }
  if (scatter_sizes != batch_sizes) {
    return bad("the updates' scatter dims differ from the indices' dims");
  }
  std::vector<Shape> outs;
  for (int i = 0; i < k; ++i) outs.push_back(in.operand(i)->shape);
  bool ok = k == 1 ? in.shape.Compatible(operand)
                   : in.shape.IsTuple() &&
                         static_cast<int>(in.shape.tuple_elements.size()) == k;
  for (int i = 0; ok && k > 1 && i < k; ++i) {
    ok = in.shape.tuple_elements[i].Compatible(outs[i]);
  }
  if (!ok) return Mismatch(in, k == 1 ? operand : in.shape);
  return Status();
}

// Sort: every operand has the same dims; the output is the operands.
Status VerifySort(const Instruction& in) {
  if (in.operands.empty()) return Bad("sort needs an operand");
  const Shape& first = in.operand(0)->shape;
  if (in.dimensions.size() != 1 || in.dimensions[0] < 0 ||
      in.dimensions[0] >= std::max(first.rank(), 1)) {
    return Bad("sort needs dimensions={d} within the operands' rank");
  }
  for (const Instruction* o : in.operands) {
    if (!o->shape.IsArray() || o->shape.dims != first.dims) {
      return Bad("sort '" + in.name + "': the operands differ in dimensions");
    }
  }
  const int k = in.operand_count();
  bool ok = k == 1 ? in.shape.IsArray() && in.shape.dims == first.dims
                   : in.shape.IsTuple() &&
                         static_cast<int>(in.shape.tuple_elements.size()) == k;
  for (int i = 0; ok && k > 1 && i < k; ++i) {
    ok = in.shape.tuple_elements[i].dims == first.dims;
  }
  if (!ok) return Mismatch(in, first);
  return Status();
}

const std::vector<int64_t>& OperandDims(const Instruction& in, int i) {
  return in.operand(i)->shape.dims;
}

// broadcast: `dimensions` maps each operand dimension to an output
// dimension of the same size.
Status VerifyBroadcast(const Instruction& in) {
  const Shape& out = in.shape;
  IXA_RETURN_IF_ERROR(NeedOperands(in, 1));
  const auto& d = in.dimensions;
  if (d.size() != OperandDims(in, 0).size() || !DistinctIn(d, out.rank())) {
    return Bad("broadcast dimensions=" + Dims(d) + " do not fit " +
               Str(in.operand(0)->shape) + " -> " + Str(out));
  }
  for (size_t i = 0; i < d.size(); ++i) {
    if (!SameDim(out.dims[d[i]], OperandDims(in, 0)[i])) {
      return Bad(
          "shape mismatch: broadcast '" + in.name + "' of '" +
          in.operand(0)->name + "', which is " + Str(in.operand(0)->shape) +
          ", cannot give " + Str(out) + " with dimensions=" + Dims(d) +
          ": operand dimension " + std::to_string(i) + " is " +
          std::to_string(OperandDims(in, 0)[i]) + " but output dimension " +
          std::to_string(d[i]) + " is " + std::to_string(out.dims[d[i]]));
    }
  }
  return Status();
}

// transpose: `dimensions` is a permutation; the output permutes the
// operand's dimensions.
Status VerifyTranspose(const Instruction& in) {
  const Shape& out = in.shape;
  IXA_RETURN_IF_ERROR(NeedOperands(in, 1));
  const auto& p = in.dimensions;
  if (static_cast<int>(p.size()) != out.rank() || !DistinctIn(p, out.rank()) ||
      OperandDims(in, 0).size() != p.size()) {
    return Bad("transpose dimensions=" + Dims(p) + " is not a permutation of " +
               std::to_string(out.rank()) + " dimensions");
  }
  Shape want = out;
  for (size_t i = 0; i < p.size(); ++i) want.dims[i] = OperandDims(in, 0)[p[i]];
  for (size_t i = 0; i < p.size(); ++i) {
    if (!SameDim(out.dims[i], want.dims[i])) return Mismatch(in, want);
  }
  return Status();
}

// slice: one in-range [start:limit:stride] per dimension; the output
// has the dims they give.
Status VerifySlice(const Instruction& in) {
  const Shape& out = in.shape;
  IXA_RETURN_IF_ERROR(NeedOperands(in, 1));
  const auto& src = OperandDims(in, 0);
  if (in.slice.size() != src.size() || out.dims.size() != src.size()) {
    return Bad("slice needs one [start:limit:stride] per dimension of " +
               Str(in.operand(0)->shape));
  }
  Shape want = out;  // the slice's own shape, with the dims it gives
  bool same = true;
  for (size_t i = 0; i < src.size(); ++i) {
    const SliceDim& s = in.slice[i];
    if (s.start < 0 || s.limit < s.start || s.limit > src[i] || s.stride <= 0) {
      return Bad("slice [" + std::to_string(s.start) + ":" +
                 std::to_string(s.limit) + ":" + std::to_string(s.stride) +
                 "] out of range for dimension " + std::to_string(i));
    }
    want.dims[i] =
        s.limit == s.start ? 0 : (s.limit - s.start - 1) / s.stride + 1;
    same &= SameDim(out.dims[i], want.dims[i]);
  }
  return same ? Status() : Mismatch(in, want);
}

// concatenate: the operands agree but along `dimensions`={d}, whose
// sizes add up to the output's.
Status VerifyConcatenate(const Instruction& in) {
  const Shape& out = in.shape;
  if (in.dimensions.size() != 1 || in.operands.empty()) {
    return Bad("concatenate needs dimensions={d} and at least one operand");
  }
  int64_t d = in.dimensions[0];
  if (d < 0 || d >= out.rank())
    return Bad("concatenate dimension out of range");
  int64_t total = 0;
  bool unbounded_total = out.dims[d] == kUnboundedDim;
  for (const Instruction* o : in.operands) {
    if (o->shape.rank() != out.rank()) return Mismatch(in, o->shape);
    for (int i = 0; i < out.rank(); ++i) {
      if (i != d && !SameDim(o->shape.dims[i], out.dims[i])) {
        return Mismatch(in, o->shape);
      }
    }
    unbounded_total |= o->shape.dims[d] == kUnboundedDim;
    if (!unbounded_total &&
        __builtin_add_overflow(total, o->shape.dims[d], &total)) {
      return Mismatch(in, o->shape);
    }
  }
  if (!unbounded_total && total != out.dims[d]) {
    Shape want = out;
    want.dims[d] = total;
    return Mismatch(in, want);
  }
  return Status();
}

// pad: a scalar value and one low_high_interior per dimension; the
// output has the padded dims (no int64 overflow).
Status VerifyPad(const Instruction& in) {
  const Shape& out = in.shape;
  IXA_RETURN_IF_ERROR(NeedOperands(in, 2));
  const auto& src = OperandDims(in, 0);
  if (!in.operand(1)->shape.IsScalar())
    return Bad("pad value must be a scalar");
  if (in.padding.size() != src.size() || out.dims.size() != src.size()) {
    return Bad("padding needs low_high_interior for each of the " +
               std::to_string(src.size()) + " dimensions");
  }
  Shape want = out;
  for (size_t i = 0; i < src.size(); ++i) {
    const PadDim& p = in.padding[i];
    int64_t interior = 0, n;
    if ((src[i] > 0 &&
         __builtin_mul_overflow(src[i] - 1, p.interior, &interior)) ||
        __builtin_add_overflow(src[i], interior, &n) ||
        __builtin_add_overflow(n, p.low, &n) ||
        __builtin_add_overflow(n, p.high, &n)) {
      return Bad("pad of " + Str(in.operand(0)->shape) + " overflows int64");
    }
    want.dims[i] = n;
  }
  return want.dims == out.dims ? Status() : Mismatch(in, want);
}

// dynamic-slice: scalar offsets (or one vector of them) and
// dynamic_slice_sizes within the operand, which the output has.
Status VerifyDynamicSlice(const Instruction& in) {
  const Shape& out = in.shape;
  const auto& src = OperandDims(in, 0);
  if (OffsetVectorOperand(in) < 0 &&
      in.operand_count() != static_cast<int>(src.size()) + 1) {
    return Bad(
        "dynamic-slice takes the operand and one scalar offset per "
        "dimension (or one vector of them)");
  }
  for (int i = 1; i < in.operand_count() && OffsetVectorOperand(in) < 0; ++i) {
    if (!in.operand(i)->shape.IsScalar()) return Bad("offsets must be scalars");
  }
  if (in.dynamic_slice_sizes.size() != src.size()) {
    return Bad("dynamic_slice_sizes needs one size per dimension");
  }
  for (size_t i = 0; i < src.size(); ++i) {
    if (in.dynamic_slice_sizes[i] < 0 || in.dynamic_slice_sizes[i] > src[i]) {
      return Bad("dynamic_slice_sizes larger than the operand");
    }
  }
  if (!SameDims(out.dims, in.dynamic_slice_sizes)) {
    return Mismatch(in, Shape::Array(out.type, in.dynamic_slice_sizes));
  }
  return Status();
}

// dynamic-update-slice: an update no larger than the operand, scalar
// offsets (or one vector of them); the output is the operand's shape.
Status VerifyDynamicUpdateSlice(const Instruction& in) {
  const Shape& out = in.shape;
  const auto& src = OperandDims(in, 0);
  if (OffsetVectorOperand(in) < 0 &&
      in.operand_count() != static_cast<int>(src.size()) + 2) {
    return Bad(
        "dynamic-update-slice takes operand, update and one scalar "
        "offset per dimension (or one vector of them)");
  }
  const auto& upd = OperandDims(in, 1);
  if (upd.size() != src.size()) return Mismatch(in, in.operand(1)->shape);
  for (size_t i = 0; i < src.size(); ++i) {
    if (upd[i] > src[i]) return Bad("update larger than the operand");
  }
  for (int i = 2; i < in.operand_count() && OffsetVectorOperand(in) < 0; ++i) {
    if (!in.operand(i)->shape.IsScalar()) return Bad("offsets must be scalars");
  }
  if (out.dims != src) return Mismatch(in, in.operand(0)->shape);
  return Status();
}

// A dense dot: the dimension numbers fit the operands, batch and
// contracting sizes agree; the output is batch, lhs free, rhs free.
Status VerifyDot(const Instruction& in) {
  const Shape& out = in.shape;
  IXA_RETURN_IF_ERROR(NeedOperands(in, 2));
  const auto &l = OperandDims(in, 0), &r = OperandDims(in, 1);
  const DotDimensionNumbers& dn = in.dot;
  std::vector<int64_t> lb = dn.lhs_batch, lc = dn.lhs_contracting;
  lb.insert(lb.end(), lc.begin(), lc.end());
  std::vector<int64_t> rb = dn.rhs_batch, rc = dn.rhs_contracting;
  rb.insert(rb.end(), rc.begin(), rc.end());
  if (dn.lhs_batch.size() != dn.rhs_batch.size() || lc.size() != rc.size() ||
      !DistinctIn(lb, l.size()) || !DistinctIn(rb, r.size())) {
    return Bad("dot dimension numbers do not fit the operands");
  }
  std::vector<int64_t> want;
  for (size_t i = 0; i < dn.lhs_batch.size(); ++i) {
    if (!SameDim(l[dn.lhs_batch[i]], r[dn.rhs_batch[i]])) {
      return Bad("dot batch dimensions differ in size");
    }
    want.push_back(l[dn.lhs_batch[i]]);
  }
  for (size_t i = 0; i < lc.size(); ++i) {
    if (!SameDim(l[lc[i]], r[rc[i]])) {
      return Bad("dot contracting dimensions differ");
    }
  }
  for (size_t i = 0; i < l.size(); ++i) {
    if (std::find(lb.begin(), lb.end(), i) == lb.end()) want.push_back(l[i]);
  }
  for (size_t i = 0; i < r.size(); ++i) {
    if (std::find(rb.begin(), rb.end(), i) == rb.end()) want.push_back(r[i]);
  }
  if (!SameDims(want, out.dims)) {
    return Mismatch(in, Shape::Array(out.type, want));
  }
  return Status();
}

Status VerifyArrayOp(const Instruction& in) {
  // `?` dims carry no size to check sums and products against.
  if (AnyUnbounded(in) && !ChecksUnboundedDims(in.opcode)) return Status();
  const Opcode op = in.opcode;
  const Shape& out = in.shape;
  if (op == Opcode::kBitcastConvert) return VerifyBitcastConvert(in);
  if (IsElementwiseOpcode(op)) {
    for (const Instruction* o : in.operands) {
      if (o->shape.IsScalar() && !out.IsScalar()) continue;
      if (!SameDims(o->shape.dims, out.dims)) {
        return Bad("shape mismatch: operand '" + o->name + "' of '" + in.name +
                   "' is " + Str(o->shape) + ", expected dimensions of " +
                   Str(out));
      }
    }
    return Status();
  }
  if (op == Opcode::kBroadcast) return VerifyBroadcast(in);
  if (op == Opcode::kTranspose) return VerifyTranspose(in);
  if (op == Opcode::kBitcast) {
    // The operand count first: the tiled check below reads operand 0.
    IXA_RETURN_IF_ERROR(NeedOperands(in, 1));
  }
  if (op == Opcode::kBitcast &&
      (Tiled(in.shape) || Tiled(in.operand(0)->shape))) {
    // XLA compares the buffers' sizes, padding of the tiles included.
    std::optional<int64_t> a = PhysicalBytes(in.operand(0)->shape);
    std::optional<int64_t> b = PhysicalBytes(in.shape);
    if (!a || !b || *a != *b) {
      return Bad("shape mismatch: bitcast of " +
                 in.operand(0)->shape.ToString(true) + " to " +
                 in.shape.ToString(true) +
                 " changes the size of the tiled buffer");
    }
    return Status();
  }
  if (op == Opcode::kReshape || op == Opcode::kBitcast) {
    IXA_RETURN_IF_ERROR(NeedOperands(in, 1));
    const Shape& src = in.operand(0)->shape;
    bool same = src.ElementCount() == out.ElementCount();
    if (op == Opcode::kBitcast &&
        ElementBits(src.type) != ElementBits(out.type)) {
      same = src.ElementCount() * ElementBits(src.type) ==
             out.ElementCount() * ElementBits(out.type);
    }
    if (!same) {
      return Bad("shape mismatch: " + OpcodeName(in) + " of " + Str(src) +
                 " to " + Str(out) + " changes the element count");
    }
    return Status();
  }
  if (op == Opcode::kReverse) {
    IXA_RETURN_IF_ERROR(NeedOperands(in, 1));
    if (!SameDims(OperandDims(in, 0), out.dims)) {
      return Mismatch(in, in.operand(0)->shape);
    }
    if (!DistinctIn(in.dimensions, out.rank())) {
      return Bad("reverse dimensions=" + Dims(in.dimensions) + " out of range");
    }
    return Status();
  }
  if (op == Opcode::kSlice) return VerifySlice(in);
  if (op == Opcode::kConcatenate) return VerifyConcatenate(in);
  if (op == Opcode::kPad) return VerifyPad(in);
  if (op == Opcode::kDynamicSlice) return VerifyDynamicSlice(in);
  if (op == Opcode::kDynamicUpdateSlice) return VerifyDynamicUpdateSlice(in);
  if (op == Opcode::kDot && in.HasAttribute("sparsity")) {
    // Sparse dot: (lhs, rhs, metadata...) with a compressed operand.
    return in.operand_count() >= 2 ? Status()
                                   : Bad("sparse dot needs two operands");
  }
  if (op == Opcode::kDot) return VerifyDot(in);
  if (op == Opcode::kIota) {
    if (in.iota_dimension < 0 || in.iota_dimension >= std::max(out.rank(), 1)) {
      return Bad("iota_dimension out of range");
    }
    return Status();
  }
  if (op == Opcode::kGather) return VerifyGather(in);
  if (op == Opcode::kAllGather && in.operand_count() == 1) {
    if (in.dimensions.size() != 1 || in.operand_count() != 1) {
      return Bad("all-gather takes one operand and dimensions={d}");
    }
    int64_t d = in.dimensions[0];
    const auto& src = OperandDims(in, 0);
    if (d < 0 || d >= out.rank() || src.size() != out.dims.size() ||
        src[d] == 0 || out.dims[d] % src[d] != 0) {
      return Mismatch(in, in.operand(0)->shape);
    }
    return Status();
  }
  return Status();
}

// get-tuple-element: the index names an element of the operand tuple, of
// the result's shape.
Status VerifyGetTupleElement(const Instruction& in) {
  IXA_RETURN_IF_ERROR(NeedOperands(in, 1));
  const Shape& t = in.operand(0)->shape;
  if (!t.IsTuple() || in.tuple_index < 0 ||
      in.tuple_index >= static_cast<int64_t>(t.tuple_elements.size())) {
    return Bad("get-tuple-element index=" + std::to_string(in.tuple_index) +
               " is not an element of " + Str(t));
  }
  if (!t.tuple_elements[in.tuple_index].Compatible(in.shape)) {
    return Mismatch(in, t.tuple_elements[in.tuple_index]);
  }
  return Status();
}

// tuple: one element per operand, of the operand's shape.
Status VerifyTuple(const Instruction& in) {
  if (!in.shape.IsTuple() ||
      in.shape.tuple_elements.size() != in.operands.size()) {
    return Mismatch(in, in.shape);
  }
  for (size_t i = 0; i < in.operands.size(); ++i) {
    if (!in.shape.tuple_elements[i].Compatible(in.operands[i]->shape)) {
      return Mismatch(in, in.operands[i]->shape);
    }
  }
  return Status();
}

// reduce and reduce-window: inputs of one shape then as many scalar init
// values; the result keeps the dimensions not reduced (reduce) or has the
// windowed sizes (reduce-window), one array per input.
Status VerifyReduceOrReduceWindow(const Instruction& in) {
  const Opcode op = in.opcode;
  int n = in.operand_count();
  if (n == 0 || n % 2 != 0) {
    return Bad(OpcodeName(in) + " takes inputs then as many init values");
  }
  int k = n / 2;
  const Shape& in0 = in.operand(0)->shape;
  for (int i = 0; i < k; ++i) {
    if (!in.operand(i)->shape.IsArray() ||
        in.operand(i)->shape.dims != in0.dims) {
      return Bad("shape mismatch: the inputs of '" + in.name +
                 "' differ in dimensions");
    }
    if (!in.operand(k + i)->shape.IsScalar()) {
      return Bad("init values of '" + in.name + "' must be scalars");
    }
  }
  std::vector<int64_t> want;
  if (op == Opcode::kReduce) {
    if (!DistinctIn(in.dimensions, in0.rank())) {
      return Bad("reduce dimensions=" + Dims(in.dimensions) + " out of range");
    }
    for (int i = 0; i < in0.rank(); ++i) {
      if (std::find(in.dimensions.begin(), in.dimensions.end(), i) ==
          in.dimensions.end()) {
        want.push_back(in0.dims[i]);
      }
    }
  } else {
    if (static_cast<int>(in.window.size()) != in0.rank()) {
      return Bad("window needs one size per dimension of " + Str(in0));
    }
    for (int i = 0; i < in0.rank(); ++i) {
      want.push_back(CheckedWindowedSize(in0.dims[i], in.window[i]));
    }
  }
  if (k == 1 && in.shape.IsArray()) {
    if (in.shape.dims != want) {
      return Mismatch(in, Shape::Array(in.shape.type, want));
    }
    return Status();
  }
  if (!in.shape.IsTuple() ||
      static_cast<int>(in.shape.tuple_elements.size()) != k) {
    return Mismatch(in, in.shape);
  }
  for (const Shape& s : in.shape.tuple_elements) {
    if (s.dims != want) return Mismatch(in, Shape::Array(s.type, want));
  }
  return Status();
}

Status VerifyConvolution(const Instruction& in) {
  // Sparse convolution: a third operand holds the sparsity metadata and
  // the lhs is stored compressed, so its sizes are not checked here.
  const bool sparse = in.operand_count() == 3;
  if (!sparse) {
    IXA_RETURN_IF_ERROR(NeedOperands(in, 2));
  }
  IXA_RETURN_IF_ERROR(AllArrays(in));
  if (!in.conv) return Bad("convolution needs dim_labels=");
  const ConvDimensionNumbers& dn = *in.conv;
  const Shape &lhs = in.operand(0)->shape, &rhs = in.operand(1)->shape;
  size_t sp = dn.input_spatial.size();
  if (lhs.rank() != dn.input_rank || rhs.rank() != dn.kernel_rank ||
      in.shape.rank() != dn.output_rank) {
    return Bad("dim_labels do not match the ranks of '" + in.name + "'");
  }
  if (in.window.size() != sp && !(sp == 0 && in.window.empty())) {
    return Bad("window needs one entry per spatial dimension");
  }
  if (sparse || AnyUnbounded(in)) return Status();
  for (size_t i = 0; i < sp; ++i) {
    if (in.window[i].size != rhs.dims[dn.kernel_spatial[i]]) {
      return Bad("window size differs from the kernel's spatial size");
    }
    if (in.shape.dims[dn.output_spatial[i]] !=
        CheckedWindowedSize(lhs.dims[dn.input_spatial[i]], in.window[i])) {
      return Bad("shape mismatch: spatial dimension " + std::to_string(i) +
                 " of '" + in.name + "'");
    }
  }
  int64_t kernel_in;
  const int64_t fg = in.feature_group_count, bg = in.batch_group_count;
  if (fg <= 0 || bg <= 0 ||
      __builtin_mul_overflow(rhs.dims[dn.kernel_input_feature], fg,
                             &kernel_in) ||
      lhs.dims[dn.input_feature] != kernel_in ||
      in.shape.dims[dn.output_feature] != rhs.dims[dn.kernel_output_feature]) {
    return Bad("convolution feature dimensions do not match");
  }
  if (bg > 1 &&
      (lhs.dims[dn.input_batch] % bg != 0 ||
       in.shape.dims[dn.output_batch] != lhs.dims[dn.input_batch] / bg ||
       in.shape.dims[dn.output_feature] % bg != 0)) {
    return Bad("convolution batch_group_count=" + std::to_string(bg) +
               " does not divide the batch and output feature dimensions");
  }
  return Status();
}

}  // namespace

Status VerifyInstruction(const Instruction& in) {
  const Opcode op = in.opcode;
  if (op == Opcode::kParameter || op == Opcode::kConstant) return Status();
  // Every reader of an elementwise op (indexing, emitters, printers) takes
  // its operands by position.
  if (int arity = ElementwiseOperandCount(op); arity > 0) {
    IXA_RETURN_IF_ERROR(NeedOperands(in, arity));
  }
  if (op == Opcode::kGetTupleElement) return VerifyGetTupleElement(in);
  if (op == Opcode::kTuple) return VerifyTuple(in);
  if (op == Opcode::kScatter) {
    return AnyUnbounded(in) ? Status() : VerifyScatter(in);
  }
  if (op == Opcode::kSort) return VerifySort(in);
  if (op == Opcode::kReduce || op == Opcode::kReduceWindow) {
    return VerifyReduceOrReduceWindow(in);
  }
  if (op == Opcode::kConvolution) return VerifyConvolution(in);
  // A copy of a tuple (XLA copies whole tuples, e.g. around loops).
  if (op == Opcode::kCopy && !in.shape.IsArray()) {
    return in.operand(0)->shape.Compatible(in.shape)
               ? Status()
               : Mismatch(in, in.operand(0)->shape);
  }
  // Ops of arrays only: a tuple result or operand would be indexed as an
  // array (variadic all-gather gives a tuple; the others may not).
  if (IsElementwiseOpcode(op) || op == Opcode::kBroadcast ||
      op == Opcode::kTranspose || op == Opcode::kReshape ||
      op == Opcode::kBitcast || op == Opcode::kReverse ||
      op == Opcode::kSlice || op == Opcode::kConcatenate ||
      op == Opcode::kPad || op == Opcode::kDynamicSlice ||
      op == Opcode::kDynamicUpdateSlice || op == Opcode::kDot ||
      op == Opcode::kGather ||
      (op == Opcode::kAllGather && in.shape.IsArray())) {
    IXA_RETURN_IF_ERROR(AllArrays(in));
  }
  if (!in.shape.IsArray()) return Status();  // tuple-shaped others
  return VerifyArrayOp(in);
}

}  // namespace ixa::hlo
