#include "emit/pto/kernel_builder.h"

#include <algorithm>

#include "core/int_math.h"
#include "core/result.h"

namespace ixa::emit::pto {

namespace {

std::string S(int64_t v) { return std::to_string(v); }

const char* PipeName(Pipe p) {
  switch (p) {
    case Pipe::kMte2:
      return "PIPE_MTE2";
    case Pipe::kV:
      return "PIPE_V";
    case Pipe::kMte3:
      return "PIPE_MTE3";
  }
  return "?";
}

bool Overlap(const UbRange& a, const UbRange& b) {
  return a.begin < b.end && b.begin < a.end;
}

int64_t RoundUp(int64_t a, int64_t b) { return CeilDivNonNegative(a, b) * b; }

}  // namespace

// ---------------------------------------------------------------- Lin

Lin Lin::Var(const std::string& name, int64_t coef) {
  Lin l;
  if (coef != 0) l.terms_.push_back({name, coef});
  return l;
}

Lin Lin::operator+(const Lin& other) const {
  Lin sum = *this;
  sum.constant_ += other.constant_;
  for (const auto& term : other.terms_) {
    // Not a structured binding: clang before 16 cannot capture one in the
    // lambda below (the fuzz build uses clang 14).
    const std::string& var = term.first;
    const int64_t coef = term.second;
    auto it = std::find_if(sum.terms_.begin(), sum.terms_.end(),
                           [&](const auto& t) { return t.first == var; });
    if (it == sum.terms_.end()) {
      sum.terms_.push_back({var, coef});
    } else {
      it->second += coef;
    }
  }
  std::erase_if(sum.terms_, [](const auto& t) { return t.second == 0; });
  return sum;
}

Lin Lin::operator*(int64_t k) const {
  Lin product;
  if (k == 0) return product;
  product.constant_ = constant_ * k;
  for (const auto& [var, coef] : terms_)
    product.terms_.push_back({var, coef * k});
  return product;
}

std::string Lin::Print() const {
  std::string out;
  for (const auto& [var, coef] : terms_) {
    if (!out.empty()) out += " + ";
    out += coef == 1 ? var : var + " * " + S(coef);
  }
  if (constant_ != 0 || out.empty()) {
    if (!out.empty()) out += " + ";
    out += S(constant_);
  }
  return out;
}

// ------------------------------------------------------ Extent, Axis

Extent Extent::operator*(int64_t k) const {
  Extent e = *this;
  if (dynamic()) e.scale *= k;
  for (int64_t& v : e.values) v *= k;
  return e;
}

Extent Mul(const Extent& x, const Extent& y) {
  if (!x.dynamic() && !y.dynamic()) return Extent::Fixed(x.max() * y.max());
  if (!x.dynamic()) return y * x.max();
  if (!y.dynamic()) return x * y.max();
  Extent e{x.Print() + " * " + y.Print(), 1, {}};
  for (int64_t a : x.values) {
    for (int64_t b : y.values) e.values.push_back(a * b);
  }
  std::sort(e.values.rbegin(), e.values.rend());
  e.values.erase(std::unique(e.values.begin(), e.values.end()), e.values.end());
  return e;
}

std::string Extent::Print() const {
  if (!dynamic()) return S(values.front());
  return scale == 1 ? var : var + " * " + S(scale);
}

Extent Axis::size() const {
  if (!looped()) return Extent::Fixed(extent);
  if (!ragged()) return Extent::Fixed(step);
  return Extent{size_var, 1, {step, last()}};
}

// ----------------------------------------------------------- PipeSync

std::vector<PipeSync::PipePair> PipeSync::Needed(const State& s,
                                                 const Event& e) {
  std::vector<PipePair> pairs;
  if (e.sync) return pairs;
  const int p = static_cast<int>(e.pipe);
  auto need = [&](int from) {
    PipePair pair{static_cast<Pipe>(from), e.pipe};
    if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end())
      pairs.push_back(pair);
  };
  // A read waits for other pipes' writes; a write also for their reads.
  auto check = [&](const UbRange& r, bool write) {
    for (const Record& rec : s.records) {
      if (!Overlap(rec.range, r)) continue;
      for (int q = 0; q < kPipes; ++q) {
        if (q == p) continue;
        if (rec.write_seq[q] > s.covered[q][p] ||
            (write && rec.read_seq[q] > s.covered[q][p]))
          need(q);
      }
    }
  };
  for (const UbRange& r : e.reads) check(r, false);
  for (const UbRange& w : e.writes) check(w, true);
  return pairs;
}

void PipeSync::Sync(State* s, PipePair pair) {
  const int a = static_cast<int>(pair.first), b = static_cast<int>(pair.second);
  s->covered[a][b] = s->issued[a];
}

void PipeSync::Apply(State* s, const Event& e) {
  if (e.sync) {
    Sync(s, {e.pipe, e.to});
    return;
  }
  const int p = static_cast<int>(e.pipe);
  const int64_t seq = ++s->issued[p];
  auto record = [&](const UbRange& r) -> Record& {
    for (Record& rec : s->records) {
      if (rec.range.begin == r.begin && rec.range.end == r.end) return rec;
    }
    s->records.push_back(Record{r, {0, 0, 0}, {0, 0, 0}});
    return s->records.back();
  };
  for (const UbRange& r : e.reads) record(r).read_seq[p] = seq;
  for (const UbRange& w : e.writes) record(w).write_seq[p] = seq;
}

void PipeSync::EmitSync(CodeWriter* out, PipePair pair) {
  const std::string args = std::string(PipeName(pair.first)) + ", " +
                           PipeName(pair.second) + ", EVENT_ID0);";
  out->Line("set_flag(" + args);
  out->Line("wait_flag(" + args);
  Sync(&state_, pair);
  Event e;
  e.sync = true;
  e.pipe = pair.first;
  e.to = pair.second;
  Remember(std::move(e));
}

void PipeSync::Remember(Event e) {
  if (!loops_.empty()) loops_.back().push_back(std::move(e));
}

void PipeSync::Instr(CodeWriter* out, Pipe pipe,
                     const std::vector<UbRange>& reads,
                     const std::vector<UbRange>& writes) {
  Event e;
  e.pipe = pipe;
  e.reads = reads;
  e.writes = writes;
  for (PipePair pair : Needed(state_, e)) EmitSync(out, pair);
  Apply(&state_, e);
  Remember(std::move(e));
}

void PipeSync::Prepare(CodeWriter* out, Pipe pipe,
                       const std::vector<UbRange>& reads,
                       const std::vector<UbRange>& writes) {
  Event e;
  e.pipe = pipe;
  e.reads = reads;
  e.writes = writes;
  for (PipePair pair : Needed(state_, e)) EmitSync(out, pair);
}

void PipeSync::EndLoop(CodeWriter* out) {
  IXA_CHECK_MSG(!loops_.empty(), "PipeSync::EndLoop without BeginLoop");
  std::vector<Event> body = std::move(loops_.back());
  loops_.pop_back();
  // The next iteration starts from what this one left: replay the body to
  // find the flags it needs for hazards with this iteration's instructions.
  State next = state_;
  std::vector<PipePair> carried;
  for (const Event& e : body) {
    for (PipePair pair : Needed(next, e)) {
      if (std::find(carried.begin(), carried.end(), pair) == carried.end())
        carried.push_back(pair);
      Sync(&next, pair);
    }
    Apply(&next, e);
  }
  if (!carried.empty())
    out->Line("// The next iteration reuses these tiles: wait for the pipes.");
  std::vector<Event> recorded = body;
  for (PipePair pair : carried) {
    const std::string args = std::string(PipeName(pair.first)) + ", " +
                             PipeName(pair.second) + ", EVENT_ID0);";
    out->Line("set_flag(" + args);
    out->Line("wait_flag(" + args);
    Sync(&state_, pair);
    Event e;
    e.sync = true;
    e.pipe = pair.first;
    e.to = pair.second;
    recorded.push_back(e);
  }
  // With those flags at the end of every iteration, a second iteration
  // needs nothing more: check it, and continue from its end state.
  State second = state_;
  for (const Event& e : recorded) {
    IXA_CHECK_MSG(Needed(second, e).empty(),
                  "PipeSync: the loop-carried flags are not a fixpoint");
    Apply(&second, e);
  }
  state_ = second;
  if (!loops_.empty()) {
    for (Event& e : recorded) loops_.back().push_back(std::move(e));
  }
}

// ------------------------------------------------------ KernelBuilder

KernelBuilder::KernelBuilder(hw::pto::Arch arch, const hw::DType& dtype,
                             std::string cpp_type)
    : arch_(arch),
      dtype_(dtype),
      elem_(dtype.bits / 8),
      cpp_type_(std::move(cpp_type)) {
  body_.Indent();
}

int KernelBuilder::AddTile(const std::string& type, const std::string& purpose,
                           int64_t rows, int64_t cols, const Extent& valid_row,
                           const Extent& valid_col) {
  TileDecl t;
  t.type = type;
  t.purpose = purpose;
  t.tile.loc = hw::pto::Loc::kVec;
  t.tile.dtype = dtype_;
  t.tile.rows = rows;
  t.tile.cols = cols;
  t.valid_row = valid_row;
  t.valid_col = valid_col;
  t.bytes = rows * cols * elem_;
  t.ub_offset = RoundUp(ub_end_, 32);
  ub_end_ = t.ub_offset + t.bytes;
  tiles_.push_back(std::move(t));
  alias_of_.push_back(-1);
  return static_cast<int>(tiles_.size()) - 1;
}

int KernelBuilder::AddAlias(const std::string& type, const std::string& purpose,
                            int of, int64_t offset_bytes, int64_t rows,
                            int64_t cols, const Extent& valid_row,
                            const Extent& valid_col) {
  const int64_t end = ub_end_;
  int index = AddTile(type, purpose, rows, cols, valid_row, valid_col);
  ub_end_ = end;
  while (alias_of_[of] >= 0) of = alias_of_[of];
  tiles_[index].ub_offset = tiles_[of].ub_offset + offset_bytes;
  alias_of_[index] = of;
  return index;
}

UbRange KernelBuilder::Range(int tile) const {
  const int root = alias_of_[tile] >= 0 ? alias_of_[tile] : tile;
  const TileDecl& t = tiles_[root];
  return UbRange{t.ub_offset, t.ub_offset + t.bytes};
}

std::string KernelBuilder::TileTypeText(const TileDecl& t) const {
  std::string text = "Tile<TileType::Vec, " + cpp_type_ + ", " +
                     S(t.tile.rows) + ", " + S(t.tile.cols);
  const bool full = !t.valid_row.dynamic() && !t.valid_col.dynamic() &&
                    t.valid_row.max() == t.tile.rows &&
                    t.valid_col.max() == t.tile.cols;
  if (!full) {
    auto valid = [](const Extent& e) {
      return e.dynamic() ? std::string("DYNAMIC") : S(e.max());
    };
    text += ", BLayout::RowMajor, " + valid(t.valid_row) + ", " +
            valid(t.valid_col);
  }
  return text + ">";
}

void KernelBuilder::DeclareTile(int tile, const std::string& var) {
  const TileDecl& t = tiles_[tile];
  DeclareTile(tile, var, t.valid_row, t.valid_col, "");
}

void KernelBuilder::DeclareTile(int tile, const std::string& var,
                                const Extent& valid_row,
                                const Extent& valid_col,
                                const std::string& extra_offset) {
  const TileDecl& t = tiles_[tile];
  IXA_CHECK_MSG(t.valid_row.dynamic() || (!valid_row.dynamic() &&
                                          valid_row.max() == t.valid_row.max()),
                "DeclareTile: a static valid row count differs");
  IXA_CHECK_MSG(t.valid_col.dynamic() || (!valid_col.dynamic() &&
                                          valid_col.max() == t.valid_col.max()),
                "DeclareTile: a static valid col count differs");
  std::vector<std::string> args;
  if (t.valid_row.dynamic()) args.push_back(valid_row.Print());
  if (t.valid_col.dynamic()) args.push_back(valid_col.Print());
  std::string decl = t.type + " " + var;
  if (!args.empty()) {
    decl += "(" + args[0];
    for (size_t i = 1; i < args.size(); ++i) decl += ", " + args[i];
    decl += ")";
  }
  body_.Line(decl + ";");
  std::string at = "k" + t.type + "Ub";
  if (!extra_offset.empty()) at += " + " + extra_offset;
  body_.Line("TASSIGN(" + var + ", " + at + ");");
}

void KernelBuilder::DeclareView(const ViewDecl& view, const std::string& var,
                                const std::string& buffer, const Lin& offset) {
  auto known = std::find_if(views_.begin(), views_.end(),
                            [&](auto& v) { return v.name == view.name; });
  if (known == views_.end()) {
    views_.push_back(view);
  } else {
    for (int d = 0; d < 5; ++d) {
      IXA_CHECK_MSG(known->dims[d].dynamic() == view.dims[d].dynamic() &&
                        (view.dims[d].dynamic() ||
                         known->dims[d].max() == view.dims[d].max()) &&
                        known->strides[d] == view.strides[d],
                    "DeclareView: two views named " + view.name + " differ");
    }
  }
  std::vector<std::string> dynamic;
  for (const Extent& d : view.dims) {
    if (d.dynamic()) dynamic.push_back(d.Print());
  }
  std::string ptr = buffer;
  const std::string off = offset.Print();
  if (off != "0") ptr += " + " + off;
  std::string line = view.name + "View " + var + "(" + ptr;
  if (!dynamic.empty()) {
    line += ", " + view.name + "Shape(" + dynamic[0];
    for (size_t i = 1; i < dynamic.size(); ++i) line += ", " + dynamic[i];
    line += ")";
  }
  body_.Line(line + ");");
}

namespace {

int64_t RowsOf(const ViewDecl& view) {
  int64_t rows = 1;
  for (int d = 0; d < 4; ++d) rows *= view.dims[d].max();
  return rows;
}

}  // namespace

void KernelBuilder::Load(int tile, const std::string& var, const ViewDecl& view,
                         const std::string& view_var) {
  sync_.Instr(&body_, Pipe::kMte2, {}, {Range(tile)});
  body_.Line("TLOAD(" + var + ", " + view_var + ");");
  transfers_.push_back({tile, true, RowsOf(view), view.strides[4]});
}

void KernelBuilder::Store(int tile, const std::string& var,
                          const ViewDecl& view, const std::string& view_var) {
  sync_.Instr(&body_, Pipe::kMte3, {Range(tile)}, {});
  body_.Line("TSTORE(" + view_var + ", " + var + ");");
  transfers_.push_back({tile, false, RowsOf(view), view.strides[4]});
}

void KernelBuilder::Transpose(int dst, const std::string& dst_var, int src,
                              const std::string& src_var, int tmp,
                              const std::string& tmp_var) {
  sync_.Instr(&body_, Pipe::kV, {Range(src), Range(tmp)},
              {Range(dst), Range(tmp)});
  body_.Line("TTRANS(" + dst_var + ", " + src_var + ", " + tmp_var + ");");
  transpositions_.push_back({dst, src, tmp});
}

void KernelBuilder::Fill(int tile, const std::string& var) {
  sync_.Instr(&body_, Pipe::kV, {}, {Range(tile)});
  body_.Line("TEXPANDS(" + var + ", " + cpp_type_ + "(0));");
}

void KernelBuilder::SyncBefore(Pipe pipe, int tile) {
  sync_.Prepare(&body_, pipe, {}, {Range(tile)});
}

void KernelBuilder::OpenLoop(const std::string& comment,
                             const std::string& header) {
  if (!comment.empty()) body_.Line("// " + comment);
  body_.Open(header);
  sync_.BeginLoop();
}

void KernelBuilder::CloseLoop() {
  sync_.EndLoop(&body_);
  body_.Close("}");
}

void KernelBuilder::OpenAxis(const Axis& axis, const std::string& comment) {
  if (!axis.looped()) return;
  const std::string& v = axis.start_var;
  OpenLoop(comment, "for (int64_t " + v + " = 0; " + v + " < " +
                        S(axis.extent) + "; " + v + " += " + S(axis.step) +
                        ") {");
  if (axis.ragged()) {
    body_.Line("const int64_t " + axis.size_var + " = " + S(axis.extent) +
               " - " + v + " < " + S(axis.step) + " ? " + S(axis.extent) +
               " - " + v + " : " + S(axis.step) + ";");
  }
}

void KernelBuilder::CloseAxis(const Axis& axis) {
  if (axis.looped()) CloseLoop();
}

// --------------------------------------------------------- legality

hw::pto::Check KernelBuilder::CheckLegality(bool want_vector_path) const {
  hw::pto::Check check;
  auto fail = [&](const std::string& f) {
    if (std::find(check.failures.begin(), check.failures.end(), f) ==
        check.failures.end())
      check.Fail(f);
  };
  if (transpositions_.empty() && !hw::pto::IsTtransElementType(dtype_))
    fail(hw::pto::ElementTypeFailure(dtype_));
  const int64_t ub = hw::pto::UbBytes(arch_);
  for (const TileDecl& t : tiles_) {
    hw::pto::Tile tile = t.tile;
    tile.valid_row = t.valid_row.max();
    tile.valid_col = t.valid_col.max();
    for (const std::string& f : hw::pto::CheckTile(tile).failures)
      fail("tile " + t.type + ": " + f);
    if (t.ub_offset % 32 != 0)
      fail("tile " + t.type + " starts at UB byte " + S(t.ub_offset) +
           ", not 32-byte aligned");
    if (t.ub_offset + t.bytes > ub) {
      fail("tile " + t.type + " occupies UB bytes [" + S(t.ub_offset) + ", " +
           S(t.ub_offset + t.bytes) + "), beyond the " + S(ub) +
           "-byte unified buffer");
    }
  }
  for (const Transposition& tr : transpositions_) {
    const TileDecl& src = tiles_[tr.src];
    const TileDecl& dst = tiles_[tr.dst];
    const std::string op = "TTRANS(" + dst.type + ", " + src.type + "): ";
    for (int64_t h : src.valid_row.values) {
      for (int64_t w : src.valid_col.values) {
        hw::pto::Tile s = src.tile, d = dst.tile;
        s.valid_row = h;
        s.valid_col = w;
        d.valid_row = w;
        d.valid_col = h;
        hw::pto::TtransPlan plan = hw::pto::CheckTtrans(arch_, s, d);
        for (const std::string& f : plan.check.failures) fail(op + f);
        if (plan.path == "vector" && plan.tmp_bytes > tiles_[tr.tmp].bytes) {
          fail(op + "the tmp tile " + tiles_[tr.tmp].type + " has " +
               S(tiles_[tr.tmp].bytes) + " bytes, the " + S(h) + "x" + S(w) +
               " transposition needs " + S(plan.tmp_bytes));
        }
        if (want_vector_path && plan.path == "scalar")
          fail(op + "the " + S(h) + "x" + S(w) +
               " region takes the scalar path");
      }
    }
  }
  for (const Transfer& t : transfers_) {
    const std::string op =
        std::string(t.load ? "TLOAD into " : "TSTORE from ") +
        tiles_[t.tile].type + ": ";
    for (const std::string& f :
         hw::pto::CheckDma(arch_, t.max_rows, t.innermost_stride).failures)
      fail(op + f);
  }
  return check;
}

// ------------------------------------------------------- declarations

std::string KernelBuilder::Declarations() const {
  CodeWriter out;
  out.Indent();
  out.Line("// Tiles in the unified buffer (TASSIGN byte offsets):");
  for (const TileDecl& t : tiles_) {
    out.Line("// " + t.type + ": " + t.purpose);
    out.Line("using " + t.type + " = " + TileTypeText(t) + ";");
    out.Line("constexpr int64_t k" + t.type + "Ub = " + S(t.ub_offset) +
             ";  // bytes [" + S(t.ub_offset) + ", " +
             S(t.ub_offset + t.bytes) + ")");
  }
  if (!views_.empty()) {
    out.Line("// Global-memory views (shapes and strides in elements):");
  }
  for (const ViewDecl& v : views_) {
    std::string shape = "Shape<", stride = "Stride<";
    for (int d = 0; d < 5; ++d) {
      const std::string sep = d == 0 ? "" : ", ";
      shape += sep + (v.dims[d].dynamic() ? std::string("DYNAMIC")
                                          : S(v.dims[d].max()));
      stride += sep + S(v.strides[d]);
    }
    out.Line("using " + v.name + "Shape = " + shape + ">;");
    out.Line("using " + v.name + "Stride = " + stride + ">;");
    out.Line("using " + v.name + "View = GlobalTensor<" + cpp_type_ + ", " +
             v.name + "Shape, " + v.name + "Stride>;");
  }
  return out.Take();
}

std::vector<PtoTileInfo> KernelBuilder::TileInfos() const {
  std::vector<PtoTileInfo> infos;
  for (const TileDecl& t : tiles_) {
    PtoTileInfo info;
    info.type = t.type;
    info.purpose = t.purpose;
    info.tile = t.tile;
    info.tile.valid_row = t.valid_row.max();
    info.tile.valid_col = t.valid_col.max();
    info.valid_rows = t.valid_row.values;
    info.valid_cols = t.valid_col.values;
    info.ub_offset = t.ub_offset;
    info.bytes = t.bytes;
    infos.push_back(std::move(info));
  }
  return infos;
}

}  // namespace ixa::emit::pto
