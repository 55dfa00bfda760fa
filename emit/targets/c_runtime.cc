// Runtime helpers of the C++ and CUDA targets: element encodings (f16,
// bf16 as bits), XLA's integer and float semantics, floor division of
// indices. Each is printed into a kernel's unit only when it is used.
#include <cstring>

#include "emit/targets/targets.h"

namespace ixa::emit {
namespace {

const CHelper kHelpers[] = {
    {"ixa_bits",
     "template <typename To, typename From>\n"
     "IXA_FN To ixa_bits(From v) {\n"
     "  static_assert(sizeof(To) == sizeof(From), \"same width\");\n"
     "  To out;\n"
     "  memcpy(&out, &v, sizeof(To));\n"
     "  return out;\n"
     "}\n",
     ""},
    {"ixa_bf16_to_f32",
     "IXA_FN float ixa_bf16_to_f32(uint16_t h) {\n"
     "  return ixa_bits<float>(static_cast<uint32_t>(h) << 16);\n"
     "}\n",
     "ixa_bits"},
    // Round to nearest even on the 16 dropped bits (a carry into the
    // exponent is the right rounding, up to infinity). A NaN keeps its
    // payload's top bits, so that a bf16 NaN read and stored again (data
    // movement) keeps its bits; only a payload that would vanish becomes
    // the quiet bit.
    {"ixa_f32_to_bf16",
     "IXA_FN uint16_t ixa_f32_to_bf16(float f) {\n"
     "  uint32_t u = ixa_bits<uint32_t>(f);\n"
     "  if (f != f) {\n"
     "    uint16_t h = static_cast<uint16_t>(u >> 16);\n"
     "    return static_cast<uint16_t>((h & 0x7f) ? h : (h | 0x40));\n"
     "  }\n"
     "  uint64_t wide = static_cast<uint64_t>(u) + 0x7fff + ((u >> 16) & 1);\n"
     "  return static_cast<uint16_t>(wide >> 16);\n"
     "}\n",
     "ixa_bits"},
    {"ixa_round_bf16",
     "IXA_FN float ixa_round_bf16(float f) {\n"
     "  return ixa_bf16_to_f32(ixa_f32_to_bf16(f));\n"
     "}\n",
     "ixa_bf16_to_f32 ixa_f32_to_bf16"},
    {"ixa_f16_to_f32",
     "IXA_FN float ixa_f16_to_f32(uint16_t h) {\n"
     "  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;\n"
     "  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;\n"
     "  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in f32\n"
     "    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;\n"
     "    return sign ? -v : v;\n"
     "  }\n"
     "  if (exp == 31) return ixa_bits<float>(sign | 0x7f800000u | (mant << "
     "13));\n"
     "  return ixa_bits<float>(sign | ((exp + 112) << 23) | (mant << 13));\n"
     "}\n",
     "ixa_bits"},
    // f32 -> f16 with round to nearest even, subnormals and overflow to
    // infinity included. A NaN keeps its payload's top 10 bits (an f16 NaN
    // read and stored again keeps its bits); a payload that would vanish
    // becomes the quiet bit.
    {"ixa_f32_to_f16",
     "IXA_FN uint16_t ixa_f32_to_f16(float f) {\n"
     "  uint32_t u = ixa_bits<uint32_t>(f);\n"
     "  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);\n"
     "  uint32_t a = u & 0x7fffffffu;\n"
     "  if (a > 0x7f800000u) {\n"
     "    uint32_t m = (a >> 13) & 0x3ff;\n"
     "    return static_cast<uint16_t>(sign | 0x7c00 | (m ? m : 0x200));\n"
     "  }\n"
     "  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00);\n"
     "  if (a < 0x38800000u) {  // below the smallest normal half\n"
     "    if (a < 0x33000000u) return sign;  // rounds to zero\n"
     "    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;\n"
     "    uint32_t shift = 126 - e;  // 14..24 (+ the 10-bit field)\n"
     "    uint32_t q = m >> shift, rest = m & ((1u << shift) - 1);\n"
     "    uint32_t half = 1u << (shift - 1);\n"
     "    if (rest > half || (rest == half && (q & 1))) ++q;\n"
     "    return static_cast<uint16_t>(sign | q);\n"
     "  }\n"
     "  uint32_t r = a - 0x38000000u;  // rebias the exponent\n"
     "  uint32_t q = r >> 13, rest = r & 0x1fff;\n"
     "  if (rest > 0x1000 || (rest == 0x1000 && (q & 1))) ++q;\n"
     "  return static_cast<uint16_t>(sign | q);\n"
     "}\n",
     "ixa_bits"},
    {"ixa_round_f16",
     "IXA_FN float ixa_round_f16(float f) {\n"
     "  return ixa_f16_to_f32(ixa_f32_to_f16(f));\n"
     "}\n",
     "ixa_f16_to_f32 ixa_f32_to_f16"},
    // CUDA: the hardware conversions (cvt.rn.bf16.f32, cvt.rn.f16.f32),
    // rounding to nearest even in one instruction where the integer
    // routines above take a dozen. Rounding an f32 result to bf16 / f16
    // and back (each op of a 16-bit type, computed in f32 as XLA does);
    // a NaN stays a NaN.
    {"ixa_cuda_round_bf16",
     "IXA_FN float ixa_cuda_round_bf16(float f) {\n"
     "  return __bfloat162float(__float2bfloat16_rn(f));\n"
     "}\n",
     "", "<cuda_bf16.h>"},
    {"ixa_cuda_round_f16",
     "IXA_FN float ixa_cuda_round_f16(float f) {\n"
     "  return __half2float(__float2half_rn(f));\n"
     "}\n",
     "", "<cuda_fp16.h>"},
    // Storing: the hardware conversion gives a NaN the canonical NaN's
    // bits; the NaN's own top bits are kept instead (data movement keeps
    // them, as ixa_f32_to_bf16 / ixa_f32_to_f16 do), a payload that would
    // vanish becoming the quiet bit.
    {"ixa_cuda_f32_to_bf16",
     "IXA_FN uint16_t ixa_cuda_f32_to_bf16(float f) {\n"
     "  if (f != f) {\n"
     "    uint16_t h = static_cast<uint16_t>(__float_as_uint(f) >> 16);\n"
     "    return static_cast<uint16_t>((h & 0x7f) ? h : (h | 0x40));\n"
     "  }\n"
     "  return __bfloat16_as_ushort(__float2bfloat16_rn(f));\n"
     "}\n",
     "", "<cuda_bf16.h>"},
    {"ixa_cuda_f32_to_f16",
     "IXA_FN uint16_t ixa_cuda_f32_to_f16(float f) {\n"
     "  if (f != f) {\n"
     "    uint32_t u = __float_as_uint(f);\n"
     "    uint32_t m = (u >> 13) & 0x3ff;\n"
     "    return static_cast<uint16_t>(((u >> 16) & 0x8000) | 0x7c00 |\n"
     "                                 (m ? m : 0x200));\n"
     "  }\n"
     "  return __half_as_ushort(__float2half_rn(f));\n"
     "}\n",
     "", "<cuda_fp16.h>"},
    // Loading an f16: the hardware conversion, except for a NaN, whose
    // bits (not documented through the conversion) are widened by hand.
    // A bf16 widens by a shift (ixa_bf16_to_f32) on both targets.
    {"ixa_cuda_f16_to_f32",
     "IXA_FN float ixa_cuda_f16_to_f32(uint16_t h) {\n"
     "  if ((h & 0x7fff) > 0x7c00) {\n"
     "    return __uint_as_float((static_cast<uint32_t>(h & 0x8000) << 16) "
     "|\n"
     "                           0x7f800000u |\n"
     "                           (static_cast<uint32_t>(h & 0x3ff) << 13));\n"
     "  }\n"
     "  return __half2float(__ushort_as_half(h));\n"
     "}\n",
     "", "<cuda_fp16.h>"},
    // Floor division and modulo of indices (a negative numerator rounds
    // toward minus infinity, as indexing maps define them). Templates: the
    // CUDA target computes indices in int where they fit, else in int64_t;
    // a literal operand is an int either way.
    {"ixa_floordiv",
     "template <typename A, typename B>\n"
     "IXA_FN typename std::common_type<A, B>::type ixa_floordiv(A a, B b) {\n"
     "  using T = typename std::common_type<A, B>::type;\n"
     "  const T x = a, y = b, q = x / y;\n"
     "  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;\n"
     "}\n",
     ""},
    {"ixa_ceildiv",
     "template <typename A, typename B>\n"
     "IXA_FN typename std::common_type<A, B>::type ixa_ceildiv(A a, B b) {\n"
     "  using T = typename std::common_type<A, B>::type;\n"
     "  const T x = a, y = b, q = x / y;\n"
     "  return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;\n"
     "}\n",
     ""},
    {"ixa_mod",
     "template <typename A, typename B>\n"
     "IXA_FN typename std::common_type<A, B>::type ixa_mod(A a, B b) {\n"
     "  using T = typename std::common_type<A, B>::type;\n"
     "  const T x = a, y = b;\n"
     "  return x - y * ixa_floordiv(x, y);\n"
     "}\n",
     "ixa_floordiv"},
    {"ixa_imin",
     "template <typename A, typename B>\n"
     "IXA_FN typename std::common_type<A, B>::type ixa_imin(A a, B b) {\n"
     "  using T = typename std::common_type<A, B>::type;\n"
     "  return static_cast<T>(a) < static_cast<T>(b) ? a : b;\n"
     "}\n",
     ""},
    {"ixa_imax",
     "template <typename A, typename B>\n"
     "IXA_FN typename std::common_type<A, B>::type ixa_imax(A a, B b) {\n"
     "  using T = typename std::common_type<A, B>::type;\n"
     "  return static_cast<T>(a) > static_cast<T>(b) ? a : b;\n"
     "}\n",
     ""},
    {"ixa_clamp_index",
     "IXA_FN int64_t ixa_clamp_index(int64_t x, int64_t lo, int64_t hi) {\n"
     "  return x < lo ? lo : (x > hi ? hi : x);\n"
     "}\n",
     ""},
    // XLA's float max / min (arith.maximumf / minimumf, IEEE-754 2019
    // maximum / minimum): NaN propagates, and -0 < +0 (between equal
    // values the bits' and / or picks +0 for max, -0 for min).
    {"ixa_fmax",
     "template <typename T>\n"
     "IXA_FN T ixa_fmax(T a, T b) {\n"
     "  if (a != a) return a;\n"
     "  if (b != b) return b;\n"
     "  if (a == b) {\n"
     "    using U = typename std::conditional<sizeof(T) == 8, uint64_t,\n"
     "                                        uint32_t>::type;\n"
     "    return ixa_bits<T>(static_cast<U>(ixa_bits<U>(a) & "
     "ixa_bits<U>(b)));\n"
     "  }\n"
     "  return a > b ? a : b;\n"
     "}\n",
     "ixa_bits"},
    {"ixa_fmin",
     "template <typename T>\n"
     "IXA_FN T ixa_fmin(T a, T b) {\n"
     "  if (a != a) return a;\n"
     "  if (b != b) return b;\n"
     "  if (a == b) {\n"
     "    using U = typename std::conditional<sizeof(T) == 8, uint64_t,\n"
     "                                        uint32_t>::type;\n"
     "    return ixa_bits<T>(static_cast<U>(ixa_bits<U>(a) | "
     "ixa_bits<U>(b)));\n"
     "  }\n"
     "  return a < b ? a : b;\n"
     "}\n",
     "ixa_bits"},
    {"ixa_fsign",
     "template <typename T>\n"
     "IXA_FN T ixa_fsign(T a) {\n"
     "  return a != a ? a : (a > 0 ? T(1) : (a < 0 ? T(-1) : a));\n"
     "}\n",
     ""},
    // Integer division: x / 0 = -1 (all ones), INT_MIN / -1 = INT_MIN;
    // x % 0 = x, INT_MIN % -1 = 0.
    {"ixa_idiv",
     "template <typename T>\n"
     "IXA_FN T ixa_idiv(T a, T b) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  if (b == 0) return static_cast<T>(~U(0));\n"
     "  if (std::is_signed<T>::value && b == static_cast<T>(~U(0)) &&\n"
     "      static_cast<U>(a) == (U(1) << (sizeof(T) * 8 - 1))) {\n"
     "    return a;\n"
     "  }\n"
     "  return static_cast<T>(a / b);\n"
     "}\n",
     ""},
    {"ixa_irem",
     "template <typename T>\n"
     "IXA_FN T ixa_irem(T a, T b) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  if (b == 0) return a;\n"
     "  if (std::is_signed<T>::value && b == static_cast<T>(~U(0))) return 0;\n"
     "  return static_cast<T>(a % b);\n"
     "}\n",
     ""},
    // Shift amounts are unsigned: past the width, 0 (or the sign).
    {"ixa_shl",
     "template <typename T>\n"
     "IXA_FN T ixa_shl(T a, T b) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  if (static_cast<U>(b) >= sizeof(T) * 8) return 0;\n"
     "  return static_cast<T>(static_cast<U>(static_cast<U>(a) << "
     "static_cast<U>(b)));\n"
     "}\n",
     ""},
    {"ixa_shr_logical",
     "template <typename T>\n"
     "IXA_FN T ixa_shr_logical(T a, T b) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  if (static_cast<U>(b) >= sizeof(T) * 8) return 0;\n"
     "  return static_cast<T>(static_cast<U>(a) >> static_cast<U>(b));\n"
     "}\n",
     ""},
    {"ixa_shr_arith",
     "template <typename T>\n"
     "IXA_FN T ixa_shr_arith(T a, T b) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  using S = typename std::make_signed<T>::type;\n"
     "  S s = static_cast<S>(a);\n"
     "  if (static_cast<U>(b) >= sizeof(T) * 8) return static_cast<T>(s < 0 ? "
     "S(-1) : S(0));\n"
     "  return static_cast<T>(s >> static_cast<U>(b));\n"
     "}\n",
     ""},
    // Float power: x^0 = 1 and 1^y = 1 whatever the other operand, a
    // signalling NaN included (XLA; glibc's pow answers a quiet NaN there).
    {"ixa_fpow",
     "template <typename T>\n"
     "IXA_FN T ixa_fpow(T a, T b) {\n"
     "  if (b == T(0) || a == T(1)) return T(1);\n"
     "#ifdef __CUDACC__\n"
     "  return pow(a, b);\n"
     "#else\n"
     "  return std::pow(a, b);\n"
     "#endif\n"
     "}\n",
     ""},
    // Integer power by squaring with wrap-around; negative exponents:
    // 1 for base 1, +-1 for base -1, else 0 (XLA).
    {"ixa_ipow",
     "template <typename T>\n"
     "IXA_FN T ixa_ipow(T a, T b) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  if (std::is_signed<T>::value && b < 0) {\n"
     "    if (a == 1) return 1;\n"
     "    if (a == static_cast<T>(~U(0))) return (b & 1) ? a : T(1);\n"
     "    return 0;\n"
     "  }\n"
     "  U base = static_cast<U>(a), e = static_cast<U>(b), r = 1;\n"
     "  while (e) {\n"
     "    if (e & 1) r = static_cast<U>(r * base);\n"
     "    base = static_cast<U>(base * base);\n"
     "    e >>= 1;\n"
     "  }\n"
     "  return static_cast<T>(r);\n"
     "}\n",
     ""},
    {"ixa_iabs",
     "template <typename T>\n"
     "IXA_FN T ixa_iabs(T a) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  return a < 0 ? static_cast<T>(U(0) - static_cast<U>(a)) : a;\n"
     "}\n",
     ""},
    {"ixa_isign",
     "template <typename T>\n"
     "IXA_FN T ixa_isign(T a) {\n"
     "  return static_cast<T>(a > 0 ? 1 : (a < 0 ? -1 : 0));\n"
     "}\n",
     ""},
    {"ixa_popcnt",
     "template <typename T>\n"
     "IXA_FN T ixa_popcnt(T a) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  U v = static_cast<U>(a);\n"
     "  T n = 0;\n"
     "  while (v) {\n"
     "    n = static_cast<T>(n + (v & 1));\n"
     "    v = static_cast<U>(v >> 1);\n"
     "  }\n"
     "  return n;\n"
     "}\n",
     ""},
    {"ixa_clz",
     "template <typename T>\n"
     "IXA_FN T ixa_clz(T a) {\n"
     "  using U = typename std::make_unsigned<T>::type;\n"
     "  U v = static_cast<U>(a);\n"
     "  T n = 0;\n"
     "  for (int b = sizeof(T) * 8 - 1; b >= 0 && !((v >> b) & 1); --b) ++n;\n"
     "  return n;\n"
     "}\n",
     ""},
    // Float -> integer conversion saturates; NaN gives 0.
    {"ixa_f2i",
     "template <typename To, typename From>\n"
     "IXA_FN To ixa_f2i(From v) {\n"
     "  using U = typename std::make_unsigned<To>::type;\n"
     "  const int bits = sizeof(To) * 8;\n"
     "  if (v != v) return 0;\n"
     "  if (std::is_signed<To>::value) {\n"
     "    const double lim = static_cast<double>(U(1) << (bits - 1));\n"
     "    if (static_cast<double>(v) >= lim) {\n"
     "      return static_cast<To>(static_cast<U>(~U(0)) >> 1);\n"
     "    }\n"
     "    if (static_cast<double>(v) < -lim) return static_cast<To>(U(1) << "
     "(bits - 1));\n"
     "    return static_cast<To>(v);\n"
     "  }\n"
     "  const double lim = 2.0 * static_cast<double>(U(1) << (bits - 1));\n"
     "  if (v <= 0) return 0;\n"
     "  if (static_cast<double>(v) >= lim) return static_cast<To>(~U(0));\n"
     "  return static_cast<To>(v);\n"
     "}\n",
     ""},
    {"ixa_iclamp",
     "template <typename T>\n"
     "IXA_FN T ixa_iclamp(T lo, T x, T hi) {\n"
     "  T m = x < lo ? lo : x;\n"
     "  return m > hi ? hi : m;\n"
     "}\n",
     ""},
    // Vectors of stored elements (vector loads and stores of the
    // vectorized stage). CUDA reads them as one aligned access.
    {"ixa_vec",
     "template <typename T, int N>\n"
     "struct alignas(sizeof(T) * N) ixa_vec {\n"
     "  T v[N];\n"
     "};\n",
     ""},
    {"ixa_vload",
     "template <typename T, int N>\n"
     "IXA_FN ixa_vec<T, N> ixa_vload(const T* p) {\n"
     "#ifdef __CUDACC__\n"
     "  return *reinterpret_cast<const ixa_vec<T, N>*>(p);\n"
     "#else\n"
     "  ixa_vec<T, N> r;\n"
     "  memcpy(&r, p, sizeof(r));\n"
     "  return r;\n"
     "#endif\n"
     "}\n",
     "ixa_vec"},
    {"ixa_vstore",
     "template <typename T, int N>\n"
     "IXA_FN void ixa_vstore(T* p, const ixa_vec<T, N>& v) {\n"
     "#ifdef __CUDACC__\n"
     "  *reinterpret_cast<ixa_vec<T, N>*>(p) = v;\n"
     "#else\n"
     "  memcpy(p, &v, sizeof(v));\n"
     "#endif\n"
     "}\n",
     "ixa_vec"},
    {"ixa_vinsert",
     "template <typename T, int N>\n"
     "IXA_FN ixa_vec<T, N> ixa_vinsert(ixa_vec<T, N> v, int64_t lane, T x) {\n"
     "  v.v[lane] = x;\n"
     "  return v;\n"
     "}\n",
     "ixa_vec"},
    // CUDA: the 16-bit hardware adds on an element stored as its bits
    // (atom / red .add.noftz.f16 and .bf16: subnormals kept).
    {"ixa_atomic_add_f16",
     "IXA_FN void ixa_atomic_add_f16(uint16_t* a, float v) {\n"
     "  atomicAdd(reinterpret_cast<__half*>(a), __float2half_rn(v));\n"
     "}\n",
     "", "<cuda_fp16.h>"},
    {"ixa_atomic_add_bf16",
     "IXA_FN void ixa_atomic_add_bf16(uint16_t* a, float v) {\n"
     "  atomicAdd(reinterpret_cast<__nv_bfloat16*>(a), "
     "__float2bfloat16_rn(v));\n"
     "}\n",
     "", "<cuda_bf16.h>"},
    // CUDA: an atomic read-modify-write with any update function, by a
    // compare-and-swap loop on the element itself (8-, 4- and 2-byte
    // elements: sm_70 has a 16-bit atomicCAS). A 1-byte element has no
    // CAS of its size: the loop runs on the aligned 16-bit halfword
    // holding it, whose other byte is read only through atomics and
    // written back as it was. That byte is a neighbour, or, for the last
    // byte of an odd-sized buffer, the one byte past its end: the emit
    // response's `allocation_bytes` asks for it (docs/emitters.md).
    {"ixa_atomic_update",
     "template <typename S, typename F>\n"
     "static __device__ void ixa_atomic_update(S* addr, F f) {\n"
     "  if constexpr (sizeof(S) == 8) {\n"
     "    unsigned long long* a = reinterpret_cast<unsigned long "
     "long*>(addr);\n"
     "    unsigned long long old = *a, assumed;\n"
     "    do {\n"
     "      assumed = old;\n"
     "      S v = f(ixa_bits<S>(assumed));\n"
     "      old = atomicCAS(a, assumed, ixa_bits<unsigned long long>(v));\n"
     "    } while (old != assumed);\n"
     "  } else if constexpr (sizeof(S) == 4) {\n"
     "    unsigned int* a = reinterpret_cast<unsigned int*>(addr);\n"
     "    unsigned int old = *a, assumed;\n"
     "    do {\n"
     "      assumed = old;\n"
     "      S v = f(ixa_bits<S>(assumed));\n"
     "      old = atomicCAS(a, assumed, ixa_bits<unsigned int>(v));\n"
     "    } while (old != assumed);\n"
     "  } else if constexpr (sizeof(S) == 2) {\n"
     "    unsigned short* a = reinterpret_cast<unsigned short*>(addr);\n"
     "    unsigned short old = *a, assumed;\n"
     "    do {\n"
     "      assumed = old;\n"
     "      S v = f(ixa_bits<S>(assumed));\n"
     "      old = atomicCAS(a, assumed, ixa_bits<unsigned short>(v));\n"
     "    } while (old != assumed);\n"
     "  } else {\n"
     "    size_t at = reinterpret_cast<size_t>(addr);\n"
     "    unsigned short* half = reinterpret_cast<unsigned short*>(at & "
     "~size_t(1));\n"
     "    unsigned int shift = static_cast<unsigned int>(at & 1) * 8;\n"
     "    // An atomic read: swaps only where the halfword is 0, for 0.\n"
     "    unsigned short old = atomicCAS(half, (unsigned short)0,\n"
     "                                   (unsigned short)0), assumed;\n"
     "    do {\n"
     "      assumed = old;\n"
     "      S v = f(ixa_bits<S>(static_cast<uint8_t>(assumed >> shift)));\n"
     "      unsigned int bits = ixa_bits<uint8_t>(v);\n"
     "      old = atomicCAS(\n"
     "          half, assumed,\n"
     "          static_cast<unsigned short>((assumed & ~(0xffu << shift)) |\n"
     "                                      (bits << shift)));\n"
     "    } while (old != assumed);\n"
     "  }\n"
     "}\n",
     "ixa_bits"},
    // Complex numbers as (re, im) structs, laid out as XLA stores c64 /
    // c128 (the real part first), and XLA's elemental complex ops on them:
    // products and quotients written out (the quotient by Smith's method,
    // which neither overflows nor underflows in the squares of the
    // divisor's parts, and a zero divisor scales by an infinity of its
    // real part's sign, as C's Annex G), abs as hypot, exp with a real
    // argument kept real, log, the principal sqrt and 1 / sqrt, sign as
    // z / |z| (0 at 0); sin and cos from the real parts' sin / cos and
    // sinh / cosh, tanh as (sinh 2a + i sin 2b) / (cosh 2a + cos 2b) (its
    // limit where cosh 2a would overflow), expm1 and log1p without the
    // cancellation near 0, and the power as exp(w log z) with 0^0 = 1 and
    // 0^w = 0 for a real w > 0. The real functions are overloaded on float
    // and double, so one template serves c64 and c128.
    {"ixa_complex",
     "struct ixa_c64 {\n"
     "  float re;\n"
     "  float im;\n"
     "};\n"
     "struct ixa_c128 {\n"
     "  double re;\n"
     "  double im;\n"
     "};\n"
     "IXA_FN float ixa_r_exp(float x) { return expf(x); }\n"
     "IXA_FN double ixa_r_exp(double x) { return exp(x); }\n"
     "IXA_FN float ixa_r_log(float x) { return logf(x); }\n"
     "IXA_FN double ixa_r_log(double x) { return log(x); }\n"
     "IXA_FN float ixa_r_sqrt(float x) { return sqrtf(x); }\n"
     "IXA_FN double ixa_r_sqrt(double x) { return sqrt(x); }\n"
     "IXA_FN float ixa_r_cos(float x) { return cosf(x); }\n"
     "IXA_FN double ixa_r_cos(double x) { return cos(x); }\n"
     "IXA_FN float ixa_r_sin(float x) { return sinf(x); }\n"
     "IXA_FN double ixa_r_sin(double x) { return sin(x); }\n"
     "IXA_FN float ixa_r_atan2(float y, float x) { return atan2f(y, x); }\n"
     "IXA_FN double ixa_r_atan2(double y, double x) { return atan2(y, x); }\n"
     "IXA_FN float ixa_r_hypot(float x, float y) { return hypotf(x, y); }\n"
     "IXA_FN double ixa_r_hypot(double x, double y) { return hypot(x, y); }\n"
     "IXA_FN float ixa_r_sinh(float x) { return sinhf(x); }\n"
     "IXA_FN double ixa_r_sinh(double x) { return sinh(x); }\n"
     "IXA_FN float ixa_r_cosh(float x) { return coshf(x); }\n"
     "IXA_FN double ixa_r_cosh(double x) { return cosh(x); }\n"
     "IXA_FN float ixa_r_expm1(float x) { return expm1f(x); }\n"
     "IXA_FN double ixa_r_expm1(double x) { return expm1(x); }\n"
     "IXA_FN float ixa_r_log1p(float x) { return log1pf(x); }\n"
     "IXA_FN double ixa_r_log1p(double x) { return log1p(x); }\n"
     "IXA_FN float ixa_r_abs(float x) { return fabsf(x); }\n"
     "IXA_FN double ixa_r_abs(double x) { return fabs(x); }\n"
     "IXA_FN float ixa_r_copysign(float x, float y) { return copysignf(x, y); "
     "}\n"
     "IXA_FN double ixa_r_copysign(double x, double y) { return copysign(x, "
     "y); }\n"
     "template <typename C>\n"
     "IXA_FN bool ixa_cx_eq(C a, C b) { return a.re == b.re && a.im == b.im; "
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_add(C a, C b) { return C{a.re + b.re, a.im + b.im}; }\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_sub(C a, C b) { return C{a.re - b.re, a.im - b.im}; }\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_neg(C a) { return C{-a.re, -a.im}; }\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_mul(C a, C b) {\n"
     "  return C{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_div(C a, C b) {\n"
     "  using R = decltype(a.re);\n"
     "  if (b.re == R(0) && b.im == R(0)) {\n"
     "    const R inf = ixa_r_copysign(R(1) / R(0), b.re);\n"
     "    return C{inf * a.re, inf * a.im};\n"
     "  }\n"
     "  if (ixa_r_abs(b.re) >= ixa_r_abs(b.im)) {\n"
     "    const R ratio = b.im / b.re, den = b.re + b.im * ratio;\n"
     "    return C{(a.re + a.im * ratio) / den, (a.im - a.re * ratio) / den};\n"
     "  }\n"
     "  const R ratio = b.re / b.im, den = b.im + b.re * ratio;\n"
     "  return C{(a.re * ratio + a.im) / den, (a.im * ratio - a.re) / den};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN auto ixa_cx_abs(C a) -> decltype(a.re) {\n"
     "  return ixa_r_hypot(a.re, a.im);\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_exp(C a) {\n"
     "  using R = decltype(a.re);\n"
     "  const R e = ixa_r_exp(a.re);\n"
     "  if (a.im == R(0)) return C{e, a.im};\n"
     "  return C{e * ixa_r_cos(a.im), e * ixa_r_sin(a.im)};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_log(C a) {\n"
     "  return C{ixa_r_log(ixa_r_hypot(a.re, a.im)), ixa_r_atan2(a.im, "
     "a.re)};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_sqrt(C a) {\n"
     "  using R = decltype(a.re);\n"
     "  if (a.re == R(0) && a.im == R(0)) return C{R(0), a.im};\n"
     "  const R t =\n"
     "      ixa_r_sqrt((ixa_r_abs(a.re) + ixa_r_hypot(a.re, a.im)) * R(0.5));\n"
     "  if (a.re >= R(0)) return C{t, a.im / (R(2) * t)};\n"
     "  return C{ixa_r_abs(a.im) / (R(2) * t), ixa_r_copysign(t, a.im)};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_rsqrt(C a) {\n"
     "  using R = decltype(a.re);\n"
     "  return ixa_cx_div(C{R(1), R(0)}, ixa_cx_sqrt(a));\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_sin(C a) {\n"
     "  return C{ixa_r_sin(a.re) * ixa_r_cosh(a.im),\n"
     "           ixa_r_cos(a.re) * ixa_r_sinh(a.im)};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_cos(C a) {\n"
     "  return C{ixa_r_cos(a.re) * ixa_r_cosh(a.im),\n"
     "           -(ixa_r_sin(a.re) * ixa_r_sinh(a.im))};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_tanh(C a) {\n"
     "  using R = decltype(a.re);\n"
     "  const R s = ixa_r_sin(a.im), c = ixa_r_cos(a.im);\n"
     "  if (ixa_r_abs(a.re) > R(sizeof(R) == 4 ? 10 : 20)) {\n"
     "    return C{ixa_r_copysign(R(1), a.re),\n"
     "             R(4) * s * c * ixa_r_exp(R(-2) * ixa_r_abs(a.re))};\n"
     "  }\n"
     "  const R d = ixa_r_cosh(R(2) * a.re) + (c * c - s * s);\n"
     "  return C{ixa_r_sinh(R(2) * a.re) / d, R(2) * s * c / d};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_expm1(C a) {\n"
     "  using R = decltype(a.re);\n"
     "  const R h = ixa_r_sin(a.im * R(0.5));\n"
     "  return C{ixa_r_expm1(a.re) * ixa_r_cos(a.im) - R(2) * h * h,\n"
     "           ixa_r_exp(a.re) * ixa_r_sin(a.im)};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_log1p(C a) {\n"
     "  using R = decltype(a.re);\n"
     "  if (ixa_r_hypot(a.re, a.im) >= R(0.5)) {\n"
     "    return ixa_cx_log(C{a.re + R(1), a.im});\n"
     "  }\n"
     "  return C{R(0.5) * ixa_r_log1p(a.re * (a.re + R(2)) + a.im * a.im),\n"
     "           ixa_r_atan2(a.im, a.re + R(1))};\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_pow(C a, C b) {\n"
     "  using R = decltype(a.re);\n"
     "  if (a.re == R(0) && a.im == R(0) && b.im == R(0) && b.re >= R(0)) {\n"
     "    return C{b.re == R(0) ? R(1) : R(0), R(0)};\n"
     "  }\n"
     "  return ixa_cx_exp(ixa_cx_mul(b, ixa_cx_log(a)));\n"
     "}\n"
     "template <typename C>\n"
     "IXA_FN C ixa_cx_sign(C a) {\n"
     "  using R = decltype(a.re);\n"
     "  if (a.re == R(0) && a.im == R(0)) return a;\n"
     "  const R h = ixa_r_hypot(a.re, a.im);\n"
     "  return C{a.re / h, a.im / h};\n"
     "}\n",
     ""},
};

}  // namespace

const CHelper* FindCHelper(const std::string& name) {
  for (const CHelper& h : kHelpers) {
    if (name == h.name) return &h;
  }
  return nullptr;
}

}  // namespace ixa::emit
