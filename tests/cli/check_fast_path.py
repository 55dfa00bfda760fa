#!/usr/bin/env python3
"""The query server's fast paths answer byte for byte as the general path.

  check_fast_path.py IXA [FILE.jsonl ...]

Runs `IXA query` over the given request files plus a generated set of
tricky lines (ids of every JSON kind, escapes, \\u escapes, non-ASCII and
invalid UTF-8, duplicate keys, floats, huge integers, nesting, odd
whitespace, truncated lines) three ways:
  - IXA_QUERY_FAST_JSON=0 (nlohmann reads and writes every line),
  - the default (tools/ixa/fast_json.h),
  - the default with --jobs 2 and --jobs 3 (tools/ixa/parallel_query.h),
and fails unless standard output and the exit code are identical.
"""
import os
import random
import select
import subprocess
import sys
import tempfile

MAPS = [
    "(d0, d1) -> (d0 floordiv 4, d1 mod 3), domain: d0 in [0, 15], d1 in [0, 5]",
    "(d0) -> ((d0 * 8 + 3) mod 8), domain: d0 in [0, 99]",
    "(d0, d1)[s0] -> (d0 + s0, d1), domain: d0 in [0, 9], d1 in [0, 9], s0 in [0, 3], d0 + s0 in [0, 10]",
    "(d0) -> (d1)",
    "(d0) -> (d0 floordiv 0)",
    "KNOWN EMPTY",
    "(d0) -> (), domain: d0 in [0, 3], d0 mod 2 in [1, 1]",
    "(d0, d1) -> (d0 * 4 + d1), domain: d0 in [0, 3], d1 in [0, 3]",
    "(x, y) -> (x floordiv 2 + y), domain: x in [0, 7], y in [0, 1]",
]


def js(s):
    """A JSON string literal, sometimes with gratuitous escapes."""
    out = ['"']
    for ch in s:
        r = random.random()
        if ch == "/" and r < 0.3:
            out.append("\\/")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif r < 0.02:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


IDS = [
    "1", "0", "-0", "-5", "007", "1.0", "1e3", "-1E-2", "18446744073709551615",
    "18446744073709551616", "9223372036854775807", "-9223372036854775808",
    "-9223372036854775809", "123456789012345678", "1234567890123456789",
    "true", "false", "null", '"a"', '"a b"', '"\\n\\t\\"q\\"\\\\"', '"\\u00e9"',
    '"\\ud83d\\ude00"', '"\u00e9"', '"\udcc3\udca9"', '"\udcff"', '"\\/x"', '"\\x"', "[1, 2]",
    '{"k": 1}', "[]", "{}", '"\x7f"', '"\\u0001"', '""',
    '"raw\ttab in a string"', '"raw \x01 control byte"',
    '"twelve bytes\\"then an escaped quote"', '"0123456789abcdef\\\\"',
    '"0123456\xe9"', '"01234567\udcff9"',
]

SPACE = ["", " ", "  ", "\t", " \t "]


def field(key, value):
    return random.choice(SPACE) + js(key) + random.choice(SPACE) + ":" + \
        random.choice(SPACE) + value + random.choice(SPACE)


def request():
    op = random.choice(["parse", "simplify", "simplify", "compose", "is_empty",
                        "evaluate", "bounds", "nope", 7])
    fields = []
    if random.random() < 0.9:
        fields.append(field("id", random.choice(IDS)))
    fields.append(field("op", js(op) if isinstance(op, str) else str(op)))
    m = random.choice(MAPS)
    if op == "compose":
        maps = [js(random.choice(MAPS)) for _ in range(random.randint(0, 3))]
        if random.random() < 0.1:
            maps.append("3")
        fields.append(field("maps", "[" + ",".join(maps) + "]"))
    elif random.random() < 0.95:
        fields.append(field("map", js(m) if random.random() < 0.95 else "42"))
    if op == "simplify" and random.random() < 0.3:
        fields.append(field("explain", random.choice(["true", "false", "1", "null"])))
    if op == "evaluate":
        fields.append(field("dims", random.choice(["[1]", "[1, 2]", "[-3]", "[1.5]", "[]"])))
    if op == "bounds" and random.random() < 0.5:
        fields.append(field("expr", js("d0 floordiv 2")))
    if random.random() < 0.2:
        fields.append(field("extra", random.choice(IDS)))
    if random.random() < 0.2:
        fields.append(field("syntax", random.choice(
            ['"affine"', '"symbolic"', '"xla"', "3", "null"])))
    if random.random() < 0.05:
        fields.append(fields[0])  # a duplicate key
    random.shuffle(fields)
    line = "{" + ",".join(fields) + "}"
    r = random.random()
    if r < 0.03:
        line = line[:random.randint(0, len(line))]  # truncated
    elif r < 0.05:
        line = line + " x"
    elif r < 0.07:
        line = "[" + line + "]"
    return random.choice(SPACE) + line + random.choice(SPACE)


def run(ixa, path, env_fast, jobs, extra):
    env = dict(os.environ)
    if not env_fast:
        env["IXA_QUERY_FAST_JSON"] = "0"
    args = [ixa, "query"] + extra + (["--jobs", str(jobs)] if jobs else []) + [path]
    p = subprocess.run(args, capture_output=True, env=env, timeout=300)
    return p.returncode, p.stdout


def interactive(ixa, jobs):
    """Each answer must arrive before the next request is sent (a client that
    waits for its answer must not hang), serially (--jobs 1) and on
    threads."""
    p = subprocess.Popen([ixa, "query", "--jobs", str(jobs)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    problem = None
    try:
        for i in range(3):
            p.stdin.write(b'{"id": %d, "op": "parse", "map": "(d0) -> (d0)"}\n' % i)
            p.stdin.flush()
            ready = select.select([p.stdout], [], [], 20)[0]
            if not ready:
                problem = "no answer to request %d within 20 s" % i
                break
            line = p.stdout.readline()
            if b'"id":%d' % i not in line:
                problem = "unexpected answer %r" % line
                break
    finally:
        p.stdin.close()
        p.wait(timeout=60)
    if problem:
        print("FAIL interactive --jobs %d: %s" % (jobs, problem))
        return 1
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    ixa = argv[1]
    random.seed(13)
    sanitized = os.environ.get("IXA_SANITIZED") == "1"
    files = list(argv[2:])
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "tricky.jsonl")
        with open(gen, "wb") as f:
            for _ in range(3000):
                f.write(request().encode("utf-8", "surrogateescape") + b"\n")
        files.append(gen)
        runs = [(path, []) for path in files]
        runs.append((gen, ["--syntax", "symbolic"]))
        for path, extra in runs:
            args_path = path[:-len(".jsonl")] + ".args"
            if os.path.exists(args_path):  # as run_golden.py
                with open(args_path) as f:
                    extra = extra + f.read().split()
            reference = run(ixa, path, False, 0, extra)
            modes = ((True, 0), (True, 2), (True, 3), (False, 2))
            if sanitized and path != gen:
                # Under the sanitizers every mode runs on the generated
                # lines; the request files (whose answers cost the same in
                # every mode) run the fast path on threads only.
                modes = ((True, 2),)
            for fast, jobs in modes:
                got = run(ixa, path, fast, jobs, extra)
                if got != reference:
                    failures += 1
                    ref_lines = reference[1].splitlines()
                    got_lines = got[1].splitlines()
                    detail = "exit %d vs %d, %d vs %d lines" % (
                        got[0], reference[0], len(got_lines), len(ref_lines))
                    for i, (a, b) in enumerate(zip(got_lines, ref_lines)):
                        if a != b:
                            detail += "\n  line %d:\n  got      %r\n  expected %r" % (
                                i + 1, a[:300], b[:300])
                            break
                    print("FAIL %s %s (fast=%s, jobs=%d): %s" % (
                        os.path.basename(path), " ".join(extra), fast, jobs,
                        detail))
    failures += interactive(ixa, 1)
    failures += interactive(ixa, 2)
    print("fast path: %d runs, %d failures" % (len(runs), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
