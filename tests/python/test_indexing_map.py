"""ixa.IndexingMap: parse and print, the algebra ops, and equality with the
answers of `ixa query`."""

import copy
import pickle

import pytest

import ixa
from conftest import op_fields

AFFINE = ("(d0, d1) -> (d0 floordiv 4 + d1 * 2 + 1, d1 mod 3), "
          "domain: d0 in [0, 9], d1 in [0, 9]")
SYMBOLIC = ("(d0, d1) -> (d1 * 2 + d0 / 4 + 1, d1 mod 3), "
            "domain: d0 in [0, 9], d1 in [0, 9]")
RESHAPE = ("(d0, d1) -> ((d0 * 8 + d1) floordiv 8, (d0 * 8 + d1) mod 8), "
           "domain: d0 in [0, 3], d1 in [0, 7]")
IDENTITY_4x8 = "(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 7]"
WITH_SYMBOLS = ("(d0)[s0]{rt0} -> (d0 + s0 + rt0), "
                "domain: d0 in [0, 9], s0 in [0, 3], rt0 in [0, 2]")
CONSTRAINED = ("(d0, d1)[s0] -> (d0 + s0, d1 floordiv 2), domain: "
               "d0 in [0, 9], d1 in [0, 19], s0 in [0, 3], d0 + s0 in [0, 10]")


def test_parse_prints_canonically():
    m = ixa.IndexingMap(AFFINE)
    assert str(m) == AFFINE
    assert m.to_string() == AFFINE
    assert m.to_string(syntax="affine") == AFFINE
    assert m.to_string(syntax="symbolic") == SYMBOLIC
    # Either generation of the text reads; print is affine unless asked.
    assert str(ixa.IndexingMap(SYMBOLIC)) != SYMBOLIC
    assert ixa.IndexingMap(SYMBOLIC).to_string("symbolic") == SYMBOLIC
    # Layout of the text (newlines, no commas before domain items) does not
    # matter to the canonical print.
    loose = AFFINE.replace(", domain:", "\ndomain:\n")
    loose = loose.replace(", d1 in", "\nd1 in")
    assert str(ixa.IndexingMap.parse(loose)) == AFFINE


def test_to_string_rejects_an_unknown_syntax():
    with pytest.raises(ixa.Error) as info:
        ixa.IndexingMap(AFFINE).to_string(syntax="mlir")
    assert info.value.code == "bad_request"


def test_repr_equality_and_hash():
    m = ixa.IndexingMap(AFFINE)
    assert repr(m) == f"IndexingMap({AFFINE!r})"
    assert eval(repr(m), {"IndexingMap": ixa.IndexingMap}) == m
    # Equal canonical text: equal maps, however the text was laid out.
    same = ixa.IndexingMap(AFFINE.replace(", domain:", "\ndomain:"))
    assert same == m and hash(same) == hash(m)
    assert len({m, same, ixa.IndexingMap(RESHAPE)}) == 2
    # The symbolic text reorders the summands: another map, in text.
    assert ixa.IndexingMap(SYMBOLIC) != m
    assert m != ixa.IndexingMap(RESHAPE)
    assert m != AFFINE  # a map is not its text
    assert ixa.IndexingMap(m) == m
    assert pickle.loads(pickle.dumps(m)) == m
    assert copy.deepcopy(m) == m


def test_shape_properties():
    m = ixa.IndexingMap(WITH_SYMBOLS)
    assert (m.num_dims, m.num_symbols, m.num_results) == (1, 2, 1)
    assert (m.num_range_vars, m.num_runtime_vars) == (1, 1)
    assert m.dim_names == ["d0"]
    assert m.symbol_names == ["s0", "rt0"]
    assert not m.known_empty
    empty = ixa.IndexingMap("KNOWN EMPTY")
    assert empty.known_empty and empty.is_empty()
    r = ixa.IndexingMap(RESHAPE)
    assert (r.num_dims, r.num_symbols, r.num_results) == (2, 0, 2)


def test_simplify_returns_a_new_map():
    m = ixa.IndexingMap(RESHAPE)
    simplified = m.simplify()
    assert isinstance(simplified, ixa.IndexingMap)
    assert str(simplified) == IDENTITY_4x8
    assert str(m) == RESHAPE  # unchanged


def test_simplify_with_trace():
    simplified, trace = ixa.IndexingMap(RESHAPE).simplify(trace=True)
    assert str(simplified) == IDENTITY_4x8
    assert trace
    assert all(set(step) == {"rule", "before", "after"} for step in trace)
    assert trace[0]["before"] == "(d0 * 8 + d1) floordiv 8"
    assert trace[-1]["after"] == "d1"
    _, none = ixa.IndexingMap(IDENTITY_4x8).simplify(trace=True)
    assert none == []


def test_compose_order():
    double = ixa.IndexingMap("(d0) -> (d0 * 2), domain: d0 in [0, 9]")
    increment = ixa.IndexingMap("(d0) -> (d0 + 1), domain: d0 in [0, 100]")
    # double first, then increment: d0 * 2 + 1.
    first_double = double.compose(increment)
    assert first_double.evaluate([3]) == [7]
    assert ixa.compose(double, increment) == first_double
    assert ixa.compose([double, increment]) == first_double
    # increment first, then double: (d0 + 1) * 2.
    assert increment.compose(double).evaluate([3]) == [8]
    # Three maps, texts accepted too.
    three = ixa.compose(double, "(d0) -> (d0 + 1), domain: d0 in [0, 100]",
                        double)
    assert three.evaluate([3]) == [14]
    assert double.compose(increment, double) == three


def test_compose_needs_two_maps():
    with pytest.raises(ixa.Error) as info:
        ixa.compose(ixa.IndexingMap(AFFINE))
    assert info.value.code == "bad_request"


def test_evaluate_and_contains():
    m = ixa.IndexingMap(CONSTRAINED)
    assert m.evaluate([9, 19], [1]) == [10, 9]
    assert m.contains([9, 19], [1])
    # Outside the constraint d0 + s0 <= 10: results still evaluated.
    assert m.evaluate([9, 19], symbols=(3,)) == [12, 9]
    assert not m.contains([9, 19], symbols=(3,))
    halves = ixa.IndexingMap("(d0) -> (d0 floordiv 2, d0 mod 2)")
    assert halves.evaluate(range(-7, -6)) == [-4, 1]  # any sequence


def test_is_empty():
    assert ixa.IndexingMap(
        "(d0) -> (d0), domain: d0 in [0, 9], d0 mod 4 in [5, 6]").is_empty()
    assert ixa.IndexingMap("(d0) -> (d0), domain: d0 in [10, 0]").is_empty()
    assert not ixa.IndexingMap(CONSTRAINED).is_empty()


def test_equivalent_and_counterexample():
    a = ixa.IndexingMap("(d0) -> (d0), domain: d0 in [0, 9]")
    b = ixa.IndexingMap(
        "(d0) -> (d0 floordiv 2 * 2 + d0 mod 2), domain: d0 in [0, 9]")
    assert a.equivalent(b)
    assert a.counterexample(b) is None
    c = ixa.IndexingMap("(d0) -> (d0 mod 8), domain: d0 in [0, 9]")
    assert not a.equivalent(c)
    point = a.counterexample(c)
    assert isinstance(point, ixa.Point)
    assert a.evaluate(*point) != c.evaluate(*point)
    assert a.contains(point.dims, point.symbols)
    assert a.equivalent("(d0) -> (d0), domain: d0 in [0, 9]")


def test_bounds():
    m = ixa.IndexingMap("(d0, d1) -> (d0 + d1, d0 * 2), "
                        "domain: d0 in [0, 9], d1 in [0, 3]")
    assert m.bounds() == ixa.Bounds([(0, 12), (0, 18)], True)
    assert m.bounds().results == [(0, 12), (0, 18)]
    assert m.bounds(expr="d0 - d1") == ([(-3, 9)], True)
    unbounded = ixa.IndexingMap("(d0, d1) -> (d0 + d1)").bounds()
    assert not unbounded.exact
    assert unbounded.results == [(-2**63, 2**63 - 1)]


def test_symbol_transforms():
    m = ixa.IndexingMap("(d0)[s0, s1] -> (d0 + s0), "
                        "domain: d0 in [0, 9], s0 in [0, 3], s1 in [0, 5]")
    assert m.remove_unused_symbols().num_symbols == 1
    converted = m.convert_symbols_to_dims()
    assert (converted.num_dims, converted.num_symbols) == (3, 0)
    assert m.convert_symbols_to_dims(symbols=[0]).num_dims == 2
    assert isinstance(m.rescale_symbols(), ixa.IndexingMap)
    assert m.remove_unused_vars().num_symbols == 1


MAPS = [AFFINE, RESHAPE, WITH_SYMBOLS, CONSTRAINED,
        "(d0) -> (d0 mod 8, (d0 + 3) floordiv 4), domain: d0 in [0, 31]",
        "(d0, d1)[s0] -> (d0 * 4 + s0, d1), "
        "domain: d0 in [0, 7], d1 in [0, 3], s0 in [0, 3]"]


@pytest.mark.parametrize("text", MAPS)
def test_answers_equal_the_cli(cli, text):
    m = ixa.IndexingMap(text)
    dims = [0] * m.num_dims
    symbols = [1] * m.num_symbols
    # The first result moved by one: over the same variables, not equal.
    names = ", ".join(f"d{i}" for i in range(m.num_results))
    rest = "".join(f", d{i}" for i in range(1, m.num_results))
    shift = f"({names}) -> (d0 + 1{rest})"
    shifted = str(ixa.compose(m, shift))
    requests = [
        {"op": "parse", "map": text},
        {"op": "parse", "map": text, "syntax": "symbolic"},
        {"op": "simplify", "map": text, "explain": True},
        {"op": "is_empty", "map": text},
        {"op": "bounds", "map": text},
        {"op": "evaluate", "map": text, "dims": dims, "symbols": symbols},
        {"op": "equivalent", "a": text, "b": str(m.simplify())},
        {"op": "equivalent", "a": text, "b": shifted},
        {"op": "compose", "maps": [text, shift]},
    ]
    (parse, symbolic, simplify, empty, bounds, evaluate, equivalent,
     different, composed) = [op_fields(r) for r in cli(requests)]
    assert str(m) == parse["map"]
    assert m.to_string("symbolic") == symbolic["map"]
    simplified, trace = m.simplify(trace=True)
    assert str(simplified) == simplify["map"]
    assert trace == simplify.get("trace", [])
    assert m.is_empty() == empty["empty"]
    assert m.bounds() == ([tuple(b) for b in bounds["results"]],
                          bounds["exact"])
    assert m.evaluate(dims, symbols) == evaluate["results"]
    assert m.contains(dims, symbols) == evaluate["in_domain"]
    assert m.equivalent(simplified) == equivalent["equivalent"]
    assert m.equivalent(shifted) == different["equivalent"]
    point = m.counterexample(shifted)
    if different["equivalent"]:
        assert point is None
    else:
        assert point._asdict() == different["counterexample"]
    assert shifted == composed["map"]


def test_query_any_op():
    response = ixa.query({"id": 7, "op": "interval", "fn": "add",
                          "args": [[0, 1], [2, 3]]})
    assert response == {"id": 7, "ok": True, "result": [2, 4]}
    # Maps travel as their text.
    m = ixa.IndexingMap(RESHAPE)
    assert ixa.query({"op": "simplify", "map": m})["map"] == IDENTITY_4x8


def test_version():
    assert isinstance(ixa.__version__, str)
    assert ixa.__version__.count(".") == 2
