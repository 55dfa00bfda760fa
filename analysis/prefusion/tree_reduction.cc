// XLA's TreeReductionRewriter: a row or column reduction past its
// race-free bound becomes two reductions, each within its bound (a
// reduction that is still too long is split again, to a fixpoint).
#include <algorithm>
#include <cmath>

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

bool IsPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

int64_t TreeReductionPadding(int64_t k, int64_t i) { return (i - k % i) % i; }

// `shape` with dim `dim` removed (layout kept on the others).
Shape WithoutDim(const Shape& shape, int64_t dim, hlo::ElementType type) {
  std::vector<int64_t> dims, m2m;
  for (int d = 0; d < shape.rank(); ++d) {
    if (d != dim) dims.push_back(shape.dims[d]);
  }
  for (int64_t d : shape.MinorToMajor()) {
    if (d != dim) m2m.push_back(d > dim ? d - 1 : d);
  }
  return prefusion::ArrayShape(type, std::move(dims), std::move(m2m));
}

std::vector<std::string> Names(const std::vector<const Instruction*>& v) {
  std::vector<std::string> out;
  for (const Instruction* i : v) out.push_back(NameOf(*i));
  return out;
}

// The batch of a row reduction is past its bound: the minor reduced dim
// first, then the batch.
void RewriteBatch(const Instruction& instr, const ReduceParts& parts,
                  const std::vector<int64_t>& reduced, ModuleEdit* edit,
                  std::vector<PrefusionRewrite>* rewrites) {
  const Shape& input = parts.inputs[0]->shape;
  const int64_t minor = reduced.back(), batch = reduced.front();
  std::vector<Shape> inner;
  for (size_t i = 0; i < parts.inputs.size(); ++i) {
    inner.push_back(WithoutDim(input, minor, parts.outputs[i].type));
  }
  const std::string inner_name = edit->NewName(instr, "tree");
  std::vector<std::string> elements;
  std::vector<std::string> lines = ReduceLines(
      instr, inner_name, Names(parts.inputs), inner, {minor}, edit, &elements);
  for (const std::string& l :
       ReduceLines(instr, NameOf(instr), elements, parts.outputs, {batch}, edit,
                   nullptr)) {
    lines.push_back(l);
  }
  edit->Replace(&instr, std::move(lines));
  rewrites->push_back({"TreeReductionRewriter", instr.name,
                       "batch of " + std::to_string(input.dims[batch]) +
                           " rows past " +
                           std::to_string(kBatchedReductionRaceFreeBound) +
                           ": reduces dimension " + std::to_string(minor) +
                           " first, then dimension " + std::to_string(batch)});
}

void RewriteTreeReduction(const Instruction& instr, ModuleEdit* edit,
                          std::vector<PrefusionRewrite>* rewrites) {
  const std::optional<ReduceParts> parts = GetReduceParts(instr);
  if (!parts) return;
  const Shape& input = parts->inputs[0]->shape;
  if (!prefusion::HasDescendingLayout(input)) return;
  for (const Instruction* i : parts->inputs) {
    if (!prefusion::HasDescendingLayout(i->shape)) return;
  }
  if (!emitters::IsContiguousReduction(instr)) return;
  const emitters::ReductionDims rd = emitters::GetReductionDims(instr);
  if (emitters::ReductionIsRaceFree(rd)) return;
  std::vector<int64_t> reduced = instr.dimensions;
  std::sort(reduced.begin(), reduced.end());
  if (reduced.empty() || reduced.size() > 2) return;
  if (rd.is_row && rd.dims[0] > kBatchedReductionRaceFreeBound) {
    if (reduced.size() == 2)
      RewriteBatch(instr, *parts, reduced, edit, rewrites);
    return;
  }
  const int64_t dim = reduced.back();
  const int64_t k = input.dims[dim];
  const auto [k1, k2] = TreeReductionFactors(k, rd.is_row);
  const int64_t padded = k1 * k2;
  std::vector<std::string> lines;
  std::vector<std::string> names = Names(parts->inputs);
  const int rank = input.rank();
  // Pad the reduced dim with the init to k1 * k2.
  if (padded != k) {
    std::string config;
    for (int d = 0; d < rank; ++d) {
      config += (d ? "x0_" : "0_") + std::to_string(d == dim ? padded - k : 0);
    }
    std::vector<int64_t> dims = input.dims;
    dims[dim] = padded;
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string n = edit->NewName(instr, "padded");
      lines.push_back(Line(
          n,
          prefusion::ArrayShape(parts->inputs[i]->shape.type, dims,
                                prefusion::DescendingLayout(rank)),
          "pad", {names[i], NameOf(*parts->inits[i])}, "padding=" + config));
      names[i] = n;
    }
  }
  // [.., k, ..] -> [.., k1, k2, ..]: a bitcast of the row-major operand.
  std::vector<int64_t> split;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) {
      split.push_back(k1);
      split.push_back(k2);
    } else {
      split.push_back(input.dims[d]);
    }
  }
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string n = edit->NewName(instr, "reshaped");
    lines.push_back(
        Line(n,
             prefusion::ArrayShape(parts->inputs[i]->shape.type, split,
                                   prefusion::DescendingLayout(rank + 1)),
             "bitcast", {names[i]}));
    names[i] = n;
  }
  // Reduce k2 (with the other reduced dim), then k1.
  std::vector<int64_t> inner_dims;
  for (int64_t d : reduced) inner_dims.push_back(d == dim ? d + 1 : d);
  std::vector<int64_t> inner_out;
  for (int d = 0; d < rank + 1; ++d) {
    if (std::find(inner_dims.begin(), inner_dims.end(), d) ==
        inner_dims.end()) {
      inner_out.push_back(split[d]);
    }
  }
  const int64_t outer_dim = dim - static_cast<int64_t>(reduced.size() - 1);
  std::vector<Shape> inner;
  for (const Shape& o : parts->outputs) {
    inner.push_back(prefusion::ArrayShape(
        o.type, inner_out,
        prefusion::DescendingLayout(static_cast<int>(inner_out.size()))));
  }
  const std::string inner_name = edit->NewName(instr, "tree");
  std::vector<std::string> elements;
  for (const std::string& l : ReduceLines(instr, inner_name, names, inner,
                                          inner_dims, edit, &elements)) {
    lines.push_back(l);
  }
  for (const std::string& l :
       ReduceLines(instr, NameOf(instr), elements, parts->outputs, {outer_dim},
                   edit, nullptr)) {
    lines.push_back(l);
  }
  edit->Replace(&instr, std::move(lines));
  std::string what = std::string(rd.is_row ? "row" : "column") +
                     " reduction of " + std::to_string(k) + " split as " +
                     std::to_string(k1) + " x " + std::to_string(k2);
  what += padded != k ? " (padded by " + std::to_string(padded - k) + ")"
                      : " (no padding)";
  rewrites->push_back({"TreeReductionRewriter", instr.name, what});
}

}  // namespace

std::pair<int64_t, int64_t> TreeReductionFactors(int64_t k, bool is_row) {
  const int64_t bound =
      is_row ? kRowReductionRaceFreeBound : kColumnReductionRaceFreeBound;
  int64_t k2 = static_cast<int64_t>(std::sqrt(static_cast<double>(k)));
  // sqrt in double can be off by one for large k.
  while (k2 > 1 && k2 * k2 > k) --k2;
  while ((k2 + 1) * (k2 + 1) <= k) ++k2;
  k2 = std::max<int64_t>(1, std::min(k2, bound));
  int64_t best = TreeReductionPadding(k, k2);
  for (int64_t i = k2 - 1; i > k2 / 2; --i) {
    const int64_t p = TreeReductionPadding(k, i);
    if (p < best || (p == best && IsPowerOfTwo(i))) {
      best = p;
      k2 = i;
    }
  }
  int64_t k1 = (k + best) / k2;
  const int64_t smaller = std::min(k1, k2), larger = std::max(k1, k2);
  bool swap = larger <= bound;
  if (swap && is_row) {
    if (smaller % 2 == 0 && k % 2 == 0) {
      swap = 2 * smaller < larger || larger % 2 == 0;
    } else {
      swap = k % 2 == 0 || larger % 2 == 1;
    }
  }
  if (swap) std::swap(k1, k2);
  return {k1, k2};
}

Result<PassResult> RewriteTreeReductions(const hlo::Module& module) {
  return prefusion::RunPassOnce(module, "TreeReductionRewriter",
                                prefusion::FusionBodies::kRewriteLoopAndInput,
                                RewriteTreeReduction);
}

}  // namespace ixa
