#include "hw/device_fields.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "hw/op_profiles.h"

namespace ixa::hw {
namespace {

using FieldType = DeviceFieldType;
constexpr double kMaxBytes = 1099511627776.0;  // 2^40: 1 TiB
constexpr double kMaxCount = 1048576.0;        // 2^20

DeviceFieldDoc StringField(std::string_view name, std::string Device::*member,
                           std::string_view meaning) {
  DeviceFieldDoc f{name, FieldType::kString, "", meaning};
  f.string_member = member;
  return f;
}

DeviceFieldDoc IntField(std::string_view name, int64_t Device::*member,
                        std::string_view unit, double min, double max,
                        std::string_view meaning) {
  DeviceFieldDoc f{name, FieldType::kInt, unit, meaning, min, max};
  f.int_member = member;
  return f;
}

DeviceFieldDoc NumberField(std::string_view name, double Device::*member,
                           std::string_view unit, double max,
                           std::string_view meaning) {
  DeviceFieldDoc f{name, FieldType::kNumber, unit, meaning, 0, max};
  f.number_member = member;
  return f;
}

std::vector<DeviceFieldDoc> MakeDeviceFieldDocs() {
  DeviceFieldDoc block_dims{"block_dim_limit",
                            FieldType::kIntTriple,
                            "blocks",
                            "the most blocks of a grid in x, y and z (CUDA: "
                            "2^31 - 1, 65535, 65535); a launch past them is "
                            "refused (limit_exceeded); 0: no limit",
                            0,
                            2147483647.0};
  block_dims.triple_member = &Device::block_dim_limit;
  DeviceFieldDoc capability{
      "compute_capability", FieldType::kCapability, "",
      "the CUDA compute capability (\"9.0\"): picks the op-profile table "
      "and, with toolkit_version, the Blackwell unroll rule; \"0.0\" for none"};
  DeviceFieldDoc gemm_table{
      "gemm_table",
      FieldType::kGemmTable,
      "TFLOP/s",
      "measured GEMM throughput per type pair (bf16, f16, tf32, tf32x3, f32, "
      "fp8, f64, s8): rows [batch, m, n, k, tflops] of batch x [m, k] . "
      "[k, n]; the GEMM model interpolates it in place of its efficiency "
      "estimate (tools/calibrate_gemm.sh writes one); {}: none",
      1,
      1e7};
  gemm_table.gemm_table_member = &Device::gemm_table;
  return {
      StringField("name", &Device::name,
                  "the name responses report (not empty)"),
      StringField("vendor", &Device::vendor,
                  "nvidia, amd, google, huawei, ... (informative)"),
      StringField("notes", &Device::notes,
                  "what the description is and what is approximate"),
      IntField("warp_size", &Device::warp_size, "threads", 1, 4096,
               "threads per warp (wavefront, vector lanes)"),
      IntField("sector_bytes", &Device::sector_bytes, "bytes", 1, kMaxCount,
               "the global-memory transaction granularity"),
      IntField("line_bytes", &Device::line_bytes, "bytes", 1, kMaxCount,
               "the cache line"),
      IntField("smem_banks", &Device::smem_banks, "banks", 0, 4096,
               "shared-memory banks; 0: no banked scratchpad modelled"),
      IntField("bank_bytes", &Device::bank_bytes, "bytes", 0, 1024,
               "the width of a shared-memory bank"),
      IntField("smem_bytes_per_sm", &Device::smem_bytes_per_sm, "bytes", 0,
               kMaxBytes, "shared memory per core (SM, CU)"),
      NumberField("dram_gbps", &Device::dram_gbps, "GB/s", 1e7,
                  "DRAM bandwidth (10^9 bytes per second)"),
      NumberField("peak_tflops_fp32", &Device::peak_tflops_fp32, "TFLOP/s", 1e7,
                  "peak f32 throughput"),
      NumberField("peak_tflops_bf16", &Device::peak_tflops_bf16, "TFLOP/s", 1e7,
                  "peak bf16 throughput of the dense matrix units"),
      IntField("sm_count", &Device::sm_count, "cores", 0, kMaxCount,
               "cores: SMs, CUs, TensorCores, AI cores; 0 with no GPU launch "
               "model"),
      IntField("threads_per_block_limit", &Device::threads_per_block_limit,
               "threads", 0, kMaxCount,
               "the most threads of a block; 0: no GPU launch model"),
      IntField("threads_per_core", &Device::threads_per_core, "threads", 0,
               16777216.0, "resident threads per core (XLA's limit)"),
      block_dims,
      IntField("shared_memory_per_block", &Device::shared_memory_per_block,
               "bytes", 0, kMaxBytes,
               "shared memory a block may use without opting in"),
      IntField("shared_memory_per_block_optin",
               &Device::shared_memory_per_block_optin, "bytes", 0, kMaxBytes,
               "shared memory a block may use after opting in; 0: unknown"),
      NumberField("clock_ghz", &Device::clock_ghz, "GHz", 1000,
                  "the core clock"),
      IntField("l2_bytes", &Device::l2_bytes, "bytes", 0, 1125899906842624.0,
               "the L2 cache"),
      IntField("fpus_per_core", &Device::fpus_per_core, "FPUs", 0, kMaxCount,
               "f32 units per core (XLA's flop rate: cores x FPUs x clock)"),
      capability,
      StringField("toolkit_version", &Device::toolkit_version,
                  "the CUDA toolkit the kernels are compiled with, e.g. "
                  "\"12.8.0\"; empty: unknown"),
      StringField("op_profile", &Device::op_profile,
                  "the op-profile table of XLA's cost model (sm_80, sm_86, "
                  "sm_90, sm_100); empty: from the compute capability"),
      IntField("l1_bytes_per_core", &Device::l1_bytes_per_core, "bytes", 0,
               kMaxBytes, "the L1 cache XLA's cost model assumes per core"),
      IntField("dram_to_l2_transaction_bytes",
               &Device::dram_to_l2_transaction_bytes, "bytes", 1, kMaxCount,
               "the DRAM-to-L2 transaction XLA's cost model assumes"),
      IntField("memory_transactions_per_clock",
               &Device::memory_transactions_per_clock, "bytes per clock", 0,
               kMaxCount,
               "the bytes a block moves per clock in XLA's cost model"),
      NumberField("tensor_tflops_tf32", &Device::tensor_tflops_tf32, "TFLOP/s",
                  1e7,
                  "dense TF32 matrix-unit peak (f32 dots at XLA's default "
                  "precision); 0: none, f32 dots on the CUDA cores"),
      NumberField("tensor_tflops_fp8", &Device::tensor_tflops_fp8, "TFLOP/s",
                  1e7,
                  "dense fp8 (e4m3, e5m2) matrix-unit peak; 0: none, fp8 "
                  "dots at the bf16 rate"),
      NumberField("tensor_tflops_int8", &Device::tensor_tflops_int8, "TOP/s",
                  1e7, "dense int8 matrix-unit peak; 0: none"),
      NumberField("tensor_tflops_fp64", &Device::tensor_tflops_fp64, "TFLOP/s",
                  1e7,
                  "dense FP64 matrix-unit peak; 0: none, f64 dots on the "
                  "CUDA cores"),
      NumberField("gemm_efficiency", &Device::gemm_efficiency, "", 1,
                  "the share of the matrix peak a large GEMM's main loop "
                  "sustains (the clock held under load); 0: 0.85"),
      NumberField("gemm_latency_us", &Device::gemm_latency_us, "us", 1e6,
                  "the fixed time of one GEMM kernel (ramp-up, first loads, "
                  "drain); 0: 3"),
      gemm_table,
  };
}

std::string FormatBound(double v, bool integer) {
  char buf[40];
  if (integer) {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buf, sizeof(buf), "%g", v);
  }
  return buf;
}

Error OutOfRange(std::string_view device, const DeviceFieldDoc& f,
                 const std::string& value) {
  std::string unit = f.unit.empty() ? "" : " " + std::string(f.unit);
  return Error::Invalid("device " + QuoteForMessage(device) + ": field '" +
                        std::string(f.name) + "' is " + value + ", outside " +
                        f.RangeText() + unit);
}

}  // namespace

std::string_view DeviceFieldTypeName(DeviceFieldType type) {
  switch (type) {
    case FieldType::kString:
      return "string";
    case FieldType::kInt:
      return "int";
    case FieldType::kNumber:
      return "number";
    case FieldType::kIntTriple:
      return "list [x, y, z] of ints";
    case FieldType::kCapability:
      return "\"major.minor\"";
    case FieldType::kGemmTable:
      return "object: type pair -> list of [batch, m, n, k, tflops]";
  }
  return "string";
}

std::span<const std::string_view> GemmTypeKeys() {
  static constexpr std::string_view kKeys[] = {"bf16", "f16", "tf32", "tf32x3",
                                               "f32",  "fp8", "f64",  "s8"};
  return kKeys;
}

std::string DeviceFieldDoc::RangeText() const {
  if (type == FieldType::kString || type == FieldType::kCapability ||
      type == FieldType::kGemmTable)
    return std::string();
  const bool integer = type != FieldType::kNumber;
  return "[" + FormatBound(min, integer) + ", " + FormatBound(max, integer) +
         "]";
}

std::span<const DeviceFieldDoc> DeviceFieldDocs() {
  static const std::vector<DeviceFieldDoc> docs = MakeDeviceFieldDocs();
  return docs;
}

const DeviceFieldDoc* FindDeviceField(std::string_view name) {
  for (const DeviceFieldDoc& f : DeviceFieldDocs()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Result<Device> ValidateDevice(Device device) {
  auto fail = [&](const DeviceFieldDoc& f, const std::string& value) {
    return OutOfRange(device.name, f, value);
  };
  for (const DeviceFieldDoc& f : DeviceFieldDocs()) {
    switch (f.type) {
      case FieldType::kString:
        break;
      case FieldType::kInt: {
        const int64_t v = device.*f.int_member;
        if (static_cast<double>(v) < f.min || static_cast<double>(v) > f.max)
          return fail(f, std::to_string(v));
        break;
      }
      case FieldType::kNumber: {
        const double v = device.*f.number_member;
        if (!std::isfinite(v) || v < f.min || v > f.max)
          return fail(f, FormatBound(v, false));
        break;
      }
      case FieldType::kIntTriple:
        for (int64_t v : device.*f.triple_member) {
          if (static_cast<double>(v) < f.min ||
              static_cast<double>(v) > f.max) {
            return fail(
                f, "[" + std::to_string((device.*f.triple_member)[0]) + ", " +
                       std::to_string((device.*f.triple_member)[1]) + ", " +
                       std::to_string((device.*f.triple_member)[2]) + "]");
          }
        }
        break;
      case FieldType::kGemmTable:
        for (const GemmTableEntry& e : device.*f.gemm_table_member) {
          bool known = false;
          for (std::string_view key : GemmTypeKeys()) known |= key == e.types;
          if (!known) {
            return Error::Invalid("device " + QuoteForMessage(device.name) +
                                  ": field 'gemm_table' has the type pair " +
                                  QuoteForMessage(e.types) +
                                  "; known: bf16, f16, tf32, tf32x3, f32, "
                                  "fp8, f64, s8");
          }
          const int64_t dims[] = {e.batch, e.m, e.n, e.k};
          bool dims_ok = true;
          for (int64_t v : dims) dims_ok &= v >= 1 && v <= (int64_t{1} << 31);
          if (!dims_ok || !std::isfinite(e.tflops) || e.tflops <= 0 ||
              e.tflops > f.max) {
            return Error::Invalid(
                "device " + QuoteForMessage(device.name) +
                ": field 'gemm_table' has the " + e.types + " row [" +
                std::to_string(e.batch) + ", " + std::to_string(e.m) + ", " +
                std::to_string(e.n) + ", " + std::to_string(e.k) + ", " +
                FormatBound(e.tflops, false) +
                "]: dims must be in [1, 2147483648] and tflops in (0, 1e+07]");
          }
        }
        break;
      case FieldType::kCapability:
        if (device.compute_capability_major < 0 ||
            device.compute_capability_major > 999 ||
            device.compute_capability_minor < 0 ||
            device.compute_capability_minor > 999) {
          return Error::Invalid(
              "device field 'compute_capability' must be \"major.minor\" "
              "with parts in [0, 999]");
        }
        break;
    }
  }
  if (device.name.empty()) {
    return Error::Invalid("device field 'name' must not be empty");
  }
  if (!device.op_profile.empty()) {
    bool known = false;
    std::string keys;
    for (std::string_view key : OpProfileKeys()) {
      known = known || key == device.op_profile;
      keys += (keys.empty() ? "" : ", ") + std::string(key);
    }
    if (!known) {
      return Error::Invalid("device field 'op_profile' is " +
                            QuoteForMessage(device.op_profile) +
                            ", not a table: " + keys);
    }
  }
  return device;
}

}  // namespace ixa::hw
