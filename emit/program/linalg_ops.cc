// The program's fft, cholesky and triangular-solve (docs/compile.md),
// generated as host functions from XLA's operation semantics: an fft as a
// direct DFT per output element (O(N) per element, twiddles from the exact
// phase k·n mod N), cholesky and triangular-solve as one sequential
// problem per batch element. Values compute in double (both parts of a
// complex value), whatever the element type, and round once when stored.
// cuda: fft one thread per output element, the others one thread per
// batch problem.
#include <cstdint>
#include <string>
#include <vector>

#include "emit/program/program_internal.h"

namespace ixa::emit::program_internal {
// Named (not anonymous): the public functions below call into it, and a
// unity batch must not merge it with another file's helpers.
namespace linalg_ops_detail {

using hlo::ElementType;
using hlo::Instruction;
using hlo::Shape;

std::string Int(int64_t v) { return std::to_string(v) + "LL"; }

Error Refuse(const std::string& op, const std::string& why) {
  return Error::Unsupported("compile: " + op + ": " + why);
}
Error Bad(const std::string& op, const std::string& why) {
  return Error::Invalid("compile: " + op + ": " + why);
}

// How generated code reads and writes one element type: `storage` the C
// type of a value (of each part, for complex), complex values stored as
// (real, imaginary) pairs.
struct Element {
  ElementType type = ElementType::kInvalid;
  std::string storage;  // float, double
  bool complex = false;
};

Result<Element> ElementOf(ElementType t, const std::string& op) {
  switch (t) {
    case ElementType::kF32:
      return Element{t, "float", false};
    case ElementType::kF64:
      return Element{t, "double", false};
    case ElementType::kC64:
      return Element{t, "float", true};
    case ElementType::kC128:
      return Element{t, "double", true};
    default:
      return Refuse(op, std::string("element type ") + hlo::ElementTypeName(t) +
                            " (f32, f64, c64 and c128 are generated)");
  }
}

// An array in generated code: its pointer, element and strides.
struct Array {
  std::string ptr;
  Element element;
  std::vector<int64_t> strides;
  // The parts of the element at element offset `at` as double expressions
  // (a real element's imaginary part is 0).
  std::string Re(const std::string& at) const {
    return "(double)" + ptr + "[" +
           (element.complex ? "2 * (" + at + ")" : at) + "]";
  }
  std::string Im(const std::string& at) const {
    if (!element.complex) return "0.0";
    return "(double)" + ptr + "[2 * (" + at + ") + 1]";
  }
  // A statement storing (re, im) at `at`, each rounded to the storage type
  // (a real element keeps `re`).
  std::string Store(const std::string& at, const std::string& re,
                    const std::string& im) const {
    const std::string t = "(" + element.storage + ")";
    if (!element.complex)
      return ptr + "[" + at + "] = " + t + "(" + re + ");\n";
    return ptr + "[2 * (" + at + ")] = " + t + "(" + re + "); " + ptr +
           "[2 * (" + at + ") + 1] = " + t + "(" + im + ");\n";
  }
  PointerArg Arg(bool output) const {
    return {ptr, std::string(output ? "" : "const ") + element.storage + "*"};
  }
};

Result<Array> ArrayOf(const Shape& shape, const std::string& ptr,
                      const std::string& op) {
  Array a;
  a.ptr = ptr;
  IXA_ASSIGN_OR_RETURN(a.element, ElementOf(shape.type, op));
  IXA_ASSIGN_OR_RETURN(a.strides, DenseStrides(shape, op));
  return a;
}

// A boolean attribute: absent is false.
Result<bool> BoolAttribute(const Instruction& in, const std::string& name,
                           const std::string& op) {
  if (!in.HasAttribute(name)) return false;
  const std::string v = in.Attribute(name);
  if (v == "true") return true;
  if (v == "false") return false;
  return Bad(op, name + "=" + v + " (true or false)");
}

// The element offset of batch element `t` (lines setting `name`): the
// leading `batch` dims of an array with `strides`, delinearized over
// `dims`.
std::string BatchOffset(const std::string& name, const std::string& t,
                        const std::vector<int64_t>& dims,
                        const std::vector<int64_t>& strides, size_t batch,
                        const std::string& prefix) {
  std::vector<int64_t> batch_dims(dims.begin(), dims.begin() + batch);
  std::vector<std::pair<std::string, int64_t>> terms;
  for (size_t d = 0; d < batch; ++d) {
    terms.push_back({prefix + std::to_string(d), strides[d]});
  }
  return "{\n" + Delinearize(t, batch_dims, prefix) + name + " = " +
         Offset(terms) + ";\n}\n";
}

// --- fft --------------------------------------------------------------

enum class FftType { kFft, kIfft, kRfft, kIrfft };

Result<std::string> FftFunction(const Instruction& in, const std::string& name,
                                Target target) {
  const std::string op = "fft " + in.name;
  if (in.operand_count() != 1 || !in.shape.IsArray() ||
      !in.operand(0)->shape.IsArray()) {
    return Bad(op, "an fft takes one array operand and gives an array");
  }
  const std::string type_text = in.Attribute("fft_type");
  FftType type;
  if (type_text == "FFT") {
    type = FftType::kFft;
  } else if (type_text == "IFFT") {
    type = FftType::kIfft;
  } else if (type_text == "RFFT") {
    type = FftType::kRfft;
  } else if (type_text == "IRFFT") {
    type = FftType::kIrfft;
  } else {
    return Bad(op, "fft_type '" + type_text + "' (FFT, IFFT, RFFT, IRFFT)");
  }
  const Shape& is = in.operand(0)->shape;
  const Shape& os = in.shape;
  IXA_ASSIGN_OR_RETURN(Array x, ArrayOf(is, "in", op));
  IXA_ASSIGN_OR_RETURN(Array y, ArrayOf(os, "out", op));
  const bool real_in = type == FftType::kRfft;
  const bool real_out = type == FftType::kIrfft;
  const bool types_ok = x.element.complex != real_in &&
                        y.element.complex != real_out &&
                        x.element.storage == y.element.storage;
  if (!types_ok) {
    return Bad(op, std::string("fft_type=") + type_text + " from " +
                       hlo::ElementTypeName(is.type) + " to " +
                       hlo::ElementTypeName(os.type));
  }
  // fft_length: the sizes of the transformed (last) dims.
  std::vector<int64_t> lengths;
  {
    std::string raw = in.Attribute("fft_length");
    std::string digits;
    for (char c : raw + ",") {
      if (c >= '0' && c <= '9') {
        digits += c;
      } else if (c == ',' || c == '}') {
        if (!digits.empty()) {
          if (digits.size() > 15) return Bad(op, "fft_length " + raw);
          lengths.push_back(std::stoll(digits));
        }
        digits.clear();
      } else if (c != '{' && c != ' ') {
        return Bad(op, "fft_length '" + raw + "'");
      }
    }
  }
  const int rank = is.rank();
  const int k = static_cast<int>(lengths.size());
  if (k < 1 || k > 3 || k > rank || os.rank() != rank) {
    return Bad(op, "fft_length of 1 to 3 sizes over the operand's last dims");
  }
  const int batch = rank - k;
  int64_t total = 1;  // N, the product of the lengths
  for (int64_t l : lengths) {
    if (l < 1) return Bad(op, "an fft_length entry below 1");
    total *= l;
    if (total > (int64_t{1} << 31)) {
      return Refuse(op, "a transform of more than 2^31 points");
    }
  }
  for (int d = 0; d < rank; ++d) {
    int64_t want_in = d < batch ? os.dims[d] : lengths[d - batch];
    int64_t want_out = want_in;
    if (d == rank - 1) {
      if (type == FftType::kRfft) want_out = lengths[k - 1] / 2 + 1;
      if (type == FftType::kIrfft) want_in = lengths[k - 1] / 2 + 1;
    }
    if (is.dims[d] != want_in || os.dims[d] != want_out) {
      return Bad(op, "shapes " + is.ToString() + " -> " + os.ToString() +
                         " do not match fft_type=" + type_text +
                         " fft_length " + in.Attribute("fft_length"));
    }
  }
  // Per output element: its batch offset in the operand, and per
  // transformed dim d the step of the phase (k_d * N / L_d mod N) as the
  // input index n_d advances; the phase p = Σ k_d n_d N / L_d mod N.
  std::string body = Delinearize("o", os.dims, "x");
  std::vector<std::pair<std::string, int64_t>> out_terms, batch_terms;
  for (int d = 0; d < rank; ++d) {
    out_terms.push_back({"x" + std::to_string(d), y.strides[d]});
    if (d < batch)
      batch_terms.push_back({"x" + std::to_string(d), x.strides[d]});
  }
  body += "const int64_t ib = " + Offset(batch_terms) + ";\n";
  body += "double acc_re = 0, acc_im = 0;\n";
  for (int j = 0; j < k; ++j) {
    const std::string js = std::to_string(j);
    body += "const int64_t step" + js + " = x" + std::to_string(batch + j) +
            " * " + Int(total / lengths[j]) + " % " + Int(total) + ";\n";
  }
  body += "int64_t p_outer = 0;\n";
  std::string close;
  for (int j = 0; j < k; ++j) {
    const std::string js = std::to_string(j);
    const std::string parent = j == 0 ? "p_outer" : "p" + std::to_string(j - 1);
    body += "int64_t p" + js + " = " + parent + ";\n";
    body += "for (int64_t n" + js + " = 0; n" + js + " < " +
            Int(is.dims[batch + j]) + "; ++n" + js + ") {\n";
    close = "p" + js + " += step" + js + "; if (p" + js + " >= " + Int(total) +
            ") p" + js + " -= " + Int(total) + ";\n}\n" + close;
  }
  const std::string p = "p" + std::to_string(k - 1);
  std::vector<std::pair<std::string, int64_t>> in_terms;
  for (int j = 0; j < k; ++j) {
    in_terms.push_back({"n" + std::to_string(j), x.strides[batch + j]});
  }
  const std::string at = "ib + " + Offset(in_terms);
  body += "const double xr = " + x.Re(at) + ", xi = " + x.Im(at) + ";\n";
  // The forward transforms turn by -2πp/N, the inverse ones by +2πp/N.
  const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
  const std::string sign = inverse ? "" : "-";
  if (target == Target::kCuda) {
    body += "const double angle = (double)" + p + " * (6.283185307179586 / " +
            Int(total) + ");\n";
    body += "const double wr = cos(angle), wi = " + sign + "sin(angle);\n";
  } else {
    body += "const double wr = twiddle_cos[" + p + "], wi = " + sign +
            "twiddle_sin[" + p + "];\n";
  }
  if (type == FftType::kIrfft) {
    // The real part of X·w, counted twice for the terms that stand for a
    // conjugate pair: all but the DC term and (even lengths) the Nyquist
    // one, whose imaginary parts are so ignored.
    const int64_t last = lengths[k - 1];
    const std::string n_last = "n" + std::to_string(k - 1);
    std::string weight = "(" + n_last + " == 0";
    if (last % 2 == 0) weight += " || " + n_last + " == " + Int(last / 2);
    weight += " ? 1.0 : 2.0)";
    body += "acc_re += " + weight + " * (xr * wr - xi * wi);\n";
  } else {
    body += "acc_re += xr * wr - xi * wi;\nacc_im += xr * wi + xi * wr;\n";
  }
  body += close;
  if (inverse) {
    body += "acc_re /= " + std::to_string(total) +
            ".0; acc_im /= " + std::to_string(total) + ".0;\n";
  }
  body += "(void)acc_im;\n";
  body += y.Store(Offset(out_terms), "acc_re", "acc_im");
  const std::vector<PointerArg> args = {x.Arg(false), y.Arg(true)};
  const int64_t count = os.ElementCount();
  if (target == Target::kCuda) {
    return ElementLoopFunction(name, args, count, body, target);
  }
  // cpp: the twiddles cos(2πp/N), sin(2πp/N) once per call.
  std::string f = "static int " + name + "(void* const* b) {\n";
  for (size_t i = 0; i < args.size(); ++i) {
    f += "  " + args[i].type + " " + args[i].name + " = (" + args[i].type +
         ")b[" + std::to_string(i) + "];\n";
  }
  f += "  std::vector<double> twiddle_cos(" + Int(total) + "), twiddle_sin(" +
       Int(total) + ");\n";
  f += "  for (int64_t p = 0; p < " + Int(total) +
       "; ++p) {\n    const double angle = (double)p * (6.283185307179586 / " +
       Int(total) +
       ");\n    twiddle_cos[p] = cos(angle); twiddle_sin[p] = sin(angle);\n  "
       "}\n";
  f += "  for (int64_t o = 0; o < " + Int(count) + "; ++o) {\n" + body +
       "  }\n  return 0;\n}\n";
  return f;
}

// --- cholesky and triangular-solve -------------------------------------

// The batch dims and the square matrix size of a [..., m, m] shape.
Result<int64_t> SquareSize(const Shape& s, const std::string& what,
                           const std::string& op) {
  if (s.rank() < 2 || s.dims[s.rank() - 1] != s.dims[s.rank() - 2]) {
    return Bad(op, what + " " + s.ToString() + " is not [..., m, m]");
  }
  return s.dims[s.rank() - 1];
}

int64_t BatchCount(const Shape& s) {
  int64_t n = 1;
  for (int d = 0; d + 2 < s.rank(); ++d) n *= s.dims[d];
  return n;
}

bool SameBatch(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int d = 0; d + 2 < a.rank(); ++d) {
    if (a.dims[d] != b.dims[d]) return false;
  }
  return true;
}

// The element (i, j) of a matrix at batch offset `base`.
std::string At(const Array& a, const std::string& base, const std::string& i,
               const std::string& j) {
  const size_t r = a.strides.size();
  return base + " + (" + i + ") * " + Int(a.strides[r - 2]) + " + (" + j +
         ") * " + Int(a.strides[r - 1]);
}

Result<std::string> CholeskyFunction(const Instruction& in,
                                     const std::string& name, Target target) {
  const std::string op = "cholesky " + in.name;
  if (in.operand_count() != 1 || !in.shape.IsArray() ||
      !in.operand(0)->shape.IsArray()) {
    return Bad(op, "a cholesky takes one array operand and gives an array");
  }
  const Shape& as = in.operand(0)->shape;
  const Shape& os = in.shape;
  IXA_ASSIGN_OR_RETURN(bool lower, BoolAttribute(in, "lower", op));
  IXA_ASSIGN_OR_RETURN(int64_t m, SquareSize(as, "the operand", op));
  if (os.dims != as.dims || os.type != as.type) {
    return Bad(op, "the result " + os.ToString() + " is not the operand's " +
                       as.ToString());
  }
  IXA_ASSIGN_OR_RETURN(Array a, ArrayOf(as, "a", op));
  IXA_ASSIGN_OR_RETURN(Array l, ArrayOf(os, "l", op));
  // L(i, j), i >= j, the lower factor A = L L^H: lower=true stores it, and
  // reads A(i, j) from the lower triangle; lower=false stores U = L^H and
  // reads A(i, j) = conj(A(j, i)) from the upper one.
  auto read_a = [&](const std::string& i, const std::string& j, bool im) {
    if (lower) return im ? a.Im(At(a, "ab", i, j)) : a.Re(At(a, "ab", i, j));
    return im ? "(-" + a.Im(At(a, "ab", j, i)) + ")" : a.Re(At(a, "ab", j, i));
  };
  auto read_l = [&](const std::string& i, const std::string& j, bool im) {
    if (lower) return im ? l.Im(At(l, "lb", i, j)) : l.Re(At(l, "lb", i, j));
    return im ? "(-" + l.Im(At(l, "lb", j, i)) + ")" : l.Re(At(l, "lb", j, i));
  };
  auto store_l = [&](const std::string& i, const std::string& j,
                     const std::string& re, const std::string& im) {
    if (lower) return l.Store(At(l, "lb", i, j), re, im);
    return l.Store(At(l, "lb", j, i), re, "-(" + im + ")");
  };
  const std::vector<int64_t>& dims = os.dims;
  const size_t batch = dims.size() - 2;
  std::string body = "int64_t ab = 0, lb = 0;\n";
  body += BatchOffset("ab", "o", dims, a.strides, batch, "u");
  body += BatchOffset("lb", "o", dims, l.strides, batch, "v");
  body += "bool ok = true;\n";
  body += "for (int64_t j = 0; j < " + Int(m) + " && ok; ++j) {\n";
  body += "double d = " + read_a("j", "j", false) + ";\n";
  body += "for (int64_t k = 0; k < j; ++k) {\n";
  body += "const double lr = " + read_l("j", "k", false) +
          ", li = " + read_l("j", "k", true) + ";\n";
  body += "d -= lr * lr + li * li;\n}\n";
  // Not positive definite (a pivot <= 0, or NaN).
  body += "if (!(d > 0)) { ok = false; break; }\n";
  body += store_l("j", "j", "sqrt(d)", "0.0");
  body += "const double pivot = " + read_l("j", "j", false) + ";\n";
  body += "for (int64_t i = j + 1; i < " + Int(m) + "; ++i) {\n";
  body += "double sr = " + read_a("i", "j", false) +
          ", si = " + read_a("i", "j", true) + ";\n";
  body += "for (int64_t k = 0; k < j; ++k) {\n";
  body += "const double ar = " + read_l("i", "k", false) +
          ", ai = " + read_l("i", "k", true) + ";\n";
  body += "const double br = " + read_l("j", "k", false) +
          ", bi = " + read_l("j", "k", true) + ";\n";
  // s -= L(i, k) * conj(L(j, k))
  body += "sr -= ar * br + ai * bi; si -= ai * br - ar * bi;\n}\n";
  body += "(void)si;\n";
  body += store_l("i", "j", "sr / pivot", "si / pivot");
  body += "}\n}\n";
  // The other triangle is zero (as XLA's expanders leave it); a matrix
  // that is not positive definite is NaN throughout.
  body += "for (int64_t i = 0; i < " + Int(m) + "; ++i) {\n";
  body += "for (int64_t j = 0; j < " + Int(m) + "; ++j) {\n";
  body += "if (!ok) { " + l.Store(At(l, "lb", "i", "j"), "NAN", "NAN") + "}\n";
  body += std::string("else if (") + (lower ? "j > i" : "i > j") + ") { " +
          l.Store(At(l, "lb", "i", "j"), "0.0", "0.0") + "}\n";
  body += "}\n}\n";
  return ElementLoopFunction(name, {a.Arg(false), l.Arg(true)}, BatchCount(os),
                             body, target);
}

Result<std::string> TriangularSolveFunction(const Instruction& in,
                                            const std::string& name,
                                            Target target) {
  const std::string op = "triangular-solve " + in.name;
  if (in.operand_count() != 2 || !in.shape.IsArray() ||
      !in.operand(0)->shape.IsArray() || !in.operand(1)->shape.IsArray()) {
    return Bad(op, "a triangular-solve takes two arrays and gives an array");
  }
  const Shape& as = in.operand(0)->shape;
  const Shape& bs = in.operand(1)->shape;
  const Shape& xs = in.shape;
  IXA_ASSIGN_OR_RETURN(bool left, BoolAttribute(in, "left_side", op));
  IXA_ASSIGN_OR_RETURN(bool lower, BoolAttribute(in, "lower", op));
  IXA_ASSIGN_OR_RETURN(bool unit, BoolAttribute(in, "unit_diagonal", op));
  std::string transpose = in.HasAttribute("transpose_a")
                              ? in.Attribute("transpose_a")
                              : "NO_TRANSPOSE";
  if (transpose != "NO_TRANSPOSE" && transpose != "TRANSPOSE" &&
      transpose != "ADJOINT") {
    return Bad(op, "transpose_a=" + transpose +
                       " (NO_TRANSPOSE, TRANSPOSE or ADJOINT)");
  }
  const bool transposed = transpose != "NO_TRANSPOSE";
  const bool adjoint = transpose == "ADJOINT";
  IXA_ASSIGN_OR_RETURN(int64_t m, SquareSize(as, "a", op));
  const int r = bs.rank();
  if (xs.dims != bs.dims || xs.type != bs.type || as.type != bs.type ||
      !SameBatch(as, bs) || bs.dims[left ? r - 2 : r - 1] != m) {
    return Bad(op, "shapes a " + as.ToString() + ", b " + bs.ToString() +
                       " -> " + xs.ToString() + " do not solve " +
                       (left ? "op(a) x = b" : "x op(a) = b"));
  }
  const int64_t n = bs.dims[left ? r - 1 : r - 2];
  IXA_ASSIGN_OR_RETURN(Array a, ArrayOf(as, "a", op));
  IXA_ASSIGN_OR_RETURN(Array b, ArrayOf(bs, "rhs", op));
  IXA_ASSIGN_OR_RETURN(Array x, ArrayOf(xs, "x", op));
  // Every case is S y = c for each column c of the right-hand side (left:
  // y = x(:, c); right: y = x(c, :)^T), with S = op(a) (left) or op(a)^T
  // (right). S(i, k) reads a(k, i) where S swaps a's indices (left with a
  // transposed, right without), conjugated for ADJOINT; S is lower (solved
  // forward) where a's stored triangle after that swap is.
  const bool swap = left == transposed;
  const bool forward = lower != swap;
  auto s_at = [&](const std::string& i, const std::string& k) {
    return swap ? At(a, "ab", k, i) : At(a, "ab", i, k);
  };
  auto s_im = [&](const std::string& i, const std::string& k) {
    return adjoint ? "(-" + a.Im(s_at(i, k)) + ")" : a.Im(s_at(i, k));
  };
  auto y_at = [&](const Array& v, const std::string& base,
                  const std::string& i) {
    return left ? At(v, base, i, "c") : At(v, base, "c", i);
  };
  const std::vector<int64_t>& dims = xs.dims;
  const size_t batch = dims.size() - 2;
  std::string body = "int64_t ab = 0, bb = 0, xb = 0;\n";
  body += BatchOffset("ab", "o", as.dims, a.strides, batch, "u");
  body += BatchOffset("bb", "o", dims, b.strides, batch, "v");
  body += BatchOffset("xb", "o", dims, x.strides, batch, "w");
  body += "for (int64_t c = 0; c < " + Int(n) + "; ++c) {\n";
  body += "for (int64_t t = 0; t < " + Int(m) + "; ++t) {\n";
  body += std::string("const int64_t i = ") +
          (forward ? "t" : Int(m - 1) + " - t") + ";\n";
  body += "double sr = " + b.Re(y_at(b, "bb", "i")) +
          ", si = " + b.Im(y_at(b, "bb", "i")) + ";\n";
  body += "for (int64_t q = 0; q < t; ++q) {\n";
  body += std::string("const int64_t k = ") +
          (forward ? "q" : Int(m - 1) + " - q") + ";\n";
  body += "const double ar = " + a.Re(s_at("i", "k")) +
          ", ai = " + s_im("i", "k") + ";\n";
  body += "const double yr = " + x.Re(y_at(x, "xb", "k")) +
          ", yi = " + x.Im(y_at(x, "xb", "k")) + ";\n";
  body += "sr -= ar * yr - ai * yi; si -= ar * yi + ai * yr;\n}\n";
  if (!unit) {
    body += "const double dr = " + a.Re(s_at("i", "i")) + ";\n";
    if (a.element.complex) {
      body += "const double di = " + s_im("i", "i") + ";\n";
      body += "const double den = dr * dr + di * di;\n";
      body += "const double qr = (sr * dr + si * di) / den;\n";
      body += "si = (si * dr - sr * di) / den; sr = qr;\n";
    } else {
      body += "sr /= dr;\n";
    }
  }
  body += "(void)si;\n";
  body += x.Store(y_at(x, "xb", "i"), "sr", "si");
  body += "}\n}\n";
  return ElementLoopFunction(name, {a.Arg(false), b.Arg(false), x.Arg(true)},
                             BatchCount(xs), body, target);
}

}  // namespace linalg_ops_detail

bool IsLinalgHostOp(const Instruction& in) {
  return hlo::OpcodeIn(in.opcode, {hlo::Opcode::kFft, hlo::Opcode::kCholesky,
                                   hlo::Opcode::kTriangularSolve});
}

Result<std::string> LinalgOpFunction(const Instruction& in,
                                     const std::string& name, Target target) {
  switch (in.opcode) {
    case hlo::Opcode::kFft:
      return linalg_ops_detail::FftFunction(in, name, target);
    case hlo::Opcode::kCholesky:
      return linalg_ops_detail::CholeskyFunction(in, name, target);
    case hlo::Opcode::kTriangularSolve:
      return linalg_ops_detail::TriangularSolveFunction(in, name, target);
    default:
      return Error{ErrorCode::kInternal,
                   "compile: " + in.name +
                       " is not an fft, cholesky or triangular-solve",
                   0, 0};
  }
}

}  // namespace ixa::emit::program_internal
