// `ixa report`: gathers what the page shows. Every kernel's numbers are
// fusion_cost's answer for it, asked through the same request handler as
// `ixa query`; an unfused module is fused by fusion_plan first.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/hlo/module.h"
#include "tools/ixa/command_line.h"
#include "tools/ixa/device_request.h"
#include "tools/ixa/query_server.h"
#include "tools/ixa/report.h"

namespace ixa::cli {
namespace {

using hlo::Opcode;

const char kReportUsage[] =
    "usage: ixa report FILE.hlo [--device NAME] [--model ixa|xla]\n"
    "                  [--devices FILE] [-o OUT.html]\n"
    "\n"
    "Writes one self-contained HTML page about the module in FILE (- reads\n"
    "standard input): per kernel its kind, launch, time, bytes, bound\n"
    "(memory, compute or latency), coalescing and occupancy; the top 10\n"
    "kernels by time; a roofline chart; the fused graph; and findings "
    "(uncoalesced\n"
    "operands, low occupancy, long reductions, unfused elementwise chains).\n"
    "A module without fusions is fused first, as fusion_plan fuses it. The\n"
    "numbers are fusion_cost's for each kernel; the page embeds them as JSON\n"
    "(script id=\"ixa-report-data\") and runs no script.\n"
    "\n"
    "flags:\n"
    "  --device NAME   the device (default h100; ixa devices lists them)\n"
    "  --model M       the cost model: ixa (default) or xla\n"
    "  --devices FILE  add a user's device table (ixa devices --help)\n"
    "  -o, --output OUT.html\n"
    "                  write the page there (default: standard output)\n"
    "  -h, --help      print this help\n"
    "\n"
    "exit codes:\n"
    "  0   the page was written\n"
    "  1   the module is invalid or could not be analyzed\n"
    "  64  usage error\n"
    "  66  FILE cannot be read\n"
    "  70  internal failure\n"
    "  73  OUT cannot be written\n";

constexpr FlagSpec kReportFlags[] = {{"--device", "", true},
                                     {"--model", "", true},
                                     {"--devices", "", true},
                                     {"--output", "-o", true}};

// Ops that move no data of their own: they alias or name their operands.
bool IsPassThrough(hlo::Opcode opcode) {
  return opcode == Opcode::kGetTupleElement || opcode == Opcode::kTuple ||
         opcode == Opcode::kBitcast || opcode == Opcode::kAfterAll ||
         opcode == Opcode::kOptimizationBarrier;
}

bool IsHostControlFlow(hlo::Opcode opcode) {
  return opcode == Opcode::kWhile || opcode == Opcode::kConditional ||
         opcode == Opcode::kCall;
}

// One protocol request through `ixa query`'s handler; the answer, or an
// error string.
Json AskProtocol(const Json& request, std::string* error) {
  Json answer = Json::parse(AnswerRequestLine(request.dump()));
  if (!answer.value("ok", false)) {
    const Json& e = answer["error"];
    *error = e.is_object() ? e.value("message", std::string("failed"))
                           : std::string("failed");
    return Json();
  }
  return answer;
}

// The widest reduce of the kernel: reduced elements per output element.
int64_t ReducedElements(const hlo::Instruction& kernel) {
  std::vector<const hlo::Instruction*> reduces;
  if (kernel.opcode == Opcode::kReduce) reduces.push_back(&kernel);
  for (const hlo::Computation* called : kernel.called_computations) {
    if (kernel.opcode != Opcode::kFusion) break;
    for (const auto& instr : called->instructions()) {
      if (instr->opcode == Opcode::kReduce) reduces.push_back(instr.get());
    }
  }
  int64_t widest = 0;
  for (const hlo::Instruction* r : reduces) {
    const hlo::Shape& in = r->operand(0)->shape;
    if (!in.IsArray()) continue;
    int64_t reduced = 1;
    for (int64_t d : r->dimensions) {
      if (d >= 0 && d < in.rank()) reduced *= in.dims[d];
    }
    widest = std::max(widest, reduced);
  }
  return widest;
}

// The kernels and parameters an instruction reads, through pass-through
// ops.
void CollectInputs(const hlo::Instruction& instr,
                   const std::set<const hlo::Instruction*>& kernels,
                   std::vector<std::string>* out) {
  std::vector<const hlo::Instruction*> stack(instr.operands.begin(),
                                             instr.operands.end());
  std::set<const hlo::Instruction*> seen;
  while (!stack.empty()) {
    const hlo::Instruction* x = stack.back();
    stack.pop_back();
    if (!seen.insert(x).second) continue;
    if (kernels.count(x) || x->opcode == Opcode::kParameter) {
      if (std::find(out->begin(), out->end(), x->name) == out->end()) {
        out->push_back(x->name);
      }
    } else if (IsPassThrough(x->opcode)) {
      stack.insert(stack.end(), x->operands.begin(), x->operands.end());
    }
  }
}

void DeriveKernelNumbers(ReportKernel* k) {
  if (k->cost.is_null()) return;
  const Json& c = k->cost;
  k->time_us = c.value("time_us", 0.0);
  k->bytes = c.value("bytes_read", 0.0) + c.value("bytes_written", 0.0);
  k->flops = c.value("flops", 0.0);
  double launch = c.value("launch_overhead_us", 1.0);
  if (k->time_us < launch) {
    k->bound = "latency";
  } else if (c.value("compute_us", 0.0) > c.value("memory_us", 0.0)) {
    k->bound = "compute";
  } else {
    k->bound = "memory";
  }
}

std::string PercentText(double fraction) {
  std::ostringstream s;
  s.precision(3);
  s << fraction * 100 << "%";
  return s.str();
}

std::string MicrosText(double us) {
  std::ostringstream s;
  s.precision(3);
  s << us << " µs";
  return s.str();
}

// A fusion the loop emitter generates (a dot or a custom call costed as a
// loop is no elementwise kernel).
bool IsLoopKernel(const ReportKernel& k) {
  return k.opcode == Opcode::kFusion && !k.cost.is_null() &&
         k.cost.value("emitter", "") == "loop";
}

void FindIssues(ReportData* data) {
  std::map<std::string, int> users;
  for (const ReportKernel& k : data->kernels) {
    for (const std::string& in : k.inputs) ++users[in];
  }
  std::map<std::string, const ReportKernel*> by_name;
  for (const ReportKernel& k : data->kernels) by_name[k.name] = &k;
  for (const ReportKernel& k : data->kernels) {
    if (k.cost.is_null()) continue;
    std::vector<std::string> uncoalesced;
    for (const Json& op : k.cost.value("operands", Json::array())) {
      if (!op.value("coalesced", true)) {
        uncoalesced.push_back(op.value("name", std::string("?")));
      }
    }
    if (!uncoalesced.empty()) {
      std::string names;
      for (const std::string& n : uncoalesced) {
        names += (names.empty() ? "" : ", ") + n;
      }
      data->findings.push_back(
          {"uncoalesced", k.name,
           k.name + " reads " + names +
               " uncoalesced: a warp's loads touch more sectors than they "
               "use (see the coalescing column); a layout change or a "
               "transpose emitter would fix it",
           k.time_us});
    }
    double active = k.cost.value("active_fraction", 1.0);
    if (active < 0.5 && k.time_us >= 2.0) {
      data->findings.push_back(
          {"low_occupancy", k.name,
           k.name + " keeps only " + PercentText(active) +
               " of the device's cores busy for " + MicrosText(k.time_us) +
               ": too few blocks for the device; more parallelism (a split "
               "reduction, a smaller tile) would use the rest",
           k.time_us * (1 - active)});
    }
    std::string kind = k.cost.value("reduction_kind", "");
    int64_t bound = kind == "column" ? 4096 : 16384;
    if (k.reduced_elements > bound) {
      data->findings.push_back(
          {"long_reduction", k.name,
           k.name + " reduces " + std::to_string(k.reduced_elements) +
               " elements per output in one kernel, past the race-free "
               "bound of " +
               std::to_string(bound) +
               " for its kind; XLA splits such a reduction into two "
               "kernels (a tree reduction) before fusion",
           k.time_us});
    }
    if (k.bound == "latency") {
      data->findings.push_back(
          {"latency", k.name,
           k.name + " runs for " + MicrosText(k.time_us) +
               ", less than its launch overhead: fusing it with a "
               "neighbour saves a launch",
           k.cost.value("launch_overhead_us", 1.0)});
    }
  }
  // Unfused elementwise chains: a loop kernel whose only reader is another
  // loop kernel.
  for (const ReportKernel& consumer : data->kernels) {
    if (!IsLoopKernel(consumer)) continue;
    for (const std::string& in : consumer.inputs) {
      auto it = by_name.find(in);
      if (it == by_name.end() || !IsLoopKernel(*it->second)) continue;
      if (users[in] != 1) continue;
      const ReportKernel& producer = *it->second;
      double written = producer.cost.value("bytes_written", 0.0);
      data->findings.push_back(
          {"unfused_chain", consumer.name,
           producer.name + " and " + consumer.name +
               " are separate loop kernels in a chain: " +
               ReportBytes(written) +
               " go to DRAM and back, and one launch more (fusion_"
               "decision says whether fusing pays)",
           producer.time_us});
    }
  }
  std::stable_sort(data->findings.begin(), data->findings.end(),
                   [](const ReportFinding& a, const ReportFinding& b) {
                     return a.time_us > b.time_us;
                   });
}

// Fills `data` from the module text; false after printing the error.
bool GatherReport(const std::string& text, ReportData* data) {
  auto parsed = hlo::ParseHloModule(text);
  if (!parsed.ok()) {
    std::cerr << CompilerStyleError(data->source, parsed.error()) << "\n";
    return false;
  }
  bool has_fusions = false;
  for (const auto& instr : (*parsed)->entry()->instructions()) {
    has_fusions |= instr->opcode == Opcode::kFusion;
  }
  std::string fused_text = text;
  std::unique_ptr<hlo::Module> module = std::move(*parsed);
  if (!has_fusions) {
    std::string error;
    Json plan = AskProtocol({{"op", "fusion_plan"},
                             {"hlo", text},
                             {"device", data->device_name},
                             {"model", data->model}},
                            &error);
    if (plan.is_null()) {
      std::cerr << "ixa report: fusion_plan failed: " << error << "\n";
      return false;
    }
    fused_text = plan["hlo"].get<std::string>();
    for (const char* field : {"hlo", "decisions", "id", "ok"}) {
      plan.erase(field);
    }
    data->plan = plan;
    data->planned = true;
    auto fused = hlo::ParseHloModule(fused_text);
    if (!fused.ok()) {
      std::cerr << "ixa report: internal error: the fused module does not "
                   "read back: "
                << fused.error().message << "\n";
      return false;
    }
    module = std::move(*fused);
  }
  const hlo::Computation& entry = *module->entry();
  std::set<const hlo::Instruction*> kernel_set;
  for (const hlo::Instruction* instr : entry.post_order()) {
    if (instr->opcode == Opcode::kParameter) {
      data->parameters.push_back(instr->name);
    } else if (instr->opcode != Opcode::kConstant &&
               !IsPassThrough(instr->opcode)) {
      kernel_set.insert(instr);
    }
  }
  std::map<std::string, int> depth;
  for (const hlo::Instruction* instr : entry.post_order()) {
    if (!kernel_set.count(instr)) continue;
    ReportKernel k;
    k.name = instr->name;
    k.opcode = instr->opcode;
    k.async_wrapped = instr->async_wrapped;
    k.fusion_kind =
        instr->opcode == Opcode::kFusion ? instr->Attribute("kind") : "";
    CollectInputs(*instr, kernel_set, &k.inputs);
    for (const std::string& in : k.inputs) {
      k.depth = std::max(k.depth, depth[in] + 1);
    }
    depth[k.name] = k.depth;
    k.reduced_elements = ReducedElements(*instr);
    if (IsHostControlFlow(instr->opcode)) {
      k.not_costed =
          "host control flow: its computations' kernels are not "
          "costed one by one";
    } else {
      Json request = {{"op", "fusion_cost"},
                      {"hlo", fused_text},
                      {"device", data->device_name},
                      {"model", data->model}};
      if (instr->opcode == Opcode::kFusion) {
        request["fusion"] = instr->name;
      } else {
        request["instructions"] = Json::array({instr->name});
      }
      k.cost = AskProtocol(request, &k.not_costed);
      if (!k.cost.is_null()) {
        k.cost.erase("id");
        k.cost.erase("ok");
      }
    }
    DeriveKernelNumbers(&k);
    data->total_time_us +=
        k.time_us +
        (k.cost.is_null() ? 0.0 : k.cost.value("launch_overhead_us", 0.0));
    data->total_bytes += k.bytes;
    data->kernels.push_back(std::move(k));
  }
  FindIssues(data);
  return true;
}

}  // namespace

int RunReportCommand(int argc, char** argv) {
  std::optional<CommandLine> line =
      ReadCommandLine("report", argc, argv, kReportFlags, kReportUsage);
  if (!line) return kExitUsage;
  if (line->help) {
    std::cout << kReportUsage;
    return kExitOk;
  }
  if (line->operands.size() != 1) {
    return UsageError("report",
                      line->operands.empty() ? "expected FILE.hlo"
                                             : "expected one FILE, got '" +
                                                   line->operands[1] + "' too",
                      kReportUsage);
  }
  if (line->Has("--devices")) {
    int exit_code = kExitOk;
    if (!LoadDevicesFlag("report", line->Get("--devices"), &exit_code)) {
      return exit_code;
    }
  }
  ReportData data;
  data.source = line->operands[0] == "-" ? "<stdin>" : line->operands[0];
  data.device_name = line->Has("--device") ? line->Get("--device") : "h100";
  data.model = line->Has("--model") ? line->Get("--model") : "ixa";
  if (data.model != "ixa" && data.model != "xla") {
    return UsageError("report",
                      "--model must be ixa or xla, got '" + data.model + "'",
                      kReportUsage);
  }
  std::optional<hw::Device> device = FindKnownDevice(data.device_name);
  if (!device) {
    return UsageError(
        "report",
        "unknown device '" + data.device_name + "' (ixa devices lists them)",
        kReportUsage);
  }
  data.device = *device;
  std::string text, reason;
  if (!ReadInput(line->operands[0], &text, &reason)) {
    std::cerr << "ixa report: cannot read '" << line->operands[0]
              << "': " << reason << "\n";
    return kExitNoInput;
  }
  if (!GatherReport(text, &data)) return kExitSomeFailed;
  return WriteOutput("report", line->Get("--output"), RenderReportHtml(data))
             ? kExitOk
             : kExitCannotCreate;
}

}  // namespace ixa::cli
