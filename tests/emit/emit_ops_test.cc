// Every elementwise HLO op the code generators support, on every element
// type it takes, in every target: each op runs on a grid of edge values (a
// constant in the fusion: infinities, NaN, signed zeros, the domain edges
// of the inverse functions, the overflow points of cosh / sinh, integer
// extremes and shift widths) and on random inputs, the `cpp` kernel, the
// `cuda` kernel in the CPU model of CUDA and the host `mlir` module
// against the interpreter. Then pred arithmetic (XLA's HloEvaluator: 0 / 1
// values, the result nonzero), reductions over pred (any, all), and
// variadic reductions (argmax / argmin with ties broken toward the smaller
// index, a sum with a max) as rows and columns.
#include <catch2/catch.hpp>
#include <sstream>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_harness.h"
#include "tests/emit/emit_interpreter.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

using hlo::ElementTypeName;

void Expect(const std::vector<CheckCase>& cases) {
  CheckOptions check;
  check.planner = H100Planner();
  CheckSummary s = CheckFusions(cases, check);
  REQUIRE(s.cases.size() == cases.size());
  for (const CaseReport& c : s.cases) {
    INFO(c.label << " (" << c.emitter << ")");
    CHECK(c.error == "");
  }
  // Every case ran in every target (the sanitizer pass runs a subset).
  if (!Sanitized()) {
    const int n = static_cast<int>(cases.size());
    CHECK(s.cpp_runs == n);
    CHECK(s.cuda_runs == n);
    CHECK(s.mlir_verified >= n);
    CHECK(s.mlir_runs == n);
  }
}

std::string Join(const std::vector<std::string>& items,
                 const std::string& separator = ", ") {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? separator : "") + items[i];
  return s;
}

const std::vector<ElementType> kFloatTypes = {
    ElementType::kF32, ElementType::kF64, ElementType::kF16,
    ElementType::kBF16};
const std::vector<ElementType> kIntTypes = {
    ElementType::kS8, ElementType::kS16, ElementType::kS32, ElementType::kS64,
    ElementType::kU8, ElementType::kU16, ElementType::kU32, ElementType::kU64};

// Edge values of the float functions: the domain edges of acos / asin
// (|x| > 1 is NaN), of atanh (+-1 is +-inf) and acosh (below 1 is NaN),
// signed zeros, where cosh / sinh / exp overflow (f32 past 89, f64 past
// 710), huge and tiny magnitudes, infinities and NaN.
std::vector<std::string> FloatGrid() {
  return {"-inf", "-1e30", "-711", "-100",  "-20",  "-2",   "-1.5",
          "-1",   "-0.75", "-0.5", "-1e-5", "-0",   "0",    "1e-5",
          "0.5",  "0.75",  "1",    "1.5",   "2",    "3.25", "20",
          "89",   "100",   "710",  "711",   "1e30", "inf",  "nan"};
}

// Integer extremes and the values around the shift widths, in range.
std::vector<std::string> IntGrid(ElementType t) {
  const int bits = Bits(t);
  const bool is_signed = IsSigned(t);
  std::vector<std::string> out;
  if (is_signed) {
    const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
    out = {std::to_string(-max - 1), std::to_string(-max)};
    for (int64_t v : {-100, -9, -2, -1}) {
      if (v >= -max) out.push_back(std::to_string(v));
    }
    for (int64_t v : {0, 1, 2, 3, 7, 8, 9, 15, 16, 31, 32, 63, 64, 100}) {
      if (v < max - 1) out.push_back(std::to_string(v));
    }
    out.push_back(std::to_string(max - 1));
    out.push_back(std::to_string(max));
  } else {
    const uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    for (uint64_t v : {0, 1, 2, 3, 7, 8, 9, 15, 16, 31, 32, 63, 64, 100}) {
      if (v < max - 1) out.push_back(std::to_string(v));
    }
    out.push_back(std::to_string(max - 1));
    out.push_back(std::to_string(max));
  }
  return out;
}

// Every type's grid has the float grid's length (the others repeat), so
// that the roots of one fusion share a shape.
std::vector<std::string> Grid(ElementType t) {
  std::vector<std::string> grid = FloatGrid();
  if (IsFloat(t)) return grid;
  std::vector<std::string> values =
      t == ElementType::kPred ? std::vector<std::string>{"false", "true"}
                              : IntGrid(t);
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = values[i % values.size()];
  return grid;
}

std::string Shape(ElementType t, const std::vector<int64_t>& dims) {
  std::string s = std::string(ElementTypeName(t)) + "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// One fusion applying `op` (with `attrs`) to every type of `types`: per
// type, to the edge grid and to a random parameter of the grid's length.
// `result` gives the op's result type from the operand type.
CheckCase UnaryCase(const std::string& label, const std::string& op,
                    const std::vector<ElementType>& types,
                    const std::string& attrs = "",
                    ElementType result = ElementType::kInvalid,
                    double float_range = 4.0) {
  CheckCase c;
  c.label = label;
  c.run_mlir = true;
  std::string body;
  std::vector<std::string> roots, root_shapes;
  int k = 0;
  for (ElementType t : types) {
    std::vector<std::string> grid = Grid(t);
    const std::vector<int64_t> dims = {static_cast<int64_t>(grid.size())};
    const ElementType r = result == ElementType::kInvalid ? t : result;
    const std::string n = std::to_string(k);
    body += "p" + n + " = " + Shape(t, dims) + " parameter(" + n + ")\n";
    body +=
        "c" + n + " = " + Shape(t, dims) + " constant({" + Join(grid) + "})\n";
    body += "a" + n + " = " + Shape(r, dims) + " " + op + "(p" + n + ")" +
            attrs + "\n";
    body += "b" + n + " = " + Shape(r, dims) + " " + op + "(c" + n + ")" +
            attrs + "\n";
    roots.push_back("a" + n);
    roots.push_back("b" + n);
    root_shapes.push_back(Shape(r, dims));
    root_shapes.push_back(Shape(r, dims));
    ParameterSpec spec;
    spec.random.float_range = float_range;
    c.parameters.push_back(spec);
    ++k;
  }
  c.hlo = "ENTRY e {\n" + body + "ROOT t = (" + Join(root_shapes) + ") tuple(" +
          Join(roots) + ")\n}\n";
  return c;
}

// One fusion applying the binary `op` to every type of `types`: per type,
// to every pair of grid values (the grid broadcast along each dim of an
// N x N array) and to two random parameters of that shape.
CheckCase BinaryCase(const std::string& label, const std::string& op,
                     const std::vector<ElementType>& types,
                     const std::string& attrs = "",
                     ElementType result = ElementType::kInvalid) {
  CheckCase c;
  c.label = label;
  c.run_mlir = true;
  std::string body;
  std::vector<std::string> roots, root_shapes;
  int k = 0;
  for (ElementType t : types) {
    std::vector<std::string> grid = Grid(t);
    const int64_t g = static_cast<int64_t>(grid.size());
    const std::vector<int64_t> dims = {g, g};
    const ElementType r = result == ElementType::kInvalid ? t : result;
    const std::string n = std::to_string(k);
    const std::string s = Shape(t, dims);
    body += "p" + n + " = " + s + " parameter(" + std::to_string(2 * k) +
            ")\nq" + n + " = " + s + " parameter(" + std::to_string(2 * k + 1) +
            ")\n";
    body +=
        "c" + n + " = " + Shape(t, {g}) + " constant({" + Join(grid) + "})\n";
    body += "x" + n + " = " + s + " broadcast(c" + n + "), dimensions={0}\n";
    body += "y" + n + " = " + s + " broadcast(c" + n + "), dimensions={1}\n";
    body += "a" + n + " = " + Shape(r, dims) + " " + op + "(p" + n + ", q" + n +
            ")" + attrs + "\n";
    body += "b" + n + " = " + Shape(r, dims) + " " + op + "(x" + n + ", y" + n +
            ")" + attrs + "\n";
    roots.push_back("a" + n);
    roots.push_back("b" + n);
    root_shapes.push_back(Shape(r, dims));
    root_shapes.push_back(Shape(r, dims));
    c.parameters.resize(2 * k + 2);
    ++k;
  }
  c.hlo = "ENTRY e {\n" + body + "ROOT t = (" + Join(root_shapes) + ") tuple(" +
          Join(roots) + ")\n}\n";
  return c;
}

TEST_CASE("ops: every float unary op on edge values, in every target",
          "[.][emit_ops_float]") {
  std::vector<CheckCase> cases;
  for (const char* op : {"abs",
                         "negate",
                         "sign",
                         "exponential",
                         "exponential-minus-one",
                         "log",
                         "log-plus-one",
                         "sqrt",
                         "rsqrt",
                         "cbrt",
                         "tanh",
                         "logistic",
                         "sine",
                         "cosine",
                         "tan",
                         "erf",
                         "floor",
                         "ceil",
                         "round-nearest-afz",
                         "round-nearest-even",
                         "acos",
                         "acosh",
                         "asin",
                         "asinh",
                         "atan",
                         "atanh",
                         "cosh",
                         "sinh",
                         "copy"}) {
    // The inverse functions' random inputs reach past their domains.
    double range = std::string(op).rfind("a", 0) == 0 ? 1.5 : 4.0;
    cases.push_back(
        UnaryCase(op, op, kFloatTypes, "", ElementType::kInvalid, range));
  }
  cases.push_back(
      UnaryCase("is_finite", "is-finite", kFloatTypes, "", ElementType::kPred));
  // reduce-precision: to f16's and bf16's formats, to a narrow one, and
  // one that keeps the exponent (only the mantissa rounds).
  cases.push_back(UnaryCase("reduce_precision_e5m10", "reduce-precision",
                            kFloatTypes,
                            ", exponent_bits=5, mantissa_bits=10"));
  cases.push_back(UnaryCase("reduce_precision_e8m7", "reduce-precision",
                            kFloatTypes, ", exponent_bits=8, mantissa_bits=7"));
  cases.push_back(UnaryCase("reduce_precision_e4m3", "reduce-precision",
                            kFloatTypes, ", exponent_bits=4, mantissa_bits=3",
                            ElementType::kInvalid, 300.0));
  cases.push_back(UnaryCase("reduce_precision_e11m2", "reduce-precision",
                            {ElementType::kF64},
                            ", exponent_bits=11, mantissa_bits=2"));
  Expect(cases);
}

TEST_CASE("ops: every float binary op and comparison on edge pairs",
          "[.][emit_ops_float]") {
  std::vector<CheckCase> cases;
  for (const char* op : {"add", "subtract", "multiply", "divide", "remainder",
                         "maximum", "minimum", "power", "atan2"}) {
    cases.push_back(BinaryCase(op, op, kFloatTypes));
  }
  for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    cases.push_back(BinaryCase(std::string("compare_") + dir, "compare",
                               kFloatTypes, std::string(", direction=") + dir,
                               ElementType::kPred));
    cases.push_back(
        BinaryCase(std::string("compare_total_") + dir, "compare", kFloatTypes,
                   std::string(", direction=") + dir + ", type=TOTALORDER",
                   ElementType::kPred));
  }
  Expect(cases);
}

TEST_CASE("ops: every integer op, comparison and conversion on edge values",
          "[.][emit_ops_int]") {
  std::vector<CheckCase> cases;
  for (const char* op : {"abs", "negate", "not", "sign", "popcnt",
                         "count-leading-zeros", "clz", "copy"}) {
    cases.push_back(UnaryCase(std::string("int_") + op, op, kIntTypes));
  }
  for (const char* op :
       {"add", "subtract", "multiply", "divide", "remainder", "maximum",
        "minimum", "and", "or", "xor", "shift-left", "shift-right-logical",
        "shift-right-arithmetic", "power"}) {
    cases.push_back(BinaryCase(std::string("int_") + op, op, kIntTypes));
  }
  for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    std::vector<ElementType> types = kIntTypes;
    types.push_back(ElementType::kPred);
    cases.push_back(BinaryCase(std::string("int_compare_") + dir, "compare",
                               types, std::string(", direction=") + dir,
                               ElementType::kPred));
  }
  // Every conversion between the supported types (float to integer
  // saturates, NaN to 0; to pred is `!= 0`).
  std::vector<ElementType> all = kIntTypes;
  all.insert(all.end(), kFloatTypes.begin(), kFloatTypes.end());
  all.push_back(ElementType::kPred);
  for (ElementType to : all) {
    cases.push_back(UnaryCase(std::string("convert_to_") + ElementTypeName(to),
                              "convert", all, "", to, 300.0));
  }
  Expect(cases);
}

// pred arithmetic as XLA's HloEvaluator computes it: on 0 / 1, the
// result nonzero. add and maximum are or, multiply and minimum are and,
// subtract is xor (0 - 1 = -1 is true).
const char* const kPredTable =
    "ENTRY e {\n"
    "a = pred[4] constant({false, false, true, true})\n"
    "b = pred[4] constant({false, true, false, true})\n"
    "add = pred[4] add(a, b)\nsub = pred[4] subtract(a, b)\n"
    "mul = pred[4] multiply(a, b)\nmax = pred[4] maximum(a, b)\n"
    "min = pred[4] minimum(a, b)\nand = pred[4] and(a, b)\n"
    "or = pred[4] or(a, b)\nxor = pred[4] xor(a, b)\nnot = pred[4] not(a)\n"
    "eq = pred[4] compare(a, b), direction=EQ\n"
    "ne = pred[4] compare(a, b), direction=NE\n"
    "lt = pred[4] compare(a, b), direction=LT\n"
    "le = pred[4] compare(a, b), direction=LE\n"
    "gt = pred[4] compare(a, b), direction=GT\n"
    "ge = pred[4] compare(a, b), direction=GE\n"
    "s = s32[4] convert(a)\nf = f32[4] convert(b)\n"
    "i = s32[4] constant({-2, 0, 1, 3})\nip = pred[4] convert(i)\n"
    "x = f32[4] constant({-0, nan, 0.5, 0})\nfp = pred[4] convert(x)\n"
    "ROOT t = (pred[4], pred[4], pred[4], pred[4], pred[4], pred[4], "
    "pred[4], pred[4], pred[4], pred[4], pred[4], pred[4], pred[4], "
    "pred[4], pred[4], s32[4], f32[4], pred[4], pred[4]) tuple(add, sub, "
    "mul, max, min, and, or, xor, not, eq, ne, lt, le, gt, ge, s, f, ip, "
    "fp)\n}\n";

TEST_CASE("ops: pred arithmetic, the interpreter against the table", "[emit]") {
  auto module = hlo::ParseHloModule(kPredTable);
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  auto result = Interpret(*region->computation, {});
  INFO((result.ok() ? "" : result.error().message));
  REQUIRE(result.ok());
  const std::vector<std::vector<int>> expected = {
      {0, 1, 1, 1},  // add
      {0, 1, 1, 0},  // subtract
      {0, 0, 0, 1},  // multiply
      {0, 1, 1, 1},  // maximum
      {0, 0, 0, 1},  // minimum
      {0, 0, 0, 1},  // and
      {0, 1, 1, 1},  // or
      {0, 1, 1, 0},  // xor
      {1, 1, 0, 0},  // not
      {1, 0, 0, 1},  // EQ
      {0, 1, 1, 0},  // NE
      {0, 1, 0, 0},  // LT
      {1, 1, 0, 1},  // LE
      {0, 0, 1, 0},  // GT
      {1, 0, 1, 1},  // GE
      {0, 0, 1, 1},  // pred -> s32
      {0, 1, 0, 1},  // pred -> f32
      {1, 0, 1, 1},  // s32 -> pred
      {0, 1, 1, 0},  // f32 -> pred (NaN is nonzero, -0 is zero)
  };
  REQUIRE(result->tuple.size() == expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    INFO("output " << k);
    for (int i = 0; i < 4; ++i) {
      CHECK(result->tuple[k].AsDouble(i) == expected[k][i]);
    }
  }
}

TEST_CASE("ops: pred arithmetic and reductions over pred, in every target",
          "[.][emit_ops_pred]") {
  std::vector<CheckCase> cases;
  // The table's fusion (checked against the hand table above).
  CheckCase table;
  table.label = "pred_table";
  table.hlo = kPredTable;
  table.run_mlir = true;
  cases.push_back(table);
  for (const char* op : {"add", "subtract", "multiply", "maximum", "minimum",
                         "and", "or", "xor"}) {
    cases.push_back(
        BinaryCase(std::string("pred_") + op, op, {ElementType::kPred}));
  }
  cases.push_back(UnaryCase("pred_not", "not", {ElementType::kPred}));
  // any (an add reducer; or) and all (multiply; and) of a pred made by a
  // comparison whose threshold makes about half of the rows true.
  struct Shape2 {
    std::string label;
    int64_t rows, cols;
    int64_t reduced;
    int64_t any_above, all_above;  // thresholds on values in [0, 100000]
  };
  for (const Shape2& sh :
       std::vector<Shape2>{{"row", 7, 1000, 1, 99930, 69},
                           {"column", 300, 65, 0, 99770, 229},
                           {"multi_row", 300, 8, 1, 91700, 8300}}) {
    for (const char* reducer : {"add", "or", "multiply", "and"}) {
      const bool any =
          std::string(reducer) == "add" || std::string(reducer) == "or";
      const int64_t kept = sh.reduced == 1 ? sh.rows : sh.cols;
      const std::string in =
          "[" + std::to_string(sh.rows) + "," + std::to_string(sh.cols) + "]";
      CheckCase c;
      c.label = "pred_reduce_" + sh.label + "_" + reducer;
      c.run_mlir = true;
      c.expect_emitter = "reduction";
      c.hlo = std::string("red { a = pred[] parameter(0)\n b = pred[] ") +
              "parameter(1)\n ROOT r = pred[] " + reducer + "(a, b) }\n" +
              "ENTRY e { p = s32" + in + " parameter(0)\n" +
              "k = s32[] constant(" +
              std::to_string(any ? sh.any_above : sh.all_above) + ")\n" +
              "kb = s32" + in + " broadcast(k), dimensions={}\n" + "g = pred" +
              in + " compare(p, kb), direction=GT\n" + "i = pred[] constant(" +
              (any ? "false" : "true") + ")\n" + "ROOT r = pred[" +
              std::to_string(kept) + "] reduce(g, i), dimensions={" +
              std::to_string(sh.reduced) + "}, to_apply=red }\n";
      ParameterSpec spec;
      spec.random.int_lo = 0;
      spec.random.int_hi = 100000;
      c.parameters = {spec};
      cases.push_back(c);
    }
  }
  Expect(cases);
}

// XLA's argmax / argmin reducer (as its tests write it): the larger (or
// smaller) value, and on equal values the smaller index, so that the
// result does not depend on the order partials meet.
std::string ArgReducer(const std::string& name, const std::string& type,
                       const std::string& direction) {
  return name + " { a = " + type + "[] parameter(0)\n ai = s32[] " +
         "parameter(1)\n b = " + type + "[] parameter(2)\n bi = s32[] " +
         "parameter(3)\n better = pred[] compare(a, b), direction=" +
         direction + "\n eq = pred[] compare(a, b), direction=EQ\n" +
         " lt = pred[] compare(ai, bi), direction=LT\n" +
         " tie = pred[] and(eq, lt)\n pick = pred[] or(better, tie)\n" +
         " v = " + type + "[] select(pick, a, b)\n" +
         " i = s32[] select(pick, ai, bi)\n" + " ROOT r = (" + type +
         "[], s32[]) tuple(v, i) }\n";
}

// (sum, max) of two inputs in one reduce.
std::string SumMaxReducer(const std::string& type) {
  return "summax { as = " + type + "[] parameter(0)\n am = " + type +
         "[] parameter(1)\n bs = " + type + "[] parameter(2)\n bm = " + type +
         "[] parameter(3)\n s = " + type + "[] add(as, bs)\n m = " + type +
         "[] maximum(am, bm)\n ROOT r = (" + type + "[], " + type +
         "[]) tuple(s, m) }\n";
}

TEST_CASE("ops: variadic reductions (argmax, argmin, sum and max)",
          "[.][emit_ops_reduce]") {
  struct Layout {
    std::string label;
    std::vector<int64_t> dims;
    int64_t reduced;
  };
  const std::vector<Layout> layouts = {{"row", {9, 700}, 1},
                                       {"row_narrow", {5, 40}, 1},
                                       {"column", {300, 65}, 0},
                                       {"multi_row", {300, 8}, 1}};
  std::vector<CheckCase> cases;
  for (const Layout& l : layouts) {
    std::vector<int64_t> kept;
    for (size_t d = 0; d < l.dims.size(); ++d) {
      if (static_cast<int64_t>(d) != l.reduced) kept.push_back(l.dims[d]);
    }
    const std::string red = "dimensions={" + std::to_string(l.reduced) + "}";
    for (const std::string type : {"s32", "f32", "f16"}) {
      for (const std::string dir : {"GT", "LT"}) {
        const ElementType t = type == "s32"   ? ElementType::kS32
                              : type == "f32" ? ElementType::kF32
                                              : ElementType::kF16;
        const std::string in = Shape(t, l.dims), out = Shape(t, kept);
        const std::string idx_in = Shape(ElementType::kS32, l.dims),
                          idx_out = Shape(ElementType::kS32, kept);
        const std::string init =
            type == "s32" ? (dir == "GT" ? "-2147483648" : "2147483647")
                          : (dir == "GT" ? "-inf" : "inf");
        const std::string name = dir == "GT" ? "argmax" : "argmin";
        // Values from few integers: many ties in every row and column.
        std::string hlo =
            ArgReducer(name, type, dir) + "ENTRY e { q = " + idx_in +
            " parameter(0)\np = " + in + " convert(q)\nio = " + idx_in +
            " iota(), iota_dimension=" + std::to_string(l.reduced) +
            "\nc = " + type + "[] constant(" + init +
            ")\nz = s32[] constant(0)\n";
        CheckCase c;
        c.label = name + "_" + type + "_" + l.label;
        c.run_mlir = true;
        c.expect_emitter = "reduction";
        ParameterSpec spec;
        spec.random.int_lo = 0;
        spec.random.int_hi = 3;
        c.parameters = {spec};
        c.hlo = hlo + "ROOT r = (" + out + ", " + idx_out + ") reduce(p, io, " +
                "c, z), " + red + ", to_apply=" + name + " }\n";
        cases.push_back(c);
        if (type != "f32") continue;
        // The tuple's elements read through get-tuple-element by an
        // epilogue, and a side output of the input's shape. A
        // get-tuple-element is no intermediate op, so the roots are their
        // own heroes and XLA picks the loop emitter (a variadic reduce is
        // a reduction hero only as the fusion's root itself).
        CheckCase e = c;
        e.label += "_epilogue_side_output";
        e.expect_emitter = "loop";
        e.hlo = hlo + "r = (" + out + ", " + idx_out +
                ") reduce(p, io, c, z), " + red + ", to_apply=" + name +
                "\nv = " + out +
                " get-tuple-element(r), index=0\ni = " + idx_out +
                " get-tuple-element(r), index=1\nn = " + out +
                " negate(v)\none = s32[] constant(1)\nob = " + idx_out +
                " broadcast(one), dimensions={}\nj = " + idx_out +
                " add(i, ob)\ns = " + in + " multiply(p, p)\nROOT t = (" + out +
                ", " + idx_out + ", " + in + ") tuple(n, j, s) }\n";
        cases.push_back(e);
      }
    }
    // Sum and max of one input, exact in s32; and in f32 (reassociates).
    for (const std::string type : {"s32", "f32"}) {
      const ElementType t =
          type == "s32" ? ElementType::kS32 : ElementType::kF32;
      const std::string in = Shape(t, l.dims), out = Shape(t, kept);
      CheckCase c;
      c.label = "sum_max_" + type + "_" + l.label;
      c.run_mlir = true;
      c.expect_emitter = "reduction";
      c.reassociates = type == "f32";
      c.hlo = SumMaxReducer(type) + "ENTRY e { p = " + in +
              " parameter(0)\nq = " + in + " parameter(1)\nz = " + type +
              "[] constant(0)\nm = " + type + "[] constant(" +
              (type == "s32" ? "-2147483648" : "-inf") + ")\nROOT r = (" + out +
              ", " + out + ") reduce(p, q, z, m), " + red +
              ", to_apply=summax }\n";
      cases.push_back(c);
    }
  }
  // A row reduction over two dims (the major and the minor one), three
  // inputs (sum, max, min), and a variadic reduce-window (the loop
  // emitter's elemental reduce).
  {
    CheckCase c;
    c.label = "argmax_row_two_reduced_dims";
    c.run_mlir = true;
    c.expect_emitter = "reduction";
    ParameterSpec spec;
    spec.random.int_lo = 0;
    spec.random.int_hi = 3;
    c.parameters = {spec};
    c.hlo = ArgReducer("argmax", "s32", "GT") +
            "ENTRY e { p = s32[3,5,257] parameter(0)\n"
            "io = s32[3,5,257] iota(), iota_dimension=2\n"
            "c = s32[] constant(-2147483648)\nz = s32[] constant(0)\n"
            "ROOT r = (s32[5], s32[5]) reduce(p, io, c, z), "
            "dimensions={0,2}, to_apply=argmax }\n";
    cases.push_back(c);
  }
  for (const std::string dims : {"1", "0"}) {
    CheckCase c;
    c.label = "sum_max_min_s32_dim" + dims;
    c.run_mlir = true;
    c.expect_emitter = "reduction";
    c.hlo =
        "smm { as = s32[] parameter(0)\n am = s32[] parameter(1)\n"
        " an = s32[] parameter(2)\n bs = s32[] parameter(3)\n"
        " bm = s32[] parameter(4)\n bn = s32[] parameter(5)\n"
        " s = s32[] add(as, bs)\n m = s32[] maximum(am, bm)\n"
        " n = s32[] minimum(an, bn)\n"
        " ROOT r = (s32[], s32[], s32[]) tuple(s, m, n) }\n"
        "ENTRY e { p = s32[300,65] parameter(0)\n"
        "z = s32[] constant(0)\nlo = s32[] constant(-2147483648)\n"
        "hi = s32[] constant(2147483647)\n"
        "ROOT r = (s32[" +
        std::string(dims == "1" ? "300" : "65") + "], s32[" +
        (dims == "1" ? "300" : "65") + "], s32[" +
        (dims == "1" ? "300" : "65") +
        "]) reduce(p, p, p, z, lo, hi), dimensions={" + dims +
        "}, to_apply=smm }\n";
    cases.push_back(c);
  }
  {
    CheckCase c;
    c.label = "argmax_reduce_window";
    c.run_mlir = true;
    c.expect_emitter = "loop";
    ParameterSpec spec;
    spec.random.int_lo = 0;
    spec.random.int_hi = 3;
    c.parameters = {spec};
    c.hlo = ArgReducer("argmax", "f32", "GT") +
            "ENTRY e { q = s32[9,40] parameter(0)\n"
            "p = f32[9,40] convert(q)\n"
            "io = s32[9,40] iota(), iota_dimension=1\n"
            "c = f32[] constant(-inf)\nz = s32[] constant(0)\n"
            "ROOT r = (f32[9,20], s32[9,20]) reduce-window(p, io, c, z), "
            "window={size=1x3 stride=1x2 pad=0_0x1_1}, to_apply=argmax }\n";
    cases.push_back(c);
  }
  Expect(cases);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

// What no target generates answers `unsupported` with a message that
// names the op (and the instruction), for every target.
TEST_CASE("ops: a still-unsupported op's message names it", "[emit]") {
  struct Unsupported {
    std::string opcode;
    std::string hlo;
  };
  const std::vector<Unsupported> cases = {
      {"tan", "ENTRY e { p = c64[4] parameter(0)\nROOT r = c64[4] tan(p) }"},
      {"real", "ENTRY e { p = s32[4] parameter(0)\nROOT r = s32[4] real(p) }"},
      {"stochastic-convert",
       "ENTRY e { p = f32[4] parameter(0)\nr = u32[4] parameter(1)\n"
       "ROOT s = bf16[4] stochastic-convert(p, r) }"},
      {"divide",
       "ENTRY e { p = pred[4] parameter(0)\nq = pred[4] parameter(1)\n"
       "ROOT d = pred[4] divide(p, q) }"},
      {"shift-left",
       "ENTRY e { p = pred[4] parameter(0)\nq = pred[4] parameter(1)\n"
       "ROOT d = pred[4] shift-left(p, q) }"},
      {"negate",
       "ENTRY e { p = pred[4] parameter(0)\nROOT n = pred[4] negate(p) }"},
      {"popcnt",
       "ENTRY e { p = f32[4] parameter(0)\nROOT n = f32[4] popcnt(p) }"},
      {"acos", "ENTRY e { p = s32[4] parameter(0)\nROOT n = s32[4] acos(p) }"},
  };
  for (const Unsupported& u : cases) {
    INFO(u.opcode);
    auto module = hlo::ParseHloModule(u.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    for (emit::Target target :
         {emit::Target::kCpp, emit::Target::kCuda, emit::Target::kMlir}) {
      INFO(emit::TargetName(target));
      ExprContext ctx;
      emit::EmitOptions options;
      options.target = target;
      auto emitted =
          emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
      REQUIRE(!emitted.ok());
      INFO(emitted.error().message);
      CHECK(emitted.error().code == ErrorCode::kUnsupported);
      CHECK(emitted.error().message.find("'" + u.opcode + "'") !=
            std::string::npos);
    }
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

// The random set (emit_random_a / emit_random_b: 12 seeds per kind)
// exercises the ops above, so that every target runs them in fusions of
// every emitter kind.
TEST_CASE("ops: the random fusions use the new ops and reductions", "[emit]") {
  std::string all;
  for (TargetKind kind : AllTargetKinds()) {
    for (int seed = 0; seed < 12; ++seed) {
      all += GenerateFusion(kind, seed).hlo;
    }
  }
  for (const char* text :
       {" acos(", " asin(", " atan(", " acosh(", " asinh(", " atanh(", " cosh(",
        " sinh(", " is-finite(", " reduce-precision(", "type=TOTALORDER",
        "argmin_", "argmax_", "sum_max_", "red_add_pred",
        "red_multiply_pred"}) {
    INFO(text);
    CHECK(all.find(text) != std::string::npos);
  }
  // Arithmetic on pred arrays.
  for (const char* op :
       {" add(", " subtract(", " multiply(", " maximum(", " minimum("}) {
    INFO(op);
    bool found = false;
    std::stringstream lines(all);
    for (std::string line; std::getline(lines, line);) {
      found |= line.find("= pred[") != std::string::npos &&
               line.find("pred[]") == std::string::npos &&
               line.find(op) != std::string::npos;
    }
    CHECK(found);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
