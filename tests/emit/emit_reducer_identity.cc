// The reducer identities fed to reduce inits (emit_interpreter.h's
// FeedReducerIdentities), kept apart from the interpreter proper: they
// are a property of the test inputs, not of the ops' semantics.
#include <cmath>
#include <limits>
#include <optional>

#include "tests/emit/emit_interpreter.h"

namespace ixa::emit_test {

using hlo::Instruction;

namespace {

// The identity of a reducer whose root is one binary op of its two scalar
// parameters, as a literal of `type`; nullopt for any other reducer.
std::optional<Literal> ReducerIdentity(const hlo::Computation& reducer,
                                       ElementType type) {
  const Instruction* root = reducer.root();
  if (reducer.parameter_count() != 2 || root->operand_count() != 2 ||
      root->operand(0)->opcode != hlo::Opcode::kParameter ||
      root->operand(1)->opcode != hlo::Opcode::kParameter ||
      root->operand(0) == root->operand(1)) {
    return std::nullopt;
  }
  const hlo::Opcode op = root->opcode;
  Literal id = Literal::Make(type, {});
  if (IsComplex(type)) {
    // Complex numbers have no order (no maximum / minimum) and no bits.
    if (op != hlo::Opcode::kAdd && op != hlo::Opcode::kMultiply)
      return std::nullopt;
    id.floats = {op == hlo::Opcode::kAdd ? 0.0 : 1.0, 0.0};
    return id;
  }
  const bool is_float = IsFloat(type);
  const int bits = Bits(type);
  auto set_int = [&](uint64_t v) { id.ints[0] = WrapToType(v, type); };
  auto set_float = [&](double v) { id.floats[0] = v; };
  double inf = std::numeric_limits<double>::infinity();
  // An f8 type without infinities: its largest value (NaN would spread).
  if (IsF8(type) && !F8HasInfinity(type)) inf = F8Max(type);
  if (IsF4(type)) inf = F4Decode(7);
  // Signed: the sign bit alone is the lowest value, all but it the highest.
  const uint64_t sign_bit =
      bits >= 64 ? uint64_t{1} << 63 : uint64_t{1} << (bits - 1);
  if (op == hlo::Opcode::kAdd || op == hlo::Opcode::kOr ||
      op == hlo::Opcode::kXor) {
    is_float ? set_float(0) : set_int(0);
  } else if (op == hlo::Opcode::kMultiply) {
    is_float ? set_float(1) : set_int(1);
  } else if (op == hlo::Opcode::kAnd) {
    set_int(~uint64_t{0});
  } else if (op == hlo::Opcode::kMaximum) {
    if (type == ElementType::kF8E8M0FNU) {
      set_float(std::ldexp(1.0, -127));  // the smallest value (no negatives)
    } else if (is_float) {
      set_float(-inf);
    } else {
      set_int(type == ElementType::kPred || IsUnsigned(type) ? 0 : sign_bit);
    }
  } else if (op == hlo::Opcode::kMinimum) {
    if (is_float) {
      set_float(inf);
    } else {
      set_int(type == ElementType::kPred || IsUnsigned(type) ? ~uint64_t{0}
                                                             : sign_bit - 1);
    }
  } else {
    return std::nullopt;
  }
  return id;
}

}  // namespace

void FeedReducerIdentities(const hlo::Computation& computation,
                           std::vector<Literal>* arguments) {
  for (const Instruction* in : computation.post_order()) {
    if (in->opcode != hlo::Opcode::kReduce || !in->called()) continue;
    const int inputs = in->operand_count() / 2;
    for (int k = inputs; k < in->operand_count(); ++k) {
      const Instruction* init = in->operand(k);
      if (init->opcode != hlo::Opcode::kParameter || !init->shape.IsArray() ||
          init->shape.rank() != 0 ||
          init->parameter_number >= static_cast<int64_t>(arguments->size())) {
        continue;
      }
      auto id = ReducerIdentity(*in->called(), init->shape.type);
      if (id) (*arguments)[init->parameter_number] = *std::move(id);
    }
  }
}

}  // namespace ixa::emit_test
