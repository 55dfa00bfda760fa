// The program's host runtime (emit/program/program.h): allocation,
// copies, reading a scalar and launching, per target, and the choice of
// the helpers a program uses.
#include <cctype>
#include <sstream>
#include <utility>
#include <vector>

#include "emit/program/program_internal.h"

namespace ixa::emit::program_internal {
namespace {

// Whether `text` uses the identifier `name` (not as part of a longer one).
bool UsesName(const std::string& text, const std::string& name) {
  auto part = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (size_t at = text.find(name); at != std::string::npos;
       at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if ((at == 0 || !part(text[at - 1])) &&
        (end == text.size() || !part(text[end]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string RuntimePrelude(Target target) {
  if (target == Target::kCuda) {
    return R"(static void* ixap_alloc(int64_t bytes) {
  void* p = nullptr;
  if (bytes > 0 && cudaMalloc(&p, (size_t)bytes) != cudaSuccess) return nullptr;
  return p;
}
static void ixap_free(void* p) { if (p) cudaFree(p); }
static void ixap_copy(void* dst, const void* src, int64_t bytes) {
  if (bytes > 0 && dst != src) {
    cudaMemcpy(dst, src, (size_t)bytes, cudaMemcpyDeviceToDevice);
  }
}
[[maybe_unused]] static bool ixap_read_pred(const void* p) {
  uint8_t v = 0;
  cudaMemcpy(&v, p, 1, cudaMemcpyDeviceToHost);
  return v != 0;
}
[[maybe_unused]] static int64_t ixap_read_s32(const void* p) {
  int32_t v = 0;
  cudaMemcpy(&v, p, 4, cudaMemcpyDeviceToHost);
  return v;
}
template <typename... P, size_t... I>
static void ixap_launch_with(void (*kernel)(P...), dim3 blocks, dim3 threads,
                             void* const* b, std::index_sequence<I...>) {
  kernel<<<blocks, threads>>>(static_cast<P>(b[I])...);
}
template <typename... P>
static int ixap_launch(void (*kernel)(P...), dim3 blocks, dim3 threads,
                       void* const* b, const char* name) {
  ixap_launch_with(kernel, blocks, threads, b, std::index_sequence_for<P...>{});
  return ixap_check_launch(name);
}
)";
  }
  return R"(static void* ixap_alloc(int64_t bytes) {
  return bytes > 0 ? std::malloc((size_t)bytes) : nullptr;
}
static void ixap_free(void* p) { std::free(p); }
static void ixap_copy(void* dst, const void* src, int64_t bytes) {
  if (bytes > 0 && dst != src) std::memmove(dst, src, (size_t)bytes);
}
[[maybe_unused]] static bool ixap_read_pred(const void* p) {
  return *(const uint8_t*)p != 0;
}
[[maybe_unused]] static int64_t ixap_read_s32(const void* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
)";
}

// The helpers of `prelude` that `body` uses, directly or through other
// helpers, in their order (an unused static function is a warning, under
// nvcc's -Werror all-warnings an error). A helper is the lines up to one
// that starts at column 0 and ends with '}'; its name, the first `ixap_`
// identifier called in it.
std::string UsedHelpers(const std::string& prelude, const std::string& body) {
  std::vector<std::pair<std::string, std::string>> helpers;  // name, text
  std::stringstream in(prelude);
  std::string line, chunk;
  while (std::getline(in, line)) {
    chunk += line + "\n";
    if (line.empty() || line[0] == ' ' || line.back() != '}') continue;
    size_t at = chunk.find("ixap_");
    size_t end = at;
    while (end < chunk.size() &&
           (std::isalnum(static_cast<unsigned char>(chunk[end])) ||
            chunk[end] == '_')) {
      ++end;
    }
    helpers.push_back({chunk.substr(at, end - at), chunk});
    chunk.clear();
  }
  std::vector<bool> kept(helpers.size(), false);
  std::string users = body;
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t h = 0; h < helpers.size(); ++h) {
      if (!kept[h] && UsesName(users, helpers[h].first)) {
        kept[h] = true;
        users += helpers[h].second;
        grew = true;
      }
    }
  }
  std::string out;
  for (size_t h = 0; h < helpers.size(); ++h) {
    if (kept[h]) out += helpers[h].second;
  }
  return out;
}

}  // namespace ixa::emit::program_internal
