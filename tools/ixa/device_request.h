// Reading the `device` field of a request (docs/protocol.md "Devices"): a
// device's name or an object with the fields of hw/device_fields.h,
// optionally starting from a known device ("base"); a user's table of
// devices (`--devices FILE`); and the JSON form of a device (`ixa devices
// --json`), which reads back as the same device.
#ifndef IXA_TOOLS_IXA_DEVICE_REQUEST_H_
#define IXA_TOOLS_IXA_DEVICE_REQUEST_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hw/device.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

// The request's device (default h100): a known name (a user's device or a
// built-in one), or an object. An object starts from its "base" (a known
// device's name) or, without one, from the defaults of hw::Device (a GPU
// launch model of 1024 threads per block, 2048 threads per core, 48 KiB of
// shared memory per block, no cores), and sets each field it names. Unknown
// names are invalid_argument; unknown or ill-typed fields bad_request;
// values out of their range invalid_argument.
Result<hw::Device> GetDevice(const Json& req);

// A device object (the `device` field's object form) as a device.
Result<hw::Device> DeviceFromJson(const Json& object);

// Every field of the description.
Json DeviceJson(const hw::Device& d);

// A user's device table: a JSON list of device objects, or one object per
// line (what `ixa devices --json` prints). Each needs a "name" that is not
// a built-in device's nor an earlier entry's; "base" may name either.
// Errors name the entry.
Result<std::vector<hw::Device>> ReadDeviceTable(std::string_view text);

// The user's devices, set once before any request is answered (`--devices
// FILE` of ixa query, emit and devices).
void SetUserDevices(std::vector<hw::Device> devices);
std::span<const hw::Device> UserDevices();

// A user's device, else a built-in one.
std::optional<hw::Device> FindKnownDevice(std::string_view name);

// Reads `--devices FILE` of `command` and installs the table; false after
// printing the error ("FILE:LINE:COL: error: ..." or the system's reason),
// with the exit code in *exit_code.
bool LoadDevicesFlag(std::string_view command, const std::string& path,
                     int* exit_code);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_DEVICE_REQUEST_H_
