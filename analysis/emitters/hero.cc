// Hero analysis and the emitter kind (docs/xla-reference.md §(h) h.2, h.3):
// XLA's FindNonTrivialHero, IsRealReductionHero and
// HloFusionAnalysis::ComputeEmitterFusionKind at the pinned revision.
#include <algorithm>
#include <climits>
#include <deque>

#include "analysis/emitters/internal.h"
#include "core/int_math.h"

namespace ixa::emitters {
namespace {

using hlo::Opcode;

// XLA's GetBitwidth: pred counts 8.
int Bits(hlo::ElementType type) { return hlo::ElementBits(type); }

void MinArrayBits(const hlo::Shape& shape, int* bits) {
  if (shape.IsTuple()) {
    for (const hlo::Shape& s : shape.tuple_elements) MinArrayBits(s, bits);
    return;
  }
  if (!shape.IsArray()) return;
  const int b = Bits(shape.type);
  if (b > 0) *bits = std::min(*bits, b);
}

// Positions of `dims` in the layout's minor_to_major, sorted, are
// consecutive (LayoutUtil::AreDimensionsConsecutive).
bool AreDimensionsConsecutive(const hlo::Shape& shape,
                              std::span<const int64_t> dims) {
  const std::vector<int64_t> m2m = shape.MinorToMajor();
  std::vector<int64_t> positions;
  for (int64_t d : dims) {
    auto it = std::find(m2m.begin(), m2m.end(), d);
    positions.push_back(it - m2m.begin());
  }
  std::sort(positions.begin(), positions.end());
  for (size_t i = 1; i < positions.size(); ++i) {
    if (positions[i] - positions[i - 1] != 1) return false;
  }
  return true;
}

// PartitionShapeByMiddleDimensions: products of the dims minor to, in and
// major to the consecutive group `middle`, as (major, middle, minor).
std::array<int64_t, 3> PartitionByMiddle(const hlo::Shape& shape,
                                         std::span<const int64_t> middle) {
  std::array<int64_t, 3> values = {1, 1, 1};
  enum { kMajor = 0, kMiddle = 1, kMinor = 2 };
  int segment = kMinor;
  for (int64_t d : shape.MinorToMajor()) {
    const bool in_middle =
        std::find(middle.begin(), middle.end(), d) != middle.end();
    if (segment == kMinor && in_middle) segment = kMiddle;
    if (segment == kMiddle && !in_middle) segment = kMajor;
    // Saturating: an unbounded dim (`?`) is INT64_MAX.
    values[segment] = SaturatingMul(values[segment], shape.dims[d]);
  }
  return values;
}

std::vector<int64_t> KeptDims(const Instruction& reduce) {
  std::vector<int64_t> kept;
  const int rank = reduce.operand(0)->shape.rank();
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(reduce.dimensions.begin(), reduce.dimensions.end(), d) ==
        reduce.dimensions.end()) {
      kept.push_back(d);
    }
  }
  return kept;
}

bool IsUnnestedReductionFasterThanElemental(const ReductionDims& r) {
  constexpr int64_t kWarp = 32;
  if (r.is_row) return r.dims[2] >= kWarp || kWarp % r.dims[2] == 0;
  const int64_t major = r.dims[1], minor = r.dims[2];
  const bool prefer_elemental =
      major < kWarp || (major < 2 * kWarp && minor < kWarp) ||
      (major < 4 * kWarp && minor < 8) || (major < 8 * kWarp && minor < 3);
  return !prefer_elemental;
}

// The BFS of FindNonTrivialHero(root, predicate): the one node matching
// `is_hero` reached from `start` through intermediates with 1-3 operands,
// none when there are two; then no non-trivial node may be reachable
// through the hero's users.
const Instruction* SearchHero(
    const FusionInfo& info, const Instruction* start,
    const std::function<bool(const Instruction&)>& is_hero) {
  const Instruction* hero = nullptr;
  std::deque<const Instruction*> queue = {start};
  std::unordered_set<const Instruction*> seen = {start};
  while (!queue.empty()) {
    const Instruction* node = queue.front();
    queue.pop_front();
    if (is_hero(*node)) {
      if (hero) return nullptr;  // two candidates
      hero = node;
      continue;  // the search does not pass a candidate
    }
    if (!IsIntermediate(*node, 3)) continue;
    for (const Instruction* o : node->operands) {
      if (info.IsInside(o) && seen.insert(o).second) queue.push_back(o);
    }
  }
  if (!hero) return nullptr;
  std::deque<const Instruction*> users;
  std::unordered_set<const Instruction*> visited;
  for (const Instruction* u : info.UsersInside(hero)) {
    if (visited.insert(u).second) users.push_back(u);
  }
  while (!users.empty()) {
    const Instruction* node = users.front();
    users.pop_front();
    if (node->opcode != Opcode::kTuple && node->opcode != Opcode::kParameter &&
        !IsIntermediate(*node, 3)) {
      return nullptr;
    }
    for (const Instruction* u : info.UsersInside(node)) {
      if (visited.insert(u).second) users.push_back(u);
    }
  }
  return hero;
}

const Instruction* FindHero(const FusionInfo& info, const Instruction* root) {
  const Instruction* h = root;
  while (IsIntermediate(*h, 1) && info.IsInside(h->operand(0))) {
    h = h->operand(0);
  }
  auto is_transpose = [](const Instruction& node) {
    return TiledTransposeDescription(node, node).has_value();
  };
  if (const Instruction* t = SearchHero(info, h, is_transpose)) return t;
  auto is_concat = [](const Instruction& node) {
    return node.opcode == Opcode::kConcatenate;
  };
  if (const Instruction* c = SearchHero(info, h, is_concat)) return c;
  return h->opcode == Opcode::kReduce ? h : root;
}

bool AreReductionsCompatible(const Instruction& a, const Instruction& b) {
  return GetReductionDims(a) == GetReductionDims(b);
}

}  // namespace

void FlattenRoots(const Instruction* instr,
                  std::vector<const Instruction*>* out) {
  if (instr->opcode == Opcode::kTuple) {
    for (const Instruction* o : instr->operands) FlattenRoots(o, out);
    return;
  }
  out->push_back(instr);
}

bool FusionInfo::IsInside(const Instruction* instr) const {
  return members.count(instr) > 0 && parameters.count(instr) == 0 &&
         instr->opcode != Opcode::kParameter;
}

std::vector<const Instruction*> FusionInfo::UsersInside(
    const Instruction* instr) const {
  std::vector<const Instruction*> out;
  for (const Instruction* u : instr->users) {
    if (members.count(u) && !parameters.count(u)) out.push_back(u);
  }
  return out;
}

int FusionInfo::ParameterIndex(const Instruction* instr) const {
  const auto& params = region->parameters;
  auto it = std::find(params.begin(), params.end(), instr);
  return it == params.end() ? -1 : static_cast<int>(it - params.begin());
}

FusionInfo AnalyzeFusion(const FusionRegion& region) {
  FusionInfo info;
  info.region = &region;
  FlattenRoots(region.root, &info.roots);
  info.members.insert(region.members.begin(), region.members.end());
  info.parameters.insert(region.parameters.begin(), region.parameters.end());
  info.bits_in = INT_MAX;
  info.bits_out = INT_MAX;
  for (const Instruction* p : region.parameters) {
    MinArrayBits(p->shape, &info.bits_in);
  }
  for (const Instruction* r : info.roots)
    MinArrayBits(r->shape, &info.bits_out);
  for (const Instruction* r : info.roots) {
    info.heroes.push_back(info.IsInside(r) ? FindHero(info, r) : r);
  }
  return info;
}

bool ReshapeIsBitcast(const hlo::Shape& from, const hlo::Shape& to) {
  if (!from.IsArray() || !to.IsArray()) return false;
  // Unbounded dims (`?`) have no size to lay offsets out with.
  if (from.HasUnboundedDim() || to.HasUnboundedDim()) return false;
  if (from.ElementCount() != to.ElementCount()) return false;
  if (from.ElementCount() == 0) return true;
  auto tiles = [](const hlo::Shape& s) {
    return s.layout ? s.layout->tiles : std::vector<hlo::Tile>();
  };
  if (tiles(from) != tiles(to)) return false;
  // The physical offset of every unit index must survive the row-major
  // reshape, in both directions (XLA's proof: that suffices).
  auto physical_offset = [](const hlo::Shape& s,
                            const std::vector<int64_t>& index) {
    int64_t offset = 0, stride = 1;
    for (int64_t d : s.MinorToMajor()) {
      offset += index[d] * stride;
      stride *= s.dims[d];
    }
    return offset;
  };
  auto check = [&](const hlo::Shape& a, const hlo::Shape& b) {
    for (int i = 0; i < a.rank(); ++i) {
      if (a.dims[i] <= 1) continue;
      std::vector<int64_t> unit(a.rank(), 0);
      unit[i] = 1;
      // Row-major logical linear index of the unit index in a.
      int64_t linear = 1;
      for (int k = i + 1; k < a.rank(); ++k) linear *= a.dims[k];
      std::vector<int64_t> in_b(b.rank(), 0);
      for (int k = b.rank() - 1; k >= 0; --k) {
        in_b[k] = linear % b.dims[k];
        linear /= b.dims[k];
      }
      if (physical_offset(a, unit) != physical_offset(b, in_b)) return false;
    }
    return true;
  };
  return check(from, to) && check(to, from);
}

bool TransposeIsBitcast(const hlo::Shape& from, const hlo::Shape& to,
                        std::span<const int64_t> dimensions) {
  if (!from.IsArray() || !to.IsArray() || from.rank() != to.rank() ||
      static_cast<int>(dimensions.size()) != to.rank()) {
    return false;
  }
  const std::vector<int64_t> in_m2m = from.MinorToMajor();
  const std::vector<int64_t> out_m2m = to.MinorToMajor();
  for (size_t k = 0; k < out_m2m.size(); ++k) {
    if (dimensions[out_m2m[k]] != in_m2m[k]) return false;
  }
  return true;
}

bool IsReshapeOrTransposeBitcast(const hlo::Shape& a, const hlo::Shape& b) {
  if (!a.IsArray() || !b.IsArray()) return false;
  if (a.dims == b.dims && a.MinorToMajor() == b.MinorToMajor()) return true;
  if (ReshapeIsBitcast(a, b)) return true;
  // A transpose bitcast: the same dims in the same physical order.
  return a.rank() == b.rank() && a.PhysicalDims() == b.PhysicalDims();
}

bool IsIntermediate(const Instruction& instr, int max_operands) {
  if (instr.operand_count() == 0 || instr.operand_count() > max_operands) {
    return false;
  }
  if (hlo::IsElementwiseOpcode(instr.opcode)) {
    if (instr.opcode == Opcode::kCopy) {
      return instr.shape.Compatible(instr.operand(0)->shape) &&
             instr.shape.MinorToMajor() ==
                 instr.operand(0)->shape.MinorToMajor() &&
             (instr.shape.layout ? instr.shape.layout->tiles
                                 : std::vector<hlo::Tile>()) ==
                 (instr.operand(0)->shape.layout
                      ? instr.operand(0)->shape.layout->tiles
                      : std::vector<hlo::Tile>());
    }
    return true;
  }
  if (instr.opcode == Opcode::kBitcast) return true;
  if (instr.opcode == Opcode::kReshape) {
    return ReshapeIsBitcast(instr.operand(0)->shape, instr.shape);
  }
  if (instr.opcode == Opcode::kTranspose) {
    return TransposeIsBitcast(instr.operand(0)->shape, instr.shape,
                              instr.dimensions);
  }
  return false;
}

ReductionDims GetReductionDims(const Instruction& reduce) {
  const hlo::Shape& input = reduce.operand(0)->shape;
  const std::vector<int64_t> kept = KeptDims(reduce);
  if (kept.empty()) return {true, {1, 1, input.ElementCount()}};
  if (AreDimensionsConsecutive(input, kept)) {
    auto [major, middle, minor] = PartitionByMiddle(input, kept);
    if (middle == 1) return {true, {1, 1, major * minor}};
    if (minor == 1) return {false, {1, major, middle}};
    return {true, {major, middle, minor}};
  }
  auto [major, middle, minor] = PartitionByMiddle(input, reduce.dimensions);
  if (minor == 1) return {true, {1, major, middle}};
  return {false, {major, middle, minor}};
}

bool IsContiguousReduction(const Instruction& instr) {
  if (instr.opcode != Opcode::kReduce || instr.operand_count() < 2)
    return false;
  const hlo::Shape& input = instr.operand(0)->shape;
  // An empty reduction has nothing for the reduction emitters to do.
  if (!input.IsArray() || input.ElementCount() == 0) return false;
  const std::vector<int64_t> kept = KeptDims(instr);
  return (AreDimensionsConsecutive(input, kept) ||
          AreDimensionsConsecutive(input, instr.dimensions)) &&
         IsUnnestedReductionFasterThanElemental(GetReductionDims(instr));
}

bool ReductionIsRaceFree(const ReductionDims& r) {
  // Row tiling {D0, 1, 16} with 1024 threads at most in x; column tiling
  // {1, 128, 1} over one warp of rows.
  if (r.is_row) return r.dims[2] <= 1024 * 16 && r.dims[0] <= 8;
  return r.dims[1] <= 32 * 128;
}

bool IsRealReductionHero(const Instruction& root, const Instruction& hero) {
  if (!IsContiguousReduction(hero)) return false;
  return &root == &hero || ReductionIsRaceFree(GetReductionDims(hero));
}

bool IsInputSlicesFusion(const FusionInfo& info) {
  if (info.roots.size() <= 1) return false;
  const hlo::Shape* shape = nullptr;
  for (const Instruction* r : info.roots) {
    if (r->opcode != Opcode::kSlice || !info.IsInside(r)) return false;
    for (const hlo::SliceDim& s : r->slice) {
      if (s.stride != 1) return false;
    }
    const hlo::Shape& operand = r->operand(0)->shape;
    if (shape && operand.dims != shape->dims) return false;
    shape = &operand;
  }
  return true;
}

KindChoice ChooseEmitterKind(const FusionInfo& info) {
  KindChoice choice;
  const auto& roots = info.roots;
  const auto& heroes = info.heroes;
  auto loop_or_dus = [&]() {
    choice.kind = InPlaceDynamicUpdateSlices(info).empty()
                      ? EmitterKind::kLoop
                      : EmitterKind::kInPlaceDynamicUpdateSlice;
    return choice;
  };
  // 1. Sub-byte types: only input slices and loop handle them in XLA;
  // ixa's scatter emitter handles them too (packed elements combine in
  // byte-wise atomic updates), and the loop emitter has no scatter.
  if (info.bits_in < 8 || info.bits_out < 8) {
    if (IsInputSlicesFusion(info)) {
      choice.kind = EmitterKind::kInputSlices;
      return choice;
    }
    if (roots.size() == 1 && roots[0]->opcode == Opcode::kScatter &&
        info.IsInside(roots[0])) {
      choice.kind = EmitterKind::kScatter;
      return choice;
    }
    return loop_or_dus();
  }
  // 2. Reduction.
  int first = -1;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (IsRealReductionHero(*roots[i], *heroes[i])) {
      first = static_cast<int>(i);
      break;
    }
  }
  if (first >= 0) {
    const Instruction* first_hero = heroes[first];
    const int64_t hero_elements = first_hero->operand(0)->shape.ElementCount();
    bool valid = true;
    for (size_t i = 0; i < roots.size() && valid; ++i) {
      if (roots[i] == first_hero) continue;
      if (!IsRealReductionHero(*roots[i], *heroes[i])) {
        valid = roots[i]->shape.IsArray() &&
                roots[i]->shape.ElementCount() == hero_elements;
      } else {
        valid = AreReductionsCompatible(*heroes[i], *first_hero);
      }
    }
    if (valid) {
      choice.kind = EmitterKind::kReduction;
      choice.first_reduction_root = first;
      return choice;
    }
  }
  // 3. Transpose: one consistent tiled transpose.
  std::optional<TransposeDescription> transpose;
  bool consistent = true;
  std::vector<const Instruction*> others;
  for (size_t i = 0; i < roots.size(); ++i) {
    auto d = TiledTransposeDescription(*roots[i], *heroes[i]);
    if (!d) {
      others.push_back(roots[i]);
      continue;
    }
    if (!transpose) {
      transpose = d;
      transpose->input_dims.clear();
    } else if (transpose->dims != d->dims ||
               transpose->permutation != d->permutation) {
      consistent = false;
    }
  }
  if (transpose && consistent) {
    // The transpose operand's shape: the first described hero's operand.
    const hlo::Shape* input = nullptr;
    for (size_t i = 0; i < roots.size() && !input; ++i) {
      if (TiledTransposeDescription(*roots[i], *heroes[i])) {
        input = &heroes[i]->operand(0)->shape;
      }
    }
    for (const Instruction* r : others) {
      if (!IsReshapeOrTransposeBitcast(r->shape, *input)) consistent = false;
    }
    if (consistent) {
      choice.kind = EmitterKind::kTranspose;
      choice.transpose = transpose;
      return choice;
    }
  }
  // 4. Several roots: input slices or loop.
  if (roots.size() > 1) {
    if (IsInputSlicesFusion(info)) {
      choice.kind = EmitterKind::kInputSlices;
      return choice;
    }
    return loop_or_dus();
  }
  // 5. Scatter.
  if (roots[0]->opcode == Opcode::kScatter && info.IsInside(roots[0])) {
    choice.kind = EmitterKind::kScatter;
    return choice;
  }
  // 6. Concatenate.
  if (heroes[0]->opcode == Opcode::kConcatenate &&
      heroes[0]->operand_count() <= 4 && !roots[0]->shape.IsTuple()) {
    choice.kind = EmitterKind::kConcatenate;
    return choice;
  }
  // 7. Loop, or in-place dynamic-update-slice.
  return loop_or_dus();
}

}  // namespace ixa::emitters

namespace ixa {

std::vector<const hlo::Instruction*> FusionRoots(const FusionRegion& region) {
  std::vector<const hlo::Instruction*> roots;
  if (region.root) emitters::FlattenRoots(region.root, &roots);
  return roots;
}

}  // namespace ixa
