// The page of `ixa report`: plain HTML and inline SVG, no script runs, no
// resource from the network, so it opens anywhere and prints as shown.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "hw/svg.h"
#include "tools/ixa/report.h"

namespace ixa::cli {
namespace {

// Numbers as people read them: 3 significant digits, no exponent below a
// billion.
std::string ReadableNumber(double v) {
  char buf[64];
  if (v != 0 && (std::fabs(v) >= 1e9 || std::fabs(v) < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

}  // namespace

std::string ReportBytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return ReadableNumber(b) + " " + units[u];
}

namespace {

const char kStyle[] = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; }
th { background: #f2f2f2; }
td.l, th.l { text-align: left; }
.memory { color: #1f5fa8; } .compute { color: #b0401a; }
.latency { color: #6a6a6a; } .bad { color: #b00020; font-weight: 600; }
ul.findings li { margin: 4px 0; }
.kind { font-family: monospace; font-size: 12px; background: #eef;
        padding: 0 4px; border-radius: 3px; }
.muted { color: #777; }
)";

std::string LaunchText(const Json& cost) {
  if (!cost.contains("launch")) return "";
  const Json& l = cost["launch"];
  auto product = [](const Json& v) {
    int64_t p = 1;
    for (const Json& x : v) p *= x.get<int64_t>();
    return p;
  };
  return std::to_string(product(l["blocks"])) + " × " +
         std::to_string(product(l["threads"]));
}

std::string CoalescingText(const Json& cost) {
  std::string bad;
  int total = 0;
  for (const Json& op : cost.value("operands", Json::array())) {
    ++total;
    if (!op.value("coalesced", true)) {
      bad += (bad.empty() ? "" : ", ") + op.value("name", std::string("?"));
    }
  }
  if (total == 0) return "—";
  if (bad.empty()) return "all";
  return "<span class=\"bad\">not: " + hw::XmlEscape(bad) + "</span>";
}

std::string KernelRow(const ReportKernel& k) {
  std::ostringstream row;
  row << "<tr><td class=\"l\">" << hw::XmlEscape(k.name)
      << "</td><td class=\"l\">";
  if (!k.fusion_kind.empty()) {
    row << "<span class=\"kind\">" << hw::XmlEscape(k.fusion_kind)
        << "</span> ";
  } else {
    row << hw::XmlEscape(OpcodeText(k)) << " ";
  }
  if (k.cost.is_null()) {
    row << "</td><td class=\"l muted\" colspan=\"9\">not costed: "
        << hw::XmlEscape(k.not_costed) << "</td></tr>\n";
    return row.str();
  }
  const Json& c = k.cost;
  row << hw::XmlEscape(c.value("emitter", "")) << "</td><td>" << LaunchText(c)
      << "</td><td>" << ReadableNumber(k.time_us) << "</td><td>"
      << ReportBytes(c.value("bytes_read", 0.0)) << "</td><td>"
      << ReportBytes(c.value("bytes_written", 0.0)) << "</td><td>"
      << ReadableNumber(k.flops) << "</td><td class=\"" << k.bound << "\">"
      << k.bound << "</td><td>" << CoalescingText(c) << "</td><td>"
      << c.value("blocks_per_core", 0) << " / "
      << ReadableNumber(100 * c.value("active_fraction", 0.0))
      << "%</td></tr>\n";
  return row.str();
}

const char kKernelHeader[] =
    "<tr><th class=\"l\">kernel</th><th class=\"l\">kind, emitter</th>"
    "<th>blocks × threads</th><th>time µs</th><th>read</th><th>written</th>"
    "<th>flops</th><th>bound</th><th>coalesced</th>"
    "<th>blocks/SM / cores busy</th></tr>\n";

// Log-log roofline: achieved GFLOP/s against flops per byte, under the
// device's DRAM slope and its fp32 (and bf16 matrix) ceilings.
std::string RooflineSvg(const ReportData& data) {
  const double width = 720, height = 420, left = 70, right = 20, top = 20,
               bottom = 50;
  double bw = data.device.dram_gbps;                  // GB/s = bytes/ns
  double fp32 = data.device.peak_tflops_fp32 * 1000;  // GFLOP/s
  double bf16 = data.device.peak_tflops_bf16 * 1000;
  double peak = std::max(fp32, bf16);
  struct Point {
    double x, y;
    const ReportKernel* k;
  };
  std::vector<Point> points;
  int without_flops = 0;
  for (const ReportKernel& k : data.kernels) {
    if (k.cost.is_null() || k.time_us <= 0 || k.bytes <= 0) continue;
    if (k.flops <= 0) {
      ++without_flops;
      continue;
    }
    points.push_back({k.flops / k.bytes, k.flops / (k.time_us * 1e3), &k});
  }
  double xmin = 1e-2, xmax = 1e3, ymin = 1, ymax = 1e6;
  if (bw > 0 && peak > 0) xmax = std::max(xmax, 10 * peak / bw);
  for (const Point& p : points) {
    xmin = std::min(xmin, p.x);
    xmax = std::max(xmax, p.x);
    ymin = std::min(ymin, p.y);
  }
  if (peak > 0) ymax = std::max(ymax, 2 * peak);
  double lx0 = std::floor(std::log10(xmin)), lx1 = std::ceil(std::log10(xmax));
  double ly0 = std::floor(std::log10(ymin)), ly1 = std::ceil(std::log10(ymax));
  auto X = [&](double x) {
    return left + (std::log10(x) - lx0) / (lx1 - lx0) * (width - left - right);
  };
  auto Y = [&](double y) {
    return height - bottom -
           (std::log10(y) - ly0) / (ly1 - ly0) * (height - top - bottom);
  };
  std::ostringstream s;
  s << "<svg id=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << width << "\" height=\"" << height << "\" font-size=\"11\">\n";
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\""
    << width - left - right << "\" height=\"" << height - top - bottom
    << "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
  for (double e = lx0; e <= lx1; ++e) {
    s << "<line x1=\"" << X(std::pow(10, e)) << "\" x2=\"" << X(std::pow(10, e))
      << "\" y1=\"" << top << "\" y2=\"" << height - bottom
      << "\" stroke=\"#e4e4e4\"/><text x=\"" << X(std::pow(10, e)) << "\" y=\""
      << height - bottom + 14 << "\" text-anchor=\"middle\">1e" << e
      << "</text>\n";
  }
  for (double e = ly0; e <= ly1; ++e) {
    s << "<line x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\""
      << Y(std::pow(10, e)) << "\" y2=\"" << Y(std::pow(10, e))
      << "\" stroke=\"#e4e4e4\"/><text x=\"" << left - 6 << "\" y=\""
      << Y(std::pow(10, e)) + 4 << "\" text-anchor=\"end\">1e" << e
      << "</text>\n";
  }
  s << "<text x=\"" << (left + width - right) / 2 << "\" y=\"" << height - 12
    << "\" text-anchor=\"middle\">arithmetic intensity (flops per DRAM "
       "byte)</text>\n";
  s << "<text transform=\"translate(16," << (top + height - bottom) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">GFLOP/s achieved</text>\n";
  auto roof = [&](double ceiling, const char* color, const char* label) {
    if (ceiling <= 0 || bw <= 0) return;
    double ridge = ceiling / bw;
    double x0 = std::pow(10, lx0), x1 = std::pow(10, lx1);
    double y0 = std::max(bw * x0, std::pow(10, ly0));
    double xs = y0 / bw;
    s << "<polyline fill=\"none\" stroke=\"" << color
      << "\" stroke-width=\"2\" points=\"" << X(xs) << "," << Y(y0) << " "
      << X(ridge) << "," << Y(ceiling) << " " << X(x1) << "," << Y(ceiling)
      << "\"/><text x=\"" << X(x1) - 4 << "\" y=\"" << Y(ceiling) - 5
      << "\" text-anchor=\"end\" fill=\"" << color << "\">" << label << " "
      << ReadableNumber(ceiling) << " GFLOP/s</text>\n";
    (void)x0;
  };
  roof(fp32, "#b0401a", "fp32");
  if (bf16 > fp32) roof(bf16, "#7a3fa0", "bf16 matrix");
  if (bw > 0) {
    s << "<text x=\"" << left + 8 << "\" y=\"" << height - bottom - 8
      << "\" fill=\"#1f5fa8\">DRAM " << ReadableNumber(bw) << " GB/s</text>\n";
  }
  for (const Point& p : points) {
    s << "<circle class=\"" << p.k->bound << "\" cx=\"" << X(p.x) << "\" cy=\""
      << Y(p.y) << "\" r=\"5\" fill=\"currentColor\" "
      << "fill-opacity=\"0.7\"><title>" << hw::XmlEscape(p.k->name) << ": "
      << ReadableNumber(p.k->time_us) << " µs, " << ReadableNumber(p.x)
      << " flops/byte</title>"
      << "</circle><text x=\"" << X(p.x) + 7 << "\" y=\"" << Y(p.y) + 4 << "\">"
      << hw::XmlEscape(p.k->name) << "</text>\n";
  }
  s << "</svg>\n";
  if (without_flops > 0) {
    s << "<p class=\"muted\">" << without_flops
      << " kernel(s) without flops (data movement only) are not plotted.</p>\n";
  }
  return s.str();
}

// The fused graph: parameters on the left, each kernel one column right of
// its deepest input.
std::string GraphSvg(const ReportData& data) {
  constexpr size_t kMaxNodes = 400;
  if (data.kernels.size() + data.parameters.size() > kMaxNodes) {
    return "<p class=\"muted\">The graph has " +
           std::to_string(data.kernels.size()) +
           " kernels; it is drawn only up to " + std::to_string(kMaxNodes) +
           " nodes.</p>\n";
  }
  const double col = 170, row = 46, box_w = 140, box_h = 30, margin = 10;
  std::map<std::string, std::pair<double, double>> pos;
  std::map<int, int> rows;
  auto place = [&](const std::string& name, int column) {
    int r = rows[column]++;
    pos[name] = {margin + column * col, margin + r * row};
  };
  for (const std::string& p : data.parameters) place(p, 0);
  for (const ReportKernel& k : data.kernels) place(k.name, k.depth);
  int columns = 1, max_rows = 1;
  for (auto [c, n] : rows) {
    columns = std::max(columns, c + 1);
    max_rows = std::max(max_rows, n);
  }
  std::ostringstream s;
  const double svg_w = 2 * margin + (columns - 1) * col + box_w,
               svg_h = 2 * margin + (max_rows - 1) * row + box_h;
  // Scaled down to the page's width when the graph is wider.
  s << "<svg id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << svg_w << "\" height=\"" << svg_h << "\" viewBox=\"0 0 " << svg_w << " "
    << svg_h
    << "\" style=\"max-width: 100%; height: auto\" font-size=\"11\">\n";
  for (const ReportKernel& k : data.kernels) {
    auto [x1, y1] = pos[k.name];
    for (const std::string& in : k.inputs) {
      auto [x0, y0] = pos[in];
      s << "<line x1=\"" << x0 + box_w << "\" y1=\"" << y0 + box_h / 2
        << "\" x2=\"" << x1 << "\" y2=\"" << y1 + box_h / 2
        << "\" stroke=\"#888\"/>\n";
    }
  }
  auto box = [&](const std::string& name, const std::string& label,
                 const char* fill) {
    auto [x, y] = pos[name];
    s << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << box_w
      << "\" height=\"" << box_h << "\" rx=\"4\" fill=\"" << fill
      << "\" stroke=\"#555\"/><text x=\"" << x + 6 << "\" y=\"" << y + 13
      << "\">" << hw::XmlEscape(name.substr(0, 22)) << "</text><text x=\""
      << x + 6 << "\" y=\"" << y + 25 << "\" fill=\"#555\">"
      << hw::XmlEscape(label) << "</text>\n";
  };
  for (const std::string& p : data.parameters) box(p, "parameter", "#eee");
  for (const ReportKernel& k : data.kernels) {
    std::string label = k.cost.is_null()
                            ? OpcodeText(k)
                            : k.cost.value("emitter", OpcodeText(k)) + ", " +
                                  ReadableNumber(k.time_us) + " µs";
    const char* fill = k.bound == "compute"   ? "#fbe3d9"
                       : k.bound == "latency" ? "#f0f0f0"
                                              : "#dde9f7";
    box(k.name, label, fill);
  }
  s << "</svg>\n";
  return s.str();
}

// The numbers behind the page, for tools and tests; `</` is escaped so the
// JSON cannot end the element.
std::string DataJson(const ReportData& data) {
  Json kernels = Json::array();
  for (const ReportKernel& k : data.kernels) {
    Json entry = {{"name", k.name},
                  {"opcode", OpcodeText(k)},
                  {"inputs", k.inputs},
                  {"bound", k.bound}};
    if (!k.fusion_kind.empty()) entry["fusion_kind"] = k.fusion_kind;
    if (k.cost.is_null()) {
      entry["not_costed"] = k.not_costed;
    } else {
      entry["cost"] = k.cost;
    }
    kernels.push_back(std::move(entry));
  }
  Json findings = Json::array();
  for (const ReportFinding& f : data.findings) {
    findings.push_back(
        {{"kind", f.kind}, {"kernel", f.kernel}, {"text", f.text}});
  }
  Json root = {
      {"device", data.device_name},     {"model", data.model},
      {"planned", data.planned},        {"kernels", kernels},
      {"findings", findings},           {"total_time_us", data.total_time_us},
      {"total_bytes", data.total_bytes}};
  if (data.planned) root["plan"] = data.plan;
  std::string text = root.dump();
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

std::string RenderReportHtml(const ReportData& data) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<title>ixa report: " << hw::XmlEscape(data.source) << "</title><style>"
    << kStyle << "</style></head><body>\n";
  h << "<h1>ixa report: " << hw::XmlEscape(data.source)
    << "</h1>\n<p>device <b>" << hw::XmlEscape(data.device_name)
    << "</b>, cost model <b>" << hw::XmlEscape(data.model) << "</b>; "
    << data.kernels.size() << " kernels, " << ReadableNumber(data.total_time_us)
    << " µs in all (with "
    << "each kernel's launch overhead), " << ReportBytes(data.total_bytes)
    << " read and written.";
  if (data.planned) {
    h << " The module had no fusions: fusion_plan fused "
      << data.plan.value("kernels_before", 0) << " kernels into "
      << data.plan.value("kernels_after", 0) << ".";
  }
  h << "</p>\n<h2>Findings</h2>\n";
  if (data.findings.empty()) {
    h << "<p class=\"muted\">Nothing to act on.</p>\n";
  } else {
    h << "<ul class=\"findings\">\n";
    for (const ReportFinding& f : data.findings) {
      h << "<li><span class=\"kind\">" << hw::XmlEscape(f.kind) << "</span> "
        << hw::XmlEscape(f.text) << "</li>\n";
    }
    h << "</ul>\n";
  }
  std::vector<const ReportKernel*> by_time;
  for (const ReportKernel& k : data.kernels) by_time.push_back(&k);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const ReportKernel* a, const ReportKernel* b) {
                     return a->time_us > b->time_us;
                   });
  h << "<h2>Top kernels by time</h2>\n<table id=\"top\">" << kKernelHeader;
  for (size_t i = 0; i < by_time.size() && i < 10; ++i) {
    h << KernelRow(*by_time[i]);
  }
  h << "</table>\n<h2>Roofline</h2>\n" << RooflineSvg(data);
  h << "<h2>Fused graph</h2>\n" << GraphSvg(data);
  h << "<h2>Every kernel</h2>\n<table id=\"kernels\">" << kKernelHeader;
  for (const ReportKernel& k : data.kernels) h << KernelRow(k);
  h << "</table>\n<p class=\"muted\">Bound: memory or compute by the larger "
       "part of the kernel's time; latency when the kernel is shorter than "
       "its launch. Numbers are fusion_cost's answers.</p>\n";
  h << "<script type=\"application/json\" id=\"ixa-report-data\">"
    << DataJson(data) << "</script>\n</body></html>\n";
  return h.str();
}

}  // namespace ixa::cli
