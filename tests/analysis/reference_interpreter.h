// A tiny HLO interpreter over int64 values, the oracle of the brute-force
// tests: ops are evaluated from their definitions, never from the maps.
// Arithmetic wraps (unsigned) so that any value is defined; the op
// semantics only need to make every real dependency visible.
#ifndef IXA_TESTS_ANALYSIS_REFERENCE_INTERPRETER_H_
#define IXA_TESTS_ANALYSIS_REFERENCE_INTERPRETER_H_

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/hlo/custom_calls.h"
#include "analysis/hlo/module.h"
#include "hw/xla_layout.h"

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

  static int64_t Elementwise(hlo::Opcode op, const std::vector<int64_t>& a) {
    uint64_t x = a[0], y = a.size() > 1 ? a[1] : 0;
    if (op == hlo::Opcode::kAdd) return Wrap(x + y);
    if (op == hlo::Opcode::kSubtract) return Wrap(x - y);
    if (op == hlo::Opcode::kMultiply) return Wrap(x * y);
    if (op == hlo::Opcode::kMaximum) return std::max(a[0], a[1]);
    if (op == hlo::Opcode::kMinimum) return std::min(a[0], a[1]);
    if (op == hlo::Opcode::kNegate) return Wrap(-x);
    if (op == hlo::Opcode::kCompare) return a[0] < a[1];
    if (op == hlo::Opcode::kSelect) return a[0] ? a[1] : a[2];
    if (op == hlo::Opcode::kClamp) return std::min(std::max(a[1], a[0]), a[2]);
    if (op == hlo::Opcode::kConvert || op == hlo::Opcode::kCopy ||
        op == hlo::Opcode::kBitcastConvert)
      return a[0];
    if (a.size() == 1) return Wrap(x * 3 + 1);  // exponential, log, ...
    return Wrap(x * 31 + y * 17);               // divide, power, ...
  }

  // Calls f(lhs_index, rhs_index) for every contracting position of the
  // dot output element `idx`.
  template <typename F>
  static void DotTerms(const hlo::DotDimensionNumbers& dn,
                       const std::vector<int64_t>& ad,
                       const std::vector<int64_t>& bd,
                       const std::vector<int64_t>& idx, F f) {
    auto is_in = [](const std::vector<int64_t>& v, int64_t x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    std::vector<int64_t> csizes;
    for (int64_t c : dn.lhs_contracting) csizes.push_back(ad[c]);
    for (int64_t s = 0; s < Count(csizes); ++s) {
      std::vector<int64_t> c = Unlinear(s, csizes);
      std::vector<int64_t> ai(ad.size()), bi(bd.size());
      size_t pos = dn.lhs_batch.size();
      for (size_t i = 0; i < dn.lhs_batch.size(); ++i) {
        ai[dn.lhs_batch[i]] = idx[i];
        bi[dn.rhs_batch[i]] = idx[i];
      }
      for (size_t i = 0; i < c.size(); ++i) {
        ai[dn.lhs_contracting[i]] = c[i];
        bi[dn.rhs_contracting[i]] = c[i];
      }
      for (size_t i = 0; i < ad.size(); ++i) {
        if (!is_in(dn.lhs_batch, i) && !is_in(dn.lhs_contracting, i))
          ai[i] = idx[pos++];
      }
      for (size_t i = 0; i < bd.size(); ++i) {
        if (!is_in(dn.rhs_batch, i) && !is_in(dn.rhs_contracting, i))
          bi[i] = idx[pos++];
      }
      f(ai, bi);
    }
  }

  static bool Has(const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }
  static int64_t Pos(const std::vector<int64_t>& v, int64_t x) {
    auto it = std::find(v.begin(), v.end(), x);
    return it == v.end() ? -1 : it - v.begin();
  }

  // XLA's gather: batch dims index the indices, start indices clamped.
  static Tensor Gather(const hlo::Instruction& in, const Tensor& src,
                       const Tensor& ind) {
    const auto& g = in.gather;
    const int64_t r_ind = ind.dims.size(), ivd = g.index_vector_dim;
    Tensor out = Make(in.shape.dims);
    for (int64_t l = 0; l < out.size(); ++l) {
      std::vector<int64_t> o = Unlinear(l, out.dims), batch;
      for (size_t d = 0; d < o.size(); ++d) {
        if (!Has(g.offset_dims, d)) batch.push_back(o[d]);
      }
      auto indices_at = [&](int64_t j) {
        std::vector<int64_t> ii;
        size_t b = 0;
        for (int64_t d = 0; d < r_ind; ++d)
          ii.push_back(d == ivd ? j : batch[b++]);
        return ind.data[Linear(ii, ind.dims)];
      };
      std::vector<int64_t> window, s(src.dims.size());
      for (size_t i = 0; i < src.dims.size(); ++i) {
        if (!Has(g.collapsed_slice_dims, i) && !Has(g.operand_batching_dims, i))
          window.push_back(i);
      }
      for (size_t i = 0; i < src.dims.size(); ++i) {
        int64_t start = 0;
        if (int64_t j = Pos(g.start_index_map, i); j >= 0) {
          start = std::clamp<int64_t>(indices_at(j), 0,
                                      src.dims[i] - in.slice_sizes[i]);
        } else if (int64_t m = Pos(g.operand_batching_dims, i); m >= 0) {
          int64_t d = g.start_indices_batching_dims[m];
          start = batch[d - (ivd < d ? 1 : 0)];
        }
        int64_t w = Pos(window, i);
        s[i] = start + (w >= 0 ? o[g.offset_dims[w]] : 0);
      }
      out.data[l] = src.data[Linear(s, src.dims)];
    }
    return out;
  }

  // XLA's scatter: each update window lands at its start indices (not
  // clamped: a window leaving the operand is skipped), combined through
  // to_apply with all operands and updates.
  std::vector<Tensor> Scatter(const hlo::Instruction& in, Values& v) {
    const hlo::ScatterDimensionNumbers s = in.ScatterDims();
    const int k = (in.operand_count() - 1) / 2;
    std::vector<Tensor> outs;
    for (int i = 0; i < k; ++i) outs.push_back(v[in.operand(i)][0]);
    const Tensor& ind = v[in.operand(k)][0];
    const Tensor& upd0 = v[in.operand(k + 1)][0];
    const std::vector<int64_t>& od = outs[0].dims;
    const int64_t r_ind = ind.dims.size(), ivd = s.index_vector_dim;
    std::vector<int64_t> window;
    for (size_t i = 0; i < od.size(); ++i) {
      if (!Has(s.inserted_window_dims, i) && !Has(s.input_batching_dims, i))
        window.push_back(i);
    }
    for (int64_t l = 0; l < upd0.size(); ++l) {
      std::vector<int64_t> u = Unlinear(l, upd0.dims), scatter;
      for (size_t d = 0; d < u.size(); ++d) {
        if (!Has(s.update_window_dims, d)) scatter.push_back(u[d]);
      }
      auto indices_at = [&](int64_t j) {
        std::vector<int64_t> ii;
        size_t b = 0;
        for (int64_t d = 0; d < r_ind; ++d)
          ii.push_back(d == ivd ? j : scatter[b++]);
        return ind.data[Linear(ii, ind.dims)];
      };
      std::vector<int64_t> o(od.size());
      bool inside = true;
      for (size_t i = 0; i < od.size(); ++i) {
        int64_t start = 0, size = 1;
        if (int64_t j = Pos(s.scatter_dims_to_operand_dims, i); j >= 0) {
          start = indices_at(j);
        } else if (int64_t m = Pos(s.input_batching_dims, i); m >= 0) {
          int64_t d = s.scatter_indices_batching_dims[m];
          start = scatter[d - (ivd < d ? 1 : 0)];
        }
        int64_t w = Pos(window, i);
        if (w >= 0) size = upd0.dims[s.update_window_dims[w]];
        if (start < 0 || start + size > od[i]) inside = false;
        o[i] = start + (w >= 0 ? u[s.update_window_dims[w]] : 0);
      }
      if (!inside) continue;
      std::vector<Tensor> ps;
      for (int i = 0; i < k; ++i)
        ps.push_back(Tensor{{}, {outs[i].data[Linear(o, od)]}});
      for (int i = 0; i < k; ++i) {
        ps.push_back(Tensor{{}, {v[in.operand(k + 1 + i)][0].data[l]}});
      }
      std::vector<Tensor> r = Run(*in.called(), ps);
      for (int i = 0; i < k; ++i) outs[i].data[Linear(o, od)] = r[i].data[0];
    }
    return outs;
  }

  // Stable sort of every row along the sort dim, by the comparator over
  // (lhs_0, rhs_0, lhs_1, rhs_1, ...).
  std::vector<Tensor> Sort(const hlo::Instruction& in, Values& v) {
    const int k = in.operand_count();
    const std::vector<int64_t>& dims = v[in.operand(0)][0].dims;
    const int64_t d = in.dimensions[0], n = dims[d];
    std::vector<Tensor> outs;
    for (int i = 0; i < k; ++i) outs.push_back(v[in.operand(i)][0]);
    std::vector<int64_t> rows = dims;
    rows[d] = 1;
    for (int64_t r = 0; r < Count(rows); ++r) {
      std::vector<int64_t> base = Unlinear(r, rows);
      auto at = [&](int i, int64_t j) {
        std::vector<int64_t> idx = base;
        idx[d] = j;
        return v[in.operand(i)][0].data[Linear(idx, dims)];
      };
      std::vector<int64_t> perm(n);
      for (int64_t j = 0; j < n; ++j) perm[j] = j;
      std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
        std::vector<Tensor> ps;
        for (int i = 0; i < k; ++i) {
          ps.push_back(Tensor{{}, {at(i, a)}});
          ps.push_back(Tensor{{}, {at(i, b)}});
        }
        return Run(*in.called(), ps)[0].data[0] != 0;
      });
      for (int i = 0; i < k; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          std::vector<int64_t> idx = base;
          idx[d] = j;
          outs[i].data[Linear(idx, dims)] = at(i, perm[j]);
        }
      }
    }
    return outs;
  }

  // ragged-dot: a ragged non-contracting lhs dim picks the rhs group of
  // each row from the prefix sums of group_sizes; a ragged batch dim is
  // a dot that also reads every group size.
  static Tensor RaggedDot(const hlo::Instruction& in, const Tensor& a,
                          const Tensor& b, const Tensor& groups) {
    const auto& dn = in.dot;
    Tensor out = Make(in.shape.dims);
    const int64_t ragged = in.ragged.lhs_ragged[0];
    uint64_t total = 0;
    for (int64_t g : groups.data) total += uint64_t(g);
    if (Has(dn.lhs_batch, ragged)) {
      for (int64_t l = 0; l < out.size(); ++l) {
        std::vector<int64_t> idx = Unlinear(l, out.dims);
        uint64_t sum = total;
        DotTerms(dn, a.dims, b.dims, idx, [&](auto& ai, auto& bi) {
          sum += uint64_t(a.data[Linear(ai, a.dims)]) *
                 uint64_t(b.data[Linear(bi, b.dims)]);
        });
        out.data[l] = Wrap(sum);
      }
      return out;
    }
    // [m, k] x [g, k, n] -> [m, n] (the layout of the tests).
    const int64_t m_size = a.dims[0], k_size = a.dims[1];
    const int64_t n_size = b.dims[2];
    for (int64_t m = 0; m < m_size; ++m) {
      int64_t g = 0, end = 0;
      while (g < groups.size() && (end += groups.data[g]) <= m) ++g;
      for (int64_t n = 0; n < n_size; ++n) {
        uint64_t sum = 0;
        if (g < groups.size()) {
          for (int64_t k = 0; k < k_size; ++k) {
            sum += uint64_t(a.data[m * k_size + k]) *
                   uint64_t(b.data[(g * k_size + k) * n_size + n]);
          }
        }
        out.data[m * n_size + n] = Wrap(sum + 1);
      }
    }
    return out;
  }

  // A bitcast between tiled layouts: the same physical offset.
  static bool TiledBitcast(const hlo::Instruction& in, const Tensor& src,
                           Tensor* out) {
    auto tiled = [](const hlo::Shape& s) {
      return s.layout &&
             (!s.layout->tiles.empty() || s.layout->element_size_bits != 0);
    };
    const hlo::Shape& from = in.operand(0)->shape;
    if (!tiled(from) && !tiled(in.shape)) return false;
    auto xo = hw::ParseXlaShape(in.shape.ToString(true));
    auto xi = hw::ParseXlaShape(from.ToString(true));
    if (!xo.ok() || !xi.ok()) throw std::runtime_error("tiled shape");
    for (int64_t l = 0; l < out->size(); ++l) {
      std::vector<int64_t> idx = Unlinear(l, out->dims);
      auto offset = hw::PhysicalOffset(*xo, idx);
      if (!offset.ok()) throw std::runtime_error("offset");
      auto logical = hw::LogicalIndexAt(*xi, *offset);
      if (!logical.ok() || !*logical) {
        out->data[l] = 0;  // padding in the source: no element
        continue;
      }
      out->data[l] = src.data[Linear(**logical, src.dims)];
    }
    return true;
  }

  // dot: every output element sums lhs * rhs + 1 over its contracting
  // positions (wrapping).
  static Tensor Dot(const hlo::DotDimensionNumbers& dn, const Tensor& a,
                    const Tensor& b, const std::vector<int64_t>& dims) {
    Tensor out = Make(dims);
    for (int64_t l = 0; l < out.size(); ++l) {
      uint64_t sum = 0;
      DotTerms(
          dn, a.dims, b.dims, Unlinear(l, dims),
          [&](const std::vector<int64_t>& ai, const std::vector<int64_t>& bi) {
            sum += uint64_t(a.data[Linear(ai, a.dims)]) *
                       uint64_t(b.data[Linear(bi, b.dims)]) +
                   1;
          });
      out.data[l] = Wrap(sum);
    }
    return out;
  }

  std::vector<Tensor> Eval(const hlo::Instruction& in,
                           const std::vector<Tensor>& params, Values& v) {
    const hlo::Opcode op = in.opcode;
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
    if (op == hlo::Opcode::kParameter) return {params.at(in.parameter_number)};
    if (op == hlo::Opcode::kConstant) {
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
    if (op == hlo::Opcode::kIota) {
      for_each([&](auto& idx) { return idx[in.iota_dimension]; });
      return {out};
    }
    if (op == hlo::Opcode::kTuple) {
      std::vector<Tensor> t;
      for (const hlo::Instruction* o : in.operands) t.push_back(v[o][0]);
      return t;
    }
    if (op == hlo::Opcode::kGetTupleElement)
      return {v[in.operand(0)][in.tuple_index]};
    if (op == hlo::Opcode::kFusion || op == hlo::Opcode::kCall) {
      std::vector<Tensor> ps;
      for (const hlo::Instruction* o : in.operands) ps.push_back(v[o][0]);
      return Run(*in.called(), ps);
    }
    if (hlo::IsElementwiseOpcode(op) && op != hlo::Opcode::kMap &&
        op != hlo::Opcode::kBitcastConvert) {
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
    if (op == hlo::Opcode::kBroadcast) {
      for_each([&](auto& idx) {
        std::vector<int64_t> src;
        for (int64_t d : in.dimensions) src.push_back(idx[d]);
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == hlo::Opcode::kTranspose) {
      for_each([&](auto& idx) {
        std::vector<int64_t> src(idx.size());
        for (size_t i = 0; i < idx.size(); ++i) src[in.dimensions[i]] = idx[i];
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == hlo::Opcode::kReshape) return {Tensor{dims, arg(0).data}};
    if (op == hlo::Opcode::kBitcast && TiledBitcast(in, arg(0), &out))
      return {out};
    if (op == hlo::Opcode::kBitcast) {
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
    if (op == hlo::Opcode::kReverse) {
      for_each([&](auto& idx) {
        std::vector<int64_t> src = idx;
        for (int64_t d : in.dimensions) src[d] = dims[d] - 1 - idx[d];
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == hlo::Opcode::kSlice) {
      for_each([&](auto& idx) {
        std::vector<int64_t> src;
        for (size_t i = 0; i < idx.size(); ++i) {
          src.push_back(in.slice[i].start + idx[i] * in.slice[i].stride);
        }
        return arg(0).data[Linear(src, arg(0).dims)];
      });
      return {out};
    }
    if (op == hlo::Opcode::kPad) {
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
    if (op == hlo::Opcode::kConcatenate) {
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
    if (op == hlo::Opcode::kReduce || op == hlo::Opcode::kReduceWindow) {
      int k = in.operand_count() / 2;
      const Tensor& in0 = arg(0);
      std::vector<std::vector<int64_t>> outs_dims;
      for (int j = 0; j < k; ++j) {
        outs_dims.push_back(in.shape.IsTuple() ? in.shape.tuple_elements[j].dims
                                               : dims);
      }
      std::vector<Tensor> outs;
      for (int j = 0; j < k; ++j) outs.push_back(Make(outs_dims[j]));
      // A reduce's sources per output element, in increasing order: one
      // pass over the input instead of one per output element.
      std::vector<std::vector<int64_t>> sources;
      if (op == hlo::Opcode::kReduce) {
        sources.resize(outs[0].size());
        for (int64_t s = 0; s < Count(in0.dims); ++s) {
          std::vector<int64_t> src = Unlinear(s, in0.dims);
          int64_t l = 0;
          for (size_t i = 0, oi = 0; i < src.size(); ++i) {
            bool reduced =
                std::find(in.dimensions.begin(), in.dimensions.end(),
                          static_cast<int64_t>(i)) != in.dimensions.end();
            if (!reduced) l = l * outs_dims[0][oi++] + src[i];
          }
          sources[l].push_back(s);
        }
      }
      for (int64_t l = 0; l < outs[0].size(); ++l) {
        std::vector<int64_t> o = Unlinear(l, outs_dims[0]);
        std::vector<int64_t> acc;
        for (int j = 0; j < k; ++j) acc.push_back(arg(k + j).data[0]);
        auto accumulate = [&](int64_t src) {
          std::vector<int64_t> a = acc;
          for (int j = 0; j < k; ++j) a.push_back(arg(j).data[src]);
          if (k == 1) {
            acc[0] = Scalar(*in.called(), a);
          } else {
            std::vector<Tensor> ps;
            for (int64_t x : a) ps.push_back(Tensor{{}, {x}});
            std::vector<Tensor> r = Run(*in.called(), ps);
            for (int j = 0; j < k; ++j) acc[j] = r[j].data[0];
          }
        };
        if (op == hlo::Opcode::kReduce) {
          for (int64_t s : sources[l]) accumulate(s);
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
            if (ok) accumulate(Linear(src, in0.dims));
          }
        }
        for (int j = 0; j < k; ++j) outs[j].data[l] = acc[j];
      }
      return outs;
    }
    if (op == hlo::Opcode::kDot) return {Dot(in.dot, arg(0), arg(1), dims)};
    if (op == hlo::Opcode::kConvolution) {
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
    if (op == hlo::Opcode::kDynamicSlice ||
        op == hlo::Opcode::kDynamicUpdateSlice) {
      bool ds = op == hlo::Opcode::kDynamicSlice;
      const Tensor& src = arg(0);
      std::vector<int64_t> size = ds ? in.dynamic_slice_sizes : arg(1).dims;
      std::vector<int64_t> start;
      const bool vector_form = hlo::OffsetVectorOperand(in) >= 0;
      for (size_t i = 0; i < src.dims.size(); ++i) {
        int64_t s = vector_form ? arg(ds ? 1 : 2).data[i]
                                : arg(i + (ds ? 1 : 2)).data[0];
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
    if (op == hlo::Opcode::kGather) return {Gather(in, arg(0), arg(1))};
    if (op == hlo::Opcode::kScatter) return Scatter(in, v);
    if (op == hlo::Opcode::kSort) return Sort(in, v);
    if (op == hlo::Opcode::kBitcastConvert) {
      const Tensor& src = arg(0);
      int ib = hlo::ElementBits(in.operand(0)->shape.type);
      int ob = hlo::ElementBits(in.shape.type);
      for_each([&](auto& idx) {
        if (ib == ob) return src.data[Linear(idx, src.dims)];
        if (ob < ib) {  // narrower: one more minor dim, a piece of x
          std::vector<int64_t> w(idx.begin(), idx.end() - 1);
          return Wrap(uint64_t(src.data[Linear(w, src.dims)]) * 7 +
                      uint64_t(idx.back()) * 13);
        }
        uint64_t acc = 0;  // wider: every piece counts
        std::vector<int64_t> w = idx;
        w.push_back(0);
        for (int64_t k = 0; k < src.dims.back(); ++k) {
          w.back() = k;
          acc += uint64_t(src.data[Linear(w, src.dims)]) * uint64_t(k + 3);
        }
        return Wrap(acc);
      });
      return {out};
    }
    if (op == hlo::Opcode::kDynamicReshape) return {Tensor{dims, arg(0).data}};
    // A cuBLAS GEMM computes its dot (the workspace reads as zeros).
    if (auto gemm = hlo::GemmDotDimensions(in);
        gemm && in.operand_count() >= 2 && in.shape.IsTuple()) {
      std::vector<Tensor> outs = {
          Dot(*gemm, arg(0), arg(1), in.shape.tuple_elements[0].dims)};
      for (size_t i = 1; i < in.shape.tuple_elements.size(); ++i) {
        outs.push_back(Make(in.shape.tuple_elements[i].dims));
      }
      return outs;
    }
    if (op ==
        hlo::Opcode::kCustomCall) {  // opaque: every element reads everything
      uint64_t all = 0;
      for (int i = 0; i < in.operand_count(); ++i) {
        for (int64_t x : arg(i).data) all = all * 31 + uint64_t(x);
      }
      for (int64_t l = 0; l < out.size(); ++l) out.data[l] = Wrap(all + l);
      return {out};
    }
    if (op == hlo::Opcode::kAddDependency) return {arg(0)};
    if (op == hlo::Opcode::kGetDimensionSize) {
      return {Tensor{{}, {arg(0).dims[in.dimensions[0]]}}};
    }
    if (op == hlo::Opcode::kScaledDot) {
      const auto& dn = in.dot;
      const Tensor &a = arg(0), &b = arg(1), &sa = arg(2), &sb = arg(3);
      auto scale_at = [](const Tensor& scale, const Tensor& x,
                         const std::vector<int64_t>& xi) {
        if (scale.dims.empty()) return scale.data[0];
        std::vector<int64_t> si;
        for (size_t i = 0; i < xi.size(); ++i) {
          si.push_back(xi[i] / (x.dims[i] / scale.dims[i]));
        }
        return scale.data[Linear(si, scale.dims)];
      };
      for_each([&](auto& idx) {
        uint64_t sum = 0;
        DotTerms(dn, a.dims, b.dims, idx, [&](auto& ai, auto& bi) {
          sum += uint64_t(a.data[Linear(ai, a.dims)]) *
                     uint64_t(b.data[Linear(bi, b.dims)]) *
                     uint64_t(scale_at(sa, a, ai)) *
                     uint64_t(scale_at(sb, b, bi)) +
                 1;
        });
        return Wrap(sum);
      });
      return {out};
    }
    if (op == hlo::Opcode::kRaggedDot)
      return {RaggedDot(in, arg(0), arg(1), arg(2))};
    throw std::runtime_error("interpreter: no semantics for " + OpcodeName(in));
  }
};

// The identity of a reducer whose root is one of this interpreter's
// add, multiply, maximum or minimum on its two parameters, in its int64
// arithmetic; nullopt for any other reducer.
inline std::optional<int64_t> ReducerIdentity(const hlo::Computation& reducer) {
  const hlo::Instruction* root = reducer.root();
  if (reducer.parameter_count() != 2 || root->operand_count() != 2 ||
      root->operand(0)->opcode != hlo::Opcode::kParameter ||
      root->operand(1)->opcode != hlo::Opcode::kParameter ||
      root->operand(0) == root->operand(1)) {
    return std::nullopt;
  }
  const hlo::Opcode op = root->opcode;
  if (op == hlo::Opcode::kAdd) return 0;
  if (op == hlo::Opcode::kMultiply) return 1;
  if (op == hlo::Opcode::kMaximum) return std::numeric_limits<int64_t>::min();
  if (op == hlo::Opcode::kMinimum) return std::numeric_limits<int64_t>::max();
  return std::nullopt;
}

// XLA applies a reduce's init an implementation-defined number of times,
// so only the reducer's identity has one answer, and XLA's own tests feed
// a parameter used as an init that identity. This sets every scalar
// parameter of `comp` used as a reduce's init to its reducer's identity
// (ReducerIdentity); other parameters stay. A maximum's or minimum's
// identity hides the init from a perturbation that leaves it below (above)
// the data: a check that every read is visible must not rely on it.
inline void FeedReducerIdentities(const hlo::Computation& comp,
                                  std::vector<Tensor>* params) {
  for (const hlo::Instruction* in : comp.post_order()) {
    if (in->opcode != hlo::Opcode::kReduce || !in->called()) continue;
    for (int k = in->operand_count() / 2; k < in->operand_count(); ++k) {
      const hlo::Instruction* init = in->operand(k);
      if (init->opcode != hlo::Opcode::kParameter || !init->shape.IsArray() ||
          init->shape.rank() != 0 ||
          init->parameter_number >= static_cast<int64_t>(params->size())) {
        continue;
      }
      if (auto id = ReducerIdentity(*in->called())) {
        (*params)[init->parameter_number].data.assign(1, *id);
      }
    }
  }
}

}  // namespace ixa::testing

#endif  // IXA_TESTS_ANALYSIS_REFERENCE_INTERPRETER_H_
