// An HLO module read from XLA's text form: computations of instructions,
// each computation ordered by boost::topological_sort over its operand graph.
//
//   HloModule m
//   add { ... }
//   ENTRY main { p0 = f32[10] parameter(0) ... ROOT r = ... }
//
// The reader keeps the attributes the indexing analysis needs in typed form
// (checked at read time, errors with line and column) and every attribute's
// raw text. An opcode outside XLA's list (opcodes.h) is a parse error; a
// known one without an indexing map reads fine, only asking for its map
// fails.
#ifndef IXA_ANALYSIS_HLO_MODULE_H_
#define IXA_ANALYSIS_HLO_MODULE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/hlo/opcodes.h"
#include "analysis/hlo/shape.h"
#include "core/result.h"

namespace ixa::hlo {

class Computation;

struct SliceDim {
  int64_t start = 0, limit = 0, stride = 1;
};

struct PadDim {
  int64_t low = 0, high = 0, interior = 0;
};

struct WindowDim {
  int64_t size = 1, stride = 1, pad_low = 0, pad_high = 0;
  int64_t base_dilation = 1;    // lhs_dilate
  int64_t window_dilation = 1;  // rhs_dilate
  bool reversal = false;
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, start_index_map,
      operand_batching_dims, start_indices_batching_dims;
  int64_t index_vector_dim = -1;
};

// Scatter's dimension numbers mirror gather's one for one, so the reader
// keeps them in Instruction::gather (update_window_dims in offset_dims,
// inserted_window_dims in collapsed_slice_dims, scatter_dims_to_operand_dims
// in start_index_map, input / scatter_indices batching dims in the
// operand / start_indices batching dims): one copy per instruction keeps
// instructions small. ScatterDims() gives them under their own names.
struct ScatterDimensionNumbers {
  const std::vector<int64_t>& update_window_dims;
  const std::vector<int64_t>& inserted_window_dims;
  const std::vector<int64_t>& scatter_dims_to_operand_dims;
  const std::vector<int64_t>& input_batching_dims;
  const std::vector<int64_t>& scatter_indices_batching_dims;
  int64_t index_vector_dim;
};

// ragged-dot: `lhs_ragged_dims={d}`, `rhs_group_dims={g}` (with the dot
// dimension numbers in Instruction::dot).
struct RaggedDotDimensionNumbers {
  std::vector<int64_t> lhs_ragged, rhs_group;
};

// `dim_labels=b01f_01io->b01f`: positions of each role per tensor. A `?`
// marks a position no role names (XLA prints it for such dims); the ranks
// count every position.
struct ConvDimensionNumbers {
  int64_t input_batch = 0, input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> output_spatial;
  int64_t input_rank = 0, kernel_rank = 0, output_rank = 0;
  bool has_unlabeled = false;  // some position is `?`
};

struct Instruction {
  std::string name;
  Opcode opcode = Opcode::kParameter;  // set by the reader
  // The op that an async half written `<op>-start` / `-update` / `-done`
  // wraps (opcode kAsyncStart / kAsyncUpdate / kAsyncDone); unset for
  // every other instruction, `async-start(...)` included.
  std::optional<Opcode> async_wrapped;
  Shape shape;
  std::vector<const Instruction*> operands;
  std::vector<const Instruction*> users;  // unique, in text order
  const Computation* parent = nullptr;
  // Computations named by to_apply=, calls=, condition=, body=,
  // branch_computations=, true/false_computation=, select=, scatter=
  // (resolved module-wide), in attribute order; inline bodies
  // (`to_apply={ a = ... }`) are computations of their own.
  std::vector<const Computation*> called_computations;
  int line = 0, column = 0;  // where the instruction's name starts

  // Typed attributes (set when present).
  int64_t parameter_number = -1;  // parameter(N)
  int64_t tuple_index = -1;       // get-tuple-element index=
  std::vector<int64_t> dimensions;
  std::vector<SliceDim> slice;
  std::vector<PadDim> padding;
  std::vector<WindowDim> window;
  std::vector<int64_t> dynamic_slice_sizes;
  std::vector<int64_t> slice_sizes;  // gather
  // collective-permute's `slice_sizes={{128,32}}` (a list of lists).
  std::vector<std::vector<int64_t>> slice_sizes_list;
  DotDimensionNumbers dot;
  GatherDimensionNumbers gather;  // also scatter's (ScatterDims)
  RaggedDotDimensionNumbers ragged;
  // Set for convolutions (dim_labels=); held apart so that the other
  // instructions stay small.
  std::unique_ptr<const ConvDimensionNumbers> conv;
  int64_t feature_group_count = 1, batch_group_count = 1;
  // Explicit `{{0,1},{2,3}}`, or expanded from the iota form
  // `[G,S]<=[dims]T(perm)` or a mesh `mesh['a'=2,'b'=2] {'b'}`.
  std::vector<std::vector<int64_t>> replica_groups;
  int64_t iota_dimension = -1;
  std::string literal;               // constant(...) text
  std::optional<int64_t> int_value;  // integer scalar constants
  // Every attribute's raw text, by name (metadata, backend_config, ...).
  std::map<std::string, std::string> attributes;

  const Instruction* operand(int i) const { return operands[i]; }
  int operand_count() const { return static_cast<int>(operands.size()); }
  bool HasAttribute(std::string_view name) const {
    return attributes.count(std::string(name)) > 0;
  }
  std::string Attribute(std::string_view name) const;
  ScatterDimensionNumbers ScatterDims() const {
    return {gather.offset_dims,
            gather.collapsed_slice_dims,
            gather.start_index_map,
            gather.operand_batching_dims,
            gather.start_indices_batching_dims,
            gather.index_vector_dim};
  }
  // The computation of a fusion / call / map / reduce (first called one).
  const Computation* called() const {
    return called_computations.empty() ? nullptr : called_computations[0];
  }
};

class Computation {
 public:
  const std::string& name() const { return name_; }
  bool is_entry() const { return is_entry_; }
  const Instruction* root() const { return root_; }
  // Instructions in text order.
  const std::vector<std::unique_ptr<Instruction>>& instructions() const {
    return instructions_;
  }
  // Operands before users (boost::topological_sort); the root is last among
  // the instructions it depends on.
  const std::vector<const Instruction*>& post_order() const {
    return post_order_;
  }
  // parameter(i) or nullptr.
  const Instruction* parameter(int64_t i) const;
  int64_t parameter_count() const {
    return static_cast<int64_t>(parameters_.size());
  }
  const Instruction* Find(std::string_view name) const;
  int line() const { return line_; }
  int column() const { return column_; }
  // Attributes written after the closing brace (`}, execution_thread=
  // "host"`), raw text by name.
  const std::map<std::string, std::string>& attributes() const {
    return attributes_;
  }

 private:
  friend class ModuleBuilder;
  std::string name_;
  std::map<std::string, std::string> attributes_;
  bool is_entry_ = false;
  int line_ = 0, column_ = 0;
  const Instruction* root_ = nullptr;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  std::vector<const Instruction*> post_order_;
  std::vector<const Instruction*> parameters_;
  // Looked up by string_view without building a string (transparent hash).
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>()(s);
    }
  };
  std::unordered_map<std::string, const Instruction*, NameHash, std::equal_to<>>
      by_name_;
};

class Module {
 public:
  const std::string& name() const { return name_; }
  const Computation* entry() const { return entry_; }
  const std::vector<std::unique_ptr<Computation>>& computations() const {
    return computations_;
  }
  const Computation* FindComputation(std::string_view name) const;
  // An instruction by name: the entry computation first, then the others.
  const Instruction* FindInstruction(std::string_view name) const;
  // The header's attributes (`HloModule m, replica_count=2, ...`), raw
  // text by name.
  const std::map<std::string, std::string>& attributes() const {
    return attributes_;
  }
  // The header's `replica_count=` and `num_partitions=` (XLA's defaults:
  // 1); the reader checks that they are positive integers.
  int64_t replica_count() const { return replica_count_; }
  int64_t num_partitions() const { return num_partitions_; }

 private:
  friend class ModuleBuilder;
  std::string name_;
  std::map<std::string, std::string> attributes_;
  int64_t replica_count_ = 1, num_partitions_ = 1;
  const Computation* entry_ = nullptr;
  std::vector<std::unique_ptr<Computation>> computations_;
};

// Limits of the reader, so that no input can exhaust the stack. Deeper
// input is a parse error naming the limit.
inline constexpr int kMaxOperandNesting = 64;      // `reshape(f32[2] add(...))`
inline constexpr int kMaxInlineComputations = 32;  // `to_apply={ ... }`
inline constexpr int kMaxCallDepth = 64;  // computations calling computations

// Reads a module. Also accepts a bare computation (`f { ... }`) or bare
// instruction lines, which become the entry computation (root: the ROOT
// instruction, else the last one). Errors: Error::Parse with line and column
// naming what was expected; unknown operands, shape mismatches and
// malformed attributes are parse errors too, and so is a cycle in the call
// graph (a fusion calling its own computation), named computation by
// computation.
Result<std::unique_ptr<Module>> ParseHloModule(std::string_view text);

// The legacy dynamic-slice / dynamic-update-slice form whose offsets are
// one rank-1 vector (`dynamic-slice(s32[4,4] p, s32[2] o)`): the operand
// holding them (1 or 2), or -1 for the form with one scalar per dim.
int OffsetVectorOperand(const Instruction& instr);

// The opcode as written: OpcodeName(in.opcode), or the async form
// (`custom-call-start`) of an async half that wraps an op. The printer and
// every message naming an instruction's opcode use it.
inline const std::string& OpcodeName(const Instruction& in) {
  return WrittenOpcodeName(in.opcode, in.async_wrapped);
}

}  // namespace ixa::hlo

#endif  // IXA_ANALYSIS_HLO_MODULE_H_
