// XLA's rewrites of the dot variants its emitters do not take, into plain
// HLO before the rest of its pipeline sees them (RaggedDotRewriter,
// ScaledDotRewriter). What a pass does not take (a dynamic shape, a type,
// a form of the dimension numbers the formulas below do not cover) stays
// as written.
//
// ragged-dot, with g groups given by group_sizes ([g], or [batch..., g]
// with the output's batch dims first), row r of the ragged dim belonging
// to group i when start_i <= r < end_i (end_i the inclusive prefix sum of
// the sizes, in s64 so that no sum of s32 sizes wraps; start_i = end_i -
// size_i). For the sizes XLA defines (non-negative) that is the group
// whose cumulative boundary is the first past r; rows past the sum of the
// sizes belong to no group.
//  - ragged non-contracting lhs dim (rhs has a group dim): a dot of lhs with
//    every group of rhs (the group dim an rhs non-contracting dim), then per
//    row the group it belongs to picked by a select (other groups -0, the
//    additive identity) and a reduce-add over the group dim (-0 init): exact,
//    a sum of one value and -0s. Rows of no group are 0 (a last select).
//  - ragged contracting dim: lhs and rhs both broadcast along a new leading
//    group dim, each zeroed where the contracting position is outside the
//    group, then one dot batched over the group dim: output [g, dot dims].
//    Zeroing both sides keeps a non-finite element outside the group out of
//    the group's sum (0 * 0, never 0 * inf).
//  - ragged batch dim: both operands have the batch dim, so every batch
//    element is its own product: the plain dot.
// The dots take the ragged-dot's operand and result types, so each output
// element accumulates as the ragged-dot's would.
//
// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): each operand and its scale
// converted to the compute type (the result type when it is f32 or f64,
// else f32: an f8 operand times an e8m0 power of two is exact there), the
// scale broadcast over its blocks (a scale dim of size s over an operand
// dim of size n repeats each scale n/s times; a scalar scale everything),
// multiplied, then a dot of the two products to the result type (XLA's
// ScaledDotRewriter: convert, multiply, dot).
#include <algorithm>
#include <map>
#include <optional>

#include "analysis/prefusion/internal.h"

namespace ixa {
// Named apart: the unity build puts this file beside the other passes.
namespace dot_expanders {
namespace {

using hlo::ElementType;
using hlo::Instruction;
using hlo::Shape;
using prefusion::IntList;
using prefusion::ModuleEdit;
using prefusion::NameOf;

bool IsIntegerType(ElementType t) {
  return hlo::IsWholeByteSigned(t) || hlo::IsWholeByteUnsigned(t);
}

bool IsStaticDotArray(const Shape& s) {
  return s.IsArray() && s.dynamic_mask == 0;
}

Shape WithPred(const Shape& like) {
  return Shape::Array(ElementType::kPred, like.dims);
}

bool HasDim(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool StrictlyIncreasing(const std::vector<int64_t>& v) {
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] <= v[i - 1]) return false;
  }
  return true;
}

std::string DotAttributes(const hlo::DotDimensionNumbers& dn) {
  std::string s;
  if (!dn.lhs_batch.empty()) {
    s += "lhs_batch_dims=" + IntList(dn.lhs_batch) + ", ";
  }
  s += "lhs_contracting_dims=" + IntList(dn.lhs_contracting);
  if (!dn.rhs_batch.empty()) {
    s += ", rhs_batch_dims=" + IntList(dn.rhs_batch);
  }
  return s + ", rhs_contracting_dims=" + IntList(dn.rhs_contracting);
}

// The non-batch, non-contracting dims of an operand, in order.
std::vector<int64_t> FreeDims(int rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!HasDim(batch, d) && !HasDim(contracting, d)) free.push_back(d);
  }
  return free;
}

// The dims of a dot's result: batch, lhs free, rhs free. nullopt when the
// dimension numbers do not fit the shapes.
std::optional<std::vector<int64_t>> ExpandedDotDims(
    const hlo::DotDimensionNumbers& dn, const Shape& lhs, const Shape& rhs) {
  if (dn.lhs_batch.size() != dn.rhs_batch.size() ||
      dn.lhs_contracting.size() != dn.rhs_contracting.size()) {
    return std::nullopt;
  }
  auto in_range = [](const std::vector<int64_t>& v, int rank) {
    for (int64_t d : v) {
      if (d < 0 || d >= rank) return false;
    }
    return true;
  };
  if (!in_range(dn.lhs_batch, lhs.rank()) ||
      !in_range(dn.lhs_contracting, lhs.rank()) ||
      !in_range(dn.rhs_batch, rhs.rank()) ||
      !in_range(dn.rhs_contracting, rhs.rank())) {
    return std::nullopt;
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < dn.lhs_batch.size(); ++i) {
    if (lhs.dims[dn.lhs_batch[i]] != rhs.dims[dn.rhs_batch[i]]) {
      return std::nullopt;
    }
    dims.push_back(lhs.dims[dn.lhs_batch[i]]);
  }
  for (size_t i = 0; i < dn.lhs_contracting.size(); ++i) {
    if (lhs.dims[dn.lhs_contracting[i]] != rhs.dims[dn.rhs_contracting[i]]) {
      return std::nullopt;
    }
  }
  for (int64_t d : FreeDims(lhs.rank(), dn.lhs_batch, dn.lhs_contracting)) {
    dims.push_back(lhs.dims[d]);
  }
  for (int64_t d : FreeDims(rhs.rank(), dn.rhs_batch, dn.rhs_contracting)) {
    dims.push_back(rhs.dims[d]);
  }
  return dims;
}

// One scalar add computation per element type within a module.
class AddReducers {
 public:
  std::string Get(ElementType type, ModuleEdit* edit) {
    auto it = names_.find(type);
    if (it != names_.end()) return it->second;
    const std::string t = hlo::ElementTypeName(type);
    const std::string name = edit->NewComputationName("ragged_dot_add_" + t);
    edit->AddComputation(
        name + " {\n  lhs = " + t + "[] parameter(0)\n  rhs = " + t +
        "[] parameter(1)\n  ROOT sum = " + t + "[] " +
        (type == ElementType::kPred ? "or" : "add") + "(lhs, rhs)\n}\n");
    names_[type] = name;
    return name;
  }

 private:
  std::map<ElementType, std::string> names_;
};

// --- RaggedDotRewriter ------------------------------------------------------

// pred[mask_dims]: whether position p of the ragged dim belongs to group i.
// `group_first`: the mask is [g, batch..., P] (else [batch..., P, g]).
std::string GroupMask(prefusion::InstructionExpansion& e,
                      const std::string& group_sizes, const Shape& sizes_shape,
                      int64_t positions, bool group_first,
                      AddReducers* reducers, ModuleEdit* edit) {
  const int nb = sizes_shape.rank() - 1;
  const int64_t g = sizes_shape.dims[nb];
  const Shape sizes64 = Shape::Array(ElementType::kS64, sizes_shape.dims);
  const std::string sizes =
      sizes_shape.type == ElementType::kS64
          ? group_sizes
          : e.Add("sizes", sizes64, "convert", {group_sizes});
  const std::string zero = e.Constant("zero", ElementType::kS64, "0");
  std::string size = "size=", pad = "pad=";
  for (int d = 0; d <= nb; ++d) {
    size += (d ? "x" : "") + std::to_string(d == nb ? g : 1);
    pad += (d ? "x" : "") + std::string(d == nb ? std::to_string(g - 1) : "0") +
           "_0";
  }
  std::string ends = e.Add("ends", sizes64, "reduce-window", {sizes, zero},
                           "window={" + size + " " + pad + "}, to_apply=" +
                               reducers->Get(ElementType::kS64, edit));
  std::string starts = e.Add("starts", sizes64, "subtract", {ends, sizes});
  std::vector<int64_t> mask_dims, bounds_at;
  int64_t position_dim;
  if (group_first) {
    std::vector<int64_t> perm = {nb}, tdims = {g};
    for (int d = 0; d < nb; ++d) {
      perm.push_back(d);
      tdims.push_back(sizes_shape.dims[d]);
    }
    if (nb > 0) {
      const Shape t = Shape::Array(ElementType::kS64, tdims);
      starts = e.Add("starts_t", t, "transpose", {starts},
                     "dimensions=" + IntList(perm));
      ends = e.Add("ends_t", t, "transpose", {ends},
                   "dimensions=" + IntList(perm));
    }
    mask_dims = tdims;
    mask_dims.push_back(positions);
    for (int d = 0; d <= nb; ++d) bounds_at.push_back(d);
    position_dim = nb + 1;
  } else {
    for (int d = 0; d < nb; ++d) {
      mask_dims.push_back(sizes_shape.dims[d]);
      bounds_at.push_back(d);
    }
    mask_dims.push_back(positions);
    mask_dims.push_back(g);
    bounds_at.push_back(nb + 1);
    position_dim = nb;
  }
  const Shape wide = Shape::Array(ElementType::kS64, mask_dims);
  const Shape pred = Shape::Array(ElementType::kPred, mask_dims);
  const std::string at =
      e.Add("position", wide, "iota", {},
            "iota_dimension=" + std::to_string(position_dim));
  const std::string dims = "dimensions=" + IntList(bounds_at);
  const std::string lo = e.Add("start", wide, "broadcast", {starts}, dims);
  const std::string hi = e.Add("end", wide, "broadcast", {ends}, dims);
  const std::string after =
      e.Add("after_start", pred, "compare", {at, lo}, "direction=GE");
  const std::string before =
      e.Add("before_end", pred, "compare", {at, hi}, "direction=LT");
  return e.Add("in_group", pred, "and", {after, before});
}

std::string ZeroLiteral(ElementType t, bool negative) {
  if (t == ElementType::kPred) return "false";
  if (hlo::IsStandardFloat(t)) return negative ? "-0" : "0";
  return "0";
}

void ExpandRaggedDot(const Instruction& instr, ModuleEdit* edit,
                     AddReducers* reducers,
                     std::vector<PrefusionRewrite>* rewrites) {
  if (instr.opcode != hlo::Opcode::kRaggedDot || instr.operand_count() != 3 ||
      instr.ragged.lhs_ragged.size() != 1) {
    return;
  }
  const Shape& lhs = instr.operand(0)->shape;
  const Shape& rhs = instr.operand(1)->shape;
  const Shape& sizes = instr.operand(2)->shape;
  const Shape& out = instr.shape;
  if (!IsStaticDotArray(lhs) || !IsStaticDotArray(rhs) ||
      !IsStaticDotArray(sizes) || !IsStaticDotArray(out) || sizes.rank() < 1 ||
      !IsIntegerType(sizes.type) ||
      !(hlo::IsStandardFloat(out.type) || IsIntegerType(out.type))) {
    return;
  }
  const hlo::DotDimensionNumbers& dn = instr.dot;
  const int64_t ragged = instr.ragged.lhs_ragged[0];
  if (ragged < 0 || ragged >= lhs.rank()) return;
  const int nb = static_cast<int>(dn.lhs_batch.size());
  const int64_t g = sizes.dims.back();
  // group_sizes: [g], or the output's batch dims then g.
  if (sizes.rank() != 1) {
    if (sizes.rank() != nb + 1) return;
    for (int d = 0; d < nb; ++d) {
      if (sizes.dims[d] != lhs.dims[dn.lhs_batch[d]]) return;
    }
  }
  const int sizes_batch = sizes.rank() - 1;
  const std::string lhs_name = NameOf(*instr.operand(0));
  const std::string rhs_name = NameOf(*instr.operand(1));
  const std::string sizes_name = NameOf(*instr.operand(2));
  const std::string dot_attrs = DotAttributes(dn);

  if (HasDim(dn.lhs_batch, ragged)) {
    if (!instr.ragged.rhs_group.empty()) return;
    std::optional<std::vector<int64_t>> dims = ExpandedDotDims(dn, lhs, rhs);
    if (!dims || *dims != out.dims) return;
    prefusion::InstructionExpansion e(instr, edit);
    e.Finish("dot", {lhs_name, rhs_name}, dot_attrs);
    rewrites->push_back({"RaggedDotRewriter", instr.name,
                         "a ragged batch dim: the plain dot (each batch "
                         "element is its own product)"});
    return;
  }

  if (HasDim(dn.lhs_contracting, ragged)) {
    if (!instr.ragged.rhs_group.empty() || out.rank() < 1 || out.dims[0] != g) {
      return;
    }
    std::optional<std::vector<int64_t>> dims = ExpandedDotDims(dn, lhs, rhs);
    if (!dims) return;
    std::vector<int64_t> want = {g};
    want.insert(want.end(), dims->begin(), dims->end());
    if (want != out.dims) return;
    const size_t j = std::find(dn.lhs_contracting.begin(),
                               dn.lhs_contracting.end(), ragged) -
                     dn.lhs_contracting.begin();
    const int64_t rhs_ragged = dn.rhs_contracting[j];
    // Where the mask [g, batch..., k] lands in [g, operand dims...].
    auto mask_at = [&](const std::vector<int64_t>& batch, int64_t k) {
      std::vector<int64_t> at = {0};
      for (int d = 0; d < sizes_batch; ++d) at.push_back(1 + batch[d]);
      at.push_back(1 + k);
      return at;
    };
    const std::vector<int64_t> lhs_at = mask_at(dn.lhs_batch, ragged);
    const std::vector<int64_t> rhs_at = mask_at(dn.rhs_batch, rhs_ragged);
    if (!StrictlyIncreasing(lhs_at) || !StrictlyIncreasing(rhs_at)) return;
    prefusion::InstructionExpansion e(instr, edit);
    const std::string mask = GroupMask(e, sizes_name, sizes, lhs.dims[ragged],
                                       /*group_first=*/true, reducers, edit);
    auto masked = [&](const std::string& operand, const Shape& shape,
                      const std::vector<int64_t>& at, const std::string& stem) {
      std::vector<int64_t> gdims = {g};
      gdims.insert(gdims.end(), shape.dims.begin(), shape.dims.end());
      const Shape grouped = Shape::Array(shape.type, gdims);
      std::vector<int64_t> all;
      for (int d = 0; d < shape.rank(); ++d) all.push_back(1 + d);
      const std::string b = e.Add(stem + "_groups", grouped, "broadcast",
                                  {operand}, "dimensions=" + IntList(all));
      const std::string m =
          e.Add(stem + "_mask", Shape::Array(ElementType::kPred, gdims),
                "broadcast", {mask}, "dimensions=" + IntList(at));
      const std::string zero = e.Constant(stem + "_zero", shape.type,
                                          ZeroLiteral(shape.type, false));
      const std::string zeros =
          e.Add(stem + "_zeros", grouped, "broadcast", {zero}, "dimensions={}");
      return e.Add(stem + "_in_group", grouped, "select", {m, b, zeros});
    };
    const std::string l = masked(lhs_name, lhs, lhs_at, "lhs");
    const std::string r = masked(rhs_name, rhs, rhs_at, "rhs");
    hlo::DotDimensionNumbers grouped;
    grouped.lhs_batch = {0};
    grouped.rhs_batch = {0};
    for (int64_t d : dn.lhs_batch) grouped.lhs_batch.push_back(1 + d);
    for (int64_t d : dn.rhs_batch) grouped.rhs_batch.push_back(1 + d);
    for (int64_t d : dn.lhs_contracting)
      grouped.lhs_contracting.push_back(1 + d);
    for (int64_t d : dn.rhs_contracting)
      grouped.rhs_contracting.push_back(1 + d);
    e.Finish("dot", {l, r}, DotAttributes(grouped));
    rewrites->push_back(
        {"RaggedDotRewriter", instr.name,
         "a ragged contracting dim: lhs and rhs broadcast over " +
             std::to_string(g) +
             " groups, zero outside each group's range (from the prefix "
             "sums of group_sizes), then a dot batched over the groups"});
    return;
  }

  // A ragged non-contracting lhs dim: rhs has the group dim.
  if (instr.ragged.rhs_group.size() != 1) return;
  const int64_t group = instr.ragged.rhs_group[0];
  if (group < 0 || group >= rhs.rank() || rhs.dims[group] != g ||
      HasDim(dn.rhs_batch, group) || HasDim(dn.rhs_contracting, group)) {
    return;
  }
  std::optional<std::vector<int64_t>> all_dims = ExpandedDotDims(dn, lhs, rhs);
  if (!all_dims) return;
  const std::vector<int64_t> lhs_free =
      FreeDims(lhs.rank(), dn.lhs_batch, dn.lhs_contracting);
  const std::vector<int64_t> rhs_free =
      FreeDims(rhs.rank(), dn.rhs_batch, dn.rhs_contracting);
  const int64_t row_pos =
      nb +
      (std::find(lhs_free.begin(), lhs_free.end(), ragged) - lhs_free.begin());
  const int64_t group_pos =
      nb + static_cast<int64_t>(lhs_free.size()) +
      (std::find(rhs_free.begin(), rhs_free.end(), group) - rhs_free.begin());
  std::vector<int64_t> want = *all_dims;
  want.erase(want.begin() + group_pos);
  if (want != out.dims) return;
  prefusion::InstructionExpansion e(instr, edit);
  const std::string mask = GroupMask(e, sizes_name, sizes, lhs.dims[ragged],
                                     /*group_first=*/false, reducers, edit);
  const Shape every = Shape::Array(out.type, *all_dims);
  const std::string products =
      e.Add("every_group", every, "dot", {lhs_name, rhs_name}, dot_attrs);
  std::vector<int64_t> mask_at;
  for (int d = 0; d < sizes_batch; ++d) mask_at.push_back(d);
  mask_at.push_back(row_pos);
  mask_at.push_back(group_pos);
  const std::string picked_mask =
      e.Add("mask", Shape::Array(ElementType::kPred, *all_dims), "broadcast",
            {mask}, "dimensions=" + IntList(mask_at));
  const bool is_float = hlo::IsStandardFloat(out.type);
  // -0 is the additive identity of floats (x + -0 == x for every x).
  const std::string identity =
      e.Constant("identity", out.type, ZeroLiteral(out.type, is_float));
  const std::string identities =
      e.Add("identities", every, "broadcast", {identity}, "dimensions={}");
  const std::string picked =
      e.Add("picked", every, "select", {picked_mask, products, identities});
  const std::string reducer = reducers->Get(out.type, edit);
  if (!is_float) {
    e.Finish(
        "reduce", {picked, identity},
        "dimensions={" + std::to_string(group_pos) + "}, to_apply=" + reducer);
  } else {
    const std::string sum = e.Add(
        "sum", out, "reduce", {picked, identity},
        "dimensions={" + std::to_string(group_pos) + "}, to_apply=" + reducer);
    // Rows of no group: 0 (not the -0 the reduce leaves).
    std::vector<int64_t> has_dims = mask_at;
    has_dims.pop_back();
    std::vector<int64_t> reduced_dims;
    for (int d = 0; d < sizes_batch; ++d) reduced_dims.push_back(sizes.dims[d]);
    reduced_dims.push_back(lhs.dims[ragged]);
    const Shape reduced = Shape::Array(ElementType::kPred, reduced_dims);
    const std::string no = e.Constant("no", ElementType::kPred, "false");
    const std::string any =
        e.Add("any_group", reduced, "reduce", {mask, no},
              "dimensions={" + std::to_string(sizes_batch + 1) +
                  "}, to_apply=" + reducers->Get(ElementType::kPred, edit));
    const std::string has = e.Add("has_group", WithPred(out), "broadcast",
                                  {any}, "dimensions=" + IntList(has_dims));
    const std::string zero =
        e.Constant("zero", out.type, ZeroLiteral(out.type, false));
    const std::string zeros =
        e.Add("zeros", out, "broadcast", {zero}, "dimensions={}");
    e.Finish("select", {has, sum, zeros});
  }
  rewrites->push_back(
      {"RaggedDotRewriter", instr.name,
       "a ragged non-contracting dim: a dot with each of the " +
           std::to_string(g) +
           " rhs groups, then per row its group's result (from the prefix "
           "sums of group_sizes) by a select and a reduce over the groups"});
}

// --- ScaledDotRewriter ------------------------------------------------------

// `operand` times its scale, both in `compute`; nullopt when the scale
// does not cover the operand in whole blocks.
std::optional<std::string> Dequantize(prefusion::InstructionExpansion& e,
                                      const Instruction& operand,
                                      const Instruction& scale,
                                      ElementType compute,
                                      const std::string& stem) {
  const Shape& x = operand.shape;
  const Shape& s = scale.shape;
  if (!s.IsScalar() && s.rank() != x.rank()) return std::nullopt;
  for (int d = 0; d < s.rank(); ++d) {
    if (s.dims[d] <= 0 || x.dims[d] % s.dims[d] != 0) return std::nullopt;
  }
  const Shape wide = Shape::Array(compute, x.dims);
  const std::string value =
      x.type == compute
          ? NameOf(operand)
          : e.Add(stem + "_value", wide, "convert", {NameOf(operand)});
  const std::string scale_value =
      s.type == compute
          ? NameOf(scale)
          : e.Add(stem + "_scale_value", Shape::Array(compute, s.dims),
                  "convert", {NameOf(scale)});
  std::string scales;
  if (s.IsScalar()) {
    scales = e.Add(stem + "_scales", wide, "broadcast", {scale_value},
                   "dimensions={}");
  } else if (s.dims == x.dims) {
    scales = scale_value;
  } else {
    // [s0, s1, ...] -> [s0, n0/s0, s1, n1/s1, ...] -> [n0, n1, ...].
    std::vector<int64_t> blocks, at;
    for (int d = 0; d < s.rank(); ++d) {
      at.push_back(static_cast<int64_t>(blocks.size()));
      blocks.push_back(s.dims[d]);
      blocks.push_back(x.dims[d] / s.dims[d]);
    }
    const std::string repeated =
        e.Add(stem + "_blocks", Shape::Array(compute, blocks), "broadcast",
              {scale_value}, "dimensions=" + IntList(at));
    scales = e.Add(stem + "_scales", wide, "reshape", {repeated});
  }
  return e.Add(stem + "_scaled", wide, "multiply", {value, scales});
}

bool IsFloatOperand(ElementType t) {
  switch (t) {
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64:
    case ElementType::kF4E2M1FN:
    case ElementType::kF8E3M4:
    case ElementType::kF8E4M3:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E5M2:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E8M0FNU:
      return true;
    default:
      return false;
  }
}

void ExpandScaledDot(const Instruction& instr, ModuleEdit* edit,
                     std::vector<PrefusionRewrite>* rewrites) {
  if (instr.opcode != hlo::Opcode::kScaledDot || instr.operand_count() != 4) {
    return;
  }
  const Shape& out = instr.shape;
  if (!IsStaticDotArray(out) || !hlo::IsStandardFloat(out.type)) return;
  for (int k = 0; k < 4; ++k) {
    const Shape& s = instr.operand(k)->shape;
    if (!IsStaticDotArray(s) || !IsFloatOperand(s.type)) return;
  }
  std::optional<std::vector<int64_t>> dims = ExpandedDotDims(
      instr.dot, instr.operand(0)->shape, instr.operand(1)->shape);
  if (!dims || *dims != out.dims) return;
  const ElementType compute =
      out.type == ElementType::kF64 ? ElementType::kF64 : ElementType::kF32;
  prefusion::InstructionExpansion e(instr, edit);
  std::optional<std::string> lhs =
      Dequantize(e, *instr.operand(0), *instr.operand(2), compute, "lhs");
  std::optional<std::string> rhs =
      Dequantize(e, *instr.operand(1), *instr.operand(3), compute, "rhs");
  if (!lhs || !rhs) return;
  e.Finish("dot", {*lhs, *rhs}, DotAttributes(instr.dot));
  rewrites->push_back(
      {"ScaledDotRewriter", instr.name,
       std::string("each operand times its block-broadcast scale in ") +
           hlo::ElementTypeName(compute) + ", then a dot to " +
           hlo::ElementTypeName(out.type)});
}

}  // namespace
}  // namespace dot_expanders

using dot_expanders::AddReducers;

Result<PassResult> ExpandRaggedDots(const hlo::Module& module) {
  AddReducers reducers;
  return prefusion::RunPassOnce(
      module, "RaggedDotRewriter", prefusion::FusionBodies::kSkip,
      [&](const hlo::Instruction& instr, prefusion::ModuleEdit* edit,
          std::vector<PrefusionRewrite>* rewrites) {
        dot_expanders::ExpandRaggedDot(instr, edit, &reducers, rewrites);
      });
}

Result<PassResult> ExpandScaledDots(const hlo::Module& module) {
  return prefusion::RunPassOnce(module, "ScaledDotRewriter",
                                prefusion::FusionBodies::kSkip,
                                dot_expanders::ExpandScaledDot);
}

}  // namespace ixa
