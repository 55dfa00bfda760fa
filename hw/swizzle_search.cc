#include "hw/swizzle_search.h"

#include <algorithm>
#include <map>

#include "core/enumerate.h"
#include "simplifier/simplify.h"

namespace ixa::hw {

namespace {

std::string SwzStr(int64_t v) { return std::to_string(v); }

int64_t TileRows(std::span<const int64_t> shape) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  return rows;
}

bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int Log2Exact(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v) ++k;
  return k;
}

// o with bits [M, M+B) XOR-ed by bits [M+S, M+S+B) (S >= 0; S < 0 the other
// way), written as floordiv/mod bit terms: bit t of o XOR bit u of o is
// ((o fd 2^t) + (o fd 2^u)) mod 2.
Expr XorSwizzleOffset(Expr o, const cute::Swizzle& s) {
  Expr out = o;
  for (int j = 0; j < s.b; ++j) {
    const int t = s.s >= 0 ? s.m + j : s.m - s.s + j;
    const int u = s.s >= 0 ? s.m + s.s + j : s.m + j;
    Expr bit_t = o.FloorDiv(int64_t{1} << t);
    Expr bit_u = o.FloorDiv(int64_t{1} << u);
    out = out + ((bit_t + bit_u) % 2 - bit_t % 2) * (int64_t{1} << t);
  }
  return out;
}

int64_t OffsetAt(const TileLayout& l, int64_t cols, int64_t flat) {
  const int64_t r = flat / cols, c = flat % cols;
  switch (l.kind) {
    case TileLayoutKind::kRowMajor:
      return flat;
    case TileLayoutKind::kPadded:
      return r * (cols + l.pad) + c;
    case TileLayoutKind::kRotated:
      return r * cols + (c + r * l.rotation) % cols;
    case TileLayoutKind::kXor:
      return cute::ApplySwizzle(l.swizzle, flat);
  }
  return flat;
}

int64_t ArithmeticOf(const TileLayout& l, int64_t cols) {
  switch (l.kind) {
    case TileLayoutKind::kRowMajor:
    case TileLayoutKind::kPadded:
      return 0;
    case TileLayoutKind::kXor:
      return 3;
    case TileLayoutKind::kRotated:
      return IsPowerOfTwo(cols) ? 3 : 5;
  }
  return 0;
}

// One warp access of the tile: each active lane's first element as a
// row-major flat index.
struct TileLaneElement {
  int64_t lane = 0;
  int64_t flat = 0;
};
using TileWarpAccess = std::vector<TileLaneElement>;

Result<std::vector<TileWarpAccess>> EnumerateTileAccess(
    const TileAccess& access, std::span<const int64_t> shape,
    const BankModel& model, int64_t budget, const std::string& which) {
  const IndexingMap& map = access.map;
  if (map.num_results() != static_cast<int>(shape.size()))
    return Error::Invalid("the " + which + " map has " +
                          SwzStr(map.num_results()) +
                          " results; the tile has rank " +
                          SwzStr(static_cast<int64_t>(shape.size())));
  if (access.thread_dim < 0 || access.thread_dim >= map.num_dims())
    return Error::Invalid("the " + which + " map has no dim " +
                          SwzStr(access.thread_dim) + " (the thread id)");
  const int64_t cols = shape.back();
  std::map<std::vector<int64_t>, TileWarpAccess> by_key;
  Error failure;
  bool failed = false;
  auto r = ForEachDomainPoint(map, budget, [&](const Point& p) {
    auto v = map.Evaluate(p.dims, p.symbols);
    if (!v.ok()) {
      failure = v.error();
      failed = true;
      return false;
    }
    const int64_t t = p.dims[access.thread_dim];
    int64_t flat = 0;
    bool inside = t >= 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      const int64_t c = (*v)[d];
      const int64_t last =
          d + 1 == shape.size() ? c + access.vector_width - 1 : c;
      if (c < 0 || last >= shape[d]) inside = false;
      flat = flat * shape[d] + c;
    }
    if (!inside) {
      std::string coords;
      for (int64_t c : *v) coords += (coords.empty() ? "" : ", ") + SwzStr(c);
      failure = Error::Invalid(
          "the " + which + " map reaches (" + coords + ")" +
          (access.vector_width > 1
               ? " with " + SwzStr(access.vector_width) + " elements"
               : std::string()) +
          " outside the tile" + (t < 0 ? " (or a negative thread id)" : ""));
      failed = true;
      return false;
    }
    std::vector<int64_t> key{t / model.warp_size};
    for (int d = 0; d < map.num_dims(); ++d)
      if (d != access.thread_dim) key.push_back(p.dims[d]);
    key.insert(key.end(), p.symbols.begin(), p.symbols.end());
    by_key[key].push_back({t % model.warp_size, flat});
    (void)cols;
    return true;
  });
  if (!r.ok()) {
    if (r.error().code == ErrorCode::kLimitExceeded)
      return Error::Limit("the " + which + " access has more than " +
                          SwzStr(budget) + " lane points (" +
                          r.error().message + ")");
    return r.error();
  }
  if (failed) return failure;
  std::vector<TileWarpAccess> out;
  out.reserve(by_key.size());
  for (auto& [key, lanes] : by_key) out.push_back(std::move(lanes));
  return out;
}

// Total wavefronts of the accesses through `layout`; none when the layout
// splits a lane's vector or misaligns it.
std::optional<int64_t> LayoutWavefronts(
    const std::vector<TileWarpAccess>& accesses, const TileLayout& layout,
    int64_t cols, int64_t element_bytes, int64_t vector_width,
    const BankModel& model) {
  const int64_t access_bytes = element_bytes * vector_width;
  std::vector<std::optional<int64_t>> addresses(model.warp_size);
  int64_t total = 0;
  for (const TileWarpAccess& warp : accesses) {
    std::fill(addresses.begin(), addresses.end(), std::nullopt);
    for (const TileLaneElement& e : warp) {
      const int64_t off = OffsetAt(layout, cols, e.flat);
      for (int64_t k = 1; k < vector_width; ++k) {
        if (OffsetAt(layout, cols, e.flat + k) != off + k) return std::nullopt;
      }
      const int64_t byte = off * element_bytes;
      if (byte % access_bytes != 0) return std::nullopt;
      addresses[e.lane] = byte;
    }
    total += WarpWavefronts(addresses, access_bytes, model);
  }
  return total;
}

std::vector<TileLayout> TileCandidates(std::span<const int64_t> shape,
                                       int64_t element_bytes,
                                       int64_t vector_elements,
                                       const BankModel& model) {
  std::vector<TileLayout> out{TileLayout{}};
  const int64_t cols = shape.back();
  const int64_t rows = TileRows(shape);
  const int64_t bank_cycle = model.banks * model.bank_bytes;
  int64_t size = rows * cols;
  if (rows > 1) {
    // A pad past one cycle of the banks repeats a smaller pad's banks.
    for (int64_t pad = vector_elements; pad * element_bytes <= bank_cycle;
         pad += vector_elements) {
      out.push_back({TileLayoutKind::kPadded, pad, 0, {}});
    }
  }
  // XOR swizzles whose source bits lie inside the tile's offsets.
  const int bits = Log2Exact(size);
  for (int b = 1; b <= 5; ++b) {
    for (int m = 0; m <= 7; ++m) {
      for (int s = b; m + s < bits && m + s + b <= 30; ++s) {
        out.push_back({TileLayoutKind::kXor, 0, 0, cute::Swizzle{b, m, s}});
      }
    }
  }
  if (rows > 1 && cols % vector_elements == 0) {
    for (int64_t k = vector_elements;
         k < cols && k * element_bytes <= bank_cycle; k += vector_elements) {
      out.push_back({TileLayoutKind::kRotated, 0, k, {}});
    }
  }
  return out;
}

}  // namespace

std::string DescribeTileLayout(const TileLayout& l) {
  switch (l.kind) {
    case TileLayoutKind::kRowMajor:
      return "row_major";
    case TileLayoutKind::kPadded:
      return "pad " + SwzStr(l.pad);
    case TileLayoutKind::kRotated:
      return "rotate " + SwzStr(l.rotation);
    case TileLayoutKind::kXor:
      return "Swizzle<" + SwzStr(l.swizzle.b) + "," + SwzStr(l.swizzle.m) +
             "," + SwzStr(l.swizzle.s) + ">";
  }
  return "";
}

int64_t TileLayoutOffsetAt(const TileLayout& l, std::span<const int64_t> shape,
                           int64_t flat) {
  return OffsetAt(l, shape.back(), flat);
}

Expr TileLayoutOffset(const TileLayout& l, std::span<const int64_t> shape,
                      std::span<const Expr> coords) {
  ExprContext* ctx = coords[0].context();
  const int64_t cols = shape.back();
  Expr row = ctx->Constant(0);
  for (size_t i = 0; i + 1 < shape.size(); ++i)
    row = row * shape[i] + coords[i];
  Expr col = coords.back();
  switch (l.kind) {
    case TileLayoutKind::kRowMajor:
      return row * cols + col;
    case TileLayoutKind::kPadded:
      return row * (cols + l.pad) + col;
    case TileLayoutKind::kRotated:
      return row * cols + (col + row * l.rotation) % cols;
    case TileLayoutKind::kXor:
      return XorSwizzleOffset(row * cols + col, l.swizzle);
  }
  return row * cols + col;
}

IndexingMap TileLayoutMap(const TileLayout& l, std::span<const int64_t> shape,
                          ExprContext* ctx) {
  std::vector<Expr> dims;
  for (size_t i = 0; i < shape.size(); ++i)
    dims.push_back(ctx->Dim(static_cast<int>(i)));
  IndexingMap map = IndexingMap::FromTensorSizes(
      ctx, {TileLayoutOffset(l, shape, dims)}, shape, {});
  Simplify(&map);
  return map;
}

int64_t TileLayoutElements(const TileLayout& l,
                           std::span<const int64_t> shape) {
  const int64_t cols = shape.back(), rows = TileRows(shape);
  const int64_t size = rows * cols;
  if (l.kind == TileLayoutKind::kPadded) return rows * (cols + l.pad);
  if (l.kind != TileLayoutKind::kXor) return size;
  // The swizzle maps every aligned block of 2^(M+|S|+B) offsets onto
  // itself: only a partial last block can reach past the tile.
  const int64_t block = int64_t{1}
                        << (l.swizzle.m + std::abs(l.swizzle.s) + l.swizzle.b);
  const int64_t base = size - size % block;
  int64_t most = size - 1;
  for (int64_t o = base; o < size; ++o)
    most = std::max(most, cute::ApplySwizzle(l.swizzle, o));
  return most + 1;
}

std::optional<std::vector<std::vector<int64_t>>> TileLayoutBases(
    const TileLayout& l, std::span<const int64_t> shape) {
  if (l.kind != TileLayoutKind::kRowMajor && l.kind != TileLayoutKind::kXor)
    return std::nullopt;
  for (int64_t s : shape)
    if (!IsPowerOfTwo(s)) return std::nullopt;
  std::vector<std::vector<int64_t>> bases(shape.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    for (int j = 0; (int64_t{1} << j) < shape[d]; ++j) {
      const int64_t v = stride << j;
      bases[d].push_back(l.kind == TileLayoutKind::kXor
                             ? cute::ApplySwizzle(l.swizzle, v)
                             : v);
    }
    stride *= shape[d];
  }
  return bases;
}

SharedAccess TileAccessThrough(const TileAccess& access,
                               const TileLayout& layout,
                               std::span<const int64_t> shape,
                               int64_t element_bytes) {
  IndexingMap map = access.map;
  Expr offset = TileLayoutOffset(layout, shape, map.results());
  map.mutable_results() = {offset * element_bytes};
  return SharedAccess{std::move(map), access.thread_dim, element_bytes,
                      access.vector_width};
}

Result<SwizzleAnswer> SynthesizeTileLayout(const SwizzleRequest& req,
                                           ExprContext* ctx) {
  const std::vector<int64_t>& shape = req.shape;
  if (shape.empty()) return Error::Invalid("the tile needs a shape");
  int64_t size = 1;
  for (int64_t s : shape) {
    if (s < 1 || s > (int64_t{1} << 24))
      return Error::Invalid("tile dims must be 1 to 2^24");
    size *= s;
    if (size > (int64_t{1} << 24))
      return Error::Invalid("the tile has more than 2^24 elements");
  }
  if (req.element_bytes != 1 && req.element_bytes != 2 &&
      req.element_bytes != 4 && req.element_bytes != 8 &&
      req.element_bytes != 16)
    return Error::Invalid("element bytes must be 1, 2, 4, 8 or 16");
  for (const TileAccess* a : {&req.write, &req.read}) {
    const int64_t w = a->vector_width * req.element_bytes;
    if (a->vector_width < 1 || w > 16 || (w & (w - 1)) != 0)
      return Error::Invalid(
          "each access moves 1, 2, 4, 8 or 16 bytes per lane (element bytes "
          "times vector_width); " +
          SwzStr(req.element_bytes) + " * " + SwzStr(a->vector_width) +
          " is not one");
    if (a->map.context() != ctx)
      return Error::Invalid("the access maps must live in the given context");
  }
  if (req.model.warp_size < 1 || req.model.banks < 1 ||
      req.model.bank_bytes < 1)
    return Error::Invalid("the bank model needs positive sizes");
  IXA_ASSIGN_OR_RETURN(
      std::vector<TileWarpAccess> writes,
      EnumerateTileAccess(req.write, shape, req.model, req.budget, "write"));
  IXA_ASSIGN_OR_RETURN(
      std::vector<TileWarpAccess> reads,
      EnumerateTileAccess(req.read, shape, req.model, req.budget, "read"));
  const int64_t cols = shape.back();
  const int64_t vector_elements =
      std::max(req.write.vector_width, req.read.vector_width);

  SwizzleAnswer answer;
  std::optional<TileLayoutScore> best;
  auto better = [](const TileLayoutScore& a, const TileLayoutScore& b) {
    const int64_t wa = a.write_wavefronts + a.read_wavefronts;
    const int64_t wb = b.write_wavefronts + b.read_wavefronts;
    if (wa != wb) return wa < wb;
    if (a.elements != b.elements) return a.elements < b.elements;
    return a.arithmetic < b.arithmetic;
  };
  bool have_before = false;
  for (const TileLayout& layout :
       TileCandidates(shape, req.element_bytes, vector_elements, req.model)) {
    auto w = LayoutWavefronts(writes, layout, cols, req.element_bytes,
                              req.write.vector_width, req.model);
    auto r = LayoutWavefronts(reads, layout, cols, req.element_bytes,
                              req.read.vector_width, req.model);
    ++answer.candidates;
    if (!w || !r) {
      if (layout.kind == TileLayoutKind::kRowMajor)
        return Error::Invalid(
            "the row-major tile misaligns a vector access (the tile's last "
            "dim times the element size must keep each lane's vector "
            "aligned)");
      continue;
    }
    TileLayoutScore score;
    score.layout = layout;
    score.elements = TileLayoutElements(layout, shape);
    if (req.max_elements > 0 && layout.kind != TileLayoutKind::kRowMajor &&
        score.elements > req.max_elements)
      continue;
    score.bytes = score.elements * req.element_bytes;
    score.arithmetic = ArithmeticOf(layout, cols);
    score.write_wavefronts = *w;
    score.read_wavefronts = *r;
    if (!have_before) {
      answer.before = score;
      have_before = true;
    }
    if (!best || better(score, *best)) best = score;
  }
  answer.after = *best;
  // The exact analysis of the composed byte maps must agree with the
  // search's count.
  BankConflictOptions options;
  options.budget = 4 * req.budget;
  for (auto [score, wr, rr] :
       {std::tuple{&answer.before, &answer.write_before, &answer.read_before},
        std::tuple{&answer.after, &answer.write_after, &answer.read_after}}) {
    IXA_ASSIGN_OR_RETURN(
        *wr, AnalyzeBankConflicts(TileAccessThrough(req.write, score->layout,
                                                    shape, req.element_bytes),
                                  req.model, options));
    IXA_ASSIGN_OR_RETURN(
        *rr, AnalyzeBankConflicts(TileAccessThrough(req.read, score->layout,
                                                    shape, req.element_bytes),
                                  req.model, options));
    IXA_CHECK(wr->total_wavefronts == score->write_wavefronts);
    IXA_CHECK(rr->total_wavefronts == score->read_wavefronts);
  }
  answer.map = TileLayoutMap(answer.after.layout, shape, ctx);
  answer.bases = TileLayoutBases(answer.after.layout, shape);
  return answer;
}

}  // namespace ixa::hw
