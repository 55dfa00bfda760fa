// PTO tiles, TTRANS and formats: docs/hw-reference.md §3.6's worked examples
// and brute-force checks of the offset maps and format maps.
#include "hw/pto.h"

#include <catch2/catch.hpp>
#include <set>

#include "core/enumerate.h"

namespace ixa::hw::pto {
namespace IXA_UNITY_ID {

DType T(const char* name) { return *FindDType(name); }

Tile MakeTile(Loc loc, const char* dtype, int64_t rows, int64_t cols, Order b,
              Order s, int64_t fractal = 512) {
  Tile t;
  t.loc = loc;
  t.dtype = T(dtype);
  t.rows = rows;
  t.cols = cols;
  t.blayout = b;
  t.slayout = s;
  t.fractal_bytes = fractal;
  return t;
}

int64_t Off(const Tile& t, int64_t r, int64_t c) {
  auto o = TileOffset(t, r, c);
  REQUIRE(o.ok());
  return *o;
}

using O = Order;

TEST_CASE("pto: tile offsets", "[hw][pto]") {
  CHECK(Off(MakeTile(Loc::kVec, "f32", 16, 16, O::kRowMajor, O::kNoneBox), 3,
            5) == 53);
  CHECK(Off(MakeTile(Loc::kVec, "f16", 32, 16, O::kColMajor, O::kNoneBox), 3,
            5) == 163);
  CHECK(Off(MakeTile(Loc::kMat, "f16", 32, 32, O::kColMajor, O::kRowMajor), 17,
            20) == 788);
  CHECK(Off(MakeTile(Loc::kRight, "s8", 64, 64, O::kRowMajor, O::kColMajor), 40,
            18) == 2632);
  CHECK(Off(MakeTile(Loc::kLeft, "f32", 16, 16, O::kRowMajor, O::kRowMajor), 5,
            11) == 171);
  CHECK(
      Off(MakeTile(Loc::kAcc, "f32", 32, 32, O::kColMajor, O::kRowMajor, 1024),
          20, 3) == 323);
  auto box =
      InnerBox(MakeTile(Loc::kRight, "s8", 64, 64, O::kRowMajor, O::kColMajor));
  REQUIRE(box.ok());
  CHECK(box->rows == 32);
  CHECK(box->cols == 16);
}

TEST_CASE("pto: tile checks", "[hw][pto]") {
  CHECK(!CheckTile(MakeTile(Loc::kVec, "f16", 16, 8, O::kRowMajor, O::kNoneBox))
             .valid);
  Check mat =
      CheckTile(MakeTile(Loc::kMat, "f16", 24, 32, O::kColMajor, O::kRowMajor));
  CHECK(!mat.valid);
  REQUIRE(mat.failures.size() == 1);
  CHECK(mat.failures[0].find("24") != std::string::npos);
  CHECK(
      CheckTile(MakeTile(Loc::kVec, "f16", 24, 32, O::kColMajor, O::kRowMajor))
          .valid);
  CHECK(CheckTile(MakeTile(Loc::kVec, "f32", 16, 16, O::kRowMajor, O::kNoneBox))
            .valid);
  Tile v = MakeTile(Loc::kVec, "f32", 16, 16, O::kRowMajor, O::kNoneBox);
  v.valid_row = 17;
  CHECK(!CheckTile(v).valid);
  CHECK(!CheckTile(MakeTile(Loc::kVec, "f32", 16, 16, O::kRowMajor,
                            O::kRowMajor, 256))
             .valid);
}

TEST_CASE("pto: TTRANS", "[hw][pto]") {
  Tile src = MakeTile(Loc::kVec, "f16", 20, 48, O::kRowMajor, O::kNoneBox);
  src.valid_col = 40;
  Tile dst = MakeTile(Loc::kVec, "f16", 48, 32, O::kRowMajor, O::kNoneBox);
  TtransPlan p = CheckTtrans(Arch::kA2A3, src, dst);
  CHECK(p.check.valid);
  CHECK(p.path == "vector");
  CHECK(p.tmp_bytes == 2560);
  Tile fs = MakeTile(Loc::kVec, "f32", 24, 40, O::kRowMajor, O::kNoneBox);
  Tile fd = MakeTile(Loc::kVec, "f32", 40, 24, O::kRowMajor, O::kNoneBox);
  p = CheckTtrans(Arch::kA2A3, fs, fd);
  CHECK(p.check.valid);
  CHECK(p.path == "scalar");
  CHECK(p.tmp_bytes == 0);
  Tile big_src =
      MakeTile(Loc::kVec, "f16", 256, 512, O::kRowMajor, O::kNoneBox);
  Tile big_dst =
      MakeTile(Loc::kVec, "f16", 512, 256, O::kRowMajor, O::kNoneBox);
  p = CheckTtrans(Arch::kA5, big_src, big_dst);
  CHECK(!p.check.valid);
  REQUIRE(!p.check.failures.empty());
  CHECK(p.check.failures.back().find("131071") != std::string::npos);
  // Element sizes must match; the source must be row-major.
  p = CheckTtrans(
      Arch::kA5, MakeTile(Loc::kVec, "f32", 16, 16, O::kRowMajor, O::kNoneBox),
      MakeTile(Loc::kVec, "f16", 16, 16, O::kRowMajor, O::kNoneBox));
  CHECK(!p.check.valid);
  p = CheckTtrans(
      Arch::kA5, MakeTile(Loc::kVec, "f32", 16, 16, O::kRowMajor, O::kNoneBox),
      MakeTile(Loc::kVec, "f32", 16, 16, O::kRowMajor, O::kNoneBox));
  CHECK(p.check.valid);
  CHECK(p.tmp_bytes == 0);
  p = CheckTtrans(
      Arch::kA2A3,
      MakeTile(Loc::kVec, "f64", 16, 16, O::kRowMajor, O::kNoneBox),
      MakeTile(Loc::kVec, "f64", 16, 16, O::kRowMajor, O::kNoneBox));
  CHECK(!p.check.valid);
}

TEST_CASE("pto: tmp sizes", "[hw][pto]") {
  auto tmp = [](const char* conv, const char* dt, std::vector<int64_t> shape) {
    auto r = TmpBytes(conv, T(dt), shape);
    REQUIRE(r.ok());
    return *r;
  };
  CHECK(tmp("transpose_2d", "f16", {16, 16}) == 512);
  CHECK(tmp("transpose_2d", "s8", {40, 64}) == 4096);
  CHECK(tmp("transpose_2d", "f32", {33, 8}) == 1536);
  CHECK(tmp("nchw_to_nc1hwc0", "f16", {1, 16, 4, 8}) == 1024);
  CHECK(tmp("nc1hwc0_to_nchw", "f32", {1, 1, 3, 5, 8}) == 512);
  CHECK(tmp("gnchw_to_gnc1hwc0", "f16", {2, 1, 16, 4, 8}) == 1024);
  CHECK(tmp("gnc1hwc0_to_gnchw", "f32", {2, 1, 1, 3, 5, 8}) == 512);
  CHECK(tmp("ncdhw_to_fractal_z_3d", "s8", {20, 40, 1, 3, 3}) == 23040);
  CHECK(tmp("ncdhw_to_fractal_z_3d", "f32", {1, 5, 1, 2, 2}) == 384);
  CHECK(tmp("nc1hwc0_to_fractal_z", "f16", {16, 1, 1, 1, 16}) == 0);
  CHECK(!TmpBytes("transpose_2d", T("f16"), {16}).ok());
  CHECK(!TmpBytes("nope", T("f16"), {16, 16}).ok());
}

std::vector<int64_t> Coords(const Format& f, std::vector<int64_t> x,
                            int64_t* offset = nullptr) {
  auto p = FormatForward(f, x);
  REQUIRE(p.ok());
  if (offset) *offset = p->offset;
  return p->coords;
}

TEST_CASE("pto: formats", "[hw][pto]") {
  ExprContext ctx;
  auto nc = MakeFormat("nchw_to_nc1hwc0", T("f16"), {2, 20, 3, 4}, &ctx);
  REQUIRE(nc.ok());
  CHECK(nc->c0 == 16);
  CHECK(nc->c1 == 2);
  CHECK(nc->dst_shape == std::vector<int64_t>{2, 2, 3, 4, 16});
  int64_t off = 0;
  CHECK(Coords(*nc, {1, 17, 2, 3}, &off) ==
        std::vector<int64_t>{1, 1, 2, 3, 1});
  CHECK(off == 753);
  auto pad = FormatBackward(*nc, {0, 1, 0, 0, 5});
  REQUIRE(pad.ok());
  CHECK(!pad->has_value());
  auto real = FormatBackward(*nc, {1, 1, 2, 3, 1});
  REQUIRE(real.ok());
  CHECK(**real == std::vector<int64_t>{1, 17, 2, 3});

  auto fz = MakeFormat("nchw_to_fractal_z", T("f16"), {20, 20, 3, 3}, &ctx);
  REQUIRE(fz.ok());
  CHECK(Coords(*fz, {17, 18, 1, 2}, &off) == std::vector<int64_t>{14, 1, 1, 2});
  CHECK(off == 7442);
  auto fz8 = MakeFormat("nchw_to_fractal_z", T("s8"), {5, 40, 1, 1}, &ctx);
  REQUIRE(fz8.ok());
  CHECK(Coords(*fz8, {4, 35, 0, 0}, &off) == std::vector<int64_t>{1, 0, 4, 3});
  CHECK(off == 643);

  auto d3 =
      MakeFormat("ncdhw_to_fractal_z_3d", T("f16"), {16, 32, 2, 2, 2}, &ctx);
  REQUIRE(d3.ok());
  Coords(*d3, {3, 4, 1, 0, 1}, &off);
  CHECK(off == 2356);
  auto c3 = MakeFormat("ncdhw_to_fractal_z_3d", T("f16"), {16, 32, 2, 2, 2},
                       &ctx, Fz3dOrder::kC1Major);
  REQUIRE(c3.ok());
  Coords(*c3, {3, 4, 1, 0, 1}, &off);
  CHECK(off == 1332);
  auto f3 =
      MakeFormat("ncdhw_to_fractal_z_3d", T("f32"), {20, 12, 3, 2, 2}, &ctx);
  REQUIRE(f3.ok());
  CHECK(Coords(*f3, {19, 11, 2, 1, 0}, &off) ==
        std::vector<int64_t>{22, 1, 3, 3});
  CHECK(off == 5787);
  auto ndc = MakeFormat("ncdhw_to_ndc1hwc0", T("f16"), {2, 24, 3, 2, 4}, &ctx);
  REQUIRE(ndc.ok());
  Coords(*ndc, {1, 20, 2, 1, 3}, &off);
  CHECK(off == 1524);
  CHECK(*C0ForType(T("s4")) == 64);
  CHECK(*C0ForType(T("s8")) == 32);
  CHECK(*C0ForType(T("f32")) == 8);
}

// The code generator's conversions (docs/pto.md §3) as formats.
TEST_CASE("pto: code generator formats", "[hw][pto]") {
  ExprContext ctx;
  int64_t off = 0;
  auto tr = MakeFormat("transpose_2d", T("f64"), {3, 5}, &ctx);
  REQUIRE(tr.ok());  // no C0 needed: any type
  CHECK(tr->dst_shape == std::vector<int64_t>{5, 3});
  CHECK(Coords(*tr, {2, 4}, &off) == std::vector<int64_t>{4, 2});
  CHECK(off == 14);
  auto nz = MakeFormat("nd_to_nz", T("f16"), {3, 37}, &ctx);
  REQUIRE(nz.ok());
  CHECK(nz->dst_shape == std::vector<int64_t>{3, 3, 16});
  CHECK(Coords(*nz, {2, 35}, &off) == std::vector<int64_t>{2, 2, 3});
  CHECK(off == 2 * 48 + 2 * 16 + 3);
  auto pad = FormatBackward(*nz, {2, 0, 5});  // column 37 >= 37
  REQUIRE(pad.ok());
  CHECK(!pad->has_value());
  CHECK(!MakeFormat("nd_to_nz", T("f64"), {3, 5}, &ctx).ok());
  auto nd = MakeFormat("nz_to_nd", T("f32"), {3, 5, 8}, &ctx);
  REQUIRE(nd.ok());
  CHECK(nd->dst_shape == std::vector<int64_t>{5, 24});
  auto back = FormatBackward(*nd, {4, 17});
  REQUIRE(back.ok());
  CHECK(**back == std::vector<int64_t>{2, 4, 1});
  auto nchw = MakeFormat("nc1hwc0_to_nchw", T("f16"), {2, 2, 3, 1, 16}, &ctx);
  REQUIRE(nchw.ok());
  CHECK(nchw->dst_shape == std::vector<int64_t>{2, 32, 3, 1});
  CHECK(Coords(*nchw, {1, 1, 2, 0, 5}) == std::vector<int64_t>{1, 21, 2, 0});
  auto rank = MakeFormat("nz_to_nd", T("f32"), {3, 5}, &ctx);
  REQUIRE(!rank.ok());
  CHECK(rank.error().message ==
        "nz_to_nd takes a rank-3 source shape, got rank 2");
}

TEST_CASE("pto: element types, UB and DMA rules", "[hw][pto]") {
  CHECK(IsTtransElementType(T("bf16")));
  CHECK(IsTtransElementType(T("u8")));
  CHECK(!IsTtransElementType(T("pred")));
  CHECK(!IsTtransElementType(T("f64")));
  CHECK(ElementTypeFailure(T("f64")) ==
        "element type f64 is not one of u32/s32/f32, u16/s16/f16/bf16, u8/s8");
  CHECK(UbBytes(Arch::kA2A3) == 192 * 1024);
  CHECK(UbBytes(Arch::kA5) == 192 * 1024);
  CHECK(CheckDma(Arch::kA2A3, 4095, 1).valid);
  Check rows = CheckDma(Arch::kA2A3, 4096, 1);
  REQUIRE(!rows.valid);
  CHECK(rows.failures[0].find("4096") != std::string::npos);
  CHECK(CheckDma(Arch::kA5, 6144, 1).valid);
  Check both = CheckDma(Arch::kA2A3, 5000, 2);
  CHECK(both.failures.size() == 2);
}

// Every tile kind: offsets of the valid region are distinct, inside the
// tile, the map agrees with the numeric form, and the inverse inverts them;
// the other offsets are exactly the padding.
TEST_CASE("pto: brute force on tiles", "[hw][pto]") {
  std::vector<Tile> tiles = {
      MakeTile(Loc::kVec, "f32", 4, 16, O::kRowMajor, O::kNoneBox),
      MakeTile(Loc::kVec, "f16", 32, 5, O::kColMajor, O::kNoneBox),
      MakeTile(Loc::kMat, "f16", 32, 32, O::kColMajor, O::kRowMajor),
      MakeTile(Loc::kRight, "s8", 64, 32, O::kRowMajor, O::kColMajor),
      MakeTile(Loc::kLeft, "f32", 32, 16, O::kRowMajor, O::kRowMajor),
      MakeTile(Loc::kMat, "f32", 16, 32, O::kColMajor, O::kColMajor),
      MakeTile(Loc::kAcc, "f32", 32, 32, O::kColMajor, O::kRowMajor, 1024),
  };
  tiles[0].valid_row = 3;
  tiles[0].valid_col = 10;
  tiles[2].valid_row = 17;
  for (const Tile& t : tiles) {
    INFO(LocName(t.loc) << " " << t.dtype.name << " " << t.rows << "x"
                        << t.cols);
    REQUIRE(CheckTile(t).valid);
    ExprContext ctx;
    auto map = TileOffsetMap(t, &ctx);
    REQUIRE(map.ok());
    std::vector<int> seen(t.rows * t.cols, 0);
    auto r = ForEachDomainPoint(*map, 1 << 20, [&](const Point& p) {
      int64_t o = Off(t, p.dims[0], p.dims[1]);
      auto m = map->Evaluate(p.dims, {});
      REQUIRE(m.ok());
      REQUIRE((*m)[0] == o);
      REQUIRE((o >= 0 && o < t.rows * t.cols));
      REQUIRE(seen[o] == 0);
      seen[o] = 1;
      return true;
    });
    REQUIRE(r.ok());
    for (int64_t o = 0; o < t.rows * t.cols; ++o) {
      auto back = TileCoordsAt(t, o);
      REQUIRE(back.ok());
      REQUIRE(back->has_value() == (seen[o] == 1));
      if (back->has_value())
        CHECK(Off(t, (*back)->first, (*back)->second) == o);
    }
  }
}

// Formats: forward then backward is the identity, forward is injective, and
// the destination points that are not images are exactly the padding.
TEST_CASE("pto: brute force on formats", "[hw][pto]") {
  struct Case {
    const char* conv;
    const char* dtype;
    std::vector<int64_t> shape;
    Fz3dOrder order;
  };
  std::vector<Case> cases = {
      {"nchw_to_nc1hwc0", "f32", {2, 11, 2, 3}, Fz3dOrder::kDMajor},
      {"gnchw_to_gnc1hwc0", "f32", {2, 1, 9, 2, 2}, Fz3dOrder::kDMajor},
      {"ncdhw_to_ndc1hwc0", "f32", {1, 10, 2, 2, 2}, Fz3dOrder::kDMajor},
      {"nc1hwc0_to_fractal_z", "f32", {18, 2, 2, 1, 8}, Fz3dOrder::kDMajor},
      {"gnc1hwc0_to_fractal_z", "f32", {2, 17, 2, 1, 2, 8}, Fz3dOrder::kDMajor},
      {"nchw_to_fractal_z", "f32", {17, 9, 2, 2}, Fz3dOrder::kDMajor},
      {"ncdhw_to_fractal_z_3d", "f32", {17, 9, 2, 2, 1}, Fz3dOrder::kDMajor},
      {"ncdhw_to_fractal_z_3d", "f32", {17, 9, 2, 2, 1}, Fz3dOrder::kC1Major},
      {"transpose_2d", "s8", {5, 7}, Fz3dOrder::kDMajor},
      {"nd_to_nz", "f16", {3, 37}, Fz3dOrder::kDMajor},
      {"nd_to_nz", "s8", {2, 64}, Fz3dOrder::kDMajor},
      {"nz_to_nd", "f32", {3, 5, 8}, Fz3dOrder::kDMajor},
      {"nc1hwc0_to_nchw", "f16", {2, 2, 3, 1, 16}, Fz3dOrder::kDMajor},
  };
  for (const Case& c : cases) {
    INFO(c.conv);
    ExprContext ctx;
    auto f = MakeFormat(c.conv, T(c.dtype), c.shape, &ctx, c.order);
    REQUIRE(f.ok());
    int64_t dst_total = 1, src_total = 1;
    for (int64_t d : f->dst_shape) dst_total *= d;
    for (int64_t d : c.shape) src_total *= d;
    std::vector<int> hit(dst_total, 0);
    std::vector<int64_t> x(c.shape.size(), 0);
    for (int64_t n = 0; n < src_total; ++n) {
      auto p = FormatForward(*f, x);
      REQUIRE(p.ok());
      REQUIRE(hit[p->offset] == 0);
      hit[p->offset] = 1;
      auto back = FormatBackward(*f, p->coords);
      REQUIRE(back.ok());
      REQUIRE(back->has_value());
      REQUIRE(**back == x);
      for (int k = static_cast<int>(x.size()) - 1; k >= 0; --k) {
        if (++x[k] < c.shape[k]) break;
        x[k] = 0;
      }
    }
    auto r =
        ForEachDomainPoint(f->map, 1 << 20, [&](const Point&) { return true; });
    REQUIRE(r.ok());
    // Every destination point outside the image is padding.
    std::vector<int64_t> y(f->dst_shape.size(), 0);
    for (int64_t n = 0; n < dst_total; ++n) {
      auto back = FormatBackward(*f, y);
      REQUIRE(back.ok());
      REQUIRE(back->has_value() == (hit[n] == 1));
      for (int k = static_cast<int>(y.size()) - 1; k >= 0; --k) {
        if (++y[k] < f->dst_shape[k]) break;
        y[k] = 0;
      }
    }
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw::pto
