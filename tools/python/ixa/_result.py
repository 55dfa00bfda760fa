"""Answers as small typed objects, documented from the protocol's table.

Every op answers a Result: a dict of the response's fields (r["time_us"],
json.dumps(r) and == with a dict keep working) whose fields are also
attributes (r.time_us, r.launch.blocks). Nested objects are Results too,
lists stay lists. to_dict() gives plain dicts and lists again.

The ops the classes of HloModule answer have a class of their own
(FusionCost, FusionDecision, FusionPlan, ...), whose docstring lists the
response's fields with their types and units: the same table `ixa help OP`
and docs/protocol.md print, read from the extension.
"""

import textwrap

from . import _ixa


class Result(dict):
    """An answer of the ixa protocol: a dict whose fields are attributes.

        cost = module.fusion_cost()
        cost.time_us == cost["time_us"]     # True
        cost.launch.blocks                  # nested objects too
        cost.to_dict()                      # plain dicts and lists

    A field the answer does not have raises AttributeError (KeyError with
    [ ]); fields the protocol marks optional (present only when ...) are
    tested with `"name" in result`. A field named like a dict method
    (cute_layout's `values`) is read with [ ].
    """

    __slots__ = ()

    #: The protocol op this class answers (None for the generic class).
    op = None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            fields = ", ".join(sorted(str(k) for k in self))
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r} "
                f"(it has: {fields})") from None

    def __dir__(self):
        fields = [k for k in self if isinstance(k, str) and k.isidentifier()]
        return sorted(set(super().__dir__()) | set(fields))

    def to_dict(self):
        """The answer as plain dicts and lists (what json.loads gives)."""
        return _plain(self)

    def __repr__(self):
        return f"{type(self).__name__}({dict.__repr__(self)})"

    def __reduce__(self):
        return (_rebuild, (type(self), self.to_dict()))


def _rebuild(cls, fields):
    return _wrap(fields, cls)


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _wrap(value, cls=Result):
    if isinstance(value, dict):
        return cls((k, _wrap(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


# -- one class per op of HloModule, documented from the protocol's table ----


class Indexing(Result):
    __slots__ = ()
    op = "indexing"


class FusionIndexing(Result):
    __slots__ = ()
    op = "fusion_indexing"


class Partition(Result):
    __slots__ = ()
    op = "partition"


class ThreadIndexing(Result):
    __slots__ = ()
    op = "thread_indexing"


class Coalescing(Result):
    __slots__ = ()
    op = "coalescing"


class Utilization(Result):
    __slots__ = ()
    op = "utilization"


class Tile(Result):
    __slots__ = ()
    op = "tile"


class ValidTilings(Result):
    __slots__ = ()
    op = "valid_tilings"


class FusionCost(Result):
    __slots__ = ()
    op = "fusion_cost"


class FusionDecision(Result):
    __slots__ = ()
    op = "fusion_decision"


class FusionPlan(Result):
    __slots__ = ()
    op = "fusion_plan"


class Emitted(Result):
    __slots__ = ()
    op = "emit"


class Layout(Result):
    __slots__ = ()
    op = "layout"


RESULT_CLASSES = (Indexing, FusionIndexing, Partition, ThreadIndexing,
                  Coalescing, Utilization, Tile, ValidTilings, FusionCost,
                  FusionDecision, FusionPlan, Emitted, Layout)

_OP_DOCS = {op["name"]: op for op in _ixa.op_docs()}
_CLASS_OF_OP = {cls.op: cls for cls in RESULT_CLASSES}


def op_doc(op):
    """The protocol's table entry of `op` (summary, request and response
    fields), or None for an op it does not list."""
    return _OP_DOCS.get(op)


def result_class(op):
    """The class answers of `op` are made of: its own, else Result."""
    return _CLASS_OF_OP.get(op, Result)


def _field_lines(fields, with_absent):
    lines = []
    for f in fields:
        head = f"  {f['name']} ({f['type']}"
        if with_absent:
            head += ", required" if not f["absent"] else \
                f", default: {f['absent']}"
        lines.append(textwrap.fill(f"{head}): {f['meaning']}", width=76,
                                   subsequent_indent="      ",
                                   break_long_words=False,
                                   break_on_hyphens=False))
    return "\n".join(lines)


def response_doc(op):
    """The response's fields of `op`, one a line: name (type): meaning."""
    doc = _OP_DOCS.get(op)
    return _field_lines(doc["response"], False) if doc else ""


def request_doc(op, skip=()):
    """The request's fields of `op` (less `skip`), one a line."""
    doc = _OP_DOCS.get(op)
    if not doc:
        return ""
    return _field_lines([f for f in doc["request"] if f["name"] not in skip],
                        True)


def _document_class(cls):
    doc = _OP_DOCS.get(cls.op)
    if doc is None:
        return
    cls.__doc__ = (
        f"The answer of the `{cls.op}` op: {doc['summary']}\n\n"
        "A Result: a dict whose fields are also attributes; to_dict() "
        "gives plain dicts.\n\nFields (as the protocol's table lists "
        f"them):\n{response_doc(cls.op)}\n")


for _cls in RESULT_CLASSES:
    _document_class(_cls)


def documented(op, skip=("hlo",)):
    """Appends the protocol's request and response fields of `op` to a
    method's docstring (the method returns result_class(op))."""

    def decorate(function):
        doc = _OP_DOCS.get(op)
        if doc is None:
            return function
        cls = result_class(op)
        text = (function.__doc__ or "").rstrip()
        text += (
            f"\n\n        Protocol fields of `{op}` (the keyword "
            "arguments; None leaves one out):\n"
            + _indent(request_doc(op, skip)) +
            f"\n\n        Returns ixa.{cls.__name__}, with the fields:\n"
            + _indent(response_doc(op)) + "\n")
        function.__doc__ = text
        return function

    return decorate


def _indent(text):
    return "\n".join("        " + line for line in text.splitlines())
