// The MLIR 14 printer's internals (mlir_printer.cc: values and ops,
// mlir_statements.cc: statements, functions and kernels, mlir_helpers.cc:
// the helper functions' text). Not a public header.
#ifndef IXA_EMIT_TARGETS_MLIR_PRINTER_H_
#define IXA_EMIT_TARGETS_MLIR_PRINTER_H_

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "emit/code_writer.h"
#include "emit/targets/targets.h"

namespace ixa::emit::mlir_detail {

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

// The MLIR type a value of `t` is computed in.
std::string ComputeType(Type t);
// The MLIR element type a buffer stores (f16 / bf16 as bits, pred as i8).
std::string StorageType(Type t);
// Float constants print as bit patterns (exact).
std::string FloatConst(double v, Type t);
// The affine expression in MLIR syntax (dims d<i>, symbols s<i>).
Text AffineText(ixa::Expr e);
// The text of helper function `name` (`base_type` or `base_from_to`).
std::string HelperText(const std::string& name, const std::string& func);
// Dense literal of a constant buffer (nested for N-d shapes).
std::string DenseLiteral(const Buffer& b, bool flat);

// A statement of a simulated phase: an IR statement, or a shuffle's two
// halves (write the exchange / read the partner).
struct PhaseItem {
  const Stmt* stmt = nullptr;
  const Stmt* shuffle_write = nullptr;
  const Stmt* shuffle_read = nullptr;
};

class MlirPrinter {
 public:
  MlirPrinter(const ir::Module& m, const PrintOptions& o)
      : module_(m), host_(o.host), options_(o) {}
  Text Print();

 private:
  // Values: emits ops into the current writer, returns the SSA name.
  Text Value(const Val& v);
  Text ValueUncached(const Val& v);
  // An op's value from its operands' SSA names: OpValue dispatches by
  // family of ops to the members below it.
  Text OpValue(const Node& n, const std::vector<std::string>& x);
  // abs, neg, sign, is-finite.
  Text SignOpValue(const Node& n, const std::vector<std::string>& x);
  // Transcendental functions and rounding (math ops or libm calls).
  Text MathFunctionValue(const Node& n, const std::vector<std::string>& x);
  // add, sub, mul, div, rem, max, min, pow.
  Text ArithmeticValue(const Node& n, const std::vector<std::string>& x);
  // not, popcount, count-leading-zeros, and, or, xor, shifts.
  Text BitOpValue(const Node& n, const std::vector<std::string>& x);
  // The comparisons, select and clamp.
  Text ComparisonOrSelectValue(const Node& n,
                               const std::vector<std::string>& x);
  // convert and bitcast-convert.
  Text ConversionValue(const Node& n, const std::vector<std::string>& x);
  // to-index and clamp-index.
  Text IndexOpValue(const Node& n, const std::vector<std::string>& x);
  // `op x[0], x[1] : t`, the plain binary form.
  std::string BinaryOp(const std::string& op, const std::vector<std::string>& x,
                       Type t);
  // A call of helper function `base`_t on `x`, all of type t.
  std::string HelperCall(const std::string& base, Type t,
                         const std::vector<std::string>& x);
  Text ApplyExpr(ixa::Expr e, const Node& apply);
  Text InDomainValue(const Node& n);
  std::string Constant(Type t, int64_t v);
  std::string ConstantFloat(Type t, double v);
  std::string Emit(const std::string& rhs) {
    std::string name = "%" + std::to_string(counter_++);
    w_->Line(name + " = " + rhs);
    return name;
  }
  std::string RoundTo(Type t, const std::string& x);
  std::string FromStorage(Type t, const std::string& x);
  std::string ToStorage(Type t, const std::string& x);
  std::string Call(const std::string& fn, const std::vector<std::string>& args,
                   const std::vector<std::string>& types,
                   const std::string& ret);
  std::string InlineHelper(const std::string& name,
                           const std::vector<std::string>& args);
  Result<std::vector<std::string>> InlineFunction(
      const std::string& name, const std::vector<std::string>& args);
  // A libm call (host) or math op (device) for a unary/binary function.
  std::string MathOp(const std::string& math_op, const std::string& libm,
                     bool host_lowers, Type t,
                     const std::vector<std::string>& x);
  std::string MemrefType(const Buffer& b) const;
  std::string VectorType(Type t, int width) const {
    return "vector<" + std::to_string(width) + "x" + StorageType(t) + ">";
  }
  std::string IndexList(const std::vector<std::string>& idx) const;
  Text Indices(const std::vector<Val>& idx, const Buffer& b, bool flat);
  void NeedHelper(const std::string& name);
  std::string BufferRef(int buffer) const;

  Status PrintBlock(const Block& block);
  Status PrintStmt(const Stmt& s);
  // The statements of PrintStmt that take more than a few lines.
  Status PrintShuffle(const Stmt& s);
  Status PrintCall(const Stmt& s);
  Status PrintAtomic(const Stmt& s);
  // Stores `v` into mutable variable `name` (its slot, or its element of
  // the thread-local array of a multi-phase host kernel).
  void StoreLocal(const std::string& name, const std::string& v);
  // Host form of vector statements: lanes one by one through a slot.
  Status PrintHostVectorStmt(const Stmt& s);
  // Host form: stores zeros into every lane of vector slot `name`.
  void ZeroSlot(const std::string& name, Type type, int width);
  void CollectVectorSlots(const Block& body);
  // Starts printing a function body into `body` (indented, fresh slots,
  // buffers and scopes); returns the writer to restore afterwards.
  CodeWriter* BeginBody(CodeWriter* body);
  // The mutable variables of `block` (but those in `skip`): one slot each,
  // allocated at entry; vector variables get vector slots.
  void DeclareSlots(CodeWriter& body, const Block& block,
                    const std::set<std::string>* skip);
  Status PrintFunction(const ir::Function& f);
  Status PrintDeviceKernel(const ir::Kernel& k);
  Status PrintHostKernel(const ir::Kernel& k);
  std::string FuncKeyword() const { return host_ ? "func" : "builtin.func"; }
  // Mutable variable slots (allocated at function entry).
  std::string Slot(const std::string& name) const { return "%slot_" + name; }
  void BindLet(const std::string& name, const std::string& ssa) {
    scopes_.back()[name] = ssa;
  }
  std::optional<std::string> Lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return std::nullopt;
  }

  const ir::Module& module_;
  bool host_;
  PrintOptions options_;
  CodeWriter* w_ = nullptr;
  int counter_ = 0;
  std::vector<std::map<std::string, std::string>> scopes_;
  std::map<const Node*, std::string> memo_;  // within one statement
  // Mutable variables of the function being printed: name -> type.
  std::map<std::string, std::string> slots_;
  std::set<std::string> thread_locals_;              // host multi-phase kernels
  std::map<std::string, std::string> vector_slots_;  // host: name -> NxT
  // Inside a generic_atomic_rmw: calls are printed inline.
  bool inline_calls_ = false;
  std::string inline_error_;
  std::vector<std::string>* capture_return_ = nullptr;
  std::map<std::string, std::string> thread_local_types_;
  std::set<std::string> helpers_;                   // helper functions needed
  std::map<std::string, std::string> externs_;      // libm name -> signature
  std::map<std::string, std::string> buffer_args_;  // buffer name -> ssa
};

}  // namespace ixa::emit::mlir_detail

#endif  // IXA_EMIT_TARGETS_MLIR_PRINTER_H_
