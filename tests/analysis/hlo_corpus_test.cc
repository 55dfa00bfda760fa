// The HLO corpus (tests/analysis/hlo_corpus/*.hlo): real-world-shaped
// modules in every syntax form the reader accepts. Each one is
// read, every instruction of every computation is indexed in both
// directions (partial answers: never an error for an op without a map), and
// every fusion and entry computation gets fusion indexing. Known maps are
// checked to stay inside their operand. Invalid variants of each module
// (a stray character, an instruction defined twice, a missing closing
// brace, an unknown operand) get a parse_error at the exact line and column
// of the damage.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tests/analysis/test_util.h"

namespace ixa::testing {
namespace IXA_UNITY_ID {

namespace fs = std::filesystem;

fs::path CorpusDir() {
  std::vector<fs::path> candidates = {fs::path(__FILE__).parent_path() /
                                      "hlo_corpus"};
  for (fs::path p = fs::current_path(); !p.empty(); p = p.parent_path()) {
    candidates.push_back(p / "tests" / "analysis" / "hlo_corpus");
    if (p == p.parent_path()) break;
  }
  std::error_code ec;
  for (fs::path p = fs::read_symlink("/proc/self/exe", ec).parent_path();
       !ec && !p.empty(); p = p.parent_path()) {
    candidates.push_back(p / "tests" / "analysis" / "hlo_corpus");
    if (p == p.parent_path()) break;
  }
  for (const fs::path& c : candidates) {
    if (fs::is_directory(c, ec)) return c;
  }
  return candidates[0];
}

FusionIndexingOptions Partial() {
  FusionIndexingOptions options;
  options.allow_unknown = true;
  return options;
}

struct CorpusFile {
  std::string name, text;
};

const std::vector<CorpusFile>& Corpus() {
  static const auto* corpus = [] {
    auto* files = new std::vector<CorpusFile>;
    for (const auto& entry : fs::directory_iterator(CorpusDir())) {
      if (entry.path().extension() != ".hlo") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      files->push_back({entry.path().filename().string(), text.str()});
    }
    std::sort(files->begin(), files->end(),
              [](const CorpusFile& a, const CorpusFile& b) {
                return a.name < b.name;
              });
    return files;
  }();
  return *corpus;
}

// Known maps without runtime variables must land inside the operand: checked
// on up to 64 random points of the domain.
void CheckInBounds(const IndexingMap& m, const hlo::Shape& target) {
  if (m.IsKnownEmpty() || m.num_rt_vars() > 0 || !target.IsArray() ||
      m.num_results() != target.rank() || target.HasUnboundedDim()) {
    return;
  }
  std::mt19937_64 rng(11);
  auto pick = [&](const Variable& v) {
    std::uniform_int_distribution<int64_t> d(v.bounds.lower, v.bounds.upper);
    return d(rng);
  };
  for (int n = 0; n < 64; ++n) {
    std::vector<int64_t> dims, syms;
    for (const Variable& v : m.dims()) dims.push_back(pick(v));
    for (const Variable& v : m.range_vars()) syms.push_back(pick(v));
    auto in = m.InDomain(dims, syms);
    REQUIRE(in.ok());
    if (!*in) continue;
    auto r = m.Evaluate(dims, syms);
    REQUIRE(r.ok());
    for (int i = 0; i < target.rank(); ++i) {
      INFO(PrintIndexingMap(m) << " into " << target.ToString());
      CHECK((*r)[i] >= 0);
      CHECK((*r)[i] < target.dims[i]);
    }
  }
}

TEST_CASE("hlo corpus: every module reads and is indexed", "[hlo][corpus]") {
  const auto& corpus = Corpus();
  INFO("corpus directory " << CorpusDir().string());
  REQUIRE(corpus.size() >= 60);
  int unknown_entries = 0, known_entries = 0;
  for (const CorpusFile& file : corpus) {
    INFO(file.name);
    auto module = hlo::ParseHloModule(file.text);
    INFO((module.ok() ? "" : module.error().ToString()));
    REQUIRE(module.ok());
    ExprContext ctx;
    for (const auto& comp : (*module)->computations()) {
      for (const hlo::Instruction* in : comp->post_order()) {
        INFO("instruction " << in->name << " (" << OpcodeName(*in) << ")");
        for (int j = 0; j < OutputCount(*in); ++j) {
          auto r = ComputeOutputToInputIndexingPartial(*in, j, &ctx);
          INFO((r.ok() ? "" : r.error().ToString()));
          REQUIRE(r.ok());
          for (int k = 0; k < in->operand_count(); ++k) {
            if (r->IsUnknown(k)) {
              ++unknown_entries;
              CHECK(!r->unknown[k].empty());
              continue;
            }
            ++known_entries;
            if (k >= static_cast<int>(r->indexing_maps.size())) continue;
            // XLA's update map of a dynamic-update-slice is not
            // constrained to the update (docs/indexing.md §3).
            const bool unconstrained =
                in->opcode == hlo::Opcode::kDynamicUpdateSlice && k == 1;
            for (const IndexingMap& m : r->indexing_maps[k]) {
              CHECK(m.num_dims() == OutputShape(*in, j).rank());
              if (!unconstrained) CheckInBounds(m, in->operand(k)->shape);
            }
          }
        }
        for (int k = 0; k < in->operand_count(); ++k) {
          auto r = ComputeInputToOutputIndexingPartial(*in, k, &ctx);
          INFO("input " << k << (r.ok() ? "" : r.error().ToString()));
          REQUIRE(r.ok());
        }
      }
      auto grouped = ComputeGroupedOutputToInputIndexing(
          RegionOfComputation(*comp), 0, &ctx, Partial());
      INFO("computation " << comp->name()
                          << (grouped.ok() ? "" : grouped.error().ToString()));
      REQUIRE(grouped.ok());
    }
  }
  // Both kinds of answers occur across the corpus.
  CHECK(unknown_entries > 10);
  CHECK(known_entries > 100);
}

// Maps of instructions in corpus modules that real dumps exposed (the
// module, the instruction, the operand, its output-to-input maps printed, or
// "unknown" for a per-operand unknown).
struct ExpectedMaps {
  const char* file;
  const char* instruction;
  int operand;
  std::vector<std::string> maps;
};

TEST_CASE("hlo corpus: maps of instructions real dumps exposed",
          "[hlo][corpus]") {
  const std::vector<ExpectedMaps> expected = {
      // XLA spells the opcode count-leading-zeros (elementwise).
      {"count_leading_zeros.hlo",
       "clz",
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 15], d1 in [0, 31]"}},
      {"count_leading_zeros.hlo",
       "clz2",
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 15], d1 in [0, 31]"}},
      {"count_leading_zeros.hlo", "barrier", 0, {"unknown"}},
      // A call whose computation returns `()` through a custom call: what
      // it reads is unknown (the empty tuples themselves read nothing).
      {"empty_tuple_root.hlo", "call", 0, {"unknown"}},
      {"empty_tuple_root.hlo", "done", 0, {"unknown"}},
      // A combined collective-permute (several operands, a tuple result,
      // no slice_sizes) sends operand i to output i; it was taken for the
      // in-place form and answered unknown.
      {"combined_collectives.hlo",
       "cp",
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 7], d1 in [0, 15]"}},
      {"combined_collectives.hlo", "cp", 1, {}},
      // ... also written without shapes (the tuple shape is inferred).
      {"combined_collectives.hlo",
       "cp2",
       0,
       {"(d0) -> (d0), domain: d0 in [0, 3]"}},
      {"combined_collectives.hlo", "cp2", 1, {}},
      // Sparse layouts: `#(index type)` and `*(pointer type)` items.
      {"sparse_layout_index_types.hlo",
       "n",
       0,
       {"(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 9]"}},
  };
  for (const ExpectedMaps& e : expected) {
    INFO(e.file << " " << e.instruction << " operand " << e.operand);
    const CorpusFile* file = nullptr;
    for (const CorpusFile& f : Corpus()) {
      if (f.name == e.file) file = &f;
    }
    REQUIRE(file);
    auto module = hlo::ParseHloModule(file->text);
    REQUIRE(module.ok());
    const hlo::Instruction* in = (*module)->FindInstruction(e.instruction);
    REQUIRE(in);
    ExprContext ctx;
    auto r = ComputeOutputToInputIndexingPartial(*in, 0, &ctx);
    REQUIRE(r.ok());
    std::vector<std::string> got;
    if (r->IsUnknown(e.operand)) {
      got.push_back("unknown");
    } else {
      for (const IndexingMap& m : r->indexing_maps.at(e.operand)) {
        got.push_back(PrintIndexingMap(m));
      }
    }
    CHECK(got == e.maps);
  }
}

// Line and column (1-based) of byte `offset` in `text`.
std::pair<int, int> LineColumn(const std::string& text, size_t offset) {
  int line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

void ExpectParseErrorAt(const std::string& text, size_t offset,
                        const std::string& what) {
  INFO(what << "\n" << text);
  auto m = hlo::ParseHloModule(text);
  REQUIRE_FALSE(m.ok());
  INFO(m.error().ToString());
  CHECK(m.error().code == ErrorCode::kParseError);
  auto [line, column] = LineColumn(text, offset);
  CHECK(m.error().line == line);
  CHECK(m.error().column == column);
}

// The body line of the ENTRY computation's first instruction: offset of its
// first non-blank character, and of the name (after ROOT if any).
struct InstructionLine {
  size_t start = std::string::npos, name = 0, end = 0;
  std::string name_text;
  bool root = false;
};

std::vector<InstructionLine> EntryInstructionLines(const std::string& text) {
  std::vector<InstructionLine> lines;
  size_t entry = text.find("ENTRY");
  if (entry == std::string::npos) return lines;
  size_t pos = text.find('\n', text.find('{', entry));
  while (pos != std::string::npos && pos + 1 < text.size()) {
    size_t begin = pos + 1;
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '}') break;
    size_t eq = line.find(" = ");
    if (first != std::string::npos && eq != std::string::npos &&
        line.compare(first, 2, "//") != 0 &&
        line.compare(first, 2, "/*") != 0) {
      InstructionLine l;
      l.start = begin + first;
      l.root = line.compare(first, 5, "ROOT ") == 0;
      size_t name_at = l.root ? first + 5 : first;
      l.name = begin + name_at;
      l.name_text = line.substr(name_at, eq - name_at);
      l.end = end;
      // Single-line instructions only (balanced parentheses).
      int depth = 0;
      for (char c : line) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (depth == 0) lines.push_back(l);
    }
    pos = end;
  }
  return lines;
}

TEST_CASE("hlo corpus: invalid variants fail at the damaged position",
          "[hlo][corpus]") {
  int variants = 0;
  for (const CorpusFile& file : Corpus()) {
    INFO(file.name);
    std::vector<InstructionLine> lines = EntryInstructionLines(file.text);
    REQUIRE(!lines.empty());
    const InstructionLine& first = lines.front();
    // 1. A stray character where an instruction name should start.
    {
      std::string bad = file.text;
      bad.insert(first.start, "@");
      ExpectParseErrorAt(bad, first.start, "stray '@'");
      ++variants;
    }
    // 2. A non-ROOT instruction defined twice: the copy's name is blamed.
    for (const InstructionLine& l : lines) {
      if (l.root) continue;
      std::string copy = file.text.substr(l.start, l.end - l.start);
      std::string bad = file.text;
      bad.insert(l.end, "\n  " + copy);
      ExpectParseErrorAt(bad, l.end + 3, "duplicate '" + l.name_text + "'");
      ++variants;
      break;
    }
    // 3. The last closing brace removed: the end of input is blamed.
    {
      size_t brace = file.text.rfind('}');
      // Stack-frame tables follow the last computation in some modules.
      size_t tables = file.text.find("\nFileNames");
      if (tables != std::string::npos) brace = file.text.rfind('}', tables);
      std::string bad = file.text.substr(0, brace);
      size_t end = bad.find_last_not_of(" \t\n");
      bad = bad.substr(0, end + 1);
      ExpectParseErrorAt(bad, bad.size(), "missing '}'");
      ++variants;
    }
    // 4. The ROOT's first operand renamed to one that does not exist.
    for (const InstructionLine& l : lines) {
      if (!l.root) continue;
      size_t open = file.text.find('(', l.name);
      size_t operand = open + 1;
      // Skip an operand shape (`f32[2] %x`): the name follows a blank.
      std::string rest = file.text.substr(operand, l.end - operand);
      size_t close = 0;
      for (int depth = 0; close < rest.size(); ++close) {
        char c = rest[close];
        if (depth == 0 && (c == ',' || c == ')' || c == '(')) break;
        depth += (c == '[' || c == '{') ? 1 : (c == ']' || c == '}') ? -1 : 0;
      }
      if (close >= rest.size() || rest[close] == '(') break;  // nested
      std::string op = rest.substr(0, close);
      if (op.empty() || op.find('(') != std::string::npos) break;
      size_t blank = op.rfind(' ');
      if (blank != std::string::npos) operand += blank + 1;
      // The error points at the operand as written (its '%' included).
      const size_t blamed = operand;
      if (file.text[operand] == '%') ++operand;
      std::string bad = file.text;
      size_t len = 0;
      while (operand + len < bad.size() &&
             (std::isalnum(static_cast<unsigned char>(bad[operand + len])) ||
              bad[operand + len] == '_' || bad[operand + len] == '.' ||
              bad[operand + len] == '-')) {
        ++len;
      }
      if (len == 0) break;
      bad.replace(operand, len, "no_such_operand");
      ExpectParseErrorAt(bad, blamed, "unknown operand");
      ++variants;
      break;
    }
  }
  CHECK(variants >= 200);
}

// Mutations of every corpus module (characters flipped, inserted, deleted)
// read and index cleanly: an answer or a clean error, never a crash.
TEST_CASE("hlo corpus: mutated modules fail cleanly", "[hlo][corpus]") {
  const char* sanitized = std::getenv("IXA_SANITIZED");
  const int per_file = sanitized && std::string(sanitized) == "1" ? 5 : 25;
  std::mt19937_64 rng(20251123);
  const std::string alphabet = "0123456789-_,.:;=(){}[]<>x +*/%#@?'\"\nfsT";
  for (const CorpusFile& file : Corpus()) {
    for (int n = 0; n < per_file; ++n) {
      std::string text = file.text;
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[pos] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(pos, 1 + rng() % 4);
          break;
        default:
          text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
      }
      INFO(file.name << " mutated:\n" << text);
      auto m = hlo::ParseHloModule(text);
      if (!m.ok()) {
        CHECK((m.error().code == ErrorCode::kParseError && m.error().line > 0 &&
               m.error().column > 0));
        continue;
      }
      ExprContext ctx;
      for (const auto& comp : (*m)->computations()) {
        for (const hlo::Instruction* in : comp->post_order()) {
          for (int j = 0; j < OutputCount(*in); ++j) {
            auto r = ComputeOutputToInputIndexingPartial(*in, j, &ctx);
            if (!r.ok()) {
              CHECK(r.error().code != ErrorCode::kInternal);
            }
          }
        }
        auto g = ComputeGroupedOutputToInputIndexing(RegionOfComputation(*comp),
                                                     0, &ctx, Partial());
        if (!g.ok()) CHECK(g.error().code != ErrorCode::kInternal);
      }
    }
  }
}

}  // namespace IXA_UNITY_ID
}  // namespace ixa::testing
