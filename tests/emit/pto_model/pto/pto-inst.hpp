// A test-only CPU model of the PTO-ISA API subset that ixa's PTO code
// generator uses (docs/pto.md §2): GlobalTensor / Shape / Stride,
// Tile with its static checks, TASSIGN, TLOAD, TSTORE, TTRANS, TMOV,
// TEXPANDS and the pipe synchronisation intrinsics. Same names, template
// parameters and asserts as PTO-ISA's headers; it shares no code with the
// generator (emit/pto), which is what it checks.
//
// What it models beyond plain semantics, so that bugs the CPU would hide
// show up as failures:
// - The unified buffer is one byte array; TASSIGN places a tile at a byte
//   offset in it, so tiles at overlapping offsets alias for real. Reset()
//   fills it with garbage: padding left to TLOAD comes out wrong.
// - TLOAD, TSTORE, TTRANS, TMOV and TEXPANDS touch the valid region only
//   (the NPU's TLOAD does not zero the rest of the tile).
// - TTRANS stages through its tmp tile whenever tmp is big enough for the
//   A2/A3 vector path, so a tmp that overlaps a live tile corrupts data.
// - Pipe hazards: every instruction runs on its pipe (TLOAD MTE2, TSTORE
//   MTE3, vector ops V). An instruction that touches UB bytes another pipe
//   wrote (or read, for a write) must be ordered after it by
//   set_flag/wait_flag(that pipe, this pipe) or pipe_barrier(PIPE_ALL);
//   otherwise the model fails, as the NPU would race.
// - Arch rules the CPU simulation does not check, when compiled with
//   -DPTO_MODEL_A2A3 (TTRANS tmp size on the vector path, 192 KiB for
//   src+dst+tmp, fewer than 4096 rows per TLOAD/TSTORE) or -DPTO_MODEL_A5
//   (32-byte major dims, the TTRANS index register limit).
// Failures print the broken rule and abort (asserts never depend on NDEBUG).
#ifndef PTO_MODEL_PTO_INST_HPP_
#define PTO_MODEL_PTO_INST_HPP_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#ifdef __CPU_SIM
#define __global__
#define AICORE
#define __gm__
#endif

#ifndef PTO_MODEL_UB_BYTES
#define PTO_MODEL_UB_BYTES (192 * 1024)
#endif

#if defined(__FLT16_MAX__)
using half = _Float16;
#else
struct half {
  uint16_t bits = 0;
  half() = default;
  constexpr half(int v) : bits(v == 0 ? 0 : 0x7e00) {}  // only 0 is exact
};
#endif

// bfloat16: the upper half of a float (conversion truncates).
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  constexpr bfloat16_t(float f)
      : bits(static_cast<uint16_t>(std::bit_cast<uint32_t>(f) >> 16)) {}
};

enum pipe_t {
  PIPE_S,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL
};
enum event_t {
  EVENT_ID0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7
};

namespace pto {

constexpr int DYNAMIC = -1;

enum class TileType {
  Vec,
  Mat,
  Left,
  Right,
  Acc,
  Bias,
  Scaling,
  ScaleLeft,
  ScaleRight,
  Ctrl
};
enum class BLayout { RowMajor, ColMajor };
enum class SLayout { NoneBox, RowMajor, ColMajor };
enum class Layout { ND, DN, NZ };

struct RecordEvent {};

namespace model {

constexpr int64_t kUbBytes = PTO_MODEL_UB_BYTES;
constexpr int kPipes = 7;

[[noreturn]] inline void Fail(const char* file, int line, const char* what) {
  std::fprintf(stderr, "pto model: %s:%d: %s\n", file, line, what);
  std::fflush(stderr);
  std::abort();
}

#define PTO_MODEL_CHECK(cond, what)                            \
  do {                                                         \
    if (!(cond)) ::pto::model::Fail(__FILE__, __LINE__, what); \
  } while (0)

// The unified buffer and the hazard bookkeeping per byte: the pipe and the
// per-pipe instruction number of the last write, and per pipe the number of
// its last read since that write.
struct State {
  uint8_t ub[kUbBytes];
  int8_t writer[kUbBytes];
  uint32_t write_seq[kUbBytes];
  uint32_t read_seq[kPipes][kUbBytes];
  uint32_t issued[kPipes];
  // covered[a][b]: pipe a's instructions up to this number are complete for
  // pipe b (a set_flag(a, b) then wait_flag(a, b), or a barrier).
  uint32_t covered[kPipes][kPipes];
  int64_t flag[kPipes][kPipes][8];  // pending set_flag value, -1 none
  int64_t counts[8];                // instructions executed, by kind
};

inline State& S() {
  static State* state = new State();
  return *state;
}

enum Kind { kLoad, kStore, kTrans, kMov, kExpands, kFlags, kBarriers };

inline int64_t Count(Kind k) { return S().counts[k]; }

// Fills the UB with garbage from `seed` and clears all pipe state.
inline void Reset(uint64_t seed) {
  State& s = S();
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < kUbBytes; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s.ub[i] = static_cast<uint8_t>(x >> 24);
  }
  std::memset(s.writer, -1, sizeof s.writer);
  std::memset(s.write_seq, 0, sizeof s.write_seq);
  std::memset(s.read_seq, 0, sizeof s.read_seq);
  std::memset(s.issued, 0, sizeof s.issued);
  std::memset(s.covered, 0, sizeof s.covered);
  for (auto& a : s.flag)
    for (auto& b : a)
      for (int64_t& e : b) e = -1;
  std::memset(s.counts, 0, sizeof s.counts);
}

// After a kernel: every set_flag was waited for.
inline void Finish() {
  State& s = S();
  for (auto& a : s.flag)
    for (auto& b : a)
      for (int64_t e : b) PTO_MODEL_CHECK(e < 0, "set_flag without wait_flag");
}

// One instruction on `pipe`: Issue() numbers it, then Read/Write record
// each UB byte range it touches and check the hazards.
inline uint32_t Issue(pipe_t pipe) { return ++S().issued[pipe]; }

inline void Read(pipe_t pipe, uint32_t seq, int64_t at, int64_t bytes) {
  State& s = S();
  PTO_MODEL_CHECK(at >= 0 && at + bytes <= kUbBytes, "read outside the UB");
  for (int64_t b = at; b < at + bytes; ++b) {
    int w = s.writer[b];
    if (w >= 0 && w != pipe) {
      PTO_MODEL_CHECK(s.write_seq[b] <= s.covered[w][pipe],
                      "read-after-write hazard: a pipe reads UB bytes another "
                      "pipe wrote without set_flag/wait_flag");
    }
    s.read_seq[pipe][b] = seq;
  }
}

inline void Write(pipe_t pipe, uint32_t seq, int64_t at, int64_t bytes) {
  State& s = S();
  PTO_MODEL_CHECK(at >= 0 && at + bytes <= kUbBytes, "write outside the UB");
  for (int64_t b = at; b < at + bytes; ++b) {
    int w = s.writer[b];
    if (w >= 0 && w != pipe) {
      PTO_MODEL_CHECK(s.write_seq[b] <= s.covered[w][pipe],
                      "write-after-write hazard between pipes");
    }
    for (int q = 0; q < kPipes; ++q) {
      if (q == pipe) continue;
      PTO_MODEL_CHECK(s.read_seq[q][b] <= s.covered[q][pipe],
                      "write-after-read hazard: a pipe overwrites UB bytes "
                      "another pipe may still be reading");
      s.read_seq[q][b] = 0;
    }
    s.writer[b] = static_cast<int8_t>(pipe);
    s.write_seq[b] = seq;
  }
}

template <typename T>
constexpr bool kTtransType =
    std::is_same_v<T, uint32_t> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, uint16_t> ||
    std::is_same_v<T, int16_t> || std::is_same_v<T, half> ||
    std::is_same_v<T, bfloat16_t> || std::is_same_v<T, uint8_t> ||
    std::is_same_v<T, int8_t>;

template <int... V>
constexpr int kDynamicCount = ((V == DYNAMIC ? 1 : 0) + ... + 0);

// Shape and Stride: five dims (dim 4 innermost); DYNAMIC dims are given to
// the constructor in order.
template <int... V>
struct Dims {
  static_assert(sizeof...(V) == 5, "five dims");
  static_assert(((V == DYNAMIC || V >= 0) && ...), "dims are >= 0 or DYNAMIC");
  static constexpr int kStatic[5] = {V...};
  static constexpr int kDynamic = kDynamicCount<V...>;
  int64_t v[5] = {V...};

  Dims() requires(kDynamic == 0) = default;
  template <typename... I>
  requires(kDynamic > 0 && sizeof...(I) == kDynamic &&
           (std::is_integral_v<I> && ...)) explicit Dims(I... dynamic) {
    const int64_t given[] = {static_cast<int64_t>(dynamic)...};
    int k = 0;
    for (int i = 0; i < 5; ++i) {
      if (kStatic[i] == DYNAMIC) {
        PTO_MODEL_CHECK(given[k] >= 0, "a DYNAMIC dim is negative");
        v[i] = given[k++];
      }
    }
  }
};

inline int64_t RoundUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

}  // namespace model

template <int N0, int N1, int N2, int N3, int N4>
struct Shape : model::Dims<N0, N1, N2, N3, N4> {
  using model::Dims<N0, N1, N2, N3, N4>::Dims;
};
template <int S0, int S1, int S2, int S3, int S4>
struct Stride : model::Dims<S0, S1, S2, S3, S4> {
  using model::Dims<S0, S1, S2, S3, S4>::Dims;
};

template <typename T, typename ShapeT, typename StrideT, Layout L = Layout::ND>
struct GlobalTensor {
  using DType = T;
  static constexpr Layout kLayout = L;
  T* data;
  ShapeT shape;
  StrideT stride;
  explicit GlobalTensor(T* p, ShapeT s = ShapeT(), StrideT st = StrideT())
      : data(p), shape(s), stride(st) {}
};

template <TileType Loc_, typename T, int Rows_, int Cols_,
          BLayout B_ = BLayout::RowMajor, int ValidRow_ = Rows_,
          int ValidCol_ = Cols_, SLayout S_ = SLayout::NoneBox,
          int SFractalSize_ = 512>
struct Tile {
  using DType = T;
  static constexpr TileType Loc = Loc_;
  static constexpr int Rows = Rows_;
  static constexpr int Cols = Cols_;
  static constexpr BLayout BFractal = B_;
  static constexpr SLayout SFractal = S_;
  static constexpr int ValidRow = ValidRow_;
  static constexpr int ValidCol = ValidCol_;
  static constexpr int SFractalSize = SFractalSize_;
  static constexpr bool isRowMajor = B_ == BLayout::RowMajor;
  static constexpr int kElem = static_cast<int>(sizeof(T));
  // The inner box (docs/hw-reference.md §3.1).
  static constexpr int InnerRows = S_ == SLayout::NoneBox    ? 1
                                   : SFractalSize_ == 1024   ? 16
                                   : SFractalSize_ == 32     ? 16
                                   : S_ == SLayout::RowMajor ? 16
                                                             : 32 / kElem;
  static constexpr int InnerCols = S_ == SLayout::NoneBox    ? 1
                                   : SFractalSize_ == 1024   ? 16
                                   : SFractalSize_ == 32     ? 2
                                   : S_ == SLayout::RowMajor ? 32 / kElem
                                                             : 16;
  static constexpr int64_t kBytes = int64_t{Rows_} * Cols_ * kElem;

  static_assert(Rows_ > 0 && Cols_ > 0, "Rows and Cols must be positive");
  static_assert(ValidRow_ == DYNAMIC || (ValidRow_ >= 0 && ValidRow_ <= Rows_),
                "ValidRow <= Rows");
  static_assert(ValidCol_ == DYNAMIC || (ValidCol_ >= 0 && ValidCol_ <= Cols_),
                "ValidCol <= Cols");
  static_assert(SFractalSize_ == 512 || SFractalSize_ == 1024 ||
                    SFractalSize_ == 32,
                "SFractalSize is 512, 1024 or 32");
  static_assert(Rows_ % InnerRows == 0 || Loc_ == TileType::Vec ||
                    SFractalSize_ == 32 || Rows_ == 1,
                "Rows must be a multiple of the fractal's rows");
  static_assert(Cols_ % InnerCols == 0,
                "Cols must be a multiple of the fractal's cols");
  static_assert(S_ != SLayout::NoneBox || !isRowMajor ||
                    (Cols_ * kElem) % 32 == 0,
                "a row-major tile's rows must be 32-byte aligned");
  static_assert(S_ != SLayout::NoneBox || isRowMajor ||
                    (Rows_ * kElem) % 32 == 0,
                "a col-major tile's columns must be 32-byte aligned");

  static constexpr int kDynamic =
      (ValidRow_ == DYNAMIC ? 1 : 0) + (ValidCol_ == DYNAMIC ? 1 : 0);

  Tile() requires(kDynamic == 0) = default;
  template <typename I>
  requires(kDynamic == 1 && std::is_integral_v<I>) explicit Tile(I valid) {
    (ValidRow_ == DYNAMIC ? valid_row_ : valid_col_) =
        static_cast<int64_t>(valid);
    CheckValid();
  }
  template <typename I, typename J>
  requires(kDynamic == 2 && std::is_integral_v<I> && std::is_integral_v<J>)
      Tile(I valid_row, J valid_col)
      : valid_row_(static_cast<int64_t>(valid_row)),
        valid_col_(static_cast<int64_t>(valid_col)) {
    CheckValid();
  }

  int64_t GetValidRow() const { return valid_row_; }
  int64_t GetValidCol() const { return valid_col_; }

  int64_t addr_ = -1;
  int64_t valid_row_ = ValidRow_ == DYNAMIC ? 0 : ValidRow_;
  int64_t valid_col_ = ValidCol_ == DYNAMIC ? 0 : ValidCol_;

 private:
  void CheckValid() const {
    PTO_MODEL_CHECK(valid_row_ >= 0 && valid_row_ <= Rows_,
                    "dynamic ValidRow outside [0, Rows]");
    PTO_MODEL_CHECK(valid_col_ >= 0 && valid_col_ <= Cols_,
                    "dynamic ValidCol outside [0, Cols]");
  }
};

template <typename TileT>
RecordEvent TASSIGN(TileT& tile, int64_t ub_byte_offset) {
  PTO_MODEL_CHECK(ub_byte_offset >= 0 && ub_byte_offset % 32 == 0,
                  "TASSIGN: UB offsets are 32-byte aligned");
  PTO_MODEL_CHECK(ub_byte_offset + TileT::kBytes <= model::kUbBytes,
                  "TASSIGN: the tile does not fit the unified buffer");
  tile.addr_ = ub_byte_offset;
  return {};
}

namespace model {

// The instructions work on run-time descriptions of tiles and views, so a
// kernel's many tile types instantiate only thin templates (the static
// checks) and the test's translation units compile fast.
struct TileRt {
  int64_t addr, rows, cols, valid_row, valid_col, elem, inner_rows, inner_cols;
  bool row_major;
  SLayout slayout;

  // UB byte address of element (r, c) (tile_offsets.hpp, §3.2).
  int64_t At(int64_t r, int64_t c) const {
    PTO_MODEL_CHECK(addr >= 0, "tile used before TASSIGN");
    const int64_t ir = inner_rows, ic = inner_cols;
    const int64_t box = row_major ? (r / ir) * cols * ir + (c / ic) * ir * ic
                                  : (c / ic) * rows * ic + (r / ir) * ir * ic;
    const int64_t inner = slayout == SLayout::ColMajor ? (c % ic) * ir + r % ir
                                                       : (r % ir) * ic + c % ic;
    return addr + (box + inner) * elem;
  }
};

template <typename TileT>
TileRt Rt(const TileT& t) {
  return TileRt{t.addr_,          TileT::Rows,      TileT::Cols,
                t.GetValidRow(),  t.GetValidCol(),  TileT::kElem,
                TileT::InnerRows, TileT::InnerCols, TileT::isRowMajor,
                TileT::SFractal};
}

struct ViewRt {
  uint8_t* data;
  int64_t shape[5], stride[5], elem;
  bool boxed_tile;

  // Byte address of row r (dims 0-3 flattened), column c.
  uint8_t* At(int64_t r, int64_t c) const {
    int64_t index = c * stride[4];
    for (int d = 3; d >= 0; --d) {
      index += (r % shape[d]) * stride[d];
      r /= shape[d];
    }
    return data + index * elem;
  }
};

// The static rules of a transfer between a view and a tile.
template <typename TileT, typename G>
ViewRt Transfer(const TileT&, const G& g) {
  static_assert(!(TileT::SFractal == SLayout::NoneBox && !TileT::isRowMajor),
                "model: DN (col-major NoneBox) tiles are not modelled");
  static_assert(G::kLayout == Layout::ND, "model: ND views only");
  static_assert(sizeof(typename G::DType) == sizeof(typename TileT::DType),
                "view and tile element sizes differ");
  ViewRt v{reinterpret_cast<uint8_t*>(g.data),
           {},
           {},
           TileT::kElem,
           TileT::SFractal != SLayout::NoneBox};
  for (int d = 0; d < 5; ++d) {
    v.shape[d] = g.shape.v[d];
    v.stride[d] = g.stride.v[d];
  }
  return v;
}

// The view must have exactly the tile's valid extents: rows flatten dims
// 0-3 (a boxed tile takes a 2-D view), cols are dim 4.
inline void CheckTransfer(const TileRt& t, const ViewRt& v, int64_t* rows,
                          int64_t* cols) {
  if (v.boxed_tile) {
    PTO_MODEL_CHECK(v.shape[0] == 1 && v.shape[1] == 1 && v.shape[2] == 1,
                    "boxed tiles load from and store to 2-D views only");
  }
  *rows = v.shape[0] * v.shape[1] * v.shape[2] * v.shape[3];
  *cols = v.shape[4];
  PTO_MODEL_CHECK(*rows == t.valid_row,
                  "the view's N0*N1*N2*N3 differs from the tile's valid rows");
  PTO_MODEL_CHECK(*cols == t.valid_col,
                  "the view's N4 differs from the tile's valid cols");
  PTO_MODEL_CHECK(v.stride[4] == 1,
                  "the innermost global stride must be 1 (the NPU DMA "
                  "ignores it)");
#ifdef PTO_MODEL_A2A3
  PTO_MODEL_CHECK(*rows < 4096, "A2/A3: a TLOAD/TSTORE moves < 4096 rows");
#endif
}

inline void Load(const TileRt& t, const ViewRt& v) {
  int64_t rows, cols;
  CheckTransfer(t, v, &rows, &cols);
  const uint32_t seq = Issue(PIPE_MTE2);
  ++S().counts[kLoad];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t at = t.At(r, c);
      Write(PIPE_MTE2, seq, at, t.elem);
      std::memcpy(S().ub + at, v.At(r, c), t.elem);
    }
  }
}

inline void Store(const ViewRt& v, const TileRt& t) {
  int64_t rows, cols;
  CheckTransfer(t, v, &rows, &cols);
  const uint32_t seq = Issue(PIPE_MTE3);
  ++S().counts[kStore];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t at = t.At(r, c);
      Read(PIPE_MTE3, seq, at, t.elem);
      std::memcpy(v.At(r, c), S().ub + at, t.elem);
    }
  }
}

// dst[j][i] = src[i][j] over src's valid region; through tmp (validCol
// rows of round_up(validRow, RowStride)) when tmp holds that: the A2/A3
// vector path. A tmp that overlaps a live tile then corrupts it.
inline void Trans(const TileRt& dst, const TileRt& src, const TileRt& tmp,
                  int64_t tmp_bytes) {
  const int64_t h = src.valid_row, w = src.valid_col, e = src.elem;
  PTO_MODEL_CHECK(dst.valid_row == w && dst.valid_col == h,
                  "TTRANS: dst's valid region is not src's transposed");
  const int64_t tmp_stride = RoundUp(h, e == 1 ? 32 : 16);
  const bool staged = tmp_bytes >= w * tmp_stride * e;
  const uint32_t seq = Issue(PIPE_V);
  ++S().counts[kTrans];
  uint8_t* ub = S().ub;
  auto move = [&](int64_t from, int64_t to, bool read) {
    if (read) Read(PIPE_V, seq, from, e);
    Write(PIPE_V, seq, to, e);
    std::memcpy(ub + to, ub + from, e);
  };
  if (staged) PTO_MODEL_CHECK(tmp.addr >= 0, "tmp used before TASSIGN");
  for (int64_t i = 0; i < h; ++i) {
    for (int64_t j = 0; j < w; ++j) {
      move(src.At(i, j),
           staged ? tmp.addr + (j * tmp_stride + i) * e : dst.At(j, i), true);
    }
  }
  if (!staged) return;
  for (int64_t j = 0; j < w; ++j) {
    for (int64_t i = 0; i < h; ++i)
      move(tmp.addr + (j * tmp_stride + i) * e, dst.At(j, i), false);
  }
}

inline void Mov(const TileRt& dst, const TileRt& src) {
  PTO_MODEL_CHECK(
      dst.valid_row == src.valid_row && dst.valid_col == src.valid_col,
      "TMOV: valid regions differ");
  const uint32_t seq = Issue(PIPE_V);
  ++S().counts[kMov];
  for (int64_t r = 0; r < src.valid_row; ++r) {
    for (int64_t c = 0; c < src.valid_col; ++c) {
      const int64_t from = src.At(r, c), to = dst.At(r, c);
      Read(PIPE_V, seq, from, src.elem);
      Write(PIPE_V, seq, to, src.elem);
      std::memmove(S().ub + to, S().ub + from, src.elem);
    }
  }
}

inline void Fill(const TileRt& t, const void* scalar) {
  const uint32_t seq = Issue(PIPE_V);
  ++S().counts[kExpands];
  for (int64_t r = 0; r < t.valid_row; ++r) {
    for (int64_t c = 0; c < t.valid_col; ++c) {
      const int64_t at = t.At(r, c);
      Write(PIPE_V, seq, at, t.elem);
      std::memcpy(S().ub + at, scalar, t.elem);
    }
  }
}

}  // namespace model

template <typename TileT, typename G, typename... WaitEvents>
RecordEvent TLOAD(TileT& tile, G& global, WaitEvents&...) {
  model::Load(model::Rt(tile), model::Transfer(tile, global));
  return {};
}

template <typename G, typename TileT, typename... WaitEvents>
RecordEvent TSTORE(G& global, TileT& tile, WaitEvents&...) {
  model::Store(model::Transfer(tile, global), model::Rt(tile));
  return {};
}

template <typename Dst, typename Src, typename Tmp, typename... WaitEvents>
RecordEvent TTRANS(Dst& dst, Src& src, Tmp& tmp, WaitEvents&...) {
  using T = typename Src::DType;
  constexpr int64_t e = sizeof(T);
  static_assert(sizeof(typename Src::DType) == sizeof(typename Dst::DType),
                "TTRANS: src and dst element sizes differ");
  static_assert(Src::isRowMajor, "TTRANS: the source must be row-major");
  static_assert(e == 1 || e == 2 || e == 4,
                "TTRANS: element size must be 1, 2 or 4 bytes");
  static_assert(model::kTtransType<typename Src::DType> &&
                    model::kTtransType<typename Dst::DType>,
                "TTRANS: element type not supported");
  static_assert(
      Src::ValidRow == Dst::ValidCol && Src::ValidCol == Dst::ValidRow,
      "TTRANS: Src::ValidRow/ValidCol must equal "
      "Dst::ValidCol/ValidRow");
#ifdef PTO_MODEL_A2A3
  {
    constexpr int64_t src_stride = Src::Cols;
    constexpr int64_t dst_stride = Dst::isRowMajor ? Dst::Cols : Dst::Rows;
    constexpr int64_t epb = 32 / e, row_stride = e == 1 ? 32 : 16;
    const int64_t need =
        src.GetValidCol() * model::RoundUp(src.GetValidRow(), row_stride) * e;
    if (dst_stride % row_stride == 0 && src_stride % epb == 0 &&
        src_stride / epb <= 255) {
      PTO_MODEL_CHECK(Tmp::kBytes >= need,
                      "A2/A3 TTRANS (vector path): tmp smaller than "
                      "W * round_up(H, RowStride) * sizeof(T)");
    }
    PTO_MODEL_CHECK(Src::kBytes + Dst::kBytes + Tmp::kBytes < 192 * 1024,
                    "A2/A3 TTRANS: src + dst + tmp must stay below 192 KiB");
  }
#endif
#ifdef PTO_MODEL_A5
  static_assert((Src::isRowMajor ? Src::Cols : Src::Rows) * e % 32 == 0 &&
                    (Dst::isRowMajor ? Dst::Cols : Dst::Rows) * e % 32 == 0,
                "A5 TTRANS: the major dims must be 32-byte aligned");
  constexpr int64_t idx_rows = Src::Rows < Src::Cols ? Dst::Rows : Src::Rows;
  constexpr int64_t idx_cols = Src::Rows < Src::Cols ? Dst::Cols : Src::Cols;
  static_assert((idx_rows - 1) * idx_cols + idx_cols - 1 <=
                    (e == 4 ? 0xFFFFFFFFll : 0xFFFFll),
                "A5 TTRANS: the gather/scatter index does not fit");
#endif
  model::Trans(model::Rt(dst), model::Rt(src), model::Rt(tmp), Tmp::kBytes);
  return {};
}

template <typename Dst, typename Src, typename... WaitEvents>
RecordEvent TMOV(Dst& dst, Src& src, WaitEvents&...) {
  static_assert(std::is_same_v<typename Dst::DType, typename Src::DType>,
                "TMOV: element types differ");
  model::Mov(model::Rt(dst), model::Rt(src));
  return {};
}

template <typename TileT, typename... WaitEvents>
RecordEvent TEXPANDS(TileT& tile, typename TileT::DType scalar,
                     WaitEvents&...) {
  model::Fill(model::Rt(tile), &scalar);
  return {};
}

}  // namespace pto

// Pipe synchronisation (CANN intrinsics, global namespace): set_flag(a, b)
// is queued on pipe a, wait_flag(a, b) on pipe b; after both, everything a
// issued before the set_flag is complete for b.
inline void set_flag(pipe_t from, pipe_t to, event_t id) {
  auto& s = pto::model::S();
  PTO_MODEL_CHECK(from != to && from != PIPE_ALL && to != PIPE_ALL,
                  "set_flag between two distinct pipes");
  PTO_MODEL_CHECK(s.flag[from][to][id] < 0,
                  "set_flag on an event that is already set");
  s.flag[from][to][id] = s.issued[from];
  ++s.counts[pto::model::kFlags];
}

inline void wait_flag(pipe_t from, pipe_t to, event_t id) {
  auto& s = pto::model::S();
  PTO_MODEL_CHECK(s.flag[from][to][id] >= 0, "wait_flag without set_flag");
  if (s.covered[from][to] < s.flag[from][to][id])
    s.covered[from][to] = static_cast<uint32_t>(s.flag[from][to][id]);
  s.flag[from][to][id] = -1;
}

inline void pipe_barrier(pipe_t pipe) {
  auto& s = pto::model::S();
  ++s.counts[pto::model::kBarriers];
  if (pipe != PIPE_ALL) return;  // orders one pipe with itself only
  for (int a = 0; a < pto::model::kPipes; ++a)
    for (int b = 0; b < pto::model::kPipes; ++b) s.covered[a][b] = s.issued[a];
}

#endif  // PTO_MODEL_PTO_INST_HPP_
