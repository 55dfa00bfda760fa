// What the `cuda` target's kernels cost the GPU before they run, from
// nvcc's PTX and ptxas (sm_90): PTX instructions per element of the
// kernel body, registers per thread and spill bytes, for a bf16 GELU, the
// 021 and 102 transposes (f32), a bf16 row reduction and an f32
// scatter-add; then the instruction mix of a bf16 GEMM (the GEMM emitter,
// docs/emitters.md "GEMM fusions"). Skipped, saying so, without nvcc
// (PATH, /usr/local/cuda/bin, /opt/cuda/bin).
//
// "Per element": the kernel's static PTX instructions over the elements
// one pass of its body handles: the lanes it writes to global memory
// (stores, reductions, atomics), for a reduction the lanes it reads (a
// 16-bit pair loaded as one 32-bit word is two elements).
//
//   build/bin/bench_ptx [--ptx DIR]   (DIR: also write each kernel's PTX)
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Executable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

std::string FindNvcc() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');) {
      if (!d.empty() && Executable(d + "/nvcc")) return d + "/nvcc";
    }
  }
  for (const char* d : {"/usr/local/cuda/bin", "/opt/cuda/bin"}) {
    if (Executable(std::string(d) + "/nvcc")) return std::string(d) + "/nvcc";
  }
  return "";
}

// Runs `command` (stderr with stdout); its output, and whether it succeeded.
bool Run(const std::string& command, std::string* output) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return false;
  char buffer[4096];
  output->clear();
  for (size_t n; (n = fread(buffer, 1, sizeof(buffer), p)) > 0;) {
    output->append(buffer, n);
  }
  return pclose(p) == 0;
}

enum class CountBy { kWrites, kReads };

struct Fusion {
  std::string name;
  std::string hlo;
  int element_bits;
  CountBy count_by;
};

std::string Reducer(const std::string& type) {
  return "add {\n a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT s = " + type + "[] add(a, b)\n}\n";
}

std::vector<Fusion> Fusions() {
  return {
      {"gelu_bf16",
       ReadFile(std::string(IXA_SOURCE_DIR) + "/tests/emit/data/gelu.hlo"), 16,
       CountBy::kWrites},
      {"transpose_021_f32",
       "p = f32[64,256,512] parameter(0)\n"
       "ROOT t = f32[64,512,256] transpose(p), dimensions={0,2,1}\n",
       32, CountBy::kWrites},
      {"transpose_102_f32",
       "p = f32[256,128,64] parameter(0)\n"
       "ROOT t = f32[128,256,64] transpose(p), dimensions={1,0,2}\n",
       32, CountBy::kWrites},
      {"row_reduce_bf16",
       Reducer("bf16") +
           "ENTRY e {\n p = bf16[1024,4096] parameter(0)\n"
           " c = bf16[] constant(0)\n"
           " ROOT r = bf16[1024] reduce(p, c), dimensions={1}, to_apply=add\n"
           "}\n",
       16, CountBy::kReads},
      {"scatter_add_f32",
       Reducer("f32") +
           "ENTRY e {\n p = f32[1000,64] parameter(0)\n"
           " i = s32[4096,1] parameter(1)\n u = f32[4096,64] parameter(2)\n"
           " ROOT s = f32[1000,64] scatter(p, i, u), update_window_dims={1}, "
           "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
           "index_vector_dim=1, to_apply=add\n}\n",
       32, CountBy::kWrites},
  };
}

// The instructions of the PTX's kernel (labels, directives, braces and
// comments left out; the inline assembly of cuda_fp16.h comes in braces).
std::vector<std::string> KernelInstructions(const std::string& ptx) {
  std::vector<std::string> out;
  size_t entry = ptx.find(".entry");
  if (entry == std::string::npos) return out;
  std::stringstream in(ptx.substr(ptx.find('{', entry)));
  for (std::string line; std::getline(in, line);) {
    size_t start = line.find_first_not_of(" \t{");
    if (start == std::string::npos) continue;
    std::string s = line.substr(start);
    while (!s.empty() && (s.back() == '}' || s.back() == ' ')) s.pop_back();
    if (s.empty() || s[0] == '.' || s[0] == '/' || s[0] == '$' || s[0] == '(' ||
        s[0] == ')' || s.back() == ':') {
      continue;
    }
    out.push_back(s);
  }
  return out;
}

// Elements of `element_bits` an access instruction moves: its vector
// width times its type's bits, over the element's.
int AccessElements(const std::string& opcode, int element_bits) {
  static const std::regex kVector(R"(\.v(\d))");
  static const std::regex kType(R"(\.[bufs](8|16|32|64)\b)");
  std::smatch m;
  int lanes = std::regex_search(opcode, m, kVector) ? std::stoi(m[1]) : 1;
  int bits = element_bits;
  if (std::regex_search(opcode, m, kType)) bits = std::stoi(m[1]);
  return std::max(1, lanes * bits / element_bits);
}

int BodyElements(const std::vector<std::string>& instructions,
                 const Fusion& f) {
  int n = 0;
  for (const std::string& s : instructions) {
    // Skip a predicate guard (`@%p1 st.global...`).
    std::string op = s[0] == '@' ? s.substr(s.find(' ') + 1) : s;
    op = op.substr(0, op.find_first_of(" \t"));
    const bool write = op.rfind("st.global", 0) == 0 ||
                       op.rfind("red.global", 0) == 0 ||
                       op.rfind("atom.global", 0) == 0;
    const bool read = op.rfind("ld.global", 0) == 0;
    if ((f.count_by == CountBy::kWrites && write) ||
        (f.count_by == CountBy::kReads && read)) {
      n += AccessElements(op, f.element_bits);
    }
  }
  return n;
}

struct PtxasInfo {
  int registers = -1;
  int spill_stores = -1, spill_loads = -1;
};

// The GEMM's instruction mix: static counts of the kernel's tensor-core
// MMAs, shared-memory loads (ld.shared and wmma.load), shared stores and
// global loads, and the MMAs per output element and k step of 16: the
// block's warps issue the main loop's MMAs once per k tile, which covers
// block_m x block_n outputs and block_k / 16 steps (1/256 is one 16x16x16
// MMA per 256 outputs, nothing repeated).
struct GemmMix {
  int mma = 0, shared_loads = 0, shared_stores = 0, global_loads = 0;
};

GemmMix CountGemmMix(const std::vector<std::string>& instructions) {
  GemmMix mix;
  for (const std::string& s : instructions) {
    std::string op = s[0] == '@' ? s.substr(s.find(' ') + 1) : s;
    op = op.substr(0, op.find_first_of(" \t"));
    if (op.rfind("wmma.mma", 0) == 0 || op.rfind("mma.sync", 0) == 0) {
      ++mix.mma;
    } else if (op.rfind("ld.shared", 0) == 0 || op.rfind("wmma.load", 0) == 0 ||
               op.rfind("ldmatrix", 0) == 0) {
      ++mix.shared_loads;
    } else if (op.rfind("st.shared", 0) == 0 ||
               op.rfind("wmma.store", 0) == 0) {
      ++mix.shared_stores;
    } else if (op.rfind("ld.global", 0) == 0) {
      ++mix.global_loads;
    }
  }
  return mix;
}

PtxasInfo ParsePtxas(const std::string& text) {
  PtxasInfo info;
  std::smatch m;
  if (std::regex_search(text, m, std::regex(R"(Used (\d+) registers)"))) {
    info.registers = std::stoi(m[1]);
  }
  if (std::regex_search(
          text, m,
          std::regex(R"((\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
    info.spill_stores = std::stoi(m[1]);
    info.spill_loads = std::stoi(m[2]);
  }
  return info;
}

}  // namespace

int main(int argc, char** argv) {
  std::string keep_ptx;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--ptx") keep_ptx = argv[i + 1];
  }
  const std::string nvcc = FindNvcc();
  if (nvcc.empty()) {
    std::printf(
        "bench_ptx: nvcc not found (PATH, /usr/local/cuda/bin, "
        "/opt/cuda/bin): nothing measured\n");
    return 0;
  }
  char dir_template[] = "/tmp/ixa_bench_ptx_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) {
    std::perror("bench_ptx: mkdtemp");
    return 1;
  }
  std::printf("%-20s %8s %6s %10s %6s %7s\n", "fusion", "instrs", "elems",
              "instr/elem", "regs", "spill");
  int failures = 0;
  for (const Fusion& f : Fusions()) {
    auto module = ixa::hlo::ParseHloModule(f.hlo);
    if (!module.ok()) {
      std::printf("%-20s parse: %s\n", f.name.c_str(),
                  module.error().ToString().c_str());
      ++failures;
      continue;
    }
    auto region = ixa::ResolveFusion(**module, "");
    if (!region.ok()) {
      std::printf("%-20s fusion: %s\n", f.name.c_str(),
                  region.error().ToString().c_str());
      ++failures;
      continue;
    }
    ixa::ExprContext ctx;
    ixa::emit::EmitOptions options;
    options.target = ixa::emit::Target::kCuda;
    auto emitted = ixa::emit::EmitFusion(*region, *ixa::hw::FindDevice("h100"),
                                         options, &ctx);
    if (!emitted.ok()) {
      std::printf("%-20s emit: %s\n", f.name.c_str(),
                  emitted.error().ToString().c_str());
      ++failures;
      continue;
    }
    const std::string base = std::string(dir) + "/" + f.name;
    std::ofstream(base + ".cu") << emitted->code;
    std::string out;
    if (!Run(nvcc + " -std=c++17 -arch=sm_90 -ptx -o " + base + ".ptx " + base +
                 ".cu",
             &out)) {
      std::printf("%-20s nvcc -ptx failed:\n%s\n", f.name.c_str(), out.c_str());
      ++failures;
      continue;
    }
    const std::string ptx = ReadFile(base + ".ptx");
    if (!keep_ptx.empty()) {
      mkdir(keep_ptx.c_str(), 0755);
      std::ofstream(keep_ptx + "/" + f.name + ".ptx") << ptx;
    }
    std::string ptxas;
    if (!Run(nvcc + " -std=c++17 -arch=sm_90 -cubin -Xptxas -v -o " + base +
                 ".cubin " + base + ".cu",
             &ptxas)) {
      std::printf("%-20s ptxas failed:\n%s\n", f.name.c_str(), ptxas.c_str());
      ++failures;
      continue;
    }
    std::vector<std::string> instructions = KernelInstructions(ptx);
    const int elements = BodyElements(instructions, f);
    PtxasInfo info = ParsePtxas(ptxas);
    std::printf(
        "%-20s %8zu %6d %10.1f %6d %3d/%-3d\n", f.name.c_str(),
        instructions.size(), elements,
        elements ? static_cast<double>(instructions.size()) / elements : 0.0,
        info.registers, info.spill_stores, info.spill_loads);
  }
  // The GEMM row: bf16[8,512,1024] . bf16[8,1024,768] -> f32, + bias, ReLU.
  const std::string gemm_hlo =
      "p0 = bf16[8,512,1024] parameter(0)\n"
      "p1 = bf16[8,1024,768] parameter(1)\n"
      "d = f32[8,512,768] dot(p0, p1), lhs_batch_dims={0}, "
      "rhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_contracting_dims={1}\n"
      "p2 = f32[768] parameter(2)\n"
      "bb = f32[8,512,768] broadcast(p2), dimensions={2}\n"
      "s = f32[8,512,768] add(d, bb)\n"
      "z = f32[] constant(0)\n"
      "zb = f32[8,512,768] broadcast(z), dimensions={}\n"
      "ROOT r = f32[8,512,768] maximum(s, zb)\n";
  auto gemm_module = ixa::hlo::ParseHloModule(gemm_hlo);
  auto gemm_region = gemm_module.ok()
                         ? ixa::ResolveFusion(**gemm_module, "")
                         : ixa::Result<ixa::FusionRegion>(gemm_module.error());
  ixa::ExprContext gemm_ctx;
  ixa::emit::EmitOptions gemm_options;
  gemm_options.target = ixa::emit::Target::kCuda;
  auto gemm =
      gemm_region.ok()
          ? ixa::emit::EmitFusion(*gemm_region, *ixa::hw::FindDevice("h100"),
                                  gemm_options, &gemm_ctx)
          : ixa::Result<ixa::emit::EmitResult>(gemm_region.error());
  std::smatch tile;
  const std::regex kTile(R"(tile (\d+) x (\d+) x (\d+))");
  std::string ptx, ptxas, out;
  const std::string base = std::string(dir) + "/gemm_bf16";
  if (!gemm.ok()) {
    std::printf("gemm_bf16 emit: %s\n", gemm.error().ToString().c_str());
    ++failures;
  } else if (!std::regex_search(gemm->code, tile, kTile)) {
    std::printf("gemm_bf16: the code names no tile\n");
    ++failures;
  } else if (!(std::ofstream(base + ".cu") << gemm->code) ||
             !Run(nvcc + " -std=c++17 -arch=sm_90 -ptx -o " + base + ".ptx " +
                      base + ".cu",
                  &out) ||
             !Run(nvcc + " -std=c++17 -arch=sm_90 -cubin -Xptxas -v -o " +
                      base + ".cubin " + base + ".cu",
                  &ptxas)) {
    std::printf("gemm_bf16 nvcc failed:\n%s%s\n", out.c_str(), ptxas.c_str());
    ++failures;
  } else {
    ptx = ReadFile(base + ".ptx");
    if (!keep_ptx.empty()) {
      mkdir(keep_ptx.c_str(), 0755);
      std::ofstream(keep_ptx + "/gemm_bf16.ptx") << ptx;
    }
    const std::vector<std::string> instructions = KernelInstructions(ptx);
    const GemmMix mix = CountGemmMix(instructions);
    const PtxasInfo info = ParsePtxas(ptxas);
    const double block_m = std::stod(tile[1]), block_n = std::stod(tile[2]),
                 block_k = std::stod(tile[3]);
    const double warps = gemm->plan.launch.threads_per_block() / 32.0;
    std::printf("\n%-20s %8s %6s %12s %8s %8s %8s %6s %7s\n", "gemm", "instrs",
                "mma", "mma/elem/k16", "ld.shrd", "st.shrd", "ld.glob", "regs",
                "spill");
    std::printf("%-20s %8zu %6d %12.5f %8d %8d %8d %6d %3d/%-3d\n", "gemm_bf16",
                instructions.size(), mix.mma,
                mix.mma * warps / (block_m * block_n * (block_k / 16)),
                mix.shared_loads, mix.shared_stores, mix.global_loads,
                info.registers, info.spill_stores, info.spill_loads);
  }
  std::string ignored;
  Run("rm -rf " + std::string(dir), &ignored);
  return failures ? 1 : 0;
}
