#!/usr/bin/env python3
"""Differential conformance test of ixa's layout ops against independent
Python references of the systems they model (tests/cli/hw_ref/):

  cute          CuTe layout algebra (pycute / cute C++)   -> cute_layout
  xla           XLA tiled layouts                         -> layout
  iree          IREE NestedLayoutAttr distribution        -> nested_layout
  warp          32-lane sector / line / bank simulation   -> warp_access

  hw_conformance.py IXA [--seed N] [--count N] [--only SECTION] [-v]

Deterministic for a fixed seed. Exit 0 when ixa agrees everywhere.
"""
import argparse
import os
import random
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hw_ref.harness import Harness  # noqa: E402
from hw_ref import cute_cases, iree_cases, warp_cases, xla_cases  # noqa: E402

SECTIONS = {
    "cute": cute_cases.build,
    "xla": xla_cases.build,
    "iree": iree_cases.build,
    "warp": warp_cases.build,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ixa")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--count", type=int, default=400,
                    help="random cases per section")
    ap.add_argument("--only", choices=sorted(SECTIONS))
    ap.add_argument("--limit", type=int, default=40)
    args = ap.parse_args()
    h = Harness(args.ixa)
    for name, build in sorted(SECTIONS.items()):
        if args.only and name != args.only:
            continue
        rng = random.Random("%d/%s" % (args.seed, name))
        h.check(name, build(rng, args.count))
    return 0 if h.report(sys.stdout, args.limit) else 1


if __name__ == "__main__":
    sys.exit(main())
