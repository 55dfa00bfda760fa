#!/usr/bin/env python3
"""Converts the peer workload's W3 emptiness items (workload.jsonl from
the peers' gen_workload.py, see tools/bench/compare_peers.sh) into indexing-map text, one item per line:

    <id> TAB <map text> TAB <1 if empty else 0>

Usage: w3_to_maps.py DATA_DIR/workload.jsonl OUT.tsv
"""
import json
import sys


def expr_text(e, names):
    op = e[0]
    if op == "v":
        return names[e[1]]
    if op == "c":
        return str(e[1]) if e[1] >= 0 else "(%d)" % e[1]
    if op == "add":
        return "(%s + %s)" % (expr_text(e[1], names), expr_text(e[2], names))
    if op == "mul":
        return "(%s * %s)" % (expr_text(e[1], names), expr_text(["c", e[2]], names))
    if op in ("floordiv", "ceildiv", "mod"):
        return "(%s %s %s)" % (expr_text(e[1], names), op, expr_text(["c", e[2]], names))
    raise ValueError("unknown node %r" % (op,))


def main():
    src, dst = sys.argv[1], sys.argv[2]
    n = 0
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            rec = json.loads(line)
            if rec.get("workload") != "emptiness":
                continue
            names = [d["name"] for d in rec["dims"]]
            parts = ["%s in [%d, %d]" % (d["name"], d["lo"], d["hi"]) for d in rec["dims"]]
            for c in rec["constraints"]:
                parts.append("%s in [%d, %d]" % (expr_text(c["expr"], names), c["lo"], c["hi"]))
            text = "(%s) -> (), domain: %s" % (", ".join(names), ", ".join(parts))
            out.write("%s\t%s\t%d\n" % (rec["id"], text, 1 if rec["gt_empty"] else 0))
            n += 1
    print("wrote %d W3 items to %s" % (n, dst), file=sys.stderr)


if __name__ == "__main__":
    main()
