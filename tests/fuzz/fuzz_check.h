// What the libFuzzer harnesses share: a failed property aborts with a
// message (libFuzzer then saves the input as crash-<hash>).
#ifndef IXA_TESTS_FUZZ_FUZZ_CHECK_H_
#define IXA_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>

namespace ixa::fuzz {

[[noreturn]] inline void Fail(const std::string& what,
                              const std::string& detail) {
  std::fprintf(stderr, "FUZZ PROPERTY FAILED: %s\n%s\n", what.c_str(),
               detail.c_str());
  std::abort();
}

}  // namespace ixa::fuzz

#endif  // IXA_TESTS_FUZZ_FUZZ_CHECK_H_
