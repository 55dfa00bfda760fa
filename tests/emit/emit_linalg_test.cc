// fft, cholesky and triangular-solve in compiled programs (emit/program/
// linalg_ops.cc, docs/compile.md): modules with random batch shapes, every
// fft type over 1 to 3 dims of odd and even lengths, both cholesky
// triangles, every triangular-solve attribute, on f32 / f64 / c64 / c128,
// compiled for cpp (and a few for cuda, run in the CPU model of CUDA) and
// compared with the reference interpreter's own implementation.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analysis/uses/fusion_plan.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_program_runner.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    out += (i ? "," : "") + std::to_string(dims[i]);
  }
  return out + "]";
}

std::string Shape(const std::string& type, const std::vector<int64_t>& dims) {
  return type + DimsText(dims);
}

// 0 to 2 batch dims of 1 to 3.
std::vector<int64_t> RandomBatch(std::mt19937_64& rng) {
  std::vector<int64_t> dims(rng() % 3);
  for (int64_t& d : dims) d = 1 + static_cast<int64_t>(rng() % 3);
  return dims;
}

bool IsComplexName(const std::string& t) { return t[0] == 'c'; }
std::string RealOf(const std::string& t) {
  return t == "c64" ? "f32" : t == "c128" ? "f64" : t;
}
std::string ComplexOf(const std::string& t) {
  return t == "f32" ? "c64" : t == "f64" ? "c128" : t;
}
// The unit roundoff of a type (of each part, for complex).
double Eps(const std::string& t) {
  return RealOf(t) == "f32" ? 0x1p-24 : 0x1p-53;
}

ProgramCase FftCase(const std::string& fft_type, const std::string& ctype,
                    const std::vector<int64_t>& lengths,
                    const std::vector<int64_t>& batch) {
  std::vector<int64_t> in = batch, out = batch;
  in.insert(in.end(), lengths.begin(), lengths.end());
  out = in;
  const int64_t last = lengths.back();
  std::string in_type = ctype, out_type = ctype;
  if (fft_type == "RFFT") {
    in_type = RealOf(ctype);
    out.back() = last / 2 + 1;
  }
  if (fft_type == "IRFFT") {
    out_type = RealOf(ctype);
    in.back() = last / 2 + 1;
  }
  int64_t n = 1;
  std::string length_text;
  for (int64_t l : lengths) {
    n *= l;
    length_text += (length_text.empty() ? "" : ",") + std::to_string(l);
  }
  ProgramCase c;
  c.label = "fft " + fft_type + " " + Shape(in_type, in) + " -> " +
            Shape(out_type, out) + " fft_length={" + length_text + "}";
  c.hlo = "HloModule fft\n\nENTRY main {\n  x = " + Shape(in_type, in) +
          " parameter(0)\n  ROOT y = " + Shape(out_type, out) +
          " fft(x), fft_type=" + fft_type + ", fft_length={" + length_text +
          "}\n}\n";
  // One rounding of the result (both sides accumulate in double or
  // wider); the double sums' own error grows with N.
  c.rel = 4 * Eps(ctype) + 8 * n * 0x1p-53;
  c.abs = c.rel;
  return c;
}

// `a` + k·I per matrix of [batch..., m, m] (the iota's diagonal), so that a
// random `a` becomes positive definite (cholesky) or well conditioned
// (triangular-solve). With `alternate`, matrices after the batch's first
// get -k·I (not positive definite). Defines `shifted`.
std::string ShiftedDiagonal(const std::string& type,
                            const std::vector<int64_t>& dims, double k,
                            bool alternate) {
  const int r = static_cast<int>(dims.size());
  const std::string s = DimsText(dims);
  auto constant = [&](double v) {
    const std::string x = std::to_string(v);
    return IsComplexName(type) ? "(" + x + ", 0)" : x;
  };
  std::string h;
  h += "  row = s32" + s + " iota(), iota_dimension=" + std::to_string(r - 2) +
       "\n";
  h += "  col = s32" + s + " iota(), iota_dimension=" + std::to_string(r - 1) +
       "\n";
  h += "  diag = pred" + s + " compare(row, col), direction=EQ\n";
  h += "  k = " + type + "[] constant(" + constant(k) + ")\n";
  h += "  kb = " + type + s + " broadcast(k), dimensions={}\n";
  h += "  z = " + type + "[] constant(" + constant(0) + ")\n";
  h += "  zb = " + type + s + " broadcast(z), dimensions={}\n";
  std::string on_diagonal = "kb";
  if (alternate) {
    h += "  nk = " + type + "[] constant(" + constant(-k) + ")\n";
    h += "  nkb = " + type + s + " broadcast(nk), dimensions={}\n";
    h += "  first = s32" + s + " iota(), iota_dimension=0\n";
    h += "  zi = s32[] constant(0)\n";
    h += "  zib = s32" + s + " broadcast(zi), dimensions={}\n";
    h += "  is_first = pred" + s + " compare(first, zib), direction=EQ\n";
    h += "  signed = " + type + s + " select(is_first, kb, nkb)\n";
    on_diagonal = "signed";
  }
  h += "  shift = " + type + s + " select(diag, " + on_diagonal + ", zb)\n";
  h += "  shifted = " + type + s + " add(a, shift)\n";
  return h;
}

ProgramCase CholeskyCase(const std::string& type, bool lower, int64_t m,
                         const std::vector<int64_t>& batch,
                         bool not_positive_definite = false) {
  std::vector<int64_t> dims = batch;
  dims.push_back(m);
  dims.push_back(m);
  // Off the diagonal each element is at most sqrt(2) in magnitude: 2m + 2
  // on the diagonal makes the Hermitian matrix diagonally dominant.
  ProgramCase c;
  c.label = "cholesky " + Shape(type, dims) + (lower ? " lower" : " upper") +
            (not_positive_definite ? " (not positive definite)" : "");
  c.hlo = "HloModule cholesky\n\nENTRY main {\n  a = " + Shape(type, dims) +
          " parameter(0)\n" +
          ShiftedDiagonal(type, dims, 2.0 * m + 2, not_positive_definite) +
          "  ROOT l = " + Shape(type, dims) +
          " cholesky(shifted), lower=" + (lower ? "true" : "false") + "\n}\n";
  c.rel = 16 * m * Eps(type);
  c.abs = c.rel;
  return c;
}

ProgramCase TriangularSolveCase(const std::string& type, bool left, bool lower,
                                bool unit, const std::string& transpose,
                                int64_t m, int64_t n,
                                const std::vector<int64_t>& batch) {
  std::vector<int64_t> a_dims = batch, b_dims = batch;
  a_dims.push_back(m);
  a_dims.push_back(m);
  b_dims.push_back(left ? m : n);
  b_dims.push_back(left ? n : m);
  ProgramCase c;
  c.label = "triangular-solve " + Shape(type, a_dims) + " " +
            Shape(type, b_dims) + " left_side=" + (left ? "true" : "false") +
            " lower=" + (lower ? "true" : "false") +
            " unit_diagonal=" + (unit ? "true" : "false") +
            " transpose_a=" + transpose;
  // A diagonal of 4 + [-1, 1] against off-diagonal elements of at most
  // sqrt(2): well conditioned. A unit diagonal is not read.
  c.hlo =
      "HloModule triangular_solve\n\nENTRY main {\n  a = " +
      Shape(type, a_dims) + " parameter(0)\n  b = " + Shape(type, b_dims) +
      " parameter(1)\n" + ShiftedDiagonal(type, a_dims, 4, false) +
      "  ROOT x = " + Shape(type, b_dims) +
      " triangular-solve(shifted, b), left_side=" + (left ? "true" : "false") +
      ", lower=" + (lower ? "true" : "false") +
      ", unit_diagonal=" + (unit ? "true" : "false") +
      ", transpose_a=" + transpose + "\n}\n";
  // A unit triangle of elements up to sqrt(2) grows the solution
  // (about 2^m at worst for these sizes).
  c.rel = 64 * m * Eps(type) * (unit ? double(int64_t{1} << m) : 1.0);
  c.abs = c.rel;
  return c;
}

const std::vector<std::string> kTypes = {"f32", "f64", "c64", "c128"};
const std::vector<std::string> kTransposes = {"NO_TRANSPOSE", "TRANSPOSE",
                                              "ADJOINT"};

std::vector<ProgramCase> FftCases(std::mt19937_64& rng) {
  std::vector<ProgramCase> cases;
  for (const std::string& fft_type : {"FFT", "IFFT", "RFFT", "IRFFT"}) {
    for (const std::string& ctype : {"c64", "c128"}) {
      for (int rank = 1; rank <= 3; ++rank) {
        // Odd and even lengths (the last dim's parity matters to RFFT
        // and IRFFT), 1 included; a power of two now and then.
        std::vector<int64_t> lengths;
        for (int d = 0; d < rank; ++d) {
          lengths.push_back(rank == 1 ? 1 + rng() % 12 : 1 + rng() % 6);
        }
        if (rng() % 2) lengths.back() = rank == 1 ? 16 : 4;
        cases.push_back(FftCase(fft_type, ctype, lengths, RandomBatch(rng)));
        // The other parity of the last length.
        lengths.back() += 1;
        cases.push_back(FftCase(fft_type, ctype, lengths, RandomBatch(rng)));
      }
    }
  }
  return cases;
}

std::vector<ProgramCase> CholeskyCases(std::mt19937_64& rng) {
  std::vector<ProgramCase> cases;
  for (const std::string& type : kTypes) {
    for (bool lower : {true, false}) {
      const int64_t m = 1 + static_cast<int64_t>(rng() % 8);
      cases.push_back(CholeskyCase(type, lower, m, RandomBatch(rng)));
    }
  }
  return cases;
}

std::vector<ProgramCase> TriangularSolveCases(std::mt19937_64& rng) {
  std::vector<ProgramCase> cases;
  int which = 0;
  for (bool left : {true, false}) {
    for (bool lower : {true, false}) {
      for (bool unit : {true, false}) {
        for (const std::string& transpose : kTransposes) {
          // Each combination on a real and a complex type, in turn.
          for (int k = 0; k < 2; ++k) {
            const std::string& type = kTypes[(which++) % 4];
            const int64_t m = 1 + static_cast<int64_t>(rng() % 6);
            const int64_t n = 1 + static_cast<int64_t>(rng() % 4);
            cases.push_back(TriangularSolveCase(
                type, left, lower, unit, transpose, m, n, RandomBatch(rng)));
          }
        }
      }
    }
  }
  return cases;
}

void CheckAll(const std::vector<ProgramCase>& cases,
              const std::vector<std::string>& errors) {
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].label << ":\n" << cases[i].hlo << errors[i]);
    CHECK(errors[i].empty());
  }
}

TEST_CASE("linalg: fft programs match the interpreter", "[.][emit_linalg]") {
  std::mt19937_64 rng(101);
  std::vector<ProgramCase> cases = FftCases(rng);
  // Layouts other than the default, on both sides.
  ProgramCase layout = FftCase("RFFT", "c64", {6}, {4});
  layout.label += " (column-major)";
  layout.hlo =
      "HloModule m\n\nENTRY main {\n  x = f32[4,6]{0,1} parameter(0)\n"
      "  ROOT y = c64[4,4]{0,1} fft(x), fft_type=RFFT, fft_length={6}\n}\n";
  cases.push_back(layout);
  CheckAll(cases, RunPrograms(cases, 17));
}

TEST_CASE("linalg: cholesky and triangular-solve programs match",
          "[.][emit_linalg]") {
  std::mt19937_64 rng(202);
  std::vector<ProgramCase> cases = CholeskyCases(rng);
  std::vector<ProgramCase> solves = TriangularSolveCases(rng);
  cases.insert(cases.end(), solves.begin(), solves.end());
  // Batch matrices after the first are not positive definite: NaN there,
  // the first factored.
  cases.push_back(CholeskyCase("f32", true, 5, {3}, true));
  cases.push_back(CholeskyCase("c128", false, 4, {2, 2}, true));
  // Layouts other than the default (a unit diagonal: a random `a` is well
  // enough conditioned at this size).
  ProgramCase layout =
      TriangularSolveCase("c64", false, true, true, "TRANSPOSE", 3, 2, {2});
  layout.label += " (minor-to-major {1,2,0})";
  layout.hlo =
      "HloModule m\n\nENTRY main {\n  a = c64[2,3,3]{1,2,0} parameter(0)\n"
      "  b = c64[2,2,3]{1,0,2} parameter(1)\n"
      "  ROOT x = c64[2,2,3]{0,2,1} triangular-solve(a, b), left_side=false, "
      "lower=true, unit_diagonal=true, transpose_a=TRANSPOSE\n}\n";
  cases.push_back(layout);
  CheckAll(cases, RunPrograms(cases, 19));
}

// The fft and solvers never fuse: fused by fusion_plan (the compile op's
// default), with elementwise producers and consumers around them.
TEST_CASE("linalg: the ops stay unfused and compile fused modules",
          "[.][emit_linalg]") {
  ProgramCase c;
  c.label = "fused neighbours";
  c.hlo = R"(HloModule neighbours
ENTRY main {
  x = c64[3,8] parameter(0)
  a = f64[2,4,4] parameter(1)
  b = f64[2,4,3] parameter(2)
  x2 = c64[3,8] multiply(x, x)
  f = c64[3,8] fft(x2), fft_type=FFT, fft_length={8}
  r = f32[3,8] real(f)
  e = f32[3,8] exponential(r)
)" + ShiftedDiagonal("f64", {2, 4, 4}, 10, false) +
          R"(  l = f64[2,4,4] cholesky(shifted), lower=true
  s = f64[2,4,3] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  s2 = f64[2,4,3] negate(s)
  ROOT t = (f32[3,8], f64[2,4,3]) tuple(e, s2)
})";
  c.fuse = true;
  c.prefusion = true;
  c.rel = c.abs = 1e-5;
  CheckAll({c}, RunPrograms({c}, 23));
  auto module = hlo::ParseHloModule(c.hlo);
  REQUIRE(module.ok());
  ExprContext ctx;
  FusionPlanOptions options;
  options.model = CostModel::kXla;
  auto plan = PlanFusions(**module, *hw::FindDevice("h100"), options, &ctx);
  REQUIRE(plan.ok());
  auto planned = hlo::ParseHloModule(plan->module_text);
  REQUIRE(planned.ok());
  int found = 0;
  for (const auto& comp : (*planned)->computations()) {
    for (const auto& in : comp->instructions()) {
      if (in->opcode != hlo::Opcode::kFft &&
          in->opcode != hlo::Opcode::kCholesky &&
          in->opcode != hlo::Opcode::kTriangularSolve) {
        continue;
      }
      ++found;
      INFO(in->name << " in " << comp->name());
      CHECK(comp.get() == (*planned)->entry());
    }
  }
  CHECK(found == 3);
}

TEST_CASE("linalg: cuda programs run in the CPU model of CUDA",
          "[.][emit_linalg]") {
  std::vector<ProgramCase> cases = {
      FftCase("FFT", "c64", {5, 4}, {2}),
      FftCase("IRFFT", "c128", {6}, {3}),
      FftCase("RFFT", "c64", {2, 3, 3}, {}),
      CholeskyCase("c64", false, 5, {2}),
      CholeskyCase("f64", true, 3, {2}, true),
      TriangularSolveCase("c128", false, true, false, "ADJOINT", 4, 3, {2}),
      TriangularSolveCase("f32", true, false, true, "TRANSPOSE", 5, 2, {3}),
  };
  for (ThreadOrder order : {ThreadOrder::kForward, ThreadOrder::kRandom}) {
    CheckAll(cases, RunPrograms(cases, 29, emit::Target::kCuda, order));
  }
}

// The cuda programs compile with nvcc under -Werror all-warnings (no GPU
// here: compiled, not run; skipped without nvcc).
TEST_CASE("linalg: cuda programs compile with nvcc", "[.][emit_linalg_nvcc]") {
  std::optional<std::string> nvcc = FindNvcc();
  if (!nvcc) {
    std::cout << "nvcc not found: the cuda programs are not compiled\n";
    std::exit(77);  // CTest's SKIP_RETURN_CODE for this test
  }
  // The ops on their parameters (the emitters' complex kernels, which
  // the shifted diagonals of the other cases need, are not what this
  // checks).
  std::vector<ProgramCase> cases = {
      FftCase("IFFT", "c64", {3, 4}, {2}),
      FftCase("IRFFT", "c128", {5}, {}),
      FftCase("RFFT", "c64", {2, 2, 3}, {1}),
  };
  const std::string solvers[] = {
      "  a = c128[2,3,3] parameter(0)\n"
      "  ROOT l = c128[2,3,3] cholesky(a), lower=true\n",
      "  a = f32[4,4] parameter(0)\n"
      "  ROOT l = f32[4,4] cholesky(a), lower=false\n",
      "  a = c64[2,3,3] parameter(0)\n  b = c64[2,3,2] parameter(1)\n"
      "  ROOT x = c64[2,3,2] triangular-solve(a, b), left_side=true, "
      "lower=false, transpose_a=ADJOINT\n",
      "  a = f64[4,4] parameter(0)\n  b = f64[2,4] parameter(1)\n"
      "  ROOT x = f64[2,4] triangular-solve(a, b), lower=true, "
      "unit_diagonal=true, transpose_a=NO_TRANSPOSE\n",
  };
  for (const std::string& body : solvers) {
    ProgramCase c;
    c.label = body;
    c.hlo = "HloModule m\n\nENTRY main {\n" + body + "}\n";
    cases.push_back(c);
  }
  TempDir dir;
  std::vector<std::string> commands;
  for (size_t i = 0; i < cases.size(); ++i) {
    Result<std::string> code =
        CompileText(cases[i].hlo, "ixa_run", emit::Target::kCuda);
    INFO(cases[i].label);
    REQUIRE(code.ok());
    const std::string src =
        dir.Write("program" + std::to_string(i) + ".cu", *code);
    commands.push_back(*nvcc + " -std=c++17 -arch=sm_80 -Werror all-warnings " +
                       src + " -o " + src + ".bin");
  }
  std::vector<CommandResult> results = RunCommands(commands);
  for (size_t i = 0; i < results.size(); ++i) {
    INFO(cases[i].label << ":\n" << FirstLines(results[i].output));
    CHECK(results[i].exit_code == 0);
  }
}

// Bad input is an error naming the op, never a crash.
TEST_CASE("linalg: refused forms", "[.][emit_linalg]") {
  struct Refused {
    std::string hlo, message;
  };
  const std::vector<Refused> refused = {
      {"HloModule m\nENTRY e {\n  a = s32[4,4] parameter(0)\n"
       "  ROOT l = s32[4,4] cholesky(a), lower=true\n}\n",
       "element type s32"},
      {"HloModule m\nENTRY e {\n  a = f32[4,4] parameter(0)\n"
       "  b = f32[4,2] parameter(1)\n"
       "  ROOT x = f32[4,2] triangular-solve(a, b), left_side=true, "
       "transpose_a=CONJUGATE\n}\n",
       "transpose_a=CONJUGATE"},
      {"HloModule m\nENTRY e {\n  x = c64[4,8] parameter(0)\n"
       "  ROOT y = c64[4,8] fft(x), fft_type=FFT, fft_length={6}\n}\n",
       "do not match"},
  };
  for (const Refused& r : refused) {
    INFO(r.hlo);
    Result<std::string> code = CompileText(r.hlo, "ixa_run");
    REQUIRE(!code.ok());
    INFO(code.error().message);
    CHECK(code.error().message.find(r.message) != std::string::npos);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
