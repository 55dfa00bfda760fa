#include "tests/emit/emit_driver.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "tests/emit/emit_literal.h"

#ifndef IXA_CXX
#define IXA_CXX "g++"
#endif

namespace ixa::emit_test {

TempDir::TempDir() {
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "ixa_emit_XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  char* made = mkdtemp(buf.data());
  path_ = made ? made : "/tmp";
}

TempDir::~TempDir() {
  if (std::getenv("IXA_KEEP_TMP") || path_ == "/tmp") return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name,
                           const std::string& text) const {
  std::string p = path_ + "/" + name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

bool Sanitized() {
  const char* v = std::getenv("IXA_SANITIZED");
  return v && std::string(v) == "1";
}

namespace {

// IXA_TRACE_COMMANDS=FILE appends, per finished command, the CPU seconds
// it and its children used and the start of its text: where a test's
// time goes.
void TraceCommand(const std::string& command, const struct rusage& usage) {
  static const char* path = std::getenv("IXA_TRACE_COMMANDS");
  if (path == nullptr || *path == 0) return;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  double seconds = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                   (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  std::ofstream out(path, std::ios::app);
  out << seconds << '\t' << command.substr(0, 160) << '\n';
}

}  // namespace

std::vector<CommandResult> RunCommands(const std::vector<std::string>& commands,
                                       int parallel) {
  std::vector<CommandResult> results(commands.size());
  TempDir logs;
  size_t next = 0;
  std::vector<std::pair<pid_t, size_t>> running;
  auto start = [&](size_t i) {
    std::string log = logs.path() + "/" + std::to_string(i) + ".log";
    std::string cmd = "(" + commands[i] + ") >" + log + " 2>&1";
    pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    running.push_back({pid, i});
  };
  while (next < commands.size() || !running.empty()) {
    while (next < commands.size() &&
           static_cast<int>(running.size()) < std::max(parallel, 1)) {
      start(next++);
    }
    int status = 0;
    struct rusage usage {};
    pid_t done = wait4(-1, &status, 0, &usage);
    if (done < 0) break;
    for (size_t k = 0; k < running.size(); ++k) {
      if (running[k].first != done) continue;
      size_t i = running[k].second;
      TraceCommand(commands[i], usage);
      results[i].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      std::ifstream in(logs.path() + "/" + std::to_string(i) + ".log");
      std::stringstream ss;
      ss << in.rdbuf();
      results[i].output = ss.str();
      running.erase(running.begin() + k);
      break;
    }
  }
  return results;
}

std::vector<std::string> BatchSources(const std::vector<CppKernel>& kernels,
                                      int units) {
  units = std::max(1, std::min<int>(units, kernels.size()));
  std::vector<std::string> includes(units), bodies(units);
  for (size_t k = 0; k < kernels.size(); ++k) {
    int u = static_cast<int>(k * units / kernels.size());
    std::stringstream in(kernels[k].code);
    std::string line, body;
    while (std::getline(in, line)) {
      if (line.rfind("#include", 0) == 0) {
        if (includes[u].find(line) == std::string::npos) {
          includes[u] += line + "\n";
        }
      } else {
        body += line + "\n";
      }
    }
    bodies[u] += "namespace ixa_kernel_" + std::to_string(k) + " {\n" + body +
                 "}  // namespace\n";
  }
  std::vector<std::string> out;
  for (int u = 0; u < units; ++u) out.push_back(includes[u] + bodies[u]);
  return out;
}

std::string Compiler() {
  const char* env = std::getenv("IXA_TEST_CXX");
  return env ? env : IXA_CXX;
}

std::string FirstLines(const std::string& text, int n) {
  std::stringstream in(text);
  std::string line, out;
  for (int i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

Status CppBatch::CompileOnly(const std::vector<CppKernel>& kernels, int units,
                             bool syntax_only) {
  TempDir dir;
  std::vector<std::string> sources = BatchSources(kernels, units);
  std::vector<std::string> commands;
  for (size_t u = 0; u < sources.size(); ++u) {
    std::string src = dir.Write("unit" + std::to_string(u) + ".cc", sources[u]);
    commands.push_back(Compiler() + " -std=c++17 -fPIC " +
                       (syntax_only ? "-fsyntax-only " + src
                                    : "-O1 -c " + src + " -o " + src + ".o"));
  }
  auto results = RunCommands(commands);
  for (size_t u = 0; u < results.size(); ++u) {
    if (results[u].exit_code != 0) {
      return Error::Invalid("g++ rejected unit " + std::to_string(u) + ":\n" +
                            FirstLines(results[u].output));
    }
  }
  return Status();
}

Status CppBatch::Build(const std::vector<CppKernel>& kernels, int units) {
  std::vector<std::string> sources = BatchSources(kernels, units);
  std::vector<std::string> commands, objects;
  for (size_t u = 0; u < sources.size(); ++u) {
    std::string src =
        dir_.Write("unit" + std::to_string(u) + ".cc", sources[u]);
    objects.push_back(src + ".o");
    commands.push_back(Compiler() + " -std=c++17 -O1 -fPIC -c " + src + " -o " +
                       src + ".o");
  }
  auto results = RunCommands(commands);
  for (size_t u = 0; u < results.size(); ++u) {
    if (results[u].exit_code != 0) {
      return Error::Invalid("g++ rejected unit " + std::to_string(u) + " (" +
                            dir_.path() + "):\n" +
                            FirstLines(results[u].output));
    }
  }
  return LinkAndOpen(dir_.path() + "/batch.so", objects, "", &handle_);
}

Status LinkAndOpen(const std::string& so,
                   const std::vector<std::string>& objects,
                   const std::string& extra_args, void** handle) {
  std::string link = Compiler() + " -shared -o " + so;
  for (const std::string& o : objects) link += " " + o;
  if (!extra_args.empty()) link += " " + extra_args;
  auto linked = RunCommands({link});
  if (linked[0].exit_code != 0) {
    return Error::Invalid("link failed:\n" + FirstLines(linked[0].output));
  }
  *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!*handle) return Error::Invalid(std::string("dlopen: ") + dlerror());
  return Status();
}

CppBatch::~CppBatch() {
  if (handle_) dlclose(handle_);
}

GuardedBuffers::GuardedBuffers(const std::vector<std::vector<uint8_t>>& buffers,
                               const std::vector<int>& aliases)
    : aliases_(aliases) {
  for (const auto& b : buffers) {
    total_ += kGuard;
    offsets_.push_back(total_);
    sizes_.push_back(b.size());
    total_ += (b.size() + 63) / 64 * 64;
  }
  total_ += kGuard;
  void* mem = mmap(nullptr, total_, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return;
  base_ = static_cast<uint8_t*>(mem);
  std::memset(base_, kGuardByte, total_);
  for (size_t i = 0; i < buffers.size(); ++i) {
    // An empty buffer's data() may be null, which memcpy may not take.
    if (AliasOf(i) == i && !buffers[i].empty()) {
      std::memcpy(base_ + offsets_[i], buffers[i].data(), buffers[i].size());
    }
    pointers_.push_back(base_ + offsets_[AliasOf(i)]);
  }
}

GuardedBuffers::~GuardedBuffers() {
  if (base_) munmap(base_, total_);
}

std::string GuardedBuffers::CopyOut(std::vector<std::vector<uint8_t>>* buffers,
                                    const std::string& name) const {
  for (size_t i = 0; i < buffers->size(); ++i) {
    size_t size = (*buffers)[i].size();
    if (size > 0) {
      std::memcpy((*buffers)[i].data(), base_ + offsets_[AliasOf(i)], size);
    }
    auto guard_ok = [&](size_t from, size_t to) {
      for (size_t k = from; k < to; ++k) {
        if (base_[k] != kGuardByte) return false;
      }
      return true;
    };
    size_t padded = (size + 63) / 64 * 64;
    if (!guard_ok(offsets_[i] - kGuard, offsets_[i]) ||
        !guard_ok(offsets_[i] + size, offsets_[i] + padded + kGuard)) {
      return "kernel '" + name + "' wrote outside buffer " + std::to_string(i);
    }
  }
  return "";
}

std::string ChildFailure(const std::string& name, int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return "kernel '" + name + "' crashed" +
         (WIFSIGNALED(status)
              ? " (signal " + std::to_string(WTERMSIG(status)) + ")"
              : "");
}

Status CppBatch::Run(const std::string& name,
                     std::vector<std::vector<uint8_t>>* buffers,
                     const std::vector<int>& aliases) const {
  using Kernel = void (*)(void* const*);
  void* sym = handle_ ? dlsym(handle_, name.c_str()) : nullptr;
  if (!sym) return Error::Invalid("kernel '" + name + "' not found");
  Kernel kernel = reinterpret_cast<Kernel>(sym);
  GuardedBuffers memory(*buffers, aliases);
  if (!memory.ok()) return Error::Invalid("mmap failed");
  pid_t pid = fork();
  if (pid == 0) {
    // The test framework's handlers must not report the child's crash.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
      signal(sig, SIG_DFL);
    }
    kernel(memory.pointers().data());
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::string error = ChildFailure(name, status);
  if (error.empty()) error = memory.CopyOut(buffers, name);
  if (!error.empty()) return Error::Invalid(error);
  return Status();
}

std::optional<std::string> FindTool(
    const std::string& name, const std::vector<std::string>& extra_dirs) {
  const char* path = std::getenv("PATH");
  std::vector<std::string> dirs;
  if (path) {
    std::stringstream in(path);
    std::string d;
    while (std::getline(in, d, ':')) dirs.push_back(d);
  }
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const std::string& d : dirs) {
    std::string p = d + "/" + name;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

std::optional<std::string> FindNvcc() {
  // IXA_NO_NVCC=1: run as a machine without nvcc does (to time the suite).
  const char* off = std::getenv("IXA_NO_NVCC");
  if (off && std::string(off) == "1") return std::nullopt;
  return FindTool("nvcc", {"/usr/local/cuda/bin", "/opt/cuda/bin"});
}

std::vector<std::string> VerifyMlir(const std::vector<std::string>& modules) {
  std::vector<std::string> errors(modules.size());
  auto opt = FindTool("mlir-opt-14", {"/usr/lib/llvm-14/bin"});
  if (!opt) {
    for (auto& e : errors) e = "mlir-opt-14 not found";
    return errors;
  }
  TempDir dir;
  // Most modules verify: two runs of mlir-opt check them all, each over
  // half of the modules as split inputs (a start of mlir-opt costs more
  // than verifying a kernel). A half that fails is verified module by
  // module, so that each error is its own module's.
  const size_t halves = std::min<size_t>(2, modules.size());
  std::vector<std::string> commands;
  for (size_t h = 0; h < halves; ++h) {
    std::string text;
    for (size_t i = h; i < modules.size(); i += halves) {
      text += modules[i] + "\n// -----\n";
    }
    std::string f = dir.Write("half" + std::to_string(h) + ".mlir", text);
    commands.push_back(*opt + " --split-input-file " + f + " -o /dev/null");
  }
  auto batches = RunCommands(commands);
  std::vector<size_t> alone;
  commands.clear();
  for (size_t i = 0; i < modules.size(); ++i) {
    if (batches[i % halves].exit_code == 0) continue;
    std::string f = dir.Write("m" + std::to_string(i) + ".mlir", modules[i]);
    commands.push_back(*opt + " " + f + " -o /dev/null");
    alone.push_back(i);
  }
  auto results = RunCommands(commands);
  for (size_t k = 0; k < results.size(); ++k) {
    if (results[k].exit_code != 0)
      errors[alone[k]] = FirstLines(results[k].output, 20);
  }
  return errors;
}

namespace {

// MLIR storage element type of a buffer (f16/bf16 as bits, pred as i8).
std::string MlirStorageType(hlo::ElementType t) {
  switch (t) {
    case hlo::ElementType::kF32:
      return "f32";
    case hlo::ElementType::kF64:
      return "f64";
    default:  // sub-byte elements take at least a byte
      return "i" + std::to_string(std::max(8, Bits(t)));
  }
}

}  // namespace

Status RunMlirHost(const std::string& module, const std::string& kernel,
                   std::vector<MlirBuffer>* buffers) {
  auto opt = FindTool("mlir-opt-14", {"/usr/lib/llvm-14/bin"});
  auto runner = FindTool("mlir-cpu-runner-14", {"/usr/lib/llvm-14/bin"});
  if (!opt || !runner) return Error::Unsupported("mlir-14-tools not found");
  // The runtime library ships in libmlir-14 as .so.14; the unversioned link
  // exists only with libmlir-14-dev, which the setup does not install.
  std::string runner_utils;
  for (const char* path : {"/usr/lib/llvm-14/lib/libmlir_c_runner_utils.so.14",
                           "/usr/lib/llvm-14/lib/libmlir_c_runner_utils.so"}) {
    if (std::ifstream(path).good()) {
      runner_utils = path;
      break;
    }
  }
  if (runner_utils.empty()) {
    return Error::Unsupported(
        "libmlir_c_runner_utils.so.14 not found (Debian package libmlir-14)");
  }
  std::ostringstream m;
  m << module << "\n";
  m << "func private @printI64(i64)\nfunc private @printNewline()\n";
  std::vector<int64_t> words(buffers->size());
  for (size_t i = 0; i < buffers->size(); ++i) {
    MlirBuffer& b = (*buffers)[i];
    PhysicalLayout layout = ComputePhysicalLayout(b.shape);
    b.bytes.resize(layout.bytes());
    int64_t padded = std::max<int64_t>(8, (layout.bytes() + 7) / 8 * 8);
    words[i] = padded / 8;
    if (!b.is_output || b.initialized) {
      m << "memref.global \"private\" constant @ixa_in" << i << " : memref<"
        << padded << "xi8> = dense<[";
      for (int64_t k = 0; k < padded; ++k) {
        int v = k < static_cast<int64_t>(b.bytes.size())
                    ? static_cast<int8_t>(b.bytes[k])
                    : 0;
        m << (k ? ", " : "") << v;
      }
      m << "]>\n";
    }
  }
  m << "func @main() {\n";
  m << "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n";
  m << "  %fill = arith.constant -85 : i8\n";  // 0xAB
  std::string args, types;
  for (size_t i = 0; i < buffers->size(); ++i) {
    const MlirBuffer& b = (*buffers)[i];
    PhysicalLayout layout = ComputePhysicalLayout(b.shape);
    int64_t padded = words[i] * 8;
    std::string mem = "memref<" + std::to_string(padded) + "xi8>";
    m << "  %raw" << i << " = memref.alloc() : " << mem << "\n";
    if (b.is_output && !b.initialized) {
      m << "  %n" << i << " = arith.constant " << padded << " : index\n";
      m << "  scf.for %k = %c0 to %n" << i << " step %c1 {\n"
        << "    memref.store %fill, %raw" << i << "[%k] : " << mem << "\n  }\n";
    } else {
      m << "  %g" << i << " = memref.get_global @ixa_in" << i << " : " << mem
        << "\n  memref.copy %g" << i << ", %raw" << i << " : " << mem << " to "
        << mem << "\n";
    }
    std::string view =
        "memref<" +
        std::to_string(std::max<int64_t>(
            layout.packed() ? layout.bytes() : layout.elements, 1)) +
        "x" + MlirStorageType(b.shape.type) + ">";
    m << "  %b" << i << " = memref.view %raw" << i << "[%c0][] : " << mem
      << " to " << view << "\n";
    args += (i ? ", " : "") + std::string("%b") + std::to_string(i);
    types += (i ? ", " : "") + view;
  }
  m << "  call @" << kernel << "(" << args << ") : (" << types << ") -> ()\n";
  for (size_t i = 0; i < buffers->size(); ++i) {
    if (!(*buffers)[i].is_output) continue;
    std::string mem = "memref<" + std::to_string(words[i] * 8) + "xi8>";
    std::string wmem = "memref<" + std::to_string(words[i]) + "xi64>";
    m << "  %w" << i << " = memref.view %raw" << i << "[%c0][] : " << mem
      << " to " << wmem << "\n";
    m << "  %nw" << i << " = arith.constant " << words[i] << " : index\n";
    m << "  scf.for %k = %c0 to %nw" << i << " step %c1 {\n"
      << "    %v = memref.load %w" << i << "[%k] : " << wmem << "\n"
      << "    call @printI64(%v) : (i64) -> ()\n"
      << "    call @printNewline() : () -> ()\n  }\n";
  }
  m << "  return\n}\n";
  TempDir dir;
  std::string src = dir.Write("main.mlir", m.str());
  std::string lowered = dir.path() + "/lowered.mlir";
  auto lower = RunCommands(
      {*opt + " " + src +
       " --lower-affine --convert-scf-to-std --convert-memref-to-llvm "
       "--convert-math-to-llvm --convert-arith-to-llvm --convert-std-to-llvm "
       "--reconcile-unrealized-casts -o " +
       lowered});
  if (lower[0].exit_code != 0) {
    return Error::Invalid("mlir lowering failed:\n" +
                          FirstLines(lower[0].output));
  }
  std::string out_file = dir.path() + "/out.txt";
  auto run = RunCommands({*runner + " " + lowered +
                          " -e main -entry-point-result=void -shared-libs=" +
                          runner_utils + " > " + out_file});
  if (run[0].exit_code != 0) {
    return Error::Invalid("mlir-cpu-runner failed:\n" +
                          FirstLines(run[0].output));
  }
  std::ifstream in(out_file);
  for (size_t i = 0; i < buffers->size(); ++i) {
    MlirBuffer& b = (*buffers)[i];
    if (!b.is_output) continue;
    std::vector<uint8_t> bytes(words[i] * 8);
    for (int64_t w = 0; w < words[i]; ++w) {
      long long v;
      if (!(in >> v)) return Error::Invalid("mlir run: output too short");
      std::memcpy(bytes.data() + w * 8, &v, 8);
    }
    bytes.resize(b.bytes.size());
    b.bytes = std::move(bytes);
  }
  return Status();
}

namespace {

std::string BoundedNvcc(const std::string& nvcc, const std::string& source,
                        const std::string& output, const NvccOptions& options) {
  return "ulimit -v " + std::to_string(options.memory_kb) + " && timeout " +
         std::to_string(options.seconds) + " " + nvcc +
         " -std=c++17 -arch=" + options.arch +
         (options.ptxas_verbose || options.no_spills ? " -Xptxas -v" : "") +
         (options.ptx           ? " -ptx "
          : options.device_only ? " -cubin "
                                : " -c ") +
         source + " -o " + output;
}

std::string NvccFailure(const CommandResult& r, const NvccOptions& options) {
  std::string bound;
  if (r.exit_code == 124) {
    bound = "nvcc ran past " + std::to_string(options.seconds) + " s\n";
  } else if (r.output.find("out of memory") != std::string::npos ||
             r.output.find("bad_alloc") != std::string::npos ||
             r.output.find("Killed") != std::string::npos) {
    bound = "nvcc ran out of its " + std::to_string(options.memory_kb / 1024) +
            " MB\n";
  }
  return bound + FirstLines(r.output, 30);
}

// ptxas -v's lines that report a nonzero spill, with the kernel line
// before each ("Compiling entry function '...'"); empty when none.
std::string SpillReport(const std::string& output) {
  static const std::regex spill(
      R"((\d+) bytes spill stores, (\d+) bytes spill loads)");
  std::string report, kernel;
  std::stringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("Compiling entry function") != std::string::npos) {
      kernel = line;
    }
    std::smatch m;
    if (std::regex_search(line, m, spill) &&
        (std::stoll(m[1]) != 0 || std::stoll(m[2]) != 0)) {
      report += "spills to local memory: " + kernel + "\n" + line + "\n";
    }
  }
  return report;
}

}  // namespace

std::vector<std::string> CompileCuda(const std::string& nvcc,
                                     const std::vector<std::string>& units,
                                     const NvccOptions& options) {
  TempDir dir;
  std::vector<std::string> commands;
  for (size_t i = 0; i < units.size(); ++i) {
    std::string f = dir.Write("k" + std::to_string(i) + ".cu", units[i]);
    commands.push_back(BoundedNvcc(nvcc, f, f + ".o", options));
  }
  auto results = RunCommands(commands);
  std::vector<std::string> errors(units.size());
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].exit_code != 0) {
      errors[i] = NvccFailure(results[i], options);
      if (errors[i].empty()) errors[i] = "nvcc failed";
    } else if (options.no_spills) {
      errors[i] = SpillReport(results[i].output);
    }
  }
  return errors;
}

Result<std::string> CudaToPtx(const std::string& nvcc, const std::string& unit,
                              NvccOptions options) {
  options.ptx = true;
  TempDir dir;
  std::string f = dir.Write("k.cu", unit);
  auto results = RunCommands({BoundedNvcc(nvcc, f, f + ".ptx", options)});
  if (results[0].exit_code != 0) {
    return Error::Invalid(NvccFailure(results[0], options));
  }
  std::ifstream in(f + ".ptx");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Result<PtxasUsage>> PtxasUsageOf(
    const std::string& nvcc, const std::vector<std::string>& units,
    NvccOptions options) {
  options.ptx = false;
  options.ptxas_verbose = true;
  options.device_only = true;  // ptxas's report is all that is read
  TempDir dir;
  std::vector<std::string> commands;
  for (size_t i = 0; i < units.size(); ++i) {
    std::string f = dir.Write("k" + std::to_string(i) + ".cu", units[i]);
    commands.push_back(BoundedNvcc(nvcc, f, f + ".o", options));
  }
  std::vector<CommandResult> results = RunCommands(commands);
  std::vector<Result<PtxasUsage>> out;
  // ptxas info    : Used 28 registers, used 1 barriers, ...
  // ptxas info    : 0 bytes stack frame, 0 bytes spill stores, 0 bytes
  // spill loads
  const std::regex registers(R"(Used (\d+) registers)");
  const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes )"
      R"(spill loads)");
  for (const CommandResult& r : results) {
    if (r.exit_code != 0) {
      out.push_back(Error::Invalid(NvccFailure(r, options)));
      continue;
    }
    std::smatch m;
    PtxasUsage u;
    if (std::regex_search(r.output, m, registers)) {
      u.registers = std::stoi(m[1]);
    }
    if (std::regex_search(r.output, m, frame)) {
      u.stack_bytes = std::stoll(m[1]);
      u.spill_store_bytes = std::stoll(m[2]);
      u.spill_load_bytes = std::stoll(m[3]);
    }
    if (u.registers < 0 || u.spill_store_bytes < 0) {
      out.push_back(
          Error::Invalid("no ptxas report in:\n" + FirstLines(r.output, 20)));
      continue;
    }
    out.push_back(u);
  }
  return out;
}

}  // namespace ixa::emit_test
