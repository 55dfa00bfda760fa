#include "emit/lower/lowering.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "analysis/hlo/custom_calls.h"
#include "analysis/indexing/indexing.h"

namespace ixa::emit {

using hlo::Instruction;
using ir::Type;
using ir::Val;

int LeafCount(const hlo::Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int n = 0;
  for (const hlo::Shape& e : shape.tuple_elements) n += LeafCount(e);
  return n;
}

std::vector<const hlo::Shape*> Leaves(const hlo::Shape& shape) {
  if (!shape.IsTuple()) return {&shape};
  std::vector<const hlo::Shape*> out;
  for (const hlo::Shape& e : shape.tuple_elements) {
    auto sub = Leaves(e);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

std::string BlockBuilder::Fresh(const std::string& stem) {
  return lc_->FreshName(stem);
}

Val BlockBuilder::Bind(const std::string& stem, Val value) {
  if (value->kind == ir::NodeKind::kConst ||
      value->kind == ir::NodeKind::kVar) {
    return value;
  }
  std::string name = Fresh(stem);
  Val ref = ir::Var(name, value->type, ir::RangeOf(value));
  if (value->width > 1) {
    auto n = std::make_shared<ir::Node>(*ref);
    n->width = value->width;
    ref = n;
  }
  Add(ir::Let(name, std::move(value)));
  return ref;
}

Val BlockBuilder::DeclareVar(const std::string& stem, Val init) {
  std::string name = Fresh(stem);
  Type t = init->type;
  int width = init->width;
  Add(ir::Declare(name, t, std::move(init)));
  auto n = std::make_shared<ir::Node>(*ir::MutableVar(name, t));
  n->width = width;
  return n;
}

std::string LoweringContext::FreshName(const std::string& stem) {
  std::string name;
  do {
    name = stem + std::to_string(name_counts_[stem]++);
  } while (reserved_.count(name));
  return name;
}

std::string LoweringContext::Sanitize(const std::string& name) {
  std::string s;
  for (char c : name) {
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "f_" + s;
  return s;
}

namespace {

bool KnownExprKinds(Expr e) {
  switch (e.kind()) {
    case ExprKind::kConstant:
    case ExprKind::kDim:
    case ExprKind::kSymbol:
      return true;
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kFloorDiv:
    case ExprKind::kCeilDiv:
    case ExprKind::kMod:
    case ExprKind::kMin:
    case ExprKind::kMax:
      return KnownExprKinds(e.lhs()) && KnownExprKinds(e.rhs());
    default:
      return false;  // a kind the printers do not know: refuse, never guess
  }
}

}  // namespace

Status CheckPrintableMap(const IndexingMap& map) {
  for (Expr e : map.results()) {
    if (!KnownExprKinds(e)) {
      return Error::Unsupported(
          "emit: an indexing expression kind the code generators do not print");
    }
  }
  for (const Constraint& c : map.constraints()) {
    if (!KnownExprKinds(c.expr)) {
      return Error::Unsupported(
          "emit: an indexing expression kind the code generators do not print");
    }
  }
  return Status();
}

std::shared_ptr<const IndexingMap> LoweringContext::Intern(
    const IndexingMap& map) {
  for (const auto& m : interned_) {
    if (*m == map && m->rt_vars().size() == map.rt_vars().size()) {
      bool same_rt = true;
      for (int i = 0; i < map.num_rt_vars(); ++i) {
        same_rt =
            same_rt && m->rt_vars()[i].producer == map.rt_vars()[i].producer;
      }
      if (same_rt) return m;
    }
  }
  interned_.push_back(std::make_shared<const IndexingMap>(map));
  return interned_.back();
}

Val LoweringContext::ApplyMap(const std::shared_ptr<const IndexingMap>& map,
                              int result, const std::vector<Val>& operands) {
  std::vector<const void*> key = {
      map.get(), reinterpret_cast<const void*>(static_cast<intptr_t>(result))};
  for (const Val& v : operands) key.push_back(v.get());
  auto found = applies_.find(key);
  if (found != applies_.end()) return found->second;
  Val v = ir::Apply(map, result, operands);
  applies_[key] = v;
  return v;
}

std::vector<Val> LoweringContext::ApplyAll(
    const std::shared_ptr<const IndexingMap>& map,
    const std::vector<Val>& operands) {
  // (d0, ..., dn) -> (d0, ..., dn): the index itself (domains are checked
  // separately, where an op needs it).
  bool identity =
      map->num_results() == map->num_dims() && map->num_symbols() == 0;
  for (int i = 0; identity && i < map->num_results(); ++i) {
    identity = map->results()[i] == ctx_->Dim(i);
  }
  if (identity) {
    return std::vector<Val>(operands.begin(),
                            operands.begin() + map->num_results());
  }
  std::vector<Val> out;
  for (int i = 0; i < map->num_results(); ++i) {
    out.push_back(ApplyMap(map, i, operands));
  }
  return out;
}

Result<const HloInstructionIndexing*> LoweringContext::OpIndexing(
    const Instruction& in, int output) {
  auto key = std::make_pair(&in, output);
  auto found = indexing_.find(key);
  if (found != indexing_.end()) return found->second.get();
  auto ix = ComputeOutputToInputIndexing(in, output, ctx_);
  if (!ix.ok()) {
    return Error::Unsupported("emit: no code generation for '" +
                              OpcodeName(in) + "' ('" + in.name +
                              "'): " + ix.error().message);
  }
  for (const IndexingMapSet& set : ix->indexing_maps) {
    for (const IndexingMap& m : set) IXA_RETURN_IF_ERROR(CheckPrintableMap(m));
  }
  auto stored = std::make_unique<HloInstructionIndexing>(std::move(ix).value());
  const HloInstructionIndexing* ptr = stored.get();
  indexing_[key] = std::move(stored);
  return ptr;
}

int LoweringContext::ParameterIndex(const Instruction* instr) const {
  for (size_t k = 0; k < region_.parameters.size(); ++k) {
    if (region_.parameters[k] == instr) return static_cast<int>(k);
  }
  return -1;
}

bool LoweringContext::IsSubgraphRoot(const Instruction* instr) const {
  auto f = partition_.subgraph_of.find(instr);
  if (f == partition_.subgraph_of.end()) return false;
  return partition_.subgraphs[f->second].root == instr;
}

int LoweringContext::AddSharedBuffer(const std::string& stem, Type type,
                                     std::vector<int64_t> dims) {
  ir::Buffer b;
  b.name = FreshName(stem);
  b.space = ir::BufferSpace::kShared;
  b.type = type;
  b.shape.type = hlo::ElementType::kF32;  // only dims matter
  b.shape.dims = std::move(dims);
  module_.buffers.push_back(std::move(b));
  return static_cast<int>(module_.buffers.size()) - 1;
}

namespace {

// The values of a constant literal in order (braces ignored).
std::vector<std::string> LiteralTokens(const std::string& literal) {
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : literal + " ") {
    if (c == '{' || c == '}' || c == ',' ||
        std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) tokens.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return tokens;
}

Result<double> ParseFloatToken(const std::string& s) {
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "-nan") return -std::numeric_limits<double>::quiet_NaN();
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  return Error::Invalid("emit: bad float literal '" + s + "'");
}

Result<int64_t> ParseIntToken(const std::string& s, Type t) {
  if (s == "true") return 1;
  if (s == "false") return 0;
  try {
    size_t used = 0;
    int64_t v = ir::IsUnsignedInt(t)
                    ? static_cast<int64_t>(std::stoull(s, &used))
                    : std::stoll(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  return Error::Invalid("emit: bad integer literal '" + s + "'");
}

// Wraps to the type's width (two's complement), as the literal stores.
int64_t WrapInt(int64_t v, Type t) {
  if (t == Type::kPred) return v != 0;
  int bits = ir::TypeBits(t);
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (ir::IsSignedInt(t) && (u >> (bits - 1)) & 1) u |= ~mask;
  return static_cast<int64_t>(u);
}

}  // namespace

double RoundToIrType(Type t, double v);

namespace {

// A complex literal's elements, `(re, im)` each (the tokens split at the
// comma): real and imaginary parts in turn, rounded to the part type.
Result<std::vector<double>> ComplexLiteral(
    const Instruction& constant, const std::vector<std::string>& tokens) {
  const Type part = ir::ComponentType(*ir::TypeOf(constant.shape.type));
  std::vector<double> parts;
  if (static_cast<int64_t>(tokens.size()) !=
      2 * constant.shape.ElementCount()) {
    return Error::Unsupported("emit: constant '" + constant.name +
                              "' has a literal form the emitters do not read");
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string tok = tokens[i];
    const bool re = i % 2 == 0;
    if (re ? tok.front() != '(' : tok.back() != ')') {
      return Error::Invalid("emit: constant '" + constant.name +
                            "': a complex element is not '(re, im)'");
    }
    tok = re ? tok.substr(1) : tok.substr(0, tok.size() - 1);
    IXA_ASSIGN_OR_RETURN(double v, ParseFloatToken(tok));
    parts.push_back(RoundToIrType(part, v));
  }
  return parts;
}

}  // namespace

double RoundToIrType(Type t, double v) {
  if (t == Type::kF32) return static_cast<float>(v);
  if (ir::IsNarrowFloat(t)) {  // through f32, as f16 and bf16
    return ir::DecodeF8(t, ir::EncodeF8(t, static_cast<float>(v)));
  }
  if (t == Type::kBF16 || t == Type::kF16) {
    uint16_t h = ir::EncodeHalf(t, v);
    if (t == Type::kBF16) {
      uint32_t u = static_cast<uint32_t>(h) << 16;
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    }
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double r;
    if (exp == 0) {
      r = std::ldexp(static_cast<double>(mant), -24);
    } else if (exp == 31) {
      r = mant ? std::numeric_limits<double>::quiet_NaN()
               : std::numeric_limits<double>::infinity();
    } else {
      r = std::ldexp(static_cast<double>(mant | 0x400), exp - 25);
    }
    return sign ? -r : r;
  }
  return v;
}

bool IsEmittableOpcode(hlo::Opcode opcode);

namespace {

// The name of the first complex element type in `shape`, or "" if none.
std::string ComplexLeafName(const hlo::Shape& shape) {
  for (const hlo::Shape* leaf : Leaves(shape)) {
    if (leaf->type == hlo::ElementType::kC64 ||
        leaf->type == hlo::ElementType::kC128) {
      return hlo::ElementTypeName(leaf->type);
    }
  }
  return "";
}

// The ops generated on complex values (the instruction's own or an
// operand's; kComplexEmit in analysis/hlo/opcode_list.def): data movement, + -
// * /, negate, abs, exp, expm1, log, log1p, sqrt, rsqrt, sign, sin, cos, tanh,
// power, real / imag / complex, convert, select, compare EQ / NE, dots and
// convolutions, reductions (their shuffles move the parts one by one) and
// scatters of c64 (and of c128 with unique indices). The rest (the other
// transcendental functions, order
// comparisons, which HLO does not define on complex) answer unsupported
// naming the op and the type.
Status CheckComplexOp(const Instruction& in) {
  std::string type = ComplexLeafName(in.shape);
  for (const Instruction* o : in.operands) {
    if (type.empty()) type = ComplexLeafName(o->shape);
  }
  if (type.empty()) return Status();
  bool known = hlo::IsComplexEmittable(in.opcode);
  if (known && in.opcode == hlo::Opcode::kCompare) {
    // Equality of both parts; complex numbers have no order, total or not.
    const std::string dir = in.Attribute("direction");
    known = (dir == "EQ" || dir == "NE") &&
            !(in.HasAttribute("type") && in.Attribute("type") == "TOTALORDER");
  }
  if (!known && in.opcode == hlo::Opcode::kScatter) {
    // Updates that may meet combine in a compare-and-swap loop on the
    // element: CUDA has one of 8 bytes (c64), none of 16 (c128), which
    // only unique indices (plain stores) make possible.
    bool c128 = false;
    for (const hlo::Shape* leaf : Leaves(in.shape)) {
      c128 |= leaf->type == hlo::ElementType::kC128;
    }
    known = !c128 || (in.HasAttribute("unique_indices") &&
                      in.Attribute("unique_indices") == "true");
  }
  if (!known && in.opcode == hlo::Opcode::kBitcastConvert &&
      in.operand_count() == 1) {
    // Between a complex element and its halves: the elemental emitter
    // (elemental_bitcast.cc) generates it or names what it does not.
    known = hlo::ElementBits(in.shape.type) !=
            hlo::ElementBits(in.operand(0)->shape.type);
  }
  if (known && in.opcode == hlo::Opcode::kConvert) {
    // To a real type HLO takes real() first.
    known = !ComplexLeafName(in.shape).empty();
  }
  if (known) return Status();
  return Error::Unsupported("emit: no code generation for '" + OpcodeName(in) +
                            "' on " + type + " ('" + in.name + "')");
}

// Every op of `comp` and of the computations it calls can be emitted.
Status CheckEmittable(const hlo::Computation& comp,
                      std::set<const hlo::Computation*>* seen,
                      const Instruction* provided = nullptr) {
  if (!seen->insert(&comp).second) return Status();
  // Opcodes first: `real` of a c64 parameter is refused as `real`, not as
  // the parameter's element type.
  for (const auto& in : comp.instructions()) {
    if (in.get() != provided && !IsEmittableOpcode(in->opcode)) {
      // A custom call is named by its target: the op is the library's.
      const std::string target =
          in->opcode == hlo::Opcode::kCustomCall
              ? " of target '" + hlo::CustomCallTarget(*in) + "'"
              : "";
      return Error::Unsupported("emit: no code generation for '" +
                                OpcodeName(*in) + "'" + target + " ('" +
                                in->name + "')");
    }
  }
  for (const auto& in : comp.instructions()) {
    IXA_RETURN_IF_ERROR(CheckComplexOp(*in));
    for (const hlo::Shape* leaf : Leaves(in->shape)) {
      if (!leaf->IsArray()) continue;
      auto t = ir::TypeOf(leaf->type);
      if (!t.ok()) {
        return Error::Unsupported(t.error().message + " ('" + in->name + "')");
      }
      // E(n): a sub-byte type packed n bits per element (n its width), or
      // one element per byte (n = 8); other sizes are not generated.
      const int64_t e = leaf->layout ? leaf->layout->element_size_bits : 0;
      const int bits = ir::TypeBits(*t);
      if (e != 0 && !(e == bits && bits <= 8) && !(e == 8 && bits <= 8)) {
        return Error::Unsupported(
            "emit: element size E(" + std::to_string(e) + ") for type '" +
            hlo::ElementTypeName(leaf->type) + "' ('" + in->name + "')");
      }
    }
    for (const hlo::Computation* c : in->called_computations) {
      IXA_RETURN_IF_ERROR(CheckEmittable(*c, seen));
    }
  }
  return Status();
}

}  // namespace

Status LoweringContext::Init() {
  const hlo::Computation* comp = region_.computation;
  // An instruction group (`instructions`) is not a whole computation even
  // when it has as many inputs as the computation has parameters: its
  // inputs may be instructions, which the elemental emitter would walk
  // through.
  bool whole =
      comp && region_.root == comp->root() &&
      region_.parameters.size() == static_cast<size_t>(comp->parameter_count());
  for (size_t k = 0; whole && k < region_.parameters.size(); ++k) {
    whole = region_.parameters[k] == comp->parameter(k);
  }
  if (!whole) {
    return Error::Unsupported(
        "emit: code generation takes a whole fusion computation");
  }
  std::set<const hlo::Computation*> seen;
  IXA_RETURN_IF_ERROR(CheckEmittable(*comp, &seen, provided_));
  int arg = 0;
  for (size_t k = 0; k < region_.parameters.size(); ++k) {
    const Instruction* p = region_.parameters[k];
    if (!p->shape.IsArray()) {
      return Error::Unsupported("emit: tuple-shaped fusion parameter '" +
                                p->name + "'");
    }
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(p->shape.type));
    ir::Buffer b;
    b.name = "b" + std::to_string(arg++);
    b.type = t;
    b.shape = p->shape;
    b.hlo_parameter = static_cast<int>(k);
    parameter_buffers_.push_back(static_cast<int>(module_.buffers.size()));
    module_.buffers.push_back(std::move(b));
  }
  int out = 0;
  for (const hlo::Shape* leaf : Leaves(region_.root->shape)) {
    if (!leaf->IsArray()) {
      return Error::Unsupported("emit: a fusion output that is not an array");
    }
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(leaf->type));
    ir::Buffer b;
    b.name = "b" + std::to_string(arg++);
    b.type = t;
    b.shape = *leaf;
    b.is_output = true;
    b.hlo_output = out++;
    output_buffers_.push_back(static_cast<int>(module_.buffers.size()));
    module_.buffers.push_back(std::move(b));
  }
  // Heroes root their own subgraphs, so that emitters can call them alone.
  std::set<const Instruction*> heroes;
  for (const RootPlan& r : plan_.roots) {
    if (r.hero) heroes.insert(r.hero);
  }
  IXA_ASSIGN_OR_RETURN(
      partition_, PartitionComputation(*comp, ctx_, [&](const Instruction& i) {
        return IsHeroSubgraphRoot(i) || heroes.count(&i) > 0;
      }));
  return Status();
}

Result<int> LoweringContext::ConstantBuffer(const Instruction& constant) {
  auto found = constant_buffers_.find(&constant);
  if (found != constant_buffers_.end()) return found->second;
  IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(constant.shape.type));
  std::vector<std::string> tokens = LiteralTokens(constant.literal);
  if (static_cast<int64_t>(tokens.size()) !=
      constant.shape.ElementCount() * (ir::IsComplex(t) ? 2 : 1)) {
    return Error::Unsupported("emit: constant '" + constant.name +
                              "' has a literal form the emitters do not read");
  }
  ir::Buffer b;
  b.name = FreshName("cst");
  b.space = ir::BufferSpace::kConstant;
  b.type = t;
  b.shape = constant.shape;
  b.shape.layout.reset();  // constants are stored row-major
  if (ir::IsComplex(t)) {
    IXA_ASSIGN_OR_RETURN(b.float_data, ComplexLiteral(constant, tokens));
  } else {
    for (const std::string& tok : tokens) {
      if (ir::IsFloat(t)) {
        IXA_ASSIGN_OR_RETURN(double v, ParseFloatToken(tok));
        b.float_data.push_back(RoundToIrType(t, v));
      } else {
        IXA_ASSIGN_OR_RETURN(int64_t v, ParseIntToken(tok, t));
        b.int_data.push_back(WrapInt(v, t));
      }
    }
  }
  module_.buffers.push_back(std::move(b));
  int id = static_cast<int>(module_.buffers.size()) - 1;
  constant_buffers_[&constant] = id;
  return id;
}

Result<Val> ScalarConstant(const Instruction& in) {
  IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(in.shape.type));
  std::vector<std::string> tokens = LiteralTokens(in.literal);
  if (ir::IsComplex(t)) {
    IXA_ASSIGN_OR_RETURN(std::vector<double> parts, ComplexLiteral(in, tokens));
    const Type part = ir::ComponentType(t);
    return ir::Op(
        ir::OpCode::kComplex, t,
        {ir::ConstFloat(part, parts[0]), ir::ConstFloat(part, parts[1])}, part);
  }
  if (tokens.size() != 1) {
    return Error::Unsupported("emit: constant '" + in.name +
                              "' has a literal form the emitters do not read");
  }
  if (ir::IsFloat(t)) {
    IXA_ASSIGN_OR_RETURN(double v, ParseFloatToken(tokens[0]));
    return ir::ConstFloat(t, RoundToIrType(t, v));
  }
  IXA_ASSIGN_OR_RETURN(int64_t v, ParseIntToken(tokens[0], t));
  return ir::Const(t, WrapInt(v, t));
}

Result<std::string> LoweringContext::SubgraphFunction(const Instruction* root) {
  auto found = subgraph_functions_.find(root);
  if (found != subgraph_functions_.end()) return found->second;
  std::string name = FreshName("fused_" + Sanitize(root->name) + "_");
  subgraph_functions_[root] = name;
  ir::Function f;
  f.name = name;
  std::vector<const hlo::Shape*> leaves = Leaves(root->shape);
  std::vector<Val> index;
  for (size_t d = 0; d < leaves[0]->dims.size(); ++d) {
    std::string p = "i" + std::to_string(d);
    Interval range{0, leaves[0]->dims[d] - 1};
    f.params.push_back({p, ir::ParamKind::kIndex, Type::kIndex, range});
    index.push_back(ir::Var(p, Type::kIndex, range));
  }
  BlockBuilder bb(this);
  ElementalEmitter ee(this, &bb);
  ee.set_function_root(root);
  IXA_ASSIGN_OR_RETURN(std::vector<Val> values, ee.Emit(root, index));
  for (const hlo::Shape* leaf : leaves) {
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(leaf->type));
    f.results.push_back(t);
  }
  bb.Add(ir::Return(values));
  f.body = bb.Take();
  module_.functions.push_back(std::move(f));
  return name;
}

Result<std::string> LoweringContext::ScalarFunction(
    const hlo::Computation* comp) {
  // The reader takes a reduce or scatter without to_apply (the indexing
  // does not need it); code generation does.
  if (comp == nullptr) {
    return Error::Invalid(
        "emit: an instruction that applies a computation "
        "has no to_apply");
  }
  auto found = scalar_functions_.find(comp);
  if (found != scalar_functions_.end()) return found->second;
  std::string name = FreshName(Sanitize(comp->name()) + "_");
  scalar_functions_[comp] = name;
  ir::Function f;
  f.name = name;
  f.reads_buffers = false;
  BlockBuilder bb(this);
  ElementalEmitter ee(this, &bb);
  ee.set_use_partition(false);
  for (int64_t i = 0; i < comp->parameter_count(); ++i) {
    const Instruction* p = comp->parameter(i);
    if (!p || !p->shape.IsScalar()) {
      return Error::Unsupported("emit: computation '" + comp->name() +
                                "' takes a non-scalar parameter");
    }
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(p->shape.type));
    std::string pn = "x" + std::to_string(i);
    f.params.push_back({pn, ir::ParamKind::kScalar, t, Interval::Full()});
    ee.Override(p, {ir::Var(pn, t)});
  }
  IXA_ASSIGN_OR_RETURN(std::vector<Val> values, ee.Emit(comp->root(), {}));
  for (const hlo::Shape* leaf : Leaves(comp->root()->shape)) {
    if (!leaf->IsScalar()) {
      return Error::Unsupported("emit: computation '" + comp->name() +
                                "' returns a non-scalar");
    }
    IXA_ASSIGN_OR_RETURN(Type t, ir::TypeOf(leaf->type));
    f.results.push_back(t);
  }
  bb.Add(ir::Return(values));
  f.body = bb.Take();
  module_.functions.push_back(std::move(f));
  return name;
}

}  // namespace ixa::emit
