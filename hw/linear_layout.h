// Linear layouts over GF(2) (docs/layouts.md, "Linear layouts"): Triton's
// LinearLayout with the same semantics and operations.
//
// A layout maps named input dims (`register`, `lane`, `warp`, `offset`, ..)
// to named output dims (a tensor's dims). Every dim has a power-of-two size.
// The layout stores one basis per input bit: bases[d][i] is the output of
// the input that has only bit i of dim d set. Any other input maps to the
// XOR of the bases of its set bits (outputs XOR-ed dim by dim), so
// L(x ^ y) = L(x) ^ L(y) and L(0) = 0. Dims are ordered minor to major;
// the order matters to reshape, flatten and product only.
//
// Bad input (a size that is not a power of two, an unknown dim, a basis
// outside its output dim, inverting a layout that is not invertible, shape
// mismatches) is an invalid_argument error; nothing here aborts on user
// input. Sizes are limited to 2^kMaxLinearLayoutBits per layout (all input
// dims together, all output dims together).
#ifndef IXA_HW_LINEAR_LAYOUT_H_
#define IXA_HW_LINEAR_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace ixa::hw {

inline constexpr int kMaxLinearLayoutBits = 62;

class LinearLayout {
 public:
  // An input dim: its name and one basis per bit (low bit first); a basis
  // holds one value per output dim, in the output dims' order.
  struct InDim {
    std::string name;
    std::vector<std::vector<int64_t>> bases;
    bool operator==(const InDim& o) const = default;
  };
  // An output dim, or a dim of a reshape: its name and size.
  struct Dim {
    std::string name;
    int64_t size = 1;
    bool operator==(const Dim& o) const = default;
  };
  // A value per named dim (inputs of Apply, its outputs).
  using DimValues = std::vector<std::pair<std::string, int64_t>>;

  // The empty layout: no input dims, no output dims.
  LinearLayout() = default;
  static LinearLayout Empty() { return LinearLayout(); }

  // Output sizes inferred as Triton does: the smallest power of two above
  // every basis value of that dim; the layout must then be surjective.
  static Result<LinearLayout> Create(std::vector<InDim> ins,
                                     const std::vector<std::string>& outs);
  // Explicit output sizes; surjectivity checked only when required.
  static Result<LinearLayout> Create(std::vector<InDim> ins,
                                     std::vector<Dim> outs,
                                     bool require_surjective);

  // Triton's 1-D constructors. Size 0 gives the empty layout (as Triton's).
  // identity1D: bases 1, 2, 4, ..; strided1D: stride, 2*stride, .. over an
  // output of size*stride (stride a power of two); zeros1D: zero bases
  // over an output of out_size.
  static Result<LinearLayout> Identity1D(int64_t size, std::string in,
                                         std::string out);
  static Result<LinearLayout> Strided1D(int64_t size, int64_t stride,
                                        std::string in, std::string out);
  static Result<LinearLayout> Zeros1D(int64_t size, std::string in,
                                      std::string out, int64_t out_size = 1);

  const std::vector<InDim>& ins() const { return ins_; }
  const std::vector<Dim>& outs() const { return outs_; }
  std::vector<std::string> InDimNames() const;
  std::vector<std::string> OutDimNames() const;
  int NumInDims() const { return static_cast<int>(ins_.size()); }
  int NumOutDims() const { return static_cast<int>(outs_.size()); }
  bool HasInDim(std::string_view name) const;
  bool HasOutDim(std::string_view name) const;
  // Sizes; an unknown name is an error.
  Result<int> InDimSizeLog2(std::string_view name) const;
  Result<int64_t> InDimSize(std::string_view name) const;
  Result<int> OutDimSizeLog2(std::string_view name) const;
  Result<int64_t> OutDimSize(std::string_view name) const;
  int TotalInDimSizeLog2() const;
  int TotalOutDimSizeLog2() const;
  int64_t TotalInDimSize() const { return int64_t{1} << TotalInDimSizeLog2(); }
  int64_t TotalOutDimSize() const {
    return int64_t{1} << TotalOutDimSizeLog2();
  }
  // bases[in][bit][out] by name; an unknown name or bit is an error.
  Result<int64_t> Basis(std::string_view in, int bit,
                        std::string_view out) const;

  // Rank over GF(2) of the bases (the matrix from input bits to output
  // bits). Surjective: rank = output bits; injective: rank = input bits;
  // invertible: both.
  int Rank() const;
  bool IsSurjective() const { return Rank() == TotalOutDimSizeLog2(); }
  bool IsInjective() const { return Rank() == TotalInDimSizeLog2(); }
  bool IsInvertible() const {
    return IsSurjective() && TotalInDimSizeLog2() == TotalOutDimSizeLog2();
  }

  // Triton's getNumConsecutiveInOut: how many consecutive values of the
  // first input dim map to consecutive values of the first output dim
  // (the contiguous vector width), whatever the other inputs are.
  int64_t NumConsecutiveInOut() const;
  // Triton's getFreeVariableMasks: per input dim, the bits whose basis is
  // a combination of the bases of lower input bits (earlier dims first):
  // flipping them reaches no new output (broadcast, duplicated data).
  DimValues FreeVariableMasks() const;

  // Every input dim named once (any order), each value within its dim;
  // the outputs in output-dim order.
  Result<DimValues> Apply(const DimValues& ins) const;
  // The same with the inputs in input-dim order.
  Result<std::vector<int64_t>> ApplyOrdered(
      const std::vector<int64_t>& ins) const;

  // outer o this: this's output dims are outer's input dims (any order),
  // each no larger than outer's.
  Result<LinearLayout> Compose(const LinearLayout& outer) const;
  // The inverse of an invertible layout (inputs and outputs swapped).
  Result<LinearLayout> Invert() const;
  // A right inverse of a surjective layout: output -> input with the free
  // input bits (FreeVariableMasks) zero.
  Result<LinearLayout> PseudoInvert() const;
  // outer^-1 o this ("where in outer's inputs does this's element live"):
  // this's output dims are outer's output dims (any order, each no larger
  // than outer's), every basis of this is in outer's image; where outer is
  // not injective, the solution with outer's free bits zero.
  Result<LinearLayout> InvertAndCompose(const LinearLayout& outer) const;

  // The input (output) dims replaced by `dims`: the bits flattened in dim
  // order and split again; the total size must stay the same.
  Result<LinearLayout> ReshapeIns(const std::vector<Dim>& dims) const;
  Result<LinearLayout> ReshapeOuts(const std::vector<Dim>& dims) const;
  // One input (output) dim named after the first, of the total size.
  LinearLayout FlattenIns() const;
  LinearLayout FlattenOuts() const;
  // The dims reordered; `order` must be a permutation of the names.
  Result<LinearLayout> TransposeIns(
      const std::vector<std::string>& order) const;
  Result<LinearLayout> TransposeOuts(
      const std::vector<std::string>& order) const;
  // The restriction to some input and output dims (kept in this's order).
  Result<LinearLayout> Sublayout(const std::vector<std::string>& ins,
                                 const std::vector<std::string>& outs) const;
  Result<bool> SublayoutIsZero(const std::vector<std::string>& ins,
                               const std::vector<std::string>& outs) const;
  // The flattened sublayout is the identity (vacuously so when empty).
  Result<bool> SublayoutIsIdentity(const std::vector<std::string>& ins,
                                   const std::vector<std::string>& outs) const;
  // Input dims of `other` added after this's (same output dims and sizes),
  // or output dims of `other` added after this's (same input dims).
  Result<LinearLayout> ConcatIns(const LinearLayout& other) const;
  Result<LinearLayout> ConcatOuts(const LinearLayout& other) const;
  // An input (output) dim grown to `size` with zero bases (grown or shrunk
  // for an output dim, whose bases must fit).
  Result<LinearLayout> ResizeInDim(std::string_view name, int64_t size) const;
  Result<LinearLayout> ResizeOutDim(std::string_view name, int64_t size) const;

  // Triton's isTrivialOver: the dims (names of input and/or output dims)
  // map identically onto themselves and nothing else touches them; then
  // Quotient drops them. A name the layout lacks: not trivial (nullopt).
  bool IsTrivialOver(const std::vector<std::string>& dims) const;
  std::optional<LinearLayout> Quotient(
      const std::vector<std::string>& dims) const;
  // Triton's ColumnAction applied to a layout: input dim `in`'s bases
  // become bases[action[0]], bases[action[1]], .. (a permutation of its
  // bits, or a selection of some of them, each at most once).
  Result<LinearLayout> ApplyColumnAction(std::string_view in,
                                         const std::vector<int>& action) const;
  // The input dim without its zero bases (Triton's
  // removeZeroBasesAlongDim).
  Result<LinearLayout> RemoveZeroBasesAlongDim(std::string_view name) const;

  bool EqualIgnoringOutDimSizes(const LinearLayout& o) const;
  // Names, their order, the bases and the output sizes.
  bool operator==(const LinearLayout& o) const;
  bool operator!=(const LinearLayout& o) const { return !(*this == o); }

 private:
  std::vector<InDim> ins_;
  std::vector<Dim> outs_;
};

// Triton's operator*: the direct sum. Dims of the same name combine
// (`inner`'s bits low, `outer`'s shifted above them); dims in both must be
// in the same relative order. Result dims: inner's, then outer's new ones.
Result<LinearLayout> Product(const LinearLayout& inner,
                             const LinearLayout& outer);
// Triton's divideLeft: C with Product(b, c) == a, where C has a's dims;
// nullopt when there is none.
std::optional<LinearLayout> DivideLeft(const LinearLayout& a,
                                       const LinearLayout& b);
// C with Product(c, b) == a (b the major part); nullopt when none.
std::optional<LinearLayout> DivideRight(const LinearLayout& a,
                                        const LinearLayout& b);

// The text form (docs/layouts.md):
//   {register: [[0, 1], [0, 2]], lane: [[1, 0], [2, 0]]} -> {dim0: 4, dim1: 4}
// `-> [dim0, dim1]` infers the output sizes (and requires surjectivity, as
// Triton's constructor does); a basis of a one-output layout may be written
// as a bare integer. Errors carry line and column.
Result<LinearLayout> ParseLinearLayout(std::string_view text);
// Always the explicit form with sizes; ParseLinearLayout reads it back.
std::string PrintLinearLayout(const LinearLayout& l);
// Triton's LinearLayout::toString, for comparing with its output:
// "\n - in=1 -> (1)\n   in=2 -> (2)\nwhere out dims are: [out (size 4)]".
std::string TritonString(const LinearLayout& l);

}  // namespace ixa::hw

#endif  // IXA_HW_LINEAR_LAYOUT_H_
