// A module run on one device (docs/compile.md "One device"): what XLA's
// semantics make of the ops that only mean something across devices or
// streams, when there is one device and one stream.
//  - Async pairs become their synchronous op (XLA's
//    ConvertAsyncCollectivesToSync, and CopyInsertion's copy for
//    copy-start / copy-done): the start and its updates vanish, the done
//    computes the op on the start's operands.
//  - Collectives whose groups have one participant return their operands
//    (a sum, gather, scatter or exchange over one device is the identity);
//    a collective-permute gives a copy where the device sends to itself and
//    zeros where it receives nothing; replica-id and partition-id are 0
//    when there is one replica / one partition.
//  - Sharding annotations are copies; get-dimension-size of a static dim is
//    a constant; a tuple-shaped constant is a tuple of array constants.
//  - Ordering tokens order nothing on one stream: add-dependency is its
//    data operand, an after-all that only add-dependency and after-all
//    read is dropped; a domain (a partitioner's boundary) is its operand.
// Everything that needs more than one device, or a host channel, is an
// Unsupported error saying so.
#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include "analysis/hlo/custom_calls.h"
#include "analysis/hlo/printer.h"
#include "analysis/prefusion/internal.h"

namespace ixa {
namespace {

using hlo::ElementType;
using hlo::Instruction;
using hlo::Opcode;
using prefusion::Line;
using prefusion::ModuleEdit;
using prefusion::NameOf;

constexpr char kPass[] = "SingleDevice";

std::string OpName(Opcode op) { return std::string(hlo::OpcodeName(op)); }

Error Unsupported(const Instruction& in, const std::string& why) {
  return Error::Unsupported("compile: " + hlo::OpcodeName(in) + " '" + in.name +
                            "' " + why);
}

// The attributes of `in` as written (called computations by their printed
// names), less those in `skip`.
std::string AttributesText(const Instruction& in,
                           const std::set<std::string>& skip) {
  std::string out;
  for (const auto& [key, raw] : in.attributes) {
    if (skip.count(key)) continue;
    std::string value = raw;
    for (const hlo::Computation* c : in.called_computations) {
      if (raw == c->name()) value = NameOf(*c);
    }
    out += (out.empty() ? "" : ", ") + key + "=" + value;
  }
  return out;
}

std::vector<std::string> OperandNames(const Instruction& in) {
  std::vector<std::string> names;
  for (const Instruction* op : in.operands) names.push_back(NameOf(*op));
  return names;
}

bool SameArray(const hlo::Shape& a, const hlo::Shape& b) {
  return a.IsArray() && b.IsArray() && a.type == b.type && a.dims == b.dims &&
         a.dynamic_mask == b.dynamic_mask;
}

std::string ZeroText(ElementType t) {
  if (t == ElementType::kPred) return "false";
  if (t == ElementType::kC64 || t == ElementType::kC128) return "(0, 0)";
  return "0";
}

// The lines that define `name` (of `shape`, an array or a tuple of them)
// from one value per leaf: `leaf(k, shape, name)` gives the lines of leaf
// k, the last one defining `name`.
template <typename F>
void LeafLines(const std::string& name, const hlo::Shape& shape, int* leaf,
               ModuleEdit* edit, const Instruction& base, F&& leaf_lines,
               std::vector<std::string>* lines) {
  if (!shape.IsTuple()) {
    for (std::string& l : leaf_lines((*leaf)++, shape, name)) {
      lines->push_back(std::move(l));
    }
    return;
  }
  std::vector<std::string> elements;
  for (size_t k = 0; k < shape.tuple_elements.size(); ++k) {
    const std::string element =
        edit->NewName(base, "element" + std::to_string(k));
    LeafLines(element, shape.tuple_elements[k], leaf, edit, base, leaf_lines,
              lines);
    elements.push_back(element);
  }
  lines->push_back(Line(name, shape, "tuple", elements));
}

// Zeros of `shape` under `name`.
std::vector<std::string> ZeroLines(const Instruction& in,
                                   const std::string& name,
                                   const hlo::Shape& shape, ModuleEdit* edit) {
  std::vector<std::string> lines;
  int leaf = 0;
  LeafLines(
      name, shape, &leaf, edit, in,
      [&](int, const hlo::Shape& s, const std::string& leaf_name) {
        const std::string zero = edit->NewName(in, "zero");
        return std::vector<std::string>{
            Line(zero, hlo::Shape::Array(s.type, {}), "constant",
                 {ZeroText(s.type)}),
            Line(leaf_name, s, "broadcast", {zero}, "dimensions={}")};
      },
      &lines);
  return lines;
}

// `in` (of one array operand per result leaf) as the copies of its
// operands: what a collective over one participant computes.
Result<std::vector<std::string>> IdentityLines(const Instruction& in,
                                               ModuleEdit* edit) {
  const bool tuple = in.shape.IsTuple();
  const size_t leaves = tuple ? in.shape.tuple_elements.size() : 1;
  if (leaves != in.operands.size()) {
    return Unsupported(in, "has " + std::to_string(in.operand_count()) +
                               " operands for " + std::to_string(leaves) +
                               " results");
  }
  std::vector<std::string> lines;
  std::vector<std::string> names;
  for (size_t k = 0; k < leaves; ++k) {
    const hlo::Shape& out = tuple ? in.shape.tuple_elements[k] : in.shape;
    const hlo::Shape& from = in.operand(k)->shape;
    if (!SameArray(out, from)) {
      return Unsupported(
          in, "with one participant returns its operand, but its result " +
                  out.ToString() + " is not its operand's shape " +
                  from.ToString());
    }
    const std::string name =
        tuple ? edit->NewName(in, "element" + std::to_string(k)) : NameOf(in);
    lines.push_back(Line(name, out, "copy", {NameOf(*in.operand(k))}));
    names.push_back(name);
  }
  if (tuple) lines.push_back(Line(NameOf(in), in.shape, "tuple", names));
  return lines;
}

// XLA's CollectiveOpGroupMode: what the ids of replica_groups name.
enum class GroupMode {
  kCrossReplica,              // replica ids, within a partition
  kCrossPartition,            // partition ids, within a replica
  kCrossReplicaAndPartition,  // replica ids, each with every partition
  kFlattenedId,               // global device ids
};

GroupMode GroupModeOf(const Instruction& in) {
  const bool channel = in.HasAttribute("channel_id");
  // all-to-all and collective-broadcast have no use_global_device_ids.
  if (in.opcode == Opcode::kAllToAll ||
      in.opcode == Opcode::kCollectiveBroadcast) {
    return channel ? GroupMode::kCrossPartition : GroupMode::kCrossReplica;
  }
  if (!channel) return GroupMode::kCrossReplica;
  return in.Attribute("use_global_device_ids") == "true"
             ? GroupMode::kFlattenedId
             : GroupMode::kCrossReplicaAndPartition;
}

std::string DeviceCounts(const hlo::Module& module) {
  return "replica_count=" + std::to_string(module.replica_count()) +
         ", num_partitions=" + std::to_string(module.num_partitions());
}

// OK when every replica group of `in` has one participant; else an
// Unsupported error naming how many devices it needs.
Status CheckOneParticipant(const Instruction& in, const hlo::Module& module) {
  const int64_t replicas = module.replica_count();
  const int64_t partitions = module.num_partitions();
  const GroupMode mode = GroupModeOf(in);
  int64_t domain = replicas;  // how many ids the groups may name
  if (mode == GroupMode::kCrossPartition) domain = partitions;
  if (mode == GroupMode::kFlattenedId) domain = replicas * partitions;
  int64_t group_size = in.replica_groups.empty() ? domain : 0;
  int64_t largest_id = -1;
  for (const std::vector<int64_t>& group : in.replica_groups) {
    group_size = std::max<int64_t>(group_size, group.size());
    for (int64_t id : group) largest_id = std::max(largest_id, id);
  }
  // Each replica of a group brings every partition along.
  const int64_t participants = mode == GroupMode::kCrossReplicaAndPartition
                                   ? group_size * partitions
                                   : group_size;
  if (participants > 1) {
    return Unsupported(in, "needs " + std::to_string(participants) +
                               " devices (its groups have " +
                               std::to_string(participants) +
                               " participants; " + DeviceCounts(module) +
                               "); a program runs on one device");
  }
  if (largest_id >= domain) {
    return Unsupported(in, "names device " + std::to_string(largest_id) +
                               " of a module of " + DeviceCounts(module));
  }
  return Status();
}

// `{{0,1},{1,0}}` as pairs.
Result<std::vector<std::pair<int64_t, int64_t>>> SourceTargetPairs(
    const Instruction& in) {
  const std::string raw = in.Attribute("source_target_pairs");
  std::vector<int64_t> numbers;
  for (size_t i = 0; i < raw.size();) {
    if (std::isdigit(static_cast<unsigned char>(raw[i]))) {
      size_t end = i;
      while (end < raw.size() &&
             std::isdigit(static_cast<unsigned char>(raw[end]))) {
        ++end;
      }
      if (end - i > 9) return Unsupported(in, "has a device id out of range");
      numbers.push_back(std::stoll(raw.substr(i, end - i)));
      i = end;
    } else if (raw[i] == '{' || raw[i] == '}' || raw[i] == ',' ||
               raw[i] == ' ') {
      ++i;
    } else {
      return Unsupported(in,
                         "has unreadable source_target_pairs '" + raw + "'");
    }
  }
  if (numbers.size() % 2 != 0) {
    return Unsupported(in, "has unreadable source_target_pairs '" + raw + "'");
  }
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (size_t i = 0; i < numbers.size(); i += 2) {
    pairs.emplace_back(numbers[i], numbers[i + 1]);
  }
  return pairs;
}

// collective-permute on one device: a copy where the device sends to
// itself, zeros where it receives nothing (XLA's semantics for a device
// no pair targets).
Result<std::vector<std::string>> CollectivePermuteLines(
    const Instruction& in, const hlo::Module& module, ModuleEdit* edit,
    std::string* what) {
  if (in.HasAttribute("slice_sizes")) {
    return Unsupported(in,
                       "with slice offsets (the in-place form) is not "
                       "compiled");
  }
  IXA_ASSIGN_OR_RETURN(auto pairs, SourceTargetPairs(in));
  const int64_t domain = in.HasAttribute("channel_id") ? module.num_partitions()
                                                       : module.replica_count();
  int64_t devices = 0;  // the pairs' largest id + 1
  for (const auto& [source, target] : pairs) {
    devices = std::max({devices, source + 1, target + 1});
  }
  std::set<int64_t> self;
  for (const auto& [source, target] : pairs) {
    if (source != target) {
      return Unsupported(in, "sends from device " + std::to_string(source) +
                                 " to device " + std::to_string(target) +
                                 ": it needs " + std::to_string(devices) +
                                 " devices (" + DeviceCounts(module) +
                                 "); a program runs on one device");
    }
    if (source >= domain) {
      return Unsupported(in, "names device " + std::to_string(source) +
                                 " of a module of " + DeviceCounts(module));
    }
    self.insert(source);
  }
  if (self.empty()) {
    *what = "zeros (no device sends to it)";
    return ZeroLines(in, NameOf(in), in.shape, edit);
  }
  if (static_cast<int64_t>(self.size()) != domain) {
    return Unsupported(in,
                       "sends to some devices and not to others: its "
                       "result differs per device (" +
                           DeviceCounts(module) + ")");
  }
  *what = "a copy of its operand (the device sends to itself)";
  return IdentityLines(in, edit);
}

// `in` as its first operand, unchanged: a copy of an array, a tuple of
// the elements of a tuple of arrays, a token after a token.
Result<std::vector<std::string>> PassThroughLines(const Instruction& in,
                                                  ModuleEdit* edit) {
  const Instruction& from = *in.operand(0);
  if (in.shape.type == hlo::ElementType::kToken &&
      from.shape.type == hlo::ElementType::kToken) {
    // A token ordered after another token: a token after its operand.
    return std::vector<std::string>{
        Line(NameOf(in), in.shape, "after-all", {NameOf(from)})};
  }
  if (!in.shape.IsTuple()) {
    if (!SameArray(in.shape, from.shape)) {
      return Unsupported(in, "is " + in.shape.ToString() +
                                 " but its operand is " +
                                 from.shape.ToString());
    }
    return std::vector<std::string>{
        Line(NameOf(in), in.shape, "copy", {NameOf(from)})};
  }
  std::vector<std::string> lines, names;
  for (size_t k = 0; k < in.shape.tuple_elements.size(); ++k) {
    const hlo::Shape& element = in.shape.tuple_elements[k];
    if (element.IsTuple()) {
      return Unsupported(in, "passes a nested tuple through");
    }
    const std::string name = edit->NewName(in, "element" + std::to_string(k));
    lines.push_back(Line(name, element, "get-tuple-element", {NameOf(from)},
                         "index=" + std::to_string(k)));
    names.push_back(name);
  }
  lines.push_back(Line(NameOf(in), in.shape, "tuple", names));
  return lines;
}

// The after-alls of `computation` whose tokens only order add-dependency
// and other such after-alls (all of which go): nothing reads them once
// those are gone. One pass, users before operands (a chain or a diamond of
// tokens costs one visit per instruction).
std::unordered_set<const Instruction*> DroppableAfterAlls(
    const hlo::Computation& computation) {
  std::unordered_set<const Instruction*> droppable;
  const std::vector<const Instruction*>& order = computation.post_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Instruction& in = **it;
    if (in.opcode != Opcode::kAfterAll || computation.root() == &in) continue;
    bool only_orders = true;
    for (const Instruction* user : in.users) {
      const bool orders_data =
          user->opcode == Opcode::kAddDependency && user->operand(0) != &in;
      if (!orders_data && !droppable.count(user)) {
        only_orders = false;
        break;
      }
    }
    if (only_orders) droppable.insert(&in);
  }
  return droppable;
}

bool IsShardingAnnotation(const std::string& target) {
  static const std::set<std::string> kTargets = {"Sharding",
                                                 "SPMDFullToShardShape",
                                                 "SPMDShardToFullShape",
                                                 "xla.sdy.GlobalToLocalShape",
                                                 "xla.sdy.LocalToGlobalShape",
                                                 "LayoutConstraint",
                                                 "annotate_device_placement"};
  return kTargets.count(target) > 0;
}

// A tuple literal `(a, {b, c}, (d, e))` split at its top-level commas;
// nullopt when it is not one.
std::optional<std::vector<std::string>> SplitTupleLiteral(
    const std::string& text) {
  size_t begin = text.find_first_not_of(" \n\t");
  size_t end = text.find_last_not_of(" \n\t");
  if (begin == std::string::npos || text[begin] != '(' || text[end] != ')') {
    return std::nullopt;
  }
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (size_t i = begin + 1; i < end; ++i) {
    const char c = text[i];
    if (c == '(' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '}' || c == ']') --depth;
    if (depth < 0) return std::nullopt;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (depth != 0) return std::nullopt;
  if (current.find_first_not_of(" \n\t") != std::string::npos ||
      !parts.empty()) {
    parts.push_back(current);
  }
  for (std::string& p : parts) {
    const size_t b = p.find_first_not_of(" \n\t");
    const size_t e = p.find_last_not_of(" \n\t");
    p = b == std::string::npos ? "" : p.substr(b, e - b + 1);
  }
  return parts;
}

// The lines of a tuple constant `literal` of `shape` named `name`.
Status TupleConstantLines(const Instruction& in, const std::string& name,
                          const hlo::Shape& shape, const std::string& literal,
                          ModuleEdit* edit, std::vector<std::string>* lines) {
  if (!shape.IsTuple()) {
    lines->push_back(Line(name, shape, "constant", {literal}));
    return Status();
  }
  std::optional<std::vector<std::string>> parts = SplitTupleLiteral(literal);
  if (!parts || parts->size() != shape.tuple_elements.size()) {
    return Error::Invalid(
        "compile: constant '" + in.name + "' of shape " + shape.ToString() +
        " has the literal '" + literal + "', not one of " +
        std::to_string(shape.tuple_elements.size()) + " elements");
  }
  std::vector<std::string> elements;
  for (size_t k = 0; k < parts->size(); ++k) {
    const std::string element =
        edit->NewName(in, "element" + std::to_string(k));
    IXA_RETURN_IF_ERROR(TupleConstantLines(in, element, shape.tuple_elements[k],
                                           (*parts)[k], edit, lines));
    elements.push_back(element);
  }
  lines->push_back(Line(name, shape, "tuple", elements));
  return Status();
}

// The start of an async done (through its updates), or nullptr.
const Instruction* AsyncStartOf(const Instruction& done) {
  const Instruction* at = done.operand_count() == 1 ? done.operand(0) : nullptr;
  while (at && at->opcode == Opcode::kAsyncUpdate && at->operand_count() == 1) {
    at = at->operand(0);
  }
  return at;
}

// The synchronous op of an async start, and the done's opcode.
struct AsyncKinds {
  Opcode start, done, sync;
};
constexpr AsyncKinds kAsyncKinds[] = {
    {Opcode::kCopyStart, Opcode::kCopyDone, Opcode::kCopy},
    {Opcode::kAllReduceStart, Opcode::kAllReduceDone, Opcode::kAllReduce},
    {Opcode::kAllGatherStart, Opcode::kAllGatherDone, Opcode::kAllGather},
    {Opcode::kCollectivePermuteStart, Opcode::kCollectivePermuteDone,
     Opcode::kCollectivePermute},
    {Opcode::kAsyncStart, Opcode::kAsyncDone, Opcode::kAsyncStart},
};

const AsyncKinds* AsyncKindsOfStart(Opcode op) {
  for (const AsyncKinds& k : kAsyncKinds) {
    if (k.start == op) return &k;
  }
  return nullptr;
}
const AsyncKinds* AsyncKindsOfDone(Opcode op) {
  for (const AsyncKinds& k : kAsyncKinds) {
    if (k.done == op) return &k;
  }
  return nullptr;
}

// An async start or update is dropped once its done computes the op: every
// user must be its update or done.
Status RemoveAsyncHalf(const Instruction& in, const AsyncKinds& kinds,
                       ModuleEdit* edit) {
  for (const Instruction* user : in.users) {
    if (user->opcode != kinds.done && user->opcode != Opcode::kAsyncUpdate) {
      return Unsupported(
          in, "is used by '" + user->name + "', not only by its done");
    }
  }
  if (in.parent && in.parent->root() == &in) {
    return Unsupported(in, "is its computation's root, with no done");
  }
  edit->Remove(&in);
  return Status();
}

// The done of an async pair as the synchronous op on the start's operands.
Result<std::string> SyncLine(const Instruction& done, const Instruction& start,
                             const AsyncKinds& kinds, std::string* what) {
  const std::string name = NameOf(done);
  const std::vector<std::string> operands = OperandNames(start);
  if (kinds.sync == Opcode::kCopy) {
    *what = "a copy of " + NameOf(*start.operand(0)) + " (" + start.name +
            " dropped)";
    return Line(name, done.shape, "copy", operands);
  }
  if (kinds.start != Opcode::kAsyncStart) {
    *what = "a " + OpName(kinds.sync) + " (" + start.name + " dropped)";
    return Line(name, done.shape, OpName(kinds.sync), operands,
                AttributesText(start, {"backend_config"}));
  }
  if (start.async_wrapped) {
    // `custom-call-start(...), custom_call_target=...`: the wrapped op, its
    // attributes on the start.
    *what = "the " + OpName(*start.async_wrapped) + " it wraps (" + start.name +
            " dropped)";
    return Line(
        name, done.shape, OpName(*start.async_wrapped), operands,
        AttributesText(start, {"async_execution_thread", "async_group_id"}));
  }
  if (!start.called()) {
    return Unsupported(start, "names no computation (calls=)");
  }
  *what =
      "a call of " + NameOf(*start.called()) + " (" + start.name + " dropped)";
  return Line(name, done.shape, "call", operands,
              "to_apply=" + NameOf(*start.called()));
}

Status Rewrite(const Instruction& in, const hlo::Module& module,
               const std::unordered_set<const Instruction*>& droppable,
               ModuleEdit* edit, std::vector<PrefusionRewrite>* rewrites) {
  auto record = [&](const std::string& what) {
    rewrites->push_back({kPass, in.name, what});
  };
  auto replace = [&](std::vector<std::string> lines, const std::string& what) {
    edit->Replace(&in, std::move(lines));
    record(what);
  };
  const Opcode op = in.opcode;
  if (const AsyncKinds* kinds = AsyncKindsOfStart(op)) {
    return RemoveAsyncHalf(in, *kinds, edit);
  }
  if (op == Opcode::kAsyncUpdate) {
    const Instruction* start = AsyncStartOf(in);
    if (!start || start->opcode != Opcode::kAsyncStart) {
      return Unsupported(in, "does not follow an async-start");
    }
    return RemoveAsyncHalf(in, kAsyncKinds[4], edit);
  }
  if (const AsyncKinds* kinds = AsyncKindsOfDone(op)) {
    const Instruction* start = AsyncStartOf(in);
    if (!start || start->opcode != kinds->start) {
      return Unsupported(in, "does not follow its " + OpName(kinds->start));
    }
    std::string what;
    IXA_ASSIGN_OR_RETURN(std::string line, SyncLine(in, *start, *kinds, &what));
    replace({line}, what);
    return Status();
  }
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllGather:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kCollectiveBroadcast: {
      IXA_RETURN_IF_ERROR(CheckOneParticipant(in, module));
      IXA_ASSIGN_OR_RETURN(std::vector<std::string> lines,
                           IdentityLines(in, edit));
      replace(std::move(lines),
              "its operand (one participant per replica group)");
      return Status();
    }
    case Opcode::kCollectivePermute: {
      std::string what;
      IXA_ASSIGN_OR_RETURN(std::vector<std::string> lines,
                           CollectivePermuteLines(in, module, edit, &what));
      replace(std::move(lines), what);
      return Status();
    }
    case Opcode::kReplicaId:
    case Opcode::kPartitionId: {
      const bool replica = op == Opcode::kReplicaId;
      const int64_t count =
          replica ? module.replica_count() : module.num_partitions();
      if (count != 1) {
        return Unsupported(in, "differs per device (" + DeviceCounts(module) +
                                   "); a program runs on one device");
      }
      replace({Line(NameOf(in), in.shape, "constant", {"0"})},
              std::string("the constant 0 (one ") +
                  (replica ? "replica" : "partition") + ")");
      return Status();
    }
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
      return Unsupported(in,
                         "needs a host channel, which a program does not "
                         "have (send, recv, infeed and outfeed are not "
                         "compiled)");
    case Opcode::kCustomCall: {
      const std::string target = hlo::CustomCallTarget(in);
      if (!IsShardingAnnotation(target)) return Status();
      if (in.operand_count() != 1 ||
          !SameArray(in.shape, in.operand(0)->shape)) {
        return Unsupported(
            in, "(" + target +
                    ") changes its operand's shape: the shapes need a "
                    "partitioner (SPMD), not a one-device program");
      }
      replace({Line(NameOf(in), in.shape, "copy", OperandNames(in))},
              "a copy (" + target + " has no effect on one device)");
      return Status();
    }
    case Opcode::kGetDimensionSize: {
      if (in.operand_count() != 1 || in.dimensions.size() != 1 ||
          !in.operand(0)->shape.IsArray()) {
        return Status();
      }
      const hlo::Shape& from = in.operand(0)->shape;
      const int64_t d = in.dimensions[0];
      if (d < 0 || d >= from.rank()) return Status();
      if ((from.dynamic_mask >> d) & 1) {
        return Unsupported(in, "reads dim " + std::to_string(d) + " of " +
                                   from.ToString() +
                                   ", a dynamic one: programs hold static "
                                   "shapes");
      }
      replace(
          {Line(NameOf(in), in.shape, "constant",
                {std::to_string(from.dims[d])})},
          "the constant " + std::to_string(from.dims[d]) + " (a static dim)");
      return Status();
    }
    case Opcode::kAddDependency:
    case Opcode::kDomain: {
      if (in.operand_count() < 1) return Status();
      IXA_ASSIGN_OR_RETURN(std::vector<std::string> lines,
                           PassThroughLines(in, edit));
      replace(std::move(lines),
              op == Opcode::kDomain
                  ? "its operand (a domain has no effect on one device)"
                  : "its data operand (one stream runs in order)");
      return Status();
    }
    case Opcode::kAfterAll: {
      if (!droppable.count(&in)) return Status();
      edit->Remove(&in);
      record("dropped (its token orders nothing on one stream)");
      return Status();
    }
    case Opcode::kConstant: {
      if (!in.shape.IsTuple()) return Status();
      std::vector<std::string> lines;
      IXA_RETURN_IF_ERROR(TupleConstantLines(in, NameOf(in), in.shape,
                                             in.literal, edit, &lines));
      replace(std::move(lines), "a tuple of array constants");
      return Status();
    }
    default:
      return Status();
  }
}

}  // namespace

Result<PassResult> RewriteForOneDevice(const hlo::Module& module) {
  ModuleEdit edit(module);
  PassResult result;
  for (const auto& computation : module.computations()) {
    const std::unordered_set<const Instruction*> droppable =
        DroppableAfterAlls(*computation);
    for (const Instruction* instr : computation->post_order()) {
      IXA_RETURN_IF_ERROR(
          Rewrite(*instr, module, droppable, &edit, &result.rewrites));
    }
  }
  if (edit.empty()) return result;
  IXA_ASSIGN_OR_RETURN(result.module, edit.Apply(kPass));
  return result;
}

}  // namespace ixa
