// XLA's GemmRewriter (the cuBLAS part): a dot that is a matrix
// multiplication cuBLAS serves becomes a `__cublas$gemm` custom call whose
// result tuple holds the product and a workspace; a get-tuple-element
// named after the dot reads the product. Dots that are not matrix
// multiplications (vectors, several contracting dims), too small, or of
// types cuBLAS has no GEMM for stay dots (emitted as loops).
#include <algorithm>

#include "analysis/prefusion/internal.h"

namespace ixa {
namespace {

using hlo::ElementType;
using hlo::Instruction;
using prefusion::Line;
using prefusion::ModuleEdit;
using prefusion::NameOf;

// XLA's default cuBLAS workspace (4 MiB), the tuple's second element.
constexpr int64_t kGemmWorkspaceBytes = 4194304;

bool IsGemmOutputType(ElementType t) {
  switch (t) {
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64:
    case ElementType::kC64:
    case ElementType::kC128:
      return true;
    default:
      return false;
  }
}

// FP8 operands go to cuBLASLt with their scales folded in, which is not
// restated here: such dots stay dots.
bool IsGemmOperandType(ElementType t) { return IsGemmOutputType(t); }

// XLA's IsMatrixMultiplication: each operand and the result are
// [batch..., rows, cols] with one contracting dim; types cuBLAS serves
// (s8 x s8 -> s32 too); no empty operand.
bool IsMatrixMultiplication(const Instruction& dot) {
  if (dot.opcode != hlo::Opcode::kDot || dot.operand_count() != 2) return false;
  const hlo::Shape &lhs = dot.operand(0)->shape, &rhs = dot.operand(1)->shape;
  const hlo::Shape& out = dot.shape;
  if (!lhs.IsArray() || !rhs.IsArray() || !out.IsArray()) return false;
  if (lhs.dynamic_mask || rhs.dynamic_mask || out.dynamic_mask) return false;
  const bool s8 = out.type == ElementType::kS32 &&
                  lhs.type == ElementType::kS8 && rhs.type == ElementType::kS8;
  if (!s8 && !(IsGemmOutputType(out.type) && IsGemmOperandType(lhs.type) &&
               IsGemmOperandType(rhs.type))) {
    return false;
  }
  const int batch = static_cast<int>(dot.dot.lhs_batch.size());
  if (dot.dot.lhs_contracting.size() != 1 ||
      dot.dot.rhs_contracting.size() != 1 ||
      dot.dot.rhs_batch.size() != dot.dot.lhs_batch.size()) {
    return false;
  }
  if (lhs.rank() != batch + 2 || rhs.rank() != batch + 2 ||
      out.rank() != batch + 2) {
    return false;
  }
  return lhs.ElementCount() > 0 && rhs.ElementCount() > 0;
}

// XLA's IsMatrixMultiplicationTooSmallForRewriting.
bool IsTooSmallForGemm(const Instruction& dot) {
  const hlo::Shape &lhs = dot.operand(0)->shape, &rhs = dot.operand(1)->shape;
  auto non_contracting = [](const hlo::Shape& s,
                            const std::vector<int64_t>& batch,
                            const std::vector<int64_t>& contracting) {
    int64_t n = 1;
    for (int d = 0; d < s.rank(); ++d) {
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), d) ==
              contracting.end()) {
        n *= s.dims[d];
      }
    }
    return n;
  };
  const int64_t contracting = lhs.dims[dot.dot.lhs_contracting[0]];
  const int64_t lhs_size =
      non_contracting(lhs, dot.dot.lhs_batch, dot.dot.lhs_contracting);
  const int64_t rhs_size =
      non_contracting(rhs, dot.dot.rhs_batch, dot.dot.rhs_contracting);
  return (lhs_size + rhs_size) * contracting < kGemmRewriteSizeThreshold;
}

std::string QuotedList(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    out += (i ? "," : "") + std::string("\"") + std::to_string(v[i]) + "\"";
  }
  return out + "]";
}

void RewriteGemm(const Instruction& instr, ModuleEdit* edit,
                 std::vector<PrefusionRewrite>* rewrites) {
  if (!IsMatrixMultiplication(instr) || IsTooSmallForGemm(instr)) return;
  const hlo::DotDimensionNumbers& dn = instr.dot;
  const std::string config =
      "{\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":0,"
      "\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":" +
      QuotedList(dn.lhs_contracting) +
      ",\"rhs_contracting_dimensions\":" + QuotedList(dn.rhs_contracting) +
      ",\"lhs_batch_dimensions\":" + QuotedList(dn.lhs_batch) +
      ",\"rhs_batch_dimensions\":" + QuotedList(dn.rhs_batch) +
      "},\"alpha_imag\":0,\"precision_config\":{\"operand_precision\":"
      "[\"DEFAULT\",\"DEFAULT\"]},\"epilogue\":\"DEFAULT\"}}";
  hlo::Shape tuple;
  tuple.type = ElementType::kTuple;
  tuple.tuple_elements = {
      instr.shape,
      prefusion::ArrayShape(ElementType::kS8, {kGemmWorkspaceBytes}, {0})};
  const std::string call = edit->NewName(instr, "gemm");
  edit->Replace(
      &instr,
      {Line(call, tuple, "custom-call",
            {NameOf(*instr.operand(0)), NameOf(*instr.operand(1))},
            "custom_call_target=\"__cublas$gemm\", backend_config=" + config),
       Line(NameOf(instr), instr.shape, "get-tuple-element", {call},
            "index=0")});
  rewrites->push_back({"GemmRewriter", instr.name,
                       "a cuBLAS GEMM (__cublas$gemm) " + call +
                           ", its product read by a get-tuple-element"});
}

}  // namespace

Result<PassResult> RewriteGemms(const hlo::Module& module) {
  return prefusion::RunPassOnce(module, "GemmRewriter",
                                prefusion::FusionBodies::kSkip, RewriteGemm);
}

}  // namespace ixa
