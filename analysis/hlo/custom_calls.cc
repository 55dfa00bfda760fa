#include "analysis/hlo/custom_calls.h"

#include <cctype>
#include <cstdlib>
#include <string_view>

namespace ixa::hlo {
namespace {

// The list of integers after `"key":` in JSON-like text (`["1"]`, `[1, 2]`
// or `[]`), or nullopt when the key is absent or the list malformed.
std::optional<std::vector<int64_t>> IntListAfterKey(std::string_view text,
                                                    std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  size_t pos = text.find(quoted);
  if (pos == std::string_view::npos) return std::nullopt;
  pos = text.find('[', pos + quoted.size());
  const size_t end = text.find(']', pos);
  if (pos == std::string_view::npos || end == std::string_view::npos) {
    return std::nullopt;
  }
  std::vector<int64_t> out;
  std::string digits;
  for (size_t i = pos + 1; i <= end; ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if (c == ',' || c == ']') {
      if (!digits.empty()) out.push_back(std::stoll(digits));
      digits.clear();
    } else if (c != '"' && c != ' ' && c != '\\') {
      return std::nullopt;
    }
  }
  return out;
}

// The number after `key` (quoted or not, escaped quotes allowed) in text.
std::optional<int64_t> NumberAfterKey(std::string_view text,
                                      std::string_view key) {
  size_t pos = text.find(key);
  while (pos != std::string_view::npos) {
    size_t i = pos + key.size();
    while (i < text.size() && (text[i] == '"' || text[i] == '\\' ||
                               text[i] == ':' || text[i] == ' ')) {
      ++i;
    }
    size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))
      ++j;
    if (j > i && j - i <= 18)
      return std::stoll(std::string(text.substr(i, j - i)));
    pos = text.find(key, pos + 1);
  }
  return std::nullopt;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string CustomCallTarget(const Instruction& instr) {
  if (instr.opcode != Opcode::kCustomCall) return "";
  std::string t = instr.Attribute("custom_call_target");
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') {
    t = t.substr(1, t.size() - 2);
  }
  return t;
}

LibraryCallKind GetLibraryCallKind(const Instruction& instr) {
  const std::string target = CustomCallTarget(instr);
  if (target == "__cublas$gemm" || target == "__cublas$lt$matmul" ||
      target == "__cublas$lt$matmul$f8") {
    return LibraryCallKind::kCublasGemm;
  }
  if (target == "__cudnn$convForward")
    return LibraryCallKind::kCudnnConvForward;
  if (StartsWith(target, "__cudnn$")) return LibraryCallKind::kCudnnOther;
  return LibraryCallKind::kNone;
}

bool IsCudnnConvolution(const Instruction& instr) {
  const std::string target = CustomCallTarget(instr);
  return target == "__cudnn$convForward" ||
         target == "__cudnn$convForwardGraph" ||
         target == "__cudnn$convBackwardInput" ||
         target == "__cudnn$convBackwardFilter" ||
         target == "__cudnn$convBiasActivationForward";
}

const Shape& LibraryCallResultShape(const Instruction& instr) {
  if (instr.shape.IsTuple() && !instr.shape.tuple_elements.empty()) {
    return instr.shape.tuple_elements[0];
  }
  return instr.shape;
}

std::optional<DotDimensionNumbers> GemmDotDimensions(const Instruction& instr) {
  if (GetLibraryCallKind(instr) != LibraryCallKind::kCublasGemm) {
    return std::nullopt;
  }
  const std::string config = instr.Attribute("backend_config");
  DotDimensionNumbers dn;
  auto lc = IntListAfterKey(config, "lhs_contracting_dimensions");
  auto rc = IntListAfterKey(config, "rhs_contracting_dimensions");
  if (!lc || !rc) return std::nullopt;
  dn.lhs_contracting = *lc;
  dn.rhs_contracting = *rc;
  dn.lhs_batch = IntListAfterKey(config, "lhs_batch_dimensions")
                     .value_or(std::vector<int64_t>());
  dn.rhs_batch = IntListAfterKey(config, "rhs_batch_dimensions")
                     .value_or(std::vector<int64_t>());
  return dn;
}

std::unique_ptr<Instruction> LibraryCallAsOp(const Instruction& instr) {
  const LibraryCallKind kind = GetLibraryCallKind(instr);
  if (instr.operand_count() < 2) return nullptr;
  auto op = std::make_unique<Instruction>();
  op->name = instr.name;
  op->shape = LibraryCallResultShape(instr);
  op->operands = {instr.operand(0), instr.operand(1)};
  op->parent = instr.parent;
  op->line = instr.line;
  op->column = instr.column;
  if (kind == LibraryCallKind::kCublasGemm) {
    auto dn = GemmDotDimensions(instr);
    if (!dn) return nullptr;
    const Shape &lhs = instr.operand(0)->shape, &rhs = instr.operand(1)->shape;
    auto in_range = [](const std::vector<int64_t>& dims, const Shape& s) {
      for (int64_t d : dims) {
        if (d < 0 || d >= s.rank()) return false;
      }
      return true;
    };
    if (!lhs.IsArray() || !rhs.IsArray() || !op->shape.IsArray() ||
        !in_range(dn->lhs_contracting, lhs) || !in_range(dn->lhs_batch, lhs) ||
        !in_range(dn->rhs_contracting, rhs) || !in_range(dn->rhs_batch, rhs) ||
        dn->lhs_contracting.size() != dn->rhs_contracting.size() ||
        dn->lhs_batch.size() != dn->rhs_batch.size() ||
        op->shape.rank() !=
            lhs.rank() + rhs.rank() - static_cast<int>(dn->lhs_batch.size()) -
                2 * static_cast<int>(dn->lhs_contracting.size())) {
      return nullptr;
    }
    op->opcode = Opcode::kDot;
    op->dot = *dn;
    return op;
  }
  if (kind == LibraryCallKind::kCudnnConvForward) {
    return ConvCallAsConvolution(instr);
  }
  return nullptr;
}

namespace {

bool IsForwardConvCall(const Instruction& instr) {
  const std::string target = CustomCallTarget(instr);
  return target == "__cudnn$convForward" ||
         target == "__cudnn$convBiasActivationForward";
}

}  // namespace

std::unique_ptr<Instruction> ConvCallAsConvolution(const Instruction& instr) {
  if (!IsForwardConvCall(instr) || !instr.conv || instr.operand_count() < 2) {
    return nullptr;
  }
  auto op = std::make_unique<Instruction>();
  op->name = instr.name;
  op->shape = LibraryCallResultShape(instr);
  op->operands = {instr.operand(0), instr.operand(1)};
  op->parent = instr.parent;
  op->line = instr.line;
  op->column = instr.column;
  op->opcode = Opcode::kConvolution;
  op->window = instr.window;
  op->conv = std::make_unique<const ConvDimensionNumbers>(*instr.conv);
  op->feature_group_count = instr.feature_group_count;
  op->batch_group_count = instr.batch_group_count;
  for (const char* a :
       {"window", "dim_labels", "feature_group_count", "batch_group_count"}) {
    if (instr.HasAttribute(a)) op->attributes[a] = instr.Attribute(a);
  }
  return op;
}

namespace {

// The value after `"key":` in the config (quoted or not), its quotes and
// escapes dropped; "" when absent.
std::string ValueAfterKey(std::string_view text, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  size_t at = text.find(quoted);
  if (at == std::string_view::npos) {
    at = text.find("\\" + quoted.substr(0, quoted.size() - 1) + "\\\"");
    if (at == std::string_view::npos) return "";
  }
  at = text.find(':', at);
  if (at == std::string_view::npos) return "";
  const size_t end = text.find_first_of(",}", at);
  std::string v(text.substr(at + 1, end == std::string_view::npos
                                        ? std::string_view::npos
                                        : end - at - 1));
  std::erase_if(v, [](char c) { return c == ' ' || c == '"' || c == '\\'; });
  return v;
}

// The number after `"key":` in the config, or `fallback` when the key is
// absent; false when the value is not a number.
bool NumberOrDefault(std::string_view config, std::string_view key,
                     double fallback, double* out) {
  const std::string v = ValueAfterKey(config, key);
  if (v.empty()) {
    *out = fallback;
    return true;
  }
  char* end = nullptr;
  *out = std::strtod(v.c_str(), &end);
  return end != nullptr && *end == '\0';
}

}  // namespace

std::optional<GemmCallSemantics> GemmCallSemanticsOf(const Instruction& instr) {
  if (GetLibraryCallKind(instr) != LibraryCallKind::kCublasGemm) {
    return std::nullopt;
  }
  GemmCallSemantics s;
  const std::string config = instr.Attribute("backend_config");
  auto number = [&](std::string_view key, double fallback, double* out) {
    return NumberOrDefault(config, key, fallback, out);
  };
  if (!number("alpha_real", 1, &s.alpha) ||
      !number("alpha_imag", 0, &s.alpha_imag) || !number("beta", 0, &s.beta)) {
    s.unsupported = "alpha or beta is not a number";
    return s;
  }
  std::string epilogue = ValueAfterKey(config, "epilogue");
  if (epilogue == "DEFAULT") epilogue.clear();
  s.epilogue = epilogue;
  // XLA's epilogues without an auxiliary output: BIAS and an activation,
  // either or both.
  using Activation = GemmCallSemantics::Activation;
  std::string rest = epilogue;
  if (rest == "GELU_AUX" || rest == "BIAS_GELU_AUX") {
    s.aux = true;
    rest = rest.substr(0, rest.size() - 4);
  }
  const bool bias = rest.rfind("BIAS", 0) == 0;
  if (bias) rest = rest.substr(rest.size() > 4 && rest[4] == '_' ? 5 : 4);
  if (rest == "RELU") {
    s.activation = Activation::kRelu;
  } else if (rest == "GELU") {
    s.activation = Activation::kGelu;
  } else if (rest == "SILU") {
    s.activation = Activation::kSilu;
  } else if (!rest.empty()) {
    s.unsupported =
        "epilogue " + epilogue +
        (epilogue.find("AUX") != std::string::npos ? " (an auxiliary output)"
                                                   : "");
    return s;
  }
  if (CustomCallTarget(instr) == "__cublas$lt$matmul$f8") {
    s.unsupported = "f8 scale operands";
    return s;
  }
  if (s.alpha_imag != 0) {
    s.unsupported = "a complex alpha";
    return s;
  }
  int next = 2;
  if (s.beta != 0) s.c_operand = next++;
  if (bias) s.bias_operand = next++;
  if (instr.operand_count() != next) {
    s.unsupported = std::to_string(instr.operand_count()) +
                    " operands where beta " + (s.beta != 0 ? "!= 0" : "0") +
                    " and epilogue " +
                    (epilogue.empty() ? "DEFAULT" : epilogue) + " take " +
                    std::to_string(next);
    return s;
  }
  const Shape& d = LibraryCallResultShape(instr);
  if (s.c_operand >= 0 && (!instr.operand(s.c_operand)->shape.IsArray() ||
                           instr.operand(s.c_operand)->shape.dims != d.dims)) {
    s.unsupported = "a C operand whose shape is not the result's";
    return s;
  }
  if (s.aux &&
      (!instr.shape.IsTuple() || instr.shape.tuple_elements.size() < 2 ||
       !instr.shape.tuple_elements[1].IsArray() ||
       instr.shape.tuple_elements[1].dims != d.dims)) {
    s.unsupported = "an auxiliary output whose shape is not the result's";
    return s;
  }
  if (s.bias_operand >= 0) {
    const Shape& b = instr.operand(s.bias_operand)->shape;
    if (!b.IsArray() || b.rank() != 1 || d.rank() < 1 ||
        b.dims[0] != d.dims.back()) {
      s.unsupported = "a bias that is not a vector along the result's last dim";
      return s;
    }
  }
  return s;
}

std::optional<ConvCallSemantics> ConvCallSemanticsOf(const Instruction& instr) {
  if (!IsForwardConvCall(instr)) return std::nullopt;
  ConvCallSemantics s;
  if (!instr.conv || instr.conv->has_unlabeled) {
    s.unsupported = "no dim_labels for its convolution";
    return s;
  }
  const std::string config = instr.Attribute("backend_config");
  auto number = [&](std::string_view key, double fallback, double* out) {
    return NumberOrDefault(config, key, fallback, out);
  };
  if (!number("conv_result_scale", 1, &s.conv_result_scale) ||
      !number("side_input_scale", 0, &s.side_input_scale) ||
      !number("leakyrelu_alpha", 0, &s.leakyrelu_alpha)) {
    s.unsupported = "a scale that is not a number";
    return s;
  }
  // The activation as its name (XLA's JSON) or its number (stream
  // executor's dnn::ActivationMode); kReluX (4) and kBandPass (6) have no
  // plain-op form here.
  using Activation = ConvCallSemantics::Activation;
  struct ActivationMode {
    const char* name;
    const char* number;
    Activation activation;
  };
  static constexpr ActivationMode kModes[] = {
      {"kNone", "0", Activation::kNone},
      {"kSigmoid", "1", Activation::kSigmoid},
      {"kRelu", "2", Activation::kRelu},
      {"kRelu6", "3", Activation::kRelu6},
      {"kTanh", "5", Activation::kTanh},
      {"kElu", "7", Activation::kElu},
      {"kLeakyRelu", "8", Activation::kLeakyRelu},
      {"kGeluExact", "9", Activation::kGeluExact},
  };
  const std::string mode = ValueAfterKey(config, "activation_mode");
  const ActivationMode* found = nullptr;
  for (const ActivationMode& m : kModes) {
    if (mode.empty() || mode == m.name || mode == m.number) {
      found = &m;
      break;
    }
  }
  if (found == nullptr) {
    s.unsupported = "activation " + mode;
    return s;
  }
  s.activation = found->activation;
  const Shape& result = LibraryCallResultShape(instr);
  if (CustomCallTarget(instr) == "__cudnn$convForward") {
    if (instr.operand_count() != 2) {
      s.unsupported = std::to_string(instr.operand_count()) +
                      " operands where a convolution takes 2";
    } else if (s.conv_result_scale != 1 || s.activation != Activation::kNone) {
      s.unsupported = "a scale or an activation on a plain convolution";
    }
    return s;
  }
  if (instr.operand_count() != 3 && instr.operand_count() != 4) {
    s.unsupported = std::to_string(instr.operand_count()) +
                    " operands where a fused convolution takes 3 or 4";
    return s;
  }
  s.bias_operand = 2;
  const Shape& bias = instr.operand(2)->shape;
  if (!bias.IsArray() || bias.rank() != 1 || !result.IsArray() ||
      instr.conv->output_feature >= result.rank() ||
      bias.dims[0] != result.dims[instr.conv->output_feature]) {
    s.unsupported = "a bias that is not a vector along the output features";
    return s;
  }
  if (instr.operand_count() == 4) {
    const Shape& side = instr.operand(3)->shape;
    if (!side.IsArray() || side.dims != result.dims) {
      s.unsupported = "a side input whose shape is not the result's";
      return s;
    }
    s.side_input_operand = 3;
  }
  return s;
}

CustomCallCostEstimate GetCustomCallCostEstimate(const Instruction& instr) {
  CustomCallCostEstimate out;
  const std::string config = instr.Attribute("backend_config");
  const size_t at = config.find("cost_estimate_json");
  if (at == std::string::npos) return out;
  const std::string_view rest = std::string_view(config).substr(at);
  out.flops = NumberAfterKey(rest, "flops");
  out.bytes_accessed = NumberAfterKey(rest, "bytes_accessed");
  return out;
}

}  // namespace ixa::hlo
