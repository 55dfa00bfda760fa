// Where an HLO shape's elements live in memory: the one conversion from the
// front end's shape (hlo::Shape) to hw's layout shape (hw::XlaShape), and
// the maps built on it. Every layer that needs a shape's physical layout
// goes through here, never through printing the shape and parsing it back.
#ifndef IXA_ANALYSIS_HLO_PHYSICAL_LAYOUT_H_
#define IXA_ANALYSIS_HLO_PHYSICAL_LAYOUT_H_

#include "analysis/hlo/shape.h"
#include "core/indexing_map.h"
#include "core/result.h"
#include "hw/xla_layout.h"

namespace ixa {
namespace hlo {

// The array shape `s` (type, dims, minor_to_major, tiles, E(bits)) as hw
// describes it. Element types hw's table does not list keep their name and
// width. hw's layout analysis validates the layout itself.
hw::XlaShape ToXlaShape(const Shape& s);

}  // namespace hlo

// Logical index -> element offset in memory: the shape's physical layout
// (minor_to_major and tiles, hw/xla_layout.h). A scalar maps to offset 0.
Result<IndexingMap> PhysicalOffsetMap(const hlo::Shape& shape,
                                      ExprContext* ctx);

}  // namespace ixa

#endif  // IXA_ANALYSIS_HLO_PHYSICAL_LAYOUT_H_
