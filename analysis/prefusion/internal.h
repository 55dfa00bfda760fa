// Shared pieces of the pre-fusion passes: a module edit (instructions
// replaced by lines of HLO text, the module printed and read back) and the
// text of the shapes and instructions the passes write. Internal to
// analysis/prefusion.
#ifndef IXA_ANALYSIS_PREFUSION_INTERNAL_H_
#define IXA_ANALYSIS_PREFUSION_INTERNAL_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/hlo/module.h"
#include "analysis/prefusion/prefusion.h"

namespace ixa::prefusion {

// Instructions of one module replaced by lines of text. The last line of a
// replacement defines the replaced instruction's own name (so its users
// still read it), and takes `ROOT` when the instruction was its
// computation's root.
class ModuleEdit {
 public:
  explicit ModuleEdit(const hlo::Module& module);
  // A name no instruction of the module has yet: `base.suffix`, numbered
  // when taken.
  std::string NewName(const hlo::Instruction& base, const std::string& suffix);
  void Replace(const hlo::Instruction* instr, std::vector<std::string> lines);
  // A computation name no computation or instruction of the module has
  // yet: `stem`, numbered when taken.
  std::string NewComputationName(const std::string& stem);
  // A new computation (its whole text, `name {` ... `}`), printed before
  // the module's own: the expanders' reducers and comparators.
  void AddComputation(std::string text);
  // Drops an instruction whose users are all replaced or removed too (else
  // Apply's module does not read back). A removed root is an error of the
  // pass.
  void Remove(const hlo::Instruction* instr);
  bool empty() const { return replacements_.empty(); }
  // The module with the replacements, read back. An internal error when
  // the text does not read back (a pass wrote a wrong line).
  Result<std::unique_ptr<hlo::Module>> Apply(const std::string& pass) const;

 private:
  const hlo::Module& module_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<const hlo::Instruction*, std::vector<std::string>>
      replacements_;
  std::vector<std::string> new_computations_;
};

// The printed name of an instruction or computation.
std::string NameOf(const hlo::Instruction& instr);
std::string NameOf(const hlo::Computation& computation);
// A shape's text with its layout (the default one written out when the
// shape has none).
std::string ShapeText(const hlo::Shape& shape);
// An array shape with an explicit layout (minor to major).
hlo::Shape ArrayShape(hlo::ElementType type, std::vector<int64_t> dims,
                      std::vector<int64_t> minor_to_major);
// The default (descending) minor-to-major order of a rank.
std::vector<int64_t> DescendingLayout(int rank);
bool HasDescendingLayout(const hlo::Shape& shape);
// `name = shape opcode(operands), attributes`.
std::string Line(const std::string& name, const hlo::Shape& shape,
                 const std::string& opcode,
                 const std::vector<std::string>& operands,
                 const std::string& attributes = "");
// `{a,b,c}`.
std::string IntList(const std::vector<int64_t>& values);
// The lines replacing one instruction, each named after it and a suffix;
// Finish writes the last line, which defines the instruction's own name,
// and hands the lines to the edit. What the expanders build with.
class InstructionExpansion {
 public:
  InstructionExpansion(const hlo::Instruction& instr, ModuleEdit* edit)
      : instr_(instr), edit_(edit) {}
  // `name = shape opcode(operands), attributes`; returns the name.
  std::string Add(const std::string& suffix, const hlo::Shape& shape,
                  const std::string& opcode,
                  const std::vector<std::string>& operands,
                  const std::string& attributes = "");
  // A scalar constant of `type` with the literal's text.
  std::string Constant(const std::string& suffix, hlo::ElementType type,
                       const std::string& literal);
  // A scalar broadcast to `shape`, or an array along `dims` of it.
  std::string Broadcast(const std::string& suffix, const std::string& operand,
                        const hlo::Shape& shape,
                        const std::vector<int64_t>& dims = {});
  // The last line, of `shape` (or the instruction's own shape).
  void Finish(const hlo::Shape& shape, const std::string& opcode,
              const std::vector<std::string>& operands,
              const std::string& attributes = "");
  void Finish(const std::string& opcode,
              const std::vector<std::string>& operands,
              const std::string& attributes = "");

 private:
  const hlo::Instruction& instr_;
  ModuleEdit* edit_;
  std::vector<std::string> lines_;
};

// A reshape from `from` to `to` written as a bitcast where the layouts make
// it one (XLA's form after layout assignment), else as a reshape: both read
// the elements in row-major logical order.
std::string ReshapeOpcode(const hlo::Shape& from, const hlo::Shape& to);

// The parts of a reduce: k inputs, k inits, k output shapes.
struct ReduceParts {
  std::vector<const hlo::Instruction*> inputs, inits;
  std::vector<hlo::Shape> outputs;
};
// nullopt unless `instr` is a reduce of arrays with static dims, all its
// inputs of one shape (the reduces the passes rewrite).
std::optional<ReduceParts> GetReduceParts(const hlo::Instruction& instr);

// Lines of a reduce of `inputs` (names) over `dimensions` to `outputs`
// (one shape, or a tuple of them) named `name`, with `reduce`'s inits and
// reducer. A variadic reduce's outputs are also split into
// get-tuple-elements named `name.0`, ... (taken from `edit`) when
// `element_names` is given.
std::vector<std::string> ReduceLines(const hlo::Instruction& reduce,
                                     const std::string& name,
                                     const std::vector<std::string>& inputs,
                                     const std::vector<hlo::Shape>& outputs,
                                     const std::vector<int64_t>& dimensions,
                                     ModuleEdit* edit,
                                     std::vector<std::string>* element_names);

// Which computations a pass rewrites: those the fusions of the module
// call are past XLA's pipeline (a Triton GEMM fusion's dot, a custom
// fusion's reduce stay as they are); the reduce canonicalizations still
// rewrite the bodies of loop and input fusions, so that a plan of the
// module, which inlines them, gets reduces the emitters take.
enum class FusionBodies { kSkip, kRewriteLoopAndInput };
// The computations a pass leaves alone.
std::unordered_set<const hlo::Computation*> SkippedComputations(
    const hlo::Module& module, FusionBodies bodies);

// Runs `rewrite` (void(instr, edit, rewrites)) over every instruction of
// the computations the pass rewrites: it adds the replacements and the
// rewrites. Unchanged: module nullptr.
template <typename F>
Result<PassResult> RunPassOnce(const hlo::Module& module,
                               const std::string& pass, FusionBodies bodies,
                               F&& rewrite) {
  ModuleEdit edit(module);
  PassResult result;
  const std::unordered_set<const hlo::Computation*> skipped =
      SkippedComputations(module, bodies);
  for (const auto& computation : module.computations()) {
    if (skipped.count(computation.get())) continue;
    for (const hlo::Instruction* instr : computation->post_order()) {
      rewrite(*instr, &edit, &result.rewrites);
    }
  }
  if (edit.empty()) return result;
  IXA_ASSIGN_OR_RETURN(result.module, edit.Apply(pass));
  return result;
}

}  // namespace ixa::prefusion

#endif  // IXA_ANALYSIS_PREFUSION_INTERNAL_H_
