// XLA's scatter (and batched gather) normalization before fusion:
// BatchedGatherScatterNormalizer turns batching dims into explicit index
// components read from an iota, and ScatterSimplifier brings every scatter
// to the form XLA's scatter emitter takes: indices [n, index_vector_size]
// with index_vector_dim 1, updates [n, window...] whose window is the
// whole operand (size-1 dims for inserted_window_dims), and the index
// vector naming the operand's leading dims (operands and results
// transposed where scatter_dims_to_operand_dims needs it).
#include <algorithm>
#include <numeric>

#include "analysis/prefusion/internal.h"

namespace ixa {
namespace {

using hlo::Instruction;
using hlo::Shape;
using prefusion::IntList;
using prefusion::Line;
using prefusion::ModuleEdit;
using prefusion::NameOf;
using prefusion::ReshapeOpcode;

bool ListHas(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::vector<int64_t> Inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = i;
  return inv;
}

Shape DefaultShape(hlo::ElementType type, std::vector<int64_t> dims) {
  const int rank = static_cast<int>(dims.size());
  return prefusion::ArrayShape(type, std::move(dims),
                               prefusion::DescendingLayout(rank));
}

// The lines replacing one instruction, each value a name and its shape.
struct Value {
  std::string name;
  Shape shape;
};

class Lines {
 public:
  Lines(const Instruction& instr, ModuleEdit* edit)
      : instr_(instr), edit_(edit) {}
  Value Add(const std::string& suffix, const Shape& shape,
            const std::string& opcode, const std::vector<std::string>& operands,
            const std::string& attributes = "") {
    const std::string name = edit_->NewName(instr_, suffix);
    lines_.push_back(Line(name, shape, opcode, operands, attributes));
    return {name, shape};
  }
  // XLA's MaybeTranspose: output dim i is input dim perm[i].
  Value Transpose(const Value& v, const std::vector<int64_t>& perm) {
    if (IsIdentity(perm)) return v;
    std::vector<int64_t> dims;
    for (int64_t p : perm) dims.push_back(v.shape.dims[p]);
    return Add("transpose", DefaultShape(v.shape.type, dims), "transpose",
               {v.name}, "dimensions=" + IntList(perm));
  }
  Value Reshape(const Value& v, const std::vector<int64_t>& dims) {
    if (dims == v.shape.dims) return v;
    const Shape to = DefaultShape(v.shape.type, dims);
    return Add("reshape", to, ReshapeOpcode(v.shape, to), {v.name});
  }
  // Ends with `last`, whose final line defines the instruction's own name.
  void Finish(std::vector<std::string> last) {
    for (std::string& l : last) lines_.push_back(std::move(l));
    edit_->Replace(&instr_, std::move(lines_));
  }

 private:
  const Instruction& instr_;
  ModuleEdit* edit_;
  std::vector<std::string> lines_;
};

// XLA's TransformStartIndices: the index vector dim made the last one
// (added when implicit), the others collapsed into one: [n, size].
Value SimplifiedStartIndices(Lines& lines, const Value& indices, int64_t ivd) {
  Value v = indices;
  int64_t rank = v.shape.rank();
  if (ivd == rank) {
    std::vector<int64_t> dims = v.shape.dims;
    dims.push_back(1);
    v = lines.Reshape(v, dims);
    ++rank;
  } else if (ivd < rank - 1) {
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != ivd) perm.push_back(d);
    }
    perm.push_back(ivd);
    v = lines.Transpose(v, perm);
  }
  if (rank > 2) {
    int64_t n = 1;
    for (int64_t d = 0; d + 1 < rank; ++d) n *= v.shape.dims[d];
    v = lines.Reshape(v, {n, v.shape.dims.back()});
  } else if (rank == 1) {
    v = lines.Reshape(v, {1, v.shape.dims[0]});
  }
  return v;
}

// XLA's MakeOperandStartIndexPermutations: the dims the index vector
// names first (in its order), then the others.
std::vector<int64_t> StartIndexPermutation(const std::vector<int64_t>& to_dims,
                                           int64_t rank) {
  std::vector<int64_t> perm = to_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!ListHas(to_dims, d)) perm.push_back(d);
  }
  return perm;
}

std::string ScatterAttributes(const Instruction& scatter,
                              const std::vector<int64_t>& update_window_dims,
                              const std::vector<int64_t>& inserted,
                              const std::vector<int64_t>& to_operand,
                              int64_t ivd, bool sorted) {
  std::string out = "update_window_dims=" + IntList(update_window_dims) +
                    ", inserted_window_dims=" + IntList(inserted) +
                    ", scatter_dims_to_operand_dims=" + IntList(to_operand) +
                    ", index_vector_dim=" + std::to_string(ivd);
  if (sorted) out += ", indices_are_sorted=true";
  if (scatter.HasAttribute("unique_indices") &&
      scatter.Attribute("unique_indices") == "true") {
    out += ", unique_indices=true";
  }
  return out + ", to_apply=" + NameOf(*scatter.called());
}

bool IndicesSorted(const Instruction& instr) {
  return instr.HasAttribute("indices_are_sorted") &&
         instr.Attribute("indices_are_sorted") == "true";
}

// The scatters and gathers the passes take: array operands with static
// dims.
bool StaticArrays(const Instruction& instr) {
  if (!instr.called() && instr.opcode == hlo::Opcode::kScatter) return false;
  for (const Instruction* o : instr.operands) {
    if (!o->shape.IsArray() || o->shape.dynamic_mask != 0) return false;
  }
  return true;
}

// XLA's PromoteTypeForSize: an index type in which `size` does not fit
// becomes s32 (or s64).
hlo::ElementType PromoteTypeForSize(hlo::ElementType type, int64_t size) {
  if (!hlo::IsIntegral(type)) return type;
  const int bits = hlo::ElementBits(type);
  const bool is_signed =
      type == hlo::ElementType::kS2 || type == hlo::ElementType::kS4 ||
      type == hlo::ElementType::kS8 || type == hlo::ElementType::kS16 ||
      type == hlo::ElementType::kS32 || type == hlo::ElementType::kS64;
  const int value_bits = is_signed ? bits - 1 : bits;
  if (value_bits >= 63 || size <= (int64_t{1} << value_bits) - 1) return type;
  return size <= INT32_MAX ? hlo::ElementType::kS32 : hlo::ElementType::kS64;
}

// XLA's CreateConcatIndices: an iota per batching dim of the indices,
// concatenated in front of the index vectors.
Value ConcatIndices(Lines& lines, const Instruction& indices, int64_t ivd,
                    const std::vector<int64_t>& batching_dims) {
  Value v{NameOf(indices), indices.shape};
  hlo::ElementType type = v.shape.type;
  for (int64_t d : batching_dims) {
    type = PromoteTypeForSize(type, v.shape.dims[d]);
  }
  if (type != v.shape.type) {
    v = lines.Add("convert", DefaultShape(type, v.shape.dims), "convert",
                  {v.name});
  }
  const bool implicit = ivd == v.shape.rank();
  if (implicit) {
    std::vector<int64_t> dims = v.shape.dims;
    dims.push_back(1);
    v = lines.Reshape(v, dims);
  }
  std::vector<int64_t> iota_dims = v.shape.dims;
  iota_dims[ivd] = 1;
  std::vector<std::string> parts;
  for (int64_t d : batching_dims) {
    parts.push_back(lines
                        .Add("iota", DefaultShape(type, iota_dims), "iota", {},
                             "iota_dimension=" + std::to_string(d))
                        .name);
  }
  parts.push_back(v.name);
  std::vector<int64_t> concat_dims = iota_dims;
  concat_dims[ivd] = static_cast<int64_t>(batching_dims.size()) +
                     (implicit ? 1 : v.shape.dims[ivd]);
  return lines.Add("concatenate", DefaultShape(type, concat_dims),
                   "concatenate", parts,
                   "dimensions={" + std::to_string(ivd) + "}");
}

void NormalizeBatchedScatter(const Instruction& instr, ModuleEdit* edit,
                             std::vector<PrefusionRewrite>* rewrites) {
  const hlo::ScatterDimensionNumbers dn = instr.ScatterDims();
  if (dn.input_batching_dims.empty() || !StaticArrays(instr)) return;
  const int k = (instr.operand_count() - 1) / 2;
  Lines lines(instr, edit);
  Value indices = ConcatIndices(lines, *instr.operand(k), dn.index_vector_dim,
                                dn.scatter_indices_batching_dims);
  std::vector<int64_t> to_operand = dn.input_batching_dims;
  to_operand.insert(to_operand.end(), dn.scatter_dims_to_operand_dims.begin(),
                    dn.scatter_dims_to_operand_dims.end());
  std::vector<int64_t> inserted = dn.inserted_window_dims;
  inserted.insert(inserted.end(), dn.input_batching_dims.begin(),
                  dn.input_batching_dims.end());
  std::sort(inserted.begin(), inserted.end());
  // XLA's GetUpdatedIndicesAreSorted: each iota increases, so sorted
  // indices stay sorted when both orders are.
  const bool sorted = IndicesSorted(instr) &&
                      std::is_sorted(dn.scatter_indices_batching_dims.begin(),
                                     dn.scatter_indices_batching_dims.end()) &&
                      std::is_sorted(to_operand.begin(), to_operand.end());
  std::vector<std::string> operands;
  for (int i = 0; i < instr.operand_count(); ++i) {
    operands.push_back(i == k ? indices.name : NameOf(*instr.operand(i)));
  }
  lines.Finish(
      {Line(NameOf(instr), instr.shape, "scatter", operands,
            ScatterAttributes(instr, dn.update_window_dims, inserted,
                              to_operand, dn.index_vector_dim, sorted))});
  rewrites->push_back(
      {"BatchedGatherScatterNormalizer", instr.name,
       "its batching dims become index components read from an iota "
       "(concatenated to the indices as " +
           indices.name + ") and inserted window dims"});
}

void NormalizeBatchedGather(const Instruction& instr, ModuleEdit* edit,
                            std::vector<PrefusionRewrite>* rewrites) {
  const hlo::GatherDimensionNumbers& g = instr.gather;
  if (g.operand_batching_dims.empty() || !StaticArrays(instr) ||
      instr.operand_count() != 2) {
    return;
  }
  Lines lines(instr, edit);
  Value indices = ConcatIndices(lines, *instr.operand(1), g.index_vector_dim,
                                g.start_indices_batching_dims);
  std::vector<int64_t> start_index_map = g.operand_batching_dims;
  start_index_map.insert(start_index_map.end(), g.start_index_map.begin(),
                         g.start_index_map.end());
  std::vector<int64_t> collapsed = g.collapsed_slice_dims;
  collapsed.insert(collapsed.end(), g.operand_batching_dims.begin(),
                   g.operand_batching_dims.end());
  std::sort(collapsed.begin(), collapsed.end());
  const bool sorted =
      IndicesSorted(instr) &&
      std::is_sorted(g.start_indices_batching_dims.begin(),
                     g.start_indices_batching_dims.end()) &&
      std::is_sorted(start_index_map.begin(), start_index_map.end());
  std::string attributes =
      "offset_dims=" + IntList(g.offset_dims) +
      ", collapsed_slice_dims=" + IntList(collapsed) +
      ", start_index_map=" + IntList(start_index_map) +
      ", index_vector_dim=" + std::to_string(g.index_vector_dim) +
      ", slice_sizes=" + IntList(instr.slice_sizes);
  if (sorted) attributes += ", indices_are_sorted=true";
  lines.Finish({Line(NameOf(instr), instr.shape, "gather",
                     {NameOf(*instr.operand(0)), indices.name}, attributes)});
  rewrites->push_back(
      {"BatchedGatherScatterNormalizer", instr.name,
       "its batching dims become index components read from an iota "
       "(concatenated to the indices as " +
           indices.name + ") and collapsed slice dims"});
}

void NormalizeBatched(const Instruction& instr, ModuleEdit* edit,
                      std::vector<PrefusionRewrite>* rewrites) {
  if (instr.opcode == hlo::Opcode::kScatter) {
    NormalizeBatchedScatter(instr, edit, rewrites);
  } else if (instr.opcode == hlo::Opcode::kGather) {
    NormalizeBatchedGather(instr, edit, rewrites);
  }
}

// XLA's ScatterSimplifier::IsSimplifiedScatter.
bool IsSimplifiedScatter(const Instruction& instr) {
  const hlo::ScatterDimensionNumbers dn = instr.ScatterDims();
  const int k = (instr.operand_count() - 1) / 2;
  const int64_t indices_rank = instr.operand(k)->shape.rank();
  const int64_t scatter_dims =
      instr.operand(k + 1)->shape.rank() -
      static_cast<int64_t>(dn.update_window_dims.size());
  return dn.index_vector_dim == indices_rank - 1 && scatter_dims <= 1 &&
         IsIdentity(dn.scatter_dims_to_operand_dims) &&
         !ListHas(dn.update_window_dims, 0) &&
         std::is_sorted(dn.update_window_dims.begin(),
                        dn.update_window_dims.end()) &&
         dn.inserted_window_dims.empty();
}

void SimplifyScatter(const Instruction& instr, ModuleEdit* edit,
                     std::vector<PrefusionRewrite>* rewrites) {
  if (instr.opcode != hlo::Opcode::kScatter || !StaticArrays(instr)) return;
  const int n = instr.operand_count();
  if (n < 3 || n % 2 == 0) return;
  const hlo::ScatterDimensionNumbers dn = instr.ScatterDims();
  // Batching dims are BatchedGatherScatterNormalizer's, which runs first.
  if (!dn.input_batching_dims.empty() || IsSimplifiedScatter(instr)) return;
  const int k = (n - 1) / 2;
  const int64_t operand_rank = instr.operand(0)->shape.rank();
  const std::vector<int64_t> perm =
      StartIndexPermutation(dn.scatter_dims_to_operand_dims, operand_rank);
  Lines lines(instr, edit);
  Value indices = SimplifiedStartIndices(
      lines, {NameOf(*instr.operand(k)), instr.operand(k)->shape},
      dn.index_vector_dim);
  const int64_t rows = indices.shape.dims[0];
  // XLA's FlattenAndTransposeUpdates, then the operands' permutation.
  std::vector<int64_t> update_perm = {0};
  for (int64_t p : perm) update_perm.push_back(p + 1);
  std::vector<std::string> operands;
  std::vector<Shape> results;
  for (int j = 0; j < k; ++j) {
    Value o = lines.Transpose(
        {NameOf(*instr.operand(j)), instr.operand(j)->shape}, perm);
    operands.push_back(o.name);
    results.push_back(o.shape);
  }
  operands.push_back(indices.name);
  for (int j = 0; j < k; ++j) {
    const Instruction* update = instr.operand(k + 1 + j);
    Value u{NameOf(*update), update->shape};
    const int64_t rank = u.shape.rank();
    std::vector<int64_t> to_front;
    for (int64_t d = 0; d < rank; ++d) {
      if (!ListHas(dn.update_window_dims, d)) to_front.push_back(d);
    }
    const int64_t scatter_dims = static_cast<int64_t>(to_front.size());
    to_front.insert(to_front.end(), dn.update_window_dims.begin(),
                    dn.update_window_dims.end());
    u = lines.Transpose(u, to_front);
    // One scatter dim of `rows`, then the window with a size-1 dim at each
    // inserted window dim: [rows, operand dims in order].
    std::vector<int64_t> dims = {rows};
    size_t w = 0;
    for (int64_t d = 0; d < operand_rank; ++d) {
      dims.push_back(ListHas(dn.inserted_window_dims, d)
                         ? 1
                         : u.shape.dims[scatter_dims + w++]);
    }
    u = lines.Reshape(u, dims);
    u = lines.Transpose(u, update_perm);
    operands.push_back(u.name);
  }
  std::vector<int64_t> window(operand_rank);
  std::iota(window.begin(), window.end(), 1);
  std::vector<int64_t> to_operand(dn.scatter_dims_to_operand_dims.size());
  std::iota(to_operand.begin(), to_operand.end(), 0);
  const std::string attributes =
      ScatterAttributes(instr, window, {}, to_operand, 1, IndicesSorted(instr));
  if (IsIdentity(perm)) {
    lines.Finish(
        {Line(NameOf(instr), instr.shape, "scatter", operands, attributes)});
  } else {
    Shape shape;
    if (k == 1) {
      shape = results[0];
    } else {
      shape.type = hlo::ElementType::kTuple;
      shape.tuple_elements = results;
    }
    Value scattered =
        lines.Add("simplified", shape, "scatter", operands, attributes);
    const std::vector<int64_t> inverse = Inverse(perm);
    if (k == 1) {
      lines.Finish({Line(NameOf(instr), instr.shape, "transpose",
                         {scattered.name}, "dimensions=" + IntList(inverse))});
    } else {
      std::vector<std::string> elements;
      for (int j = 0; j < k; ++j) {
        Value e = lines.Add("element", results[j], "get-tuple-element",
                            {scattered.name}, "index=" + std::to_string(j));
        elements.push_back(lines.Transpose(e, inverse).name);
      }
      lines.Finish({Line(NameOf(instr), instr.shape, "tuple", elements)});
    }
  }
  rewrites->push_back(
      {"ScatterSimplifier", instr.name,
       "XLA's simplified scatter: indices " + indices.shape.ToString() +
           " (index_vector_dim 1), updates [" + std::to_string(rows) +
           ", window] with the whole operand as window" +
           (IsIdentity(perm) ? std::string()
                             : ", operands transposed by " + IntList(perm) +
                                   " and the results back")});
}

}  // namespace

Result<PassResult> NormalizeBatchedGatherScatter(const hlo::Module& module) {
  return prefusion::RunPassOnce(module, "BatchedGatherScatterNormalizer",
                                prefusion::FusionBodies::kSkip,
                                NormalizeBatched);
}

Result<PassResult> SimplifyScatters(const hlo::Module& module) {
  return prefusion::RunPassOnce(module, "ScatterSimplifier",
                                prefusion::FusionBodies::kSkip,
                                SimplifyScatter);
}

}  // namespace ixa
