// The tiled-transpose description (docs/xla-reference.md §(h) h.4): XLA's
// GetDescriptionForTiledTransposeEmitter with the normalisation of
// ShapeUtil::GetNormalizedTransposeShape at the pinned revision.
#include <algorithm>

#include "analysis/emitters/internal.h"
#include "core/int_math.h"

namespace ixa::emitters {
namespace {

constexpr int64_t kMinDimensionToTransposeTiled = 16;
constexpr int64_t kMinDimensionToTransposeTiled2 = 8;
constexpr int64_t kMinTotalDimensionsToTransposeTiled = 64 * 128;
// Generalized form: a kept most-minor dim of at most this many bits is
// carried whole in the tile, when it and the smaller tiled dim hold at
// least kMinKeptMinorTileBits (XLA's later GetDescriptionForTiledTranspose
// Emitter).
constexpr int64_t kMaxBitsInKeptMinorDim = 64;
constexpr int64_t kMinKeptMinorTileBits = 8 * kMinDimensionToTransposeTiled;

bool IsDefaultUntiledLayout(const hlo::Shape& s) {
  const std::vector<int64_t> m2m = s.MinorToMajor();
  for (int i = 0; i < s.rank(); ++i) {
    if (m2m[i] != s.rank() - 1 - i) return false;
  }
  return !s.layout || s.layout->tiles.empty();
}

bool SwappedDimsLargeEnough(int64_t a, int64_t b) {
  return (a >= kMinDimensionToTransposeTiled &&
          b >= kMinDimensionToTransposeTiled) ||
         (a >= kMinDimensionToTransposeTiled2 &&
          b >= kMinDimensionToTransposeTiled2 &&
          SaturatingMul(a, b) >= kMinTotalDimensionsToTransposeTiled);
}

// Normalises a transpose given per input position its size and its output
// position (`p`, a permutation). Returns the normalised output dims and
// the permutation ({0, 2, 1} or {2, 1, 0}), or nothing.
// The generalized form of a transpose of `runs` (input order) whose output
// position j holds run order[j], when 021 and 210 do not describe it: 102
// and everything with more than 3 runs. Tiles the input's most-minor run
// against the run that becomes the output's most-minor; a most-minor run
// that stays most-minor (the kept minor) must be small and is carried whole.
std::optional<TransposeDescription> Generalized(
    const std::vector<int64_t>& runs, const std::vector<int64_t>& order,
    int bits) {
  const int64_t r = static_cast<int64_t>(runs.size());
  // Sub-byte types are packed in memory; their tiles would be too.
  if (r < 3 || bits < 8) return std::nullopt;
  TransposeDescription d;
  d.generalized = true;
  d.permutation = order;
  d.input_dims = runs;
  for (int64_t j = 0; j < r; ++j) d.dims.push_back(runs[order[j]]);
  d.kept_minor = order[r - 1] == r - 1;
  d.tiled_input_minor = d.kept_minor ? r - 2 : r - 1;
  d.tiled_output_minor = order[d.kept_minor ? r - 2 : r - 1];
  const int64_t a = runs[d.tiled_input_minor];
  const int64_t b = runs[d.tiled_output_minor];
  if (d.kept_minor) {
    const int64_t kept_bits = SaturatingMul(runs[r - 1], bits);
    if (kept_bits > kMaxBitsInKeptMinorDim) return std::nullopt;
    if (SaturatingMul(kept_bits, std::min(a, b)) < kMinKeptMinorTileBits) {
      return std::nullopt;
    }
    return d;
  }
  if (!SwappedDimsLargeEnough(a, b)) return std::nullopt;
  return d;
}

std::optional<TransposeDescription> Normalise(const std::vector<int64_t>& sizes,
                                              const std::vector<int64_t>& p,
                                              int bits) {
  // Maximal runs of input positions whose output positions are consecutive.
  std::vector<int64_t> run_sizes, run_outputs;
  for (size_t i = 0; i < p.size(); ++i) {
    if (i > 0 && p[i] == p[i - 1] + 1) {
      // Saturating: an unbounded dim (`?`) is INT64_MAX.
      run_sizes.back() = SaturatingMul(run_sizes.back(), sizes[i]);
    } else {
      run_sizes.push_back(sizes[i]);
      run_outputs.push_back(p[i]);
    }
  }
  const size_t runs = run_sizes.size();
  if (runs <= 1) return std::nullopt;
  // perm[j] = the input run at output position j.
  std::vector<int64_t> order(runs);
  for (size_t r = 0; r < runs; ++r) order[r] = static_cast<int64_t>(r);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return run_outputs[a] < run_outputs[b];
  });
  if (runs > 3) return Generalized(run_sizes, order, bits);
  auto describe = [](std::vector<int64_t> n, std::vector<int64_t> perm) {
    TransposeDescription d;
    d.dims = {n[perm[0]], n[perm[1]], n[perm[2]]};
    d.permutation = std::move(perm);
    return d;
  };
  std::vector<TransposeDescription> candidates;
  if (runs == 2) {
    // 021: a size-1 run in front; 210: in the middle.
    candidates.push_back(describe({1, run_sizes[0], run_sizes[1]}, {0, 2, 1}));
    candidates.push_back(describe({run_sizes[0], 1, run_sizes[1]}, {2, 1, 0}));
  } else if (order == std::vector<int64_t>{0, 2, 1} ||
             order == std::vector<int64_t>{2, 1, 0}) {
    candidates.push_back(describe(run_sizes, order));
  }
  for (TransposeDescription& d : candidates) {
    const bool is_021 = d.permutation == std::vector<int64_t>{0, 2, 1};
    const int64_t a = is_021 ? d.dims[1] : d.dims[0];
    if (SwappedDimsLargeEnough(a, d.dims[2])) return d;
  }
  if (runs == 3 && order == std::vector<int64_t>{1, 0, 2}) {
    return Generalized(run_sizes, order, bits);
  }
  return std::nullopt;
}

}  // namespace

std::optional<TransposeDescription> TiledTransposeDescription(
    const Instruction& root, const Instruction& hero) {
  if (hero.opcode != hlo::Opcode::kTranspose &&
      hero.opcode != hlo::Opcode::kCopy)
    return std::nullopt;
  if (hero.operand_count() != 1) return std::nullopt;
  if (hero.shape.type == hlo::ElementType::kF32 &&
      root.shape.type == hlo::ElementType::kS8) {
    return std::nullopt;
  }
  const hlo::Shape& in = hero.operand(0)->shape;
  const hlo::Shape& out = hero.shape;
  if (!in.IsArray() || !out.IsArray() || in.rank() != out.rank()) {
    return std::nullopt;
  }
  std::vector<int64_t> sizes, p;
  if (hero.opcode == hlo::Opcode::kTranspose) {
    // Logical: default layouts, size-1 dims dropped.
    if (!IsDefaultUntiledLayout(in) || !IsDefaultUntiledLayout(out))
      return std::nullopt;
    if (static_cast<int>(hero.dimensions.size()) != out.rank()) {
      return std::nullopt;
    }
    // Output position of every kept input dim, renumbered.
    std::vector<int64_t> out_pos(in.rank(), -1);
    int64_t next = 0;
    for (int j = 0; j < out.rank(); ++j) {
      if (out.dims[j] == 1) continue;
      out_pos[hero.dimensions[j]] = next++;
    }
    for (int i = 0; i < in.rank(); ++i) {
      if (in.dims[i] == 1) continue;
      sizes.push_back(in.dims[i]);
      p.push_back(out_pos[i]);
    }
  } else {
    // Physical: a copy changing the layout; no dims dropped.
    if (in.dims != out.dims) return std::nullopt;
    const std::vector<int64_t> in_m2m = in.MinorToMajor();
    const std::vector<int64_t> out_m2m = out.MinorToMajor();
    if (in_m2m == out_m2m) return std::nullopt;
    const int rank = in.rank();
    for (int k = 0; k < rank; ++k) {
      const int64_t dim = in_m2m[rank - 1 - k];
      auto it = std::find(out_m2m.begin(), out_m2m.end(), dim);
      sizes.push_back(in.dims[dim]);
      p.push_back(rank - 1 - (it - out_m2m.begin()));
    }
  }
  return Normalise(sizes, p, hlo::ElementBits(hero.shape.type));
}

}  // namespace ixa::emitters
