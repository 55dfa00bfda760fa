// The ops XLA expands before it emits anything (batch norms, topk,
// stochastic-convert, select-and-scatter), evaluated directly from XLA's
// operation semantics: the test's oracle for analysis/prefusion/
// expanders.cc, written apart from it (no shared code, other formulas
// where the semantics give them).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "tests/emit/emit_interpreter_scalar.h"

namespace ixa::emit_test::interpreter_detail {
namespace {

using hlo::Instruction;

Literal TupleLiteral(std::vector<Literal> elements) {
  Literal t;
  t.type = ElementType::kTuple;
  t.tuple = std::move(elements);
  return t;
}

bool IsHalfOrWider(ElementType t) {
  return t == ElementType::kF16 || t == ElementType::kBF16 ||
         t == ElementType::kF32 || t == ElementType::kF64;
}

// The activations of a batch norm per feature: for feature c, the linear
// positions of its elements.
struct FeatureView {
  int64_t features = 0;
  int64_t per_feature = 0;
  std::vector<int64_t> feature_of;  // per element
};

FeatureView ViewFeatures(const Literal& x, int64_t feature_index) {
  FeatureView v;
  v.features = x.dims[feature_index];
  v.per_feature = v.features == 0 ? 0 : x.size() / v.features;
  v.feature_of.resize(x.size());
  for (int64_t k = 0; k < x.size(); ++k) {
    v.feature_of[k] = Delinearize(k, x.dims)[feature_index];
  }
  return v;
}

Result<std::pair<int64_t, double>> BatchNormAttributes(const Instruction& in,
                                                       const Literal& x) {
  const std::string f = in.Attribute("feature_index");
  const std::string e = in.Attribute("epsilon");
  char* end = nullptr;
  const long long feature = std::strtoll(f.c_str(), &end, 10);
  if (f.empty() || *end != '\0' || feature < 0 ||
      feature >= static_cast<long long>(x.dims.size())) {
    return Unsupported(in, "feature_index");
  }
  // Epsilon is a float attribute; the op computes in the operand's type.
  const float epsilon = std::strtof(e.c_str(), &end);
  if (e.empty() || *end != '\0') return Unsupported(in, "epsilon");
  if (!IsHalfOrWider(x.type)) return UnsupportedOn(in, x.type);
  return std::make_pair(static_cast<int64_t>(feature),
                        RoundToType(epsilon, x.type));
}

// batch-norm-training: per feature, the mean and the (biased) variance of
// its elements, and scale * (x - mean) / sqrt(var + epsilon) + offset; in
// double, each result rounded once to the type.
Result<Literal> BatchNormTraining(const Instruction& in,
                                  const std::vector<Literal>& o) {
  const Literal &x = o[0], &scale = o[1], &offset = o[2];
  IXA_ASSIGN_OR_RETURN(auto attrs, BatchNormAttributes(in, x));
  const FeatureView v = ViewFeatures(x, attrs.first);
  std::vector<double> mean(v.features, 0), var(v.features, 0);
  for (int64_t k = 0; k < x.size(); ++k) mean[v.feature_of[k]] += x.floats[k];
  for (double& m : mean) m /= static_cast<double>(v.per_feature);
  for (int64_t k = 0; k < x.size(); ++k) {
    const double d = x.floats[k] - mean[v.feature_of[k]];
    var[v.feature_of[k]] += d * d;
  }
  for (double& s : var) s /= static_cast<double>(v.per_feature);
  Literal y = Literal::Make(x.type, x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t c = v.feature_of[k];
    y.floats[k] = RoundToType(scale.floats[c] * (x.floats[k] - mean[c]) /
                                      std::sqrt(var[c] + attrs.second) +
                                  offset.floats[c],
                              x.type);
  }
  Literal m = Literal::Make(x.type, {v.features});
  Literal s = Literal::Make(x.type, {v.features});
  for (int64_t c = 0; c < v.features; ++c) {
    m.floats[c] = RoundToType(mean[c], x.type);
    s.floats[c] = RoundToType(var[c], x.type);
  }
  return TupleLiteral({std::move(y), std::move(m), std::move(s)});
}

Result<Literal> BatchNormInference(const Instruction& in,
                                   const std::vector<Literal>& o) {
  const Literal &x = o[0], &scale = o[1], &offset = o[2], &mean = o[3],
                &var = o[4];
  IXA_ASSIGN_OR_RETURN(auto attrs, BatchNormAttributes(in, x));
  const FeatureView v = ViewFeatures(x, attrs.first);
  Literal y = Literal::Make(x.type, x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t c = v.feature_of[k];
    y.floats[k] = RoundToType(scale.floats[c] * (x.floats[k] - mean.floats[c]) /
                                      std::sqrt(var.floats[c] + attrs.second) +
                                  offset.floats[c],
                              x.type);
  }
  return y;
}

// batch-norm-grad (XLA's semantics): with the given mean and variance,
// grad_offset = sum(dy), grad_scale = sum(dy * (x - mean)) / sqrt(var +
// eps), grad_x = scale / sqrt(var + eps) * (dy - mean(dy) - (x - mean) *
// mean(dy * (x - mean)) / (var + eps)).
Result<Literal> BatchNormGrad(const Instruction& in,
                              const std::vector<Literal>& o) {
  const Literal &x = o[0], &scale = o[1], &mean = o[2], &var = o[3], &dy = o[4];
  IXA_ASSIGN_OR_RETURN(auto attrs, BatchNormAttributes(in, x));
  const FeatureView v = ViewFeatures(x, attrs.first);
  const double n = static_cast<double>(v.per_feature);
  std::vector<double> sum_dy(v.features, 0), sum_dy_xc(v.features, 0);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t c = v.feature_of[k];
    sum_dy[c] += dy.floats[k];
    sum_dy_xc[c] += dy.floats[k] * (x.floats[k] - mean.floats[c]);
  }
  Literal gx = Literal::Make(x.type, x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    const int64_t c = v.feature_of[k];
    const double ve = var.floats[c] + attrs.second;
    gx.floats[k] = RoundToType(
        scale.floats[c] / std::sqrt(ve) *
            (dy.floats[k] - sum_dy[c] / n -
             (x.floats[k] - mean.floats[c]) * (sum_dy_xc[c] / n) / ve),
        x.type);
  }
  Literal gs = Literal::Make(x.type, {v.features});
  Literal go = Literal::Make(x.type, {v.features});
  for (int64_t c = 0; c < v.features; ++c) {
    gs.floats[c] = RoundToType(
        sum_dy_xc[c] / std::sqrt(var.floats[c] + attrs.second), x.type);
    go.floats[c] = RoundToType(sum_dy[c], x.type);
  }
  return TupleLiteral({std::move(gx), std::move(gs), std::move(go)});
}

// IEEE total order of floats (-NaN < -inf < ... < -0 < +0 < ... < +NaN):
// the double's bits as a signed integer, the magnitude flipped when the
// sign is set (a float value widens to a double keeping that order).
int64_t FloatOrderKey(double v) {
  const int64_t bits = std::bit_cast<int64_t>(v);
  return bits < 0 ? bits ^ INT64_MAX : bits;
}

// topk along the last dim: the k largest (or smallest) of each row in
// order, ties (equal in total order) in the order they come, with their
// positions. The TopK custom call orders by its comparator where it has
// one (a strict "comes first" of (a, b), or of (a, b, index a, index b)).
Result<Literal> TopK(const Instruction& in, const Literal& x,
                     const ScalarCall& call) {
  if (!in.shape.IsTuple() || in.shape.tuple_elements.size() != 2 ||
      x.dims.empty()) {
    return Unsupported(in, "topk form");
  }
  const hlo::Shape& values_shape = in.shape.tuple_elements[0];
  const int last = static_cast<int>(x.dims.size()) - 1;
  const int64_t n = x.dims[last];
  const int64_t k = values_shape.dims.at(last);
  const bool is_call = in.opcode == hlo::Opcode::kCustomCall;
  const bool largest = is_call || in.Attribute("largest") != "false";
  const hlo::Computation* comparator = is_call ? in.called() : nullptr;
  auto before = [&](int64_t a_pos, int64_t b_pos, const Scalar& a,
                    const Scalar& b) -> Result<bool> {
    if (comparator) {
      std::vector<Scalar> args = {a, b};
      if (comparator->parameter_count() == 4) {
        args.push_back(MakeInt(ElementType::kS32, a_pos));
        args.push_back(MakeInt(ElementType::kS32, b_pos));
      }
      IXA_ASSIGN_OR_RETURN(std::vector<Scalar> r, call(*comparator, args));
      return r.at(0).i != 0;
    }
    if (IsFloat(x.type)) {
      const int64_t ka = FloatOrderKey(a.f), kb = FloatOrderKey(b.f);
      return largest ? ka > kb : ka < kb;
    }
    if (IsUnsigned(x.type)) return largest ? a.i > b.i : a.i < b.i;
    return largest ? a.s() > b.s() : a.s() < b.s();
  };
  std::vector<int64_t> out_dims = x.dims;
  out_dims[last] = k;
  Literal values = Literal::Make(x.type, out_dims);
  Literal indices = Literal::Make(ElementType::kS32, out_dims);
  const int64_t rows = n == 0 ? 0 : x.size() / n;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    // An insertion sort: stable, and every comparison's error surfaces.
    for (int64_t i = 1; i < n; ++i) {
      for (int64_t j = i; j > 0; --j) {
        IXA_ASSIGN_OR_RETURN(
            bool swap, before(order[j], order[j - 1], Get(x, r * n + order[j]),
                              Get(x, r * n + order[j - 1])));
        if (!swap) break;
        std::swap(order[j], order[j - 1]);
      }
    }
    for (int64_t j = 0; j < k; ++j) {
      Set(&values, r * k + j, Get(x, r * n + order[j]));
      Set(&indices, r * k + j, MakeInt(ElementType::kS32, order[j]));
    }
  }
  return TupleLiteral({std::move(values), std::move(indices)});
}

// stochastic-convert of a float to a signed integer with random bits r of
// the float's width: |x| = t + f (t whole, 0 <= f < 1) becomes t + 1 when
// r < floor(f * 2^bits) (so with probability f), else t; the sign comes
// back; values at or past the integer range (as the float type holds its
// bounds) saturate; NaN gives 0.
Result<Literal> StochasticConvert(const Instruction& in, const Literal& x,
                                  const Literal& random) {
  const ElementType to = in.shape.type;
  if (!IsHalfOrWider(x.type) || !IsSigned(to) || Bits(to) < 8 ||
      !IsUnsigned(random.type) || Bits(random.type) != Bits(x.type)) {
    return Unsupported(in, "stochastic-convert types");
  }
  const int bits = Bits(to);
  const int64_t lo = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
  const int64_t hi = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  // The bounds as the operand's type holds them (rounded; f16 has none
  // past 65504 but infinity).
  const double lo_f = RoundToType(static_cast<double>(lo), x.type);
  const double hi_f = RoundToType(static_cast<double>(hi), x.type);
  Literal out = Literal::Make(to, x.dims);
  for (int64_t k = 0; k < x.size(); ++k) {
    const double v = x.floats[k];
    int64_t result;
    if (std::isnan(v)) {
      result = 0;
    } else if (v >= hi_f) {
      result = hi;
    } else if (v <= lo_f) {
      result = lo;
    } else {
      const double a = std::fabs(v);
      const double t = std::floor(a);
      // f * 2^bits is below 2^bits: its whole part fits the random type.
      const uint64_t fixed = static_cast<uint64_t>(
          std::floor(std::ldexp(a - t, Bits(random.type))));
      const bool up = random.ints[k] < fixed;
      // |x| < 2^63 here; t + 1 may pass the type's range by one, which
      // wraps as the integer type does (it can only be -min negated back).
      const uint64_t magnitude = static_cast<uint64_t>(t) + (up ? 1 : 0);
      const uint64_t signed_bits = v < 0 ? ~magnitude + 1 : magnitude;
      result = static_cast<int64_t>(WrapToType(signed_bits, to));
    }
    out.ints[k] = WrapToType(static_cast<uint64_t>(result), to);
  }
  return out;
}

// select-and-scatter: for each window (source position), the element of
// the operand it selects: the first in the window (padding is not an
// element) replaced by each later one e for which select(selected, e) is
// false; then source combined into an init-filled result at the selected
// positions with `scatter`, windows in order. A window of padding only
// selects nothing.
Result<Literal> SelectAndScatter(const Instruction& in,
                                 const std::vector<Literal>& o,
                                 const ScalarCall& call) {
  const Literal &operand = o[0], &source = o[1], &init = o[2];
  const hlo::Computation* select = nullptr;
  const hlo::Computation* scatter = nullptr;
  for (const hlo::Computation* c : in.called_computations) {
    if (in.Attribute("select") == c->name()) select = c;
    if (in.Attribute("scatter") == c->name()) scatter = c;
  }
  if (select == nullptr || scatter == nullptr ||
      in.window.size() != operand.dims.size()) {
    return Unsupported(in, "select-and-scatter form");
  }
  Literal out = Literal::Make(operand.type, operand.dims);
  for (int64_t k = 0; k < out.size(); ++k) Set(&out, k, Get(init, 0));
  const size_t rank = operand.dims.size();
  std::vector<int64_t> window_dims;
  int64_t window_n = 1;
  for (const hlo::WindowDim& w : in.window) {
    if (w.base_dilation != 1 || w.window_dilation != 1 || w.reversal) {
      return Unsupported(in, "a dilated or reversed window");
    }
    window_dims.push_back(w.size);
    window_n *= w.size;
  }
  for (int64_t s = 0; s < source.size(); ++s) {
    const std::vector<int64_t> at = Delinearize(s, source.dims);
    int64_t selected = -1;
    for (int64_t w = 0; w < window_n; ++w) {
      const std::vector<int64_t> offset = Delinearize(w, window_dims);
      std::vector<int64_t> pos(rank);
      bool inside = true;
      for (size_t d = 0; d < rank && inside; ++d) {
        pos[d] = at[d] * in.window[d].stride + offset[d] - in.window[d].pad_low;
        inside = pos[d] >= 0 && pos[d] < operand.dims[d];
      }
      if (!inside) continue;
      const int64_t e = Linearize(pos, operand.dims);
      if (selected < 0) {
        selected = e;
        continue;
      }
      IXA_ASSIGN_OR_RETURN(
          std::vector<Scalar> keep,
          call(*select, {Get(operand, selected), Get(operand, e)}));
      if (keep.at(0).i == 0) selected = e;
    }
    if (selected < 0) continue;
    IXA_ASSIGN_OR_RETURN(std::vector<Scalar> r,
                         call(*scatter, {Get(out, selected), Get(source, s)}));
    Set(&out, selected, r.at(0));
  }
  return out;
}

}  // namespace

std::optional<Result<Literal>> EvalExpandedOp(
    const Instruction& in, const std::vector<Literal>& operands,
    const ScalarCall& call) {
  const size_t want = in.opcode == hlo::Opcode::kBatchNormTraining ? 3
                      : in.opcode == hlo::Opcode::kBatchNormInference ||
                              in.opcode == hlo::Opcode::kBatchNormGrad
                          ? 5
                      : in.opcode == hlo::Opcode::kStochasticConvert ? 2
                      : in.opcode == hlo::Opcode::kSelectAndScatter  ? 3
                                                                     : 1;
  if (in.opcode != hlo::Opcode::kCustomCall && operands.size() != want) {
    return Result<Literal>(Unsupported(in, "operand count"));
  }
  switch (in.opcode) {
    case hlo::Opcode::kBatchNormTraining:
      return BatchNormTraining(in, operands);
    case hlo::Opcode::kBatchNormInference:
      return BatchNormInference(in, operands);
    case hlo::Opcode::kBatchNormGrad:
      return BatchNormGrad(in, operands);
    case hlo::Opcode::kTopK:
      return TopK(in, operands.at(0), call);
    case hlo::Opcode::kCustomCall: {
      const std::string target = in.Attribute("custom_call_target");
      if (target != "\"TopK\"" && target != "TopK") return std::nullopt;
      return TopK(in, operands.at(0), call);
    }
    case hlo::Opcode::kStochasticConvert:
      return StochasticConvert(in, operands.at(0), operands.at(1));
    case hlo::Opcode::kSelectAndScatter:
      return SelectAndScatter(in, operands, call);
    default:
      return std::nullopt;
  }
}

}  // namespace ixa::emit_test::interpreter_detail
