"""Shared fixtures of the Python module's tests.

Run by CTest (the `python` test: PYTHONPATH is the built package, IXA_CLI
the CLI), or by hand:
  PYTHONPATH=build/python IXA_CLI=build/bin/ixa \
      python3 -m pytest -q tests/python
"""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MLP_HLO = REPO / "tests" / "analysis" / "hlo_corpus" / "gpu_after_opt_mlp.hlo"


def _cli_path():
    path = os.environ.get("IXA_CLI") or str(REPO / "build" / "bin" / "ixa")
    return path if os.path.exists(path) else None


@pytest.fixture(scope="session")
def cli():
    """Answers a list of requests with `ixa query`: the list of responses."""
    path = _cli_path()
    if path is None:
        pytest.skip("the ixa CLI is not built (set IXA_CLI)")

    def answer(requests):
        lines = "".join(json.dumps(r) + "\n" for r in requests)
        run = subprocess.run([path, "query"], input=lines, capture_output=True,
                             text=True, check=False)
        responses = [json.loads(line) for line in run.stdout.splitlines()]
        assert len(responses) == len(requests), run.stderr
        return responses

    return answer


def op_fields(response):
    """A CLI response without its envelope: what the Python methods return."""
    return {k: v for k, v in response.items() if k not in ("ok", "id")}


@pytest.fixture(scope="session")
def mlp_text():
    return MLP_HLO.read_text(encoding="utf-8")
