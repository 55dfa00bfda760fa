#include "tools/ixa/device_request.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "hw/op_profiles.h"

namespace ixa::cli {

Result<hw::Device> GetDevice(const Json& req) {
  if (!Has(req, "device")) return *hw::FindDevice("h100");
  const Json& j = req.at("device");
  if (j.is_string()) {
    auto d = hw::FindDevice(j.get<std::string>());
    if (!d) {
      return Error::Invalid("unknown device '" + j.get<std::string>() +
                            "' (see `ixa devices`)");
    }
    return *d;
  }
  if (!j.is_object()) {
    return Error::BadRequest("field 'device' must be a name or an object");
  }
  // A misspelled field would silently keep the default: refuse it.
  static const char* const kFields[] = {"name",
                                        "vendor",
                                        "warp_size",
                                        "sector_bytes",
                                        "line_bytes",
                                        "smem_banks",
                                        "bank_bytes",
                                        "sm_count",
                                        "smem_bytes_per_sm",
                                        "threads_per_block_limit",
                                        "threads_per_core",
                                        "shared_memory_per_block",
                                        "shared_memory_per_block_optin",
                                        "l2_bytes",
                                        "fpus_per_core",
                                        "block_dim_limit",
                                        "dram_gbps",
                                        "peak_tflops_fp32",
                                        "peak_tflops_bf16",
                                        "clock_ghz",
                                        "compute_capability",
                                        "toolkit_version",
                                        "op_profile",
                                        "l1_bytes_per_core",
                                        "dram_to_l2_transaction_bytes",
                                        "memory_transactions_per_clock"};
  for (const auto& item : j.items()) {
    if (std::find(std::begin(kFields), std::end(kFields), item.key()) ==
        std::end(kFields)) {
      std::string known;
      for (const char* f : kFields)
        known += (known.empty() ? "" : ", ") + std::string(f);
      return Error::BadRequest("unknown device field '" + item.key() +
                               "'; a device object takes " + known);
    }
  }
  hw::Device d;
  d.name = "custom";
  if (Has(j, "name")) {
    IXA_ASSIGN_OR_RETURN(d.name, GetString(j, "name"));
  }
  if (Has(j, "vendor")) {
    IXA_ASSIGN_OR_RETURN(d.vendor, GetString(j, "vendor"));
  }
  for (auto [field, slot] :
       {std::pair{"warp_size", &d.warp_size},
        {"sector_bytes", &d.sector_bytes},
        {"line_bytes", &d.line_bytes},
        {"smem_banks", &d.smem_banks},
        {"bank_bytes", &d.bank_bytes},
        {"sm_count", &d.sm_count},
        {"smem_bytes_per_sm", &d.smem_bytes_per_sm},
        {"threads_per_block_limit", &d.threads_per_block_limit},
        {"threads_per_core", &d.threads_per_core},
        {"shared_memory_per_block", &d.shared_memory_per_block},
        {"shared_memory_per_block_optin", &d.shared_memory_per_block_optin},
        {"l2_bytes", &d.l2_bytes},
        {"fpus_per_core", &d.fpus_per_core},
        {"l1_bytes_per_core", &d.l1_bytes_per_core},
        {"dram_to_l2_transaction_bytes", &d.dram_to_l2_transaction_bytes},
        {"memory_transactions_per_clock", &d.memory_transactions_per_clock}}) {
    if (Has(j, field)) {
      IXA_ASSIGN_OR_RETURN(*slot, GetInt(j, field));
    }
  }
  if (Has(j, "compute_capability")) {
    // "9.0": major.minor, as XLA's device descriptions write it.
    IXA_ASSIGN_OR_RETURN(std::string cc, GetString(j, "compute_capability"));
    const size_t dot = cc.find('.');
    auto digits = [](std::string_view t) {
      return !t.empty() && t.size() <= 3 &&
             std::all_of(t.begin(), t.end(),
                         [](char c) { return c >= '0' && c <= '9'; });
    };
    if (dot == std::string::npos || !digits(cc.substr(0, dot)) ||
        !digits(cc.substr(dot + 1))) {
      return Error::BadRequest(
          "device field 'compute_capability' must be \"major.minor\", e.g. "
          "\"9.0\"");
    }
    d.compute_capability_major = std::stoi(cc.substr(0, dot));
    d.compute_capability_minor = std::stoi(cc.substr(dot + 1));
  }
  for (auto [field, slot] : {std::pair{"toolkit_version", &d.toolkit_version},
                             {"op_profile", &d.op_profile}}) {
    if (Has(j, field)) {
      IXA_ASSIGN_OR_RETURN(*slot, GetString(j, field));
    }
  }
  if (Has(j, "block_dim_limit")) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> limits,
                         GetIntList(j, "block_dim_limit"));
    if (limits.size() != 3) {
      return Error::BadRequest(
          "device field 'block_dim_limit' must be a list [x, y, z]");
    }
    d.block_dim_limit = {limits[0], limits[1], limits[2]};
  }
  for (auto [field, slot] : {std::pair{"dram_gbps", &d.dram_gbps},
                             {"peak_tflops_fp32", &d.peak_tflops_fp32},
                             {"peak_tflops_bf16", &d.peak_tflops_bf16},
                             {"clock_ghz", &d.clock_ghz}}) {
    if (!Has(j, field)) continue;
    if (!j.at(field).is_number()) {
      return Error::BadRequest(std::string("device field '") + field +
                               "' must be a number");
    }
    *slot = j.at(field).get<double>();
  }
  if (d.warp_size < 1 || d.warp_size > 4096 || d.sector_bytes < 1 ||
      d.line_bytes < 1 || d.smem_banks < 0 || d.bank_bytes < 0 ||
      d.sm_count < 0 || d.dram_gbps < 0 || d.peak_tflops_fp32 < 0 ||
      d.peak_tflops_bf16 < 0 || d.threads_per_block_limit < 0 ||
      d.threads_per_core < 0 || d.shared_memory_per_block < 0 ||
      d.shared_memory_per_block_optin < 0 || d.l2_bytes < 0 ||
      d.fpus_per_core < 0 || d.clock_ghz < 0 || d.block_dim_limit[0] < 0 ||
      d.block_dim_limit[1] < 0 || d.block_dim_limit[2] < 0 ||
      d.l1_bytes_per_core < 0 || d.dram_to_l2_transaction_bytes < 1 ||
      d.memory_transactions_per_clock < 0) {
    return Error::Invalid(
        "device: warp_size must be in [1, 4096] and sizes positive");
  }
  if (d.sm_count > (int64_t{1} << 20) ||
      d.threads_per_block_limit > (int64_t{1} << 20) ||
      d.threads_per_core > (int64_t{1} << 24)) {
    return Error::Invalid(
        "device: sm_count, threads_per_block_limit or threads_per_core is "
        "implausibly large");
  }
  return d;
}

Json DeviceJson(const hw::Device& d) {
  return Json{
      {"name", d.name},
      {"vendor", d.vendor},
      {"warp_size", d.warp_size},
      {"sector_bytes", d.sector_bytes},
      {"line_bytes", d.line_bytes},
      {"smem_banks", d.smem_banks},
      {"bank_bytes", d.bank_bytes},
      {"smem_bytes_per_sm", d.smem_bytes_per_sm},
      {"dram_gbps", d.dram_gbps},
      {"peak_tflops_fp32", d.peak_tflops_fp32},
      {"peak_tflops_bf16", d.peak_tflops_bf16},
      {"sm_count", d.sm_count},
      {"threads_per_block_limit", d.threads_per_block_limit},
      {"threads_per_core", d.threads_per_core},
      {"block_dim_limit", d.block_dim_limit},
      {"shared_memory_per_block", d.shared_memory_per_block},
      {"shared_memory_per_block_optin", d.shared_memory_per_block_optin},
      {"clock_ghz", d.clock_ghz},
      {"l2_bytes", d.l2_bytes},
      {"fpus_per_core", d.fpus_per_core},
      {"compute_capability", std::to_string(d.compute_capability_major) + "." +
                                 std::to_string(d.compute_capability_minor)},
      {"toolkit_version", d.toolkit_version},
      {"op_profile", hw::OpProfileKeyFor(d)},
      {"l1_bytes_per_core", d.l1_bytes_per_core},
      {"dram_to_l2_transaction_bytes", d.dram_to_l2_transaction_bytes},
      {"memory_transactions_per_clock", d.memory_transactions_per_clock},
      {"notes", d.notes}};
}

}  // namespace ixa::cli
