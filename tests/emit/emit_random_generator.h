// The random HLO builder of the fusion generator: fresh names, parameters
// with their input specs, elementwise steps, index-transforming producers
// and index round trips (emit_random_fusions.cc builds fusions with it).
#ifndef IXA_TESTS_EMIT_EMIT_RANDOM_GENERATOR_H_
#define IXA_TESTS_EMIT_EMIT_RANDOM_GENERATOR_H_

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/hlo/shape.h"
#include "tests/emit/emit_random_fusions.h"

namespace ixa::emit_test::random_detail {

using Dims = std::vector<int64_t>;

struct Value {
  std::string name;
  ElementType type = ElementType::kF32;
  Dims dims;
};

inline std::string DimsText(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

inline std::string ListText(const Dims& d) {
  std::string s = "{";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? "," : "") + std::to_string(d[i]);
  return s + "}";
}

inline std::string ShapeText(ElementType t, const Dims& d,
                             const std::string& layout = "") {
  return std::string(hlo::ElementTypeName(t)) + DimsText(d) + layout;
}

inline bool IsFloatType(ElementType t) { return IsFloat(t); }

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Uniform(0, static_cast<int64_t>(v.size()) - 1)];
  }

  std::string Fresh(const std::string& stem) {
    return stem + "." + std::to_string(counter_++);
  }

  Value Param(ElementType t, const Dims& dims, const std::string& layout = "",
              ParameterSpec spec = {}) {
    Value v{Fresh("p"), t, dims};
    params_.push_back(v.name + " = " + ShapeText(t, dims, layout) +
                      " parameter(" + std::to_string(specs_.size()) + ")");
    specs_.push_back(spec);
    return v;
  }

  Value Emit(ElementType t, const Dims& dims, const std::string& op_and_args,
             const std::string& layout = "") {
    // Operands are the names between the parentheses.
    size_t open = op_and_args.find('('), close = op_and_args.find(')');
    if (open != std::string::npos && close != std::string::npos) {
      std::stringstream args(op_and_args.substr(open + 1, close - open - 1));
      std::string a;
      while (std::getline(args, a, ',')) {
        a.erase(0, a.find_first_not_of(' '));
        used_.insert(a);
      }
    }
    Value v{Fresh(Stem(op_and_args)), t, dims};
    body_.push_back(v.name + " = " + ShapeText(t, dims, layout) + " " +
                    op_and_args);
    return v;
  }

  Value Constant(ElementType t, const std::string& literal) {
    return Emit(t, {}, "constant(" + literal + ")");
  }

  std::string ScalarLiteral(ElementType t) {
    if (t == ElementType::kPred) return Chance(50) ? "true" : "false";
    if (IsFloatType(t)) {
      static const std::vector<std::string> kFloats = {"0.5", "-1.25", "2", "0",
                                                       "3.5"};
      return Pick(kFloats);
    }
    int64_t v = Uniform(IsUnsigned(t) ? 0 : -5, 9);
    return std::to_string(v);
  }

  Value Splat(ElementType t, const Dims& dims) {
    Value c = Constant(t, ScalarLiteral(t));
    if (dims.empty()) return c;
    return Emit(t, dims, "broadcast(" + c.name + "), dimensions={}");
  }

  // A reducer computation over scalars of type t; `kind` is add, maximum,
  // minimum, multiply, and, or.
  std::string Reducer(ElementType t, const std::string& kind) {
    std::string name = "red_" + kind + "_" + hlo::ElementTypeName(t) + "." +
                       std::to_string(counter_++);
    std::string ty = hlo::ElementTypeName(t);
    comps_.push_back(name + " {\n  a = " + ty + "[] parameter(0)\n  b = " + ty +
                     "[] parameter(1)\n  ROOT r = " + ty + "[] " + kind +
                     "(a, b)\n}\n");
    return name;
  }

  // One elementwise step on `a` (and pool values of the same type/shape).
  Value Elementwise(const Value& a, const std::vector<Value>& pool) {
    std::vector<Value> same;
    for (const Value& v : pool) {
      if (v.type == a.type && v.dims == a.dims) same.push_back(v);
    }
    const Value& b = same.empty() ? a : Pick(same);
    ElementType t = a.type;
    const Dims& d = a.dims;
    int choice = static_cast<int>(Uniform(0, 99));
    if (choice < 10) {
      // compare + select.
      static const std::vector<std::string> kDirs = {"EQ", "NE", "LT",
                                                     "LE", "GT", "GE"};
      // Floats also compare in XLA's total order (-NaN < -inf < -0 < +0).
      std::string total =
          IsFloatType(t) && Chance(30) ? ", type=TOTALORDER" : "";
      Value c = Emit(ElementType::kPred, d,
                     "compare(" + a.name + ", " + b.name +
                         "), direction=" + Pick(kDirs) + total);
      return Emit(t, d,
                  "select(" + c.name + ", " + a.name + ", " + b.name + ")");
    }
    if (choice < 15 && t != ElementType::kPred) {
      Value lo = Splat(t, d);
      return Emit(t, d,
                  "clamp(" + lo.name + ", " + a.name + ", " + b.name + ")");
    }
    if (choice < 22) {
      // convert to another type and back.
      static const std::vector<ElementType> kTypes = {
          ElementType::kF32,  ElementType::kBF16,     ElementType::kF16,
          ElementType::kS32,  ElementType::kS8,       ElementType::kU8,
          ElementType::kF64,  ElementType::kS64,      ElementType::kU16,
          ElementType::kPred, ElementType::kF8E4M3FN, ElementType::kF8E5M2,
          ElementType::kS4,   ElementType::kU4};
      ElementType mid = Pick(kTypes);
      Value c = Emit(mid, d, "convert(" + a.name + ")");
      return Emit(t, d, "convert(" + c.name + ")");
    }
    if (choice < 25 && t != ElementType::kPred) {
      ElementType other = t;
      switch (t) {
        case ElementType::kF32:
          other = ElementType::kS32;
          break;
        case ElementType::kS32:
          other = ElementType::kF32;
          break;
        case ElementType::kBF16:
          other = ElementType::kF16;
          break;
        case ElementType::kF16:
          other = ElementType::kU16;
          break;
        case ElementType::kF64:
          other = ElementType::kS64;
          break;
        case ElementType::kS8:
          other = ElementType::kU8;
          break;
        default:
          other = t;
          break;
      }
      Value c = Emit(other, d, "bitcast-convert(" + a.name + ")");
      return Emit(t, d, "bitcast-convert(" + c.name + ")");
    }
    if (t == ElementType::kPred) {
      // Arithmetic on pred as XLA's evaluator does it (add is or, subtract
      // xor, multiply and, maximum or, minimum and).
      static const std::vector<std::string> kOps = {
          "and",      "or",       "xor",     "not",    "add",
          "subtract", "multiply", "maximum", "minimum"};
      std::string op = Pick(kOps);
      if (op == "not") return Emit(t, d, "not(" + a.name + ")");
      return Emit(t, d, op + "(" + a.name + ", " + b.name + ")");
    }
    if (IsFloatType(t)) {
      static const std::vector<std::string> kUnary = {"abs",
                                                      "negate",
                                                      "exponential",
                                                      "tanh",
                                                      "log",
                                                      "sqrt",
                                                      "rsqrt",
                                                      "cbrt",
                                                      "sine",
                                                      "cosine",
                                                      "floor",
                                                      "ceil",
                                                      "round-nearest-afz",
                                                      "round-nearest-even",
                                                      "sign",
                                                      "logistic",
                                                      "exponential-minus-one",
                                                      "log-plus-one",
                                                      "tan",
                                                      "erf",
                                                      "acos",
                                                      "asin",
                                                      "atan",
                                                      "acosh",
                                                      "asinh",
                                                      "atanh",
                                                      "cosh",
                                                      "sinh",
                                                      "is-finite",
                                                      "reduce-precision"};
      static const std::vector<std::string> kBinary = {
          "add",     "subtract", "multiply", "divide",   "maximum",
          "minimum", "power",    "atan2",    "remainder"};
      // The inverse and hyperbolic functions, is-finite and reduce-precision
      // get a share of their own (the random set is small).
      static const std::vector<std::string> kInverse = {
          "acos",  "asin", "atan", "acosh",     "asinh",
          "atanh", "cosh", "sinh", "is-finite", "reduce-precision"};
      if (Chance(45)) {
        std::string op = Chance(40) ? Pick(kInverse) : Pick(kUnary);
        if (op == "log" || op == "sqrt" || op == "rsqrt" ||
            op == "log-plus-one") {
          Value abs = Emit(t, d, "abs(" + a.name + ")");
          return Emit(t, d, op + "(" + abs.name + ")");
        }
        if (op == "acos" || op == "asin" || op == "atanh") {
          // Mostly inside the domain [-1, 1] (tanh maps there); a scaled
          // input reaches past it now and then (NaN, or +-inf for atanh).
          Value in = Emit(t, d, "tanh(" + a.name + ")");
          if (Chance(20))
            in = Emit(t, d,
                      "multiply(" + in.name + ", " + Splat(t, d).name + ")");
          return Emit(t, d, op + "(" + in.name + ")");
        }
        if (op == "acosh") {  // 1 + |a|: inside the domain [1, inf)
          Value abs = Emit(t, d, "abs(" + a.name + ")");
          Value one = Constant(t, "1");
          Value ones = Emit(t, d, "broadcast(" + one.name + "), dimensions={}");
          Value in = Emit(t, d, "add(" + abs.name + ", " + ones.name + ")");
          return Emit(t, d, op + "(" + in.name + ")");
        }
        if (op == "is-finite") {
          Value f = Emit(ElementType::kPred, d, "is-finite(" + a.name + ")");
          return Emit(t, d,
                      "select(" + f.name + ", " + a.name + ", " + b.name + ")");
        }
        if (op == "reduce-precision") {
          static const std::vector<std::string> kFormats = {
              "exponent_bits=5, mantissa_bits=10",
              "exponent_bits=8, mantissa_bits=7",
              "exponent_bits=4, mantissa_bits=3"};
          return Emit(t, d,
                      "reduce-precision(" + a.name + "), " + Pick(kFormats));
        }
        if (op == "exponential" || op == "exponential-minus-one" ||
            op == "cosh" || op == "sinh") {
          Value lo = Splat(t, d), hi = Splat(t, d);
          Value c = Emit(
              t, d, "clamp(" + lo.name + ", " + a.name + ", " + hi.name + ")");
          return Emit(t, d, op + "(" + c.name + ")");
        }
        return Emit(t, d, op + "(" + a.name + ")");
      }
      std::string op = Pick(kBinary);
      if (op == "power") {
        Value abs = Emit(t, d, "abs(" + a.name + ")");
        Value e = Splat(t, d);
        return Emit(t, d, "power(" + abs.name + ", " + e.name + ")");
      }
      return Emit(t, d, op + "(" + a.name + ", " + b.name + ")");
    }
    static const std::vector<std::string> kUnary = {
        "abs", "negate", "not", "sign", "popcnt", "count-leading-zeros"};
    static const std::vector<std::string> kBinary = {"add",
                                                     "subtract",
                                                     "multiply",
                                                     "divide",
                                                     "remainder",
                                                     "and",
                                                     "or",
                                                     "xor",
                                                     "maximum",
                                                     "minimum",
                                                     "shift-left",
                                                     "shift-right-logical",
                                                     "shift-right-arithmetic",
                                                     "power"};
    if (Chance(30)) return Emit(t, d, Pick(kUnary) + "(" + a.name + ")");
    std::string op = Pick(kBinary);
    if (op == "power") {
      Value e = Splat(t, d);
      return Emit(t, d, "power(" + a.name + ", " + e.name + ")");
    }
    return Emit(t, d, op + "(" + a.name + ", " + b.name + ")");
  }

  // A value of type t and dims d produced by an index-transforming op from
  // a fresh parameter (or from `src`, a pool value of that shape).
  Value Producer(ElementType t, const Dims& d, const Value* src) {
    const int rank = static_cast<int>(d.size());
    int choice = static_cast<int>(Uniform(0, 15));
    switch (choice) {
      case 0: {  // broadcast from a subset of dims
        Dims kept, in;
        for (int i = 0; i < rank; ++i) {
          if (Chance(50)) {
            kept.push_back(i);
            in.push_back(d[i]);
          }
        }
        Value p = Param(t, in);
        return Emit(t, d,
                    "broadcast(" + p.name + "), dimensions=" + ListText(kept));
      }
      case 1: {  // iota
        if (t == ElementType::kPred || rank == 0) break;
        return Emit(
            t, d,
            "iota(), iota_dimension=" + std::to_string(Uniform(0, rank - 1)));
      }
      case 2: {  // transpose of a parameter
        if (rank < 2) break;
        Dims perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng_);
        Dims in(rank);
        for (int i = 0; i < rank; ++i) in[perm[i]] = d[i];
        Value p = Param(t, in);
        return Emit(t, d,
                    "transpose(" + p.name + "), dimensions=" + ListText(perm));
      }
      case 3: {  // reshape / bitcast from merged dims
        if (rank < 2) break;
        int k = static_cast<int>(Uniform(0, rank - 2));
        Dims in;
        for (int i = 0; i < rank; ++i) {
          if (i == k + 1) {
            in.back() *= d[i];
          } else {
            in.push_back(d[i]);
          }
        }
        Value p = Param(t, in);
        return Emit(
            t, d,
            std::string(Chance(50) ? "reshape(" : "bitcast(") + p.name + ")");
      }
      case 4: {  // slice with strides
        Dims in;
        std::string spec = "{";
        for (int i = 0; i < rank; ++i) {
          int64_t stride = Uniform(1, 2), start = Uniform(0, 2);
          int64_t limit = start + (d[i] - 1) * stride + 1;
          in.push_back(limit + Uniform(0, 2));
          spec += std::string(i ? ", " : "") + "[" + std::to_string(start) +
                  ":" + std::to_string(limit) +
                  (stride > 1 ? ":" + std::to_string(stride) : "") + "]";
        }
        Value p = Param(t, in);
        return Emit(t, d, "slice(" + p.name + "), slice=" + spec + "}");
      }
      case 5: {  // pad (interior and negative padding included)
        Dims in;
        std::string spec;
        for (int i = 0; i < rank; ++i) {
          int64_t interior = (d[i] >= 3 && Chance(40)) ? 1 : 0;
          int64_t n = Uniform(
              1, std::max<int64_t>(1, (d[i] + interior) / (1 + interior)));
          int64_t span = n + (n - 1) * interior;
          int64_t low = Uniform(-1, d[i] - span + 1);
          low = std::min(low, d[i] - span);
          if (low < -1) low = -1;
          int64_t high = d[i] - span - low;
          if (high < -1) {
            n = 1;
            interior = 0;
            span = 1;
            low = Uniform(0, d[i] - 1);
            high = d[i] - 1 - low;
          }
          in.push_back(n);
          spec += std::string(i ? "x" : "") + std::to_string(low) + "_" +
                  std::to_string(high) + "_" + std::to_string(interior);
        }
        Value p = Param(t, in);
        Value pv = Chance(50) ? Param(t, {}) : Constant(t, ScalarLiteral(t));
        if (rank == 0) break;
        return Emit(t, d,
                    "pad(" + p.name + ", " + pv.name + "), padding=" + spec);
      }
      case 6: {  // concatenate of 2-3 parameters
        if (rank == 0) break;
        int dim = static_cast<int>(Uniform(0, rank - 1));
        if (d[dim] < 2) break;
        int parts = static_cast<int>(std::min<int64_t>(d[dim], Uniform(2, 3)));
        std::vector<int64_t> sizes(parts, 1);
        for (int64_t extra = d[dim] - parts; extra > 0; --extra) {
          sizes[Uniform(0, parts - 1)]++;
        }
        std::string args;
        for (int j = 0; j < parts; ++j) {
          Dims in = d;
          in[dim] = sizes[j];
          args += (j ? ", " : "") + Param(t, in).name;
        }
        return Emit(t, d,
                    "concatenate(" + args + "), dimensions={" +
                        std::to_string(dim) + "}");
      }
      case 7: {  // dynamic-slice with clamped starts
        if (rank == 0) break;
        Dims in;
        std::string args;
        for (int i = 0; i < rank; ++i) in.push_back(d[i] + Uniform(0, 4));
        Value p = Param(t, in);
        args = p.name;
        for (int i = 0; i < rank; ++i) {
          ParameterSpec s;
          s.random.int_lo = -2;
          s.random.int_hi = 6;
          args += ", " + Param(ElementType::kS32, {}, "", s).name;
        }
        return Emit(
            t, d,
            "dynamic-slice(" + args + "), dynamic_slice_sizes=" + ListText(d));
      }
      case 8: {  // canonical gather: output [N, o...]
        if (rank < 2) break;
        Dims operand(d.begin() + 1, d.end());
        for (int64_t& o : operand) o += Uniform(0, 3);
        int64_t k = Uniform(1, static_cast<int64_t>(operand.size()));
        Value p = Param(t, operand);
        ParameterSpec s;
        s.random.int_lo = -1;
        s.random.int_hi = 5;
        Value idx = Param(ElementType::kS32, {d[0], k}, "", s);
        Dims offset_dims, start_map, slice_sizes(d.begin() + 1, d.end());
        for (size_t i = 1; i < d.size(); ++i) offset_dims.push_back(i);
        for (int64_t i = 0; i < k; ++i) start_map.push_back(i);
        return Emit(
            t, d,
            "gather(" + p.name + ", " + idx.name +
                "), offset_dims=" + ListText(offset_dims) +
                ", collapsed_slice_dims={}, start_index_map=" +
                ListText(start_map) +
                ", index_vector_dim=1, slice_sizes=" + ListText(slice_sizes));
      }
      case 9: {  // reduce-window
        if (rank == 0 || t == ElementType::kPred) break;
        Dims in;
        std::string size, stride, pad, dil;
        bool dilate = Chance(25);
        for (int i = 0; i < rank; ++i) {
          int64_t w = Uniform(1, 3), s = Uniform(1, 2), pl = Uniform(0, 1),
                  ph = Uniform(0, 1);
          int64_t wd = dilate ? Uniform(1, 2) : 1;
          int64_t eff = (w - 1) * wd + 1;
          int64_t n = (d[i] - 1) * s + eff - pl - ph;
          if (n < 1) {
            pl = ph = 0;
            n = (d[i] - 1) * s + eff;
          }
          in.push_back(n);
          size += (i ? "x" : "") + std::to_string(w);
          stride += (i ? "x" : "") + std::to_string(s);
          pad += (i ? "x" : "") + std::to_string(pl) + "_" + std::to_string(ph);
          dil += (i ? "x" : "") + std::to_string(wd);
        }
        Value p = Param(t, in);
        std::string kind = Chance(50) ? "add" : "maximum";
        Value init = Constant(t, ScalarLiteral(t));
        std::string window =
            "size=" + size + " stride=" + stride + " pad=" + pad;
        if (dilate) window += " rhs_dilate=" + dil;
        return Emit(t, d,
                    "reduce-window(" + p.name + ", " + init.name +
                        "), window={" + window +
                        "}, to_apply=" + Reducer(t, kind));
      }
      case 10: {  // reduce that the reduction emitter does not take
        if (t == ElementType::kPred) break;
        int64_t r = Pick(std::vector<int64_t>{3, 5, 6, 7});
        Dims in = d;
        int64_t where = Chance(50) ? rank : 0;
        in.insert(in.begin() + where, r);
        Value p = Param(t, in);
        Value init = Constant(t, ScalarLiteral(t));
        std::string kind =
            Pick(std::vector<std::string>{"add", "maximum", "minimum"});
        return Emit(t, d,
                    "reduce(" + p.name + ", " + init.name + "), dimensions={" +
                        std::to_string(where) +
                        "}, to_apply=" + Reducer(t, kind));
      }
      case 11: {  // nested call / fusion / map
        Value p = Param(t, d);
        Value q = src ? *src : Param(t, d);
        std::string ty = ShapeText(t, d);
        std::string name = "sub." + std::to_string(counter_++);
        std::string op = t == ElementType::kPred ? "xor"
                         : IsFloatType(t)        ? "multiply"
                                                 : "add";
        std::string op2 = t == ElementType::kPred ? "not" : "negate";
        if (Chance(33)) {
          std::string sty = std::string(hlo::ElementTypeName(t)) + "[]";
          comps_.push_back(
              name + " {\n  x = " + sty + " parameter(0)\n  y = " + sty +
              " parameter(1)\n  z = " + sty + " " + op +
              "(x, y)\n  ROOT w = " + sty + " " + op2 + "(z)\n}\n");
          Dims all(rank);
          std::iota(all.begin(), all.end(), 0);
          return Emit(t, d,
                      "map(" + p.name + ", " + q.name + "), dimensions=" +
                          ListText(all) + ", to_apply=" + name);
        }
        comps_.push_back(name + " {\n  x = " + ty + " parameter(0)\n  y = " +
                         ty + " parameter(1)\n  z = " + ty + " " + op +
                         "(x, y)\n  ROOT w = " + ty + " " + op2 + "(z)\n}\n");
        if (Chance(50))
          return Emit(t, d,
                      "call(" + p.name + ", " + q.name + "), to_apply=" + name);
        return Emit(t, d,
                    "fusion(" + p.name + ", " + q.name +
                        "), kind=kLoop, calls=" + name);
      }
      case 12: {  // tuple / get-tuple-element
        Value p = Param(t, d);
        Value q = src ? *src : Param(t, d);
        Value tup{Fresh("tuple"), ElementType::kTuple, {}};
        body_.push_back(tup.name + " = (" + ShapeText(t, d) + ", " +
                        ShapeText(t, d) + ") tuple(" + p.name + ", " + q.name +
                        ")");
        return Emit(t, d,
                    "get-tuple-element(" + tup.name +
                        "), index=" + std::to_string(Uniform(0, 1)));
      }
      case 13: {  // constant array (rank 1) broadcast
        if (rank == 0 || d.back() > 16) break;
        std::string lit = "{";
        for (int64_t i = 0; i < d.back(); ++i)
          lit += (i ? ", " : "") + ScalarLiteral(t);
        Value c = Emit(t, {d.back()}, "constant(" + lit + "})");
        return Emit(t, d,
                    "broadcast(" + c.name + "), dimensions={" +
                        std::to_string(rank - 1) + "}");
      }
      default:
        break;
    }
    return Param(t, d, Chance(15) && rank >= 2 ? PermutedLayout(rank) : "");
  }

  std::string PermutedLayout(int rank) {
    Dims m2m(rank);
    std::iota(m2m.begin(), m2m.end(), 0);
    std::shuffle(m2m.begin(), m2m.end(), rng_);
    return ListText(m2m);
  }

  // An index round trip on a pool value: reverse, pad+slice, concat+slice,
  // transpose+op+transpose, reshape+op+reshape.
  Value RoundTrip(const Value& v) {
    const int rank = static_cast<int>(v.dims.size());
    ElementType t = v.type;
    if (rank == 0) return v;
    switch (Uniform(0, 4)) {
      case 0: {
        Dims dims;
        for (int i = 0; i < rank; ++i) {
          if (Chance(50)) dims.push_back(i);
        }
        if (dims.empty()) dims.push_back(rank - 1);
        return Emit(t, v.dims,
                    "reverse(" + v.name + "), dimensions=" + ListText(dims));
      }
      case 1: {
        Dims big = v.dims;
        std::string pad, slice = "{";
        for (int i = 0; i < rank; ++i) {
          int64_t lo = Uniform(0, 2), hi = Uniform(0, 2);
          big[i] += lo + hi;
          pad += (i ? "x" : "") + std::to_string(lo) + "_" + std::to_string(hi);
          int64_t start = Uniform(0, lo + hi);
          slice += std::string(i ? ", " : "") + "[" + std::to_string(start) +
                   ":" + std::to_string(start + v.dims[i]) + "]";
        }
        Value pv = Constant(t, ScalarLiteral(t));
        Value p = Emit(t, big,
                       "pad(" + v.name + ", " + pv.name + "), padding=" + pad);
        return Emit(t, v.dims, "slice(" + p.name + "), slice=" + slice + "}");
      }
      case 2: {
        int dim = static_cast<int>(Uniform(0, rank - 1));
        Dims big = v.dims;
        big[dim] *= 2;
        Value c = Emit(t, big,
                       "concatenate(" + v.name + ", " + v.name +
                           "), dimensions={" + std::to_string(dim) + "}");
        std::string slice = "{";
        int64_t start = Uniform(0, v.dims[dim]);
        for (int i = 0; i < rank; ++i) {
          int64_t s = i == dim ? start : 0;
          slice += std::string(i ? ", " : "") + "[" + std::to_string(s) + ":" +
                   std::to_string(s + v.dims[i]) + "]";
        }
        return Emit(t, v.dims, "slice(" + c.name + "), slice=" + slice + "}");
      }
      case 3: {
        if (rank < 2) break;
        Dims perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        std::swap(perm[0], perm[rank - 1]);
        Dims tdims(rank);
        for (int i = 0; i < rank; ++i) tdims[i] = v.dims[perm[i]];
        Value a =
            Emit(t, tdims,
                 "transpose(" + v.name + "), dimensions=" + ListText(perm));
        Value b = Elementwise(a, {a});
        return Emit(t, v.dims,
                    "transpose(" + b.name + "), dimensions=" + ListText(perm));
      }
      case 4: {
        int64_t n = 1;
        for (int64_t x : v.dims) n *= x;
        Value a = Emit(t, {n}, "reshape(" + v.name + ")");
        Value b = Elementwise(a, {a});
        return Emit(t, v.dims, "reshape(" + b.name + ")");
      }
    }
    return v;
  }

  std::string Module(const std::string& root_line) {
    std::ostringstream out;
    out << "HloModule generated\n\n";
    for (const std::string& c : comps_) out << c << "\n";
    out << "ENTRY fusion {\n";
    for (const std::string& p : params_) out << "  " << p << "\n";
    for (const std::string& b : body_) out << "  " << b << "\n";
    out << "  ROOT " << root_line << "\n}\n";
    return out.str();
  }

  // A body line as written (a tuple-shaped value, which Emit cannot name).
  void Raw(const std::string& line) { body_.push_back(line); }

  // Moves the last body line to the root (its text without the name part
  // stays as it is).
  std::string TakeLastAsRoot() {
    std::string last = body_.back();
    body_.pop_back();
    return last;
  }

  bool Used(const Value& v) const { return used_.count(v.name) > 0; }
  std::vector<ParameterSpec>& specs() { return specs_; }
  std::mt19937_64& rng() { return rng_; }

 private:
  static std::string Stem(const std::string& op_and_args) {
    std::string s = op_and_args.substr(0, op_and_args.find('('));
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
  }

  std::mt19937_64 rng_;
  int counter_ = 0;
  std::vector<std::string> comps_, params_, body_;
  std::vector<ParameterSpec> specs_;
  std::set<std::string> used_;
};

}  // namespace ixa::emit_test::random_detail

#endif  // IXA_TESTS_EMIT_EMIT_RANDOM_GENERATOR_H_
