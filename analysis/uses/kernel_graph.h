// Kernels of an entry computation: which instructions run together as one
// kernel. fusion_decision and fusion_plan read the entry computation with
// its fusions inlined (FlattenFusions), so that every kernel, fused or not,
// is a group of instructions of one computation, a producer fused into a
// consumer is the union of their groups, and the same instruction may sit
// in several groups (a producer duplicated into each of its consumers).
#ifndef IXA_ANALYSIS_USES_KERNEL_GRAPH_H_
#define IXA_ANALYSIS_USES_KERNEL_GRAPH_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/fusion/fusion.h"
#include "analysis/hlo/module.h"

namespace ixa {

struct KernelGroup {
  std::string name;  // the entry instruction the kernel was
  std::vector<const hlo::Instruction*> members;  // operands before users
  const hlo::Instruction* root = nullptr;
  // A fusion (XLA's fused counting rules), or one plain instruction.
  bool is_fusion = false;
  // The fusion's `kind=` as written (kLoop, kInput, ...), if it was one.
  std::string fusion_kind;
};

// The region of a group: its members (already in post order), the root,
// and as parameters the operands from outside the group, in order of
// first use.
FusionRegion RegionOfGroup(const std::vector<const hlo::Instruction*>& members,
                           const hlo::Instruction* root);

struct FlatModule {
  std::unique_ptr<hlo::Module> module;
  std::string text;
  // Per entry instruction of the input, by name: its kernel in the flat
  // entry computation. An inlined fusion keeps its name on its root.
  std::unordered_map<std::string, KernelGroup> kernels;
  // The kernel each flat entry instruction belongs to (by its name).
  std::unordered_map<const hlo::Instruction*, std::string> kernel_of;
};

// The module with every fusion of the entry computation inlined: a
// fusion's instructions are named `<fusion>.<name>` (made unique), its
// root takes the fusion's name, its parameters become its operands. A
// custom fusion, a fusion whose root is a parameter, or one that calls no
// computation, stays as it is (a plain instruction). Instructions a fused
// computation does not use are dropped. Errors: a module the reader refuses
// once printed (an internal error).
Result<FlatModule> FlattenFusions(const hlo::Module& module);

// A region read from a flattened module, which it keeps alive.
struct FlatRegion {
  std::shared_ptr<const FlatModule> flat;  // null: nothing was inlined
  FusionRegion region;
};

// Named instructions of the entry computation analysed as one fusion (a
// producer and its consumer, as a fusion pass asks before it fuses), with
// every listed fusion inlined, so that the analyses see the instructions
// inside: a reduction fused in the producer makes the pair a reduction
// whatever part of its epilogue the consumer holds. The root is the
// kernel root of the listed instruction no other listed one uses; the
// parameters are the operands from outside the group in order of first
// use. Without a listed fusion it is RegionOfInstructions.
Result<FlatRegion> RegionOfEntryInstructions(
    const hlo::Module& module, const std::vector<std::string>& names);

}  // namespace ixa

#endif  // IXA_ANALYSIS_USES_KERNEL_GRAPH_H_
