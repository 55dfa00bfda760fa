#include "emit/reduce_init_notes.h"

#include <optional>

#include "emit/ir/kernel_ir.h"
#include "emit/lower/lowering.h"

namespace ixa::emit {
namespace {

using hlo::Instruction;

enum class Reducer { kUnknown, kIdempotent, kAdd, kMultiply, kXor };

// The reducer's kind when its root is one binary op of its two scalar
// parameters (in either order); kUnknown otherwise (variadic reducers,
// anything computed).
Reducer Classify(const hlo::Computation* reducer) {
  if (!reducer || reducer->parameter_count() != 2) return Reducer::kUnknown;
  const Instruction* root = reducer->root();
  if (root->operand_count() != 2) return Reducer::kUnknown;
  const Instruction *a = root->operand(0), *b = root->operand(1);
  if (a->opcode != hlo::Opcode::kParameter ||
      b->opcode != hlo::Opcode::kParameter ||
      a->parameter_number == b->parameter_number) {
    return Reducer::kUnknown;
  }
  const hlo::Opcode op = root->opcode;
  if (op == hlo::Opcode::kMaximum || op == hlo::Opcode::kMinimum ||
      op == hlo::Opcode::kAnd || op == hlo::Opcode::kOr)
    return Reducer::kIdempotent;
  if (op == hlo::Opcode::kAdd) return Reducer::kAdd;
  if (op == hlo::Opcode::kMultiply) return Reducer::kMultiply;
  if (op == hlo::Opcode::kXor) return Reducer::kXor;
  return Reducer::kUnknown;
}

const char* IdentityText(Reducer r) {
  switch (r) {
    case Reducer::kAdd:
      return "add: 0";
    case Reducer::kMultiply:
      return "multiply: 1";
    case Reducer::kXor:
      return "xor: 0";
    default:
      return "";
  }
}

// The constant's value when it is a readable scalar, as text, and whether
// it is the identity of `r` (add and xor 0, multiply 1; -0.0 counts as 0).
struct ConstantInit {
  std::string text;
  bool identity = false;
};
std::optional<ConstantInit> ReadConstant(const Instruction& init, Reducer r) {
  Result<ir::Val> v = ScalarConstant(init);
  if (!v.ok()) return std::nullopt;
  const ir::Node& n = **v;
  const bool is_float = ir::IsFloat(n.type);
  const double value =
      is_float ? n.float_value : static_cast<double>(n.int_value);
  const double identity = r == Reducer::kMultiply ? 1.0 : 0.0;
  return ConstantInit{init.literal, value == identity};
}

}  // namespace

std::vector<std::string> ReduceInitNotes(const FusionRegion& region,
                                         const EmitterPlan& plan) {
  std::vector<std::string> notes;
  for (const Instruction* in : region.members) {
    if (in->opcode != hlo::Opcode::kReduce) continue;
    const Reducer reducer = Classify(in->called());
    if (reducer == Reducer::kIdempotent) continue;
    bool hero = false;
    if (plan.kind == EmitterKind::kReduction) {
      for (const RootPlan& r : plan.roots) hero = hero || r.hero == in;
    }
    const int inputs = in->operand_count() / 2;
    for (int k = inputs; k < in->operand_count(); ++k) {
      const Instruction& init = *in->operand(k);
      std::string why;
      if (init.opcode == hlo::Opcode::kConstant) {
        auto c = ReadConstant(init, reducer);
        // A constant of a reducer without a known identity (or of a form
        // the emitters do not read) cannot be judged: no note.
        if (!c || reducer == Reducer::kUnknown || c->identity) continue;
        why = "the init '" + init.name + "' = " + c->text +
              " is not the identity of its reducer (" + IdentityText(reducer) +
              ")";
      } else {
        why = "the init '" + init.name +
              "' is not a constant, so its value is unknown and may not be "
              "the identity of its reducer" +
              (reducer == Reducer::kUnknown
                   ? std::string()
                   : std::string(" (") + IdentityText(reducer) + ")");
      }
      notes.push_back(
          "reduce '" + in->name + "': " + why +
          ". XLA applies an init an implementation-defined number of times, "
          "so only the identity has one answer; " +
          (hero ? "this kernel applies it once per partial result, as XLA's "
                  "GPU reduction kernels do (each thread's partial, and "
                  "where partials are combined)"
                : "this kernel applies it once per output element (each "
                  "element's reduce runs whole in one thread)") +
          ".");
    }
  }
  return notes;
}

}  // namespace ixa::emit
