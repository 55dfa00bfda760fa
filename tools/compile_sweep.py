#!/usr/bin/env python3
"""Sweeps HLO modules through `ixa compile` and counts the answers.

  tools/compile_sweep.py [--ixa build/bin/ixa] [--target cpp|cuda]
                         [--no-fuse] [--build] [--timeout S] [--list] PATH...

PATH is an .hlo / .txt file, a directory of them (searched recursively), a
fuzz corpus directory (every file in it is taken as HLO text) or a .jsonl
file of requests (each request's "hlo" field is a module). Each module is
compiled with `ixa compile --target T`; the answer is counted as

  compiled     code (with --build: code that g++ -fsyntax-only accepts)
  unsupported  an `unsupported` error, counted by the op it names
  invalid      a `parse_error`, `invalid_argument`, `bad_request` or
               `limit_exceeded` error (not valid HLO, not a program)
  problem      a crash, a hang, an `internal` error, code that g++
               rejects, or an unsupported answer that names no op

Problems are listed with their file; exit status 1 when there are any.
The results against the reference interpreter are checked by the tests
(`[emit_compile_corpus]`, tests/emit/emit_compile_test.cc).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

OP_IN_PARENS = re.compile(r"\((?P<op>[a-z][a-z0-9\-]*)\)")
HOST_OP = re.compile(r"^compile: (?P<op>[a-z][a-z\-]*) ")


def modules_of(path):
    """Yields (label, text) for every module under `path`."""
    if os.path.isdir(path):
        for root, _, files in sorted(os.walk(path)):
            for name in sorted(files):
                full = os.path.join(root, name)
                if name.endswith((".hlo", ".txt")) or "corpus" in root:
                    yield from modules_of(full)
        return
    if path.endswith(".jsonl"):
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                try:
                    request = json.loads(line)
                except ValueError:
                    continue
                if isinstance(request, dict) and isinstance(
                        request.get("hlo"), str):
                    yield "%s:%d" % (path, number), request["hlo"]
        return
    with open(path, "rb") as f:
        yield path, f.read().decode("utf-8", errors="replace")


def classify(args, text, scratch):
    """The answer's kind and detail for one module (the `compile` request
    of `ixa query`, whose error codes tell unsupported from invalid)."""
    request = {"id": 1, "op": "compile", "target": args.target, "hlo": text}
    if args.no_fuse:
        request["fuse"] = False
    try:
        run = subprocess.run([args.ixa, "query"], input=json.dumps(request),
                             capture_output=True, text=True,
                             timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return "problem", "timeout after %g s" % args.timeout
    if run.returncode < 0:
        return "problem", "crash (signal %d)" % -run.returncode
    try:
        answer = json.loads(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return "problem", "no answer (exit %d): %s" % (
            run.returncode, run.stderr.strip()[-200:])
    if not answer.get("ok"):
        error = answer.get("error", {})
        code, message = error.get("code"), error.get("message", "")
        if code == "unsupported":
            match = OP_IN_PARENS.search(message) or HOST_OP.search(message)
            if not match:
                return "problem", "unsupported without an op: " + message
            return "unsupported", match.group("op")
        if code in ("parse_error", "invalid_argument", "bad_request",
                    "limit_exceeded"):
            return "invalid", code
        return "problem", "%s: %s" % (code, message)
    if args.build and args.target == "cpp":
        out = os.path.join(scratch, "program.cc")
        with open(out, "w", encoding="utf-8") as f:
            f.write(answer["code"])
        gcc = subprocess.run(
            ["g++", "-std=c++17", "-fsyntax-only", "-w", out],
            capture_output=True, text=True)
        if gcc.returncode != 0:
            lines = gcc.stderr.strip().splitlines()
            return "problem", "g++ rejects the code: " + (lines[0]
                                                          if lines else "")
    return "compiled", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ixa", default="build/bin/ixa")
    parser.add_argument("--target", default="cpp", choices=["cpp", "cuda"])
    parser.add_argument("--no-fuse", action="store_true")
    parser.add_argument("--build", action="store_true",
                        help="also check that g++ accepts the cpp code")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--list", action="store_true",
                        help="print every module's answer")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    counts = collections.Counter()
    unsupported = collections.Counter()
    invalid = collections.Counter()
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        for path in args.paths:
            for label, text in modules_of(path):
                kind, detail = classify(args, text, scratch)
                counts[kind] += 1
                if args.list:
                    print("%-12s %s %s" % (kind, label, detail))
                if kind == "unsupported":
                    unsupported[detail] += 1
                elif kind == "invalid":
                    invalid[detail.split(":")[-1].strip()[:60]] += 1
                elif kind == "problem":
                    problems.append((label, detail))
    total = sum(counts.values())
    print("%d modules: %d compiled, %d unsupported, %d invalid, %d problems" %
          (total, counts["compiled"], counts["unsupported"], counts["invalid"],
           counts["problem"]))
    if unsupported:
        print("unsupported, by op: " + ", ".join(
            "%s %d" % (op, n) for op, n in unsupported.most_common()))
    for label, detail in problems:
        print("PROBLEM %s: %s" % (label, detail))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
