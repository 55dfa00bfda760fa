// A tiny HLO interpreter over int64 values, the oracle of the brute-force
// tests: ops are evaluated from their definitions, never from the maps.
// Arithmetic wraps (unsigned) so that any value is defined; the op
// semantics only need to make every real dependency visible.
#ifndef IXA_TESTS_ANALYSIS_REFERENCE_INTERPRETER_H_
#define IXA_TESTS_ANALYSIS_REFERENCE_INTERPRETER_H_

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/hlo/module.h"

namespace ixa::testing {

struct Tensor {
  std::vector<int64_t> dims;
  std::vector<int64_t> data;
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

inline int64_t Linear(const std::vector<int64_t>& idx,
                      const std::vector<int64_t>& dims) {
  int64_t l = 0;
  for (size_t i = 0; i < dims.size(); ++i) l = l * dims[i] + idx[i];
  return l;
}

inline std::vector<int64_t> Unlinear(int64_t l,
                                     const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    idx[i] = dims[i] ? l % dims[i] : 0;
    if (dims[i]) l /= dims[i];
  }
  return idx;
}

inline int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

inline int64_t Wrap(uint64_t v) { return static_cast<int64_t>(v); }

using Values = std::unordered_map<const hlo::Instruction*, std::vector<Tensor>>;

class Interpreter {
 public:
  // Evaluates every instruction of `comp`; returns the root's outputs.
  std::vector<Tensor> Run(const hlo::Computation& comp,
                          const std::vector<Tensor>& params,
                          Values* values = nullptr) {
    Values local;
    Values& v = values ? *values : local;
    for (const hlo::Instruction* in : comp.post_order()) {
      v[in] = Eval(*in, params, v);
    }
    return v[comp.root()];
  }

 private:
  static Tensor Make(const std::vector<int64_t>& dims) {
    return Tensor{dims, std::vector<int64_t>(Count(dims), 0)};
  }

  int64_t Scalar(const hlo::Computation& reducer, std::vector<int64_t> args) {
    std::vector<Tensor> ps;
    for (int64_t a : args) ps.push_back(Tensor{{}, {a}});
    return Run(reducer, ps)[0].data[0];
  }

  static int64_t Elementwise(const std::string& op,
                             const std::vector<int64_t>& a) {
    uint64_t x = a[0], y = a.size() > 1 ? a[1] : 0;
    if (op == "add") return Wrap(x + y);
    if (op == "subtract") return Wrap(x - y);
    if (op == "multiply") return Wrap(x * y);
    if (op == "maximum") return std::max(a[0], a[1]);
    if (op == "minimum") return std::min(a[0], a[1]);
    if (op == "negate") return Wrap(-x);
    if (op == "compare") return a[0] < a[1];
    if (op == "select") return a[0] ? a[1] : a[2];
    if (op == "clamp") return std::min(std::max(a[1], a[0]), a[2]);
    if (op == "convert" || op == "copy" || op == "bitcast-convert") return a[0];
    if (a.size() == 1) return Wrap(x * 3 + 1);  // exponential, log, ...
    return Wrap(x * 31 + y * 17);               // divide, power, ...
  }

  std::vector<Tensor> Eval(const hlo::Instruction& in,
                           const std::vector<Tensor>& params, Values& v) {
    const std::string& op = in.opcode;
    auto arg = [&](int i) -> const Tensor& {
      const hlo::Instruction* o = in.operand(i);
      return v[o][0];
    };
    const std::vector<int64_t>& dims = in.shape.dims;
    Tensor out = Make(dims);
    auto for_each =
        [&](const std::function<int64_t(std::vector<int64_t>&)>& f) {
          for (int64_t l = 0; l < out.size(); ++l) {
            std::vector<int64_t> idx = Unlinear(l, dims);
            out.data[l] = f(idx);
          }
        };
    if (op == "parameter") return {params.at(in.parameter_number)};
    if (op == "constant") {
      if (in.int_value) return {Tensor{{}, {*in.int_value}}};
      std::vector<int64_t> data;
      std::string lit = in.literal;
      for (char& c : lit) {
        if (c == '{' || c == '}' || c == ',') c = ' ';
      }
      size_t pos = 0;
      while (pos < lit.size()) {
        size_t used = 0;
        try {
          data.push_back(std::stoll(lit.substr(pos), &used));
        } catch (...) {
          break;
        }
        pos += used;
      }
      data.resize(Count(dims), -1000000);  // -inf and friends
      return {Tensor{dims, data}};
    }
    if (op == "iota") {
      for_each([&](auto& idx) { return idx[in.iota_dimension]; });
      return {out};
    }
    if (op == "tuple") {
      std::vector<Tensor> t;
      for (const hlo::Instruction* o : in.operands) t.push_back(v[o][0]);
      return t;
    }
    if (op == "get-tuple-element") return {v[in.operand(0)][in.tuple_index]};
    if (op == "fusion" || op == "call") {
      std::vector<Tensor> ps;
      for (const hlo::Instruction* o : in.operands) ps.push_back(v[o][0]);
      return Run(*in.called(), ps);
    }
    if (hlo::IsElementwiseOpcode(op) && op != "map") {
      for_each([&](auto& idx) {
        std::vector<int64_t> a;
        for (int i = 0; i < in.operand_count(); ++i) {
          const Tensor& t = arg(i);
          a.push_back(t.dims.empty() ? t.data[0] : t.data[Linear(idx, t.dims)]);
        }
        return Elementwise(op, a);
      });
      return {out};
    }
    if (op == "broadcast") {
      for_each([&](auto& idx) {
        std::vector<int64_t> src;
        for (int64_t d : in.dimensions) src.push_back(idx[d]);
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == "transpose") {
      for_each([&](auto& idx) {
        std::vector<int64_t> src(idx.size());
        for (size_t i = 0; i < idx.size(); ++i) src[in.dimensions[i]] = idx[i];
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == "reshape") return {Tensor{dims, arg(0).data}};
    if (op == "bitcast") {
      // Same physical (layout-ordered) linear offset.
      const hlo::Shape& src_shape = in.operand(0)->shape;
      std::vector<int64_t> m_out = in.shape.MinorToMajor();
      std::vector<int64_t> m_in = src_shape.MinorToMajor();
      for_each([&](auto& idx) {
        std::vector<int64_t> phys;
        for (size_t i = m_out.size(); i-- > 0;) phys.push_back(idx[m_out[i]]);
        int64_t l = Linear(phys, in.shape.PhysicalDims());
        std::vector<int64_t> pin = Unlinear(l, src_shape.PhysicalDims());
        std::vector<int64_t> src(pin.size());
        for (size_t i = 0; i < pin.size(); ++i)
          src[m_in[pin.size() - 1 - i]] = pin[i];
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == "reverse") {
      for_each([&](auto& idx) {
        std::vector<int64_t> src = idx;
        for (int64_t d : in.dimensions) src[d] = dims[d] - 1 - idx[d];
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == "slice") {
      for_each([&](auto& idx) {
        std::vector<int64_t> src;
        for (size_t i = 0; i < idx.size(); ++i) {
          src.push_back(in.slice[i].start + idx[i] * in.slice[i].stride);
        }
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == "pad") {
      for_each([&](auto& idx) {
        std::vector<int64_t> src;
        for (size_t i = 0; i < idx.size(); ++i) {
          const hlo::PadDim& p = in.padding[i];
          int64_t s = idx[i] - p.low;
          if (s < 0 || s % (p.interior + 1) != 0) return arg(1).data[0];
          s /= p.interior + 1;
          if (s >= arg(0).dims[i]) return arg(1).data[0];
          src.push_back(s);
        }
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == "concatenate") {
      int64_t d = in.dimensions[0];
      for_each([&](auto& idx) {
        std::vector<int64_t> src = idx;
        for (int i = 0;; ++i) {
          if (src[d] < arg(i).dims[d])
            return arg(i).data[Linear(src, arg(i).dims)];
          src[d] -= arg(i).dims[d];
        }
      });
      return {out};
    }
    if (op == "reduce" || op == "reduce-window") {
      int k = in.operand_count() / 2;
      const Tensor& in0 = arg(0);
      std::vector<std::vector<int64_t>> outs_dims;
      for (int j = 0; j < k; ++j) {
        outs_dims.push_back(in.shape.IsTuple() ? in.shape.tuple_elements[j].dims
                                               : dims);
      }
      std::vector<Tensor> outs;
      for (int j = 0; j < k; ++j) outs.push_back(Make(outs_dims[j]));
      for (int64_t l = 0; l < outs[0].size(); ++l) {
        std::vector<int64_t> o = Unlinear(l, outs_dims[0]);
        std::vector<int64_t> acc;
        for (int j = 0; j < k; ++j) acc.push_back(arg(k + j).data[0]);
        auto accumulate = [&](const std::vector<int64_t>& src) {
          std::vector<int64_t> a = acc;
          for (int j = 0; j < k; ++j)
            a.push_back(arg(j).data[Linear(src, in0.dims)]);
          if (k == 1) {
            acc[0] = Scalar(*in.called(), a);
          } else {
            std::vector<Tensor> ps;
            for (int64_t x : a) ps.push_back(Tensor{{}, {x}});
            std::vector<Tensor> r = Run(*in.called(), ps);
            for (int j = 0; j < k; ++j) acc[j] = r[j].data[0];
          }
        };
        if (op == "reduce") {
          for (int64_t s = 0; s < Count(in0.dims); ++s) {
            std::vector<int64_t> src = Unlinear(s, in0.dims);
            bool match = true;
            size_t oi = 0;
            for (size_t i = 0; i < src.size(); ++i) {
              bool reduced =
                  std::find(in.dimensions.begin(), in.dimensions.end(),
                            static_cast<int64_t>(i)) != in.dimensions.end();
              if (!reduced && src[i] != o[oi++]) match = false;
            }
            if (match) accumulate(src);
          }
        } else {
          std::vector<int64_t> wdims;
          for (const auto& w : in.window) wdims.push_back(w.size);
          for (int64_t s = 0; s < Count(wdims); ++s) {
            std::vector<int64_t> wi = Unlinear(s, wdims), src;
            bool ok = true;
            for (size_t i = 0; i < wi.size(); ++i) {
              const auto& w = in.window[i];
              int64_t p =
                  o[i] * w.stride + wi[i] * w.window_dilation - w.pad_low;
              if (p < 0 || p % w.base_dilation != 0 ||
                  p / w.base_dilation >= in0.dims[i]) {
                ok = false;
              }
              src.push_back(p / w.base_dilation);
            }
            if (ok) accumulate(src);
          }
        }
        for (int j = 0; j < k; ++j) outs[j].data[l] = acc[j];
      }
      return outs;
    }
    if (op == "dot") {
      const auto& dn = in.dot;
      const Tensor &a = arg(0), &b = arg(1);
      std::vector<int64_t> csizes;
      for (int64_t c : dn.lhs_contracting) csizes.push_back(a.dims[c]);
      auto is_in = [](const std::vector<int64_t>& v, int64_t x) {
        return std::find(v.begin(), v.end(), x) != v.end();
      };
      for_each([&](auto& idx) {
        uint64_t sum = 0;
        for (int64_t s = 0; s < Count(csizes); ++s) {
          std::vector<int64_t> c = Unlinear(s, csizes);
          std::vector<int64_t> ai(a.dims.size()), bi(b.dims.size());
          size_t pos = dn.lhs_batch.size();
          for (size_t i = 0; i < dn.lhs_batch.size(); ++i) {
            ai[dn.lhs_batch[i]] = idx[i];
            bi[dn.rhs_batch[i]] = idx[i];
          }
          for (size_t i = 0; i < c.size(); ++i) {
            ai[dn.lhs_contracting[i]] = c[i];
            bi[dn.rhs_contracting[i]] = c[i];
          }
          for (size_t i = 0; i < a.dims.size(); ++i) {
            if (!is_in(dn.lhs_batch, i) && !is_in(dn.lhs_contracting, i))
              ai[i] = idx[pos++];
          }
          for (size_t i = 0; i < b.dims.size(); ++i) {
            if (!is_in(dn.rhs_batch, i) && !is_in(dn.rhs_contracting, i))
              bi[i] = idx[pos++];
          }
          sum += uint64_t(a.data[Linear(ai, a.dims)]) *
                     uint64_t(b.data[Linear(bi, b.dims)]) +
                 1;
        }
        return Wrap(sum);
      });
      return {out};
    }
    if (op == "convolution") {
      const auto& dn = *in.conv;
      const Tensor &a = arg(0), &k = arg(1);
      size_t sp = dn.input_spatial.size();
      int64_t ck = k.dims[dn.kernel_input_feature];
      int64_t fo = dims[dn.output_feature];
      std::vector<int64_t> ksizes;
      for (size_t i = 0; i < sp; ++i)
        ksizes.push_back(k.dims[dn.kernel_spatial[i]]);
      ksizes.push_back(ck);
      for_each([&](auto& idx) {
        uint64_t sum = 0;
        int64_t f = idx[dn.output_feature];
        int64_t gf = f / (fo / in.feature_group_count);
        int64_t gb = f / (fo / in.batch_group_count);
        for (int64_t s = 0; s < Count(ksizes); ++s) {
          std::vector<int64_t> w = Unlinear(s, ksizes);
          std::vector<int64_t> ai(a.dims.size()), ki(k.dims.size());
          ai[dn.input_batch] =
              gb * dims[dn.output_batch] + idx[dn.output_batch];
          ai[dn.input_feature] = gf * ck + w[sp];
          ki[dn.kernel_input_feature] = w[sp];
          ki[dn.kernel_output_feature] = f;
          bool ok = true;
          for (size_t i = 0; i < sp; ++i) {
            const auto& win = in.window[i];
            int64_t p = idx[dn.output_spatial[i]] * win.stride +
                        w[i] * win.window_dilation - win.pad_low;
            if (p < 0 || p % win.base_dilation != 0 ||
                p / win.base_dilation >= a.dims[dn.input_spatial[i]]) {
              ok = false;
            }
            ai[dn.input_spatial[i]] = p / win.base_dilation;
            ki[dn.kernel_spatial[i]] =
                win.reversal ? win.size - 1 - w[i] : w[i];
          }
          if (!ok) continue;
          sum += uint64_t(a.data[Linear(ai, a.dims)]) *
                     uint64_t(k.data[Linear(ki, k.dims)]) +
                 1;
        }
        return Wrap(sum);
      });
      return {out};
    }
    if (op == "dynamic-slice" || op == "dynamic-update-slice") {
      bool ds = op == "dynamic-slice";
      const Tensor& src = arg(0);
      std::vector<int64_t> size = ds ? in.dynamic_slice_sizes : arg(1).dims;
      std::vector<int64_t> start;
      for (size_t i = 0; i < src.dims.size(); ++i) {
        int64_t s = arg(i + (ds ? 1 : 2)).data[0];
        start.push_back(std::clamp<int64_t>(s, 0, src.dims[i] - size[i]));
      }
      for_each([&](auto& idx) {
        if (ds) {
          std::vector<int64_t> s = idx;
          for (size_t i = 0; i < s.size(); ++i) s[i] += start[i];
          return src.data[Linear(s, src.dims)];
        }
        std::vector<int64_t> u = idx;
        bool inside = true;
        for (size_t i = 0; i < u.size(); ++i) {
          u[i] -= start[i];
          if (u[i] < 0 || u[i] >= size[i]) inside = false;
        }
        return inside ? arg(1).data[Linear(u, size)]
                      : src.data[Linear(idx, src.dims)];
      });
      return {out};
    }
    if (op == "gather") {  // canonical form only
      const Tensor &src = arg(0), &ind = arg(1);
      for_each([&](auto& idx) {
        std::vector<int64_t> s(src.dims.size());
        for (size_t i = 0; i < s.size(); ++i) {
          int64_t start = 0;
          if (static_cast<int64_t>(i) < ind.dims[1]) {
            start = std::clamp<int64_t>(ind.data[idx[0] * ind.dims[1] + i], 0,
                                        src.dims[i] - in.slice_sizes[i]);
          }
          s[i] = start + idx[i + 1];
        }
        return src.data[Linear(s, src.dims)];
      });
      return {out};
    }
    throw std::runtime_error("interpreter: no semantics for " + op);
  }
};

}  // namespace ixa::testing

#endif  // IXA_TESTS_ANALYSIS_REFERENCE_INTERPRETER_H_
