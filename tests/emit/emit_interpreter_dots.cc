// ragged-dot and scaled-dot, evaluated directly from XLA's operation
// semantics: the test's oracle for analysis/prefusion/dot_expanders.cc,
// written apart from it (no shared code; each output element walks its
// own terms). Floats accumulate in double and round once to the result
// type; integers wrap in 64 bits and then to the result type.
#include <algorithm>

#include "tests/emit/emit_interpreter_scalar.h"

namespace ixa::emit_test::interpreter_detail {
namespace {

using hlo::Instruction;

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

struct Accumulator {
  ElementType type;
  double f = 0;
  uint64_t i = 0;
  void Add(double a, double b, int64_t ia, int64_t ib) {
    if (IsFloat(type)) {
      f += a * b;
    } else {
      i += static_cast<uint64_t>(ia) * static_cast<uint64_t>(ib);
    }
  }
  void Store(Literal* out, int64_t k) const {
    if (IsFloat(type)) {
      out->floats[k] = RoundToType(f, type);
    } else {
      out->ints[k] = WrapToType(i, type);
    }
  }
};

// The group of position p of the ragged dim (the first group whose
// cumulative end passes p), -1 for none, with the sizes of one batch row.
int64_t GroupOf(const Literal& sizes, int64_t row_start, int64_t groups,
                int64_t p) {
  int64_t end = 0;
  for (int64_t i = 0; i < groups; ++i) {
    end += sizes.AsInt(row_start + i);
    if (p < end) return i;
  }
  return -1;
}

Result<Literal> RaggedDot(const Instruction& in, const Literal& lhs,
                          const Literal& rhs, const Literal& sizes) {
  const hlo::DotDimensionNumbers& dn = in.dot;
  if (in.ragged.lhs_ragged.size() != 1 || sizes.dims.empty()) {
    return Unsupported(in, "ragged-dot form");
  }
  const ElementType t = in.shape.type;
  if (!IsFloat(t) && !IsSigned(t) && !IsUnsigned(t)) {
    return UnsupportedOn(in, t);
  }
  const int64_t ragged = in.ragged.lhs_ragged[0];
  const int64_t groups = sizes.dims.back();
  const bool contracting = Has(dn.lhs_contracting, ragged);
  const bool batch = Has(dn.lhs_batch, ragged);
  const int64_t rhs_group =
      in.ragged.rhs_group.empty() ? -1 : in.ragged.rhs_group[0];
  Literal out = Literal::Make(t, in.shape.dims);
  const std::vector<int64_t> lhs_free =
      DotFreeDims(lhs.dims.size(), dn.lhs_batch, dn.lhs_contracting);
  const std::vector<int64_t> rhs_free =
      DotFreeDims(rhs.dims.size(), dn.rhs_batch, dn.rhs_contracting, rhs_group);
  std::vector<int64_t> k_dims;
  for (int64_t d : dn.lhs_contracting) k_dims.push_back(lhs.dims[d]);
  int64_t k_count = 1;
  for (int64_t d : k_dims) k_count *= d;
  const int nb = static_cast<int>(dn.lhs_batch.size());
  for (int64_t k = 0; k < out.size(); ++k) {
    const std::vector<int64_t> idx = Delinearize(k, out.dims);
    size_t pos = 0;
    int64_t group = -1;
    if (contracting) group = idx[pos++];
    std::vector<int64_t> li(lhs.dims.size()), ri(rhs.dims.size());
    // The group sizes of this output's batch row ([g] or [batch..., g]).
    int64_t sizes_row = 0;
    if (sizes.dims.size() > 1) {
      std::vector<int64_t> si;
      for (int b = 0; b < nb; ++b) si.push_back(idx[pos + b]);
      si.push_back(0);
      sizes_row = Linearize(si, sizes.dims);
    }
    SetDotOperandIndices(idx, dn, lhs_free, rhs_free, &pos, &li, &ri);
    if (!contracting && !batch) {
      group = GroupOf(sizes, sizes_row, groups, li[ragged]);
      if (rhs_group >= 0 && group >= 0) ri[rhs_group] = group;
    }
    Accumulator acc{t};
    if (contracting || batch || group >= 0) {
      std::vector<int64_t> ci;
      for (int64_t c = 0; c < k_count; ++c) {
        DelinearizeInto(c, k_dims, &ci);
        SetContractingIndices(ci, dn, &li, &ri);
        if (contracting &&
            GroupOf(sizes, sizes_row, groups, li[ragged]) != group) {
          continue;
        }
        const int64_t a = Linearize(li, lhs.dims), b = Linearize(ri, rhs.dims);
        acc.Add(lhs.AsDouble(a), rhs.AsDouble(b), lhs.AsInt(a), rhs.AsInt(b));
      }
    }
    acc.Store(&out, k);
  }
  return out;
}

// The scale of element xi of an operand: the block it lies in.
double ScaleAt(const Literal& scale, const Literal& x,
               const std::vector<int64_t>& xi) {
  if (scale.dims.empty()) return scale.AsDouble(0);
  std::vector<int64_t> si(xi.size());
  for (size_t d = 0; d < xi.size(); ++d) {
    si[d] = xi[d] / (x.dims[d] / scale.dims[d]);
  }
  return scale.AsDouble(Linearize(si, scale.dims));
}

Result<Literal> ScaledDot(const Instruction& in, const Literal& lhs,
                          const Literal& rhs, const Literal& lhs_scale,
                          const Literal& rhs_scale) {
  const hlo::DotDimensionNumbers& dn = in.dot;
  const ElementType t = in.shape.type;
  if (!IsFloat(t)) return UnsupportedOn(in, t);
  for (const Literal* s : {&lhs_scale, &rhs_scale}) {
    const Literal& x = s == &lhs_scale ? lhs : rhs;
    if (s->dims.empty()) continue;
    if (s->dims.size() != x.dims.size()) return Unsupported(in, "scale rank");
    for (size_t d = 0; d < x.dims.size(); ++d) {
      if (s->dims[d] == 0 || x.dims[d] % s->dims[d] != 0) {
        return Unsupported(in, "scale blocks");
      }
    }
  }
  const std::vector<int64_t> lhs_free =
      DotFreeDims(lhs.dims.size(), dn.lhs_batch, dn.lhs_contracting);
  const std::vector<int64_t> rhs_free =
      DotFreeDims(rhs.dims.size(), dn.rhs_batch, dn.rhs_contracting);
  std::vector<int64_t> k_dims;
  for (int64_t d : dn.lhs_contracting) k_dims.push_back(lhs.dims[d]);
  int64_t k_count = 1;
  for (int64_t d : k_dims) k_count *= d;
  Literal out = Literal::Make(t, in.shape.dims);
  for (int64_t k = 0; k < out.size(); ++k) {
    const std::vector<int64_t> idx = Delinearize(k, out.dims);
    std::vector<int64_t> li(lhs.dims.size()), ri(rhs.dims.size());
    size_t pos = 0;
    SetDotOperandIndices(idx, dn, lhs_free, rhs_free, &pos, &li, &ri);
    double sum = 0;
    std::vector<int64_t> ci;
    for (int64_t c = 0; c < k_count; ++c) {
      DelinearizeInto(c, k_dims, &ci);
      SetContractingIndices(ci, dn, &li, &ri);
      sum +=
          lhs.AsDouble(Linearize(li, lhs.dims)) * ScaleAt(lhs_scale, lhs, li) *
          rhs.AsDouble(Linearize(ri, rhs.dims)) * ScaleAt(rhs_scale, rhs, ri);
    }
    out.floats[k] = RoundToType(sum, t);
  }
  return out;
}

}  // namespace

std::optional<Result<Literal>> EvalDotVariant(
    const hlo::Instruction& in, const std::vector<Literal>& operands) {
  if (in.opcode == hlo::Opcode::kRaggedDot && operands.size() == 3) {
    return RaggedDot(in, operands[0], operands[1], operands[2]);
  }
  if (in.opcode == hlo::Opcode::kScaledDot && operands.size() == 4) {
    return ScaledDot(in, operands[0], operands[1], operands[2], operands[3]);
  }
  return std::nullopt;
}

}  // namespace ixa::emit_test::interpreter_detail
