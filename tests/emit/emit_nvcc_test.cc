// The `cuda` code through nvcc, when it is installed (the CTest test
// emit_nvcc is skipped otherwise, never passed): fusions that once made
// nvcc grow without end compile within one fusion's bounds (60 s, 2 GB per
// process), and so do the worked examples, for sm_80 and sm_90.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_many_outputs.h"

namespace ixa::emit_test {
namespace {

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

emit::EmitResult EmitCuda(const std::string& hlo) {
  auto module = hlo::ParseHloModule(hlo);
  INFO((module.ok() ? "" : module.error().ToString()));
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  options.target = emit::Target::kCuda;
  auto emitted =
      emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  INFO((emitted.ok() ? "" : emitted.error().ToString()));
  REQUIRE(emitted.ok());
  return *emitted;
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

}  // namespace
}  // namespace ixa::emit_test
