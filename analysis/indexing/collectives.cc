// Collectives seen from one replica. all-reduce and collective-permute
// read the same index of their operand (on other replicas too). all-gather
// concatenates the operands of its group's replicas along the gathered
// dim. XLA's form (the default): one map per operand, `d mod n` on the
// gathered dim, with the replica map `d floordiv n`
// (HloInstructionIndexing::replica_maps). On request
// (IndexingOptions::all_gather_per_source) one map per source replica k,
// `d - k*n` over block k, each with its replica map `k`; groups of more
// than 16 replicas keep the one `d mod n` map there.
// reduce-scatter reads the whole gathered range of its shard. all-to-all
// reads chunk `d floordiv c` from replica `d floordiv c`, at the place of
// this replica's own rank in the group, which the analysis does not know:
// that rank is a range variable over the group (a sound superset).
#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {
namespace {

using hlo::Opcode;

// Up to this many replicas in a group, the per-source form of all-gather
// has one map per source replica; beyond, one `d mod n` map for all of
// them (a budget: a chain of all-gathers multiplies the counts).
constexpr int64_t kMaxAllGatherSources = 16;

Result<int64_t> GatheredDim(const Instruction& in, int operand, int output) {
  const hlo::Shape& out = OutputShape(in, output);
  if (in.dimensions.size() != 1 || operand >= in.operand_count() ||
      !out.IsArray() || in.operand(operand)->shape.rank() != out.rank()) {
    return Unsupported(in, "needs array operands and dimensions={d}");
  }
  int64_t d = in.dimensions[0];
  if (d < 0 || d >= out.rank()) {
    return Unsupported(in, "dimension out of range");
  }
  return d;
}

// The size of every replica group, when all groups are written and equal.
std::optional<int64_t> GroupSize(const Instruction& in) {
  if (in.replica_groups.empty()) return std::nullopt;
  size_t n = in.replica_groups[0].size();
  for (const auto& g : in.replica_groups) {
    if (g.size() != n) return std::nullopt;
  }
  if (n == 0) return std::nullopt;
  return static_cast<int64_t>(n);
}

Result<Indexing> AllToAllOutToIn(const Instruction& in, int output_id,
                                 ExprContext* ctx) {
  const std::vector<int64_t>& out = OutputDims(in, output_id);
  Indexing result;
  if (in.dimensions.empty()) {
    // Tuple form: output j is operand (own rank) of replica j, read at the
    // same index.
    for (int i = 0; i < in.operand_count(); ++i) {
      IndexingMap m = IndexingMap::Identity(ctx, out);
      FinishMap(&m);
      IndexingMap replica = MakeMap(ctx, out, {}, {ctx->Constant(output_id)});
      FinishMap(&replica);
      result.indexing_maps.emplace_back();
      result.indexing_maps.back().Insert(std::move(m));
      result.replica_maps.emplace_back();
      result.replica_maps.back().Insert(std::move(replica));
    }
    return result;
  }
  IXA_ASSIGN_OR_RETURN(int64_t dim, GatheredDim(in, 0, 0));
  std::optional<int64_t> n = GroupSize(in);
  if (!n) {
    return Unsupported(in,
                       "the replica group size is not written "
                       "(replica_groups={} or groups of different sizes)");
  }
  if (out[dim] % *n != 0) {
    return Unsupported(in, "the group size does not divide the split dim");
  }
  const int64_t chunk = out[dim] / *n;
  std::vector<Expr> results, replica;
  for (size_t i = 0; i < out.size(); ++i) results.push_back(ctx->Dim(i));
  results[dim] = ctx->Dim(dim) % chunk + ctx->Symbol(0) * chunk;
  replica.push_back(ctx->Dim(dim).FloorDiv(chunk));
  result = FromMaps(
      {MakeMap(ctx, out, std::vector<int64_t>{*n}, std::move(results))});
  IndexingMap r = MakeMap(ctx, out, {}, std::move(replica));
  FinishMap(&r);
  result.replica_maps.emplace_back();
  result.replica_maps.back().Insert(std::move(r));
  return result;
}

// A combined collective-permute (XLA's collective-permute combiner): N
// array operands, an N-tuple result, operand i sent to output i. The
// in-place form instead has `slice_sizes` and offsets operands.
bool IsCombinedCollectivePermute(const Instruction& in) {
  if (in.opcode != Opcode::kCollectivePermute || in.operand_count() < 2 ||
      in.HasAttribute("slice_sizes") || !in.shape.IsTuple() ||
      in.shape.tuple_elements.size() !=
          static_cast<size_t>(in.operand_count())) {
    return false;
  }
  for (int i = 0; i < in.operand_count(); ++i) {
    const hlo::Shape& s = in.operand(i)->shape;
    if (!s.IsArray() || s.dims != in.shape.tuple_elements[i].dims) {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<Indexing> CollectiveOutToIn(const Instruction& in, int output_id,
                                   ExprContext* ctx,
                                   bool all_gather_per_source) {
  const Opcode op = in.opcode;
  if (op == Opcode::kAllReduce || IsCombinedCollectivePermute(in) ||
      op == Opcode::kCollectivePermute) {
    if (op == Opcode::kCollectivePermute && !IsCombinedCollectivePermute(in) &&
        (in.operand_count() != 1 || output_id != 0)) {
      return Unsupported(in,
                         "the in-place collective-permute with offsets "
                         "operands");
    }
    // Operand i feeds output i (a tuple when there are several).
    Indexing out;
    out.indexing_maps.resize(in.operand_count());
    IndexingMap m = IndexingMap::Identity(ctx, OutputDims(in, output_id));
    FinishMap(&m);
    out.indexing_maps[in.operand_count() == 1 ? 0 : output_id].Insert(
        std::move(m));
    return out;
  }
  if (op == Opcode::kAllToAll) return AllToAllOutToIn(in, output_id, ctx);
  // all-gather and reduce-scatter: operand j feeds output j.
  const int j = in.operand_count() == 1 ? 0 : output_id;
  IXA_ASSIGN_OR_RETURN(int64_t dim, GatheredDim(in, j, output_id));
  const std::vector<int64_t>& out = OutputDims(in, output_id);
  const std::vector<int64_t>& src = in.operand(j)->shape.dims;
  std::vector<Expr> results;
  std::vector<int64_t> range_sizes;
  for (size_t i = 0; i < out.size(); ++i) results.push_back(ctx->Dim(i));
  Indexing result;
  result.indexing_maps.resize(in.operand_count());
  if (op == Opcode::kAllGather) {
    if (src[dim] == 0 || out[dim] % src[dim] != 0) {
      return Unsupported(in,
                         "the gathered dim is no multiple of the operand's");
    }
    result.replica_maps.resize(in.operand_count());
    const int64_t sources = out[dim] / src[dim];
    if (all_gather_per_source && sources <= kMaxAllGatherSources) {
      // The output concatenates the operands of the group's replicas:
      // block k of the gathered dim is replica k's operand, as a
      // concatenate's operand k is its block. One map per source, each
      // over its own block; the replica map names k there.
      for (int64_t k = 0; k < sources; ++k) {
        std::vector<Expr> block = results;
        block[dim] = ctx->Dim(dim) - k * src[dim];
        IndexingMap m = MakeMap(ctx, out, {}, std::move(block));
        m.AddConstraint(ctx->Dim(dim),
                        Interval{k * src[dim], (k + 1) * src[dim] - 1});
        IndexingMap replica = MakeMap(ctx, out, {}, {ctx->Constant(k)});
        replica.AddConstraint(ctx->Dim(dim),
                              Interval{k * src[dim], (k + 1) * src[dim] - 1});
        FinishMap(&m);
        FinishMap(&replica);
        result.indexing_maps[j].Insert(std::move(m));
        result.replica_maps[j].Insert(std::move(replica));
      }
      return result;
    }
    // XLA's form: one map for every source, and the replica of each
    // element as a map of its own.
    results[dim] = ctx->Dim(dim) % src[dim];
    IndexingMap replica =
        MakeMap(ctx, out, {}, {ctx->Dim(dim).FloorDiv(src[dim])});
    FinishMap(&replica);
    result.replica_maps[j].Insert(std::move(replica));
  } else {  // reduce-scatter: every shard of the operand's dim is reduced
    if (out[dim] == 0 || src[dim] % out[dim] != 0) {
      return Unsupported(in, "the scattered dim does not divide the operand's");
    }
    results[dim] = ctx->Dim(dim) + ctx->Symbol(0) * out[dim];
    range_sizes.push_back(src[dim] / out[dim]);
  }
  IndexingMap m = MakeMap(ctx, out, range_sizes, std::move(results));
  FinishMap(&m);
  result.indexing_maps[j].Insert(std::move(m));
  return result;
}

Result<Indexing> CollectiveInToOut(const Instruction& in, int operand,
                                   ExprContext* ctx) {
  const Opcode op = in.opcode;
  if (op == Opcode::kAllReduce || op == Opcode::kCollectivePermute) {
    if (op == Opcode::kCollectivePermute && in.operand_count() != 1 &&
        !IsCombinedCollectivePermute(in)) {
      return Unsupported(in,
                         "the in-place collective-permute with offsets "
                         "operands");
    }
    Indexing out;
    out.indexing_maps.resize(OutputCount(in));
    int target = in.operand_count() == 1 ? 0 : operand;
    IndexingMap m = IndexingMap::Identity(ctx, in.operand(operand)->shape.dims);
    FinishMap(&m);
    out.indexing_maps[target].Insert(std::move(m));
    return out;
  }
  const int j = in.operand_count() == 1 ? 0 : operand;
  IXA_ASSIGN_OR_RETURN(int64_t dim, GatheredDim(in, operand, j));
  const std::vector<int64_t>& out = OutputDims(in, j);
  const std::vector<int64_t>& src = in.operand(operand)->shape.dims;
  std::vector<Expr> results;
  std::vector<int64_t> range_sizes;
  for (size_t i = 0; i < out.size(); ++i) results.push_back(ctx->Dim(i));
  if (op == Opcode::kAllGather) {
    if (src[dim] == 0 || out[dim] % src[dim] != 0) {
      return Unsupported(in,
                         "the gathered dim is no multiple of the operand's");
    }
    // Seen from all replicas, element d lands in every replica's block.
    results[dim] = ctx->Dim(dim) + ctx->Symbol(0) * src[dim];
    range_sizes.push_back(out[dim] / src[dim]);
  } else {
    if (out[dim] == 0 || src[dim] % out[dim] != 0) {
      return Unsupported(in, "the scattered dim does not divide the operand's");
    }
    results[dim] = ctx->Dim(dim) % out[dim];
  }
  Indexing result;
  result.indexing_maps.resize(OutputCount(in));
  IndexingMap m = MakeMap(ctx, src, range_sizes, std::move(results));
  FinishMap(&m);
  result.indexing_maps[j].Insert(std::move(m));
  return result;
}

}  // namespace ixa::indexing_internal
