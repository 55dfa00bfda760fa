"""ixa.Error: every failure raises it, with the CLI's code, line and column."""

import math
import pickle

import pytest

import ixa
from conftest import op_fields

BAD_HLO = """HloModule bad
ENTRY main {
  p0 = f32[8]{0} parameter(0)
  ROOT neg = f32[8]{0} negate(p1)
}
"""


def _raises(call):
    with pytest.raises(ixa.Error) as info:
        call()
    return info.value


def test_error_attributes():
    e = _raises(lambda: ixa.IndexingMap("(d0) ->\n (d0 +)"))
    assert isinstance(e, Exception)
    assert e.code == "parse_error"
    assert (e.line, e.column) == (2, 7)
    assert "expected an expression" in e.message
    assert str(e).startswith("parse_error: ")
    assert "(line 2, column 7)" in str(e)
    copied = pickle.loads(pickle.dumps(e))
    assert (copied.code, copied.message, copied.line, copied.column) == \
        (e.code, e.message, e.line, e.column)


def test_positions_are_none_without_text():
    e = _raises(lambda: ixa.query({"op": "nope"}))
    assert e.code == "bad_request"
    assert e.line is None and e.column is None
    assert "(line" not in str(e)


@pytest.mark.parametrize("text, code", [
    ("(d0) -> (d0 floordiv 0)", "invalid_argument"),
    ("(d0, d0) -> (d0)", "invalid_argument"),
    ("(d0) -> (d0", "parse_error"),
    ("", "parse_error"),
    ("(d0) -> (d0), domain: d0 in [0, 9223372036854775808]", "parse_error"),
])
def test_map_errors_match_the_cli(cli, text, code):
    e = _raises(lambda: ixa.IndexingMap(text))
    (response,) = cli([{"op": "parse", "map": text}])
    expected = response["error"]
    assert e.code == expected["code"] == code
    assert e.message == expected["message"]
    assert (e.line, e.column) == (expected.get("line"), expected.get("column"))


def test_hlo_parse_error_has_position(cli):
    e = _raises(lambda: ixa.HloModule(BAD_HLO))
    assert e.code == "parse_error"
    assert e.line == 4 and e.column is not None
    (response,) = cli([{"op": "fusion_cost", "hlo": BAD_HLO}])
    error = response["error"]
    assert (e.line, e.column) == (error["line"], error["column"])


def test_op_errors():
    m = ixa.IndexingMap(
        "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 3]")
    assert _raises(lambda: m.evaluate([1])).code == "invalid_argument"
    assert _raises(lambda: m.evaluate([1, 2], [0])).code == "invalid_argument"
    assert _raises(lambda: m.equivalent("(d0) -> (d0)")).code == \
        "invalid_argument"
    assert _raises(lambda: m.bounds(expr="d7 +")).code == "parse_error"
    module = ixa.HloModule("ROOT x = f32[4]{0} parameter(0)")
    assert _raises(lambda: module.fusion_cost(fusion="nope")).code in (
        "invalid_argument", "bad_request")
    assert _raises(lambda: module.emit("fortran")).code in (
        "invalid_argument", "bad_request", "unsupported")


@pytest.mark.parametrize("make", [
    lambda: ixa.IndexingMap(42),
    lambda: ixa.IndexingMap(None),
    lambda: ixa.IndexingMap(b"(d0) -> (d0)"),
    lambda: ixa.IndexingMap("(d0) -> (d0)").equivalent(7),
    lambda: ixa.HloModule(b"ROOT x = f32[4]{0} parameter(0)"),
    lambda: ixa.HloModule(None),
    lambda: ixa.query("not a dict"),
    lambda: ixa.query({"op": "interval", "fn": "add", "args": object()}),
])
def test_wrong_python_types_raise_type_error(make):
    with pytest.raises(TypeError):
        make()


def test_error_is_a_value_error():
    assert issubclass(ixa.Error, ValueError)
    with pytest.raises(ValueError) as info:
        ixa.IndexingMap("(d0) -> (d1)")
    assert isinstance(info.value, ixa.Error)
    assert info.value.code == "parse_error"
    assert (info.value.line, info.value.column) == (1, 10)


@pytest.mark.parametrize("make", [
    lambda: ixa.HloModule("\ud800"),
    lambda: ixa.query({"op": "interval", "fn": "add",
                       "args": [[0, math.nan], [0, 1]]}),
    lambda: ixa.IndexingMap("(d0) -> (d0)").evaluate("seven"),
    lambda: ixa.IndexingMap("(d0) -> (d0)").evaluate([2 ** 70]),
    lambda: ixa.IndexingMap("(d0) -> (d0)").to_string(syntax=None),
])
def test_bad_arguments_raise_ixa_error(make):
    e = _raises(make)
    assert e.code in ("bad_request", "invalid_argument", "parse_error")


@pytest.mark.parametrize("text", [
    "(", ")", "->", "(d0) -> (d0 mod)", "(d0)[s0 -> (s0)", "KNOWN", "\x00",
    "(d0) -> (" + "(" * 300 + "d0" + ")" * 300 + ")",
    "(d0) -> (d0), domain: d0 in [5",
])
def test_garbage_map_text_raises(text):
    assert _raises(lambda: ixa.IndexingMap(text)).code in (
        "parse_error", "invalid_argument", "limit_exceeded")


@pytest.mark.parametrize("text", [
    "", "HloModule", "ENTRY {", "ROOT = f32[] add()",
    "x = f32[2]{0} parameter(0)\n" * 2,
    "ENTRY e { ROOT r = f32[2]{0} fusion(), calls=missing }",
])
def test_garbage_hlo_raises(text):
    assert _raises(lambda: ixa.HloModule(text)).code in (
        "parse_error", "invalid_argument", "limit_exceeded")


def test_failed_query_raises_with_the_response_error(cli):
    request = {"id": "x", "op": "compose", "maps": ["(d0) -> (d0)"]}
    e = _raises(lambda: ixa.query(request))
    (response,) = cli([request])
    assert op_fields(response)["error"] == {"code": e.code,
                                            "message": e.message}
