#include "emit/pto/recipes.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "core/int_math.h"
#include "core/result.h"

namespace ixa::emit::pto {

namespace {

constexpr int64_t kN0 = 16;  // FRACTAL_Z N0
// The zero tile of a padding nest stays small: padding is a sliver of the
// destination, and the UB is better spent on the data tiles.
constexpr int64_t kZeroTileBytes = 16384;

std::string Num(int64_t v) { return std::to_string(v); }
int64_t RoundUpTo(int64_t a, int64_t b) { return CeilDivNonNegative(a, b) * b; }
int64_t CeilDiv(int64_t a, int64_t b) { return CeilDivNonNegative(a, b); }

// "a : a + n" (or "0 : n") for slice comments.
std::string Slice(const Lin& start, const Extent& size) {
  const std::string a = start.Print(), n = size.Print();
  if (a == "0") return "0 : " + n;
  return a + " : " + a + " + " + n;
}

// A loop over a batch dimension, one step at a time.
struct Batch {
  std::string var;
  int64_t count = 1, src_coef = 0, dst_coef = 0;
  std::string comment;
};

// The slice comment of one tile: (group slice, col slice) -> text.
using SliceText =
    std::function<std::string(const std::string&, const std::string&)>;

// [rows x cols] blocks transposed. A block's rows come in `groups` groups
// of `group_rows` (G) rows, of which `real_rows` hold data (the rest, e.g.
// padding channels, are zero). Source element (group i, row k, col j) of a
// batch is at src_base + batch terms + i * group_src_stride +
// k * row_src_stride + j; it goes to dst_base + batch terms +
// j * dst_row_stride + i * G + k.
struct TransposeNest {
  std::string comment;
  std::vector<Batch> batches;
  int64_t groups = 1, group_rows = 1, real_rows = 1;
  int64_t group_src_stride = 0, row_src_stride = 0;
  int64_t cols = 1, dst_row_stride = 0;
  Lin src_base, dst_base;
  std::array<std::string, 4> names;  // group start/size, col start/size
  SliceText slice;
};

// A strided copy with no vector op: element (a, b, k) of the source at
// src_base + a * a_src + b * b_src + k goes to dst_base + a * a_dst +
// b * b_dst + k, for k < load_cols; destination columns [load_cols,
// store_cols) are padding (zero).
struct CopyNest {
  std::string comment, name;
  int64_t a_count = 1, b_count = 1, a_src = 0, b_src = 0, a_dst = 0, b_dst = 0;
  int64_t load_cols = 1, store_cols = 1;
  Lin src_base, dst_base;
  std::array<std::string, 4> names;  // a start/size, b start/size
  SliceText slice;
};

// Zeros over `rows` destination rows of `width` elements, `row_stride`
// apart, from `base`.
struct ZeroNest {
  std::string comment;
  int64_t rows = 1, width = 1, row_stride = 0;
  Lin base;
  SliceText slice;
};

struct Recipe {
  std::vector<TransposeNest> transposes;  // same tiles; the last may pad
  std::vector<CopyNest> copies;           // same tile; the last may pad
  std::optional<ZeroNest> zero;
};

// ------------------------------------------------------------- recipes

Recipe DescribeRecipe(const Geometry& g) {
  const std::vector<int64_t>& x = g.shape;
  const hw::pto::Format& f = g.format;
  Recipe r;
  const std::string& cv = g.conversion;
  if (cv == "transpose_2d") {
    TransposeNest t;
    t.comment = "Transpose tile by tile: src [" + Num(x[0]) + ", " + Num(x[1]) +
                "] -> dst [" + Num(x[1]) + ", " + Num(x[0]) + "].";
    t.groups = x[0];
    t.group_src_stride = x[1];
    t.cols = x[1];
    t.dst_row_stride = x[0];
    t.names = {"r0", "rows", "c0", "cols"};
    t.slice = [](const std::string& rs, const std::string& cs) {
      return "src[" + rs + ", " + cs + "] -> dst[" + cs + ", " + rs + "]";
    };
    r.transposes.push_back(t);
  } else if (cv == "nd_to_nz" || cv == "nz_to_nd") {
    const bool to_nz = cv == "nd_to_nz";
    const int64_t c0 = f.c0, c1 = f.c1;
    const int64_t rows = to_nz ? x[0] : x[1];
    const int64_t cols = to_nz ? x[1] : c1 * c0;  // of the ND side
    const int64_t full = to_nz ? cols / c0 : c1;
    CopyNest n;
    n.name = "Block";
    n.a_count = full;
    n.b_count = rows;
    // (a, b, k) = (column block, row, column in block).
    const int64_t nd_a = c0, nd_b = cols, nz_a = rows * c0, nz_b = c0;
    n.a_src = to_nz ? nd_a : nz_a;
    n.b_src = to_nz ? nd_b : nz_b;
    n.a_dst = to_nz ? nz_a : nd_a;
    n.b_dst = to_nz ? nz_b : nd_b;
    n.load_cols = n.store_cols = c0;
    n.names = {"k1", "kn", "r0", "rows"};
    const std::string c0s = Num(c0);
    n.slice = [to_nz, c0s](const std::string& ks, const std::string& rs) {
      const std::string nd =
          "[" + rs + ", " + c0s + " * (" + ks + ") + (0 : " + c0s + ")]";
      const std::string nz = "[" + ks + ", " + rs + ", 0 : " + c0s + "]";
      return to_nz ? "src" + nd + " -> dst" + nz : "src" + nz + " -> dst" + nd;
    };
    n.comment = to_nz ? "Columns in blocks of C0 = " + c0s +
                            ": one strided TLOAD gathers [blocks][rows][C0], "
                            "one TSTORE writes them in Nz order."
                      : "Nz blocks back to rows: one TLOAD of "
                        "[blocks][rows][C0], one strided TSTORE.";
    if (full > 0) r.copies.push_back(n);
    const int64_t real = cols - full * c0;
    if (to_nz && real > 0) {
      CopyNest t = n;
      t.name = "Tail";
      t.a_count = 1;
      t.load_cols = real;
      t.src_base = Lin(full * c0);
      t.dst_base = Lin(full * rows * c0);
      t.names = {"k1", "kn", "r0", "rows"};
      const std::string last = Num(full), from = Num(full * c0), to = Num(cols);
      t.slice = [last, from, to, c0s](const std::string&,
                                      const std::string& rs) {
        return "src[" + rs + ", " + from + " : " + to + "] -> dst[" + last +
               ", " + rs + ", 0 : " + c0s + "]";
      };
      t.comment = "The last column block has " + Num(real) + " of " + c0s +
                  " columns: load them into a zeroed tile, store all " + c0s +
                  ".";
      r.copies.push_back(t);
    }
  } else if (cv == "nchw_to_nc1hwc0" || cv == "ncdhw_to_fractal_z_3d") {
    const bool fz = cv == "ncdhw_to_fractal_z_3d";
    const int64_t n = x[0], c = x[1], d = fz ? x[2] : 1;
    const int64_t hw = fz ? x[3] * x[4] : x[2] * x[3];
    const int64_t c0 = f.c0, c1 = f.c1, full = c / c0, real = c - full * c0;
    const int64_t pitch = fz ? f.n1 * kN0 * c0 : c0;  // dst row pitch
    const bool d_major = f.order == hw::pto::Fz3dOrder::kDMajor;
    // Destination rows of (d, c1) per FRACTAL_Z_3D order; NC1HWC0: c1 only.
    const int64_t row_d = fz ? (d_major ? c1 * hw : hw) : 0;
    const int64_t row_c1 = fz ? (d_major ? hw : d * hw) : hw;
    TransposeNest t;
    t.group_rows = t.real_rows = c0;
    t.row_src_stride = d * hw;
    t.cols = hw;
    t.dst_row_stride = pitch;
    Batch bc1{"c1", full, c0 * d * hw, row_c1 * pitch, ""};
    const std::string c0s = Num(c0);
    if (fz) {
      t.groups = n;
      t.group_src_stride = c * d * hw;
      Batch bd{"d", d, hw, row_d * pitch, "depth d"};
      bc1.comment =
          "channel block c1 (channels " + c0s + " * c1 + [0, " + c0s + "))";
      t.batches =
          d_major ? std::vector<Batch>{bd, bc1} : std::vector<Batch>{bc1, bd};
      t.names = {"n0", "nb", "p0", "pix"};
      t.slice = [c0s](const std::string& ns, const std::string& ps) {
        return "src[" + ns + ", " + c0s + " * c1 + (0 : " + c0s +
               "), d, pixels " + ps + "] -> dst[rows of (d, c1, pixels " + ps +
               "), batches " + ns + ", 0 : " + c0s + "]";
      };
      t.comment =
          "Per (d, c1): [N x C0 channels] x [H*W pixels] blocks, "
          "transposed into FRACTAL_Z_3D rows (" +
          std::string(d_major ? "d_major" : "c1_major") + ").";
    } else {
      t.groups = 1;
      t.group_src_stride = c0 * hw;
      t.batches = {Batch{"n", n, c * hw, c1 * hw * c0, "image n"}, bc1};
      t.batches[1].comment =
          "channel block c1 (channels " + c0s + " * c1 + [0, " + c0s + "))";
      t.names = {"g0", "g", "p0", "pix"};
      t.slice = [c0s](const std::string&, const std::string& ps) {
        return "src[n, " + c0s + " * c1 + (0 : " + c0s + "), pixels " + ps +
               "] -> dst[n, c1, pixels " + ps + ", 0 : " + c0s + "]";
      };
      t.comment =
          "Per (n, c1): the [C0 x H*W] channel block, transposed to "
          "[H*W x C0].";
    }
    if (full > 0) r.transposes.push_back(t);
    if (real > 0) {
      TransposeNest p = t;
      p.real_rows = real;
      p.src_base = Lin(full * c0 * d * hw);
      p.dst_base = Lin(full * row_c1 * pitch);
      std::erase_if(p.batches, [](const Batch& b) { return b.var == "c1"; });
      const std::string last = Num(full), from = Num(full * c0), to = Num(c);
      if (fz) {
        p.slice = [last, from, to, c0s](const std::string& ns,
                                        const std::string& ps) {
          return "src[" + ns + ", " + from + " : " + to + ", d, pixels " + ps +
                 "] -> dst[rows of (d, c1 = " + last + ", pixels " + ps +
                 "), batches " + ns + ", 0 : " + c0s + "]";
        };
      } else {
        p.slice = [last, from, to, c0s](const std::string&,
                                        const std::string& ps) {
          return "src[n, " + from + " : " + to + ", pixels " + ps +
                 "] -> dst[n, " + last + ", pixels " + ps + ", 0 : " + c0s +
                 "]";
        };
      }
      p.comment = "The last channel block has " + Num(real) + " of " + c0s +
                  " channels: the tile's other rows stay zero.";
      r.transposes.push_back(p);
    }
    if (fz && n % kN0 != 0) {
      ZeroNest z;
      z.rows = d * c1 * hw;
      z.width = (f.n1 * kN0 - n) * c0;
      z.row_stride = pitch;
      z.base = Lin(n * c0);
      const std::string ns = Num(n), nt = Num(f.n1 * kN0);
      z.slice = [ns, nt](const std::string& rs, const std::string&) {
        return "dst[rows " + rs + ", batches " + ns + " : " + nt + ", :] = 0";
      };
      z.comment = "Batches n in [" + ns + ", " + nt +
                  ") of every row are padding: store zeros.";
      r.zero = z;
    }
  } else if (cv == "nc1hwc0_to_nchw") {
    const int64_t n = x[0], c1 = x[1], hw = x[2] * x[3], c0 = x[4];
    TransposeNest t;
    t.batches = {Batch{"b", n * c1, hw * c0, c0 * hw,
                       "block b = n * " + Num(c1) + " + c1 of image n"}};
    t.groups = hw;
    t.group_src_stride = c0;
    t.cols = c0;
    t.dst_row_stride = hw;
    t.names = {"p0", "pix", "k0", "kn"};
    const std::string c0s = Num(c0);
    t.slice = [c0s](const std::string& ps, const std::string& ks) {
      return "src[b, pixels " + ps + ", " + ks + "] -> dst[channels " + c0s +
             " * b + (" + ks + "), pixels " + ps + "]";
    };
    t.comment =
        "Per (n, c1): the [H*W x C0] block, transposed to [C0 x H*W] "
        "channel rows.";
    r.transposes.push_back(t);
  } else if (cv == "nc1hwc0_to_fractal_z") {
    const int64_t n = x[0], c1 = x[1], hw = x[2] * x[3], c0 = x[4];
    const int64_t pitch = f.n1 * kN0 * c0;
    CopyNest k;
    k.name = "Block";
    k.a_count = c1 * hw;  // destination row i = c1 * H*W + pixel
    k.b_count = n;
    k.a_src = c0;
    k.b_src = c1 * hw * c0;
    k.a_dst = pitch;
    k.b_dst = c0;
    k.load_cols = k.store_cols = c0;
    k.names = {"i0", "rows", "n0", "nb"};
    const std::string c0s = Num(c0);
    k.slice = [c0s](const std::string& is, const std::string& ns) {
      return "src[" + ns + ", rows " + is +
             " (= c1 * H*W + pixel), 0 : " + c0s + "] -> dst[" + is +
             ", batches " + ns + ", 0 : " + c0s + "]";
    };
    k.comment =
        "A pure reordering: strided TLOADs of (row, n, c0) and "
        "TSTOREs at the fractal's pitch.";
    r.copies.push_back(k);
    if (n % kN0 != 0) {
      ZeroNest z;
      z.rows = c1 * hw;
      z.width = (f.n1 * kN0 - n) * c0;
      z.row_stride = pitch;
      z.base = Lin(n * c0);
      const std::string ns = Num(n), nt = Num(f.n1 * kN0);
      z.slice = [ns, nt](const std::string& rs, const std::string&) {
        return "dst[rows " + rs + ", batches " + ns + " : " + nt + ", :] = 0";
      };
      z.comment = "Batches n in [" + ns + ", " + nt +
                  ") of every row are padding: store zeros.";
      r.zero = z;
    }
  }
  return r;
}

// -------------------------------------------------------------- tiles

// The tile indices of a transpose recipe.
struct TransposeTiles {
  int src = -1, dst = -1, tmp = -1, group = -1;
};

int64_t DstCols(const Geometry& g, int64_t src_rows) {
  // A2/A3's vector path wants the dst row stride a multiple of RowStride.
  const int64_t unit = g.arch == hw::pto::Arch::kA2A3
                           ? std::max(g.row_stride, g.block)
                           : g.block;
  return RoundUpTo(src_rows, unit);
}

hw::pto::Tile VecTile(const Geometry& g, int64_t rows, int64_t cols) {
  hw::pto::Tile t;
  t.dtype = g.dtype;
  t.rows = rows;
  t.cols = cols;
  return t;
}

int64_t ZeroTileRows(const Geometry& g, const ZeroNest& z) {
  const int64_t row_bytes = RoundUpTo(z.width, g.block) * g.elem;
  int64_t rows = std::max<int64_t>(1, kZeroTileBytes / row_bytes);
  if (g.arch == hw::pto::Arch::kA2A3) rows = std::min<int64_t>(rows, 4095);
  // As many stores as that takes, of equal rows.
  return CeilDiv(z.rows, CeilDiv(z.rows, rows));
}

int64_t ZeroTileBytes(const Geometry& g, const Recipe& r) {
  if (!r.zero) return 0;
  return ZeroTileRows(g, *r.zero) * RoundUpTo(r.zero->width, g.block) * g.elem;
}

// Does a transpose with p groups x q cols per tile fit, by hw's rules on
// the full tiles? (The ragged edges are checked when the kernel is built.)
bool TransposeFits(const Geometry& g, const Recipe& r, int64_t p, int64_t q) {
  const int64_t rows = p * r.transposes[0].group_rows;
  hw::pto::Tile src = VecTile(g, rows, q),
                dst = VecTile(g, q, DstCols(g, rows));
  hw::pto::TtransPlan plan = hw::pto::CheckTtrans(g.arch, src, dst);
  if (!plan.check.valid) return false;
  if (g.arch == hw::pto::Arch::kA2A3 && plan.path != "vector") return false;
  const int64_t tmp = plan.tmp_bytes > 0 ? plan.tmp_bytes : 32;
  const int64_t total =
      ZeroTileBytes(g, r) + (rows * q + q * dst.cols) * g.elem + tmp;
  if (total > hw::pto::UbBytes(g.arch)) return false;
  return hw::pto::CheckDma(g.arch, rows, 1).valid &&
         hw::pto::CheckDma(g.arch, q, 1).valid;
}

// The largest q (a multiple of the 32-byte block, at most q_max) for which
// fits(q) holds, or 0.
int64_t LargestCols(int64_t block, int64_t q_max,
                    const std::function<bool(int64_t)>& fits) {
  int64_t lo = 0, hi = CeilDiv(q_max, block);  // in blocks
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (fits(mid * block)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo * block;
}

// The transpose tiling with the fewest tiles (then the least padding).
std::optional<std::pair<int64_t, int64_t>> ChooseTransposeTile(
    const Geometry& g, const Recipe& r) {
  const TransposeNest& t = r.transposes[0];
  const int64_t unit = t.group_rows > 1 ? 1 : DstCols(g, 1);
  const int64_t q_max = RoundUpTo(t.cols, g.block);
  std::optional<std::pair<int64_t, int64_t>> best;
  int64_t best_count = std::numeric_limits<int64_t>::max(), best_area = 0;
  for (int64_t p = unit; p < RoundUpTo(t.groups, unit) + unit; p += unit) {
    const int64_t q = LargestCols(g.block, q_max, [&](int64_t cols) {
      return TransposeFits(g, r, p, cols);
    });
    if (q == 0) break;  // larger p only needs more
    const int64_t count = CeilDiv(t.groups, p) * CeilDiv(t.cols, q);
    const int64_t area = p * t.group_rows * q;
    if (count < best_count || (count == best_count && area < best_area)) {
      best = {p, q};
      best_count = count;
      best_area = area;
    }
  }
  return best;
}

// ----------------------------------------------------------- emission

std::vector<Batch> Looped(const std::vector<Batch>& batches) {
  std::vector<Batch> out;
  for (const Batch& b : batches) {
    if (b.count > 1) out.push_back(b);
  }
  return out;
}

// Opens the batch loops (a batch of one is a constant) and adds each
// batch's terms to the source and destination offsets.
void OpenBatches(KernelBuilder* k, const std::vector<Batch>& batches, Lin* src,
                 Lin* dst) {
  for (const Batch& b : batches) {
    if (b.count > 1) {
      k->OpenLoop(b.comment, "for (int64_t " + b.var + " = 0; " + b.var +
                                 " < " + Num(b.count) + "; ++" + b.var + ") {");
    } else {
      k->body().Line("const int64_t " + b.var + " = 0;  // the only " +
                     b.comment);
    }
    *src = *src + Lin::Var(b.var, b.src_coef);
    *dst = *dst + Lin::Var(b.var, b.dst_coef);
  }
}

void CloseBatches(KernelBuilder* k, const std::vector<Batch>& batches) {
  for (size_t i = 0; i < Looped(batches).size(); ++i) k->CloseLoop();
}

// A nest gets its own scope when no loop gives it one, or when it declares
// batch constants: its names stay its own.
bool NeedsScope(const std::vector<Batch>& batches, bool looped) {
  for (const Batch& b : batches) {
    if (b.count == 1) return true;
  }
  return Looped(batches).empty() && !looped;
}

void EmitTransposeNest(KernelBuilder* k, const Geometry& g,
                       const TransposeNest& t, const TransposeTiles& tiles,
                       int64_t p, int64_t q) {
  CodeWriter& out = k->body();
  const int64_t rows_per_group = t.group_rows;
  const bool pad = t.real_rows < rows_per_group;
  const Axis ga{t.names[0], t.names[1], t.groups, p};
  const Axis ca{t.names[2], t.names[3], t.cols, q};
  out.Line("");
  out.Line("// " + t.comment);
  if (pad) {
    out.Line(
        "// Zero the source tile once: the loads below write only the "
        "real rows.");
    const TileDecl& src = k->tiles()[tiles.src];
    k->DeclareTile(tiles.src, "src_zero", Extent::Fixed(src.valid_row.max()),
                   Extent::Fixed(src.valid_col.max()), "");
    k->Fill(tiles.src, "src_zero");
  }
  const bool scoped = NeedsScope(t.batches, ga.looped() || ca.looped());
  if (scoped) out.Open("{");
  Lin src_off = t.src_base, dst_off = t.dst_base;
  OpenBatches(k, t.batches, &src_off, &dst_off);
  k->OpenAxis(ga, "");
  k->OpenAxis(ca, "");
  const Extent gs = ga.size(), cs = ca.size();
  const Extent rows = gs * rows_per_group;
  out.Line("// " + t.slice(Slice(ga.start(), gs), Slice(ca.start(), cs)));
  k->DeclareTile(tiles.src, "src_tile", rows, cs, "");
  src_off = src_off + ga.start() * t.group_src_stride + ca.start();
  const Extent one = Extent::Fixed(1);
  if (!pad) {
    ViewDecl view;
    if (rows_per_group == 1) {
      view = {"SrcBlock",
              {one, one, one, gs, cs},
              {1, 1, 1, t.group_src_stride, 1}};
    } else if (!gs.dynamic() && gs.max() == 1) {
      view = {"SrcBlock",
              {one, one, one, Extent::Fixed(rows_per_group), cs},
              {1, 1, 1, t.row_src_stride, 1}};
    } else {
      view = {"SrcBlock",
              {one, one, gs, Extent::Fixed(rows_per_group), cs},
              {1, 1, t.group_src_stride, t.row_src_stride, 1}};
    }
    k->DeclareView(view, "src_view", "src", src_off);
    k->Load(tiles.src, "src_tile", view, "src_view");
  } else {
    const ViewDecl view{"SrcGroup",
                        {one, one, one, Extent::Fixed(t.real_rows), cs},
                        {1, 1, 1, t.row_src_stride, 1}};
    const int64_t slot = rows_per_group * q * g.elem;
    const bool loop = gs.max() > 1;
    // Wait once, before the loop, for the pipes that used the tile last.
    k->SyncBefore(Pipe::kMte2, tiles.src);
    if (loop) {
      k->OpenLoop("Group gi: its " + Num(t.real_rows) +
                      " rows with data into rows [" + Num(rows_per_group) +
                      " * gi, " + Num(rows_per_group) + " * gi + " +
                      Num(t.real_rows) + ") of the tile.",
                  "for (int64_t gi = 0; gi < " + gs.Print() + "; ++gi) {");
    }
    k->DeclareTile(tiles.group, "src_group", Extent::Fixed(t.real_rows), cs,
                   loop ? "gi * " + Num(slot) : "");
    k->DeclareView(
        view, "src_view", "src",
        loop ? src_off + Lin::Var("gi", t.group_src_stride) : src_off);
    k->Load(tiles.group, "src_group", view, "src_view");
    if (loop) k->CloseLoop();
  }
  k->DeclareTile(tiles.dst, "dst_tile", cs, rows, "");
  k->Transpose(tiles.dst, "dst_tile", tiles.src, "src_tile", tiles.tmp,
               "tmp_tile");
  const ViewDecl dview{
      "DstBlock", {one, one, one, cs, rows}, {1, 1, 1, t.dst_row_stride, 1}};
  dst_off =
      dst_off + ca.start() * t.dst_row_stride + ga.start() * rows_per_group;
  k->DeclareView(dview, "dst_view", "dst", dst_off);
  k->Store(tiles.dst, "dst_tile", dview, "dst_view");
  k->CloseAxis(ca);
  k->CloseAxis(ga);
  CloseBatches(k, t.batches);
  if (scoped) out.Close("}");
}

// (a per tile, b per tile) for `rows` tile rows: the split with fewer tiles.
std::pair<int64_t, int64_t> SplitRows(const CopyNest& n, int64_t rows) {
  const int64_t b1 = std::min(n.b_count, rows),
                a1 = std::min(n.a_count, rows / b1);
  const int64_t a2 = std::min(n.a_count, rows),
                b2 = std::min(n.b_count, rows / a2);
  const int64_t c1 = CeilDiv(n.a_count, a1) * CeilDiv(n.b_count, b1);
  const int64_t c2 = CeilDiv(n.a_count, a2) * CeilDiv(n.b_count, b2);
  return c2 < c1 ? std::pair{a2, b2} : std::pair{a1, b1};
}

void EmitCopyNest(KernelBuilder* k, const CopyNest& n, int tile, int load,
                  int64_t rows) {
  CodeWriter& out = k->body();
  const auto [at, bt] = SplitRows(n, rows);
  const Axis aa{n.names[0], n.names[1], n.a_count, at};
  const Axis ba{n.names[2], n.names[3], n.b_count, bt};
  const bool pad = n.load_cols < n.store_cols;
  const std::string var = n.name == "Block" ? "block" : "tail";
  out.Line("");
  out.Line("// " + n.comment);
  if (pad) {
    const TileDecl& t = k->tiles()[tile];
    k->DeclareTile(tile, var + "_zero", Extent::Fixed(t.valid_row.max()),
                   Extent::Fixed(n.store_cols), "");
    k->Fill(tile, var + "_zero");
  }
  const bool scoped = !aa.looped() && !ba.looped();
  if (scoped) out.Open("{");
  k->OpenAxis(aa, "");
  k->OpenAxis(ba, "");
  const Extent as = aa.size(), bs = ba.size();
  out.Line("// " + n.slice(Slice(aa.start(), as), Slice(ba.start(), bs)));
  const Extent one = Extent::Fixed(1);
  const bool a_single = !as.dynamic() && as.max() == 1;
  auto view = [&](const std::string& name, int64_t cols, int64_t sa,
                  int64_t sb) {
    if (a_single)
      return ViewDecl{
          name, {one, one, one, bs, Extent::Fixed(cols)}, {1, 1, 1, sb, 1}};
    return ViewDecl{
        name, {one, one, as, bs, Extent::Fixed(cols)}, {1, 1, sa, sb, 1}};
  };
  const Extent trows = Mul(as, bs);
  const Lin src_off = n.src_base + aa.start() * n.a_src + ba.start() * n.b_src;
  const Lin dst_off = n.dst_base + aa.start() * n.a_dst + ba.start() * n.b_dst;
  const ViewDecl src_view = view("Src" + n.name, n.load_cols, n.a_src, n.b_src);
  k->DeclareView(src_view, "src_view", "src", src_off);
  if (pad) {
    k->DeclareTile(load, var + "_load", trows, Extent::Fixed(n.load_cols), "");
    k->Load(load, var + "_load", src_view, "src_view");
  }
  k->DeclareTile(tile, var + "_tile", trows, Extent::Fixed(n.store_cols), "");
  if (!pad) k->Load(tile, var + "_tile", src_view, "src_view");
  const ViewDecl dst_view =
      view("Dst" + n.name, n.store_cols, n.a_dst, n.b_dst);
  k->DeclareView(dst_view, "dst_view", "dst", dst_off);
  k->Store(tile, var + "_tile", dst_view, "dst_view");
  k->CloseAxis(ba);
  k->CloseAxis(aa);
  if (scoped) out.Close("}");
}

void EmitZeroNest(KernelBuilder* k, const ZeroNest& z, int tile) {
  CodeWriter& out = k->body();
  const TileDecl& t = k->tiles()[tile];
  const Axis za{"z0", "zr", z.rows, t.tile.rows};
  out.Line("");
  out.Line("// " + z.comment);
  k->DeclareTile(tile, "zero_fill", Extent::Fixed(t.valid_row.max()),
                 Extent::Fixed(z.width), "");
  k->Fill(tile, "zero_fill");
  const bool scoped = !za.looped();
  if (scoped) out.Open("{");
  k->OpenAxis(za, "");
  const Extent zs = za.size();
  out.Line("// " + z.slice(Slice(za.start(), zs), ""));
  k->DeclareTile(tile, "zero_tile", zs, Extent::Fixed(z.width), "");
  const Extent one = Extent::Fixed(1);
  const ViewDecl view{"DstPad",
                      {one, one, one, zs, Extent::Fixed(z.width)},
                      {1, 1, 1, z.row_stride, 1}};
  k->DeclareView(view, "pad_view", "dst", z.base + za.start() * z.row_stride);
  k->Store(tile, "zero_tile", view, "pad_view");
  k->CloseAxis(za);
  if (scoped) out.Close("}");
}

Extent AxisSize(const std::string& var, int64_t extent, int64_t step) {
  return Axis{"", var, extent, step}.size();
}

}  // namespace

BuiltKernel BuildKernel(const Geometry& g,
                        const std::optional<std::array<int64_t, 2>>& tile) {
  BuiltKernel built;
  built.builder = std::make_unique<KernelBuilder>(g.arch, g.dtype, g.cpp_type);
  KernelBuilder* k = built.builder.get();
  const Recipe r = DescribeRecipe(g);
  hw::pto::Check& check = built.check;
  int zero_tile = -1;
  if (r.zero) {
    const int64_t rows = ZeroTileRows(g, *r.zero);
    zero_tile = k->AddTile(
        "ZeroTile", "zeros for the destination's padding batches", rows,
        RoundUpTo(r.zero->width, g.block), AxisSize("zr", r.zero->rows, rows),
        Extent::Fixed(r.zero->width));
  }
  if (!r.transposes.empty()) {
    const TransposeNest& t = r.transposes[0];
    int64_t p = 0, q = 0;
    if (tile) {
      if ((*tile)[0] % t.group_rows != 0 || (*tile)[0] < t.group_rows ||
          (*tile)[1] < 1) {
        check.Fail("the source tile's rows must be a positive multiple of " +
                   Num(t.group_rows) + " and its cols positive; got " +
                   Num((*tile)[0]) + " x " + Num((*tile)[1]));
        return built;
      }
      p = (*tile)[0] / t.group_rows;
      q = (*tile)[1];
    } else if (auto best = ChooseTransposeTile(g, r)) {
      std::tie(p, q) = *best;
    } else {
      // Nothing fits: report the rules the smallest tiles break.
      p = t.group_rows > 1 ? 1 : DstCols(g, 1);
      q = g.block;
    }
    const int64_t rows = p * t.group_rows;
    const Extent gs = AxisSize(t.names[1], t.groups, p) * t.group_rows;
    const Extent cs = AxisSize(t.names[3], t.cols, q);
    TransposeTiles tiles;
    tiles.src = k->AddTile(
        "SrcTile", "a source block: " + Num(rows) + " x " + Num(q) + " at most",
        rows, q, gs, cs);
    const int64_t dst_cols = DstCols(g, rows);
    tiles.dst =
        k->AddTile("DstTile", "the transposed block", q, dst_cols, cs, gs);
    hw::pto::TtransPlan plan = hw::pto::CheckTtrans(g.arch, VecTile(g, rows, q),
                                                    VecTile(g, q, dst_cols));
    if (plan.path == "vector" && plan.tmp_bytes > 0) {
      const int64_t tmp_cols = RoundUpTo(rows, g.row_stride);
      tiles.tmp =
          k->AddTile("TmpTile",
                     "TTRANS scratch: W * round_up(H, RowStride) * sizeof = " +
                         Num(plan.tmp_bytes) + " bytes",
                     q, tmp_cols, Extent::Fixed(q), Extent::Fixed(tmp_cols));
      k->set_tmp_bytes(plan.tmp_bytes);
    } else {
      tiles.tmp =
          k->AddTile("TmpTile",
                     "the TTRANS tmp operand; this arch's TTRANS does "
                     "not use it",
                     1, g.block, Extent::Fixed(1), Extent::Fixed(g.block));
    }
    const TransposeNest& last = r.transposes.back();
    if (last.real_rows < last.group_rows) {
      tiles.group = k->AddAlias(
          "SrcGroupTile",
          "the " + Num(last.real_rows) + " rows with data of a " +
              Num(t.group_rows) + "-row group (over SrcTile)",
          tiles.src, 0, t.group_rows, q, Extent::Fixed(last.real_rows), cs);
    }
    built.summary = "SrcTile " + Num(rows) + " x " + Num(q) + " over [" +
                    Num(t.groups * t.group_rows) + " x " + Num(t.cols) +
                    "] blocks: " + Num(CeilDiv(t.groups, p)) + " x " +
                    Num(CeilDiv(t.cols, q)) + " tiles per block";
    k->body().Line("");
    k->body().Line("TmpTile tmp_tile;");
    k->body().Line("TASSIGN(tmp_tile, kTmpTileUb);");
    if (r.zero) EmitZeroNest(k, *r.zero, zero_tile);
    for (const TransposeNest& n : r.transposes)
      EmitTransposeNest(k, g, n, tiles, p, q);
  } else {
    const int64_t cols = RoundUpTo(r.copies[0].store_cols, g.block);
    int64_t needed = 0;
    for (const CopyNest& n : r.copies)
      needed = std::max(needed, n.a_count * n.b_count);
    int64_t rows = 0;
    if (tile) {
      if ((*tile)[1] != cols || (*tile)[0] < 1) {
        check.Fail("the tile's cols must be " + Num(cols) +
                   " (C0 rounded up to 32 bytes) and its rows positive; got " +
                   Num((*tile)[0]) + " x " + Num((*tile)[1]));
        return built;
      }
      rows = (*tile)[0];
    } else {
      const int64_t zero = ZeroTileBytes(g, r);
      const int64_t cap = LargestCols(1, needed, [&](int64_t n) {
        return zero + n * cols * g.elem <= hw::pto::UbBytes(g.arch) &&
               hw::pto::CheckDma(g.arch, n, 1).valid;
      });
      rows = std::max<int64_t>(cap, 1);
    }
    int block = -1, tail = -1, tail_load = -1;
    for (const CopyNest& n : r.copies) {
      const auto [at, bt] = SplitRows(n, rows);
      const Extent trows = Mul(AxisSize(n.names[1], n.a_count, at),
                               AxisSize(n.names[3], n.b_count, bt));
      if (n.name == "Block") {
        block = k->AddTile("BlockTile",
                           "rows of C0 elements, " + Num(rows) + " at most",
                           rows, cols, trows, Extent::Fixed(n.store_cols));
      } else {
        const std::string what = "the last column block";
        tail = block < 0 ? k->AddTile("TailTile", what, rows, cols, trows,
                                      Extent::Fixed(n.store_cols))
                         : k->AddAlias("TailTile", what + " (over BlockTile)",
                                       block, 0, rows, cols, trows,
                                       Extent::Fixed(n.store_cols));
        tail_load = k->AddAlias(
            "TailLoadTile",
            "its " + Num(n.load_cols) + " real columns (over TailTile)", tail,
            0, rows, cols, trows, Extent::Fixed(n.load_cols));
      }
    }
    built.summary =
        "tiles of " + Num(rows) + " rows x " + Num(cols) + " elements";
    if (r.zero) EmitZeroNest(k, *r.zero, zero_tile);
    for (const CopyNest& n : r.copies) {
      const bool is_tail = n.name == "Tail";
      EmitCopyNest(k, n, is_tail ? tail : block, is_tail ? tail_load : -1,
                   rows);
    }
  }
  hw::pto::Check legal = k->CheckLegality(!tile.has_value());
  for (std::string& f : legal.failures) check.Fail(std::move(f));
  return built;
}

}  // namespace ixa::emit::pto
