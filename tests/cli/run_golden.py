#!/usr/bin/env python3
"""Golden tests of `ixa query` (docs/protocol.md).

  run_golden.py IXA CASE.jsonl [--update]
      Runs `IXA query CASE.jsonl` and compares standard output, line by line
      and *as JSON*, with CASE.expected.jsonl. The exit code must be 0 when
      every expected response has "ok": true, else 1.

      Comparison: objects compare key by key, lists element by element,
      numbers by value. Inside an "error" object the "message" is free text:
      it is checked only when the expected object has one, and then as a
      substring; "line" and "column" are checked when expected (and must be
      present for a parse_error). --update rewrites the expected file from the actual output.
      If CASE.args exists, its whitespace-separated words are passed to
      `ixa query` before the file (e.g. `--syntax symbolic`).

  run_golden.py IXA --exit-codes
      Checks the exit codes 0, 1, 64 and 66 and the empty-input case.

  run_golden.py IXA --stress
      Generated bad inputs (binary garbage, a 1 MiB line, 10^5 nested
      parentheses, deeply nested JSON, ...): every line gets exactly one
      response with the right error code, and the process does not crash.
      Not timed (tests never time): the large stress inputs and their times
      are tools/stress.py.
"""

import json
import os
import subprocess
import sys
import tempfile

# The stress inputs' map generators (compose_chain) live with the timed
# stress script.
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
from stress import compose_chain  # noqa: E402

TIMEOUT = 120


def run(ixa, args, stdin=None):
    return subprocess.run([ixa] + args, input=stdin, capture_output=True,
                          timeout=TIMEOUT)


def describe(proc):
    err = proc.stderr.decode("utf-8", "replace")[-2000:]
    return "exit code %d; stderr:\n%s" % (proc.returncode, err)


def same(expected, actual, path="$", in_error=False):
    """Returns None when equal, else a description of the first difference."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return "%s: expected an object, got %r" % (path, actual)
        keys = set(expected) | set(actual)
        for key in sorted(keys):
            sub = "%s.%s" % (path, key)
            if in_error and key == "message":
                if key not in expected:
                    continue
                if not isinstance(actual.get(key), str) or \
                        expected[key] not in actual[key]:
                    return "%s: expected text containing %r, got %r" % (
                        sub, expected[key], actual.get(key))
                continue
            if in_error and key in ("line", "column") and key not in expected:
                # Optional, except that a parse_error must carry a position.
                if expected.get("code") == "parse_error" and key not in actual:
                    return "%s: a parse_error needs a line and column" % sub
                continue
            if in_error and key in ("line", "column") and key not in actual:
                return "%s: missing" % sub
            if key not in actual:
                return "%s: missing" % sub
            if key not in expected:
                return "%s: unexpected field %r" % (sub, actual[key])
            diff = same(expected[key], actual[key], sub, key == "error")
            if diff:
                return diff
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return "%s: expected %r, got %r" % (path, expected, actual)
        for i, (e, a) in enumerate(zip(expected, actual)):
            diff = same(e, a, "%s[%d]" % (path, i))
            if diff:
                return diff
        return None
    if isinstance(expected, bool) or isinstance(actual, bool):
        ok = type(expected) is type(actual) and expected == actual
    else:
        ok = expected == actual
    return None if ok else "%s: expected %r, got %r" % (path, expected, actual)


def golden(ixa, case, update):
    expected_path = case[:-len(".jsonl")] + ".expected.jsonl"
    args_path = case[:-len(".jsonl")] + ".args"
    args = []
    if os.path.exists(args_path):
        with open(args_path) as f:
            args = f.read().split()
    proc = run(ixa, ["query"] + args + [case])
    out = proc.stdout.decode("utf-8")
    actual = [json.loads(line) for line in out.splitlines()]
    if update:
        with open(expected_path, "w") as f:
            for response in actual:
                f.write(json.dumps(response) + "\n")
        print("updated %s" % expected_path)
        return 0
    with open(expected_path) as f:
        expected = [json.loads(line) for line in f if line.strip()]
    with open(case, "rb") as f:
        requests = [l for l in f.read().splitlines() if l.strip()]
    failures = 0
    if len(actual) != len(expected):
        print("FAIL %s: %d responses, expected %d" % (case, len(actual),
                                                      len(expected)))
        failures += 1
    for i, (e, a) in enumerate(zip(expected, actual)):
        diff = same(e, a)
        if diff:
            failures += 1
            print("FAIL %s line %d: %s\n  request:  %s\n  response: %s" % (
                os.path.basename(case), i + 1, diff,
                requests[i].decode("utf-8", "replace")[:300] if i < len(requests) else "?",
                json.dumps(a)[:300]))
    want_exit = 0 if all(r.get("ok") for r in expected) else 1
    if proc.returncode != want_exit:
        failures += 1
        print("FAIL %s: expected exit code %d; %s" % (case, want_exit,
                                                      describe(proc)))
    print("%s: %d responses, %d failures" % (os.path.basename(case),
                                             len(actual), failures))
    return 1 if failures else 0


def exit_codes(ixa):
    failures = 0

    def expect(what, proc, code, lines=None):
        nonlocal failures
        out = proc.stdout.decode("utf-8", "replace").splitlines()
        bad = proc.returncode != code or (lines is not None and len(out) != lines)
        if bad:
            failures += 1
            print("FAIL %s: expected exit %d and %s lines, got %d and %d lines; %s"
                  % (what, code, lines, proc.returncode, len(out), describe(proc)))

    ok = b'{"id": 1, "op": "parse", "map": "(d0) -> (d0)"}\n'
    bad = b'{"id": 2, "op": "parse", "map": "(d0) -> (d1)"}\n'
    expect("all ok (stdin)", run(ixa, ["query"], ok), 0, 1)
    expect("all ok ('-')", run(ixa, ["query", "-"], ok + b"\n  \n" + ok), 0, 2)
    expect("one failed", run(ixa, ["query", "-"], ok + bad + ok), 1, 3)
    expect("bad json", run(ixa, ["query"], b"{\n"), 1, 1)
    expect("empty input", run(ixa, ["query"], b""), 0, 0)
    expect("blank lines only", run(ixa, ["query"], b"\n\n   \n"), 0, 0)
    expect("CRLF", run(ixa, ["query"], ok.replace(b"\n", b"\r\n") * 2), 0, 2)
    expect("no final newline", run(ixa, ["query"], ok.rstrip()), 0, 1)
    expect("two files (usage)", run(ixa, ["query", "a", "b"], b""), 64, 0)
    expect("--syntax symbolic", run(ixa, ["query", "--syntax", "symbolic"], ok),
           0, 1)
    expect("--syntax=affine -", run(ixa, ["query", "--syntax=affine", "-"], ok),
           0, 1)
    expect("--syntax unknown (usage)",
           run(ixa, ["query", "--syntax", "xla"], ok), 64, 0)
    expect("--syntax without value (usage)", run(ixa, ["query", "--syntax"], ok),
           64, 0)
    expect("no command (usage)", run(ixa, [], b""), 64, 0)
    expect("unknown command (usage)", run(ixa, ["frobnicate"], b""), 64, 0)
    expect("missing file", run(ixa, ["query", "/nonexistent/requests.jsonl"]),
           66, 0)
    # --budget-ms N: a positive wall-time budget per request.
    expect("budget (ok)", run(ixa, ["query", "--budget-ms", "60000"], ok), 0, 1)
    expect("budget (huge)",
           run(ixa, ["query", "--budget-ms", "9223372036854775807"], ok), 0, 1)
    expect("budget and '-'",
           run(ixa, ["query", "--budget-ms", "60000", "-"], ok), 0, 1)
    for args in (["--budget-ms"], ["--budget-ms", "0"], ["--budget-ms", "x"],
                 ["--budget-ms", "5ms"], ["--budget-ms", "5", "a", "b"]):
        expect("budget usage %s" % args, run(ixa, ["query"] + args, ok), 64, 0)
    # A request that needs far more than 1 ms (an irregular 16-map compose
    # chain) answers limit_exceeded naming the time budget; the next one is
    # served.
    slow = json.dumps({"id": 3, "op": "compose",
                       "maps": compose_chain(16, True)}).encode() + b"\n"
    proc = run(ixa, ["query", "--budget-ms", "1"], slow + ok)
    expect("budget exceeded", proc, 1, 2)
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    if len(lines) == 2:
        first = json.loads(lines[0])
        if first.get("error", {}).get("code") != "limit_exceeded" or \
                "time budget of 1 ms" not in first["error"].get("message", ""):
            failures += 1
            print("FAIL budget exceeded: got %s" % lines[0][:300])
    with tempfile.TemporaryDirectory() as tmp:
        expect("a directory", run(ixa, ["query", tmp]), 66, 0)
        path = os.path.join(tmp, "r.jsonl")
        with open(path, "wb") as f:
            f.write(ok + bad)
        expect("file", run(ixa, ["query", path]), 1, 2)
        if os.geteuid() != 0:  # root can read anything
            os.chmod(path, 0)
            expect("unreadable file", run(ixa, ["query", path]), 66, 0)
    print("exit codes: %d failures" % failures)
    return 1 if failures else 0


# The longest error message a bad input may draw (messages quote at most
# about 80 characters of the offending text; the longest fixed wordings,
# such as an unknown op's list of every op, stay well under this).
MAX_MESSAGE = 1500


def stress(ixa):
    """Each case: (name, request line bytes, accepted error codes or None for
    "ok or any error"[, text the error message must contain])."""
    mib = 1 << 20
    mb5 = 5 * 1000 * 1000
    bad_opcode_hlo = ("HloModule m\nENTRY e {\n p = f32[8] parameter(0)\n"
                      " ROOT r = f32[8] " + "q" * mb5 + "(p)\n}")
    chain = "(d0) -> (d0" + " * 2" * (mib // 4) + ")"
    flat_sum = "(d0) -> (" + " + ".join(["d0"] * (mib // 5)) + ")"
    cases = [
        ("binary garbage", bytes(range(1, 10)) + bytes(range(11, 256)),
         ["bad_json"]),
        ("NUL bytes", b"\x00\x00{}", ["bad_json"], "NUL byte at column 1"),
        ("a NUL byte in a request",
         b'{"op": "parse", "map": "(d0) -> (d0)"\x00}', ["bad_json"],
         "NUL byte at column 38"),
        ("a duplicate key", b'{"op": "parse", "map": "(d0) -> (d0)", '
         b'"map": "(d0) -> (d0 + 1)"}', ["bad_json"], "'map' twice"),
        ("a duplicate key in a nested object",
         b'{"op": "fusion_cost", "hlo": "x", "device": {"base": "h100", '
         b'"sm_count": 1, "sm_count": 2}}', ["bad_json"], "'sm_count' twice"),
        ("5 MB variable name in a map",
         json.dumps({"op": "parse", "map": "(d0) -> (" + "a" * mb5 + ")"}
                    ).encode(), ["parse_error"], "(5000000 bytes)"),
        ("5 MB of words after a map",
         json.dumps({"op": "parse", "map": "(d0) -> (d0) " + "ab " * mb5}
                    ).encode(), ["parse_error"]),
        ("5 MB op name", json.dumps({"op": "p" * mb5}).encode(),
         ["bad_request"], "(5000000 bytes)"),
        ("5 MB field name",
         json.dumps({"op": "parse", "map": "(d0) -> (d0)", "m" * mb5: 1}
                    ).encode(), ["bad_request"], "(5000000 bytes)"),
        ("5 MB unterminated string",
         b'{"op": "parse", "map": "' + b"ab " * mb5, ["bad_json"]),
        ("5 MB JSON literal", b'{"op": ' + b"t" * mb5 + b"}", ["bad_json"]),
        ("5 MB opcode", json.dumps({"op": "partition", "hlo": bad_opcode_hlo}
                                  ).encode(), ["parse_error"],
         "(5000000 bytes)"),
        ("invalid UTF-8 in a string",
         b'{"op": "parse", "map": "(d0) -> (d0 \xff)"}', ["bad_json"]),
        ("1 MiB of garbage", b"x" * mib, ["bad_json"]),
        ("1 MiB string map", json.dumps({"op": "parse", "map": "(" * mib}).encode(),
         ["parse_error"]),
        ("10^5 nested parentheses",
         json.dumps({"op": "parse",
                     "map": "(d0) -> (" + "(" * 100000 + "d0" + ")" * 100000 + ")"}
                    ).encode(), ["parse_error"]),
        ("10^5 unary minus",
         json.dumps({"op": "parse", "map": "(d0) -> (" + "-" * 100000 + "d0)"}
                    ).encode(), ["parse_error"]),
        ("10^5 nested JSON arrays", b"[" * 100000 + b"]" * 100000,
         ["bad_json", "bad_request"]),
        ("10^5 nested JSON objects",
         b'{"a":' * 100000 + b"1" + b"}" * 100000, ["bad_json", "bad_request"]),
        ("truncated 10^5 nesting", b"[" * 100000, ["bad_json"]),
        ("1 MiB product chain, parse", json.dumps({"op": "parse", "map": chain}
                                                  ).encode(), None),
        ("1 MiB product chain, evaluate",
         json.dumps({"op": "evaluate", "map": chain, "dims": [1]}).encode(), None),
        ("1 MiB sum, evaluate",
         json.dumps({"op": "evaluate", "map": flat_sum, "dims": [1]}).encode(),
         None),
        ("1 MiB sum, compose",
         json.dumps({"op": "compose", "maps": [flat_sum, "(d0) -> (d0 * 2)"]}
                    ).encode(), None),
        ("huge JSON number", b'{"op": "evaluate", "map": "(d0) -> (d0)", '
                             b'"dims": [1e400]}', ["bad_json", "bad_request"]),
        ("long digit string",
         b'{"op": "evaluate", "map": "(d0) -> (d0)", "dims": [' + b"9" * 100000 + b"]}",
         ["bad_json", "bad_request"]),
    ]
    failures = 0
    for name, line, codes, *must_say in cases:
        proc = run(ixa, ["query"], line + b"\n" + b'{"id": "after", "op": "parse", '
                   b'"map": "() -> ()"}\n')
        out = proc.stdout.decode("utf-8", "replace").splitlines()
        problem = None
        if proc.returncode not in (0, 1):
            problem = "exit code %d (crash?)" % proc.returncode
        elif len(out) != 2:
            problem = "%d response lines, expected 2" % len(out)
        else:
            try:
                first, after = json.loads(out[0]), json.loads(out[1])
            except ValueError as e:
                problem = "response is not JSON: %s" % e
            else:
                if after != {"id": "after", "ok": True, "map": "() -> ()"}:
                    problem = "the next request was not served: %r" % after
                elif codes is not None:
                    code = first.get("error", {}).get("code")
                    if first.get("ok") is not False or code not in codes:
                        problem = "expected an error in %s, got %s" % (
                            codes, json.dumps(first)[:300])
                    elif code == "parse_error" and not (
                            first["error"].get("line", 0) >= 1
                            and first["error"].get("column", 0) >= 1):
                        problem = "parse_error without line and column"
                    elif len(first["error"].get("message", "")) > MAX_MESSAGE:
                        problem = "a message of %d characters: %s..." % (
                            len(first["error"]["message"]),
                            first["error"]["message"][:300])
                    elif must_say and \
                            must_say[0] not in first["error"].get("message", ""):
                        problem = "the message does not say %r: %s" % (
                            must_say[0], json.dumps(first)[:300])
                elif first.get("ok") is False and \
                        first.get("error", {}).get("code") == "internal":
                    problem = "internal error: %s" % json.dumps(first)[:300]
        if problem:
            failures += 1
            print("FAIL stress %s: %s; %s" % (name, problem,
                                              describe(proc)[:500]))
        else:
            print("ok   stress %s" % name)
    print("stress: %d failures" % failures)
    return 1 if failures else 0


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    ixa = argv[1]
    if argv[2] == "--exit-codes":
        return exit_codes(ixa)
    if argv[2] == "--stress":
        return stress(ixa)
    return golden(ixa, argv[2], "--update" in argv[3:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
