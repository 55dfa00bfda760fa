// Exact conversions between linear layouts and ixa's other layout forms
// (docs/layouts.md, "Linear layouts"): indexing maps, CuTe layouts and
// CuTe's Swizzle<B,M,S>.
//
// A conversion either answers a layout equal to its input at every point or
// refuses with an error saying why the input is not linear over GF(2)
// (a size that is not a power of two, a constant offset, images that
// overlap so that + carries, ...).
#ifndef IXA_HW_LINEAR_LAYOUT_CONVERT_H_
#define IXA_HW_LINEAR_LAYOUT_CONVERT_H_

#include <optional>
#include <string>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/cute.h"
#include "hw/linear_layout.h"

namespace ixa::hw {

// The most input bits a map that is not recognized as a sum of bit fields
// is checked over point by point (2^20 points).
inline constexpr int kMaxLinearCheckBits = 20;

// A map whose dims and range variables (the input dims, named by their
// names: d0, s0 or the map's own) each range over [0, 2^k - 1], with no
// runtime variables and no constraints, whose results are linear over
// GF(2). The results are the output dims, named `out_names` (default dim0,
// dim1, ..), each of the smallest power-of-two size that holds its image.
// Linearity is proved from the form of the results (sums of bit fields
// c * ((v floordiv 2^a) mod 2^w) whose bits never overlap), else checked at
// every point when there are at most kMaxLinearCheckBits input bits.
Result<LinearLayout> LinearLayoutFromMap(
    const IndexingMap& map, const std::vector<std::string>& out_names = {});

// The layout as a map: the input dims as dims (their names and ranges), one
// result per output dim. XOR has no node of its own in the map language:
// output bit p is (sum of the input bits that reach it) mod 2, each input bit
// written (v floordiv 2^i); runs of output bits that copy consecutive bits
// of one input become one field ((v floordiv 2^i) mod 2^w) * 2^p. The map
// is simplified.
Result<IndexingMap> LinearLayoutToMap(const LinearLayout& l, ExprContext* ctx);

// A CuTe layout with power-of-two mode sizes and non-negative strides whose
// bit images never overlap (then + is XOR), optionally swizzled: input
// dim "index" (CuTe's 1-D index) or, with by_mode, one input dim per top-level
// mode ("mode0", "mode1", ..); output dim "offset".
Result<LinearLayout> LinearLayoutFromCute(
    const cute::Layout& layout, const std::optional<cute::Swizzle>& swizzle,
    bool by_mode = false);

// A layout with one output dim whose bases are powers of two or zero, no two
// alike: one CuTe mode per input dim (coalesced), every bit a (2:basis)
// mode. Anything else needs a swizzle, and is refused.
Result<cute::Layout> LinearLayoutToCute(const LinearLayout& l);

// Swizzle<B,M,S> on offsets in [0, 2^bits) (bits 0: the smallest that holds
// the swizzle, B + M + |S|): input and output dim "offset".
Result<LinearLayout> SwizzleLinearLayout(const cute::Swizzle& swizzle,
                                         int bits = 0);
// The same as an ixa map (d0) -> (swizzled d0) over [0, 2^bits).
Result<IndexingMap> SwizzleMap(const cute::Swizzle& swizzle, int bits,
                               ExprContext* ctx);

}  // namespace ixa::hw

#endif  // IXA_HW_LINEAR_LAYOUT_CONVERT_H_
