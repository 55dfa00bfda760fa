#include "tests/emit/emit_program_runner.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace ixa::emit_test {

using ProgramEntry = int (*)(const void* const*, void* const*);

Status CppPrograms::Build(const std::vector<CppKernel>& programs) {
  std::vector<std::string> sources = BatchSources(programs, 2);
  std::vector<std::string> commands;
  std::string objects;
  for (size_t u = 0; u < sources.size(); ++u) {
    std::string src =
        dir_.Write("program" + std::to_string(u) + ".cc", sources[u]);
    commands.push_back(Compiler() +
                       " -std=c++17 -O1 -fPIC -DIXA_NO_MAIN -w -c " + src +
                       " -o " + src + ".o");
    objects += " " + src + ".o";
  }
  for (const CommandResult& r : RunCommands(commands)) {
    if (r.exit_code != 0) {
      return Error::Invalid("g++ rejected the programs:\n" +
                            FirstLines(r.output));
    }
  }
  const std::string so = dir_.path() + "/programs.so";
  CommandResult link =
      RunCommands({Compiler() + " -shared -o " + so + objects})[0];
  if (link.exit_code != 0) {
    return Error::Invalid("link failed:\n" + FirstLines(link.output));
  }
  handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) return Error::Invalid("dlopen failed");
  return Status();
}
Result<std::vector<std::vector<uint8_t>>> CppPrograms::Run(
    const std::string& entry, const std::vector<std::vector<uint8_t>>& params,
    const std::vector<size_t>& result_bytes) const {
  auto run = reinterpret_cast<ProgramEntry>(dlsym(handle_, entry.c_str()));
  if (run == nullptr) return Error::Invalid("no entry point");
  // Past each result, bytes the program must leave alone.
  constexpr size_t kPast = 64;
  size_t total = 0;
  for (size_t bytes : result_bytes) total += bytes + kPast;
  void* shared =
      mmap(nullptr, std::max<size_t>(total, 1), PROT_READ | PROT_WRITE,
           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return Error::Invalid("mmap failed");
  uint8_t* memory = static_cast<uint8_t*>(shared);
  std::memset(memory, 0xAB, total);
  std::vector<void*> results;
  for (size_t k = 0, at = 0; k < result_bytes.size(); ++k) {
    results.push_back(memory + at);
    at += result_bytes[k] + kPast;
  }
  std::vector<const void*> param_ptrs;
  for (const auto& b : params) param_ptrs.push_back(b.data());
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
    _exit(run(param_ptrs.data(), results.data()) == 0 ? 0 : 3);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::string error = WIFEXITED(status) && WEXITSTATUS(status) == 3
                          ? "the program returned nonzero"
                          : ChildFailure(entry, status);
  std::vector<std::vector<uint8_t>> outputs;
  for (size_t k = 0; k < result_bytes.size() && error.empty(); ++k) {
    const uint8_t* at = static_cast<const uint8_t*>(results[k]);
    for (size_t i = 0; i < kPast; ++i) {
      if (at[result_bytes[k] + i] != 0xAB) {
        error = "the program writes past result " + std::to_string(k);
      }
    }
    outputs.emplace_back(at, at + result_bytes[k]);
  }
  munmap(shared, std::max<size_t>(total, 1));
  if (!error.empty()) return Error::Invalid(error);
  return outputs;
}

CppPrograms::~CppPrograms() {
  if (handle_) dlclose(handle_);
}

}  // namespace ixa::emit_test
