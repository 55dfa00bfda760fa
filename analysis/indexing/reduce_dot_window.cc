// Reduce, reduce-window, dot and convolution: ops whose output element
// reads a range of input elements (range variables).
#include <algorithm>

#include "analysis/indexing/internal.h"
#include "simplifier/simplify.h"

namespace ixa::indexing_internal {
namespace {

// Output -> padded-input map of a window (XLA's ComputeWindowIndexingMap):
// d * stride + s * window_dilation, one range variable per window dim of
// size > 1.
IndexingMap WindowMap(std::span<const int64_t> output_dims,
                      std::span<const hlo::WindowDim> window,
                      std::vector<int64_t>* padded_dims,
                      std::span<const int64_t> input_dims, ExprContext* ctx) {
  std::vector<Expr> results;
  std::vector<int64_t> range_sizes;
  for (size_t i = 0; i < window.size(); ++i) {
    const hlo::WindowDim& w = window[i];
    Expr e = ctx->Dim(i) * w.stride;
    if (w.size != 1) {
      e = e + ctx->Symbol(range_sizes.size()) * w.window_dilation;
      range_sizes.push_back(w.size);
    }
    results.push_back(e);
    int64_t n = input_dims[i];
    padded_dims->push_back((n == 0 ? 0 : (n - 1) * w.base_dilation + 1) +
                           w.pad_low + w.pad_high);
  }
  return MakeMap(ctx, output_dims, range_sizes, std::move(results));
}

}  // namespace

Result<Indexing> ReduceOutToIn(const Instruction& in, int output_id,
                               ExprContext* ctx) {
  const int k = in.operand_count() / 2;
  const std::vector<int64_t>& in_dims = in.operand(0)->shape.dims;
  const std::vector<int64_t>& out_dims = OutputDims(in, output_id);
  std::vector<Expr> results;
  std::vector<int64_t> range_sizes;
  int64_t out_i = 0;
  for (size_t i = 0; i < in_dims.size(); ++i) {
    if (Contains(in.dimensions, i)) {
      results.push_back(ctx->Symbol(range_sizes.size()));
      range_sizes.push_back(in_dims[i]);
    } else {
      results.push_back(ctx->Dim(out_i++));
    }
  }
  // Every output of a variadic reduce reads all inputs (the reducer sees
  // them all) at the same place.
  std::vector<IndexingMap> maps;
  for (int i = 0; i < k; ++i) {
    maps.push_back(MakeMap(ctx, out_dims, range_sizes, results));
  }
  for (int i = 0; i < k; ++i) maps.push_back(ScalarMap(ctx, out_dims));
  return FromMaps(std::move(maps));
}

namespace {

// Input -> output maps of a variadic reduction (k inputs, then k inits):
// an init feeds every element of every output; input `operand` feeds output
// j through `input_map(j)`.
template <typename InputMap>
Result<Indexing> VariadicInToOut(const Instruction& in, int operand,
                                 ExprContext* ctx, InputMap input_map) {
  const int k = in.operand_count() / 2;
  std::vector<IndexingMap> maps;
  for (int j = 0; j < OutputCount(in); ++j) {
    if (operand >= k) {
      maps.push_back(EverywhereMap(ctx, OutputDims(in, j)));
      continue;
    }
    IXA_ASSIGN_OR_RETURN(IndexingMap m, input_map(j));
    maps.push_back(std::move(m));
  }
  return FromMaps(std::move(maps));
}

}  // namespace

Result<Indexing> ReduceInToOut(const Instruction& in, int operand,
                               ExprContext* ctx) {
  const std::vector<int64_t>& in_dims = in.operand(0)->shape.dims;
  return VariadicInToOut(in, operand, ctx, [&](int) -> Result<IndexingMap> {
    std::vector<Expr> results;
    for (size_t i = 0; i < in_dims.size(); ++i) {
      if (!Contains(in.dimensions, i)) results.push_back(ctx->Dim(i));
    }
    return MakeMap(ctx, in_dims, {}, std::move(results));
  });
}

namespace {

// The window of output `output_id` over the padded input and the padding
// (base dilation is interior padding) that leads there from the input.
struct WindowMaps {
  IndexingMap window;  // output -> padded input
  std::vector<hlo::PadDim> padding;
  std::vector<int64_t> padded_dims;
};

WindowMaps ReduceWindowMaps(const Instruction& in, int output_id,
                            ExprContext* ctx) {
  WindowMaps w;
  const std::vector<int64_t>& in_dims = in.operand(0)->shape.dims;
  w.window = WindowMap(OutputDims(in, output_id), in.window, &w.padded_dims,
                       in_dims, ctx);
  for (const hlo::WindowDim& d : in.window) {
    w.padding.push_back({d.pad_low, d.pad_high, d.base_dilation - 1});
  }
  return w;
}

}  // namespace

Result<Indexing> ReduceWindowOutToIn(const Instruction& in, int output_id,
                                     ExprContext* ctx) {
  // The un-padded window map composed with the pad map.
  const int k = in.operand_count() / 2;
  const std::vector<int64_t>& in_dims = in.operand(0)->shape.dims;
  WindowMaps w = ReduceWindowMaps(in, output_id, ctx);
  IndexingMap pad = PadMap(in_dims, w.padding, w.padded_dims, ctx);
  IXA_ASSIGN_OR_RETURN(IndexingMap input, ComposeIndexingMaps(w.window, pad));
  std::vector<IndexingMap> maps;
  for (int i = 0; i < k; ++i) maps.push_back(input);
  for (int i = 0; i < k; ++i) {
    maps.push_back(ScalarMap(ctx, OutputDims(in, output_id)));
  }
  return FromMaps(std::move(maps));
}

Result<Indexing> ReduceWindowInToOut(const Instruction& in, int operand,
                                     ExprContext* ctx) {
  // Input element -> its place in the padded input -> every output whose
  // window covers that place (the inverse of the window map).
  const std::vector<int64_t>& in_dims = in.operand(0)->shape.dims;
  return VariadicInToOut(in, operand, ctx, [&](int j) -> Result<IndexingMap> {
    WindowMaps w = ReduceWindowMaps(in, j, ctx);
    IXA_ASSIGN_OR_RETURN(IndexingMap covering,
                         InvertMap(w.window, w.padded_dims));
    IndexingMap place = PadInputMap(in_dims, w.padding, w.padded_dims, ctx);
    return ComposeIndexingMaps(place, covering);
  });
}

std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting,
                              const std::vector<int64_t>& skip) {
  std::vector<int64_t> free;
  for (int64_t i = 0; i < rank; ++i) {
    if (!Contains(batch, i) && !Contains(contracting, i) &&
        !Contains(skip, i)) {
      free.push_back(i);
    }
  }
  return free;
}

namespace {

// A dot's output -> operand maps before FinishMap: both over the
// contracting dims' symbols.
Result<std::vector<IndexingMap>> DotOperandMaps(const Instruction& in,
                                                ExprContext* ctx) {
  if (in.operand_count() != 2 || in.HasAttribute("sparsity")) {
    return Unsupported(in,
                       "a sparse dot: one operand is stored compressed, its "
                       "metadata says where the values are");
  }
  // Output dims: batch, then lhs free, then rhs free. Contracting dims are
  // range variables shared by both operands.
  const hlo::DotDimensionNumbers& dn = in.dot;
  const hlo::Shape &lhs = in.operand(0)->shape, &rhs = in.operand(1)->shape;
  const int64_t nb = dn.lhs_batch.size();
  std::vector<int64_t> lhs_free =
      FreeDims(lhs.rank(), dn.lhs_batch, dn.lhs_contracting);
  std::vector<int64_t> rhs_free =
      FreeDims(rhs.rank(), dn.rhs_batch, dn.rhs_contracting);
  std::vector<int64_t> range_sizes;
  for (int64_t c : dn.lhs_contracting) range_sizes.push_back(lhs.dims[c]);
  auto operand_map = [&](const hlo::Shape& s, const std::vector<int64_t>& batch,
                         const std::vector<int64_t>& contracting,
                         const std::vector<int64_t>& free, int64_t free_base) {
    std::vector<Expr> results(s.rank());
    for (int64_t i = 0; i < nb; ++i) results[batch[i]] = ctx->Dim(i);
    for (size_t i = 0; i < contracting.size(); ++i) {
      results[contracting[i]] = ctx->Symbol(i);
    }
    for (size_t i = 0; i < free.size(); ++i) {
      results[free[i]] = ctx->Dim(free_base + i);
    }
    return MakeMap(ctx, in.shape.dims, range_sizes, std::move(results));
  };
  std::vector<IndexingMap> maps;
  maps.push_back(
      operand_map(lhs, dn.lhs_batch, dn.lhs_contracting, lhs_free, nb));
  maps.push_back(operand_map(rhs, dn.rhs_batch, dn.rhs_contracting, rhs_free,
                             nb + lhs_free.size()));
  return maps;
}

}  // namespace

Result<Indexing> DotOutToIn(const Instruction& in, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(std::vector<IndexingMap> maps, DotOperandMaps(in, ctx));
  return FromMaps(std::move(maps));
}

Result<Indexing> DotInToOut(const Instruction& in, int operand,
                            ExprContext* ctx) {
  if (in.operand_count() != 2 || in.HasAttribute("sparsity")) {
    return DotOutToIn(in, ctx);  // the same answer: unknown
  }
  // The other operand's free dims become range variables.
  const hlo::DotDimensionNumbers& dn = in.dot;
  const hlo::Shape &lhs = in.operand(0)->shape, &rhs = in.operand(1)->shape;
  std::vector<int64_t> lhs_free =
      FreeDims(lhs.rank(), dn.lhs_batch, dn.lhs_contracting);
  std::vector<int64_t> rhs_free =
      FreeDims(rhs.rank(), dn.rhs_batch, dn.rhs_contracting);
  const bool is_lhs = operand == 0;
  const std::vector<int64_t>& batch = is_lhs ? dn.lhs_batch : dn.rhs_batch;
  std::vector<Expr> results;
  std::vector<int64_t> range_sizes;
  for (int64_t b : batch) results.push_back(ctx->Dim(b));
  auto add_free = [&](const std::vector<int64_t>& free, const hlo::Shape& s,
                      bool mine) {
    for (int64_t f : free) {
      if (mine) {
        results.push_back(ctx->Dim(f));
      } else {
        results.push_back(ctx->Symbol(range_sizes.size()));
        range_sizes.push_back(s.dims[f]);
      }
    }
  };
  add_free(lhs_free, lhs, is_lhs);
  add_free(rhs_free, rhs, !is_lhs);
  return FromMaps({MakeMap(ctx, in.operand(operand)->shape.dims, range_sizes,
                           std::move(results))});
}

namespace {

struct ConvolutionMaps {
  IndexingMap padded_lhs;  // output -> padded lhs
  std::vector<hlo::PadDim> padding;
  std::vector<int64_t> padded_dims;
  IndexingMap kernel;  // output -> rhs
};

Result<ConvolutionMaps> BuildConvolutionMaps(const Instruction& in,
                                             ExprContext* ctx) {
  if (in.operand_count() != 2) {
    return Unsupported(in,
                       "a sparse convolution: one operand is stored "
                       "compressed, its metadata says where the values are");
  }
  if (!in.conv || in.conv->has_unlabeled) {
    return Unsupported(in, "dim_labels leave a dimension unlabeled ('?')");
  }
  const hlo::ConvDimensionNumbers& dn = *in.conv;
  const hlo::Shape &lhs = in.operand(0)->shape, &rhs = in.operand(1)->shape;
  const std::vector<int64_t>& out = in.shape.dims;
  const size_t sp = dn.input_spatial.size();
  const int64_t out_features = out[dn.output_feature];
  const int64_t kernel_in = rhs.dims[dn.kernel_input_feature];
  const int64_t fg = in.feature_group_count, bg = in.batch_group_count;
  if (out_features % fg != 0 || out_features % bg != 0) {
    return Unsupported(in, "output features not divisible by the group count");
  }
  // Symbols: one per kernel spatial dim, then the input feature within its
  // group.
  std::vector<int64_t> range_sizes;
  for (size_t i = 0; i < sp; ++i) range_sizes.push_back(in.window[i].size);
  range_sizes.push_back(kernel_in);
  Expr s_feature = ctx->Symbol(sp);
  Expr d_batch = ctx->Dim(dn.output_batch),
       d_feature = ctx->Dim(dn.output_feature);

  // Output -> padded lhs; the pad map (padding and base dilation of the
  // spatial dims) leads from there down to the lhs itself.
  ConvolutionMaps maps;
  std::vector<Expr> padded_results(lhs.rank());
  maps.padded_dims = lhs.dims;
  maps.padding.resize(lhs.rank());
  padded_results[dn.input_batch] =
      bg == 1 ? d_batch
              : d_feature.FloorDiv(out_features / bg) * out[dn.output_batch] +
                    d_batch;
  padded_results[dn.input_feature] =
      fg == 1 ? s_feature
              : d_feature.FloorDiv(out_features / fg) * kernel_in + s_feature;
  for (size_t i = 0; i < sp; ++i) {
    const hlo::WindowDim& w = in.window[i];
    int64_t ld = dn.input_spatial[i];
    padded_results[ld] = ctx->Dim(dn.output_spatial[i]) * w.stride +
                         ctx->Symbol(i) * w.window_dilation;
    int64_t n = lhs.dims[ld];
    maps.padded_dims[ld] =
        (n == 0 ? 0 : (n - 1) * w.base_dilation + 1) + w.pad_low + w.pad_high;
    maps.padding[ld] = {w.pad_low, w.pad_high, w.base_dilation - 1};
  }
  maps.padded_lhs = MakeMap(ctx, out, range_sizes, std::move(padded_results));

  std::vector<Expr> kernel_results(rhs.rank());
  kernel_results[dn.kernel_input_feature] = s_feature;
  kernel_results[dn.kernel_output_feature] = d_feature;
  for (size_t i = 0; i < sp; ++i) {
    Expr s = ctx->Symbol(i);
    kernel_results[dn.kernel_spatial[i]] =
        in.window[i].reversal ? -s + (in.window[i].size - 1) : s;
  }
  maps.kernel = MakeMap(ctx, out, range_sizes, std::move(kernel_results));
  return maps;
}

}  // namespace

namespace {

// A convolution's output -> operand maps before FinishMap: both over the
// window dims' symbols, then the input feature's.
Result<std::vector<IndexingMap>> ConvolutionOperandMaps(const Instruction& in,
                                                        ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(ConvolutionMaps maps, BuildConvolutionMaps(in, ctx));
  IndexingMap pad =
      PadMap(in.operand(0)->shape.dims, maps.padding, maps.padded_dims, ctx);
  IXA_ASSIGN_OR_RETURN(IndexingMap lhs_map,
                       ComposeIndexingMaps(maps.padded_lhs, pad));
  std::vector<IndexingMap> out;
  out.push_back(std::move(lhs_map));
  out.push_back(std::move(maps.kernel));
  return out;
}

}  // namespace

Result<Indexing> ConvolutionOutToIn(const Instruction& in, ExprContext* ctx) {
  IXA_ASSIGN_OR_RETURN(std::vector<IndexingMap> maps,
                       ConvolutionOperandMaps(in, ctx));
  return FromMaps(std::move(maps));
}

Result<Indexing> ConvolutionInToOut(const Instruction& in, int operand,
                                    ExprContext* ctx) {
  // Inverses of the window maps: an lhs element goes to its place in the
  // padded lhs, then to every output whose window covers it; a kernel
  // element to every output that multiplies it.
  IXA_ASSIGN_OR_RETURN(ConvolutionMaps maps, BuildConvolutionMaps(in, ctx));
  if (operand == 1) {
    IXA_ASSIGN_OR_RETURN(IndexingMap m,
                         InvertMap(maps.kernel, in.operand(1)->shape.dims));
    return FromMaps({std::move(m)});
  }
  const std::vector<int64_t>& lhs = in.operand(0)->shape.dims;
  IXA_ASSIGN_OR_RETURN(IndexingMap covering,
                       InvertMap(maps.padded_lhs, maps.padded_dims));
  IndexingMap place = PadInputMap(lhs, maps.padding, maps.padded_dims, ctx);
  IXA_ASSIGN_OR_RETURN(IndexingMap m, ComposeIndexingMaps(place, covering));
  return FromMaps({std::move(m)});
}

}  // namespace ixa::indexing_internal

namespace ixa {

Result<std::vector<IndexingMap>> ComputeSharedSymbolOperandMaps(
    const hlo::Instruction& in, ExprContext* ctx) {
  Result<std::vector<IndexingMap>> maps =
      in.opcode == hlo::Opcode::kDot
          ? indexing_internal::DotOperandMaps(in, ctx)
      : in.opcode == hlo::Opcode::kConvolution
          ? indexing_internal::ConvolutionOperandMaps(in, ctx)
          : indexing_internal::Unsupported(
                in,
                "operand maps over shared symbols are a dot's or a "
                "convolution's");
  if (!maps.ok()) return maps.error();
  SimplifyOptions options;
  options.preserve_point_variables = true;
  for (IndexingMap& m : *maps) Simplify(&m, options);
  return maps;
}

}  // namespace ixa
