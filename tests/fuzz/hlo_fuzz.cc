// libFuzzer target fuzz_hlo: HLO module text -> the reader -> per-op
// indexing in both directions for every instruction -> fusion indexing of
// every computation (both directions) -> partition. Errors are fine;
// crashes, hangs, UB and internal errors are not. Every map produced must
// print to text that parses again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/indexing/indexing.h"
#include "analysis/partition/partition.h"
#include "core/text.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using ixa::IndexingMap;

// Bounds the work per input (the reader accepts modules of any size).
constexpr int kMaxInstructionsAnalysed = 64;
constexpr int kMaxOutputsPerInstruction = 4;

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
    // HOOK (integrator): once the emitter plans and code generation are on
    // main, run them here on every region the reader accepts, e.g.
    //   auto plan = ixa::PlanFusion(region, device, &ctx);   // thread plans
    //   CheckResult("thread plan", plan);
    //   if (plan.ok()) CheckResult("emit cpp", ixa::EmitCpp(*plan));
    // (issue 12: emit cpp must never crash on any fusion the reader takes).
  }
  auto resolved = ixa::ResolveFusion(**module, "");
  CheckResult("resolving the default fusion", resolved);
  return 0;
}
