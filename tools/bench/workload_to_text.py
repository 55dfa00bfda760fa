#!/usr/bin/env python3
"""Converts the peers' W1 workload (workload.jsonl) to one map per line.

Output line (tab-separated):
  id <TAB> map text <TAB> affine flags (1/0 per result, comma-separated)
     <TAB> reference div/mod op counts per result (comma-separated)
The map text is XLA's form, e.g.
  (d0, d1) -> ((d1 * 64 + d0) floordiv 32), domain: d0 in [0, 15], d1 in [0, 5]

Usage: workload_to_text.py data/workload.jsonl > w1.txt
"""
import json
import sys


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "data/workload.jsonl"
    with open(src) as f:
        for line in f:
            item = json.loads(line)
            if item.get("workload") != "simplify":
                continue
            dims = item["dims"]
            syms = item.get("symbols", [])
            header = "(" + ", ".join(d["name"] for d in dims) + ")"
            if syms:
                header += "[" + ", ".join(s["name"] for s in syms) + "]"
            results = ", ".join(r["text"] for r in item["results"])
            domain = ", ".join("%s in [%d, %d]" % (v["name"], v["lo"], v["hi"])
                               for v in dims + syms)
            text = "%s -> (%s), domain: %s" % (header, results, domain)
            affine = ",".join("1" if r["gt"]["affine"] else "0"
                              for r in item["results"])
            ref_ops = ",".join(str(r["gt"]["ref_ops"]) for r in item["results"])
            print("\t".join([item["id"], text, affine, ref_ops]))


if __name__ == "__main__":
    main()
