// Reading the `device` field of a request (docs/protocol.md, field `device`): a
// built-in name or an object with the fields the models need; and the JSON
// form of a device (`ixa devices --json`).
#ifndef IXA_TOOLS_IXA_DEVICE_REQUEST_H_
#define IXA_TOOLS_IXA_DEVICE_REQUEST_H_

#include "hw/device.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

// The request's device (default h100); unknown names are invalid_argument,
// ill-typed fields bad_request. An object starts from the defaults of
// hw::Device (a GPU launch model of 1024 threads per block, 2048 threads
// per core, 48 KiB of shared memory per block) and overrides what it names.
Result<hw::Device> GetDevice(const Json& req);

// Every field of the description.
Json DeviceJson(const hw::Device& d);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_DEVICE_REQUEST_H_
