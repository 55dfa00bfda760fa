// The CUDA skeleton of the GEMM emitter (docs/emitters.md "GEMM fusions"):
// one block per block tile of one batch element, A and B tiles staged in
// shared memory in two stages (the next tile's elements are read into
// registers while the current stage feeds the multiply, then stored to the
// other stage: one barrier per k step), edges predicated. bf16 / f16
// operands multiply on tensor cores through WMMA (16x16x16 fragments, f32
// accumulators, staged through shared memory for the epilogue), and f32
// ones where TF32 is asked for (16x16x8 fragments, each element rounded
// to TF32 after its load); other types with FMA on a 4 x 4 micro-tile per
// thread. Operand elements, the
// epilogue and the output offset are the IR functions the C printer
// printed before the kernel.
#include "emit/targets/cuda_gemm.h"

#include <sstream>

#include "emit/code_writer.h"
#include "emit/targets/c_printer_internal.h"

namespace ixa::emit {

int64_t GemmSpec::shared_bytes() const {
  if (tensor_core) {
    // Two stages of A [block_m][block_k + 8] and B [block_n][block_k + 8]
    // (16-bit; f32 for TF32), reused after the loop for the f32 C tile
    // [block_m][block_n + 4].
    const int64_t element = tf32 ? 4 : 2;
    const int64_t stages = 2 * (block_m + block_n) * (block_k + 8) * element;
    const int64_t c_tile = block_m * (block_n + 4) * 4;
    return std::max(stages, c_tile);
  }
  // Two stages of A [block_k][block_m] and B [block_k][block_n] in the
  // accumulator's type.
  const int64_t bytes = ir::TypeBits(out_type) == 64 ? 8 : 4;
  return 2 * block_k * (block_m + block_n) * bytes;
}

namespace {

// The expression storing compute value `v` as an element of type `t`.
std::string GemmStored(ir::Type t, const std::string& v) {
  if (t == ir::Type::kBF16) {
    return "__bfloat16_as_ushort(__float2bfloat16_rn(" + v + "))";
  }
  if (t == ir::Type::kF16)
    return "__half_as_ushort(__float2half_rn(" + v + "))";
  return v;
}

class GemmPrinter {
 public:
  GemmPrinter(const GemmSpec& spec, const ir::Module& module,
              const GemmFunctions& fns)
      : s_(spec), m_(module), f_(fns) {
    for (int b : m_.InputBuffers()) {
      inputs_ += (inputs_.empty() ? "" : ", ") + m_.buffers[b].name;
    }
    for (int b : m_.ArgumentBuffers()) {
      if (m_.buffers[b].is_output) out_ = m_.buffers[b].name;
    }
  }

  std::string Kernel(const std::string& name) {
    CodeWriter w;
    std::string params;
    for (int b : m_.ArgumentBuffers()) {
      const ir::Buffer& buf = m_.buffers[b];
      params += (params.empty() ? "" : ", ") +
                std::string(buf.is_output ? "" : "const ") +
                c_printer::StorageType(buf.type) + "* __restrict__ " + buf.name;
    }
    w.Open("extern \"C\" __global__ void __launch_bounds__(" +
           std::to_string(s_.threads()) + ", 1) " + name + "(" + params +
           ") {");
    Constants(w);
    if (s_.tensor_core) {
      TensorCoreBody(w);
    } else {
      FmaBody(w);
    }
    w.Close("}");
    return w.Take();
  }

 private:
  void Constants(CodeWriter& w) {
    auto c = [&](const std::string& n, int64_t v) {
      w.Line("constexpr int " + n + " = " + std::to_string(v) + ";");
    };
    c("kM", s_.m);
    c("kN", s_.n);
    c("kK", s_.k);
    c("kBlockM", s_.block_m);
    c("kBlockN", s_.block_n);
    c("kBlockK", s_.block_k);
    c("kThreads", s_.threads());
    w.Line("constexpr int kTilesK = (kK + kBlockK - 1) / kBlockK;");
    w.Line("constexpr int kLoadsA = kBlockM * kBlockK / kThreads;");
    w.Line("constexpr int kLoadsB = kBlockN * kBlockK / kThreads;");
    w.Line("__shared__ __attribute__((aligned(128))) unsigned char smem[" +
           std::to_string(s_.shared_bytes()) + "];");
    w.Line("const int tid = threadIdx.x;");
    w.Line("const int batch = blockIdx.z;");
    w.Line("const int m0 = blockIdx.y * kBlockM;");
    w.Line("const int n0 = blockIdx.x * kBlockN;");
  }

  // The tile coordinates of load r: consecutive threads take consecutive
  // elements along the operand's most minor dim (k or m / n).
  void AIndex(CodeWriter& w) {
    w.Line("const int e = tid + r * kThreads;");
    if (s_.lhs_k_minor) {
      w.Line("const int mm = e / kBlockK, kk = e % kBlockK;");
    } else {
      w.Line("const int kk = e / kBlockM, mm = e % kBlockM;");
    }
  }
  void BIndex(CodeWriter& w) {
    w.Line("const int e = tid + r * kThreads;");
    if (s_.rhs_k_minor) {
      w.Line("const int nn = e / kBlockK, kk = e % kBlockK;");
    } else {
      w.Line("const int kk = e / kBlockN, nn = e % kBlockN;");
    }
  }
  void StoreTiles(CodeWriter& w, const std::string& stage,
                  const std::string& a_at, const std::string& b_at,
                  const std::string& convert) {
    w.Open("for (int r = 0; r < kLoadsA; ++r) {");
    AIndex(w);
    w.Line("a_tile[" + stage + "]" + a_at + " = " + convert + "(a_next[r]);");
    w.Close("}");
    w.Open("for (int r = 0; r < kLoadsB; ++r) {");
    BIndex(w);
    w.Line("b_tile[" + stage + "]" + b_at + " = " + convert + "(b_next[r]);");
    w.Close("}");
  }
  std::string StoreOutput(const std::string& acc) {
    return out_ + "[" + f_.offset + "(batch, gm, gn)] = " +
           GemmStored(s_.root_type, f_.epilogue + "(" + inputs_ +
                                        ", batch, gm, gn, " + acc + ")") +
           ";";
  }

  void TensorCoreBody(CodeWriter& w) {
    const std::string wmma = "nvcuda::wmma::";
    // TF32: f32 tiles, fragments of wmma::precision::tf32 (16x16x8).
    const std::string t = s_.tf32                          ? "float"
                          : s_.lhs_type == ir::Type::kBF16 ? "__nv_bfloat16"
                                                           : "__half";
    const std::string to_t = s_.tf32 ? ""
                             : s_.lhs_type == ir::Type::kBF16
                                 ? "__float2bfloat16_rn"
                                 : "__float2half_rn";
    const std::string frag_t = s_.tf32 ? wmma + "precision::tf32" : t;
    const std::string shape = s_.tf32 ? "16, 16, 8, " : "16, 16, 16, ";
    const std::string step = s_.tf32 ? "8" : "16";
    w.Line("// A [stage][m][k] and B [stage][n][k], k padded by 8 elements");
    w.Line("// (rows spread over the banks); after the loop the f32 C tile");
    w.Line("// [m][n + 4] reuses the memory.");
    w.Line("constexpr int kPadK = kBlockK + 8, kPadN = kBlockN + 4;");
    w.Line(t + " (*a_tile)[kBlockM][kPadK] = reinterpret_cast<" + t +
           " (*)[kBlockM][kPadK]>(smem);");
    w.Line(t + " (*b_tile)[kBlockN][kPadK] = reinterpret_cast<" + t +
           " (*)[kBlockN][kPadK]>(smem + 2 * kBlockM * kPadK * sizeof(" + t +
           "));");
    w.Line(
        "float (*c_tile)[kPadN] = reinterpret_cast<float (*)[kPadN]>(smem);");
    w.Line("const int warp_m = (tid / 32) / " + std::to_string(s_.warps_n) +
           ", warp_n = (tid / 32) % " + std::to_string(s_.warps_n) + ";");
    w.Line("float a_next[kLoadsA], b_next[kLoadsB];");
    w.Line(wmma + "fragment<" + wmma + "accumulator, " + shape +
           "float> acc[2][2];");
    w.Line("for (int i = 0; i < 2; ++i)");
    w.Line("  for (int j = 0; j < 2; ++j) " + wmma +
           "fill_fragment(acc[i][j], 0.0f);");
    const std::string a_at = "[mm][kk]", b_at = "[nn][kk]";
    LoadTilesWith(w, "0", "0.0f", "", "");
    StoreTiles(w, "0", a_at, b_at, to_t);
    w.Line("__syncthreads();");
    w.Open("for (int kt = 0; kt < kTilesK; ++kt) {");
    w.Line("const int cur = kt & 1;");
    w.Line("// The next tile's global loads are in flight during the MMAs.");
    w.Open("if (kt + 1 < kTilesK) {");
    LoadTilesWith(w, "kt + 1", "0.0f", "", "");
    w.Close("}");
    w.Line("#pragma unroll");
    w.Open("for (int kk = 0; kk < kBlockK; kk += " + step + ") {");
    w.Line(wmma + "fragment<" + wmma + "matrix_a, " + shape + frag_t + ", " +
           wmma + "row_major> a_frag[2];");
    w.Line(wmma + "fragment<" + wmma + "matrix_b, " + shape + frag_t + ", " +
           wmma + "col_major> b_frag[2];");
    w.Open("for (int i = 0; i < 2; ++i) {");
    w.Line(
        wmma +
        "load_matrix_sync(a_frag[i], &a_tile[cur][warp_m * 32 + i * 16][kk], "
        "kPadK);");
    w.Line(
        wmma +
        "load_matrix_sync(b_frag[i], &b_tile[cur][warp_n * 32 + i * 16][kk], "
        "kPadK);");
    if (s_.tf32) {
      // The tensor cores read a TF32 operand's top 19 bits: round first
      // (to nearest, as cuBLAS does), not truncate.
      w.Line("for (int e = 0; e < a_frag[i].num_elements; ++e)");
      w.Line("  a_frag[i].x[e] = " + wmma + "__float_to_tf32(a_frag[i].x[e]);");
      w.Line("for (int e = 0; e < b_frag[i].num_elements; ++e)");
      w.Line("  b_frag[i].x[e] = " + wmma + "__float_to_tf32(b_frag[i].x[e]);");
    }
    w.Close("}");
    w.Line("for (int i = 0; i < 2; ++i)");
    w.Line("  for (int j = 0; j < 2; ++j)");
    w.Line("    " + wmma +
           "mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);");
    w.Close("}");
    w.Open("if (kt + 1 < kTilesK) {");
    StoreTiles(w, "cur ^ 1", a_at, b_at, to_t);
    w.Close("}");
    w.Line("__syncthreads();");
    w.Close("}");
    w.Line("for (int i = 0; i < 2; ++i)");
    w.Line("  for (int j = 0; j < 2; ++j)");
    w.Line("    " + wmma +
           "store_matrix_sync(&c_tile[warp_m * 32 + i * 16][warp_n * 32 + j * "
           "16], acc[i][j], kPadN, " +
           wmma + "mem_row_major);");
    w.Line("__syncthreads();");
    w.Line(
        "// The epilogue along n: consecutive threads, consecutive columns.");
    w.Open("for (int e = tid; e < kBlockM * kBlockN; e += kThreads) {");
    w.Line("const int mm = e / kBlockN, nn = e % kBlockN;");
    w.Line("const int gm = m0 + mm, gn = n0 + nn;");
    w.Line("if (gm < kM && gn < kN) " + StoreOutput("c_tile[mm][nn]"));
    w.Close("}");
  }

  void FmaBody(CodeWriter& w) {
    const bool is_int = !ir::IsFloat(s_.out_type);
    // The accumulator: floats in f32 (f64 for f64), integers unsigned
    // (wrapping as XLA's integer dot does).
    const std::string acc =
        is_int ? c_printer::UnsignedWide(s_.out_type)
               : (s_.out_type == ir::Type::kF64 ? "double" : "float");
    const std::string out_c = c_printer::ComputeType(s_.out_type);
    w.Line("// A [stage][k][m] and B [stage][k][n]; thread (tx, ty) computes");
    w.Line("// rows ty + 16 i and columns tx + 16 j (i, j < 4).");
    w.Line("using Acc = " + acc + ";");
    w.Line(
        "Acc (*a_tile)[kBlockK][kBlockM] = reinterpret_cast<Acc "
        "(*)[kBlockK][kBlockM]>(smem);");
    w.Line(
        "Acc (*b_tile)[kBlockK][kBlockN] = reinterpret_cast<Acc "
        "(*)[kBlockK][kBlockN]>(smem + 2 * kBlockK * kBlockM * "
        "sizeof(Acc));");
    w.Line("const int tx = tid % 16, ty = tid / 16;");
    w.Line("Acc a_next[kLoadsA], b_next[kLoadsB];");
    w.Line("Acc acc[4][4];");
    w.Line("for (int i = 0; i < 4; ++i)");
    w.Line("  for (int j = 0; j < 4; ++j) acc[i][j] = 0;");
    const std::string to_acc =
        is_int ? "static_cast<Acc>(static_cast<" + out_c + ">"
               : "static_cast<Acc>";
    // An integer operand converts to the dot's type, then to the
    // accumulator: `pre(f(...))post`.
    const std::string close = is_int ? ")" : "";
    LoadTilesWith(w, "0", "Acc(0)", to_acc, close);
    StoreTiles(w, "0", "[kk][mm]", "[kk][nn]", "");
    w.Line("__syncthreads();");
    w.Open("for (int kt = 0; kt < kTilesK; ++kt) {");
    w.Line("const int cur = kt & 1;");
    w.Open("if (kt + 1 < kTilesK) {");
    LoadTilesWith(w, "kt + 1", "Acc(0)", to_acc, close);
    w.Close("}");
    w.Line("#pragma unroll");
    w.Open("for (int kk = 0; kk < kBlockK; ++kk) {");
    w.Line("Acc a[4], b[4];");
    w.Line("for (int i = 0; i < 4; ++i) a[i] = a_tile[cur][kk][ty + 16 * i];");
    w.Line("for (int j = 0; j < 4; ++j) b[j] = b_tile[cur][kk][tx + 16 * j];");
    w.Line("for (int i = 0; i < 4; ++i)");
    w.Line("  for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];");
    w.Close("}");
    w.Open("if (kt + 1 < kTilesK) {");
    StoreTiles(w, "cur ^ 1", "[kk][mm]", "[kk][nn]", "");
    w.Close("}");
    w.Line("__syncthreads();");
    w.Close("}");
    w.Open("for (int i = 0; i < 4; ++i) {");
    w.Open("for (int j = 0; j < 4; ++j) {");
    w.Line("const int gm = m0 + ty + 16 * i, gn = n0 + tx + 16 * j;");
    const std::string value =
        is_int ? "static_cast<" + out_c + ">(acc[i][j])" : "acc[i][j]";
    w.Line("if (gm < kM && gn < kN) " + StoreOutput(value));
    w.Close("}");
    w.Close("}");
  }
  // Reads the elements of k tile `kt` this thread loads into `a_next` and
  // `b_next` (`zero` outside the operands), converted as `pre(x)post`.
  void LoadTilesWith(CodeWriter& w, const std::string& kt,
                     const std::string& zero, const std::string& pre,
                     const std::string& post) {
    w.Open("for (int r = 0; r < kLoadsA; ++r) {");
    AIndex(w);
    w.Line("const int gm = m0 + mm, gk = (" + kt + ") * kBlockK + kk;");
    w.Line("a_next[r] = gm < kM && gk < kK ? " + pre + "(" + f_.lhs + "(" +
           inputs_ + ", batch, gm, gk))" + post + " : " + zero + ";");
    w.Close("}");
    w.Open("for (int r = 0; r < kLoadsB; ++r) {");
    BIndex(w);
    w.Line("const int gn = n0 + nn, gk = (" + kt + ") * kBlockK + kk;");
    w.Line("b_next[r] = gn < kN && gk < kK ? " + pre + "(" + f_.rhs + "(" +
           inputs_ + ", batch, gk, gn))" + post + " : " + zero + ";");
    w.Close("}");
  }

  const GemmSpec& s_;
  const ir::Module& m_;
  const GemmFunctions& f_;
  std::string inputs_, out_;
};

}  // namespace

Result<std::string> PrintCudaGemm(const GemmSpec& spec,
                                  const ir::Module& module,
                                  const GemmFunctions& functions,
                                  const std::string& functions_code,
                                  const std::string& kernel_name) {
  GemmPrinter printer(spec, module, functions);
  std::string includes;
  if (spec.tensor_core) includes += "#include <mma.h>\n";
  includes += "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n\n";
  return functions_code + includes + printer.Kernel(kernel_name);
}

}  // namespace ixa::emit
