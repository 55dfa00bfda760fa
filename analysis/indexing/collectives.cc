// Collectives seen from one replica: all-reduce and collective-permute read
// the same index of their operand (on other replicas too); all-gather reads
// `d mod n` along the gathered dim (the replica is `d floordiv n`);
// reduce-scatter reads the whole gathered range of its shard.
#include "analysis/indexing/internal.h"

namespace ixa::indexing_internal {
namespace {

Result<int64_t> GatheredDim(const Instruction& in) {
  if (in.dimensions.size() != 1 || in.operand_count() != 1 ||
      !in.shape.IsArray() || in.operand(0)->shape.rank() != in.shape.rank()) {
    return Unsupported(in, "needs one array operand and dimensions={d}");
  }
  int64_t d = in.dimensions[0];
  if (d < 0 || d >= in.shape.rank()) {
    return Error::Invalid("'" + in.name + "': dimension out of range");
  }
  return d;
}

}  // namespace

Result<Indexing> CollectiveOutToIn(const Instruction& in, int output_id,
                                   ExprContext* ctx) {
  const std::string& op = in.opcode;
  if (op == "all-reduce" || op == "collective-permute") {
    // Operand i feeds output i (a tuple when there are several).
    Indexing out;
    out.indexing_maps.resize(in.operand_count());
    if (op == "collective-permute" && output_id != 0) {
      return Unsupported(in, "collective-permute with several outputs");
    }
    IndexingMap m = IndexingMap::Identity(ctx, OutputDims(in, output_id));
    FinishMap(&m);
    out.indexing_maps[op == "all-reduce" ? output_id : 0].Insert(std::move(m));
    return out;
  }
  IXA_ASSIGN_OR_RETURN(int64_t dim, GatheredDim(in));
  const std::vector<int64_t>& out = in.shape.dims;
  const std::vector<int64_t>& src = in.operand(0)->shape.dims;
  std::vector<Expr> results;
  std::vector<int64_t> range_sizes;
  for (int i = 0; i < in.shape.rank(); ++i) results.push_back(ctx->Dim(i));
  if (op == "all-gather") {
    results[dim] = ctx->Dim(dim) % src[dim];
  } else {  // reduce-scatter: every shard of the operand's dim is reduced
    if (out[dim] == 0 || src[dim] % out[dim] != 0) {
      return Error::Invalid("'" + in.name + "': scattered dim does not divide");
    }
    results[dim] = ctx->Dim(dim) + ctx->Symbol(0) * out[dim];
    range_sizes.push_back(src[dim] / out[dim]);
  }
  return FromMaps({MakeMap(ctx, out, range_sizes, std::move(results))});
}

Result<Indexing> CollectiveInToOut(const Instruction& in, int operand,
                                   ExprContext* ctx) {
  const std::string& op = in.opcode;
  if (op == "all-reduce" || op == "collective-permute") {
    Indexing out;
    out.indexing_maps.resize(OutputCount(in));
    int target = op == "all-reduce" ? operand : 0;
    IndexingMap m = IndexingMap::Identity(ctx, in.operand(operand)->shape.dims);
    FinishMap(&m);
    out.indexing_maps[target].Insert(std::move(m));
    return out;
  }
  IXA_ASSIGN_OR_RETURN(int64_t dim, GatheredDim(in));
  const std::vector<int64_t>& out = in.shape.dims;
  const std::vector<int64_t>& src = in.operand(0)->shape.dims;
  std::vector<Expr> results;
  std::vector<int64_t> range_sizes;
  for (int i = 0; i < in.shape.rank(); ++i) results.push_back(ctx->Dim(i));
  if (op == "all-gather") {
    // Seen from all replicas, element d lands in every replica's block.
    results[dim] = ctx->Dim(dim) + ctx->Symbol(0) * src[dim];
    range_sizes.push_back(out[dim] / src[dim]);
  } else {
    if (out[dim] == 0 || src[dim] % out[dim] != 0) {
      return Error::Invalid("'" + in.name + "': scattered dim does not divide");
    }
    results[dim] = ctx->Dim(dim) % out[dim];
  }
  return FromMaps({MakeMap(ctx, src, range_sizes, std::move(results))});
}

}  // namespace ixa::indexing_internal
