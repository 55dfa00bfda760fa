// The extension module `_ixa` behind the Python package `ixa`
// (tools/python/ixa). Every analysis goes through the query server of
// `ixa query` (tools/ixa/query_server.h), so that Python answers are the
// CLI's answers; the module adds only what the protocol has no op for: a
// map's shape (variable counts and names) and an HLO module's
// instructions.
//
// Failures come back as values, never as C++ exceptions: the functions
// return `{"ok": false, "error": {code, message, line?, column?}}` as the
// protocol does, and the Python package raises ixa.Error from it.
#include <pybind11/pybind11.h>

#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "analysis/hlo/module.h"
#include "core/expr.h"
#include "core/result.h"
#include "core/text.h"
#include "hw/svg.h"
#include "hw/xla_layout.h"
#include "tools/ixa/op_docs.h"
#include "tools/ixa/query_server.h"

namespace py = pybind11;

namespace {

py::dict ErrorDict(const ixa::Error& error) {
  py::dict details;
  details["code"] = ixa::ErrorCodeName(error.code);
  details["message"] = ixa::ClipMessage(error.message);
  if (error.line > 0) {
    details["line"] = error.line;
    details["column"] = error.column;
  }
  py::dict response;
  response["ok"] = false;
  response["error"] = details;
  return response;
}

py::dict InternalErrorDict(const std::exception& e) {
  return ErrorDict(ixa::Error{ixa::ErrorCode::kInternal, e.what(), 0, 0});
}

// One JSON Lines request answered as `ixa query` answers it. Bytes, not
// str: the server echoes request text, and the Python side decodes with
// replacement rather than failing on a stray byte.
py::bytes Answer(const std::string& line) {
  return py::bytes(ixa::cli::AnswerRequestLine(line));
}

py::list Names(const ixa::IndexingMap& map, int count, bool dims) {
  py::list names;
  for (int i = 0; i < count; ++i) {
    names.append(dims ? map.DimName(i) : map.SymbolName(i));
  }
  return names;
}

py::dict MapShape(const std::string& text) {
  try {
    ixa::ExprContext ctx;
    ixa::Result<ixa::IndexingMap> map = ixa::ParseIndexingMap(text, &ctx);
    if (!map.ok()) return ErrorDict(map.error());
    py::dict shape;
    shape["ok"] = true;
    shape["num_dims"] = map->num_dims();
    shape["num_symbols"] = map->num_symbols();
    shape["num_range_vars"] = map->num_range_vars();
    shape["num_runtime_vars"] = map->num_rt_vars();
    shape["num_results"] = map->num_results();
    shape["dim_names"] = Names(*map, map->num_dims(), /*dims=*/true);
    shape["symbol_names"] = Names(*map, map->num_symbols(), /*dims=*/false);
    shape["known_empty"] = map->IsKnownEmpty();
    return shape;
  } catch (const std::exception& e) {
    return InternalErrorDict(e);
  }
}

py::dict InstructionDict(const ixa::hlo::Instruction& instruction) {
  py::dict entry;
  entry["name"] = instruction.name;
  entry["opcode"] = OpcodeName(instruction);
  entry["shape"] = instruction.shape.ToString(/*with_layout=*/true);
  py::list operands;
  for (const ixa::hlo::Instruction* operand : instruction.operands) {
    operands.append(operand->name);
  }
  entry["operands"] = operands;
  py::list calls;
  for (const ixa::hlo::Computation* called : instruction.called_computations) {
    calls.append(called->name());
  }
  entry["calls"] = calls;
  return entry;
}

// The module's computations and the entry computation's instructions, in
// text order.
py::dict HloOutline(const std::string& text) {
  try {
    auto module = ixa::hlo::ParseHloModule(text);
    if (!module.ok()) return ErrorDict(module.error());
    const ixa::hlo::Computation* entry = (*module)->entry();
    py::dict outline;
    outline["ok"] = true;
    outline["name"] = (*module)->name();
    outline["entry"] = entry->name();
    outline["root"] =
        entry->root() ? py::str(entry->root()->name) : py::str(std::string());
    py::list computations;
    for (const auto& computation : (*module)->computations()) {
      computations.append(computation->name());
    }
    outline["computations"] = computations;
    py::list instructions;
    for (const auto& instruction : entry->instructions()) {
      instructions.append(InstructionDict(*instruction));
    }
    outline["instructions"] = instructions;
    return outline;
  } catch (const std::exception& e) {
    return InternalErrorDict(e);
  }
}

py::str Text(std::string_view text) {
  return py::str(text.data(), text.size());
}

// The protocol's table (the one `ixa help OP` and docs/protocol.md print):
// per op its name, family, summary, request fields {name, type, absent,
// meaning} (absent empty when required) and response fields {name, type,
// meaning}. The package writes its docstrings from it.
py::list OpDocList() {
  py::list ops;
  for (const ixa::cli::OpDoc& op : ixa::cli::OpDocs()) {
    py::dict entry;
    entry["name"] = Text(op.name);
    entry["family"] = Text(op.family);
    entry["summary"] = Text(op.summary);
    py::list request;
    for (const ixa::cli::FieldDoc& f : op.request) {
      py::dict field;
      field["name"] = Text(f.name);
      field["type"] = Text(f.type);
      field["absent"] = Text(f.absent);
      field["meaning"] = Text(f.meaning);
      request.append(field);
    }
    entry["request"] = request;
    py::list response;
    for (const ixa::cli::ResponseFieldDoc& f : op.response) {
      py::dict field;
      field["name"] = Text(f.name);
      field["type"] = Text(f.type);
      field["meaning"] = Text(f.meaning);
      response.append(field);
    }
    entry["response"] = response;
    ops.append(entry);
  }
  return ops;
}

// `ixa draw --shape`: the SVG picture of a tiled layout, or an error
// response for a shape that does not parse or whose layout is invalid.
py::object DrawLayout(const std::string& shape_text, const std::string& title,
                      bool show_memory) {
  try {
    auto shape = ixa::hw::ParseXlaShape(shape_text);
    if (!shape.ok()) return ErrorDict(shape.error());
    ixa::ExprContext ctx;
    auto info = ixa::hw::AnalyzeTiledLayout(*shape, &ctx);
    if (!info.ok()) return ErrorDict(info.error());
    ixa::hw::SvgOptions options;
    options.title = title;
    options.show_memory = show_memory;
    return py::str(ixa::hw::DrawTiledLayoutSvg(*shape, options));
  } catch (const std::exception& e) {
    return InternalErrorDict(e);
  }
}

}  // namespace

PYBIND11_MODULE(_ixa, m) {
  m.doc() =
      "The C++ core of the ixa package: use the package `ixa`, not this "
      "module.";
  m.attr("__version__") = IXA_VERSION;
  m.def("answer", &Answer, py::arg("line"),
        "Answers one JSON request line exactly as `ixa query` does; the "
        "response line as bytes.");
  m.def("map_shape", &MapShape, py::arg("text"),
        "Variable counts and names of a map, or an error response.");
  m.def("hlo_outline", &HloOutline, py::arg("text"),
        "Computations and entry instructions of an HLO module, or an error "
        "response.");
  m.def("draw_layout", &DrawLayout, py::arg("shape"), py::arg("title"),
        py::arg("show_memory"),
        "The SVG picture of a tiled layout (`ixa draw --shape`), or an "
        "error response.");
  m.def("op_docs", &OpDocList,
        "The protocol's table: each op's summary, request and response "
        "fields.");
}
