// PTO code generation refuses what the arch cannot run, with the reasons hw's
// checks give (every illegal TTRANS and tmp-size case of tests/hw/pto_test.cc
// through `emit`), and reports the tiles, tmp and UB it uses.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "emit/pto/pto_codegen.h"
#include "hw/dtype.h"
#include "hw/pto.h"

namespace ixa::emit::pto {
namespace IXA_UNITY_ID {

using hw::pto::Arch;

hw::DType T(const char* name) { return *hw::FindDType(name); }

PtoRequest Req(Arch arch, const char* conversion, const char* dtype,
               std::vector<int64_t> shape) {
  PtoRequest r;
  r.arch = arch;
  r.conversion = conversion;
  r.dtype = T(dtype);
  r.shape = std::move(shape);
  return r;
}

hw::pto::Tile VecTile(const char* dtype, int64_t rows, int64_t cols) {
  hw::pto::Tile t;
  t.dtype = T(dtype);
  t.rows = rows;
  t.cols = cols;
  return t;
}

// The request is refused as invalid_argument and names every reason.
void RequireRefused(const PtoRequest& r,
                    const std::vector<std::string>& reasons) {
  Result<PtoKernel> k = GeneratePtoKernel(r);
  REQUIRE(!k.ok());
  CHECK(k.error().code == ErrorCode::kInvalidArgument);
  for (const std::string& reason : reasons) {
    INFO("message: " << k.error().message);
    INFO("missing reason: " << reason);
    CHECK(k.error().message.find(reason) != std::string::npos);
  }
}

TEST_CASE("pto emit: the pto op's illegal TTRANS cases, same reasons",
          "[emit][pto]") {
  // A5, half 256x512 -> 512x256: the index register overflows (131071).
  hw::pto::TtransPlan a5 = hw::pto::CheckTtrans(
      Arch::kA5, VecTile("f16", 256, 512), VecTile("f16", 512, 256));
  REQUIRE(!a5.check.valid);
  PtoRequest r = Req(Arch::kA5, "transpose_2d", "f16", {256, 512});
  r.tile = std::array<int64_t, 2>{256, 512};
  RequireRefused(r, a5.check.failures);
  r.tile.reset();  // ixa's own tiles are legal
  CHECK(GeneratePtoKernel(r).ok());

  // Tile<Vec, half, 16, 8>: 16-byte rows.
  hw::pto::TtransPlan narrow = hw::pto::CheckTtrans(
      Arch::kA2A3, VecTile("f16", 16, 8), VecTile("f16", 8, 16));
  REQUIRE(!narrow.check.valid);
  r = Req(Arch::kA2A3, "transpose_2d", "f16", {16, 8});
  r.tile = std::array<int64_t, 2>{16, 8};
  RequireRefused(r, narrow.check.failures);

  // f64: not a TTRANS element type, 8-byte elements.
  hw::pto::TtransPlan wide = hw::pto::CheckTtrans(
      Arch::kA2A3, VecTile("f64", 16, 16), VecTile("f64", 16, 16));
  REQUIRE(!wide.check.valid);
  r = Req(Arch::kA2A3, "transpose_2d", "f64", {16, 16});
  r.tile = std::array<int64_t, 2>{16, 16};
  RequireRefused(r, wide.check.failures);
  r.tile.reset();
  RequireRefused(r, wide.check.failures);

  // src + dst + tmp beyond the A2/A3 unified buffer.
  hw::pto::TtransPlan big = hw::pto::CheckTtrans(
      Arch::kA2A3, VecTile("f32", 256, 256), VecTile("f32", 256, 256));
  REQUIRE(!big.check.valid);
  r = Req(Arch::kA2A3, "transpose_2d", "f32", {300, 300});
  r.tile = std::array<int64_t, 2>{256, 256};
  RequireRefused(r, big.check.failures);

  // Mismatched src/dst element sizes cannot be requested: one dtype.
}

TEST_CASE("pto emit: the pto op's tmp-size errors, same reasons",
          "[emit][pto]") {
  auto rank = hw::pto::TmpBytes("transpose_2d", T("f16"), {16});
  REQUIRE(!rank.ok());
  RequireRefused(Req(Arch::kA2A3, "transpose_2d", "f16", {16}),
                 {rank.error().message});
  auto unknown = hw::pto::TmpBytes("nope", T("f16"), {16, 16});
  REQUIRE(!unknown.ok());
  RequireRefused(Req(Arch::kA2A3, "nope", "f16", {16, 16}),
                 {unknown.error().message});
  auto wide = hw::pto::TmpBytes("nchw_to_nc1hwc0", T("f64"), {1, 8, 2, 2});
  REQUIRE(!wide.ok());
  RequireRefused(Req(Arch::kA2A3, "nchw_to_nc1hwc0", "f64", {1, 8, 2, 2}),
                 {hw::pto::ElementTypeFailure(T("f64"))});
}

TEST_CASE("pto emit: DMA, UB and element-type rules", "[emit][pto]") {
  // More than 4095 rows in one A2/A3 TLOAD; fine on A5.
  PtoRequest r = Req(Arch::kA2A3, "nd_to_nz", "f16", {5000, 16});
  r.tile = std::array<int64_t, 2>{5000, 16};
  RequireRefused(r, {hw::pto::CheckDma(Arch::kA2A3, 5000, 1).failures[0]});
  r.arch = Arch::kA5;
  CHECK(GeneratePtoKernel(r).ok());
  r.arch = Arch::kA2A3;
  r.tile.reset();  // ixa splits the rows itself
  CHECK(GeneratePtoKernel(r).ok());

  // A tile beyond the unified buffer, and several rules at once.
  r = Req(Arch::kA2A3, "nd_to_nz", "s8", {7000, 40});
  r.tile = std::array<int64_t, 2>{7000, 32};
  RequireRefused(r, {"beyond the 196608-byte unified buffer",
                     "fewer than 4096 rows (got 7000)"});
  r.tile = std::array<int64_t, 2>{64, 16};
  RequireRefused(r, {"the tile's cols must be 32"});

  RequireRefused(Req(Arch::kA5, "nd_to_nz", "pred", {4, 4}),
                 {hw::pto::ElementTypeFailure(T("pred"))});
  RequireRefused(Req(Arch::kA5, "nz_to_nd", "s4", {1, 4, 64}),
                 {hw::pto::ElementTypeFailure(T("s4")),
                  "no 32-byte block of whole elements"});
  RequireRefused(
      Req(Arch::kA2A3, "nc1hwc0_to_fractal_z", "u64", {2, 1, 1, 1, 4}),
      {hw::pto::ElementTypeFailure(T("u64"))});

  // Malformed requests.
  RequireRefused(Req(Arch::kA2A3, "nchw_to_nc1hwc0", "f16", {2, 0, 3, 3}),
                 {"shape sizes must be >= 1"});
  RequireRefused(Req(Arch::kA2A3, "ncdhw_to_fractal_z_3d", "f16", {2, 3, 3, 3}),
                 {"ncdhw_to_fractal_z_3d takes a rank-5 source shape"});
  RequireRefused(Req(Arch::kA2A3, "transpose_2d", "f16", {1 << 21, 1 << 21}),
                 {"more than 2^40 elements"});
  r = Req(Arch::kA2A3, "transpose_2d", "f16", {4, 4});
  r.kernel = "2bad name";
  RequireRefused(r, {"is not a C identifier"});
  r.kernel.clear();
  r.tile = std::array<int64_t, 2>{0, 16};
  RequireRefused(r, {"tile rows and cols must be in [1, 65536]"});
  r = Req(Arch::kA2A3, "nchw_to_nc1hwc0", "f16", {1, 20, 4, 4});
  r.tile = std::array<int64_t, 2>{24, 16};
  RequireRefused(r, {"rows must be a positive multiple of 16"});
}

// A fractal source (Nz, NC1HWC0) holds C0 = 32 bytes / sizeof elements in
// its innermost dimension: the fractal block. A source with any other C0 is
// refused, not copied as if it were one.
TEST_CASE("pto emit: a fractal source's C0 is the type's", "[emit][pto]") {
  RequireRefused(
      Req(Arch::kA2A3, "nc1hwc0_to_nchw", "f16", {2, 1, 3, 3, 5}),
      {"cannot generate nc1hwc0_to_nchw for a2a3 legally",
       "C0 must be 16 for f16 (32 bytes / 2)", "innermost dimension is 5"});
  RequireRefused(Req(Arch::kA5, "nz_to_nd", "f16", {2, 5, 12}),
                 {"C0 must be 16 for f16 (32 bytes / 2)"});
  RequireRefused(Req(Arch::kA5, "nc1hwc0_to_fractal_z", "s8", {3, 2, 2, 2, 16}),
                 {"C0 must be 32 for s8 (32 bytes / 1)"});
  RequireRefused(Req(Arch::kA2A3, "nz_to_nd", "f32", {2, 5, 16}),
                 {"C0 must be 8 for f32 (32 bytes / 4)"});
  // The type's own C0 is generated, for every element width.
  CHECK(GeneratePtoKernel(
            Req(Arch::kA2A3, "nc1hwc0_to_nchw", "f16", {2, 1, 3, 3, 16}))
            .ok());
  CHECK(GeneratePtoKernel(Req(Arch::kA5, "nz_to_nd", "f32", {2, 5, 8})).ok());
  CHECK(GeneratePtoKernel(
            Req(Arch::kA5, "nc1hwc0_to_fractal_z", "s8", {3, 2, 2, 2, 32}))
            .ok());
  // Conversions that compute C0 themselves take any channel count.
  CHECK(GeneratePtoKernel(
            Req(Arch::kA2A3, "nchw_to_nc1hwc0", "f16", {1, 5, 3, 3}))
            .ok());
  // hw's check: the same rule, silent for sources that are not fractal.
  CHECK_FALSE(
      hw::pto::CheckSourceC0("gnc1hwc0_to_gnchw", T("bf16"), {1, 1, 1, 1, 1, 8})
          .valid);
  CHECK(hw::pto::CheckSourceC0("gnc1hwc0_to_gnchw", T("bf16"),
                               {1, 1, 1, 1, 1, 16})
            .valid);
  CHECK(hw::pto::CheckSourceC0("transpose_2d", T("f16"), {4, 5}).valid);
}

// tmp_bytes is the docs/layouts.md formula of the whole conversion when one
// tile holds it (docs/hw-reference.md §3.6's worked examples), 0 on A5.
TEST_CASE("pto emit: tmp sizes are the formulas", "[emit][pto]") {
  struct Case {
    const char* conversion;
    const char* dtype;
    std::vector<int64_t> shape;
    int64_t bytes;
  };
  const std::vector<Case> cases = {
      {"transpose_2d", "f16", {16, 16}, 512},
      {"transpose_2d", "s8", {40, 64}, 4096},
      {"transpose_2d", "f32", {33, 8}, 1536},
      {"nchw_to_nc1hwc0", "f16", {1, 16, 4, 8}, 1024},
      {"nc1hwc0_to_nchw", "f32", {1, 1, 3, 5, 8}, 512},
  };
  for (const Case& c : cases) {
    INFO(c.conversion << " " << c.dtype);
    auto formula = hw::pto::TmpBytes(c.conversion, T(c.dtype), c.shape);
    REQUIRE(formula.ok());
    CHECK(*formula == c.bytes);
    auto k =
        GeneratePtoKernel(Req(Arch::kA2A3, c.conversion, c.dtype, c.shape));
    REQUIRE(k.ok());
    CHECK(k->tmp_bytes == c.bytes);
    auto a5 = GeneratePtoKernel(Req(Arch::kA5, c.conversion, c.dtype, c.shape));
    REQUIRE(a5.ok());
    CHECK(a5->tmp_bytes == 0);
  }
  // Pure reorderings use no TTRANS at all.
  auto fz = GeneratePtoKernel(
      Req(Arch::kA2A3, "nc1hwc0_to_fractal_z", "f16", {20, 2, 3, 3, 16}));
  REQUIRE(fz.ok());
  CHECK(fz->tmp_bytes == 0);
  CHECK(fz->code.find("TTRANS(") == std::string::npos);
}

TEST_CASE("pto emit: tiles, buffers and code shape", "[emit][pto]") {
  PtoRequest r = Req(Arch::kA2A3, "transpose_2d", "f16", {300, 700});
  r.kernel = "my_transpose";
  auto k = GeneratePtoKernel(r);
  REQUIRE(k.ok());
  CHECK(k->kernel == "my_transpose");
  REQUIRE(k->buffers.size() == 2);
  CHECK(k->buffers[0].name == "src");
  CHECK(k->buffers[1].role == "output");
  CHECK(k->buffers[1].dims == std::vector<int64_t>{700, 300});
  CHECK(k->code.find("extern \"C\" __global__ AICORE void my_transpose(__gm__ "
                     "half* src, __gm__ half* dst)") != std::string::npos);
  CHECK(k->code.find("#include <pto/pto-inst.hpp>") != std::string::npos);
  // The map of the `pto` op's format in a comment at the top.
  CHECK(k->code.find("//   (d0, d1) -> (d1, d0), domain: d0 in [0, 699], d1 "
                     "in [0, 299]") != std::string::npos);
  // Every tile inside the UB, TASSIGN offsets 32-byte aligned; the source
  // tile's ragged edge is a DYNAMIC valid extent.
  int64_t used = 0;
  bool dynamic = false;
  for (const PtoTileInfo& t : k->tiles) {
    CHECK(t.ub_offset % 32 == 0);
    CHECK(t.ub_offset + t.bytes <= hw::pto::UbBytes(Arch::kA2A3));
    CHECK(hw::pto::CheckTile(t.tile).valid);
    used = std::max(used, t.ub_offset + t.bytes);
    dynamic = dynamic || t.valid_cols.size() > 1;
  }
  CHECK(dynamic);
  CHECK(used == k->ub_bytes);
  // Large enough to fill most of the UB: tiles as large as it allows.
  CHECK(k->ub_bytes * 4 > hw::pto::UbBytes(Arch::kA2A3) * 3);
  CHECK(k->code.find("DYNAMIC") != std::string::npos);

  // A source that fits one tile has static valid extents.
  auto small = GeneratePtoKernel(Req(Arch::kA5, "transpose_2d", "f32", {5, 9}));
  REQUIRE(small.ok());
  CHECK(small->code.find("DYNAMIC") == std::string::npos);
  CHECK(small->code.find("for (") == std::string::npos);

  // Deterministic output.
  auto again = GeneratePtoKernel(r);
  REQUIRE(again.ok());
  CHECK(again->code == k->code);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit::pto
