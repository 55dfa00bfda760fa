// libFuzzer target fuzz_cli_request: one request line through the query
// server's line handler (tools/ixa/query_server.h AnswerRequestLine), exactly
// as `ixa query` answers it. Every line must get one response line that is a
// JSON object with "ok"; an "internal" error is a bug.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/fuzz/fuzz_check.h"
#include "tools/ixa/query_server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string line(reinterpret_cast<const char*>(data), size);
  // `ixa query` splits its input at newlines: one request per line.
  if (line.find('\n') != std::string::npos) return 0;
  std::string response = ixa::cli::AnswerRequestLine(line);
  if (response.find('\n') != std::string::npos) {
    ixa::fuzz::Fail("the response spans several lines", response);
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(response);
  } catch (const std::exception& e) {
    ixa::fuzz::Fail("the response is not JSON", response);
  }
  if (!j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) {
    ixa::fuzz::Fail("the response has no ok field", response);
  }
  if (!j["ok"].get<bool>()) {
    const auto& error = j["error"];
    if (!error.is_object() || !error.contains("code")) {
      ixa::fuzz::Fail("an error response without a code", response);
    }
    if (error["code"] == "internal") {
      ixa::fuzz::Fail("internal error", line + "\n" + response);
    }
  }
  return 0;
}
