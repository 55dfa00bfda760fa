#include "tools/ixa/device_request.h"

namespace ixa::cli {

// `device`: a built-in name or an object of Device fields (default h100).
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
  hw::Device d;
  d.name = "custom";
  if (Has(j, "name")) {
    IXA_ASSIGN_OR_RETURN(d.name, GetString(j, "name"));
  }
  if (Has(j, "vendor")) {
    IXA_ASSIGN_OR_RETURN(d.vendor, GetString(j, "vendor"));
  }
  for (auto [field, slot] : {std::pair{"warp_size", &d.warp_size},
                             {"sector_bytes", &d.sector_bytes},
                             {"line_bytes", &d.line_bytes},
                             {"smem_banks", &d.smem_banks},
                             {"bank_bytes", &d.bank_bytes},
                             {"sm_count", &d.sm_count},
                             {"smem_bytes_per_sm", &d.smem_bytes_per_sm}}) {
    if (Has(j, field)) {
      IXA_ASSIGN_OR_RETURN(*slot, GetInt(j, field));
    }
  }
  for (auto [field, slot] : {std::pair{"dram_gbps", &d.dram_gbps},
                             {"peak_tflops_fp32", &d.peak_tflops_fp32},
                             {"peak_tflops_bf16", &d.peak_tflops_bf16}}) {
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
      d.peak_tflops_bf16 < 0) {
    return Error::Invalid(
        "device: warp_size must be in [1, 4096] and sizes positive");
  }
  return d;
}

}  // namespace ixa::cli
