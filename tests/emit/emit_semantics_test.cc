// Regressions found by the independent differential test
// (tests/difftest/emit_difftest.py): each case is a fusion with inputs and
// the outputs XLA computes, worked out by hand from XLA's semantics (not
// by this project's interpreter), as the physical bytes of every buffer.
// The `cpp` kernels are compiled once, as one batch, and so are the `cuda`
// ones (run in the CPU model of CUDA).
#include <catch2/catch.hpp>
#include <cstring>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "emit/pipeline.h"
#include "hw/device.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_driver.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

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
Bytes S32(std::initializer_list<int32_t> v) { return Of<int32_t>(v); }

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

// Each case runs as `cpp` and, in the CPU model of CUDA, as `cuda` (in
// every thread order). The CUDA kernel is handed in-place outputs in their
// input's memory, as its response's `aliases` require.
void CheckAll(const std::vector<SemanticsCase>& cases) {
  std::vector<CppKernel> kernels, cuda_kernels;
  std::vector<emit::EmitResult> results, cuda_results;
  for (const SemanticsCase& c : cases) {
    INFO(c.label);
    auto module = hlo::ParseHloModule(c.hlo);
    REQUIRE(module.ok());
    auto region = ResolveFusion(**module, "");
    REQUIRE(region.ok());
    ExprContext ctx;
    emit::EmitOptions options;
    options.kernel_name = c.label;
    for (emit::Target target : {emit::Target::kCpp, emit::Target::kCuda}) {
      options.target = target;
      auto emitted =
          emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
      INFO((emitted.ok() ? "" : emitted.error().message));
      REQUIRE(emitted.ok());
      bool cpp = target == emit::Target::kCpp;
      (cpp ? kernels : cuda_kernels).push_back({c.label, emitted->code});
      (cpp ? results : cuda_results).push_back(*emitted);
    }
  }
  CppBatch batch;
  auto built = batch.Build(kernels);
  INFO((built.ok() ? "" : built.error().message));
  REQUIRE(built.ok());
  CudaModelBatch cuda;
  auto cuda_built = cuda.Build(cuda_kernels);
  INFO((cuda_built.ok() ? "" : cuda_built.error().message));
  REQUIRE(cuda_built.ok());
  for (size_t i = 0; i < cases.size(); ++i) {
    const SemanticsCase& c = cases[i];
    INFO(c.label);
    std::vector<Bytes> buffers = c.inputs;
    std::vector<int> aliases(c.inputs.size(), -1), cuda_aliases = aliases;
    for (size_t k = 0; k < c.expected.size(); ++k) {
      const emit::EmittedBuffer& b = results[i].buffers[c.inputs.size() + k];
      bool in_place = b.aliases >= 0 && !c.separate_alias;
      buffers.push_back(Bytes(c.expected[k].size(), 0xAB));
      aliases.push_back(in_place ? b.aliases : -1);
      cuda_aliases.push_back(
          cuda_results[i].buffers[c.inputs.size() + k].aliases);
    }
    std::vector<Bytes> inputs = buffers;
    auto ran = batch.Run(c.label, &buffers, aliases);
    INFO((ran.ok() ? "" : ran.error().message));
    REQUIRE(ran.ok());
    for (size_t k = 0; k < c.expected.size(); ++k) {
      INFO("output " << k);
      CHECK(Hex(buffers[c.inputs.size() + k]) == Hex(c.expected[k]));
    }
    for (ThreadOrder order : kThreadOrders) {
      INFO("cuda (" << ThreadOrderName(order) << ")");
      buffers = inputs;
      ran = cuda.Run(c.label, cuda_results[i].plan.launch, order, 1, &buffers,
                     cuda_aliases);
      INFO((ran.ok() ? "" : ran.error().message));
      REQUIRE(ran.ok());
      for (size_t k = 0; k < c.expected.size(); ++k) {
        INFO("output " << k);
        CHECK(Hex(buffers[c.inputs.size() + k]) == Hex(c.expected[k]));
      }
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
  // An unsigned start index above the int64 maximum is a large index:
  // clamped to the last valid start, not to 0.
  cases.push_back({"u64_start_index",
                   "ENTRY e { p = f32[4] parameter(0)\n"
                   "i = u64[] parameter(1)\n"
                   "ROOT d = f32[2] dynamic-slice(p, i), "
                   "dynamic_slice_sizes={2} }",
                   {F32({1, 2, 3, 4}), Of<uint64_t>({~uint64_t{0}})},
                   {F32({3, 4})}});
  // Float -> s8 / s16 saturates at the type's maximum (it gave -1).
  cases.push_back({"f16_to_narrow_ints_saturate",
                   "ENTRY e { p = f16[4] parameter(0)\n"
                   "a = s8[4] convert(p)\nb = s16[4] convert(p)\n"
                   "ROOT t = (s8[4], s16[4]) tuple(a, b) }",
                   {U16({0x7bff, 0xfc00, 0x7e00, 0x5640})},
                   {Of<int8_t>({127, -128, 0, 100}),
                    Of<int16_t>({32767, -32768, 0, 100})}});
  // An in-place update given its own output memory: the operand's
  // elements are copied there first.
  SemanticsCase separate{"dus_separate_output_memory",
                         "ENTRY e { p = s32[4] parameter(0)\n"
                         "u = s32[2] parameter(1)\ni = s32[] parameter(2)\n"
                         "ROOT d = s32[4] dynamic-update-slice(p, u, i) }",
                         {S32({1, 2, 3, 4}), S32({7, 8}), S32({1})},
                         {S32({1, 7, 8, 4})}};
  separate.separate_alias = true;
  cases.push_back(separate);
  // An update whose output has another layout than its operand cannot be
  // in place (XLA would not share the buffers): every element is written.
  cases.push_back({"dus_output_layout_differs",
                   "ENTRY e { p = f32[2,3]{1,0} parameter(0)\n"
                   "u = f32[1,2] parameter(1)\ni = s32[] parameter(2)\n"
                   "j = s32[] parameter(3)\n"
                   "ROOT d = f32[2,3]{0,1} dynamic-update-slice(p, u, i, j) }",
                   {F32({1, 2, 3, 4, 5, 6}), F32({10, 20}), S32({1}), S32({5})},
                   {F32({1, 4, 2, 10, 3, 20})}});
  // compare with type=TOTALORDER (it was refused): -NaN < -inf < -0 < +0
  // < inf < +NaN, NaN payloads ordered; f32 and bf16.
  cases.push_back(
      {"total_order_compare",
       "ENTRY e { p = f32[5] parameter(0)\nq = f32[5] parameter(1)\n"
       "a = pred[5] compare(p, q), direction=LT, type=TOTALORDER\n"
       "r = bf16[5] parameter(2)\ns = bf16[5] parameter(3)\n"
       "b = pred[5] compare(r, s), direction=GE, type=TOTALORDER\n"
       "ROOT t = (pred[5], pred[5]) tuple(a, b) }",
       {Of<uint32_t>({0x80000000, 0, 0xffc00000, 0x7f800000, 0x7fc00001}),
        Of<uint32_t>({0, 0x80000000, 0xff800000, 0x7fc00000, 0x7fc00000}),
        U16({0x8000, 0xffc0, 0x7fc1, 0x3f80, 0x7f80}),
        U16({0x0000, 0xff80, 0x7fc0, 0x3f80, 0x7fc0})},
       {Of<uint8_t>({1, 0, 1, 1, 0}), Of<uint8_t>({0, 0, 1, 1, 0})}});
  // The constant `nan` is XLA's positive quiet NaN, `-nan` the negative.
  cases.push_back(
      {"nan_constant_bits",
       "ENTRY e { c = f32[] constant(nan)\nd = f32[] constant(-nan)\n"
       "a = s32[] bitcast-convert(c)\nb = s32[] bitcast-convert(d)\n"
       "ROOT t = (s32[], s32[]) tuple(a, b) }",
       {},
       {Of<uint32_t>({0x7fc00000}), Of<uint32_t>({0xffc00000})}});
  // reduce-precision (it was refused; XLA emits it): round the mantissa to
  // nearest even, overflow to inf, underflow to a signed zero, NaN kept.
  // f32 to f16's range and precision; f16 to 2 mantissa bits (on its own
  // bits: subnormals round as their bits say).
  cases.push_back(
      {"reduce_precision",
       "ENTRY e { p = f32[7] parameter(0)\nq = f16[5] parameter(1)\n"
       "a = f32[7] reduce-precision(p), exponent_bits=5, "
       "mantissa_bits=10\n"
       "b = f16[5] reduce-precision(q), exponent_bits=5, "
       "mantissa_bits=2\n"
       "ROOT t = (f32[7], f16[5]) tuple(a, b) }",
       {Of<uint32_t>({0x3f800000, 0x477ff000, 0x322bcc77, 0xb7fba882,
                      0x3f801000, 0x3f803000, 0x7fc00001}),
        U16({0x0007, 0x0300, 0x3c00, 0x7bff, 0x8001})},
       {Of<uint32_t>({0x3f800000, 0x7f800000, 0, 0x80000000, 0x3f800000,
                      0x3f804000, 0x7fc00001}),
        U16({0, 0x0300, 0x3c00, 0x7c00, 0x8000})}});
  // x^0 = 1 and 1^y = 1 even for a signalling NaN (glibc's pow gave NaN).
  cases.push_back(
      {"power_of_signalling_nan",
       "ENTRY e { p = f32[3] parameter(0)\nq = f32[3] parameter(1)\n"
       "ROOT r = f32[3] power(p, q) }",
       {Of<uint32_t>({0x7f800001, 0x3f800000, 0x40000000}),
        Of<uint32_t>({0x80000000, 0x7fa00000, 0x40400000})},
       {F32({1, 1, 8})}});
  // The inverse and hyperbolic functions at their exact points: signed
  // zeros kept by the odd ones, the domain edges of acos / asin / atan /
  // atanh / acosh, and cosh / sinh past f32's range.
  cases.push_back(
      {"inverse_hyperbolic_edges",
       "ENTRY e { p = f32[4] parameter(0)\nq = f32[2] parameter(1)\n"
       "r = f32[3] parameter(2)\ns = f32[4] parameter(3)\n"
       "a = f32[4] asin(p)\nb = f32[4] acos(p)\nc = f32[4] atan(p)\n"
       "d = f32[4] atanh(p)\ne = f32[2] acosh(q)\nf = f32[3] cosh(r)\n"
       "g = f32[3] sinh(r)\nh = f32[4] asinh(s)\n"
       "ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[2], f32[3], f32[3], "
       "f32[4]) tuple(a, b, c, d, e, f, g, h) }",
       {F32({-0.0f, 0.0f, 1, -1}), F32({1, kInf}), F32({-0.0f, -100, 100}),
        F32({-0.0f, 0.0f, -kInf, kInf})},
       {Of<uint32_t>({0x80000000, 0, 0x3fc90fdb, 0xbfc90fdb}),
        Of<uint32_t>({0x3fc90fdb, 0x3fc90fdb, 0, 0x40490fdb}),
        Of<uint32_t>({0x80000000, 0, 0x3f490fdb, 0xbf490fdb}),
        Of<uint32_t>({0x80000000, 0, 0x7f800000, 0xff800000}),
        Of<uint32_t>({0, 0x7f800000}),
        Of<uint32_t>({0x3f800000, 0x7f800000, 0x7f800000}),
        Of<uint32_t>({0x80000000, 0xff800000, 0x7f800000}),
        Of<uint32_t>({0x80000000, 0, 0xff800000, 0x7f800000})}});
  // pred arithmetic (XLA's evaluator: add is or, subtract xor, multiply
  // and) on the four operand pairs.
  cases.push_back(
      {"pred_arithmetic",
       "ENTRY e { p = pred[4] parameter(0)\nq = pred[4] parameter(1)\n"
       "a = pred[4] add(p, q)\nb = pred[4] subtract(p, q)\n"
       "c = pred[4] multiply(p, q)\n"
       "ROOT t = (pred[4], pred[4], pred[4]) tuple(a, b, c) }",
       {Of<uint8_t>({0, 0, 1, 1}), Of<uint8_t>({0, 1, 0, 1})},
       {Of<uint8_t>({0, 1, 1, 1}), Of<uint8_t>({0, 1, 1, 0}),
        Of<uint8_t>({0, 0, 0, 1})}});
  CheckAll(cases);
}

TEST_CASE("emit buffers: shapes in XLA's text, repeated tiles in one T") {
  auto module = hlo::ParseHloModule(
      "ENTRY e { p = bf16[17,260]{1,0:T(8,128)(2,1)} parameter(0)\n"
      "ROOT n = bf16[17,260]{1,0:T(8,128)(2,1)} negate(p) }");
  REQUIRE(module.ok());
  auto region = ResolveFusion(**module, "");
  REQUIRE(region.ok());
  ExprContext ctx;
  emit::EmitOptions options;
  auto emitted =
      emit::EmitFusion(*region, *hw::FindDevice("h100"), options, &ctx);
  REQUIRE(emitted.ok());
  REQUIRE(emitted->buffers.size() == 2);
  CHECK(emitted->buffers[0].shape == "bf16[17,260]{1,0:T(8,128)(2,1)}");
  CHECK(emitted->buffers[1].shape == "bf16[17,260]{1,0:T(8,128)(2,1)}");
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
