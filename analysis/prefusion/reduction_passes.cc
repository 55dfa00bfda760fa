// The reduce canonicalizations before fusion: ReductionDegenerateDimRemover,
// ReductionLayoutNormalizer, ReductionDimensionGrouper and
// ReductionSplitter.
#include <algorithm>

#include "analysis/emitters/internal.h"
#include "analysis/prefusion/internal.h"

namespace ixa {
namespace {

using hlo::Instruction;
using hlo::Shape;
using prefusion::GetReduceParts;
using prefusion::IntList;
using prefusion::Line;
using prefusion::ModuleEdit;
using prefusion::NameOf;
using prefusion::ReduceLines;
using prefusion::ReduceParts;
using prefusion::ReshapeOpcode;
using prefusion::RunPassOnce;

constexpr prefusion::FusionBodies kReduceBodies =
    prefusion::FusionBodies::kRewriteLoopAndInput;

bool IsReducedDim(const Instruction& reduce, int64_t dim) {
  return std::find(reduce.dimensions.begin(), reduce.dimensions.end(), dim) !=
         reduce.dimensions.end();
}

// `shape` without its size-1 dims, its layout kept on the others.
Shape DropDegenerateDims(const Shape& shape) {
  std::vector<int64_t> dims, new_index(shape.rank(), -1);
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape.dims[i] == 1) continue;
    new_index[i] = static_cast<int64_t>(dims.size());
    dims.push_back(shape.dims[i]);
  }
  std::vector<int64_t> m2m;
  for (int64_t d : shape.MinorToMajor()) {
    if (new_index[d] >= 0) m2m.push_back(new_index[d]);
  }
  return prefusion::ArrayShape(shape.type, std::move(dims), std::move(m2m));
}

bool HasTiles(const Shape& s) { return s.layout && !s.layout->tiles.empty(); }

// The same dims and physical order (an absent layout is the default one).
bool SamePhysicalShape(const Shape& a, const Shape& b) {
  return a.Compatible(b) && a.MinorToMajor() == b.MinorToMajor() &&
         HasTiles(a) == HasTiles(b) && !HasTiles(a);
}

// How a reshape of the passes is written: as a reshape (the row-major
// logical order: a bitcast where the layouts make it one), or as a
// bitcast (the physical order, whatever the logical dims).
enum class Reinterpret { kLogical, kPhysical };

// Lines taking `names` (of shapes `from`) to `to`, one reshape each where
// they differ; the names of the results.
std::vector<std::string> ReshapeAll(const Instruction& reduce,
                                    const std::vector<std::string>& names,
                                    const std::vector<Shape>& from,
                                    const std::vector<Shape>& to,
                                    const std::string& suffix, ModuleEdit* edit,
                                    std::vector<std::string>* lines,
                                    Reinterpret how = Reinterpret::kLogical) {
  std::vector<std::string> out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (SamePhysicalShape(from[i], to[i])) {
      out.push_back(names[i]);
      continue;
    }
    const std::string n = edit->NewName(reduce, suffix);
    lines->push_back(Line(n, to[i],
                          how == Reinterpret::kPhysical
                              ? "bitcast"
                              : ReshapeOpcode(from[i], to[i]),
                          {names[i]}));
    out.push_back(n);
  }
  return out;
}

std::vector<std::string> InputNames(const ReduceParts& parts) {
  std::vector<std::string> names;
  for (const Instruction* i : parts.inputs) names.push_back(NameOf(*i));
  return names;
}

// The reduce's result from the element results `elements` (one: itself;
// several: a tuple), as the last line named after the reduce.
void FinishReduce(const Instruction& reduce,
                  const std::vector<std::string>& elements,
                  std::vector<std::string>* lines) {
  lines->push_back(Line(NameOf(reduce), reduce.shape, "tuple", elements, ""));
}

// Renames the last line's instruction to the reduce's own name when it is
// the single result (so no tuple is needed).
void EndWith(const Instruction& reduce, const std::vector<Shape>& shapes,
             const std::vector<Shape>& outputs,
             const std::vector<std::string>& names, const std::string& suffix,
             ModuleEdit* edit, std::vector<std::string>* lines) {
  if (names.size() == 1) {
    // Reshape straight into the reduce's name.
    if (SamePhysicalShape(shapes[0], outputs[0]) && !lines->empty()) {
      // The last line already defines `names[0]`: rename it.
      const std::string old = names[0] + " = ";
      std::string& last = lines->back();
      IXA_CHECK(last.rfind(old, 0) == 0);
      last = NameOf(reduce) + " = " + last.substr(old.size());
      return;
    }
    lines->push_back(Line(NameOf(reduce), outputs[0],
                          ReshapeOpcode(shapes[0], outputs[0]), {names[0]}));
    return;
  }
  FinishReduce(reduce,
               ReshapeAll(reduce, names, shapes, outputs, suffix, edit, lines),
               lines);
}

void RemoveDegenerateDims(const Instruction& instr, ModuleEdit* edit,
                          std::vector<PrefusionRewrite>* rewrites) {
  const std::optional<ReduceParts> parts = GetReduceParts(instr);
  if (!parts) return;
  const Shape& input = parts->inputs[0]->shape;
  if (HasTiles(input) || input.ElementCount() == 0 ||
      instr.dimensions.empty()) {
    return;
  }
  if (std::find(input.dims.begin(), input.dims.end(), 1) == input.dims.end()) {
    return;
  }
  std::vector<int64_t> reduced;
  int64_t shift = 0;
  for (int d = 0; d < input.rank(); ++d) {
    if (input.dims[d] == 1) {
      ++shift;
    } else if (IsReducedDim(instr, d)) {
      reduced.push_back(d - shift);
    }
  }
  std::vector<std::string> lines;
  std::vector<Shape> in_shapes, canonical_in, canonical_out;
  for (const Instruction* i : parts->inputs) {
    in_shapes.push_back(i->shape);
    canonical_in.push_back(DropDegenerateDims(i->shape));
  }
  std::string what;
  if (reduced.empty()) {
    // Only size-1 dims are reduced: XLA's bitcast of the input (the init
    // being the reducer's identity).
    std::vector<std::string> names = InputNames(*parts);
    EndWith(instr, in_shapes, parts->outputs, names, "degenerate", edit,
            &lines);
    what = "reduces only size-1 dims: a reshape of its input";
  } else {
    std::vector<std::string> names =
        ReshapeAll(instr, InputNames(*parts), in_shapes, canonical_in,
                   "degenerate", edit, &lines);
    for (const Shape& o : parts->outputs) {
      canonical_out.push_back(DropDegenerateDims(o));
    }
    const std::string reduce_name = edit->NewName(instr, "nondegenerate");
    std::vector<std::string> elements;
    for (const std::string& l :
         ReduceLines(instr, reduce_name, names, canonical_out, reduced, edit,
                     &elements)) {
      lines.push_back(l);
    }
    EndWith(instr, canonical_out, parts->outputs, elements, "restore", edit,
            &lines);
    what = "size-1 dims removed: reduces " + canonical_in[0].ToString() +
           " over dimensions " + IntList(reduced);
  }
  edit->Replace(&instr, std::move(lines));
  rewrites->push_back({"ReductionDegenerateDimRemover", instr.name, what});
}

void NormalizeLayout(const Instruction& instr, ModuleEdit* edit,
                     std::vector<PrefusionRewrite>* rewrites) {
  const std::optional<ReduceParts> parts = GetReduceParts(instr);
  if (!parts) return;
  const Shape& input = parts->inputs[0]->shape;
  if (HasTiles(input) || prefusion::HasDescendingLayout(input)) return;
  for (const Instruction* i : parts->inputs) {
    if (HasTiles(i->shape) || i->shape.MinorToMajor() != input.MinorToMajor())
      return;
  }
  for (const Shape& o : parts->outputs) {
    if (HasTiles(o)) return;
  }
  const int rank = input.rank();
  const std::vector<int64_t> m2m = input.MinorToMajor();
  std::vector<int64_t> physical(m2m.rbegin(), m2m.rend());  // major first
  std::vector<int64_t> dims, reduced, kept_physical;
  for (int j = 0; j < rank; ++j) {
    dims.push_back(input.dims[physical[j]]);
    if (IsReducedDim(instr, physical[j])) {
      reduced.push_back(j);
    } else {
      kept_physical.push_back(physical[j]);
    }
  }
  std::vector<std::string> lines;
  std::vector<Shape> in_shapes, normal_in, normal_out;
  for (const Instruction* i : parts->inputs) {
    in_shapes.push_back(i->shape);
    normal_in.push_back(prefusion::ArrayShape(
        i->shape.type, dims, prefusion::DescendingLayout(rank)));
  }
  std::vector<std::string> names =
      ReshapeAll(instr, InputNames(*parts), in_shapes, normal_in, "normalized",
                 edit, &lines, Reinterpret::kPhysical);
  std::vector<int64_t> out_dims;
  for (int64_t d : kept_physical) out_dims.push_back(input.dims[d]);
  for (const Shape& o : parts->outputs) {
    normal_out.push_back(prefusion::ArrayShape(
        o.type, out_dims,
        prefusion::DescendingLayout(static_cast<int>(out_dims.size()))));
  }
  // The output's dims in logical order read the normalized output's dims
  // in physical order: a transpose (a bitcast where the layouts agree).
  std::vector<int64_t> kept_logical;
  for (int d = 0; d < rank; ++d) {
    if (!IsReducedDim(instr, d)) kept_logical.push_back(d);
  }
  std::vector<int64_t> permutation;
  for (int64_t d : kept_logical) {
    permutation.push_back(
        std::find(kept_physical.begin(), kept_physical.end(), d) -
        kept_physical.begin());
  }
  const std::string reduce_name = edit->NewName(instr, "normalized");
  std::vector<std::string> elements;
  for (const std::string& l : ReduceLines(instr, reduce_name, names, normal_out,
                                          reduced, edit, &elements)) {
    lines.push_back(l);
  }
  std::vector<std::string> results;
  for (size_t i = 0; i < elements.size(); ++i) {
    const Shape& want = parts->outputs[i];
    const bool single = elements.size() == 1;
    const std::string n =
        single ? NameOf(instr) : edit->NewName(instr, "restore");
    if (emitters::TransposeIsBitcast(normal_out[i], want, permutation)) {
      lines.push_back(Line(n, want, "bitcast", {elements[i]}));
    } else {
      lines.push_back(Line(n, want, "transpose", {elements[i]},
                           "dimensions=" + IntList(permutation)));
    }
    results.push_back(n);
  }
  if (results.size() > 1) FinishReduce(instr, results, &lines);
  edit->Replace(&instr, std::move(lines));
  rewrites->push_back({"ReductionLayoutNormalizer", instr.name,
                       "reduces " + normal_in[0].ToString(true) +
                           " (the operand in its physical order) over "
                           "dimensions " +
                           IntList(reduced)});
}

void GroupDimensions(const Instruction& instr, ModuleEdit* edit,
                     std::vector<PrefusionRewrite>* rewrites) {
  const std::optional<ReduceParts> parts = GetReduceParts(instr);
  if (!parts) return;
  const Shape& input = parts->inputs[0]->shape;
  if (!prefusion::HasDescendingLayout(input)) return;
  std::vector<int64_t> dims, reduced;
  bool grouped = false;
  for (int d = 0; d < input.rank(); ++d) {
    const bool is_reduced = IsReducedDim(instr, d);
    if (is_reduced && d > 0 && IsReducedDim(instr, d - 1)) {
      dims.back() *= input.dims[d];
      grouped = true;
      continue;
    }
    if (is_reduced) reduced.push_back(static_cast<int64_t>(dims.size()));
    dims.push_back(input.dims[d]);
  }
  if (!grouped) return;
  std::vector<std::string> lines;
  std::vector<Shape> in_shapes, grouped_in;
  for (const Instruction* i : parts->inputs) {
    if (!prefusion::HasDescendingLayout(i->shape)) return;
    in_shapes.push_back(i->shape);
    grouped_in.push_back(prefusion::ArrayShape(
        i->shape.type, dims,
        prefusion::DescendingLayout(static_cast<int>(dims.size()))));
  }
  std::vector<std::string> names =
      ReshapeAll(instr, InputNames(*parts), in_shapes, grouped_in, "grouped",
                 edit, &lines);
  for (const std::string& l :
       ReduceLines(instr, NameOf(instr), names, parts->outputs, reduced, edit,
                   nullptr)) {
    lines.push_back(l);
  }
  edit->Replace(&instr, std::move(lines));
  rewrites->push_back({"ReductionDimensionGrouper", instr.name,
                       "adjacent reduced dims merged: reduces " +
                           grouped_in[0].ToString() + " over dimensions " +
                           IntList(reduced)});
}

void SplitReduction(const Instruction& instr, ModuleEdit* edit,
                    std::vector<PrefusionRewrite>* rewrites) {
  const std::optional<ReduceParts> parts = GetReduceParts(instr);
  if (!parts || parts->inputs.size() != 1) return;  // variadic: left alone
  const Shape& input = parts->inputs[0]->shape;
  if (HasTiles(input) || instr.dimensions.size() < 2 ||
      input.ElementCount() == 0) {
    return;
  }
  if (emitters::IsContiguousReduction(instr)) return;
  // The largest reduced dim first (the first of equals), alone.
  int64_t max_dim = instr.dimensions[0];
  for (int64_t d : instr.dimensions) {
    if (input.dims[d] > input.dims[max_dim]) max_dim = d;
  }
  std::vector<int64_t> dims;
  std::vector<int64_t> m2m;
  for (int d = 0; d < input.rank(); ++d) {
    if (d != max_dim) dims.push_back(input.dims[d]);
  }
  for (int64_t d : input.MinorToMajor()) {
    if (d != max_dim) m2m.push_back(d > max_dim ? d - 1 : d);
  }
  const Shape first =
      prefusion::ArrayShape(parts->outputs[0].type, dims, std::move(m2m));
  std::vector<int64_t> rest;
  for (int64_t d : instr.dimensions) {
    if (d != max_dim) rest.push_back(d > max_dim ? d - 1 : d);
  }
  std::sort(rest.begin(), rest.end());
  const std::string first_name = edit->NewName(instr, "split");
  std::vector<std::string> lines =
      ReduceLines(instr, first_name, {NameOf(*parts->inputs[0])}, {first},
                  {max_dim}, edit, nullptr);
  for (const std::string& l :
       ReduceLines(instr, NameOf(instr), {first_name}, parts->outputs, rest,
                   edit, nullptr)) {
    lines.push_back(l);
  }
  edit->Replace(&instr, std::move(lines));
  rewrites->push_back({"ReductionSplitter", instr.name,
                       "reduces dimension " + std::to_string(max_dim) +
                           " (size " + std::to_string(input.dims[max_dim]) +
                           ") first, then dimensions " + IntList(rest) +
                           " of the result"});
}

}  // namespace

Result<PassResult> RemoveReductionDegenerateDims(const hlo::Module& module) {
  return RunPassOnce(module, "ReductionDegenerateDimRemover", kReduceBodies,
                     RemoveDegenerateDims);
}

Result<PassResult> NormalizeReductionLayouts(const hlo::Module& module) {
  return RunPassOnce(module, "ReductionLayoutNormalizer", kReduceBodies,
                     NormalizeLayout);
}

Result<PassResult> GroupReductionDimensions(const hlo::Module& module) {
  return RunPassOnce(module, "ReductionDimensionGrouper", kReduceBodies,
                     GroupDimensions);
}

Result<PassResult> SplitReductions(const hlo::Module& module) {
  return RunPassOnce(module, "ReductionSplitter", kReduceBodies,
                     SplitReduction);
}

}  // namespace ixa
