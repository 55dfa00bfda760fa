// The pieces every PTO recipe prints with (emit/pto/recipes.cc): linear
// offset expressions, tiled loop axes, the pipe synchronisation tracker, and
// KernelBuilder, which declares tiles and global-memory views, places tiles
// in the unified buffer, records every TLOAD / TTRANS / TSTORE for the
// legality check and prints the instructions with the flags they need.
#ifndef IXA_EMIT_PTO_KERNEL_BUILDER_H_
#define IXA_EMIT_PTO_KERNEL_BUILDER_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "emit/code_writer.h"
#include "emit/pto/pto_codegen.h"
#include "hw/pto.h"

namespace ixa::emit::pto {

// A linear expression over loop variables, e.g. `n * 960 + c0 + 16`.
class Lin {
 public:
  Lin() = default;
  explicit Lin(int64_t constant) : constant_(constant) {}
  static Lin Var(const std::string& name, int64_t coef = 1);
  Lin operator+(const Lin& other) const;
  Lin operator*(int64_t k) const;
  std::string Print() const;

 private:
  std::vector<std::pair<std::string, int64_t>> terms_;
  int64_t constant_ = 0;
};

// A size at run time: a constant, or `var * scale` (a DYNAMIC extent) that
// takes `values` (largest first).
struct Extent {
  std::string var;  // empty: a constant
  int64_t scale = 1;
  std::vector<int64_t> values;

  static Extent Fixed(int64_t v) { return Extent{"", 1, {v}}; }
  bool dynamic() const { return !var.empty(); }
  int64_t max() const { return values.front(); }
  Extent operator*(int64_t k) const;
  std::string Print() const;
};
// x * y (each value pair multiplied).
Extent Mul(const Extent& x, const Extent& y);

// [0, extent) walked in steps of `step`: a loop when there is more than one
// step, with a ragged last step `size_var` when step does not divide extent.
struct Axis {
  std::string start_var, size_var;
  int64_t extent = 1, step = 1;

  int64_t count() const { return (extent + step - 1) / step; }
  int64_t last() const { return extent - (count() - 1) * step; }
  bool looped() const { return count() > 1; }
  bool ragged() const { return looped() && last() != step; }
  Lin start() const { return looped() ? Lin::Var(start_var) : Lin(0); }
  Extent size() const;
};

enum class Pipe { kMte2, kV, kMte3 };

// A byte range of the unified buffer.
struct UbRange {
  int64_t begin = 0, end = 0;
};

// Inserts set_flag/wait_flag pairs: an instruction that touches UB bytes
// another pipe wrote (or, for a write, read) waits for that pipe first.
// Loops: at the end of a body, the flags the next iteration needs for
// what this one left behind (found by replaying the body).
class PipeSync {
 public:
  void Instr(CodeWriter* out, Pipe pipe, const std::vector<UbRange>& reads,
             const std::vector<UbRange>& writes);
  // Only the flags such an instruction would need, without issuing it.
  void Prepare(CodeWriter* out, Pipe pipe, const std::vector<UbRange>& reads,
               const std::vector<UbRange>& writes);
  void BeginLoop() { loops_.emplace_back(); }
  void EndLoop(CodeWriter* out);

 private:
  static constexpr int kPipes = 3;
  // The last write and read of a UB range by each pipe (instruction
  // numbers, 0 none). A write never erases another pipe's: instructions
  // may write only part of a tile (a TLOAD of the valid region).
  struct Record {
    UbRange range;
    std::array<int64_t, kPipes> write_seq = {0, 0, 0};
    std::array<int64_t, kPipes> read_seq = {0, 0, 0};
  };
  struct State {
    std::vector<Record> records;
    std::array<int64_t, kPipes> issued = {0, 0, 0};
    std::array<std::array<int64_t, kPipes>, kPipes> covered = {};
  };
  struct Event {
    bool sync = false;
    Pipe pipe = Pipe::kV, to = Pipe::kV;  // sync: pipe -> to
    std::vector<UbRange> reads, writes;
  };
  using PipePair = std::pair<Pipe, Pipe>;

  static std::vector<PipePair> Needed(const State& s, const Event& e);
  static void Apply(State* s, const Event& e);
  static void Sync(State* s, PipePair p);
  void EmitSync(CodeWriter* out, PipePair p);
  void Remember(Event e);

  State state_;
  std::vector<std::vector<Event>> loops_;
};

// A tile type the kernel declares; `valid_row` / `valid_col` are DYNAMIC
// template parameters when they are.
struct TileDecl {
  std::string type, purpose;
  hw::pto::Tile tile;
  Extent valid_row, valid_col;
  int64_t ub_offset = 0, bytes = 0;
};

// A global-memory view type: five dims (4 innermost) and strides.
struct ViewDecl {
  std::string name;  // prefix: NAME + Shape / Stride / View
  std::array<Extent, 5> dims;
  std::array<int64_t, 5> strides;
};

class KernelBuilder {
 public:
  KernelBuilder(hw::pto::Arch arch, const hw::DType& dtype,
                std::string cpp_type);

  hw::pto::Arch arch() const { return arch_; }
  int64_t elem_bytes() const { return elem_; }
  const std::string& cpp_type() const { return cpp_type_; }
  CodeWriter& body() { return body_; }
  const std::vector<TileDecl>& tiles() const { return tiles_; }
  int64_t ub_end() const { return ub_end_; }
  int64_t tmp_bytes() const { return tmp_bytes_; }

  // A row-major NoneBox Vec tile type placed at the next free 32-byte
  // aligned UB offset; returns its index.
  int AddTile(const std::string& type, const std::string& purpose, int64_t rows,
              int64_t cols, const Extent& valid_row, const Extent& valid_col);
  // A tile type over another tile's bytes (same offset, or `offset_bytes`
  // into it): the deliberate aliasing of docs/pto.md §2.
  int AddAlias(const std::string& type, const std::string& purpose, int of,
               int64_t offset_bytes, int64_t rows, int64_t cols,
               const Extent& valid_row, const Extent& valid_col);
  void set_tmp_bytes(int64_t bytes) { tmp_bytes_ = bytes; }

  // Prints `TYPE var(dynamic extents); TASSIGN(var, UB offset [+ extra]);`.
  // The extents default to the tile's declared ones.
  void DeclareTile(int tile, const std::string& var);
  void DeclareTile(int tile, const std::string& var, const Extent& valid_row,
                   const Extent& valid_col, const std::string& extra_offset);
  // Prints `NAMEView var(BUF + offset[, NAMEShape(dynamic dims)]);`.
  void DeclareView(const ViewDecl& view, const std::string& var,
                   const std::string& buffer, const Lin& offset);

  // Instructions with their pipe flags. Ranges default to the whole tile.
  void Load(int tile, const std::string& var, const ViewDecl& view,
            const std::string& view_var);
  void Store(int tile, const std::string& var, const ViewDecl& view,
             const std::string& view_var);
  void Transpose(int dst, const std::string& dst_var, int src,
                 const std::string& src_var, int tmp,
                 const std::string& tmp_var);
  void Fill(int tile, const std::string& var);
  // The flags `pipe` needs before it may write `tile` (e.g. ahead of a
  // loop of loads into its parts, so the loop itself needs none).
  void SyncBefore(Pipe pipe, int tile);

  // Loops: `for (...) {` / `}` with the loop-carried flags.
  void OpenLoop(const std::string& comment, const std::string& header);
  void CloseLoop();
  // A tiled axis: a loop when it has several steps (plus the ragged size),
  // nothing when it has one.
  void OpenAxis(const Axis& axis, const std::string& comment);
  void CloseAxis(const Axis& axis);

  // Every broken rule of docs/pto.md §4 over the recorded tiles and
  // instructions (each DYNAMIC extent at each of its values).
  hw::pto::Check CheckLegality(bool want_vector_path) const;

  // The tile and view declarations for the top of the kernel.
  std::string Declarations() const;
  std::vector<PtoTileInfo> TileInfos() const;

 private:
  UbRange Range(int tile) const;
  std::string TileTypeText(const TileDecl& t) const;

  struct Transposition {
    int dst, src, tmp;
  };
  struct Transfer {
    int tile;
    bool load;
    int64_t max_rows, innermost_stride;
  };

  hw::pto::Arch arch_;
  hw::DType dtype_;
  int64_t elem_;
  std::string cpp_type_;
  CodeWriter body_;
  PipeSync sync_;
  std::vector<TileDecl> tiles_;
  std::vector<int> alias_of_;
  std::vector<ViewDecl> views_;
  std::vector<Transposition> transpositions_;
  std::vector<Transfer> transfers_;
  int64_t ub_end_ = 0, tmp_bytes_ = 0;
};

}  // namespace ixa::emit::pto

#endif  // IXA_EMIT_PTO_KERNEL_BUILDER_H_
