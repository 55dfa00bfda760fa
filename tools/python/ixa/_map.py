"""ixa.IndexingMap: an indexing map (the algebra ops of the protocol)."""

from collections import namedtuple

from . import _ixa
from ._core import Error, _call, _checked

Point = namedtuple("Point", ["dims", "symbols"])
Point.__doc__ = """A point of a map's variables: dim and symbol values."""

Bounds = namedtuple("Bounds", ["results", "exact"])
Bounds.__doc__ = """What IndexingMap.bounds answers.

results: a list of (lo, hi) pairs, one per result of the map (or a single
  pair for an expression).
exact: True when every pair is the exact range over the domain, False when
  some pair is only a sound over-approximation.
"""


def _map_text(value):
    """The text a request carries for a map given as IndexingMap or str."""
    if isinstance(value, IndexingMap):
        return value._text
    if not isinstance(value, str):
        raise TypeError("an indexing map is given as text (str) or an "
                        f"IndexingMap, not {type(value).__name__}")
    return value


class IndexingMap:
    """An indexing map, immutable, held as its canonical text.

    Build one from the text form (XLA's syntax, either generation):

        m = ixa.IndexingMap("(d0, d1) -> (d0 * 4 + d1), "
                            "domain: d0 in [0, 7], d1 in [0, 3]")

    Every operation is a request of the `ixa query` protocol and returns
    what the CLI answers. Operations that transform a map return a new
    IndexingMap; the map itself never changes. Two maps are equal (==) when
    their canonical texts are, and maps are hashable.

    Raises ixa.Error (code "parse_error" with line and column for bad
    text) where the CLI answers an error.
    """

    __slots__ = ("_text", "_shape")

    def __init__(self, text):
        if isinstance(text, IndexingMap):
            self._text = text._text
            self._shape = text._shape
            return
        self._text = _call("parse", map=_map_text(text))["map"]
        self._shape = None

    @classmethod
    def parse(cls, text):
        """The map of `text` (the same as IndexingMap(text))."""
        return cls(text)

    @classmethod
    def _from_canonical(cls, text):
        # A map the server printed: no need to parse it again.
        m = cls.__new__(cls)
        m._text = text
        m._shape = None
        return m

    # -- printing -----------------------------------------------------------

    def to_string(self, syntax="affine"):
        """The canonical text of the map.

        Args:
          syntax: "affine" (MLIR's affine form: `d0 floordiv 4`, summands in
            the map's order; what str() gives) or "symbolic" (XLA's
            symbolic expressions: `d0 / 4`, summands in XLA's order).
        """
        if syntax == "affine":
            return self._text
        if syntax != "symbolic":
            raise Error(
                "bad_request",
                f"syntax must be 'affine' or 'symbolic', not {syntax!r}")
        return _call("parse", map=self._text, syntax=syntax)["map"]

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"IndexingMap({self._text!r})"

    def __eq__(self, other):
        if not isinstance(other, IndexingMap):
            return NotImplemented
        return self._text == other._text

    def __hash__(self):
        return hash(self._text)

    def __reduce__(self):
        return (IndexingMap, (self._text,))

    @property
    def _ixa_text(self):
        # How a map travels inside an ixa.query request (_core._to_json).
        return self._text

    # -- shape --------------------------------------------------------------

    def _get_shape(self):
        if self._shape is None:
            self._shape = _checked(_ixa.map_shape(self._text))
        return self._shape

    @property
    def num_dims(self):
        """The number of dimension variables (d0, d1, ...)."""
        return self._get_shape()["num_dims"]

    @property
    def num_symbols(self):
        """The number of symbols: range variables, then runtime variables."""
        return self._get_shape()["num_symbols"]

    @property
    def num_range_vars(self):
        """The number of range variables (symbols written in [...])."""
        return self._get_shape()["num_range_vars"]

    @property
    def num_runtime_vars(self):
        """The number of runtime variables (symbols written in {...})."""
        return self._get_shape()["num_runtime_vars"]

    @property
    def num_results(self):
        """The number of result expressions."""
        return self._get_shape()["num_results"]

    @property
    def dim_names(self):
        """The dimension variables' names, as the map prints them."""
        return list(self._get_shape()["dim_names"])

    @property
    def symbol_names(self):
        """The symbols' names (range, then runtime variables)."""
        return list(self._get_shape()["symbol_names"])

    @property
    def known_empty(self):
        """True when the map is KNOWN EMPTY (no point, proven by parsing).

        is_empty() decides emptiness exactly; this only reads the flag.
        """
        return self._get_shape()["known_empty"]

    # -- algebra ------------------------------------------------------------

    def simplify(self, trace=False):
        """The simplified map (the `simplify` op).

        Args:
          trace: also return the simplifier's steps.

        Returns:
          The simplified IndexingMap; with trace=True a pair (map, steps)
          where steps is a list of dicts {"rule", "before", "after"}.
        """
        answer = _call("simplify", map=self._text,
                       explain=True if trace else None)
        simplified = IndexingMap._from_canonical(answer["map"])
        if trace:
            return simplified, answer.get("trace", [])
        return simplified

    def compose(self, *others):
        """This map applied first, then each of `others` in turn.

        The results of this map feed the dims of the next one, as the
        `compose` op orders its list. Returns the composed, simplified map.
        """
        return compose(self, *others)

    def evaluate(self, dims, symbols=()):
        """The results at one point, as a list of ints.

        The expressions are evaluated at any point, inside the domain or
        not; contains() tells whether the point is in the domain. Both are
        the `evaluate` op.

        Args:
          dims: one int per dim.
          symbols: one int per symbol (range, then runtime variables).
        """
        return self._evaluate(dims, symbols)["results"]

    def contains(self, dims, symbols=()):
        """True when the point satisfies the domain and the constraints."""
        return self._evaluate(dims, symbols)["in_domain"]

    def _evaluate(self, dims, symbols):
        return _call("evaluate", map=self._text, dims=dims, symbols=symbols)

    def is_empty(self):
        """True when no point satisfies the domain and constraints (exact)."""
        return _call("is_empty", map=self._text)["empty"]

    def equivalent(self, other):
        """True when both maps give the same results on the same domain.

        The maps must be over the same variables; else ixa.Error.
        """
        answer = _call("equivalent", a=self._text, b=_map_text(other))
        return answer["equivalent"]

    def counterexample(self, other):
        """A point where the maps differ, or None when they are equivalent.

        Returns:
          ixa.Point(dims, symbols), or None.
        """
        answer = _call("equivalent", a=self._text, b=_map_text(other))
        if answer["equivalent"]:
            return None
        point = answer.get("counterexample") or {}
        return Point(list(point.get("dims", [])),
                     list(point.get("symbols", [])))

    def bounds(self, expr=None):
        """The range of each result over the domain (the `bounds` op).

        Args:
          expr: an affine expression over the map's variables (text) to
            bound instead of the results.

        Returns:
          ixa.Bounds(results, exact): results is a list of (lo, hi) pairs,
          one per result (one for expr); exact is False where a pair is a
          sound over-approximation.
        """
        answer = _call("bounds", map=self._text, expr=expr)
        return Bounds([tuple(pair) for pair in answer["results"]],
                      answer["exact"])

    def remove_unused_symbols(self):
        """The map without the symbols that no result uses and that share no
        constraint with a used variable (the `remove_unused_symbols` op)."""
        return self._transformed("remove_unused_symbols")

    def remove_unused_vars(self):
        """The same, for dims and symbols (the `remove_unused_vars` op)."""
        return self._transformed("remove_unused_vars")

    def rescale_symbols(self):
        """The map with each symbol s constrained by `s mod c in [r, r]`
        replaced by s * c + r (the `rescale_symbols` op)."""
        return self._transformed("rescale_symbols")

    def convert_symbols_to_dims(self, symbols=None):
        """The map with range variables turned into trailing dims (the
        `convert_symbols_to_dims` op).

        Args:
          symbols: indices of the range variables to convert (default all).
        """
        return self._transformed("convert_symbols_to_dims", symbols=symbols)

    def _transformed(self, op, **fields):
        answer = _call(op, map=self._text, **fields)
        return IndexingMap._from_canonical(answer["map"])


def compose(*maps):
    """The maps applied in order: maps[0] first, its results feed maps[1].

    Args:
      maps: two or more IndexingMap objects or map texts.

    Returns:
      The composed and simplified IndexingMap (the `compose` op).
    """
    if len(maps) == 1 and isinstance(maps[0], (list, tuple)):
        maps = tuple(maps[0])
    if len(maps) < 2:
        raise Error("bad_request", "compose needs two or more maps")
    answer = _call("compose", maps=[_map_text(m) for m in maps])
    return IndexingMap._from_canonical(answer["map"])
