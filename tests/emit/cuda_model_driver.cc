#include "tests/emit/cuda_model_driver.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

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
  for (const char* f : {"cuda_model.cc", "cuda_model_memory.cc", "cuda_model.h",
                        "cuda_model_launch.h"}) {
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

Result<std::vector<std::string>> CudaModelObjects() {
  static std::once_flag once;
  static std::unique_ptr<TempDir> dir;
  static Result<std::vector<std::string>> objects = std::vector<std::string>();
  std::call_once(once, [] {
    dir = std::make_unique<TempDir>();
    std::string model = dir->path() + "/cuda_model.o";
    std::string memory = dir->path() + "/cuda_model_memory.o";
    const std::vector<std::string> commands = {
        Compiler() + " -std=c++17 -O2 -fPIC -I" + ModelDir() + " -c " +
            ModelDir() + "/cuda_model.cc -o ",
        // No builtins: memcpy and friends are defined there.
        Compiler() + " -std=c++17 -O2 -fPIC -fno-builtin -c " + ModelDir() +
            "/cuda_model_memory.cc -o "};
    const std::string cache = ModelCacheDir(commands);
    if (!cache.empty() && std::filesystem::exists(cache + "/cuda_model.o") &&
        std::filesystem::exists(cache + "/cuda_model_memory.o")) {
      objects = std::vector<std::string>{cache + "/cuda_model.o",
                                         cache + "/cuda_model_memory.o"};
      return;
    }
    auto results = RunCommands({commands[0] + model, commands[1] + memory});
    for (const CommandResult& r : results) {
      if (r.exit_code != 0) {
        objects = Error::Invalid(
            "the CUDA model does not compile (Boost.Context is the Debian "
            "package libboost-context-dev):\n" +
            FirstLines(r.output));
        return;
      }
    }
    objects = std::vector<std::string>{model, memory};
    if (cache.empty()) return;
    // Into the cache: copy under a name of this process, then rename (an
    // atomic replace), so a process never reads a half-written object.
    const std::string suffix = ".tmp" + std::to_string(getpid());
    std::error_code ec;
    for (const char* name : {"cuda_model.o", "cuda_model_memory.o"}) {
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

Result<bool> CudaModelBatch::CompileOnly(const std::vector<CppKernel>& kernels,
                                         int units) {
  TempDir dir;
  IXA_ASSIGN_OR_RETURN(auto objects, CompileUnits(dir, kernels, units));
  (void)objects;
  return true;
}

Result<bool> CudaModelBatch::Build(const std::vector<CppKernel>& kernels,
                                   int units) {
  IXA_ASSIGN_OR_RETURN(std::vector<std::string> model, CudaModelObjects());
  IXA_ASSIGN_OR_RETURN(std::vector<std::string> objects,
                       CompileUnits(dir_, kernels, units));
  std::string so = dir_.path() + "/cuda_batch.so";
  std::string link = Compiler() + " -shared -o " + so;
  for (const std::string& o : objects) link += " " + o;
  for (const std::string& o : model) link += " " + o;
  link += " -lboost_context";
  auto linked = RunCommands({link});
  if (linked[0].exit_code != 0) {
    return Error::Invalid("link failed:\n" + FirstLines(linked[0].output));
  }
  handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) return Error::Invalid(std::string("dlopen: ") + dlerror());
  return true;
}

CudaModelBatch::~CudaModelBatch() {
  if (handle_) dlclose(handle_);
}

Result<bool> CudaModelBatch::Run(const std::string& name,
                                 const LaunchDimensions& launch,
                                 ThreadOrder order, uint64_t seed,
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
  return true;
}

}  // namespace ixa::emit_test
