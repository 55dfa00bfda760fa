// The generated code builds as a user's project with warnings as errors
// builds it: one fusion of each emitter kind (loop, row reduction,
// transpose, scatter) through nvcc -Werror all-warnings -Xcompiler
// -Wall,-Wextra (the CUDA target; skipped, not passed, without nvcc) and
// through the C++ compiler with -Wall -Wextra -Werror (the cpp target).
// Kernels once declared every grid id whether they read it or not (nvcc's
// #177-D, four per kernel), kept combiners the hardware's atomic replaced,
// and declared a thread index in phases that never read it.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

struct WarningCase {
  const char* name;
  const char* hlo;
};

const WarningCase kWarningCases[] = {
    {"loop_tanh",
     "ENTRY e {\n p = f32[64,32] parameter(0)\n q = f32[64,32] parameter(1)\n"
     " m = f32[64,32] multiply(p, q)\n ROOT t = f32[64,32] tanh(m)\n}"},
    {"row_reduction",
     "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
     " ROOT s = f32[] add(a, b)\n}\n"
     "ENTRY e {\n p = f32[64,1024] parameter(0)\n c = f32[] constant(0)\n"
     " ROOT r = f32[64] reduce(p, c), dimensions={1}, to_apply=add\n}"},
    {"bf16_row_reduction",
     "add {\n a = bf16[] parameter(0)\n b = bf16[] parameter(1)\n"
     " ROOT s = bf16[] add(a, b)\n}\n"
     "ENTRY e {\n p = bf16[16,4096] parameter(0)\n c = bf16[] constant(0)\n"
     " ROOT r = bf16[16] reduce(p, c), dimensions={1}, to_apply=add\n}"},
    {"transpose",
     "ENTRY e {\n p = f32[40,50] parameter(0)\n"
     " e = f32[40,50] exponential(p)\n"
     " t = f32[50,40] transpose(e), dimensions={1,0}\n"
     " ROOT a = f32[50,40] abs(t)\n}"},
    {"scatter_add",
     "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
     " ROOT s = f32[] add(a, b)\n}\n"
     "ENTRY e {\n o = f32[16,8] parameter(0)\n i = s32[4,1] parameter(1)\n"
     " u = f32[4,8] parameter(2)\n"
     " ROOT s = f32[16,8] scatter(o, i, u), update_window_dims={1}, "
     "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
     "index_vector_dim=1, to_apply=add\n}"},
};

std::string EmitForWarnings(const WarningCase& c, emit::Target target) {
  auto module = hlo::ParseHloModule(c.hlo);
  INFO(c.name << ": " << (module.ok() ? "" : module.error().ToString()));
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = target;
  options.kernel_name = c.name;
  auto emitted =
      emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  INFO((emitted.ok() ? "" : emitted.error().ToString()));
  REQUIRE(emitted.ok());
  return emitted->code;
}

// Compiles each case's code with `compile` (SOURCE and OBJECT replaced),
// all in one directory; each must succeed.
void CompileWarningFree(emit::Target target, const std::string& extension,
                        const std::string& compile) {
  TempDir dir;
  std::vector<std::string> commands;
  for (const WarningCase& c : kWarningCases) {
    const std::string source =
        dir.Write(std::string(c.name) + extension, EmitForWarnings(c, target));
    std::string command = compile;
    command.replace(command.find("SOURCE"), 6, source);
    command.replace(command.find("OBJECT"), 6, source + ".o");
    commands.push_back(command + " 2>&1");
  }
  std::vector<CommandResult> results = RunCommands(commands);
  for (size_t i = 0; i < results.size(); ++i) {
    INFO(kWarningCases[i].name << ": " << commands[i] << "\n"
                               << FirstLines(results[i].output, 30));
    CHECK(results[i].exit_code == 0);
  }
}

TEST_CASE("warnings: the cpp kernels compile with -Wall -Wextra -Werror",
          "[.][emit_kinds]") {
  CompileWarningFree(emit::Target::kCpp, ".cc",
                     Compiler() +
                         " -std=c++17 -O2 -Wall -Wextra -Werror -c SOURCE -o "
                         "OBJECT");
}

TEST_CASE("warnings: the cuda kernels compile with -Werror all-warnings",
          "[.][emit_nvcc]") {
  std::optional<std::string> nvcc = FindNvcc();
  if (!nvcc) {
    // The emit_nvcc CTest test's SKIP_RETURN_CODE: skipped, not passed.
    std::cout << "nvcc not found (PATH, /usr/local/cuda/bin, /opt/cuda/bin): "
                 "the nvcc warning checks are skipped\n";
    std::exit(77);
  }
  CompileWarningFree(emit::Target::kCuda, ".cu",
                     "timeout 120 " + *nvcc +
                         " -std=c++17 -arch=sm_90 -c -Werror all-warnings "
                         "-Xcompiler -Wall,-Wextra SOURCE -o OBJECT");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
