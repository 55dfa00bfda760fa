// XLA's expanders (analysis/prefusion/expanders.cc: BatchNormExpander,
// TopkDecomposer, StochasticConvertDecomposer, SelectAndScatterExpander;
// dot_expanders.cc: RaggedDotRewriter, ScaledDotRewriter, tag
// [emit_dot_expanders], oracle tests/emit/emit_interpreter_dots.cc)
// on random cases: the test interpreter's own semantics of each op
// (tests/emit/emit_interpreter_expanded.cc) on the module as written is
// the reference, and both the interpreter on the expanded module and the
// program `compile` makes of the module (cpp, one case also cuda in the
// CPU model of CUDA) must give it: exactly for topk, stochastic-convert
// and select-and-scatter, within a tolerance for batch norms (XLA's
// formulas compute in the operand's type, in another order).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "analysis/prefusion/prefusion.h"
#include "analysis/uses/fusion_plan.h"
#include "emit/program/program.h"
#include "hw/device.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_interpreter.h"
#include "tests/emit/emit_literal.h"
#include "tests/emit/emit_program_runner.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

using PassFn = Result<PassResult> (*)(const hlo::Module&);

struct ExpanderCase {
  std::string label;
  std::string hlo;
  PassFn pass;
  std::string pass_name;  // XLA's, as the rewrites name it
  hlo::Opcode op;         // gone after the pass
  std::vector<Literal> args;
  Tolerance tol;      // zero: exact
  bool fuse = false;  // compiled through RunPrefusion and fusion_plan
};

std::string Dims(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += (i ? "," : "") + std::to_string(dims[i]);
  }
  return s + "]";
}

std::string TypeText(ElementType t) { return hlo::ElementTypeName(t); }

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Floats of `type` drawn from [lo, hi], rounded to the type.
Literal RandomFloats(ElementType type, const std::vector<int64_t>& dims,
                     double lo, double hi, std::mt19937_64& rng) {
  Literal l = Literal::Make(type, dims);
  std::uniform_real_distribution<double> u(lo, hi);
  for (double& v : l.floats) v = RoundToType(u(rng), type);
  return l;
}

// --- batch norms -----------------------------------------------------------

ExpanderCase BatchNormCase(int i, std::mt19937_64& rng) {
  static const ElementType kTypes[] = {ElementType::kF32, ElementType::kF32,
                                       ElementType::kF16, ElementType::kBF16};
  const ElementType type = kTypes[Uniform(rng, 0, 3)];
  const int rank = static_cast<int>(Uniform(rng, 1, 4));
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(Uniform(rng, 1, 5));
  const int64_t feature = Uniform(rng, 0, rank - 1);
  const std::vector<int64_t> fdims = {dims[feature]};
  const int kind = i % 3;  // training, inference, grad
  const std::string t = TypeText(type);
  const std::string x = t + Dims(dims), c = t + Dims(fdims);
  std::ostringstream hlo;
  hlo << "HloModule bn\n\nENTRY main {\n  x = " << x << " parameter(0)\n"
      << "  scale = " << c << " parameter(1)\n";
  ExpanderCase k;
  k.args.push_back(RandomFloats(type, dims, -2, 2, rng));
  k.args.push_back(RandomFloats(type, fdims, -1.5, 1.5, rng));
  const std::string attrs =
      ", epsilon=0.001, feature_index=" + std::to_string(feature);
  if (kind == 0) {
    hlo << "  offset = " << c << " parameter(2)\n"
        << "  ROOT bn = (" << x << ", " << c << ", " << c
        << ") batch-norm-training(x, scale, offset)" << attrs << "\n";
    k.args.push_back(RandomFloats(type, fdims, -1, 1, rng));
  } else if (kind == 1) {
    hlo << "  offset = " << c << " parameter(2)\n  mean = " << c
        << " parameter(3)\n  variance = " << c << " parameter(4)\n"
        << "  ROOT bn = " << x
        << " batch-norm-inference(x, scale, offset, mean, variance)" << attrs
        << "\n";
    k.args.push_back(RandomFloats(type, fdims, -1, 1, rng));
    k.args.push_back(RandomFloats(type, fdims, -1, 1, rng));
    k.args.push_back(RandomFloats(type, fdims, 0.2, 2, rng));
  } else {
    hlo << "  mean = " << c << " parameter(2)\n  variance = " << c
        << " parameter(3)\n  grad_output = " << x << " parameter(4)\n"
        << "  ROOT bn = (" << x << ", " << c << ", " << c
        << ") batch-norm-grad(x, scale, mean, variance, grad_output)" << attrs
        << "\n";
    k.args.push_back(RandomFloats(type, fdims, -1, 1, rng));
    k.args.push_back(RandomFloats(type, fdims, 0.2, 2, rng));
    k.args.push_back(RandomFloats(type, dims, -1, 1, rng));
  }
  hlo << "}\n";
  static const char* kKinds[] = {"training", "inference", "grad"};
  k.label = std::string("batch-norm-") + kKinds[kind] + " " + x + " feature " +
            std::to_string(feature);
  k.hlo = hlo.str();
  k.pass = ExpandBatchNorms;
  k.pass_name = "BatchNormExpander";
  k.op = kind == 0   ? hlo::Opcode::kBatchNormTraining
         : kind == 1 ? hlo::Opcode::kBatchNormInference
                     : hlo::Opcode::kBatchNormGrad;
  // XLA computes in the operand's type: var = E[x^2] - E[x]^2 and sums of
  // up to a hundred elements round in f16 / bf16 at each step.
  k.tol.rel = type == ElementType::kF32   ? 1e-4
              : type == ElementType::kF16 ? 2e-2
                                          : 6e-2;
  k.tol.abs = type == ElementType::kF32   ? 1e-4
              : type == ElementType::kF16 ? 4e-2
                                          : 0.2;
  return k;
}

// --- topk ------------------------------------------------------------------

ExpanderCase TopkCase(int i, std::mt19937_64& rng) {
  const ElementType type = i % 5 == 4   ? ElementType::kS32
                           : i % 5 == 3 ? ElementType::kBF16
                                        : ElementType::kF32;
  const int rank = static_cast<int>(Uniform(rng, 1, 3));
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(Uniform(rng, 1, 4));
  dims.back() = Uniform(rng, 1, 12);
  const int64_t n = dims.back();
  const int64_t k = i % 4 == 0 ? n : Uniform(rng, 1, n);
  const bool call = i % 3 == 2;
  const bool largest = call || Uniform(rng, 0, 1) == 1;
  std::vector<int64_t> out = dims;
  out.back() = k;
  const std::string t = TypeText(type);
  ExpanderCase c;
  std::ostringstream hlo;
  hlo << "HloModule topk\n\nENTRY main {\n  x = " << t << Dims(dims)
      << " parameter(0)\n  ROOT topk = (" << t << Dims(out) << ", s32"
      << Dims(out) << ") ";
  if (call) {
    hlo << "custom-call(x), custom_call_target=\"TopK\"\n}\n";
  } else {
    hlo << "topk(x), k=" << k << ", largest=" << (largest ? "true" : "false")
        << "\n}\n";
  }
  // Few distinct values (ties), and for floats NaNs of both signs, signed
  // zeros and infinities.
  Literal x = Literal::Make(type, dims);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double kSpecial[] = {nan, -nan, 0.0, -0.0, inf, -inf};
  for (int64_t e = 0; e < x.size(); ++e) {
    const int64_t v = Uniform(rng, -3, 3);
    if (type == ElementType::kS32) {
      x.ints[e] = WrapToType(static_cast<uint64_t>(v), type);
    } else if (Uniform(rng, 0, 5) == 0) {
      x.floats[e] = kSpecial[Uniform(rng, 0, 5)];
    } else {
      x.floats[e] = RoundToType(v * 0.75, type);
    }
  }
  c.args.push_back(std::move(x));
  c.label = std::string(call ? "TopK call " : "topk ") + t + Dims(dims) +
            " k=" + std::to_string(k) + (largest ? " largest" : " smallest");
  c.hlo = hlo.str();
  c.pass = DecomposeTopks;
  c.pass_name = "TopkDecomposer";
  c.op = call ? hlo::Opcode::kCustomCall : hlo::Opcode::kTopK;
  return c;
}

// --- stochastic-convert ----------------------------------------------------

ExpanderCase StochasticConvertCase(int i, std::mt19937_64& rng) {
  struct Types {
    ElementType from, random, to;
  };
  static const Types kTypes[] = {
      {ElementType::kF32, ElementType::kU32, ElementType::kS32},
      {ElementType::kF32, ElementType::kU32, ElementType::kS8},
      {ElementType::kF16, ElementType::kU16, ElementType::kS16},
      {ElementType::kBF16, ElementType::kU16, ElementType::kS8},
      {ElementType::kF16, ElementType::kU16, ElementType::kS32},
      {ElementType::kF64, ElementType::kU64, ElementType::kS64},
  };
  const Types& ty = kTypes[i % 6];
  std::vector<int64_t> dims = {Uniform(rng, 1, 6), Uniform(rng, 1, 9)};
  std::ostringstream hlo;
  hlo << "HloModule sc\n\nENTRY main {\n  x = " << TypeText(ty.from)
      << Dims(dims) << " parameter(0)\n  r = " << TypeText(ty.random)
      << Dims(dims) << " parameter(1)\n  ROOT c = " << TypeText(ty.to)
      << Dims(dims) << " stochastic-convert(x, r)\n}\n";
  // Fractions, whole numbers, values around and past the integer range,
  // NaN and infinities; random bits over their whole range, some of them
  // just below or at the scaled fraction.
  const int bits = hlo::ElementBits(ty.to);
  const double range = std::ldexp(1.0, bits - 1);
  Literal x = Literal::Make(ty.from, dims);
  Literal r = Literal::Make(ty.random, dims);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const int random_bits = hlo::ElementBits(ty.random);
  for (int64_t e = 0; e < x.size(); ++e) {
    double v;
    switch (Uniform(rng, 0, 7)) {
      case 0:
        v = static_cast<double>(Uniform(rng, -5, 5));
        break;
      case 1:
        v = (Uniform(rng, 0, 1) ? 1 : -1) *
            (range + static_cast<double>(Uniform(rng, -3, 3)) * 0.5);
        break;
      case 2:
        v = (Uniform(rng, 0, 1) ? 1 : -1) * range * 4;
        break;
      case 3: {
        const double s[] = {nan, -nan, inf, -inf, 0.0, -0.0};
        v = s[Uniform(rng, 0, 5)];
        break;
      }
      default:
        v = std::uniform_real_distribution<double>(-40, 40)(rng);
    }
    x.floats[e] = RoundToType(v, ty.from);
    uint64_t bits_value = rng();
    if (random_bits < 64) bits_value &= (uint64_t{1} << random_bits) - 1;
    if (Uniform(rng, 0, 3) == 0) {
      // Right at the scaled fraction (rounds down) or just below it (up).
      const double a = std::fabs(x.floats[e]);
      if (std::isfinite(a)) {
        const double f = std::floor(std::ldexp(a - std::floor(a), random_bits));
        bits_value = static_cast<uint64_t>(f) - (Uniform(rng, 0, 1) && f >= 1);
      }
    }
    r.ints[e] = bits_value;
  }
  ExpanderCase c;
  c.args = {std::move(x), std::move(r)};
  c.label = "stochastic-convert " + TypeText(ty.from) + " to " +
            TypeText(ty.to) + Dims(dims);
  c.hlo = hlo.str();
  c.pass = DecomposeStochasticConverts;
  c.pass_name = "StochasticConvertDecomposer";
  c.op = hlo::Opcode::kStochasticConvert;
  return c;
}

// --- select-and-scatter ----------------------------------------------------

ExpanderCase SelectAndScatterCase(int i, std::mt19937_64& rng) {
  const int rank = static_cast<int>(Uniform(rng, 1, 3));
  const bool ge = i % 2 == 0;
  const ElementType type = i % 5 == 4 ? ElementType::kS32 : ElementType::kF32;
  std::vector<int64_t> dims, out;
  std::string size = "size=", stride = " stride=", pad = " pad=";
  for (int d = 0; d < rank; ++d) {
    const int64_t n = Uniform(rng, 1, 7);
    // Windows inside the operand; a stride below the size overlaps them.
    const int64_t w = Uniform(rng, 1, std::min<int64_t>(3, n));
    const int64_t s = Uniform(rng, 1, 3);
    const int64_t lo = Uniform(rng, 0, w - 1), hi = Uniform(rng, 0, w - 1);
    const int64_t padded = n + lo + hi;
    dims.push_back(n);
    out.push_back((padded - w) / s + 1);
    const std::string sep = d ? "x" : "";
    size += sep + std::to_string(w);
    stride += sep + std::to_string(s);
    pad += sep + std::to_string(lo) + "_" + std::to_string(hi);
  }
  const std::string t = TypeText(type);
  std::ostringstream hlo;
  hlo << "HloModule sas\n\nselect {\n  a = " << t
      << "[] parameter(0)\n  b = " << t
      << "[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction="
      << (ge ? "GE" : "GT") << "\n}\n\nscatter {\n  a = " << t
      << "[] parameter(0)\n  b = " << t << "[] parameter(1)\n  ROOT s = " << t
      << "[] add(a, b)\n}\n\n"
      << "ENTRY main {\n  operand = " << t << Dims(dims)
      << " parameter(0)\n  source = " << t << Dims(out)
      << " parameter(1)\n  init = " << t
      << "[] parameter(2)\n  ROOT sas = " << t << Dims(dims)
      << " select-and-scatter(operand, source, init), "
      << "window={" << size << stride << pad
      << "}, select=select, scatter=scatter\n}\n";
  // Few distinct values (ties, where GE and GT differ) and sums that are
  // exact whatever their order.
  auto small = [&](const std::vector<int64_t>& d, int64_t lo, int64_t hi) {
    Literal l = Literal::Make(type, d);
    for (int64_t e = 0; e < l.size(); ++e) {
      const int64_t v = Uniform(rng, lo, hi);
      if (type == ElementType::kS32) {
        l.ints[e] = WrapToType(static_cast<uint64_t>(v), type);
      } else {
        l.floats[e] = static_cast<double>(v);
      }
    }
    return l;
  };
  ExpanderCase c;
  c.args = {small(dims, -2, 2), small(out, -8, 8), small({}, -1, 1)};
  c.label = "select-and-scatter " + t + Dims(dims) + " window={" + size +
            stride + pad + "} " + (ge ? "GE" : "GT");
  c.hlo = hlo.str();
  c.pass = ExpandSelectAndScatters;
  c.pass_name = "SelectAndScatterExpander";
  c.op = hlo::Opcode::kSelectAndScatter;
  return c;
}

// --- ragged-dot and scaled-dot ---------------------------------------------

// Small integers in `type`: every product and sum of the cases is exact in
// f32 and (the sums staying below 256) in bf16, so results compare exactly.
Literal SmallValues(ElementType type, const std::vector<int64_t>& dims,
                    int64_t lo, int64_t hi, std::mt19937_64& rng) {
  Literal l = Literal::Make(type, dims);
  for (int64_t e = 0; e < l.size(); ++e) {
    const int64_t v = Uniform(rng, lo, hi);
    if (IsFloat(type)) {
      l.floats[e] = static_cast<double>(v);
    } else {
      l.ints[e] = WrapToType(static_cast<uint64_t>(v), type);
    }
  }
  return l;
}

// `groups` sizes summing to less than, exactly or more than `rows` (by
// `kind`), some of them zero.
std::vector<int64_t> GroupSizes(int64_t groups, int64_t rows, int kind,
                                std::mt19937_64& rng) {
  int64_t total = rows;
  if (kind == 0) total = rows - Uniform(rng, 1, std::max<int64_t>(1, rows));
  if (kind == 2) total = rows + Uniform(rng, 1, 3);
  std::vector<int64_t> sizes(groups, 0);
  for (int64_t u = 0; u < std::max<int64_t>(total, 0); ++u) {
    sizes[Uniform(rng, 0, groups - 1)]++;
  }
  return sizes;
}

// A dim role order shuffled, as a list of role letters.
std::string Shuffled(std::string roles, bool keep, std::mt19937_64& rng) {
  if (!keep) std::shuffle(roles.begin(), roles.end(), rng);
  return roles;
}

int64_t RolePos(const std::string& roles, char r) {
  return static_cast<int64_t>(roles.find(r));
}

ExpanderCase RaggedDotCase(int i, std::mt19937_64& rng) {
  const int mode = i % 3;  // non-contracting, contracting, batch
  const int type_kind = (i / 3) % 3;
  const ElementType in_type = type_kind == 0   ? ElementType::kF32
                              : type_kind == 1 ? ElementType::kBF16
                                               : ElementType::kS8;
  const ElementType out_type = type_kind == 2 ? ElementType::kS32 : in_type;
  const bool batched = mode == 2 || Uniform(rng, 0, 1) == 1;
  const bool batched_sizes = mode != 2 && batched && Uniform(rng, 0, 1) == 1;
  std::map<char, int64_t> size = {{'B', Uniform(rng, 1, 3)},
                                  {'M', Uniform(rng, 1, 6)},
                                  {'K', Uniform(rng, 1, 5)},
                                  {'N', Uniform(rng, 1, 4)},
                                  {'G', Uniform(rng, 1, 4)}};
  std::string lhs_roles = batched ? "BMK" : "MK";
  std::string rhs_roles =
      mode == 0 ? (batched ? "BGKN" : "GKN") : (batched ? "BKN" : "KN");
  lhs_roles = Shuffled(lhs_roles, batched_sizes, rng);
  rhs_roles = Shuffled(rhs_roles, batched_sizes, rng);
  const char ragged = mode == 0 ? 'M' : mode == 1 ? 'K' : 'B';
  const int64_t groups = mode == 2 ? Uniform(rng, 1, 3) : size['G'];
  size['G'] = groups;
  auto dims_of = [&](const std::string& roles) {
    std::vector<int64_t> d;
    for (char r : roles) d.push_back(size[r]);
    return d;
  };
  std::vector<int64_t> out_dims;
  if (mode == 1) out_dims.push_back(groups);
  if (batched) out_dims.push_back(size['B']);
  out_dims.push_back(size['M']);
  out_dims.push_back(size['N']);
  std::vector<int64_t> sizes_dims = {groups};
  if (batched_sizes) sizes_dims = {size['B'], groups};
  const std::string ti = TypeText(in_type), to = TypeText(out_type);
  std::ostringstream hlo;
  hlo << "HloModule ragged\n\nENTRY main {\n  lhs = " << ti
      << Dims(dims_of(lhs_roles)) << " parameter(0)\n  rhs = " << ti
      << Dims(dims_of(rhs_roles)) << " parameter(1)\n  sizes = s32"
      << Dims(sizes_dims) << " parameter(2)\n  ROOT out = " << to
      << Dims(out_dims) << " ragged-dot(lhs, rhs, sizes), ";
  if (batched) {
    hlo << "lhs_batch_dims={" << RolePos(lhs_roles, 'B')
        << "}, rhs_batch_dims={" << RolePos(rhs_roles, 'B') << "}, ";
  }
  hlo << "lhs_contracting_dims={" << RolePos(lhs_roles, 'K')
      << "}, rhs_contracting_dims={" << RolePos(rhs_roles, 'K')
      << "}, lhs_ragged_dims={" << RolePos(lhs_roles, ragged) << "}";
  if (mode == 0) hlo << ", rhs_group_dims={" << RolePos(rhs_roles, 'G') << "}";
  hlo << "\n}\n";
  ExpanderCase c;
  c.label = "ragged-dot " + std::to_string(i) + " mode " +
            std::to_string(mode) + " " + ti + "->" + to;
  c.hlo = hlo.str();
  c.pass = ExpandRaggedDots;
  c.pass_name = "RaggedDotRewriter";
  c.op = hlo::Opcode::kRaggedDot;
  c.args.push_back(SmallValues(in_type, dims_of(lhs_roles), -3, 3, rng));
  c.args.push_back(SmallValues(in_type, dims_of(rhs_roles), -3, 3, rng));
  Literal sizes = Literal::Make(ElementType::kS32, sizes_dims);
  const int64_t rows = size[ragged];
  for (int64_t b = 0; b < sizes.size() / groups; ++b) {
    const std::vector<int64_t> row =
        GroupSizes(groups, rows, static_cast<int>((i / 9 + b) % 3), rng);
    for (int64_t j = 0; j < groups; ++j) {
      sizes.ints[b * groups + j] = static_cast<uint64_t>(row[j]);
    }
  }
  c.args.push_back(std::move(sizes));
  return c;
}

ExpanderCase ScaledDotCase(int i, std::mt19937_64& rng) {
  static const ElementType kOperand[] = {
      ElementType::kF8E4M3FN, ElementType::kF8E5M2, ElementType::kBF16};
  const ElementType lt = kOperand[i % 3], rt = kOperand[(i / 3) % 3];
  const ElementType out = i % 2 ? ElementType::kBF16 : ElementType::kF32;
  const ElementType st =
      i % 4 < 2 ? ElementType::kF8E8M0FNU : ElementType::kF32;
  const int64_t block = Uniform(rng, 1, 3) * 2, kb = Uniform(rng, 1, 3);
  const int64_t k = block * kb, m = Uniform(rng, 1, 4), n = Uniform(rng, 1, 4);
  const bool rhs_kn = Uniform(rng, 0, 1) == 1;  // rhs [k, n] or [n, k]
  const std::vector<int64_t> ldims = {m, k};
  const std::vector<int64_t> rdims =
      rhs_kn ? std::vector<int64_t>{k, n} : std::vector<int64_t>{n, k};
  // Which scales are blocks over k (the others scalars); and sometimes
  // blocks over m too.
  const int which = i % 3;  // lhs, rhs, both blocked
  const int64_t mb = m % 2 == 0 && Uniform(rng, 0, 1) ? m / 2 : m;
  std::vector<int64_t> lsdims, rsdims;
  if (which != 1) lsdims = {mb, kb};
  if (which != 0) {
    rsdims = rhs_kn ? std::vector<int64_t>{kb, n} : std::vector<int64_t>{n, kb};
  }
  std::ostringstream hlo;
  hlo << "HloModule scaled\n\nENTRY main {\n  lhs = " << TypeText(lt)
      << Dims(ldims) << " parameter(0)\n  rhs = " << TypeText(rt) << Dims(rdims)
      << " parameter(1)\n  lhs_scale = " << TypeText(st) << Dims(lsdims)
      << " parameter(2)\n  rhs_scale = " << TypeText(st) << Dims(rsdims)
      << " parameter(3)\n  ROOT d = " << TypeText(out) << Dims({m, n})
      << " scaled-dot(lhs, rhs, lhs_scale, rhs_scale), "
         "lhs_contracting_dims={1}, rhs_contracting_dims={"
      << (rhs_kn ? 0 : 1) << "}\n}\n";
  ExpanderCase c;
  c.label = "scaled-dot " + std::to_string(i);
  c.hlo = hlo.str();
  c.pass = ExpandScaledDots;
  c.pass_name = "ScaledDotRewriter";
  c.op = hlo::Opcode::kScaledDot;
  c.args.push_back(SmallValues(lt, ldims, -3, 3, rng));
  c.args.push_back(SmallValues(rt, rdims, -3, 3, rng));
  // Powers of two: exact in every scale type.
  for (const std::vector<int64_t>* d : {&lsdims, &rsdims}) {
    Literal s = Literal::Make(st, *d);
    for (double& v : s.floats) v = std::ldexp(1.0, Uniform(rng, -2, 2));
    c.args.push_back(std::move(s));
  }
  return c;
}

std::vector<hlo::Shape> ShapeLeaves(const hlo::Shape& s) {
  if (!s.IsTuple()) return {s};
  std::vector<hlo::Shape> out;
  for (const hlo::Shape& e : s.tuple_elements) {
    for (const hlo::Shape& x : ShapeLeaves(e)) out.push_back(x);
  }
  return out;
}

std::string CompareResults(const Literal& want, const Literal& got,
                           const Tolerance& tol) {
  std::vector<Literal> w = LeafLiterals(want), g = LeafLiterals(got);
  if (w.size() != g.size()) return "result count differs";
  std::string errors;
  for (size_t k = 0; k < w.size(); ++k) {
    const std::string diff = CompareLiterals(w[k], g[k], tol);
    if (!diff.empty()) {
      errors += "result " + std::to_string(k) + ": " + diff + "\n";
    }
  }
  return errors;
}

// The program `compile` makes of the case's module (as the compile op:
// the lowering every compile needs, or the whole pipeline and
// fusion_plan).
Result<std::string> CompileCase(const ExpanderCase& c, const std::string& entry,
                                emit::Target target) {
  IXA_ASSIGN_OR_RETURN(auto module, hlo::ParseHloModule(c.hlo));
  ExprContext ctx;
  IXA_ASSIGN_OR_RETURN(
      PrefusionResult lowered,
      c.fuse ? RunPrefusion(*module) : RunCompileLowering(*module));
  if (lowered.module) module = std::move(lowered.module);
  if (c.fuse) {
    FusionPlanOptions plan_options;
    plan_options.model = CostModel::kXla;
    IXA_ASSIGN_OR_RETURN(
        FusionPlanResult plan,
        PlanFusions(*module, *hw::FindDevice("h100"), plan_options, &ctx));
    IXA_ASSIGN_OR_RETURN(module, hlo::ParseHloModule(plan.module_text));
  }
  emit::CompileOptions options;
  options.target = target;
  options.entry_name = entry;
  IXA_ASSIGN_OR_RETURN(
      emit::ProgramResult program,
      emit::CompileModule(*module, *hw::FindDevice("h100"), options, &ctx));
  return program.code;
}

std::vector<ExpanderCase> AllCases() {
  std::mt19937_64 rng(20240611);
  std::vector<ExpanderCase> cases;
  for (int i = 0; i < 24; ++i) cases.push_back(BatchNormCase(i, rng));
  for (int i = 0; i < 30; ++i) cases.push_back(TopkCase(i, rng));
  for (int i = 0; i < 18; ++i) cases.push_back(StochasticConvertCase(i, rng));
  for (int i = 0; i < 30; ++i) cases.push_back(SelectAndScatterCase(i, rng));
  // A few through the whole pipeline and fusion_plan.
  for (size_t i = 0; i < cases.size(); i += 7) cases[i].fuse = true;
  return cases;
}

std::vector<ExpanderCase> DotCases() {
  std::mt19937_64 rng(20250301);
  std::vector<ExpanderCase> cases;
  for (int i = 0; i < 36; ++i) cases.push_back(RaggedDotCase(i, rng));
  for (int i = 0; i < 18; ++i) cases.push_back(ScaledDotCase(i, rng));
  for (size_t i = 0; i < cases.size(); i += 9) cases[i].fuse = true;
  return cases;
}

void CheckInterpreted(const std::vector<ExpanderCase>& cases) {
  for (const ExpanderCase& c : cases) {
    INFO(c.label << "\n" << c.hlo);
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    Result<Literal> want = Interpret(*(*module)->entry(), c.args);
    INFO((want.ok() ? "" : want.error().message));
    REQUIRE(want.ok());
    Result<PassResult> pass = c.pass(**module);
    INFO((pass.ok() ? "" : pass.error().message));
    REQUIRE(pass.ok());
    REQUIRE(pass->module);
    REQUIRE(pass->rewrites.size() == 1);
    CHECK(pass->rewrites[0].pass == c.pass_name);
    for (const auto& comp : pass->module->computations()) {
      for (const auto& in : comp->instructions()) CHECK(in->opcode != c.op);
    }
    Result<Literal> got = Interpret(*pass->module->entry(), c.args);
    INFO((got.ok() ? "" : got.error().message));
    REQUIRE(got.ok());
    CHECK(CompareResults(*want, *got, c.tol) == "");
  }
}

TEST_CASE("expanders: the expanded module computes what the op does",
          "[.][emit_expanders]") {
  CheckInterpreted(AllCases());
}

TEST_CASE("dot expanders: the expanded module computes what the op does",
          "[.][emit_dot_expanders]") {
  CheckInterpreted(DotCases());
}

// Runs the cases' programs for `target`; per case "" or what went wrong.
std::vector<std::string> RunCases(const std::vector<ExpanderCase>& cases,
                                  emit::Target target) {
  std::vector<std::string> errors(cases.size());
  std::vector<CppKernel> programs;
  std::vector<int> program_of(cases.size(), -1);
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string entry = "expanded_" + std::to_string(i);
    Result<std::string> code = CompileCase(cases[i], entry, target);
    if (!code.ok()) {
      errors[i] = "compile: " + code.error().message;
      continue;
    }
    program_of[i] = static_cast<int>(programs.size());
    programs.push_back({entry, *code});
  }
  CppPrograms cpp;
  CudaModelPrograms cuda;
  if (!programs.empty()) {
    Status built = target == emit::Target::kCuda ? cuda.Build(programs)
                                                 : cpp.Build(programs);
    if (!built.ok()) {
      for (std::string& e : errors) {
        if (e.empty()) e = built.error().message;
      }
      return errors;
    }
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    if (program_of[i] < 0) continue;
    const ExpanderCase& c = cases[i];
    auto module = hlo::ParseHloModule(c.hlo);
    const hlo::Computation& entry = *(*module)->entry();
    std::vector<std::vector<uint8_t>> params;
    for (int64_t p = 0; p < entry.parameter_count(); ++p) {
      params.push_back(ToPhysical(c.args[p], entry.parameter(p)->shape));
    }
    const std::vector<hlo::Shape> shapes = ShapeLeaves(entry.root()->shape);
    std::vector<size_t> bytes;
    for (const hlo::Shape& s : shapes) {
      bytes.push_back(static_cast<size_t>(ComputePhysicalLayout(s).bytes()));
    }
    const std::string& name = programs[program_of[i]].name;
    Result<std::vector<std::vector<uint8_t>>> outputs =
        target == emit::Target::kCuda
            ? cuda.Run(name, params, bytes, ThreadOrder::kRandom, 7 + i)
            : cpp.Run(name, params, bytes);
    if (!outputs.ok()) {
      errors[i] = outputs.error().message;
      continue;
    }
    Result<Literal> want = Interpret(entry, c.args);
    if (!want.ok()) {
      errors[i] = "interpreter: " + want.error().message;
      continue;
    }
    Literal got;
    got.type = ElementType::kTuple;
    for (size_t k = 0; k < shapes.size(); ++k) {
      got.tuple.push_back(FromPhysical((*outputs)[k], shapes[k]));
    }
    if (!entry.root()->shape.IsTuple()) got = got.tuple[0];
    errors[i] = CompareResults(*want, got, c.tol);
  }
  return errors;
}

void CheckCompiled(const std::vector<ExpanderCase>& cases) {
  std::vector<std::string> errors = RunCases(cases, emit::Target::kCpp);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label << (cases[i].fuse ? " (fused)" : "") << "\n"
                        << cases[i].hlo << "\n"
                        << errors[i]);
    CHECK(errors[i].empty());
  }
}

// One case of each op through the CUDA target, in the CPU model of CUDA
// (threads in random order: a race in a scatter or a sort shows).
TEST_CASE("expanders: compiled programs match the interpreter",
          "[.][emit_expanders]") {
  CheckCompiled(AllCases());
}

TEST_CASE("dot expanders: compiled programs match the interpreter",
          "[.][emit_dot_expanders]") {
  CheckCompiled(DotCases());
}

void CheckCuda(const std::vector<ExpanderCase>& all) {
  std::vector<ExpanderCase> cases;
  std::vector<hlo::Opcode> seen;
  for (const ExpanderCase& c : all) {
    if (std::find(seen.begin(), seen.end(), c.op) != seen.end()) continue;
    seen.push_back(c.op);
    cases.push_back(c);
  }
  std::vector<std::string> errors = RunCases(cases, emit::Target::kCuda);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label << "\n" << cases[i].hlo << "\n" << errors[i]);
    CHECK(errors[i].empty());
  }
}

TEST_CASE("expanders: cuda programs match the interpreter",
          "[.][emit_expanders]") {
  CheckCuda(AllCases());
}

TEST_CASE("dot expanders: cuda programs match the interpreter",
          "[.][emit_dot_expanders]") {
  CheckCuda(DotCases());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
