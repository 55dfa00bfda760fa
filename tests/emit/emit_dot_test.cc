// Dot and convolution generated elementally (docs/emitters.md §2a): a loop
// fusion over the output whose element sums the products over the
// operand maps' symbols. Every case runs as `cpp`, in the CUDA model and
// (the real types) as host `mlir` against the reference interpreter:
// random shapes with ragged sizes, every dimension order, batch and
// several contracting dims, layouts, fused producers and consumers,
// integer, bf16 and f16 dots with a wider result type, convolutions with
// padding (negative too), strides, lhs and rhs dilation, reversal,
// feature and batch groups over 1 to 3 spatial dims in any dim_labels,
// and complex dots in `cpp` and `cuda`.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_expectations.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

std::string DimList(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t k = 0; k < v.size(); ++k) {
    s += (k ? "," : "") + std::to_string(v[k]);
  }
  return s;
}

std::string ShapeText(const std::string& type, const std::vector<int64_t>& dims,
                      const std::string& layout = "") {
  return type + "[" + DimList(dims) + "]" + layout;
}

// A dot's operands and dimension numbers; the result's dims follow
// (batch, lhs free, rhs free).
struct DotSpec {
  std::string lhs_type = "f32", rhs_type = "f32", out_type = "f32";
  std::vector<int64_t> lhs, rhs;
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
  std::string lhs_layout, rhs_layout, out_layout;
};

bool Listed(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::vector<int64_t> DotResultDims(const DotSpec& d) {
  std::vector<int64_t> out;
  for (int64_t b : d.lhs_batch) out.push_back(d.lhs[b]);
  for (int64_t k = 0; k < static_cast<int64_t>(d.lhs.size()); ++k) {
    if (!Listed(d.lhs_batch, k) && !Listed(d.lhs_contracting, k)) {
      out.push_back(d.lhs[k]);
    }
  }
  for (int64_t k = 0; k < static_cast<int64_t>(d.rhs.size()); ++k) {
    if (!Listed(d.rhs_batch, k) && !Listed(d.rhs_contracting, k)) {
      out.push_back(d.rhs[k]);
    }
  }
  return out;
}

std::string DotAttributes(const DotSpec& d) {
  std::string s;
  auto add = [&](const char* name, const std::vector<int64_t>& v) {
    if (!v.empty()) s += std::string(", ") + name + "={" + DimList(v) + "}";
  };
  add("lhs_batch_dims", d.lhs_batch);
  add("lhs_contracting_dims", d.lhs_contracting);
  add("rhs_batch_dims", d.rhs_batch);
  add("rhs_contracting_dims", d.rhs_contracting);
  return s;
}

// The dot alone as the fusion.
std::string DotHlo(const DotSpec& d) {
  return "ENTRY e {\n  a = " + ShapeText(d.lhs_type, d.lhs, d.lhs_layout) +
         " parameter(0)\n  b = " + ShapeText(d.rhs_type, d.rhs, d.rhs_layout) +
         " parameter(1)\n  ROOT d = " +
         ShapeText(d.out_type, DotResultDims(d), d.out_layout) + " dot(a, b)" +
         DotAttributes(d) + "\n}\n";
}

CheckCase MakeCase(std::string label, std::string hlo) {
  CheckCase c;
  c.label = std::move(label);
  c.hlo = std::move(hlo);
  c.reassociates = true;  // the sum's order of roundings
  c.expect_emitter = "loop";
  return c;
}

// A convolution: sizes per role, the window per spatial dim, dim_labels.
struct ConvSpec {
  std::string in_type = "f32", out_type = "f32";
  int64_t batch = 2, in_features = 2, out_features = 2;
  std::vector<int64_t> spatial, window;
  std::vector<int64_t> stride, pad_low, pad_high, lhs_dilate, rhs_dilate,
      reversal;
  int64_t feature_groups = 1, batch_groups = 1;
  std::string labels = "b01f_01io->b01f";
};

int64_t ConvOutputSize(const ConvSpec& c, size_t s) {
  const int64_t n = c.spatial[s];
  const int64_t padded = (n == 0 ? 0 : (n - 1) * c.lhs_dilate[s] + 1) +
                         c.pad_low[s] + c.pad_high[s];
  const int64_t window = (c.window[s] - 1) * c.rhs_dilate[s] + 1;
  if (padded < window) return 0;
  return (padded - window) / c.stride[s] + 1;
}

// The dims of one operand from its dim_labels part ("b01f", "01io"):
// `letters` name the two non-spatial roles' sizes.
std::vector<int64_t> LabeledDims(const std::string& labels, char first,
                                 int64_t first_size, char second,
                                 int64_t second_size,
                                 const std::vector<int64_t>& spatial) {
  std::vector<int64_t> dims;
  for (char ch : labels) {
    if (ch == first) {
      dims.push_back(first_size);
    } else if (ch == second) {
      dims.push_back(second_size);
    } else {
      dims.push_back(spatial.at(ch - '0'));
    }
  }
  return dims;
}

// "3x2x1": a window attribute's value.
std::string WindowValues(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t k = 0; k < v.size(); ++k) {
    s += (k ? "x" : "") + std::to_string(v[k]);
  }
  return s;
}

std::string ConvWindow(const ConvSpec& c) {
  std::string pads;
  for (size_t s = 0; s < c.window.size(); ++s) {
    pads += (s ? "x" : "") + std::to_string(c.pad_low[s]) + "_" +
            std::to_string(c.pad_high[s]);
  }
  return "window={size=" + WindowValues(c.window) +
         " stride=" + WindowValues(c.stride) + " pad=" + pads +
         " lhs_dilate=" + WindowValues(c.lhs_dilate) +
         " rhs_dilate=" + WindowValues(c.rhs_dilate) +
         " rhs_reversal=" + WindowValues(c.reversal) + "}";
}

// The shapes of a convolution's input, kernel and output.
struct ConvShapes {
  std::string input, kernel, output;
};
ConvShapes ConvShapesOf(const ConvSpec& c) {
  const std::string& l = c.labels;
  const size_t u = l.find('_'), arrow = l.find("->");
  const std::string in_labels = l.substr(0, u),
                    kernel_labels = l.substr(u + 1, arrow - u - 1),
                    out_labels = l.substr(arrow + 2);
  std::vector<int64_t> out_spatial;
  for (size_t s = 0; s < c.spatial.size(); ++s) {
    out_spatial.push_back(ConvOutputSize(c, s));
  }
  ConvShapes shapes;
  shapes.input = ShapeText(c.in_type, LabeledDims(in_labels, 'b', c.batch, 'f',
                                                  c.in_features, c.spatial));
  shapes.kernel =
      ShapeText(c.in_type, LabeledDims(kernel_labels, 'i',
                                       c.in_features / c.feature_groups, 'o',
                                       c.out_features, c.window));
  shapes.output = ShapeText(
      c.out_type, LabeledDims(out_labels, 'b', c.batch / c.batch_groups, 'f',
                              c.out_features, out_spatial));
  return shapes;
}

std::string ConvAttributes(const ConvSpec& c) {
  std::string s = ", " + ConvWindow(c) + ", dim_labels=" + c.labels;
  if (c.feature_groups != 1) {
    s += ", feature_group_count=" + std::to_string(c.feature_groups);
  }
  if (c.batch_groups != 1) {
    s += ", batch_group_count=" + std::to_string(c.batch_groups);
  }
  return s;
}

std::string ConvHlo(const ConvSpec& c) {
  const ConvShapes shapes = ConvShapesOf(c);
  return "ENTRY e {\n  x = " + shapes.input +
         " parameter(0)\n  k = " + shapes.kernel +
         " parameter(1)\n  ROOT c = " + shapes.output + " convolution(x, k)" +
         ConvAttributes(c) + "\n}\n";
}

// A convolution over `spatial` dims with the same window settings in
// each (callers change single dims after).
ConvSpec Conv(std::vector<int64_t> spatial, int64_t window,
              const std::string& labels) {
  ConvSpec c;
  const size_t n = spatial.size();
  c.spatial = std::move(spatial);
  c.window.assign(n, window);
  c.stride.assign(n, 1);
  c.pad_low.assign(n, 0);
  c.pad_high.assign(n, 0);
  c.lhs_dilate.assign(n, 1);
  c.rhs_dilate.assign(n, 1);
  c.reversal.assign(n, 0);
  c.labels = labels;
  return c;
}

std::vector<CheckCase> HandWrittenDots() {
  std::vector<CheckCase> cases;
  auto add = [&](const std::string& label, DotSpec d) {
    cases.push_back(MakeCase(label, DotHlo(d)));
  };
  DotSpec mm;
  mm.lhs = {13, 17};
  mm.rhs = {17, 11};
  mm.lhs_contracting = {1};
  mm.rhs_contracting = {0};
  add("matmul ragged", mm);
  DotSpec t = mm;
  t.lhs = {17, 13};
  t.lhs_contracting = {0};
  t.rhs = {11, 17};
  t.rhs_contracting = {1};
  t.out_layout = "{0,1}";
  add("transposed operands and result layout", t);
  DotSpec lay = mm;
  lay.lhs_layout = "{0,1}";
  lay.rhs_layout = "{0,1}";
  add("column-major operands", lay);
  DotSpec batch;
  batch.lhs = {3, 5, 7};
  batch.rhs = {3, 7, 4};
  batch.lhs_batch = {0};
  batch.rhs_batch = {0};
  batch.lhs_contracting = {2};
  batch.rhs_contracting = {1};
  add("batched", batch);
  DotSpec odd;
  odd.lhs = {5, 6, 3};
  odd.rhs = {4, 3, 5};
  odd.lhs_batch = {2};
  odd.rhs_batch = {1};
  odd.lhs_contracting = {0};
  odd.rhs_contracting = {2};
  add("batch and contracting dims out of order", odd);
  DotSpec two;
  two.lhs = {4, 3, 5};
  two.rhs = {5, 6, 4};
  two.lhs_contracting = {0, 2};
  two.rhs_contracting = {2, 0};
  add("two contracting dims", two);
  DotSpec outer;
  outer.lhs = {4};
  outer.rhs = {5};
  add("outer product", outer);
  DotSpec vec;
  vec.lhs = {9};
  vec.rhs = {9};
  vec.lhs_contracting = {0};
  vec.rhs_contracting = {0};
  add("vector dot to a scalar", vec);
  DotSpec zero = mm;
  zero.lhs = {3, 0};
  zero.rhs = {0, 2};
  add("empty contraction", zero);
  DotSpec two_batch;
  two_batch.lhs = {2, 3, 4, 5};
  two_batch.rhs = {5, 3, 2, 6};
  two_batch.lhs_batch = {1, 0};
  two_batch.rhs_batch = {1, 2};
  two_batch.lhs_contracting = {3};
  two_batch.rhs_contracting = {0};
  add("two batch dims", two_batch);
  DotSpec f64 = mm;
  f64.lhs_type = f64.rhs_type = f64.out_type = "f64";
  add("f64", f64);
  // Integer and narrow float operands into a wider result
  // (preferred_element_type), and narrow results.
  for (const auto& [in, out] :
       std::vector<std::pair<std::string, std::string>>{{"s8", "s32"},
                                                        {"u8", "s32"},
                                                        {"s32", "s32"},
                                                        {"s16", "s64"},
                                                        {"bf16", "f32"},
                                                        {"f16", "f32"},
                                                        {"bf16", "bf16"},
                                                        {"f16", "f16"},
                                                        {"pred", "pred"},
                                                        {"s8", "f32"}}) {
    DotSpec d = mm;
    d.lhs_type = d.rhs_type = in;
    d.out_type = out;
    add(in + " into " + out, d);
  }
  DotSpec mixed = mm;
  mixed.lhs_type = "bf16";
  mixed.rhs_type = "s8";
  add("bf16 times s8 into f32", mixed);
  return cases;
}

// s32 products that overflow wrap as XLA's do.
CheckCase WrappingDot() {
  DotSpec d;
  d.lhs_type = d.rhs_type = d.out_type = "s32";
  d.lhs = {5, 7};
  d.rhs = {7, 3};
  d.lhs_contracting = {1};
  d.rhs_contracting = {0};
  CheckCase c = MakeCase("s32 overflow wraps", DotHlo(d));
  c.parameters.resize(2);
  for (ParameterSpec& p : c.parameters) {
    p.random.int_lo = -2000000000;
    p.random.int_hi = 2000000000;
  }
  return c;
}

std::vector<CheckCase> FusedDots() {
  std::vector<CheckCase> cases;
  cases.push_back(MakeCase("convert dot add tanh", R"(ENTRY e {
  a = bf16[6,10] parameter(0)
  b = bf16[10,7] parameter(1)
  bias = f32[7] parameter(2)
  ca = f32[6,10] convert(a)
  cb = f32[10,7] convert(b)
  d = f32[6,7] dot(ca, cb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[6,7] broadcast(bias), dimensions={1}
  s = f32[6,7] add(d, bb)
  ROOT t = f32[6,7] tanh(s)
})"));
  cases.push_back(MakeCase("transposed producer and two outputs", R"(ENTRY e {
  a = f32[9,5] parameter(0)
  b = f32[9,4] parameter(1)
  ta = f32[5,9] transpose(a), dimensions={1,0}
  n = f32[9,4] negate(b)
  d = f32[5,4] dot(ta, n), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[5,4] exponential(d)
  ROOT r = (f32[5,4], f32[5,4]) tuple(d, e)
})"));
  cases.push_back(MakeCase("two dots summed", R"(ENTRY e {
  a = f32[4,6] parameter(0)
  b = f32[6,3] parameter(1)
  c = f32[4,5] parameter(2)
  g = f32[5,3] parameter(3)
  d1 = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[4,3] dot(c, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[4,3] add(d1, d2)
})"));
  cases.push_back(MakeCase("s8 dot scaled and clamped", R"(ENTRY e {
  a = s8[8,16] parameter(0)
  b = s8[16,5] parameter(1)
  d = s32[8,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  f = f32[8,5] convert(d)
  k = f32[] constant(0.25)
  kb = f32[8,5] broadcast(k), dimensions={}
  m = f32[8,5] multiply(f, kb)
  lo = f32[] constant(-20)
  hi = f32[] constant(20)
  ROOT c = f32[8,5] clamp(lo, m, hi)
})"));
  cases.push_back(MakeCase("dot of a dot", R"(ENTRY e {
  a = f32[3,4] parameter(0)
  b = f32[4,5] parameter(1)
  c = f32[5,2] parameter(2)
  ab = f32[3,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT abc = f32[3,2] dot(ab, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"));
  cases.push_back(MakeCase("convolution bias relu", R"(ENTRY e {
  x = f32[2,7,6,3] parameter(0)
  k = f32[3,3,3,4] parameter(1)
  bias = f32[4] parameter(2)
  c = f32[2,7,6,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,7,6,4] broadcast(bias), dimensions={3}
  s = f32[2,7,6,4] add(c, bb)
  z = f32[] constant(0)
  zb = f32[2,7,6,4] broadcast(z), dimensions={}
  ROOT r = f32[2,7,6,4] maximum(s, zb)
})"));
  return cases;
}

std::vector<CheckCase> HandWrittenConvolutions() {
  std::vector<CheckCase> cases;
  auto add = [&](const std::string& label, const ConvSpec& c) {
    cases.push_back(MakeCase(label, ConvHlo(c)));
  };
  ConvSpec same = Conv({7, 6}, 3, "b01f_01io->b01f");
  same.pad_low = same.pad_high = {1, 1};
  add("2-D same padding b01f", same);
  ConvSpec nchw = Conv({6, 5}, 3, "fb01_io01->bf01");
  nchw.in_features = 3;
  nchw.out_features = 4;
  add("fb01_io01->bf01", nchw);
  ConvSpec neg = Conv({9, 8}, 3, "bf01_oi01->bf01");
  neg.pad_low = {-1, 2};
  neg.pad_high = {2, -2};
  add("negative padding", neg);
  ConvSpec strided = Conv({11, 9}, 3, "b01f_01io->b01f");
  strided.stride = {2, 3};
  strided.pad_low = {1, 0};
  strided.pad_high = {1, 2};
  add("strides", strided);
  ConvSpec lhs_dil = Conv({5, 4}, 3, "b01f_01io->b01f");
  lhs_dil.lhs_dilate = {2, 3};
  lhs_dil.pad_low = {1, 2};
  lhs_dil.pad_high = {1, 0};
  add("lhs dilation", lhs_dil);
  ConvSpec rhs_dil = Conv({10, 9}, 2, "b01f_01io->b01f");
  rhs_dil.rhs_dilate = {3, 2};
  add("rhs dilation", rhs_dil);
  ConvSpec rev = Conv({6, 7}, 3, "b01f_01io->b01f");
  rev.reversal = {1, 0};
  rev.pad_low = rev.pad_high = {1, 1};
  add("window reversal", rev);
  ConvSpec fg = Conv({6, 5}, 3, "b01f_01io->b01f");
  fg.in_features = 6;
  fg.out_features = 9;
  fg.feature_groups = 3;
  add("feature groups", fg);
  ConvSpec dw = Conv({6, 6}, 3, "b01f_01io->b01f");
  dw.in_features = dw.out_features = dw.feature_groups = 4;
  dw.stride = {2, 2};
  dw.pad_low = dw.pad_high = {1, 1};
  add("depthwise strided", dw);
  ConvSpec bg = Conv({5, 4}, 2, "b01f_01io->b01f");
  bg.batch = 6;
  bg.in_features = 2;
  bg.out_features = 6;
  bg.batch_groups = 3;
  add("batch groups", bg);
  ConvSpec one = Conv({13}, 4, "b0f_0io->b0f");
  one.in_features = 3;
  one.pad_low = {2};
  one.pad_high = {1};
  one.stride = {2};
  add("1-D", one);
  ConvSpec one_odd = Conv({10}, 3, "f0b_i0o->0bf");
  one_odd.rhs_dilate = {2};
  add("1-D f0b_i0o->0bf", one_odd);
  ConvSpec three = Conv({4, 5, 3}, 2, "b012f_012io->b012f");
  three.pad_low = {1, 0, 1};
  three.pad_high = {0, 1, 1};
  three.stride = {1, 2, 1};
  add("3-D", three);
  ConvSpec three_odd = Conv({3, 4, 5}, 2, "f2b01_0o12i->1fb02");
  three_odd.in_features = 3;
  three_odd.reversal = {0, 1, 1};
  three_odd.lhs_dilate = {1, 2, 1};
  add("3-D f2b01_0o12i->1fb02", three_odd);
  ConvSpec window_one = Conv({5, 6}, 1, "b01f_01io->b01f");
  window_one.window = {1, 3};
  add("a window of size 1", window_one);
  ConvSpec kernel_sized = Conv({4, 3}, 4, "b01f_01io->b01f");
  kernel_sized.window = {4, 3};
  add("window as large as the input", kernel_sized);
  for (const auto& [in, out] : std::vector<std::pair<std::string, std::string>>{
           {"s8", "s32"}, {"bf16", "f32"}, {"bf16", "bf16"}, {"f16", "f16"}}) {
    ConvSpec c = same;
    c.in_type = in;
    c.out_type = out;
    add(in + " convolution into " + out, c);
  }
  return cases;
}

// A random permutation of `letters`.
std::string Shuffled(std::string letters, std::mt19937_64& rng) {
  std::shuffle(letters.begin(), letters.end(), rng);
  return letters;
}

// Random dots: 0 to 2 batch dims, 0 to 2 contracting dims, 0 to 2 free
// dims per operand, in random orders, ragged sizes, sometimes a
// column-major or s8 / bf16 operand.
std::vector<CheckCase> RandomDots(int count, uint64_t seed) {
  std::vector<CheckCase> cases;
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int n = 0; n < count; ++n) {
    const int64_t nb = pick(0, 2), nc = pick(0, 2), lf = pick(0, 2),
                  rf = pick(0, 2);
    std::vector<int64_t> batch_sizes, contract_sizes;
    for (int64_t k = 0; k < nb; ++k) batch_sizes.push_back(pick(1, 4));
    for (int64_t k = 0; k < nc; ++k) contract_sizes.push_back(pick(1, 9));
    // Roles of each operand's dims: 'b' batch k, 'c' contracting k, 'f'.
    auto place = [&](int64_t free, std::vector<int64_t>* dims,
                     std::vector<int64_t>* batch,
                     std::vector<int64_t>* contracting) {
      std::vector<std::pair<char, int64_t>> roles;
      for (int64_t k = 0; k < nb; ++k) roles.push_back({'b', k});
      for (int64_t k = 0; k < nc; ++k) roles.push_back({'c', k});
      for (int64_t k = 0; k < free; ++k) roles.push_back({'f', k});
      std::shuffle(roles.begin(), roles.end(), rng);
      batch->assign(nb, 0);
      contracting->assign(nc, 0);
      for (size_t d = 0; d < roles.size(); ++d) {
        const auto [role, k] = roles[d];
        if (role == 'b') {
          (*batch)[k] = static_cast<int64_t>(d);
          dims->push_back(batch_sizes[k]);
        } else if (role == 'c') {
          (*contracting)[k] = static_cast<int64_t>(d);
          dims->push_back(contract_sizes[k]);
        } else {
          dims->push_back(pick(1, 7));
        }
      }
    };
    DotSpec d;
    place(lf, &d.lhs, &d.lhs_batch, &d.lhs_contracting);
    place(rf, &d.rhs, &d.rhs_batch, &d.rhs_contracting);
    const int64_t types = pick(0, 5);
    if (types == 4) {
      d.lhs_type = d.rhs_type = "s8";
      d.out_type = "s32";
    } else if (types == 5) {
      d.lhs_type = "bf16";
    }
    if (d.lhs.size() == 2 && pick(0, 2) == 0) d.lhs_layout = "{0,1}";
    if (DotResultDims(d).size() == 2 && pick(0, 2) == 0) {
      d.out_layout = "{0,1}";
    }
    cases.push_back(MakeCase("random dot " + std::to_string(n) + ": " +
                                 DimList(d.lhs) + " x " + DimList(d.rhs),
                             DotHlo(d)));
  }
  return cases;
}

// Random convolutions: 1 to 3 spatial dims, random dim_labels, window
// sizes 1 to 3, strides, padding from -1 to 2, dilations, reversal and
// group counts.
std::vector<CheckCase> RandomConvolutions(int count, uint64_t seed) {
  std::vector<CheckCase> cases;
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  while (static_cast<int>(cases.size()) < count) {
    const int64_t n = pick(1, 3);
    std::string digits;
    for (int64_t s = 0; s < n; ++s) digits += static_cast<char>('0' + s);
    ConvSpec c =
        Conv({}, 1,
             Shuffled("bf" + digits, rng) + "_" + Shuffled("io" + digits, rng) +
                 "->" + Shuffled("bf" + digits, rng));
    for (int64_t s = 0; s < n; ++s) {
      c.spatial.push_back(pick(1, n == 3 ? 4 : 8));
      c.window.push_back(pick(1, 3));
      c.stride.push_back(pick(1, 2));
      c.pad_low.push_back(pick(-1, 2));
      c.pad_high.push_back(pick(-1, 2));
      c.lhs_dilate.push_back(pick(0, 3) == 0 ? 2 : 1);
      c.rhs_dilate.push_back(pick(0, 3) == 0 ? 2 : 1);
      c.reversal.push_back(pick(0, 1));
    }
    const int64_t groups = pick(0, 3);
    c.feature_groups = groups == 1 ? 2 : 1;
    c.batch_groups = groups == 2 ? 2 : 1;
    c.in_features = pick(1, 3) * c.feature_groups;
    c.out_features = pick(1, 3) * c.feature_groups * c.batch_groups;
    c.batch = pick(1, 2) * c.batch_groups;
    bool empty = false;
    for (int64_t s = 0; s < n; ++s) empty |= ConvOutputSize(c, s) == 0;
    if (empty) continue;
    cases.push_back(MakeCase(
        "random convolution " + std::to_string(cases.size()) + ": " + c.labels,
        ConvHlo(c)));
  }
  return cases;
}

TEST_CASE("dot: every dimension order and type against the interpreter",
          "[.][emit_dot]") {
  std::vector<CheckCase> cases = HandWrittenDots();
  cases.push_back(WrappingDot());
  for (CheckCase& c : RandomDots(24, 7)) cases.push_back(std::move(c));
  for (CheckCase& c : FusedDots()) cases.push_back(std::move(c));
  ExpectEveryCaseRuns(std::move(cases), /*mlir=*/true);
}

TEST_CASE("convolution: windows and groups in any dim_labels",
          "[.][emit_dot]") {
  std::vector<CheckCase> cases = HandWrittenConvolutions();
  for (CheckCase& c : RandomConvolutions(24, 11)) {
    cases.push_back(std::move(c));
  }
  ExpectEveryCaseRuns(std::move(cases), /*mlir=*/true);
}

TEST_CASE("dot: complex dots in C++ and CUDA", "[.][emit_dot]") {
  std::vector<CheckCase> cases;
  DotSpec c;
  c.lhs_type = c.rhs_type = c.out_type = "c64";
  c.lhs = {3, 5};
  c.rhs = {5, 4};
  c.lhs_contracting = {1};
  c.rhs_contracting = {0};
  cases.push_back(MakeCase("c64 matmul", DotHlo(c)));
  c.lhs_type = c.rhs_type = c.out_type = "c128";
  cases.push_back(MakeCase("c128 matmul", DotHlo(c)));
  ConvSpec conv = Conv({5, 4}, 2, "b01f_01io->b01f");
  conv.in_type = conv.out_type = "c64";
  conv.pad_low = {1, 0};
  cases.push_back(MakeCase("c64 convolution", ConvHlo(conv)));
  ExpectEveryCaseRuns(std::move(cases), /*mlir=*/false);
}

// The MLIR target refuses complex values: a complex dot there answers
// `unsupported`, naming the op's type.
TEST_CASE("dot: a complex dot in MLIR is unsupported", "[emit]") {
  DotSpec c;
  c.lhs_type = c.rhs_type = c.out_type = "c64";
  c.lhs = {2, 3};
  c.rhs = {3, 2};
  c.lhs_contracting = {1};
  c.rhs_contracting = {0};
  auto module = hlo::ParseHloModule(DotHlo(c));
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = emit::Target::kMlir;
  auto emitted =
      emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  REQUIRE_FALSE(emitted.ok());
  CHECK(emitted.error().code == ErrorCode::kUnsupported);
  CHECK(emitted.error().message.find("c64") != std::string::npos);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
