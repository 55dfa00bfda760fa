"""ixa.HloModule: the module's outline, each HLO op against `ixa query`, and
the example script."""

import os
import subprocess
import sys

import pytest

import ixa
from conftest import MLP_HLO, REPO, op_fields

MLP_FUSIONS = ["fusion.5", "fusion.4", "fusion.3", "fusion.2", "fusion.1",
               "fusion"]

ADD = """HloModule add
ENTRY main {
  p0 = f32[8,16]{1,0} parameter(0)
  p1 = f32[8,16]{1,0} parameter(1)
  ROOT add = f32[8,16]{1,0} add(p0, p1)
}
"""


@pytest.fixture(scope="module")
def mlp(mlp_text):
    return ixa.HloModule(mlp_text)


def test_outline(mlp):
    assert mlp.fusions() == MLP_FUSIONS
    assert mlp.name == "jit_train_step"
    assert mlp.entry == "main.40"
    assert mlp.root == "tuple.39"
    by_name = {i["name"]: i for i in mlp.instructions()}
    assert by_name["fusion.4"]["opcode"] == "fusion"
    assert by_name["fusion.4"]["operands"] == ["get-tuple-element.2",
                                               "Arg_1.2"]
    assert by_name["fusion.4"]["calls"] == ["fused_reduce"]
    assert by_name["fusion.4"]["shape"] == "f32[64]{0}"
    assert "fused_reduce" in mlp.computations()
    assert "6 fusions" in repr(mlp)
    # The outline is a copy: changing it changes nothing.
    mlp.instructions()[0]["name"] = "x"
    assert mlp.instructions()[0]["name"] != "x"


def test_from_file():
    module = ixa.HloModule.from_file(MLP_HLO)
    assert module.fusions() == MLP_FUSIONS
    assert module.text == MLP_HLO.read_text(encoding="utf-8")


def test_fusion_cost_fields(mlp):
    cost = mlp.fusion_cost(fusion="fusion.3")
    for field in ("time_us", "memory_us", "compute_us", "bytes_read",
                  "bytes_written", "flops", "launch", "coalescing"):
        assert field in cost, field
    assert "ok" not in cost and "id" not in cost
    assert cost["bytes_read"] > 0


def test_keyword_arguments_reach_the_request():
    module = ixa.HloModule(ADD)
    forward = module.indexing()
    assert [o["name"] for o in forward["operands"]] == ["p0", "p1"]
    backward = module.indexing(direction="input_to_output", operand=1)
    assert "outputs" in backward and "operands" not in backward
    a100 = module.fusion_cost(device="a100")["time_us"]
    h100 = module.fusion_cost(device="h100")["time_us"]
    assert a100 != h100
    assert module.emit("cpp", kernel="my_add")["kernel"] == "my_add"


def _tile_sizes(module, fusion):
    shape = next(i["shape"] for i in module.instructions()
                 if i["name"] == fusion)
    dims = shape[shape.index("[") + 1:shape.index("]")]
    return [1] * (dims.count(",") + 1) if dims else []


def test_ops_equal_the_cli(cli, mlp, mlp_text):
    # One request per op and fusion; each method's answer is the CLI's.
    calls = []
    for fusion in ("fusion.4", "fusion.2", "fusion"):
        sizes = _tile_sizes(mlp, fusion)
        calls += [
            ("fusion_indexing", {"fusion": fusion},
             lambda f=fusion: mlp.fusion_indexing(f)),
            ("thread_indexing", {"fusion": fusion},
             lambda f=fusion: mlp.thread_indexing(f)),
            ("coalescing", {"fusion": fusion},
             lambda f=fusion: mlp.coalescing(f)),
            ("utilization", {"fusion": fusion},
             lambda f=fusion: mlp.utilization(f)),
            ("fusion_cost", {"fusion": fusion, "device": "a100"},
             lambda f=fusion: mlp.fusion_cost(f, device="a100")),
            ("tile", {"fusion": fusion, "tile": {"sizes": sizes}},
             lambda f=fusion, s=sizes: mlp.tile(s, fusion=f)),
            ("emit", {"fusion": fusion, "target": "cpp"},
             lambda f=fusion: mlp.emit("cpp", fusion=f)),
            ("partition", {"fusion": fusion},
             lambda f=fusion: mlp.partition(f)),
        ]
    calls += [
        ("indexing", {"instruction": "fusion.2"},
         lambda: mlp.indexing("fusion.2")),
        ("fusion_indexing", {"instructions": ["fusion.2", "fusion.1"]},
         lambda: mlp.fusion_indexing(instructions=["fusion.2", "fusion.1"])),
        ("fusion_decision", {"producer": "fusion.2", "consumer": "fusion.1"},
         lambda: mlp.fusion_decision("fusion.2", "fusion.1")),
    ]
    requests = [dict(op=op, hlo=mlp_text, **fields) for op, fields, _ in calls]
    responses = cli(requests)
    for (op, fields, method), response in zip(calls, responses):
        assert response["ok"], (op, fields, response)
        assert method() == op_fields(response), (op, fields)


def test_example_script_prints_one_line_per_fusion():
    script = REPO / "tools" / "python" / "examples" / "fusion_costs.py"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [os.path.dirname(os.path.dirname(ixa.__file__)),
                    env.get("PYTHONPATH")] if p)
    run = subprocess.run([sys.executable, str(script), str(MLP_HLO)], env=env,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert [line.split()[0] for line in lines] == MLP_FUSIONS
    for line, fusion in zip(lines, MLP_FUSIONS):
        cost = ixa.HloModule.from_file(MLP_HLO).fusion_cost(fusion=fusion)
        fields = line.split()
        assert float(fields[1]) == pytest.approx(cost["time_us"], rel=1e-3,
                                                 abs=1e-3)
        assert int(fields[2]) == cost["bytes_read"]
        assert int(fields[3]) == cost["flops"]


PAIR = """HloModule pair
ENTRY e {
  p = f32[1024,1024] parameter(0)
  l = f32[1024,1024] log(p)
  ROOT t = f32[1024,1024] transpose(l), dimensions={1,0}
}
"""

# A dot cannot be fused into its consumer: the rules refuse it.
FORBIDDEN = """HloModule forbidden
ENTRY e {
  p = f32[64,64] parameter(0)
  q = f32[64,64] parameter(1)
  d = f32[64,64] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[64,64] negate(d)
}
"""


def test_uses_take_the_protocols_fields(cli, mlp, mlp_text):
    pair = ixa.HloModule(PAIR)
    calls = [
        ({"op": "fusion_cost", "hlo": mlp_text, "fusion": "fusion.2",
          "model": "xla"},
         lambda: mlp.fusion_cost("fusion.2", model="xla")),
        ({"op": "fusion_cost", "hlo": PAIR, "instructions": ["l", "t"],
          "device": {"base": "h100", "dram_gbps": 2000}},
         lambda: pair.fusion_cost(instructions=["l", "t"],
                                  device={"base": "h100",
                                          "dram_gbps": 2000})),
        ({"op": "fusion_decision", "hlo": PAIR, "producer": "l"},
         lambda: pair.fusion_decision("l")),
        ({"op": "fusion_decision", "hlo": PAIR, "producer": "l",
          "consumer": "t", "model": "xla", "device": "a100"},
         lambda: pair.fusion_decision("l", "t", model="xla",
                                      device="a100")),
        ({"op": "fusion_plan", "hlo": PAIR, "model": "xla"},
         lambda: pair.fusion_plan(model="xla")),
        ({"op": "valid_tilings", "hlo": mlp_text, "fusion": "fusion.2",
          "limit": 3},
         lambda: mlp.valid_tilings("fusion.2", limit=3)),
    ]
    responses = cli([request for request, _ in calls])
    for (request, method), response in zip(calls, responses):
        assert response["ok"], (request["op"], response)
        assert method() == op_fields(response), request["op"]
    assert mlp.fusion_cost("fusion.2", model="xla")["model"] == "xla"
    assert pair.fusion_decision("l")["consumers"] == ["t"]
    assert pair.fusion_plan()["kernels_after"] == 1
    assert pair.fusion_cost(
        device={"base": "h100", "dram_gbps": 2000})["device"] == "h100-custom"


def test_a_forbidden_fusion_names_its_rule_and_no_speedup():
    decision = ixa.HloModule(FORBIDDEN).fusion_decision("d")
    assert decision["legal"] is False and decision["fuse"] is False
    assert decision["rule"] == "not_fusible"
    assert decision["speedup"] is None and decision["priority_us"] is None


def test_unknown_model_is_an_error():
    with pytest.raises(ixa.Error) as info:
        ixa.HloModule(PAIR).fusion_cost(model="roofline")
    assert info.value.code == "invalid_argument"


LONG_ROW = """HloModule long
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,65536] parameter(0)
  e = f32[64,65536] exponential(x)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(e, z), dimensions={1}, to_apply=add
}
"""


def test_prefusion_and_compile_are_the_cli_answers(cli):
    module = ixa.HloModule(LONG_ROW)
    rewritten = module.prefusion()
    [expected] = cli([{"op": "prefusion", "hlo": LONG_ROW}])
    assert rewritten == op_fields(expected)
    assert rewritten.rewrites, "the long row reduction is split"
    planned = module.fusion_plan(model="xla")
    as_written = module.fusion_plan(model="xla", prefusion=False)
    assert planned.kernels_after == 2
    assert planned.time_after_us < as_written.time_after_us
    program = ixa.HloModule(ADD).compile("cpp")
    [expected] = cli([{"op": "compile", "hlo": ADD, "target": "cpp"}])
    assert program == op_fields(expected)
    assert "ixa_run" in program.code
