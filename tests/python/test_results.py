"""Typed results: attributes and dict access, to_dict(), the docstrings
written from the protocol's table, and the type stubs."""

import ast
import copy
import inspect
import json
import pathlib
import pickle

import pytest

import ixa
from conftest import op_fields

REPO = pathlib.Path(__file__).resolve().parents[2]
STUBS = REPO / "tools" / "python" / "ixa" / "__init__.pyi"

LOG_TRANSPOSE = """HloModule m
ENTRY e {
  p = f32[1024,1024] parameter(0)
  l = f32[1024,1024] log(p)
  ROOT t = f32[1024,1024] transpose(l), dimensions={1,0}
}
"""


@pytest.fixture(scope="module")
def mlp(mlp_text):
    return ixa.HloModule(mlp_text)


def test_fusion_cost_is_typed(mlp, cli):
    cost = mlp.fusion_cost(fusion="fusion.3", model="xla")
    assert type(cost) is ixa.FusionCost
    assert isinstance(cost, ixa.Result) and isinstance(cost, dict)
    assert cost.time_us == cost["time_us"] > 0
    assert cost.launch.blocks == cost["launch"]["blocks"]
    assert isinstance(cost.launch, ixa.Result)
    assert cost.operands[0].bytes_total == cost["operands"][0]["bytes_total"]
    assert cost.model == "xla"
    # Still the CLI's answer, field for field.
    [expected] = cli([{"op": "fusion_cost", "hlo": mlp.text,
                       "fusion": "fusion.3", "model": "xla"}])
    assert cost == op_fields(expected)


def test_to_dict_is_plain(mlp):
    cost = mlp.fusion_cost(fusion="fusion.3")
    plain = cost.to_dict()
    assert type(plain) is dict and plain == cost
    assert type(plain["launch"]) is dict
    assert all(type(o) is dict for o in plain["operands"])
    assert json.loads(json.dumps(cost)) == plain
    assert pickle.loads(pickle.dumps(cost)) == cost
    assert type(pickle.loads(pickle.dumps(cost))) is ixa.FusionCost
    assert copy.deepcopy(cost) == cost


def test_missing_field_is_attribute_error(mlp):
    cost = mlp.fusion_cost(fusion="fusion.3")
    with pytest.raises(AttributeError, match="no field 'time_ms'"):
        cost.time_ms
    with pytest.raises(KeyError):
        cost["time_ms"]
    assert not hasattr(cost, "time_ms")
    assert "time_us" in dir(cost)


def test_decision_and_plan_are_typed():
    module = ixa.HloModule(LOG_TRANSPOSE)
    decision = module.fusion_decision("l")
    assert type(decision) is ixa.FusionDecision
    assert decision.legal is True and decision.fuse is True
    assert decision.consumers == ["t"]
    assert decision.fused.kernels == 1
    plan = module.fusion_plan(model="xla")
    assert type(plan) is ixa.FusionPlan
    assert plan.kernels_before == 2 and plan.kernels_after == 1
    assert plan.decisions[0].producer == "l"
    assert plan.decisions[0]["kind"] == "fuse"


def test_every_method_answers_its_class(mlp):
    assert type(mlp.indexing()) is ixa.Indexing
    assert type(mlp.fusion_indexing("fusion.3")) is ixa.FusionIndexing
    assert type(mlp.partition("fusion.3")) is ixa.Partition
    assert type(mlp.thread_indexing("fusion.3")) is ixa.ThreadIndexing
    assert type(mlp.coalescing("fusion.3")) is ixa.Coalescing
    assert type(mlp.utilization("fusion.3")) is ixa.Utilization
    assert type(mlp.emit("cpp", fusion="fusion.3")) is ixa.Emitted
    assert type(ixa.query({"op": "interval", "fn": "add",
                           "args": [[0, 1], [2, 3]]})) is ixa.Result


def test_simplify_and_bounds_as_before():
    m = ixa.IndexingMap("(d0) -> (d0 floordiv 1), domain: d0 in [0, 9]")
    assert isinstance(m.simplify(), ixa.IndexingMap)
    bounds = m.bounds()
    assert bounds.results == [(0, 9)] and bounds.exact is True
    _, steps = m.simplify(trace=True)
    assert all(isinstance(s, dict) for s in steps)


def test_docstrings_name_the_protocol_fields():
    # The response's fields with their types, from `ixa help fusion_cost`.
    for field in ("time_us (number)", "bytes_read (int)", "launch (object)",
                  "memory_us (number)"):
        assert field in ixa.FusionCost.__doc__, field
    assert "priority_us (number or null)" in ixa.FusionDecision.__doc__
    assert "kernels_after (int)" in ixa.FusionPlan.__doc__
    method = ixa.HloModule.fusion_cost.__doc__
    assert "model (string, default: \"ixa\")" in method
    assert "Returns ixa.FusionCost" in method
    assert "hlo (string" not in method  # the module itself
    assert "consumer (string" in ixa.HloModule.fusion_decision.__doc__
    assert "shape (string, required)" in ixa.layout.__doc__


def _stub_names():
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    names, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {
                n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        if isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    return names, members


def test_stubs_cover_the_public_api():
    names, members = _stub_names()
    public = set(ixa.__all__)
    assert public - names == set(), "public names without a stub"
    assert {n for n in names if not n.startswith("_")} - public == set(), \
        "stubs of names the package does not export"
    for cls in (ixa.HloModule, ixa.IndexingMap):
        methods = {n for n in vars(cls) if not n.startswith("_")}
        assert methods - members[cls.__name__] == set(), cls.__name__
        assert {n for n in members[cls.__name__] if not n.startswith("_")} \
            - methods == set(), cls.__name__
    # Every stubbed keyword exists on the method (and the reverse).
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    hlo = next(n for n in tree.body
               if isinstance(n, ast.ClassDef) and n.name == "HloModule")
    for node in hlo.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_") \
                or isinstance(vars(ixa.HloModule)[node.name], property):
            continue
        stubbed = [a.arg for a in node.args.args + node.args.kwonlyargs]
        real = list(inspect.signature(getattr(ixa.HloModule,
                                              node.name)).parameters)
        if node.args.kwarg:
            stubbed.append(node.args.kwarg.arg)
        drop = ("self", "cls")
        assert [a for a in stubbed if a not in drop] == \
            [a for a in real if a not in drop], node.name
