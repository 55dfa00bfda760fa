"""`pip install .` from the repository root, offline, reusing the CMake
build that runs this test (IXA_BUILD_DIR): the installed package imports
from a folder with nothing else of ixa on the path."""

import os
import pathlib
import subprocess
import sys
import sysconfig

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_pip_install_offline(tmp_path):
    build = os.environ.get("IXA_BUILD_DIR")
    if not build:
        pytest.skip("IXA_BUILD_DIR (the CMake build to reuse) is not set")
    if subprocess.run([sys.executable, "-m", "pip", "--version"],
                      capture_output=True, check=False).returncode != 0:
        pytest.skip(f"pip is missing for {sys.executable} "
                    "(apt-get install python3-pip)")
    site = tmp_path / "site"
    env = dict(os.environ, IXA_CMAKE_BUILD_DIR=build, PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    env.pop("PYTHONPATH", None)
    run = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-build-isolation",
         "--no-deps", "--target", str(site), str(REPO)],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    package = site / "ixa"
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for name in ("__init__.py", "__init__.pyi", "py.typed", "_result.py",
                 "_ixa" + suffix):
        assert (package / name).exists(), name
    env["PYTHONPATH"] = str(site)
    check = subprocess.run(
        [sys.executable, "-c",
         "import ixa; print(ixa.__file__); "
         "print(ixa.IndexingMap('(d0) -> (d0 floordiv 1), "
         "domain: d0 in [0, 9]').simplify())"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stderr
    assert check.stdout.splitlines() == [
        str(package / "__init__.py"), "(d0) -> (d0), domain: d0 in [0, 9]"]
    # Nothing written into the source tree (setuptools' folders are in
    # the CMake build).
    assert not (REPO / "tools" / "python" / "ixa.egg-info").exists()
    assert not (REPO / "ixa.egg-info").exists()
