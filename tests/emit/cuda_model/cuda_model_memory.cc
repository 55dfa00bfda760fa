// memcpy, memmove and memset for the kernel batches of the CPU model of
// CUDA (cuda_model.h). Clang lowers aggregate copies (a vector load into a
// struct) to calls of these, which its ThreadSanitizer instrumentation
// does not report; defined hidden here, they serve only the shared object
// they are linked into, report the access, then copy through glibc. This
// file includes no C library header: their declarations would conflict
// with the hidden visibility.

using Size = decltype(sizeof(0));

extern "C" {

void ixa_cuda_model_on_copy(const void* source, void* destination, Size bytes);
void* __memcpy_chk(void*, const void*, Size, Size) noexcept;
void* __memmove_chk(void*, const void*, Size, Size) noexcept;
void* __memset_chk(void*, int, Size, Size) noexcept;

}  // extern "C"

namespace {
// Called through volatile pointers: a compiler that knows __memcpy_chk
// with equal sizes would turn the call back into memcpy (this one).
void* (*volatile const glibc_memcpy)(void*, const void*, Size,
                                     Size) = __memcpy_chk;
void* (*volatile const glibc_memmove)(void*, const void*, Size,
                                      Size) = __memmove_chk;
void* (*volatile const glibc_memset)(void*, int, Size, Size) = __memset_chk;
}  // namespace

extern "C" {

__attribute__((visibility("hidden"))) void* memcpy(void* d, const void* s,
                                                   Size n) noexcept {
  ixa_cuda_model_on_copy(s, d, n);
  return glibc_memcpy(d, s, n, n);
}
__attribute__((visibility("hidden"))) void* memmove(void* d, const void* s,
                                                    Size n) noexcept {
  ixa_cuda_model_on_copy(s, d, n);
  return glibc_memmove(d, s, n, n);
}
__attribute__((visibility("hidden"))) void* memset(void* d, int c,
                                                   Size n) noexcept {
  ixa_cuda_model_on_copy(nullptr, d, n);
  return glibc_memset(d, c, n, n);
}

}  // extern "C"
