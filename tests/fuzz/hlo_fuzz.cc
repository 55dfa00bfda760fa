// libFuzzer target fuzz_hlo: HLO module text -> the reader -> per-op
// indexing in both directions for every instruction -> fusion indexing of
// every computation (both directions) -> partition -> the emitter plan
// (thread maps) of every computation -> code generation (`emit` cpp, and
// cuda or mlir) with that plan. Errors are fine; crashes, hangs, UB and
// internal errors are not. Every map produced must print to text that
// parses again.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/indexing/indexing.h"
#include "analysis/partition/partition.h"
#include "core/text.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ixa::IndexingMap;

// Bounds the work per input (the reader accepts modules of any size).
constexpr int kMaxInstructionsAnalysed = 64;
constexpr int kMaxOutputsPerInstruction = 4;
// Plans and code generation are linear in the region's size; the fuzzer is
// after odd fusions, not big ones (the stress script covers size).
constexpr int kMaxRegionSizeEmitted = 64;

template <typename T>
void CheckResult(const char* what, const ixa::Result<T>& r) {
  if (!r.ok() && r.error().code == ixa::ErrorCode::kInternal) {
    ixa::fuzz::Fail(std::string("internal error from ") + what,
                    r.error().ToString());
  }
}

void CheckMapPrints(const IndexingMap& map) {
  std::string text = ixa::PrintIndexingMap(map);
  ixa::ExprContext fresh;
  auto reread = ixa::ParseIndexingMap(text, &fresh);
  if (!reread.ok()) {
    ixa::fuzz::Fail("a computed map does not parse",
                    text + "\n" + reread.error().ToString());
  }
}

void CheckSets(const std::vector<ixa::IndexingMapSet>& sets) {
  for (const ixa::IndexingMapSet& set : sets) {
    for (const IndexingMap& m : set) CheckMapPrints(m);
  }
}

// The emitter plan of `region` on a device chosen by the input (so every
// built-in device, warp 32 and 64, gets inputs), then the code of that plan
// in C++ and in a second target also chosen by the input. A forced loop plan
// (coalescing's `launch` override) too when the emitter is another.
void PlanAndEmit(const ixa::FusionRegion& region, const uint8_t* data,
                 size_t size, ixa::ExprContext* ctx) {
  std::span<const ixa::hw::Device> devices = ixa::hw::BuiltinDevices();
  uint64_t hash = 1469598103934665603u;  // FNV-1a: deterministic per input
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211u;
  const ixa::hw::Device& device = devices[hash % devices.size()];
  auto plan = ixa::ComputeEmitterPlan(region, device, ctx);
  CheckResult("the emitter plan", plan);
  if (!plan.ok()) return;
  for (const ixa::RootPlan& root : plan->roots) {
    if (root.output_map) CheckMapPrints(*root.output_map);
    for (const auto& m : root.hero_operand_maps) {
      if (m) CheckMapPrints(*m);
    }
  }
  for (const ixa::ParameterPlan& p : plan->parameters) {
    for (const IndexingMap& m : p.maps) CheckMapPrints(m);
  }
  ixa::emit::EmitOptions options;
  if (device.shared_memory_per_block > 0) {
    options.shared_memory_limit = device.shared_memory_per_block;
  }
  CheckResult("emit cpp",
              ixa::emit::EmitFusionWithPlan(region, *plan, options, ctx));
  options.target =
      (hash >> 32) % 2 ? ixa::emit::Target::kCuda : ixa::emit::Target::kMlir;
  options.host = (hash >> 33) % 2;
  if (options.target == ixa::emit::Target::kCuda) options.host = false;
  CheckResult("emit cuda/mlir",
              ixa::emit::EmitFusionWithPlan(region, *plan, options, ctx));
  if (plan->kind != ixa::EmitterKind::kLoop) {
    ixa::PlanOptions force_loop;
    force_loop.force_loop = true;
    auto loop = ixa::ComputeEmitterPlan(region, device, force_loop, ctx);
    CheckResult("the forced loop plan", loop);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = ixa::hlo::ParseHloModule(text);
  CheckResult("the HLO reader", module);
  if (!module.ok()) return 0;
  ixa::ExprContext ctx;
  int analysed = 0;
  for (const auto& computation : (*module)->computations()) {
    for (const auto& instr : computation->instructions()) {
      if (++analysed > kMaxInstructionsAnalysed) break;
      int outputs =
          std::min(ixa::OutputCount(*instr), kMaxOutputsPerInstruction);
      for (int out = 0; out < outputs; ++out) {
        auto o2i = ixa::ComputeOutputToInputIndexing(*instr, out, &ctx);
        CheckResult("output_to_input indexing", o2i);
        if (o2i.ok()) CheckSets(o2i->indexing_maps);
      }
      for (int k = 0; k < instr->operand_count(); ++k) {
        auto i2o = ixa::ComputeInputToOutputIndexing(*instr, k, &ctx);
        CheckResult("input_to_output indexing", i2o);
        if (i2o.ok()) CheckSets(i2o->indexing_maps);
      }
    }
    ixa::FusionRegion region = ixa::RegionOfComputation(*computation);
    if (region.root == nullptr) continue;
    auto grouped = ixa::ComputeGroupedOutputToInputIndexing(region, 0, &ctx);
    CheckResult("fusion indexing", grouped);
    if (grouped.ok()) {
      for (const auto* instr : grouped->order) {
        for (const IndexingMap& m : grouped->MapsOf(instr)) CheckMapPrints(m);
      }
    }
    for (int p = 0; p < static_cast<int>(region.parameters.size()) && p < 4;
         ++p) {
      auto forward = ixa::ComputeFusionInputToOutputIndexing(region, p, &ctx);
      CheckResult("fusion input_to_output indexing", forward);
      if (forward.ok()) CheckSets(*forward);
    }
    auto partition = ixa::PartitionComputation(*computation, &ctx);
    CheckResult("partition", partition);
    if (static_cast<int>(region.members.size()) <= kMaxRegionSizeEmitted) {
      PlanAndEmit(region, data, size, &ctx);
    }
  }
  auto resolved = ixa::ResolveFusion(**module, "");
  CheckResult("resolving the default fusion", resolved);
  return 0;
}
