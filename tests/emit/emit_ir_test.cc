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

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit
