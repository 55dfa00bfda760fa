// `ixa report`: one self-contained HTML page about a whole module, built
// from the protocol's own answers (fusion_plan, fusion_cost) so that every
// number on the page is the one a query returns.
#ifndef IXA_TOOLS_IXA_REPORT_H_
#define IXA_TOOLS_IXA_REPORT_H_

#include <optional>
#include <string>
#include <vector>

#include "analysis/hlo/opcodes.h"
#include "hw/device.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

// One kernel of the (fused) module's entry computation.
struct ReportKernel {
  std::string name;
  hlo::Opcode opcode = hlo::Opcode::kFusion;
  std::optional<hlo::Opcode> async_wrapped;  // as Instruction::async_wrapped
  std::string fusion_kind;                   // kLoop, kInput, ... for fusions
  Json cost;               // the fusion_cost answer; null when not costed
  std::string not_costed;  // why, when cost is null
  // Producers among the kernels and parameters, by name.
  std::vector<std::string> inputs;
  int depth = 0;                 // longest path from the parameters
  int64_t reduced_elements = 0;  // per output element, of its widest reduce
  // Derived from cost: time_us, bytes (read + written), flops, and the
  // bound: "memory", "compute" or "latency" (shorter than its launch).
  double time_us = 0, bytes = 0, flops = 0;
  std::string bound;
};

// The kernel's opcode as written: "fusion", "custom-call", "copy", ...
inline const std::string& OpcodeText(const ReportKernel& k) {
  return hlo::WrittenOpcodeName(k.opcode, k.async_wrapped);
}

struct ReportFinding {
  std::string kind;  // uncoalesced, low_occupancy, long_reduction, ...
  std::string kernel;
  std::string text;
  double time_us = 0;  // the time at stake, for ordering
};

struct ReportData {
  std::string source;  // the file as given
  std::string device_name, model;
  hw::Device device;
  bool planned = false;  // the module was fused by fusion_plan first
  Json plan;             // fusion_plan's summary, when planned
  std::vector<std::string> parameters;
  std::vector<ReportKernel> kernels;  // operands before users
  std::vector<ReportFinding> findings;
  double total_time_us = 0;  // Σ kernel time + launch overhead each
  double total_bytes = 0;
};

// "1.5 MiB": bytes as people read them.
std::string ReportBytes(double bytes);

// The page (report_html.cc).
std::string RenderReportHtml(const ReportData& data);

// `ixa report FILE.hlo [--device D] [--model M] [--devices FILE] [-o OUT]`;
// argv[1] is "report". Exit codes: 0 ok, 1 the module is invalid or cannot
// be analyzed, 64 usage, 66 FILE cannot be read, 73 OUT cannot be written.
int RunReportCommand(int argc, char** argv);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_REPORT_H_
