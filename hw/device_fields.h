// The fields of a device description (hw::Device) as data: each field's
// name in the query protocol, its type, unit, allowed values and meaning,
// and where it lives in hw::Device. The protocol reads and writes device
// objects through this table (a built-in device written as JSON reads back
// as the same device), docs/protocol.md "Devices" prints it, and
// ValidateDevice checks a description against it.
#ifndef IXA_HW_DEVICE_FIELDS_H_
#define IXA_HW_DEVICE_FIELDS_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "hw/device.h"

namespace ixa::hw {

enum class DeviceFieldType {
  kString,
  kInt,
  kNumber,      // a finite double
  kIntTriple,   // [x, y, z]
  kCapability,  // "major.minor"
  kGemmTable,   // {"bf16": [[batch, m, n, k, tflops], ...], ...}
};

// "string", "int", "number", "list [x, y, z] of ints", "\"major.minor\"",
// "object: type pair -> list of [batch, m, n, k, tflops]".
std::string_view DeviceFieldTypeName(DeviceFieldType type);

struct DeviceFieldDoc {
  std::string_view name;
  DeviceFieldType type;
  std::string_view unit;  // "bytes", "GB/s", ...; empty: a count or a name
  std::string_view meaning;
  // kInt, kNumber, kIntTriple (each item): the allowed values, inclusive.
  double min = 0, max = 0;
  // The member it sets: one of these, by type (kCapability sets the two
  // compute_capability members).
  std::string Device::*string_member = nullptr;
  int64_t Device::*int_member = nullptr;
  double Device::*number_member = nullptr;
  std::array<int64_t, 3> Device::*triple_member = nullptr;
  std::vector<GemmTableEntry> Device::*gemm_table_member = nullptr;

  // "[0, 1048576]" (integers) or "[0, 1e+09]"; empty for strings.
  std::string RangeText() const;
};

// Every field, in the order `ixa devices --json` documents them.
std::span<const DeviceFieldDoc> DeviceFieldDocs();
const DeviceFieldDoc* FindDeviceField(std::string_view name);

// The type-pair keys of a gemm_table: "bf16", "f16", "tf32", "tf32x3",
// "f32", "fp8", "f64", "s8" (analysis/uses/gemm_cost.h).
std::span<const std::string_view> GemmTypeKeys();

// Every field within its range, the name not empty and op_profile empty or
// a known table, every gemm_table entry of a known type pair with
// positive dims and a positive finite throughput (invalid_argument naming
// the field, its value and the range otherwise). Every built-in device passes.
Result<Device> ValidateDevice(Device device);

}  // namespace ixa::hw

#endif  // IXA_HW_DEVICE_FIELDS_H_
