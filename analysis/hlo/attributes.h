// Typed readers of instruction attribute values (the raw text after
// `name=`), with errors pointing into the original text. Internal to
// analysis/hlo (parser.cc).
#ifndef IXA_ANALYSIS_HLO_ATTRIBUTES_H_
#define IXA_ANALYSIS_HLO_ATTRIBUTES_H_

#include <string_view>
#include <vector>

#include "analysis/hlo/lexer.h"
#include "analysis/hlo/module.h"

namespace ixa::hlo {

// `{1,2}`.
Result<std::vector<int64_t>> IntListAttr(std::string_view raw, Position pos,
                                         std::string_view what);
// `{{1,2},{3}}` (also `{}`).
Result<std::vector<std::vector<int64_t>>> IntListListAttr(
    std::string_view raw, Position pos, std::string_view what);
// `5`.
Result<int64_t> IntAttr(std::string_view raw, Position pos,
                        std::string_view what);
// `{[5:10:1], [3:20:7]}`; the stride may be omitted.
Result<std::vector<SliceDim>> SliceAttr(std::string_view raw, Position pos);
// `1_4_1x4_8_0`: low_high[_interior] per dimension, separated by 'x'.
Result<std::vector<PadDim>> PaddingAttr(std::string_view raw, Position pos);
// `{size=1x512 pad=0_0x0_0 stride=1x2 lhs_dilate=1x1 rhs_dilate=1x1
// rhs_reversal=0x1}`.
Result<std::vector<WindowDim>> WindowAttr(std::string_view raw, Position pos);
// `b01f_01io->b01f`, `?` marking an unlabeled position.
Result<ConvDimensionNumbers> DimLabelsAttr(std::string_view raw, Position pos);
// `{{0,1},{2,3}}`, `{}`, the iota forms `[G,S]<=[N]` and
// `[G,S]<=[d0,d1,...]T(perm)`, or a mesh `mesh['a'=2,'b'=2] {'b'}`.
Result<std::vector<std::vector<int64_t>>> ReplicaGroupsAttr(
    std::string_view raw, Position pos);

// Iota replica groups are expanded only up to this many devices (the group
// structure of larger ones is not needed by any map).
inline constexpr int64_t kMaxExpandedDevices = int64_t{1} << 20;

}  // namespace ixa::hlo

#endif  // IXA_ANALYSIS_HLO_ATTRIBUTES_H_
