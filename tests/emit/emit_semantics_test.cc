// Regressions found by the independent differential test
// (tools/difftest/emit_difftest.py): each case is a fusion with inputs and
// the outputs XLA computes, worked out by hand from XLA's semantics (not
// by this project's interpreter), as the physical bytes of every buffer.
// The `cpp` kernels are compiled once, as one batch.
#include <catch2/catch.hpp>
#include <cstring>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/emit_driver.h"

namespace ixa::emit_test {
namespace {

using Bytes = std::vector<uint8_t>;

template <typename T>
Bytes Of(std::initializer_list<T> values) {
  Bytes out(values.size() * sizeof(T));
  size_t at = 0;
  for (T v : values) {
    std::memcpy(out.data() + at, &v, sizeof(T));
    at += sizeof(T);
  }
  return out;
}

Bytes F32(std::initializer_list<float> v) { return Of<float>(v); }
Bytes U16(std::initializer_list<uint16_t> v) { return Of<uint16_t>(v); }

constexpr float kInf = __builtin_inff();

struct SemanticsCase {
  std::string label;
  std::string hlo;
  std::vector<Bytes> inputs;    // per parameter, physical bytes
  std::vector<Bytes> expected;  // per output leaf, physical bytes
  // In-place outputs get their own buffer (filled with a pattern) instead
  // of their input's memory: what a caller unaware of `aliases` passes.
  bool separate_alias = false;
};

std::string Hex(const Bytes& b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s += kDigits[c >> 4];
    s += kDigits[c & 15];
    s += ' ';
  }
  return s;
}

void CheckAll(const std::vector<SemanticsCase>& cases) {
  std::vector<CppKernel> kernels;
  std::vector<emit::EmitResult> results;
  for (const SemanticsCase& c : cases) {
    INFO(c.label);
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    emit::EmitOptions options;
    options.target = emit::Target::kCpp;
    options.kernel_name = c.label;
    auto emitted =
        emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
    INFO((emitted.ok() ? "" : emitted.error().message));
    REQUIRE(emitted.ok());
    kernels.push_back({c.label, emitted->code});
    results.push_back(*emitted);
  }
  CppBatch batch;
  auto built = batch.Build(kernels);
  INFO((built.ok() ? "" : built.error().message));
  REQUIRE(built.ok());
  for (size_t i = 0; i < cases.size(); ++i) {
    const SemanticsCase& c = cases[i];
    INFO(c.label);
    std::vector<Bytes> buffers = c.inputs;
    std::vector<int> aliases(c.inputs.size(), -1);
    for (size_t k = 0; k < c.expected.size(); ++k) {
      const emit::EmittedBuffer& b = results[i].buffers[c.inputs.size() + k];
      bool in_place = b.aliases >= 0 && !c.separate_alias;
      buffers.push_back(Bytes(c.expected[k].size(), 0xAB));
      aliases.push_back(in_place ? b.aliases : -1);
    }
    auto ran = batch.Run(c.label, &buffers, aliases);
    INFO((ran.ok() ? "" : ran.error().message));
    REQUIRE(ran.ok());
    for (size_t k = 0; k < c.expected.size(); ++k) {
      INFO("output " << k);
      CHECK(Hex(buffers[c.inputs.size() + k]) == Hex(c.expected[k]));
    }
  }
}

std::string MaxF32() {
  return "max_f32 { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
         " ROOT m = f32[] maximum(a, b) }\n";
}

TEST_CASE("emit semantics: regressions of the differential test",
          "[.][emit_semantics]") {
  std::vector<SemanticsCase> cases;
  // A reduce-window whose window lies in the padding reduces nothing: the
  // init value (the padded position is outside the map's dim bounds, not
  // in a constraint; it read b0[-1]).
  cases.push_back({"reduce_window_padding",
                   MaxF32() + "ENTRY e { p = f32[3] parameter(0)\n"
                              "c = f32[] constant(-inf)\n"
                              "ROOT r = f32[5] reduce-window(p, c), "
                              "window={size=1 pad=1_1}, to_apply=max_f32 }",
                   {F32({1, 2, 3})},
                   {F32({-kInf, 1, 2, 3, -kInf})}});
  // maximum / minimum are IEEE-754 2019 maximum / minimum (XLA's
  // arith.maximumf): -0 < +0 whatever the operand order, NaN propagates.
  cases.push_back(
      {"max_min_signed_zeros",
       "ENTRY e { p = f32[4] parameter(0)\n"
       "q = f32[4] parameter(1)\n"
       "a = f32[4] maximum(p, q)\nb = f32[4] minimum(p, q)\n"
       "ROOT t = (f32[4], f32[4]) tuple(a, b) }",
       {F32({-0.0f, 0.0f, 1, -0.0f}), F32({0.0f, -0.0f, 1, -0.0f})},
       {F32({0.0f, 0.0f, 1, -0.0f}), F32({-0.0f, -0.0f, 1, -0.0f})}});
  // f16 / bf16 data movement keeps NaN payloads (signalling ones too):
  // the element goes through f32 and back unchanged.
  cases.push_back({"half_nan_payloads_move",
                   "ENTRY e { p = f16[4] parameter(0)\n"
                   "q = bf16[4] parameter(1)\n"
                   "a = f16[4] reverse(p), dimensions={0}\n"
                   "b = bf16[4] reverse(q), dimensions={0}\n"
                   "ROOT t = (f16[4], bf16[4]) tuple(a, b) }",
                   {U16({0x7c01, 0xfe11, 0x7e00, 0x3c00}),
                    U16({0x7f81, 0xffc1, 0x7fc0, 0x3f80})},
                   {U16({0x3c00, 0x7e00, 0xfe11, 0x7c01}),
                    U16({0x3f80, 0x7fc0, 0xffc1, 0x7f81})}});
  CheckAll(cases);
}

}  // namespace
}  // namespace ixa::emit_test
