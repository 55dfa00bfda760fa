#include "hw/pto.h"

#include <algorithm>

#include "core/int_math.h"
#include "simplifier/simplify.h"

namespace ixa::hw::pto {

namespace {

constexpr int64_t kBlockBytes = 32;       // BLOCK_BYTE_SIZE = C0_SIZE_BYTE
constexpr int64_t kN0 = 16;               // FRACTAL_Z N0
constexpr int64_t kUbBytes = 192 * 1024;  // A2/A3 unified buffer

int64_t RoundUp(int64_t a, int64_t b) { return *CeilDiv(a, b) * b; }

std::string Num(int64_t v) { return std::to_string(v); }

Result<int64_t> ElemBytes(const DType& t) {
  auto b = ByteSize(t);
  if (!b)
    return Error::Invalid("element type " + t.name +
                          " is not a whole number of bytes");
  return static_cast<int64_t>(*b);
}

Result<int64_t> CheckedProduct(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) {
    if (x < 1) return Error::Invalid("shape sizes must be >= 1");
    auto q = CheckedMul(p, x);
    if (!q) return Error::Invalid("shape size overflows int64");
    p = *q;
  }
  return p;
}

Result<int64_t> CheckedMulOr(int64_t a, int64_t b) {
  auto p = CheckedMul(a, b);
  if (!p) return Error::Invalid("shape size overflows int64");
  return *p;
}

Error RankError(std::string_view conversion, size_t want, size_t got) {
  return Error::Invalid(std::string(conversion) + " takes a rank-" + Num(want) +
                        " source shape, got rank " + Num(got));
}

}  // namespace

std::optional<Loc> ParseLoc(std::string_view s) {
  if (s == "Vec") return Loc::kVec;
  if (s == "Mat") return Loc::kMat;
  if (s == "Left") return Loc::kLeft;
  if (s == "Right") return Loc::kRight;
  if (s == "Acc") return Loc::kAcc;
  if (s == "Bias") return Loc::kBias;
  if (s == "Scaling") return Loc::kScaling;
  return std::nullopt;
}

std::optional<Order> ParseOrder(std::string_view s) {
  if (s == "NoneBox") return Order::kNoneBox;
  if (s == "RowMajor") return Order::kRowMajor;
  if (s == "ColMajor") return Order::kColMajor;
  return std::nullopt;
}

const char* LocName(Loc loc) {
  switch (loc) {
    case Loc::kVec:
      return "Vec";
    case Loc::kMat:
      return "Mat";
    case Loc::kLeft:
      return "Left";
    case Loc::kRight:
      return "Right";
    case Loc::kAcc:
      return "Acc";
    case Loc::kBias:
      return "Bias";
    case Loc::kScaling:
      return "Scaling";
  }
  return "?";
}

const char* OrderName(Order o) {
  switch (o) {
    case Order::kNoneBox:
      return "NoneBox";
    case Order::kRowMajor:
      return "RowMajor";
    case Order::kColMajor:
      return "ColMajor";
  }
  return "?";
}

Result<Box> InnerBox(const Tile& t) {
  IXA_ASSIGN_OR_RETURN(int64_t sz, ElemBytes(t.dtype));
  if (t.slayout == Order::kNoneBox) return Box{1, 1};
  if (t.fractal_bytes == 1024) return Box{16, 16};
  if (t.fractal_bytes == 32) return Box{16, 2};
  if (kBlockBytes % sz != 0)
    return Error::Invalid("element size does not divide 32 bytes");
  if (t.slayout == Order::kRowMajor) return Box{16, kBlockBytes / sz};
  return Box{kBlockBytes / sz, 16};
}

namespace {

// The offset formula of tile_offsets.hpp for any (blayout, slayout), on
// integers or expressions. NoneBox is the 1x1 box, which turns the boxed
// formulas into r*Cols + c (ND) and c*Rows + r (DN).
template <class V, class Fd, class Md>
V OffsetOf(const Tile& t, const Box& b, V r, V c, Fd fd, Md md) {
  V box = t.blayout == Order::kRowMajor ? fd(r, b.rows) * (t.cols * b.rows) +
                                              fd(c, b.cols) * (b.rows * b.cols)
                                        : fd(c, b.cols) * (t.rows * b.cols) +
                                              fd(r, b.rows) * (b.rows * b.cols);
  V inner = t.slayout == Order::kColMajor
                ? md(c, b.cols) * b.rows + md(r, b.rows)
                : md(r, b.rows) * b.cols + md(c, b.cols);
  return box + inner;
}

}  // namespace

Result<int64_t> TileOffset(const Tile& t, int64_t row, int64_t col) {
  IXA_ASSIGN_OR_RETURN(Box b, InnerBox(t));
  if (row < 0 || row >= t.rows || col < 0 || col >= t.cols) {
    return Error::Invalid("(" + Num(row) + ", " + Num(col) +
                          ") is outside the " + Num(t.rows) + "x" +
                          Num(t.cols) + " tile");
  }
  return OffsetOf<int64_t>(
      t, b, row, col, [](int64_t a, int64_t k) { return a / k; },
      [](int64_t a, int64_t k) { return a % k; });
}

Result<IndexingMap> TileOffsetMap(const Tile& t, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(Box b, InnerBox(t));
  auto fd = [](Expr a, int64_t k) { return k == 1 ? a : a.FloorDiv(k); };
  auto md = [ctx](Expr a, int64_t k) {
    return k == 1 ? ctx->Constant(0) : a % k;
  };
  Expr off = OffsetOf<Expr>(t, b, ctx->Dim(0), ctx->Dim(1), fd, md);
  std::vector<int64_t> sizes = {t.ValidRow(), t.ValidCol()};
  IndexingMap map = IndexingMap::FromTensorSizes(ctx, {off}, sizes, {});
  map.mutable_dims()[0].name = "row";
  map.mutable_dims()[1].name = "col";
  Simplify(&map);
  return map;
}

Result<std::optional<std::pair<int64_t, int64_t>>> TileCoordsAt(const Tile& t,
                                                                int64_t o) {
  IXA_ASSIGN_OR_RETURN(Box b, InnerBox(t));
  if (o < 0 || o >= t.rows * t.cols)
    return Error::Invalid("offset " + Num(o) + " is outside the tile");
  int64_t box_r, box_c, inner;
  if (t.blayout == Order::kRowMajor) {
    box_r = o / (t.cols * b.rows);
    box_c = (o % (t.cols * b.rows)) / (b.rows * b.cols);
  } else {
    box_c = o / (t.rows * b.cols);
    box_r = (o % (t.rows * b.cols)) / (b.rows * b.cols);
  }
  inner = o % (b.rows * b.cols);
  int64_t ir = t.slayout == Order::kColMajor ? inner % b.rows : inner / b.cols;
  int64_t ic = t.slayout == Order::kColMajor ? inner / b.rows : inner % b.cols;
  int64_t r = box_r * b.rows + ir, c = box_c * b.cols + ic;
  if (r >= t.ValidRow() || c >= t.ValidCol())
    return std::optional<std::pair<int64_t, int64_t>>();
  return std::optional<std::pair<int64_t, int64_t>>(std::pair{r, c});
}

Check CheckTile(const Tile& t) {
  Check check;
  auto sz = ElemBytes(t.dtype);
  if (!sz.ok()) {
    check.Fail(sz.error().message);
    return check;
  }
  if (t.rows <= 0 || t.cols <= 0)
    check.Fail("Rows and Cols must be positive (got " + Num(t.rows) + "x" +
               Num(t.cols) + ")");
  if (t.ValidRow() > t.rows || t.ValidRow() < 0)
    check.Fail("ValidRow " + Num(t.ValidRow()) +
               " is not in [0, Rows = " + Num(t.rows) + "]");
  if (t.ValidCol() > t.cols || t.ValidCol() < 0)
    check.Fail("ValidCol " + Num(t.ValidCol()) +
               " is not in [0, Cols = " + Num(t.cols) + "]");
  if (t.fractal_bytes != 512 && t.fractal_bytes != 1024 &&
      t.fractal_bytes != 32) {
    check.Fail("SFractalSize " + Num(t.fractal_bytes) +
               " is not 512, 1024 or 32");
    return check;
  }
  auto box = InnerBox(t);
  if (!box.ok()) {
    check.Fail(box.error().message);
    return check;
  }
  if (t.rows > 0 && t.rows % box->rows != 0 && t.loc != Loc::kVec &&
      t.fractal_bytes != 32 && t.rows != 1) {
    check.Fail("Rows " + Num(t.rows) + " is not a multiple of the fractal's " +
               Num(box->rows) + " rows");
  }
  if (t.cols > 0 && t.cols % box->cols != 0) {
    check.Fail("Cols " + Num(t.cols) + " is not a multiple of the fractal's " +
               Num(box->cols) + " columns");
  }
  if (t.slayout == Order::kNoneBox && t.blayout == Order::kRowMajor &&
      (t.cols * *sz) % kBlockBytes != 0) {
    check.Fail("row-major rows must be 32-byte aligned: Cols*sizeof = " +
               Num(t.cols * *sz) + " bytes");
  }
  if (t.slayout == Order::kNoneBox && t.blayout == Order::kColMajor &&
      (t.rows * *sz) % kBlockBytes != 0) {
    check.Fail("col-major columns must be 32-byte aligned: Rows*sizeof = " +
               Num(t.rows * *sz) + " bytes");
  }
  return check;
}

bool IsTtransElementType(const DType& t) {
  for (const char* n :
       {"u32", "s32", "f32", "u16", "s16", "f16", "bf16", "u8", "s8"}) {
    if (t.name == n) return true;
  }
  return false;
}

std::string ElementTypeFailure(const DType& t) {
  return "element type " + t.name +
         " is not one of u32/s32/f32, u16/s16/f16/bf16, u8/s8";
}

int64_t UbBytes(Arch) { return kUbBytes; }

Check CheckDma(Arch arch, int64_t rows, int64_t innermost_stride) {
  Check check;
  if (innermost_stride != 1) {
    check.Fail("the innermost global stride of a TLOAD/TSTORE must be 1 (got " +
               Num(innermost_stride) + ")");
  }
  if (arch == Arch::kA2A3 && rows >= 4096) {
    check.Fail("an A2/A3 TLOAD/TSTORE moves fewer than 4096 rows (got " +
               Num(rows) + ")");
  }
  return check;
}

std::optional<Arch> ParseArch(std::string_view s) {
  if (s == "a2a3" || s == "A2A3" || s == "a2" || s == "a3") return Arch::kA2A3;
  if (s == "a5" || s == "A5") return Arch::kA5;
  return std::nullopt;
}

int64_t TransposeRowStride(int64_t elem_bytes) {
  return elem_bytes == 1 ? 32 : 16;
}

TtransPlan CheckTtrans(Arch arch, const Tile& src, const Tile& dst) {
  TtransPlan plan;
  Check& check = plan.check;
  for (const auto& [name, tile] :
       {std::pair<const char*, const Tile*>{"src", &src}, {"dst", &dst}}) {
    for (const std::string& f : CheckTile(*tile).failures)
      check.Fail(std::string(name) + ": " + f);
  }
  auto ssz = ElemBytes(src.dtype), dsz = ElemBytes(dst.dtype);
  if (!ssz.ok() || !dsz.ok()) {
    plan.path = "none";
    return plan;
  }
  const int64_t sz = *ssz;
  if (*ssz != *dsz)
    check.Fail("element sizes differ: src " + Num(*ssz) + " bytes, dst " +
               Num(*dsz) + " bytes");
  if (sz != 1 && sz != 2 && sz != 4)
    check.Fail("element size must be 1, 2 or 4 bytes (got " + Num(sz) + ")");
  for (const auto& [name, tile] :
       {std::pair<const char*, const Tile*>{"src", &src}, {"dst", &dst}}) {
    if (!IsTtransElementType(tile->dtype))
      check.Fail(std::string(name) + " " + ElementTypeFailure(tile->dtype));
  }
  if (src.blayout != Order::kRowMajor) check.Fail("src must be row-major");
  const int64_t rs = TransposeRowStride(sz), epb = kBlockBytes / sz;
  if (arch == Arch::kA2A3) {
    // The transposed region is src's valid region.
    const int64_t h = src.ValidRow(), w = src.ValidCol();
    if (dst.rows < w || dst.cols < h) {
      check.Fail("dst " + Num(dst.rows) + "x" + Num(dst.cols) +
                 " cannot hold the transposed " + Num(w) + "x" + Num(h) +
                 " region");
    }
    const int64_t src_stride = src.cols;
    const int64_t dst_stride =
        dst.blayout == Order::kRowMajor ? dst.cols : dst.rows;
    if (dst_stride % rs == 0 && src_stride % epb == 0 &&
        src_stride / epb <= 255) {
      plan.path = "vector";
      plan.tmp_bytes = w * RoundUp(h, rs) * sz;
    } else {
      plan.path = "scalar";  // element-by-element copy, no tmp
    }
    int64_t total =
        (src.rows * src.cols + dst.rows * dst.cols) * sz + plan.tmp_bytes;
    if (total >= kUbBytes) {
      check.Fail("src + dst + tmp = " + Num(total) +
                 " bytes do not fit the 192 KiB unified buffer");
    }
  } else {
    for (const auto& [name, tile] :
         {std::pair<const char*, const Tile*>{"src", &src}, {"dst", &dst}}) {
      bool row_major = tile->blayout == Order::kRowMajor;
      int64_t major = (row_major ? tile->cols : tile->rows) * sz;
      if (major % kBlockBytes != 0) {
        check.Fail(std::string(name) +
                   (row_major ? " Cols*sizeof = " : " Rows*sizeof = ") +
                   Num(major) + " bytes is not 32-byte aligned");
      }
    }
    if (dst.rows < src.ValidCol() || dst.cols < src.ValidRow()) {
      check.Fail("dst " + Num(dst.rows) + "x" + Num(dst.cols) +
                 " cannot hold the transposed " + Num(src.ValidCol()) + "x" +
                 Num(src.ValidRow()) + " region");
    }
    // The gather/scatter index register must hold the largest index: the
    // row-wise path indexes dst, the column-wise path src.
    const Tile& idx_tile = src.rows < src.cols ? dst : src;
    const int64_t limit = sz == 4 ? 0xFFFFFFFFll : 0xFFFFll;
    const int64_t max_index =
        (idx_tile.rows - 1) * idx_tile.cols + idx_tile.cols - 1;
    if (max_index > limit) {
      check.Fail(std::string(src.rows < src.cols ? "dst" : "src") +
                 " index (Rows-1)*RowStride + Cols-1 = " + Num(max_index) +
                 " exceeds " + Num(limit));
    }
    plan.path = "vector";
    plan.tmp_bytes = 0;  // A5 does not use tmp
  }
  return plan;
}

Result<int64_t> C0ForType(const DType& dtype) {
  if (dtype.bits <= 0 || 256 % dtype.bits != 0 || dtype.bits > 32) {
    return Error::Invalid("no C0 for " + std::to_string(dtype.bits) +
                          "-bit type " + dtype.name);
  }
  return 256 / dtype.bits;
}

Check CheckSourceC0(std::string_view conversion, const DType& dtype,
                    const std::vector<int64_t>& shape) {
  Check check;
  size_t rank = 0;  // of the source, when it is fractal
  if (conversion == "nz_to_nd") rank = 3;
  if (conversion == "nc1hwc0_to_nchw" || conversion == "nc1hwc0_to_fractal_z")
    rank = 5;
  if (conversion == "gnc1hwc0_to_gnchw" ||
      conversion == "gnc1hwc0_to_fractal_z")
    rank = 6;
  if (rank == 0 || shape.size() != rank) return check;
  auto bytes = ElemBytes(dtype);
  if (!bytes.ok() || *bytes < 1 || kBlockBytes % *bytes != 0) return check;
  const int64_t c0 = kBlockBytes / *bytes;
  if (shape.back() != c0) {
    check.Fail("the source's innermost dimension is " + Num(shape.back()) +
               ": C0 must be " + Num(c0) + " for " + dtype.name +
               " (32 bytes / " + Num(*bytes) + ")");
  }
  return check;
}

Result<int64_t> TmpBytes(std::string_view conversion, const DType& dtype,
                         const std::vector<int64_t>& shape) {
  IXA_ASSIGN_OR_RETURN(int64_t sz, ElemBytes(dtype));
  if (sz != 1 && sz != 2 && sz != 4)
    return Error::Invalid("TTRANS element size must be 1, 2 or 4 bytes");
  IXA_ASSIGN_OR_RETURN(int64_t all, CheckedProduct(shape));
  (void)all;
  const int64_t rs = TransposeRowStride(sz);
  const int64_t c0 = 32 / sz;
  auto need = [&](size_t r) -> std::optional<Error> {
    if (shape.size() != r) return RankError(conversion, r, shape.size());
    return std::nullopt;
  };
  if (conversion == "transpose_2d") {
    if (auto e = need(2)) return *e;
    return shape[1] * RoundUp(shape[0], rs) * sz;  // W * round_up(H, RowStride)
  }
  if (conversion == "nchw_to_nc1hwc0" || conversion == "gnchw_to_gnc1hwc0") {
    size_t base = conversion[0] == 'g' ? 1 : 0;
    if (auto e = need(4 + base)) return *e;
    return shape[base + 2] * shape[base + 3] * RoundUp(c0, rs) * sz;
  }
  if (conversion == "nc1hwc0_to_nchw" || conversion == "gnc1hwc0_to_gnchw") {
    size_t base = conversion[0] == 'g' ? 1 : 0;
    if (auto e = need(5 + base)) return *e;
    int64_t src_c0 = shape[base + 4];
    return src_c0 * RoundUp(shape[base + 2] * shape[base + 3], rs) * sz;
  }
  if (conversion == "nc1hwc0_to_fractal_z" ||
      conversion == "gnc1hwc0_to_fractal_z")
    return int64_t{0};
  if (conversion == "ncdhw_to_fractal_z_3d") {
    if (auto e = need(5)) return *e;
    const int64_t n = shape[0], c = shape[1], h = shape[3], w = shape[4];
    const int64_t c1 = *CeilDiv(c, c0);
    const int64_t plane = n * c1 * c0 * h * w;
    return (plane + std::max(plane, h * w * RoundUp(c0, rs))) * sz;
  }
  return Error::Invalid("unknown conversion '" + std::string(conversion) + "'");
}

Result<Format> MakeFormat(std::string_view conversion, const DType& dtype,
                          const std::vector<int64_t>& shape, ExprContext* ctx,
                          Fz3dOrder order, int64_t c0_override) {
  // Formats that take C0 from the source shape (nz_to_nd, nc1hwc0_to_*) or
  // have none (transpose_2d) accept any element type; the others need the
  // type's C0.
  const bool c0_from_type =
      conversion != "transpose_2d" && conversion != "nz_to_nd" &&
      conversion != "nc1hwc0_to_nchw" && conversion != "nc1hwc0_to_fractal_z" &&
      conversion != "gnc1hwc0_to_fractal_z";
  int64_t type_c0 = 0;
  if (c0_from_type && c0_override <= 0) {
    IXA_ASSIGN_OR_RETURN(type_c0, C0ForType(dtype));
  }
  IXA_ASSIGN_OR_RETURN(int64_t total, CheckedProduct(shape));
  (void)total;
  Format f;
  f.conversion = std::string(conversion);
  f.order = order;
  f.src_shape = shape;
  f.c0 = c0_override > 0 ? c0_override : type_c0;
  auto d = [ctx](int i) { return ctx->Dim(i); };
  std::vector<Expr> results;
  std::vector<Constraint> constraints;
  // c = c1*C0 + c0 must stay below C: the padding predicate of C.
  auto channel = [&](Expr c1, Expr c0e, int64_t c) {
    Expr ch = c1 * f.c0 + c0e;
    if (c % f.c0 != 0) constraints.push_back({ch, Interval{0, c - 1}});
    return ch;
  };
  auto batch = [&](Expr n1, Expr n0, int64_t n) {
    Expr nn = n1 * kN0 + n0;
    if (n % kN0 != 0) constraints.push_back({nn, Interval{0, n - 1}});
    return nn;
  };
  auto need = [&](size_t r) -> std::optional<Error> {
    if (shape.size() != r) return RankError(conversion, r, shape.size());
    return std::nullopt;
  };
  if (conversion == "transpose_2d") {
    // dst[i, j] = src[j, i].
    if (auto e = need(2)) return *e;
    f.dst_shape = {shape[1], shape[0]};
    results = {d(1), d(0)};
  } else if (conversion == "nd_to_nz") {
    // [R, C] -> [C1, R, C0]: dst[c1, r, c0] = src[r, c1*C0 + c0].
    if (auto e = need(2)) return *e;
    f.c1 = *CeilDiv(shape[1], f.c0);
    f.dst_shape = {f.c1, shape[0], f.c0};
    results = {d(1), channel(d(0), d(2), shape[1])};
  } else if (conversion == "nz_to_nd") {
    // [C1, R, C0] -> [R, C1*C0]: dst[r, c] = src[c fd C0, r, c mod C0]; C0
    // is the source's innermost size, every destination point is data.
    if (auto e = need(3)) return *e;
    f.c1 = shape[0];
    f.c0 = shape[2];
    IXA_ASSIGN_OR_RETURN(int64_t cols, CheckedMulOr(f.c1, f.c0));
    f.dst_shape = {shape[1], cols};
    results = {d(1).FloorDiv(f.c0), d(0), d(1) % f.c0};
  } else if (conversion == "nc1hwc0_to_nchw") {
    // [N, C1, H, W, C0] -> [N, C1*C0, H, W]: the NC1HWC0 map read backwards;
    // the channel count is the padded C1*C0 (the source does not know C).
    if (auto e = need(5)) return *e;
    f.c1 = shape[1];
    f.c0 = shape[4];
    IXA_ASSIGN_OR_RETURN(int64_t channels, CheckedMulOr(f.c1, f.c0));
    f.dst_shape = {shape[0], channels, shape[2], shape[3]};
    results = {d(0), d(1).FloorDiv(f.c0), d(2), d(3), d(1) % f.c0};
  } else if (conversion == "nchw_to_nc1hwc0" ||
             conversion == "gnchw_to_gnc1hwc0") {
    const int g = conversion[0] == 'g' ? 1 : 0;
    if (auto e = need(4 + g)) return *e;
    const int64_t c = shape[g + 1];
    f.c1 = *CeilDiv(c, f.c0);
    f.dst_shape.assign(shape.begin(), shape.begin() + g + 1);
    f.dst_shape.insert(f.dst_shape.end(),
                       {f.c1, shape[g + 2], shape[g + 3], f.c0});
    for (int i = 0; i <= g; ++i) results.push_back(d(i));
    results.push_back(channel(d(g + 1), d(g + 4), c));
    results.push_back(d(g + 2));
    results.push_back(d(g + 3));
  } else if (conversion == "ncdhw_to_ndc1hwc0") {
    if (auto e = need(5)) return *e;
    f.c1 = *CeilDiv(shape[1], f.c0);
    f.dst_shape = {shape[0], shape[2], f.c1, shape[3], shape[4], f.c0};
    results = {d(0), channel(d(2), d(5), shape[1]), d(1), d(3), d(4)};
  } else if (conversion == "nc1hwc0_to_fractal_z" ||
             conversion == "gnc1hwc0_to_fractal_z") {
    const int g = conversion[0] == 'g' ? 1 : 0;
    if (auto e = need(5 + g)) return *e;
    const int64_t groups = g ? shape[0] : 1, n = shape[g], h = shape[g + 2],
                  w = shape[g + 3];
    f.c1 = shape[g + 1];
    f.c0 = shape[g + 4];
    f.n1 = *CeilDiv(n, kN0);
    f.dst_shape = {groups * f.c1 * h * w, f.n1, kN0, f.c0};
    Expr row = d(0);
    if (g) results.push_back(row.FloorDiv(f.c1 * h * w));
    results.push_back(batch(d(1), d(2), n));
    results.push_back(g ? row.FloorDiv(h * w) % f.c1 : row.FloorDiv(h * w));
    results.push_back(row.FloorDiv(w) % h);
    results.push_back(row % w);
    results.push_back(d(3));
  } else if (conversion == "nchw_to_fractal_z") {
    if (auto e = need(4)) return *e;
    const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
    f.c1 = *CeilDiv(c, f.c0);
    f.n1 = *CeilDiv(n, kN0);
    f.dst_shape = {f.c1 * h * w, f.n1, kN0, f.c0};
    Expr row = d(0);
    results = {batch(d(1), d(2), n), channel(row.FloorDiv(h * w), d(3), c),
               row.FloorDiv(w) % h, row % w};
  } else if (conversion == "ncdhw_to_fractal_z_3d") {
    if (auto e = need(5)) return *e;
    const int64_t n = shape[0], c = shape[1], dd = shape[2], h = shape[3],
                  w = shape[4];
    f.c1 = *CeilDiv(c, f.c0);
    f.n1 = *CeilDiv(n, kN0);
    f.dst_shape = {dd * f.c1 * h * w, f.n1, kN0, f.c0};
    Expr row = d(0);
    Expr c1 = order == Fz3dOrder::kDMajor ? row.FloorDiv(h * w) % f.c1
                                          : row.FloorDiv(h * w * dd);
    Expr depth = order == Fz3dOrder::kDMajor ? row.FloorDiv(h * w * f.c1)
                                             : row.FloorDiv(h * w) % dd;
    results = {batch(d(1), d(2), n), channel(c1, d(3), c), depth,
               row.FloorDiv(w) % h, row % w};
  } else {
    return Error::Invalid("unknown format conversion '" +
                          std::string(conversion) + "'");
  }
  f.map = IndexingMap::FromTensorSizes(ctx, results, f.dst_shape, {});
  for (const Constraint& c : constraints)
    f.map.AddConstraint(c.expr, c.interval);
  Simplify(&f.map);
  return f;
}

Result<FormatPoint> FormatForward(const Format& f,
                                  const std::vector<int64_t>& x) {
  if (x.size() != f.src_shape.size())
    return Error::Invalid("index rank does not match the source shape");
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] < 0 || x[i] >= f.src_shape[i])
      return Error::Invalid("index component " + Num(i) + " is out of bounds");
  }
  const std::string& cv = f.conversion;
  const int64_t c0 = f.c0, c1 = f.c1;
  FormatPoint p;
  if (cv == "transpose_2d") {
    p.coords = {x[1], x[0]};
  } else if (cv == "nd_to_nz") {
    p.coords = {x[1] / c0, x[0], x[1] % c0};
  } else if (cv == "nz_to_nd") {
    p.coords = {x[1], x[0] * c0 + x[2]};
  } else if (cv == "nc1hwc0_to_nchw") {
    p.coords = {x[0], x[1] * c0 + x[4], x[2], x[3]};
  } else if (cv == "nchw_to_nc1hwc0" || cv == "gnchw_to_gnc1hwc0") {
    const size_t g = cv[0] == 'g' ? 1 : 0;
    p.coords.assign(x.begin(), x.begin() + g + 1);
    p.coords.insert(p.coords.end(),
                    {x[g + 1] / c0, x[g + 2], x[g + 3], x[g + 1] % c0});
  } else if (cv == "ncdhw_to_ndc1hwc0") {
    p.coords = {x[0], x[2], x[1] / c0, x[3], x[4], x[1] % c0};
  } else if (cv == "nc1hwc0_to_fractal_z" || cv == "gnc1hwc0_to_fractal_z") {
    const size_t g = cv[0] == 'g' ? 1 : 0;
    const int64_t h = f.src_shape[g + 2], w = f.src_shape[g + 3];
    int64_t row =
        (((g ? x[0] * c1 : 0) + x[g + 1]) * h + x[g + 2]) * w + x[g + 3];
    p.coords = {row, x[g] / kN0, x[g] % kN0, x[g + 4]};
  } else if (cv == "nchw_to_fractal_z") {
    const int64_t h = f.src_shape[2], w = f.src_shape[3];
    p.coords = {((x[1] / c0) * h + x[2]) * w + x[3], x[0] / kN0, x[0] % kN0,
                x[1] % c0};
  } else if (cv == "ncdhw_to_fractal_z_3d") {
    const int64_t dd = f.src_shape[2], h = f.src_shape[3], w = f.src_shape[4];
    const bool d_major = f.order == Fz3dOrder::kDMajor;
    int64_t row = d_major ? ((x[2] * c1 + x[1] / c0) * h + x[3]) * w + x[4]
                          : (((x[1] / c0) * dd + x[2]) * h + x[3]) * w + x[4];
    p.coords = {row, x[0] / kN0, x[0] % kN0, x[1] % c0};
  } else {
    return Error::Invalid("unknown format conversion '" + cv + "'");
  }
  for (size_t k = 0; k < p.coords.size(); ++k)
    p.offset = p.offset * f.dst_shape[k] + p.coords[k];
  return p;
}

Result<std::optional<std::vector<int64_t>>> FormatBackward(
    const Format& f, const std::vector<int64_t>& coords) {
  if (coords.size() != f.dst_shape.size())
    return Error::Invalid("coords rank does not match the destination shape");
  for (size_t i = 0; i < coords.size(); ++i) {
    if (coords[i] < 0 || coords[i] >= f.dst_shape[i]) {
      return Error::Invalid("coordinate " + Num(i) + " is outside [0, " +
                            Num(f.dst_shape[i] - 1) + "]");
    }
  }
  IXA_ASSIGN_OR_RETURN(bool in, f.map.InDomain(coords, {}));
  if (!in) return std::optional<std::vector<int64_t>>();
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> src, f.map.Evaluate(coords, {}));
  return std::optional<std::vector<int64_t>>(src);
}

}  // namespace ixa::hw::pto
