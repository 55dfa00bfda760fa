#include "hw/nested_layout.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "simplifier/simplify.h"

namespace ixa::hw {

namespace {

constexpr int64_t kIdLimit = int64_t{1} << 22;

int64_t ProductOf(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

int64_t Span(const std::vector<int64_t>& tiles,
             const std::vector<int64_t>& strides) {
  int64_t max_id = 0;
  for (size_t i = 0; i < tiles.size(); ++i)
    max_id += strides[i] * (tiles[i] - 1);
  return std::max(ProductOf(tiles), max_id + 1);
}

std::vector<int64_t> Digits(const std::vector<int64_t>& tiles,
                            const std::vector<int64_t>& strides, int64_t id) {
  std::vector<int64_t> out(tiles.size(), 0);
  for (size_t i = 0; i < tiles.size(); ++i) {
    if (strides[i] != 0) out[i] = (id / strides[i]) % tiles[i];
  }
  return out;
}

int64_t TupleIndex(const std::vector<int64_t>& tiles,
                   const std::vector<int64_t>& digits) {
  int64_t idx = 0;
  for (size_t i = 0; i < tiles.size(); ++i) idx = idx * tiles[i] + digits[i];
  return idx;
}

// One level of ids (subgroups or lanes): id -> ((id fd s_i) mod n_i)_i over
// ids in [0, range); hardware id = id mod wrap.
struct IdLevel {
  std::vector<int64_t> tiles, strides;
  int64_t range = 0, wrap = 0;
};

struct IdAnalysis {
  bool surjective = false;
  std::vector<int64_t> missing;  // a tuple no id reaches
  std::vector<int64_t> owners;   // distinct hardware ids per tuple
  std::string how;
};

// Decides surjectivity of one id level. Closed form when the strides of the
// distributed dims form a gapped mixed-radix basis (sorted by stride, each
// stride a multiple of the previous stride times its tile): the digits are
// then independent, every tuple's least id is sum_i s_i*d_i, and the map is
// onto exactly when the id range exceeds sum_i s_i*(n_i - 1). Otherwise the
// digits interact and every id of the range is evaluated (exact: the range
// is finite and small). Owner counts always come from the full id range.
Result<IdAnalysis> AnalyzeIds(const IdLevel& level, const char* what) {
  IdAnalysis out;
  const size_t r = level.tiles.size();
  std::vector<size_t> dist;
  for (size_t i = 0; i < r; ++i) {
    if (level.tiles[i] > 1) dist.push_back(i);
  }
  bool closed = true;
  for (size_t i : dist) {
    if (level.strides[i] == 0) {
      closed = false;
      out.surjective = false;
      out.missing.assign(r, 0);
      out.missing[i] = 1;
      out.how = std::string(what) + " dim " + std::to_string(i) + " has tile " +
                std::to_string(level.tiles[i]) +
                " but stride 0, so its slices 1.. have no " + what;
      break;
    }
  }
  if (out.how.empty()) {
    std::sort(dist.begin(), dist.end(), [&](size_t a, size_t b) {
      return level.strides[a] < level.strides[b];
    });
    int64_t max_id = 0;
    for (size_t k = 0; k < dist.size(); ++k) {
      size_t i = dist[k];
      max_id += level.strides[i] * (level.tiles[i] - 1);
      if (k + 1 < dist.size()) {
        int64_t next = level.strides[dist[k + 1]];
        if (next % (level.strides[i] * level.tiles[i]) != 0) closed = false;
      }
    }
    if (closed) {
      out.surjective = level.range > max_id;
      out.how = std::string(what) +
                " strides form a mixed-radix basis: onto iff " +
                std::to_string(level.range) + " ids > max needed id " +
                std::to_string(max_id);
      if (!out.surjective) {
        out.missing.assign(r, 0);
        for (size_t i : dist) out.missing[i] = level.tiles[i] - 1;
      }
    }
  }
  if (level.range > kIdLimit)
    return Error::Limit(std::string("too many ") + what +
                        " ids to count owners");
  const int64_t tuples = ProductOf(level.tiles);
  if (tuples > kIdLimit)
    return Error::Limit(std::string(what) + " tile product too large");
  std::vector<std::set<int64_t>> hw(tuples);
  for (int64_t id = 0; id < level.range; ++id) {
    hw[TupleIndex(level.tiles, Digits(level.tiles, level.strides, id))].insert(
        id % level.wrap);
  }
  out.owners.resize(tuples);
  bool all = true;
  for (int64_t t = 0; t < tuples; ++t) {
    out.owners[t] = static_cast<int64_t>(hw[t].size());
    if (hw[t].empty() && all) {
      all = false;
      if (!closed) {
        out.missing.assign(r, 0);
        int64_t rest = t;
        for (int i = static_cast<int>(r) - 1; i >= 0; --i) {
          out.missing[i] = rest % level.tiles[i];
          rest /= level.tiles[i];
        }
      }
    }
  }
  if (!closed && out.how.empty()) {
    out.surjective = all;
    out.how = std::string(what) + " strides overlap; all " +
              std::to_string(level.range) + " ids were evaluated";
  }
  IXA_CHECK_MSG(out.surjective == all,
                "closed-form coverage disagrees with the id count");
  return out;
}

Expr Digit(ExprContext* ctx, Expr id, int64_t stride, int64_t tile) {
  if (stride == 0 || tile == 1) return ctx->Constant(0);
  Expr q = stride == 1 ? id : id.FloorDiv(stride);
  return q % tile;
}

}  // namespace

Result<NestedLayout> MakeNestedLayout(std::vector<int64_t> subgroup_tile,
                                      std::vector<int64_t> batch_tile,
                                      std::vector<int64_t> outer_tile,
                                      std::vector<int64_t> thread_tile,
                                      std::vector<int64_t> element_tile,
                                      std::vector<int64_t> subgroup_strides,
                                      std::vector<int64_t> thread_strides) {
  NestedLayout l{std::move(subgroup_tile), std::move(batch_tile),
                 std::move(outer_tile),    std::move(thread_tile),
                 std::move(element_tile),  std::move(subgroup_strides),
                 std::move(thread_strides)};
  const size_t r = l.subgroup_tile.size();
  const std::pair<const char*, const std::vector<int64_t>*> fields[] = {
      {"batch_tile", &l.batch_tile},
      {"outer_tile", &l.outer_tile},
      {"thread_tile", &l.thread_tile},
      {"element_tile", &l.element_tile},
      {"subgroup_strides", &l.subgroup_strides},
      {"thread_strides", &l.thread_strides}};
  for (auto [name, v] : fields) {
    if (v->size() != r) {
      return Error::Invalid(std::string(name) + " has rank " +
                            std::to_string(v->size()) +
                            " but subgroup_tile has rank " + std::to_string(r));
    }
  }
  int64_t total = 1;
  for (const auto* v : {&l.subgroup_tile, &l.batch_tile, &l.outer_tile,
                        &l.thread_tile, &l.element_tile}) {
    for (int64_t x : *v) {
      if (x < 1) return Error::Invalid("tile sizes must be >= 1");
      if (x > (int64_t{1} << 24) || total > (int64_t{1} << 40) / x)
        return Error::Invalid("tile sizes too large");
      total *= x;
    }
  }
  for (size_t i = 0; i < r; ++i) {
    if (l.subgroup_strides[i] < 0 || l.thread_strides[i] < 0)
      return Error::Invalid("strides must be >= 0");
    if (l.subgroup_strides[i] > (int64_t{1} << 24) ||
        l.thread_strides[i] > (int64_t{1} << 24)) {
      return Error::Invalid("strides too large");
    }
    // IREE normalizes: a size-1 level is not distributed.
    if (l.subgroup_tile[i] == 1) l.subgroup_strides[i] = 0;
    if (l.thread_tile[i] == 1) l.thread_strides[i] = 0;
  }
  return l;
}

std::vector<int64_t> UndistributedShape(const NestedLayout& l) {
  std::vector<int64_t> n;
  for (int i = 0; i < l.rank(); ++i) {
    n.push_back(l.subgroup_tile[i] * l.batch_tile[i] * l.outer_tile[i] *
                l.thread_tile[i] * l.element_tile[i]);
  }
  return n;
}

std::vector<int64_t> DistributedShape(const NestedLayout& l) {
  std::vector<int64_t> d = l.batch_tile;
  d.insert(d.end(), l.outer_tile.begin(), l.outer_tile.end());
  d.insert(d.end(), l.element_tile.begin(), l.element_tile.end());
  return d;
}

int64_t SubgroupSpan(const NestedLayout& l) {
  return Span(l.subgroup_tile, l.subgroup_strides);
}
int64_t LaneCount(const NestedLayout& l, const NestedIds& ids) {
  return ids.subgroup_size > 0 ? ids.subgroup_size : ProductOf(l.thread_tile);
}
int64_t HardwareSubgroups(const NestedLayout& l, const NestedIds& ids) {
  return ids.num_subgroups > 0 ? ids.num_subgroups : SubgroupSpan(l);
}

Result<ShapeCheck> CheckVectorShape(const NestedLayout& l,
                                    const std::vector<int64_t>& shape) {
  if (static_cast<int>(shape.size()) != l.rank()) {
    return Error::Invalid(
        "vector shape has rank " + std::to_string(shape.size()) +
        " but the layout has rank " + std::to_string(l.rank()));
  }
  ShapeCheck check;
  std::vector<int64_t> n = UndistributedShape(l);
  for (int i = 0; i < l.rank(); ++i) {
    if (n[i] != shape[i]) {
      check.valid = false;
      check.mismatched_dims.push_back(i);
    }
  }
  return check;
}

IndexingMap NestedLayoutMap(const NestedLayout& l, const NestedIds& ids,
                            ExprContext* ctx) {
  const int r = l.rank();
  std::vector<Variable> dims(2), syms(3 * r);
  dims[0] = {
      Interval{0, std::max(HardwareSubgroups(l, ids), SubgroupSpan(l)) - 1},
      "subgroup", "", nullptr};
  dims[1] = {Interval{0, LaneCount(l, ids) - 1}, "thread", "", nullptr};
  for (int i = 0; i < r; ++i) {
    syms[i] = {Interval{0, l.batch_tile[i] - 1}, "batch" + std::to_string(i),
               "", nullptr};
    syms[r + i] = {Interval{0, l.outer_tile[i] - 1},
                   "outer" + std::to_string(i), "", nullptr};
    syms[2 * r + i] = {Interval{0, l.element_tile[i] - 1},
                       "element" + std::to_string(i), "", nullptr};
  }
  Expr sg = ctx->Dim(0), tid = ctx->Dim(1);
  std::vector<Expr> results;
  for (int i = 0; i < r; ++i) {
    Expr x = Digit(ctx, sg, l.subgroup_strides[i], l.subgroup_tile[i]);
    x = x * l.batch_tile[i] + ctx->Symbol(i);
    x = x * l.outer_tile[i] + ctx->Symbol(r + i);
    x = x * l.thread_tile[i] +
        Digit(ctx, tid, l.thread_strides[i], l.thread_tile[i]);
    x = x * l.element_tile[i] + ctx->Symbol(2 * r + i);
    results.push_back(x);
  }
  IndexingMap map(ctx, dims, syms, {}, results, {});
  Simplify(&map);
  return map;
}

std::vector<int64_t> VirtualSubgroupIds(const NestedLayout& l,
                                        int64_t subgroup) {
  return Digits(l.subgroup_tile, l.subgroup_strides, subgroup);
}
std::vector<int64_t> VirtualThreadIds(const NestedLayout& l, int64_t thread) {
  return Digits(l.thread_tile, l.thread_strides, thread);
}

Result<std::vector<std::vector<int64_t>>> ThreadElements(const NestedLayout& l,
                                                         const NestedIds& ids,
                                                         int64_t subgroup,
                                                         int64_t thread) {
  int64_t sg_range = std::max(HardwareSubgroups(l, ids), SubgroupSpan(l));
  if (subgroup < 0 || subgroup >= sg_range) {
    return Error::Invalid("subgroup " + std::to_string(subgroup) +
                          " is outside [0, " + std::to_string(sg_range - 1) +
                          "]");
  }
  if (thread < 0 || thread >= LaneCount(l, ids)) {
    return Error::Invalid("thread " + std::to_string(thread) +
                          " is outside [0, " +
                          std::to_string(LaneCount(l, ids) - 1) + "]");
  }
  const int r = l.rank();
  std::vector<int64_t> vsg = VirtualSubgroupIds(l, subgroup),
                       vt = VirtualThreadIds(l, thread);
  std::vector<int64_t> shape = DistributedShape(l);
  int64_t count = ProductOf(shape);
  if (count > kIdLimit)
    return Error::Limit("a thread holds too many elements to list");
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> p(3 * r, 0);
  for (int64_t n = 0; n < count; ++n) {
    std::vector<int64_t> x(r);
    for (int i = 0; i < r; ++i) {
      x[i] =
          ((((vsg[i] * l.batch_tile[i] + p[i]) * l.outer_tile[i] + p[r + i]) *
                l.thread_tile[i] +
            vt[i]) *
               l.element_tile[i] +
           p[2 * r + i]);
    }
    out.push_back(std::move(x));
    for (int k = 3 * r - 1; k >= 0; --k) {  // row-major increment
      if (++p[k] < shape[k]) break;
      p[k] = 0;
    }
  }
  return out;
}

Result<std::vector<std::pair<int64_t, int64_t>>> Owners(
    const NestedLayout& l, const NestedIds& ids,
    const std::vector<int64_t>& element) {
  std::vector<int64_t> n = UndistributedShape(l);
  if (static_cast<int>(element.size()) != l.rank())
    return Error::Invalid("element rank does not match the layout");
  std::vector<int64_t> want_sg(l.rank()), want_t(l.rank());
  for (int i = 0; i < l.rank(); ++i) {
    if (element[i] < 0 || element[i] >= n[i]) {
      return Error::Invalid("element component " + std::to_string(i) +
                            " is outside [0, " + std::to_string(n[i] - 1) +
                            "]");
    }
    int64_t below = l.element_tile[i];
    want_t[i] = (element[i] / below) % l.thread_tile[i];
    below *= l.thread_tile[i] * l.outer_tile[i] * l.batch_tile[i];
    want_sg[i] = element[i] / below;
  }
  const int64_t h = HardwareSubgroups(l, ids), v = SubgroupSpan(l);
  const int64_t range = std::max(h, v), lanes = LaneCount(l, ids);
  if (range > kIdLimit || lanes > kIdLimit) return Error::Limit("too many ids");
  std::vector<int64_t> subgroups, threads;
  for (int64_t id = 0; id < range; ++id) {
    if (VirtualSubgroupIds(l, id) == want_sg) subgroups.push_back(id % h);
  }
  for (int64_t t = 0; t < lanes; ++t) {
    if (VirtualThreadIds(l, t) == want_t) threads.push_back(t);
  }
  std::set<std::pair<int64_t, int64_t>> owners;
  for (int64_t s : subgroups) {
    for (int64_t t : threads) owners.insert({s, t});
  }
  return std::vector<std::pair<int64_t, int64_t>>(owners.begin(), owners.end());
}

// Coverage, proved for all elements at once:
//  1. For each dim, x_i <-> (vsg_i, b_i, o_i, vt_i, e_i) is the mixed-radix
//     representation with radices (S_i, B_i, O_i, T_i, E_i): a bijection
//     between the digit box and [0, N_i). The batch, outer and element
//     digits range freely over each thread's registers.
//  2. Hence (sg, lane) holds x iff vsg(sg) = digits_sg(x) and
//     vt(lane) = digits_t(x); the owners of x are (subgroups reaching its
//     subgroup tuple) x (lanes reaching its thread tuple), and the layout
//     covers the vector iff both id maps are onto their tuple boxes.
//  3. Each id map is decided by AnalyzeIds (closed form for gapped
//     mixed-radix strides, else exhaustive over the finite id range).
// The element count never enters: a 64x64 vector costs prod(S) + prod(T)
// tuples, not 4096 owner searches.
Result<CoverageProof> ProveCoverage(const NestedLayout& l,
                                    const NestedIds& ids) {
  const int64_t h = HardwareSubgroups(l, ids);
  IdLevel sg{l.subgroup_tile, l.subgroup_strides, std::max(h, SubgroupSpan(l)),
             h};
  IdLevel lane{l.thread_tile, l.thread_strides, LaneCount(l, ids),
               LaneCount(l, ids)};
  IXA_ASSIGN_OR_RETURN(IdAnalysis a, AnalyzeIds(sg, "subgroup"));
  IXA_ASSIGN_OR_RETURN(IdAnalysis b, AnalyzeIds(lane, "thread"));
  CoverageProof proof;
  proof.covers = a.surjective && b.surjective;
  auto [amin, amax] = std::minmax_element(a.owners.begin(), a.owners.end());
  auto [bmin, bmax] = std::minmax_element(b.owners.begin(), b.owners.end());
  proof.min_owners = *amin * *bmin;
  proof.max_owners = *amax * *bmax;
  proof.partition = proof.covers && proof.max_owners == 1;
  proof.argument =
      "mixed-radix bijection per dim reduces coverage to the id maps; " +
      a.how + "; " + b.how;
  if (!proof.covers) {
    std::vector<int64_t> vsg =
        a.surjective ? std::vector<int64_t>(l.rank(), 0) : a.missing;
    std::vector<int64_t> vt =
        b.surjective ? std::vector<int64_t>(l.rank(), 0) : b.missing;
    std::vector<int64_t> x(l.rank());
    for (int i = 0; i < l.rank(); ++i) {
      x[i] = ((vsg[i] * l.batch_tile[i] * l.outer_tile[i]) * l.thread_tile[i] +
              vt[i]) *
             l.element_tile[i];
    }
    proof.uncovered = x;
  }
  return proof;
}

}  // namespace ixa::hw
