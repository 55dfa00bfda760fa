// Lowering a fusion to the kernel IR (docs/emitters.md §2, §2a): the
// partitioner's subgraphs become functions, each instruction is emitted
// elementally (an index transformation applies the op's output-to-input
// indexing map to the output index), and the emitters build the entry
// kernel from the plan's thread maps.
#ifndef IXA_EMIT_LOWER_LOWERING_H_
#define IXA_EMIT_LOWER_LOWERING_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/emitters/plan.h"
#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"
#include "analysis/partition/partition.h"
#include "emit/ir/kernel_ir.h"

namespace ixa::emit {

class LoweringContext;

// Builds one block structure: statements go to the innermost open block.
class BlockBuilder {
 public:
  explicit BlockBuilder(LoweringContext* lc) : lc_(lc) {
    stack_.emplace_back();
    ids_.push_back(next_id_++);
  }
  void Add(ir::Stmt s) { stack_.back().push_back(std::move(s)); }
  // Binds `value` to a fresh name and returns a reference to it (constants
  // and variables are returned as they are).
  ir::Val Bind(const std::string& stem, ir::Val value);
  // A fresh mutable variable initialised with `init`.
  ir::Val DeclareVar(const std::string& stem, ir::Val init);
  void Open() {
    stack_.emplace_back();
    ids_.push_back(next_id_++);
  }
  ir::Block Close() {
    ir::Block b = std::move(stack_.back());
    stack_.pop_back();
    ids_.pop_back();
    return b;
  }
  // The innermost open block, and whether a block is still open (values
  // bound in a closed block are out of scope).
  int current_block() const { return ids_.back(); }
  bool IsOpen(int id) const {
    for (int i : ids_) {
      if (i == id) return true;
    }
    return false;
  }
  ir::Block Take() {
    IXA_CHECK(stack_.size() == 1);
    return std::move(stack_.back());
  }
  std::string Fresh(const std::string& stem);

 private:
  LoweringContext* lc_;
  std::vector<ir::Block> stack_;
  std::vector<int> ids_;
  int next_id_ = 0;
};

// Everything shared while lowering one fusion.
class LoweringContext {
 public:
  LoweringContext(const FusionRegion& region, const EmitterPlan& plan,
                  ExprContext* ctx)
      : region_(region), plan_(plan), ctx_(ctx) {}

  // Buffers, the partition, the check that every op can be emitted.
  Status Init();

  const FusionRegion& region() const { return region_; }
  const EmitterPlan& plan() const { return plan_; }
  ExprContext* ctx() const { return ctx_; }
  ir::Module& module() { return module_; }
  const PartitionedComputation& partition() const { return partition_; }

  // Buffer of fusion parameter `k` / fusion output `k`.
  int ParameterBuffer(int k) const { return parameter_buffers_[k]; }
  int OutputBuffer(int k) const { return output_buffers_[k]; }
  int num_outputs() const { return static_cast<int>(output_buffers_.size()); }
  // The fusion parameter `instr` is (-1 if none).
  int ParameterIndex(const hlo::Instruction* instr) const;
  // A shared-memory buffer.
  int AddSharedBuffer(const std::string& stem, ir::Type type,
                      std::vector<int64_t> dims);
  // The buffer holding an array constant (created once).
  Result<int> ConstantBuffer(const hlo::Instruction& constant);

  // The per-op output-to-input maps of `instr` (output `output`), cached;
  // a map shared as one object per structurally equal map.
  Result<const HloInstructionIndexing*> OpIndexing(const hlo::Instruction& in,
                                                   int output = 0);
  std::shared_ptr<const IndexingMap> Intern(const IndexingMap& map);
  // An interned Apply node (equal maps and operands give the same node).
  ir::Val ApplyMap(const std::shared_ptr<const IndexingMap>& map, int result,
                   const std::vector<ir::Val>& operands);
  // All results of `map` at the operands (identity maps give the operands
  // back).
  std::vector<ir::Val> ApplyAll(const std::shared_ptr<const IndexingMap>& map,
                                const std::vector<ir::Val>& operands);

  // The function computing subgraph root `root` at an index (created on
  // first use); its results are the root's outputs.
  Result<std::string> SubgraphFunction(const hlo::Instruction* root);
  // The function applying scalar computation `comp` (reducers, map,
  // scatter combiners).
  Result<std::string> ScalarFunction(const hlo::Computation* comp);
  bool IsSubgraphRoot(const hlo::Instruction* instr) const;

  std::string FreshName(const std::string& stem);
  // A name no FreshName gives (the kernel's: a function of the unit named
  // as the kernel would clash with it).
  void ReserveName(const std::string& name) { reserved_.insert(name); }
  // An instruction whose value the emitter supplies itself (the GEMM
  // emitter's dot): Init does not ask that it be emittable elementally.
  void ProvideValueOf(const hlo::Instruction* instr) { provided_ = instr; }
  // A valid identifier from an HLO name.
  static std::string Sanitize(const std::string& name);

 private:
  const FusionRegion& region_;
  const EmitterPlan& plan_;
  ExprContext* ctx_;
  ir::Module module_;
  PartitionedComputation partition_;
  std::vector<int> parameter_buffers_, output_buffers_;
  std::map<std::pair<const hlo::Instruction*, int>,
           std::unique_ptr<HloInstructionIndexing>>
      indexing_;
  std::vector<std::shared_ptr<const IndexingMap>> interned_;
  std::map<std::vector<const void*>, ir::Val> applies_;
  std::map<const hlo::Instruction*, std::string> subgraph_functions_;
  std::map<const hlo::Computation*, std::string> scalar_functions_;
  std::map<const hlo::Instruction*, int> constant_buffers_;
  std::map<std::string, int> name_counts_;
  std::set<std::string> reserved_;
  const hlo::Instruction* provided_ = nullptr;
};

// Emits instructions elementally into a block (docs/emitters.md §2a).
class ElementalEmitter {
 public:
  ElementalEmitter(LoweringContext* lc, BlockBuilder* bb) : lc_(lc), bb_(bb) {}

  // The instruction whose subgraph is being emitted (never called).
  void set_function_root(const hlo::Instruction* root) { root_ = root; }
  // Values to use for an instruction (hero values in epilogues, scalar
  // computation parameters).
  void Override(const hlo::Instruction* instr, std::vector<ir::Val> values) {
    overrides_[instr] = std::move(values);
  }
  // Instructions emitted inline even when they root a subgraph (the path
  // from an epilogue's root to its hero).
  void set_inline(std::set<const hlo::Instruction*> s) {
    inline_ = std::move(s);
  }
  // Resolves parameters of a nested computation through the emitter of
  // the computation that calls it.
  void set_outer(ElementalEmitter* outer, const hlo::Instruction* call) {
    outer_ = outer;
    call_ = call;
    use_partition_ = false;
  }
  // A computation other than the fusion's (reducers): no subgraph calls.
  void set_use_partition(bool use) { use_partition_ = use; }

  // One value per output leaf of `instr` at `index`.
  Result<std::vector<ir::Val>> Emit(const hlo::Instruction* instr,
                                    const std::vector<ir::Val>& index);
  Result<ir::Val> EmitOne(const hlo::Instruction* instr,
                          const std::vector<ir::Val>& index) {
    IXA_ASSIGN_OR_RETURN(std::vector<ir::Val> v, Emit(instr, index));
    return v.at(0);
  }

 private:
  Result<std::vector<ir::Val>> EmitUncached(const hlo::Instruction* instr,
                                            const std::vector<ir::Val>& index);
  Result<std::vector<ir::Val>> EmitElementwise(
      const hlo::Instruction& in, const std::vector<ir::Val>& index);
  Result<std::vector<ir::Val>> EmitReduce(const hlo::Instruction& in,
                                          const std::vector<ir::Val>& index);
  // bitcast-convert between element widths (elemental_bitcast.cc): the
  // pieces of a wide element along the narrow side's extra minor dim.
  Result<std::vector<ir::Val>> EmitBitcastConvertWidth(
      const hlo::Instruction& in, const std::vector<ir::Val>& index);
  // Dot and convolution (elemental_dot.cc): the sum over the operand
  // maps' symbols of the products, in the accumulator type.
  Result<std::vector<ir::Val>> EmitDot(const hlo::Instruction& in,
                                       const std::vector<ir::Val>& index);
  ir::Val ConvertDotResult(const ir::Val& acc, ir::Type result);
  Result<std::vector<ir::Val>> EmitReducePrecision(const hlo::Instruction& in,
                                                   const ir::Val& x);
  Result<std::vector<ir::Val>> EmitComplex(const hlo::Instruction& in,
                                           ir::Type t,
                                           const std::vector<ir::Val>& x);
  // The runtime symbols of `map` (dynamic offsets, gather indices),
  // clamped to their bounds.
  Result<std::vector<ir::Val>> RuntimeValues(const hlo::Instruction& in,
                                             const IndexingMap& map,
                                             const std::vector<ir::Val>& index);
  // Operand `k` of `in` through its (single) indexing map; `symbols` are
  // the map's range symbols.
  Result<std::vector<ir::Val>> OperandIndex(
      const hlo::Instruction& in, int k, const std::vector<ir::Val>& index,
      const std::vector<ir::Val>& symbols,
      std::shared_ptr<const IndexingMap>* map_out = nullptr);

  LoweringContext* lc_;
  BlockBuilder* bb_;
  const hlo::Instruction* root_ = nullptr;
  std::map<const hlo::Instruction*, std::vector<ir::Val>> overrides_;
  std::set<const hlo::Instruction*> inline_;
  bool use_partition_ = true;
  ElementalEmitter* outer_ = nullptr;
  const hlo::Instruction* call_ = nullptr;
  // Values already emitted, per block depth: (instr, index nodes).
  struct MemoEntry {
    int block;
    std::vector<ir::Val> values;
  };
  std::map<std::pair<const hlo::Instruction*, std::vector<const void*>>,
           MemoEntry>
      memo_;
};

// Every expression of the map is one the printers handle (Unsupported
// otherwise: a printer never guesses at an expression kind).
Status CheckPrintableMap(const IndexingMap& map);

// Number of array leaves of a shape (1 for arrays).
int LeafCount(const hlo::Shape& shape);
// The array leaves of a shape, in order.
std::vector<const hlo::Shape*> Leaves(const hlo::Shape& shape);

// A scalar constant's value, rounded to its type (Unsupported for literal
// forms the emitters do not read).
Result<ir::Val> ScalarConstant(const hlo::Instruction& in);

}  // namespace ixa::emit

#endif  // IXA_EMIT_LOWER_LOWERING_H_
