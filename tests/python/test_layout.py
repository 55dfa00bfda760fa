"""ixa.layout (the `layout` op) and ixa.draw_layout (`ixa draw --shape`)."""

import subprocess

import pytest

import ixa
from conftest import op_fields

TILED = "f32[3,5]{1,0:T(2,2)}"


def test_layout_is_the_cli_answer(cli):
    answer = ixa.layout(TILED, index=[2, 3], offsets=[17, 9])
    assert type(answer) is ixa.Layout
    assert answer.offset == 17 and answer.logical == [[2, 3], None]
    assert answer.physical_shape == [2, 3, 2, 2]
    [expected] = cli([{"op": "layout", "shape": TILED, "index": [2, 3],
                       "offsets": [17, 9]}])
    assert answer == op_fields(expected)
    assert ixa.IndexingMap(answer.map).evaluate([2, 3]) == [17]


def test_draw_layout_is_the_cli_picture(cli):
    svg = ixa.draw_layout(TILED, title="a 3x5 tile")
    assert svg.startswith("<svg") or svg.startswith("<?xml")
    assert "a 3x5 tile" in svg
    # Each cell shows its offset: logical (2, 3) is at 17.
    assert 'data-index="2,3"' in svg
    assert ixa.draw_layout(TILED, show_memory=False) != ixa.draw_layout(TILED)
    # The same picture `ixa draw` writes.
    import os
    path = os.environ.get("IXA_CLI")
    if path:
        run = subprocess.run([path, "draw", "--shape", TILED, "--title",
                              "a 3x5 tile"], capture_output=True, text=True,
                             check=True)
        assert run.stdout == svg


def test_layout_errors():
    with pytest.raises(ixa.Error) as e:
        ixa.draw_layout("f32[3,5]{1,0:T(2,2")
    assert e.value.code == "parse_error"
    with pytest.raises(ixa.Error):
        ixa.layout("f32[3,5]{1,0:T(0,2)}")
    with pytest.raises(TypeError):
        ixa.draw_layout(42)
    with pytest.raises(TypeError):
        ixa.layout(["f32[3]"])
    with pytest.raises(TypeError):
        ixa.draw_layout(TILED, title=3)


def test_bank_conflicts_is_the_cli_answer(cli):
    column = "(d0) -> (d0 * 128), domain: d0 in [0, 31]"
    answer = ixa.bank_conflicts(column, 4)
    assert answer.wavefronts["worst"] == 32
    assert not answer.conflict_free
    assert len(answer.counterexample["lanes"]) == 32
    [expected] = cli([{"op": "bank_conflicts", "map": column,
                       "element_bytes": 4}])
    assert answer == op_fields(expected)
    padded = ixa.bank_conflicts(ixa.IndexingMap(
        "(d0) -> (d0 * 132), domain: d0 in [0, 31]"), 4)
    assert padded.conflict_free


def test_swizzle_finds_the_transpose_swizzle():
    dom = ", domain: d0 in [0, 255], d1 in [0, 3]"
    answer = ixa.swizzle(
        [32, 32], "f32",
        "(d0, d1) -> (d0 floordiv 32 + d1 * 8, d0 mod 32)" + dom,
        "(d0, d1) -> (d0 mod 32, d0 floordiv 32 + d1 * 8)" + dom)
    assert answer.after["swizzle"] == [5, 0, 5]
    assert answer.after["bytes"] == 4096
    assert answer.after["wavefronts"] < answer.before["wavefronts"]
    layout = ixa.IndexingMap(answer.map)
    assert layout.evaluate([1, 0]) == [33]
    assert answer.bases["d0"][0] == 33


def test_linear_layout_is_the_cli_answer(cli):
    text = ("{lane: [[1, 1], [2, 2]], warp: [[0, 1], [0, 2]]} -> "
            "{dim0: 4, dim1: 4}")
    answer = ixa.linear_layout(text, fn="invert", apply=[3, 1])
    [expected] = cli([{"op": "linear_layout", "layout": text, "fn": "invert",
                       "apply": [3, 1]}])
    assert answer == op_fields(expected)
    swizzled = ixa.linear_layout(cute="(8,64):(64,1)", swizzle=[3, 3, 3])
    assert swizzled.injective
    outer = ("{dim0: [[0, 1], [0, 2]], dim1: [[1, 0], [2, 0]]} -> "
             "{x: 4, y: 4}")
    composed = ixa.linear_layout(text, fn="compose", with_=outer)
    [expected] = cli([{"op": "linear_layout", "layout": text,
                       "fn": "compose", "with": outer}])
    assert composed == op_fields(expected)


def test_every_layout_op_is_a_function(cli):
    """nested_layout, cute_layout, pto and warp_access answer as the CLI
    does (the protocol's own examples)."""
    nested = dict(subgroup_tile=[2, 1], batch_tile=[2, 4], outer_tile=[1, 1],
                  thread_tile=[16, 4], element_tile=[1, 4],
                  subgroup_strides=[1, 0], thread_strides=[1, 16],
                  shape=[64, 64], subgroup=1, thread=5)
    cases = [
        (ixa.nested_layout(**nested), dict(op="nested_layout", **nested)),
        (ixa.cute_layout("(4,2):(1,4)", fn="compose", with_="<2:2>"),
         {"op": "cute_layout", "layout": "(4,2):(1,4)", "fn": "compose",
          "with": "<2:2>"}),
        (ixa.pto("format", conversion="nchw_to_nc1hwc0", dtype="f16",
                 shape=[1, 20, 4, 4], coords=[0, 1, 2, 3, 4]),
         {"op": "pto", "fn": "format", "conversion": "nchw_to_nc1hwc0",
          "dtype": "f16", "shape": [1, 20, 4, 4], "coords": [0, 1, 2, 3, 4]}),
        (ixa.warp_access("(d0) -> (d0 * 2), domain: d0 in [0, 31]", 4),
         {"op": "warp_access", "map": "(d0) -> (d0 * 2), domain: d0 in "
          "[0, 31]", "element_bytes": 4}),
    ]
    expected = cli([request for _, request in cases])
    for (answer, request), response in zip(cases, expected):
        assert response["ok"], request
        assert answer == op_fields(response), request["op"]
