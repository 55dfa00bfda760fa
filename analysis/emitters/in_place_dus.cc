// The in-place dynamic-update-slice emitter (docs/xla-reference.md §(h)
// h.3 step 7, h.6): the fusion writes the update into its operand buffer,
// one thread per update element; the operand itself is never read.
#include <algorithm>
#include <deque>

#include "analysis/emitters/internal.h"

namespace ixa::emitters {
namespace {

using hlo::Opcode;

bool SameShape(const hlo::Shape& a, const hlo::Shape& b) {
  return a.Compatible(b) && a.MinorToMajor() == b.MinorToMajor();
}

std::vector<const Instruction*> StartIndices(const Instruction& instr,
                                             int first) {
  return std::vector<const Instruction*>(instr.operands.begin() + first,
                                         instr.operands.end());
}

// CanEmitFusedDynamicUpdateSliceInPlaceForGpu for one DUS.
bool UpdatesInPlace(const FusionInfo& info, const Instruction* dus,
                    const hlo::Shape& update_shape) {
  // A single path of bitcasts to the root.
  const Instruction* node = dus;
  while (true) {
    std::vector<const Instruction*> users;
    for (const Instruction* u : info.UsersInside(node)) {
      if (u->opcode != Opcode::kTuple) users.push_back(u);
    }
    if (users.empty()) break;
    if (users.size() != 1 || users[0]->opcode != Opcode::kBitcast) return false;
    node = users[0];
  }
  // Operand 0 is a parameter (through at most one bitcast).
  const Instruction* operand = dus->operand(0);
  if (operand->opcode == Opcode::kBitcast && info.IsInside(operand)) {
    operand = operand->operand(0);
  }
  if (info.ParameterIndex(operand) < 0) return false;
  // Every reader of the parameter reads the element being updated only
  // through the same slice.
  std::deque<const Instruction*> queue = {operand};
  std::unordered_set<const Instruction*> visited = {operand, dus};
  while (!queue.empty()) {
    const Instruction* instr = queue.front();
    queue.pop_front();
    for (const Instruction* user : info.UsersInside(instr)) {
      if (user->opcode == Opcode::kDynamicSlice &&
          user->operand(0) == dus->operand(0) &&
          SameShape(user->shape, update_shape)) {
        if (update_shape.ElementCount() != 1 &&
            StartIndices(*user, 1) != StartIndices(*dus, 2)) {
          return false;
        }
      } else if (user != dus && !hlo::IsElementwiseOpcode(user->opcode) &&
                 user->opcode != Opcode::kBitcast &&
                 user->opcode != Opcode::kTuple) {
        return false;
      }
      if (visited.insert(user).second) queue.push_back(user);
    }
  }
  return SameShape(dus->operand(1)->shape, update_shape);
}

}  // namespace

std::vector<const Instruction*> InPlaceDynamicUpdateSlices(
    const FusionInfo& info) {
  std::vector<const Instruction*> dus;
  for (const Instruction* root : info.roots) {
    const Instruction* r = root;
    while (r->opcode == Opcode::kBitcast && info.IsInside(r)) r = r->operand(0);
    if (r->opcode != Opcode::kDynamicUpdateSlice || !info.IsInside(r) ||
        r->operand_count() < 2) {
      return {};
    }
    dus.push_back(r);
  }
  const hlo::Shape& update_shape = dus[0]->operand(1)->shape;
  for (const Instruction* d : dus) {
    if (!UpdatesInPlace(info, d, update_shape)) return {};
  }
  return dus;
}

Result<PlanDraft> BuildInPlaceDusPlan(
    const FusionInfo& info, const std::vector<const Instruction*>& dus,
    const hw::Device& device, ExprContext* ctx) {
  PlanDraft draft;
  EmitterPlan& plan = draft.plan;
  plan.kind = EmitterKind::kInPlaceDynamicUpdateSlice;
  const hlo::Shape& update = dus[0]->operand(1)->shape;
  IXA_ASSIGN_OR_RETURN(plan.launch,
                       CalculateLaunchDimensions(update, device, {}));
  IXA_ASSIGN_OR_RETURN(IndexingMap map,
                       DefaultThreadMap(plan.launch, 1, update, ctx));
  for (size_t k = 0; k < info.roots.size(); ++k) {
    RootDraft rd;
    rd.plan.root = info.roots[k];
    rd.plan.output = static_cast<int>(k);
    rd.plan.hero = dus[k];
    for (int i = 0; i < dus[k]->operand_count(); ++i) {
      rd.plan.hero_operand_maps.push_back(i == 1 ? std::optional(map)
                                                 : std::nullopt);
      // Operand 0 is updated in place (never read); the start indices are
      // scalars every thread reads.
      rd.reads.push_back(i == 0   ? OperandRead::kNotRead
                         : i == 1 ? OperandRead::kMap
                                  : OperandRead::kAnyThread);
    }
    draft.roots.push_back(std::move(rd));
  }
  return draft;
}

}  // namespace ixa::emitters
