// The reference interpreter's fft, cholesky and triangular-solve
// (emit_interpreter_scalar.h), written from XLA's operation semantics
// with algorithms of their own (shares no code with emit/): the fft one
// dimension at a time, a recursive radix-2 transform where the length is a
// power of two and a direct DFT otherwise, a real inverse through the
// Hermitian extension of its half spectrum; cholesky row by row; a
// triangular solve as Gaussian elimination with partial pivoting on the
// dense op(a). Everything computes in long double and rounds once to the
// result type.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <utility>

#include "tests/emit/emit_interpreter_scalar.h"

namespace ixa::emit_test::interpreter_detail {
// Named (not anonymous): the public functions below call into it, and a
// unity batch must not merge it with another file's helpers.
namespace solvers_detail {

using Wide = std::complex<long double>;
constexpr long double kTwoPi = 2 * std::numbers::pi_v<long double>;

Wide WideAt(const Literal& lit, int64_t k) {
  if (IsComplex(lit.type)) return {lit.floats[2 * k], lit.floats[2 * k + 1]};
  return {static_cast<long double>(lit.AsDouble(k)), 0};
}

void StoreWide(Literal* lit, int64_t k, Wide v) {
  if (IsComplex(lit->type)) {
    Set(lit, k,
        MakeComplex(lit->type, {static_cast<double>(v.real()),
                                static_cast<double>(v.imag())}));
  } else {
    lit->floats[k] = RoundToType(static_cast<double>(v.real()), lit->type);
  }
}

bool PowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// The DFT of `x` with exp(sign * 2πi kn/N), unscaled.
std::vector<Wide> Transform(const std::vector<Wide>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (n == 1) return x;
  if (PowerOfTwo(n)) {
    std::vector<Wide> even(n / 2), odd(n / 2);
    for (int64_t i = 0; i < n / 2; ++i) {
      even[i] = x[2 * i];
      odd[i] = x[2 * i + 1];
    }
    std::vector<Wide> e = Transform(even, sign), o = Transform(odd, sign);
    std::vector<Wide> out(n);
    for (int64_t k = 0; k < n / 2; ++k) {
      const Wide w = std::polar(1.0L, sign * kTwoPi * k / n) * o[k];
      out[k] = e[k] + w;
      out[k + n / 2] = e[k] - w;
    }
    return out;
  }
  std::vector<Wide> out(n);
  for (int64_t k = 0; k < n; ++k) {
    Wide sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      sum += x[j] * std::polar(1.0L, sign * kTwoPi * ((k * j) % n) / n);
    }
    out[k] = sum;
  }
  return out;
}

// Applies `f` to every line of `data` (row-major over `dims`) along `axis`.
template <typename F>
void ForEachLine(std::vector<Wide>* data, const std::vector<int64_t>& dims,
                 size_t axis, F f) {
  int64_t inner = 1, outer = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  for (size_t d = 0; d < axis; ++d) outer *= dims[d];
  const int64_t n = dims[axis];
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t b = 0; b < inner; ++b) {
      std::vector<Wide> line(n);
      const int64_t base = a * n * inner + b;
      for (int64_t i = 0; i < n; ++i) line[i] = (*data)[base + i * inner];
      line = f(line);
      for (int64_t i = 0; i < n; ++i) (*data)[base + i * inner] = line[i];
    }
  }
}

}  // namespace solvers_detail

Result<Literal> EvalFft(const hlo::Instruction& in, const Literal& x,
                        const hlo::Shape& shape) {
  using namespace solvers_detail;  // NOLINT: this file's helpers
  const std::string type = in.Attribute("fft_type");
  const std::vector<int64_t> lengths = ParseIntList(in.Attribute("fft_length"));
  const size_t rank = x.dims.size(), k = lengths.size();
  if (k < 1 || k > 3 || k > rank || shape.dims.size() != rank) {
    return Unsupported(in, "fft_length");
  }
  int64_t total = 1;
  for (int64_t l : lengths) total *= l;
  const size_t batch = rank - k;
  std::vector<Wide> data(x.size());
  for (int64_t i = 0; i < x.size(); ++i) data[i] = WideAt(x, i);
  std::vector<int64_t> dims = x.dims;
  Literal out = Literal::Make(shape.type, shape.dims);
  if (type == "FFT" || type == "IFFT" || type == "RFFT") {
    const int sign = type == "IFFT" ? 1 : -1;
    for (size_t d = batch; d < rank; ++d) {
      if (dims[d] != lengths[d - batch]) return Unsupported(in, "shapes");
      ForEachLine(&data, dims, d, [&](const std::vector<Wide>& line) {
        return Transform(line, sign);
      });
    }
    // RFFT keeps the first L/2 + 1 terms of the last dim.
    for (int64_t o = 0; o < out.size(); ++o) {
      const int64_t from = Linearize(Delinearize(o, shape.dims), dims);
      StoreWide(&out, o,
                type == "IFFT" ? data[from] / static_cast<long double>(total)
                               : data[from]);
    }
    return out;
  }
  if (type != "IRFFT") return Unsupported(in, "fft_type " + type);
  // The complex inverse along the leading transformed dims, then along the
  // last a real inverse: the half spectrum's DC and (even lengths) Nyquist
  // terms taken as real, extended to the full one by Y[L - j] =
  // conj(Y[j]), transformed, its real part kept.
  const int64_t last = lengths[k - 1];
  if (dims[rank - 1] != last / 2 + 1) return Unsupported(in, "shapes");
  for (size_t d = batch; d + 1 < rank; ++d) {
    if (dims[d] != lengths[d - batch]) return Unsupported(in, "shapes");
    ForEachLine(&data, dims, d, [&](const std::vector<Wide>& line) {
      return Transform(line, 1);
    });
  }
  std::vector<int64_t> full_dims = dims;
  full_dims[rank - 1] = last;
  std::vector<Wide> full(out.size());
  for (int64_t o = 0; o < out.size(); ++o) {
    std::vector<int64_t> at = Delinearize(o, full_dims);
    int64_t& j = at[rank - 1];
    const bool mirrored = j > last / 2;
    if (mirrored) j = last - j;
    Wide v = data[Linearize(at, dims)];
    if (j == 0 || 2 * j == last) v = v.real();
    full[o] = mirrored ? std::conj(v) : v;
  }
  ForEachLine(&full, full_dims, rank - 1, [&](const std::vector<Wide>& line) {
    return Transform(line, 1);
  });
  for (int64_t o = 0; o < out.size(); ++o) {
    StoreWide(&out, o, full[o].real() / static_cast<long double>(total));
  }
  return out;
}

Result<Literal> EvalCholesky(const hlo::Instruction& in, const Literal& a) {
  using namespace solvers_detail;  // NOLINT: this file's helpers
  const bool lower = in.Attribute("lower") == "true";
  const size_t rank = a.dims.size();
  if (rank < 2 || a.dims[rank - 1] != a.dims[rank - 2]) {
    return Unsupported(in, "a non-square operand");
  }
  const int64_t m = a.dims[rank - 1];
  const int64_t batches = a.size() / std::max<int64_t>(1, m * m);
  Literal out = Literal::Make(a.type, a.dims);
  for (int64_t t = 0; t < batches; ++t) {
    const int64_t base = t * m * m;
    // The Hermitian matrix of the named triangle.
    auto element = [&](int64_t i, int64_t j) {
      if (lower == (i >= j)) return WideAt(a, base + i * m + j);
      return std::conj(WideAt(a, base + j * m + i));
    };
    std::vector<Wide> l(m * m, 0);
    bool ok = true;
    for (int64_t i = 0; i < m && ok; ++i) {
      for (int64_t j = 0; j <= i && ok; ++j) {
        Wide s = element(i, j);
        for (int64_t q = 0; q < j; ++q)
          s -= l[i * m + q] * std::conj(l[j * m + q]);
        if (i == j) {
          ok = s.real() > 0;  // false for NaN too
          if (ok) l[i * m + i] = std::sqrt(s.real());
        } else {
          l[i * m + j] = s / l[j * m + j];
        }
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        const long double nan = std::numeric_limits<long double>::quiet_NaN();
        Wide v = !ok     ? Wide(nan, nan)
                 : lower ? l[i * m + j]
                         : std::conj(l[j * m + i]);
        StoreWide(&out, base + i * m + j, v);
      }
    }
  }
  return out;
}

Result<Literal> EvalTriangularSolve(const hlo::Instruction& in,
                                    const Literal& a, const Literal& b) {
  using namespace solvers_detail;  // NOLINT: this file's helpers
  const bool left = in.Attribute("left_side") == "true";
  const bool lower = in.Attribute("lower") == "true";
  const bool unit = in.Attribute("unit_diagonal") == "true";
  std::string transpose = in.Attribute("transpose_a");
  if (transpose.empty()) transpose = "NO_TRANSPOSE";
  if (transpose != "NO_TRANSPOSE" && transpose != "TRANSPOSE" &&
      transpose != "ADJOINT") {
    return Unsupported(in, "transpose_a " + transpose);
  }
  const size_t rank = a.dims.size();
  if (rank < 2 || b.dims.size() != rank) return Unsupported(in, "shapes");
  const int64_t m = a.dims[rank - 1];
  const int64_t n = left ? b.dims[rank - 1] : b.dims[rank - 2];
  const int64_t batches = a.size() / std::max<int64_t>(1, m * m);
  Literal out = Literal::Make(b.type, b.dims);
  for (int64_t t = 0; t < batches; ++t) {
    // op(a), dense: a's named triangle (a unit diagonal where asked), the
    // rest zero, then transposed or conjugate-transposed.
    std::vector<Wide> op(m * m, 0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        Wide v = 0;
        if (i == j && unit) {
          v = 1;
        } else if (lower ? i >= j : i <= j) {
          v = WideAt(a, t * m * m + i * m + j);
        }
        if (transpose == "NO_TRANSPOSE") op[i * m + j] = v;
        if (transpose == "TRANSPOSE") op[j * m + i] = v;
        if (transpose == "ADJOINT") op[j * m + i] = std::conj(v);
      }
    }
    // M Y = C with m rows: left M = op(a), Y = x, C = b; right (x op(a) =
    // b) M = op(a)^T, Y = x^T, C = b^T.
    std::vector<Wide> mat(m * m), rhs(m * n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        mat[i * m + j] = left ? op[i * m + j] : op[j * m + i];
      }
      for (int64_t c = 0; c < n; ++c) {
        rhs[i * n + c] = WideAt(b, t * m * n + (left ? i * n + c : c * m + i));
      }
    }
    for (int64_t col = 0; col < m; ++col) {
      int64_t pivot = col;
      for (int64_t r = col + 1; r < m; ++r) {
        if (std::abs(mat[r * m + col]) > std::abs(mat[pivot * m + col])) {
          pivot = r;
        }
      }
      for (int64_t j = 0; j < m; ++j) {
        std::swap(mat[col * m + j], mat[pivot * m + j]);
      }
      for (int64_t c = 0; c < n; ++c) {
        std::swap(rhs[col * n + c], rhs[pivot * n + c]);
      }
      for (int64_t r = col + 1; r < m; ++r) {
        const Wide f = mat[r * m + col] / mat[col * m + col];
        if (f == Wide(0)) continue;
        for (int64_t j = col; j < m; ++j)
          mat[r * m + j] -= f * mat[col * m + j];
        for (int64_t c = 0; c < n; ++c) rhs[r * n + c] -= f * rhs[col * n + c];
      }
    }
    for (int64_t row = m - 1; row >= 0; --row) {
      for (int64_t c = 0; c < n; ++c) {
        Wide s = rhs[row * n + c];
        for (int64_t j = row + 1; j < m; ++j) {
          s -= mat[row * m + j] * rhs[j * n + c];
        }
        rhs[row * n + c] = s / mat[row * m + row];
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t c = 0; c < n; ++c) {
        StoreWide(&out, t * m * n + (left ? i * n + c : c * m + i),
                  rhs[i * n + c]);
      }
    }
  }
  return out;
}

}  // namespace ixa::emit_test::interpreter_detail
