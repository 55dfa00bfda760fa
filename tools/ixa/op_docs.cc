#include "tools/ixa/op_docs.h"

#include <algorithm>

#include "hw/device_fields.h"

namespace ixa::cli {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions
// and swaps of two neighbours (the usual typing slips) cost one each.
// Names are short: past kMaxCompared characters a text is no misspelling
// of one, and its distance to each differs by its length alone (a 5 MB
// unknown op costs a table of 5 MB rows otherwise).
size_t EditDistance(std::string_view a, std::string_view b) {
  constexpr size_t kMaxCompared = 256;
  if (a.size() > kMaxCompared) {
    return EditDistance(a.substr(0, kMaxCompared), b) + a.size() - kMaxCompared;
  }
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

const char kTransport[] =
    "`ixa query [--syntax affine|symbolic] [--budget-ms N] [--jobs N] "
    "[--devices FILE] [FILE|-]`\nreads "
    "JSON Lines: one request object per line, from FILE or standard\ninput. "
    "It writes one response line per request, in request order, to standard\n"
    "output (JSON only; diagnostics go to standard error). Lines holding only\n"
    "spaces and tabs are skipped without a response; every other line gets\n"
    "exactly one. A bad request never stops the batch.\n";

const char kExitCodes[] =
    "Exit codes: 0 every request answered ok; 1 at least one error "
    "response, or\n"
    "the --devices table is not valid; 64 usage error (bad flag or flag "
    "value);\n"
    "66 FILE or the --devices table cannot be read; 70 internal failure (a\n"
    "response with code `internal`).\n";

const char kDevicesIntro[] =
    "\n## Devices\n\n"
    "The `device` field of a request is a device's name (`ixa devices` "
    "lists the\n"
    "built-in ones) or an object. An object starts from the device its "
    "`base`\n"
    "names, or without one from a GPU launch model of 1024 threads per "
    "block, 2048\n"
    "threads per core and 48 KiB of shared memory per block and no cores, "
    "and sets\n"
    "the fields it gives: `{\"base\": \"h100\", \"dram_gbps\": 2000}` is "
    "an H100 at\n"
    "2 TB/s, named `h100-custom` unless the object gives a `name`. Every "
    "line of\n"
    "`ixa devices --json` is such an object and reads back as the same "
    "device.\n"
    "A field of the wrong type is bad_request, a value outside its range\n"
    "invalid_argument. `ixa query --devices FILE` (and `ixa emit`, `ixa "
    "devices`)\n"
    "adds a user's devices: a JSON list of device objects, or one object per "
    "line,\n"
    "each with a new `name` (a `base` may name a built-in device or an "
    "earlier\n"
    "entry); requests then name them like the built-in ones.\n";

const char kResponses[] =
    "Every response has `id` (the request's, or null) and `ok`. An error "
    "response\n"
    "has `error: {code, message}` and, where the input has a position, "
    "`line` and\n"
    "`column` (1-based). A request with fields its op does not take, or "
    "without\n"
    "required ones, is answered bad_request naming every such field.\n";

std::string Presence(const FieldDoc& f) {
  if (f.required()) return "required";
  return "default: " + std::string(f.absent);
}

std::string FieldLine(const FieldDoc& f) {
  std::string line = "  " + std::string(f.name) + " (" + std::string(f.type) +
                     ", " + Presence(f) + "): " + std::string(f.meaning);
  if (!f.targets.empty()) {
    line += " [target " + std::string(f.targets) + "]";
  }
  return line + "\n";
}

// Markdown table cells: pipes would end the cell.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\";
    out += c;
  }
  return out;
}

// Long strings of an example response are cut in the documentation (the
// answer itself is whole).
std::string ShortenLongStrings(const std::string& json_line) {
  constexpr size_t kMaxString = 240;
  std::string out;
  size_t i = 0;
  while (i < json_line.size()) {
    if (json_line[i] != '"') {
      out += json_line[i++];
      continue;
    }
    size_t j = i + 1;
    while (j < json_line.size() && json_line[j] != '"') {
      j += json_line[j] == '\\' ? 2 : 1;
    }
    size_t length = j - i - 1;
    if (length > kMaxString) {
      size_t cut = i + 1 + kMaxString;
      while (cut > i + 1 && json_line[cut - 1] == '\\') --cut;
      out.append(json_line, i, cut - i);
      out += "... (" + std::to_string(length) + " characters)\"";
    } else {
      out.append(json_line, i, std::min(j + 1, json_line.size()) - i);
    }
    i = j + 1;
  }
  return out;
}

}  // namespace

std::vector<std::string> ClosestNames(std::string_view name,
                                      const std::vector<std::string>& known) {
  std::vector<std::pair<size_t, size_t>> ranked;  // (distance, position)
  for (size_t k = 0; k < known.size(); ++k) {
    ranked.emplace_back(EditDistance(name, known[k]), k);
  }
  std::stable_sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (auto [distance, k] : ranked) out.push_back(known[k]);
  return out;
}

std::string SuggestName(std::string_view name,
                        const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = 0;
  for (const std::string& k : known) {
    size_t d = EditDistance(name, k);
    if (best.empty() || d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  // A misspelling changes a few characters, not most of the name.
  const size_t allowed =
      std::max<size_t>(1, std::min(name.size(), best.size()) / 3);
  return !best.empty() && best_distance <= allowed ? best : std::string();
}

std::string QueryHelpText() {
  std::string out =
      "usage: ixa query [--syntax affine|symbolic] [--budget-ms N] [--jobs "
      "N]\n                 [--devices FILE] [FILE|-]\n\n";
  out += kTransport;
  out +=
      "\n  --syntax S     how maps print unless a request says otherwise:\n"
      "                 affine (`floordiv`, the default) or symbolic (`/`)\n"
      "  --budget-ms N  a request running longer than N ms answers\n"
      "                 limit_exceeded (default: no time budget)\n"
      "  --jobs N       answer on N threads, 1 to 256; responses stay in\n"
      "                 request order\n"
      "  --devices FILE adds a user's devices (a JSON list of device\n"
      "                 objects, or one per line) to those `device` names\n"
      "  --help         print this help\n\n";
  out += kResponses;
  out += "\nFields of every request:\n";
  for (const FieldDoc& f : CommonFieldDocs()) out += FieldLine(f);
  out += "\nError codes:\n";
  for (const ErrorCodeDoc& e : ErrorCodeDocs()) {
    out += "  " + std::string(e.code) + ": " + std::string(e.meaning) + "\n";
  }
  out += "\nOps (`ixa help OP` for one op's fields):\n";
  for (const OpDoc& op : OpDocs()) {
    std::string name(op.name);
    name.resize(std::max<size_t>(name.size(), 24), ' ');
    out += "  " + name + " " + std::string(op.summary) + "\n";
  }
  out += "\n";
  out += kExitCodes;
  out +=
      "\nThe whole protocol, with an example of each op: docs/protocol.md.\n";
  return out;
}

std::string OpHelpText(const OpDoc& op) {
  std::string out = "op " + std::string(op.name) + " (" +
                    std::string(op.family) + "): " + std::string(op.summary) +
                    "\n\nRequest fields (besides id, op, syntax):\n";
  for (const FieldDoc& f : op.request) out += FieldLine(f);
  out += "\nResponse fields (besides id, ok):\n";
  for (const ResponseFieldDoc& f : op.response) {
    out += "  " + std::string(f.name) + " (" + std::string(f.type) +
           "): " + std::string(f.meaning) + "\n";
  }
  out += "\nExample:\n  " + std::string(op.example) + "\n";
  return out;
}

std::string ProtocolMarkdown(
    const std::function<std::string(const std::string&)>& answer) {
  std::string out =
      "# The `ixa query` protocol\n\n"
      "<!-- Written by `ixa help --markdown`; edit tools/ixa/op_docs*.cc, "
      "not this file. -->\n\n"
      "This is the contract between ixa and the tools that use it. It is\n"
      "extended by adding ops and fields, never by changing the meaning of\n"
      "an existing one. `ixa query --help` and `ixa help OP` print the same\n"
      "facts from the same table.\n\n"
      "## Transport\n\n";
  out += kTransport;
  out += "\n";
  out += kExitCodes;
  out += "\n## Responses and errors\n\n";
  out += kResponses;
  out +=
      "\n    {\"id\": 7, \"ok\": true, ...the op's fields...}\n"
      "    {\"id\": 7, \"ok\": false, \"error\": {\"code\": \"parse_error\", "
      "\"message\": \"...\", \"line\": 1, \"column\": 14}}\n\n"
      "| code | meaning |\n|---|---|\n";
  for (const ErrorCodeDoc& e : ErrorCodeDocs()) {
    out += "| `" + std::string(e.code) + "` | " + Cell(e.meaning) + " |\n";
  }
  out +=
      "\nThe uses (utilization, coalescing, tile, fusion_cost) answer what "
      "they can:\noperands they cannot analyse are listed in `unknown`, "
      "never a whole-request\nerror.\n\n"
      "## Maps\n\n"
      "A map is a string in XLA's indexing-map text form, e.g.\n"
      "`(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2), domain: d0 in [0, 7], d1 "
      "in [0, 15],\ns0 in [0, 3]`. Both generations of the form are read: "
      "the affine one\n(`floordiv`, `ceildiv`, `mod`) and the symbolic one of "
      "2026 (`/` for floordiv,\n`min(a, b)`, `max(a, b)`). A map without a "
      "domain has unbounded variables.\nResponses print maps canonically, so "
      "equal maps print equal strings.\n\n"
      "## Fields of every request\n\n"
      "| field | type | absent | meaning |\n|---|---|---|---|\n";
  for (const FieldDoc& f : CommonFieldDocs()) {
    out += "| `" + std::string(f.name) + "` | " + Cell(f.type) + " | " +
           (f.required() ? std::string("required") : Cell(f.absent)) + " | " +
           Cell(f.meaning) + " |\n";
  }
  out += kDevicesIntro;
  out += "\n| field | type | unit | range | meaning |\n|---|---|---|---|---|\n";
  for (const hw::DeviceFieldDoc& f : hw::DeviceFieldDocs()) {
    out += "| `" + std::string(f.name) + "` | " +
           Cell(hw::DeviceFieldTypeName(f.type)) + " | " + Cell(f.unit) +
           " | " + f.RangeText() + " | " + Cell(f.meaning) + " |\n";
  }
  out += "\n## Ops\n\n| op | family | what it answers |\n|---|---|---|\n";
  for (const OpDoc& op : OpDocs()) {
    out += "| [`" + std::string(op.name) + "`](#" + std::string(op.name) +
           ") | " + std::string(op.family) + " | " + Cell(op.summary) + " |\n";
  }
  for (const OpDoc& op : OpDocs()) {
    out += "\n### " + std::string(op.name) + "\n\n" + std::string(op.summary) +
           "\n\nRequest:\n\n" +
           "| field | type | absent | meaning |\n|---|---|---|---|\n";
    for (const FieldDoc& f : op.request) {
      std::string meaning(f.meaning);
      if (!f.targets.empty()) {
        meaning += " (target " + std::string(f.targets) + ")";
      }
      out += "| `" + std::string(f.name) + "` | " + Cell(f.type) + " | " +
             (f.required() ? std::string("required") : Cell(f.absent)) + " | " +
             Cell(meaning) + " |\n";
    }
    out += "\nResponse:\n\n| field | type | meaning |\n|---|---|---|\n";
    for (const ResponseFieldDoc& f : op.response) {
      out += "| `" + std::string(f.name) + "` | " + Cell(f.type) + " | " +
             Cell(f.meaning) + " |\n";
    }
    out += "\nExample:\n\n```\n" + std::string(op.example) + "\n" +
           ShortenLongStrings(answer(std::string(op.example))) + "\n```\n";
  }
  return out;
}

}  // namespace ixa::cli
