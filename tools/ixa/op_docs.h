// The query protocol described as data: every op of `ixa query`, each
// request field (type, required or its default), each response field
// (meaning, unit), one example request each, and the error codes. One
// table serves the strict request check of the server, `ixa query --help`,
// `ixa help OP` and docs/protocol.md (`ixa help --markdown` writes it), so
// that the three cannot drift apart.
#ifndef IXA_TOOLS_IXA_OP_DOCS_H_
#define IXA_TOOLS_IXA_OP_DOCS_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ixa::cli {

struct FieldDoc {
  std::string_view name;
  std::string_view type;  // "string", "int", "bool", "map", "list of ints", ..
  // Empty for a required field; otherwise what an absent field means.
  std::string_view absent;
  std::string_view meaning;
  // `emit` only: the field applies to these targets ("pto", or the
  // fusion targets "cpp|cuda|mlir"); empty: every request of the op.
  std::string_view targets = {};
  bool required() const { return absent.empty(); }
};

struct ResponseFieldDoc {
  std::string_view name;
  std::string_view type;
  std::string_view meaning;  // with the unit where there is one
};

struct OpDoc {
  std::string_view name;
  std::string_view family;
  std::string_view summary;
  std::vector<FieldDoc> request;
  std::vector<ResponseFieldDoc> response;
  std::string_view example;  // one request line
};

struct ErrorCodeDoc {
  std::string_view code;
  std::string_view meaning;
};

// Every op, in the order the documentation lists them.
const std::vector<OpDoc>& OpDocs();
const OpDoc* FindOpDoc(std::string_view name);
// Fields every request may carry whatever its op (id, op, syntax).
const std::vector<FieldDoc>& CommonFieldDocs();
const std::vector<ErrorCodeDoc>& ErrorCodeDocs();

// Names from `known` ordered by their edit distance to `name` (closest
// first; ties in the order given).
std::vector<std::string> ClosestNames(std::string_view name,
                                      const std::vector<std::string>& known);
// The closest name when it is close enough to be a likely misspelling.
std::string SuggestName(std::string_view name,
                        const std::vector<std::string>& known);

// `ixa query --help`: the transport, the exit codes, the ops.
std::string QueryHelpText();
// `ixa help OP`: one op's fields, response and example, as plain text.
std::string OpHelpText(const OpDoc& op);
// docs/protocol.md. `answer` answers one request line as `ixa query` does:
// each example is shown with its response.
std::string ProtocolMarkdown(
    const std::function<std::string(const std::string&)>& answer);

}  // namespace ixa::cli

#endif  // IXA_TOOLS_IXA_OP_DOCS_H_
