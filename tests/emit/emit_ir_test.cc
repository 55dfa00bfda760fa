// Unit checks of the kernel IR, its printers and passes on hand-built
// modules: min / max index expressions on every target,
// how index arithmetic prints, what the passes prove before rewriting.
#include <array>
#include <catch2/catch.hpp>
#include <cstring>

#include "emit/ir/kernel_ir.h"
#include "emit/ir/rewrite.h"
#include "emit/lower/lowering.h"
#include "emit/passes/passes.h"
#include "emit/targets/targets.h"
#include "tests/emit/cuda_model_driver.h"
#include "tests/emit/emit_driver.h"

namespace ixa::emit {
namespace IXA_UNITY_ID {

using ir::Type;
using ir::Val;

// One kernel storing f(th_x) into b0[expr(th_x)].
ir::Module StoreModule(const IndexingMap& map, int64_t threads,
                       int64_t elements) {
  ir::Module m;
  ir::Buffer out;
  out.name = "b0";
  out.type = Type::kS32;
  out.shape = hlo::Shape::Array(hlo::ElementType::kS32, {elements});
  out.is_output = true;
  m.buffers.push_back(out);
  ir::Kernel k;
  k.name = "k";
  k.launch.threads = {threads, 1, 1};
  Val th = ir::GridId(ir::VarKind::kThreadX, threads);
  auto shared = std::make_shared<const IndexingMap>(map);
  Val idx = ir::Apply(shared, 0, {th});
  ir::Block then;
  then.push_back(ir::Store(
      0, {idx}, ir::Op(ir::OpCode::kConvert, Type::kS32, {th}, Type::kIndex)));
  k.body.push_back(ir::If(ir::InDomain(shared, {th}), std::move(then)));
  m.kernel = std::move(k);
  return m;
}

TEST_CASE("min and max in index maps print and run on every target") {
  ExprContext ctx;
  // b0[th_x] = min(th_x, 5) + max(th_x - 9, 0) * 3 - max(min(th_x, 7), 2).
  Expr d = ctx.Dim(0);
  Expr e = d.Min(ctx.Constant(5)) + (d - 9).Max(ctx.Constant(0)) * 3 -
           d.Min(ctx.Constant(7)).Max(ctx.Constant(2));
  IndexingMap value =
      IndexingMap::FromTensorSizes(&ctx, {e}, std::vector<int64_t>{16}, {});
  REQUIRE(CheckPrintableMap(value).ok());
  ir::Module m;
  ir::Buffer out;
  out.name = "b0";
  out.type = Type::kS32;
  out.shape = hlo::Shape::Array(hlo::ElementType::kS32, {16});
  out.is_output = true;
  m.buffers.push_back(out);
  ir::Kernel k;
  k.name = "minmax";
  k.launch.threads = {16, 1, 1};
  const std::array<int64_t, 3> k_threads = k.launch.threads;
  Val th = ir::GridId(ir::VarKind::kThreadX, 16);
  Val v = ir::Apply(std::make_shared<const IndexingMap>(value), 0, {th});
  k.body.push_back(ir::Store(
      0, {th}, ir::Op(ir::OpCode::kConvert, Type::kS32, {v}, Type::kIndex)));
  m.kernel = std::move(k);
  std::vector<int32_t> expected;
  for (int64_t x = 0; x < 16; ++x) {
    expected.push_back(static_cast<int32_t>(
        std::min<int64_t>(x, 5) + std::max<int64_t>(x - 9, 0) * 3 -
        std::max<int64_t>(std::min<int64_t>(x, 7), 2)));
  }
  PrintOptions cpp;
  auto code = PrintModule(m, cpp);
  REQUIRE(code.ok());
  emit_test::CppBatch batch;
  REQUIRE(batch.Build({{"minmax", *code}}).ok());
  std::vector<std::vector<uint8_t>> buffers(1, std::vector<uint8_t>(64, 0));
  REQUIRE(batch.Run("minmax", &buffers).ok());
  std::vector<int32_t> got(16);
  std::memcpy(got.data(), buffers[0].data(), 64);
  CHECK(got == expected);
  PrintOptions cuda;
  cuda.target = Target::kCuda;
  auto cuda_code = PrintModule(m, cuda);
  REQUIRE(cuda_code.ok());
  emit_test::CudaModelBatch cuda_batch;
  auto cuda_built = cuda_batch.Build({{"minmax", *cuda_code}});
  INFO((cuda_built.ok() ? "" : cuda_built.error().message));
  REQUIRE(cuda_built.ok());
  LaunchDimensions launch;
  launch.threads = k_threads;
  buffers.assign(1, std::vector<uint8_t>(64, 0));
  auto ran = cuda_batch.Run("minmax", launch, emit_test::ThreadOrder::kRandom,
                            1, &buffers);
  INFO((ran.ok() ? "" : ran.error().message));
  REQUIRE(ran.ok());
  std::memcpy(got.data(), buffers[0].data(), 64);
  CHECK(got == expected);
  PrintOptions mlir;
  mlir.target = Target::kMlir;
  auto device = PrintModule(m, mlir);
  REQUIRE(device.ok());
  mlir.host = true;
  auto host = PrintModule(m, mlir);
  REQUIRE(host.ok());
  if (!emit_test::FindTool("mlir-opt-14", {"/usr/lib/llvm-14/bin"})) {
    WARN("mlir-opt-14 not found: MLIR not checked");
    return;
  }
  auto errors = emit_test::VerifyMlir({*device, *host});
  CHECK(errors[0] == "");
  CHECK(errors[1] == "");
  std::vector<emit_test::MlirBuffer> mb = {{out.shape, {}, true}};
  REQUIRE(emit_test::RunMlirHost(*host, "minmax", &mb).ok());
  std::memcpy(got.data(), mb[0].bytes.data(), 64);
  CHECK(got == expected);
}

TEST_CASE("index division prints as C division only where it is exact") {
  ExprContext ctx;
  // (d0 - 3) floordiv 4 can be negative: the floor helper; d0 floordiv 4
  // cannot: plain division.
  IndexingMap neg = IndexingMap::FromTensorSizes(
      &ctx, {(ctx.Dim(0) - 3).FloorDiv(4) + 1}, std::vector<int64_t>{8}, {});
  auto a = PrintModule(StoreModule(neg, 8, 8), PrintOptions{});
  REQUIRE(a.ok());
  CHECK(a->find("ixa_floordiv(") != std::string::npos);
  IndexingMap pos = IndexingMap::FromTensorSizes(&ctx, {ctx.Dim(0).FloorDiv(4)},
                                                 std::vector<int64_t>{8}, {});
  auto b = PrintModule(StoreModule(pos, 8, 8), PrintOptions{});
  REQUIRE(b.ok());
  CHECK(b->find("ixa_floordiv(") == std::string::npos);
  CHECK(b->find("(th_x / 4)") != std::string::npos);
}

TEST_CASE("flattening composes the layout map after the index chain") {
  ExprContext ctx;
  ir::Module m;
  ir::Buffer out;
  out.name = "b0";
  out.type = Type::kF32;
  auto shape = hlo::ParseShape("f32[3,5]{1,0:T(2,2)}");
  REQUIRE(shape.ok());
  out.shape = *shape;
  out.is_output = true;
  m.buffers.push_back(out);
  ir::Kernel k;
  k.name = "k";
  k.launch.threads = {15, 1, 1};
  Val th = ir::GridId(ir::VarKind::kThreadX, 15);
  auto map = std::make_shared<const IndexingMap>(IndexingMap::FromTensorSizes(
      &ctx, {ctx.Dim(0).FloorDiv(5), ctx.Dim(0) % 5}, std::vector<int64_t>{15},
      {}));
  std::vector<Val> idx = {ir::Apply(map, 0, {th}), ir::Apply(map, 1, {th})};
  k.body.push_back(ir::Store(0, idx, ir::ConstFloat(Type::kF32, 1)));
  m.kernel = std::move(k);
  REQUIRE(FlattenBuffers(&m, &ctx).ok());
  const ir::Stmt& store = m.kernel->body[0];
  REQUIRE(store.flat);
  // Element (2, 3) of f32[3,5]{1,0:T(2,2)} is at offset 17.
  const ir::Node& off = *store.indices[0];
  REQUIRE(off.kind == ir::NodeKind::kApply);
  auto value = off.map->Evaluate(std::vector<int64_t>{13}, {});
  REQUIRE(value.ok());
  CHECK((*value)[off.result] == 17);
  // The padding of the 2x2 tiles (24 slots for 15 elements) is written as
  // zero by a loop the pass appends.
  bool padding_loop = false;
  ir::ForEachStmt(m.kernel->body, [&](const ir::Stmt& s) {
    padding_loop =
        padding_loop || (s.kind == ir::StmtKind::kFor && s.name == "pad_k");
  });
  CHECK(padding_loop);
  CHECK(m.buffers[0].physical_elements == 24);
}

TEST_CASE("cuda computes indices in int only where every index value fits") {
  ExprContext ctx;
  PrintOptions cuda;
  cuda.target = Target::kCuda;
  // b0[th_x] over 8 threads: int.
  ir::Module small =
      StoreModule(IndexingMap::FromTensorSizes(&ctx, {ctx.Dim(0)},
                                               std::vector<int64_t>{8}, {}),
                  8, 8);
  CHECK(ir::IndicesFitInt32(small));
  auto small_code = PrintModule(small, cuda);
  REQUIRE(small_code.ok());
  CHECK(small_code->find("const int th_x = threadIdx.x;") != std::string::npos);
  CHECK(small_code->find("int64_t") == std::string::npos);
  // The cpp target keeps int64_t.
  auto cpp_code = PrintModule(small, PrintOptions{});
  REQUIRE(cpp_code.ok());
  CHECK(cpp_code->find("int64_t") != std::string::npos);

  // d0 * 400000000 fits on the map's domain d0 in [0, 3], but the map is
  // applied (before its domain check) to th_x up to 7: 2.8e9 does not.
  IndexingMap wide = IndexingMap::FromTensorSizes(
      &ctx, {ctx.Dim(0) * 400000000}, std::vector<int64_t>{4}, {});
  ir::Module m = StoreModule(wide, 8, 8);
  CHECK(m.kernel->body[0].kind == ir::StmtKind::kIf);
  CHECK(!ir::IndicesFitInt32(m));
  auto wide_code = PrintModule(m, cuda);
  REQUIRE(wide_code.ok());
  CHECK(wide_code->find("const int64_t th_x") != std::string::npos);

  // A subexpression out of int32 range with a result in it: (d0 * 2^31)
  // floordiv 2^31 over d0 in [0, 7] is d0, but C evaluates the product.
  IndexingMap product = IndexingMap::FromTensorSizes(
      &ctx, {(ctx.Dim(0) * (int64_t{1} << 31)).FloorDiv(int64_t{1} << 31)},
      std::vector<int64_t>{8}, {});
  REQUIRE(product.results()[0] != ctx.Dim(0));  // not folded on creation
  CHECK(!ir::IndicesFitInt32(StoreModule(product, 8, 8)));
}

TEST_CASE("cuda clamps a 64-bit index in 64 bits under 32-bit indices") {
  // b1[th_x] = clamp(b0[th_x], 0, 7) with s64 b0: values past int32 must
  // not wrap before the clamp.
  ir::Module m;
  ir::Buffer in;
  in.name = "b0";
  in.type = Type::kS64;
  in.shape = hlo::Shape::Array(hlo::ElementType::kS64, {8});
  in.hlo_parameter = 0;
  m.buffers.push_back(in);
  ir::Buffer out;
  out.name = "b1";
  out.type = Type::kS32;
  out.shape = hlo::Shape::Array(hlo::ElementType::kS32, {8});
  out.is_output = true;
  out.hlo_output = 0;
  m.buffers.push_back(out);
  ir::Kernel k;
  k.name = "clamp64";
  k.launch.threads = {8, 1, 1};
  Val th = ir::GridId(ir::VarKind::kThreadX, 8);
  Val raw = ir::Load(0, Type::kS64, {th});
  Val index =
      ir::Op(ir::OpCode::kClampIndex, Type::kIndex,
             {ir::Op(ir::OpCode::kToIndex, Type::kIndex, {raw}, Type::kS64),
              ir::Index(0), ir::Index(7)});
  k.body.push_back(ir::Store(
      1, {th},
      ir::Op(ir::OpCode::kConvert, Type::kS32, {index}, Type::kIndex)));
  m.kernel = std::move(k);
  CHECK(ir::IndicesFitInt32(m));
  PrintOptions cuda;
  cuda.target = Target::kCuda;
  auto code = PrintModule(m, cuda);
  REQUIRE(code.ok());
  INFO(*code);
  CHECK(code->find("const int th_x") != std::string::npos);
  CHECK(code->find("static_cast<int>(ixa_clamp_index(static_cast<int64_t>(") !=
        std::string::npos);
  const std::vector<int64_t> values = {
      -5, 3, (int64_t{1} << 32) + 1, int64_t{1} << 40, 7, INT64_MIN, 6, 1};
  const std::vector<int32_t> expected = {0, 3, 7, 7, 7, 0, 6, 1};
  emit_test::CudaModelBatch batch;
  auto built = batch.Build({{"clamp64", *code}});
  INFO((built.ok() ? "" : built.error().message));
  REQUIRE(built.ok());
  std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(64),
                                               std::vector<uint8_t>(32, 0)};
  std::memcpy(buffers[0].data(), values.data(), 64);
  LaunchDimensions launch;
  launch.threads = {8, 1, 1};
  auto ran = batch.Run("clamp64", launch, emit_test::ThreadOrder::kForward, 1,
                       &buffers);
  INFO((ran.ok() ? "" : ran.error().message));
  REQUIRE(ran.ok());
  std::vector<int32_t> got(8);
  std::memcpy(got.data(), buffers[1].data(), 32);
  CHECK(got == expected);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit
