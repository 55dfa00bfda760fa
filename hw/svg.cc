#include "hw/svg.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace ixa::hw {

namespace {

constexpr int64_t kMaxSide = 64;

const char* kPalette[] = {"#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6",
                          "#fb9a99", "#ffff99", "#8dd3c7", "#bebada",
                          "#80b1d3", "#fccde5", "#ccebc5", "#ffed6f"};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

class Svg {
 public:
  void Begin(int w, int h) {
    os_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
        << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << " " << h
        << "\" font-family=\"sans-serif\">\n"
        << "<defs><pattern id=\"pad\" width=\"6\" height=\"6\" "
           "patternUnits=\"userSpaceOnUse\">"
        << "<rect width=\"6\" height=\"6\" fill=\"#e8e8e8\"/>"
        << "<path d=\"M0,6 L6,0\" stroke=\"#9a9a9a\" "
           "stroke-width=\"1\"/></pattern></defs>\n"
        << "<rect width=\"" << w << "\" height=\"" << h
        << "\" fill=\"white\"/>\n";
  }
  void Text(double x, double y, const std::string& s, double size,
            const char* anchor = "start", const char* weight = "normal") {
    os_ << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << size
        << "\" text-anchor=\"" << anchor << "\" font-weight=\"" << weight
        << "\">" << XmlEscape(s) << "</text>\n";
  }
  void Cell(const std::string& index, double x, double y, double w, double h,
            const std::string& fill, const std::string& label, double font) {
    os_ << "<g class=\"cell\" data-index=\"" << index << "\"><rect x=\"" << x
        << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h
        << "\" fill=\"" << fill << "\" stroke=\"#555\" stroke-width=\"0.5\"/>";
    if (!label.empty()) {
      os_ << "<text x=\"" << x + w / 2 << "\" y=\"" << y + h / 2 + font * 0.35
          << "\" font-size=\"" << font << "\" text-anchor=\"middle\">"
          << XmlEscape(label) << "</text>";
    }
    os_ << "</g>\n";
  }
  void Line(double x1, double y1, double x2, double y2, const char* color,
            double width) {
    os_ << "<line x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2
        << "\" y2=\"" << y2 << "\" stroke=\"" << color << "\" stroke-width=\""
        << width << "\"/>\n";
  }
  std::string End() {
    os_ << "</svg>\n";
    return os_.str();
  }

 private:
  std::ostringstream os_;
};

// Boundaries between cells whose group ids differ.
void GroupEdges(Svg& svg, const std::vector<std::vector<int64_t>>& group,
                double x0, double y0, double cell, const char* color,
                double width) {
  const size_t rows = group.size(), cols = rows ? group[0].size() : 0;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      double x = x0 + c * cell, y = y0 + r * cell;
      if (c + 1 == cols || group[r][c] != group[r][c + 1])
        svg.Line(x + cell, y, x + cell, y + cell, color, width);
      if (r + 1 == rows || group[r][c] != group[r + 1][c])
        svg.Line(x, y + cell, x + cell, y + cell, color, width);
      if (c == 0) svg.Line(x, y, x, y + cell, color, width);
      if (r == 0) svg.Line(x, y, x + cell, y, color, width);
    }
  }
}

std::string ErrorSvg(const std::string& message) {
  Svg svg;
  svg.Begin(640, 40);
  svg.Text(8, 24, "error: " + message, 13);
  return svg.End();
}

std::string IndexText(const std::vector<int64_t>& idx) {
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i) s.push_back(',');
    s.append(std::to_string(idx[i]));
  }
  return s;
}

// Grid view of a shape: rows = product of all but the last dim.
struct Grid {
  std::vector<int64_t> dims;
  int64_t rows = 1, cols = 1;
  explicit Grid(const std::vector<int64_t>& d) : dims(d) {
    if (!d.empty()) {
      cols = d.back();
      for (size_t i = 0; i + 1 < d.size(); ++i) rows *= d[i];
    }
  }
  std::vector<int64_t> Index(int64_t r, int64_t c) const {
    std::vector<int64_t> idx(dims.size());
    if (dims.empty()) return idx;
    idx.back() = c;
    for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
      idx[i] = r % dims[i];
      r /= dims[i];
    }
    return idx;
  }
};

int PickCell(int64_t rows, int64_t cols, int requested, int64_t widest_label) {
  if (requested > 0) return requested;
  int64_t side = std::max(rows, cols);
  int cell = side <= 8 ? 44 : side <= 16 ? 34 : side <= 32 ? 24 : 18;
  return std::max<int>(cell, static_cast<int>(widest_label * 7 + 6));
}

}  // namespace

std::string DrawTiledLayoutSvg(const XlaShape& shape,
                               const SvgOptions& options) {
  ExprContext ctx;
  auto info = AnalyzeTiledLayout(shape, &ctx);
  if (!info.ok()) return ErrorSvg(info.error().message);
  XlaLayout layout = shape.EffectiveLayout();
  // First-level tile size (a row of the buffer) and last-level box size.
  int64_t tile0 = shape.dims.empty() ? 1 : shape.dims.back(), last = 1;
  if (!layout.tiles.empty()) {
    tile0 = 1;
    for (int64_t t : layout.tiles.front()) tile0 *= std::max<int64_t>(t, 1);
    for (int64_t t : layout.tiles.back()) last *= std::max<int64_t>(t, 1);
  }
  tile0 = std::max<int64_t>(tile0, 1);
  Grid grid(shape.dims);
  const int64_t rows = std::min(grid.rows, kMaxSide),
                cols = std::min(grid.cols, kMaxSide);
  std::vector<std::vector<int64_t>> offset(rows, std::vector<int64_t>(cols));
  std::vector<std::vector<int64_t>> tile_id(rows, std::vector<int64_t>(cols)),
      box_id = tile_id;
  std::vector<std::string> slot_label(
      std::min<int64_t>(info->physical_elements, kMaxSide * kMaxSide * 4));
  std::vector<int64_t> slot_tile(slot_label.size(), -1);
  int64_t widest = 1;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      std::vector<int64_t> idx = grid.Index(r, c);
      int64_t o = *PhysicalOffset(shape, idx);
      offset[r][c] = o;
      tile_id[r][c] = o / tile0;
      box_id[r][c] = o / last;
      widest = std::max<int64_t>(widest, std::to_string(o).size());
      if (o < static_cast<int64_t>(slot_label.size())) {
        slot_label[o] = IndexText(idx);
        slot_tile[o] = o / tile0;
      }
    }
  }
  const int cell = PickCell(rows, cols, options.cell, widest);
  const double font = std::min(cell * 0.42, 13.0);
  const double top = 44, left = 16;
  const double grid_w = cols * cell, grid_h = rows * cell;
  // The buffer: one row per first-level tile, up to 16 slots wide.
  const int64_t slots = static_cast<int64_t>(slot_label.size());
  const int64_t mem_cols = std::min<int64_t>(tile0, 16),
                mem_rows = (slots + mem_cols - 1) / mem_cols;
  const int mem_cell = 34;
  const double mem_x = left + grid_w + 48;
  const bool memory = options.show_memory;
  const double width =
      memory ? mem_x + std::max<double>(mem_cols * mem_cell, 250) + 16
             : left + grid_w + 16;
  const double height =
      top + std::max(grid_h, memory ? mem_rows * mem_cell : 0.0) + 36;
  Svg svg;
  svg.Begin(static_cast<int>(width), static_cast<int>(height));
  svg.Text(left, 20,
           options.title.empty() ? PrintXlaShape(shape) : options.title, 15,
           "start", "bold");
  svg.Text(left, 36, "logical index -> offset", 11);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      svg.Cell(IndexText(grid.Index(r, c)), left + c * cell, top + r * cell,
               cell, cell, kPalette[tile_id[r][c] % kPaletteSize],
               std::to_string(offset[r][c]), font);
    }
  }
  if (layout.tiles.size() > 1)
    GroupEdges(svg, box_id, left, top, cell, "#d62728", 2);
  GroupEdges(svg, tile_id, left, top, cell, "#222",
             layout.tiles.empty() ? 0.5 : 1.5);
  if (memory) {
    svg.Text(mem_x, 36, "memory (offset order, padding hatched)", 11);
    for (int64_t o = 0; o < slots; ++o) {
      double x = mem_x + (o % mem_cols) * mem_cell,
             y = top + (o / mem_cols) * mem_cell;
      bool pad = slot_tile[o] < 0;
      svg.Cell("m" + std::to_string(o), x, y, mem_cell, mem_cell,
               pad ? "url(#pad)" : kPalette[slot_tile[o] % kPaletteSize],
               pad ? "" : slot_label[o], 9);
    }
  }
  svg.Text(left, height - 12,
           std::to_string(info->physical_elements) + " slots, " +
               std::to_string(info->bytes) + " bytes",
           11);
  return svg.End();
}

std::string DrawNestedLayoutSvg(const NestedLayout& layout,
                                const NestedIds& ids,
                                const SvgOptions& options) {
  std::vector<int64_t> n = UndistributedShape(layout);
  Grid grid(n);
  const int64_t rows = std::min(grid.rows, kMaxSide),
                cols = std::min(grid.cols, kMaxSide);
  int64_t lanes = LaneCount(layout, ids);
  const int cell =
      PickCell(rows, cols, options.cell, std::to_string(lanes).size() + 1);
  const double font = std::min(cell * 0.42, 12.0);
  const double top = 44, left = 16;
  // Batch tiles: the region one unrolled instruction covers.
  std::vector<std::vector<int64_t>> batch(rows, std::vector<int64_t>(cols));
  Svg svg;
  svg.Begin(static_cast<int>(left * 2 + cols * cell),
            static_cast<int>(top + rows * cell + 36));
  std::string title = options.title;
  if (title.empty()) {
    title = "nested layout: vector<" + IndexText(n) + ">, " +
            std::to_string(lanes) + " lanes";
  }
  svg.Text(left, 20, title, 14, "start", "bold");
  svg.Text(left, 36, "lane holding each element; color = subgroup", 11);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      std::vector<int64_t> idx = grid.Index(r, c);
      int64_t b = 0;
      for (int i = 0; i < layout.rank(); ++i) {
        int64_t per_batch = layout.outer_tile[i] * layout.thread_tile[i] *
                            layout.element_tile[i];
        b = b * (layout.subgroup_tile[i] * layout.batch_tile[i]) +
            idx[i] / per_batch;
      }
      batch[r][c] = b;
      auto owners = Owners(layout, ids, idx);
      std::string label, fill = "url(#pad)";
      if (owners.ok() && !owners->empty()) {
        label = std::to_string((*owners)[0].second);
        if (owners->size() > 1) {
          label.push_back('+');  // append(): g++ 12 -Wrestrict misfires on +
          label.append(std::to_string(owners->size() - 1));
        }
        fill = kPalette[(*owners)[0].first % kPaletteSize];
      }
      svg.Cell(IndexText(idx), left + c * cell, top + r * cell, cell, cell,
               fill, label, font);
    }
  }
  GroupEdges(svg, batch, left, top, cell, "#222", 1.5);
  svg.Text(left, top + rows * cell + 24,
           "distributed shape per thread [" +
               IndexText(DistributedShape(layout)) +
               "] (batch, outer, element)",
           11);
  return svg.End();
}

std::string DrawBankTileSvg(const BankTilePicture& picture,
                            const SvgOptions& options) {
  Grid grid(picture.shape);
  const int64_t rows = std::min(grid.rows, kMaxSide),
                cols = std::min(grid.cols, kMaxSide);
  const int cell = PickCell(rows, cols, options.cell,
                            std::to_string(picture.banks - 1).size());
  const double font = std::min(cell * 0.42, 12.0);
  const double top = 60, left = 16, gap = 24;
  const double panel_width = cols * cell;
  const size_t panels = picture.panels.size();
  std::map<int64_t, int64_t> lane_of;
  for (auto [flat, lane] : picture.lanes) lane_of.emplace(flat, lane);
  Svg svg;
  svg.Begin(static_cast<int>(left * 2 + panels * panel_width +
                             (panels > 0 ? (panels - 1) * gap : 0)),
            static_cast<int>(top + rows * cell + 24));
  std::string title = options.title;
  if (title.empty()) title = "shared tile [" + IndexText(picture.shape) + "]";
  svg.Text(left, 20, title, 14, "start", "bold");
  svg.Text(left, 36,
           "color and number: the bank of each element; outlined: " +
               picture.caption + " (number: its lane)",
           11);
  for (size_t p = 0; p < panels; ++p) {
    const BankTilePanel& panel = picture.panels[p];
    const double x0 = left + p * (panel_width + gap);
    svg.Text(x0, top - 8, panel.label, 12, "start", "bold");
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t flat = r * grid.cols + c;
        if (flat >= static_cast<int64_t>(panel.bytes.size())) continue;
        const int64_t bank =
            (panel.bytes[flat] / picture.bank_bytes) % picture.banks;
        std::ostringstream fill;
        fill << "hsl(" << (bank * 360 / picture.banks) << ",70%,"
             << (bank % 2 == 0 ? 78 : 64) << "%)";
        auto lane = lane_of.find(flat);
        const double x = x0 + c * cell, y = top + r * cell;
        svg.Cell(IndexText(grid.Index(r, c)), x, y, cell, cell, fill.str(),
                 lane == lane_of.end() ? std::to_string(bank)
                                       : "L" + std::to_string(lane->second),
                 font);
        if (lane != lane_of.end()) {
          svg.Line(x, y, x + cell, y, "#000", 2.5);
          svg.Line(x, y + cell, x + cell, y + cell, "#000", 2.5);
          svg.Line(x, y, x, y + cell, "#000", 2.5);
          svg.Line(x + cell, y, x + cell, y + cell, "#000", 2.5);
        }
      }
    }
  }
  return svg.End();
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace ixa::hw
