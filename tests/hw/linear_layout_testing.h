// Helpers of the linear-layout tests: layouts built from literals (a bad
// literal fails the test), and Catch printing layouts in their text form.
#ifndef IXA_TESTS_HW_LINEAR_LAYOUT_TESTING_H_
#define IXA_TESTS_HW_LINEAR_LAYOUT_TESTING_H_

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hw/linear_layout.h"

namespace Catch {
template <>
struct StringMaker<ixa::hw::LinearLayout> {
  static std::string convert(const ixa::hw::LinearLayout& l) {
    return ixa::hw::PrintLinearLayout(l);
  }
};
}  // namespace Catch

namespace ixa::hw::testing {

using Ins = std::vector<LinearLayout::InDim>;
using Outs = std::vector<LinearLayout::Dim>;

inline LinearLayout Must(const Result<LinearLayout>& r) {
  INFO((r.ok() ? std::string() : r.error().ToString()));
  REQUIRE(r.ok());
  return *r;
}

// Triton's LinearLayout(bases, outDimNames): sizes inferred, surjective.
inline LinearLayout Ll(Ins ins, const std::vector<std::string>& outs) {
  return Must(LinearLayout::Create(std::move(ins), outs));
}
// Triton's LinearLayout(bases, outDims, requireSurjective).
inline LinearLayout LlSized(Ins ins, Outs outs, bool surjective = false) {
  return Must(
      LinearLayout::Create(std::move(ins), std::move(outs), surjective));
}
inline LinearLayout Id1(int64_t size, const std::string& in,
                        const std::string& out) {
  return Must(LinearLayout::Identity1D(size, in, out));
}
inline LinearLayout Zeros1(int64_t size, const std::string& in,
                           const std::string& out, int64_t out_size = 1) {
  return Must(LinearLayout::Zeros1D(size, in, out, out_size));
}
inline LinearLayout Strided1(int64_t size, int64_t stride,
                             const std::string& in, const std::string& out) {
  return Must(LinearLayout::Strided1D(size, stride, in, out));
}
inline LinearLayout operator*(const LinearLayout& a, const LinearLayout& b) {
  return Must(Product(a, b));
}
inline LinearLayout Text(const std::string& text) {
  INFO(text);
  return Must(ParseLinearLayout(text));
}

}  // namespace ixa::hw::testing

#endif  // IXA_TESTS_HW_LINEAR_LAYOUT_TESTING_H_
