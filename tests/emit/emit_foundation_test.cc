// The test foundation itself: the reference interpreter against values
// worked out by hand, the physical layouts against docs/hw-reference.md
// §1.8, and the compile-and-run driver on hand-written kernels (including
// ones that must be caught: a crash, a write past a buffer).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "analysis/hlo/module.h"
#include "tests/emit/emit_driver.h"
#include "tests/emit/emit_interpreter.h"
#include "tests/emit/emit_literal.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

std::unique_ptr<hlo::Module> Parse(const std::string& text) {
  auto m = hlo::ParseHloModule(text);
  INFO(text);
  REQUIRE(m.ok());
  return std::move(m).value();
}

Literal Ints(ElementType t, std::vector<int64_t> dims,
             std::vector<int64_t> values) {
  Literal l = Literal::Make(t, std::move(dims));
  for (size_t i = 0; i < values.size(); ++i) {
    l.ints[i] = WrapToType(static_cast<uint64_t>(values[i]), t);
  }
  return l;
}

Literal Floats(ElementType t, std::vector<int64_t> dims,
               std::vector<double> values) {
  Literal l = Literal::Make(t, std::move(dims));
  for (size_t i = 0; i < values.size(); ++i) {
    l.floats[i] = RoundToType(values[i], t);
  }
  return l;
}

Literal Run(const std::string& hlo, const std::vector<Literal>& args) {
  auto m = Parse(hlo);
  auto r = Interpret(*m->entry(), args);
  INFO(hlo);
  if (!r.ok()) FAIL(r.error().ToString());
  return *r;
}

std::vector<int64_t> AsInts(const Literal& l) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < l.size(); ++i) v.push_back(l.AsInt(i));
  return v;
}

TEST_CASE("half and bfloat16 conversions round to nearest even") {
  CHECK(FloatToBF16(1.0f) == 0x3f80);
  // 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: ties to even (1.0).
  CHECK(FloatToBF16(1.00390625f) == 0x3f80);
  CHECK(FloatToBF16(1.01171875f) == 0x3f82);  // 1 + 3*2^-8 -> up to even
  CHECK(BF16ToFloat(0x4049) == 3.140625f);
  CHECK(FloatToHalf(1.0f) == 0x3c00);
  CHECK(FloatToHalf(65504.0f) == 0x7bff);
  CHECK(FloatToHalf(65520.0f) == 0x7c00);               // rounds to infinity
  CHECK(FloatToHalf(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(FloatToHalf(std::ldexp(1.0f, -25)) == 0x0000);  // tie to even: zero
  CHECK(HalfToFloat(0x3555) == 0.333251953125f);
  for (uint32_t h = 0; h < 0x7c00; h += 7) {
    CHECK(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))) == h);
  }
}

TEST_CASE("tiled physical layouts match the worked examples") {
  auto shape = hlo::ParseShape("f32[3,5]{1,0:T(2,2)}");
  REQUIRE(shape.ok());
  PhysicalLayout l = ComputePhysicalLayout(*shape);
  CHECK(l.elements == 24);
  CHECK(l.offset_of == std::vector<int64_t>{0, 1, 4, 5, 8, 2, 3, 6, 7, 10, 12,
                                            13, 16, 17, 20});
  auto bf = hlo::ParseShape("bf16[16,256]{1,0:T(8,128)(2,1)}");
  REQUIRE(bf.ok());
  PhysicalLayout b = ComputePhysicalLayout(*bf);
  CHECK(b.offset_of[Linearize({9, 130}, {16, 256})] == 3077);
  CHECK(b.offset_of[Linearize({1, 0}, {16, 256})] == 1);
  auto cm = hlo::ParseShape("f32[3,5]{0,1:T(2,2)}");
  REQUIRE(cm.ok());
  CHECK(ComputePhysicalLayout(*cm).offset_of[Linearize({2, 3}, {3, 5})] == 14);
  auto comb = hlo::ParseShape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  REQUIRE(comb.ok());
  PhysicalLayout c = ComputePhysicalLayout(*comb);
  CHECK(c.offset_of[Linearize({1, 3, 5, 7, 9}, {2, 7, 8, 11, 10})] == 9484);
  CHECK(c.elements == 12432);
}

// XLA's packing of sub-byte elements (its host packing routine and the
// layout its GPU emitters read, since 2024): element k of a byte in bits
// [k * bits, (k + 1) * bits), the first element in the low-order bits.
// The bytes are worked out by hand from that rule.
TEST_CASE("sub-byte literals pack as XLA packs them: low bits first") {
  struct Packed {
    const char* shape;
    ElementType type;
    std::vector<int64_t> values;
    std::vector<uint8_t> bytes;
  };
  const Packed kCases[] = {
      // XLA's example: s4 [-1, 2] is 0x2F.
      {"s4[2]{0:E(4)}", ElementType::kS4, {-1, 2}, {0x2F}},
      {"s4[3]{0:E(4)}", ElementType::kS4, {1, 2, -8}, {0x21, 0x08}},
      {"u4[3]{0:E(4)}", ElementType::kU4, {0xA, 0x5, 0xF}, {0x5A, 0x0F}},
      // 1 | -1 << 2 | 0 << 4 | -2 << 6 (two bits each): 0b10'00'11'01.
      {"s2[5]{0:E(2)}", ElementType::kS2, {1, -1, 0, -2, 1}, {0x8D, 0x01}},
      {"u2[4]{0:E(2)}", ElementType::kU2, {3, 0, 1, 2}, {0x93}},
      // Bit j of byte i is element 8i + j.
      {"s1[9]{0:E(1)}",
       ElementType::kS1,
       {-1, 0, 0, -1, 0, 0, 0, 0, -1},
       {0x09, 0x01}},
      {"u1[8]{0:E(1)}", ElementType::kU1, {1, 0, 1, 1, 0, 0, 0, 1}, {0x8D}},
      // In the physical order: column-major [2,2] stores (0,0), (1,0), ...
      {"s4[2,2]{0,1:E(4)}", ElementType::kS4, {1, 2, 3, 4}, {0x31, 0x42}},
      // Without E(n), one sign-extended element per byte.
      {"s4[2]{0}", ElementType::kS4, {-1, 2}, {0xFF, 0x02}},
  };
  for (const Packed& c : kCases) {
    INFO(c.shape);
    auto shape = hlo::ParseShape(c.shape);
    REQUIRE(shape.ok());
    Literal lit = Ints(c.type, shape->dims, c.values);
    CHECK(ToPhysical(lit, *shape) == c.bytes);
    CHECK(AsInts(FromPhysical(c.bytes, *shape)) == c.values);
  }
}

TEST_CASE("interpreter: elementwise semantics of XLA") {
  // Integer division by zero is -1, INT_MIN / -1 is INT_MIN, x % 0 is x.
  Literal d =
      Run("a = s32[4] parameter(0)\nb = s32[4] parameter(1)\n"
          "ROOT r = s32[4] divide(a, b)",
          {Ints(ElementType::kS32, {4}, {7, -7, 5, INT32_MIN}),
           Ints(ElementType::kS32, {4}, {2, 2, 0, -1})});
  CHECK(AsInts(d) == std::vector<int64_t>{3, -3, -1, INT32_MIN});
  Literal m =
      Run("a = s32[3] parameter(0)\nb = s32[3] parameter(1)\n"
          "ROOT r = s32[3] remainder(a, b)",
          {Ints(ElementType::kS32, {3}, {-7, 5, INT32_MIN}),
           Ints(ElementType::kS32, {3}, {2, 0, -1})});
  CHECK(AsInts(m) == std::vector<int64_t>{-1, 5, 0});
  // Shifts past the width give 0 (or the sign for arithmetic shifts).
  Literal s =
      Run("a = s8[3] parameter(0)\nb = s8[3] parameter(1)\n"
          "ROOT r = s8[3] shift-right-arithmetic(a, b)",
          {Ints(ElementType::kS8, {3}, {-64, -64, 64}),
           Ints(ElementType::kS8, {3}, {2, 9, -1})});
  CHECK(AsInts(s) == std::vector<int64_t>{-16, -1, 0});
  // Float -> int saturates, NaN -> 0.
  Literal c = Run("a = f32[4] parameter(0)\nROOT r = s8[4] convert(a)",
                  {Floats(ElementType::kF32, {4}, {1e9, -1e9, NAN, -3.7})});
  CHECK(AsInts(c) == std::vector<int64_t>{127, -128, 0, -3});
  // bf16 arithmetic rounds per op: 256 + 1 = 256 in bf16.
  Literal b =
      Run("a = bf16[1] parameter(0)\nb = bf16[1] parameter(1)\n"
          "ROOT r = bf16[1] add(a, b)",
          {Floats(ElementType::kBF16, {1}, {256}),
           Floats(ElementType::kBF16, {1}, {1})});
  CHECK(b.floats[0] == 256.0);
  // maximum propagates NaN.
  Literal x =
      Run("a = f32[2] parameter(0)\nb = f32[2] parameter(1)\n"
          "ROOT r = f32[2] maximum(a, b)",
          {Floats(ElementType::kF32, {2}, {NAN, 1}),
           Floats(ElementType::kF32, {2}, {0, 2})});
  CHECK(std::isnan(x.floats[0]));
  CHECK(x.floats[1] == 2.0);
}

TEST_CASE("interpreter: data movement and reductions") {
  Literal p =
      Run("a = s32[2,3] parameter(0)\nz = s32[] constant(0)\n"
          "ROOT r = s32[3,5] pad(a, z), padding=1_0x0_0_1",
          {Ints(ElementType::kS32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  CHECK(AsInts(p) ==
        std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 4, 0, 5, 0, 6});
  Literal ds =
      Run("a = s32[5] parameter(0)\ni = s32[] parameter(1)\n"
          "ROOT r = s32[2] dynamic-slice(a, i), dynamic_slice_sizes={2}",
          {Ints(ElementType::kS32, {5}, {10, 11, 12, 13, 14}),
           Ints(ElementType::kS32, {}, {9})});  // clamped to 3
  CHECK(AsInts(ds) == std::vector<int64_t>{13, 14});
  Literal red =
      Run("add { a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
          " ROOT s = s32[] add(a, b) }\n"
          "ENTRY e { p = s32[2,3] parameter(0)\nc = s32[] constant(100)\n"
          "ROOT r = s32[3] reduce(p, c), dimensions={0}, to_apply=add }",
          {Ints(ElementType::kS32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  CHECK(AsInts(red) == std::vector<int64_t>{105, 107, 109});
  Literal g = Run(
      "p = s32[3,4] parameter(0)\ni = s32[2,1] parameter(1)\n"
      "ROOT r = s32[2,4] gather(p, i), offset_dims={1}, "
      "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
      "slice_sizes={1,4}",
      {Ints(ElementType::kS32, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
       Ints(ElementType::kS32, {2, 1}, {2, 0})});
  CHECK(AsInts(g) == std::vector<int64_t>{8, 9, 10, 11, 0, 1, 2, 3});
  Literal sc =
      Run("add { a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
          " ROOT s = s32[] add(a, b) }\n"
          "ENTRY e { p = s32[4] parameter(0)\ni = s32[3,1] parameter(1)\n"
          "u = s32[3] parameter(2)\n"
          "ROOT r = s32[4] scatter(p, i, u), update_window_dims={}, "
          "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
          "index_vector_dim=1, to_apply=add }",
          {Ints(ElementType::kS32, {4}, {0, 0, 0, 0}),
           Ints(ElementType::kS32, {3, 1}, {1, 1, 7}),
           Ints(ElementType::kS32, {3}, {5, 6, 9})});  // index 7 is skipped
  CHECK(AsInts(sc) == std::vector<int64_t>{0, 11, 0, 0});
  Literal rw = Run(
      "max { a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
      " ROOT s = s32[] maximum(a, b) }\n"
      "ENTRY e { p = s32[5] parameter(0)\nc = s32[] constant(-100)\n"
      "ROOT r = s32[3] reduce-window(p, c), window={size=3 stride=2 pad=1_1}, "
      "to_apply=max }",
      {Ints(ElementType::kS32, {5}, {3, 1, 4, 1, 5})});
  CHECK(AsInts(rw) == std::vector<int64_t>{3, 4, 5});
  Literal bc =
      Run("p = s32[2,3]{0,1} parameter(0)\nROOT r = s32[3,2]{1,0} bitcast(p)",
          {Ints(ElementType::kS32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  // Column-major [2,3] stores 1 4 2 5 3 6; read row-major as [3,2].
  CHECK(AsInts(bc) == std::vector<int64_t>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("driver: compiles, runs and guards hand-written kernels") {
  std::vector<CppKernel> kernels = {
      {"add_kernel",
       "#include <cstdint>\n"
       "static float twice(float x) { return x + x; }\n"
       "extern \"C\" void add_kernel(void* const* b) {\n"
       "  const float* a = static_cast<const float*>(b[0]);\n"
       "  float* o = static_cast<float*>(b[1]);\n"
       "  for (int i = 0; i < 8; ++i) o[i] = twice(a[i]);\n}\n"},
      {"overrun_kernel",
       "#include <cstdint>\n"
       "static float twice(float x) { return x + x; }\n"
       "extern \"C\" void overrun_kernel(void* const* b) {\n"
       "  float* o = static_cast<float*>(b[0]);\n"
       "  for (int i = 0; i <= 8; ++i) o[i] = twice(1.0f);\n}\n"},
      {"crash_kernel",
       "extern \"C\" void crash_kernel(void* const* b) {\n"
       "  volatile int* p = nullptr; *p = 1; (void)b;\n}\n"},
  };
  CppBatch batch;
  auto built = batch.Build(kernels);
  if (!built.ok()) FAIL(built.error().message);
  std::vector<std::vector<uint8_t>> buffers(2, std::vector<uint8_t>(32, 0));
  for (int i = 0; i < 8; ++i) {
    float v = 1.5f * i;
    std::memcpy(buffers[0].data() + 4 * i, &v, 4);
  }
  REQUIRE(batch.Run("add_kernel", &buffers).ok());
  float got;
  std::memcpy(&got, buffers[1].data() + 4 * 7, 4);
  CHECK(got == 21.0f);
  std::vector<std::vector<uint8_t>> one(1, std::vector<uint8_t>(32, 0));
  auto overrun = batch.Run("overrun_kernel", &one);
  REQUIRE_FALSE(overrun.ok());
  CHECK(overrun.error().message.find("outside") != std::string::npos);
  auto crash = batch.Run("crash_kernel", &one);
  REQUIRE_FALSE(crash.ok());
  CHECK(crash.error().message.find("crashed") != std::string::npos);
  auto bad = CppBatch::CompileOnly({{"x", "int f() { return undeclared; }\n"}});
  CHECK_FALSE(bad.ok());
}

TEST_CASE("driver: mlir-opt-14 verifies and mlir-cpu-runner-14 runs") {
  if (!FindTool("mlir-opt-14", {"/usr/lib/llvm-14/bin"})) {
    WARN("mlir-opt-14 not found: skipping the MLIR driver checks");
    return;
  }
  std::string kernel =
      "func @k(%a: memref<3xf32>, %b: memref<3xf32>) {\n"
      "  %c0 = arith.constant 0 : index\n  %c3 = arith.constant 3 : index\n"
      "  %c1 = arith.constant 1 : index\n"
      "  scf.for %i = %c0 to %c3 step %c1 {\n"
      "    %j = affine.apply affine_map<(d0) -> (2 - d0)>(%i)\n"
      "    %v = memref.load %a[%j] : memref<3xf32>\n"
      "    %w = arith.addf %v, %v : f32\n"
      "    memref.store %w, %b[%i] : memref<3xf32>\n  }\n  return\n}\n";
  auto errors = VerifyMlir({kernel, "func @broken() { return %x }\n"});
  CHECK(errors[0].empty());
  CHECK_FALSE(errors[1].empty());
  auto shape = hlo::ParseShape("f32[3]");
  REQUIRE(shape.ok());
  Literal in = Floats(ElementType::kF32, {3}, {1, 2, 4});
  std::vector<MlirBuffer> buffers = {{*shape, ToPhysical(in, *shape), false},
                                     {*shape, {}, true}};
  auto ran = RunMlirHost(kernel, "k", &buffers);
  if (!ran.ok()) FAIL(ran.error().message);
  Literal out = FromPhysical(buffers[1].bytes, *shape);
  CHECK(out.floats == std::vector<double>{8, 4, 2});
}

TEST_CASE("driver: nvcc compiles CUDA when present") {
  auto nvcc = FindNvcc();
  if (!nvcc) {
    WARN("nvcc not found (PATH, /usr/local/cuda/bin): CUDA checks skipped");
    return;
  }
  auto errors = CompileCuda(
      *nvcc,
      {"extern \"C\" __global__ void k(float* a) { a[threadIdx.x] = 1; }\n",
       "extern \"C\" __global__ void k(float* a) { a[threadIdx.x] = b; }\n"});
  CHECK(errors[0].empty());
  CHECK_FALSE(errors[1].empty());
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test

#include "tests/emit/emit_random_fusions.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

std::vector<hlo::Shape> ParameterShapes(const hlo::Computation& c) {
  std::vector<hlo::Shape> shapes;
  for (int64_t i = 0; i < c.parameter_count(); ++i) {
    shapes.push_back(c.parameter(i)->shape);
  }
  return shapes;
}

TEST_CASE("random fusions parse and interpret, deterministically") {
  const int per_kind = Sanitized() ? 3 : 15;
  for (TargetKind kind : AllTargetKinds()) {
    for (int seed = 0; seed < per_kind; ++seed) {
      GeneratedFusion f = GenerateFusion(kind, seed);
      CHECK(GenerateFusion(kind, seed).hlo == f.hlo);
      INFO(TargetKindName(kind) << " seed " << seed << "\n" << f.hlo);
      auto module = hlo::ParseHloModule(f.hlo);
      if (!module.ok()) FAIL(module.error().ToString());
      const hlo::Computation& entry = *(*module)->entry();
      auto inputs = GenerateInputs(f, ParameterShapes(entry), seed);
      auto result = Interpret(entry, inputs);
      if (!result.ok()) FAIL(result.error().ToString());
    }
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
