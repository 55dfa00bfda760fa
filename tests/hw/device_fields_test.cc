// The table of device fields (hw/device_fields.h): every built-in device
// is valid, every value out of its range is refused naming the field, and
// the table reaches every member of hw::Device.
#include "hw/device_fields.h"

#include <catch2/catch.hpp>
#include <limits>
#include <set>

namespace ixa::hw {
namespace IXA_UNITY_ID {

TEST_CASE("device fields: every built-in device is valid",
          "[hw][device_fields]") {
  for (const Device& d : BuiltinDevices()) {
    INFO(d.name);
    auto checked = ValidateDevice(d);
    REQUIRE(checked.ok());
    CHECK(checked->name == d.name);
  }
}

TEST_CASE("device fields: names are unique and documented",
          "[hw][device_fields]") {
  std::set<std::string_view> names;
  for (const DeviceFieldDoc& f : DeviceFieldDocs()) {
    INFO(f.name);
    CHECK(names.insert(f.name).second);
    CHECK(!f.meaning.empty());
    CHECK(FindDeviceField(f.name) == &f);
    const bool numeric = f.type == DeviceFieldType::kInt ||
                         f.type == DeviceFieldType::kNumber ||
                         f.type == DeviceFieldType::kIntTriple;
    CHECK(numeric == !f.RangeText().empty());
    if (numeric) CHECK(f.min <= f.max);
  }
  CHECK(FindDeviceField("nonsense") == nullptr);
  // Each member of hw::Device has its field (a new member needs one, or
  // the protocol can neither set nor print it).
  for (const char* name : {"name",
                           "vendor",
                           "notes",
                           "warp_size",
                           "sector_bytes",
                           "line_bytes",
                           "smem_banks",
                           "bank_bytes",
                           "smem_bytes_per_sm",
                           "dram_gbps",
                           "peak_tflops_fp32",
                           "peak_tflops_bf16",
                           "sm_count",
                           "threads_per_block_limit",
                           "threads_per_core",
                           "block_dim_limit",
                           "shared_memory_per_block",
                           "shared_memory_per_block_optin",
                           "clock_ghz",
                           "l2_bytes",
                           "fpus_per_core",
                           "compute_capability",
                           "toolkit_version",
                           "op_profile",
                           "l1_bytes_per_core",
                           "dram_to_l2_transaction_bytes",
                           "memory_transactions_per_clock",
                           "tensor_tflops_tf32",
                           "tensor_tflops_fp8",
                           "tensor_tflops_int8",
                           "tensor_tflops_fp64",
                           "gemm_efficiency",
                           "gemm_latency_us",
                           "gemm_table"}) {
    INFO(name);
    CHECK(FindDeviceField(name) != nullptr);
  }
  CHECK(DeviceFieldDocs().size() == 34);
}

TEST_CASE("device fields: values out of range are refused naming the field",
          "[hw][device_fields]") {
  const Device h100 = *FindDevice("h100");
  auto refused = [&](auto change, const std::string& field) {
    Device d = h100;
    change(d);
    auto checked = ValidateDevice(d);
    INFO(field);
    REQUIRE(!checked.ok());
    CHECK(checked.error().code == ErrorCode::kInvalidArgument);
    CHECK(checked.error().message.find("'" + field + "'") != std::string::npos);
  };
  refused([](Device& d) { d.warp_size = 0; }, "warp_size");
  refused([](Device& d) { d.warp_size = 5000; }, "warp_size");
  refused([](Device& d) { d.sm_count = -1; }, "sm_count");
  refused([](Device& d) { d.dram_gbps = -2; }, "dram_gbps");
  refused(
      [](Device& d) { d.dram_gbps = std::numeric_limits<double>::infinity(); },
      "dram_gbps");
  refused([](Device& d) { d.clock_ghz = std::nan(""); }, "clock_ghz");
  refused([](Device& d) { d.block_dim_limit = {1, -1, 1}; }, "block_dim_limit");
  refused([](Device& d) { d.block_dim_limit[0] = int64_t{1} << 32; },
          "block_dim_limit");
  refused([](Device& d) { d.dram_to_l2_transaction_bytes = 0; },
          "dram_to_l2_transaction_bytes");
  refused([](Device& d) { d.op_profile = "sm_12345"; }, "op_profile");
  refused([](Device& d) { d.compute_capability_major = -1; },
          "compute_capability");
  refused([](Device& d) { d.name.clear(); }, "name");
  refused([](Device& d) { d.gemm_efficiency = 1.5; }, "gemm_efficiency");
  refused(
      [](Device& d) {
        d.gemm_table = {{"bf17", 1, 2, 3, 4, 5}};
      },
      "gemm_table");
  refused(
      [](Device& d) {
        d.gemm_table = {{"bf16", 1, 0, 3, 4, 5}};
      },
      "gemm_table");
  refused(
      [](Device& d) {
        d.gemm_table = {{"bf16", 1, 2, 3, 4, -5}};
      },
      "gemm_table");
  refused(
      [](Device& d) {
        d.gemm_table = {
            {"fp8", 1, 2, 3, 4, std::numeric_limits<double>::quiet_NaN()}};
      },
      "gemm_table");
  {
    // Every key of the table is a type pair the GEMM model names.
    Device ok = h100;
    for (std::string_view key : GemmTypeKeys()) {
      ok.gemm_table.push_back({std::string(key), 4, 256, 512, 1024, 100});
    }
    CHECK(ValidateDevice(ok).ok());
  }
  // The message gives the range and unit.
  Device d = h100;
  d.dram_gbps = -2;
  auto checked = ValidateDevice(d);
  REQUIRE(!checked.ok());
  CHECK(checked.error().message.find("[0, 1e+07] GB/s") != std::string::npos);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::hw
