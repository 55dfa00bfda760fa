// Reading the `device` field of a request (spec/cli.md, Devices): a
// built-in name or an object with the fields the models need.
#ifndef IXA_TOOLS_IXA_DEVICE_REQUEST_H_
#define IXA_TOOLS_IXA_DEVICE_REQUEST_H_

#include "hw/device.h"
#include "tools/ixa/protocol.h"

namespace ixa::cli {

// The request's device (default h100); unknown names are invalid_argument,
// ill-typed fields bad_request.
Result<hw::Device> GetDevice(const Json& req);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_DEVICE_REQUEST_H_
