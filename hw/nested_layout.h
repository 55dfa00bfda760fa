// IREE's #iree_vector_ext.nested_layout as indexing maps (docs/layouts.md §2,
// docs/hw-reference.md §2).
//
// Per vector dim i the index is the mixed-radix number
//   x_i = ((((vsg_i*B_i + b_i)*O_i + o_i)*T_i + vt_i)*E_i + e_i
//   vsg_i = (subgroup floordiv ss_i) mod S_i   (0 when ss_i == 0)
//   vt_i  = (thread   floordiv ts_i) mod T_i   (0 when ts_i == 0)
// so the map is (subgroup, thread)[batch.., outer.., element..] -> (x_i).
//
// Ids. Lanes are [0, subgroup_size) (default prod(T)). Subgroup ids: the
// layout spans V = max(prod(S), 1 + sum_i ss_i*(S_i-1)) virtual ids. With H
// hardware subgroups (default V): if H >= V, subgroup h evaluates the formula
// directly (so ids wrap mod S_i, as in IREE: with S=[2], H=4, subgroups 1 and 3
// hold the same slice); if H < V, virtual id x runs on subgroup x mod H.
#ifndef IXA_HW_NESTED_LAYOUT_H_
#define IXA_HW_NESTED_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/expr.h"
#include "core/indexing_map.h"
#include "core/result.h"

namespace ixa::hw {

struct NestedLayout {
  std::vector<int64_t> subgroup_tile, batch_tile, outer_tile, thread_tile,
      element_tile, subgroup_strides, thread_strides;
  int rank() const { return static_cast<int>(subgroup_tile.size()); }
};

struct NestedIds {
  int64_t subgroup_size = 0;  // lanes per subgroup; 0 = prod(thread_tile)
  int64_t num_subgroups = 0;  // hardware subgroups; 0 = the layout's span
};

// Validates (same rank everywhere, tiles >= 1, strides >= 0) and, as IREE's
// constructor does, sets the stride of every size-1 tile to 0.
Result<NestedLayout> MakeNestedLayout(std::vector<int64_t> subgroup_tile,
                                      std::vector<int64_t> batch_tile,
                                      std::vector<int64_t> outer_tile,
                                      std::vector<int64_t> thread_tile,
                                      std::vector<int64_t> element_tile,
                                      std::vector<int64_t> subgroup_strides,
                                      std::vector<int64_t> thread_strides);

// N_i = S_i*B_i*O_i*T_i*E_i.
std::vector<int64_t> UndistributedShape(const NestedLayout& l);
// IREE's packed distributed shape: batch ++ outer ++ element.
std::vector<int64_t> DistributedShape(const NestedLayout& l);
// The span V of virtual subgroup ids and the resolved id ranges.
int64_t SubgroupSpan(const NestedLayout& l);
int64_t LaneCount(const NestedLayout& l, const NestedIds& ids);
int64_t HardwareSubgroups(const NestedLayout& l, const NestedIds& ids);

struct ShapeCheck {
  bool valid = true;
  std::vector<int> mismatched_dims;  // dims where N_i != shape_i
};
// invalid_argument on a rank mismatch.
Result<ShapeCheck> CheckVectorShape(const NestedLayout& l,
                                    const std::vector<int64_t>& shape);

// (subgroup, thread)[batch_0.., outer_0.., element_0..] -> (x_0, ...), with
// subgroup in [0, max(H, V) - 1] and thread in [0, lanes - 1].
IndexingMap NestedLayoutMap(const NestedLayout& l, const NestedIds& ids,
                            ExprContext* ctx);

std::vector<int64_t> VirtualSubgroupIds(const NestedLayout& l,
                                        int64_t subgroup);
std::vector<int64_t> VirtualThreadIds(const NestedLayout& l, int64_t thread);

// The vector indices held by (subgroup, thread), in distributed (row-major
// over batch ++ outer ++ element) order. `subgroup` is a virtual id.
Result<std::vector<std::vector<int64_t>>> ThreadElements(const NestedLayout& l,
                                                         const NestedIds& ids,
                                                         int64_t subgroup,
                                                         int64_t thread);

// Every hardware (subgroup, lane) pair holding `element`, sorted.
Result<std::vector<std::pair<int64_t, int64_t>>> Owners(
    const NestedLayout& l, const NestedIds& ids,
    const std::vector<int64_t>& element);

struct CoverageProof {
  bool covers = false;
  bool partition = false;  // covers and every element has exactly one owner
  int64_t min_owners = 0, max_owners = 0;         // over all elements
  std::optional<std::vector<int64_t>> uncovered;  // a witness when !covers
  std::string argument;  // how it was decided, in words
};

// Decides, for every element of the vector at once, whether some
// (subgroup, lane) holds it. Not sampling: see the argument in the .cc.
Result<CoverageProof> ProveCoverage(const NestedLayout& l,
                                    const NestedIds& ids);

}  // namespace ixa::hw

#endif  // IXA_HW_NESTED_LAYOUT_H_
