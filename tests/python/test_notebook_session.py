"""A notebook-style session, as a newcomer would run it: read an unfused
module from the corpus, plan its fusion, cost the fused kernels, emit the
slowest one as C++ (and compile it), draw its output's layout."""

import shutil
import subprocess

import ixa
from conftest import REPO

ATTENTION = REPO / "tests" / "analysis" / "hlo_corpus" / "jax_before_opt.hlo"


def test_session(tmp_path):
    module = ixa.HloModule.from_file(ATTENTION)
    assert module.fusions() == []  # unfused: what fusion_plan takes

    plan = module.fusion_plan()  # the ixa model: every kernel costed
    assert plan.kernels_after < plan.kernels_before
    assert plan.time_after_us < plan.time_before_us
    assert [d.kind for d in plan.decisions].count("fuse") >= 1
    for decision in plan.decisions:
        if decision.kind == "fuse":
            assert decision.priority_us is not None

    fused = ixa.HloModule(plan.hlo)
    fusions = fused.fusions()
    assert fusions, plan.hlo
    costs = {name: fused.fusion_cost(fusion=name) for name in fusions}
    for name, cost in costs.items():
        assert cost.time_us > 0, name
        assert cost.bytes_read > 0 and cost.bytes_written > 0, name
        assert cost.to_dict() == fused.request("fusion_cost", fusion=name)

    # The slowest fusion the cpp target generates.
    emitted = None
    for name in sorted(costs, key=lambda n: -costs[n].time_us):
        try:
            emitted = fused.emit("cpp", fusion=name)
        except ixa.Error as e:
            assert e.code == "unsupported", e
            continue
        break
    assert emitted is not None, "no fusion of the plan emits as C++"
    assert emitted.kernel and emitted.kernel in emitted.code
    assert emitted.buffers[-1].role == "output"
    source = tmp_path / "kernel.cc"
    source.write_text(emitted.code, encoding="utf-8")
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler:  # the toolchain that built ixa; absent: the rest stands
        run = subprocess.run([compiler, "-std=c++20", "-fsyntax-only",
                              "-Wall", "-Wextra", "-Werror", str(source)],
                             capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stderr

    # The layout of the kernel's output, pictured.
    output = emitted.buffers[-1].shape
    svg = ixa.draw_layout(output)
    assert svg.lstrip().startswith(("<svg", "<?xml"))
    (tmp_path / "output.svg").write_text(svg, encoding="utf-8")
    dims = output[output.index("[") + 1:output.index("]")]
    rank = len(dims.split(",")) if dims else 0
    placed = ixa.layout(output, index=[0] * rank)
    assert placed.offset == 0
