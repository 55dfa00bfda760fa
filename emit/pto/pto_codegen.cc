#include "emit/pto/pto_codegen.h"

#include <algorithm>
#include <cctype>

#include "core/int_math.h"
#include "core/text.h"
#include "emit/code_writer.h"
#include "emit/pto/recipes.h"

namespace ixa::emit::pto {

namespace {

// Buffers larger than this are refused: every offset the kernel computes
// stays far from int64 overflow.
constexpr int64_t kMaxElements = int64_t{1} << 40;
// A requested tile's rows and cols (any larger one is beyond every UB).
constexpr int64_t kMaxTileDim = 65536;

std::string Int(int64_t v) { return std::to_string(v); }

std::string Dims(const std::vector<int64_t>& dims) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") + Int(dims[i]);
  return out;
}

// The C++ element type PTO-ISA names; types no conversion takes get their
// plain C++ spelling (only used while listing why they are refused).
std::string CppType(const hw::DType& t) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {"u8", "uint8_t"},   {"s8", "int8_t"},   {"u16", "uint16_t"},
      {"s16", "int16_t"},  {"f16", "half"},    {"bf16", "bfloat16_t"},
      {"u32", "uint32_t"}, {"s32", "int32_t"}, {"f32", "float"},
      {"pred", "bool"},    {"s64", "int64_t"}, {"u64", "uint64_t"},
      {"f64", "double"}};
  for (const auto& [name, cpp] : kTypes) {
    if (t.name == name) return cpp;
  }
  return t.name;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Splits `text` at ", " so no comment line passes ~78 columns.
std::vector<std::string> Wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t next = text.find(", ", pos);
    std::string piece = next == std::string::npos
                            ? text.substr(pos)
                            : text.substr(pos, next + 2 - pos);
    pos = next == std::string::npos ? text.size() : next + 2;
    if (!line.empty() && line.size() + piece.size() > width) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      lines.push_back(line);
      line.clear();
    }
    line += piece;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

Error Refuse(const PtoRequest& r, const std::vector<std::string>& failures) {
  std::string message = "cannot generate " + r.conversion + " for " +
                        (r.arch == hw::pto::Arch::kA2A3 ? "a2a3" : "a5") +
                        " legally: ";
  for (size_t i = 0; i < failures.size(); ++i) {
    if (i) message += "; ";
    message += failures[i];
  }
  return Error::Invalid(message);
}

}  // namespace

const std::vector<std::string>& PtoConversions() {
  static const std::vector<std::string> kConversions = {
      "transpose_2d",         "nd_to_nz",        "nz_to_nd",
      "nchw_to_nc1hwc0",      "nc1hwc0_to_nchw", "nc1hwc0_to_fractal_z",
      "ncdhw_to_fractal_z_3d"};
  return kConversions;
}

Result<PtoKernel> GeneratePtoKernel(const PtoRequest& r) {
  const auto& known = PtoConversions();
  if (std::find(known.begin(), known.end(), r.conversion) == known.end()) {
    std::string list;
    for (const std::string& c : known) {
      if (!list.empty()) list += ", ";
      list += c;
    }
    return Error::Invalid("unknown conversion '" + r.conversion + "' (" + list +
                          ")");
  }
  int64_t total = 1;
  for (int64_t d : r.shape) {
    if (d < 1) return Error::Invalid("shape sizes must be >= 1");
    auto p = CheckedMul(total, d);
    if (!p || *p > kMaxElements)
      return Error::Invalid("the source has more than 2^40 elements");
    total = *p;
  }
  if (r.tile && ((*r.tile)[0] < 1 || (*r.tile)[1] < 1 ||
                 (*r.tile)[0] > kMaxTileDim || (*r.tile)[1] > kMaxTileDim)) {
    return Error::Invalid("tile rows and cols must be in [1, 65536]");
  }
  const std::string kernel =
      r.kernel.empty() ? r.conversion + "_" + r.dtype.name : r.kernel;
  if (!IsIdentifier(kernel))
    return Error::Invalid("kernel name '" + kernel + "' is not a C identifier");

  // The element type: sub-byte and wider-than-32-bit types cannot even be
  // tiled; the others are planned, and TTRANS's checks name what is wrong.
  std::vector<std::string> failures;
  const auto bytes = hw::ByteSize(r.dtype);
  const bool known_type = hw::pto::IsTtransElementType(r.dtype);
  if (!bytes || 32 % *bytes != 0) {
    failures = {hw::pto::ElementTypeFailure(r.dtype),
                "element type " + r.dtype.name +
                    " has no 32-byte block of whole elements"};
    return Refuse(r, failures);
  }

  ExprContext ctx;
  Result<hw::pto::Format> format =
      hw::pto::MakeFormat(r.conversion, r.dtype, r.shape, &ctx, r.order);
  if (!format.ok()) {
    if (known_type) return format.error();  // e.g. the wrong rank
    failures = {hw::pto::ElementTypeFailure(r.dtype), format.error().message};
    return Refuse(r, failures);
  }
  // A fractal source with another C0 is no layout the NPU has: refused
  // before any tile is planned around it.
  hw::pto::Check c0 = hw::pto::CheckSourceC0(r.conversion, r.dtype, r.shape);
  if (!c0.valid) {
    if (!known_type) failures.push_back(hw::pto::ElementTypeFailure(r.dtype));
    failures.insert(failures.end(), c0.failures.begin(), c0.failures.end());
    return Refuse(r, failures);
  }
  int64_t dst_total = 1;
  for (int64_t d : format->dst_shape) {
    auto p = CheckedMul(dst_total, d);
    if (!p || *p > kMaxElements)
      return Error::Invalid("the destination has more than 2^40 elements");
    dst_total = *p;
  }

  Geometry g;
  g.arch = r.arch;
  g.dtype = r.dtype;
  g.cpp_type = CppType(r.dtype);
  g.elem = *bytes;
  g.block = 32 / g.elem;
  g.row_stride = hw::pto::TransposeRowStride(g.elem);
  g.conversion = r.conversion;
  g.shape = r.shape;
  g.format = *format;
  BuiltKernel built = BuildKernel(g, r.tile);
  for (const std::string& f : built.check.failures) {
    if (std::find(failures.begin(), failures.end(), f) == failures.end())
      failures.push_back(f);
  }
  if (!failures.empty()) return Refuse(r, failures);

  const KernelBuilder& k = *built.builder;
  const char* arch = r.arch == hw::pto::Arch::kA2A3 ? "A2/A3" : "A5";
  CodeWriter out;
  out.Line("// Generated by ixa emit (target pto): " + r.conversion + " of " +
           r.dtype.name + " for " + arch + ".");
  out.Line("// src " + r.dtype.name + "[" + Dims(r.shape) + "] -> dst " +
           r.dtype.name + "[" + Dims(format->dst_shape) + "]" +
           (format->c0 > 0 ? ", C0 = " + Int(format->c0) : "") +
           (format->c1 > 0 ? ", C1 = " + Int(format->c1) : "") +
           (format->n1 > 0 ? ", N1 = " + Int(format->n1) : "") + ".");
  out.Line(
      "// dst coords -> src index (the `pto` op's format map; where a "
      "constraint");
  out.Line("// fails, the destination element is padding and written as 0):");
  for (const std::string& line : Wrap(PrintIndexingMap(format->map), 74))
    out.Line("//   " + line);
  out.Line("// Tiling: " + built.summary + ".");
  out.Line("// UB: " + Int(k.ub_end()) + " of " +
           Int(hw::pto::UbBytes(r.arch)) +
           " bytes; TTRANS tmp: " + Int(k.tmp_bytes()) + " bytes.");
  out.Line(
      "#include <cstdint>  // before the PTO headers: they use uint8_t "
      "etc. unqualified");
  out.Line("#include <cstddef>");
  out.Line("#include <pto/pto-inst.hpp>");
  out.Line("using namespace pto;");
  out.Line("");
  out.Line("extern \"C\" __global__ AICORE void " + kernel + "(__gm__ " +
           g.cpp_type + "* src, __gm__ " + g.cpp_type + "* dst) {");
  std::string code = out.Take();
  code += built.builder->Declarations();
  const std::string& body = built.builder->body().text();
  if (body.empty() || body[0] != '\n') code += "\n";
  code += body;
  code += "}\n";

  PtoKernel result;
  result.code = std::move(code);
  result.kernel = kernel;
  result.buffers = {PtoBuffer{"src", "input", r.shape},
                    PtoBuffer{"dst", "output", format->dst_shape}};
  result.tiles = k.TileInfos();
  result.tmp_bytes = k.tmp_bytes();
  result.ub_bytes = k.ub_end();
  return result;
}

}  // namespace ixa::emit::pto
