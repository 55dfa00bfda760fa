// The HLO text reader (module.h). Token-based like XLA's own parser, so an
// instruction may span lines; names may be written with or without '%',
// operands with or without their shapes, or as nested instructions
// (`reshape(f32[1,8] parameter(0))`); computations may be written inline
// (`to_apply={ a = f32[] parameter(0) ... }`). Every recursive path (tuple
// shapes, nested operands, inline computations, calls) has a depth limit,
// so no input exhausts the stack.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <cctype>
#include <charconv>
#include <iterator>
#include <unordered_set>

#include "analysis/hlo/attributes.h"
#include "analysis/hlo/lexer.h"
#include "analysis/hlo/module.h"
#include "analysis/hlo/opcodes.h"
#include "analysis/hlo/verifier.h"

namespace ixa::hlo {

namespace {

// Attributes whose value names computations.
bool IsComputationAttribute(std::string_view name) {
  return name == "to_apply" || name == "calls" || name == "condition" ||
         name == "body" || name == "branch_computations" ||
         name == "true_computation" || name == "false_computation" ||
         name == "select" || name == "scatter";
}

// The stack-frame tables XLA appends to a module.
bool IsStackFrameTable(std::string_view word) {
  return word == "FileNames" || word == "FunctionNames" ||
         word == "FileLocations" || word == "StackFrames";
}

}  // namespace

class ModuleBuilder {
 public:
  explicit ModuleBuilder(std::string_view text) : c_(text) {}
  Result<std::unique_ptr<Module>> Build();

 private:
  struct PendingOperand {
    std::string name;                     // resolved by name, or
    const Instruction* direct = nullptr;  // a nested / synthesized one
    std::optional<Shape> shape;
    Position pos;
  };
  struct PendingCall {
    Instruction* instr;
    std::string name;
    Position pos;
  };
  struct PendingInstruction {
    Instruction* instr;
    std::vector<PendingOperand> operands;
    bool shape_written = true;
  };

  Status ParseHeader();
  Status SkipStackFrameTable();
  Status ParseComputation();
  Status ParseComputationBody(Computation* comp, int depth);
  Status ParseComputationAttributes(Computation* comp);
  Status ParseBareEntry();
  Status ParseInstruction(Computation* comp, int depth);
  // Everything after `name =`; `nesting` counts enclosing operand lists.
  Result<Instruction*> ParseInstructionRhs(Computation* comp, std::string name,
                                           Position pos, bool allow_attributes,
                                           int nesting, int depth);
  Status ParseOperand(Computation* comp, PendingInstruction* pending,
                      int nesting, int depth);
  Status ParseAttributes(Computation* comp, Instruction* instr, int depth);
  Status ParseInlineComputation(Instruction* instr, std::string_view attr,
                                int depth);
  Status ParseAttribute(Instruction* instr, std::string_view name,
                        std::string_view raw, Position pos);
  Status FinishComputation(Computation* comp, Position pos);
  Status CheckCalls();
  Status CheckCallGraph();
  Computation* NewComputation(std::string name, Position pos);
  Instruction* AddInstruction(Computation* comp,
                              std::unique_ptr<Instruction> instr);

  Cursor c_;
  std::unique_ptr<Module> module_ = std::make_unique<Module>();
  std::vector<PendingInstruction> pending_;
  std::vector<PendingCall> calls_;
  std::unordered_set<std::string> computation_names_;
};

Status ModuleBuilder::ParseAttribute(Instruction* instr, std::string_view name,
                                     std::string_view raw, Position pos) {
  instr->attributes[std::string(name)] = std::string(raw);
  auto ints = [&](std::vector<int64_t>* out) -> Status {
    IXA_ASSIGN_OR_RETURN(*out, IntListAttr(raw, pos, name));
    return Status();
  };
  auto one = [&](int64_t* out) -> Status {
    IXA_ASSIGN_OR_RETURN(*out, IntAttr(raw, pos, name));
    return Status();
  };
  if (name == "dimensions") return ints(&instr->dimensions);
  if (name == "dynamic_slice_sizes") return ints(&instr->dynamic_slice_sizes);
  if (name == "slice_sizes") {
    // collective-permute writes a list of lists.
    if (raw.substr(0, 2) == "{{") {
      IXA_ASSIGN_OR_RETURN(instr->slice_sizes_list,
                           IntListListAttr(raw, pos, name));
      return Status();
    }
    return ints(&instr->slice_sizes);
  }
  if (name == "lhs_batch_dims") return ints(&instr->dot.lhs_batch);
  if (name == "rhs_batch_dims") return ints(&instr->dot.rhs_batch);
  if (name == "lhs_contracting_dims") return ints(&instr->dot.lhs_contracting);
  if (name == "rhs_contracting_dims") return ints(&instr->dot.rhs_contracting);
  if (name == "lhs_ragged_dims") return ints(&instr->ragged.lhs_ragged);
  if (name == "rhs_group_dims") return ints(&instr->ragged.rhs_group);
  if (name == "offset_dims") return ints(&instr->gather.offset_dims);
  if (name == "collapsed_slice_dims") {
    return ints(&instr->gather.collapsed_slice_dims);
  }
  if (name == "start_index_map") return ints(&instr->gather.start_index_map);
  if (name == "operand_batching_dims") {
    return ints(&instr->gather.operand_batching_dims);
  }
  if (name == "start_indices_batching_dims") {
    return ints(&instr->gather.start_indices_batching_dims);
  }
  // Scatter's dimension numbers live in gather's fields (ScatterDims).
  if (name == "update_window_dims") return ints(&instr->gather.offset_dims);
  if (name == "inserted_window_dims") {
    return ints(&instr->gather.collapsed_slice_dims);
  }
  if (name == "scatter_dims_to_operand_dims") {
    return ints(&instr->gather.start_index_map);
  }
  if (name == "input_batching_dims") {
    return ints(&instr->gather.operand_batching_dims);
  }
  if (name == "scatter_indices_batching_dims") {
    return ints(&instr->gather.start_indices_batching_dims);
  }
  if (name == "index_vector_dim") return one(&instr->gather.index_vector_dim);
  if (name == "index") return one(&instr->tuple_index);
  if (name == "iota_dimension") return one(&instr->iota_dimension);
  if (name == "feature_group_count") return one(&instr->feature_group_count);
  if (name == "batch_group_count") return one(&instr->batch_group_count);
  if (name == "slice") {
    IXA_ASSIGN_OR_RETURN(instr->slice, SliceAttr(raw, pos));
  } else if (name == "padding" && instr->opcode == Opcode::kPad) {
    IXA_ASSIGN_OR_RETURN(instr->padding, PaddingAttr(raw, pos));
  } else if (name == "window") {
    IXA_ASSIGN_OR_RETURN(instr->window, WindowAttr(raw, pos));
  } else if (name == "dim_labels") {
    IXA_ASSIGN_OR_RETURN(ConvDimensionNumbers dn, DimLabelsAttr(raw, pos));
    instr->conv = std::make_unique<const ConvDimensionNumbers>(std::move(dn));
  } else if (name == "replica_groups") {
    IXA_ASSIGN_OR_RETURN(instr->replica_groups, ReplicaGroupsAttr(raw, pos));
  } else if (IsComputationAttribute(name)) {
    Cursor c(raw, pos);
    bool braced = c.Consume('{');
    if (!braced || c.Peek() != '}') {
      do {
        Position p = c.position();
        IXA_ASSIGN_OR_RETURN(std::string_view callee,
                             c.ExpectName("a computation name"));
        calls_.push_back({instr, std::string(callee), p});
        // Known already: available to shape inference right away (the
        // final pass re-resolves every call in attribute order).
        if (const Computation* known = module_->FindComputation(callee)) {
          instr->called_computations.push_back(known);
        }
      } while (braced && c.Consume(','));
    }
    if (braced) IXA_HLO_TRY(c.Expect('}', "closing the computation list"));
    if (!c.AtEnd()) return c.Fail("end of " + std::string(name));
  }
  return Status();
}

Instruction* ModuleBuilder::AddInstruction(Computation* comp,
                                           std::unique_ptr<Instruction> instr) {
  Instruction* raw = instr.get();
  comp->by_name_[raw->name] = raw;
  comp->instructions_.push_back(std::move(instr));
  return raw;
}

// operand ::= shape? name ('#' index)? | shape? opcode '(' operands ')'
Status ModuleBuilder::ParseOperand(Computation* comp,
                                   PendingInstruction* pending, int nesting,
                                   int depth) {
  PendingOperand operand;
  if (AtShape(&c_)) {
    IXA_ASSIGN_OR_RETURN(operand.shape, ParseShapeAt(&c_));
  }
  operand.pos = c_.position();
  IXA_ASSIGN_OR_RETURN(std::string_view op_name,
                       c_.ExpectName("an operand name"));
  if (c_.PeekRaw() == '(') {
    // A nested instruction; its name says where it was written (the '@'
    // keeps it apart from every name the text can define).
    if (nesting >= kMaxOperandNesting) {
      return Cursor::FailAt(operand.pos,
                            "operands nest deeper than " +
                                std::to_string(kMaxOperandNesting) + " levels");
    }
    c_.Reset(operand.pos);
    std::string name = std::string(op_name) + "@" +
                       std::to_string(operand.pos.line) + ":" +
                       std::to_string(operand.pos.column);
    // The shape read above belongs to the nested instruction.
    Position shape_pos = operand.pos;
    IXA_ASSIGN_OR_RETURN(
        Instruction * nested,
        ParseInstructionRhs(comp, name, shape_pos, /*allow_attributes=*/false,
                            nesting + 1, depth));
    if (operand.shape) {
      pending_.back().shape_written = true;
      nested->shape = *operand.shape;
      operand.shape.reset();
    }
    operand.direct = nested;
    operand.name = name;
    pending->operands.push_back(std::move(operand));
    return Status();
  }
  operand.name = std::string(op_name);
  if (c_.PeekRaw() == '#') {
    // `%p0#1`: element 1 of the tuple p0, an implicit get-tuple-element.
    c_.Next();
    IXA_ASSIGN_OR_RETURN(int64_t index,
                         c_.ExpectInt("a tuple index after '#'"));
    std::string name = operand.name + "#" + std::to_string(index);
    const Instruction* gte = comp->Find(name);
    if (!gte) {
      auto instr = std::make_unique<Instruction>();
      instr->name = name;
      instr->opcode = Opcode::kGetTupleElement;
      instr->tuple_index = index;
      instr->line = operand.pos.line;
      instr->column = operand.pos.column;
      instr->parent = comp;
      PendingInstruction p{instr.get(), {}, /*shape_written=*/false};
      p.operands.push_back({operand.name, nullptr, std::nullopt, operand.pos});
      gte = AddInstruction(comp, std::move(instr));
      pending_.push_back(std::move(p));
    }
    operand.direct = gte;
    operand.name = name;
  }
  pending->operands.push_back(std::move(operand));
  return Status();
}

Status ModuleBuilder::ParseInlineComputation(Instruction* instr,
                                             std::string_view attr, int depth) {
  Position pos = c_.position();
  if (depth >= kMaxInlineComputations) {
    return Cursor::FailAt(pos, "inline computations nest deeper than " +
                                   std::to_string(kMaxInlineComputations) +
                                   " levels");
  }
  std::string name = instr->name + ":" + std::string(attr);
  c_.Consume('{');
  Computation* comp = NewComputation(name, pos);
  computation_names_.insert(name);
  IXA_RETURN_IF_ERROR(ParseComputationBody(comp, depth + 1));
  instr->attributes[std::string(attr)] = name;
  calls_.push_back({instr, name, pos});
  instr->called_computations.push_back(comp);
  return Status();
}

Status ModuleBuilder::ParseAttributes(Computation* comp, Instruction* instr,
                                      int depth) {
  (void)comp;
  while (c_.Consume(',')) {
    Position attr_pos = c_.position();
    IXA_ASSIGN_OR_RETURN(std::string_view attr,
                         c_.ExpectName("an attribute name"));
    IXA_HLO_TRY(c_.Expect('=', "after attribute '" + std::string(attr) + "'"));
    if (instr->attributes.count(std::string(attr))) {
      return Cursor::FailAt(
          attr_pos, "attribute '" + std::string(attr) + "' is given twice");
    }
    Position value_pos = c_.position();
    if (IsComputationAttribute(attr) && c_.Peek() == '{') {
      // `to_apply={ a = f32[] parameter(0) ... }`: an inline body.
      c_.Consume('{');
      bool inline_body = c_.ConsumeWord("ROOT");
      if (!inline_body && !c_.Name().empty()) inline_body = c_.Peek() == '=';
      c_.Reset(value_pos);
      if (inline_body) {
        IXA_RETURN_IF_ERROR(ParseInlineComputation(instr, attr, depth));
        continue;
      }
    }
    std::string_view raw;
    if (attr == "literal") {
      // custom-call's `literal=s32[2] {1, 2}`: a shape, a blank, a value.
      IXA_HLO_TRY(ParseShapeAt(&c_, /*layout_after_blank=*/false));
      IXA_ASSIGN_OR_RETURN(std::string_view value,
                           c_.RawValue("a literal value"));
      raw = c_.text().substr(
          value_pos.offset,
          value.data() + value.size() - c_.text().data() - value_pos.offset);
    } else {
      IXA_ASSIGN_OR_RETURN(
          raw, c_.RawValue("a value for '" + std::string(attr) + "'"));
      if (attr == "replica_groups" && raw.substr(0, 4) == "mesh" &&
          c_.Peek() == '{') {
        // `mesh['a'=2,'b'=2] {'b'}`: the axes follow after a blank.
        IXA_ASSIGN_OR_RETURN(std::string_view axes,
                             c_.RawValue("the mesh group axes"));
        raw = c_.text().substr(
            value_pos.offset,
            axes.data() + axes.size() - c_.text().data() - value_pos.offset);
      }
    }
    IXA_RETURN_IF_ERROR(ParseAttribute(instr, attr, raw, value_pos));
  }
  return Status();
}

Result<Instruction*> ModuleBuilder::ParseInstructionRhs(
    Computation* comp, std::string name, Position pos, bool allow_attributes,
    int nesting, int depth) {
  auto instr = std::make_unique<Instruction>();
  instr->name = std::move(name);
  instr->line = pos.line;
  instr->column = pos.column;
  instr->parent = comp;
  PendingInstruction pending{instr.get(), {}, true};
  if (AtShape(&c_)) {
    IXA_ASSIGN_OR_RETURN(instr->shape, ParseShapeAt(&c_));
  } else {
    pending.shape_written = false;
  }
  Position op_pos = c_.position();
  IXA_ASSIGN_OR_RETURN(std::string_view opcode, c_.ExpectName("an opcode"));
  if (c_.PeekRaw() == '[') {
    return Cursor::FailAt(op_pos,
                          "expected an element type (f32, s32, pred, "
                          "...), found " +
                              QuoteForMessage(opcode));
  }
  std::optional<WrittenOpcode> written = ParseWrittenOpcode(opcode);
  if (!written) return Cursor::FailAt(op_pos, UnknownOpcodeMessage(opcode));
  instr->opcode = written->opcode;
  instr->async_wrapped = written->async_wrapped;
  if (!c_.Consume('(')) return c_.Fail("'(' after the opcode");
  if (instr->opcode == Opcode::kConstant) {
    IXA_ASSIGN_OR_RETURN(std::string_view lit, c_.RawUntilClose('(', ')'));
    instr->literal = std::string(lit);
    Cursor lc(lit, op_pos);
    if (lc.Peek() != '{') {
      auto v = lc.ExpectInt("an integer");
      if (v.ok() && lc.AtEnd()) instr->int_value = *v;
      if (lit == "true") instr->int_value = 1;
      if (lit == "false") instr->int_value = 0;
    }
  } else if (instr->opcode == Opcode::kParameter) {
    IXA_ASSIGN_OR_RETURN(instr->parameter_number,
                         c_.ExpectInt("a parameter number"));
    if (instr->parameter_number < 0) {
      return c_.Fail("a non-negative parameter number");
    }
    IXA_HLO_TRY(c_.Expect(')', "closing parameter("));
  } else if (!c_.Consume(')')) {
    while (true) {
      IXA_RETURN_IF_ERROR(ParseOperand(comp, &pending, nesting, depth));
      if (c_.Consume(')')) break;
      if (!c_.Consume(',')) return c_.Fail("',' or ')' after an operand");
    }
  }
  if (allow_attributes) {
    IXA_RETURN_IF_ERROR(ParseAttributes(comp, instr.get(), depth));
  }
  Instruction* raw = AddInstruction(comp, std::move(instr));
  pending_.push_back(std::move(pending));
  return raw;
}

Status ModuleBuilder::ParseInstruction(Computation* comp, int depth) {
  bool is_root = c_.ConsumeWord("ROOT");
  Position pos = c_.position();
  IXA_ASSIGN_OR_RETURN(std::string_view name,
                       c_.ExpectName("an instruction name"));
  if (comp->by_name_.find(name) != comp->by_name_.end()) {
    return Cursor::FailAt(
        pos, "instruction " + QuoteForMessage(name) + " is defined twice");
  }
  IXA_HLO_TRY(c_.Expect('=', "after the instruction name"));
  IXA_ASSIGN_OR_RETURN(
      Instruction * instr,
      ParseInstructionRhs(comp, std::string(name), pos,
                          /*allow_attributes=*/true, /*nesting=*/0, depth));
  if (is_root) {
    if (comp->root_) {
      return Cursor::FailAt(
          pos, "computation '" + comp->name_ + "' has two ROOT instructions");
    }
    comp->root_ = instr;
  }
  return Status();
}

Computation* ModuleBuilder::NewComputation(std::string name, Position pos) {
  auto comp = std::make_unique<Computation>();
  comp->name_ = std::move(name);
  comp->line_ = pos.line;
  comp->column_ = pos.column;
  Computation* raw = comp.get();
  module_->computations_.push_back(std::move(comp));
  return raw;
}

// Resolves operands, orders the graph with boost::topological_sort, infers
// missing shapes and checks every instruction.
Status ModuleBuilder::FinishComputation(Computation* comp, Position pos) {
  if (comp->instructions_.empty()) {
    return Cursor::FailAt(
        pos, "computation '" + comp->name_ + "' has no instructions");
  }
  if (!comp->root_) {
    // The last instruction written at the top level (nested operands are
    // added before the instruction that holds them).
    comp->root_ = comp->instructions_.back().get();
  }
  std::unordered_map<const Instruction*, size_t> index;
  for (size_t i = 0; i < comp->instructions_.size(); ++i) {
    index[comp->instructions_[i].get()] = i;
  }
  using Graph =
      boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph graph(comp->instructions_.size());
  std::vector<PendingInstruction*> mine(comp->instructions_.size());
  for (PendingInstruction& p : pending_) {
    if (p.instr->parent != comp) continue;
    mine[index[p.instr]] = &p;
    for (const PendingOperand& o : p.operands) {
      const Instruction* operand = o.direct ? o.direct : comp->Find(o.name);
      if (!operand) {
        return Cursor::FailAt(o.pos, "unknown operand " +
                                         QuoteForMessage(o.name) + " of " +
                                         QuoteForMessage(p.instr->name));
      }
      p.instr->operands.push_back(operand);
      // User -> operand: the sort's finish order then lists operands first
      // and keeps text order wherever the text is already ordered.
      boost::add_edge(index[p.instr], index[operand], graph);
    }
  }
  std::vector<size_t> order;
  try {
    boost::topological_sort(graph, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    // The one exception the library lets out of Boost; turned into input
    // error right here (bad input is a Result, never a crash).
    return Cursor::FailAt(pos, "computation '" + comp->name_ +
                                   "' has a cycle among its instructions");
  }
  for (auto it = order.begin(); it != order.end(); ++it) {
    Instruction* instr = comp->instructions_[*it].get();
    comp->post_order_.push_back(instr);
    PendingInstruction& p = *mine[*it];
    Position at{0, instr->line, instr->column};
    if (!p.shape_written) {
      Result<Shape> inferred = InferShape(*instr);
      if (!inferred.ok()) {
        return Cursor::FailAt(at, "expected a shape for '" + instr->name +
                                      "' (" + inferred.error().message + ")");
      }
      instr->shape = std::move(*inferred);
    }
    for (size_t k = 0; k < p.operands.size(); ++k) {
      const PendingOperand& o = p.operands[k];
      if (o.shape && !o.shape->Compatible(instr->operands[k]->shape)) {
        return Cursor::FailAt(o.pos, "shape mismatch: operand '" + o.name +
                                         "' is written as " +
                                         o.shape->ToString() + " but is " +
                                         instr->operands[k]->shape.ToString());
      }
    }
    if (Status verified = VerifyInstruction(*instr); !verified.ok()) {
      return Cursor::FailAt(at, verified.error().message);
    }
    for (const Instruction* operand : instr->operands) {
      auto& users = const_cast<Instruction*>(operand)->users;
      if (std::find(users.begin(), users.end(), instr) == users.end()) {
        users.push_back(instr);
      }
    }
    if (instr->opcode == Opcode::kParameter) {
      auto& params = comp->parameters_;
      int64_t n = instr->parameter_number;
      if (n >= static_cast<int64_t>(comp->instructions_.size())) {
        return Cursor::FailAt(at,
                              "parameter(" + std::to_string(n) +
                                  ") but the computation has only " +
                                  std::to_string(comp->instructions_.size()) +
                                  " instructions");
      }
      if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1);
      if (params[n]) {
        return Cursor::FailAt(
            at, "parameter(" + std::to_string(n) + ") is defined twice");
      }
      params[n] = instr;
    }
  }
  // Users in text order, whatever order the sort visited them in.
  for (auto& instr : comp->instructions_) {
    std::sort(instr->users.begin(), instr->users.end(),
              [&](const Instruction* a, const Instruction* b) {
                return index[a] < index[b];
              });
  }
  for (size_t i = 0; i < comp->parameters_.size(); ++i) {
    if (!comp->parameters_[i]) {
      return Cursor::FailAt(pos, "computation '" + comp->name_ +
                                     "' has no parameter(" + std::to_string(i) +
                                     ")");
    }
  }
  std::erase_if(pending_, [&](const PendingInstruction& p) {
    return p.instr->parent == comp;
  });
  return Status();
}

// Instructions up to the closing '}' (the '{' consumed).
Status ModuleBuilder::ParseComputationBody(Computation* comp, int depth) {
  Position pos{0, comp->line_, comp->column_};
  while (!c_.Consume('}')) {
    if (c_.AtEnd()) {
      return c_.Fail("'}' closing computation '" + comp->name_ + "'");
    }
    IXA_RETURN_IF_ERROR(ParseInstruction(comp, depth));
  }
  return FinishComputation(comp, pos);
}

// `}, execution_thread="host"`: attributes after the closing brace.
Status ModuleBuilder::ParseComputationAttributes(Computation* comp) {
  while (c_.Consume(',')) {
    Position attr_pos = c_.position();
    IXA_ASSIGN_OR_RETURN(std::string_view attr,
                         c_.ExpectName("a computation attribute name"));
    IXA_HLO_TRY(c_.Expect('=', "after attribute '" + std::string(attr) + "'"));
    IXA_ASSIGN_OR_RETURN(
        std::string_view raw,
        c_.RawValue("a value for '" + std::string(attr) + "'"));
    if (!comp->attributes_.emplace(std::string(attr), std::string(raw))
             .second) {
      return Cursor::FailAt(
          attr_pos, "attribute '" + std::string(attr) + "' is given twice");
    }
  }
  return Status();
}

Status ModuleBuilder::ParseComputation() {
  bool is_entry = c_.ConsumeWord("ENTRY");
  Position pos = c_.position();
  IXA_ASSIGN_OR_RETURN(std::string_view name,
                       c_.ExpectName("a computation name"));
  if (!computation_names_.insert(std::string(name)).second) {
    return Cursor::FailAt(
        pos, "computation '" + std::string(name) + "' is defined twice");
  }
  if (c_.Consume('(')) {  // signature `(p: f32[2]) -> f32[2]`
    IXA_HLO_TRY(c_.RawUntilClose('(', ')'));
    if (!c_.ConsumeString("->")) return c_.Fail("'->' in the signature");
    IXA_HLO_TRY(ParseShapeAt(&c_));
  }
  IXA_HLO_TRY(
      c_.Expect('{', "starting computation '" + std::string(name) + "'"));
  Computation* comp = NewComputation(std::string(name), pos);
  comp->is_entry_ = is_entry;
  if (is_entry) {
    if (module_->entry_) {
      return Cursor::FailAt(pos, "a second ENTRY computation");
    }
    module_->entry_ = comp;
  }
  IXA_RETURN_IF_ERROR(ParseComputationBody(comp, 0));
  return ParseComputationAttributes(comp);
}

Status ModuleBuilder::ParseBareEntry() {
  Position pos = c_.position();
  Computation* comp = NewComputation("entry", pos);
  comp->is_entry_ = true;
  module_->entry_ = comp;
  while (!c_.AtEnd()) {
    IXA_RETURN_IF_ERROR(ParseInstruction(comp, 0));
  }
  return FinishComputation(comp, pos);
}

// `HloModule name[:][, attr=value]*`.
Status ModuleBuilder::ParseHeader() {
  if (!c_.ConsumeWord("HloModule")) return Status();
  IXA_ASSIGN_OR_RETURN(std::string_view name, c_.ExpectName("a module name"));
  module_->name_ = std::string(name);
  if (c_.PeekRaw() == ':') c_.Next();
  while (c_.Consume(',')) {
    IXA_ASSIGN_OR_RETURN(std::string_view key,
                         c_.ExpectName("a module attribute name"));
    IXA_HLO_TRY(c_.Expect('=', "after the module attribute name"));
    const Position at = c_.position();
    IXA_ASSIGN_OR_RETURN(std::string_view raw,
                         c_.RawValue("a module attribute value"));
    module_->attributes_[std::string(key)] = std::string(raw);
    if (key == "replica_count" || key == "num_partitions") {
      int64_t count = 0;
      const auto [end, ec] =
          std::from_chars(raw.data(), raw.data() + raw.size(), count);
      if (ec != std::errc() || end != raw.data() + raw.size() || count < 1) {
        return Cursor::FailAt(at, std::string(key) +
                                      " must be a positive integer; got '" +
                                      std::string(raw) + "'");
      }
      (key == "replica_count" ? module_->replica_count_
                              : module_->num_partitions_) = count;
    }
  }
  return Status();
}

// `FileNames` / `FunctionNames` / `FileLocations` / `StackFrames`, the word
// consumed: entries `<id> "text"` or `<id> {fields}`, skipped.
Status ModuleBuilder::SkipStackFrameTable() {
  while (std::isdigit(static_cast<unsigned char>(c_.Peek()))) {
    IXA_HLO_TRY(c_.ExpectInt("a table entry id"));
    if (c_.Peek() == '"') {
      IXA_HLO_TRY(c_.RawValue("a table entry"));
    } else if (c_.Consume('{')) {
      IXA_HLO_TRY(c_.RawUntilClose('{', '}'));
    } else {
      return c_.Fail("a string or '{' after the table entry id");
    }
  }
  return Status();
}

// Every named call resolved, in attribute order; fusion and call operands
// against the callee's parameters.
Status ModuleBuilder::CheckCalls() {
  for (const PendingCall& call : calls_)
    call.instr->called_computations.clear();
  for (const PendingCall& call : calls_) {
    const Computation* callee = module_->FindComputation(call.name);
    if (!callee) {
      return Cursor::FailAt(
          call.pos, "unknown computation " + QuoteForMessage(call.name));
    }
    call.instr->called_computations.push_back(callee);
  }
  for (const auto& comp : module_->computations_) {
    for (const auto& instr : comp->instructions()) {
      const Computation* callee = instr->called();
      if (!callee || (instr->opcode != Opcode::kFusion &&
                      instr->opcode != Opcode::kCall)) {
        continue;
      }
      Position at{0, instr->line, instr->column};
      if (callee->parameter_count() != instr->operand_count()) {
        return Cursor::FailAt(
            at, "'" + instr->name + "' passes " +
                    std::to_string(instr->operand_count()) + " operands but '" +
                    callee->name() + "' has " +
                    std::to_string(callee->parameter_count()) + " parameters");
      }
      for (int i = 0; i < instr->operand_count(); ++i) {
        if (!callee->parameter(i)->shape.Compatible(instr->operand(i)->shape)) {
          return Cursor::FailAt(
              at, "shape mismatch: operand " + std::to_string(i) + " of '" +
                      instr->name + "' is " +
                      instr->operand(i)->shape.ToString() + " but '" +
                      callee->name() + "'s parameter(" + std::to_string(i) +
                      ") is " + callee->parameter(i)->shape.ToString());
        }
      }
      if (!callee->root()->shape.Compatible(instr->shape)) {
        return Cursor::FailAt(at, "shape mismatch: '" + instr->name + "' is " +
                                      instr->shape.ToString() + " but '" +
                                      callee->name() + "' returns " +
                                      callee->root()->shape.ToString());
      }
    }
  }
  return Status();
}

// The call graph must be acyclic (a fusion calling its own computation
// would send every analysis into endless recursion) and at most
// kMaxCallDepth deep. Iterative depth-first search, so the check itself
// needs no deep stack.
Status ModuleBuilder::CheckCallGraph() {
  enum class Mark { kNew, kOnPath, kDone };
  std::unordered_map<const Computation*, Mark> mark;
  std::unordered_map<const Computation*, int> height;  // longest chain below
  struct Frame {
    const Computation* comp;
    size_t instr = 0, callee = 0;
  };
  for (const auto& root : module_->computations_) {
    if (mark[root.get()] != Mark::kNew) continue;
    std::vector<Frame> stack = {{root.get()}};
    mark[root.get()] = Mark::kOnPath;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto& instrs = f.comp->instructions();
      if (f.instr >= instrs.size()) {
        int h = 0;
        for (const auto& in : instrs) {
          for (const Computation* c : in->called_computations) {
            h = std::max(h, height[c] + 1);
          }
        }
        height[f.comp] = h;
        mark[f.comp] = Mark::kDone;
        stack.pop_back();
        continue;
      }
      const Instruction& in = *instrs[f.instr];
      if (f.callee >= in.called_computations.size()) {
        ++f.instr;
        f.callee = 0;
        continue;
      }
      const Computation* next = in.called_computations[f.callee++];
      Position at{0, in.line, in.column};
      if (mark[next] == Mark::kOnPath) {
        std::string cycle;
        size_t start = 0;
        while (stack[start].comp != next) ++start;
        for (size_t i = start; i < stack.size(); ++i) {
          cycle += stack[i].comp->name() + " -> ";
        }
        cycle += next->name();
        return Cursor::FailAt(
            at, "computations call each other in a cycle: " + cycle + " ('" +
                    in.name + "' (" + OpcodeName(in) + ") in '" +
                    f.comp->name() + "' calls '" + next->name() + "')");
      }
      if (mark[next] == Mark::kDone) {
        if (static_cast<int>(stack.size()) + height[next] > kMaxCallDepth) {
          return Cursor::FailAt(at,
                                "computations call each other deeper than " +
                                    std::to_string(kMaxCallDepth) + " levels");
        }
        continue;
      }
      if (static_cast<int>(stack.size()) > kMaxCallDepth) {
        return Cursor::FailAt(at, "computations call each other deeper than " +
                                      std::to_string(kMaxCallDepth) +
                                      " levels");
      }
      mark[next] = Mark::kOnPath;
      stack.push_back({next});
    }
  }
  return Status();
}

Result<std::unique_ptr<Module>> ModuleBuilder::Build() {
  IXA_RETURN_IF_ERROR(ParseHeader());
  if (c_.AtEnd()) return c_.Fail("a computation");
  // Bare instruction lines: `name = ...` right away.
  Position start = c_.position();
  c_.ConsumeWord("ROOT");
  c_.Name();
  bool bare = c_.Peek() == '=';
  c_.Reset(start);
  if (bare) {
    IXA_RETURN_IF_ERROR(ParseBareEntry());
  } else {
    while (!c_.AtEnd()) {
      Position p = c_.position();
      std::string_view word = c_.Name();
      if (IsStackFrameTable(word)) {
        IXA_RETURN_IF_ERROR(SkipStackFrameTable());
        continue;
      }
      c_.Reset(p);
      IXA_RETURN_IF_ERROR(ParseComputation());
    }
  }
  if (module_->computations_.empty()) return c_.Fail("a computation");
  if (!module_->entry_) {
    // The last computation written at the top level.
    Computation* last = nullptr;
    for (auto& c : module_->computations_) {
      if (c->name_.find(':') == std::string::npos) last = c.get();
    }
    module_->entry_ = last ? last : module_->computations_.back().get();
    const_cast<Computation*>(module_->entry_)->is_entry_ = true;
  }
  IXA_RETURN_IF_ERROR(CheckCalls());
  IXA_RETURN_IF_ERROR(CheckCallGraph());
  return std::move(module_);
}

Result<std::unique_ptr<Module>> ParseHloModule(std::string_view text) {
  ModuleBuilder builder(text);
  return builder.Build();
}

}  // namespace ixa::hlo
