#!/usr/bin/env python3
"""The protocol's documentation and strictness, checked against the binary.

  check_protocol.py IXA DOCS/PROTOCOL.MD

- docs/protocol.md is exactly what `ixa help --markdown` writes (the doc,
  `ixa query --help` and `ixa help OP` come from one table), and every
  example in it is answered ok;
- every op of the table has `ixa help OP`, and `ixa query --help` lists it;
- every op refuses a field it does not take, naming it;
- blank lines are skipped, and a bad_json error carries the line's number
  in the batch (blank lines counted);
- usage errors of `ixa query` and `ixa help` exit 64.
"""
import json
import re
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(ixa, args, stdin=None):
    return subprocess.run([ixa] + args, input=stdin, capture_output=True,
                          text=True, timeout=120)


def main():
    ixa, doc_path = sys.argv[1], sys.argv[2]
    with open(doc_path, encoding="utf-8") as f:
        doc = f.read()
    generated = run(ixa, ["help", "--markdown"])
    check(generated.returncode == 0, "ixa help --markdown failed")
    check(generated.stdout == doc,
          "docs/protocol.md differs from `ixa help --markdown`: regenerate it "
          "with `build/bin/ixa help --markdown > docs/protocol.md`")

    # The ops of the doc's op table.
    ops = re.findall(r"^\| \[`([a-z_]+)`\]", doc, re.M)
    check(len(ops) >= 27, "the doc lists %d ops" % len(ops))
    query_help = run(ixa, ["query", "--help"])
    check(query_help.returncode == 0, "ixa query --help exits %d" %
          query_help.returncode)
    examples = {}
    for op in ops:
        check(re.search(r"^  %s " % op, query_help.stdout, re.M) is not None,
              "ixa query --help does not list %s" % op)
        h = run(ixa, ["help", op])
        check(h.returncode == 0 and h.stdout.startswith("op %s " % op),
              "ixa help %s: exit %d" % (op, h.returncode))
        m = re.search(r"^Example:\n  (.*)$", h.stdout, re.M)
        check(m is not None, "ixa help %s shows no example" % op)
        if m:
            examples[op] = json.loads(m.group(1))

    # Every example is answered ok, and refuses one more field.
    lines = [json.dumps(e) for e in examples.values()]
    for e in examples.values():
        bad = dict(e)
        bad["id"] = "extra-" + e["op"]
        bad["no_such_field"] = 1
        lines.append(json.dumps(bad))
    out = run(ixa, ["query"], "\n".join(lines) + "\n")
    responses = [json.loads(l) for l in out.stdout.splitlines()]
    check(len(responses) == len(lines), "%d responses to %d requests" %
          (len(responses), len(lines)))
    for r in responses:
        if str(r.get("id")).startswith("extra-"):
            err = r.get("error", {})
            check(not r["ok"] and err.get("code") == "bad_request" and
                  "'no_such_field'" in err.get("message", ""),
                  "%s: an unknown field was not refused: %s" % (r["id"], r))
        else:
            check(r.get("ok") is True, "example %s failed: %s" % (r.get("id"), r))

    # Blank lines: skipped; line numbers count them.
    batch = ('{"id": 1, "op": "parse", "map": "(d0) -> (d0)"}\n'
             "\n   \t\n"
             '{"id": 2, "op": "parse", "map": "(d0) -> (d0)"}\n'
             '{"op": "parse", "map": }\n')
    out = run(ixa, ["query"], batch)
    responses = [json.loads(l) for l in out.stdout.splitlines()]
    check([r.get("id") for r in responses] == [1, 2, None],
          "blank lines: responses %s" % responses)
    if len(responses) == 3:
        err = responses[2].get("error", {})
        check(err.get("code") == "bad_json" and err.get("line") == 5 and
              err.get("column", 0) > 0 and "line 5 of the batch" in
              err.get("message", "") and "json.exception" not in
              err.get("message", ""), "bad_json error: %s" % err)
    # The same numbering on several threads.
    out = run(ixa, ["query", "--jobs=2"], batch * 40)
    numbers = [json.loads(l)["error"]["line"] for l in out.stdout.splitlines()
               if '"bad_json"' in l]
    check(numbers == [5 + 5 * k for k in range(40)],
          "--jobs 2 bad_json lines: %s" % numbers[:6])

    # Usage errors.
    for args in (["query", "--nope"], ["query", "--jobs=0"],
                 ["query", "--syntax", "fancy"], ["help", "simplfy"],
                 ["help", "a", "b"]):
        r = run(ixa, args, "")
        check(r.returncode == 64, "ixa %s exits %d, not 64" %
              (" ".join(args), r.returncode))
    r = run(ixa, ["help", "simplfy"])
    check("did you mean 'simplify'" in r.stderr, "ixa help simplfy: %s" %
          r.stderr)
    r = run(ixa, ["query", "--syntax=symbolic"],
            '{"op": "parse", "map": "(d0) -> (d0 floordiv 2)"}\n')
    check(r.returncode == 0 and "d0 / 2" in r.stdout,
          "--syntax=symbolic: %s" % r.stdout)

    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
