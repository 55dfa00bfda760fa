#!/usr/bin/env python3
"""Regenerates the seed corpora of the libFuzzer targets (tests/fuzz/corpus).

  python3 tests/fuzz/make_seeds.py

Seeds come from the tree: the maps of docs/*.md written out in
tests/core/spec_maps_test.cc, every map and module of the CLI goldens
(tests/cli/*.jsonl) and the examples (tools/examples/*.jsonl), the HLO
modules of tests/analysis, and every request line of the goldens and
examples (for cli_request). Files are named by content hash, so rerunning
only adds. Inputs the fuzzers found later can be copied in by hand.
"""

import glob
import hashlib
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
MAX_SEED_BYTES = 16384  # tools/fuzz.sh -max_len


def c_string_literals(text):
    """Joins adjacent C string literals and decodes the usual escapes."""
    parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', text)
    out = "".join(parts)
    return (out.replace("\\n", "\n").replace("\\t", "\t")
            .replace('\\"', '"').replace("\\\\", "\\"))


def spec_maps():
    path = os.path.join(ROOT, "tests", "core", "spec_maps_test.cc")
    src = open(path, encoding="utf-8").read()
    for m in re.finditer(r'\{\s*"[^"]*",\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)\}', src):
        yield c_string_literals(m.group(1))


def request_lines():
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "cli", "*.jsonl")) +
                   glob.glob(os.path.join(ROOT, "tools", "examples", "*.jsonl")))
    for path in files:
        if path.endswith(".expected.jsonl"):
            continue
        for line in open(path, encoding="utf-8", errors="replace"):
            line = line.rstrip("\n")
            if line.strip():
                yield line


def requests():
    for line in request_lines():
        try:
            req = json.loads(line)
        except ValueError:
            continue
        if isinstance(req, dict):
            yield req


def analysis_modules():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "analysis", "*.cc"))):
        src = open(path, encoding="utf-8").read()
        for m in re.finditer(r'R"(\w*)\((.*?)\)\1"', src, re.S):
            body = m.group(2)
            if "parameter(" in body:
                yield body


def emit_seeds(modules):
    """fuzz_emit's inputs (tests/fuzz/emit_fuzz.cc): a selector byte, then
    an HLO module for the GPU targets or PTO choice bytes."""
    emit_modules = [r["hlo"] for r in requests()
                    if r.get("op") == "emit" and isinstance(r.get("hlo"), str)]
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "emit", "data",
                                              "*.hlo"))):
        emit_modules.append(open(path, encoding="utf-8").read())
    for k, text in enumerate(emit_modules + modules[:60]):
        # cpp, cuda, mlir in turn; stages on every fourth; devices cycle.
        selector = (k % 3) | (4 if k % 4 == 0 else 0) | ((k % 4) << 4)
        yield bytes([selector]) + text.encode("utf-8")
    # pto: every conversion with f16 and f32, a few shapes.
    for conversion in range(7):
        for dtype in (0, 2):
            for dims in ((2, 19, 3, 3), (1, 31, 15), (3, 1, 2, 1, 4)):
                choice = conversion << 1
                yield bytes([3, choice, dtype, len(dims) - 1] +
                            [d - 1 for d in dims])


def write(target, texts):
    directory = os.path.join(OUT, target)
    os.makedirs(directory, exist_ok=True)
    n = 0
    for text in texts:
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        if not data or len(data) > MAX_SEED_BYTES:
            continue
        name = hashlib.sha1(data).hexdigest()
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)
        n += 1
    print("%s: %d seeds" % (target, n))


def main():
    maps = list(spec_maps())
    for req in requests():
        for key in ("map", "a", "b"):
            if isinstance(req.get(key), str):
                maps.append(req[key])
        if isinstance(req.get("maps"), list):
            maps.extend(m for m in req["maps"] if isinstance(m, str))
    write("map_roundtrip", maps)
    write("map_simplify", maps)
    modules = [r["hlo"] for r in requests() if isinstance(r.get("hlo"), str)]
    modules.extend(analysis_modules())
    write("hlo", modules)
    write("cli_request", request_lines())
    write("emit", emit_seeds(modules))


if __name__ == "__main__":
    main()
