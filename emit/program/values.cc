// The program generator's helpers for values (emit/program/program.cc):
// leaves of shapes, byte sizes, identifiers, which instructions alias
// their operand or need no kernel.
#include <algorithm>
#include <cctype>
#include <optional>

#include "analysis/hlo/custom_calls.h"
#include "analysis/hlo/physical_layout.h"
#include "core/int_math.h"
#include "emit/program/program_internal.h"
#include "hw/xla_layout.h"

namespace ixa::emit::program_internal {

using hlo::Instruction;
using hlo::Shape;

namespace {

void FlattenShape(const Shape& s, std::vector<const Shape*>* out) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_elements) FlattenShape(e, out);
  } else {
    out->push_back(&s);
  }
}

}  // namespace

std::vector<const Shape*> LeavesOf(const Shape& s) {
  std::vector<const Shape*> out;
  FlattenShape(s, &out);
  return out;
}

std::string IdentifierOfName(std::string_view name) {
  std::string out;
  for (char c : name) {
    char k = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (k == '_' && !out.empty() && out.back() == '_') continue;
    out += k;
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) {
    out = "k_" + out;
  }
  return out;
}

// A shape's bytes in memory (its physical layout, padding and packing).
Result<int64_t> ShapeBytes(const Shape& s, ExprContext* ctx) {
  if (!s.IsArray()) return int64_t{0};
  if (s.layout &&
      (!s.layout->tiles.empty() || s.layout->element_size_bits != 0)) {
    IXA_ASSIGN_OR_RETURN(hw::TiledLayoutInfo info,
                         hw::AnalyzeTiledLayout(hlo::ToXlaShape(s), ctx));
    return info.bytes;
  }
  const int bits = hlo::ElementBits(s.type);
  if (bits <= 0) {
    return Error::Unsupported(std::string("compile: element type ") +
                              hlo::ElementTypeName(s.type));
  }
  if (s.HasUnboundedDim()) {
    return Error::Unsupported("compile: a buffer of " + s.ToString() +
                              " (an unbounded dynamic dimension has no size)");
  }
  const int64_t bytes = SaturatingMul(s.ElementCount(), std::max(1, bits / 8));
  if (bytes == kInt64Max) {
    return Error::Limit("a buffer of " + s.ToString() +
                        " has more bytes than an int64 counts");
  }
  return bytes;
}

std::vector<const Instruction*> UniqueOperands(const Instruction& in) {
  std::vector<const Instruction*> out;
  for (const Instruction* o : in.operands) {
    if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  }
  return out;
}

bool IsKernelLibraryCall(const Instruction& in) {
  return hlo::GetLibraryCallKind(in) == hlo::LibraryCallKind::kCublasGemm ||
         hlo::ConvCallSemanticsOf(in).has_value();
}

// Ops generated as kernels where the emitters can, else as host loops
// (host_ops.cc).
hlo::Shape GemmCallWrittenShape(const Instruction& in) {
  std::optional<hlo::GemmCallSemantics> gemm = hlo::GemmCallSemanticsOf(in);
  if (!gemm || !gemm->aux) return hlo::LibraryCallResultShape(in);
  Shape written;
  written.type = hlo::ElementType::kTuple;
  written.tuple_elements = {in.shape.tuple_elements[0],
                            in.shape.tuple_elements[1]};
  return written;
}

bool IsHostFallbackOp(const Instruction& in) {
  return in.opcode == hlo::Opcode::kDot ||
         in.opcode == hlo::Opcode::kConvolution;
}

// Instructions handled without a kernel of their own.
bool NeedsNoKernel(const Instruction& in) {
  using hlo::Opcode;
  return hlo::OpcodeIn(
             in.opcode,
             {Opcode::kParameter, Opcode::kTuple, Opcode::kGetTupleElement,
              Opcode::kWhile, Opcode::kConditional, Opcode::kCall,
              Opcode::kSort, Opcode::kFusion, Opcode::kAfterAll,
              Opcode::kOptimizationBarrier}) ||
         IsLinalgHostOp(in) ||
         (in.opcode == hlo::Opcode::kCustomCall && hlo::IsLibraryCall(in) &&
          !IsKernelLibraryCall(in));
}

// Whether a reshape or bitcast may share its operand's memory: a bitcast
// is the same bytes read with another shape (docs/emitters.md §2a), a
// reshape between dense default layouts too.
bool AliasesOperand(const Instruction& in, int64_t bytes,
                    int64_t operand_bytes) {
  if (bytes != operand_bytes || !in.shape.IsArray()) return false;
  if (in.opcode == hlo::Opcode::kBitcast) return true;
  if (in.opcode != hlo::Opcode::kReshape) return false;
  auto dense_default = [](const Shape& s) {
    if (!s.layout) return true;
    std::vector<int64_t> m2m = s.MinorToMajor();
    for (size_t k = 0; k < m2m.size(); ++k) {
      if (m2m[k] != static_cast<int64_t>(m2m.size() - 1 - k)) return false;
    }
    return s.layout->tiles.empty() && s.layout->element_size_bits == 0;
  };
  return in.shape.type == in.operand(0)->shape.type &&
         dense_default(in.shape) && dense_default(in.operand(0)->shape) &&
         hlo::ElementBits(in.shape.type) >= 8;
}

}  // namespace ixa::emit::program_internal
