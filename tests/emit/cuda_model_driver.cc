#include "tests/emit/cuda_model_driver.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>

#include "tests/emit/cuda_model/cuda_model_launch.h"

#ifndef IXA_SOURCE_DIR
#define IXA_SOURCE_DIR "."
#endif

namespace ixa::emit_test {
namespace {

const std::string& ModelDir() {
  static const std::string dir =
      std::string(IXA_SOURCE_DIR) + "/tests/emit/cuda_model";
  return dir;
}

// GCC splits a struct copy (a vector load) into its elements unless told
// not to, and then a misaligned vector access would go unseen.
bool CompilerIsGcc() {
  static const bool gcc = [] {
    auto r = RunCommands({Compiler() + " --version"});
    return r[0].exit_code == 0 &&
           r[0].output.find("clang") == std::string::npos;
  }();
  return gcc;
}

std::string UnitFlags() {
  std::string flags = " -std=c++17 -O1 -fPIC -fsanitize=thread -include " +
                      ModelDir() + "/cuda_model.h -I" + ModelDir() +
                      "/include -x c++";
  if (CompilerIsGcc()) flags += " -fno-tree-sra";
  return flags;
}

// The kernel's text and the entry the driver calls.
std::vector<CppKernel> WithEntries(const std::vector<CppKernel>& kernels) {
  std::vector<CppKernel> out;
  for (const CppKernel& k : kernels) {
    out.push_back({k.name, k.code + "\n" + CudaModelEntry(k.name)});
  }
  return out;
}

// Compiles the units of `kernels` into objects in `dir`.
Result<std::vector<std::string>> CompileUnits(
    const TempDir& dir, const std::vector<CppKernel>& kernels, int units) {
  std::vector<std::string> sources = BatchSources(WithEntries(kernels), units);
  std::vector<std::string> commands, objects;
  for (size_t u = 0; u < sources.size(); ++u) {
    std::string src =
        dir.Write("cuda_unit" + std::to_string(u) + ".cu", sources[u]);
    objects.push_back(src + ".o");
    commands.push_back(Compiler() + UnitFlags() + " -c " + src + " -o " + src +
                       ".o");
  }
  auto results = RunCommands(commands);
  for (size_t u = 0; u < results.size(); ++u) {
    if (results[u].exit_code != 0) {
      return Error::Invalid("the CUDA model's host compiler rejected unit " +
                            std::to_string(u) + " (" + dir.path() + "):\n" +
                            FirstLines(results[u].output));
    }
  }
  return objects;
}

}  // namespace

std::string CudaModelEntry(const std::string& kernel) {
  return "extern \"C\" const char* " + kernel +
         "_cuda_model_launch(void* const* buffers, const "
         "::ixa_cuda_model::LaunchConfig* config) {\n"
         "  return ::ixa_cuda_model::Launch(&" +
         kernel + ", buffers, *config);\n}\n";
}

const char* ThreadOrderName(ThreadOrder order) {
  switch (order) {
    case ThreadOrder::kForward:
      return "forward";
    case ThreadOrder::kReverse:
      return "reverse";
    case ThreadOrder::kRandom:
      return "random";
  }
  return "?";
}

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Where the model's objects are kept between test processes (every emit
// group is a process of its own and would compile the model again): a
// folder of the build tree, named by a hash of the model's sources and
// the compile commands. Empty: compile into the process's own folder.
std::string ModelCacheDir(const std::vector<std::string>& commands) {
#ifdef IXA_TEST_CACHE_DIR
  std::string key;
  for (const char* f :
       {"cuda_model.cc", "cuda_model_host.cc", "cuda_model_memory.cc",
        "cuda_model.h", "cuda_model_launch.h", "include/cuda_runtime.h"}) {
    key += ReadAll(ModelDir() + "/" + f);
  }
  for (const std::string& c : commands) key += c;
  std::string dir = std::string(IXA_TEST_CACHE_DIR) + "/cuda_model_" +
                    std::to_string(std::hash<std::string>()(key));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return ec ? "" : dir;
#else
  (void)commands;
  return "";
#endif
}

}  // namespace

// The model's sources: each is compiled once per process (and kept in the
// build tree's cache), without instrumentation.
struct ModelSource {
  const char* file;
  const char* flags;
};
constexpr ModelSource kModelSources[] = {
    {"cuda_model.cc", ""},
    // The host API (include/cuda_runtime.h) of whole programs.
    {"cuda_model_host.cc", ""},
    // No builtins: memcpy and friends are defined there.
    {"cuda_model_memory.cc", " -fno-builtin"},
};

Result<std::vector<std::string>> CudaModelObjects() {
  static std::once_flag once;
  static std::unique_ptr<TempDir> dir;
  static Result<std::vector<std::string>> objects = std::vector<std::string>();
  std::call_once(once, [] {
    dir = std::make_unique<TempDir>();
    std::vector<std::string> commands, names;
    for (const ModelSource& source : kModelSources) {
      std::string name = source.file;
      names.push_back(name.substr(0, name.size() - 3) + ".o");
      commands.push_back(Compiler() + " -std=c++17 -O2 -fPIC" + source.flags +
                         " -I" + ModelDir() + " -c " + ModelDir() + "/" +
                         source.file + " -o ");
    }
    const std::string cache = ModelCacheDir(commands);
    std::vector<std::string> cached;
    for (const std::string& name : names) {
      if (!cache.empty() && std::filesystem::exists(cache + "/" + name)) {
        cached.push_back(cache + "/" + name);
      }
    }
    if (cached.size() == names.size()) {
      objects = cached;
      return;
    }
    std::vector<std::string> built, run;
    for (size_t i = 0; i < names.size(); ++i) {
      built.push_back(dir->path() + "/" + names[i]);
      run.push_back(commands[i] + built.back());
    }
    for (const CommandResult& r : RunCommands(run)) {
      if (r.exit_code != 0) {
        objects = Error::Invalid(
            "the CUDA model does not compile (Boost.Context is the Debian "
            "package libboost-context-dev):\n" +
            FirstLines(r.output));
        return;
      }
    }
    objects = built;
    if (cache.empty()) return;
    // Into the cache: copy under a name of this process, then rename (an
    // atomic replace), so a process never reads a half-written object.
    const std::string suffix = ".tmp" + std::to_string(getpid());
    std::error_code ec;
    for (const std::string& name : names) {
      std::filesystem::copy_file(
          dir->path() + "/" + name, cache + "/" + name + suffix,
          std::filesystem::copy_options::overwrite_existing, ec);
      if (!ec) {
        std::filesystem::rename(cache + "/" + name + suffix, cache + "/" + name,
                                ec);
      }
    }
  });
  return objects;
}

namespace {

// The model's own objects and its fiber library, after the kernels'.
std::string ModelLinkArgs(const std::vector<std::string>& model) {
  std::string args;
  for (const std::string& o : model) args += o + " ";
  return args + "-lboost_context";
}

}  // namespace

Status CudaModelBatch::CompileOnly(const std::vector<CppKernel>& kernels,
                                   int units) {
  TempDir dir;
  IXA_ASSIGN_OR_RETURN(auto objects, CompileUnits(dir, kernels, units));
  (void)objects;
  return Status();
}

Status CudaModelBatch::Build(const std::vector<CppKernel>& kernels, int units) {
  IXA_ASSIGN_OR_RETURN(std::vector<std::string> model, CudaModelObjects());
  IXA_ASSIGN_OR_RETURN(std::vector<std::string> objects,
                       CompileUnits(dir_, kernels, units));
  return LinkAndOpen(dir_.path() + "/cuda_batch.so", objects,
                     ModelLinkArgs(model), &handle_);
}

CudaModelBatch::~CudaModelBatch() {
  if (handle_) dlclose(handle_);
}

Status CudaModelBatch::Run(const std::string& name,
                           const LaunchDimensions& launch, ThreadOrder order,
                           uint64_t seed,
                           std::vector<std::vector<uint8_t>>* buffers,
                           const std::vector<int>& aliases) const {
  std::string entry_name = name + "_cuda_model_launch";
  void* sym = handle_ ? dlsym(handle_, entry_name.c_str()) : nullptr;
  if (!sym) return Error::Invalid("kernel '" + name + "' not found");
  auto entry = reinterpret_cast<ixa_cuda_model::LaunchEntry>(sym);
  GuardedBuffers memory(*buffers, aliases);
  if (!memory.ok()) return Error::Invalid("mmap failed");
  // The child's error message comes back through shared memory.
  constexpr size_t kMessageBytes = 4096;
  void* shared = mmap(nullptr, kMessageBytes, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return Error::Invalid("mmap failed");
  char* message = static_cast<char*>(shared);
  message[0] = '\0';
  pid_t pid = fork();
  if (pid == 0) {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
      signal(sig, SIG_DFL);
    }
    alarm(300);  // a kernel that never ends fails instead of hanging
    std::vector<ixa_cuda_model::BufferRange> ranges;
    for (size_t i = 0; i < memory.pointers().size(); ++i) {
      ranges.push_back({memory.pointers()[i], memory.sizes()[i]});
    }
    ixa_cuda_model::LaunchConfig config;
    for (int d = 0; d < 3; ++d) {
      config.grid[d] = static_cast<unsigned>(launch.blocks[d]);
      config.block[d] = static_cast<unsigned>(launch.threads[d]);
    }
    config.order = static_cast<ixa_cuda_model::Order>(order);
    config.seed = seed;
    config.buffers = ranges.data();
    config.num_buffers = ranges.size();
    config.arena_begin = reinterpret_cast<const char*>(memory.begin());
    config.arena_end = reinterpret_cast<const char*>(memory.end());
    const char* error = entry(memory.pointers().data(), &config);
    if (error) {
      strncpy(message, error, kMessageBytes - 1);
      message[kMessageBytes - 1] = '\0';
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::string error;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    error = message;
  } else {
    error = ChildFailure(name, status);
  }
  munmap(shared, kMessageBytes);
  if (error.empty()) error = memory.CopyOut(buffers, name);
  if (!error.empty()) return Error::Invalid(error);
  return Status();
}

// ---- Whole programs ----

Result<std::string> CudaModelLaunches(const std::string& program) {
  auto identifier = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
  };
  std::string out;
  size_t from = 0;
  for (size_t at; (at = program.find("<<<", from)) != std::string::npos;) {
    const size_t close = program.find(">>>", at);
    if (close == std::string::npos) {
      return Error::Invalid("a launch '<<<' without its '>>>'");
    }
    size_t begin = at;
    while (begin > from && identifier(program[begin - 1])) --begin;
    if (begin == at) return Error::Invalid("a launch '<<<' of no kernel name");
    out += program.substr(from, begin - from);
    out += "IXA_CUDA_MODEL_LAUNCH(" + program.substr(begin, at - begin) + ", " +
           program.substr(at + 3, close - at - 3) + ")";
    from = close + 3;
  }
  out += program.substr(from);
  return out;
}

Status CudaModelPrograms::Build(const std::vector<CppKernel>& programs,
                                int units) {
  IXA_ASSIGN_OR_RETURN(std::vector<std::string> model, CudaModelObjects());
  std::vector<CppKernel> rewritten;
  for (const CppKernel& p : programs) {
    Result<std::string> code = CudaModelLaunches(p.code);
    if (!code.ok()) {
      return Error::Invalid("program " + p.name + ": " + code.error().message);
    }
    rewritten.push_back({p.name, *code});
  }
  std::vector<std::string> sources = BatchSources(rewritten, units);
  std::vector<std::string> commands, objects;
  for (size_t u = 0; u < sources.size(); ++u) {
    std::string src =
        dir_.Write("cuda_program" + std::to_string(u) + ".cu", sources[u]);
    objects.push_back(src + ".o");
    commands.push_back(Compiler() + UnitFlags() + " -DIXA_NO_MAIN -c " + src +
                       " -o " + src + ".o");
  }
  auto results = RunCommands(commands);
  for (size_t u = 0; u < results.size(); ++u) {
    if (results[u].exit_code != 0) {
      return Error::Invalid("the CUDA model's host compiler rejected unit " +
                            std::to_string(u) + " (" + dir_.path() + "):\n" +
                            FirstLines(results[u].output));
    }
  }
  return LinkAndOpen(dir_.path() + "/cuda_programs.so", objects,
                     ModelLinkArgs(model), &handle_);
}

CudaModelPrograms::~CudaModelPrograms() {
  if (handle_) dlclose(handle_);
}

namespace {

// The model's host API and the program driver's functions, from the
// programs' shared object.
struct ModelApi {
  int (*malloc)(void**, size_t) = nullptr;
  int (*free)(void*) = nullptr;
  int (*memcpy)(void*, const void*, size_t, int) = nullptr;
  void (*start)(int, uint64_t) = nullptr;
  void (*stop)() = nullptr;
  const char* (*problem)() = nullptr;
  size_t (*live)() = nullptr;
};

template <typename F>
bool FindModelSymbol(void* handle, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
  return *out != nullptr;
}

constexpr int kMemcpyHostToDevice = 1, kMemcpyDeviceToHost = 2;

// In the child: runs the program; "" or what went wrong.
std::string RunProgramChild(const ModelApi& api, void* entry_symbol,
                            const std::vector<std::vector<uint8_t>>& params,
                            const std::vector<size_t>& result_bytes,
                            ThreadOrder order, uint64_t seed,
                            uint8_t* results_out) {
  using Entry = int (*)(const void* const*, void* const*);
  auto entry = reinterpret_cast<Entry>(entry_symbol);
  api.start(static_cast<int>(order), seed);
  std::vector<void*> device_params, device_results;
  for (const auto& p : params) {
    void* d = nullptr;
    if (api.malloc(&d, p.size()) != 0 ||
        api.memcpy(d, p.data(), p.size(), kMemcpyHostToDevice) != 0) {
      return "the driver cannot place a parameter in device memory";
    }
    device_params.push_back(d);
  }
  for (size_t bytes : result_bytes) {
    void* d = nullptr;
    if (api.malloc(&d, bytes) != 0) return "no device memory for a result";
    device_results.push_back(d);
  }
  const size_t driver_allocations = api.live();
  const int rc = entry(device_params.data(), device_results.data());
  api.stop();
  if (const char* problem = api.problem()) return problem;
  if (rc != 0) return "the program returned " + std::to_string(rc);
  if (api.live() != driver_allocations) {
    return "the program leaves " +
           std::to_string(api.live() - driver_allocations) +
           " device allocations unfreed";
  }
  size_t offset = 0;
  for (size_t k = 0; k < result_bytes.size(); ++k) {
    if (api.memcpy(results_out + offset, device_results[k], result_bytes[k],
                   kMemcpyDeviceToHost) != 0) {
      return "the driver cannot read result " + std::to_string(k);
    }
    offset += result_bytes[k];
  }
  for (void* d : device_params) api.free(d);
  for (void* d : device_results) api.free(d);
  if (const char* problem = api.problem()) return problem;
  return "";
}

}  // namespace

Result<std::vector<std::vector<uint8_t>>> CudaModelPrograms::Run(
    const std::string& name, const std::vector<std::vector<uint8_t>>& params,
    const std::vector<size_t>& result_bytes, ThreadOrder order,
    uint64_t seed) const {
  void* entry = handle_ ? dlsym(handle_, name.c_str()) : nullptr;
  if (!entry) return Error::Invalid("program '" + name + "' not found");
  ModelApi api;
  if (!FindModelSymbol(handle_, "cudaMalloc", &api.malloc) ||
      !FindModelSymbol(handle_, "cudaFree", &api.free) ||
      !FindModelSymbol(handle_, "cudaMemcpy", &api.memcpy) ||
      !FindModelSymbol(handle_, "ixa_cuda_model_program_start", &api.start) ||
      !FindModelSymbol(handle_, "ixa_cuda_model_program_stop", &api.stop) ||
      !FindModelSymbol(handle_, "ixa_cuda_model_program_problem",
                       &api.problem) ||
      !FindModelSymbol(handle_, "ixa_cuda_model_live_allocations", &api.live)) {
    return Error::Invalid("the model's host API is missing");
  }
  // The results and the child's message come back through shared memory.
  constexpr size_t kMessageBytes = 4096;
  size_t total = kMessageBytes;
  for (size_t b : result_bytes) total += b;
  void* shared = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return Error::Invalid("mmap failed");
  char* message = static_cast<char*>(shared);
  message[0] = '\0';
  uint8_t* results = static_cast<uint8_t*>(shared) + kMessageBytes;
  pid_t pid = fork();
  if (pid == 0) {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
      signal(sig, SIG_DFL);
    }
    alarm(300);  // a program that never ends fails instead of hanging
    std::string error =
        RunProgramChild(api, entry, params, result_bytes, order, seed, results);
    if (!error.empty()) {
      strncpy(message, error.c_str(), kMessageBytes - 1);
      message[kMessageBytes - 1] = '\0';
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::string error;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    error = message;
  } else {
    error = ChildFailure(name, status);
  }
  std::vector<std::vector<uint8_t>> out;
  size_t offset = 0;
  for (size_t b : result_bytes) {
    out.emplace_back(results + offset, results + offset + b);
    offset += b;
  }
  munmap(shared, total);
  if (!error.empty()) return Error::Invalid(error);
  return out;
}

}  // namespace ixa::emit_test
