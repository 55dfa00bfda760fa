// The program's host ops: sort, and the dots, convolutions and plain GEMM
// custom calls (as their dot) the emitters refuse, generated as plain loops
// over the output elements from the ops' definitions (docs/compile.md).
#include <algorithm>
#include <map>
#include <sstream>

#include "analysis/hlo/custom_calls.h"
#include "emit/program/program_internal.h"

namespace ixa::emit::program_internal {
namespace {

using hlo::ElementType;
using hlo::Instruction;
using hlo::Shape;

std::string I64(int64_t v) { return std::to_string(v) + "LL"; }

Error UnsupportedOp(const std::string& op, const std::string& why) {
  return Error::Unsupported("compile: " + op + ": " + why);
}

// The accumulator of a dot or convolution with output type `out` over
// operands of types `a`, `b`: double for float outputs, uint64_t (wrapping)
// for integers.
Result<std::string> Accumulator(const HostType& out, const HostType& a,
                                const HostType& b, const std::string& op) {
  if (out.type == ElementType::kPred) {
    return UnsupportedOp(op, "a pred result is not generated");
  }
  if (out.compute == "double") return std::string("double");
  if (a.compute == "double" || b.compute == "double") {
    return UnsupportedOp(op, std::string("float operands with an integer (") +
                                 hlo::ElementTypeName(out.type) +
                                 ") result are not generated");
  }
  return std::string("uint64_t");
}

std::string Cast(const std::string& type, const std::string& v) {
  return "(" + type + ")(" + v + ")";
}

struct DotOperands {
  const Shape* lhs;
  const Shape* rhs;
  const Shape* out;
  hlo::DotDimensionNumbers dims;
};

Result<std::string> DotFunction(const DotOperands& d, const std::string& op,
                                const std::string& name, Target target,
                                int extra_outputs) {
  IXA_ASSIGN_OR_RETURN(HostType lt, HostTypeOf(d.lhs->type, op));
  IXA_ASSIGN_OR_RETURN(HostType rt, HostTypeOf(d.rhs->type, op));
  IXA_ASSIGN_OR_RETURN(HostType ot, HostTypeOf(d.out->type, op));
  IXA_ASSIGN_OR_RETURN(std::string acc, Accumulator(ot, lt, rt, op));
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> ls, DenseStrides(*d.lhs, op));
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> rs, DenseStrides(*d.rhs, op));
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> os, DenseStrides(*d.out, op));
  auto free_dims = [](int rank, const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contracting) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < rank; ++i) {
      if (std::count(batch.begin(), batch.end(), i) == 0 &&
          std::count(contracting.begin(), contracting.end(), i) == 0) {
        out.push_back(i);
      }
    }
    return out;
  };
  const auto& n = d.dims;
  std::vector<int64_t> lf =
      free_dims(d.lhs->rank(), n.lhs_batch, n.lhs_contracting);
  std::vector<int64_t> rf =
      free_dims(d.rhs->rank(), n.rhs_batch, n.rhs_contracting);
  if (n.lhs_batch.size() != n.rhs_batch.size() ||
      n.lhs_contracting.size() != n.rhs_contracting.size() ||
      static_cast<int>(n.lhs_batch.size() + lf.size() + rf.size()) !=
          d.out->rank()) {
    return Error::Invalid("compile: " + op +
                          ": dimension numbers do not match the shapes");
  }
  // Output dims: batch, lhs free, rhs free.
  std::vector<std::pair<std::string, int64_t>> lterms, rterms, oterms;
  int pos = 0;
  for (size_t k = 0; k < n.lhs_batch.size(); ++k, ++pos) {
    std::string x = "x" + std::to_string(pos);
    lterms.push_back({x, ls[n.lhs_batch[k]]});
    rterms.push_back({x, rs[n.rhs_batch[k]]});
  }
  for (int64_t dim : lf) {
    lterms.push_back({"x" + std::to_string(pos++), ls[dim]});
  }
  for (int64_t dim : rf) {
    rterms.push_back({"x" + std::to_string(pos++), rs[dim]});
  }
  for (int k = 0; k < d.out->rank(); ++k) {
    oterms.push_back({"x" + std::to_string(k), os[k]});
  }
  std::vector<int64_t> csizes;
  int64_t contracted = 1;
  std::vector<std::pair<std::string, int64_t>> lc, rc;
  for (size_t k = 0; k < n.lhs_contracting.size(); ++k) {
    csizes.push_back(d.lhs->dims[n.lhs_contracting[k]]);
    contracted *= csizes.back();
    lc.push_back({"c" + std::to_string(k), ls[n.lhs_contracting[k]]});
    rc.push_back({"c" + std::to_string(k), rs[n.rhs_contracting[k]]});
  }
  std::string body = Delinearize("o", d.out->dims, "x");
  body += "const int64_t lo = " + Offset(lterms) + ";\n";
  body += "const int64_t ro = " + Offset(rterms) + ";\n";
  body += acc + " acc = 0;\n";
  body += "for (int64_t k = 0; k < " + I64(contracted) + "; ++k) {\n";
  body += Delinearize("k", csizes, "c");
  const std::string l = Cast(acc, lt.Load("lhs[lo + " + Offset(lc) + "]"));
  const std::string r = Cast(acc, rt.Load("rhs[ro + " + Offset(rc) + "]"));
  body += "acc += " + l + " * " + r + ";\n}\n";
  body += "out[" + Offset(oterms) + "] = " + ot.Store(Cast(ot.compute, "acc")) +
          ";\n";
  std::vector<PointerArg> args = {{"lhs", "const " + lt.storage + "*"},
                                  {"rhs", "const " + rt.storage + "*"},
                                  {"out", ot.storage + "*"}};
  // A GEMM call's workspace output (never written) follows.
  for (int i = 0; i < extra_outputs; ++i) {
    args.push_back({"workspace" + std::to_string(i), "void*"});
  }
  return ElementLoopFunction(name, args, d.out->ElementCount(), body, target);
}

Result<std::string> ConvolutionFunction(const Instruction& in,
                                        const std::string& name,
                                        Target target) {
  const std::string op = "convolution " + in.name;
  if (in.conv == nullptr || in.operand_count() != 2 || !in.shape.IsArray()) {
    return UnsupportedOp(op, "a convolution without dim_labels");
  }
  const hlo::ConvDimensionNumbers& c = *in.conv;
  if (c.has_unlabeled) return UnsupportedOp(op, "unlabeled dims");
  const Shape& ls = in.operand(0)->shape;
  const Shape& ks = in.operand(1)->shape;
  const Shape& os = in.shape;
  IXA_ASSIGN_OR_RETURN(HostType lt, HostTypeOf(ls.type, op));
  IXA_ASSIGN_OR_RETURN(HostType kt, HostTypeOf(ks.type, op));
  IXA_ASSIGN_OR_RETURN(HostType ot, HostTypeOf(os.type, op));
  IXA_ASSIGN_OR_RETURN(std::string acc, Accumulator(ot, lt, kt, op));
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> lst, DenseStrides(ls, op));
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> kst, DenseStrides(ks, op));
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> ost, DenseStrides(os, op));
  const size_t spatial = c.input_spatial.size();
  if (c.kernel_spatial.size() != spatial ||
      c.output_spatial.size() != spatial) {
    return UnsupportedOp(op, "spatial dims differ in number");
  }
  std::vector<hlo::WindowDim> window = in.window;
  window.resize(spatial);  // no window= : size 1 everywhere
  for (size_t s = 0; s < spatial; ++s) {
    if (in.window.size() <= s) window[s].size = ks.dims[c.kernel_spatial[s]];
  }
  const int64_t groups = in.feature_group_count;
  const int64_t batch_groups = in.batch_group_count;
  const int64_t out_features = os.dims[c.output_feature];
  const int64_t in_batch = ls.dims[c.input_batch];
  const int64_t kernel_in_features = ks.dims[c.kernel_input_feature];
  if (groups < 1 || batch_groups < 1 || out_features % groups != 0 ||
      out_features % batch_groups != 0 || in_batch % batch_groups != 0) {
    return Error::Invalid("compile: " + op + ": bad group counts");
  }
  std::vector<int64_t> kernel_window;
  for (size_t s = 0; s < spatial; ++s) {
    kernel_window.push_back(ks.dims[c.kernel_spatial[s]]);
  }
  std::string body = Delinearize("o", os.dims, "x");
  auto x = [](int64_t dim) { return "x" + std::to_string(dim); };
  body += "const int64_t of = " + x(c.output_feature) + ";\n";
  body += "const int64_t fg = of / " + I64(out_features / groups) + ";\n";
  body += "const int64_t bg = of / " + I64(out_features / batch_groups) + ";\n";
  body += "const int64_t ib = bg * " + I64(in_batch / batch_groups) + " + " +
          x(c.output_batch) + ";\n";
  body += acc + " acc = 0;\n";
  body +=
      "for (int64_t kf = 0; kf < " + I64(kernel_in_features) + "; ++kf) {\n";
  body += "const int64_t inf = fg * " + I64(kernel_in_features) + " + kf;\n";
  int64_t window_count = 1;
  for (int64_t w : kernel_window) window_count *= w;
  body += "for (int64_t w = 0; w < " + I64(window_count) + "; ++w) {\n";
  body += Delinearize("w", kernel_window, "k");
  std::string loff = "ib * " + I64(lst[c.input_batch]) + " + inf * " +
                     I64(lst[c.input_feature]);
  std::string koff = "of * " + I64(kst[c.kernel_output_feature]) + " + kf * " +
                     I64(kst[c.kernel_input_feature]);
  std::string inside = "true";
  for (size_t s = 0; s < spatial; ++s) {
    const hlo::WindowDim& wd = window[s];
    const std::string sv = std::to_string(s);
    const std::string k = "k" + sv;
    body += "const int64_t u" + sv + " = " + x(c.output_spatial[s]) + " * " +
            I64(wd.stride) + " - " + I64(wd.pad_low) + " + " + k + " * " +
            I64(wd.window_dilation) + ";\n";
    body += "const int64_t i" + sv + " = u" + sv + " / " +
            I64(wd.base_dilation) + ";\n";
    inside += " && u" + sv + " >= 0 && u" + sv + " % " + I64(wd.base_dilation) +
              " == 0 && i" + sv + " < " + I64(ls.dims[c.input_spatial[s]]);
    loff += " + i" + sv + " * " + I64(lst[c.input_spatial[s]]);
    const std::string kk =
        wd.reversal ? "(" + I64(wd.size - 1) + " - " + k + ")" : k;
    koff += " + " + kk + " * " + I64(kst[c.kernel_spatial[s]]);
  }
  body += "if (!(" + inside + ")) continue;\n";
  const std::string l = Cast(acc, lt.Load("lhs[" + loff + "]"));
  const std::string r = Cast(acc, kt.Load("rhs[" + koff + "]"));
  body += "acc += " + l + " * " + r + ";\n}\n}\n";
  std::vector<std::pair<std::string, int64_t>> oterms;
  for (int k = 0; k < os.rank(); ++k) oterms.push_back({x(k), ost[k]});
  body += "out[" + Offset(oterms) + "] = " + ot.Store(Cast(ot.compute, "acc")) +
          ";\n";
  return ElementLoopFunction(name,
                             {{"lhs", "const " + lt.storage + "*"},
                              {"rhs", "const " + kt.storage + "*"},
                              {"out", ot.storage + "*"}},
                             os.ElementCount(), body, target);
}

// The comparator of a sort as a C function of its 2k scalar parameters.
Result<std::string> ComparatorFunction(const hlo::Computation& comp,
                                       const std::vector<HostType>& types,
                                       const std::string& name,
                                       const std::string& op) {
  std::string params;
  for (size_t i = 0; i < 2 * types.size(); ++i) {
    params += (i ? ", " : "") + types[i / 2].compute + " p" + std::to_string(i);
  }
  std::string body;
  std::map<const Instruction*, std::string> value;
  std::map<const Instruction*, const HostType*> type_of;
  int next = 0;
  for (const Instruction* in : comp.post_order()) {
    std::string v = "v" + std::to_string(next++);
    const hlo::Opcode o = in->opcode;
    auto arg = [&](int k) { return value.at(in->operand(k)); };
    std::string expr;
    if (o == hlo::Opcode::kParameter) {
      if (in->parameter_number >= static_cast<int64_t>(2 * types.size())) {
        return Error::Invalid("compile: " + op + ": comparator parameter " +
                              std::to_string(in->parameter_number));
      }
      expr = "p" + std::to_string(in->parameter_number);
    } else if (o == hlo::Opcode::kConstant && in->shape.IsScalar()) {
      std::string lit = in->literal;
      lit.erase(std::remove(lit.begin(), lit.end(), ' '), lit.end());
      if (lit == "true") lit = "1";
      if (lit == "false") lit = "0";
      if (lit == "inf") lit = "INFINITY";
      if (lit == "-inf") lit = "-INFINITY";
      if (lit == "nan") lit = "NAN";
      expr = "(" + lit + ")";
    } else if (o == hlo::Opcode::kCompare) {
      std::string dir = in->Attribute("direction");
      static const std::map<std::string, std::string> kOps = {
          {"EQ", "=="}, {"NE", "!="}, {"LT", "<"},
          {"LE", "<="}, {"GT", ">"},  {"GE", ">="}};
      auto it = kOps.find(dir);
      if (it == kOps.end()) {
        return UnsupportedOp(op, "comparator direction '" + dir + "'");
      }
      std::string a = arg(0), b = arg(1);
      const ElementType t = in->operand(0)->shape.type;
      const bool is_float = t == ElementType::kF32 || t == ElementType::kF64 ||
                            t == ElementType::kF16 || t == ElementType::kBF16;
      if (in->Attribute("type") == "TOTALORDER" && is_float) {
        a = "ixap_total_order(" + a + ")";
        b = "ixap_total_order(" + b + ")";
      }
      expr = "(int64_t)(" + a + " " + it->second + " " + b + ")";
    } else if (o == hlo::Opcode::kSelect) {
      expr = "(" + arg(0) + " ? " + arg(1) + " : " + arg(2) + ")";
    } else if (o == hlo::Opcode::kAnd || o == hlo::Opcode::kOr ||
               o == hlo::Opcode::kXor) {
      std::string c = o == hlo::Opcode::kAnd  ? "&"
                      : o == hlo::Opcode::kOr ? "|"
                                              : "^";
      expr = "(" + arg(0) + " " + c + " " + arg(1) + ")";
    } else if (o == hlo::Opcode::kNot && in->shape.type == ElementType::kPred) {
      expr = "(int64_t)!" + arg(0);
    } else {
      return UnsupportedOp(
          op, "the comparator's '" + OpcodeName(*in) + "' is not generated");
    }
    body += "  const auto " + v + " = " + expr + ";\n  (void)" + v + ";\n";
    value[in] = v;
  }
  return "static inline bool " + name + "(" + params + ") {\n" + body +
         "  return " + value.at(comp.root()) + " != 0;\n}\n";
}

Result<std::string> SortFunction(const Instruction& in, const std::string& name,
                                 Target target) {
  const std::string op = "sort " + in.name;
  if (in.called() == nullptr || in.dimensions.size() != 1) {
    return Error::Invalid("compile: " + op + ": no comparator or dimension");
  }
  const int k = in.operand_count();
  const Shape& s0 = in.operand(0)->shape;
  const int64_t dim = in.dimensions[0];
  std::vector<HostType> types;
  std::vector<std::vector<int64_t>> in_strides, out_strides;
  for (int i = 0; i < k; ++i) {
    const Shape& s = in.operand(i)->shape;
    IXA_ASSIGN_OR_RETURN(HostType t, HostTypeOf(s.type, op));
    types.push_back(t);
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> st, DenseStrides(s, op));
    in_strides.push_back(st);
    const Shape& o = in.shape.IsTuple() ? in.shape.tuple_elements[i] : in.shape;
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> ost, DenseStrides(o, op));
    out_strides.push_back(ost);
  }
  IXA_ASSIGN_OR_RETURN(std::string cmp, ComparatorFunction(*in.called(), types,
                                                           name + "_less", op));
  std::vector<int64_t> outer_dims;
  for (int d = 0; d < s0.rank(); ++d) {
    if (d != dim) outer_dims.push_back(s0.dims[d]);
  }
  int64_t segments = 1;
  for (int64_t d : outer_dims) segments *= d;
  const int64_t n = s0.dims[dim];
  std::string f = cmp + "static int " + name + "_host(void* const* b) {\n";
  for (int i = 0; i < k; ++i) {
    const std::string t = types[i].storage, is = std::to_string(i);
    f += "  const " + t + "* in" + is + " = (const " + t + "*)b[" + is + "];\n";
    f += "  " + t + "* out" + is + " = (" + t + "*)b[" + std::to_string(k + i) +
         "];\n";
  }
  f += "  std::vector<int64_t> perm(" + I64(n) + ");\n";
  f += "  for (int64_t s = 0; s < " + I64(segments) + "; ++s) {\n";
  f += Delinearize("s", outer_dims, "y");
  for (int i = 0; i < k; ++i) {
    std::vector<std::pair<std::string, int64_t>> it, ot;
    int pos = 0;
    for (int d = 0; d < s0.rank(); ++d) {
      if (d == dim) continue;
      std::string y = "y" + std::to_string(pos++);
      it.push_back({y, in_strides[i][d]});
      ot.push_back({y, out_strides[i][d]});
    }
    f += "  const int64_t ib" + std::to_string(i) + " = " + Offset(it) +
         ", ob" + std::to_string(i) + " = " + Offset(ot) + ";\n";
  }
  f += "  for (int64_t j = 0; j < " + I64(n) + "; ++j) perm[j] = j;\n";
  std::string args;
  for (int i = 0; i < k; ++i) {
    const std::string is = std::to_string(i);
    const std::string at =
        "in" + is + "[ib" + is + " + a * " + I64(in_strides[i][dim]) + "]";
    const std::string ct =
        "in" + is + "[ib" + is + " + c * " + I64(in_strides[i][dim]) + "]";
    args += std::string(i ? ", " : "") + types[i].Load(at) + ", " +
            types[i].Load(ct);
  }
  f += "  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t "
       "c) { return " +
       name + "_less(" + args + "); });\n";
  for (int i = 0; i < k; ++i) {
    const std::string is = std::to_string(i);
    f += "  for (int64_t j = 0; j < " + I64(n) + "; ++j) out" + is + "[ob" +
         is + " + j * " + I64(out_strides[i][dim]) + "] = in" + is + "[ib" +
         is + " + perm[j] * " + I64(in_strides[i][dim]) + "];\n";
  }
  f += "  }\n  return 0;\n}\n";
  if (target != Target::kCuda) {
    return f + "static int " + name + "(void* const* b) { return " + name +
           "_host(b); }\n";
  }
  // cuda: through host copies of the operands and results.
  std::string w = "static int " + name + "(void* const* b) {\n";
  w += "  std::vector<std::vector<char>> host(" + std::to_string(2 * k) +
       ");\n  void* hb[" + std::to_string(2 * k) + "];\n";
  for (int i = 0; i < 2 * k; ++i) {
    const int operand = i % k;
    const std::string bytes = I64(in.operand(operand)->shape.ElementCount()) +
                              " * (int64_t)sizeof(" + types[operand].storage +
                              ")";
    const std::string is = std::to_string(i);
    w += "  host[" + is + "].resize(" + bytes + ");\n  hb[" + is + "] = host[" +
         is + "].data();\n";
    if (i < k) {
      w += "  if (cudaMemcpy(hb[" + is + "], b[" + is + "], " + bytes +
           ", cudaMemcpyDeviceToHost) != cudaSuccess) return 2;\n";
    }
  }
  w += "  " + name + "_host(hb);\n";
  for (int i = k; i < 2 * k; ++i) {
    const std::string is = std::to_string(i);
    const std::string bytes = I64(in.operand(i - k)->shape.ElementCount()) +
                              " * (int64_t)sizeof(" + types[i - k].storage +
                              ")";
    w += "  if (cudaMemcpy(b[" + is + "], hb[" + is + "], " + bytes +
         ", cudaMemcpyHostToDevice) != cudaSuccess) return 2;\n";
  }
  w += "  return 0;\n}\n";
  return f + w;
}

}  // namespace

// Lines that set `prefix0 .. prefixR-1` to the logical row-major index of
// linear `linear` over `dims`.
std::string Delinearize(const std::string& linear,
                        const std::vector<int64_t>& dims,
                        const std::string& prefix) {
  if (dims.empty()) return "(void)(" + linear + ");\n";
  const std::string rest = prefix + "_rest";
  std::string out = "int64_t " + rest + " = " + linear + ";\n";
  for (size_t k = dims.size(); k-- > 0;) {
    out += "const int64_t " + prefix + std::to_string(k) + " = " + rest +
           " % " + I64(dims[k]) + ";\n";
    if (k > 0) out += rest + " /= " + I64(dims[k]) + ";\n";
  }
  return out;
}

// Σ index_k * stride_k over (index expression, stride) pairs.
std::string Offset(const std::vector<std::pair<std::string, int64_t>>& terms) {
  std::string out = "0";
  for (const auto& [index, stride] : terms) {
    out += " + " + index + " * " + I64(stride);
  }
  return out;
}

// The function text around an element loop: `body` computes output
// element `o` of `count` from the named pointers (`decls`: one line per
// pointer, `b[i]` cast). cpp: a loop; cuda: a grid-stride kernel and its
// launcher.
std::string ElementLoopFunction(const std::string& name,
                                const std::vector<PointerArg>& args,
                                int64_t count, const std::string& body,
                                Target target) {
  std::string params, cast_args, decls;
  for (size_t i = 0; i < args.size(); ++i) {
    params += (i ? ", " : "") + args[i].type + " " + args[i].name;
    cast_args += std::string(i ? ", " : "") + "(" + args[i].type + ")b[" +
                 std::to_string(i) + "]";
    decls += "  " + args[i].type + " " + args[i].name + " = (" + args[i].type +
             ")b[" + std::to_string(i) + "];\n";
  }
  if (target == Target::kCuda) {
    const int64_t blocks =
        std::max<int64_t>(1, std::min<int64_t>((count + 255) / 256, 65535));
    return "__global__ void " + name + "_kernel(" + params +
           ") {\n"
           "  for (int64_t o = (int64_t)blockIdx.x * blockDim.x + "
           "threadIdx.x; o < " +
           I64(count) + "; o += (int64_t)blockDim.x * gridDim.x) {\n" + body +
           "  }\n}\n"
           "static int " +
           name + "(void* const* b) {\n  " + name + "_kernel<<<" +
           std::to_string(blocks) + ", 256>>>(" + cast_args +
           ");\n  return ixap_check_launch(\"" + name + "\");\n}\n";
  }
  return "static int " + name + "(void* const* b) {\n" + decls +
         "  for (int64_t o = 0; o < " + I64(count) + "; ++o) {\n" + body +
         "  }\n  return 0;\n}\n";
}

std::string HostType::Load(const std::string& stored) const {
  switch (type) {
    case ElementType::kF16:
      return "(double)ixap_f16_to_f32(" + stored + ")";
    case ElementType::kBF16:
      return "(double)ixap_bf16_to_f32(" + stored + ")";
    case ElementType::kPred:
      return "(int64_t)(" + stored + " != 0)";
    default:
      return "(" + compute + ")(" + stored + ")";
  }
}

std::string HostType::Store(const std::string& computed) const {
  switch (type) {
    case ElementType::kF16:
      return "ixap_f32_to_f16((float)(" + computed + "))";
    case ElementType::kBF16:
      return "ixap_f32_to_bf16((float)(" + computed + "))";
    case ElementType::kPred:
      return "(uint8_t)((" + computed + ") != 0)";
    default:
      if (compute == "double") return "(" + storage + ")(" + computed + ")";
      return "(" + storage + ")(uint64_t)(" + computed + ")";
  }
}

Result<HostType> HostTypeOf(ElementType type, const std::string& op) {
  HostType t;
  t.type = type;
  switch (type) {
    case ElementType::kPred:
      t.storage = "uint8_t", t.compute = "int64_t";
      break;
    case ElementType::kS8:
      t.storage = "int8_t", t.compute = "int64_t";
      break;
    case ElementType::kS16:
      t.storage = "int16_t", t.compute = "int64_t";
      break;
    case ElementType::kS32:
      t.storage = "int32_t", t.compute = "int64_t";
      break;
    case ElementType::kS64:
      t.storage = "int64_t", t.compute = "int64_t";
      break;
    case ElementType::kU8:
      t.storage = "uint8_t", t.compute = "uint64_t";
      break;
    case ElementType::kU16:
      t.storage = "uint16_t", t.compute = "uint64_t";
      break;
    case ElementType::kU32:
      t.storage = "uint32_t", t.compute = "uint64_t";
      break;
    case ElementType::kU64:
      t.storage = "uint64_t", t.compute = "uint64_t";
      break;
    case ElementType::kF16:
    case ElementType::kBF16:
      t.storage = "uint16_t", t.compute = "double";
      break;
    case ElementType::kF32:
      t.storage = "float", t.compute = "double";
      break;
    case ElementType::kF64:
      t.storage = "double", t.compute = "double";
      break;
    default:
      return UnsupportedOp(op, std::string("element type ") +
                                   hlo::ElementTypeName(type) +
                                   " is not generated in host code");
  }
  return t;
}

Result<std::vector<int64_t>> DenseStrides(const Shape& shape,
                                          const std::string& op) {
  if (!shape.IsArray()) return UnsupportedOp(op, "a tuple-shaped operand");
  if (shape.layout &&
      (!shape.layout->tiles.empty() || shape.layout->element_size_bits != 0)) {
    return UnsupportedOp(
        op, "tiled or packed layout " + shape.ToString(true) + " in host code");
  }
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t stride = 1;
  for (int64_t d : shape.MinorToMajor()) {
    strides[d] = stride;
    stride *= shape.dims[d];
  }
  return strides;
}

Result<std::string> HostOpFunction(const Instruction& in,
                                   const std::string& name, Target target) {
  if (in.opcode == hlo::Opcode::kDot) {
    if (in.operand_count() != 2 || !in.shape.IsArray()) {
      return UnsupportedOp("dot " + in.name, "a sparse or tuple-shaped dot");
    }
    return DotFunction(
        {&in.operand(0)->shape, &in.operand(1)->shape, &in.shape, in.dot},
        "dot " + in.name, name, target, 0);
  }
  if (in.opcode == hlo::Opcode::kConvolution)
    return ConvolutionFunction(in, name, target);
  if (in.opcode == hlo::Opcode::kSort) return SortFunction(in, name, target);
  if (IsLinalgHostOp(in)) return LinalgOpFunction(in, name, target);
  if (in.opcode == hlo::Opcode::kCustomCall &&
      hlo::GetLibraryCallKind(in) == hlo::LibraryCallKind::kCublasGemm) {
    const std::string op = "custom-call " + hlo::CustomCallTarget(in);
    std::unique_ptr<Instruction> dot = hlo::LibraryCallAsOp(in);
    if (dot == nullptr) return UnsupportedOp(op, "no dot_dimension_numbers");
    // The host loop is the plain dot: alpha 1, beta 0, no epilogue.
    std::optional<hlo::GemmCallSemantics> gemm = hlo::GemmCallSemanticsOf(in);
    if (!gemm->unsupported.empty()) return UnsupportedOp(op, gemm->unsupported);
    if (gemm->alpha != 1 || gemm->c_operand >= 0 || gemm->bias_operand >= 0 ||
        gemm->activation != hlo::GemmCallSemantics::Activation::kNone) {
      return UnsupportedOp(op,
                           "alpha other than 1, beta other than 0 or an "
                           "epilogue in a host loop");
    }
    const Shape& result = hlo::LibraryCallResultShape(in);
    const int extra = in.shape.IsTuple()
                          ? static_cast<int>(in.shape.tuple_elements.size()) - 1
                          : 0;
    return DotFunction(
        {&in.operand(0)->shape, &in.operand(1)->shape, &result, dot->dot}, op,
        name, target, extra);
  }
  return UnsupportedOp(OpcodeName(in) + " " + in.name,
                       "not generated on the host");
}

std::string HostPrelude(Target target) {
  const std::string fn = target == Target::kCuda
                             ? "static __host__ __device__ inline"
                             : "static inline";
  std::string out =
      fn +
      " float ixap_f16_to_f32(uint16_t h) {\n"
      "  const uint32_t sign = (uint32_t)(h >> 15) << 31;\n"
      "  const int exponent = (h >> 10) & 31;\n"
      "  const uint32_t mantissa = h & 1023;\n"
      "  float magnitude;\n"
      "  if (exponent == 0) magnitude = ldexpf((float)mantissa, -24);\n"
      "  else if (exponent == 31) magnitude = mantissa ? NAN : INFINITY;\n"
      "  else magnitude = ldexpf((float)(mantissa | 1024), exponent - 25);\n"
      "  uint32_t bits; memcpy(&bits, &magnitude, 4); bits |= sign;\n"
      "  float f; memcpy(&f, &bits, 4); return f;\n"
      "}\n" +
      fn +
      " uint16_t ixap_f32_to_f16(float f) {\n"
      "  uint32_t x; memcpy(&x, &f, 4);\n"
      "  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000);\n"
      "  const float a = fabsf(f);\n"
      "  if (a != a) return (uint16_t)(sign | 0x7e00);\n"
      "  if (a >= 65520.0f) return (uint16_t)(sign | 0x7c00);\n"
      "  if (a < 6.103515625e-05f) {\n"
      "    return (uint16_t)(sign | (uint16_t)nearbyintf(a * 16777216.0f));\n"
      "  }\n"
      "  uint32_t u; memcpy(&u, &a, 4);\n"
      "  const uint32_t lsb = (u >> 13) & 1;\n"
      "  u += 0xfff + lsb;\n"
      "  return (uint16_t)(sign | (((u >> 13) - (112u << 10)) & 0x7fff));\n"
      "}\n" +
      fn +
      " float ixap_bf16_to_f32(uint16_t h) {\n"
      "  uint32_t bits = (uint32_t)h << 16; float f; memcpy(&f, &bits, 4);\n"
      "  return f;\n"
      "}\n" +
      fn +
      " uint16_t ixap_f32_to_bf16(float f) {\n"
      "  uint32_t x; memcpy(&x, &f, 4);\n"
      "  if (f != f) return (uint16_t)((x >> 16) | 0x40);\n"
      "  x += 0x7fff + ((x >> 16) & 1);\n"
      "  return (uint16_t)(x >> 16);\n"
      "}\n" +
      fn +
      " int64_t ixap_total_order(double v) {\n"
      "  int64_t bits; memcpy(&bits, &v, 8);\n"
      "  return bits < 0 ? bits ^ INT64_MAX : bits;\n"
      "}\n";
  if (target == Target::kCuda) {
    out +=
        "[[maybe_unused]] static int ixap_check_launch(const char* kernel) "
        "{\n"
        "  cudaError_t e = cudaGetLastError();\n"
        "  if (e != cudaSuccess) {\n"
        "    fprintf(stderr, \"ixa_run: kernel %s failed to launch: %s\\n\", "
        "kernel, cudaGetErrorString(e));\n"
        "    return 2;\n"
        "  }\n"
        "  return 0;\n"
        "}\n";
  }
  return out;
}

}  // namespace ixa::emit::program_internal
