// libFuzzer target fuzz_emit: the `emit` op for every target, through the
// op handlers `ixa query` uses. Every answer must be code (a non-empty
// `code`, a `kernel` name, `buffers`) or a clean error; a crash, hang,
// sanitizer report or `internal` error is a finding.
//
// Input: byte 0 chooses the request; the rest feeds it.
//   bits 0-1: target (0 cpp, 1 cuda, 2 mlir, 3 pto)
//   bit 2:    stages: true
//   bit 3:    host: true (mlir; elsewhere the op must refuse it cleanly)
//   bits 4-5: device (h100, a100, rtx_a6000, mi300)
//   GPU targets: bytes 1.. are the HLO module text.
//   pto: bytes 1.. choose the arch, the conversion, the dtype, the order, a
//        shape of up to 5 dims (1..64 each) and optionally a tile.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/fuzz/fuzz_check.h"
#include "tools/ixa/emit_ops.h"

namespace {

using ixa::cli::Json;

const char* const kConversions[] = {
    "transpose_2d",          "nd_to_nz",          "nz_to_nd",
    "nchw_to_nc1hwc0",       "nc1hwc0_to_nchw",   "nc1hwc0_to_fractal_z",
    "ncdhw_to_fractal_z_3d", "no_such_conversion"};
const char* const kDtypes[] = {"f16", "bf16", "f32", "s8",   "u8",
                               "s16", "s32",  "u4",  "pred", "f64"};
const char* const kDevices[] = {"h100", "a100", "rtx_a6000", "mi300"};

Json PtoRequest(const uint8_t* data, size_t size) {
  size_t at = 0;
  auto next = [&]() -> uint8_t { return at < size ? data[at++] : 0; };
  Json request = Json::object();
  request["target"] = "pto";
  uint8_t choice = next();
  request["arch"] = (choice & 1) ? "a5" : "a2a3";
  request["conversion"] = kConversions[(choice >> 1) % std::size(kConversions)];
  request["dtype"] = kDtypes[next() % std::size(kDtypes)];
  if (choice & 0x10)
    request["order"] = (choice & 0x20) ? "c1_major" : "d_major";
  Json shape = Json::array();
  const int rank = 1 + next() % 5;
  for (int k = 0; k < rank; ++k) shape.push_back(1 + next() % 64);
  request["shape"] = shape;
  if (choice & 0x40) {
    request["tile"] = Json::array({1 + next() % 64, 1 + next() % 64});
  }
  return request;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  const int target = selector & 3;
  Json request = Json::object();
  if (target == 3) {
    request = PtoRequest(data + 1, size - 1);
  } else {
    request["target"] = target == 0 ? "cpp" : target == 1 ? "cuda" : "mlir";
    request["hlo"] =
        std::string(reinterpret_cast<const char*>(data + 1), size - 1);
    request["device"] = kDevices[(selector >> 4) & 3];
  }
  if (selector & 4) request["stages"] = true;
  if (selector & 8) request["host"] = true;
  ixa::ExprContext ctx;
  ixa::Result<Json> answer = target == 3
                                 ? ixa::cli::EmitPtoRequest(request, ctx)
                                 : ixa::cli::EmitFusionRequest(request, ctx);
  if (!answer.ok()) {
    if (answer.error().code == ixa::ErrorCode::kInternal) {
      ixa::fuzz::Fail("emit answered internal", answer.error().ToString());
    }
    return 0;
  }
  const Json& r = *answer;
  if (!r.contains("code") || !r.at("code").is_string() ||
      r.at("code").get_ref<const std::string&>().empty()) {
    ixa::fuzz::Fail("emit answered ok without code", r.dump().substr(0, 2000));
  }
  if (!r.contains("kernel") || !r.at("kernel").is_string() ||
      r.at("kernel").get_ref<const std::string&>().empty() ||
      !r.contains("buffers") || !r.at("buffers").is_array()) {
    ixa::fuzz::Fail("emit answered ok without kernel or buffers",
                    r.dump().substr(0, 2000));
  }
  return 0;
}
