"""pip's build of the Python module ixa (pyproject.toml names setuptools).

The extension ixa._ixa is built by this project's CMake build (the target
_ixa of tools/python), then copied into the wheel beside the pure Python
files of tools/python/ixa. Two ways:

  python3 -m pip install --no-build-isolation .
      configures a build of its own (Release, no tests, no benchmarks)
      in build/pip/cmake and builds only the extension (the libraries
      and the CLI's op files: some minutes);
  IXA_CMAKE_BUILD_DIR=build python3 -m pip install --no-build-isolation .
      reuses a configured CMake build (built for the same interpreter) and
      builds only what is out of date there.

--no-build-isolation: pip otherwise fetches setuptools from the network.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
REUSE = os.environ.get("IXA_CMAKE_BUILD_DIR")
# setuptools' own build folders, kept out of the source files: in the
# reused CMake build, else in build/pip (/build*/ is ignored by git).
PIP_BUILD = (pathlib.Path(REUSE).resolve() if REUSE else ROOT / "build") / "pip"


def _version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(\s*ixa\s+VERSION\s+([0-9.]+)", text)
    if match is None:
        raise RuntimeError("CMakeLists.txt has no project(ixa VERSION ...)")
    return match.group(1)


def _run(command):
    print("+ " + " ".join(command), flush=True)
    subprocess.run(command, check=True)


class CMakeBuild(build_ext):
    """Builds the extension with CMake instead of compiling sources."""

    def build_extension(self, ext):
        if REUSE:
            build_dir = pathlib.Path(REUSE).resolve()
            if not (build_dir / "CMakeCache.txt").exists():
                raise RuntimeError(f"IXA_CMAKE_BUILD_DIR={REUSE}: not a "
                                   "configured CMake build")
        else:
            build_dir = PIP_BUILD / "cmake"
            if not (build_dir / "CMakeCache.txt").exists():
                configure = [
                    "cmake", "-S", str(ROOT), "-B", str(build_dir),
                    "-DCMAKE_BUILD_TYPE=Release", "-DIXA_BUILD_TESTS=OFF",
                    "-DIXA_BUILD_BENCH=OFF", "-DIXA_BUILD_PYTHON=ON",
                    f"-DPython3_EXECUTABLE={sys.executable}",
                ]
                try:  # pybind11 from pip (a virtual environment) if present
                    import pybind11
                    configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
                except ImportError:
                    pass
                if shutil.which("ninja"):
                    configure += ["-G", "Ninja"]
                if shutil.which("ccache"):  # as tools/setup.sh
                    configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
                _run(configure)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(
            os.cpu_count() or 1)
        _run(["cmake", "--build", str(build_dir), "--target", "_ixa",
              "--parallel", jobs])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build_dir / "python" / "ixa" / ("_ixa" + suffix)
        if not built.exists():
            raise RuntimeError(f"{built} is missing: the CMake build in "
                               f"{build_dir} is not for {sys.executable} "
                               "(or builds no Python module)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    version=_version(),
    package_dir={"": "tools/python"},
    packages=["ixa"],
    package_data={"ixa": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("ixa._ixa", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    options={
        "build": {"build_base": str(PIP_BUILD)},
        "egg_info": {"egg_base": str(PIP_BUILD)},
    },
)
