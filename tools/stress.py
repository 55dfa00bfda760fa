#!/usr/bin/env python3
"""Stress inputs: each must answer or refuse in under 5 s.

  tools/stress.py [IXA] [--limit SECONDS] [NAME_SUBSTRING...]

IXA defaults to build/bin/ixa (build it in Release first). Every case runs
as one `ixa query` batch and prints its wall time (the limit applies to it)
and the CPU time of the process (what a shared machine does not inflate);
a case fails when the
process crashes, a response is missing, an answer is an internal error or an
error code the case does not accept, or it takes longer than the limit
(default 5 s). Exit status 1 when any case fails.

This is a measurement, not a unit test (speed is measured by tools,
never by timed tests); the untimed bad-input checks are
`tests/cli/run_golden.py IXA --stress` (CTest cli_stress).
"""

import json
import os
import random
import resource
import subprocess
import sys
import time

LIMIT_SECONDS = 5.0
# A hung case is killed after this long (and reported as a failure).
KILL_SECONDS = 120


def _dims(n):
    return ", ".join("d%d" % i for i in range(n))


def _domain(shape):
    return ", ".join("d%d in [0, %d]" % (i, n - 1) for i, n in enumerate(shape))


def transpose_map(shape, perm):
    return "(%s) -> (%s), domain: %s" % (
        _dims(len(shape)), ", ".join("d%d" % p for p in perm), _domain(shape))


def reshape_map(src, dst):
    """An index of shape src -> the index of the same row-major element of
    shape dst."""
    strides, stride = [], 1
    for n in reversed(src):
        strides.insert(0, stride)
        stride *= n
    linear = " + ".join("d%d * %d" % (i, st) if st != 1 else "d%d" % i
                        for i, st in enumerate(strides))
    results, stride = [], 1
    for j in reversed(range(len(dst))):
        e = "(%s)" % linear
        if stride != 1:
            e += " floordiv %d" % stride
        if j != 0:
            e = "(%s) mod %d" % (e, dst[j])
        results.insert(0, e)
        stride *= dst[j]
    return "(%s) -> (%s), domain: %s" % (_dims(len(src)), ", ".join(results),
                                         _domain(src))


def compose_chain(n, irregular):
    """n rank-8 maps: cycles of transpose / merge pairs / transpose / split
    (ordinary reshapes), or with `irregular` transposes alternating with
    reshapes to a shuffled shape."""
    rng = random.Random(n)
    shape, split, maps = [2, 3, 4, 2, 3, 2, 4, 5], None, []
    while len(maps) < n:
        step = len(maps) % 4
        if irregular:
            if step % 2 == 0:
                perm = list(range(8))
                rng.shuffle(perm)
                maps.append(transpose_map(shape, perm))
                shape = [shape[p] for p in perm]
            else:
                new = shape[:]
                rng.shuffle(new)
                maps.append(reshape_map(shape, new))
                shape = new
        elif step == 0:
            pairs = list(range(4))
            rng.shuffle(pairs)
            perm = [x for p in pairs for x in (2 * p, 2 * p + 1)]
            maps.append(transpose_map(shape, perm))
            shape = [shape[p] for p in perm]
        elif step == 1:
            merged = [shape[2 * j] * shape[2 * j + 1] for j in range(4)]
            maps.append(reshape_map(shape, merged))
            split, shape = shape, merged
        elif step == 2:
            perm = list(range(4))
            rng.shuffle(perm)
            maps.append(transpose_map(shape, perm))
            split = [x for p in perm for x in (split[2 * p], split[2 * p + 1])]
            shape = [shape[p] for p in perm]
        else:
            maps.append(reshape_map(shape, split))
            shape = split
    return maps


def hlo_chain(n):
    lines = ["HloModule m", "ENTRY e {", "  p0 = f32[4,8] parameter(0)"]
    prev = "p0"
    for i in range(n):
        lines.append("  n%d = f32[4,8] negate(%s)" % (i, prev))
        prev = "n%d" % i
    lines += ["  ROOT r = f32[4,8] negate(%s)" % prev, "}"]
    return "\n".join(lines)


def deep_parentheses_map(depth):
    return "(d0) -> (" + "(" * depth + "d0" + ")" * depth + ")"


def cases():
    """(name, request objects, accepted error codes: None for "any error but
    internal", [] for "none")."""
    rank24 = reshape_map([2] * 24, [4] * 12)
    mixed24 = reshape_map([2, 3] * 12, [3, 2] * 12)
    perm24 = list(range(24))[::-1]
    module = hlo_chain(100000)
    deep = "(" * 100000 + "f32[2]" + ")" * 100000
    deep_hlo = "HloModule m\nENTRY e {\n  ROOT p0 = %s parameter(0)\n}" % deep
    batch = []
    for i in range(10000):
        kind = i % 4
        if kind == 0:
            batch.append({"id": i, "op": "parse", "map": "(d0) -> (d0 * %d)" % i})
        elif kind == 1:
            batch.append({"id": i, "op": "simplify", "map":
                          "(d0, d1) -> ((d0 * 8 + d1) floordiv 8), domain: "
                          "d0 in [0, %d], d1 in [0, 7]" % i})
        elif kind == 2:
            batch.append({"id": i, "op": "evaluate",
                          "map": "(d0) -> (d0 mod 7)", "dims": [i]})
        else:
            batch.append({"id": i, "op": "is_empty", "map":
                          "(d0) -> (d0), domain: d0 in [0, %d], "
                          "d0 mod 3 in [1, 1]" % i})
    limit = ["limit_exceeded"]
    return [
        ("rank-24 maps: simplify, is_empty, bounds, equivalent",
         [{"op": op, "map": m} for m in (rank24, mixed24)
          for op in ("simplify", "is_empty", "bounds")] +
         [{"op": "equivalent", "a": rank24, "b": rank24},
          {"op": "equivalent", "a": mixed24, "b": mixed24}], limit),
        ("rank-24 compose", [{"op": "compose", "maps": [
            transpose_map([2] * 24, perm24), transpose_map([2] * 24, perm24),
            rank24]}], limit),
        ("64-map compose chain of reshapes and transposes",
         [{"op": "compose", "maps": compose_chain(64, False)}], []),
        ("64-map irregular compose chain",
         [{"op": "compose", "maps": compose_chain(64, True)}], limit),
        ("100,000-instruction module: indexing",
         [{"op": "indexing", "hlo": module}], limit),
        ("100,000-instruction module: fusion_indexing",
         [{"op": "fusion_indexing", "hlo": module}], limit),
        ("100,000-instruction module: fusion_indexing, all_instructions",
         [{"op": "fusion_indexing", "hlo": module, "all_instructions": True}],
         limit),
        ("100,000-instruction module: partition",
         [{"op": "partition", "hlo": module}], limit),
        ("100,000-instruction module: thread_indexing",
         [{"op": "thread_indexing", "hlo": module}], limit),
        ("100,000-instruction module: coalescing",
         [{"op": "coalescing", "hlo": module}], limit),
        ("100,000-instruction module: emit cpp",
         [{"op": "emit", "hlo": module, "target": "cpp"}], limit),
        ("100,000-deep tuple shape",
         [{"op": "indexing", "hlo": deep_hlo}], ["parse_error"] + limit),
        ("100,000-deep parentheses",
         [{"op": "parse", "map": deep_parentheses_map(100000)},
          {"op": "simplify", "map": deep_parentheses_map(100000)}],
         ["parse_error"]),
        ("10,000-request batch", batch, None),
    ]


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_case(ixa, requests, codes):
    """Returns (seconds, problem or None, summary of the answers)."""
    stdin = "".join(json.dumps(r) + "\n" for r in requests).encode()
    start = time.monotonic()
    cpu_before = _children_cpu()
    try:
        proc = subprocess.run([ixa, "query"], input=stdin,
                              capture_output=True, timeout=KILL_SECONDS)
    except subprocess.TimeoutExpired:
        return time.monotonic() - start, "no answer within %d s" % (
            KILL_SECONDS), ""
    seconds = time.monotonic() - start
    cpu = _children_cpu() - cpu_before
    if proc.returncode not in (0, 1):
        err = proc.stderr.decode("utf-8", "replace")[-500:]
        return seconds, "exit code %d (crash?): %s" % (proc.returncode,
                                                       err), ""
    out = proc.stdout.decode("utf-8", "replace").splitlines()
    if len(out) != len(requests):
        return seconds, "%d response lines for %d requests" % (
            len(out), len(requests)), ""
    answered, refused = 0, {}
    for line in out:
        r = json.loads(line)
        if r.get("ok") is True:
            answered += 1
            continue
        code = r.get("error", {}).get("code")
        if code == "internal" or (codes is not None and code not in codes):
            return seconds, "unexpected error: %s" % line[:300], ""
        refused[code] = refused.get(code, 0) + 1
    summary = "cpu %.2f s; %d answered" % (cpu, answered)
    for code in sorted(refused):
        summary += ", %d %s" % (refused[code], code)
    return seconds, None, summary


def main(argv):
    args = argv[1:]
    limit = LIMIT_SECONDS
    if "--limit" in args:
        i = args.index("--limit")
        limit = float(args[i + 1])
        del args[i:i + 2]
    ixa = "build/bin/ixa"
    if args and os.path.isfile(args[0]):
        ixa = args.pop(0)
    if not os.access(ixa, os.X_OK):
        print("stress: no executable %s (build the Release tree first)" % ixa)
        return 2
    failures = 0
    for name, requests, codes in cases():
        if args and not any(a in name for a in args):
            continue
        seconds, problem, summary = run_case(ixa, requests, codes)
        if not problem and seconds > limit:
            problem = "took %.2f s (limit %.0f s)" % (seconds, limit)
        if problem:
            failures += 1
            print("FAIL %6.2f s  %s: %s" % (seconds, name, problem))
        else:
            print("ok   %6.2f s  %s (%s)" % (seconds, name, summary))
        sys.stdout.flush()
    print("stress: %d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
