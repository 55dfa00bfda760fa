// Bad HLO robustness: mutated versions of docs/indexing.md's HLO examples
// (truncated at every position, characters flipped, lines duplicated or
// dropped) go through the reader and every indexing entry point. Each must
// answer ok or a clean error (parse_error with a line and column,
// invalid_argument, unsupported, limit_exceeded): never a crash, an internal
// error or a hang. Fixed seed; scaled down when IXA_SANITIZED=1.
#include <cstdlib>
#include <random>

#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

const std::vector<std::string>& Examples() {
  static const auto* examples = new std::vector<std::string>{
      R"(HloModule m
ENTRY e {
  p0 = f32[10, 20] parameter(0)
  p1 = f32[10, 20] parameter(1)
  ROOT add = f32[10, 20] add(p0, p1)
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[20] parameter(0)
  ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1}
})",
      R"(HloModule m
ENTRY e {
  src = s32[2,2,258] parameter(0)
  of1 = s32[] parameter(1)
  of2 = s32[] parameter(2)
  of3 = s32[] parameter(3)
  ROOT ds = dynamic-slice(s32[2,2,258] src, s32[] of1, s32[] of2, s32[] of3), dynamic_slice_sizes={1, 2, 32}
})",
      R"(HloModule m
ENTRY e {
  src = s32[20,30] parameter(0)
  upd = s32[5,10] parameter(1)
  of1 = s32[] parameter(2)
  of2 = s32[] parameter(3)
  ROOT dus = s32[20,30] dynamic-update-slice(s32[20,30] src, s32[5,10] upd, s32[] of1, s32[] of2)
})",
      R"(HloModule m
ENTRY e {
  operand = f32[33,76,70] parameter(0)
  indices = s32[1806,2] parameter(1)
  ROOT gather = f32[1806,7,8,4] gather(operand, indices), offset_dims={1,2,3},
    collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={7,8,4}
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[3, 12288, 6, 128] parameter(0)
  ROOT transpose = f32[3, 6, 128, 12288] transpose(p0), dimensions={0, 2, 3, 1}
})",
      R"(HloModule m
max {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  m = f32[] maximum(a, c)
  n = s32[] maximum(b, d)
  ROOT t = (f32[], s32[]) tuple(m, n)
}
ENTRY e {
  p0 = f32[256,10] parameter(0)
  p0_init = f32[] constant(-inf)
  p1 = s32[256,10] parameter(1)
  p1_init = s32[] constant(0)
  ROOT reduce = (f32[10], s32[10]) reduce(p0, p1, p0_init, p1_init), dimensions={0}, to_apply=max
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[10, 20, 50] parameter(0)
  ROOT slice = f32[5, 3, 25] slice(f32[10, 20, 50] p0), slice={[5:10:1], [3:20:7], [0:50:2]}
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[4, 8, 12] parameter(0)
  r = f32[32, 3, 4] reshape(p0)
  ROOT b = f32[4, 3, 32]{0,1,2} bitcast(r)
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[2, 5, 7] parameter(0)
  p1 = f32[2, 11, 7] parameter(1)
  p2 = f32[2, 17, 7] parameter(2)
  ROOT concat = f32[2, 33, 7] concatenate(p0, p1, p2), dimensions={1}
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[4, 128, 256] parameter(0)
  p1 = f32[4, 256, 64] parameter(1)
  ROOT dot = f32[4, 128, 64] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0},
    lhs_contracting_dims={2}, rhs_contracting_dims={1}
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[4, 4] parameter(0)
  p1 = f32[] parameter(1)
  ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
})",
      R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  c_inf = f32[] constant(-inf)
  p0 = f32[13, 17] parameter(0)
  ROOT reduce-window = f32[7, 17] reduce-window(p0, c_inf), window={size=3x2 stride=2x1 pad=1_1x0_1}, to_apply=max
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[1,12,10,24] parameter(0)
  p1 = f32[4,3,5,48] parameter(1)
  ROOT conv = f32[1,10,6,48] convolution(p0, p1), window={size=3x5 pad=0_0x0_0}, dim_labels=b01f_i01o->b01f, feature_group_count=6
})",
      R"(HloModule m
f {
  p0 = f32[20, 10, 50] parameter(0)
  lhs_transpose_1 = f32[10, 20, 50] transpose(p0), dimensions={1, 0, 2}
  lhs_e = f32[10, 20, 50] exponential(lhs_transpose_1)
  lhs_transpose_2 = f32[10, 50, 20] transpose(lhs_e), dimensions={0, 2, 1}
  rhs_transpose_1 = f32[50, 10, 20] transpose(p0), dimensions={2, 1, 0}
  rhs_log = f32[50, 10, 20] exponential(rhs_transpose_1)
  rhs_transpose_2 = f32[10, 50, 20] transpose(rhs_log), dimensions={1, 0, 2}
  ROOT add = f32[10, 50, 20] add(lhs_transpose_2, rhs_transpose_2)
}
ENTRY e {
  a = f32[20, 10, 50] parameter(0)
  ROOT fu = f32[10, 50, 20] fusion(a), kind=kLoop, calls=f
})",
      R"(HloModule m
ENTRY e {
  p0 = f32[2, 4] parameter(0)
  ROOT ag = f32[8, 4] all-gather(p0), dimensions={0}, replica_groups={{0,1,2,3}}
})",
  };
  return *examples;
}

bool Sanitized() {
  const char* v = std::getenv("IXA_SANITIZED");
  return v && std::string(v) == "1";
}

int64_t g_parsed_ok = 0, g_rejected = 0;

void ExpectCleanError(const Error& e, bool from_parser) {
  INFO(e.ToString());
  const bool clean = e.code == ErrorCode::kParseError ||
                     e.code == ErrorCode::kInvalidArgument ||
                     e.code == ErrorCode::kUnsupported ||
                     (!from_parser && e.code == ErrorCode::kLimitExceeded);
  REQUIRE(clean);
  if (e.code == ErrorCode::kParseError) {
    CHECK(e.line > 0);
    CHECK(e.column > 0);
  }
}

// Parses `text`; when it parses, asks every indexing question of every
// entry instruction and of the fusion analysis.
void Probe(const std::string& text) {
  INFO("HLO:\n" << text);
  auto module = hlo::ParseHloModule(text);
  if (!module.ok()) {
    ++g_rejected;
    ExpectCleanError(module.error(), true);
    return;
  }
  ++g_parsed_ok;
  ExprContext ctx;
  for (const hlo::Instruction* in : (*module)->entry()->post_order()) {
    INFO("instruction " << in->name);
    const int outputs =
        in->shape.IsTuple()
            ? std::max<int>(1,
                            static_cast<int>(in->shape.tuple_elements.size()))
            : 1;
    for (int j = 0; j <= outputs; ++j) {  // one past the end: invalid
      auto r = ComputeOutputToInputIndexing(*in, j, &ctx);
      if (!r.ok()) ExpectCleanError(r.error(), false);
    }
    for (int k = -1; k <= in->operand_count(); ++k) {
      auto r = ComputeInputToOutputIndexing(*in, k, &ctx);
      if (!r.ok()) ExpectCleanError(r.error(), false);
    }
  }
  auto region = ResolveFusion(**module, "");
  if (!region.ok()) {
    ExpectCleanError(region.error(), false);
    return;
  }
  auto params = ComputeFusionParameterIndexing(*region, 0, &ctx);
  if (!params.ok()) ExpectCleanError(params.error(), false);
}

TEST_CASE("hlo fuzz: truncation at every position", "[hlo][fuzz]") {
  const size_t step = Sanitized() ? 5 : 1;
  for (const std::string& text : Examples()) {
    for (size_t n = 0; n < text.size(); n += step) Probe(text.substr(0, n));
  }
}

TEST_CASE("hlo fuzz: flipped characters", "[hlo][fuzz]") {
  std::mt19937_64 rng(20240611);
  const std::string alphabet =
      "0123456789-_,.:;=(){}[]<>x +*/%\n\tfsabdpqTROOTparameteradd";
  const int per_example = Sanitized() ? 60 : 400;
  for (const std::string& text : Examples()) {
    for (int n = 0; n < per_example; ++n) {
      std::string mutated = text;
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) {
        size_t pos = rng() % mutated.size();
        switch (rng() % 4) {
          case 0:  // replace
            mutated[pos] = alphabet[rng() % alphabet.size()];
            break;
          case 1:  // delete
            mutated.erase(pos, 1);
            break;
          case 2:  // insert
            mutated.insert(pos, 1, alphabet[rng() % alphabet.size()]);
            break;
          default:  // any byte, including non-ASCII and NUL
            mutated[pos] = static_cast<char>(rng() % 256);
            break;
        }
        if (mutated.empty()) break;
      }
      Probe(mutated);
    }
  }
}

TEST_CASE("hlo fuzz: duplicated, dropped and swapped lines", "[hlo][fuzz]") {
  for (const std::string& text : Examples()) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    auto join = [](const std::vector<std::string>& ls) {
      std::string out;
      for (const std::string& l : ls) out += l + "\n";
      return out;
    };
    for (size_t i = 0; i < lines.size(); ++i) {
      std::vector<std::string> dup = lines;
      dup.insert(dup.begin() + i, lines[i]);
      Probe(join(dup));
      std::vector<std::string> drop = lines;
      drop.erase(drop.begin() + i);
      Probe(join(drop));
      if (i + 1 < lines.size()) {
        std::vector<std::string> swap = lines;
        std::swap(swap[i], swap[i + 1]);
        Probe(join(swap));
      }
    }
  }
  // Both outcomes were exercised.
  CHECK(g_parsed_ok > 0);
  CHECK(g_rejected > 0);
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
