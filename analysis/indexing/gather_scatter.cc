// General gather and scatter (XLA's operation semantics): start indices are
// runtime variables read from the indices tensor, linked to it and to the
// element read; batching dims pair operand and indices dims directly.
//
// Gather: output dims are the batch dims (indexing the indices tensor, the
// index vector dim left out) and the offset dims (offset_dims, one per
// operand dim that is neither collapsed nor a batching dim). Operand dim i
// is read at start_i + offset_i, start_i clamped to [0, dim_i - size_i].
//
// Scatter: update dims are the scatter dims (indexing the indices tensor)
// and the window dims (update_window_dims, one per operand dim that is
// neither inserted nor a batching dim). Update u lands at start + window
// offset; an update whose window leaves the operand is skipped, so the
// runtime variables' intervals [0, dim_i - window_i] are exact.
#include <algorithm>
#include <set>

#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {
namespace {

int64_t Position(const std::vector<int64_t>& v, int64_t x) {
  auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : it - v.begin();
}

// The dims of [0, rank) not in `skip`, ascending.
std::vector<int64_t> Complement(int64_t rank, const std::vector<int64_t>& a,
                                const std::vector<int64_t>& b = {}) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!Contains(a, i) && !Contains(b, i)) out.push_back(i);
  }
  return out;
}

bool DimsDistinctIn(const std::vector<int64_t>& v, int64_t n) {
  std::set<int64_t> seen;
  for (int64_t x : v) {
    if (x < 0 || x >= n || !seen.insert(x).second) return false;
  }
  return true;
}

// The index into the indices tensor whose dims other than the index
// vector dim are `batch` (in order) and whose index vector dim is `k`.
std::vector<Expr> IndicesIndex(int64_t indices_rank, int64_t index_vector_dim,
                               const std::vector<Expr>& batch, Expr k) {
  std::vector<Expr> index;
  size_t b = 0;
  for (int64_t i = 0; i < indices_rank; ++i) {
    index.push_back(i == index_vector_dim ? k : batch[b++]);
  }
  return index;
}

Error Malformed(const Instruction& in, const std::string& what) {
  return Error::Invalid("'" + in.name + "' (" + OpcodeName(in) + "): " + what);
}

}  // namespace

Result<Indexing> GatherOutToIn(const Instruction& in, ExprContext* ctx) {
  const hlo::GatherDimensionNumbers& g = in.gather;
  const hlo::Shape& operand = in.operand(0)->shape;
  const hlo::Shape& indices = in.operand(1)->shape;
  const std::vector<int64_t>& out = in.shape.dims;
  const int64_t r_op = operand.rank(), r_ind = indices.rank();
  const int64_t ivd = g.index_vector_dim;
  // The index vector: dim ivd of the indices (or an implicit trailing 1).
  if (ivd < 0 || ivd > r_ind) return Malformed(in, "index_vector_dim");
  const int64_t k = ivd == r_ind ? 1 : indices.dims[ivd];
  std::vector<int64_t> window =
      Complement(r_op, g.collapsed_slice_dims, g.operand_batching_dims);
  std::vector<int64_t> batch_out = Complement(in.shape.rank(), g.offset_dims);
  const int64_t batch_rank = r_ind - (ivd < r_ind ? 1 : 0);
  if (window.size() != g.offset_dims.size() ||
      !DimsDistinctIn(g.offset_dims, in.shape.rank()) ||
      static_cast<int64_t>(batch_out.size()) != batch_rank ||
      static_cast<int64_t>(g.start_index_map.size()) != k ||
      !DimsDistinctIn(g.start_index_map, r_op) ||
      g.operand_batching_dims.size() != g.start_indices_batching_dims.size() ||
      !DimsDistinctIn(g.operand_batching_dims, r_op) ||
      static_cast<int64_t>(in.slice_sizes.size()) != r_op) {
    return Malformed(in, "the dimension numbers do not fit the shapes");
  }
  // Indices dims other than ivd, in order, pair with batch_out.
  std::vector<int64_t> indices_batch = Complement(r_ind, {ivd});
  std::vector<Expr> batch_exprs;
  for (int64_t d : batch_out) batch_exprs.push_back(ctx->Dim(d));
  std::vector<Variable> dims, rt_vars;
  for (int64_t n : out) dims.push_back(Var(Interval{0, n - 1}));
  std::vector<Expr> results;
  for (int64_t i = 0; i < r_op; ++i) {
    Expr offset = ctx->Constant(0);
    if (int64_t w = Position(window, i); w >= 0) {
      offset = ctx->Dim(g.offset_dims[w]);
    }
    Expr start = ctx->Constant(0);
    if (int64_t j = Position(g.start_index_map, i); j >= 0) {
      IndexingMap read =
          MakeMap(ctx, out, {},
                  IndicesIndex(r_ind, ivd, batch_exprs, ctx->Constant(j)));
      // Gather clamps each start index into the operand.
      start = RuntimeValue(*in.operand(1), std::move(read),
                           Interval{0, operand.dims[i] - in.slice_sizes[i]},
                           /*first_symbol=*/0, &rt_vars, /*clamped=*/true);
    } else if (int64_t m = Position(g.operand_batching_dims, i); m >= 0) {
      int64_t t = Position(indices_batch, g.start_indices_batching_dims[m]);
      if (t < 0) return Malformed(in, "start_indices_batching_dims");
      start = batch_exprs[t];
    }
    results.push_back(start + offset);
  }
  IndexingMap operand_map(ctx, std::move(dims), {}, std::move(rt_vars),
                          std::move(results));
  // Indices: the whole index vector of the output's batch position.
  std::vector<int64_t> range;
  Expr vector_index = ctx->Constant(0);
  if (ivd < r_ind) {
    range.push_back(k);
    vector_index = ctx->Symbol(0);
  }
  std::vector<Expr> indices_results =
      IndicesIndex(r_ind, ivd, batch_exprs, vector_index);
  IndexingMap indices_map =
      MakeMap(ctx, out, range, std::move(indices_results));
  return FromMaps({std::move(operand_map), std::move(indices_map)});
}

namespace {

struct ScatterLayout {
  int64_t k = 0;  // operands (and updates)
  const hlo::Shape* operand = nullptr;
  const hlo::Shape* indices = nullptr;
  const hlo::Shape* updates = nullptr;
  std::vector<int64_t> window;         // operand dims with a window dim
  std::vector<int64_t> scatter_dims;   // update dims indexing the indices
  std::vector<int64_t> indices_batch;  // indices dims other than ivd
  std::vector<int64_t> window_size;    // per operand dim
  int64_t vector_size = 1;             // entries of an index vector
};

Result<ScatterLayout> Layout(const Instruction& in) {
  const hlo::ScatterDimensionNumbers s = in.ScatterDims();
  ScatterLayout l;
  const int n = in.operand_count();
  if (n < 3 || n % 2 == 0) {
    return Malformed(in, "scatter takes operands, indices, then updates");
  }
  l.k = (n - 1) / 2;
  l.operand = &in.operand(0)->shape;
  l.indices = &in.operand(l.k)->shape;
  l.updates = &in.operand(l.k + 1)->shape;
  const int64_t r_op = l.operand->rank(), r_ind = l.indices->rank();
  const int64_t ivd = s.index_vector_dim;
  if (!l.operand->IsArray() || !l.indices->IsArray() || !l.updates->IsArray() ||
      ivd < 0 || ivd > r_ind) {
    return Malformed(in, "index_vector_dim or operand shapes");
  }
  l.vector_size = ivd == r_ind ? 1 : l.indices->dims[ivd];
  l.window = Complement(r_op, s.inserted_window_dims, s.input_batching_dims);
  l.scatter_dims = Complement(l.updates->rank(), s.update_window_dims);
  l.indices_batch = Complement(r_ind, {ivd});
  if (l.window.size() != s.update_window_dims.size() ||
      !DimsDistinctIn(s.update_window_dims, l.updates->rank()) ||
      l.scatter_dims.size() != l.indices_batch.size() ||
      static_cast<int64_t>(s.scatter_dims_to_operand_dims.size()) !=
          l.vector_size ||
      !DimsDistinctIn(s.scatter_dims_to_operand_dims, r_op) ||
      s.input_batching_dims.size() != s.scatter_indices_batching_dims.size() ||
      !DimsDistinctIn(s.input_batching_dims, r_op)) {
    return Malformed(in, "the dimension numbers do not fit the shapes");
  }
  l.window_size.assign(r_op, 1);
  for (size_t w = 0; w < l.window.size(); ++w) {
    l.window_size[l.window[w]] = l.updates->dims[s.update_window_dims[w]];
    if (l.window_size[l.window[w]] > l.operand->dims[l.window[w]]) {
      return Malformed(in, "an update window is larger than the operand");
    }
  }
  return l;
}

// Start of the update window along each operand dim, for the update whose
// scatter dims are `scatter` (exprs over the map being built, whose first
// `first_symbol` symbols are its range variables).
Result<std::vector<Expr>> Starts(const Instruction& in, const ScatterLayout& l,
                                 const std::vector<Expr>& scatter,
                                 const IndexingMap& shape_of_read,
                                 int first_symbol,
                                 std::vector<Variable>* rt_vars) {
  const hlo::ScatterDimensionNumbers s = in.ScatterDims();
  ExprContext* ctx = shape_of_read.context();
  const int64_t r_ind = l.indices->rank(), ivd = s.index_vector_dim;
  std::vector<Expr> starts;
  for (int64_t i = 0; i < l.operand->rank(); ++i) {
    Expr start = ctx->Constant(0);
    if (int64_t j = Position(s.scatter_dims_to_operand_dims, i); j >= 0) {
      IndexingMap read = shape_of_read;
      read.mutable_results() =
          IndicesIndex(r_ind, ivd, scatter, ctx->Constant(j));
      start = RuntimeValue(*in.operand(l.k), std::move(read),
                           Interval{0, l.operand->dims[i] - l.window_size[i]},
                           first_symbol, rt_vars);
    } else if (int64_t m = Position(s.input_batching_dims, i); m >= 0) {
      int64_t t = Position(l.indices_batch, s.scatter_indices_batching_dims[m]);
      if (t < 0) return Malformed(in, "scatter_indices_batching_dims");
      start = scatter[t];
    }
    starts.push_back(start);
  }
  return starts;
}

}  // namespace

Result<Indexing> ScatterOutToIn(const Instruction& in, int output_id,
                                ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(ScatterLayout l, Layout(in));
  const hlo::ScatterDimensionNumbers s = in.ScatterDims();
  const std::vector<int64_t>& out = OutputDims(in, output_id);
  std::vector<IndexingMap> maps;
  // The combiner sees every operand at the output's own index.
  for (int64_t i = 0; i < l.k; ++i) {
    maps.push_back(IndexingMap::Identity(ctx, out));
  }
  // Any index vector may send an update here: every index is read.
  std::vector<Expr> all;
  for (int64_t i = 0; i < l.indices->rank(); ++i) {
    all.push_back(ctx->Symbol(i));
  }
  maps.push_back(MakeMap(ctx, out, l.indices->dims, std::move(all)));
  // Updates: the scatter dims become range variables (which update lands
  // here is decided by the indices); the window offset is the output index
  // minus the window's start, inside the window.
  std::vector<int64_t> range_sizes;
  std::vector<Expr> scatter;
  for (int64_t d : l.scatter_dims) {
    scatter.push_back(ctx->Symbol(range_sizes.size()));
    range_sizes.push_back(l.updates->dims[d]);
  }
  IndexingMap shape_of_read = MakeMap(ctx, out, range_sizes, {});
  std::vector<Variable> rt_vars;
  IXA_ASSIGN_OR_RETURN(std::vector<Expr> starts,
                       Starts(in, l, scatter, shape_of_read,
                              static_cast<int>(range_sizes.size()), &rt_vars));
  std::vector<Expr> results(l.updates->rank());
  std::vector<Constraint> constraints;
  for (size_t t = 0; t < l.scatter_dims.size(); ++t) {
    results[l.scatter_dims[t]] = scatter[t];
  }
  for (int64_t i = 0; i < l.operand->rank(); ++i) {
    Expr offset = ctx->Dim(i) - starts[i];
    if (int64_t w = Position(l.window, i); w >= 0) {
      results[s.update_window_dims[w]] = offset;
      constraints.push_back({offset, Interval{0, l.window_size[i] - 1}});
    } else {
      constraints.push_back({offset, Interval{0, 0}});
    }
  }
  std::vector<Variable> dims, ranges;
  for (int64_t n : out) dims.push_back(Var(Interval{0, n - 1}));
  for (int64_t n : range_sizes) ranges.push_back(Var(Interval{0, n - 1}));
  IndexingMap update_map(ctx, std::move(dims), std::move(ranges),
                         std::move(rt_vars), std::move(results),
                         std::move(constraints));
  for (int64_t i = 0; i < l.k; ++i) maps.push_back(update_map);
  return FromMaps(std::move(maps));
}

Result<Indexing> ScatterInToOut(const Instruction& in, int operand,
                                ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(ScatterLayout l, Layout(in));
  const hlo::ScatterDimensionNumbers s = in.ScatterDims();
  const std::vector<int64_t>& out = l.operand->dims;
  const int outputs = OutputCount(in);
  auto every_output = [&](IndexingMap m) {
    std::vector<IndexingMap> maps(outputs, m);
    return FromMaps(std::move(maps));
  };
  if (operand < l.k) {
    return every_output(IndexingMap::Identity(ctx, out));
  }
  if (operand == l.k) {
    std::vector<Expr> all;
    for (size_t i = 0; i < out.size(); ++i) all.push_back(ctx->Symbol(i));
    return every_output(MakeMap(ctx, l.indices->dims, out, std::move(all)));
  }
  // An update element lands at start + its window offset.
  const std::vector<int64_t>& upd = l.updates->dims;
  std::vector<Expr> scatter;
  for (int64_t d : l.scatter_dims) scatter.push_back(ctx->Dim(d));
  IndexingMap shape_of_read = MakeMap(ctx, upd, {}, {});
  std::vector<Variable> rt_vars;
  IXA_ASSIGN_OR_RETURN(std::vector<Expr> starts,
                       Starts(in, l, scatter, shape_of_read,
                              /*first_symbol=*/0, &rt_vars));
  std::vector<Expr> results;
  for (int64_t i = 0; i < l.operand->rank(); ++i) {
    Expr e = starts[i];
    if (int64_t w = Position(l.window, i); w >= 0) {
      e = e + ctx->Dim(s.update_window_dims[w]);
    }
    results.push_back(e);
  }
  std::vector<Variable> dims;
  for (int64_t n : upd) dims.push_back(Var(Interval{0, n - 1}));
  return every_output(IndexingMap(ctx, std::move(dims), {}, std::move(rt_vars),
                                  std::move(results)));
}

}  // namespace ixa::indexing_internal
