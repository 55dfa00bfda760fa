// The helper functions of the MLIR printer (XLA's integer and float
// semantics, bf16 encodings) and the dense literals of constants.
#include "emit/targets/mlir_printer.h"

namespace ixa::emit::mlir_detail {

std::string HelperText(const std::string& name, const std::string& func) {
  auto type_of = [](const std::string& n) {
    static const std::pair<const char*, Type> kTypes[] = {
        {"pred", Type::kPred}, {"s8", Type::kS8},     {"s16", Type::kS16},
        {"s32", Type::kS32},   {"s64", Type::kS64},   {"u8", Type::kU8},
        {"u16", Type::kU16},   {"u32", Type::kU32},   {"u64", Type::kU64},
        {"f16", Type::kF16},   {"bf16", Type::kBF16}, {"f32", Type::kF32},
        {"f64", Type::kF64}};
    for (const auto& [k, t] : kTypes) {
      if (n == k) return t;
    }
    return Type::kIndex;
  };
  std::ostringstream o;
  if (name == "ixa_bf16_to_f32") {
    o << func << " @ixa_bf16_to_f32(%h: i16) -> f32 {\n"
      << "  %w = arith.extui %h : i16 to i32\n"
      << "  %c16 = arith.constant 16 : i32\n"
      << "  %s = arith.shli %w, %c16 : i32\n"
      << "  %f = arith.bitcast %s : i32 to f32\n"
      << "  return %f : f32\n}\n";
    return o.str();
  }
  if (name == "ixa_f32_to_bf16") {
    // Round to nearest even on the dropped 16 bits; a NaN keeps its
    // payload's top bits (the quiet bit where none would remain).
    o << func << " @ixa_f32_to_bf16(%f: f32) -> i16 {\n"
      << "  %u = arith.bitcast %f : f32 to i32\n"
      << "  %c16 = arith.constant 16 : i32\n"
      << "  %one = arith.constant 1 : i32\n"
      << "  %bias = arith.constant 32767 : i32\n"
      << "  %quiet = arith.constant 64 : i32\n"
      << "  %hi = arith.shrui %u, %c16 : i32\n"
      << "  %lsb = arith.andi %hi, %one : i32\n"
      << "  %add = arith.addi %bias, %lsb : i32\n"
      << "  %w = arith.extui %u : i32 to i64\n"
      << "  %add64 = arith.extui %add : i32 to i64\n"
      << "  %sum = arith.addi %w, %add64 : i64\n"
      << "  %c16w = arith.constant 16 : i64\n"
      << "  %sh = arith.shrui %sum, %c16w : i64\n"
      << "  %t = arith.trunci %sh : i64 to i16\n"
      << "  %pmask = arith.constant 127 : i32\n"
      << "  %payload = arith.andi %hi, %pmask : i32\n"
      << "  %zero = arith.constant 0 : i32\n"
      << "  %nopay = arith.cmpi eq, %payload, %zero : i32\n"
      << "  %quieted = arith.ori %hi, %quiet : i32\n"
      << "  %nanbits = select %nopay, %quieted, %hi : i32\n"
      << "  %nt = arith.trunci %nanbits : i32 to i16\n"
      << "  %isnan = arith.cmpf uno, %f, %f : f32\n"
      << "  %r = select %isnan, %nt, %t : i16\n"
      << "  return %r : i16\n}\n";
    return o.str();
  }
  if (name == "ixa_round_bf16") {
    // f32 -> bf16 bits -> f32 without calls (it is inlined into atomics):
    // round to nearest even on the 16 dropped bits, keep NaN quiet.
    o << func << " @ixa_round_bf16(%f: f32) -> f32 {\n"
      << "  %u = arith.bitcast %f : f32 to i32\n"
      << "  %c16 = arith.constant 16 : i32\n"
      << "  %one = arith.constant 1 : i32\n"
      << "  %bias = arith.constant 32767 : i32\n"
      << "  %quiet = arith.constant 4194304 : i32\n"
      << "  %mask = arith.constant -65536 : i32\n"
      << "  %hi = arith.shrui %u, %c16 : i32\n"
      << "  %lsb = arith.andi %hi, %one : i32\n"
      << "  %add = arith.addi %bias, %lsb : i32\n"
      << "  %sum = arith.addi %u, %add : i32\n"
      << "  %t = arith.andi %sum, %mask : i32\n"
      << "  %nanbits = arith.ori %u, %quiet : i32\n"
      << "  %nt = arith.andi %nanbits, %mask : i32\n"
      << "  %isnan = arith.cmpf uno, %f, %f : f32\n"
      << "  %bits = select %isnan, %nt, %t : i32\n"
      << "  %r = arith.bitcast %bits : i32 to f32\n"
      << "  return %r : f32\n}\n";
    return o.str();
  }
  size_t us = name.rfind('_');
  std::string base = name.substr(0, us), tn = name.substr(us + 1);
  Type t = type_of(tn);
  if (base.rfind("ixa_f2i_", 0) == 0) {
    Type from = type_of(base.substr(8));
    std::string fct = ComputeType(from), ct = ComputeType(t);
    int bits = ir::TypeBits(t);
    bool sgn = ir::IsSignedInt(t);
    double lim = std::ldexp(1.0, sgn ? bits - 1 : bits);
    o << func << " @" << name << "(%v: " << fct << ") -> " << ct << " {\n"
      << "  %zf = arith.constant " << FloatConst(0.0, from) << " : " << fct
      << "\n"
      << "  %hi = arith.constant " << FloatConst(lim, from) << " : " << fct
      << "\n"
      << "  %lo = arith.constant " << FloatConst(sgn ? -lim : 0.0, from)
      << " : " << fct << "\n"
      << "  %nan = arith.cmpf uno, %v, %v : " << fct << "\n"
      << "  %ge = arith.cmpf oge, %v, %hi : " << fct << "\n"
      << "  %lt = arith.cmpf " << (sgn ? "olt" : "ole") << ", %v, %lo : " << fct
      << "\n"
      << "  %b1 = arith.ori %nan, %ge : i1\n"
      << "  %bad = arith.ori %b1, %lt : i1\n"
      << "  %safe = select %bad, %zf, %v : " << fct << "\n"
      << "  %i = " << (sgn ? "arith.fptosi" : "arith.fptoui")
      << " %safe : " << fct << " to " << ct << "\n"
      << "  %max = arith.constant " << (sgn ? "-1" : "-1") << " : " << ct
      << "\n";
    if (sgn) {
      o << "  %one = arith.constant 1 : " << ct << "\n"
        << "  %smax = arith.shrui %max, %one : " << ct << "\n"
        << "  %smin = arith.xori %smax, %max : " << ct << "\n"
        << "  %r1 = select %ge, %smax, %i : " << ct << "\n"
        << "  %r2 = select %lt, %smin, %r1 : " << ct << "\n";
    } else {
      o << "  %zero = arith.constant 0 : " << ct << "\n"
        << "  %r1 = select %ge, %max, %i : " << ct << "\n"
        << "  %r2 = select %lt, %zero, %r1 : " << ct << "\n";
    }
    o << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %r = select %nan, %z, %r2 : " << ct << "\n"
      << "  return %r : " << ct << "\n}\n";
    return o.str();
  }
  std::string ct = ComputeType(t);
  int bits = ir::TypeBits(t);
  bool sgn = ir::IsSignedInt(t);
  auto head = [&](int args) {
    o << func << " @" << name << "(%a: " << ct;
    if (args > 1) o << ", %b: " << ct;
    o << ") -> " << ct << " {\n";
  };
  auto ret = [&](const std::string& v) {
    o << "  return " << v << " : " << ct << "\n}\n";
    return o.str();
  };
  if (base == "ixa_iabs") {
    head(1);
    o << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %n = arith.subi %z, %a : " << ct << "\n"
      << "  %lt = arith.cmpi slt, %a, %z : " << ct << "\n"
      << "  %r = select %lt, %n, %a : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_isign") {
    head(1);
    o << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %p = arith.constant 1 : " << ct << "\n"
      << "  %m = arith.constant -1 : " << ct << "\n"
      << "  %gt = arith.cmpi sgt, %a, %z : " << ct << "\n"
      << "  %lt = arith.cmpi slt, %a, %z : " << ct << "\n"
      << "  %s1 = select %gt, %p, %z : " << ct << "\n"
      << "  %r = select %lt, %m, %s1 : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_fsign") {
    head(1);
    o << "  %z = arith.constant " << FloatConst(0, t) << " : " << ct << "\n"
      << "  %p = arith.constant " << FloatConst(1, t) << " : " << ct << "\n"
      << "  %m = arith.constant " << FloatConst(-1, t) << " : " << ct << "\n"
      << "  %nan = arith.cmpf uno, %a, %a : " << ct << "\n"
      << "  %gt = arith.cmpf ogt, %a, %z : " << ct << "\n"
      << "  %lt = arith.cmpf olt, %a, %z : " << ct << "\n"
      << "  %s1 = select %lt, %m, %a : " << ct << "\n"
      << "  %s2 = select %gt, %p, %s1 : " << ct << "\n"
      << "  %r = select %nan, %a, %s2 : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_fmax" || base == "ixa_fmin") {
    // IEEE-754 2019 maximum / minimum: NaN propagates, -0 < +0 (between
    // equal values the bits' and / or).
    head(2);
    std::string it = ct == "f64" ? "i64" : "i32";
    o << "  %c = arith.cmpf " << (base == "ixa_fmax" ? "ogt" : "olt")
      << ", %a, %b : " << ct << "\n"
      << "  %m0 = select %c, %a, %b : " << ct << "\n"
      << "  %eq = arith.cmpf oeq, %a, %b : " << ct << "\n"
      << "  %ia = arith.bitcast %a : " << ct << " to " << it << "\n"
      << "  %ib = arith.bitcast %b : " << ct << " to " << it << "\n"
      << "  %ie = " << (base == "ixa_fmax" ? "arith.andi" : "arith.ori")
      << " %ia, %ib : " << it << "\n"
      << "  %fe = arith.bitcast %ie : " << it << " to " << ct << "\n"
      << "  %m = select %eq, %fe, %m0 : " << ct << "\n"
      << "  %nb = arith.cmpf uno, %b, %b : " << ct << "\n"
      << "  %m2 = select %nb, %b, %m : " << ct << "\n"
      << "  %na = arith.cmpf uno, %a, %a : " << ct << "\n"
      << "  %r = select %na, %a, %m2 : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_idiv" || base == "ixa_irem") {
    // A divisor that cannot trap, then XLA's results for the special cases.
    head(2);
    bool div = base == "ixa_idiv";
    o << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %one = arith.constant 1 : " << ct << "\n"
      << "  %m1 = arith.constant -1 : " << ct << "\n"
      << "  %bz = arith.cmpi eq, %b, %z : " << ct << "\n";
    if (sgn) {
      o << "  %sh = arith.constant " << bits - 1 << " : " << ct << "\n"
        << "  %min = arith.shli %one, %sh : " << ct << "\n"
        << "  %amin = arith.cmpi eq, %a, %min : " << ct << "\n"
        << "  %bm1 = arith.cmpi eq, %b, %m1 : " << ct << "\n"
        << "  %ovf = arith.andi %amin, %bm1 : i1\n"
        << "  %bad = arith.ori %bz, %ovf : i1\n"
        << "  %safe = select %bad, %one, %b : " << ct << "\n"
        << "  %q = " << (div ? "arith.divsi" : "arith.remsi")
        << " %a, %safe : " << ct << "\n"
        << "  %r1 = select %ovf, " << (div ? "%a" : "%z") << ", %q : " << ct
        << "\n";
    } else {
      o << "  %safe = select %bz, %one, %b : " << ct << "\n"
        << "  %r1 = " << (div ? "arith.divui" : "arith.remui")
        << " %a, %safe : " << ct << "\n";
    }
    o << "  %r = select %bz, " << (div ? "%m1" : "%a") << ", %r1 : " << ct
      << "\n";
    return ret("%r");
  }
  if (base == "ixa_shl" || base == "ixa_shr_logical" ||
      base == "ixa_shr_arith") {
    head(2);
    o << "  %n = arith.constant " << bits << " : " << ct << "\n"
      << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %ok = arith.cmpi ult, %b, %n : " << ct << "\n";
    if (base == "ixa_shr_arith") {
      o << "  %top = arith.constant " << bits - 1 << " : " << ct << "\n"
        << "  %safe = select %ok, %b, %top : " << ct << "\n"
        << "  %r = arith.shrsi %a, %safe : " << ct << "\n";
      return ret("%r");
    }
    o << "  %safe = select %ok, %b, %z : " << ct << "\n"
      << "  %s = " << (base == "ixa_shl" ? "arith.shli" : "arith.shrui")
      << " %a, %safe : " << ct << "\n"
      << "  %r = select %ok, %s, %z : " << ct << "\n";
    return ret("%r");
  }
  if (base == "ixa_ipow") {
    head(2);
    o << "  %c0 = arith.constant 0 : index\n"
      << "  %cn = arith.constant " << bits << " : index\n"
      << "  %c1 = arith.constant 1 : index\n"
      << "  %one = arith.constant 1 : " << ct << "\n"
      << "  %z = arith.constant 0 : " << ct << "\n"
      << "  %l:3 = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %one, "
         "%base = %a, %e = %b) -> ("
      << ct << ", " << ct << ", " << ct << ") {\n"
      << "    %bit = arith.andi %e, %one : " << ct << "\n"
      << "    %odd = arith.cmpi ne, %bit, %z : " << ct << "\n"
      << "    %m = arith.muli %acc, %base : " << ct << "\n"
      << "    %acc2 = select %odd, %m, %acc : " << ct << "\n"
      << "    %base2 = arith.muli %base, %base : " << ct << "\n"
      << "    %e2 = arith.shrui %e, %one : " << ct << "\n"
      << "    scf.yield %acc2, %base2, %e2 : " << ct << ", " << ct << ", " << ct
      << "\n"
      << "  }\n";
    if (!sgn) return ret("%l#0");
    o << "  %m1 = arith.constant -1 : " << ct << "\n"
      << "  %neg = arith.cmpi slt, %b, %z : " << ct << "\n"
      << "  %is1 = arith.cmpi eq, %a, %one : " << ct << "\n"
      << "  %ism1 = arith.cmpi eq, %a, %m1 : " << ct << "\n"
      << "  %bb = arith.andi %b, %one : " << ct << "\n"
      << "  %bodd = arith.cmpi ne, %bb, %z : " << ct << "\n"
      << "  %pm = select %bodd, %m1, %one : " << ct << "\n"
      << "  %v1 = select %ism1, %pm, %z : " << ct << "\n"
      << "  %v2 = select %is1, %one, %v1 : " << ct << "\n"
      << "  %r = select %neg, %v2, %l#0 : " << ct << "\n";
    return ret("%r");
  }
  IXA_CHECK_MSG(false, "unknown MLIR helper " + name);
  return "";
}

std::string DenseLiteral(const Buffer& b, bool flat) {
  std::vector<int64_t> dims = b.shape.dims;
  size_t n = ir::IsFloat(b.type) ? b.float_data.size() : b.int_data.size();
  if (flat || dims.empty())
    dims = {static_cast<int64_t>(std::max<size_t>(n, 1))};
  auto elem = [&](size_t i) -> std::string {
    if (i >= n) return "0";
    if (b.type == Type::kBF16 || b.type == Type::kF16) {
      return std::to_string(
          static_cast<int16_t>(ir::EncodeHalf(b.type, b.float_data[i])));
    }
    if (ir::IsFloat(b.type)) return FloatConst(b.float_data[i], b.type);
    if (b.type == Type::kPred) return b.int_data[i] ? "1" : "0";
    return std::to_string(b.int_data[i]);
  };
  std::function<std::string(size_t, size_t&)> rec = [&](size_t d, size_t& at) {
    std::string s = "[";
    for (int64_t i = 0; i < dims[d]; ++i) {
      s += (i ? ", " : "");
      s += d + 1 == dims.size() ? elem(at++) : rec(d + 1, at);
    }
    return s + "]";
  };
  size_t at = 0;
  return "dense<" + rec(0, at) + ">";
}

}  // namespace ixa::emit::mlir_detail
