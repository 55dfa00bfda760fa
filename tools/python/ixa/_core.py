"""The request layer: ixa.Error, ixa.query and the helpers the classes use.

Every answer comes from the query server of `ixa query` inside the C++
extension, so a Python call and the same JSON request on the command line
give the same answer.
"""

import json
import operator

from . import _ixa
from ._result import _wrap, result_class


class Error(ValueError):
    """A request that ixa could not answer: a ValueError (the value given,
    a map, an HLO module, a field, is what is wrong; a value of the wrong
    Python type raises TypeError instead).

    Attributes:
      code: the protocol's error code: "parse_error", "bad_request",
        "invalid_argument", "unsupported", "limit_exceeded", "internal"
        (and "bad_json", which only a malformed request line gets).
      message: what went wrong, in words.
      line, column: 1-based position in the map or HLO text for parse
        errors; None when the error has no position.
    """

    def __init__(self, code, message, line=None, column=None):
        super().__init__(code, message, line, column)
        self.code = code
        self.message = message
        self.line = line
        self.column = column

    def __str__(self):
        text = f"{self.code}: {self.message}"
        if self.line is not None:
            text += f" (line {self.line}, column {self.column})"
        return text


def _error_from_response(response):
    details = response.get("error")
    if not isinstance(details, dict):
        return Error("internal",
                     f"a failed response without an error: {response!r}")
    return Error(
        details.get("code", "internal"),
        details.get("message", ""),
        details.get("line"),
        details.get("column"),
    )


def _checked(response):
    """The response itself when it says ok, else raises its ixa.Error."""
    if response.get("ok") is not True:
        raise _error_from_response(response)
    return response


def _to_json(value):
    # What json cannot write by itself: maps as their text, integer-like
    # numbers (numpy's among them) as ints, other iterables (tuples are
    # native; generators, ranges, arrays) as lists.
    text = getattr(value, "_ixa_text", None)
    if isinstance(text, str):
        return text
    try:
        return operator.index(value)
    except TypeError:
        pass
    if hasattr(value, "tolist"):
        return value.tolist()
    try:
        return list(value)
    except TypeError:
        raise TypeError(
            f"{type(value).__name__} cannot be sent in a request"
        ) from None


def _encode(request):
    try:
        # ASCII only: the line never carries a byte the server could
        # misread, and a newline inside a string is escaped.
        return json.dumps(request, allow_nan=False, default=_to_json,
                          separators=(",", ":"))
    except TypeError as e:
        raise TypeError(f"the request cannot be written as JSON: {e}") \
            from None
    except ValueError as e:
        raise Error("bad_request",
                    f"the request cannot be written as JSON: {e}") from None


def query(request):
    """Answers one request of the JSON protocol, exactly as `ixa query` does.

    Args:
      request: a dict with "op" and the op's fields, e.g.
        {"op": "simplify", "map": "(d0) -> (d0 floordiv 1)"}. Maps may be
        given as ixa.IndexingMap objects.

    Returns:
      The response as an ixa.Result (a dict whose fields are also
      attributes; the op's own class, such as ixa.FusionCost, where it has
      one): "ok" (True), "id" (the request's, else None) and the op's
      fields.

    Raises:
      ixa.Error: the response says ok: false (its code, message, line and
        column), or the request holds a value JSON cannot write (NaN).
      TypeError: the request is not a dict, or holds a value of a type
        JSON cannot write.
    """
    if not isinstance(request, dict):
        raise TypeError(
            f"a request is a dict, not {type(request).__name__}")
    line = _encode(request)
    raw = _ixa.answer(line)
    try:
        response = json.loads(raw.decode("utf-8", "replace"))
    except ValueError as e:
        raise Error("internal", f"the response is not JSON: {e}") from None
    if not isinstance(response, dict):
        raise Error("internal", f"the response is not a JSON object: {raw!r}")
    return _wrap(_checked(response), result_class(request.get("op")))


def _call(op, **fields):
    """Runs `op` with the fields that are not None; the op's own fields."""
    request = {"op": op}
    request.update((k, v) for k, v in fields.items() if v is not None)
    response = query(request)
    response.pop("ok", None)
    response.pop("id", None)
    return response
