#include "tests/emit/emit_random_fusions.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "analysis/hlo/shape.h"
#include "tests/emit/emit_random_generator.h"

namespace ixa::emit_test {

const char* TargetKindName(TargetKind kind) {
  switch (kind) {
    case TargetKind::kLoop:
      return "loop";
    case TargetKind::kTranspose:
      return "transpose";
    case TargetKind::kRowReduction:
      return "row_reduction";
    case TargetKind::kMultiRowReduction:
      return "multi_row_reduction";
    case TargetKind::kColumnReduction:
      return "column_reduction";
    case TargetKind::kScatter:
      return "scatter";
    case TargetKind::kConcatenate:
      return "concatenate";
    case TargetKind::kInPlaceDus:
      return "in_place_dynamic_update_slice";
    case TargetKind::kInputSlices:
      return "input_slices";
  }
  return "?";
}

std::vector<TargetKind> AllTargetKinds() {
  return {TargetKind::kLoop,
          TargetKind::kTranspose,
          TargetKind::kRowReduction,
          TargetKind::kMultiRowReduction,
          TargetKind::kColumnReduction,
          TargetKind::kScatter,
          TargetKind::kConcatenate,
          TargetKind::kInPlaceDus,
          TargetKind::kInputSlices};
}

namespace {

using namespace random_detail;  // NOLINT: the builder and its helpers

ElementType RandomType(Generator& g, bool allow_pred = true) {
  static const std::vector<ElementType> kTypes = {
      ElementType::kF32,  ElementType::kF32, ElementType::kF32,
      ElementType::kBF16, ElementType::kF16, ElementType::kS32,
      ElementType::kS8,   ElementType::kU8,  ElementType::kF64,
      ElementType::kS64,  ElementType::kU32, ElementType::kPred};
  ElementType t = g.Pick(kTypes);
  if (!allow_pred && t == ElementType::kPred) t = ElementType::kS32;
  return t;
}

Dims RandomDims(Generator& g, int64_t max_elements) {
  static const std::vector<int64_t> kSizes = {1,  2,  3,  5,  7,  9,
                                              13, 17, 31, 33, 64, 100};
  int rank = static_cast<int>(g.Uniform(1, 3));
  Dims d;
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t s = g.Pick(kSizes);
    while (s > 1 && n * s > max_elements) s = (s + 1) / 2;
    d.push_back(s);
    n *= s;
  }
  return d;
}

// A chain of elementwise steps over `seed_values`, returning the last.
Value ElementwiseChain(Generator& g, std::vector<Value> pool, int steps) {
  Value cur = pool.back();
  for (int i = 0; i < steps; ++i) {
    cur = g.Elementwise(cur, pool);
    pool.push_back(cur);
  }
  return cur;
}

GeneratedFusion Loop(Generator& g) {
  GeneratedFusion f;
  ElementType t = RandomType(g);
  Dims d = RandomDims(g, 4096);
  std::vector<Value> pool;
  pool.push_back(g.Param(t, d));
  int producers = static_cast<int>(g.Uniform(1, 3));
  for (int i = 0; i < producers; ++i)
    pool.push_back(g.Producer(t, d, &pool.back()));
  int steps = static_cast<int>(g.Uniform(2, 7));
  for (int i = 0; i < steps; ++i) {
    Value v = g.Chance(25) ? g.RoundTrip(g.Pick(pool))
                           : g.Elementwise(g.Pick(pool), pool);
    pool.push_back(v);
  }
  // Every value feeds the result: fold the unused ones in.
  Value last = pool.back();
  for (const Value& v : pool) {
    if (g.Used(v) || v.name == last.name || v.type != t || v.dims != d)
      continue;
    std::string op = t == ElementType::kPred ? "or"
                     : g.Chance(50)          ? "add"
                                             : "maximum";
    last = g.Emit(t, d, op + "(" + last.name + ", " + v.name + ")");
  }
  if (g.Chance(25)) {
    // Multi-output: a second root of the same shape (maybe another type).
    Value other = g.Pick(pool);
    Value conv = g.Emit(g.Chance(50) ? ElementType::kF32 : t, d,
                        "convert(" + other.name + ")");
    std::string root = "out = (" + ShapeText(last.type, d) + ", " +
                       ShapeText(conv.type, d) + ") tuple(" + last.name + ", " +
                       conv.name + ")";
    f.hlo = g.Module(root);
  } else {
    std::string layout =
        d.size() >= 2 && g.Chance(20) ? g.PermutedLayout(d.size()) : "";
    Value out = g.Emit(t, d, "copy(" + last.name + ")", layout);
    f.hlo = g.Module(g.TakeLastAsRoot());
    (void)out;
  }
  return f;
}

GeneratedFusion Transpose(Generator& g) {
  GeneratedFusion f;
  static const std::vector<ElementType> kTypes = {
      ElementType::kF32,  ElementType::kF32, ElementType::kF16,
      ElementType::kBF16, ElementType::kS8,  ElementType::kF64};
  ElementType t = g.Pick(kTypes);
  static const std::vector<int64_t> kSizes = {17, 20, 32, 33, 40, 65};
  int rank = static_cast<int>(g.Uniform(2, 3));
  Dims d;
  for (int i = 0; i < rank; ++i) d.push_back(g.Pick(kSizes));
  Dims perm;
  if (rank == 2) {
    perm = {1, 0};
  } else {
    perm = g.Chance(50) ? Dims{0, 2, 1} : Dims{2, 1, 0};
    // 021 keeps its major dim: a small one is fine (210 swaps it).
    if (perm[0] == 0 && g.Chance(50)) d[0] = g.Uniform(1, 3);
  }
  Value p = g.Param(t, d);
  Value pre = ElementwiseChain(g, {p}, static_cast<int>(g.Uniform(0, 2)));
  Dims out(rank);
  for (int i = 0; i < rank; ++i) out[i] = d[perm[i]];
  Value tr = g.Emit(
      t, out, "transpose(" + pre.name + "), dimensions=" + ListText(perm));
  std::vector<Value> pool;
  if (g.Chance(50)) pool.push_back(g.Param(t, out));
  pool.push_back(tr);  // the chain starts at the transpose
  Value post = ElementwiseChain(g, pool, static_cast<int>(g.Uniform(0, 2)));
  if (g.Chance(30)) {
    // A side output of the input's shape.
    Value side = g.Elementwise(pre, {pre});
    f.hlo = g.Module("out = (" + ShapeText(t, out) + ", " +
                     ShapeText(side.type, d) + ") tuple(" + post.name + ", " +
                     side.name + ")");
  } else {
    Value c = g.Emit(t, out, "copy(" + post.name + ")");
    (void)c;
    f.hlo = g.Module(g.TakeLastAsRoot());
  }
  return f;
}

// A reduce over pred: any (an add or or reducer, init false) or all
// (multiply or and, init true) of a comparison whose threshold makes
// about half of the reduced groups true (a random pred would make nearly
// every any true and every all false).
GeneratedFusion PredReduction(Generator& g, GeneratedFusion f, const Dims& in,
                              const Dims& reduced, const Dims& out) {
  int64_t group = 1;
  for (int64_t d : reduced) group *= in[d];
  ParameterSpec spec;
  spec.random.int_lo = 0;
  spec.random.int_hi = 100000;
  Value p = g.Param(ElementType::kS32, in, "", spec);
  std::string kind =
      g.Pick(std::vector<std::string>{"add", "or", "multiply", "and"});
  const bool any = kind == "add" || kind == "or";
  // P(one element true) = q with (1 - q)^group = 1/2.
  const double q = 1.0 - std::pow(0.5, 1.0 / static_cast<double>(group));
  const int64_t threshold = any ? static_cast<int64_t>(100000 * (1 - q))
                                : static_cast<int64_t>(100000 * q);
  Value k = g.Constant(ElementType::kS32, std::to_string(threshold));
  Value kb =
      g.Emit(ElementType::kS32, in, "broadcast(" + k.name + "), dimensions={}");
  Value c = g.Emit(ElementType::kPred, in,
                   "compare(" + p.name + ", " + kb.name + "), direction=GT");
  {
    // Arithmetic on pred with a comparison that differs only where p = k
    // (add and maximum are or, multiply and minimum and).
    Value c2 = g.Emit(ElementType::kPred, in,
                      "compare(" + p.name + ", " + kb.name + "), direction=GE");
    std::string op = g.Pick(
        std::vector<std::string>{"add", "multiply", "maximum", "minimum"});
    c = g.Emit(ElementType::kPred, in,
               op + "(" + c.name + ", " + c2.name + ")");
  }
  Value x = ElementwiseChain(g, {c}, static_cast<int>(g.Uniform(0, 1)));
  Value init = g.Constant(ElementType::kPred, any ? "false" : "true");
  Value red = g.Emit(ElementType::kPred, out,
                     "reduce(" + x.name + ", " + init.name +
                         "), dimensions=" + ListText(reduced) +
                         ", to_apply=" + g.Reducer(ElementType::kPred, kind));
  if (g.Chance(50)) {
    Value n = g.Emit(ElementType::kPred, out, "not(" + red.name + ")");
    (void)n;
    f.hlo = g.Module(g.TakeLastAsRoot());
  } else {
    g.Emit(ElementType::kPred, out, "copy(" + red.name + ")");
    f.hlo = g.Module(g.TakeLastAsRoot());
  }
  f.reassociates = false;
  return f;
}

// A reduce of two inputs with a tuple-returning reducer: argmax or argmin
// of `x` with its iota position along the last reduced dim (ties go to
// the smaller index, as XLA's tests write it), or the sum and the maximum
// of `x` at once. The results leave as they are, through an epilogue on
// their get-tuple-elements, or beside a side output of the input's shape.
GeneratedFusion VariadicReduction(Generator& g, GeneratedFusion f,
                                  const Value& x, ElementType acc,
                                  const Dims& in, const Dims& reduced,
                                  const Dims& out) {
  const std::string ty = hlo::ElementTypeName(acc);
  const bool fl = IsFloat(acc);
  std::string comp, text, second_ty;
  Value second = x, init_a, init_b;
  const int form = static_cast<int>(g.Uniform(0, 2));
  if (form < 2) {
    const bool max = form == 0;
    second_ty = "s32";
    second = g.Emit(ElementType::kS32, in,
                    "iota(), iota_dimension=" + std::to_string(reduced.back()));
    std::string extreme;
    if (fl) {
      extreme = max ? "-inf" : "inf";
    } else if (acc == ElementType::kU8) {
      extreme = max ? "0" : "255";
    } else {
      extreme = max ? (acc == ElementType::kS64 ? "-9223372036854775808"
                                                : "-2147483648")
                    : (acc == ElementType::kS64 ? "9223372036854775807"
                                                : "2147483647");
    }
    init_a = g.Constant(acc, extreme);
    init_b = g.Constant(ElementType::kS32, "0");
    comp = std::string(max ? "argmax_" : "argmin_") + ty;
    text = comp + " {\n  a = " + ty +
           "[] parameter(0)\n  ai = s32[] parameter(1)\n  b = " + ty +
           "[] parameter(2)\n  bi = s32[] parameter(3)\n"
           "  better = pred[] compare(a, b), direction=" +
           (max ? "GT" : "LT") +
           "\n  eq = pred[] compare(a, b), direction=EQ\n"
           "  lt = pred[] compare(ai, bi), direction=LT\n"
           "  tie = pred[] and(eq, lt)\n  pick = pred[] or(better, tie)\n"
           "  v = " +
           ty + "[] select(pick, a, b)\n  i = s32[] select(pick, ai, bi)\n" +
           "  ROOT r = (" + ty + "[], s32[]) tuple(v, i)\n}\n";
  } else {
    second_ty = ty;
    init_a = g.Constant(acc, "0");
    init_b = g.Constant(acc, fl ? "-inf" : "0");
    comp = "sum_max_" + ty;
    text = comp + " {\n  as = " + ty + "[] parameter(0)\n  am = " + ty +
           "[] parameter(1)\n  bs = " + ty + "[] parameter(2)\n  bm = " + ty +
           "[] parameter(3)\n  s = " + ty + "[] add(as, bs)\n  m = " + ty +
           "[] maximum(am, bm)\n  ROOT r = (" + ty + "[], " + ty +
           "[]) tuple(s, m)\n}\n";
  }
  const ElementType second_type = form < 2 ? ElementType::kS32 : acc;
  const std::string tuple_shape =
      "(" + ShapeText(acc, out) + ", " + ShapeText(second_type, out) + ")";
  const std::string reduce =
      "reduce(" + x.name + ", " + second.name + ", " + init_a.name + ", " +
      init_b.name + "), dimensions=" + ListText(reduced) + ", to_apply=" + comp;
  std::string root;
  const int shape_choice = static_cast<int>(g.Uniform(0, 2));
  if (shape_choice == 0) {
    root = "out = " + tuple_shape + " " + reduce;
  } else {
    std::string r = g.Fresh("variadic");
    g.Raw(r + " = " + tuple_shape + " " + reduce);
    Value v = g.Emit(acc, out, "get-tuple-element(" + r + "), index=0");
    Value w = g.Emit(second_type, out, "get-tuple-element(" + r + "), index=1");
    if (shape_choice == 1) {
      // An epilogue on each element.
      Value v2 = g.Elementwise(v, {v});
      Value w2 = g.Elementwise(w, {w});
      root = "out = (" + ShapeText(v2.type, out) + ", " +
             ShapeText(w2.type, out) + ") tuple(" + v2.name + ", " + w2.name +
             ")";
    } else {
      // A side output of the input's shape.
      Value side = g.Elementwise(x, {x});
      root = "out = " + std::string("(") + ShapeText(acc, out) + ", " +
             ShapeText(second_type, out) + ", " + ShapeText(side.type, in) +
             ") tuple(" + v.name + ", " + w.name + ", " + side.name + ")";
    }
  }
  (void)second_ty;
  std::string module = g.Module(root);
  size_t at = module.find("ENTRY");
  f.hlo = module.substr(0, at) + text + "\n" + module.substr(at);
  // argmax / argmin on exact values are exact; a float sum reassociates.
  f.reassociates = form == 2 && fl;
  return f;
}

GeneratedFusion Reduction(Generator& g, TargetKind kind) {
  GeneratedFusion f;
  f.reassociates = true;
  static const std::vector<ElementType> kTypes = {
      ElementType::kF32, ElementType::kF32, ElementType::kBF16,
      ElementType::kF16, ElementType::kS32, ElementType::kF64,
      ElementType::kS64, ElementType::kU8};
  ElementType t = g.Pick(kTypes);
  Dims in, reduced;
  if (kind == TargetKind::kRowReduction) {
    int64_t r = g.Pick(std::vector<int64_t>{33, 64, 100, 257, 1000, 2100});
    int64_t k = g.Pick(std::vector<int64_t>{1, 3, 7, 20, 65});
    if (g.Chance(30)) {
      in = {g.Uniform(2, 3), k, r};
      reduced = {0, 2};
    } else {
      in = {k, r};
      reduced = {1};
    }
  } else if (kind == TargetKind::kMultiRowReduction) {
    int64_t r = g.Pick(std::vector<int64_t>{2, 4, 8, 16});
    int64_t k = g.Pick(std::vector<int64_t>{65, 130, 300, 1000});
    in = {k, r};
    reduced = {1};
  } else {
    int64_t r = g.Pick(std::vector<int64_t>{64, 100, 300});
    int64_t k = g.Pick(std::vector<int64_t>{33, 40, 70, 130});
    if (g.Chance(40)) {
      in = {g.Uniform(2, 3), r, k};
      reduced = {1};
    } else {
      in = {r, k};
      reduced = {0};
    }
  }
  Dims out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(i)) ==
        reduced.end()) {
      out.push_back(in[i]);
    }
  }
  if (g.Chance(20)) return PredReduction(g, f, in, reduced, out);
  // Inputs stay small so that sums keep precision.
  Value p = g.Param(t, in);
  Value x = ElementwiseChain(g, {p}, static_cast<int>(g.Uniform(0, 2)));
  ElementType acc = t;
  if ((t == ElementType::kBF16 || t == ElementType::kF16) && g.Chance(70)) {
    acc = ElementType::kF32;
    x = g.Emit(acc, in, "convert(" + x.name + ")");
  }
  std::string kind_name =
      g.Pick(std::vector<std::string>{"add", "add", "maximum", "minimum"});
  if (g.Chance(25)) return VariadicReduction(g, f, x, acc, in, reduced, out);
  Value init =
      g.Constant(acc, kind_name == "add" ? "0"
                      : IsFloat(acc) ? (kind_name == "maximum" ? "-inf" : "inf")
                                     : "0");
  Value red = g.Emit(acc, out,
                     "reduce(" + x.name + ", " + init.name +
                         "), dimensions=" + ListText(reduced) +
                         ", to_apply=" + g.Reducer(acc, kind_name));
  int shape_choice = static_cast<int>(g.Uniform(0, 3));
  if (shape_choice == 0) {
    // Epilogue on the reduce.
    Value e = g.Emit(t, out, "convert(" + red.name + ")");
    Value n = g.Emit(
        t, out,
        std::string(t == ElementType::kU8 ? "not(" : "negate(") + e.name + ")");
    (void)n;
    f.hlo = g.Module(g.TakeLastAsRoot());
  } else if (shape_choice == 1) {
    // Side output of the reduce input's shape.
    Value side = g.Elementwise(x, {x});
    f.hlo = g.Module("out = (" + ShapeText(acc, out) + ", " +
                     ShapeText(side.type, in) + ") tuple(" + red.name + ", " +
                     side.name + ")");
  } else if (shape_choice == 2) {
    // Two reductions of the same input.
    Value init2 = g.Constant(acc, IsFloat(acc) ? "-inf" : "0");
    Value red2 = g.Emit(acc, out,
                        "reduce(" + x.name + ", " + init2.name +
                            "), dimensions=" + ListText(reduced) +
                            ", to_apply=" + g.Reducer(acc, "maximum"));
    f.hlo =
        g.Module("out = (" + ShapeText(acc, out) + ", " + ShapeText(acc, out) +
                 ") tuple(" + red.name + ", " + red2.name + ")");
  } else {
    g.Emit(acc, out, "copy(" + red.name + ")");
    f.hlo = g.Module(g.TakeLastAsRoot());
  }
  return f;
}

GeneratedFusion Scatter(Generator& g) {
  GeneratedFusion f;
  ElementType t =
      g.Pick(std::vector<ElementType>{ElementType::kF32, ElementType::kS32,
                                      ElementType::kF16, ElementType::kS8});
  int64_t n = g.Pick(std::vector<int64_t>{10, 33, 64});
  int64_t m = g.Pick(std::vector<int64_t>{1, 5, 17});
  int64_t u = g.Uniform(3, std::min<int64_t>(n, 40));
  bool assign = g.Chance(40);
  Value op = g.Param(t, {n, m});
  ParameterSpec spec;
  spec.random.int_lo = assign ? 0 : -1;
  spec.random.int_hi = assign ? n + 2 : n;
  spec.distinct = assign;
  Value idx = g.Param(ElementType::kS32, {u, 1}, "", spec);
  Value up = g.Param(t, {u, m});
  Value upd = ElementwiseChain(g, {up}, static_cast<int>(g.Uniform(0, 2)));
  std::string ty = hlo::ElementTypeName(t);
  std::string comp;
  if (assign) {
    comp = "assign_" + ty;
    f.hlo = comp + " {\n  a = " + ty + "[] parameter(0)\n  ROOT b = " + ty +
            "[] parameter(1)\n}\n";
  } else {
    f.reassociates = IsFloat(t);
    comp = "combine_" + ty;
    f.hlo = comp + " {\n  a = " + ty + "[] parameter(0)\n  b = " + ty +
            "[] parameter(1)\n  ROOT c = " + ty + "[] add(a, b)\n}\n";
  }
  std::string root =
      "out = " + ShapeText(t, {n, m}) + " scatter(" + op.name + ", " +
      idx.name + ", " + upd.name +
      "), update_window_dims={1}, inserted_window_dims={0}, "
      "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=" +
      comp;
  std::string module = g.Module(root);
  size_t at = module.find("ENTRY");
  f.hlo = module.substr(0, at) + f.hlo + "\n" + module.substr(at);
  f.parameters = g.specs();
  return f;
}

GeneratedFusion Concatenate(Generator& g) {
  GeneratedFusion f;
  ElementType t = RandomType(g);
  Dims d = RandomDims(g, 2048);
  int dim = static_cast<int>(g.Uniform(0, d.size() - 1));
  int parts = static_cast<int>(g.Uniform(2, 4));
  std::string args, shapes;
  int64_t total = 0;
  for (int j = 0; j < parts; ++j) {
    Dims pd = d;
    pd[dim] = g.Uniform(1, 40);
    total += pd[dim];
    Value p = g.Param(t, pd);
    Value v = ElementwiseChain(g, {p}, static_cast<int>(g.Uniform(0, 2)));
    args += (j ? ", " : "") + v.name;
  }
  Dims od = d;
  od[dim] = total;
  f.hlo = g.Module("out = " + ShapeText(t, od) + " concatenate(" + args +
                   "), dimensions={" + std::to_string(dim) + "}");
  return f;
}

GeneratedFusion Dus(Generator& g) {
  GeneratedFusion f;
  ElementType t = RandomType(g, /*allow_pred=*/false);
  Dims d = RandomDims(g, 4096);
  Dims ud;
  for (int64_t x : d) ud.push_back(g.Uniform(1, x));
  Value base = g.Param(t, d);
  Value up = g.Param(t, ud);
  Value upd = ElementwiseChain(g, {up}, static_cast<int>(g.Uniform(0, 3)));
  std::string args = base.name + ", " + upd.name;
  for (size_t i = 0; i < d.size(); ++i) {
    ParameterSpec s;
    s.random.int_lo = -2;
    s.random.int_hi = d[i];
    args += ", " + g.Param(ElementType::kS32, {}, "", s).name;
  }
  f.hlo = g.Module("out = " + ShapeText(t, d) + " dynamic-update-slice(" +
                   args + ")");
  return f;
}

GeneratedFusion InputSlices(Generator& g) {
  GeneratedFusion f;
  ElementType t = RandomType(g);
  Dims d = RandomDims(g, 4096);
  Value p = g.Param(t, d);
  Value v = ElementwiseChain(g, {p}, static_cast<int>(g.Uniform(1, 3)));
  int outs = static_cast<int>(g.Uniform(2, 3));
  std::string names, shapes;
  for (int j = 0; j < outs; ++j) {
    Dims sd;
    std::string spec = "{";
    for (size_t i = 0; i < d.size(); ++i) {
      int64_t start = g.Uniform(0, d[i] - 1);
      int64_t limit = g.Uniform(start + 1, d[i]);
      sd.push_back(limit - start);
      spec += std::string(i ? ", " : "") + "[" + std::to_string(start) + ":" +
              std::to_string(limit) + "]";
    }
    Value s = g.Emit(t, sd, "slice(" + v.name + "), slice=" + spec + "}");
    names += (j ? ", " : "") + s.name;
    shapes += (j ? ", " : "") + ShapeText(t, sd);
  }
  f.hlo = g.Module("out = (" + shapes + ") tuple(" + names + ")");
  return f;
}

}  // namespace

GeneratedFusion GenerateFusion(TargetKind kind, uint64_t seed) {
  Generator g(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(kind));
  GeneratedFusion f;
  switch (kind) {
    case TargetKind::kLoop:
      f = Loop(g);
      break;
    case TargetKind::kTranspose:
      f = Transpose(g);
      break;
    case TargetKind::kRowReduction:
    case TargetKind::kMultiRowReduction:
    case TargetKind::kColumnReduction:
      f = Reduction(g, kind);
      break;
    case TargetKind::kScatter:
      f = Scatter(g);
      break;
    case TargetKind::kConcatenate:
      f = Concatenate(g);
      break;
    case TargetKind::kInPlaceDus:
      f = Dus(g);
      break;
    case TargetKind::kInputSlices:
      f = InputSlices(g);
      break;
  }
  f.kind = kind;
  f.seed = seed;
  f.parameters = g.specs();
  return f;
}

std::vector<Literal> GenerateInputs(const GeneratedFusion& fusion,
                                    const std::vector<hlo::Shape>& shapes,
                                    uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Literal> out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    ParameterSpec spec =
        i < fusion.parameters.size() ? fusion.parameters[i] : ParameterSpec{};
    Literal lit = RandomLiteral(shapes[i], rng, spec.random);
    if (spec.distinct && !IsFloat(lit.type) && !IsComplex(lit.type)) {
      std::vector<int64_t> values(std::max<int64_t>(
          lit.size(), spec.random.int_hi - spec.random.int_lo + 1));
      std::iota(values.begin(), values.end(), spec.random.int_lo);
      std::shuffle(values.begin(), values.end(), rng);
      for (int64_t k = 0; k < lit.size(); ++k) {
        lit.ints[k] = WrapToType(static_cast<uint64_t>(values[k]), lit.type);
      }
    }
    if (spec.sorted && !IsFloat(lit.type) && !IsComplex(lit.type)) {
      // Signed values are sign-extended: order them as int64.
      const bool is_signed = IsSigned(lit.type);
      std::sort(lit.ints.begin(), lit.ints.end(), [&](uint64_t a, uint64_t b) {
        return is_signed ? static_cast<int64_t>(a) < static_cast<int64_t>(b)
                         : a < b;
      });
    }
    out.push_back(std::move(lit));
  }
  return out;
}

}  // namespace ixa::emit_test
