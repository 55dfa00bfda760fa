// The complex-number fusions of the code generator tests (see
// emit_complex_cases.h).
#include "tests/emit/emit_complex_cases.h"

#include <string>

namespace ixa::emit_test {

// File-local helpers (static: a unity batch sees them once).

static CheckCase ComplexCase(std::string label, std::string hlo,
                             std::string emitter = "") {
  CheckCase c;
  c.label = std::move(label);
  c.hlo = std::move(hlo);
  c.expect_emitter = std::move(emitter);
  return c;
}

// Every op on `type` (c64 or c128, with `part` its f32 / f64) in one loop
// fusion, each result an output.
static std::string EveryComplexOp(const std::string& type,
                                  const std::string& part) {
  const std::string c = type + "[8,33]", r = part + "[8,33]";
  auto op = [&](const std::string& name, const std::string& shape,
                const std::string& rest) {
    return name + " = " + shape + " " + rest + "\n";
  };
  return op("a", c, "parameter(0)") + op("b", c, "parameter(1)") +
         op("x", r, "parameter(2)") + op("m", c, "multiply(a, b)") +
         op("d", c, "divide(a, b)") + op("s", c, "subtract(m, d)") +
         op("n", c, "negate(s)") + op("e", c, "exponential(a)") +
         op("l", c, "log(b)") + op("q", c, "sqrt(a)") +
         op("rq", c, "rsqrt(b)") + op("sg", c, "sign(d)") +
         op("k", c, "complex(x, x)") + op("cv", c, "convert(x)") +
         op("ad", c, "add(k, cv)") + op("ab", r, "abs(m)") +
         op("re", r, "real(e)") + op("im", r, "imag(l)") +
         op("eq", "pred[8,33]", "compare(a, b), direction=EQ") +
         op("ne", "pred[8,33]", "compare(a, a), direction=NE") +
         op("sel", c, "select(eq, q, rq)") + op("sn", c, "sine(a)") +
         op("cs", c, "cosine(b)") + op("th", c, "tanh(a)") +
         op("em", c, "exponential-minus-one(b)") +
         op("lp", c, "log-plus-one(a)") + op("t1", c, "add(sn, cs)") +
         op("t2", c, "add(th, em)") + op("t3", c, "add(t2, lp)") +
         "ROOT t = (" + c + ", " + c + ", " + c + ", " + c + ", " + r + ", " +
         r + ", " + r + ", pred[8,33], " + c + ", " + c + ", " + c +
         ") tuple(n, sg, ad, sel, ab, re, im, ne, rq, t1, t3)\n";
}

// The power on small operands: exp(w log z) in f32 loses about |w log z|
// ulps, so the parts stay where the tolerance holds.
static CheckCase ComplexPower(const std::string& type) {
  CheckCase c = ComplexCase(type + "_power",
                            "a = " + type + "[4,40] parameter(0)\n" +
                                "b = " + type + "[4,40] parameter(1)\n" +
                                "ROOT p = " + type + "[4,40] power(a, b)\n",
                            "loop");
  ParameterSpec small;
  small.random.float_range = 1.0;
  c.parameters = {small, small};
  return c;
}

static std::string ComplexReducer(const std::string& type,
                                  const std::string& op) {
  return "red { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT r = " + type + "[] " + op + "(a, b) }\n";
}

static CheckCase ComplexReduction(std::string label, std::string hlo,
                                  std::string emitter) {
  CheckCase c =
      ComplexCase(std::move(label), std::move(hlo), std::move(emitter));
  c.reassociates = true;
  return c;
}

// A scatter of 40 update rows of 3 elements into [rows, 3], indices in
// [0, rows - 1].
static CheckCase ComplexScatter(const std::string& label,
                                const std::string& type, const std::string& op,
                                int64_t rows, const std::string& attributes,
                                bool distinct, bool sorted) {
  const std::string r = std::to_string(rows);
  CheckCase c = ComplexCase(
      label,
      ComplexReducer(type, op) + "ENTRY e { p = " + type + "[" + r +
          ",3] parameter(0)\ni = s32[40,1] parameter(1)\nu = " + type +
          "[40,3] parameter(2)\nROOT s = " + type + "[" + r +
          ",3] scatter(p, i, u), update_window_dims={1}, "
          "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
          "index_vector_dim=1" +
          attributes + ", to_apply=red }",
      "scatter");
  c.reassociates = true;  // updates combine in the atomics' order
  c.parameters.resize(3);
  c.parameters[1].random.int_lo = 0;
  c.parameters[1].random.int_hi = rows - 1;
  c.parameters[1].distinct = distinct;
  c.parameters[1].sorted = sorted;
  return c;
}

std::vector<CheckCase> ComplexOpCases() {
  return {
      ComplexCase("c64_ops", EveryComplexOp("c64", "f32"), "loop"),
      ComplexCase("c128_ops", EveryComplexOp("c128", "f64"), "loop"),
      ComplexPower("c64"),
      ComplexPower("c128"),
      // c64 <-> c128, from integers and pred, constants (an array and a
      // scalar), real / imag of a real value.
      ComplexCase("converts_constants",
                  "a = c64[4,40] parameter(0)\n"
                  "i = s32[4,40] parameter(1)\n"
                  "p = pred[4,40] parameter(2)\n"
                  "w = c128[4,40] convert(a)\n"
                  "ci = c128[4,40] convert(i)\n"
                  "cp = c128[4,40] convert(p)\n"
                  "k = c128[40] constant({(1, 2), (-0.5, 3.25), (0, -1), (7, "
                  "0), (1e300, -1e-300), (2, 2), (3, 3), (4, 4), (5, 5), (6, "
                  "6), (1, 2), (-0.5, 3.25), (0, -1), (7, 0), (1e30, -1e-30), "
                  "(2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (1, 2), (-0.5, "
                  "3.25), (0, -1), (7, 0), (1, -1), (2, 2), (3, 3), (4, 4), "
                  "(5, 5), (6, 6), (1, 2), (-0.5, 3.25), (0, -1), (7, 0), (1, "
                  "-1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)})\n"
                  "kb = c128[4,40] broadcast(k), dimensions={1}\n"
                  "s = c128[] constant((0.25, -8))\n"
                  "sb = c128[4,40] broadcast(s), dimensions={}\n"
                  "t1 = c128[4,40] add(w, ci)\n"
                  "t2 = c128[4,40] multiply(cp, kb)\n"
                  "t3 = c128[4,40] add(t1, t2)\n"
                  "t4 = c128[4,40] subtract(t3, sb)\n"
                  "f = f64[4,40] real(t4)\n"
                  "rf = f64[4,40] real(f)\n"
                  "imf = f64[4,40] imag(f)\n"
                  "back = c64[4,40] convert(t4)\n"
                  "ROOT r = (c64[4,40], f64[4,40], f64[4,40]) tuple(back, rf, "
                  "imf)\n",
                  "loop"),
      // Data movement: a tiled transpose through shared memory, and the
      // index ops of the loop emitter.
      ComplexCase("c64_transpose",
                  "p = c64[64,96] parameter(0)\n"
                  "n = c64[64,96] negate(p)\n"
                  "ROOT t = c64[96,64] transpose(n), dimensions={1,0}\n",
                  "transpose"),
      ComplexCase("c64_index_ops",
                  "p = c64[10,12] parameter(0)\n"
                  "q = c64[10,4] parameter(1)\n"
                  "z = c64[] constant((0, 0))\n"
                  "c = c64[10,16] concatenate(p, q), dimensions={1}\n"
                  "r = c64[10,16] reverse(c), dimensions={0}\n"
                  "s = c64[8,16] slice(r), slice={[1:9], [0:16]}\n"
                  "pd = c64[8,20] pad(s, z), padding=0_0x2_2\n"
                  "ROOT rs = c64[160] reshape(pd)\n",
                  "loop"),
      ComplexCase(
          "c64_dus_layout",
          "p = c64[16,24]{0,1} parameter(0)\n"
          "u = c64[4,8] parameter(1)\n"
          "i = s32[] parameter(2)\n"
          "j = s32[] parameter(3)\n"
          "ROOT d = c64[16,24]{0,1} dynamic-update-slice(p, u, i, j)\n"),
  };
}

std::vector<CheckCase> ComplexReductionCases() {
  const std::string add64 = ComplexReducer("c64", "add");
  return {
      ComplexReduction("c64_row",
                       add64 + "ENTRY e { p = c64[16,1024] parameter(0)\n"
                               "z = c64[] constant((0, 0))\n"
                               "ROOT r = c64[16] reduce(p, z), dimensions={1}, "
                               "to_apply=red }\n",
                       "reduction"),
      ComplexReduction("c64_column",
                       add64 + "ENTRY e { p = c64[256,48] parameter(0)\n"
                               "z = c64[] constant((0, 0))\n"
                               "ROOT r = c64[48] reduce(p, z), dimensions={0}, "
                               "to_apply=red }\n",
                       "reduction"),
      ComplexReduction("c64_multi_row_epilogue",
                       add64 + "ENTRY e { p = c64[512,8] parameter(0)\n"
                               "z = c64[] constant((0, 0))\n"
                               "r = c64[512] reduce(p, z), dimensions={1}, "
                               "to_apply=red\n"
                               "ROOT a = f32[512] abs(r) }\n",
                       "reduction"),
      ComplexReduction("c128_product",
                       ComplexReducer("c128", "multiply") +
                           "ENTRY e { p = c128[64,6] parameter(0)\n"
                           "o = c128[] constant((1, 0))\n"
                           "ROOT r = c128[64] reduce(p, o), dimensions={1}, "
                           "to_apply=red }\n",
                       ""),
      ComplexReduction("c64_window",
                       add64 + "ENTRY e { p = c64[32,40] parameter(0)\n"
                               "z = c64[] constant((0, 0))\n"
                               "ROOT w = c64[16,38] reduce-window(p, z), "
                               "window={size=2x3 stride=2x1}, to_apply=red }\n",
                       "loop"),
  };
}

std::vector<CheckCase> ComplexScatterCases() {
  return {
      ComplexScatter("c64_add", "c64", "add", 20, "", false, false),
      ComplexScatter("c64_multiply_sorted", "c64", "multiply", 20,
                     ", indices_are_sorted=true", false, true),
      ComplexScatter("c128_add_unique", "c128", "add", 64,
                     ", unique_indices=true", true, false),
  };
}

}  // namespace ixa::emit_test
