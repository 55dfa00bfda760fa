// XLA's expanders: ops that XLA never emits as written, rewritten into
// plain HLO before the rest of its pipeline sees them (BatchNormExpander,
// TopkDecomposer, StochasticConvertDecomposer, SelectAndScatterExpander).
// Each writes the instructions XLA's pass creates, in its order and in its
// types, so that a compiled module computes what XLA's would. What a pass
// does not take (a type, a dynamic shape, a form XLA's pass refuses) stays
// as written.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "analysis/hlo/printer.h"
#include "analysis/prefusion/internal.h"

namespace ixa {
namespace {

using hlo::ElementType;
using hlo::Instruction;
using hlo::Shape;
using prefusion::IntList;
using prefusion::Line;
using prefusion::ModuleEdit;
using prefusion::NameOf;

// An array with static dims (the only ones the expanders rewrite).
bool IsStaticArray(const Shape& s) {
  return s.IsArray() && s.dynamic_mask == 0;
}

Shape ScalarOf(ElementType type) { return Shape::Array(type, {}); }

// `like` (its dims and layout) with another element type.
Shape WithType(const Shape& like, ElementType type) {
  Shape s = like;
  s.type = type;
  return s;
}

Shape TupleOf(std::vector<Shape> elements) {
  Shape s;
  s.type = ElementType::kTuple;
  s.tuple_elements = std::move(elements);
  return s;
}

std::string TypeName(ElementType t) { return hlo::ElementTypeName(t); }

std::optional<int64_t> IntAttribute(const Instruction& instr,
                                    const char* name) {
  if (!instr.HasAttribute(name)) return std::nullopt;
  const std::string raw = instr.Attribute(name);
  char* end = nullptr;
  const long long v = std::strtoll(raw.c_str(), &end, 10);
  if (raw.empty() || *end != '\0') return std::nullopt;
  return v;
}

// A float's exact value as text the reader takes back to the same float.
std::string ExactFloatText(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

using Expansion = prefusion::InstructionExpansion;

// The scalar computations the expanders share within one module (XLA's
// GetOrCreateScalarAddComputation): one add per element type.
class SharedReducers {
 public:
  std::string Add(ElementType type, ModuleEdit* edit) {
    auto it = add_.find(type);
    if (it != add_.end()) return it->second;
    const std::string t = TypeName(type);
    const std::string name =
        edit->NewComputationName("scalar_add_computation_" + t);
    edit->AddComputation(
        name + " {\n  lhs = " + t + "[] parameter(0)\n  rhs = " + t +
        "[] parameter(1)\n  ROOT sum = " + t + "[] add(lhs, rhs)\n}\n");
    add_[type] = name;
    return name;
  }

 private:
  std::map<ElementType, std::string> add_;
};

// The lines of a scalar computation applied inline to `arguments` (names,
// one per parameter), its instructions renamed `prefix` + their own name;
// `value` gets the name of the root's value. nullopt unless every
// instruction is a scalar one of its parameters (what a select or a
// comparator is).
std::optional<std::vector<std::string>> InlineScalarComputation(
    const hlo::Computation& computation,
    const std::vector<std::string>& arguments, const std::string& prefix,
    bool keep_root, std::string* value) {
  std::map<const Instruction*, std::string> names;
  for (const Instruction* instr : computation.post_order()) {
    if (!instr->shape.IsScalar()) return std::nullopt;
    if (instr->opcode == hlo::Opcode::kParameter) {
      if (instr->parameter_number < 0 ||
          instr->parameter_number >= static_cast<int64_t>(arguments.size())) {
        return std::nullopt;
      }
      names[instr] = arguments[instr->parameter_number];
    } else {
      names[instr] = prefix + NameOf(*instr);
    }
  }
  hlo::PrintNaming naming = hlo::SanitizedNaming();
  naming.instruction = [&](const Instruction* i) { return names.at(i); };
  std::vector<std::string> lines;
  for (const Instruction* instr : computation.post_order()) {
    if (instr->opcode == hlo::Opcode::kParameter) continue;
    const bool root = keep_root && instr == computation.root();
    lines.push_back(
        hlo::PrintInstruction(*instr, names.at(instr), naming, root));
  }
  *value = names.at(computation.root());
  if (keep_root && computation.root()->opcode == hlo::Opcode::kParameter) {
    // A comparator answering one of its parameters: still a root line.
    lines.push_back("ROOT " + prefix + "root = pred[] and(" + *value + ", " +
                    *value + ")");
  }
  return lines;
}

// --- BatchNormExpander -----------------------------------------------------

// What the three batch-norm ops share: the operand's type and shape, the
// feature dim, epsilon and the element count per feature.
struct BatchNormParts {
  ElementType type;
  Shape operand;  // the activations' shape (with its layout)
  Shape feature;  // [C]
  int64_t feature_index;
  float epsilon;
  int64_t per_feature;  // elements per feature (N)
  std::vector<int64_t> reduced_dims;
};

std::optional<BatchNormParts> GetBatchNormParts(const Instruction& instr,
                                                int operands) {
  if (instr.operand_count() != operands) return std::nullopt;
  const Shape& x = instr.operand(0)->shape;
  if (!IsStaticArray(x) || !hlo::IsStandardFloat(x.type)) return std::nullopt;
  std::optional<int64_t> feature = IntAttribute(instr, "feature_index");
  if (!feature || *feature < 0 || *feature >= x.rank()) return std::nullopt;
  if (!instr.HasAttribute("epsilon")) return std::nullopt;
  const std::string raw = instr.Attribute("epsilon");
  char* end = nullptr;
  // XLA keeps epsilon as a float.
  const float epsilon = std::strtof(raw.c_str(), &end);
  if (raw.empty() || *end != '\0') return std::nullopt;
  BatchNormParts p{x.type, x, instr.operand(1)->shape, *feature, epsilon,
                   1,      {}};
  // The feature-sized operands (scale, offset, mean, variance): [C] of
  // the operand's type; the activation-sized ones (grad_output) its shape.
  for (int i = 1; i < operands; ++i) {
    const Shape& s = instr.operand(i)->shape;
    const bool activation =
        instr.opcode == hlo::Opcode::kBatchNormGrad && i == 4;
    if (!IsStaticArray(s) || s.type != p.type) return std::nullopt;
    if (activation ? s.dims != x.dims
                   : (s.rank() != 1 || s.dims[0] != x.dims[*feature])) {
      return std::nullopt;
    }
  }
  // XLA multiplies the dims' sizes in s32 (DynamicElementCountPerFeature).
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d == *feature) continue;
    p.reduced_dims.push_back(d);
    if (x.dims[d] != 0 && p.per_feature > INT32_MAX / x.dims[d]) {
      return std::nullopt;
    }
    p.per_feature *= x.dims[d];
  }
  return p;
}

// The scalars every expansion starts with: epsilon as a float converted
// to the type (as XLA's literal conversion), N as s32 converted to it.
struct BatchNormScalars {
  std::string epsilon, count;
};

BatchNormScalars AddBatchNormScalars(Expansion& e, const BatchNormParts& p) {
  BatchNormScalars s;
  s.epsilon = e.Constant("epsilon", ElementType::kF32,
                         ExactFloatText(static_cast<double>(p.epsilon)));
  if (p.type != ElementType::kF32) {
    s.epsilon = e.Add("epsilon", ScalarOf(p.type), "convert", {s.epsilon});
  }
  const std::string n = e.Constant("elements_per_feature", ElementType::kS32,
                                   std::to_string(p.per_feature));
  s.count = e.Add("elements_per_feature", ScalarOf(p.type), "convert", {n});
  return s;
}

std::string ReduceOverOthers(Expansion& e, const BatchNormParts& p,
                             const std::string& suffix,
                             const std::string& operand,
                             const std::string& zero, const std::string& add) {
  return e.Add(suffix, p.feature, "reduce", {operand, zero},
               "dimensions=" + IntList(p.reduced_dims) + ", to_apply=" + add);
}

void ExpandBatchNormTraining(const Instruction& instr, ModuleEdit* edit,
                             SharedReducers* reducers,
                             std::vector<PrefusionRewrite>* rewrites) {
  std::optional<BatchNormParts> p = GetBatchNormParts(instr, 3);
  if (!p || !instr.shape.IsTuple() || instr.shape.tuple_elements.size() != 3) {
    return;
  }
  const std::string add = reducers->Add(p->type, edit);
  Expansion e(instr, edit);
  const Shape& x = p->operand;
  const std::vector<int64_t> f = {p->feature_index};
  const std::string operand = NameOf(*instr.operand(0));
  const BatchNormScalars s = AddBatchNormScalars(e, *p);
  const std::string zero = e.Constant("zero", p->type, "0");
  const std::string epsilon = e.Broadcast("epsilon", s.epsilon, x);
  const std::string count =
      e.Broadcast("elements_per_feature", s.count, p->feature);
  const std::string scale =
      e.Broadcast("scale", NameOf(*instr.operand(1)), x, f);
  const std::string offset =
      e.Broadcast("offset", NameOf(*instr.operand(2)), x, f);
  const std::string squared =
      e.Add("operand_squared", x, "multiply", {operand, operand});
  const std::string sum = ReduceOverOthers(e, *p, "sum", operand, zero, add);
  const std::string squared_sum =
      ReduceOverOthers(e, *p, "squared_sum", squared, zero, add);
  const std::string mean =
      e.Add("mean", instr.shape.tuple_elements[1], "divide", {sum, count});
  const std::string mean_b = e.Broadcast("mean", mean, x, f);
  const std::string square_mean =
      e.Add("square_mean", p->feature, "divide", {squared_sum, count});
  const std::string mean_square =
      e.Add("mean_square", p->feature, "multiply", {mean, mean});
  const std::string var = e.Add("var", instr.shape.tuple_elements[2],
                                "subtract", {square_mean, mean_square});
  const std::string var_b = e.Broadcast("var", var, x, f);
  const std::string var_eps =
      e.Add("var_add_epsilon", x, "add", {var_b, epsilon});
  const std::string rsqrt =
      e.Add("rsqrt_var_add_epsilon", x, "rsqrt", {var_eps});
  const std::string centered =
      e.Add("operand_minus_mean", x, "subtract", {operand, mean_b});
  const std::string normalized =
      e.Add("normalized", x, "multiply", {centered, rsqrt});
  const std::string scaled =
      e.Add("scaled_normalized", x, "multiply", {normalized, scale});
  const std::string shifted =
      e.Add("shifted_normalized", instr.shape.tuple_elements[0], "add",
            {scaled, offset});
  e.Finish(instr.shape, "tuple", {shifted, mean, var});
  rewrites->push_back(
      {"BatchNormExpander", instr.name,
       "batch-norm-training in " + TypeName(p->type) + " over feature dim " +
           std::to_string(p->feature_index) +
           ": mean = sum/N, var = sum(x^2)/N - mean^2, (x - mean) * "
           "rsqrt(var + epsilon) * scale + offset (N = " +
           std::to_string(p->per_feature) + ")"});
}

void ExpandBatchNormInference(const Instruction& instr, ModuleEdit* edit,
                              std::vector<PrefusionRewrite>* rewrites) {
  std::optional<BatchNormParts> p = GetBatchNormParts(instr, 5);
  if (!p || !IsStaticArray(instr.shape)) return;
  Expansion e(instr, edit);
  const Shape& x = p->operand;
  const std::vector<int64_t> f = {p->feature_index};
  std::string epsilon =
      e.Constant("epsilon", ElementType::kF32, ExactFloatText(p->epsilon));
  if (p->type != ElementType::kF32) {
    epsilon = e.Add("epsilon", ScalarOf(p->type), "convert", {epsilon});
  }
  epsilon = e.Broadcast("epsilon", epsilon, p->feature);
  const std::string var_eps = e.Add("var_add_epsilon", p->feature, "add",
                                    {NameOf(*instr.operand(4)), epsilon});
  const std::string rsqrt =
      e.Add("rsqrt_var_add_epsilon", p->feature, "rsqrt", {var_eps});
  const std::string true_scale = e.Add("true_scale", p->feature, "multiply",
                                       {NameOf(*instr.operand(1)), rsqrt});
  const std::string mean_scaled =
      e.Add("mean_times_scale", p->feature, "multiply",
            {NameOf(*instr.operand(3)), true_scale});
  const std::string true_shift =
      e.Add("true_shift", p->feature, "subtract",
            {NameOf(*instr.operand(2)), mean_scaled});
  const std::string scaled = e.Add(
      "scaled", x, "multiply",
      {NameOf(*instr.operand(0)), e.Broadcast("true_scale", true_scale, x, f)});
  e.Finish(instr.shape, "add",
           {scaled, e.Broadcast("true_shift", true_shift, x, f)});
  rewrites->push_back(
      {"BatchNormExpander", instr.name,
       "batch-norm-inference in " + TypeName(p->type) + " over feature dim " +
           std::to_string(p->feature_index) +
           ": x * s + (offset - mean * s) with s = scale * rsqrt(variance + "
           "epsilon)"});
}

void ExpandBatchNormGrad(const Instruction& instr, ModuleEdit* edit,
                         SharedReducers* reducers,
                         std::vector<PrefusionRewrite>* rewrites) {
  std::optional<BatchNormParts> p = GetBatchNormParts(instr, 5);
  if (!p || !instr.shape.IsTuple() || instr.shape.tuple_elements.size() != 3) {
    return;
  }
  const std::string add = reducers->Add(p->type, edit);
  Expansion e(instr, edit);
  const Shape& x = p->operand;
  const std::vector<int64_t> f = {p->feature_index};
  const std::string activation = NameOf(*instr.operand(0));
  const std::string grad_output = NameOf(*instr.operand(4));
  const BatchNormScalars s = AddBatchNormScalars(e, *p);
  const std::string zero = e.Constant("zero", p->type, "0");
  const std::string epsilon_activation = e.Broadcast("epsilon", s.epsilon, x);
  const std::string epsilon_feature =
      e.Broadcast("epsilon", s.epsilon, p->feature);
  const std::string scale_b =
      e.Broadcast("scale", NameOf(*instr.operand(1)), x, f);
  const std::string variance_b =
      e.Broadcast("variance", NameOf(*instr.operand(3)), x, f);
  const std::string mean_b =
      e.Broadcast("mean", NameOf(*instr.operand(2)), x, f);
  const std::string var_eps_b =
      e.Add("var_add_epsilon", x, "add", {variance_b, epsilon_activation});
  const std::string rsqrt_b =
      e.Add("rsqrt_var_add_epsilon", x, "rsqrt", {var_eps_b});
  const std::string var_eps_f =
      e.Add("var_add_epsilon", p->feature, "add",
            {NameOf(*instr.operand(3)), epsilon_feature});
  const std::string rsqrt_f =
      e.Add("rsqrt_var_add_epsilon", p->feature, "rsqrt", {var_eps_f});
  const std::string centered =
      e.Add("activation_minus_mean", x, "subtract", {activation, mean_b});
  const std::string grad_centered =
      e.Add("grad_output_times_activation_minus_mean", x, "multiply",
            {grad_output, centered});
  const std::string sum_grad_centered =
      ReduceOverOthers(e, *p, "sum_grad_output_times_activation_minus_mean",
                       grad_centered, zero, add);
  const std::string grad_beta =
      ReduceOverOthers(e, *p, "grad_beta", grad_output, zero, add);
  const std::string grad_scale =
      e.Add("grad_scale", instr.shape.tuple_elements[1], "multiply",
            {sum_grad_centered, rsqrt_f});
  const std::string i2 = e.Broadcast("i2", grad_beta, x, f);
  const std::string i3 = e.Broadcast("i3", sum_grad_centered, x, f);
  const std::string i4 = e.Add("i4", x, "multiply", {i3, centered});
  const std::string i5 = e.Add("i5", x, "divide", {i4, var_eps_b});
  const std::string count_b = e.Broadcast("elements_per_feature", s.count, x);
  std::string scale_rsqrt = e.Add("scale_times_rsqrt_var_add_epsilon", x,
                                  "multiply", {scale_b, rsqrt_b});
  scale_rsqrt = e.Add("scale_times_rsqrt_var_add_epsilon", x, "divide",
                      {scale_rsqrt, count_b});
  const std::string i1 = e.Add("i1", x, "multiply", {grad_output, count_b});
  const std::string i1_minus_i2 = e.Add("i1_minus_i2", x, "subtract", {i1, i2});
  const std::string i6 = e.Add("i6", x, "subtract", {i1_minus_i2, i5});
  const std::string grad_activation =
      e.Add("grad_activation", instr.shape.tuple_elements[0], "multiply",
            {scale_rsqrt, i6});
  e.Finish(instr.shape, "tuple", {grad_activation, grad_scale, grad_beta});
  rewrites->push_back(
      {"BatchNormExpander", instr.name,
       "batch-norm-grad in " + TypeName(p->type) + " over feature dim " +
           std::to_string(p->feature_index) +
           ": grad_beta = sum(dy), grad_scale = sum(dy * (x - mean)) * "
           "rsqrt(var + epsilon), grad_activation = scale * rsqrt(var + "
           "epsilon) / N * (N * dy - grad_beta - (x - mean) * sum(dy * (x - "
           "mean)) / (var + epsilon))"});
}

// --- TopkDecomposer --------------------------------------------------------

// XLA's CreateScalarGtComputation / CreateScalarLtComputation over
// (values, s32 indices): the values compared alone, in total order for
// floats.
std::string AddTopkComparator(const Instruction& instr, ElementType type,
                              bool largest, ModuleEdit* edit) {
  const std::string name =
      edit->NewComputationName("comparator_" + NameOf(instr));
  const std::string t = TypeName(type);
  const bool is_float = hlo::IsStandardFloat(type);
  edit->AddComputation(
      name + " {\n  p.0.lhs = " + t + "[] parameter(0)\n  p.0.rhs = " + t +
      "[] parameter(1)\n  p.1.lhs = s32[] parameter(2)\n  p.1.rhs = s32[] "
      "parameter(3)\n  ROOT compare = pred[] compare(p.0.lhs, p.0.rhs), "
      "direction=" +
      (largest ? "GT" : "LT") + (is_float ? ", type=TOTALORDER" : "") +
      "\n}\n");
  return name;
}

// A custom call's own comparator of the values alone (two parameters),
// made one over (values, s32 indices) that ignores the indices.
std::optional<std::string> AddWidenedComparator(const Instruction& instr,
                                                const hlo::Computation& cmp,
                                                ElementType type,
                                                ModuleEdit* edit) {
  const std::string name =
      edit->NewComputationName("comparator_" + NameOf(instr));
  const std::string t = TypeName(type);
  std::string value;
  std::optional<std::vector<std::string>> body = InlineScalarComputation(
      cmp, {"p.0.lhs", "p.0.rhs"}, "cmp.", /*keep_root=*/true, &value);
  if (!body) return std::nullopt;
  std::string text = name + " {\n  p.0.lhs = " + t +
                     "[] parameter(0)\n  p.0.rhs = " + t +
                     "[] parameter(1)\n  p.1.lhs = s32[] parameter(2)\n  "
                     "p.1.rhs = s32[] parameter(3)\n";
  for (const std::string& l : *body) text += "  " + l + "\n";
  edit->AddComputation(text + "}\n");
  return name;
}

void DecomposeTopk(const Instruction& instr, ModuleEdit* edit,
                   std::vector<PrefusionRewrite>* rewrites) {
  const bool is_call = instr.opcode == hlo::Opcode::kCustomCall;
  if (is_call) {
    if (instr.Attribute("custom_call_target") != "\"TopK\"" &&
        instr.Attribute("custom_call_target") != "TopK") {
      return;
    }
  } else if (instr.opcode != hlo::Opcode::kTopK) {
    return;
  }
  if (instr.operand_count() != 1 || !instr.shape.IsTuple() ||
      instr.shape.tuple_elements.size() != 2) {
    return;
  }
  const Shape& input = instr.operand(0)->shape;
  const Shape& values = instr.shape.tuple_elements[0];
  const Shape& indices = instr.shape.tuple_elements[1];
  if (!IsStaticArray(input) || input.rank() < 1 || !IsStaticArray(values) ||
      !IsStaticArray(indices) || indices.type != ElementType::kS32 ||
      values.type != input.type || values.rank() != input.rank() ||
      indices.dims != values.dims) {
    return;
  }
  const int last = input.rank() - 1;
  for (int d = 0; d < last; ++d) {
    if (values.dims[d] != input.dims[d]) return;
  }
  const int64_t k = values.dims[last];
  if (k > input.dims[last]) return;
  if (!is_call) {
    std::optional<int64_t> attr = IntAttribute(instr, "k");
    if (!attr || *attr != k) return;
  }
  const bool largest = is_call || !instr.HasAttribute("largest") ||
                       instr.Attribute("largest") == "true";
  std::string comparator;
  std::string order;
  const hlo::Computation* own = is_call ? instr.called() : nullptr;
  if (own && own->parameter_count() == 4) {
    comparator = NameOf(*own);
    order = "the call's comparator " + comparator;
  } else if (own && own->parameter_count() == 2) {
    std::optional<std::string> widened =
        AddWidenedComparator(instr, *own, input.type, edit);
    if (!widened) return;
    comparator = *widened;
    order = "the call's comparator " + NameOf(*own);
  } else if (own) {
    return;
  } else {
    comparator = AddTopkComparator(instr, input.type, largest, edit);
    order = std::string(largest ? "GT" : "LT") +
            (hlo::IsStandardFloat(input.type) ? " in total order" : "");
  }
  Expansion e(instr, edit);
  const Shape iota_shape = WithType(input, ElementType::kS32);
  const std::string iota = e.Add("iota", iota_shape, "iota", {},
                                 "iota_dimension=" + std::to_string(last));
  const std::string sort =
      e.Add("sort", TupleOf({input, iota_shape}), "sort",
            {NameOf(*instr.operand(0)), iota},
            "dimensions={" + std::to_string(last) +
                "}, is_stable=true, to_apply=" + comparator);
  std::vector<std::string> slices;
  for (int j = 0; j < 2; ++j) {
    const std::string element =
        e.Add("sorted", j == 0 ? input : iota_shape, "get-tuple-element",
              {sort}, "index=" + std::to_string(j));
    std::string slice = "slice={";
    for (int d = 0; d < input.rank(); ++d) {
      slice += (d ? ",[0:" : "[0:") + std::to_string(values.dims[d]) + "]";
    }
    slices.push_back(e.Add(j == 0 ? "values" : "indices",
                           instr.shape.tuple_elements[j], "slice", {element},
                           slice + "}"));
  }
  e.Finish(instr.shape, "tuple", slices);
  rewrites->push_back({"TopkDecomposer", instr.name,
                       "a stable sort of (values, s32 iota) along dim " +
                           std::to_string(last) + " by " + order +
                           ", then the first " + std::to_string(k) +
                           " of each"});
}

// --- StochasticConvertDecomposer -------------------------------------------

// The rounded value of integer `v` in float type `t` (XLA's MakeScalarLike
// converts the integer literal): round to nearest even, past the type's
// range infinity.
double IntegerAsFloat(int64_t v, ElementType t) {
  if (t == ElementType::kF64) return static_cast<double>(v);
  const double f = static_cast<double>(static_cast<float>(v));
  if (t == ElementType::kF32) return f;
  // f16: 11 significant bits, largest finite 65504; bf16: 8 bits (the
  // values here fit its range).
  const int bits = t == ElementType::kF16 ? 11 : 8;
  const double a = std::fabs(f);
  if (a == 0) return f;
  const int exponent = std::ilogb(a);
  const double quantum = std::ldexp(1.0, exponent - (bits - 1));
  double r = std::nearbyint(a / quantum) * quantum;  // ties to even
  if (t == ElementType::kF16 && r > 65504) r = INFINITY;
  return f < 0 ? -r : r;
}

void DecomposeStochasticConvert(const Instruction& instr, ModuleEdit* edit,
                                std::vector<PrefusionRewrite>* rewrites) {
  if (instr.opcode != hlo::Opcode::kStochasticConvert ||
      instr.operand_count() != 2) {
    return;
  }
  const Shape& x = instr.operand(0)->shape;
  const Shape& random = instr.operand(1)->shape;
  const ElementType from = x.type, to = instr.shape.type;
  // XLA's pass converts to signed integers only (anything else is its
  // "Unsupported stochastic convert").
  if (!IsStaticArray(x) || !IsStaticArray(random) ||
      !IsStaticArray(instr.shape) || !hlo::IsStandardFloat(from) ||
      !hlo::IsWholeByteUnsigned(random.type) ||
      hlo::ElementBits(random.type) != hlo::ElementBits(from) ||
      random.dims != x.dims || instr.shape.dims != x.dims ||
      !hlo::IsWholeByteSigned(to)) {
    return;
  }
  Expansion e(instr, edit);
  const std::string operand = NameOf(*instr.operand(0));
  const Shape pred = WithType(x, ElementType::kPred);
  const Shape ints = WithType(instr.shape, to);
  const std::string sign = e.Add("sign", x, "sign", {operand});
  const std::string zero =
      e.Broadcast("zero", e.Constant("zero", from, "0"), x);
  const std::string should_neg =
      e.Add("should_neg", pred, "compare", {sign, zero}, "direction=LT");
  const std::string abs = e.Add("abs", x, "abs", {operand});
  const std::string truncated_fp = e.Add("truncated_fp", x, "floor", {abs});
  std::string fractional =
      e.Add("fractional", x, "subtract", {abs, truncated_fp});
  // f16's fraction is widened to f32 first (XLA: no precision lost).
  ElementType fraction_type = from;
  if (from == ElementType::kF16) {
    fraction_type = ElementType::kF32;
    fractional = e.Add("fractional", WithType(x, fraction_type), "convert",
                       {fractional});
  }
  const int bits = hlo::ElementBits(random.type);
  const std::string scale =
      e.Broadcast("two_to_bits",
                  e.Constant("two_to_bits", fraction_type,
                             ExactFloatText(std::ldexp(1.0, bits))),
                  WithType(x, fraction_type));
  const std::string fixed =
      e.Add("fixed_fractional", WithType(x, fraction_type), "multiply",
            {fractional, scale});
  const std::string fixed_bits =
      e.Add("fixed_fractional", random, "convert", {fixed});
  const std::string round_up =
      e.Add("should_round_up", pred, "compare",
            {NameOf(*instr.operand(1)), fixed_bits}, "direction=LT");
  const std::string truncated_int =
      e.Add("truncated_int", ints, "convert", {truncated_fp});
  const std::string one = e.Broadcast("one", e.Constant("one", to, "1"), ints);
  const std::string plus_one =
      e.Add("truncated_int_plus_one", ints, "add", {truncated_int, one});
  const std::string rounded =
      e.Add("rounded", ints, "select", {round_up, plus_one, truncated_int});
  const std::string negated = e.Add("negated", ints, "negate", {rounded});
  const std::string result =
      e.Add("signed", ints, "select", {should_neg, negated, rounded});
  const int to_bits = hlo::ElementBits(to);
  const int64_t min =
      to_bits == 64 ? INT64_MIN : -(int64_t{1} << (to_bits - 1));
  const int64_t max =
      to_bits == 64 ? INT64_MAX : (int64_t{1} << (to_bits - 1)) - 1;
  const std::string min_fp = e.Broadcast(
      "min", e.Constant("min", from, ExactFloatText(IntegerAsFloat(min, from))),
      x);
  const std::string is_min =
      e.Add("is_min", pred, "compare", {operand, min_fp}, "direction=LE");
  const std::string min_int =
      e.Broadcast("min", e.Constant("min", to, std::to_string(min)), ints);
  const std::string clamped_low =
      e.Add("clamped_min", ints, "select", {is_min, min_int, result});
  const std::string max_fp = e.Broadcast(
      "max", e.Constant("max", from, ExactFloatText(IntegerAsFloat(max, from))),
      x);
  const std::string is_max =
      e.Add("is_max", pred, "compare", {operand, max_fp}, "direction=GE");
  const std::string max_int =
      e.Broadcast("max", e.Constant("max", to, std::to_string(max)), ints);
  e.Finish(instr.shape, "select", {is_max, max_int, clamped_low});
  rewrites->push_back(
      {"StochasticConvertDecomposer", instr.name,
       TypeName(from) + " to " + TypeName(to) +
           ": |x| truncated, plus one where the random bits are below its "
           "fraction times 2^" +
           std::to_string(bits) +
           ", the sign put back, saturated to the integer range (NaN gives "
           "0)"});
}

// --- SelectAndScatterExpander ----------------------------------------------

const hlo::Computation* CalledByAttribute(const Instruction& instr,
                                          const char* attribute) {
  const std::string want = instr.Attribute(attribute);
  for (const hlo::Computation* c : instr.called_computations) {
    if (want == c->name() || want == "%" + c->name()) return c;
  }
  return nullptr;
}

// XLA's reduce-window reducer over (value, one s32 index per dim) pairs:
// the select computation inlined, an index of -1 marking the init (and
// the padding), which is never kept over a real element.
std::optional<std::string> AddSelectReducer(const hlo::Computation& select,
                                            ElementType type, int rank,
                                            ModuleEdit* edit) {
  const std::string name =
      edit->NewComputationName(NameOf(select) + ".reduce_window");
  const std::string t = TypeName(type) + "[]";
  std::vector<std::string> lines;
  lines.push_back("operand_lhs = " + t + " parameter(0)");
  for (int d = 0; d < rank; ++d) {
    lines.push_back("iota_lhs." + std::to_string(d) + " = s32[] parameter(" +
                    std::to_string(1 + d) + ")");
  }
  lines.push_back("operand_rhs = " + t + " parameter(" +
                  std::to_string(rank + 1) + ")");
  for (int d = 0; d < rank; ++d) {
    lines.push_back("iota_rhs." + std::to_string(d) + " = s32[] parameter(" +
                    std::to_string(rank + 2 + d) + ")");
  }
  lines.push_back("neg_one = s32[] constant(-1)");
  lines.push_back(
      "lhs_first_in_window = pred[] compare(iota_lhs.0, neg_one), "
      "direction=NE");
  lines.push_back(
      "rhs_first_in_window = pred[] compare(iota_rhs.0, neg_one), "
      "direction=NE");
  lines.push_back("rhs_not_first_in_window = pred[] not(rhs_first_in_window)");
  std::string selected;
  std::optional<std::vector<std::string>> body = InlineScalarComputation(
      select, {"operand_lhs", "operand_rhs"}, "select.", false, &selected);
  if (!body || !select.root()->shape.IsScalar() ||
      select.root()->shape.type != ElementType::kPred) {
    return std::nullopt;
  }
  for (std::string& l : *body) lines.push_back(std::move(l));
  lines.push_back("keep_lhs = pred[] and(" + selected +
                  ", lhs_first_in_window)");
  lines.push_back("keep = pred[] or(keep_lhs, rhs_not_first_in_window)");
  lines.push_back("value = " + t + " select(keep, operand_lhs, operand_rhs)");
  std::string tuple_shape = "(" + t;
  std::string tuple_operands = "value";
  for (int d = 0; d < rank; ++d) {
    const std::string i = std::to_string(d);
    lines.push_back("index." + i + " = s32[] select(keep, iota_lhs." + i +
                    ", iota_rhs." + i + ")");
    tuple_shape += ", s32[]";
    tuple_operands += ", index." + i;
  }
  lines.push_back("ROOT result = " + tuple_shape + ") tuple(" + tuple_operands +
                  ")");
  std::string text = name + " {\n";
  for (const std::string& l : lines) text += "  " + l + "\n";
  edit->AddComputation(text + "}\n");
  return name;
}

void ExpandSelectAndScatter(const Instruction& instr, ModuleEdit* edit,
                            std::vector<PrefusionRewrite>* rewrites) {
  if (instr.opcode != hlo::Opcode::kSelectAndScatter ||
      instr.operand_count() != 3) {
    return;
  }
  const Shape& operand = instr.operand(0)->shape;
  const Shape& source = instr.operand(1)->shape;
  const Shape& init = instr.operand(2)->shape;
  const hlo::Computation* select = CalledByAttribute(instr, "select");
  const hlo::Computation* scatter = CalledByAttribute(instr, "scatter");
  const int rank = operand.rank();
  if (!IsStaticArray(operand) || !IsStaticArray(source) || !init.IsScalar() ||
      !IsStaticArray(instr.shape) || rank < 1 || source.rank() != rank ||
      init.type != operand.type || select == nullptr || scatter == nullptr ||
      static_cast<int>(instr.window.size()) != rank ||
      !instr.HasAttribute("window")) {
    return;
  }
  // XLA's select-and-scatter windows have no dilation or reversal.
  for (const hlo::WindowDim& w : instr.window) {
    if (w.base_dilation != 1 || w.window_dilation != 1 || w.reversal) return;
  }
  std::optional<std::string> reducer =
      AddSelectReducer(*select, operand.type, rank, edit);
  if (!reducer) return;
  Expansion e(instr, edit);
  const Shape iota_shape = WithType(operand, ElementType::kS32);
  const Shape reduced_iota = WithType(source, ElementType::kS32);
  std::vector<std::string> inputs = {NameOf(*instr.operand(0))};
  std::vector<std::string> inits = {NameOf(*instr.operand(2))};
  std::vector<Shape> shapes = {source};
  const std::string neg_one = e.Constant("neg_one", ElementType::kS32, "-1");
  for (int d = 0; d < rank; ++d) {
    inputs.push_back(e.Add("iota", iota_shape, "iota", {},
                           "iota_dimension=" + std::to_string(d)));
    inits.push_back(neg_one);
    shapes.push_back(reduced_iota);
  }
  inputs.insert(inputs.end(), inits.begin(), inits.end());
  const std::string window =
      e.Add("reduce_window", TupleOf(shapes), "reduce-window", inputs,
            "window=" + instr.Attribute("window") + ", to_apply=" + *reducer);
  std::vector<int64_t> column = source.dims;
  column.push_back(1);
  std::vector<std::string> columns;
  for (int d = 0; d < rank; ++d) {
    const std::string index =
        e.Add("selected_index", reduced_iota, "get-tuple-element", {window},
              "index=" + std::to_string(d + 1));
    columns.push_back(e.Add("selected_index",
                            Shape::Array(ElementType::kS32, column), "reshape",
                            {index}));
  }
  std::vector<int64_t> indices_dims = source.dims;
  indices_dims.push_back(rank);
  const std::string indices = e.Add(
      "indices", Shape::Array(ElementType::kS32, indices_dims), "concatenate",
      columns, "dimensions={" + std::to_string(rank) + "}");
  const std::string filled = e.Broadcast("init", NameOf(*instr.operand(2)),
                                         WithType(instr.shape, operand.type));
  std::vector<int64_t> all(rank);
  for (int d = 0; d < rank; ++d) all[d] = d;
  e.Finish(instr.shape, "scatter", {filled, indices, NameOf(*instr.operand(1))},
           "update_window_dims={}, inserted_window_dims=" + IntList(all) +
               ", scatter_dims_to_operand_dims=" + IntList(all) +
               ", index_vector_dim=" + std::to_string(rank) +
               ", to_apply=" + NameOf(*scatter));
  rewrites->push_back(
      {"SelectAndScatterExpander", instr.name,
       "a variadic reduce-window over (operand, one s32 iota per dim) "
       "with " +
           NameOf(*select) + " as " + *reducer +
           " picks each window's element, then a scatter of the source onto "
           "the init-filled operand with " +
           NameOf(*scatter)});
}

}  // namespace

Result<PassResult> ExpandBatchNorms(const hlo::Module& module) {
  SharedReducers reducers;
  return prefusion::RunPassOnce(
      module, "BatchNormExpander", prefusion::FusionBodies::kSkip,
      [&](const Instruction& instr, ModuleEdit* edit,
          std::vector<PrefusionRewrite>* rewrites) {
        switch (instr.opcode) {
          case hlo::Opcode::kBatchNormTraining:
            ExpandBatchNormTraining(instr, edit, &reducers, rewrites);
            break;
          case hlo::Opcode::kBatchNormInference:
            ExpandBatchNormInference(instr, edit, rewrites);
            break;
          case hlo::Opcode::kBatchNormGrad:
            ExpandBatchNormGrad(instr, edit, &reducers, rewrites);
            break;
          default:
            break;
        }
      });
}

Result<PassResult> DecomposeTopks(const hlo::Module& module) {
  return prefusion::RunPassOnce(module, "TopkDecomposer",
                                prefusion::FusionBodies::kSkip, DecomposeTopk);
}

Result<PassResult> DecomposeStochasticConverts(const hlo::Module& module) {
  return prefusion::RunPassOnce(module, "StochasticConvertDecomposer",
                                prefusion::FusionBodies::kSkip,
                                DecomposeStochasticConvert);
}

Result<PassResult> ExpandSelectAndScatters(const hlo::Module& module) {
  return prefusion::RunPassOnce(module, "SelectAndScatterExpander",
                                prefusion::FusionBodies::kSkip,
                                ExpandSelectAndScatter);
}

}  // namespace ixa
