// The kernel IR: the one intermediate form every code generator target
// prints from (docs/emitters.md §3-4). A module holds subgraph functions
// (the partitioner's subgraphs, reducers) and at most one entry kernel; a
// function body is a tree of statements (loops, ifs, lets, stores,
// barriers, warp shuffles) over expression trees (constants, variables,
// indexing-map applications, loads, scalar ops, vector lanes).
//
// Every index computation is an `Apply` of an indexing map: the map's
// result `result` evaluated at its operands (dims, then range symbols, then
// runtime symbols). Values of f16 / bf16 type live in f32 registers and are
// exact in their type: an op typed bf16 computes in f32 and rounds (XLA's
// upcast). The sub-byte integer and 8- and 4-bit float types exist only
// until the
// type legalization (passes.h, LegalizeTypes): it rewrites them to 8-bit
// integers before any printer sees them. Buffers keep their HLO shapes and
// layouts; loads and stores use N-d logical indices until the flatten pass
// rewrites them to one linear offset in the buffer's physical layout.
#ifndef IXA_EMIT_IR_KERNEL_IR_H_
#define IXA_EMIT_IR_KERNEL_IR_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hlo/shape.h"
#include "core/indexing_map.h"
#include "core/interval.h"
#include "core/result.h"

namespace ixa::emit::ir {

// Scalar types. kIndex is the index type (int64 in C++, `index` in MLIR).
enum class Type : uint8_t {
  kPred,
  kS8,
  kS16,
  kS32,
  kS64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kIndex,
  // Sub-byte integers: computed in 8 bits, wrapped to their width.
  kS4,
  kU4,
  kS2,
  kU2,
  kS1,
  kU1,
  // 8-bit floats: values are their 8-bit codes, computed in f32.
  kF8E4M3FN,
  kF8E5M2,
  kF8E4M3FNUZ,
  kF8E5M2FNUZ,
  kF8E4M3B11FNUZ,
  kF8E4M3,
  kF8E3M4,
  kF8E8M0FNU,
  // Complex numbers: (real, imaginary) pairs of f32 / f64, computed as
  // pairs. Only the C++ and CUDA targets print them.
  kC64,
  kC128,
  // A 4-bit float (1 sign, 2 exponent, 1 mantissa bits): its code, computed
  // in f32 like the 8-bit floats; packed two to a byte like s4.
  kF4E2M1FN,
};

// The IR type of an HLO element type; Unsupported (naming the type) for
// the f6 types and tokens.
Result<Type> TypeOf(hlo::ElementType type);
const char* TypeName(Type type);  // "f32", "index", ...
bool IsFloat(Type t);        // f16, bf16, f32, f64, the f8 types and f4e2m1fn
bool IsComplex(Type t);      // c64, c128
Type ComponentType(Type t);  // c64 -> f32, c128 -> f64 (t: complex)
bool IsF8(Type t);           // the 8-bit float types
bool IsF4(Type t);           // f4e2m1fn
bool IsNarrowFloat(Type t);  // the f8 types and f4e2m1fn
bool IsSubByte(Type t);      // s4, u4, s2, u2, s1, u1
bool IsSignedInt(Type t);    // s8..s64, s4, s2, s1
bool IsUnsignedInt(Type t);  // u8..u64, u4, u2, u1
int TypeBits(Type t);        // value bits (pred 8, index 64, s4 4, c64 64)
// Storage bytes of one element in a buffer (a sub-byte element unpacked
// takes a byte).
inline int StorageBytes(Type t) {
  return TypeBits(t) < 8 ? 1 : TypeBits(t) / 8;
}

// A narrow float format (the f8 types and f4e2m1fn): 1 sign bit (none
// for e8m0fnu) above the exponent and mantissa bits, the exponent bias,
// and how it spells infinity and NaN.
enum class F8Special : uint8_t {
  kIeee,     // exponent all ones: infinity (mantissa 0) or NaN
  kFn,       // no infinity; NaN is S.1111.111 (the magnitude all ones)
  kFnuz,     // no infinity, no negative zero; NaN is 0x80
  kE8M0Fnu,  // unsigned powers of two 2^(code - 127); NaN is 0xff
  // No infinity and no NaN (f4e2m1fn, as ml_dtypes / XLA convert): finite
  // values past the largest and infinities saturate to it, NaN gives -0
  // (`nan` holds that code; XLA leaves it undefined and writes -0).
  kSaturating,
};
struct F8Format {
  int exponent_bits = 0;
  int mantissa_bits = 0;
  int bias = 0;
  F8Special special = F8Special::kIeee;
  // Codes of the sign-less magnitude: the largest finite value, infinity
  // (kIeee) and NaN (kIeee, kFn; 0x80 for kFnuz, 0xff for kE8M0Fnu, the
  // -0 code 0x8 for kSaturating).
  uint8_t max_finite = 0;
  uint8_t infinity = 0;
  uint8_t nan = 0;
};
F8Format F8FormatOf(Type t);  // t: an f8 type or f4e2m1fn
// The bit of a code's sign (7 for the f8 types, 3 for f4e2m1fn).
int SignShift(const F8Format& f);
// The code of `value` in narrow float type `t`, rounded to nearest even
// (overflow to infinity where the type has one, to the largest value for
// kSaturating, else NaN; NaN keeps its sign where the type has signed
// NaNs), and the value of a code.
uint8_t EncodeF8(Type t, float value);
float DecodeF8(Type t, uint8_t code);

// The 16-bit pattern of a value of type f16 or bf16 (rounded to nearest
// even from its float value), for constants printed as stored bits.
uint16_t EncodeHalf(Type type, double value);

// Scalar operations. Elementwise HLO ops keep XLA's semantics (integer
// division by zero is -1, shifts past the width give 0 or the sign, float
// max/min propagate NaN, float -> int conversion saturates with NaN -> 0).
enum class OpCode : uint8_t {
  // unary
  kAbs,
  kNeg,
  kNot,
  kSign,
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kSqrt,
  kRsqrt,
  kCbrt,
  kTanh,
  kLogistic,
  kSin,
  kCos,
  kTan,
  kErf,
  kFloor,
  kCeil,
  kRoundAfz,
  kRoundEven,
  kIsFinite,
  kPopcnt,
  kClz,
  // binary
  kAdd,
  kSub,
  kMul,
  kDiv,
  kRem,
  kMax,
  kMin,
  kPow,
  kAtan2,
  kAnd,
  kOr,
  kXor,
  kShl,
  kShrL,
  kShrA,
  // comparisons (result pred); operand type in Node::operand_type
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  // others
  kSelect,          // (pred, a, b)
  kClamp,           // (lo, x, hi) = min(max(x, lo), hi)
  kConvert,         // operand_type -> type
  kBitcastConvert,  // same width, operand_type -> type
  // index helpers (all of type index unless said)
  kToIndex,     // integer -> index (sign- or zero-extended; a u64 above the
                //   int64 maximum saturates, so it clamps as the large
                //   unsigned value it is)
  kClampIndex,  // (x, lo, hi) on indices: std::clamp
  // unary float functions added after the list above (kept last, so that
  // the codes above keep their values)
  kAcos,
  kAcosh,
  kAsin,
  kAsinh,
  kAtan,
  kAtanh,
  kCosh,
  kSinh,
  // complex numbers
  kReal,     // complex -> its real part; a float -> itself
  kImag,     // complex -> its imaginary part; a float -> 0
  kComplex,  // (re, im) floats -> complex
};
const char* OpCodeName(OpCode op);

// The families the printers print alike (each target has one function per
// family): real/imag/complex, sign-like unary ops, math functions,
// arithmetic, bit ops, comparisons and select, conversions, index ops; the
// rest (loads, stores, calls, shuffles, ...) is kOther.
enum class OpFamily : uint8_t {
  kComplexParts,
  kSign,
  kMathFunction,
  kArithmetic,
  kBitOp,
  kComparisonOrSelect,
  kConversion,
  kIndex,
  kOther,
};
OpFamily FamilyOf(OpCode op);

enum class NodeKind : uint8_t {
  kConst,     // a constant of `type`
  kVar,       // a named value (let, loop variable, argument, grid id)
  kApply,     // result `result` of `map` at the operands
  kInDomain,  // pred: the operands lie in `map`'s domain (bounds, constraints)
  kLoad,      // buffer element(s): N-d indices or one flat offset
  kOp,        // scalar op
  kExtract,   // lane `operands[1]` (index) of vector `operands[0]`
  kInsert,    // vector operands[0] with lane operands[1] set to operands[2]
};

struct Node;
using Val = std::shared_ptr<const Node>;

// Where a variable comes from; grid ids print per target.
enum class VarKind : uint8_t {
  kLocal,    // let, declared variable, loop variable, function argument
  kThreadX,  // th_x ... bl_z
  kThreadY,
  kThreadZ,
  kBlockX,
  kBlockY,
  kBlockZ,
};

struct Node {
  NodeKind kind = NodeKind::kConst;
  Type type = Type::kIndex;
  int width = 1;  // > 1: a vector of `width` lanes (loads, inserts)
  // kConst
  int64_t int_value = 0;  // integers, pred, index (two's complement)
  double float_value = 0;
  // kVar
  std::string name;
  VarKind var_kind = VarKind::kLocal;
  bool is_mutable = false;  // a declared variable (read its current value)
  Interval range = Interval::Full();  // index variables: their values
  // kApply / kInDomain
  std::shared_ptr<const IndexingMap> map;
  int result = 0;
  // kLoad
  int buffer = -1;
  bool flat = false;  // operands hold one linear offset
  // kOp
  OpCode op = OpCode::kAdd;
  Type operand_type = Type::kIndex;
  std::vector<Val> operands;
};

// Builders.
Val Const(Type type, int64_t value);
Val ConstFloat(Type type, double value);
Val Index(int64_t value);
// The zero of `type`: 0, 0.0, or (0, 0) for a complex type.
Val Zero(Type type);
Val Var(std::string name, Type type, Interval range = Interval::Full());
Val MutableVar(std::string name, Type type);
Val GridId(VarKind kind, int64_t count);  // [0, count - 1]
Val Apply(std::shared_ptr<const IndexingMap> map, int result,
          std::vector<Val> operands);
Val InDomain(std::shared_ptr<const IndexingMap> map, std::vector<Val> operands);
Val Load(int buffer, Type type, std::vector<Val> indices);
Val LoadFlat(int buffer, Type type, Val offset, int width = 1);
Val Op(OpCode op, Type type, std::vector<Val> operands,
       Type operand_type = Type::kIndex);
Val Extract(Val vector, Val lane);
Val Insert(Val vector, Val lane, Val value);
// Logical and of predicates (true for none).
Val AllOf(std::vector<Val> predicates);

// The interval of an affine expression given intervals for its dims and
// symbols (Full for a variable without one, or an expression kind this
// code does not know).
Interval ExprRange(Expr e, const std::vector<Interval>& dims,
                   const std::vector<Interval>& symbols);

// The interval of a binary affine expression of `kind` (+, *, floordiv,
// ceildiv, mod, min, max) with operands in `a` and `b`; Full for another
// kind.
Interval BinaryExprRange(ExprKind kind, const Interval& a, const Interval& b);

// The values an index-typed expression can take (saturating interval
// arithmetic over variable ranges; Full when unknown).
Interval RangeOf(const Val& v);

// How a kAtomic statement combines its value into the element. kCombiner
// calls the combiner function in a compare-and-swap loop (any combiner);
// the others say the combiner is that operation (on the element type), so
// a target with a hardware read-modify-write for the type may use it
// instead, and falls back to the loop where it has none.
enum class AtomicOp : uint8_t { kCombiner, kAdd, kMax, kMin };
const char* AtomicOpName(AtomicOp op);

enum class StmtKind : uint8_t {
  kLet,      // name = value (immutable)
  kDeclare,  // mutable name of type, initialised with value
  kAssign,   // name = value (a declared variable)
  kStore,    // buffer[indices or flat offset] = value (width lanes)
  kFor,      // for name in [lo, hi): body
  kIf,       // if value: body else else_body
  kBarrier,  // every thread of the block reaches it before any goes on
  kShuffle,  // name = value of the lane `offset` above, within `width` lanes
  kCall,     // results... = callee(args...)
  kReturn,   // return args...
  kAtomic,   // buffer[flat offset] = callee(old, value), atomically
  kComment,
};

struct Stmt {
  StmtKind kind = StmtKind::kComment;
  std::string name;  // let / declare / assign / for / shuffle target; callee
  Type type = Type::kIndex;
  Val value;  // let, declare init, assign, store, if condition, shuffle
  // kStore / kAtomic
  int buffer = -1;
  bool flat = false;
  std::vector<Val> indices;  // N-d indices, or one flat offset
  int width = 1;
  // kFor
  int64_t lo = 0, hi = 0;
  bool vector_loop = false;  // marked by the vectorizer for unrolling
  // A loop over a reduce's window computed per element: the plan's vector
  // width counts the lanes of the output only, so it is never vectorized.
  bool window_loop = false;
  // kShuffle
  int64_t offset = 0;
  int64_t lanes = 32;
  // kCall / kReturn
  std::vector<Val> args;
  std::vector<std::string> results;
  std::vector<Type> result_types;
  std::vector<Stmt> body, else_body;
  std::string text;                          // kComment
  AtomicOp atomic_op = AtomicOp::kCombiner;  // kAtomic
};
using Block = std::vector<Stmt>;

Stmt Let(std::string name, Val value);
Stmt Declare(std::string name, Type type, Val init);
Stmt Assign(std::string name, Val value);
Stmt Store(int buffer, std::vector<Val> indices, Val value);
Stmt StoreFlat(int buffer, Val offset, Val value, int width = 1);
Stmt For(std::string name, int64_t lo, int64_t hi, Block body);
Stmt If(Val cond, Block then_body, Block else_body = {});
Stmt Barrier();
Stmt Shuffle(std::string name, Type type, Val value, int64_t offset,
             int64_t lanes);
Stmt Call(std::string callee, std::vector<Val> args,
          std::vector<std::string> results, std::vector<Type> result_types);
Stmt Return(std::vector<Val> values);
Stmt Atomic(int buffer, Val offset, Val value, std::string combiner);
Stmt Comment(std::string text);

enum class BufferSpace : uint8_t { kGlobal, kShared, kConstant };

struct Buffer {
  std::string name;  // b0, b1, ... / smem0 / cst0
  BufferSpace space = BufferSpace::kGlobal;
  Type type = Type::kF32;
  hlo::Shape shape;  // dims and layout (row-major for shared / constant)
  bool is_output = false;
  int hlo_parameter = -1;  // inputs: the fusion parameter
  int hlo_output = -1;     // outputs: the fusion output
  int aliases = -1;        // an output sharing an input's memory (in place)
  std::vector<double> float_data;  // kConstant
  std::vector<int64_t> int_data;   // kConstant
  // Physical elements (padding included) and the logical -> linear offset
  // map, filled by the flatten pass.
  int64_t physical_elements = 0;
  std::shared_ptr<const IndexingMap> layout_map;
  std::shared_ptr<const IndexingMap> inverse_layout_map;  // padding test
};

enum class ParamKind : uint8_t { kIndex, kScalar };
struct Param {
  std::string name;
  ParamKind kind = ParamKind::kIndex;
  Type type = Type::kIndex;
  Interval range = Interval::Full();
};

// A subgraph function, reducer or epilogue: takes every global input
// buffer (the fusion's parameters, as XLA's subgraph functions do), then
// its index and scalar parameters; returns one value per result type.
struct Function {
  std::string name;
  std::vector<Param> params;
  std::vector<Type> results;
  Block body;
  bool reads_buffers = true;  // takes the input buffers
};

struct Launch {
  std::array<int64_t, 3> threads = {1, 1, 1};
  std::array<int64_t, 3> blocks = {1, 1, 1};
  int64_t threads_per_block() const {
    return threads[0] * threads[1] * threads[2];
  }
};

struct Kernel {
  std::string name;
  Launch launch;
  // The per-thread program. Barriers and shuffles appear only at its top
  // level, so the simulated targets can split it into phases.
  Block body;
};

struct Module {
  std::vector<Buffer> buffers;  // global (argument order), shared, constant
  std::vector<Function> functions;
  std::optional<Kernel> kernel;  // absent before the `loops` stage
  bool flattened = false;        // accesses are linear offsets
  int64_t shared_memory_bytes = 0;

  const Function* FindFunction(const std::string& name) const;
  // Global buffers in argument order.
  std::vector<int> ArgumentBuffers() const;
  std::vector<int> InputBuffers() const;
};

// Whether every index value the module computes (each subexpression of
// an applied map, loop variable, grid id and index argument, at the values
// it can take when evaluated, inside a map's domain or not) fits in int32.
// A clamped index may come from a wider integer: the clamp's bounds must
// fit. False without a kernel or where a value's range is unknown.
bool IndicesFitInt32(const Module& m);

// Whether a buffer, function or value of the module is complex (or a
// real / imag / complex op): the MLIR target does not print those.
bool UsesComplex(const Module& m);

// Walks every statement (pre-order) / every value reachable from the
// statements of a block (each node once per visit call).
void ForEachStmt(const Block& block, const std::function<void(const Stmt&)>& f);
void ForEachVal(const Block& block, const std::function<void(const Val&)>& f);
void ForEachNode(const Val& v, const std::function<void(const Val&)>& f);

}  // namespace ixa::emit::ir

#endif  // IXA_EMIT_IR_KERNEL_IR_H_
