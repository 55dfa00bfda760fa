// The HLO text reader (module.h). Token-based like XLA's own parser, so an
// instruction may span lines; names may be written with or without '%',
// operands with or without their shapes.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <iterator>
#include <unordered_set>

#include "analysis/hlo/lexer.h"
#include "analysis/hlo/module.h"
#include "analysis/hlo/verifier.h"

namespace ixa::hlo {

using Status = std::optional<Error>;

class ModuleBuilder {
 public:
  explicit ModuleBuilder(std::string_view text) : c_(text) {}
  Result<std::unique_ptr<Module>> Build();

 private:
  struct PendingOperand {
    std::string name;
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
  Status ParseComputation();
  Status ParseBareEntry();
  Status ParseInstruction(Computation* comp, bool* is_root);
  Status ParseAttribute(Instruction* instr, std::string_view name,
                        std::string_view raw, Position pos);
  Status FinishComputation(Computation* comp, Position pos);
  Computation* NewComputation(std::string name, Position pos);

  Cursor c_;
  std::unique_ptr<Module> module_ = std::make_unique<Module>();
  std::vector<PendingInstruction> pending_;
  std::vector<PendingCall> calls_;
  std::unordered_set<std::string> computation_names_;
};

namespace {

Result<std::vector<int64_t>> IntListAttr(std::string_view raw, Position pos,
                                         std::string_view what) {
  Cursor c(raw, pos);
  IXA_ASSIGN_OR_RETURN(std::vector<int64_t> v, c.IntList(what));
  if (!c.AtEnd()) return c.Fail("end of " + std::string(what));
  return v;
}

Result<int64_t> IntAttr(std::string_view raw, Position pos,
                        std::string_view what) {
  Cursor c(raw, pos);
  IXA_ASSIGN_OR_RETURN(int64_t v, c.ExpectInt(what));
  if (!c.AtEnd()) return c.Fail("end of " + std::string(what));
  return v;
}

// `{[5:10:1], [3:20:7]}`; the stride may be omitted.
Result<std::vector<SliceDim>> SliceAttr(std::string_view raw, Position pos) {
  Cursor c(raw, pos);
  std::vector<SliceDim> out;
  IXA_HLO_TRY(c.Expect('{', "starting slice"));
  if (c.Consume('}')) return out;
  while (true) {
    SliceDim d;
    IXA_HLO_TRY(
        c.Expect('[', "starting a slice dimension [start:limit:stride]"));
    IXA_ASSIGN_OR_RETURN(d.start, c.ExpectInt("a slice start"));
    IXA_HLO_TRY(c.Expect(':', "after the slice start"));
    IXA_ASSIGN_OR_RETURN(d.limit, c.ExpectInt("a slice limit"));
    if (c.Consume(':')) {
      IXA_ASSIGN_OR_RETURN(d.stride, c.ExpectInt("a slice stride"));
    }
    IXA_HLO_TRY(c.Expect(']', "closing a slice dimension"));
    out.push_back(d);
    if (c.Consume('}')) break;
    IXA_HLO_TRY(c.Expect(',', "or '}' in slice"));
  }
  if (!c.AtEnd()) return c.Fail("end of slice");
  return out;
}

// `1_4_1x4_8_0`: low_high[_interior] per dimension, separated by 'x'.
Result<std::vector<PadDim>> PaddingAttr(std::string_view raw, Position pos) {
  Cursor c(raw, pos);
  std::vector<PadDim> out;
  while (true) {
    PadDim d;
    IXA_ASSIGN_OR_RETURN(d.low, c.ExpectInt("a low padding"));
    IXA_HLO_TRY(c.Expect('_', "between low and high padding"));
    IXA_ASSIGN_OR_RETURN(d.high, c.ExpectInt("a high padding"));
    if (c.Consume('_')) {
      IXA_ASSIGN_OR_RETURN(d.interior, c.ExpectInt("an interior padding"));
      if (d.interior < 0) return c.Fail("a non-negative interior padding");
    }
    out.push_back(d);
    if (c.AtEnd()) break;
    IXA_HLO_TRY(c.Expect('x', "between padding dimensions"));
  }
  return out;
}

// `{size=1x512 pad=0_0x0_0 stride=1x2 lhs_dilate=1x1 rhs_dilate=1x1
// rhs_reversal=0x1}`.
Result<std::vector<WindowDim>> WindowAttr(std::string_view raw, Position pos) {
  Cursor c(raw, pos);
  std::vector<WindowDim> dims;
  IXA_HLO_TRY(c.Expect('{', "starting window"));
  auto ensure = [&](size_t n) {
    if (dims.size() < n) dims.resize(n);
  };
  while (!c.Consume('}')) {
    Position key_pos = c.position();
    IXA_ASSIGN_OR_RETURN(std::string_view key,
                         c.ExpectName("a window field (size, pad, stride, "
                                      "lhs_dilate, rhs_dilate) or '}'"));
    // Names may swallow the 'x' separators of the value, so values are
    // read character by character here.
    IXA_HLO_TRY(c.Expect('=', "after the window field"));
    size_t i = 0;
    while (true) {
      ensure(i + 1);
      WindowDim& d = dims[i];
      if (key == "pad") {
        IXA_ASSIGN_OR_RETURN(d.pad_low, c.ExpectInt("a low padding"));
        IXA_HLO_TRY(c.Expect('_', "between low and high padding"));
        IXA_ASSIGN_OR_RETURN(d.pad_high, c.ExpectInt("a high padding"));
      } else {
        IXA_ASSIGN_OR_RETURN(int64_t v, c.ExpectInt("a window value"));
        if (key == "size") {
          d.size = v;
        } else if (key == "stride") {
          d.stride = v;
        } else if (key == "lhs_dilate") {
          d.base_dilation = v;
        } else if (key == "rhs_dilate") {
          d.window_dilation = v;
        } else if (key == "rhs_reversal") {
          d.reversal = v != 0;
        } else {
          return Cursor::FailAt(
              key_pos, "unknown window field '" + std::string(key) + "'");
        }
        if (key != "rhs_reversal" && v <= 0) {
          return Cursor::FailAt(
              key_pos, "window " + std::string(key) + " must be positive");
        }
      }
      ++i;
      if (c.PeekRaw() != 'x') break;
      c.Consume('x');
    }
  }
  if (!c.AtEnd()) return c.Fail("end of window");
  return dims;
}

// `b01f_01io->b01f`.
Result<ConvDimensionNumbers> DimLabelsAttr(std::string_view raw, Position pos) {
  ConvDimensionNumbers dn;
  auto fail = [&](const std::string& m) {
    return Cursor::FailAt(pos, "dim_labels: " + m);
  };
  size_t us = raw.find('_'), arrow = raw.find("->");
  if (us == std::string_view::npos || arrow == std::string_view::npos ||
      us > arrow) {
    return fail("expected <input>_<kernel>-><output>, e.g. b01f_01io->b01f");
  }
  std::string_view in = raw.substr(0, us),
                   ker = raw.substr(us + 1, arrow - us - 1),
                   out = raw.substr(arrow + 2);
  auto parse = [&](std::string_view s, char a, char b, int64_t* pa, int64_t* pb,
                   std::vector<int64_t>* spatial) -> bool {
    *pa = *pb = -1;
    std::vector<int64_t> sp(s.size(), -1);
    size_t n_spatial = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == a) {
        if (*pa >= 0) return false;
        *pa = i;
      } else if (s[i] == b) {
        if (*pb >= 0) return false;
        *pb = i;
      } else if (s[i] >= '0' && s[i] <= '9') {
        size_t k = s[i] - '0';
        if (k >= sp.size() || sp[k] >= 0) return false;
        sp[k] = i;
        ++n_spatial;
      } else {
        return false;
      }
    }
    if (*pa < 0 || *pb < 0) return false;
    sp.resize(n_spatial);
    for (int64_t v : sp) {
      if (v < 0) return false;
    }
    *spatial = sp;
    return true;
  };
  if (!parse(in, 'b', 'f', &dn.input_batch, &dn.input_feature,
             &dn.input_spatial) ||
      !parse(ker, 'i', 'o', &dn.kernel_input_feature, &dn.kernel_output_feature,
             &dn.kernel_spatial) ||
      !parse(out, 'b', 'f', &dn.output_batch, &dn.output_feature,
             &dn.output_spatial) ||
      dn.input_spatial.size() != dn.kernel_spatial.size() ||
      dn.input_spatial.size() != dn.output_spatial.size()) {
    return fail("malformed labels '" + std::string(raw) + "'");
  }
  return dn;
}

// `{{0,1},{2,3}}`, `{}`, or the iota form `[G,S]<=[N]`.
Result<std::vector<std::vector<int64_t>>> ReplicaGroupsAttr(
    std::string_view raw, Position pos) {
  Cursor c(raw, pos);
  std::vector<std::vector<int64_t>> groups;
  if (c.Consume('[')) {
    IXA_ASSIGN_OR_RETURN(int64_t g, c.ExpectInt("the number of groups"));
    IXA_HLO_TRY(c.Expect(',', "in the iota replica groups"));
    IXA_ASSIGN_OR_RETURN(int64_t s, c.ExpectInt("the group size"));
    IXA_HLO_TRY(c.Expect(']', "in the iota replica groups"));
    if (!c.ConsumeString("<="))
      return c.Fail("'<=' in the iota replica groups");
    IXA_HLO_TRY(c.Expect('[', "in the iota replica groups"));
    IXA_ASSIGN_OR_RETURN(int64_t n, c.ExpectInt("the device count"));
    IXA_HLO_TRY(c.Expect(']', "in the iota replica groups"));
    if (!c.AtEnd()) return groups;  // transposed iota forms: group sizes only
    if (g <= 0 || s <= 0 || g * s != n) {
      return Cursor::FailAt(pos, "replica_groups: [G,S]<=[N] needs G*S == N");
    }
    for (int64_t i = 0; i < g; ++i) {
      groups.emplace_back();
      for (int64_t j = 0; j < s; ++j) groups.back().push_back(i * s + j);
    }
    return groups;
  }
  IXA_HLO_TRY(c.Expect('{', "starting replica_groups"));
  if (c.Consume('}')) return groups;
  while (true) {
    IXA_ASSIGN_OR_RETURN(std::vector<int64_t> g, c.IntList("a replica group"));
    groups.push_back(std::move(g));
    if (c.Consume('}')) break;
    IXA_HLO_TRY(c.Expect(',', "or '}' in replica_groups"));
  }
  return groups;
}

}  // namespace

Status ModuleBuilder::ParseAttribute(Instruction* instr, std::string_view name,
                                     std::string_view raw, Position pos) {
  instr->attributes[std::string(name)] = std::string(raw);
  auto ints = [&](std::vector<int64_t>* out) -> Status {
    IXA_ASSIGN_OR_RETURN(*out, IntListAttr(raw, pos, name));
    return std::nullopt;
  };
  auto one = [&](int64_t* out) -> Status {
    IXA_ASSIGN_OR_RETURN(*out, IntAttr(raw, pos, name));
    return std::nullopt;
  };
  if (name == "dimensions") return ints(&instr->dimensions);
  if (name == "dynamic_slice_sizes") return ints(&instr->dynamic_slice_sizes);
  if (name == "slice_sizes") return ints(&instr->slice_sizes);
  if (name == "lhs_batch_dims") return ints(&instr->dot.lhs_batch);
  if (name == "rhs_batch_dims") return ints(&instr->dot.rhs_batch);
  if (name == "lhs_contracting_dims") return ints(&instr->dot.lhs_contracting);
  if (name == "rhs_contracting_dims") return ints(&instr->dot.rhs_contracting);
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
  if (name == "index_vector_dim") return one(&instr->gather.index_vector_dim);
  if (name == "index") return one(&instr->tuple_index);
  if (name == "iota_dimension") return one(&instr->iota_dimension);
  if (name == "feature_group_count") return one(&instr->feature_group_count);
  if (name == "batch_group_count") return one(&instr->batch_group_count);
  if (name == "slice") {
    IXA_ASSIGN_OR_RETURN(instr->slice, SliceAttr(raw, pos));
  } else if (name == "padding" && instr->opcode == "pad") {
    IXA_ASSIGN_OR_RETURN(instr->padding, PaddingAttr(raw, pos));
  } else if (name == "window") {
    IXA_ASSIGN_OR_RETURN(instr->window, WindowAttr(raw, pos));
  } else if (name == "dim_labels") {
    IXA_ASSIGN_OR_RETURN(instr->conv, DimLabelsAttr(raw, pos));
  } else if (name == "replica_groups") {
    IXA_ASSIGN_OR_RETURN(instr->replica_groups, ReplicaGroupsAttr(raw, pos));
  } else if (name == "to_apply" || name == "calls") {
    Cursor c(raw, pos);
    bool braced = c.Consume('{');
    do {
      Position p = c.position();
      IXA_ASSIGN_OR_RETURN(std::string_view callee,
                           c.ExpectName("a computation name"));
      calls_.push_back({instr, std::string(callee), p});
    } while (braced && c.Consume(','));
    if (braced) IXA_HLO_TRY(c.Expect('}', "closing the computation list"));
    if (!c.AtEnd()) return c.Fail("end of " + std::string(name));
  }
  return std::nullopt;
}

Status ModuleBuilder::ParseInstruction(Computation* comp, bool* is_root) {
  *is_root = c_.ConsumeWord("ROOT");
  Position pos = c_.position();
  IXA_ASSIGN_OR_RETURN(std::string_view name,
                       c_.ExpectName("an instruction name"));
  if (comp->by_name_.count(std::string(name))) {
    return Cursor::FailAt(
        pos, "instruction '" + std::string(name) + "' is defined twice");
  }
  IXA_HLO_TRY(c_.Expect('=', "after the instruction name"));
  auto instr = std::make_unique<Instruction>();
  instr->name = std::string(name);
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
  instr->opcode = std::string(opcode);
  if (c_.PeekRaw() == '[') {
    return Cursor::FailAt(op_pos,
                          "expected an element type (f32, s32, pred, "
                          "...), found '" +
                              std::string(opcode) + "'");
  }
  if (!c_.Consume('(')) return c_.Fail("'(' after the opcode");
  if (opcode == "constant") {
    IXA_ASSIGN_OR_RETURN(std::string_view lit, c_.RawUntilClose('(', ')'));
    instr->literal = std::string(lit);
    Cursor lc(lit, op_pos);
    if (lc.Peek() != '{') {
      auto v = lc.ExpectInt("an integer");
      if (v.ok() && lc.AtEnd()) instr->int_value = *v;
      if (lit == "true") instr->int_value = 1;
      if (lit == "false") instr->int_value = 0;
    }
  } else if (opcode == "parameter") {
    IXA_ASSIGN_OR_RETURN(instr->parameter_number,
                         c_.ExpectInt("a parameter number"));
    if (instr->parameter_number < 0) {
      return c_.Fail("a non-negative parameter number");
    }
    IXA_HLO_TRY(c_.Expect(')', "closing parameter("));
  } else if (!c_.Consume(')')) {
    while (true) {
      PendingOperand operand;
      if (AtShape(&c_)) {
        IXA_ASSIGN_OR_RETURN(operand.shape, ParseShapeAt(&c_));
      }
      operand.pos = c_.position();
      IXA_ASSIGN_OR_RETURN(std::string_view op_name,
                           c_.ExpectName("an operand name"));
      operand.name = std::string(op_name);
      pending.operands.push_back(std::move(operand));
      if (c_.Consume(')')) break;
      if (!c_.Consume(',')) return c_.Fail("',' or ')' after an operand");
    }
  }
  while (c_.Consume(',')) {
    Position attr_pos = c_.position();
    IXA_ASSIGN_OR_RETURN(std::string_view attr,
                         c_.ExpectName("an attribute name"));
    IXA_HLO_TRY(c_.Expect('=', "after attribute '" + std::string(attr) + "'"));
    Position value_pos = c_.position();
    IXA_ASSIGN_OR_RETURN(
        std::string_view raw,
        c_.RawValue("a value for '" + std::string(attr) + "'"));
    if (instr->attributes.count(std::string(attr))) {
      return Cursor::FailAt(
          attr_pos, "attribute '" + std::string(attr) + "' is given twice");
    }
    if (Status s = ParseAttribute(instr.get(), attr, raw, value_pos)) return s;
  }
  comp->by_name_[instr->name] = instr.get();
  if (*is_root) {
    if (comp->root_) {
      return Cursor::FailAt(
          pos, "computation '" + comp->name_ + "' has two ROOT instructions");
    }
    comp->root_ = instr.get();
  }
  pending_.push_back(std::move(pending));
  comp->instructions_.push_back(std::move(instr));
  return std::nullopt;
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
  if (!comp->root_) comp->root_ = comp->instructions_.back().get();
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
      const Instruction* operand = comp->Find(o.name);
      if (!operand) {
        return Cursor::FailAt(o.pos, "unknown operand '" + o.name + "' of '" +
                                         p.instr->name + "'");
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
    // error right here (G11: bad input is a Result).
    return Cursor::FailAt(pos, "computation '" + comp->name_ +
                                   "' has a cycle among its instructions");
  }
  for (auto it = order.begin(); it != order.end(); ++it) {
    Instruction* instr = comp->instructions_[*it].get();
    comp->post_order_.push_back(instr);
    PendingInstruction& p = *mine[*it];
    Position at{0, instr->line, instr->column};
    if (!p.shape_written) {
      std::optional<Shape> inferred = InferShape(*instr);
      if (!inferred) {
        return Cursor::FailAt(at, "expected a shape for '" + instr->name +
                                      "' (cannot infer the shape of " +
                                      instr->opcode + ")");
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
    if (std::optional<std::string> bad = VerifyInstruction(*instr)) {
      return Cursor::FailAt(at, *bad);
    }
    for (const Instruction* operand : instr->operands) {
      auto& users = const_cast<Instruction*>(operand)->users;
      if (std::find(users.begin(), users.end(), instr) == users.end()) {
        users.push_back(instr);
      }
    }
    if (instr->opcode == "parameter") {
      auto& params = comp->parameters_;
      int64_t n = instr->parameter_number;
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
  return std::nullopt;
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
  while (!c_.Consume('}')) {
    if (c_.AtEnd()) {
      return c_.Fail("'}' closing computation '" + std::string(name) + "'");
    }
    bool is_root = false;
    if (Status s = ParseInstruction(comp, &is_root)) return s;
  }
  return FinishComputation(comp, pos);
}

Status ModuleBuilder::ParseBareEntry() {
  Position pos = c_.position();
  Computation* comp = NewComputation("entry", pos);
  comp->is_entry_ = true;
  module_->entry_ = comp;
  while (!c_.AtEnd()) {
    bool is_root = false;
    if (Status s = ParseInstruction(comp, &is_root)) return s;
  }
  return FinishComputation(comp, pos);
}

Status ModuleBuilder::ParseHeader() {
  if (!c_.ConsumeWord("HloModule")) return std::nullopt;
  IXA_ASSIGN_OR_RETURN(std::string_view name, c_.ExpectName("a module name"));
  module_->name_ = std::string(name);
  while (c_.Consume(',')) {
    IXA_HLO_TRY(c_.ExpectName("a module attribute name"));
    IXA_HLO_TRY(c_.Expect('=', "after the module attribute name"));
    IXA_HLO_TRY(c_.RawValue("a module attribute value"));
  }
  return std::nullopt;
}

Result<std::unique_ptr<Module>> ModuleBuilder::Build() {
  if (Status s = ParseHeader()) return *s;
  if (c_.AtEnd()) return c_.Fail("a computation");
  // Bare instruction lines: `name = ...` right away.
  Position start = c_.position();
  c_.ConsumeWord("ROOT");
  c_.Name();
  bool bare = c_.Peek() == '=';
  c_.Reset(start);
  if (bare) {
    if (Status s = ParseBareEntry()) return *s;
  } else {
    while (!c_.AtEnd()) {
      if (Status s = ParseComputation()) return *s;
    }
  }
  if (!module_->entry_) {
    module_->entry_ = module_->computations_.back().get();
    const_cast<Computation*>(module_->entry_)->is_entry_ = true;
  }
  for (const PendingCall& call : calls_) {
    const Computation* callee = module_->FindComputation(call.name);
    if (!callee) {
      return Cursor::FailAt(call.pos,
                            "unknown computation '" + call.name + "'");
    }
    call.instr->called_computations.push_back(callee);
  }
  // Fusion / call operands must match the callee's parameters.
  for (const auto& comp : module_->computations_) {
    for (const auto& instr : comp->instructions()) {
      const Computation* callee = instr->called();
      if (!callee || (instr->opcode != "fusion" && instr->opcode != "call")) {
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
                      instr->name + "' does not match " + callee->name() +
                      "'s parameter(" + std::to_string(i) + ")");
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
  return std::move(module_);
}

Result<std::unique_ptr<Module>> ParseHloModule(std::string_view text) {
  ModuleBuilder builder(text);
  return builder.Build();
}

}  // namespace ixa::hlo
