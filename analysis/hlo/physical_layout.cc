#include "analysis/hlo/physical_layout.h"

namespace ixa {
namespace hlo {

hw::XlaShape ToXlaShape(const Shape& s) {
  hw::XlaShape x;
  const char* name = ElementTypeName(s.type);
  auto type = hw::FindDType(name);
  x.type = type ? *type
                : hw::DType{name, ElementBits(s.type),
                            /*is_float=*/true};
  x.dims = s.dims;
  if (s.layout) {
    hw::XlaLayout l;
    l.minor_to_major = s.MinorToMajor();
    for (const Tile& t : s.layout->tiles) l.tiles.push_back(t.dims);
    l.element_size_bits = s.layout->element_size_bits;
    x.layout = std::move(l);
  }
  return x;
}

}  // namespace hlo

Result<IndexingMap> PhysicalOffsetMap(const hlo::Shape& shape,
                                      ExprContext* ctx) {
  if (!shape.IsArray()) {
    return Error::Unsupported("the physical layout of " + shape.ToString() +
                              ": not an array");
  }
  IXA_ASSIGN_OR_RETURN(hw::TiledLayoutInfo info,
                       hw::AnalyzeTiledLayout(hlo::ToXlaShape(shape), ctx));
  return info.map;
}

}  // namespace ixa
