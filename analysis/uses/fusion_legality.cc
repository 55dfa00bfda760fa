#include "analysis/uses/fusion_legality.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

namespace ixa {
namespace {

using hlo::Instruction;
using hlo::Opcode;

LegalityVerdict Refuse(std::string rule, std::string reason) {
  return {false, std::move(rule), std::move(reason)};
}

bool IsParameterOf(const FusionRegion& region, const Instruction* i) {
  return std::find(region.parameters.begin(), region.parameters.end(), i) !=
         region.parameters.end();
}

std::vector<const Instruction*> Inside(const FusionRegion& region) {
  std::vector<const Instruction*> out;
  for (const Instruction* m : region.members) {
    if (!IsParameterOf(region, m) && m->opcode != Opcode::kParameter) {
      out.push_back(m);
    }
  }
  return out;
}

bool IsElementwiseLike(const Instruction& i) {
  return XlaIsElementwise(i) || i.opcode == Opcode::kBitcast ||
         i.opcode == Opcode::kTuple || i.opcode == Opcode::kGetTupleElement;
}

// The roots of a kernel: the root tuple's operands, else the root.
std::vector<const Instruction*> Roots(const FusionRegion& region) {
  if (region.root->opcode == Opcode::kTuple) return region.root->operands;
  return {region.root};
}

bool IsScatterKernel(const LegalityKernel& k) {
  for (const Instruction* r : Roots(*k.region)) {
    if (r->opcode == Opcode::kScatter) return true;
  }
  return false;
}

bool HasSignificantReduce(const LegalityKernel& k) {
  for (const Instruction* m : Inside(*k.region)) {
    if (m->opcode != Opcode::kReduce || !m->shape.IsArray() ||
        m->operand_count() < 1) {
      continue;
    }
    const int64_t out = m->shape.ElementCount();
    const int64_t in = m->operand(0)->shape.ElementCount();
    if (out > 0 && in / out >= 16) return true;
  }
  return false;
}

int64_t SubshapeCount(const hlo::Shape& shape) {
  int64_t n = 1;
  for (const hlo::Shape& e : shape.tuple_elements) n += SubshapeCount(e);
  return n;
}

int64_t OperandCount(const LegalityKernel& k) {
  return k.is_fusion ? static_cast<int64_t>(k.region->parameters.size())
                     : k.region->root->operand_count();
}

// The consumer's slots holding the producer (or one of its tuple elements).
bool IsProducerValue(const Instruction* value, const Instruction* producer) {
  return value == producer ||
         (value->opcode == Opcode::kGetTupleElement &&
          value->operand_count() == 1 && value->operand(0) == producer);
}

// The buffers the consumer updates in place: operand 0 of a
// dynamic-update-slice root (through bitcasts) and operands [0, n) of a
// scatter root that come from outside the kernel.
std::vector<const Instruction*> InPlaceBuffers(const LegalityKernel& c,
                                               const Instruction** dus_out) {
  std::vector<const Instruction*> out;
  for (const Instruction* r : Roots(*c.region)) {
    while (r->opcode == Opcode::kBitcast && r->operand_count() == 1 &&
           !IsParameterOf(*c.region, r->operand(0))) {
      r = r->operand(0);
    }
    if (r->opcode == Opcode::kDynamicUpdateSlice && r->operand_count() >= 2) {
      const Instruction* buffer = r->operand(0);
      while (buffer->opcode == Opcode::kBitcast &&
             buffer->operand_count() == 1 &&
             !IsParameterOf(*c.region, buffer) && c.is_fusion) {
        buffer = buffer->operand(0);
      }
      if (IsParameterOf(*c.region, buffer)) {
        out.push_back(buffer);
        if (dus_out) *dus_out = r;
      }
    } else if (r->opcode == Opcode::kScatter && r->operand_count() >= 3) {
      const int m = (r->operand_count() - 1) / 2;
      for (int i = 0; i < m; ++i) {
        if (IsParameterOf(*c.region, r->operand(i))) {
          out.push_back(r->operand(i));
        }
      }
    }
  }
  return out;
}

// A non-elementwise op of the consumer reached from `from` through its
// users inside the consumer.
bool ReachesNonElementwise(const LegalityKernel& c, const Instruction* from) {
  std::unordered_set<const Instruction*> inside;
  for (const Instruction* m : Inside(*c.region)) inside.insert(m);
  std::deque<const Instruction*> queue = {from};
  std::unordered_set<const Instruction*> seen = {from};
  while (!queue.empty()) {
    const Instruction* n = queue.front();
    queue.pop_front();
    for (const Instruction* u : n->users) {
      if (!inside.count(u) || !seen.insert(u).second) continue;
      if (!IsElementwiseLike(*u)) return true;
      queue.push_back(u);
    }
  }
  return false;
}

bool SameIndices(const Instruction& a, int a_first, const Instruction& b,
                 int b_first) {
  if (a.operand_count() - a_first != b.operand_count() - b_first) return false;
  for (int i = 0; a_first + i < a.operand_count(); ++i) {
    const Instruction* x = a.operand(a_first + i);
    const Instruction* y = b.operand(b_first + i);
    if (x == y) continue;
    if (x->opcode == Opcode::kConstant && y->opcode == Opcode::kConstant &&
        x->int_value && y->int_value && *x->int_value == *y->int_value) {
      continue;
    }
    return false;
  }
  return true;
}

LegalityVerdict CheckInPlace(const LegalityKernel& p, const LegalityKernel& c) {
  const Instruction* dus = nullptr;
  const Instruction* producer = p.region->root;
  for (const Instruction* buffer : InPlaceBuffers(c, &dus)) {
    if (!c.is_fusion) {
      int uses = 0;
      for (const Instruction* o : c.region->root->operands) uses += o == buffer;
      if (uses > 1) {
        return Refuse("in_place",
                      "the in-place operand '" + buffer->name +
                          "' is also another operand of the consumer");
      }
    }
    const bool reads = IsParameterOf(*p.region, buffer);
    if (producer != buffer && !reads) continue;
    std::vector<const Instruction*> non_elementwise;
    for (const Instruction* m : Inside(*p.region)) {
      if (!IsElementwiseLike(*m)) non_elementwise.push_back(m);
    }
    if (non_elementwise.size() > 1) {
      return Refuse("in_place", "the producer of the in-place operand '" +
                                    buffer->name +
                                    "' has more than one non-elementwise op");
    }
    if (non_elementwise.empty()) {
      for (const Instruction* slot : c.region->parameters) {
        if (IsProducerValue(slot, producer) && ReachesNonElementwise(c, slot)) {
          return Refuse("in_place",
                        "the elementwise producer feeds a non-elementwise op "
                        "of the consumer, which updates '" +
                            buffer->name + "' in place");
        }
      }
      continue;
    }
    int dus_count = 0;
    for (const Instruction* m : Inside(*c.region)) {
      dus_count += m->opcode == Opcode::kDynamicUpdateSlice;
    }
    if (dus_count > 1) {
      return Refuse("in_place",
                    "the consumer has several dynamic-update-slices on its "
                    "in-place operand");
    }
    if (dus_count == 0 || !dus) continue;
    const Instruction* op = non_elementwise[0];
    const hlo::Shape& update = dus->operand(1)->shape;
    if (op->opcode == Opcode::kSlice) {
      bool ok = op->shape.dims == update.dims;
      for (size_t d = 0; ok && d < op->slice.size(); ++d) {
        const hlo::SliceDim& s = op->slice[d];
        const Instruction* index = dus->operand(2 + static_cast<int>(d));
        ok = s.stride == 1 && index->opcode == Opcode::kConstant &&
             index->int_value && *index->int_value == s.start;
      }
      if (ok) continue;
      return Refuse("in_place",
                    "the producer slices the in-place operand elsewhere than "
                    "the consumer updates it");
    }
    if (op->opcode == Opcode::kDynamicSlice) {
      if (op->shape.dims == update.dims && SameIndices(*op, 1, *dus, 2)) {
        continue;
      }
      return Refuse("in_place",
                    "the producer's dynamic-slice does not read exactly the "
                    "elements the consumer updates in place");
    }
    return Refuse("in_place", "the producer's '" + OpcodeName(*op) +
                                  "' reads the operand the consumer updates "
                                  "in place");
  }
  return {};
}

}  // namespace

bool IsFusibleKernel(const LegalityKernel& k) {
  if (k.is_fusion) return !k.custom_fusion;
  const Instruction& x = *k.region->root;
  if (x.opcode == Opcode::kBitcastConvert) {
    return x.operand_count() == 1 &&
           hlo::ElementBits(x.shape.type) ==
               hlo::ElementBits(x.operand(0)->shape.type);
  }
  if (XlaIsElementwise(x)) return true;
  if (x.opcode == Opcode::kBitcast) return XlaIsFusibleBitcast(x);
  return hlo::OpcodeIn(
      x.opcode,
      {Opcode::kCopy, Opcode::kIota, Opcode::kConstant, Opcode::kReduce,
       Opcode::kBitcast, Opcode::kBroadcast, Opcode::kConcatenate,
       Opcode::kDynamicSlice, Opcode::kDynamicUpdateSlice, Opcode::kGather,
       Opcode::kPad, Opcode::kReduceWindow, Opcode::kReshape, Opcode::kReverse,
       Opcode::kScatter, Opcode::kSlice, Opcode::kTranspose});
}

LegalityVerdict CheckFusionLegality(
    const LegalityKernel& p, const LegalityKernel& c,
    const Instruction* computation_root, const hw::Device& device,
    const std::function<EmitterKind()>& merged_kind) {
  const Instruction* producer = p.region->root;
  if (producer == computation_root) {
    return Refuse("root",
                  "the producer is the computation's root (values after the "
                  "root may feed an outfeed)");
  }
  if (!IsFusibleKernel(p)) {
    return Refuse("not_fusible", "the producer ('" + OpcodeName(*producer) +
                                     "') is not fusible");
  }
  if (!IsFusibleKernel(c)) {
    return Refuse(
        "not_fusible",
        "the consumer ('" + OpcodeName(*c.region->root) + "') is not fusible");
  }
  if (!c.is_fusion && XlaIsFusibleBitcast(*c.region->root)) {
    return Refuse("bitcast_consumer",
                  "a lone bitcast consumer: bitcasts fuse only as producers");
  }
  if (IsScatterKernel(p)) {
    return Refuse("scatter", "do not fuse into the output of a scatter");
  }
  if (IsScatterKernel(c)) {
    for (const Instruction* r : Roots(*c.region)) {
      if (r->opcode != Opcode::kScatter || r->operand_count() < 3) continue;
      const int m = (r->operand_count() - 1) / 2;
      for (int i = 0; i < m; ++i) {
        const Instruction* buffer = r->operand(i);
        if (buffer == producer || IsParameterOf(*p.region, buffer)) {
          return Refuse("scatter",
                        "the producer is, or reads, the operand the scatter "
                        "updates in place");
        }
      }
    }
  }
  if (HasSignificantReduce(p) && HasSignificantReduce(c)) {
    return Refuse("reduce_into_reduce",
                  "both kernels hold a significant reduce (no tiling "
                  "analysis for reduce into reduce)");
  }
  if (p.launch->own_plan_is_reduction && merged_kind() == EmitterKind::kLoop) {
    return Refuse("reduction_epilogue",
                  "the producer's reduction would be emitted as a loop in "
                  "the fused kernel");
  }
  const int64_t smem = p.launch->shared_memory_budget_bytes +
                       c.launch->shared_memory_budget_bytes;
  if (smem > device.shared_memory_per_block) {
    return Refuse("budget_shared_memory",
                  "the kernels need " + std::to_string(smem) +
                      " bytes of shared memory, more than the " +
                      std::to_string(device.shared_memory_per_block) +
                      " of a block");
  }
  if (p.launch->unnested_reductions + c.launch->unnested_reductions >
      kXlaMaxUnnestedReductionsPerFusion) {
    return Refuse("budget_reductions",
                  "more than 8 reductions in one kernel (register spills)");
  }
  const int64_t outputs = SubshapeCount(p.region->root->shape) +
                          SubshapeCount(c.region->root->shape);
  if (OperandCount(c) + OperandCount(p) - 1 + outputs >
      kXlaMaxOperandsAndOutputsPerFusion) {
    std::unordered_set<const Instruction*> operands(
        p.region->parameters.begin(), p.region->parameters.end());
    operands.insert(c.region->parameters.begin(), c.region->parameters.end());
    operands.erase(producer);
    operands.erase(c.region->root);
    const int64_t n = static_cast<int64_t>(operands.size());
    if (n > OperandCount(c) &&
        n + outputs > kXlaMaxOperandsAndOutputsPerFusion) {
      return Refuse("budget_operands",
                    std::to_string(n) + " operands and " +
                        std::to_string(outputs) +
                        " output buffers exceed the budget of 96 per kernel");
    }
  }
  float replication = 1;
  if (c.is_fusion) {
    for (const Instruction* slot : c.region->parameters) {
      if (IsProducerValue(slot, producer)) {
        replication = c.analysis->TimesEmitted(slot);
        break;
      }
    }
  }
  const double merged_ir = static_cast<double>(p.analysis->ir_size) *
                               static_cast<double>(replication) +
                           static_cast<double>(c.analysis->ir_size);
  if (merged_ir > kXlaMaxIrSize) {
    return Refuse("ir_size",
                  "the fused kernel's code would be " +
                      std::to_string(static_cast<int64_t>(merged_ir)) +
                      " ops, over the limit of 10000 (overly large "
                      "code duplication)");
  }
  return CheckInPlace(p, c);
}

}  // namespace ixa
