// The two halves of tools/gpu_check.sh around a real GPU, as hidden test
// cases of this test-only executable (they reuse the harness and its
// interpreter), both working in the folder IXA_GPU_CHECK_DIR:
//   [gpu_export]   every test fusion's `cuda` kernel with a host launcher
//                  (<label>/launch.cu, built by nvcc), the buffers a run
//                  starts from (<label>/in_K.bin) and the list of cases;
//   [gpu_compare]  the buffers the GPU left (<label>/out_K.bin) against the
//                  interpreter, and the timings (<label>/time.txt) over a
//                  device-to-device copy of as many bytes: one table.
// The fusions: the random set of the tests (every emitter kind), the
// worked examples of tests/emit/data, the timed ones at full size, and
// the complex-number fusions (emit_complex_cases.h).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "hw/device.h"
#include "tests/emit/emit_complex_cases.h"
#include "tests/emit/emit_harness.h"

namespace ixa::emit_test {
namespace IXA_UNITY_ID {

std::string Dir() {
  const char* dir = std::getenv("IXA_GPU_CHECK_DIR");
  if (!dir || !*dir) {
    std::cout << "IXA_GPU_CHECK_DIR is not set: tools/gpu_check.sh sets it\n";
    std::exit(2);
  }
  return dir;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Reduce(const std::string& type, const std::string& dims,
                   const std::string& out_dims, const std::string& reduced) {
  return "add { a = " + type + "[] parameter(0)\n b = " + type +
         "[] parameter(1)\n ROOT s = " + type +
         "[] add(a, b) }\n"
         "ENTRY e { p = " +
         type + "[" + dims + "] parameter(0)\n c = " + type +
         "[] constant(0)\n ROOT r = " + type + "[" + out_dims +
         "] reduce(p, c), dimensions={" + reduced + "}, to_apply=add }";
}

struct GpuCases {
  std::vector<CheckCase> cases;
  std::vector<bool> timed;
};

// The cases in a fixed order (both halves build the same list).
GpuCases Cases() {
  GpuCases g;
  auto add = [&](CheckCase c, bool timed) {
    g.cases.push_back(std::move(c));
    g.timed.push_back(timed);
  };
  for (TargetKind kind : AllTargetKinds()) {
    for (int seed = 0; seed < 12; ++seed) {
      add(FromGenerated(
              GenerateFusion(kind, seed),
              std::string(TargetKindName(kind)) + "_" + std::to_string(seed)),
          false);
    }
  }
  for (const char* name : {"gelu", "x_tanh"}) {
    CheckCase c;
    c.label = name;
    c.hlo = ReadText(std::string(IXA_SOURCE_DIR) + "/tests/emit/data/" + name +
                     ".hlo");
    add(c, std::string(name) == "gelu");
  }
  CheckCase t;
  t.label = "transpose_021_f32";
  t.hlo =
      "p = f32[32,512,1024] parameter(0)\n"
      "ROOT t = f32[32,1024,512] transpose(p), dimensions={0,2,1}";
  add(t, true);
  CheckCase row;
  row.label = "row_reduce_f32";
  row.hlo = Reduce("f32", "4096,4096", "4096", "1");
  row.reassociates = true;
  add(row, true);
  CheckCase column = row;
  column.label = "column_reduce_f32";
  column.hlo = Reduce("f32", "4096,4096", "4096", "0");
  add(column, true);
  // Complex values (structs of two parts, split shuffles, 8-byte
  // compare-and-swap) on the hardware.
  for (auto cases :
       {ComplexOpCases(), ComplexReductionCases(), ComplexScatterCases()}) {
    for (CheckCase& c : cases) add(std::move(c), false);
  }
  return g;
}

CheckOptions Options() {
  CheckOptions o;
  o.planner = H100Planner();
  return o;
}

// The host side of one kernel: reads the buffers, launches with the
// reported launch, writes the outputs back; with a repetition count, also
// times the kernel and a device-to-device copy of as many bytes.
std::string Launcher(const PortableCase& c) {
  std::string aliases;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    aliases += (i ? ", " : "") + std::to_string(c.aliases[i]);
  }
  auto dim = [](const std::array<int64_t, 3>& d) {
    return std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
           std::to_string(d[2]);
  };
  std::ostringstream s;
  s << "#include \"kernel.cu\"\n"
    << "#include <cstdio>\n#include <cstdlib>\n#include <string>\n"
    << "#include <vector>\n"
    << "#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != "
       "cudaSuccess) { std::fprintf(stderr, \"%s: %s\\n\", #x, "
       "cudaGetErrorString(e_)); return 2; } } while (0)\n"
    << "static const int kBuffers = " << c.buffers.size()
    << ", kInputs = " << c.inputs << ";\n"
    << "static const int kAliases[] = {" << aliases << "};\n"
    << "static std::vector<char> Read(const std::string& path) {\n"
       "  std::vector<char> v;\n"
       "  FILE* f = std::fopen(path.c_str(), \"rb\");\n"
       "  if (!f) return v;\n"
       "  char b[1 << 16];\n"
       "  for (size_t n; (n = std::fread(b, 1, sizeof(b), f)) > 0;)\n"
       "    v.insert(v.end(), b, b + n);\n"
       "  std::fclose(f);\n"
       "  return v;\n"
       "}\n"
    << "int main(int argc, char** argv) {\n"
       "  const std::string dir = argv[1];\n"
       "  const int reps = argc > 2 ? std::atoi(argv[2]) : 0;\n"
       "  std::vector<std::vector<char>> host(kBuffers);\n"
       "  std::vector<void*> dev(kBuffers, nullptr);\n"
       "  size_t bytes = 0;\n"
       "  for (int i = 0; i < kBuffers; ++i) {\n"
       "    host[i] = Read(dir + \"/in_\" + std::to_string(i) + \".bin\");\n"
       "    if (kAliases[i] >= 0) { dev[i] = dev[kAliases[i]]; continue; }\n"
       "    bytes += host[i].size();\n"
       "    // Exactly the allocation the response asks for (the buffers\n"
       "    // hold it): compute-sanitizer sees any access past it.\n"
       "    CHECK_CUDA(cudaMalloc(&dev[i], host[i].size()));\n"
       "    CHECK_CUDA(cudaMemcpy(dev[i], host[i].data(), host[i].size(),\n"
       "                          cudaMemcpyHostToDevice));\n"
       "  }\n"
       "  void* args[kBuffers];\n"
       "  for (int i = 0; i < kBuffers; ++i) args[i] = &dev[i];\n"
    << "  const dim3 grid(" << dim(c.launch.blocks) << "), block("
    << dim(c.launch.threads) << ");\n"
    << "  auto launch = [&] {\n"
    << "    return cudaLaunchKernel(reinterpret_cast<const void*>(" << c.kernel
    << "), grid, block, args, 0, nullptr);\n"
    << "  };\n"
       "  CHECK_CUDA(launch());\n"
       "  CHECK_CUDA(cudaDeviceSynchronize());\n"
       "  for (int i = kInputs; i < kBuffers; ++i) {\n"
       "    CHECK_CUDA(cudaMemcpy(host[i].data(), dev[i], host[i].size(),\n"
       "                          cudaMemcpyDeviceToHost));\n"
       "    FILE* f = std::fopen((dir + \"/out_\" + std::to_string(i) +\n"
       "                          \".bin\").c_str(), \"wb\");\n"
       "    if (!f) return 3;\n"
       "    std::fwrite(host[i].data(), 1, host[i].size(), f);\n"
       "    std::fclose(f);\n"
       "  }\n"
       "  if (reps <= 0) return 0;\n"
       "  cudaEvent_t start, stop;\n"
       "  CHECK_CUDA(cudaEventCreate(&start));\n"
       "  CHECK_CUDA(cudaEventCreate(&stop));\n"
       "  float kernel_ms = 0, copy_ms = 0;\n"
       "  for (int i = 0; i < 3; ++i) CHECK_CUDA(launch());\n"
       "  CHECK_CUDA(cudaEventRecord(start));\n"
       "  for (int i = 0; i < reps; ++i) CHECK_CUDA(launch());\n"
       "  CHECK_CUDA(cudaEventRecord(stop));\n"
       "  CHECK_CUDA(cudaEventSynchronize(stop));\n"
       "  CHECK_CUDA(cudaEventElapsedTime(&kernel_ms, start, stop));\n"
       "  // The copy reads and writes half the bytes each: as many in all.\n"
       "  const size_t half = bytes / 2;\n"
       "  void *src, *dst;\n"
       "  CHECK_CUDA(cudaMalloc(&src, half));\n"
       "  CHECK_CUDA(cudaMalloc(&dst, half));\n"
       "  for (int i = 0; i < 3; ++i)\n"
       "    CHECK_CUDA(cudaMemcpyAsync(dst, src, half, "
       "cudaMemcpyDeviceToDevice));\n"
       "  CHECK_CUDA(cudaEventRecord(start));\n"
       "  for (int i = 0; i < reps; ++i)\n"
       "    CHECK_CUDA(cudaMemcpyAsync(dst, src, half, "
       "cudaMemcpyDeviceToDevice));\n"
       "  CHECK_CUDA(cudaEventRecord(stop));\n"
       "  CHECK_CUDA(cudaEventSynchronize(stop));\n"
       "  CHECK_CUDA(cudaEventElapsedTime(&copy_ms, start, stop));\n"
       "  FILE* t = std::fopen((dir + \"/time.txt\").c_str(), \"w\");\n"
       "  if (!t) return 3;\n"
       "  std::fprintf(t, \"%.6f %zu %.6f\\n\", kernel_ms / reps, bytes,\n"
       "               copy_ms / reps);\n"
       "  std::fclose(t);\n"
       "  return 0;\n"
       "}\n";
  return s.str();
}

void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

TEST_CASE("gpu check: every test fusion's kernel, launcher and buffers",
          "[.][gpu_export]") {
  const std::string dir = Dir();
  GpuCases g = Cases();
  std::vector<PortableCase> cases = PrepareCases(g.cases, Options());
  // cases.txt: label, then "timed", "run" or the reason it cannot run.
  std::ofstream list(dir + "/cases.txt");
  int ready = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const PortableCase& c = cases[i];
    if (!c.error.empty()) {
      // A kind the planner does not take yet is listed, as the tests do.
      list << c.label << " skip\n";
      std::cout << c.label << ": " << c.error << "\n";
      continue;
    }
    const std::string at = dir + "/" + c.label;
    mkdir(at.c_str(), 0755);
    std::ofstream(at + "/kernel.cu") << c.cuda_code;
    std::ofstream(at + "/launch.cu") << Launcher(c);
    for (size_t k = 0; k < c.buffers.size(); ++k) {
      WriteBytes(at + "/in_" + std::to_string(k) + ".bin", c.buffers[k]);
    }
    list << c.label << (g.timed[i] ? " timed\n" : " run\n");
    ++ready;
  }
  std::cout << ready << " of " << cases.size() << " fusions written to " << dir
            << "\n";
  CHECK(ready > 0);
}

std::vector<uint8_t> ReadBytes(const std::string& path, bool* found) {
  std::ifstream in(path, std::ios::binary);
  *found = static_cast<bool>(in);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("gpu check: the GPU's outputs against the interpreter",
          "[.][gpu_compare]") {
  const std::string dir = Dir();
  GpuCases g = Cases();
  std::vector<PortableCase> cases = PrepareCases(g.cases, Options());
  std::printf("%-24s %-13s %-9s %10s %8s %9s\n", "fusion", "emitter", "result",
              "time (us)", "GB/s", "of copy");
  int mismatches = 0, checked = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const PortableCase& c = cases[i];
    if (!c.error.empty()) continue;
    const std::string at = dir + "/" + c.label;
    std::vector<std::vector<uint8_t>> buffers = c.buffers;
    std::string result = "ok";
    for (size_t k = c.inputs; k < buffers.size(); ++k) {
      bool found = false;
      std::vector<uint8_t> out =
          ReadBytes(at + "/out_" + std::to_string(k) + ".bin", &found);
      if (!found || out.size() != buffers[k].size()) {
        result = "no output";
        break;
      }
      buffers[k] = std::move(out);
    }
    if (result == "ok") {
      std::string diff = c.check(buffers);
      if (!diff.empty()) {
        result = "mismatch";
        std::cout << c.label << ": " << diff << "\n";
      }
    }
    mismatches += result != "ok";
    ++checked;
    double us = 0, gbs = 0, fraction = 0;
    std::ifstream time(at + "/time.txt");
    double kernel_ms = 0, copy_ms = 0, bytes = 0;
    if (g.timed[i] && time >> kernel_ms >> bytes >> copy_ms && kernel_ms > 0) {
      us = kernel_ms * 1e3;
      gbs = bytes / (kernel_ms * 1e-3) / 1e9;
      // The copy moved as many bytes (half read, half written).
      const double copy_gbs = copy_ms > 0 ? bytes / (copy_ms * 1e-3) / 1e9 : 0;
      fraction = copy_gbs > 0 ? gbs / copy_gbs : 0;
      std::printf("%-24s %-13s %-9s %10.1f %8.1f %8.0f%%\n", c.label.c_str(),
                  c.emitter.c_str(), result.c_str(), us, gbs, fraction * 100);
    } else {
      std::printf("%-24s %-13s %-9s %10s %8s %9s\n", c.label.c_str(),
                  c.emitter.c_str(), result.c_str(), "-", "-", "-");
    }
  }
  std::printf("%d fusions checked on the GPU: %d not ok\n", checked,
              mismatches);
  CHECK(mismatches == 0);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::emit_test
