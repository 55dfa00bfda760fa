// The program's `main` (docs/compile.md): `prog P0.npy P1.npy ... [-o DIR]`
// reads the entry parameters from .npy files (numpy's format 1.0 to 3.0,
// little-endian, C order), runs the entry point and writes
// DIR/result0.npy, result1.npy, ... (format 1.0).
#include <algorithm>

#include "emit/program/program_internal.h"

namespace ixa::emit::program_internal {
namespace {

using hlo::ElementType;

// What numpy calls a type: the descr written, and the descrs read.
struct NpyType {
  const char* write;
  std::vector<const char*> accept;
};

Result<NpyType> NpyTypeOf(ElementType t) {
  switch (t) {
    case ElementType::kPred:
      return NpyType{"|b1", {"|b1", "|u1"}};
    case ElementType::kS8:
      return NpyType{"|i1", {"|i1"}};
    case ElementType::kS16:
      return NpyType{"<i2", {"<i2"}};
    case ElementType::kS32:
      return NpyType{"<i4", {"<i4"}};
    case ElementType::kS64:
      return NpyType{"<i8", {"<i8"}};
    case ElementType::kU8:
      return NpyType{"|u1", {"|u1"}};
    case ElementType::kU16:
      return NpyType{"<u2", {"<u2"}};
    case ElementType::kU32:
      return NpyType{"<u4", {"<u4"}};
    case ElementType::kU64:
      return NpyType{"<u8", {"<u8"}};
    case ElementType::kF16:
      return NpyType{"<f2", {"<f2"}};
    case ElementType::kF32:
      return NpyType{"<f4", {"<f4"}};
    case ElementType::kF64:
      return NpyType{"<f8", {"<f8"}};
    case ElementType::kC64:
      return NpyType{"<c8", {"<c8"}};
    case ElementType::kC128:
      return NpyType{"<c16", {"<c16"}};
    // No numpy type: their bits. bf16 as ml_dtypes saves it (V2) or as
    // 16-bit patterns (u2); written as u2.
    case ElementType::kBF16:
      return NpyType{"<u2", {"<u2", "<V2", "|V2"}};
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E4M3:
    case ElementType::kF8E3M4:
    case ElementType::kF8E8M0FNU:
      return NpyType{"|u1", {"|u1", "|V1"}};
    default:
      return Error::Unsupported(std::string("no .npy form for ") +
                                hlo::ElementTypeName(t));
  }
}

std::string IntList(const std::vector<int64_t>& v) {
  std::string out;
  for (int64_t x : v)
    out += (out.empty() ? "" : ", ") + std::to_string(x) + "LL";
  return out.empty() ? "0" : out;
}

// `what`: "parameter" or "result", for messages.
Result<std::string> ArrayTable(const std::vector<hlo::Shape>& shapes,
                               const std::string& table,
                               const std::string& what_kind) {
  std::string decls, rows;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const hlo::Shape& s = shapes[i];
    const std::string what = "the .npy main: " + what_kind + " " +
                             std::to_string(i) + " (" + s.ToString(true) + ")";
    Result<NpyType> type = NpyTypeOf(s.type);
    if (!type.ok()) {
      return Error::Unsupported(what + ": " + type.error().message);
    }
    const NpyType& t = *type;
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> strides, DenseStrides(s, what));
    const std::string id = table + std::to_string(i);
    decls += "static const int64_t " + id + "_dims[] = {" + IntList(s.dims) +
             "};\nstatic const int64_t " + id + "_strides[] = {" +
             IntList(strides) + "};\n";
    std::string accept;
    for (const char* a : t.accept)
      accept += std::string(accept.empty() ? "" : " ") + a;
    const int64_t element_bytes = std::max(1, hlo::ElementBits(s.type) / 8);
    rows += "  {\"" + s.ToString(false) + "\", " + std::to_string(s.rank()) +
            ", " + id + "_dims, " + id + "_strides, " +
            std::to_string(element_bytes) + ", \"" + t.write + "\", \"" +
            accept + "\"},\n";
  }
  if (rows.empty()) rows = "  {\"\", 0, nullptr, nullptr, 0, \"\", \"\"},\n";
  return decls + "static const ixap_npy_array " + table + "[] = {\n" + rows +
         "};\n";
}

const char kNpyRuntime[] = R"npy(struct ixap_npy_array {
  const char* type;  // the HLO shape
  int rank;
  const int64_t* dims;
  const int64_t* strides;  // of the physical layout, in elements
  int64_t element_bytes;
  const char* write_descr;
  const char* accept_descr;  // space-separated
};
static int64_t ixap_npy_count(const ixap_npy_array& a) {
  int64_t n = 1;
  for (int d = 0; d < a.rank; ++d) n *= a.dims[d];
  return n;
}
// Moves elements between C order (numpy's) and the physical layout.
static void ixap_npy_permute(const ixap_npy_array& a, const char* src,
                             char* dst, bool to_physical) {
  const int64_t n = ixap_npy_count(a);
  std::vector<int64_t> index(a.rank, 0);
  for (int64_t l = 0; l < n; ++l) {
    int64_t offset = 0;
    for (int d = 0; d < a.rank; ++d) offset += index[d] * a.strides[d];
    const int64_t from = to_physical ? l : offset, to = to_physical ? offset : l;
    std::memcpy(dst + to * a.element_bytes, src + from * a.element_bytes,
                (size_t)a.element_bytes);
    for (int d = a.rank - 1; d >= 0; --d) {
      if (++index[d] < a.dims[d]) break;
      index[d] = 0;
    }
  }
}
static std::string ixap_npy_shape_text(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    s += std::to_string(dims[i]) + (dims.size() == 1 ? "," : i + 1 < dims.size() ? ", " : "");
  }
  return s + ")";
}
// Reads `path` into `data` (physical layout); 0, or the exit code with
// the message printed.
static int ixap_npy_read(const char* path, const ixap_npy_array& a, std::vector<char>* data) {
  FILE* f = std::fopen(path, "rb");
  if (!f) {
    std::fprintf(stderr, "error: cannot read '%s'\n", path);
    return 66;
  }
  std::string bytes;
  char buf[65536];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.append(buf, got);
  std::fclose(f);
  auto bad = [&](const std::string& why) {
    std::fprintf(stderr, "error: '%s': %s\n", path, why.c_str());
    return 65;
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return bad("not a .npy file");
  const int major = (unsigned char)bytes[6];
  size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = (unsigned char)bytes[8] | ((unsigned char)bytes[9] << 8);
    start = 10;
  } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
    for (int k = 3; k >= 0; --k) header_len = header_len * 256 + (unsigned char)bytes[8 + k];
    start = 12;
  } else {
    return bad("unknown .npy version " + std::to_string(major));
  }
  if (bytes.size() < start + header_len) return bad("truncated header");
  const std::string header = bytes.substr(start, header_len);
  auto field = [&](const char* key) -> std::string {
    size_t at = header.find(key);
    if (at == std::string::npos) return "";
    at = header.find(':', at);
    if (at == std::string::npos) return "";
    ++at;
    while (at < header.size() && header[at] == ' ') ++at;
    size_t end = at;
    if (header[at] == '\'') {
      end = header.find('\'', at + 1);
      return end == std::string::npos ? "" : header.substr(at + 1, end - at - 1);
    }
    if (header[at] == '(') {
      end = header.find(')', at);
      return end == std::string::npos ? "" : header.substr(at, end - at + 1);
    }
    while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
    return header.substr(at, end - at);
  };
  const std::string descr = field("'descr'");
  const std::string fortran = field("'fortran_order'");
  const std::string shape_text = field("'shape'");
  std::vector<int64_t> dims;
  for (size_t i = 1; i < shape_text.size();) {
    if (std::isdigit((unsigned char)shape_text[i])) {
      size_t used = 0;
      dims.push_back(std::stoll(shape_text.substr(i), &used));
      i += used;
    } else {
      ++i;
    }
  }
  const std::string accepted = std::string(" ") + a.accept_descr + " ";
  if (descr.empty() || accepted.find(" " + descr + " ") == std::string::npos) {
    return bad("dtype '" + descr + "' does not hold " + a.type + " (expected '" +
               a.write_descr + "')");
  }
  if (fortran != "False") return bad("Fortran order; the program reads C order");
  std::vector<int64_t> want(a.dims, a.dims + a.rank);
  if (shape_text.empty() || dims != want) {
    return bad("shape " + ixap_npy_shape_text(dims) + " is not " + a.type + "'s " +
               ixap_npy_shape_text(want));
  }
  const int64_t need = ixap_npy_count(a) * a.element_bytes;
  if ((int64_t)(bytes.size() - start - header_len) < need) return bad("truncated data");
  data->assign((size_t)need, 0);
  ixap_npy_permute(a, bytes.data() + start + header_len, data->data(), true);
  return 0;
}
static int ixap_npy_write(const std::string& path, const ixap_npy_array& a, const char* physical) {
  std::vector<char> data((size_t)(ixap_npy_count(a) * a.element_bytes));
  ixap_npy_permute(a, physical, data.data(), false);
  std::string header = std::string("{'descr': '") + a.write_descr +
                       "', 'fortran_order': False, 'shape': " +
                       ixap_npy_shape_text(std::vector<int64_t>(a.dims, a.dims + a.rank)) + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += (char)1;
  out += (char)0;
  out += (char)(header.size() & 255);
  out += (char)(header.size() >> 8);
  out += header;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "error: cannot write '%s'\n", path.c_str());
    return 73;
  }
  bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size() &&
            std::fwrite(data.data(), 1, data.size(), f) == data.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "error: cannot write '%s'\n", path.c_str());
    return 73;
  }
  return 0;
}
)npy";

}  // namespace

Result<std::string> NpyMain(const std::vector<hlo::Shape>& parameters,
                            const std::vector<hlo::Shape>& results,
                            const std::string& entry, Target target) {
  Result<std::string> params =
      ArrayTable(parameters, "ixap_npy_params", "parameter");
  Result<std::string> outs = ArrayTable(results, "ixap_npy_results", "result");
  for (const Result<std::string>* table : {&params, &outs}) {
    if (table->ok()) continue;
    if (table->error().code != ErrorCode::kUnsupported) return table->error();
    // An array without a .npy form (a sub-byte type, a tiled layout): the
    // entry point is the program; main says why it cannot run it.
    std::string why;
    for (char c : table->error().message) {
      if (c == '"' || c == '\\') why += '\\';
      why += c;
    }
    return "#ifndef IXA_NO_MAIN\nint main() {\n  std::fputs(\"error: " + why +
           "\\n\", stderr);\n  return 65;\n}\n#endif  // IXA_NO_MAIN\n";
  }
  const bool cuda = target == Target::kCuda;
  const std::string np = std::to_string(parameters.size());
  const std::string nr = std::to_string(results.size());
  std::string m =
      "#ifndef IXA_NO_MAIN\n#include <cctype>\n" + std::string(kNpyRuntime) +
      *params + *outs +
      "int main(int argc, char** argv) {\n"
      "  std::vector<const char*> files;\n"
      "  std::string dir = \".\";\n"
      "  for (int i = 1; i < argc; ++i) {\n"
      "    const std::string arg = argv[i];\n"
      "    if (arg == \"-o\") {\n"
      "      if (++i >= argc) {\n"
      "        std::fprintf(stderr, \"usage: %s P0.npy ... [-o DIR]: -o needs "
      "a directory\\n\", argv[0]);\n"
      "        return 64;\n"
      "      }\n"
      "      dir = argv[i];\n"
      "    } else if (arg == \"-h\" || arg == \"--help\") {\n"
      "      std::printf(\"usage: %s P0.npy ... [-o DIR]\\nreads the " +
      np +
      " entry parameters from .npy files, writes DIR/result0.npy ...\\n\", "
      "argv[0]);\n"
      "      return 0;\n"
      "    } else {\n"
      "      files.push_back(argv[i]);\n"
      "    }\n"
      "  }\n"
      "  if (files.size() != " +
      np +
      ") {\n"
      "    std::fprintf(stderr, \"error: the program takes " +
      np +
      " parameter file(s) (.npy); got %zu\\n\", files.size());\n"
      "    return 65;\n"
      "  }\n"
      "  std::vector<std::vector<char>> host(" +
      np + " + " + nr +
      ");\n"
      "  for (size_t i = 0; i < " +
      np +
      "; ++i) {\n"
      "    if (int e = ixap_npy_read(files[i], ixap_npy_params[i], &host[i])) "
      "return e;\n"
      "  }\n"
      "  for (size_t i = 0; i < " +
      nr +
      "; ++i) {\n"
      "    const ixap_npy_array& a = ixap_npy_results[i];\n"
      "    host[" +
      np +
      " + i].assign((size_t)(ixap_npy_count(a) * a.element_bytes + 64), 0);\n"
      "  }\n"
      "  std::vector<void*> pointers(host.size());\n";
  if (cuda) {
    m += "  for (size_t i = 0; i < host.size(); ++i) {\n"
         "    if (cudaMalloc(&pointers[i], host[i].size() + 1) != cudaSuccess "
         "||\n"
         "        cudaMemcpy(pointers[i], host[i].data(), host[i].size(), "
         "cudaMemcpyHostToDevice) != cudaSuccess) {\n"
         "      std::fprintf(stderr, \"error: cannot allocate device "
         "memory\\n\");\n"
         "      return 70;\n"
         "    }\n"
         "  }\n";
  } else {
    m += "  for (size_t i = 0; i < host.size(); ++i) pointers[i] = "
         "host[i].data();\n";
  }
  m += "  const int rc = " + entry + "(pointers.data(), pointers.data() + " +
       np +
       ");\n"
       "  if (rc != 0) {\n"
       "    std::fprintf(stderr, \"error: " +
       entry +
       " failed (%d)\\n\", rc);\n"
       "    return 70;\n"
       "  }\n";
  if (cuda) {
    m += "  if (cudaDeviceSynchronize() != cudaSuccess) {\n"
         "    std::fprintf(stderr, \"error: %s\\n\", "
         "cudaGetErrorString(cudaGetLastError()));\n"
         "    return 70;\n"
         "  }\n"
         "  for (size_t i = " +
         np +
         "; i < host.size(); ++i) {\n"
         "    cudaMemcpy(host[i].data(), pointers[i], host[i].size(), "
         "cudaMemcpyDeviceToHost);\n"
         "  }\n";
  }
  m += "  for (size_t i = 0; i < " + nr +
       "; ++i) {\n"
       "    const std::string path = dir + \"/result\" + std::to_string(i) + "
       "\".npy\";\n"
       "    if (int e = ixap_npy_write(path, ixap_npy_results[i], host[" +
       np +
       " + i].data())) return e;\n"
       "  }\n"
       "  return 0;\n"
       "}\n"
       "#endif  // IXA_NO_MAIN\n";
  return m;
}

}  // namespace ixa::emit::program_internal
