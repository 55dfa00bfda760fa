// The `scan` op (XLA HEAD; docs/xla-reference.md §(d) lists it as "HEAD
// only" without maps).
//
// Our reading of the instruction, since docs/xla-reference.md pins no text
// form:
//
//   s = (f32[8,16], f32[16]) scan(f32[8,16] xs, f32[16] init),
//       dimensions={0}, to_apply=step [, is_reverse=true]
//
//   - `dimensions={d}` names the one scanned dimension of the scanned shape
//     S (the dims of operand 0; 8 steps above).
//   - The operands are the inputs (dims S), then the carries' initial
//     values (the inits: dims S without d, the "lanes"; a scalar when S has
//     rank 1). Each step i of lane l reads xs[.., i, ..] of every input and
//     the lane's carries, and writes one element of every per-step output
//     and the lane's new carries; `to_apply` computes one such step on
//     scalars (its body is not looked at).
//   - The outputs (a tuple, or one array) are per-step outputs (dims S,
//     element i of a lane written by step i) and final carries (dims S
//     without d: the carries after the last step, i = n - 1, or i = 0 with
//     is_reverse=true, which walks the steps from n - 1 down to 0).
//
// Maps (output -> operand), as XLA gives them: step i of a lane reads
// every input at the lane's index with i at d, and the carry, which
// descends from the inits at every step. So a per-step output element
// reads each input at its own index and each init at its lane (d dropped)
// over the whole output: every step's carry descends from the init, and
// XLA's map says so (for rank 1, `(d0) -> ()`). A final carry reads the
// inputs at its lane's last step, and the inits at its lane. The inputs'
// maps name direct reads, not the transitive dependence through the carry
// (output i also depends on inputs 0..i): that is what a fused producer is
// read at, and what coalescing and utilization count. Input -> output maps
// are the exact inverses. No min / max is needed: every map here is exact
// as a plain affine map with bounds.
#include <algorithm>

#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {
namespace {

struct ScanShape {
  int64_t dim = 0;             // the scanned dimension d
  std::vector<int64_t> dims;   // S
  std::vector<int64_t> lanes;  // S without d
  int num_inputs = 0;          // operands [0, num_inputs) are the inputs
  bool reverse = false;
  int64_t steps() const { return dims[dim]; }
  // The step that produces the final carries.
  int64_t last_step() const { return reverse ? 0 : steps() - 1; }
};

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

Result<ScanShape> ReadScan(const Instruction& in) {
  auto bad = [&](const std::string& why) {
    return Error::Invalid("'" + in.name + "' (scan): " + why);
  };
  ScanShape s;
  if (in.dimensions.size() != 1) {
    return bad("expected dimensions={d} naming the one scanned dimension");
  }
  if (in.operand_count() == 0 || !in.operand(0)->shape.IsArray()) {
    return bad("the first operand must be an array to scan");
  }
  s.dims = in.operand(0)->shape.dims;
  s.dim = in.dimensions[0];
  if (s.dim < 0 || s.dim >= static_cast<int64_t>(s.dims.size())) {
    return bad("the scanned dimension " + std::to_string(s.dim) +
               " is not a dimension of " + DimsText(s.dims));
  }
  s.lanes = s.dims;
  s.lanes.erase(s.lanes.begin() + s.dim);
  bool in_carries = false;
  for (int i = 0; i < in.operand_count(); ++i) {
    const hlo::Shape& shape = in.operand(i)->shape;
    bool input = shape.IsArray() && shape.dims == s.dims;
    bool carry = shape.IsArray() && shape.dims == s.lanes;
    if (input && !in_carries) {
      ++s.num_inputs;
    } else if (carry) {
      in_carries = true;
    } else {
      return bad("operand " + std::to_string(i) + " must be " +
                 (in_carries ? std::string("a carry ") + DimsText(s.lanes)
                             : "an input " + DimsText(s.dims) + " or a carry " +
                                   DimsText(s.lanes)));
    }
  }
  for (int j = 0; j < OutputCount(in); ++j) {
    const hlo::Shape& shape = OutputShape(in, j);
    if (!shape.IsArray() || (shape.dims != s.dims && shape.dims != s.lanes)) {
      return bad("output " + std::to_string(j) + " must be a per-step output " +
                 DimsText(s.dims) + " or a final carry " + DimsText(s.lanes));
    }
  }
  if (in.HasAttribute("is_reverse")) {
    std::string r = in.Attribute("is_reverse");
    if (r != "true" && r != "false") {
      return bad("is_reverse must be true or false, not '" + r + "'");
    }
    s.reverse = r == "true";
  }
  return s;
}

bool IsStepOutput(const Instruction& in, const ScanShape& s, int output_id) {
  return OutputDims(in, output_id) == s.dims;
}

// The index of S for lane variables `lane` (in order) and `step` at d.
std::vector<Expr> WithStep(const ScanShape& s, const std::vector<Expr>& lane,
                           Expr step) {
  std::vector<Expr> index = lane;
  index.insert(index.begin() + s.dim, step);
  return index;
}

// Lane variables d_0 ... of a map over S (skipping d) or over the lanes.
std::vector<Expr> LaneOfS(const ScanShape& s, ExprContext* ctx) {
  std::vector<Expr> lane;
  for (int64_t i = 0; i < static_cast<int64_t>(s.dims.size()); ++i) {
    if (i != s.dim) lane.push_back(ctx->Dim(i));
  }
  return lane;
}
std::vector<Expr> LaneDims(const ScanShape& s, ExprContext* ctx) {
  std::vector<Expr> lane;
  for (size_t i = 0; i < s.lanes.size(); ++i) lane.push_back(ctx->Dim(i));
  return lane;
}

// A step output's element reads the init of its lane, at every step (the
// carry each step is handed descends from it).
IndexingMap StepOutputToInit(const ScanShape& s, ExprContext* ctx) {
  const int lanes = static_cast<int>(s.lanes.size());
  if (s.steps() == 0) return IndexingMap::KnownEmpty(ctx, lanes + 1, lanes);
  return MakeMap(ctx, s.dims, {}, LaneOfS(s, ctx));
}

}  // namespace

Result<Indexing> ScanOutToIn(const Instruction& in, int output_id,
                             ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(ScanShape s, ReadScan(in));
  const bool step_output = IsStepOutput(in, s, output_id);
  std::vector<IndexingMap> maps;
  for (int k = 0; k < in.operand_count(); ++k) {
    const bool input = k < s.num_inputs;
    if (step_output) {
      // (d...) -> (d...) for an input; the lane's init at every step.
      maps.push_back(input ? IndexingMap::Identity(ctx, s.dims)
                           : StepOutputToInit(s, ctx));
    } else if (input) {
      // A final carry reads the inputs at its lane's last step (none when
      // there is no step).
      maps.push_back(
          s.steps() == 0
              ? IndexingMap::KnownEmpty(ctx, s.lanes.size(), s.dims.size())
              : MakeMap(ctx, s.lanes, {},
                        WithStep(s, LaneDims(s, ctx),
                                 ctx->Constant(s.last_step()))));
    } else {
      // The final carries descend from the inits (are them, with no step).
      maps.push_back(IndexingMap::Identity(ctx, s.lanes));
    }
  }
  return FromMaps(std::move(maps));
}

Result<Indexing> ScanInToOut(const Instruction& in, int operand,
                             ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(ScanShape s, ReadScan(in));
  const bool input = operand < s.num_inputs;
  std::vector<IndexingMap> maps;
  for (int j = 0; j < OutputCount(in); ++j) {
    const bool step_output = IsStepOutput(in, s, j);
    if (input && step_output) {
      maps.push_back(IndexingMap::Identity(ctx, s.dims));
    } else if (input) {
      // Only the last step's element reaches the final carry.
      IndexingMap m = MakeMap(ctx, s.dims, {}, LaneOfS(s, ctx));
      m.AddConstraint(ctx->Dim(s.dim), Interval::Point(s.last_step()));
      maps.push_back(std::move(m));
    } else if (step_output) {
      // The lane's init reaches every step of the lane.
      const int lanes = static_cast<int>(s.lanes.size());
      maps.push_back(
          s.steps() == 0
              ? IndexingMap::KnownEmpty(ctx, lanes, lanes + 1)
              : MakeMap(ctx, s.lanes, std::vector<int64_t>{s.steps()},
                        WithStep(s, LaneDims(s, ctx), ctx->Symbol(0))));
    } else {
      maps.push_back(IndexingMap::Identity(ctx, s.lanes));
    }
  }
  return FromMaps(std::move(maps));
}

}  // namespace ixa::indexing_internal
