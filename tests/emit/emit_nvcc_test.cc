// The `cuda` code through nvcc, when it is installed (the CTest test
// emit_nvcc is skipped otherwise, never passed): fusions that once made
// nvcc grow without end compile within one fusion's bounds (60 s, 2 GB per
// process), and the PTX of a bf16 GELU and of row reductions is what the
// hardware runs well: the f16/bf16 conversions are the hardware's (no
// integer rounding routine), few instructions per element, and reduction
// partials are shuffled as floats (no truncating cvt.rzi); a scatter-add
// is a hardware reduction, not a compare-and-swap loop, and a scatter with
// unique indices has no atomic.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "analysis/emitters/shared_tiles.h"
#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_many_outputs.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

// CTest's SKIP_RETURN_CODE for this test: without nvcc nothing is checked,
// and the run says so rather than passing.
constexpr int kSkipped = 77;

std::string Nvcc() {
  auto nvcc = FindNvcc();
  if (!nvcc) {
    std::cout << "nvcc not found (PATH, /usr/local/cuda/bin, /opt/cuda/bin): "
                 "the nvcc checks are skipped\n";
    std::exit(kSkipped);
  }
  return *nvcc;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

emit::EmitResult EmitCuda(const std::string& hlo, bool tf32 = false) {
  auto module = hlo::ParseHloModule(hlo);
  INFO((module.ok() ? "" : module.error().ToString()));
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = emit::Target::kCuda;
  options.tf32 = tf32;
  auto emitted =
      emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  INFO((emitted.ok() ? "" : emitted.error().ToString()));
  REQUIRE(emitted.ok());
  return *emitted;
}

// The instructions of the PTX's kernel (labels, directives, braces and
// comments left out).
std::vector<std::string> KernelInstructions(const std::string& ptx) {
  std::vector<std::string> out;
  size_t entry = ptx.find(".entry");
  if (entry == std::string::npos) return out;
  std::stringstream in(ptx.substr(ptx.find('{', entry)));
  for (std::string line; std::getline(in, line);) {
    // Inline assembly (the cuda_fp16.h / cuda_bf16.h conversions) comes in
    // braces: `{  cvt.rn.bf16.f32 %rs1, %f2;}`.
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

int Count(const std::vector<std::string>& instructions, const std::string& op) {
  int n = 0;
  for (const std::string& s : instructions) {
    n += s.find(op) != std::string::npos;
  }
  return n;
}

TEST_CASE("nvcc: many-output loop fusions compile within one fusion's bounds",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  std::vector<std::string> labels, units;
  for (const char* type : {"f32", "bf16"}) {
    labels.push_back(std::string("diamond_") + type);
    units.push_back(EmitCuda(ManyOutputsDiamond(23, type)).code);
    labels.push_back(std::string("chain_") + type);
    units.push_back(EmitCuda(ManyOutputsChain(46, type)).code);
  }
  std::vector<std::string> errors = CompileCuda(nvcc, units);
  for (size_t i = 0; i < units.size(); ++i) {
    INFO(labels[i] << " (" << units[i].size() << " bytes of CUDA)");
    CHECK(errors[i] == "");
  }
}

TEST_CASE("nvcc: the worked examples compile for sm_80 and sm_90",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  std::vector<std::string> units = {
      EmitCuda(
          ReadFile(std::string(IXA_SOURCE_DIR) + "/tests/emit/data/gelu.hlo"))
          .code,
      EmitCuda("p = f32[20,160,170] parameter(0)\n"
               "e = f32[20,160,170] exponential(p)\n"
               "t = f32[170,160,20] transpose(e), dimensions={2,1,0}\n"
               "ROOT a = f32[170,160,20] abs(t)\n")
          .code,
      // Complex values: the structs, their helpers and split shuffles.
      EmitCuda("red { a = c64[] parameter(0)\nb = c64[] parameter(1)\n"
               "ROOT s = c64[] add(a, b) }\n"
               "ENTRY e { p = c64[64,512] parameter(0)\n"
               "q = c64[64,512] parameter(1)\n"
               "m = c64[64,512] multiply(p, q)\n"
               "d = c64[64,512] divide(m, q)\n"
               "t = c64[64,512] tanh(d)\n"
               "z = c64[] constant((0, 0))\n"
               "ROOT r = c64[64] reduce(t, z), dimensions={1}, "
               "to_apply=red }\n")
          .code};
  for (const char* arch : {"sm_80", "sm_90"}) {
    NvccOptions options;
    options.arch = arch;
    std::vector<std::string> errors = CompileCuda(nvcc, units, options);
    for (size_t i = 0; i < units.size(); ++i) {
      INFO(arch << ", example " << i);
      CHECK(errors[i] == "");
    }
  }
}

std::string RowReduction(const std::string& type) {
  return "add {\n a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT s = " + type +
         "[] add(a, b)\n}\n"
         "ENTRY e {\n p = " +
         type + "[1024,4096] parameter(0)\n c = " + type +
         "[] constant(0)\n ROOT r = " + type +
         "[1024] reduce(p, c), dimensions={1}, to_apply=add\n}\n";
}

TEST_CASE("PTX: the bf16 GELU converts with the hardware, in few instructions",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  emit::EmitResult gelu = EmitCuda(
      ReadFile(std::string(IXA_SOURCE_DIR) + "/tests/emit/data/gelu.hlo"));
  // No integer rounding routine in the code.
  CHECK(gelu.code.find("ixa_round_bf16") == std::string::npos);
  CHECK(gelu.code.find("ixa_f32_to_bf16") == std::string::npos);
  auto ptx = CudaToPtx(nvcc, gelu.code);
  INFO((ptx.ok() ? "" : ptx.error().message));
  REQUIRE(ptx.ok());
  std::vector<std::string> instructions = KernelInstructions(*ptx);
  // Each of the 9 ops rounds to bf16, and so does the store: per element,
  // 10 hardware conversions.
  const int stores = Count(instructions, "st.global");
  const int per_store = static_cast<int>(gelu.plan.launch.vector_size);
  REQUIRE(stores >= 1);
  const int elements = stores * per_store;
  CHECK(Count(instructions, "cvt.rn.bf16.f32") == 10 * elements);
  // The whole kernel (loop, indices, tanh's ~24 and all) over the
  // elements one pass of its loop writes: about 70; the integer rounding
  // routines took 227.
  const double per_element =
      static_cast<double>(instructions.size()) / elements;
  INFO(instructions.size() << " instructions for " << elements << " elements");
  CHECK(per_element < 90);
}

TEST_CASE("PTX: row reductions shuffle their partials as floats",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  for (const char* type : {"f32", "bf16", "f16"}) {
    INFO(type);
    emit::EmitResult r = EmitCuda(RowReduction(type));
    REQUIRE(r.plan.reduction_kind);
    auto ptx = CudaToPtx(nvcc, r.code);
    INFO((ptx.ok() ? "" : ptx.error().message));
    REQUIRE(ptx.ok());
    std::vector<std::string> instructions = KernelInstructions(*ptx);
    CHECK(Count(instructions, "shfl.sync.down.b32") >= 5);
    // A float truncated to an integer on its way through the shuffle.
    CHECK(Count(instructions, "cvt.rzi") == 0);
    // The full mask: every lane of the warp takes part.
    CHECK(Count(instructions, "activemask") == 0);
  }
}

std::string Scatter(const std::string& type, const std::string& attributes) {
  return "add {\n a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT s = " + type +
         "[] add(a, b)\n}\n"
         "ENTRY e {\n p = " +
         type +
         "[1000,64] parameter(0)\n i = s32[4096,1] parameter(1)\n"
         " u = " +
         type +
         "[4096,64] parameter(2)\n"
         " ROOT s = " +
         type +
         "[1000,64] scatter(p, i, u), update_window_dims={1}, "
         "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
         "index_vector_dim=1" +
         attributes + ", to_apply=add\n}\n";
}

std::vector<std::string> ScatterPtx(const std::string& nvcc,
                                    const std::string& hlo) {
  emit::EmitResult r = EmitCuda(hlo);
  auto ptx = CudaToPtx(nvcc, r.code);
  INFO((ptx.ok() ? "" : ptx.error().message));
  REQUIRE(ptx.ok());
  return KernelInstructions(*ptx);
}

TEST_CASE("PTX: a scatter-add is one hardware reduction per update",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  // The add's result unused: red (or atom) .add, no compare-and-swap loop;
  // f16 and bf16 have theirs on sm_90.
  for (const char* type : {"f32", "f16", "bf16"}) {
    INFO(type);
    std::vector<std::string> instructions = ScatterPtx(nvcc, Scatter(type, ""));
    // cuda_fp16.h's 16-bit adds are inline `atom.add.noftz` (generic
    // addresses, the old value returned).
    const std::string op = std::string(type) == "f32"
                               ? ".global.add.f32"
                               : std::string("atom.add.noftz.") + type;
    CHECK(Count(instructions, op) == 1);
    CHECK(Count(instructions, ".cas.") == 0);
  }
}

TEST_CASE("PTX: a scatter with unique indices has no atomic",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  std::vector<std::string> instructions =
      ScatterPtx(nvcc, Scatter("f32", ", unique_indices=true"));
  CHECK(Count(instructions, "st.global.f32") == 1);
  CHECK(Count(instructions, "atom.") == 0);
  CHECK(Count(instructions, "red.") == 0);
}

TEST_CASE("PTX: a sorted scatter folds a run in registers, then one atomic",
          "[.][emit_nvcc]") {
  // That it makes fewer atomic updates than updates on runs of equal
  // indices is counted in the CUDA model (emit_scatter); here: the fold
  // adds in registers (add.f32) and one red per thread stays.
  const std::string nvcc = Nvcc();
  std::vector<std::string> instructions =
      ScatterPtx(nvcc, Scatter("f32", ", indices_are_sorted=true"));
  CHECK(Count(instructions, "red.global.add.f32") +
            Count(instructions, "atom.global.add.f32") ==
        1);
  CHECK(Count(instructions, "add.f32") -
            Count(instructions, ".global.add.f32") >=
        1);
  CHECK(Count(instructions, ".cas.") == 0);
}

// The transposes the emitter tiles through shared memory: 021 and 210 as at
// the pinned revision, 102 and 1302 in the generalized form.
std::vector<std::pair<std::string, std::string>> TiledTransposes() {
  return {
      {"021_f32",
       "p = f32[8,512,512] parameter(0)\n"
       "ROOT t = f32[8,512,512] transpose(p), dimensions={0,2,1}"},
      {"021_bf16",
       "p = bf16[8,512,512] parameter(0)\n"
       "ROOT t = bf16[8,512,512] transpose(p), dimensions={0,2,1}"},
      {"102_f32",
       "p = f32[512,1024,2] parameter(0)\n"
       "ROOT t = f32[1024,512,2] transpose(p), dimensions={1,0,2}"},
      {"102_bf16",
       "p = bf16[512,1024,2] parameter(0)\n"
       "ROOT t = bf16[1024,512,2] transpose(p), dimensions={1,0,2}"},
      {"1302_f32",
       "p = f32[8,6,256,256] parameter(0)\n"
       "ROOT t = f32[6,256,8,256] transpose(p), dimensions={1,3,0,2}"},
      {"0213_s8",
       "p = s8[4,300,200,4] parameter(0)\n"
       "ROOT t = s8[4,200,300,4] transpose(p), dimensions={0,2,1,3}"},
  };
}

TEST_CASE("PTX: tiled transposes go through shared memory and a barrier",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  for (const auto& [label, hlo] : TiledTransposes()) {
    INFO(label);
    emit::EmitResult t = EmitCuda(hlo);
    CHECK(std::string(EmitterKindName(t.plan.kind)) == "transpose");
    CHECK(t.plan.launch.shared_memory_bytes > 0);
    auto ptx = CudaToPtx(nvcc, t.code);
    INFO((ptx.ok() ? "" : ptx.error().message));
    REQUIRE(ptx.ok());
    std::vector<std::string> instructions = KernelInstructions(*ptx);
    CHECK(Count(instructions, "st.shared") >= 1);
    CHECK(Count(instructions, "ld.shared") >= 1);
    CHECK(Count(instructions, "bar.sync") >= 1);
  }
}

// Integer arithmetic instructions of a PTX kernel (what a shared tile's
// address computation is made of).
int IntegerInstructions(const std::vector<std::string>& instructions) {
  int n = 0;
  for (const std::string& s : instructions) {
    for (const char* op :
         {"add.s",  "add.u",    "sub.s",  "sub.u", "mul.lo", "mul.wide",
          "mad.lo", "mad.wide", "shl.b",  "shr.u", "shr.s",  "and.b",
          "or.b",   "xor.b",    "lop3.b", "bfe.u", "bfi.b",  "div.u",
          "rem.u",  "div.s",    "rem.s"}) {
      if (s.rfind(op, 0) == 0) {
        ++n;
        break;
      }
    }
  }
  return n;
}

// A swizzled tile (docs/emitters.md §6c) is addressed by an xor of the
// row-major position with a few of its bits. XLA's padded tile addresses
// every step of the unrolled loop as one base register plus an immediate;
// the swizzled one computes each step's position, its bits (shift, mask),
// the xor and the byte offset. The bound: at most 6 more integer
// instructions per shared-memory access the kernel makes (nvcc 13.0
// measured about 4 for the f32 021 and 210 and the bf16 021), and no
// 64-bit arithmetic beyond the padded kernel's (the xor keeps the kernel's
// 32-bit indices).
TEST_CASE("PTX: swizzled tiles cost at most 6 integer ops per shared access",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"transpose_021_f32",
       "p = f32[8,512,512] parameter(0)\n"
       "ROOT t = f32[8,512,512] transpose(p), dimensions={0,2,1}"},
      {"transpose_210_f32",
       "p = f32[64,5,96] parameter(0)\n"
       "ROOT t = f32[96,5,64] transpose(p), dimensions={2,1,0}"},
      {"transpose_021_bf16",
       "p = bf16[8,512,512] parameter(0)\n"
       "ROOT t = bf16[8,512,512] transpose(p), dimensions={0,2,1}"},
  };
  for (const auto& [label, hlo] : cases) {
    INFO(label);
    auto module = hlo::ParseHloModule(hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    auto plan = emit::PlanForEmit(*region, *hw::FindDevice("h100"), &ctx);
    REQUIRE(plan.ok());
    REQUIRE(plan->shared_tiles.size() == 1);
    INFO(plan->shared_tiles[0].layout_reason);
    EmitterPlan padded = *plan;
    UseXlaTileLayouts(&padded);
    CHECK(padded.launch.shared_memory_bytes >=
          plan->launch.shared_memory_bytes);
    emit::EmitOptions options;
    options.target = emit::Target::kCuda;
    auto swizzled_code =
        emit::EmitFusionWithPlan(*region, *plan, options, &ctx);
    auto padded_code = emit::EmitFusionWithPlan(*region, padded, options, &ctx);
    REQUIRE(swizzled_code.ok());
    REQUIRE(padded_code.ok());
    auto swizzled_ptx = CudaToPtx(nvcc, swizzled_code->code);
    auto padded_ptx = CudaToPtx(nvcc, padded_code->code);
    REQUIRE(swizzled_ptx.ok());
    REQUIRE(padded_ptx.ok());
    std::vector<std::string> swizzled = KernelInstructions(*swizzled_ptx);
    std::vector<std::string> xla = KernelInstructions(*padded_ptx);
    const int shared_accesses =
        Count(swizzled, "st.shared") + Count(swizzled, "ld.shared");
    const int swizzled_ops = IntegerInstructions(swizzled);
    const int padded_ops = IntegerInstructions(xla);
    INFO("integer instructions: swizzled " << swizzled_ops << ", padded "
                                           << padded_ops << ", shared accesses "
                                           << shared_accesses);
    CHECK(shared_accesses >= 2);
    CHECK(swizzled_ops <= padded_ops + 6 * shared_accesses);
    // 32-bit index arithmetic, as the padded kernel's.
    CHECK(Count(swizzled, ".s64") + Count(swizzled, ".u64") <=
          Count(xla, ".s64") + Count(xla, ".u64"));
    if (plan->shared_tiles[0].layout.kind == hw::TileLayoutKind::kXor) {
      CHECK(Count(swizzled, "xor.b") + Count(swizzled, "lop3.b") >= 1);
    }
  }
}

// Fusions whose plan has vector_size > 1 in the kinds that read through
// their own lane loops (column reductions).
TEST_CASE("PTX: a column reduction with vectors of v loads ld.global.vv",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  for (const char* type : {"f16", "f32"}) {
    INFO(type);
    const std::string t = type;
    emit::EmitResult r =
        EmitCuda("add {\n a = " + t + "[] parameter(0)\n b = " + t +
                 "[] parameter(1)\n ROOT s = " + t +
                 "[] add(a, b)\n}\nENTRY e {\n p = " + t +
                 "[64,1024,1024] parameter(0)\n c = " + t +
                 "[] constant(0)\n ROOT r = " + t +
                 "[64,1024] reduce(p, c), dimensions={1}, to_apply=add\n}\n");
    REQUIRE(r.plan.reduction_kind == ReductionKind::kColumn);
    const int64_t v = r.plan.launch.vector_size;
    CHECK(v == (t == "f16" ? 4 : 2));
    auto ptx = CudaToPtx(nvcc, r.code);
    INFO((ptx.ok() ? "" : ptx.error().message));
    REQUIRE(ptx.ok());
    std::vector<std::string> instructions = KernelInstructions(*ptx);
    // f16 lanes travel as 16-bit words: v4 of b16 (or fewer wider words).
    const int vector_loads =
        Count(instructions, "ld.global.v" + std::to_string(v)) +
        Count(instructions, "ld.global.nc.v" + std::to_string(v));
    const int packed_loads = Count(instructions, "ld.global.b64") +
                             Count(instructions, "ld.global.u64") +
                             Count(instructions, "ld.global.nc.u64");
    CHECK(vector_loads + packed_loads >= 1);
  }
}

// A transpose only moves data: its f16/bf16 elements go through the tile
// as their bits, with no conversion to f32 and back (which cost the bf16
// 021 transpose 32 PTX instructions per element, against 9 for f32).
TEST_CASE("PTX: f16 and bf16 transposes move bits without conversions",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  for (const char* type : {"bf16", "f16"}) {
    for (const char* form : {"021", "102"}) {
      const std::string t = type;
      INFO(t << " " << form);
      const std::string hlo =
          std::string(form) == "021"
              ? "p = " + t + "[8,512,512] parameter(0)\nROOT r = " + t +
                    "[8,512,512] transpose(p), dimensions={0,2,1}"
              : "p = " + t + "[512,1024,2] parameter(0)\nROOT r = " + t +
                    "[1024,512,2] transpose(p), dimensions={1,0,2}";
      emit::EmitResult r = EmitCuda(hlo);
      REQUIRE(std::string(EmitterKindName(r.plan.kind)) == "transpose");
      auto ptx = CudaToPtx(nvcc, r.code);
      INFO((ptx.ok() ? "" : ptx.error().message));
      REQUIRE(ptx.ok());
      std::vector<std::string> instructions = KernelInstructions(*ptx);
      CHECK(Count(instructions, "cvt.f32") == 0);
      CHECK(Count(instructions, "cvt.rn.bf16") == 0);
      CHECK(Count(instructions, "cvt.rn.f16") == 0);
      CHECK(Count(instructions, "setp.nan") == 0);
    }
  }
}

// The vector loads of a PTX kernel of `v`-wide vectors of `bytes`-byte
// elements: ld.global.vV (ld.global.nc.vV), or the same bytes as one wider
// word (4 s8 lanes are one ld.global.u32, 2 f16 lanes one .b32).
int VectorLoads(const std::vector<std::string>& instructions, int64_t v,
                int64_t bytes) {
  int n = Count(instructions, "ld.global.v" + std::to_string(v)) +
          Count(instructions, "ld.global.nc.v" + std::to_string(v));
  const int64_t word_bits = v * bytes * 8;
  if (word_bits == 32 || word_bits == 64) {
    for (const char* kind : {"u", "b", "s"}) {
      const std::string w = kind + std::to_string(word_bits);
      n += Count(instructions, "ld.global." + w + " ") +
           Count(instructions, "ld.global.nc." + w + " ");
    }
  }
  return n;
}

// Concatenates (along the minor and a major dim, the operands' ends
// aligned to the unroll) and an s8 021 transpose whose plans have
// vector_size > 1 load through vectors: the concatenate's per-operand
// bounds check sits outside the lane loop. The in-place
// dynamic-update-slice plans unroll 1 (XLA's launch over the update), so
// its reads stay scalar and its plan says so.
TEST_CASE("PTX: concatenates and s8 transposes with vectors load ld.global.v",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"concatenate_minor_f32",
       "a = f32[512,1024] parameter(0)\nb = f32[512,512] parameter(1)\n"
       "ROOT k = f32[512,1536] concatenate(a, b), dimensions={1}"},
      {"concatenate_major_f16",
       "a = f16[1024,512] parameter(0)\nb = f16[520,512] parameter(1)\n"
       "ROOT k = f16[1544,512] concatenate(a, b), dimensions={0}"},
      {"transpose_021_s8",
       "p = s8[32,2048,2048] parameter(0)\n"
       "ROOT t = s8[32,2048,2048] transpose(p), dimensions={0,2,1}"},
      // The generalized form: the kept minor dim of 4 bytes is one word.
      {"transpose_0213_s8",
       "p = s8[4,300,200,4] parameter(0)\n"
       "ROOT t = s8[4,200,300,4] transpose(p), dimensions={0,2,1,3}"},
  };
  for (const auto& [label, hlo] : cases) {
    INFO(label);
    emit::EmitResult r = EmitCuda(hlo);
    const int64_t v = r.plan.launch.vector_size;
    CHECK(v > 1);
    auto ptx = CudaToPtx(nvcc, r.code);
    INFO((ptx.ok() ? "" : ptx.error().message));
    REQUIRE(ptx.ok());
    std::vector<std::string> instructions = KernelInstructions(*ptx);
    const int64_t bytes = label.find("s8") != std::string::npos    ? 1
                          : label.find("f16") != std::string::npos ? 2
                                                                   : 4;
    // Every operand of the concatenate reads through vectors.
    const int expected = label.rfind("concatenate", 0) == 0 ? 2 : 1;
    CHECK(VectorLoads(instructions, v, bytes) >= expected);
    if (label == "transpose_0213_s8") {
      // Words through the tile too, and no byte-wide global access.
      CHECK(v == 4);
      // (v4.u8 or a 32-bit word: one 4-byte access either way)
      CHECK(Count(instructions, "st.shared.v4.u8") +
                Count(instructions, "st.shared.v4.s8") +
                Count(instructions, "st.shared.u32") +
                Count(instructions, "st.shared.b32") >=
            1);
      CHECK(Count(instructions, "ld.shared.v4.u8") +
                Count(instructions, "ld.shared.v4.s8") +
                Count(instructions, "ld.shared.u32") +
                Count(instructions, "ld.shared.b32") >=
            1);
      CHECK(Count(instructions, "st.shared.u8") +
                Count(instructions, "st.shared.s8") ==
            0);
      CHECK(Count(instructions, "ld.global.nc.u8") +
                Count(instructions, "ld.global.u8") +
                Count(instructions, "ld.global.s8") +
                Count(instructions, "ld.global.nc.s8") ==
            0);
    }
  }
  emit::EmitResult dus = EmitCuda(
      "p = f32[2048,1024] parameter(0)\nu = f32[1024,1024] parameter(1)\n"
      "i = s32[] parameter(2)\nj = s32[] parameter(3)\n"
      "ROOT d = f32[2048,1024] dynamic-update-slice(p, u, i, j)");
  CHECK(dus.plan.launch.unroll == 1);
  CHECK(dus.plan.launch.vector_size == 1);
}

// The harness compiles every test fusion's kernel with no_spills: a kernel
// that spills fails there. This one keeps 96 values live under a bound of
// 32 registers per thread (1024 threads, 2 blocks per multiprocessor).
// A thread whose unrolled elements fill whole bytes of a packed s4 output
// stores each byte whole: no atomic read-modify-write.
TEST_CASE("PTX: packed s4 outputs store whole bytes without atomics",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  emit::EmitResult r = EmitCuda(
      "p = s4[64,256]{1,0:E(4)} parameter(0)\n"
      "ROOT n = s4[64,256]{1,0:E(4)} negate(p)");
  CHECK(r.plan.launch.vector_size == 2);
  auto ptx = CudaToPtx(nvcc, r.code);
  INFO((ptx.ok() ? "" : ptx.error().message));
  REQUIRE(ptx.ok());
  std::vector<std::string> instructions = KernelInstructions(*ptx);
  CHECK(Count(instructions, "atom.") == 0);
  CHECK(Count(instructions, "st.global.u8") +
            Count(instructions, "st.global.b8") ==
        1);
  CHECK(Count(instructions, "ld.global.nc.u8") +
            Count(instructions, "ld.global.u8") ==
        1);
}

TEST_CASE("ptxas: CompileCuda with no_spills fails a kernel that spills",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  const std::string spills = R"(
extern "C" __global__ void __launch_bounds__(1024, 2)
spills(const float* in, float* out) {
  float v[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) v[i] = in[threadIdx.x * 96 + i];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i) s += v[i] * v[95 - i];
#pragma unroll
  for (int i = 0; i < 96; ++i) out[threadIdx.x * 96 + i] = v[i] * s;
})";
  const std::string fits = R"(
extern "C" __global__ void fits(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x] * 2.0f;
})";
  NvccOptions options;
  options.no_spills = true;
  std::vector<std::string> errors = CompileCuda(nvcc, {spills, fits}, options);
  INFO(errors[0]);
  CHECK(errors[0].find("spills to local memory") != std::string::npos);
  CHECK(errors[0].find("spills") != std::string::npos);
  CHECK(errors[1].empty());
  // Without the option the spilling kernel compiles.
  CHECK(CompileCuda(nvcc, {spills})[0].empty());
}

// The GEMM emitter's kernels (emit/emitters/gemm.h): a bf16 dot with a
// bias and ReLU epilogue runs on tensor cores (wmma.mma in the PTX) and
// compiles for sm_80 and sm_90 without spills; an f32 one with FMA.
TEST_CASE("ptxas: GEMM kernels use tensor cores and do not spill",
          "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  const std::string bias_relu =
      "p2 = f32[512] parameter(2)\n"
      "bb = f32[4,256,512] broadcast(p2), dimensions={2}\n"
      "s = f32[4,256,512] add(d, bb)\n"
      "z = f32[] constant(0)\n"
      "zb = f32[4,256,512] broadcast(z), dimensions={}\n"
      "ROOT r = f32[4,256,512] maximum(s, zb)\n";
  auto gemm = [&](const std::string& type) {
    return "p0 = " + type + "[4,256,320] parameter(0)\n" + "p1 = " + type +
           "[4,320,512] parameter(1)\n" +
           "d = f32[4,256,512] dot(p0, p1), lhs_batch_dims={0}, "
           "rhs_batch_dims={0}, lhs_contracting_dims={2}, "
           "rhs_contracting_dims={1}\n" +
           bias_relu;
  };
  const emit::EmitResult bf16 = EmitCuda(gemm("bf16"));
  const emit::EmitResult f32 = EmitCuda(gemm("f32"));
  // The 4-warp tile (m < 128) with a tanh and convert epilogue: with a k
  // tile of 32 it spilled.
  const emit::EmitResult small = EmitCuda(
      "p0 = bf16[2,64,200] parameter(0)\np1 = bf16[2,200,96] parameter(1)\n"
      "d = f32[2,64,96] dot(p0, p1), lhs_batch_dims={0}, "
      "rhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_contracting_dims={1}\n"
      "t = f32[2,64,96] tanh(d)\n"
      "ROOT r = bf16[2,64,96] convert(t)\n");
  // f32 on TF32 tensor cores (EmitOptions::tf32).
  const emit::EmitResult tf32 = EmitCuda(gemm("f32"), /*tf32=*/true);
  REQUIRE(bf16.code.find("emitter gemm (tensor cores") != std::string::npos);
  REQUIRE(f32.code.find("emitter gemm (FMA") != std::string::npos);
  REQUIRE(tf32.code.find("emitter gemm (tensor cores, TF32") !=
          std::string::npos);
  const std::vector<std::string> units = {bf16.code, f32.code, small.code,
                                          tf32.code};
  // sm_80: the whole units compile (host side too); sm_90: ptxas's report
  // of each kernel, which must not spill.
  NvccOptions sm80;
  sm80.arch = "sm_80";
  sm80.no_spills = true;
  std::vector<std::string> errors = CompileCuda(nvcc, units, sm80);
  for (size_t i = 0; i < units.size(); ++i) {
    INFO("sm_80 unit " << i);
    CHECK(errors[i] == "");
  }
  std::vector<Result<PtxasUsage>> usage = PtxasUsageOf(nvcc, units);
  for (const auto& u : usage) {
    INFO((u.ok() ? "" : u.error().message));
    REQUIRE(u.ok());
    CHECK(u->spill_store_bytes == 0);
    CHECK(u->spill_load_bytes == 0);
  }
  // The PTX multiplies with WMMA: bf16 on sm_90, TF32 on sm_80 (rounded
  // with cvt.rna first).
  NvccOptions sm90;
  sm90.arch = "sm_90";
  auto ptx = CudaToPtx(nvcc, bf16.code, sm90);
  INFO((ptx.ok() ? "" : ptx.error().message));
  REQUIRE(ptx.ok());
  CHECK(ptx->find("wmma.mma.sync") != std::string::npos);
  CHECK(ptx->find("wmma.load.a.sync") != std::string::npos);
  auto tf32_ptx = CudaToPtx(nvcc, tf32.code, sm80);
  INFO((tf32_ptx.ok() ? "" : tf32_ptx.error().message));
  REQUIRE(tf32_ptx.ok());
  CHECK(tf32_ptx->find("m16n16k8.f32.tf32.tf32.f32") != std::string::npos);
  CHECK(tf32_ptx->find("cvt.rna.tf32.f32") != std::string::npos);
}

// No kernel of the chosen fusions spills to local memory (every other test
// fusion is checked by the harness's nvcc step).
TEST_CASE("ptxas: the test fusions' kernels do not spill", "[.][emit_nvcc]") {
  const std::string nvcc = Nvcc();
  std::vector<std::string> labels, units;
  for (const auto& [label, hlo] : TiledTransposes()) {
    labels.push_back(label);
    units.push_back(EmitCuda(hlo).code);
  }
  labels.push_back("gelu");
  units.push_back(EmitCuda(ReadFile(std::string(IXA_SOURCE_DIR) +
                                    "/tests/emit/data/gelu.hlo"))
                      .code);
  for (const char* type : {"f32", "bf16"}) {
    labels.push_back(std::string("row_reduction_") + type);
    units.push_back(EmitCuda(RowReduction(type)).code);
  }
  labels.push_back("column_reduction_f16");
  units.push_back(
      EmitCuda("add {\n a = f16[] parameter(0)\n b = f16[] parameter(1)\n"
               " ROOT s = f16[] add(a, b)\n}\nENTRY e {\n"
               " p = f16[8,300,512] parameter(0)\n c = f16[] constant(0)\n"
               " ROOT r = f16[8,512] reduce(p, c), dimensions={1}, "
               "to_apply=add\n}\n")
          .code);
  labels.push_back("concatenate");
  units.push_back(EmitCuda("a = f32[64,128] parameter(0)\n"
                           "b = f32[64,256] parameter(1)\n"
                           "ROOT k = f32[64,384] concatenate(a, b), "
                           "dimensions={1}")
                      .code);
  labels.push_back("in_place_dus");
  units.push_back(EmitCuda("p = s32[256,256] parameter(0)\n"
                           "u = s32[64,64] parameter(1)\n"
                           "i = s32[] parameter(2)\nj = s32[] parameter(3)\n"
                           "ROOT d = s32[256,256] dynamic-update-slice(p, u, "
                           "i, j)")
                      .code);
  for (const char* type : {"f32", "bf16"}) {
    labels.push_back(std::string("diamond_") + type);
    units.push_back(EmitCuda(ManyOutputsDiamond(23, type)).code);
  }
  std::vector<Result<PtxasUsage>> usage = PtxasUsageOf(nvcc, units);
  for (size_t i = 0; i < units.size(); ++i) {
    INFO(labels[i]);
    INFO((usage[i].ok() ? "" : usage[i].error().message));
    REQUIRE(usage[i].ok());
    INFO(usage[i]->registers << " registers");
    CHECK(usage[i]->spill_store_bytes == 0);
    CHECK(usage[i]->spill_load_bytes == 0);
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
