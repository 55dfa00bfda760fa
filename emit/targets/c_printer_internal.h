// The C++ and CUDA printers' shared declarations: the printer class,
// whose statement and kernel printing is in c_printer.cc and whose
// expression printing is in c_expressions.cc.
#ifndef IXA_EMIT_TARGETS_C_PRINTER_INTERNAL_H_
#define IXA_EMIT_TARGETS_C_PRINTER_INTERNAL_H_

#include <array>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "emit/code_writer.h"
#include "emit/targets/targets.h"

namespace ixa::emit::c_printer {

using ir::Block;
using ir::Buffer;
using ir::BufferSpace;
using ir::Node;
using ir::NodeKind;
using ir::OpCode;
using ir::Stmt;
using ir::StmtKind;
using ir::Type;
using ir::Val;

using Text = Result<std::string>;

// The C type a value of `t` is computed in.
std::string ComputeType(Type t);
// The C type a buffer element is stored as.
std::string StorageType(Type t);
// Unsigned arithmetic type wide enough to avoid int promotion overflow.
std::string UnsignedWide(Type t);
std::string FloatLiteral(double v, Type t, bool cuda);
std::string IntLiteral(int64_t v, Type t);
// Whether every value of integer type `t` fits in int32.
bool FitsIndex32(Type t);

// A statement of a simulated phase: an IR statement or a line of text.
using PhaseItem = std::variant<const Stmt*, std::string>;

class CPrinter {
 public:
  CPrinter(const ir::Module& m, const PrintOptions& o)
      : module_(m),
        cuda_(o.target == Target::kCuda),
        index32_(cuda_ && ir::IndicesFitInt32(m)),
        options_(o) {}

  Text Print();

 private:
  Text Expr(const Val& v);
  Text AffineExpr(ixa::Expr e, const Node& apply);
  // An op's expression: OpExpr prints the operands and dispatches by
  // family of ops to the members below it (complex ops to ComplexOpExpr).
  Text OpExpr(const Node& n);
  // abs, neg, sign, is-finite.
  Text SignOpExpr(const Node& n, const std::vector<std::string>& x);
  // Transcendental functions and rounding.
  Text MathFunctionExpr(const Node& n, const std::vector<std::string>& x);
  // add, sub, mul, div, rem, max, min, pow.
  Text ArithmeticExpr(const Node& n, const std::vector<std::string>& x);
  // not, popcount, count-leading-zeros, and, or, xor, shifts.
  Text BitOpExpr(const Node& n, const std::vector<std::string>& x);
  // The comparisons, select and clamp.
  Text ComparisonOrSelectExpr(const Node& n, const std::vector<std::string>& x);
  // convert and bitcast-convert.
  Text ConversionExpr(const Node& n, const std::vector<std::string>& x);
  // to-index and clamp-index.
  Text IndexOpExpr(const Node& n, const std::vector<std::string>& x);
  // Ops on complex values, and real / imag / complex (c_expressions.cc).
  Text ComplexOpExpr(const Node& n, const std::vector<std::string>& x);
  Text InDomainExpr(const Node& n);
  std::string Helper(const std::string& name) {
    Use(name);
    return name;
  }
  void Use(const std::string& name);
  std::string Math(const std::string& fn) const {
    return cuda_ ? fn : "std::" + fn;
  }
  std::string Qualifier() const {
    return cuda_ ? "static __device__ __forceinline__" : "static inline";
  }
  // f16 and bf16 compute in f32, rounded to the type after each op; CUDA
  // rounds with the hardware conversions, C++ with integer routines.
  std::string RoundTo(Type t, const std::string& x) {
    if (t == Type::kBF16) {
      return Helper(cuda_ ? "ixa_cuda_round_bf16" : "ixa_round_bf16") + "(" +
             x + ")";
    }
    if (t == Type::kF16) {
      return Helper(cuda_ ? "ixa_cuda_round_f16" : "ixa_round_f16") + "(" + x +
             ")";
    }
    return x;
  }
  std::string FromStorage(Type t, const std::string& x) {
    if (t == Type::kBF16) return Helper("ixa_bf16_to_f32") + "(" + x + ")";
    if (t == Type::kF16) {
      return Helper(cuda_ ? "ixa_cuda_f16_to_f32" : "ixa_f16_to_f32") + "(" +
             x + ")";
    }
    if (t == Type::kPred) return "(" + x + " != 0)";
    return x;
  }
  std::string ToStorage(Type t, const std::string& x) {
    if (t == Type::kBF16) {
      return Helper(cuda_ ? "ixa_cuda_f32_to_bf16" : "ixa_f32_to_bf16") + "(" +
             x + ")";
    }
    if (t == Type::kF16) {
      return Helper(cuda_ ? "ixa_cuda_f32_to_f16" : "ixa_f32_to_f16") + "(" +
             x + ")";
    }
    if (t == Type::kPred) return "static_cast<uint8_t>(" + x + ")";
    return x;
  }
  std::string VectorType(Type t, int width) {
    Use("ixa_vec");
    return "ixa_vec<" + StorageType(t) + ", " + std::to_string(width) + ">";
  }
  std::string DeclType(const Val& v) {
    return v->width > 1 ? VectorType(v->type, v->width) : CType(v->type);
  }
  // ComputeType, with indices in `int` where the module's index values fit
  // in int32 (CUDA only: 32-bit index arithmetic is what saves GPU
  // registers and instructions).
  std::string CType(Type t) const {
    return t == Type::kIndex && index32_ ? "int" : ComputeType(t);
  }
  std::string Lit(int64_t v, Type t) const {
    return t == Type::kIndex && index32_ ? std::to_string(v) : IntLiteral(v, t);
  }
  Text Access(const Buffer& b, const std::vector<Val>& idx, bool flat);
  // CUDA: the hardware atomic doing `op` on element `element` (an lvalue
  // of storage type) with `value` (of compute type), or "" where the type
  // has none for the op.
  std::string HardwareAtomic(ir::AtomicOp op, Type t,
                             const std::string& element,
                             const std::string& value);
  // `v` as the storage of a `t` element: an f16/bf16 value read from
  // storage of its own type is stored as the bits read (data movement does
  // not go through float and back), anything else through ToStorage.
  Text Stored(Type t, const Val& v);

  Status PrintBlock(const Block& block, CodeWriter& w);
  Status PrintStmt(const Stmt& s, CodeWriter& w);
  // The statements of PrintStmt that take more than a few lines.
  Status PrintShuffle(const Stmt& s, CodeWriter& w);
  Status PrintCall(const Stmt& s, CodeWriter& w);
  Status PrintAtomic(const Stmt& s, CodeWriter& w);
  Status PrintFunction(const ir::Function& f, CodeWriter& w);
  Status PrintCudaKernel(const ir::Kernel& k, CodeWriter& w);
  Status PrintSimulatedKernel(const ir::Kernel& k, CodeWriter& w);
  std::string PointerDecl(const Buffer& b, bool is_const,
                          const std::string& name) const;
  std::string ArrayDims(const Buffer& b) const;
  std::string VarRef(const std::string& name) const {
    return thread_locals_.count(name) ? name + "[tid]" : name;
  }
  std::string Fresh(const std::string& stem) {
    return stem + std::to_string(counter_++);
  }

  const ir::Module& module_;
  bool cuda_;
  // The mask of a warp shuffle in the kernel being printed: every lane
  // the block has in the caller's warp (a block of fewer than 32 threads,
  // or whose last warp is partial, has no lanes past its end, and CUDA
  // leaves a mask naming absent lanes undefined).
  std::string shuffle_mask_ = "0xffffffffu";
  bool index32_;
  PrintOptions options_;
  std::set<std::string> used_helpers_;
  std::vector<std::string> helper_order_;
  std::set<std::string> thread_locals_;  // cpp multi-phase kernels
  // The grid ids (th_x .. bl_z, in VarKind order) printed so far: the CUDA
  // kernel declares those only (an unused one is nvcc's warning #177-D).
  std::array<bool, 6> grid_ids_printed_{};
  // Where the functions a printed call names are noted (null: nowhere).
  std::set<std::string>* calls_ = nullptr;
  int counter_ = 0;
};

}  // namespace ixa::emit::c_printer

#endif  // IXA_EMIT_TARGETS_C_PRINTER_INTERNAL_H_
