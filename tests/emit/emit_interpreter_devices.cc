// The reference interpreter's ops across devices and streams, on one
// device (written from XLA's operation semantics, apart from
// analysis/prefusion's one-device rewrite it checks):
//  - a collective over its participants: all-reduce reduces the
//    participants' operands, all-gather concatenates them, reduce-scatter
//    reduces and hands each participant its slice, all-to-all hands chunk
//    i to participant i and concatenates what it receives, a broadcast
//    gives the root's operand. With one participant, each gives back the
//    operand. A group of more is beyond one device: Unsupported.
//  - collective-permute: what a source sends the target; a device no pair
//    targets gets zeros.
//  - replica-id, partition-id: device 0's.
//  - async pairs: the start holds (operands, result, context) as XLA's
//    shapes lay them out, the done reads the result.
#include <set>

#include "tests/emit/emit_interpreter_scalar.h"

namespace ixa::emit_test::interpreter_detail {
namespace {

using hlo::Instruction;
using hlo::Opcode;

// Zeros of a shape (tuples too).
Literal Zeros(const hlo::Shape& shape) {
  if (!shape.IsTuple()) return Literal::Make(shape.type, shape.dims);
  Literal t;
  t.type = ElementType::kTuple;
  for (const hlo::Shape& e : shape.tuple_elements) t.tuple.push_back(Zeros(e));
  return t;
}

// The participants of one group, the interpreter being one device: the
// largest group written, or 1 when the groups are left out (all devices:
// this one).
int64_t GroupSize(const Instruction& in) {
  size_t largest = 1;
  for (const auto& g : in.replica_groups) largest = std::max(largest, g.size());
  return static_cast<int64_t>(largest);
}

// The collective `op` (its attributes on `in`) over one participant, whose
// operands are `operands`; its result of `shape`.
Result<Literal> OneParticipant(const Instruction& in, Opcode op,
                               const std::vector<Literal>& operands,
                               const hlo::Shape& shape) {
  const int64_t participants = GroupSize(in);
  if (participants != 1) {
    return Unsupported(in, "a group of " + std::to_string(participants) +
                               " participants (the interpreter is one "
                               "device)");
  }
  // One participant: the reduction of one value is the value; a gather or
  // an exchange of one piece, the piece.
  (void)op;
  std::vector<Literal> out = operands;
  const size_t leaves = shape.IsTuple() ? shape.tuple_elements.size() : 1;
  if (out.size() != leaves) {
    return Unsupported(in, "operands and results differ in number");
  }
  for (size_t k = 0; k < leaves; ++k) {
    const hlo::Shape& s = shape.IsTuple() ? shape.tuple_elements[k] : shape;
    if (out[k].is_tuple() || out[k].dims != s.dims || out[k].type != s.type) {
      return Unsupported(in, "a result not of its operand's shape");
    }
  }
  if (!shape.IsTuple()) return out[0];
  Literal t;
  t.type = ElementType::kTuple;
  t.tuple = std::move(out);
  return t;
}

// `{{0,1},{1,0}}` -> pairs.
std::vector<std::pair<int64_t, int64_t>> Pairs(const std::string& raw) {
  std::vector<int64_t> n;
  std::string digits;
  for (char c : raw + ",") {
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (!digits.empty()) {
      n.push_back(std::stoll(digits));
      digits.clear();
    }
  }
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (size_t i = 0; i + 1 < n.size(); i += 2)
    pairs.push_back({n[i], n[i + 1]});
  return pairs;
}

Result<Literal> Collective(const Instruction& in, Opcode op,
                           const std::vector<Literal>& operands,
                           const hlo::Shape& shape) {
  if (op == Opcode::kCollectivePermute) {
    if (in.HasAttribute("slice_sizes")) return Unsupported(in, "slices");
    bool received = false;
    for (const auto& [source, target] :
         Pairs(in.Attribute("source_target_pairs"))) {
      if (target != 0) continue;
      if (source != 0) {
        return Unsupported(in,
                           "receives from device " + std::to_string(source));
      }
      received = true;
    }
    if (!received) return Zeros(shape);
    std::vector<Literal> ops = operands;
    if (!shape.IsTuple()) return ops.at(0);
    Literal t;
    t.type = ElementType::kTuple;
    t.tuple = std::move(ops);
    return t;
  }
  return OneParticipant(in, op, operands, shape);
}

bool IsCollective(Opcode op) {
  return op == Opcode::kAllReduce || op == Opcode::kAllGather ||
         op == Opcode::kReduceScatter || op == Opcode::kAllToAll ||
         op == Opcode::kCollectiveBroadcast || op == Opcode::kCollectivePermute;
}

// Custom calls that only say how to shard or place a value: on one device
// the value itself.
bool IsShardingAnnotation(const Instruction& in) {
  static const std::set<std::string> kAnnotations = {
      "Sharding",
      "SPMDFullToShardShape",
      "SPMDShardToFullShape",
      "xla.sdy.GlobalToLocalShape",
      "xla.sdy.LocalToGlobalShape",
      "LayoutConstraint",
      "annotate_device_placement"};
  return kAnnotations.count(hlo::CustomCallTarget(in)) > 0;
}

Literal U32Zero() { return Literal::Make(ElementType::kU32, {}); }

Literal Tuple(std::vector<Literal> elements) {
  Literal t;
  t.type = ElementType::kTuple;
  t.tuple = std::move(elements);
  return t;
}

}  // namespace

std::optional<Result<Literal>> EvalAcrossDevices(
    const Instruction& in, const std::vector<const Literal*>& operand_refs,
    const std::function<Result<Literal>(const hlo::Computation&,
                                        const std::vector<Literal>&)>& call) {
  const Opcode op = in.opcode;
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllGather:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
    case Opcode::kGetDimensionSize:
    case Opcode::kAddDependency:
    case Opcode::kAfterAll:
    case Opcode::kDomain:
      break;
    case Opcode::kCustomCall:
      if (!IsShardingAnnotation(in)) return std::nullopt;
      break;
    default:
      return std::nullopt;
  }
  std::vector<Literal> operands;
  for (const Literal* l : operand_refs) operands.push_back(*l);
  if (IsCollective(op)) return Collective(in, op, operands, in.shape);
  switch (op) {
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      return U32Zero();
    case Opcode::kCopyStart:
      // (destination, source, context).
      return Tuple({operands.at(0), operands.at(0), U32Zero()});
    case Opcode::kCopyDone:
      return operands.at(0).tuple.at(0);
    case Opcode::kAddDependency:
    case Opcode::kDomain:
      // The data operand; the token only orders.
      return operands.at(0);
    case Opcode::kAfterAll:
      return Tuple({});  // a token holds no value
    case Opcode::kAllReduceStart:
      // Its shape is the result's.
      return Collective(in, Opcode::kAllReduce, operands, in.shape);
    case Opcode::kAllReduceDone:
      return operands.at(0);
    case Opcode::kAllGatherStart:
    case Opcode::kCollectivePermuteStart: {
      // (operand(s), result(s)[, contexts]).
      const Opcode sync = op == Opcode::kAllGatherStart
                              ? Opcode::kAllGather
                              : Opcode::kCollectivePermute;
      const hlo::Shape& result = in.shape.tuple_elements.at(1);
      Result<Literal> r = Collective(in, sync, operands, result);
      if (!r.ok()) return r;
      std::vector<Literal> parts = {
          operands.size() == 1 ? operands[0] : Tuple(operands), *r};
      for (size_t k = 2; k < in.shape.tuple_elements.size(); ++k) {
        parts.push_back(Zeros(in.shape.tuple_elements[k]));
      }
      return Tuple(std::move(parts));
    }
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kAsyncDone:
      return operands.at(0).tuple.at(1);
    case Opcode::kAsyncUpdate:
      return operands.at(0);
    case Opcode::kAsyncStart: {
      // ((operands), result, context...).
      const hlo::Shape& result = in.shape.tuple_elements.at(1);
      Result<Literal> r = Error::Unsupported("");
      if (in.async_wrapped && IsCollective(*in.async_wrapped)) {
        r = Collective(in, *in.async_wrapped, operands, result);
      } else if (!in.async_wrapped && in.called()) {
        r = call(*in.called(), operands);
      } else {
        return Unsupported(in, "the op it wraps");
      }
      if (!r.ok()) return r;
      std::vector<Literal> parts = {Tuple(operands), *r};
      for (size_t k = 2; k < in.shape.tuple_elements.size(); ++k) {
        parts.push_back(Zeros(in.shape.tuple_elements[k]));
      }
      return Tuple(std::move(parts));
    }
    case Opcode::kCustomCall: {
      if (operands.size() != 1 || operands[0].dims != in.shape.dims) {
        return Unsupported(in, "a sharding annotation that reshapes");
      }
      return operands[0];
    }
    case Opcode::kGetDimensionSize: {
      const hlo::Shape& s = in.operand(0)->shape;
      const int64_t d = in.dimensions.at(0);
      if ((s.dynamic_mask >> d) & 1) return Unsupported(in, "a dynamic dim");
      Literal l = Literal::Make(ElementType::kS32, {});
      l.ints[0] = static_cast<uint64_t>(s.dims.at(d));
      return l;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace ixa::emit_test::interpreter_detail
